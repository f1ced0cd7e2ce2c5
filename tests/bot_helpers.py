"""Shared set-up for bot tests: a PaddockBot on a temporary database, driven in-process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.client import PaddockBot, create_bot
from bot.settings import Settings
from store import SqliteStore
from tests.fakediscord import payloads as pl

LEAGUE_ROLE_ID = 1100000000000000015
DAVE = pl.FakeUser(1100000000000000035, "dave", roles=(LEAGUE_ROLE_ID,))  # league role only
ERIN = pl.FakeUser(1100000000000000036, "erin")


def world() -> pl.World:
    w = pl.World.default()
    w.add_role(pl.role_payload(LEAGUE_ROLE_ID, "League Steward", 0, position=1))
    w.add_user(DAVE)
    w.add_user(ERIN)
    return w


def make_bot(db: Path | str, **settings: Any) -> PaddockBot:
    """The bot as `paddock run` builds it (`create_bot`: shard settings give a
    ShardedPaddockBot) on ``db``: a SQLite file, or a database URL (PADDOCK_DATABASE_URL).
    Settings not given are read from the environment (PADDOCK_*), as `paddock run` does."""
    where = "database_url" if isinstance(db, str) and "://" in db else "db_path"
    values = {where: db, "sync_commands": False, "token": None, **settings}
    return create_bot(Settings(_env_file=None, **values))


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
