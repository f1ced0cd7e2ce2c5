"""The timer task: sleeps until the earliest stored timer, fires it once, survives restarts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from store.models import Timer
from tests.bot_helpers import make_bot, world
from tests.fakediscord import InProcessDriver


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
