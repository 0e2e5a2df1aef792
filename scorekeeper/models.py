"""Table models only. Input is validated by forms and the rules engine first."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from flask_login import UserMixin
from sqlalchemy import BigInteger, Index, LargeBinary, MetaData, Text, UniqueConstraint, func, text
from sqlalchemy import false as sa_false
from sqlmodel import Column, Field, SQLModel

# Named constraints, so batch migrations on SQLite can alter them later.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
assert isinstance(SQLModel.metadata, MetaData)


#: Room for a player's whole name key: case folding makes a 40-character name at most 120 long.
NAME_KEY_LENGTH = 160


def new_session_token() -> str:
    """A fresh random session token (43 URL-safe characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def utcnow() -> datetime:
    """Now, aware, in UTC (stored as UTC; shown in the group's time zone)."""
    return datetime.now(timezone.utc)


class User(UserMixin, SQLModel, table=True):
    """An account: a person who logs in. It belongs to one or more groups (:class:`Membership`).
    Names are ASCII and unique whatever the case."""

    __table_args__ = (Index("uq_user_username_lower", func.lower(text("username")), unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(index=True, unique=True, max_length=40)
    password_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    #: The language the app speaks to this account ("en", "de"); None: the browser's.
    language: str | None = Field(default=None, max_length=8)
    #: Part of every session's and "stay logged in" cookie's id (``get_id()``): replaced on logout
    #: and on a password change, which ends every copy of those cookies.
    session_token: str = Field(default_factory=new_session_token, max_length=64,
                               sa_column_kwargs={"server_default": ""})

    def get_id(self) -> str:
        """Flask-Login's id for the cookies: ``"<user id>:<session token>"``."""
        return f"{self.id}:{self.session_token}"


class Group(SQLModel, table=True):
    """The people who play together: games, players, history and stats belong to a group."""

    __tablename__ = "group"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=40)
    #: The group's time zone (IANA name, such as "Europe/Berlin"); times are shown in it.
    timezone: str = Field(default="UTC", max_length=64, sa_column_kwargs={"server_default": "UTC"})
    created_at: datetime = Field(default_factory=utcnow)


class Membership(SQLModel, table=True):
    """An account in a group, as ``owner`` (invites, removes members, renames) or ``member``."""

    __table_args__ = (UniqueConstraint("group_id", "user_id", name="uq_membership_group_id_user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="group.id", index=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    role: str = Field(default="member", max_length=10)
    created_at: datetime = Field(default_factory=utcnow)


class Removal(SQLModel, table=True):
    """A member the group's owner removed, and when (the latest time): an invite made before
    ``removed_at`` does not let them back in; one made after does (the owner asked them
    again), and joining by it ends the removal. A member who left of their own accord has none."""

    __table_args__ = (UniqueConstraint("group_id", "user_id", name="uq_removal_group_id_user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="group.id")
    user_id: int = Field(foreign_key="user.id")
    removed_at: datetime = Field(default_factory=utcnow)


class Invite(SQLModel, table=True):
    """An invite link to a group: an unguessable ``token``; revoked invites add nobody."""

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="group.id", index=True)
    token: str = Field(max_length=64, unique=True)
    created_by: int = Field(foreign_key="user.id")
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class Game(SQLModel, table=True):
    """One game at a table: its game kind, seats (JSON list), options (JSON object).

    ``version`` counts every change to the log (entry, undo, correction); a form
    carries the version it was made for, so a stale or repeated post is refused.
    ``finished`` and ``rounds`` mirror the replayed state for the lists.
    """

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="group.id", index=True)
    game: str = Field(max_length=20)
    players: str = Field(sa_column=Column(Text, nullable=False))
    options: str = Field(sa_column=Column(Text, nullable=False))
    version: int = 0
    finished: bool = False
    rounds: int = 0
    winners: str = Field(default="[]", sa_column=Column(Text, nullable=False, server_default="[]"))
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)
    #: When the game was played (UTC): set up here, or the imported record's ``played_at``.
    played_at: datetime = Field(default_factory=utcnow)
    #: When the game was removed (a test game, a mistake): it leaves the lists and the stats
    #: and can be restored for 30 days from the Account page; nothing of it is deleted.
    removed_at: datetime | None = Field(default=None, nullable=True)
    #: The read-only live link's token ("Show to the table"); None while the link is off.
    live_token: str | None = Field(default=None, max_length=64, unique=True)
    #: A practice game against virtual players: listed apart, never in the players' stats.
    practice: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    #: The account that set the game up (None for imported games and those set up before
    #: migration 0022, but for practice games it could tell). A practice game is its alone.
    started_by: int | None = Field(default=None, foreign_key="user.id")
    #: The game whose Rematch made this one (None for others; migration 0023 gave games made
    #: before the newest earlier one with the same players and options finished before them).
    rematch_of: int | None = Field(default=None, foreign_key="game.id", index=True)
    #: Practice only: what was rolled but not entered yet (the person's turn in progress), JSON.
    practice_state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: SHA-256 of the game, seats, options and active log (``services.games.content_hash``),
    #: set by import, undo, redo and corrections; None after an entry (hashing reads the whole
    #: log) until the next import fills it: "is this record already here?" is one indexed look-up.
    content_hash: str | None = Field(default=None, max_length=64)

    __table_args__ = (Index("ix_game_group_id_played_at", "group_id", "played_at"),
                      Index("ix_game_group_id_content_hash", "group_id", "content_hash"))


class Player(SQLModel, table=True):
    """A person who plays at the group's tables: the same profile across its games.

    ``name_key`` is :func:`scorekeeper.rules.names.name_key` of the name, whole (case folding can
    make a 40-character name up to three times longer): one profile per name, as people read it, in a group
    (docs/game-record.md §Names).
    """

    #: ``sqlite_autoincrement``: a merged-away profile's id is never another player's (on SQLite the
    #: next row would take the highest free id; migration 0020).
    __table_args__ = (UniqueConstraint("group_id", "name_key", name="uq_player_group_id_name_key"),
                      {"sqlite_autoincrement": True})

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="group.id", index=True)
    name: str = Field(max_length=40)
    name_key: str = Field(max_length=NAME_KEY_LENGTH)
    created_at: datetime = Field(default_factory=utcnow)


class GamePlayer(SQLModel, table=True):
    """One seat of a game linked to a player profile (``seat`` counts from 0, clockwise)."""

    __tablename__ = "game_player"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_game_player_game_id_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    seat: int


class Entry(SQLModel, table=True):
    """One entry of a game's log, as a JSON object (docs/game-record.md).

    ``status``: ``active`` (in the log), ``undone``, ``redone`` (undone, then put
    back by Redo as a new active row), or ``replaced`` (by the correction
    ``replaced_by_id``). The log is the active entries by ``seq``.
    Nothing is deleted.
    """

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seq: int
    data: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default="active", max_length=10)
    replaced_by_id: int | None = Field(default=None, foreign_key="entry.id", index=True)
    #: An undone entry that Redo may still put back: set by undo, cleared by any other change.
    redoable: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})
    created_at: datetime = Field(default_factory=utcnow)
    #: The account that entered it (None for imported entries and older ones).
    entered_by: int | None = Field(default=None, foreign_key="user.id")
    #: When it was undone, and by which account (None: not undone, or undone before
    #: migration 0017 kept it, or the account is not known).
    undone_at: datetime | None = None
    undone_by: int | None = Field(default=None, foreign_key="user.id")


class OnceToken(SQLModel, table=True):
    """A creating form's one-time token, stored with what its first sending made.

    ``kind`` names the form ("register", "game", "import", ...); ``target_id`` is the id of
    what was made (an account, a game); ``user_id`` is the account that sent it (None for
    register). The unique token makes a repeated or racing sending find the first one's result.
    See :mod:`scorekeeper.services.once`.
    """

    __tablename__ = "once_token"

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(max_length=64, unique=True)
    kind: str = Field(max_length=20)
    user_id: int | None = Field(default=None, foreign_key="user.id", index=True)
    target_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)


class RateLimit(SQLModel, table=True):
    """A rate-limit window (``scorekeeper.ratelimit.DatabaseStorage``): hits counted under
    ``key`` until ``expires_at`` (Unix time, seconds)."""

    __tablename__ = "rate_limit"

    key: str = Field(primary_key=True, max_length=255)
    hits: int = 0
    expires_at: float = 0.0


class GameSnapshot(SQLModel, table=True):
    """A game's replayed state at one ``version`` (pickled, the oldest rounds left out),
    written with every change so an entry replays nothing before it. Rebuilt from the
    log whenever it is missing, of another ``version`` or of another ``rules`` version:
    the log stays the only truth."""

    __tablename__ = "game_snapshot"

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    version: int
    rules: int
    entries: int  # active entries replayed into it
    state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class GameFigures(SQLModel, table=True):
    """One seat's figures in one game, written whenever the game changes, so the stats
    pages add them up in SQL instead of replaying games.

    ``score``: points, lives or penalty points now; ``won``/``shared``: a sole or shared
    win of a finished game; the rest count over the finished rounds (0 where a figure
    does not apply to the game).
    """

    __tablename__ = "game_figures"

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    seat: int = Field(primary_key=True)
    score: int = Field(default=0, sa_type=BigInteger)  # penalties pass 32 bits (migration score_bigint)
    won: bool = False
    shared: bool = False
    pots: int = 0
    mitchis: int = 0
    lives_lost: int = 0
    challenges_won: int = 0
    mia_challenges_won: int = 0
    runs: int = 0
    rounds_taken: int = 0



class ExportState(SQLModel, table=True):
    """Which version of a game its stored CSV rounds (:class:`ExportRound`) belong to.

    ``version`` and ``rules`` are the game's ``version`` and the rules version when the
    rounds were written, ``rounds`` how many finished rounds are stored. The export uses
    the stored rounds only while both still match; otherwise it replays the log.
    """

    __tablename__ = "export_state"

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    version: int
    rules: int
    rounds: int


class ExportRound(SQLModel, table=True):
    """One finished round of a game as the export's CSV writes it (``position``: 1-based,
    ``cells``: JSON ``[round number, [CSV text of action,detail,change,score_after per
    seat]]``); valid only while :class:`ExportState` matches the game."""

    __tablename__ = "export_round"

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    position: int = Field(primary_key=True)
    cells: str = Field(sa_column=Column(Text, nullable=False))
