"""What every game shares: errors, options, the one-die roll-off, the state protocol.

Pure Python (stdlib only). Each game is one module with a ``GAME`` spec and a
state class; :mod:`scorekeeper.rules.record` drives them from a game record
(shared format, ``docs/game-record.md``).
"""

from __future__ import annotations

from .plain import dataclass, field

TYPE_CHECKING = False  # typing is not imported at run time (start-up of `scorekeeper replay`)
if TYPE_CHECKING:
    from typing import Any, Callable


def N_(template: str) -> str:
    """Mark ``template`` as a message for the translators' catalog (``pybabel extract`` collects
    ``N_``); returns it unchanged. The rules stay English: the web layer translates
    (docs/translations.md §Refusals)."""
    return template


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a singular and plural template for the catalog (babel.cfg: ``keywords = Nn_:1,2``);
    returns both, for ``Phrase(*Nn_(s, p), count=n, ...)``."""
    return singular, plural


class Phrase(str):
    """English text made from a ``template`` (``{name}`` placeholders) and ``values``.

    It is the English text (a ``str``), and keeps ``template``, ``plural`` (the plural template,
    chosen when ``values["count"] != 1``, else None) and ``values`` so that the web layer can
    say it in another language (``scorekeeper.i18n.translated``). A value that is itself a
    :class:`Phrase` (a word such as a hand's name, a list "Ann and Ben") is translated too;
    other values (names, numbers, record keys) are shown as they are. A template without
    values is not formatted (so a plain text with braces passes through unchanged).
    """

    template: str
    plural: str | None
    values: dict

    def __new__(cls, template: str, plural: str | None = None, /, **values: Any) -> Phrase:
        chosen = plural if plural is not None and values.get("count") != 1 else template
        self = super().__new__(cls, chosen.format(**values) if values else chosen)
        self.template, self.plural, self.values = template, plural, values
        return self


class RuleError(ValueError):
    """Base of every refusal by the rules engine; ``str()`` is the message for a person.

    Raised as ``RuleError(N_("a die shows 1 to 6, not {value}"), value=...)`` or with a
    ready :class:`Phrase`; ``message`` is the :class:`Phrase` (English ``str``, template and
    values for translation, docs/translations.md §Refusals)."""

    def __init__(self, message: str, /, **values: Any):
        self.message = message if isinstance(message, Phrase) and not values else Phrase(str(message), **values)
        super().__init__(str(self.message))


class IllegalEntry(RuleError):
    """An entry that breaks a rule or is malformed; nothing was applied (docs/rules.md §Every game)."""


class RecordError(RuleError):
    """A record that is wrong as a whole: format, game, players, options."""


# --- small checks shared by every game ------------------------------------


def is_int(value: Any) -> bool:
    """True for a JSON integer (``True``/``False`` and ``"65"`` are not integers)."""
    return isinstance(value, int) and not isinstance(value, bool)


#: The largest whole number any rule accepts (docs/game-record.md §Ranges): nine digits, the
#: largest any record holds. The rules give options ("1 or more") and a Mice and Men lead ("no
#: upper bound") no limit; no table comes near this one, and a number beyond it is refused
#: before it is used, so no huge number is ever stored, summed or printed.
MAX_NUMBER = 999_999_999


def shown(value: Any) -> str:
    """A value as a message shows it, in JSON's words (``null``, ``true``, ``Infinity``), never
    longer than about 40 characters: a number of 13 digits or more is named by its length, not
    written out (Python refuses to turn an int of more than 4300 digits into text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -10**12 < value < 10**12:
            return str(value)
        return _too_long(value)
    if isinstance(value, float):
        if value != value:  # NaN (Python's JSON reads it)
            return Phrase(N_("a value that is no number"))
        if value in (float("inf"), float("-inf")):  # JSON's Infinity, as Python's JSON reads it
            return "Infinity" if value > 0 else "-Infinity"
        if abs(value) >= 1e12:
            return _too_long(value)
        if value.is_integer():  # 1.0, 1e3: as Python writes it ("…, not 1.0")
            return repr(value)
        # after "not" in every message ("…, not a number with a fraction"): never "not not a whole number"
        return Phrase(N_("a number with a fraction"))
    if isinstance(value, str):
        return repr(value[:30] + "…") if len(value) > 30 else repr(value)
    if isinstance(value, (list, tuple)):
        return Phrase(N_("a list")) if value else Phrase(N_("an empty list"))
    if isinstance(value, dict):
        return Phrase(N_("an object"))
    return type(value).__name__


#: An entry's type as a refusal names it: the record's word (``startroll``) is the file's, not
#: the table's. A type no game has is shown as it was sent (:func:`shown`).
ENTRY_KINDS = {
    "start": N_("“who starts”"), "startroll": N_("“roll-off die”"), "turn": N_("“turn”"),
    "tiebreak": N_("“tie-break roll”"), "announce": N_("“announcement”"), "pass": N_("“pass”"),
    "challenge": N_("“challenge”"), "reverse": N_("“reverse the direction”"), "first": N_("“opens the round”"),
    "join": N_("“join the men”"), "run": N_("“run with the mice”"), "reveal": N_("“reveal”"),
}


def entry_kind(kind: Any) -> str:
    """``kind`` (an entry's ``type``) in a refusal's words: a :class:`Phrase` for the types of
    the games (docs/game-record.md §Entries), else :func:`shown`."""
    word = ENTRY_KINDS.get(kind) if isinstance(kind, str) else None
    return Phrase(word) if word is not None else shown(kind)


def _too_long(value: int | float) -> Phrase:
    """A number of 13 digits or more, named by its length (never written out)."""
    if value > 0:
        return Phrase(N_("a number of more than 12 digits"))
    return Phrase(N_("a negative number of more than 12 digits"))


def need_int(entry: dict, key: str, what: str | None = None, low: int | None = 1,
             high: int | None = MAX_NUMBER) -> int:
    """Return ``entry[key]`` as an int within ``low..high``; raise :class:`IllegalEntry` if the key
    is missing, null, not a whole number or out of range (docs/game-record.md §Shapes, §Ranges).
    With ``low``/``high`` None the caller checks the range itself (and must, before any use)."""
    label = what or key
    ranged = low is not None and high is not None
    if key not in entry:
        if ranged:
            raise IllegalEntry(N_("{label} is missing: give a whole number from {low} to {high}"),
                               label=label, low=low, high=high)
        raise IllegalEntry(N_("{label} is missing: give a whole number"), label=label)
    value = entry[key]
    if not is_int(value):
        if ranged:
            raise IllegalEntry(N_("{label} must be a whole number from {low} to {high}, not {value}"),
                               label=label, low=low, high=high, value=shown(value))
        raise IllegalEntry(N_("{label} must be a whole number, not {value}"), label=label, value=shown(value))
    if ranged and not low <= value <= high:
        raise IllegalEntry(N_("{label} must be from {low} to {high}, not {value}"),
                           label=label, low=low, high=high, value=shown(value))
    return value


def join_names(names) -> str:
    """'Ann', 'Ann and Ben', 'Ann, Ben and Cat' (a :class:`Phrase` for translation); 'nobody'."""
    names = list(names)
    if not names:
        return Phrase(N_("nobody"))
    return and_list(names)


def and_list(items) -> str:
    """'a', 'a and b', 'a, b and c' as a :class:`Phrase` (items may be phrases themselves)."""
    items = list(items)
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return Phrase(N_("{first} and {last}"), first=items[0], last=items[1])
    return Phrase(N_("{first}, {rest}"), first=items[0], rest=and_list(items[1:]))


def or_list(items) -> str:
    """'a', 'a or b', 'a, b or c' as a :class:`Phrase` (items may be phrases themselves)."""
    items = list(items)
    if len(items) <= 1:
        return items[0] if items else ""
    if len(items) == 2:
        return Phrase(N_("{first} or {last}"), first=items[0], last=items[1])
    return Phrase(N_("{first}, {rest}"), first=items[0], rest=or_list(items[1:]))


# --- options (docs/rules.md §Options) -----------------------------------


@dataclass(frozen=True)
class Option:
    """One table option: its code name, kind and default.

    ``kind`` is ``"int"`` (with ``minimum``), ``"text"`` (one of ``choices``),
    ``"bool"`` or ``"range"`` (two ints ``[low, high]``, ``minimum <= low <= high``).
    """

    name: str
    kind: str
    default: Any
    label: str = ""
    help: str = ""
    minimum: int | None = None
    choices: tuple[str, ...] = ()
    #: The largest value of an ``int`` or ``range`` option (docs/rules.md §Options).
    maximum: int = MAX_NUMBER

    def parse(self, value: Any) -> Any:
        """Return the checked value; raise :class:`RecordError` naming what is allowed
        (docs/rules.md §Options: every number between ``minimum`` and ``maximum``)."""
        minimum = self.minimum if self.minimum is not None else 0
        if self.kind == "int":
            if not is_int(value) or not minimum <= value <= self.maximum:
                raise RecordError(N_("option {name} must be a whole number from {low} to {high}, not {value}"),
                                  name=self.name, low=minimum, high=self.maximum, value=shown(value))
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise RecordError(N_("option {name} must be true or false, not {value}"),
                                  name=self.name, value=shown(value))
            return value
        if self.kind == "text":
            if not isinstance(value, str) or value not in self.choices:
                raise RecordError(N_("option {name} must be one of {choices}, not {value}"),
                                  name=self.name, choices=", ".join(self.choices), value=shown(value))
            return value
        if self.kind == "range":
            if (
                not isinstance(value, (list, tuple))
                or len(value) != 2
                or not all(is_int(v) for v in value)
                or not (minimum <= value[0] <= value[1] <= self.maximum)
            ):
                got = ("[" + ", ".join(shown(v) for v in value) + "]"
                       if isinstance(value, (list, tuple)) and len(value) <= 3 else shown(value))
                raise RecordError(
                    N_("option {name} must be two whole numbers [low, high] with "
                       "{low} <= low <= high <= {high}, not {value}"),
                    name=self.name, low=minimum, high=self.maximum, value=got)
            return [value[0], value[1]]
        raise AssertionError(self.kind)  # pragma: no cover


def parse_options(options: tuple[Option, ...], given: Any) -> dict:
    """Fill defaults and check ``given`` against the game's options.

    Returns a new dict with every option of the game. Raises :class:`RecordError`
    for an unknown name or a value outside the allowed ones (docs/rules.md §Options).
    """
    if not isinstance(given, dict):  # null is not an object (docs/game-record.md §Shapes)
        raise RecordError(N_("options must be an object of option names and values ({{}} for the defaults), "
                             "not {value}"), value=shown(given))
    known = {o.name: o for o in options}
    for name in given:
        if name not in known:
            if not known:
                raise RecordError(N_("unknown option {name}; this game's options are: none"), name=shown(name))
            raise RecordError(N_("unknown option {name}; this game's options are: {allowed}"),
                              name=shown(name), allowed=", ".join(known))
    return {o.name: (o.parse(given[o.name]) if o.name in given else o.default) for o in options}


# --- the one-die roll-off (Mitchi 2, Mia 0, Mice and Men 2) -----------------


@dataclass
class RollOff:
    """One-die roll-off for who starts: everyone rolls in seat order; the highest
    starts; players tied on the highest roll again, only they, in seat order.

    ``group`` is who rolls in the current pass, ``dice`` what they rolled so far.
    ``winner`` is set once one player is highest.
    """

    group: list[str]
    dice: list[tuple[str, int]] = field(default_factory=list)
    history: list[list[tuple[str, int]]] = field(default_factory=list)
    winner: str | None = None

    @property
    def next_player(self) -> str | None:
        """Who rolls next, or None once decided."""
        if self.winner is not None:
            return None
        return self.group[len(self.dice)]

    def roll(self, player: str, die: Any) -> None:
        """Record one die; raise :class:`IllegalEntry` for the wrong player or a bad die."""
        from .dice import parse_die

        expected = self.next_player
        if expected is None:
            raise IllegalEntry(N_("the roll-off is already decided"))
        if player != expected:
            raise IllegalEntry(N_("it is {expected}'s roll in the roll-off, not {player}'s"),
                               expected=expected, player=player)
        value = parse_die(die)
        self.dice.append((player, value))
        if len(self.dice) == len(self.group):
            top = max(d for _, d in self.dice)
            tied = [p for p, d in self.dice if d == top]
            self.history.append(self.dice)
            self.dice = []
            if len(tied) == 1:
                self.winner = tied[0]
            else:
                self.group = tied


# --- the protocol every game's state follows --------------------------------


class GameState:
    """A game computed from its entries. Subclasses implement one game.

    ``apply(entry)`` checks an entry against the state and applies it, or
    raises :class:`IllegalEntry` and changes nothing. ``summary()`` is what
    ``scorekeeper replay`` prints (docs/game-record.md §Replay).
    """

    game: str = ""
    players: tuple[str, ...]
    options: dict
    #: The entry types that change the last finished round after its end instead of playing on
    #: (Mia's ``reverse``, docs/rules.md §Mia 7): what is kept of that round must be written again.
    ROUND_REVISING: frozenset[str] = frozenset()

    def apply(self, entry: dict) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def finished(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def summary(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def current_scores(self) -> dict[str, int]:
        """``{player: points, or lives in Mia}`` in seat order: ``summary()["scores"]`` without
        building the rest of the summary (its rounds, the next entry). A new dict each call."""
        return {p: self.scores[p] for p in self.players}

    @property
    def finished_rounds(self) -> list:
        """The finished rounds held (all of them, or the last few of a :class:`RoundLog`)."""
        return list(self.rounds)

    @property
    def rounds_played(self) -> int:
        """How many rounds are over (the ``rounds`` of the replay output, counted)."""
        return len(self.rounds)

    def tie_break_numbers(self, entries: list) -> list[int | None]:
        """For ``entries``, the last entries of the log this state was replayed from (in log
        order): the number of its round's tie-break each tie-break roll was rolled in (1, 2, …),
        None for any other entry. A game without tie-break rolls has none (Mitchi's:
        :meth:`scorekeeper.rules.mitchi.MitchiState.tie_break_numbers`)."""
        return [None] * len(entries)

    @property
    def tie_break_now(self) -> int | None:
        """The number of the round's tie-break under way (1, 2, …), the one a tie-break roll
        entered now is rolled in; None when none is. A game without tie-break rolls has none
        (Mitchi's: :attr:`scorekeeper.rules.mitchi.Mitchi.tie_break_now`)."""
        return None


class RoundLog(list):
    """A state's ``rounds`` with the oldest left out: what a stored snapshot keeps.

    ``len()`` and truth count every round (``dropped`` left out plus the ones
    kept), so round numbers and round limits stay right; indexing from the end,
    ``append`` and iteration see only the rounds kept. A state holding one
    answers every "what next?" question as before, but its ``summary()`` lists
    only the kept rounds: the whole story needs a replay of the log.
    """

    def __init__(self, kept=(), dropped: int = 0):
        super().__init__(kept)
        self.dropped = dropped

    def __len__(self) -> int:
        return self.dropped + list.__len__(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __reduce__(self):
        return (RoundLog, (list(iter(self)), self.dropped))

    @classmethod
    def last(cls, rounds: list, keep: int) -> "RoundLog":
        """The last ``keep`` of ``rounds`` (a list or a RoundLog), the rest counted as dropped."""
        kept = list.__getitem__(rounds, slice(-keep, None)) if keep else []
        return cls(kept, len(rounds) - len(kept))


@dataclass(frozen=True)
class GameSpec:
    """A game as the rest of the product sees it: name, title, options, seats."""

    name: str
    title: str
    options: tuple[Option, ...]
    min_players: int
    max_players: int | None
    new_state: Callable[[tuple[str, ...], dict], GameState]
    #: True when the fewest points win (Mitchi 11, Mice and Men 6); False for Mia's lives.
    lowest_wins: bool = True
    #: What ``scores`` count, in the games' words: "points", "lives", "penalty points".
    score_word: str = "points"

    def standing_key(self, summary: dict, player: str, out_at: dict | None = None) -> tuple:
        """Sort key of ``player`` in a replay ``summary``, best first: the fewest points when
        ``lowest_wins`` (Mitchi 11, Mice and Men 6), else the most lives, then the most bonus
        points (Mia 7, 8); players out of lives rank by when they went out, the last out
        higher (the round in which they lost their last life; docs/rules.md §Mia 8).

        ``out_at`` maps each player out of lives to that round's number (a Mia state's
        ``out_at``); without it the summary's ``rounds`` are read, which must then be all of
        them (a replay's; a stored snapshot's state lists only its last rounds)."""
        score = summary["scores"][player]
        if self.lowest_wins:
            return (score,)
        went_out = 0
        if score == 0 and out_at is not None:
            went_out = out_at.get(player, 0)
        elif score == 0:
            for number, rnd in enumerate(summary.get("rounds") or [], start=1):
                if rnd.get("loser") == player:
                    went_out = number
        return (-score, -(summary.get("bonus") or {}).get(player, 0), -went_out)

    def standings(self, summary: dict, out_at: dict | None = None) -> list[str]:
        """Every player, best first (ties in seat order); the winners come first. ``out_at``:
        as :meth:`standing_key`."""
        players = list(summary["scores"])
        winners = set(summary.get("winners") or [])
        return sorted(players, key=lambda p: (p not in winners, self.standing_key(summary, p, out_at),
                                              players.index(p)))

    def players_text(self) -> str:
        """'2 or more players', '2 to 6 players' (a :class:`Phrase`)."""
        if self.max_players is None:
            return Phrase(N_("{low} or more players"), low=self.min_players)
        return Phrase(N_("{low} to {high} players"), low=self.min_players, high=self.max_players)


class Opening:
    """Who starts the game: one ``start`` entry, or a one-die roll-off of
    ``startroll`` entries (docs/game-record.md §Entries; docs/rules.md §Mitchi 2).

    ``starter`` is None until decided.
    """

    TYPES = ("start", "startroll")

    def __init__(self, players: tuple[str, ...]):
        self.players = players
        self.rolloff: RollOff | None = None
        self.starter: str | None = None

    def apply(self, entry: dict) -> None:
        """Apply a ``start`` or ``startroll`` entry; raise :class:`IllegalEntry`."""
        kind, player = entry.get("type"), entry.get("player")
        if player not in self.players:
            raise not_a_player(player, self.players)
        if kind == "start":
            if self.rolloff is not None:
                raise IllegalEntry(N_("the roll-off has begun; the next entry is {player}'s startroll"),
                                   player=self.rolloff.next_player)
            self.starter = player
        elif kind == "startroll":
            rolloff = self.rolloff or RollOff(list(self.players))
            rolloff.roll(player, entry.get("die"))  # raises before any change
            self.rolloff = rolloff
            self.starter = rolloff.winner
        else:
            raise IllegalEntry(N_(
                "who starts is not decided yet: enter a start (name the starting player) "
                "or the roll-off (startroll, one die each in seat order)"
            ))

    def as_dict(self) -> dict:
        """How the start was decided, for the replay output's ``start`` key: ``{"starter": name or
        None, "rolloff": [[{"player", "die"}, ...] per pass of the roll-off]}`` (empty when named)."""
        passes = []
        if self.rolloff is not None:
            passes = list(self.rolloff.history) + ([self.rolloff.dice] if self.rolloff.dice else [])
        return {"starter": self.starter,
                "rolloff": [[{"player": p, "die": d} for p, d in dice] for dice in passes]}

    def expected(self) -> dict:
        """The ``next`` object while the start is undecided."""
        if self.rolloff is None:
            return {"type": ["start", "startroll"], "player": None, "rolloff_player": self.players[0]}
        return {"type": "startroll", "player": self.rolloff.next_player, "rolloff": list(self.rolloff.group)}


def not_a_player(player: Any, players) -> IllegalEntry:
    """The refusal of an entry naming someone not at the table, or no one (to raise)."""
    if player is None:  # no player field at all: say so, not "null is not a player here"
        return IllegalEntry(N_("the entry names no player; players: {players}"), players=join_names(players))
    return IllegalEntry(N_("{player} is not a player here; players: {players}"),
                        player=shown(player), players=join_names(players))


def check_player(players: tuple[str, ...], entry: dict, expected: str | None, action: str) -> str:
    """Return ``entry['player']`` if it is ``expected``; raise :class:`IllegalEntry` otherwise.

    ``action`` names what ``expected`` is to do, as a template marked for translation
    (``N_("turn")``); it becomes a :class:`Phrase` only in a refusal (a replay checks thousands
    of entries, and building one for each was a tenth of its time)."""
    player = entry.get("player")
    if not isinstance(player, str) or player not in players:
        raise not_a_player(player, players)
    if expected is not None and player != expected:
        raise IllegalEntry(N_("it is {expected}'s {action}, not {player}'s"),
                           expected=expected, action=Phrase(action), player=player)
    return player
