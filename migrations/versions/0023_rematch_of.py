"""the game a rematch was made from

Revision ID: rematch_of
Revises: started_by
Create Date: 2026-12-06

A finished game's page leads to its rematch ("You started a rematch. Open the rematch") and
offers no second one. The rematch was found as any later game of the group with the same
kind, players and options: a game set up by hand with the table's players while this one was
still being played passed for its rematch, and the page offered no Rematch (found by a review).
``game.rematch_of`` is the game whose Rematch made it. Games made before are given the newest
earlier game of the same group, kind, players and options that was finished before they were
set up (none of its entries is newer): what the page showed then, less the games set up while
the other was still being played.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "rematch_of"
down_revision: Union[str, None] = "started_by"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("rematch_of", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_game_rematch_of_game", "game", ["rematch_of"], ["id"])
        batch.create_index("ix_game_rematch_of", ["rematch_of"], unique=False)
    op.execute(sa.text(
        "UPDATE game SET rematch_of = (SELECT e.id FROM game AS e WHERE e.group_id = game.group_id "
        "AND e.game = game.game AND e.players = game.players AND e.options = game.options "
        "AND e.id < game.id AND e.finished AND NOT e.practice AND NOT EXISTS (SELECT 1 FROM entry "
        "WHERE entry.game_id = e.id AND entry.created_at > game.created_at) ORDER BY e.id DESC LIMIT 1) "
        "WHERE NOT game.practice"))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_index("ix_game_rematch_of")
        batch.drop_constraint("fk_game_rematch_of_game", type_="foreignkey")
        batch.drop_column("rematch_of")
