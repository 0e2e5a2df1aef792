"""The words app.js says come from the page, in its language (docs/translations.md): the time a
kept page was last seen and the answer when a stale page cannot be re-sent."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..conftest import new_game


def test_app_js_words_are_in_the_pages_language(client, auth):
    auth.register()
    gid = new_game(client)
    page = client.get(f"/games/{gid}").data.decode()
    assert 'data-say-at="at {time}"' in page
    assert "Reload the page and enter it again." in html.unescape(page)
    assert client.post("/language", data={"language": "de"}).status_code == 303
    page = html.unescape(client.get(f"/games/{gid}").data.decode())
    assert 'data-say-at="um {time}"' in page
    assert 'data-say-stale="Nicht eingetragen: Diese Seite ist veraltet.' in page
    script = (Path(__file__).resolve().parents[2] / "static/app.js").read_text(encoding="utf-8")
    assert '" at " + kept' not in script and 'words("stale"' in script


def test_running_games_are_counted_with_a_plural_in_german(client, auth):
    auth.register()
    new_game(client)
    assert client.post("/language", data={"language": "de"}).status_code == 303
    players = client.get("/players").data.decode()
    pid = re.search(r'href="/players/(\d+)"', players).group(1)
    page = html.unescape(client.get(f"/players/{pid}").data.decode())
    assert "(1 läuft noch)" in page and "laufen noch" not in page
    new_game(client)
    page = html.unescape(client.get(f"/players/{pid}").data.decode())
    assert "(2 laufen noch)" in page
