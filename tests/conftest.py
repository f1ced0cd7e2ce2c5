from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from store import SqliteStore, Store, open_store
from tests.toygame import registered
from tests.toygame.rules import ToyGame

# The PostgreSQL half of the store tests runs when this names a server's database (each
# test gets a schema of its own there, dropped afterwards); .ci/run always sets it.
PG_ENV = "PADDOCK_TEST_DATABASE_URL"
PG_SKIP = (
    f"{PG_ENV} is not set, so the PostgreSQL store tests did not run "
    f"(e.g. {PG_ENV}=postgresql://postgres@127.0.0.1:5432/test)"
)


@pytest.fixture
def toy_game() -> Iterator[ToyGame]:
    """The test-only toy game (tests/toygame/), registered for the test's duration."""
    with registered() as game:
        yield game


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "paddock.db")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def with_search_path(url: str, schema: str) -> str:
    """The URL with the schema put first on the search path (asyncpg hands unknown query
    parameters to the server as settings)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@pytest.fixture
def pg_url() -> str:
    """The test server's database URL, or skip."""
    url = os.environ.get(PG_ENV, "").strip()
    if not url:
        pytest.skip(PG_SKIP)
    return url


@pytest.fixture
async def pg_schema(pg_url: str) -> AsyncIterator[str]:
    """A URL on a new, empty schema of the test database; dropped after the test, so
    tests (and test runs) never see each other's tables."""
    import asyncpg

    name = f"paddock_test_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(pg_url, timeout=10)
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
    finally:
        await conn.close()
    try:
        yield with_search_path(pg_url, name)
    finally:
        conn = await asyncpg.connect(pg_url, timeout=10)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        finally:
            await conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database for each store: a new SQLite file, then a new PostgreSQL schema (skipped
    without PADDOCK_TEST_DATABASE_URL)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'paddock.db'}"
    return request.getfixturevalue("pg_schema")


@pytest.fixture
async def backend_store(backend_url: str) -> AsyncIterator[Store]:
    """An open store of each kind (the same tests run against both)."""
    s = open_store(backend_url)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # `-q` hides skip reasons: say once, at the end, why the PostgreSQL tests did not run.
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if PG_SKIP in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} skipped: {PG_SKIP}", yellow=True)
