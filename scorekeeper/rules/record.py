"""The game record (docs/game-record.md): load, validate and replay a whole game.

``replay(record)`` returns the same object that ``scorekeeper replay FILE``
prints. A rule break raises :class:`ReplayError` whose message starts
``entry N:`` (N from 1); a problem with the record as a whole starts
``record:``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import find_game
from .base import GameSpec, GameState, IllegalEntry, RecordError, RuleError

FORMAT = 1
MAX_NAME = 40


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
    """Return the seat list checked for ``spec``; raise :class:`RecordError`.

    Names must be non-empty strings of at most ``MAX_NAME`` characters with no
    leading or trailing spaces, unique (case-insensitively), and their number
    within the game's limits.
    """
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names")
    for p in players:
        if not p.strip():
            raise RecordError("a player's name is empty")
        if p != p.strip():
            raise RecordError(f"player name {p!r} has spaces at its ends")
        if len(p) > MAX_NAME:
            raise RecordError(f"player name {p[:20]!r}... is longer than {MAX_NAME} characters")
    seen: set[str] = set()
    for p in players:
        if p.casefold() in seen:
            raise RecordError(f"player name {p!r} is used twice; names must be unique")
        seen.add(p.casefold())
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
            raise RecordError(f"format must be {FORMAT}, not {record.get('format')!r}")
        spec = find_game(record.get("game"))
        players = check_players(spec, record.get("players"))
        from .base import parse_options

        options = parse_options(spec.options, record.get("options"))
        if not isinstance(record.get("entries", []), list):
            raise RecordError("entries must be a list")
    except RecordError as err:
        raise ReplayError(None, str(err)) from None
    return Header(spec, players, options)


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
    return apply_entries(new_state(header), record.get("entries", []))


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
