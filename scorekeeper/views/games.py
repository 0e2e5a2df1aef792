"""Games: the list, setup, the game page, entries, undo and corrections."""

from __future__ import annotations

import json

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from .. import forms
from ..db import get_session
from ..htmx import is_htmx
from ..models import Game
from ..rules import GAMES, find_game
from ..rules.base import RecordError
from ..rules.record import ReplayError, check_players
from ..services import games as service
from ..services import history
from ..web import message_response

bp = Blueprint("games", __name__, url_prefix="/games")
MAX_SEATS = 12


@login_required
def index():
    """The account's games, newest played first, filtered by game and player (see history.game_list)."""
    from .history import game_list

    return game_list()


def owned(game_id: int) -> Game:
    game = service.get_game(get_session(), current_user.id, game_id)
    if game is None:
        abort(404)
    return game


@bp.route("/new")
@login_required
def choose():
    """Pick which game to set up."""
    return render_template("games/choose.html", games=GAMES)


@bp.route("/new/<name>", methods=["GET", "POST"])
@login_required
def setup(name: str):
    """Set up a game: names in seat order, who starts, options."""
    try:
        spec = find_game(name)
    except RecordError:
        abort(404)
    seats = min(max(int(request.form.get("seats", 0) or 0), spec.min_players, 3), MAX_SEATS) \
        if request.method == "POST" else max(spec.min_players, 4 if spec.min_players >= 3 else 3)
    form = forms.setup_form(spec, seats, formdata=request.form if request.method == "POST" else None)
    error = None
    action = request.form.get("action", "create")
    if request.method == "POST" and action != "create" and form.players.data is not None:
        # Rearranging the seats: answer with the same form, names moved.
        names = list(form.players.data)
        starter = request.form.get("starter", "0")
        if action == "add" and len(names) < MAX_SEATS:
            names.append("")
        elif action.startswith("pick-") and action[5:].isdigit():
            # A known player's button: their name goes in the next empty seat.
            profile = history.get_player(get_session(), current_user.id, int(action[5:]))
            seated = {(n or "").strip().casefold() for n in names}
            if profile is not None and profile.name_key not in seated:
                empty = next((i for i, n in enumerate(names) if not (n or "").strip()), None)
                if empty is not None:
                    names[empty] = profile.name
                elif len(names) < min(MAX_SEATS, spec.max_players or MAX_SEATS):
                    names.append(profile.name)
        elif action.startswith(("up-", "down-")):
            i = int(action.split("-")[1]) if action.split("-")[1].isdigit() else -1
            j = i - 1 if action.startswith("up-") else i + 1
            if 0 <= i < len(names) and 0 <= j < len(names):
                names[i], names[j] = names[j], names[i]
                if starter == str(i):
                    starter = str(j)
                elif starter == str(j):
                    starter = str(i)
        data = {k: v for k, v in form.data.items() if k not in ("players", "csrf_token", "starter")}
        form = forms.setup_form(spec, len(names), data={**data, "players": names, "starter": starter})
        return render_template("games/setup.html", spec=spec, form=form, error=None, known=known_players())
    if request.method == "POST" and form.validate_on_submit():
        raw = [(n or "").strip() for n in form.players.data]
        starter = form.starter.data or "0"
        names = [n for n in raw if n]
        try:
            check_players(spec, names)
            options = forms.form_options(spec, form)
            entries = []
            if starter != forms.ROLLOFF:
                idx = int(starter) if starter.isdigit() else -1
                if not 0 <= idx < len(raw) or not raw[idx]:
                    raise RecordError("choose who starts: tick “starts” beside a name, or roll for it")
                entries.append({"type": "start", "player": raw[idx]})
            game = service.create_game(get_session(), current_user.id, spec.name, names, options, entries)
            history.link_players(get_session(), current_user.id, game)
        except (RecordError, ReplayError) as err:
            error = str(err).removeprefix("record: ")
        else:
            return redirect(url_for("games.play", game_id=game.id), 303)
    elif request.method == "POST":
        error = "Check the fields marked below."
    status = 400 if error else 200
    return render_template("games/setup.html", spec=spec, form=form, error=error, known=known_players()), status


def known_players() -> list:
    """The account's player profiles, for the setup form's one-tap buttons."""
    return history.known_players(get_session(), current_user.id)


def render_game(loaded: service.Loaded, message: str | None = None, level: str = "info",
                status: int = 200, took: dict | None = None):
    """The game page, or only its panel for htmx."""
    template = "games/_panel.html" if is_htmx() else "games/play.html"
    spec = find_game(loaded.game.game)
    return render_template(template, loaded=loaded, game=loaded.game, state=loaded.state, spec=spec,
                           message=message, level=level), status


@bp.route("/<int:game_id>")
@login_required
def play(game_id: int):
    """The game page: state at a glance and the entry form."""
    game = owned(game_id)
    return render_game(service.load(get_session(), game))


def _after_change(game: Game, action):
    """Run a change; answer with the panel (htmx) or redirect, or the refusal in place."""
    session = get_session()
    try:
        loaded = action()
    except service.Stale as err:
        session.rollback()
        session.refresh(game)
        return render_game(service.load(session, game), str(err), "warning", 409)
    except (service.Refused, forms.BadForm) as err:
        session.rollback()
        session.refresh(game)
        return render_game(service.load(session, game), str(err), "error", 422)
    if is_htmx():
        return render_game(loaded)
    mode = request.form.get("mode") or None  # Mia's entry mode (quick or trail) is kept
    return redirect(url_for("games.play", game_id=game.id, mode=mode), 303)


@bp.route("/<int:game_id>/entries", methods=["POST"])
@login_required
def add_entry(game_id: int):
    """Record one entry (one request per entry)."""
    game = owned(game_id)
    version = forms.form_version(request.form)

    def action():
        entry = forms.entry_from_form(request.form)
        return service.add_entry(get_session(), game, entry, version)

    return _after_change(game, action)


@bp.route("/<int:game_id>/undo", methods=["POST"])
@login_required
def undo(game_id: int):
    """Take back the last entry (kept in the history)."""
    game = owned(game_id)
    version = forms.form_version(request.form)
    return _after_change(game, lambda: service.undo(get_session(), game, version))


@bp.route("/<int:game_id>/entries/<int:seq>", methods=["GET", "POST"])
@login_required
def correct(game_id: int, seq: int):
    """Correct an earlier entry; the rest of the log is replayed."""
    game = owned(game_id)
    session = get_session()
    loaded = service.load(session, game)
    if not 1 <= seq <= len(loaded.entries):
        abort(404)
    entry = loaded.log[seq - 1]
    error = None
    if request.method == "POST":
        version = forms.form_version(request.form)
        try:
            new = forms.entry_from_form(request.form)
            service.correct(session, game, seq, new, version)
        except (service.Refused, service.Stale, forms.BadForm) as err:
            session.rollback()
            session.refresh(game)
            loaded = service.load(session, game)
            error = str(err)
            if seq <= len(loaded.log):
                entry = loaded.log[seq - 1]
        else:
            flash(f"Entry {seq} corrected.")
            return redirect(url_for("games.play", game_id=game.id), 303)
    return render_template("games/correct.html", loaded=loaded, game=game, seq=seq, entry=entry,
                           error=error), 422 if error else 200


@bp.route("/<int:game_id>/log")
@login_required
def log(game_id: int):
    """The whole log, with what was undone or corrected."""
    game = owned(game_id)
    session = get_session()
    loaded = service.load(session, game)
    return render_template("games/log.html", loaded=loaded, game=game,
                           history=service.history(session, game), loads=json.loads)
