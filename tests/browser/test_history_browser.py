"""Past games on a phone-sized Chromium: the history, a summary and its chart."""

from __future__ import annotations

import json
import os
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import register

RECORDS = Path(__file__).parent.parent / "records"


def test_history_summary_and_chart_on_a_phone(page: Page, live_server: str, tmp_path):
    base = live_server
    register(page, base)
    doc = json.loads((RECORDS / "mitchi/mitchi-11-zero-point-winner.json").read_text())["record"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    page.goto(base + "/import")
    page.get_by_label("Game records").set_input_files(str(path))
    page.get_by_role("button", name="Load the games").click()
    page.wait_for_url(f"{base}/games/*/summary")

    page.goto(base + "/")
    expect(page.get_by_text("won by Cat")).to_be_visible()
    page.get_by_role("link", name="Mitchi").first.click()
    page.wait_for_url(f"{base}/games/*/summary")
    expect(page.get_by_text("Winner: Cat")).to_be_visible()
    expect(page.get_by_role("heading", name="Round by round")).to_be_visible()

    chart = page.get_by_role("img", name="Line chart")
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    # The SVG loaded (natural size from its viewBox) and fits the phone's width.
    assert page.evaluate("(img) => img.complete && img.naturalWidth > 0", chart.element_handle())
    box = chart.bounding_box()
    assert box and 300 <= box["width"] <= 412
    assert page.evaluate("document.documentElement.scrollWidth") <= 412
    if os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=os.path.join(os.environ["SCREENSHOT_DIR"], "summary-pixel7.png"), full_page=True)
