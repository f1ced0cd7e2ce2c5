"""The SQLite store against a real file: migrations, log + snapshot, conflicts, verify."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rules.errors import IllegalAction
from store import LeagueError, NotFound, Seat, SqliteStore, StaleState, play
from store.errors import MigrationError
from store.migrate import MIGRATIONS_DIR
from store.verify import verify_store
from tests.toy_game import Roll, toy


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


async def test_migrations_apply_once_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    s = SqliteStore(path)
    assert await s.open() == [
        "0001_initial",
        "0002_game_settings",
        "0003_games_by_channel",
        "0004_table_layer",
    ]
    assert await s.migrate() == []
    await s.close()
    s2 = SqliteStore(path)
    assert await s2.open() == []
    await s2.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version, name FROM schema_migrations").fetchall() == [
            (1, "initial"),
            (2, "game_settings"),
            (3, "games_by_channel"),
            (4, "table_layer"),
        ]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"leagues", "games", "game_actions", "game_snapshots", "timers"} <= tables(path)


async def test_failing_migration_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    mdir = tmp_path / "migrations"
    mdir.mkdir()
    (mdir / "0001_initial.sql").write_text((MIGRATIONS_DIR / "0001_initial.sql").read_text())
    (mdir / "0002_broken.sql").write_text(
        "CREATE TABLE half_done (id INTEGER);\nALTER TABLE leagues ADD COLUMN x INTEGER;\n"
        "INSERT INTO no_such_table VALUES (1);\n"
    )
    path = tmp_path / "b.db"
    s = SqliteStore(path, migrations_dir=mdir)
    with pytest.raises(MigrationError, match="0002_broken"):
        await s.open()
    await s.close()
    assert "half_done" not in tables(path)
    with sqlite3.connect(path) as db:
        cols = [r[1] for r in db.execute("PRAGMA table_info(leagues)")]
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    assert "x" not in cols and versions == [1]


async def test_foreign_keys_are_enforced(store: SqliteStore) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        async with store.transaction() as db:
            await db.execute(
                "INSERT INTO league_members (league_id, user_id, display_name, joined_at)"
                " VALUES (999, 1, 'x', 'now')"
            )


async def _toy_game(store: SqliteStore, seed: int = 5) -> int:
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


async def test_action_log_and_snapshot_move_together(store: SqliteStore) -> None:
    game = toy()
    gid = await _toy_game(store)
    for i in range(4):
        await play.act(store, gid, Roll(seat=i % 2), actor=str(i % 2 + 1))
    record = await store.load_game(gid)
    log = await store.actions(gid)
    assert record.seq == 4 and [a.seq for a in log] == [1, 2, 3, 4]
    replayed = game.replay(5, {"players": 2}, [game.parse_action(a.action_json) for a in log])
    assert replayed.model_dump_json() == record.state_json


async def test_illegal_action_stores_nothing(store: SqliteStore) -> None:
    gid = await _toy_game(store)
    before = await store.load_game(gid)
    with pytest.raises(IllegalAction, match="not your turn"):
        await play.act(store, gid, Roll(seat=1), actor="2")
    after = await store.load_game(gid)
    assert after == before and await store.actions(gid) == []


async def test_two_writers_race_for_one_sequence_number(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    a, b = SqliteStore(path), SqliteStore(path)
    await a.open()
    await b.open()
    gid = await _toy_game(a)
    game = toy()
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


async def test_a_second_click_on_an_old_state_is_refused(store: SqliteStore) -> None:
    gid = await _toy_game(store)
    await play.act(store, gid, Roll(seat=0), actor="1", expected_seq=0)
    with pytest.raises(StaleState):
        await play.act(store, gid, Roll(seat=1), actor="2", expected_seq=0)
    assert len(await store.actions(gid)) == 1


async def test_verify_reports_a_tampered_snapshot(store: SqliteStore) -> None:
    gid = await _toy_game(store)
    for i in range(3):
        await play.act(store, gid, Roll(seat=i % 2), actor="x")
    assert (await verify_store(store)).ok
    record = await store.load_game(gid)
    data = json.loads(record.state_json)
    data["positions"][0] += 1
    async with store.transaction() as db:
        await db.execute(
            "UPDATE game_snapshots SET state_json = ? WHERE game_id = ?",
            (json.dumps(data, separators=(",", ":")), gid),
        )
    report = await verify_store(store)
    assert not report.ok
    assert f"game #{gid}" in report.text() and "$.positions[0]" in report.text()


async def test_verify_reports_a_missing_log_entry(store: SqliteStore) -> None:
    gid = await _toy_game(store)
    for i in range(3):
        await play.act(store, gid, Roll(seat=i % 2), actor="x")
    async with store.transaction() as db:
        await db.execute("DELETE FROM game_actions WHERE game_id = ? AND seq = 3", (gid,))
    report = await verify_store(store)
    assert not report.ok and "log has 2 actions but the snapshot is at 3" in report.text()


def test_verify_command_exit_codes(tmp_path: Path) -> None:
    path = tmp_path / "v.db"

    async def build() -> int:
        async with SqliteStore(path) as s:
            gid = await _toy_game(s)
            await play.act(s, gid, Roll(seat=0), actor="x")
            return gid

    gid = asyncio.run(build())
    # The toy game is registered by tests only, so the CLI runs in this process.
    from bot.cli import main

    assert main(["verify", "--db", str(path)]) == 0
    with sqlite3.connect(path) as db:
        db.execute("UPDATE game_snapshots SET state_json = '{}' WHERE game_id = ?", (gid,))
    assert main(["verify", "--db", str(path)]) == 1


def test_crash_in_the_middle_of_a_game_loses_nothing(tmp_path: Path) -> None:
    """A process killed mid-game: what it committed is all there and replays exactly."""
    path = tmp_path / "crash.db"
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
        from store import SqliteStore, Seat, play
        from tests.toy_game import Roll, toy

        async def main():
            toy()
            s = SqliteStore({str(path)!r})
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
        toy()
        async with SqliteStore(path) as s:
            record = await s.load_game(gid)
            assert record.seq == 5 and len(await s.actions(gid)) == 5
            assert (await verify_store(s)).ok
            await play.act(s, gid, Roll(seat=1), actor="x")  # the game goes on
            assert (await s.load_game(gid)).seq == 6

    asyncio.run(check())


# Leagues --------------------------------------------------------------------------------


async def test_league_lifecycle_and_refusals(store: SqliteStore) -> None:
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


async def test_game_results_are_recorded_once(store: SqliteStore) -> None:
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
    game = toy()
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


async def test_timers_are_ordered_and_deleted(store: SqliteStore) -> None:
    t2 = await store.add_timer("turn", 200.0, {"seat": 1})
    t1 = await store.add_timer("turn", 100.0, {"seat": 0})
    assert (await store.next_timer()) == t1
    assert await store.delete_timer(t1.id) and not await store.delete_timer(t1.id)
    assert (await store.next_timer()) == t2


@pytest.mark.parametrize(
    ("robots_take_places", "expected"),
    [(False, {1: 1, 2: 2}), (True, {1: 2, 2: 3})],
)
async def test_league_setting_decides_whether_robots_take_places(
    store: SqliteStore, robots_take_places: bool, expected: dict[int, int]
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
