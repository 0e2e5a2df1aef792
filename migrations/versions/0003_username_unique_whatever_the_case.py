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
    op.create_index("uq_user_username_lower", "user", [sa.text("lower(username)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_user_username_lower", table_name="user")
