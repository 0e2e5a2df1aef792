"""A downloaded record carries when the game was played; importing it keeps that time, so the
export zip's copy of the same game is then recognised as the same game."""

from __future__ import annotations

import io
import json

from ..conftest import new_game


def test_single_record_keeps_played_at(client, auth, app):
    auth.register()
    game = new_game(client)
    # The game was played two days ago (set directly: the setup page stamps now).
    from datetime import datetime, timezone

    from sqlmodel import Session

    from scorekeeper.models import Game
    with Session(app.extensions["scorekeeper.engine"]) as s:
        g = s.get(Game, game)
        g.played_at = datetime(2026, 11, 28, 20, 15, tzinfo=timezone.utc)
        s.add(g)
        s.commit()
    record = client.get(f"/games/{game}/record.json").json
    assert datetime.fromisoformat(record["played_at"]) == datetime(2026, 11, 28, 20, 15, tzinfo=timezone.utc)
    zipped = client.get("/export?format=zip").data
    auth.logout()
    auth.register("bob")
    r = client.post("/import", data={"records": (io.BytesIO(json.dumps(record).encode()), "game.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 303
    new_id = int(r.headers["Location"].rsplit("/", 1)[1])
    again = client.get(f"/games/{new_id}/record.json").json
    assert again["played_at"] == record["played_at"]
    # The export zip of the first account holds the same game: not loaded twice.
    r = client.post("/import", data={"records": (io.BytesIO(zipped), "games.zip")},
                    content_type="multipart/form-data", follow_redirects=True)
    assert "Already here" in r.data.decode()
