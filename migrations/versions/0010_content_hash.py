"""content hash of every game, for the import's "already loaded" check

Adds ``game.content_hash`` (SHA-256 of the game, seats, options and active log as
canonical JSON) with an index on ``(group_id, content_hash)``, and fills it for every
existing game, so loading a record checks "already here?" with one indexed look-up.

Revision ID: content_hash
Revises: removed_at
Create Date: 2026-11-30
"""
from typing import Sequence, Union

import hashlib
import json

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision: str = "content_hash"
down_revision: Union[str, None] = "removed_at"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _hash(game: str, players: list, options: dict, entries: list) -> str:
    # The same formula as scorekeeper.services.games.content_hash (a test checks they agree);
    # written out here so this revision keeps working whatever the app's code becomes.
    canonical = json.dumps([game, list(players), options, list(entries)], sort_keys=True,
                           separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64),
                                      nullable=True))
        batch_op.create_index("ix_game_group_id_content_hash", ["group_id", "content_hash"], unique=False)

    conn = op.get_bind()
    game = sa.table("game", sa.column("id", sa.Integer), sa.column("game", sa.String),
                    sa.column("players", sa.Text), sa.column("options", sa.Text),
                    sa.column("content_hash", sa.String))
    entry = sa.table("entry", sa.column("game_id", sa.Integer), sa.column("seq", sa.Integer),
                     sa.column("data", sa.Text), sa.column("status", sa.String))
    rows = conn.execute(sa.select(game.c.id, game.c.game, game.c.players, game.c.options)
                        .order_by(game.c.id)).all()
    for start in range(0, len(rows), 500):
        chunk = rows[start:start + 500]
        logs: dict[int, list] = {r.id: [] for r in chunk}
        for game_id, data in conn.execute(
                sa.select(entry.c.game_id, entry.c.data)
                .where(entry.c.game_id.in_(list(logs)), entry.c.status == "active")
                .order_by(entry.c.game_id, entry.c.seq)):
            logs[game_id].append(json.loads(data))
        for r in chunk:
            digest = _hash(r.game, json.loads(r.players), json.loads(r.options), logs[r.id])
            conn.execute(game.update().where(game.c.id == r.id).values(content_hash=digest))


def downgrade() -> None:
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index("ix_game_group_id_content_hash")
        batch_op.drop_column("content_hash")
