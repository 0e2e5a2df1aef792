"""Virtual players (scorekeeper.rules.players, docs/practice.md): whole games with a fixed
seed replay to the same verdict through the record replay; over many seeds and option
sets (hypothesis) they never make an entry the engine refuses, and games end."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.rules import record as records
from scorekeeper.rules.base import MAX_NUMBER, IllegalEntry
from scorekeeper.rules.players import mia as mia_players
from scorekeeper.rules.players import mice_and_men as mm_players
from scorekeeper.rules.players import mitchi as mitchi_players
from scorekeeper.rules.players import play_game

SEATS = ["You", "Ben", "Cat", "Dan"]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAMES = [("mitchi", {"point_limit": 5}), ("mia", {}), ("mice-and-men", {"rounds": 4})]


def state_of(game, options, entries=()):
    return records.build(records.make_record(game, SEATS, options, list(entries)))


@pytest.mark.parametrize("game,options", GAMES)
def test_a_seeded_game_replays_to_the_same_verdict(game, options):
    record = play_game(game, SEATS, options, random.Random(2026))
    again = play_game(game, SEATS, options, random.Random(2026))
    assert record == again  # the seed alone decides every die and every choice
    verdict = records.replay(json.loads(json.dumps(record)))  # as a file would carry it
    assert verdict["finished"] is True and verdict["winners"]
    assert verdict == records.build(record).summary()
    other = play_game(game, SEATS, options, random.Random(2027))
    assert other["entries"] != record["entries"]


def mitchi_options():
    return st.fixed_dictionaries({"point_limit": st.integers(1, 12)})


def mia_options():
    def build(scoring, rolloff, **rest):
        return {**rest, "scoring": scoring, "rolloff": scoring == "bonus-points" and rolloff}

    return st.builds(
        build,
        scoring=st.sampled_from(["elimination", "bonus-points"]),
        rolloff=st.booleans(),
        lives=st.integers(1, 4),
        order=st.sampled_from(["standard", "sum"]),
        pass_back=st.sampled_from(["must-raise", "may-pass"]),
        next_starter=st.sampled_from(["owner", "challenger", "loser", "winner"]),
        winner_gains_life=st.booleans(),
        mia_reverses=st.booleans(),
    )


def mm_options():
    return st.builds(
        lambda rounds, low, extra, run_penalty, tie, first: {
            "rounds": rounds, "opening_range": [low, low + extra], "run_penalty": run_penalty,
            "tie": tie, "first_player": first},
        st.integers(1, 6), st.integers(1, 5), st.integers(0, 10), st.integers(0, 6),
        st.sampled_from(["all", "none"]), st.sampled_from(["rotate", "chosen"]),
    )


seats = st.integers(0, 4).map(lambda extra: SEATS + ["Eve", "Fay", "Gus", "Hal"][:extra])


@FAST
@given(seed=st.integers(0, 2**32), options=mitchi_options(), players=seats)
def test_mitchi_players_only_make_legal_entries_and_games_end(seed, options, players):
    record = play_game("mitchi", players[:max(2, len(players) - 2)], options, random.Random(seed))
    verdict = records.replay(record)  # every entry accepted again from scratch
    assert verdict["finished"]
    for entry in record["entries"]:
        if entry["type"] == "turn":
            assert entry["rolled"][-1] == entry["hand"] and len(entry["rolled"]) == entry["rolls"]


@FAST
@given(seed=st.integers(0, 2**32), options=mia_options(), players=seats)
def test_mia_players_only_make_legal_entries_and_games_end(seed, options, players):
    record = play_game("mia", players[:max(3, len(players) - 1)], options, random.Random(seed))
    assert records.replay(record)["finished"]
    cup = None
    for entry in record["entries"]:  # a lifted cup shows what the last roller really rolled
        if entry["type"] == "announce":
            cup = entry["dice"]
        elif entry["type"] == "challenge":
            assert entry["cup"] == cup


@FAST
@given(seed=st.integers(0, 2**32), options=mm_options(), players=seats)
def test_mice_and_men_players_only_make_legal_entries_and_games_end(seed, options, players):
    record = play_game("mice-and-men", players, options, random.Random(seed))
    verdict = records.replay(record)
    assert verdict["finished"] and len(verdict["rounds"]) == options["rounds"]
    leads = set()
    state = records.build(records.make_record("mice-and-men", players, options, []))
    for entry in record["entries"]:  # a virtual player leads at most once a round
        if entry["type"] == "announce" and state.phase == "bidding":
            key = (state.round_number, entry["player"])
            assert key not in leads
            leads.add(key)
        state.apply(entry)


# --- the strategies, decision by decision ----------------------------------------------


def test_mitchi_starter_stops_with_six_high_after_one_roll_and_keeps_the_six_otherwise():
    state = state_of("mitchi", {"point_limit": 5}, [{"type": "start", "player": "You"}])
    assert mitchi_players.decide(state, [6, 1], 1) == ("stop", None)
    assert mitchi_players.decide(state, [6, 1], 2) == ("stop", None)
    assert mitchi_players.decide(state, [5, 1], 2) == ("stop", None)
    assert mitchi_players.decide(state, [5, 1], 1) == ("both", None) or \
        mitchi_players.decide(state, [5, 1], 1)[0] == "keep"
    assert mitchi_players.decide(state, [4, 3], 3) == ("stop", None)  # no rolls left


def test_mitchi_player_stops_once_better_than_the_worst_hand_and_keeps_what_helps():
    start = [{"type": "start", "player": "You"},
             {"type": "turn", "player": "You", "hand": [6, 4], "rolls": 3}]
    state = state_of("mitchi", {"point_limit": 5}, start)
    assert mitchi_players.decide(state, [6, 5], 1) == ("stop", None)  # better than 6-4
    assert mitchi_players.decide(state, [6, 2], 1) == ("keep", 6)  # a 6 beats 6-4 with a 5 or a 6
    assert mitchi_players.decide(state, [6, 2], 3) == ("stop", None)  # the roll limit is 3
    # keeping the 2 reaches Mitchi or double 2 (2 in 6), more than re-rolling both (10 in 36)
    assert mitchi_players.decide(state, [3, 2], 1) == ("keep", 2)
    assert mitchi_players.decide(state, [4, 3], 1) == ("both", None)  # 10 in 36 beats 1 in 6
    # level with the worst hand: one roll beats 6-4 only 1 time in 3, so keep the tie
    assert mitchi_players.decide(state, [6, 4], 1) == ("stop", None)
    level = state_of("mitchi", {"point_limit": 5}, [start[0], {**start[1], "hand": [3, 2]}])
    assert mitchi_players.decide(level, [3, 2], 1) == ("both", None)  # anything but 3-1 or 3-2 is better
    limit1 = state_of("mitchi", {"point_limit": 5}, [start[0], {**start[1], "hand": [3, 1], "rolls": 1}])
    assert mitchi_players.decide(limit1, [3, 1], 1) == ("stop", None)  # limit 1: no choice


def test_mitchi_turn_refuses_rolls_past_the_limit_and_a_die_not_in_the_hand():
    state = state_of("mitchi", {"point_limit": 5}, [{"type": "start", "player": "You"},
                                                   {"type": "turn", "player": "You", "hand": [6, 4], "rolls": 2}])
    turn = mitchi_players.Turn.start(state)
    assert (turn.player, turn.limit, turn.choices()) == ("Ben", 2, ["roll"])
    rng = random.Random(1)
    with pytest.raises(IllegalEntry, match="roll both dice first"):
        turn.roll(rng, keep=6)
    first = turn.roll(rng)
    assert turn.choices() == ["keep", "both", "stop"]
    missing = next(d for d in range(1, 7) if d not in first)
    with pytest.raises(IllegalEntry, match="keep a die of the hand"):
        turn.roll(rng, keep=missing)
    second = turn.roll(rng, keep=first[0])
    assert second[0] == first[0] and turn.choices() == ["stop"]
    with pytest.raises(IllegalEntry, match="no rolls left"):
        turn.roll(rng)
    state.apply(turn.entry())
    assert state.round.turns[-1].rolls == 2


def test_mia_player_challenges_an_unlikely_value_and_rolls_on_a_likely_one():
    opened = [{"type": "start", "player": "You"}, {"type": "announce", "player": "You", "value": 11}]
    state = state_of("mia", {}, opened)
    hidden = mia_players.Hidden(cup=(4, 3))
    assert mia_players.reach(state, 11) == pytest.approx(3 / 36)  # Mia or double 1
    entry = mia_players.answer(state, random.Random(0), hidden, "Ben")
    assert entry == {"type": "challenge", "player": "Ben", "cup": [4, 3]}
    low = state_of("mia", {}, [opened[0], {**opened[1], "value": 32}])
    for seed in range(20):  # 32 is easy: never challenged
        entry = mia_players.answer(low, random.Random(seed), mia_players.Hidden(cup=(3, 2)), "Ben")
        assert entry["type"] in ("announce", "pass")
        if entry["type"] == "announce":
            assert low.ranks_above(entry["value"], 32)


def test_mia_forced_bluff_announces_just_above_what_must_be_beaten():
    state = state_of("mia", {}, [{"type": "start", "player": "You"},
                                 {"type": "announce", "player": "You", "value": 65}])
    seen = set()
    for seed in range(200):
        hidden = mia_players.Hidden()
        entry = mia_players.announce(state, random.Random(seed), hidden, "Ben", 65)
        assert state.ranks_above(entry["value"], 65)
        truth = hidden.cup[0] * 10 + hidden.cup[1]
        if not state.ranks_above(truth, 65):
            seen.add(entry["value"])
    assert seen <= {66, 55}  # the smallest raise, sometimes the one after


@pytest.mark.parametrize("opening", [MAX_NUMBER - 2, MAX_NUMBER - 1, MAX_NUMBER])
def test_mice_and_men_player_never_leads_past_the_largest_penalty(opening):
    """A lead is 1 to 3 above the penalty, but never above MAX_NUMBER (docs/game-record.md
    §Ranges): two below it, it led past it at times, an entry the rules refuse; at it, it joins
    or runs."""
    options = {"rounds": 1, "opening_range": [opening, opening], "run_penalty": MAX_NUMBER}
    state = state_of("mice-and-men", options, [{"type": "announce", "player": "You", "penalty": opening}])
    hidden = mm_players.Hidden()
    hidden.deal(state, random.Random(0))
    hidden.dice["Ben"] = [6, 6, 5]  # nearly never the lowest: it leads if it may
    for seed in range(40):
        entry = mm_players.next_entry(state, random.Random(seed), hidden)
        if opening == MAX_NUMBER:
            assert entry["type"] != "announce"
        else:
            assert entry["type"] == "announce" and opening < entry["penalty"] <= MAX_NUMBER
        state_of("mice-and-men", options, [{"type": "announce", "player": "You", "penalty": opening}]).apply(entry)


def test_mice_and_men_player_runs_with_a_weak_hand_and_leads_with_a_strong_one():
    state = state_of("mice-and-men", {"rounds": 2}, [{"type": "announce", "player": "You", "penalty": 8}])
    hidden = mm_players.Hidden()
    hidden.deal(state, random.Random(0))
    hidden.dice["Ben"] = [2, 1, 1]  # 211: nearly always the lowest
    assert mm_players.next_entry(state, random.Random(0), hidden)["type"] == "run"
    hidden.dice["Ben"] = [6, 6, 5]  # 665: nearly never the lowest
    entry = mm_players.next_entry(state, random.Random(0), hidden)
    assert entry["type"] == "announce" and 9 <= entry["penalty"] <= 11
    led = state_of("mice-and-men", {"rounds": 2}, [{"type": "announce", "player": "You", "penalty": 8},
                                                  {"type": "announce", "player": "Ben", "penalty": 9},
                                                  {"type": "join", "player": "Cat"},
                                                  {"type": "join", "player": "Dan"},
                                                  {"type": "announce", "player": "You", "penalty": 10}])
    hidden.number = 1
    assert mm_players.next_entry(led, random.Random(0), hidden)["type"] == "join"  # led once already
    hidden.dice["Ben"] = [5, 3, 2]  # middling: 8 times the chance stays under the run penalty?
    p = mm_players.take_chance(532, 3)
    want = "run" if 8 * p > 3 else ("announce" if p < 0.1 else "join")
    assert mm_players.next_entry(state, random.Random(0), hidden)["type"] == want
