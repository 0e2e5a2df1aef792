"""Practice games on a phone-sized Chromium, from the game chooser: a whole Mitchi game against
three virtual players, using Roll, keep one die and Stop, through a tie-break, to the end screen;
a Mia round under the cup to its challenge; a Mice and Men round to its showdown.

The seed (``PRACTICE_SEED``) is one where, with this way of playing (roll, keep the first die
after the first roll, then stop), Ann plays in a tie-break and wins: every die is the server's,
so the same seed and the same taps give the same game (tests/views/test_practice_views.py).
"""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Page, expect
from werkzeug.serving import make_server

from .conftest import register, swapped

SEED = "phone-31"


@pytest.fixture
def practice_server(make_app):
    app = make_app(WTF_CSRF_ENABLED=True, PRACTICE_SEED=SEED)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)
    app.extensions["scorekeeper.engine"].dispose()


def test_a_whole_mitchi_practice_game_with_keep_stop_and_a_tie_break(page: Page, practice_server: str):
    base = practice_server
    register(page, base)
    page.goto(base + "/games/new")
    page.get_by_role("link", name="Practice game: Mitchi").click()
    expect(page.get_by_label("Point limit")).to_have_value("5")
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Start the practice game").click()
    page.wait_for_url(base + "/practice/*")
    panel = page.locator("#panel")
    expect(panel.locator("#who-starts")).to_contain_text("starts.")
    expect(panel).to_contain_text("Pot")
    seen = {"keep": 0, "stop": 0, "tiebreak": 0, "next": 0, "trail": 0}
    for _ in range(200):
        if panel.locator("#practice-over").count():
            break
        if panel.get_by_role("button", name="Next:").count():
            with swapped(page):
                panel.get_by_role("button", name="Next:").click()
            seen["next"] += 1
            later = panel.locator(".last-move .step-2")
            if later.count():  # the rolls of a turn appear one after another
                assert later.evaluate("e => getComputedStyle(e).animationDelay") == "0.7s"
                seen["trail"] += 1
            continue
        if panel.get_by_text("Tie-break: you roll once").count():
            seen["tiebreak"] += 1
            with swapped(page):
                panel.get_by_role("button", name="Roll", exact=True).click()
            continue
        if panel.get_by_role("button", name="Roll", exact=True).count():
            expect(panel.locator("#rolls-left")).to_be_visible()
            with swapped(page):
                panel.get_by_role("button", name="Roll", exact=True).click()
            expect(panel.get_by_label("Your dice")).to_be_visible()
            continue
        step = panel.locator("input[name=step]").get_attribute("value")
        keep = panel.get_by_role("button", name="Keep")
        if step == "1" and keep.count():
            left = int(panel.locator("#rolls-left").inner_text())
            with swapped(page):
                keep.first.click()
            expect(panel.locator("#rolls-left")).to_have_text(str(left - 1))
            seen["keep"] += 1
            continue
        with swapped(page):
            panel.get_by_role("button", name="Stop with").click()
        seen["stop"] += 1
    else:
        raise AssertionError("the practice game did not end")
    assert seen["keep"] and seen["stop"] and seen["tiebreak"] and seen["next"] and seen["trail"], seen
    over = panel.locator("#practice-over")
    expect(over).to_contain_text("Game over. Ann wins with 0 points.")
    expect(over.get_by_role("link", name="Practice again")).to_be_visible()
    # the end screen's summary works like any game's; the games list shows it apart
    page.get_by_role("link", name="Summary of this game").click()
    expect(page.locator("main")).to_contain_text("Ann")
    page.goto(base + "/")
    expect(page.locator("ul.practice-games")).to_contain_text("won by Ann")
    expect(page.locator("ul.games:not(.practice-games)")).to_have_count(0)  # no real game yet
    expect(page.locator("main")).to_contain_text("No games yet")


def start_practice(page: Page, base: str, title: str, **fields) -> None:
    page.goto(base + "/games/new")
    page.get_by_role("link", name=f"Practice game: {title}").click()
    page.get_by_label("Your name").fill("Ann")
    for label, value in fields.items():
        page.get_by_label(label).fill(str(value))
    page.get_by_role("button", name="Start the practice game").click()
    page.wait_for_url(base + "/practice/*")


def tap(page: Page, button) -> None:
    with swapped(page):
        button.click()


def test_a_mia_practice_round_under_the_cup(page: Page, practice_server: str):
    base = practice_server
    register(page, base)
    start_practice(page, base, "Mia")
    panel = page.locator("#panel")
    expect(panel.locator("#who-starts")).to_contain_text("starts.")
    announced = False
    for _ in range(40):
        if panel.locator(".mia-news").count():
            break
        roll = panel.get_by_role("button", name="Roll under the cup")
        if panel.get_by_role("button", name="Next:").count():
            tap(page, panel.get_by_role("button", name="Next:"))
        elif panel.locator("#cup-value").count():  # rolled: the cup shows the dice to Ann only
            expect(panel.get_by_label("Your dice under the cup")).to_be_visible()
            truth = panel.locator(".mia-values button.truth")
            tap(page, truth if truth.count() else panel.locator(".mia-values button").first)
            announced = True
        elif announced and panel.get_by_role("button", name="Challenge: lift the cup").count():
            tap(page, panel.get_by_role("button", name="Challenge: lift the cup"))
        else:
            tap(page, roll)
    else:
        raise AssertionError("no challenge in 40 taps")
    assert announced
    news = panel.locator(".mia-news")
    expect(news).to_contain_text("the cup showed")
    expect(news).to_contain_text("loses 1 life")  # lifting the cup shows who lost lives
    expect(panel.locator("table.mia-scores")).to_contain_text("2 lives")


def test_a_mice_and_men_practice_round_to_its_showdown(page: Page, practice_server: str):
    base = practice_server
    register(page, base)
    start_practice(page, base, "Mice and Men", Rounds=1)
    panel = page.locator("#panel")
    expect(panel).to_contain_text("You open round 1")
    expect(panel.get_by_label("Your dice")).to_be_visible()
    score = panel.locator("#my-score").inner_text()
    tap(page, panel.get_by_role("button", name="4", exact=True))
    for _ in range(30):
        if panel.locator("#practice-over").count():
            break
        if panel.get_by_role("button", name="Next:").count():
            tap(page, panel.get_by_role("button", name="Next:"))
        else:
            tap(page, panel.get_by_role("button", name="Join the men"))
    else:
        raise AssertionError("the round did not end")
    expect(panel.locator("#practice-over")).to_contain_text("Game over after 1 round.")
    news = panel.locator("p.news")
    # with this seed Ann, Ben and Dan stay in: the showdown shows the dice rolled at the start
    expect(news).to_contain_text("Round 1 showdown at penalty")
    expect(news).to_contain_text(f"Ann {score}")
    expect(news).to_contain_text("takes the penalty")


def test_mice_and_men_practice_says_your_score_beside_or_under_the_dice(page: Page, practice_server: str):
    """On a 320 px phone in German, "dein Wurf 633 (für die anderen verdeckt)" was squeezed into a
    column of about 80 px beside the three dice, a word per line; it now goes under them when
    there is no room beside, and stays beside them on a 390 px phone."""
    base = practice_server
    register(page, base)
    start_practice(page, base, "Mice and Men", Rounds=1)
    game = page.url
    page.goto(base + "/settings")
    page.locator(".language-switch button[value=de]").click()
    page.wait_for_load_state()
    for width, beside in ((320, False), (390, True)):
        page.set_viewport_size({"width": width, "height": 740})
        page.goto(game)
        said = page.locator(".my-dice > span")
        expect(said).to_contain_text("für die anderen verdeckt")
        box, dice = said.bounding_box(), page.locator(".my-dice svg.die").last.bounding_box()
        assert box["width"] >= 140, (width, box)
        assert (box["x"] > dice["x"] + dice["width"] - 1) is beside, (width, box, dice)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_practice_pages_pass_axe_and_fit_a_phone(page: Page, practice_server: str, scheme: str):
    from .test_accessibility import assert_no_violations
    from .test_layout import LONG, fits, spills

    base = practice_server
    page.emulate_media(color_scheme=scheme)
    register(page, base)
    page.goto(base + "/practice/strategies")
    assert_no_violations(page, "strategies")
    for title, label in (("Mitchi", "Point limit"), ("Mia", "Lives"), ("Mice and Men", "Rounds")):
        page.goto(base + "/games/new")
        page.get_by_role("link", name=f"Practice game: {title}").click()
        page.wait_for_url("**/practice/**")
        page.wait_for_load_state("load")  # axe on a page still being replaced fails on a null document
        assert_no_violations(page, f"{title} practice setup")
        page.get_by_label("Your name").fill(LONG)
        page.get_by_role("button", name="Start the practice game").click()
        page.wait_for_url(base + "/practice/*")
        panel = page.locator("#panel")
        for step in range(6):  # the first screens: Next taps, a roll, the choices after it
            # the last move's rolls fade in one after another: check the screen once they are in
            page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
            assert_no_violations(page, f"{title} practice, screen {step}")
            assert fits(page), (title, step, spills(page))
            if panel.get_by_role("button", name="Next:").count():
                tap(page, panel.get_by_role("button", name="Next:"))
            elif panel.get_by_role("button", name="Roll", exact=False).count():
                tap(page, panel.get_by_role("button", name="Roll", exact=False).first)
            else:
                break
    page.goto(base + "/")
    assert_no_violations(page, "games list with practice games")


def test_a_practice_move_without_connection_says_nothing_of_picked_dice(page: Page, practice_server: str):
    """A practice page has no dice to pick: a move sent with no connection says that nothing
    changed, not that "dice you picked stay picked" (found by a review)."""
    base = practice_server
    register(page, base)
    page.goto(base + "/practice/new/mitchi")
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Start the practice game").click()
    page.wait_for_url(base + "/practice/*")
    panel = page.locator("#panel")
    button = panel.get_by_role("button", name="Next:").or_(panel.get_by_role("button", name="Roll")).first
    expect(button).to_be_visible()
    page.wait_for_timeout(700)  # past the guard against taps as the screen changes
    page.context.set_offline(True)
    button.click()
    note = page.locator("[role=alert]", has_text="No answer").first
    expect(note).to_contain_text("No answer: no connection, so nothing changed on this page")
    assert "picked" not in note.inner_text()
    page.context.set_offline(False)
