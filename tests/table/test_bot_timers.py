"""The timer task: sleeps until the earliest stored timer, fires it once, survives restarts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot import timers
from bot.timers import TimerManager
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import InProcessDriver
from store import SqliteStore
from store.models import Shards, Timer
from tests.helpers import until


async def test_timers_fire_in_order_and_once(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "t.db")
    fired: list[tuple[str, dict]] = []
    done = asyncio.Event()

    async def on_demo_timer_complete(timer: Timer) -> None:
        fired.append((timer.event, timer.payload))
        if len(fired) == 2:
            done.set()

    bot.add_listener(on_demo_timer_complete)
    async with InProcessDriver(bot, world()):
        now = time.time()
        await bot.timers.create("demo", now + 0.30, {"n": 2})
        await bot.timers.create("demo", now + 0.05, {"n": 1})  # earlier: re-arms the sleeper
        await asyncio.wait_for(done.wait(), 3)
        assert [p["n"] for _, p in fired] == [1, 2]
        assert await bot.store.timers() == []


async def test_timers_are_rearmed_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    first = make_bot(db)
    async with InProcessDriver(first, world()):
        await first.timers.create("demo", time.time() + 0.4, {"n": 7})
    # The first bot stopped before the timer was due; a new one picks it up.
    second = make_bot(db)
    got: asyncio.Future[Timer] = asyncio.get_running_loop().create_future()

    async def on_demo_timer_complete(timer: Timer) -> None:
        got.set_result(timer)

    second.add_listener(on_demo_timer_complete)
    async with InProcessDriver(second, world()):
        timer = await asyncio.wait_for(got, 3)
        assert timer.payload == {"n": 7}


class LoopBot:
    """What the timer loop uses of the bot: its store, and dispatch (recorded here)."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.fired: list[int] = []

    def dispatch(self, event: str, timer: Timer) -> None:
        assert event == f"{timer.event}_timer_complete"
        self.fired.append(timer.id)


async def test_a_loop_fires_its_shards_timers_and_leaves_the_others_waiting(
    tmp_path: Path,
) -> None:
    """Two shards: the loop of shard 0 fires shard 0's due timers only; shard 1's wait in the
    table until a loop of shard 1 runs, which fires them (the clock injected: always 1000)."""
    async with SqliteStore(tmp_path / "s.db") as store:
        want: dict[int, list[int]] = {0: [], 1: []}
        for shard in (0, 1):
            game = await store.create_game(
                "toy", shard, {}, "{}", guild_id=(7 << 23) + (shard << 22)
            )
            for i in range(5):
                timer = await store.add_timer("demo", 990.0 + i, {}, game.id)
                want[shard].append(timer.id)
        future = await store.add_timer("demo", 2000.0, {}, game.id)  # shard 1's, not due
        zero = LoopBot(store)
        loop0 = TimerManager(zero, clock=lambda: 1000.0, shards=Shards(count=2, ids=(0,)))  # type: ignore[arg-type]
        loop0.start()
        try:
            await until(lambda: len(zero.fired) == 5, seconds=5.0)
            await asyncio.sleep(0.2)  # it would have taken more by now
            assert zero.fired == want[0]
            assert [t.id for t in await store.timers()] == [*want[1], future.id]
            one = LoopBot(store)
            loop1 = TimerManager(one, clock=lambda: 1000.0, shards=Shards(count=2, ids=(1,)))  # type: ignore[arg-type]
            loop1.start()
            try:
                await until(lambda: len(one.fired) == 5, seconds=5.0)
                await asyncio.sleep(0.2)
            finally:
                await loop1.stop()
            assert one.fired == want[1] and zero.fired == want[0]
            assert [t.id for t in await store.timers()] == [future.id]
        finally:
            await loop0.stop()


@pytest.mark.parametrize("shared", [True, False])
async def test_a_shared_database_is_read_again_every_few_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool
) -> None:
    """A timer another process wrote (nobody pokes this loop) fires within SHARED_SLEEP on a
    database other processes write (PostgreSQL); on one only this process writes, the loop
    sleeps on (its own writes poke it)."""
    monkeypatch.setattr(timers, "SHARED_SLEEP", 0.2)
    async with SqliteStore(tmp_path / "r.db") as store:
        store.shared = shared  # type: ignore[misc]
        bot = LoopBot(store)
        loop = TimerManager(bot)  # type: ignore[arg-type]
        loop.start()
        try:
            await asyncio.sleep(0.1)  # the loop found no timer and went to sleep
            other = await store.add_timer("demo", time.time() - 1, {})  # behind its back
            if shared:
                await until(lambda: bot.fired == [other.id], seconds=2.0)
            else:
                await asyncio.sleep(0.8)
                assert bot.fired == []
                loop.poke()
                await until(lambda: bot.fired == [other.id], seconds=2.0)
        finally:
            await loop.stop()
