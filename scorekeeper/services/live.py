"""Read-only live links ("Show to the table") and the version checks that polls make.

A game's ``live_token`` opens a read-only view of it without an account. A
poll carries the version it shows; :func:`version_for_token` answers from the
game row alone, so an unchanged poll costs one indexed read and no replay.
"""

from __future__ import annotations

import secrets

from sqlalchemy import update
from sqlmodel import Session, select

from ..models import Game

TOKEN_BYTES = 16  # 128 bits: unguessable; 22 characters in the link


def turn_on(session: Session, game: Game) -> str | None:
    """Give ``game`` a new live token (a link already out stops working); commits. Returns it,
    or None for a removed game (also one removed by another phone since it was read: the
    token is set only on a row not removed, in the same statement)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    done = session.execute(update(Game).where(Game.id == game.id, Game.removed_at.is_(None))
                           .values(live_token=token)).rowcount == 1
    session.commit()
    session.refresh(game)
    return token if done else None


def turn_off(session: Session, game: Game) -> None:
    """Turn the live link off: its token then opens nothing (404). Commits."""
    game.live_token = None
    session.add(game)
    session.commit()


def _valid(token: str) -> bool:
    return bool(token) and len(token) <= 64


def game_for_token(session: Session, token: str) -> Game | None:
    """The game whose live link is ``token``, or None (turned off, replaced, never made, or the
    game removed)."""
    if not _valid(token):
        return None
    return session.exec(select(Game).where(Game.live_token == token, Game.removed_at.is_(None))).first()


def version_for_token(session: Session, token: str) -> tuple[int, int] | None:
    """``(game id, version)`` of the game behind ``token`` (one indexed read, no log), or None.
    The id counts as much as the version: the link moves to a rematch, whose version may equal
    the one the view shows (a loaded game and its rematch are both at version 0)."""
    if not _valid(token):
        return None
    row = session.exec(select(Game.id, Game.version)
                       .where(Game.live_token == token, Game.removed_at.is_(None))).first()
    return None if row is None else (row[0], row[1])


def version_of(session: Session, game_id: int) -> int | None:
    """The version of game ``game_id`` (no log read), or None."""
    return session.exec(select(Game.version).where(Game.id == game_id)).first()


def asked_version(raw: str | None) -> int | None:
    """The version a poll says it shows (``?v=``), or None if absent or not a small number."""
    if raw is None or not raw.isdigit() or len(raw) > 12:
        return None
    return int(raw)
