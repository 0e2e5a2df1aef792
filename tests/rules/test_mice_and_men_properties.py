"""Mice and Men rules engine: hypothesis properties (docs/rules.md §Mice and Men 1-7)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.rules import record as records
from scorekeeper.rules.base import IllegalEntry, parse_options
from scorekeeper.rules.mice_and_men import OPTIONS, MiceAndMen, score_of

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]

dice3 = st.lists(st.integers(1, 6), min_size=3, max_size=3)
options_st = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 4),
        "opening_range": st.integers(1, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, lo + 5)))
        .map(list),
        "run_penalty": st.integers(0, 5),
        "tie": st.sampled_from(["all", "none"]),
        "first_player": st.sampled_from(["rotate", "chosen"]),
    }
)


junk = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.text(max_size=4), st.floats(allow_nan=True),
    st.lists(st.integers(-1, 8), max_size=5), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
garbage_entry = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["announce", "join", "run", "reveal", "first", "start", "startroll"]),
         "player": st.sampled_from(NAMES[:5])},
        optional={"penalty": st.one_of(st.integers(-2, 14), junk), "dice": st.one_of(dice3, junk),
                  "die": st.one_of(st.integers(0, 7), junk)},
    ),
    st.dictionaries(st.sampled_from(["type", "player", "penalty", "dice", "die", "x"]), junk, max_size=4),
    junk,
)


def snapshot(g: MiceAndMen):
    return copy.deepcopy((g.summary(), g.phase, g.still_in, g.runners, g.joined, g.revealed, g.legal_types(),
                          g.round_number))


def legal_entry(draw, g: MiceAndMen) -> dict:
    """Draw one entry the state should accept (the generator only knows the public names)."""
    kind = draw(st.sampled_from(g.legal_types()))
    low, high = g.opening_range
    if kind == "start":
        return {"type": "start", "player": draw(st.sampled_from(g.players))}
    if kind == "startroll":
        return {"type": "startroll", "player": g.opening.rolloff.next_player if g.opening.rolloff else g.players[0],
                "die": draw(st.integers(1, 6))}
    if kind == "first":
        return {"type": "first", "player": draw(st.sampled_from(g.players))}
    if kind == "announce":
        if g.phase == "opening":
            return {"type": "announce", "player": g.opener, "penalty": draw(st.integers(low, high))}
        return {"type": "announce", "player": g.to_act, "penalty": g.min_lead() + draw(st.integers(0, 3))}
    if kind == "join":
        return {"type": "join", "player": g.to_act}
    if kind == "run":
        entry = {"type": "run", "player": g.to_act}
        if draw(st.booleans()):
            entry["dice"] = draw(dice3)
        return entry
    return {"type": "reveal", "player": draw(st.sampled_from(g.to_reveal)), "dice": draw(dice3)}


def check_invariants(g: MiceAndMen) -> None:
    assert all(v >= 0 for v in g.scores.values())
    assert len(g.rounds) <= g.rounds_total
    assert g.finished == (len(g.rounds) == g.rounds_total)
    assert [r.number for r in g.rounds] == list(range(1, len(g.rounds) + 1))
    assert g.phase in ("first", "opening", "bidding", "showdown", "over")
    if g.finished:
        low = min(g.scores.values())
        assert g.winners == [p for p in g.players if g.scores[p] == low]
        assert g.expected() is None
    else:
        assert g.winners == []
        nxt = g.expected()
        assert nxt["player"] is None or nxt["player"] in g.players
        assert set(g.still_in) | set(g.runners) == set(g.players)
        if g.phase == "bidding":
            assert g.to_act in g.still_in and g.to_act != g.last_announcer
            assert g.min_lead() == g.penalty + 1
        if g.phase == "showdown":
            assert len(g.still_in) >= 2
    for rnd in g.rounds:
        d = rnd.as_dict()
        assert d["penalty"] >= 1 and set(d["takers"]) <= set(g.players)
        if d["survivor"] is not None:
            assert d["takers"] == [] and d["reveals"] == [] and d["survivor"] not in d["takers"]
            assert len(d["runners"]) == len(g.players) - 1
        else:
            assert len(d["reveals"]) == len(g.players) - len(d["runners"]) >= 2


@FAST
@given(data=st.data(), n=st.integers(4, 8), options=options_st)
def test_random_legal_games(data, n, options):
    players = tuple(NAMES[:n])
    g = MiceAndMen(players, parse_options(OPTIONS, options))
    for _ in range(3000):
        if g.finished:
            break
        rounds_before = len(g.rounds)
        scores_before = dict(g.scores)
        round_before = g.round
        if data.draw(st.integers(0, 4), label="garbage?") == 0:  # garbage in any phase: refused or kept
            junk_entry = data.draw(garbage_entry, label="garbage")
            before = snapshot(g)
            try:
                g.apply(junk_entry)
            except IllegalEntry:
                assert snapshot(g) == before
            check_invariants(g)
            if g.finished:
                break
            rounds_before, scores_before, round_before = len(g.rounds), dict(g.scores), g.round
        entry = legal_entry(data.draw, g)
        g.apply(entry)
        check_invariants(g)
        # penalty points only grow
        assert all(g.scores[p] >= scores_before[p] for p in players)
        # a round ends at most once per entry, and a finished round never changes
        assert len(g.rounds) in (rounds_before, rounds_before + 1)
        if len(g.rounds) == rounds_before + 1:
            ended = g.rounds[-1]
            assert ended is round_before and ended.done
            if ended.survivor is not None:  # the lone survivor takes nothing
                assert g.scores[ended.survivor] == scores_before[ended.survivor]
            assert g.round is None or g.round.number == ended.number + 1
    assert g.finished
    assert len(g.rounds) == options["rounds"]
    # the game ends exactly once: nothing more is accepted
    try:
        g.apply({"type": "announce", "player": players[0], "penalty": 1})
    except IllegalEntry as err:
        assert "over" in str(err)
    else:  # pragma: no cover
        raise AssertionError("an entry after the end was accepted")


@FAST
@given(dice=dice3, perm=st.permutations(range(3)))
def test_score_ignores_order(dice, perm):
    s = score_of(dice)
    assert s == score_of([dice[i] for i in perm])
    digits = sorted(dice, reverse=True)
    assert s == digits[0] * 100 + digits[1] * 10 + digits[2]
    assert 111 <= s <= 666


@FAST
@given(entries=st.lists(garbage_entry, max_size=40), options=options_st)
def test_any_entries_accepted_or_refused(entries, options):
    g = MiceAndMen(("Ann", "Ben", "Cat", "Dan"), parse_options(OPTIONS, options))
    for entry in entries:
        before = snapshot(g)
        try:
            g.apply(entry)
        except IllegalEntry as err:
            assert str(err)
            assert snapshot(g) == before  # a refused entry changes nothing
        check_invariants(g)


@FAST
@given(entries=st.lists(garbage_entry, max_size=30), options=options_st)
def test_replay_of_any_record_is_a_verdict(entries, options):
    rec = records.make_record("mice-and-men", ["Ann", "Ben", "Cat", "Dan"], options, entries)
    try:
        out = records.replay(rec)
    except records.ReplayError as err:
        assert str(err).startswith("entry ")
    else:
        assert out["game"] == "mice-and-men"
