"""A finished race's log in words kept once (store/race_logs.py, migration 0017): the race
page made from a kept log is byte for byte the page its replay makes; a log kept at another
seq (the race taken back since) is never used; a race without one is replayed as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp.test_utils import TestClient, TestServer

from store import open_store
from store.race_logs import RaceLog, replay_log
from store.undo import standing
from tests.web.conftest import BASE
from tests.web.web_helpers import Filled
from web.app import make_app
from web.security import RateLimit
from web.server import runner_options


@asynccontextmanager
async def site(data: Filled) -> AsyncIterator[TestClient]:
    """A new site (its caches empty) over the database, read-only."""
    store = open_store(data.path, read_only=True)
    await store.open(run_migrations=False)
    app = make_app(store, BASE, rate_limit=RateLimit(burst=100_000, rate=100_000))
    try:
        async with TestClient(TestServer(app, **runner_options())) as client:
            yield client
    finally:
        await store.close()


async def page(data: Filled) -> bytes:
    async with site(data) as client:
        response = await client.get(f"/l/{data.league.web_token}/race/{data.game_id}")
        assert response.status == 200
        return await response.read()


async def keep(data: Filled, log: RaceLog, *, seq_offset: int = 0) -> None:
    async with open_store(data.path) as store:
        game = await store.load_game(data.game_id)
        await store.keep_race_log(data.game_id, game.seq + seq_offset, log)


async def the_bots_log(data: Filled) -> RaceLog:
    """The log as the bot keeps it at the finish (bot/table/core.py `_keep_race_log`)."""
    async with open_store(data.path) as store:
        game = await store.load_game(data.game_id)
        actions = standing(await store.actions(data.game_id))
    assert game.state_json is not None
    done = [(a.seq, a.actor, a.action_json) for a in actions]
    return replay_log(game.kind, game.seed, game.config, game.state_json, done)


async def test_a_kept_log_makes_the_same_page_and_is_what_the_page_reads(data: Filled) -> None:
    replayed = await page(data)  # no log kept: the site replays the race
    log = await the_bots_log(data)
    assert RaceLog.from_json(log.to_json()) == log
    await keep(data, log)
    assert await page(data) == replayed  # byte for byte
    # ... and the page does read it: a different log kept at the race's seq shows
    marked = RaceLog([(s, a, f"{t} [kept]") for s, a, t in log.actions], log.placings, log.steps)
    await keep(data, marked)
    assert b"[kept]" in await page(data)


async def test_a_log_kept_at_another_seq_is_never_shown(data: Filled) -> None:
    replayed = await page(data)
    log = await the_bots_log(data)
    stale = RaceLog([(s, a, f"{t} [stale]") for s, a, t in log.actions], log.placings, log.steps)
    await keep(data, stale, seq_offset=-1)  # made before a take-back, say
    assert await page(data) == replayed
