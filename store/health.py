"""What an operator's health check and metrics read of the store (bot/ops.py, bot/metrics.py):
a ping, and two counts cheap enough to read at every scrape (each on an index: games by
status, timers by due time). Written once for both databases (store.dialect)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from store.dialect import Backend
from store.errors import StoreUnavailable

T = TypeVar("T")

PING_TIMEOUT = 2.0  # seconds: a health check must answer before its prober gives up
ACTIVE = ("lobby", "running")


async def within(work: Coroutine[Any, Any, T], seconds: float) -> T:
    """`work`'s result, or TimeoutError after `seconds` without waiting for the cancelled
    work to wind up: asyncpg cancels a query through the server it is waiting for, which a
    server that stopped answering may take its command timeout (a minute) to refuse."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise TimeoutError
    return task.result()


def _retrieved(task: asyncio.Future[Any]) -> None:
    # What a cancelled probe ended with is of no more use: not an asyncio warning either.
    if not task.cancelled():
        task.exception()


class HealthStore(Backend):
    async def ping(self, timeout: float = PING_TIMEOUT) -> None:
        """One read of a Paddock table, or StoreUnavailable saying why not in one line: the
        store closed, the database unreachable, or no answer within `timeout` seconds."""
        try:
            await within(self._val("SELECT 1 FROM schema_migrations LIMIT 1"), timeout)
        except TimeoutError:
            raise StoreUnavailable(self.path, f"no answer within {timeout:g} s") from None
        except RuntimeError as exc:  # the connection's own "the store is not open"
            raise StoreUnavailable(self.path, str(exc)) from None

    async def games_active(self) -> dict[tuple[str, str], int]:
        """How many games of each kind are in each of lobby and running: {(kind, status): n}."""
        rows = await self._all(
            "SELECT kind, status, COUNT(*) FROM games WHERE status IN (?, ?) GROUP BY kind, status",
            *ACTIVE,
        )
        return {(row[0], row[1]): int(row[2]) for row in rows}

    async def timers_due(self, now: float) -> int:
        """Timers due at `now` and not claimed yet (every shard's: a process that is down
        leaves its own waiting, and that is what an operator wants to see)."""
        return int(await self._val("SELECT COUNT(*) FROM timers WHERE due_at <= ?", now) or 0)
