"""Rename a player, merge two players: every game, stat and record shows the new name; a record
downloaded before still loads."""

from __future__ import annotations

import io
import json
import re

from ..conftest import new_game
from .test_mitchi_views import post_turn


def profile_id(client, name):
    return int(re.search(rf'href="/players/(\d+)">{name}<', client.get("/players").data.decode()).group(1))


def test_rename_everywhere(client, auth):
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 1)
    client.post(f"/games/{game}/undo", data={"version": "2"})
    before = client.get(f"/games/{game}/record.json").json
    ann = profile_id(client, "Ann")
    r = client.post(f"/players/{ann}/rename", data={"name": "Anna"})
    assert r.status_code == 303
    record = client.get(f"/games/{game}/record.json").json
    assert record["players"] == ["Anna", "Ben"]
    assert [e.get("player") for e in record["entries"]] == ["Anna", "Anna"]
    assert "Anna" in client.get(f"/games/{game}").data.decode()
    assert "Anna" in client.get("/players").data.decode() and ">Ann<" not in client.get("/players").data.decode()
    # The game goes on under the new name.
    r = post_turn(client, game, 4, "Ben", (5, 1), 1)
    assert r.status_code == 200, r.data.decode()[:500]
    # The record downloaded before the rename still loads.
    r = client.post("/import", data={"records": (io.BytesIO(json.dumps(before).encode()), "old.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 303
    # A name another player has already: refused, merge instead.
    r = client.post(f"/players/{ann}/rename", data={"name": "ben"})
    assert r.status_code == 400 and "merge" in r.data.decode()


def test_merge_two_spellings(client, auth):
    auth.register()
    first = new_game(client, players=("Ann", "Ben"), starter="0")
    second = new_game(client, players=("Anne", "Cat"), starter="0")
    post_turn(client, second, 0, "Anne", (6, 3), 2)
    anne, ann = profile_id(client, "Anne"), profile_id(client, "Ann")
    r = client.post(f"/players/{anne}/merge", data={"into": str(ann)})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/players/{ann}")
    record = client.get(f"/games/{second}/record.json").json
    assert record["players"] == ["Ann", "Cat"] and record["entries"][-1]["player"] == "Ann"
    page = client.get(f"/players/{ann}").data.decode()
    assert "2 games" in page
    assert client.get(f"/players/{anne}").status_code == 404
    # Two people who sat at one game are not merged.
    ben = profile_id(client, "Ben")
    r = client.post(f"/players/{ben}/merge", data={"into": str(ann)})
    assert r.status_code == 400 and "two people" in r.data.decode()
    assert client.get(f"/games/{first}/record.json").json["players"] == ["Ann", "Ben"]
