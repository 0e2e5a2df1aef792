"""The live view of a game: "Show to the table" (link, QR code), the read-only view and table
screen anyone with the link can open, and the polls that keep them (and scorers' pages) current."""

from __future__ import annotations

import json

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import login_required

from ..db import get_session
from ..htmx import is_htmx
from ..rules import find_game
from ..services import games as service
from ..services import live
from ..web import message_response
from .games import owned
from .groups import qr_svg

bp = Blueprint("live", __name__)

#: How often a live view asks whether the game moved on (ms); the table sees an entry within 2 s.
POLL_MS = 1000
LAYOUTS = ("phone", "screen")


@bp.route("/games/<int:game_id>/table")
@login_required
def show(game_id: int):
    """"Show to the table": the read-only link and its QR code, turned on, renewed or off here."""
    game = owned(game_id)
    link = url_for("live.view", token=game.live_token, _external=True) if game.live_token else None
    return render_template("live/show.html", game=game, spec=find_game(game.game), link=link,
                           players=json.loads(game.players),
                           screen=url_for("live.view", token=game.live_token, layout="screen", _external=True)
                           if link else None, qr=qr_svg(link) if link else None)


@bp.route("/games/<int:game_id>/live", methods=["POST"])
@login_required
def turn_on(game_id: int):
    """Make a new read-only link (an older one then stops working); none for a removed game."""
    game = owned(game_id)
    if live.turn_on(get_session(), game) is None:  # removed (perhaps by another phone just now)
        flash(_("This game was removed: restore it before showing it to the table."), "warning")
        return redirect(url_for("live.show", game_id=game.id), 303)
    flash(_("Live link ready: anyone with it can follow the game, read-only."))
    return redirect(url_for("live.show", game_id=game.id), 303)


@bp.route("/games/<int:game_id>/live/off", methods=["POST"])
@login_required
def turn_off(game_id: int):
    """Turn the read-only link off: it then opens nothing."""
    game = owned(game_id)
    live.turn_off(get_session(), game)
    flash(_("Live link turned off: it no longer opens the game."))
    return redirect(url_for("live.show", game_id=game.id), 303)


def _link_off():
    """A link that opens no game (turned off, replaced, its game removed, or never made): 404,
    saying so in the words the live view shows when its link is turned off while open."""
    return message_response(_("This live link was turned off or replaced, or its game removed: the game is no "
                              "longer shown here. Ask the scorer for the new link."), 404, _("Live link off"))


def _layout() -> str:
    layout = request.args.get("layout", "phone")
    return layout if layout in LAYOUTS else "phone"


def _render(game, fragment: bool):
    loaded = service.load(get_session(), game)
    template = "live/_view.html" if fragment else "live/view.html"
    return render_template(template, loaded=loaded, game=game, state=loaded.state, spec=find_game(game.game),
                           layout=_layout(), poll_ms=POLL_MS, read_only=True)


@bp.route("/live/<token>")
def view(token: str):
    """The read-only view of a game, large; ``?layout=screen`` for a tablet or TV in landscape."""
    game = live.game_for_token(get_session(), token)
    if game is None:
        return _link_off()
    return _render(game, fragment=False), 200, {"X-Robots-Tag": "noindex"}


@bp.route("/live/<token>/poll")
def poll(token: str):
    """204 when the link still opens the game the view shows (``?g=``), at the version it shows
    (``?v=``; no log read), else the view: the game moved on, or the link moved to its rematch."""
    session = get_session()
    shown = live.version_for_token(session, token)
    if shown is None:
        if is_htmx():  # 286: htmx stops polling, and the view says why
            return render_template("live/_off.html"), 286
        return _link_off()
    if shown == (live.asked_version(request.args.get("g")), live.asked_version(request.args.get("v"))):
        return Response(status=204)
    return _render(live.game_for_token(session, token), fragment=True)


@bp.route("/live/<token>", methods=["POST", "PUT", "PATCH", "DELETE"])
@bp.route("/live/<token>/<path:rest>", methods=["POST", "PUT", "PATCH", "DELETE"])
def read_only(token: str, rest: str = ""):
    """Nothing can be changed through a live link."""
    return message_response(_("This is a read-only view of the game: nothing can be entered here."), 403,
                            _("Read-only"))
