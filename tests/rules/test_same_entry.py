"""rules.dice.same_entry: two entries say the same thing when they differ only in the order of
a hand's dice (docs/rules.md §Mitchi 1, §Mia 1; docs/game-record.md §Entries)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper.rules.dice import same_entry

TURN = {"type": "turn", "player": "Ann", "hand": [1, 2], "rolls": 2}


@pytest.mark.parametrize("a, b, same", [
    (TURN, dict(TURN), True),
    (TURN, {**TURN, "hand": [2, 1]}, True),  # Mitchi: 1-2 is 2-1
    (TURN, {**TURN, "hand": [3, 1]}, False),
    (TURN, {**TURN, "hand": [1, 1]}, False),
    (TURN, {**TURN, "rolls": 1}, False),
    (TURN, {**TURN, "player": "Ben"}, False),
    (TURN, {k: v for k, v in TURN.items() if k != "rolls"}, False),  # a key fewer
    (TURN, {**TURN, "extra": 1}, False),
    (TURN, {**TURN, "hand": [1, 2, 2]}, False),
    (TURN, {**TURN, "hand": "21"}, False),
    ({"type": "tiebreak", "player": "Ben", "hand": [6, 5]}, {"type": "tiebreak", "player": "Ben", "hand": [5, 6]}, True),
    # Mia: the lifted cup; the announced value is a number, not dice
    ({"type": "challenge", "player": "Ben", "cup": [1, 3]}, {"type": "challenge", "player": "Ben", "cup": [3, 1]}, True),
    ({"type": "announce", "player": "Ann", "value": 31}, {"type": "announce", "player": "Ann", "value": 13}, False),
    # Mice and Men: a reveal's three dice, in any order
    ({"type": "reveal", "player": "Cat", "dice": [6, 5, 1]}, {"type": "reveal", "player": "Cat", "dice": [1, 6, 5]}, True),
    ({"type": "reveal", "player": "Cat", "dice": [6, 5, 1]}, {"type": "reveal", "player": "Cat", "dice": [6, 5, 2]}, False),
    # only dice keys are read without order
    ({"type": "x", "players": ["Ann", "Ben"]}, {"type": "x", "players": ["Ben", "Ann"]}, False),
    (TURN, None, False),
    (None, None, True),
])
def test_same_entry(a, b, same):
    assert same_entry(a, b) is same
    assert same_entry(b, a) is same


dice = st.lists(st.integers(1, 6), min_size=2, max_size=3)


@given(dice, st.randoms())
def test_any_order_of_the_same_dice_is_the_same_entry(hand, rnd):
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert same_entry({**TURN, "hand": hand}, {**TURN, "hand": shuffled})


@given(dice, dice)
def test_other_dice_are_another_entry(a, b):
    assert same_entry({**TURN, "hand": a}, {**TURN, "hand": b}) is (sorted(a) == sorted(b))
