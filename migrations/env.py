"""Alembic environment on ``SQLModel.metadata``.

The URL comes from ``config.attributes["url"]`` (the app), else
``DATABASE_URL``, else the app's default SQLite file. The engine is built
here, plain: no ``foreign_keys=ON``, so SQLite batch rebuilds cannot cascade.
"""

from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from logging.config import fileConfig
from pathlib import Path

from alembic import context
from sqlalchemy import create_engine, pool, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

import scorekeeper.models  # noqa: F401  (registers the tables)

config = context.config
if config.config_file_name is not None and not config.attributes.get("url"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata

# SQLite's batch rebuilds reflect ``user``, whose index on ``lower(username)`` reflection cannot
# read: SQLAlchemy warns that it skipped it, on every new database. Each migration that rebuilds
# ``user`` makes that index again by hand (0004, 0005, 0011; tests/test_migrations.py checks it
# is there at the head), so that one warning is not shown.
warnings.filterwarnings("ignore", message="Skipped unsupported reflection of expression-based index "
                        "uq_user_username_lower")


def database_url() -> str:
    url = config.attributes.get("url") or os.environ.get("DATABASE_URL")
    if url:
        return url
    instance = Path(__file__).resolve().parent.parent / "instance"
    instance.mkdir(exist_ok=True)
    return "sqlite:///" + str(instance / "scorekeeper.sqlite3")


def run_migrations_offline() -> None:
    url = database_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


#: PostgreSQL's advisory lock key for migrating (any number the app uses for nothing else).
MIGRATION_LOCK = 0x5C0E_4EE9


@contextmanager
def one_at_a_time(connection, url: str):
    """While the block runs, no other process migrates this database: each gunicorn worker runs
    ``create_app()`` and so migrates on start, as does each instance of a server started at once
    (two workers making one table on a new PostgreSQL database: ``UniqueViolation``, "Worker
    failed to boot", a playtest). The next one then finds the database at the head and does
    nothing. PostgreSQL: a session advisory lock, committed past so that Alembic's own
    transaction is a new one (a connection already in one would be left uncommitted); SQLite: an
    exclusive ``flock`` on a file beside the database, ``<file>.migrating``, left there (removed,
    a process still waiting on it and one that made it anew would each hold a lock), none for a
    database in memory."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()
        return
    path = make_url(url).database if connection.dialect.name == "sqlite" else None
    if not path or path == ":memory:" or path.startswith("file:"):
        yield
        return
    import fcntl

    with open(path + ".migrating", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield


def run_migrations_online() -> None:
    url = database_url()
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection, one_at_a_time(connection, url):
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=url.startswith("sqlite"),
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
