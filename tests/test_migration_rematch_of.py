"""Migration ``rematch_of``: games made before it are given the game they were a rematch of as the
page found it then (the newest earlier game of the group with the same kind, players and options),
but only one finished before they were set up; a game set up while it was still being played is
none. Going down drops the column."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect, text

from scorekeeper.db import migrate

from .conftest import new_game
from .test_migration_started_by import ann_on
from .test_migrations import old_database  # noqa: F401 (the fixture)
from .views.test_mia_views import Table


def test_earlier_rematches_are_found_and_a_game_set_up_meanwhile_is_none(old_database, tmp_path):  # noqa: F811
    url = old_database
    app, client = ann_on(url, tmp_path)
    mia = dict(players=("Cat", "Ann", "Ben"), starter="0", lives=1, pass_back="may-pass")
    first = Table(client, new_game(client, "mia", **mia))
    meanwhile = new_game(client, "mia", **mia)  # set up by hand while the first is played
    first.quick("Cat", "Ann", 42, (4, 2))
    first.quick("Cat", "Ben", 42, (4, 2))  # the first is over
    r = client.post(f"/games/{first.game}/rematch", data={"version": str(first.version)})
    rematch = int(r.headers["Location"].rsplit("/", 1)[1])
    other = new_game(client, "mitchi", players=("Cat", "Ann", "Ben"))  # another kind
    app.extensions["scorekeeper.engine"].dispose()
    from alembic import command

    from scorekeeper.db import alembic_config

    command.downgrade(alembic_config(url), "started_by")  # before this migration
    engine = create_engine(url)
    assert "rematch_of" not in {c["name"] for c in inspect(engine).get_columns("game")}
    migrate(url)
    with engine.connect() as conn:
        found = dict(conn.execute(text("SELECT id, rematch_of FROM game")).all())
    engine.dispose()
    assert found == {first.game: None, meanwhile: None, rematch: first.game, other: None}
