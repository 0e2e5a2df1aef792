"""Legal Mitchi entries for the benchmarks (no dependency: locust, the app and the
bench scripts all import it)."""

PLAYERS = ["Ann", "Ben", "Cat"]
#: The one User-Agent of every bench request: the session was made for it (Flask-Login's
#: session protection marks a session not fresh, and rewrites its cookie, on another agent).
AGENT = "scorekeeper-load-bench"


def mitchi_turns(rounds: int) -> list[tuple[str, tuple[int, int]]]:
    """``(player, hand)`` of every turn after ``start`` (Ann starts; one roll each): two doubles,
    then a 3-1 that takes the pot and starts the next round."""
    out, starter = [], 0
    for n in range(rounds):
        order = [PLAYERS[(starter + i) % 3] for i in range(3)]
        out += [(order[0], (6, 6)), (order[1], (2, 1) if n % 7 == 0 else (5, 5)), (order[2], (3, 1))]
        starter = (starter + 2) % 3
    return out


TURNS = mitchi_turns(2000)
