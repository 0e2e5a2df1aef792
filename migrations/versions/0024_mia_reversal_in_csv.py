"""Mia's export rows say who reversed the direction

Revision ID: mia_reversal_csv
Revises: rematch_of
Create Date: 2026-12-07

With option ``mia_reverses``, the winner of a Mia challenge may reverse the direction of
play (docs/rules.md §Mia 7). The CSV of rounds did not say so: a reversal was in the log
and the game's summary, and nowhere in ``games.csv``. The winner's ``detail`` cell now ends
``reversed the direction``. Every Mia game's stored rounds are written again from its log here
(one replay each), as migration ``mia_trail`` did, so that the export and the game's own CSV
agree on games stored before. Going down leaves the rows as they are: older code reads them as
before.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "mia_reversal_csv"
down_revision: Union[str, None] = "rematch_of"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    from scorekeeper.services import export_rows

    export_rows.fill_from_logs(op.get_bind(), "mia")


def downgrade() -> None:
    pass
