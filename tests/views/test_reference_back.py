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


def test_a_sum_order_games_reference_shows_its_order_first(client, auth):
    """The order the game plays leads (a review found a sum-order game's reference opening with
    the standard order); without a game, or in a standard-order game, the standard order leads."""
    auth.register()
    summed = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0", order="sum")
    standard = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0")
    for url, first in ((f"/rules/mia?game={summed}", "Sum order"), (f"/rules/mia?game={standard}", "Standard order"),
                       ("/rules/mia", "Standard order")):
        ref = client.get(url).data.decode()
        heads = re.findall(r"<strong>(Standard order|Sum order)</strong>", ref)
        assert heads[0] == first and len(heads) == 2, (url, heads)


def test_the_mitchi_hands_are_read_with_their_dice(client):
    """A screen reader hears each hand once: "2-1 Mitchi" (the pictures are hidden from it, so
    Mitchi was read without its dice), "double 6", "3‑1"."""
    ref = client.get("/rules/mitchi").data.decode()
    items = re.findall(r"<li>(.*?)</li>", re.search(r'<ol class="log">(.*?)</ol>', ref, re.S).group(1))
    spoken = [re.sub(r"<[^>]+>", "", re.sub(r'<svg.*?</svg>|<span class="die[^"]*"[^>]*>.*?</span>', "", i)).strip()
              for i in items]
    assert spoken[0] == "2-1 Mitchi", spoken[:3]
    assert spoken[1] == "double 6" and spoken[-1] == "3\u20111", spoken
