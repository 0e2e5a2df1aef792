"""Game records: download a game, create a game from an uploaded record."""

from __future__ import annotations

import json

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from ..db import get_session
from ..rules import record as records
from ..services import games as service
from .games import owned

bp = Blueprint("records", __name__)


@bp.route("/games/<int:game_id>/record.json")
@login_required
def download(game_id: int):
    """The game record (GAME-RECORD.md) as a JSON file."""
    game = owned(game_id)
    session = get_session()
    record = service.to_record(session, service.load(session, game))
    body = json.dumps(record, indent=1, ensure_ascii=False)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{game.game}-{game.id}.json"'},
    )


@bp.route("/games/import", methods=["GET", "POST"])
@login_required
def upload():
    """Create a game from a record file; a bad record stores nothing and says why."""
    error = None
    if request.method == "POST":
        upload = request.files.get("record")
        if upload is None or not upload.filename:
            error = "Choose a game record file (.json) to load."
        else:
            try:
                record = records.loads(upload.read())
                game = service.import_record(get_session(), current_user.id, record)
            except records.ReplayError as err:
                get_session().rollback()
                error = f"Nothing was loaded. {err}"
            else:
                return redirect(url_for("games.play", game_id=game.id), 303)
    return render_template("games/import.html", error=error), 400 if error else 200
