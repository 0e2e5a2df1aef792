"""when an entry was undone, and by whom

Revision ID: undone_by
Revises: replaced_by_index
Create Date: 2026-12-01

An undone entry kept only when it was entered and by whom. A second phone's stale
tap after an undo could not say who undid it, and the game's log showed the time of
the entry as if it were the time of the undo. ``entry.undone_at`` and
``entry.undone_by`` are set by each undo from now on; entries undone before stay
without them (nothing to fill them from).
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "undone_by"
down_revision: Union[str, None] = "replaced_by_index"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("entry") as batch:
        batch.add_column(sa.Column("undone_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("undone_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_entry_undone_by_user", "user", ["undone_by"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("entry") as batch:
        batch.drop_constraint("fk_entry_undone_by_user", type_="foreignkey")
        batch.drop_column("undone_by")
        batch.drop_column("undone_at")
