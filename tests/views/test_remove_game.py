"""Remove a game: asked first, it leaves the lists and the stats, stays restorable for 30 days
from the Account page, and keeps its entries."""

from __future__ import annotations

from ..conftest import new_game
from .test_mitchi_views import post_turn


def test_remove_and_restore(client, auth):
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    assert "1 game" in client.get("/").data.decode()
    # A single tap on the link only asks.
    page = client.get(f"/games/{game}/remove").data.decode()
    assert "Remove this game?" in page and "Yes, remove this game" in page
    assert "1 game" in client.get("/").data.decode()
    r = client.post(f"/games/{game}/remove")
    assert r.status_code == 303
    assert "0 games" in client.get("/").data.decode()
    # Out of the stats: Ann's page counts no game.
    assert "has not played yet" in client.get("/players/1").data.decode()
    # Kept: the account page offers it back, its entries are all there.
    account = client.get("/settings").data.decode()
    assert "Removed games" in account and f'action="/games/{game}/restore"' in account
    assert len(client.get(f"/games/{game}/record.json").json["entries"]) == 2
    r = client.post(f"/games/{game}/restore")
    assert r.status_code == 303
    assert "1 game" in client.get("/").data.decode()
    assert "Removed games" not in client.get("/settings").data.decode()
