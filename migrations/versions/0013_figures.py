"""per game and seat figures, and snapshots of replayed games

Revision ID: figures
Revises: ratelimit
Create Date: 2026-11-30

``game_figures`` is filled here for every existing game (one replay each);
``game_snapshot`` starts empty: a game's first request after the upgrade
replays its log and its next change stores the snapshot.
"""
import json
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401


revision: str = "figures"
down_revision: Union[str, None] = "ratelimit"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

FIGURES = ("pots", "mitchis", "lives_lost", "challenges_won", "mia_challenges_won", "runs", "rounds_taken")


def upgrade() -> None:
    op.create_table(
        "game_snapshot",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("rules", sa.Integer(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_game_snapshot_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", name="pk_game_snapshot"),
    )
    figures = op.create_table(
        "game_figures",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        *[sa.Column(name, sa.Integer(), nullable=False) for name in FIGURES],
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_game_figures_game_id_game"),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_game_figures"),
    )
    _fill(figures)


def _fill(figures) -> None:
    """One replay per existing game, its figures written (the same code as a change writes)."""
    from scorekeeper.rules import record as records
    from scorekeeper.services import stats

    conn = op.get_bind()
    games = conn.execute(sa.text("SELECT id, game, players, options FROM game ORDER BY id")).all()
    for game_id, game, players, options in games:
        log = [json.loads(d) for (d,) in conn.execute(
            sa.text("SELECT data FROM entry WHERE game_id = :g AND status = 'active' ORDER BY seq"), {"g": game_id})]
        names = json.loads(players)
        try:
            summary = records.replay(records.make_record(game, names, json.loads(options), log))
        except records.ReplayError:  # a log the rules refuse now: no figures, the game still lists
            continue
        figs = stats.game_figures(game, names, summary)
        conn.execute(figures.insert(), [{"game_id": game_id, "seat": seat, **figs[p]}
                                        for seat, p in enumerate(names)])


def downgrade() -> None:
    op.drop_table("game_figures")
    op.drop_table("game_snapshot")
