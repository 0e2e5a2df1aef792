"""Quick reference: each game's ranking and scoring on one phone screen."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from ..rules import GAMES

bp = Blueprint("reference", __name__, url_prefix="/rules")


@bp.route("/<name>")
def quick(name: str):
    """The quick reference of one game (public: no account needed)."""
    spec = GAMES.get(name)
    if spec is None:
        abort(404)
    import importlib

    module = importlib.import_module(f"scorekeeper.rules.{name.replace('-', '_')}")
    return render_template(f"rules/{name.replace('-', '_')}.html", spec=spec, rules=module)
