"""Timers kept in the database, one task sleeping until the earliest (RoboDanny's pattern).

A due timer is deleted, then dispatched as the bot event `on_<event>_timer_complete(timer)`,
so cogs handle their own timers with a listener. Timers survive restarts: `start` re-arms
from the database. Timers written by another transaction (an action and its timers commit
together) wake the loop with `poke`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from store.models import Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.timers")

MAX_SLEEP = 3600.0  # re-read the table at least hourly, in case the clock jumped


class TimerManager:
    def __init__(self, bot: PaddockBot, clock: Callable[[], float] = time.time) -> None:
        self.bot = bot
        self.clock = clock
        self._current: Timer | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._dispatch_loop(), name="paddock-timers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _restart(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.start()

    def poke(self) -> None:
        """Re-read the table: timers were added or removed in another transaction. The loop
        wakes between timers, never in the middle of firing one."""
        self._wake.set()

    async def _sleep(self, seconds: float) -> None:
        # asyncio.timeout, not wait_for: no inner task (the test harness waits for tasks).
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()

    async def create(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer:
        timer = await self.bot.store.add_timer(event, due_at, payload, game_id)
        self.poke()
        return timer

    async def cancel_for_game(self, game_id: int) -> None:
        if await self.bot.store.delete_game_timers(game_id):
            self.poke()

    async def _dispatch_loop(self) -> None:
        try:
            while True:
                self._wake.clear()
                timer = self._current = await self.bot.store.next_timer()
                if timer is None:
                    await self._sleep(MAX_SLEEP)  # `create` or `poke` wakes us
                    continue
                delay = timer.due_at - self.clock()
                if delay > 0:
                    await self._sleep(min(delay, MAX_SLEEP))
                    continue  # woken, or the time came: read the table again
                await self._fire(timer)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer loop stopped; restarting it")
            await asyncio.sleep(1)
            self._restart()

    async def _fire(self, timer: Timer) -> None:
        if await self.bot.store.delete_timer(timer.id):
            log.info("timer %s (%s) is due", timer.id, timer.event)
            self.bot.dispatch(f"{timer.event}_timer_complete", timer)
        self._current = None
