"""account names unique whatever the case

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "0003"
down_revision: Union[str, None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # "Ann" and "ann" are one account: two sign-ups racing cannot both land.
    _rename_case_twins()
    op.create_index("uq_user_username_lower", "user", [sa.text("lower(username)")], unique=True)


def _rename_case_twins() -> None:
    """Accounts made before this revision may differ only in case ("Ann" and "ann"): the oldest
    keeps its name, each later one becomes "<name>-<id>" (cut to 40 characters), with a note in
    the log, so the unique index can be made and the app starts. Nothing else changes: the
    account keeps its id, password, games and groups."""
    import logging

    log = logging.getLogger("alembic.runtime.migration")
    conn = op.get_bind()
    rows = conn.execute(sa.text('SELECT id, username FROM "user" ORDER BY id')).all()
    taken = {name.lower() for _, name in rows}
    seen: set[str] = set()
    for user_id, name in rows:
        if name.lower() not in seen:
            seen.add(name.lower())
            continue
        suffix = f"-{user_id}"
        new = name[: 40 - len(suffix)] + suffix
        n = 2
        while new.lower() in taken:
            suffix = f"-{user_id}-{n}"
            new, n = name[: 40 - len(suffix)] + suffix, n + 1
        taken.add(new.lower())
        conn.execute(sa.text('UPDATE "user" SET username = :new WHERE id = :id'), {"new": new, "id": user_id})
        log.warning("account %r (id %s) renamed to %r: an older account has the same name whatever "
                    "the case; it logs in as %r from now on", name, user_id, new, new)


def downgrade() -> None:
    op.drop_index("uq_user_username_lower", table_name="user")
