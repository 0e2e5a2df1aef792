"""Every control of every game page is at least 44×44 CSS px (each game, several states)."""

from __future__ import annotations

from playwright.sync_api import Page

from .conftest import register, set_up, swapped
from .test_mia_browser import announce, mode

SMALL = """() => [...document.querySelectorAll(
        'main a, main button, main summary, main select, main input:not([type=hidden]), main label')]
    .filter(e => e.getClientRects().length && !e.closest('.sr-only'))
    .filter(e => !(e.tagName === 'INPUT' && (e.type === 'radio' || e.type === 'checkbox') && e.closest('label')))
    .filter(e => !(e.tagName === 'LABEL' && !e.querySelector('input')))
    .filter(e => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
    .map(e => { const r = e.getBoundingClientRect();
        return e.tagName + ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '" ' +
               Math.round(r.width) + 'x' + Math.round(r.height); })"""


def small_targets(page: Page) -> list[str]:
    return page.evaluate(SMALL)


FOUND: list = []


def check(page: Page, where: str) -> None:
    FOUND.extend(f"{where}: {t}" for t in small_targets(page))


def test_every_control_of_every_game_panel_is_big_enough(page: Page, live_server: str):
    base = live_server
    register(page, base)
    # Mitchi: before the start (roll-off), a turn, with entries in the log.
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=None)
    check(page, "mitchi roll-off")
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    check(page, "mitchi first turn")
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(4).click()
    with swapped(page):
        page.get_by_role("button", name="in 1", exact=True).click()
    check(page, "mitchi with a log and undo")
    page.goto(page.url + "/entries/2")
    check(page, "mitchi correction")
    # Mia: the full trail, a claim, quick entry.
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0)
    check(page, "mia opening")
    announce(page, "31")
    check(page, "mia claim")
    with swapped(page):
        page.get_by_role("button", name="Ben passes: holds 31").click()
    check(page, "mia pass back")
    mode(page, "Quick entry")
    check(page, "mia quick entry")
    # Mice and Men: the opening, the bidding.
    set_up(page, base, "mice-and-men", ["Ann", "Ben", "Cat", "Dan"], starter=0)
    check(page, "mice and men opening")
    with swapped(page):
        page.locator("fieldset", has_text="announces a penalty").get_by_role("button", name="3", exact=True).click()
    page.get_by_text("Lead the men", exact=True).click()
    check(page, "mice and men bidding")
    # Each game's setup form (who starts, the options' choices, yes/no options), and a practice game.
    for game in ("mitchi", "mia", "mice-and-men"):
        page.goto(f"{base}/games/new/{game}")
        check(page, f"{game} setup")
    page.goto(base + "/games/new")
    page.get_by_role("link", name="Practice game: Mitchi").click()
    page.wait_for_url("**/practice/**")
    check(page, "mitchi practice setup")
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Start the practice game").click()
    page.wait_for_url(base + "/practice/*")
    check(page, "mitchi practice game")
    # The lists a group reads after play: games, players, a player, a game's whole log.
    for path in ("/", "/players", "/players/1", "/games/1/log"):
        page.goto(base + path)
        check(page, path)
    assert FOUND == [], "\n".join(FOUND)
