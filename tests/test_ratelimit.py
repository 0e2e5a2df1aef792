"""The rate-limit store in the app's database (the default): one count for every worker."""

from __future__ import annotations

import threading
import time

import pytest

from scorekeeper.ratelimit import DatabaseStorage
from scorekeeper.web import limiter, skip_unlimited_requests


def test_database_store_counts_windows_and_concurrent_hits(app, database_url):
    store = DatabaseStorage("database://", url=database_url)
    other = DatabaseStorage("database://", url=database_url)  # another worker
    assert store.check()
    assert [store.incr("k", 60), other.incr("k", 60), store.incr("k", 60, amount=2)] == [1, 2, 4]
    assert other.get("k") == 4 and 55 < store.get_expiry("k") - time.time() <= 60
    store.incr("short", 1)
    time.sleep(1.1)
    assert store.get("short") == 0 and store.incr("short", 1) == 1  # a new window
    threads = [threading.Thread(target=lambda s=s: [s.incr("busy", 60) for _ in range(10)])
               for s in (store, other) * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("busy") == 60
    store.clear("k")
    assert store.get("k") == 0
    assert store.reset() == 2 and store.get("busy") == 0
    store.engine.dispose()
    other.engine.dispose()


def test_login_limit_counts_in_the_database(make_app):
    app = make_app(RATELIMIT_ENABLED=True)
    client = app.test_client()
    codes = [client.post("/login", data={"username": "ann", "password": "wrong password"}).status_code
             for _ in range(11)]
    assert codes[:10].count(429) == 0 and codes[10] == 429
    assert app.config["RATELIMIT_STORAGE_URI"] == "database://"
    app.extensions["scorekeeper.engine"].dispose()


def test_with_its_shared_store_down_the_login_still_answers_and_counts_in_the_worker(make_app, caplog,
                                                                                      monkeypatch):
    """Several instances share their counts in Redis (README); with that Redis down nobody could
    log in or register: a 500, "Something went wrong" (a playtest). flask-limiter's in-memory
    fallback counts in the worker until the store is back, and says so in the log."""
    import socket

    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()  # nothing listens there
    # flask-limiter adds each app's storage options to its one Limiter's: the database store's
    # "url" of the apps made before in this process would go to Redis (one app a process serves).
    monkeypatch.setattr(limiter, "_storage_options", {})
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{port}/0")
    client = app.test_client()
    codes = [client.post("/login", data={"username": "ann", "password": "wrong password"}).status_code
             for _ in range(11)]
    assert codes[:10] == [400] * 10 and codes[10] == 429, codes
    assert "falling back to in-memory storage" in caplog.text
    register = client.post("/register", data={"username": "ben", "password": "correct horse",
                                              "confirm": "correct horse"})
    assert register.status_code == 303, register.status_code
    app.extensions["scorekeeper.engine"].dispose()


def test_only_the_limited_routes_run_the_limiter(make_app, monkeypatch):
    """flask-limiter's check before every request is taken off (web.skip_unlimited_requests):
    a page or an entry runs no limiter code; the login's own limit still counts (above)."""
    app = make_app(RATELIMIT_ENABLED=True)
    calls = []
    identify = limiter.identify_request  # the first thing flask-limiter's every check does
    monkeypatch.setattr(limiter, "identify_request", lambda: calls.append(1) or identify())
    client = app.test_client()
    assert client.get("/games/1").status_code == 302 and calls == []  # to the login page
    client.post("/login", data={"username": "ann", "password": "wrong password"})
    assert calls  # the route's own check
    # Should flask-limiter register its check elsewhere (an upgrade), the app says so at start.
    with pytest.raises(RuntimeError, match="not where it was"):
        skip_unlimited_requests(app)  # already taken off
    app.extensions["scorekeeper.engine"].dispose()


def test_a_limit_for_every_route_keeps_the_check(make_app):
    """A default limit needs the check before every request: the app refuses to start without it."""
    try:
        with pytest.raises(RuntimeError, match="default, application or blueprint"):
            make_app(RATELIMIT_ENABLED=True, RATELIMIT_DEFAULT="100 per day")
    finally:
        limiter.limit_manager.set_default_limits([])



SERVE = """
import sys
from werkzeug.serving import make_server
from scorekeeper import create_app
app = create_app({"DATABASE_URL": sys.argv[1], "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                  "RATELIMIT_ENABLED": True, "MIGRATE_ON_START": False})
make_server("127.0.0.1", int(sys.argv[2]), app).serve_forever()
"""


def test_the_login_limit_counts_tries_made_on_two_worker_processes(make_app, database_url, tmp_path):
    """Two server processes on one database (two workers, or two machines) share one count:
    ten wrong tries spread over both, and the eleventh is refused."""
    import socket
    import subprocess
    import sys
    import urllib.error
    import urllib.parse
    import urllib.request

    make_app().extensions["scorekeeper.engine"].dispose()  # the database at head
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    ports, procs = [], []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    try:
        for port in ports:
            procs.append(subprocess.Popen([sys.executable, str(script), database_url, str(port)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in ports:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "a server did not start"
                    time.sleep(0.1)

        def try_login(port: int) -> int:
            data = urllib.parse.urlencode({"username": "ann", "password": "wrong password"}).encode()
            try:
                return urllib.request.urlopen(f"http://127.0.0.1:{port}/login", data=data, timeout=10).status
            except urllib.error.HTTPError as err:
                return err.code

        codes = [try_login(ports[i % 2]) for i in range(11)]
        assert 429 not in codes[:10] and codes[10] == 429, codes
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)
