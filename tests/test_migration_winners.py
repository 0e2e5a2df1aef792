"""Migration ``winners_names``: a finished game whose listed winners kept a name from before a
rename (or a merge) lists them by its seats' names again; other games are left as they are."""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text

from scorekeeper import create_app
from scorekeeper.db import migrate
from scorekeeper.rules import record as records

from .conftest import Auth
from .test_migrations import old_database  # noqa: F401 (the fixture)
from .views.test_history import golden, upload


def test_stale_winners_are_listed_by_the_new_names(old_database, tmp_path):  # noqa: F811
    url = old_database
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    Auth(client).register()
    finished = [golden("mitchi/mitchi-11-zero-point-winner"), golden("mia/mia-5-skip-eliminated-game-end")]
    assert upload(client, *finished).status_code == 303
    app.extensions["scorekeeper.engine"].dispose()
    from alembic import command

    from scorekeeper.db import alembic_config

    command.downgrade(alembic_config(url), "export_rows")  # before this migration (nothing undone)
    engine = create_engine(url)
    with engine.begin() as conn:
        ids = [i for (i,) in conn.execute(text("SELECT id FROM game ORDER BY id"))]
        # as a rename before the fix left it: the seats renamed, the listed winner not
        conn.execute(text("UPDATE game SET winners = :w WHERE id = :g"), {"w": '["Somebody Old"]', "g": ids[0]})
        untouched = conn.execute(text("SELECT winners FROM game WHERE id = :g"), {"g": ids[1]}).scalar()
    migrate(url)
    with engine.connect() as conn:
        (kind, fixed), (_, other) = (conn.execute(text("SELECT game, winners FROM game WHERE id = :g"),
                                                  {"g": g}).one() for g in ids)
    engine.dispose()
    record = next(r for r in finished if r["game"] == kind)
    assert json.loads(fixed) == list(records.replay(record)["winners"]) != ["Somebody Old"]
    assert other == untouched  # its winners were right: not written
