"""Messages go away when they no longer apply; the Mia pass-back choices look apart; the button
that appears under the finger after a tap does not look pressed."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped
from .test_mia_browser import announce

LOOK = """el => { const s = getComputedStyle(el); return [s.backgroundColor, s.borderTopStyle, s.borderTopColor]; }"""
#: Every kind of button or button-like link a page shows, once each (tag, classes, container's classes).
KINDS = """() => { const seen = new Set(), out = [];
  for (const el of document.querySelectorAll('button, a.button, .mia-mode a, .mia-owner a')) {
    if (!el.checkVisibility() || el.closest('header')) continue;
    const box = el.closest('fieldset, form, div, p');
    const kind = [el.tagName, el.className, el.getAttribute('aria-current'), box && box.className].join('|');
    if (!seen.has(kind)) { seen.add(kind); el.dataset.kind = out.length; out.push(kind); } }
  return out; }"""


def turn(page: Page, a: int, b: int, rolls: int) -> None:
    page.locator("#panel fieldset", has_text="First die").locator("label").nth(a - 1).click()
    page.locator("#panel fieldset", has_text="Second die").locator("label").nth(b - 1).click()
    with swapped(page):
        page.get_by_role("button", name=f"in {rolls}", exact=True).click()


def test_correction_message_goes_away_with_the_next_entry(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    turn(page, 6, 3, 2)
    page.get_by_role("link", name="Correct entry 2").click()
    # The same controls as entry: die faces and the rolls as buttons.
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(3).click()
    page.get_by_role("button", name="in 2", exact=True).click()
    page.wait_for_url("**/games/*")
    expect(page.locator("#panel").get_by_text("Entry 2 corrected.")).to_be_visible()
    # read to screen readers too, politely (no alert: it is news, not a refusal)
    expect(page.locator("#outcome")).to_contain_text("Entry 2 corrected.")
    expect(page.locator("#panel")).to_contain_text("6-4 in 2")
    page.wait_for_timeout(700)
    turn(page, 5, 5, 1)
    expect(page.locator("#panel")).to_contain_text("Cat's turn")
    expect(page.get_by_text("Entry 2 corrected.")).to_have_count(0)


def test_pass_back_rows_look_apart_and_no_pressed_look(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    announce(page, "31")
    for who in ("Ben", "Cat"):
        page.wait_for_timeout(700)
        with swapped(page):
            page.get_by_role("button", name=f"{who} passes: holds 31").click()
    pass_row = page.locator("fieldset", has_text="Pass back WITHOUT rolling")
    roll_row = page.locator("fieldset", has_text="Or ROLL again")
    expect(pass_row).to_have_count(1)
    expect(roll_row).to_have_count(1)
    a = pass_row.get_by_role("button", name="41", exact=True).evaluate(LOOK)
    b = roll_row.get_by_role("button", name="41", exact=True).evaluate(LOOK)
    assert a != b, "the two rows of values look the same"
    assert pass_row.locator(".mark").count() > 0  # the pass row's buttons carry the ↩ mark
    # Whatever is now under the finger looks like its neighbours (no sticky hover or highlight).
    first = pass_row.locator("button").first
    page.mouse.move(5, 5)
    before = first.evaluate(LOOK)
    first.hover()
    page.wait_for_timeout(100)
    assert first.evaluate(LOOK) == before, "a button under the finger looks pressed"
    assert page.evaluate("getComputedStyle(document.querySelector('#panel button'))"
                         ".webkitTapHighlightColor") == "rgba(0, 0, 0, 0)"


def test_undo_and_redo_keep_their_look_under_the_finger(page: Page, live_server: str):
    """On a phone the last tapped button stays ``:hover`` until the next tap elsewhere: Undo and
    Redo, tapped and left in place (a tap with no connection), turned solid blue, like a button
    pressed (found by a review)."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    turn(page, 6, 3, 2)
    for name in ("Undo", "Redo"):
        button = page.locator(f"#panel .undo-redo button.{name.lower()}")
        page.mouse.move(5, 5)
        before = button.evaluate(LOOK)
        button.hover()
        page.wait_for_timeout(100)
        assert button.evaluate(LOOK) == before, f"{name} under the finger looks pressed"
        with swapped(page):
            button.click()


def pressed_looks(page: Page) -> list[str]:
    """The kinds of button on the page that change their look under a resting finger."""
    changed = []
    for i, kind in enumerate(page.evaluate(KINDS)):
        el = page.locator(f"[data-kind='{i}']")
        page.mouse.move(1, 1)
        page.wait_for_timeout(20)
        before = el.evaluate(LOOK)
        el.hover()
        page.wait_for_timeout(20)
        if el.evaluate(LOOK) != before:
            changed.append(f"{kind}: {before} -> {el.evaluate(LOOK)}")
    return changed


def test_no_button_looks_pressed_under_a_finger_in_any_game(page: Page, live_server: str):
    """The check above for every kind of button in the three games' panels: Mia's doubles and
    Mia lost their border colour under a finger, and links drawn as buttons ("New game", the
    cup owners of quick entry) turned the hover colour (found by going over every button)."""
    base = live_server
    register(page, base)
    page.goto(base + "/")
    seen = pressed_looks(page)
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    seen += pressed_looks(page)
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    seen += pressed_looks(page)
    with swapped(page):
        page.get_by_role("link", name="Quick entry", exact=True).click()
    assert page.locator(".mia-owner a").count() == 3
    seen += pressed_looks(page)  # the cup owners, one of them current
    with swapped(page):
        page.get_by_role("link", name="Full trail", exact=True).click()
    announce(page, "31")
    page.wait_for_timeout(700)
    with swapped(page):
        page.get_by_role("button", name="Ben passes: holds 31").click()
    seen += pressed_looks(page)  # the pass-back row and the roll row
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    seen += pressed_looks(page)
    assert not seen, "\n".join(seen)
