"""Entries and hands in plain words, for logs and messages (presentation only)."""

from __future__ import annotations


def dice_text(dice) -> str:
    dice = sorted(dice, reverse=True)
    if len(dice) == 2 and dice == [2, 1]:
        return "2-1 (Mitchi)"
    return "-".join(str(d) for d in dice)


def mia_value(value) -> str:
    """A Mia value as said at the table: 21 is "Mia"."""
    return "Mia" if value == 21 else str(value)


def describe(entry: dict) -> str:
    """One line for an entry of any game: "Cat: 4-1 in 3", "Ben announces 54"."""
    if not isinstance(entry, dict):
        return "a malformed entry"
    p = entry.get("player")
    kind = entry.get("type")
    if kind == "start":
        return f"{p} starts"
    if kind == "startroll":
        return f"{p} rolls {entry.get('die')} for who starts"
    if kind == "turn":
        rolls = entry.get("rolls")
        return f"{p}: {dice_text(entry.get('hand', []))} in {rolls}"
    if kind == "tiebreak":
        return f"{p}: tie-break roll {dice_text(entry.get('hand', []))}"
    if kind == "announce":
        if "penalty" in entry:
            return f"{p} announces a penalty of {entry['penalty']}"
        return f"{p} announces {mia_value(entry.get('value'))}"
    if kind == "pass":
        if "value" in entry:
            return f"{p} passes, raising to {mia_value(entry['value'])}"
        return f"{p} passes"
    if kind == "challenge":
        cup = "-".join(str(d) for d in sorted(entry.get("cup", []), reverse=True))
        if "owner" in entry:
            return f"{p} challenges {entry['owner']}'s {mia_value(entry.get('announced'))}: the cup shows {cup}"
        return f"{p} challenges: the cup shows {cup}"
    if kind == "reverse":
        return f"{p} reverses the direction of play"
    if kind == "first":
        return f"{p} opens this round"
    if kind == "join":
        return f"{p} joins the men"
    if kind == "run":
        return f"{p} runs with the mice"
    if kind == "reveal":
        return f"{p} shows {dice_text(entry.get('dice', []))}"
    return f"{p}: {kind}"


def next_words(expected: dict | None) -> str:
    """Who acts next, for the table: "Ann to roll", "Ben to act", "Showdown: everyone still in shows
    the dice". ``expected`` is the engine's ``next`` (docs/game-record.md); None once the game is over."""
    if not expected:
        return "The game is over."
    kind, p = expected.get("type"), expected.get("player")
    if isinstance(kind, list):
        return f"{p} to act" if p else "Anyone may act"
    if p is None:
        return {"start": "Who starts? Not chosen yet.", "startroll": "Rolling for who starts.",
                "first": "Who opens this round? Not named yet.",
                "reveal": "Showdown: everyone still in shows the dice."}.get(kind, "Next: anyone")
    return {"turn": f"{p} to roll", "tiebreak": f"{p} rolls in the tie-break",
            "startroll": f"{p} rolls for who starts", "announce": f"{p} to announce",
            "reveal": f"{p} shows the dice", "first": f"{p} opens this round"}.get(kind, f"{p} to act")
