"""an index on the entry a correction replaced

Revision ID: replaced_by_index
Revises: winners_names
Create Date: 2026-12-01

A stale tap is answered with what changed the game last, and whether that entry is a
correction: the entry whose ``replaced_by_id`` names it (``games.last_entry``). Without an
index on ``entry.replaced_by_id`` that look-up read every entry of every game (SQLite built
an automatic index for each such answer; PostgreSQL scanned the table), so it grew with the
years of games stored.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "replaced_by_index"
down_revision: Union[str, None] = "winners_names"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("entry") as batch:
        batch.create_index("ix_entry_replaced_by_id", ["replaced_by_id"])


def downgrade() -> None:
    with op.batch_alter_table("entry") as batch:
        batch.drop_index("ix_entry_replaced_by_id")
