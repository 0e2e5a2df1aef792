"""Mice and Men virtual players (docs/practice.md "Mice and Men"; RULES.md Mice and Men 1-5).

The strategy, in plain words (the score is the dice read as the largest number):

- Work out the chance of taking the penalty at the showdown: the chance that none
  of the other players still in has a lower score (each of them as a fair roll).
- **Opening**: the stronger the dice, the higher the opening penalty within the
  range (a hand that would rarely be lowest opens high).
- **Answering**: the expected cost of staying is the penalty times that chance. Run
  with the mice when it is more than the run penalty; lead the men (raise by 1 to 3)
  when the chance is below one in ten, once a round at most; otherwise join the men.
- **Showdown**: everyone still in reveals the three dice rolled at the start of
  the round.
- With ``first_player = chosen`` the next seat opens each round.

:class:`Hidden` holds every player's three dice for the round in play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..base import N_, IllegalEntry
from ..dice import value_of
from ..mice_and_men import DICE, MiceAndMen
from . import roll

LEAD_BELOW = 0.1

#: Every three-dice score with its chance (216 rolls).
_SCORES = [value_of(tuple(sorted((a, b, c), reverse=True)))
           for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]


def below(score: int) -> float:
    """Chance that a fair roll of three dice scores strictly lower than ``score``."""
    return sum(1 for s in _SCORES if s < score) / len(_SCORES)


def take_chance(score: int, others: int) -> float:
    """Chance of holding the lowest score (ties count as taking) against ``others`` fair rolls."""
    return (1 - below(score)) ** others


@dataclass
class Hidden:
    """Every player's dice (higher first) for round ``number``; dealt when a round begins."""

    number: int = 0
    dice: dict[str, list[int]] = field(default_factory=dict)

    def deal(self, state: MiceAndMen, rng: random.Random) -> None:
        """Roll three dice for every player when the round in play is new to us."""
        if state.round is not None and state.round.number != self.number:
            self.number = state.round.number
            self.dice = {p: sorted(roll(rng, DICE), reverse=True) for p in state.players}


def next_entry(state: MiceAndMen, rng: random.Random, hidden: Hidden) -> dict:
    """The entry the engine expects next, made by the virtual player concerned; raises
    :class:`IllegalEntry` once the game is over."""
    nxt = state.expected()
    if nxt is None:
        raise IllegalEntry(N_("the game is over"))
    hidden.deal(state, rng)
    types = nxt["type"] if isinstance(nxt["type"], list) else [nxt["type"]]
    if types == ["startroll"]:
        return {"type": "startroll", "player": nxt["player"], "die": roll(rng, 1)[0]}
    if "first" in types:
        previous = state.rounds[-1].first if state.rounds else state.players[-1]
        following = state.players[(state.players.index(previous) + 1) % len(state.players)]
        return {"type": "first", "player": following}
    if types == ["reveal"]:
        player = nxt["player"] or nxt["to_reveal"][0]
        return {"type": "reveal", "player": player, "dice": hidden.dice[player]}
    player = nxt["player"] or nxt.get("opener")  # before round 1 under rotate, anyone may start: the opener acts
    score = value_of(tuple(hidden.dice[player]))
    others = len(state.still_in) - 1
    p = take_chance(score, others)
    if "run" not in types:  # the opening announcement
        low, high = state.opening_range
        return {"type": "announce", "player": player, "penalty": low + round((1 - p) * (high - low))}
    penalty = state.penalty
    if penalty * p > state.run_penalty:
        return {"type": "run", "player": player, "dice": hidden.dice[player]}
    led = any(a.player == player and a.action == "lead" for a in state.round.actions)
    high = state.max_lead()  # None at the largest penalty (docs/game-record.md §Ranges): no lead
    if high and p < LEAD_BELOW and not led:  # one lead per round, so the bidding cannot climb forever
        return {"type": "announce", "player": player, "penalty": penalty + rng.randint(1, min(3, high - penalty))}
    return {"type": "join", "player": player}
