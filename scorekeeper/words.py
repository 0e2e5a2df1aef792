"""Entries and hands in plain words, for logs and messages (presentation only)."""

from __future__ import annotations

from flask_babel import gettext as _


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
        return _("The game is over.")
    kind, p = expected.get("type"), expected.get("player")
    if isinstance(kind, list):
        return _("%(player)s to act", player=p) if p else _("Anyone may act")
    if p is None:
        return {"start": _("Who starts? Not chosen yet."), "startroll": _("Rolling for who starts."),
                "first": _("Who opens this round? Not named yet."),
                "reveal": _("Showdown: everyone still in shows the dice.")}.get(kind, _("Next: anyone"))
    return {"turn": _("%(player)s to roll", player=p),
            "tiebreak": _("%(player)s rolls in the tie-break", player=p),
            "startroll": _("%(player)s rolls for who starts", player=p),
            "announce": _("%(player)s to announce", player=p),
            "reveal": _("%(player)s shows the dice", player=p),
            "first": _("%(player)s opens this round", player=p)}.get(kind, _("%(player)s to act", player=p))
