"""Mitchi rules engine: table-driven unit tests (docs/rules.md §Mitchi 1-12, "Every game").

Expected values are written from docs/rules.md, not read back from the engine.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from scorekeeper.rules import record as records
from scorekeeper.rules.base import MAX_NUMBER, IllegalEntry
from scorekeeper.rules.mitchi import RANKING, Mitchi, hand_name, rank

# docs/rules.md §Mitchi 1, best to worst, copied from the text.
RULES_ORDER = [
    (2, 1),
    (6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1),
    (6, 5), (6, 4), (6, 3), (6, 2), (6, 1),
    (5, 4), (5, 3), (5, 2), (5, 1),
    (4, 3), (4, 2), (4, 1),
    (3, 2), (3, 1),
]


def S(p):
    return {"type": "start", "player": p}


def SR(p, d):
    return {"type": "startroll", "player": p, "die": d}


def T(p, a, b, n):
    return {"type": "turn", "player": p, "hand": [a, b], "rolls": n}


def TB(p, a, b):
    return {"type": "tiebreak", "player": p, "hand": [a, b]}


def game(players=("Ann", "Ben", "Cat"), entries=(), point_limit=25) -> Mitchi:
    g = Mitchi(tuple(players), {"point_limit": point_limit})
    for e in entries:
        g.apply(e)
    return g


def high_first(hand):
    return tuple(sorted(hand, reverse=True))


# --- rule 1: the ranking -------------------------------------------------------


def test_ranking_is_exactly_rules_order():
    assert list(RANKING) == RULES_ORDER
    assert len(RULES_ORDER) == 21


def test_ranking_holds_every_hand_once():
    every = {high_first(h) for h in itertools.product(range(1, 7), repeat=2)}
    assert set(RULES_ORDER) == every
    assert len(set(RULES_ORDER)) == 21


@pytest.mark.parametrize("index,hand", list(enumerate(RULES_ORDER)), ids=[f"{a}-{b}" for a, b in RULES_ORDER])
def test_rank(index, hand):
    assert rank(hand) == index
    assert rank(high_first(hand[::-1])) == index  # dice entered low first mean the same hand


@pytest.mark.parametrize(
    "hand,name",
    [((2, 1), "Mitchi"), ((6, 6), "double 6"), ((1, 1), "double 1"), ((6, 5), "6-5"), ((6, 3), "6-3"),
     ((3, 1), "3-1"), ((4, 2), "4-2")],
)
def test_hand_name(hand, name):
    assert hand_name(hand) == name
    assert hand_name(list(hand)) == name


def test_hand_names_are_distinct():
    assert len({hand_name(h) for h in RULES_ORDER}) == 21


@pytest.mark.parametrize("better_first", [True, False])
def test_engine_orders_every_pair_of_hands(better_first):
    """For every pair of distinct hands (210 pairs) in both dice orders, the lower-ranked takes the pot."""
    for i, j in itertools.combinations(range(21), 2):
        better, worse = RULES_ORDER[i], RULES_ORDER[j]
        if better_first:
            hands = {"Ann": better, "Ben": worse[::-1]}
        else:
            hands = {"Ann": worse[::-1], "Ben": better[::-1]}
        g = game(("Ann", "Ben"), [S("Ann"), T("Ann", *hands["Ann"], 1), T("Ben", *hands["Ben"], 1)])
        taker = "Ben" if better_first else "Ann"
        pot = 2 if i == 0 else 1
        assert g.scores == {"Ann": 0, "Ben": 0, taker: pot}, (better, worse)


@pytest.mark.parametrize("hand", RULES_ORDER, ids=[f"{a}-{b}" for a, b in RULES_ORDER])
def test_equal_hands_tie_in_either_dice_order(hand):
    g = game(("Ann", "Ben"), [S("Ann"), T("Ann", *hand, 1), T("Ben", *hand[::-1], 1)])
    nxt = g.summary()["next"]
    assert nxt["type"] == "tiebreak"
    assert nxt["tie_break_order"] == ["Ben", "Ann"]
    assert g.scores == {"Ann": 0, "Ben": 0}


# --- rule 2: the roll-off ---------------------------------------------------------


@pytest.mark.parametrize(
    "dice,starter",
    [
        ([("Ann", 1), ("Ben", 2), ("Cat", 3)], "Cat"),
        ([("Ann", 6), ("Ben", 2), ("Cat", 3)], "Ann"),
        ([("Ann", 4), ("Ben", 4), ("Cat", 3), ("Ann", 2), ("Ben", 5)], "Ben"),
        ([("Ann", 6), ("Ben", 6), ("Cat", 6), ("Ann", 1), ("Ben", 1), ("Cat", 1),
          ("Ann", 2), ("Ben", 3), ("Cat", 3), ("Ben", 5), ("Cat", 4)], "Ben"),
    ],
)
def test_rolloff(dice, starter):
    g = game(entries=[SR(p, d) for p, d in dice])
    assert g.summary()["next"]["type"] == "turn"
    assert g.summary()["next"]["player"] == starter


def test_rolloff_next_player_only_tied():
    g = game(("Ann", "Ben", "Cat", "Dan"), [SR("Ann", 2), SR("Ben", 5), SR("Cat", 1), SR("Dan", 5)])
    assert g.summary()["next"]["type"] == "startroll"
    assert g.summary()["next"]["player"] == "Ben"
    g.apply(SR("Ben", 1))
    assert g.summary()["next"]["player"] == "Dan"


# --- rule 3: allowed roll counts ----------------------------------------------------


@pytest.mark.parametrize(
    "entries,allowed",
    [
        ([], []),
        ([SR("Ann", 3)], []),
        ([S("Ann")], [1, 2, 3]),
        ([S("Ann"), T("Ann", 6, 3, 1)], [1]),
        ([S("Ann"), T("Ann", 6, 3, 2)], [1, 2]),
        ([S("Ann"), T("Ann", 6, 3, 3)], [1, 2, 3]),
        ([S("Ann"), T("Ann", 6, 3, 2), T("Ben", 6, 2, 1)], [1, 2]),
        # Cat takes; round 2 starts fresh with 1, 2 or 3
        ([S("Ann"), T("Ann", 6, 3, 1), T("Ben", 6, 2, 1), T("Cat", 6, 1, 1)], [1, 2, 3]),
        # tie-break: no turn, no roll count
        ([S("Ann"), T("Ann", 3, 1, 1), T("Ben", 3, 1, 1), T("Cat", 6, 6, 1)], []),
    ],
)
def test_allowed_rolls(entries, allowed):
    assert game(entries=entries).allowed_rolls() == allowed


def test_allowed_rolls_empty_after_end():
    g = game(("Ann", "Ben"), [S("Ann"), T("Ann", 3, 1, 1), T("Ben", 6, 6, 1)], point_limit=1)
    assert g.finished
    assert g.allowed_rolls() == []


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_roll_limit_accepts_up_to_limit(limit):
    for used in range(1, 5):
        g = game(entries=[S("Ann"), T("Ann", 6, 3, limit)])
        if used <= limit:
            g.apply(T("Ben", 6, 2, used))
        else:
            with pytest.raises(IllegalEntry):
                g.apply(T("Ben", 6, 2, used))


# --- rules 6 and 8: the pot ---------------------------------------------------------

FIVE = ("Ann", "Ben", "Cat", "Dan", "Eve")


@pytest.mark.parametrize("mitchis,pot", [(0, 1), (1, 2), (2, 4), (3, 6), (4, 8)])
def test_round_pot(mitchis, pot):
    hands = [(2, 1)] * mitchis + [(6, 6)] * (4 - mitchis)
    entries = [S("Ann")] + [T(p, *h, 1) for p, h in zip(FIVE, hands)] + [T("Eve", 3, 1, 1)]
    g = game(FIVE, entries)
    assert g.scores["Eve"] == pot
    assert g.summary()["rounds"][0]["pot"] == pot


@pytest.mark.parametrize("mitchis,pot", [(0, 1), (1, 2), (2, 4), (3, 6)])
def test_pot_shown_during_round(mitchis, pot):
    entries = [S("Ann")] + [T(p, 1, 2, 1) for p in FIVE[:mitchis]] + [T(p, 5, 5, 1) for p in FIVE[mitchis:4]]
    assert game(FIVE, entries).summary()["next"]["pot"] == pot


@pytest.mark.parametrize(
    "round_mitchis,tb_mitchis,pot",
    [(0, 0, 2), (1, 0, 4), (2, 0, 8), (0, 1, 4), (1, 1, 6), (1, 2, 8)],
)
def test_tiebreak_pot(round_mitchis, tb_mitchis, pot):
    """Rule 8: the pot doubles, then +2 per Mitchi rolled in the tie-break; the 3-1 holder takes it."""
    players = ("Ann", "Ben", "Cat", "Dan", "Eve")
    # Ann and Ben tie on 3-1; Cat, Dan, Eve hold Mitchis or 6-6
    hands = [(2, 1)] * round_mitchis + [(6, 6)] * (3 - round_mitchis)
    entries = [S("Ann"), T("Ann", 3, 1, 1), T("Ben", 1, 3, 1)]
    entries += [T(p, *h, 1) for p, h in zip(players[2:], hands)]
    g = game(players, entries)
    order = g.summary()["next"]["tie_break_order"]
    assert order == ["Ben", "Ann"]
    tb = [(2, 1)] * tb_mitchis + [(3, 1)] * (2 - tb_mitchis)
    if tb_mitchis == 2:  # both roll a Mitchi: tie again, double again
        for p, h in zip(order, tb):
            g.apply(TB(p, *h))
        assert g.summary()["next"]["pot"] == 2 * pot
        assert g.summary()["next"]["tie_break_order"] == ["Ann", "Ben"]
        return
    g.apply(TB("Ben", *tb[0]))
    if tb_mitchis == 0:
        g.apply(TB("Ann", 6, 6))
        assert g.scores["Ben"] == pot
    else:
        g.apply(TB("Ann", 3, 1))
        assert g.scores["Ann"] == pot


def test_the_pot_doubles_tie_break_after_tie_break_and_stops_at_the_largest_number():
    """Rule 8 doubles the pot at every tie-break; docs/rules.md §Mitchi 8 stops it at MAX_NUMBER
    (nine digits). Without the stop, 41 tie-breaks of 3-1 typed again and again made a pot of
    2**41, which PostgreSQL could not store in the stats (a server error; found by an audit)."""
    g = game(("Ann", "Ben", "Cat"), [S("Ann"), T("Ann", 3, 1, 1), T("Ben", 3, 1, 1), T("Cat", 6, 6, 1)])
    pots = []
    for _ in range(35):
        nxt = g.summary()["next"]
        pots.append(nxt["pot"])
        for p in nxt["tie_break_order"]:
            g.apply(TB(p, 3, 1))
    expected = [min(2 ** (i + 1), MAX_NUMBER) for i in range(35)]  # 2, 4, 8, ... then the stop
    assert pots == expected and expected[-1] == MAX_NUMBER and expected[28] == 2**29 < MAX_NUMBER
    order = g.summary()["next"]["tie_break_order"]
    g.apply(TB(order[0], 2, 1))  # a Mitchi adds 2 (rule 8), and the pot still stays at the stop
    assert g.summary()["next"]["pot"] == MAX_NUMBER
    g.apply(TB(order[1], 3, 1))
    assert g.finished and g.scores == {"Ann": 0, "Ben": 0, "Cat": 0, order[1]: MAX_NUMBER}


# --- rules 5, 9, 10, 11: what the table sees -----------------------------------------


def test_next_names_worst_hand_and_holder():
    g = game(entries=[S("Ann"), T("Ann", 6, 6, 2), T("Ben", 1, 6, 2)])
    nxt = g.summary()["next"]
    assert nxt["worst_hand"] == [6, 1]
    assert "Ben" in [v for k, v in nxt.items() if k not in ("player", "type")]  # who holds it (rule 5)


@pytest.mark.parametrize(
    "players,starter,tied,order",
    [
        ("ABCDE", "B", "ACD", "ADC"),  # docs/rules.md §Mitchi 9 example
        ("ABCDE", "A", "ABCDE", "EDCBA"),
        ("ABCDE", "C", "BC", "BC"),
        ("ABCD", "D", "DA", "AD"),
        ("AB", "B", "AB", "AB"),
        ("AB", "A", "AB", "BA"),
    ],
)
def test_tie_break_order(players, starter, tied, order):
    players = tuple(players)
    g = game(players, [S(starter)])
    i = players.index(starter)
    for p in players[i:] + players[:i]:
        g.apply(T(p, 3, 1, 1) if p in tied else T(p, 6, 6, 1))
    assert g.summary()["next"]["tie_break_order"] == list(order)
    assert g.summary()["next"]["player"] == order[0]
    # everyone ties again: the order reverses
    for p in order:
        g.apply(TB(p, 4, 4))
    assert g.summary()["next"]["tie_break_order"] == list(reversed(order))


def test_rounds_entries_and_seat_order():
    g = game(("Ann", "Ben", "Cat"), [S("Cat"), T("Cat", 5, 5, 2), T("Ann", 6, 4, 1), T("Ben", 6, 6, 2)])
    s = g.summary()
    assert list(s["scores"]) == ["Ann", "Ben", "Cat"]
    r = s["rounds"][0]
    assert {k: r[k] for k in ("number", "starter", "roll_limit", "taker", "pot")} == {
        "number": 1, "starter": "Cat", "roll_limit": 2, "taker": "Ann", "pot": 1}
    assert s["next"]["player"] == "Ann"  # rule 10


@pytest.mark.parametrize("limit,finished", [(3, True), (4, False)])
def test_game_end_at_limit(limit, finished):
    # Ann takes 1 + 2 = 3
    g = game(("Ann", "Ben"), [S("Ann"), T("Ann", 3, 1, 1), T("Ben", 6, 6, 1),
                              T("Ann", 3, 1, 1), T("Ben", 2, 1, 1)], point_limit=limit)
    assert g.scores == {"Ann": 3, "Ben": 0}
    assert g.finished is finished
    s = g.summary()
    assert s["winners"] == (["Ben"] if finished else [])
    assert (s["next"] is None) is finished


def test_default_point_limit_is_25():
    rec = records.make_record("mitchi", ["Ann", "Ben"], {}, [])
    assert records.build(rec).point_limit == 25


def test_shared_winners_in_seat_order():
    entries = [S("Cat"), T("Cat", 3, 1, 1), T("Ann", 6, 6, 1), T("Ben", 5, 5, 1)]
    g = game(("Ann", "Ben", "Cat"), entries, point_limit=1)
    assert g.summary()["winners"] == ["Ann", "Ben"]


# --- refusals: state unchanged, messages say what is valid -----------------------------

TIE = [S("Ann"), T("Ann", 3, 1, 2), T("Ben", 1, 3, 1), T("Cat", 6, 6, 1)]  # tie-break Ben, Ann
OVER = [S("Ann"), T("Ann", 3, 1, 1), T("Ben", 6, 6, 1), T("Cat", 6, 6, 1)]  # point_limit 1: over

REFUSALS = [
    # (name, prefix, bad entry, point_limit, substrings the message must contain)
    ("turn-before-start", [], T("Ann", 6, 3, 1), 25, ["start", "startroll"]),
    ("start-unknown", [], S("Zed"), 25, ["Zed", "Ann", "Ben", "Cat"]),
    ("rolloff-wrong-seat", [], SR("Ben", 3), 25, ["Ann"]),
    ("rolloff-die-7", [SR("Ann", 3)], SR("Ben", 7), 25, ["1", "6"]),
    ("rolloff-die-0", [SR("Ann", 3)], SR("Ben", 0), 25, ["1", "6"]),
    ("rolloff-not-tied", [SR("Ann", 5), SR("Ben", 5), SR("Cat", 1)], SR("Cat", 4), 25, ["Ann"]),
    ("start-during-rolloff", [SR("Ann", 5)], S("Ann"), 25, ["Ben"]),
    ("wrong-player", [S("Ann")], T("Ben", 6, 3, 1), 25, ["Ann"]),
    ("wrong-player-mid", [S("Ann"), T("Ann", 6, 3, 1)], T("Cat", 6, 3, 1), 25, ["Ben"]),
    ("starter-4", [S("Ann")], T("Ann", 6, 3, 4), 25, ["1", "2", "3"]),
    ("starter-0", [S("Ann")], T("Ann", 6, 3, 0), 25, ["1", "2", "3"]),
    ("limit-1", [S("Ann"), T("Ann", 6, 3, 1)], T("Ben", 6, 2, 2), 25, ["1"]),
    ("limit-2", [S("Ann"), T("Ann", 6, 3, 2)], T("Ben", 6, 2, 3), 25, ["1 or 2"]),
    ("rolls-string", [S("Ann")], {"type": "turn", "player": "Ann", "hand": [6, 3], "rolls": "2"}, 25,
     ["whole number"]),
    ("rolls-bool", [S("Ann")], {"type": "turn", "player": "Ann", "hand": [6, 3], "rolls": True}, 25, []),
    ("die-7", [S("Ann")], T("Ann", 7, 3, 1), 25, ["1", "6"]),
    ("die-0", [S("Ann")], T("Ann", 0, 3, 1), 25, ["1", "6"]),
    ("die-string", [S("Ann")], T("Ann", "3", 3, 1), 25, ["1", "6"]),
    ("die-none", [S("Ann")], T("Ann", None, 3, 1), 25, []),
    ("three-dice", [S("Ann")], {"type": "turn", "player": "Ann", "hand": [6, 3, 1], "rolls": 1}, 25, ["2"]),
    ("one-die", [S("Ann")], {"type": "turn", "player": "Ann", "hand": [6], "rolls": 1}, 25, ["2"]),
    ("hand-string", [S("Ann")], {"type": "turn", "player": "Ann", "hand": "63", "rolls": 1}, 25, ["2"]),
    ("tiebreak-when-none", [S("Ann"), T("Ann", 6, 3, 1)], TB("Ben", 6, 3), 25, ["turn", "Ben"]),
    ("turn-in-tiebreak", TIE, T("Ben", 6, 3, 1), 25, ["tie-break roll", "Ben"]),
    ("tiebreak-wrong-player", TIE, TB("Ann", 6, 3), 25, ["Ben"]),
    ("tiebreak-untied", TIE, TB("Cat", 6, 3), 25, ["Ben"]),
    ("tiebreak-die-7", TIE, TB("Ben", 6, 7), 25, ["1", "6"]),
    ("unknown-type", [S("Ann")], {"type": "announce", "player": "Ann", "value": 65}, 25,
     ["the entry “announcement” is not allowed", "turn", "Ann"]),
    ("made-up-type", [S("Ann")], {"type": "dance", "player": "Ann"}, 25,
     ["the entry 'dance' is not allowed", "Ann"]),
    ("no-type", [S("Ann")], {"player": "Ann"}, 25, ["Ann"]),
    # the entry's type in the table's words, not the record's ("startroll")
    ("startroll-mid-game", [S("Ann")], SR("Ann", 4), 25,
     ["the entry “roll-off die” is not allowed now; expected a turn by Ann"]),
    ("after-end", OVER, T("Ann", 6, 3, 1), 1, []),
    ("after-end-start", OVER, S("Ann"), 1, []),
]


@pytest.mark.parametrize("name,prefix,bad,limit,words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_changes_nothing(name, prefix, bad, limit, words):
    g = game(entries=prefix, point_limit=limit)
    before = copy.deepcopy((g.summary(), g.allowed_rolls()))
    with pytest.raises(IllegalEntry) as info:
        g.apply(copy.deepcopy(bad))
    assert (g.summary(), g.allowed_rolls()) == before
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    # the state still works: replaying the prefix gives the same answer
    assert game(entries=prefix, point_limit=limit).summary() == g.summary()


def test_refused_rolloff_die_then_valid_roll_continues():
    g = game(entries=[SR("Ann", 6)])
    with pytest.raises(IllegalEntry):
        g.apply(SR("Ben", 7))
    g.apply(SR("Ben", 2))
    g.apply(SR("Cat", 1))
    assert g.summary()["next"]["player"] == "Ann"


@pytest.mark.parametrize(
    "record,words",
    [
        ({"players": ["Ann"]}, ["2"]),
        ({"players": []}, ["2"]),
        ({"players": ["Ann", "Ann"]}, ["Ann"]),
        ({"options": {"point_limit": 0}}, ["point_limit", "1"]),
        ({"options": {"point_limit": "25"}}, ["point_limit"]),
        ({"options": {"point_limit": -5}}, ["point_limit"]),
        ({"options": {"point_limit": 2.5}}, ["point_limit"]),
        ({"options": {"lives": 3}}, ["lives", "point_limit"]),
        ({"format": 2}, ["format", "1"]),
        ({"game": "mitchy"}, ["mitchi"]),
    ],
)
def test_record_refusals(record, words):
    rec = {"format": 1, "game": "mitchi", "players": ["Ann", "Ben"], "options": {}, "entries": []}
    rec.update(record)
    with pytest.raises(records.ReplayError) as info:
        records.replay(rec)
    assert str(info.value).startswith("record:")
    for word in words:
        assert word in str(info.value)


def test_replay_refusal_names_entry_number():
    rec = records.make_record("mitchi", ["Ann", "Ben"], {}, [S("Ann"), T("Ann", 6, 3, 2), T("Ben", 6, 2, 3)])
    with pytest.raises(records.ReplayError) as info:
        records.replay(rec)
    assert str(info.value).startswith("entry 3:")


def test_worst_hand_names_every_holder_and_tied_on_follows_the_chain():
    from scorekeeper.rules import record as records

    state = records.build({
        "format": 1, "game": "mitchi", "players": ["A", "B", "C", "D"], "options": {},
        "entries": [
            {"type": "start", "player": "A"},
            {"type": "turn", "player": "A", "hand": [3, 1], "rolls": 1},
            {"type": "turn", "player": "B", "hand": [6, 6], "rolls": 1},
            {"type": "turn", "player": "C", "hand": [1, 3], "rolls": 1},
        ],
    })
    rnd = state.round
    assert rnd.worst_hand_players == ["A", "C"]
    assert state.expected()["worst_hand_players"] == ["A", "C"]
    state.apply({"type": "turn", "player": "D", "hand": [3, 1], "rolls": 1})
    assert rnd.in_tie_break and rnd.tied_on == (3, 1)
    for player, hand in (("D", [5, 2]), ("C", [5, 2]), ("A", [6, 6])):
        state.apply({"type": "tiebreak", "player": player, "hand": hand})
    # D and C tie again on 5-2: the second tie-break is tied on 5-2, not the round's 3-1.
    assert rnd.tie_breaks[-1].order == ["C", "D"]
    assert rnd.tied_on == (5, 2)


def test_worst_tie_break_roll_is_the_one_to_beat_in_the_running_tie_break():
    """docs/rules.md §Mitchi 8: the worst tie-break hand takes the pot, so the worst roll of the
    running tie-break (not the hand tied on) is what the next player has to beat."""
    from scorekeeper.rules import record as records

    state = records.build({
        "format": 1, "game": "mitchi", "players": ["A", "B", "C", "D"], "options": {},
        "entries": [{"type": "start", "player": "A"}] + [
            {"type": "turn", "player": p, "hand": h, "rolls": 1}
            for p, h in (("A", [3, 1]), ("B", [6, 6]), ("C", [3, 1]), ("D", [3, 1]))],
    })
    rnd = state.round
    tb = rnd.tie_breaks[-1]
    assert tb.order == ["D", "C", "A"] and tb.worst_roll is None and tb.worst_roll_players == []
    state.apply({"type": "tiebreak", "player": "D", "hand": [6, 5]})
    assert tb.worst_roll == (6, 5) and tb.worst_roll_players == ["D"]
    state.apply({"type": "tiebreak", "player": "C", "hand": [2, 1]})  # a Mitchi beats 6-5: D still worst
    assert tb.worst_roll == (6, 5) and tb.worst_roll_players == ["D"]
    state.apply({"type": "tiebreak", "player": "A", "hand": [5, 6]})  # ties with D: both hold it
    assert tb.worst_roll == (6, 5) and tb.worst_roll_players == ["D", "A"]
    second = rnd.tie_breaks[-1]
    assert second is not tb and second.worst_roll is None and rnd.tied_on == (6, 5)
    state.apply({"type": "tiebreak", "player": "A", "hand": [4, 3]})
    assert second.worst_roll == (4, 3) and second.worst_roll_players == ["A"]
    state.apply({"type": "tiebreak", "player": "D", "hand": [4, 1]})
    assert second.worst_roll == (4, 1) and second.worst_roll_players == ["D"] and rnd.taker == "D"
