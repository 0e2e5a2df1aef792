"""The past-games pages on a big account: 1,000 finished full-length games (~229 entries each).

Usage: ``.venv/bin/python bench/history_bench.py [DATABASE_URL]`` (default: a
temporary SQLite file; give an empty PostgreSQL database's URL to bench that).

It stores the games (committed), then starts a fresh process, as after a
restart, and measures there: the first request of the players page and of a
player's page (targets: 100 ms each), how much the process grows for them
(target: 20 MB), the export zip (target: 2 s), and, for information, a
500-round game's summary and chart and the games list. Prints one line per
figure and exits 1 when a target is missed.

Times are the measuring process's CPU time (the app and its test client run in it;
the machine is shared, so wall time swings with the neighbours' load): the target
is judged on it, the wall time is printed beside it. On PostgreSQL the database
server's own CPU time is not in the figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PLAYERS = ["Ann", "Ben", "Cat"]
GAMES = 1000
POINT_LIMIT = 30  # the pattern below ends a game after 229 entries
TARGETS = {"players": 100.0, "player": 100.0, "growth": 20.0, "export": 2000.0}
USER, PASSWORD = "bench", "tulip carriage 9"


def mitchi_entries(rounds: int) -> list[dict]:
    """A Mitchi log of ``rounds`` rounds: two doubles, then a 3-1 that takes the pot and starts next."""
    entries = [{"type": "start", "player": "Ann"}]
    starter = 0
    for n in range(rounds):
        order = [PLAYERS[(starter + i) % 3] for i in range(3)]
        entries.append({"type": "turn", "player": order[0], "hand": [6, 6], "rolls": 1})
        entries.append({"type": "turn", "player": order[1], "hand": [2, 1] if n % 7 == 0 else [5, 5], "rolls": 1})
        entries.append({"type": "turn", "player": order[2], "hand": [3, 1], "rolls": 1})
        starter = (starter + 2) % 3
    return entries


def full_game() -> list[dict]:
    """The entries of one finished game at :data:`POINT_LIMIT` (the log stops where the game ends)."""
    from scorekeeper.rules import record as records

    state = records.new_state(records.load_header(
        records.make_record("mitchi", PLAYERS, {"point_limit": POINT_LIMIT}, [])))
    out = []
    for entry in mitchi_entries(400):
        state.apply(entry)
        out.append(entry)
        if state.finished:
            return out
    raise AssertionError("the pattern never ends a game")


def make_app(url: str, migrate: bool = True):
    from scorekeeper import create_app

    return create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                       "MIGRATE_ON_START": migrate})


def setup(url: str) -> dict:
    """Store the account's games, committed; return the ids the measures need."""
    from sqlmodel import select

    from scorekeeper.db import get_session
    from scorekeeper.models import Membership, Player, User
    from scorekeeper.services import games as service
    from scorekeeper.services import history as hist

    app = make_app(url)
    client = app.test_client()
    client.post("/register", data={"username": USER, "password": PASSWORD, "confirm": PASSWORD})
    entries = full_game()
    t = time.perf_counter()
    with app.app_context():
        session = get_session()
        user = session.exec(select(User).where(User.username == USER)).one().id
        owner = session.exec(select(Membership).where(Membership.user_id == user)).first().group_id
        big = service.create_game(session, owner, "mitchi", PLAYERS, {"point_limit": 1000}, mitchi_entries(500))
        hist.link_players(session, owner, big)
        session.commit()
        ids = {"big": big.id}
        for i in range(GAMES):
            g = service.create_game(session, owner, "mitchi", PLAYERS, {"point_limit": POINT_LIMIT}, entries)
            hist.link_players(session, owner, g)
            if i % 50 == 49:
                session.commit()
        session.commit()
        ids["player"] = session.exec(select(Player).where(Player.group_id == owner, Player.name == "Ben")).one().id
    app.extensions["scorekeeper.engine"].dispose()
    print(f"setup: {GAMES + 1:,} games ({len(entries)} entries each, one of 1,501) stored and committed "
          f"in {time.perf_counter() - t:.1f} s")
    return ids


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def measure(url: str, ids: dict) -> dict:
    """In a fresh process: first requests after a restart, the growth they cost, the export."""
    app = make_app(url, migrate=False)
    client = app.test_client()
    assert client.post("/login", data={"username": USER, "password": PASSWORD}).status_code == 303
    client.get("/settings")  # warm the templates' machinery once, as any earlier page would
    out = {}

    def timed(name, path, check=None):
        t, cpu = time.perf_counter(), time.process_time()
        r = client.get(path, buffered=False)
        size, head = 0, b""
        for piece in r.response:  # read as a client reads it, piece by piece
            size += len(piece)
            head = head or piece
            if check and check in piece:
                check = None
        r.close()
        out[name] = (time.process_time() - cpu) * 1000
        out[name + "_wall"] = (time.perf_counter() - t) * 1000
        out[name + "_bytes"] = size
        assert r.status_code == 200, (path, r.status_code)
        assert check is None, (path, check)

    before = rss_mb()
    timed("players", "/players", b"Ben")
    timed("player", f"/players/{ids['player']}", b"Ben")
    out["growth"] = rss_mb() - before
    before_export = rss_mb()
    timed("export", "/export?format=zip")
    out["export_growth"] = rss_mb() - before_export
    timed("summary", f"/games/{ids['big']}/summary")
    timed("chart", f"/games/{ids['big']}/chart.svg")
    timed("list", "/")
    timed("list50", "/?page=50")
    return out


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--measure":
        url, ids = sys.argv[2], json.loads(sys.argv[3])
        print(json.dumps(measure(url, ids)))
        return 0
    tmp = tempfile.mkdtemp()
    url = sys.argv[1] if len(sys.argv) > 1 else f"sqlite:///{tmp}/bench.sqlite3"
    ids = setup(url)
    child = subprocess.run([sys.executable, __file__, "--measure", url, json.dumps(ids)],
                           capture_output=True, text=True, check=True)
    got = json.loads(child.stdout.strip().splitlines()[-1])
    missed = []
    print(f"export zip: {got['export_bytes']:,} bytes; times are CPU ms of the measuring process")
    lines = [("players", "players page, first request after a restart", "ms"),
             ("player", "a player's page, first request", "ms"),
             ("growth", "process growth for those two pages", "MB"),
             ("export", "export zip of every game", "ms"),
             ("export_growth", "process growth for the export (info)", "MB"),
             ("summary", "summary of a 1,501-entry game (info)", "ms"),
             ("chart", "its chart (info)", "ms"),
             ("list", "games list, page 1 (info)", "ms"),
             ("list50", "games list, page 50 (info)", "ms")]
    for key, label, unit in lines:
        target = TARGETS.get(key)
        verdict = ""
        if target is not None:
            ok = got[key] <= target
            verdict = f"  target <= {target:.0f} {unit}: {'ok' if ok else 'MISSED'}"
            if not ok:
                missed.append(key)
        wall = f"  (wall {got[key + '_wall']:.0f} ms)" if key + "_wall" in got else ""
        print(f"{label:45s} {got[key]:8.1f} {unit}{verdict}{wall}")
    if missed:
        print("missed: " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
