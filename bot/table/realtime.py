"""The table's real-time part: what a game played by everyone at once against a clock needs
besides turns (Pit Formula today; a second real-time game uses the same, not a copy).

- a countdown before a race's Go!, and the time since that Go! that each action carries
  (taken as the click arrives, not when its turn at the race's lock comes);
- one race message edited at most once per interval however many actions arrive: a burst
  becomes one edit, within Discord's rate limits;
- a stopwatch message ticking down until the race is over or its time is up;
- background tasks (scoring, the next countdown) that never hold up a player's answer and
  whose failures are logged, never lost silently.

This is per race, in this process's memory. After a restart a race goes on from the store
(its timers are in the database); only a pending edit and a stopwatch's ticks are lost.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import discord

from bot.errors import NotPosted
from bot.posting import PostChannel

log = logging.getLogger("paddock.realtime")


@dataclass
class Stopwatch:
    """A message ticking down to `due` (on the timers' clock), edited by its task."""

    message: discord.Message
    due: float
    task: asyncio.Task[None]


class RealTime:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock  # the timers' clock (bot/timers.py), which stopwatches count on
        self._go_at: dict[int, float] = {}  # game id -> monotonic time of this race's Go!
        self._dirty: set[int] = set()
        self._editors: dict[int, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._stopwatches: dict[int, Stopwatch] = {}

    def close(self) -> None:
        """Stop every task (the cog is unloaded, the bot shutting down)."""
        tasks = [*self._editors.values(), *self._background]
        tasks += [s.task for s in self._stopwatches.values()]
        for task in tasks:
            task.cancel()

    def background(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run a coroutine on its own (a countdown, scoring), logging what fails."""

        async def guarded() -> None:
            try:
                await coro
            except NotPosted as exc:  # stored; the game's status command shows it
                log.warning("%s: %s (%s)", name, exc.message, exc.cause)
            except Exception:  # a background task: log, never lose it silently
                log.exception("%s failed", name)

        task = asyncio.create_task(guarded(), name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # The race clock ---------------------------------------------------------------------

    async def countdown(
        self,
        channel: PostChannel,
        text: str,
        seconds: float,
        mentions: discord.AllowedMentions,
    ) -> None:
        """Say the race is about to go ("ready... Go! in 3 s"), then wait that long."""
        if seconds <= 0:
            return
        await channel.send(text, allowed_mentions=mentions)
        await asyncio.sleep(seconds)

    def go(self, game_id: int) -> None:
        """The race is on: from now, each action is stamped with the time since."""
        self._go_at[game_id] = time.monotonic()

    def since_go_ms(self, game_id: int, arrived: float | None = None) -> int | None:
        """Milliseconds from this race's Go! to `arrived` (monotonic; None: now), or None
        when this process did not see the Go! (a restart meanwhile)."""
        go = self._go_at.get(game_id)
        if go is None:
            return None
        now = time.monotonic() if arrived is None else arrived
        return max(0, int((now - go) * 1000))

    # The race message -------------------------------------------------------------------

    def mark_dirty(
        self, game_id: int, interval: float, edit: Callable[[], Awaitable[bool]]
    ) -> None:
        """The race changed: `edit` runs after `interval`, once for every change since
        (it returns False when there is nothing left to edit, e.g. the race is scored)."""
        self._dirty.add(game_id)
        task = self._editors.get(game_id)
        if task is None or task.done():
            self._editors[game_id] = asyncio.create_task(
                self._edit_loop(game_id, interval, edit), name=f"paddock-editor-{game_id}"
            )

    async def _edit_loop(
        self, game_id: int, interval: float, edit: Callable[[], Awaitable[bool]]
    ) -> None:
        while game_id in self._dirty:
            await asyncio.sleep(interval)
            self._dirty.discard(game_id)
            try:
                if not await edit():
                    return
            except NotPosted as exc:
                log.warning("game %s: %s (%s)", game_id, exc.message, exc.cause)
            except discord.HTTPException as exc:
                log.warning("could not edit the race message of game %s: %s", game_id, exc)

    async def settle(self, game_id: int) -> None:
        """Drop a pending edit and wait for one under way: a late edit would put the race's
        last live text back over its final one."""
        self._dirty.discard(game_id)
        editor = self._editors.pop(game_id, None)
        if editor is not None and not editor.done():
            editor.cancel()
            await asyncio.gather(editor, return_exceptions=True)

    # The stopwatch ----------------------------------------------------------------------

    def start_stopwatch(
        self,
        game_id: int,
        message: discord.Message,
        seconds: float,
        interval: float,
        tick: Callable[[int], Awaitable[bool]],
    ) -> None:
        """Tick `message` down from `seconds`: `tick(ms left)` every `interval` edits it, and
        returns False once the race it times is over."""
        due = self._clock() + seconds

        async def run() -> None:
            while True:
                await asyncio.sleep(interval)
                left_ms = int((due - self._clock()) * 1000)
                if left_ms <= 0 or not await tick(left_ms):
                    return

        task = self.background(run(), f"paddock-stopwatch-{game_id}")
        self._stopwatches[game_id] = Stopwatch(message, due, task)

    async def stop_stopwatch(self, game_id: int) -> tuple[discord.Message, int] | None:
        """Stop the race's stopwatch, if it has one, and wait so that no tick lands after:
        its message and the milliseconds that were left."""
        stopwatch = self._stopwatches.pop(game_id, None)
        if stopwatch is None:
            return None
        stopwatch.task.cancel()
        await asyncio.gather(stopwatch.task, return_exceptions=True)
        return stopwatch.message, int((stopwatch.due - self._clock()) * 1000)
