"""Store faults (issue 11): a database that is not one, locked, full, read-only, a failing
migration, two processes starting at once. Each gives one clear error, changes nothing,
leaks no connection and never hangs."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from store import GameRecord, SqliteStore, StaleState
from store.errors import MigrationError, StoreUnavailable
from store.migrate import MIGRATIONS_DIR, discover
from store.models import TimerSpec

ROOT = Path(__file__).resolve().parents[2]
ALL_MIGRATIONS = [f"{m.version:04d}_{m.name}" for m in discover()]


def workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]


def leaked(before: list[threading.Thread]) -> list[threading.Thread]:
    """aiosqlite connection threads started since `before` that do not end (they are not
    daemons: one left running keeps the process from exiting). A closed connection's
    thread may take a moment to return after close() did."""
    new = [t for t in workers() if t not in before]
    for t in new:
        t.join(timeout=2)
    return [t for t in new if t.is_alive()]


def schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return sorted(db.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))


async def game_with_one_action(store: SqliteStore) -> GameRecord:
    record = await store.create_game("toy", 7, {"players": 2}, '{"at": 0}')
    await store.append_action(
        record.id,
        0,
        "1",
        '{"kind": "roll"}',
        '{"at": 1}',
        timers=[TimerSpec(event="turn", due_at=100.0, payload={"seat": 0})],
    )
    return await store.load_game(record.id)


async def unchanged(store: SqliteStore, before: GameRecord) -> None:
    """The game's snapshot, log and timers are what they were after its first action."""
    assert await store.load_game(before.id) == before
    assert [a.seq for a in await store.actions(before.id)] == [1]
    assert [(t.event, t.due_at) for t in await store.timers(before.id)] == [("turn", 100.0)]


async def test_a_file_that_is_not_a_database_fails_to_open_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    garbage = b"these are my notes, not a database\n" * 100
    path.write_bytes(garbage)
    threads = workers()
    for run_migrations in (True, False):
        store = SqliteStore(path)
        with pytest.raises(StoreUnavailable) as caught:
            await store.open(run_migrations=run_migrations)
        assert str(caught.value) == f"{path}: not a SQLite database"
        with pytest.raises(RuntimeError, match="not open"):
            store.conn  # noqa: B018 - the failed open left nothing behind
        await store.close()  # and closing it anyway is harmless
    assert leaked(threads) == []  # no connection thread left running
    assert path.read_bytes() == garbage


async def test_a_folder_in_place_of_the_file_fails_to_open_in_one_line(tmp_path: Path) -> None:
    threads = workers()
    store = SqliteStore(tmp_path)
    with pytest.raises(StoreUnavailable, match="cannot open the database file"):
        await store.open()
    # aiosqlite's failed connect stops its thread without waiting: open waits for it, or
    # it would die later on a closed event loop with a traceback on stderr.
    assert leaked(threads) == []


async def test_verify_style_open_refuses_a_database_that_is_not_migrated(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(StoreUnavailable, match=r"empty\.db: no Paddock tables"):
        await SqliteStore(empty).open(run_migrations=False)
    mdir = tmp_path / "migrations"
    mdir.mkdir()
    (mdir / "0001_initial.sql").write_text((MIGRATIONS_DIR / "0001_initial.sql").read_text())
    behind = tmp_path / "behind.db"
    async with SqliteStore(behind, migrations_dir=mdir):
        pass
    with pytest.raises(StoreUnavailable, match=r"not migrated \(pending: 0002_game_settings"):
        await SqliteStore(behind).open(run_migrations=False)


# Two processes (forked at a barrier, so that they really start together) open one new
# database, thirty times; each prints what it applied or the error it got.
_RACE = textwrap.dedent(
    """
    import asyncio, json, multiprocessing, sys
    from store import SqliteStore

    def start(path, barrier, results):
        async def go():
            store = SqliteStore(path)
            barrier.wait()
            try:
                return await store.open()
            except Exception as exc:
                return f"{type(exc).__name__}: {exc}"
            finally:
                await store.close()
        results.put(asyncio.run(go()))

    ctx = multiprocessing.get_context("fork")
    out = []
    for i in range(int(sys.argv[2])):
        path = f"{sys.argv[1]}/race{i}.db"
        if i % 2:
            open(path, "wb").close()  # an empty file, as well as no file at all
        barrier, results = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=start, args=(path, barrier, results)) for _ in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(20)
        hung = [p.pid for p in procs if p.exitcode is None]
        for p in procs:
            if p.exitcode is None:
                p.kill()
        out.append({"path": path, "results": [results.get(timeout=5) for _ in range(2)],
                    "hung": hung, "exit": [p.exitcode for p in procs]})
    print(json.dumps(out))
    """
)


def test_two_processes_starting_on_one_new_database_both_succeed(tmp_path: Path) -> None:
    rounds = 30
    proc = subprocess.run(
        [sys.executable, "-c", _RACE, str(tmp_path), str(rounds)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert len(report) == rounds
    for race in report:
        assert race["hung"] == [] and race["exit"] == [0, 0], race
        first, second = race["results"]
        # Both opened (an error would be a string), and between them every migration was
        # applied exactly once (they may take turns: one applies 0001, the other 0002).
        assert isinstance(first, list) and isinstance(second, list), race
        assert sorted(first + second) == ALL_MIGRATIONS, race
        with sqlite3.connect(race["path"]) as db:
            versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
        assert sorted(versions) == [m.version for m in discover()]


async def test_a_failing_migration_keeps_the_previous_version_and_the_data(
    tmp_path: Path,
) -> None:
    mdir = tmp_path / "migrations"
    mdir.mkdir()
    for sql in MIGRATIONS_DIR.glob("*.sql"):
        (mdir / sql.name).write_text(sql.read_text())
    path = tmp_path / "m.db"
    async with SqliteStore(path, migrations_dir=mdir) as store:
        game = await game_with_one_action(store)
    before = schema(path)
    # Creates a table, alters one, then fails: the first two must not stay behind.
    (mdir / "0099_broken.sql").write_text(
        "CREATE TABLE half_done (id INTEGER);\n"
        "ALTER TABLE games ADD COLUMN half INTEGER;\n"
        "INSERT INTO no_such_table VALUES (1);\n"
    )
    threads = workers()
    store = SqliteStore(path, migrations_dir=mdir)
    with pytest.raises(MigrationError, match="0099_broken failed and was rolled back"):
        await store.open()
    assert leaked(threads) == []
    assert schema(path) == before
    with sqlite3.connect(path) as db:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    assert versions == [m.version for m in discover()]
    (mdir / "0099_broken.sql").unlink()
    async with SqliteStore(path, migrations_dir=mdir) as store:
        await unchanged(store, game)


async def test_disk_full_during_append_action_changes_nothing(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "full.db") as store:
        game = await game_with_one_action(store)
        # The database may not grow by a single page: what a full disk does to a write.
        async with store.conn.execute("PRAGMA page_count") as cur:
            (pages,) = await cur.fetchone()
        await store.conn.execute(f"PRAGMA max_page_count = {pages}")
        big = json.dumps({"at": 2, "pad": "x" * 200_000})
        with pytest.raises(StoreUnavailable) as caught:
            await store.append_action(
                game.id,
                1,
                "2",
                '{"kind": "roll"}',
                big,
                status="finished",
                timers=[TimerSpec(event="other", due_at=5.0)],
            )
        assert str(caught.value) == (
            f"{store.path}: the disk is full (or the database reached its size limit)"
        )
        await unchanged(store, game)
        # The failed write left no transaction open: with room again the same action is
        # stored, and the one-transaction sequence check is as before.
        await store.conn.execute("PRAGMA max_page_count = 1000000")
        assert await store.append_action(game.id, 1, "2", '{"kind": "roll"}', big) == 2
        with pytest.raises(StaleState) as stale:
            await store.append_action(game.id, 1, "2", '{"kind": "roll"}', '{"at": 9}')
        assert stale.value.seq == 2 and stale.value.state_json == big


async def test_locked_beyond_the_busy_timeout_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    async with SqliteStore(path, busy_timeout=0.3) as store:
        game = await game_with_one_action(store)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process writing, for longer than we wait
        try:
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as caught:
                await asyncio.wait_for(
                    store.append_action(game.id, 1, "2", '{"kind": "roll"}', '{"at": 2}'), 10
                )
            assert time.monotonic() - started < 5
            assert str(caught.value) == (
                f"{path}: the database is locked by another process (gave up after 0.3 s)"
            )
            await unchanged(store, game)  # reading works meanwhile (WAL)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert await store.append_action(game.id, 1, "2", '{"kind": "roll"}', '{"at": 2}') == 2


async def test_locked_while_opening_is_a_clear_error_and_leaks_nothing(tmp_path: Path) -> None:
    path = tmp_path / "held.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN EXCLUSIVE")  # rollback-journal mode: not even readers get in
    threads = workers()
    try:
        store = SqliteStore(path, busy_timeout=0.2)
        with pytest.raises(StoreUnavailable, match="locked by another process"):
            await asyncio.wait_for(store.open(), 10)
        assert leaked(threads) == []
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert schema(path) == [("t", "CREATE TABLE t (x)")]


async def test_a_read_only_database_refuses_writes_clearly(tmp_path: Path) -> None:
    # PRAGMA query_only gives SQLite's own read-only error whoever runs the test (root
    # writes to a chmod 444 file; test_cli covers that file with the privilege dropped).
    async with SqliteStore(tmp_path / "ro.db") as store:
        game = await game_with_one_action(store)
        await store.conn.execute("PRAGMA query_only = ON")
        with pytest.raises(StoreUnavailable, match=r"ro\.db: the database is read-only$"):
            await store.append_action(game.id, 1, "2", '{"kind": "roll"}', '{"at": 2}')
        with pytest.raises(StoreUnavailable, match="read-only"):
            await store.create_game("toy", 8, {}, "{}")
        await unchanged(store, game)
        await store.conn.execute("PRAGMA query_only = OFF")
        assert await store.append_action(game.id, 1, "2", '{"kind": "roll"}', '{"at": 2}') == 2


async def test_sql_errors_are_not_store_faults(store: SqliteStore) -> None:
    """A bug in a statement stays a sqlite3 error, not "the database is unavailable"."""
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await store._one("SELECT * FROM no_such_table")
    with pytest.raises(sqlite3.IntegrityError):
        async with store.transaction() as db:
            await db.execute(
                "INSERT INTO game_snapshots (game_id, seq, state_json) VALUES (1, 0, 'x')"
            )
    async with store.transaction() as db:  # and the failed transaction was rolled back
        await db.execute("SELECT 1")
