"""The live view ("Show to the table") and the polls of viewers and scorers."""

from __future__ import annotations

import html
import re

from sqlmodel import Session, select

from scorekeeper.models import Entry
from scorekeeper.services import games as service

from ..conftest import HX, Auth, new_game, version_of
from .test_mia_views import text_of


def turn_on(client, gid: int) -> str:
    assert client.post(f"/games/{gid}/live").status_code == 303
    page = client.get(f"/games/{gid}/table").data.decode()
    link = re.search(r'class="live-link">([^<]+)<', page).group(1)
    return link.split("localhost", 1)[1]


def poll_of(page: bytes | str) -> str:
    """The poll address a live view asks (its ``hx-get``), as the browser sends it."""
    text = page.decode() if isinstance(page, bytes) else page
    return html.unescape(re.search(r'<section id="live"[^>]*hx-get="([^"]+)"', text).group(1))


def enter(client, gid: int, **data):
    version = version_of(client.get(f"/games/{gid}").data)
    return client.post(f"/games/{gid}/entries", data={"version": str(version), **data})


def entries(app, gid: int) -> int:
    with Session(app.extensions["scorekeeper.engine"]) as s:
        return len(s.exec(select(Entry).where(Entry.game_id == gid)).all())


def test_the_live_link_opens_without_an_account_and_shows_the_table(app, client, auth):
    auth.register()
    gid = new_game(client, players=("Ann", "Ben", "Cat"))
    enter(client, gid, type="turn", player="Ann", **{"hand.0": "3", "hand.1": "1", "rolls": "2"})
    path = turn_on(client, gid)
    assert "<svg" in client.get(f"/games/{gid}/table").data.decode()  # the QR code
    viewer = app.test_client()
    page = viewer.get(path).data.decode()
    for words in ("Ben to roll", "Round", "Pot", "Roll limit", "Worst hand so far", "3-1", "Points"):
        assert words in page, words
    assert "<form" not in page and "<button" not in page and "csrf" not in page.lower()
    screen = viewer.get(path + "?layout=screen").data.decode()
    assert "table-screen" in screen and "<form" not in screen


def test_an_unchanged_poll_answers_204_without_reading_the_log(app, client, auth, monkeypatch):
    auth.register()
    gid = new_game(client)
    path = turn_on(client, gid)
    viewer = app.test_client()
    version = version_of(client.get(f"/games/{gid}").data)
    replays = []
    real = service.replay
    monkeypatch.setattr(service, "replay", lambda *a, **k: replays.append(1) or real(*a, **k))
    asked = poll_of(viewer.get(path).data)
    assert f"v={version}" in asked
    replays.clear()
    r = viewer.get(asked, headers=HX)
    assert r.status_code == 204 and r.data == b"" and replays == []
    r = client.get(f"/games/{gid}/poll?v={version}", headers=HX)
    assert r.status_code == 204 and replays == []
    # After an entry (or an undo) the poll answers with the new view.
    enter(client, gid, type="turn", player="Ann", **{"hand.0": "6", "hand.1": "5", "rolls": "1"})
    r = viewer.get(f"{path}/poll?g={gid}&v={version}", headers=HX)
    assert r.status_code == 200 and "Ben to roll" in r.data.decode()
    assert replays == []  # the new view comes from the snapshot stored with the entry
    assert f"v={version + 1}" in r.data.decode()
    client.post(f"/games/{gid}/undo", data={"version": str(version + 1)})
    r = viewer.get(f"{path}/poll?g={gid}&v={version + 1}", headers=HX)
    assert r.status_code == 200 and "Ann to roll" in r.data.decode()


def test_an_unchanged_poll_carries_no_page_headers(app, client, auth):
    """A 204 (each phone polls every second) has no content to frame, run or type: it carries
    only that no cache keeps it (and what varies it), while a page keeps all its headers."""
    auth.register()
    gid = new_game(client)
    path = turn_on(client, gid)
    version = version_of(client.get(f"/games/{gid}").data)
    for who, url in ((client, f"/games/{gid}/poll?v={version}"), (app.test_client(), f"{path}/poll?g={gid}&v={version}")):
        r = who.get(url, headers=HX)
        assert r.status_code == 204 and r.headers["Cache-Control"] == "no-store", url
        names = {name.lower() for name in r.headers.keys()}
        assert names <= {"cache-control", "vary", "content-length"}, (url, r.headers)
        assert sum(len(k) + len(v) + 4 for k, v in r.headers.items()) < 120, r.headers
    page = client.get(f"/games/{gid}")
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Frame-Options"] == "DENY" and page.headers["Cache-Control"] == "no-store"


def test_a_turned_off_or_replaced_link_404s(app, client, auth):
    auth.register()
    gid = new_game(client)
    old = turn_on(client, gid)
    new = turn_on(client, gid)
    viewer = app.test_client()
    assert old != new
    assert viewer.get(old).status_code == 404
    assert viewer.get(new).status_code == 200
    assert client.post(f"/games/{gid}/live/off").status_code == 303
    for gone in (new, new + "/poll?v=0", old, "/live/" + "x" * 20):  # a spectator is told why
        r = viewer.get(gone)
        said = "This live link was turned off or replaced, or its game removed"
        assert r.status_code == 404 and said in r.data.decode(), gone
        assert "Back to your games" not in r.data.decode()  # a spectator has none; the menu offers Log in
    assert "Back to your games" in client.get(old).data.decode()  # a member has
    r = viewer.get(new + "/poll?v=0", headers=HX)
    assert r.status_code == 286 and "turned off" in r.data.decode()  # htmx stops polling


def test_removing_a_game_turns_its_live_link_off_and_none_is_made_until_restored(app, client, auth):
    """A removed game is out of sight of the table too (found by the twenty-fifth review: its
    link kept showing it, and a new one could be made)."""
    auth.register()
    gid = new_game(client)
    path = turn_on(client, gid)
    viewer = app.test_client()
    version = version_of(client.get(f"/games/{gid}").data)
    assert client.post(f"/games/{gid}/remove").status_code == 303
    assert viewer.get(path).status_code == 404
    r = viewer.get(f"{path}/poll?v={version}", headers=HX)  # an open viewer stops, saying why
    assert r.status_code == 286 and "or its game removed" in r.data.decode()  # the reason named (a review)
    r = client.post(f"/games/{gid}/live", follow_redirects=True)
    page = r.data.decode()
    assert "restore it before showing it to the table" in page and 'class="live-link"' not in page
    assert "Turn on the live link" not in page
    assert viewer.get(path).status_code == 404
    # Restored, it can be shown again, by a new link (the old one stays off).
    assert client.post(f"/games/{gid}/restore").status_code == 303
    assert viewer.get(path).status_code == 404
    again = turn_on(client, gid)
    assert again != path and viewer.get(again).status_code == 200


def test_a_link_made_as_another_phone_removes_the_game_is_not_made(app, client, auth):
    """The race a review found (1 in 10): "Turn on the live link" read the game before another
    phone's removal was stored, then set its token: a removed game was shown to anyone. The
    token is set only on a row not removed, and a removed game's token opens nothing."""
    from scorekeeper.models import Game
    from scorekeeper.services import live

    auth.register()
    gid = new_game(client)
    engine = app.extensions["scorekeeper.engine"]
    with Session(engine) as first, Session(engine) as second:
        shown = first.get(Game, gid)  # phone 1 asks for a link: the game as it read it
        service.remove_game(second, second.get(Game, gid))  # phone 2's removal lands first
        assert live.turn_on(first, shown) is None
        assert first.get(Game, gid).live_token is None
    # However a token came to be on a removed game, it opens nothing.
    with Session(engine) as s:
        game = s.get(Game, gid)
        game.live_token = "t" * 22
        s.add(game)
        s.commit()
    viewer = app.test_client()
    assert viewer.get("/live/" + "t" * 22).status_code == 404
    assert viewer.get("/live/" + "t" * 22 + "/poll?v=0", headers=HX).status_code == 286


def test_the_viewer_token_cannot_post_and_nothing_is_stored(app, client, auth):
    auth.register()
    gid = new_game(client)
    path = turn_on(client, gid)
    viewer = app.test_client()
    for url in (path, path + "/entries", path + "/poll", path + "/undo"):
        r = viewer.post(url, data={"type": "start", "player": "Ann", "version": "0"})
        assert r.status_code == 403 and "read-only" in r.data.decode(), url
    # Nor can an anonymous viewer use the scorer's routes.
    r = viewer.post(f"/games/{gid}/entries", data={"type": "turn", "player": "Ann", "hand.0": "6",
                                                    "hand.1": "5", "rolls": "2", "version": "1"})
    assert r.status_code in (302, 401)
    assert entries(app, gid) == 1  # only the start made with the game


def ann_and_ben_at_one_game(app, client, auth):
    """ann's game, and a second phone (a test client) of ben, who joined her group by its invite."""
    auth.register("ann")
    gid = new_game(client)
    client.post("/groups/invites")
    token = re.search(r"/join/([\w-]+)", client.get("/groups").data.decode()).group(1)
    ben = app.test_client()
    Auth(ben).register("ben")
    ben.post(f"/join/{token}")
    return gid, ben


def test_a_scorers_page_follows_the_game_and_a_second_tap_says_who_entered(app, client, auth):
    gid, ben = ann_and_ben_at_one_game(app, client, auth)
    version = version_of(client.get(f"/games/{gid}").data)
    # Both phones show the same turn; both tap it.
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "version": version}
    first = client.post(f"/games/{gid}/entries", data={**turn, "rolls": "2"}, headers=HX)
    second = ben.post(f"/games/{gid}/entries", data={**turn, "rolls": "3"}, headers=HX)
    assert first.status_code == 200 and second.status_code == 409
    assert "Last entry, by ann: Ann: 6-5 in 2." in second.data.decode()
    assert entries(app, gid) == 2  # the start and one turn
    # Ben's page (polling with the version it shows) gets the panel as it now stands.
    r = ben.get(f"/games/{gid}/poll?v={version}", headers=HX)
    assert r.status_code == 200 and "Ben's turn" in r.data.decode() and "by ann" in r.data.decode()
    # Ann undoes it; Ben's page, still showing it, taps Undo too: told what changed, not the start.
    mine = version_of(r.data)
    assert client.post(f"/games/{gid}/undo", data={"version": mine}, headers=HX).status_code == 200
    late = ben.post(f"/games/{gid}/undo", data={"version": mine}, headers=HX)
    assert late.status_code == 409 and "Last change, by ann: “Ann: 6-5 in 2” was undone." in late.data.decode()
    assert "nothing was undone" in late.data.decode() and "nothing was recorded" not in late.data.decode()
    assert entries(app, gid) == 2  # the start, and the turn undone once (kept in the history)
    # Once something else is entered, the last entry is what changed again.
    again = ben.post(f"/games/{gid}/entries", data={**turn, "version": version_of(late.data), "rolls": "1"},
                     headers=HX)
    assert again.status_code == 200
    redo = ben.post(f"/games/{gid}/redo", data={"version": mine}, headers=HX)  # an old page's Redo
    assert redo.status_code == 409 and "nothing was put back" in redo.data.decode()
    late = client.post(f"/games/{gid}/undo", data={"version": mine}, headers=HX)  # an old page's Undo
    assert late.status_code == 409 and "Last entry, by ben: Ann: 6-5 in 1." in late.data.decode()
    # Ann corrects that turn; Ben's old page taps: told of the correction, not "Last entry"
    # (found by the eighth review: the other phone was told only what the last entry was).
    now = version_of(late.data)
    fixed = client.post(f"/games/{gid}/entries/2", data={**turn, "version": now, "hand.0": "4", "rolls": "1"})
    assert fixed.status_code == 303
    late = ben.post(f"/games/{gid}/undo", data={"version": now}, headers=HX)
    assert late.status_code == 409
    assert "Last change, by ann: entry 2 corrected to “Ann: 5-4 in 1”." in late.data.decode()


def test_a_poll_says_the_game_moved_on_after_an_entry_and_changed_after_an_undo_or_a_correction(app, client, auth):
    """The note a poll brings to a scorer's other phone: an entry moved the game on; an undo or a
    correction of an older entry moved nothing on ("The game moved on" after a correction was
    found wrong by a review)."""
    gid, ben = ann_and_ben_at_one_game(app, client, auth)
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "2"}

    def polled(shown: int) -> str:
        r = ben.get(f"/games/{gid}/poll?v={shown}", headers=HX)
        assert r.status_code == 200
        return html.unescape(r.data.decode())

    shown = version_of(client.get(f"/games/{gid}").data)
    assert client.post(f"/games/{gid}/entries", data={**turn, "version": shown}, headers=HX).status_code == 200
    assert "The game moved on. Last entry, by ann: Ann: 6-5 in 2." in polled(shown)
    shown += 1
    assert client.post(f"/games/{gid}/entries/2", data={**turn, "version": shown, "hand.0": "4"}).status_code == 303
    said = polled(shown)
    assert "The game changed. Last change, by ann: entry 2 corrected to “Ann: 5-4 in 2”." in said
    assert "moved on" not in said
    shown += 1
    assert client.post(f"/games/{gid}/undo", data={"version": shown}, headers=HX).status_code == 200
    said = polled(shown)
    assert "The game changed. Last change, by ann: “Ann: 5-4 in 2” was undone." in said and "moved on" not in said


def test_a_phone_is_told_of_its_own_accounts_change_as_by_you(app, client, auth):
    """Ann's entry whose answer was lost: her page's poll brings the game with her own entry in it.
    It said "Last entry, by ann" as of someone else's (found by a review); now "by you", for an
    undo and a correction too. Ben, on his phone, still reads Ann's name."""
    gid, ben = ann_and_ben_at_one_game(app, client, auth)
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "2"}

    def polled(who, shown: int) -> str:
        r = who.get(f"/games/{gid}/poll?v={shown}", headers=HX)
        assert r.status_code == 200
        return html.unescape(r.data.decode())

    shown = version_of(client.get(f"/games/{gid}").data)
    assert client.post(f"/games/{gid}/entries", data={**turn, "version": shown}, headers=HX).status_code == 200
    assert "The game moved on. Last entry, by you: Ann: 6-5 in 2." in polled(client, shown)
    assert "The game moved on. Last entry, by ann: Ann: 6-5 in 2." in polled(ben, shown)
    shown += 1
    fixed = client.post(f"/games/{gid}/entries/2", data={**turn, "version": shown, "hand.0": "4"})
    assert fixed.status_code == 303
    said = polled(client, shown)
    assert "The game changed. Last change, by you: entry 2 corrected to “Ann: 5-4 in 2”." in said
    assert "by ann: entry 2 corrected" in polled(ben, shown)
    shown += 1
    assert client.post(f"/games/{gid}/undo", data={"version": shown}, headers=HX).status_code == 200
    assert "The game changed. Last change, by you: “Ann: 5-4 in 2” was undone." in polled(client, shown)
    assert "Last change, by ann: “Ann: 5-4 in 2” was undone." in polled(ben, shown)


def test_live_routes_of_another_group_are_404(app, client, auth):
    auth.register("ann")
    gid = new_game(client)
    eve = app.test_client()
    Auth(eve).register("eve")
    for method, url in (("GET", f"/games/{gid}/table"), ("POST", f"/games/{gid}/live"),
                        ("POST", f"/games/{gid}/live/off"), ("GET", f"/games/{gid}/poll?v=0")):
        assert eve.open(url, method=method).status_code == 404, url


def _finished_goldens():
    """Golden records of each game that replay to a finished game, and one stopped midway."""
    import json
    from pathlib import Path

    from scorekeeper.rules import record as records

    out = {}
    for path in sorted((Path(__file__).parent.parent / "records").glob("*/*.json")):
        doc = json.loads(path.read_text())
        rec = doc.get("record", doc)
        try:
            state = records.build(rec)
        except Exception:  # a record that is refused on purpose
            continue
        if state.finished and rec["game"] not in out and len(rec["entries"]) > 4:
            out[rec["game"]] = rec
    return out


def test_the_live_view_of_a_game_not_begun_asks_who_starts(app, client, auth):
    """As the scorer's page does (it said "Anyone may act"; found by the twenty-fifth review)."""
    auth.register()
    viewer = app.test_client()
    for name, players in (("mitchi", ("Ann", "Ben")), ("mia", ("Ann", "Ben", "Cat"))):
        gid = new_game(client, name=name, players=players, starter="rolloff")
        page = viewer.get(turn_on(client, gid)).data.decode()
        assert "Who starts? Not chosen yet." in page and "Anyone may act" not in page, name
    # Mice and Men: the first seat opens unless a roll-off picks another, as the scorer's page
    # offers (not "not chosen yet" above "Opener Ann").
    gid = new_game(client, name="mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="rolloff")
    page = text_of(viewer.get(turn_on(client, gid)).data)
    assert "Ann (the first seat) opens round 1, unless a roll-off picks another." in page
    assert "Not chosen yet" not in page and "Anyone may act" not in page


def test_the_live_view_of_a_round_not_opened_keeps_the_penalty_box_the_scorers_page_leaves_out(app, client, auth):
    """Before the penalty is announced the scorer's page leaves out the penalty, "still in" and
    "ran" boxes (its pad says the range; Undo stays in view); the table's view has no pad and
    says the range there."""
    auth.register()
    gid = new_game(client, name="mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0")
    page = text_of(app.test_client().get(turn_on(client, gid)).data)
    assert "Penalty not announced yet (opening range 1 to 10)" in page
    assert "Still in Ann, Ben, Cat, Dan" in page and "Ran with the mice nobody yet" in page
    scorer = text_of(client.get(f"/games/{gid}").data)
    assert "announces a penalty (1 to 10)" in scorer and "not announced yet" not in scorer


def test_a_roll_offs_end_is_said_on_the_scorers_page_and_the_live_view(app, client, auth):
    """Each game: the roll-off decided, both pages say its dice and who won (they moved on to the
    starter's turn without a word of it; found by a review); Mice and Men's winner opens round 1.
    While it runs, the live view says the dice so far."""
    auth.register()
    viewer = app.test_client()
    for name, players, ends in (("mitchi", ("Ann", "Ben", "Cat"), "starts"), ("mia", ("Ann", "Ben", "Cat"), "starts"),
                                ("mice-and-men", ("Ann", "Ben", "Cat", "Dan"), "opens round 1")):
        gid = new_game(client, name=name, players=players, starter="rolloff")
        path = turn_on(client, gid)
        for player, die in zip(players, (2, 5, 1, 3)):
            r = enter(client, gid, type="startroll", player=player, die=str(die))
            assert r.status_code in (200, 303), (name, r.status_code)
        said = f"Roll-off: {', '.join(f'{p} {d}' for p, d in zip(players, (2, 5, 1, 3)))}. Ben rolled highest and {ends}."
        assert said in text_of(client.get(f"/games/{gid}").data), name
        assert said in text_of(viewer.get(path).data), name
    # Under way, a tie to roll again: the live view says the dice so far, as the scorer's page
    # (it said only who rolls next; a second review).
    gid = new_game(client, name="mitchi", players=("Ann", "Ben", "Cat"), starter="rolloff")
    path = turn_on(client, gid)
    for player, die in (("Ann", 5), ("Ben", 5), ("Cat", 2)):
        enter(client, gid, type="startroll", player=player, die=str(die))
    page = text_of(viewer.get(path).data)
    assert "Rolled so far: Ann 5, Ben 5, Cat 2." in page and "Ann" in page.split("Rolled so far")[0]


def test_the_live_view_shows_each_game_midway_and_at_its_end(app, client, auth):
    import io
    import json

    auth.register()
    goldens = _finished_goldens()
    assert set(goldens) == {"mitchi", "mia", "mice-and-men"}
    for name, rec in goldens.items():
        for entries, over in ((rec["entries"][: len(rec["entries"]) // 2], False), (rec["entries"], True)):
            doc = {**rec, "entries": entries}
            r = client.post("/import", data={"records": [(io.BytesIO(json.dumps(doc).encode()), "r.json")]},
                            content_type="multipart/form-data")
            assert r.status_code == 303
            with Session(app.extensions["scorekeeper.engine"]) as s:
                from scorekeeper.models import Game

                gid = max(s.exec(select(Game.id)).all())
            path = turn_on(client, gid)
            page = app.test_client().get(path).data.decode()
            assert ("Game over" in page) == over, (name, over)
            assert ("The game is over." in page) == over
            assert "<form" not in page and "<button" not in page, name
            for p in rec["players"]:
                assert p in page


def test_the_live_view_shows_the_tie_break_order_and_the_doubled_pot(app, client, auth):
    auth.register()
    gid = new_game(client, players=("Ann", "Ben", "Cat"))
    enter(client, gid, type="turn", player="Ann", **{"hand.0": "3", "hand.1": "1", "rolls": "2"})
    enter(client, gid, type="turn", player="Ben", **{"hand.0": "3", "hand.1": "1", "rolls": "1"})
    enter(client, gid, type="turn", player="Cat", **{"hand.0": "6", "hand.1": "6", "rolls": "2"})
    path = turn_on(client, gid)
    page = app.test_client().get(path).data.decode()
    # who tied, as the scorer's page says it ("Ben and Ann"; it was "Ben, Ann": a playtest)
    assert ("Tie-break: Ben and Ann tied; the pot doubled to 2; they roll in this order: "
            "<bdi>Ben</bdi> → <bdi>Ann</bdi>") in page
    # Ben rolls a Mitchi in the tie-break: the live view says the pot as the scorer's page does
    enter(client, gid, type="tiebreak", player="Ben", **{"hand.0": "2", "hand.1": "1"})
    page = app.test_client().get(path).data.decode()
    assert ("Tie-break: Ben and Ann tied; the pot doubled to 2, now 4 with Mitchis; they roll "
            "in this order: <bdi>Ben</bdi> → <bdi>Ann</bdi>") in page
    # Ann ties him (a Mitchi too): the second tie-break is numbered, as on the scorer's page
    enter(client, gid, type="tiebreak", player="Ann", **{"hand.0": "2", "hand.1": "1"})
    page = app.test_client().get(path).data.decode()
    assert re.search(r"Tie-break 2: \w+ and \w+ tied again; the pot doubled to \d+", page), page


def test_a_poll_of_another_groups_game_at_its_very_version_is_404(app, client, auth):
    """The unchanged-poll answer (204, the version alone read) is given to members only."""
    auth.register()
    gid = new_game(client)
    version = version_of(client.get(f"/games/{gid}").data)
    assert client.get(f"/games/{gid}/poll?v={version}", headers=HX).status_code == 204
    other = app.test_client()
    Auth(other).register("zed")
    assert other.get(f"/games/{gid}/poll?v={version}").status_code == 404


def test_an_unchanged_poll_reads_the_account_and_the_version_in_one_statement(app, client, auth):
    """A scorer's phone polls every two seconds: the account and the game's version (with the
    membership check) are one statement (groups.load_account), and nothing else runs."""
    from .test_entry_path import statements

    auth.register()
    gid = new_game(client)
    version = version_of(client.get(f"/games/{gid}").data)
    seen, stop = statements(app)
    try:
        assert client.get(f"/games/{gid}/poll?v={version}", headers=HX).status_code == 204
    finally:
        stop()
    assert len(seen) == 1 and "FROM user LEFT OUTER JOIN game" in seen[0].replace('"', ""), seen


def test_the_stale_answers_look_up_of_a_correction_reads_by_index(app, client, auth):
    """Which entry a correction replaced is read through ``ix_entry_replaced_by_id``
    (migration 0016): without it, every stale tap's answer read every entry of every game
    (SQLite built an automatic index over the whole table for each answer)."""
    from sqlalchemy import event, inspect, text

    engine = app.extensions["scorekeeper.engine"]
    assert "ix_entry_replaced_by_id" in {ix["name"] for ix in inspect(engine).get_indexes("entry")}
    auth.register("ann")
    gid = new_game(client)
    version = version_of(client.get(f"/games/{gid}").data)
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "2"}
    first = client.post(f"/games/{gid}/entries", data={**turn, "version": version}, headers=HX)
    now = version_of(first.data)
    assert client.post(f"/games/{gid}/entries/2", data={**turn, "version": now, "hand.0": "4"}).status_code == 303
    seen = []

    def keep(conn, cursor, statement, parameters, context, executemany):
        if "replaced_by_id" in statement and statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", keep)
    try:
        late = client.post(f"/games/{gid}/undo", data={"version": now}, headers=HX)
    finally:
        event.remove(engine, "before_cursor_execute", keep)
    assert late.status_code == 409 and "entry 2 corrected to" in late.data.decode()
    assert len(seen) == 1
    statement, parameters = seen[0]
    if engine.dialect.name != "sqlite":  # PostgreSQL plans by the table's size: the index's presence is the check
        return
    with engine.connect() as conn:
        plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters))
    assert "ix_entry_replaced_by_id" in plan and "AUTOMATIC" not in plan, plan


def test_after_a_redo_another_phone_is_told_who_put_it_back(app, client, auth):
    """ben enters, ann undoes and redoes: ann made the last change. The put-back entry is hers
    (it was told as ben's, who did nothing since: found by the twelfth review)."""
    gid, ben = ann_and_ben_at_one_game(app, client, auth)
    version = version_of(client.get(f"/games/{gid}").data)
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1"}
    r = ben.post(f"/games/{gid}/entries", data={**turn, "version": version}, headers=HX)
    bens_page = version_of(r.data)
    r = client.post(f"/games/{gid}/undo", data={"version": bens_page}, headers=HX)
    r = client.post(f"/games/{gid}/redo", data={"version": version_of(r.data)}, headers=HX)
    assert r.status_code == 200
    late = ben.post(f"/games/{gid}/entries", data={"type": "turn", "player": "Ben", "hand.0": "4", "hand.1": "4",
                                                   "rolls": "1", "version": bens_page}, headers=HX)
    assert late.status_code == 409 and "Last change, by ann: “Ann: 6-5 in 1” was put back with Redo." in late.data.decode()
    # Polled: the game changed (Redo put back what the undo took), it did not move on.
    polled = ben.get(f"/games/{gid}/poll?v={bens_page}", headers=HX).data.decode()
    assert "The game changed. Last change, by ann: “Ann: 6-5 in 1” was put back with Redo." in polled
    # Undone again and another entry made at that position: an entry again, though a row put back
    # by Redo is among those before it there.
    version = version_of(client.get(f"/games/{gid}").data)
    version = version_of(client.post(f"/games/{gid}/undo", data={"version": version}, headers=HX).data)
    client.post(f"/games/{gid}/entries", data={**turn, "hand.0": "5", "hand.1": "5", "version": version}, headers=HX)
    r = ben.post(f"/games/{gid}/undo", data={"version": version}, headers=HX)
    assert r.status_code == 409 and "Last entry, by ann: Ann: 5-5 in 1." in r.data.decode()


def test_a_redo_with_more_left_to_redo_is_told_as_a_redo(app, client, auth):
    """Two entries undone, one put back: Redo still offers the other, but the last change was the
    Redo. Ann's own answer, ben's poll and ben's stale tap all said the Redo's entry "was undone"
    (they asked whether Redo had something left; a playtest)."""
    def done_text(data: bytes) -> str:  # what the panel says to screen readers the tap did
        return re.search(r'<p class="sr-only done">([^<]*)</p>', data.decode()).group(1)

    gid, ben = ann_and_ben_at_one_game(app, client, auth)
    version = version_of(client.get(f"/games/{gid}").data)
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1"}
    r = client.post(f"/games/{gid}/entries", data={**turn, "version": version}, headers=HX)
    r = client.post(f"/games/{gid}/entries", data={**turn, "player": "Ben", "hand.0": "4", "hand.1": "2",
                                                   "version": version_of(r.data)}, headers=HX)
    bens_page = version_of(r.data)
    r = client.post(f"/games/{gid}/undo", data={"version": bens_page}, headers=HX)
    r = client.post(f"/games/{gid}/undo", data={"version": version_of(r.data)}, headers=HX)
    assert done_text(r.data) == "Undone: Ann: 6-5 in 1."
    r = client.post(f"/games/{gid}/redo", data={"version": version_of(r.data)}, headers=HX)
    page = r.data.decode()
    assert r.status_code == 200 and "Redo: Ben: 4-2 in 1" in page
    assert done_text(r.data) == "Put back: Ann: 6-5 in 1."
    polled = ben.get(f"/games/{gid}/poll?v={bens_page}", headers=HX).data.decode()
    assert "The game changed. Last change, by ann: “Ann: 6-5 in 1” was put back with Redo." in polled
    late = ben.post(f"/games/{gid}/entries", data={**turn, "player": "Cat", "hand.0": "3", "hand.1": "1",
                                                   "version": bens_page}, headers=HX)
    assert late.status_code == 409
    assert "Last change, by ann: “Ann: 6-5 in 1” was put back with Redo." in late.data.decode()
    # Undone again: the last change is an undo once more, though a Redo row is in the log.
    r = client.post(f"/games/{gid}/undo", data={"version": version_of(r.data)}, headers=HX)
    assert done_text(r.data) == "Undone: Ann: 6-5 in 1."
    polled = ben.get(f"/games/{gid}/poll?v={bens_page}", headers=HX).data.decode()
    assert "Last change, by ann: “Ann: 6-5 in 1” was undone." in polled


def test_the_live_link_follows_the_table_to_its_rematch(app, client, auth):
    """A table screen shows the finished game; Rematch is tapped. Its next poll shows the new game
    (asking who starts), by the same link: no new link or QR code to pass round. The old game's
    "Show to the table" then has no link; the new one's has the same. Found at the table: the
    screen stayed on the game that had ended."""
    from .test_rematch import finished_mia

    auth.register()
    table = finished_mia(client)
    path = turn_on(client, table.game)
    viewer = app.test_client()
    ended = viewer.get(path).data.decode()
    assert "Game over" in ended
    asked = poll_of(ended)
    r = client.post(f"/games/{table.game}/rematch", data={"version": str(table.version)})
    new_id = int(re.search(r"/games/(\d+)$", r.headers["Location"]).group(1))
    r = viewer.get(asked, headers=HX)
    assert r.status_code == 200 and "Who starts?" in r.data.decode() and "Game over" not in r.data.decode()
    assert "Who starts?" in viewer.get(path).data.decode()
    assert "live-link" not in client.get(f"/games/{table.game}/table").data.decode()
    assert path in client.get(f"/games/{new_id}/table").data.decode()


def test_the_live_link_follows_a_loaded_game_to_its_rematch(app, client, auth):
    """A game loaded from a record and its rematch are both at version 0: the table screen's poll
    still moves to the rematch (it asks for the game as well as the version). Found by a review:
    the screen stayed on the loaded game, answered "nothing changed" every second."""
    import io
    import json

    from .test_rematch import finished_mia

    auth.register()
    record = finished_mia(client).record()
    auth.logout()
    auth.register("bob")
    r = client.post("/import", data={"records": (io.BytesIO(json.dumps(record).encode()), "game.json")},
                    content_type="multipart/form-data")
    loaded = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    path = turn_on(client, loaded)
    viewer = app.test_client()
    ended = viewer.get(path).data
    assert "Game over" in ended.decode()
    asked = poll_of(ended)
    assert viewer.get(asked, headers=HX).status_code == 204  # nothing changed yet
    version = version_of(client.get(f"/games/{loaded}").data)
    r = client.post(f"/games/{loaded}/rematch", data={"version": str(version)})
    new_id = int(re.search(r"/games/(\d+)$", r.headers["Location"]).group(1))
    assert version_of(client.get(f"/games/{new_id}").data) == version  # the case that was missed
    r = viewer.get(asked, headers=HX)
    assert r.status_code == 200 and "Who starts?" in r.data.decode() and "Game over" not in r.data.decode()
    assert viewer.get(poll_of(r.data), headers=HX).status_code == 204
