"""Table models only. Input is validated by forms and the rules engine first."""

from __future__ import annotations

from datetime import datetime, timezone

from flask_login import UserMixin
from sqlalchemy import Index, MetaData, Text, UniqueConstraint, func, text
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


def utcnow() -> datetime:
    """Now, aware, in UTC (stored as UTC; shown in the group's time zone)."""
    return datetime.now(timezone.utc)


class User(UserMixin, SQLModel, table=True):
    """An account; it owns its tables (games). Names are ASCII and unique whatever the case."""

    __table_args__ = (Index("uq_user_username_lower", func.lower(text("username")), unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(index=True, unique=True, max_length=40)
    password_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    #: The group's time zone (IANA name, such as "Europe/Berlin"); times are shown in it.
    timezone: str = Field(default="UTC", max_length=64, sa_column_kwargs={"server_default": "UTC"})


class Game(SQLModel, table=True):
    """One game at a table: its game kind, seats (JSON list), options (JSON object).

    ``version`` counts every change to the log (entry, undo, correction); a form
    carries the version it was made for, so a stale or repeated post is refused.
    ``finished`` and ``rounds`` mirror the replayed state for the lists.
    """

    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="user.id", index=True)
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

    __table_args__ = (Index("ix_game_owner_id_played_at", "owner_id", "played_at"),)


class Player(SQLModel, table=True):
    """A person who plays at the account's tables: the same profile across its games.

    ``name_key`` is ``name.casefold()``: a name is unique per account whatever its case.
    """

    __table_args__ = (UniqueConstraint("owner_id", "name_key", name="uq_player_owner_id_name_key"),)

    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="user.id", index=True)
    name: str = Field(max_length=40)
    name_key: str = Field(max_length=40)
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
    """One entry of a game's log, as a JSON object (GAME-RECORD.md).

    ``status``: ``active`` (in the log), ``undone``, or ``replaced`` (by the
    correction ``replaced_by_id``). The log is the active entries by ``seq``.
    Nothing is deleted.
    """

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seq: int
    data: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default="active", max_length=10)
    replaced_by_id: int | None = Field(default=None, foreign_key="entry.id")
    created_at: datetime = Field(default_factory=utcnow)
