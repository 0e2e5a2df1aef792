"""CSRF on every state-changing route, found from the app's URL map: a new route is covered at once."""

from __future__ import annotations

import re

from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel

from ..conftest import HX

CHANGING = {"POST", "PUT", "PATCH", "DELETE"}

#: A body each route would act on if the token were there (so a refusal is the token's doing).
BODIES = {
    "auth.register": {"username": "eve", "password": "tulip carriage 9", "confirm": "tulip carriage 9"},
    "auth.login": {"username": "ann", "password": "correct horse"},
    "auth.change_password": {"current": "correct horse", "password": "tulip carriage 9",
                             "confirm": "tulip carriage 9"},
    "games.setup": {"seats": "2", "starter": "0", "action": "create", "players-0": "Ann",
                    "players-1": "Ben", "opt_point_limit": "25"},
    "games.add_entry": {"version": "1", "type": "turn", "player": "Ann", "hand.0": "3", "hand.1": "1",
                        "rolls": "1"},
    "games.undo": {"version": "1"},
    "games.correct": {"version": "1", "type": "start", "player": "Ben"},
    "history.settings": {"timezone": "Europe/Berlin"},
    "auth.language": {"language": "de"},
    "groups.new": {"name": "Friday"},
    "groups.rename": {"name": "Friday"},
}


def changing_rules(app):
    return [r for r in app.url_map.iter_rules() if r.methods & CHANGING]


def url_for_rule(rule, game_id: int) -> str:
    """The rule's URL with values: ints are the test game's id (or entry 1, the group and account
    1), ``name`` a game, any other text "x". The CSRF check comes before the view, so a route whose
    value finds nothing is still checked."""
    values = {}
    for arg in rule.arguments:
        converter = type(rule._converters[arg]).__name__
        if arg == "seq":
            values[arg] = 1
        elif converter in ("DatabaseId", "IntegerConverter"):
            values[arg] = game_id
        elif arg == "name":
            values[arg] = "mitchi"
        else:
            values[arg] = "x"
    return rule.build(values)[1]


def snapshot(app) -> dict:
    """Every row of every table: what 'changes nothing' is checked against."""
    with Session(app.extensions["scorekeeper.engine"]) as s:
        return {t.name: sorted(map(tuple, s.connection().execute(sa_select(t)).all()), key=repr)
                for t in SQLModel.metadata.sorted_tables}


def token_of(html: bytes) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html.decode()).group(1)


def registered_with_game(app):
    """A browser of the app (CSRF on) that registered ann and set up a game through the real
    forms: ``(client, the token of its last page, the game's id)``."""
    client = app.test_client()
    token = token_of(client.get("/register").data)
    client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse"},
                headers={"X-CSRFToken": token})
    token = token_of(client.get("/games/new/mitchi").data)
    r = client.post("/games/new/mitchi", data=BODIES["games.setup"], headers={"X-CSRFToken": token})
    return client, token, int(r.headers["Location"].rsplit("/", 1)[1])


def test_every_state_changing_route_refuses_a_post_without_token(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    client = app.test_client()
    token = token_of(client.get("/register").data)
    r = client.post("/register", data={"username": "ann", "password": "correct horse",
                                       "confirm": "correct horse"}, headers={"X-CSRFToken": token})
    assert r.status_code == 303
    token = token_of(client.get("/games/new/mitchi").data)
    r = client.post("/games/new/mitchi", data=BODIES["games.setup"], headers={"X-CSRFToken": token})
    assert r.status_code == 303
    game_id = int(r.headers["Location"].rsplit("/", 1)[1])

    rules = changing_rules(app)
    assert len(rules) >= 20  # accounts, games, entries, import, settings, groups, invites, live links
    before = snapshot(app)
    for rule in rules:
        url = url_for_rule(rule, game_id)
        body = BODIES.get(rule.endpoint, {})
        for method in sorted(rule.methods & CHANGING):
            for headers in ({}, HX, {"X-CSRFToken": "forged"}):
                r = client.open(url, method=method, data=body, headers=headers)
                assert r.status_code == 400 and b"security token" in r.data, (rule.rule, method, headers)
    assert snapshot(app) == before
    assert client.get("/settings").status_code == 200  # still logged in: logout was refused too

    # The same requests with the page's token get past the check (the test bodies are real).
    token = token_of(client.get("/settings").data)
    for rule in rules:
        if rule.endpoint in ("auth.logout", "auth.register", "auth.login"):
            continue
        r = client.post(url_for_rule(rule, game_id), data=BODIES.get(rule.endpoint, {}),
                        headers={"X-CSRFToken": token})
        assert b"security token" not in r.data, rule.rule


def test_an_entry_answer_carries_the_token_it_was_let_through_with(make_app):
    """The panel an entry answers with carries the token the entry was sent with (no token signed
    anew for each entry: docs/speed.md §Entry path), and that token carries the next entry, sent
    from the panel's own form field. A token of another session is still refused."""
    import time

    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    app = make_app(WTF_CSRF_ENABLED=True)
    client, token, game_id = registered_with_game(app)

    class Earlier(TimestampSigner):  # a token signed 100 s ago: not what a new signing would give
        def get_timestamp(self) -> int:
            return int(time.time()) - 100

    with client.session_transaction() as s:
        secret = s["csrf_token"]
    old = URLSafeTimedSerializer(app.secret_key, salt="wtf-csrf-token", signer=Earlier).dumps(secret)
    assert old != token
    v = int(re.search(r'data-version="(\d+)"', client.get(f"/games/{game_id}").data.decode()).group(1))
    turn = {"version": str(v), "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "6", "rolls": "1"}
    r = client.post(f"/games/{game_id}/entries", data=turn, headers={**HX, "X-CSRFToken": old})
    assert r.status_code == 200 and f'data-version="{v + 1}"'.encode() in r.data
    tokens = set(re.findall(r'name="csrf_token"[^>]*value="([^"]+)"', r.data.decode()))
    assert tokens == {old}
    turn = {**turn, "version": str(v + 1), "player": "Ben", "hand.0": "5", "hand.1": "5", "csrf_token": old}
    r = client.post(f"/games/{game_id}/entries", data=turn, headers=HX)
    assert r.status_code == 200 and f'data-version="{v + 2}"'.encode() in r.data

    other = app.test_client()  # another browser: its own session and secret
    foreign = token_of(other.get("/register").data)
    turn = {**turn, "version": str(v + 2), "player": "Ann", "hand.0": "4", "csrf_token": foreign}
    r = client.post(f"/games/{game_id}/entries", data=turn, headers=HX)
    assert r.status_code == 400 and b"security token" in r.data and foreign.encode() not in r.data


def test_an_entry_answer_signs_a_token_when_flask_wtf_cannot_say_which_it_checked(make_app, monkeypatch):
    """Flask-WTF tells which token it checked only by a private method (web.keep_sent_csrf_token):
    without it (another version), an entry still lands, and its answer carries a token signed
    anew that carries the next entry."""
    from types import SimpleNamespace

    from scorekeeper import web

    app = make_app(WTF_CSRF_ENABLED=True)
    client, token, game_id = registered_with_game(app)
    page = client.get(f"/games/{game_id}").data.decode()
    v = int(re.search(r'data-version="(\d+)"', page).group(1))
    # The protection the app registered stays; what the module asks it is a version without the method.
    monkeypatch.setattr(web, "csrf", SimpleNamespace())
    turn = {"version": str(v), "type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "6", "rolls": "1"}
    r = client.post(f"/games/{game_id}/entries", data={**turn, "csrf_token": token}, headers=HX)
    assert r.status_code == 200 and f'data-version="{v + 1}"'.encode() in r.data
    (fresh,) = set(re.findall(r'name="csrf_token"[^>]*value="([^"]+)"', r.data.decode()))
    turn = {**turn, "version": str(v + 1), "player": "Ben", "hand.0": "5", "hand.1": "5", "csrf_token": fresh}
    r = client.post(f"/games/{game_id}/entries", data=turn, headers=HX)
    assert r.status_code == 200 and f'data-version="{v + 2}"'.encode() in r.data
