"""Real-browser fixtures: the app served from a thread, Debian's Chromium at Pixel 7 size.

``playwright install`` cannot download browsers here, so Playwright drives
``/usr/bin/chromium`` (override with ``CHROMIUM``). CSRF stays on: the browser
sends real forms and htmx requests.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import pytest
from werkzeug.serving import make_server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (tests/run.sh does it)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, playwright):
    return {**browser_context_args, **playwright.devices["Pixel 7"]}


@contextmanager
def serving(app):
    """``app`` on a real port, from a thread, while the block runs; gives its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)
        app.extensions["scorekeeper.engine"].dispose()


@pytest.fixture
def live_server(make_app):
    """The app on a real port; yields its base URL."""
    with serving(make_app(WTF_CSRF_ENABLED=True)) as base:
        yield base


@pytest.fixture
def page(page):
    page.set_default_timeout(10_000)
    return page


def register(page, base: str, name: str = "ann", password: str = "correct horse") -> None:
    """Make an account through the real form."""
    page.goto(base + "/register")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password again").fill(password)
    page.get_by_role("button", name="Register").click()
    page.wait_for_url(base + "/")


def set_up(page, base: str, game: str, players: list[str], starter: int | None = 0, **options) -> None:
    """Fill the setup form of ``game`` and start it."""
    page.goto(f"{base}/games/new/{game}")
    seats = page.locator(".seat")
    while (count := seats.count()) < len(players):
        page.get_by_role("button", name="Add a seat").click()  # answered in place (htmx): wait for it
        page.wait_for_function("n => document.querySelectorAll('.seat').length > n", arg=count)
    for i, name in enumerate(players):
        page.get_by_label(f"Name in seat {i + 1}", exact=True).fill(name)
    if starter is None:
        page.get_by_label("Roll for who starts", exact=False).check()
    else:
        seats.nth(starter).get_by_label("starts").check()
    for key, value in options.items():
        field = page.locator(f"[name=opt_{key}]")
        if field.first.get_attribute("type") == "radio":  # a choice ("order": "sum")
            page.locator(f"[name=opt_{key}][value='{value}']").check()
        elif field.first.get_attribute("type") == "checkbox":  # on or off ("mia_reverses": True)
            field.first.set_checked(bool(value))
        else:
            field.fill(str(value))
    page.get_by_role("button", name="Start the game", exact=True).last.click()
    page.wait_for_url(f"{base}/games/*")


def wait_until(page, script: str, timeout: float = 10.0) -> None:
    """Until the page's async ``script`` (a function returning a promise) resolves to a true value;
    raises AssertionError after ``timeout`` seconds. ``page.wait_for_function`` cannot do this: it
    takes the promise itself (an object, so true) for the answer, and a wait on
    ``async () => false`` returns at once."""
    import time

    deadline = time.monotonic() + timeout
    while not page.evaluate(script):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {script}")
        page.wait_for_timeout(100)


def wait_for_control(page) -> None:
    """Until a service worker controls the page: once the worker is active, a page that still has
    none is loaded again. A page whose load began while the worker was activating is not among the
    clients its ``clients.claim()`` takes, and stays without one until the next load (CI: the page
    after registering, uncontrolled for 10 s). A function, not an expression: Playwright polls an
    expression with eval(), which the pages' Content-Security-Policy refuses."""
    wait_until(page, "() => navigator.serviceWorker.getRegistration().then(r => !!(r && r.active))")
    try:
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=3000)
    except Exception:
        page.reload()
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")


@contextmanager
def swapped(page):
    """Wait, after the action in the block, until htmx has swapped in the new panel.

    Waiting for the response alone is not enough: the next tap could land on the
    old panel in the instant before the swap.
    """
    page.evaluate("() => { const p = document.querySelector('#panel'); if (p) p.dataset.old = '1'; }")
    yield
    page.wait_for_function("() => { const p = document.querySelector('#panel'); return p && !p.dataset.old; }")
