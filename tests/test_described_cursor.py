"""PostgreSQL (psycopg): the engine's cursors keep each shape of result's ``description``
(``scorekeeper.db.described_cursor``, docs/speed.md §PostgreSQL's share): the same columns as
psycopg's own, built once per shape, another shape its own."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scorekeeper.db import described_cursor, make_engine

from .conftest import PG_URL

pytestmark = pytest.mark.skipif(PG_URL is None, reason="the cursor is psycopg's")


@pytest.fixture(scope="module")
def raw():
    engine = make_engine(PG_URL)
    conn = engine.raw_connection()
    try:
        yield conn.dbapi_connection
    finally:
        conn.close()
        engine.dispose()


def shown(description):
    return [(c.name, c.type_code, c.display_size, c.internal_size, c.precision, c.scale) for c in description]


def test_the_engine_makes_described_cursors(raw):
    assert type(raw.cursor()) is described_cursor()


def test_a_kept_description_is_psycopgs_own_and_built_once(raw):
    from psycopg import Cursor

    query = "SELECT 1 AS a, 'x'::varchar(7) AS b, now() AS c, NULL::bytea AS d"
    with Cursor(raw) as plain, raw.cursor() as first, raw.cursor() as second:
        for cur in (plain, first, second):
            cur.execute(query)
        assert shown(first.description) == shown(plain.description)
        assert first.description is first.description is second.description  # kept, not built again


def test_another_shape_gets_its_own_description(raw):
    with raw.cursor() as cur:
        cur.execute("SELECT 1 AS a, 2 AS b")
        ab = cur.description
        cur.execute("SELECT 1 AS a, 'two' AS b")  # another type
        assert [c.type_code for c in cur.description] != [c.type_code for c in ab]
        cur.execute("SELECT 1 AS a, 2 AS c")  # another name
        assert [c.name for c in cur.description] == ["a", "c"]
        cur.execute("SELECT 1 AS a, 2 AS b, 3 AS c")
        assert len(cur.description) == 3
        cur.execute("SET search_path TO public")  # no result: as psycopg answers
        assert cur.description is None


def test_sqlalchemy_reads_through_it(raw):
    engine = make_engine(PG_URL)
    try:
        with engine.connect() as conn:
            row = conn.execute(text("SELECT 41 + 1 AS answer, 'Ann' AS name")).one()
            assert (row.answer, row.name) == (42, "Ann")
    finally:
        engine.dispose()
