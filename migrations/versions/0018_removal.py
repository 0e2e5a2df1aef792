"""members removed by the owner, so an old invite link does not bring them back

Revision ID: removal
Revises: undone_by
Create Date: 2026-12-01

An invite link adds whoever opens it while it is not revoked. A member the owner
removed could open the same link and be back at once. ``removal`` keeps who was
removed from which group and when; an invite made before that does not add them
(one made after does). Members removed before this revision have no row: nothing
to fill it from.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "removal"
down_revision: Union[str, None] = "undone_by"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "removal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("removed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["group.id"], name="fk_removal_group_id_group"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name="fk_removal_user_id_user"),
        sa.PrimaryKeyConstraint("id", name="pk_removal"),
        sa.UniqueConstraint("group_id", "user_id", name="uq_removal_group_id_user_id"),
    )


def downgrade() -> None:
    op.drop_table("removal")
