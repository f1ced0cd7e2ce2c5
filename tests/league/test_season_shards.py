"""League rounds open exactly once with two shard processes on one PostgreSQL database, and
when the process opening them is SIGKILLed: after claiming the round's timer and before making
its race (the next process's start-up opens it), and after storing the race and before posting
it (the next process's start-up posts it). Needs PADDOCK_TEST_DATABASE_URL (skipped without).
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from typing import Any

import asyncpg

from bot.table.rounds import ROUND_OPEN, round_timers
from paddock_tools import bots as bot_helpers
from paddock_tools.fakediscord import BOB
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from store import League, Store, open_store
from tests.helpers import until
from tests.store.shard_helpers import SHARD0_CHANNEL, SHARD0_GUILD, two_guilds

REREAD = 0.2  # each bot process re-reads the shared timer table this often (default 5 s)
OPENED = "sign-up is open"


async def league_with_rounds(store: Store, guild_id: int, channel_id: int, rounds: int) -> League:
    league = await store.create_league(guild_id, "Cup", "waddington", "waddington", [10, 8], None)
    league = await store.set_home(league, channel_id, None, "UTC")
    await store.join_league(league, BOB.id, "bob", None)
    now = time.time()
    for number in range(1, rounds + 1):
        start = now + number * 7200  # (rounds of a league start an hour apart or more)
        rnd = await store.set_round(league, number, f"Round {number}", None, start)
        await store.set_round(
            league, number, rnd.name, None, start, timers=round_timers(league, rnd, now)
        )
    return league


async def starts_now(url: str) -> None:
    """Every round's start, and its opening timer, brought to now (its reminder dropped)."""
    at = time.time() - 1
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("DELETE FROM timers WHERE event <> $1", ROUND_OPEN)
        await conn.execute("UPDATE league_rounds SET starts_at = $1", at)
        await conn.execute(
            "UPDATE timers SET due_at = $1, payload_json = $2", at, json.dumps({"starts_at": at})
        )
    finally:
        await conn.close()


async def games_of(store: Store, league: League) -> dict[int, list[Any]]:
    """The league's races by round number."""
    numbers = {r.id: r.number for r in await store.rounds(league.id)}
    by_round: dict[int, list[Any]] = {n: [] for n in numbers.values()}
    for g in await store.list_games():
        if g.round_id in numbers:
            by_round[numbers[g.round_id]].append(g)
    return by_round


def announcements(fd: RemoteFakeDiscord, channel_id: int) -> list[str]:
    return [
        str((c.json or {}).get("content"))
        for c in fd.backend.calls
        if c.method == "POST"
        and c.path == f"/channels/{channel_id}/messages"
        and OPENED in str((c.json or {}).get("content"))
    ]


async def test_rounds_open_once_across_shards_and_kills(pg_schema: str) -> None:
    world = two_guilds(bot_helpers.world())
    shards = {"PADDOCK_SHARD_COUNT": "2"}

    def process(shard: str, fault: str | None = None) -> BotProcess:
        env = {**shards, "PADDOCK_SHARD_IDS": shard}
        if fault:
            env["PADDOCK_FAULT"] = fault
        return BotProcess(fd, pg_schema, env=env, timer_reread=REREAD)

    async with RemoteFakeDiscord(world, shard_count=2) as fd:
        zero = process("0")
        one = process("1", "round-claimed:1")  # dies holding round 1's timer, no race made
        again = process("1", "round-opened:2")  # dies with round 2's race stored, not posted
        third = process("1")
        store = open_store(pg_schema)
        try:
            await zero.start()  # applies the migrations
            await one.start()
            await store.open(run_migrations=False)
            home1 = await league_with_rounds(store, pl.GUILD_ID, pl.RACES_CHANNEL_ID, 2)
            home0 = await league_with_rounds(store, SHARD0_GUILD, SHARD0_CHANNEL, 1)
            await starts_now(pg_schema)

            # Shard 0's round opens in its process; shard 1's process dies at its claim.
            async def zero_opened() -> bool:
                return bool(announcements(fd, SHARD0_CHANNEL))

            await until(zero_opened, seconds=20.0)
            await asyncio.wait_for(one.proc.wait(), 20)  # type: ignore[union-attr]
            assert one.returncode == -signal.SIGKILL
            await one.stop()
            assert (await games_of(store, home1)) == {1: [], 2: []}  # nothing made

            # The next process opens round 1 at start-up (its timer died with `one`) and
            # dies after storing round 2's race.
            try:
                await again.start()  # (it may die before it tells the test it is ready)
            except RuntimeError as exc:
                assert "killing the bot at round-opened" in str(exc), exc
            else:
                await asyncio.wait_for(again.proc.wait(), 20)  # type: ignore[union-attr]
                assert any("killing the bot at round-opened" in line for line in again.log)
            assert again.returncode == -signal.SIGKILL
            await again.stop()
            stored = await games_of(store, home1)
            assert len(stored[2]) == 1 and stored[2][0].thread_id is None  # not posted

            # The third posts it at start-up.
            await third.start()

            async def all_posted() -> bool:
                games = await games_of(store, home1)
                return all(
                    len(g) == 1 and g[0].status_message_id is not None for g in games.values()
                )

            await until(all_posted, seconds=20.0)
            await fd.wait_quiet()
            await asyncio.sleep(1.0)  # time for a second opening to show

            # Each round: one race, announced once, its lobby in its own thread.
            for league, channel in ((home1, pl.RACES_CHANNEL_ID), (home0, SHARD0_CHANNEL)):
                games = await games_of(store, league)
                assert all(len(g) == 1 for g in games.values()), games
                said = announcements(fd, channel)
                assert len(said) == len(games), said
                for (race,) in games.values():
                    assert race.thread_id is not None and race.status == "lobby"
                    assert sum(f"race #{race.id}" in s for s in said) == 1
                rounds = await store.rounds(league.id)
                assert all(r.opened_at is not None for r in rounds)
            assert [t for t in await store.timers() if t.event == ROUND_OPEN] == []
            for p in (zero, third):
                assert [line for line in p.log if line.startswith("ERROR")] == []
        finally:
            for p in (zero, one, again, third):
                await p.kill()
            await store.close()
