"""Loading 2,000 game records at once, through the real /import form.

Usage: ``.venv/bin/python bench/import_bench.py [DATABASE_URL]`` (default: a temporary
SQLite file). The records are made deterministically (``tests/import_records.py``: Mitchi
games of three known players, about 630 KB as one JSON list). Prints three timings:

- the first load of 2,000 new records (the players are known already),
- the same file again (every record already here: nothing stored),
- a load of 2,000 more new records into the account that now holds 2,000 games.

Target: each under ``TARGET`` seconds (was more than 11 minutes before the content
hash). Exits 1 on a miss or on any answer but 303.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import Session, func, select  # noqa: E402

from scorekeeper import create_app  # noqa: E402
from scorekeeper.models import Game  # noqa: E402
from tests.import_records import many_records  # noqa: E402

N = 2000
TARGET = 5.0  # seconds per load of 2,000 records


def main() -> int:
    tmp = tempfile.mkdtemp()
    url = sys.argv[1] if len(sys.argv) > 1 else f"sqlite:///{tmp}/bench.sqlite3"
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": False})
    client = app.test_client()
    client.post("/register", data={"username": "bench", "password": "dice at the table", "confirm": "dice at the table"})
    records = many_records(2 * N + 1)
    client.post("/import", data={"records": [(io.BytesIO(json.dumps(records[-1]).encode()), "one.json")]},
                content_type="multipart/form-data")  # the players are known before the big load
    first = json.dumps(records[:N]).encode()
    second = json.dumps(records[N:2 * N]).encode()
    failed = False
    for label, body in (("2,000 new records", first), ("the same 2,000 again", first),
                        ("2,000 more, with 2,000 games stored", second)):
        started = time.perf_counter()
        r = client.post("/import", data={"records": [(io.BytesIO(body), "records.json")]},
                        content_type="multipart/form-data")
        took = time.perf_counter() - started
        ok = r.status_code == 303 and took < TARGET
        failed |= not ok
        print(f"{label:40s} {took:6.2f} s  (target < {TARGET:.0f} s, {len(body) // 1024} KB)  "
              f"HTTP {r.status_code}  {'ok' if ok else 'MISSED'}")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        games = s.exec(select(func.count()).select_from(Game)).one()
    if games != 2 * N + 1:
        print(f"expected {2 * N + 1} games stored, found {games}")
        failed = True
    app.extensions["scorekeeper.engine"].dispose()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
