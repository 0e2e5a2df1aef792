"""Many tables entering at once on long games, against a real server: gunicorn (with the
settings of ``scorekeeper serve``: ``scorekeeper.gunicorn_conf``) on a real SQLite file (or the test PostgreSQL).

Each entry decides on the stored snapshot first and holds the database's write lock only
for its short write transaction, so 50 tables on 1,000-entry games all land, and never a
5xx ("database is locked" was a 500 when the lock was held while the log was replayed);
phones racing on one game get one success and "game changed" for the rest.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

from scorekeeper import create_app
from scorekeeper.db import get_session, migrate

from .conftest import PG_URL, _empty_postgres
from .test_instances import Browser, free_port

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from tables import AGENT, PLAYERS, TURNS  # noqa: E402

TABLES, LENGTH, EACH = 50, 1000, 6


@pytest.fixture
def server(tmp_path):
    url = PG_URL or f"sqlite:///{tmp_path}/tables.sqlite3"
    migrate(url)
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "many-tables", "RATELIMIT_STORAGE_URI": "memory://"}
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf",
         "-b", f"127.0.0.1:{port}", "scorekeeper:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                Browser().get(base + "/login")
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not start")
        yield url, base, port
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        if PG_URL:
            _empty_postgres(PG_URL)
    assert b"database is locked" not in err, err.decode()[-2000:]


def store_games(url: str, count: int) -> list[int]:
    """``count`` Mitchi games of :data:`LENGTH` entries in the account's group."""
    from sqlmodel import select

    from scorekeeper.models import Membership
    from scorekeeper.services import games as service

    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "many-tables", "MIGRATE_ON_START": False})
    log = [{"type": "start", "player": "Ann"}] + [
        {"type": "turn", "player": p, "hand": list(h), "rolls": 1} for p, h in TURNS[:LENGTH - 1]]
    with app.app_context():
        session = get_session()
        group = session.exec(select(Membership)).first().group_id
        ids = [service.create_game(session, group, "mitchi", PLAYERS, {"point_limit": 1000}, log).id
               for _ in range(count)]
        session.commit()
    app.extensions["scorekeeper.engine"].dispose()
    return ids


class Table:
    """One phone: one keep-alive connection, the account's cookie, the htmx entry form."""

    def __init__(self, port: int, cookie: str, token: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Cookie": cookie, "User-Agent": AGENT, "X-CSRFToken": token, "HX-Request": "true",
                        "Content-Type": "application/x-www-form-urlencoded"}

    def enter(self, game: int, version: int, turn: int) -> int:
        player, hand = TURNS[turn]
        body = urllib.parse.urlencode({"version": str(version), "type": "turn", "player": player,
                                       "hand.0": str(hand[0]), "hand.1": str(hand[1]), "rolls": "1"})
        self.conn.request("POST", f"/games/{game}/entries", body, self.headers)
        r = self.conn.getresponse()
        r.read()
        return r.status


def test_fifty_tables_on_long_games_all_land_and_a_race_has_one_winner(server):
    url, base, port = server
    phone = Browser()
    phone.opener.addheaders = [("User-Agent", AGENT)]
    token = phone.token(base + "/register")
    assert phone.post(base + "/register", {"csrf_token": token, "username": "ann", "password": "correct horse",
                                           "confirm": "correct horse"})[0] == 303
    games = store_games(url, TABLES + 1)
    jar = next(h.cookiejar for h in phone.opener.handlers if hasattr(h, "cookiejar"))
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    page = phone.get(f"{base}/games/{games[0]}")[1]
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)

    codes: dict[int, list[int]] = {}
    barrier = threading.Barrier(TABLES)

    def table(game: int):
        t = Table(port, cookie, token)
        barrier.wait()
        codes[game] = [t.enter(game, v, LENGTH - 1 + v) for v in range(EACH)]

    threads = [threading.Thread(target=table, args=(g,)) for g in games[:TABLES]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wrong = {g: c for g, c in codes.items() if c != [200] * EACH}
    assert len(codes) == TABLES and not wrong, wrong

    # Several phones send the next entry of one game at once: one lands, the rest hear
    # "game changed" (409), whichever worker and thread each reached.
    shared = games[TABLES]
    for version in range(3):
        results: list[int] = []
        start = threading.Barrier(6)

        def phone_sends():
            t = Table(port, cookie, token)
            start.wait()
            results.append(t.enter(shared, version, LENGTH - 1 + version))

        racers = [threading.Thread(target=phone_sends) for _ in range(6)]
        for t in racers:
            t.start()
        for t in racers:
            t.join()
        assert sorted(results) == [200] + [409] * 5, results
