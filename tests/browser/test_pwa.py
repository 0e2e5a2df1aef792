"""The installable app in a real browser: manifest, service worker, offline."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from .conftest import register, set_up


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


def wait_for_control(page: Page) -> None:
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")


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
    expect(page.get_by_role("alert")).to_contain_text("No answer: no connection. Tap again to send the entry; dice you picked stay picked")
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
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
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


def test_logging_out_forgets_the_kept_pages(page: Page, live_server: str):
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.wait_for_function("caches.open('pages-v1').then(c => c.keys()).then(k => k.length > 0)")
    page.goto(base + "/settings")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(base + "/login")
    page.wait_for_function("caches.keys().then(k => !k.includes('pages-v1'))")


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
