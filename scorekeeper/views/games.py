"""Games: the list, setup, the game page, entries, undo and corrections."""

from __future__ import annotations

import json

from flask import (Blueprint, Response, abort, flash, get_flashed_messages, make_response, redirect,
                   render_template, request, url_for)
from flask import session as flask_session
from flask_login import current_user, login_required
from sqlalchemy.exc import IntegrityError

from .. import forms
from ..db import get_session
from ..htmx import client_redirect, is_htmx
from ..i18n import gettext as _
from ..i18n import ngettext, translated
from ..models import Game, User
from ..rules import GAMES, find_game
from ..rules.base import Opening, RecordError
from ..rules.dice import same_entry
from ..rules.names import clean_name, name_key
from ..rules.record import ReplayError, check_players
from ..words import GAME_ALIASES, describe, describe_logged, describe_at, game_title, in_setup_words, shown_tag
from ..services import games as service
from ..services import groups, history, live, once, practice
from ..services.groups import current_group
from ..web import asked_mode, keep_sent_csrf_token, message_response, quick_owner
from .groups import form_group

bp = Blueprint("games", __name__, url_prefix="/games")
MAX_SEATS = 12
KNOWN_ON_SETUP = 24  # one-tap buttons for the players of the latest games


@login_required
def index():
    """The account's games, newest played first, filtered by game and player (see history.game_list)."""
    from .history import game_list

    return game_list()


def owned(game_id: int) -> Game:
    """The game ``game_id`` of one of the signed-in account's groups, else 404.

    Every route that takes a game id fetches it here (a test walks the URL map). A practice game
    set up by another account of the group is refused here too (:func:`refuse_others_practice`)."""
    game = groups.game_of_member(get_session(), current_user.id, game_id)
    if game is None:
        if is_htmx():  # the game's page still open after the account left its group, or was removed
            abort(left_the_group())
        if request.method != "GET":  # a plain form of it (a correction page): why nothing was saved
            abort(make_response(message_response(not_in_the_group_said(), 404, _("Not saved"))))
        abort(404)
    refuse_others_practice(game)
    return game


def not_in_the_group_said() -> str:
    """What a change sent from a page of a game no longer the account's is told."""
    return _("Nothing was saved: that game is no longer yours to see, as you are not in its group any more.")


def left_the_group() -> Response:
    """The answer to the game page's own requests (htmx: a poll, an entry, Undo) when the game is
    not one of the account's groups' any more: the home page, where a message says why (and, for
    a change, that nothing was saved), instead of "no such page" over a form that looks usable
    (a playtest). Any game id not the account's gets the same, which says nothing of whether it
    exists."""
    if request.method == "GET":  # a warning, not a "done" (a playtest: it was green as "Member removed.")
        flash(_("That game is no longer yours to see: you are not in its group any more."), "warning")
    else:
        flash(not_in_the_group_said(), "warning")
    return client_redirect(url_for("index"), 404)


def refuse_others_practice(game: Game) -> None:
    """Answer 403 with the reason (nothing changed) when ``game`` is a practice game another
    account of the group set up: only that account sees, plays, removes or restores it, its
    summary, log and record included (docs/practice.md)."""
    if game.practice and not practice.plays(game, current_user.id):
        starter = get_session().get(User, game.started_by)
        abort(make_response(message_response(
            _("This practice game is %(name)s's: only %(name)s sees and plays it, and nothing was changed. "
              "Start your own from “New game”.", name=starter.username), 403, _("Not allowed"))))


def scored(game_id: int) -> Game:
    """:func:`owned`, for the routes that score a game by hand (its page, an entry, undo, redo, a
    correction). A practice game is played on its practice page, its dice rolled on the server:
    its page leads there (a GET), and a change sent here is refused with nothing saved."""
    game = owned(game_id)
    if game.practice:
        if request.method == "GET":
            abort(redirect(url_for("practice.play", game_id=game.id), 303))
        abort(make_response(message_response(
            _("This is a practice game: it is played on its practice page, where the server rolls the "
              "dice. Nothing was saved."), 409, _("Not saved"))))
    return game


@bp.route("/new")
@login_required
def choose():
    """Pick which game to set up."""
    return render_template("games/choose.html", games=GAMES)


@bp.route("/new/<name>", methods=["GET", "POST"])
@login_required
def setup(name: str):
    """Set up a game: names in seat order, who starts, options. A German name typed in the URL
    (/games/new/mäxchen) leads to the game's own (/games/new/mia)."""
    try:
        spec = find_game(name)
    except RecordError:
        alias = GAME_ALIASES.get(name.lower())
        if alias and request.method == "GET":
            return redirect(url_for("games.setup", name=alias), 301)
        abort(404)
    max_seats = min(MAX_SEATS, spec.max_players or MAX_SEATS)
    sent = forms.posted_rows(request.form) if request.method == "POST" else 0
    if sent > max_seats:  # only a hand-made form
        return message_response(_("A game of %(game)s here has at most %(most)d seats; this form sent %(sent)d "
                                  "names. Nothing was saved.", game=game_title(spec.name), most=max_seats,
                                  sent=sent), 400)
    if request.method == "POST":
        seats = min(max(request.form.get("seats", 0, type=int), spec.min_players, 3), max_seats)
    else:
        seats = max(spec.min_players, 4 if spec.min_players >= 3 else 3)
    form = forms.setup_form(spec, seats, formdata=request.form if request.method == "POST" else None)
    group = form_group() if request.method == "POST" else current_group()
    error = focus = None
    action = request.form.get("action", "create")
    if request.method == "POST" and action != "create":
        # A seat button: answer with the same form, the seats rearranged.
        picked = None
        pick_id = forms.database_id(action[5:]) if action.startswith("pick-") else None
        if pick_id is not None:
            profile = history.get_player(get_session(), group.id, pick_id)
            picked = profile.name if profile else None
        typed = [name_key(n or "") for n in form.players.data or []]
        names, starter = forms.rearrange(form.players.data or [], request.form.get("starter", "0"), action,
                                         max_seats, picked)
        seat_note = None
        if picked and name_key(picked) in typed:  # typed in a seat already (its button was still shown)
            seat_note = _("%(name)s is already in seat %(seat)d.", name=picked,
                          seat=typed.index(name_key(picked)) + 1)
        elif picked and name_key(picked) not in {name_key(n) for n in names}:  # every seat named, no seat to add
            seat_note = _("%(name)s was not seated: all %(most)d seats have a name. Clear a seat's name, then "
                          "tap %(name)s again.", name=picked, most=max_seats)
        data = {k: v for k, v in form.data.items() if k not in ("players", "csrf_token", "starter")}
        form = forms.setup_form(spec, len(names), data={**data, "players": names, "starter": starter})
        forms.mark_gaps(form.players)
        # htmx (a seat button on the page) swaps the form alone: the page keeps its scroll
        template = "games/_setup_form.html" if is_htmx() else "games/setup.html"
        known = known_players()
        return render_template(template, spec=spec, form=form, error=None, known=known,
                               max_seats=max_seats, seat_note=seat_note,
                               refocus=_after_pick(known, pick_id, names) if picked else None)
    if request.method == "POST" and form.validate_on_submit():
        raw = [clean_name(n or "") for n in form.players.data]  # docs/game-record.md §Names
        names = [n for n in raw if n]
        session = get_session()
        try:
            token = once.token_from(request.form)
            # "Start the game" sent twice (a double tap, a resend): the second opens the first's game.
            earlier = once.find(session, token, "game", current_user.id)
            if earlier is not None:
                return redirect(url_for("games.play", game_id=earlier.target_id), 303)
            check_players(spec, names)
            entries = forms.starting_entries(raw, form.starter.data or "0")
            options = forms.form_options(spec, form)

            def make() -> int:
                game = service.create_game(session, group.id, spec.name, names, options, entries,
                                           entered_by=current_user.id)
                history.link_players(session, group.id, game)
                session.flush()
                return game.id

            for attempt in (1, 2):  # a second try if another phone made the same new player just now
                try:
                    outcome = once.create_once(session, "game", token, current_user.id, make)
                    break
                except IntegrityError:
                    if attempt == 2:
                        raise
        except once.BadToken as err:
            session.rollback()
            error = str(err)
        except (RecordError, ReplayError) as err:
            session.rollback()
            refusal = err.reason if isinstance(err, ReplayError) and err.entry is None else err
            error = translated(in_setup_words(spec, refusal))
            focus = _repeated_seat(raw) or _empty_seat(raw, spec)
        else:
            return redirect(url_for("games.play", game_id=outcome.target_id), 303)
    elif request.method == "POST":
        error = _("Check the fields marked below.")
        try:  # who starts, said with the fields' refusal (it came only at the next try)
            forms.starting_entries([clean_name(n or "") for n in form.players.data], form.starter.data or "0")
        except RecordError as err:
            error = f"{error} {translated(err)}"
    status = 400 if error else 200
    return render_template("games/setup.html", spec=spec, form=form, error=error, known=known_players(),
                           focus=focus, max_seats=max_seats), status


def _repeated_seat(names: list[str]) -> str | None:
    """The id of the first seat whose name reads the same as a seat's above it (docs/game-record.md
    §Names), for the refused form's focus; None if no name repeats."""
    seen = set()
    for i, name in enumerate(names):
        if name and name_key(name) in seen:
            return f"players-{i}"
        seen.add(name_key(name))
    return None


def _empty_seat(names: list[str], spec) -> str | None:
    """The id of the first seat without a name when fewer seats have one than the game needs
    (one name for Mitchi), for the refused form's focus: the seat to fill (the focus was on the
    page's body; a playtest with the keyboard only); None otherwise."""
    if sum(1 for name in names if name) >= spec.min_players:
        return None
    return next((f"players-{i}" for i, name in enumerate(names) if not name), None)


def _after_pick(known: list, pick_id: int, names: list[str]) -> str:
    """The id of the control that takes the focus once a known player is seated (the button
    tapped is gone from the form): the next known player still to seat, else the one before, else
    "Add a seat". It went to the page's body, and the keyboard started again at the top (a
    playtest). One not seated (every seat has a name) keeps it."""
    seated = {name_key(n) for n in names if n}
    left = [i for i, p in enumerate(known) if p.name_key not in seated]  # their buttons are shown
    at = next((i for i, p in enumerate(known) if p.id == pick_id), len(known))
    if at in left:
        return f"pick-{pick_id}"
    after = [i for i in left if i > at]
    chosen = after[0] if after else left[-1] if left else None  # else: every one left is before it
    return "add-seat" if chosen is None else f"pick-{known[chosen].id}"


def known_players() -> list:
    """The players of the account's latest games, for the setup form's one-tap buttons."""
    return history.known_players(get_session(), current_group().id, limit=KNOWN_ON_SETUP)


def render_game(loaded: service.Loaded, message: str | None = None, level: str = "info",
                status: int = 200, done: str | None = None, news: bool = False):
    """The game page, or only its panel for htmx. ``done``: what this phone's change did, said
    to screen readers only (:func:`_done`). ``news``: the answer brings a change (this phone's
    entry or Redo, another phone's change); the round news the panel shows is then new, unless
    the change was an undo, or an entry that changed the round the news tells of instead of
    ending one (Mia's reversal: ``ROUND_REVISING``). Otherwise (an undo, a refusal, a mode or a
    cup owner picked, a page opened) the news on screen is not new, and the page's live region
    leaves it out (``data-old-news``, static/app.js showOutcome)."""
    template = "games/_panel.html" if is_htmx() else "games/play.html"
    if request.method == "POST":  # an entry, undo, redo or correction let through with its token
        keep_sent_csrf_token()
    spec = find_game(loaded.game.game)
    if news:  # an entry clears Redo: then no undo to ask about
        last = loaded.recent[-1] if loaded.recent else None
        news = (not (type(last) is dict and last.get("type") in loaded.state.ROUND_REVISING)
                and (loaded.redo is None or not service.undid_last(get_session(), loaded)))
    return render_template(template, loaded=loaded, game=loaded.game, state=loaded.state, spec=spec,
                           message=message, level=level, rematch=_rematch_started(loaded), done=done,
                           news=news), status


def _done(loaded: service.Loaded, redone: bool = False) -> str | None:
    """What this phone's entry, undo or redo (``redone``) did, in words: "Recorded: Ann: 6-3 in
    2.", "Undone: Ann: 6-3 in 2.", "Put back: Ann: 6-3 in 2.". The panel holds it for screen
    readers, whose live region read only whose turn it is next, the same after an entry as after
    an undo (a playtest); the screen shows it in "Last entries" and on the Undo or Redo button."""
    if loaded.recent and redone:  # Redo may still offer an entry undone before this one
        return _("Put back: %(entry)s.", entry=describe_logged(loaded.recent[-1], loaded.state, loaded.recent))
    if loaded.redo:
        return _("Undone: %(entry)s.", entry=describe_at(loaded.redo, loaded.state))
    if loaded.recent:
        return _("Recorded: %(entry)s.", entry=describe_logged(loaded.recent[-1], loaded.state, loaded.recent))
    return None


def _rematch_started(loaded: service.Loaded) -> tuple[Game, str] | None:
    """A finished game's rematch made already (on this phone or another) and who started it
    ("you", or a name), for the page to lead there instead of offering a second one; else None."""
    if not loaded.state.finished or loaded.game.removed_at is not None:
        return None
    made = service.rematch_started(get_session(), loaded.game)
    if made is None:
        return None
    new, name = made
    if name == current_user.username:
        return new, _("You started a rematch.")
    if name:
        return new, _("%(name)s started a rematch.", name=name)
    return new, _("A rematch was started.")


@bp.route("/<int:game_id>")
@login_required
def play(game_id: int):
    """The game page: state at a glance and the entry form."""
    game = scored(game_id)
    # What the last change said ("Entry 2 corrected.") goes into the panel, so the next entry
    # replaces it instead of leaving it above the game while play goes on.
    flashed = get_flashed_messages(with_categories=True)
    said = " ".join(text for _category, text in flashed)
    level = "warning" if any(category == "warning" for category, _text in flashed) else "ok"
    session = get_session()
    loaded = service.load(session, game)
    dropped = _owner_not_kept(session, loaded)
    if dropped:
        said, level = f"{dropped} {said}".strip(), "warning"
    return render_game(loaded, said or None, level, news=bool(said))  # said: a change (a correction, …)


def _owner_not_kept(session, loaded: service.Loaded) -> str | None:
    """What a Mia quick entry's tap on a cup owner is told when the log moved on since its page
    (``?owner=…&at=…``, :func:`scorekeeper.web.quick_owner`, which then names the round's
    starter): that the pick was not kept, and what changed the game. The page came back with
    another owner picked and no word of it (a playtest). The owner tapped may be the one the
    page names now anyway (the new round's starter): then only that the game moved on. None for
    any other page."""
    owner, at = request.args.get("owner"), request.args.get("at")
    if owner is None or at is None or at == str(loaded.count) or loaded.game.game != "mia":
        return None
    if loaded.state.claim is None and owner == quick_owner(loaded.state, loaded.count):
        said = _("The game moved on before your tap (on another phone, or your page was older).")
    else:
        said = _("The game moved on before your tap (on another phone, or your page was older): %(owner)s was not "
                 "kept as the cup owner. Check who owns the cup now, then go on.", owner=owner)
    return f"{said} {_who_entered(session, loaded)}".strip()


def _after_change(game: Game, action, stale=None, redone: bool = False):
    """Run a change; answer with the panel (htmx) or redirect, or the refusal in place. ``stale``:
    what a stale page is told instead of "nothing was recorded" (an undo or a redo records none),
    or a function of the session and the game as loaded now that says it; ``redone``: the change
    is a Redo (:func:`_done`)."""
    session = get_session()
    try:
        loaded = action()
    except service.Stale as err:
        session.rollback()
        session.refresh(game)
        loaded = service.load(session, game)
        if game.removed_at is not None:  # what changed the game: its removal, not its last entry
            return render_game(loaded, _("Nothing was changed: this game was removed meanwhile (on another phone, "
                                         "or this page is older)."), "warning", 409)
        said = (stale(session, loaded) if callable(stale) else stale) or translated(err)
        return render_game(loaded, f"{said} {_who_entered(session, loaded)}".strip(), "warning", 409, news=True)
    except (service.Refused, forms.BadForm) as err:
        session.rollback()
        session.refresh(game)
        return render_game(service.load(session, game), translated(err), "error", 422)
    if is_htmx():
        answer = render_game(loaded, done=_done(loaded, redone), news=True)
    else:  # Mia's entry mode (quick or trail) is kept
        answer = redirect(url_for("games.play", game_id=game.id, mode=asked_mode()), 303)
    service.hand_back(loaded)  # done with it: the game's next entry here starts from its state
    return answer


def _who_entered(session, loaded: service.Loaded, news: bool = False) -> str:
    """"Last entry, by ben: Ann: 6-5 in 2." (or without the name when not known; "by you" when
    it is the account's own, entered on this phone or another); after a correction
    "Last change, by ben: entry 3 corrected to “Ben: 6-4 in 1”."; after an undo
    (the entry Redo would put back: any other change forgets it) "Last change, by ann: “Ben: 4-2
    in 1” was undone.", as the last entry is then not what changed; after a Redo "Last change, by
    ann: “Ben: 4-2 in 1” was put back with Redo.". The entry is quoted there, as its line may be a
    sentence ("“Ben reverses the direction of play” was undone."). With ``news`` (a poll brought
    it), headed "The game moved on." after an entry, "The game changed." after an undo or a
    correction (it moved nothing on)."""
    moved, changed = (_("The game moved on."), _("The game changed.")) if news else ("", "")
    me = current_user.username  # "by you": a phone whose own answer was lost is told of its own entry
    if service.undid_last(session, loaded):
        name = service.undone_by(session, loaded)
        undone = describe_at(loaded.redo, loaded.state)
        if name == me:
            said = _("Last change, by you: “%(entry)s” was undone.", entry=undone)
        elif name:
            said = _("Last change, by %(name)s: “%(entry)s” was undone.", name=name, entry=undone)
        else:
            said = _("Last change: “%(entry)s” was undone.", entry=undone)
        return f"{changed} {said}".strip()
    last = service.last_entry(session, loaded)
    if last is None:
        return changed
    entry, name, corrected, redone = last
    # the log's last entry, or the one a correction replaced (as "Last entries" says it)
    line = describe_logged(entry, loaded.state, loaded.recent, loaded.count - corrected if corrected else 0)
    if redone and name == me:
        said = _("Last change, by you: “%(entry)s” was put back with Redo.", entry=line)
    elif redone and name:
        said = _("Last change, by %(name)s: “%(entry)s” was put back with Redo.", name=name, entry=line)
    elif redone:
        said = _("Last change: “%(entry)s” was put back with Redo.", entry=line)
    elif corrected and name == me:
        said = _("Last change, by you: entry %(seq)s corrected to “%(entry)s”.", seq=corrected,
                 entry=line)
    elif corrected and name:
        said = _("Last change, by %(name)s: entry %(seq)s corrected to “%(entry)s”.", name=name, seq=corrected,
                 entry=line)
    elif corrected:
        said = _("Last change: entry %(seq)s corrected to “%(entry)s”.", seq=corrected, entry=line)
    elif name == me:
        said = _("Last entry, by you: %(entry)s.", entry=line)
    elif name:
        said = _("Last entry, by %(name)s: %(entry)s.", name=name, entry=line)
    else:
        said = _("Last entry: %(entry)s.", entry=line)
    return f"{changed if corrected or redone else moved} {said}".strip()


@bp.route("/<int:game_id>/poll")
@login_required
def poll(game_id: int):
    """The panel again when the game moved on (another scorer's entry, undo or correction), else
    204 with no body; only the game's version is read when nothing changed."""
    seen = groups.version_of_member(get_session(), current_user.id, game_id)
    if seen is not None and seen == (live.asked_version(request.args.get("v")), groups.current_group_id()):
        return Response(status=204)
    game = owned(game_id)  # removed from the group while the page was open: it says so, and leaves
    if game.version == live.asked_version(request.args.get("v")):
        return Response(status=204)
    if game.practice:  # played on its practice page, as its game page leads there (a review: the
        # scorer's panel, with its dice pads, came back to a typed address)
        to = url_for("practice.play", game_id=game.id)
        return client_redirect(to) if is_htmx() else redirect(to, 303)
    session = get_session()
    loaded = service.load(session, game)
    if game.removed_at is not None:  # removed on another phone: the panel says so, and nothing moved on
        return render_game(loaded)
    if loaded.state.finished and service.rematch_started(session, game) is not None:
        return render_game(loaded)  # a rematch claimed the version: the panel leads to it, no entry moved
    return render_game(loaded, _who_entered(session, loaded, news=True), "info", news=True)


@bp.route("/<int:game_id>/entries", methods=["POST"])
@login_required
def add_entry(game_id: int):
    """Record one entry (one request per entry)."""
    game = scored(game_id)

    def action():
        version = forms.form_version(request.form)
        entry = forms.entry_from_form(request.form)
        return service.add_entry(get_session(), game, entry, version, entered_by=current_user.id)

    return _after_change(game, action)


@bp.route("/<int:game_id>/undo", methods=["POST"])
@login_required
def undo(game_id: int):
    """Take back the last entry (kept in the history)."""
    game = scored(game_id)
    return _after_change(game, lambda: service.undo(get_session(), game, forms.form_version(request.form),
                                                    current_user.id),
                         _stale_undo)


def nothing_undone() -> str:
    """What a stale Undo is told (an undo records nothing: "nothing was recorded" would be wrong)."""
    return _("The game changed since this page was shown (another phone, or an older page); nothing was undone. "
             "Here is the game as it stands now.")


def _repeated(loaded: service.Loaded) -> bool:
    """Whether the form was made for the version just before the game's: the one change since may
    be this very tap's first send (a double tap, or an answer lost on the way)."""
    sent = forms.form_version(request.form)
    return sent is not None and sent == loaded.game.version - 1


def _stale_undo(session, loaded: service.Loaded) -> str:
    """A stale Undo's answer: when the one change since its page is an undo by this account, the
    tap's first send did it (its answer was lost, or a double tap): it counts once. Else
    :func:`nothing_undone`. "…nothing was undone. Last change, by you: … was undone." read as a
    contradiction (a playtest)."""
    if _repeated(loaded) and service.undid_last(session, loaded) and \
            service.undone_by(session, loaded) == current_user.username:
        return _("That Undo was already done (a double tap, its answer lost on the way, or another phone of "
                 "this account); it counts once. Here is the game as it stands now.")
    return nothing_undone()


def _stale_redo(session, loaded: service.Loaded) -> str:
    """A stale Redo's answer, as :func:`_stale_undo`'s: "already done" when the one change since
    its page is this account's Redo."""
    last = None if not _repeated(loaded) or service.undid_last(session, loaded) else service.last_entry(session, loaded)
    if last is not None and last[3] and last[1] == current_user.username:
        return _("That Redo was already done (a double tap, its answer lost on the way, or another phone of "
                 "this account); it counts once. Here is the game as it stands now.")
    return _("The game changed since this page was shown (another phone, or an older page); nothing was put "
             "back. Here is the game as it stands now.")


@bp.route("/<int:game_id>/redo", methods=["POST"])
@login_required
def redo(game_id: int):
    """Put back the entry the last undo took back (nothing entered since)."""
    game = scored(game_id)
    return _after_change(game, lambda: service.redo(get_session(), game, forms.form_version(request.form),
                                                    current_user.id), _stale_redo, redone=True)


@bp.route("/<int:game_id>/rematch", methods=["POST"])
@login_required
def rematch(game_id: int):
    """One tap: a new game with the same players, seat order and options."""
    game = owned(game_id)
    session = get_session()
    try:
        new = service.rematch(session, game, forms.form_version(request.form), entered_by=current_user.id)
        history.link_players(session, current_group().id, new)
        session.commit()
    except service.Stale as err:
        session.rollback()
        new = service.latest_rematch(session, game)
        if new is None:  # the game moved on (an undo on another phone): its page, as it is now
            flash(f"{translated(err)} {_who_entered(session, service.load(session, game))}".strip(), "warning")
            return redirect(url_for("games.play", game_id=game.id), 303)
        if err.repeated:  # made before an undo reopened the game, and never played
            flash(_("This game's rematch, started before, was never played: here it is, not a second one."))
        else:
            flash(_("The rematch was already started (a double tap, or another phone); this is its game."))
    except (service.Refused, forms.BadForm) as err:
        session.rollback()
        flash(translated(err), "warning")
        return redirect(url_for("games.play", game_id=game.id), 303)
    return redirect(url_for("games.play", game_id=new.id), 303)


@bp.route("/<int:game_id>/remove", methods=["GET", "POST"])
@login_required
def remove(game_id: int):
    """Remove a game (a test game, a mistake): asks first; restorable for 30 days from Account."""
    game = owned(game_id)
    session = get_session()
    if request.method == "POST":
        service.remove_game(session, game)
        flash(ngettext("Game removed. Restore it from Account within %(num)d day; "
                       "its entries are kept until then.",
                       "Game removed. Restore it from Account within %(num)d days; "
                       "its entries are kept until then.", service.RESTORE_DAYS))
        return redirect(url_for("index"), 303)
    if game.removed_at is not None:  # already removed: its page says so and offers Restore
        return redirect(url_for("games.play", game_id=game.id), 303)
    return render_template("games/remove.html", game=game, players=json.loads(game.players),
                           spec=find_game(game.game), days=service.RESTORE_DAYS)


@bp.route("/<int:game_id>/restore", methods=["POST"])
@login_required
def restore(game_id: int):
    """Put a removed game back in the lists and stats."""
    game = owned(game_id)
    service.restore_game(get_session(), game)
    flash(_("Game restored."))
    return redirect(url_for("games.play", game_id=game.id), 303)


@bp.route("/<int:game_id>/entries/<int:seq>", methods=["GET", "POST"])
@login_required
def correct(game_id: int, seq: int):
    """Correct an earlier entry; the rest of the log is replayed."""
    game = scored(game_id)
    session = get_session()
    if request.method == "GET" and game.removed_at is not None:  # read-only: its page offers Restore
        return redirect(url_for("games.play", game_id=game.id), 303)
    error, status, new, unchanged = None, 200, None, False
    if request.method == "POST":
        try:
            token = once.token_from(request.form)
            done = once.find(session, token, service.CORRECTION, current_user.id) is not None
        except once.BadToken as err:
            return message_response(str(err), 400)
        try:
            if not done:
                new = forms.entry_from_form(request.form)
                version = forms.form_version(request.form)
                # Sent unchanged: not written, not listed as a correction; back to the game all the same.
                # The same entry with its dice in another order is the same entry (the rules say).
                unchanged = version == game.version and same_entry(new, service.entry_at(session, game, seq))
                if not unchanged:
                    service.correct(session, game, seq, new, version, entered_by=current_user.id,
                                    once_token=token)
        except service.Stale as err:
            session.rollback()
            try:  # taken by this same form's first sending (a double tap): done, not stale
                done = once.find(session, token, service.CORRECTION, current_user.id) is not None
            except once.BadToken:
                done = False
            if not done:
                error, status = translated(err), 409
        except (service.Refused, forms.BadForm) as err:
            error, status = translated(err), 422
        if error is None:  # done, or done by the first of two taps: the same answer, said once
            said = (_("Entry %(seq)s is already %(entry)s: nothing was changed.", seq=seq, entry=describe(new))
                    if unchanged else _("Entry %(seq)s corrected.", seq=seq))
            if said not in (text for _category, text in flask_session.get("_flashes", ())):
                flash(said)
            # back in the mode the correction was made in (Mia's quick entry stays quick)
            mode = "quick" if request.form.get("mode") == "quick" else None
            return redirect(url_for("games.play", game_id=game.id, mode=mode), 303)
        session.rollback()
        session.refresh(game)
    loaded = service.load(session, game)
    last = _who_entered(session, loaded) if status == 409 else ""  # what the game now ends with
    if not 1 <= seq <= len(loaded.entries):
        # The entry went away meanwhile (undone on another phone): say so on the game page.
        if error is None:
            if request.method != "GET" or not (seq >= 1 and service.was_entered(session, game, seq)):
                abort(404)
            # its "correct" link, followed from a page shown before the undo
            error, status = _("Entry %(seq)s is no longer in the game: it was undone (on another phone, or "
                              "this page is older), so there is nothing to correct. Here is the game as it "
                              "stands now.", seq=seq), 410
            last = _who_entered(session, loaded)
        elif status == 409:
            # Said on the game page at its own address, as after a correction (a review: the refusal
            # stayed at this form's address, whose reload offered to send the form again).
            flash(" ".join((_("Entry %(seq)s is no longer in the game (undone on another phone, or an older "
                              "page); nothing was corrected. Here is the game as it stands now.", seq=seq),
                            last)).strip(), "warning")
            mode = "quick" if request.form.get("mode") == "quick" else None
            return redirect(url_for("games.play", game_id=game.id, mode=mode), 303)
        return render_game(loaded, f"{error} {last}".strip(), "warning", status, news=status == 409)
    if status == 409:  # the answer is this correction page again, not the game's
        error = _("The game changed since this correction page was shown (another phone, or an older page); "
                  "nothing was corrected. Below is entry %(seq)s as it stands now: correct it again if it still "
                  "needs it.", seq=seq)
    if last:
        error = f"{error} {last}"
    current = loaded.log[seq - 1]
    # A "correct" link names the entry its page showed (``was``, words.shown_tag): another phone
    # may have undone it and entered another at its place, or corrected it, meanwhile.
    changed = None
    was = request.args.get("was")
    if request.method == "GET" and was is not None and was != shown_tag(describe(current)):
        changed = _("Entry %(seq)s is no longer the one your page showed: it was undone and entered again, or "
                    "corrected, on another phone (or your page is older). Check it before you correct it.",
                    seq=seq)
    # The controls of the entry form as they were before entry ``seq``, pre-set to the entry
    # (or to the refused correction, to fix and send again).
    shown = new if new is not None else current
    before = service.replay(game, loaded.log[: seq - 1])
    return render_template("games/correct.html", loaded=loaded, game=game, seq=seq, current=current,
                           tried=new, error=error, state=before, spec=find_game(game.game),
                           entry_url=url_for("games.correct", game_id=game.id, seq=seq),
                           entry_mode="quick" if "owner" in current else "trail",
                           prefill=forms.prefill(shown), message=error, changed=changed), status


@bp.route("/<int:game_id>/log")
@login_required
def log(game_id: int):
    """The whole log, with what was undone or corrected: a heading per round, and one of their own
    for the entries that name who starts (a ``start``, a roll-off's ``startroll``s), which come
    before round 1's first (round 0 here; they were listed under "Round 1"). A roll of a round's
    second tie-break or later names it ("Ann: tie-break 2 roll 5-3"): a tie again read as the
    same roll entered twice (a playtest), and so does an undone or corrected one, as it was
    named when it was entered (:func:`~scorekeeper.services.games.tie_breaks_as_made`)."""
    game = owned(game_id)
    session = get_session()
    loaded = service.load(session, game)
    places, under_way = service.log_places(game, loaded.log)
    rounds = [number for number, _ in places]
    for i, entry in enumerate(loaded.log):
        if entry.get("type") not in Opening.TYPES:
            break
        rounds[i] = 0
    history = service.changes(session, game)
    return render_template("games/log.html", loaded=loaded, game=game, rounds=rounds,
                           tie_breaks=[tie_break for _, tie_break in places], history=history,
                           made=service.tie_breaks_as_made(game, loaded.entries, history, under_way),
                           loads=json.loads)
