"""rate-limit counters in the database, shared by every worker and instance

Revision ID: ratelimit
Revises: session_token
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "ratelimit"
down_revision: Union[str, None] = "session_token"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "rate_limit",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_rate_limit"),
    )


def downgrade() -> None:
    op.drop_table("rate_limit")
