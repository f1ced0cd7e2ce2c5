"""`paddock copy-db`: move a bot from its SQLite file to PostgreSQL, every row as it is.

Rows are copied table by table with their ids, times and JSON untouched (binary COPY), in
one transaction on each side: a consistent read of the file (BEGIN IMMEDIATE: a bot still
writing waits) and all or nothing on the server. The target must be empty; its identity
sequences then continue after the copied ids. `paddock verify --db-url ...` afterwards
replays every game on the target.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiosqlite

from store.postgres import PostgresStore
from store.sqlite import SqliteStore

# Referenced tables before the tables that reference them; schema_migrations is not
# copied (the target's own migrations wrote it, and the versions must match).
TABLES = (
    "guild_settings",
    "user_settings",
    "leagues",
    "league_members",
    "league_rounds",
    "games",
    "round_results",
    "game_seats",
    "game_actions",
    "game_snapshots",
    "game_placings",
    "race_logs",
    "timers",
)
IDENTITIES = ("leagues", "league_members", "league_rounds", "games", "timers")
_BATCH = 1000  # rows read from the file at a time: a big database is never all in memory


class CopyRefused(Exception):
    """The copy cannot start (nothing was written); the message says why in one line."""


@dataclass
class CopyReport:
    source: str
    target: str
    rows: dict[str, int]

    def text(self) -> str:
        counts = ", ".join(f"{n} {t}" for t, n in self.rows.items() if n)
        return (
            f"copied {self.source} to {self.target}: {counts or 'no rows'}.\n"
            "Check it with: paddock verify --db-url <the same URL as --to>"
        )


async def _versions(store: SqliteStore | PostgresStore) -> list[int]:
    return [r[0] for r in await store._all("SELECT version FROM schema_migrations ORDER BY 1")]


async def _rows(cur: aiosqlite.Cursor, counted: list[int]) -> AsyncIterator[tuple[Any, ...]]:
    while batch := list(await cur.fetchmany(_BATCH)):
        counted[0] += len(batch)
        for row in batch:
            yield tuple(row)


async def copy_sqlite_to_postgres(source: SqliteStore, target: PostgresStore) -> CopyReport:
    """Copy every row of `source` into the empty `target` (both open, both migrated to the
    same version). Raises CopyRefused, or the store's errors, with nothing written."""
    if await _versions(source) != await _versions(target):
        raise CopyRefused(
            f"{source.path} and {target.path} are at different schema versions "
            "(run `paddock migrate` on the SQLite file first)"
        )
    copied: dict[str, int] = {}
    async with source.transaction() as src, target.transaction() as dst:
        # One copy at a time, and the emptiness check holds until the commit.
        await dst.execute("SELECT pg_advisory_xact_lock(hashtextextended('paddock-copy-db', 0))")
        for table in TABLES:
            if await dst.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                raise CopyRefused(
                    f"{target.path} already holds data ({table} is not empty); "
                    "copy-db fills an empty database only"
                )
        for table in TABLES:
            async with src.execute(f"SELECT * FROM {table}") as cur:
                columns = [d[0] for d in cur.description]
                counted = [0]
                await dst.copy_records_to_table(table, records=_rows(cur, counted), columns=columns)
                copied[table] = counted[0]
        for table in IDENTITIES:
            # The next id the target gives is the one after the copied ones, as SQLite's
            # would have been.
            await dst.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"
            )
    return CopyReport(source.path, target.path, copied)
