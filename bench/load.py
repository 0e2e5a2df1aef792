"""The load benchmark: scorekeeper under gunicorn against a bare Flask endpoint, driven by locust.

Usage: ``.venv/bin/pip install -e '.[bench]'`` once, then
``.venv/bin/python bench/load.py [--seconds 15] [--tables 50] [--backends sqlite,postgres]``.

For each backend (a SQLite file, and a throwaway PostgreSQL server started and
stopped here), the app runs under gunicorn with the settings of ``scorekeeper serve``
(``scorekeeper.gunicorn_conf``: 2 workers), on 127.0.0.1 only, next to a 5-line Flask app
under the same settings. Locust
(headless, bounded in time) runs 50 tables, each recording legal Mitchi turns on
its own game through the real htmx form:

- full speed (closed loop: each table sends its next entry as soon as the last
  one is answered), on short games and on games that start at 1,000 entries;
- table pace (open loop: each table one entry every 5 s, at a moment of the 5 s of its own,
  as independent tables send), on the same two kinds of game.

It prints per backend and phase: entries/s and the ratio to the bare endpoint (at full
speed, the mean of its runs just before and just after the phase, as the machine's speed
drifts), p50/p95/p99 (ms), errors, server CPU per entry (ms: the server processes' CPU time over
the steady part of the phase, divided by the entries stored meanwhile, counted in the
database); then the entry-cost curve:
the median time of an entry on games of 10/100/500/1,000/2,000 entries.

Targets (exit 1 when one is missed): full speed on short games >= 0.25 x the bare
endpoint's entries/s; table pace p99 <= 50 ms; no errors at all; server CPU per
entry <= 4 ms and <= 6 x the bare endpoint's in the same run; an entry on a 2,000-entry
game within 1.5 x one on a 10-entry game.
"""

from __future__ import annotations

import argparse
import csv
import http.cookiejar
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from live_bench import server_cpu  # noqa: E402
from tables import AGENT, TURNS  # noqa: E402


PLAYERS = ["Ann", "Ben", "Cat"]
USER, PASSWORD = "loadbench", "quiet tangerine oboe"
TARGET_RATIO, TARGET_P99, TARGET_CPU, TARGET_CURVE = 0.25, 50.0, 4.0, 1.5
#: The issue's CPU target, said again against the bare endpoint of the same run (4 ms was 6 x its
#: 0.6 ms there): on these shared machines the bare endpoint's CPU moves from 0.5 to 1.1 ms with the hour.
TARGET_CPU_X_BARE = 6.0
BIN = Path(sys.executable).parent


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# --- databases ------------------------------------------------------------------


class Postgres:
    """A throwaway PostgreSQL cluster in a temporary folder (as tests/run.sh starts one)."""

    def __enter__(self) -> str:
        pg = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
        self.pg, self.tmp = pg, tempfile.mkdtemp(prefix="loadpg-")
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.tmp, "postgres")
        port = free_port()
        run = lambda *a: subprocess.run([*self.as_pg, *a], check=True, capture_output=True)  # noqa: E731
        run(str(pg / "initdb"), "-D", f"{self.tmp}/data", "-U", "postgres", "--auth=trust")
        run(str(pg / "pg_ctl"), "-D", f"{self.tmp}/data", "-l", f"{self.tmp}/log", "-w", "-o",
            f"-c listen_addresses=127.0.0.1 -p {port} -k {self.tmp} -c max_connections=200", "start")
        run(str(pg / "psql"), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
            "-c", "CREATE ROLE bench LOGIN PASSWORD 'bench'", "-c", "CREATE DATABASE bench OWNER bench")
        return f"postgresql+psycopg://bench:bench@127.0.0.1:{port}/bench"

    def __exit__(self, *exc):
        subprocess.run([*self.as_pg, str(self.pg / "pg_ctl"), "-D", f"{self.tmp}/data", "-m", "immediate",
                        "stop"], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


def store_games(url: str, tables: int) -> dict[str, list[int]]:
    """The bench account and its games: ``{"short": [...], "long": [...], "curve": {n: id}}``."""
    from sqlmodel import select

    from scorekeeper import create_app
    from scorekeeper.db import get_session
    from scorekeeper.models import Membership, User
    from scorekeeper.services import games as service

    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "load", "TESTING": True, "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    client.post("/register", data={"username": USER, "password": PASSWORD, "confirm": PASSWORD})
    start = {"type": "start", "player": "Ann"}

    def entries(n: int) -> list[dict]:
        return [start] + [{"type": "turn", "player": p, "hand": list(h), "rolls": 1} for p, h in TURNS[:n - 1]]

    out: dict = {"short": [], "long": [], "curve": {}}
    with app.app_context():
        session = get_session()
        user = session.exec(select(User).where(User.username == USER)).one().id
        owner = session.exec(select(Membership).where(Membership.user_id == user)).first().group_id
        for kind, n in (("short", 1), ("long", 1000)):
            for _ in range(tables):
                out[kind].append(service.create_game(session, owner, "mitchi", PLAYERS,
                                                     {"point_limit": 1000}, entries(n)).id)
            session.commit()
        for n in (10, 100, 500, 1000, 2000):
            out["curve"][n] = service.create_game(session, owner, "mitchi", PLAYERS, {"point_limit": 1000},
                                                  entries(n)).id
        session.commit()
    app.extensions["scorekeeper.engine"].dispose()
    return out


# --- servers ------------------------------------------------------------------------


class Server:
    """gunicorn with the settings of ``scorekeeper serve`` (:mod:`scorekeeper.gunicorn_conf`), on
    127.0.0.1."""

    def __init__(self, app: str, env: dict):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", "python:scorekeeper.gunicorn_conf", "-b", f"127.0.0.1:{self.port}", app],
            cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(self.base + "/games/1", timeout=2)
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{app} did not start")

    def cpu(self) -> float:
        """CPU seconds used so far by the master and its workers."""
        return server_cpu(self.proc)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def login_cookie(base: str) -> str:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("User-Agent", AGENT)]
    page = opener.open(base + "/login").read().decode()
    token = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', page).group(1)
    opener.open(base + "/login", urllib.parse.urlencode(
        {"csrf_token": token, "username": USER, "password": PASSWORD}).encode())
    return "; ".join(f"{c.name}={c.value}" for c in jar)


# --- locust ---------------------------------------------------------------------------


def entry_count(url: str):
    """A function that counts the entries stored in the database at ``url`` (read from here, so
    its cost is not the server's)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)

    def count() -> int:
        with engine.connect() as conn:
            return conn.execute(text("SELECT count(*) FROM entry")).scalar_one()

    return count


def run_locust(server: Server, games: list[int], offset: int, pace: float, tables: int, seconds: int,
               cookie: str = "", stored=None) -> dict:
    """One locust run: ``{"rps", "p50", "p95", "p99", "errors", "count", "cpu", "failures"}``.

    ``cpu`` is the server's CPU ms per entry over the run's steady part (from 2 s after the last
    table started, when every table has loaded its page): the entries stored meanwhile are
    counted in the database by ``stored()`` (or, for the bare endpoint, taken from locust)."""
    out = tempfile.mkdtemp(prefix="locust-")
    env = {**os.environ, "LOAD_GAMES": json.dumps(games), "LOAD_OFFSET": str(offset), "LOAD_PACE": str(pace),
           "LOAD_COOKIE": cookie}
    # At table pace each table keeps its own moment in the pace (locustfile.py). The server's
    # CPU counts from the moment every table has sent its first entry; locust's figures from
    # the moment every table was started (--reset-stats).
    ramp = pace + 2.0 if pace else 0.0
    proc = subprocess.Popen([str(BIN / "locust"), "-f", str(ROOT / "bench" / os.environ.get("LOCUSTFILE", "locustfile.py")), "--headless",
                             "-u", str(tables), "-r", str(tables), "-t", f"{seconds + ramp:g}s", "--host",
                             server.base, "--csv", f"{out}/run", "--only-summary", "--loglevel", "ERROR",
                             "--stop-timeout", "5", "--reset-stats"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(ramp + 3.0 if stored else 0.5)  # locust starting, the tables loading their page and starting
    before, first = server.cpu(), stored() if stored else 0
    proc.wait(timeout=seconds + ramp + 120)
    cpu, last = server.cpu() - before, stored() if stored else None
    with open(f"{out}/run_stats.csv") as f:
        rows = {r["Name"]: r for r in csv.DictReader(f)}
    failures = []
    if os.path.exists(f"{out}/run_failures.csv"):
        with open(f"{out}/run_failures.csv") as f:
            failures = [f"{r['Name']}: {r['Error']} x {r['Occurrences']}" for r in csv.DictReader(f)]
    shutil.rmtree(out, ignore_errors=True)
    r = rows.get("entry")
    if r is None:
        return {"rps": 0.0, "p50": 0, "p95": 0, "p99": 0, "errors": 1, "count": 0, "cpu": float("nan"),
                "failures": failures or ["no entry was sent"]}
    count, errors = int(r["Request Count"]), int(r["Failure Count"])
    page = rows.get("page", {})
    return {"rps": float(r["Requests/s"]), "p50": float(r["50%"]), "p95": float(r["95%"]),
            "p99": float(r["99%"]), "errors": errors + int(page.get("Failure Count", 0) or 0), "count": count,
            "cpu": cpu * 1000 / max((last - first) if stored else count - errors, 1), "failures": failures}


def curve(server: Server, cookie: str, games: dict[int, int], samples: int = 400, passes: int = 5,
          warm: int = 5) -> dict[int, tuple[float, float]]:
    """``{n: (server CPU ms, median wall ms)}`` of one entry on a game of n entries: ``samples``
    entries per game, sent one after the other on one keep-alive connection per game, after
    ``warm`` left out. The games take turns: ``passes`` rounds, each sending every game its
    share in turn, so that the machine's speed, which drifts by a fifth within minutes on these
    shared machines, weighs on every point alike (one game after the other made a drift look
    like a cost that grows with the game's length). CPU time is what the server's processes
    used meanwhile (:func:`live_bench.server_cpu`, to the nanosecond): it holds on a shared
    machine, where wall time does not."""
    import http.client

    conns, headers, tokens, sent = {}, {}, {}, {}
    for n, game in games.items():
        conn = conns[n] = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        h = {"Cookie": cookie, "User-Agent": AGENT}
        conn.request("GET", f"/games/{game}", headers=h)
        token = re.search(r'"X-CSRFToken": "([^"]+)"', conn.getresponse().read().decode()).group(1)
        tokens[n] = token
        headers[n] = h | {"X-CSRFToken": token, "HX-Request": "true", "HX-Target": "panel",
                          "HX-Current-URL": f"http://127.0.0.1:{server.port}/games/{game}",
                          "Content-Type": "application/x-www-form-urlencoded"}
        sent[n] = 0

    def send(n: int, count: int, times: list | None) -> None:
        for _ in range(count):
            k = sent[n]
            player, hand = TURNS[n - 1 + k]
            data = urllib.parse.urlencode({"csrf_token": tokens[n], "version": str(k), "type": "turn", "player": player,
                                           "hand.0": str(hand[0]), "hand.1": str(hand[1]), "rolls": "1"})
            t = time.perf_counter()
            conns[n].request("POST", f"/games/{games[n]}/entries", data, headers[n])
            r = conns[n].getresponse()
            r.read()
            wall = (time.perf_counter() - t) * 1000
            if r.status != 200:
                raise RuntimeError(f"an entry on the {n}-entry game got HTTP {r.status}")
            sent[n] = k + 1
            if times is not None:
                times.append(wall)

    cpu = dict.fromkeys(games, 0.0)
    times: dict[int, list] = {n: [] for n in games}
    for n in games:
        send(n, warm, None)
    for p in range(passes):
        for n in games:
            share = samples // passes + (1 if p < samples % passes else 0)
            before = server.cpu()
            send(n, share, times[n])
            cpu[n] += server.cpu() - before
    for conn in conns.values():
        conn.close()
    return {n: (cpu[n] * 1000 / samples, statistics.median(times[n])) for n in games}


def run_bare(bare_server: Server, pace: float, args, show: bool = True) -> dict:
    """One locust run on the bare endpoint (:func:`run_locust`'s figures), its line printed
    (with ``show``; else by :func:`show_bare`)."""
    r = run_locust(bare_server, list(range(1, args.tables + 1)), 0, pace, args.tables, args.seconds)
    if show:
        show_bare(r, pace)
    return r


def show_bare(r: dict, pace: float) -> None:
    print(f"bare     {'full speed' if not pace else 'table pace'}:             {r['rps']:7.1f} "
          f"entries/s  p50 {r['p50']:5.0f} p99 {r['p99']:5.0f} ms  CPU {r['cpu']:5.2f} ms/entry", flush=True)


def between(a: dict, b: dict) -> dict:
    """The bare endpoint's figures for a phase run between its runs ``a`` and ``b``: their means."""
    return {key: (a[key] + b[key]) / 2 for key in ("rps", "cpu")}


def bench_backend(name: str, url: str, bare_server: Server, bare: dict, args) -> list[str]:
    """Run every phase on one backend; print its figures; return the targets it missed.

    Each full-speed phase runs between two of the bare endpoint's (``bare[0.0]`` the one before
    the first) and is compared with their mean: the speed of these shared machines drifts by a
    fifth within minutes, and a bare run some minutes earlier made the ratio move with the drift.
    The table-pace phases are compared with ``bare[5.0]``."""
    from scorekeeper.db import migrate

    migrate(url)
    games = store_games(url, args.tables)
    server = Server("scorekeeper:create_app()", {"DATABASE_URL": url, "SECRET_KEY": "load"})
    missed = []
    stored = entry_count(url)
    try:
        cookie = login_cookie(server.base)
        for phase, pace in (("full speed", 0.0), ("table pace", 5.0)):
            for kind, offset in (("short", 0), ("long", 999)):
                # A fresh set of games per phase: each table starts where the kind starts.
                if phase == "table pace":
                    games = store_games(url, args.tables) | {"curve": games["curve"]}
                r = run_locust(server, games[kind], offset, pace, args.tables, args.seconds, cookie, stored)
                if pace:
                    near = bare[pace]
                else:  # the bare endpoint again, right after: this phase is compared with the two around it
                    after = run_bare(bare_server, pace, args, show=False)  # printed after this phase's line
                    near, bare[pace] = between(bare[pace], after), after
                ratio = r["rps"] / near["rps"] if near["rps"] else 0.0
                times_bare = r["cpu"] / near["cpu"] if near["cpu"] else float("inf")
                print(f"{name:8s} {phase:10s} {kind:5s} games: {r['rps']:7.1f} entries/s ({ratio:4.2f} x bare) "
                      f"p50 {r['p50']:5.0f} p95 {r['p95']:5.0f} p99 {r['p99']:5.0f} ms  errors {r['errors']}  "
                      f"CPU {r['cpu']:5.1f} ms/entry ({times_bare:.1f} x bare's)", flush=True)
                if not pace:
                    show_bare(bare[pace], pace)
                if r["errors"]:
                    missed.append(f"{name} {phase} {kind}: {r['errors']} errors ({'; '.join(r['failures'])})")
                if phase == "full speed" and kind == "short" and ratio < TARGET_RATIO:
                    missed.append(f"{name} full speed: {ratio:.2f} x bare < {TARGET_RATIO}")
                if phase == "table pace" and r["p99"] > TARGET_P99:
                    missed.append(f"{name} table pace {kind}: p99 {r['p99']:.0f} ms > {TARGET_P99:.0f}")
                if phase == "full speed" and r["cpu"] > TARGET_CPU:
                    missed.append(f"{name} {kind}: CPU {r['cpu']:.1f} ms/entry > {TARGET_CPU}")
                if phase == "full speed" and times_bare > TARGET_CPU_X_BARE:
                    missed.append(f"{name} {kind}: CPU {times_bare:.1f} x the bare endpoint's > {TARGET_CPU_X_BARE:g} x")
        costs = curve(server, cookie, games["curve"])
        ratio = costs[2000][0] / costs[10][0]
        print(f"{name:8s} entry cost by game length (server CPU ms / median wall ms): "
              + ", ".join(f"{n}: {cpu:.2f} / {wall:.1f}" for n, (cpu, wall) in costs.items())
              + f"  (CPU 2000/10: {ratio:.2f} x)", flush=True)
        if ratio > TARGET_CURVE:
            missed.append(f"{name}: an entry at 2,000 costs {ratio:.2f} x one at 10 (server CPU)")
        if max(cpu for cpu, _ in costs.values()) > TARGET_CPU:
            missed.append(f"{name}: one entry at a time costs up to "
                          f"{max(cpu for cpu, _ in costs.values()):.2f} ms server CPU > {TARGET_CPU}")
    finally:
        server.stop()
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=15, help="length of each locust phase (default 15)")
    parser.add_argument("--tables", type=int, default=50, help="simulated tables (default 50)")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite, postgres or both")
    args = parser.parse_args()
    bare_server = Server("bench.bare_app:app", {})  # idle (no CPU) while the app runs
    missed = []
    try:
        bare = {5.0: run_bare(bare_server, 5.0, args)}
        for name in args.backends.split(","):
            bare[0.0] = run_bare(bare_server, 0.0, args)
            if name == "sqlite":
                tmp = tempfile.mkdtemp(prefix="load-")
                missed += bench_backend("sqlite", f"sqlite:///{tmp}/load.sqlite3", bare_server, bare, args)
                shutil.rmtree(tmp, ignore_errors=True)
            elif name == "postgres":
                with Postgres() as url:
                    missed += bench_backend("postgres", url, bare_server, bare, args)
    finally:
        bare_server.stop()
    if missed:
        print("missed:\n  " + "\n  ".join(missed))
        return 1
    print("every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
