"""PostgreSQL's pool check (``scorekeeper.db._begin_as_ping``): one round trip on checkout both
checks that the server still holds the connection and opens the request's transaction
(docs/speed.md §PostgreSQL's share), and a connection the server dropped fails no request."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, event, text

from .conftest import PG_URL, new_game
from .views.test_snapshots import mitchi_turns, post

pytestmark = pytest.mark.skipif(PG_URL is None, reason="the pool's check is PostgreSQL's")


def test_a_request_finds_its_transaction_open_before_its_first_statement(app, client, auth):
    """psycopg sends a ``BEGIN`` of its own (a round trip) only when it finds none open: the
    checkout's ``BEGIN`` is the only one, and the ping was that same ``BEGIN``."""
    from psycopg import pq

    auth.register()
    game = new_game(client, point_limit=100)
    engine = app.extensions["scorekeeper.engine"]
    found = []

    def first(conn, cursor, statement, params, context, executemany):
        found.append(conn.connection.dbapi_connection.pgconn.transaction_status)

    event.listen(engine, "before_cursor_execute", first)
    try:
        assert post(client, game, 0, mitchi_turns(1)[0]).status_code == 200
        assert client.get(f"/games/{game}").status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", first)
    assert found and set(found) == {pq.TransactionStatus.INTRANS}, found


def test_a_connection_the_server_dropped_fails_no_request(app, client, auth):
    """A restart of the server (here: every connection of the app's role ended) costs no
    request: the next checkout finds its connection gone and takes a fresh one."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200  # the pool now keeps a connection
    admin = create_engine(PG_URL)
    try:
        with admin.connect() as conn:
            ended = conn.execute(text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                "AND usename = current_user AND pid <> pg_backend_pid()")).scalar()
    finally:
        admin.dispose()
    assert ended >= 1
    assert client.get(f"/games/{game}").status_code == 200
    assert post(client, game, 1, turns[1]).status_code == 200
