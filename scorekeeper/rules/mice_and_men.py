"""Mice and Men: three dice, penalty points are bad (docs/rules.md §Mice and Men).

A game is a :class:`MiceAndMen` state fed entries (docs/game-record.md):
optionally ``start``/``startroll`` (who opens round 1), ``first`` (with
``first_player = chosen``, the opener of a round), ``announce`` (the opening
penalty or a lead), ``join``, ``run`` (optional ``dice``) and ``reveal``
(three dice). The state knows the round, its opener, the current penalty,
whose choice it is, who is still in, who ran, who joined, the showdown, the
penalty points and the end.

How this module reads docs/rules.md §Mice and Men 2-5 (the pages follow it):

- **Opener of round 1**: the first seat, unless a ``start`` entry or a
  one-die roll-off (``startroll``, Mitchi 2) names another. Either must come
  before the round's opening announcement (and, under ``chosen``, instead of
  round 1's ``first`` entry, not after it). Once a roll-off has begun only
  ``startroll`` entries are accepted until it is decided. Under ``chosen``
  the first seat is not assumed: round 1 needs a ``first``, a ``start`` or a
  roll-off.
- **Opener of round 2 and later** under ``rotate``: the seat after the
  previous round's opener (every player plays every round, so no seat is
  skipped). Under ``chosen``: whoever the ``first`` entry names; any player,
  the previous opener included.
- **A run** puts the player out of that round only; everyone is dealt in
  again next round. The run penalty (option ``run_penalty``, 0 allowed) is
  added at once. A runner's optional ``dice`` are checked (three faces 1-6)
  and only recorded; they change no score.
- **Bidding order**: after an announcement, the players still in answer
  clockwise from the announcer's left; a player who ran is skipped. Each
  lead reopens the choice for everyone else still in, joiners included. The
  bidding ends when the next player to answer would be the last announcer,
  who is not asked again (so can never run from their own announcement). A
  player who led earlier but was overtaken answers again like anyone else
  and may then run.
- **Lone survivor** (rule 5) is checked after every run: as soon as one
  player is left, the round ends with no showdown and that player takes
  nothing. This can be the opener (everyone else ran from the opening) or
  a player who led; it can happen whatever the bidding's state.
- **Leads** have no upper bound; the smallest lead is the current penalty
  plus 1. The opening announcement must be within ``opening_range``.
- **Showdown**: reveals in any order, each player still in exactly once.
  With ``tie = none`` and several sharing the lowest score, nobody takes the
  penalty; with a single lowest score that player takes it in both modes.
- **next** (replay output): ``player`` is null where several players may
  make the next entry (a ``first`` entry; a showdown with more than one
  reveal to come, where ``to_reveal`` lists them). Before round 1's opening
  announcement under ``rotate``, ``type`` is ``["announce", "start",
  "startroll"]``, ``player`` is null (a ``start`` may name anyone) and
  ``opener`` is the first seat, who would announce. ``to_act`` is the player
  the table waits for: that opener, else the one player whose entry comes
  next, or None.
"""

from __future__ import annotations

from . import register
from .base import (
    entry_kind,
    MAX_NUMBER, N_, GameSpec, GameState, IllegalEntry, Nn_, Opening, Option, Phrase, check_player, join_names,
    need_int, shown,
)
from .dice import parse_dice, value_of
from .plain import dataclass, field

TYPE_CHECKING = False  # typing is not imported at run time (start-up of `scorekeeper replay`)
if TYPE_CHECKING:
    from typing import Any

DICE = 3

OPTIONS = (
    Option(
        "rounds", "int", 10, minimum=1, label="Rounds",
        help="The game ends after this many rounds; the fewest penalty points win.",
    ),
    Option(
        "opening_range", "range", [1, 10], minimum=1, label="Opening range",
        help="The lowest and highest penalty the round's first player may open with.",
    ),
    Option(
        "run_penalty", "int", 3, minimum=0, label="Run penalty",
        help="Penalty points a player takes at once for running with the mice.",
    ),
    Option(
        "tie", "text", "all", choices=("all", "none"), label="Tie at the showdown",
        help="When several share the lowest score: all of them take the penalty, or none does.",
    ),
    Option(
        "first_player", "text", "rotate", choices=("rotate", "chosen"), label="First player",
        help="Who opens each round: the next seat each round, or a player named each round.",
    ),
)

PHASES = ("first", "opening", "bidding", "showdown", "over")


def score_of(dice: Any) -> int:
    """Rule 1: three dice as the largest three-digit number, (1, 5, 6) -> 651.

    Raises :class:`IllegalEntry` unless ``dice`` is a list of three faces 1-6.
    """
    return value_of(parse_dice(dice, DICE, "dice"))


def _lowest(rnd: "Round") -> tuple[int, list[str]]:
    """The lowest score among the round's reveals so far and who revealed it, seat order (rule 4).
    The round has at least one reveal."""
    scores = {p: value_of(d) for p, d in rnd.reveals.items()}
    low = min(scores.values())
    return low, [p for p in rnd.in_play if scores.get(p) == low]


@dataclass
class Action:
    """One step of a round's bidding: ``open``, ``lead``, ``join`` or ``run``."""

    player: str
    action: str
    penalty: int
    dice: tuple[int, ...] | None = None

    def as_dict(self) -> dict:
        out: dict = {"player": self.player, "action": self.action, "penalty": self.penalty}
        if self.dice is not None:
            out["dice"] = list(self.dice)
            out["score"] = value_of(self.dice)
        return out


@dataclass
class Round:
    """A round in play or finished (rules 2-5).

    ``first`` is the opener (None until named under ``chosen``), ``penalty``
    the last announced penalty (None before the opening), ``in_play`` who is
    still in (seat order), ``to_act`` whose choice it is in the bidding (None
    before the opening and once the bidding is over).
    """

    number: int
    first: str | None
    in_play: list[str]
    seats: tuple[str, ...] = ()
    penalty: int | None = None
    last_announcer: str | None = None
    to_act: str | None = None
    joined: list[str] = field(default_factory=list)
    runners: list[str] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    reveals: dict[str, tuple[int, ...]] = field(default_factory=dict)
    takers: list[str] = field(default_factory=list)
    taken: dict[str, int] = field(default_factory=dict)
    survivor: str | None = None
    done: bool = False
    scores: dict | None = None  # everyone's penalty points once the round ended

    @property
    def phase(self) -> str:
        if self.done:
            return "over"
        if self.first is None:
            return "first"
        if self.penalty is None:
            return "opening"
        if self.to_act is not None:
            return "bidding"
        return "showdown"

    @property
    def to_reveal(self) -> list[str]:
        if self.phase != "showdown":
            return []
        return [p for p in self.in_play if p not in self.reveals]

    def as_dict(self) -> dict:
        """docs/game-record.md §Replay round keys (number, first, penalty, takers, runners), plus ``opening``,
        ``bidding`` (``[{"player", "action": open|lead|join|run, "penalty", ...}]``), ``reveals``
        (``[{"player", "dice", "score"}]``), ``survivor``, ``taken`` (points taken this round)
        and ``scores`` (everyone's penalty points after the round)."""
        return {
            "number": self.number,
            "first": self.first,
            "penalty": self.penalty,
            "takers": list(self.takers),
            "runners": list(self.runners),
            "opening": self.actions[0].penalty if self.actions else None,
            "bidding": [a.as_dict() for a in self.actions],
            "reveals": [
                {"player": p, "dice": list(d), "score": value_of(d)} for p, d in self.reveals.items()
            ],
            "survivor": self.survivor,
            "taken": {p: self.taken[p] for p in sorted(self.taken, key=self.seats.index)},
            "scores": dict(self.scores or {}),
        }


class MiceAndMen(GameState):
    """A Mice and Men game computed from its entries (docs/rules.md §Mice and Men 1-7).

    ``players`` are names in seat order (clockwise); ``options`` has
    ``rounds``, ``opening_range``, ``run_penalty``, ``tie`` and
    ``first_player``. ``scores`` maps each player to penalty points;
    ``rounds`` holds the finished rounds, ``round`` the one in play.
    """

    game = "mice-and-men"

    def __init__(self, players: tuple[str, ...], options: dict):
        self.players = tuple(players)
        self.options = dict(options)
        self.rounds_total: int = options["rounds"]
        self.opening_range: tuple[int, int] = (options["opening_range"][0], options["opening_range"][1])
        self.run_penalty: int = options["run_penalty"]
        self.tie: str = options["tie"]
        self.first_player: str = options["first_player"]
        self.opening = Opening(self.players)
        self.scores: dict[str, int] = {p: 0 for p in self.players}
        self.rounds: list[Round] = []
        self.winners: list[str] = []
        self.round: Round | None = None
        self._first_named = False  # round 1's opener named by start / roll-off / first
        self._new_round(self.players[0] if self.first_player == "rotate" else None)

    # --- what the table sees -------------------------------------------------

    score_of = staticmethod(score_of)

    @property
    def finished(self) -> bool:
        return self.round is None

    @property
    def round_number(self) -> int:
        """The round in play, or the last round once the game is over."""
        return self.round.number if self.round is not None else len(self.rounds)

    @property
    def phase(self) -> str:
        """``first`` (opener not known), ``opening``, ``bidding``, ``showdown`` or ``over``."""
        if self.round is None:
            return "over"
        if self._rolloff_running:
            return "first"
        return self.round.phase

    @property
    def opener(self) -> str | None:
        return self.round.first if self.round is not None and not self._rolloff_running else None

    @property
    def penalty(self) -> int | None:
        """The current (last announced) penalty of the round in play."""
        return self.round.penalty if self.round is not None else None

    @property
    def to_act(self) -> str | None:
        """The player the table waits for: the opener while the round is not opened, else the
        one player whose entry comes next; None (any player / several / game over)."""
        if self.phase == "opening":
            return self.round.first
        nxt = self.expected()
        return nxt["player"] if nxt else None

    @property
    def still_in(self) -> list[str]:
        """Players still in the round in play, seat order ([] once the game is over)."""
        return list(self.round.in_play) if self.round is not None else []

    @property
    def runners(self) -> list[str]:
        """Who ran in the round in play, in the order they ran."""
        return list(self.round.runners) if self.round is not None else []

    @property
    def joined(self) -> list[str]:
        """Who joined since the last announcement (agreed to the current penalty)."""
        return list(self.round.joined) if self.round is not None else []

    @property
    def last_announcer(self) -> str | None:
        return self.round.last_announcer if self.round is not None else None

    @property
    def to_reveal(self) -> list[str]:
        """Players still to reveal at the showdown, seat order."""
        return self.round.to_reveal if self.round is not None else []

    @property
    def revealed(self) -> dict[str, int]:
        """Player -> score of every reveal so far in the round in play."""
        if self.round is None:
            return {}
        return {p: value_of(d) for p, d in self.round.reveals.items()}

    @property
    def lowest_so_far(self) -> tuple[int, list[str]] | None:
        """At the showdown: ``(score, players)``, the lowest score revealed so far in the round in
        play (as :func:`value_of`, e.g. 221) and who revealed it, seat order: who takes the penalty
        should everyone still to reveal show more (docs/rules.md §Mice and Men 4). None before
        the round's first reveal, and between rounds."""
        return _lowest(self.round) if self.round is not None and self.round.reveals else None

    def min_lead(self) -> int | None:
        """The smallest lead allowed now (current penalty + 1), None outside the bidding."""
        return self.round.penalty + 1 if self.phase == "bidding" else None

    def max_lead(self) -> int | None:
        """The largest lead allowed now (the largest penalty, docs/game-record.md §Ranges), None
        outside the bidding or when the penalty is already the largest: then no one may lead."""
        return MAX_NUMBER if self.phase == "bidding" and self.round.penalty < MAX_NUMBER else None

    @property
    def _rolloff_running(self) -> bool:
        return self.opening.rolloff is not None and self.opening.starter is None

    @property
    def _may_name_first(self) -> bool:
        """start / startroll are still accepted: round 1, before its opener is named or announces."""
        rnd = self.round
        return (
            rnd is not None and rnd.number == 1 and not self._first_named
            and rnd.penalty is None
        )

    def legal_types(self) -> list[str]:
        """Entry types accepted now."""
        phase = self.phase
        if phase == "over":
            return []
        if self._rolloff_running:
            return ["startroll"]
        if self._may_name_first:
            return ["first" if phase == "first" else "announce", "start", "startroll"]
        if phase == "bidding":  # no lead above the largest penalty (docs/game-record.md §Ranges)
            return ["run", "join"] + (["announce"] if self.max_lead() else [])
        return {"first": ["first"], "opening": ["announce"], "showdown": ["reveal"]}[phase]

    def expected(self) -> dict | None:
        """The ``next`` object of the replay output; None once the game is over."""
        rnd = self.round
        if rnd is None:
            return None
        info = {"round": rnd.number, "rounds": self.rounds_total}
        if self._rolloff_running:
            return {**self.opening.expected(), **info}
        types = self.legal_types()
        phase = rnd.phase
        if phase == "first":
            return {"type": types if len(types) > 1 else types[0], "player": None, **info}
        if phase == "opening":
            # Before round 1's opening, a start may still name anyone: no single player acts next
            # (docs/game-record.md §Replay, "next"); "opener" says who would announce.
            return {
                "type": types if len(types) > 1 else types[0],
                "player": None if self._may_name_first else rnd.first, "opener": rnd.first,
                "penalty_range": list(self.opening_range), **info,
            }
        if phase == "bidding":
            return {
                "type": types, "player": rnd.to_act, "penalty": rnd.penalty,
                "min_lead": rnd.penalty + 1 if self.max_lead() else None,  # None: no one may lead
                "last_announcer": rnd.last_announcer, "still_in": list(rnd.in_play), **info,
            }
        waiting = rnd.to_reveal
        return {
            "type": "reveal", "player": waiting[0] if len(waiting) == 1 else None,
            "to_reveal": waiting, "penalty": rnd.penalty, **info,
        }

    def summary(self) -> dict:
        return {
            "game": self.game,
            "finished": self.finished,
            "scores": {p: self.scores[p] for p in self.players},
            "winners": list(self.winners),
            "rounds": [r.as_dict() for r in self.rounds],
            "start": self.opening.as_dict(),
            "next": self.expected(),
        }

    def next_in(self, player: str) -> str:
        """The next seat clockwise after ``player`` still in the round in play."""
        i = self.players.index(player)
        n = len(self.players)
        for k in range(1, n + 1):
            p = self.players[(i + k) % n]
            if p in self.round.in_play:
                return p
        raise AssertionError("nobody in the round")  # pragma: no cover

    def _want(self) -> str:
        """What would be valid now, for a message."""
        rnd = self.round
        if self._rolloff_running:
            return Phrase(N_("the roll-off for the first opener goes on: {player}'s startroll"),
                          player=self.opening.rolloff.next_player)
        phase = rnd.phase
        if phase == "first":
            if self._may_name_first:
                return Phrase(N_("round {round} needs its first player: a first entry naming any player "
                                 "(or a start / startroll naming the first round's opener)"), round=rnd.number)
            return Phrase(N_("round {round} needs its first player: a first entry naming any player"),
                          round=rnd.number)
        if phase == "opening":
            low, high = self.opening_range
            if self._may_name_first:
                return Phrase(N_("{player} opens round {round}: an announce of {low} to {high} "
                                 "(or a start / startroll naming the first round's opener)"),
                              player=rnd.first, round=rnd.number, low=low, high=high)
            return Phrase(N_("{player} opens round {round}: an announce of {low} to {high}"),
                          player=rnd.first, round=rnd.number, low=low, high=high)
        if phase == "bidding":
            return Phrase(N_("it is {player}'s choice at penalty {penalty}: run, join, "
                             "or announce a lead of {lead} or more"),
                          player=rnd.to_act, penalty=rnd.penalty, lead=rnd.penalty + 1)
        return Phrase(N_("the showdown is on: a reveal of three dice by {players}"), players=join_names(rnd.to_reveal))

    # --- entries ---------------------------------------------------------------

    def apply(self, entry: dict) -> None:
        """Check and apply one entry; raise :class:`IllegalEntry` and change nothing."""
        if not isinstance(entry, dict):
            raise IllegalEntry(N_("an entry is a JSON object with a type and a player"))
        kind = entry.get("type")
        rnd = self.round
        if rnd is None:
            raise IllegalEntry(Phrase(*Nn_("the game is over after {count} round ({winners} won); no more entries",
                                           "the game is over after {count} rounds ({winners} won); no more entries"),
                                      count=self.rounds_total, winners=join_names(self.winners)))
        if kind not in self.legal_types():
            if kind in ("start", "startroll") and not self._rolloff_running:
                raise IllegalEntry(N_("start and startroll only name the first round's opener, before it is named "
                                      "and before its opening announcement; now {want}"), want=self._want())
            if kind == "first" and self.first_player == "rotate":
                raise IllegalEntry(N_("with first_player = rotate the opener is not chosen (it is {player}); "
                                      "now {want}"), player=rnd.first, want=self._want())
            if kind == "first":
                raise IllegalEntry(N_("round {round}'s first player is already {player}; now {want}"),
                                   round=rnd.number, player=rnd.first, want=self._want())
            if kind == "reveal" and rnd.phase == "bidding":
                raise IllegalEntry(N_("no reveal before the bidding has ended; {want}"), want=self._want())
            if kind == "run" and rnd.phase in ("first", "opening"):
                raise IllegalEntry(N_("nobody can run before the opening announcement; {want}"), want=self._want())
            if kind == "join" and rnd.phase in ("first", "opening"):
                raise IllegalEntry(N_("nobody can join before the opening announcement; {want}"), want=self._want())
            if kind in ("run", "join", "announce") and rnd.phase == "showdown":
                raise IllegalEntry(N_("the bidding has ended; {want}"), want=self._want())
            raise IllegalEntry(N_("an entry of type {kind} is not allowed now; {want}"),
                               kind=entry_kind(kind), want=self._want())
        if kind in ("start", "startroll"):
            self.opening.apply(entry)  # raises before any change
            if self.opening.starter is not None:
                rnd.first = self.opening.starter
                self._first_named = True
        elif kind == "first":
            rnd.first = check_player(self.players, entry, None, N_("first"))
            self._first_named = True
        elif kind == "announce":
            if rnd.phase == "opening":
                self._open(rnd, entry)
            else:
                self._lead(rnd, entry)
        elif kind == "join":
            self._join(rnd, entry)
        elif kind == "run":
            self._run(rnd, entry)
        else:
            self._reveal(rnd, entry)

    def _bidder(self, rnd: Round, entry: dict) -> str:
        """The entry's player if it is their choice; a message for a runner or the last announcer."""
        player = entry.get("player")
        if isinstance(player, str) and player in rnd.runners:
            raise IllegalEntry(N_("{player} ran with the mice and is out of round {round}; "
                                  "it is {next}'s choice (run, join or lead)"),
                               player=player, round=rnd.number, next=rnd.to_act)
        if isinstance(player, str) and player == rnd.last_announcer:
            raise IllegalEntry(N_("{player} made the last announcement ({penalty}) and is not asked until "
                                  "someone leads; it is {next}'s choice (run, join or lead)"),
                               player=player, penalty=rnd.penalty, next=rnd.to_act)
        return check_player(self.players, entry, rnd.to_act, N_("choice (run, join or lead)"))

    def _open(self, rnd: Round, entry: dict) -> None:
        low, high = self.opening_range
        if entry.get("player") != rnd.first:
            check_player(self.players, entry, None, N_("opening"))
            raise IllegalEntry(N_("{first} opens round {round}, not {player}: an announce by {first} of {low} to {high}"),
                               first=rnd.first, round=rnd.number, player=entry.get("player"), low=low, high=high)
        penalty = need_int(entry, "penalty", Phrase(N_("the opening penalty")), None, None)
        if not low <= penalty <= high:  # opening_range is within 1..MAX_NUMBER (docs/rules.md §Options)
            raise IllegalEntry(N_("the opening penalty must be within the opening range: {low} to {high}, not {value}"),
                               low=low, high=high, value=shown(penalty))
        rnd.penalty = penalty
        rnd.last_announcer = rnd.first
        rnd.actions.append(Action(rnd.first, "open", penalty))
        rnd.to_act = self.next_in(rnd.first)

    def _lead(self, rnd: Round, entry: dict) -> None:
        player = self._bidder(rnd, entry)
        penalty = need_int(entry, "penalty", Phrase(N_("a lead's penalty")), None, None)
        if penalty <= rnd.penalty:
            raise IllegalEntry(N_("a lead must be above the current penalty {penalty}: {lead} or more, not {value}"),
                               penalty=rnd.penalty, lead=rnd.penalty + 1, value=shown(penalty))
        if penalty > MAX_NUMBER:  # docs/game-record.md §Ranges
            raise IllegalEntry(N_("a penalty is at most {most}: lead with {lead} to {most}, not {value}"),
                               most=MAX_NUMBER, lead=rnd.penalty + 1, value=shown(penalty))
        rnd.penalty = penalty
        rnd.last_announcer = player
        rnd.joined = []
        rnd.actions.append(Action(player, "lead", penalty))
        self._pass_turn(rnd, player)

    def _join(self, rnd: Round, entry: dict) -> None:
        player = self._bidder(rnd, entry)
        rnd.joined.append(player)
        rnd.actions.append(Action(player, "join", rnd.penalty))
        self._pass_turn(rnd, player)

    def _run(self, rnd: Round, entry: dict) -> None:
        player = self._bidder(rnd, entry)
        # ``dice`` is optional: left out, not null (docs/game-record.md §Shapes).
        dice = parse_dice(entry["dice"], DICE, Phrase(N_("a runner's roll"))) if "dice" in entry else None
        nxt = self.next_in(player)
        rnd.in_play.remove(player)
        rnd.runners.append(player)
        rnd.actions.append(Action(player, "run", rnd.penalty, dice))
        self._take(rnd, player, self.run_penalty)
        if len(rnd.in_play) == 1:  # rule 5: the lone survivor
            rnd.survivor = rnd.in_play[0]
            rnd.to_act = None
            self._end_round(rnd)
            return
        self._pass_turn(rnd, player, nxt)

    def _pass_turn(self, rnd: Round, player: str, nxt: str | None = None) -> None:
        """After ``player``'s answer: the next still in, or the end of the bidding (rule 3)."""
        nxt = nxt if nxt is not None else self.next_in(player)
        rnd.to_act = None if nxt == rnd.last_announcer else nxt

    def _reveal(self, rnd: Round, entry: dict) -> None:
        player = entry.get("player")
        if isinstance(player, str) and player in rnd.runners:
            raise IllegalEntry(N_("{player} ran with the mice and does not reveal at the showdown; "
                                  "still to reveal: {players}"), player=player, players=join_names(rnd.to_reveal))
        if isinstance(player, str) and player in rnd.reveals:
            raise IllegalEntry(N_("{player} has already revealed; still to reveal: {players}"),
                               player=player, players=join_names(rnd.to_reveal))
        check_player(self.players, entry, None, N_("reveal"))
        dice = parse_dice(entry.get("dice"), DICE, Phrase(N_("a reveal")))
        rnd.reveals[player] = dice
        if rnd.to_reveal:
            return
        _, lowest = _lowest(rnd)
        takers = lowest if len(lowest) == 1 or self.tie == "all" else []
        rnd.takers = takers
        for p in takers:
            self._take(rnd, p, rnd.penalty)
        self._end_round(rnd)

    def _take(self, rnd: Round, player: str, points: int) -> None:
        self.scores[player] += points
        rnd.taken[player] = rnd.taken.get(player, 0) + points

    def _end_round(self, rnd: Round) -> None:
        rnd.done = True
        rnd.scores = {p: self.scores[p] for p in self.players}
        self.rounds.append(rnd)
        self.round = None
        if len(self.rounds) >= self.rounds_total:  # rule 6
            low = min(self.scores.values())
            self.winners = [p for p in self.players if self.scores[p] == low]
            return
        opener = None
        if self.first_player == "rotate":
            opener = self.players[(self.players.index(rnd.first) + 1) % len(self.players)]
        self._new_round(opener)

    def _new_round(self, opener: str | None) -> None:
        self.round = Round(
            number=len(self.rounds) + 1, first=opener, in_play=list(self.players), seats=self.players
        )


GAME = register(
    GameSpec(
        name="mice-and-men",
        title="Mice and Men",
        options=OPTIONS,
        min_players=4,
        max_players=8,
        new_state=MiceAndMen,
        lowest_wins=True,
        score_word="penalty points",
    )
)
