"""Timers kept in the database, one task sleeping until the earliest (RoboDanny's pattern).

A due timer is deleted, then dispatched as the bot event `on_<event>_timer_complete(timer)`,
so cogs handle their own timers with a listener. Timers survive restarts: `start` re-arms
from the database.
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

    async def create(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer:
        timer = await self.bot.store.add_timer(event, due_at, payload, game_id)
        # Re-arm unless the loop already sleeps for an earlier timer: when it is between
        # timers (current unknown) it may have read the table before this insert.
        if self._current is None or timer.due_at < self._current.due_at:
            self._restart()
        return timer

    async def cancel_for_game(self, game_id: int) -> None:
        removed = await self.bot.store.delete_game_timers(game_id)
        if removed and self._current is not None and self._current.game_id == game_id:
            self._restart()

    async def _dispatch_loop(self) -> None:
        try:
            while True:
                timer = self._current = await self.bot.store.next_timer()
                if timer is None:
                    await asyncio.sleep(MAX_SLEEP)  # `create` re-arms us when one is added
                    continue
                delay = timer.due_at - self.clock()
                if delay > 0:
                    await asyncio.sleep(min(delay, MAX_SLEEP))
                    if delay > MAX_SLEEP:
                        continue
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
