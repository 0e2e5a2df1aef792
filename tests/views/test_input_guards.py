"""Inputs that were once stored and then broke a page, or answered 500: each is refused at the
door with a clear 4xx that changes nothing, and every value that is accepted renders everywhere
(issue 11, "Accepted once, broken forever"; CSV cells)."""

from __future__ import annotations

import html
import io
import json
import re
import struct
import zipfile
from datetime import datetime, timezone

import pytest
from sqlmodel import Session, select

from scorekeeper.models import Entry, Game, Player
from scorekeeper.rules.base import MAX_NUMBER
from scorekeeper.services import history as hist

from ..conftest import HX, messages, new_game, without_entered_by
from .test_history import game_ids, set_played_at, upload


def record(players=("Ann", "Ben", "Cat"), game="mitchi", **extra) -> dict:
    doc = {"format": 1, "game": game, "players": list(players), "options": {},
           "entries": [{"type": "start", "player": players[0]}]}
    doc.update(extra)
    return doc


def stored(app) -> tuple[int, int, int]:
    with Session(app.extensions["scorekeeper.engine"]) as s:
        return (len(s.exec(select(Game)).all()), len(s.exec(select(Entry)).all()),
                len(s.exec(select(Player)).all()))


# --- CSV ------------------------------------------------------------------------------------


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(client, auth):
    auth.register()
    names = ["=1+2", "Jörg", "@cmd", "+Ann", "-Ben", "\tTab"]
    doc = {"format": 1, "game": "mitchi", "players": ["=1+2", "Jörg", "@cmd"], "options": {"point_limit": 1},
           "entries": [{"type": "start", "player": "=1+2"},
                       {"type": "turn", "player": "=1+2", "hand": [6, 5], "rolls": 1},
                       {"type": "turn", "player": "Jörg", "hand": [2, 1], "rolls": 1},
                       {"type": "turn", "player": "@cmd", "hand": [4, 1], "rolls": 1}]}
    assert upload(client, doc).status_code == 303
    gid = game_ids(client)[0]
    body = client.get(f"/games/{gid}.csv").data
    assert body.startswith(b"\xef\xbb\xbf")  # a UTF-8 BOM: "Jörg" reads right in a spreadsheet
    text = body.decode("utf-8")
    assert ",'=1+2," in text and ",=1+2," not in text
    assert ",'@cmd," in text and ",Jörg," in text
    # Numbers stay numbers (a change of -3 is not a formula).
    assert hist.csv_cell(-3) == -3
    assert [hist.csv_cell(n) for n in names] == ["'=1+2", "Jörg", "'@cmd", "'+Ann", "'-Ben", "'\tTab"]
    assert hist.csv_cell("\rx") == "'\rx"
    # The export zip's CSV too.
    z = zipfile.ZipFile(io.BytesIO(client.get("/export?format=zip").data))
    csv_text = z.read("games.csv")
    assert csv_text.startswith(b"\xef\xbb\xbf") and b",'=1+2," in csv_text and "Jörg".encode() in csv_text


def test_import_never_reads_the_csv(app, client, auth):
    auth.register()
    upload(client, record())
    data = client.get("/export?format=zip").data
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in src.namelist():
            z.writestr(name, b"=garbage\x00,\xff\n" if name == "games.csv" else src.read(name))
    auth.logout()
    auth.register("bob")
    r = client.post("/import", data={"records": [(io.BytesIO(out.getvalue()), "games.zip")]},
                    content_type="multipart/form-data")
    assert r.status_code == 303 and stored(app)[0] == 2


# --- times ------------------------------------------------------------------------------------


@pytest.mark.parametrize("played", ["1969-12-31T23:59:59+00:00", "2101-01-01T00:00:00+00:00",
                                    "9999-12-31T23:59:59", "0001-01-01T00:00:00+14:00",
                                    "2100-12-31T23:00:00-05:00"])
def test_played_at_outside_1970_to_2100_is_refused(app, client, auth, played):
    auth.register()
    r = upload(client, record(played_at=played))
    assert r.status_code == 400 and "in the years 1970 to 2100" in r.data.decode()
    # named as the record's other problems are: "games.json: record: played_at '…' is out of range"
    assert f"record: played_at &#39;{played}&#39; is out of range" in r.data.decode(), r.data.decode()
    assert stored(app)[0] == 0


@pytest.mark.parametrize("played", ["1970-01-01T00:00:00+00:00", "2100-12-31T23:59:59+00:00",
                                    "1970-01-01T14:00:00+14:00"])
def test_played_at_at_the_ends_of_the_range_is_accepted_and_renders(client, auth, played):
    auth.register()
    assert upload(client, record(played_at=played)).status_code == 303
    for tz in ("Pacific/Kiritimati", "Etc/GMT+12", "UTC"):
        assert client.post("/settings", data={"timezone": tz}).status_code == 303
        assert client.get("/").status_code == 200


def test_the_list_renders_in_every_zone_whatever_time_is_stored(app, client, auth):
    """Even a time no record may carry any more (stored before the check): shown, never a 500."""
    auth.register()
    gid = new_game(client)
    extremes = (datetime(1, 1, 1, tzinfo=timezone.utc), datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc))
    for moment in extremes:
        for zone in hist.timezones():
            hist.when(moment, zone)  # every zone the settings page offers
        set_played_at(app, gid, moment)
        for tz in ("Pacific/Kiritimati", "Etc/GMT+12", "America/St_Johns", "UTC"):
            client.post("/settings", data={"timezone": tz})
            assert client.get("/").status_code == 200
            assert client.get(f"/games/{gid}/summary").status_code == 200


# --- history items ------------------------------------------------------------------------------

GOOD_ITEM = {"seq": 2, "status": "undone", "entry": {"type": "turn", "player": "Ann", "hand": [6, 5], "rolls": 1},
             "at": "2026-11-28T20:15:00+00:00"}


@pytest.mark.parametrize("item, says", [
    ("nope", "must be an object"),
    ({**GOOD_ITEM, "seq": 0}, "seq must be a whole number from 1 to 2"),
    ({**GOOD_ITEM, "seq": 3}, "seq must be a whole number from 1 to 2"),
    ({**GOOD_ITEM, "seq": 2**70}, "out of range"),
    ({**GOOD_ITEM, "seq": "2"}, "seq must be a whole number"),
    ({**GOOD_ITEM, "seq": True}, "seq must be a whole number"),
    ({**GOOD_ITEM, "status": "active"}, "status must be undone, redone or replaced, not 'active'"),
    ({k: v for k, v in GOOD_ITEM.items() if k != "status"}, "status is missing; it must be undone, redone or replaced"),
    ({**GOOD_ITEM, "entry": [1]}, "entry must be an entry object"),
    ({**GOOD_ITEM, "entry": {"player": "Ann"}}, "entry must be an entry object with a type"),
    ({**GOOD_ITEM, "entry": {"type": "turn", "player": "Zed"}}, "player 'Zed' is not a player"),
    ({**GOOD_ITEM, "entry": {"type": "turn", "player": "Ann", "hand": 65}}, "dice faces from 1 to 6"),
    ({**GOOD_ITEM, "entry": {"type": "turn", "player": "Ann", "hand": [6, 9]}}, "dice faces from 1 to 6"),
    ({**GOOD_ITEM, "entry": {"type": "turn", "player": "Ann", "rolls": "1"}}, "rolls must be a whole number"),
    ({**GOOD_ITEM, "at": "yesterday"}, "must be an ISO 8601 time"),
    ({**GOOD_ITEM, "at": "3000-01-01T00:00:00"}, "in the years 1970 to 2100"),
])
def test_history_items_are_checked(app, client, auth, item, says):
    auth.register()
    r = upload(client, record(history=[item]))
    assert r.status_code == 400 and says in html.unescape(r.data.decode()), r.data.decode()[-800:]
    assert stored(app) == (0, 0, 0)


def test_a_good_history_item_is_kept_and_the_log_page_renders(app, client, auth):
    auth.register()
    r = upload(client, record(history=[GOOD_ITEM], played_at="2026-11-28T20:00:00Z"))
    assert r.status_code == 303
    gid = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    page = client.get(f"/games/{gid}/log").data.decode()
    assert "entry 2: Ann: 6-5 in 1" in page


# --- numbers -----------------------------------------------------------------------------------


def test_a_4300_digit_penalty_is_refused_with_a_clear_message(app, client, auth):
    auth.register()
    gid = new_game(client, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0")
    before = client.get(f"/games/{gid}/record.json").json
    huge = "9" * 4300
    r = client.post(f"/games/{gid}/entries", data={"version": "0", "type": "announce", "player": "Ann",
                                                   "penalty": huge}, headers=HX)
    assert r.status_code == 422
    assert "Penalty is far too large: every number here is at most 999,999,999" in messages(r.data)[0]
    assert client.get(f"/games/{gid}/record.json").json == before
    # Every number field of the entry form, and the dice.
    for key in ("die", "rolls", "value", "announced", "hand.0"):
        r = client.post(f"/games/{gid}/entries", data={"version": "0", "type": "announce", "player": "Ann",
                                                       key: "1" * 5000}, headers=HX)
        assert r.status_code == 422, key
    assert client.get(f"/games/{gid}/record.json").json == before


#: A legal first turn of :func:`new_game`'s Mitchi game, as its form sends it.
TURN = {"version": "0", "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1"}


def refused_unchanged(client, gid: int, path: str, data: dict, needle: str) -> None:
    """POST ``data`` to the game's ``path`` (htmx): a 422 whose message holds ``needle``, and the
    game's record as it was."""
    before = client.get(f"/games/{gid}/record.json").json
    r = client.post(f"/games/{gid}/{path}", data=data, headers=HX)
    assert r.status_code == 422, data
    assert any(needle in m for m in messages(r.data)), messages(r.data)
    assert client.get(f"/games/{gid}/record.json").json == before


@pytest.mark.parametrize("junk,needle", [
    ({"cup.0": "999999999999"}, "Choose a face from 1 to 6 for every die"),
    ({"penalty": "-1000000000"}, "Penalty is far too large"),
    ({"announced": "1000000000"}, "is far too large"),
    # long text that is no number is told so, not that it is too large (a playtest)
    ({"penalty": "<script>x</script>"}, "Penalty must be a whole number (digits 0-9), not &#39;&lt;script&gt;x&lt;…&#39;"),
    ({"announced": "9" * 20 + "x"}, "must be a whole number (digits 0-9)"),
    ({"owner": "x" * 300_000}, "Owner is too long (300000 characters): a name has at most 40"),
    ({"player": "A" * 41}, "Player is too long (41 characters)"),
])
def test_a_field_the_entry_does_not_use_is_bounded_too(app, client, auth, junk, needle):
    """A Mitchi turn carrying fields only other entries use: the engine ignores them, but they
    are stored and exported, so they are held to a record's ranges (docs/game-record.md §Ranges)
    and refused beyond them. Before, a crafted turn with ``cup.0=999999999999`` was stored, and
    the group's export then failed to load ("the number 999999999999… is out of range")."""
    auth.register()
    refused_unchanged(client, new_game(client), "entries", {**TURN, **junk}, needle)


@pytest.mark.parametrize("twice,needle", [
    ({"hand.1": ["5", "2"]}, "A die was sent 2 times: choose one face for each die"),
    ({"rolls": ["1", "3"]}, "Rolls was sent 2 times"),
    ({"player": ["Ann", "Ben"]}, "Player was sent 2 times"),
])
def test_an_entry_field_sent_twice_is_refused(app, client, auth, twice, needle):
    """A crafted entry with a field sent twice (``cup.1=1&cup.1=2``) was stored with the first
    value (a review); it is refused, and nothing is stored. A hand sent as a repeated ``hand``
    (two values, no index) is still a hand."""
    auth.register()
    gid = new_game(client)
    refused_unchanged(client, gid, "entries", {**TURN, **twice}, needle)
    plain = {k: v for k, v in TURN.items() if not k.startswith("hand.")}
    r = client.post(f"/games/{gid}/entries", data={**plain, "hand": ["6", "5"]}, headers=HX)
    assert r.status_code == 200
    assert client.get(f"/games/{gid}/record.json").json["entries"][-1]["hand"] == [6, 5]


@pytest.mark.parametrize("path", ["entries", "undo"])
def test_a_version_sent_twice_is_refused(app, client, auth, path):
    """``version=1&version=99`` on an entry or an undo was taken as version 1 (and the other
    order as "the game changed"): a review. Either order is refused, and nothing changes."""
    auth.register()
    gid = new_game(client)
    assert client.post(f"/games/{gid}/entries", data=TURN, headers=HX).status_code == 200
    fields = {**TURN, "player": "Ben"} if path == "entries" else {}
    for versions in (["1", "99"], ["99", "1"]):
        refused_unchanged(client, gid, path, {**fields, "version": versions}, "version was sent 2 times")


def test_what_the_entry_form_stores_loads_again(app, client, auth):
    """The largest numbers the form lets into fields a turn does not use: the exported record
    loads into another account as it is."""
    auth.register()
    gid = new_game(client)
    turn = {"version": "0", "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1",
            "cup.0": "999999999", "penalty": "-999999999", "owner": "x" * 40}
    assert client.post(f"/games/{gid}/entries", data=turn, headers=HX).status_code == 200
    exported = client.get(f"/games/{gid}/record.json").json
    assert exported["entries"][-1]["cup"] == [999999999]
    auth.logout()
    auth.register("ben")
    r = upload(client, exported)
    assert r.status_code == 303, messages(r.data)
    loaded = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    again = client.get(f"/games/{loaded}/record.json").json
    assert without_entered_by(again)["entries"] == without_entered_by(exported)["entries"]


def test_an_option_of_537_nines_is_refused(app, client, auth):
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "create",
                                                "players-0": "Ann", "players-1": "Ben", "players-2": "Cat",
                                                "opt_point_limit": "9" * 537})
    assert r.status_code == 400
    assert stored(app)[0] == 0


@pytest.mark.parametrize("version", [None, "", "x", " ", str(2**31), str(2**63), "9" * 40, "-1", "٣", "1e3"])
def test_a_form_without_a_version_is_told_so_and_changes_nothing(client, auth, version):
    """A version missing, not a whole number or beyond a database integer (only a hand-made
    request sends one: every page's form carries it) is refused as a bad form (422) that says
    what is wrong (missing, or sent but not a version: a playtest was told "did not say" of a
    version it had sent), not answered "the game changed" as an older page is; nothing is
    written and nothing raises. Entry, undo, redo, correction and rematch alike."""
    auth.register()
    gid = new_game(client)
    before = client.get(f"/games/{gid}/record.json").json
    sent = {} if version is None else {"version": version}
    data = {**sent, "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1"}
    said = ("The form did not say which version of the game it was made for" if not (version or "").strip()
            else "The game's version the form sent is not a whole number from 0 to 2147483647")
    for url, form, hx in ((f"/games/{gid}/entries", data, HX), (f"/games/{gid}/undo", sent, HX),
                          (f"/games/{gid}/redo", sent, HX), (f"/games/{gid}/entries/1", {**data, "type": "start"}, {})):
        r = client.post(url, data=form, headers=hx)
        assert r.status_code == 422, url
        assert said in html.unescape(r.data.decode()) and "nothing was changed: reload the page" in r.data.decode(), url
    r = client.post(f"/games/{gid}/rematch", data=sent, follow_redirects=True)
    assert said in html.unescape(r.data.decode())
    assert client.get(f"/games/{gid}/record.json").json == before
    # A well-formed version the game has moved past is still "the game changed".
    assert client.post(f"/games/{gid}/entries", data={**data, "version": "7"}, headers=HX).status_code == 409


@pytest.mark.parametrize("action", ["pick-" + str(2**63), "pick-" + "9" * 30, "pick-²", "up-²", "down-9999999"])
def test_seat_buttons_with_odd_numbers_change_nothing(client, auth, action):
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "²", "action": action,
                                                "players-0": "Ann"})
    assert r.status_code == 200 and 'value="Ann"' in r.data.decode()


def test_a_record_number_beyond_range_is_refused(app, client, auth):
    auth.register()
    doc = record(game="mice-and-men")
    doc["entries"] = [{"type": "announce", "player": "Ann", "penalty": 10**400}]
    r = upload(client, json.dumps(doc).encode())
    assert r.status_code == 400 and "the number 100000000000… is out of range" in r.data.decode()
    assert stored(app)[0] == 0
    # A number short enough to show whole is shown without "…" (it read "1000000000… is out of range").
    doc["entries"] = [{"type": "announce", "player": "Ann", "penalty": -10**9}]
    r = upload(client, json.dumps(doc).encode())
    assert r.status_code == 400 and "the number -1000000000 is out of range" in r.data.decode(), r.data.decode()
    assert stored(app)[0] == 0


# --- zips ----------------------------------------------------------------------------------------


def _zip(name="games.json", body=None, method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        z.writestr(name, body if body is not None else json.dumps([record()]))
    return buf.getvalue()


def _corrupt() -> bytes:
    data = bytearray(_zip(body=json.dumps([record()] * 30)))
    start = 30 + len("games.json")  # the first member's data, after its local header
    for i in range(start + 5, start + 40):
        data[i] ^= 0x5A
    return bytes(data)


def _encrypted() -> bytes:
    data = bytearray(_zip())
    data[6] |= 0x1  # the "encrypted" flag, in the local header and the central directory
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 0x1
    return bytes(data)


def _bad_name() -> bytes:
    data = bytearray(_zip(name="cafX.json").replace(b"cafX", b"caf\xe9"))  # not UTF-8
    central = data.rfind(b"PK\x01\x02")
    flags = struct.unpack_from("<H", data, central + 8)[0]
    struct.pack_into("<H", data, central + 8, flags | 0x800)  # now claims UTF-8: 0x82 is not
    return bytes(data)


def _unknown_method() -> bytes:
    data = bytearray(_zip())
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<H", data, central + 10, 99)  # the AES method id
    struct.pack_into("<H", data, 8, 99)
    return bytes(data)


@pytest.mark.parametrize("make, says", [(_corrupt, "the file is damaged"), (_encrypted, "encrypted"),
                                        (_bad_name, "not valid UTF-8"), (_unknown_method, "compression"),
                                        (lambda: _zip()[:60], "not a readable zip file")])
def test_a_zip_that_cannot_be_read_is_a_clear_400(app, client, auth, make, says):
    auth.register()
    r = client.post("/import", data={"records": [(io.BytesIO(make()), "games.zip")]},
                    content_type="multipart/form-data")
    text = r.data.decode()
    assert r.status_code == 400 and "Nothing was loaded" in text and says in text, text[-600:]
    assert stored(app)[0] == 0


# --- bodies and text ------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/login", "/register", "/games/new/mitchi", "/import", "/settings",
                                 "/logout", "/games/1/entries"])
def test_a_json_body_is_a_415_even_nested_100000_deep(make_app, url):
    app = make_app(WTF_CSRF_ENABLED=True)
    client = app.test_client()
    r = client.post(url, data="[" * 100_000, content_type="application/json")
    assert r.status_code == 415 and "takes a form" in r.data.decode()
    r = client.post(url, json={"username": "ann", "password": "x"})
    assert r.status_code == 415
    app.extensions["scorekeeper.engine"].dispose()


def test_a_wrong_method_gets_the_apps_page_and_changes_nothing(app, client, auth):
    """A page posted to, or a form's address opened as a page: 405 on the app's own page (in the
    account's language, for htmx in the message area), with the Allow header."""
    auth.register()
    gid = new_game(client)
    before = stored(app)
    r = client.post(f"/games/{gid}/table")
    assert r.status_code == 405 and r.headers["Allow"] == "GET, HEAD, OPTIONS"
    page = r.data.decode()
    assert "does not take a POST request" in page and 'href="/' in page and "Method Not Allowed" not in page
    r = client.get(f"/games/{gid}/entries", headers={"HX-Request": "true"})
    assert r.status_code == 405 and "POST" in r.headers["Allow"] and r.headers["HX-Retarget"] == "#messages"
    assert "does not take a GET request" in r.data.decode()
    assert client.post("/language", data={"language": "de"}).status_code == 303
    assert "nimmt keine POST-Anfrage an" in client.post(f"/games/{gid}/table").data.decode()
    assert stored(app) == before


def test_nul_in_any_text_is_refused_and_changes_nothing(app, client, auth):
    auth.register()
    gid = new_game(client)
    before = stored(app)
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "create",
                                                "players-0": "A\x00nn", "players-1": "Ben", "players-2": "Cat"})
    assert r.status_code == 400 and "NUL character" in r.data.decode()
    r = client.post(f"/games/{gid}/entries", data={"version": "1", "type": "turn", "player": "Ann\x00",
                                                   "hand.0": "6", "hand.1": "5", "rolls": "1"}, headers=HX)
    assert r.status_code == 400
    assert client.post("/settings", data={"timezone": "UTC\x00"}).status_code == 400
    r = upload(client, record(players=("A\x00nn", "Ben", "Cat")))
    # the NUL is shown where it is: dropped, the name would look as good as any
    assert r.status_code == 400 and "the text 'A\u2400nn' holds a NUL character (shown as \u2400)" in html.unescape(
        r.data.decode())
    assert upload(client, record(history=[{**GOOD_ITEM, "entry": {"type": "x\x00"}}])).status_code == 400
    assert stored(app) == before
    auth.logout()
    assert auth.login("ann\x00").status_code == 400
    assert client.get("/login?next=/\x00").status_code == 400


@pytest.mark.parametrize("method,path", [("GET", "/join/%00"), ("POST", "/join/a%00b"), ("GET", "/live/%00"),
                                         ("GET", "/live/%00/poll"), ("POST", "/groups/invites/%00/revoke")])
def test_nul_in_the_address_is_no_page_and_changes_nothing(app, client, auth, method, path):
    # A token is looked up in a text column: PostgreSQL refused the NUL with a 500 (found by hypothesis)
    auth.register()
    new_game(client)
    before = stored(app)
    r = client.open(path, method=method, data={})
    assert r.status_code == 404 and "NUL character" in r.data.decode()
    assert stored(app) == before


# --- every stored game renders ------------------------------------------------------------------------


def test_extreme_but_accepted_values_render_everywhere(app, client, auth):
    """The largest accepted numbers, the longest names, odd characters and the ends of the time
    range: stored, then every page that shows them answers 200."""
    auth.register()
    long_names = ["É" * 40, "Z̤͔ͧ̑̓" + "x" * 34, "<b>&amp;</b>'\"", "=1+2", "日本語の名前" * 6]
    big = MAX_NUMBER  # the largest number the rules accept (docs/game-record.md §Ranges)
    docs = [
        {"format": 1, "game": "mice-and-men", "players": long_names[:4],
         "options": {"rounds": 1, "opening_range": [1, big], "run_penalty": big},
         "entries": [{"type": "announce", "player": long_names[0], "penalty": big - 1},
                     {"type": "announce", "player": long_names[1], "penalty": big},
                     {"type": "join", "player": long_names[2]},
                     {"type": "run", "player": long_names[3]},
                     {"type": "join", "player": long_names[0]},
                     {"type": "reveal", "player": long_names[0], "dice": [6, 6, 6]},
                     {"type": "reveal", "player": long_names[1], "dice": [1, 2, 4]},
                     {"type": "reveal", "player": long_names[2], "dice": [5, 5, 3]}],
         "played_at": "1970-01-01T00:00:00+00:00"},
        {"format": 1, "game": "mitchi", "players": long_names, "options": {"point_limit": big},
         "entries": [{"type": "start", "player": long_names[4]}]
         + [{"type": "turn", "player": p, "hand": [2, 1], "rolls": 3}
            for p in long_names[4:] + long_names[:4]],
         "played_at": "2100-12-31T23:59:59+00:00",
         "history": [{"seq": 6, "status": "undone", "entry": {"type": "turn", "player": long_names[0],
                                                               "hand": [6, 6], "rolls": 3, "penalty": -big},
                      "at": "2100-12-31T23:59:59Z"}]},
        {"format": 1, "game": "mia", "players": long_names[:3], "options": {},
         "entries": [{"type": "start", "player": long_names[1]}],
         "played_at": "2000-02-29T12:00:00-12:00"},
    ]
    r = upload(client, *docs)
    assert r.status_code == 303, r.data.decode()[-1000:]
    with Session(app.extensions["scorekeeper.engine"]) as s:
        players = [p.id for p in s.exec(select(Player))]
        ids = [g.id for g in s.exec(select(Game))]
    assert len(ids) == 3
    for tz in ("Pacific/Kiritimati", "Etc/GMT+12", "Asia/Kathmandu", "UTC"):
        client.post("/settings", data={"timezone": tz})
        for url in ["/", "/players", "/export?format=json", "/export?format=zip", "/settings", "/import"] + [
                f"/players/{p}" for p in players]:
            assert client.get(url).status_code == 200, url
        for gid in ids:
            for url in (f"/games/{gid}", f"/games/{gid}/summary", f"/games/{gid}/chart.svg",
                        f"/games/{gid}/log", f"/games/{gid}.csv", f"/games/{gid}/record.json",
                        f"/games/{gid}/entries/1"):
                assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("name, field", [("mitchi", "point_limit"), ("mia", "lives"), ("mice-and-men", "rounds")])
def test_a_practice_option_of_537_nines_is_refused(app, client, auth, name, field):
    auth.register()
    r = client.post(f"/practice/new/{name}", data={"player": "Ann", field: "9" * 537})
    assert r.status_code == 400
    assert stored(app)[0] == 0


@pytest.mark.parametrize("length", [41, 161, 5000])
def test_a_name_too_long_is_refused_with_the_names_own_limit(app, client, auth, length):
    """The name field stops at 40 characters; a longer name sent by hand is refused saying 40,
    however long (not the form's raw-text bound of 160)."""
    auth.register()
    r = client.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "create",
                                                "players-0": "A" * length, "players-1": "Ben", "players-2": "Cat",
                                                "opt_point_limit": "25"})
    page = r.data.decode()
    said = re.sub(r"<[^>]+>", " ", page)  # the words on the page (a static URL's hash may hold "160")
    assert r.status_code == 400 and "40 characters" in said and "160" not in said, page[-3000:]
    assert stored(app)[0] == 0
