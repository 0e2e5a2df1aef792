"""Migration ``export_rows`` (0014) from a database at ``ratelimit`` with every golden record in
it, on SQLite and, when ``TEST_DATABASE_URL`` names one, on a throwaway PostgreSQL database:
every game that replays gets its rounds stored at its version, equal to a full replay's; a log
the rules refuse gets none; the export then reads them and its games.csv is each game's own
CSV; going back down drops the two tables."""

from __future__ import annotations

import io
import zipfile

import pytest

from sqlalchemy import create_engine, text

from scorekeeper import create_app
from scorekeeper.db import alembic_config, migrate
from scorekeeper.rules import RULES_VERSION
from scorekeeper.rules import record as records
from scorekeeper.services import export_rows

from .conftest import Auth
from .test_migration_figures import _fill_at_ratelimit, goldens
from .test_migrations import old_database  # noqa: F401 (the fixture)


def test_export_rows_migration_stores_every_games_rounds(old_database, tmp_path):  # noqa: F811
    url = old_database
    good, bad = goldens()
    _fill_at_ratelimit(url, good + [bad])
    migrate(url, "export_rows")
    engine = create_engine(url)
    with engine.connect() as conn:
        marks = {g: (v, r, n) for g, v, r, n in conn.execute(text("SELECT game_id, version, rules, rounds "
                                                                  "FROM export_state"))}
        texts: dict[int, list[str]] = {}
        for g, cells in conn.execute(text("SELECT game_id, cells FROM export_round ORDER BY game_id, position")):
            texts.setdefault(g, []).append(cells)
    with_rounds = 0
    for gid, record in enumerate(good, start=1):
        summary = records.replay(record)
        header = records.load_header(record) if record.get("format") else None
        options = header.options if header else record.get("options", {})
        want = export_rows.round_cells(record["game"], record["players"], options, summary["rounds"])
        assert marks[gid] == (len(record["entries"]) + 1, RULES_VERSION, len(want))
        assert texts.get(gid, []) == want
        with_rounds += bool(want)
    assert with_rounds > 40
    assert len(good) + 1 not in marks and len(good) + 1 not in texts  # the refused log: nothing stored
    with engine.begin() as conn:  # the refused game out of the way: the export replays every game it holds
        conn.execute(text("DELETE FROM entry WHERE game_id = :g"), {"g": len(good) + 1})
        conn.execute(text("DELETE FROM game WHERE id = :g"), {"g": len(good) + 1})
    engine.dispose()
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    assert Auth(client).login("ann").status_code == 303
    z = zipfile.ZipFile(io.BytesIO(client.get("/export?format=zip").data))
    singles = [client.get(f"/games/{gid}.csv").data.decode().splitlines() for gid in range(1, len(good) + 1)]
    assert z.read("games.csv").decode().splitlines() == [singles[0][0]] + [x for s in singles for x in s[1:]]
    app.extensions["scorekeeper.engine"].dispose()


def test_export_rows_migration_goes_back_down(old_database):  # noqa: F811
    from alembic import command

    url = old_database
    migrate(url, "export_rows")
    command.downgrade(alembic_config(url), "figures")
    engine = create_engine(url)
    with engine.connect() as conn:
        names = set(engine.dialect.get_table_names(conn))
    engine.dispose()
    assert "export_state" not in names and "export_round" not in names and "game_figures" in names


@pytest.mark.parametrize("before, after", [("removal", "mia_trail"), ("rematch_of", "mia_reversal_csv")])
def test_mia_cells_migrations_write_mia_rounds_again(old_database, before, after):  # noqa: F811
    """Migrations ``mia_trail`` (0019) and ``mia_reversal_csv`` (0024): the Mia games' stored
    rounds, written before Mia's rows named who announced, passed or was out (0019), or who
    reversed the direction (0024), are written again from their logs (the export and a game's
    own CSV then agree); other games' rounds are left as they are."""
    url = old_database
    good, _ = goldens()
    _fill_at_ratelimit(url, good)
    migrate(url, before)
    engine = create_engine(url)
    with engine.begin() as conn:  # as the code before wrote them: here, a stand-in text
        kinds = dict(conn.execute(text("SELECT id, game FROM game")).all())
        conn.execute(text("UPDATE export_round SET cells = :old"), {"old": '[1, ["old"]]'})
    migrate(url, after)
    with engine.connect() as conn:
        texts: dict[int, list[str]] = {}
        for g, cells in conn.execute(text("SELECT game_id, cells FROM export_round ORDER BY game_id, position")):
            texts.setdefault(g, []).append(cells)
        marks = {g: (v, r, n) for g, v, r, n in conn.execute(text("SELECT game_id, version, rules, rounds "
                                                                  "FROM export_state"))}
    engine.dispose()
    mia_rounds = 0
    for gid, record in enumerate(good, start=1):
        if kinds[gid] != "mia":
            assert set(texts.get(gid, [])) <= {'[1, ["old"]]'}, gid  # untouched
            continue
        options = records.load_header(record).options if record.get("format") else record.get("options", {})
        want = export_rows.round_cells("mia", record["players"], options, records.replay(record)["rounds"])
        assert texts.get(gid, []) == want
        assert marks[gid] == (len(record["entries"]) + 1, RULES_VERSION, len(want))
        mia_rounds += len(want)
    assert mia_rounds > 20
    assert any("reversed the direction" in cells for rounds in texts.values() for cells in rounds)
