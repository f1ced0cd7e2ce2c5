"""The PostgreSQL store across processes (issue 14): two bot processes on one database.
Writers racing on one game, due timers claimed by two processes, two processes starting on
an empty database; and its faults, reported as the SQLite store reports its own. Skipped
without PADDOCK_TEST_DATABASE_URL (see tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from store import NotFound, PostgresStore, SqliteStore, StaleState, Store, open_store, play
from store.errors import StoreUnavailable
from store.games import GameStore
from store.migrate import discover
from store.models import TimerSpec
from store.verify import verify_store
from tests.toygame.rules import ToyGame

ROOT = Path(__file__).resolve().parents[2]
ALL_MIGRATIONS = [f"{m.version:04d}_{m.name}" for m in discover()]

# the toy game's rules (tests/toygame/) play the games these tests store
pytestmark = pytest.mark.usefixtures("toy_game")


def run_script(script: str, *args: str, timeout: float = 120) -> Any:
    """Run a script (which forks its workers at a barrier, so that they really start
    together) in a fresh interpreter; return the JSON it prints."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# Two processes, each with its own pool, append to the same new game at the same moment,
# once for each of the games given; each reports what it got.
_RACE = """
    import asyncio, json, multiprocessing, sys
    from store import open_store, StaleState

    def worker(url, games, who, barrier, out):
        async def go():
            store = open_store(url)
            await store.open(run_migrations=False)
            got = {}
            try:
                for gid in games:
                    barrier.wait()  # blocks the loop on purpose: nothing else runs here
                    try:
                        got[gid] = ["won", await store.append_action(
                            gid, 0, who, json.dumps({"by": who}), json.dumps({"winner": who}))]
                    except StaleState as exc:
                        got[gid] = ["stale", exc.seq, exc.state_json]
            finally:
                await store.close()
            return got
        out.put((who, asyncio.run(go())))

    url, games = sys.argv[1], json.loads(sys.argv[2])
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(url, games, w, barrier, out)) for w in "ab"]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=100) for _ in procs)
    for p in procs:
        p.join(10)
    print(json.dumps({"results": results, "exit": [p.exitcode for p in procs]}))
"""


async def test_two_processes_racing_on_one_game_exactly_one_wins(pg_schema: str) -> None:
    rounds = 200
    async with open_store(pg_schema) as store:
        games = [(await store.create_game("toy", i, {}, '{"at": 0}')).id for i in range(rounds)]
        started = time.monotonic()
        report = await asyncio.to_thread(run_script, _RACE, pg_schema, json.dumps(games))
        took = time.monotonic() - started
        assert report["exit"] == [0, 0]
        a, b = report["results"]["a"], report["results"]["b"]
        for gid in games:
            outcomes = sorted([a[str(gid)], b[str(gid)]])
            assert [o[0] for o in outcomes] == ["stale", "won"], (gid, outcomes)
            winner = "a" if a[str(gid)][0] == "won" else "b"
            # The loser was told the state that won, at the sequence number it won.
            assert outcomes[0][1:] == [1, json.dumps({"winner": winner})]
            record = await store.load_game(gid)
            assert record.seq == 1 and record.state_json == json.dumps({"winner": winner})
            assert [(x.seq, x.actor) for x in await store.actions(gid)] == [(1, winner)]
        wins = [r[0] for r in a.values()].count("won")
        assert 0 < wins < rounds  # both processes won some races: they really raced
    assert took < 60, f"{rounds} races took {took:.1f} s"


# Two processes claim due timers: with claim_due_timer until none is due, then (the timer
# loop's way) with delete_timer on every timer of a second batch.
_TIMERS = """
    import asyncio, json, multiprocessing, sys
    from store import open_store

    def worker(url, second, barrier, out):
        async def go():
            store = open_store(url)
            await store.open(run_migrations=False)
            claimed, deleted = [], []
            try:
                barrier.wait()
                while (timer := await store.claim_due_timer(1000.0)) is not None:
                    claimed.append(timer.id)
                barrier.wait()
                for timer_id in second:
                    if await store.delete_timer(timer_id):
                        deleted.append(timer_id)
            finally:
                await store.close()
            return {"claimed": claimed, "deleted": deleted}
        out.put(asyncio.run(go()))

    url, second = sys.argv[1], json.loads(sys.argv[2])
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(url, second, barrier, out)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=100) for _ in procs]
    for p in procs:
        p.join(10)
    print(json.dumps({"results": results, "exit": [p.exitcode for p in procs]}))
"""


async def test_two_processes_claim_each_due_timer_once(pg_schema: str) -> None:
    async with open_store(pg_schema) as store:
        game = await store.create_game("toy", 1, {}, "{}")
        due = [(await store.add_timer("turn", float(i), {"n": i})).id for i in range(300)]
        later = await store.add_timer("turn", 5000.0, {})  # not due: nobody claims it
        # The second batch is not due at 1000 either: only delete_timer takes those.
        await store.replace_game_timers(
            game.id, [TimerSpec(event="idle", due_at=2000.0 + i) for i in range(100)]
        )
        second = [t.id for t in await store.timers(game.id)]
        report = await asyncio.to_thread(run_script, _TIMERS, pg_schema, json.dumps(second))
        assert report["exit"] == [0, 0]
        one, two = report["results"]
        assert sorted(one["claimed"] + two["claimed"]) == due  # each due timer, exactly once
        assert one["claimed"] and two["claimed"]  # and both processes did claim
        assert sorted(one["deleted"] + two["deleted"]) == sorted(second)
        assert await store.timers() == [later]


# Two processes open a new, empty schema at the same moment, a few times over.
_START = """
    import asyncio, json, multiprocessing, sys, uuid
    import asyncpg
    from store import open_store

    def start(url, barrier, out):
        async def go():
            store = open_store(url)
            barrier.wait()
            try:
                return await store.open()
            except Exception as exc:
                return f"{type(exc).__name__}: {exc}"
            finally:
                await store.close()
        out.put(asyncio.run(go()))

    async def sql(url, statement):
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(statement)]
        finally:
            await conn.close()

    base, rounds = sys.argv[1], int(sys.argv[2])
    ctx = multiprocessing.get_context("fork")
    report = []
    for _ in range(rounds):
        schema = f"paddock_start_{uuid.uuid4().hex[:12]}"
        asyncio.run(sql(base, f"CREATE SCHEMA {schema}"))
        url = f"{base}{'&' if '?' in base else '?'}search_path={schema}"
        try:
            barrier, out = ctx.Barrier(2), ctx.Queue()
            procs = [ctx.Process(target=start, args=(url, barrier, out)) for _ in range(2)]
            for p in procs:
                p.start()
            results = [out.get(timeout=60) for _ in procs]
            for p in procs:
                p.join(10)
            versions = asyncio.run(sql(url, "SELECT version FROM schema_migrations"))
            report.append({"results": results, "exit": [p.exitcode for p in procs],
                           "versions": sorted(v for (v,) in versions)})
        finally:
            asyncio.run(sql(base, f"DROP SCHEMA {schema} CASCADE"))
    print(json.dumps(report))
"""


def test_two_processes_starting_on_an_empty_database_both_come_up(pg_url: str) -> None:
    rounds = 10
    report = run_script(_START, pg_url, str(rounds))
    assert len(report) == rounds
    for race in report:
        assert race["exit"] == [0, 0], race
        first, second = race["results"]
        # Both opened (an error would be a string), and between them every migration was
        # applied exactly once (they may take turns: one applies 0001, the other 0002).
        assert isinstance(first, list) and isinstance(second, list), race
        assert sorted(first + second) == ALL_MIGRATIONS, race
        assert race["versions"] == [m.version for m in discover()]


# Two processes play the same games move after move, the table layer's way: load, apply
# through the rules, persist with the sequence check (store.play.act). Each reports the
# moves it stored and the ones refused as stale.
_PLAY = """
    import asyncio, json, multiprocessing, sys
    from rules.base import register
    from store import open_store, play, StaleState
    from tests.toygame.rules import Roll, ToyGame

    def worker(url, games, who, barrier, out):
        register(ToyGame())
        async def go():
            store = open_store(url)
            await store.open(run_migrations=False)
            won = stale = 0
            try:
                barrier.wait()
                for gid in games:
                    while True:
                        loaded = await play.load(store, gid)
                        _, game, state = loaded
                        if game.is_terminal(state):
                            break
                        # The two writers decide differently: a lost update would show.
                        action = Roll(seat=state.turn, boost=int(who == "a"))
                        try:
                            await play.act(store, gid, action, who, loaded=loaded)
                            won += 1
                        except StaleState:
                            stale += 1
            finally:
                await store.close()
            return {"won": won, "stale": stale}
        out.put((who, asyncio.run(go())))

    url, games = sys.argv[1], json.loads(sys.argv[2])
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(url, games, w, barrier, out)) for w in "ab"]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=100) for _ in procs)
    for p in procs:
        p.join(10)
    print(json.dumps({"results": results, "exit": [p.exitcode for p in procs]}))
"""


async def test_two_processes_playing_one_game_never_interleave_a_move(pg_schema: str) -> None:
    """load -> apply -> persist from two processes on the same games: every stored move
    was decided on the state just before it (the log replays to each snapshot), none is
    lost or doubled, and the processes really collided (stale refusals)."""
    async with open_store(pg_schema) as store:
        games = [(await play.new_game(store, "toy", i, {}, []))[0].id for i in range(25)]
        report = await asyncio.to_thread(run_script, _PLAY, pg_schema, json.dumps(games))
        assert report["exit"] == [0, 0]
        a, b = report["results"]["a"], report["results"]["b"]
        logs = [await store.actions(gid) for gid in games]
        assert a["won"] + b["won"] == sum(len(log) for log in logs) >= 200
        for log in logs:
            assert [x.seq for x in log] == list(range(1, len(log) + 1))
        report = await verify_store(store)
        assert report.ok and report.checked == len(games), report.text()
        assert a["stale"] + b["stale"] > 0  # they did collide
        assert a["won"] and b["won"]


async def test_commits_are_durable_as_on_sqlite_unless_the_url_asks_for_more(
    pg_schema: str,
) -> None:
    """synchronous_commit off (SQLite's WAL with synchronous=NORMAL: no disk flush per
    move); `?synchronous_commit=on` in the URL wins."""
    async with open_store(pg_schema) as store:
        assert isinstance(store, PostgresStore)
        assert await store._val("SHOW synchronous_commit") == "off"
        assert await store._val("SHOW application_name") == "paddock"
    async with open_store(f"{pg_schema}&synchronous_commit=on") as store:
        assert isinstance(store, PostgresStore)
        assert await store._val("SHOW synchronous_commit") == "on"


# Semantics that SQLite's one writer at a time gave, kept by the row locks ---------------


async def test_racing_league_changes_are_refused_as_on_sqlite(pg_schema: str) -> None:
    """Two pools at once: one league of a name, one driver per colour, one start."""
    async with open_store(pg_schema) as a, open_store(pg_schema) as b:
        for i in range(10):
            made = await asyncio.gather(
                a.create_league(1, f"Cup {i}", "waddington", "w", [10], None),
                b.create_league(1, f"cup {i}", "waddington", "w", [10], None),
                return_exceptions=True,
            )
            assert sorted(type(r).__name__ for r in made) == ["League", "LeagueError"], made
            league = next(r for r in made if not isinstance(r, Exception))
            joined = await asyncio.gather(
                a.join_league(league, 1, "Ann", "red"),
                b.join_league(league, 2, "Bob", "red"),
                return_exceptions=True,
            )
            assert sorted(type(r).__name__ for r in joined) == ["LeagueError", "Member"], joined
            lobby = await a.create_game("toy", i, {}, None, status="lobby")
            started = await asyncio.gather(
                a.start_game(lobby.id, {}, '{"at": 0}', []),
                b.start_game(lobby.id, {}, '{"at": 0}', []),
                return_exceptions=True,
            )
            kinds = sorted(type(r).__name__ for r in started)
            assert kinds == ["GameRecord", "LeagueError"], started


async def test_a_finishing_action_records_the_league_result_once_across_pools(
    pg_schema: str,
) -> None:
    async with open_store(pg_schema) as a, open_store(pg_schema) as b:
        league = await a.create_league(1, "Cup", "waddington", "w", [10, 8], None)
        for user in (1, 2):
            await a.join_league(league, user, f"D{user}", None)
        rnd = await a.set_round(league, 1, "Monza", None)
        game = await a.create_game("toy", 1, {}, "{}", league_id=league.id, round_id=rnd.id)
        placings = [(1, 1, "finished"), (2, 2, "finished")]
        # The finishing action and two late "record the finish" calls, all at once.
        *recorded, seq = await asyncio.gather(
            a.record_game_results(game.id, placings),
            b.record_game_results(game.id, placings),
            b.append_action(game.id, 0, "x", "{}", "{}", status="finished", results=placings),
        )
        assert seq == 1 and recorded.count(True) <= 1  # the action's own, or one of them
        assert [(r.place, r.source) for r in await a.results(league.id)] == [
            (1, "game"),
            (2, "game"),
        ]
        assert (await a.load_game(game.id)).results_recorded


class _StepwisePostgres(PostgresStore):
    """PostgreSQL with the store's statement-by-statement append (SQLite's) rather than its
    own one-statement one: the shared SQL must hold on both databases."""

    _append = GameStore._append


async def _appends(store: Store, guild_id: int) -> list[Any]:
    """Appends of every kind (timers, status, human time, a chain, a lost race, a league
    finish, a game without state, no game) and what each left behind, without ids."""
    league = await store.create_league(guild_id, "Cup", "waddington", "w", [10, 8], None)
    for user in (1, 2):
        await store.join_league(league, user, f"D{user}", None)
    rnd = await store.set_round(league, 1, "Monza", None)
    game = await store.create_game("toy", 1, {}, '{"at":0}', league_id=league.id, round_id=rnd.id)
    lobby = await store.create_game("toy", 2, {}, None, status="lobby")
    gid = game.id
    seen: list[Any] = []
    idle = [TimerSpec(event="idle", due_at=10.5, payload={"n": 1})]
    seen.append(await store.append_action(gid, 0, "1", '{"a":1}', '{"at":1}', timers=idle))
    chain = [("2", '{"a":2}', True), ("1", '{"a":3}', False)]
    seen.append(await store.append_actions(gid, 1, chain, '{"at":3}', human_at=7.25))
    for late in (1, 0):
        with pytest.raises(StaleState) as stale:
            await store.append_action(gid, late, "2", "{}", '{"at":9}', timers=[])
        seen.append((stale.value.seq, stale.value.state_json))
    for missing in (lobby.id, gid + 1000):
        with pytest.raises(NotFound) as gone:
            await store.append_action(missing, 0, "1", "{}", "{}")
        seen.append(gone.value.message.replace(str(missing), "#"))
    placings = [(2, 1, "finished"), (1, 2, "finished")]
    seen.append(
        await store.append_action(
            gid, 3, "2", '{"a":4}', '{"at":4}', status="finished", results=placings, timers=[]
        )
    )
    record = await store.load_game(gid)
    seen.append(record.model_dump(exclude={"id", "league_id", "round_id"}))
    seen.append([a.model_dump(exclude={"game_id", "created_at"}) for a in await store.actions(gid)])
    seen.append([(r.place, r.status, r.source) for r in await store.results(league.id)])
    seen.append([(t.event, t.due_at, t.payload) for t in await store.timers(gid)])
    return seen


async def test_the_append_writes_the_same_on_both_databases_either_way(
    tmp_path: Path, pg_schema: str
) -> None:
    """PostgreSQL's one-statement append, the shared statement-by-statement one on
    PostgreSQL, and SQLite's: the same outcomes and the same rows."""
    async with SqliteStore(tmp_path / "a.db") as lite:
        expected = await _appends(lite, 1)
    async with open_store(pg_schema) as pg, _StepwisePostgres(pg_schema) as steps:
        assert await _appends(pg, 1) == expected
        assert await _appends(steps, 2) == expected
    assert expected[:6] == [1, 3, (3, '{"at":3}'), (3, '{"at":3}'), *expected[4:6]]


# Faults: one line naming the database, nothing changed, no hang -------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nobody listens there once this socket is closed


async def test_an_unreachable_server_is_one_line_naming_it() -> None:
    port = _closed_port()
    store = open_store(f"postgresql://paddock:s3cret@127.0.0.1:{port}/paddock")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        await store.open()
    assert time.monotonic() - started < 5
    assert str(caught.value) == (
        f"postgresql://paddock@127.0.0.1:{port}/paddock: cannot connect: connection refused"
    )
    with pytest.raises(RuntimeError, match="not open"):
        store.pool  # noqa: B018 - the failed open left nothing behind
    await store.close()  # and closing it anyway is harmless


async def test_a_database_that_does_not_exist_is_one_line(pg_url: str) -> None:
    parts = pg_url.split("?")[0].rsplit("/", 1)
    url = f"{parts[0]}/paddock_no_such_database"
    with pytest.raises(StoreUnavailable, match='cannot open it: database "paddock_no_such_'):
        await open_store(url).open()


async def test_verify_style_open_refuses_a_schema_that_is_not_migrated(pg_schema: str) -> None:
    with pytest.raises(StoreUnavailable, match="no Paddock tables"):
        await open_store(pg_schema).open(run_migrations=False)
    conn = await asyncpg.connect(pg_schema)
    try:
        await conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL); INSERT INTO schema_migrations VALUES (1, 'initial', 'x')"
        )
    finally:
        await conn.close()
    with pytest.raises(StoreUnavailable, match=r"not migrated \(pending: 0002_game_settings"):
        await open_store(pg_schema).open(run_migrations=False)


async def test_a_game_locked_beyond_the_lock_timeout_is_a_clear_error(pg_schema: str) -> None:
    store = PostgresStore(pg_schema, lock_timeout=0.3)
    async with store:
        game = await store.create_game("toy", 7, {}, '{"at": 0}')
        await store.append_action(game.id, 0, "1", "{}", '{"at": 1}')
        other = await asyncpg.connect(pg_schema)  # another process, writing the game
        tx = other.transaction()
        await tx.start()
        await other.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game.id)
        try:
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as caught:
                await asyncio.wait_for(
                    store.append_action(game.id, 1, "2", "{}", '{"at": 2}', status="finished"),
                    10,
                )
            assert time.monotonic() - started < 5
            assert str(caught.value) == (
                f"{store.path}: the database is locked by another process (gave up after 0.3 s)"
            )
            record = await store.load_game(game.id)  # reading works meanwhile
            assert (record.seq, record.state_json, record.status) == (1, '{"at": 1}', "running")
        finally:
            await tx.rollback()
            await other.close()
        assert await store.append_action(game.id, 1, "2", "{}", '{"at": 2}') == 2
        with pytest.raises(StaleState) as stale:
            await store.append_action(game.id, 1, "2", "{}", '{"at": 9}')
        assert stale.value.seq == 2 and stale.value.state_json == '{"at": 2}'


async def test_a_read_only_database_refuses_writes_clearly(pg_schema: str) -> None:
    async with open_store(pg_schema) as store:
        game = await store.create_game("toy", 7, {}, '{"at": 0}')
    readonly = f"{pg_schema}&default_transaction_read_only=on"
    store = open_store(readonly)
    with pytest.raises(StoreUnavailable, match="the database is read-only$"):
        await store.open()  # found at open, not at the first move
    await store.open(run_migrations=False)  # verify only reads
    try:
        assert (await store.load_game(game.id)).seq == 0
        with pytest.raises(StoreUnavailable, match="read-only"):
            await store.append_action(game.id, 0, "1", "{}", "{}")
    finally:
        await store.close()


async def test_a_connection_ended_by_the_server_is_one_line_and_nothing_changes(
    pg_schema: str, pg_url: str
) -> None:
    """The server ends a connection in the middle of an append (a restart, a failover, an
    administrator): one line, nothing written; the pool then connects again."""
    async with open_store(pg_schema) as store:
        assert isinstance(store, PostgresStore)
        game = await store.create_game("toy", 7, {}, '{"at": 0}')
        other = await asyncpg.connect(pg_url)
        tx = other.transaction()
        await tx.start()
        await other.execute(f"SELECT 1 FROM {pg_schema.split('=')[-1]}.games FOR UPDATE")
        try:
            append = asyncio.create_task(store.append_action(game.id, 0, "1", "{}", '{"at": 1}'))
            blocked = None
            for _ in range(500):  # our append, waiting for the game's lock
                blocked = await other.fetchval(
                    "SELECT pid FROM pg_stat_activity WHERE pg_backend_pid()"
                    " = ANY(pg_blocking_pids(pid))"
                )
                if blocked is not None:
                    break
                await asyncio.sleep(0.01)
            assert blocked is not None
            assert await other.fetchval("SELECT pg_terminate_backend($1)", blocked)
            with pytest.raises(StoreUnavailable) as caught:
                await asyncio.wait_for(append, 10)
        finally:
            await tx.rollback()
            await other.close()
        # asyncpg reads the server's goodbye, or only the socket closing.
        assert str(caught.value) in {
            f"{store.path}: the connection to the server was lost",
            f"{store.path}: the server ended the connection: terminating connection due to"
            " administrator command",
        }
        assert (await store.load_game(game.id)).seq == 0
        assert await store.actions(game.id) == []
        assert await store.append_action(game.id, 0, "1", "{}", '{"at": 1}') == 1
        # Ended between two calls: the next call reconnects, or says so in one line.
        for n in range(5):
            pid = await store._val("SELECT pg_backend_pid()")
            admin = await asyncpg.connect(pg_url)
            try:
                await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
            finally:
                await admin.close()
            try:
                await store.append_action(game.id, 1 + n, "1", "{}", f'{{"at": {n + 2}}}')
            except StoreUnavailable as exc:
                assert "connection" in str(exc)
                await store.append_action(game.id, 1 + n, "1", "{}", f'{{"at": {n + 2}}}')
        assert (await store.load_game(game.id)).seq == 6


# paddock copy-db --------------------------------------------------------------------------


def test_copy_db_moves_a_sqlite_bot_to_postgres_row_for_row(
    tmp_path: Path, pg_schema: str, toy_game: ToyGame
) -> None:
    import sqlite3

    from bot.cli import main
    from store import Seat, SqliteStore, play
    from store.postgres_copy import TABLES
    from store.race_logs import replay_log
    from tests.toygame.rules import Roll

    path = tmp_path / "bot.db"
    seats = [
        Seat(seat=0, user_id=2**60, name="A", robot=False),
        Seat(seat=1, user_id=2, name="B", robot=False, autopilot=True),
    ]

    async def build() -> None:
        game = toy_game
        async with SqliteStore(path) as s:
            await s.set_admin_role(2**61, 2**59)
            await s.set_dm_reminders(2**60, True)
            league = await s.create_league(1, "Cup", "waddington", "w", [10, 8], None)
            for user in (2**60, 2):
                await s.join_league(league, user, f"D{user}", None)
            league = await s.set_robots_take_places(league, True)
            first, second = (
                await s.set_round(league, 1, "Monza", "Sat"),
                await s.set_round(league, 2, "Spa", None),
            )
            members = await s.members(league.id)
            await s.record_round(league, first, [(members[0].id, 1, "finished")])
            record, _ = await play.new_game(
                s,
                "toy",
                3,
                {"players": 2},
                seats,
                guild_id=1,
                league_id=league.id,
                round_id=second.id,
            )
            played = None
            while played is None or not played.finished:
                state = game.load_state((await s.load_game(record.id)).state_json)
                seat = game.to_act(state)[0]
                played = await play.act(s, record.id, game.robot_action(state, seat), "r")
            assert len(await s.finished_placings(1)) == 2  # (game_placings: kept once)
            finished = await s.load_game(record.id)  # its log in words, as the bot keeps it
            logged = [(a.seq, a.actor, a.action_json) for a in await s.actions(record.id)]
            await s.keep_race_log(
                record.id,
                finished.seq,
                replay_log("toy", finished.seed, finished.config, finished.state_json, logged),
            )
            running, _ = await play.new_game(s, "toy", 4, {"players": 2}, seats, channel_id=9)
            await play.act(s, running.id, Roll(seat=0), "x", human_at=12.5)
            await s.replace_game_timers(running.id, [TimerSpec(event="turn", due_at=99.5)])
            await s.add_timer("reminder", 50.0, {"user": 2**60})
            await s.create_game("toy", 5, {}, None, status="lobby", settings={"host": 1})

    asyncio.run(build())
    assert main(["copy-db", "--from", f"sqlite:///{path}", "--to", pg_schema]) == 0

    async def target(sql: str) -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(pg_schema)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    with sqlite3.connect(path) as db:
        for table in TABLES:
            rows = sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            assert rows, table  # the fixture fills every table
            assert sorted(asyncio.run(target(f"SELECT * FROM {table}")), key=repr) == rows
    assert main(["verify", "--db-url", pg_schema]) == 0

    async def after() -> None:
        async with open_store(pg_schema) as s:
            games = await s.list_games()
            new = await s.create_game("toy", 6, {}, None)
            assert new.id == max(g.id for g in games) + 1  # ids go on after the copied ones
            assert (await s.add_timer("x", 1.0, {})).id == 3

    asyncio.run(after())
    # A second copy into a database that holds data is refused, and changes nothing.
    before = asyncio.run(target("SELECT count(*) FROM game_actions"))
    assert main(["copy-db", "--from", str(path), "--to", pg_schema]) == 2
    assert asyncio.run(target("SELECT count(*) FROM game_actions")) == before


async def _refusals(store: Any) -> list[str]:
    """Every refusal a user can meet, in order: what each store says."""
    said: list[str] = []

    async def expect(call: Any) -> None:
        try:
            await call
        except Exception as exc:  # LeagueError, NotFound, StaleState, ValueError
            said.append(f"{type(exc).__name__}: {exc}")
        else:
            said.append("no refusal")

    cup = await store.create_league(1, "Spring  Cup", "waddington", "w", [10, 8], None)
    await expect(store.create_league(1, "spring cup", "waddington", "w", [10], None))
    await expect(store.create_league(1, "x" * 51, "waddington", "w", [10], None))
    ann = await store.join_league(cup, 1, "Ann", "red")
    await expect(store.join_league(cup, 1, "Ann", "blue"))
    await expect(store.join_league(cup, 2, "Bob", "red"))
    bob = await store.join_league(cup, 2, "Bob", "blue")
    await expect(store.leave_league(cup, 3))
    await expect(store.get_league(1, "Autumn Cup"))
    await expect(store.get_league(1, "Spring Cup", 7))
    await expect(store.get_round(cup, 9))
    await expect(store.set_round(cup, 1, " ", None))
    rnd = await store.set_round(cup, 1, "Monza", None)
    await expect(store.record_round(cup, rnd, []))
    await expect(store.record_round(cup, rnd, [(ann.id, 1, "finished"), (ann.id, 2, "dnf")]))
    await expect(store.record_round(cup, rnd, [(ann.id, 1, "finished"), (bob.id, 1, "dnf")]))
    await store.record_round(cup, rnd, [(ann.id, 1, "finished"), (bob.id, 2, "finished")])
    await expect(store.record_round(cup, rnd, [(ann.id, 1, "finished")]))
    await expect(store.remove_round(cup, 1))
    await expect(store.correct_result(cup, rnd, bob, 1, "finished"))
    closed = await store.close_season(cup)
    for call in (
        store.join_league(closed, 5, "Eve", None),
        store.set_round(closed, 2, "Spa", None),
        store.set_points_table(closed, "w", [1]),
        store.close_season(closed),
    ):
        await expect(call)
    await expect(store.create_league(1, "Spring Cup", "rf90", "w", [10], None))
    await expect(store.league_by_id(999))
    lobby = await store.create_game("toy", 1, {}, None, status="lobby")
    await store.start_game(lobby.id, {}, '{"at": 0}', [])
    await expect(store.start_game(lobby.id, {}, '{"at": 0}', []))
    await expect(store.start_game(999, {}, "{}", []))
    await expect(store.load_game(999))
    await expect(store.append_action(999, 0, "x", "{}", "{}"))
    await expect(store.append_actions(lobby.id, 0, [], "{}"))
    await store.append_action(lobby.id, 0, "x", "{}", '{"at": 1}')
    await expect(store.append_action(lobby.id, 0, "x", "{}", '{"at": 2}'))
    await expect(store.record_game_results(999, []))
    await expect(store.update_game(lobby.id, state_json="{}"))
    await expect(store.update_seat(lobby.id, 0, name="x"))
    return said


async def test_refusals_read_the_same_on_both_backends(tmp_path: Path, pg_schema: str) -> None:
    """The messages are written once (store.leagues, store.games), but reached through
    each database's locks and errors: a path that differs shows here."""
    async with SqliteStore(tmp_path / "a.db") as lite, open_store(pg_schema) as pg:
        on_sqlite, on_postgres = await _refusals(lite), await _refusals(pg)
    assert "no refusal" not in on_sqlite
    assert on_postgres == on_sqlite
