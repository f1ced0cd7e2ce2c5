"""Past one process (issue 14): the shard settings, the sharded bot, and the timer loops of
two bot processes on one PostgreSQL database (each timer fired once; a timer of a shard
nobody runs waits for it). The process tests are skipped without PADDOCK_TEST_DATABASE_URL
(see tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.client import PaddockBot, ShardedPaddockBot, create_bot
from bot.settings import MissingSetting, Settings, load_settings, parse_shard_ids
from store import open_store
from store.models import Shards, shard_of

ROOT = Path(__file__).resolve().parents[2]

# Settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count", "ids"),
    [
        ("0-3", 4, (0, 1, 2, 3)),
        ("0,2", 4, (0, 2)),
        ("2, 0", 4, (0, 2)),
        ("0-1,4", 8, (0, 1, 4)),
        ("5", 6, (5,)),
    ],
)
def test_shard_ids_read_ranges_and_lists(text: str, count: int, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text, count) == ids


@pytest.mark.parametrize(
    ("text", "count", "message"),
    [
        ("0-4", 4, "shard 4 is out of range; with PADDOCK_SHARD_COUNT=4 the ids are 0-3"),
        ("4", 4, "shard 4 is out of range"),
        ("0,x", 4, "'x' is not a shard id or a range like 0-3"),
        ("3-1", 4, "'3-1' is not a valid range"),
        ("-1", 4, "'-1' is not a shard id"),
        ("0-2,2", 4, "shard 2 is named twice"),
        ("0,,1", 4, "'' is not a shard id"),
    ],
)
def test_bad_shard_ids_are_refused_naming_the_setting(text: str, count: int, message: str) -> None:
    with pytest.raises(ValueError, match="PADDOCK_SHARD_IDS=") as caught:
        parse_shard_ids(text, count)
    assert message in str(caught.value)


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, token=None, sync_commands=False, **values)  # type: ignore[call-arg]


def test_shard_settings_give_this_process_shards() -> None:
    assert settings().shards is None  # unset: one process, as before
    assert settings(shard_count=4, shard_ids="1-2").shards == Shards(count=4, ids=(1, 2))
    # The count alone: every shard in this process.
    everything = settings(shard_count=3).shards
    assert everything == Shards(count=3, ids=(0, 1, 2)) and everything.everything
    assert not Shards(count=3, ids=(0, 2)).everything


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"PADDOCK_SHARD_IDS": "0-1"},
            "paddock: PADDOCK_SHARD_IDS needs PADDOCK_SHARD_COUNT (the total)",
        ),
        (
            {"PADDOCK_SHARD_COUNT": "2", "PADDOCK_SHARD_IDS": "1-2"},
            "paddock: PADDOCK_SHARD_IDS='1-2': shard 2 is out of range; with "
            "PADDOCK_SHARD_COUNT=2 the ids are 0-1",
        ),
        ({"PADDOCK_SHARD_COUNT": "0"}, "paddock: PADDOCK_SHARD_COUNT must be 1 or more, not 0"),
        (
            {"PADDOCK_SHARD_COUNT": "four"},
            "paddock: PADDOCK_SHARD_COUNT: Input should be a valid integer, unable to parse "
            "string as an integer",
        ),
    ],
)
def test_bad_shard_settings_stop_with_one_line(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], line: str
) -> None:
    for name in ("PADDOCK_SHARD_COUNT", "PADDOCK_SHARD_IDS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(MissingSetting) as caught:
        load_settings(_env_file=None)
    assert caught.value.code == line


def test_empty_shard_settings_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """`PADDOCK_SHARD_COUNT=` lines left empty in .env: one process, no error."""
    monkeypatch.setenv("PADDOCK_SHARD_COUNT", "")
    monkeypatch.setenv("PADDOCK_SHARD_IDS", " ")
    assert load_settings(_env_file=None).shards is None


def test_env_example_copied_as_env_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cp .env.example .env` and set the token: every line left empty means unset (the
    shard settings among them), none is an error."""
    for name in list(os.environ):
        if name.startswith("PADDOCK_"):
            monkeypatch.delenv(name)
    loaded = load_settings(_env_file=ROOT / ".env.example")
    assert loaded.shards is None and loaded.shard_count is None
    assert loaded.dev_guild_id is None and loaded.database_url is None
    assert loaded.token is None and str(loaded.db_path) == "paddock.db"


def test_paddock_run_refuses_bad_shard_settings_in_one_line(tmp_path: Path) -> None:
    """Before it touches the token, the database or the network."""
    env = {
        **os.environ,
        "PADDOCK_TOKEN": "x" * 30,
        "PADDOCK_DB_PATH": str(tmp_path / "p.db"),
        "PADDOCK_SHARD_COUNT": "2",
        "PADDOCK_SHARD_IDS": "0,5",
    }
    env.pop("PADDOCK_DATABASE_URL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "paddock: PADDOCK_SHARD_IDS='0,5': shard 5 is out of range; with "
        "PADDOCK_SHARD_COUNT=2 the ids are 0-1"
    ]
    assert not (tmp_path / "p.db").exists()


def test_shard_of_is_discords_rule() -> None:
    """The shard Discord sends a guild's events to (discord.py's Guild.shard_id)."""
    state: Any = type("State", (), {"shard_count": 4})()
    for guild_id in (1, 81384788765712384, 2**62 + 12345, 1100000000000000001):
        guild = discord.Guild.__new__(discord.Guild)
        guild.id, guild._state = guild_id, state
        assert shard_of(guild_id, 4) == guild.shard_id
    assert shard_of(None, 4) == 0  # direct messages: shard 0
    mine = Shards(count=4, ids=(0, 2))
    assert [mine.owns(g << 22) for g in range(5)] == [True, False, True, False, True]
    assert mine.owns(None)


# The bot -----------------------------------------------------------------------------


async def test_shard_settings_make_an_auto_sharded_bot_over_those_shards(tmp_path: Path) -> None:
    bot = create_bot(settings(db_path=tmp_path / "b.db", shard_count=4, shard_ids="0,2"))
    async with bot:  # no login: nothing reaches the network, the store is not opened
        assert isinstance(bot, ShardedPaddockBot) and isinstance(bot, PaddockBot)
        assert isinstance(bot, commands.AutoShardedBot)
        assert bot.shard_count == 4 and bot.shard_ids == [0, 2]
        assert bot.timers.shards == Shards(count=4, ids=(0, 2))  # its timers only
        assert bot.cogs == {} and bot.settings.shards == Shards(count=4, ids=(0, 2))
    assert bot.is_closed() and not (tmp_path / "b.db").exists()


async def test_recovery_at_start_up_asks_only_for_this_process_shards_games() -> None:
    """Each process recovers the unposted games of its own shards' guilds (posting another
    shard's would show them twice); the store's filter itself is tested on both backends."""
    from types import SimpleNamespace

    from bot.table.recovery import Recovery

    mine = Shards(count=2, ids=(0,))
    asked: list[Any] = []

    class Spy:
        async def unpublished_games(self, *, shards: Shards | None = None) -> list[Any]:
            asked.append(shards)
            return []

    recovery: Any = Recovery.__new__(Recovery)
    recovery._recovered = False
    bot = SimpleNamespace(timers=SimpleNamespace(shards=mine))
    recovery.core = SimpleNamespace(presenters={}, store=Spy(), bot=bot)
    await recovery.recover()
    assert asked == [mine]


async def test_without_shard_settings_the_bot_is_one_process_as_before(tmp_path: Path) -> None:
    bot = create_bot(settings(db_path=tmp_path / "b.db"))
    async with bot:
        assert type(bot) is PaddockBot and not isinstance(bot, discord.AutoShardedClient)
        assert bot.shard_count is None and bot.timers.shards is None
    # Every shard in one process: sharded, but no timer is left to another process.
    bot = create_bot(settings(db_path=tmp_path / "b.db", shard_count=2))
    async with bot:
        assert bot.shard_ids == [0, 1] and bot.timers.shards is None


# Two bot processes' timer loops on one PostgreSQL database ----------------------------


def run_script(script: str, *args: str, timeout: float = 180) -> Any:
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


# Each worker runs the bot's timer loop (bot.timers.TimerManager) on its own pool, with the
# shards it is given, and reports the timers it fired. The script's main process plays a
# third process writing to the database while they run.
_LOOPS = """
    import asyncio, json, multiprocessing, sys, time
    from bot import timers
    from bot.timers import TimerManager
    from store import open_store
    from store.models import Shards

    timers.SHARED_SLEEP = 0.3  # re-read often: the test waits for it

    class LoopBot:
        def __init__(self, store):
            self.store, self.fired = store, []

        def dispatch(self, event, timer):
            self.fired.append(timer.id)

    def worker(name, url, shards, ready, stop, out):
        async def go():
            store = open_store(url)
            await store.open(run_migrations=False)
            bot = LoopBot(store)
            loop = TimerManager(bot, shards=Shards(**shards) if shards else None)
            try:
                loop.start()
                ready.set()
                while not stop.is_set():
                    await asyncio.sleep(0.02)
                await loop.stop()
            finally:
                await store.close()
            return bot.fired
        out.put((name, asyncio.run(go())))

    async def sql(url, action):
        store = open_store(url)
        await store.open(run_migrations=False)
        try:
            return await action(store)
        finally:
            await store.close()

    async def left(store):
        return [t.id for t in await store.timers()]

    def wait_until(url, check, seconds=30):
        deadline = time.monotonic() + seconds
        while not check(asyncio.run(sql(url, left))):
            if time.monotonic() > deadline:
                stop.set()  # the workers end (and are daemons): the failure is quick
                raise SystemExit("timed out; left: %s" % asyncio.run(sql(url, left)))
            time.sleep(0.05)

    url, mode = sys.argv[1], sys.argv[2]
    ctx = multiprocessing.get_context("fork")
    stop, out = ctx.Event(), ctx.Queue()
    procs, report = {}, {}

    def start(name, shards):
        ready = ctx.Event()
        procs[name] = ctx.Process(
            target=worker, args=(name, url, shards, ready, stop, out), daemon=True
        )
        procs[name].start()
        assert ready.wait(30)

    async def add(store, count, due, span, game_id=None):
        # `count` timers due from `due` to `due + span`
        return [(await store.add_timer("demo", due + span * i / count, {}, game_id)).id
                for i in range(count)]

    if mode == "together":
        now = time.time()
        # 150 timers, due from a second ago to two seconds on; 50 more written by this
        # process while the loops run (nobody pokes them: they re-read the table).
        first = asyncio.run(sql(url, lambda s: add(s, 150, now - 1, 3)))
        start("a", None)
        start("b", None)
        later = asyncio.run(sql(url, lambda s: add(s, 50, time.time(), 1)))
        report["timers"] = first + later
        wait_until(url, lambda ids: not ids)
        time.sleep(1)  # a timer fired twice would show by now
    else:  # two shards: a runs shard 0; shard 1's timers wait until b runs it
        async def setup(store):
            ids = {}
            for shard in (0, 1):
                guild = (1000 << 23) + (shard << 22)
                game = await store.create_game("toy", shard, {}, "{}", guild_id=guild)
                ids[shard] = await add(store, 100, time.time() - 1, 0.5, game.id)
            return ids
        ids = asyncio.run(sql(url, setup))
        report["timers"] = ids
        start("a", {"count": 2, "ids": [0]})
        wait_until(url, lambda left: sorted(left) == sorted(ids[1]))
        time.sleep(1)  # several re-reads of the table by a
        report["waiting"] = asyncio.run(sql(url, left))
        start("b", {"count": 2, "ids": [1]})
        wait_until(url, lambda left: not left)
        time.sleep(1)
    stop.set()
    report["fired"] = dict(out.get(timeout=60) for _ in procs)
    for p in procs.values():
        p.join(10)
    report["exit"] = [p.exitcode for p in procs.values()]
    print(json.dumps(report))
"""


async def test_two_processes_timer_loops_fire_each_timer_once(pg_schema: str) -> None:
    """200 timers, two bot processes' timer loops on one database: each timer fires exactly
    once, and both processes fired some; the 50 written by a third process while they ran
    were found without anyone telling them."""
    async with open_store(pg_schema):  # migrated
        pass
    report = await asyncio.to_thread(run_script, _LOOPS, pg_schema, "together")
    assert report["exit"] == [0, 0]
    one, two = report["fired"]["a"], report["fired"]["b"]
    assert len(report["timers"]) == 200
    assert sorted(one + two) == sorted(report["timers"])  # each once: none twice, none lost
    assert one and two  # both loops claimed timers: they really shared the work


async def test_a_timer_of_a_shard_nobody_runs_waits_for_its_process(pg_schema: str) -> None:
    """Two shards, 100 due timers each. The process of shard 0 fires its 100 and leaves
    shard 1's in the table; when the process of shard 1 starts, it fires those."""
    async with open_store(pg_schema):
        pass
    report = await asyncio.to_thread(run_script, _LOOPS, pg_schema, "shards")
    assert report["exit"] == [0, 0]
    ids = {int(k): v for k, v in report["timers"].items()}
    assert sorted(report["waiting"]) == sorted(ids[1])  # waited while shard 1 was down
    fired = report["fired"]
    assert sorted(fired["a"]) == sorted(ids[0])
    assert sorted(fired["b"]) == sorted(ids[1])
