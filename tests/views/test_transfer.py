"""The export streams: written in batches as the games are read, each record once."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from scorekeeper.services import transfer

from .test_history import game_ids, golden, upload


def test_export_zip_streams_in_batches_and_matches_each_record(client, auth, monkeypatch):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end"),
                    golden("mitchi/mitchi-11-zero-point-winner")])
    monkeypatch.setattr(transfer, "BATCH", 2)  # 3 games: two batches
    r = client.get("/export?format=zip", buffered=False)
    assert r.is_streamed
    chunks = [c for c in r.response if c]
    r.close()  # ends the request: its database session is closed
    assert len(chunks) >= 3  # one piece per batch, then the listings
    z = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    names = z.namelist()
    assert names[-2:] == ["games.json", "games.csv"]
    listed = json.loads(z.read("games.json"))
    assert len(listed) == 3
    for game_id, record in zip(game_ids(client)[::-1], listed):
        assert json.loads(z.read(next(n for n in names if n.startswith(f"records/{game_id}-")))) == record
        single = client.get(f"/games/{game_id}/record.json").json
        assert record == single  # the single record carries played_at too (main: export_record)
    rows = z.read("games.csv").decode().splitlines()
    assert len({row.split(",")[0] for row in rows[1:]}) == 3
    # The rounds' CSV is each game's own CSV (a replay of its log), one after the other.
    singles = [client.get(f"/games/{game_id}.csv").data.decode().splitlines() for game_id in game_ids(client)[::-1]]
    assert rows[0] == singles[0][0] and rows[1:] == [line for single in singles for line in single[1:]]
    assert len(rows) > 10


def test_export_json_streams_the_same_records(client, auth, monkeypatch):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end")])
    whole = json.loads(client.get("/export?format=json").data)
    monkeypatch.setattr(transfer, "BATCH", 1)
    r = client.get("/export?format=json", buffered=False)
    body = b"".join(r.response)
    r.close()
    assert r.is_streamed and json.loads(body) == whole and len(whole) == 2


def open_transactions(engine) -> int:
    """Connections of this database other than ours that sit in an open transaction (PostgreSQL)."""
    with engine.connect() as conn:
        return conn.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'")).scalar()


def end_open_transactions(engine) -> None:
    with engine.connect() as conn:
        conn.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'"))


def can_lock_every_table(engine) -> bool:
    """What the tests' TRUNCATE needs: an exclusive lock on the export's tables, within 2 s."""
    try:
        with engine.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '2s'"))
            conn.execute(text('LOCK TABLE game, entry, "user" IN ACCESS EXCLUSIVE MODE'))
        return True
    except OperationalError:
        return False


@pytest.mark.parametrize("fmt", ["zip", "json"])
@pytest.mark.parametrize("taken", [None, 1, 0], ids=["read-whole", "gone-after-a-piece", "gone-at-start"])
def test_export_leaves_no_transaction_open(app, client, auth, monkeypatch, fmt, taken):
    """However the body ends (read whole, the client gone midway, never read), its database
    session is closed: no connection stays checked out of the pool, none sits "idle in
    transaction" on PostgreSQL, and a TRUNCATE's lock is granted at once."""
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end"),
                    golden("mitchi/mitchi-11-zero-point-winner")])
    monkeypatch.setattr(transfer, "BATCH", 1)  # the body reads the database between pieces
    engine = app.extensions["scorekeeper.engine"]
    r = client.get(f"/export?format={fmt}", buffered=False)
    body = iter(r.response)
    pieces = list(body) if taken is None else [next(body) for _ in range(taken)]
    if taken is None:
        assert b"".join(pieces)
    r.close()
    left = engine.pool.checkedout()
    if engine.dialect.name == "postgresql":
        idle, locks = open_transactions(engine), can_lock_every_table(engine)
        if idle:  # end them, so that a failure here fails this test instead of hanging the next TRUNCATE
            end_open_transactions(engine)
        assert (idle, locks) == (0, True)
    assert left == 0


@pytest.mark.parametrize("fmt", ["json", "zip"])
def test_removed_and_practice_games_are_not_exported(client, auth, fmt):
    """They are out of the lists and the stats; exported, then loaded elsewhere, they would come
    back as games that count."""
    from .test_practice_views import start

    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mitchi/mitchi-11-zero-point-winner")])
    kept, removed = game_ids(client)
    client.post(f"/games/{removed}/remove")
    start(client)  # a practice game
    body = client.get(f"/export?format={fmt}").data
    if fmt == "zip":
        body = zipfile.ZipFile(io.BytesIO(body)).read("games.json")
    assert json.loads(body) == [client.get(f"/games/{kept}/record.json").json]


def test_export_link_exports_the_group_its_page_showed(app, client, auth):
    """The export links (games list, settings) name the group the list showed: after another tab switched
    groups, they still export that group's games, not the other's (found by a review); a group
    the account is not in, or no id at all, is a 404 and exports nothing."""
    import re

    auth.register("ann")
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero")])
    links = [link for page in ("/", "/settings")
             for link in re.findall(r'href="(/export\?[^"]+)"', client.get(page).data.decode())]
    assert len(links) == 3 and all("group=" in link for link in links), links
    client.post("/groups/new", data={"name": "Work"})  # another tab: an empty group, now current
    for link in links:
        link = link.replace("&amp;", "&")
        r = client.get(link)
        assert r.status_code == 200, link
        if "format=zip" in link:
            assert len(json.loads(zipfile.ZipFile(io.BytesIO(r.data)).read("games.json"))) == 1
        else:
            assert len(json.loads(r.data)) == 1
    assert json.loads(client.get("/export?format=json").data) == []  # no group named: the current one
    json_link = next(link for link in links if "format=json" in link).replace("&amp;", "&")
    assert "Group: Work" in client.get("/groups").data.decode()  # exporting switched nothing
    eve = app.test_client()
    type(auth)(eve).register("eve")
    assert eve.get(json_link).status_code == 404
    for bad in ("0", "x", "99999", "4294967296"):
        assert client.get(f"/export?format=json&group={bad}").status_code == 404, bad


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_an_export_file_is_dated_in_its_groups_time_zone(app, client, auth, zone):
    """The day in an export's file name is the group's, as its lists show its games: UTC+14 and
    UTC-11 are never on UTC's day both, and at any moment one of them is a day off UTC (a
    playtest in Auckland at 01:41 got the day before)."""
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    from sqlmodel import select

    from scorekeeper.db import get_session
    from scorekeeper.models import Group

    auth.register("ann")
    with app.app_context():
        session = get_session()
        group = session.exec(select(Group)).one()
        group.timezone = zone
        session.add(group)
        session.commit()
    before = datetime.now(timezone.utc).astimezone(ZoneInfo(zone)).strftime("%Y%m%d")
    named = client.get("/export?format=json").headers["Content-Disposition"]
    after = datetime.now(timezone.utc).astimezone(ZoneInfo(zone)).strftime("%Y%m%d")
    assert named in (f'attachment; filename="ann-games-{day}.json"' for day in (before, after)), named


def test_an_export_file_is_named_after_its_group(app, client, auth):
    """Two groups' exports of one day were both "games-<day>.zip": each now starts with its group's
    name, made safe for a file name (no quote, markup or path), whatever the name holds."""
    import re

    from sqlmodel import select

    from scorekeeper.db import get_session
    from scorekeeper.models import Group

    auth.register("ann")
    for name in ('Thursday <b>"Dice"</b>/../Club', "Würfelrunde … Jörg & Co", "…", "日本語"):
        client.post("/groups/new", data={"name": name})
    with app.app_context():
        ids = get_session().exec(select(Group.id).order_by(Group.id)).all()
    stems = []
    for group_id in ids:
        for fmt in ("zip", "json"):
            r = client.get(f"/export?format={fmt}&group={group_id}")
            assert r.status_code == 200
            found = re.fullmatch(r'attachment; filename="([A-Za-z0-9_.-]+)-games-\d{8}\.' + fmt + '"',
                                 r.headers["Content-Disposition"])
            assert found, r.headers["Content-Disposition"]
            stems.append(found.group(1))
    # A run of "_", "." and "-" left where words were dropped is one "_" (it was "Jorg__Co").
    assert sorted(stems) == sorted(2 * ["ann", "Thursday_bDice_b_Club", "Wurfelrunde_Jorg_Co", f"group-{ids[3]}",
                                        f"group-{ids[4]}"]), stems
