"""Export of a whole group, streamed: records (GAME-RECORD.md) and the rounds' CSV.

The games are read in batches of :data:`BATCH`, oldest played first, and each
record is serialised once, its entries copied as stored (they are JSON text
already). The zip is written as it is read: each game's ``records/<id>-<game>.json``
goes out at once, while ``games.json`` (the list of records) and ``games.csv``
(every round of every game) gather in temporary files that go out last; so no
list of the whole account is ever held in memory.
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
import zipfile
from datetime import timezone
from typing import Callable, Iterator

import orjson

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from ..models import Entry, Game, User
from ..rules import record as records
from . import export_rows
from . import games as service
from .history import BOM, CSV_COLUMNS

BATCH = 200
#: zlib levels of the zip's members (see :func:`zip_chunks`).
JSON_LEVEL = 6
CSV_LEVEL = 1


def decode(data: str):
    """A stored entry's JSON text as Python values (orjson; the standard decoder for the rare
    text orjson refuses, such as a number beyond 64 bits)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def _with_name(data: str, name: str | None) -> str:
    """A stored entry's JSON text with ``"entered_by": name`` added (an extra key), if known."""
    if name is None:
        return data
    return f'{data[:-1]}, "entered_by": {json.dumps(name, ensure_ascii=False)}}}'


def record_text(game: Game, active: list[tuple[str, int | None]], others: list[Entry],
                names: dict[int, str] | None = None) -> str:
    """One game's record as JSON text: the record of :func:`service.record_from_rows` plus
    ``played_at``; ``active`` is the stored JSON of the log's entries and who entered them,
    in order; ``names`` maps account ids to names (``entered_by``)."""
    names = names or {}
    head = json.dumps({"format": records.FORMAT, "game": game.game, "players": json.loads(game.players),
                       "options": json.loads(game.options)}, ensure_ascii=False)

    history = json.dumps([service.history_item(e, names) for e in others], ensure_ascii=False)
    active = [_with_name(data, names.get(by)) for data, by in active]
    played = json.dumps(game.played_at.astimezone(timezone.utc).isoformat())
    entries = ",\n  ".join(active)
    return (f'{head[:-1]}, "entries": [\n  {entries}\n], "history": {history}, '
            f'"played_at": {played}}}')


def batches(session: Session, group_id: int, rounds: bool = False
            ) -> Iterator[list[tuple[Game, list[tuple[str, int | None]], list[Entry], list[str] | None]]]:
    """The group's games (not removed, not practice), oldest played first, :data:`BATCH` at a
    time: ``[(game, active entries' (JSON, entered_by) by position, undone/replaced entries
    oldest first, the game's stored CSV rounds (:func:`export_rows.stored`) or None: missing,
    stale, or ``rounds`` not asked for)]``."""
    after = None
    while True:
        # A removed game and a practice game leave the lists and the stats: not in the export
        # either (loaded elsewhere, either would come back as a game that counts).
        stmt = select(Game).where(Game.group_id == group_id, Game.removed_at.is_(None), Game.practice.is_(False))
        if after is not None:
            stmt = stmt.where((Game.played_at > after[0]) | ((Game.played_at == after[0]) & (Game.id > after[1])))
        games = list(session.exec(stmt.order_by(Game.played_at, Game.id).limit(BATCH)))
        if not games:
            return
        ids = [g.id for g in games]
        active: dict[int, list[tuple[str, int | None]]] = {i: [] for i in ids}
        others: dict[int, list[Entry]] = {i: [] for i in ids}
        # Plain rows, not ORM objects: a batch holds tens of thousands of entries.
        for game_id, data, by in session.execute(
                select(Entry.game_id, Entry.data, Entry.entered_by).where(Entry.game_id.in_(ids),
                                                                          Entry.status == "active")
                .order_by(Entry.game_id, Entry.seq)):
            active[game_id].append((data, by))
        for e in session.exec(select(Entry).where(Entry.game_id.in_(ids), Entry.status != "active")
                              .order_by(Entry.id)):
            others[e.game_id].append(e)
        texts = export_rows.stored(session, games) if rounds else {}
        yield [(g, active[g.id], others[g.id], texts.get(g.id)) for g in games]
        session.expunge_all()  # nothing of a sent batch stays in the session
        after = (games[-1].played_at, games[-1].id)


def account_names(session: Session) -> dict[int, str]:
    """Account id to name, for ``entered_by`` (accounts are few next to entries)."""
    return dict(session.execute(select(User.id, User.username)).all())


def json_chunks(session: Session, group_id: int) -> Iterator[str]:
    """The export as one JSON list of records, in pieces."""
    first = True
    names = account_names(session)
    yield "["
    for batch in batches(session, group_id):
        for game, active, others, _ in batch:
            yield ("\n" if first else ",\n") + record_text(game, active, others, names)
            first = False
    yield "\n]\n"


def stream(engine: Engine, chunks: Callable[[Session, int], Iterator], group_id: int) -> Iterator:
    """``chunks(session, group_id)`` (:func:`zip_chunks` or :func:`json_chunks`) on a session of
    its own, for a response body that outlives its request.

    The session opens at the first piece asked for and is closed (its read transaction
    rolled back, its connection back in the pool) when the body ends, fails, or is closed
    before its end: a WSGI server closes the body when the client goes away. A body
    closed before it started opens nothing. Without this, the transaction of a body read
    on the request's session stays "idle in transaction" and holds its locks.
    """
    session = Session(engine, expire_on_commit=False)
    try:
        yield from chunks(session, group_id)
    finally:
        session.close()


class _Pipe:
    """A write-only file for :class:`zipfile.ZipFile` whose bytes are taken out as they come."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.written = 0

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        self.written += len(data)
        return len(data)

    def tell(self) -> int:
        return self.written

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        out = b"".join(self.parts)
        self.parts.clear()
        return out


def zip_chunks(session: Session, group_id: int) -> Iterator[bytes]:
    """The export zip in pieces: ``records/<id>-<game>.json`` per game as read, then
    ``games.json`` (a list of the records) and ``games.csv`` (every round of every game,
    from the stored rounds, a replay where they are missing or stale).

    Compression: the JSON members at zlib level :data:`JSON_LEVEL` (as cheap as level 1 on
    this text, half the size or less), ``games.csv`` at :data:`CSV_LEVEL` (level 6 would
    cost five times the CPU for a third off). On 1,000 games of 229 entries: 48 MB of text
    in a zip of about 1.9 MB."""
    pipe = _Pipe()
    made = time.localtime()[:6]  # every member's date: the export's (as writestr dates the records)
    names = account_names(session)
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as listing, \
            tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as table:
        table.write(BOM)  # as history.write_csv: spreadsheets read the UTF-8 right
        writer = csv.writer(table)
        writer.writerow(CSV_COLUMNS)
        listing.write("[")
        first = True
        with zipfile.ZipFile(pipe, "w", zipfile.ZIP_DEFLATED, compresslevel=JSON_LEVEL) as z:
            for batch in batches(session, group_id, rounds=True):
                for game, active, others, texts in batch:
                    text = record_text(game, active, others, names)
                    z.writestr(f"records/{game.id}-{game.game}.json", text)
                    listing.write(("\n" if first else ",\n") + text)
                    first = False
                    players = orjson.loads(game.players)
                    if texts is None:  # no stored rounds at this version: replay the log
                        texts = export_rows.round_cells(game.game, players, orjson.loads(game.options),
                                                        service.replay(game, [decode(d) for d, _ in active])
                                                        .summary()["rounds"])
                    table.write(export_rows.csv_lines(game, players, texts, decode))
                yield pipe.take()
            listing.write("\n]\n")
            for name, handle in (("games.json", listing), ("games.csv", table)):
                handle.seek(0)
                member_info = zipfile.ZipInfo(name, made)  # a bare name would be dated 1 January 1980
                member_info.compress_type = zipfile.ZIP_DEFLATED
                # zipfile takes a member's level from ZipInfo._compresslevel (public as compress_level
                # from Python 3.13 on, which keeps the old name)
                member_info._compresslevel = CSV_LEVEL if name == "games.csv" else JSON_LEVEL
                with z.open(member_info, "w") as member:
                    while block := handle.read(1 << 16):
                        member.write(block.encode("utf-8"))
                        if pipe.written and len(pipe.parts) > 16:
                            yield pipe.take()
        yield pipe.take()
