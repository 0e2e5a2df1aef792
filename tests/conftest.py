"""Shared fixtures: an app on a real database, a client, an auth helper.

The database is a fresh SQLite file per test (a copy of one migrated once per run: the app
still runs its migrations on start, which find it at the head), or, when ``TEST_DATABASE_URL``
is set (``tests/run.sh`` does it), a real PostgreSQL server whose tables are emptied after
each test (a database of its own for each pytest-xdist worker). A new file migrated from
nothing: tests/test_migrations.py.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import OperationalError

from scorekeeper import create_app
from scorekeeper.services import games as _games

# Every state an entry keeps for the game's next entry is checked against its snapshot's bytes
# (services.games.hand_back): a page that changed a state after it was stored fails its test.
_games.CHECK_LEFT = True


def _worker_database(url: str | None) -> str | None:
    """``url`` for this test process: under pytest-xdist (``tests/run.sh`` runs two workers) each
    worker gets a database of its own on that server, named after the worker (``scorekeeper_gw0``),
    which :func:`_worker_database_made` makes; the tables of one are emptied after each of its
    tests, which would empty them under the other's feet."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker:
        return url
    base = make_url(url)
    return base.set(database=f"{base.database}_{worker}").render_as_string(hide_password=False)


PG_URL = _worker_database(os.environ.get("TEST_DATABASE_URL"))


@pytest.fixture(scope="session", autouse=True)
def _worker_database_made():
    """The worker's own PostgreSQL database (:func:`_worker_database`), made anew for the run and
    dropped after it. Nothing to do on SQLite, or without workers."""
    given = os.environ.get("TEST_DATABASE_URL")
    if not PG_URL or PG_URL == given:
        yield
        return
    name = make_url(PG_URL).database
    admin = create_engine(given, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


TABLES = ('export_round, export_state, rate_limit, game_figures, game_snapshot, once_token, invite, membership, game_player, player, entry, '
          'game, "group", "user"')


def _empty_postgres(url: str) -> None:
    """Empty every table. A connection the test left "idle in transaction" would make the
    TRUNCATE wait for ever: after 10 s such connections are ended, the tables emptied, and
    the test fails (in its teardown) instead of hanging the suite."""
    engine = create_engine(url)
    truncate = text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")
    try:
        with engine.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '10s'"))
            conn.execute(truncate)
    except OperationalError:
        with engine.begin() as conn:
            left = conn.execute(text(
                "SELECT pg_terminate_backend(pid), query FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'")).all()
        with engine.begin() as conn:
            conn.execute(truncate)
        failed = f"the test left {len(left)} connection(s) idle in transaction, last queries: " \
                 f"{[q[:120] for _, q in left]}"
    else:
        failed = None
    finally:
        engine.dispose()
    if failed:
        pytest.fail(failed, pytrace=False)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> str:
    """A SQLite file migrated to the head once per run, which each test copies: migrating a
    new file from nothing takes some 0.2 s, on each of some 2,000 tests."""
    from scorekeeper.db import migrate

    path = str(tmp_path_factory.mktemp("migrated") / "head.sqlite3")
    migrate("sqlite:///" + path)
    return path


@pytest.fixture
def database_url(tmp_path, request):
    if PG_URL:
        yield PG_URL
        _empty_postgres(PG_URL)
    else:
        path = tmp_path / "scorekeeper.sqlite3"
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
        yield "sqlite:///" + str(path)


@pytest.fixture
def make_app(tmp_path, database_url):
    """Build an app on the test database; extra config as keyword arguments."""

    def make(**config):
        settings = {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test-secret",
            "WTF_CSRF_ENABLED": False,
            # scrypt as the app's default, with n = 2**10 instead of 2**15: some 3 ms a hash
            # instead of 0.1 s (a run registers thousands of accounts). The default's own
            # test: tests/views/test_auth.py.
            "PASSWORD_HASH_METHOD": "scrypt:1024:8:1",
        }
        settings.update(config)
        app = create_app(settings)
        app.instance_path = str(tmp_path / "instance")
        return app

    return make


@pytest.fixture
def app(make_app):
    app = make_app()
    yield app
    app.extensions["scorekeeper.engine"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


class Auth:
    """Register / log in through the real forms."""

    def __init__(self, client):
        self.client = client

    def register(self, username="ann", password="correct horse"):
        return self.client.post(
            "/register", data={"username": username, "password": password, "confirm": password}
        )

    def login(self, username="ann", password="correct horse"):
        return self.client.post("/login", data={"username": username, "password": password})

    def logout(self):
        return self.client.post("/logout")


@pytest.fixture
def auth(client):
    return Auth(client)


HX = {"HX-Request": "true"}


def new_game(client, name="mitchi", players=("Ann", "Ben", "Cat"), starter="0", **options) -> int:
    """Set up a game through the setup form; return its id."""
    from scorekeeper.rules import find_game

    data = {"seats": str(len(players)), "starter": starter, "action": "create"}
    for i, p in enumerate(players):
        data[f"players-{i}"] = p
    # What the setup page offers preselected, then the test's choices.
    defaults = {o.name.replace("-", "_"): o.default for o in find_game(name).options}
    for key, value in {**defaults, **options}.items():
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                data[f"opt_{key}-{i}"] = str(v)
        elif value is True:
            data[f"opt_{key}"] = "y"
        elif value is not False:
            data[f"opt_{key}"] = str(value)
    r = client.post(f"/games/new/{name}", data=data)
    assert r.status_code == 303, r.data.decode()[:2000]
    return int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))


def version_of(html: bytes | str) -> int:
    """The game version carried by the page's entry forms."""
    if isinstance(html, bytes):
        html = html.decode()
    return int(re.search(r'name="version" value="(\d+)"', html).group(1))


def messages(html: bytes | str) -> list[str]:
    if isinstance(html, bytes):
        html = html.decode()
    return re.findall(r'class="msg [a-z]+"[^>]*>([^<]*)<', html)


def without_entered_by(record: dict) -> dict:
    """A downloaded record without ``entered_by`` (the extra key saying which account entered
    each entry): the record as the format defines it."""
    def plain(entry):
        return {k: v for k, v in entry.items() if k != "entered_by"} if isinstance(entry, dict) else entry

    out = dict(record)
    out["entries"] = [plain(e) for e in record.get("entries", [])]
    if "history" in record:
        out["history"] = [{**h, "entry": plain(h.get("entry"))} for h in record["history"]]
    return out
