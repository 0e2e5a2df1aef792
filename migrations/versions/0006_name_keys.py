"""player name keys whole and normalised (docs/game-record.md §Names)

The key was ``name.casefold()`` cut to 40 characters: two long names shared one profile, and
"José" typed with a combining accent was another player than "José". The column widens, every
key is recomputed with ``scorekeeper.rules.names.name_key``, and when two profiles of one
account now share a key the older one is kept and the other's seats move to it.

Revision ID: name_keys
Revises: 0005
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401

from scorekeeper.rules.names import name_key

revision: str = "name_keys"
down_revision: Union[str, None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=40), type_=sa.String(length=160),
                           existing_nullable=False)
    bind = op.get_bind()
    players = bind.execute(sa.text(
        "SELECT id, group_id, name FROM player ORDER BY group_id, created_at, id")).all()
    keep: dict[tuple[int, str], int] = {}
    for pid, group, name in players:
        key = (group, name_key(name))
        if key in keep:  # the older profile stays; this one's seats move to it
            bind.execute(sa.text("UPDATE game_player SET player_id = :keep WHERE player_id = :gone"),
                         {"keep": keep[key], "gone": pid})
            bind.execute(sa.text("DELETE FROM player WHERE id = :gone"), {"gone": pid})
        else:
            keep[key] = pid
    # Two steps, so no key is ever held twice on the way (the pair is unique).
    for (group, key), pid in keep.items():
        bind.execute(sa.text("UPDATE player SET name_key = :tmp WHERE id = :id"), {"tmp": f"#{pid}", "id": pid})
    for (group, key), pid in keep.items():
        bind.execute(sa.text("UPDATE player SET name_key = :key WHERE id = :id"), {"key": key, "id": pid})


def downgrade() -> None:
    bind = op.get_bind()
    # Back to the old key (a prefix of the case-folded name); merged profiles stay merged.
    for pid, name in bind.execute(sa.text("SELECT id, name FROM player")).all():
        bind.execute(sa.text("UPDATE player SET name_key = :key WHERE id = :id"),
                     {"key": f"#{pid}"[:40], "id": pid})
    used: set[tuple[int, str]] = set()
    for pid, group, name in bind.execute(sa.text("SELECT id, group_id, name FROM player ORDER BY id")).all():
        key = name.casefold()[:40]
        if (group, key) in used:  # two long names the old key cannot tell apart: keep them apart
            key = f"#{pid}"
        used.add((group, key))
        bind.execute(sa.text("UPDATE player SET name_key = :key WHERE id = :id"), {"key": key, "id": pid})
    with op.batch_alter_table("player") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=160), type_=sa.String(length=40),
                           existing_nullable=False)
