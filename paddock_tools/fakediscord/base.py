"""Shared user-facing API (slash / click / autocomplete) for both harness transports."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import discord

from . import payloads as pl
from .backend import Backend, Call, Calls, HTTPError

TaskFilter = Callable[[asyncio.Task[Any]], bool]


def _coro_ident(task: asyncio.Task[Any]) -> tuple[str, str]:
    coro = task.get_coro()
    code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
    filename = code.co_filename if code is not None else ""
    return filename, getattr(coro, "__qualname__", "")


def default_ignored_task(task: asyncio.Task[Any]) -> bool:
    """Long-lived tasks that must not count as "the bot is still busy"."""
    if task.get_name().startswith("paddock-"):  # the bot's own long-lived loops (timers)
        return True
    filename, qualname = _coro_ident(task)
    if qualname.endswith("__timeout_task_impl"):  # discord.ui.View timeout sleeper
        return True
    if qualname == "Shard.worker":  # an AutoShardedClient's loop reading one shard
        return True
    # ext.tasks loops
    return "discord/ext/tasks" in filename.replace("\\", "/")


async def wait_idle(
    baseline: set[asyncio.Task[Any]],
    *,
    timeout: float,
    ignore: TaskFilter = default_ignored_task,
) -> list[asyncio.Task[Any]]:
    """Wait until every task created after ``baseline`` was taken has finished.

    discord.py handles each interaction in freshly created tasks (``CommandTree-invoker``,
    ``discord-ui-view-dispatch-*``, ``discord.py: on_*`` ...), which in turn may spawn more; we
    keep waiting until none of those are pending."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    me = asyncio.current_task()
    seen: dict[asyncio.Task[Any], None] = {}

    def pending() -> list[asyncio.Task[Any]]:
        out = []
        for t in asyncio.all_tasks():
            if t is me or t in baseline or ignore(t):
                continue
            seen[t] = None
            if not t.done():
                out.append(t)
        return out

    while True:
        busy = pending()
        if not busy:
            # let call_soon chains (e.g. future callbacks creating tasks) settle
            for _ in range(3):
                await asyncio.sleep(0)
            busy = pending()
            if not busy:
                return list(seen)
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError(f"bot still busy after {timeout}s: {busy!r}")
        await asyncio.wait(busy, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)


class BotError(AssertionError):
    """The bot raised (or discord.py logged) an unhandled error while handling an event.

    ``calls`` holds the calls recorded anyway; ``__cause__`` is the original exception."""

    def __init__(self, message: str, calls: Calls) -> None:
        super().__init__(message)
        self.calls = calls


class ErrorCapture(logging.Handler):
    """Collects ERROR log records emitted while attached to the root logger."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> ErrorCapture:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)


def task_errors(tasks: list[asyncio.Task[Any]]) -> list[BaseException]:
    errors: list[BaseException] = []
    for t in tasks:
        if t.done() and not t.cancelled() and t.exception() is not None:
            errors.append(t.exception())  # type: ignore[arg-type]
    return errors


def check_errors(calls: Calls, raise_errors: bool) -> Calls:
    """Raise :class:`BotError` for task exceptions / discord.py ERROR logs, if asked to."""
    if not raise_errors or not calls.errors:
        return calls
    first = calls.errors[0]
    if isinstance(first, logging.LogRecord):
        exc = first.exc_info[1] if first.exc_info else None
        msg = f"{first.name}: {first.getMessage()}"
    else:
        exc, msg = first, repr(first)
    raise BotError(f"unhandled error in the bot: {msg}; calls: {list(calls)!r}", calls) from exc


class InteractionAPI:
    """slash() / click() / select() / autocomplete() on top of a ``_deliver`` transport."""

    bot: discord.Client
    world: pl.World
    backend: Backend
    timeout: float = 5.0
    #: raise BotError when a handler task dies or discord.py logs an unhandled error
    raise_errors: bool = True

    async def _deliver(self, payload: dict[str, Any]) -> Calls:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- state shortcuts
    @property
    def calls(self) -> Calls:
        """Every call recorded so far."""
        return self.backend.calls

    @property
    def messages(self) -> dict[int, dict[str, Any]]:
        """Messages the fake Discord knows about (id -> message object)."""
        return self.backend.messages

    def on(self, method: str, path: str, handler: Callable[..., Any]) -> None:
        """Register a custom REST responder (see :meth:`Backend.on`)."""
        self.backend.on(method, path, handler)

    async def wait_for_call(self, predicate=None, **kwargs: Any) -> Call:
        kwargs.setdefault("timeout", self.timeout)
        return await self.backend.wait_for_call(predicate, **kwargs)

    @property
    def _tree(self) -> discord.app_commands.CommandTree:
        tree = getattr(self.bot, "tree", None) or self.bot._connection._command_tree
        if tree is None:
            raise RuntimeError("the client has no CommandTree")
        return tree

    # -- interactions
    async def dispatch(self, payload: dict[str, Any]) -> Calls:
        """Deliver a raw INTERACTION_CREATE payload; returns the calls it caused."""
        self.backend.register_interaction(payload)
        return await self._deliver(payload)

    def slash_payload(
        self,
        *path: str,
        options: dict[str, Any] | None = None,
        user: pl.FakeUser | int = pl.ALICE,
        channel_id: int | None = None,
        permissions: int | None = None,
        locale: str | None = None,
        focused: str | None = None,
        **kw_options: Any,
    ) -> dict[str, Any]:
        if len(path) == 1 and " " in path[0]:
            path = tuple(path[0].split())
        return pl.slash_payload(
            self.world,
            self._tree,
            tuple(path),
            {**(options or {}), **kw_options},
            user=user,
            channel_id=channel_id,
            permissions=permissions,
            locale=locale,
            url_base=self.backend.url_base,
            attachments_sink=self.backend.attachments,
            focused=focused,
        )

    async def slash(
        self,
        *path: str,
        options: dict[str, Any] | None = None,
        user: pl.FakeUser | int = pl.ALICE,
        channel_id: int | None = None,
        permissions: int | None = None,
        locale: str | None = None,
        **kw_options: Any,
    ) -> Calls:
        """Run ``/path... opt=value``; returns the HTTP calls the bot made while handling it.

        ``path`` is ``("league", "create")`` or ``"league create"``.  Options are keyword
        arguments (python or display names); use ``options={...}`` for options whose name
        clashes with ``user`` / ``channel_id`` / ``permissions`` / ``locale``.
        ``permissions`` overrides the member's computed permission integer."""
        payload = self.slash_payload(
            *path,
            options=options,
            user=user,
            channel_id=channel_id,
            permissions=permissions,
            locale=locale,
            **kw_options,
        )
        return await self.dispatch(payload)

    async def autocomplete(
        self,
        *path: str,
        focused: str,
        options: dict[str, Any] | None = None,
        user: pl.FakeUser | int = pl.ALICE,
        **kw_options: Any,
    ) -> list[dict[str, Any]]:
        """Type-4 interaction; returns the choices the bot answered with."""
        payload = self.slash_payload(
            *path, options=options, user=user, focused=focused, **kw_options
        )
        calls = await self.dispatch(payload)
        resp = calls.interaction_responses
        if not resp:
            raise AssertionError(f"bot did not answer the autocomplete: {list(calls)!r}")
        return list((resp[0].json.get("data") or {}).get("choices") or [])

    async def click(
        self,
        custom_id: str,
        *,
        message_id: int | None = None,
        user: pl.FakeUser | int = pl.ALICE,
        component_type: int = 2,
        values: list[str] | None = None,
        permissions: int | None = None,
    ) -> Calls:
        """Click the button ``custom_id`` on a message (default: the latest message the bot
        sent that has a component with that custom_id)."""
        if message_id is not None:
            message = self.backend.messages.get(int(message_id))
            if message is None:
                raise LookupError(f"unknown message id {message_id}")
        else:
            message = self.backend.find_message(custom_id)
        payload = pl.component_payload(
            self.world,
            custom_id,
            message=message,
            user=user,
            component_type=component_type,
            values=values,
            permissions=permissions,
        )
        return await self.dispatch(payload)

    async def select(self, custom_id: str, values: list[str], **kwargs: Any) -> Calls:
        """Choose ``values`` in the string select ``custom_id`` (component_type 3)."""
        return await self.click(custom_id, component_type=3, values=values, **kwargs)


def raise_for_status(status: int, body: Any) -> None:
    """Raise the discord.py exception the real HTTP layer would raise for ``status``."""
    if status < 300:
        return

    class _Resp:
        def __init__(self) -> None:
            self.status = status
            self.reason = {403: "Forbidden", 404: "Not Found"}.get(status, "Error")
            self.headers: dict[str, str] = {}

    resp = _Resp()
    if status == 403:
        raise discord.Forbidden(resp, body)
    if status == 404:
        raise discord.NotFound(resp, body)
    if status >= 500:
        raise discord.DiscordServerError(resp, body)
    raise discord.HTTPException(resp, body)


__all__ = [
    "BotError",
    "HTTPError",
    "InteractionAPI",
    "default_ignored_task",
    "raise_for_status",
    "wait_idle",
]
