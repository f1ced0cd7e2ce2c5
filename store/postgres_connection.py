"""The PostgreSQL connection under the store: a pool (one connection per transaction),
opening all or nothing, migrations, transactions, and the faults of the server or the
network reported as StoreUnavailable, as the SQLite store reports those of its file; and the
PostgreSQL side of store.dialect (`POSTGRES`, `PostgresTx`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Self, TypeAlias, TypeVar
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import asyncpg

from store import postgres_migrate
from store.dialect import Backend, Dialect, Reads, Row, Tx
from store.errors import StoreUnavailable

T = TypeVar("T")

# Reads take a pool connection of their own; so does each transaction. Either may be a
# Connection or the Pool itself (both have fetch/fetchrow/execute).
Executor: TypeAlias = asyncpg.Connection | asyncpg.Pool

POSTGRES = Dialect(
    name="postgres",
    numbered=True,
    # NO KEY UPDATE rather than UPDATE: it excludes the other writers of the row, but not
    # the rows being inserted with a reference to it (log entries, timers, results, members
    # take KEY SHARE on what they reference).
    lock_row=" FOR NO KEY UPDATE",
    claim_row=" FOR UPDATE OF t SKIP LOCKED",
    # SQLite's NOCASE folds ASCII letters only; lower() under the "C" collation too (and
    # leagues' unique index is on lower(name COLLATE "C")).
    fold_sql='lower({} COLLATE "C")',
    # Transaction-level: released by COMMIT or ROLLBACK whatever happens to the process.
    name_lock_sql="SELECT pg_advisory_xact_lock(hashtextextended({}, 0))",
    integrity_errors=(asyncpg.IntegrityConstraintViolationError,),
    timers_json_sql=(
        "(SELECT CAST(COALESCE(json_agg(json_build_object('event', event, 'due_at', due_at,"
        " 'payload', CAST(payload_json AS json)) ORDER BY id), '[]') AS TEXT)"
        " FROM timers WHERE game_id = ?)"
    ),
)


def redacted(url: str) -> str:
    """The URL without its password or query, to name the database in messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    netloc = (f"{parts.username}@" if parts.username else "") + host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def fault_problem(
    exc: BaseException, *, lock_timeout: float | None = None, timeout: float | None = None
) -> str | None:
    """A short description of an error caused by the server, the network, a lock or the
    disk, or None when the error is about the SQL (a constraint, a bad statement)."""
    match exc:
        case asyncpg.LockNotAvailableError():
            wait = f" (gave up after {lock_timeout:g} s)" if lock_timeout is not None else ""
            return "the database is locked by another process" + wait
        case asyncpg.DiskFullError():
            return "the disk is full"
        case asyncpg.ReadOnlySQLTransactionError():
            return "the database is read-only"
        case asyncpg.InsufficientPrivilegeError():
            return f"permission denied ({exc})"
        case asyncpg.InvalidAuthorizationSpecificationError():
            return f"the server refused the login: {exc}"
        case asyncpg.InvalidCatalogNameError():
            return f"cannot open it: {exc}"
        case asyncpg.InvalidSchemaNameError():
            return f"cannot use it: {exc}"
        case asyncpg.TooManyConnectionsError():
            return "the server has no connection left (too many clients)"
        case asyncpg.InsufficientResourcesError():
            return f"the server is out of resources: {exc}"
        case asyncpg.CannotConnectNowError():
            return "the server is starting up or shutting down"
        case asyncpg.AdminShutdownError() | asyncpg.CrashShutdownError():
            return f"the server ended the connection: {exc}"  # a restart, or terminated
        case asyncpg.QueryCanceledError():
            return f"the server cancelled the query: {exc}"
        case asyncpg.PostgresSystemError():
            return f"server I/O error: {exc}"
        case asyncpg.PostgresConnectionError():
            return "the connection to the server was lost"
        case asyncpg.InterfaceError() if "connection is closed" in str(exc):
            return "the connection to the server was lost"
        case asyncpg.InternalClientError() if "another operation" in str(exc):
            # What asyncpg says of a connection the server has just ended, between reading
            # the server's last message and closing the socket. (The store never shares a
            # connection between tasks, the other way to get this error.)
            return "the connection to the server was lost"
        case TimeoutError():  # before OSError: TimeoutError is one
            wait = f" within {timeout:g} s" if timeout is not None else ""
            return "no answer from the server" + wait
        case ConnectionRefusedError():
            return "cannot connect: connection refused"
        case OSError():
            return f"cannot connect: {exc.strerror or exc}"
    return None


async def _keep_session(con: asyncpg.Connection) -> None:
    """Given back to the pool: nothing to reset. The pool has already ended any transaction
    left open; the store never changes a session (no SET, LISTEN, cursor or session-level
    advisory lock outlives a transaction), so asyncpg's reset query (RESET ALL, UNLISTEN,
    unlock all...) would only cost a round trip per query."""


class PostgresConnection(Backend):
    """An asyncpg pool. Every transaction takes a connection of its own, so transactions of
    one process run side by side; the locks they take in PostgreSQL keep them apart."""

    dialect = POSTGRES
    shared = True  # other processes write it too: a timer loop re-reads it every few seconds

    def __init__(
        self,
        url: str,
        migrations_dir: Path | None = None,
        *,
        pool_size: int = 10,
        timeout: float = 10.0,
        lock_timeout: float = 5.0,
        command_timeout: float = 60.0,
        read_only: bool = False,
    ) -> None:
        self.url = url
        # Read-only (the league site): every transaction of its connections is READ ONLY,
        # so the server refuses any write; no migration, a database that is behind refused.
        self.read_only = read_only
        self.path = redacted(url)  # the name the StoreUnavailable messages give
        self.migrations_dir = migrations_dir or postgres_migrate.migrations_dir()
        self.pool_size = pool_size
        self.timeout = timeout  # to connect, or to wait for a free pool connection
        # The SQLite store's busy timeout: how long a statement waits for another
        # process's lock (a row, the game) before StoreUnavailable says so.
        self.lock_timeout = lock_timeout
        self.command_timeout = command_timeout  # a server that stopped answering
        self._pool: asyncpg.Pool | None = None

    def _server_settings(self) -> dict[str, str]:
        # Settings given in the URL's query (asyncpg passes them to the server) win.
        given = {k for k, _ in parse_qsl(urlsplit(self.url).query)}
        ours = {
            "lock_timeout": f"{int(self.lock_timeout * 1000)}ms",
            "application_name": "paddock",
            # The SQLite store's durability (WAL, synchronous=NORMAL): a commit is not
            # flushed to disk before it returns, so a move costs ~1 ms rather than a disk
            # flush (~5-10 ms). A crash of the bot loses nothing; a crash of the server can
            # lose its last fraction of a second of moves (never corrupts). For a flush at
            # every commit, put `?synchronous_commit=on` in the URL.
            "synchronous_commit": "off",
        }
        if self.read_only:
            ours["default_transaction_read_only"] = "on"
            given.discard("default_transaction_read_only")  # never writable, whatever the URL
        return {k: v for k, v in ours.items() if k not in given}

    async def open(self, *, run_migrations: bool = True) -> list[str]:
        """Connect and apply pending migrations (unless told not to); return their names.

        All or nothing: if a step fails, the pool is closed again and StoreUnavailable or
        MigrationError says why in one line.
        """
        with self._faults():
            pool = await asyncpg.create_pool(
                self.url,
                min_size=1,
                max_size=self.pool_size,
                timeout=self.timeout,
                command_timeout=self.command_timeout,
                server_settings=self._server_settings(),
                reset=_keep_session,
            )
        try:
            self._pool = pool
            if not run_migrations or self.read_only:
                await self._check_migrated()
                return []
            applied = await self.migrate()
            # A hot standby opens, reads and even finds nothing to migrate; a write that
            # changes nothing finds out now rather than at the first move.
            async with self.transaction() as db:
                await db.execute("DELETE FROM schema_migrations WHERE false")
            return applied
        except BaseException:
            self._pool = None
            with contextlib.suppress(Exception):
                await pool.close()
            raise

    async def _check_migrated(self) -> None:
        # Read-only use (verify) of a database the bot never set up, or of one that is
        # behind, would fail later at its first query on a missing table or column.
        with self._faults():
            async with self.pool.acquire(timeout=self.timeout) as con:
                missing = await postgres_migrate.pending(con, self.migrations_dir)
        if missing is None:
            raise StoreUnavailable(self.path, "no Paddock tables (not migrated)")
        if missing:
            raise StoreUnavailable(self.path, f"not migrated (pending: {', '.join(missing)})")

    async def migrate(self) -> list[str]:
        with self._faults():
            async with self.pool.acquire(timeout=self.timeout) as con:
                return await postgres_migrate.apply_pending(
                    con,
                    self.migrations_dir,
                    is_fault=lambda exc: fault_problem(exc) is not None,
                    lock_wait=max(60.0, self.lock_timeout),
                )

    async def close(self) -> None:
        # Detach first: a second close() while the first is in progress does nothing.
        pool, self._pool = self._pool, None
        if pool is not None:
            try:
                await pool.close()
            except Exception:
                pool.terminate()  # the server is gone: drop the sockets, do not wait

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the store is not open")
        return self._pool

    def _unavailable(self, exc: BaseException) -> StoreUnavailable | None:
        problem = fault_problem(exc, lock_timeout=self.lock_timeout, timeout=self.timeout)
        return None if problem is None else StoreUnavailable(self.path, problem)

    @contextlib.contextmanager
    def _faults(self) -> Iterator[None]:
        """Raise an error of the server, the network, a lock or the disk as
        StoreUnavailable; an error of the SQL passes as it is (constraints among them:
        append_actions makes those StaleState)."""
        try:
            yield
        except (
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            asyncpg.InternalClientError,
            OSError,
        ) as exc:
            unavailable = self._unavailable(exc)
            if unavailable is None:
                raise
            raise unavailable from exc

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """A pool connection in a READ COMMITTED transaction, committed at the end; any
        exception rolls back. Faults (also at BEGIN or COMMIT) are StoreUnavailable, with
        nothing of the transaction written. Methods that read and then write take a row
        lock first (store.dialect's `lock_row`), as SQLite's one writer at a time does."""
        with self._faults():
            async with self.pool.acquire(timeout=self.timeout) as con, con.transaction():
                yield con

    # The store's SQL (store.dialect) -------------------------------------------------

    @property
    def _reads(self) -> Reads:
        return PostgresTx(self.pool, self)  # each read a round trip on a pool connection

    async def _transact(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        async with self.transaction() as con:
            return await work(PostgresTx(con, self))

    async def _statement(self, sql: str, *args: Any) -> list[Row]:
        # Not in a transaction() of its own: BEGIN and COMMIT would be two more round trips.
        with self._faults():
            return list(await self.pool.fetch(self.dialect.sql(sql), *args))


class PostgresTx:
    """asyncpg under the Tx interface: a transaction's connection, or the pool (each
    statement then its own transaction); `?` placeholders numbered, faults raised as
    StoreUnavailable."""

    __slots__ = ("db", "owner")

    def __init__(self, db: Executor, owner: PostgresConnection) -> None:
        self.db = db
        self.owner = owner

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        with self.owner._faults():
            return list(await self.db.fetch(POSTGRES.sql(sql), *args))

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        with self.owner._faults():
            return await self.db.fetchrow(POSTGRES.sql(sql), *args)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        with self.owner._faults():
            return await self.db.fetchval(POSTGRES.sql(sql), *args)

    async def execute(self, sql: str, *args: Any) -> None:
        with self.owner._faults():
            await self.db.execute(POSTGRES.sql(sql), *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.owner._faults():
            await self.db.executemany(POSTGRES.sql(sql), rows)
