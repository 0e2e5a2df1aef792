"""Quick reference: each game's ranking and scoring on one phone screen, in the request's language.

The options' labels, help and values come from the rules package in English; the words a person
reads here are :func:`option_words` (the rules package stays stdlib-only).
"""

from __future__ import annotations

import importlib
import json

from flask import Blueprint, abort, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import pgettext

from ..rules import GAMES
from ..rules.base import GameSpec, RecordError, parse_options
from ..services.history import hand_words
from ..words import option_help, option_label

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


def _choice_texts() -> dict[str, str]:
    """A text option's value (its code, as in the game record) -> how it reads in this language,
    inside a sentence ("the next round begins: whoever had the cup"); the setup form's radio
    buttons name the same choices in their own words (``words.choice_label``)."""
    return {
        "standard": pgettext("option value", "standard"), "sum": pgettext("option value", "sum"),
        "must-raise": pgettext("option value", "must raise"), "may-pass": pgettext("option value", "may pass"),
        "owner": pgettext("option value", "the cup owner"),
        "challenger": pgettext("option value", "the challenger"),
        "loser": pgettext("option value", "the loser"), "winner": pgettext("option value", "the winner"),
        "elimination": pgettext("option value", "elimination"),
        "bonus-points": pgettext("option value", "bonus points"),
        "all": pgettext("option value", "all"), "none": pgettext("option value", "none"),
        "rotate": pgettext("option value", "rotate"), "chosen": pgettext("option value", "chosen"),
    }


def option_words(game: str, option, value=None) -> dict[str, str]:
    """How one option of ``game`` (a code name such as ``"mia"``) reads in the request's language:
    ``{"label": ..., "help": ..., "value": ...}``; ``value`` (the option's value, checked by the
    engine) is shown as "on"/"off", "1 to 10", a choice's words, or the number. The label and
    help are the setup form's (:func:`~scorekeeper.words.option_label`). ``option`` is an
    :class:`~scorekeeper.rules.base.Option` or its code name."""
    if isinstance(option, str):
        option = next(o for o in GAMES[game].options if o.name == option)
    label, help_ = option_label(option), option_help(option)  # the setup form's words
    if option.kind == "bool":
        shown = pgettext("option value", "on") if value else pgettext("option value", "off")
    elif option.kind == "range" and isinstance(value, (list, tuple)) and len(value) == 2:
        shown = _("%(low)s to %(high)s", low=value[0], high=value[1])
    elif option.kind == "text":
        shown = _choice_texts().get(value, str(value))
    else:
        shown = str(value)
    return {"label": label, "help": help_, "value": shown}


def mia_words(value: int) -> str:
    """A Mia value as read in this language: 21 is "Mia" (German "Mäxchen"), others the number."""
    return pgettext("the hand 2-1", "Mia") if value == 21 else str(value)


def own_game(name: str, game_id: int | None):
    """Game ``game_id`` if it is a game of ``name`` in one of the signed-in account's groups, else
    None (as the game's own page would answer 404). Another member's practice game is None too:
    its page refuses this account, so its options and a way "back" to it are not shown either
    (docs/practice.md)."""
    from flask_login import current_user

    from ..db import get_session
    from ..services import groups, practice

    if not game_id or not 0 < game_id < 2**31 or not current_user.is_authenticated:
        return None
    game = groups.game_of_member(get_session(), current_user.id, game_id)
    if game is None or game.game != name:
        return None
    return None if game.practice and not practice.plays(game, current_user.id) else game


@bp.route("/<name>")
def quick(name: str):
    """The quick reference of one game (public: no account needed)."""
    spec = GAMES.get(name)
    if spec is None:
        abort(404)
    module = importlib.import_module(f"scorekeeper.rules.{name.replace('-', '_')}")
    options, from_game = options_from_query(spec, request.args)
    # The game page links here with ``game=<id>``: a way back to it, and its options as stored
    # (not as the URL says). A game the account may not see (or no account) gives neither.
    game, back = own_game(name, request.args.get("game", type=int)), None
    if game is not None:
        options = parse_options(spec.options, json.loads(game.options))  # with any option added since
        from_game, back = True, url_for("practice.play" if game.practice else "games.play", game_id=game.id)
    return render_template(f"rules/{name.replace('-', '_')}.html", spec=spec, rules=module,
                           options=options, from_game=from_game, back=back,
                           option_words=option_words, hand_words=hand_words, mia_words=mia_words)
