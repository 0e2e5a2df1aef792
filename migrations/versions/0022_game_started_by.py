"""the account that set a game up

Revision ID: started_by
Revises: score_bigint
Create Date: 2026-12-04

A practice game is one person's game against virtual players, but it belonged only to
the group: another member was offered it ("Go on with it") and could play it as its
person (found by a review). ``game.started_by`` is the account that set the game up; a
practice game is played by that account alone. Practice games set up before are given
the account of their first entry (the roll for who starts, entered by the person who
set the game up); one without entries (Mice and Men opens without a roll) stays
without, and any member may play it, as before. Other games are left without: nothing
reads it for them yet, and an imported game was set up elsewhere.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "started_by"
down_revision: Union[str, None] = "score_bigint"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("started_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_game_started_by_user", "user", ["started_by"], ["id"])
    op.execute(sa.text(
        "UPDATE game SET started_by = (SELECT entry.entered_by FROM entry WHERE entry.game_id = game.id "
        "ORDER BY entry.seq, entry.id LIMIT 1) WHERE game.practice"))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_constraint("fk_game_started_by_user", type_="foreignkey")
        batch.drop_column("started_by")
