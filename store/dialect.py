"""What the store's SQL needs of a database, so that store.leagues and store.games are
written once and run on SQLite (store.connection) and PostgreSQL (store.postgres_connection).

The SQL is written for both: `?` placeholders, standard `CAST(? AS TEXT)` (not `::`),
`INSERT ... ON CONFLICT (...) DO UPDATE SET x = excluded.x`, `RETURNING` (SQLite has both
since 3.35), `true`. The schemas are the same on both (store/migrations/postgres/0001_initial.sql):
flags are INTEGER 0/1, JSON and timestamps (`now()`) TEXT, so values go in and come out
alike. What is left differs, and a `Dialect` holds it:

- placeholders: PostgreSQL's are numbered (`$1, $2...`);
- row locks: PostgreSQL runs transactions side by side, so one that reads a row and then
  writes on what it read locks the row first (`lock_row`); SQLite's BEGIN IMMEDIATE lets
  one writer in at a time, so there the transaction is the lock and `lock_row` is empty;
- claiming one row of many without waiting for another claimer (`claim_row`);
- names compared without case, ASCII only as SQLite's NOCASE (`fold`, `same_text`);
- a lock on a name that has no row yet (a league being created): an advisory lock;
- the driver's integrity error (a lost race for a sequence number is one);
- a game's timers as one JSON value (kept with each append for an undo: store/undo.py).

A connection gives the store a `Backend`: committed reads (`_reads`), a transaction
(`_transact`, its work given a `Tx`) and one statement in a transaction of its own
(`_statement`: one round trip on PostgreSQL).
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

if TYPE_CHECKING:
    from store.models import Shards

T = TypeVar("T")


def now() -> str:
    """A timestamp as both databases keep it: TEXT, ISO 8601, UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class Row(Protocol):
    """A row of a result: by column name or position, `dict(row)` (sqlite3.Row,
    asyncpg.Record)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Reads(Protocol):
    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...

    async def fetchrow(self, sql: str, *args: Any) -> Row | None: ...

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """The first column of the first row (None: no row)."""
        ...


class Tx(Reads, Protocol):
    """A transaction: what it reads includes what it wrote so far."""

    async def execute(self, sql: str, *args: Any) -> None: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


# A `?` outside quotes ('...' strings, "..." names): a placeholder.
_MARK = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?")


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """`?` placeholders as `$1, $2...`. SQL without a `?` (PostgreSQL's own, numbering its
    placeholders to use one twice) is left as it is."""
    if "?" not in sql:
        return sql
    n = 0

    def mark(m: re.Match[str]) -> str:
        nonlocal n
        if m.group() != "?":
            return m.group()
        n += 1
        return f"${n}"

    return _MARK.sub(mark, sql)


@dataclass(frozen=True)
class Dialect:
    name: str
    # $1, $2... rather than ?
    numbered: bool
    # After `SELECT ... FROM t WHERE ...` of a row the transaction will change: the lock that
    # keeps other writers of the row waiting until the commit ("" where the transaction is).
    lock_row: str
    # After the `SELECT t.id FROM t ...` picking one row to claim: pass over rows another
    # transaction is claiming rather than wait for them.
    claim_row: str
    # `{}` folded for a comparison without case, ASCII only.
    fold_sql: str
    # An advisory lock on the key `{}` until the transaction ends (None: the transaction is).
    name_lock_sql: str | None
    integrity_errors: tuple[type[Exception], ...]
    # A game's timers (the game id the next placeholder) as one JSON array of {"event",
    # "due_at", "payload"}, in the order they were armed: the JSON functions differ.
    timers_json_sql: str

    def sql(self, text: str) -> str:
        return numbered(text) if self.numbered else text

    def fold(self, expr: str) -> str:
        return self.fold_sql.format(expr)

    def same_text(self, column: str) -> str:
        """`column` equal to the next placeholder, but for case (ASCII letters)."""
        return f"{self.fold(column)} = {self.fold('CAST(? AS TEXT)')}"

    def name_lock(self, key_sql: str) -> str | None:
        return None if self.name_lock_sql is None else self.name_lock_sql.format(key_sql)


class Backend(ABC):
    """What store.leagues and store.games ask of a connection."""

    dialect: ClassVar[Dialect]
    # True where other processes write the same database (store.protocol.Store.shared).
    shared: bool
    path: str

    @property
    @abstractmethod
    def _reads(self) -> Reads:
        """Reads of what is committed, each on its own (outside any transaction)."""

    @abstractmethod
    async def _transact(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """`work(tx)` in one transaction, committed when it returns; any exception rolls it
        back. `work` awaits nothing but `tx`: SQLite runs it on its connection's thread,
        to its end, without the event loop (store.connection)."""

    @abstractmethod
    async def _statement(self, sql: str, *args: Any) -> list[Row]:
        """One statement in a transaction of its own; its rows (RETURNING)."""

    async def _all(self, sql: str, *args: Any) -> list[Row]:
        return await self._reads.fetch(sql, *args)

    async def _one(self, sql: str, *args: Any) -> Row | None:
        return await self._reads.fetchrow(sql, *args)

    async def _val(self, sql: str, *args: Any) -> Any:
        return await self._reads.fetchval(sql, *args)


def shard_filter(shards: Shards | None, guild: str) -> tuple[str, tuple[int, ...]]:
    """SQL (with its arguments) keeping the rows whose guild (the SQL expression `guild`) is
    on `shards`: Discord's rule, (guild_id >> 22) % shard_count (store.models.shard_of)."""
    if shards is None or shards.everything:
        return "", ()
    marks = ", ".join("?" * len(shards.ids)) or "NULL"  # (no shard: nothing; IN () is not SQL)
    return f" AND (({guild} >> 22) % ?) IN ({marks})", (shards.count, *shards.ids)
