"""A double tap records one entry, even where the next player's button appears under the finger;
a quick tap elsewhere on the new panel counts."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped


def middle(locator) -> tuple[float, float]:
    """Where a finger taps ``locator``: its middle, in the screen's coordinates."""
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def under(page: Page, spot: tuple[float, float]) -> str:
    """The text of the panel's button or label at ``spot`` (by where it is drawn, whatever covers it)."""
    return page.evaluate("""([x, y]) => [...document.querySelectorAll('#panel button, #panel label')].find((el) => {
        const r = el.getBoundingClientRect();
        return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    })?.textContent.trim()""", list(spot))


def men_to_choose(page: Page, base: str) -> str:
    """A Mice and Men game of Ann, Ben, Cat and Dan, Ann's penalty of 3 announced: each in turn
    joins the men or not, by the same button in the same place. Its URL."""
    register(page, base)
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    with swapped(page):
        page.locator("fieldset", has_text="announces a penalty").get_by_role("button", name="3", exact=True).click()
    return page.url


def test_second_tap_on_the_next_players_button_is_ignored(page: Page, live_server: str):
    game_url = men_to_choose(page, live_server)
    join = page.get_by_role("button", name="Join the men", exact=True)
    # The guard lasts 600 ms after a swap; a loaded test machine can take longer than that
    # between two steps, so the test widens it (the same code path, only the time differs).
    page.evaluate("document.body.setAttribute('data-arm-ms', '4000')")
    spot = middle(join)
    with swapped(page):
        page.mouse.click(*spot)  # Ben joins
    expect(page.locator("#panel")).to_have_class("arming")
    # The second tap of a double tap lands where Cat's "Join the men" now is.
    assert under(page, spot) == "Join the men"
    page.mouse.click(*spot)
    # Not dropped silently: the scorer is told the tap was ignored.
    expect(page.locator("#tap-note")).to_be_visible()
    expect(page.locator("#tap-note")).to_contain_text("ignored")
    # The page kept for offline as a panel settles now (a poll's) keeps no note of this moment:
    # shown offline later, it told of a tap long gone (found by a review); nor the shield over
    # the spot, which would take a tap there on the copy.
    expect(page.locator("#panel .tap-shield")).to_have_count(1)
    kept = page.evaluate("""async () => {
        await caches.delete('pages-v1');
        document.dispatchEvent(new Event('htmx:afterSettle'));
        for (let i = 0; i < 50; i++) {
            const hit = await (await caches.open('pages-v1')).match(location.href);
            if (hit) {
                const kept = new DOMParser().parseFromString(await hit.text(), 'text/html');
                const note = kept.getElementById('tap-note');
                return [note.hidden, note.textContent.trim(), kept.querySelectorAll('.tap-shield').length];
            }
            await new Promise((done) => setTimeout(done, 100));
        }
        return null;
    }""")
    assert kept == [True, "", 0]
    page.wait_for_timeout(800)
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "announce", "join"]
    expect(page.locator("#panel")).to_contain_text("Cat's choice")
    # A moment later, a deliberate tap works.
    expect(page.locator("#panel")).not_to_have_class("arming", timeout=6000)
    with swapped(page):
        join.click()
    record = page.request.get(game_url + "/record.json").json()
    assert [e["player"] for e in record["entries"][-2:]] == ["Ben", "Cat"]


def test_double_click_on_a_turn_records_it_once(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(4).click()
    with swapped(page):
        page.get_by_role("button", name="in 1", exact=True).dblclick()
    page.wait_for_timeout(800)
    record = page.request.get(page.url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"]


def test_double_tap_on_undo_undoes_one_entry_and_offers_redo(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    for first, second in ((6, 5), (4, 4)):
        page.locator("fieldset", has_text="First die").locator("label").nth(first - 1).click()
        page.locator("fieldset", has_text="Second die").locator("label").nth(second - 1).click()
        with swapped(page):
            page.get_by_role("button", name="in 1", exact=True).click()
        page.wait_for_timeout(700)
    undo = page.locator(".undo-redo button").first
    expect(undo).to_have_accessible_name("Undo: Ben: 4-4 in 1")
    page.evaluate("document.body.setAttribute('data-arm-ms', '4000')")
    with swapped(page):
        undo.dblclick()
    page.wait_for_timeout(800)
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"]
    assert [h["status"] for h in record["history"]] == ["undone"]
    # Redo now stands where Undo was; Undo of the entry before is below it.
    redo = page.locator(".undo-redo button").first
    expect(redo).to_have_accessible_name("Redo: Ben: 4-4 in 1")
    expect(page.locator(".undo-redo button").nth(1)).to_have_accessible_name("Undo: Ann: 6-5 in 1")
    # ...and they do not look alike: an arrow each way, Redo outlined in the accent colour
    assert redo.inner_text().startswith("↷") and page.locator(".undo-redo button").nth(1).inner_text().startswith("↶")
    looks = "b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).borderTopColor]"
    assert redo.evaluate(looks) != page.locator(".undo-redo button").nth(1).evaluate(looks)
    expect(page.locator("#panel")).not_to_have_class("arming", timeout=6000)
    with swapped(page):
        redo.click()
    record = page.request.get(game_url + "/record.json").json()
    assert [e.get("hand") for e in record["entries"]] == [None, [6, 5], [4, 4]]
    expect(page.locator(".undo-redo button").first).to_have_accessible_name("Undo: Ben: 4-4 in 1")


def test_dice_tapped_while_the_entry_is_sent_stay_as_sent_and_the_tap_is_said_ignored(page: Page, live_server: str):
    """On a slow connection a die tapped after "in 1" changed the dice on screen, and the entry
    kept the dice sent, saying nothing (found by a review): the form takes no tap while its
    entry is on its way, and the note says the tap was ignored."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    # answered before the note of the ignored tap (2.5 s) is gone
    page.route("**/entries", lambda route: (page.wait_for_timeout(1500), route.continue_()))
    first = page.locator("fieldset", has_text="First die").locator("label")
    first.nth(2).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(0).click()
    page.get_by_role("button", name="in 1", exact=True).click(no_wait_after=True)
    expect(page.locator("form.entry.htmx-request")).to_have_count(1)
    first.nth(5).click(force=True)  # a 6, tapped while 3-1 is on its way
    expect(page.locator("#tap-note")).to_contain_text("ignored")
    expect(page.locator("input[name='hand.0'][value='3']")).to_be_checked()
    expect(page.locator("#panel")).to_contain_text("Ben's turn", timeout=10000)
    # Answered: the note no longer says the tap is on its way (read as a lost entry; found by a review)
    expect(page.locator("#tap-note")).to_be_visible()
    expect(page.locator("#tap-note")).to_have_text("The first tap counted; the second was ignored.")
    page.unroute("**/entries")
    record = page.request.get(game_url + "/record.json").json()
    assert record["entries"][-1]["hand"] == [3, 1] and len(record["entries"]) == 2


def test_a_second_tap_as_the_new_panel_comes_in_is_ignored_and_said_so(page: Page, live_server: str):
    """htmx puts the new panel in the page, then runs its load event only as the swap settles
    (20 ms on): a second tap in that moment landed on the new panel's Undo, unguarded, and took
    back the turn just recorded, saying nothing (found by a review). The panel is guarded from
    the moment it is in the page, and the note says the first tap counted."""
    game_url = men_to_choose(page, live_server)
    # The settling moment widened (the same code path, only the time differs): 20 ms is too
    # short to tap into from a test.
    page.evaluate("htmx.config.defaultSettleDelay = 3000")
    spot = middle(page.get_by_role("button", name="Join the men", exact=True))
    with swapped(page):
        page.mouse.click(*spot)  # Ben joins
    # At once, before the swap settles: the double tap's second, on Cat's "Join the men" now under
    # the finger.
    assert under(page, spot) == "Join the men"
    page.mouse.click(*spot)
    expect(page.locator("#tap-note")).to_be_visible()
    expect(page.locator("#tap-note")).to_have_text("The first tap counted; the second was ignored.")
    page.wait_for_timeout(800)
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "announce", "join"] and not record["history"]


def test_a_tap_pressed_as_the_panel_goes_and_lifted_on_the_new_one_is_said_ignored(page: Page, live_server: str):
    """A double tap's second pressed on the old panel as its answer comes, and lifted on the new one
    where the sending tap was, makes no click on the new panel (pressed and lifted on two different
    panels): nothing is entered, and the note still says the tap was ignored (a playtest saw none)."""
    game_url = men_to_choose(page, live_server)
    page.evaluate("document.body.setAttribute('data-arm-ms', '4000')")  # the guard's time widened
    held = []
    page.route("**/entries", lambda route: held.append(route))
    spot = middle(page.get_by_role("button", name="Join the men", exact=True))
    page.mouse.click(*spot)  # Ben joins: the answer held back
    page.wait_for_function("() => document.querySelector('#panel .htmx-request:not([data-poll])') !== null")
    page.mouse.move(*spot)
    page.mouse.down()  # the second tap, pressed on the old panel
    with swapped(page):
        held[0].continue_()
    page.unroute("**/entries")
    assert under(page, spot) == "Join the men"  # Cat's, now under the finger
    page.mouse.up()
    expect(page.locator("#tap-note")).to_have_text("The first tap counted; the second was ignored.")
    page.wait_for_timeout(500)
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "announce", "join"]


def test_a_quick_tap_elsewhere_on_the_new_panel_counts_at_once(page: Page, live_server: str):
    """The guard against a double tap ignored the whole new panel for 600 ms: the next player's
    first die, tapped 300 to 600 ms after the sending tap, was dropped, and so was Mia's value
    tapped at once after picking the cup owner (a playtest: 88 of 274 such taps). Only a tap where
    the sending tap was is ignored now; a tap anywhere else counts at once, on the same button too
    when it is big enough to be tapped away from that spot (a second playtest: a button reaching
    near the spot was ignored as a whole, tapped at its middle 86 px away)."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    game_url = page.url
    page.evaluate("document.body.setAttribute('data-arm-ms', '4000')")  # the guard's time widened
    note, panel = page.locator("#tap-note"), page.locator("#panel")
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(4).click()
    spot = middle(page.get_by_role("button", name="in 1", exact=True))
    with swapped(page):
        page.mouse.click(*spot)
    expect(panel).to_contain_text("Ben's turn")
    # Ben's dice, at once (a finger's tap: no waiting for the panel to take it, as a click would)
    page.mouse.click(*middle(page.locator("fieldset", has_text="First die").locator("label").nth(2)))
    page.mouse.click(*middle(page.locator("fieldset", has_text="Second die").locator("label").nth(1)))
    expect(panel.locator("input[name='hand.0'][value='3']")).to_be_checked()
    expect(panel.locator("input[name='hand.1'][value='2']")).to_be_checked()
    expect(panel).to_have_class("arming")  # still within the guard's time
    expect(note).to_be_hidden()
    # Where the sending tap was: Ben's "in 1", ignored, and said so.
    assert under(page, spot) == "in 1"
    page.mouse.click(*spot)
    expect(note).to_have_text("The first tap counted; the second was ignored.")
    page.wait_for_timeout(300)
    assert len(page.request.get(game_url + "/record.json").json()["entries"]) == 2
    # The same button 40 px to the side of that spot: a tap of its own.
    aside = (spot[0] + 40, spot[1])
    assert under(page, aside) == "in 1"
    expect(panel).to_have_class("arming")
    with swapped(page):
        page.mouse.click(*aside)
    expect(panel).to_contain_text("Cat's turn")
    assert [e.get("hand") for e in page.request.get(game_url + "/record.json").json()["entries"]] == [
        None, [6, 5], [3, 2]]

    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    page.evaluate("document.body.setAttribute('data-arm-ms', '4000')")
    with swapped(page):
        page.get_by_role("link", name="Quick entry", exact=True).click()
    with swapped(page):
        page.locator(".mia-owner").get_by_role("link", name="Ben", exact=True).click()  # the cup owner
    expect(panel).to_contain_text("Cup owner Ben · challenged by Cat")
    expect(panel).to_have_class("arming")
    page.mouse.click(*middle(page.locator(".mia-pick label").filter(has=page.locator('input[value="54"]'))))
    expect(panel.locator(".mia-pick input[value='54']")).to_be_checked()
    expect(note).to_be_hidden()


def test_undo_tapped_while_an_entry_is_sent_is_ignored_and_said_so(page: Page, live_server: str):
    """While an entry is on its way, no form of the panel takes a tap: Undo under the pad was
    sent for the game as it stood before that entry (the server then answered "the game
    changed"); the note says the tap was ignored."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    page.route("**/entries", lambda route: (page.wait_for_timeout(1500), route.continue_()))
    page.locator("fieldset", has_text="First die").locator("label").nth(2).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(0).click()
    page.get_by_role("button", name="in 1", exact=True).click(no_wait_after=True)
    expect(page.locator("form.entry.htmx-request")).to_have_count(1)
    page.locator(".undo-redo button.undo").click(force=True)  # "Undo: Ann starts", as the entry goes
    expect(page.locator("#tap-note")).to_contain_text("ignored")
    expect(page.locator("#panel")).to_contain_text("Ben's turn", timeout=10000)
    page.unroute("**/entries")
    page.wait_for_timeout(300)
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"] and not record["history"]
    expect(page.locator("#panel .msg")).to_have_count(0)  # no "the game changed"
