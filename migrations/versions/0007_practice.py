"""practice games: game.practice and game.practice_state

``practice`` marks a game played against virtual players (listed apart, never
counted in stats); ``practice_state`` holds what the practice page has rolled
but not yet entered (the person's turn in progress), as JSON.

Revision ID: practice
Revises: name_keys
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "practice"
down_revision: Union[str, None] = "name_keys"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("practice", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("practice_state", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("practice_state")
        batch_op.drop_column("practice")
