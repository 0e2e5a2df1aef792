"""Mia virtual players (docs/practice.md "Mia"; RULES.md Mia 0-7).

The strategy, in plain words:

- **Rolling** (opening a round, or rolling instead of passing): look at the dice.
  When they beat what must be beaten, usually tell the truth; the weaker the
  true value, the likelier a small bluff upwards (one or two steps). When they
  do not beat it, a bluff is forced: announce the smallest value that beats it,
  sometimes the one after.
- **Answering an announcement**: work out the chance that a fair roll reaches the
  announced value. Below one in three, challenge (the value is unlikely).
  Otherwise roll; when the announced value is easy (more than half of all rolls
  reach it) sometimes pass instead. After an announced Mia nothing can be rolled
  higher: challenge, or now and then pass it on.
- **The turn comes back** (everyone passed): knowing the dice, pass by raising to
  the true value when it is higher; otherwise roll. After a Mia went all the way
  round, start the round again with a new roll.
- **Reversing** (option ``mia_reverses``): half the time, when it is offered (not with two left).

:class:`Hidden` is what only the cup knows: the dice under it. An ``announce``
entry by a roller carries them as the extra key ``dice`` (ignored by the engine).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..base import N_, IllegalEntry
from ..dice import value_of
from ..mia import MIA, Mia, level
from . import roll

CHALLENGE_BELOW = 1 / 3   # challenge when fewer rolls than this reach the announced value
PASS_ABOVE = 0.5          # a pass is considered when more rolls than this reach it
PASS_CHANCE = 0.25
PASS_ON_MIA = 0.2
REVERSE_CHANCE = 0.5


@dataclass
class Hidden:
    """The dice under the cup (higher die first), None before the first roll."""

    cup: tuple[int, int] | None = None


def reach(state: Mia, value: int) -> float:
    """Chance that a fair roll ranks equal to or above ``value`` in the game's order (rule 2)."""
    order = state.order
    hits = sum(1 for a in range(1, 7) for b in range(1, 7)
               if level(value_of((a, b)), order) <= level(value, order))
    return hits / 36


def announce(state: Mia, rng: random.Random, hidden: Hidden, player: str, must_beat: int | None) -> dict:
    """Roll under the cup and announce (truth or bluff); ``must_beat`` None means any value."""
    dice = roll(rng, 2)
    hidden.cup = tuple(sorted(dice, reverse=True))
    truth = value_of(hidden.cup)
    choices = state.values_above(must_beat)  # worst first; every value when must_beat is None
    above_truth = state.values_above(truth)
    if truth in choices or (must_beat is None):
        value = truth
        # the share of rolls reaching the truth: near 1 for a weak value, so bluff more
        if above_truth and rng.random() < 0.3 * reach(state, truth):
            value = above_truth[min(len(above_truth) - 1, rng.randint(0, 1))]
    else:
        value = choices[0] if rng.random() < 0.7 or len(choices) == 1 else choices[1]
    return {"type": "announce", "player": player, "value": value, "dice": list(hidden.cup)}


def next_entry(state: Mia, rng: random.Random, hidden: Hidden, reverse: bool = True) -> dict:
    """The entry of the player the engine expects (or, when ``reverse``, now and then a
    reversal by the player who may reverse); raises :class:`IllegalEntry` once the game is over."""
    nxt = state.expected()
    if nxt is None:
        raise IllegalEntry(N_("the game is over"))
    types = nxt["type"] if isinstance(nxt["type"], list) else [nxt["type"]]
    if "startroll" in types and not state.started:
        player = nxt.get("player") or nxt.get("rolloff_player")
        return {"type": "startroll", "player": player, "die": roll(rng, 1)[0]}
    if reverse and state.reverse_offered is not None and rng.random() < REVERSE_CHANCE:
        return {"type": "reverse", "player": state.may_reverse}
    return answer(state, rng, hidden, nxt["player"])


def answer(state: Mia, rng: random.Random, hidden: Hidden, player: str) -> dict:
    """What ``player`` (the player to act) does now: announce, pass or challenge."""
    types = state.legal_types()
    claim = state.claim
    if claim is None or state.restart_due:
        return announce(state, rng, hidden, player, None)
    if state.pass_back:
        choices = state.pass_choices() or {"raise_to": [], "plain": False}
        truth = value_of(hidden.cup) if hidden.cup else None
        if truth is not None and truth in choices["raise_to"]:
            return {"type": "pass", "player": player, "value": truth}
        if truth is not None and choices["plain"] and not state.ranks_above(claim, truth) \
                and rng.random() < 0.5:
            return {"type": "pass", "player": player}
        return announce(state, rng, hidden, player, claim)
    likely = reach(state, claim)
    if "announce" not in types:  # an announced Mia: nothing ranks above
        if "pass" in types and rng.random() < PASS_ON_MIA:
            return {"type": "pass", "player": player}
        return {"type": "challenge", "player": player, "cup": list(hidden.cup)}
    if likely < CHALLENGE_BELOW:
        return {"type": "challenge", "player": player, "cup": list(hidden.cup)}
    if "pass" in types and likely > PASS_ABOVE and rng.random() < PASS_CHANCE:
        return {"type": "pass", "player": player}
    return announce(state, rng, hidden, player, claim)


__all__ = ["Hidden", "MIA", "announce", "answer", "next_entry", "reach"]
