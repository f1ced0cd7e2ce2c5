"""Numbered .sql migrations, each applied once, each in its own transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from store.errors import MigrationError

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


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


async def applied_versions(conn: aiosqlite.Connection) -> set[int]:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    async with conn.execute("SELECT version FROM schema_migrations") as cur:
        return {row[0] for row in await cur.fetchall()}


async def apply_pending(conn: aiosqlite.Connection, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply migrations not yet recorded, in order; return the names applied.

    Each runs inside BEGIN ... COMMIT together with its schema_migrations row (SQLite DDL is
    transactional), so a failing migration leaves the database exactly as it was.
    """
    done = await applied_versions(conn)
    applied: list[str] = []
    for mig in discover(directory):
        if mig.version in done:
            continue
        label = f"{mig.version:04d}_{mig.name}"
        script = (
            "BEGIN IMMEDIATE;\n"
            f"{mig.sql}\n;\n"
            "INSERT INTO schema_migrations (version, name, applied_at) "
            f"VALUES ({mig.version}, '{mig.name}', strftime('%Y-%m-%dT%H:%M:%SZ','now'));\n"
            "COMMIT;"
        )
        try:
            await conn.executescript(script)
        except Exception as exc:
            if conn.in_transaction:
                await conn.rollback()
            raise MigrationError(f"migration {label} failed and was rolled back: {exc}") from exc
        applied.append(label)
    return applied
