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


def test_the_reference_reads_the_games_own_options_and_only_of_a_game_one_may_see(app, client, auth):
    """``?game=<id>`` shows that game's stored options, whatever else the URL says, and a way
    back; the id of another group's game (or no account) gives neither."""
    from ..conftest import Auth

    auth.register()
    game = new_game(client, "mitchi", players=("Ann", "Ben", "Cat"), starter="0", point_limit=5)
    ref = client.get(f"/rules/mitchi?game={game}&point_limit=25").data.decode()
    assert "(5 in this game)" in ref and f'href="/games/{game}">Back to the game</a>' in ref
    other = app.test_client()
    Auth(other).register(username="bea")
    for who in (other, app.test_client()):
        ref = who.get(f"/rules/mitchi?game={game}").data.decode()
        assert "Back to the game" not in ref and "in this game" not in ref
    assert client.get(f"/rules/mia?game={game}").data.decode().count("Back to the game") == 0  # not a Mia game


def test_a_bonus_points_mia_games_reference_says_how_it_ends(client, auth):
    auth.register()
    game = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0", scoring="bonus-points")
    ref = client.get(f"/rules/mia?game={game}").data.decode()
    assert "When anyone reaches 0 the game ends: most lives, then most bonus points win." in ref
    assert "the last with lives wins" not in ref
    plain = client.get("/rules/mia").data.decode()  # no game: the usual ending
    assert "the last with lives wins" in plain and "most bonus points win" not in plain
