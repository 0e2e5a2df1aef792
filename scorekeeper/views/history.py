"""Past games: the list, a game's summary and chart, player stats, CSV, export/import, settings."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import format_decimal, format_percent, ngettext
from flask_babel import gettext as _
from flask_login import current_user, login_required
from werkzeug.utils import secure_filename

from .. import forms
from ..db import get_engine, get_session
from ..models import Group
from ..rules import GAMES
from ..services import history as hist
from ..services.games import RESTORE_DAYS
from ..services.groups import current_group
from ..services import groups, practice, transfer
from ..web import limiter, message_response
from ..words import game_title
from .games import owned
from .groups import form_group

bp = Blueprint("history", __name__)


def _tz() -> str:
    return current_group().timezone or "UTC"


@bp.app_template_filter("when")
def _when_filter(moment: datetime) -> str:
    """``{{ game.played_at|when }}``: the time in the signed-in group's zone."""
    tz = current_group().timezone if current_user.is_authenticated else "UTC"
    return hist.when(moment, tz or "UTC")


@bp.app_template_filter("num")
def _num(value) -> str:
    """A figure for people, in the request's language: 0 stays "0", None is "–" (no finished
    game yet), 2.50 is "2.5" (German "2,5"); at most two decimals, no thousands separator."""
    if value is None:
        return "–"
    return format_decimal(value, "0.##")


@bp.app_template_filter("percent")
def _percent(value: float | None) -> str:
    """A rate 0..1 as a whole percentage in the request's language ("67%", German "67 %");
    None is "–" (no finished game yet)."""
    if value is None:
        return "–"
    return format_percent(value)


#: Practice games listed a page (under the games, paged apart from them)
PRACTICE_PER_PAGE = 5


@bp.route("/history")
@login_required
def game_list():
    """The account's games, newest played first; filter by game and by player; paginated."""
    session = get_session()
    page = min(max(request.args.get("page", 1, type=int), 1), 10**6)
    per_page = current_app.config.get("GAMES_PER_PAGE", 20)
    game_filter = request.args.get("game") if request.args.get("game") in GAMES else None
    player = None
    if request.args.get("player"):
        player_id = request.args.get("player", type=int)
        if player_id is None or not 0 < player_id < 2**31:
            abort(404)
        player = hist.get_player(session, current_group().id, player_id)
        if player is None:
            abort(404)
    rows, total = hist.list_games(session, current_group().id, game_filter, player.id if player else None,
                                  page, per_page)
    pages = max((total + per_page - 1) // per_page, 1)
    # the same filters: "/?game=mia" listed the Mitchi practice games too (found by a review)
    # five a page, paged on their own (``practice_page``): "the latest 5 of 6" had no way to the 6th
    practice_page = min(max(request.args.get("practice_page", 1, type=int), 1), 10**6)
    practice_rows, practice_total = hist.list_games(session, current_group().id, game_filter,
                                                    player.id if player else None, practice_page, PRACTICE_PER_PAGE,
                                                    practice_of=current_user.id)
    return render_template("games/index.html", games=rows, practice_games=practice_rows,
                           practice_total=practice_total, practice_page=practice_page,
                           practice_pages=max((practice_total + PRACTICE_PER_PAGE - 1) // PRACTICE_PER_PAGE, 1),
                           games_registry=GAMES, page=page, pages=pages,
                           total=total, game_filter=game_filter, player=player,
                           players=hist.known_players(session, current_group().id), loads=json.loads,
                           tz=_tz())


@bp.route("/games/<int:game_id>/summary")
@login_required
def summary(game_id: int):
    """Final standings, highlights, the chart and the round-by-round log of one game."""
    game = owned(game_id)
    session = get_session()
    result = hist.summaries(session, [game])[game.id]  # at most one replay, kept by game version
    view = hist.game_summary(game, result)
    spec = GAMES[game.game]
    players = json.loads(game.players)
    chart = None
    if view.log:  # the chart inside the page, so a page kept for offline use has it too
        series = hist.score_series(game.game, players, json.loads(game.options), result)
        chart = hist.chart_data_uri(hist.chart_svg(game.game, series))
    return render_template("history/summary.html", s=view, game=game, spec=spec, words=hist.score_words(game.game),
                           lowest=spec.lowest_wins, tz=_tz(), chart=chart, legend=hist.chart_legend(players),
                           chart_height=hist.chart_height(len(players)),
                           plays=not game.practice or practice.plays(game, current_user.id))


@bp.route("/games/<int:game_id>/chart.svg")
@login_required
def chart(game_id: int):
    """Each player's score (or lives) after every round, as an SVG image (no script)."""
    game = owned(game_id)
    session = get_session()
    # The chart's titles are in the reader's language: a language switch is a new image; and a
    # new way of drawing it (hist.CHART_DRAWING) is one too, or a finished game's chart stays the
    # old drawing in the browser's cache for ever (its round numbers once read "…").
    etag = (f"chart-{game.id}-{game.version}-{int(game.created_at.timestamp())}-{hist.request_language()}"
            f"-d{hist.CHART_DRAWING}")
    if request.if_none_match.contains(etag):
        return Response(status=304, headers={"ETag": f'"{etag}"'})
    result = hist.summaries(session, [game])[game.id]
    series = hist.score_series(game.game, json.loads(game.players), json.loads(game.options), result)
    body = hist.chart_svg(game.game, series)
    response = Response(body, mimetype="image/svg+xml")
    response.set_etag(etag)
    response.headers["Cache-Control"] = "private, no-cache"
    # The SVG carries pygal's own <style>; it runs no script and loads nothing.
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response


@bp.route("/games/<int:game_id>.csv")
@login_required
def game_csv(game_id: int):
    """The game as CSV: one row per player per round."""
    game = owned(game_id)
    session = get_session()
    result = hist.summaries(session, [game])[game.id]
    body = hist.write_csv(hist.csv_rows(game, result))
    return Response(body, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{game.game}-{game.id}.csv"'})


def _asked_group_id() -> int:
    """The group a link's ``?group=`` names, if the account is a member (404 if not), else the
    current group's id. Reading a group does not make it the current one."""
    raw = request.args.get("group")
    if raw is None:
        return current_group().id
    group_id = forms.database_id(raw)
    if group_id is None or groups.membership(get_session(), current_user.id, group_id) is None:
        abort(404)
    return group_id


@bp.route("/export")
@login_required
def export():
    """Every game of the group: ``?format=json`` (a list of game records) or ``zip``
    (that list, one CSV of every round, and one record file per game). ``?group=`` names the
    group the page with the link showed (another tab may have switched groups since); a group
    the account is not in is a 404. Without it, the current group."""
    asked = request.args.get("format", "json")
    if asked not in ("json", "zip"):  # a hand-made address: not the JSON it did not ask for
        return message_response(_("An export is format=json or format=zip, not %(format)s.",
                                  format=repr(asked[:20])), 400)
    group_id = _asked_group_id()
    # Named after the group: two groups' exports of one day are two files, each saying whose it is.
    # secure_filename leaves ASCII letters, digits, "_", "." and "-" (nothing to quote); a run of
    # them where words were dropped (" … ", " & ") is one "_"; a name with none left ("日本語") is
    # the group's number.
    group = get_session().get(Group, group_id)
    stem = re.sub(r"[_.-]{2,}", "_", secure_filename(group.name)).strip("_.-") or f"group-{group_id}"
    # Dated as the group's lists date its games: in its time zone (at 01:40 in Auckland, not
    # the day before, as UTC has it).
    stem = f"{stem}-games-{hist.local_time(datetime.now(timezone.utc), group.timezone or 'UTC'):%Y%m%d}"
    # The body is read on a session of its own, closed when it ends or the client goes away
    # (services/transfer.py: stream); the request's session is closed as the view returns.
    engine = get_engine()
    if asked == "zip":  # written as it is read
        return Response(transfer.stream(engine, transfer.zip_chunks, group_id), mimetype="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{stem}.zip"'})
    return Response(transfer.stream(engine, transfer.json_chunks, group_id), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{stem}.json"'})


#: Loads per account (flask-limiter syntax); ``IMPORT_RATE_LIMIT`` in the config overrides it.
IMPORT_RATE_LIMIT = "10 per minute"


def _import_limit() -> str:
    return current_app.config.get("IMPORT_RATE_LIMIT", IMPORT_RATE_LIMIT)


def named(label: str, game) -> str:
    """A record's ``label`` with its game (a NewGame), when it was played and its players:
    "list.json, record 2 (Mitchi, Sun 29 Nov 2026, 20:30: Ann, Ben)"."""
    played = f", {hist.when(game.played_at, _tz())}" if game.played_at else ""
    what = _("%(game)s%(when)s: %(players)s", game=game_title(game.name), when=played,
             players=", ".join(game.players))
    return f"{label} ({what})"


def already_here(skipped: list[tuple], sizes: dict[str, int]) -> list[str]:
    """What a load says of the records it did not store again (``[(file, label, new_game)]``,
    :func:`scorekeeper.services.history.import_files`), one part per file: "b.json", "all.zip
    (all 7 games)", or, for a few of a file's records, each with its game, when it was played
    and its players: "list.json, record 2 (Mitchi, Sun 29 Nov 2026, 20:30: Ann, Ben)". Each record
    of an export named again made a wall of text; a position alone in an export's games.json did
    not say which game it was (found by reviews)."""
    by_file: dict[str, list[tuple]] = {}
    for file, label, game in skipped:
        by_file.setdefault(file, []).append((label, game))
    parts = []
    for file, labels in by_file.items():
        total = sizes.get(file, len(labels))
        if total == 1:
            parts.append(file)
        elif len(labels) == total:
            parts.append(_("%(file)s (all %(num)d games)", file=file, num=total))
        elif len(labels) <= 3:  # named only here: a load of 2,000 known records formats no date
            parts += [named(label, game) for label, game in labels]
        else:
            parts.append(_("%(file)s (%(num)d of its %(total)d games)", file=file, num=len(labels), total=total))
    return parts


def _account_key() -> str:
    """The rate-limit key of a load: the signed-in account (not the address, which a whole
    table behind one router shares)."""
    return f"account:{current_user.get_id()}" if current_user.is_authenticated else "anonymous"


@bp.route("/import", methods=["GET", "POST"])
@login_required
@limiter.limit(_import_limit, key_func=_account_key, methods=["POST"])
def import_games():
    """Add games from record files (one record, a list of records, or an export zip; several
    files at once). A bad file stores nothing and says what is wrong (400); a load racing
    another load of the same group that cannot wait answers 409. At most
    :data:`IMPORT_RATE_LIMIT` loads per account (429 beyond)."""
    error, status = None, 200
    if request.method == "POST":
        files = [(f.filename, f.read()) for f in request.files.getlist("records") if f and f.filename]
        session = get_session()
        skipped: list[tuple[str, str]] = []
        removed: list[str] = []
        sizes: dict[str, int] = {}
        try:
            games = hist.import_files(session, form_group().id, files, skipped, removed, sizes)
        except hist.ImportProblem as err:
            session.rollback()
            error = _("Nothing was loaded. %(problem)s", problem=err)
            status = 409 if isinstance(err, hist.ImportBusy) else 400
        else:
            if skipped:
                parts = already_here(skipped, sizes)
                if len(parts) > 5:
                    flash(ngettext("Already here, not loaded again: %(names)s and %(num)d more.",
                                   "Already here, not loaded again: %(names)s and %(num)d more.", len(parts) - 5,
                                   names=", ".join(parts[:5])))
                else:
                    flash(_("Already here, not loaded again: %(names)s.", names=", ".join(parts)))
            if removed:
                # not in the lists, but not gone: a second copy would come back beside it on a restore
                # a file sent twice is named once; the first five with their game, time and players
                removed = list(dict(removed).items())
                names = ", ".join(named(label, game) for label, game in removed[:5])
                if len(removed) > 5:
                    names += _(" and %(num)d more", num=len(removed) - 5)
                flash(ngettext("Not loaded again, as it is a game removed in the last %(days)d days: %(names)s. "
                               "Restore it under Account, Removed games.",
                               "Not loaded again, as they are games removed in the last %(days)d days: "
                               "%(names)s. Restore them under Account, Removed games.", len(removed),
                               days=RESTORE_DAYS, names=names))
            if not games:
                return redirect(url_for("index"), 303)
            if len(games) == 1:
                flash(ngettext("%(num)d game loaded.", "%(num)d games loaded.", 1))
                # A game still in play opens where the table goes on; a finished one, its summary.
                endpoint = "history.summary" if games[0].finished else "games.play"
                return redirect(url_for(endpoint, game_id=games[0].id), 303)
            flash(ngettext("%(num)d game loaded.", "%(num)d games loaded.", len(games)))
            return redirect(url_for("index"), 303)
    return render_template("history/import.html", error=error), status


@bp.route("/players")
@login_required
def players():
    """Every player profile of the account with their figures, and the best averages."""
    stats = hist.player_stats(get_session(), current_group().id)
    return render_template("history/players.html", stats=stats, leaders=hist.leaders(stats),
                           leader_games=hist.LEADER_GAMES)


@bp.route("/players/<int:player_id>")
@login_required
def player(player_id: int, error: str | None = None):
    """One player's figures by game, and their games; rename or merge them."""
    session = get_session()
    profile = hist.get_player(session, current_group().id, player_id)
    if profile is None:
        # A player of another of the account's groups: that group becomes the current one, as a
        # game's page does (a link kept from before still opens); any other group's is a 404.
        group_id = hist.group_of_player(session, player_id)
        if group_id is None or groups.membership(session, current_user.id, group_id) is None:
            abort(404)
        groups.say_now_in(groups.switch_to(session, current_user.id, group_id))
        profile = hist.get_player(session, group_id, player_id)
    stats = hist.player_stats(session, current_group().id, player_id)
    rows, total = hist.list_games(session, current_group().id, player_id=player_id, per_page=10)
    others = [p for p in hist.known_players(session, current_group().id) if p.id != profile.id]
    return render_template("history/player.html", player=profile, stats=stats[0] if stats else None,
                           games=rows, total=total, games_registry=GAMES, loads=json.loads,
                           others=others, error=error), 400 if error else 200


@bp.route("/players/<int:player_id>/rename", methods=["POST"])
@login_required
def rename_player(player_id: int):
    """Rename a player: every game, stat and record shows the new name."""
    from ..services import players as people

    session = get_session()
    group = form_group()
    profile = hist.get_player(session, group.id, player_id)
    if profile is None:
        abort(404)
    old = profile.name
    try:
        renamed = people.rename_player(session, group.id, profile, request.form.get("name", ""))
    except people.NameProblem as err:
        return player(player_id, error=_("Not renamed: %(problem)s.", problem=err))
    if renamed:
        flash(_("%(old)s is now %(new)s in every game.", old=old, new=profile.name))
    else:  # sent unchanged (or twice: a double tap)
        flash(_("The name is already %(name)s: nothing was changed.", name=old))
    # (the form was sent to "#rename": the page opens at its message, at the top, instead)
    return redirect(url_for("history.player", player_id=player_id, _anchor="messages"), 303)


@bp.route("/players/<int:player_id>/merge", methods=["POST"])
@login_required
def merge_player(player_id: int):
    """Merge this player into another who is the same person (typed differently)."""
    from ..services import players as people

    session = get_session()
    group = form_group()
    gone = hist.get_player(session, group.id, player_id)
    into = forms.database_id(request.form.get("into", ""))
    kept = None if into is None else hist.get_player(session, group.id, into)
    if gone is None:
        abort(404)
    if kept is None:
        return player(player_id, error=_("Not merged: choose the player to merge into."))
    name, kept_id = gone.name, kept.id
    if request.form.get("confirm") != "yes":  # one wrong pick would merge two people's histories
        try:  # a merge that cannot be done is refused before it is confirmed
            people.check_merge(session, group.id, gone, kept)
        except people.NameProblem as err:
            return player(player_id, error=_("Not merged: %(problem)s.", problem=err))
        return render_template("history/merge_confirm.html", gone=gone, kept=kept)
    try:
        people.merge_players(session, group.id, gone, kept)
    except people.NameProblem as err:
        return player(player_id, error=_("Not merged: %(problem)s.", problem=err))
    flash(_("%(gone)s merged into %(kept)s.", gone=name, kept=kept.name))
    return redirect(url_for("history.player", player_id=kept_id, _anchor="messages"), 303)


@bp.route("/settings", methods=["GET", "POST"])
@login_required
def settings():
    """The group's time zone (games are stored in UTC and shown in it)."""
    from flask_babel import gettext as _  # the account page's words (kept local to this view)

    error = None
    if request.method == "POST":
        tz = (request.form.get("timezone") or "").strip()
        if hist.valid_timezone(tz):
            session = get_session()
            group = form_group()
            group.timezone = tz
            session.add(group)
            session.commit()
            flash(_("Time zone set to %(zone)s.", zone=tz))
            return redirect(url_for("history.settings"), 303)
        error = _("%(zone)s is not a time zone; choose one from the list, such as Europe/Berlin.",
                  zone=repr(tz[:64]))
    now = hist.when(datetime.now(timezone.utc), _tz())
    from ..services import games as service

    # another account's practice game is its alone to restore (docs/practice.md): not listed
    removed = [g for g in service.removed_games(get_session(), current_group().id)
               if not g.practice or practice.plays(g, current_user.id)]
    return render_template("history/settings.html", zones=hist.timezones(), current=_tz(), now=now,
                           error=error, removed=removed, loads=json.loads, games_registry=GAMES,
                           days=service.RESTORE_DAYS), 400 if error else 200
