"""the export's CSV rounds per game, stored so the export need not replay

Revision ID: export_rows
Revises: figures
Create Date: 2026-11-30

``export_state`` says at which game version (and rules version) a game's stored
rounds were written, ``export_round`` holds them. Both are filled here for every
existing game (one replay each); a log the rules refuse gets none and is replayed
(and refused) by the export as before.
"""
import json
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "export_rows"
down_revision: Union[str, None] = "figures"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

def upgrade() -> None:
    state = op.create_table(
        "export_state",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("rules", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_export_state_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", name="pk_export_state"),
    )
    rounds = op.create_table(
        "export_round",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("cells", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_export_round_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", "position", name="pk_export_round"),
    )
    _fill(state, rounds)


def _fill(state, rounds) -> None:
    """One replay per existing game, its rounds written (the same code as a change writes)."""
    from scorekeeper.rules import RULES_VERSION
    from scorekeeper.rules import record as records
    from scorekeeper.services import export_rows

    conn = op.get_bind()
    games = conn.execute(sa.text("SELECT id, game, players, options, version FROM game ORDER BY id")).all()
    for game_id, game, players, options, version in games:
        log = [json.loads(d) for (d,) in conn.execute(
            sa.text("SELECT data FROM entry WHERE game_id = :g AND status = 'active' ORDER BY seq"), {"g": game_id})]
        names, opts = json.loads(players), json.loads(options)
        try:
            summary = records.replay(records.make_record(game, names, opts, log))
        except records.ReplayError:  # a log the rules refuse now: nothing stored
            continue
        texts = export_rows.round_cells(game, names, opts, summary["rounds"])
        conn.execute(state.insert(), [{"game_id": game_id, "version": version, "rules": RULES_VERSION,
                                       "rounds": len(texts)}])
        if texts:
            conn.execute(rounds.insert(), [{"game_id": game_id, "position": i, "cells": t}
                                           for i, t in enumerate(texts, start=1)])


def downgrade() -> None:
    op.drop_table("export_round")
    op.drop_table("export_state")
