"""Mia properties (hypothesis): lives never negative, one loser per challenge, the
game ends exactly when docs/rules.md §Mia 7-8 say, every entry is accepted or refused
with IllegalEntry/ReplayError (never another exception), a refused entry
changes nothing, and what ``legal_types()`` offers is accepted."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.rules import find_game
from scorekeeper.rules import record as records
from scorekeeper.rules.base import IllegalEntry, parse_options
from scorekeeper.rules.mia import OPTIONS, STANDARD, Mia

from .test_mia import snapshot

PLAYERS = ("Ann", "Ben", "Cat", "Dan")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def options(draw):
    scoring = draw(st.sampled_from(["elimination", "bonus-points"]))
    return {
        "lives": draw(st.integers(1, 3)),
        "order": draw(st.sampled_from(["standard", "sum"])),
        "pass_back": draw(st.sampled_from(["must-raise", "may-pass"])),
        "next_starter": draw(st.sampled_from(["owner", "challenger", "loser", "winner"])),
        "winner_gains_life": draw(st.booleans()),
        "mia_reverses": draw(st.booleans()),
        "scoring": scoring,
        "rolloff": scoring == "bonus-points" and draw(st.booleans()),
    }


players = st.integers(3, 4).map(lambda n: PLAYERS[:n])
dice = st.tuples(st.integers(1, 6), st.integers(1, 6)).map(list)
garbage = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 100), st.text(max_size=3), st.sampled_from(PLAYERS + ("Zed",)),
    st.sampled_from(STANDARD), st.lists(st.integers(0, 7), max_size=3), st.floats(allow_nan=False),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
garbage_entry = st.one_of(
    st.dictionaries(
        st.sampled_from(["type", "player", "value", "cup", "owner", "announced", "die"]),
        st.one_of(garbage, st.sampled_from(["start", "startroll", "announce", "pass", "challenge", "reverse"])),
        max_size=5,
    ),
    garbage,
)


def legal_entry(draw, g: Mia) -> dict:
    """An entry built from what the state says is accepted now."""
    kind = draw(st.sampled_from(g.legal_types()))
    if kind == "start":
        return {"type": "start", "player": draw(st.sampled_from(g.players))}
    if kind == "startroll":
        nxt = g.expected()  # before the first die, "player" is None and "rolloff_player" rolls
        return {"type": "startroll", "player": nxt["player"] or nxt["rolloff_player"], "die": draw(st.integers(1, 6))}
    if kind == "reverse":
        return {"type": "reverse", "player": g.may_reverse}
    entry = {"type": kind, "player": g.to_act}
    if kind == "announce":
        above = g.values_above(None if g.restart_due else g.claim)
        entry["value"] = draw(st.sampled_from(above))
    elif kind == "pass" and g.pass_back:
        above = g.values_above(g.claim)
        plain_ok = g.options["pass_back"] == "may-pass"
        if above and (not plain_ok or draw(st.booleans())):
            entry["value"] = draw(st.sampled_from(above))
    elif kind == "challenge":
        entry["cup"] = draw(dice)
        if g.claim is None:
            owner = draw(st.sampled_from(g.still_in))
            entry.update(player=g.next_in(owner), owner=owner, announced=draw(st.sampled_from(STANDARD)))
    return entry


def check_invariants(g: Mia, before_rounds: int, entry) -> None:
    assert all(v >= 0 for v in g.lives.values())
    new = g.rounds[before_rounds:]
    if isinstance(entry, dict) and entry.get("type") == "challenge":
        assert len(new) == 1  # exactly one loser per challenge
        r = new[0]
        assert r.loser in (r.owner, r.challenger) and r.winner in (r.owner, r.challenger)
        assert r.loser != r.winner
    else:
        assert new == []
    if g.options["scoring"] == "elimination":
        assert g.finished == (len(g.alive) == 1)
        if g.finished:
            assert g.winners == g.alive
    elif g.in_rolloff:
        assert not g.finished or len(g.winners) == 1
        assert len(g.rolloff_players) == 2
    else:
        assert g.finished == any(v == 0 for v in g.lives.values())
    if g.finished:
        assert g.expected() is None and g.legal_types() == [] and g.winners
    elif g.started:
        assert g.to_act in g.still_in
        nxt = g.expected()
        types = g.legal_types()
        assert nxt["type"] == (types[0] if len(types) == 1 else types)


@FAST
@given(st.data(), players, options())
def test_games_follow_the_rules(data, seats, opts):
    g = Mia(seats, parse_options(OPTIONS, opts))
    for _ in range(80):
        if g.finished:
            break
        if data.draw(st.integers(0, 9)) == 0:
            entry = data.draw(garbage_entry)
        else:
            entry = legal_entry(data.draw, g)
        before, summary, rounds = snapshot(g), g.summary(), len(g.rounds)
        try:
            g.apply(entry)
        except IllegalEntry as err:
            assert str(err)
            assert snapshot(g) == before and g.summary() == summary  # a refused entry changes nothing
            continue
        check_invariants(g, rounds, entry)
    # Who is out, and when, kept apart from the rounds (a snapshot keeps only the last ones):
    # the same standings as the whole summary's rounds give (docs/rules.md §Mia 8).
    assert set(g.out_at) == {p for p in g.players if g.lives[p] == 0}
    spec, summary = find_game("mia"), g.summary()
    assert spec.standings(summary, g.out_at) == spec.standings(summary)
    if g.finished:
        refused = False
        try:
            g.apply({"type": "announce", "player": g.players[0], "value": 21})
        except IllegalEntry:
            refused = True
        assert refused


@FAST
@given(st.data(), players, options())
def test_legal_types_are_accepted(data, seats, opts):
    g = Mia(seats, parse_options(OPTIONS, opts))
    for _ in range(60):
        if g.finished:
            break
        entry = legal_entry(data.draw, g)
        g.apply(entry)  # must not raise


@FAST
@given(players, options(), st.lists(garbage_entry, max_size=12))
def test_any_record_is_replayed_or_refused(seats, opts, entries):
    record = records.make_record("mia", seats, opts, entries)
    try:
        out = records.replay(record)
    except records.ReplayError as err:
        assert str(err).startswith(("entry ", "record:"))
    else:
        assert set(out["scores"]) == set(seats)


@FAST
@given(players, options(), st.data())
def test_mixed_records_replay_or_refuse(seats, opts, data):
    """Mostly legal entries with garbage mixed in, through the record replay."""
    g = Mia(seats, parse_options(OPTIONS, opts))
    entries = []
    for _ in range(30):
        if g.finished:
            break
        entry = legal_entry(data.draw, g)
        g.apply(entry)
        entries.append(entry)
    at = data.draw(st.integers(0, len(entries)))
    entries.insert(at, data.draw(garbage_entry))
    try:
        records.replay(records.make_record("mia", seats, opts, entries))
    except records.ReplayError as err:
        assert str(err).startswith("entry ")
        assert int(str(err).split()[1].rstrip(":")) >= at + 1  # nothing before the garbage is refused


ROLLOFF_TIE = [  # docs/rules.md §Mia 7: Ann and Ben end tied on 2 lives and 1 bonus point; Cat is at 0
    {"type": "start", "player": "Ann"},
    {"type": "announce", "player": "Ann", "value": 42}, {"type": "pass", "player": "Ben"},
    {"type": "challenge", "player": "Cat", "cup": [4, 3]},
    {"type": "announce", "player": "Ben", "value": 42}, {"type": "pass", "player": "Cat"},
    {"type": "challenge", "player": "Ann", "cup": [3, 1]},
]


@FAST
@given(st.data(), st.booleans(), st.booleans(), st.sampled_from(["must-raise", "may-pass"]))
def test_rolloff_decides_by_a_pair(data, gains, reverses, pass_back):
    opts = {"scoring": "bonus-points", "lives": 2, "rolloff": True, "winner_gains_life": gains,
            "mia_reverses": reverses, "pass_back": pass_back}
    g = Mia(PLAYERS[:3], parse_options(OPTIONS, opts))
    for entry in ROLLOFF_TIE:
        g.apply(entry)
    assert g.in_rolloff and not g.finished
    lives, bonus, first = dict(g.lives), dict(g.bonus), len(g.rounds)
    for _ in range(60):
        if g.finished:
            break
        before = len(g.rounds)
        entry = legal_entry(data.draw, g)
        g.apply(entry)
        check_invariants(g, before, entry)
        assert g.lives == lives and g.bonus == bonus
        assert g.to_act is None or g.to_act in ("Ann", "Ben")
    played = g.rounds[first:]
    assert all(r.rolloff and r.lives_lost == 0 for r in played)
    pairs = [played[i:i + 2] for i in range(0, len(played) - 1, 2)]
    decided = [p for p in pairs if p[0].winner == p[1].winner]
    if g.finished:
        assert len(played) % 2 == 0 and len(decided) == 1 and decided[0] == pairs[-1]
        assert g.winners == [pairs[-1][0].winner]
    else:
        assert decided == []
