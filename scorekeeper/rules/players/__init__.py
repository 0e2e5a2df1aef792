"""Virtual players for practice games (docs/practice.md): pure Python, stdlib only.

Each game's module decides, for the player whose entry the engine expects next
(``state.summary()["next"]`` and the engines' "may I?" helpers), an ordinary
record entry (GAME-RECORD.md). Randomness comes only from the ``random.Random``
passed in, so a seeded one replays a game exactly; the web app passes a
:class:`random.SystemRandom` when no seed is configured.

Entries may carry extra keys the engine ignores (GAME-RECORD.md "Points settled
since": a key the format does not list is ignored): a Mitchi ``turn`` carries
``rolled`` (every roll of the turn, in order), a Mia ``announce`` carries
``dice`` (what was really under the cup). They let a page show the rolls one
after another and let a lifted cup be checked against the log.

:func:`play_game` plays a whole game with virtual players in every seat (tests).
"""

from __future__ import annotations

import random

from .. import find_game
from ..base import GameState
from ..record import make_record, new_state, load_header

#: A game that has not ended after this many entries is a bug in a strategy.
MAX_ENTRIES = 20_000


def roll(rng: random.Random, count: int = 2) -> list[int]:
    """``count`` dice faces 1..6 from ``rng`` (unsorted, as they fell)."""
    return [rng.randint(1, 6) for _ in range(count)]


def table(game: str):
    """The virtual-player module of ``game`` (``mitchi``, ``mia``, ``mice-and-men``)."""
    from . import mia, mice_and_men, mitchi

    return {"mitchi": mitchi, "mia": mia, "mice-and-men": mice_and_men}[find_game(game).name]


def play_game(game: str, players: list[str], options: dict, rng: random.Random,
              max_entries: int = MAX_ENTRIES) -> dict:
    """Play a whole game with a virtual player in every seat; return its record (GAME-RECORD.md).

    Every entry is applied through the engine as it is made (a refused entry raises
    :class:`~scorekeeper.rules.base.IllegalEntry`). Raises ``RuntimeError`` if the
    game has not ended after ``max_entries`` entries.
    """
    record = make_record(game, players, options, [])
    state: GameState = new_state(load_header(record))
    module = table(game)
    hidden = module.Hidden() if hasattr(module, "Hidden") else None
    entries = record["entries"]
    while not state.finished:
        if len(entries) >= max_entries:
            raise RuntimeError(f"{game}: no end after {max_entries} entries")
        entry = module.next_entry(state, rng, hidden) if hidden is not None else module.next_entry(state, rng)
        state.apply(entry)
        entries.append(entry)
    return record
