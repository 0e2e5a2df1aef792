"""A game's log in the database, replayed through :mod:`scorekeeper.rules`.

The state of a game is never stored: it is computed from the active entries.
Every change (entry, undo, correction) first claims the game's ``version``
with a compare-and-set, so a double tap, a re-posted form or a second phone
acting on an old page changes nothing (:class:`Stale`). Nothing is deleted:
undone and replaced entries stay, with their status.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from sqlalchemy import insert, update
from sqlmodel import Session, select

from ..models import Entry, Game, User, utcnow
from ..rules import find_game
from ..rules import record as records
from ..rules.base import N_, GameState, IllegalEntry, Nn_, Phrase, RecordError, RuleError


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
    """A game row, its active log (oldest first) and the state replayed from it."""

    game: Game
    entries: list[Entry]
    state: GameState
    #: The entry Redo would put back (the last undone one, nothing entered since), else None.
    redo: dict | None = None

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


def replay(game: Game, log: list[dict]) -> GameState:
    """The state after ``log``; raise :class:`records.ReplayError` at a refused entry."""
    return records.build(records.make_record(game.game, json.loads(game.players), json.loads(game.options), log))


def load(session: Session, game: Game) -> Loaded:
    """Read the log and replay it: the one replay a request needs.

    Raises :class:`records.ReplayError` if the stored log no longer replays (a rules
    change that refuses an old entry); every stored log was accepted when written.
    """
    entries = active_entries(session, game)
    row = redo_candidate(session, game, len(entries))
    return Loaded(game, entries, replay(game, [json.loads(e.data) for e in entries]),
                  json.loads(row.data) if row is not None else None)


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
    session.execute(update(Entry).where(Entry.game_id == game.id, Entry.redoable).values(redoable=False))


def _claim(session: Session, game: Game, version: int | None) -> None:
    """Compare-and-set the game's version; raise :class:`Stale` if it moved on."""
    if version is None:
        raise Stale()
    result = session.execute(
        update(Game)
        .where(Game.id == game.id, Game.version == version)
        .values(version=Game.version + 1, updated_at=utcnow())
    )
    if result.rowcount != 1:
        session.rollback()
        raise Stale()
    session.refresh(game)


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


def _mirror(session: Session, game: Game, state: GameState, log: list | None = None) -> None:
    """Copy what the lists show (finished, rounds, winners) and the content hash of the active
    ``log`` (read from the database when not given) onto the game row; no commit."""
    if log is None:
        session.flush()
        log = [json.loads(e.data) for e in active_entries(session, game)]
    game.content_hash = content_hash(game.game, json.loads(game.players), json.loads(game.options), log)
    summary = state.summary()
    game.finished = summary["finished"]
    game.rounds = len(summary["rounds"])
    game.winners = json.dumps(list(summary["winners"]))
    session.add(game)


def _finish(session: Session, game: Game, state: GameState, log: list) -> None:
    """Mirror the state (and the hash of the active ``log``) onto the game row and commit."""
    _mirror(session, game, state, log)
    session.commit()


def create_game(session: Session, group_id: int, name: str, players: list[str], options: dict,
                entries: list | None = None, history: list | None = None,
                entered_by: int | None = None) -> Game:
    """Add a new game after replaying it; raise :class:`records.ReplayError` and add nothing.

    Only flushes: the caller commits (with the seats' profiles), or rolls back.
    """
    record = records.make_record(name, players, options, entries or [])
    header = records.load_header(record)
    state = records.apply_entries(records.new_state(header), record["entries"])
    game = Game(group_id=group_id, game=name, players=json.dumps(list(header.players)),
                options=json.dumps(header.options))
    session.add(game)
    session.flush()
    for seq, entry in enumerate(record["entries"], start=1):
        session.add(Entry(game_id=game.id, seq=seq, data=json.dumps(entry), entered_by=entered_by))
    _mirror(session, game, state, record["entries"])
    session.flush()
    return game


@dataclass
class NewGame:
    """A checked game ready to store (an imported record): its game, seats, full options,
    log, replayed ``state``, ``played_at`` (None: now) and ``history``: ``[(seq, status,
    entry, at or None)]`` of undone and replaced entries."""

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
    its mirrored figures and content hash, log entries) plus each one's history, in a few
    bulk inserts instead of an ORM flush per game. Returns the new ids in order. Only
    flushes: the caller commits (with the seats) or rolls back. Keep it in step with
    :func:`create_game` when that one starts writing more rows.
    """
    if not games:
        return []
    now = utcnow()
    rows = []
    for g in games:
        summary = g.state.summary()
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
    for game_id, g in zip(ids, games):
        entries += [{"game_id": game_id, "seq": seq, "data": json.dumps(e), "status": "active",
                     "created_at": now} for seq, e in enumerate(g.entries, start=1)]
        entries += [{"game_id": game_id, "seq": seq, "data": json.dumps(e), "status": status,
                     "created_at": at or now} for seq, status, e, at in g.history]
    if entries:
        session.execute(insert(Entry), entries)
    return ids


def add_entry(session: Session, game: Game, entry: dict, version: int | None,
              entered_by: int | None = None) -> Loaded:
    """Append ``entry`` if the rules accept it after the current log.

    Raises :class:`Stale` (form for another version; a repeat of the last
    entry says so) or :class:`Refused` (the rule's message). Commits before
    returning. ``entered_by`` is the account that entered it (kept with the entry).
    """
    if version is not None and version == game.version - 1:
        last = active_entries(session, game)
        if last and json.loads(last[-1].data) == entry:
            raise Stale(repeated=True)
    _claim(session, game, version)
    entries = active_entries(session, game)
    log = [json.loads(e.data) for e in entries]
    state = replay(game, log)
    try:
        state.apply(entry)
    except IllegalEntry as err:
        session.rollback()
        raise Refused(err.message) from None
    _forget_redo(session, game)
    row = Entry(game_id=game.id, seq=len(log) + 1, data=json.dumps(entry), entered_by=entered_by)
    session.add(row)
    _finish(session, game, state, log + [entry])
    return Loaded(game, entries + [row], state)


def undo(session: Session, game: Game, version: int | None) -> Loaded:
    """Take back the last entry (kept, marked ``undone``); raise :class:`Refused` if none."""
    _claim(session, game, version)
    entries = active_entries(session, game)
    if not entries:
        session.rollback()
        raise Refused(N_("there is nothing to undo yet"))
    undone = entries[-1]
    undone.status = "undone"
    undone.redoable = True
    session.add(undone)
    entries = entries[:-1]
    log = [json.loads(e.data) for e in entries]
    state = replay(game, log)
    _finish(session, game, state, log)
    return Loaded(game, entries, state, json.loads(undone.data))


def redo(session: Session, game: Game, version: int | None) -> Loaded:
    """Put back exactly the entry the last undo took back, as a new active row.

    Allowed only while nothing else was entered or corrected since (see
    :func:`redo_candidate`); the entry is checked by the rules like any entry.
    The undone row is kept, marked ``redone``. Raises :class:`Stale` (form for
    another version) or :class:`Refused` (nothing to redo, or the rules refuse it).
    Commits before returning.
    """
    _claim(session, game, version)
    entries = active_entries(session, game)
    old = redo_candidate(session, game, len(entries))
    if old is None:
        session.rollback()
        raise Refused(N_("there is nothing to redo: Redo puts back the last undone entry "
                         "only while nothing else was entered or corrected since"))
    entry = json.loads(old.data)
    log = [json.loads(e.data) for e in entries]
    state = replay(game, log)
    try:
        state.apply(entry)
    except IllegalEntry as err:  # checked like any entry, though the log is the one it was undone from
        session.rollback()
        raise Refused(err.message) from None
    old.status = "redone"
    old.redoable = False
    session.add(old)
    row = Entry(game_id=game.id, seq=len(entries) + 1, data=old.data, entered_by=old.entered_by)
    session.add(row)
    session.flush()
    entries = entries + [row]
    following = redo_candidate(session, game, len(entries))
    _finish(session, game, state, log + [entry])
    return Loaded(game, entries, state, json.loads(following.data) if following is not None else None)


def correct(session: Session, game: Game, seq: int, entry: dict, version: int | None,
            entered_by: int | None = None) -> Loaded:
    """Replace entry ``seq`` (1-based) and replay the rest of the log.

    If the new entry, or any later one, is then refused, raise :class:`Refused`
    naming that entry, and change nothing. The old entry is kept, marked
    ``replaced``.
    """
    _claim(session, game, version)
    entries = active_entries(session, game)
    if not 1 <= seq <= len(entries):
        session.rollback()
        raise Refused(Phrase(*Nn_("there is no entry {seq}; the log has {count} entry",
                                  "there is no entry {seq}; the log has {count} entries"), seq=seq, count=len(entries)))
    log = [json.loads(e.data) for e in entries]
    new_log = log[: seq - 1] + [entry] + log[seq:]
    try:
        state = replay(game, new_log)
    except records.ReplayError as err:
        session.rollback()
        if err.entry == seq:
            raise Refused(err.reason) from None
        from ..words import describe

        raise Refused(
            N_("this correction would make entry {entry} ({what}) illegal: {reason}. "
               "Nothing was changed; undo or correct that entry first."),
            entry=err.entry, what=describe(new_log[err.entry - 1]), reason=err.reason,
        ) from None
    _forget_redo(session, game)
    old = entries[seq - 1]
    row = Entry(game_id=game.id, seq=seq, data=json.dumps(entry), entered_by=entered_by)
    session.add(row)
    session.flush()
    old.status = "replaced"
    old.replaced_by_id = row.id
    session.add(old)
    entries[seq - 1] = row
    _finish(session, game, state, new_log)
    return Loaded(game, entries, state)


def last_entry(session: Session, loaded: Loaded) -> tuple[dict, str | None] | None:
    """The last entry of the log and the name of the account that entered it (None if unknown),
    or None for an empty log."""
    if not loaded.entries:
        return None
    row = loaded.entries[-1]
    user = session.get(User, row.entered_by) if row.entered_by else None
    return loaded.log[-1], (user.username if user else None)


def rematch(session: Session, game: Game, version: int | None, entered_by: int | None = None) -> Game:
    """Start a new game of the same kind with the same players, seat order and options.

    Nothing is entered: the new game opens on "Who starts?" (name the starter, or the one-die
    roll-off the rules give; docs/rules.md §Every game). The old game's ``version`` is
    claimed first, so a double tap makes one new game (:class:`Stale` for the second). Flushes
    only: the caller links the seats and commits.
    """
    _claim(session, game, version)
    return create_game(session, game.group_id, game.game, json.loads(game.players), json.loads(game.options),
                       [], entered_by=entered_by)


def latest_rematch(session: Session, game: Game) -> Game | None:
    """The newest later game of the same group, kind, players and options (a rematch made already)."""
    stmt = (select(Game).where(Game.group_id == game.group_id, Game.game == game.game,
                               Game.players == game.players, Game.options == game.options, Game.id > game.id)
            .order_by(Game.id.desc()).limit(1))
    return session.exec(stmt).first()


RESTORE_DAYS = 30


def remove_game(session: Session, game: Game) -> None:
    """Take ``game`` out of the lists and the stats (``removed_at`` = now); its entries stay.
    Commits."""
    game.removed_at = utcnow()
    session.add(game)
    session.commit()


def restore_game(session: Session, game: Game) -> None:
    """Put a removed game back in the lists and the stats. Commits."""
    game.removed_at = None
    session.add(game)
    session.commit()


def removed_games(session: Session, group_id: int) -> list[Game]:
    """The group's games removed in the last :data:`RESTORE_DAYS` days, newest removal first."""
    since = utcnow() - timedelta(days=RESTORE_DAYS)
    stmt = (select(Game).where(Game.group_id == group_id, Game.removed_at.is_not(None), Game.removed_at >= since)
            .order_by(Game.removed_at.desc()))
    return list(session.exec(stmt))


def history(session: Session, game: Game) -> list[Entry]:
    """Undone and replaced entries, oldest first."""
    stmt = select(Entry).where(Entry.game_id == game.id, Entry.status != "active").order_by(Entry.id)
    return list(session.exec(stmt))


def record_from_rows(game: Game, active: list[Entry], others: list[Entry],
                     names: dict[int, str] | None = None) -> dict:
    """The game record (docs/game-record.md) from stored rows: the log (``active``, by position)
    and, under ``history``, what was undone or corrected (``others``, oldest first).

    With ``names`` (account id to name), each entry entered by a known account carries
    ``entered_by``: an extra key that readers of the format ignore."""
    names = names or {}

    def data(e: Entry) -> dict:
        entry = json.loads(e.data)
        if e.entered_by in names:
            entry["entered_by"] = names[e.entered_by]
        return entry

    extra = [
        {"seq": e.seq, "status": e.status, "entry": data(e), "at": e.created_at.isoformat()}
        for e in others
    ]
    return records.make_record(game.game, json.loads(game.players), json.loads(game.options),
                               [data(e) for e in active], history=extra)


def entered_by_names(session: Session, rows: list[Entry]) -> dict[int, str]:
    """Account id to name for the accounts that entered ``rows``."""
    ids = {e.entered_by for e in rows if e.entered_by}
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
