"""``record.entry_rounds``: the round each entry was made in, which the Whole log heads its
entries with. Checked against the replay's own count of finished rounds before each entry."""

from __future__ import annotations

import json

import pytest

from scorekeeper.rules import record as records

from .test_golden import FILES

ACCEPTED = [f for f in FILES if "refused_at" not in json.loads(f.read_text())["expect"]]


@pytest.mark.parametrize("path", ACCEPTED, ids=[f"{f.parent.name}/{f.stem}" for f in ACCEPTED])
def test_each_entry_is_in_the_round_after_those_finished_before_it(path):
    record = json.loads(path.read_text())["record"]
    rounds = records.entry_rounds(record)
    assert len(rounds) == len(record["entries"])
    for i, round_ in enumerate(rounds):
        finished = len(records.replay(dict(record, entries=record["entries"][:i]))["rounds"])
        assert round_ == finished + 1, (i + 1, round_, finished)


def test_the_rounds_of_a_refused_record_are_refused_as_its_replay_is():
    path = next(f for f in FILES if json.loads(f.read_text())["expect"].get("refused_at"))
    case = json.loads(path.read_text())
    with pytest.raises(records.ReplayError) as info:
        records.entry_rounds(case["record"])
    assert str(info.value).startswith(f"entry {case['expect']['refused_at']}:")
