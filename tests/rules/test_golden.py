"""Golden records: every file in tests/records/<game>/*.json replays to its ``expect``.

A file holds ``{"record": <game record>, "expect": {...}}``. ``expect`` lists
keys the replay output must have with these values (other keys may be there
too; lists of round objects are compared item by item on the keys given), or
``{"refused_at": N}``: replay must refuse with ``entry N:`` (``null``: the
record as a whole, ``record:``). An optional ``"about"`` says which rule the
record covers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekeeper.rules import record as records

RECORDS = Path(__file__).resolve().parent.parent / "records"
FILES = sorted(RECORDS.glob("*/*.json"))


def contains(expected, got, key: str = "") -> bool:
    """``got`` has every key of ``expected`` with the same value (recursively)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(k in got and contains(v, got[k], k) for k, v in expected.items())
    if isinstance(expected, list) and expected and isinstance(expected[0], dict):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(contains(e, g) for e, g in zip(expected, got))
        )
    if key == "type" and isinstance(expected, list) and isinstance(got, list):
        return sorted(expected) == sorted(got)  # a choice of types, in any order
    return expected == got


def test_there_are_records_for_every_game():
    games = {f.parent.name for f in FILES}
    assert {"mitchi", "mia", "mice_and_men"} <= games


@pytest.mark.parametrize("path", FILES, ids=[f"{f.parent.name}/{f.stem}" for f in FILES])
def test_golden_record(path: Path):
    case = json.loads(path.read_text())
    expect = case["expect"]
    if "refused_at" in expect:
        with pytest.raises(records.ReplayError) as info:
            records.replay(case["record"])
        want = "record:" if expect["refused_at"] is None else f"entry {expect['refused_at']}:"
        assert str(info.value).startswith(want), str(info.value)
        if "message_contains" in expect:
            assert expect["message_contains"] in str(info.value)
        return
    got = records.replay(case["record"])
    assert contains(expect, got), json.dumps(got, indent=1)
    # The output is plain JSON, as `scorekeeper replay` prints it.
    assert json.loads(json.dumps(got)) == got


@pytest.mark.parametrize("path", [f for f in FILES if "refused_at" not in json.loads(f.read_text())["expect"]],
                         ids=lambda f: f"{f.parent.name}/{f.stem}")
def test_current_scores_are_the_summarys_after_every_entry(path: Path):
    """``current_scores()`` (what an entry compares to see whether scores moved) is
    ``summary()["scores"]``, in the same seat order, after each entry of every golden game."""
    record = json.loads(path.read_text())["record"]
    state = records.new_state(records.load_header(record))
    for n, entry in enumerate(record["entries"], start=1):
        records.apply_entries(state, [entry], start=n)
        got, want = state.current_scores(), state.summary()["scores"]
        assert list(got.items()) == list(want.items()), (n, got, want)
