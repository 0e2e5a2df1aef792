"""Creating forms store once: a one-time token per form, kept with what its first sending made.

Every form that creates something (register, new game, rematch, import, ...) carries a hidden
field ``once`` (``{{ once_field() }}`` in the template). The view wraps its creation in
:func:`create_once`::

    token = once.token_from(request.form)          # None when the form has none; BadToken if malformed
    outcome = once.create_once(session, "game", token, current_user.id, make)
    return redirect(url_for("games.play", game_id=outcome.target_id), 303)

``make()`` adds the new rows to the session, flushes and returns the new thing's id. The token
row is stored in the same transaction, with a unique constraint: a repeated sending (a double tap,
a resend after a lost answer) finds the first one's result without calling ``make`` again, and
of two racing sendings the second's transaction fails on the constraint, is rolled back, and
answers with the first one's result. Nothing is created twice and no race ends in a 500.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Callable

from flask_babel import gettext as _
from markupsafe import Markup
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..models import OnceToken

FIELD = "once"
_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


class BadToken(ValueError):
    """The form's one-time token is malformed, or belongs to another account or form."""


@dataclass(frozen=True)
class Outcome:
    """What a sending made: ``target_id`` (the new thing's id); ``repeated`` is True when an
    earlier sending with the same token made it and this one created nothing."""

    target_id: int
    repeated: bool


def new_token() -> str:
    """A fresh token: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


def field() -> Markup:
    """The hidden ``once`` input for a creating form (a Jinja global, ``{{ once_field() }}``).

    A form shown again after a refused sending (a mistake, a seat button) keeps the token it
    came with, since that sending made nothing; any other showing gets a new one.
    """
    from flask import request

    token = request.form.get(FIELD, "") if request.method == "POST" else ""
    if not _SHAPE.fullmatch(token):
        token = new_token()
    return Markup('<input type="hidden" name="{}" value="{}">').format(FIELD, token)


def token_from(form) -> str | None:
    """The token a form carried, None if it carried none; raise :class:`BadToken` if malformed."""
    token = form.get(FIELD)
    if token in (None, ""):
        return None
    if not _SHAPE.fullmatch(token):
        raise BadToken(_("This form's one-time token is malformed, so nothing was saved; "
                         "reload the page and send it again."))
    return token


def find(session: Session, token: str | None, kind: str, user_id: int | None) -> Outcome | None:
    """The result of an earlier sending with ``token``, or None if it was never used.

    Raises :class:`BadToken` if the token was used by another account or for another form.
    """
    if token is None:
        return None
    row = session.exec(select(OnceToken).where(OnceToken.token == token)).first()
    if row is None:
        return None
    if row.kind != kind or row.user_id != user_id or row.target_id is None:
        raise BadToken(_("This form was already sent from another page; reload the page and send it again."))
    return Outcome(row.target_id, repeated=True)


def create_once(session: Session, kind: str, token: str | None, user_id: int | None,
                make: Callable[[], int]) -> Outcome:
    """Create once per token and commit; see the module doc.

    ``kind``: the form's name (at most 20 characters); ``user_id``: the sending account (None
    for register); ``make``: adds rows, flushes, returns the new id. With ``token`` None (a
    client that sends no token) it simply creates. Raises :class:`BadToken` (see :func:`find`),
    and re-raises any other ``IntegrityError`` of ``make`` after rolling back.
    """
    earlier = find(session, token, kind, user_id)
    if earlier is not None:
        return earlier
    try:
        target_id = make()
        if token is not None:
            session.add(OnceToken(token=token, kind=kind, user_id=user_id, target_id=target_id))
        session.commit()
    except IntegrityError:
        session.rollback()
        earlier = find(session, token, kind, user_id)  # a racing sending with this token won
        if earlier is None:
            raise
        return earlier
    return Outcome(target_id, repeated=False)
