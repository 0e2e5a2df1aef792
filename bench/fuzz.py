"""The fuzz test of every POST route (``tests/fuzz_routes.py``) at length: 10,000 requests by
default.

Usage: ``.venv/bin/python bench/fuzz.py [EXAMPLES] [DATABASE_URL]`` (default 10000 on a
temporary SQLite file; give a PostgreSQL URL, such as the one ``tests/run.sh`` starts, to
fuzz it there). Prints the answers by route and status, and the time taken. Exits 1 on the
first 5xx or a refused request that changed a table (hypothesis prints the smallest such
request), or if fewer than 10,000 requests were asked for.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorekeeper import create_app  # noqa: E402
from tests.fuzz_routes import Table, fuzz  # noqa: E402

MINIMUM = 10_000


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else MINIMUM
    tmp = tempfile.mkdtemp()
    url = sys.argv[2] if len(sys.argv) > 2 else f"sqlite:///{tmp}/fuzz.sqlite3"
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "fuzz", "WTF_CSRF_ENABLED": False,
                      "PROPAGATE_EXCEPTIONS": False})
    table = Table.set_up(app)
    started = time.perf_counter()
    failed = False
    try:
        fuzz(table, examples)()
    except AssertionError as err:  # hypothesis re-raises the smallest failing example
        print(f"FAILED: {str(err)[:3000]}")
        failed = True
    took = time.perf_counter() - started
    sent = sum(table.statuses.values())
    for (endpoint, status), n in sorted(table.statuses.items()):
        print(f"{endpoint:28s} {status}  {n:6d}")
    print(f"{sent} requests ({examples} examples asked) in {took:.0f} s; "
          f"5xx: {sum(n for (_, s), n in table.statuses.items() if s >= 500)}")
    app.extensions["scorekeeper.engine"].dispose()
    return 1 if failed or examples < MINIMUM else 0


if __name__ == "__main__":
    sys.exit(main())
