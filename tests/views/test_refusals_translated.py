"""The engine's refusals in the players' language (docs/translations.md §Refusals).

Every refusal the rules raise carries a marked template (no bare text), every template is in the
German catalog, and an illegal entry posted by a German player is answered in German with the
same values, while the English answer is the engine's own text (the one `scorekeeper replay`
prints). The illegal entries are the rules' golden cases (tests/records).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from markupsafe import escape
from werkzeug.datastructures import MultiDict

from scorekeeper import forms
from scorekeeper.i18n import translated
from scorekeeper.rules import record as records
from scorekeeper.rules.base import Phrase, RuleError

from ..conftest import HX, messages, new_game

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "translations/de/LC_MESSAGES/messages.po"
#: Where refusals are raised: the rules, and the services that answer entries.
SOURCES = sorted((ROOT / "scorekeeper/rules").rglob("*.py")) + [
    ROOT / "scorekeeper/services/games.py", ROOT / "scorekeeper/services/practice.py"]
REFUSALS = {"IllegalEntry", "RecordError", "RuleError", "Refused"}


def german_catalog() -> dict:
    """msgid (the singular of a plural) -> its German text(s), translated entries only."""
    out = {}
    for m in read_po(PO.open("rb")):
        if m.id and (m.string if isinstance(m.string, str) else all(m.string)):
            out[m.id if isinstance(m.id, str) else m.id[0]] = m.string
    return out


def is_text(node: ast.AST) -> bool:
    """A message written out in place: a string literal, an f-string, text glued with + or %."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return is_text(node.left) or is_text(node.right)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def test_every_refusal_is_raised_with_a_marked_template_that_has_german():
    unmarked, marked = [], []
    for path in SOURCES:
        tree = ast.parse(path.read_text(), str(path))
        # The error classes themselves wrap what they are given; every other call is a raise site.
        inner = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name in ("Phrase", "RuleError")
                 for n in ast.walk(c)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or id(node) in inner:
                continue
            name = node.func.id
            if name in REFUSALS | {"Phrase"} and node.args and is_text(node.args[0]):
                unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if name in ("N_", "Nn_"):
                assert all(isinstance(a, ast.Constant) for a in node.args), f"{path}:{node.lineno}"
                marked.append(node.args[0].value)
    assert not unmarked, f"refusals with bare text (mark them with N_): {unmarked}"
    assert len(marked) > 150
    missing = sorted(set(marked) - set(german_catalog()))
    assert not missing, f"templates without German (pybabel extract/update, then translate): {missing[:5]}"


def golden() -> list[tuple[str, dict, int]]:
    """The golden records the rules refuse at an entry: (name, record, the refused entry's number)."""
    out = []
    for path in sorted((ROOT / "tests/records").glob("*/*.json")):
        case = json.loads(path.read_text())
        at = case["expect"].get("refused_at")
        if at:
            out.append((path.stem, case["record"], at))
    return out


def sentence(message) -> str:
    """The engine's text (a refusal, or its phrase) as a page shows it: starting with a word (its
    own or an inner phrase's), with a capital; with a name or a key, as written
    (scorekeeper.i18n.translated)."""
    phrase = message if isinstance(message, Phrase) else message.message
    text = str(message)
    while phrase.template.startswith("{"):  # the value that starts it: a phrase, else shown as written
        phrase = phrase.values.get(phrase.template[1:phrase.template.find("}")])
        if not isinstance(phrase, Phrase):
            return text
    return text[:1].upper() + text[1:] if phrase.template[:1].islower() else text


def templates(phrase) -> set[str]:
    """Every template in a phrase and in the phrases among its values."""
    if not isinstance(phrase, Phrase):
        return set()
    found = {phrase.template}
    for value in phrase.values.values():
        found |= templates(value)
    return found


def plain_values(phrase) -> list[str]:
    """The values shown as they are (names, numbers), in a phrase and its inner phrases."""
    out = []
    for value in phrase.values.values():
        out += plain_values(value) if isinstance(value, Phrase) else [str(value)]
    return out


def test_every_golden_refusal_reads_in_german_with_its_values_and_in_english_as_replay_says(app):
    german = german_catalog()
    cases = golden()
    assert len(cases) > 100
    for name, record, at in cases:
        with pytest.raises(RuleError) as caught:
            records.build(record)
        err = caught.value
        assert isinstance(err.message, Phrase), name
        assert templates(err.message) <= set(german), (name, templates(err.message) - set(german))
        with app.test_request_context(headers={"Accept-Language": "en"}):
            assert translated(err) == sentence(err), name
        with app.test_request_context(headers={"Accept-Language": "de"}):
            text = translated(err)
        assert text != str(err) and text.startswith(f"Eintrag {at}: "), (name, text)
        assert not re.search(r"\{\w*\}", text), (name, text)
        for value in plain_values(err.message):
            assert value in text, (name, value, text)


def form_data(entry: dict) -> dict | None:
    """The entry as the game page posts it, or None if a form cannot say it."""
    data: dict = {}
    for key, value in entry.items():
        if key in forms.TEXT_KEYS and isinstance(value, str) and value:
            data[key] = value
        elif key in forms.INT_KEYS and type(value) is int:
            data[key] = str(value)
        elif key in forms.DICE_KEYS and isinstance(value, list) and 0 < len(value) <= 4 \
                and all(type(d) is int and 0 <= d < 100 for d in value):
            data.update({f"{key}.{i}": str(d) for i, d in enumerate(value)})
        else:
            return None
    try:
        return data if forms.entry_from_form(MultiDict(data)) == entry else None
    except forms.BadForm:
        return None


def postable(record) -> bool:
    if not isinstance(record, dict) or not isinstance(record.get("entries"), list):
        return False
    try:
        records.load_header(record)
    except RuleError:
        return False
    return all(isinstance(e, dict) and form_data(e) is not None for e in record["entries"])


CASES = [c for c in golden() if postable(c[1])]


def test_enough_golden_cases_can_be_posted():
    games = {record["game"] for _, record, _ in CASES}
    assert games == {"mitchi", "mia", "mice-and-men"} and len(CASES) > 60


def engine_refusal(record: dict, at: int) -> RuleError:
    with pytest.raises(records.ReplayError) as caught:
        records.build({**record, "entries": record["entries"][:at]})
    assert caught.value.entry == at
    return caught.value


@pytest.mark.parametrize("name,record,at", CASES, ids=[c[0] for c in CASES])
def test_an_illegal_entry_is_refused_in_the_players_language(app, client, auth, name, record, at):
    auth.register()
    options = {k.replace("-", "_"): v for k, v in record["options"].items()}
    gid = new_game(client, record["game"], tuple(record["players"]), starter=forms.ROLLOFF, **options)
    for version, entry in enumerate(record["entries"][:at - 1]):
        r = client.post(f"/games/{gid}/entries", data={"version": str(version), **form_data(entry)}, headers=HX)
        assert r.status_code == 200, (name, version, messages(r.data))
    illegal = {"version": str(at - 1), **form_data(record["entries"][at - 1])}
    err = engine_refusal(record, at)
    with app.test_request_context(headers={"Accept-Language": "de"}):
        german = translated(err.reason)

    client.post("/language", data={"language": "de"})
    r = client.post(f"/games/{gid}/entries", data=illegal, headers=HX)
    assert r.status_code == 422
    shown = messages(r.data)
    assert str(escape(german)) in shown, (name, shown)
    assert str(escape(err.reason)) not in shown
    for value in plain_values(err.reason):
        assert any(str(escape(value)) in m for m in shown), (name, value, shown)

    client.post("/language", data={"language": "en"})
    r = client.post(f"/games/{gid}/entries", data=illegal, headers=HX)
    assert r.status_code == 422 and str(escape(sentence(err.reason))) in messages(r.data), (name, messages(r.data))
    assert r.data.decode().count('class="msg error"') == 1


def test_undo_redo_correction_and_practice_refusals_speak_german(client, auth):
    auth.register()
    client.post("/language", data={"language": "de"})
    empty = new_game(client, starter=forms.ROLLOFF)  # no entry yet
    undo = client.post(f"/games/{empty}/undo", data={"version": "0"}, headers=HX)
    redo = client.post(f"/games/{empty}/redo", data={"version": "0"}, headers=HX)
    assert undo.status_code == 422 and messages(undo.data) == ["Es gibt noch nichts rückgängig zu machen"]
    assert redo.status_code == 422 and messages(redo.data)[0].startswith("Es gibt nichts wiederherzustellen")
    game = new_game(client)  # Mitchi, Ann starts
    for v, (player, rolls) in enumerate((("Ann", 3), ("Ben", 3))):
        client.post(f"/games/{game}/entries", data={"version": str(v), "type": "turn", "player": player,
                                                    "hand.0": "5", "hand.1": "3", "rolls": str(rolls)}, headers=HX)
    r = client.post(f"/games/{game}/entries/2", data={"version": "2", "type": "turn", "player": "Ann",
                                                      "hand.0": "5", "hand.1": "3", "rolls": "1"})
    assert r.status_code == 422
    assert ("Diese Korrektur würde Eintrag 3 (" in r.data.decode()
            and "ungültig machen: beim Auswürfeln" not in r.data.decode()
            and "die Wurfgrenze dieser Runde ist 1, also darf Ben so oft würfeln: nur 1" in r.data.decode())
    r = client.post(f"/games/{game}/entries/9", data={"version": "2", "type": "turn", "player": "Ann",
                                                      "hand.0": "5", "hand.1": "3", "rolls": "1"})
    assert r.status_code == 422 and "Es gibt keinen Eintrag 9; das Protokoll hat 3 Einträge" in r.data.decode()

    r = client.post("/practice/new/mitchi", data={"player": "Ann", "point_limit": "5"})
    gid = int(re.search(r"/practice/(\d+)", r.headers["Location"]).group(1))
    page = client.get(f"/practice/{gid}").data.decode()
    v = re.search(r'name="version" value="(\d+)"', page).group(1)
    odd = client.post(f"/practice/{gid}/roll", headers=HX, data={"version": v, "step": "0", "action": "fly"})
    said = messages(odd.data)  # your move, or a virtual player's (who starts is rolled for)
    assert odd.status_code == 422 and len(said) == 1, said
    assert re.fullmatch(r"fly ist jetzt kein Zug; du kannst würfeln|\w+ ist dran, nicht du: tipp auf Weiter, "
                        r"um es zu sehen", said[0]), said


def test_a_refused_setup_answers_in_german(client, auth):
    auth.register()
    client.post("/language", data={"language": "de"})
    data = {"seats": "3", "starter": "0", "action": "create", "players-0": "Ann", "players-1": "ann",
            "players-2": "Ben", "opt_point_limit": "7"}
    r = client.post("/games/new/mitchi", data=data)
    assert r.status_code == 400
    assert ("Der Spielername &#39;ann&#39; kommt doppelt vor (er liest sich wie &#39;Ann&#39;)"
            in r.data.decode()), messages(r.data)
