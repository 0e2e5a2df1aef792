"""Quick reference: each game's ranking and scoring on one phone screen."""

from __future__ import annotations

import importlib

from flask import Blueprint, abort, render_template, request, url_for

from ..rules import GAMES
from ..rules.base import GameSpec, RecordError

bp = Blueprint("reference", __name__, url_prefix="/rules")


def options_from_query(spec: GameSpec, args) -> tuple[dict, bool]:
    """The options named in the URL (a game's page links with its own), each checked by the
    engine; anything missing or invalid keeps its default. Returns ``(options, from_game)``."""
    options, named = {}, False
    for option in spec.options:
        raw = args.getlist(option.name)
        if not raw:
            options[option.name] = option.default
            continue
        try:
            if option.kind == "int":
                value = int(raw[0])
            elif option.kind == "bool":
                value = raw[0] in ("1", "true", "True", "y", "on")
            elif option.kind == "range":
                value = [int(v) for v in raw]
            else:
                value = raw[0]
            options[option.name] = option.parse(value)
            named = True
        except (ValueError, RecordError):
            options[option.name] = option.default
    return options, named


@bp.route("/<name>")
def quick(name: str):
    """The quick reference of one game (public: no account needed)."""
    spec = GAMES.get(name)
    if spec is None:
        abort(404)
    module = importlib.import_module(f"scorekeeper.rules.{name.replace('-', '_')}")
    options, from_game = options_from_query(spec, request.args)
    # The game page links here with ``game=<id>``: a way back to it.
    game_id = request.args.get("game", type=int)
    back = url_for("games.play", game_id=game_id) if game_id and 0 < game_id < 2**31 else None
    return render_template(f"rules/{name.replace('-', '_')}.html", spec=spec, rules=module,
                           options=options, from_game=from_game or back is not None, back=back)
