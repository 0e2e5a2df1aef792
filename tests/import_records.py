"""Many distinct, legal game records, made deterministically (for the import test and
``bench/import_bench.py``): Mitchi games of the same three players, told apart by who starts
and the first two hands."""

from __future__ import annotations

from itertools import product

from scorekeeper.rules.mitchi import RANKING

PLAYERS = ["Ann", "Ben", "Cat"]


def many_records(n: int) -> list[dict]:
    """``n`` (at most 3 * 21 * 21 = 1,323 per point limit) different legal records."""
    out = []
    for limit in range(25, 1000):
        for start, first, second in product(range(3), RANKING, RANKING):
            if len(out) == n:
                return out
            a, b = PLAYERS[start], PLAYERS[(start + 1) % 3]
            out.append({"format": 1, "game": "mitchi", "players": PLAYERS, "options": {"point_limit": limit},
                        "entries": [{"type": "start", "player": a},
                                    {"type": "turn", "player": a, "hand": list(first), "rolls": 1},
                                    {"type": "turn", "player": b, "hand": list(second), "rolls": 1}],
                        "played_at": f"2026-{1 + len(out) % 12:02d}-{1 + len(out) % 28:02d}T20:00:00+00:00"})
    return out
