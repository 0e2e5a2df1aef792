"""The statements of every entry and poll, run on the driver's cursor (``scorekeeper.db.run``,
docs/speed.md §Statements on the driver): the same rows and the same stored values as
SQLAlchemy's own execution, SQLAlchemy's errors, and SQLite's lock still a "game changed"."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.exc import IntegrityError, MultipleResultsFound, NoResultFound, OperationalError

from scorekeeper.db import get_session, run, run_many
from scorekeeper.models import Entry, Game
from scorekeeper.services import export_rows, groups, stats
from scorekeeper.services import games as service

from .conftest import HX, PG_URL, messages, new_game, version_of
from .views.test_entry_path import stored_game
from .views.test_snapshots import mitchi_turns, post


def account_id(session) -> int:
    """The id of the account the test registered ("ann")."""
    return session.execute(text('SELECT id FROM "user" WHERE username = :name'), {"name": "ann"}).scalar_one()


def test_the_first_read_gives_what_sqlalchemy_gives(app, client, auth):
    """The account's read with the game and its snapshot: every column, its value and its type
    (datetimes, booleans, bytes), as SQLAlchemy's execution converts them."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(2)
    for v in range(4):
        assert post(client, game, v, turns[v]).status_code == 200
    with app.app_context():
        session = get_session()
        params = {"id": account_id(session), "game": game}
        for statement in (groups._ACCOUNT_AND_GAME, groups._ACCOUNT_AND_VERSION, groups._ACCOUNT):
            ours = run(session, statement, params).one()
            theirs = session.connection().execute(statement, params).one()
            assert tuple(ours) == tuple(theirs)
            assert [type(v) for v in ours] == [type(v) for v in theirs]
        row = run(session, groups._ACCOUNT_AND_GAME, params).one()
        # the conversions were there to make: the snapshot's bytes, the game's times and flags
        assert {bytes, datetime, bool} <= {type(v) for v in row}
        assert row.username == "ann" and row.session_token  # by the columns' names
        assert run(session, groups._ACCOUNT_AND_GAME, {"id": 0, "game": game}).first() is None
        with pytest.raises(NoResultFound):
            run(session, groups._ACCOUNT, {"id": 0}).one()
        with pytest.raises(MultipleResultsFound):
            run(session, select(Entry.seq).where(Entry.game_id == game), {}).one()


def test_a_write_stores_what_sqlalchemy_stores(app, client, auth):
    """The entry's insert, run both ways with the same values: the two rows read back alike (a
    datetime with its zone is stored as SQLAlchemy's type stores it), and the rowcount of an
    update that matches nothing is 0."""
    auth.register()
    game = new_game(client, point_limit=100)
    with app.app_context():
        session = get_session()
        at = service.utcnow()
        values = {"b_game": game, "b_data": '{"type": "turn"}', "b_at": at, "b_by": None}
        run(session, service._ADD_ENTRY, {**values, "b_seq": 50})
        session.connection().execute(service._ADD_ENTRY, {**values, "b_seq": 51})
        rows = session.execute(select(Entry.seq, Entry.created_at, Entry.status, Entry.redoable, Entry.data)
                               .where(Entry.game_id == game, Entry.seq >= 50).order_by(Entry.seq)).all()
        assert [tuple(r[1:]) for r in rows] == [tuple(rows[1][1:])] * 2 and len(rows) == 2
        raw = session.execute(text("SELECT created_at FROM entry WHERE game_id = :g AND seq >= 50"),
                              {"g": game}).scalars().all()
        assert raw[0] == raw[1]  # the stored form itself, not only what it reads back as
        assert run(session, export_rows._FAST, {"b_game": game, "b_old": 999, "b_version": 1000,
                                                 "b_rounds": 0}).rowcount == 0
        session.rollback()


def test_rows_written_many_at_once_are_what_sqlalchemy_writes(app, client, auth):
    """``run_many`` (the seats' figures of an entry that ends a round): the same rows as
    SQLAlchemy's execution of the same statement writes, the driver's count, listeners told it
    is many, and a duplicate key raised as SQLAlchemy's ``IntegrityError`` with nothing kept."""
    auth.register()
    game = new_game(client, point_limit=100)
    with app.app_context():
        session = get_session()
        session.execute(text("DELETE FROM game_figures WHERE game_id = :g"), {"g": game})
        columns = [c.name for c in stats._FIGURES.columns]

        def row(seat):
            return {"game_id": game, "seat": seat, **{c: seat * 7 + i for i, c in enumerate(columns[2:])},
                    "won": seat % 2 == 0, "shared": seat == 2}

        told = []
        engine = app.extensions["scorekeeper.engine"]

        def listen(conn, cursor, statement, params, context, many):
            told.append(many)

        event.listen(engine, "before_cursor_execute", listen)
        try:
            count = run_many(session, stats._ADD_FIGURES, [row(s) for s in (0, 1, 2)])
        finally:
            event.remove(engine, "before_cursor_execute", listen)
        assert told == [True] and count in (3, -1)
        session.connection().execute(stats._ADD_FIGURES, [row(s) for s in (10, 11, 12)])
        stored = session.execute(text(f"SELECT {', '.join(columns)} FROM game_figures WHERE game_id = :g "
                                      "ORDER BY seat"), {"g": game}).all()
        ours, theirs = [tuple(r)[2:] for r in stored[:3]], [tuple(r)[2:] for r in stored[3:]]
        assert len(stored) == 6 and ours == [tuple(row(s).values())[2:] for s in (0, 1, 2)]
        assert [tuple(row(s).values())[2:] for s in (10, 11, 12)] == theirs
        session.commit()
        with pytest.raises(IntegrityError):
            run_many(session, stats._ADD_FIGURES, [row(20), row(0)])
        session.rollback()
        seats = session.execute(text("SELECT seat FROM game_figures WHERE game_id = :g ORDER BY seat"),
                                {"g": game}).scalars().all()
        assert seats == [0, 1, 2, 10, 11, 12]


def test_rows_are_fetched_when_the_statement_answers_them_without_asking_the_cursor(app, client, auth,
                                                                                     monkeypatch):
    """Whether a statement answers rows is known from it (a select, a RETURNING): the cursor's
    ``description``, which psycopg builds column by column, is not asked after an entry's
    statements; a text statement, which says nothing of its rows, still asks it."""
    from scorekeeper import db

    auth.register()
    game = new_game(client, point_limit=100)
    with app.app_context():
        session = get_session()
        assert run(session, text("SELECT 1 AS one"), {}).rows == [(1,)]
        assert run(session, text("UPDATE game SET rounds = rounds WHERE id = :g"), {"g": game}).rows == []
        dialect = session.connection().dialect
        assert db._prepare(groups._ACCOUNT, dialect).returns_rows is True
        assert db._prepare(export_rows._FAST, dialect).returns_rows is False
        assert db._prepare(text("SELECT 1"), dialect).returns_rows is None
        session.rollback()
    if PG_URL is None:
        return  # SQLite's cursor says its description for nothing: only psycopg's is counted
    game = stored_game(app, 30)  # past the first rounds, whose export rounds are all written again
    turns = mitchi_turns(700)
    assert post(client, game, 0, turns[29]).status_code == 200  # the first one stores the snapshot
    asked = []
    cursor = db.described_cursor()
    kept = cursor.description
    monkeypatch.setattr(cursor, "description", property(lambda self: asked.append(1) or kept.fget(self)))
    for v in range(1, 5):  # a round ends among them: the figures and the export's round too
        assert post(client, game, v, turns[29 + v]).status_code == 200
    assert asked == []


def test_listeners_see_the_statement(app, client, auth):
    """The engine's ``before_cursor_execute`` listeners are told, as SQLAlchemy tells them."""
    auth.register()
    with app.app_context():
        session = get_session()
        user = account_id(session)
        seen = []
        engine = app.extensions["scorekeeper.engine"]

        def listen(conn, cursor, statement, params, context, many):
            seen.append((statement, params))

        event.listen(engine, "before_cursor_execute", listen)
        try:
            run(session, groups._ACCOUNT, {"id": user})
        finally:
            event.remove(engine, "before_cursor_execute", listen)
        assert len(seen) == 1 and seen[0][0].lstrip().upper().startswith("SELECT")


def test_a_driver_error_is_sqlalchemys(app, client, auth):
    """A statement the server refuses raises SQLAlchemy's exception for it, not the driver's."""
    auth.register()
    with app.app_context():
        session = get_session()
        with pytest.raises(OperationalError if PG_URL is None else Exception) as caught:
            run(session, select(Game.id).where(text("no_such_column = 1")), {})
        assert type(caught.value).__module__ == "sqlalchemy.exc"
        session.rollback()


@pytest.mark.skipif(PG_URL is not None, reason="SQLite's write lock")
def test_an_entry_that_waits_too_long_for_the_lock_says_the_game_changed(app, client, auth, tmp_path):
    """Another connection holds SQLite's write lock past the busy timeout: the entry's claim
    fails with "database is locked" (the driver's error, raised as SQLAlchemy's
    ``OperationalError``), and the phone is told the game changed, nothing recorded, not a 500.
    Once the lock is let go, the same entry goes through."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200
    engine = app.extensions["scorekeeper.engine"]
    event.listen(engine, "checkout", lambda dbapi, record, proxy: dbapi.execute("PRAGMA busy_timeout=50"))
    engine.dispose()  # the pool's connections made again: the short timeout on each
    holder = sqlite3.connect(engine.url.database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        r = post(client, game, 1, turns[1])
        assert r.status_code == 409, messages(r.data)
        assert any("nothing was recorded" in m for m in messages(r.data)), messages(r.data)
        assert version_of(r.data) == 1
    finally:
        holder.rollback()
        holder.close()
    assert post(client, game, 1, turns[1]).status_code == 200
    assert version_of(client.get(f"/games/{game}", headers=HX).data) == 2
