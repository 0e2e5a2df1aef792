"""The game pages in German (issue 14): setup, play, tie-break, game over, log and correction of
each game, for an account that chose German; the English phrases are gone. The English pages are
what the other view tests check."""

from __future__ import annotations

import html
import re

import pytest

from ..conftest import HX, messages, new_game, version_of


def text(data: bytes | str) -> str:
    """A page or fragment as plain text: tags dropped, entities read, spaces squeezed."""
    if isinstance(data, bytes):
        data = data.decode()
    data = re.sub(r"<(script|style)\b.*?</\1>", " ", data, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", data))).replace(" .", ".").replace(" ,", ",")


def german(data, *phrases):
    t = text(data)
    for phrase in phrases:
        assert phrase in t, f"{phrase!r} not in: {t[:3000]}"


def no_english(data, *phrases):
    """None of ``phrases`` is on the page as words of their own ("Pot" is not found in "Pott")."""
    t = text(data)
    for phrase in phrases:
        assert not re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", t), f"English left: {phrase!r} in: {t[:3000]}"


@pytest.fixture
def de(client, auth):
    """A signed-in account that chose German (the browser asks for English: the account wins)."""
    auth.register()
    assert client.post("/language", data={"language": "de"}).status_code == 303
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def post(client, game, kind, player=None, **fields):
    """One entry (htmx) at the game's current version; the answer must accept it."""
    data = {"version": str(version_of(client.get(f"/games/{game}").data)), "type": kind}
    if player is not None:
        data["player"] = player
    data.update({k.replace("_", "."): str(v) for k, v in fields.items()})
    r = client.post(f"/games/{game}/entries", data=data, headers=HX)
    assert r.status_code == 200, messages(r.data)
    return r


# Words of the shared pages that must not stay English.
SHARED_ENGLISH = ("Last entries", "Undo:", "Show to the table", "Quick reference", "Whole log",
                  "Download record", "Remove this game")


def test_choose_and_games_list_in_german(de):
    page = de.get("/games/new").data
    german(page, "Welches Spiel?", "Mäxchen (Mia)", "Mice and Men (Mäuse und Männer)", "4 bis 8 Spieler",
           "Ein Spiel allein lernen", "Übungsspiel: Mitchi")
    no_english(page, "Which game?", "players", "Practice game")
    new_game(de, players=("Ann", "Ben", "Cat"))
    page = de.get("/").data
    german(page, "Eure Spiele", "Neues Spiel", "1 Spiel ·", "Runde 1 · läuft noch", "Weiterspielen",
           "Spielberichte laden", "Alle Spiele")
    no_english(page, "Your games", "still running", "Play on", "1 game", "All games")
    # The list's filter names Mia as Germans know it; the URL keeps the record name.
    assert 'value="mia"' in page.decode()


def test_mitchi_setup_in_german(de):
    page = de.get("/games/new/mitchi").data
    german(page, "Neues Spiel: Mitchi", "Spieler in Sitzreihenfolge, im Uhrzeigersinn (2 oder mehr Spieler)",
           "fängt an", "Platz hinzufügen", "Auswürfeln, wer anfängt", "Optionen", "Punktegrenze",
           "Das Spiel endet, sobald jemand so viele Punkte hat", "Spiel starten")
    no_english(page, "New game of", "Add a seat", "Point limit", "Start the game", "Options", "starts")
    assert 'placeholder="Platz 1"' in page.decode() and 'aria-label="Name auf Platz 2"' in page.decode()
    # A refused setup answers in German too.
    r = de.post("/games/new/mitchi", data={"seats": "3", "starter": "0", "action": "create",
                                           "players-0": "Ann", "players-1": "Ben", "players-2": "Cat",
                                           "opt_point_limit": "x"})
    assert r.status_code == 400
    german(r.data, "Schau dir die markierten Felder unten an.")


def test_mitchi_round_tie_break_game_over_log_and_correction_in_german(de):
    game = new_game(de, players=("Ann", "Ben", "Cat"), starter="0", point_limit=2)
    page = de.get(f"/games/{game}").data
    german(page, "Ann ist dran (fängt an, legt die Wurfgrenze fest)", "Runde 1", "Pott 1 Punkt",
           "Wurfgrenze noch nicht festgelegt", "Punkte\u00adgrenze 2", "Schlechtester Wurf bisher noch keiner",
           "Erster Würfel", "Im wievielten Wurf?", "1. Wurf", "3. Wurf", "Punkte (die wenigsten gewinnen)")
    no_english(page, "'s turn", "Pot", "Roll limit", "Worst hand", "First die", "in 1", "Points")
    assert 'name="rolls" value="2"' in page.decode() and 'name="type" value="turn"' in page.decode()

    post(de, game, "turn", "Ann", hand_0=3, hand_1=1, rolls=2)
    r = post(de, game, "turn", "Ben", hand_0=6, hand_1=6, rolls=1)
    german(r.data, "Cat ist dran", "Wurfgrenze 2", "Schlechtester Wurf bisher 3-1 · Ann", "3-1 im 2. Wurf",
           "Letzte Einträge", "Ann: 3-1 im 2. Wurf", "Rückgängig: Ben: 6-6 im 1. Wurf", "korrigieren")
    no_english(r.data, *SHARED_ENGLISH[:2], "in 2")

    # Cat ties Ann on the worst hand: a tie-break (Stechen), pot doubled, Cat then Ann.
    r = post(de, game, "turn", "Cat", hand_0=1, hand_1=3, rolls=2)
    german(r.data, "Stechen: Cat würfelt einmal", "Der Pott verdoppelt sich auf 2",
           "Reihenfolge: Cat → Ann", "Gleichstand bei 3-1", "Wurf im Stechen", "gleichauf mit 3-1",
           "Zweiter Würfel (trägt den Wurf ein)")
    no_english(r.data, "Tie-break", "Tied", "pot doubled", "order:")
    post(de, game, "tiebreak", "Cat", hand_0=4, hand_1=2)
    r = post(de, game, "tiebreak", "Ann", hand_0=6, hand_1=1)
    german(r.data, "Runde 1: Cat nimmt den Pott: 2 Punkte (Stechen verloren nach Gleichstand mit 3-1).",
           "Spiel vorbei. Ann und Ben gewinnen gemeinsam mit 0 Punkten.", "Endstand: Ann 0, Ben 0, Cat 2.",
           "Revanche: gleiche Spieler, Plätze und Optionen", "Cat: Stechen, 4-2")
    no_english(r.data, "Game over", "share the win", "takes the pot", "Rematch", "Final scores")

    page = de.get(f"/games/{game}").data
    german(page, "Dem Tisch zeigen", "Kurzregeln", "Ganzer Verlauf", "Spielbericht herunterladen",
           "Dieses Spiel entfernen")
    no_english(page, *SHARED_ENGLISH)
    # The words app.js shows after a lost tap or connection come from the page, in German.
    assert 'data-say-offline="Keine Antwort: keine Verbindung.' in page.decode()
    assert 'data-say-server="Nicht eingetragen: Der Server hatte ein Problem ({status}).' in page.decode()

    # Undo names the entry in German; the flash after a correction too.
    log = de.get(f"/games/{game}/log").data
    german(log, "Der ganze Verlauf", "Ann: 3-1 im 2. Wurf", "Ben: 6-6 im 1. Wurf", "Cat: Stechen, 4-2",
           "Zurück zum Spiel")
    no_english(log, "The whole log", "Back to the game", " in 2")
    assert 'aria-label="Eintrag 3 korrigieren"' in log.decode()

    page = de.get(f"/games/{game}/entries/3").data
    german(page, "Eintrag 3 korrigieren", "Jetzt: Ben: 6-6 im 1. Wurf.", "Gib ihn neu ein, wie er hätte sein sollen",
           "Ben ist dran", "Zurück zum Spiel")
    no_english(page, "Correct entry", "Now:", "Enter it again", "'s turn")
    v = version_of(de.get(f"/games/{game}").data)
    r = de.post(f"/games/{game}/entries/3", data={"version": str(v), "type": "turn", "player": "Ben",
                                                   "hand.0": "5", "hand.1": "5", "rolls": "1"})
    assert r.status_code == 303
    german(de.get(f"/games/{game}").data, "Eintrag 3 korrigiert.")


def test_mitchi_stale_page_and_undo_in_german(de):
    game = new_game(de, players=("Ann", "Ben", "Cat"), starter="0")
    post(de, game, "turn", "Ann", hand_0=6, hand_1=5, rolls=1)
    r = de.post(f"/games/{game}/entries", headers=HX, data={"version": "0", "type": "turn", "player": "Ann",
                                                            "hand.0": "6", "hand.1": "5", "rolls": "1"})
    assert r.status_code == 409
    german(r.data, "Dieser Eintrag war schon eingetragen")
    r = de.post(f"/games/{game}/undo", headers=HX, data={"version": str(version_of(r.data))})
    german(r.data, "Wiederherstellen: Ann: 6-5 im 1. Wurf", "Ann ist dran")
    no_english(r.data, "Redo:")


def test_mia_setup_play_and_game_over_in_german(de):
    page = de.get("/games/new/mia").data
    german(page, "Neues Spiel: Mäxchen", "Leben am Anfang", "Rangfolge der Würfe", "Standard", "Summe",
           "muss erhöhen", "darf weitergeben", "Die nächste Runde beginnt", "Becherbesitzer", "Wertung",
           "Ausscheiden", "Bonuspunkte")
    no_english(page, "New game of Mia", "Starting lives", "Order of rolls", "must-raise", "Scoring")
    # The values posted stay the record's.
    assert 'value="must-raise"' in page.decode() and 'value="bonus-points"' in page.decode()

    game = new_game(de, "mia", players=("Ann", "Ben", "Cat"), starter="0", lives=2)
    page = de.get(f"/games/{game}").data
    german(page, "Mäxchen · Ann, Ben, Cat", "Ann würfelt und sagt an", "Runde 1", "Richtung im Uhrzeiger\u00adsinn",
           "Ann fängt an: noch nichts angesagt", "Alle Ansagen", "Schnelleingabe",
           "2 Leben für jeden · Standard-Rangfolge (11 bester Pasch, 66 schlechtester) · beim Zurückgeben muss "
           "man erhöhen · die nächste Runde beginnt der Besitzer des aufgedeckten Bechers · Gewinner bekommt ein "
           "Leben: aus · Mäxchen kehrt die Richtung um: aus · Ausscheiden", "(niedrigste zuerst, Mäxchen zuletzt)")
    no_english(page, "rolls and announces", "Full trail", "lives each", "Direction", "Mia")

    r = post(de, game, "announce", "Ann", value=54)
    german(r.data, "Ann sagt 54", "Ben: aufdecken, weitergeben oder würfeln", "Bei Ann aufdecken",
           "Unter dem Becher: erster Würfel", "Ungesehen weitergeben", "Ben gibt weiter: Es bleibt bei 54",
           "Würfeln und höher ansagen", "Ann sagt 54 an")
    no_english(r.data, "says", "challenge, pass or roll", "lift the cup", "Pass without looking")
    r = post(de, game, "challenge", "Ben", cup_0=3, cup_1=1)
    german(r.data, "Runde 1: Ben deckt bei Ann auf, angesagt war 54; unter dem Becher: 31.",
           "Ann verliert 1 Leben.", "Ann würfelt und sagt an")
    no_english(r.data, "challenged", "loses", "life")

    # Ann says Mäxchen (21): Ben lifts and finds it; Mäxchen costs 2 lives, his last two.
    r = post(de, game, "announce", "Ann", value=21)
    german(r.data, "Ann sagt Mäxchen", "Über Mäxchen geht nichts: nicht würfeln, nur aufdecken oder weitergeben.")
    r = post(de, game, "challenge", "Ben", cup_0=2, cup_1=1)
    german(r.data, "Runde 2: Ben deckt bei Ann auf, angesagt war Mäxchen; unter dem Becher: Mäxchen.",
           "Ben verliert 2 Leben (Mäxchen aufdecken kostet 2) und ist raus.")
    # Ann (the cup owner) starts round 3 and is caught: out, Cat is the last with lives.
    post(de, game, "announce", "Ann", value=54)
    r = post(de, game, "challenge", "Cat", cup_0=3, cup_1=1)
    german(r.data, "Spiel vorbei. Cat gewinnt: als Letzter mit Leben.", "Leben am Ende: Cat 2, Ann 0, Ben 0.",
           "Cat · gewinnt")
    no_english(r.data, "Game over", "Final lives", "wins", "out")

    log = de.get(f"/games/{game}/log").data
    german(log, "Ann sagt Mäxchen an", "Ben deckt auf: Unter dem Becher liegt 2-1")
    page = de.get(f"/games/{game}/entries/3").data
    german(page, "Eintrag 3 korrigieren", "Jetzt: Ben deckt auf: Unter dem Becher liegt 3-1.", "Ann sagt 54",
           "Bei Ann aufdecken")
    no_english(page, "says", "Challenge", "Correct entry")


def test_mia_quick_entry_in_german(de):
    game = new_game(de, "mia", players=("Ann", "Ben", "Cat"), starter="0")
    page = de.get(f"/games/{game}?mode=quick").data
    german(page, "Runde 1: Schnelleingabe", "Wessen Becher wurde aufgedeckt?",
           "Becher von Ann · aufgedeckt von Ben (der Nächste, der noch drin ist)",
           "Ann hat angesagt (niedrigste zuerst, Mäxchen zuletzt)", "Zweiter Würfel (trägt das Aufdecken ein)")
    no_english(page, "quick entry", "Cup owner", "announced (lowest")


def test_mice_and_men_in_german(de):
    page = de.get("/games/new/mice-and-men").data
    german(page, "Neues Spiel: Mice and Men", "Runden", "Eröffnungsspanne", "von", "bis", "Strafe fürs Laufen",
           "Gleichstand beim Aufdecken", "alle", "keiner", "Wer eröffnet", "reihum")
    no_english(page, "Opening range", "Run penalty", "Tie at the showdown", "rotate")

    game = new_game(de, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=1)
    page = de.get(f"/games/{game}").data
    german(page, "Runde 1 von 1", "Eröffner Ann", "Ann eröffnet Runde 1: Wie hoch ist die Strafe?",
           "Ann sagt eine Strafe an (1 bis 10)",
           "Strafpunkte (die wenigsten gewinnen)")
    no_english(page, "opens round", "not announced yet", "Penalty points")

    r = post(de, game, "announce", "Ann", penalty=4)
    german(r.data, "Ben entscheidet bei Strafe 4", "Mit den Mäusen laufen", "Zu den Männern gehen",
           "Die Männer anführen", "Strafe 4 eröffnet von Ann", "sofort 3 Strafpunkte nehmen", "mit 4 eröffnet")
    no_english(r.data, "Run with the mice", "Join the men", "Lead the men", "choice at penalty")
    # The opener's row names the seat with a noun, then what was done: no "eröffnet" twice.
    german(r.data, "Ann · Eröffner mit 4 eröffnet")
    assert "· eröffnet" not in text(r.data)
    post(de, game, "run", "Ben")
    post(de, game, "join", "Cat")
    r = post(de, game, "join", "Dan")
    german(r.data, "Aufdecken bei Strafe 4: noch zeigen: Ann, Cat, Dan", "Wer zeigt", "Dritter Würfel",
           "Niedrigster Wert bisher noch keiner", "mit den Mäusen gelaufen")
    no_english(r.data, "Showdown", "to reveal", "Ran with the mice")
    post(de, game, "reveal", "Ann", dice_0=6, dice_1=5, dice_2=4)
    post(de, game, "reveal", "Cat", dice_0=6, dice_1=5, dice_2=4)
    r = post(de, game, "reveal", "Dan", dice_0=6, dice_1=6, dice_2=5)
    german(r.data, "Runde 1, Aufdecken bei Strafe 4: Dan 665 · Ann 654 · Cat 654.",
           "Ann und Cat liegen gleich auf dem niedrigsten Wert und bekommen jeder die Strafe: 4 Punkte.",
           "Mit den Mäusen gelaufen: Ben (+3).", "Spiel vorbei nach 1 Runde.",
           "Dan gewinnt mit 0 Strafpunkten.", "Endstand: Dan 0, Ben 3, Ann 4, Cat 4.", "Spiel vorbei")
    no_english(r.data, "Game over", "wins with", "takes the penalty", "Final standings")

    log = de.get(f"/games/{game}/log").data
    german(log, "Ann sagt eine Strafe von 4 an", "Ben läuft mit den Mäusen", "Cat geht zu den Männern")
    page = de.get(f"/games/{game}/entries/3").data
    german(page, "Eintrag 3 korrigieren", "Jetzt: Ben läuft mit den Mäusen.", "Ben entscheidet bei Strafe 4")


def test_remove_and_restore_in_german(de):
    game = new_game(de, players=("Ann", "Ben", "Cat"))
    page = de.get(f"/games/{game}/remove").data
    german(page, "Dieses Spiel entfernen?", "Mitchi · Ann, Ben, Cat · Runde 1 · läuft noch", "30 Tage lang wiederherstellen",
           "Ja, dieses Spiel entfernen", "Nein, zurück zum Spiel")
    no_english(page, "Remove this game", "round", "still running", "days")
    r = de.post(f"/games/{game}/remove", follow_redirects=True)
    german(r.data, "Spiel entfernt. Unter Konto kannst du es 30 Tage lang wiederherstellen")
    page = de.get(f"/games/{game}").data
    german(page, "Dieses Spiel wurde am", "entfernt.", "Wiederherstellen")
    r = de.post(f"/games/{game}/restore", follow_redirects=True)
    german(r.data, "Spiel wiederhergestellt.")


def test_english_option_words_are_the_rules_own(app):
    """The setup form's English labels and help are the rules' (words.py keeps a copy to mark them
    for translation): a change in one without the other fails here."""
    from scorekeeper.rules import GAMES
    from scorekeeper.words import choice_label, option_help, option_label

    with app.test_request_context(headers={"Accept-Language": "en"}):
        for spec in GAMES.values():
            for option in spec.options:
                assert option_label(option) == option.label, option.name
                assert option_help(option) == option.help, option.name
                for choice in option.choices:  # in words: "must raise", "the cup owner"
                    label = choice_label(choice)
                    assert "-" not in label and choice.replace("-", " ") in label, (choice, label)


def test_form_refusals_and_the_poll_note_in_german(de):
    game = new_game(de, players=("Ann", "Ben", "Cat"), starter="0")
    base = {"version": "1", "type": "turn", "player": "Ann", "hand.0": "1", "hand.1": "1", "rolls": "1"}
    r = de.post(f"/games/{game}/entries", data={**base, "rolls": "zz"}, headers=HX)
    assert r.status_code == 422
    assert messages(r.data) == ["Würfe: nur eine ganze Zahl (Ziffern 0-9), nicht &#39;zz&#39;"]
    r = de.post(f"/games/{game}/entries", data={**base, "hand.0": "x"}, headers=HX)
    assert messages(r.data) == ["Wähl für jeden Würfel eine Augenzahl von 1 bis 6"]
    r = de.post(f"/games/{game}/entries", data={**base, "version": "0", "player": "Ben"}, headers=HX)
    assert r.status_code == 422 and messages(r.data) == ["Zug von Ann erwartet, nicht von Ben"]
    r = de.post("/games/new/mitchi", data={"seats": "3", "starter": "7", "action": "create", "players-0": "Ann",
                                           "players-1": "Ben", "players-2": "Cat", "opt_point_limit": "5"})
    assert r.status_code == 400 and "Wähl, wer anfängt" in text(r.data)
    # The game's name in a refusal is its German one, as on its pages (it said "Mia ist für";
    # found by the twenty-fifth review).
    r = de.post("/games/new/mia", data={"seats": "3", "starter": "0", "action": "create", "players-0": "Ann",
                                        "players-1": "Ben", "players-2": "", "opt_lives": "6",
                                        "opt_order": "standard", "opt_pass_back": "must-raise",
                                        "opt_next_starter": "loser", "opt_scoring": "elimination"})
    assert r.status_code == 400 and "Mäxchen ist für 3 oder mehr Spieler, nicht 2" in text(r.data)
    # Another phone's entry (the same account's: "von dir"): the poll of the page shown before
    # brings the panel with a German note.
    shown = version_of(de.get(f"/games/{game}").data)
    post(de, game, "turn", "Ann", hand_0=6, hand_1=5, rolls=1)
    r = de.get(f"/games/{game}/poll?v={shown}", headers=HX)
    german(r.data, "Das Spiel ist weitergegangen. Letzter Eintrag, von dir: Ann: 6-5 im 1. Wurf.")


def test_mia_is_still_recognised_under_its_german_names(de):
    """The game is "Mäxchen" on a German page; its URL and record name stay "mia", and a German
    name typed in the address leads there."""
    for typed in ("mäxchen", "Maexchen", "meiern"):
        r = de.get(f"/games/new/{typed}")
        assert r.status_code == 301 and r.headers["Location"].endswith("/games/new/mia"), typed
    assert de.get("/games/new/mice-and-men").status_code == 200
    assert de.get("/games/new/%C3%A4rger").status_code == 404
    game = new_game(de, "mia", players=("Ann", "Ben", "Cat"))
    assert de.get(f"/games/{game}/record.json").json["game"] == "mia"
    german(de.get(f"/games/{game}").data, "Mäxchen · Ann, Ben, Cat")


def test_who_starts_is_asked_once_and_the_buttons_say_what_to_do(de):
    """The heading asks; the buttons' legend says what a tap does (it said "Wer fängt an?" again)."""
    game = new_game(de, "mitchi", players=("Ann", "Ben", "Cat"), starter="rolloff")
    page = de.get(f"/games/{game}").data.decode()
    assert page.count("Wer fängt an?") == 1 and "Tipp an, wer anfängt" in page
    game = new_game(de, "mice-and-men", players=("Ann", "Ben", "Cat", "Dan"), starter="0", rounds=2)
    page = de.get(f"/games/{game}/entries/1").data.decode()  # correcting who opens round 1
    assert page.count("Tipp an, wer") == 1
