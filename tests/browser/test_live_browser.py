"""The table on its phones: a scorer and a viewer, two scorers on one turn, an invite, and the
links that stop working (Chromium at Pixel 7 size, each person in a browser context of their own)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import register, set_up, swapped
from .test_mitchi_browser import turn


@pytest.fixture
def phone(browser: Browser, browser_context_args):
    """Another phone at the table: a browser context of its own (its own cookies)."""
    contexts = []

    def make() -> Page:
        ctx = browser.new_context(**browser_context_args)
        contexts.append(ctx)
        p = ctx.new_page()
        p.set_default_timeout(10_000)
        return p

    yield make
    for ctx in contexts:
        ctx.close()


def test_a_viewer_sees_the_scorers_entry_within_two_seconds(page: Page, phone, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    game_url = page.url
    page.get_by_role("link", name="Show to the table").click()
    page.get_by_role("button", name="Turn on the live link").click()
    expect(page.locator(".qr svg")).to_be_visible()
    link = page.locator("a.live-link").inner_text()

    viewer = phone()  # no account
    viewer.goto(link)
    expect(viewer.locator(".live-now")).to_have_text("Ann to roll")
    expect(viewer.get_by_role("button")).to_have_count(0)
    expect(viewer.locator("form")).to_have_count(0)

    page.goto(game_url)
    turn(page, 3, 1, 2)
    done = time.monotonic()
    expect(viewer.locator(".live-now")).to_have_text("Ben to roll", timeout=2_000)
    assert time.monotonic() - done < 2.0
    expect(viewer.locator("#live")).to_contain_text("3-1")
    # Undo shows too.
    page.get_by_role("button", name="Undo: Ann: 3-1 in 2").click()
    expect(viewer.locator(".live-now")).to_have_text("Ann to roll", timeout=2_000)
    # The table screen: the same view, for a tablet in landscape.
    screen = phone()
    screen.set_viewport_size({"width": 1280, "height": 720})
    screen.goto(link + "?layout=screen")
    expect(screen.locator("body.table-screen .live-now")).to_have_text("Ann to roll")

    # Turned off: the open view says so by itself, and the link no longer opens.
    page.goto(game_url)
    page.get_by_role("link", name="Show to the table").click()
    page.get_by_role("button", name="Turn the link off").click()
    expect(viewer.locator("#live")).to_contain_text("turned off", timeout=3_000)
    # nor does its heading name the players any more (a review: a screen left open kept them)
    expect(viewer.locator("h1")).to_have_text("Live link off")
    assert viewer.goto(link).status == 404


def test_an_invite_joins_a_member_and_two_scorers_on_one_turn_store_one_entry(
        page: Page, phone, live_server: str):
    base = live_server
    register(page, base, "ann")
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    game_url = page.url
    page.goto(base + "/groups")
    page.get_by_role("button", name="Make an invite link").click()
    invite = page.locator("a.invite-link").first.inner_text()

    ben = phone()
    ben.goto(invite)
    ben.get_by_role("link", name="Make an account").click()
    ben.get_by_label("Name").fill("ben")
    ben.get_by_label("Password", exact=True).fill("correct horse")
    ben.get_by_label("Password again").fill("correct horse")
    ben.get_by_role("button", name="Register").click()
    ben.get_by_role("button", name="Join ann as ben").click()
    expect(ben.locator("#messages")).to_contain_text("You joined ann")
    expect(ben.locator(f'a[href$="{game_url.rsplit("/", 1)[1]}"]').first).to_be_visible()  # the group's history

    # Ben's phone lies on the table: it follows Ann's entry by itself.
    ben.goto(game_url)
    page.goto(game_url)
    expect(ben.locator("#panel")).to_contain_text("Ann's turn")
    turn(page, 6, 5, 2)
    expect(ben.locator("#panel")).to_contain_text("Ben's turn", timeout=2_000)

    # Both tap Ben's turn at once: one entry is stored; the other phone says what was entered, by whom.
    for p in (page, ben):
        p.wait_for_timeout(700)  # past the tap guard after the last swap
        p.locator("fieldset", has_text="First die").locator("label").nth(3).click()
        p.locator("fieldset", has_text="Second die").locator("label").nth(1).click()
    page.get_by_role("button", name="in 1", exact=True).click(no_wait_after=True)
    ben.get_by_role("button", name="in 2", exact=True).click(no_wait_after=True)
    for p in (page, ben):
        expect(p.locator("#panel")).to_contain_text("Cat's turn", timeout=3_000)
    told = [p.locator("#panel .msg").all_inner_texts() for p in (page, ben)]
    assert any("Last entry, by " in t for msgs in told for t in msgs), told
    page.goto(game_url + "/log")
    log = page.locator("main").inner_text()
    assert len(re.findall(r"Ben: 4-2 in", log)) == 1, log
    expect(ben.locator("#panel")).to_contain_text("4-2")

    # A revoked invite adds nobody.
    page.goto(base + "/groups")
    page.get_by_role("button", name="Revoke this invite").click()
    cid = phone()
    register(cid, base, "cid")
    cid.goto(invite)
    expect(cid.locator("main")).to_contain_text("unknown or was revoked")
    expect(cid.get_by_role("button", name=re.compile("Join"))).to_have_count(0)
    assert cid.goto(game_url).status == 404


def ben_on_a_second_phone(page: Page, other: Page, base: str, account: str) -> tuple[str, Page]:
    """A Mitchi game of Ann, Ben and Cat on ``page`` (a new ``account``), Ann's turn entered, and
    ``other`` logged into the same account on it, at Ben's turn: ``(game_url, other)``."""
    register(page, base, account)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    game_url = page.url
    turn(page, 6, 3, 2)
    log_in(other, base, account)
    other.goto(game_url)
    expect(other.locator("#panel")).to_contain_text("Ben's turn")
    return game_url, other


def log_in(other: Page, base: str, account: str) -> None:
    other.goto(base + "/login")
    other.get_by_label("Name").fill(account)
    other.get_by_label("Password").fill("correct horse")
    other.get_by_role("button", name="Log in").click()
    other.wait_for_url(base + "/")


def pick_ben_4_2(other: Page) -> None:
    """Tap 4 and 2 as Ben's dice on ``other``, without sending them."""
    other.wait_for_timeout(700)  # past the tap guard after the page's first panel
    other.locator("fieldset", has_text="First die").locator("label").nth(3).click()
    other.locator("fieldset", has_text="Second die").locator("label").nth(1).click()


def test_dice_picked_on_one_phone_stay_when_another_corrects_an_older_entry(page: Page, phone, live_server: str):
    """Ben's phone has two dice picked, not sent, when Ann's phone corrects entry 2: the panel that
    follows still asks for Ben's turn, and the dice stay picked. When Ann's phone then enters Ben's
    turn itself, the next panel asks for Cat's: Ben's picks are gone, nothing is carried over."""
    game_url, other = ben_on_a_second_phone(page, phone(), live_server, "dora")
    pick_ben_4_2(other)
    checked = "#panel input[type=radio]:checked"
    expect(other.locator(checked)).to_have_count(2)

    page.get_by_role("link", name="Correct entry 2").click()
    page.locator("fieldset", has_text="First die").locator("label").nth(4).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(1).click()
    page.get_by_role("button", name="in 2", exact=True).click()
    page.wait_for_url(game_url)
    expect(other.locator("#panel")).to_contain_text("entry 2 corrected to “Ann: 5-2 in 2”", timeout=3_000)
    expect(other.locator("#panel")).to_contain_text("Ben's turn")
    expect(other.locator(checked)).to_have_count(2)
    assert [other.locator(checked).nth(i).get_attribute("value") for i in (0, 1)] == ["4", "2"]

    turn(page, 1, 1, 1)  # Ben's turn, entered on Ann's phone
    expect(other.locator("#panel")).to_contain_text("Cat's turn", timeout=3_000)
    expect(other.locator(checked)).to_have_count(0)


def test_a_polled_panel_does_not_replace_one_whose_entry_is_on_its_way(page: Page, phone, live_server: str):
    """Ben's phone sends an entry that the network holds; meanwhile Ann's phone corrects entry 2 and
    Ben's poll brings the new panel. It is not swapped in under the entry on its way: the entry's
    own answer (here: the game changed, nothing recorded) decides what Ben's phone shows next."""
    game_url, other = ben_on_a_second_phone(page, phone(), live_server, "emil")
    held = []
    other.route("**/entries", lambda route: held.append(route))
    # 5-5 first, seen by a few unchanged polls, then 4-2: only what is on screen as a panel comes counts
    other.wait_for_timeout(700)
    other.locator("fieldset", has_text="First die").locator("label").nth(4).click()
    other.locator("fieldset", has_text="Second die").locator("label").nth(4).click()
    other.wait_for_timeout(2_500)
    pick_ben_4_2(other)
    other.get_by_role("button", name="in 1", exact=True).click(no_wait_after=True)
    other.wait_for_function("() => document.querySelector('#panel .htmx-request:not([data-poll])') !== null")

    page.get_by_role("link", name="Correct entry 2").click()
    page.locator("fieldset", has_text="First die").locator("label").nth(4).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(1).click()
    page.get_by_role("button", name="in 2", exact=True).click()
    page.wait_for_url(game_url)
    with other.expect_response(lambda r: "/poll" in r.url and r.status == 200):
        pass  # the poll has brought the corrected game's panel
    other.wait_for_timeout(300)
    expect(other.locator("#panel")).not_to_contain_text("The game moved on")
    assert len(held) == 1
    other.evaluate("document.body.setAttribute('data-arm-ms', '4000')")  # the guard's time widened
    held[0].continue_()
    expect(other.locator("#panel")).to_contain_text("The game changed since this page was shown", timeout=3_000)
    expect(other.locator("#panel")).to_contain_text("entry 2 corrected to “Ann: 5-2 in 2”")
    # A tap at once on the refusal's pad is ignored, and not with "Tap again", which would enter
    # the next player's turn: the game moved on (a playtest).
    die = other.locator("fieldset", has_text="First die").locator("label").nth(2)
    box = die.bounding_box()
    other.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(other.locator("#tap-note")).to_contain_text("The game moved on meanwhile (see its last entry)")
    expect(die.locator("input")).not_to_be_checked()
    # Nothing picked comes back with the refusal (5-5 did, from a poll before the tap: one tap on
    # "in 1" then recorded dice the scorer had changed).
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(0)


def dan_picked_at_a_showdown(page: Page, phone, base: str, account: str, first: int, second: int) -> Page:
    """A Mice and Men game at its showdown of four (Ann opens at 2, everyone joins), scored on
    ``page``; Ben's phone (returned) opens it, finds no one picked beforehand to reveal, and picks
    Dan and the faces ``first`` and ``second``, not sent."""
    from .test_mice_and_men_browser import choose, open_at

    register(page, base, account)
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0, rounds=2)
    open_at(page, 2)
    for _ in ("Ben", "Cat", "Dan"):
        choose(page, "Join the men")
    other = phone()
    log_in(other, base, account)
    other.goto(page.url)
    expect(other.locator("#panel")).to_contain_text("Showdown at penalty 2: Ann, Ben, Cat, Dan to reveal")
    # A fresh page picks no one: a scorer's dice go under the name they tap.
    expect(other.locator("#panel input[name=player]:checked")).to_have_count(0)
    other.wait_for_timeout(700)
    other.locator("fieldset", has_text="Who reveals").locator("label", has_text="Dan").click()
    other.locator("fieldset", has_text="First die").locator("label").nth(first - 1).click()
    other.locator("fieldset", has_text="Second die").locator("label").nth(second - 1).click()
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(3)
    return other


def test_a_kept_pick_comes_back_whole_or_not_at_all(page: Page, phone, live_server: str):
    """Mice and Men's showdown: Ben's phone picks Dan as who reveals, and two dice. Ann's phone
    corrects Dan's answer to a run: Dan no longer reveals. The dice are not kept for whoever is
    now first to reveal (one tap on the third die would have recorded Ann's reveal)."""
    other = dan_picked_at_a_showdown(page, phone, live_server, "fred", 6, 5)
    game_url = page.url
    page.locator("ol.log li").last.get_by_role("link").click()  # correct Dan's answer
    page.get_by_role("button", name="Run with the mice", exact=True).click()
    page.wait_for_url(game_url)
    expect(other.locator("#panel")).to_contain_text("Showdown at penalty 2: Ann, Ben, Cat to reveal", timeout=3_000)
    # Nothing picked: not Dan's dice for Ann, and no one picked beforehand to reveal.
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(0)


def test_a_reveal_picked_on_one_phone_survives_the_others_reveals(page: Page, phone, live_server: str):
    """Mice and Men's showdown of four on two phones. Ben's phone picks Dan and two dice; before its
    third tap, Ann's phone records Cat's, Ann's and Ben's reveals. Each poll's panel keeps Dan's
    picks (a review found them reset and Cat picked instead: "Cat shows 2-1-1", Dan's dice), also
    when Dan is the last one and no longer a choice. The third tap records Dan's reveal."""
    from .test_mice_and_men_browser import reveal

    other = dan_picked_at_a_showdown(page, phone, live_server, "gina", 2, 1)
    checked = other.locator("#panel input[type=radio]:checked")
    reveal(page, "Cat", 6, 5, 4)
    showdown = other.locator("#panel .now")
    expect(showdown).to_contain_text("Showdown at penalty 2: Ann, Ben, Dan to reveal", timeout=3_000)
    expect(checked).to_have_count(3)
    assert other.locator("#panel input[name=player]:checked").get_attribute("value") == "Dan"
    reveal(page, "Ann", 6, 6, 4)
    reveal(page, "Ben", 6, 6, 5)
    expect(showdown).to_contain_text("Showdown at penalty 2: Dan to reveal", timeout=3_000)
    expect(other.locator("fieldset", has_text="Who reveals")).to_have_count(0)
    expect(checked).to_have_count(2)  # the two dice, for Dan named by the form
    other.wait_for_timeout(700)
    other.locator("fieldset", has_text="Third die").get_by_role("button").nth(0).click()
    news = other.locator("#panel .news")
    expect(news).to_contain_text("Round 1 showdown at penalty 2:", timeout=3_000)
    expect(news).to_contain_text("Dan 211")
    expect(news).to_contain_text("Cat 654")


def test_another_phones_reveal_of_the_player_picked_drops_the_picks(page: Page, phone, live_server: str):
    """Ben's phone picks Dan and two dice; Ann's phone records Dan's reveal first. Ben's phone keeps
    nothing picked: neither Dan (no longer to reveal) nor his dice for another player."""
    from .test_mice_and_men_browser import reveal

    other = dan_picked_at_a_showdown(page, phone, live_server, "hugo", 2, 1)
    reveal(page, "Dan", 2, 1, 1)
    showdown = other.locator("#panel .now")
    expect(showdown).to_contain_text("Showdown at penalty 2: Ann, Ben, Cat to reveal", timeout=3_000)
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(0)


def test_a_reveal_refused_as_another_phone_came_first_keeps_its_picks(page: Page, phone, live_server: str):
    """Ben's phone picks Dan and two dice; Ann's phone records Ann's reveal before Ben's phone has
    heard of it (its polls answer "nothing changed" here). Ben's third tap is refused, nothing
    recorded, and Dan's player and dice stay picked (they were cleared: all three to pick again;
    found by a review): one more tap records Dan's reveal."""
    from .test_mice_and_men_browser import reveal

    other = dan_picked_at_a_showdown(page, phone, live_server, "ivan", 4, 3)
    other.route("**/poll*", lambda route: route.fulfill(status=204))
    reveal(page, "Ann", 6, 5, 4)
    expect(page.locator("#panel .now")).to_contain_text("Ben, Cat, Dan to reveal")
    third = other.locator("fieldset", has_text="Third die").get_by_role("button")
    third.nth(1).click()
    expect(other.locator("#panel")).to_contain_text("nothing was recorded", timeout=3_000)
    expect(other.locator("#panel .now")).to_contain_text("Ben, Cat, Dan to reveal")
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(3)
    assert other.locator("#panel input[name=player]:checked").get_attribute("value") == "Dan"
    other.wait_for_timeout(700)  # past the guard as the panel came
    third.nth(1).click()
    expect(other.locator("#panel .now")).to_contain_text("Ben, Cat to reveal", timeout=3_000)
    expect(other.locator("#panel table")).to_contain_text("432")
    expect(other.locator("#panel input[type=radio]:checked")).to_have_count(0)


def test_a_tap_again_after_no_connection_does_not_land_on_the_next_players_entry(page: Page, phone, live_server: str):
    """Ben's phone, offline, taps "Run with the mice" for Ben: no answer, "tap again". Meanwhile Ann's
    phone enters Ben's run. Back online, Ben's phone's poll brings Cat's choice, the Run button in
    the same place: a quick tap again recorded Cat running (found by a review). That panel takes
    no tap for longer (2 s; here 5 s, and the usual guard 0.1 s) and says why."""
    base = live_server
    register(page, base, "fred")
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    game_url = page.url
    from .test_mice_and_men_browser import choose, open_at

    open_at(page, 3)
    other = phone()
    log_in(other, base, "fred")
    other.goto(game_url)
    expect(other.locator("#panel")).to_contain_text("Ben's choice at penalty 3")
    other.evaluate("document.body.setAttribute('data-arm-ms', '100');"
                   "document.body.setAttribute('data-arm-moved-ms', '5000')")
    other.wait_for_timeout(700)  # past the guard after the page's first panel
    other.context.set_offline(True)
    other.get_by_role("button", name="Run with the mice", exact=True).click()
    expect(other.locator("#panel .send-error")).to_contain_text("No answer: no connection")

    choose(page, "Run with the mice")  # Ben's run, entered on Ann's phone
    expect(page.locator("#panel")).to_contain_text("Cat's choice at penalty 3")
    other.context.set_offline(False)
    expect(other.locator("#panel")).to_contain_text("Cat's choice at penalty 3", timeout=5_000)
    other.wait_for_timeout(300)  # past the usual guard (0.1 s here), inside the longer one
    other.get_by_role("button", name="Run with the mice", exact=True).click(force=True)
    expect(other.locator("#tap-note")).to_contain_text("The game moved on meanwhile (see its last entry): this tap was ignored")
    # The note lets taps through to what is under it (it covered the lower third of the buttons
    # and stayed after the guard: a tap there did nothing and said nothing).
    box = other.locator("#tap-note").bounding_box()
    hit = other.evaluate("([x, y]) => document.elementFromPoint(x, y).id",
                         [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert hit != "tap-note"
    other.wait_for_timeout(1_000)
    page.reload()
    expect(page.locator("#panel")).to_contain_text("Cat's choice at penalty 3")  # nothing recorded for Cat


def test_another_phones_entry_does_not_scroll_a_following_phone(page: Page, phone, live_server: str):
    """A phone that only follows keeps its place when another phone's entry arrives: it jumped to
    the panel's top, moving what its person was reading or about to tap (found by a review). The
    phone that enters still has its outcome brought into view (test_outcome_in_view)."""
    game_url, other = ben_on_a_second_phone(page, phone(), live_server, "erin")
    other.evaluate("window.scrollTo(0, 400)")
    other.wait_for_timeout(300)
    before = other.evaluate("window.scrollY")
    assert before > 300
    turn(page, 4, 1, 2)  # Ben's turn, entered on Ann's phone
    expect(other.locator("#panel")).to_contain_text("Cat's turn", timeout=3_000)
    other.wait_for_timeout(300)
    # Not sent up to the panel's top (72 px). The browser may move down with what the new panel
    # adds above the place read ("The game moved on. Last entry: …"): the place stays in view.
    assert other.evaluate("window.scrollY") >= before - 5


def test_a_key_users_focus_stays_on_its_control_as_another_phones_entry_arrives(page: Page, phone,
                                                                                  live_server: str):
    """Focus on a die face, on Undo or on nothing of the new panel goes, as another phone's entry
    replaces the panel, to the same control, else to the new panel's first one: it fell to the
    page's body and Tab began again at the header (a playtest with the keyboard only)."""
    game_url, other = ben_on_a_second_phone(page, phone(), live_server, "kim")
    focused = ("() => { const a = document.activeElement; return a ? [a.tagName, a.name || '', a.value || '',"
               " a.className || '', !!a.closest('#panel')] : null; }")
    face = other.locator("fieldset", has_text="Second die").locator("input[type=radio]").nth(4)
    face.focus()
    assert other.evaluate(focused)[:3] == ["INPUT", "hand.1", "5"]
    turn(page, 4, 1, 2)  # Ben's turn, entered on Ann's phone
    expect(other.locator("#panel")).to_contain_text("Cat's turn", timeout=3_000)
    other.wait_for_timeout(300)
    assert other.evaluate(focused) == ["INPUT", "hand.1", "5", other.evaluate(
        "() => document.querySelector('#panel input[name=\"hand.1\"][value=\"5\"]').className"), True]
    # Cat ties Ben on 4-1: in the tie-break the second die's faces send (buttons), and the focus
    # goes to the same face there, not to the first die's 1 (a second playtest).
    turn(page, 4, 1, 2)
    expect(other.locator("#panel")).to_contain_text("Tie-break", timeout=3_000)
    other.wait_for_timeout(300)
    assert other.evaluate(focused)[:3] + [other.evaluate(focused)[4]] == ["BUTTON", "hand.1", "5", True]
    other.locator("button.undo").focus()
    version = int(other.locator("#panel").get_attribute("data-version"))
    undo = page.get_by_role("button", name=re.compile("^Undo"))
    with swapped(page):
        undo.click()  # the tie-break undone on Ann's phone: Cat's turn again
    other.wait_for_function("v => +document.getElementById('panel').dataset.version > v", arg=version,
                            timeout=3_000)
    other.wait_for_timeout(300)
    assert other.evaluate(focused)[0] == "BUTTON" and "undo" in other.evaluate(focused)[3]
    assert other.evaluate(focused)[4]  # in the new panel


def test_the_owner_hands_the_group_on_and_leaves_it(page: Page, phone, live_server: str):
    """The group's owner, leaving the table for good, makes a member the owner from the group's
    page (two taps: open, confirm) and then leaves; on a 320 px phone the members' list with its
    two choices fits. The new owner's phone sees the owner's page."""
    from .test_layout import fits, spills

    base = live_server
    register(page, base, "hostess")
    page.goto(base + "/groups")
    page.get_by_role("button", name="Make an invite link").click()
    invite = page.locator("a.invite-link").first.inner_text()
    ben = phone()
    register(ben, base, "wolfeschlegelsteinhausenbergerdorffvo")
    ben.goto(invite)
    ben.get_by_role("button", name=re.compile("^Join hostess")).click()
    expect(ben.locator("#messages")).to_contain_text("You joined hostess")

    page.set_viewport_size({"width": 320, "height": 640})
    page.goto(base + "/groups")
    page.get_by_text("Make wolfeschlegelsteinhausenbergerdorffvo the owner…").click()
    assert fits(page), spills(page)
    page.get_by_role("button", name=re.compile("^Yes, make wolfeschlegel.* the owner of hostess")).click()
    expect(page.locator("#messages")).to_contain_text("is now the owner of hostess; you are a member")
    page.get_by_text("Leave hostess…").click()
    page.get_by_role("button", name="Yes, leave hostess").click()
    expect(page.locator("#messages")).to_contain_text("You left hostess.")
    ben.goto(base + "/groups")
    expect(ben.locator("main")).to_contain_text("You are its owner.")
    expect(ben.get_by_role("button", name="Make an invite link")).to_be_visible()


def test_a_rematch_tapped_on_one_phone_leads_the_other_and_the_table_screen_there(page: Page, phone, live_server: str):
    """The game ends; the table screen shows it by the live link and a second phone lies on its
    page. Rematch on the first phone: the second says who started it and leads there (its
    Rematch button gone), and the screen goes on to the new game by the same link."""
    base = live_server
    register(page, base, "ann")
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0, point_limit=1)
    game_url = page.url
    page.get_by_role("link", name="Show to the table").click()
    page.get_by_role("button", name="Turn on the live link").click()
    link = page.locator("a.live-link").inner_text()
    page.goto(game_url)
    for a, b in ((6, 6), (5, 5), (3, 1)):
        turn(page, a, b, 1)
    expect(page.locator("#panel")).to_contain_text("Game over")
    screen = phone()
    screen.goto(link)
    expect(screen.locator("#live")).to_contain_text("Game over")
    other = phone()
    other.set_viewport_size({"width": 320, "height": 640})  # the smallest phone
    log_in(other, base, "ann")
    other.goto(game_url)
    expect(other.get_by_role("button", name=re.compile("^Rematch"))).to_be_visible()

    page.get_by_role("button", name=re.compile("^Rematch")).click()
    page.wait_for_url(re.compile(r"/games/\d+$"))
    assert page.url != game_url
    expect(other.locator("#panel .rematch-made")).to_contain_text("You started a rematch.", timeout=3_000)
    expect(other.get_by_role("button", name=re.compile("^Rematch"))).to_have_count(0)
    assert other.evaluate("document.documentElement.scrollWidth <= innerWidth")
    expect(screen.locator("#live")).to_contain_text("Who starts?", timeout=3_000)
    other.get_by_role("link", name="Open the rematch").click()
    other.wait_for_url(page.url)
    expect(other.locator("#panel")).to_contain_text("Who starts?")


def test_a_following_phone_keeps_its_pad_and_undo_in_view_as_a_round_ends(page: Page, phone, live_server: str):
    """Six long names on two 390x844 phones: as another phone's entry ended a round, the news and
    "The game moved on …" came in above the pad of the phone following, and its "in N" buttons
    and Undo went below the screen (found by a review). A phone whose pad was on the screen keeps
    the pad and Undo on it, the news too, and as the news goes again; one scrolled away from the
    pad keeps its place."""
    from .test_outcome_in_view import in_view

    names = ["Alexandra", "Benedikt", "Charlotte", "Dominik", "Elisabeth", "Friedrich"]
    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server, "fran")
    set_up(page, live_server, "mitchi", names, starter=0)
    game_url = page.url
    other = phone()
    other.set_viewport_size({"width": 390, "height": 844})
    log_in(other, live_server, "fran")
    other.goto(game_url)
    for a, b in ((3, 1), (5, 4), (6, 6), (6, 5), (5, 5)):
        with swapped(page):
            turn(page, a, b, 1)
    expect(other.locator("#panel")).to_contain_text("Friedrich's turn")
    other.wait_for_timeout(300)
    assert in_view(other, "#panel form.entry"), "the following phone's pad is off its screen before the round ends"
    turn(page, 4, 4, 1)  # Friedrich's turn, the round's last, entered on the first phone
    expect(other.locator("#panel .news")).to_contain_text("Round 1: Alexandra takes the pot")
    for selector in ("#panel .news", "#panel .now", "#panel form.entry button[name=rolls]", ".undo-redo button"):
        assert in_view(other, selector), f"{selector} is off the following phone's screen as the round ends"
    # Scrolled on to the turn's line at the screen's top, the pad under it: the next round's first
    # entry takes the news away above them, and the pad slid off the top of the screen (a second
    # review); it stays on it.
    other.evaluate("window.scrollBy(0, document.querySelector('#panel .now').getBoundingClientRect().top - 12)")
    other.wait_for_timeout(300)
    assert in_view(other, "#panel form.entry")
    turn(page, 3, 2, 1)  # Alexandra starts round 2
    expect(other.locator("#panel .now")).to_contain_text("Benedikt's turn")
    for selector in ("#panel .now", "#panel form.entry", ".undo-redo button"):
        assert in_view(other, selector), f"{selector} is off the following phone's screen after the round's first turn"

    # Scrolled up to the page's top on a smaller phone, the pad partly below the screen: the place
    # is kept, not moved down to the pad.
    other.set_viewport_size({"width": 390, "height": 640})
    other.evaluate("window.scrollTo(0, 0)")
    other.wait_for_timeout(300)
    assert not in_view(other, "#panel form.entry")
    turn(page, 2, 1, 1)  # Benedikt's Mitchi
    expect(other.locator("#panel")).to_contain_text("Charlotte's turn")
    other.wait_for_timeout(300)
    assert other.evaluate("window.scrollY") == 0


def test_a_following_phone_scrolled_down_to_mia_s_pad_brings_the_round_s_news_into_view(
        page: Page, phone, live_server: str):
    """Mia on two 390x844 phones. The second is scrolled down to its tall pad (after its own
    entries); the first phone's challenge ends the round, and the news ("… loses 1 life") came in
    above the second's screen: 140 px off its top with room under the pad (a review), and with
    five at the table and "The game moved on …" between the news and the pad, 37 px off its top
    with none (a second review). The news comes down into view, its top at the screen's, then
    the pad's first line."""
    from .test_mia_browser import announce, cup
    from .test_outcome_in_view import in_view

    names = ["Bartholomew Fitzgerald-Montgomery", "Benedikt", "Charlotte", "Dominik", "Eve"]
    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server, "fran")
    set_up(page, live_server, "mia", names, starter=0, lives=3)
    other = phone()
    other.set_viewport_size({"width": 390, "height": 844})
    log_in(other, live_server, "fran")
    other.goto(page.url)
    announce(other, "31")  # Bartholomew's 31: the page scrolls down to Benedikt's pad
    other.wait_for_function("() => window.scrollY > 100")
    page.reload()
    cup(page, 6, 5)  # Benedikt challenges: the cup shows 65, above 31: Benedikt loses
    expect(other.locator("#panel .news")).to_contain_text("Benedikt challenged")
    for selector in ("#panel .news", "#panel .now"):
        assert in_view(other, selector), f"{selector} is off the following phone's screen as the round ends"


def test_a_phone_reading_the_scores_keeps_them_in_place_as_another_phone_enters(
        page: Page, phone, live_server: str):
    """Mia on two 390x844 phones; the second scrolled down to read the scores table, its pad
    above the screen. Each entry on the first phone changes the pad above the table, and the
    table moved on the second (a review: up 200 px, the page to its bottom; here 46 px an entry).
    It stays where it was read, through a pass, an announcement and the round's end."""
    from .test_mia_browser import announce, cup

    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server, "fran")
    set_up(page, live_server, "mia", ["Anna", "Bert", "Carl", "Dora"], starter=0, lives=3)
    other = phone()
    other.set_viewport_size({"width": 390, "height": 844})
    log_in(other, live_server, "fran")
    other.goto(page.url)
    announce(page, "43")
    expect(other.locator("#panel .now")).to_contain_text("Anna says")
    table = "document.querySelector('#panel table.scores').getBoundingClientRect().top"
    other.evaluate(f"window.scrollTo({{top: scrollY + {table} - 240, behavior: 'instant'}})")
    assert round(other.evaluate(table)) == 240
    with swapped(page):
        page.get_by_role("button", name="Bert passes: holds 43").click()
    expect(other.locator("#panel .now")).to_contain_text("Bert passes on 43")
    other.wait_for_timeout(300)
    assert abs(other.evaluate(table) - 240) <= 1, "the scores table moved as a pass came in"
    announce(page, "54")
    expect(other.locator("#panel .now")).to_contain_text("Carl says")
    other.wait_for_timeout(300)
    assert abs(other.evaluate(table) - 240) <= 1, "the scores table moved as an announcement came in"
    cup(page, 5, 4)  # Dora challenges Carl's 54: the cup shows 54, Dora loses
    expect(other.locator("#panel .news")).to_contain_text("Dora loses 1 life")
    other.wait_for_timeout(300)
    assert abs(other.evaluate(table) - 240) <= 1, "the scores table moved as the round ended"


def test_the_live_region_reads_news_only_when_it_is_new_and_says_what_changed_first(page: Page, phone,
                                                                                   live_server: str):
    """The page's live region (#outcome) read a round's news after anything that brought a panel:
    after an undo (on this phone or another) the news back on screen is an older round's, and it
    was read as if the round had just ended; and on a following phone "The game moved on. Last
    entry, by …" came after the news, in the middle of it (a playtest). Now it says what changed
    first, then the news, and no news that is not new."""
    register(page, live_server, "gus")
    set_up(page, live_server, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    other = phone()
    log_in(other, live_server, "gus")
    other.goto(page.url)
    live, followed = page.locator("#outcome"), other.locator("#outcome")
    for a, b in ((6, 6), (5, 5)):
        with swapped(page):
            turn(page, a, b, 1)
    with swapped(page):
        turn(page, 3, 1, 1)  # Cat's 3-1 is the worst hand: Cat takes the pot, round 1 ends
    expect(followed).to_contain_text("takes the pot")
    said = followed.inner_text()
    assert said.startswith("The game moved on. Last entry, by "), said
    assert said.index("Last entry, by ") < said.index("Round 1: Cat takes the pot"), said
    assert page.locator("#outcome").inner_text().startswith("Recorded: Cat: 3-1 in 1."), live.inner_text()
    with swapped(page):
        turn(page, 6, 4, 1)  # round 2's first turn: the news goes
    expect(followed).not_to_contain_text("takes the pot")
    with swapped(page):
        page.get_by_role("button", name="Undo", exact=False).click()
    # Round 1's news is on both screens again, and neither reads it out.
    expect(other.locator("#panel .news")).to_contain_text("Round 1: Cat takes the pot")
    expect(followed).to_contain_text("was undone")
    assert "takes the pot" not in followed.inner_text(), followed.inner_text()
    expect(live).to_contain_text("Undone: ")
    assert "takes the pot" not in live.inner_text(), live.inner_text()
    # Redo puts the turn back: no news either (the round's first turn takes it away); an undo
    # again, then the round's end undone and put back with Redo: its news is new again.
    with swapped(page):
        page.get_by_role("button", name="Redo", exact=False).click()
    with swapped(page):
        page.get_by_role("button", name="Undo", exact=False).click()
    with swapped(page):
        page.get_by_role("button", name="Undo", exact=False).click()
    expect(page.locator("#panel .news")).to_have_count(0)
    with swapped(page):
        page.get_by_role("button", name="Redo", exact=False).click()
    expect(live).to_contain_text("Put back: Cat: 3-1 in 1.")
    expect(live).to_contain_text("Round 1: Cat takes the pot")
    expect(followed).to_contain_text("Round 1: Cat takes the pot")
