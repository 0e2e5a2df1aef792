"""Mia's export rows name who announced and passed, and who was out

Revision ID: mia_trail
Revises: removal
Create Date: 2026-12-02

The export's CSV rounds of a Mia game said "watched" for everyone but the cup owner and
the challenger: a player who announced or passed earlier in the round, and one with no
lives left. Mia's rounds now keep their trail (docs/game-record.md §Replay), and the cells
say ``rolled`` or ``passed`` (with the announcements and passes) and ``out``. Every Mia game's stored
rounds are written again from its log here (one replay each), so that the export and the
game's own CSV agree on games stored before. Going down leaves the rows as they are: older
code reads them as before.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "mia_trail"
down_revision: Union[str, None] = "removal"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    from scorekeeper.services import export_rows

    export_rows.fill_from_logs(op.get_bind(), "mia")


def downgrade() -> None:
    pass
