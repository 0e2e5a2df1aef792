"""Rematch: one tap starts a new game with the same players, seat order and options; a double
tap starts one game."""

from __future__ import annotations

import re

from ..conftest import new_game
from .test_mia_views import Table


def finished_mia(client):
    table = Table(client, new_game(client, "mia", players=("Cat", "Ann", "Ben"), starter="0", lives=1,
                                   pass_back="may-pass"))
    table.quick("Cat", "Ann", 42, (4, 2))  # Ann out
    table.quick("Cat", "Ben", 42, (4, 2))  # Ben out: Cat wins
    return table


def test_rematch_same_seats_and_options_once(client, auth):
    auth.register()
    table = finished_mia(client)
    page = client.get(f"/games/{table.game}").data.decode()
    assert "Rematch" in page
    version = table.version
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(version)})
    assert r.status_code == 303
    new_id = int(re.search(r"/games/(\d+)$", r.headers["Location"]).group(1))
    assert new_id != table.game
    record = client.get(f"/games/{new_id}/record.json").json
    old = table.record()
    assert record["players"] == ["Cat", "Ann", "Ben"] and record["options"] == old["options"]
    assert record["entries"] == []  # who starts: named or rolled for at the table
    assert "Who starts?" in client.get(f"/games/{new_id}").data.decode()
    # The second tap of a double tap: no second game, it goes to the one just made.
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(version)})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{new_id}")
    assert "2 games" in client.get("/").data.decode()
