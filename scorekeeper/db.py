"""The database: one engine per app, one Session per request on ``flask.g``.

SQLite gets WAL, foreign keys on and a busy timeout on every connection; a PostgreSQL
connection is checked on checkout by the request's own ``BEGIN`` (:func:`_begin_as_ping`), but
on an entry and the live poll, which run in autocommit (:data:`SINGLE_STATEMENT_ROUTES`).
Migrations run through :func:`migrate` on a plain connection (see
``migrations/env.py``): a batch migration with ``foreign_keys=ON`` would
cascade deletes when it rebuilds a parent table.

The statements of every entry and every live poll run on the driver's cursor (:func:`run`);
PostgreSQL's cursors keep each result shape's description (:func:`described_cursor`).
"""

from __future__ import annotations

from collections import namedtuple
from functools import lru_cache
from pathlib import Path
from typing import Callable, NamedTuple

from flask import current_app, g, has_request_context, request
from sqlalchemy import event, make_url
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, MultipleResultsFound, NoResultFound
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
    psycopg = make_url(url).get_driver_name() == "psycopg"
    # psycopg's documented hook for the cursor class (SQLAlchemy's dialect names it too)
    engine = create_engine(url, pool_pre_ping=not psycopg,  # another driver: SQLAlchemy's own ping
                           connect_args={"cursor_factory": described_cursor()} if psycopg else {})
    if psycopg:
        event.listen(engine, "checkout", _begin_as_ping)
    return engine


#: How many result shapes :func:`described_cursor` keeps (all dropped when full).
MAX_DESCRIPTIONS = 256


@lru_cache(maxsize=1)
def described_cursor():
    """PostgreSQL (psycopg): the cursor class the engine's connections make, psycopg's own
    ``Cursor`` whose ``description`` is built once per shape of result and then kept.

    psycopg builds ``description`` anew on every call, a ``Column`` per column (names decoded,
    types looked up), and SQLAlchemy asks for it after every statement: some 45 µs for the
    26 columns of an entry's first read, where the shape's key costs 3 µs (docs/speed.md
    §PostgreSQL's share). The key is everything a ``Column`` is made of (each column's name,
    type, modifier and size, and the connection's type registry, of which each cursor takes a
    copy): a result of another shape gets its own. The same columns are handed out each time,
    as a tuple (nobody may change them)."""
    from psycopg import Cursor

    kept: dict = {}

    class DescribedCursor(Cursor):
        __slots__ = ()

        @property
        def description(self):
            res = self.pgresult
            count = res.nfields if res is not None else 0
            if not count:
                return super().description
            columns = range(count)
            types = self.connection.adapters.types
            key = (types, tuple(map(res.fname, columns)), tuple(map(res.ftype, columns)),
                   tuple(map(res.fmod, columns)), tuple(map(res.fsize, columns)))
            found = kept.get(key)
            if found is None:
                if len(kept) >= MAX_DESCRIPTIONS:
                    kept.clear()
                found = kept[key] = tuple(super().description)
            return found

    return DescribedCursor


#: The routes whose reads and writes are each one statement (an entry, the live poll): their
#: connection is in autocommit, with no ``BEGIN`` on checkout (:func:`_begin_as_ping`).
SINGLE_STATEMENT_ROUTES = frozenset({"games.add_entry", "games.poll"})


def _begin_as_ping(dbapi_conn, _record, _proxy) -> None:
    """PostgreSQL (psycopg): on every checkout from the pool, check that the server is still
    there and open the request's transaction, in one round trip.

    On the :data:`SINGLE_STATEMENT_ROUTES` neither: the connection is put in autocommit, so a
    read is one round trip and an entry's one write commits itself (no ``BEGIN``, no
    ``COMMIT``: two round trips of an entry's four, docs/speed.md §PostgreSQL's share). A
    change that writes more than one statement opens its own transaction
    (:func:`begin_if_autocommit`). Their first statement, the account's read, is then the check:
    on a dropped connection it is read again on a fresh one
    (:func:`scorekeeper.services.groups.load_account`).

    SQLAlchemy's ``pool_pre_ping`` sends ``;`` on checkout, and psycopg then sends ``BEGIN``
    before the first statement: two round trips, each about 140 µs of the app's CPU, where one
    does both (docs/speed.md §PostgreSQL's share). ``BEGIN`` goes through libpq
    (``Connection.pgconn``, psycopg's low-level handle); psycopg sees the transaction open and
    sends no ``BEGIN`` of its own. A connection the server dropped (a restart) raises
    ``DisconnectionError``: the pool discards it and checks out another (SQLAlchemy's
    pessimistic disconnect handling, ``PoolEvents.checkout``), so a restart fails no request.
    """
    from psycopg import Error, pq

    pgconn = dbapi_conn.pgconn
    if pgconn.transaction_status != pq.TransactionStatus.IDLE:
        return  # a transaction already open (none is: the pool rolls back on return)
    single = has_request_context() and request.endpoint in SINGLE_STATEMENT_ROUTES
    if dbapi_conn.autocommit != single:
        dbapi_conn.autocommit = single  # psycopg: no round trip while no transaction is open
    if single:
        return
    try:
        ok = pgconn.exec_(b"BEGIN").status == pq.ExecStatus.COMMAND_OK
    except Error:
        ok = False
    if not ok:
        raise DisconnectionError("the database server dropped this connection")


def begin_if_autocommit(session: Session) -> None:
    """Open a transaction on the session's connection if it is in autocommit (PostgreSQL, a
    :data:`SINGLE_STATEMENT_ROUTES` request): for a change of more than one statement, which
    then commits (``session.commit()``: psycopg sends ``COMMIT`` whenever a transaction is
    open) or rolls back as a whole. Elsewhere the session's transaction is already open."""
    conn = session.connection()
    if getattr(conn.connection.dbapi_connection, "autocommit", False):
        conn.exec_driver_sql("BEGIN")


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
    found = here.get("db_session")  # not getattr(): a missing name raises twice inside g
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


class _Prepared(NamedTuple):
    """A Core statement compiled once for a dialect (:func:`run`)."""

    sql: str
    names: tuple | None  # the parameters' order (a positional paramstyle), or None: by name
    binds: tuple  # (name in the SQL, key in the parameters, default, bind processor or None) of each
    results: tuple | None  # a result processor (or None) per column, or None if no column has one
    row: Callable | None  # makes a row (a named tuple of the columns' keys) of a tuple; None: no rows
    returns_rows: bool | None  # whether it answers rows (a select, a RETURNING); None: ask the cursor


#: Statements compiled by :func:`run`, per statement and dialect: a fixed few (module constants);
#: all dropped should there ever be more than :data:`MAX_PREPARED`.
_prepared: dict[tuple, _Prepared] = {}
MAX_PREPARED = 256


def _prepare(statement, dialect) -> _Prepared:
    """``statement`` compiled for ``dialect`` with its parameters' and columns' conversions, each
    the type's own for that dialect (SQLAlchemy's public ``dialect_impl``, ``bind_processor``,
    ``result_processor``): what SQLAlchemy's execution would apply."""
    compiled = statement.compile(dialect=dialect)
    binds = tuple((name, bind.key, None if bind.required else bind.effective_value,
                   bind.type.dialect_impl(dialect).bind_processor(dialect))
                  for bind, name in compiled.bind_names.items())
    results = row = None
    # a select's columns; an insert's or update's RETURNING, its own or the one SQLAlchemy adds
    # (PostgreSQL: an insert returns the new row's key)
    columns = (statement.selected_columns if hasattr(statement, "selected_columns")
               else compiled.effective_returning)
    if columns:  # an insert, update or delete without RETURNING answers no rows: no row maker
        found = tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns)
        results = found if any(found) else None
        row = namedtuple("Row", [str(c.key) for c in columns], rename=True)._make
    names = tuple(compiled.positiontup) if compiled.positional else None
    # Known from the statement, so the cursor's description (built per column by psycopg) is not
    # asked after every run; a statement of another kind (text) leaves it to the cursor.
    returns_rows = bool(columns) if (hasattr(statement, "selected_columns") or statement.is_dml) else None
    return _Prepared(str(compiled), names, binds, results, row, returns_rows)


class Ran(NamedTuple):
    """What :func:`run` answers: the cursor's ``rowcount`` (-1 if the driver says none) and the
    rows, each a named tuple of the statement's columns."""

    rowcount: int
    rows: list

    def first(self):
        """The first row, or None."""
        return self.rows[0] if self.rows else None

    def one(self):
        """The only row; raises :class:`sqlalchemy.exc.NoResultFound` or ``MultipleResultsFound``."""
        if len(self.rows) != 1:
            found = NoResultFound if not self.rows else MultipleResultsFound
            raise found(f"{len(self.rows)} rows where one was expected")
        return self.rows[0]


def run(session: Session, statement, params: dict) -> Ran:
    """Run the Core ``statement`` (a module constant: a ``select``, ``update`` or ``insert``) with
    ``params`` in the session's transaction (begun if none), on its connection's driver cursor;
    rows fetched and converted at once.

    For the few statements of every entry and every live poll (docs/speed.md §Statements on the
    driver): SQLAlchemy's execution costs some 40 µs a statement (its cache key, parameters,
    context and result objects) where the driver's own takes 8 (SQLite). The statement is
    compiled by SQLAlchemy once per dialect, and every parameter and column converted by its
    type as SQLAlchemy would. What SQLAlchemy's execution does besides is kept: the engine's
    ``before_cursor_execute`` listeners see the statement (told of it, not asked to change it),
    and a driver error is raised as SQLAlchemy raises it (``sqlalchemy.exc.DBAPIError.instance``:
    ``OperationalError`` for SQLite's "database is locked", and so on); if it says the server
    dropped the connection, the statement goes to SQLAlchemy's execution, which fails on it too
    and does what it does for that (the pool's connections of before invalidated,
    ``connection_invalidated`` set on the error, as the callers' retries expect).
    """
    conn = session.connection()
    prepared = _prepared_for(statement, conn.dialect)
    return _execute(conn, prepared, statement, params, _args(prepared, params), False)


def run_many(session: Session, statement, rows: list[dict]) -> int:
    """Run the Core ``statement`` (an ``insert`` built once, without ``RETURNING``) once for each
    of ``rows`` (parameter dicts, at least one), as :func:`run` runs one: in the session's
    transaction, on the driver's ``executemany``. Returns the rows written as the driver counts
    them (-1 if it says none). For the figures and the export's rounds an entry that ends a round
    writes on SQLite (docs/speed.md §Statements on the driver)."""
    conn = session.connection()
    prepared = _prepared_for(statement, conn.dialect)
    return _execute(conn, prepared, statement, rows, [_args(prepared, row) for row in rows], True).rowcount


def _prepared_for(statement, dialect) -> _Prepared:
    key = (statement, dialect.name)
    prepared = _prepared.get(key)
    if prepared is None:
        if len(_prepared) >= MAX_PREPARED:
            _prepared.clear()
        prepared = _prepared[key] = _prepare(statement, dialect)
    return prepared


def _args(prepared: _Prepared, params: dict):
    """``params`` converted by each parameter's type, in the driver's paramstyle."""
    values = {}
    for name, param, default, process in prepared.binds:
        value = params.get(param, default)
        values[name] = process(value) if process is not None else value
    return values if prepared.names is None else [values[name] for name in prepared.names]


def _execute(conn, prepared: _Prepared, statement, params, args, many: bool) -> Ran:
    dialect = conn.dialect
    dbapi_conn = conn.connection.dbapi_connection
    cursor = dbapi_conn.cursor()
    try:
        for listener in conn.dispatch.before_cursor_execute:
            listener(conn, cursor, prepared.sql, args, None, many)
        if many:
            cursor.executemany(prepared.sql, args)
            rows = []
        else:
            cursor.execute(prepared.sql, args)
            returns_rows = prepared.returns_rows
            if returns_rows is None:
                returns_rows = cursor.description is not None
            rows = cursor.fetchall() if returns_rows else []
        count = cursor.rowcount
    except dialect.loaded_dbapi.Error as err:
        if dialect.is_disconnect(err, dbapi_conn, cursor):
            # The server dropped the connection: SQLAlchemy's own execution fails on it too, and
            # then does all it does for that (this connection invalidated, and every other the
            # pool made before it, which a restart dropped as well) and raises its error.
            result = conn.execute(statement, params)  # should it answer after all, its answer
            return Ran(result.rowcount, result.all() if result.returns_rows else [])
        driver_error = dialect.loaded_dbapi.Error
        raise DBAPIError.instance(prepared.sql, args, err, driver_error, dialect=dialect) from err
    finally:
        cursor.close()
    if rows:
        make, convert = prepared.row, prepared.results
        if make is None:  # a statement whose columns SQLAlchemy does not know (text): plain tuples
            rows = [tuple(row) for row in rows]
        elif convert is None:
            rows = [make(row) for row in rows]
        else:
            rows = [make(c(v) if c is not None else v for c, v in zip(convert, row)) for row in rows]
    return Ran(count, rows)
