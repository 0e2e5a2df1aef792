"""Game records: download a game as its record (loading records is ``history.import_games``)."""

from __future__ import annotations

import json

from flask import Blueprint, Response
from flask_login import login_required

from ..db import get_session
from ..services import games as service
from ..services import history
from .games import owned

bp = Blueprint("records", __name__)


@bp.route("/games/<int:game_id>/record.json")
@login_required
def download(game_id: int):
    """The game record (docs/game-record.md) as a JSON file, with when it was played (``played_at``,
    an extra key other readers ignore; importing keeps it)."""
    game = owned(game_id)
    session = get_session()
    record = history.export_record(session, service.load(session, game))
    body = json.dumps(record, indent=1, ensure_ascii=False)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{game.game}-{game.id}.json"'},
    )
