"""Groups: the people who play together, their members, invites, and "of this group" lookups.

Games, players, history and stats belong to a :class:`~scorekeeper.models.Group`.
An account belongs to one or more groups (:class:`~scorekeeper.models.Membership`,
role ``owner`` or ``member``); the group it is looking at is kept in the
session (``session["group_id"]``), else (after a login) the group of its latest
game. Every view fetches a game through :func:`game_of_member`, so no route can
forget the check.
"""

from __future__ import annotations

import secrets

from flask import flash, g, request, session as cookie
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import bindparam, delete, inspect, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.instrumentation import manager_of_class
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, select

from ..db import run
from ..models import Game, GameSnapshot, Group, Invite, Membership, Removal, User, utcnow
from ..rules.names import clean_name
from .games import keep_snapshot

OWNER, MEMBER = "owner", "member"
DOUBLE_TAP_SECONDS = 5


def _aware(moment):
    from datetime import timezone

    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class NotAllowed(Exception):
    """The account may not do this in this group (the message says why); nothing changed."""


class NoSuch(NotAllowed):
    """No invite or member of that id in this group (another group's, or none): answered as
    another group's games are, 404; nothing changed."""


class BadName(ValueError):
    """A group name that is empty or longer than 40 characters; nothing changed."""


def clean_group_name(name: str | None) -> str:
    """``name`` cleaned as a player's name is (:func:`~scorekeeper.rules.names.clean_name`: runs
    of spaces made one, invisible, control and direction characters removed); raise
    :class:`BadName` unless 1 to 40 characters are left. Two zero-width spaces are no name."""
    name = clean_name(name or "")
    if not 1 <= len(name) <= 40:
        raise BadName(_("A group's name has 1 to 40 characters (not only spaces)."))
    return name


def create_group(session: Session, user: User, name: str, timezone: str = "UTC") -> Group:
    """A new group named ``name`` with ``user`` as its owner; flushed, not committed."""
    group = Group(name=name.strip()[:40] or user.username, timezone=timezone)
    session.add(group)
    session.flush()
    session.add(Membership(group_id=group.id, user_id=user.id, role=OWNER))
    session.flush()
    return group


def memberships(session: Session, user_id: int) -> list[tuple[Group, Membership]]:
    """The account's groups with its membership in each, oldest first."""
    rows = session.exec(
        select(Group, Membership).join(Membership, Membership.group_id == Group.id)
        .where(Membership.user_id == user_id).order_by(Membership.id)
    ).all()
    return [(grp, m) for grp, m in rows]


def membership(session: Session, user_id: int, group_id: int) -> Membership | None:
    """The account's membership of ``group_id``, or None."""
    return session.exec(select(Membership).where(Membership.user_id == user_id,
                                                 Membership.group_id == group_id)).first()


def latest_group(session: Session, user_id: int) -> int | None:
    """The id of the account's group whose game (not removed, not practice) changed last, or
    None if none of its groups has one."""
    return session.exec(
        select(Game.group_id)
        .join(Membership, (Membership.group_id == Game.group_id) & (Membership.user_id == user_id))
        .where(Game.removed_at.is_(None), Game.practice.is_(False))
        .order_by(Game.updated_at.desc(), Game.id.desc()).limit(1)).first()


def current_group() -> Group:
    """The group the signed-in account is looking at (cached per request).

    The session's choice if the account is still a member, else (a new login) the group
    where one of its groups' games last changed (:func:`latest_group`: a member who joined a
    friend's group comes back to its games, not to an empty group of its own), else its
    oldest group; an account that lost every group (removed from all) gets a new one of its
    own, so a page never fails for want of a group.
    """
    if "current_group" in g:
        return g.current_group
    from ..db import get_session

    session = get_session()
    chosen = cookie.get("group_id")
    found = None
    if isinstance(chosen, int) and membership(session, current_user.id, chosen):
        found = session.get(Group, chosen)
    if found is None:
        latest = latest_group(session, current_user.id)
        if latest is not None:
            found = session.get(Group, latest)
        elif mine := memberships(session, current_user.id):
            found = mine[0][0]
        else:
            found = create_group(session, session.get(User, current_user.id), current_user.username)
            session.commit()
        cookie["group_id"] = found.id
    g.current_group = found
    return found


def current_role() -> str | None:
    """``owner`` or ``member`` in the current group."""
    from ..db import get_session

    m = membership(get_session(), current_user.id, current_group().id)
    return m.role if m else None


def say_now_in(group: Group) -> None:
    """Tell the next page (or this one, not yet rendered) that ``group`` is now the current
    group: "Now in …", after a switch, a form of another tab's group, a link of another group."""
    flash(_now_in(group))


def _now_in(group: Group) -> str:
    return _("Now in %(name)s.", name=group.name)


def switch_back(group_id: int | None, said: Group) -> None:
    """Take back this request's :func:`switch_to` and :func:`say_now_in` of ``said`` (a form
    that was then refused): ``group_id`` is the group that was current before (None: none was
    chosen)."""
    if group_id is None:
        cookie.pop("group_id", None)
    else:
        cookie["group_id"] = group_id
    g.pop("current_group", None)
    flashes = cookie.get("_flashes")  # where Flask's flash() keeps them until a page shows them
    if flashes and tuple(flashes[-1]) == ("message", _now_in(said)):
        cookie["_flashes"] = flashes[:-1]


def switch_to(session: Session, user_id: int, group_id: int) -> Group:
    """Make ``group_id`` the account's current group; raise :class:`NotAllowed` if not a member."""
    if membership(session, user_id, group_id) is None:
        raise NotAllowed(_("You are not a member of that group."))
    cookie["group_id"] = group_id
    g.pop("current_group", None)
    return session.get(Group, group_id)


_SNAP = GameSnapshot.__table__.c
#: The game joined to the account's membership of its group, and its stored snapshot (if any),
#: which the game's page or its next entry reads (services.games.load): one query for both.
_GAME_AND_SNAPSHOT = (Game, _SNAP.version, _SNAP.rules, _SNAP.entries, _SNAP.state)
_GAME_OF_MEMBER = (select(*_GAME_AND_SNAPSHOT)
                   .join(Membership, (Membership.group_id == Game.group_id) & (Membership.user_id == bindparam("user")))
                   .outerjoin(GameSnapshot, GameSnapshot.game_id == Game.id)
                   .where(Game.id == bindparam("game")))


#: A game's attributes and their columns, in the mapper's order: the account's read takes the game
#: as plain columns (:func:`load_account`) and :func:`_persistent_game` makes the ORM object of them.
_GAME_KEYS, _GAME_COLUMNS = zip(*((attr.key, attr.columns[0]) for attr in inspect(Game).column_attrs))
_GAME_COLUMNS_AND_SNAPSHOT = (*_GAME_COLUMNS, _SNAP.version, _SNAP.rules, _SNAP.entries, _SNAP.state)


def _persistent_game(session: Session, values: tuple) -> Game:
    """The :class:`Game` of ``values`` (its columns, as read, in :data:`_GAME_COLUMNS` order), in
    ``session`` as the ORM's own read leaves it: persistent, in the identity map (the one there
    already, if any), nothing changed. The ORM's read of an entity costs every entry and page of
    a game some 100 µs more than the same columns read plainly (docs/speed.md §Entry path); made
    here as its loader makes one (an instance of the class's manager, then its attributes), then
    attached with SQLAlchemy's own ``make_transient_to_detached`` and ``Session.add``."""
    key = identity_key(Game, values[0])
    found = session.identity_map.get(key)
    if found is not None:
        return found
    game = manager_of_class(Game).new_instance()
    game.__dict__.update(zip(_GAME_KEYS, values))
    make_transient_to_detached(game)
    session.add(game)
    return game


_VERSION_AND_GROUP = (Game.__table__.c.version, Game.__table__.c.group_id)
_VERSION_OF_MEMBER = select(*_VERSION_AND_GROUP).join(
    Membership, (Membership.group_id == Game.group_id) & (Membership.user_id == bindparam("user"))).where(
    Game.id == bindparam("game"))


def current_group_id() -> int | None:
    """The group id the session cookie names as current (None if none), as read, unchecked."""
    return cookie.get("group_id")


def version_of_member(session: Session, user_id: int, game_id: int) -> tuple[int, int] | None:
    """``(version, group id)`` of game ``game_id`` if the account is a member of its group, else
    None: what a poll needs to answer "nothing changed", one row of plain columns (no ORM object)."""
    kept = session.info.pop(("version_of_member", user_id, game_id), _NOT_KEPT)
    if kept is not _NOT_KEPT:  # read with the account (load_account)
        return kept
    row = session.connection().execute(_VERSION_OF_MEMBER, {"user": user_id, "game": game_id}).first()
    return None if row is None else (row[0], row[1])


_USERS = User.__table__
#: The account's own columns, which every signed-in request reads (Flask-Login's loader, in
#: :mod:`scorekeeper.auth`): id, username, language, session token.
ACCOUNT = (_USERS.c.id, _USERS.c.username, _USERS.c.language, _USERS.c.session_token)
_ACCOUNT = select(*ACCOUNT).where(_USERS.c.id == bindparam("id"))
_MEMBER_OF_ITS_GROUP = (select(Membership.id)
                        .where(Membership.group_id == Game.group_id, Membership.user_id == _USERS.c.id).exists())
_ACCOUNT_AND_GAME = (select(*ACCOUNT, *_GAME_COLUMNS_AND_SNAPSHOT)
                     .select_from(_USERS)
                     .outerjoin(Game, (Game.id == bindparam("game")) & _MEMBER_OF_ITS_GROUP)
                     .outerjoin(GameSnapshot, GameSnapshot.game_id == Game.id)
                     .where(_USERS.c.id == bindparam("id")))
_ACCOUNT_AND_VERSION = (select(*ACCOUNT, *_VERSION_AND_GROUP)
                        .select_from(_USERS)
                        .outerjoin(Game, (Game.id == bindparam("game")) & _MEMBER_OF_ITS_GROUP)
                        .where(_USERS.c.id == bindparam("id")))
#: The routes whose first read is the game of their ``game_id`` (:func:`game_of_member`), and
#: the live poll, whose first read is the game's version (:func:`version_of_member`).
_READ_WITH_ACCOUNT = {"games.play", "games.add_entry", "games.undo", "games.redo", "games.correct"}
_POLL = "games.poll"
_NOT_KEPT = object()


def load_account(session: Session, user_id: int):
    """The account's row (the :data:`ACCOUNT` columns first), or None if there is none.

    On the page of a game, its entry, undo, redo and correction routes, the same statement
    reads the game of the URL's ``game_id`` as :func:`game_of_member` reads it (the live poll:
    as :func:`version_of_member` reads it, version and group only), with the same membership
    check, and keeps it for that call, which then reads nothing: one statement where there
    were two, before every entry and every poll."""
    game_id = (request.view_args or {}).get("game_id")
    endpoint = request.endpoint
    if not isinstance(game_id, int) or not 0 < game_id < 2**31 or (
            endpoint != _POLL and endpoint not in _READ_WITH_ACCOUNT):
        return _first_read(session, _ACCOUNT, {"id": user_id})
    params = {"id": user_id, "game": game_id}
    if endpoint == _POLL:
        row = _first_read(session, _ACCOUNT_AND_VERSION, params)
        if row is not None:
            version, group = row[len(ACCOUNT):]
            session.info[("version_of_member", user_id, game_id)] = None if version is None else (version, group)
    else:
        row = _first_read(session, _ACCOUNT_AND_GAME, params)
        if row is not None:  # the game's columns, then its snapshot's: game_of_member makes the Game
            session.info[("game_of_member", user_id, game_id)] = tuple(row[len(ACCOUNT):])
    return row


def _first_read(session: Session, statement, params: dict):
    """The first row of the request's first statement (on the driver's cursor:
    :func:`scorekeeper.db.run`), read again on a fresh connection if the server had dropped this
    one (a restart). On an entry or a poll this read is the pool's
    check (:func:`scorekeeper.db._begin_as_ping`); SQLAlchemy has by then marked that
    connection, and every other the pool held before it, as gone."""
    for attempt in (1, 2):
        try:
            return run(session, statement, params).first()
        except DBAPIError as err:
            if attempt == 2 or not err.connection_invalidated:
                raise
            session.rollback()


def game_of_member(session: Session, user_id: int, game_id: int) -> Game | None:
    """The game ``game_id`` if the account is a member of its group, else None (the view answers
    404). A game of another of the account's groups makes that group the current one, so links
    kept from before still open; a page (a GET) then says "Now in …" as a switch does. Reads
    nothing when the account's own read already read it (:func:`load_account`)."""
    kept = session.info.pop(("game_of_member", user_id, game_id), _NOT_KEPT)
    if kept is _NOT_KEPT:
        row = session.execute(_GAME_OF_MEMBER, {"user": user_id, "game": game_id}).first()
        game, snapshot = (None, None) if row is None else (row[0], tuple(row[1:]))
    elif kept[0] is None:  # no such game of the account's groups
        game = snapshot = None
    else:
        game, snapshot = _persistent_game(session, kept[:len(_GAME_KEYS)]), kept[len(_GAME_KEYS):]
    if game is None:
        return None
    if snapshot[0] is not None:  # the snapshot's version: a snapshot is stored
        keep_snapshot(session, game.id, snapshot)
    before = cookie.get("group_id")
    if before != game.group_id:  # only then: a poll must not rewrite the cookie
        cookie["group_id"] = game.group_id
        g.pop("current_group", None)
        if before is not None and request.method == "GET":  # a page says so, as a switch does
            say_now_in(session.get(Group, game.group_id))
    return game


def members(session: Session, group_id: int) -> list[tuple[User, Membership]]:
    """The group's accounts with their membership, owners first, then by joining."""
    rows = session.exec(
        select(User, Membership).join(Membership, Membership.user_id == User.id)
        .where(Membership.group_id == group_id).order_by(Membership.role.desc(), Membership.id)
    ).all()
    return [(u, m) for u, m in rows]


def _require_owner(session: Session, user_id: int, group_id: int) -> None:
    m = membership(session, user_id, group_id)
    if m is None or m.role != OWNER:
        raise _only_the_owner(session, group_id)


def _only_the_owner(session: Session, group_id: int) -> NotAllowed:
    """"Only the group's owner can do that; its owner is ben." The owner named, as a phone
    refused here may have been the owner a moment ago (a hand-over on another phone)."""
    owner = session.exec(select(User.username).join(Membership, Membership.user_id == User.id)
                         .where(Membership.group_id == group_id, Membership.role == OWNER)).first()
    if owner is None:
        return NotAllowed(_("Only the group's owner can do that."))
    return NotAllowed(_("Only the group's owner can do that; its owner is %(name)s.", name=owner))


def rename(session: Session, user_id: int, group_id: int, name: str) -> Group:
    """Rename the group (owner only; 1 to 40 characters); commits."""
    _require_owner(session, user_id, group_id)
    name = clean_group_name(name)
    group = session.get(Group, group_id)
    group.name = name
    session.add(group)
    session.commit()
    return group


def new_invite(session: Session, user_id: int, group_id: int) -> Invite:
    """A new invite link for the group (owner only): an unguessable token; commits.

    A second request within a few seconds (a double tap) answers with the invite just made,
    unless a member was removed since: that one would not add them again."""
    _require_owner(session, user_id, group_id)
    latest = session.exec(select(Invite).where(Invite.group_id == group_id, Invite.created_by == user_id,
                                               Invite.revoked_at.is_(None)).order_by(Invite.id.desc())).first()
    if latest is not None and (utcnow() - _aware(latest.created_at)).total_seconds() < DOUBLE_TAP_SECONDS and (
            session.exec(select(Removal.id).where(Removal.group_id == group_id,
                                                  Removal.removed_at >= latest.created_at)).first() is None):
        return latest
    invite = Invite(group_id=group_id, token=secrets.token_urlsafe(24), created_by=user_id)
    session.add(invite)
    session.commit()
    return invite


def open_invites(session: Session, group_id: int) -> list[Invite]:
    """The group's invites that still work, newest first."""
    return list(session.exec(select(Invite).where(Invite.group_id == group_id, Invite.revoked_at.is_(None))
                             .order_by(Invite.id.desc())))


def revoke_invite(session: Session, user_id: int, group_id: int, invite_id: int) -> None:
    """Revoke an invite of the group (owner only); it then adds nobody. Commits."""
    _require_owner(session, user_id, group_id)
    invite = session.get(Invite, invite_id)
    if invite is None or invite.group_id != group_id:
        raise NoSuch(_("There is no such invite in this group."))
    if invite.revoked_at is None:
        invite.revoked_at = utcnow()
        session.add(invite)
        session.commit()


def find_invite(session: Session, token: str) -> Invite | None:
    """The invite with this token if it still works (not revoked), else None."""
    if not token or len(token) > 64:
        return None
    return session.exec(select(Invite).where(Invite.token == token, Invite.revoked_at.is_(None))).first()


def _removal(session: Session, group_id: int, user_id: int) -> Removal | None:
    """The account's removal from the group by its owner, if any."""
    return session.exec(select(Removal).where(Removal.group_id == group_id, Removal.user_id == user_id)).first()


def refuse_if_removed(session: Session, user_id: int, invite: Invite) -> None:
    """Raise :class:`NotAllowed` if the group's owner removed the account after ``invite`` was
    made (:class:`~scorekeeper.models.Removal`): a link they were sent before does not bring them
    back, one made for them since does."""
    removal = _removal(session, invite.group_id, user_id)
    if removal is not None and removal.removed_at >= invite.created_at:
        raise NotAllowed(_("You were removed from this group after this invite link was made, so it does not add "
                           "you again. Ask the group's owner for a new one."))


def join(session: Session, user_id: int, invite: Invite) -> Group:
    """Add the account to the invite's group as a member (a member already stays as is); commits.
    Two joins at once store one membership. Raise :class:`NotAllowed` for an account the owner
    removed after the invite was made (:func:`refuse_if_removed`); joining by a newer one ends
    the removal (asked back, they are a member like any other, and leaving is not a removal)."""
    if membership(session, user_id, invite.group_id) is None:
        refuse_if_removed(session, user_id, invite)
        try:  # the DELETE flushes the new membership: a join racing this one fails there, or at the commit
            session.add(Membership(group_id=invite.group_id, user_id=user_id, role=MEMBER))
            session.execute(delete(Removal).where(Removal.group_id == invite.group_id,
                                                  Removal.user_id == user_id))
            session.commit()
        except IntegrityError:  # the other join made the membership (and ended the removal): done
            session.rollback()
    return session.get(Group, invite.group_id)


def _delete_member_row(session: Session, m: Membership) -> bool:
    """Delete membership ``m`` if it is still a member's row when deleted; True if it was. One made
    the owner on another phone meanwhile (:func:`hand_over`) stays, or the group would be left
    with no owner. A DELETE statement, not ``session.delete(m)``: the same removal tapped on two
    phones at once deletes the row once, and the other finds none (not a flush expecting one)."""
    return bool(session.execute(delete(Membership).where(Membership.id == m.id,
                                                         Membership.role == MEMBER)).rowcount)


def remove_member(session: Session, user_id: int, group_id: int, member_id: int) -> None:
    """Remove ``member_id`` from the group (owner only; an owner cannot be removed). Commits.
    The member's entries stay in the games' logs. The removal is kept (its time), so that
    the invite links made so far do not add them again (:func:`refuse_if_removed`)."""
    _require_owner(session, user_id, group_id)
    m = membership(session, member_id, group_id)
    if m is None:
        raise NoSuch(_("That account is not a member of this group."))
    if m.role == OWNER:
        raise NotAllowed(_("The group's owner cannot be removed."))
    if not _delete_member_row(session, m):
        session.rollback()
        if (now := membership(session, member_id, group_id)) is not None and now.role == OWNER:
            raise NotAllowed(_("The group's owner cannot be removed."))
        raise NoSuch(_("That account is not a member of this group."))
    removal = _removal(session, group_id, member_id)
    if removal is None:
        session.add(Removal(group_id=group_id, user_id=member_id))
    else:
        removal.removed_at = utcnow()
    try:
        session.commit()
    except IntegrityError:  # the same removal tapped on two phones at once: the other one did it
        session.rollback()
        raise NoSuch(_("That account is not a member of this group.")) from None


def hand_over(session: Session, user_id: int, group_id: int, member_id: int) -> User:
    """Make the member ``member_id`` the group's owner; the owner ``user_id`` stays in it as a
    member (and may then leave). Returns the new owner's account; commits.

    Raises :class:`NotAllowed` unless ``user_id`` is the group's owner (a hand-over tapped twice,
    or on two phones at once: the first one made them a member), :class:`NoSuch` when
    ``member_id`` is not a member of the group, is its owner already, or is ``user_id``. Two
    conditional UPDATEs in one transaction: two hand-overs at once leave exactly one owner.
    """
    if member_id == user_id:
        _require_owner(session, user_id, group_id)
        raise NoSuch(_("You cannot hand the group to yourself: choose another member."))

    def change_role(account: int, was: str, now: str) -> bool:
        found = (Membership.group_id == group_id) & (Membership.user_id == account) & (Membership.role == was)
        return bool(session.execute(update(Membership).where(found).values(role=now)).rowcount)

    if not change_role(user_id, OWNER, MEMBER):
        session.rollback()
        raise _only_the_owner(session, group_id)
    if not change_role(member_id, MEMBER, OWNER):
        session.rollback()
        raise NoSuch(_("That account is not a member of this group."))
    session.commit()
    return session.get(User, member_id)


def leave(session: Session, user_id: int, group_id: int) -> None:
    """The account leaves the group (a member only: the owner keeps the group). Commits."""
    m = membership(session, user_id, group_id)
    if m is None:
        raise NotAllowed(_("You are not a member of that group."))
    owner_stays = _("The owner cannot leave the group: make another member its owner first "
                    "(on the group's page, under Members), then leave it.")
    if m.role == OWNER:
        raise NotAllowed(owner_stays)
    if not _delete_member_row(session, m):
        session.rollback()
        now = membership(session, user_id, group_id)
        raise NotAllowed(owner_stays if now is not None else _("You are not a member of that group."))
    session.commit()
    if cookie.get("group_id") == group_id:
        cookie.pop("group_id", None)
    g.pop("current_group", None)
