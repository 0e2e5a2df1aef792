"""A request that fails on the server gets the app's error page, and, when that page cannot be
rendered either (the database does not answer: its header reads the account), a plain one:
never the server's bare "Internal Server Error"."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from scorekeeper.services import groups
from scorekeeper.views import games as views

from ..conftest import Auth, new_game


@pytest.fixture
def failing(make_app):
    app = make_app(PROPAGATE_EXCEPTIONS=False)  # as in production: errors go to the 500 handler
    yield app
    app.extensions["scorekeeper.engine"].dispose()


def test_a_failed_request_gets_the_apps_error_page(failing, monkeypatch):
    client = failing.test_client()
    Auth(client).register()
    game = new_game(client)

    def broken(game_id):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "owned", broken)
    r = client.get(f"/games/{game}")
    page = r.data.decode()
    assert r.status_code == 500
    assert "Something went wrong on the server; nothing was saved." in page and "New game" in page  # the header, as ever


def test_a_database_that_does_not_answer_gets_a_plain_error_page(failing, monkeypatch):
    client = failing.test_client()
    Auth(client).register()
    game = new_game(client)

    def down(session, user_id):
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    monkeypatch.setattr(groups, "load_account", down)
    r = client.get(f"/games/{game}")
    page = r.data.decode()
    assert r.status_code == 500 and r.headers["Content-Type"].startswith("text/html")
    assert "Something went wrong on the server; nothing was saved." in page and "New game" not in page
    assert '<a href="/">' in page  # the app's root (behind a proxy: its script root)
