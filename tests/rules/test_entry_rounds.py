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
        finished = records.replay(dict(record, entries=record["entries"][:i]))["rounds"]
        if record["entries"][i]["type"] == "reverse":  # Mia: in the round whose challenge it follows
            assert round_ == len(finished), (i + 1, round_, len(finished))
            after = records.replay(dict(record, entries=record["entries"][: i + 1]))["rounds"]
            assert after[round_ - 1].get("reversed_by") == record["entries"][i]["player"]
        else:
            assert round_ == len(finished) + 1, (i + 1, round_, len(finished))


def test_a_mia_reversal_is_headed_with_the_round_it_follows():
    """At least one record here reverses the direction, so the rule above is met, not skipped."""
    assert any(e["type"] == "reverse" for f in ACCEPTED for e in json.loads(f.read_text())["record"]["entries"])


def test_the_rounds_of_a_refused_record_are_refused_as_its_replay_is():
    path = next(f for f in FILES if json.loads(f.read_text())["expect"].get("refused_at"))
    case = json.loads(path.read_text())
    with pytest.raises(records.ReplayError) as info:
        records.entry_rounds(case["record"])
    assert str(info.value).startswith(f"entry {case['expect']['refused_at']}:")


@pytest.mark.parametrize("path", ACCEPTED, ids=[f"{f.parent.name}/{f.stem}" for f in ACCEPTED])
def test_each_tie_break_roll_is_in_the_tie_break_the_summary_lists_it_under(path):
    """``entry_places``: a Mitchi tie-break roll's tie-break number, as the replay's summary lists
    the round's tie-breaks (docs/rules.md §Mitchi 8); every other entry has none, and its round is
    ``entry_rounds``'s."""
    record = json.loads(path.read_text())["record"]
    places = records.entry_places(record)
    assert [number for number, _ in places] == records.entry_rounds(record)
    rounds = records.replay(record)["rounds"]
    running = {}  # (round, tie-break) -> rolls seen so far
    for entry, (number, tie_break) in zip(record["entries"], places):
        if entry["type"] != "tiebreak":
            assert tie_break is None
            continue
        seen = running.setdefault((number, tie_break), 0)
        if number <= len(rounds):  # a finished round: its summary lists the roll there
            hands = rounds[number - 1]["tie_breaks"][tie_break - 1]["hands"]
            assert hands[seen]["player"] == entry["player"]
            assert sorted(hands[seen]["hand"]) == sorted(entry["hand"])  # the summary says a hand high first
        running[(number, tie_break)] = seen + 1


def test_a_record_here_has_a_round_of_several_tie_breaks():
    """So the numbering above is checked past the first tie-break, not only on it."""
    assert any(tie_break and tie_break > 1 for f in ACCEPTED
               for _, tie_break in records.entry_places(json.loads(f.read_text())["record"]))


@pytest.mark.parametrize("path", ACCEPTED, ids=[f"{f.parent.name}/{f.stem}" for f in ACCEPTED])
def test_a_states_tie_break_numbers_of_its_last_entries_are_entry_places(path):
    """What a game's panel numbers its "Last entries" by (``GameState.tie_break_numbers``, the
    state at the log's end) agrees with ``entry_places``, for the whole log and its last six; a
    state holding only its last two rounds (a snapshot's) says the same or, for a roll of a round
    it no longer holds, nothing: never a wrong number."""
    from scorekeeper.rules.base import RoundLog

    record = json.loads(path.read_text())["record"]
    entries = record["entries"]
    wanted = [tie_break for _, tie_break in records.entry_places(record)]
    state = records.build(record)
    assert state.tie_break_numbers(entries) == wanted
    assert state.tie_break_numbers(entries[-6:]) == wanted[-6:]
    state.rounds = RoundLog.last(state.rounds, 2)
    for got, want in zip(state.tie_break_numbers(entries[-6:]), wanted[-6:]):
        assert got in (want, None)


@pytest.mark.parametrize("path", ACCEPTED, ids=[f"{f.parent.name}/{f.stem}" for f in ACCEPTED])
def test_the_tie_break_under_way_at_a_tie_break_roll_is_the_one_it_was_rolled_in(path):
    """``log_places``' tie-break under way at each position (the Whole log numbers an undone or
    corrected roll by it) is the number ``entry_places`` gives every tie-break roll there, and
    nothing outside a tie-break; after the last entry it is the replayed state's ``tie_break_now``
    (what Redo's button and "Undone:" number by); a state replayed up to a position says the same
    as the list there."""
    record = json.loads(path.read_text())["record"]
    entries = record["entries"]
    places, under_way = records.log_places(record)
    assert places == records.entry_places(record) and len(under_way) == len(entries) + 1
    for (_, tie_break), entry, now in zip(places, entries, under_way):
        if entry.get("type") == "tiebreak":
            assert now == tie_break
        else:  # a turn, a start: entered only where no tie-break is under way
            assert now is None
    assert under_way[-1] == records.build(record).tie_break_now
    for cut in range(0, len(entries) + 1, max(1, len(entries) // 7)):
        assert records.build({**record, "entries": entries[:cut]}).tie_break_now == under_way[cut]
    if record["game"] != "mitchi":
        assert set(under_way) == {None}
