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


def test_two_games_with_the_same_rolls_played_at_different_times_are_both_restored(client, auth, app):
    """An export's records say when each game was played. Two games of the same players, options
    and rolls (a short game and its rematch, played alike) are two games: restored into an empty
    group, both come back (a review: the second was skipped as "Already here", though the group had
    no game). The same zip loaded again adds nothing, and a record that says no time is still one
    of the games of its content."""
    from datetime import datetime, timezone

    from sqlmodel import Session

    from scorekeeper.models import Game

    auth.register()
    games = [new_game(client), new_game(client)]
    with Session(app.extensions["scorekeeper.engine"]) as s:
        for day, game in enumerate(games, start=1):
            g = s.get(Game, game)
            g.played_at = datetime(2026, 11, day, 20, 15, tzinfo=timezone.utc)
            s.add(g)
        s.commit()
    first, second = (client.get(f"/games/{g}/record.json").json for g in games)
    timeless = {k: v for k, v in first.items() if k != "played_at"}
    assert timeless == {k: v for k, v in second.items() if k != "played_at"}
    zipped = client.get("/export?format=zip").data
    auth.logout()
    auth.register("bob")

    def load(data: bytes, name: str) -> str:
        r = client.post("/import", data={"records": (io.BytesIO(data), name)},
                        content_type="multipart/form-data", follow_redirects=True)
        assert r.status_code == 200
        return r.data.decode()

    def played_times(account: str = "bob") -> list[str]:
        from sqlmodel import select

        from scorekeeper.models import Membership, User
        with Session(app.extensions["scorekeeper.engine"]) as s:
            its = (select(Membership.group_id).join(User, User.id == Membership.user_id)
                   .where(User.username == account))
            games = s.exec(select(Game).where(Game.group_id.in_(its)))
            return sorted(g.played_at.strftime("%Y-%m-%d") for g in games)

    assert "Already here" not in load(zipped, "games.zip")
    assert played_times() == ["2026-11-01", "2026-11-02"]
    assert "Already here" in load(zipped, "games.zip")  # loaded again: nothing new
    assert "Already here" in load(json.dumps(timeless).encode(), "game.json")
    assert played_times() == ["2026-11-01", "2026-11-02"]
    # A group that has the first game gets the second from the zip, and only that one.
    auth.logout()
    auth.register("cat")
    load(json.dumps(first).encode(), "first.json")
    said = load(zipped, "games.zip")
    assert "Already here, not loaded again: games.zip" in said and "1 game loaded" in said
    assert played_times("cat") == ["2026-11-01", "2026-11-02"]


def test_two_games_with_the_same_rolls_loaded_one_after_the_other_are_both_kept(client, auth, app):
    """Two records of the same players, options and rolls saying two times are two games when
    they are loaded one at a time too, not only in one load (a playtest: the second of two
    separate loads was skipped as "Already here", as if the first game's own time had been the
    moment it was loaded). A game loaded from a record that said no time still takes a record
    of its rolls that says a time as itself."""
    from datetime import timezone

    from sqlmodel import Session, select

    from scorekeeper.models import Game

    auth.register()
    game = new_game(client)
    timeless = {k: v for k, v in client.get(f"/games/{game}/record.json").json.items()
                if k not in ("played_at", "history")}
    with Session(app.extensions["scorekeeper.engine"]) as s:
        ann_group = s.get(Game, game).group_id
    first = {**timeless, "played_at": "2026-11-01T20:15:00+00:00"}
    second = {**timeless, "played_at": "2026-11-02T20:15:00+00:00"}
    auth.logout()
    auth.register("bob")

    def load(record: dict, name: str) -> str:
        r = client.post("/import", data={"records": (io.BytesIO(json.dumps(record).encode()), name)},
                        content_type="multipart/form-data", follow_redirects=True)
        assert r.status_code == 200
        return r.data.decode()

    def played_days() -> list[str]:
        with Session(app.extensions["scorekeeper.engine"]) as s:
            mine = s.exec(select(Game).where(Game.group_id != ann_group)).all()  # bob's
            return sorted(g.played_at.astimezone(timezone.utc).strftime("%m-%d") for g in mine)

    assert "1 game loaded" in load(first, "first.json")
    said = load(second, "second.json")
    assert "Already here" not in said and "1 game loaded" in said
    assert played_days() == ["11-01", "11-02"]
    assert "Already here" in load(second, "second.json")  # each is here once
    assert "Already here" in load(timeless, "timeless.json")  # no time: one of the games of its rolls
    # A third account loads the record without a time (it gets the moment of its load), then the
    # same rolls with a time: that is the game it already has, not a second.
    auth.logout()
    auth.register("cat")
    assert "1 game loaded" in load(timeless, "timeless.json")
    assert "Already here" in load(first, "first.json")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert len(s.exec(select(Game)).all()) == 1 + 2 + 1  # ann's, bob's two, cat's one
