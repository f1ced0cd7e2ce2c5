"""Numbered .sql migrations, each applied once, each in its own transaction."""

from __future__ import annotations

import contextlib
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from store.errors import MigrationError, fault_problem

# package data beside this module, so that an installed wheel finds them too
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found: list[Migration] = []
    for path in sorted(directory.glob("*.sql")):
        m = _NAME.match(path.name)
        if not m:
            raise MigrationError(f"{path.name}: migration files are named NNNN_name.sql")
        found.append(Migration(int(m.group(1)), m.group(2), path.read_text("utf-8")))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError("two migrations share a version number")
    return found


async def pending(conn: aiosqlite.Connection, directory: Path = MIGRATIONS_DIR) -> list[str] | None:
    """The migrations not applied yet, found without writing anything; None when the
    database has no schema_migrations table (a new file, or not Paddock's)."""
    async with conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ) as cur:
        if await cur.fetchone() is None:
            return None
    async with conn.execute("SELECT version FROM schema_migrations") as cur:
        done = {row[0] for row in await cur.fetchall()}
    return [f"{m.version:04d}_{m.name}" for m in discover(directory) if m.version not in done]


def statements(sql: str) -> list[str]:
    """A script split into complete statements (sqlite3.complete_statement knows about
    strings, comments and trigger bodies), so that it can run inside our own transaction:
    executescript would COMMIT that transaction first."""
    found: list[str] = []
    pending = ""
    *pieces, rest = sql.split(";")
    for piece in pieces:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    pending += rest
    if pending.strip():
        found.append(pending.strip())  # comments only, or an unfinished statement SQLite reports
    return found


async def apply_pending(conn: aiosqlite.Connection, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply migrations not yet recorded, in order; return the names applied.

    Each one runs in its own BEGIN IMMEDIATE transaction that first checks whether it is
    recorded: of two processes starting on one new database, the second waits for the
    first's write lock and then finds the migration done. A failing migration rolls back
    with its schema_migrations row (SQLite DDL is transactional), so the database stays at
    the previous version. Faults of the file or the disk (locked, full, read-only) propagate
    as the sqlite3 error, for the store to report; only a fault of the migration's own SQL
    is a MigrationError.
    """
    applied: list[str] = []
    for mig in discover(directory):
        label = f"{mig.version:04d}_{mig.name}"
        await conn.execute("BEGIN IMMEDIATE")
        try:
            await conn.execute(_CREATE_TABLE)
            async with conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (mig.version,)
            ) as cur:
                done = await cur.fetchone() is not None
            if not done:
                for statement in statements(mig.sql):
                    await conn.execute(statement)
                if "writable_schema" in mig.sql:
                    # The table's text was edited (migration 0007): a new schema version
                    # makes every connection, this one too, read the schema again.
                    async with conn.execute("PRAGMA schema_version") as cur:
                        row = await cur.fetchone()
                    assert row is not None
                    await conn.execute(f"PRAGMA schema_version = {int(row[0]) + 1}")
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at)"
                    " VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                    (mig.version, mig.name),
                )
            await conn.execute("COMMIT")
        except BaseException as exc:
            await rollback(conn)
            if isinstance(exc, sqlite3.Error) and fault_problem(exc) is None:
                raise MigrationError(
                    f"migration {label} failed and was rolled back: {exc}"
                ) from exc
            raise
        if not done:
            applied.append(label)
    return applied


async def rollback(conn: aiosqlite.Connection) -> None:
    """Roll back the open transaction, if there still is one.

    SQLite rolls some failures back by itself (disk full, I/O errors): a ROLLBACK then fails
    with "no transaction is active" and would hide the error that matters.
    """
    with contextlib.suppress(sqlite3.Error, ValueError):  # ValueError: connection closed
        if conn.in_transaction:
            await conn.execute("ROLLBACK")
