"""Record shapes and number ranges at the door (docs/game-record.md §Shapes, §Ranges).

Every number any rule accepts has a bound; a value outside it, however large, is refused with a
:class:`RuleError` that names the range, never another exception (no OverflowError, no
ValueError from turning a huge int into text).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.rules import GAMES, RuleError
from scorekeeper.rules import record as records
from scorekeeper.rules.base import MAX_NUMBER, RecordError, parse_options, shown

MITCHI = {"format": 1, "game": "mitchi", "players": ["Ann", "Ben", "Cat"], "options": {},
          "entries": [{"type": "start", "player": "Ann"},
                      {"type": "turn", "player": "Ann", "hand": [3, 1], "rolls": 2},
                      {"type": "turn", "player": "Ben", "hand": [3, 1], "rolls": 1},
                      {"type": "turn", "player": "Cat", "hand": [6, 6], "rolls": 2}]}
MIA = {"format": 1, "game": "mia", "players": ["Ann", "Ben", "Cat"], "options": {},
       "entries": [{"type": "start", "player": "Ann"}, {"type": "announce", "player": "Ann", "value": 42}]}
MM = {"format": 1, "game": "mice-and-men", "players": ["Ann", "Ben", "Cat", "Dan"], "options": {},
      "entries": [{"type": "announce", "player": "Ann", "penalty": 4}]}
HUGE = [10**400, -(10**400), 10**4299, int("9" * 537), 2**63, 2**31, MAX_NUMBER + 1, -1]


def refused(record, prefix: str) -> str:
    with pytest.raises(records.ReplayError) as info:
        records.replay(record)
    assert str(info.value).startswith(prefix), str(info.value)
    return str(info.value)


def with_(base, **changes):
    record = copy.deepcopy(base)
    for key, value in changes.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    return record


# --- shapes --------------------------------------------------------------------


@pytest.mark.parametrize("base", [MITCHI, MIA, MM], ids=["mitchi", "mia", "mice-and-men"])
@pytest.mark.parametrize("key,value,words", [
    ("entries", ..., "entries is missing"),
    ("entries", None, "entries must be a list"),
    ("entries", {}, "entries must be a list"),
    ("options", ..., "options is missing"),
    ("options", None, "options must be an object"),
    ("options", [], "options must be an object"),
    ("players", ..., "players is missing"),
    ("players", None, "players must be a list"),
    ("game", ..., "game is missing"),
    ("format", ..., "format is missing"),  # it said "format must be 1, not null" (found by a review)
])
def test_a_missing_or_null_key_is_refused_for_the_record(base, key, value, words):
    assert words in refused(with_(base, **{key: value}), "record:")


def test_empty_entries_and_options_are_fine():
    out = records.replay(with_(MITCHI, entries=[], options={}))
    assert out["next"]["type"] == ["start", "startroll"]


def test_tiebreak_rolls_key_is_ignored():
    # A tie-break is one roll whatever "rolls" says (the key is not part of its shape).
    tail = [{"type": "tiebreak", "player": "Ben", "hand": [4, 2], "rolls": 3},
            {"type": "tiebreak", "player": "Ann", "hand": [3, 2], "rolls": "x"}]
    out = records.replay(with_(MITCHI, entries=MITCHI["entries"] + tail))
    assert out["rounds"][0]["taker"] == "Ann" and out["scores"]["Ann"] == 2


def test_mice_and_men_run_dice_null_is_refused_and_absent_is_fine():
    run = {"type": "run", "player": "Ben"}
    assert "dice" in refused(with_(MM, entries=MM["entries"] + [{**run, "dice": None}]), "entry 2:")
    assert records.replay(with_(MM, entries=MM["entries"] + [run]))["scores"]["Ben"] == 3
    joined = records.replay(with_(MM, entries=MM["entries"] + [{"type": "join", "player": "Ben", "dice": None}]))
    assert joined["next"]["player"] == "Cat"  # a key a join does not have is ignored, even null


def test_mia_rolloff_without_bonus_points_is_a_record_refusal():
    assert "bonus-points" in refused(with_(MIA, options={"rolloff": True}), "record:")
    records.replay(with_(MIA, options={"rolloff": True, "scoring": "bonus-points"}))


@pytest.mark.parametrize("extra", [{"owner": "Ann", "announced": 42}, {"owner": "Ann"}, {"announced": 42},
                                   {"owner": "Cat", "announced": 61}])
def test_mia_challenge_after_an_announcement_carries_only_player_and_cup(extra):
    entry = {"type": "challenge", "player": "Ben", "cup": [3, 1], **extra}
    assert "already entered" in refused(with_(MIA, entries=MIA["entries"] + [entry]), "entry 3:")


def test_mia_pass_with_null_value_is_refused():
    entry = {"type": "pass", "player": "Ben", "value": None}
    assert "value is null" in refused(with_(MIA, entries=MIA["entries"] + [entry]), "entry 3:")


# --- ranges --------------------------------------------------------------------


@pytest.mark.parametrize("value", HUGE)
def test_a_lead_out_of_range_is_refused(value):
    entries = MM["entries"] + [{"type": "announce", "player": "Ben", "penalty": value}]
    message = refused(with_(MM, entries=entries), "entry 2:")
    assert len(message) < 300


def test_a_lead_up_to_the_largest_penalty_is_fine_and_then_nobody_can_lead():
    entries = MM["entries"] + [{"type": "announce", "player": "Ben", "penalty": MAX_NUMBER}]
    out = records.replay(with_(MM, entries=entries))
    assert sorted(out["next"]["type"]) == ["join", "run"]
    lead = {"type": "announce", "player": "Cat", "penalty": MAX_NUMBER + 1}
    refused(with_(MM, entries=entries + [lead]), "entry 3:")


@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize("game,option", [("mitchi", "point_limit"), ("mia", "lives"), ("mice-and-men", "rounds"),
                                         ("mice-and-men", "run_penalty")])
def test_an_option_out_of_range_is_refused(game, option, value):
    base = {"mitchi": MITCHI, "mia": MIA, "mice-and-men": MM}[game]
    message = refused(with_(base, options={option: value}), "record:")
    assert option in message and len(message) < 300


@pytest.mark.parametrize("value", [[1, 10**400], [10**400, 10**401], [1, MAX_NUMBER + 1], [0, 5]])
def test_opening_range_out_of_range_is_refused(value):
    refused(with_(MM, options={"opening_range": value}), "record:")


@pytest.mark.parametrize("game,option", [("mitchi", "point_limit"), ("mia", "lives"), ("mice-and-men", "rounds"),
                                         ("mice-and-men", "run_penalty"), ("mice-and-men", "opening_range")])
def test_the_documented_top_of_each_option_is_accepted(game, option):
    """Every number option is "1 (or 0) or more" in the games' rules; the one bound here is the
    nine-digit MAX_NUMBER of docs/rules.md §Options (it was 1000, and 100 lives: a record with a
    point limit of 5000 was refused; found by an audit)."""
    spec = GAMES[game]
    pair = option == "opening_range"
    for top in (5000, 123_456, MAX_NUMBER):
        value = [1, top] if pair else top
        assert parse_options(spec.options, {option: value})[option] == value
    with pytest.raises(RecordError, match=f"{MAX_NUMBER}, not "):
        parse_options(spec.options, {option: [1, MAX_NUMBER + 1] if pair else MAX_NUMBER + 1})


@pytest.mark.parametrize("value", HUGE)
def test_huge_dice_rolls_and_values_are_refused(value):
    turn = {"type": "turn", "player": "Ann", "hand": [value, 1], "rolls": 1}
    refused(with_(MITCHI, entries=[MITCHI["entries"][0], turn]), "entry 2:")
    turn = {"type": "turn", "player": "Ann", "hand": [2, 1], "rolls": value}
    refused(with_(MITCHI, entries=[MITCHI["entries"][0], turn]), "entry 2:")
    announce = {"type": "announce", "player": "Ann", "value": value}
    refused(with_(MIA, entries=[MIA["entries"][0], announce]), "entry 2:")
    refused(with_(MITCHI, entries=[{"type": "startroll", "player": "Ann", "die": value}]), "entry 1:")


@pytest.mark.parametrize("value", [1.0, True, "1", 2, 0, None])
def test_format_is_the_whole_number_1(value):
    """Only the JSON integer 1: 1.0 (equal to 1 in Python) and true are refused too."""
    message = refused(with_(MITCHI, format=value), "record: format must be 1, not ")
    assert message != "record: format must be 1, not "


def test_a_huge_number_is_never_written_out():
    big = 10**5000  # more digits than Python turns into text
    assert shown(big) == "a number of more than 12 digits"
    assert shown(-big) == "a negative number of more than 12 digits"
    assert shown(10**12 - 1) == "999999999999" and shown(10**12) == "a number of more than 12 digits"
    refused(with_(MITCHI, options={"point_limit": big}), "record:")
    refused(with_(MITCHI, format=big), "record:")
    refused(with_(MITCHI, game=big), "record:")


@pytest.mark.parametrize("value,said", [(1e30, "a number of more than 12 digits"),
                                        (1e308, "a number of more than 12 digits"),
                                        (-1e30, "a negative number of more than 12 digits"),
                                        (float("inf"), "Infinity"), (float("-inf"), "-Infinity"),
                                        (float("nan"), "a value that is no number"),
                                        (2.5, "a number with a fraction"), (1.0, "1.0"), (1e3, "1000.0")])
def test_a_number_that_is_not_whole_is_named_once_after_not(value, said):
    with pytest.raises(records.ReplayError) as err:
        records.replay(with_(MITCHI, options={"point_limit": value}))
    assert str(err.value) == f"record: option point_limit must be a whole number from 1 to {MAX_NUMBER}, not {said}"


def test_json_with_a_number_too_long_to_read_is_a_record_refusal():
    text = '{"format": 1, "game": "mitchi", "players": ["A", "B"], "options": {"point_limit": ' + "9" * 5000 + "}}"
    with pytest.raises(records.ReplayError, match="^record:"):
        records.loads(text)


# --- any value, anywhere: accepted in range or refused with RuleError, nothing else --------------


anything = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=10**300, max_value=10**4299),
              st.integers(max_value=-(10**300), min_value=-(10**4299)), st.floats(), st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)
KEYS = ["penalty", "value", "announced", "rolls", "die", "hand", "cup", "dice", "player", "owner", "type"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from([MITCHI, MIA, MM]), where=st.integers(0, 10), key=st.sampled_from(KEYS),
       value=anything, option=st.sampled_from(["point_limit", "lives", "rounds", "run_penalty", "opening_range",
                                               "order", "tie", None]),
       option_value=anything)
def test_any_value_is_accepted_or_refused_with_a_rule_error(base, where, key, value, option, option_value):
    record = copy.deepcopy(base)
    entries = record["entries"]
    entries.append({"type": entries[-1]["type"] if base is not MM else "announce",
                    "player": "Ben", key: value})
    if where < len(entries):
        entries[where] = {**entries[where], key: value}
    if option is not None:
        record["options"] = {option: option_value}
    try:
        out = records.replay(record)
    except RuleError as err:
        text = str(err)
        assert text.startswith(("record:", "entry ")) and len(text) < 2000
    else:
        assert json.loads(json.dumps(out)) == out
        for v in out["scores"].values():  # nothing stored or shown is huge
            assert -MAX_NUMBER * 1000 <= v <= MAX_NUMBER * 1000

