"""Migration 0004 (groups) from a database at the previous head with games in it, on SQLite and,
when ``TEST_DATABASE_URL`` names one, on a throwaway PostgreSQL database: nothing is lost, every
account owns a group holding its games, players and time zone, and every URL still works."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

from scorekeeper import create_app
from scorekeeper.db import migrate

from .conftest import Auth

PG_URL = os.environ.get("TEST_DATABASE_URL")


@pytest.fixture
def old_database(tmp_path):
    """An empty database URL: a SQLite file, or a new PostgreSQL database dropped afterwards."""
    if not PG_URL:
        yield "sqlite:///" + str(tmp_path / "old.sqlite3")
        return
    name = "migr_" + uuid.uuid4().hex[:10]
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        try:
            conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
        except ProgrammingError:  # a backend not ours (autovacuum after a big fill) cannot be ended by FORCE:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "  # end ours, and a
                              "WHERE datname = :d AND usename = current_user"), {"d": name})  # plain DROP
            conn.execute(text(f"DROP DATABASE {name}"))  # stops autovacuum itself
    admin.dispose()


def _fill_at_0003(url: str) -> None:
    """Two accounts with games, seats, profiles and entries, as revision 0003 stored them."""
    from werkzeug.security import generate_password_hash

    migrate(url, "0003")
    engine = create_engine(url)
    pw = generate_password_hash("correct horse")
    with engine.begin() as conn:
        for uid, name, tz in ((1, "ann", "Europe/Berlin"), (2, "bob", "UTC")):
            conn.execute(text('INSERT INTO "user" (id, username, password_hash, created_at, timezone) '
                              "VALUES (:id, :n, :pw, '2026-11-01 10:00:00', :tz)"),
                         {"id": uid, "n": name, "pw": pw, "tz": tz})
        games = ((1, 1, '["Ann", "Ben", "Cat"]'), (2, 1, '["Ann", "Dan", "Eve"]'), (3, 2, '["Bob", "Ann", "Zed"]'))
        for gid, owner, players in games:
            conn.execute(text(
                "INSERT INTO game (id, owner_id, game, players, options, version, finished, rounds, winners, "
                "created_at, updated_at, played_at) VALUES (:id, :o, 'mitchi', :p, '{\"point_limit\": 25}', 2, "
                "false, 0, '[]', '2026-11-02 20:00:00', '2026-11-02 20:00:00', '2026-11-02 20:00:00')"),
                {"id": gid, "o": owner, "p": players})
            first = players.split('"')[1]
            conn.execute(text("INSERT INTO entry (game_id, seq, data, status, created_at) VALUES "
                              "(:id, 1, :d, 'active', '2026-11-02 20:00:00')"),
                         {"id": gid, "d": '{"type": "start", "player": "%s"}' % first})
            conn.execute(text("INSERT INTO entry (game_id, seq, data, status, created_at) VALUES "
                              "(:id, 2, :d, 'active', '2026-11-02 20:01:00')"),
                         {"id": gid, "d": '{"type": "turn", "player": "%s", "hand": [6, 5], "rolls": 2}' % first})
        pid = 0
        for gid, owner, players in games:
            for seat, name in enumerate(players.strip("[]").replace('"', "").split(", ")):
                key = name.casefold()
                found = conn.execute(text("SELECT id FROM player WHERE owner_id = :o AND name_key = :k"),
                                     {"o": owner, "k": key}).scalar()
                if found is None:
                    pid += 1
                    found = pid
                    conn.execute(text("INSERT INTO player (id, owner_id, name, name_key, created_at) VALUES "
                                      "(:id, :o, :n, :k, '2026-11-01 10:00:00')"),
                                 {"id": pid, "o": owner, "n": name, "k": key})
                conn.execute(text("INSERT INTO game_player (game_id, player_id, seat) VALUES (:g, :p, :s)"),
                             {"g": gid, "p": found, "s": seat})
        if engine.dialect.name == "postgresql":
            for table in ("user", "game", "player", "entry", "game_player"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                                  f"(SELECT MAX(id) FROM \"{table}\"))"))
    engine.dispose()


def test_groups_migration_keeps_every_game_player_and_url(old_database, tmp_path):
    url = old_database
    _fill_at_0003(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    engine = app.extensions["scorekeeper.engine"]
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM entry")).scalar() == 6
        assert conn.execute(text("SELECT count(*) FROM game_player")).scalar() == 9
        assert conn.execute(text('SELECT id, name, timezone FROM "group" ORDER BY id')).all() == [
            (1, "ann", "Europe/Berlin"), (2, "bob", "UTC")]
        assert conn.execute(text("SELECT group_id, user_id, role FROM membership ORDER BY id")).all() == [
            (1, 1, "owner"), (2, 2, "owner")]
        assert conn.execute(text("SELECT id, group_id FROM game ORDER BY id")).all() == [(1, 1), (2, 1), (3, 2)]
        assert conn.execute(text("SELECT count(*) FROM player WHERE group_id = 1")).scalar() == 5
    ann = app.test_client()
    assert Auth(ann).login("ann").status_code == 303
    for path in ("/games/1", "/games/2", "/games/1/summary", "/games/1/log", "/players", "/players/1"):
        assert ann.get(path).status_code == 200, path
    assert ann.get("/games/3").status_code == 404  # bob's
    page = ann.get("/settings").data.decode()
    assert "Europe/Berlin" in page
    # A new group made after the upgrade does not collide with the ids the migration gave.
    assert ann.post("/groups/new", data={"name": "Work"}).status_code == 303
    bob = app.test_client()
    Auth(bob).register("cid")
    assert bob.get("/history").status_code == 200
    engine.dispose()


def test_accounts_named_alike_whatever_the_case_do_not_stop_the_upgrade(old_database, tmp_path, caplog):
    """A database holding "Ann" and "ann" (made before names were unique whatever the case):
    the upgrade renames the younger account with a note in the log, and the app starts."""
    from werkzeug.security import generate_password_hash

    url = old_database
    migrate(url, "0002")
    engine = create_engine(url)
    pw = generate_password_hash("correct horse")
    with engine.begin() as conn:
        for uid, name in ((1, "Ann"), (2, "ann"), (3, "ann-2"), (4, "ANN")):
            conn.execute(text('INSERT INTO "user" (id, username, password_hash, created_at, timezone) '
                              "VALUES (:id, :n, :pw, '2026-11-01 10:00:00', 'UTC')"), {"id": uid, "n": name, "pw": pw})
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(pg_get_serial_sequence('\"user\"', 'id'), 4)"))
    engine.dispose()
    with caplog.at_level("WARNING"):
        app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    engine = app.extensions["scorekeeper.engine"]
    with engine.connect() as conn:
        names = [n for (n,) in conn.execute(text('SELECT username FROM "user" ORDER BY id'))]
    assert names[0] == "Ann" and len({n.lower() for n in names}) == 4
    assert names[1] == "ann-2-2" and names[3] == "ANN-4"  # "ann-2" was taken by account 3
    assert "renamed to 'ann-2-2'" in caplog.text
    client = app.test_client()
    assert Auth(client).login("ann-2-2").status_code == 303
    engine.dispose()


def test_a_new_database_migrates_without_warnings_and_keeps_the_name_index(tmp_path):
    """Starting the app on a new SQLite file prints nothing: SQLAlchemy's warning that batch
    reflection skipped the ``lower(username)`` index is not shown (migrations/env.py), as every
    migration that rebuilds ``user`` makes that index again, checked here at the head."""
    import warnings

    from sqlalchemy import inspect

    url = "sqlite:///" + str(tmp_path / "new.sqlite3")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        migrate(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        indexes = {n for (n,) in conn.execute(text("SELECT name FROM sqlite_master WHERE tbl_name = 'user'"))}
    assert "uq_user_username_lower" in indexes
    assert inspect(engine).get_table_names()  # the tables are there
    engine.dispose()


def test_player_ids_migration_keeps_the_players_and_is_never_reused(old_database, tmp_path):
    """Migration 0020 rebuilds SQLite's ``player`` with AUTOINCREMENT: every row, id and seat link
    kept; an id freed after it is not given again. (PostgreSQL's sequences never give an id twice.)"""
    if PG_URL:
        pytest.skip("SQLite's own table rebuild")
    url = old_database
    _fill_at_0003(url)
    migrate(url, "mia_trail")
    engine = create_engine(url)
    with engine.connect() as conn:
        before = conn.execute(text("SELECT id, group_id, name, name_key FROM player ORDER BY id")).all()
        seats = conn.execute(text("SELECT game_id, seat, player_id FROM game_player ORDER BY id")).all()
    assert before and seats
    migrate(url)
    with engine.begin() as conn:
        assert conn.execute(text("SELECT id, group_id, name, name_key FROM player ORDER BY id")).all() == before
        assert conn.execute(text("SELECT game_id, seat, player_id FROM game_player ORDER BY id")).all() == seats
        assert "AUTOINCREMENT" in conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'player'")).scalar()
        top, group = before[-1][0], before[-1][1]
        conn.execute(text("INSERT INTO player (group_id, name, name_key, created_at) "
                          "VALUES (:g, 'Quentin', 'quentin', '2026-12-02 00:00:00')"), {"g": group})
        conn.execute(text("DELETE FROM player WHERE name = 'Quentin'"))
        conn.execute(text("INSERT INTO player (group_id, name, name_key, created_at) "
                          "VALUES (:g, 'Quirin', 'quirin', '2026-12-02 00:00:00')"), {"g": group})
        assert conn.execute(text("SELECT id FROM player WHERE name = 'Quirin'")).scalar() == top + 2
    from alembic import command

    from scorekeeper.db import alembic_config

    command.downgrade(alembic_config(url), "mia_trail")  # and down again
    with engine.connect() as conn:
        assert "AUTOINCREMENT" not in conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'player'")).scalar()
    engine.dispose()


def test_score_bigint_migration_keeps_the_figures_and_holds_scores_past_32_bits(old_database):
    """Migration 0021 makes ``game_figures.score`` 64 bits (a Mice and Men score of nine-digit
    penalties passed 2**31 and PostgreSQL refused it): every figures row is kept, a score past
    32 bits is stored and read back, and going down makes it 32 bits again."""
    url = old_database
    _fill_at_0003(url)
    migrate(url, "player_ids")
    engine = create_engine(url)
    query = text("SELECT game_id, seat, score, won, pots FROM game_figures ORDER BY game_id, seat")
    with engine.connect() as conn:
        before = conn.execute(query).all()
    assert before
    migrate(url)
    big = 3 * 999_999_999
    with engine.begin() as conn:
        assert conn.execute(query).all() == before
        game, seat = before[0][:2]
        conn.execute(text("UPDATE game_figures SET score = :s WHERE game_id = :g AND seat = :t"),
                     {"s": big, "g": game, "t": seat})
        assert conn.execute(text("SELECT score FROM game_figures WHERE game_id = :g AND seat = :t"),
                            {"g": game, "t": seat}).scalar() == big
        conn.execute(text("UPDATE game_figures SET score = :s WHERE game_id = :g AND seat = :t"),
                     {"s": before[0][2], "g": game, "t": seat})
    from alembic import command

    from scorekeeper.db import alembic_config

    command.downgrade(alembic_config(url), "player_ids")
    with engine.connect() as conn:
        assert conn.execute(query).all() == before
    engine.dispose()


def test_the_app_started_on_a_new_file_makes_its_tables_and_takes_an_account(tmp_path):
    """The app migrates its database as it starts (the README's first command, on a new
    instance folder). The other tests start on a copy of a file migrated once (conftest.py)."""
    path = tmp_path / "new.sqlite3"
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{path}", "SECRET_KEY": "test-secret",
                      "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    r = client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse"})
    assert r.status_code == 303
    assert client.get("/").status_code == 200
    app.extensions["scorekeeper.engine"].dispose()


def test_processes_started_together_migrate_a_new_database_one_at_a_time(old_database):
    """Each gunicorn worker migrates as the app starts (``create_app``), and so does each instance
    of a server started at once: on a new PostgreSQL database two workers made one table, and one
    failed to boot (``UniqueViolation``; a playtest, 2 runs in 4). Four processes released at one
    moment all start, and the database is at the head once (migrations/env.py: one at a time)."""
    import subprocess
    import sys
    import time

    from alembic.script import ScriptDirectory

    from scorekeeper.db import alembic_config

    code = ("import sys, time; from scorekeeper.db import migrate; "
            "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); migrate(sys.argv[1])")
    start_at = str(time.time() + 4)  # every process imported by then: their migrations overlap
    procs = [subprocess.Popen([sys.executable, "-c", code, old_database, start_at], stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    assert [rc for rc, _ in results] == [0] * 4, [err[-600:] for _, err in results]
    head = ScriptDirectory.from_config(alembic_config(old_database)).get_current_head()
    engine = create_engine(old_database)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head]
    engine.dispose()
