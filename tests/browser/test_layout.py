"""Nothing is wider than the phone: long names wrap, on every page that shows them."""

from __future__ import annotations

from playwright.sync_api import Page

from .conftest import register, set_up

LONG = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40 letters, no space
HYPHENATED = "Bartholomew-Maximilian-Fitzgerald-Smythe"


def spills(page: Page) -> list[str]:
    return page.evaluate("""width => [...document.querySelectorAll('main *')]
        .filter(e => e.getClientRects().length && !e.closest('.sr-only') && !(e instanceof SVGElement))
        .filter(e => !(e.getBoundingClientRect().right <= width + 1
                    && (e.clientWidth === 0 || e.scrollWidth <= e.clientWidth + 1)))
        .map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + (e.textContent || '').trim().slice(0, 40) + ' sw=' + e.scrollWidth + ' cw=' + e.clientWidth)""",
        page.viewport_size["width"])


def fits(page: Page) -> bool:
    """No visible element reaches past the right edge of the screen, and no text spills out
    of its box (a long name in a button or a table cell). The screen is the phone's width: a
    page wider than it widens a phone's layout viewport (``window.innerWidth``) with it."""
    return page.evaluate("""width => document.documentElement.scrollWidth <= width + 1
        && [...document.querySelectorAll('main *')]
        .filter(e => e.getClientRects().length && !e.closest('.sr-only') && !(e instanceof SVGElement))
        .every(e => e.getBoundingClientRect().right <= width + 1
                    && (e.clientWidth === 0 || e.scrollWidth <= e.clientWidth + 1))""", page.viewport_size["width"])


def test_long_names_never_widen_the_page(page: Page, live_server: str):
    base = live_server
    register(page, base)
    for game, players in (("mia", [LONG, HYPHENATED, "Cat"]),
                          ("mitchi", [LONG, HYPHENATED]),
                          ("mice-and-men", [LONG, HYPHENATED, "Cat", "Dan"])):
        set_up(page, base, game, players, starter=0)
        assert fits(page), (f"{game} game page", spills(page))
        # "· starter", "· opener" beside the wrapped name: one piece, not a lone dot (a playtest)
        marks = page.evaluate("""[...document.querySelectorAll('table.scores th small')]
            .map(s => [s.textContent, s.getClientRects().length])""")
        assert marks and all(lines == 1 for _, lines in marks), (game, marks)
        if game == "mia":  # quick entry: whose cup, a name to tap
            page.goto(page.url + "?mode=quick")
            assert page.locator(".choices.names a").count() == 3
            assert fits(page), ("mia quick entry", spills(page))
            page.goto(page.url.split("?")[0])
        game_url = page.url
        for path in ("/summary", "/log"):
            page.goto(game_url + path)
            assert fits(page), f"{game} {path}"
        page.goto(f"{base}/games/new/{game}")  # the known players' buttons
        assert fits(page), f"{game} setup"
    for path in ("/", "/players", "/players/1", "/rules/mia"):
        page.goto(base + path)
        assert fits(page), (path, spills(page))
    # Small phone too.
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(base + "/games/new/mitchi")
    assert fits(page)


def test_a_field_error_is_one_box_however_long(page: Page, live_server: str):
    """A field's error (a weak password's explanation wraps over lines on a phone) is one box,
    not a frame drawn around each line through the text."""
    page.goto(live_server + "/register")
    page.get_by_label("Name").fill("layoutcheck")
    page.get_by_label("Password", exact=True).fill("password")
    page.get_by_label("Password again").fill("password")
    page.get_by_role("button", name="Register").click()
    error = page.locator(".msg.error").first
    assert error.is_visible()
    lines = page.evaluate("() => document.querySelector('.msg.error').getClientRects().length")
    height = error.bounding_box()["height"]
    assert lines == 1 and height > 40, (lines, height)  # one box, several lines of text high


def test_the_language_in_use_looks_unlike_the_other(page: Page, live_server: str):
    """The language switch marks the language in use (aria-pressed) and draws it apart."""
    page.goto(live_server + "/login")
    now, other = page.locator(".language-switch button[aria-pressed=true]"), page.locator(
        ".language-switch button:not([aria-pressed])")
    assert now.inner_text() == "English" and other.inner_text() == "Deutsch"
    look = "e => getComputedStyle(e).backgroundColor + ' ' + getComputedStyle(e).color"
    assert now.evaluate(look) != other.evaluate(look)
    # The one in use is the filled one, ticked; the other is an outline.
    fill = "e => getComputedStyle(e).backgroundColor"
    assert other.evaluate(fill) == page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert now.evaluate("e => getComputedStyle(e, '::before').content") == '"\u2713\u00a0"'



WIDE = "W" * 40  # the widest 40 letters a name can have


def test_a_long_name_never_hides_its_score_and_the_table_screen_fits_a_phone(page: Page, live_server: str):
    """The standings strip cuts a long name short, never the score after it; the table screen
    (made for a tablet in landscape) opened on a phone held upright is the plain live view."""
    base = live_server
    register(page, base, "widename")
    for game, players in (("mitchi", [WIDE, "Ben"]), ("mia", [WIDE, "Ben", "Cat"]),
                          ("mice-and-men", [WIDE, "Ben", "Cat", "Dan"])):
        set_up(page, base, game, players, starter=0)
        chip = page.locator(".strip > span:not(.sr-only)").first
        score = chip.locator("> b")
        box, inner = chip.bounding_box(), score.bounding_box()
        assert inner["width"] > 5 and inner["x"] + inner["width"] <= box["x"] + box["width"] + 1, (game, box, inner)
        assert box["x"] + box["width"] <= page.viewport_size["width"] + 1, (game, box)
        assert score.evaluate("e => e.scrollWidth <= e.clientWidth + 1 || e.clientWidth === 0"), game
    page.get_by_role("link", name="Show to the table").click()
    page.get_by_role("button", name="Turn on the live link").click()
    screen = page.locator("a", has_text="Table screen").first.get_attribute("href")
    for link in (screen, screen.split("?")[0]):  # the table screen, and the plain live view
        page.goto(link)
        assert page.locator(".live-now").is_visible()
        assert fits(page), (link, spills(page))
    # On the tablet or TV it is made for, and on a phone turned sideways, the long name breaks.
    for size in ({"width": 1280, "height": 720}, {"width": 844, "height": 390}):
        page.set_viewport_size(size)
        page.goto(screen)
        assert fits(page), (size, spills(page))


SPACED = "Maximilian Alexander von Hohenzollern"  # words that each fit a phone's row

#: The words in the elements ``sel`` finds that a line break cuts, other than after a soft hyphen
#: (one letter at a time: where the next letter starts a new line, the one before must be U+00AD).
BROKEN_WORDS = """sel => [...document.querySelectorAll(sel)].flatMap(b => {
    const out = [], walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT), r = document.createRange();
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (const m of n.data.matchAll(/\\S+/g)) {
            let top = null;
            for (let i = 0; i < m[0].length; i++) {
                r.setStart(n, m.index + i); r.setEnd(n, m.index + i + 1);
                const boxes = r.getClientRects();
                if (!boxes.length) continue;
                const here = boxes[boxes.length - 1].top;
                if (top !== null && Math.abs(here - top) > 1 && m[0][i - 1] !== '\\u00ad') { out.push(m[0]); break; }
                top = here;
            }
        }
    }
    return out;
})"""


def test_a_long_name_to_tap_breaks_between_its_words_not_inside_them(page: Page, live_server: str):
    base = live_server
    register(page, base, "spaced")
    for game, players, buttons in (("mia", [SPACED, "Ben", "Cat"], ".choices.names button"),
                                   ("mitchi", [SPACED, "Ben", "Cat", "Dan"], ".choices.names button")):
        set_up(page, base, game, players, starter=None)
        names = page.locator(buttons)
        assert names.count() == len(players), game
        assert page.evaluate(BROKEN_WORDS, buttons) == [], game
        assert fits(page), (game, spills(page))
        # the short names still share a row
        tops = [names.nth(i).bounding_box()["y"] for i in range(1, len(players))]
        assert len(set(tops)) == 1, (game, tops)


def test_the_panel_starts_under_the_title_edge_to_edge(page: Page, live_server: str):
    """On a phone the game's panel follows its title closely and takes the page's whole width:
    the dice and "in 1 / in 2 / in 3" come up and each die is wider (simple.css's padding of a
    section, 2rem by 1rem, pushed them 50 px down and narrowed them)."""
    base = live_server
    register(page, base)
    page.set_viewport_size({"width": 390, "height": 844})
    set_up(page, base, "mitchi", ["Ann", "Ben", "Cat"], starter=0)
    box = page.evaluate("""() => { const t = document.querySelector('main > h1').getBoundingClientRect(),
        m = document.querySelector('main').getBoundingClientRect(),
        g = document.querySelector('#panel .glance').getBoundingClientRect();
        return {gap: g.top - t.bottom, left: g.left - m.left, right: m.right - g.right}; }""")
    assert box["gap"] < 30, box
    assert box["left"] < 2 and box["right"] < 2, box
    assert page.get_by_role("button", name="in 3").bounding_box()["y"] + 48 < 844  # in view, unscrolled


def test_every_game_page_fits_a_320_px_phone(page: Page, live_server: str):
    """The die faces (six in a row) and the Mice and Men showdown fit the smallest phones too
    (found by a review: at 320 px the six faces took 352 px and the page scrolled sideways)."""
    base = live_server
    register(page, base)
    page.set_viewport_size({"width": 320, "height": 640})
    for game, players in (("mitchi", ["Ann", "Ben", "Cat"]), ("mia", ["Ann", "Ben", "Cat"]),
                          ("mice-and-men", ["Ann", "Ben", "Cat", "Dan"])):
        set_up(page, base, game, players, starter=0)
        assert fits(page), (game, spills(page))


def test_mia_in_german_fits_a_320_px_phone(page: Page, live_server: str):
    """In German, "Mäxchen" (Mia's last value) is wider than a quarter of a 320 px phone: it ran
    past its button's borders; it now takes two columns. "im Uhrzeigersinn" broke inside the word
    with no hyphen ("Uhrzeigersin / n"); it holds a soft hyphen (found by a review)."""
    base = live_server
    register(page, base, "klein")
    page.set_viewport_size({"width": 320, "height": 640})
    set_up(page, base, "mia", ["Zoë", "Ben", "Cat"], starter=0)
    game = page.url
    page.goto(base + "/settings")
    page.locator(".language-switch button[value=de]").click()
    page.wait_for_load_state()
    page.goto(game)
    mia = page.locator(".mia-values button.mia")
    assert mia.inner_text().strip() == "Mäxchen"
    assert mia.evaluate("b => b.scrollWidth <= b.clientWidth"), "Mäxchen runs past its button"
    assert fits(page), spills(page)
    assert "Uhrzeiger\u00adsinn" in page.locator(".glance").inner_text()
    assert page.evaluate(BROKEN_WORDS, ".glance dd") == []


def test_mia_in_the_sum_order_keeps_each_values_digits_together_at_320_px(page: Page, live_server: str):
    """The sum order's buttons ("31 (sum 4)", four across) broke the value's two digits one over
    the other at 320 px ("3" over "1", misread at the table; found by a review), in English and
    German. The value stays on one line, the sum under it, inside the button."""
    base = live_server
    register(page, base, "summen")
    page.set_viewport_size({"width": 320, "height": 640})
    set_up(page, base, "mia", ["Ann", "Ben", "Cat"], starter=0, order="sum")
    game = page.url
    lines = """() => [...document.querySelectorAll('#panel .mia-values button')].map(b => {
        const text = [...b.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
        const range = document.createRange(); range.selectNodeContents(text);
        return [text.textContent.trim(), range.getClientRects().length];
    }).filter(([, n]) => n !== 1)"""
    for language, code in (("English", "en"), ("Deutsch", "de")):
        page.goto(base + "/settings")
        page.locator(f".language-switch button[value={code}]").click()
        page.wait_for_load_state()
        page.goto(game)
        assert page.locator("#panel .mia-values button small").count() == 14, language  # 21 values, 6 doubles and Mia
        assert page.evaluate(lines) == [], language
        assert fits(page), (language, spills(page))


#: Names of usual length, longer than "Ann" (found by a review: "Annemar / ie" in German at 320 px).
USUAL = ["Annemarie", "Bernhard", "Christoph", "Dorothea"]


def test_usual_names_stay_whole_in_the_scores_table_in_german_at_320_px(page: Page, live_server: str):
    """German's longer column heads ("Strafpunkte") left a name 80 px at 320 px, which broke
    names of nine letters inside the word in every game's scores table. Whole now, and the
    page still fits."""
    base = live_server
    register(page, base, "schmal")
    page.goto(base + "/settings")
    page.locator(".language-switch button[value=de]").click()
    page.wait_for_load_state()
    page.set_viewport_size({"width": 320, "height": 640})
    for game, players in (("mitchi", USUAL[:3]), ("mia", USUAL[:3]), ("mice-and-men", USUAL)):
        set_up_german(page, base, game, players)
        assert page.locator("table.scores .name").count() == len(players), game
        assert page.evaluate(BROKEN_WORDS, "table.scores .name") == [], game
        assert fits(page), (game, spills(page))
    # Mitchi's and Mia's tables have no "Strafpunkte": a twelve-letter name is whole there too, on
    # the game page and on the live view ("Hohenzolle/rn", "Kunigund/e"; a second review), and
    # long names still fit at 320 and 390 px.
    for game, players in (("mitchi", ["Kunigunde", "Hohenzollern"]), ("mia", ["Kunigunde", "Hohenzollern", "Ben"])):
        set_up_german(page, base, game, players)
        assert page.evaluate(BROKEN_WORDS, "table.scores .name") == [], game
        page.goto(page.url.split("?")[0] + "/table")  # "Show to the table"
        page.locator("form[action$='/live'] button").first.click()
        page.wait_for_load_state()
        page.goto(page.locator("a.live-link").get_attribute("href"))  # the live view (larger type)
        assert page.locator("table.scores .name").count() == len(players), game
        # every name, "Hohenzollern" too (it broke at 320 px in the live view's larger type; a review)
        assert page.evaluate(BROKEN_WORDS, "table.scores .name") == [], (game, "live")
        assert fits(page), (game, "live", spills(page))
    for game in ("mitchi", "mia"):
        set_up_german(page, base, game, ["Maximilianefriederike", "Bartholomäus-Konstantin", "Hannelorewilhelmine"])
        for width in (320, 390):
            page.set_viewport_size({"width": width, "height": 640})
            page.reload()
            assert fits(page), (game, width, spills(page))
        page.set_viewport_size({"width": 320, "height": 640})


def set_up_german(page: Page, base: str, game: str, players: list[str]) -> None:
    """:func:`set_up` on the German setup form (its labels in German), the first seat starting."""
    page.goto(f"{base}/games/new/{game}")
    seats = page.locator(".seat")
    while (count := seats.count()) < len(players):
        page.locator("button[name=action][value=add]").click()
        page.wait_for_function("n => document.querySelectorAll('.seat').length > n", arg=count)
    for i, name in enumerate(players):
        seats.nth(i).locator("input[type=text]").fill(name)
    seats.nth(0).locator("input[name=starter]").check()
    page.locator("button[name=action][value=create]").last.click()
    page.wait_for_url(f"{base}/games/*")


def test_the_header_is_one_row_on_a_phone(page: Page, live_server: str):
    """Games, New game, Players, Account and the group's name share one row on a 390 px phone, in
    English and German: they took two (117 px of every screen; found by a review), which put the
    other phone's buttons below the screen at a round's end. A long group name is cut short with
    "…", down to a 360 px phone, rather than taking a second row."""
    base = live_server
    register(page, base, "header")
    for language in ("en", "de"):
        if language == "de":
            page.goto(base + "/settings")
            page.locator(".language-switch button[value=de]").click()
            page.wait_for_load_state()
        for group in ("header", "Stammtisch am Freitag"):
            page.goto(base + "/groups")
            page.locator("#group-name").fill(group)
            page.locator("form[action*='/groups/rename'] button").click()
            page.wait_for_load_state()
            for width in (390, 360):
                page.set_viewport_size({"width": width, "height": 844})
                page.goto(base + "/")
                links = page.locator("body > header nav a")
                tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
                assert links.count() == 5 and len(tops) == 1, (language, group, width, tops)
                assert page.locator("body > header").bounding_box()["height"] < 70
                assert fits(page), spills(page)
                name = page.locator("body > header .group-name")
                assert name.evaluate("e => e.scrollWidth > e.clientWidth") == (len(group) > 10), (group, width)
                assert name.bounding_box()["x"] + name.bounding_box()["width"] <= width


def test_the_players_table_breaks_names_between_words_at_320_px(page: Page, live_server: str):
    """The players page at 320 px broke "Wolfgang Amadeus" as "Wolfga/ng Amade/us" (a review):
    a name's words are whole there now, in English and in German, and the page fits."""
    base = live_server
    register(page, base, "spieler")
    page.set_viewport_size({"width": 320, "height": 640})
    set_up(page, base, "mitchi", ["Wolfgang Amadeus Theophilus Mozart", "Annemarie", "Christoph"], starter=0)
    for language in ("en", "de"):
        page.goto(base + "/settings")
        page.locator(f".language-switch button[value={language}]").click()
        page.wait_for_load_state()
        page.goto(base + "/players")
        assert page.locator("table.scores tbody a").count() == 3, language
        assert page.evaluate(BROKEN_WORDS, "table.scores tbody a") == [], language
        assert fits(page), (language, spills(page))
