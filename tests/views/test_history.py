"""Past games pages: list, summary, chart, CSV, export/import, players, settings, migration."""

from __future__ import annotations

import io
import html as html_module
import json
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from scorekeeper.db import migrate

from ..conftest import HX, PG_URL, new_game

RECORDS = Path(__file__).parent.parent / "records"


def golden(path: str) -> dict:
    doc = json.loads((RECORDS / f"{path}.json").read_text())
    return doc.get("record", doc)


def upload(client, *docs, names=None):
    files = [(io.BytesIO(json.dumps(d).encode() if not isinstance(d, bytes) else d),
              (names or [f"r{i}.json" for i in range(len(docs))])[i]) for i, d in enumerate(docs)]
    return client.post("/import", data={"records": files}, content_type="multipart/form-data")


def game_ids(client) -> list[int]:
    return [int(x) for x in re.findall(r'href="/games/(\d+)/summary"', client.get("/").data.decode())]


def set_played_at(app, game_id: int, moment: datetime) -> None:
    from scorekeeper.db import get_session
    from scorekeeper.models import Game

    with app.app_context():
        s = get_session()
        g = s.get(Game, game_id)
        g.played_at = moment
        s.add(g)
        s.commit()


def test_summary_of_shared_win_on_zero(client, auth):
    auth.register()
    r = upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    assert r.status_code == 303
    gid = int(re.search(r"/games/(\d+)/summary", r.headers["Location"]).group(1))
    page = client.get(f"/games/{gid}/summary").data.decode()
    assert "Shared win: Ben and Cat" in page
    assert page.count("— shared win</td>") == 2
    assert '<td class="num">0</td>' in page
    assert "Ann takes the pot: 4 points." in page
    # The chart is inside the page (a data: address), so a summary kept offline has it.
    assert 'src="data:image/svg+xml;base64,' in page


def test_a_shared_win_is_called_one_in_every_list(client, auth):
    """The games list said "shared win: Ben and Cat", a player's latest games "won by Ben and
    Cat" (and the practice list too; found by a review): every list says "shared win" now."""
    auth.register()
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    assert "shared win: Ben and Cat" in client.get("/").data.decode()
    ann = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Ann<', client.get("/players").data.decode()).group(1)
    page = client.get(f"/players/{ann}").data.decode()
    assert "shared win: Ben and Cat" in page and "won by" not in page


def test_summary_of_running_game(client, auth):
    auth.register()
    upload(client, golden("mitchi/mitchi-11-default-limit-24-not-ended"))
    gid = game_ids(client)[0]
    page = client.get(f"/games/{gid}/summary").data.decode()
    assert "Still running: 2 rounds so far." in page and "Standings so far" in page
    assert "winner" not in page.split("Standings so far")[1].split("</table>")[0]
    # The list says the round in play (it said "2 rounds", and "0 rounds" in the first round).
    listed = " ".join(client.get("/").data.decode().split())
    assert "round 3 · still running" in listed
    # The time zone's link holds its brackets: its tap area's padding had put spaces inside them.
    assert re.search(r'times in UTC <a class="tap" href="/settings">\(change\)</a>', listed), listed


def test_chart_is_svg_without_script(client, auth):
    auth.register()
    upload(client, golden("mice_and_men/mm-default-ten-rounds-end"))
    gid = game_ids(client)[0]
    r = client.get(f"/games/{gid}/chart.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    body = r.data.decode()
    assert body.lstrip().startswith("<?xml") and "<svg" in body and "<script" not in body
    assert "Penalty points (fewest" in body
    assert "'unsafe-inline'" in r.headers["Content-Security-Policy"]
    again = client.get(f"/games/{gid}/chart.svg", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304


def test_a_chart_drawn_anew_is_fetched_anew(client, auth, monkeypatch):
    """A finished game's chart never changes but for the way it is drawn: a browser holding the
    old drawing (round numbers read "…") revalidated it with 304 for ever. The ETag carries
    history.CHART_DRAWING, raised with each new drawing."""
    from scorekeeper.services import history as hist

    auth.register()
    upload(client, golden("mice_and_men/mm-default-ten-rounds-end"))
    gid = game_ids(client)[0]
    tag = client.get(f"/games/{gid}/chart.svg").headers["ETag"]
    assert client.get(f"/games/{gid}/chart.svg", headers={"If-None-Match": tag}).status_code == 304
    monkeypatch.setattr(hist, "CHART_DRAWING", hist.CHART_DRAWING + 1)
    fresh = client.get(f"/games/{gid}/chart.svg", headers={"If-None-Match": tag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != tag


@pytest.mark.parametrize("rounds", [16, 17, 96])
def test_the_charts_round_numbers_are_written_out_whatever_the_length(app, rounds):
    """The horizontal axis says the round numbers (at most nine of them) on a long game too: from
    17 rounds on pygal shortened every two-digit one to "…" (a playtest: a 96-round Mitchi game
    read "0 … … … …")."""
    from scorekeeper.services.history import chart_svg

    with app.test_request_context():
        svg = chart_svg("mitchi", {"Ann": list(range(rounds + 1)), "Ben": [0] * (rounds + 1)}).decode()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "…" not in "".join(texts), texts
    step = {16: 2, 17: 5, 96: 20}[rounds]  # 1, 2 or 5 times a power of ten: 0, 20, 40, not 0, 12, 24
    assert [str(i) for i in range(0, rounds + 1, step)] == [t for t in texts if t.isdigit()][-len(range(0, rounds + 1, step)):]


@pytest.mark.parametrize("at_least,step", [(0, 1), (1, 1), (2, 2), (3, 5), (5, 5), (6, 10), (19, 20), (21, 50),
                                           (75, 100), (101, 200)])
def test_a_charts_axis_counts_in_steps_of_one_two_or_five_times_a_power_of_ten(at_least, step):
    from scorekeeper.services.history import nice_step

    assert nice_step(at_least) == step


def test_csv_content(client, auth):
    auth.register()
    upload(client, golden("mitchi/mitchi-11-zero-point-winner"))
    gid = game_ids(client)[0]
    r = client.get(f"/games/{gid}.csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    assert r.data.startswith(b"\xef\xbb\xbf")  # UTF-8 byte order mark
    lines = r.data.decode("utf-8-sig").splitlines()
    assert lines[0] == "game_id,game,played_at,round,seat,player,action,detail,change,score_after"
    assert len(lines) == 1 + 3 * 3
    last = lines[-3:]
    assert [line.split(",")[5] for line in last] == ["Ann", "Ben", "Cat"]
    assert [line.split(",")[-1] for line in last] == ["6", "1", "0"]


def test_import_round_trip(client, auth):
    """Export then import gives the same record (history and played_at included)."""
    auth.register()
    gid = new_game(client, "mitchi", point_limit=5)
    play = client.get(f"/games/{gid}").data.decode()
    version = int(re.search(r'name="version" value="(\d+)"', play).group(1))
    client.post(f"/games/{gid}/entries", data={"type": "turn", "player": "Ann", "hand.0": "5", "hand.1": "5",
                                               "rolls": "1", "version": version})
    client.post(f"/games/{gid}/undo", data={"version": version + 1})
    exported = json.loads(client.get("/export?format=json").data)
    assert len(exported) == 1 and exported[0]["history"][0]["status"] == "undone"
    # When and by whom it was undone (an undo keeps both since migration 0017).
    undone = exported[0]["history"][0]
    assert undone["undone_by"] == "ann" and undone["undone_at"] >= undone["at"]
    single = json.loads(client.get(f"/games/{gid}/record.json").data)
    assert exported[0] == single  # the single download carries played_at too
    # Loaded into another account (another phone), it is the same record.
    auth.logout()
    auth.register("bob")
    r = upload(client, exported, names=["all.json"])
    assert r.status_code == 303
    again = json.loads(client.get("/export?format=json").data)
    # Who entered or undid each entry (extra keys) names accounts of ann's group, not of bob's:
    # dropped; when it was undone is kept.
    assert exported[0]["entries"][0]["entered_by"] == "ann"

    def plain(records):
        return json.loads(json.dumps(records).replace(', "entered_by": "ann"', "").replace(', "undone_by": "ann"', ""))

    assert again == plain(exported) and again[0]["history"][0]["undone_at"] == undone["undone_at"]
    # An undo's time that is no time is refused, naming the item; nothing is stored.
    bad = json.loads(json.dumps(exported))
    bad[0]["history"][0]["undone_at"] = "yesterday"
    bad[0]["played_at"] = "2026-01-01T00:00:00+00:00"
    r = upload(client, bad, names=["bad.json"])
    assert r.status_code == 400 and "history item 1&#39;s time of its undo must be an ISO 8601 time" in r.data.decode()
    assert json.loads(client.get("/export?format=json").data) == again


def test_import_several_and_bad_file_stores_nothing(client, auth):
    auth.register()
    good = golden("mitchi/mitchi-11-shared-win-zero")
    bad = json.loads(json.dumps(good))
    bad["entries"][2]["player"] = "Cat"
    r = upload(client, good, [good, bad], names=["good.json", "list.json"])
    assert r.status_code == 400
    page = r.data.decode()
    assert "Nothing was loaded. list.json, record 2: entry 3:" in page
    assert game_ids(client) == []
    r = upload(client, b"{not json", names=["broken.json"])
    assert r.status_code == 400 and "broken.json: record: not valid JSON" in r.data.decode()
    r = upload(client, dict(good, played_at="yesterday"), names=["when.json"])
    assert r.status_code == 400 and "when.json: record: played_at must be an ISO 8601" in r.data.decode()
    assert game_ids(client) == []
    r = upload(client, good, [good, golden("mia/mia-5-skip-eliminated-game-end")], names=["a.json", "b.json"])
    assert r.status_code == 303
    assert "Already here, not loaded again: b.json, record 1" in client.get(r.headers["Location"]).data.decode()
    assert len(game_ids(client)) == 2  # the same record twice is one game


def test_export_zip_holds_records_and_csv(client, auth):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end")])
    r = client.get("/export?format=zip")
    z = zipfile.ZipFile(io.BytesIO(r.data))
    assert len(json.loads(z.read("games.json"))) == 2
    assert z.read("games.csv").decode().startswith("\ufeffgame_id,game,")
    assert len([n for n in z.namelist() if n.startswith("records/")]) == 2
    # Every member is dated when the zip was made (not zip's 1 January 1980), as an unzip shows it.
    now = datetime.now()
    for info in z.infolist():
        assert abs((datetime(*info.date_time) - now).total_seconds()) < 120, (info.filename, info.date_time)
    # The zip loads back as it is, into another account; into the same one it adds nothing.
    files = {"records": [(io.BytesIO(r.data), "games.zip")]}
    assert client.post("/import", data=files, content_type="multipart/form-data").status_code == 303
    assert len(game_ids(client)) == 2
    auth.logout()
    auth.register("bob")
    files = {"records": [(io.BytesIO(r.data), "games.zip")]}
    assert client.post("/import", data=files, content_type="multipart/form-data").status_code == 303
    assert len(game_ids(client)) == 2


@pytest.mark.parametrize("fmt", ["csv", "ZIP", "<b>x</b>", ""])
def test_an_export_in_a_format_it_does_not_offer_is_refused(client, auth, fmt):
    """``?format=csv`` answered the JSON list as if asked for it (found by a review)."""
    auth.register()
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    r = client.get(f"/export?format={fmt}")
    assert r.status_code == 400 and "format=json or format=zip" in r.data.decode()
    assert "<b>x</b>" not in r.data.decode()
    assert client.get("/export").status_code == 200 and client.get("/export?format=json").status_code == 200


def test_list_paginates_filters_and_sorts_by_played_at(app, client, auth):
    app.config["GAMES_PER_PAGE"] = 2
    auth.register()
    a = new_game(client, "mitchi", players=("Ann", "Ben", "Cat"))
    b = new_game(client, "mia", players=("Ann", "Dan", "Eve"))
    c = new_game(client, "mitchi", players=("Dan", "Eve", "Fay"))
    set_played_at(app, a, datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc))
    set_played_at(app, b, datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc))
    set_played_at(app, c, datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc))
    page1 = client.get("/").data.decode()
    assert "Page 1 of 2" in page1
    assert page1.index(f'/games/{a}"') < page1.index(f'/games/{b}"') and f'/games/{c}"' not in page1
    assert f'/games/{c}"' in client.get("/?page=2").data.decode()
    mia = client.get("/?game=mia").data.decode()
    assert f'/games/{b}"' in mia and f'/games/{a}"' not in mia
    ann = re.search(r'<option value="(\d+)">Ann</option>', page1).group(1)
    only_ann = client.get(f"/?player={ann}").data.decode()
    assert f'/games/{a}"' in only_ann and f'/games/{b}"' in only_ann and "1 of 2" not in only_ann
    assert f'/games/{c}"' not in only_ann


def test_time_zone_around_midnight(app, client, auth):
    client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse",
                                   "timezone": "Europe/Berlin"})
    gid = new_game(client)
    set_played_at(app, gid, datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc))
    assert "Sun 29 Nov 2026, 00:30" in client.get("/").data.decode()
    r = client.post("/settings", data={"timezone": "America/New_York"})
    assert r.status_code == 303
    assert "Sat 28 Nov 2026, 18:30" in client.get("/").data.decode()
    assert "Sat 28 Nov 2026, 18:30" in client.get(f"/games/{gid}/summary").data.decode()
    r = client.post("/settings", data={"timezone": "Nowhere/Land"})
    assert r.status_code == 400 and "is not a time zone" in r.data.decode()


def test_a_known_player_tapped_when_every_seat_is_named_is_told_why_not_seated(client, auth):
    """At the most seats (Mice and Men: 8), all named, a known player's button seats no one: the
    answer says so and what to do, and keeps the names typed."""
    auth.register()
    new_game(client, "mitchi", players=("Ann", "Ben", "Cat"))
    page = client.get("/games/new/mice-and-men").data.decode()
    ids = dict((n, i) for i, n in re.findall(r'value="pick-(\d+)"[^>]*>([^<]+)</button>', page))
    names = ["Ann", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
    data = {"seats": "8", **{f"players-{i}": n for i, n in enumerate(names)}, "starter": "0",
            "action": f"pick-{ids['Ben']}"}
    page = client.post("/games/new/mice-and-men", data=data, headers=HX).data.decode()
    assert "Ben was not seated: all 8 seats have a name. Clear a seat&#39;s name, then tap Ben again." in page
    assert all(re.search(rf'id="players-{i}"[^>]*value="{n}"', page) for i, n in enumerate(names))
    # Its button is still there, and keeps the focus (autofocus: htmx gives it the focus)
    assert re.search(rf'<button [^>]*id="pick-{ids["Ben"]}" autofocus', page)
    assert page.count(" autofocus") == 1
    data["players-3"] = ""  # a seat cleared: Ben takes it, and nothing is said
    page = client.post("/games/new/mice-and-men", data=data, headers=HX).data.decode()
    assert re.search(r'id="players-3"[^>]*value="Ben"', page) and "was not seated" not in page


def test_a_known_player_already_in_a_seat_is_not_offered_however_the_seat_writes_the_name(client, auth):
    """A known player's button goes once a seat holds the name, compared as the rules compare
    names (name_key): "Straße" typed again, or "ann  lee" for "Ann Lee", left the button there
    (the form compared the seat's text trimmed and lowercased), and a tap on it seated no one."""
    auth.register()
    new_game(client, "mitchi", players=("Straße", "Ann Lee", "Cat"))
    page = client.get("/games/new/mitchi").data.decode()
    ids = dict((n, i) for i, n in re.findall(r'value="pick-(\d+)"[^>]*>([^<]+)</button>', page))
    data = {"seats": "3", "players-0": "Straße", "players-1": " ann  lee ", "players-2": "", "starter": "0",
            "action": f"pick-{ids['Cat']}", "opt_point_limit": "25"}
    page = client.post("/games/new/mitchi", data=data, headers=HX).data.decode()
    assert re.search(r'id="players-2"[^>]*value="Cat"', page)
    assert re.findall(r'value="pick-\d+"', page) == []
    assert 'id="add-seat" autofocus' in page  # no one left to seat: the focus goes to "Add a seat"
    # The name typed (the page showed the button still): tapped, it says where the player sits
    # (it did nothing and said nothing; a playtest).
    data = {**data, "players-2": "", "action": f"pick-{ids['Ann Lee']}"}
    page = client.post("/games/new/mitchi", data=data, headers=HX).data.decode()
    assert "Ann Lee is already in seat 2." in html_module.unescape(page)
    assert re.search(r'id="players-1"[^>]*value=" ann  lee "', page) and 'id="players-2"' in page


def test_register_with_a_bad_browser_zone_falls_back_to_utc(client):
    client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse",
                                   "timezone": "Bogus/Zone"})
    assert "selected>UTC<" in client.get("/settings").data.decode()


def test_setup_offers_known_players_and_links_profiles(client, auth):
    auth.register()
    new_game(client, "mitchi", players=("Ann", "Ben", "Cat"))
    page = client.get("/games/new/mitchi").data.decode()
    ids = dict((n, i) for i, n in re.findall(r'value="pick-(\d+)"[^>]*>([^<]+)</button>', page))
    assert set(ids) == {"Ann", "Ben", "Cat"}
    data = {"seats": "3", "players-0": "", "players-1": "", "players-2": "", "starter": "0",
            "action": f"pick-{ids['Ben']}", "opt_point_limit": "25"}
    page = client.post("/games/new/mitchi", data=data).data.decode()
    assert re.search(r'id="players-0"[^>]*value="Ben"', page)
    assert f"pick-{ids['Ben']}" not in page and f"pick-{ids['Ann']}" in page
    # A new game with "ann" in another case is the same person.
    new_game(client, "mitchi", players=("ann", "Ben", "Dan"))
    players = client.get("/players").data.decode()
    assert players.count(">Ann</span></a>") == 1 and ">Dan</span></a>" in players
    ann = client.get(f"/players/{ids['Ann']}").data.decode()
    assert "2 games" in ann


def test_player_stats_honest_in_lowest_wins(client, auth):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-zero-point-winner"), golden("mitchi/mitchi-11-shared-win-zero")])
    page = client.get("/players").data.decode()
    best = page.split("Best averages")[1].split("</dl>")[0]
    assert "fewest points per game" in best and "Cat: 0" in best  # Cat: 0 and 0 points
    cat = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Cat<', page).group(1)
    cat_page = client.get(f"/players/{cat}").data.decode()
    assert "1 win · 1 shared" in cat_page.replace("wins", "win")
    assert re.search(r"Points per game \(fewer is better\)</th><td class=\"num\">0<", cat_page)
    assert re.search(r"Win rate</th><td class=\"num\">100%<", cat_page)


def test_a_players_page_says_which_figures_count_running_games(client, auth):
    """A pot taken in a game still running counts among the pots taken, and the page's note says
    so: it said that only finished games count (a review found the pots counting a running one)."""
    auth.register()
    game = new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=20)
    for version, (player, hand) in enumerate((("Ann", (6, 6)), ("Ben", (5, 5)), ("Cat", (3, 1)))):
        data = {"version": str(version), "type": "turn", "player": player, "hand.0": str(hand[0]),
                "hand.1": str(hand[1]), "rolls": "1"}
        assert client.post(f"/games/{game}/entries", data=data, headers=HX).status_code == 200
    page = client.get("/players").data.decode()
    cat = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Cat<', page).group(1)
    text = " ".join(re.sub(r"<[^>]+>", " ", client.get(f"/players/{cat}").data.decode()).split())
    assert "Games played 1 (1 running)" in text and "Pots taken 1" in text, text
    # averages and the best game wait for a finished game
    assert "Win rate – Points per game (fewer is better) – Best game (fewest points) – Pots taken 1" in text
    assert ("Averages, best games and win rates count finished games only; the other figures (pots, Mitchis, "
            "lives lost, challenges, runs) count every finished round, of running games too.") in text


def test_a_mia_players_page_shows_the_best_game_as_the_most_lives_left(client, auth):
    """Mia's figures have a best game as the other games' do, the most lives left (README:
    Players), the larger of the finished games' (a playtest found Mitchi's and Mice and Men's
    but none for Mia)."""
    auth.register()
    upload(client, golden("mia/mia-7-bonus-points-joint-winners"), golden("mia/mia-7-bonus-points-lives-first"),
           golden("mia/mia-5-skip-eliminated-game-end"))
    page = client.get("/players").data.decode()
    ann = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Ann<', page).group(1)
    text = " ".join(re.sub(r"<[^>]+>", " ", client.get(f"/players/{ann}").data.decode()).split())
    # Ann ended them with 2, 0 and 1 lives
    assert "Lives left per game (more is better) 1 Best game (most lives left) 2 Lives lost" in text, text


def test_every_best_average_says_whom_it_counts(client, auth):
    """Each line of the best averages names the ended games a player needed to be counted, one
    game or three alike (a review read a line without it as counting everyone), and the page
    says the rule once."""
    auth.register()
    upload(client, golden("mitchi/mitchi-11-zero-point-winner"))
    page = client.get("/players").data.decode()
    best = page.split("Best averages")[1].split("</dl>")[0]
    assert "(of players with 1 or more ended games)" in best
    assert "at least 3 ended games of that kind; until someone has that many, those with the most." in page


def test_other_accounts_get_404(client, auth):
    auth.register()
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    gid = game_ids(client)[0]
    pid = re.search(r'href="/players/(\d+)"', client.get("/players").data.decode()).group(1)
    auth.logout()
    auth.register("bob")
    for url in (f"/games/{gid}/summary", f"/games/{gid}/chart.svg", f"/games/{gid}.csv", f"/players/{pid}",
                f"/?player={pid}"):
        assert client.get(url).status_code == 404, url
    assert json.loads(client.get("/export?format=json").data) == []


def test_pages_need_login(client):
    for url in ("/history", "/players", "/settings", "/export", "/import", "/games/1/summary"):
        assert client.get(url).status_code == 302, url


@pytest.mark.skipif(bool(PG_URL), reason="builds its own SQLite file at revision 0001")
def test_migration_0002_keeps_data_and_links_profiles(tmp_path):
    url = "sqlite:///" + str(tmp_path / "old.sqlite3")
    migrate(url, "0001")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO user (id, username, password_hash, created_at) "
                          "VALUES (1, 'ann', 'x', '2026-11-01 10:00:00')"))
        for gid, players in ((1, '["Ann", "Ben", "Cat"]'), (2, '["ann", "Dan", "Eve"]')):
            conn.execute(text("INSERT INTO game (id, owner_id, game, players, options, version, finished, rounds, "
                              "winners, created_at, updated_at) VALUES (:id, 1, 'mitchi', :p, '{}', 1, 0, 0, "
                              "'[]', '2026-11-0' || :id || ' 20:00:00', '2026-11-02 20:00:00')"),
                         {"id": gid, "p": players})
            conn.execute(text("INSERT INTO entry (game_id, seq, data, status, created_at) VALUES "
                              "(:id, 1, '{\"type\": \"start\", \"player\": \"Ann\"}', 'active', "
                              "'2026-11-02 20:00:00')"), {"id": gid})
    migrate(url, "0003")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM entry")).scalar() == 2
        assert conn.execute(text("SELECT timezone FROM user")).scalar() == "UTC"
        played = conn.execute(text("SELECT played_at, created_at FROM game ORDER BY id")).all()
        assert all(p == c for p, c in played)
        assert conn.execute(text("SELECT count(*) FROM player")).scalar() == 5
        assert conn.execute(text("SELECT count(*) FROM game_player")).scalar() == 6
    engine.dispose()


def test_loading_the_same_record_twice_adds_it_once(client, auth):
    auth.register()
    record = golden("mitchi/mitchi-seed-tiebreak-example")
    first = upload(client, record)
    assert first.status_code == 303
    before = game_ids(client)
    again = upload(client, record)
    assert again.status_code == 303
    assert "Already here, not loaded again: r0.json" in client.get(again.headers["Location"]).data.decode()
    assert game_ids(client) == before
    # A record that differs (here in its options) is another game.
    other = {**record, "options": {"point_limit": 30}}
    upload(client, other)
    assert len(game_ids(client)) == len(before) + 1


def test_summary_says_how_the_first_starter_was_found(client, auth):
    auth.register()
    record = {"format": 1, "game": "mitchi", "players": ["Ann", "Ben", "Cat"], "options": {},
              "entries": [{"type": "startroll", "player": "Ann", "die": 5},
                          {"type": "startroll", "player": "Ben", "die": 5},
                          {"type": "startroll", "player": "Cat", "die": 2},
                          {"type": "startroll", "player": "Ann", "die": 3},
                          {"type": "startroll", "player": "Ben", "die": 6}]}
    r = upload(client, record)
    game = int(r.headers["Location"].rsplit("/", 1)[1])
    page = client.get(f"/games/{game}/summary").data.decode()
    assert "Roll-off for who starts: Ann 5, Ben 5, Cat 2; then Ann 3, Ben 6. Ben starts." in page
    # A right-to-left name keeps its die beside it ("5 שרה" read as שרה's 5, beside Ann's).
    r = upload(client, json.loads(json.dumps(record).replace('"Ben"', '"שרה"')))
    page = client.get(r.headers["Location"] + "/summary").data.decode()
    assert ("Roll-off for who starts: Ann 5, \u2068שרה\u2069 5, Cat 2; then Ann 3, \u2068שרה\u2069 6. "
            "\u2068שרה\u2069 starts.") in page


def test_summary_chart_legend_names_every_player(client, auth):
    import base64

    auth.register()
    players = ("Ann", "Ben", "Cat", "Dan", "Eve")
    gid = new_game(client, players=players, starter="0", point_limit=2)
    for v, p in enumerate(players):
        client.post(f"/games/{gid}/entries", data={"version": str(v), "type": "turn", "player": p,
                                                   "hand.0": "6", "hand.1": str(v + 1), "rolls": "1"})
    page = client.get(f"/games/{gid}/summary").data.decode()
    legend = page.split('<ul class="chart-legend">')[1].split("</ul>")[0]
    assert re.findall(r"</svg>([^<]+)</li>", legend) == list(players)
    svg = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page).group(1)).decode()
    height = float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))
    assert 'class="legends"' not in svg and height == 340  # nothing drawn outside the chart
    # Each line its own dashes (equal scores put lines on top of each other: each colour still
    # shows between the other's dashes; found by two reviews), the same in the page's legend.
    rules = [re.search(r"\.series\.serie-%d\{([^}]*)\}" % i, svg).group(1) for i in range(5)]
    drawn = [m.group(1) if (m := re.search(r"stroke-dasharray:([\d,]+)", rule)) else None for rule in rules]
    assert drawn[0] is None and len(set(drawn)) == 5, drawn
    assert re.findall(r'stroke-dasharray="([\d,]+)"', legend) == drawn[1:]
    assert "round-by-round list below has the same numbers" in page


@pytest.mark.parametrize("path", ["mitchi/mitchi-11-shared-win-zero", "mia/mia-5-skip-eliminated-game-end",
                                  "mice_and_men/mm-fixed-rounds-end", "mice_and_men/mice-and-men-basic-round"])
def test_a_right_to_left_name_keeps_its_figure_beside_it(client, auth, path):
    """"Ann 3, שלום 0": without isolation the 0 is drawn left of the Hebrew name, beside the name
    before it. Each name followed by its figure is in <bdi> (game over, a showdown's scores on the
    page of a game in play, the summary)."""
    auth.register()
    doc = json.loads(json.dumps(golden(path)).replace('"Ben"', '"שלום"'))
    assert "שלום" in doc["players"]
    r = upload(client, doc)
    assert r.status_code == 303
    gid = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    pages = {"game": client.get(f"/games/{gid}").data.decode(),
             "summary": client.get(f"/games/{gid}/summary").data.decode()}
    for page in pages.values():
        assert re.search(r"<bdi>שלום</bdi> \d", page), page[-1500:]
        bad = re.search(r"(?<!<bdi>)שלום(?!</bdi>) \d", page)
        assert not bad, page[bad.start() - 300:bad.end() + 50]
    if path.endswith("basic-round"):  # the summary's round in words: isolated by U+2068 and U+2069
        shown = re.search(r"Showdown: [^.]*\.", pages["summary"]).group(0)
        # only the right-to-left name is isolated; the others are left as they are
        assert shown == "Showdown: Ann 531, \u2068שלום\u2069 611, Dan 644.", ascii(shown)


def test_a_right_to_left_name_in_an_entrys_words_keeps_the_dice_beside_it(client, auth):
    """"שלום: 3-1 in 1" drew the dice on the name's left, reversed ("1-3"), in Last entries, the
    Undo button and the whole log; and two right-to-left names in a list swapped places. A name
    with a right-to-left letter is isolated (U+2068, U+2069; <bdi> where the page lists runners);
    any other name is left as it is."""
    auth.register()
    doc = json.loads(json.dumps(golden("mitchi/mitchi-11-shared-win-zero")).replace('"Ben"', '"שלום"'))
    r = upload(client, doc)
    gid = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    for page in (client.get(f"/games/{gid}/log").data.decode(), client.get(f"/games/{gid}").data.decode()):
        assert "\u2068שלום\u2069: " in page
        assert not re.search(r"(?<!\u2068)שלום(?!\u2069): ", page)
        assert "\u2068Ann" not in page  # a left-to-right name is left as it is
    doc = json.loads(json.dumps(golden("mice_and_men/mm-chosen-first-player"))
                     .replace('"Ann"', '"שלום"').replace('"Ben"', '"أحمد"'))
    r = upload(client, doc)
    gid = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
    page = client.get(f"/games/{gid}").data.decode()
    assert "<bdi>Dan</bdi>, <bdi>שלום</bdi>, <bdi>أحمد</bdi>" in page, page
    assert "\u2068أحمد\u2069 runs with the mice" in page  # Last entries


def test_downloads_are_kept_by_no_cache(client, auth):
    """A game's record, its CSV and the export are the group's own, like its pages: no cache keeps
    them (they said nothing, so a shared proxy or the browser's cache could keep them). The chart
    keeps its own rule."""
    auth.register()
    gid = new_game(client)
    for url in (f"/games/{gid}/record.json", f"/games/{gid}.csv", "/export", "/export?format=zip", f"/games/{gid}"):
        r = client.get(url)
        assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store", (url, r.headers.get("Cache-Control"))
    assert client.get(f"/games/{gid}/chart.svg").headers["Cache-Control"] == "private, no-cache"


@pytest.mark.parametrize("name, heads", [
    # tie-breaks stay under their round; the round's last tie-break roll ends it
    ("mitchi/mitchi-11-default-limit-25-ends", [("Who starts", 1), ("Round 1", 2), ("Round 2", 12), ("Round 3", 20)]),
    ("mia/mia-5-skip-eliminated-game-end", [("Who starts", 1), ("Round 1", 2), ("Round 2", 4), ("Round 3", 6)]),
    # a roll-off for who starts: its dice under a heading of their own, not under round 1's
    ("mitchi/mitchi-2-rolloff-highest-starts", [("Who starts", 1), ("Round 1", 4)]),
    ("mitchi/mitchi-2-rolloff-two-players-repeat", [("Who starts", 1)]),
])
def test_whole_log_heads_each_round(client, auth, name, heads):
    """The Whole log says where each round begins (a 200-entry game was one long list): a heading
    per round, and one for the entries that name who starts (they were listed under round 1),
    the entries' numbers running on through the game, each correct link the entry's own."""
    auth.register()
    upload(client, golden(name))
    gid = int(re.search(r'href="/games/(\d+)(?:/summary)?"', client.get("/").data.decode()).group(1))  # finished or not
    page = client.get(f"/games/{gid}/log").data.decode()
    found = re.findall(r'<h2>(Round \d+|Who starts)</h2>\s*<ol class="log" start="(\d+)">', page)
    assert [(head, int(s)) for head, s in found] == heads
    entries = len(golden(name)["entries"])
    assert page.count("<li>") - page.count("<li>entry ") == entries  # none lost, none twice
    assert re.findall(r'/games/\d+/entries/(\d+)', page) == [str(n) for n in range(1, entries + 1)]


@pytest.mark.parametrize("name, want", [
    # Ann announced and passed back raising, Cat passed only; the owner and the challenger keep
    # their claim and cup after what they did before
    ("mia/mia-4-may-pass-raise", [("1", "Ann", "rolled", "announced 42; passed 51"),
                                  ("1", "Ben", "cup owner", "passed; passed; claimed 51, cup 61"),
                                  ("1", "Cat", "challenger", "passed; challenged 51, cup 61")]),
    ("mia/mia-4-may-pass-challenge", [("1", "Cat", "passed", "passed")]),
    # the challenge's winner who reversed the direction says so (it was nowhere in the CSV)
    ("mia/mia-7-reverse", [("1", "Ben", "challenger", "challenged Mia, cup 41; reversed the direction"),
                           ("1", "Ann", "cup owner", "announced Mia; claimed Mia, cup 41"),
                           ("2", "Ben", "cup owner", "announced 41; claimed 41, cup 42")]),
    # a player with no lives left is out, not watching
    ("mia/mia-5-skip-eliminated-game-end", [("1", "Cat", "watched", ""), ("2", "Ben", "out", ""),
                                            ("3", "Cat", "out", "")]),
])
def test_mia_csv_says_who_announced_passed_and_was_out(client, auth, name, want):
    """A Mia round's CSV rows named the cup owner and the challenger only: a player who had
    announced or passed before them, or who was out of lives, was "watched" (found by a review).
    The game's CSV and the export's games.csv (stored rounds) say the same."""
    import csv as csvlib

    auth.register()
    upload(client, golden(name))
    gid = game_ids(client)[0]
    own = list(csvlib.DictReader(io.StringIO(client.get(f"/games/{gid}.csv").data.decode().lstrip("\ufeff"))))
    got = {(r["round"], r["player"]): (r["action"], r["detail"]) for r in own}
    for rnd, player, action, detail in want:
        assert got[(rnd, player)] == (action, detail), (rnd, player)
    z = zipfile.ZipFile(io.BytesIO(client.get("/export?format=zip").data))
    exported = list(csvlib.DictReader(io.StringIO(z.read("games.csv").decode().lstrip("\ufeff"))))
    assert exported == own


def test_players_are_listed_alphabetically_with_accented_letters_among_their_base_letters(client, auth):
    """The players page, the player filter of the games list and "Players you know" on a new
    game list names by their letters: "Émile" among the E's, "Łukasz" among the L's, "Ørjan"
    among the O's. By code point they all came after Z (found by a review)."""

    auth.register()
    names = ("Zoë", "Łukasz", "Xavier", "Ørjan", "Émile", "Dagmar")
    new_game(client, players=names)
    expected = ["Dagmar", "Émile", "Łukasz", "Ørjan", "Xavier", "Zoë"]
    players = html_module.unescape(client.get("/players").data.decode())
    assert re.findall(r'href="/players/\d+">(?:<span class="name">)?([^<]+)<', players) == expected
    games = html_module.unescape(client.get("/").data.decode())
    assert re.findall(r'<option value="\d+"[^>]*>([^<]+)</option>', games) == expected
    setup = html_module.unescape(client.get("/games/new/mitchi").data.decode())
    assert re.findall(r'value="pick-\d+"[^>]*>([^<]+)</button>', setup) == expected


def test_records_loaded_again_are_named_by_their_file(client, auth):
    """Loading the same games again names each file once: "a.json (all 6 games)", or "list.json
    (4 of its 5 games)" for part of it. It named every record of an export again, "all.zip:
    games.json, record 1, all.zip: games.json, record 2, …" (found by a review)."""
    auth.register()
    records = [golden(f"mitchi/{p.stem}") for p in sorted((RECORDS / "mitchi").glob("mitchi-1-*.json"))[:6]]
    assert len({json.dumps(r, sort_keys=True) for r in records}) == 6
    assert upload(client, records, names=["a.json"]).status_code == 303
    r = upload(client, records, names=["a.json"])
    said = client.get(r.headers["Location"]).data.decode()
    assert "Already here, not loaded again: a.json (all 6 games)." in said and "record 1" not in said
    r = upload(client, records[:4] + [golden("mia/mia-5-skip-eliminated-game-end")], records[5],
               names=["list.json", "one.json"])
    said = client.get(r.headers["Location"]).data.decode()
    assert "Already here, not loaded again: list.json (4 of its 5 games), one.json." in said
    # A few of a file's records: each named with its game, when it was played and its players (a
    # position alone, "all.zip: games.json, record 1", did not say which game; found by a review).
    played = dict(records[1], played_at="2026-11-29T19:30:00Z")
    r = upload(client, [records[0], played, golden("mitchi/mitchi-11-end-exactly-at-limit")],
               names=["few.json"])
    said = html_module.unescape(client.get(r.headers["Location"]).data.decode())
    first, second = (", ".join(r["players"]) for r in records[:2])
    assert (f"Already here, not loaded again: few.json, record 1 (Mitchi: {first}), "
            f"few.json, record 2 (Mitchi, Sun 29 Nov 2026, 19:30: {second}).") in said
