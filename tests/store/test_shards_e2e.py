"""Past one process, end to end (issue 14): the loopback fake Discord with shards, and two
real bot processes on one PostgreSQL database, each serving one shard of two, a /f1 race in
a guild of each; one process is SIGKILLed mid-race and restarted; every timer fires once.

The fake's own shard behaviour (IDENTIFY with [shard_id, shard_count], READY and GUILD_CREATE
per shard, events routed by (guild_id >> 22) % shard_count, GET /gateway/bot) is tested first,
without a database. The process test needs PADDOCK_TEST_DATABASE_URL (tests/conftest.py) and
is skipped without it, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import time
from collections import Counter
from typing import Any

import aiohttp
import asyncpg
import discord

from paddock_tools import bots as bot_helpers
from paddock_tools.fakediscord import ALICE, BOB, FakeDiscord, World
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.process import BotGone, BotProcess, RemoteFakeDiscord
from store import Store, open_store
from tests.helpers import until
from tests.store.shard_helpers import SHARD0_CHANNEL, SHARD0_GUILD, SHARD1_GUILD, two_guilds
from tests.waddington.waddington_helpers import remote_click, remote_settled

TIMER_DUE = re.compile(r"^INFO:paddock\.timers:timer (\d+) \((\w+)\) is due$")
TIMEOUT_NOTE = "ran out of time"
REREAD = 0.2  # each bot process re-reads the shared timer table this often (default 5 s)


# The fake Discord with shards ----------------------------------------------------------


class Gateway:
    """A bare gateway client: IDENTIFY (with or without a shard), then collect dispatches."""

    def __init__(self, fd: FakeDiscord, shard: list[int] | None) -> None:
        self.fd, self.shard = fd, shard
        self.events: list[dict[str, Any]] = []

    async def __aenter__(self) -> Gateway:
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(self.fd.gateway_url)
        hello = await self.ws.receive_json()
        assert hello["op"] == 10
        identify: dict[str, Any] = {"token": "fake-token", "intents": 0, "properties": {}}
        if self.shard is not None:
            identify["shard"] = self.shard
        await self.ws.send_json({"op": 2, "d": identify})
        self.reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        async for msg in self.ws:
            self.events.append(json.loads(msg.data))

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()
        await self.session.close()
        await asyncio.wait([self.reader], timeout=5)

    def of(self, event: str) -> list[dict[str, Any]]:
        return [e["d"] for e in self.events if e.get("t") == event]


async def test_each_shard_gets_its_guilds_and_their_events() -> None:
    async with FakeDiscord(two_guilds(World.default()), shard_count=2) as fd:
        assert fd.base_url.startswith("http://127.0.0.1:")
        async with Gateway(fd, [0, 2]) as zero, Gateway(fd, [1, 2]) as one:
            await fd.wait_shards([0, 1])
            ready0, ready1 = zero.of("READY")[0], one.of("READY")[0]
            assert ready0["shard"] == [0, 2] and ready1["shard"] == [1, 2]
            assert [g["id"] for g in ready0["guilds"]] == [str(SHARD0_GUILD)]
            assert [g["id"] for g in ready1["guilds"]] == [str(SHARD1_GUILD)]
            (created0,) = zero.of("GUILD_CREATE")
            (created1,) = one.of("GUILD_CREATE")
            assert created0["id"] == str(SHARD0_GUILD) and created1["id"] == str(SHARD1_GUILD)
            # each guild has its own channels (and @everyone), the members of the world
            assert [c["id"] for c in created0["channels"]] == [str(SHARD0_CHANNEL)]
            assert str(SHARD0_CHANNEL) not in [c["id"] for c in created1["channels"]]
            assert str(SHARD0_GUILD) in [r["id"] for r in created0["roles"]]
            assert str(SHARD1_GUILD) not in [r["id"] for r in created0["roles"]]

            # An interaction goes to the shard of its guild, whichever comes first.
            tree = discord.app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))

            @tree.command(name="ping", description="ping")
            async def ping(interaction: discord.Interaction) -> None:  # pragma: no cover
                pass

            for channel_id, guild_id in ((SHARD0_CHANNEL, SHARD0_GUILD), (None, SHARD1_GUILD)):
                payload = pl.slash_payload(
                    fd.world, tree, ("ping",), {}, user=ALICE, channel_id=channel_id
                )
                assert payload["guild_id"] == str(guild_id)
                await fd.push("INTERACTION_CREATE", payload)
            await fd.push("MESSAGE_CREATE", {"id": "1", "channel_id": "2"})  # no guild: shard 0
            await fd.push("GUILD_UPDATE", {"id": str(SHARD1_GUILD)})
            await asyncio.sleep(0.2)
            assert [p["guild_id"] for p in zero.of("INTERACTION_CREATE")] == [str(SHARD0_GUILD)]
            assert [p["guild_id"] for p in one.of("INTERACTION_CREATE")] == [str(SHARD1_GUILD)]
            assert len(zero.of("MESSAGE_CREATE")) == 1 and not one.of("MESSAGE_CREATE")
            assert len(one.of("GUILD_UPDATE")) == 1 and not zero.of("GUILD_UPDATE")
            # each session numbers its own events
            assert [e["s"] for e in zero.events] == list(range(1, len(zero.events) + 1))
            assert [e["s"] for e in one.events] == list(range(1, len(one.events) + 1))

        # A client without a shard is shard 0 of 1: every guild, every event.
        async with Gateway(fd, None) as alone:
            await fd.wait_shards([0])
            assert alone.of("READY")[0]["shard"] == [0, 1]
            assert {g["id"] for g in alone.of("GUILD_CREATE")} == {
                str(SHARD0_GUILD),
                str(SHARD1_GUILD),
            }
            await fd.push("GUILD_UPDATE", {"id": str(SHARD1_GUILD)})
            await asyncio.sleep(0.1)
            assert len(alone.of("GUILD_UPDATE")) == 1

        # GET /gateway/bot recommends the configured count, and the fake's own gateway.
        async with aiohttp.ClientSession() as http, http.get(f"{fd.api_base}/gateway/bot") as got:
            body = await got.json()
        assert body["shards"] == 2 and body["url"] == fd.gateway_url


class AutoSharded(discord.AutoShardedClient):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        pass  # discord.py waits 5 s before each further shard's IDENTIFY


async def test_discord_py_takes_the_shard_count_and_gets_each_guild_on_its_shard() -> None:
    async with FakeDiscord(two_guilds(World.default()), shard_count=2) as fd:
        client = AutoSharded(intents=discord.Intents.default())  # no count: asks /gateway/bot
        async with fd.running(client):
            assert client.shard_count == 2 and sorted(client.shards) == [0, 1]
            guilds = {g.id: g.shard_id for g in client.guilds}
            assert guilds == {SHARD0_GUILD: 0, SHARD1_GUILD: 1}
            assert client.get_channel(SHARD0_CHANNEL).guild.id == SHARD0_GUILD  # type: ignore[union-attr]
            assert {s: fd.sessions[s].identify["shard"] for s in fd.sessions} == {
                0: [0, 2],
                1: [1, 2],
            }


# Two bot processes, one database --------------------------------------------------------


async def race_of(store: Store, guild_id: int) -> Any:
    (record,) = [g for g in await store.list_games() if g.guild_id == guild_id]
    return record


async def open_race(fd: RemoteFakeDiscord, store: Store, channel_id: int | None) -> int:
    """ALICE opens a /f1 race (two drivers, no robots) in the channel's guild, BOB joins,
    ALICE starts it; the race's game id."""
    guild_id = fd.world.guild_of(channel_id)
    opened = await fd.slash("f1", "new", laps=1, turn_minutes=30, user=ALICE, channel_id=channel_id)
    assert opened.errors == []
    gid = (await race_of(store, guild_id)).id
    await fd.click(f"pd:f1:{gid}:join", user=BOB)
    await fd.click(f"pd:f1:{gid}:start", user=ALICE)
    return gid


async def timeout_due_now(url: str, gid: int) -> int:
    """Bring the race's turn timeout forward to now (as if the driver's time ran out); its
    timer id."""
    conn = await asyncpg.connect(url)
    try:
        ids = await conn.fetch(
            "UPDATE timers SET due_at = $1 WHERE game_id = $2 AND event = 'f1_timeout'"
            " RETURNING id",
            time.time() - 1,
            gid,
        )
    finally:
        await conn.close()
    assert len(ids) == 1, ids
    return int(ids[0]["id"])


async def timed_out(store: Store, gid: int) -> list[Any]:
    return [a for a in await store.actions(gid) if a.actor.startswith("timeout:")]


def fired(log: list[str]) -> list[int]:
    """The timer ids a bot process fired, from its log."""
    return [int(m[1]) for line in log if (m := TIMER_DUE.match(line))]


def routed(fd: RemoteFakeDiscord) -> set[tuple[int, str]]:
    """(shard, guild id) of every interaction the fake sent."""
    return {
        (shard, frame["d"]["guild_id"])
        for shard, frame in fd.dispatched
        if frame["t"] == "INTERACTION_CREATE"
    }


def timeout_notes(fd: RemoteFakeDiscord, thread_id: int) -> list[Any]:
    return [
        c
        for c in fd.backend.calls
        if c.method == "POST"
        and c.path == f"/channels/{thread_id}/messages"
        and TIMEOUT_NOTE in ((c.json or {}).get("content") or "")
    ]


async def test_two_shard_processes_a_kill_mid_race_and_every_timer_fired_once(
    pg_schema: str,
) -> None:
    started = time.monotonic()
    world = two_guilds(bot_helpers.world())
    shards = {"PADDOCK_SHARD_COUNT": "2"}
    logs: dict[str, list[str]] = {}  # each run's log, the killed one's included
    async with RemoteFakeDiscord(world, shard_count=2) as fd:
        zero = BotProcess(
            fd, pg_schema, env={**shards, "PADDOCK_SHARD_IDS": "0"}, timer_reread=REREAD
        )
        # The shard-1 process is killed at the commit of its race's second action (a driver's
        # click), before anything about it is posted.
        one = BotProcess(
            fd,
            pg_schema,
            env={**shards, "PADDOCK_SHARD_IDS": "1", "PADDOCK_FAULT": "after-commit:2"},
            timer_reread=REREAD,
        )
        again = BotProcess(
            fd, pg_schema, env={**shards, "PADDOCK_SHARD_IDS": "1"}, timer_reread=REREAD
        )
        store = open_store(pg_schema)
        try:
            await zero.start()  # applies the migrations
            await one.start()
            await store.open(run_migrations=False)
            # Each process IDENTIFYed as its shard and was given that shard's guild only.
            assert fd.sessions[0].identify["shard"] == [0, 2]
            assert fd.sessions[1].identify["shard"] == [1, 2]
            ready = {s: f["d"] for s, f in fd.dispatched if f["t"] == "READY"}
            assert [g["id"] for g in ready[0]["guilds"]] == [str(SHARD0_GUILD)]
            assert [g["id"] for g in ready[1]["guilds"]] == [str(SHARD1_GUILD)]

            race0 = await open_race(fd, store, SHARD0_CHANNEL)
            race1 = await open_race(fd, store, None)  # the world's own guild: shard 1
            await remote_click(fd, store, race0)
            await remote_click(fd, store, race1)
            assert (await store.load_game(race1)).seq == 1 and one.alive
            assert routed(fd) == {(0, str(SHARD0_GUILD)), (1, str(SHARD1_GUILD))}

            # The next driver's click in race 1: its process dies at the commit.
            with contextlib.suppress(BotGone):  # killed before it answered the click
                await remote_click(fd, store, race1)
            await asyncio.wait_for(one.proc.wait(), 10)  # type: ignore[union-attr]
            assert one.returncode == -signal.SIGKILL
            assert any("PADDOCK_FAULT" in line for line in one.log)
            logs["one"] = list(one.log)
            await one.stop()  # reap it, and let the fake see its connection gone
            assert not fd.shard_connected(1) and fd.shard_connected(0)
            record1 = await store.load_game(race1)
            assert record1.seq == 2 and record1.published_seq == 1  # stored, not posted

            # Shard 0's race goes on meanwhile. Both races' turn timeouts come due now:
            # process 0 fires race 0's, and leaves race 1's (not its shard) in the table.
            await remote_click(fd, store, race0)
            timer0 = await timeout_due_now(pg_schema, race0)
            timer1 = await timeout_due_now(pg_schema, race1)

            async def race0_timed_out() -> bool:
                return bool(await timed_out(store, race0))

            await until(race0_timed_out, seconds=15.0)
            await fd.wait_quiet()
            await asyncio.sleep(1.0)  # five more re-reads of the timer table by process 0
            assert timer1 in [t.id for t in await store.timers(race1)]  # still waiting
            assert await timed_out(store, race1) == []
            assert timer1 not in fired(zero.log) and timer0 in fired(zero.log)
            await remote_click(fd, store, race0)  # and race 0 is played on after its timeout

            # Process 1 again: the race is recovered and its due timeout fires, once.
            await again.start()
            assert fd.sessions[1].identify["shard"] == [1, 2]

            async def race1_timed_out() -> bool:
                return bool(await timed_out(store, race1))

            await until(race1_timed_out, seconds=15.0)
            await fd.wait_quiet()
            await remote_settled(fd, store, race1)  # its prompt is in the thread
            record1 = await store.load_game(race1)
            assert record1.published_seq == record1.seq > 2  # the killed click's, recovered
            before = record1.seq
            await remote_click(fd, store, race1)  # the race resumes: a click plays
            assert (await store.load_game(race1)).seq > before
            await remote_click(fd, store, race0)
            await asyncio.sleep(1.0)  # time for a timer fired twice to show
            logs["zero"], logs["again"] = list(zero.log), list(again.log)

            # Every interaction went to the process of its guild's shard, and only there.
            assert routed(fd) == {(0, str(SHARD0_GUILD)), (1, str(SHARD1_GUILD))}

            # Every timer fired once, by the process of its race's shard.
            assert timer1 in fired(logs["again"])
            assert timer1 not in fired(logs["one"]) + fired(logs["zero"])
            every = fired(logs["zero"]) + fired(logs["one"]) + fired(logs["again"])
            assert [t for t, n in Counter(every).items() if n > 1] == []
            # In each race, one timeout: the robot's decisions for one driver's move, in one
            # run of actions, and one note in the race's thread.
            for gid, timer in ((race0, timer0), (race1, timer1)):
                record = await store.load_game(gid)
                late = await timed_out(store, gid)
                assert len({a.actor for a in late}) == 1 and all(a.by_robot for a in late)
                assert [a.seq for a in late] == list(range(late[0].seq, late[0].seq + len(late)))
                assert timer not in [t.id for t in await store.timers(gid)]
                assert record.thread_id is not None
                assert len(timeout_notes(fd, record.thread_id)) == 1
            assert [line for line in again.log if line.startswith("ERROR")] == []
            assert [line for line in zero.log if line.startswith("ERROR")] == []
        finally:
            for process in (zero, one, again):
                await process.kill()
            await store.close()
        assert not zero.alive and not one.alive and not again.alive
    assert time.monotonic() - started < 90  # about 30 s on two cores
