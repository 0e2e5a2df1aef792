"""Mia rules engine (docs/rules.md §Mia 0-9): ranking, every action and every refusal."""

from __future__ import annotations

import copy

import pytest

from scorekeeper.rules import GAMES, RuleError
from scorekeeper.rules import record as records
from scorekeeper.rules.base import IllegalEntry, RecordError, parse_options
from scorekeeper.rules.mia import (
    GAME,
    OPTIONS,
    SUM,
    STANDARD,
    Mia,
    level,
    parse_value,
    ranks_above,
    value_label,
    values_above,
)

A, B, C, D = "Ann", "Ben", "Cat", "Dan"


def start(p):
    return {"type": "start", "player": p}


def ann(p, v):
    return {"type": "announce", "player": p, "value": v}


def pas(p, v=None):
    e = {"type": "pass", "player": p}
    if v is not None:
        e["value"] = v
    return e


def chal(p, a, b, **quick):
    return {"type": "challenge", "player": p, "cup": [a, b], **quick}


def rev(p):
    return {"type": "reverse", "player": p}


def game(entries=(), players=(A, B, C), **options) -> Mia:
    state = Mia(tuple(players), parse_options(OPTIONS, options))
    for e in entries:
        state.apply(e)
    return state


def snapshot(obj):
    """A plain deep copy of a state (objects become dicts of their attributes), to compare."""
    if hasattr(obj, "__dict__"):
        return {k: snapshot(v) for k, v in vars(obj).items()}
    if isinstance(obj, dict):
        return {k: snapshot(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [snapshot(v) for v in obj]
    return copy.deepcopy(obj)


# --- spec and options -----------------------------------------------------------


def test_registered():
    assert GAMES["mia"] is GAME
    assert (GAME.name, GAME.title, GAME.min_players, GAME.max_players) == ("mia", "Mia", 3, None)


def test_options_in_table_order_with_label_and_help():
    assert [o.name for o in OPTIONS] == [
        "lives", "order", "pass_back", "next_starter", "winner_gains_life", "mia_reverses", "scoring", "rolloff",
    ]
    assert all(o.label and o.help for o in OPTIONS)
    defaults = parse_options(OPTIONS, {})
    assert defaults == {
        "lives": 3, "order": "standard", "pass_back": "must-raise", "next_starter": "owner",
        "winner_gains_life": False, "mia_reverses": False, "scoring": "elimination", "rolloff": False,
    }


@pytest.mark.parametrize(
    "options",
    [{"lives": 0}, {"lives": "3"}, {"order": "pips"}, {"pass_back": "never"}, {"next_starter": "left"},
     {"winner_gains_life": 1}, {"mia_reverses": "yes"}, {"scoring": "points"}, {"rolloff": "true"}, {"bogus": 1}],
)
def test_bad_options_refused(options):
    with pytest.raises(RecordError):
        parse_options(OPTIONS, options)


def test_rolloff_needs_bonus_points():
    with pytest.raises(RecordError, match="bonus-points"):
        Mia((A, B, C), parse_options(OPTIONS, {"rolloff": True}))
    game(rolloff=True, scoring="bonus-points")  # fine


def test_rolloff_with_elimination_refused_as_record_error():
    record = records.make_record("mia", [A, B, C], {"rolloff": True}, [start(A)])
    with pytest.raises(RuleError) as info:
        records.replay(record)
    # record.py turns it into "record: ..." once build() catches RecordError from new_state
    if isinstance(info.value, records.ReplayError):
        assert str(info.value).startswith("record:")
    assert "rolloff" in str(info.value)


# --- ranking (rules 1-2) -----------------------------------------------------------


def test_standard_ranking():
    assert STANDARD == (21, 11, 22, 33, 44, 55, 66, 65, 64, 63, 62, 61, 54, 53, 52, 51, 43, 42, 41, 32, 31)
    assert game().ranking == STANDARD


def test_sum_ranking():
    assert SUM[:7] == (21, 66, 55, 44, 33, 22, 11)
    assert game(order="sum").ranking == SUM
    assert sorted(SUM) == sorted(STANDARD)


@pytest.mark.parametrize(
    "order, better, worse",
    [
        ("standard", 21, 11), ("standard", 11, 22), ("standard", 22, 33), ("standard", 55, 66),
        ("standard", 66, 65), ("standard", 65, 64), ("standard", 61, 54), ("standard", 54, 53),
        ("standard", 51, 43), ("standard", 41, 32), ("standard", 32, 31), ("standard", 21, 66),
        ("standard", 63, 54),
        ("sum", 21, 66), ("sum", 66, 55), ("sum", 22, 11), ("sum", 11, 65), ("sum", 65, 64),
        ("sum", 64, 63), ("sum", 54, 62), ("sum", 43, 51), ("sum", 32, 31), ("sum", 61, 51),
    ],
)
def test_ranks_above(order, better, worse):
    assert ranks_above(better, worse, order)
    assert not ranks_above(worse, better, order)
    assert game(order=order).ranks_above(better, worse)


@pytest.mark.parametrize("a, b", [(63, 54), (62, 53), (61, 52), (52, 43), (61, 43), (51, 42), (41, 32)])
def test_sum_equal_values(a, b):
    assert level(a, "sum") == level(b, "sum")
    assert not ranks_above(a, b, "sum") and not ranks_above(b, a, "sum")
    assert level(a) != level(b)  # standard order has no equal values


@pytest.mark.parametrize("order", ["standard", "sum"])
def test_every_value_ranks_equal_to_itself(order):
    for v in STANDARD:
        assert not ranks_above(v, v, order)


@pytest.mark.parametrize(
    "order, claim, above",
    [
        ("standard", 64, [65, 66, 55, 44, 33, 22, 11, 21]),
        ("standard", 11, [21]),
        ("standard", 21, []),
        ("sum", 63, [64, 65, 11, 22, 33, 44, 55, 66, 21]),
        ("sum", 54, [64, 65, 11, 22, 33, 44, 55, 66, 21]),
        ("sum", 66, [21]),
    ],
)
def test_values_above_worst_first(order, claim, above):
    assert values_above(claim, order) == above
    assert game(order=order).values_above(claim) == above


def test_values_above_none_is_every_value_worst_first():
    assert values_above(None) == list(reversed(STANDARD))


@pytest.mark.parametrize(
    "order, value, label",
    [
        ("standard", 21, "Mia"), ("standard", 33, "double 3"), ("standard", 65, "65"),
        ("sum", 21, "Mia"), ("sum", 66, "double 6"), ("sum", 63, "63 (9)"), ("sum", 31, "31 (4)"),
    ],
)
def test_value_label(order, value, label):
    assert value_label(value, order) == label
    assert game(order=order).value_label(value) == label


@pytest.mark.parametrize(
    "value, message",
    [
        (12, "higher die first (21)"), (56, "higher die first (65)"), (70, "not a Mia value"),
        (0, "not a Mia value"), (-21, "not a Mia value"), (677, "not a Mia value"), (None, "missing"),
        ("65", "whole number"), (65.0, "whole number"), (True, "whole number"), ([6, 5], "whole number"),
    ],
)
def test_parse_value_refusals(value, message):
    with pytest.raises(IllegalEntry, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_value({"value": value})


@pytest.mark.parametrize("value", STANDARD)
def test_parse_value_accepts_every_value(value):
    assert parse_value({"value": value}) == value


# --- the state the pages read ---------------------------------------------------------


def test_fresh_state():
    g = game()
    assert g.players == (A, B, C)
    assert g.lives == {A: 3, B: 3, C: 3}
    assert g.bonus is None
    assert g.rounds == [] and g.round_number == 0
    assert g.to_act is None and g.claim is None
    assert g.legal_types() == ["start", "startroll"]
    assert g.direction == 1 and g.may_reverse is None and not g.in_rolloff
    assert g.alive == [A, B, C] and g.eliminated == [] and g.winners == [] and not g.finished
    assert g.expected()["type"] == ["start", "startroll"]


def test_state_through_a_round():
    g = game([start(A)])
    assert (g.round_number, g.cup_owner, g.to_act, g.claim) == (1, A, A, None)
    assert g.legal_types() == ["announce", "challenge"]
    g.apply(ann(A, 42))
    assert (g.cup_owner, g.last_roller, g.to_act, g.claim) == (A, A, B, 42)
    assert g.legal_types() == ["announce", "pass", "challenge"]
    g.apply(pas(B))
    assert (g.cup_owner, g.last_roller, g.to_act, g.claim) == (B, A, C, 42)
    assert g.round_log == [
        {"type": "announce", "player": A, "value": 42, "restart": False},
        {"type": "pass", "player": B, "value": None},
    ]
    g.apply(chal(C, 3, 1))
    assert g.lives == {A: 3, B: 2, C: 3}
    assert [r.as_dict() for r in g.rounds] == [
        {"number": 1, "owner": B, "challenger": C, "announced": 42, "cup": 31, "loser": B, "winner": C,
         "lives_lost": 1, "lives_gained": 0, "mia": False, "scores": {A: 3, B: 2, C: 3},
         "trail": [{"type": "announce", "player": A, "value": 42}, {"type": "pass", "player": B, "value": None}]},
    ]
    assert (g.round_number, g.cup_owner, g.to_act, g.claim, g.round_log) == (2, B, B, None, [])


def test_summary_shape():
    entries = [start(A), ann(A, 42), chal(B, 3, 1)]
    s = game(entries).summary()
    assert list(s) == ["game", "finished", "scores", "winners", "rounds", "start", "next"]
    assert list(s["scores"]) == [A, B, C]
    s = game(entries, scoring="bonus-points").summary()
    assert list(s) == ["game", "finished", "scores", "bonus", "winners", "rounds", "start", "next"]
    assert s["bonus"] == {A: 0, B: 1, C: 0}


# --- actions, table-driven: (options, entries, next types, next player) ----------------

NEXT_CASES = [
    ("round start", {}, [start(A)], ["announce", "challenge"], A),
    ("after announce", {}, [start(A), ann(A, 42)], ["announce", "pass", "challenge"], B),
    ("after Mia", {}, [start(A), ann(A, 21)], ["pass", "challenge"], B),
    ("pass back", {}, [start(A), ann(A, 42), pas(B), pas(C)], ["announce", "pass"], A),
    ("Mia went round", {}, [start(A), ann(A, 21), pas(B), pas(C)], ["announce"], A),
    ("Mia went round, may-pass", {"pass_back": "may-pass"}, [start(A), ann(A, 21), pas(B), pas(C)],
     ["announce", "pass"], A),
    ("no pass after plain pass back", {"pass_back": "may-pass"},
     [start(A), ann(A, 42), pas(B), pas(C), pas(A)], ["announce", "challenge"], B),
    ("only challenge after Mia passed back", {"pass_back": "may-pass"},
     [start(A), ann(A, 21), pas(B), pas(C), pas(A)], ["challenge"], B),
    ("pass back by raising", {}, [start(A), ann(A, 42), pas(B), pas(C), pas(A, 43)],
     ["announce", "pass", "challenge"], B),
    ("restart", {}, [start(A), ann(A, 21), pas(B), pas(C), ann(A, 31)], ["announce", "pass", "challenge"], B),
    ("may reverse", {"mia_reverses": True}, [start(A), ann(A, 21), chal(B, 3, 1)],
     ["announce", "challenge", "reverse"], A),
    ("reversed", {"mia_reverses": True}, [start(A), ann(A, 21), chal(B, 3, 1), rev(B), ann(A, 42)],
     ["announce", "pass", "challenge"], C),
]


@pytest.mark.parametrize("name, options, entries, types, player", NEXT_CASES, ids=[c[0] for c in NEXT_CASES])
def test_next(name, options, entries, types, player):
    g = game(entries, **options)
    assert g.legal_types() == types
    assert g.to_act == player
    nxt = g.expected()
    assert nxt["player"] == player
    assert nxt["type"] == (types[0] if len(types) == 1 else types)


# --- refusals, table-driven: (options, entries before, refused entry, message parts) -----

REFUSALS = [
    ("entry not a dict", {}, [start(A)], ["announce"], ["JSON object"]),
    ("announce before start", {}, [], ann(A, 42), ["start"]),
    ("start twice", {}, [start(A)], start(B), ["already started", "Ann rolls"]),
    ("startroll after start", {}, [start(A)], {"type": "startroll", "player": A, "die": 3}, ["already started"]),
    ("unknown type", {}, [start(A)], {"type": "roll", "player": A}, ["not a Mia entry", "Ann rolls"]),
    ("type not a string", {}, [start(A)], {"type": ["announce"], "player": A}, ["not a Mia entry"]),
    ("unknown player", {}, [start(A)], ann("Zed", 42), ["not a player", "Ann, Ben and Cat"]),
    ("player not a string", {}, [start(A)], {"type": "announce", "player": ["Ann"], "value": 42}, ["not a player"]),
    ("wrong player", {}, [start(A)], ann(B, 42), ["it is Ann's turn, not Ben's", "any value"]),
    ("wrong player challenge", {}, [start(A), ann(A, 42)], chal(C, 4, 2), ["Ben's turn"]),
    ("value missing", {}, [start(A)], {"type": "announce", "player": A}, ["missing"]),
    ("value string", {}, [start(A)], ann(A, "65"), ["whole number"]),
    ("value 12", {}, [start(A)], ann(A, 12), ["higher die first (21)"]),
    ("value 70", {}, [start(A)], ann(A, 70), ["not a Mia value"]),
    ("not above", {}, [start(A), ann(A, 64)], ann(B, 63),
     ["63 is not above 64", "65, 66, 55, 44, 33, 22, 11 or Mia", "challenge"]),
    ("equal", {}, [start(A), ann(A, 64)], ann(B, 64), ["announced value, not above it"]),
    ("sum equal", {"order": "sum"}, [start(A), ann(A, 54)], ann(B, 63), ["ranks equal", "64"]),
    ("roll after Mia", {}, [start(A), ann(A, 21)], ann(B, 11), ["nothing ranks above Mia", "challenge or pass"]),
    ("pass before announce", {}, [start(A)], pas(A), ["nothing is announced"]),
    ("pass with value", {}, [start(A), ann(A, 42)], pas(B, 43), ["passes without a value"]),
    ("pass with bad value at pass back", {}, [start(A), ann(A, 42), pas(B), pas(C)], pas(A, 12),
     ["higher die first"]),
    ("pass back plain", {}, [start(A), ann(A, 42), pas(B), pas(C)], pas(A),
     ["higher value", "43, 51"]),
    ("pass back not above", {}, [start(A), ann(A, 42), pas(B), pas(C)], pas(A, 41), ["not above 42"]),
    ("pass back challenge", {}, [start(A), ann(A, 42), pas(B), pas(C)], chal(A, 4, 2), ["may not challenge"]),
    ("pass back raise after Mia", {}, [start(A), ann(A, 21), pas(B), pas(C)], pas(A, 11),
     ["nothing ranks above Mia", "any value"]),
    ("plain pass after Mia went round", {}, [start(A), ann(A, 21), pas(B), pas(C)], pas(A),
     ["starts the round again"]),
    ("challenge after Mia went round", {}, [start(A), ann(A, 21), pas(B), pas(C)], chal(A, 2, 1),
     ["may not challenge"]),
    ("no pass after plain pass back", {"pass_back": "may-pass"}, [start(A), ann(A, 42), pas(B), pas(C), pas(A)],
     pas(B), ["may not pass", "challenge"]),
    ("challenge before announce", {}, [start(A)], chal(B, 4, 2), ["nothing is announced", "quick-entry"]),
    ("die 7", {}, [start(A), ann(A, 42)], chal(B, 7, 1), ["1 to 6"]),
    ("die 0", {}, [start(A), ann(A, 42)], chal(B, 0, 1), ["1 to 6"]),
    ("three dice", {}, [start(A), ann(A, 42)], {"type": "challenge", "player": B, "cup": [1, 2, 3]}, ["2 dice"]),
    ("cup missing", {}, [start(A), ann(A, 42)], {"type": "challenge", "player": B}, ["cup"]),
    ("die as string", {}, [start(A), ann(A, 42)], chal(B, "6", 1), ["whole number"]),
    ("quick wrong challenger", {}, [start(A)], chal(A, 4, 2, owner=B, announced=61),
     ["challenger of Ben is the next player, Cat"]),
    ("quick unknown owner", {}, [start(A)], chal(A, 4, 2, owner="Zed", announced=61), ["owner 'Zed'"]),
    ("quick owner missing", {}, [start(A)], chal(A, 4, 2, announced=61), ["owner is missing"]),
    ("quick announced missing", {}, [start(A)], {"type": "challenge", "player": B, "cup": [4, 2], "owner": A},
     ["announced is missing"]),
    ("quick bad value", {}, [start(A)], chal(B, 4, 2, owner=A, announced=70), ["not a Mia value"]),
    ("quick after announce", {}, [start(A), ann(A, 42)], chal(B, 4, 2, owner=A, announced=43), ["already entered"]),
    ("quick owner out", {"lives": 1}, [start(A), ann(A, 31), chal(B, 3, 1)],
     chal(C, 4, 2, owner=B, announced=61), ["Ben is out (no lives left), so cannot be the cup owner; one of Ann and Cat"]),
    # Ben out, Ann and Cat level (2 lives, 1 bonus point): Dan, 2 lives and none, is not in the roll-off
    ("quick owner not in the roll-off", {"players": (A, B, C, D), "scoring": "bonus-points", "lives": 2, "rolloff": True},
     [start(A), ann(A, 42), chal(B, 4, 3), ann(A, 42), pas(B), chal(C, 3, 1)],
     chal(C, 4, 2, owner=D, announced=61), ["Dan is not in the roll-off, so cannot be the cup owner; one of Ann and Cat"]),
    ("out player", {"lives": 1}, [start(A), ann(A, 31), chal(B, 3, 1), ann(A, 42)], pas(B), ["Ben is out"]),
    ("reverse option off", {}, [start(A), ann(A, 21), chal(B, 3, 1)], rev(B), ["mia_reverses is off"]),
    ("reverse not now", {"mia_reverses": True}, [start(A), ann(A, 42), chal(B, 3, 1)], rev(B), ["no reverse now"]),
    ("reverse wrong player", {"mia_reverses": True}, [start(A), ann(A, 21), chal(B, 3, 1)], rev(A), ["only Ben"]),
    ("reverse after decline", {"mia_reverses": True}, [start(A), ann(A, 21), chal(B, 3, 1), ann(A, 42)], rev(B),
     ["no reverse now"]),
    ("after the end", {"lives": 1}, [start(A), ann(A, 31), chal(B, 3, 1), ann(A, 32), chal(C, 3, 2)], ann(A, 42),
     ["game is over", "Ann won"]),
]


@pytest.mark.parametrize("name, options, before, entry, parts", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusal_changes_nothing(name, options, before, entry, parts):
    g = game(before, **options)
    was, summary = snapshot(g), g.summary()
    with pytest.raises(IllegalEntry) as info:
        g.apply(entry)
    for part in parts:
        assert part in str(info.value)
    assert snapshot(g) == was and g.summary() == summary


@pytest.mark.parametrize("lives, offered", [(3, B), (2, None)])
def test_a_reversal_is_offered_only_when_it_changes_who_plays_next(lives, offered):
    """docs/rules.md §Mia (``mia_reverses``): Ann's lie about Mia costs her 2 lives; with 2 she is
    out and Ben and Cat are left, where either direction leads to the other: the reversal is not
    offered, but stays legal (a record may hold one)."""
    g = game([start(A), ann(A, 21), chal(B, 3, 1)], mia_reverses=True, lives=lives)
    assert g.may_reverse == B and g.reverse_offered == offered
    assert len(g.alive) == (3 if offered else 2)
    g.apply(rev(B))
    assert g.direction == -1 and g.reverse_offered is None


def test_refused_entry_while_reverse_pending_keeps_the_offer():
    g = game([start(A), ann(A, 21), chal(B, 3, 1)], mia_reverses=True)
    with pytest.raises(IllegalEntry, match="Ben may reverse"):
        g.apply(ann(C, 42))
    assert g.may_reverse == B
    g.apply(rev(B))
    assert g.direction == -1 and g.may_reverse is None


# --- challenges and lives (rules 3, 5) ----------------------------------------------------

CHALLENGES = [
    # announced, cup, loser ("owner"/"challenger"), lives lost
    (42, (4, 1), "owner", 1),
    (42, (4, 2), "challenger", 1),
    (42, (2, 4), "challenger", 1),
    (42, (4, 3), "challenger", 1),
    (11, (6, 6), "owner", 1),
    (66, (1, 1), "challenger", 1),
    (21, (6, 5), "owner", 2),
    (21, (1, 2), "challenger", 2),
    (65, (2, 1), "challenger", 2),
    (31, (2, 1), "challenger", 2),
]


@pytest.mark.parametrize("announced, cup, loser, lost", CHALLENGES)
def test_challenge_outcome(announced, cup, loser, lost):
    g = game([start(A), ann(A, announced), chal(B, *cup)])
    who = A if loser == "owner" else B
    assert g.rounds[-1].loser == who
    assert g.rounds[-1].winner == (B if who == A else A)
    assert g.lives[who] == 3 - lost


@pytest.mark.parametrize("announced, cup, loser", [(54, (6, 3), B), (63, (5, 4), B), (63, (5, 3), A), (11, (6, 5), A)])
def test_sum_order_challenge(announced, cup, loser):
    g = game([start(A), ann(A, announced), chal(B, *cup)], order="sum")
    assert g.rounds[-1].loser == loser


def test_lives_never_below_zero():
    g = game([start(A), ann(A, 21), chal(B, 6, 5)], lives=1, players=(A, B, C, D))
    assert g.lives[A] == 0 and g.rounds[-1].lives_lost == 1
    assert g.eliminated == [A] and g.alive == [B, C, D]


@pytest.mark.parametrize(
    "starter_option, announced, cup, first",
    [
        ("owner", 42, (3, 1), A), ("owner", 42, (4, 3), A),
        ("challenger", 42, (3, 1), B), ("challenger", 42, (4, 3), B),
        ("loser", 42, (3, 1), A), ("loser", 42, (4, 3), B),
        ("winner", 42, (3, 1), B), ("winner", 42, (4, 3), A),
    ],
)
def test_next_starter(starter_option, announced, cup, first):
    g = game([start(A), ann(A, announced), chal(B, *cup)], next_starter=starter_option)
    assert g.to_act == first and g.cup_owner == first


def test_next_starter_out_goes_to_next_in_direction():
    g = game([start(A), ann(A, 21), chal(B, 6, 5)], players=(A, B, C, D), lives=2)
    assert g.lives[A] == 0 and g.to_act == B


def test_elimination_skips_and_ends():
    g = game([start(A), ann(A, 31), chal(B, 3, 1)], players=(A, B, C, D), lives=1)
    g.apply(ann(A, 42))
    assert g.to_act == C
    g.apply(chal(C, 4, 3))
    g.apply(ann(A, 42))
    assert g.to_act == D
    g.apply(chal(D, 4, 2))
    assert g.finished and g.winners == [A] and g.to_act is None
    assert g.expected() is None and g.legal_types() == []


def test_winner_gains_life():
    g = game([start(A), ann(A, 21), chal(B, 6, 5)], winner_gains_life=True)
    assert g.lives == {A: 1, B: 4, C: 3}
    assert g.rounds[-1].lives_gained == 1


# --- quick entry ----------------------------------------------------------------------------


def test_quick_entry_any_owner():
    g = game([start(A), chal(A, 6, 2, owner=C, announced=61)])
    r = g.rounds[-1]
    assert (r.owner, r.challenger, r.announced, r.cup, r.loser, r.quick) == (C, A, 61, 62, A, True)
    assert r.as_dict()["quick"] is True
    assert g.to_act == C


def test_quick_entry_keys_after_an_announcement_are_refused_even_when_they_repeat_it():
    # docs/game-record.md §Shapes: after an announcement a challenge carries only player and cup.
    for extra in ({"owner": A, "announced": 42}, {"owner": A}, {"announced": 42}):
        g = game([start(A), ann(A, 42)])
        with pytest.raises(IllegalEntry, match="already entered"):
            g.apply({**chal(B, 3, 1), **extra})
        assert g.rounds == [] and g.claim == 42 and g.to_act == B


def test_quick_entry_follows_direction():
    g = game([start(A), ann(A, 21), chal(B, 3, 1), rev(B)], mia_reverses=True)
    with pytest.raises(IllegalEntry, match="next player, Cat"):
        g.apply(chal(B, 3, 1, owner=A, announced=42))
    g.apply(chal(C, 3, 1, owner=A, announced=42))
    assert g.rounds[-1].challenger == C


# --- mia_reverses ---------------------------------------------------------------------------


def test_reverse_starter_fixed_in_old_direction():
    g = game([start(A), ann(A, 21), chal(B, 4, 1)], players=(A, B, C, D), lives=2, mia_reverses=True)
    assert g.to_act == B and g.may_reverse == B  # Ann out: next clockwise is Ben
    g.apply(rev(B))
    assert g.direction == -1 and g.to_act == B
    g.apply(ann(B, 41))
    assert g.to_act == D  # counter-clockwise, Ann skipped


def test_reverse_by_owner_who_won():
    g = game([start(A), ann(A, 21), chal(B, 2, 1)], mia_reverses=True)
    assert g.may_reverse == A


def test_reverse_twice_restores():
    g = game([start(A), ann(A, 21), chal(B, 3, 1), rev(B)], mia_reverses=True)
    g.apply(ann(A, 21))
    g.apply(chal(C, 3, 1))  # reversed: Cat challenges Ann
    assert g.may_reverse == C
    g.apply(rev(C))
    assert g.direction == 1


def test_decline_by_any_entry():
    g = game([start(A), ann(A, 21), chal(B, 3, 1)], mia_reverses=True)
    g.apply(ann(A, 42))
    assert g.may_reverse is None and g.direction == 1 and g.to_act == B


# --- bonus points and the roll-off (rule 7) ---------------------------------------------------

TIE = [start(A), ann(A, 42), pas(B), chal(C, 4, 3), ann(B, 42), pas(C), chal(A, 3, 1)]


def test_bonus_points_joint_winners():
    g = game(TIE, scoring="bonus-points", lives=2)
    assert g.finished and g.winners == [A, B]
    assert g.bonus == {A: 1, B: 1, C: 0}


def test_bonus_points_most_lives_then_bonus():
    g = game([start(A), ann(A, 21), chal(B, 6, 5)], scoring="bonus-points", lives=2)
    assert g.finished and g.lives == {A: 0, B: 2, C: 2} and g.bonus == {A: 0, B: 1, C: 0}
    assert g.winners == [B]
    g = game([start(A), ann(A, 42), chal(B, 4, 3)], scoring="bonus-points", lives=1)
    assert g.finished and g.winners == [A] and len(g.rounds) == 1  # Ben out at once; Ann has the bonus point
    g = game([start(A), ann(A, 42), chal(B, 3, 1), ann(A, 21), chal(B, 2, 1), ann(A, 42), chal(B, 3, 1),
              ann(A, 21), chal(B, 6, 5)], scoring="bonus-points")
    assert g.lives == {A: 0, B: 1, C: 3} and g.bonus == {A: 1, B: 3, C: 0}
    assert g.winners == [C]  # lives before bonus points


def test_three_tied_share_even_with_rolloff():
    seats = (A, C, B, D)  # clockwise: Ann, Cat, Ben, Dan
    g = game(
        [start(D), ann(D, 42), chal(A, 4, 3),  # Dan beats Ann
         ann(D, 42), pas(A), chal(C, 4, 3),    # Ann (owner) beats Cat
         ann(A, 42), pas(C), chal(B, 4, 3),    # Cat (owner) beats Ben
         ann(C, 42), ann(B, 21), chal(D, 2, 1)],  # Ben beats Dan on a Mia: Dan loses 2
        players=seats, scoring="bonus-points", lives=2, rolloff=True,
    )
    assert g.lives == {A: 1, C: 1, B: 1, D: 0}
    assert g.bonus == {A: 1, C: 1, B: 1, D: 1}
    assert g.finished and not g.in_rolloff and g.winners == [A, C, B]


def test_rolloff_rounds():
    g = game(TIE, scoring="bonus-points", lives=2, rolloff=True)
    assert g.in_rolloff and not g.finished and g.rolloff_players == (A, B)
    assert g.still_in == [A, B]
    g.apply(ann(A, 42))
    assert g.to_act == B
    g.apply(chal(B, 4, 2))  # Ben loses round 1 of the pair
    assert g.lives == {A: 2, B: 2, C: 0} and g.bonus == {A: 1, B: 1, C: 0}
    assert g.to_act == B and g.rolloff_pair_wins == [A]
    g.apply(ann(B, 21))
    g.apply(chal(A, 6, 5))  # Ben loses again: a Mia costs no lives here
    assert g.finished and g.winners == [A] and not g.may_reverse
    assert g.lives == {A: 2, B: 2, C: 0}
    assert [r.rolloff for r in g.rounds] == [False, False, True, True]
    assert g.rounds[-1].as_dict()["rolloff"] is True and "rolloff" not in g.rounds[0].as_dict()


def test_rolloff_no_reverse_offer():
    g = game(TIE + [ann(A, 21), chal(B, 3, 1)], scoring="bonus-points", lives=2, rolloff=True, mia_reverses=True)
    assert g.may_reverse is None and "reverse" not in g.legal_types()


def test_rolloff_split_pair():
    g = game(TIE + [ann(A, 42), chal(B, 4, 2), ann(B, 42), chal(A, 4, 2)], scoring="bonus-points", lives=2,
             rolloff=True)
    assert not g.finished and g.rolloff_pair == 2 and g.rolloff_pair_wins == [] and g.to_act == A
    assert g.expected()["rolloff"] == {"players": [A, B], "pair": 2, "wins": []}


# --- opening ---------------------------------------------------------------------------------


def test_startroll_opening():
    g = game([{"type": "startroll", "player": p, "die": d} for p, d in [(A, 4), (B, 6), (C, 6), (B, 1), (C, 2)]])
    assert g.to_act == C and g.round_number == 1


def test_pass_and_announce_choices_follow_rule_4():
    g = game([start(A), ann(A, 42)])
    assert g.pass_choices() == {"raise_to": [], "plain": True}
    assert g.announce_choices()[0] == 43 and g.announce_choices()[-1] == 21
    g.apply(pas(B))
    g.apply(pas(C))
    # Back to A, who rolled last: pass only by raising (must-raise), or roll higher.
    assert g.pass_choices() == {"raise_to": g.values_above(42), "plain": False}
    g2 = game([start(A), ann(A, 42), pas(B), pas(C)], pass_back="may-pass")
    assert g2.pass_choices()["plain"] is True
    # A Mia that went all the way round: no raise above Mia; a new roll of any value.
    g3 = game([start(A), ann(A, 21), pas(B), pas(C)])
    assert g3.pass_choices() is None
    assert len(g3.announce_choices()) == 21
    # After an announced Mia the next player may not roll.
    g4 = game([start(A), ann(A, 21)])
    assert g4.announce_choices() == []


def test_rolloff_of_says_who_rolls_off_which_pair_and_whether_it_is_decided():
    """docs/rules.md §Mia 7: pairs of two roll-off rounds; one player winning both decides it."""
    import json
    from pathlib import Path

    from scorekeeper.rules.mia import rolloff_of
    from scorekeeper.rules.record import replay

    doc = json.loads((Path(__file__).parent.parent / "records" / "mia" / "mia-7-rolloff-won.json").read_text())
    record = doc["record"]
    split = [chal(A, 3, 1, owner=B, announced=55), chal(B, 6, 5, owner=A, announced=42)]

    def of(entries):
        return rolloff_of(replay(dict(record, entries=entries))["rounds"], record["players"])

    assert of(record["entries"][:4]) is None
    assert of(record["entries"][:7]) is None  # the tie, no roll-off round yet
    assert of(record["entries"][:9]) == ([A, B], 1, False)
    assert of(record["entries"]) == ([A, B], 1, True)
    assert of(record["entries"][:9] + split[:1]) == ([A, B], 2, False)  # pair 1 split
    assert of(record["entries"][:9] + split) == ([A, B], 2, False)
