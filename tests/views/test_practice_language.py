"""Practice games in the reader's language: the set-up, the panel, the virtual players' page and
the refusals in German for an account set to German; English unchanged (docs/translations.md)."""

from __future__ import annotations

import html
import re

from ..conftest import HX, version_of
from .test_history_language import text
from .test_practice_views import (client, messages, mia_to_my_move, seeded, start, start_other,  # noqa: F401
                                  to_my_turn)


def german(client, auth):
    auth.register()
    assert client.post("/language", data={"language": "de"}).status_code == 303


def test_mitchi_practice_in_german(client, auth):
    german(client, auth)
    page = text(client.get("/practice/new/mitchi").data.decode())
    assert "Übungsspiel: Mitchi" in page and "Übungsspiel starten" in page
    assert "Spiel eine kurze Partie gegen drei virtuelle Spieler" in page and "Play a short game" not in page
    gid = start(client)
    # What app.js says after a lost tap comes from the page, in German, as on a game's page.
    whole = html.unescape(client.get(f"/practice/{gid}").data.decode())
    assert 'data-say-offline="Keine Antwort: keine Verbindung.' in whole and 'data-say-back-change="Die Verbindung' in whole
    page = to_my_turn(client, gid)
    assert "Du bist dran" in text(page) and ">Würfeln</button>" in page and "Your turn" not in page
    v = str(version_of(page))
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "0", "action": "roll"})
    page = r.data.decode()
    assert 'aria-label="Deine Würfel"' in page and "Würfe übrig:" in text(page) and "Stehen lassen:" in page
    odd = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "fly"})
    assert odd.status_code == 422
    assert any("fly ist jetzt kein Zug; du kannst" in m and " oder " in m for m in messages(odd.data))
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "stop"})
    page = text(r.data.decode())
    assert "Du:" in page and re.search(r"bleibt bei [\w-]+ nach 1 Wurf", page), page
    assert "Rückgängig:" in page
    assert "Next:" not in page and "stops:" not in page


def test_one_roll_and_two_rolls_in_both_languages(client, auth):
    auth.register()
    gid = start(client)
    page = to_my_turn(client, gid)
    v = str(version_of(page))
    client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "0", "action": "roll"})
    client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "1", "action": "both"})
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "2", "action": "stop"})
    assert re.search(r"stops: [\w()-]+ in 2", text(r.data.decode()))
    client.post("/language", data={"language": "de"})
    assert re.search(r"bleibt bei [\w()-]+ nach 2 Würfen", text(client.get(f"/practice/{gid}").data.decode()))


def test_mia_practice_in_german(client, auth):
    german(client, auth)
    gid = start_other(client, "mia", "lives", "3")
    page = mia_to_my_move(client, gid)
    v = str(version_of(page))
    assert "Unter dem Becher würfeln" in page and "Roll under the cup" not in page
    r = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "roll"})
    html = r.data.decode()
    assert 'aria-label="Deine Würfel unter dem Becher"' in html and "Ansagen (Wahrheit oder Bluff)" in html
    assert "Unter dem Becher liegt" in text(html) and "Du musst mehr als" in text(html)
    # The values a person may announce, in German: "6er-Pasch", and 2-1 is "Mäxchen".
    assert '<button type="submit" name="value" value="66">6er-Pasch' in html
    assert '<button type="submit" name="value" value="21">Mäxchen' in html and ">double" not in html
    refused = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "action": "challenge"})
    assert any("Du hast gewürfelt: sag einen Wert an" in m for m in messages(refused.data))


def test_mice_and_men_practice_in_german(client, auth):
    german(client, auth)
    gid = start_other(client, "mice-and-men", "rounds", "2")
    page = client.get(f"/practice/{gid}").data.decode()
    assert "Du eröffnest Runde 1: Sag die Strafe an" in page and 'aria-label="Deine Würfel"' in page
    assert "dein Wurf" in page and "You open round" not in page


def test_strategies_page_in_german(client, auth):
    german(client, auth)
    page = text(client.get("/practice/strategies").data.decode())
    assert "Wie die virtuellen Spieler spielen" in page and "Mäxchen (Mia)" in page
    assert "Im Übungsspiel spielst du gegen drei virtuelle Spieler." in page
    assert "How the virtual players play" not in page and "stops after" not in page
