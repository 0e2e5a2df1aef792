"""The rules of the three games, pure Python (stdlib only).

``GAMES`` maps a game's code name (``mitchi``, ``mia``, ``mice-and-men``) to
its :class:`~scorekeeper.rules.base.GameSpec`; ``find_game(name)`` looks one up.
"""

from __future__ import annotations

from .base import GameSpec, IllegalEntry, RecordError, RuleError

_GAMES: dict[str, GameSpec] = {}
#: The module of each game, imported when the game is first needed: ``scorekeeper replay`` of a
#: Mitchi record never imports Mia (start-up time counts for the command line).
_MODULES = {"mitchi": "mitchi", "mia": "mia", "mice-and-men": "mice_and_men"}

#: Bump whenever an engine's rules or the shape of its state change: stored
#: snapshots of another rules version are thrown away and rebuilt from the log.
RULES_VERSION = 2  # 2: Mia's state keeps ``out_at``


def register(spec: GameSpec) -> GameSpec:
    _GAMES[spec.name] = spec
    return spec


def find_game(name) -> GameSpec:
    """Return the spec for ``name``; raise :class:`RecordError` naming the known games."""
    if isinstance(name, str) and name in _MODULES:
        if name not in _GAMES:
            _load(_MODULES[name])
        return _GAMES[name]
    from .base import N_, shown

    raise RecordError(N_("game must be one of {games}, not {value}"), games=", ".join(_MODULES), value=shown(name))


def _load(*modules: str) -> None:
    import importlib

    for module in modules or tuple(_MODULES.values()):
        importlib.import_module(f"{__name__}.{module}")


def __getattr__(name: str):
    # ``GAMES`` (every game by code name, in the order above) loads every game on first use.
    if name == "GAMES":
        _load()
        return {key: _GAMES[key] for key in _MODULES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GAMES", "RULES_VERSION", "GameSpec", "IllegalEntry", "RecordError", "RuleError", "find_game"]
