"""PostgreSQL's pool check (``scorekeeper.db._begin_as_ping``): one round trip on checkout both
checks that the server still holds the connection and opens the request's transaction
(docs/speed.md §PostgreSQL's share), and a connection the server dropped fails no request.
An entry and the live poll run in autocommit instead: each statement one round trip, the
account's read the check, and a change of more than one statement in a transaction of its own."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, event, text

from .conftest import HX, PG_URL, new_game
from .views.test_snapshots import mitchi_turns, post

pytestmark = pytest.mark.skipif(PG_URL is None, reason="the pool's check is PostgreSQL's")


def watch(app):
    """``(autocommit, transaction status, first word)`` of every statement the app runs, as a
    list that grows, and the remover."""
    engine = app.extensions["scorekeeper.engine"]
    found = []

    def seen(conn, cursor, statement, params, context, executemany):
        dbapi = conn.connection.dbapi_connection
        found.append((dbapi.autocommit, dbapi.pgconn.transaction_status, statement.split()[0]))

    event.listen(engine, "before_cursor_execute", seen)
    return found, lambda: event.remove(engine, "before_cursor_execute", seen)


def test_a_request_finds_its_transaction_open_before_its_first_statement(app, client, auth):
    """psycopg sends a ``BEGIN`` of its own (a round trip) only when it finds none open: the
    checkout's ``BEGIN`` is the only one, and the ping was that same ``BEGIN``."""
    from psycopg import pq

    auth.register()
    game = new_game(client, point_limit=100)
    found, stop = watch(app)
    try:
        assert client.get(f"/games/{game}").status_code == 200
        assert client.get("/history").status_code == 200
    finally:
        stop()
    assert found and {(a, s) for a, s, _ in found} == {(False, pq.TransactionStatus.INTRANS)}, found


def test_an_entry_is_two_statements_in_autocommit_and_a_poll_one(app, client, auth):
    """No ``BEGIN`` on checkout, none from psycopg, no ``COMMIT``: the account's read with the
    game, then the entry's one write, each committed by itself. An unchanged poll: one
    statement. An entry that ends a round writes the seats' figures and the export's new round
    within that one write as well (they were five statements more, in a transaction). In a
    game's first two rounds an entry writes the export's rounds again as well (the snapshot
    keeps them all): in a transaction."""
    from psycopg import pq

    auth.register()
    game = new_game(client, point_limit=1000)
    turns = mitchi_turns(4)
    assert post(client, game, 0, turns[0]).status_code == 200  # the snapshot's row is stored
    found, stop = watch(app)
    try:
        assert post(client, game, 1, turns[1]).status_code == 200
        early = list(found)
        for v in range(2, 9):  # to the end of the third round
            assert post(client, game, v, turns[v]).status_code == 200
        found.clear()
        assert post(client, game, 9, turns[9]).status_code == 200
        entry = list(found)
        found.clear()
        assert client.get(f"/games/{game}/poll?v=10", headers=HX).status_code == 204
        polled = list(found)
        assert post(client, game, 10, turns[10]).status_code == 200
        found.clear()
        assert post(client, game, 11, turns[11]).status_code == 200  # the fourth round ends
        ending = list(found)
    finally:
        stop()
    idle = (True, pq.TransactionStatus.IDLE)
    assert early[:3] == [(*idle, "SELECT"), (*idle, "BEGIN"), (True, pq.TransactionStatus.INTRANS, "WITH")], early
    assert entry == [(*idle, "SELECT"), (*idle, "WITH")], entry
    assert polled == [(*idle, "SELECT")], polled
    assert ending == [(*idle, "SELECT"), (*idle, "WITH")], ending
    assert client.get(f"/games/{game}/summary").status_code == 200
    engine = app.extensions["scorekeeper.engine"]
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version, rounds FROM export_state WHERE game_id = :g"),
                            {"g": game}).one() == (12, 4)
        assert conn.execute(text("SELECT max(position), count(*) FROM export_round WHERE game_id = :g"),
                            {"g": game}).one() == (4, 4)
        # four pots taken: 2 points (round 1's Mitchi doubled it) and 1, 1, 1
        assert conn.execute(text("SELECT sum(pots), sum(score) FROM game_figures WHERE game_id = :g"),
                            {"g": game}).one() == (4, 5)


def test_an_entry_that_ends_a_round_writes_all_of_it_or_nothing(app, client, auth, monkeypatch):
    """An entry that moves the scores writes the seats' figures and the export's rounds too, and
    an entry after an undo forgets what Redo would put back: each in one transaction with the
    entry, so a failure among them keeps no entry either."""
    from psycopg import pq

    from scorekeeper.services import stats

    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    for v in range(2):
        assert post(client, game, v, turns[v]).status_code == 200

    def stored():
        admin = create_engine(PG_URL)
        try:
            with admin.connect() as conn:
                return tuple(conn.execute(text(
                    "SELECT version, (SELECT count(*) FROM entry WHERE game_id = :g AND status = 'active') "
                    "FROM game WHERE id = :g"), {"g": game}).one())
        finally:
            admin.dispose()

    def broken(*args, **kwargs):
        raise RuntimeError("the figures could not be written")

    for version in (2, 4):  # the round's last turn; then the same after an undo of it
        before = stored()
        with monkeypatch.context() as patch:
            patch.setattr(stats, "write_figures", broken)
            with pytest.raises(RuntimeError):
                post(client, game, version, turns[2])
        assert stored() == before == (version, 3)  # start and two turns
        found, stop = watch(app)
        try:
            assert post(client, game, version, turns[2]).status_code == 200
        finally:
            stop()
        assert found[1] == (True, pq.TransactionStatus.IDLE, "BEGIN"), found
        assert len(found) > 3 and all(s == pq.TransactionStatus.INTRANS for _a, s, _w in found[2:]), found
        if version == 2:
            assert client.post(f"/games/{game}/undo", data={"version": "3"}, headers=HX).status_code == 200


def end_the_apps_connections() -> int:
    """End every connection of the app's role on the server (as a restart would); how many."""
    admin = create_engine(PG_URL)
    try:
        with admin.connect() as conn:
            return conn.execute(text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                "AND usename = current_user AND pid <> pg_backend_pid()")).scalar()
    finally:
        admin.dispose()


def test_a_connection_the_server_dropped_fails_no_request(app, client, auth):
    """A restart of the server (here: every connection of the app's role ended) costs no
    request: the next checkout finds its connection gone and takes a fresh one."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200  # the pool now keeps a connection
    assert end_the_apps_connections() >= 1
    assert client.get(f"/games/{game}").status_code == 200
    assert post(client, game, 1, turns[1]).status_code == 200


@pytest.mark.parametrize("first", ["entry", "poll"])
def test_a_dropped_connection_fails_no_entry_and_no_poll(app, client, auth, first):
    """An entry or a poll sends no check on checkout: its first read, finding the connection
    gone, is read again on a fresh one."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200
    assert client.get(f"/games/{game}/poll?v=1", headers=HX).status_code == 204
    assert end_the_apps_connections() >= 1
    if first == "entry":
        assert post(client, game, 1, turns[1]).status_code == 200
    else:
        assert client.get(f"/games/{game}/poll?v=1", headers=HX).status_code == 204


@pytest.mark.parametrize("first", ["entry", "poll"])
def test_a_restart_fails_no_entry_or_poll_when_the_pool_kept_several(app, client, auth, first):
    """Every connection the pool kept was dropped by the restart: the first read's failure
    invalidates them all (SQLAlchemy's handling of a disconnect), so the read again gets a fresh
    one, not the next dropped one."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200
    engine = app.extensions["scorekeeper.engine"]
    held = [engine.connect() for _ in range(3)]  # three at once: the pool keeps them all after
    for conn in held:
        conn.close()
    assert engine.pool.checkedin() >= 3
    assert end_the_apps_connections() >= 3
    if first == "entry":
        assert post(client, game, 1, turns[1]).status_code == 200
    else:
        assert client.get(f"/games/{game}/poll?v=1", headers=HX).status_code == 204
