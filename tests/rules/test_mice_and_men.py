"""Mice and Men rules engine: table-driven unit tests (docs/rules.md §Mice and Men 1-7)."""

from __future__ import annotations

import copy

import pytest

from scorekeeper.rules import GAMES
from scorekeeper.rules.base import MAX_NUMBER, IllegalEntry, RecordError, parse_options
from scorekeeper.rules.mice_and_men import GAME, OPTIONS, MiceAndMen, score_of

P4 = ("Ann", "Ben", "Cat", "Dan")


def A(p, n):
    return {"type": "announce", "player": p, "penalty": n}


def J(p):
    return {"type": "join", "player": p}


def R(p, dice=None):
    entry = {"type": "run", "player": p}
    if dice is not None:
        entry["dice"] = dice
    return entry


def V(p, dice):
    return {"type": "reveal", "player": p, "dice": dice}


def F(p):
    return {"type": "first", "player": p}


def S(p):
    return {"type": "start", "player": p}


def SR(p, d):
    return {"type": "startroll", "player": p, "die": d}


def game(entries=(), players=P4, **options) -> MiceAndMen:
    state = MiceAndMen(players, parse_options(OPTIONS, options))
    for entry in entries:
        state.apply(entry)
    return state


def lone(opener, players=P4, penalty=2):
    """A round opened by ``opener`` that everyone else runs from."""
    i = players.index(opener)
    return [A(opener, penalty)] + [R(p) for p in players[i + 1:] + players[:i]]


ALL_JOIN = [A("Ann", 3), J("Ben"), J("Cat"), J("Dan")]


def snapshot(state: MiceAndMen):
    return copy.deepcopy(
        (state.summary(), state.phase, state.still_in, state.runners, state.joined, state.revealed,
         state.to_reveal, state.penalty, state.opener, state.legal_types())
    )


# --- rule 1: the score ---------------------------------------------------------


@pytest.mark.parametrize(
    "dice, score",
    [
        ([1, 5, 6], 651), ([6, 5, 1], 651), ([5, 1, 6], 651), ([6, 1, 5], 651),
        ([1, 1, 1], 111), ([6, 6, 6], 666), ([2, 2, 6], 622), ([3, 1, 3], 331), ([4, 6, 4], 644),
    ],
)
def test_score_of_any_order(dice, score):
    assert score_of(dice) == score
    assert MiceAndMen.score_of(dice) == score


@pytest.mark.parametrize(
    "dice, message",
    [([1, 2], "3 dice"), ([1, 2, 3, 4], "3 dice"), ([0, 1, 2], "1 to 6"), ([7, 1, 2], "1 to 6"),
     (["1", 2, 3], "whole number"), (651, "list"), (None, "dice is missing"), ([True, 2, 3], "whole number")],
)
def test_score_of_refuses_bad_dice(dice, message):
    with pytest.raises(IllegalEntry, match=message):
        score_of(dice)


# --- spec and options ----------------------------------------------------------


def test_spec_registered():
    assert GAMES["mice-and-men"] is GAME
    assert (GAME.title, GAME.min_players, GAME.max_players) == ("Mice and Men", 4, 8)
    assert [o.name for o in OPTIONS] == ["rounds", "opening_range", "run_penalty", "tie", "first_player"]
    assert all(o.label and o.help and "\n" not in o.help for o in OPTIONS)


def test_option_defaults():
    assert parse_options(OPTIONS, {}) == {
        "rounds": 10, "opening_range": [1, 10], "run_penalty": 3, "tie": "all", "first_player": "rotate",
    }


@pytest.mark.parametrize(
    "options",
    [{"rounds": 0}, {"rounds": "3"}, {"opening_range": [0, 10]}, {"opening_range": [5, 3]},
     {"opening_range": [1]}, {"opening_range": 5}, {"run_penalty": -1}, {"tie": "some"},
     {"first_player": "random"}, {"lives": 3}],
)
def test_bad_options_refused(options):
    with pytest.raises(RecordError):
        parse_options(OPTIONS, options)


# --- the state before anything -------------------------------------------------


def test_fresh_game_rotate():
    g = game()
    assert (g.phase, g.opener, g.round_number, g.rounds_total, g.penalty) == ("opening", "Ann", 1, 10, None)
    assert g.legal_types() == ["announce", "start", "startroll"]
    assert g.scores == {p: 0 for p in P4}
    assert g.still_in == list(P4)
    assert g.opening_range == (1, 10)
    assert g.min_lead() is None
    assert g.to_act == "Ann"
    assert not g.finished and g.winners == []


def test_fresh_game_chosen():
    g = game(first_player="chosen")
    assert (g.phase, g.opener, g.to_act) == ("first", None, None)
    assert g.legal_types() == ["first", "start", "startroll"]
    assert g.expected()["player"] is None


# --- rule 2: the opening -------------------------------------------------------


@pytest.mark.parametrize(
    "opening_range, penalty, ok",
    [([1, 10], 1, True), ([1, 10], 10, True), ([1, 10], 0, False), ([1, 10], 11, False),
     ([1, 10], -3, False), ([3, 5], 2, False), ([3, 5], 3, True), ([3, 5], 6, False), ([4, 4], 4, True)],
)
def test_opening_range(opening_range, penalty, ok):
    g = game(opening_range=opening_range)
    if ok:
        g.apply(A("Ann", penalty))
        assert (g.penalty, g.phase, g.to_act, g.last_announcer) == (penalty, "bidding", "Ben", "Ann")
    else:
        with pytest.raises(IllegalEntry, match=f"{opening_range[0]} to {opening_range[1]}"):
            g.apply(A("Ann", penalty))


@pytest.mark.parametrize(
    "entry, message",
    [
        (A("Ben", 3), "Ann opens round 1, not Ben"),
        (A("Eve", 3), "not a player"),
        (A("Ann", "3"), "whole number"),
        (A("Ann", 3.0), "whole number"),
        (A("Ann", True), "whole number"),
        ({"type": "announce", "player": "Ann"}, "missing"),
        (J("Ben"), "before the opening announcement"),
        (R("Ben"), "before the opening announcement"),
        (V("Ann", [1, 2, 3]), "not allowed now"),
        (F("Ben"), "rotate"),
        ({"type": "turn", "player": "Ann"}, "not allowed now"),
        ({"player": "Ann"}, "not allowed now"),
    ],
)
def test_refusals_before_opening(entry, message):
    g = game()
    before = snapshot(g)
    with pytest.raises(IllegalEntry, match=message):
        g.apply(entry)
    assert snapshot(g) == before


def test_start_names_first_opener_then_rotates():
    g = game([S("Cat")])
    assert (g.opener, g.phase, g.legal_types()) == ("Cat", "opening", ["announce"])
    for e in lone("Cat"):
        g.apply(e)
    assert g.opener == "Dan"


def test_rolloff_names_first_opener():
    g = game([SR("Ann", 3), SR("Ben", 5), SR("Cat", 5)])
    assert (g.phase, g.legal_types(), g.to_act, g.opener) == ("first", ["startroll"], "Dan", None)
    with pytest.raises(IllegalEntry, match="roll-off"):
        g.apply(A("Ann", 3))
    with pytest.raises(IllegalEntry):
        g.apply(S("Ann"))
    for e in [SR("Dan", 2), SR("Ben", 4)]:
        g.apply(e)
    assert g.expected()["type"] == "startroll" and g.to_act == "Cat"
    g.apply(SR("Cat", 6))
    assert (g.phase, g.opener, g.to_act) == ("opening", "Cat", "Cat")


@pytest.mark.parametrize("die", [0, 7, "4", None])
def test_rolloff_bad_die(die):
    g = game()
    with pytest.raises(IllegalEntry):
        g.apply(SR("Ann", die))
    assert g.opening.rolloff is None


@pytest.mark.parametrize(
    "entries, bad, message",
    [
        ([A("Ann", 2)], S("Ben"), "first round's opener"),
        ([S("Ben")], S("Cat"), "first round's opener"),
        (lone("Ann"), S("Cat"), "first round's opener"),
        (lone("Ann"), SR("Ann", 3), "first round's opener"),
    ],
)
def test_start_only_before_round_1_opening(entries, bad, message):
    g = game(entries)
    with pytest.raises(IllegalEntry, match=message):
        g.apply(bad)


def test_chosen_first_each_round():
    g = game([F("Cat")], first_player="chosen")
    assert (g.phase, g.opener, g.to_act) == ("opening", "Cat", "Cat")
    with pytest.raises(IllegalEntry, match="already Cat"):
        g.apply(F("Dan"))
    with pytest.raises(IllegalEntry, match="first round's opener"):
        g.apply(S("Dan"))
    for e in lone("Cat"):
        g.apply(e)
    assert (g.phase, g.legal_types(), g.opener) == ("first", ["first"], None)
    assert g.expected() == {"type": "first", "player": None, "round": 2, "rounds": 10}
    with pytest.raises(IllegalEntry, match="first entry"):
        g.apply(A("Dan", 2))
    with pytest.raises(IllegalEntry, match="not a player"):
        g.apply(F("Eve"))
    g.apply(F("Cat"))  # the same opener again is allowed
    assert g.opener == "Cat"


def test_chosen_start_replaces_round_1_first():
    g = game([S("Dan")], first_player="chosen")
    assert (g.phase, g.opener) == ("opening", "Dan")
    for e in lone("Dan"):
        g.apply(e)
    assert g.phase == "first"


# --- rule 3: responses -----------------------------------------------------------


def test_run_join_lead():
    g = game([A("Ann", 2)])
    assert g.legal_types() == ["run", "join", "announce"] and g.min_lead() == 3
    g.apply(J("Ben"))
    assert (g.joined, g.to_act) == (["Ben"], "Cat")
    g.apply(A("Cat", 4))
    assert (g.penalty, g.last_announcer, g.joined, g.to_act, g.min_lead()) == (4, "Cat", [], "Dan", 5)
    g.apply(R("Dan", [6, 5, 4]))
    assert g.scores["Dan"] == 3 and g.runners == ["Dan"] and g.still_in == ["Ann", "Ben", "Cat"]
    assert g.to_act == "Ann"
    assert g.round.actions[-1].dice == (6, 5, 4)


def test_lead_reopens_for_joiners_and_runner_skipped():
    g = game([A("Ann", 2), J("Ben"), R("Cat"), A("Dan", 5)])
    assert g.to_act == "Ann"
    g.apply(J("Ann"))
    assert g.to_act == "Ben"  # Ben joined at 2 and must answer again
    g.apply(A("Ben", 6))
    assert g.to_act == "Dan"  # Cat ran: skipped
    g.apply(J("Dan"))
    g.apply(J("Ann"))
    assert (g.phase, g.to_act, g.to_reveal) == ("showdown", None, ["Ann", "Ben", "Dan"])


def test_bidding_ends_at_last_announcer():
    g = game(ALL_JOIN)
    assert g.phase == "showdown" and g.to_reveal == list(P4)
    assert g.expected()["type"] == "reveal" and g.expected()["player"] is None


def test_overtaken_leader_may_run():
    g = game([A("Ann", 2), A("Ben", 4), A("Cat", 6), J("Dan"), J("Ann"), R("Ben")])
    assert g.phase == "showdown" and g.to_reveal == ["Ann", "Cat", "Dan"] and g.scores["Ben"] == 3


@pytest.mark.parametrize(
    "entries, bad, message",
    [
        ([A("Ann", 4)], A("Ben", 4), "above the current penalty 4: 5 or more"),
        ([A("Ann", 4)], A("Ben", 1), "above the current penalty 4: 5 or more"),
        ([A("Ann", 4)], A("Ben", "9"), "whole number"),
        ([A("Ann", 4)], {"type": "announce", "player": "Ben"}, "missing"),
        ([A("Ann", 4)], J("Cat"), "it is Ben's choice"),
        ([A("Ann", 4)], R("Dan"), "it is Ben's choice"),
        ([A("Ann", 4)], J("Ann"), "last announcement"),
        ([A("Ann", 4)], J("Eve"), "not a player"),
        ([A("Ann", 4), A("Ben", 5), J("Cat"), J("Dan")], R("Ben"), "last announcement"),
        ([A("Ann", 4), R("Ben")], J("Ben"), "ran with the mice"),
        ([A("Ann", 4), R("Ben")], A("Ben", 9), "ran with the mice"),
        ([A("Ann", 4)], R("Ben", [1, 2, 3, 4]), "a runner's roll must have 3 dice, not 4"),
        ([A("Ann", 4)], R("Ben", [1, 2, 7]), "1 to 6"),
        ([A("Ann", 4)], R("Ben", "123"), "list"),
        ([A("Ann", 4)], V("Ben", [1, 2, 3]), "no reveal before the bidding has ended"),
        ([A("Ann", 4)], F("Ben"), "rotate"),
        ([A("Ann", 4)], S("Ben"), "first round's opener"),
        ([A("Ann", 4)], {"type": "pass", "player": "Ben"}, "not allowed now"),
        ([A("Ann", 4)], {"type": None, "player": "Ben"}, "not allowed now"),
        (ALL_JOIN, J("Ann"), "bidding has ended"),
        (ALL_JOIN, R("Ann"), "bidding has ended"),
        (ALL_JOIN, A("Ann", 9), "bidding has ended"),
    ],
)
def test_refusals_in_bidding(entries, bad, message):
    g = game(entries)
    before = snapshot(g)
    with pytest.raises(IllegalEntry, match=message):
        g.apply(bad)
    assert snapshot(g) == before


def test_lead_has_no_upper_bound():
    """Rule 3: a lead has no upper bound; the engine's one is nine digits (docs/rules.md §Options),
    far past any table's (it was 1000, and a lead of 5000 was refused; found by an audit)."""
    assert game([A("Ann", 10), A("Ben", 5000), A("Cat", 123_456_789)]).penalty == 123_456_789
    g = game([A("Ann", 10), A("Ben", MAX_NUMBER)])
    assert g.penalty == MAX_NUMBER == 999_999_999
    # At the largest penalty (docs/game-record.md §Ranges) no one may lead, and next says so:
    # no announce, and no smallest lead (it said one more, a lead that would be refused).
    assert g.legal_types() == ["run", "join"]
    assert g.expected()["min_lead"] is None and g.max_lead() is None
    assert game([A("Ann", 10), A("Ben", MAX_NUMBER - 1)]).expected()["min_lead"] == MAX_NUMBER


@pytest.mark.parametrize("run_penalty", [0, 1, 3, 7])
def test_run_penalty(run_penalty):
    g = game([A("Ann", 2), R("Ben")], run_penalty=run_penalty)
    assert g.scores == {"Ann": 0, "Ben": run_penalty, "Cat": 0, "Dan": 0}


# --- rule 4: the showdown ------------------------------------------------------


@pytest.mark.parametrize(
    "tie, reveals, takers",
    [
        ("all", [[5, 3, 1], [6, 1, 1], [4, 4, 6], [6, 6, 6]], ["Ann"]),
        ("none", [[5, 3, 1], [6, 1, 1], [4, 4, 6], [6, 6, 6]], ["Ann"]),
        ("all", [[5, 3, 1], [1, 3, 5], [4, 4, 6], [6, 6, 6]], ["Ann", "Ben"]),
        ("none", [[5, 3, 1], [1, 3, 5], [4, 4, 6], [6, 6, 6]], []),
        ("all", [[2, 2, 2]] * 4, list(P4)),
        ("none", [[2, 2, 2]] * 4, []),
    ],
)
def test_showdown(tie, reveals, takers):
    g = game(ALL_JOIN, tie=tie)
    # reveals in any order: reverse seat order
    for p, dice in reversed(list(zip(P4, reveals))):
        g.apply(V(p, dice))
    assert g.scores == {p: (3 if p in takers else 0) for p in P4}
    rnd = g.rounds[0].as_dict()
    assert (rnd["number"], rnd["first"], rnd["penalty"], rnd["takers"], rnd["runners"]) == (1, "Ann", 3, takers, [])
    assert g.phase == "opening" and g.opener == "Ben" and g.round_number == 2


@pytest.mark.parametrize(
    "reveals, lowest",
    [
        # reveal by reveal: (player, dice) -> the lowest so far after it; after the last the round
        # is over, and Ben, the lowest before it, took the penalty
        ([("Dan", [1, 5, 6]), ("Ben", [3, 3, 1]), ("Ann", [6, 6, 6])], [(651, ["Dan"]), (331, ["Ben"]), None]),
        # a tie: both, in seat order, whatever the order revealed
        ([("Dan", [2, 2, 1]), ("Ann", [1, 2, 2])], [(221, ["Dan"]), (221, ["Ann", "Dan"])]),
    ],
)
def test_lowest_so_far_at_the_showdown(reveals, lowest):
    """docs/rules.md §Mice and Men 4: the hand that takes the penalty should the rest show more."""
    g = game([A("Ann", 3), J("Ben"), R("Cat"), J("Dan")])
    assert g.phase == "showdown" and g.lowest_so_far is None
    for (player, dice), expected in zip(reveals, lowest, strict=True):
        g.apply(V(player, dice))
        assert g.lowest_so_far == expected
    if len(reveals) == 3:
        assert g.phase == "opening" and g.rounds[0].takers == ["Ben"]
    assert game(lone("Ann")).lowest_so_far is None


def test_showdown_state_and_refusals():
    g = game([A("Ann", 3), J("Ben"), R("Cat"), J("Dan"), V("Dan", [1, 5, 6])])
    assert g.revealed == {"Dan": 651} and g.to_reveal == ["Ann", "Ben"]
    for bad, message in [
        (V("Dan", [1, 1, 1]), "already revealed"),
        (V("Cat", [1, 1, 1]), "does not reveal"),
        (V("Ann", [1, 1, 1, 1]), "3 dice"),
        (V("Ann", [1, 1]), "3 dice"),
        (V("Ann", [1, 1, 0]), "1 to 6"),
        (V("Eve", [1, 1, 1]), "not a player"),
        ({"type": "reveal", "player": "Ann"}, "a reveal is missing: give 3 dice"),
        (J("Ann"), "bidding has ended"),
    ]:
        before = snapshot(g)
        with pytest.raises(IllegalEntry, match=message):
            g.apply(bad)
        assert snapshot(g) == before
    g.apply(V("Ann", [2, 1, 1]))
    assert g.expected()["player"] == "Ben" and g.to_act == "Ben"
    g.apply(V("Ben", [1, 1, 1]))
    assert g.scores == {"Ann": 0, "Ben": 3, "Cat": 3, "Dan": 0}
    assert g.rounds[0].as_dict()["reveals"][0] == {"player": "Dan", "dice": [6, 5, 1], "score": 651}


# --- rule 5: the lone survivor -------------------------------------------------


@pytest.mark.parametrize(
    "entries, survivor, runners",
    [
        (lone("Ann"), "Ann", ["Ben", "Cat", "Dan"]),
        ([A("Ann", 2), A("Ben", 6), R("Cat"), R("Dan"), R("Ann")], "Ben", ["Cat", "Dan", "Ann"]),
        ([A("Ann", 2), R("Ben"), A("Cat", 4), R("Dan"), R("Ann")], "Cat", ["Ben", "Dan", "Ann"]),
    ],
)
def test_lone_survivor(entries, survivor, runners):
    g = game(entries)
    rnd = g.rounds[0].as_dict()
    assert rnd["survivor"] == survivor and rnd["takers"] == [] and rnd["runners"] == runners
    assert rnd["reveals"] == []
    assert g.scores[survivor] == 0
    assert g.phase == "opening" and g.opener == "Ben"


# --- rotation, rounds, the end -------------------------------------------------


def test_rotate_wraps():
    g = game(lone("Ann") + lone("Ben") + lone("Cat") + lone("Dan"), rounds=5)
    assert [r.first for r in g.rounds] == list(P4)
    assert g.opener == "Ann" and g.round_number == 5


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_game_ends_after_rounds(rounds):
    g = game(rounds=rounds)
    for i in range(rounds):
        assert not g.finished
        for e in lone(P4[i % 4]):
            g.apply(e)
    assert g.finished and g.phase == "over" and g.expected() is None and g.legal_types() == []
    assert g.round_number == rounds and len(g.rounds) == rounds
    assert g.still_in == [] and g.to_act is None
    with pytest.raises(IllegalEntry, match="game is over"):
        g.apply(A("Ann", 2))


@pytest.mark.parametrize(
    "reveals, winners",
    [
        ([[1, 1, 1], [6, 6, 6], [6, 6, 6], [6, 6, 6]], ["Ben", "Cat", "Dan"]),
        ([[1, 1, 1], [1, 1, 1], [6, 6, 6], [6, 6, 6]], ["Cat", "Dan"]),
        ([[1, 1, 1]] * 4, list(P4)),
    ],
)
def test_fewest_points_win(reveals, winners):
    g = game(ALL_JOIN + [V(p, d) for p, d in zip(P4, reveals)], rounds=1)
    assert g.finished and g.winners == winners
    assert g.summary()["winners"] == winners


def test_summary_shape():
    g = game([A("Ann", 2), J("Ben"), R("Cat", [2, 2, 1]), J("Dan"), V("Ann", [5, 3, 1]),
              V("Ben", [6, 1, 1]), V("Dan", [4, 4, 6])], rounds=3)
    s = g.summary()
    assert s["game"] == "mice-and-men" and s["finished"] is False
    assert list(s["scores"]) == list(P4) and s["scores"] == {"Ann": 2, "Ben": 0, "Cat": 3, "Dan": 0}
    r = s["rounds"][0]
    assert {k: r[k] for k in ("number", "first", "penalty", "takers", "runners")} == {
        "number": 1, "first": "Ann", "penalty": 2, "takers": ["Ann"], "runners": ["Cat"]}
    assert r["taken"] == {"Ann": 2, "Cat": 3}
    assert [a["action"] for a in r["bidding"]] == ["open", "join", "run", "join"]
    assert s["next"]["type"] == "announce" and s["next"]["player"] == "Ben"


def test_eight_players():
    players = tuple(f"P{i}" for i in range(1, 9))
    g = game([A("P1", 2)] + [J(p) for p in players[1:]], players=players)
    assert g.phase == "showdown" and g.to_reveal == list(players)
