"""Practice games through the test client (docs/practice.md): set up, every roll an ordinary
entry decided on the server, seeded dice reproducible, refusals change nothing, practice
games listed apart and left out of the players' figures, other accounts get 404."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from sqlmodel import Session, select

from scorekeeper.models import Game
from scorekeeper.rules import record as records
from scorekeeper.rules.base import MAX_NUMBER
from scorekeeper.services import history as hist

from ..conftest import HX, new_game, version_of
from ..conftest import messages as escaped_messages


def messages(html) -> list[str]:
    return [unescape(m) for m in escaped_messages(html)]


@pytest.fixture
def seeded(make_app):
    app = make_app(PRACTICE_SEED="view-tests")
    yield app
    app.extensions["scorekeeper.engine"].dispose()


@pytest.fixture
def client(seeded):
    return seeded.test_client()


def start(client, player="Ann", point_limit="3") -> int:
    r = client.post("/practice/new/mitchi", data={"player": player, "point_limit": point_limit})
    assert r.status_code == 303, r.data.decode()[:2000]
    return int(re.search(r"/practice/(\d+)$", r.headers["Location"]).group(1))


def record_of(client, gid) -> dict:
    r = client.get(f"/games/{gid}/record.json")
    assert r.status_code == 200
    return json.loads(r.data)


def stored_log(client, gid) -> list[dict]:
    """The game's active entries as stored: a Mia practice keeps the dice under each cup there."""
    from scorekeeper.models import Entry

    with Session(client.application.extensions["scorekeeper.engine"]) as s:
        rows = s.exec(select(Entry).where(Entry.game_id == gid, Entry.status == "active").order_by(Entry.seq))
        return [json.loads(e.data) for e in rows]


def step_of(html: str) -> str | None:
    m = re.search(r'name="step" value="(\d+)"', html)
    return m.group(1) if m else None


def move(client, gid, turn_choice=lambda i, page: "stop"):
    """One tap on the practice page: Next for a virtual player, else the person's choice."""
    page = client.get(f"/practice/{gid}").data.decode()
    if 'id="practice-over"' in page:
        return None
    data = {"version": str(version_of(page))}
    if "practice-next" in page:
        return client.post(f"/practice/{gid}/next", data=data, headers=HX)
    if step_of(page) is not None:
        data["step"] = step_of(page)
    if 'value="stop"' not in page:
        data["action"] = "roll"
    else:
        choice = turn_choice(int(data.get("step", 0)), page)
        if choice == "keep":
            data["keep"] = re.search(r'name="keep" value="(\d)"', page).group(1)
        else:
            data["action"] = choice
    return client.post(f"/practice/{gid}/roll", data=data, headers=HX)


def keep_then_stop(i, page):
    return "keep" if 'name="keep"' in page and i == 1 else "stop"


def play_out(client, gid, choice=keep_then_stop, limit=600) -> None:
    for _ in range(limit):
        r = move(client, gid, choice)
        if r is None:
            return
        assert r.status_code == 200, r.data.decode()[:2000]
    raise AssertionError("the practice game did not end")


def test_a_practice_game_is_set_up_with_three_virtual_players_and_rolls_for_who_starts(client, auth, seeded):
    auth.register()
    page = client.get("/practice/new/mitchi")
    assert page.status_code == 200 and b'value="5"' in page.data  # the default point limit
    gid = start(client, player="Ben")
    with Session(seeded.extensions["scorekeeper.engine"]) as s:
        game = s.get(Game, gid)
        assert game.practice is True and json.loads(game.players) == ["Ben", "Cat", "Dan", "Eve"]
    record = record_of(client, gid)
    assert record["options"] == {"point_limit": 3}
    assert record["entries"] and {e["type"] for e in record["entries"]} == {"startroll"}
    starter = records.replay(record)["start"]["starter"]
    html = client.get(f"/practice/{gid}").data.decode()
    assert f"{starter} starts." in html and 'id="who-starts"' in html
    assert "· you are Ben</small>" in html
    # The name offered is the account's: the game's sentences then read "ann starts", not "You starts".
    assert re.search(rb'name="player"[^>]*value="ann"', page.data), page.data.decode()
    assert b'value="You"' not in page.data


def test_start_sent_twice_makes_one_practice_game(client, auth, seeded):
    """A double tap on "Start the practice game" (or a resend) opens the first sending's game; a
    page loaded anew makes a new one."""
    auth.register()
    page = client.get("/practice/new/mitchi").data.decode()
    token = re.search(r'name="once" value="([^"]+)"', page).group(1)
    data = {"player": "Ann", "point_limit": "3", "once": token}
    first, second = (client.post("/practice/new/mitchi", data=data) for _ in range(2))
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    with Session(seeded.extensions["scorekeeper.engine"]) as s:
        assert len(s.exec(select(Game)).all()) == 1
    token = re.search(r'name="once" value="([^"]+)"', client.get("/practice/new/mitchi").data.decode()).group(1)
    third = client.post("/practice/new/mitchi", data={**data, "once": token})
    assert third.status_code == 303 and third.headers["Location"] != first.headers["Location"]


def test_the_set_up_page_offers_the_practice_game_under_way(client, auth):
    """Coming back to a game's practice page finds the game left unfinished; once it is over, or
    for another game, nothing is offered."""
    auth.register()
    assert "under way" not in client.get("/practice/new/mitchi").data.decode()
    gid = start(client)
    page = client.get("/practice/new/mitchi").data.decode()
    assert "A practice game of Mitchi is under way" in page and f'href="/practice/{gid}"' in page
    assert "under way" not in client.get("/practice/new/mia").data.decode()
    play_out(client, gid)
    assert "under way" not in client.get("/practice/new/mitchi").data.decode()


def test_refused_setups_say_why_and_store_nothing(client, auth, seeded):
    auth.register()
    for data, text in [({"player": "Ann", "point_limit": "0"}, "Number must be between 1 and 100"),
                       ({"player": "Ann", "point_limit": "x"}, "Not a valid integer"),
                       ({"player": "A" * 41, "point_limit": "5"}, "longer than 40"),
                       ({"player": "  ", "point_limit": "5"}, "name is empty")]:
        r = client.post("/practice/new/mitchi", data=data)
        assert r.status_code == 400 and text.encode() in r.data.replace(b"&#39;", b"'"), data
    # Not a number at all: that alone is said, not also the range on top (found by a review).
    for value, text in (("x", b"Not a valid integer"), ("9" * 20, b"Too large")):
        r = client.post("/practice/new/mitchi", data={"player": "Ann", "point_limit": value})
        assert r.status_code == 400 and text in r.data and b"Number must be between" not in r.data, value
    assert client.get("/practice/new/chess").status_code == 404
    with Session(seeded.extensions["scorekeeper.engine"]) as s:
        assert s.exec(select(Game)).all() == []


def test_a_whole_game_is_ordinary_entries_that_replay_and_undo(client, auth):
    auth.register()
    gid = start(client)
    play_out(client, gid)
    record = record_of(client, gid)
    verdict = records.replay(record)  # the engine accepts the log from scratch
    assert verdict["finished"] and max(verdict["scores"].values()) >= 3
    turns = [e for e in record["entries"] if e["type"] == "turn"]
    mine = [e for e in turns if e["player"] == "Ann"]
    assert mine and any(e["kept"][1:] and e["kept"][1] is not None for e in mine)  # kept a die
    for e in turns:  # every roll of a turn is in its entry; the hand is the last roll
        assert e["rolled"][-1] == e["hand"] and len(e["rolled"]) == e["rolls"] == len(e["kept"])
    page = client.get(f"/practice/{gid}").data.decode()
    assert "Game over." in page and "Practice again" in page
    assert 'href="/practice/strategies"' in page  # how the virtual players play, one tap away
    assert client.get(f"/games/{gid}/summary").status_code == 200
    # The whole log reads, but offers no "correct": a practice game's correction page only leads
    # back to the game (found by a review: every such link did nothing)
    log = client.get(f"/games/{gid}/log").data.decode()
    assert "Round 1" in log and "/entries/1" not in log and ">correct<" not in log
    n = len(record["entries"])
    r = client.post(f"/practice/{gid}/undo", data={"version": str(version_of(page))}, headers=HX)
    assert r.status_code == 200 and "Game over." not in r.data.decode()
    assert len(record_of(client, gid)["entries"]) == n - 1


def test_seeded_dice_are_reproducible(client, auth, make_app):
    auth.register()
    one, two = start(client), start(client)
    play_out(client, one)
    play_out(client, two)
    first, second = record_of(client, one)["entries"], record_of(client, two)["entries"]
    assert first == second  # same seed, same taps: the same game
    other = make_app(PRACTICE_SEED="another seed")
    c = other.test_client()
    c.post("/register", data={"username": "ben", "password": "correct horse", "confirm": "correct horse"})
    three = start(c)
    play_out(c, three)
    assert record_of(c, three)["entries"] != first
    other.extensions["scorekeeper.engine"].dispose()


def to_my_turn(client, gid) -> str:
    for _ in range(20):
        page = client.get(f"/practice/{gid}").data.decode()
        if "practice-move" in page:
            return page
        move(client, gid)
    raise AssertionError("never my turn")


def test_the_server_decides_the_dice_and_refusals_change_nothing(client, auth):
    auth.register()
    gid = start(client)
    page = to_my_turn(client, gid)
    v = str(version_of(page))
    # dice sent by the client are ignored: the server rolls
    r = client.post(f"/practice/{gid}/roll", headers=HX,
                    data={"version": v, "step": "0", "action": "roll", "hand.0": "2", "hand.1": "1",
                          "dice": "2,1"})
    assert r.status_code == 200
    rolled = re.search(r'aria-label="Your dice">.*?<strong>([^<]+)</strong>', r.data.decode(), re.S).group(1)
    # a die not in the hand, a stale step, a bad action: refused, nothing changes
    hand = [int(x) for x in re.findall(r"\d", rolled)[:2]]
    missing = next(d for d in range(1, 7) if d not in hand)
    bad = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "keep": str(missing)})
    assert bad.status_code == 422 and any("Keep a die of the hand" in m for m in messages(bad.data))
    again = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "0", "action": "roll"})
    assert again.status_code == 409 and any("already recorded" in m for m in messages(again.data))
    odd = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "fly"})
    assert odd.status_code == 422 and any("fly is not a move now; you may keep one die or re-roll both or stop" in m for m in messages(odd.data))
    nxt = client.post(f"/practice/{gid}/next", headers=HX, data={"version": v})
    assert nxt.status_code == 422 and any("your move" in m for m in messages(nxt.data))
    for reply in (bad, again, odd, nxt):
        assert f"<strong>{rolled}</strong>" in reply.data.decode()  # the same dice, still one roll in
    # use every roll the limit allows, then only Stop is offered and another roll is refused
    page = client.get(f"/practice/{gid}").data.decode()
    while 'value="both"' in page:
        page = client.post(f"/practice/{gid}/roll", headers=HX,
                           data={"version": v, "step": step_of(page), "action": "both"}).data.decode()
    assert 'name="keep"' not in page and 'value="stop"' in page
    over = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": step_of(page), "action": "both"})
    assert over.status_code == 422


@pytest.mark.parametrize("version", [None, "x", "-1", str(2**31)])
def test_a_practice_move_without_a_version_is_told_so_and_changes_nothing(client, auth, version):
    """As on any game (test_input_guards): a missing or malformed version is a bad form (422)
    that says so, on a roll, the next virtual turn and an undo alike."""
    auth.register()
    gid = start(client)
    to_my_turn(client, gid)
    n = len(record_of(client, gid)["entries"])
    sent = {} if version is None else {"version": version}
    for url, form in ((f"/practice/{gid}/roll", {**sent, "step": "0", "action": "roll"}),
                      (f"/practice/{gid}/next", sent), (f"/practice/{gid}/undo", sent)):
        r = client.post(url, headers=HX, data=form)
        assert r.status_code == 422, url
        said = "did not say which version" if version is None else "version the form sent is not a whole number"
        assert any(said in m for m in messages(r.data)), (url, messages(r.data))
    assert len(record_of(client, gid)["entries"]) == n


def test_a_roll_from_a_page_older_than_an_undo_is_refused(client, auth):
    auth.register()
    gid = start(client)
    page = to_my_turn(client, gid)
    old = str(version_of(page))
    client.post(f"/practice/{gid}/roll", headers=HX, data={"version": old, "step": "0", "action": "roll"})
    stopped = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": old, "step": "1", "action": "stop"})
    assert stopped.status_code == 200
    client.post(f"/practice/{gid}/undo", headers=HX, data={"version": str(version_of(stopped.data))})
    n = len(record_of(client, gid)["entries"])
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": old, "step": "0", "action": "roll"})
    assert r.status_code == 409 and any("changed since this page" in m for m in messages(r.data))
    assert len(record_of(client, gid)["entries"]) == n and 'value="roll"' in r.data.decode()
    # An Undo from the older page says nothing was undone (it said "nothing was recorded").
    r = client.post(f"/practice/{gid}/undo", headers=HX, data={"version": old})
    assert r.status_code == 409 and any("nothing was undone" in m for m in messages(r.data)), messages(r.data)
    assert len(record_of(client, gid)["entries"]) == n


def test_a_next_sent_again_after_its_answer_was_lost_is_told_its_first_send_arrived(client, auth):
    """The last Next before the person's move, sent again (its answer lost): it said "it is your
    move" (a 422), and a stale move "another phone", though nobody else plays (a playtest). Now
    the version is checked first, and the words say the tap before this one arrived."""
    auth.register()
    gid = start(client)
    for _ in range(30):
        page = client.get(f"/practice/{gid}").data.decode()
        if "practice-next" not in page:
            move(client, gid)
            continue
        sent = {"version": str(version_of(page))}
        first = client.post(f"/practice/{gid}/next", data=sent, headers=HX)
        assert first.status_code == 200
        if "practice-move" in first.data.decode():
            break
    else:
        raise AssertionError("no Next before the person's move")
    n = len(record_of(client, gid)["entries"])
    again = client.post(f"/practice/{gid}/next", data=sent, headers=HX)
    said = " ".join(messages(again.data))
    assert again.status_code == 409 and "your tap before this one did arrive" in said, said
    assert "another phone" not in said and "practice-move" in again.data.decode()
    assert len(record_of(client, gid)["entries"]) == n
    undo = client.post(f"/practice/{gid}/undo", data=sent, headers=HX)
    said = " ".join(messages(undo.data))
    assert undo.status_code == 409 and "nothing was undone" in said and "another phone" not in said


def test_a_virtual_turn_is_refused_while_it_is_the_persons_and_vice_versa(client, auth):
    auth.register()
    gid = start(client)
    for _ in range(20):
        page = client.get(f"/practice/{gid}").data.decode()
        if "practice-next" in page:
            break
        move(client, gid)
    who = re.search(r"Next: (\w+) rolls", page).group(1)
    r = client.post(f"/practice/{gid}/roll", headers=HX,
                    data={"version": str(version_of(page)), "step": "0", "action": "roll"})
    assert r.status_code == 422 and any(f"It is {who}'s turn, not yours" in m for m in messages(r.data))
    n = len(record_of(client, gid)["entries"])
    ok = client.post(f"/practice/{gid}/next", headers=HX, data={"version": str(version_of(page))})
    assert ok.status_code == 200 and len(record_of(client, gid)["entries"]) == n + 1
    assert record_of(client, gid)["entries"][-1]["player"] == who
    twice = client.post(f"/practice/{gid}/next", headers=HX, data={"version": str(version_of(page))})
    assert twice.status_code == 409 and len(record_of(client, gid)["entries"]) == n + 1


def test_practice_games_are_listed_apart_and_never_counted_in_stats(client, auth, seeded):
    auth.register()
    real = new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=1)
    client.post(f"/games/{real}/entries", data={"version": "1", "type": "turn", "player": "Ann",
                                                 "hand.0": "6", "hand.1": "3", "rolls": "1"})
    gid = start(client, player="Ann")
    play_out(client, gid)
    with Session(seeded.extensions["scorekeeper.engine"]) as s:
        ann = next(p for p in hist.player_stats(s, 1) if p.player.name == "Ann")
        assert ann.played == 1  # the practice game is left out (stats count stored figures, not game lists)
        assert {p.player.name for p in hist.player_stats(s, 1)} == {"Ann", "Ben", "Cat"}
        listed, total = hist.list_games(s, 1)
        assert [g.id for g in listed] == [real] and total == 1
        assert [g.id for g in hist.list_games(s, 1, practice_of=1)[0]] == [gid]
    games = client.get("/").data.decode()
    main, practice = games.split('id="practice-games"')
    assert f"/practice/{gid}" not in main and f"/games/{gid}/summary" in practice
    # the list's filters hold for them too: "/?game=mia" listed this Mitchi practice game (a review)
    assert f"/games/{gid}/summary" not in client.get("/?game=mia").data.decode()
    assert f"/games/{gid}/summary" in client.get("/?game=mitchi").data.decode()
    players = client.get("/players").data.decode()
    assert "Dan" not in players and "Eve" not in players  # virtual players get no profile
    with Session(seeded.extensions["scorekeeper.engine"]) as s:  # Ann's profile has her practice seat
        from scorekeeper.models import GamePlayer, Player

        link = s.exec(select(GamePlayer).where(GamePlayer.game_id == gid)).one()
        assert s.get(Player, link.player_id).name == "Ann" and link.seat == 0


def test_practice_games_are_listed_five_a_page_and_each_can_be_reached(client, auth):
    """Seven practice games: the list shows the newest five and pages to the other two, apart
    from the games' own pages ("the latest 5 of 6" had no way to the sixth; found by a review)."""
    auth.register()
    made = [start(client) for _ in range(7)]

    def listed(url: str) -> tuple[list[int], str]:
        page = client.get(url).data.decode()
        practice = page.split('id="practice-games"', 1)[1]
        return [int(n) for n in re.findall(r'href="/practice/(\d+)"', practice)], practice

    first, page = listed("/")
    assert first == made[:1:-1] and "Page 1 of 2" in page
    older = unescape(re.search(r'href="([^"]+)">Older<', page).group(1))
    assert older.endswith("#practice-games")
    second, page = listed(older)
    assert second == made[1::-1] and "Page 2 of 2" in page and ">Older<" not in page
    assert listed(unescape(re.search(r'href="([^"]+)">Newer<', page).group(1)))[0] == first
    # a page past the last (a kept link, games removed since) says so and leads back
    _, page = listed("/?practice_page=9")
    assert "No practice games on this page" in page


def test_someone_who_only_practised_is_no_player_of_the_group(app, client, auth):
    auth.register()
    first = start(client, player="Zoe")
    for page in ("/players", "/", "/games/new/mitchi"):
        assert "Zoe" not in client.get(page).data.decode(), page
    real = new_game(client, players=("Zoe", "Ben"), starter="0")
    assert real and "Zoe" in client.get("/players").data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as s:
        from scorekeeper.models import GamePlayer

        assert len(s.exec(select(GamePlayer).where(GamePlayer.game_id == first)).all()) == 0  # none made


def test_a_practice_game_is_removed_and_restored_like_a_game(client, auth):
    """Its page offers Remove; removed, it leaves the list, its page says so and offers Restore
    and no move, and a move sent anyway changes nothing; restored, it plays on."""
    auth.register()
    gid = start(client)
    move(client, gid)
    page = client.get(f"/practice/{gid}").data.decode()
    assert f'href="/games/{gid}/remove"' in page
    confirm = re.sub(r"<[^>]+>", "", unescape(client.get(f"/games/{gid}/remove").data.decode()))
    assert "Mitchi (practice)" in confirm and "It leaves the practice games list" in confirm
    assert client.post(f"/games/{gid}/remove").status_code == 303
    assert f"/practice/{gid}" not in client.get("/").data.decode()
    page = client.get(f"/practice/{gid}").data.decode()
    assert "This game was removed" in page and f'action="/games/{gid}/restore"' in page
    assert f'href="/games/{gid}/remove"' not in page
    assert "practice-next" not in page and 'value="roll"' not in page and 'class="undo"' not in page
    assert 'class="scores' in page  # the score table stays (a review found it gone)
    settings = re.sub(r"<[^>]+>", "", unescape(client.get("/settings").data.decode()))
    assert "Mitchi (practice) · Ann, Ben, Cat, Dan" in settings
    before = stored_log(client, gid)
    with Session(client.application.extensions["scorekeeper.engine"]) as s:
        version = s.get(Game, gid).version  # as a page from before the removal would not know it
    for path in ("next", "roll", "undo"):
        client.post(f"/practice/{gid}/{path}", data={"version": str(version), "action": "roll"}, headers=HX)
    assert stored_log(client, gid) == before
    assert client.post(f"/games/{gid}/restore").status_code == 303
    page = client.get(f"/practice/{gid}").data.decode()
    assert "This game was removed" not in page and ("practice-next" in page or 'name="action"' in page)
    assert f"/practice/{gid}" in client.get("/").data.decode()


def test_a_practice_game_is_played_by_the_account_that_started_it_alone(client, auth, seeded):
    """ben, in ann's group, is not offered ann's practice game under way, does not see it in the
    list, and his taps on it are refused with the reason and change nothing (he could play it
    as ann; found by a review). Nor does he read it: its summary, log, record, chart and live
    link are refused as well (they were open to anyone who typed its address; found by a
    review, as the README calls it his alone)."""
    from .test_groups import ben_joins_ann

    _, ben = ben_joins_ann(seeded, client, auth)
    gid = start(client)
    assert f'href="/practice/{gid}"' in client.get("/practice/new/mitchi").data.decode()
    assert "under way" not in ben.get("/practice/new/mitchi").data.decode()
    assert f"/practice/{gid}" not in ben.get("/").data.decode()
    assert f"/practice/{gid}" in client.get("/").data.decode()
    page = ben.get(f"/practice/{gid}")
    assert page.status_code == 403 and "only ann sees and plays it" in unescape(page.data.decode())
    before = stored_log(client, gid)
    for path in ("next", "roll", "undo"):
        r = ben.post(f"/practice/{gid}/{path}", data={"version": "1", "action": "roll"}, headers=HX)
        assert r.status_code == 403 and "nothing was changed" in unescape(r.data.decode()), path
    assert stored_log(client, gid) == before
    for path in (f"/games/{gid}", f"/games/{gid}/summary", f"/games/{gid}/log", f"/games/{gid}/record.json",
                 f"/games/{gid}/chart.svg", f"/games/{gid}.csv", f"/games/{gid}/table", f"/games/{gid}/poll?v=999"):
        r = ben.get(path)
        assert r.status_code == 403 and "only ann sees and plays it" in unescape(r.data.decode()), path
    assert ben.post(f"/games/{gid}/live").status_code == 403
    # The quick reference the game page links to shows ann her game's options and the way back;
    # ben, the plain reference (its default point limit), with neither (found by a review).
    # (the practice page links to it with the game, as a game's page does)
    assert f"/rules/mitchi?game={gid}" in unescape(client.get(f"/practice/{gid}").data.decode())
    for who, shown in ((client, True), (ben, False)):
        page = unescape(who.get(f"/rules/mitchi?game={gid}").data.decode())
        assert ("Back to the game" in page) is shown and (f'href="/practice/{gid}"' in page) is shown
        assert ("Point limit: 3" in re.sub(r"<[^>]+>", "", page)) is shown, page
    assert "Play on" in client.get(f"/games/{gid}/summary").data.decode()
    assert client.get(f"/games/{gid}/record.json").status_code == 200
    # Nor does he remove or restore it (a review removed it from his phone, then restored it and
    # was told "Game restored." above "nothing was changed").
    assert ben.get(f"/games/{gid}/remove").status_code == 403
    for path in ("remove", "restore"):
        r = ben.post(f"/games/{gid}/{path}")
        assert r.status_code == 403 and "only ann sees and plays it" in unescape(r.data.decode()), path
    assert client.post(f"/games/{gid}/remove").status_code == 303  # ann removes it: ben is not offered it
    assert f"/games/{gid}/restore" in client.get("/settings").data.decode()
    assert f"/games/{gid}/restore" not in ben.get("/settings").data.decode()
    assert ben.post(f"/games/{gid}/restore").status_code == 403
    assert client.post(f"/games/{gid}/restore").status_code == 303
    assert move(client, gid).status_code == 200  # ann plays on


def test_another_account_gets_404(client, auth):
    auth.register()
    gid = start(client)
    real = new_game(client)
    assert client.get(f"/practice/{real}").status_code == 404  # not a practice game
    auth.logout()
    auth.register("bob")
    assert client.get(f"/practice/{gid}").status_code == 404
    for path in ("roll", "next", "undo"):
        assert client.post(f"/practice/{gid}/{path}", data={"version": "0", "action": "roll"}).status_code == 404
    assert client.get("/practice/strategies").status_code == 200


# --- Mia and Mice and Men ----------------------------------------------------------------


def start_other(client, game, option, value="2", player="Ann") -> int:
    r = client.post(f"/practice/new/{game}", data={"player": player, option: value})
    assert r.status_code == 303, r.data.decode()[:2000]
    return int(re.search(r"/practice/(\d+)$", r.headers["Location"]).group(1))


def tap_any(client, gid, rng) -> bool:
    """One tap: Next for a virtual player, else any button the page offers the person.
    Returns False once the game is over."""
    page = client.get(f"/practice/{gid}").data.decode()
    if 'id="practice-over"' in page:
        return False
    if "practice-next" in page:
        r = client.post(f"/practice/{gid}/next", data={"version": str(version_of(page))}, headers=HX)
    else:
        form = rng.choice(re.findall(r'<form class="entry practice-move".*?</form>', page, re.S))
        data = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
        name, value = rng.choice(re.findall(r'<button type="submit" name="(\w+)" value="([^"]*)"', form))
        r = client.post(f"/practice/{gid}/roll", data={**data, name: value}, headers=HX)
    assert r.status_code == 200, (r.status_code, messages(r.data))  # every offered choice is legal
    return True


@pytest.mark.parametrize("game,option", [("mia", "lives"), ("mice-and-men", "rounds")])
def test_mia_and_mice_and_men_practice_games_play_to_the_end_as_ordinary_entries(client, auth, game, option):
    import random

    auth.register()
    logs = []
    for _ in range(2):  # the same seed and the same taps give the same game
        gid = start_other(client, game, option)
        rng = random.Random(5)
        for _ in range(500):
            if not tap_any(client, gid, rng):
                break
        else:
            raise AssertionError("no end")
        record = record_of(client, gid)
        assert records.replay(record)["finished"]
        assert "Game over" in client.get(f"/practice/{gid}").data.decode()
        assert [{k: v for k, v in e.items() if k != "dice" or e["type"] != "announce"} for e in stored_log(client, gid)] \
            == [{k: v for k, v in e.items() if k != "entered_by"} for e in record["entries"]]  # and no cup's dice
        logs.append(stored_log(client, gid))
    assert logs[0] == logs[1]
    assert any(e["player"] == "Ann" and e["type"] not in ("startroll", "reveal") for e in logs[0])
    if game == "mia":
        cup = None
        for e in logs[0]:  # every lifted cup shows the dice of the last roll, the person's too
            if e["type"] == "announce":
                cup = sorted(e["dice"], reverse=True)
            elif e["type"] == "challenge":
                assert sorted(e["cup"], reverse=True) == cup


def mia_to_my_move(client, gid) -> str:
    for _ in range(40):
        page = client.get(f"/practice/{gid}").data.decode()
        if "practice-move" in page:
            return page
        assert client.post(f"/practice/{gid}/next", data={"version": str(version_of(page))}).status_code == 303
    raise AssertionError("never my move")


def mia_to_a_roll(client) -> tuple[int, str]:
    """A new Mia practice game (3 lives) at the person's first move that may roll: with the
    system's randomness (no PRACTICE_SEED) a virtual player before them may announce Mia, after
    which they may only challenge or pass (found by a CI run). ``(game id, page)``."""
    for _ in range(30):
        gid = start_other(client, "mia", "lives", "3")
        page = mia_to_my_move(client, gid)
        if 'name="action" value="roll"' in page:
            return gid, page
    raise AssertionError("never a move that may roll")


def test_mia_the_person_rolls_under_the_cup_then_must_announce(client, auth):
    auth.register()
    gid = start_other(client, "mia", "lives", "3")
    page = mia_to_my_move(client, gid)
    v = str(version_of(page))
    n = len(record_of(client, gid)["entries"])
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "roll", "dice": "2,1"})
    html = r.data.decode()
    assert r.status_code == 200 and 'aria-label="Your dice under the cup"' in html
    cup = [int(d) for d in re.findall(r"#d(\d)", html.split('aria-label="Your dice under the cup"')[1])[:2]]
    assert len(record_of(client, gid)["entries"]) == n  # rolling is not an entry until announced
    refused = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "challenge"})
    assert refused.status_code == 422 and any("You have rolled: announce" in m for m in messages(refused.data))
    claim = record_of(client, gid)["entries"][-1].get("value")
    if claim is not None and claim != 21:  # announcing at or below the claim is the engine's refusal
        low = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "announce", "value": "31"})
        assert low.status_code == 422 and any("31" in m for m in messages(low.data))
    value = re.search(r'name="value" value="(\d+)"', html).group(1)
    ok = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "announce", "value": value})
    assert ok.status_code == 200
    assert stored_log(client, gid)[-1] == {"type": "announce", "player": "Ann", "value": int(value), "dice": cup}
    assert record_of(client, gid)["entries"][-1] == {"type": "announce", "player": "Ann", "value": int(value)}


def test_a_mia_record_downloaded_mid_round_shows_no_dice_under_a_cup(client, auth):
    """Downloaded at the person's move, the record told what a virtual player's cup held (its
    announce's ``dice``), so whether it bluffed (found by a review); undone entries neither."""
    auth.register()
    gid = start_other(client, "mia", "lives", "3")
    page = mia_to_my_move(client, gid)
    hidden = [e for e in stored_log(client, gid) if e["type"] == "announce" and e["player"] != "Ann"]
    assert hidden and all(e.get("dice") for e in hidden)
    body = client.get(f"/games/{gid}/record.json").data.decode()
    assert '"dice"' not in body
    # the person announces, then takes it back: the undone announce is in the history, without its dice
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": str(version_of(page)), "action": "roll"})
    if 'name="value"' in r.data.decode():
        value = re.search(r'name="value" value="(\d+)"', r.data.decode()).group(1)
        r = client.post(f"/practice/{gid}/roll", headers=HX,
                        data={"version": str(version_of(r.data)), "action": "announce", "value": value})
        assert r.status_code == 200
        client.post(f"/practice/{gid}/undo", headers=HX, data={"version": str(version_of(r.data))})
        record = record_of(client, gid)
        assert record["history"] and '"dice"' not in json.dumps(record)


def test_mice_and_men_the_person_sees_their_dice_and_the_log_shows_the_same(client, auth):
    auth.register()
    gid = start_other(client, "mice-and-men", "rounds", "2")
    page = client.get(f"/practice/{gid}").data.decode()
    assert "You open round 1" in page
    assert "unless a roll-off" not in page  # a practice game offers none (a playtest)
    mine = [int(d) for d in re.findall(r"#d(\d)", page.split('aria-label="Your dice"')[1])[:3]]
    v = str(version_of(page))
    high = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "announce", "penalty": "11"})
    assert high.status_code == 422 and any("opening range: 1 to 10" in m for m in messages(high.data))
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "announce", "penalty": "2"})
    assert r.status_code == 200
    # undo and the dice stay the same (drawn from the game's secret, not re-rolled)
    client.post(f"/practice/{gid}/undo", headers=HX, data={"version": str(version_of(r.data))})
    again = client.get(f"/practice/{gid}").data.decode()
    assert [int(d) for d in re.findall(r"#d(\d)", again.split('aria-label="Your dice"')[1])[:3]] == mine
    client.post(f"/practice/{gid}/roll", headers=HX,
                data={"version": str(version_of(again)), "action": "announce", "penalty": "10"})
    for _ in range(40):  # play the round out: the person always joins
        page = client.get(f"/practice/{gid}").data.decode()
        if records.replay(record_of(client, gid))["rounds"]:
            break
        data = {"version": str(version_of(page))}
        if "practice-next" in page:
            client.post(f"/practice/{gid}/next", data=data, headers=HX)
        else:
            client.post(f"/practice/{gid}/roll", data={**data, "action": "join"}, headers=HX)
    entries = record_of(client, gid)["entries"]
    shown = [e["dice"] for e in entries if e["player"] == "Ann" and e["type"] in ("reveal", "run")]
    survivor = records.replay(record_of(client, gid))["rounds"][0].get("survivor")
    assert shown == [mine] or (survivor == "Ann" and shown == [])
    # round 2 (Ben opens): the person runs with the mice, showing the dice the page showed
    for _ in range(10):
        page = client.get(f"/practice/{gid}").data.decode()
        if "practice-move" in page:
            break
        client.post(f"/practice/{gid}/next", data={"version": str(version_of(page))}, headers=HX)
    dice = [int(d) for d in re.findall(r"#d(\d)", page.split('aria-label="Your dice"')[1])[:3]]
    r = client.post(f"/practice/{gid}/roll", data={"version": str(version_of(page)), "action": "run"}, headers=HX)
    assert r.status_code == 200
    assert record_of(client, gid)["entries"][-1] == {"type": "run", "player": "Ann", "dice": dice}


def test_an_undone_virtual_turn_comes_back_as_it_was(make_app, auth):
    """Undo must not be a way to re-roll the virtual players: with the system's randomness (no
    seed), the next tap after an undo puts the same turn back (Redo), it does not roll anew."""
    from scorekeeper.models import Entry

    app = make_app()  # no PRACTICE_SEED: every roll from the system's randomness
    client = app.test_client()
    from ..conftest import Auth

    Auth(client).register()
    gid = start(client)
    for _ in range(40):  # to the first virtual turn
        r = move(client, gid)
        assert r is not None and r.status_code == 200
        entries = record_of(client, gid)["entries"]
        if entries[-1]["type"] == "turn" and entries[-1]["player"] != "Ann":
            break
    before = record_of(client, gid)["entries"]
    page = client.get(f"/practice/{gid}").data.decode()
    r = client.post(f"/practice/{gid}/undo", data={"version": str(version_of(page))}, headers=HX)
    assert r.status_code == 200
    page = client.get(f"/practice/{gid}").data.decode()
    assert "practice-next" in page
    r = client.post(f"/practice/{gid}/next", data={"version": str(version_of(page))}, headers=HX)
    assert r.status_code == 200
    after = record_of(client, gid)["entries"]
    assert after[: len(before)] == before  # the same turn, not a new roll
    with Session(app.extensions["scorekeeper.engine"]) as s:
        statuses = [e.status for e in s.exec(select(Entry).where(Entry.game_id == gid))]
    assert "redone" in statuses
    # The whole log says it was put back, not "with Redo": a practice game has no Redo button, its
    # "Next" put it back (a playtest).
    log = client.get(f"/games/{gid}/log").data.decode()
    changes = log.split("Undone and corrected</h2>", 1)[-1]
    assert "(undone by ann, " in changes and "; put back, " in changes and "Redo" not in changes, changes
    app.extensions["scorekeeper.engine"].dispose()


def test_no_undo_is_offered_while_the_persons_roll_is_in_progress(client, auth):
    """Undo takes back the last entry: while the person's Mitchi turn or Mia cup is rolled but not
    entered, that entry is the one before it (often a virtual player's), so no Undo is offered."""
    auth.register()
    gid = start(client)
    assert "/undo" not in client.get(f"/practice/{gid}").data.decode()  # only the roll for who starts
    for _ in range(60):
        page = client.get(f"/practice/{gid}").data.decode()
        if step_of(page) == "0" and "/undo" in page:
            break
        move(client, gid)
    else:
        raise AssertionError("never the person's turn with an entry to undo")
    rolled = move(client, gid).data.decode()  # the turn's first roll
    assert step_of(rolled) == "1" and 'aria-label="Your dice"' in rolled
    assert "/undo" not in rolled and "Undo:" not in rolled
    before = record_of(client, gid)
    sent = client.post(f"/practice/{gid}/undo", data={"version": str(version_of(rolled))}, headers=HX)
    assert sent.status_code == 422 and "Finish your roll first" in sent.data.decode()  # not offered, not done
    assert record_of(client, gid) == before and 'aria-label="Your dice"' in sent.data.decode()
    assert move(client, gid).status_code == 200  # stopped: the turn is an entry, Undo is back
    page = client.get(f"/practice/{gid}").data.decode()
    # set apart and outlined as a game's Undo, not a filled button right under the next move's
    assert re.search(r'<div class="undo-redo">\s*<form[^>]*/undo"[^>]*>.*?<button type="submit" class="undo">',
                     page, re.S), page

    gid, page = mia_to_a_roll(client)
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": str(version_of(page)), "action": "roll"})
    assert 'aria-label="Your dice under the cup"' in r.data.decode() and "/undo" not in r.data.decode()
    sent = client.post(f"/practice/{gid}/undo", data={"version": str(version_of(r.data))}, headers=HX)
    assert sent.status_code == 422 and "Your dice under the cup" in sent.data.decode()


@pytest.mark.parametrize("game", ["mitchi", "mia"])
def test_undo_then_roll_brings_back_the_same_dice(make_app, auth, game):
    """Undo is no re-roll of the person's own turn either: each roll comes from the game's secret
    and its place in the log (services.practice.random_source), so after an Undo of the person's
    turn (Mitchi) or announcement (Mia), rolling again shows the dice rolled before. Before, with
    the system's randomness (no PRACTICE_SEED), a player could undo until the dice were good."""
    app = make_app()  # no PRACTICE_SEED
    client = app.test_client()
    from ..conftest import Auth

    Auth(client).register()
    if game == "mitchi":
        gid = start(client)
        page = to_my_turn(client, gid)
    else:
        gid, page = mia_to_a_roll(client)
    first = my_roll(client, gid, page, game)
    for _ in range(3):
        page = client.get(f"/practice/{gid}").data.decode()
        r = client.post(f"/practice/{gid}/undo", data={"version": str(version_of(page))}, headers=HX)
        assert r.status_code == 200, messages(r.data)
        page = client.get(f"/practice/{gid}").data.decode()
        assert my_roll(client, gid, page, game) == first
    app.extensions["scorekeeper.engine"].dispose()


def my_roll(client, gid, page, game) -> list[int]:
    """Roll once and enter it at once (Mitchi: Roll, Stop; Mia: Roll, announce the truth or the
    lowest value offered): the dice rolled."""
    v = str(version_of(page))
    if game == "mitchi":
        r = client.post(f"/practice/{gid}/roll", data={"version": v, "step": "0", "action": "roll"}, headers=HX)
        assert r.status_code == 200, messages(r.data)
        page = client.get(f"/practice/{gid}").data.decode()
        r = client.post(f"/practice/{gid}/roll", headers=HX,
                        data={"version": str(version_of(page)), "step": step_of(page), "action": "stop"})
        assert r.status_code == 200, messages(r.data)
        return record_of(client, gid)["entries"][-1]["hand"]
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "roll"})
    assert r.status_code == 200, messages(r.data)
    value = re.search(r'name="value" value="(\d+)"', r.data.decode()).group(1)
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "announce", "value": value})
    assert r.status_code == 200, messages(r.data)
    return stored_log(client, gid)[-1]["dice"]


def test_a_stale_tabs_other_move_is_not_called_a_double_tap(client, auth):
    """Two tabs on one practice turn: tab A keeps a die, tab B (still at the roll before) taps
    Stop. B's Stop was not made, so B hears the game changed, not "already recorded"; the same
    Keep sent again is the double tap. (Found by a review: both were told "already recorded".)"""
    auth.register()
    gid = start(client)
    page = to_my_turn(client, gid)
    v = str(version_of(page))
    page = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "0", "action": "roll"}).data.decode()
    face = re.search(r'name="keep" value="(\d)"', page).group(1)
    kept = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "keep": face})
    assert kept.status_code == 200
    stop = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "stop"})
    assert stop.status_code == 409
    assert any("changed since this page was shown" in m for m in messages(stop.data)), messages(stop.data)
    again = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "keep": face})
    assert again.status_code == 409 and any("already recorded" in m for m in messages(again.data))
    both = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "both"})
    assert both.status_code == 409 and not any("already recorded" in m for m in messages(both.data))


def test_a_practice_game_is_not_scored_by_hand(client, auth):
    """A practice game's dice are rolled on the server: the hand-scoring routes of /games/ refuse
    to change it (an entry of hand-picked dice, undo, redo, a correction), and its game page
    leads to its practice page. (Found by the eighth review: a crafted turn of 6-6 was stored.)"""
    auth.register()
    gid = start(client)
    before = record_of(client, gid)
    turn = {"version": "0", "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "6", "rolls": "1"}
    for url, data in ((f"/games/{gid}/entries", turn), (f"/games/{gid}/undo", {"version": "0"}),
                      (f"/games/{gid}/redo", {"version": "0"}), (f"/games/{gid}/entries/1", turn)):
        r = client.post(url, data=data, headers=HX)
        assert r.status_code == 409, url
        assert any("This is a practice game" in m for m in messages(r.data)), (url, messages(r.data))
    assert record_of(client, gid) == before
    r = client.get(f"/games/{gid}")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/practice/{gid}")
    assert client.get(f"/games/{gid}/entries/1").headers["Location"].endswith(f"/practice/{gid}")
    # Nor does the live poll of a scorer's page answer with the scorer's panel (a review: an old
    # version's poll, typed, gave dice pads and "correct" links).
    r = client.get(f"/games/{gid}/poll?v=999")  # a version the game is not at
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/practice/{gid}")
    r = client.get(f"/games/{gid}/poll?v=999", headers=HX)
    assert r.status_code == 200 and r.headers["HX-Redirect"].endswith(f"/practice/{gid}")
    assert b'name="hand.0"' not in r.data and b"correct" not in r.data


@pytest.mark.parametrize("led_to,offered", [(MAX_NUMBER - 2, [str(MAX_NUMBER - 1), str(MAX_NUMBER)]),
                                            (MAX_NUMBER, [])])
def test_a_practice_lead_is_offered_only_up_to_the_largest_penalty(client, auth, seeded, led_to, offered):
    """The person's lead buttons go 1 to 4 above the penalty but never past MAX_NUMBER
    (docs/game-record.md §Ranges): two below it they offered two past it, which the rules refuse;
    at it no lead is offered."""
    from scorekeeper.services import games as service
    from scorekeeper.services import practice

    auth.register()
    with Session(seeded.extensions["scorekeeper.engine"]) as s:
        game = practice.create(s, 1, "mice-and-men", "Ann", {"rounds": 1, "opening_range": [led_to - 1, led_to - 1]}, 7)
        s.commit()
        ann, ben, cat, dan = json.loads(game.players) if isinstance(game.players, str) else game.players
        for entry in ({"type": "announce", "player": ann, "penalty": led_to - 1},
                      {"type": "announce", "player": ben, "penalty": led_to},
                      {"type": "join", "player": cat}, {"type": "join", "player": dan}):
            service.add_entry(s, game, entry, game.version)
        gid = game.id
    page = client.get(f"/practice/{gid}").data.decode()
    assert "Run with the mice" in page or "practice-move" in page, page[-3000:]
    leads = re.findall(r'<button type="submit" name="penalty" value="(\d+)"', page)
    assert leads == offered, leads


@pytest.mark.parametrize("game,field,sent,said", [
    ("mitchi", "keep", "abc", "keep must be a whole number (digits 0-9), not 'abc'"),
    ("mitchi", "step", "1.5", "step must be a whole number (digits 0-9), not '1.5'"),
    ("mitchi", "keep", "9" * 5000, "keep is far too large"),
    ("mia", "value", "abc", "value must be a whole number (digits 0-9), not 'abc'"),
    ("mia", "value", "٣١", "value must be a whole number (digits 0-9)"),
    ("mice-and-men", "penalty", "x", "penalty must be a whole number (digits 0-9), not 'x'"),
])
def test_a_practice_move_with_a_number_that_is_not_one_says_so_and_changes_nothing(client, auth, game, field,
                                                                                   sent, said):
    """A practice move's numbers (the die kept, the step, Mia's value, the penalty) are read as
    an entry's are: text that is no whole number is told so (a playtest sent value=abc and was
    told the value was missing; 5,000 digits were read as none; "٣١" was read as 31)."""
    auth.register()
    gid = start(client) if game == "mitchi" else start_other(client, game, "lives" if game == "mia" else "rounds")
    page = client.get(f"/practice/{gid}").data.decode()
    before = record_of(client, gid)["entries"]
    form = {"version": str(version_of(page)), "step": "0", "action": "keep" if field == "keep" else "announce",
            field: sent}
    r = client.post(f"/practice/{gid}/roll", headers=HX, data=form)
    assert r.status_code == 422
    assert any(said.lower() in m.lower() for m in messages(r.data)), messages(r.data)
    assert record_of(client, gid)["entries"] == before


def test_the_last_moves_rolls_come_one_by_one_only_in_the_answer_that_made_it(client, auth):
    """A virtual player's turn just played shows its rolls one after another (``step`` classes,
    app.css); the same move shown again, under the person's own first roll (the game's version
    unchanged) or on a reload, is shown at once (a playtest: "rolls 4-3" alone again, the rest
    still to come, after the person tapped Roll)."""
    auth.register()
    gid = start(client, player="Ann", point_limit="5")
    last_move = lambda html: html[html.index('id="last-move"'):html.index("</ol>", html.index('id="last-move"'))]  # noqa: E731
    seen = {"next": False, "roll": False}
    for _ in range(200):
        page = client.get(f"/practice/{gid}").data.decode()
        if 'id="practice-over"' in page or all(seen.values()):
            break
        if 'id="last-move"' in page:
            assert 'class="step' not in last_move(page)  # a reload
        r = move(client, gid)
        html = r.data.decode()
        if "practice-next" in page and 'id="last-move"' in html:
            assert 'class="step step-1"' in last_move(html)
            seen["next"] = True
        elif 'value="stop"' not in page and 'id="last-move"' in html:  # the person's first roll of a turn
            assert 'class="step' not in last_move(html)
            seen["roll"] = True
    assert all(seen.values()), seen
