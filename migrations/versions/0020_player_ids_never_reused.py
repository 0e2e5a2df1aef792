"""a player's id is never given to another player (SQLite)

Revision ID: player_ids
Revises: mia_trail
Create Date: 2026-12-02

A merge removes the emptied profile. On SQLite a table without ``AUTOINCREMENT`` gives the
next new row the highest id that is free, so the next player added anywhere took the id of a
profile merged away when it had the highest: a page or link kept from before the merge
(``/players/<id>``) then showed somebody else. The ``player`` table is rebuilt with
``AUTOINCREMENT`` (its rows, ids, constraints and index kept; the tables that refer to it refer
to it by name). An id freed before this revision is not known any more and stays free to take
once. PostgreSQL's sequences never give an id twice: nothing to do there. Going down rebuilds
the table as it was.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "player_ids"
down_revision: Union[str, None] = "mia_trail"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table("player", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}):
        pass


def upgrade() -> None:
    _rebuild(True)


def downgrade() -> None:
    _rebuild(False)
