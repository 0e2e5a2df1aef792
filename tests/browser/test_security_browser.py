"""Security in a real browser: a stale CSRF token is renewed once; the service worker never
handles a POST."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import register, set_up, swapped, wait_for_control, wait_until


def test_first_tap_after_the_session_ended_is_recorded_once(page: Page, live_server: str):
    """The page holds the token of a session that has ended (the session cookie is gone, the
    "stay logged in" cookie kept, as after reopening the installed app): the tap is recorded."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    assert {c["name"] for c in page.context.cookies()} >= {"session", "remember_token"}
    page.context.clear_cookies(name="session")

    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    with swapped(page):
        page.get_by_role("button", name="in 2", exact=True).click()
    panel = page.locator("#panel")
    expect(panel).to_contain_text("Ben's turn")
    expect(panel).to_contain_text("Ann: 6-3 in 2")
    expect(page.locator("#messages")).not_to_contain_text("security token")
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"]
    assert len(posts) == 2  # the refused one and the one sent again

    # The next tap goes through at once with the fresh token.
    page.locator("fieldset", has_text="First die").locator("label").nth(0).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(1).click()
    with swapped(page):
        page.get_by_role("button", name="in 1", exact=True).click()
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn", "turn"]
    assert len(posts) == 3


def test_a_forged_token_is_sent_again_only_once(page: Page, live_server: str):
    """If the fresh token is refused too, the refusal shows: no loop."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    page.route("**/csrf-token", lambda route: route.fulfill(json={"token": "forged"}))
    page.context.clear_cookies(name="session")
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    page.get_by_role("button", name="in 2", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("security token")
    page.wait_for_timeout(300)
    assert len(posts) == 2
    expect(page.locator("#panel")).to_contain_text("Ann's turn")


def test_the_service_worker_never_handles_a_post(page: Page, live_server: str):
    """Form posts (a whole-page navigation) go to the network from the page, never through the
    service worker's fetch handler, which could answer them from a cache or send them again."""
    base = live_server
    register(page, base)
    page.goto(base + "/settings")
    wait_for_control(page)
    page.reload()
    with page.expect_response(lambda r: r.request.method == "GET" and r.url == base + "/settings") as got:
        page.reload()
    assert got.value.from_service_worker  # the page's GET is the worker's (so it is active)
    page.locator("#timezone").select_option("Europe/Berlin")
    with page.expect_response(lambda r: r.request.method == "POST") as got:
        page.get_by_role("button", name="Save").click()
    assert not got.value.from_service_worker
    expect(page.locator("#messages")).to_contain_text("Europe/Berlin")


def test_page_reopened_offline_then_tapped_online_records_the_entry(page: Page, live_server: str):
    """As a new user would: the installed app reopened with no connection (the session cookie gone,
    the "stay logged in" cookie kept) shows the kept page; the connection comes back; the first tap
    records the entry, once."""
    base = live_server
    register(page, base)
    set_up(page, base, "mitchi", ["Ann", "Ben"], starter=0)
    game_url = page.url
    wait_for_control(page)
    page.reload()
    wait_until(page, "() => caches.open('pages-v1').then(c => c.match(location.href)).then(Boolean)")
    page.context.set_offline(True)
    page.context.clear_cookies(name="session")
    page.goto(game_url)
    expect(page.locator("#offline")).to_be_visible()
    page.context.set_offline(False)
    page.locator("fieldset", has_text="First die").locator("label").nth(5).click()
    page.locator("fieldset", has_text="Second die").locator("label").nth(2).click()
    with swapped(page):
        page.get_by_role("button", name="in 2", exact=True).click()
    expect(page.locator("#panel")).to_contain_text("Ben's turn")
    # The server's answer ends the kept copy's "Offline" (the browser may never say 'online'): the
    # bar is gone or says "Back online" (which of the two depends on where the page is scrolled).
    expect(page.locator("#offline", has_text="Offline:")).to_be_hidden()
    record = page.request.get(game_url + "/record.json").json()
    assert [e["type"] for e in record["entries"]] == ["start", "turn"]
