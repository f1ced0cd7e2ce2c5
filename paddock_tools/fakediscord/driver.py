"""In-process driver: no sockets at all.

Interactions are fed straight into ``bot._connection.parse_interaction_create`` and every HTTP
request is intercepted at the request level (``HTTPClient.request`` on the bot's instance and
``AsyncWebhookAdapter.request`` for interaction callbacks / webhooks, keyed by the bot's
aiohttp session) and answered by the shared :class:`~.backend.Backend`.

Usage::

    async with InProcessDriver(MyBot()) as driver:
        calls = await driver.slash("demo", "ping", user=ALICE)
        assert calls.content == "pong"
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord.webhook.async_ import AsyncWebhookAdapter

from . import payloads as pl
from .backend import Backend, Calls, parse_form, strip_api_prefix
from .base import (
    ErrorCapture,
    InteractionAPI,
    TaskFilter,
    check_errors,
    default_ignored_task,
    raise_for_status,
    task_errors,
    wait_idle,
)

# ---------------------------------------------------------------- webhook adapter patch

_owners: dict[int, InProcessDriver] = {}  # id(aiohttp session) -> driver
_original_adapter_request: Any = None


def _install_adapter_patch() -> None:
    global _original_adapter_request
    if _original_adapter_request is not None:
        return
    original = AsyncWebhookAdapter.request
    _original_adapter_request = original

    async def request(self: AsyncWebhookAdapter, route: Any, session: Any, **kwargs: Any) -> Any:
        owner = _owners.get(id(session))
        if owner is None:
            return await original(self, route, session, **kwargs)
        return await owner._webhook_request(route, **kwargs)

    AsyncWebhookAdapter.request = request  # type: ignore[method-assign]


def _uninstall_adapter_patch() -> None:
    global _original_adapter_request
    if _original_adapter_request is not None and not _owners:
        AsyncWebhookAdapter.request = _original_adapter_request  # type: ignore[method-assign]
        _original_adapter_request = None


class InProcessDriver(InteractionAPI):
    """Drive a real ``discord.Client`` / ``commands.Bot`` without any network.

    ``async with`` logs the bot in (``GET /users/@me``, ``GET /oauth2/applications/@me``,
    ``setup_hook``), feeds READY + GUILD_CREATE for :attr:`world` through the connection state
    and waits for ``on_ready``; leaving closes the bot."""

    def __init__(
        self,
        bot: discord.Client,
        world: pl.World | None = None,
        *,
        token: str = "fake-token",
        timeout: float = 5.0,
        ignore_task: TaskFilter = default_ignored_task,
    ) -> None:
        self.bot = bot
        self.world = world or pl.World.default()
        self.backend = Backend(self.world)
        self.token = token
        self.timeout = timeout
        self.ignore_task = ignore_task
        self._session_id: int | None = None

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> InProcessDriver:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        bot = self.bot
        baseline = set(asyncio.all_tasks())
        bot.http.request = self._http_request  # type: ignore[method-assign]
        bot.http.get_from_cdn = self._get_from_cdn  # type: ignore[method-assign]
        bot._connection.guild_ready_timeout = 0.01
        _install_adapter_patch()
        try:
            await bot.login(self.token)  # creates the aiohttp session (unused: no requests)
            session = bot.http._HTTPClient__session  # type: ignore[attr-defined]
            self._session_id = id(session)
            _owners[self._session_id] = self
            parsers = bot._connection.parsers
            parsers["READY"](self.world.ready_payload())
            for guild_id in self.world.guild_ids:
                parsers["GUILD_CREATE"](self.world.guild_payload(guild_id))
            await asyncio.wait_for(bot.wait_until_ready(), self.timeout)
            await wait_idle(baseline, timeout=self.timeout, ignore=self.ignore_task)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        try:
            if not self.bot.is_closed():
                await self.bot.close()
        finally:
            if self._session_id is not None:
                _owners.pop(self._session_id, None)
                self._session_id = None
            _uninstall_adapter_patch()

    # ------------------------------------------------------------------ transport
    async def _deliver(self, payload: dict[str, Any]) -> Calls:
        mark = self.backend.mark()
        baseline = set(asyncio.all_tasks())
        with ErrorCapture() as capture:
            self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
            tasks = await wait_idle(baseline, timeout=self.timeout, ignore=self.ignore_task)
        calls = Calls(self.backend.calls[mark:])
        calls.errors = [*task_errors(tasks), *capture.records]
        return check_errors(calls, self.raise_errors)

    async def _http_request(
        self,
        route: Any,
        *,
        files: Any = None,
        form: Any = None,
        **kwargs: Any,
    ) -> Any:
        path, params = strip_api_prefix(route.url)
        params.update({k: str(v) for k, v in (kwargs.get("params") or {}).items()})
        body = kwargs.get("json")
        sent_files: list = []
        if form:
            body, sent_files = parse_form(form)
        status, data = await self.backend.handle(
            route.method, path, json=body, files=sent_files, params=params
        )
        raise_for_status(status, data)
        return data

    async def _webhook_request(
        self,
        route: Any,
        *,
        payload: Any = None,
        multipart: Any = None,
        files: Any = None,
        params: Any = None,
        **_: Any,
    ) -> Any:
        path, query = strip_api_prefix(route.url)
        query.update({k: str(v) for k, v in (params or {}).items()})
        body = payload
        sent_files: list = []
        if multipart:
            body, sent_files = parse_form(multipart)
        status, data = await self.backend.handle(
            route.method, path, json=body, files=sent_files, params=query
        )
        raise_for_status(status, data)
        return data

    async def _get_from_cdn(self, url: str) -> bytes:
        try:
            return self.backend.attachments[url]
        except KeyError:
            raise_for_status(404, {"message": "Not Found", "code": 0})
            raise
