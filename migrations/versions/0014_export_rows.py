"""the export's CSV rounds per game, stored so the export need not replay

Revision ID: export_rows
Revises: figures
Create Date: 2026-11-30

``export_state`` says at which game version (and rules version) a game's stored
rounds were written, ``export_round`` holds them. Both are filled here for every
existing game (one replay each); a log the rules refuse gets none and is replayed
(and refused) by the export as before.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "export_rows"
down_revision: Union[str, None] = "figures"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

def upgrade() -> None:
    op.create_table(
        "export_state",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("rules", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_export_state_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", name="pk_export_state"),
    )
    op.create_table(
        "export_round",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("cells", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_export_round_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", "position", name="pk_export_round"),
    )
    # One replay per existing game, its rounds written (the same code as a change writes).
    from scorekeeper.services import export_rows

    export_rows.fill_from_logs(op.get_bind())


def downgrade() -> None:
    op.drop_table("export_round")
    op.drop_table("export_state")
