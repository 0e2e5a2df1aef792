"""per-account session token (revocable cookies) and creating forms' one-time tokens

Revision ID: session_token
Revises: content_hash
Create Date: 2026-11-30
"""
import secrets
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "session_token"
down_revision: Union[str, None] = "content_hash"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # A plain ADD COLUMN (no batch rebuild): SQLite keeps the index on lower(username).
    op.add_column("user", sa.Column("session_token", sqlmodel.sql.sqltypes.AutoString(length=64),
                                    nullable=False, server_default=""))
    # Every existing account gets its own random token (old cookies end: one more login).
    conn = op.get_bind()
    user = sa.table("user", sa.column("id", sa.Integer), sa.column("session_token", sa.String))
    for (user_id,) in conn.execute(sa.select(user.c.id)).all():
        conn.execute(user.update().where(user.c.id == user_id)
                     .values(session_token=secrets.token_urlsafe(32)))
    op.create_table(
        "once_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name=op.f("fk_once_token_user_id_user")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_once_token")),
        sa.UniqueConstraint("token", name=op.f("uq_once_token_token")),
    )
    op.create_index(op.f("ix_once_token_user_id"), "once_token", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_once_token_user_id"), table_name="once_token")
    op.drop_table("once_token")
    with op.batch_alter_table("user") as batch:
        batch.drop_column("session_token")
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":  # the rebuild drops the expression index: make it again
        conn.execute(sa.text("DROP INDEX IF EXISTS uq_user_username_lower"))
        op.create_index("uq_user_username_lower", "user", [sa.text("lower(username)")], unique=True)
