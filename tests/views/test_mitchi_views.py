"""The Mitchi pages through the test client: fragments, refusals, undo, corrections."""

from __future__ import annotations

import html
import io
import json
import re

import pytest

from ..conftest import HX, messages, new_game, version_of, without_entered_by
from .test_live import turn_on


@pytest.fixture
def game(client, auth):
    auth.register()
    return new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=3)


def post_turn(client, game, version, player, hand, rolls, htmx=True):
    data = {"version": str(version), "type": "turn", "player": player,
            "hand.0": str(hand[0]), "hand.1": str(hand[1]), "rolls": str(rolls)}
    return client.post(f"/games/{game}/entries", data=data, headers=HX if htmx else {})


def test_page_or_fragment_with_vary(client, game):
    page = client.get(f"/games/{game}")
    assert page.status_code == 200 and b"<html" in page.data and b'id="panel"' in page.data
    assert "HX-Request" in page.headers["Vary"]
    r = post_turn(client, game, version_of(page.data), "Ann", (6, 3), 2)
    assert r.status_code == 200
    assert b"<html" not in r.data and r.data.lstrip().startswith(b'<section id="panel"')
    assert "HX-Request" in r.headers["Vary"]
    assert b"Ben's turn" in r.data


def spoken(html: str) -> str:
    """What a screen reader reads of ``html``: its text without the hidden pictures
    (``aria-hidden``: the dice faces) and the tags."""
    import re

    html = re.sub(r'<svg[^>]*aria-hidden="true".*?</svg>', "", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_worst_hand_is_read_once(client, game):
    """The dice of the worst hand are pictures (hidden from screen readers); its text follows
    them, so the dice carry no hidden text of their own ("6-3 6-3")."""
    r = post_turn(client, game, 0, "Ann", (6, 3), 2)
    tile = r.data.decode().split("Worst hand so far", 1)[1].split("</dd>", 1)[0]
    assert spoken(tile).count("6-3") == 1, spoken(tile)
    assert 'class="hand"' in tile  # the dice are still shown


def test_plain_form_post_redirects(client, game):
    r = post_turn(client, game, 0, "Ann", (6, 3), 2, htmx=False)
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game}")


@pytest.mark.parametrize(
    "player,hand,rolls,needle",
    [
        ("Ann", (7, 1), 1, "A die shows 1 to 6, not 7"),
        ("Ann", (0, 1), 1, "A die shows 1 to 6, not 0"),
        ("Ann", (3, 1), 4, "The starting player uses 1, 2 or 3 rolls, not 4"),
        ("Ben", (3, 1), 1, "It is Ann&#39;s turn, not Ben&#39;s"),
        ("Zed", (3, 1), 1, "&#39;Zed&#39; is not a player here"),
    ],
)
def test_refused_entries_store_nothing(client, game, player, hand, rolls, needle):
    before = client.get(f"/games/{game}/record.json").json
    r = post_turn(client, game, 0, player, hand, rolls)
    assert r.status_code == 422
    assert any(needle in m for m in messages(r.data)), messages(r.data)
    assert client.get(f"/games/{game}/record.json").json == before


def test_rolls_above_roll_limit_refused(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    r = post_turn(client, game, 1, "Ben", (6, 3), 3)
    assert r.status_code == 422
    assert "the roll limit this round is 2, so Ben may use 1 or 2" in messages(r.data)[0]
    # Only 1..roll limit is offered.
    assert b'value="3">in 3' not in r.data and b'value="2">in 2' in r.data


def test_bad_form_data(client, game):
    r = client.post(f"/games/{game}/entries",
                    data={"version": "0", "type": "turn", "player": "Ann", "hand.0": "x", "hand.1": "1",
                          "rolls": "1"}, headers=HX)
    assert r.status_code == 422 and "Choose a face" in messages(r.data)[0]
    r = client.post(f"/games/{game}/entries", data={"version": "0", "player": "Ann"}, headers=HX)
    assert r.status_code == 422
    r = client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "player": "Ann",
                                                    "hand.0": "3", "hand.1": "1", "rolls": "two"}, headers=HX)
    assert r.status_code == 422 and "Rolls must be a whole number" in messages(r.data)[0]
    # a third die (a hand-made form): said as the other refusals, not by the record's key "hand"
    r = client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "player": "Ann", "hand.0": "3",
                                                    "hand.1": "2", "hand.2": "2", "rolls": "1"}, headers=HX)
    assert r.status_code == 422 and messages(r.data)[0].startswith("A hand must have 2 dice, not 3"), messages(r.data)


def test_missing_player_or_dice_are_named_as_missing(client, game):
    """A hand-made form without a player or without dice is told what is missing, not "null"
    (found by a review: "null is not a player here"); nothing is stored."""
    before = client.get(f"/games/{game}/record.json").json
    r = client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "hand.0": "3", "hand.1": "1",
                                                    "rolls": "1"}, headers=HX)
    assert r.status_code == 422
    assert messages(r.data)[0].startswith("The entry names no player; players: Ann"), messages(r.data)
    r = client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "player": "Ann", "rolls": "1"},
                    headers=HX)
    assert r.status_code == 422
    assert messages(r.data)[0].startswith("A hand is missing: give 2 dice, each 1 to 6"), messages(r.data)
    assert not any("null" in m for m in messages(r.data))
    assert client.get(f"/games/{game}/record.json").json == before


def test_double_tap_records_once(client, game):
    first = post_turn(client, game, 0, "Ann", (6, 3), 2)
    again = post_turn(client, game, 0, "Ann", (6, 3), 2)
    assert first.status_code == 200
    assert again.status_code == 409 and "already recorded" in messages(again.data)[0]
    entries = client.get(f"/games/{game}/record.json").json["entries"]
    assert len(entries) == 2  # start + one turn


def test_stale_form_from_second_phone(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)  # phone 1
    r = post_turn(client, game, 0, "Ann", (5, 5), 1)  # phone 2, old page, different entry
    assert r.status_code == 409 and "changed since this page was shown" in messages(r.data)[0]
    assert version_of(r.data) == 1  # the answer carries the current state
    r = client.post(f"/games/{game}/entries", data={"type": "turn", "player": "Ben"}, headers=HX)
    assert r.status_code == 422 and "did not say which version" in messages(r.data)[0]  # no version at all


def test_entry_after_game_end_refused(client, game):
    v = 0
    # Three rounds started by Ann, who takes 1 point each time: 3 is the point limit.
    for _ in range(3):
        for player, hand in (("Ann", (3, 1)), ("Ben", (6, 6)), ("Cat", (6, 5))):
            r = post_turn(client, game, v, player, hand, 1)
            assert r.status_code == 200, messages(r.data)
            v += 1
    page = client.get(f"/games/{game}").data.decode()
    assert "Game over" in page
    assert "Ben and Cat share the win with 0 points" in page
    from scorekeeper.rules import record as records

    verdict = records.replay(client.get(f"/games/{game}/record.json").json)
    assert verdict["finished"] and verdict["winners"] == ["Ben", "Cat"]
    r = post_turn(client, game, v, "Ben", (3, 1), 1)
    assert r.status_code == 422 and "The game is over" in messages(r.data)[0]


def test_undo_keeps_history(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    r = client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)
    assert r.status_code == 200 and b"Ann's turn" in r.data
    record = client.get(f"/games/{game}/record.json").json
    assert len(record["entries"]) == 1
    assert record["history"][0]["status"] == "undone"
    assert record["history"][0]["entry"]["hand"] == [6, 3]
    # A second tap on the same undo button changes nothing more.
    r = client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)
    assert r.status_code == 409
    assert len(client.get(f"/games/{game}/record.json").json["entries"]) == 1


def test_correction_replays_and_is_kept(client, game):
    for v, (player, hand, rolls) in enumerate((("Ann", (6, 3), 2), ("Ben", (5, 1), 1))):
        post_turn(client, game, v, player, hand, rolls)
    r = client.post(f"/games/{game}/entries/2", data={"version": "2", "type": "turn", "player": "Ann",
                                                      "hand.0": "6", "hand.1": "4", "rolls": "2"})
    assert r.status_code == 303
    record = client.get(f"/games/{game}/record.json").json
    assert record["entries"][1]["hand"] == [6, 4]
    assert record["history"][0]["status"] == "replaced" and record["history"][0]["entry"]["hand"] == [6, 3]


def test_correction_that_breaks_a_later_entry_is_refused(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 3)
    post_turn(client, game, 1, "Ben", (5, 1), 3)
    before = client.get(f"/games/{game}/record.json").json
    # Ann's turn corrected to 1 roll: Ben's 3 rolls become illegal.
    r = client.post(f"/games/{game}/entries/2", data={"version": "2", "type": "turn", "player": "Ann",
                                                      "hand.0": "6", "hand.1": "3", "rolls": "1"})
    assert r.status_code == 422
    text = r.data.decode()
    assert "entry 3 (Ben: 5-1 in 3)" in text and "roll limit this round is 1" in text
    assert client.get(f"/games/{game}/record.json").json == before


def test_download_and_upload_record(client, auth, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    r = client.get(f"/games/{game}/record.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    record = r.json
    # Loaded on another phone's account, the game goes on from where it was.
    auth.logout()
    auth.register("bob")
    data = {"records": (io.BytesIO(json.dumps(record).encode()), "game.json")}
    r = client.post("/import", data=data, content_type="multipart/form-data")
    assert r.status_code == 303
    new_id = int(r.headers["Location"].rsplit("/", 1)[1])
    again = client.get(f"/games/{new_id}/record.json").json
    assert again["entries"] == without_entered_by(record)["entries"] and again["players"] == record["players"]
    assert "Ben's turn" in client.get(f"/games/{new_id}").data.decode()


def test_upload_bad_record_stores_nothing(client, game):
    bad = {"format": 1, "game": "mitchi", "players": ["A", "B"], "options": {},
           "entries": [{"type": "start", "player": "A"}, {"type": "turn", "player": "B", "hand": [3, 1], "rolls": 1}]}
    count = client.get("/").data.count(b'href="/games/')
    r = client.post("/import", data={"records": (io.BytesIO(json.dumps(bad).encode()), "bad.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 400 and "entry 2: it is A&#39;s turn, not B&#39;s" in r.data.decode()
    r = client.post("/import", data={"records": (io.BytesIO(b"{nope"), "bad.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 400 and "not valid JSON" in r.data.decode()
    assert client.get("/").data.count(b'href="/games/') == count


def test_html_in_names_is_escaped(client, auth):
    auth.register("eve")
    game = new_game(client, players=("<b>Ann</b>", "Ben"), starter="0")
    page = client.get(f"/games/{game}").data.decode()
    assert "<b>Ann</b>" not in page and "&lt;b&gt;Ann&lt;/b&gt;" in page


def test_setup_validation(client, auth):
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "Ann", "players-1": " ann ",
                                               "starter": "0", "opt_point_limit": "25", "action": "create"})
    assert r.status_code == 400 and b"used twice" in r.data
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "Ann", "starter": "0",
                                               "opt_point_limit": "25", "action": "create"})
    assert r.status_code == 400 and b"2 or more players" in r.data
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "A" * 41, "players-1": "B",
                                               "starter": "0", "opt_point_limit": "25", "action": "create"})
    assert r.status_code == 400


def test_a_blank_seat_between_names_is_refused_at_that_seat(client, auth):
    """Ann, an empty seat, Cat: no game of two (the empty seat was dropped without a word; found by a
    review). The form comes back with the names, the message at seat 2; empty seats at the end are
    left out as before."""
    auth.register()
    data = {"seats": "4", "players-0": "Ann", "players-1": "  ", "players-2": "Cat", "players-3": "",
            "starter": "2", "opt_point_limit": "25", "action": "create"}
    r = client.post("/games/new/mitchi", data=data)
    page = r.data.decode()
    assert r.status_code == 400
    assert "Check the fields marked below." in page
    said = "Seat 2 has no name, and a seat below it has one: type the name, or move the names below up (↑)."
    assert page.count(said) == 1
    assert page.index('value="Ann"') < page.index(said) < page.index('value="Cat"')
    assert 'name="starter" value="2" checked' in page
    # The refusal is part of the form a seat button's answer replaces (htmx swaps #setup): moving
    # Cat up takes it away with the seat's message (it stayed over a form with nothing marked).
    assert page.index('id="setup"') < page.index("Check the fields marked below.")
    moved = client.post("/games/new/mitchi", data={**data, "action": "up-2"}, headers=HX).data.decode()
    assert moved.strip().startswith("<form") and "Check the fields" not in moved and said not in moved
    assert moved.index('value="Ann"') < moved.index('value="Cat"') < moved.index('name="players-2"')
    # A seat button that leaves a gap (the blank seat moved up, to the top) keeps it marked there.
    first = client.post("/games/new/mitchi", data={**data, "action": "up-1"}, headers=HX).data.decode()
    assert first.index("Seat 1 has no name, and a seat below it has one") < first.index('value="Ann"')
    assert "Check the fields" not in first  # said when the game is started
    # "starts" ticked on the blank seat: said with the first refusal, not only at the next try.
    r = client.post("/games/new/mitchi", data={**data, "starter": "1"})
    assert r.status_code == 400
    assert ("Check the fields marked below. Choose who starts: tick “starts” beside a name, or roll for it"
            in html.unescape(r.data.decode()))
    assert not re.findall(rb'href="/games/\d+"', client.get("/history").data)  # no game made
    # Filled in, the same form starts a game of three, Cat starting; a blank last seat is no seat.
    r = client.post("/games/new/mitchi", data={**data, "players-1": "Ben"})
    assert r.status_code == 303
    record = client.get(r.headers["Location"] + "/record.json").json
    assert record["players"] == ["Ann", "Ben", "Cat"]
    assert len(set(re.findall(rb'href="/games/(\d+)"', client.get("/history").data))) == 1


def test_setup_reorders_seats(client, auth):
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "Ann", "players-1": "Ben",
                                               "players-2": "Cat", "starter": "0", "opt_point_limit": "25",
                                               "action": "down-0"})
    page = r.data.decode()
    assert page.index('value="Ben"') < page.index('value="Ann"') < page.index('value="Cat"')
    # The starter moved with Ann, to seat 2.
    assert 'name="starter" value="1" checked' in page


def test_a_seat_button_from_htmx_gets_the_form_alone(client, auth):
    """htmx swaps the setup form in place (templates/games/_setup_form.html): its answer is the
    form, not a whole page to paste into it; without htmx the button gets the page."""
    auth.register()
    data = {"seats": "3", "players-0": "Ann", "players-1": "Ben", "players-2": "Cat", "starter": "0",
            "opt_point_limit": "25", "action": "down-0"}
    fragment = client.post("/games/new/mitchi", data=data, headers=HX).data.decode()
    assert fragment.strip().startswith('<form method="post"') and fragment.strip().endswith("</form>")
    assert fragment.index('value="Ben"') < fragment.index('value="Ann"')
    whole = client.post("/games/new/mitchi", data=data).data.decode()
    assert "<html" in whole and "<h1>" in whole and 'id="setup"' in whole


def test_rolloff_from_setup(client, auth):
    auth.register()
    game = new_game(client, players=("Ann", "Ben", "Cat"), starter="rolloff")
    page = client.get(f"/games/{game}").data.decode()
    assert "Who starts?" in page
    v = version_of(page)
    said = []  # what the panel says of the dice so far, after each one
    for player, die in (("Ann", 5), ("Ben", 5), ("Cat", 2), ("Ann", 3), ("Ben", 6)):
        r = client.post(f"/games/{game}/entries", data={"version": str(v), "type": "startroll",
                                                        "player": player, "die": str(die)}, headers=HX)
        assert r.status_code == 200, messages(r.data)
        v += 1
        found = re.search(r'<p class="news" id="rolled-off">(.*?)</p>', r.data.decode(), re.S)
        said.append(re.sub(r"<[^>]+>", "", found.group(1)) if found else None)
    assert "Ben's turn (starts" in r.data.decode()
    assert said == ["Rolled so far: Ann 5.", "Rolled so far: Ann 5, Ben 5.",
                    "Rolled so far: Ann 5, Ben 5, Cat 2.",  # Ann and Ben tied: they roll again
                    "Rolled so far: Ann 5, Ben 5, Cat 2; then Ann 3.", None], said
    # Decided: the roll-off's end is said once, over the starter's turn (it moved on without a word).
    news = re.findall(r'<p class="news">(.*?)</p>', r.data.decode(), re.S)
    assert [re.sub(r"<[^>]+>", "", n) for n in news] == [
        "Roll-off: Ann 5, Ben 5, Cat 2; then Ann 3, Ben 6. Ben rolled highest and starts."]
    r = client.post(f"/games/{game}/entries", data={"version": str(v), "type": "turn", "player": "Ben",
                                                    "hand.0": "4", "hand.1": "2", "rolls": "1"}, headers=HX)
    assert r.status_code == 200 and "Roll-off:" not in r.data.decode()


def test_setup_refuses_a_starter_without_a_name(client, auth):
    auth.register()
    base = {"seats": "3", "players-0": "Ann", "players-1": "Ben", "players-2": "",
            "opt_point_limit": "25", "action": "create"}
    for starter in ("2", "9", "x"):
        r = client.post("/games/new/mitchi", data={**base, "starter": starter})
        assert r.status_code == 400 and "Choose who starts" in r.data.decode()
    assert client.get("/games/1").status_code == 404  # no game was stored


def test_a_refused_setup_ties_each_error_to_its_field_and_names_each_seats_starter(client, auth):
    """A screen reader hears a field's error as the field is focused (``aria-invalid`` and
    ``aria-describedby`` on the point limit and on a name), and each seat's "starts" radio says
    whose seat it is: all were named "starts" (a playtest with a screen reader's tree)."""
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "Ann", "players-1": "",
                                               "players-2": "Cat", "starter": "0", "opt_point_limit": "0",
                                               "action": "create"})
    assert r.status_code == 400
    page = r.data.decode()
    for field, error in (("opt_point_limit", "between 1 and 999,999,999"), ("players-1", "Seat 2 has no name")):
        tag = re.search(r'<input[^>]*\bid="%s"[^>]*>' % field, page).group(0)
        assert 'aria-invalid="true"' in tag and f'aria-describedby="{field}-error"' in tag, tag
        assert error in re.search(r'<p class="msg error" id="%s-error">([^<]*)' % field, page).group(1)
    assert 'aria-invalid' not in re.search(r'<input[^>]*\bid="players-0"[^>]*>', page).group(0)
    starters = re.findall(r'<input type="radio" name="starter" value="\d+"(?: checked)? aria-label="([^"]+)"', page)
    assert starters == ["Seat 1 starts", "Seat 2 starts", "Seat 3 starts"]


def test_the_panel_says_to_screen_readers_what_the_tap_did(client, game):
    """An entry's, an undo's and a redo's panel says what was done, for the live region to read
    first ("Recorded: …", "Undone: …"): it read only whose turn it was next (a playtest). A
    poll's panel, another phone's change, says it in its own news, not here."""
    done = re.compile(r'<p class="sr-only done">([^<]*)</p>')
    r = post_turn(client, game, 0, "Ann", (6, 3), 2)
    assert done.findall(r.data.decode()) == ["Recorded: Ann: 6-3 in 2."]
    r = client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)
    assert done.findall(r.data.decode()) == ["Undone: Ann: 6-3 in 2."]
    r = client.post(f"/games/{game}/redo", data={"version": "2"}, headers=HX)
    assert done.findall(r.data.decode()) == ["Put back: Ann: 6-3 in 2."]
    polled = client.get(f"/games/{game}/poll?v=0", headers=HX).data.decode()
    assert done.findall(polled) == []
    assert done.findall(client.get(f"/games/{game}").data.decode()) == []
    # Another phone's entry is news, read politely in its turn, not an alert on every update of a
    # phone that only follows (a playtest); a refusal still interrupts.
    news = re.search(r'<p class="msg info"([^>]*)>The game (?:moved on|changed)\.', polled)
    assert news and "role=" not in news.group(1), polled[:400]
    refused = post_turn(client, game, 3, "Ben", (7, 1), 1).data.decode()
    assert re.search(r'<p class="msg error" role="alert">', refused)


def test_the_panel_marks_its_round_news_old_unless_a_change_brought_it(client, game):
    """The live region reads a panel's round news only when the answer brought a change that is
    not an undo: an entry, a Redo, another phone's entry (a poll) or a tap refused as the game had
    moved on. After an undo, an entry refused by the rules, or a page opened, the news on screen
    is an older round's, and the panel says so (``data-old-news``; static/app.js showOutcome):
    it was read as if the round had just ended (a playtest)."""
    def old(r) -> bool:
        tag = re.search(r'<section id="panel"[^>]*>', r.data.decode()).group(0)
        return "data-old-news" in tag

    turns = (("Ann", (6, 6)), ("Ben", (5, 5)), ("Cat", (3, 1)))  # Cat takes the pot: round 1's news
    for v, (player, hand) in enumerate(turns):
        r = post_turn(client, game, v, player, hand, 1)
        assert not old(r) and r.status_code == 200
    assert "takes the pot" in r.data.decode()
    assert old(client.get(f"/games/{game}", headers=HX))  # a page opened: nothing new
    assert not old(client.get(f"/games/{game}/poll?v=2", headers=HX))  # another phone's entry
    r = post_turn(client, game, 3, "Cat", (7, 1), 1)  # a die of 7: refused, nothing changed
    assert r.status_code == 422 and old(r)
    r = post_turn(client, game, 2, "Cat", (3, 1), 2)  # a stale form: the game moved on meanwhile
    assert r.status_code == 409 and not old(r)
    post_turn(client, game, 3, "Cat", (6, 4), 1)  # round 2's first turn
    r = client.post(f"/games/{game}/undo", data={"version": "4"}, headers=HX)
    assert "takes the pot" in r.data.decode() and old(r)  # round 1's news again, not new
    assert old(client.get(f"/games/{game}/poll?v=4", headers=HX))  # another phone's undo
    r = post_turn(client, game, 4, "Ann", (6, 4), 1)  # stale: the game changed by an undo
    assert r.status_code == 409 and old(r)
    r = client.post(f"/games/{game}/redo", data={"version": "5"}, headers=HX)
    assert not old(r)


def test_a_tie_break_s_start_is_news_for_screen_readers(client, game):
    """As a tie-break starts, the live region read only "Tie-break: Cat rolls once": who tied, the
    doubled pot and the order are on the screen in the glance and a line above the pad (a
    playtest). The panel says them once more for screen readers, as news (read only when new:
    not after an undo back to it), until the tie-break's first roll."""
    def said(r) -> list[str]:
        return [re.sub(r"<[^>]+>", "", t) for t in re.findall(r'<p class="sr-only news">(.*?)</p>', r.data.decode())]

    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (3, 1), 1)
    r = post_turn(client, game, 2, "Cat", (3, 1), 2)  # Ben and Cat tie on the worst hand
    assert said(r) == ["Tie-break: Cat and Ben tied; the pot doubled to 2; they roll in this order: Cat → Ben."]
    r = client.post(f"/games/{game}/entries", headers=HX, data={
        "version": "3", "type": "tiebreak", "player": "Cat", "hand.0": "5", "hand.1": "4"})
    assert r.status_code == 200 and said(r) == []
    r = client.post(f"/games/{game}/undo", data={"version": "4"}, headers=HX)
    assert said(r) and "data-old-news" in re.search(r'<section id="panel"[^>]*>', r.data.decode()).group(0)
    # Tied again: the next tie-break is numbered, as the line above the pad numbers it (its news
    # said "Tie-break: …" under "Tie-break 2: Ben rolls once", a playtest).
    for version, player in ((5, "Cat"), (6, "Ben")):
        r = client.post(f"/games/{game}/entries", headers=HX, data={
            "version": str(version), "type": "tiebreak", "player": player, "hand.0": "5", "hand.1": "4"})
        assert r.status_code == 200
    news = said(r)
    assert len(news) == 1 and news[0].startswith("Tie-break 2: ") and "tied again; the pot doubled to 4" in news[0]
    roller = re.search(r"Tie-break 2: (\w+) rolls once", re.sub(r"<[^>]+>", "", r.data.decode())).group(1)
    # The Whole log tells the two tie-breaks' rolls apart (two "Ben: tie-break roll 5-4" in a row read
    # as one roll entered twice, a playtest); its "correct" link still finds the entry unchanged.
    r = client.post(f"/games/{game}/entries", headers=HX, data={
        "version": "7", "type": "tiebreak", "player": roller, "hand.0": "6", "hand.1": "5"})
    assert r.status_code == 200
    panel = r.data.decode()  # "Last entries" too, where it sat under the first tie-break's rolls
    assert f"{roller}: tie-break 2 roll 6-5" in panel and f"{roller}: tie-break roll 5-4" in panel
    link = re.findall(r'href="([^"]+/entries/\d+\?was=[^"]+)"', panel)[-1].replace("&amp;", "&")
    assert "no longer the one your page showed" not in client.get(link).data.decode()
    log = client.get(f"/games/{game}/log").data.decode()
    assert f"{roller}: tie-break roll 5-4" in log and f"{roller}: tie-break 2 roll 6-5" in log
    link = re.findall(r'href="([^"]+/entries/\d+\?was=[^"]+)"', log)[-1].replace("&amp;", "&")
    page = client.get(link).data.decode()
    assert "6-5" in page and "no longer the one your page showed" not in page


def test_a_later_tie_break_s_roll_is_named_alike_wherever_it_is_said(app, client, game):
    """A roll of a round's second tie-break is "tie-break 2" not only in "Last entries" and the
    Whole log but on Undo and Redo, in what this phone's change did, in what another phone is told,
    on its correction page, in the log's undone and corrected list and on the live view (a
    playtest: "Undo: Cat: tie-break roll 6-6" beside "Cat: tie-break 2 roll 6-6")."""
    for v, (player, hand) in enumerate((("Ann", (6, 3)), ("Ben", (3, 1)), ("Cat", (3, 1)))):
        post_turn(client, game, v, player, hand, 2)
    for v, player in ((3, "Cat"), (4, "Ben")):  # tied again
        client.post(f"/games/{game}/entries", headers=HX, data={
            "version": str(v), "type": "tiebreak", "player": player, "hand.0": "5", "hand.1": "4"})
    r = client.post(f"/games/{game}/entries", headers=HX, data={
        "version": "5", "type": "tiebreak", "player": "Ben", "hand.0": "6", "hand.1": "5"})
    text = lambda r: html.unescape(re.sub(r"<[^>]+>", "", r.data.decode()))  # noqa: E731
    two = "Ben: tie-break 2 roll 6-5"
    assert "Recorded: " + two + "." in text(r) and "Undo: " + two in text(r)
    assert "Last entry, by you: " + two + "." in text(client.get(f"/games/{game}/poll?v=0", headers=HX))
    assert "Last entry: " + two in text(app.test_client().get(turn_on(client, game)))  # a spectator's
    r = client.post(f"/games/{game}/undo", data={"version": "6"}, headers=HX)
    assert "Undone: " + two + "." in text(r) and "Redo: " + two in text(r)
    assert "“" + two + "” was undone." in text(client.get(f"/games/{game}/poll?v=0", headers=HX))
    r = client.post(f"/games/{game}/redo", data={"version": "7"}, headers=HX)
    assert "Put back: " + two + "." in text(r)
    assert "“" + two + "” was put back with Redo." in text(client.get(f"/games/{game}/poll?v=0", headers=HX))
    link = re.findall(r'href="([^"]+/entries/(\d+)\?was=[^"]+)"', r.data.decode())[-1]
    page = client.get(link[0].replace("&amp;", "&"))
    assert "Now: " + two + "." in text(page)
    data = {"version": "8", "type": "tiebreak", "player": "Ben", "hand.0": "6", "hand.1": "4",
            "once": re.search(r'name="once" value="([^"]+)"', page.data.decode()).group(1)}
    assert client.post(link[0].split("?")[0], data=data).status_code == 303
    said = text(client.get(f"/games/{game}/poll?v=0", headers=HX))
    assert f"entry {link[1]} corrected to “Ben: tie-break 2 roll 6-4”" in said
    log = text(client.get(f"/games/{game}/log"))
    undone = log[log.index("Undone and corrected"):]
    assert f"entry {link[1]}: {two} (undone" in undone
    assert f"entry {link[1]}: {two} (corrected to Ben: tie-break 2 roll 6-4" in undone


@pytest.mark.parametrize("first, again, undone", [
    # all three tie; the first tie-break ties again; undone back to Cat, who now does not tie: the
    # undone rolls were the first tie-break's, though the log's position 7 is now tie-break 2's
    ((3, 1), (6, 6), ["entry 7: Ann: tie-break roll 3-1 (undone", "entry 6: Ben: tie-break roll 3-1 (undone"]),
    # Ann and Ben tie, then tie again: Ann's 4-2 is tie-break 2's; undone back to Cat, who now ties
    # too: position 7 is now the first tie-break's
    ((6, 6), (3, 1), ["entry 7: Ann: tie-break 2 roll 4-2 (undone"]),
])
def test_an_undone_tie_break_roll_is_listed_as_it_was_named_when_entered(client, game, first, again, undone,
                                                                           monkeypatch):
    """The log's "Undone and corrected" list names a tie-break roll as it was named when it was
    entered, not by the tie-break its position holds now that the round was played again (a
    playtest: a roll undone from the first tie-break listed as "tie-break 2", and the other way)."""
    def roll(player, hand):
        nonlocal v
        r = client.post(f"/games/{game}/entries", headers=HX, data={
            "version": str(v), "type": "tiebreak", "player": player, "hand.0": str(hand[0]), "hand.1": str(hand[1])})
        assert r.status_code == 200, messages(r.data)
        v = version_of(r.data)

    v = 0
    for player, hand in (("Ann", (3, 1)), ("Ben", (3, 1)), ("Cat", first)):
        v = version_of(post_turn(client, game, v, player, hand, 1).data)
    if first == (3, 1):  # Cat, Ben, Ann tie again on 3-1
        for player in ("Cat", "Ben", "Ann"):
            roll(player, (3, 1))
        undo = 4
    else:  # Ben and Ann tie again; Ann rolls 4-2 in tie-break 2
        roll("Ben", (3, 1)), roll("Ann", (3, 1)), roll("Ann", (4, 2))
        undo = 4
    for _ in range(undo):
        r = client.post(f"/games/{game}/undo", data={"version": str(v)}, headers=HX)
        v = version_of(r.data)
    v = version_of(post_turn(client, game, v, "Cat", again, 1).data)
    if again == (6, 6):  # Ben and Ann tie; then again: Ann rolls in tie-break 2
        roll("Ben", (3, 1)), roll("Ann", (3, 1)), roll("Ann", (4, 2))
    else:  # all three tie: the first tie-break's three rolls
        roll("Cat", (5, 1)), roll("Ben", (6, 2)), roll("Ann", (6, 3))
    log = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/games/{game}/log").data.decode()))
    listed = log[log.index("Undone and corrected"):]
    for line in undone:
        assert line in listed, listed
    if again == (3, 1):
        # the log as it stood then is replayed, up to MAX_MADE_REPLAYS for a page: none beyond
        from scorekeeper.services import games as service

        def refused(*args):
            raise AssertionError("replayed beyond MAX_MADE_REPLAYS")
        monkeypatch.setattr(service, "MAX_MADE_REPLAYS", 0)
        monkeypatch.setattr(service, "replay", refused)
        log = html.unescape(re.sub(r"<[^>]+>", "", client.get(f"/games/{game}/log").data.decode()))
        assert "entry 7: Ann: tie-break roll 4-2 (undone" in log


def test_a_refused_correction_names_the_later_roll_as_the_log_does(client, game):
    """A correction that would make a later tie-break 2 roll illegal names that roll as the log
    names it, "tie-break 2" (a playtest: "entry 7 (Ann: tie-break roll 4-2)")."""
    v = 0
    for player, hand in (("Ann", (3, 1)), ("Ben", (3, 1)), ("Cat", (6, 6))):
        v = version_of(post_turn(client, game, v, player, hand, 1).data)
    for player, hand in (("Ben", (3, 1)), ("Ann", (3, 1)), ("Ann", (4, 2))):  # tied again: tie-break 2
        r = client.post(f"/games/{game}/entries", headers=HX, data={
            "version": str(v), "type": "tiebreak", "player": player, "hand.0": str(hand[0]), "hand.1": str(hand[1])})
        v = version_of(r.data)
    page = client.get(f"/games/{game}/entries/6").data.decode()
    once = re.search(r'name="once" value="([^"]+)"', page).group(1)
    r = client.post(f"/games/{game}/entries/6", data={  # Ann's first roll 4-2: Ben takes the pot at once
        "version": str(v), "type": "tiebreak", "player": "Ann", "hand.0": "4", "hand.1": "2", "once": once})
    said = html.unescape(re.sub(r"<[^>]+>", "", r.data.decode()))
    assert r.status_code == 422 and "would make entry 7 (Ann: tie-break 2 roll 4-2) illegal" in said, said[:3000]


def test_no_game_page_names_an_element_that_cannot_be_named(client, auth):
    """``aria-label`` on a plain paragraph, division or span (no role) is not read by screen
    readers (ARIA prohibits it there): the points strip had one, and said nothing (a playtest).
    Such an element says its name as text (the strip's "Points:" for screen readers)."""
    auth.register()
    for name, players in (("mitchi", ("Ann", "Ben", "Cat")), ("mia", ("Ann", "Ben", "Cat")),
                          ("mice-and-men", ("Ann", "Ben", "Cat", "Dan"))):
        page = client.get(f"/games/{new_game(client, name, players)}").data.decode()
        unnamed = [t for t in re.findall(r"<(?:p|div|span)\b[^>]*\baria-label=[^>]*>", page) if "role=" not in t]
        assert unnamed == [], (name, unnamed)


def test_a_setup_with_too_few_names_puts_the_focus_on_the_seat_to_fill(client, auth):
    """One name for a game of two or more: the refused form's focus is on the first empty seat,
    where the next name goes (it was on the page's body: a playtest with the keyboard only)."""
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "players-0": "Ann", "players-1": "", "players-2": "",
                                               "starter": "0", "opt_point_limit": "25", "action": "create"})
    assert r.status_code == 400
    assert re.findall(r'<input[^>]*\bautofocus\b[^>]*\bid="([^"]+)"', r.data.decode()) == ["players-1"]


def test_quick_reference_shows_the_games_own_options(client, game):
    page = client.get(f"/games/{game}").data.decode()
    import re

    href = re.search(r'href="(/rules/mitchi[^"]*)"', page).group(1).replace("&amp;", "&")
    assert "point_limit=3" in href
    assert "point limit (3 in this game)" in client.get(href).data.decode()
    assert "point limit (25)" in client.get("/rules/mitchi").data.decode()
    assert "point limit (25)" in client.get("/rules/mitchi?point_limit=zero").data.decode()


def test_no_last_round_before_any_round(client, game):
    page = client.get(f"/games/{game}").data.decode()
    assert "Last round" not in page and "Hand this round" in page


def post_tiebreak(client, game, version, player, hand):
    data = {"version": str(version), "type": "tiebreak", "player": player, "hand.0": str(hand[0]), "hand.1": str(hand[1])}
    return client.post(f"/games/{game}/entries", data=data, headers=HX)


def test_the_round_result_names_the_hand_tied_on_before_the_last_tie_break(client, auth):
    """After two tie-breaks the taker had tied on their first tie-break roll, not on their
    turn's hand (it said "after tying on 3-1"; found by the twenty-fifth review)."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=20)
    v = 0
    for player, hand in (("Ann", (2, 1)), ("Ben", (3, 1)), ("Cat", (3, 1))):
        assert post_turn(client, game, v, player, hand, 1).status_code == 200
        v += 1
    # tie-break 1, order Cat, Ben (reversed): tied again on 4-1; tie-break 2, order Ben, Cat
    for player, hand in (("Cat", (4, 1)), ("Ben", (4, 1)), ("Ben", (5, 1))):
        assert post_tiebreak(client, game, v, player, hand).status_code == 200
        v += 1
    r = post_tiebreak(client, game, v, "Cat", (4, 2))
    assert "Round 1: Cat takes the pot: 8 points (lost the tie-break after tying on 4-1)." in r.data.decode()
    # One tie-break: tied on the round's hand.
    v += 1
    for player, hand in (("Cat", (6, 5)), ("Ann", (4, 1)), ("Ben", (4, 1))):
        assert post_turn(client, game, v, player, hand, 1).status_code == 200
        v += 1
    post_tiebreak(client, game, v, "Ben", (6, 6))
    r = post_tiebreak(client, game, v + 1, "Ann", (5, 4))
    assert "Round 2: Ann takes the pot: 2 points (lost the tie-break after tying on 4-1)." in r.data.decode()


def _glance(page: str, term: str) -> str | None:
    """The glance's value for ``term``, its markup (the dice) left out; None if not shown."""
    found = re.search(rf"<dt>{re.escape(term)}</dt><dd>(.*?)</dd>", page, re.S)
    return None if found is None else " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split())


def test_a_tie_break_shows_its_worst_roll_so_far_the_hand_to_beat(client, auth):
    """docs/rules.md §Mitchi 8: in a tie-break the worst roll so far takes the pot, and the one
    to beat is that roll, not the hand tied on (the glance showed only that; a review). One line
    of the glance, so that Undo stays in view: the hand tied on until the first roll, then the
    worst roll so far; the table keeps "tied on" for who has yet to roll."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=20)
    v = 0
    for player, hand in (("Ann", (3, 1)), ("Ben", (3, 1)), ("Cat", (6, 6))):
        r = post_turn(client, game, v, player, hand, 1)
        v += 1
    page = r.data.decode()
    assert _glance(page, "Tied on") == "3-1 · Ben, Ann"
    assert _glance(page, "Worst tie-break roll so far") is None
    assert _glance(page, "Worst hand so far") is None
    page = post_tiebreak(client, game, v, "Ben", (4, 3)).data.decode()
    assert _glance(page, "Worst tie-break roll so far") == "4-3 · Ben"
    assert _glance(page, "Tied on") is None and "tied on 3-1" in page
    # every phone following the game sees it too
    assert _glance(client.get(f"/games/{game}").data.decode(), "Worst tie-break roll so far") == "4-3 · Ben"
    page = post_tiebreak(client, game, v + 1, "Ann", (3, 4)).data.decode()  # tied again: a second tie-break
    assert _glance(page, "Tied on") == "4-3 · Ann, Ben"
    assert _glance(page, "Worst tie-break roll so far") is None
    page = post_tiebreak(client, game, v + 2, "Ann", (6, 1)).data.decode()
    assert _glance(page, "Worst tie-break roll so far") == "6-1 · Ann"
    page = post_tiebreak(client, game, v + 3, "Ben", (5, 5)).data.decode()  # Ann takes the pot
    assert _glance(page, "Worst tie-break roll so far") is None and _glance(page, "Round") == "2"


def test_a_tie_break_shows_no_roll_limit_but_one_roll_each(client, auth):
    """docs/rules.md, Mitchi: a tie-break roll is one roll whatever the round's roll limit; the
    glance said "Roll limit 1" (or 3) through the tie-break. In a tie-break the glance leaves the
    roll limit out (round, pot and point limit in one row, so that Undo stays in view on a phone)
    and the line above the pad says each rolls once."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=20)
    v = 0
    for player, hand, rolls in (("Ann", (2, 1), 3), ("Ben", (3, 1), 1), ("Cat", (3, 1), 2)):
        r = post_turn(client, game, v, player, hand, rolls)
        assert r.status_code == 200
        v += 1
    page = r.data.decode()
    assert _glance(page, "Roll limit") is None and '<dl class="glance tb">' in page
    assert _glance(page, "Pot") == "4 points" and _glance(page, "Point limit") == "20"  # a Mitchi: 2, doubled
    assert "Tie-break: Cat rolls once" in page
    r = post_tiebreak(client, game, v, "Cat", (6, 5))
    r = post_tiebreak(client, game, v + 1, "Ben", (4, 1))  # the round ends: the next one's limit is not set
    assert _glance(r.data.decode(), "Roll limit") == "not set yet" and '<dl class="glance">' in r.data.decode()


def test_a_tie_break_order_of_right_to_left_names_keeps_its_order(client, auth):
    """"order: أحمد → שלום" was drawn "שלום → أحمد" (two right-to-left names side by side swap
    places): the wrong roll order (found by a review). Each name of a list is isolated, on the
    panel, the page's title, the games list and the summary's round words."""
    auth.register()
    game = new_game(client, players=("שלום", "أحمد", "Ann"), starter="2", point_limit=20)
    v = 0
    for player, hand in (("Ann", (2, 1)), ("שלום", (3, 1)), ("أحمد", (3, 1))):
        r = post_turn(client, game, v, player, hand, 1)
        v += 1
    panel = r.data.decode()
    assert "order: <strong><bdi>أحمد</bdi> → <bdi>שלום</bdi></strong>" in panel, panel
    assert "3-1 · <bdi>أحمد</bdi>, <bdi>שלום</bdi></dd>" in panel  # the glance: tied on
    assert "<bdi>שלום</bdi>, <bdi>أحمد</bdi>, <bdi>Ann</bdi>" in client.get(f"/games/{game}").data.decode()
    assert "<bdi>שלום</bdi>, <bdi>أحمد</bdi>, <bdi>Ann</bdi>" in client.get("/").data.decode()
    assert post_tiebreak(client, game, v, "أحمد", (6, 5)).status_code == 200
    assert post_tiebreak(client, game, v + 1, "שלום", (4, 1)).status_code == 200
    summary = client.get(f"/games/{game}/summary").data.decode()
    assert "Tie-break 1 (order \u2068أحمد\u2069 → \u2068שלום\u2069, pot 4)" in summary, summary


@pytest.mark.parametrize("fields,focus", [
    ({"players-1": "Ben", "players-2": "ann"}, "players-2"),  # a name used twice: the second
    ({"players-1": "", "players-2": "Ben"}, "players-1"),  # a gap above a name
    ({"players-1": "Ben", "players-2": "Cat", "opt_point_limit": "0"}, "opt_point_limit"),
    ({"players-1": "", "players-2": "Ben", "opt_point_limit": "0"}, "players-1"),  # the first marked
])
def test_a_refused_setup_focuses_the_field_to_fix(client, auth, fields, focus):
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "create",
                                               "players-0": "Ann", "opt_point_limit": "5", **fields})
    assert r.status_code == 400
    assert re.findall(r'<input[^>]*\bautofocus\b[^>]*\bid="([^"]+)"', r.data.decode()) == [focus]
    # a seat button's answer (no refusal) leaves the focus on that button
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "add",
                                               "players-0": "Ann", "opt_point_limit": "5", **fields}, headers=HX)
    assert r.status_code == 200 and b"autofocus" not in r.data
