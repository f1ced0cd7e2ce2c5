"""The SQLite connection under the store: opening (all or nothing), migrations,
transactions, and the faults of the file or the disk reported as StoreUnavailable; and the
SQLite side of store.dialect (`SQLITE`, `SqliteTx`)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Self, TypeVar
from urllib.parse import quote

import aiosqlite

from store import migrate
from store.dialect import Backend, Dialect, Reads, Row, Tx
from store.errors import StoreUnavailable, fault_problem

T = TypeVar("T")

SQLITE = Dialect(
    name="sqlite",
    numbered=False,
    lock_row="",  # BEGIN IMMEDIATE: one writer at a time, the transaction is the lock
    claim_row="",
    fold_sql="{} COLLATE NOCASE",
    name_lock_sql=None,
    integrity_errors=(sqlite3.IntegrityError,),
    timers_json_sql=(
        # (due_at as 17 digits: SQLite's JSON writes a REAL with 15, which an undo would
        # read back as another instant)
        "(SELECT json_group_array(json_object('event', event, 'due_at',"
        " json(printf('%!.17g', due_at)),"
        " 'payload', json(payload_json))) FROM (SELECT * FROM timers WHERE game_id = ?"
        " ORDER BY id))"
    ),
)


# Set while this task is inside `transaction()`: its reads go to the writing connection,
# which sees what the transaction has written so far.
_WRITING: contextvars.ContextVar[bool] = contextvars.ContextVar("paddock_writing", default=False)


class SqliteConnection(Backend):
    """One aiosqlite connection for writes, an asyncio lock keeping its transactions apart,
    and one for reads (a file's: in WAL mode a reader neither waits for nor blocks the
    writer), so that under load a read does not queue behind the writes on one thread, and
    sees only what is committed."""

    dialect = SQLITE
    shared = False  # one process writes it: a timer loop need not re-read it on a clock

    def __init__(
        self,
        path: str | Path,
        migrations_dir: Path | None = None,
        *,
        busy_timeout: float = 5.0,
        read_only: bool = False,
    ) -> None:
        self.path = str(path)
        # Read-only (the league site): the file opened with `mode=ro`, so no statement of
        # this process can change it; no migration, and a database that is behind refused.
        self.read_only = read_only
        self.migrations_dir = migrations_dir or migrate.MIGRATIONS_DIR
        self.busy_timeout = busy_timeout  # seconds to wait for another process's lock
        self._conn: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._reader_reads = _SqliteReads(self)

    async def open(self, *, run_migrations: bool = True) -> list[str]:
        """Connect and apply pending migrations (unless told not to); return their names.

        All or nothing: if a step fails, the connection is closed again (an open aiosqlite
        thread keeps the process from exiting) and StoreUnavailable or MigrationError says
        why in one line.
        """
        conn = await self._connect()
        try:
            conn.row_factory = sqlite3.Row
            if self.read_only:
                await self._check_migrated(conn)
                self._conn = conn
                return []
            await self._wal(conn)
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute("PRAGMA synchronous=NORMAL")
            if not run_migrations:
                await self._check_migrated(conn)
                self._conn = conn
                return []
            self._conn = conn
            applied = await self.migrate()
            # A read-only file opens, reads and even migrates when nothing is pending; a
            # write that changes nothing finds out now rather than at the first move.
            async with self.transaction() as db:
                await db.execute("DELETE FROM schema_migrations WHERE 0")
            if self.path != ":memory:":  # another connection would be another database
                reader = await self._connect()
                self._reader = reader
                reader.row_factory = sqlite3.Row
                await reader.execute("PRAGMA query_only=ON")
            return applied
        except BaseException as exc:
            self._conn = None
            for opened in (self._reader, conn):
                if opened is not None:
                    with contextlib.suppress(Exception):
                        await opened.close()
            self._reader = None
            if isinstance(exc, sqlite3.Error):
                raise self._unavailable(exc) from exc
            raise

    async def _connect(self) -> aiosqlite.Connection:
        if self.read_only:
            if self.path == ":memory:" or not Path(self.path).is_file():
                raise StoreUnavailable(self.path, "no database file to read")
            # A URI, so that SQLite itself refuses every write on this connection.
            uri = f"file:{quote(str(Path(self.path).resolve()))}?mode=ro"
            conn = aiosqlite.connect(uri, uri=True, isolation_level=None, timeout=self.busy_timeout)
            return await self._opened(conn)
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailable(self.path, f"cannot create its folder: {exc}") from exc
        # `timeout` is SQLite's busy timeout, set at connect: every statement (the
        # migrations' BEGIN IMMEDIATE among them) waits that long for another process's lock.
        conn = aiosqlite.connect(self.path, isolation_level=None, timeout=self.busy_timeout)
        return await self._opened(conn)

    async def _opened(self, conn: aiosqlite.Connection) -> aiosqlite.Connection:
        try:
            return await conn
        except BaseException as exc:
            # aiosqlite stops its worker thread after a failed connect but does not wait for
            # it (no public join: omnilib/aiosqlite#387). Wait while this loop still runs, or
            # the thread dies later with "Event loop is closed" on stderr. (Older aiosqlite's
            # connection is itself the thread.)
            worker = conn if isinstance(conn, threading.Thread) else getattr(conn, "_thread", None)
            if isinstance(worker, threading.Thread) and worker.is_alive():
                await asyncio.to_thread(worker.join, 5)
            if isinstance(exc, sqlite3.Error):
                raise self._unavailable(exc) from exc
            raise

    async def _wal(self, conn: aiosqlite.Connection) -> None:
        """PRAGMA journal_mode=WAL, tried again until the busy timeout: the switch upgrades
        a read lock, for which SQLite does not wait, so of two processes starting on one new
        file one would otherwise fail at once with "database is locked"."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                await conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                busy = exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
                if not busy or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(0.01)

    async def _check_migrated(self, conn: aiosqlite.Connection) -> None:
        # Read-only use (verify) of a database the bot never set up, or of one that is
        # behind, would fail later at its first query on a missing table or column.
        missing = await migrate.pending(conn, self.migrations_dir)
        if missing is None:
            raise StoreUnavailable(self.path, "no Paddock tables (not migrated)")
        if missing:
            raise StoreUnavailable(self.path, f"not migrated (pending: {', '.join(missing)})")

    async def migrate(self) -> list[str]:
        async with self._lock:
            try:
                return await migrate.apply_pending(self.conn, self.migrations_dir)
            except sqlite3.Error as exc:  # the file or the disk, not the migration's SQL
                raise self._unavailable(exc) from exc

    async def close(self) -> None:
        # Detach first: a second close() while the first is in progress must not touch the
        # connection again (aiosqlite would wait forever for its stopped thread).
        conn, self._conn = self._conn, None
        reader, self._reader = self._reader, None
        try:
            if reader is not None:
                await reader.close()
        finally:
            if conn is not None:
                await conn.close()

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise RuntimeError("the store is not open")
        return self._conn

    def _unavailable(self, exc: sqlite3.Error) -> StoreUnavailable:
        problem = fault_problem(exc, busy_timeout=self.busy_timeout) or f"cannot use it: {exc}"
        return StoreUnavailable(self.path, problem)

    @contextlib.contextmanager
    def _faults(self) -> Iterator[None]:
        """Raise an error of the file, the disk or a lock as StoreUnavailable; an error of
        the SQL passes as it is (constraints among them: append_actions makes those
        StaleState)."""
        try:
            yield
        except sqlite3.Error as exc:
            if fault_problem(exc) is None:
                raise
            raise self._unavailable(exc) from exc

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; any exception rolls back. A fault of the file, the
        disk or a lock (also at BEGIN or COMMIT) is raised as StoreUnavailable, with nothing
        of the transaction written."""
        async with self._lock:
            conn = self.conn
            writing = _WRITING.set(True)
            try:
                with self._faults():
                    await conn.execute("BEGIN IMMEDIATE")
                    try:
                        yield conn
                        await conn.execute("COMMIT")
                    except BaseException:
                        await migrate.rollback(conn)
                        raise
            finally:
                _WRITING.reset(writing)

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`transaction()` whose body is the plain function `work` (no awaits in it):
        BEGIN IMMEDIATE, work, COMMIT in one hop to the connection's thread: each awaited
        statement would be a round trip through the event loop, and when the loop is busy
        with many races each trip waits its turn, so a transaction of ten statements
        (holding the one write lock) took ten waits. Any exception rolls back, faults are
        raised as StoreUnavailable."""
        async with self._lock:
            # Queued while no `transaction()` is open, but not waited for under the lock:
            # the thread runs its queue in order, so under load the writes follow one
            # another there without a round trip through the busy event loop between each.
            done = self._queue(lambda raw: _in_transaction(raw, work))
        with self._faults():
            return await done

    def _queue(self, work: Callable[[sqlite3.Connection], T]) -> asyncio.Future[T]:
        """Queue `work` for the connection's thread at once and return its future: what
        aiosqlite's `_execute` does before it awaits. Its queue (`_tx`), its state and the
        sqlite3 connection under it (`_conn`) are not public API; pyproject pins the
        versions they are known in."""
        conn = self.conn
        if not conn._running or conn._connection is None:
            raise ValueError("Connection closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        conn._tx.put_nowait((future, functools.partial(work, conn._conn)))
        return future

    # The store's SQL (store.dialect) -------------------------------------------------

    @property
    def _reads(self) -> Reads:
        return self._reader_reads

    # (Plain functions returning `write`'s coroutine: no coroutine of their own per call.)

    def _transact(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> Coroutine[Any, Any, T]:
        # The work's awaits never suspend (SqliteTx's methods are plain sqlite3 calls): it
        # runs to its end on the connection's thread, in the one hop of `write`.
        return self.write(lambda raw: _to_the_end(work(SqliteTx(raw))))

    def _statement(self, sql: str, *args: Any) -> Coroutine[Any, Any, list[Row]]:
        return self.write(lambda raw: raw.execute(sql, args).fetchall())


class _SqliteReads:
    """Reads on the reader connection (inside `transaction()`, on the writer's, which sees
    what the transaction has written so far)."""

    def __init__(self, owner: SqliteConnection) -> None:
        self._owner = owner

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        owner = self._owner
        conn = owner.conn if owner._reader is None or _WRITING.get() else owner._reader
        with owner._faults():
            # One hop (execute_fetchall) rather than three (execute, fetch, close the cursor).
            return list(await conn.execute_fetchall(sql, args))

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        rows = await self.fetch(sql, *args)
        return rows[0] if rows else None

    async def fetchval(self, sql: str, *args: Any) -> Any:
        rows = await self.fetch(sql, *args)
        return rows[0][0] if rows else None


class SqliteTx:
    """A transaction's Tx on the connection's own thread: plain sqlite3 calls behind async
    methods that never suspend (see `SqliteConnection._transact`)."""

    __slots__ = ("raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return self.raw.execute(sql, args).fetchall()

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        # (The cursor goes with the call: a RETURNING statement is not left open.)
        row: Row | None = self.raw.execute(sql, args).fetchone()
        return row

    async def fetchval(self, sql: str, *args: Any) -> Any:
        row = self.raw.execute(sql, args).fetchone()
        return None if row is None else row[0]

    async def execute(self, sql: str, *args: Any) -> None:
        self.raw.execute(sql, args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.raw.executemany(sql, rows)


def _to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, here and now (no event loop)."""
    try:
        work.send(None)
    except StopIteration as done:
        return done.value
    work.close()
    raise RuntimeError("a store transaction awaited something other than its Tx")


def _in_transaction(raw: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    raw.execute("BEGIN IMMEDIATE")
    try:
        result = work(raw)
        raw.execute("COMMIT")
    except BaseException:
        if raw.in_transaction:  # SQLite rolls some failures back by itself (see rollback)
            with contextlib.suppress(sqlite3.Error):
                raw.execute("ROLLBACK")
        raise
    return result
