"""/healthz and /metrics for operators: a small aiohttp.web app beside the bot.

`ops_app(bot)` builds the app, `add_ops_routes(app, bot)` adds the two routes to any app (the
league site may host them too). `OpsServer` serves the app on PADDOCK_OPS_HOST (default
127.0.0.1) and PADDOCK_OPS_PORT while the bot runs: `PaddockBot.setup_hook` starts it and
`close` stops it.

`GET /healthz`: 200 and `ok`, or 503 and `unhealthy: <the failing checks>`, then one line per
check: the Discord client ready, each of this process's shards connected (not closed, not
rate limited by the gateway, a heartbeat acknowledged), the database answering a ping within
2 s, the timer loop running; with PADDOCK_WEB_PORT, the league site's child process listening
(a line of its own that never makes the bot unhealthy: the races go on without the site, and
the bot starts it again itself, bot/site_child.py). `GET /metrics`: bot/metrics.py's
registry in Prometheus's text format, its gauges read at that moment.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from store.errors import StoreUnavailable

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.ops")

# The bot whose health and metrics an app serves.
BOT_KEY: web.AppKey[PaddockBot] = web.AppKey("paddock_bot")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = True  # False: told, but the bot is healthy without it

    def line(self) -> str:
        return f"{self.name}: {'ok' if self.ok else 'FAILING'} ({self.detail})"


def discord_checks(bot: PaddockBot) -> list[Check]:
    """The client, then each shard this process runs (one, unsharded)."""
    if bot.is_closed():
        return [Check("discord", False, "the client is closed")]
    ready = bot.is_ready()
    checks = [Check("discord", ready, "ready" if ready else "not ready yet: still connecting")]
    if isinstance(bot, discord.AutoShardedClient):
        for shard_id in bot.shard_ids or range(bot.shard_count or 0):
            info = bot.get_shard(shard_id)
            if info is None:
                checks.append(Check(f"shard {shard_id}", False, "not connected"))
            else:
                checks.append(_shard(shard_id, info.is_closed(), info.is_ws_ratelimited(), info))
    else:
        ws = bot.ws
        if ws is None:
            checks.append(Check("shard 0", False, "not connected"))
        else:
            checks.append(_shard(0, not ws.open, bot.is_ws_ratelimited(), bot))
    return checks


def _shard(
    shard_id: int, closed: bool, limited: bool, conn: discord.ShardInfo | discord.Client
) -> Check:
    name = f"shard {shard_id}"
    if closed:
        return Check(name, False, "disconnected")
    if limited:
        return Check(name, False, "rate limited by the gateway")
    latency = conn.latency
    if not math.isfinite(latency):
        return Check(name, False, "no heartbeat acknowledged yet")
    return Check(name, True, f"latency {latency * 1000:.0f} ms")


async def database_check(bot: PaddockBot) -> Check:
    try:
        await bot.store.ping()
    except StoreUnavailable as exc:
        return Check("database", False, str(exc))
    except Exception as exc:  # whatever it is, the probe says it rather than a 500
        return Check("database", False, f"{bot.store.path}: {type(exc).__name__}: {exc}")
    return Check("database", True, bot.store.path)


def timers_check(bot: PaddockBot) -> Check:
    if bot.timers.alive:
        return Check("timers", True, "the timer loop is running")
    return Check("timers", False, "the timer loop is not running")


def site_check(bot: PaddockBot) -> list[Check]:
    """The league site's child process (none without PADDOCK_WEB_PORT)."""
    site = bot.site
    if site is None:
        return []
    if site.listening.is_set():
        return [Check("site", True, f"pid {site.pid} listening on {site.address}", False)]
    return [Check("site", False, "its process is not listening (started again soon)", False)]


async def health(bot: PaddockBot) -> list[Check]:
    return [*discord_checks(bot), await database_check(bot), timers_check(bot), *site_check(bot)]


def _bot(request: web.Request) -> PaddockBot:
    return request.app[BOT_KEY]


async def healthz(request: web.Request) -> web.Response:
    checks = await health(_bot(request))
    failing = [c.name for c in checks if not c.ok and c.required]
    head = f"unhealthy: {', '.join(failing)}" if failing else "ok"
    body = "\n".join([head, *(c.line() for c in checks)]) + "\n"
    return web.Response(text=body, status=503 if failing else 200)


async def metrics(request: web.Request) -> web.Response:
    bot = _bot(request)
    await bot.metrics.refresh(bot)
    body = generate_latest(bot.metrics.registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def add_ops_routes(app: web.Application, bot: PaddockBot) -> None:
    """/healthz and /metrics of `bot` on `app` (this module's, or another that hosts them)."""
    app[BOT_KEY] = bot
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)


def ops_app(bot: PaddockBot) -> web.Application:
    app = web.Application()
    add_ops_routes(app, bot)
    return app


class OpsUnavailable(Exception):
    """The ops port cannot be listened on (taken, or not ours): one line, the start stops."""


class OpsServer:
    def __init__(self, bot: PaddockBot, host: str, port: int) -> None:
        self.bot = bot
        self.host = host
        self.port = port  # 0 until started: any free port; then the one it got
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        # No access log: a scrape every few seconds would drown the bot's own lines.
        runner = web.AppRunner(ops_app(self.bot), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError as exc:
            await runner.cleanup()
            raise OpsUnavailable(
                f"PADDOCK_OPS_PORT: cannot listen on {self.host}:{self.port}: {exc.strerror or exc}"
            ) from exc
        self._runner = runner
        self.port = runner.addresses[0][1]
        log.info("serving /healthz and /metrics on http://%s:%d", self.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
