"""Timers kept in the database, one task sleeping until the earliest (RoboDanny's pattern).

A due timer is claimed (`store.claim_due_timer`: taken out of the table in one transaction,
by exactly one caller even across processes), then dispatched as the bot event
`on_<event>_timer_complete(timer)`, so cogs handle their own timers with a listener. Timers
survive restarts: the loop reads them from the database. Timers written by another
transaction of this process (an action and its timers commit together) wake the loop with
`poke`; timers written by another process (PostgreSQL) are seen at the next re-read, at
most `SHARED_SLEEP` seconds later.

With shards (PADDOCK_SHARD_COUNT / PADDOCK_SHARD_IDS) the loop claims only timers of games
on this process's shards: a timer of a guild whose shard is down waits for the process
that runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.limits import HOUR
from store.models import Shards, Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from bot.metrics import Metrics

log = logging.getLogger("paddock.timers")

MAX_SLEEP = float(HOUR)  # re-read the table at least hourly, in case the clock jumped
SHARED_SLEEP = 5.0  # a database other processes write: re-read it this often
CLAIM_RETRY = 0.05  # a due timer another process is claiming: look again this soon


class TimerManager:
    def __init__(
        self,
        bot: PaddockBot,
        clock: Callable[[], float] = time.time,
        *,
        shards: Shards | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.bot = bot
        self.clock = clock
        self.metrics = metrics
        # None: every timer (one process, or every shard in this one).
        self.shards = None if shards is None or shards.everything else shards
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    @property
    def max_sleep(self) -> float:
        return SHARED_SLEEP if getattr(self.bot.store, "shared", False) else MAX_SLEEP

    @property
    def alive(self) -> bool:
        """The loop is running (a health check's question: a stopped loop fires nothing)."""
        return self._task is not None and not self._task.done()

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
        store = self.bot.store
        try:
            while True:
                self._wake.clear()
                timer = await store.claim_due_timer(self.clock(), shards=self.shards)
                if timer is not None:
                    self._fire(timer)
                    continue  # the next one may be due too
                upcoming = await store.next_timer(shards=self.shards)
                if upcoming is None:
                    await self._sleep(self.max_sleep)  # `create` or `poke` wakes us
                    continue
                delay = upcoming.due_at - self.clock()
                # Due already: it came due after the claim, or another process is claiming
                # it (SKIP LOCKED passed it over); look again shortly rather than spin.
                await self._sleep(min(max(delay, CLAIM_RETRY), self.max_sleep))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.metrics is not None:
                self.metrics.database_error(exc)
            log.exception("timer loop stopped; restarting it")
            await asyncio.sleep(1)
            self._restart()

    def _fire(self, timer: Timer) -> None:
        log.info("timer %s (%s) is due", timer.id, timer.event)
        if self.metrics is not None:
            self.metrics.fired_late(self.clock() - timer.due_at)
        self.bot.dispatch(f"{timer.event}_timer_complete", timer)
