"""A Mia game on a phone-sized Chromium: both entry modes, a Mia challenge, an elimination, to the end."""

from __future__ import annotations

import os
import re

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped

SHOTS = os.environ.get("MIA_SCREENSHOTS")  # a folder: save Pixel-7 screenshots there


def posted(page: Page):
    return swapped(page)


def shot(page: Page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"mia-{name}.png"), full_page=True)


def mode(page: Page, name: str) -> None:
    """Switch entry mode with the toggle (an htmx GET that keeps ?mode= in the address)."""
    with swapped(page):
        page.get_by_role("link", name=name, exact=True).click()


def announce(page: Page, value: str) -> None:
    """One tap: roll and announce ``value``."""
    with posted(page):
        page.locator("fieldset", has_text="announce").get_by_role("button", name=value, exact=True).click()


def cup(page: Page, a: int, b: int) -> None:
    """Two taps: the lifted cup's first die, then the second die sends the challenge."""
    page.locator("fieldset", has_text="first die").locator("label").nth(a - 1).click()
    with posted(page):
        page.locator("fieldset", has_text="Second die").get_by_role("button").nth(b - 1).click()


def quick(page: Page, announced: int, a: int, b: int) -> None:
    """Quick entry with the preset owner: announced value, two cup dice (three taps)."""
    page.locator(".mia-pick label").filter(has=page.locator(f'input[value="{announced}"]')).click()
    cup(page, a, b)


def lives(page: Page, player: str):
    return page.locator("table.scores tr", has_text=player).locator(".sr-only")


def test_mia_game_both_modes_to_the_end(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    panel = page.locator("#panel")
    expect(panel).to_contain_text("Ann rolls and announces")
    expect(panel).to_contain_text("3 lives each · standard order")

    # Round 1, the full trail: Ann announces Mia; Ben may not roll, only challenge or pass.
    announce(page, "Mia")
    expect(panel.locator(".mia-claim")).to_contain_text("Ann says Mia")
    expect(panel.locator(".mia-claim")).to_contain_text("Ben: challenge or pass")
    expect(panel.locator("fieldset", has_text="Roll and announce")).to_have_count(0)
    shot(page, "claim")
    cup(page, 6, 5)  # the cup shows 65, not Mia: Ann lied, and a Mia challenge costs 2
    expect(panel.locator(".news")).to_contain_text("Ann loses 2 lives (a Mia challenge costs 2)")
    expect(lives(page, "Ann")).to_have_text("1 life")

    # Round 2, quick entry: Ann owns the cup, Ben challenges her 54; the cup shows 43.
    mode(page, "Quick entry")
    expect(page).to_have_url(re.compile(r"/games/\d+\?mode=quick$"))
    expect(panel).to_contain_text("Cup owner Ann · challenged by Ben")
    quick(page, 54, 4, 3)
    expect(panel.locator(".news")).to_contain_text("Ann loses 1 life and is out")
    expect(page.locator("tr.out", has_text="Ann")).to_have_count(1)
    expect(lives(page, "Ann")).to_have_text("0 lives")

    # Round 3, still quick (the mode survived the entry): Ben owns the cup, Ann is skipped.
    expect(panel).to_contain_text("Cup owner Ben · challenged by Cat")
    with swapped(page):
        page.locator(".mia-owner").get_by_role("link", name="Cat").click()
    expect(panel).to_contain_text("Cup owner Cat · challenged by Ben")
    with swapped(page):
        page.locator(".mia-owner").get_by_role("link", name="Ben").click()
    expect(panel).to_contain_text("Cup owner Ben · challenged by Cat")
    shot(page, "quick")
    quick(page, 65, 6, 6)  # 66 ranks above 65: Cat loses
    expect(panel.locator(".news")).to_contain_text("Cat loses 1 life")

    # Round 4, the trail again: Ben 31, Cat passes, back to Ben who passes raising to 41.
    mode(page, "Full trail")
    announce(page, "31")
    with posted(page):
        page.get_by_role("button", name="Cat passes: holds 31").click()
    expect(panel.locator(".mia-claim")).to_contain_text("Back to Ben, who rolled last")
    expect(panel.locator("fieldset", has_text="first die")).to_have_count(0)  # no challenge
    with posted(page):
        page.locator("fieldset", has_text="Pass back WITHOUT rolling").get_by_role("button", name="41", exact=True).click()
    expect(panel.locator(".mia-claim")).to_contain_text("Ben passes, raising to 41")
    cup(page, 1, 1)  # 11 ranks above 41: Cat loses
    expect(lives(page, "Cat")).to_have_text("1 life")

    # Rounds 5 and 6, quick: Ben's Mia is false (Ben loses 2), then his 62 (Ben out).
    mode(page, "Quick entry")
    quick(page, 21, 3, 1)
    expect(lives(page, "Ben")).to_have_text("1 life")
    quick(page, 62, 5, 1)
    expect(panel).to_contain_text("Game over. Cat wins: the last with lives left.")
    expect(panel).to_contain_text("Final lives: Cat 1, Ben 0, Ann 0.")  # Ben went out after Ann
    expect(page.locator("tr.winner", has_text="Cat")).to_have_count(1)
    expect(panel.locator("form.entry")).to_have_count(0)
    shot(page, "over")

    # Nothing is lost on reload.
    page.reload()
    expect(page.locator("#panel")).to_contain_text("Game over. Cat wins")

    # The quick reference: both orders, on one phone screen.
    page.get_by_role("link", name="Quick reference").click()
    expect(page.get_by_role("heading", name="Mia: quick reference")).to_be_visible()
    expect(page.locator("ol.mia-order")).to_have_count(2)
    shot(page, "rules")


def test_mia_whole_game_in_the_full_trail(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0, lives=1)
    panel = page.locator("#panel")
    announce(page, "43")  # Ann
    announce(page, "52")  # Ben rolls and raises
    cup(page, 3, 2)  # Cat challenges Ben: 32 is below 52, Ben loses his only life
    expect(panel.locator(".news")).to_contain_text("Ben loses 1 life and is out")
    # Next round starts with the challenged cup owner (Ben) but he is out: Cat starts.
    announce(page, "61")
    cup(page, 6, 2)  # Ann challenges Cat: 62 is above 61, Ann loses
    expect(panel).to_contain_text("Game over. Cat wins")


def test_mia_whole_game_in_quick_entry(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=1, lives=1)
    panel = page.locator("#panel")
    mode(page, "Quick entry")
    quick(page, 42, 4, 2)  # Ben's 42 is true: Cat (the challenger) loses
    expect(panel.locator(".news")).to_contain_text("Cat loses 1 life and is out")
    expect(panel).to_contain_text("Cup owner Ben · challenged by Ann")
    quick(page, 21, 2, 1)  # Ben's Mia is true: Ann loses
    expect(panel).to_contain_text("Game over. Ben wins")


def test_mia_quick_entry_keeps_the_value_picked_when_the_cup_owner_is_changed(page: Page, live_server: str):
    """A table taps the value it heard first, then who said it: the value (and a cup die) stay
    picked as the panel comes again for the other owner, and one more tap sends the challenge."""
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0, lives=2)
    panel = page.locator("#panel")
    mode(page, "Quick entry")
    expect(panel).to_contain_text("Cup owner Ann · challenged by Ben")
    page.locator(".mia-pick label").filter(has=page.locator('input[value="65"]')).click()
    page.locator("fieldset", has_text="first die").locator("label").nth(5).click()
    with swapped(page):
        panel.locator(".mia-owner").get_by_role("link", name="Cat", exact=True).click()
    expect(panel).to_contain_text("Cup owner Cat · challenged by Ann")
    expect(panel.locator('.mia-pick input[value="65"]')).to_be_checked()
    expect(panel.locator("fieldset", has_text="first die").locator("input[type=radio]").nth(5)).to_be_checked()
    with posted(page):
        page.locator("fieldset", has_text="Second die").get_by_role("button").nth(5).click()  # 66 beats 65
    expect(panel.locator(".news")).to_contain_text("Ann loses 1 life")


def test_mia_quick_entry_on_a_small_phone_brings_the_cup_up_as_the_value_is_picked(page: Page, live_server: str):
    """At 320x640 the round's news and the values fill the screen after a round, the cup's dice
    below it (a review). Picking the value brings the rest of the form into view, the values'
    top still in it. A double tap's second, landing on what slid under the finger (here the
    sending dice, within 250 ms), picks and sends nothing, and the panel says so. A quick tap elsewhere counts
    at once: a lock on the whole panel after the pick dropped the next die (a second review)."""
    base = live_server
    register(page, base)
    page.set_viewport_size({"width": 320, "height": 640})
    set_up(page, base, "mia", ["Ann", "Ben", "Cat", "Dora"], starter=0)
    panel = page.locator("#panel")
    mode(page, "Quick entry")
    quick(page, 62, 5, 1)  # the cup shows 51, under Ann's 62: Ann loses
    expect(panel.locator(".news")).to_contain_text("Ann loses 1 life")
    send = panel.locator("fieldset", has_text="Second die").get_by_role("button")
    first_die = panel.locator("fieldset", has_text="first die").locator("label")
    note = page.locator("#tap-note")

    def bottom(locator) -> float:
        return locator.evaluate("el => el.getBoundingClientRect().bottom")

    def middle(locator) -> tuple[float, float]:
        box = locator.bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def value(v: int):
        return panel.locator(".mia-pick label").filter(has=page.locator(f'input[value="{v}"]'))

    def values_in_view_cup_below():
        page.evaluate("window.scrollBy(0, document.querySelector('.mia-pick').getBoundingClientRect().top - 350)")
        assert bottom(send.first) > 640

    assert bottom(send.first) > 640  # below the screen before the pick (else this test shows nothing)
    page.wait_for_function("() => !document.querySelector('#panel.arming')")  # the new panel takes taps
    entries = []
    page.on("request", lambda r: entries.append(r.url) if r.method == "POST" else None)
    page.mouse.dblclick(*middle(value(65)))
    expect(note).to_contain_text("that second tap was ignored")
    assert bottom(send.first) <= 640
    assert panel.locator(".mia-pick").evaluate("el => el.getBoundingClientRect().top") >= 0
    expect(panel.locator("input[type=radio]:checked")).to_have_count(1)
    expect(value(65).locator("input")).to_be_checked()
    # The cup's first die picked, the value changed with a double tap: its second would land on
    # a sending die and send the challenge.
    first_die.nth(5).click()
    page.evaluate("document.getElementById('tap-note').hidden = true")
    version = panel.get_attribute("data-version")
    values_in_view_cup_below()
    page.mouse.dblclick(*middle(value(64)))
    expect(note).to_contain_text("that second tap was ignored")
    expect(value(64).locator("input")).to_be_checked()
    expect(first_die.nth(5).locator("input")).to_be_checked()
    page.wait_for_timeout(500)  # a request the second tap would have sent
    assert entries == [] and panel.get_attribute("data-version") == version
    # Another value, then at once the cup's first die: both count, though the page moved between.
    values_in_view_cup_below()
    page.mouse.click(*middle(value(54)))
    assert bottom(send.first) <= 640
    page.mouse.click(*middle(first_die.nth(4)))
    expect(value(54).locator("input")).to_be_checked()
    expect(first_die.nth(4).locator("input")).to_be_checked()
    with posted(page):
        page.mouse.click(*middle(send.nth(4)))  # 55 beats the 54 announced: the challenger loses
    expect(panel.locator(".news")).to_contain_text("Round 2:")
    assert len(entries) == 1


def test_a_cup_owner_tapped_offline_is_no_entry_and_keeps_what_was_picked(page: Page, live_server: str):
    """Quick entry's cup owner is a link that shows the panel again: tapped with no connection, its
    note says nothing changed (not that an entry went unanswered, as it did: a playtest), and that
    the value picked stays picked."""
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    mode(page, "Quick entry")
    panel = page.locator("#panel")
    page.locator(".mia-pick label").filter(has=page.locator('input[value="54"]')).click()
    page.wait_for_timeout(700)  # past the guard against taps as the screen changes
    page.context.set_offline(True)
    panel.locator(".mia-owner").get_by_role("link", name="Ben", exact=True).click()
    note = panel.locator(".send-error [role=alert]")
    expect(note).to_contain_text("No answer: no connection, so nothing changed on this page.")
    expect(note).to_contain_text("What you picked stays picked.")
    assert "entry" not in note.inner_text()
    expect(page.locator('.mia-pick input[value="54"]')).to_be_checked()
    page.context.set_offline(False)
    expect(note).to_contain_text("The connection is back, but the last tap got no answer")
    expect(note).to_contain_text("What you picked stays picked.")
