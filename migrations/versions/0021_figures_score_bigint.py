"""a seat's score in a game's figures is a 64-bit number

Revision ID: score_bigint
Revises: player_ids
Create Date: 2026-12-04

``game_figures.score`` held a 32-bit number. Mice and Men penalties may be up to
999,999,999 each (docs/rules.md §Options), so a score adding them up passed 2,147,483,647
after three rounds, and PostgreSQL refused the figures with "integer out of range": the
entry, or the load of such a record, failed with a server error. A 64-bit number holds
more than nine million such rounds. On SQLite an INTEGER already holds 64 bits; the
table is rebuilt there only so that its declared type is the model's.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "score_bigint"
down_revision: Union[str, None] = "player_ids"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game_figures") as batch:
        batch.alter_column("score", existing_type=sa.Integer(), type_=sa.BigInteger(),
                           existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("game_figures") as batch:
        batch.alter_column("score", existing_type=sa.BigInteger(), type_=sa.Integer(),
                           existing_nullable=False)
