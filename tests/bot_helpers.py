"""Test-only helpers for bot tests (the bot and its fake Discord world: paddock_tools.bots)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from store import SqliteStore


async def dump(store: SqliteStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to assert that a refusal changed nothing."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    names = await store._all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    for row in names:
        rows = await store._all(f"SELECT * FROM {row['name']} ORDER BY rowid")
        out[row["name"]] = [tuple(r) for r in rows]
    return out


class HeldWrites:
    """Every write of `store` (a one-hop write or a transaction; with `reads`, every read
    too) waits until `release()`: a store slowed down, as by a race night's burst. What the
    bot does before its first write (its answer, under issue 30's rule) comes meanwhile;
    `waiting` counts the calls held. `with HeldWrites(store) as held:`; leaving releases
    them and puts the store back."""

    def __init__(self, store: Any, *, reads: bool = False) -> None:
        self.store = store
        self.reads = reads
        self.waiting = 0
        self._open = asyncio.Event()

    def __enter__(self) -> HeldWrites:
        write, transaction, read = self.store.write, self.store.transaction, self.store._all

        async def held_read(*args: Any) -> Any:
            self.waiting += 1
            await self._open.wait()
            return await read(*args)

        if self.reads:
            self.store._all = held_read

        async def held_write(work: Any) -> Any:
            self.waiting += 1
            await self._open.wait()
            return await write(work)

        @contextlib.asynccontextmanager
        async def held_transaction() -> AsyncIterator[Any]:
            self.waiting += 1
            await self._open.wait()
            async with transaction() as db:
                yield db

        self.store.write, self.store.transaction = held_write, held_transaction
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        del self.store.write, self.store.transaction  # the class's own again
        if self.reads:
            del self.store._all

    def release(self) -> None:
        self._open.set()
