"""Remove a game: asked first, it leaves the lists and the stats, stays restorable for 30 days
from the Account page, and keeps its entries."""

from __future__ import annotations

import re

from ..conftest import HX, new_game
from .test_mitchi_views import post_turn


def test_remove_and_restore(client, auth):
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    assert "1 game" in client.get("/").data.decode()
    # A single tap on the link only asks.
    page = client.get(f"/games/{game}/remove").data.decode()
    assert "Remove this game?" in page and "Yes, remove this game" in page
    # A game in play is named as the games list names it: its round, still running (not "0 rounds").
    assert "round 1 · still running" in page and "0 rounds" not in page
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


def test_a_removed_game_takes_no_entry_undo_redo_or_correction_until_restored(client, auth):
    """Removed, the game's page still opens (to restore it), but every change is refused with
    a message saying how to go on, and nothing is written."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)  # Redo would be offered
    assert client.post(f"/games/{game}/remove").status_code == 303
    record = client.get(f"/games/{game}/record.json").json
    turn = {"type": "turn", "player": "Ann", "hand.0": "5", "hand.1": "4", "rolls": "1"}
    for path, data in ((f"/games/{game}/entries", turn), (f"/games/{game}/undo", {}),
                       (f"/games/{game}/redo", {}), (f"/games/{game}/entries/1", {**turn, "type": "start"})):
        r = client.post(path, data={"version": "3", **data}, headers=HX)  # the removal moved the version
        assert r.status_code == 422, path
        assert "This game was removed; restore it" in r.data.decode(), path
    assert client.get(f"/games/{game}/record.json").json == record
    client.post(f"/games/{game}/restore")
    assert client.post(f"/games/{game}/redo", data={"version": "4"}, headers=HX).status_code == 200


def test_an_older_page_that_sends_after_a_removal_is_told_of_the_removal(client, auth):
    """A phone whose page is from before another phone removed the game (its live updates did
    not get through) sends a turn: it was told "The game changed … Last entry, by …", which never
    said the game was removed (found by a review)."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)  # both phones show version 1
    assert post_turn(client, game, 1, "Ben", (5, 4), 1).status_code == 200  # the first phone goes on
    assert client.post(f"/games/{game}/remove").status_code == 303  # and removes the game
    r = post_turn(client, game, 1, "Ben", (5, 4), 1)  # the second phone's page is from before both
    page = r.data.decode()
    assert r.status_code == 409 and "Nothing was changed: this game was removed meanwhile" in page
    assert "Last entry" not in page and "Restore it" in page
    assert len(client.get(f"/games/{game}/record.json").json["entries"]) == 3


def test_a_removed_games_page_says_so_and_offers_nothing_to_enter(client, auth):
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    assert post_turn(client, game, 0, "Ann", (5, 4), 1).status_code == 200
    client.post(f"/games/{game}/remove")
    for page in (client.get(f"/games/{game}").data.decode(),  # the page, and the panel a poll brings
                 client.get(f"/games/{game}/poll?v=0", headers=HX).data.decode()):
        panel = page[page.index('id="panel"'):]
        assert "This game was removed" in panel and "Restore it" in panel
        # read-only: the last entries, but no dice, no Undo, no correction link
        assert "Ann: 5-4 in 1" in panel
        for offered in ('name="hand.0"', "/undo", "/entries/1", "Undo:"):
            assert offered not in panel, offered
    assert "Remove this game" not in client.get(f"/games/{game}").data.decode()
    # the whole log offers no correction, and a correction page leads to the game and its Restore
    # (found by the ninth review: both looked editable, and a tap was refused)
    assert "/entries/1" not in client.get(f"/games/{game}/log").data.decode()
    r = client.get(f"/games/{game}/entries/2")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game}")
    client.post(f"/games/{game}/restore")
    page = client.get(f"/games/{game}").data.decode()
    assert 'name="hand.0"' in page and "/undo" in page and "/entries/1" in page and "was removed" not in page
    assert "/entries/1" in client.get(f"/games/{game}/log").data.decode()
    assert client.get(f"/games/{game}/entries/2").status_code == 200


def test_a_removed_games_summary_offers_the_restore_not_play_on(client, auth):
    """The summary of a removed running game said "Still running … Play on", and Play on led to a
    page that could only restore it (found by a review): it says the game was removed and
    restores it from there; restored, Play on is back."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (5, 4), 1)
    assert "Play on" in client.get(f"/games/{game}/summary").data.decode()
    client.post(f"/games/{game}/remove")
    page = client.get(f"/games/{game}/summary").data.decode()
    assert "Play on" not in page and "This game was removed" in page
    form = re.search(r'<form method="post" action="(/games/\d+/restore)"[^>]*><input type="hidden" '
                     r'name="csrf_token" value="[^"]+">', page)
    assert form and form.group(1) == f"/games/{game}/restore"
    assert client.post(form.group(1)).status_code == 303
    page = client.get(f"/games/{game}/summary").data.decode()
    assert "Play on" in page and "was removed" not in page


def test_a_removed_finished_game_still_shows_its_result_but_no_rematch(client, auth):
    """The page of a removed finished game showed the last round and the removal, not who won
    (found by a review)."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0", point_limit=1)
    post_turn(client, game, 0, "Ann", (6, 3), 1)
    post_turn(client, game, 1, "Ben", (5, 4), 1)  # Ben's 5-4 is worse: he takes the pot, 1 point
    assert "Game over. Ann wins with 0 points." in client.get(f"/games/{game}").data.decode()
    client.post(f"/games/{game}/remove")
    panel = client.get(f"/games/{game}").data.decode().split('id="panel"')[1]
    assert "This game was removed" in panel and "Game over. Ann wins with 0 points." in panel
    assert "/rematch" not in panel


def test_a_phone_that_has_the_game_open_follows_its_removal_and_restoring(app, client, auth):
    """Removing and restoring move the game's version: another phone's poll brings the panel as it
    now stands, a form it showed before is stale, and the stored snapshot and export rounds move
    along (nothing to replay)."""
    from sqlmodel import Session

    from scorekeeper.models import ExportState, Game, GameSnapshot

    import re

    from ..conftest import version_of

    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    assert post_turn(client, game, 0, "Ann", (5, 4), 1).status_code == 200
    other = client.get(f"/games/{game}").data  # the second phone's page (same account: same group)
    shown = version_of(other)
    client.post(f"/games/{game}/remove")
    r = client.get(f"/games/{game}/poll?v={shown}", headers=HX)
    assert r.status_code == 200 and "This game was removed" in r.data.decode() and 'name="hand.0"' not in r.data.decode()
    assert "moved on" not in r.data.decode()  # a removal is no move of the game: no "Last entry" line above it
    stale = post_turn(client, game, shown, "Ben", (6, 6), 1)
    assert stale.status_code == 409
    removed = int(re.search(r'data-version="(\d+)"', r.data.decode()).group(1))
    client.post(f"/games/{game}/restore")
    r = client.get(f"/games/{game}/poll?v={removed}", headers=HX)
    assert r.status_code == 200 and 'name="hand.0"' in r.data.decode() and "was removed" not in r.data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as s:
        v = s.get(Game, game).version
        assert s.get(GameSnapshot, game).version == v and s.get(ExportState, game).version == v
    assert post_turn(client, game, version_of(r.data), "Ben", (6, 6), 1).status_code == 200
    record = client.get(f"/games/{game}/record.json").json
    assert [e.get("hand") for e in record["entries"]][1:] == [[5, 4], [6, 6]]
    # Asked to remove it again (an old tab, a double tap): nothing moves, its page says it is removed.
    client.post(f"/games/{game}/remove")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        v, when = s.get(Game, game).version, s.get(Game, game).removed_at
    assert client.post(f"/games/{game}/remove").status_code == 303
    r = client.get(f"/games/{game}/remove")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game}")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert (s.get(Game, game).version, s.get(Game, game).removed_at) == (v, when)


def test_players_of_only_removed_games_leave_the_lists_until_a_restore(client, auth):
    """Someone whose only game was removed is in no list: not the Players table, the games list's
    player filter, setup's known players or the merge choices (they stayed, with 0 games)."""
    import re

    auth.register()
    new_game(client, players=("Ann", "Ben"), starter="0")
    gone = new_game(client, players=("Ann", "Bartholomew"), starter="0")

    def listed() -> dict[str, bool]:
        players = client.get("/players").data.decode()
        ann = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Ann<', players).group(1)
        return {"players": ">Bartholomew<" in players,
                "filter": re.search(r"<option [^>]*>Bartholomew</option>", client.get("/").data.decode()) is not None,
                "setup": "Bartholomew" in client.get("/games/new/mitchi").data.decode(),
                "merge": re.search(r"<option [^>]*>Bartholomew</option>",
                                   client.get(f"/players/{ann}").data.decode()) is not None}

    assert listed() == {"players": True, "filter": True, "setup": True, "merge": True}
    assert client.post(f"/games/{gone}/remove").status_code == 303
    assert listed() == {"players": False, "filter": False, "setup": False, "merge": False}
    assert "Ben" in client.get("/players").data.decode()  # who still has a game stays
    assert client.post(f"/games/{gone}/restore").status_code == 303
    assert listed() == {"players": True, "filter": True, "setup": True, "merge": True}


def test_loading_the_record_of_a_removed_game_says_where_to_restore_it(app, client, auth):
    """A removed game is out of the lists but still here for 30 days: its record is not loaded
    beside it (a restore would then show the game twice); the answer says where to restore it.
    Removed longer ago (no longer restorable), the record is loaded again."""
    from datetime import timedelta

    from scorekeeper.db import get_session
    from scorekeeper.models import Game, utcnow

    from .test_history import upload

    auth.register()
    game = new_game(client, players=("Ann", "Ben"), starter="0")
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    record = client.get(f"/games/{game}/record.json").json
    assert "Already here, not loaded again: r0.json." in client.get(
        upload(client, record).headers["Location"]).data.decode()
    assert client.post(f"/games/{game}/remove").status_code == 303
    r = upload(client, record, record, names=["r0.json", "r0.json"])  # the same file twice: named once
    assert r.status_code == 303
    said = client.get(r.headers["Location"]).data.decode()
    # named with its game, when it was played and its players, which a position alone did not say
    # (found by a review)
    assert re.search(r"Not loaded again, as it is a game removed in the last 30 days: r0\.json "
                     r"\(Mitchi, \w{3} \d+ \w{3} \d{4}, \d\d:\d\d: Ann, Ben\)\. "
                     r"Restore it under Account, Removed games\.", said), said
    assert "Already here" not in said and "0 games" in client.get("/").data.decode()
    with app.app_context():
        s = get_session()
        s.get(Game, game).removed_at = utcnow() - timedelta(days=31)
        s.commit()
    r = upload(client, record)
    loaded = re.search(r"/games/(\d+)$", r.headers["Location"])
    assert r.status_code == 303 and loaded and int(loaded.group(1)) != game
    assert "1 game loaded." in client.get(r.headers["Location"]).data.decode()
