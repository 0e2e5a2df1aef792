"""Hypothesis over every POST route of the app (found from ``app.url_map``), logged in, with a
real game of each kind: random and hostile fields (huge numbers, NUL, odd Unicode, missing
fields, wrong types, big JSON, broken files). Never a 5xx; a refused request (4xx) changes no
table. On SQLite here and on PostgreSQL under ``tests/run.sh``. ``FUZZ_EXAMPLES`` sets the
number of requests (default 250); ``bench/fuzz.py`` sends 10,000 and more."""

from __future__ import annotations

import os

from ..fuzz_routes import Table, fuzz


def test_no_post_route_answers_5xx_and_a_refusal_changes_nothing(app):
    table = Table.set_up(app)
    assert len(table.post_rules()) >= 9  # every state-changing route of the app
    fuzz(table, int(os.environ.get("FUZZ_EXAMPLES", "250")))()
    refused = sum(n for (_, status), n in table.statuses.items() if 400 <= status < 500)
    done = sum(n for (_, status), n in table.statuses.items() if status < 400)
    assert refused and done, table.statuses  # both kinds were tried
