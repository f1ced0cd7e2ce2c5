"""The store against a real database, the same tests for both backends: a SQLite file and
(with PADDOCK_TEST_DATABASE_URL) a PostgreSQL schema. Migrations, log + snapshot,
conflicts, verify, leagues, timers."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bot.settings import Settings
from rules.errors import IllegalAction
from store import (
    LeagueError,
    NotFound,
    PostgresStore,
    Seat,
    SqliteStore,
    StaleState,
    Store,
    open_store,
    play,
)
from store.connection import SQLITE
from store.dialect import Tx, numbered
from store.errors import MigrationError, Repeated
from store.migrate import MIGRATIONS_DIR, discover
from store.models import Once, Shards, TimerSpec, shard_of
from store.postgres_connection import POSTGRES
from store.verify import verify_store
from tests.toygame.rules import Roll, ToyGame

ALL_MIGRATIONS = [f"{m.version:04d}_{m.name}" for m in discover()]

# the toy game's rules (tests/toygame/) play the games these tests store
pytestmark = pytest.mark.usefixtures("toy_game")

TABLES = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
    "postgres": "SELECT table_name FROM information_schema.tables"
    " WHERE table_schema = current_schema()",
}
LEAGUE_COLUMNS = {
    "sqlite": "SELECT name FROM pragma_table_info('leagues')",
    "postgres": "SELECT column_name FROM information_schema.columns"
    " WHERE table_schema = current_schema() AND table_name = 'leagues'",
}


@pytest.fixture
def store(backend_store: Store) -> Store:
    """This module's store tests run against both backends (conftest.backend_url)."""
    return backend_store


def kind(url: str) -> str:
    return "sqlite" if url.startswith("sqlite:///") else "postgres"


def dollars(sql: str) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2...`."""
    pieces = sql.split("?")
    return pieces[0] + "".join(f"${i}{p}" for i, p in enumerate(pieces[1:], start=1))


async def query(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run SQL (with `?` placeholders) on the database behind a store, on a connection of
    its own, committed: to look at or tamper with what the store wrote."""
    if kind(url) == "sqlite":
        db = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        try:
            return [tuple(r) for r in db.execute(sql, args).fetchall()]
        finally:
            db.close()
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await conn.fetch(dollars(sql), *args)]
    finally:
        await conn.close()


async def test_migrations_apply_once_and_are_recorded(backend_url: str) -> None:
    s = open_store(backend_url)
    assert await s.open() == ALL_MIGRATIONS
    assert await s.migrate() == []
    await s.close()
    s2 = open_store(backend_url)
    assert await s2.open() == []
    await s2.close()
    assert await query(backend_url, "SELECT version, name FROM schema_migrations") == [
        (1, "initial"),
        (2, "game_settings"),
        (3, "games_by_channel"),
        (4, "table_layer"),
        (5, "feed"),
        (6, "archive_threads"),
        (7, "any_game"),
        (8, "recent_commands"),
        (9, "league_home"),
        (10, "season_runner"),
        (11, "careers"),
        (12, "availability"),
        (13, "league_site"),
        (14, "site_index"),
        (15, "undo"),
        (16, "confirmations"),
        (17, "race_logs"),
    ]
    if kind(backend_url) == "sqlite":
        assert (await query(backend_url, "PRAGMA journal_mode"))[0][0] == "wal"
    tables = {r[0] for r in await query(backend_url, TABLES[kind(backend_url)])}
    assert {"leagues", "games", "game_actions", "game_snapshots", "timers"} <= tables


async def test_failing_migration_leaves_the_database_as_it_was(
    backend_url: str, tmp_path: Path
) -> None:
    source = MIGRATIONS_DIR if kind(backend_url) == "sqlite" else MIGRATIONS_DIR / "postgres"
    mdir = tmp_path / "migrations"
    mdir.mkdir()
    (mdir / "0001_initial.sql").write_text((source / "0001_initial.sql").read_text())
    (mdir / "0002_broken.sql").write_text(
        "CREATE TABLE half_done (id INTEGER);\nALTER TABLE leagues ADD COLUMN x INTEGER;\n"
        "INSERT INTO no_such_table VALUES (1);\n"
    )
    s = open_store(backend_url, migrations_dir=mdir)
    with pytest.raises(MigrationError, match="0002_broken"):
        await s.open()
    await s.close()
    tables = {r[0] for r in await query(backend_url, TABLES[kind(backend_url)])}
    cols = {r[0] for r in await query(backend_url, LEAGUE_COLUMNS[kind(backend_url)])}
    versions = [r[0] for r in await query(backend_url, "SELECT version FROM schema_migrations")]
    assert "half_done" not in tables and "x" not in cols and versions == [1]


async def test_foreign_keys_are_enforced(store: Store) -> None:
    if isinstance(store, SqliteStore):
        error: type[Exception] = sqlite3.IntegrityError
    else:
        import asyncpg

        error = asyncpg.ForeignKeyViolationError
    with pytest.raises(error):
        async with store.transaction() as db:  # type: ignore[attr-defined]
            await db.execute(
                "INSERT INTO league_members (league_id, user_id, display_name, joined_at)"
                " VALUES (999, 1, 'x', 'now')"
            )


async def _toy_game(store: Store, seed: int = 5) -> int:
    record, _ = await play.new_game(
        store,
        "toy",
        seed,
        {"players": 2},
        [
            Seat(seat=0, user_id=1, name="A", robot=False),
            Seat(seat=1, user_id=2, name="B", robot=False),
        ],
    )
    return record.id


async def test_action_log_and_snapshot_move_together(store: Store, toy_game: ToyGame) -> None:
    game = toy_game
    gid = await _toy_game(store)
    for i in range(4):
        await play.act(store, gid, Roll(seat=i % 2), actor=str(i % 2 + 1))
    record = await store.load_game(gid)
    log = await store.actions(gid)
    assert record.seq == 4 and [a.seq for a in log] == [1, 2, 3, 4]
    replayed = game.replay(5, {"players": 2}, [game.parse_action(a.action_json) for a in log])
    assert replayed.model_dump_json() == record.state_json


async def test_illegal_action_stores_nothing(store: Store) -> None:
    gid = await _toy_game(store)
    before = await store.load_game(gid)
    with pytest.raises(IllegalAction, match="not your turn"):
        await play.act(store, gid, Roll(seat=1), actor="2")
    after = await store.load_game(gid)
    assert after == before and await store.actions(gid) == []


async def test_two_writers_race_for_one_sequence_number(
    backend_url: str, toy_game: ToyGame
) -> None:
    # Two stores on one database: two SQLite connections, or two PostgreSQL pools.
    a, b = open_store(backend_url), open_store(backend_url)
    await a.open()
    await b.open()
    gid = await _toy_game(a)
    game = toy_game
    state = game.load_state((await a.load_game(gid)).state_json)
    s1, _ = game.apply(state, Roll(seat=0))
    s2, _ = game.apply(state, Roll(seat=0, boost=1))
    results = await asyncio.gather(
        a.append_action(gid, 0, "1", Roll(seat=0).model_dump_json(), s1.model_dump_json()),
        b.append_action(gid, 0, "1", Roll(seat=0, boost=1).model_dump_json(), s2.model_dump_json()),
        return_exceptions=True,
    )
    wins = [r for r in results if r == 1]
    stale = [r for r in results if isinstance(r, StaleState)]
    assert len(wins) == 1 and len(stale) == 1
    log = await a.actions(gid)
    assert len(log) == 1
    winner_state = (await a.load_game(gid)).state_json
    assert stale[0].seq == 1 and stale[0].state_json == winner_state
    assert "moved on" in stale[0].message
    assert (await verify_store(a)).ok
    await a.close()
    await b.close()


async def test_a_second_click_on_an_old_state_is_refused(store: Store) -> None:
    gid = await _toy_game(store)
    await play.act(store, gid, Roll(seat=0), actor="1", expected_seq=0)
    with pytest.raises(StaleState):
        await play.act(store, gid, Roll(seat=1), actor="2", expected_seq=0)
    assert len(await store.actions(gid)) == 1


async def tamper(store: Store, sql: str, *args: Any) -> None:
    """Change the database behind the store's back, in a transaction of the store's own."""
    async with store.transaction() as db:  # type: ignore[attr-defined]
        if isinstance(store, SqliteStore):
            await db.execute(sql, args)
        else:
            await db.execute(dollars(sql), *args)


async def test_verify_reports_a_tampered_snapshot(store: Store) -> None:
    gid = await _toy_game(store)
    for i in range(3):
        await play.act(store, gid, Roll(seat=i % 2), actor="x")
    assert (await verify_store(store)).ok
    record = await store.load_game(gid)
    data = json.loads(record.state_json)
    data["positions"][0] += 1
    await tamper(
        store,
        "UPDATE game_snapshots SET state_json = ? WHERE game_id = ?",
        json.dumps(data, separators=(",", ":")),
        gid,
    )
    report = await verify_store(store)
    assert not report.ok
    assert f"game #{gid}" in report.text() and "$.positions[0]" in report.text()


async def test_verify_reports_a_missing_log_entry(store: Store) -> None:
    gid = await _toy_game(store)
    for i in range(3):
        await play.act(store, gid, Roll(seat=i % 2), actor="x")
    await tamper(store, "DELETE FROM game_actions WHERE game_id = ? AND seq = 3", gid)
    report = await verify_store(store)
    assert not report.ok and "log has 2 actions but the snapshot is at 3" in report.text()


def test_verify_command_exit_codes(backend_url: str) -> None:
    async def build() -> int:
        async with open_store(backend_url) as s:
            gid = await _toy_game(s)
            await play.act(s, gid, Roll(seat=0), actor="x")
            return gid

    gid = asyncio.run(build())
    # The toy game is registered by tests only, so the CLI runs in this process.
    from bot.cli import main

    if kind(backend_url) == "sqlite":
        where = ["--db", backend_url.removeprefix("sqlite:///")]
    else:
        where = ["--db-url", backend_url]
    assert main(["verify", *where]) == 0
    sql = "UPDATE game_snapshots SET state_json = '{}' WHERE game_id = ?"
    asyncio.run(query(backend_url, sql, gid))
    assert main(["verify", *where]) == 1


def test_crash_in_the_middle_of_a_game_loses_nothing(backend_url: str) -> None:
    """A process killed mid-game: what it committed is all there and replays exactly."""
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from rules.base import register
        from store import open_store, Seat, play
        from tests.toygame.rules import Roll, ToyGame

        async def main():
            register(ToyGame())
            s = open_store({backend_url!r})
            await s.open()
            rec, _ = await play.new_game(s, "toy", 9, {{"players": 2}},
                                         [Seat(seat=0, user_id=1, name="A", robot=False),
                                          Seat(seat=1, user_id=2, name="B", robot=False)])
            for i in range(5):
                await play.act(s, rec.id, Roll(seat=i % 2), actor="x")
            print(rec.id, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr
    gid = int(proc.stdout.split()[0])

    async def check() -> None:
        async with open_store(backend_url) as s:
            record = await s.load_game(gid)
            assert record.seq == 5 and len(await s.actions(gid)) == 5
            assert (await verify_store(s)).ok
            await play.act(s, gid, Roll(seat=1), actor="x")  # the game goes on
            assert (await s.load_game(gid)).seq == 6

    asyncio.run(check())


# Leagues --------------------------------------------------------------------------------


async def test_a_league_home_and_round_starts_round_trip_and_carry_over(store: Store) -> None:
    lg = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 100)
    assert (lg.channel_id, lg.role_id, lg.timezone) == (None, None, "UTC")
    # snowflakes need 64 bits on both databases
    home = await store.set_home(lg, 1100000000000000022, 1100000000000000016, "Europe/Madrid")
    assert (home.channel_id, home.role_id, home.timezone) == (
        1100000000000000022,
        1100000000000000016,
        "Europe/Madrid",
    )
    rnd = await store.set_round(home, 1, "Monza", None, 1_797_000_000.5)
    assert rnd.starts_at == 1_797_000_000.5
    again = await store.set_round(home, 1, "Monza", None)  # rescheduled without a start
    assert again.starts_at is None
    await store.close_season(home)
    season2 = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 100)
    assert (season2.season, season2.channel_id, season2.role_id, season2.timezone) == (
        2,
        1100000000000000022,
        1100000000000000016,
        "Europe/Madrid",
    )


async def test_league_lifecycle_and_refusals(store: Store) -> None:
    lg = await store.create_league(
        1, "Spring  Cup", "waddington", "waddington", [10, 8, 6, 4, 2, 1], 100
    )
    assert lg.name == "Spring Cup" and lg.season == 1
    with pytest.raises(LeagueError, match="already has a league called"):
        await store.create_league(1, "spring cup", "waddington", "waddington", [10], 100)
    other_guild = await store.create_league(2, "Spring Cup", "rf90", "modern", [25], 1)
    assert other_guild.season == 1
    m = await store.join_league(lg, 10, "Alice", "red")
    with pytest.raises(LeagueError, match="already a member"):
        await store.join_league(lg, 10, "Alice", "blue")
    with pytest.raises(LeagueError, match="already drives the red car"):
        await store.join_league(lg, 11, "Bob", "red")
    await store.join_league(lg, 11, "Bob", "blue")
    with pytest.raises(NotFound, match="no league called"):
        await store.get_league(1, "Autumn Cup")
    rnd = await store.set_round(lg, 1, "Silverstone", "Sat 20:00")
    await store.record_round(lg, rnd, [(m.id, 1, "finished")])
    with pytest.raises(LeagueError, match="already has a result"):
        await store.record_round(lg, rnd, [(m.id, 2, "finished")])
    closed = await store.close_season(lg)
    assert not closed.is_open
    for attempt in (
        store.join_league(closed, 12, "Carol", None),
        store.leave_league(closed, 10),
        store.set_round(closed, 2, "Monza", None),
        store.close_season(closed),
    ):
        with pytest.raises(LeagueError, match="is closed"):
            await attempt
    season2 = await store.create_league(1, "Spring Cup", "waddington", "waddington", [10], 100)
    assert season2.season == 2 and season2.id != lg.id
    assert {m.display_name for m in await store.members(season2.id)} == {"Alice", "Bob"}
    assert (await store.get_league(1, "spring cup")).season == 2
    assert (await store.get_league(1, "spring cup", 1)).status == "closed"


async def test_game_results_are_recorded_once(store: Store, toy_game: ToyGame) -> None:
    lg = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 1)
    await store.join_league(lg, 1, "A", None)
    await store.join_league(lg, 2, "B", None)
    rnd = await store.set_round(lg, 1, "R1", None)
    record, _ = await play.new_game(
        store,
        "toy",
        3,
        {"players": 2},
        [
            Seat(seat=0, user_id=1, name="A", robot=False),
            Seat(seat=1, user_id=2, name="B", robot=False),
        ],
        league_id=lg.id,
        round_id=rnd.id,
    )
    game = toy_game
    played = None
    while played is None or not played.finished:
        state = game.load_state((await store.load_game(record.id)).state_json)
        seat = game.to_act(state)[0]
        played = await play.act(store, record.id, game.robot_action(state, seat), actor="r")
    assert played.results_recorded
    first = await store.results(lg.id)
    assert sorted(r.place for r in first) == [1, 2] and all(r.source == "game" for r in first)
    # Processing the finish again changes nothing.
    assert not await play.record_finish(store, record.id, game, played.state)
    assert await store.results(lg.id) == first
    assert (await store.load_game(record.id)).status == "finished"


async def test_timers_are_ordered_and_deleted(store: Store) -> None:
    t2 = await store.add_timer("turn", 200.0, {"seat": 1})
    t1 = await store.add_timer("turn", 100.0, {"seat": 0})
    assert (await store.next_timer()) == t1
    assert await store.delete_timer(t1.id) and not await store.delete_timer(t1.id)
    assert (await store.next_timer()) == t2


async def test_due_timers_are_claimed_once_in_order(store: Store) -> None:
    late = await store.add_timer("turn", 300.0, {"seat": 2}, None)
    t1 = await store.add_timer("turn", 100.0, {"seat": 0})
    t2 = await store.add_timer("idle", 100.0, {"seat": 1})
    assert await store.claim_due_timer(50.0) is None  # nothing due yet
    assert await store.claim_due_timer(200.0) == t1  # the earliest, then by id
    assert await store.claim_due_timer(200.0) == t2
    assert await store.claim_due_timer(200.0) is None
    assert await store.timers() == [late]
    assert not await store.delete_timer(t1.id)  # claimed: gone for everyone


async def test_an_append_carries_its_timers_status_and_robots_chain(store: Store) -> None:
    """What goes with an action commits with it: the game's timers replaced (None keeps
    them, [] clears them), the status, the last human action, a chain of log entries."""
    game = await store.create_game("toy", 1, {}, '{"at": 0}')
    other = await store.create_game("toy", 2, {}, '{"at": 0}')
    theirs = await store.add_timer("idle", 50.0, {"g": 2}, other.id)
    await store.add_timer("idle", 60.0, {"old": True}, game.id)
    specs = [
        TimerSpec(event="reminder", due_at=100.0, payload={"seat": 1}),
        TimerSpec(event="timeout", due_at=200.0, payload={"seat": 1, "n": [1, 2]}),
    ]
    seq = await store.append_actions(
        game.id,
        0,
        [("7", '{"a": 1}', False), ("robot", '{"a": 2}', True), ("robot", '{"a": 3}', True)],
        '{"at": 3}',
        timers=specs,
        human_at=12.5,
    )
    assert seq == 3
    log = await store.actions(game.id)
    assert [(x.seq, x.actor, x.by_robot, x.action_json) for x in log] == [
        (1, "7", False, '{"a": 1}'),
        (2, "robot", True, '{"a": 2}'),
        (3, "robot", True, '{"a": 3}'),
    ]
    got = [(t.event, t.due_at, t.payload) for t in await store.timers(game.id)]
    assert got == [(t.event, t.due_at, t.payload) for t in specs]
    record = await store.load_game(game.id)
    assert (record.seq, record.state_json, record.status) == (3, '{"at": 3}', "running")
    assert record.last_human_at == 12.5
    await store.append_action(game.id, 3, "robot", "{}", '{"at": 4}', by_robot=True)
    assert len(await store.timers(game.id)) == 2  # timers=None: kept
    assert (await store.load_game(game.id)).last_human_at == 12.5  # kept too
    await store.append_action(game.id, 4, "7", "{}", '{"at": 5}', status="finished", timers=[])
    assert await store.timers(game.id) == []
    assert (await store.load_game(game.id)).status == "finished"
    assert await store.timers() == [theirs]  # another game's timers untouched throughout
    with pytest.raises(StaleState) as stale:  # and a stale append changes nothing
        await store.append_action(game.id, 2, "7", "{}", '{"late": 1}', timers=specs)
    assert (stale.value.seq, stale.value.state_json) == (5, '{"at": 5}')
    assert await store.timers() == [theirs] and len(await store.actions(game.id)) == 5


async def test_timers_of_other_shards_are_left_to_them(store: Store) -> None:
    """A process claims only the timers of games whose guild is on its shards (Discord's
    (guild_id >> 22) % count); a timer of no game, or of a game of no guild, is shard 0's."""
    on = {}  # shard -> a game on a guild of that shard (of 3)
    for shard in (0, 1, 2):
        guild = (3 * 2**39 + shard) << 22  # a large snowflake (< 2**63)
        assert shard_of(guild, 3) == shard
        on[shard] = (await store.create_game("toy", shard, {}, "{}", guild_id=guild)).id
    no_guild = (await store.create_game("toy", 9, {}, "{}")).id
    t2 = await store.add_timer("turn", 10.0, {}, on[2])  # the earliest, but shard 2's
    t1 = await store.add_timer("turn", 20.0, {}, on[1])
    t0 = await store.add_timer("turn", 30.0, {}, on[0])
    loose = await store.add_timer("turn", 40.0, {})  # no game: shard 0
    t0b = await store.add_timer("turn", 50.0, {}, no_guild)  # no guild: shard 0
    later1 = await store.add_timer("turn", 500.0, {}, on[1])
    one, zero = Shards(count=3, ids=(1,)), Shards(count=3, ids=(0,))
    assert await store.next_timer(shards=one) == t1  # not shard 2's earlier timer
    assert await store.claim_due_timer(100.0, shards=one) == t1
    assert await store.claim_due_timer(100.0, shards=one) is None  # later1 is not due
    assert await store.next_timer(shards=one) == later1
    assert await store.next_timer(shards=zero) == t0
    assert [await store.claim_due_timer(100.0, shards=zero) for _ in range(4)] == [
        t0,
        loose,
        t0b,
        None,
    ]
    # Shards 1 and 2 together, and every shard (the same as no filter).
    assert await store.claim_due_timer(100.0, shards=Shards(count=3, ids=(1, 2))) == t2
    assert await store.timers() == [later1]
    assert await store.claim_due_timer(1000.0, shards=Shards(count=3, ids=(0, 1, 2))) == later1


async def test_games_to_recover_can_be_those_of_some_shards(store: Store) -> None:
    """At start-up a process recovers the unpublished games of its own shards' guilds."""
    ids = []
    for guild in (0 << 22, 1 << 22, 2 << 22, 3 << 22, None):  # shards 0, 1, 0, 1 of 2; none
        game = await store.create_game("toy", 1, {}, "{}", guild_id=guild)
        await store.append_action(game.id, 0, "x", "{}", "{}")
        ids.append(game.id)
    every = [g.id for g in await store.unpublished_games()]
    assert every == ids
    zero = await store.unpublished_games(shards=Shards(count=2, ids=(0,)))
    one = await store.unpublished_games(shards=Shards(count=2, ids=(1,)))
    assert [g.id for g in zero] == [ids[0], ids[2], ids[4]]  # no guild: shard 0
    assert [g.id for g in one] == [ids[1], ids[3]]
    both = await store.unpublished_games(shards=Shards(count=2, ids=(0, 1)))
    assert [g.id for g in both] == every


async def test_games_seats_and_lobby_round_trip(store: Store) -> None:
    """The bookkeeping the table layer writes reads back the same on both backends."""
    seats = [
        Seat(seat=0, user_id=2**62, name="A", robot=False),
        Seat(seat=1, user_id=None, name="Robot", robot=True),
    ]
    lobby = await store.create_game(
        "toy", 2**47, {"players": 2}, None, guild_id=2**60, channel_id=7, status="lobby"
    )
    await store.set_lobby(lobby.id, seats, {"host": 2**62, "title": "Cup"})
    assert await store.find_game("toy", channel_id=7) == await store.load_game(lobby.id)
    assert (await store.load_game(lobby.id)).settings == {"host": 2**62, "title": "Cup"}
    started = await store.start_game(lobby.id, {"players": 2}, '{"at": 0}', seats, human_at=5.5)
    assert started.status == "running" and started.seq == 0 and started.last_human_at == 5.5
    with pytest.raises(LeagueError, match="already started"):
        await store.start_game(lobby.id, {}, "{}", seats)
    await store.update_seat(lobby.id, 0, autopilot=True)
    assert [s.autopilot for s in await store.seats(lobby.id)] == [True, False]
    assert [g.id for g in await store.games_of_user(2**60, 2**62)] == [lobby.id]
    await store.update_game(lobby.id, thread_id=2**61, published_seq=0)
    assert (await store.load_game(lobby.id)).where_id == 2**61
    assert (await store.load_game(lobby.id)).feed == {}  # nothing posted yet
    feed = {"key": "('turn', 3)", "opening": ["Section 23 is activated."], "steps": ["é ✓"]}
    await store.update_game(lobby.id, prompt_message_id=2**62, feed=feed)
    assert (await store.load_game(lobby.id)).feed == feed
    with pytest.raises(ValueError, match="update_game takes only"):
        await store.update_game(lobby.id, state_json="{}")
    assert await store.unpublished_games() == []
    await store.append_action(lobby.id, 0, "A", "{}", '{"at": 1}', human_at=9.0)
    assert [g.id for g in await store.unpublished_games()] == [lobby.id]
    assert (await store.load_game(lobby.id)).last_human_at == 9.0
    assert not await store.dm_reminders(5)
    await store.set_dm_reminders(5, True)
    assert await store.dm_reminders(5)
    await store.set_admin_role(2**60, 2**59)
    assert await store.admin_role(2**60) == 2**59
    assert await store.end_game(lobby.id, from_status=("running",))
    assert not await store.end_game(lobby.id, from_status=("running",))
    assert await store.list_games(unfinished_only=True) == []
    with pytest.raises(NotFound):
        await store.load_game(lobby.id + 100)
    with pytest.raises(NotFound, match="no state to act on"):
        await store.append_action(lobby.id + 100, 0, "A", "{}", "{}")


async def test_the_latest_game_of_a_place_is_found_whatever_its_status(store: Store) -> None:
    """`find_game` finds the game under way; `latest_game` the newest game of a channel or
    thread even once it is over (a channel may have had several games: the newest is meant)."""
    first = await store.create_game("toy", 1, {}, "{}", channel_id=7, status="running")
    assert await store.end_game(first.id, from_status=("running",))
    assert await store.find_game("toy", channel_id=7) is None
    assert (await store.latest_game("toy", channel_id=7)) == await store.load_game(first.id)
    second = await store.create_game("toy", 2, {}, "{}", channel_id=7, status="running")
    await store.append_action(second.id, 0, "A", "{}", '{"at": 1}', status="finished")
    latest = await store.latest_game("toy", channel_id=7)
    assert latest is not None and latest.id == second.id and latest.status == "finished"
    threaded = await store.create_game("toy", 3, {}, None, channel_id=7, status="lobby")
    await store.update_game(threaded.id, thread_id=70)
    assert await store.end_game(threaded.id, from_status=("lobby",))
    cancelled = await store.latest_game("toy", thread_id=70)
    assert cancelled is not None and cancelled.id == threaded.id
    assert cancelled.status == "abandoned" and cancelled.state_json is None
    assert await store.latest_game("toy", thread_id=71) is None
    assert await store.latest_game("other", channel_id=7) is None


async def test_a_command_makes_its_game_once_within_its_window(store: Store) -> None:
    """Issue 30: the same command (channel, user, options) again within its window makes no
    second game while the first is on, and nothing is written for it; another command, a
    later one, or one whose game is over meanwhile makes a new game."""

    def once(at: float, command: str = "f1 new a1", user: int = 2**60) -> Once:
        return Once(channel_id=2**61, user_id=user, command=command, at=at, window=30.0)

    def lobby(at: float, **kw: object) -> Any:
        return store.create_game("toy", 1, {}, None, status="lobby", once=once(at, **kw))

    first = await lobby(1000.0)
    with pytest.raises(Repeated) as again:
        await lobby(1029.0)
    assert again.value.game_id == first.id
    assert [g.id for g in await store.list_games()] == [first.id]  # the retry wrote nothing
    other = await lobby(1029.5, command="f1 new a2")  # other options: a league's next round
    mine = await lobby(1029.6, user=2**59)  # another user
    late = await lobby(1031.0)  # the window is over
    with pytest.raises(Repeated) as again:
        await lobby(1040.0)
    assert again.value.game_id == late.id
    await store.end_game(late.id, from_status=("lobby",))  # cancelled: no longer in the way
    after = await lobby(1041.0)
    assert len({first.id, other.id, mine.id, late.id, after.id}) == 5


async def test_the_same_command_at_once_makes_one_game(store: Store) -> None:
    """Ten creations of one command at the same moment (a double submit, a burst; on
    PostgreSQL each on a connection of its own): one game, nine Repeated naming it."""
    note = Once(channel_id=5, user_id=6, command="pit start x", at=50.0, window=30.0)
    made = await asyncio.gather(
        *(store.create_game("toy", 1, {}, None, status="lobby", once=note) for _ in range(10)),
        return_exceptions=True,
    )
    (game,) = [g for g in made if not isinstance(g, BaseException)]
    refused = [e for e in made if isinstance(e, BaseException)]
    assert len(refused) == 9
    assert all(isinstance(e, Repeated) and e.game_id == game.id for e in refused)
    assert [g.id for g in await store.list_games()] == [game.id]


async def test_a_new_lobby_and_its_idle_timer_are_written_together(store: Store) -> None:
    """A lobby is stored with the timer that closes it if nobody starts it, in one
    transaction: a create that fails leaves neither the game nor a timer behind."""
    idle = [TimerSpec(event="f1_idle", due_at=1234.5)]
    seats = [Seat(seat=0, user_id=1, name="A", robot=False)]
    lobby = await store.create_game(
        "toy", 1, {}, None, channel_id=7, status="lobby", seats=seats, timers=idle
    )
    assert [(t.event, t.due_at, t.game_id) for t in await store.timers()] == [
        ("f1_idle", 1234.5, lobby.id)
    ]
    twice = [*seats, Seat(seat=0, user_id=2, name="B", robot=False)]  # one seat, two drivers
    with pytest.raises(Exception):  # noqa: B017 - the backend's own integrity error
        await store.create_game(
            "toy", 2, {}, None, channel_id=8, status="lobby", seats=twice, timers=idle
        )
    assert [g.id for g in await store.list_games()] == [lobby.id]
    assert [t.game_id for t in await store.timers()] == [lobby.id]


async def test_sqlite_reads_see_what_is_committed_and_a_transaction_its_own(
    tmp_path: Path,
) -> None:
    """Reads go to a connection of their own: another task never sees a transaction's rows
    before COMMIT (nor any a ROLLBACK undoes), while the transaction reads what it wrote."""
    store = SqliteStore(tmp_path / "reads.db")
    await store.open()
    try:
        game = await store.create_game("toy", 1, {}, None, channel_id=7, status="lobby")
        written, release = asyncio.Event(), asyncio.Event()
        inside: list[int | None] = []

        async def writer(commit: bool) -> None:
            with contextlib.suppress(RuntimeError):
                async with store.transaction() as db:
                    await db.execute(
                        "UPDATE games SET status_message_id = 99 WHERE id = ?", (game.id,)
                    )
                    inside.append((await store.load_game(game.id)).status_message_id)
                    written.set()
                    await release.wait()
                    if not commit:
                        raise RuntimeError("rolled back")

        for commit in (False, True):
            written.clear()
            release.clear()
            task = asyncio.create_task(writer(commit))
            await written.wait()
            assert (await store.load_game(game.id)).status_message_id is None  # not yet
            release.set()
            await task
        assert inside == [99, 99]
        assert (await store.load_game(game.id)).status_message_id == 99
    finally:
        await store.close()


async def test_sqlite_writes_queued_at_once_land_in_the_order_they_were_made(
    tmp_path: Path,
) -> None:
    """Writes are queued for the store's one thread without waiting for one another; a
    transaction opened after them reads what they wrote, and what follows it sees its
    writes."""
    store = SqliteStore(tmp_path / "queue.db")
    await store.open()
    try:
        game = await store.create_game("toy", 1, {}, None, channel_id=7, status="lobby")
        seen: list[int | None] = []

        async def bump() -> None:
            async with store.transaction() as db:
                now = (await store.load_game(game.id)).status_message_id
                seen.append(now)
                await db.execute(
                    "UPDATE games SET status_message_id = ? WHERE id = ?",
                    ((now or 0) + 100, game.id),
                )

        writes = writes_of(store, game.id, range(1, 21))
        await asyncio.gather(*writes[:10], bump(), *writes[10:])
        assert seen == [10]
        assert (await store.load_game(game.id)).status_message_id == 20
        await asyncio.gather(*writes_of(store, game.id, range(21, 41)))
        assert (await store.load_game(game.id)).status_message_id == 40
    finally:
        await store.close()


def writes_of(store: Store, game_id: int, values: range) -> list[Any]:
    return [store.update_game(game_id, status_message_id=n) for n in values]


async def test_a_sqlite_transaction_that_awaits_anything_but_its_tx_is_refused(
    tmp_path: Path,
) -> None:
    """The shared SQL's transactions run to their end on SQLite's thread, without the event
    loop (store.connection._to_the_end): one that waits on anything else fails at once,
    rolled back, rather than hang or half commit."""
    async with SqliteStore(tmp_path / "suspends.db") as store:
        game = await store.create_game("toy", 1, {}, None, channel_id=7, status="lobby")

        async def work(tx: Tx) -> None:
            await tx.execute("UPDATE games SET status_message_id = 5 WHERE id = ?", game.id)
            await asyncio.sleep(0)

        with pytest.raises(RuntimeError, match="awaited something other than its Tx"):
            await store._transact(work)
        assert (await store.load_game(game.id)).status_message_id is None


def test_placeholders_are_numbered_for_postgresql_outside_quotes() -> None:
    sql = "SELECT ?, 'it''s ?', \"odd?\" FROM t WHERE a = ? AND b IN (?, ?)"
    assert numbered(sql) == "SELECT $1, 'it''s ?', \"odd?\" FROM t WHERE a = $2 AND b IN ($3, $4)"
    own = "UPDATE t SET a = $2 WHERE id = $1 AND a = $2"  # PostgreSQL's own: left as it is
    assert numbered(own) == own
    assert SQLITE.sql(sql) == sql and POSTGRES.sql(sql) == numbered(sql)


# Choosing and describing the store ------------------------------------------------------


def test_open_store_picks_the_backend(tmp_path: Path) -> None:
    pg = open_store("postgresql://paddock:s3cret@db.example:5433/league?search_path=bot")
    assert isinstance(pg, PostgresStore)
    assert pg.path == "postgresql://paddock@db.example:5433/league"  # no password in messages
    assert isinstance(open_store("postgres://db.example/x"), PostgresStore)
    lite = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    assert isinstance(lite, SqliteStore) and lite.path == str(tmp_path / "a.db")
    assert isinstance(open_store(tmp_path / "b.db"), SqliteStore)
    with pytest.raises(ValueError, match="unknown database URL scheme"):
        open_store("mysql://db.example/x")
    settings = Settings(_env_file=None, db_path=tmp_path / "c.db")  # type: ignore[call-arg]
    assert open_store(settings).path == str(tmp_path / "c.db")
    settings.database_url = SecretStr("postgresql://u:pw@h/d")
    assert open_store(settings).path == "postgresql://u@h/d"
    settings.database_url = SecretStr(" ")  # an empty PADDOCK_DATABASE_URL= line in .env
    assert isinstance(open_store(settings), SqliteStore)


@pytest.mark.parametrize("cls", [SqliteStore, PostgresStore])
def test_both_stores_implement_the_protocol(cls: type) -> None:
    """Every method of Store, with the parameters the protocol names (an implementation may
    add keyword-only ones of its own, with defaults)."""
    members = [n for n, v in vars(Store).items() if inspect.iscoroutinefunction(v)]
    assert len(members) > 50
    for name in members:
        want = inspect.signature(getattr(Store, name)).parameters
        have = inspect.signature(getattr(cls, name)).parameters
        assert list(want) == [p for p in have if p in want], (
            f"{cls.__name__}.{name}: parameters {list(have)} != {list(want)}"
        )
        for p in want.values():
            assert have[p.name].kind == p.kind and have[p.name].default == p.default, (
                f"{cls.__name__}.{name}({p.name})"
            )
        extra = [p for n, p in have.items() if n not in want]
        assert all(p.kind == p.KEYWORD_ONLY and p.default is not p.empty for p in extra), name


@pytest.mark.parametrize(
    ("robots_take_places", "expected"),
    [(False, {1: 1, 2: 2}), (True, {1: 2, 2: 3})],
)
async def test_league_setting_decides_whether_robots_take_places(
    store: Store, robots_take_places: bool, expected: dict[int, int]
) -> None:
    """A robot wins the race: by default the members score 1st and 2nd (their order among
    members); with the league's setting on, they keep 2nd and 3rd behind the robot."""
    league = await store.create_league(9, "Robot Cup", "waddington", "classic", [10, 8, 6], None)
    league = await store.set_robots_take_places(league, robots_take_places)
    for user in (1, 2):
        await store.join_league(league, user, f"driver {user}", None)
    rnd = await store.set_round(league, 1, "Monza", None)
    record = await store.create_game(
        "waddington", 1, {}, "{}", league_id=league.id, round_id=rnd.id, seats=[]
    )
    # (user id, place, status) of the seats people drove; the robot was 1st.
    assert await store.record_game_results(record.id, [(1, 2, "finished"), (2, 3, "finished")])
    members = {m.id: m.user_id for m in await store.members(league.id)}
    got = {members[r.member_id]: r.place for r in await store.results(league.id)}
    assert got == expected


async def test_a_league_sets_how_long_after_its_races_their_threads_are_archived(
    store: Store,
) -> None:
    league = await store.create_league(1, "Cup", "rf90", "waddington", [10, 8, 6], None)
    assert league.archive_hours == 1  # an hour by default
    league = await store.set_archive_hours(league, 48)
    assert (await store.league_by_id(league.id)).archive_hours == 48
    closed = await store.close_season(league)
    with pytest.raises(LeagueError, match="closed"):
        await store.set_archive_hours(closed, 2)
    assert (await store.league_by_id(league.id)).archive_hours == 48


async def test_a_game_ends_with_the_timers_its_end_arms_and_no_others(store: Store) -> None:
    """The end of a game replaces its timers (a turn's, an idle game's) by those the end
    arms, in the same transaction: an abandon's or a cancel's, and a finishing action's."""
    archive = [TimerSpec(event="paddock_archive", due_at=50.0)]
    lobby = await store.create_game(
        "toy", 1, {}, None, status="lobby", timers=[TimerSpec(event="idle", due_at=9.0)]
    )
    assert await store.end_game(lobby.id, from_status=("lobby",), timers=archive)
    assert [(t.event, t.due_at) for t in await store.timers(lobby.id)] == [
        ("paddock_archive", 50.0)
    ]
    assert not await store.end_game(lobby.id, from_status=("lobby",), timers=[])
    assert len(await store.timers(lobby.id)) == 1  # a second end changes nothing
    record, _ = await play.new_game(store, "toy", 2, {"players": 2}, [])
    turn = [TimerSpec(event="turn", due_at=5.0)]
    for n in range(100):
        played = await play.act(
            store, record.id, Roll(seat=n % 2), "A", timers=turn, end_timers=archive
        )
        events = [t.event for t in await store.timers(record.id)]
        if played.finished:
            assert events == ["paddock_archive"]
            break
        assert events == ["turn"]
    assert played.finished


async def test_a_league_may_be_of_any_registered_game_after_the_migration(
    backend_url: str, tmp_path: Path
) -> None:
    """Migration 0007 drops the list of games from the schema (each game declares itself):
    a database made before it keeps its leagues, takes a league of a game it never heard
    of, and keeps its other checks."""
    postgres = kind(backend_url) == "postgres"
    source = MIGRATIONS_DIR / "postgres" if postgres else MIGRATIONS_DIR
    before = tmp_path / "before"
    before.mkdir()
    for path in sorted(source.glob("*.sql")):
        if int(path.name[:4]) < 7:
            (before / path.name).write_text(path.read_text())
    old = open_store(backend_url, migrations_dir=before)
    await old.open()
    kept = await old.create_league(1, "Old Cup", "rf90", "waddington", [10, 8], 100)
    with pytest.raises(Exception, match="(?i)check"):
        await old.create_league(1, "Toy Cup", "toy", "waddington", [10, 8], 100)
    await old.close()
    s = open_store(backend_url)
    assert await s.open() == [m for m in ALL_MIGRATIONS if int(m[:4]) >= 7]
    try:
        assert await s.get_league(1, "Old Cup") == kept
        toy_league = await s.create_league(1, "Toy Cup", "toy", "waddington", [10, 8], 100)
        assert (await s.get_league(1, "Toy Cup")).game == "toy" == toy_league.game
        with pytest.raises(Exception, match="(?i)check|season"):
            await query(backend_url, "UPDATE leagues SET season = 0 WHERE id = ?", kept.id)
    finally:
        await s.close()
    if not postgres:
        assert await query(backend_url, "PRAGMA integrity_check") == [("ok",)]
