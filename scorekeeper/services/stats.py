"""Player figures: written per game and seat whenever a game changes, added up in SQL.

Each game keeps one :class:`~scorekeeper.models.GameFigures` row per seat
(written in the same transaction as the change that moved them), so the
players page, a player's page and the leaders read a few aggregates instead of
replaying games. Every query of the stats pages lives here.

A round's figures come from the engines' round dicts (``summary()["rounds"]``,
see :mod:`scorekeeper.services.history`): Mitchi pots taken and Mitchis rolled
(RULES.md Mitchi 6, 8), Mia challenges won and lives lost (Mia 4, 5), Mice and
Men runs with the mice and rounds taken (Mice and Men 4, 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam, case, delete, func, insert
from sqlmodel import Session, select

from ..db import run, run_many
from ..models import Game, GameFigures, GamePlayer, Player
from ..rules import GAMES, find_game
from ..rules.mitchi import MITCHI
from ..words import alphabetical, game_title

#: Figures summed over a game's finished rounds.
ROUND_KEYS = ("pots", "mitchis", "lives_lost", "challenges_won", "mia_challenges_won", "runs", "rounds_taken")


def lowest_wins(game: str) -> bool:
    """True when the fewest points win (Mitchi, Mice and Men); False for Mia (most lives)."""
    return find_game(game).lowest_wins


def empty_sums(players) -> dict[str, dict[str, int]]:
    """``{name: {key: 0 for key in ROUND_KEYS}}``: the round figures before round 1."""
    return {p: dict.fromkeys(ROUND_KEYS, 0) for p in players}


def add_round(game: str, sums: dict[str, dict[str, int]], rnd: dict) -> None:
    """Add one finished round (an engine's round dict) to ``sums`` (see :func:`empty_sums`)."""
    if game == "mitchi":
        sums[rnd["taker"]]["pots"] += 1
        hands = list(rnd.get("turns", [])) + [h for tb in rnd.get("tie_breaks", []) for h in tb["hands"]]
        for t in hands:
            sums[t["player"]]["mitchis"] += tuple(sorted(t["hand"], reverse=True)) == MITCHI
    elif game == "mia":
        sums[rnd["loser"]]["lives_lost"] += rnd.get("lives_lost", 0)
        sums[rnd["winner"]]["challenges_won"] += 1
        if rnd["mia"]:
            sums[rnd["winner"]]["mia_challenges_won"] += 1
    else:
        for p in rnd.get("runners", []):
            sums[p]["runs"] += 1
        for p in rnd.get("takers", []):
            sums[p]["rounds_taken"] += 1


def round_sums(game: str, players, rounds: list[dict]) -> dict[str, dict[str, int]]:
    """The round figures of every player over ``rounds`` (round dicts)."""
    sums = empty_sums(players)
    for rnd in rounds:
        add_round(game, sums, rnd)
    return sums


def figures(players, summary: dict, sums: dict[str, dict[str, int]]) -> dict[str, dict]:
    """Per player figures of one game: ``{name: {"score", "won", "shared", *ROUND_KEYS}}``.

    ``score`` is the engine's score now; ``won`` counts a sole or shared win only once the
    game is finished; ``shared`` is True for a shared win. ``summary`` needs only
    ``finished``, ``scores`` and ``winners``; the round figures come from ``sums``.
    """
    winners = (summary.get("winners") or []) if summary.get("finished") else []
    return {p: {"score": summary["scores"][p], "won": p in winners, "shared": p in winners and len(winners) > 1,
                **sums[p]} for p in players}


def game_figures(game: str, players: list[str], summary: dict) -> dict[str, dict]:
    """Figures of a whole replayed game (see :func:`figures`), from its ``summary()``."""
    return figures(players, summary, round_sums(game, players, summary["rounds"]))


# Plain Core statements on the table, built once, run on the driver (db.run): an entry that
# ends a round writes the figures, and the ORM's bulk path cost four times the SQL.
_FIGURES = GameFigures.__table__
_FORGET_FIGURES = delete(_FIGURES).where(_FIGURES.c.game_id == bindparam("b_game"))
_ADD_FIGURES = insert(_FIGURES)


def write_figures(session: Session, game_id: int, players: list[str], figs: dict[str, dict]) -> None:
    """Replace the game's figure rows (one per seat); no commit."""
    run(session, _FORGET_FIGURES, {"b_game": game_id})
    run_many(session, _ADD_FIGURES,
             [{"game_id": game_id, "seat": seat, **figs[p]} for seat, p in enumerate(players)])


def insert_figures(session: Session, rows: list[dict]) -> None:
    """Insert figure rows (``{"game_id", "seat", ...}``) of new games in bulk; no commit."""
    for start in range(0, len(rows), 1000):
        session.execute(insert(GameFigures), rows[start:start + 1000])


# --- the stats pages ------------------------------------------------------------------


@dataclass
class GameKindStats:
    """One player's figures over one game kind (Mitchi, Mia or Mice and Men).

    ``played`` counts every game (running ones too), ``finished`` the finished ones;
    ``wins`` sole wins, ``shared_wins`` shared ones. ``total_score`` adds final scores
    of finished games (points, lives left or penalty points; 0 counts).
    """

    game: str
    played: int = 0
    finished: int = 0
    wins: int = 0
    shared_wins: int = 0
    total_score: int = 0
    pots: int = 0
    mitchis: int = 0
    lives_lost: int = 0
    challenges_won: int = 0
    mia_challenges_won: int = 0
    runs: int = 0
    best: int | None = None  # the best final score: fewest points, or most lives

    @property
    def title(self) -> str:
        return game_title(self.game)

    @property
    def lowest_wins(self) -> bool:
        return lowest_wins(self.game)

    @property
    def win_rate(self) -> float | None:
        """(sole + shared wins) / finished games, or None before any finished game."""
        return (self.wins + self.shared_wins) / self.finished if self.finished else None

    @property
    def average(self) -> float | None:
        """Average final score per finished game (points, lives left, penalty points), or None."""
        return self.total_score / self.finished if self.finished else None

    def add(self, figs: dict, finished: bool) -> None:
        """Count one game's figures of this player (a :func:`figures` value)."""
        self.played += 1
        for key in ("pots", "mitchis", "lives_lost", "challenges_won", "mia_challenges_won", "runs"):
            setattr(self, key, getattr(self, key) + figs[key])
        if not finished:
            return
        self.finished += 1
        self.wins += figs["won"] and not figs["shared"]
        self.shared_wins += figs["shared"]
        self.total_score += figs["score"]
        better = min if self.lowest_wins else max
        self.best = figs["score"] if self.best is None else better(self.best, figs["score"])


@dataclass
class PlayerStats:
    """A profile and its figures by game kind (``kinds``: ``{game: GameKindStats}``)."""

    player: Player
    kinds: dict[str, GameKindStats] = field(default_factory=dict)

    @property
    def played(self) -> int:
        return sum(k.played for k in self.kinds.values())

    @property
    def wins(self) -> int:
        return sum(k.wins for k in self.kinds.values())

    @property
    def shared_wins(self) -> int:
        return sum(k.shared_wins for k in self.kinds.values())

    @property
    def finished(self) -> int:
        return sum(k.finished for k in self.kinds.values())

    @property
    def win_rate(self) -> float | None:
        return (self.wins + self.shared_wins) / self.finished if self.finished else None


def _group_games(group_id: int):
    """The group's games that count in its stats (one place to filter them)."""
    return select(Game.id).where(Game.group_id == group_id, Game.removed_at.is_(None),
                                 Game.practice.is_(False))  # practice and removed games never count


def seated_players(group_id: int):
    """The ids of the group's profiles that sit at one of its games that count (not removed, not
    practice): the others (whose only games were removed) leave the lists until a game is restored."""
    return select(GamePlayer.player_id).where(GamePlayer.game_id.in_(_group_games(group_id)))


def player_stats(session: Session, group_id: int, player_id: int | None = None) -> list[PlayerStats]:
    """Stats of the group's profiles (or only ``player_id``), most games first.

    One aggregate query over the stored figures (no replay). A seat counts for the
    profile it is linked to.
    """
    stmt = select(Player).where(Player.group_id == group_id)
    if player_id is not None:
        stmt = stmt.where(Player.id == player_id)
    else:  # the Players table: only who sits at a game that counts
        stmt = stmt.where(Player.id.in_(seated_players(group_id)))
    profiles = {p.id: PlayerStats(p) for p in session.exec(stmt)}
    if not profiles:
        return []
    f, gp = GameFigures, GamePlayer
    done = Game.finished

    def when_done(value, otherwise=0):
        return case((done, value), else_=otherwise)

    agg = (
        select(gp.player_id, Game.game, func.count(),
               func.sum(when_done(1)),
               func.sum(case((done & f.won & ~f.shared, 1), else_=0)),
               func.sum(case((done & f.shared, 1), else_=0)),
               func.sum(when_done(f.score)),
               func.sum(f.pots), func.sum(f.mitchis), func.sum(f.lives_lost), func.sum(f.challenges_won),
               func.sum(f.mia_challenges_won), func.sum(f.runs),
               func.min(when_done(f.score, None)), func.max(when_done(f.score, None)),
               func.min(gp.id))
        .join(gp, (gp.game_id == f.game_id) & (gp.seat == f.seat))
        .join(Game, Game.id == f.game_id)
        .where(f.game_id.in_(_group_games(group_id)))
        .group_by(gp.player_id, Game.game)
        .order_by(func.min(gp.id))
    )
    if player_id is not None:
        agg = agg.where(gp.player_id == player_id)
    else:
        agg = agg.where(gp.player_id.in_(select(Player.id).where(Player.group_id == group_id)))
    for (pid, game, played, finished, wins, shared, total, pots, mitchis, lives_lost, challenges,
         mia_challenges, runs, low, high, _first) in session.exec(agg):
        if pid not in profiles:
            continue
        profiles[pid].kinds[game] = GameKindStats(
            game, played=played, finished=finished or 0, wins=wins or 0, shared_wins=shared or 0,
            total_score=int(total or 0), pots=pots or 0, mitchis=mitchis or 0, lives_lost=lives_lost or 0,
            challenges_won=challenges or 0, mia_challenges_won=mia_challenges or 0, runs=runs or 0,
            best=low if lowest_wins(game) else high)
    return sorted(profiles.values(), key=lambda s: (-s.played, alphabetical(s.player.name_key)))


#: Finished games of a kind a player needs to be among its best averages (a guest's one lucky
#: game does not outrank the regulars), unless no one has that many yet.
LEADER_GAMES = 3


def leaders(stats: list[PlayerStats]) -> list[dict]:
    """Per game kind, who has the best average over finished games: ``[{"game", "title",
    "players": [name], "average": float, "lowest_wins": bool, "least": int}]``. The best is the
    LOWEST average in Mitchi and Mice and Men, the highest (lives left) in Mia. Only players
    with at least :data:`LEADER_GAMES` finished games of the kind count; while no one has that
    many, those with the most do (``least``: the finished games a player needed to be counted)."""
    out = []
    for game in GAMES:
        rows = [(s.player.name, s.kinds[game].average, s.kinds[game].finished) for s in stats
                if game in s.kinds and s.kinds[game].average is not None]
        if not rows:
            continue
        least = min(LEADER_GAMES, max(f for _n, _a, f in rows))
        rows = [(n, a) for n, a, f in rows if f >= least]
        pick = min if lowest_wins(game) else max
        best = pick(a for _, a in rows)
        out.append({"game": game, "title": game_title(game), "players": [n for n, a in rows if a == best],
                    "average": best, "lowest_wins": lowest_wins(game), "least": least})
    return out
