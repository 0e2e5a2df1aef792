"""The result of a tap is in view: after an entry, an undo and at the end of a game the outcome
and the next action show on a 412×915 screen without scrolling, and the live region reads them."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped
from .test_mia_browser import mode, quick

IN_VIEW = """sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).map(e => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
})"""


def in_view(page: Page, selector: str) -> bool:
    """Every visible ``selector`` is inside the viewport (waiting up to 2 s for the page to settle)."""
    try:
        page.wait_for_function(f"sel => {{ const s = ({IN_VIEW})(sel); return s.length && s.every(x => x); }}",
                               arg=selector, timeout=2000)
    except Exception:
        return False
    return True


def in_language(page: Page, base: str, name: str, code: str) -> None:
    """Switch the account's language in Settings, then open again the page it was on."""
    back = page.url
    page.goto(base + "/settings")
    page.get_by_role("button", name=name).click()
    page.wait_for_function(f"() => document.documentElement?.lang === '{code}'")
    page.goto(back)


def test_outcome_and_next_action_in_view(page: Page, live_server: str):
    page.set_viewport_size({"width": 412, "height": 915})
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat", "Dan"], starter=1, lives=1)
    panel = page.locator("#panel")
    live = page.locator("#outcome")
    mode(page, "Quick entry")
    # The strip of lives is near the top, above the entry.
    expect(panel.locator(".strip")).to_contain_text("Ann ♥1")
    assert in_view(page, "#panel .strip")

    quick(page, 42, 4, 2)  # Ben's 42 is true: Cat loses her only life
    expect(panel.locator(".news")).to_contain_text("Cat loses 1 life and is out")
    assert in_view(page, "#panel .news"), "the outcome of a quick entry is below the fold"
    assert in_view(page, "#panel .now"), "the next action is out of view"
    expect(live).to_contain_text("Cat loses 1 life and is out")
    expect(live).to_contain_text("Round 2")
    assert live.inner_text().startswith("Recorded: Cat challenges Ben's 42: the cup shows 4-2."), live.inner_text()
    expect(panel.locator(".strip")).to_contain_text("Cat out")

    # Scrolled to the bottom, then Undo: the game as it stands is back in view.
    page.mouse.wheel(0, 3000)
    with swapped(page):
        page.get_by_role("button", name="Undo", exact=False).click()
    assert in_view(page, "#panel .now"), "after Undo the next action is out of view"
    expect(live).to_contain_text("Round 1")
    # What the tap did comes first: the undo, not only whose turn it is (a playtest).
    expect(live).to_contain_text("Undone: Cat challenges Ben's 42: the cup shows 4-2.")
    # Put it back by entering it again, then end the game.
    page.wait_for_timeout(700)
    quick(page, 42, 4, 2)
    page.wait_for_timeout(700)
    quick(page, 21, 2, 1)  # Ben's Mia is true: Dan loses
    # Undo brings round 1's news back on screen; the live region reads what the undo did and whose
    # turn it is, not that older news as if the round had just ended (it did; a review).
    page.wait_for_timeout(700)
    with swapped(page):
        page.get_by_role("button", name="Undo", exact=False).click()
    expect(live).to_contain_text("Undone: Dan challenges Ben's Mia")
    expect(panel.locator(".news")).to_contain_text("Cat loses 1 life and is out")
    assert "Cat loses" not in live.inner_text() and "Round 2" in live.inner_text(), live.inner_text()
    page.wait_for_timeout(700)
    quick(page, 21, 2, 1)
    expect(live).to_contain_text("Dan loses")
    page.wait_for_timeout(700)
    quick(page, 31, 1, 1)  # the cup shows 11, above 31: Ann (the challenger) is out, Ben wins
    expect(panel).to_contain_text("Game over")
    assert in_view(page, "#panel .now"), "the end of the game is out of view"
    assert in_view(page, "#panel .news"), "the last round's outcome is out of view"
    expect(live).to_contain_text("Game over")
    assert live.inner_text().count("Game over") == 1, live.inner_text()  # read out once, not twice


def test_the_live_region_offers_mia_s_reversal_and_does_not_read_the_news_again(page: Page, live_server: str):
    """After a Mia challenge won by the challenged Mia's winner, the page's first control offers
    the reversal, and the live region did not say so; after the reversal it read the round's news
    again, as if another round had ended (a playtest). docs/rules.md §Mia 7."""
    register(page, live_server)
    set_up(page, live_server, "mia", ["Ann", "Ben", "Cat"], starter=0, mia_reverses=True)
    live = page.locator("#outcome")
    mode(page, "Quick entry")
    quick(page, 21, 6, 5)  # Ann's Mia was a lie: Ben wins the Mia challenge
    expect(live).to_contain_text("Ben won the Mia challenge and may reverse the direction")
    assert live.inner_text().index("Round 1:") < live.inner_text().index("may reverse"), live.inner_text()
    page.wait_for_timeout(700)
    with swapped(page):
        page.get_by_role("button", name="Ben: reverse to counter-clockwise", exact=False).click()
    expect(live).to_contain_text("Recorded: Ben reverses the direction of play.")
    assert "Round 1:" not in live.inner_text(), live.inner_text()


def test_a_showdown_under_long_names_brings_its_first_controls_into_view(page: Page, live_server: str):
    """Mice and Men, five players, one of them with a name of the most characters: after a reveal the
    next one's first controls were below a 390x844 screen (found by a review); they are in view,
    with the line that says who is still to reveal."""
    from .test_mice_and_men_browser import choose, open_at, reveal

    page.set_viewport_size({"width": 390, "height": 844})
    long = "Maximilian-Alexander von Hohenzollern-Si"
    register(page, live_server)
    set_up(page, live_server, "mice-and-men", ["Ann", long, "Cat", "Dan", "Eve"], starter=0)
    open_at(page, 3)
    for _ in range(4):
        choose(page, "Join the men")
    expect(page.locator("#panel")).to_contain_text("Showdown at penalty 3")
    reveal(page, "Ann", 5, 6, 1)
    assert in_view(page, "#panel .now"), "the next action is out of view"
    page.wait_for_timeout(300)
    dice = page.evaluate("""() => { const r = [...document.querySelectorAll('#panel form.entry fieldset')]
                                    .find(f => f.textContent.includes('First die')).getBoundingClientRect();
                                    return [r.top, r.bottom, window.innerHeight]; }""")
    assert 0 <= dice[0] and dice[1] <= dice[2], f"the next reveal's dice are off the screen: {dice}"


def test_the_bidding_s_choices_under_eight_names_are_in_view(page: Page, live_server: str):
    """Mice and Men with eight players of longer names: after the opening, only the first of the
    choices (Run) was brought into view; "Join the men" was 3 px on the screen (found by a review)."""
    from .test_mice_and_men_browser import open_at

    page.set_viewport_size({"width": 390, "height": 844})
    names = ["Benedikt Huber", "Annalena Maier", "Christoph Weber", "Dorothea Fischer",
             "Emanuel Schneider", "Friederike Koch", "Gottfried Wagner", "Hildegard Becker"]
    register(page, live_server)
    set_up(page, live_server, "mice-and-men", names, starter=0)
    open_at(page, 3)
    expect(page.locator("#panel")).to_contain_text("Annalena Maier's choice at penalty 3")
    page.wait_for_timeout(300)
    for name in ("Run with the mice", "Join the men"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= 844, (name, box)
    assert in_view(page, "#panel .now")


def test_undo_is_under_the_pad_in_view_after_each_tap(page: Page, live_server: str):
    """Six at the table, a 390x844 phone: after a turn, and after a tie-break roll, Undo (and after
    an undo, Redo) is on the screen under the pad. It was under the scores and the last entries,
    two scrolls down, when a wrong tap is to be taken back at once (found by a review)."""
    from .test_mitchi_browser import turn

    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server)
    set_up(page, live_server, "mitchi", ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"])
    for a, b, rolls in ((3, 4, 3), (6, 5, 2)):
        with swapped(page):
            turn(page, a, b, rolls)
    undo = page.locator(".undo-redo button")
    expect(undo).to_have_accessible_name("Undo: Ben: 6-5 in 2")
    assert in_view(page, ".undo-redo button"), "Undo is below the fold after a turn"
    with swapped(page):
        undo.click()
    expect(undo.first).to_have_accessible_name("Redo: Ben: 6-5 in 2")
    assert in_view(page, ".undo-redo button"), "Redo and Undo are below the fold after an undo"
    with swapped(page):
        undo.first.click()
    for a, b in ((4, 3), (6, 5), (6, 5), (6, 5)):  # Cat ties Ann's 4-3: a tie-break
        with swapped(page):
            turn(page, a, b, 1)
    expect(page.locator("#panel")).to_contain_text("Tie-break")
    assert in_view(page, ".undo-redo button"), "Undo is below the fold in a tie-break"


def test_undo_stays_in_view_in_a_tie_break_of_six_long_names_in_english_and_german(page: Page, live_server: str):
    """Six long names wrap the title and the points strip, three tied make the tie-break's line
    longer, a Mitchi's Undo label takes two lines, and German words are longer: Undo was below a
    390x844 screen in a tie-break (its bottom at 850 to 874 px; found by two reviews). In a
    tie-break the glance has no roll limit and puts round, pot and point limit in one row, and the
    tie-break's line of who is tied sits close to its pad."""
    from .test_mitchi_browser import tiebreak, turn

    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server)
    set_up(page, live_server, "mitchi", ["Alexandra", "Benedikt", "Charlotte", "Dominik", "Elisabeth", "Friedrich"])
    for a, b in ((3, 1), (5, 4), (3, 1), (6, 6), (3, 1), (5, 5)):  # Alexandra, Charlotte, Elisabeth tie on 3-1
        with swapped(page):
            turn(page, a, b, 1)
    expect(page.locator("#panel")).to_contain_text("Tie-break")
    assert in_view(page, ".undo-redo button"), "Undo is below the fold in a tie-break of six long names"
    page.wait_for_timeout(700)  # past the guard against a double tap
    tiebreak(page, 2, 1)  # a Mitchi: "Undo: Elisabeth: tie-break roll 2-1 (Mitchi)" wraps
    expect(page.locator(".undo-redo button")).to_contain_text("Mitchi")
    assert in_view(page, ".undo-redo button"), "Undo is below the fold after a Mitchi in a tie-break"
    with swapped(page):
        page.locator(".undo-redo button").click()
    in_language(page, live_server, "Deutsch", "de")
    expect(page.locator("#panel")).to_contain_text("Stechen")
    assert in_view(page, ".undo-redo button"), "Redo or Undo is below the fold in a German tie-break"


def test_a_game_opened_on_a_small_phone_shows_its_first_turn_whole(page: Page, live_server: str):
    """A new Mitchi game on a 320x640 phone opened with the second die's row cut off and the send
    buttons below the screen; only after the first entry did the page bring them up (found by a
    review). Opened, it now shows the turn and its whole form, as after an entry; on a phone where
    all of it fits, the page stays at its top."""
    base = live_server
    register(page, base, "smallphone")
    for width, height in ((320, 640), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        set_up(page, base, "mitchi", ["Ann", "Ben", "Cat", "Dan"], starter=0)
        page.wait_for_timeout(200)
        assert in_view(page, "#panel .now"), width
        assert in_view(page, "#panel form.entry button[name=rolls]"), width
        assert in_view(page, "#panel fieldset label"), width
        assert (page.evaluate("window.scrollY") > 0) == (width == 320), width


def test_undo_stays_in_view_under_the_news_as_a_round_ends(page: Page, live_server: str):
    """Six long names on a 390x844 phone: as a Mitchi round ended, the round's news above the glance
    and the next round's "starts, sets the roll limit" pushed Undo below the screen (its bottom at
    874 to 932 px); in Mice and Men, the next round's penalty, "still in" and "ran" boxes too
    (found by a review). The page brings Undo up as far as the news and the glance stay in view,
    also on a German page opened afresh; the opening's boxes wait for the penalty. At the showdown
    the glance says the lowest score so far in one box for "still in" and "ran", and Undo stays in
    view after each reveal."""
    from .test_mice_and_men_browser import choose, open_at, reveal
    from .test_mitchi_browser import turn

    page.set_viewport_size({"width": 390, "height": 844})
    names = ["Alexandra", "Benedikt", "Charlotte", "Dominik", "Elisabeth", "Friedrich"]
    register(page, live_server)
    set_up(page, live_server, "mitchi", names)
    for a, b in ((3, 1), (5, 4), (6, 6), (6, 5), (5, 5), (4, 4)):
        with swapped(page):
            turn(page, a, b, 1)
    expect(page.locator("#panel .news")).to_contain_text("Round 1: Alexandra takes the pot")
    for selector in ("#panel .news", "#panel .glance", "#panel .now", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view as a Mitchi round ends"
    in_language(page, live_server, "Deutsch", "de")
    expect(page.locator("#panel .news")).to_contain_text("Runde 1")
    assert in_view(page, "#panel .news") and in_view(page, ".undo-redo button"), "German, opened afresh"
    in_language(page, live_server, "English", "en")

    set_up(page, live_server, "mice-and-men", names, starter=0)
    open_at(page, 3)
    for _ in range(4):
        choose(page, "Run with the mice")
    choose(page, "Join the men")
    # The showdown: the lowest score so far (a review found no reveal confirmed on the screen),
    # and Undo under the pad, after each reveal.
    expect(page.locator("#panel .glance")).to_contain_text("Lowest score so far" + "none yet")
    assert in_view(page, ".undo-redo button"), "Undo is out of view as the showdown begins"
    reveal(page, "Alexandra", 5, 6, 1)
    expect(page.locator("#panel .glance")).to_contain_text("Lowest score so far" + "651 · Alexandra")
    for selector in ("#panel .glance", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view after a reveal"
    reveal(page, "Friedrich", 2, 2, 1)
    expect(page.locator("#panel .news")).to_contain_text("Friedrich takes the penalty")
    for selector in ("#panel .news", "#panel .glance", "#panel .now", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view as a Mice and Men round ends"


def test_mia_values_six_across_keep_undo_in_view_as_a_round_ends(page: Page, live_server: str):
    """Mia on a 390x844 phone: the values to announce, four across in six rows, put Undo below
    the screen as a round ended, under the round's news (a review: at 893 to 922 px). Six across,
    two digits in a die's width (Mia the last row's rest), Undo is in view with the news."""
    from .test_mia_browser import announce, cup

    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server)
    set_up(page, live_server, "mia", ["Alexandra", "Benedikt", "Charlotte", "Dominik"], starter=0, lives=3)
    announce(page, "42")
    grid = page.locator("#panel .mia-values").last
    rows = grid.locator("button").evaluate_all("bs => bs.map(b => Math.round(b.getBoundingClientRect().top))")
    # Mia takes the last row's rest (two here; it dropped to a row of its own when it took three)
    assert len(set(rows)) == 3, f"the 17 values above 42 are not in three rows: {rows}"
    cup(page, 4, 2)  # the cup shows 42: Benedikt, who challenged, loses a life
    expect(page.locator("#panel .news")).to_contain_text("Benedikt loses 1 life")
    for selector in ("#panel .news", "#panel .now", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view as a Mia round ends"


def test_mia_undo_is_in_view_under_the_full_trail_as_a_claim_stands(page: Page, live_server: str):
    """Mia on a 390x844 phone, a claim standing: the pad (the cup's two rows of dice, the pass, the
    values above the claim) put Undo below the screen, 906 to 924 px, while the glance above the
    pad stayed in view (a review). The pad's first line says the claim and whose turn it is, as the
    glance does: Undo comes into view under the pad, that line still in view."""
    from .test_mia_browser import announce

    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server)
    set_up(page, live_server, "mia", ["Alexandra", "Benedikt", "Charlotte", "Dominik"], starter=0, lives=3)
    announce(page, "42")
    for selector in ("#panel .now", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view after an announcement"
    with swapped(page):
        page.get_by_role("button", name="Benedikt passes: holds 42").click()
    expect(page.locator("#panel .now")).to_contain_text("Benedikt passes on 42")
    for selector in ("#panel .now", ".undo-redo button"):
        assert in_view(page, selector), f"{selector} is out of view after a pass"


def test_mia_quick_entry_s_pad_is_in_view_under_the_news_after_each_entry(page: Page, live_server: str):
    """Mia's quick entry on a 390x844 phone: after each entry the round's news, then the glance,
    the lives and the mode's switch came above the pad, and the cup's dice were below the screen:
    every quick entry needed a scroll before the next (a review: the pad to 1,073 px). The news
    now comes right above the pad, and no glance (the pad says the round): news, the pad's first
    line and the whole pad are in view."""
    page.set_viewport_size({"width": 390, "height": 844})
    register(page, live_server)
    set_up(page, live_server, "mia", ["Alexandra", "Benedikt", "Charlotte", "Dominik"], starter=0, lives=3)
    mode(page, "Quick entry")
    for announced, a, b in ((52, 5, 2), (21, 2, 1)):  # both true: Benedikt, who challenged, loses
        quick(page, announced, a, b)
        expect(page.locator("#panel .news")).to_contain_text(f"Round {1 if announced == 52 else 2}: Benedikt")
        for selector in ("#panel .news", "#panel .now", "#panel form.entry"):
            assert in_view(page, selector), f"{selector} is out of view after a quick entry"
        expect(page.locator("#panel .glance")).to_have_count(0)
