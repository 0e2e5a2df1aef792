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
    """One line for an entry of any game: "Cat: 4-1 in 3", "Ben announces 54" (in the request's
    language)."""
    if not isinstance(entry, dict):
        return _("a malformed entry")
    p = entry.get("player")
    kind = entry.get("type")
    if kind == "start":
        return _("%(player)s starts", player=p)
    if kind == "startroll":
        return _("%(player)s rolls %(die)s for who starts", player=p, die=entry.get("die"))
    if kind == "turn":
        return _("%(player)s: %(hand)s in %(rolls)s", player=p, hand=dice_text(entry.get("hand", [])),
                 rolls=entry.get("rolls"))
    if kind == "tiebreak":
        return _("%(player)s: tie-break roll %(hand)s", player=p, hand=dice_text(entry.get("hand", [])))
    if kind == "announce":
        if "penalty" in entry:
            return _("%(player)s announces a penalty of %(penalty)s", player=p, penalty=entry["penalty"])
        return _("%(player)s announces %(value)s", player=p, value=mia_value(entry.get("value")))
    if kind == "pass":
        if "value" in entry:
            return _("%(player)s passes, raising to %(value)s", player=p, value=mia_value(entry["value"]))
        return _("%(player)s passes", player=p)
    if kind == "challenge":
        cup = "-".join(str(d) for d in sorted(entry.get("cup", []), reverse=True))
        if "owner" in entry:
            return _("%(player)s challenges %(owner)s's %(value)s: the cup shows %(cup)s", player=p,
                     owner=entry["owner"], value=mia_value(entry.get("announced")), cup=cup)
        return _("%(player)s challenges: the cup shows %(cup)s", player=p, cup=cup)
    if kind == "reverse":
        return _("%(player)s reverses the direction of play", player=p)
    if kind == "first":
        return _("%(player)s opens this round", player=p)
    if kind == "join":
        return _("%(player)s joins the men", player=p)
    if kind == "run":
        return _("%(player)s runs with the mice", player=p)
    if kind == "reveal":
        return _("%(player)s shows %(dice)s", player=p, dice=dice_text(entry.get("dice", [])))
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
