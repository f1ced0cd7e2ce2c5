"""/healthz (bot/ops.py): 200 with every check up, over the loopback fake Discord (a real
gateway, with heartbeats); 503 naming what is down: the database, the timer loop, the
gateway connection; the server PADDOCK_OPS_PORT starts and stops with the bot."""

from __future__ import annotations

import math
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot import timers
from bot.client import PaddockBot
from bot.ops import OpsUnavailable
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import InProcessDriver
from paddock_tools.fakediscord.base import default_ignored_task
from paddock_tools.fakediscord.server import FakeDiscord
from store.health import PING_TIMEOUT
from tests.helpers import until
from tests.ops.ops_helpers import TcpProxy, ops_client, scrape


async def get_health(bot: PaddockBot) -> tuple[int, list[str]]:
    async with ops_client(bot) as client:
        response = await client.get("/healthz")
        return response.status, (await response.text()).splitlines()


def heartbeats_acknowledged(bot: PaddockBot) -> bool:
    latencies = getattr(bot, "latencies", None) or [(0, bot.latency)]
    return all(math.isfinite(latency) for _, latency in latencies)


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[PaddockBot]:
    bot = make_bot(tmp_path / "bot.db")
    async with FakeDiscord(world()) as fd, fd.running(bot):
        await until(lambda: heartbeats_acknowledged(bot), "the first heartbeat's ACK", seconds=5)
        yield bot


async def test_everything_up_is_200_ok_with_each_check_listed(running: PaddockBot) -> None:
    status, lines = await get_health(running)
    assert status == 200, lines
    assert lines[0] == "ok"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "discord",
        "shard 0",
        "database",
        "timers",
    ]
    assert all(": ok (" in line for line in lines[1:])
    assert f"database: ok ({running.store.path})" in lines


async def test_a_closed_store_is_503_naming_the_database(running: PaddockBot) -> None:
    await running.store.close()
    status, lines = await get_health(running)
    assert status == 503
    assert lines[0] == "unhealthy: database"
    (line,) = [line for line in lines if line.startswith("database:")]
    assert line == f"database: FAILING ({running.store.path}: the store is not open)"
    # The scrape still answers; the store's gauges are left out rather than stale.
    async with ops_client(running) as client:
        after = await scrape(client)
    assert not after.labels_of("paddock_games_active")
    assert math.isnan(after.get("paddock_timers_due"))
    assert after.get("paddock_database_errors_total", kind="query") == 0


async def test_a_stopped_timer_loop_is_503_naming_the_timers(running: PaddockBot) -> None:
    await running.timers.stop()
    status, lines = await get_health(running)
    assert status == 503
    assert lines[0] == "unhealthy: timers"
    assert "timers: FAILING (the timer loop is not running)" in lines
    running.timers.start()
    assert (await get_health(running))[0] == 200


async def test_the_shards_of_a_sharded_process_are_checked(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot.db", shard_count=2, shard_ids="1")  # one shard of two
    async with FakeDiscord(world(), shard_count=2) as fd, fd.running(bot):
        await until(lambda: heartbeats_acknowledged(bot), "the heartbeat's ACK", seconds=5)
        status, lines = await get_health(bot)
        assert status == 200, lines
        assert [line.split(" (")[0] for line in lines[2:-2]] == ["shard 1: ok"]
        async with ops_client(bot) as client:
            metrics = await scrape(client)
        latencies = metrics.labels_of("paddock_shard_latency_seconds")
        assert latencies == [{"shard": "1"}]
        assert metrics.get("paddock_shard_latency_seconds", shard="1") >= 0
        await bot.shards[1].disconnect()  # type: ignore[attr-defined]
        status, lines = await get_health(bot)
        assert status == 503 and lines[0] == "unhealthy: shard 1", lines
        assert "shard 1: FAILING (disconnected)" in lines


async def test_a_bot_without_a_gateway_connection_is_unhealthy(tmp_path: Path) -> None:
    # The in-process fake feeds events straight in: no gateway, no heartbeat.
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), world()) as d:
        assert isinstance(d.bot, PaddockBot)
        status, lines = await get_health(d.bot)
        assert status == 503 and lines[0] == "unhealthy: shard 0"
        assert "shard 0: FAILING (not connected)" in lines
    status, lines = await get_health(d.bot)  # closed
    assert status == 503 and lines[0].startswith("unhealthy: discord")
    assert "discord: FAILING (the client is closed)" in lines


async def test_the_ops_port_is_served_while_the_bot_runs(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot.db", ops_port=0)  # any free port
    async with FakeDiscord(world()) as fd, fd.running(bot):
        assert bot.ops is not None and bot.ops.host == "127.0.0.1" and bot.ops.port > 0
        url = f"http://127.0.0.1:{bot.ops.port}"
        await until(lambda: heartbeats_acknowledged(bot), "the first heartbeat's ACK", seconds=5)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{url}/healthz") as response:
                assert response.status == 200 and (await response.text()).startswith("ok\n")
            async with session.get(f"{url}/metrics") as response:
                assert response.status == 200
                assert "paddock_interactions_answered_total" in await response.text()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"{url}/healthz")  # stopped with the bot


async def test_a_taken_ops_port_stops_the_start_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        bot = make_bot(tmp_path / "bot.db", ops_port=port)
        with pytest.raises(OpsUnavailable) as refused:
            async with InProcessDriver(bot, world()):
                pass
    assert str(refused.value).startswith(f"PADDOCK_OPS_PORT: cannot listen on 127.0.0.1:{port}: ")
    assert "\n" not in str(refused.value)


async def test_a_database_server_that_stops_answering_then_goes_is_503_naming_it(
    tmp_path: Path, pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL behind a proxy: paused (no answer), the ping gives up within its 2 s;
    gone (connections dropped, new ones refused), the health check says so and the timer
    loop's store errors are counted."""
    monkeypatch.setattr(timers, "SHARED_SLEEP", 0.2)  # the loop reads the table this often
    upstream = urlsplit(pg_schema)
    proxy = TcpProxy(upstream.hostname or "127.0.0.1", upstream.port or 5432)
    await proxy.start()
    try:
        bot = make_bot(proxy.url(pg_schema))
        ignored = lambda task: default_ignored_task(task) or proxy.owns(task)  # noqa: E731
        async with FakeDiscord(world(), ignore_task=ignored) as fd, fd.running(bot):
            await until(lambda: heartbeats_acknowledged(bot), "the heartbeat's ACK", seconds=5)
            assert (await get_health(bot))[0] == 200

            proxy.pause()
            started = time.monotonic()
            status, lines = await get_health(bot)
            assert time.monotonic() - started < PING_TIMEOUT + 1.5
            assert status == 503 and lines[0] == "unhealthy: database", lines
            assert f"database: FAILING ({bot.store.path}: no answer within 2 s)" in lines
            # The scrape answers too, without the store's figures, and counts the error.
            errors = bot.metrics.database_errors.labels("unavailable")._value.get()
            started = time.monotonic()
            async with ops_client(bot) as client:
                metrics = await scrape(client)
            assert time.monotonic() - started < PING_TIMEOUT + 1.5
            assert not metrics.labels_of("paddock_games_active")
            assert metrics.get("paddock_database_errors_total", kind="unavailable") > errors

            await proxy.close()
            status, lines = await get_health(bot)
            assert status == 503 and lines[0] == "unhealthy: database", lines
            (line,) = [line for line in lines if line.startswith("database:")]
            assert line.startswith(f"database: FAILING ({bot.store.path}: ")
            await until(
                lambda: bot.metrics.database_errors.labels("unavailable")._value.get() > 0,
                "the timer loop's store error counted",
                seconds=5,
            )
    finally:
        await proxy.close()


async def test_the_site_child_is_a_line_of_its_own_that_never_fails_the_bot(
    tmp_path: Path,
) -> None:
    """With PADDOCK_WEB_PORT: `site: ok (pid N listening on host:port)` while the league
    site's child listens; when it is down, a FAILING line but still 200 (the races go on,
    the bot starts it again)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bot = make_bot(tmp_path / "bot.db", web_port=port)
    async with FakeDiscord(world()) as fd, fd.running(bot):
        await until(lambda: heartbeats_acknowledged(bot), "the first heartbeat's ACK", seconds=5)
        assert bot.site is not None
        await until(bot.site.listening.is_set, "the site child listening", seconds=60)
        status, lines = await get_health(bot)
        assert status == 200 and lines[0] == "ok", lines
        assert lines[-1] == f"site: ok (pid {bot.site.pid} listening on 127.0.0.1:{port})"
        bot.site.listening.clear()  # as between a child's end and the next one's start
        status, lines = await get_health(bot)
        assert status == 200 and lines[0] == "ok", lines
        assert lines[-1].startswith("site: FAILING (its process is not listening")
