"""Migration ``started_by``: a practice game set up before it is given the account of its first
entry (the roll for who starts), so that only that account plays it; one without entries stays
without (any member plays it, as before), and other games are left without."""

from __future__ import annotations

import re

from sqlalchemy import create_engine, text

from scorekeeper import create_app
from scorekeeper.db import migrate

from .conftest import Auth, new_game
from .test_migrations import old_database  # noqa: F401 (the fixture)


def _practice(client, name, option, value) -> int:
    r = client.post(f"/practice/new/{name}", data={"player": "Ann", option: value})
    assert r.status_code == 303, r.data.decode()[:1000]
    return int(re.search(r"/practice/(\d+)$", r.headers["Location"]).group(1))


def ann_on(url: str, tmp_path):
    """The app on ``url`` at the head, and a client of the account ``ann``, registered there."""
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    Auth(client).register("ann")
    return app, client


def test_practice_games_get_the_account_of_their_first_entry(old_database, tmp_path):  # noqa: F811
    url = old_database
    app, client = ann_on(url, tmp_path)
    mitchi = _practice(client, "mitchi", "point_limit", "3")  # rolls for who starts: entries
    mice = _practice(client, "mice-and-men", "rounds", "2")  # seat 1 opens: no entry yet
    real = new_game(client)
    app.extensions["scorekeeper.engine"].dispose()
    from alembic import command

    from scorekeeper.db import alembic_config

    command.downgrade(alembic_config(url), "score_bigint")  # before this migration
    migrate(url)
    engine = create_engine(url)
    with engine.connect() as conn:
        ann = conn.execute(text("SELECT id FROM \"user\" WHERE username = 'ann'")).scalar()
        started = dict(conn.execute(text("SELECT id, started_by FROM game")).all())
    engine.dispose()
    assert started == {mitchi: ann, mice: None, real: None}
