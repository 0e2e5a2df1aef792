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
