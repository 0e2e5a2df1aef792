"""Mia: two dice, lives (docs/rules.md §Mia).

A game is a :class:`Mia` state fed entries (docs/game-record.md):
``start``/``startroll``, then ``announce`` (a roll and its announced value),
``pass`` (with ``value`` when the last roller passes back by raising),
``challenge`` (the lifted ``cup``) and ``reverse`` (option ``mia_reverses``).

Values are written as numbers, higher die first: 65, 21 (Mia), 11.

Decisions of docs/rules.md §Mia 4-7 and §Mia 10, as this module reads them:

- **Quick-entry challenge**: while no announcement of the round has been
  entered (the round's first entry), a ``challenge`` may carry ``"owner": Q``
  and ``"announced": v`` itself. Q must be a player still in (in a roll-off:
  one of the two), and the challenger must be the next player still in after
  Q in the current direction (the challenger is always the player after the
  cup owner). Q need not be the round's starter: passes may have happened
  that were not entered. The usual ``cup`` is required. Once an announcement
  of the round is entered, a challenge carrying ``owner`` or ``announced`` is
  refused (docs/game-record.md §Shapes).
- ``lives_lost`` in a round is what the loser actually lost (lives never go
  below 0, and roll-off rounds change no lives, so 0 there).
- A pass carries ``value`` only as a pass back by the player who last rolled;
  ``"value": null`` is refused (null is not a number; leave the key out).
- In a roll-off (two players) reversing makes no difference, so no reverse
  is offered there; ``winner_gains_life`` and bonus points do not apply
  either (lives and bonus points no longer change).
- The Mia exception of rule 4 applies whenever the turn comes back to the
  last roller while the announcement is Mia (also a Mia reached by a pass
  back with a value).
- Under ``may-pass`` the pass-back player may also pass back by raising (with
  a value); then the next player may pass as usual. Only a pass back without
  raising forbids the next player's pass.
"""

from __future__ import annotations

from . import register
from .base import (
    entry_kind,
    N_,
    GameSpec,
    GameState,
    IllegalEntry,
    Opening,
    Option,
    Phrase,
    RecordError,
    is_int,
    join_names,
    not_a_player,
    or_list,
    shown,
)
from .dice import parse_dice, value_of
from .plain import dataclass

MIA = 21

#: Rule 2, ``order = standard``: every value, best first (1-1 is the best double).
STANDARD: tuple[int, ...] = (
    21,
    11, 22, 33, 44, 55, 66,
    65, 64, 63, 62, 61,
    54, 53, 52, 51,
    43, 42, 41,
    32, 31,
)

#: Rule 2, ``order = sum``: Mia, doubles 66 down to 11, then by pip sum
#: (equal sums rank equal; within one sum the higher first die is listed first).
SUM: tuple[int, ...] = (
    21,
    66, 55, 44, 33, 22, 11,
    65, 64, 63, 54, 62, 53, 61, 52, 43, 51, 42, 41, 32, 31,
)

VALUES = frozenset(STANDARD)


def is_double(value: int) -> bool:
    return value // 10 == value % 10


def pip_sum(value: int) -> int:
    return value // 10 + value % 10


def _sum_level(value: int) -> int:
    if value == MIA:
        return 0
    if is_double(value):
        return 7 - value % 10  # 66 -> 1 ... 11 -> 6
    return 7 + (11 - pip_sum(value))  # 65 (11) -> 7 ... 31 (4) -> 14


#: ``LEVELS[order][value]``: 0 is best; equal levels rank equal (only in ``sum``).
LEVELS: dict[str, dict[int, int]] = {
    "standard": {v: i for i, v in enumerate(STANDARD)},
    "sum": {v: _sum_level(v) for v in SUM},
}
RANKINGS: dict[str, tuple[int, ...]] = {"standard": STANDARD, "sum": SUM}


def level(value: int, order: str = "standard") -> int:
    """Rank of a value (rule 2): 0 for Mia, higher is worse; equal values share a level."""
    return LEVELS[order][value]


def ranks_above(a: int, b: int, order: str = "standard") -> bool:
    """True when ``a`` ranks strictly above ``b`` (rule 2)."""
    return level(a, order) < level(b, order)


def values_above(claim: int | None, order: str = "standard") -> list[int]:
    """Every value ranking strictly above ``claim``, **worst first** (the smallest
    raise first, Mia last); every value when ``claim`` is None."""
    ranking = RANKINGS[order]
    if claim is None:
        return list(reversed(ranking))
    return [v for v in reversed(ranking) if ranks_above(v, claim, order)]


def value_label(value: int, order: str = "standard") -> str:
    """'Mia', 'double 3', '65'; in ``sum`` order non-doubles add the sum: '63 (9)'."""
    if value == MIA:
        return Phrase(N_("Mia"))
    if is_double(value):
        return Phrase(N_("double {die}"), die=value % 10)
    if order == "sum":
        return f"{value} ({pip_sum(value)})"
    return str(value)


def parse_value(entry: dict, key: str = "value") -> int:
    """``entry[key]`` as a Mia value; raise :class:`IllegalEntry` saying what is valid."""
    value = entry.get(key)
    if not is_int(value):
        if value is None:
            raise IllegalEntry(N_("{key} is missing: give a value such as 65, 31, 11 or 21 (Mia)"), key=key)
        raise IllegalEntry(N_("{key} must be a whole number written higher die first, such as 65 or 21, not {value}"),
                           key=key, value=shown(value))
    if value not in VALUES:
        low, high = value % 10, value // 10
        if 1 <= low <= 6 and 1 <= high <= 6:  # dice written the wrong way round
            raise IllegalEntry(N_("{value} is not a Mia value: write the higher die first ({low}{high})"),
                               value=value, low=low, high=high)
        raise IllegalEntry(N_("{value} is not a Mia value: two dice 1 to 6, higher die first, "
                              "such as 65, 31, 11 or 21 (Mia)"), value=shown(value))
    return value


#: The refusal of an entry by a player whose turn it is not, by what they tried.
_NOT_YOUR_TURN = {
    "announce": N_("it is {next}'s turn, not {player}'s, to announce; {want}"),
    "pass": N_("it is {next}'s turn, not {player}'s, to pass; {want}"),
    "challenge": N_("it is {next}'s turn, not {player}'s, to challenge; {want}"),
}


def rolloff_of(rounds: list[dict], players: list[str]) -> tuple[list[str], int, bool] | None:
    """The roll-off for a tie in a game's ``summary()["rounds"]`` (docs/rules.md §Mia 7):
    ``(the two players in seat order, pair, decided)``: ``pair`` is the pair that decided it, or
    the one being played; a pair is two rounds, and one player winning both decides it. None when
    the game has had no roll-off."""
    played = [r for r in rounds if r.get("rolloff")]
    if not played:
        return None
    two = [p for p in players if p in (played[0]["owner"], played[0]["challenger"])]
    decided = len(played) % 2 == 0 and played[-1]["winner"] == played[-2]["winner"]
    return two, len(played) // 2 + (0 if decided else 1), decided


def _list(values) -> str:
    """'a, b or c' for messages (a :class:`Phrase`); a value of 21 reads "Mia"."""
    return or_list([Phrase(N_("Mia")) if v == MIA and not isinstance(v, bool)
                    else v if isinstance(v, Phrase) else str(v) for v in values])


OPTIONS = (
    Option(
        "lives", "int", 3, minimum=1, label="Starting lives",
        help="Lives each player starts with; a player with no lives left is out.",
    ),
    Option(
        "order", "text", "standard", choices=("standard", "sum"), label="Order of rolls",
        help="standard: Mia, doubles 11 (best) to 66, then 65 down to 31; "
        "sum: Mia, doubles 66 to 11, then by the sum of the pips.",
    ),
    Option(
        "pass_back", "text", "must-raise", choices=("must-raise", "may-pass"), label="Pass back",
        help="When everyone passed back to the last roller: they must raise to pass, "
        "or may pass without raising (then the next player may not pass).",
    ),
    Option(
        "next_starter", "text", "owner", choices=("owner", "challenger", "loser", "winner"),
        label="Next round starts with",
        help="Who starts the round after a challenge: the challenged cup owner, the challenger, "
        "the loser or the winner.",
    ),
    Option(
        "winner_gains_life", "bool", False, label="Winner gains a life",
        help="The winner of a challenge gains 1 life.",
    ),
    Option(
        "mia_reverses", "bool", False, label="Mia reverses direction",
        help="The winner of a challenge of an announced Mia may reverse the direction of play.",
    ),
    Option(
        "scoring", "text", "elimination", choices=("elimination", "bonus-points"), label="Scoring",
        help="elimination: the last player with lives wins; bonus points: a challenge winner gets "
        "a bonus point and the game ends when anyone has no lives left.",
    ),
    Option(
        "rolloff", "bool", False, label="Roll-off for a tie",
        help="With bonus points: two players still tied at the end play a roll-off "
        "instead of sharing the win.",
    ),
)


@dataclass
class Round:
    """A finished round: its challenge and what it cost (rules 3, 5, 7)."""

    number: int
    owner: str
    challenger: str
    announced: int
    cup_dice: tuple[int, int]
    loser: str
    winner: str
    lives_lost: int
    lives_gained: int = 0
    quick: bool = False
    rolloff: bool = False
    scores: dict | None = None  # lives after the round, seat order
    bonus: dict | None = None  # bonus points after the round (bonus-points scoring)
    trail: tuple = ()  # the round's announcements and passes, in order: (type, player, value)
    #: Who reversed the direction of play right after this round's challenge (option
    #: ``mia_reverses``), or None. A class default as well: a state pickled before it has none.
    reversed_by: str | None = None

    @property
    def cup(self) -> int:
        return value_of(self.cup_dice)

    @property
    def mia(self) -> bool:
        """Rule 5: the challenge involved a Mia (announced, or shown by the cup)."""
        return MIA in (self.announced, self.cup)

    def as_dict(self) -> dict:
        """docs/game-record.md §Replay round keys, plus ``winner``, ``lives_gained``, ``mia`` (rule 5),
        ``scores`` (lives after the round), ``bonus`` (bonus-points scoring) and ``trail`` (the
        round's ``announce`` and ``pass`` entries in order, ``{"type", "player", "value"}``; empty
        for a quick entry); ``quick`` / ``rolloff`` only when true; ``reversed_by`` only when the
        round's challenge winner reversed the direction (the entry after it)."""
        out = {
            "number": self.number,
            "owner": self.owner,
            "challenger": self.challenger,
            "announced": self.announced,
            "cup": self.cup,
            "loser": self.loser,
            "winner": self.winner,
            "lives_lost": self.lives_lost,
            "lives_gained": self.lives_gained,
            "mia": self.mia,
            "scores": dict(self.scores or {}),
        }
        if self.bonus is not None:
            out["bonus"] = dict(self.bonus)
        out["trail"] = [{"type": kind, "player": player, "value": value} for kind, player, value in self.trail]
        if self.quick:
            out["quick"] = True
        if self.rolloff:
            out["rolloff"] = True
        if self.reversed_by is not None:
            out["reversed_by"] = self.reversed_by
        return out


class Mia(GameState):
    """A Mia game computed from its entries (docs/rules.md §Mia 0-9).

    Read-only for the pages: ``players`` (seat order, clockwise), ``options``,
    ``lives`` (player -> lives), ``bonus`` (player -> bonus points under
    ``bonus-points``, else None), ``rounds`` (finished :class:`Round`),
    ``round_number``, ``round_starter``, ``cup_owner``, ``claim`` (the current
    announcement or None), ``last_roller``, ``to_act``, ``direction`` (+1
    clockwise, -1), ``may_reverse``, ``in_rolloff``, ``winners``,
    ``round_log`` (this round's announce/pass entries as dicts),
    ``rolloff_players``/``rolloff_pair``/``rolloff_pair_wins``.
    Derived: ``finished``, ``started``, ``alive``, ``eliminated``, ``still_in``,
    ``pass_back``, ``restart_due``, ``ranking`` (best first),
    ``values_above(claim)`` (worst first), ``value_label(v)``, ``next_in(p)``,
    ``legal_types()``, ``describe_next()``, ``expected()``, ``summary()``.
    """

    ROUND_REVISING = frozenset({"reverse"})  # sets the round's reversed_by (rule 7)

    game = "mia"

    def __init__(self, players: tuple[str, ...], options: dict):
        if options.get("rolloff") and options.get("scoring") != "bonus-points":
            raise RecordError(N_("option {name} needs {option}: {choice} (with elimination there is no tie)"),
                              name="rolloff", option="scoring", choice="bonus-points")
        self.players = tuple(players)
        self.options = dict(options)
        self.order: str = options["order"]
        self.opening = Opening(self.players)
        self.lives: dict[str, int] = {p: options["lives"] for p in self.players}
        self.bonus: dict[str, int] | None = (
            {p: 0 for p in self.players} if options["scoring"] == "bonus-points" else None
        )
        self.rounds: list[Round] = []
        #: Each player out of lives: the number of the round in which they lost their last
        #: one (their place in the standings, rule 8; kept apart from ``rounds``, which a
        #: stored snapshot keeps only the last of).
        self.out_at: dict[str, int] = {}
        self.winners: list[str] = []
        self.direction = 1
        self.may_reverse: str | None = None
        # the round in play
        self.round_number = 0
        self.round_starter: str | None = None
        self.cup_owner: str | None = None
        self.claim: int | None = None
        self.last_roller: str | None = None
        self.to_act: str | None = None
        self.no_pass = False  # may-pass: the last roller passed back without raising
        self.round_log: list[dict] = []
        # the roll-off (rule 7)
        self.in_rolloff = False
        self.rolloff_players: tuple[str, ...] = ()
        self.rolloff_pair = 0
        self.rolloff_pair_wins: list[str] = []

    # --- ranking -------------------------------------------------------------

    @property
    def ranking(self) -> tuple[int, ...]:
        """All 21 values, best first, in this game's order (equal sums stay next to each other)."""
        return RANKINGS[self.order]

    def values_above(self, claim: int | None) -> list[int]:
        """Values ranking strictly above ``claim``, worst first (smallest raise first, Mia last)."""
        return values_above(claim, self.order)

    def ranks_above(self, a: int, b: int) -> bool:
        return ranks_above(a, b, self.order)

    def value_label(self, value: int) -> str:
        return value_label(value, self.order)

    # --- who is in -------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    @property
    def started(self) -> bool:
        return self.round_number > 0

    @property
    def alive(self) -> list[str]:
        """Players with at least 1 life, in seat order."""
        return [p for p in self.players if self.lives[p] > 0]

    @property
    def reverse_offered(self) -> str | None:
        """Who may reverse the direction (:attr:`may_reverse`) when reversing would change who
        plays next, else None: with two players left either direction leads to the other one, so
        the page offers no reversal (docs/rules.md §Mia, ``mia_reverses``). The entry stays legal
        (a record may hold one)."""
        return self.may_reverse if len(self.alive) > 2 else None

    @property
    def eliminated(self) -> list[str]:
        """Players with 0 lives (out), in seat order."""
        return [p for p in self.players if self.lives[p] == 0]

    @property
    def still_in(self) -> list[str]:
        """Players taking part now: the two of a roll-off, otherwise the alive ones."""
        return list(self.rolloff_players) if self.in_rolloff else self.alive

    def next_in(self, player: str) -> str | None:
        """The next player still in after ``player``'s seat, in the current direction."""
        n = len(self.players)
        i = self.players.index(player)
        inside = set(self.still_in)
        for k in range(1, n):
            p = self.players[(i + k * self.direction) % n]
            if p in inside:
                return p
        return None

    @property
    def pass_back(self) -> bool:
        """True when the turn has come back to the player who last rolled (rule 4)."""
        return self.claim is not None and self.to_act is not None and self.to_act == self.last_roller

    @property
    def restart_due(self) -> bool:
        """True when an announced Mia went all the way round (rule 4 exception)."""
        return self.pass_back and self.claim == MIA

    # --- what the table sees ---------------------------------------------------

    def pass_choices(self) -> dict | None:
        """How the player to act may pass now (rules 3, 4, option ``pass_back``), or None:
        ``{"raise_to": [values, worst first] (a pass back by raising), "plain": bool (a pass
        without a value)}``."""
        if "pass" not in self.legal_types():
            return None
        if self.pass_back:
            raise_to = [] if self.claim == MIA else self.values_above(self.claim)
            return {"raise_to": raise_to, "plain": self.options["pass_back"] == "may-pass"}
        return {"raise_to": [], "plain": True}

    def announce_choices(self) -> list[int]:
        """Values the player to act may announce now, worst first (rules 3, 4): any value to open
        a round or to start it again after a Mia went all the way round, else only values
        ranking above the claim; ``[]`` when they may not announce."""
        if "announce" not in self.legal_types():
            return []
        if self.claim is None or self.restart_due:
            return self.values_above(None)
        return self.values_above(self.claim)

    def legal_types(self) -> list[str]:
        """The entry types accepted now (the entries' ``type``)."""
        if self.finished:
            return []
        if not self.started:
            return ["startroll"] if self.opening.rolloff is not None else ["start", "startroll"]
        if self.claim is None:
            types = ["announce", "challenge"]
        elif self.pass_back:
            types = ["announce"]
            if self.claim != MIA or self.options["pass_back"] == "may-pass":
                types.append("pass")
        else:
            types = []
            if self.values_above(self.claim):
                types.append("announce")
            if not self.no_pass:
                types.append("pass")
            types.append("challenge")
        if self.may_reverse is not None:
            types.append("reverse")
        return types

    def describe_next(self) -> str:
        """What would be valid now, in words (ends every refusal message)."""
        if self.finished:
            return Phrase(N_("the game is over"))
        if not self.started:
            nxt = self.opening.expected()
            if self.opening.rolloff is None:
                return Phrase(N_("first enter a start (who starts) or the roll-off (startroll, one die each in "
                                 "seat order)"))
            return Phrase(N_("next is {player}'s startroll (one die)"), player=nxt["player"])
        p, claim = self.to_act, self.claim
        may_pass = self.options["pass_back"] == "may-pass"
        if claim is None:
            text = Phrase(N_("{player} rolls and announces any value (or, in quick entry, the challenge is "
                             "recorded with the cup owner and the value announced)"), player=p)
        elif self.restart_due:
            if may_pass:
                text = Phrase(N_("{player} starts the round again: announce any value, or pass without a value"),
                              player=p)
            else:
                text = Phrase(N_("{player} starts the round again: announce any value"), player=p)
        elif self.pass_back:
            above = _list(self.values_above(claim))
            if may_pass:
                text = Phrase(N_("{player} rolls and announces above {claim} ({above}), or passes with a value "
                                 "above {claim}, or passes without a value"), player=p, claim=claim, above=above)
            else:
                text = Phrase(N_("{player} rolls and announces above {claim} ({above}), or passes with a value "
                                 "above {claim}"), player=p, claim=claim, above=above)
        else:
            choices = [Phrase(N_("challenge"))]
            if not self.no_pass:
                choices.append(Phrase(N_("pass")))
            above = self.values_above(claim)
            if above:
                choices.append(Phrase(N_("announce above {claim} ({above})"), claim=claim, above=_list(above)))
            text = Phrase(N_("{player} may {choices}"), player=p, choices=_list(choices))
        if self.may_reverse is not None:
            text = Phrase(N_("{player} may reverse the direction; otherwise {next}"),
                          player=self.may_reverse, next=text)
        return text

    def expected(self) -> dict | None:
        """The ``next`` object of the replay output; None once the game is over."""
        if self.finished:
            return None
        if not self.started:
            return self.opening.expected()
        types = self.legal_types()
        nxt: dict = {
            "type": types[0] if len(types) == 1 else types,
            "player": self.to_act,
            "round": self.round_number,
            "owner": self.cup_owner if self.claim is not None else None,
            "announced": self.claim,
            "last_roller": self.last_roller,
            "pass_back": self.pass_back,
            "restart": self.restart_due,
            "may_pass": "pass" in types,
            "may_reverse": self.may_reverse,
            "direction": self.direction,
        }
        if self.claim is not None:
            nxt["announced_label"] = self.value_label(self.claim)
        if self.in_rolloff:
            nxt["rolloff"] = {
                "players": list(self.rolloff_players),
                "pair": self.rolloff_pair,
                "wins": list(self.rolloff_pair_wins),
            }
        return nxt

    def current_scores(self) -> dict[str, int]:
        """``{player: lives}`` in seat order, as ``summary()["scores"]``."""
        return {p: self.lives[p] for p in self.players}

    def summary(self) -> dict:
        out = {
            "game": self.game,
            "finished": self.finished,
            "scores": {p: self.lives[p] for p in self.players},
        }
        if self.bonus is not None:
            out["bonus"] = {p: self.bonus[p] for p in self.players}
        out.update(
            {
                "winners": list(self.winners),
                "rounds": [r.as_dict() for r in self.rounds],
                "start": self.opening.as_dict(),
            "next": self.expected(),
            }
        )
        return out

    # --- entries ---------------------------------------------------------------

    def apply(self, entry: dict) -> None:
        """Check and apply one entry; raise :class:`IllegalEntry` and change nothing.

        Shapes (docs/game-record.md §Entries): ``{"type": "announce", "player", "value"}``,
        ``{"type": "pass", "player"[, "value"]}``, ``{"type": "challenge",
        "player", "cup": [a, b][, "owner", "announced"]}``, ``{"type":
        "reverse", "player"}``; ``start``/``startroll`` first.
        """
        if not isinstance(entry, dict):
            raise IllegalEntry(N_("an entry is a JSON object with a type and a player"))
        if self.finished:
            raise IllegalEntry(N_("the game is over ({winners} won); no more entries"),
                               winners=join_names(self.winners))
        if not self.started:
            self.opening.apply(entry)
            if self.opening.starter is not None:
                self._new_round(self.opening.starter)
            return
        kind = entry.get("type")
        if kind == "reverse":
            self._reverse(entry)
            return
        if kind == "announce":
            self._announce(entry)
        elif kind == "pass":
            self._pass(entry)
        elif kind == "challenge":
            self._challenge(entry)  # sets may_reverse itself
            return
        elif kind in ("start", "startroll"):
            raise IllegalEntry(N_("the game has already started; {want}"), want=self.describe_next())
        else:
            raise IllegalEntry(N_("{kind} is not a Mia entry here; {want}"), kind=entry_kind(kind),
                               want=self.describe_next())
        self.may_reverse = None  # any other entry declines the reversal (rule 7)

    def _check_player(self, entry: dict, action: str) -> str:
        """The entry's player, who must be the one to act; raise :class:`IllegalEntry`."""
        player = entry.get("player")
        if not isinstance(player, str) or player not in self.players:
            raise not_a_player(player, self.players)
        if player != self.to_act:
            if player not in self.still_in:
                if self.lives[player] == 0:
                    raise IllegalEntry(N_("{player} is out (no lives left); {want}"), player=player,
                                       want=self.describe_next())
                raise IllegalEntry(N_("{player} is not in the roll-off; {want}"), player=player,
                                   want=self.describe_next())
            raise IllegalEntry(_NOT_YOUR_TURN[action], next=self.to_act, player=player, want=self.describe_next())
        return player

    def _reverse(self, entry: dict) -> None:
        if not self.options["mia_reverses"]:
            raise IllegalEntry(N_("reversing is not played here (option mia_reverses is off); {want}"),
                               want=self.describe_next())
        if self.may_reverse is None:
            raise IllegalEntry(N_("no reverse now: only the winner of a challenge of an announced Mia may reverse, "
                                  "as the entry right after that challenge; {want}"), want=self.describe_next())
        player = entry.get("player")
        if player != self.may_reverse:
            raise IllegalEntry(N_("only {winner}, who won the Mia challenge, may reverse, not {player}; {want}"),
                               winner=self.may_reverse, player=player,
                               want=self.describe_next())
        self.direction = -self.direction
        self.may_reverse = None
        self.rounds[-1].reversed_by = player  # the round whose challenge it follows

    def _refuse_low(self, value: int, what: str) -> None:
        claim = self.claim
        above = self.values_above(claim)
        if value == claim:
            why = Phrase(N_("{value} is the announced value, not above it"), value=value)
        elif not self.ranks_above(claim, value):
            why = Phrase(N_("{value} ranks equal to {claim}, not above it"),
                         value=self.value_label(value), claim=self.value_label(claim))
        else:
            why = Phrase(N_("{value} is not above {claim}"), value=self.value_label(value),
                         claim=self.value_label(claim))
        if not self.pass_back:
            others = [Phrase(N_("challenge"))] + ([] if self.no_pass else [Phrase(N_("pass"))])
        elif what == "announce":
            others = [Phrase(N_("pass with one of these values"))]
        else:
            others = [Phrase(N_("roll and announce one of these"))]
        if self.pass_back and self.options["pass_back"] == "may-pass":
            others.append(Phrase(N_("pass without a value")))
        if what == "announce":
            raise IllegalEntry(N_("{why}: announce one of {above}, or {others}"),
                               why=why, above=_list(above), others=_list(others))
        raise IllegalEntry(N_("{why}: pass back with one of {above}, or {others}"),
                           why=why, above=_list(above), others=_list(others))

    def _announce(self, entry: dict) -> None:
        player = self._check_player(entry, "announce")
        value = parse_value(entry)
        restart = self.restart_due
        if self.claim is not None and not restart:
            if not self.values_above(self.claim):
                raise IllegalEntry(N_("nothing ranks above Mia, so {player} cannot roll and announce higher; {want}"),
                                   player=player, want=self.describe_next())
            if not self.ranks_above(value, self.claim):
                self._refuse_low(value, "announce")
        self.round_log.append({"type": "announce", "player": player, "value": value, "restart": restart})
        self.claim = value
        self.cup_owner = player
        self.last_roller = player
        self.no_pass = False
        self.to_act = self.next_in(player)

    def _pass(self, entry: dict) -> None:
        player = self._check_player(entry, "pass")
        if self.claim is None:
            raise IllegalEntry(N_("nothing is announced yet, so there is nothing to pass; {want}"),
                               want=self.describe_next())
        if "value" in entry and entry["value"] is None:  # docs/game-record.md §Shapes
            raise IllegalEntry(N_("value is null: a pass back gives a value such as 65 or 21, and a plain pass "
                                  "leaves value out"))
        has_value = "value" in entry
        may_pass = self.options["pass_back"] == "may-pass"
        if self.pass_back:
            if has_value:
                value = parse_value(entry)
                if self.claim == MIA:
                    if may_pass:
                        raise IllegalEntry(N_("nothing ranks above Mia: {player} starts the round again with an "
                                              "announce of any value, or passes without a value"), player=player)
                    raise IllegalEntry(N_("nothing ranks above Mia: {player} starts the round again with an "
                                          "announce of any value"), player=player)
                if not self.ranks_above(value, self.claim):
                    self._refuse_low(value, "pass back with")
                self.claim = value
                self.no_pass = False
            else:
                if not may_pass:
                    if self.claim == MIA:
                        raise IllegalEntry(N_("the announced Mia went all the way round: {player} starts the "
                                              "round again (announce any value)"), player=player)
                    raise IllegalEntry(N_("{player} rolled last and knows the dice, so may pass only by announcing "
                                          "a higher value (pass with a value: one of {above}), or roll and "
                                          "announce higher"), player=player, above=_list(self.values_above(self.claim)))
                value = None
                self.no_pass = True
        else:
            if has_value:
                raise IllegalEntry(N_("only the player who rolled last passes with a value, when the turn comes "
                                      "back to them; {player} passes without a value; {want}"),
                                   player=player, want=self.describe_next())
            if self.no_pass:
                raise IllegalEntry(N_("{owner} passed back without raising, so {player} may not pass; {want}"),
                                   owner=self.cup_owner, player=player, want=self.describe_next())
            value = None
            self.no_pass = False
        self.round_log.append({"type": "pass", "player": player, "value": value})
        self.cup_owner = player
        self.to_act = self.next_in(player)

    def _challenge(self, entry: dict) -> None:
        player = entry.get("player")
        if not isinstance(player, str) or player not in self.players:
            raise not_a_player(player, self.players)
        quick = "owner" in entry or "announced" in entry
        if self.claim is None:
            if not quick:
                raise IllegalEntry(N_("nothing is announced yet in round {round}: {player} announces first; "
                                      "a quick-entry challenge gives the owner and the announced value too"),
                                   round=self.round_number, player=self.to_act)
            owner = entry.get("owner")
            if not isinstance(owner, str) or owner not in self.players:
                if "owner" in entry:
                    raise IllegalEntry(N_("owner {owner} is not a player here; the owner is the challenged cup "
                                          "owner, one of {players}"), owner=shown(owner),
                                       players=join_names(self.still_in))
                raise IllegalEntry(N_("owner is missing: the owner is the challenged cup owner, one of {players}"),
                                   players=join_names(self.still_in))
            if owner not in self.still_in:
                if self.lives[owner] == 0:
                    raise IllegalEntry(N_("{owner} is out (no lives left), so cannot be the cup owner; one of "
                                          "{players}"), owner=owner, players=join_names(self.still_in))
                raise IllegalEntry(N_("{owner} is not in the roll-off, so cannot be the cup owner; one of {players}"),
                                   owner=owner, players=join_names(self.still_in))
            announced = parse_value(entry, "announced")
            challenger = self.next_in(owner)
            if player != challenger:
                raise IllegalEntry(N_("the challenger of {owner} is the next player, {challenger}, not {player}"),
                                   owner=owner, challenger=challenger, player=player)
        else:
            if quick:
                raise IllegalEntry(N_("the round's announcement is already entered ({owner} holds {claim}): "
                                      "challenge without owner and announced; {want}"),
                                   owner=self.cup_owner, claim=self.claim, want=self.describe_next())
            self._check_player(entry, "challenge")
            if self.pass_back:
                raise IllegalEntry(N_("{player} rolled last and knows the dice, so may not challenge; {want}"),
                                   player=player, want=self.describe_next())
            owner, announced = self.cup_owner, self.claim
            quick = False
        dice = parse_dice(entry.get("cup"), 2, Phrase(N_("the cup")))
        self._settle(owner, player, announced, dice, quick)

    # --- after a challenge -------------------------------------------------------

    def _settle(self, owner: str, challenger: str, announced: int, dice: tuple, quick: bool) -> None:
        cup = value_of(dice)
        if self.ranks_above(announced, cup):  # the cup ranks below: the owner lied
            loser, winner = owner, challenger
        else:
            loser, winner = challenger, owner
        self.may_reverse = None
        if self.in_rolloff:
            self.rounds.append(
                Round(self.round_number, owner, challenger, announced, dice, loser, winner, 0,
                      quick=quick, rolloff=True, scores=dict(self.lives),
                      bonus=dict(self.bonus) if self.bonus is not None else None, trail=self._trail())
            )
            self.rolloff_pair_wins.append(winner)
            if len(self.rolloff_pair_wins) == 2:
                first, second = self.rolloff_pair_wins
                if first == second:
                    self._end([first])
                    return
                self.rolloff_pair += 1
                self.rolloff_pair_wins = []
            self._new_round(self.rolloff_players[len(self.rolloff_pair_wins)])
            return
        lost = min(self.lives[loser], 2 if MIA in (announced, cup) else 1)  # rule 5
        gained = 1 if self.options["winner_gains_life"] else 0
        self.lives[loser] -= lost
        self.lives[winner] += gained
        if self.lives[loser] == 0:
            self.out_at[loser] = self.round_number
        if self.bonus is not None:
            self.bonus[winner] += 1
        self.rounds.append(
            Round(self.round_number, owner, challenger, announced, dice, loser, winner, lost, gained, quick,
                  scores=dict(self.lives), bonus=dict(self.bonus) if self.bonus is not None else None,
                  trail=self._trail())
        )
        if self._game_end():
            return
        chosen = {"owner": owner, "challenger": challenger, "loser": loser, "winner": winner}[
            self.options["next_starter"]
        ]
        starter = chosen if self.lives[chosen] > 0 else self.next_in(chosen)  # rule 6
        self._new_round(starter)
        if self.options["mia_reverses"] and announced == MIA:
            self.may_reverse = winner

    def _trail(self) -> tuple:
        """This round's announcements and passes, for its :class:`Round`."""
        return tuple((e["type"], e["player"], e["value"]) for e in self.round_log)

    def _game_end(self) -> bool:
        """Rules 7 and 8: end the game, or start the roll-off; True when no ordinary round follows."""
        if self.bonus is None:
            if len(self.alive) == 1:
                self._end(self.alive)
                return True
            return False
        if all(self.lives[p] > 0 for p in self.players):
            return False
        top = max((self.lives[p], self.bonus[p]) for p in self.players)
        tied = [p for p in self.players if (self.lives[p], self.bonus[p]) == top]
        if len(tied) == 2 and self.options["rolloff"]:
            self.in_rolloff = True
            self.rolloff_players = tuple(tied)
            self.rolloff_pair = 1
            self.rolloff_pair_wins = []
            self._new_round(tied[0])
            return True
        self._end(tied)
        return True

    def _end(self, winners: list[str]) -> None:
        self.winners = list(winners)
        self.to_act = None
        self.claim = None
        self.may_reverse = None

    def _new_round(self, starter: str) -> None:
        self.round_number += 1
        self.round_starter = starter
        self.cup_owner = starter
        self.claim = None
        self.last_roller = None
        self.to_act = starter
        self.no_pass = False
        self.round_log = []


GAME = register(
    GameSpec(
        name="mia",
        title="Mia",
        options=OPTIONS,
        min_players=3,
        max_players=None,
        new_state=Mia,
        lowest_wins=False,
        score_word="lives",
    )
)
