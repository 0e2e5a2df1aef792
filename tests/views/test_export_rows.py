"""The export's stored CSV rounds: kept at each game's version as it changes, read by the
export only while that version (and the rules version) is the game's, replayed otherwise.
Whatever path the rounds take, the zip's games.csv is each game's own CSV."""

from __future__ import annotations

import io
import json
import zipfile

from sqlalchemy import text

from scorekeeper.rules import record as records
from scorekeeper.services import export_rows

from ..conftest import HX, new_game
from .test_history import game_ids, upload
from .test_mitchi_views import post_turn

PLAYERS = ("Ann", "Ben", "Cat")


def turns(rounds: int, starter: int = 0) -> list[tuple[str, tuple[int, int]]]:
    """Mitchi turns of ``rounds`` rounds: two doubles, then a 3-1 that takes the pot and starts next."""
    out = []
    for n in range(rounds):
        order = [PLAYERS[(starter + i) % 3] for i in range(3)]
        out += [(order[0], (6, 6)), (order[1], (2, 1) if n % 7 == 0 else (5, 5)), (order[2], (3, 1))]
        starter = (starter + 2) % 3
    return out


def play(client, game: int, version: int, moves) -> int:
    for player, hand in moves:
        assert post_turn(client, game, version, player, hand, 1).status_code == 200
        version += 1
    return version


def zip_csv(client) -> list[str]:
    z = zipfile.ZipFile(io.BytesIO(client.get("/export?format=zip").data))
    return z.read("games.csv").decode().splitlines()


def own_csvs(client) -> list[str]:
    singles = [client.get(f"/games/{g}.csv").data.decode().splitlines() for g in game_ids(client)[::-1]]
    return [singles[0][0]] + [line for single in singles for line in single[1:]]


def stored_state(app, game: int):
    """(stored version, rules, rounds, the game's version, its rounds) of one game."""
    engine = app.extensions["scorekeeper.engine"]
    with engine.connect() as conn:
        mark = conn.execute(text("SELECT version, rules, rounds FROM export_state WHERE game_id = :g"),
                            {"g": game}).first()
        row = conn.execute(text("SELECT version, rounds FROM game WHERE id = :g"), {"g": game}).one()
    return (tuple(mark) if mark else (None, None, None)) + tuple(row)


def stored_texts(app, game: int) -> list[str]:
    """The game's stored round texts, in order; each stored at its round's position (1, 2, ...)."""
    with app.extensions["scorekeeper.engine"].connect() as conn:
        rows = conn.execute(text("SELECT position, cells FROM export_round WHERE game_id = :g ORDER BY position"),
                            {"g": game}).all()
    assert [p for p, _ in rows] == list(range(1, len(rows) + 1))
    return [t for _, t in rows]


def replayed_texts(client, game: int) -> list[str]:
    rec = client.get(f"/games/{game}/record.json").json
    summary = records.replay(records.make_record(rec["game"], rec["players"], rec["options"],
                                                 [{k: v for k, v in e.items() if k != "entered_by"}
                                                  for e in rec["entries"]]))
    return export_rows.round_cells(rec["game"], rec["players"], rec["options"], summary["rounds"])


def assert_current(app, client, game: int) -> None:
    """The stored rounds are at the game's version, equal a replay's, and the export is the game's CSV."""
    version, rules, rounds, game_version, game_rounds = stored_state(app, game)
    assert (version, rules, rounds) == (game_version, export_rows.RULES_VERSION, game_rounds)
    assert stored_texts(app, game) == replayed_texts(client, game)
    assert zip_csv(client) == own_csvs(client)


def test_rounds_kept_entry_by_entry_through_undo_redo_and_corrections(app, client, auth):
    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    moves = turns(12)
    v = play(client, game, 0, moves[:20])  # snapshots keep the last 2 rounds only: rounds are added one by one
    assert_current(app, client, game)
    assert stored_state(app, game)[2] == 6
    # Undo the entry that ended round 6, then one more; redo one.
    for _ in range(3):
        assert client.post(f"/games/{game}/undo", data={"version": str(v)}, headers=HX).status_code == 200
        v += 1
        assert_current(app, client, game)
    assert client.post(f"/games/{game}/redo", data={"version": str(v)}, headers=HX).status_code == 200
    v += 1
    assert_current(app, client, game)
    v = play(client, game, v, moves[18:30])
    assert_current(app, client, game)
    # A correction in round 2 (a double becomes 4-4): the round's detail changes, not its count.
    before = stored_texts(app, game)
    r = client.post(f"/games/{game}/entries/5", data={"version": str(v), "type": "turn", "player": moves[3][0],
                                                      "hand.0": "4", "hand.1": "4", "rolls": "1"})
    assert r.status_code in (200, 303), r.data
    v += 1
    assert stored_texts(app, game) != before
    assert_current(app, client, game)
    play(client, game, v, moves[30:36])
    assert_current(app, client, game)


def test_rounds_of_an_older_version_are_not_used(app, client, auth, monkeypatch):
    """Rounds written at an earlier version (a change made by code that did not write them,
    such as an instance still on the release before) are replayed over, never exported."""
    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    moves = turns(6)
    v = play(client, game, 0, moves[:15])
    assert_current(app, client, game)
    with monkeypatch.context() as m:
        m.setattr(export_rows, "store", lambda *a, **k: None)
        r = client.post(f"/games/{game}/entries/2", data={"version": str(v), "type": "turn", "player": "Ann",
                                                          "hand.0": "4", "hand.1": "4", "rolls": "1"})
        assert r.status_code in (200, 303), r.data
        v += 1
        assert client.post(f"/games/{game}/undo", data={"version": str(v)}, headers=HX).status_code == 200
        v += 1
    version, _, rounds, game_version, game_rounds = stored_state(app, game)
    assert version < game_version and stored_texts(app, game) != replayed_texts(client, game)
    assert zip_csv(client) == own_csvs(client)
    # The next entry (from a snapshot) cannot add to stale rounds: they stay stale, still replayed.
    v = play(client, game, v, [moves[14]])
    assert stored_state(app, game)[0] < v
    assert zip_csv(client) == own_csvs(client)


def test_a_mark_that_counts_other_rounds_is_not_moved_on_by_the_next_round(app, client, auth):
    """Stored rounds whose mark is at the game's version but counts fewer rounds than the game
    finished (rows not to be trusted): the entry that ends the next round leaves them stale
    rather than adding to them and calling them current; the export replays."""
    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    moves = turns(6)
    v = play(client, game, 0, moves[:14])  # four rounds and two turns of the fifth
    assert_current(app, client, game)
    with app.extensions["scorekeeper.engine"].begin() as conn:
        conn.execute(text("UPDATE export_state SET rounds = rounds - 1 WHERE game_id = :g"), {"g": game})
        conn.execute(text("UPDATE export_round SET cells = :c WHERE game_id = :g AND position = 4"),
                     {"c": '[4, ["x", "y", "z"]]', "g": game})
    v = play(client, game, v, moves[14:15])  # the fifth round ends
    version, _, rounds, game_version, game_rounds = stored_state(app, game)
    assert game_rounds == 5 and version < game_version
    assert zip_csv(client) == own_csvs(client)


def test_rounds_of_another_rules_version_are_not_used(app, client, auth):
    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    play(client, game, 0, turns(4))
    right = zip_csv(client)
    engine = app.extensions["scorekeeper.engine"]
    with engine.begin() as conn:
        conn.execute(text("UPDATE export_round SET cells = :c WHERE game_id = :g"), {"c": '[1, ["x", "y", "z"]]',
                                                                                     "g": game})
    tampered = zip_csv(client)
    assert tampered != right and "1,1,Ann,x" in tampered[1]  # the stored rounds are what the export reads
    with engine.begin() as conn:
        conn.execute(text("UPDATE export_state SET rules = rules + 1 WHERE game_id = :g"), {"g": game})
    assert zip_csv(client) == right == own_csvs(client)


def test_imported_games_and_awkward_names(app, client, auth):
    """An import stores its games' rounds (version 0); names that need quoting or a
    spreadsheet guard come out as in the game's own CSV."""
    auth.register()
    names = ["A, b", 'Q "x"', "=Cat"]
    log = [{"type": "start", "player": names[0]}]
    for player, hand in turns(5):
        log.append({"type": "turn", "player": names[PLAYERS.index(player)], "hand": list(hand), "rolls": 1})
    doc = records.make_record("mitchi", names, {"point_limit": 100}, log)
    assert upload(client, doc).status_code in (200, 303)
    (game,) = game_ids(client)
    assert stored_state(app, game)[0] == 0
    assert_current(app, client, game)
    lines = zip_csv(client)
    assert '"A, b"' in lines[1] and '"Q ""x"""' in lines[2] and "'=Cat" in lines[3]


def test_rounds_missing_a_row_are_not_used(app, client, auth):
    """Fewer stored rounds than the mark says (a row lost): the game is replayed."""
    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    play(client, game, 0, turns(4))
    with app.extensions["scorekeeper.engine"].begin() as conn:
        conn.execute(text("DELETE FROM export_round WHERE game_id = :g AND position = 2"), {"g": game})
    assert zip_csv(client) == own_csvs(client)


def test_a_rename_keeps_the_rounds_current(app, client, auth):
    """A rename replays each game it touches: the rounds are written at the new version, and
    the export shows the new name (names are never stored with the rounds)."""
    from .test_rename_merge import profile_id

    auth.register()
    game = new_game(client, players=PLAYERS, starter="0", point_limit=100)
    v = play(client, game, 0, turns(5))
    assert client.post(f"/players/{profile_id(client, 'Ben')}/rename", data={"name": "Ben, Jr."}).status_code == 303
    assert stored_state(app, game)[3] == v + 1
    assert_current(app, client, game)
    assert '"Ben, Jr."' in "\n".join(zip_csv(client))


def test_every_golden_game_entered_one_entry_at_a_time(app, client, auth):
    """Each golden record that replays (Mitchi, Mia, Mice and Men), entered entry by entry
    through the service (a new session per entry, so each starts from the snapshot): its
    stored rounds are at its version and equal a whole replay's after every entry."""
    from sqlmodel import select

    from scorekeeper.db import get_session
    from scorekeeper.models import Game, Membership
    from scorekeeper.services import games as service

    from ..test_migration_figures import goldens

    auth.register()
    good, _ = goldens()
    engine = app.extensions["scorekeeper.engine"]
    grew = set()
    for record in good:
        header = records.load_header(record)
        entries = record["entries"]
        with app.app_context():
            s = get_session()
            group = s.exec(select(Membership)).first().group_id
            game_id = service.create_game(s, group, record["game"], list(header.players), header.options,
                                          entries[:1]).id
            s.commit()
        for n, entry in enumerate(entries[1:], start=2):
            with app.app_context():
                s = get_session()
                g = s.get(Game, game_id)
                service.add_entry(s, g, entry, g.version)
                version, rounds = g.version, g.rounds
            with engine.connect() as conn:
                mark = conn.execute(text("SELECT version, rounds FROM export_state WHERE game_id = :g"),
                                    {"g": game_id}).one()
            assert tuple(mark) == (version, rounds), (record["game"], n)
        summary = records.replay(records.make_record(record["game"], list(header.players), header.options, entries))
        assert stored_texts(app, game_id) == export_rows.round_cells(record["game"], list(header.players),
                                                                     header.options, summary["rounds"])
        if len(summary["rounds"]) > 3:
            grew.add(record["game"])
    assert grew == {"mitchi", "mia", "mice-and-men"}  # rounds added past the snapshot's kept ones, each game
