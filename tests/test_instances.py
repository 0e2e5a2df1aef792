"""Several app instances on one database behave as one: the log, the version claim and
the login rate limit are shared (nothing lives only in a worker's memory).

Two gunicorn servers (2 workers each) are started on one database: PostgreSQL and
Redis when ``TEST_DATABASE_URL`` and ``TEST_REDIS_URL`` are set (``tests/run.sh``
starts both), else a SQLite file with the limits counted in the database.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from scorekeeper.db import migrate

from .conftest import PG_URL, _empty_postgres

REDIS_URL = os.environ.get("TEST_REDIS_URL")
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Browser:
    """One phone: its own cookies, talking to whichever instance it is told."""

    def __init__(self):
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect())

    def get(self, url: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(url))

    def post(self, url: str, data: dict, htmx: bool = False) -> tuple[int, str]:
        headers = {"HX-Request": "true"} if htmx else {}
        return self._open(urllib.request.Request(url, urllib.parse.urlencode(data).encode(), headers))

    def _open(self, request) -> tuple[int, str]:
        try:
            with self.opener.open(request, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def token(self, url: str) -> str:
        return re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', self.get(url)[1]).group(1)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.fixture
def instances(tmp_path):
    url = PG_URL or f"sqlite:///{tmp_path}/shared.sqlite3"
    store = REDIS_URL if (PG_URL and REDIS_URL) else "database://"
    if store == REDIS_URL:
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()  # no count left from an earlier run
    migrate(url)
    env = {**os.environ, "DATABASE_URL": url, "RATELIMIT_STORAGE_URI": store, "SECRET_KEY": "two-instances"}
    procs, bases = [], []
    for _ in range(2):
        port = free_port()
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf",
             "-b", f"127.0.0.1:{port}", "scorekeeper:create_app()"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        bases.append(f"http://127.0.0.1:{port}")
    try:
        for base in bases:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/login", timeout=2)
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise AssertionError("an instance did not start")
        yield bases, store
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        if PG_URL:
            _empty_postgres(PG_URL)


def turn(version: int, player: str, hand: tuple[int, int], token: str) -> dict:
    return {"csrf_token": token, "version": str(version), "type": "turn", "player": player,
            "hand.0": str(hand[0]), "hand.1": str(hand[1]), "rolls": "1"}


def test_two_instances_share_log_claim_and_login_limit(instances):
    (a, b), store = instances
    phone = Browser()
    token = phone.token(a + "/register")
    assert phone.post(a + "/register", {"csrf_token": token, "username": "ann", "password": "correct horse",
                                        "confirm": "correct horse"})[0] == 303
    token = phone.token(a + "/games/new/mitchi")
    status, _ = phone.post(a + "/games/new/mitchi", {
        "csrf_token": token, "seats": "3", "starter": "0", "action": "create", "players-0": "Ann",
        "players-1": "Ben", "players-2": "Cat", "opt_point_limit": "100"})
    assert status == 303
    game = re.search(r'href="/games/(\d+)"', phone.get(a + "/")[1]).group(1)
    # Entries sent alternately to both instances land in one log.
    # Two rounds: two doubles, then a 3-1 that takes the pot and starts next.
    plays = [("Ann", (6, 6)), ("Ben", (5, 5)), ("Cat", (3, 1)), ("Cat", (6, 6)), ("Ann", (5, 5)), ("Ben", (3, 1))]
    for v, (player, hand) in enumerate(plays):
        server = (a, b)[v % 2]
        status, html = phone.post(f"{server}/games/{game}/entries", turn(v, player, hand, token), htmx=True)
        assert status == 200, html[:500]
    # A conflicting pair, one to each instance at once: one lands, one hears "game changed".
    results = {}

    def send(server, hand):
        results[server] = phone.post(f"{server}/games/{game}/entries", turn(6, "Ben", hand, token), htmx=True)[0]

    threads = [threading.Thread(target=send, args=(s, h)) for s, h in ((a, (6, 5)), (b, (4, 4)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results.values()) == [200, 409], results
    status, body = phone.get(f"{b}/games/{game}/record.json")
    import json

    record = json.loads(body)
    assert len(record["entries"]) == 1 + 7 and record["entries"][-1]["hand"] in ([6, 5], [4, 4])
    # The login limit (10 a minute) counts the tries made on both instances.
    stranger = Browser()
    codes = []
    for i in range(12):
        server = (a, b)[i % 2]
        tok = stranger.token(server + "/login")
        codes.append(stranger.post(server + "/login", {"csrf_token": tok, "username": "ann",
                                                        "password": "wrong password"})[0])
    assert codes[:10].count(429) == 0 and codes[10:] == [429, 429], (store, codes)
    if store == REDIS_URL:  # the counts are in Redis, not in the database's table
        import redis

        assert redis.Redis.from_url(REDIS_URL).dbsize() > 0
