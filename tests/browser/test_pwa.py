"""The installable app in a real browser: manifest, service worker, offline."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from playwright.sync_api import Page, expect

from .conftest import register, serving, set_up, wait_for_control, wait_until


def test_manifest_is_valid_and_icons_load(page: Page, live_server: str):
    page.goto(live_server + "/login")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    r = page.request.get(live_server + href)
    assert r.ok and r.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(r.text())
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["name"] and manifest["short_name"]
    assert manifest["theme_color"] and manifest["background_color"]
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert ("192x192", "any") in sizes and ("512x512", "any") in sizes and ("512x512", "maskable") in sizes
    for icon in manifest["icons"]:
        got = page.request.get(live_server + icon["src"])
        assert got.ok, icon
        if icon["type"] == "image/png":
            body = got.body()
            assert body[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]


def test_service_worker_controls_and_visited_page_opens_offline(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    wait_for_control(page)
    page.reload()  # this visit, under the service worker, is kept
    expect(page.locator("#panel")).to_contain_text("Ann's turn")

    page.context.set_offline(True)
    banner = page.locator("#offline")
    page.goto(game_url)
    expect(page.locator("#panel")).to_contain_text("Ann's turn")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Offline")

    # An entry that cannot be sent says so, and stays selected to send again.
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    page.get_by_role("button", name="in 2", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text(
        "No answer: no connection. Tap again to send the entry once the connection is back (if it did arrive, it "
        "still counts once). What you picked stays picked.")
    expect(page.locator("input[name='hand.0'][value='6']")).to_be_checked()

    # A page never visited shows the offline fallback page.
    page.goto(base + "/games/new/mia")
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()

    # Back online: the kept entry is sent with one more tap, exactly once.
    page.context.set_offline(False)
    page.goto(game_url)
    expect(banner).to_be_hidden()
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.get_by_role("button", name="in 2", exact=True).click()
    expect(page.locator("#panel")).to_contain_text("Ben's turn")
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"]


def test_the_offline_page_speaks_the_language_switched_to(page: Page, make_app):
    """The offline page was kept once, at install, in the language of that moment: after a
    switch to German a page never visited showed "No connection" in English (left alone
    before). A page that comes in another language has the offline page fetched again, once:
    pages in the language it has fetch nothing more."""
    from flask import request

    app = make_app(WTF_CSRF_ENABLED=True)
    fetched = []
    app.before_request(lambda: fetched.append(1) if request.path == "/offline" else None)
    with serving(app) as base:
        offline_page_in_german(page, base, fetched)


def test_two_pages_in_the_new_language_fetch_the_offline_page_once(page: Page, make_app):
    """The offline page in the new language is slow to come (1.5 s here): a second page in that
    language, come meanwhile, waits for that request instead of sending a second one (before, each
    page that found the kept copy still in the old language sent its own)."""
    from flask import request

    app = make_app(WTF_CSRF_ENABLED=True)
    fetched = []

    @app.before_request
    def count_and_slow_the_offline_page():
        if request.path == "/offline":
            fetched.append(1)
            if len(fetched) > 1:  # not the one fetched at install
                time.sleep(1.5)

    with serving(app) as base:
        switch_to_german(page, base, "langsam")  # the settings page, then the history page, in German
        wait_for_german_offline_page(page)
        page.wait_for_timeout(2_000)  # a second request, held by the browser until the first is done
        assert len(fetched) == 2  # at install, then once in German


def wait_for_german_offline_page(page: Page) -> None:
    """Until the offline page kept on the phone is the German one (its <html lang>: the English
    one names German too, on its language switch)."""
    wait_until(page, """async () => {
        for (const key of await caches.keys()) {
            const hit = await (await caches.open(key)).match('/offline');
            if (hit && /<html[^>]*\\slang="de"/.test(await hit.text())) return true;
        }
        return false;
    }""", timeout=15)


def switch_to_german(page: Page, base: str, name: str) -> None:
    """A new account ``name`` switches to German on the settings page (which comes back in German),
    then opens its history: two pages in German, from the network, under the service worker."""
    register(page, base, name)
    wait_for_control(page)
    page.goto(base + "/settings")
    page.locator(".language-switch button[value=de]").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto(base + "/history")
    expect(page.locator("html")).to_have_attribute("lang", "de")


def offline_page_in_german(page: Page, base: str, fetched: list) -> None:
    switch_to_german(page, base, "sprache")
    wait_for_german_offline_page(page)
    assert len(fetched) == 2  # at install, then once in German
    for path in ("/", "/players", "/history"):
        page.goto(base + path)
    page.wait_for_timeout(300)
    assert len(fetched) == 2
    page.context.set_offline(True)
    page.goto(base + "/games/new/mia")
    expect(page.get_by_role("heading", name="Keine Verbindung")).to_be_visible()
    page.context.set_offline(False)


def test_posts_are_never_served_from_cache(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    wait_for_control(page)
    page.reload()
    page.context.set_offline(True)
    status = page.evaluate(
        """() => fetch(location.pathname + '/undo', {method: 'POST'}).then(r => r.status, () => 'failed')"""
    )
    assert status == "failed"


def test_offline_copy_follows_the_entries_made_on_the_page(page: Page, live_server: str):
    """The kept copy is the page as it stands after the last entry, not as first loaded."""
    from .conftest import swapped

    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    wait_for_control(page)
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    with swapped(page):
        page.get_by_role("button", name="in 2", exact=True).click()
    expect(page.locator("#panel")).to_contain_text("Ben's turn")
    page.wait_for_timeout(300)  # the copy is written after the swap settles

    page.context.set_offline(True)
    page.goto(game_url)
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator("#offline")).to_contain_text("as last seen at")
    expect(page.locator("#panel")).to_contain_text("Ben's turn")
    expect(page.locator("#panel")).to_contain_text("Ann: 6-3 in 2")


@pytest.fixture
def hanging_server(make_app):
    """The app on a real port whose game pages (a page load, not htmx) wait while ``hang`` is set
    (a connection that connects but does not answer), until ``release``: ``(base, hang, release,
    seen)``, ``seen`` counting the loads held. Playwright's request routing cannot stand in for
    it: Chromium then bypasses the service worker."""
    app = make_app(WTF_CSRF_ENABLED=True)
    hang, release, seen = threading.Event(), threading.Event(), []
    inner = app.wsgi_app

    def wsgi(environ, start_response):
        if (hang.is_set() and environ["REQUEST_METHOD"] == "GET" and "HTTP_HX_REQUEST" not in environ
                and re.fullmatch(r"/games/\d+", environ["PATH_INFO"])):
            seen.append(environ["PATH_INFO"])
            release.wait(30)
        return inner(environ, start_response)

    app.wsgi_app = wsgi
    with serving(app) as base:
        try:
            yield base, hang, release, seen
        finally:
            release.set()  # a held load ends before the server does


def test_a_page_load_that_never_answers_shows_the_kept_copy_which_the_poll_brings_up_to_date(
        page: Page, hanging_server):
    """A connection that connects but never answers (a weak signal): the service worker waited
    for the network without end, and the game never opened (found by a review). After a few
    seconds it shows the copy kept on the phone; the live poll, once answered, brings the
    other phone's entry."""
    base, hang, release, seen = hanging_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    wait_for_control(page)
    page.reload()  # kept under the service worker
    expect(page.locator("#panel")).to_contain_text("Ann's turn")
    token = page.locator("form.entry input[name=csrf_token]").input_value()
    version = page.locator("#panel").get_attribute("data-version")
    hang.set()
    started = time.monotonic()
    page.goto(game_url, wait_until="commit", timeout=20000)  # without the kept copy: no page for 30 s
    expect(page.locator("#panel")).to_contain_text("Ann's turn", timeout=15000)
    assert seen and time.monotonic() - started >= 4, "the network was asked first, and given its time"
    # Another phone enters Ann's turn; this page's poll (htmx) is answered, the page load is not.
    r = page.request.post(game_url + "/entries", form={"csrf_token": token, "version": version, "type": "turn",
                                                       "player": "Ann", "hand.0": "6", "hand.1": "3", "rolls": "2"},
                          headers={"HX-Request": "true"})
    assert r.ok, r.text()[:300]
    expect(page.locator("#panel")).to_contain_text("Ben's turn", timeout=10000)
    release.set()


def test_logging_out_forgets_the_kept_pages(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    wait_for_control(page)
    wait_until(page, "() => caches.open('pages-v1').then(c => c.keys()).then(k => k.length > 0)")
    page.goto(base + "/settings")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(base + "/login")
    wait_until(page, "() => caches.keys().then(k => !k.includes('pages-v1'))")


def test_a_download_opened_by_a_link_is_not_kept_on_the_phone(page: Page, live_server: str):
    """"Export all games" is a plain link: the service worker kept the zip with the pages (found by
    a review), on the phone until the next logout. Only pages are kept."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    wait_for_control(page)
    page.goto(base + "/settings")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export all games").click()
    assert download.value.suggested_filename.endswith(".zip")
    page.wait_for_timeout(500)
    kept = page.evaluate("caches.open('pages-v1').then(c => c.keys()).then(k => k.map(r => r.url))")
    assert any(url.endswith("/settings") for url in kept), kept  # the pages are kept
    assert not any("export" in url for url in kept), kept
