"""Standings: eliminated Mia players rank by when they went out, the last out higher."""

from __future__ import annotations

from scorekeeper.rules import find_game
from scorekeeper.rules import record as records
from scorekeeper.services.history import standings


def quick(owner, challenger, value, cup):
    return {"type": "challenge", "player": challenger, "owner": owner, "announced": value, "cup": cup}


def test_mia_players_out_rank_by_when_they_went_out():
    players = ["Ann", "Ben", "Cat", "Dan"]
    # Ann's true claims put out Ben (round 1), then Cat (2), then Dan (3).
    log = [{"type": "start", "player": "Ann"}, quick("Ann", "Ben", 42, [4, 2]),
           quick("Ann", "Cat", 31, [3, 1]), quick("Ann", "Dan", 43, [4, 3])]
    summary = records.build(records.make_record("mia", players, {"lives": 1}, log)).summary()
    assert summary["finished"] and summary["winners"] == ["Ann"]
    assert find_game("mia").standings(summary) == ["Ann", "Dan", "Cat", "Ben"]
    rows = standings("mia", players, summary)
    assert [(r["player"], r["rank"]) for r in rows] == [("Ann", 1), ("Dan", 2), ("Cat", 3), ("Ben", 4)]
