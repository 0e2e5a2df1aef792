"""A correction uses the same controls as entry (die faces, value buttons in the game's ranking
order with Mia as Mia, the choices of the moment) and may change the kind of entry; the engine
checks it like any entry."""

from __future__ import annotations

import re

from ..conftest import messages, new_game, version_of
from .test_mia_views import Table
from .test_mice_and_men_views import play


def plain(entry: dict) -> dict:
    """A record entry without ``entered_by`` (who entered it, an extra key)."""
    return {k: v for k, v in entry.items() if k != "entered_by"}


def correction_page(client, game, seq) -> str:
    r = client.get(f"/games/{game}/entries/{seq}")
    assert r.status_code == 200
    return r.data.decode()


def correct(client, game, seq, version, **fields):
    data = {"version": str(version), **{k.replace("_", "."): str(v) for k, v in fields.items()}}
    return client.post(f"/games/{game}/entries/{seq}", data=data)


def test_mia_correction_page_has_the_entry_controls(client, auth):
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    table.pass_("Ben")
    page = correction_page(client, table.game, 3)
    assert 'type="number"' not in page and "<select" not in page
    # Ben could challenge (die faces), pass, or announce higher: values in ranking order, Mia last.
    assert "Challenge Ann" in page and 'name="cup.0" value="6"' in page
    assert "Ben passes: holds 43" in page
    values = re.findall(r'name="value" value="(\d+)"[^>]*>([^<]+)<', page)
    assert [v for v, _ in values] == ["51", "52", "53", "54", "61", "62", "63", "64", "65",
                                      "66", "55", "44", "33", "22", "11", "21"]
    assert values[-1][1] == "Mia"
    # Every form posts the correction, not a new entry.
    assert set(re.findall(r'<form class="entry" method="post" action="([^"]+)"', page)) == {
        f"/games/{table.game}/entries/3"}


def test_mia_correction_changes_the_kind(client, auth):
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    table.pass_("Ben")
    # pass -> challenge
    r = correct(client, table.game, 3, 2, type="challenge", player="Ben", cup_0=3, cup_1=1)
    assert r.status_code == 303
    assert plain(table.record()["entries"][2]) == {"type": "challenge", "player": "Ben", "cup": [3, 1]}
    # challenge -> announce
    r = correct(client, table.game, 3, 3, type="announce", player="Ben", value=21)
    assert r.status_code == 303 and table.record()["entries"][2]["type"] == "announce"
    # announce -> pass
    r = correct(client, table.game, 3, 4, type="pass", player="Ben")
    assert r.status_code == 303 and table.record()["entries"][2]["type"] == "pass"
    # Checked by the engine: Ann may not pass before anything was announced.
    before = table.record()
    r = correct(client, table.game, 2, 5, type="pass", player="Ann")
    assert r.status_code == 422 and messages(r.data)
    assert table.record() == before


def test_mice_and_men_correction_run_and_join(client, auth):
    auth.register()
    game = new_game(client, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=2)
    play(client, game, [("announce", "Ann", {"penalty": 3}), ("join", "Ben", {})])
    page = correction_page(client, game, 3)
    assert "Run with the mice" in page and "Join the men" in page and "Lead the men" in page
    assert re.findall(r'aria-current="true">([^<]+)<', page) == ["Join the men"]  # the entry's own
    r = correct(client, game, 3, 2, type="run", player="Ben")
    assert r.status_code == 303
    record = client.get(f"/games/{game}/record.json").json
    assert plain(record["entries"][2]) == {"type": "run", "player": "Ben"}
    r = correct(client, game, 3, 3, type="join", player="Ben")
    assert r.status_code == 303
    assert client.get(f"/games/{game}/record.json").json["entries"][2]["type"] == "join"


def test_a_reveal_correction_picks_the_entrys_own_player(client, auth):
    """Correcting Cat's reveal at a showdown of four: Cat is the player picked, with Cat's dice (the
    page picked the first still to reveal, Ann: sent as it stood, Cat's dice became Ann's)."""
    auth.register()
    game = new_game(client, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=2)
    play(client, game, [("announce", "Ann", {"penalty": 2}), ("join", "Ben", {}), ("join", "Cat", {}),
                        ("join", "Dan", {}), ("reveal", "Cat", {"dice_0": 5, "dice_1": 3, "dice_2": 1})])
    page = correction_page(client, game, 6)  # entry 1: who starts
    checked = re.findall(r'name="([^"]+)" value="([^"]+)" required checked', page)
    assert checked == [("player", "Cat"), ("dice.0", "5"), ("dice.1", "3")]
    # The game page itself picks no one: each reveal goes under the name tapped.
    game_page = client.get(f"/games/{game}").data.decode()
    assert "<bdi>Ann</bdi>, <bdi>Ben</bdi>, <bdi>Dan</bdi> to reveal" in game_page
    assert not re.findall(r'name="player" value="[^"]+" required checked', game_page)


def test_a_penalty_typed_in_is_the_number_fields_value_on_its_correction_page(client, auth):
    """An opening or a lead entered through "Another penalty" (beyond the buttons) shows that
    penalty in the field on its correction page, not the field's first value (found by a review)."""
    auth.register()
    game = new_game(client, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=2,
                    opening_range=[1, 30])
    play(client, game, [("announce", "Ann", {"penalty": 20}), ("announce", "Ben", {"penalty": 25})])
    opening = correction_page(client, game, 2)
    assert re.search(r'<input id="opening-penalty" type="number" name="penalty" min="1" max="30" value="20"',
                     opening)
    lead = correction_page(client, game, 3)
    assert re.search(r'<input id="lead-penalty" type="number" name="penalty" min="21" max="\d+" value="25"',
                     lead)
    # The game's own page still starts the field above the penalty.
    game_page = client.get(f"/games/{game}").data.decode()
    assert re.search(r'<input id="lead-penalty" [^>]*min="26" [^>]*value="26"', game_page)


def test_mitchi_correction_uses_die_faces_and_rolls(client, auth):
    auth.register()
    game = new_game(client)
    client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "player": "Ann",
                                                "hand.0": "6", "hand.1": "3", "rolls": "2"})
    page = correction_page(client, game, 2)
    assert 'type="number"' not in page
    assert 'name="hand.0" value="6" required checked' in page and 'name="hand.1" value="3" required checked' in page
    assert re.findall(r'name="rolls" value="(\d)"', page) == ["1", "2", "3"]
    # The dice pad is built once and kept (web.fragment): the game's own pad, after the
    # correction page, has nothing chosen, and the correction page keeps its faces chosen.
    assert " checked" not in client.get(f"/games/{game}").data.decode()
    # A value sent by its own button (here the rolls) is marked current, as a picked face is checked.
    assert re.findall(r'name="rolls" value="(\d)" aria-current="true"', page) == ["2"]
    assert "aria-current" not in client.get(f"/games/{game}").data.decode()
    again = correction_page(client, game, 2)
    assert 'name="hand.0" value="6" required checked' in again and 'name="hand.1" value="3" required checked' in again


def test_last_entries_follow_a_correction_and_the_language(app, client, auth, monkeypatch):
    """Each line of "Last entries" is built once and kept (web.fragment), by game, position,
    language and entry: a corrected entry and another language still show as they are."""
    # A description that reads the same in both languages: only the language tells them apart.
    describe = app.jinja_env.globals["describe"]
    monkeypatch.setitem(app.jinja_env.globals, "describe",
                        lambda e: "Ann: 6-3 in 2" if e.get("hand") == [6, 3] else describe(e))
    auth.register()
    game = new_game(client)
    client.post(f"/games/{game}/entries", data={"version": "0", "type": "turn", "player": "Ann",
                                                "hand.0": "6", "hand.1": "3", "rolls": "2"})
    page = client.get(f"/games/{game}").data.decode()
    assert "Ann: 6-3 in 2" in page and 'aria-label="Correct entry 2">correct</a>' in page
    assert client.post("/language", data={"language": "de"}).status_code == 303
    page = client.get(f"/games/{game}").data.decode()
    assert 'aria-label="Eintrag 2 korrigieren">korrigieren</a>' in page and ">correct</a>" not in page
    assert client.post("/language", data={"language": "en"}).status_code == 303
    assert correct(client, game, 2, 1, type="turn", player="Ann", hand_0=5, hand_1=4, rolls=1).status_code == 303
    page = client.get(f"/games/{game}").data.decode()
    assert "Ann: 5-4 in 1" in page and "Ann: 6-3 in 2" not in page


def test_rolls_buttons_follow_the_language(client, auth):
    """The "Rolls used" buttons are built once and kept (web.fragment) by roll limit, language and
    chosen number: the same buttons asked for in another language are that language's."""
    auth.register()
    game = new_game(client)
    page = client.get(f"/games/{game}").data.decode()
    assert re.findall(r'name="rolls" value="\d">([^<]+)<', page) == ["in 1", "in 2", "in 3"]
    assert client.post("/language", data={"language": "de"}).status_code == 303
    page = client.get(f"/games/{game}").data.decode()
    assert re.findall(r'name="rolls" value="\d">([^<]+)<', page) == ["1. Wurf", "2. Wurf", "3. Wurf"]
    assert "Im wievielten Wurf?" in page


def test_a_correction_marks_the_values_sent_by_their_own_button(client, auth):
    """The last die of a Mia challenge and the penalty of a Mice and Men opening are sent by the
    button of their value: on the correction page that button is marked current."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    table.challenge("Ben", [6, 1])
    page = correction_page(client, table.game, 3)
    assert 'name="cup.0" value="6" required checked' in page
    assert re.findall(r'name="cup.1" value="(\d)" aria-current="true"', page) == ["1"]
    page = correction_page(client, table.game, 2)  # Ann's announcement: its value's button
    assert re.findall(r'name="value" value="(\d+)"[^>]*aria-current="true"', page) == ["43"]
    other = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    other.announce("Ann", 43)
    other.pass_("Ben")  # a pass without raising: its own button, and no value of the announce
    page = correction_page(client, other.game, 3)
    assert re.findall(r'aria-current="true">([^<]+)<', page) == ["Ben passes: holds 43"]

    game = new_game(client, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=2)
    play(client, game, [("announce", "Ann", {"penalty": 3})])
    page = correction_page(client, game, 2)
    assert re.findall(r'name="penalty" value="(\d+)" aria-current="true"', page) == ["3"]


def test_who_starts_is_corrected_with_its_own_buttons(client, auth):
    """A roll-off die marks the die, not the player who rolled it as starter; a Mice and Men game's
    starter, set up with the game, can be named again on its correction page."""
    from scorekeeper.forms import ROLLOFF

    auth.register()
    game = new_game(client, starter=ROLLOFF)
    client.post(f"/games/{game}/entries", data={"version": "0", "type": "startroll", "player": "Ann", "die": "4"})
    page = correction_page(client, game, 1)
    assert re.findall(r'value="([^"]+)" aria-current="true"', page) == ["4"]

    game = new_game(client, "mice-and-men", players=("Kim", "Lou", "Max", "Ned"), starter="1", rounds=2)
    page = correction_page(client, game, 1)
    assert re.findall(r'name="player" value="([^"]+)" aria-current="true"', page) == ["Lou"]
    assert correct(client, game, 1, 0, type="start", player="Max").status_code == 303
    assert plain(client.get(f"/games/{game}/record.json").json["entries"][0]) == {"type": "start", "player": "Max"}


def test_mia_value_buttons_are_kept_by_all_they_show(client, auth):
    """Mia's value buttons are built once and kept (web.fragment) by choices, legend, order,
    language and the corrected entry's own value: a correction page's current value never shows
    in a game's panel that offers the same buttons, and the correction page keeps it."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    page = correction_page(client, table.game, 2)  # Ann rolls and announces: every value
    current = re.findall(r'name="value" value="(\d+)"[^>]*aria-current="true"', page)
    assert current == ["43"]
    other = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0")  # Ann rolls and announces
    panel = client.get(f"/games/{other}").data.decode()
    assert "Ann rolls and announces" in panel and 'name="value" value="43"' in panel
    assert "aria-current=\"true\"" not in panel.split('name="value"', 1)[1]
    assert re.findall(r'name="value" value="(\d+)"[^>]*aria-current="true"', correction_page(client, table.game, 2)) == ["43"]
    # The sum order shows each value's sum, named so (a bare "(11)" beside the value 65 read
    # as the double 11 beside it): a game in that order gets its own buttons.
    summed = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0", order="sum")
    assert "<small>(sum 7)</small>" in client.get(f"/games/{summed}").data.decode()
    assert re.search(r"<small>\(sum \d+\)</small>", client.get(f"/games/{other}").data.decode()) is None


def test_the_same_correction_sent_twice_is_done_once_and_said_once(client, auth):
    """A double tap on a correction's last button: the second request carries the form's
    one-time token the first stored with the correction. It is told the correction is done (it
    used to say "nothing was corrected" after the first tap had corrected it; found by a review),
    and the log holds one correction. Any other correction from that old page is refused."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    table.pass_("Ben")
    page = correction_page(client, table.game, 3)
    token = re.search(r'name="once" value="([^"]+)"', page).group(1)  # the form's one-time token
    for _ in range(2):
        r = correct(client, table.game, 3, 2, type="announce", player="Ben", value=54, once=token)
        assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{table.game}")
    page = client.get(f"/games/{table.game}").data.decode()
    assert page.count("Entry 3 corrected.") == 1
    record = table.record()
    assert plain(record["entries"][2]) == {"type": "announce", "player": "Ben", "value": 54}
    assert [h["status"] for h in record.get("history", [])] == ["replaced"]
    r = correct(client, table.game, 3, 2, type="announce", player="Ben", value=61)  # not a repeat
    assert r.status_code == 409 and "nothing was corrected" in r.data.decode()
    # Nor is a stale page's correction to what the entry has become (found by a review: it was
    # answered "Entry 3 corrected." when another phone had changed the game meanwhile).
    r = correct(client, table.game, 3, 2, type="announce", player="Ben", value=54)
    assert r.status_code == 409 and "nothing was corrected" in r.data.decode()
    assert plain(table.record()["entries"][2])["value"] == 54
    assert [h["status"] for h in table.record().get("history", [])] == ["replaced"]


def test_a_correction_to_what_the_entry_already_is_changes_nothing(client, auth):
    """Sent unchanged, a correction is not written and not listed as one (it said "Entry 3
    corrected." and the log showed "(corrected by …)"; found by a review). It leads back to
    the game, saying so, as a correction does (it was refused, 422, on the correction page)."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.announce("Ann", 43)
    table.pass_("Ben")
    version = table.version
    r = correct(client, table.game, 3, version, type="pass", player="Ben")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{table.game}")
    page = client.get(r.headers["Location"]).data.decode()
    assert "Entry 3 is already Ben passes: nothing was changed." in page and "corrected." not in page
    assert version_of(page) == version  # nothing written
    assert "history" not in table.record() or table.record()["history"] == []
    assert "corrected" not in client.get(f"/games/{table.game}/log").data.decode()


def test_a_correction_to_the_same_hand_in_another_order_changes_nothing(client, auth):
    """1-2 and 2-1 are the same hand (docs/rules.md §Mitchi 1): a correction of a 1-2 to 2-1 is
    sent unchanged, not a correction (it was written, and the log listed two identical lines;
    found by a review). Other dice change it as before."""
    auth.register()
    game = new_game(client)
    turn = {"type": "turn", "player": "Ann", "rolls": "2"}
    client.post(f"/games/{game}/entries", data={"version": "0", **turn, "hand.0": "1", "hand.1": "2"})
    r = correct(client, game, 2, 1, **turn, hand_0=2, hand_1=1)
    assert r.status_code == 303
    page = client.get(r.headers["Location"]).data.decode()
    assert "Entry 2 is already Ann: 2-1 (Mitchi) in 2: nothing was changed." in page, messages(page)
    assert version_of(page) == 1  # nothing written
    assert client.get(f"/games/{game}/record.json").json.get("history", []) == []
    assert "corrected" not in client.get(f"/games/{game}/log").data.decode()
    r = correct(client, game, 2, 1, **turn, hand_0=3, hand_1=1)
    assert r.status_code == 303 and "Entry 2 corrected." in client.get(r.headers["Location"]).data.decode()


def test_a_quick_entry_correction_goes_back_to_quick_entry(client, auth):
    """Mia's quick entry stays quick after a correction made in it, and the correction page's way
    back keeps it too (both went back to the full trail; found by a review)."""
    auth.register()
    table = Table(client, new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0"))
    table.quick("Ann", "Ben", 54, (3, 1))
    page = correction_page(client, table.game, 2)
    assert f'href="/games/{table.game}?mode=quick">Back to the game' in page
    r = correct(client, table.game, 2, table.version, type="challenge", player="Ben", owner="Ann", announced=54,
                cup_0=6, cup_1=5, mode="quick")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{table.game}?mode=quick")
    assert "Who was the challenged cup owner?" in client.get(r.headers["Location"]).data.decode()
