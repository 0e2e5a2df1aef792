"""Languages: the German catalog covers every string the code marks, compiles, and is chosen by
the account, the session or the browser (docs/translations.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import HX, new_game

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "translations/de/LC_MESSAGES/messages.po"
MO = ROOT / "translations/de/LC_MESSAGES/messages.mo"


def extracted(tmp_path) -> set[str]:
    """Every msgid marked in the code and templates now (pybabel extract, as the README says)."""
    out = tmp_path / "now.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_l",
                    "-o", str(out), "--no-location", "."], cwd=ROOT, check=True, capture_output=True)
    return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(out.open("rb")) if m.id}


#: The marking functions of the Python code, and which argument holds the English text.
MARKERS = {"_": 0, "gettext": 0, "ngettext": 0, "_l": 0, "N_": 0, "lazy_gettext": 0, "pgettext": 1}


def test_pybabel_finds_every_string_the_python_code_marks(tmp_path):
    """Every ``_("...")`` (and the like) in the package is extracted: pybabel skips one written
    inside another marked call's arguments, which then stayed English on German pages."""
    import ast

    found = extracted(tmp_path)
    skipped = []
    for path in (ROOT / "scorekeeper").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                args = node.args[MARKERS[node.func.id]:]
                if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                    if args[0].value not in found:
                        skipped.append(f"{path.relative_to(ROOT)}:{node.lineno} {args[0].value!r}")
    assert not skipped, skipped


def test_every_marked_string_has_a_german_translation_and_none_is_fuzzy(tmp_path):
    catalog = read_po(PO.open("rb"))
    german = {(m.id if isinstance(m.id, str) else m.id[0]): m for m in catalog if m.id}
    missing = sorted(extracted(tmp_path) - set(german))
    assert not missing, f"not in the German catalog (run pybabel update): {missing[:10]}"
    untranslated = [i for i, m in german.items() if not (m.string if isinstance(m.string, str) else all(m.string))]
    assert not untranslated, untranslated[:10]
    assert not [i for i, m in german.items() if m.fuzzy], "fuzzy entries"
    # Placeholders survive translation: %(name)s in templates and Python, {name} in the rules'
    # refusal templates (docs/translations.md §Refusals); every plural form keeps the plural's.
    for msgid, m in german.items():
        if isinstance(m.string, str):
            assert placeholders(m.id) == placeholders(m.string), (msgid, m.string)
        else:
            assert all(placeholders(m.id[1]) == placeholders(form) for form in m.string), msgid


def test_no_german_text_shows_an_entry_types_code_name():
    """A German refusal read "erwartet wird ein Zug (turn) von Ann" (a playtest): the record's
    code names of entries stay out of the pages' words unless the English shows them too."""
    from scorekeeper.rules.base import ENTRY_KINDS

    codes = set(ENTRY_KINDS)
    shown = []
    for m in read_po(PO.open("rb")):
        english = m.id if isinstance(m.id, str) else " ".join(m.id)
        # the English names a code where it is no English word ("{player}'s startroll"), or in brackets
        named = {c for c in re.findall(r"\w+", english) if c in ("startroll", "tiebreak")}
        named |= set(re.findall(r"\((\w+)", english))
        for form in ([m.string] if isinstance(m.string, str) else m.string):
            shown += [(m.id, code) for code in re.findall(r"\b(\w+)\b", form or "")
                      if code in codes and code not in named and re.search(rf"\({code}\b|\b{code}\)", form)]
    assert not shown, shown


def placeholders(text: str) -> tuple[set, set]:
    """The %(name)s and the {name} placeholders of a message ({{ and }} are literal braces)."""
    literal = text.replace("{{", "").replace("}}", "")
    return set(re.findall(r"%\((\w+)\)[sd]", text)), set(re.findall(r"\{(\w*)\}", literal))


def test_a_german_direction_keeps_its_arrow_on_its_line():
    """Every German text that ends in a direction's arrow (↻ ↺) holds a no-break space before it:
    in Mia's narrow Direction box "im Uhrzeigersinn ↻" left the arrow alone on a line (a
    playtest at 320 px)."""
    arrowed = [m for m in read_po(PO.open("rb")) if isinstance(m.id, str) and m.id.endswith(("↻", "↺"))]
    assert len(arrowed) >= 4  # the Direction box (both ways) and the winner's reverse buttons
    for m in arrowed:
        assert m.string[-2:] in ("\u00a0↻", "\u00a0↺"), (m.id, m.string)


def test_the_catalog_compiles_and_the_committed_mo_is_current(tmp_path):
    out = tmp_path / "messages.mo"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "compile", "-i", str(PO), "-o", str(out),
                    "-l", "de"], check=True, capture_output=True)
    def entries(path):
        frozen = lambda v: tuple(v) if isinstance(v, (list, tuple)) else v  # plural entries are lists
        return {(m.context, frozen(m.id)): frozen(m.string) for m in read_mo(path.open("rb"))}

    fresh, committed = entries(out), entries(MO)
    assert fresh == committed, "translations/de/LC_MESSAGES/messages.mo is stale: run pybabel compile -d translations"


@pytest.mark.parametrize("header, language", [
    ("de-DE,de;q=0.9,en;q=0.5", "de"),
    ("de-AT,en-US;q=0.7,en;q=0.3", "de"),  # a regional first choice beats a plain later one (a playtest)
    ("de-CH,fr;q=0.5,en;q=0.3", "de"),
    ("DE-de", "de"),
    ("en-US,de;q=0.9", "en"),
    ("en-GB,de;q=0.5", "en"),
    ("fr,de;q=0.8,en;q=0.5", "de"),  # the first we speak, by quality
    ("en;q=0.2,de-DE;q=0.8", "de"),
    ("de;q=0,en-US", "en"),  # quality 0: not this one
    ("de;q=0", "en"),
    ("fr", "en"),
    ("*", "en"),
    ("", "en"),
])
def test_the_browsers_language_is_its_first_choice_that_we_speak(client, header, language):
    page = client.get("/login", headers={"Accept-Language": header}).data.decode()
    assert f'<html lang="{language}"' in page


def test_the_language_comes_from_the_browser_then_the_choice_then_the_account(app, client, auth):
    page = client.get("/login", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}).data.decode()
    assert '<html lang="de"' in page and "Sprache" in page
    page = client.get("/login", headers={"Accept-Language": "fr"}).data.decode()
    assert '<html lang="en"' in page
    # A choice on the login page holds for the session.
    assert client.post("/language", data={"language": "de", "next": "/login"}).status_code == 303
    assert '<html lang="de"' in client.get("/login", headers={"Accept-Language": "en"}).data.decode()
    r = client.post("/language", data={"language": "xx"})
    assert r.status_code == 400 and "Deutsch" in r.data.decode()
    # Logged in, the account's setting wins over the browser.
    auth.register()
    client.post("/language", data={"language": "de", "next": "/settings"})
    other = app.test_client()
    other.post("/login", data={"username": "ann", "password": "correct horse"})
    page = other.get("/groups", headers={"Accept-Language": "en"}).data.decode()
    assert "Mitglieder" in page and "Members" not in page


def test_group_and_live_pages_speak_german(app, client, auth):
    auth.register()
    client.post("/language", data={"language": "de"})
    gid = new_game(client)
    client.post(f"/games/{gid}/live")
    page = client.get(f"/games/{gid}/table").data.decode()
    assert "Dem Tisch zeigen" in page and "Link abschalten" in page
    token = re.search(r"/live/([\w-]+)", page).group(1)
    viewer = app.test_client()
    live = viewer.get(f"/live/{token}", headers={"Accept-Language": "de"}).data.decode()
    assert "Ann würfelt" in live
    r = viewer.post(f"/live/{token}", headers={"Accept-Language": "de", **HX})
    assert "nur zum Ansehen" in r.data.decode()
    assert "Einladungslink erstellen" in client.get("/groups").data.decode()


def test_the_catalog_looked_up_once_per_request_follows_a_language_switch(app):
    """The templates' _() and ngettext() and the code's gettext() take the request's catalog
    once (scorekeeper.i18n.catalog); force_locale() and refresh() still change it mid-request,
    and a template's values are escaped as Jinja's own newstyle gettext escapes them."""
    from flask import render_template_string
    from flask_babel import force_locale

    from scorekeeper.i18n import gettext, ngettext

    page = "{{ _('Round') }} {{ ngettext('%(num)d point', '%(num)d points', 2) }} {{ _('%(player)s starts', player=who) }}"
    with app.test_request_context("/", headers={"Accept-Language": "de"}):
        assert render_template_string(page, who="<b>") == "Runde 2 Punkte &lt;b&gt; fängt an"
        with force_locale("en"):
            assert render_template_string(page, who="Ann") == "Round 2 points Ann starts"
            assert gettext("Round") == "Round"
            assert ngettext("%(num)d point", "%(num)d points", 1) == "1 point"
        assert render_template_string(page, who="Ann") == "Runde 2 Punkte Ann fängt an"
        assert gettext("%(player)s starts", player="<b>") == "<b> fängt an"  # escaped where it is shown
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert render_template_string(page, who="Ann") == "Round 2 points Ann starts"


def test_the_language_a_browser_asks_for_is_worked_out_once_per_header():
    """``browser_language``: Werkzeug's ``best_match`` of each header, the same when asked again
    (kept by the header's text, never another header's answer), English when nothing matches,
    and a bounded number of headers kept."""
    from werkzeug.datastructures import LanguageAccept
    from werkzeug.http import parse_accept_header

    from scorekeeper import i18n

    headers = ["de-DE,de;q=0.9,en;q=0.5", "en;q=0.5, de;q=0.9", "de-AT", "fr", "", "en-GB,en;q=0.9",
               "de;q=0, en;q=0.1", "*", "fr-CH, fr;q=0.9, de;q=0.7"]
    werkzeug = [parse_accept_header(h, LanguageAccept).best_match(list(i18n.LANGUAGES)) or "en"
                for h in headers]
    assert "de" in werkzeug and "en" in werkzeug  # both answers are among the cases
    assert [i18n.browser_language(h) for h in headers] == werkzeug
    assert [i18n.browser_language(h) for h in reversed(headers)] == werkzeug[::-1]
    kept = i18n.browser_language.cache_info()
    assert kept.hits >= len(headers) and kept.maxsize == 1024 and kept.currsize <= kept.maxsize


def _texts_with_values() -> list[str]:
    """Every English and German text of the catalog that has a value to fill in."""
    texts = []
    for m in read_po(PO.open("rb")):
        for found in (m.id, m.string):
            for t in found if isinstance(found, tuple) else [found]:
                if t and "%(" in t:
                    texts.append(t)
    return texts


TEXTS_WITH_VALUES = _texts_with_values()


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_a_text_is_filled_as_markupsafe_fills_it(data):
    """``i18n.markup_filled`` (the templates' _(), ngettext(), pgettext() with values): the same
    markup as ``Markup(text) % values`` for any of the catalog's texts, with names holding HTML,
    quotes and ampersands, numbers, markup, and values of other kinds (those go to markupsafe)."""
    from markupsafe import Markup

    from scorekeeper.i18n import markup_filled

    text = data.draw(st.sampled_from(TEXTS_WITH_VALUES))
    values = {}
    for name, kind in re.findall(r"%\((\w+)\)([sd])", text):
        if kind == "d":
            values[name] = data.draw(st.one_of(st.integers(), st.booleans()))
        else:
            values[name] = data.draw(st.one_of(
                st.text(),
                st.sampled_from(["<b>x</b><script>alert(1)</script>", "Ann & Ben", "O'Neil \"Jr\""]),
                st.integers(), st.builds(Markup, st.sampled_from(["<b>Ann</b>", "&amp;"])), st.none(),
                st.floats(allow_nan=False)))
    ours = markup_filled(text, values)
    assert type(ours) is Markup and ours == Markup(text) % values


_VALUES = st.one_of(st.integers(-3, 70), st.booleans(), st.none(), st.sampled_from(["Ann", "<b>Ben</b>", "1"]),
                    st.lists(st.one_of(st.integers(0, 7), st.booleans()), max_size=3), st.floats(0, 7),
                    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 2), max_size=2))
_ENTRIES = st.fixed_dictionaries(
    {"type": st.sampled_from(["start", "startroll", "turn", "tiebreak", "announce", "pass", "challenge",
                              "reverse", "first", "join", "run", "reveal", "other"])},
    optional={k: _VALUES for k in ("player", "hand", "rolls", "die", "value", "penalty", "cup", "owner",
                                   "announced", "dice")})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=_ENTRIES, b=_ENTRIES)
def test_entries_with_one_key_are_described_alike(app, a, b):
    """The "Last entries" lines are kept by ``web.entry_key`` (not by the described line, which
    costs more to make): two entries with one key have one line, in English and in German, for
    any values (1 and True, a list and a flag, a nested dict: docs/speed.md §Entry path)."""
    from flask_babel import force_locale

    from scorekeeper.web import entry_key
    from scorekeeper.words import describe

    def line(entry):  # a log's entries are legal: a value describe() cannot show is only compared
        try:
            return describe(entry)
        except (TypeError, ValueError) as err:
            return type(err)

    for x in (a, {**b, "type": a["type"]}, {k: (int(v) if type(v) is bool else v) for k, v in a.items()}):
        if entry_key(x) != entry_key(a):
            continue
        with app.test_request_context("/"):
            for lang in ("en", "de"):
                with force_locale(lang):
                    assert line(x) == line(a), (x, a)
    hash(entry_key(a))  # a key, whatever the values


def test_an_entry_said_without_its_value_shows_a_question_mark_not_none(app):
    """A refused entry is repeated to its sender ("You tried: …") as it was sent; a hand-made form
    without Mia's announced value or a turn's rolls read "Eve challenges Ann's None" (a playtest)."""
    from flask_babel import force_locale

    from scorekeeper.words import describe

    with app.test_request_context():
        for lang in ("en", "de"):
            with force_locale(lang):
                lines = [describe({"type": "challenge", "player": "Eve", "owner": "Ann", "cup": [3, 1]}),
                         describe({"type": "announce", "player": "Eve"}),
                         describe({"type": "pass", "player": "Eve", "value": None}),
                         describe({"type": "turn", "player": "Eve", "hand": [6, 3]}),
                         describe({"type": "turn", "player": "Eve", "hand": [6, 3], "rolls": None})]
                assert all("None" not in line and "?" in line for line in lines), lines
