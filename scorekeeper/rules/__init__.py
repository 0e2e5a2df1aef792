"""The rules of the three games, pure Python (stdlib only).

``GAMES`` maps a game's code name (``mitchi``, ``mia``, ``mice-and-men``) to
its :class:`~scorekeeper.rules.base.GameSpec`; ``find_game(name)`` looks one up.
"""

from __future__ import annotations

from .base import GameSpec, IllegalEntry, RecordError, RuleError

GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    GAMES[spec.name] = spec
    return spec


def find_game(name) -> GameSpec:
    """Return the spec for ``name``; raise :class:`RecordError` naming the known games."""
    if not isinstance(name, str) or name not in GAMES:
        from .base import shown

        raise RecordError(f"game must be one of {', '.join(GAMES)}, not {shown(name)}")
    return GAMES[name]


def _load() -> None:
    import importlib

    for module in ("mitchi", "mia", "mice_and_men"):
        try:
            importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as err:  # a game not written yet
            if err.name != f"{__name__}.{module}":
                raise


__all__ = ["GAMES", "GameSpec", "IllegalEntry", "RecordError", "RuleError", "find_game"]

_load()
