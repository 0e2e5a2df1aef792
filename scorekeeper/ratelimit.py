"""Where the rate limits count: a store every worker and every instance shares.

``RATELIMIT_STORAGE_URI`` (flask-limiter's setting, from the environment):

- ``database://`` (the default): the app's own database (``DATABASE_URL``), table
  ``rate_limit``; every worker of a machine, and every instance on one PostgreSQL,
  counts in one place. :class:`DatabaseStorage` is a small ``limits`` storage
  (fixed windows, the strategy the app uses).
- ``redis://host:port`` for several instances that share a Redis server;
- ``memory://`` counts per worker process (one process only).
"""

from __future__ import annotations

import random
import time

from limits.storage import Storage
from sqlalchemy import case, delete, func, select
from sqlalchemy.exc import SQLAlchemyError


class DatabaseStorage(Storage):
    """Fixed-window counters in the ``rate_limit`` table of the database at ``url``.

    ``incr`` is one upsert (PostgreSQL and SQLite both have ``ON CONFLICT DO UPDATE
    ... RETURNING``), so concurrent workers never lose a hit. Expired rows are
    dropped now and then.
    """

    STORAGE_SCHEME = ["database"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, url: str = "", **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        from .db import make_engine
        from .models import RateLimit

        self.engine = make_engine(url)
        self.table = RateLimit.__table__

    @property
    def base_exceptions(self):
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Add ``amount`` hits to ``key``'s window (a new window of ``expiry`` seconds once
        the old one ended); return the hits in the window."""
        t, now = self.table, time.time()
        if self.engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        expired = t.c.expires_at <= now
        stmt = insert(t).values(key=key, hits=amount, expires_at=now + expiry)
        stmt = stmt.on_conflict_do_update(
            index_elements=[t.c.key],
            set_={"hits": case((expired, amount), else_=t.c.hits + amount),
                  "expires_at": case((expired, now + expiry), else_=t.c.expires_at)},
        ).returning(t.c.hits)
        with self.engine.begin() as conn:
            hits = conn.execute(stmt).scalar_one()
            if random.random() < 0.01:
                conn.execute(delete(t).where(t.c.expires_at <= now))
        return hits

    def get(self, key: str) -> int:
        t = self.table
        with self.engine.connect() as conn:
            hits = conn.execute(select(t.c.hits).where(t.c.key == key, t.c.expires_at > time.time())).scalar()
        return hits or 0

    def get_expiry(self, key: str) -> float:
        t = self.table
        with self.engine.connect() as conn:
            at = conn.execute(select(t.c.expires_at).where(t.c.key == key)).scalar()
        return at if at is not None else time.time()

    def check(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execute(select(1))
            return True
        except SQLAlchemyError:
            return False

    def reset(self) -> int | None:
        with self.engine.begin() as conn:
            n = conn.execute(select(func.count()).select_from(self.table)).scalar()
            conn.execute(delete(self.table))
        return n

    def clear(self, key: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(self.table).where(self.table.c.key == key))


def configure(app) -> None:
    """Point flask-limiter at the store named by ``RATELIMIT_STORAGE_URI`` (see above)."""
    import os

    uri = app.config.get("RATELIMIT_STORAGE_URI") or os.environ.get("RATELIMIT_STORAGE_URI") or "database://"
    app.config["RATELIMIT_STORAGE_URI"] = uri
    # A shared store that is down (a Redis server stopped) must not stop logins and sign-ups
    # (they answered 500): flask-limiter then counts in the worker's memory, logs that it does,
    # and goes back to the store once it answers again.
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    if uri.startswith("database://"):
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {"url": app.config["DATABASE_URL"]})
