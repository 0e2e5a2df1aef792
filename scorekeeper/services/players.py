"""Player profiles: rename one, or merge two that are the same person.

Games keep their seat names (``game.players``) and every entry names its player, so a
rename writes the new name into each game the profile sat at, in its log and its history
(undone and replaced entries), and moves the game's ``version`` on (open forms become stale,
cached summaries are recomputed). Records downloaded before keep the old name and still load:
they are complete in themselves. Nothing is deleted but the emptied profile of a merge.
"""

from __future__ import annotations

import json

from sqlmodel import Session, select

from ..models import Entry, Game, GamePlayer, Group, Player, utcnow
from ..rules import find_game
from ..rules import record as records
from ..rules.base import RecordError
from flask_babel import gettext as _

from ..rules.names import clean_name, name_key
from ..rules.record import MAX_NAME, check_players

NAME_KEYS = ("player", "owner")  # the entry keys that hold a seat name (docs/game-record.md)


class NameProblem(ValueError):
    """A rename or merge that cannot be done; nothing was changed."""


def _reseat(session: Session, game: Game, seat: int, new: str) -> None:
    """Write ``new`` as the name of ``seat`` in ``game``: its seats, every entry, and check the replay."""
    names = json.loads(game.players)
    old = names[seat]
    names[seat] = new
    try:
        check_players(find_game(game.game), names)
    except RecordError as err:
        raise NameProblem(_("game %(game)d: %(problem)s", game=game.id, problem=err)) from None
    rows = list(session.exec(select(Entry).where(Entry.game_id == game.id)))
    log = []
    for row in rows:
        data = json.loads(row.data)
        if isinstance(data, dict):
            for key in NAME_KEYS:
                if data.get(key) == old:
                    data[key] = new
        row.data = json.dumps(data)
        session.add(row)
        if row.status == "active":
            log.append((row.seq, data))
    active = [d for _, d in sorted(log, key=lambda x: x[0])]
    try:
        state = records.build(records.make_record(game.game, names, json.loads(game.options), active))
    except records.ReplayError as err:  # a rename never changes a rule's verdict; refuse all the same
        raise NameProblem(_("game %(game)d would no longer replay: %(problem)s", game=game.id,
                                  problem=err)) from None
    from .games import mirrored, content_hash

    for key, value in mirrored(state).items():  # what the lists show: "won by" the new name
        setattr(game, key, value)

    game.content_hash = content_hash(game.game, names, json.loads(game.options), active)  # what it now holds
    game.players = json.dumps(names)
    game.version += 1  # the stored snapshot (old names) is stale from now on
    from . import stats

    stats.write_figures(session, game.id, names, stats.game_figures(game.game, names, state.summary()))
    from .export_rows import store

    store(session, game, state)  # the export's CSV rounds at the new version (a whole replay)
    game.updated_at = utcnow()
    session.add(game)


def rename_player(session: Session, group_id: int, player: Player, name: str) -> bool:
    """Rename ``player`` to ``name`` everywhere; raise :class:`NameProblem` (and change nothing).

    The name is trimmed; another profile of the group with that name (any case) means the
    two are the same person: merge them instead. Commits. Returns False, changing nothing,
    when ``name`` (trimmed) is already the player's, letter for letter.
    """
    name = clean_name(name or "")
    key = name_key(name)
    other = session.exec(select(Player).where(Player.group_id == group_id, Player.name_key == key,
                                              Player.id != player.id)).first()
    if other is not None:
        raise NameProblem(_("%(player)s is another player already; if they are the same person, merge them",
                              player=other.name))
    if not name:
        raise NameProblem(_("a name cannot be empty"))
    if len(name) > MAX_NAME:
        raise NameProblem(_("a name has at most %(num)d characters", num=MAX_NAME))
    if name == player.name:
        return False
    try:
        for link in session.exec(select(GamePlayer).where(GamePlayer.player_id == player.id)):
            _reseat(session, session.get(Game, link.game_id), link.seat, name)
    except NameProblem:
        session.rollback()
        raise
    player.name, player.name_key = name, key
    session.add(player)
    session.commit()
    return True


def check_merge(session: Session, group_id: int, gone: Player, kept: Player) -> list[GamePlayer]:
    """Whether ``gone`` may be merged into ``kept`` (asked before the confirmation too): the seats
    of ``gone``; raise :class:`NameProblem` for one player twice, another group's, or two who
    both sat at one game."""
    if gone.id == kept.id or gone.group_id != group_id or kept.group_id != group_id:
        raise NameProblem(_("choose two different players of this group"))
    links = list(session.exec(select(GamePlayer).where(GamePlayer.player_id == gone.id)))
    both = {g.game_id for g in session.exec(select(GamePlayer).where(GamePlayer.player_id == kept.id))}
    clash = sorted(link.game_id for link in links if link.game_id in both)
    if clash:  # the game as the lists show it: its id is nowhere on a page (found by a review)
        from ..words import game_title
        from .history import when

        game = session.get(Game, clash[0])
        group = session.get(Group, group_id)
        raise NameProblem(_("%(gone)s and %(kept)s both sat at the game of %(game)s on %(when)s: they are two "
                            "people", gone=gone.name, kept=kept.name, game=game_title(game.game),
                            when=when(game.played_at, group.timezone or "UTC")))
    return links


def merge_players(session: Session, group_id: int, gone: Player, kept: Player) -> None:
    """``gone`` and ``kept`` are the same person: every seat of ``gone`` becomes ``kept``'s (named
    so), and the emptied profile ``gone`` is removed. Raise :class:`NameProblem` when both sat at
    one game (and change nothing). Commits."""
    links = check_merge(session, group_id, gone, kept)
    try:
        for link in links:
            _reseat(session, session.get(Game, link.game_id), link.seat, kept.name)
            link.player_id = kept.id
            session.add(link)
    except NameProblem:
        session.rollback()
        raise
    session.flush()
    session.delete(gone)
    session.commit()
