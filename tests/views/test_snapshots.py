"""Snapshots and figures: an entry starts from the stored state, which always equals a replay
of the log; the stored figures always equal the replayed game's; concurrent entries never 500."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from sqlmodel import select

from scorekeeper.db import get_session
from scorekeeper.models import Game, GameFigures, GameSnapshot, Membership
from scorekeeper.rules import record as records
from scorekeeper.services import games as service
from scorekeeper.services import stats

from ..conftest import HX, new_game

RECORDS = Path(__file__).parent.parent / "records"
PLAYERS = ["Ann", "Ben", "Cat"]


def mitchi_turns(rounds: int, first: int = 0) -> list[dict]:
    """Legal Mitchi turns after ``start``: two doubles, then a 3-1 that takes the pot and starts next."""
    out, starter = [], first
    for n in range(rounds):
        order = [PLAYERS[(starter + i) % 3] for i in range(3)]
        out += [{"type": "turn", "player": order[0], "hand": [6, 6], "rolls": 1},
                {"type": "turn", "player": order[1], "hand": [2, 1] if n % 7 == 0 else [5, 5], "rolls": 1},
                {"type": "turn", "player": order[2], "hand": [3, 1], "rolls": 1}]
        starter = (starter + 2) % 3
    return out


def post(client, game, version, entry):
    data = {"version": str(version), "type": entry["type"], "player": entry["player"],
            "hand.0": str(entry["hand"][0]), "hand.1": str(entry["hand"][1]), "rolls": str(entry["rolls"])}
    return client.post(f"/games/{game}/entries", data=data, headers=HX)


def owner(session) -> int:
    """The registered account's group."""
    return session.exec(select(Membership)).first().group_id


def check_against_replay(session, game: Game) -> None:
    """The stored snapshot, the row's mirror and the figures all equal a replay of the log."""
    session.refresh(game)
    log = [json.loads(e.data) for e in service.active_entries(session, game)]
    full = records.replay(records.make_record(game.game, json.loads(game.players), json.loads(game.options), log))
    loaded = service._snapshot(session, game)
    assert loaded is not None and loaded.count == len(log) and loaded.recent == log[-service.RECENT:]
    stored = loaded.state.summary()
    for key in ("finished", "scores", "winners", "next", "start", "bonus"):
        assert stored.get(key) == full.get(key), key
    assert stored["rounds"] == full["rounds"][-len(stored["rounds"]):] if stored["rounds"] else True
    assert loaded.state.rounds_played == len(full["rounds"]) == game.rounds
    assert (game.finished, json.loads(game.winners)) == (full["finished"], full["winners"])
    check_figures(session, game, full)
    names = json.loads(game.players)
    # The content hash is empty after an entry, and filled by the next import to equal a fresh one.
    if game.content_hash is None:
        service.fill_hashes(session, game.group_id)
        session.commit()
        session.refresh(game)
    assert game.content_hash == service.content_hash(game.game, names, json.loads(game.options), log)


def check_figures(session, game: Game, full: dict | None = None) -> None:
    """The game's figure rows equal a replay of its log (``full``: that replay's summary)."""
    names = json.loads(game.players)
    if full is None:
        log = [json.loads(e.data) for e in service.active_entries(session, game)]
        full = records.replay(records.make_record(game.game, names, json.loads(game.options), log))
    rows = {r.seat: r for r in session.exec(select(GameFigures).where(GameFigures.game_id == game.id))}
    want = stats.game_figures(game.game, names, full)
    got = {names[seat]: {k: getattr(r, k) for k in want[names[seat]]} for seat, r in rows.items()}
    assert got == want


def golden_games():
    for path in sorted(RECORDS.glob("*/*.json")):
        doc = json.loads(path.read_text())
        record = doc.get("record", doc)
        try:
            records.replay(record)
        except records.ReplayError:
            continue
        if len(record.get("entries", [])) >= 4:
            yield pytest.param(record, id=path.stem)


@pytest.mark.parametrize("record", list(golden_games()))
def test_every_entry_keeps_snapshot_and_figures_equal_to_a_replay(app, auth, record):
    """Every legal golden record of the three games, entered one entry at a time."""
    auth.register()
    header = records.load_header(record)
    with app.app_context():
        session = get_session()
        game = service.create_game(session, owner(session), header.spec.name, list(header.players),
                                   record.get("options") or {}, [])
        session.commit()
        for entry in record["entries"]:
            service.add_entry(session, game, entry, game.version)
            check_against_replay(session, game)
        service.undo(session, game, game.version)
        check_against_replay(session, game)
        service.correct(session, game, 1, record["entries"][0], game.version)
        check_against_replay(session, game)


@pytest.fixture
def long_game(app, client, auth):
    auth.register()
    return new_game(client, point_limit=100)


def test_an_entry_replays_nothing_before_its_snapshot(app, client, long_game, monkeypatch):
    replays = []
    real = service.replay
    monkeypatch.setattr(service, "replay", lambda game, log: replays.append(len(log)) or real(game, log))
    turns = mitchi_turns(12)
    for v, entry in enumerate(turns[:30]):
        assert post(client, long_game, v, entry).status_code == 200
    assert client.get(f"/games/{long_game}").status_code == 200
    assert replays == []  # 30 entries and a page: no replay at all
    with app.app_context():
        session = get_session()
        # A missing snapshot: the next entry replays the whole log once and stores it again.
        session.delete(session.get(GameSnapshot, long_game))
        session.commit()
        assert post(client, long_game, 30, turns[30]).status_code == 200
        assert replays == [31]
        check_against_replay(session, session.get(Game, long_game))
        # A snapshot of another version (written by hand here) is not trusted either.
        snap = session.get(GameSnapshot, long_game)
        snap.version -= 1
        session.commit()
        assert post(client, long_game, 31, turns[31]).status_code == 200
        assert replays == [31, 32]
        # Nor one of another rules version.
        monkeypatch.setattr(service, "RULES_VERSION", service.RULES_VERSION + 1)
        assert post(client, long_game, 32, turns[32]).status_code == 200
        assert replays == [31, 32, 33]
        assert post(client, long_game, 33, turns[33]).status_code == 200
        assert replays == [31, 32, 33]
        check_against_replay(session, session.get(Game, long_game))


def test_a_snapshot_stays_small_however_long_the_game(app, auth, client):
    auth.register()
    with app.app_context():
        session = get_session()
        sizes = {}
        for rounds in (3, 300):
            g = service.create_game(session, owner(session), "mitchi", PLAYERS, {"point_limit": 1000},
                                    [{"type": "start", "player": "Ann"}] + mitchi_turns(rounds))
            session.commit()
            sizes[rounds] = len(session.get(GameSnapshot, g.id).state)
            state, _, recent, redo = service._thaw(session.get(GameSnapshot, g.id).state)
            assert state.rounds_played == rounds and len(list(iter(state.rounds))) <= service.KEEP_ROUNDS
            check_against_replay(session, g)
    assert sizes[300] < sizes[3] * 1.5, sizes


def test_panel_lists_the_last_entries_from_the_snapshot(client, long_game):
    for v, entry in enumerate(mitchi_turns(3)):
        r = post(client, long_game, v, entry)
    html = r.data.decode()
    assert '<ol class="log" start="5">' in html  # 10 entries: 5 to 10 shown
    assert "Undo: Ben" in html or "Undo: " in html


def _race(app, game_id: int, version: int, entry: dict, n: int, login) -> list[int]:
    """``n`` threads post the same entry for ``version`` at once; their status codes."""
    codes, barrier = [], threading.Barrier(n)

    def one():
        c = app.test_client()
        login(c)
        barrier.wait()
        codes.append(post(c, game_id, version, entry).status_code)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes


def test_concurrent_entries_one_success_per_version_and_no_500(app, client, auth):
    auth.register()
    games = [new_game(client, point_limit=100) for _ in range(3)]

    def login(c):
        c.post("/login", data={"username": "ann", "password": "correct horse"})

    turns = mitchi_turns(3)
    for version in range(6):
        # Many phones on one game: exactly one lands, the others hear "game changed".
        codes = _race(app, games[0], version, turns[version], 6, login)
        assert sorted(codes) == [200] + [409] * 5, codes
    # Different games at once: all land.
    codes, threads = [], []
    for g in games[1:]:
        for v in range(4):
            pass
    barrier = threading.Barrier(len(games) - 1)

    def table(g):
        c = app.test_client()
        login(c)
        barrier.wait()
        for v, entry in enumerate(turns[:6]):
            codes.append(post(c, g, v, entry).status_code)

    threads = [threading.Thread(target=table, args=(g,)) for g in games[1:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [200] * 12, codes
    with app.app_context():
        session = get_session()
        for g in games:
            game = session.get(Game, g)
            assert game.version == 6 and len(service.active_entries(session, game)) == 7
            check_against_replay(session, game)
