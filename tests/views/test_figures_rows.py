"""The stored figures (table ``game_figures``) the players pages add up stay right for games
that do not come through an entry: imported ones (bulk ``insert_games``), and games whose seats
a rename or a merge rewrote."""

from __future__ import annotations

import json

from sqlmodel import select

from scorekeeper.db import get_session
from scorekeeper.models import Game, GameFigures, Player
from scorekeeper.services import games as service
from scorekeeper.services import players as profiles
from scorekeeper.services import stats

from ..conftest import new_game, version_of
from .test_history import golden, upload
from .test_mitchi_views import post_turn
from .test_snapshots import check_figures


def test_imported_games_get_their_figures_rows_and_count_in_the_stats(app, client, auth):
    auth.register()
    r = upload(client, golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end"))
    assert r.status_code in (200, 303)
    with app.app_context():
        session = get_session()
        games = list(session.exec(select(Game)))
        assert len(games) == 2
        for game in games:
            assert len(session.exec(select(GameFigures).where(GameFigures.game_id == game.id)).all()) \
                == len(json.loads(game.players))
            check_figures(session, game)
        seated = json.loads(games[0].players)[0]
        mine = next(s for s in stats.player_stats(session, games[0].group_id) if s.player.name == seated)
        assert mine.played >= 1
    # The imported game loads without a snapshot (the first load replays it).
    assert client.get(f"/games/{games[0].id}").status_code == 200


def turn(client, game, player, hand, rolls):
    version = version_of(client.get(f"/games/{game}").data)
    assert post_turn(client, game, version, player, hand, rolls).status_code == 200


def test_rename_and_merge_keep_the_figures_of_the_touched_games(app, client, auth):
    auth.register()
    first = new_game(client, players=("Ann", "Ben"), starter="0", point_limit=1)
    turn(client, first, "Ann", (6, 3), 1)
    turn(client, first, "Ben", (2, 1), 1)
    second = new_game(client, players=("Anne", "Cat"), starter="0")
    turn(client, second, "Anne", (6, 3), 2)
    with app.app_context():
        session = get_session()
        group = session.get(Game, first).group_id
        ann = session.exec(select(Player).where(Player.name == "Ann")).one()
        profiles.rename_player(session, group, ann, "Annie")
        anne = session.exec(select(Player).where(Player.name == "Anne")).one()
        annie = session.exec(select(Player).where(Player.name == "Annie")).one()
        profiles.merge_players(session, group, anne, annie)
        for gid in (first, second):
            game = session.get(Game, gid)
            assert "Annie" in json.loads(game.players)
            check_figures(session, game)
        mine = next(s for s in stats.player_stats(session, group) if s.player.name == "Annie")
        assert mine.played == 2 and mine.finished == 1
        # The next entry starts from the log (the snapshot holds the old names) and stores it again.
        game = session.get(Game, second)
        loaded = service.load(session, game)
        assert "Annie" in loaded.state.summary()["scores"]


def test_players_stats_from_sql_equal_the_stats_of_replayed_games(app, client, auth):
    """Golden: every golden record that replays, loaded into one account; the stats the
    players pages read (SQL sums over ``game_figures``) equal the same figures counted game by
    game from a full replay of each game's log, for every profile and game kind."""
    from scorekeeper.models import Entry, GamePlayer
    from scorekeeper.rules import record as records

    from ..test_migration_figures import goldens

    auth.register()
    good, _ = goldens()
    assert upload(client, good).status_code in (200, 303)
    with app.app_context():
        session = get_session()
        games = list(session.exec(select(Game)))
        assert len(games) > 40 and {g.game for g in games} == {"mitchi", "mia", "mice-and-men"}
        group = games[0].group_id
        want: dict[int, dict[str, stats.GameKindStats]] = {}
        for game in games:
            log = [json.loads(e.data) for e in session.exec(
                select(Entry).where(Entry.game_id == game.id, Entry.status == "active").order_by(Entry.seq))]
            names = json.loads(game.players)
            summary = records.replay(records.make_record(game.game, names, json.loads(game.options), log))
            figs = stats.game_figures(game.game, names, summary)
            for gp in session.exec(select(GamePlayer).where(GamePlayer.game_id == game.id)):
                kinds = want.setdefault(gp.player_id, {})
                kinds.setdefault(game.game, stats.GameKindStats(game.game)).add(figs[names[gp.seat]],
                                                                                summary["finished"])
        got = {s.player.id: s.kinds for s in stats.player_stats(session, group)}
        assert got == want
        assert any(k.shared_wins for kinds in got.values() for k in kinds.values())
        assert any(k.finished < k.played for kinds in got.values() for k in kinds.values())  # running games count
        one = next(iter(want))
        assert {s.player.id: s.kinds for s in stats.player_stats(session, group, one)} == {one: want[one]}
