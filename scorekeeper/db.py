"""The database: one engine per app, one Session per request on ``flask.g``.

SQLite gets WAL, foreign keys on and a busy timeout on every connection.
Migrations run through :func:`migrate` on a plain connection (see
``migrations/env.py``): a batch migration with ``foreign_keys=ON`` would
cascade deletes when it rebuilds a parent table.
"""

from __future__ import annotations

from pathlib import Path

from flask import current_app, g
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

ROOT = Path(__file__).resolve().parent.parent


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite connections get the pragmas above."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 5})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=5000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config(url: str):
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.attributes["url"] = url
    return cfg


def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (default: head)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def get_engine() -> Engine:
    return current_app.extensions["scorekeeper.engine"]


def get_session() -> Session:
    """The request's Session, opened on first use."""
    here = g._get_current_object()  # one look-up through the proxy: a request asks often
    found = getattr(here, "db_session", None)
    if found is None:
        found = here.db_session = Session(get_engine(), expire_on_commit=False)
    return found


def close_session(exc=None) -> None:
    session = g.pop("db_session", None)
    if session is not None:
        if exc is not None:
            session.rollback()
        session.close()


def init_app(app) -> None:
    url = app.config["DATABASE_URL"]
    if app.config.get("MIGRATE_ON_START", True):
        migrate(url)
    app.extensions["scorekeeper.engine"] = make_engine(url)
    app.teardown_appcontext(close_session)
