"""Rematch: one tap starts a new game with the same players, seat order and options; a double
tap starts one game."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from scorekeeper.models import Game
from ..conftest import HX, Auth, new_game
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


def test_a_rematch_needs_a_finished_game_in_play(app, client, auth):
    """Rematch is offered only at a game's end: a crafted POST for a game still running, a
    removed game or a practice game starts nothing and says why, on the game's page (found by
    the eighth review: all three started a game)."""
    auth.register()
    running = new_game(client)
    r = client.post(f"/games/{running}/rematch", data={"version": "0"}, follow_redirects=True)
    assert "This game is not over yet; a rematch is offered when it has ended" in r.data.decode()
    assert f'action="/games/{running}/entries"' in r.data.decode()  # its page, to play on
    table = finished_mia(client)
    client.post(f"/games/{table.game}/remove")
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version + 1)}, follow_redirects=True)
    assert "This game was removed" in r.data.decode()
    r = client.post("/practice/new/mitchi", data={"player": "Ann", "point_limit": "3"})
    practice = int(re.search(r"/practice/(\d+)$", r.headers["Location"]).group(1))
    r = client.post(f"/games/{practice}/rematch", data={"version": "0"}, follow_redirects=True)
    assert "A practice game is played on its practice page" in r.data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as session:
        assert len(session.exec(select(Game)).all()) == 3  # running, removed, practice: nothing new


def test_a_stale_rematch_after_an_undo_says_the_game_changed(client, auth):
    """Another phone undid the last entry: the game is no longer over. The old page's Rematch
    starts nothing and leads to the game as it is, with a warning that names the change."""
    auth.register()
    table = finished_mia(client)
    version = table.version
    assert client.post(f"/games/{table.game}/undo", data={"version": str(version)}).status_code in (200, 303)
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(version)})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{table.game}")
    page = client.get(r.headers["Location"]).data.decode()
    assert 'class="msg warning"' in page and "The game changed since this page was shown" in page
    assert "Tap Rematch again" not in page and "Rematch:" not in page


def test_a_rematch_never_played_is_reused_after_an_undo_and_a_new_end(app, client, auth):
    """Rematch, then back to the old game: undo, play to a new end, Rematch again. The rematch
    made first, never played, is the one opened; a second empty game beside it made two identical
    games "still running" in the lists, and counted in every player's games (found by a review).
    Once that rematch has entries, a new end's Rematch makes a new game."""
    auth.register()
    table = finished_mia(client)
    first = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version)})
    first_id = int(re.search(r"/games/(\d+)$", first.headers["Location"]).group(1))
    table.version += 1  # the rematch claims the old game's version
    client.post(f"/games/{table.game}/undo", data={"version": str(table.version)})
    table.version += 1
    table.quick("Cat", "Ben", 42, (4, 2))  # over again
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version)})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{first_id}")
    assert "was never played: here it is" in client.get(r.headers["Location"]).data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as session:
        assert len(session.exec(select(Game)).all()) == 2
    # Played now (who starts): a later end of the old game starts a new rematch.
    assert client.post(f"/games/{first_id}/entries", data={"version": "0", "type": "start", "player": "Ann"}).status_code in (200, 303)
    client.post(f"/games/{table.game}/undo", data={"version": str(table.version)})
    table.version += 1
    table.quick("Cat", "Ben", 42, (4, 2))
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version)})
    assert r.status_code == 303 and not r.headers["Location"].endswith(f"/games/{first_id}")
    with Session(app.extensions["scorekeeper.engine"]) as session:
        assert len(session.exec(select(Game)).all()) == 3


def test_a_phone_on_the_finished_game_is_led_to_the_rematch_another_phone_started(app, client, auth):
    """ben's phone shows the finished game while ann taps Rematch on hers. His poll brings the
    panel with who started it and a link to the new game, not the Rematch button (a second tap
    there, once the rematch had entries, made a third game) nor "The game moved on. Last entry …"
    (no entry moved: the rematch claims the version). Found at the table: the second phone stayed
    on the old game with its Rematch button."""
    from .test_groups import invite_link

    auth.register("ann")
    table = finished_mia(client)
    ben = app.test_client()
    Auth(ben).register("ben")
    assert ben.post(invite_link(client).split("localhost", 1)[1]).status_code == 303
    seen = table.version
    assert "Rematch:" in ben.get(f"/games/{table.game}").data.decode()
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(seen)})
    new_id = int(re.search(r"/games/(\d+)$", r.headers["Location"]).group(1))
    r = ben.get(f"/games/{table.game}/poll?v={seen}", headers=HX)
    panel = r.data.decode()
    assert r.status_code == 200 and "ann started a rematch." in panel
    assert f'href="/games/{new_id}">Open the rematch</a>' in panel
    assert "Rematch:" not in panel and "moved on" not in panel and "Last entry" not in panel
    # ann, back on the old game, is told it was hers; a removed rematch gives the button back.
    assert "You started a rematch." in client.get(f"/games/{table.game}").data.decode()
    client.post(f"/games/{new_id}/remove")
    page = ben.get(f"/games/{table.game}").data.decode()
    assert "Rematch:" in page and "Open the rematch" not in page


def test_a_game_set_up_by_hand_with_the_same_players_is_no_rematch(client, auth):
    """A game set up by hand with the table's players and options while the first was being
    played passed for its rematch: the finished game said "You started a rematch" and offered
    none (found by a review). Only its Rematch makes one, which its page then leads to."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Cat", "Ann", "Ben"), starter="0", lives=1,
                                   pass_back="may-pass"))
    by_hand = new_game(client, "mia", players=("Cat", "Ann", "Ben"), starter="0", lives=1, pass_back="may-pass")
    table.quick("Cat", "Ann", 42, (4, 2))
    table.quick("Cat", "Ben", 42, (4, 2))  # Cat wins
    page = client.get(f"/games/{table.game}").data.decode()
    assert "Rematch: same players" in page and "Open the rematch" not in page
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version)})
    new_id = int(re.search(r"/games/(\d+)$", r.headers["Location"]).group(1))
    assert new_id not in (table.game, by_hand)
    page = client.get(f"/games/{table.game}").data.decode()
    assert "Open the rematch" in page and f'href="/games/{new_id}"' in page
