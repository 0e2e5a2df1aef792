"""The game record (docs/game-record.md): load, validate and replay a whole game.

Shapes are exact (docs/game-record.md §Shapes): every key the format lists
must be there with the right kind of value (``null`` is never a list, an
object or a number); keys it does not list are ignored.

``replay(record)`` returns the same object that ``scorekeeper replay FILE``
prints. A rule break raises :class:`ReplayError` whose message starts
``entry N:`` (N from 1); a problem with the record as a whole starts
``record:``.
"""

from __future__ import annotations

import json

from . import find_game
from .base import (
    MAX_NUMBER, N_, GameSpec, GameState, IllegalEntry, Phrase, RecordError, RuleError, parse_options, shown,
)
from .names import MAX_NAME, clean_name, has_control, name_key
from .plain import dataclass

TYPE_CHECKING = False  # typing is not imported at run time (start-up of `scorekeeper replay`)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
#: Every number a record holds (entries, options, history), either way: 9 digits. Loading refuses
#: a record with a number beyond it, so no form stores one (docs/game-record.md §Ranges).
RECORD_INT_MAX = MAX_NUMBER


class ReplayError(RuleError):
    """A record replay refused: ``entry`` is the 1-based entry number, or None for the record."""

    def __init__(self, entry: int | None, message: str):
        self.entry = entry
        #: The refusal without its prefix (a :class:`~scorekeeper.rules.base.Phrase` when the rules made it).
        self.reason = message
        if entry is None:
            super().__init__(Phrase(N_("record: {reason}"), reason=message))
        else:
            super().__init__(Phrase(N_("entry {entry}: {reason}"), entry=entry, reason=message))


@dataclass
class Header:
    """A record's checked head: the game, its seats (clockwise) and full options."""

    spec: GameSpec
    players: tuple[str, ...]
    options: dict


def check_players(spec: GameSpec, players: Any) -> tuple[str, ...]:
    """Return the seat list checked for ``spec``; raise :class:`RecordError` (docs/game-record.md
    §Names, docs/rules.md §Mitchi 12, §Mia 9, §Mice and Men 7).

    ``players`` is a list of names, kept as given (entries name players by these exact strings).
    Each must be text with no spaces at its ends and no control character, not empty and at most
    ``MAX_NAME`` characters once cleaned (:func:`~scorekeeper.rules.names.clean_name`); no two may
    share a :func:`~scorekeeper.rules.names.name_key` ("José" and "JOSE\u0301" are one name); their
    number is within the game's limits.
    """
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError(N_("players must be a list of names, not {value}"), value=shown(players))
    seen: dict[str, str] = {}
    for p in players:
        cleaned = clean_name(p)
        if not cleaned:
            raise RecordError(N_("a player's name is empty"))
        if p != p.strip():
            raise RecordError(N_("player name {name} has spaces at its ends"), name=shown(p))
        if has_control(p):
            raise RecordError(N_("player name {name} holds a control character (a tab, a line break, NUL...)"),
                              name=shown(p))  # as written, the character shown (\\t, \\n, \\x00)
        if len(cleaned) > MAX_NAME:
            raise RecordError(N_("player name {name}... is longer than {most} characters"),
                              name=shown(cleaned[:20]), most=MAX_NAME)
        key = name_key(p)
        if key in seen:
            if seen[key] == p:
                raise RecordError(N_("player name {name} is used twice; names must differ, "
                                     "not only in case or spacing"), name=shown(p))
            raise RecordError(N_("player name {name} is used twice (it reads the same as {other}); names must "
                                 "differ, not only in case or spacing"), name=shown(p), other=shown(seen[key]))
        seen[key] = p
    n = len(players)
    if n < spec.min_players or (spec.max_players is not None and n > spec.max_players):
        # the game's name is a phrase: said in the reader's language ("Mäxchen")
        raise RecordError(N_("{game} is for {players}, not {number}"), game=Phrase(spec.title),
                          players=spec.players_text(), number=n)
    return tuple(players)


def load_header(record: Any) -> Header:
    """Check everything but the entries; raise :class:`ReplayError` (``record:``)."""
    try:
        if not isinstance(record, dict):
            raise RecordError(N_("a game record is a JSON object"))

        def need(key: str) -> Any:  # a missing key is not an empty one (docs/game-record.md §Shapes)
            if key not in record:
                raise RecordError(N_("{key} is missing; a record has format, game, players, options and entries"),
                                  key=key)
            return record[key]

        if type(need("format")) is not int or record["format"] != FORMAT:  # not 1.0, not true
            raise RecordError(N_("format must be {format}, not {value}"), format=FORMAT,
                              value=shown(record["format"]))
        spec = find_game(need("game"))
        players = check_players(spec, need("players"))
        need("options")
        need("entries")
        if not isinstance(record["options"], dict):
            raise RecordError(N_("options must be an object of option names and values ({{}} for the defaults), "
                                 "not {value}"), value=_shape(record["options"]))
        options = parse_options(spec.options, record["options"])
        if not isinstance(record["entries"], list):
            raise RecordError(N_("entries must be a list of entries ([] for none), not {value}"),
                              value=_shape(record["entries"]))
    except RecordError as err:
        raise ReplayError(None, err.message) from None
    return Header(spec, players, options)


def _shape(value: Any) -> str:
    """A JSON value's kind for a message: 'null', 'a number', 'a text'..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return Phrase(N_("a number"))
    if isinstance(value, str):
        return Phrase(N_("a text"))
    if isinstance(value, list):
        return Phrase(N_("a list"))
    return Phrase(N_("an object"))


def new_state(header: Header) -> GameState:
    """A fresh state for the record's game, seats and options.

    Raises :class:`ReplayError` (``record:``) when the options do not go
    together (Mia's ``rolloff`` without ``bonus-points``, say).
    """
    try:
        return header.spec.new_state(header.players, header.options)
    except RecordError as err:
        raise ReplayError(None, err.message) from None


def apply_entries(state: GameState, entries: list, start: int = 1) -> GameState:
    """Apply ``entries`` in order; raise :class:`ReplayError` at the first refused one.

    ``start`` is the number of the first entry, for the message.
    """
    for number, entry in enumerate(entries, start=start):
        try:
            if not isinstance(entry, dict):
                raise IllegalEntry(N_("an entry is a JSON object with a type and a player"))
            state.apply(entry)
        except IllegalEntry as err:
            raise ReplayError(number, err.message) from None
    return state


def build(record: Any) -> GameState:
    """Check a whole record and return its replayed state; raise :class:`ReplayError`."""
    header = load_header(record)
    return apply_entries(new_state(header), record["entries"])


def entry_rounds(record: Any) -> list[int]:
    """The round each of a record's entries was made in, as a list as long as its entries:
    ``k`` when ``k - 1`` rounds were over before it (the replay's ``rounds``, counted;
    docs/game-record.md §Replay). The entries before the first round (who starts) count as
    round 1, a round's tie-break or roll-off as that round. Mia's ``reverse`` counts as the round
    whose challenge it follows, where the verdict puts it (the round's ``reversed_by``); it was
    headed with the next round. Raises :class:`ReplayError` as :func:`build` does."""
    return [number for number, _ in entry_places(record)]


def entry_places(record: Any) -> list[tuple[int, int | None]]:
    """Where each of a record's entries was made: ``(round, tie_break)``, a list as long as its
    entries; ``round`` as :func:`entry_rounds` says it, ``tie_break`` the number of the round's
    tie-break a Mitchi tie-break roll was rolled in (1, then 2 after a tie in it, …, as the
    summary numbers them; docs/rules.md §Mitchi 8: the replayed state's
    :meth:`~scorekeeper.rules.base.GameState.tie_break_numbers`), None for any other entry. The
    Whole log tells two tie-breaks' rolls apart by it. Raises :class:`ReplayError` as
    :func:`build` does."""
    return log_places(record)[0]


def log_places(record: Any) -> tuple[list[tuple[int, int | None]], list[int | None]]:
    """``(places, under_way)`` of a record, in one replay: ``places`` as :func:`entry_places`
    gives them, and ``under_way``, one longer than the entries: at each position and the one
    after the last, the number of the round's tie-break under way there, in which a tie-break
    roll made there was or would be rolled (:attr:`~scorekeeper.rules.base.GameState.tie_break_now`;
    docs/rules.md §Mitchi 8), None where none is. The Whole log names the tie-break of an undone
    or corrected roll by it. Raises :class:`ReplayError` as :func:`build` does."""
    header = load_header(record)
    state = new_state(header)
    rounds, under_way = [], []
    for number, entry in enumerate(record["entries"], start=1):
        after = isinstance(entry, dict) and entry.get("type") == "reverse" and state.rounds_played > 0
        rounds.append(state.rounds_played + (0 if after else 1))
        under_way.append(state.tie_break_now)
        apply_entries(state, [entry], start=number)
    under_way.append(state.tie_break_now)
    return list(zip(rounds, state.tie_break_numbers(record["entries"]))), under_way


def replay(record: Any) -> dict:
    """Replay a record and return the verdict (docs/game-record.md §Replay)."""
    return build(record).summary()


def loads(text: str | bytes) -> Any:
    """Parse a record's JSON; raise :class:`ReplayError` (``record:``) for bad JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:  # where, not the parser's own (English) words
        raise ReplayError(None, Phrase(N_("not valid JSON (line {line}, column {column})"),
                                       line=err.lineno, column=err.colno)) from None
    except UnicodeDecodeError:
        raise ReplayError(None, Phrase(N_("not valid JSON: the text is not UTF-8"))) from None
    except ValueError:  # a number of more digits than Python reads (4,300)
        raise ReplayError(None, Phrase(N_("not valid JSON: a number with too many digits to read"))) from None
    except RecursionError:
        raise ReplayError(None, Phrase(N_("not a game record: the JSON is nested too deeply"))) from None


def make_record(game: str, players, options: dict, entries: list, **extra) -> dict:
    """A record dict in the shared format (extra keys, such as ``history``, are kept)."""
    record = {
        "format": FORMAT,
        "game": game,
        "players": list(players),
        "options": dict(options),
        "entries": list(entries),
    }
    record.update(extra)
    return record
