"""Summaries, highlights, plain-words logs, CSV and time zones from golden records (no database)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

from scorekeeper.rules import record as records
from scorekeeper.services import history as hist

RECORDS = Path(__file__).parent / "records"


def golden(path: str) -> tuple[dict, dict]:
    """(record, engine summary) of ``tests/records/<path>.json``."""
    doc = json.loads((RECORDS / f"{path}.json").read_text())
    record = doc.get("record", doc)
    return record, records.replay(record)


def row(record: dict, game_id: int = 7):
    """A stand-in for a Game row (the fields the service reads)."""
    return SimpleNamespace(id=game_id, game=record["game"], players=json.dumps(record["players"]),
                           options=json.dumps(records.load_header(record).options),
                           played_at=datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc))


# --- standings and winners ---------------------------------------------------------


def test_shared_win_on_zero_points():
    record, summary = golden("mitchi/mitchi-11-shared-win-zero")
    view = hist.game_summary(row(record), summary)
    assert view.finished and view.shared and view.winners == ["Ben", "Cat"]
    top = view.standings[:2]
    assert [(r["player"], r["score"], r["rank"], r["winner"], r["shared"]) for r in top] == [
        ("Ben", 0, 1, True, True), ("Cat", 0, 1, True, True)]
    assert view.standings[2] == {"player": "Ann", "score": 4, "bonus": None, "rank": 3, "winner": False,
                                 "shared": False}


def test_zero_point_winner_is_first_and_alone():
    record, summary = golden("mitchi/mitchi-11-zero-point-winner")
    view = hist.game_summary(row(record), summary)
    assert [r["player"] for r in view.standings] == ["Cat", "Ben", "Ann"]
    assert view.standings[0]["score"] == 0 and view.standings[0]["winner"] and not view.standings[0]["shared"]
    figs = hist.game_figures("mitchi", record["players"], summary)
    assert figs["Cat"]["won"] and figs["Cat"]["score"] == 0 and not figs["Ann"]["won"]


def test_running_game_has_no_winner_and_counts_no_win():
    record, summary = golden("mitchi/mitchi-11-default-limit-24-not-ended")
    view = hist.game_summary(row(record), summary)
    assert not view.finished and view.winners == []
    assert not any(r["winner"] for r in view.standings)
    figs = hist.game_figures("mitchi", record["players"], summary)
    assert not any(f["won"] for f in figs.values())
    stats = hist.GameKindStats("mitchi")
    stats.add(figs["Ben"], finished=False)
    assert (stats.played, stats.finished, stats.win_rate, stats.average) == (1, 0, None, None)


def test_mia_standings_most_lives_then_bonus_and_joint_winners():
    record, summary = golden("mia/mia-7-bonus-points-joint-winners")
    view = hist.game_summary(row(record), summary)
    assert view.winners == ["Ann", "Ben"] and view.shared
    assert [r["player"] for r in view.standings] == ["Ann", "Ben", "Cat"]
    assert view.standings[2]["score"] == 0  # no lives left is a score too


# --- the score series is the engine's scores ------------------------------------------


@pytest.mark.parametrize("path", [
    "mitchi/mitchi-11-shared-win-zero", "mitchi/mitchi-11-zero-point-winner",
    "mitchi/mitchi-11-ends-in-tiebreak", "mitchi/mitchi-11-default-limit-24-not-ended",
    "mia/mia-7-bonus-points-joint-winners", "mia/mia-5-skip-eliminated-game-end",
    "mia/mia-7-winner-gains-life", "mice_and_men/mm-default-ten-rounds-end", "mice_and_men/mm-tie-none",
    "mice_and_men/mm-lone-survivor-opener",
])
def test_series_ends_on_the_engine_scores(path):
    record, summary = golden(path)
    options = records.load_header(record).options
    series = hist.score_series(record["game"], record["players"], options, summary)
    assert {p: s[-1] for p, s in series.items()} == summary["scores"]
    assert all(len(s) == len(summary["rounds"]) + 1 for s in series.values())


# --- plain words and highlights -----------------------------------------------------------


def test_mitchi_tie_break_in_plain_words():
    record, summary = golden("mitchi/mitchi-11-ends-in-tiebreak")
    view = hist.game_summary(row(record), summary)
    text = " ".join(view.log[0]["lines"])
    assert "held by Ann and Ben: a tie-break" in text
    assert "Tie-break 1 (order" in text and "pot 2" in text
    assert "Ann takes the pot: 2 points." in text
    assert {"title": "Longest tie-break chain", "text": "1 tie-break in round 1"} in view.highlights


def test_a_mitchi_in_a_tie_break_shows_in_its_pot():
    """docs/rules.md §Mitchi 8: the pot doubles to 2, Ben's Mitchi in the tie-break makes it 4, the
    next tie-break doubles that to 8. The summary said "pot 2" and then "pot 8" (found by a review)."""
    record = {"format": 1, "game": "mitchi", "players": ["Ann", "Ben", "Cat"], "options": {},
              "entries": [{"type": "start", "player": "Ann"},
                          {"type": "turn", "player": "Ann", "hand": [3, 1], "rolls": 1},
                          {"type": "turn", "player": "Ben", "hand": [3, 1], "rolls": 1},
                          {"type": "turn", "player": "Cat", "hand": [6, 6], "rolls": 1},
                          {"type": "tiebreak", "player": "Ben", "hand": [2, 1]},
                          {"type": "tiebreak", "player": "Ann", "hand": [2, 1]},
                          {"type": "tiebreak", "player": "Ann", "hand": [4, 2]},
                          {"type": "tiebreak", "player": "Ben", "hand": [6, 5]}]}
    summary = records.replay(record)
    tbs = summary["rounds"][0]["tie_breaks"]
    assert [(tb["pot"], tb["pot_after"]) for tb in tbs] == [(2, 6), (12, 12)]
    assert summary["rounds"][0]["pot"] == 12
    text = " ".join(hist.game_summary(row(record), summary).log[0]["lines"])
    assert "Tie-break 1 (order Ben → Ann, pot 2, 6 with Mitchis): Ben Mitchi, Ann Mitchi." in text, text
    assert "Tie-break 2 (order Ann → Ben, pot 12): " in text, text


def test_mia_log_says_claim_cup_and_lives():
    record, summary = golden("mia/mia-5-skip-eliminated-game-end")
    view = hist.game_summary(row(record), summary)
    first = " ".join(view.log[0]["lines"])
    assert "claimed" in first and "challenged" in first and "the cup showed" in first
    assert "loses 1 life (0 left)" in first
    titles = [h["title"] for h in view.highlights]
    assert "Most challenges won" in titles and "Mia challenges won" in titles
    # Every challenge cost a life: the first round's loss is not the heaviest alone (a review
    # read "Ben lost 1 life in round 1" as if nobody else had).
    losses = [r["lives_lost"] for r in summary["rounds"] if r.get("lives_lost")]
    assert losses == [1] * len(losses) and len(losses) == 3
    assert {"title": "Heaviest loss", "text": "Ben lost 1 life in round 1; 2 other rounds equalled it"} in view.highlights
    record, summary = golden("mia/mia-7-winner-gains-life")  # one round lost more than the others
    view = hist.game_summary(row(record), summary)
    assert {"title": "Heaviest loss", "text": "Ann lost 2 lives in round 1"} in view.highlights


def test_mice_and_men_log_bidding_showdown_and_runs():
    record, summary = golden("mice_and_men/mm-default-ten-rounds-end")
    view = hist.game_summary(row(record), summary)
    text = " ".join(view.log[0]["lines"])
    assert "Ann opens at 2" in text and "Ben runs with the mice (+3)" in text
    assert "Everyone else ran: Ann is left alone and takes nothing." in text
    assert {"title": "Most runs with the mice", "text": "Cat and Dan: 8"} in view.highlights
    record, summary = golden("mice_and_men/mm-tie-none")
    lines = " ".join(hist.game_summary(row(record), summary).log[0]["lines"])
    assert "Showdown:" in lines and "nobody takes the penalty" in lines


# --- stats are honest about lowest-wins games ----------------------------------------------


def _stats(name: str, game: str, scores: list[int], wins: int = 0):
    s = hist.PlayerStats(SimpleNamespace(name=name, name_key=name.casefold()))
    k = s.kinds.setdefault(game, hist.GameKindStats(game))
    for i, score in enumerate(scores):
        k.add({"score": score, "won": i < wins, "shared": False, "pots": 0, "mitchis": 0, "lives_lost": 0,
               "challenges_won": 0, "mia_challenges_won": 0, "runs": 0}, finished=True)
    return s


def test_leaders_crown_the_fewest_points_in_lowest_wins_games():
    stats = [_stats("High", "mitchi", [25, 30]), _stats("Zero", "mitchi", [0, 0], wins=2),
             _stats("Many", "mia", [3, 2]), _stats("Few", "mia", [0, 1])]
    leaders = {l["game"]: l for l in hist.leaders(stats)}
    assert leaders["mitchi"]["players"] == ["Zero"] and leaders["mitchi"]["average"] == 0
    assert leaders["mia"]["players"] == ["Many"]
    zero = stats[1].kinds["mitchi"]
    assert zero.best == 0 and zero.average == 0.0 and zero.win_rate == 1.0  # 0 is a score, not "none"
    assert stats[0].kinds["mitchi"].best == 25


def test_a_guests_one_game_does_not_outrank_the_regulars_best_average():
    """Best averages count players with at least three ended games of the kind; while no one
    has three, those with the most ended games."""
    regulars = [_stats("Ann", "mitchi", [10, 20, 30]), _stats("Ben", "mitchi", [5, 15, 25, 35])]
    guest = _stats("Gus", "mitchi", [0])
    best = hist.leaders(regulars + [guest])[0]
    assert (best["players"], best["average"], best["least"]) == (["Ann", "Ben"], 20, 3)
    best = hist.leaders([_stats("Ann", "mitchi", [10, 20]), guest])[0]
    assert (best["players"], best["average"], best["least"]) == (["Ann"], 15, 2)
    assert hist.leaders([guest])[0]["players"] == ["Gus"]


# --- CSV ------------------------------------------------------------------------------------


def test_csv_one_row_per_player_per_round():
    record, summary = golden("mitchi/mitchi-11-zero-point-winner")
    rows = hist.csv_rows(row(record), summary)
    assert len(rows) == 3 * len(summary["rounds"])
    text = hist.write_csv(rows)
    lines = text.removeprefix("\ufeff").splitlines()
    assert lines[0] == ",".join(hist.CSV_COLUMNS)
    last = [r for r in rows if r["round"] == len(summary["rounds"])]
    assert {r["player"]: r["score_after"] for r in last} == summary["scores"]
    assert all(r["change"] in (0,) or r["action"] == "took pot" for r in rows)
    assert "7,mitchi,2026-11-28T23:30:00+00:00,1,1,Ann," in text


# --- time zones around midnight ----------------------------------------------------------------


@pytest.mark.parametrize("moment, tz, shown", [
    (datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc), "Europe/Berlin", "Sun 29 Nov 2026, 00:30"),
    (datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc), "UTC", "Sat 28 Nov 2026, 23:30"),
    (datetime(2026, 11, 29, 0, 30, tzinfo=timezone.utc), "America/New_York", "Sat 28 Nov 2026, 19:30"),
    (datetime(2026, 11, 29, 0, 30), "America/New_York", "Sat 28 Nov 2026, 19:30"),  # naive is UTC
    (datetime(2026, 12, 31, 23, 59, tzinfo=timezone.utc), "Asia/Tokyo", "Fri 1 Jan 2027, 08:59"),
    (datetime(2026, 3, 29, 0, 59, tzinfo=timezone.utc), "Europe/Berlin", "Sun 29 Mar 2026, 01:59"),
    (datetime(2026, 3, 29, 1, 0, tzinfo=timezone.utc), "Europe/Berlin", "Sun 29 Mar 2026, 03:00"),  # DST
    (datetime(2026, 11, 28, 23, 30, tzinfo=timezone.utc), "Not/AZone", "Sat 28 Nov 2026, 23:30"),
])
def test_when_in_the_group_zone(moment, tz, shown):
    assert hist.when(moment, tz) == shown


def test_valid_timezone():
    assert hist.valid_timezone("Europe/Berlin") and hist.valid_timezone("UTC")
    assert not hist.valid_timezone("") and not hist.valid_timezone("Mars/Olympus")
    assert not hist.valid_timezone("../../etc/passwd") and not hist.valid_timezone(None)
    # The machine's own zone and tzdata's placeholder are files, not places: not offered, refused.
    assert not hist.valid_timezone("localtime") and not hist.valid_timezone("Factory")
    assert "localtime" not in hist.timezones() and "Europe/Berlin" in hist.timezones()
