"""The pages around the games speak the reader's language: log in, register, the password and
account pages, the password rules, the quick references, refusals shared by every page, the offline
page and the installable app's manifest (German for an account set to "de" or a logged-out
browser asking for it; English unchanged)."""

from __future__ import annotations

import html
import json
import re

import pytest

from ..conftest import new_game

DE = {"Accept-Language": "de-DE,de;q=0.9"}
EN = {"Accept-Language": "en"}


def text(response) -> str:
    """The visible text of a page: tags gone, entities read, spaces collapsed."""
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", "", response.data.decode())
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page))).strip()


def title(response) -> str:
    return html.unescape(re.search(r"(?s)<title>(.*?)</title>", response.data.decode()).group(1))


def german_account(client, auth):
    """Register ann and set her account's language to German (the browser then says English)."""
    auth.register()
    assert client.post("/language", data={"language": "de", "next": "/settings"}).status_code == 303


# -- logged out: log in and register ------------------------------------------------------------

def test_login_page_in_german_for_a_german_browser_and_english_otherwise(client):
    r = client.get("/login", headers=DE)
    page, t = r.data.decode(), text(r)
    assert '<html lang="de"' in page
    assert title(r) == "Anmelden · scorekeeper"
    for words in ("Anmelden", "Passwort", "Auf diesem Handy angemeldet bleiben", "Noch kein Konto?"):
        assert words in t, words
    for words in ("Log in", "Password", "Stay logged in", "No account yet?"):
        assert words not in t, words
    r = client.get("/login", headers=EN)
    assert title(r) == "Log in · scorekeeper"
    t = text(r)
    assert "Stay logged in on this phone" in t and "No account yet? Register" in t and "Passwort" not in t


def test_the_login_pages_title_and_body_tag_hold_no_language_switch(client):
    """The switch is in the page once, not in <title> or inside the <body> tag."""
    page = client.get("/login", headers=DE).data.decode()
    assert "Deutsch" not in re.search(r"(?s)<title>(.*?)</title>", page).group(1)
    assert "<form" not in re.search(r"<body[^>]*>", page).group(0)
    assert page.count('class="language-switch"') == 1


def test_register_page_and_its_refusals_in_german(client):
    r = client.get("/register", headers=DE)
    t = text(r)
    assert title(r) == "Registrieren · scorekeeper"
    assert "Konto anlegen" in t and "Ein Konto gehört dir" in t and "Passwort noch einmal" in t
    assert "8 Zeichen oder mehr" in t and "characters" not in t and "Make an account" not in t
    assert 'class="language-switch"' in r.data.decode()  # a switch before there is an account

    r = client.post("/register", data={"username": "a!", "password": "password", "confirm": "other"},
                    headers=DE)
    t = text(r)
    assert r.status_code == 400
    assert "Nimm Buchstaben a-z, Ziffern, Punkte, Bindestriche oder Unterstriche." in t
    assert "Dieses Passwort gehört zu den am leichtesten zu erratenden." in t
    assert "Die Passwörter stimmen nicht überein." in t
    assert "Use letters" not in t and "easiest to guess" not in t and "differ" not in t

    r = client.post("/register", data={"username": "annabel", "password": "annabel1234",
                                       "confirm": "annabel1234"}, headers=DE)
    assert r.status_code == 400 and "Das Passwort darf deinen Namen nicht enthalten." in text(r)

    client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse"})
    client.post("/logout")
    r = client.post("/register", data={"username": "ANN", "password": "other horse battery",
                                       "confirm": "other horse battery"}, headers=DE)
    assert r.status_code == 400 and "Diesen Namen gibt es schon; wähl einen anderen." in text(r)


def test_register_refusals_stay_english_for_an_english_browser(client):
    r = client.post("/register", data={"username": "annabel", "password": "annabel1234", "confirm": "x"},
                    headers=EN)
    t = text(r)
    assert ("The password must not contain your name. Use 8 characters or more, not your name or a "
            "common password (a few unusual words together work well).") in t
    assert "The passwords differ." in t and "Passwort" not in t


def test_wrong_password_and_the_login_reminder_in_german(client, auth):
    auth.register()
    auth.logout()
    r = client.post("/login", data={"username": "ann", "password": "wrong horse"}, headers=DE)
    assert r.status_code == 400 and "Name oder Passwort falsch." in text(r) and "Wrong name" not in text(r)
    r = client.get("/settings", headers=DE, follow_redirects=True)
    assert "Melde dich an, um eure Spiele zu sehen." in text(r)
    r = client.get("/settings", headers=EN, follow_redirects=True)
    assert "Log in to see your games." in text(r)


def test_password_rules_messages_follow_the_language(app):
    from scorekeeper.auth import password_problem

    with app.test_request_context("/", headers=DE):
        assert password_problem("password", "ann").startswith("Dieses Passwort gehört zu den am leichtesten")
        assert password_problem("my ann is great", "ann").startswith("Das Passwort darf deinen Namen nicht")
        assert password_problem("correct horse", "ann") is None
    with app.test_request_context("/", headers=EN):
        assert password_problem("password", "ann").startswith("That password is among the easiest to guess.")


# -- logged in: the account and password pages ------------------------------------------------

def test_account_page_in_german_for_a_german_account(client, auth):
    german_account(client, auth)
    game = new_game(client)
    assert client.post(f"/games/{game}/remove").status_code == 303
    r = client.get("/settings", headers=EN)  # the account's setting wins over the browser
    t = text(r)
    assert title(r) == "Konto · scorekeeper"
    for words in ("Konto: ann", "Zeitzone deiner Gruppe", "Spiele werden in UTC gespeichert", "Speichern",
                  "Export und Import", "Alle Spiele exportieren", "Spielberichte laden", "Passwort ändern",
                  "Abmelden", "auf allen Handys ab", "Entfernte Spiele", "30 Tage lang wiederherstellbar",
                  "Wiederherstellen"):
        assert words in t, words
    for words in ("Your group's time zone", "Save", "Export all games", "Log out", "Removed games",
                  "Restorable", "Change the password"):
        assert words not in t, words

    r = client.post("/settings", data={"timezone": "Mars/Base"}, headers=EN)
    assert r.status_code == 400 and "'Mars/Base' ist keine Zeitzone" in text(r)
    r = client.post("/settings", data={"timezone": "Europe/Berlin"}, follow_redirects=True)
    assert "Zeitzone auf Europe/Berlin gestellt." in text(r)


def test_account_page_stays_english_for_an_english_account(client, auth):
    auth.register()
    r = client.get("/settings", headers=DE | {"Accept-Language": "en"})
    t = text(r)
    assert title(r) == "Account · scorekeeper"
    assert "Account: ann" in t and "Your group's time zone" in t and "Log out" in t and "Abmelden" not in t
    r = client.post("/settings", data={"timezone": "Europe/Berlin"}, follow_redirects=True)
    assert "Time zone set to Europe/Berlin." in text(r)


def test_password_page_in_german(client, auth):
    german_account(client, auth)
    r = client.get("/account/password")
    t = text(r)
    assert title(r) == "Passwort ändern · scorekeeper"
    for words in ("Alle anderen Handys, die als ann angemeldet sind, werden abgemeldet", "Aktuelles Passwort",
                  "Neues Passwort noch einmal", "Zurück zum Konto"):
        assert words in t, words
    assert "Current password" not in t and "Back to the account" not in t
    r = client.post("/account/password", data={"current": "wrong horse", "password": "a very long odd phrase",
                                                "confirm": "a very long odd phrase"})
    assert r.status_code == 400 and "Das ist nicht das aktuelle Passwort." in text(r)
    r = client.post("/account/password", data={"current": "correct horse", "password": "a very long odd phrase",
                                                "confirm": "a very long odd phrase"}, follow_redirects=True)
    assert "Passwort geändert. Andere Handys mit diesem Konto müssen sich neu anmelden." in text(r)


# -- refusals every page shares, the offline page -----------------------------------------------

def test_bad_input_and_form_token_refusals_in_german(client, auth):
    r = client.post("/login", json={"username": "ann"}, headers=DE)
    assert r.status_code == 415 and "kein JSON" in text(r) and title(r) == "Kein Formular · scorekeeper"
    r = client.post("/login", data={"username": "a\x00b", "password": "x"}, headers=DE)
    assert r.status_code == 400 and "Das Feld 'username' enthält ein NUL-Zeichen" in text(r)
    r = client.post("/register", data={"username": "zed", "password": "correct horse", "confirm": "correct horse",
                                       "once": "!!"}, headers=DE)
    assert r.status_code == 400 and "Das Einmal-Kennzeichen dieses Formulars ist beschädigt" in text(r)
    assert title(r) == "Formular abgelaufen · scorekeeper"
    r = client.post("/login", json={"username": "ann"}, headers=EN)
    assert "takes a form (as the page sends it), not JSON" in text(r)


def test_offline_page_links_to_the_games_in_both_languages(client):
    # Its copies are also gone after a logout: the page said only "not opened on this phone before".
    for headers, words, why in ((DE, "zu euren Spielen", "oder die Kopien wurden beim Abmelden gelöscht"),
                                (EN, "go to your games", "or its copies were cleared when you logged out")):
        page = client.get("/offline", headers=headers).data.decode()
        assert why in page
        assert f'<a href="/">{words}</a>' in page  # a link, not its markup shown as text
        assert "&lt;a" not in page


# -- quick references -------------------------------------------------------------------------

def test_quick_references_in_german(client):
    r = client.get("/rules/mia", headers=DE)
    t = text(r)
    assert title(r) == "Mäxchen (Mia): Kurzregeln · scorekeeper"
    assert "21 ist Mäxchen" in t and "Normale Reihenfolge (11 ist der beste Pasch, 66 der schlechteste): Mäxchen 11 22" in t
    assert "Mäxchen 66 55 44 33 22 11 65 (11) 64 (10)" in t
    assert "wenn Mäxchen angesagt war oder unter dem Becher liegt" in t and "deckt auf" in t
    assert "Übungsspiel" in t
    for words in ("quick reference", "Standard order", "the cup shows", "Practice game", "Best first"):
        assert words not in t, words

    r = client.get("/rules/mitchi", headers=DE)
    t = text(r)
    assert title(r) == "Mitchi: Kurzregeln · scorekeeper"
    assert "Würfe, vom besten zum schlechtesten." in t and "6er-Pasch" in t and "Pott:" in t and "Stechen:" in t
    assert "Ende: sobald jemand die Punktegrenze erreicht (25)." in t
    assert "double" not in t and "Tie-break" not in t and "Pot:" not in t

    r = client.get("/rules/mice-and-men", headers=DE)
    t = text(r)
    assert "Mice and Men (Mäuse und Männer): Kurzregeln" in t
    for words in ("1-5-6 ist 651", "Mit den Mäusen laufen:", "Zu den Männern gehen:", "Die Männer anführen:",
                  "Strafe fürs Laufen (3)", "Ende: nach den vereinbarten Runden (10).", "(bei Gleichstand: jeder von ihnen)"):
        assert words in t, words
    assert "Run with the mice" not in t and "Lone survivor" not in t
    r = client.get("/rules/mice-and-men?tie=none", headers=DE)
    assert "(bei Gleichstand: keiner)" in text(r)


def test_quick_reference_of_a_german_game_describes_its_options_in_german(client, auth):
    german_account(client, auth)
    game = new_game(client, "mia", players=("Ann", "Ben", "Cat"), starter="0", pass_back="may-pass", lives=1)
    page = client.get(f"/games/{game}").data.decode()
    link = html.unescape(re.search(r'href="([^"]*/rules/mia[^"]*)"', page).group(1))
    r = client.get(link)
    t = text(r)
    assert "Dieses Spiel: Reihenfolge: normal · 1 Leben für jeden · zurück beim Würfler: darf weitergeben." in t
    assert "(in diesem Spiel erlaubt) ohne Erhöhung" in t
    assert "Optionen dieses Spiels" in t and "Zurück zum Spiel" in t
    for words in ("Leben am Anfang: 1.", "Zurückgeben: darf weitergeben.", "Wertung: Ausscheiden.",
                  "Die nächste Runde beginnt: wer den Becher hatte.", "Gewinner bekommt ein Leben: aus."):
        assert words in t, words
    for words in ("Starting lives", "may-pass", "elimination", "This game's options", "off."):
        assert words not in t, words


def test_option_words_in_english_are_the_rules_packages_own(app):
    """The table of option texts follows the rules package: in English it reads exactly as the
    options' labels and help (a changed or new option shows here)."""
    from scorekeeper.rules import GAMES
    from scorekeeper.views.reference import option_words

    with app.test_request_context("/", headers=EN):
        for name, spec in GAMES.items():
            for option in spec.options:
                words = option_words(name, option, option.default)
                assert (words["label"], words["help"]) == (option.label, option.help), (name, option.name)
                for choice in option.choices:  # the choice in words: "may pass", "the cup owner"
                    value = option_words(name, option, choice)["value"]
                    assert "-" not in value and choice.replace("-", " ") in value, (choice, value)
    with app.test_request_context("/", headers=DE):
        for name, spec in GAMES.items():
            for option in spec.options:
                words = option_words(name, option, option.default)
                assert words["label"] != option.label, (name, option.name)
                for choice in option.choices:
                    assert option_words(name, option, choice)["value"] != choice, (name, choice)


# -- the installable app --------------------------------------------------------------------

@pytest.mark.parametrize("headers,lang,name", [
    (DE, "de", "scorekeeper: Würfelspiele am Tisch"),
    (EN, "en", "scorekeeper: dice games at the table"),
])
def test_manifest_follows_the_pages_language(client, headers, lang, name):
    page = client.get("/login", headers=headers).data.decode()
    href = html.unescape(re.search(r'<link rel="manifest" href="([^"]+)"', page).group(1))
    assert href == f"/manifest.webmanifest?lang={lang}"
    r = client.get(href)  # the URL alone decides: no Accept-Language sent
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    manifest = json.loads(r.data)
    assert manifest["name"] == name and manifest["lang"] == lang and manifest["short_name"] == "scorekeeper"
    assert manifest["id"] == "/" and manifest["start_url"] == "/" and manifest["display"] == "standalone"
    # the installed app turns with the device: the table screen is for a tablet or TV in landscape
    # ("portrait" held it upright; found by a review)
    assert manifest["orientation"] == "any"
    if lang == "de":
        assert manifest["description"] == ("Zählt die Punkte bei Mitchi, Mäxchen (Mia) und Mice and Men, "
                                           "gespielt mit echten Würfeln.")
    else:
        assert manifest["description"] == "Keep the score of Mitchi, Mia and Mice and Men played with real dice."
    assert "public" in r.headers["Cache-Control"]


def test_manifest_without_a_language_follows_the_request_and_varies_with_it(client, auth):
    r = client.get("/manifest.webmanifest", headers=DE)
    assert json.loads(r.data)["lang"] == "de" and "Accept-Language" in r.headers["Vary"]
    assert "private" in r.headers["Cache-Control"]
    assert json.loads(client.get("/manifest.webmanifest?lang=xx", headers=EN).data)["lang"] == "en"
    german_account(client, auth)
    assert json.loads(client.get("/manifest.webmanifest", headers=EN).data)["name"].endswith("Würfelspiele am Tisch")


def test_a_language_chosen_on_the_login_page_is_the_accounts_after_logging_in(app, client, auth):
    """A German account: on a phone whose login page was switched to English just now, the app
    came back in German at login (found by a review). The choice made last, logged out, is kept
    with the account; without one, the account's own language comes back, on any phone."""
    def lang(response) -> str:
        return re.search(r'<html lang="([^"]+)"', response.data.decode()).group(1)

    german_account(client, auth)
    auth.logout()
    assert lang(client.get("/login")) == "de"  # kept for the logged-out pages
    # logging in again without choosing: German, as the account says
    assert auth.login().status_code == 303
    assert lang(client.get("/settings")) == "de"
    auth.logout()
    assert client.post("/language", data={"language": "en", "next": "/login"}).status_code == 303
    assert lang(client.get("/login")) == "en"
    assert auth.login().status_code == 303
    assert lang(client.get("/settings")) == "en"
    other = app.test_client()  # another phone, no choice made there: the account's, now English
    other.post("/login", data={"username": "ann", "password": "correct horse"})
    assert lang(other.get("/settings", headers=DE)) == "en"
    # the choice was taken once: the account's next change is not undone at the next login
    assert client.post("/language", data={"language": "de", "next": "/settings"}).status_code == 303
    auth.logout()
    assert auth.login().status_code == 303
    assert lang(client.get("/settings")) == "de"


def test_the_offline_banners_time_sits_before_the_verb_in_german(client):
    """"…wie sie zuletzt zu sehen war um 13:13…" put the time after a finished clause (found by a
    review): the time (filled in by app.js) comes in the middle, "zuletzt um 13:13 zu sehen war"."""
    page = client.get("/login", headers={"Accept-Language": "de"}).data.decode()
    assert re.search(r'wie sie zuletzt<span id="offline-when" data-say-at="um \{time\}"></span> zu sehen war,',
                     html.unescape(page)), page[:3000]
