"""The quick reference opened from a game: a way back to it, and every option of that game."""

from __future__ import annotations

import html
import re

from ..conftest import new_game


def test_reference_from_a_may_pass_mia_game(client, auth):
    auth.register()
    game = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0", pass_back="may-pass")
    page = client.get(f"/games/{game}").data.decode()
    link = html.unescape(re.search(r'href="([^"]*/rules/mia[^"]*)"', page).group(1))
    ref = client.get(link).data.decode()
    assert f'href="/games/{game}">Back to the game</a>' in ref
    assert "pass without raising" in ref
    for label in ("Starting lives", "Order of rolls", "Pass back", "Next round starts with",
                  "Winner gains a life", "Mia reverses direction", "Scoring", "Roll-off for a tie"):
        assert f"<strong>{label}:</strong>" in ref, label
    assert "<strong>Pass back:</strong> may pass." in ref
