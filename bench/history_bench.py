"""Render times of the past-games pages: a 500-round summary (and its chart) and the list with 1,000 games.

Usage: ``.venv/bin/python bench/history_bench.py [DATABASE_URL]`` (default: a
temporary SQLite file). Prints one line per page: the best of 5 renders in ms.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import select  # noqa: E402

from scorekeeper import create_app  # noqa: E402
from scorekeeper.db import get_session  # noqa: E402
from scorekeeper.models import User  # noqa: E402
from scorekeeper.services import games as service  # noqa: E402
from scorekeeper.services import history as hist  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cat"]


def mitchi_entries(rounds: int) -> list[dict]:
    """A Mitchi log of ``rounds`` rounds: two double 6s, then a 3-1 that takes the pot and starts next."""
    entries = [{"type": "start", "player": "Ann"}]
    starter = 0
    for _ in range(rounds):
        order = [PLAYERS[(starter + i) % 3] for i in range(3)]
        entries.append({"type": "turn", "player": order[0], "hand": [6, 6], "rolls": 1})
        entries.append({"type": "turn", "player": order[1], "hand": [2, 1] if _ % 7 == 0 else [5, 5], "rolls": 1})
        entries.append({"type": "turn", "player": order[2], "hand": [3, 1], "rolls": 1})
        starter = (starter + 2) % 3
    return entries


def best_of(client, url: str, n: int = 5) -> float:
    times = []
    for _ in range(n):
        hist._CACHE.clear()  # every render replays, as on a cold process
        t = time.perf_counter()
        r = client.get(url)
        times.append(time.perf_counter() - t)
        assert r.status_code == 200, (url, r.status_code)
    return min(times) * 1000


def main() -> None:
    tmp = tempfile.mkdtemp()
    url = sys.argv[1] if len(sys.argv) > 1 else f"sqlite:///{tmp}/bench.sqlite3"
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    client.post("/register", data={"username": "bench", "password": "tulip carriage 9",
                                   "confirm": "tulip carriage 9"})
    with app.app_context():
        session = get_session()
        owner = session.exec(select(User).where(User.username == "bench")).one().id
        t = time.perf_counter()
        big = service.create_game(session, owner, "mitchi", PLAYERS, {"point_limit": 100_000},
                                  mitchi_entries(500))
        hist.link_players(session, owner, big)
        for i in range(999):
            g = service.create_game(session, owner, "mitchi", PLAYERS, {"point_limit": 3}, mitchi_entries(2 + i % 3))
            hist.link_players(session, owner, g)
        print(f"setup: 1,000 games stored in {time.perf_counter() - t:.1f} s")
        big_id = big.id
    print(f"summary of a 500-round game: {best_of(client, f'/games/{big_id}/summary'):.0f} ms")
    print(f"chart of a 500-round game:   {best_of(client, f'/games/{big_id}/chart.svg'):.0f} ms")
    print(f"list, 1,000 games, page 1:   {best_of(client, '/'):.0f} ms")
    print(f"list, 1,000 games, page 50:  {best_of(client, '/?page=50'):.0f} ms")
    print(f"list filtered by a player:   {best_of(client, '/?player=1&game=mitchi'):.0f} ms")
    print(f"player stats, 1,000 games:   {best_of(client, '/players', 3):.0f} ms (cold: every game replayed once)")
    client.get("/players")
    t = time.perf_counter()
    client.get("/players")
    print(f"player stats, warm cache:    {(time.perf_counter() - t) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
