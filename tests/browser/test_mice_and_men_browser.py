"""Mice and Men on a phone-sized Chromium: a lead that reopens the bidding, a lone survivor, the end."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped


def tap(page: Page, button) -> None:
    """Click a button that sends an entry and wait for the answer."""
    with swapped(page):
        button.click()


def choose(page: Page, choice: str) -> None:
    """Run with the mice or join the men: one tap."""
    tap(page, page.get_by_role("button", name=choice, exact=True))


def open_at(page: Page, penalty: int) -> None:
    """The opener's announcement: one tap on the penalty."""
    tap(page, page.locator("fieldset", has_text="announces a penalty").get_by_role("button", name=str(penalty), exact=True))


def reveal(page: Page, player: str, a: int, b: int, c: int) -> None:
    """A reveal at the showdown: the player, then three die faces (the third sends it)."""
    who = page.locator("fieldset", has_text="Who reveals")
    if who.count():
        who.locator("label", has_text=player).click()
    page.locator("fieldset", has_text="First die").locator("label").nth(a - 1).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(b - 1).click()
    tap(page, page.locator("fieldset", has_text="Third die").get_by_role("button").nth(c - 1))


def test_mice_and_men_two_rounds_to_the_final_standings(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0, rounds=2)
    panel = page.locator("#panel")
    glance = panel.locator(".glance")
    expect(glance).to_contain_text("Round1 of 2")
    expect(panel).to_contain_text("Ann opens round 1")

    # Round 1: Ann opens at 3; Ben leads the men to 5 with the stepper; Cat joins; Dan runs.
    open_at(page, 3)
    expect(panel).to_contain_text("Ben's choice at penalty 3")
    lead_form = panel.locator("details.lead")
    expect(panel.get_by_label("Another penalty")).to_be_hidden()
    # Offline, every choice looks out of reach alike: "Lead the men" too, not only Run and Join.
    lead = panel.locator("summary", has_text="Lead the men")
    run = panel.get_by_role("button", name="Run with the mice", exact=True)
    page.context.set_offline(True)
    expect(page.locator("#offline")).to_be_visible()
    faded = "e => getComputedStyle(e).opacity"
    assert lead.evaluate(faded) == run.locator("xpath=ancestor::form[1]").evaluate(faded) == "0.5"
    page.context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden()
    assert lead.evaluate(faded) == "1"
    panel.locator("summary", has_text="Lead the men").click()
    # What the tap opened is on the screen, down to its last button (on a phone it opens below the edge).
    expect(lead_form.get_by_role("button", name="Lead at this penalty")).to_be_in_viewport(ratio=0.95)
    stepper = panel.get_by_label("Another penalty")
    expect(stepper).to_have_value("4")
    expect(stepper).to_have_attribute("min", "4")
    stepper.fill("5")
    tap(page, lead_form.get_by_role("button", name="Lead at this penalty"))
    expect(glance).to_contain_text("5 led by Ben")
    expect(panel).to_contain_text("Cat's choice at penalty 5")
    choose(page, "Join the men")
    choose(page, "Run with the mice")
    expect(glance).to_contain_text("Ran with the mice" + "Dan")
    expect(panel.locator("tr.out")).to_contain_text("Dan")
    # The lead reopened the bidding: Ann, the opener, answers again.
    expect(panel).to_contain_text("Ann's choice at penalty 5")
    expect(panel.locator("tr.to-act")).to_contain_text("Ann")
    choose(page, "Join the men")

    # Showdown: Ann, Ben and Cat reveal, in any order.
    expect(panel).to_contain_text("Showdown at penalty 5: Ann, Ben, Cat to reveal")
    reveal(page, "Cat", 1, 2, 3)
    expect(panel).to_contain_text("Showdown at penalty 5: Ann, Ben to reveal")
    expect(panel.locator("tr", has_text="Cat")).to_contain_text("321")
    reveal(page, "Ann", 5, 6, 1)
    reveal(page, "Ben", 4, 2, 4)
    news = panel.locator(".news")
    expect(news).to_contain_text("Round 1 showdown at penalty 5: Ann 651 · Ben 442 · Cat 321.")
    expect(news.locator("mark.taker")).to_have_text("Cat 321")
    expect(news).to_contain_text("Cat takes the penalty: 5 points.")
    expect(panel.locator("tr", has_text="Cat").locator("td.num")).to_have_text("5")
    expect(panel.locator("tr", has_text="Dan").locator("td.num")).to_have_text("3")

    # Round 2: Ben opens (the next seat); everyone else runs: Ben is the lone survivor.
    expect(glance).to_contain_text("Round2 of 2")
    expect(glance).to_contain_text("OpenerBen")
    open_at(page, 2)
    choose(page, "Run with the mice")  # Cat
    choose(page, "Run with the mice")  # Dan
    expect(panel).to_contain_text("Ann's choice at penalty 2")
    choose(page, "Run with the mice")  # Ann

    expect(news).to_contain_text("Round 2: Ben is the lone survivor and takes nothing")
    # and a screen reader hears it (the review heard "Ann's choice at penalty 2" still)
    expect(page.locator("#outcome")).to_contain_text("Round 2: Ben is the lone survivor and takes nothing")
    expect(page.locator("#outcome")).to_contain_text("Game over after 2 rounds.")
    expect(glance).to_contain_text("Round2 of 2")
    expect(panel).to_contain_text("Game over after 2 rounds. Ben wins with 0 penalty points.")
    expect(panel).to_contain_text("Final standings: Ben 0, Ann 3, Dan 6, Cat 8.")
    expect(panel.locator("tr.winner")).to_contain_text("Ben")
    expect(panel.get_by_role("button", name="Run with the mice")).to_have_count(0)

    # Nothing is lost on reload.
    page.reload()
    expect(page.locator("#panel")).to_contain_text("Final standings: Ben 0, Ann 3, Dan 6, Cat 8.")


def test_a_one_tap_entry_sent_offline_says_nothing_of_picked_dice(page: Page, live_server: str):
    """Run with the mice picks nothing: its note without a connection asks for the tap again and
    says nothing of dice that "stay picked" (it did, on every entry: a playtest)."""
    base = live_server
    register(page, base)
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0, rounds=1)
    open_at(page, 3)
    panel = page.locator("#panel")
    expect(panel).to_contain_text("Ben's choice at penalty 3")
    page.wait_for_timeout(700)  # past the guard against taps as the screen changes
    page.context.set_offline(True)
    panel.get_by_role("button", name="Run with the mice", exact=True).click()
    note = panel.locator(".send-error [role=alert]")
    expect(note).to_contain_text("No answer: no connection. Tap again to send the entry once the connection is back")
    assert "picked" not in note.inner_text()
    page.context.set_offline(False)
    expect(note).to_contain_text("The connection is back, but the last entry got no answer")
    assert "picked" not in note.inner_text()


def test_who_reveals_breaks_no_name_inside_a_word(page: Page, live_server: str):
    """A showdown of six on a 390x844 phone: the "Who reveals" buttons were a grid of four columns
    that broke even plain names inside a word ("Hannelor/e", "Friederik/e"; found by a review).
    Each button is now as wide as its name: a long name takes a row and breaks between words."""
    page.set_viewport_size({"width": 390, "height": 844})
    names = ["Maximiliane-Wilhelmina von Hohenzollern", "Bartholomäus Schwarzenegger", "Cleo", "Dirk",
             "Friederike Annegret", "Hannelore"]
    register(page, live_server)
    set_up(page, live_server, "mice-and-men", names, starter=0, rounds=1)
    open_at(page, 3)
    for _ in names[1:]:
        choose(page, "Join the men")
    who = page.locator("fieldset", has_text="Who reveals").locator("label")
    expect(who).to_have_count(len(names))
    # Each word (between spaces and hyphens) of each name on one line: one box per word.
    split = who.evaluate_all("""labels => labels.flatMap(label => {
        const node = label.lastChild, out = [], re = /[^\\s-]+/g;
        let m;
        while ((m = re.exec(node.textContent))) {
            const r = document.createRange();
            r.setStart(node, m.index);
            r.setEnd(node, m.index + m[0].length);
            const tops = new Set(Array.from(r.getClientRects(), b => Math.round(b.top)));
            if (tops.size > 1) out.push(m[0]);
        }
        return out;
    })""")
    assert split == [], split


#: The words (between spaces and hyphens) of the elements' text laid out on more than one line.
SPLIT_WORDS = """elements => elements.flatMap(el => {
    const out = [], walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode());) {
        const re = /[^\\s,·-]+/g;
        for (let m; (m = re.exec(node.textContent));) {
            const r = document.createRange();
            r.setStart(node, m.index);
            r.setEnd(node, m.index + m[0].length);
            if (new Set(Array.from(r.getClientRects(), b => Math.round(b.top))).size > 1) out.push(m[0]);
        }
    }
    return out;
})"""


def test_long_names_stay_whole_in_the_still_in_box_and_the_scores_table(page: Page, live_server: str):
    """Six names of up to 22 letters on a 390x844 phone: the scores table gave its other columns
    a share of the width and broke the names inside a word ("Hannelorewilhelmin/e"), and the
    "Still in" box took half the width beside "nobody yet" (found by a review). The names take
    the width the other columns leave, the words of "This round" stay whole, and long names
    make the two boxes as wide as the glance."""
    page.set_viewport_size({"width": 390, "height": 844})
    names = ["Maximilianefriederike", "Bartholomäus-Konstantin", "Cleo", "Hannelorewilhelmine", "Dirk", "Eve"]
    register(page, live_server)
    set_up(page, live_server, "mice-and-men", names, starter=0)
    open_at(page, 5)
    choose(page, "Join the men")
    table = page.locator("table.scores tbody")
    expect(table).to_contain_text("joined at 5")
    assert table.locator("th, td").evaluate_all(SPLIT_WORDS) == []
    glance = page.locator("dl.glance")
    still_in = glance.locator("div", has_text="Still in")
    assert still_in.evaluate("el => el.getBoundingClientRect().width") > 0.9 * glance.evaluate(
        "el => el.getBoundingClientRect().width")
    assert still_in.locator("dd").evaluate_all(SPLIT_WORDS) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    # German headers are wider ("Strafpunkte"): the names leave them room, at 390 and at 320 px.
    game = page.url
    page.goto(live_server + "/settings")
    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_function("() => document.documentElement?.lang === 'de'")
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(game)
        expect(page.locator("table.scores tbody")).to_contain_text("bei 5")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width, width
