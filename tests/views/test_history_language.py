"""Past games, stats, charts and import in the reader's language: German for an account set to
German (dates, decimal commas, plurals), English unchanged (docs/translations.md)."""

from __future__ import annotations

import base64
import html
import re
from html.parser import HTMLParser
from datetime import datetime, timezone

from ..conftest import new_game
from .test_history import game_ids, golden, set_played_at, upload


def text(page: str) -> str:
    """The words a person reads: no tags, no head, no scripts."""
    page = re.sub(r"(?s)<head>.*?</head>|<script.*?</script>", " ", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def german(client, auth):
    auth.register()
    assert client.post("/language", data={"language": "de"}).status_code == 303


def summary_text(client, gid: int) -> str:
    return text(client.get(f"/games/{gid}/summary").data.decode())


def test_mitchi_summary_in_german(app, client, auth):
    german(client, auth)
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    gid = game_ids(client)[0]
    set_played_at(app, gid, datetime(2026, 11, 30, 19, 5, tzinfo=timezone.utc))
    client.post("/settings", data={"timezone": "Europe/Berlin"})
    page = summary_text(client, gid)
    for phrase in ("Mo., 30. Nov. 2026, 20:05", "Geteilter Sieg: Ben und Cat", "Endstand", "Höhepunkte",
                   "Größter Pott", "4 Punkte, an Ann in Runde 1", "Die meisten Mitchis", "Ben und Cat: 1",
                   "Kein Stechen", "Punkte nach jeder Runde", "Runde für Runde", "Runde 1.",
                   "Ann beginnt; Wurfgrenze 1.", "Ann bekommt den Pott: 4 Punkte.", "Nach Runde 1: Ann 4, Ben 0, Cat 0",
                   "Die wenigsten Punkte gewinnen.", "Spielbericht"):
        assert phrase in page, phrase
    for english in ("Shared win", "Final standings", "Highlights", "Largest pot", "after every round",
                    "Round by round", "takes the pot", "Worst hand", "Mon 30 Nov", " and "):
        assert english not in page, english


def test_tie_break_and_worst_hand_in_german(client, auth):
    german(client, auth)
    upload(client, golden("mitchi/mitchi-11-ends-in-tiebreak"))
    page = summary_text(client, game_ids(client)[0])
    # a hand's hyphen is a non-breaking one (U+2011): "6-" / "5" was wrapped on a phone (a review)
    assert "Schlechtester Wurf 3\u20111, bei Ann und Ben: Stechen." in page
    assert "Stechen 1 (Reihenfolge Ben → Ann, Pott 2): Ben 6er-Pasch, Ann 6\u20115." in page
    assert "1 Stechen in Runde 1" in page and "tie-break" not in page


def test_mia_summary_in_german_with_plurals(client, auth):
    german(client, auth)
    upload(client, golden("mia/mia-7-winner-gains-life"))
    page = summary_text(client, game_ids(client)[0])
    assert "Ann sagte Mäxchen an; Ben deckte auf; unter dem Becher: 31." in page
    assert "Zu hoch angesagt: Ann verliert 2 Leben (noch 1)." in page
    assert "Ben gewinnt beim Aufdecken und bekommt 1 Leben dazu." in page
    assert "Leben nach jeder Runde" in page and "Die meisten Leben gewinnen" in page
    assert "lives" not in page and "claimed" not in page


def test_mice_and_men_summary_in_german(client, auth):
    german(client, auth)
    upload(client, golden("mice_and_men/mm-default-ten-rounds-end"))
    page = summary_text(client, game_ids(client)[0])
    assert "Bieten: Ann eröffnet mit 2; Ben läuft mit den Mäusen (+3)" in page
    assert "Alle anderen sind gelaufen: Ann bleibt allein übrig und bekommt nichts." in page
    assert "Ann (Runde 1), Ben (Runde 2), Cat (Runde 3), Dan (Runde 4), Ann (Runde 5) und 5 weitere" in page
    assert "Strafpunkte nach jeder Runde" in page and "Bidding" not in page and "more" not in page


def test_round_and_point_plurals_in_both_languages(client, auth):
    auth.register()
    gid = new_game(client, players=("Ann", "Ben"), starter="0")
    client.post(f"/games/{gid}/entries", data={"version": "0", "type": "turn", "player": "Ann",
                                               "hand.0": "6", "hand.1": "5", "rolls": "1"})
    client.post(f"/games/{gid}/entries", data={"version": "1", "type": "turn", "player": "Ben",
                                               "hand.0": "3", "hand.1": "2", "rolls": "1"})
    page = summary_text(client, gid)
    assert "Still running: 1 round so far." in page and "Ben takes the pot: 1 point." in page
    assert "1 point, taken by Ben in round 1" in page
    client.post("/language", data={"language": "de"})
    page = summary_text(client, gid)
    assert "Läuft noch: bisher 1 Runde." in page and "Ben bekommt den Pott: 1 Punkt." in page
    assert "1 Punkt, an Ben in Runde 1" in page
    for v in (2, 3):
        client.post(f"/games/{gid}/entries", data={"version": str(v), "type": "turn", "player": "Ben" if v == 2 else "Ann",
                                                   "hand.0": "6", "hand.1": "5" if v == 2 else "4", "rolls": "1"})
    page = summary_text(client, gid)
    assert "Läuft noch: bisher 2 Runden." in page
    client.post("/language", data={"language": "en"})
    assert "Still running: 2 rounds so far." in summary_text(client, gid)


def test_chart_titles_follow_the_language(client, auth):
    german(client, auth)
    upload(client, golden("mice_and_men/mm-default-ten-rounds-end"))
    gid = game_ids(client)[0]
    r = client.get(f"/games/{gid}/chart.svg")
    body = r.data.decode()
    assert "Strafpunkte (die" in body and "<title>Strafpunkte nach jeder Runde</title>" in body
    assert ">Runde<" in body and "Penalty" not in body
    page = client.get(f"/games/{gid}/summary").data.decode()
    svg = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page).group(1)).decode()
    assert "Strafpunkte (die" in svg
    assert 'alt="Liniendiagramm der Strafpunkte' in page
    # Another language is another image: the German one is not served from an English cache.
    client.post("/language", data={"language": "en"})
    again = client.get(f"/games/{gid}/chart.svg", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 200 and "Penalty points (fewest" in again.data.decode()


def test_players_pages_in_german_with_decimal_comma_and_percent(client, auth):
    german(client, auth)
    for g in ("mia/mia-7-bonus-points-with-winner-life", "mia/mia-7-winner-gains-life", "mia/mia-7-rolloff-won",
              "mitchi/mitchi-11-shared-win-zero"):
        upload(client, golden(g))
    page = text(client.get("/players").data.decode())
    assert "Beste Durchschnitte" in page and "Mäxchen: die meisten übrigen Leben pro Spiel Ben: 2,5" in page
    assert "Sieg\u00adquote" in page and "100 %" in page and "33 %" in page and "4 (3 beendet)" in page
    assert "Best averages" not in page and "Win rate" not in page and "2.5" not in page
    ann = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Ann<', client.get("/players").data.decode()).group(1)
    page = text(client.get(f"/players/{ann}").data.decode())
    assert "4 Spiele · 0 Siege · 0 geteilt" in page
    assert "Übrige Leben pro Spiel (mehr ist besser) 1" in page and "Gespielte Spiele" in page
    assert "Letzte Spiele" in page and "geteilter Sieg: Ben und Cat" in page  # a shared win, as the games list says it
    assert "Umbenennen oder zusammenführen" in page and "Rename" not in page and "won by" not in page
    assert re.search(r"\w\w\., \d+\. \w+\.? \d{4}, \d\d:\d\d", page)  # "Mo., 30. Nov. 2026, 20:05"


def test_one_game_and_one_win_in_german(client, auth):
    german(client, auth)
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    page = client.get("/players").data.decode()
    ben = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Ben<', page).group(1)
    assert "1 Spiel · 0 Siege · 1 geteilt" in text(client.get(f"/players/{ben}").data.decode())
    upload(client, golden("mia/mia-7-rolloff-won"))
    assert "2 Spiele · 1 Sieg · 1 geteilt" in text(client.get(f"/players/{ben}").data.decode())
    client.post("/language", data={"language": "en"})
    assert "2 games · 1 win · 1 shared" in text(client.get(f"/players/{ben}").data.decode())


def test_import_pages_and_messages_in_german(client, auth):
    german(client, auth)
    page = text(client.get("/import").data.decode())
    assert "Spielberichte laden" in page and "Load game records" not in page
    r = upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    assert "1 Spiel geladen." in text(client.get(r.headers["Location"]).data.decode())
    r = upload(client, golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-7-winner-gains-life"),
               golden("mia/mia-7-rolloff-won"))
    page = text(client.get(r.headers["Location"]).data.decode())
    assert "2 Spiele geladen." in page and "Schon da, nicht noch einmal geladen: r0.json." in page
    r = upload(client, b"{", names=["x.json"])
    assert r.status_code == 400 and "Nichts wurde geladen. x.json" in text(r.data.decode())
    # A record the rules refuse: the refusal in German too, as on the game page.
    broken = golden("mitchi/mitchi-11-shared-win-zero")
    turn = next(i for i, e in enumerate(broken["entries"]) if e.get("type") == "turn")
    broken["entries"][turn] = {**broken["entries"][turn], "hand": [7, 1]}
    r = upload(client, broken, names=["sieben.json"])
    page = text(r.data.decode())
    assert r.status_code == 400 and f"sieben.json: Eintrag {turn + 1}: ein Würfel zeigt 1 bis 6, nicht 7" in page, page
    r = upload(client, b"[]", names=["leer.json"])
    assert "Nichts wurde geladen. leer.json: Die Liste enthält keinen Spielbericht" in text(r.data.decode())
    r = upload(client, b"PK\x03\x04 kaputt", names=["alt.zip"])
    assert "alt.zip: keine lesbare Zip-Datei" in text(r.data.decode())
    record = golden("mitchi/mitchi-11-shared-win-zero")
    r = upload(client, {**record, "played_at": "gestern"}, names=["z.json"])
    assert r.status_code == 400
    assert "z.json: Spielbericht: played_at muss eine ISO-8601-Zeit sein" in text(r.data.decode()) and "must be" not in r.data.decode()


def test_rename_and_merge_in_german(client, auth):
    german(client, auth)
    upload(client, golden("mitchi/mitchi-11-shared-win-zero"))
    upload(client, golden("mia/mia-7-winner-gains-life"))
    ids = dict((n, i) for i, n in re.findall(r'href="/players/(\d+)">(?:<span class="name">)?(\w+)<', client.get("/players").data.decode()))
    r = client.post(f"/players/{ids['Ann']}/rename", data={"name": "Ben"})
    assert r.status_code == 400
    assert "Nicht umbenannt: Ben ist schon ein anderer Spieler" in text(r.data.decode())
    r = client.post(f"/players/{ids['Ann']}/rename", data={"name": "Anna"})
    assert "Ann heißt jetzt in jedem Spiel Anna." in text(client.get(r.headers["Location"]).data.decode())
    new_game(client, players=("Dora", "Cat"), starter="0")  # Dora never sat with Ben
    dora = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Dora<', client.get("/players").data.decode()).group(1)
    page = text(client.post(f"/players/{dora}/merge", data={"into": ids["Ben"]}).data.decode())
    assert "Dora mit Ben zusammenführen?" in page and "Getrennt lassen" in page and "Merge" not in page
    r = client.post(f"/players/{ids['Cat']}/merge", data={"into": ids["Ben"]})  # refused before the question
    assert r.status_code == 400
    said = text(r.data.decode())
    assert re.search(r"Nicht zusammengeführt: Cat und Ben saßen beide beim Spiel Mitchi vom [A-Z][a-z]\., \d+\. ", said), said


def test_english_dates_and_figures_stay_as_they_were(app, client, auth):
    auth.register()
    upload(client, golden("mia/mia-7-bonus-points-with-winner-life"))
    upload(client, golden("mia/mia-7-rolloff-won"))
    gid = game_ids(client)[0]
    set_played_at(app, gid, datetime(2026, 11, 30, 19, 5, tzinfo=timezone.utc))
    assert "Mon 30 Nov 2026, 19:05" in summary_text(client, gid)
    page = text(client.get("/players").data.decode())
    assert "Mia: most lives left per game Ben: 2.5" in page and "100%" in page


# --- no English left on these pages --------------------------------------------------------

#: Words German shares with English at this table, and the players' names.
SAME = {"mitchi", "mice and men", "scorekeeper", "csv", "json", "zip", "bonus", "mia", "ann", "ben", "cat",
        "dan", "eve", "in", "offline", "utc", "bluff", "stop"}


class _Texts(HTMLParser):
    """Text nodes and the attributes a person reads or hears (title, aria-label, placeholder, alt)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces, self.silent = [], 0

    def handle_starttag(self, tag, attrs):
        self.silent += tag in ("script", "style")
        self.pieces += [v for k, v in attrs if k in ("title", "aria-label", "placeholder", "alt") and v]

    def handle_endtag(self, tag):
        self.silent -= tag in ("script", "style") and self.silent > 0

    def handle_data(self, data):
        if not self.silent and data.strip():
            self.pieces.append(" ".join(data.split()))


def _pieces(page: str) -> set[str]:
    parser = _Texts()
    parser.feed(page)
    return set(parser.pieces)


def _english(piece: str) -> bool:
    lowered = piece.lower()
    for word in sorted(SAME, key=len, reverse=True):
        lowered = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", lowered)
    return bool(re.findall(r"[a-zäöüß]{2,}", lowered))


def test_no_english_left_on_the_history_players_import_and_practice_pages(client, auth):
    """Every text piece that reads the same in English and German on these pages is only names,
    numbers or shared words (the games' own panels inside a practice page are left out: they
    are the game pages')."""
    auth.register()
    for g in ("mitchi/mitchi-11-shared-win-zero", "mitchi/mitchi-11-ends-in-tiebreak", "mia/mia-7-rolloff-won",
              "mia/mia-7-bonus-points-with-winner-life", "mice_and_men/mm-default-ten-rounds-end"):
        upload(client, golden(g))
    running = new_game(client, players=("Ann", "Ben"))
    players = re.findall(r'href="/players/(\d+)"', client.get("/players").data.decode())
    urls = [f"/games/{gid}/summary" for gid in game_ids(client) + [running]]
    urls += ["/players", "/import", "/practice/strategies"] + [f"/players/{p}" for p in players]
    urls += [f"/practice/new/{name}" for name in ("mitchi", "mia", "mice-and-men")]
    posts = {"merge": (f"/players/{players[0]}/merge", {"into": players[1]}),
             "rename refused": (f"/players/{players[0]}/rename", {"name": ""}),
             "import refused": ("/import", {})}

    def render() -> dict[str, str]:
        out = {url: client.get(url).data.decode() for url in urls}
        out.update({key: client.post(url, data=form).data.decode() for key, (url, form) in posts.items()})
        # Only what is inside <main>: the menu, the offline notice and the language switch are base.html's.
        return {k: v.split("<main", 1)[-1].split("</main>", 1)[0] for k, v in out.items()}

    client.post("/language", data={"language": "en"})
    english = render()
    client.post("/language", data={"language": "de"})
    german = render()
    left = {url: sorted(p for p in _pieces(english[url]) & _pieces(german[url]) if _english(p)) for url in english}
    left = {url: pieces for url, pieces in left.items() if pieces}
    assert not left, left


def test_a_file_that_is_no_record_is_told_in_the_readers_language(client, auth):
    """Bad JSON is said where it is, in German too (it gave Python's English parser words, even
    "use sys.set_int_max_str_digits()" for a long number); a CSV file is told what to load."""
    auth.register()
    r = upload(client, b"{not json", names=["broken.json"])
    assert r.status_code == 400 and "broken.json: record: not valid JSON (line 1, column 2)" in text(r.data.decode())
    r = upload(client, b'{"a": ' + b"9" * 5000 + b"}", names=["long.json"])
    said = text(r.data.decode())
    assert "long.json: record: not valid JSON: a number with too many digits to read" in said and "sys." not in said
    r = upload(client, b"game,round\nmitchi,1\n", names=["mitchi-1.csv"])
    assert "mitchi-1.csv: a CSV file is not loaded; load the game records (.json) or the export zip" in text(
        r.data.decode())
    # No JSON at all (a picture, a text file named .zip): said what it is not, not where its JSON
    # broke ("record: not valid JSON: the text is not UTF-8" for a PNG; a playtest).
    for data, name in ((b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "photo.png"), (b"hello there\n", "games.zip")):
        r = upload(client, data, names=[name])
        assert r.status_code == 400 and (f"{name}: this is neither a game record (.json) nor an export zip of this "
                                         "app; load the game records or the zip that Export made") in text(r.data.decode())
    for blank in (b"", b" \n\t", b"\xef\xbb\xbf\n"):
        r = upload(client, blank, names=["empty.json"])
        assert r.status_code == 400 and "empty.json: the file is empty (no game record in it)" in text(r.data.decode())
    assert client.post("/language", data={"language": "de"}).status_code == 303
    r = upload(client, b"", names=["empty.json"])
    assert "empty.json: Die Datei ist leer (kein Spielbericht darin)" in text(r.data.decode())
    r = upload(client, b"{not json", names=["broken.json"])
    assert "broken.json: Spielbericht: kein gültiges JSON (Zeile 1, Spalte 2)" in text(r.data.decode())
    r = upload(client, b"hello there\n", names=["games.zip"])
    assert "games.zip: Das ist weder ein Spielbericht (.json) noch ein Export-Zip dieser App" in text(r.data.decode())
    assert game_ids(client) == []
