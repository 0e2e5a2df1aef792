"""Mitchi: two dice, points are bad (docs/rules.md §Mitchi).

A game is a :class:`Mitchi` state fed entries (docs/game-record.md):
``start``/``startroll``, then ``turn`` (final hand and rolls used) and
``tiebreak`` (one roll). The state knows the round, the roll limit, the worst
hand so far, the pot, the tie-break order, the scores and the end.
"""

from __future__ import annotations

from . import register
from .base import (
    entry_kind,
    MAX_NUMBER, N_, GameSpec, GameState, IllegalEntry, Opening, Option, Phrase, check_player, join_names,
    need_int, or_list, shown,
)
from .dice import parse_dice
from .plain import dataclass, field

#: Rule 1: every hand, best first. A hand's rank is its index here (higher is worse).
RANKING: tuple[tuple[int, int], ...] = (
    (2, 1),
    (6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1),
    (6, 5), (6, 4), (6, 3), (6, 2), (6, 1),
    (5, 4), (5, 3), (5, 2), (5, 1),
    (4, 3), (4, 2), (4, 1),
    (3, 2), (3, 1),
)
RANK = {hand: i for i, hand in enumerate(RANKING)}
_RANK_ANY_ORDER = {**RANK, **{(lo, hi): i for (hi, lo), i in RANK.items()}}
MITCHI = (2, 1)
MAX_START_ROLLS = 3
#: What a refusal of a turn's or a tie-break roll's dice names ("A hand must have 2 dice, not 3").
HAND = Phrase(N_("a hand"))

OPTIONS = (
    Option(
        "point_limit", "int", 25, minimum=1, label="Point limit",
        help="The game ends when anyone reaches this many points; fewest points win.",
    ),
)


def rank(hand) -> int:
    """Index of a hand (two dice, either order) in :data:`RANKING`: 0 is Mitchi, 20 is 3-1 (rule 1).

    Raises ``KeyError`` for anything that is not two dice faces.
    """
    return _RANK_ANY_ORDER[tuple(hand)]


def hand_name(hand) -> str:
    """'Mitchi', 'double 6' or '6-3' for a hand (two dice, either order)."""
    hand = tuple(sorted(hand, reverse=True))
    if hand == MITCHI:
        return "Mitchi"
    if hand[0] == hand[1]:
        return f"double {hand[0]}"
    return f"{hand[0]}-{hand[1]}"


def worst_of(hands: list[tuple[str, tuple[int, int]]]) -> list[str]:
    """Players holding the lowest-ranked hand among ``(player, hand)`` pairs (rules 5, 7)."""
    worst = max(rank(h) for _, h in hands)
    return [p for p, h in hands if rank(h) == worst]


@dataclass
class Turn:
    player: str
    hand: tuple[int, int]
    rolls: int | None = None  # None for a tie-break roll


@dataclass
class TieBreak:
    """One tie-break: who rolls in which order, the pot once doubled, the rolls so far."""

    order: list[str]
    pot: int
    rolls: list[Turn] = field(default_factory=list)

    @property
    def pot_after(self) -> int:
        """The pot with this tie-break's rolls: ``pot`` and 2 more for each Mitchi rolled in it (rule 8),
        at most :data:`~.base.MAX_NUMBER` (docs/rules.md §Mitchi 8)."""
        return min(self.pot + 2 * sum(1 for t in self.rolls if t.hand == MITCHI), MAX_NUMBER)

    @property
    def worst_roll(self) -> tuple[int, int] | None:
        """The worst hand rolled in this tie-break so far ``(high, low)``, the one to beat for
        whoever rolls next (the worst tie-break hand takes the pot: docs/rules.md §Mitchi 8),
        or None before its first roll."""
        return max((t.hand for t in self.rolls), key=rank) if self.rolls else None

    @property
    def worst_roll_players(self) -> list[str]:
        """Everyone who rolled :attr:`worst_roll` in this tie-break, in the order they rolled
        (docs/rules.md §Mitchi 8); empty before its first roll."""
        return worst_of([(t.player, t.hand) for t in self.rolls]) if self.rolls else []


@dataclass
class Round:
    """A round in play or finished (rules 3-10)."""

    number: int
    starter: str
    order: list[str]
    turns: list[Turn] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    taker: str | None = None
    scores: dict | None = None  # everyone's points once the pot is taken

    @property
    def roll_limit(self) -> int | None:
        """Rolls the starting player used (rule 3), None before their turn."""
        return self.turns[0].rolls if self.turns else None

    @property
    def mitchis(self) -> int:
        return sum(1 for t in self.turns if t.hand == MITCHI)

    @property
    def round_pot(self) -> int:
        """Rule 6: 1 with no Mitchi, else 2 per Mitchi final hand."""
        return 2 * self.mitchis if self.mitchis else 1

    @property
    def pot(self) -> int:
        """The pot now: the round's pot, or the running tie-break's (rule 8)."""
        if not self.tie_breaks:
            return self.round_pot
        return self.tie_breaks[-1].pot_after

    @property
    def worst_hand(self) -> Turn | None:
        """The first finished turn holding the worst hand so far (rule 5), or None."""
        if not self.turns:
            return None
        worst, worst_rank = None, -1
        for t in self.turns:  # the first of the worst: a later turn takes it only if it ranks worse
            r = rank(t.hand)
            if r > worst_rank:
                worst, worst_rank = t, r
        return worst

    @property
    def tied_on(self) -> tuple[int, int] | None:
        """The hand the players in the running tie-break are tied on (the worst of the stage before)."""
        if not self.tie_breaks:
            return None
        if len(self.tie_breaks) > 1:
            return self.tie_breaks[-2].worst_roll
        return max((t.hand for t in self.turns), key=rank)

    @property
    def worst_hand_players(self) -> list[str]:
        """Everyone holding the worst hand so far, in the order they played (rules 5, 7)."""
        if not self.turns:
            return []
        return worst_of([(t.player, t.hand) for t in self.turns])

    @property
    def next_player(self) -> str | None:
        if len(self.turns) < len(self.order):
            return self.order[len(self.turns)]
        if self.tie_breaks:
            tb = self.tie_breaks[-1]
            if len(tb.rolls) < len(tb.order):
                return tb.order[len(tb.rolls)]
        return None

    @property
    def in_tie_break(self) -> bool:
        return len(self.turns) == len(self.order) and self.taker is None

    def as_dict(self) -> dict:
        """docs/game-record.md §Replay round keys (number, starter, roll_limit, taker, pot), plus ``turns``
        (``[{"player", "hand": [hi, lo], "rolls"}]``), ``tie_breaks`` (``[{"order", "pot" (doubled,
        before Mitchis), "pot_after" (with them), "hands"}]``) and ``scores`` (everyone's points after the round)."""
        return {
            "number": self.number,
            "starter": self.starter,
            "roll_limit": self.roll_limit,
            "taker": self.taker,
            "pot": self.pot,
            "turns": [{"player": t.player, "hand": list(t.hand), "rolls": t.rolls} for t in self.turns],
            "tie_breaks": [
                {"order": tb.order, "pot": tb.pot, "pot_after": tb.pot_after,
                 "hands": [{"player": t.player, "hand": list(t.hand)} for t in tb.rolls]}
                for tb in self.tie_breaks
            ],
            "scores": dict(self.scores or {}),
        }


class Mitchi(GameState):
    """A Mitchi game computed from its entries (docs/rules.md §Mitchi 1-12).

    ``players`` are names in seat order (clockwise); ``options`` has
    ``point_limit``. ``scores`` maps each player to points; ``rounds`` holds
    every round, the last one possibly in play.
    """

    game = "mitchi"

    def __init__(self, players: tuple[str, ...], options: dict):
        self.players = tuple(players)
        self.options = dict(options)
        self.point_limit: int = options["point_limit"]
        self.opening = Opening(self.players)
        self.scores: dict[str, int] = {p: 0 for p in self.players}
        self.rounds: list[Round] = []
        self.winners: list[str] = []

    # --- what the table sees -------------------------------------------------

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    @property
    def round(self) -> Round | None:
        """The round in play (None before the start and after the end)."""
        if self.rounds and self.rounds[-1].taker is None:
            return self.rounds[-1]
        return None

    @property
    def finished_rounds(self) -> list[Round]:
        return [r for r in self.rounds if r.taker is not None]

    @property
    def rounds_played(self) -> int:
        return len(self.rounds) - (self.round is not None)

    def tie_break_numbers(self, entries: list) -> list[int | None]:
        """For ``entries``, the last entries of the log this state was replayed from (in log
        order): the number of the round's tie-break each tie-break roll among them was rolled in
        (1, then 2 after a tie in it, …: docs/rules.md §Mitchi 8), None for any other entry, and
        for a roll of a round this state no longer holds (a snapshot keeps the last rounds). The
        log's tie-break rolls and the rounds' rolls are one sequence: both are walked back from
        the last, as far as ``entries`` go."""
        def rolls_backwards():
            for rnd in reversed(self.rounds):
                for number in range(len(rnd.tie_breaks), 0, -1):
                    for _ in rnd.tie_breaks[number - 1].rolls:
                        yield number
        numbers: list[int | None] = [None] * len(entries)
        walk = None
        for i in range(len(entries) - 1, -1, -1):
            entry = entries[i]
            if isinstance(entry, dict) and entry.get("type") == "tiebreak":
                walk = walk or rolls_backwards()
                numbers[i] = next(walk, None)
        return numbers

    @property
    def tie_break_now(self) -> int | None:
        """The number of the round's tie-break under way, in which a tie-break roll entered now
        is rolled (1, then 2 after a tie in it, …: docs/rules.md §Mitchi 8); None outside one."""
        rnd = self.round
        return len(rnd.tie_breaks) if rnd is not None and rnd.in_tie_break else None

    def clockwise_from(self, player: str) -> list[str]:
        """Every seat once, clockwise, starting with ``player`` (rule 4)."""
        i = self.players.index(player)
        return list(self.players[i:] + self.players[:i])

    def expected(self) -> dict | None:
        """The ``next`` object of the replay output; None once the game is over."""
        if self.finished:
            return None
        rnd = self.round
        if rnd is None:
            return self.opening.expected()
        worst = rnd.worst_hand
        info = {
            "round": rnd.number,
            "pot": rnd.pot,
            "roll_limit": rnd.roll_limit,
            "worst_hand": list(worst.hand) if worst else None,
            "worst_hand_player": worst.player if worst else None,
            "worst_hand_players": rnd.worst_hand_players,
        }
        if rnd.in_tie_break:
            tb = rnd.tie_breaks[-1]
            return {"type": "tiebreak", "player": rnd.next_player, "tie_break_order": list(tb.order), **info}
        return {"type": "turn", "player": rnd.next_player, **info}

    def allowed_rolls(self) -> list[int]:
        """Roll counts the next turn may use: 1..3 for the starter, else 1..roll limit (rule 3)."""
        rnd = self.round
        if rnd is None or rnd.in_tie_break:
            return []
        limit = rnd.roll_limit or MAX_START_ROLLS
        return list(range(1, limit + 1))

    def summary(self) -> dict:
        return {
            "game": self.game,
            "finished": self.finished,
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "rounds": [r.as_dict() for r in self.finished_rounds],
            "start": self.opening.as_dict(),
            "next": self.expected(),
        }

    # --- entries ---------------------------------------------------------------

    def apply(self, entry: dict) -> None:
        """Check and apply one entry; raise :class:`IllegalEntry` and change nothing.

        Shapes (docs/game-record.md §Entries): ``{"type": "turn", "player", "hand": [a, b],
        "rolls": n}``, ``{"type": "tiebreak", "player", "hand": [a, b]}``,
        ``start``/``startroll`` first.
        """
        kind = entry.get("type")
        if self.finished:
            raise IllegalEntry(N_("the game is over ({winners} won); no more entries"),
                               winners=join_names(self.winners))
        rnd = self.round
        if rnd is None:
            self.opening.apply(entry)
            if self.opening.starter is not None:
                self._new_round(self.opening.starter)
            return
        if kind == "turn":
            self._turn(rnd, entry)
        elif kind == "tiebreak":
            self._tiebreak(rnd, entry)
        else:
            if rnd.in_tie_break:
                raise IllegalEntry(N_("the entry {kind} is not allowed now; expected a tie-break roll by {player}"),
                                   kind=entry_kind(kind), player=rnd.next_player)
            raise IllegalEntry(N_("the entry {kind} is not allowed now; expected a turn by {player}"),
                               kind=entry_kind(kind), player=rnd.next_player)

    def _turn(self, rnd: Round, entry: dict) -> None:
        if rnd.in_tie_break:
            raise IllegalEntry(N_("the round is in a tie-break; expected a tie-break roll by {player} (order: {order})"),
                               player=rnd.next_player, order=", ".join(rnd.tie_breaks[-1].order))
        player = check_player(self.players, entry, rnd.next_player, N_("turn"))
        hand = parse_dice(entry.get("hand"), 2, HAND)
        rolls = need_int(entry, "rolls", None, None, None)  # the range is the roll limit, below
        if rnd.roll_limit is None:
            if not 1 <= rolls <= MAX_START_ROLLS:
                raise IllegalEntry(N_("the starting player uses 1, 2 or 3 rolls, not {value}"), value=shown(rolls))
        elif not 1 <= rolls <= rnd.roll_limit:
            valid = Phrase(N_("only 1")) if rnd.roll_limit == 1 else or_list(str(n) for n in range(1, rnd.roll_limit + 1))
            raise IllegalEntry(
                N_("{value} rolls is not allowed: the roll limit this round is {limit}, so {player} may use {valid}"),
                value=shown(rolls), limit=rnd.roll_limit, player=player, valid=valid)
        rnd.turns.append(Turn(player, hand, rolls))
        if len(rnd.turns) == len(rnd.order):
            self._settle(rnd, [(t.player, t.hand) for t in rnd.turns], list(rnd.order))

    def _tiebreak(self, rnd: Round, entry: dict) -> None:
        if not rnd.in_tie_break:
            raise IllegalEntry(N_("there is no tie-break now; expected a turn by {player}"), player=rnd.next_player)
        tb = rnd.tie_breaks[-1]
        player = check_player(self.players, entry, rnd.next_player, N_("tie-break roll"))
        # A tie-break is one roll; a ``rolls`` key is not part of this entry's shape and is
        # ignored like any unlisted key (docs/game-record.md §Shapes).
        hand = parse_dice(entry.get("hand"), 2, HAND)
        tb.rolls.append(Turn(player, hand))
        if len(tb.rolls) == len(tb.order):
            self._settle(rnd, [(t.player, t.hand) for t in tb.rolls], list(tb.order))

    def _settle(self, rnd: Round, hands: list, order_played: list[str]) -> None:
        """After the last hand of a round or tie-break: take the pot or start a tie-break."""
        worst = worst_of(hands)
        if len(worst) == 1:
            self._take_pot(rnd, worst[0])
            return
        # Rule 9: reverse the order just played, keep the tied players.
        order = [p for p in reversed(order_played) if p in worst]
        # The pot doubles (rule 8), up to the largest number the rules keep (docs/rules.md §Mitchi 8:
        # 29 tie-breaks in a row; a pot past it would overflow what the stats store).
        rnd.tie_breaks.append(TieBreak(order=order, pot=min(rnd.pot * 2, MAX_NUMBER)))

    def _take_pot(self, rnd: Round, taker: str) -> None:
        pot = rnd.pot
        rnd.taker = taker
        self.scores[taker] += pot
        rnd.scores = dict(self.scores)
        if any(s >= self.point_limit for s in self.scores.values()):  # rule 11
            low = min(self.scores.values())
            self.winners = [p for p in self.players if self.scores[p] == low]
            return
        self._new_round(taker)  # rule 10

    def _new_round(self, starter: str) -> None:
        self.rounds.append(Round(number=len(self.rounds) + 1, starter=starter, order=self.clockwise_from(starter)))


GAME = register(
    GameSpec(
        name="mitchi",
        title="Mitchi",
        options=OPTIONS,
        min_players=2,
        max_players=None,
        new_state=Mitchi,
        lowest_wins=True,
        score_word="points",
    )
)
