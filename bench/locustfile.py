"""Locust tables for ``bench/load.py``: each simulated table records legal Mitchi turns on
its own game through the real htmx form (one POST per entry, the version it was shown), sent
as htmx sends it: the form's fields (its CSRF token among them) and htmx's headers.

Settings come from the environment (set by load.py): ``LOAD_GAMES`` (JSON list of game
ids), ``LOAD_OFFSET`` (entries already in each game's log before the first turn sent),
``LOAD_COOKIE`` (a logged-in session cookie), ``LOAD_PACE`` (seconds between a table's
entries; 0 = as fast as the server answers).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time

import gevent

from locust import HttpUser, task
from tables import AGENT, TURNS

GAMES = json.loads(os.environ.get("LOAD_GAMES", "[]"))
OFFSET = int(os.environ.get("LOAD_OFFSET", "0"))
COOKIE = os.environ.get("LOAD_COOKIE", "")
PACE = float(os.environ.get("LOAD_PACE", "0"))
_seats = itertools.count()
#: At table pace each table keeps a moment of its own in the pace (drawn once per seat, evenly
#: between 0 and one pace), as tables that never met would, and sends one entry at that moment of
#: every pace (open loop: a slow answer does not move the next entry). Locust's constant_pacing
#: counts from the moment it started a user, which starts its users in batches: each batch would
#: then send in the same millisecond, every pace, a burst no group of tables makes.


class Table(HttpUser):
    def wait_time(self) -> float:
        if not PACE:
            return 0.0
        self.due += PACE
        return max(0.0, self.due - time.monotonic())

    def on_start(self):
        self.seat = next(_seats) % len(GAMES)
        self.game = GAMES[self.seat]
        self.client.headers["Cookie"] = COOKIE
        self.client.headers["User-Agent"] = AGENT
        page = self.client.get(f"/games/{self.game}", name="page").text
        # What htmx sends for the entry form: the page's token in a header (hx-headers) and in
        # the form's own field, and htmx's headers naming the page and the panel it swaps.
        self.token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
        self.client.headers["X-CSRFToken"] = self.token
        self.client.headers["HX-Request"] = "true"
        self.client.headers["HX-Current-URL"] = f"{self.host}/games/{self.game}"
        self.client.headers["HX-Target"] = "panel"
        self.version = 0
        self.due = time.monotonic() + random.Random(self.seat).uniform(0.0, PACE)
        gevent.sleep(max(0.0, self.due - time.monotonic()))

    @task
    def entry(self):
        player, hand = TURNS[OFFSET + self.version]
        data = {"csrf_token": self.token, "version": str(self.version), "type": "turn", "player": player,
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
