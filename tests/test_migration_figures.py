"""Migration ``figures`` (0013) from a database at ``ratelimit`` with games in it, on SQLite and,
when ``TEST_DATABASE_URL`` names one, on a throwaway PostgreSQL database: every game that
replays gets one ``game_figures`` row per seat equal to a full replay of its active log
(undone entries left out), a log the rules refuse gets none and still lists, and the
players page then adds the figures up."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import create_engine, text

from scorekeeper import create_app
from scorekeeper.db import migrate
from scorekeeper.rules import record as records
from scorekeeper.services import stats

from .conftest import Auth
from .test_migrations import old_database  # noqa: F401 (the fixture)

RECORDS = Path(__file__).parent / "records"
KEYS = ("score", "won", "shared", *stats.ROUND_KEYS)


def goldens() -> tuple[list[dict], dict]:
    """Every golden record that replays (with rounds or not), and one the rules refuse."""
    good, bad = [], None
    for path in sorted(RECORDS.glob("*/*.json")):
        doc = json.loads(path.read_text())
        if "record" not in doc or not isinstance(doc["record"], dict):
            continue
        try:
            records.replay(doc["record"])
        except (records.ReplayError, records.RecordError, KeyError, TypeError):
            if bad is None and isinstance(doc["record"].get("entries"), list) and doc["record"].get("players"):
                bad = doc["record"]
            continue
        good.append(doc["record"])
    return good, bad


def _fill_at_ratelimit(url: str, games: list[dict]) -> None:
    from werkzeug.security import generate_password_hash

    migrate(url, "ratelimit")
    engine = create_engine(url)
    at = "2026-11-02 20:00:00"
    with engine.begin() as conn:
        conn.execute(text('INSERT INTO "user" (id, username, password_hash, created_at) '
                          "VALUES (1, 'ann', :pw, :at)"), {"pw": generate_password_hash("correct horse"), "at": at})
        conn.execute(text('INSERT INTO "group" (id, name, timezone, created_at) VALUES (1, \'ann\', \'UTC\', :at)'),
                     {"at": at})
        conn.execute(text("INSERT INTO membership (id, group_id, user_id, role, created_at) "
                          "VALUES (1, 1, 1, 'owner', :at)"), {"at": at})
        for gid, record in enumerate(games, start=1):
            header = records.load_header(record) if record.get("format") else None
            options = header.options if header else record.get("options", {})
            conn.execute(text(
                "INSERT INTO game (id, group_id, game, players, options, version, finished, rounds, winners, "
                "created_at, updated_at, played_at, practice) VALUES (:id, 1, :g, :p, :o, :v, false, 0, '[]', "
                ":at, :at, :at, false)"),
                {"id": gid, "g": record["game"], "p": json.dumps(record["players"]),
                 "o": json.dumps(options), "v": len(record["entries"]) + 1, "at": at})
            seq = 0
            for entry in record["entries"]:
                seq += 1
                conn.execute(text("INSERT INTO entry (game_id, seq, data, status, created_at) "
                                  "VALUES (:g, :s, :d, 'active', :at)"), {"g": gid, "s": seq, "d": json.dumps(entry), "at": at})
            # An undone entry the replay must leave out: a turn by nobody seated.
            conn.execute(text("INSERT INTO entry (game_id, seq, data, status, created_at) "
                              "VALUES (:g, :s, :d, 'undone', :at)"),
                         {"g": gid, "s": seq + 1, "d": json.dumps({"type": "turn", "player": "Nobody"}), "at": at})
        if engine.dialect.name == "postgresql":
            for table in ("user", "group", "membership", "game", "entry"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                                  f"(SELECT MAX(id) FROM \"{table}\"))"))
    engine.dispose()


def test_figures_migration_fills_every_game_with_a_replays_figures(old_database, tmp_path):  # noqa: F811
    url = old_database
    good, bad = goldens()
    assert len(good) > 50 and bad is not None
    assert {r["game"] for r in good} == {"mitchi", "mia", "mice-and-men"}
    _fill_at_ratelimit(url, good + [bad])
    migrate(url, "figures")
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(text(f"SELECT game_id, seat, {', '.join(KEYS)} FROM game_figures "
                                 "ORDER BY game_id, seat")).all()
    stored: dict[int, list[dict]] = {}
    for game_id, seat, *values in rows:
        stored.setdefault(game_id, []).append(dict(zip(("seat", *KEYS), (seat, *values))))
    won_somewhere = shared_somewhere = counted = 0
    for gid, record in enumerate(good, start=1):
        summary = records.replay(record)
        figs = stats.game_figures(record["game"], record["players"], summary)
        want = [{"seat": seat, **{k: figs[p][k] for k in KEYS}} for seat, p in enumerate(record["players"])]
        got = [{k: (bool(v) if k in ("won", "shared") else v) for k, v in row.items()} for row in stored[gid]]
        assert got == want, record.get("players")
        # Independent of stats.py: the winners of a finished game are the won rows.
        winners = set(summary.get("winners") or []) if summary["finished"] else set()
        assert {record["players"][r["seat"]] for r in got if r["won"]} == winners
        won_somewhere += bool(winners)
        shared_somewhere += len(winners) > 1
        counted += any(r[k] for r in got for k in stats.ROUND_KEYS)
    assert won_somewhere and shared_somewhere and counted  # the goldens exercise each figure
    assert len(good) + 1 not in stored  # the refused log: no figures
    engine.dispose()
    # The app on the upgraded database: the refused game still lists, the stats add up.
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    app.instance_path = str(tmp_path / "instance")
    client = app.test_client()
    assert Auth(client).login("ann").status_code == 303
    assert client.get("/history").status_code == 200
    assert client.get("/players").status_code == 200
    app.extensions["scorekeeper.engine"].dispose()


def test_figures_migration_goes_back_down(old_database):  # noqa: F811
    url = old_database
    migrate(url, "figures")
    from scorekeeper.db import alembic_config
    from alembic import command

    command.downgrade(alembic_config(url), "ratelimit")
    engine = create_engine(url)
    with engine.connect() as conn:
        names = set(engine.dialect.get_table_names(conn))
    engine.dispose()
    assert "game_figures" not in names and "game_snapshot" not in names and "game" in names
