"""A game's log in the database, replayed through :mod:`scorekeeper.rules`.

The log of entries is the only truth. To keep an entry as cheap on the
2,000th entry as on the 10th, each change also stores a snapshot of the
replayed state (:class:`~scorekeeper.models.GameSnapshot`, keyed by the
game's ``version`` and :data:`~scorekeeper.rules.RULES_VERSION`) and the
seats' figures (:mod:`scorekeeper.services.stats`), in the same transaction;
a request starts from the snapshot and replays the whole log only when it is
missing, stale or of another rules version. Undo and corrections replay the log.

Every change is decided first (read and replay, no write lock), then written
in one short transaction that claims the game's ``version`` with a
compare-and-set: a double tap, a re-posted form, a second phone acting on an
old page or a request that lost a race changes nothing (:class:`Stale`).
Nothing is deleted: undone and replaced entries stay, with their status.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from typing import NamedTuple

from sqlalchemy import (JSON, String, bindparam, cast, false, func, insert, literal, literal_column, true,
                        update)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import aliased
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from ..models import Entry, ExportRound, ExportState, Game, GameFigures, GameSnapshot, User, utcnow
from ..rules import RULES_VERSION, find_game
from ..rules import record as records
from ..rules.base import N_, GameState, IllegalEntry, Nn_, Phrase, RecordError, RoundLog, RuleError
from ..db import begin_if_autocommit, run
from . import export_rows, stats

#: Entries the game panel lists ("Last entries").
RECENT = 6
#: Rounds a snapshot keeps (the panel shows the last one; one entry ends at most one round).
KEEP_ROUNDS = 2

class Stale(Exception):
    """The form was made for an earlier version of the game: nothing was recorded."""

    def __init__(self, repeated: bool = False):
        from flask_babel import lazy_gettext as _l

        self.repeated = repeated
        super().__init__(  # lazy: read out (str()) in the request's language
            _l("That entry was already recorded (a double tap, or another phone sent it first); "
               "it counts once. Here is the game as it stands.")
            if repeated
            else _l("The game changed since this page was shown (another phone, or an older page); "
                    "nothing was recorded. Here is the game as it stands now.")
        )


class Refused(RuleError):
    """An entry or correction the rules refuse; nothing was recorded."""


@dataclass
class Loaded:
    """A game row, the state replayed from its log, the log's length and its last entries.

    ``state`` may come from a snapshot: it answers everything about the game as it
    stands (whose turn, scores, the last round), but its ``summary()`` lists only
    the last rounds; the summary page replays the whole log. ``recent`` is the last
    :data:`RECENT` entries (dicts, oldest first); ``log`` and ``entries`` read the
    whole log on first use.
    """

    game: Game
    state: GameState
    count: int
    recent: list[dict]
    session: Session | None = field(default=None, repr=False)
    sums: dict = field(default_factory=dict, repr=False)
    #: The entry Redo would put back (the last undone one, nothing entered since), else None.
    redo: dict | None = None
    #: The snapshot's bytes this state was just stored as (set by :func:`add_entry`), else None.
    blob: bytes | None = field(default=None, repr=False)

    @cached_property
    def entries(self) -> list[Entry]:
        """The active entries as stored, by position (read on first use)."""
        return active_entries(self.session, self.game)

    @cached_property
    def log(self) -> list[dict]:
        """The active entries as record entries (dicts), oldest first."""
        return [json.loads(e.data) for e in self.entries]

    @property
    def players(self) -> list[str]:
        return json.loads(self.game.players)

    @property
    def options(self) -> dict:
        return json.loads(self.game.options)


def get_game(session: Session, group_id: int, game_id: int) -> Game | None:
    """The game ``game_id`` if it belongs to the group ``group_id``, else None (the view answers 404)."""
    game = session.get(Game, game_id)
    if game is None or game.group_id != group_id:
        return None
    return game


def active_entries(session: Session, game: Game) -> list[Entry]:
    """The game's log as stored: its active entries by position (undone and replaced left out)."""
    stmt = select(Entry).where(Entry.game_id == game.id, Entry.status == "active").order_by(Entry.seq)
    return list(session.exec(stmt))


# The statements of an entry's path, built once on the tables (building one costs more than
# running it) and run on the driver's cursor (:func:`scorekeeper.db.run`): the ORM adds nothing here.
_games, _entries, _snapshots = Game.__table__, Entry.__table__, GameSnapshot.__table__
_SNAPSHOT = select(_snapshots.c.version, _snapshots.c.rules, _snapshots.c.entries, _snapshots.c.state).where(
    _snapshots.c.game_id == bindparam("game"))
_SAVE_SNAPSHOT = update(_snapshots).where(_snapshots.c.game_id == bindparam("b_game")).values(
    version=bindparam("b_version"), rules=bindparam("b_rules"), entries=bindparam("b_entries"),
    state=bindparam("b_state"))
_CLAIM = update(_games).where(_games.c.id == bindparam("b_game"), _games.c.version == bindparam("b_version")).values(
    version=bindparam("b_new_version"), updated_at=bindparam("b_updated_at"), finished=bindparam("b_finished"),
    rounds=bindparam("b_rounds"), winners=bindparam("b_winners"), content_hash=bindparam("b_hash"))
_FORGET_REDO = update(_entries).where(_entries.c.game_id == bindparam("b_game"), _entries.c.redoable).values(
    redoable=False)
_ADD_ENTRY = insert(_entries).values(game_id=bindparam("b_game"), seq=bindparam("b_seq"), data=bindparam("b_data"),
                                     status="active", redoable=False, created_at=bindparam("b_at"),
                                     entered_by=bindparam("b_by"))


class _SnapshotRow(NamedTuple):
    version: int
    rules: int
    entries: int
    state: bytes


def _record(game: Game, log: list[dict]) -> dict:
    return records.make_record(game.game, json.loads(game.players), json.loads(game.options), log)


def replay(game: Game, log: list[dict]) -> GameState:
    """The state after ``log``; raise :class:`records.ReplayError` at a refused entry."""
    return records.build(_record(game, log))


def log_places(game: Game, log: list[dict]) -> tuple[list[tuple[int, int | None]], list[int | None]]:
    """The round each entry of ``log`` was made in and a tie-break roll's tie-break, and the
    tie-break under way at each position (:func:`scorekeeper.rules.record.log_places`)."""
    return records.log_places(_record(game, log))


def _from_log(session: Session, game: Game, log: list[dict]) -> Loaded:
    state = replay(game, log)
    players = json.loads(game.players)
    sums = stats.round_sums(game.game, players, state.summary()["rounds"])
    return Loaded(game, state, len(log), log[-RECENT:], session, sums)


class _RulesOnly(pickle.Unpickler):
    """Unpickles a snapshot, refusing every global but the classes of :mod:`scorekeeper.rules`.

    A plain ``pickle.loads`` of bytes read from the database would run whatever callable
    they name: whoever can write one row could run code in the app. Here a blob can only
    build instances of the engine's own classes (states, rounds, enums), as a log can.
    """

    def find_class(self, module: str, name: str):
        if module == "scorekeeper.rules" or module.startswith("scorekeeper.rules."):
            found = getattr(sys.modules.get(module), name, None)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"a snapshot may not refer to {module}.{name}")


def _thaw(blob: bytes) -> tuple:
    """``(state, sums, recent, redo)`` from a snapshot's bytes (see :func:`_freeze`); raises
    ``pickle.UnpicklingError`` (or another error) for bytes it does not accept."""
    state, sums, recent, redo = _RulesOnly(io.BytesIO(blob)).load()
    if not isinstance(state, GameState):
        raise pickle.UnpicklingError("a snapshot holds a game state")
    return state, sums, recent, redo


#: Each game's state as its last entry in this process left it, by game id: ``(blob, state, sums,
#: recent, redo)``, ``blob`` the snapshot's bytes it was stored as (:func:`hand_back`).
_left: dict[int, tuple] = {}
#: Games kept in :data:`_left` at most (all dropped when full: memory stays bounded).
MAX_LEFT = 256
#: Check in :func:`hand_back` that the state is still what was stored (pickled again, the same
#: bytes): the tests turn it on (tests/conftest.py), as it costs what keeping the state saves.
CHECK_LEFT = False


def hand_back(loaded: Loaded) -> None:
    """The caller is done with ``loaded`` (an entry's answer is rendered): keep its state for the
    game's next :func:`load` in this process, which then takes it instead of unpickling the
    snapshot, if the snapshot row it reads still holds the bytes this state was stored as
    (docs/speed.md §Entry path). What is kept is what :func:`_thaw` would make of those bytes:
    the state with its rounds cut to the last :data:`KEEP_ROUNDS`, as :func:`_freeze` stored it
    (a state replayed from a long log holds every round). A state not stored by
    :func:`add_entry` is not kept. Nothing else may use ``loaded`` after this: the next load owns
    (and changes) its state. Raises ``AssertionError`` with :data:`CHECK_LEFT` if the state,
    its figures or its last entries changed since they were stored."""
    if loaded.blob is None:
        return
    if CHECK_LEFT and _freeze(loaded) != loaded.blob:
        raise AssertionError("the state changed after it was stored: it cannot stand for its snapshot")
    state = loaded.state
    state.rounds = RoundLog.last(state.rounds, KEEP_ROUNDS)
    if len(_left) >= MAX_LEFT:
        _left.clear()
    _left[loaded.game.id] = (loaded.blob, state, loaded.sums, loaded.recent[-RECENT:], loaded.redo)
    loaded.blob = None


def _taken(game_id: int, blob: bytes) -> tuple | None:
    """``(state, sums, recent, redo)`` kept by :func:`hand_back` for the game when it was stored
    as ``blob``, else None. Taken out: whoever takes it owns it (two requests of one process
    never share a state)."""
    left = _left.pop(game_id, None)
    if left is None or left[0] != blob:
        return None
    return left[1:]


def keep_snapshot(session: Session, game_id: int, row: tuple) -> None:
    """Keep the snapshot row ``(version, rules, entries, state)`` read with game ``game_id`` (in
    the same query: :func:`scorekeeper.services.groups.game_of_member`) for the session's next
    :func:`load` of that game, which then reads no row of its own."""
    session.info[("snapshot", game_id)] = row


def _snapshot(session: Session, game: Game) -> Loaded | None:
    """The state stored at the game's current version, or None (missing, stale, other rules,
    unreadable). One query, whatever the log's length (none when the row was read with the
    game: :func:`keep_snapshot`): the last entries and the entry Redo would put back are
    stored with it."""
    kept = session.info.pop(("snapshot", game.id), None)
    if kept is not None and kept[0] == game.version:
        snap = _SnapshotRow(*kept)
    else:  # none kept, or kept before the game changed (a race lost, then the game refreshed)
        snap = run(session, _SNAPSHOT, {"game": game.id}).first()
    if snap is not None and snap.version > game.version:  # the game moved on since its row was read
        session.refresh(game)
    if snap is None or snap.version != game.version or snap.rules != RULES_VERSION:
        return None
    taken = _taken(game.id, snap.state)
    if taken is None:
        try:
            taken = _thaw(snap.state)
        except Exception:  # a snapshot the code can no longer read (or will not): the log is the truth
            return None
    state, sums, recent, redo = taken
    return Loaded(game, state, snap.entries, recent, session, sums, redo)


def load(session: Session, game: Game) -> Loaded:
    """The game as it stands: from its snapshot, or by replaying the whole log.

    Raises :class:`records.ReplayError` if the stored log no longer replays (a rules
    change that refuses an old entry); every stored log was accepted when written.
    """
    loaded = _snapshot(session, game)
    if loaded is None:
        entries = active_entries(session, game)
        loaded = _from_log(session, game, [json.loads(e.data) for e in entries])
        loaded.__dict__["entries"] = entries
        row = redo_candidate(session, game, loaded.count)
        loaded.redo = json.loads(row.data) if row is not None else None
    return loaded


def redo_candidate(session: Session, game: Game, length: int) -> Entry | None:
    """The undone entry Redo would put back at position ``length + 1``, or None.

    Only undos (and redos) may have happened since it was undone: any other change
    (an entry, a correction) clears every ``redoable`` flag of the game.
    """
    stmt = (select(Entry)
            .where(Entry.game_id == game.id, Entry.status == "undone", Entry.redoable, Entry.seq == length + 1)
            .order_by(Entry.id.desc()).limit(1))
    return session.exec(stmt).first()


def _forget_redo(session: Session, game: Game) -> None:
    """After an entry or a correction nothing can be redone any more (the undone rows stay)."""
    run(session, _FORGET_REDO, {"b_game": game.id})


def content_hash(game: str, players: list[str], options: dict, entries: list) -> str:
    """The SHA-256 (64 hex digits) of a game's content: its game, seats, full options and
    active log, as canonical JSON (``[game, players, options, entries]``, keys sorted, no
    spaces, ASCII escapes). Two games with the same content have the same hash, whatever
    the key order or spacing of the record they came from. Stored as ``Game.content_hash``
    so "is this record already here?" is one indexed look-up. The migration
    ``content_hash`` fills it with this same formula: keep the two equal.
    """
    canonical = json.dumps([game, list(players), options, list(entries)], sort_keys=True,
                           separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _game_hash(game: Game, log: list) -> str:
    return content_hash(game.game, json.loads(game.players), json.loads(game.options), log)


def fill_hashes(session: Session, group_id: int) -> int:
    """Compute the content hash of the group's games that have none (changed by an entry
    since the last import; see :func:`content_hash`), each written only if the game did not
    change meanwhile (compare-and-set on ``version``). Called by an import before it looks
    hashes up. Cost: one read of each such game's log. Returns how many were filled; no commit.
    """
    rows = session.execute(select(Game.id, Game.version, Game.game, Game.players, Game.options)
                           .where(Game.group_id == group_id, Game.content_hash.is_(None))).all()
    for row in rows:
        data = session.execute(select(Entry.data).where(Entry.game_id == row.id, Entry.status == "active")
                               .order_by(Entry.seq)).scalars()
        digest = content_hash(row.game, json.loads(row.players), json.loads(row.options),
                              [json.loads(d) for d in data])
        session.execute(update(Game).where(Game.id == row.id, Game.version == row.version)
                        .values(content_hash=digest).execution_options(synchronize_session=False))
    return len(rows)


def _freeze(loaded: Loaded) -> bytes:
    """The snapshot's bytes: ``(state, sums, recent, redo)`` pickled: the state with only its
    last :data:`KEEP_ROUNDS` rounds, the round figures, the last :data:`RECENT` entries and the
    entry Redo would put back (None). Read back by :func:`_thaw` only."""
    state = loaded.state
    rounds = state.rounds
    state.rounds = RoundLog.last(rounds, KEEP_ROUNDS)
    try:
        return pickle.dumps((state, loaded.sums, loaded.recent[-RECENT:], loaded.redo),
                            protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        state.rounds = rounds


def _store(session: Session, game: Game, loaded: Loaded, figures: bool = True, summary: dict | None = None,
           written: _Written | None = None, revised: bool = False) -> bytes:
    """Write what the game's change leaves behind, in the caller's transaction: the
    snapshot at the game's (new) version and, with ``figures``, the seats' figures
    (``summary``: the state's ``summary()`` if already at hand). ``written``: what an
    entry's one write (:func:`_write_entry`) already did, whose snapshot bytes are kept.
    ``revised``: the entry changed the last finished round (:func:`export_rows.store`).
    Returns the snapshot's bytes."""
    if written is None:
        blob = _freeze(loaded)
        kept = run(session, _SAVE_SNAPSHOT, {"b_game": game.id, "b_version": game.version, "b_rules": RULES_VERSION,
                                                "b_entries": loaded.count, "b_state": blob}).rowcount == 1
    else:
        blob, kept = written.blob, written.kept
    if not kept:
        session.add(GameSnapshot(game_id=game.id, version=game.version, rules=RULES_VERSION,
                                 entries=loaded.count, state=blob))
    if written is not None and written.folded:
        return blob  # the figures and the export's new rounds were written with the entry (or left stale)
    if figures:
        players = json.loads(game.players)
        summary = summary or loaded.state.summary()
        stats.write_figures(session, game.id, players, stats.figures(players, summary, loaded.sums))
    # the export's CSV rounds at this version
    export_rows.store(session, game, loaded.state, None if written is None else written.marked, revised)
    return blob


def mirrored(state: GameState) -> dict:
    """What the lists show, copied onto the game row: finished, rounds, winners."""
    return {"finished": state.finished, "rounds": state.rounds_played, "winners": json.dumps(list(state.winners))}


def _claimed_values(version: int, state: GameState | None, content_hash: str | None = None) -> dict:
    """What claiming ``version`` writes on the game's row (both claims: :func:`_claim` and the
    entry's one write): the next version and the time, and with ``state`` its mirror
    (:func:`mirrored`) and ``content_hash``."""
    values = {"version": version + 1, "updated_at": utcnow()}
    if state is not None:
        values.update(mirrored(state), content_hash=content_hash)
    return values


def _claim(session: Session, game: Game, version: int | None, state: GameState | None = None,
           log: list | None = None) -> None:
    """Compare-and-set the game's version (and mirror ``state`` and the content hash of the
    active ``log`` onto its row, or None without ``log``; without ``state`` only the version moves); raise
    :class:`Stale` if another change came first. Opens the short write transaction."""
    if version is None:
        raise Stale()
    # An entry leaves the hash empty (computing it reads the whole log): the next import of the
    # group fills it (fill_hashes); undo, redo and corrections have the log at hand.
    values = _claimed_values(version, state, None if state is None or log is None else _game_hash(game, log))
    if state is None:
        stmt = update(Game).where(Game.id == game.id, Game.version == version).values(**values)
        params = None
    else:
        stmt = _CLAIM
        params = {"b_game": game.id, "b_version": version, "b_new_version": version + 1,
                  "b_updated_at": values["updated_at"], "b_finished": values["finished"],
                  "b_rounds": values["rounds"], "b_winners": values["winners"], "b_hash": values["content_hash"]}
    try:
        result = run(session, stmt, params) if params is not None else session.execute(stmt)
    except OperationalError:  # SQLite's write lock not had within its busy timeout: nothing changed
        session.rollback()
        raise Stale() from None
    _claimed(session, game, result.rowcount == 1, values)


def _claimed(session: Session, game: Game, won: bool, values: dict) -> None:
    """After the version's compare-and-set: raise :class:`Stale` (and roll back) if it matched
    no row, else put the written ``values`` on ``game`` as committed."""
    if not won:
        session.rollback()
        raise Stale()
    for key, value in values.items():
        set_committed_value(game, key, value)


class _Written(NamedTuple):
    """What :func:`_write_entry` did besides claiming the version and inserting the entry."""

    blob: bytes  # the snapshot's bytes
    kept: bool  # the snapshot row was updated (False: none yet, to insert)
    marked: bool  # the export's stored rounds moved to the new version (export_rows.fast_mark)
    folded: bool = False  # the seats' figures and the export's new rounds were in the write too


class _Moved(NamedTuple):
    """What an entry that moved the scores writes besides the entry and the snapshot, when its
    one write can hold it (:func:`_moved_writes`): the seats' figure rows and the export's round
    texts after round ``before`` (the rounds finished before this entry)."""

    figures: list[dict]
    texts: list[str]
    before: int


#: The figure columns an entry writes, in order (the table's, without the key).
_FIGURE_COLUMNS = tuple(c.name for c in GameFigures.__table__.columns if c.name not in ("game_id", "seat"))


@lru_cache(maxsize=2)
def _entry_write(moved: bool = False):
    """PostgreSQL: the writes of an entry as one statement, in one round trip instead of four
    or more (docs/speed.md §PostgreSQL's share). Data-modifying CTEs: claim the version (the
    compare-and-set of :func:`_claim`), then, only if it matched, insert the entry, update
    the snapshot row and move the export's mark (:func:`export_rows.fast_mark`).

    With ``moved`` (an entry that moved the scores: :class:`_Moved`), the same statement also
    writes the seats' figure rows (an upsert on the table's key, of the JSON text ``w_figures``:
    an array of one object per seat, its keys the columns, read by ``json_to_recordset``) and
    moves the export's mark from the rounds finished before (``w_before``) to those finished now
    (``w_rounds``), adding the new rounds' texts (the JSON text ``w_texts``, objects of
    ``position`` and ``cells``) only if the mark was at the version before and at ``w_before``
    rounds (else the rounds stay stale: the export replays). Its text and number of parameters
    are the same for any number of seats and rounds, so psycopg parses it once; one text each,
    as psycopg dumps array parameters element by element in Python (some 85 µs for the figures'
    eleven arrays, against 10 for all the statement's other parameters).

    Answers one row: how many rows the claim, the insert, the snapshot's update, the mark, the
    figures and the rounds matched (each part is counted: SQLAlchemy writes out only the CTEs
    the statement refers to). Built once per value of ``moved``."""
    def param(name: str, column):
        return bindparam(name, type_=column.type)  # typed: psycopg is sent ``%(name)s::TYPE``

    def recordset(name: str, table, columns, alias: str):
        """The rows of the JSON text ``name`` (an array of objects) as ``columns`` of ``table``."""
        return (func.json_to_recordset(cast(bindparam(name, type_=String), JSON))
                .table_valued(*(table.c[c] for c in columns)).render_derived(alias, with_types=True))

    game, rounds, at = param("w_game", _games.c.id), param("w_rounds", _games.c.rounds), param("w_at", _games.c.updated_at)
    old, new = param("w_old", _games.c.version), param("w_new", _games.c.version)
    claim = (update(_games).where(_games.c.id == game, _games.c.version == old)
             .values(version=new, updated_at=at, finished=param("w_finished", _games.c.finished),
                     rounds=rounds, winners=param("w_winners", _games.c.winners), content_hash=None)
             .returning(_games.c.id).cte("claim"))
    won = select(claim.c.id).exists()
    added = (insert(_entries).from_select(
        ["game_id", "seq", "data", "status", "redoable", "created_at", "entered_by"],
        select(claim.c.id, param("w_seq", _entries.c.seq), param("w_data", _entries.c.data),
               literal_column("'active'", _entries.c.status.type), false(), at, param("w_by", _entries.c.entered_by)))
        .returning(_entries.c.id).cte("added"))
    kept = (update(_snapshots).where(_snapshots.c.game_id == game, won)
            .values(version=new, rules=param("w_rules", _snapshots.c.rules),
                    entries=param("w_entries", _snapshots.c.entries), state=param("w_state", _snapshots.c.state))
            .returning(_snapshots.c.game_id).cte("kept"))
    if not moved:
        mark = export_rows.fast_mark(game, old, new, rounds).where(won)
    else:
        state = ExportState.__table__
        mark = (state.update().where(state.c.game_id == game, state.c.version == old,
                                     state.c.rules == RULES_VERSION, state.c.rounds == param("w_before", state.c.rounds),
                                     won)
                .values(version=new, rounds=rounds))
    marked = mark.returning(mark.table.c.game_id).cte("marked")
    parts = [claim, added, kept, marked]
    if moved:
        figures = GameFigures.__table__
        columns = ("seat", *_FIGURE_COLUMNS)
        seats = recordset("w_figures", figures, columns, "seats")
        upsert = pg_insert(figures).from_select(
            ["game_id", *columns], select(claim.c.id, *(seats.c[name] for name in columns))
            .select_from(claim.join(seats, true())))
        upsert = upsert.on_conflict_do_update(index_elements=[figures.c.game_id, figures.c.seat],
                                              set_={name: upsert.excluded[name] for name in _FIGURE_COLUMNS})
        parts.append(upsert.returning(figures.c.seat).cte("figured"))
        table = ExportRound.__table__
        texts = recordset("w_texts", table, ("position", "cells"), "rounds")
        parts.append(insert(table).from_select(
            ["game_id", "position", "cells"], select(marked.c.game_id, texts.c.position, texts.c.cells)
            .select_from(marked.join(texts, true()))).returning(table.c.position).cte("texts"))

    def count(cte):
        return select(func.count()).select_from(cte).scalar_subquery()

    names = ("claimed", "added", "kept", "marked", "figured", "written")
    return select(*(count(cte).label(name) for cte, name in zip(parts, names)))


def _moved_writes(game: Game, loaded: Loaded, before: int) -> _Moved | None:
    """The figures and export rounds of an entry that moved the scores, to write with it in one
    statement (:func:`_entry_write`); None if the state's kept rounds do not reach back to round
    ``before`` (the rounds finished before the entry): the writes then go one by one."""
    state = loaded.state
    summary = state.summary()
    texts = export_rows.texts_after(game, state, before, summary)
    if texts is None:
        return None
    players = json.loads(game.players)
    figs = stats.figures(players, summary, loaded.sums)
    return _Moved([figs[p] for p in players], texts, before)


def _write_entry(session: Session, game: Game, version: int, loaded: Loaded, entry: dict,
                 entered_by: int | None, moved: _Moved | None = None) -> _Written:
    """PostgreSQL: claim ``version``, insert ``entry`` at ``loaded.count`` (already counted),
    update the snapshot (``loaded`` as it now stands) and the export's mark, and with ``moved``
    the seats' figures and the export's new rounds, in one statement (:func:`_entry_write`);
    raise :class:`Stale` as :func:`_claim`."""
    state = loaded.state
    values = _claimed_values(version, state)  # the content hash left for the next import
    blob = _freeze(loaded)
    params = {
        "w_game": game.id, "w_old": version, "w_new": version + 1, "w_at": values["updated_at"],
        "w_finished": values["finished"], "w_rounds": values["rounds"], "w_winners": values["winners"],
        "w_seq": loaded.count, "w_data": json.dumps(entry), "w_by": entered_by, "w_entries": loaded.count,
        "w_rules": RULES_VERSION, "w_state": blob}
    if moved is not None:
        params["w_before"] = moved.before
        params["w_figures"] = json.dumps([{"seat": seat, **{name: figs[name] for name in _FIGURE_COLUMNS}}
                                          for seat, figs in enumerate(moved.figures)])
        params["w_texts"] = json.dumps([{"position": moved.before + i, "cells": text}
                                        for i, text in enumerate(moved.texts, start=1)])
    row = run(session, _entry_write(moved is not None), params).one()
    _claimed(session, game, row.claimed == 1, values)
    return _Written(blob, row.kept == 1, row.marked == 1, moved is not None)


def _commit(session: Session) -> None:
    try:
        session.commit()
    except OperationalError:
        session.rollback()
        raise Stale() from None


def _end_read(session: Session) -> None:
    """End the reading part of a change before its short write transaction.

    SQLite: end whatever the reads began, so the first write starts a fresh transaction that
    waits for the write lock (a read transaction that later writes fails at once, "database is
    locked", once another connection has written since it began). PostgreSQL: nothing to do;
    its reads lock nothing a writer waits for, the row lock is taken by the version claim
    (which re-reads the row as committed), and keeping the connection saves handing it back to
    the pool and pinging it again.
    """
    if session.get_bind().dialect.name == "sqlite":
        # Python's sqlite3 begins a transaction only before a write: reads leave none open,
        # and then the connection is kept (no pool round trip). Should one be open, end it.
        if getattr(session.connection().connection.dbapi_connection, "in_transaction", True):
            session.commit()


def create_game(session: Session, group_id: int, name: str, players: list[str], options: dict,
                entries: list | None = None, history: list | None = None,
                entered_by: int | None = None) -> Game:
    """Add a new game after replaying it; raise :class:`records.ReplayError` and add nothing.
    ``entered_by``: the account setting it up (its entries' and the game's ``started_by``).

    Only flushes: the caller commits (with the seats' profiles), or rolls back.
    """
    record = records.make_record(name, players, options, entries or [])
    header = records.load_header(record)
    state = records.apply_entries(records.new_state(header), record["entries"])
    game = Game(group_id=group_id, game=name, players=json.dumps(list(header.players)),
                options=json.dumps(header.options), **mirrored(state), started_by=entered_by,
                content_hash=content_hash(name, list(header.players), header.options, record["entries"]))
    session.add(game)
    session.flush()
    session.add_all([Entry(game_id=game.id, seq=seq, data=json.dumps(entry), entered_by=entered_by)
                     for seq, entry in enumerate(record["entries"], start=1)])
    log = record["entries"]
    sums = stats.round_sums(name, header.players, state.summary()["rounds"])
    _store(session, game, Loaded(game, state, len(log), log[-RECENT:], session, sums))
    session.flush()
    return game


@dataclass
class NewGame:
    """A checked game ready to store (an imported record): its game, seats, full options,
    log, replayed ``state``, ``played_at`` (None: now) and ``history``: ``[(seq, status,
    entry, at or None, undone_at or None)]`` of undone and replaced entries."""

    name: str
    players: list[str]
    options: dict
    entries: list[dict]
    state: GameState
    played_at: datetime | None = None
    history: list[tuple] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        return content_hash(self.name, self.players, self.options, self.entries)

    @property
    def finished(self) -> bool:
        return bool(self.state.summary()["finished"])


def insert_games(session: Session, group_id: int, games: list[NewGame]) -> list[int]:
    """Store many checked games at once: the same rows as :func:`create_game` (game row with
    its mirrored figures and content hash, log entries, the seats' figures for the stats
    pages) plus each one's history, in a few bulk inserts instead of an ORM flush per game.
    No snapshot: the first load replays the log and the first change stores one. Returns
    the new ids in order. Only flushes: the caller commits (with the seats) or rolls back.
    Keep it in step with :func:`create_game` when that one starts writing more rows.
    """
    if not games:
        return []
    now = utcnow()
    rows = []
    summaries = []
    for g in games:
        summary = g.state.summary()
        summaries.append(summary)
        rows.append({"group_id": group_id, "game": g.name, "players": json.dumps(g.players),
                     "options": json.dumps(g.options), "version": 0, "finished": bool(summary["finished"]),
                     "rounds": len(summary["rounds"]), "winners": json.dumps(list(summary["winners"])),
                     "created_at": now, "updated_at": now, "played_at": g.played_at or now,
                     "content_hash": g.content_hash})
    ids: list[int] = []
    for start in range(0, len(rows), 500):
        ids += session.execute(insert(Game).returning(Game.id, sort_by_parameter_order=True),
                               rows[start:start + 500]).scalars().all()
    entries = []
    figures = []
    for game_id, g, summary in zip(ids, games, summaries):
        entries += [{"game_id": game_id, "seq": seq, "data": json.dumps(e), "status": "active",
                     "created_at": now} for seq, e in enumerate(g.entries, start=1)]
        entries += [{"game_id": game_id, "seq": seq, "data": json.dumps(e), "status": status,
                     "created_at": at or now, "undone_at": undone_at}
                    for seq, status, e, at, undone_at in g.history]
        figs = stats.game_figures(g.name, g.players, summary)
        figures += [{"game_id": game_id, "seat": seat, **figs[p]} for seat, p in enumerate(g.players)]
    if entries:
        session.execute(insert(Entry), entries)
    if figures:
        stats.insert_figures(session, figures)
    return ids


def _refuse(session: Session, game: Game, version: int, message: str, /, **values) -> Refused:
    """A refusal (``message`` and ``values`` as :class:`Refused` takes them), unless the game
    moved on while it was read (then :class:`Stale`): the version and the log are read by
    separate statements, outside a write transaction."""
    now = session.exec(select(Game.version).where(Game.id == game.id)).one()
    session.rollback()
    return Stale() if now != version else Refused(message, **values)


def _refuse_if_removed(session: Session, game: Game, version: int) -> None:
    """A removed game takes no change (entry, undo, redo, correction) until it is restored."""
    if game.removed_at is not None:
        raise _refuse(session, game, version, N_("this game was removed; restore it (the button below, or "
                                                 "Account) to enter, undo or correct anything"))


def _last_entry(session: Session, game: Game) -> dict | None:
    data = session.exec(select(Entry.data).where(Entry.game_id == game.id, Entry.status == "active")
                        .order_by(Entry.seq.desc()).limit(1)).first()
    return None if data is None else json.loads(data)


def entry_at(session: Session, game: Game, seq: int) -> dict | None:
    """Entry ``seq`` (1-based) of the log as it stands, or None if the log is shorter."""
    data = session.exec(select(Entry.data).where(Entry.game_id == game.id, Entry.status == "active",
                                                 Entry.seq == seq)).first()
    return None if data is None else json.loads(data)


def was_entered(session: Session, game: Game, seq: int) -> bool:
    """True if the game's log ever held an entry at position ``seq`` (1-based, as :func:`entry_at`),
    though it may have been undone since."""
    return session.exec(select(Entry.id).where(Entry.game_id == game.id, Entry.seq == seq).limit(1)).first() is not None


def add_entry(session: Session, game: Game, entry: dict, version: int | None,
              entered_by: int | None = None) -> Loaded:
    """Append ``entry`` if the rules accept it after the current log.

    Decided on the snapshot (or a replay) without a write lock, then written in one
    short transaction: claim the version, insert, store snapshot and figures, commit.
    Raises :class:`Stale` (form for another version, a race lost; a repeat of the
    last entry says so) or :class:`Refused` (the rule's message). ``entered_by`` is the
    account that entered it (kept with the entry).
    """
    if version is None or version != game.version:
        if version is not None and version == game.version - 1 and _last_entry(session, game) == entry:
            raise Stale(repeated=True)
        raise Stale()
    _refuse_if_removed(session, game, version)
    loaded = load(session, game)
    if game.version != version:
        session.rollback()
        raise Stale()
    from_snapshot = "entries" not in loaded.__dict__  # else replayed from the log (its row may be missing)
    state = loaded.state
    played, finished, scores = state.rounds_played, state.finished, state.current_scores()
    try:
        state.apply(entry)
    except IllegalEntry as err:
        raise _refuse(session, game, version, err.message) from None
    for rnd in state.finished_rounds[len(state.finished_rounds) - (state.rounds_played - played):]:
        stats.add_round(game.game, loaded.sums, rnd.as_dict())
    had_redo = loaded.redo is not None
    _end_read(session)
    postgres = session.get_bind().dialect.name == "postgresql"
    # An entry that changes the round before it (Mia's reversal) writes that round's export row again.
    revised = entry.get("type") in state.ROUND_REVISING
    one_write = not had_redo and postgres and not revised
    # Scores move at a round's end, at the game's end, and in Mice and Men as a player runs.
    moved = state.current_scores() != scores or state.rounds_played != played or state.finished != finished
    # One statement can hold the whole change when it follows a snapshot past the first rounds;
    # with the scores moved, the figures and the export's new rounds go in it too.
    whole = one_write and from_snapshot and not export_rows.rewrites_all(state)
    folded = _moved_writes(game, loaded, played) if whole and moved else None
    if postgres and not (whole and (folded or not moved)):
        begin_if_autocommit(session)  # more than the one write: all or nothing
    if not one_write:
        _claim(session, game, version, state)  # the content hash is left for the next import
        if had_redo:  # only an undo sets the flags, and then the snapshot names the entry to redo
            _forget_redo(session, game)
        run(session, _ADD_ENTRY, {"b_game": game.id, "b_seq": loaded.count + 1, "b_data": json.dumps(entry),
                                     "b_at": utcnow(), "b_by": entered_by})
    loaded.count += 1
    loaded.redo = None
    loaded.recent = (loaded.recent + [entry])[-RECENT:]
    loaded.__dict__.pop("entries", None)
    loaded.__dict__.pop("log", None)
    # PostgreSQL: the claim, the entry, the snapshot and the export's mark in one round trip.
    written = _write_entry(session, game, version, loaded, entry, entered_by, folded) if one_write else None
    blob = _store(session, game, loaded, moved, None, written, revised)
    _commit(session)
    loaded.blob = blob  # for hand_back(), once the caller is done with it
    return loaded


def undo(session: Session, game: Game, version: int | None, undone_by: int | None = None) -> Loaded:
    """Take back the last entry (kept, marked ``undone``, with the time and ``undone_by``, the
    account that undid it); raise :class:`Refused` if none.

    Replays the log without the last entry; raises :class:`Stale` as :func:`add_entry`.
    """
    if version is None or version != game.version:
        raise Stale()
    _refuse_if_removed(session, game, version)
    entries = active_entries(session, game)
    if not entries:
        raise _refuse(session, game, version, N_("there is nothing to undo yet"))
    last = entries.pop()
    log = [json.loads(e.data) for e in entries]
    loaded = _from_log(session, game, log)
    loaded.__dict__["entries"] = entries
    loaded.redo = json.loads(last.data)
    _end_read(session)
    _claim(session, game, version, loaded.state, log)
    session.execute(update(Entry).where(Entry.id == last.id).values(status="undone", redoable=True,
                                                                     undone_at=utcnow(), undone_by=undone_by))
    _store(session, game, loaded)
    _commit(session)
    return loaded


def redo(session: Session, game: Game, version: int | None, redone_by: int | None = None) -> Loaded:
    """Put back exactly the entry the last undo took back, as a new active row.

    Allowed only while nothing else was entered or corrected since (see
    :func:`redo_candidate`); the entry is checked by the rules like any entry.
    The undone row is kept, marked ``redone``; the new row is the account's that redid it
    (``redone_by``; None keeps the original author), which another phone is then told made the
    last change. Raises :class:`Stale` (form for
    another version) or :class:`Refused` (nothing to redo, or the rules refuse it).
    Commits before returning.
    """
    if version is None or version != game.version:
        raise Stale()
    _refuse_if_removed(session, game, version)
    entries = active_entries(session, game)
    old = redo_candidate(session, game, len(entries))
    if old is None:
        raise _refuse(session, game, version, N_("there is nothing to redo: Redo puts back the last undone entry "
                                                 "only while nothing else was entered or corrected since"))
    entry = json.loads(old.data)
    log = [json.loads(e.data) for e in entries] + [entry]
    try:  # checked like any entry, though the log is the one it was undone from
        loaded = _from_log(session, game, log)
    except records.ReplayError as err:
        raise _refuse(session, game, version, err.reason) from None
    old_id, old_data, seq = old.id, old.data, len(entries) + 1
    by = old.entered_by if redone_by is None else redone_by
    following = redo_candidate(session, game, len(log))  # what Redo offers next (stored with the snapshot)
    loaded.redo = json.loads(following.data) if following is not None else None
    _end_read(session)
    _claim(session, game, version, loaded.state, log)
    session.execute(update(Entry).where(Entry.id == old_id).values(status="redone", redoable=False))
    run(session, _ADD_ENTRY, {"b_game": game.id, "b_seq": seq, "b_data": old_data, "b_at": utcnow(),
                                 "b_by": by})
    _store(session, game, loaded)
    _commit(session)
    return loaded


def correct(session: Session, game: Game, seq: int, entry: dict, version: int | None,
            entered_by: int | None = None, once_token: str | None = None) -> Loaded:
    """Replace entry ``seq`` (1-based) and replay the rest of the log.

    If the new entry, or any later one, is then refused, raise :class:`Refused`
    naming that entry, and change nothing. The old entry is kept, marked
    ``replaced``. Raises :class:`Stale` as :func:`add_entry`. ``once_token``, the correction
    form's one-time token (:mod:`.once`), is stored in the same transaction, so that the same
    form sent twice is known as done (its second sending finds the version taken: Stale).
    """
    if version is None or version != game.version:
        raise Stale()
    _refuse_if_removed(session, game, version)
    entries = active_entries(session, game)
    if not 1 <= seq <= len(entries):
        raise _refuse(session, game, version, Phrase(*Nn_("there is no entry {seq}; the log has {count} entry",
                                                          "there is no entry {seq}; the log has {count} entries"),
                                                      seq=seq, count=len(entries)))
    log = [json.loads(e.data) for e in entries]
    new_log = log[: seq - 1] + [entry] + log[seq:]
    try:
        loaded = _from_log(session, game, new_log)
    except records.ReplayError as err:
        if err.entry == seq:
            raise _refuse(session, game, version, err.reason) from None
        from ..words import describe

        raise _refuse(
            session, game, version,
            # Not "correct that entry first": that entry is legal as the log stands (a changed
            # turn order or game end leaves no correction of it that fits; found by a review).
            N_("this correction would make entry {entry} ({what}) illegal: {reason}. Nothing was "
               "changed: a correction keeps every later entry. To change entry {seq} anyway, undo "
               "back to it (the last entry first), correct it, then enter the later entries again."),
            # named as the log names it now ("Ann: tie-break 2 roll 4-2"; a playtest)
            entry=err.entry, what=describe(new_log[err.entry - 1], tie_break=_place_now(game, log, err.entry)),
            reason=err.reason, seq=seq,
        ) from None
    old = entries[seq - 1]
    _end_read(session)
    _claim(session, game, version, loaded.state, new_log)
    _forget_redo(session, game)
    row = Entry(game_id=game.id, seq=seq, data=json.dumps(entry), entered_by=entered_by)
    session.add(row)
    session.flush()
    session.execute(update(Entry).where(Entry.id == old.id).values(status="replaced", replaced_by_id=row.id))
    _store(session, game, loaded)
    if once_token is not None:
        from ..models import OnceToken

        session.add(OnceToken(token=once_token, kind=CORRECTION, user_id=entered_by, target_id=game.id))
    _commit(session)
    return loaded


#: The one-time token kind of a correction form (:mod:`.once`).
CORRECTION = "correction"


def rematch(session: Session, game: Game, version: int | None, entered_by: int | None = None) -> Game:
    """Start a new game of the same kind with the same players, seat order and options.

    Nothing is entered: the new game opens on "Who starts?" (name the starter, or the one-die
    roll-off the rules give; docs/rules.md §Every game). The old game's ``version`` is
    claimed first, so a double tap makes one new game (:class:`Stale` for the second). The old
    game's live link ("Show to the table"), if on, moves to the new game: a table screen or a
    spectator's phone follows the table's next game without a new link. Flushes
    only: the caller links the seats and commits. Raises :class:`Refused` for a game that is
    not over, is removed or is a practice game (its page offers its own new game), and
    :class:`Stale` when the game moved on since ``version`` (an undo: it may no longer be over).
    """
    if game.practice:
        raise Refused(N_("a practice game is played on its practice page; start another one there"))
    _refuse_if_removed(session, game, version)
    if not load(session, game).state.finished:
        raise _refuse(session, game, version, N_("this game is not over yet; a rematch is offered when it has ended"))
    if version == game.version:  # (a stale form is the caller's: Stale below)
        earlier = latest_rematch(session, game)
        if earlier is not None and earlier.version == 0 and earlier.removed_at is None:
            # Made before an undo reopened this game, and never played: that one, not a second
            # empty game beside it (found by a review).
            raise Stale(repeated=True)
    _end_read(session)
    _claim(session, game, version)
    link = game.live_token
    if link is not None:  # the table's live link follows the table to its next game
        session.execute(update(Game).where(Game.id == game.id).values(live_token=None))
        set_committed_value(game, "live_token", None)
    new = create_game(session, game.group_id, game.game, json.loads(game.players), json.loads(game.options),
                      [], entered_by=entered_by)
    new.rematch_of = game.id
    if link is not None:
        new.live_token = link
    session.flush()
    return new


def latest_rematch(session: Session, game: Game) -> Game | None:
    """The newest game made by ``game``'s Rematch (``Game.rematch_of``), or None. A game set up by
    hand with the same players and options is none (it passed for one while ``game`` was still
    being played, and its page offered no Rematch: a review)."""
    stmt = select(Game).where(Game.rematch_of == game.id).order_by(Game.id.desc()).limit(1)
    return session.exec(stmt).first()


def rematch_started(session: Session, game: Game) -> tuple[Game, str | None] | None:
    """The rematch of a finished ``game`` made already, for its page to lead to, and the username
    of the account that started it (None when not known); None when there is none, it was
    removed, or ``game`` is a practice game. Asked only by a finished game's page."""
    if game.practice:
        return None
    new = latest_rematch(session, game)
    if new is None or new.removed_at is not None:
        return None
    from ..models import User

    starter = session.get(User, new.started_by) if new.started_by is not None else None
    return new, starter.username if starter is not None else None


RESTORE_DAYS = 30


def remove_game(session: Session, game: Game) -> None:
    """Take ``game`` out of the lists and the stats (``removed_at`` = now); its entries stay.
    Its live link is turned off (a link out then opens nothing; restoring does not turn it on
    again). Commits; a game already removed stays as it is (a double tap)."""
    if game.removed_at is not None:
        return
    game.removed_at = utcnow()
    game.live_token = None
    _moved_without_entries(session, game)
    session.commit()


def restore_game(session: Session, game: Game) -> None:
    """Put a removed game back in the lists and the stats. Commits; a game not removed stays as
    it is."""
    if game.removed_at is None:
        return
    game.removed_at = None
    _moved_without_entries(session, game)
    session.commit()


def _moved_without_entries(session: Session, game: Game) -> None:
    """A change of the game that is no entry (removed, restored): its version moves on, so that
    every phone's poll brings the page as it now stands and a form shown before is stale (409).
    The state is the same: its snapshot and its export rounds move to the new version with it
    (each only if it was at the old one)."""
    old = game.version
    game.version = old + 1
    session.add(game)
    session.flush()
    for table in (_snapshots, export_rows._STATE):
        session.connection().execute(update(table).where(table.c.game_id == game.id, table.c.version == old)
                                     .values(version=old + 1))


def removed_games(session: Session, group_id: int) -> list[Game]:
    """The group's games removed in the last :data:`RESTORE_DAYS` days, newest removal first."""
    since = utcnow() - timedelta(days=RESTORE_DAYS)
    stmt = (select(Game).where(Game.group_id == group_id, Game.removed_at.is_not(None), Game.removed_at >= since)
            .order_by(Game.removed_at.desc()))
    return list(session.exec(stmt))


def last_entry(session: Session, loaded: Loaded) -> tuple[dict, str | None, int | None, bool] | None:
    """What changed the log last: ``(entry, name, seq, redone)``: the entry stored last of those in
    the log, the name of the account that entered it (None if unknown), ``seq`` when that entry is
    a correction (it replaced the entry ``seq``), else None, and ``redone``: True when it is an
    entry put back by Redo (the row before it at its position is the undone one Redo marked
    ``redone``). None for an empty log. One query, whatever the log's length."""
    replaced = aliased(Entry)
    row = session.execute(select(Entry.data, User.username, Entry.seq, replaced.id, _status_before())
                          .outerjoin(User, User.id == Entry.entered_by)
                          .outerjoin(replaced, replaced.replaced_by_id == Entry.id)
                          .where(Entry.game_id == loaded.game.id, Entry.status == "active")
                          .order_by(Entry.id.desc()).limit(1)).first()
    if row is None:
        return None
    return json.loads(row[0]), row[1], row[2] if row[3] is not None else None, row[4] == "redone"


def _status_before():
    """The status of the row stored before ``Entry`` at its position (``redone``: ``Entry`` is
    the entry Redo put back there), as a correlated subquery."""
    before = aliased(Entry)
    return (select(before.status).where(before.game_id == Entry.game_id, before.seq == Entry.seq,
                                        before.id < Entry.id)
            .order_by(before.id.desc()).limit(1).correlate(Entry).scalar_subquery())


def undid_last(session: Session, loaded: Loaded) -> bool:
    """Whether the log's last change was an undo, when Redo has an entry to put back
    (``loaded.redo``). After two undos and one Redo, Redo still offers the entry undone first, but
    the last change was the Redo: the log's last stored entry is then the one Redo put back, stored
    after the entry Redo now offers was undone (a higher id); an undo since would have undone it.
    False when Redo offers nothing. Two queries."""
    if loaded.redo is None:
        return False
    undone = redo_candidate(session, loaded.game, loaded.count)
    if undone is None:
        return True
    row = session.execute(select(Entry.id, _status_before())
                          .where(Entry.game_id == loaded.game.id, Entry.status == "active")
                          .order_by(Entry.id.desc()).limit(1)).first()
    return not (row is not None and row[1] == "redone" and row[0] > undone.id)


def undone_by(session: Session, loaded: Loaded) -> str | None:
    """The name of the account that undid the entry Redo would put back (``loaded.redo``:
    :func:`redo_candidate`), or None (not known: undone before migration 0017, or imported)."""
    undone = redo_candidate(session, loaded.game, loaded.count)
    if undone is None or undone.undone_by is None:
        return None
    account = session.get(User, undone.undone_by)
    return None if account is None else account.username


class Change(NamedTuple):
    """An undone or replaced entry, with when and by whom it was undone or corrected (None where
    not known: an undo before migration 0017, an imported correction), and for a replaced one the
    entry that replaced it (its data, as stored; None where not known: an imported correction)."""

    entry: Entry
    at: datetime | None
    by: str | None
    replacement: dict | None = None
    #: For an entry undone and then put back by Redo: when, and by whom (the account that
    #: entered the row Redo added; None where not known).
    redone_at: datetime | None = None
    redone_by: str | None = None


def history(session: Session, game: Game) -> list[Entry]:
    """Undone and replaced entries, oldest first."""
    stmt = select(Entry).where(Entry.game_id == game.id, Entry.status != "active").order_by(Entry.id)
    return list(session.exec(stmt))


def changes(session: Session, game: Game) -> list[Change]:
    """:func:`history` for the game's log page: for an undone entry, when and by whom it was
    undone; for a replaced one, when and by whom the correction was entered, and what it
    entered; for one put back by Redo, also when and by whom (the row Redo added: the next row
    at the same position, as nothing can be entered between an undo and its Redo). One query."""
    correction, undoer, corrector = aliased(Entry), aliased(User), aliased(User)
    later, put_back, redoer = aliased(Entry), aliased(Entry), aliased(User)
    next_at_seq = (select(func.min(later.id))
                   .where(later.game_id == Entry.game_id, later.seq == Entry.seq, later.id > Entry.id)
                   .correlate(Entry).scalar_subquery())
    rows = session.execute(
        select(Entry, undoer.username, correction.created_at, corrector.username, correction.data,
               put_back.created_at, redoer.username)
        .outerjoin(undoer, undoer.id == Entry.undone_by)
        .outerjoin(correction, correction.id == Entry.replaced_by_id)
        .outerjoin(corrector, corrector.id == correction.entered_by)
        .outerjoin(put_back, (Entry.status == "redone") & (put_back.id == next_at_seq))
        .outerjoin(redoer, redoer.id == put_back.entered_by)
        .where(Entry.game_id == game.id, Entry.status != "active").order_by(Entry.id)).all()
    return [Change(e, fixed_at, fixer, None if data is None else json.loads(data)) if e.status == "replaced"
            else Change(e, e.undone_at, undoer_name, redone_at=back_at, redone_by=back_by)
            for e, undoer_name, fixed_at, fixer, data, back_at, back_by in rows]


def _place_now(game: Game, log: list[dict], seq: int) -> int | None:
    """The tie-break the log's entry ``seq`` was rolled in (:func:`log_places`), None for any
    other entry or a log the rules refuse now."""
    try:
        return log_places(game, log)[0][seq - 1][1]
    except (records.ReplayError, RuleError):
        return None


#: How many earlier logs :func:`tie_breaks_as_made` replays at most for one page.
MAX_MADE_REPLAYS = 30


def tie_breaks_as_made(game: Game, active: list[Entry], changes: list[Change],
                       under_way: list[int | None]) -> dict[int, int | None]:
    """For the log page's undone and corrected tie-break rolls (and the corrections' own
    entries), by entry id: the number of the tie-break each was rolled in when it was entered
    (:attr:`~scorekeeper.rules.base.GameState.tie_break_now` of the log as it stood then;
    docs/rules.md §Mitchi 8), so that it is named as it was then, whatever was undone or
    corrected before it since (a playtest: a roll undone from the first tie-break was listed as
    "tie-break 2" after the round was played again). ``active`` is the log's rows, ``changes``
    :func:`changes`, ``under_way`` the log's own (:func:`log_places`).

    The log as it stood when an entry was made: at each earlier position, the row entered last
    before it (ids grow with time; a position emptied by an undo was filled again before any
    later one). Where that is the log's own beginning, ``under_way`` says it; another is
    replayed, at most :data:`MAX_MADE_REPLAYS` for the page (None beyond, and for a log the
    rules refuse now)."""
    rows = {e.id: e for e in active} | {c.entry.id: c.entry for c in changes}
    wanted = [c.entry for c in changes] + [rows[c.entry.replaced_by_id] for c in changes
                                          if c.entry.replaced_by_id in rows]
    wanted = [e for e in wanted if json.loads(e.data).get("type") == "tiebreak"]
    if not wanted:
        return {}
    at_seq: dict[int, list[Entry]] = {}
    for e in sorted(rows.values(), key=lambda e: e.id):
        at_seq.setdefault(e.seq, []).append(e)
    log_ids = [e.id for e in active]
    out: dict[int, int | None] = {}
    replayed: dict[tuple, int | None] = {}
    for made in wanted:
        prefix = [next((e for e in reversed(at_seq.get(k, [])) if e.id < made.id), None) for k in range(1, made.seq)]
        if any(e is None for e in prefix):  # not a log that ever stood (imported history)
            out[made.id] = None
            continue
        ids = tuple(e.id for e in prefix)
        if list(ids) == log_ids[:made.seq - 1] and made.seq - 1 < len(under_way):
            out[made.id] = under_way[made.seq - 1]
        elif ids in replayed:
            out[made.id] = replayed[ids]
        elif len(replayed) >= MAX_MADE_REPLAYS:
            out[made.id] = None
        else:
            try:
                number = replay(game, [json.loads(e.data) for e in prefix]).tie_break_now
            except (records.ReplayError, RuleError):
                number = None
            out[made.id] = replayed[ids] = number
    return out


def record_from_rows(game: Game, active: list[Entry], others: list[Entry],
                     names: dict[int, str] | None = None) -> dict:
    """The game record (docs/game-record.md) from stored rows: the log (``active``, by position)
    and, under ``history``, what was undone or corrected (``others``, oldest first).

    With ``names`` (account id to name), each entry entered by a known account carries
    ``entered_by``: an extra key that readers of the format ignore."""
    names = names or {}
    return records.make_record(game.game, json.loads(game.players), json.loads(game.options),
                               [entry_data(e, names) for e in active],
                               history=[history_item(e, names) for e in others])


def entry_data(e: Entry, names: dict[int, str]) -> dict:
    """A stored entry as a record's entry, with ``entered_by`` (the account's name) if known."""
    entry = json.loads(e.data)
    if e.entered_by in names:
        entry["entered_by"] = names[e.entered_by]
    return entry


def history_item(e: Entry, names: dict[int, str]) -> dict:
    """An undone or replaced entry as an item of a record's ``history`` (docs/game-record.md
    §Record): ``{"seq", "status", "entry", "at"}`` (``at``: when the entry was entered), and for
    an undone one, where known, ``undone_at`` and ``undone_by`` (the account's name)."""
    item = {"seq": e.seq, "status": e.status, "entry": entry_data(e, names), "at": e.created_at.isoformat()}
    if e.undone_at is not None:
        item["undone_at"] = e.undone_at.isoformat()
    if e.undone_by in names:
        item["undone_by"] = names[e.undone_by]
    return item


def entered_by_names(session: Session, rows: list[Entry]) -> dict[int, str]:
    """Account id to name for the accounts that entered ``rows`` or undid them."""
    ids = {e.entered_by for e in rows if e.entered_by} | {e.undone_by for e in rows if e.undone_by}
    if not ids:
        return {}
    return {u.id: u.username for u in session.exec(select(User).where(User.id.in_(ids)))}


def to_record(session: Session, loaded: Loaded) -> dict:
    """The game record (docs/game-record.md), with what was undone or corrected under ``history``
    and who entered each entry (``entered_by``, an extra key)."""
    others = history(session, loaded.game)
    return record_from_rows(loaded.game, loaded.entries, others,
                            entered_by_names(session, loaded.entries + others))


def plain_entries(entries) -> list:
    """Record entries without ``entered_by`` (it names an account of the group that wrote the
    record: not part of the entry, and not stored as part of it)."""
    if not isinstance(entries, list):
        return entries
    return [{k: v for k, v in e.items() if k != "entered_by"} if isinstance(e, dict) else e
            for e in entries]


def import_record(session: Session, group_id: int, record) -> Game:
    """Add a game from a record (flushed, not committed); raise :class:`records.ReplayError`."""
    header = records.load_header(record)
    entries = plain_entries(record["entries"])
    return create_game(session, group_id, header.spec.name, list(header.players),
                       record["options"], entries)


__all__ = ["Loaded", "Refused", "RecordError", "Stale", "add_entry", "correct", "create_game",
           "find_game", "get_game", "history", "import_record", "load", "redo", "redo_candidate", "to_record",
           "undo"]
