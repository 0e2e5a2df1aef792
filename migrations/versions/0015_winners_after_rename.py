"""a renamed or merged player's games list their winners by the new name

Revision ID: winners_names
Revises: export_rows
Create Date: 2026-11-30

Before, a rename or a merge rewrote a game's seats and entries but not the winners
copied onto its row for the lists (``game.winners``), which kept the old name. Every
finished game whose listed winners are not all among its seats is replayed once and
its winners written again. Nothing to undo on the way down.
"""
import json
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "winners_names"
down_revision: Union[str, None] = "export_rows"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    from scorekeeper.rules import record as records

    conn = op.get_bind()
    games = conn.execute(sa.text("SELECT id, game, players, options, winners FROM game WHERE finished")).all()
    for game_id, game, players, options, winners in games:
        names = json.loads(players)
        if set(json.loads(winners or "[]")) <= set(names):
            continue
        log = [json.loads(d) for (d,) in conn.execute(
            sa.text("SELECT data FROM entry WHERE game_id = :g AND status = 'active' ORDER BY seq"), {"g": game_id})]
        try:
            summary = records.replay(records.make_record(game, names, json.loads(options), log))
        except records.ReplayError:  # a log the rules refuse now: left as it was
            continue
        conn.execute(sa.text("UPDATE game SET winners = :w WHERE id = :g"),
                     {"w": json.dumps(list(summary["winners"])), "g": game_id})


def downgrade() -> None:
    pass
