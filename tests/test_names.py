"""Names that look the same are the same name (docs/game-record.md §Names): the rules'
``clean_name``/``name_key``, the record check, the setup form, player profiles and the
``name_keys`` migration."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from scorekeeper.db import migrate
from scorekeeper.models import GamePlayer, Player
from scorekeeper.rules import find_game
from scorekeeper.rules import record as records
from scorekeeper.rules.names import MAX_NAME, clean_name, name_key
from scorekeeper.rules.record import check_players

from .conftest import new_game
from .test_migrations import old_database  # noqa: F401  (fixture: an empty database)

COMBINING = "Jose\u0301"  # "José" typed as e + combining acute
PRECOMPOSED = "Jos\u00e9"  # "José" as one character
assert COMBINING != PRECOMPOSED
# Two names that share their first 40 case-folded characters ("ß" folds to "ss").
LONG_A, LONG_B = "ß" * 20 + "a", "ß" * 20 + "b"
assert LONG_A.casefold()[:40] == LONG_B.casefold()[:40]


@pytest.mark.parametrize("raw,clean", [
    ("  Ann  ", "Ann"), ("Ann \t\n Lee", "Ann Lee"), (COMBINING, PRECOMPOSED),
    ("A\u200bnn", "Ann"), ("\u202eAnn\u202c", "Ann"), ("An\x00n", "Ann"), ("\ufeffAnn", "Ann"),
    ("Ann\u00a0Lee", "Ann Lee"), ("Ann\u3000 Lee", "Ann Lee"), ("", ""),
])
def test_clean_name(raw, clean):
    assert clean_name(raw) == clean


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: man, woman, girl joined
RAINBOW_FLAG = "\U0001f3f3\ufe0f\u200d\U0001f308"
CODER = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # a woman with a skin tone, joined to a laptop
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


@pytest.mark.parametrize("raw,clean", [
    (FAMILY, FAMILY), (" " + RAINBOW_FLAG + " Ann", RAINBOW_FLAG + " Ann"), (CODER, CODER), (SCOTLAND, SCOTLAND),
    # A joiner or a tag anywhere else is invisible, and removed.
    ("A\u200dnn", "Ann"), ("Ann\u200d", "Ann"), ("\u200d\U0001f469", "\U0001f469"),
    ("\U0001f468\u200d Ann", "\U0001f468 Ann"), ("A\U000e0067nn", "Ann"), ("\u200c\u200dAnn", "Ann"),
])
def test_clean_name_keeps_the_joiners_of_an_emoji(raw, clean):
    assert clean_name(raw) == clean


def test_an_emoji_with_and_without_its_joiners_is_one_name():
    """Shown as typed, compared without what is invisible (the joiners too)."""
    assert name_key(FAMILY) == name_key("\U0001f468\U0001f469\U0001f467") == "\U0001f468\U0001f469\U0001f467"
    with pytest.raises(records.RecordError, match="names must differ"):
        check_players(find_game("mitchi"), [FAMILY, "\U0001f468\U0001f469\U0001f467", "Cat"])


def test_name_key_is_whole_and_folded():
    assert name_key(COMBINING) == name_key(PRECOMPOSED) == name_key("JOSÉ") == name_key(" jose\u0301 ")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key(LONG_A) != name_key(LONG_B)
    assert len(name_key("ß" * 40)) == 80  # never cut short


def test_record_refuses_two_seats_of_one_name():
    spec = find_game("mitchi")
    for a, b in [(COMBINING, PRECOMPOSED), ("Ann", "ANN"), ("Ann Lee", "Ann  Lee"), ("Ann", "Ann\u200b")]:
        with pytest.raises(records.RecordError, match="names must differ"):
            check_players(spec, [a, b, "Cat"])
    assert check_players(spec, [LONG_A, LONG_B]) == (LONG_A, LONG_B)
    with pytest.raises(records.RecordError, match=f"longer than {MAX_NAME}"):
        check_players(spec, ["A" * 41, "Ben"])
    check_players(spec, ["A\u200b" * 40, "Ben"])  # 40 characters once cleaned
    with pytest.raises(records.RecordError, match="control character"):
        check_players(spec, ["An\x00n", "Ben"])
    with pytest.raises(records.RecordError, match=r"^player name 'Ann\\tLee' holds a control character"):
        check_players(spec, ["Ann\tLee", "Ben"])  # as written: the tab is seen (it said 'Ann Lee')


def test_replay_refuses_the_same_name_twice():
    record = {"format": 1, "game": "mitchi", "players": [COMBINING, PRECOMPOSED], "options": {}, "entries": []}
    with pytest.raises(records.ReplayError, match="^record: .*names must differ"):
        records.replay(record)


def test_setup_form_refuses_two_seats_of_one_name(app, client, auth):
    auth.register()
    data = {"seats": "3", "starter": "0", "action": "create", "opt_point_limit": "25",
            "players-0": COMBINING, "players-1": PRECOMPOSED, "players-2": "Cat"}
    r = client.post("/games/new/mitchi", data=data)
    assert r.status_code == 400 and "names must differ" in r.data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert s.exec(select(Player)).all() == []


def test_setup_form_stores_names_cleaned(app, client, auth):
    auth.register()
    game = new_game(client, players=(" Ann \u200b Lee ", COMBINING, "Cat"))
    assert client.get(f"/games/{game}/record.json").json["players"] == ["Ann Lee", PRECOMPOSED, "Cat"]


def test_an_emoji_name_is_stored_and_shown_whole(app, client, auth):
    """A family emoji used to be stored as three people (its joiners were removed)."""
    auth.register()
    game = new_game(client, players=(FAMILY, CODER, "Cat"))
    assert client.get(f"/games/{game}/record.json").json["players"] == [FAMILY, CODER, "Cat"]
    assert FAMILY in client.get(f"/games/{game}").data.decode()
    # The same family typed without its joiners is the same player.
    new_game(client, players=("\U0001f468\U0001f469\U0001f467", "Ben", "Cat"))
    assert [k for _, k in profiles(app)].count(name_key(FAMILY)) == 1


def profiles(app) -> list[tuple[str, str]]:
    with Session(app.extensions["scorekeeper.engine"]) as s:
        return sorted((p.name, p.name_key) for p in s.exec(select(Player)))


def test_one_profile_for_two_spellings_and_two_for_long_names(app, client, auth):
    auth.register()
    new_game(client, players=(COMBINING, "Ben", LONG_A))
    new_game(client, players=(PRECOMPOSED, "BEN", LONG_B))
    keys = profiles(app)
    assert [k for _, k in keys].count(name_key(PRECOMPOSED)) == 1
    assert [k for _, k in keys].count("ben") == 1
    assert {name_key(LONG_A), name_key(LONG_B)} <= {k for _, k in keys}
    assert len(keys) == 4


def test_migration_merges_profiles_and_widens_keys(old_database):
    url = old_database
    migrate(url, "0005")
    engine = sa.create_engine(url)
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with engine.begin() as c:
        c.execute(sa.text("INSERT INTO \"user\" (id, username, password_hash, created_at) "
                          "VALUES (1, 'ann', 'x', :t)"), {"t": t0})
        c.execute(sa.text("INSERT INTO \"group\" (id, name, timezone, created_at) VALUES (1, 'ann', 'UTC', :t)"),
                  {"t": t0})
        for gid in (1, 2):
            c.execute(sa.text("INSERT INTO game (id, group_id, game, players, options, version, finished, rounds, "
                              "winners, created_at, updated_at, played_at) VALUES (:id, 1, 'mitchi', :p, '{}', 0, "
                              "false, 0, '[]', :t, :t, :t)"), {"id": gid, "p": json.dumps(["x", "y"]), "t": t0})
        # Old keys: the case-folded name cut to 40, so the two spellings of José got two profiles.
        rows = [(1, PRECOMPOSED, PRECOMPOSED.casefold(), t0), (2, COMBINING, COMBINING.casefold(), t0 + timedelta(1)),
                (3, "Ann  Lee", "ann  lee", t0), (4, "Ann Lee", "ann lee", t0 + timedelta(2))]
        for pid, name, key, at in rows:
            c.execute(sa.text("INSERT INTO player (id, group_id, name, name_key, created_at) "
                              "VALUES (:id, 1, :n, :k, :t)"), {"id": pid, "n": name, "k": key, "t": at})
        for gid, pid, seat in [(1, 1, 0), (2, 2, 0), (1, 3, 1), (2, 4, 1)]:
            c.execute(sa.text("INSERT INTO game_player (game_id, player_id, seat) VALUES (:g, :p, :s)"),
                      {"g": gid, "p": pid, "s": seat})
    migrate(url, "head")
    with Session(engine) as s:
        players = {p.id: p for p in s.exec(select(Player))}
        assert sorted(players) == [1, 3]  # the older of each pair is kept
        assert players[1].name_key == name_key(PRECOMPOSED) and players[3].name_key == "ann lee"
        seats = sorted((g.game_id, g.seat, g.player_id) for g in s.exec(select(GamePlayer)))
        assert seats == [(1, 0, 1), (1, 1, 3), (2, 0, 1), (2, 1, 3)]
        # The column holds a whole key now.
        s.add(Player(id=10, group_id=1, name="ß" * 40, name_key=name_key("ß" * 40)))
        s.commit()
    engine.dispose()
