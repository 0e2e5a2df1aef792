"""axe-core finds no violations on every page, light and dark; the keyboard alone plays a turn."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped

axe = Axe()


def assert_no_violations(page: Page, what: str) -> None:
    results = axe.run(page)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe(page: Page, live_server: str, scheme: str):
    base = live_server
    page.emulate_media(color_scheme=scheme)
    page.goto(base + "/login")
    assert_no_violations(page, "login")
    page.goto(base + "/register")
    assert_no_violations(page, "register")
    register(page, base)
    assert_no_violations(page, "games list (empty)")
    page.goto(base + "/games/new")
    assert_no_violations(page, "choose a game")
    page.goto(base + "/import")
    assert_no_violations(page, "load a record")
    for game, players in (
        ("mitchi", ["Ann", "Ben", "Cat"]),
        ("mia", ["Ann", "Ben", "Cat"]),
        ("mice-and-men", ["Ann", "Ben", "Cat", "Dan"]),
    ):
        page.goto(f"{base}/games/new/{game}")
        assert_no_violations(page, f"{game} setup")
        page.goto(f"{base}/rules/{game}")
        assert_no_violations(page, f"{game} quick reference")
        set_up(page, base, game, players, starter=0)
        assert_no_violations(page, f"{game} game page")
        game_url = page.url
        page.goto(game_url + "/log")
        assert_no_violations(page, f"{game} log")
        page.goto(game_url + "/summary")
        assert_no_violations(page, f"{game} summary")
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=None)
    assert_no_violations(page, "roll-off")
    page.goto(base + "/")
    assert_no_violations(page, "games list")
    page.goto(base + "/offline")
    assert_no_violations(page, "offline page")
    for path, what in (("/players", "players"), ("/players/1", "a player's stats"), ("/settings", "settings"),
                       ("/history?game=mia", "filtered list")):
        page.goto(base + path)
        assert_no_violations(page, what)


def test_keyboard_alone_sets_up_and_plays_a_turn(page: Page, live_server: str):
    base = live_server
    page.goto(base + "/register")
    page.get_by_label("Name").focus()
    page.keyboard.type("kim")
    page.keyboard.press("Tab")
    page.keyboard.type("correct horse")
    page.keyboard.press("Tab")
    page.keyboard.type("correct horse")
    page.keyboard.press("Enter")
    page.wait_for_url(base + "/")

    page.goto(base + "/games/new/mitchi")
    page.get_by_label("Name in seat 1", exact=True).focus()
    page.keyboard.type("Ann")
    page.keyboard.press("Tab")  # the "starts" radio of seat 1
    page.keyboard.press("Tab")  # seat 2's move buttons
    for _ in range(6):
        if page.evaluate("document.activeElement.getAttribute('aria-label')") == "Name in seat 2":
            break
        page.keyboard.press("Tab")
    page.keyboard.type("Ben")
    page.keyboard.press("Enter")  # Enter in a name field starts the game
    page.wait_for_url(base + "/games/*")
    expect(page.locator("#panel")).to_contain_text("Ann's turn")

    # First die: focus the group, arrow to 4; second die: arrow to 1; rolls: Tab to "in 2", Enter.
    page.locator("input[name='hand.0']").first.focus()
    page.keyboard.press("Space")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "in 2"
    with swapped(page):
        page.keyboard.press("Enter")
    expect(page.locator("#panel")).to_contain_text("Ben's turn")
    expect(page.locator("#panel")).to_contain_text("Ann: 4-1 in 2")
    # The focus stays in the game: on the new panel's first control, Ben's first die (it fell
    # to the page's body, and Tab went on below the panel; found by a review).
    focused = "() => [document.activeElement.name, document.activeElement.value]"
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate(focused) == ["hand.0", "1"]

    # Undo by keyboard too.
    page.get_by_role("button", name="Undo: Ann: 4-1 in 2").focus()
    with swapped(page):
        page.keyboard.press("Enter")
    expect(page.locator("#panel")).to_contain_text("Ann's turn")
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate(focused) == ["hand.0", "1"]


REACHABLE = """() => {
  const seen = new Set(), groups = new Set();
  const all = [...document.querySelectorAll('#panel a[href], #panel button, #panel input:not([type=hidden]), #panel select, #panel summary')]
    .filter(el => !el.disabled && el.getClientRects().length);
  return all.filter(el => {
    if (el.type === 'radio') { if (groups.has(el.name)) return false; groups.add(el.name); }
    return true;
  }).map(el => el.outerHTML.slice(0, 80));
}"""


@pytest.mark.parametrize("game,players", [
    ("mitchi", ["Ann", "Ben", "Cat"]),
    ("mia", ["Ann", "Ben", "Cat"]),
    ("mice-and-men", ["Ann", "Ben", "Cat", "Dan"]),
])
def test_tab_reaches_every_control_of_a_game_page(page: Page, live_server: str, game: str, players):
    """Every control on the panel (one per radio group) takes the focus with Tab alone."""
    base = live_server
    register(page, base, name=f"kb{game.replace('-', '')}")
    set_up(page, base, game, players, starter=0)
    wanted = page.evaluate(REACHABLE)
    assert wanted
    reached = set()
    page.locator("body").focus()
    for _ in range(400):
        page.keyboard.press("Tab")
        html = page.evaluate("document.activeElement && document.activeElement.outerHTML.slice(0, 80)")
        if html in reached and len(reached) >= len(wanted):
            break
        reached.add(html)
    missing = [w for w in wanted if w not in reached]
    assert not missing, missing


def test_enter_on_a_picked_die_sends_nothing_and_enter_in_a_typed_penalty_sends_it(page: Page, live_server: str):
    """Enter on a die picked with the arrows sent the form by its first button: "Ann: 3-3 in 1",
    a tie-break's second die of 1, a Mia cup of 5-1, none of them picked (a playtest). Now Enter
    there sends nothing; Enter in a typed number (Mice and Men's other penalty) still sends it."""
    base = live_server
    register(page, base, name="enterkey")
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    first = page.locator("input[name='hand.0']").first
    first.focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # 3
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # 3
    requests = []
    page.on("request", lambda r: requests.append(r.url) if r.method == "POST" else None)
    page.keyboard.press("Enter")
    page.wait_for_timeout(600)
    assert requests == []
    expect(page.locator("#panel")).to_contain_text("Ann's turn")
    assert page.locator("input[name='hand.1'][value='3']").is_checked()  # the picks stay

    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    with swapped(page):
        page.locator("button[name=penalty][value='3']").click()
    page.locator("summary", has_text="Lead the men").click()
    field = page.locator("#lead-penalty")
    field.fill("12")
    with swapped(page):
        field.press("Enter")
    expect(page.locator("#panel")).to_contain_text("Ben announces a penalty of 12")


def test_a_second_enter_after_a_sent_choice_sends_nothing(page: Page, live_server: str):
    """Mice and Men by keyboard: Enter on the penalty 5, and the focus went to the next player's
    "Run with the mice", which a second Enter recorded (a playtest). The focus goes to the line
    saying what comes next; Tab then reaches the choices."""
    base = live_server
    register(page, base, name="secondenter")
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    page.locator("button[name=penalty][value='5']").focus()
    with swapped(page):
        page.keyboard.press("Enter")
    expect(page.locator("#panel")).to_contain_text("Ben's choice at penalty 5")
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate("document.activeElement.className") == "now"
    requests = []
    page.on("request", lambda r: requests.append(r.url) if r.method == "POST" else None)
    page.keyboard.press("Enter")
    page.wait_for_timeout(600)
    assert requests == []
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Run with the mice"
