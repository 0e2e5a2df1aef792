"""The entry request: constant work whatever the log's length, snapshots that are only ever
read as the rules' own data, and a content hash that costs an entry nothing but is right
whenever an import asks for it."""

from __future__ import annotations

import io
import json
import os
import pickle
import random
import re
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import event, text
from sqlmodel import select

from scorekeeper.db import get_session
from scorekeeper.models import Game, GameSnapshot
from scorekeeper.services import games as service

from ..conftest import HX, PG_URL, new_game, version_of
from .test_snapshots import check_against_replay, mitchi_turns, owner, post


def statements(app):
    """Every SQL statement the app's engine runs, as a list that grows (and the remover)."""
    seen: list[str] = []
    engine = app.extensions["scorekeeper.engine"]

    def log(conn, cursor, statement, params, context, executemany):
        seen.append(" ".join(statement.split()))

    def commit(conn):
        seen.append("COMMIT")

    event.listen(engine, "before_cursor_execute", log)
    event.listen(engine, "commit", commit)

    def stop():
        event.remove(engine, "before_cursor_execute", log)
        event.remove(engine, "commit", commit)

    return seen, stop


def stored_game(app, entries: int) -> int:
    """A Mitchi game of ``entries`` entries (``start`` and legal turns), stored at once."""
    with app.app_context():
        session = get_session()
        game = service.create_game(session, owner(session), "mitchi", ["Ann", "Ben", "Cat"],
                                   {"point_limit": 1000},
                                   [{"type": "start", "player": "Ann"}] + mitchi_turns(700)[:entries - 1])
        session.commit()
        return game.id


@pytest.mark.parametrize("length", [10, 600])
def test_an_entry_reads_no_log_and_runs_the_same_statements_at_any_length(app, client, auth, length):
    """The entry request reads the account, the game, the membership and the snapshot (in one
    statement), then claims the version, inserts and stores the snapshot: no read of the log (it was read in
    full for the content hash, and the last entries and the redo entry were looked up)."""
    auth.register()
    game = stored_game(app, length)
    turns = mitchi_turns(700)
    assert post(client, game, 0, turns[length - 1]).status_code == 200  # the first one stores the snapshot
    seen, stop = statements(app)
    try:
        r = post(client, game, 1, turns[length])
    finally:
        stop()
    assert r.status_code == 200
    reads = [s for s in seen if s.upper().startswith("SELECT")]
    assert not [s for s in reads if " FROM entry" in s], reads
    # The snapshot is read with the game, and the game with the account, in one statement
    # (groups.load_account): the account, the game, its membership and its snapshot.
    assert not [s for s in reads if s.startswith("SELECT game_snapshot.")], reads
    assert len(reads) == 1 and " JOIN game_snapshot " in reads[0] and " FROM user " in reads[0].replace('"', ''), reads
    if app.extensions["scorekeeper.engine"].dialect.name == "postgresql":
        # One statement claims the version, inserts the entry, stores the snapshot and moves
        # the export's mark (data-modifying CTEs): each round trip costs the app CPU.
        writes = [s for s in seen if s not in reads]
        assert len(writes) == 2 and writes[0].startswith("WITH claim AS"), writes
    else:
        assert len(seen) <= 7, seen


def test_entries_that_end_rounds_run_every_statement_on_the_driver(app, client, auth):
    """An entry, one that ends a round among them (it writes the seats' figures and the export's
    new round), runs no statement through SQLAlchemy's execution (some 40 µs a statement beside
    the driver's 8 on SQLite: docs/speed.md §Statements on the driver), and what it wrote is
    what a replay of the log gives."""
    auth.register()
    game = stored_game(app, 30)
    turns = mitchi_turns(700)
    assert post(client, game, 0, turns[29]).status_code == 200  # the first one stores the snapshot
    engine = app.extensions["scorekeeper.engine"]
    executed: list[str] = []

    def log(conn, clause, multiparams, params, options):
        executed.append(str(clause))

    rounds = []
    event.listen(engine, "before_execute", log)
    seen, stop = statements(app)
    try:
        for v in range(1, 7):
            assert post(client, game, v, turns[29 + v]).status_code == 200
            with engine.connect() as conn:
                rounds.append(conn.execute(text("SELECT rounds FROM export_state WHERE game_id = :g"),
                                           {"g": game}).scalar_one())
    finally:
        event.remove(engine, "before_execute", log)
        stop()
    executed = [s for s in executed if "export_state WHERE game_id = :g" not in s]  # the test's own
    assert rounds[-1] >= rounds[0] + 1, rounds  # a round ended among them
    assert executed == []
    if engine.dialect.name == "postgresql":  # the figures and the round were in the entry's one write
        assert [s for s in seen if s.startswith("WITH claim AS") and "figured AS" in s], seen
    with app.app_context():
        check_against_replay(get_session(), get_session().get(Game, game))


def test_a_snapshot_naming_any_other_callable_is_not_run_but_rebuilt_from_the_log(app, client, auth,
                                                                                     tmp_path, monkeypatch):
    """Bytes in the database that would run code when unpickled are refused; the page is
    answered from a replay of the log, and the next entry stores a good snapshot again."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(3)
    for v, entry in enumerate(turns[:4]):
        assert post(client, game, v, entry).status_code == 200
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    with app.app_context():
        session = get_session()
        snap = session.get(GameSnapshot, game)
        snap.state = pickle.dumps((Evil(), {}, [], None))
        session.commit()
    replays = []
    real = service.replay
    monkeypatch.setattr(service, "replay", lambda g, log: replays.append(len(log)) or real(g, log))
    assert client.get(f"/games/{game}").status_code == 200
    assert not marker.exists() and replays == [5]
    assert post(client, game, 4, turns[4]).status_code == 200
    with app.app_context():
        session = get_session()
        check_against_replay(session, session.get(Game, game))


def test_an_entry_leaves_the_hash_empty_and_an_import_fills_it_before_looking(app, client, auth):
    auth.register()
    game = new_game(client, point_limit=100)
    assert post(client, game, 0, mitchi_turns(1)[0]).status_code == 200
    with app.app_context():
        assert get_session().get(Game, game).content_hash is None
    record = client.get(f"/games/{game}/record.json").get_json()
    r = client.post("/import", data={"records": [(io.BytesIO(json.dumps(record).encode()), "r.json")]},
                    content_type="multipart/form-data")
    assert "Already here" in client.get(r.headers["Location"]).data.decode()
    with app.app_context():
        session = get_session()
        assert len(session.exec(select(Game)).all()) == 1
        check_against_replay(session, session.get(Game, game))  # the filled hash equals a fresh one


def test_filling_hashes_skips_a_game_that_changed_meanwhile(app, client, auth, monkeypatch):
    """The hash is written only at the version whose log it was computed from."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(2)
    assert post(client, game, 0, turns[0]).status_code == 200
    real = service.content_hash
    moved = []

    def racing(*args):
        if not moved:  # another phone's entry lands while the import hashes the old log
            moved.append(post(client, game, 1, turns[1]).status_code)
        return real(*args)

    monkeypatch.setattr(service, "content_hash", racing)
    with app.app_context():
        session = get_session()
        assert service.fill_hashes(session, owner(session)) == 1
        session.commit()
        assert moved == [200]
        assert session.get(Game, game).content_hash is None  # not the old log's hash
    monkeypatch.setattr(service, "content_hash", real)
    with app.app_context():
        session = get_session()
        check_against_replay(session, session.get(Game, game))


@pytest.mark.parametrize("seed", range(6))
def test_any_sequence_of_entries_undos_redos_and_corrections_keeps_the_snapshot_a_replay(app, auth, seed):
    """Random walks over add, undo, redo and correct (legal and refused): after every step the
    snapshot's state, last entries and redo entry equal a replay of the log."""
    auth.register()
    rnd = random.Random(seed)
    turns = mitchi_turns(40)
    with app.test_request_context():  # as in a request: a refusal describes an entry in words
        session = get_session()
        game = service.create_game(session, owner(session), "mitchi", ["Ann", "Ben", "Cat"],
                                   {"point_limit": 1000}, [{"type": "start", "player": "Ann"}])
        session.commit()
        for _ in range(60):
            length = len(service.active_entries(session, game))
            action = rnd.choice(["add", "add", "add", "undo", "redo", "correct", "illegal"])
            try:
                if action == "add" and length - 1 < len(turns):
                    service.add_entry(session, game, turns[length - 1], game.version)
                elif action == "illegal":
                    service.add_entry(session, game, {"type": "turn", "player": "Nobody", "hand": [1, 1],
                                                      "rolls": 1}, game.version)
                elif action == "undo":
                    service.undo(session, game, game.version)
                elif action == "redo":
                    service.redo(session, game, game.version)
                elif action == "correct" and length > 1:
                    # A turn's rolls 1 <-> 2: legal for a round's first turn (it sets the roll
                    # limit), and for a later one when that limit is 2; else refused. A tie-break
                    # roll sent as it is: "already that", refused.
                    seq = rnd.randrange(2, length + 1)
                    now = json.loads(service.active_entries(session, game)[seq - 1].data)
                    new = {**now, "rolls": 3 - now["rolls"]} if "rolls" in now else now
                    service.correct(session, game, seq, new, game.version)
            except service.Refused:
                session.rollback()
            check_against_replay(session, game)
            loaded = service._snapshot(session, game)
            row = service.redo_candidate(session, game, loaded.count)
            assert loaded.redo == (json.loads(row.data) if row is not None else None)


def test_the_write_transaction_holds_only_the_writes_and_a_refusal_writes_nothing(app, client, auth):
    """Legality is decided on the snapshot before the version claim: from the claim to the
    commit (SQLite's write lock, PostgreSQL's row lock) only writes run, and a refused entry
    claims nothing."""
    auth.register()
    game = stored_game(app, 300)
    turns = mitchi_turns(700)
    for v in range(3):  # the third one ends a round: the seats' figures are written too
        seen, stop = statements(app)
        try:
            assert post(client, game, v, turns[299 + v]).status_code == 200
        finally:
            stop()
        # The claim: on its own, or (PostgreSQL) the first part of the entry's one write.
        claim = next(i for i, s in enumerate(seen) if s.startswith(("UPDATE game SET version", "WITH claim AS")))
        held = seen[claim:seen.index("COMMIT", claim)]
        # Only writes, and the one-row look-up of the export's round mark (by primary key) when
        # the entry finished a round: no log, no replay under the lock.
        assert held and all(s.split()[0] in ("UPDATE", "INSERT", "DELETE") or s.startswith("SELECT export_state.")
                            or s.startswith("WITH claim AS") for s in held), held
    out_of_turn = next(p for p in ("Ann", "Ben", "Cat") if p != turns[302]["player"])
    seen, stop = statements(app)
    try:
        r = post(client, game, 3, {**turns[302], "player": out_of_turn})
    finally:
        stop()
    assert r.status_code == 422
    assert not [s for s in seen if s.split()[0] in ("UPDATE", "INSERT", "DELETE")], seen


def test_an_entry_does_not_rewrite_the_session_cookie(app, client, auth):
    """The session cookie is signed and sent back only when it changes: an entry on a game of
    the current group changes nothing in it."""
    auth.register()
    game = new_game(client, point_limit=100)
    client.get(f"/games/{game}")
    for v, entry in enumerate(mitchi_turns(2)):
        r = post(client, game, v, entry)
        assert r.status_code == 200 and "Set-Cookie" not in r.headers, r.headers.get("Set-Cookie")


@pytest.mark.skipif(PG_URL is None, reason="the entry's one-statement write is PostgreSQL's")
def test_the_one_write_of_an_entry_writes_nothing_when_its_claim_fails(app, client, auth):
    """PostgreSQL: the entry, the snapshot and the export's mark are written only if the
    version's claim matched, within the statement itself (not only by the rollback after)."""
    auth.register()
    game = new_game(client, point_limit=100)
    turns = mitchi_turns(1)
    assert post(client, game, 0, turns[0]).status_code == 200  # snapshot and export rounds at version 1
    with app.app_context():
        session = get_session()

        def stored():
            return (session.execute(text("SELECT version, entries FROM game_snapshot WHERE game_id = :g"),
                                    {"g": game}).one(),
                    session.execute(text("SELECT version FROM export_state WHERE game_id = :g"), {"g": game}).one(),
                    session.execute(text("SELECT count(*) FROM entry WHERE game_id = :g"), {"g": game}).scalar())

        before = stored()
        assert before[0] == (1, 2) and before[1] == (1,)
        # Another change moved the game on: a claim of version 1 matches no row, while the
        # snapshot and the export's mark (still at 1) would.
        session.execute(text("UPDATE game SET version = 9 WHERE id = :g"), {"g": game})
        got = session.execute(service._entry_write(), {
            "w_game": game, "w_old": 1, "w_new": 2, "w_at": datetime.now(timezone.utc), "w_finished": False,
            "w_rounds": 0, "w_winners": "[]", "w_seq": 3, "w_data": json.dumps(turns[1]), "w_by": None,
            "w_entries": 3, "w_rules": service.RULES_VERSION, "w_state": b"x"}).one()
        assert tuple(got) == (0, 0, 0, 0)
        assert stored() == before
        session.rollback()


def test_each_panel_names_its_own_games_addresses_under_the_apps_root(app, client, auth):
    """The entry, undo and poll addresses a panel names are kept per game and URL root
    (``web.game_url``): each game's answer names its own, as ``url_for`` builds them, and an app
    served under a path prefix (its ``SCRIPT_NAME``) gets them with the prefix."""
    auth.register()
    first, second = new_game(client), new_game(client, players=("Dan", "Eve"))
    for root in ("", "/scores"):
        for game in (first, second):
            for face in (6, 5):  # two turns of different hands: no tie
                html = client.get(f"/games/{game}", headers=HX, base_url=f"http://localhost{root}").data.decode()
                v, player = version_of(html), re.search(r'name="player" value="([^"]+)"', html).group(1)
                r = client.post(f"/games/{game}/entries", headers=HX, base_url=f"http://localhost{root}",
                                data={"version": str(v), "type": "turn", "player": player, "hand.0": str(face),
                                      "hand.1": str(face), "rolls": "1"})
                assert r.status_code == 200, r.data
                html = r.data.decode()
                with app.test_request_context("/", base_url=f"http://localhost{root}"):
                    from flask import url_for
                    want = {f'action="{url_for("games.add_entry", game_id=game)}"',
                            f'action="{url_for("games.undo", game_id=game)}"',
                            f'hx-get="{url_for("games.poll", game_id=game, v=v + 1)}"'}
                assert all(w in html for w in want), (want, html)
                assert root in next(iter(want))


def test_the_game_read_with_the_account_is_as_the_orms_own(app, client, auth):
    """``groups.load_account`` reads a game's columns plainly and ``_persistent_game`` makes the
    Game of them: the ORM's own values, persistent in the session and unchanged (nothing to
    write), the one the session already holds if any, refreshed and written as any other."""
    from sqlalchemy import inspect

    from scorekeeper.services import groups

    auth.register()
    game_id = new_game(client)
    with app.app_context():
        session = get_session()
        read = session.get(Game, game_id)
        expected = {key: getattr(read, key) for key in groups._GAME_KEYS}
        session.expunge_all()
        values = tuple(session.connection().execute(select(*groups._GAME_COLUMNS).where(Game.id == game_id)).one())
        made = groups._persistent_game(session, values)
        assert {key: getattr(made, key) for key in groups._GAME_KEYS} == expected
        assert inspect(made).persistent and not session.dirty and not session.new
        assert session.get(Game, game_id) is made and groups._persistent_game(session, values) is made
        session.refresh(made)
        assert made.version == expected["version"]
        made.live_token = "written"
        session.commit()
        session.expunge_all()
        assert session.get(Game, game_id).live_token == "written"


# --- the state an entry leaves, kept for the game's next entry (docs/speed.md §Entry path) ---

KEPT_RECORDS = ["mitchi/mitchi-11-default-limit-25-ends.json", "mia/mia-7-rolloff-won.json",
                "mice_and_men/mm-default-ten-rounds-end.json"]


def entry_fields(entry: dict, version: int) -> dict:
    """The entry form's fields for a record entry (dice as ``hand.0``, ``hand.1``, ...)."""
    data = {"version": str(version)}
    for key, value in entry.items():
        if isinstance(value, list):
            data.update({f"{key}.{i}": str(d) for i, d in enumerate(value)})
        else:
            data[key] = str(value)
    return data


def stored_blob(app, game: int) -> bytes:
    with app.app_context():
        return bytes(get_session().get(GameSnapshot, game).state)


def thaws(monkeypatch) -> list:
    """Each unpickling of a snapshot from now on, as a list that grows."""
    seen = []
    real = service._thaw

    def counted(blob):
        seen.append(len(blob))
        return real(blob)

    monkeypatch.setattr(service, "_thaw", counted)
    return seen


@pytest.mark.parametrize("name", KEPT_RECORDS)
def test_an_entry_starts_from_the_state_the_last_one_left_unchanged(app, client, auth, monkeypatch, name):
    """After each entry of a whole game (every kind of entry of the three games, rounds and the
    game ending), its state is kept as it was stored (no more rounds than a snapshot's): pickled again it gives the snapshot row's
    very bytes (so rendering the answer changed nothing in it), and the next entry starts from
    it without unpickling the snapshot. The game ends as its record says."""
    record = json.loads((Path(__file__).parent.parent / "records" / name).read_text())
    header, entries, expect = record["record"], record["record"]["entries"], record["expect"]
    auth.register()
    with app.app_context():
        session = get_session()
        game = service.create_game(session, owner(session), header["game"], header["players"],
                                   header["options"], entries[:1]).id
        session.commit()
    unpickled = thaws(monkeypatch)
    for version, entry in enumerate(entries[1:]):
        r = client.post(f"/games/{game}/entries", data=entry_fields(entry, version), headers=HX)
        assert r.status_code == 200, (entry, r.data.decode()[:500])
        blob, state, sums, recent, redo = service._left[game]
        assert blob == stored_blob(app, game)
        assert list.__len__(state.rounds) <= service.KEEP_ROUNDS  # as the snapshot keeps them
        with app.app_context():
            row = get_session().get(Game, game)
            assert service._freeze(service.Loaded(row, state, version + 2, recent, None, sums, redo)) == blob
    assert len(unpickled) == 1  # the first entry's, from the snapshot the game was made with
    with app.app_context():
        session = get_session()
        row = session.get(Game, game)
        assert (row.finished, json.loads(row.winners)) == (expect["finished"], expect["winners"])
        check_against_replay(session, row)


def test_a_kept_state_is_not_used_once_its_snapshot_changed(app, client, auth, monkeypatch):
    """A state kept from this process's last entry is used only while the snapshot row holds
    the bytes it was stored as. Another process's entry (here another session's, which hands
    nothing back) or an undo rewrites the row: the next entry then unpickles it, and the game
    stays a replay of its log."""
    auth.register()
    game = stored_game(app, 30)
    turns = mitchi_turns(700)
    assert post(client, game, 0, turns[29]).status_code == 200
    assert game in service._left
    with app.app_context():  # another instance's entry: the row moves on, the kept state does not
        session = get_session()
        service.add_entry(session, session.get(Game, game), turns[30], 1)
    unpickled = thaws(monkeypatch)
    r = post(client, game, 2, turns[31])
    assert r.status_code == 200, r.data.decode()[:500]
    assert len(unpickled) == 1
    assert client.post(f"/games/{game}/undo", data={"version": "3"}, headers=HX).status_code == 200
    r = post(client, game, 4, turns[31])  # the undone turn again, on the undo's snapshot
    assert r.status_code == 200, r.data.decode()[:500]
    assert len(unpickled) == 2
    with app.app_context():
        session = get_session()
        check_against_replay(session, session.get(Game, game))


def test_the_kept_states_are_bounded_and_taken_once(app, client, auth, monkeypatch):
    """At most MAX_LEFT games' states are kept (all dropped when full), and a load takes the
    state it uses out (no two requests share one)."""
    auth.register()
    game = stored_game(app, 10)
    assert post(client, game, 0, mitchi_turns(10)[9]).status_code == 200
    assert game in service._left
    assert client.get(f"/games/{game}").status_code == 200  # the page's load took it
    assert game not in service._left
    monkeypatch.setattr(service, "CHECK_LEFT", False)  # stand-ins, not states stored as b"x"
    for n in range(service.MAX_LEFT + 5):  # as many other games' states
        loaded = service.Loaded(SimpleNamespace(id=-n - 1), SimpleNamespace(rounds=[]), 0, [], blob=b"x")
        service.hand_back(loaded)
        assert loaded.blob is None and len(service._left) <= service.MAX_LEFT


def test_a_state_replayed_from_a_long_log_is_kept_with_a_snapshots_rounds(app, client, auth):
    """A game whose snapshot is missing (an imported game, a new rules version) is replayed from
    its whole log: the state kept for its next entry holds only the rounds a snapshot keeps, not
    the game's hundreds (some 0.8 MB for a 2,000-entry game, 256 games a process)."""
    auth.register()
    game = stored_game(app, 600)
    with app.app_context():
        session = get_session()
        session.delete(session.get(GameSnapshot, game))
        session.commit()
    assert post(client, game, 0, mitchi_turns(700)[599]).status_code == 200
    state = service._left[game][1]
    assert state.rounds_played == 200 and list.__len__(state.rounds) <= service.KEEP_ROUNDS


def test_a_state_changed_after_it_was_stored_is_caught_before_it_is_kept(app, client, auth, monkeypatch):
    """The tests check every kept state against its snapshot's bytes (tests/conftest.py turns
    services.games.CHECK_LEFT on): an answer that changed the state, its figures or its last
    entries after they were stored fails, instead of a later entry starting from it."""
    from scorekeeper.views import games as views

    auth.register()
    game = stored_game(app, 10)
    real = views.render_game

    def changing(loaded, *args, **kwargs):
        loaded.sums["changed"] = 1
        return real(loaded, *args, **kwargs)

    monkeypatch.setattr(views, "render_game", changing)
    with pytest.raises(AssertionError, match="changed after it was stored"):
        post(client, game, 0, mitchi_turns(10)[9])
    assert game not in service._left
