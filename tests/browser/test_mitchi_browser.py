"""A Mitchi round on a phone-sized Chromium: register, set up, tie-break, undo, finish."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped


def turn(page: Page, a: int, b: int, rolls: int) -> None:
    """Enter a turn in three taps: first die, second die, rolls used."""
    page.locator("fieldset", has_text="First die").locator("label").nth(a - 1).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(b - 1).click()
    with swapped(page):
        page.get_by_role("button", name=f"in {rolls}", exact=True).click()


def tiebreak(page: Page, a: int, b: int) -> None:
    """Enter a tie-break roll in two taps."""
    page.locator("fieldset", has_text="First die").locator("label").nth(a - 1).click()
    with swapped(page):
        page.locator("fieldset", has_text="Second die").get_by_role("button").nth(b - 1).click()


def test_mitchi_round_with_tie_break_and_undo(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0, point_limit=5)
    panel = page.locator("#panel")
    expect(panel).to_contain_text("Ann's turn")
    url = page.url

    turn(page, 3, 1, 2)  # Ann: 3-1 in two: roll limit 2
    expect(panel.get_by_text("Roll limit")).to_be_visible()
    expect(panel.locator(".glance")).to_contain_text("2")
    expect(panel).to_contain_text("Ben's turn")
    # Only 1..roll limit is offered.
    expect(page.get_by_role("button", name="in 3", exact=True)).to_have_count(0)

    turn(page, 6, 6, 1)  # Ben: double 6
    turn(page, 5, 5, 1)  # Cat: mistake, should have been 1-3
    expect(panel).to_contain_text("Worst hand so far")
    expect(panel).to_contain_text("Ann")

    # Undo Cat's entry and enter it again: 3-1 ties Ann on the worst hand.
    with swapped(page):
        page.get_by_role("button", name="Undo: Cat: 5-5 in 1").click()
    expect(panel).to_contain_text("Cat's turn")
    turn(page, 1, 3, 2)

    # Tie-break between Ann and Cat: pot doubles to 2, reverse order: Cat then Ann.
    expect(panel).to_contain_text("Tie-break: Cat rolls once")
    expect(panel).to_contain_text("Cat → Ann")
    expect(panel).to_contain_text("doubled to 2")
    tiebreak(page, 4, 2)
    expect(panel).to_contain_text("Tie-break: Ann rolls once")
    tiebreak(page, 6, 1)

    # Cat's 4-2 is worse than Ann's 6-1: Cat takes 2 points and starts round 2.
    expect(panel).to_contain_text("Round 1: Cat takes the pot: 2 points")
    expect(panel).to_contain_text("Cat's turn (starts")
    expect(panel.locator("tr", has_text="Cat").locator("td.num")).to_have_text("2")

    # Nothing is lost on reload.
    page.goto(url)
    expect(page.locator("#panel")).to_contain_text("Round 1: Cat takes the pot: 2 points")
    expect(page.locator("tr", has_text="Cat").locator("td.num")).to_have_text("2")
