"""Every page and fragment in German: no English left (docs/translations.md).

One group is filled with games of all three kinds (finished, in progress, in a tie-break, a
practice game), players, an invite and a live link. Then every page a person can open (found
from the app's URL map, so a new page is covered at once), the htmx fragments and the answers to
refused entries are rendered for the same account in English and in German. A piece of text
that reads the same in both languages is English left untranslated, unless it is only names,
numbers, dice or one of the few words German shares with English (``SAME_IN_BOTH``).

What is compared: every text node outside ``<script>``/``<style>``, and the attributes a
person reads or hears (``title``, ``aria-label``, ``placeholder``, ``alt``, a button's
``value``). The catalog side (every msgid has a German msgstr, nothing fuzzy) is
``tests/test_translations.py``.
"""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from zoneinfo import available_timezones

from .conftest import HX, new_game, version_of

RECORDS = Path(__file__).parent / "records"

#: Words (or short phrases) that are the same in German and English at this table.
SAME_IN_BOTH = {
    "mitchi", "mice and men", "scorekeeper", "offline", "online", "live", "link", "live-link",
    "qr", "qr-code", "csv", "json", "zip", "ok", "english", "deutsch", "htmx", "start", "name",
    "bluff", "pott", "team", "chart", "pasch", "max", "min", "info", "status", "stop", "ann",
    "ben", "cat", "dan", "eve", "utc", "mia", "in",
}
#: Time zones' IANA names (``Europe/Berlin``, ``CET``) and links: the same in every language.
TIME_ZONES = available_timezones() | {"UTC"}
URL = re.compile(r"^https?://\S+$")
#: Tags whose text nobody reads.
SILENT = {"script", "style", "template", "noscript"}
READ_ATTRS = {"title", "aria-label", "placeholder", "alt"}


class Texts(HTMLParser):
    """The text pieces a person reads or hears on a page, whitespace-normalised."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._silent = 0

    def handle_starttag(self, tag, attrs):
        if tag in SILENT:
            self._silent += 1
        attrs = dict(attrs)
        for name in READ_ATTRS:
            if attrs.get(name):
                self.pieces.append(attrs[name])
        if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.pieces.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in SILENT and self._silent:
            self._silent -= 1

    def handle_data(self, data):
        if not self._silent:
            self.pieces.append(data)


def texts(html: str) -> set[str]:
    parser = Texts()
    parser.feed(html)
    return {" ".join(p.split()) for p in parser.pieces if p.strip()}


def english_words(piece: str, names: set[str]) -> list[str]:
    """The words of ``piece`` that would need a translation: not names, numbers, dice or words
    German shares with English."""
    if piece in TIME_ZONES or URL.match(piece):
        return []
    lowered = piece.lower()
    for phrase in sorted(SAME_IN_BOTH | names, key=len, reverse=True):
        lowered = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", " ", lowered)
    return re.findall(r"[a-zäöüß]{2,}", lowered)


def golden_records(game: str, count: int) -> list[dict]:
    """``count`` legal golden records of ``game``, spread over its rule sections."""
    legal = []
    for path in sorted((RECORDS / game).glob("*.json")):
        doc = json.loads(path.read_text())
        if "refused_at" not in doc.get("expect", {}) and "error" not in doc.get("expect", {}):
            legal.append(doc["record"])
    step = max(1, len(legal) // count)
    return legal[::step][:count]


def fill_group(app, client, auth) -> dict:
    """A group with something on every page; the values the URL map's routes need."""
    assert auth.register(username="ann", password="tulip carriage 9").status_code == 303
    records = golden_records("mitchi", 8) + golden_records("mia", 8) + golden_records("mice_and_men", 8)
    files = [(io.BytesIO(json.dumps(r).encode()), f"r{i}.json") for i, r in enumerate(records)]
    assert client.post("/import", data={"records": files}, content_type="multipart/form-data").status_code == 303
    fresh = {name: new_game(client, name, players=("Ann", "Ben", "Cat", "Dan") if name != "mitchi"
                            else ("Ann", "Ben", "Cat")) for name in ("mitchi", "mia", "mice-and-men")}
    page = client.get(f"/games/{fresh['mitchi']}").data.decode()
    r = client.post(f"/games/{fresh['mitchi']}/entries", data={
        "version": version_of(page), "type": "turn", "player": "Ann", "hand.0": "5", "hand.1": "3",
        "rolls": "1"}, headers=HX)
    assert r.status_code == 200, r.data.decode()[:500]
    r = client.post("/practice/new/mitchi", data={"player": "Ann", "point_limit": "3"})
    assert r.status_code == 303
    practice = int(r.headers["Location"].rsplit("/", 1)[1])
    client.post("/groups/invites")
    client.post(f"/games/{fresh['mia']}/live")
    home = client.get("/").data.decode()
    games = sorted({int(g) for g in re.findall(r'href="/games/(\d+)(?:/summary)?"', home)} | set(fresh.values()))
    players = sorted({int(p) for p in re.findall(r'href="/players/(\d+)"', client.get("/players").data.decode())})
    groups_page = client.get("/groups").data.decode()
    invite = re.search(r"/join/([\w-]+)", groups_page)
    live = re.search(r"/live/([\w-]+)", client.get(f"/games/{fresh['mia']}/table").data.decode())
    return {"games": games, "fresh": fresh, "practice": practice, "players": players,
            "invite": invite.group(1) if invite else None, "live": live.group(1) if live else None}


#: Routes that answer no page to read: files, feeds, redirects, polls.
NOT_PAGES = {"static", "pwa.service_worker", "pwa.manifest", "history.export", "history.game_csv",
             "records.download", "auth.csrf_token", "games.poll", "live.poll", "history.chart"}


def page_urls(app, data) -> list[str]:
    """Every GET page of the URL map, once per value it can take in the filled group."""
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint in NOT_PAGES:
            continue
        choices = [{}]
        for arg in rule.arguments:
            if arg == "game_id":
                pool = [data["practice"]] if rule.endpoint.startswith("practice.") else data["games"]
            elif arg == "name":
                pool = ["mitchi", "mia", "mice-and-men"]
            elif arg == "seq":
                pool = [1, 2]
            elif arg == "player_id":
                pool = data["players"][:4]
            elif arg == "token":
                pool = [t for t in (data["live"], data["invite"]) if t]
            else:
                pool = [1]
            choices = [{**c, arg: v} for c in choices for v in pool]
        for values in choices:
            urls.append(rule.build(values)[1])
    return sorted(set(urls))


def render(client, urls, extra) -> dict[str, str]:
    out = {}
    for url in urls:
        r = client.get(url, follow_redirects=True)
        if r.status_code == 200 and r.mimetype == "text/html":
            out[url] = r.data.decode()
    for key, (method, url, kwargs) in extra.items():
        r = client.open(url, method=method, **kwargs)
        out[key] = r.data.decode()
    return out


def set_language(client, code: str) -> None:
    assert client.post("/language", data={"language": code}).status_code in (200, 303)


def report(left: dict[str, list[str]]) -> str:
    return f"English left on {len(left)} German pages:\n" + "\n".join(
        f"{key}: {pieces[:15]}{' ...' if len(pieces) > 15 else ''}" for key, pieces in sorted(left.items()))


def untranslated(english: dict[str, str], german: dict[str, str], names: set[str]) -> dict[str, list[str]]:
    left = {}
    for key, en_html in english.items():
        same = texts(en_html) & texts(german.get(key, ""))
        bad = sorted(piece for piece in same if english_words(piece, names))
        if bad:
            left[key] = bad
    return left


def refused_entries(data) -> dict:
    """Answers a person reads after a refused tap: a die of 7, a stale form, out of turn."""
    game = data["fresh"]["mitchi"]
    return {
        "die of 7": ("POST", f"/games/{game}/entries",
                     {"data": {"version": "2", "type": "turn", "player": "Ben", "hand.0": "7",
                               "hand.1": "3", "rolls": "1"}, "headers": HX}),
        "stale form": ("POST", f"/games/{game}/entries",
                       {"data": {"version": "1", "type": "turn", "player": "Ben", "hand.0": "6",
                                 "hand.1": "3", "rolls": "1"}, "headers": HX}),
        "out of turn": ("POST", f"/games/{game}/entries",
                        {"data": {"version": "2", "type": "turn", "player": "Cat", "hand.0": "6",
                                  "hand.1": "3", "rolls": "1"}, "headers": HX}),
        "game fragment": ("GET", f"/games/{game}", {"headers": HX}),
        "page not found": ("GET", "/games/999999", {}),
    }


def test_every_page_and_fragment_reads_german_for_a_german_account(app, client, auth):
    data = fill_group(app, client, auth)
    urls = page_urls(app, data)
    assert len(urls) >= 40, urls  # the URL map's pages times the group's games, players, games
    extra = refused_entries(data)
    set_language(client, "en")
    english = render(client, urls, extra)
    set_language(client, "de")
    german = render(client, urls, extra)
    assert set(german) == set(english)
    assert all('lang="de"' in html for key, html in german.items() if "<html" in html)
    names = {"ann", "ben", "cat", "dan", "eve", "ann's group", "ann’s group"}
    left = untranslated(english, german, names)
    assert not left, report(left)


def test_logged_out_pages_follow_the_browsers_language(app, client, auth):
    data = fill_group(app, client, auth)
    assert auth.logout().status_code in (200, 302, 303)
    urls = ["/login", "/register", "/offline"]
    if data["live"]:
        urls += [f"/live/{data['live']}", f"/live/{data['live']}?layout=screen"]
    if data["invite"]:
        urls.append(f"/join/{data['invite']}")
    english, german = {}, {}
    for url in urls:
        english[url] = client.get(url, headers={"Accept-Language": "en-GB,en;q=0.9"}).data.decode()
        german[url] = client.get(url, headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}).data.decode()
    refusals = {"wrong password": ("/login", {"username": "ann", "password": "not her password"}),
                "weak password": ("/register", {"username": "bob", "password": "bob", "confirm": "bob"}),
                "passwords differ": ("/register", {"username": "bob", "password": "tulip carriage 9",
                                                   "confirm": "tulip carriage 8"})}
    for key, (url, form) in refusals.items():
        english[key] = client.post(url, data=form, headers={"Accept-Language": "en"}).data.decode()
        german[key] = client.post(url, data=form, headers={"Accept-Language": "de"}).data.decode()
    left = untranslated(english, german, {"ann", "ben", "cat", "dan", "ann's group", "ann’s group"})
    assert not left, report(left)


def test_the_comparison_finds_an_english_sentence_left_in_a_german_page():
    """The check itself: an untranslated sentence is found, names and numbers are not."""
    english = {"/x": '<p>Ann to roll</p><p title="Undo the last entry">Ann</p><p>12</p>'}
    german = {"/x": '<p>Ann würfelt</p><p title="Undo the last entry">Ann</p><p>12</p>'}
    assert untranslated(english, german, {"ann"}) == {"/x": ["Undo the last entry"]}
    assert untranslated(english, {"/x": '<p>Ann würfelt</p><p title="Rückgängig">Ann</p><p>12</p>'},
                        {"ann"}) == {}
