"""The Mice and Men pages through the test client: each choice, the showdown, refusals, the end."""

from __future__ import annotations

import html
import re

import pytest

from ..conftest import HX, messages, new_game, version_of, without_entered_by

PLAYERS = ("Ann", "Ben", "Cat", "Dan")


@pytest.fixture
def game(client, auth):
    auth.register()
    return new_game(client, "mice-and-men", players=PLAYERS, starter="0", rounds=2)


def post(client, game, version, kind, player=None, htmx=True, **fields):
    data = {"version": str(version), "type": kind}
    if player is not None:
        data["player"] = player
    data.update({k.replace("_", "."): str(v) for k, v in fields.items()})
    return client.post(f"/games/{game}/entries", data=data, headers=HX if htmx else {})


def reveal(client, game, version, player, dice):
    return post(client, game, version, "reveal", player, **{f"dice_{i}": d for i, d in enumerate(dice)})


def record(client, game):
    return without_entered_by(client.get(f"/games/{game}/record.json").json)


def text(html: bytes) -> str:
    """The panel as plain text, tags dropped and spaces squeezed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.decode())).replace(" .", ".").replace(" ,", ",")


def play(client, game, steps):
    """Post entries in order, each expected to be accepted; return the last answer."""
    v = version_of(client.get(f"/games/{game}").data)
    r = None
    for kind, player, fields in steps:
        r = post(client, game, v, kind, player, **fields)
        assert r.status_code == 200, messages(r.data)
        v += 1
    return r


def test_the_first_seat_is_the_opener_only_unless_a_roll_off_picks_another(client, auth):
    """Set up to roll for the opener (as a rematch is), the page asks "Who opens round 1?" and
    offers the first seat's opening; its glance said "Opener Ann" as if decided (found by a
    review). It says what the panel offers, as the live view does; once Ann opens, she is it."""
    auth.register()
    gid = new_game(client, "mice-and-men", players=PLAYERS, starter="rolloff", rounds=2)
    t = text(client.get(f"/games/{gid}").data)
    assert "Who opens round 1?" in t
    assert "Opener Ann, unless a roll-off picks another" in t and "Opener Ann Penalty" not in t
    t = text(play(client, gid, [("announce", "Ann", {"penalty": 3})]).data)
    assert "Opener Ann Penalty" in t and "unless a roll-off" not in t


def test_round_page_at_the_opening(client, game):
    page = client.get(f"/games/{game}")
    assert page.status_code == 200 and b'id="panel"' in page.data
    t = text(page.data)
    assert "Round 1 of 2" in t
    assert "Opener Ann" in t
    assert "Ann opens round 1: the penalty?" in t
    # The pad says the range; no penalty, "still in" or "ran" box before the announcement (Undo
    # stays in view under the pad as a round ends).
    assert "Ann announces a penalty (1 to 10)" in t
    assert "not announced yet" not in t and "Still in" not in t and "Ran with the mice" not in t
    html = page.data.decode()
    # The opening range as big buttons, 1 to 10, each a real form submit.
    for n in range(1, 11):
        assert f'name="penalty" value="{n}">{n}</button>' in html
    assert 'value="11">' not in html
    assert 'name="type" value="announce"' in html and 'name="player" value="Ann"' in html
    assert 'action="/games/' in html and 'method="post"' in html


def test_each_choice_and_the_showdown(client, game):
    r = play(client, game, [("announce", "Ann", {"penalty": 4})])
    t = text(r.data)
    assert "Ben's choice at penalty 4" in t
    assert "Penalty 4 opened by Ann" in t
    html = r.data.decode()
    assert "Run with the mice</button>" in html and "Join the men</button>" in html
    assert "Lead the men</summary>" in html
    # The lead stepper starts above the current penalty: buttons 5.. and a number input min=5 value=5.
    assert 'name="penalty" value="5">5</button>' in html and 'value="4">4</button>' not in html
    assert re.search(r'<input id="lead-penalty" type="number" name="penalty" min="5" max="999999999" value="5"', html)

    r = play(client, game, [("join", "Ben", {})])
    assert "Cat's choice at penalty 4" in text(r.data)
    assert "joined at 4" in text(r.data)

    r = play(client, game, [("run", "Cat", {})])
    t = text(r.data)
    assert "Dan's choice at penalty 4" in t
    assert "Ran with the mice Cat (+3)" in t
    assert "Still in Ann, Ben, Dan" in t
    assert re.search(r'<tr class="out">\s*<th scope="row"><span class="name">Cat<', r.data.decode())

    # Dan leads to 7: the bidding reopens for Ann (the opener) and Ben (who had joined).
    r = play(client, game, [("announce", "Dan", {"penalty": 7})])
    t = text(r.data)
    assert "Ann's choice at penalty 7" in t and "Penalty 7 led by Dan" in t
    r = play(client, game, [("join", "Ann", {}), ("join", "Ben", {})])
    t = text(r.data)
    assert "Showdown at penalty 7: Ann, Ben, Dan to reveal" in t
    # The showdown's glance: the lowest score so far, not who is still in (they reveal) or who ran.
    assert "Lowest score so far none yet" in t and "Still in" not in t and "Ran with the mice Cat" not in t
    html = r.data.decode()
    assert html.count('name="player" value="') >= 3 and 'name="dice.2"' in html

    # Reveals in any order.
    v = version_of(r.data)
    r = reveal(client, game, v, "Dan", (6, 1, 5))
    assert r.status_code == 200, messages(r.data)
    assert "Ben to reveal" in text(r.data) and "<strong>651</strong>" in r.data.decode()
    assert "Lowest score so far 651 · Dan" in text(r.data)
    r = reveal(client, game, v + 1, "Ben", (2, 3, 1))
    assert "Lowest score so far 321 · Ben" in text(r.data)
    r = reveal(client, game, v + 2, "Ann", (4, 4, 2))
    assert r.status_code == 200, messages(r.data)
    t = text(r.data)
    assert "Round 1 showdown at penalty 7: Dan 651 · Ann 442 · Ben 321." in t
    assert '<mark class="taker"><bdi>Ben</bdi> 321</mark>' in r.data.decode()
    assert "Ben takes the penalty: 7 points." in t
    assert "Ran with the mice: Cat (+3)." in t
    # Round 2: the next seat opens.
    assert "Round 2 of 2" in t and "Ben opens round 2" in t
    assert record(client, game)["entries"][-1] == {"type": "reveal", "player": "Ann", "dice": [4, 4, 2]}


def test_plain_form_post_redirects(client, game):
    v = version_of(client.get(f"/games/{game}").data)
    r = post(client, game, v, "announce", "Ann", htmx=False, penalty=3)
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game}")
    assert "Ben's choice at penalty 3" in text(client.get(f"/games/{game}").data)


def test_lone_survivor(client, game):
    r = play(client, game, [("announce", "Ann", {"penalty": 2}), ("announce", "Ben", {"penalty": 9}),
                            ("run", "Cat", {}), ("run", "Dan", {}), ("run", "Ann", {})])
    t = text(r.data)
    assert "Round 1: Ben is the lone survivor and takes nothing (no showdown)." in t
    assert "Ran with the mice: Cat, Dan, Ann (+3 each)." in t
    assert record(client, game)["entries"][-1] == {"type": "run", "player": "Ann"}


def bidding(client, game):
    """Ann opens at 4, Ben joins, Cat runs: Dan's choice."""
    play(client, game, [("announce", "Ann", {"penalty": 4}), ("join", "Ben", {}), ("run", "Cat", {})])
    return version_of(client.get(f"/games/{game}").data)


def refused(client, game, send, needle):
    before = record(client, game)
    r = send()
    assert r.status_code == 422
    found = messages(r.data)
    assert any(needle in m for m in found), found
    assert record(client, game) == before
    return r


@pytest.mark.parametrize(
    "penalty,needle",
    [
        (0, "The opening penalty must be within the opening range: 1 to 10, not 0"),
        (11, "The opening penalty must be within the opening range: 1 to 10, not 11"),
    ],
)
def test_opening_outside_the_range_refused(client, game, penalty, needle):
    v = version_of(client.get(f"/games/{game}").data)
    refused(client, game, lambda: post(client, game, v, "announce", "Ann", penalty=penalty), needle)


def test_opening_by_the_wrong_player_refused(client, game):
    v = version_of(client.get(f"/games/{game}").data)
    refused(client, game, lambda: post(client, game, v, "announce", "Ben", penalty=3),
            "Ann opens round 1, not Ben")


@pytest.mark.parametrize("penalty", [4, 3])
def test_lead_not_above_refused(client, game, penalty):
    v = bidding(client, game)
    r = refused(client, game, lambda: post(client, game, v, "announce", "Dan", penalty=penalty),
                f"A lead must be above the current penalty 4: 5 or more, not {penalty}")
    # The lead form stays open to try again.
    assert re.search(r'<details class="lead[^"]*"[^>]* open>', r.data.decode())


@pytest.mark.parametrize(
    "kind,player,needle",
    [
        ("join", "Ann", "Ann made the last announcement (4) and is not asked until someone leads"),
        ("join", "Ben", "It is Dan&#39;s choice (run, join or lead), not Ben&#39;s"),
        ("run", "Cat", "Cat ran with the mice and is out of round 1"),
        ("join", "Cat", "Cat ran with the mice and is out of round 1"),
    ],
)
def test_out_of_turn_or_out_refused(client, game, kind, player, needle):
    v = bidding(client, game)
    refused(client, game, lambda: post(client, game, v, kind, player), needle)


def test_reveal_before_the_bidding_ended_refused(client, game):
    v = bidding(client, game)
    refused(client, game, lambda: reveal(client, game, v, "Ann", (6, 5, 4)),
            "No reveal before the bidding has ended")


def test_fourth_die_refused(client, game):
    v = bidding(client, game)
    play(client, game, [("join", "Dan", {})])
    r = refused(client, game,
                lambda: post(client, game, v + 1, "reveal", "Ann", dice_0=6, dice_1=5, dice_2=4, dice_3=3),
                "A reveal must have 3 dice, not 4")
    assert "Showdown at penalty 4" in text(r.data)


def test_bad_die_and_bad_number_refused(client, game):
    v = bidding(client, game)
    play(client, game, [("join", "Dan", {})])
    refused(client, game, lambda: reveal(client, game, v + 1, "Ann", (7, 5, 4)), "1 to 6")
    refused(client, game, lambda: post(client, game, v + 1, "reveal", "Ann", dice_0="x", dice_1=1, dice_2=1),
            "Choose a face from 1 to 6 for every die")


def test_chosen_opener_is_named_each_round(client, auth):
    auth.register()
    game = new_game(client, "mice-and-men", players=PLAYERS, starter="2", rounds=2, first_player="chosen",
                    opening_range=[2, 20], run_penalty=1)
    page = client.get(f"/games/{game}").data
    t = text(page)
    assert "Cat opens round 1" in t and "Cat announces a penalty (2 to 20)" in t
    # More than twelve openings: buttons 2..13 and a number input for the rest.
    html = page.decode()
    assert 'value="13">13</button>' in html and 'value="14">14</button>' not in html
    assert re.search(r'type="number" name="penalty" min="2" max="20"', html)
    r = play(client, game, [("announce", "Cat", {"penalty": 20}), ("run", "Dan", {}), ("run", "Ann", {}),
                            ("run", "Ben", {})])
    t = text(r.data)
    assert "Cat is the lone survivor" in t and "(+1 each)" in t
    assert "Who opens round 2?" in t and "Opener not named yet" in t
    html = r.data.decode()
    assert 'name="type" value="first"' in html
    for p in PLAYERS:
        assert f'name="player" value="{p}">{p}</button>' in html
    r = play(client, game, [("first", "Dan", {})])
    assert "Dan opens round 2" in text(r.data)
    assert record(client, game)["entries"][-1] == {"type": "first", "player": "Dan"}


def test_rolloff_for_the_first_opener(client, auth):
    auth.register()
    game = new_game(client, "mice-and-men", players=PLAYERS, starter="rolloff")
    t = text(client.get(f"/games/{game}").data)
    assert "Who opens round 1? Roll for it: everyone rolls one die in seat order" in t
    assert "Or Ann (the first seat) opens without a roll-off" in t
    html = client.get(f"/games/{game}").data.decode()
    assert 'name="type" value="startroll"' in html and "<legend>Ann rolled</legend>" in html
    v = version_of(client.get(f"/games/{game}").data)
    for player, die in (("Ann", 2), ("Ben", 6), ("Cat", 3), ("Dan", 6), ("Ben", 4), ("Dan", 5)):
        r = post(client, game, v, "startroll", player, die=die)
        assert r.status_code == 200, messages(r.data)
        v += 1
    assert "Dan opens round 1" in text(r.data)


def test_game_to_the_end_with_shared_win(client, game):
    # Round 1: Ann opens at 2, everyone joins; Ben and Cat share the lowest score (tie = all).
    play(client, game, [("announce", "Ann", {"penalty": 2}), ("join", "Ben", {}), ("join", "Cat", {}),
                        ("join", "Dan", {})])
    v = version_of(client.get(f"/games/{game}").data)
    for i, (p, dice) in enumerate((("Ann", (6, 6, 1)), ("Ben", (1, 2, 3)), ("Cat", (3, 2, 1)), ("Dan", (5, 5, 5)))):
        r = reveal(client, game, v + i, p, dice)
        assert r.status_code == 200, messages(r.data)
    t = text(r.data)
    assert "Ben and Cat tie on the lowest score and each take the penalty: 2 points." in t
    html = r.data.decode()
    assert '<mark class="taker"><bdi>Ben</bdi> 321</mark>' in html and '<mark class="taker"><bdi>Cat</bdi> 321</mark>' in html
    # Round 2: Ben opens at 1, Cat runs (+3), Dan leads to 3, Ann runs (+3), Ben runs (+3): Dan survives.
    r = play(client, game, [("announce", "Ben", {"penalty": 1}), ("run", "Cat", {}), ("announce", "Dan", {"penalty": 3}),
                            ("run", "Ann", {}), ("run", "Ben", {})])
    t = text(r.data)
    assert "Round 2 of 2" in t
    assert "Round 2: Dan is the lone survivor" in t
    assert "Game over after 2 rounds. Dan wins with 0 penalty points." in t
    assert "Final standings: Dan 0, Ann 3, Ben 5, Cat 5." in t, t
    assert '<strong class="winner"><bdi>Dan</bdi> 0</strong>' in r.data.decode()
    assert 'name="type"' not in r.data.decode()  # no entry forms once the game is over
    from scorekeeper.rules import record as records

    verdict = records.replay(record(client, game))
    assert verdict["finished"] and verdict["winners"] == ["Dan"]
    assert verdict["scores"] == {"Ann": 3, "Ben": 5, "Cat": 5, "Dan": 0}
    refused(client, game, lambda: post(client, game, version_of(r.data), "announce", "Cat", penalty=2),
            "The game is over after 2 rounds (Dan won); no more entries")


def test_shared_win_named(client, auth):
    auth.register()
    game = new_game(client, "mice-and-men", players=PLAYERS, starter="0", rounds=1, run_penalty=0)
    r = play(client, game, [("announce", "Ann", {"penalty": 5}), ("run", "Ben", {}), ("run", "Cat", {}),
                            ("run", "Dan", {})])
    t = text(r.data)
    assert "Round 1 of 1" in t
    assert "Game over after 1 round. Ann, Ben, Cat and Dan share the win with 0 penalty points." in t


def test_quick_reference(client):
    r = client.get("/rules/mice-and-men")
    assert r.status_code == 200
    t = text(r.data)
    for words in ("is 651", "Run with the mice", "Join the men", "Lead the men", "Showdown", "Lone survivor",
                  "run penalty (3)", "End: after the agreed rounds (10)"):
        assert words in t, words


def test_an_opening_range_out_of_bounds_or_reversed_is_said_in_words(client, auth):
    """The setup form names what is wrong with the opening range in the person's words: no
    Python lists, no option code names; and it keeps the form."""
    auth.register()
    base = {"players-0": "Ann", "players-1": "Ben", "players-2": "Cat", "starter": "0", "opt_rounds": "2",
            "opt_run_penalty": "1", "opt_first_player": "rotate", "opt_tie": "all"}
    for low, high, says in (("0", "20", "Number must be between 1 and 999,999,999."),
                            ("8", "3", "“from” is above “to”: give the lower number first.")):
        r = client.post("/games/new/mice-and-men", data={**base, "opt_opening_range-0": low,
                                                         "opt_opening_range-1": high})
        said = [html.unescape(m) for m in re.findall(r'class="msg error"[^>]*>([^<]*)', r.data.decode())]
        assert r.status_code == 400 and says in said, said
        assert not [m for m in said if "['" in m or "opening_range" in m or "<=" in m], said


def test_an_opening_range_out_of_bounds_is_said_with_grouped_numbers_in_german(client, auth):
    """WTForms wrote the bounds as Python does ("999999999"); the app's other messages group
    them as the language does."""
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de"
    auth.register()
    r = client.post("/games/new/mice-and-men", data={
        "players-0": "Ann", "players-1": "Ben", "players-2": "Cat", "starter": "0", "opt_rounds": "2",
        "opt_run_penalty": "1", "opt_first_player": "rotate", "opt_tie": "all",
        "opt_opening_range-0": "0", "opt_opening_range-1": "20"})
    said = [html.unescape(m) for m in re.findall(r'class="msg error"[^>]*>([^<]*)', r.data.decode())]
    assert r.status_code == 400 and "Zahl muss zwischen 1 und 999.999.999 liegen." in said, said


def test_add_a_seat_is_disabled_at_the_most_seats_and_says_so(client, auth):
    """Mice and Men takes 4 to 8 players: at 8 seats "Add a seat" was still a live button that
    did nothing and said nothing (found by a review). It is disabled there, with the reason."""
    auth.register()
    data = {"seats": "4", "starter": "0", "action": "add"}
    for seats in range(4, 9):
        page = client.get("/games/new/mice-and-men").data.decode() if seats == 4 else r.data.decode()
        button = re.search(r'<button[^>]*id="add-seat"[^>]*>', page).group(0)
        assert bool(re.search(r"\sdisabled[\s>]", button)) == (seats == 8), (seats, button)
        assert ("8 seats: the most there can be." in page) == (seats == 8), seats
        r = client.post("/games/new/mice-and-men", data={**data, "seats": str(seats)}, headers=HX)
        assert r.status_code == 200
        assert r.data.decode().count('class="seat"') == min(seats + 1, 8)
