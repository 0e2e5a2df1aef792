"""Mitchi virtual players (docs/practice.md "Mitchi"; RULES.md Mitchi 3-9).

The strategy, in plain words:

- **Starting player**: stop after the first roll with six-high or better, after
  the second with five-high or better; otherwise use all three rolls.
- **Everyone else**: stop as soon as the hand is better than the worst hand so
  far (then someone else already holds a worse hand, so this turn cannot take
  the pot). Level with the worst hand: roll again only when the chance of doing
  better in one roll is at least one half. Worse: roll again while rolls are left.
- **Which die to keep**: the choice (keep one die, or re-roll both) with the best
  chance of reaching the goal in one roll; on equal chances keep the higher die.
  This keeps a 6 when six-high is enough, and keeps a pair when that helps.
- **Tie-break**: one roll, nothing to decide.

:class:`Turn` is one player's turn in progress (the practice page drives the
person's own turn with it; virtual players use :func:`play_turn`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..base import N_, IllegalEntry
from ..mitchi import MAX_START_ROLLS, Mitchi, rank
from . import roll

#: After roll n (key), the starting player stops with a hand ranked at this index or better
#: (11 is six-one: six-high or better; 15 is five-one: five-high or better).
STARTER_GOAL = {1: rank((6, 1)), 2: rank((5, 1))}

ACTIONS = ("stop", "keep", "both")


def limit_of(state: Mitchi) -> int:
    """Rolls the player to act may use this turn: 3 for the starting player, else the roll limit."""
    allowed = state.allowed_rolls()
    return allowed[-1] if allowed else MAX_START_ROLLS


def chance(keep: int | None, good) -> float:
    """Chance in [0, 1] that one roll reaches ``good(hand) -> bool``, keeping die ``keep``
    (None: re-roll both)."""
    if keep is None:
        outcomes = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    else:
        outcomes = [(keep, b) for b in range(1, 7)]
    return sum(1 for hand in outcomes if good(hand)) / len(outcomes)


def best_reroll(dice, good) -> tuple[str, int | None, float]:
    """The re-roll with the best chance of a ``good`` hand: ``("keep", die, p)`` or
    ``("both", None, p)``; equal chances keep the higher die."""
    options = [("keep", d) for d in sorted(set(dice), reverse=True)] + [("both", None)]
    best = max(options, key=lambda o: chance(o[1], good))  # max keeps the first of equals
    return best[0], best[1], chance(best[1], good)


def decide(state: Mitchi, dice, rolls_used: int) -> tuple[str, int | None]:
    """What the player to act does with ``dice`` after ``rolls_used`` rolls of their turn:
    ``("stop", None)``, ``("keep", die)`` (keep that die, re-roll the other) or
    ``("both", None)``. Never rolls past the roll limit (rule 3)."""
    limit = limit_of(state)
    if rolls_used >= limit:
        return ("stop", None)
    here = rank(dice)
    worst = state.round.worst_hand if state.round else None
    if worst is None:  # the starting player sets the roll limit
        goal = STARTER_GOAL.get(rolls_used, rank((3, 1)))
        if here <= goal:
            return ("stop", None)
        action, die, _ = best_reroll(dice, lambda h: rank(h) <= goal)
        return (action, die)
    target = rank(worst.hand)
    if here < target:
        return ("stop", None)
    action, die, p = best_reroll(dice, lambda h: rank(h) < target)
    if here == target and p < 0.5:
        return ("stop", None)
    return (action, die)


@dataclass
class Turn:
    """A turn in progress: ``rolls`` holds every roll so far (two dice each, as shown).

    ``limit`` is how many rolls the turn may use (3 for the starting player, else the
    round's roll limit; rule 3).
    """

    player: str
    limit: int
    rolls: list[list[int]] = field(default_factory=list)
    #: For each roll, the die kept from the roll before (None: both dice rolled).
    kept: list[int | None] = field(default_factory=list)

    @classmethod
    def start(cls, state: Mitchi) -> "Turn":
        """A new turn for the player the engine expects; raise :class:`IllegalEntry` if
        the next entry is not a turn."""
        nxt = state.expected()
        if not nxt or nxt.get("type") != "turn":
            raise IllegalEntry(N_("it is not a turn now"))
        return cls(nxt["player"], limit_of(state))

    @property
    def rolls_left(self) -> int:
        return self.limit - len(self.rolls)

    @property
    def dice(self) -> list[int] | None:
        return self.rolls[-1] if self.rolls else None

    def choices(self) -> list[str]:
        """What may be done now: ``roll`` (first roll), ``keep``/``both`` (re-roll), ``stop``."""
        if not self.rolls:
            return ["roll"]
        return (["keep", "both"] if self.rolls_left > 0 else []) + ["stop"]

    def roll(self, rng: random.Random, keep: int | None = None) -> list[int]:
        """Roll both dice, or keep die ``keep`` (a face of the current hand) and roll the other.

        Raises :class:`IllegalEntry` past the roll limit or for a die not in the hand.
        """
        if self.rolls_left <= 0:
            raise IllegalEntry(N_("no rolls left: the roll limit is {limit}; stop with this hand"), limit=self.limit)
        if keep is not None:
            if not self.rolls:
                raise IllegalEntry(N_("roll both dice first; a die can be kept only after a roll"))
            if keep not in self.rolls[-1]:
                raise IllegalEntry(N_("keep a die of the hand ({first} or {second}), not {keep}"),
                                   first=self.rolls[-1][0], second=self.rolls[-1][1], keep=keep)
            dice = [keep, roll(rng, 1)[0]]
        else:
            dice = roll(rng, 2)
        self.rolls.append(dice)
        self.kept.append(keep)
        return dice

    def entry(self) -> dict:
        """The turn's record entry: final hand and rolls used, plus the extra keys ``rolled``
        (every roll, two dice each) and ``kept`` (the die kept before each roll, or None)."""
        if not self.rolls:
            raise IllegalEntry(N_("roll first: a turn has at least one roll"))
        return {"type": "turn", "player": self.player, "hand": list(self.rolls[-1]),
                "rolls": len(self.rolls), "rolled": [list(r) for r in self.rolls], "kept": list(self.kept)}


def play_turn(state: Mitchi, rng: random.Random) -> dict:
    """A whole turn of the player to act, by :func:`decide`; returns its entry."""
    turn = Turn.start(state)
    turn.roll(rng)
    while True:
        action, die = decide(state, turn.dice, len(turn.rolls))
        if action == "stop":
            return turn.entry()
        turn.roll(rng, die if action == "keep" else None)


def next_entry(state: Mitchi, rng: random.Random) -> dict:
    """The entry of the player the engine expects: a roll-off die, a turn or a tie-break roll.

    Raises :class:`IllegalEntry` once the game is over. Before the start, the roll-off
    is used (one die each, RULES.md Mitchi 2).
    """
    nxt = state.expected()
    if nxt is None:
        raise IllegalEntry(N_("the game is over"))
    kind = nxt["type"]
    if isinstance(kind, list) or kind == "startroll":
        player = nxt.get("player") or nxt.get("rolloff_player")
        return {"type": "startroll", "player": player, "die": roll(rng, 1)[0]}
    if kind == "tiebreak":
        return {"type": "tiebreak", "player": nxt["player"], "hand": roll(rng, 2)}
    return play_turn(state, rng)
