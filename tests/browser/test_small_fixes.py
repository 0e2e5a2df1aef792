"""Small layout fixes: a win rate of 100% stays on one line on the player page."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page

from .conftest import register

RECORD = Path(__file__).resolve().parent.parent / "records" / "mitchi" / "mitchi-11-end-exactly-at-limit.json"


def test_a_full_win_rate_stays_on_one_line(page: Page, live_server: str, tmp_path):
    base = live_server
    register(page, base)
    record = json.loads(RECORD.read_text())["record"]  # a finished game Ben wins
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    page.goto(base + "/import")
    page.set_input_files("#records", str(path))
    page.get_by_role("button", name="Load the games").click()
    page.wait_for_load_state()
    page.set_viewport_size({"width": 320, "height": 640})  # a small phone
    page.goto(base + "/players")
    assert one_line(page)
    page.get_by_role("link", name="Ben").first.click()
    page.wait_for_load_state()
    assert one_line(page)


def one_line(page: Page) -> bool:
    lines = page.evaluate("""() => [...document.querySelectorAll('td.num')].filter(td => td.textContent.includes('100%'))
        .map(td => { const r = document.createRange(); r.selectNodeContents(td);
                     return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })""")
    assert lines, "no 100% on the page"
    return all(n == 1 for n in lines)
