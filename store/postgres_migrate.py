"""Numbered PostgreSQL migrations (store/migrations/postgres/NNNN_name.sql), each applied once,
each in its own transaction, safe when several processes start at once.

The files carry the same numbers and names as the SQLite ones (store.migrate), so that
`schema_migrations` reads the same on both databases.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import asyncpg

from store import migrate
from store.errors import MigrationError
from store.migrate import discover

_CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
)
# One lock per schema: bots kept apart by search_path do not wait for each other. The
# transaction-level lock is released by COMMIT or ROLLBACK whatever happens to the process.
_LOCK = (
    "SELECT pg_advisory_xact_lock(hashtextextended("
    "'paddock-migrations:' || coalesce(current_schema(), ''), 0))"
)


def migrations_dir() -> Path:
    # Read at call time: tests (and test_cli) point store.migrate.MIGRATIONS_DIR elsewhere.
    return migrate.MIGRATIONS_DIR / "postgres"


async def pending(con: asyncpg.Connection, directory: Path) -> list[str] | None:
    """The migrations not applied yet, found without writing anything; None when there is
    no schema_migrations table (an empty database or schema, or not Paddock's)."""
    if not await con.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL"):
        return None
    done = {r["version"] for r in await con.fetch("SELECT version FROM schema_migrations")}
    return [f"{m.version:04d}_{m.name}" for m in discover(directory) if m.version not in done]


async def apply_pending(
    con: asyncpg.Connection,
    directory: Path,
    *,
    is_fault: Callable[[BaseException], bool],
    lock_wait: float = 60.0,
) -> list[str]:
    """Apply migrations not yet recorded, in order; return the names applied.

    Each runs in a transaction that first takes an advisory lock and then checks whether it
    is recorded: of several processes starting on one new database, the others wait for the
    lock and then find the migration done. PostgreSQL DDL is transactional, so a failing
    migration rolls back with its schema_migrations row. `is_fault`: errors of the server
    or the connection, which propagate as they are for the store to report; any other
    error of the migration's own SQL is a MigrationError.
    """
    applied: list[str] = []
    for mig in discover(directory):
        label = f"{mig.version:04d}_{mig.name}"
        try:
            async with con.transaction():
                # Another process may be half-way through a long migration: wait for it
                # longer than for an ordinary row lock.
                await con.execute(
                    "SELECT set_config('lock_timeout', $1, true)", f"{int(lock_wait * 1000)}ms"
                )
                await con.execute(_LOCK)
                await con.execute(_CREATE_TABLE)
                done = await con.fetchval(
                    "SELECT 1 FROM schema_migrations WHERE version = $1", mig.version
                )
                if done is None:
                    await con.execute(mig.sql, timeout=3600)  # a script: no arguments
                    await con.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at)"
                        " VALUES ($1, $2, to_char(now() AT TIME ZONE 'UTC',"
                        ' \'YYYY-MM-DD"T"HH24:MI:SS"Z"\'))',
                        mig.version,
                        mig.name,
                    )
        except asyncpg.PostgresError as exc:
            if is_fault(exc):
                raise
            raise MigrationError(f"migration {label} failed and was rolled back: {exc}") from exc
        if done is None:
            applied.append(label)
    return applied
