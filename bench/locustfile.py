"""Locust tables for ``bench/load.py``: each simulated table records legal Mitchi turns on
its own game through the real htmx form (one POST per entry, the version it was shown).

Settings come from the environment (set by load.py): ``LOAD_GAMES`` (JSON list of game
ids), ``LOAD_OFFSET`` (entries already in each game's log before the first turn sent),
``LOAD_COOKIE`` (a logged-in session cookie), ``LOAD_PACE`` (seconds between a table's
entries; 0 = as fast as the server answers).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import time

import gevent

from locust import HttpUser, constant, constant_pacing, task
from tables import AGENT, TURNS

GAMES = json.loads(os.environ.get("LOAD_GAMES", "[]"))
OFFSET = int(os.environ.get("LOAD_OFFSET", "0"))
COOKIE = os.environ.get("LOAD_COOKIE", "")
PACE = float(os.environ.get("LOAD_PACE", "0"))
_seats = itertools.count()
#: At table pace, table n of N sends its first entry n/N of a pace after this moment (every
#: table has loaded its page by then), so the tables keep evenly spread moments in the pace,
#: as tables that never met would. Locust starts its users in batches; without this, each
#: batch would send in the same millisecond, every pace, a burst no group of tables makes.
_START = time.time() + 2.0


class Table(HttpUser):
    wait_time = constant_pacing(PACE) if PACE else constant(0)

    def on_start(self):
        self.seat = next(_seats) % len(GAMES)
        self.game = GAMES[self.seat]
        self.client.headers["Cookie"] = COOKIE
        self.client.headers["User-Agent"] = AGENT
        page = self.client.get(f"/games/{self.game}", name="page").text
        self.client.headers["X-CSRFToken"] = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
        self.client.headers["HX-Request"] = "true"
        self.version = 0
        if PACE:
            gevent.sleep(max(0.0, _START + PACE * self.seat / len(GAMES) - time.time()))

    @task
    def entry(self):
        player, hand = TURNS[OFFSET + self.version]
        data = {"version": str(self.version), "type": "turn", "player": player,
                "hand.0": str(hand[0]), "hand.1": str(hand[1]), "rolls": "1"}
        with self.client.post(f"/games/{self.game}/entries", data=data, name="entry",
                              catch_response=True) as r:
            if r.status_code == 200:
                self.version += 1
            if r.status_code == 200 and "Set-Cookie" in r.headers:  # an entry never rewrites the cookie
                r.failure("the entry's answer rewrote the session cookie")
            elif r.status_code == 200:
                r.success()
            else:
                r.failure(f"HTTP {r.status_code}")
