"""A Mitchi round in German on a phone-sized Chromium (issue 14): the account switches to
Deutsch, sets up the game with the German form and plays the round with real taps (a mistake
undone, a tie-break); the screen says in German who is next, the hand to beat and who loses."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, swapped
from .test_layout import BROKEN_WORDS


def turn(page: Page, a: int, b: int, rolls: int) -> None:
    """A turn in three taps: first die, second die, the roll it was made in (sends it)."""
    page.locator("fieldset", has_text="Erster Würfel").locator("label").nth(a - 1).click()
    page.locator("fieldset", has_text="Zweiter Würfel").locator("label").nth(b - 1).click()
    with swapped(page):
        page.get_by_role("button", name=f"{rolls}. Wurf", exact=True).click()


def tiebreak(page: Page, a: int, b: int) -> None:
    """A tie-break roll in two taps."""
    page.locator("fieldset", has_text="Erster Würfel").locator("label").nth(a - 1).click()
    with swapped(page):
        page.locator("fieldset", has_text="Zweiter Würfel").get_by_role("button").nth(b - 1).click()


def glance(page: Page, term: str):
    """The value beside ``term`` in the panel's at-a-glance list."""
    return page.locator("#panel .glance div").filter(has=page.locator("dt", has_text=term)).locator("dd")


def test_a_mitchi_round_in_german(page: Page, live_server: str):
    base = live_server
    register(page, base)
    page.goto(base + "/settings")
    page.get_by_role("button", name="Deutsch").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")

    # Set up in German: three seats, Ann starts, a point limit of 2 (the round ends the game).
    page.goto(base + "/games/new/mitchi")
    expect(page.get_by_role("heading", level=1)).to_have_text("Neues Spiel: Mitchi")
    for i, name in enumerate(["Ann", "Ben", "Cat"]):
        page.get_by_label(f"Name auf Platz {i + 1}", exact=True).fill(name)
    page.locator(".seat").nth(0).get_by_label("fängt an").check()
    page.get_by_label("Punktegrenze").fill("2")
    page.get_by_role("button", name="Spiel starten", exact=True).last.click()
    page.wait_for_url(f"{base}/games/*")
    panel = page.locator("#panel")
    expect(panel.locator(".now")).to_have_text("Ann ist dran (fängt an, legt die Wurfgrenze fest)")
    expect(glance(page, "Pott")).to_have_text("1 Punkt")
    expect(glance(page, "Wurfgrenze")).to_have_text("noch nicht festgelegt")

    # A tap that cannot be sent (no connection) is answered in German (app.js takes the words from
    # the page), and the entry stays selected to send again.
    page.locator("fieldset", has_text="Erster Würfel").locator("label").nth(2).click()
    page.locator("fieldset", has_text="Zweiter Würfel").locator("label").nth(0).click()
    page.context.set_offline(True)
    page.get_by_role("button", name="2. Wurf", exact=True).click()
    expect(panel.locator(".send-error")).to_contain_text(
        "Keine Antwort: keine Verbindung. Tipp noch einmal, sobald die Verbindung zurück ist, um den Eintrag zu senden")
    page.context.set_offline(False)
    with swapped(page):  # Ann: 3-1 in her second roll sets the roll limit 2
        page.get_by_role("button", name="2. Wurf", exact=True).click()
    expect(panel.locator(".now")).to_have_text("Ben ist dran")
    expect(glance(page, "Wurfgrenze")).to_have_text("2")
    # The hand to beat: the worst so far, and whose it is.
    expect(glance(page, "Schlechtester Wurf bisher")).to_contain_text("3-1 · Ann")
    expect(page.get_by_role("button", name="3. Wurf", exact=True)).to_have_count(0)

    turn(page, 6, 6, 1)  # Ben: double 6
    turn(page, 5, 5, 1)  # Cat: a mistake, undone in German
    with swapped(page):
        page.get_by_role("button", name="Rückgängig: Cat: 5-5 im 1. Wurf").click()
    expect(panel.locator(".now")).to_have_text("Cat ist dran")
    turn(page, 1, 3, 2)  # Cat ties Ann on the worst hand

    # Tie-break (Stechen): the pot doubles, the tied roll in reverse order.
    expect(panel.locator(".now")).to_have_text("Stechen: Cat würfelt einmal")
    expect(panel).to_contain_text("Der Pott verdoppelt sich auf 2")
    expect(panel).to_contain_text("Reihenfolge: Cat → Ann")
    # Three boxes in a row at 320 px: "Punktegrenze" breaks at its soft hyphen if at all, not as
    # "Punktegrenz/e" (a playtest)
    size = page.viewport_size
    page.set_viewport_size({"width": 320, "height": 640})
    assert page.locator("#panel .glance.tb").count() == 1
    assert page.evaluate(BROKEN_WORDS, "#panel .glance dt") == []
    page.set_viewport_size(size)
    tiebreak(page, 4, 2)
    expect(panel.locator(".now")).to_have_text("Stechen: Ann würfelt einmal")
    tiebreak(page, 6, 1)

    # Who loses: Cat's 4-2 is worse than Ann's 6-1; Cat takes the pot, and 2 points end the game.
    news = "Runde 1: Cat nimmt den Pott: 2 Punkte (Stechen verloren nach Gleichstand mit 3-1)."
    expect(panel.locator(".news")).to_have_text(news)
    expect(panel.locator(".msg.ok .now")).to_have_text("Spiel vorbei. Ann und Ben gewinnen gemeinsam mit 0 Punkten.")
    expect(panel).to_contain_text("Endstand: Ann 0, Ben 0, Cat 2.")
    expect(panel.locator("tr", has_text="Cat").locator("td.num")).to_have_text("2")
    # What a screen reader hears after the tap is the same German outcome.
    expect(page.locator("#outcome")).to_contain_text("Cat nimmt den Pott")
    expect(page.get_by_role("button", name="Revanche: gleiche Spieler, Plätze und Optionen")).to_be_visible()
    for english in ("turn", "Tie-break", "takes the pot", "Game over", "Worst hand", "Undo"):
        expect(panel).not_to_contain_text(english)

    # Nothing is lost on reload, and the page stays German.
    page.reload()
    expect(page.locator("#panel .news")).to_have_text(news)
    expect(page.get_by_role("link", name="Ganzer Verlauf")).to_be_visible()
