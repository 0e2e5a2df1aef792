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
from .base import GameSpec, GameState, IllegalEntry, RecordError, RuleError, parse_options, shown
from .names import MAX_NAME, clean_name, has_control, name_key
from .plain import dataclass

TYPE_CHECKING = False  # typing is not imported at run time (start-up of `scorekeeper replay`)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1


class ReplayError(RuleError):
    """A record replay refused: ``entry`` is the 1-based entry number, or None for the record."""

    def __init__(self, entry: int | None, message: str):
        self.entry = entry
        self.reason = message
        prefix = "record" if entry is None else f"entry {entry}"
        super().__init__(f"{prefix}: {message}")


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
        raise RecordError(f"players must be a list of names, not {shown(players)}")
    seen: dict[str, str] = {}
    for p in players:
        cleaned = clean_name(p)
        if not cleaned:
            raise RecordError("a player's name is empty")
        if p != p.strip():
            raise RecordError(f"player name {shown(p)} has spaces at its ends")
        if has_control(p):
            raise RecordError(f"player name {shown(cleaned)} holds a control character (a tab, a line break, NUL...)")
        if len(cleaned) > MAX_NAME:
            raise RecordError(f"player name {shown(cleaned[:20])}... is longer than {MAX_NAME} characters")
        key = name_key(p)
        if key in seen:
            same = "" if seen[key] == p else f" (it reads the same as {shown(seen[key])})"
            raise RecordError(
                f"player name {shown(p)} is used twice{same}; names must differ, not only in case or spacing"
            )
        seen[key] = p
    n = len(players)
    if n < spec.min_players or (spec.max_players is not None and n > spec.max_players):
        raise RecordError(f"{spec.title} is for {spec.players_text()}, not {n}")
    return tuple(players)


def load_header(record: Any) -> Header:
    """Check everything but the entries; raise :class:`ReplayError` (``record:``)."""
    try:
        if not isinstance(record, dict):
            raise RecordError("a game record is a JSON object")
        if record.get("format") != FORMAT or isinstance(record.get("format"), bool):
            raise RecordError(f"format must be {FORMAT}, not {shown(record.get('format'))}")

        def need(key: str) -> Any:  # a missing key is not an empty one (docs/game-record.md §Shapes)
            if key not in record:
                raise RecordError(f"{key} is missing; a record has format, game, players, options and entries")
            return record[key]

        spec = find_game(need("game"))
        players = check_players(spec, need("players"))
        need("options")
        need("entries")
        if not isinstance(record["options"], dict):
            raise RecordError(
                f"options must be an object of option names and values ({{}} for the defaults), "
                f"not {_shape(record['options'])}"
            )
        options = parse_options(spec.options, record["options"])
        if not isinstance(record["entries"], list):
            raise RecordError(f"entries must be a list of entries ([] for none), not {_shape(record['entries'])}")
    except RecordError as err:
        raise ReplayError(None, str(err)) from None
    return Header(spec, players, options)


def _shape(value: Any) -> str:
    """A JSON value's kind for a message: 'null', 'a number', 'a text'..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def new_state(header: Header) -> GameState:
    """A fresh state for the record's game, seats and options.

    Raises :class:`ReplayError` (``record:``) when the options do not go
    together (Mia's ``rolloff`` without ``bonus-points``, say).
    """
    try:
        return header.spec.new_state(header.players, header.options)
    except RecordError as err:
        raise ReplayError(None, str(err)) from None


def apply_entries(state: GameState, entries: list, start: int = 1) -> GameState:
    """Apply ``entries`` in order; raise :class:`ReplayError` at the first refused one.

    ``start`` is the number of the first entry, for the message.
    """
    for number, entry in enumerate(entries, start=start):
        try:
            if not isinstance(entry, dict):
                raise IllegalEntry("an entry is a JSON object with a type and a player")
            state.apply(entry)
        except IllegalEntry as err:
            raise ReplayError(number, str(err)) from None
    return state


def build(record: Any) -> GameState:
    """Check a whole record and return its replayed state; raise :class:`ReplayError`."""
    header = load_header(record)
    return apply_entries(new_state(header), record["entries"])


def replay(record: Any) -> dict:
    """Replay a record and return the verdict (docs/game-record.md §Replay)."""
    return build(record).summary()


def loads(text: str | bytes) -> Any:
    """Parse a record's JSON; raise :class:`ReplayError` (``record:``) for bad JSON."""
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise ReplayError(None, f"not valid JSON ({err})") from None
    except RecursionError:
        raise ReplayError(None, "not a game record: the JSON is nested too deeply") from None


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
