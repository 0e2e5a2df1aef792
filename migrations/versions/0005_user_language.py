"""the language of each account (None: the browser's)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision: str = "0005"
down_revision: Union[str, None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch rebuild): SQLite keeps the index on lower(username).
    op.add_column("user", sa.Column("language", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("user") as batch_op:
        batch_op.drop_column("language")
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        conn.execute(sa.text("DROP INDEX IF EXISTS uq_user_username_lower"))
        op.create_index("uq_user_username_lower", "user", [sa.text("lower(username)")], unique=True)
