"""Creating forms store once: a repeated or racing sending answers with what the first one made."""

from __future__ import annotations

import re
import threading
import time

from sqlmodel import Session, func, select

from scorekeeper.models import Game, OnceToken, User

from ..conftest import Auth
from .test_sessions import copy_cookies


def count(app, model) -> int:
    with Session(app.extensions["scorekeeper.engine"]) as s:
        return s.exec(select(func.count()).select_from(model)).one()


def once_token(html: bytes) -> str:
    return re.search(r'name="once" value="([^"]+)"', html.decode()).group(1)


def register_data(token: str | None, name="ann", password="correct horse") -> dict:
    data = {"username": name, "password": password, "confirm": password}
    if token:
        data["once"] = token
    return data


def together(n: int, send) -> list:
    """Run ``send(i)`` in ``n`` threads released at the same instant; their answers in order."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        barrier.wait()
        try:
            results[i] = send(i)
        except Exception as err:  # noqa: BLE001  (a crash is a result too)
            results[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_forms_that_create_carry_a_fresh_token(client, auth):
    first, second = once_token(client.get("/register").data), once_token(client.get("/register").data)
    assert first != second
    auth.register()
    assert once_token(client.get("/games/new/mitchi").data)


def test_register_sent_twice_logs_in_to_the_first_ones_account(app, client):
    token = once_token(client.get("/register").data)
    assert client.post("/register", data=register_data(token)).status_code == 303
    # The answer was lost; the phone sends the same form again, without the new cookies.
    again = app.test_client()
    r = again.post("/register", data=register_data(token))
    assert r.status_code == 303 and r.headers["Location"] == "/"
    assert again.get("/settings").status_code == 200  # logged in as that account
    assert count(app, User) == 1
    # The same token with another password is no way into the account.
    thief = app.test_client()
    r = thief.post("/register", data=register_data(token, password="other horse saddle"))
    assert r.status_code == 400 and b"That name is taken" in r.data
    assert thief.get("/settings").status_code == 302


def test_a_taken_name_without_the_token_is_refused(app, client):
    client.post("/register", data=register_data(once_token(client.get("/register").data)))
    other = app.test_client()
    r = other.post("/register", data=register_data(once_token(other.get("/register").data)))
    assert r.status_code == 400 and b"That name is taken" in r.data


def test_malformed_token_is_refused(app, client):
    r = client.post("/register", data=register_data("<script>"))
    assert r.status_code == 400 and b"one-time token is malformed" in r.data
    assert count(app, User) == 0


def test_a_register_form_that_made_its_account_between_two_reads_logs_in(app, monkeypatch):
    """One form sent twice at once: the second sending looked for the form's token before the
    first had committed, and for the name after. It is the same form, not a taken name: it logs
    in (it answered "That name is taken" once in eight such races under load)."""
    from scorekeeper.services import once

    token = once_token(app.test_client().get("/register").data)
    first, second = app.test_client(), app.test_client()
    assert first.post("/register", data=register_data(token)).status_code == 303
    real, calls = once.find, []

    def find_before_the_commit(*args, **kwargs):  # the first look saw no token yet
        calls.append(args)
        return None if len(calls) == 1 else real(*args, **kwargs)

    monkeypatch.setattr(once, "find", find_before_the_commit)
    r = second.post("/register", data=register_data(token))
    assert r.status_code == 303 and len(calls) >= 2
    assert second.get("/settings").status_code == 200
    assert count(app, User) == 1


def test_twenty_simultaneous_registrations_of_one_name(app):
    """Twenty phones, each its own form: one account; the others are told the name is taken."""
    clients = [app.test_client() for _ in range(20)]
    tokens = [once_token(c.get("/register").data) for c in clients]
    answers = together(20, lambda i: clients[i].post("/register", data=register_data(tokens[i])))
    codes = [getattr(a, "status_code", a) for a in answers]
    assert sorted(codes, key=str) == [303] + [400] * 19, codes
    assert all(b"That name is taken" in a.data for a in answers if a.status_code == 400)
    assert count(app, User) == 1


def test_simultaneous_sendings_of_one_register_form(app):
    """One form sent eight times at once (a stuck button): one account, every answer logs in."""
    token = once_token(app.test_client().get("/register").data)
    clients = [app.test_client() for _ in range(8)]
    answers = together(8, lambda i: clients[i].post("/register", data=register_data(token)))
    codes = [getattr(a, "status_code", a) for a in answers]
    assert codes == [303] * 8, codes
    assert count(app, User) == 1 and count(app, OnceToken) == 1
    assert all(c.get("/settings").status_code == 200 for c in clients)


def setup_data(token: str) -> dict:
    return {"seats": "3", "starter": "0", "action": "create", "players-0": "Ann", "players-1": "Ben",
            "players-2": "Cat", "opt_point_limit": "25", "once": token}


def test_start_the_game_posted_twice_makes_one_game(app, client, auth):
    auth.register()
    token = once_token(client.get("/games/new/mitchi").data)
    first = client.post("/games/new/mitchi", data=setup_data(token))
    assert first.status_code == 303, first.data.decode()[-2000:]
    time.sleep(0.7)
    second = client.post("/games/new/mitchi", data=setup_data(token))
    assert second.status_code == 303 and second.headers["Location"] == first.headers["Location"]
    assert count(app, Game) == 1
    # A new showing of the form is a new game.
    other = client.post("/games/new/mitchi", data=setup_data(once_token(client.get("/games/new/mitchi").data)))
    assert other.status_code == 303 and other.headers["Location"] != first.headers["Location"]
    assert count(app, Game) == 2


def test_start_the_game_sent_ten_times_at_once(app, client, auth):
    auth.register()
    token = once_token(client.get("/games/new/mitchi").data)
    phones = [app.test_client() for _ in range(10)]
    for phone in phones:
        copy_cookies(client, phone)
    answers = together(10, lambda i: phones[i].post("/games/new/mitchi", data=setup_data(token)))
    codes = [getattr(a, "status_code", a) for a in answers]
    assert codes == [303] * 10, codes
    assert len({a.headers["Location"] for a in answers}) == 1
    assert count(app, Game) == 1


def test_a_seat_button_keeps_the_token_and_a_refused_form_too(client, auth):
    auth.register()
    token = once_token(client.get("/games/new/mitchi").data)
    r = client.post("/games/new/mitchi", data={**setup_data(token), "action": "add"})
    assert once_token(r.data) == token
    r = client.post("/games/new/mitchi", data={**setup_data(token), "players-1": "Ann"})
    assert r.status_code == 400 and once_token(r.data) == token
    assert client.post("/games/new/mitchi", data=setup_data(token)).status_code == 303


def test_another_accounts_token_is_refused(app, client, auth):
    auth.register()
    token = once_token(client.get("/games/new/mitchi").data)
    assert client.post("/games/new/mitchi", data=setup_data(token)).status_code == 303
    other = app.test_client()
    Auth(other).register("bob")
    r = other.post("/games/new/mitchi", data=setup_data(token))
    assert r.status_code == 400 and b"already sent" in r.data
    assert count(app, Game) == 1


def test_a_new_group_sent_twice_is_made_once(app, client, auth):
    from scorekeeper.models import Group

    auth.register()
    token = once_token(client.get("/groups").data)
    first = client.post("/groups/new", data={"name": "Friday", "once": token})
    assert first.status_code == 303
    again = client.post("/groups/new", data={"name": "Friday", "once": token})
    assert again.status_code == 303
    assert count(app, Group) == 2  # the account's own group and Friday
    assert b"Friday" in client.get("/groups").data
