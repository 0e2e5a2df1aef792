"""Practice games against three virtual players: set up, play, the strategies page."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from .. import forms
from ..db import get_session
from ..htmx import is_htmx
from ..i18n import translated
from ..rules import GAMES, find_game
from ..rules.base import N_, RecordError
from ..rules.record import ReplayError
from ..services import games as service
from ..services import once, practice
from ..services.groups import current_group
from ..services.history import mia_words
from .games import owned
from .groups import form_group

bp = Blueprint("practice", __name__, url_prefix="/practice")


def _seed():
    return current_app.config.get("PRACTICE_SEED")


def practice_game(game_id: int):
    """A practice game of the signed-in account: 404 for any other game of its groups (and for
    any game of another group), 403 with the reason for another member's practice game
    (:func:`.games.owned`)."""
    game = owned(game_id)
    if not game.practice:
        abort(404)
    return game


@bp.route("/new/<name>", methods=["GET", "POST"])
@login_required
def new(name: str):
    """Set up a practice game: your name and the point limit (default 5)."""
    if name not in practice.GAMES:
        abort(404)
    spec = find_game(name)
    form = forms.PRACTICE_FORMS[name]()
    if request.method != "POST":
        # The account's name, not "You": the game's own sentences name the player ("ann starts",
        # never "You starts"); the person may type another name.
        form.player.data = current_user.username
    error = None
    if form.validate_on_submit():
        session = get_session()
        group_id = form_group().id

        def make() -> int:
            return practice.create(session, group_id, spec.name, form.player.data,
                                   {form.option.name: form.option.data}, _seed(),
                                   entered_by=current_user.id).id

        try:  # "Start" sent twice (a double tap, a resend): the second opens the first's game
            outcome = once.create_once(session, "practice", once.token_from(request.form),
                                       current_user.id, make)
        except once.BadToken as err:
            session.rollback()
            error = str(err)
        except (RecordError, ReplayError, service.Refused) as err:
            session.rollback()
            error = translated(err.reason if isinstance(err, ReplayError) and err.entry is None else err)
        else:
            return redirect(url_for("practice.play", game_id=outcome.target_id), 303)
    elif request.method == "POST":
        error = _("Check the fields marked below.")
    virtual = practice.seats_for(form.player.data or current_user.username)[1:]
    going = practice.under_way(get_session(), current_group().id, current_user.id, spec.name)
    return render_template("practice/new.html", spec=spec, form=form, error=error, virtual=virtual,
                           under_way=going), 400 if error else 200


def render(loaded: service.Loaded, message: str | None = None, level: str = "info", status: int = 200):
    """The practice page, or only its panel for htmx."""
    template = "practice/_panel.html" if is_htmx() else "practice/play.html"
    game, state = loaded.game, loaded.state
    me = practice.person(game)
    extra = {}
    if game.game == "mia":
        extra = {"value_words": lambda v: mia_words(v, state.order),  # "Mia" is "Mäxchen" in German
                 "rolled": practice.pending_cup(loaded),
                 "my_cup": practice.cup_of(loaded.log) if state.last_roller == me else None}
    elif game.game == "mice-and-men" and not state.finished:
        extra = {"my_dice": practice.mm_dice(game, state.round_number, me)}
    # The last move's rolls come one after another only in the answer that changed the game; a roll
    # of the person's own turn (the version unchanged) or a reload shows them at once.
    fresh = request.method == "POST" and request.form.get("version") != str(game.version)
    return render_template(template, loaded=loaded, game=game, state=state, spec=GAMES[game.game], me=me,
                           fresh=fresh, to_act=practice.to_act(state), turn=practice.pending_turn(loaded),
                           may_undo=practice.may_undo(loaded),
                           message=message, level=level, **extra), status


@bp.route("/<int:game_id>")
@login_required
def play(game_id: int):
    """The practice page: your dice and choices, or the next virtual player's turn."""
    game = practice_game(game_id)
    return render(service.load(get_session(), game))


def _stale(err: service.Stale) -> str:
    """What a practice page behind its game is told. Nobody else plays a practice game, so not
    "another phone" as on a table's game: its own tap before this one arrived (its answer lost,
    or a double tap), or another tab of the account's moved it on (a playtest)."""
    if err.repeated:
        return _("That move was already recorded (a double tap, or its answer was lost on the way); it counts "
                 "once. Here is the game as it stands now.")
    return _("The game changed since this page was shown (your tap before this one did arrive, or another tab "
             "moved it on); nothing was recorded. Here is the game as it stands now.")


def _change(game, action, stale: str | None = None):
    """Run a change and answer with the page; ``stale``: what a stale page is told instead of
    :func:`_stale`'s words (an undo records nothing)."""
    session = get_session()
    try:
        loaded = action()
    except service.Stale as err:
        session.rollback()
        session.refresh(game)
        return render(service.load(session, game), stale or _stale(err), "warning", 409)
    except (service.Refused, forms.BadForm) as err:
        session.rollback()
        session.refresh(game)
        return render(service.load(session, game), translated(err), "error", 422)
    if is_htmx():
        session.refresh(loaded.game)
        return render(service.load(session, loaded.game))
    return redirect(url_for("practice.play", game_id=game.id), 303)


def _version() -> int:
    """The game version the form was made for; raises :class:`~scorekeeper.forms.BadForm` (a
    422 from :func:`_change`) without a valid one, as on any game (``forms.form_version``)."""
    return forms.form_version(request.form)


def _int(name: str) -> int | None:
    """The form's whole number ``name``, or None when it is not sent or blank; any other text
    raises :class:`~scorekeeper.forms.BadForm` (a 422 from :func:`_change`) saying what was sent,
    as an entry's numbers are read (``forms.whole_number``): "abc" is not a missing value."""
    raw = request.form.get(name, "")
    return forms.whole_number(raw, name) if raw.strip() else None


@bp.route("/<int:game_id>/roll", methods=["POST"])
@login_required
def roll(game_id: int):
    """Your move. Mitchi: Roll, keep one die and re-roll the other, re-roll both, or stop.
    Mia: roll under the cup, announce, pass or challenge. Mice and Men: announce, join, run."""
    game = practice_game(game_id)
    session = get_session()
    if game.game == "mia":
        return _change(game, lambda: practice.mia_move(session, game, request.form.get("action", ""),
                                                       _int("value"), _version(), _seed()))
    if game.game == "mice-and-men":
        return _change(game, lambda: practice.mm_move(session, game, request.form.get("action", ""),
                                                      _int("penalty"), _version()))
    action = "keep" if "keep" in request.form else request.form.get("action", "")
    return _change(game, lambda: practice.roll(session, game, action, _int("keep"), _version(), _int("step"),
                                                _seed()))


@bp.route("/<int:game_id>/next", methods=["POST"])
@login_required
def next_move(game_id: int):
    """The next virtual player's turn (or tie-break roll)."""
    game = practice_game(game_id)
    return _change(game, lambda: practice.advance(get_session(), game, _version(), _seed()))


@bp.route("/<int:game_id>/undo", methods=["POST"])
@login_required
def undo(game_id: int):
    """Take back the last entry (kept in the history), as on any game; not while the person's
    roll is in progress (it would drop the dice rolled: a way to roll again), as the page offers
    no Undo then."""
    game = practice_game(game_id)

    def action():
        version = _version()  # read once, as every move reads it (a bad one: 422, said so)
        if version == game.version and practice.roll_in_progress(service.load(get_session(), game)):
            raise service.Refused(N_("Finish your roll first (stop, or announce): Undo then takes it back."))
        return service.undo(get_session(), game, version, current_user.id)

    return _change(game, action, _("The game changed since this page was shown (your tap before this one did "
                                   "arrive, or another tab moved it on); nothing was undone. Here is the game "
                                   "as it stands now."))


@bp.route("/strategies")
def strategies():
    """How the virtual players decide, in plain words (public)."""
    return render_template("practice/strategies.html")
