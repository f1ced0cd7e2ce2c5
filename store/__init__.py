"""Persistence: leagues, games (action log + snapshot) and timers.

`Store` (store.protocol) is the interface the bot uses; `SqliteStore` is the embedded
default and `PostgresStore` serves a bot that runs as several processes. `open_store`
picks one from the settings or a URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from store.errors import LeagueError, NotFound, StaleState, StoreUnavailable
from store.models import (
    ActionRecord,
    FinishedPlacing,
    GameRecord,
    League,
    Member,
    ResultRecord,
    Round,
    SeasonSheet,
    Seat,
    SiteIndex,
    Timer,
)
from store.protocol import Store
from store.sqlite import SqliteStore

if TYPE_CHECKING:
    from store.postgres import PostgresStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"


class StoreSettings(Protocol):
    """What open_store reads from bot.settings.Settings (the store does not import the bot)."""

    db_path: Path
    database_url: Any  # a SecretStr (or a str) holding a URL, or None


def _secret(value: Any) -> str:
    getter = getattr(value, "get_secret_value", None)
    return (getter() if getter else str(value or "")).strip()


def open_store(source: StoreSettings | str | Path, **options: Any) -> Store:
    """The store `source` names, not opened yet (`await store.open()`, or `async with`).

    - `postgresql://...` (or `postgres://...`): PostgresStore;
    - `sqlite:///path`, or a plain path: SqliteStore on that file;
    - settings: `database_url` when set (PADDOCK_DATABASE_URL), else `db_path`
      (PADDOCK_DB_PATH).

    `options` go to the store's constructor (e.g. `migrations_dir`).
    """
    if not isinstance(source, str | Path):
        url = _secret(source.database_url)
        source = url if url else source.db_path
    if isinstance(source, str) and source.startswith(POSTGRES_SCHEMES):
        from store.postgres import PostgresStore  # asyncpg is only needed for PostgreSQL

        return PostgresStore(source, **options)
    if isinstance(source, str) and source.startswith(SQLITE_SCHEME):
        source = source.removeprefix(SQLITE_SCHEME)
    elif isinstance(source, str) and "://" in source:
        raise ValueError(
            f"unknown database URL scheme in {source.split('://')[0]}://... "
            "(use postgresql://... or sqlite:///path)"
        )
    return SqliteStore(source, **options)


def __getattr__(name: str) -> Any:
    # `from store import PostgresStore` without importing asyncpg for every SQLite user.
    if name == "PostgresStore":
        from store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'store' has no attribute {name!r}")


__all__ = [
    "ActionRecord",
    "FinishedPlacing",
    "GameRecord",
    "League",
    "LeagueError",
    "Member",
    "NotFound",
    "PostgresStore",
    "ResultRecord",
    "Round",
    "Seat",
    "SeasonSheet",
    "SiteIndex",
    "SqliteStore",
    "StaleState",
    "Store",
    "StoreUnavailable",
    "Timer",
    "open_store",
]
