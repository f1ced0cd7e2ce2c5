"""Loopback fake Discord: an aiohttp server on 127.0.0.1 serving REST and a gateway websocket.

The real client runs unmodified against it (``Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` are pointed at the server while :meth:`FakeDiscord.running`
is active)::

    async with FakeDiscord() as fd:
        bot = MyBot()
        async with fd.running(bot):
            calls = await fd.slash("demo", "ping", user=ALICE)
            assert calls.content == "pong"

REST requests are answered and recorded by the shared :class:`~.backend.Backend`; gateway
frames are sent as plain text JSON (discord.py only decompresses binary frames, so the
``compress=zstd-stream`` / ``zlib-stream`` query it asks for can be ignored).

Shards: a client that IDENTIFYs with ``shard: [id, count]`` gets a session of that shard; its
READY lists, and it is sent GUILD_CREATE for, only the guilds on it (``(guild_id >> 22) %
count``), and every event of a guild goes to the session of the shard that owns the guild
(events of no guild to shard 0). Several clients, or several shards of one client, may be
connected at once. A client without ``shard`` is shard 0 of 1: it gets every guild, as
before. ``GET /gateway/bot`` recommends ``shard_count`` (the constructor's)::

    world = World.default()
    world.add_guild(other_id, "Other", channels={other_channel: "general"})
    async with FakeDiscord(world, shard_count=2) as fd:
        ...  # bots with shard_ids=[0] and [1] each get the guilds of their shard
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Self

import discord
import yarl
from aiohttp import WSMsgType, web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from . import payloads as pl
from .backend import Backend, Calls, SentFile
from .base import (
    ErrorCapture,
    InteractionAPI,
    TaskFilter,
    check_errors,
    default_ignored_task,
    task_errors,
    wait_idle,
)


def _json_response(status: int, body: Any) -> web.Response:
    # Discord answers through Google's front end; discord.py takes a 429 without `Via` for a
    # Cloudflare ban and gives up instead of waiting `retry_after`.
    headers = {"Via": "1.1 google"}
    if status == 204 or body is None:
        return web.Response(status=204, headers=headers)
    if status == 429 and isinstance(body, dict) and "retry_after" in body:
        headers["Retry-After"] = str(max(1, round(float(body["retry_after"]))))
        headers["X-RateLimit-Scope"] = "global" if body.get("global") else "user"
    # discord.py only parses JSON when Content-Type is exactly "application/json"
    return web.Response(
        status=status,
        body=json.dumps(body).encode(),
        headers={**headers, "Content-Type": "application/json"},
    )


@dataclass(eq=False)
class GatewaySession:
    """The gateway session of one shard (shard 0 of 1 for a client without shards), from its
    IDENTIFY until another IDENTIFY of that shard replaces it; a RESUME carries it over to a
    new connection."""

    shard_id: int
    shard_count: int
    session_id: str
    identify: dict[str, Any]
    ws: web.WebSocketResponse | None = None  # None while no connection serves it
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # events may go out on `ws`
    gone: asyncio.Event = field(default_factory=asyncio.Event)  # `ws` closed
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)  # its dispatches, for a RESUME
    dropped: bool = False  # drop_gateway() until the client is back
    hold: asyncio.Event | None = None

    def owns(self, guild_id: int | None) -> bool:
        return pl.shard_of(guild_id, self.shard_count) == self.shard_id


def event_guild(event: str, data: dict[str, Any]) -> int | None:
    """The guild a dispatch is about (None: none, e.g. a direct message)."""
    if event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"):
        return int(data["id"])
    guild_id = data.get("guild_id")
    return None if guild_id is None else int(guild_id)


class FakeDiscord(InteractionAPI):
    """A fake Discord (REST + gateway) on an ephemeral 127.0.0.1 port."""

    def __init__(
        self,
        world: pl.World | None = None,
        *,
        timeout: float = 5.0,
        heartbeat_interval_ms: int = 41250,
        ignore_task: TaskFilter = default_ignored_task,
        shard_count: int = 1,
    ) -> None:
        self.world = world or pl.World.default()
        self.backend = Backend(self.world)
        self.backend.shard_count = shard_count
        self.shard_count = shard_count  # what GET /gateway/bot recommends
        self.timeout = timeout
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.ignore_task = ignore_task
        self.base_url = ""
        self.identify: dict[str, Any] | None = None  # the IDENTIFY "d" the client sent last
        self.gateway_query: dict[str, str] = {}  # e.g. {"v": "10", "compress": "zstd-stream"}
        self.gateway_received: list[dict[str, Any]] = []  # every frame the clients sent
        self.heartbeats = 0
        self.resumes = 0  # RESUMEs accepted (the session went on, missed events replayed)
        self.session_id: str | None = None  # the gateway session of the last IDENTIFY
        self.sessions: dict[int, GatewaySession] = {}  # shard id -> its current session
        # (shard id, dispatch frame) of every event sent or kept for a RESUME, in order
        self.dispatched: list[tuple[int, dict[str, Any]]] = []
        self._last: GatewaySession | None = None  # the session last IDENTIFYed or RESUMEd
        self.bot: discord.Client | None = None  # type: ignore[assignment]  # until running()
        self._runner: web.AppRunner | None = None
        self._bot_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ server lifecycle
    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway/", self._gateway)
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("GET", "/attachments/{aid}/{filename}", self._attachment)
        app.router.add_route("*", "/api/{version:v\\d+}/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}"
        self.backend.url_base = self.base_url
        self.backend.gateway_url = self.gateway_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.base_url.removeprefix('http://')}/gateway/"

    # ------------------------------------------------------------------ running a client
    @contextlib.asynccontextmanager
    async def running(
        self, bot: discord.Client, *, token: str = "fake-token"
    ) -> AsyncIterator[FakeDiscord]:
        """Start ``bot`` against this server, wait for ``on_ready`` (and its handlers), yield,
        then close the bot and wait for ``start()`` to return."""
        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        self.bot = bot
        state = bot._connection
        state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)
        baseline = set(asyncio.all_tasks())
        self._bot_task = asyncio.create_task(bot.start(token, reconnect=False), name="fakebot")
        try:
            await self._wait_ready()
            await wait_idle(baseline, timeout=self.timeout, ignore=self._ignore)
            yield self
        finally:
            try:
                await bot.close()
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait_for(self._bot_task, self.timeout)
            finally:
                self._bot_task = None
                Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = old_base, old_gateway

    async def _wait_ready(self) -> None:
        assert self.bot is not None and self._bot_task is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while not self.bot.is_ready():
            if self._bot_task.done():
                self._bot_task.result()  # re-raise the startup failure
                raise RuntimeError("bot.start() returned before becoming ready")
            if loop.time() > deadline:
                raise TimeoutError(f"bot not ready after {self.timeout}s; calls: {self.calls!r}")
            await asyncio.sleep(0.005)

    def _ignore(self, task: asyncio.Task[Any]) -> bool:
        if task is self._bot_task or self.ignore_task(task):
            return True
        code = getattr(task.get_coro(), "cr_code", None)
        # aiohttp's own server/client plumbing (keep-alive connection handlers etc.)
        return code is not None and "/aiohttp/" in code.co_filename.replace("\\", "/")

    # ------------------------------------------------------------------ gateway
    @property
    def connected(self) -> bool:
        """Some client has IDENTIFYed (or RESUMEd) and is still connected."""
        return any(s.ready.is_set() for s in self.sessions.values())

    def shard_connected(self, shard_id: int) -> bool:
        session = self.sessions.get(shard_id)
        return session is not None and session.ready.is_set()

    async def wait_shards(self, shard_ids: list[int], timeout: float | None = None) -> None:
        """Until a client serves each of ``shard_ids`` (IDENTIFYed, READY sent)."""
        await self._until(
            lambda: all(self.shard_connected(i) for i in shard_ids),
            timeout,
            f"shards {shard_ids} not connected",
        )

    async def _until(self, check: Any, timeout: float | None, what: str) -> None:
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not check():
            if loop.time() > deadline:
                raise TimeoutError(f"{what} after {timeout}s")
            await asyncio.sleep(0.005)

    async def session_for(self, guild_id: int | None) -> GatewaySession:
        """The session of the shard that owns ``guild_id``, once a client serves it (or holds
        it dropped, waiting for a RESUME)."""
        found: list[GatewaySession] = []

        def owner() -> bool:
            for session in self.sessions.values():
                if session.owns(guild_id) and (session.ready.is_set() or session.dropped):
                    found.append(session)
                    return True
            return False

        await self._until(owner, None, f"no gateway session for guild {guild_id}")
        return found[0]

    async def push(self, event: str, data: dict[str, Any]) -> None:
        """Send a gateway DISPATCH (op 0) event to the client serving the shard of the event's
        guild. While that connection is dropped (:meth:`drop_gateway`), the event joins the
        session and reaches the client when it RESUMEs, as Discord replays missed events."""
        session = await self.session_for(event_guild(event, data))
        await self._dispatch(session, event, data)

    async def _dispatch(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        session.seq += 1
        frame = pl.gateway_dispatch(event, data, session.seq)
        session.sent.append(frame)
        self.dispatched.append((session.shard_id, frame))
        if session.dropped:
            return  # kept for the RESUME
        assert session.ws is not None
        await session.ws.send_str(json.dumps(frame))

    def _session(self, shard_id: int | None) -> GatewaySession:
        session = self._last if shard_id is None else self.sessions.get(shard_id)
        assert session is not None, "no gateway session"
        return session

    @property
    def session_events(self) -> list[dict[str, Any]]:
        """The dispatch frames of the current gateway session (what a RESUME may replay)."""
        return list(self._last.sent) if self._last is not None else []

    async def drop_gateway(
        self,
        code: int = 4000,
        *,
        wait: bool = True,
        hold: asyncio.Event | None = None,
        shard_id: int | None = None,
    ) -> None:
        """Close a gateway connection from Discord's side (that of ``shard_id``, default the
        session last IDENTIFYed), as a network blip or a gateway restart does (code 4000
        "unknown error": the client may RESUME). With ``wait``, return once the client is
        back (RESUMEd or IDENTIFYed again). Events pushed meanwhile are replayed by the
        RESUME; ``hold`` keeps the client waiting for the RESUME's answer until it is set (so
        that a test can push events meanwhile)."""
        session = self._session(shard_id)
        ws = session.ws
        assert ws is not None, "no gateway connection"
        session.ready.clear()
        session.ws = None
        session.dropped = True
        session.hold = hold
        await ws.close(code=code, message=b"dropped by the fake")
        if wait:
            await self._until(
                lambda: self.shard_connected(session.shard_id), None, "the client is not back"
            )

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.gateway_query = dict(request.query)
        gone = asyncio.Event()  # this connection closed
        served: GatewaySession | None = None  # the session this connection carries
        await ws.send_str(
            json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
        )
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                self.gateway_received.append(frame)
                op = frame.get("op")
                if op == 1:
                    self.heartbeats += 1
                    await ws.send_str(json.dumps({"op": 11}))
                elif op == 2:
                    d = frame.get("d") or {}
                    shard_id, shard_count = (int(x) for x in d.get("shard") or (0, 1))
                    if not 0 <= shard_id < shard_count:
                        await ws.close(code=4010, message=b"Invalid shard")
                        break
                    old = self.sessions.get(shard_id)
                    if old is not None:  # a new session: what the old one missed is lost
                        old.ready.clear()
                        old.dropped = False
                    served = GatewaySession(
                        shard_id=shard_id,
                        shard_count=shard_count,
                        session_id=f"fake-session-{len(self.gateway_received)}",
                        identify=d,
                        ws=ws,
                        gone=gone,
                    )
                    self.sessions[shard_id] = self._last = served
                    self.identify, self.session_id = d, served.session_id
                    # READY and GUILD_CREATE go out before push() may use the session, so
                    # nothing can overtake them (also after a reconnect of a restarted client).
                    ready = self.world.ready_payload(
                        session_id=served.session_id,
                        resume_url=self.gateway_url,
                        shard=(shard_id, shard_count),
                    )
                    await self._dispatch(served, "READY", ready)
                    for guild_id in self.world.guilds_on_shard(shard_id, shard_count):
                        payload = self.world.guild_payload(guild_id)
                        await self._dispatch(served, "GUILD_CREATE", payload)
                    if served.ws is ws:
                        served.ready.set()
                elif op == 6:  # RESUME: replay what the client missed, or ask for IDENTIFY
                    d = frame.get("d") or {}
                    session = next(
                        (
                            s
                            for s in self.sessions.values()
                            if s.session_id == d.get("session_id") and s.ws in (None, ws)
                        ),
                        None,
                    )
                    if session is None:
                        await ws.send_str(json.dumps({"op": 9, "d": False}))
                        continue
                    if session.hold is not None:
                        await asyncio.wait_for(session.hold.wait(), self.timeout)
                        session.hold = None
                    session.ws, session.gone, session.dropped = ws, gone, False
                    served = self._last = session
                    missed = [f for f in session.sent if f["s"] > int(d.get("seq") or 0)]
                    for missed_frame in missed:
                        await ws.send_str(json.dumps(missed_frame))
                    await self._dispatch(session, "RESUMED", {})
                    self.resumes += 1
                    session.ready.set()
        finally:
            # an old connection closing late must not unready its replacement
            if served is not None and served.ws is ws:
                served.ready.clear()
                served.ws = None
            gone.set()
        return ws

    # ------------------------------------------------------------------ REST
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        params = dict(request.query)
        body: Any = None
        files: list[SentFile] = []
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            for name, value in form.items():
                if name == "payload_json":
                    raw = value.file.read() if isinstance(value, web.FileField) else value
                    body = json.loads(raw)
                elif isinstance(value, web.FileField):
                    files.append(
                        SentFile(
                            field=name,
                            filename=value.filename,
                            data=value.file.read(),
                            content_type=value.content_type,
                        )
                    )
        elif request.can_read_body:
            raw = await request.read()
            if raw:
                body = json.loads(raw) if "json" in request.content_type else raw
        status, data = await self.backend.handle(
            request.method, path, json=body, files=files, params=params
        )
        return _json_response(status, data)

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        url = f"{self.base_url}{request.path}"
        data = self.backend.attachments.get(url)
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    # ------------------------------------------------------------------ interactions
    async def _deliver(self, payload: dict[str, Any]) -> Calls:
        if self.bot is None:
            raise RuntimeError("no bot running; use `async with fd.running(bot):`")
        mark = self.backend.mark()
        iid = int(payload["id"])
        waiter = asyncio.ensure_future(
            self.bot.wait_for("interaction", check=lambda i: i.id == iid, timeout=self.timeout)
        )
        await asyncio.sleep(0)  # register the waiter before the event can arrive
        baseline = set(asyncio.all_tasks())
        with ErrorCapture() as capture:
            await self.push("INTERACTION_CREATE", payload)
            await waiter
            tasks = await wait_idle(baseline, timeout=self.timeout, ignore=self._ignore)
        calls = Calls(self.backend.calls[mark:])
        calls.errors = [*task_errors(tasks), *capture.records]
        return check_errors(calls, self.raise_errors)
