"""The fake Discord REST backend: records every request and answers it realistically.

It is transport agnostic: the in-process driver calls :meth:`Backend.handle` from patched
``HTTPClient.request`` / ``AsyncWebhookAdapter.request``; the loopback server calls it from
its aiohttp handler.  Both therefore record identical :class:`Call` objects.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import itertools
import json as _json
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import discord

from . import payloads as pl
from .events import ScheduledEvents

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# --------------------------------------------------------------------------- records


@dataclass
class SentFile:
    """A file the bot uploaded in a multipart request."""

    field: str  # form field name, e.g. "files[0]"
    filename: str
    data: bytes
    content_type: str | None = None

    @property
    def is_png(self) -> bool:
        return self.data.startswith(PNG_MAGIC)


def _walk_components(components: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    for comp in components or []:
        yield comp
        yield from _walk_components(comp.get("components") or [])
        if isinstance(comp.get("accessory"), dict):
            yield from _walk_components([comp["accessory"]])


_KINDS: list[tuple[str, str, re.Pattern[str]]] = [
    (m, k, re.compile(p))
    for m, k, p in [
        ("POST", "interaction_response", r"^/interactions/\d+/[^/]+/callback$"),
        ("POST", "followup", r"^/webhooks/\d+/[^/]+$"),
        ("PATCH", "edit_original", r"^/webhooks/\d+/[^/]+/messages/@original$"),
        ("DELETE", "delete_original", r"^/webhooks/\d+/[^/]+/messages/@original$"),
        ("PATCH", "edit_followup", r"^/webhooks/\d+/[^/]+/messages/\d+$"),
        ("DELETE", "delete_followup", r"^/webhooks/\d+/[^/]+/messages/\d+$"),
        ("POST", "channel_message", r"^/channels/\d+/messages$"),
        ("PATCH", "edit_message", r"^/channels/\d+/messages/\d+$"),
        ("DELETE", "delete_message", r"^/channels/\d+/messages/\d+$"),
        ("POST", "create_thread", r"^/channels/\d+(/messages/\d+)?/threads$"),
    ]
]

# interaction callback types that carry a message body in ``data``
_MESSAGE_CALLBACK_TYPES = {4, 7}
_MESSAGE_KINDS = {"followup", "edit_original", "edit_followup", "channel_message", "edit_message"}


@dataclass
class Call:
    """One HTTP request the bot made, as the fake Discord saw it."""

    seq: int
    method: str
    path: str  # formatted, without the /api/v10 prefix: "/channels/123/messages"
    json: Any = None  # JSON body, or the parsed ``payload_json`` of a multipart body
    files: list[SentFile] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)
    status: int = 200
    response: Any = None
    message: dict[str, Any] | None = None  # message object created / edited by this call
    at: float = field(default_factory=time.perf_counter)  # when the fake received it

    # -- classification
    @property
    def kind(self) -> str:
        for method, kind, rx in _KINDS:
            if self.method == method and rx.match(self.path):
                return kind
        return "other"

    @property
    def is_interaction_response(self) -> bool:
        return self.kind == "interaction_response"

    @property
    def response_type(self) -> int | None:
        """Interaction callback type (4 message, 5 deferred, 6 deferred update, 7 update, ...)."""
        if self.is_interaction_response and isinstance(self.json, dict):
            return int(self.json["type"])
        return None

    @property
    def is_message(self) -> bool:
        """Whether this call carries a message body (response, followup, edit, channel send)."""
        if self.is_interaction_response:
            return self.response_type in _MESSAGE_CALLBACK_TYPES
        return self.kind in _MESSAGE_KINDS

    # -- message body accessors
    @property
    def body(self) -> dict[str, Any]:
        """The message body sent (``data`` of a callback, the JSON otherwise)."""
        if self.is_interaction_response:
            return (self.json or {}).get("data") or {}
        return self.json if isinstance(self.json, dict) else {}

    @property
    def content(self) -> str | None:
        return self.body.get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.body.get("embeds") or [])

    @property
    def embed(self) -> discord.Embed | None:
        """The first embed as a :class:`discord.Embed` (None if there is none)."""
        return discord.Embed.from_dict(self.embeds[0]) if self.embeds else None

    @property
    def flags(self) -> int:
        return int(self.body.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Ephemeral as Discord would show it (edits inherit the original's flag)."""
        if self.message is not None:
            return bool(int(self.message.get("flags") or 0) & 64)
        return bool(self.flags & 64)

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.body.get("components") or [])

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in _walk_components(self.components) if "custom_id" in c]

    @property
    def file(self) -> SentFile | None:
        return self.files[0] if self.files else None

    @property
    def channel_id(self) -> int | None:
        if self.message is not None:
            return int(self.message["channel_id"])
        m = re.match(r"^/channels/(\d+)", self.path)
        return int(m.group(1)) if m else None

    def __repr__(self) -> str:
        extra = ""
        if self.response_type is not None:
            extra += f" type={self.response_type}"
        if self.is_message:
            extra += f" content={self.content!r} embeds={len(self.embeds)} eph={self.ephemeral}"
        if self.files:
            extra += f" files={[f.filename for f in self.files]}"
        return f"<Call #{self.seq} {self.method} {self.path}{extra}>"


class Calls(list[Call]):
    """A list of :class:`Call` with convenience accessors for assertions.

    ``errors`` holds exceptions raised by the bot's handler tasks and ERROR log records
    emitted by discord.py / the bot while the interaction was handled."""

    errors: list[Any]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.errors = []

    def filter(
        self, method: str | None = None, path: str | None = None, kind: str | None = None
    ) -> Calls:
        """Calls matching ``method``, ``path`` (regex, ``re.search``) and ``kind``."""
        return Calls(
            c
            for c in self
            if (method is None or c.method == method.upper())
            and (path is None or re.search(path, c.path))
            and (kind is None or c.kind == kind)
        )

    @property
    def messages(self) -> Calls:
        return Calls(c for c in self if c.is_message)

    @property
    def interaction_responses(self) -> Calls:
        return Calls(c for c in self if c.is_interaction_response)

    @property
    def last(self) -> Call:
        """The last message-carrying call (response, followup, edit or channel send)."""
        msgs = self.messages
        if not msgs:
            raise AssertionError(f"no message was sent; calls: {list(self)!r}")
        return msgs[-1]

    @property
    def response(self) -> Call:
        """The (single) interaction callback."""
        resp = self.interaction_responses
        if not resp:
            raise AssertionError(f"no interaction response; calls: {list(self)!r}")
        return resp[0]

    @property
    def answer(self) -> Call:
        """What the user read as the answer to their interaction (the first in these calls):
        the callback if it carries a message, else (a deferred answer) the last follow-up
        or edit of the original."""
        answers = self.answers
        if not answers:
            raise AssertionError(f"no interaction was answered; calls: {list(self)!r}")
        return answers[0]

    @property
    def answers(self) -> list[Call]:
        """`answer` of every interaction answered in these calls, in order (calls of
        interactions handled at once overlap: this tells them apart by token)."""
        out = []
        for resp in self.interaction_responses:
            token = resp.path.split("/")[3]
            later = [
                c
                for c in self
                if c.kind in ("followup", "edit_original") and c.path.split("/")[3] == token
            ]
            if resp.response_type in _MESSAGE_CALLBACK_TYPES or not later:
                out.append(resp)
            else:
                out.append(later[-1])
        return out

    # shortcuts for the last message
    @property
    def content(self) -> str | None:
        return self.last.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.last.embeds

    @property
    def ephemeral(self) -> bool:
        return self.last.ephemeral

    @property
    def files(self) -> list[SentFile]:
        return [f for c in self for f in c.files]

    @property
    def custom_ids(self) -> list[str]:
        return [cid for c in self.messages for cid in c.custom_ids]


# --------------------------------------------------------------------------- request parsing


def parse_form(entries: Iterable[dict[str, Any]]) -> tuple[Any, list[SentFile]]:
    """Split discord.py's multipart ``form`` list into (payload_json, files)."""
    payload: Any = None
    files: list[SentFile] = []
    for entry in entries:
        name = entry.get("name")
        value = entry.get("value")
        if name == "payload_json":
            payload = _json.loads(value) if isinstance(value, str | bytes) else value
            continue
        data = _read_value(value)
        files.append(
            SentFile(
                field=str(name),
                filename=str(entry.get("filename") or name),
                data=data,
                content_type=entry.get("content_type"),
            )
        )
    return payload, files


def _read_value(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if hasattr(value, "read"):
        pos = value.tell() if hasattr(value, "tell") else None
        data = value.read()
        if pos is not None and hasattr(value, "seek"):
            value.seek(pos)
        return data if isinstance(data, bytes) else str(data).encode()
    return bytes(value)


def strip_api_prefix(url: str) -> tuple[str, dict[str, str]]:
    """``https://host/api/v10/channels/1?x=y`` -> (``/channels/1``, {x: y})."""
    from urllib.parse import parse_qsl, urlsplit

    parts = urlsplit(url)
    path = re.sub(r"^/api(/v\d+)?", "", parts.path)
    return path, dict(parse_qsl(parts.query))


# --------------------------------------------------------------------------- backend


@dataclass
class InteractionInfo:
    id: int
    token: str
    type: int
    channel_id: int
    source_message_id: int | None = None  # for component interactions
    original_message_id: int | None = None  # the "@original" response message
    responded: bool = False
    user: dict[str, Any] = field(default_factory=lambda: {"id": "0", "username": "unknown"})


class HTTPError(Exception):
    """Raise from a custom handler to answer with an error status."""

    def __init__(self, status: int, message: str = "error", code: int = 0):
        super().__init__(message)
        self.status = status
        self.body = {"message": message, "code": code}


# Discord's JSON error codes the fake answers with (https://discord.com/developers/docs/topics/
# opcodes-and-status-codes#json-json-error-codes)
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
ERROR_MESSAGES = {
    UNKNOWN_CHANNEL: "Unknown Channel",
    UNKNOWN_MESSAGE: "Unknown Message",
    UNKNOWN_WEBHOOK: "Unknown Webhook",
    UNKNOWN_INTERACTION: "Unknown interaction",
    MISSING_PERMISSIONS: "Missing Permissions",
    THREAD_ARCHIVED: "Thread is archived",
}


@dataclass
class Fault:
    """An error the fake answers instead of the real response (see :meth:`Backend.fail_next`).

    ``hits`` holds the calls it answered; ``left`` how many more it will (None: all)."""

    method: str | None
    path: re.Pattern[str]
    status: int
    code: int = 0
    message: str = ""
    retry_after: float | None = None
    left: int | None = 1
    hits: Calls = field(default_factory=lambda: Calls())

    def matches(self, call: Call) -> bool:
        return (
            (self.left is None or self.left > 0)
            and (self.method is None or self.method == call.method)
            and self.path.search(call.path) is not None
        )

    def body(self) -> dict[str, Any]:
        if self.status == 429:
            return {
                "message": self.message or "You are being rate limited.",
                "retry_after": self.retry_after if self.retry_after is not None else 0.1,
                "global": False,
                "code": self.code,
            }
        message = self.message or ERROR_MESSAGES.get(self.code) or f"error {self.status}"
        return {"message": message, "code": self.code}


Handler = Callable[..., Any | Awaitable[Any]]


class Backend:
    """Recorder + responder for the fake Discord REST API."""

    def __init__(self, world: pl.World | None = None, *, url_base: str = ""):
        self.world = world or pl.World.default()
        self.url_base = url_base or "https://cdn.fakediscord.invalid"
        self.gateway_url = "wss://gateway.fakediscord.invalid"  # the loopback server sets both
        self.shard_count = 1  # what GET /gateway/bot recommends
        self.calls: Calls = Calls()
        self.messages: dict[int, dict[str, Any]] = {}
        self.attachments: dict[str, bytes] = {}  # attachment url -> bytes
        self.interactions: dict[str, InteractionInfo] = {}  # token -> info
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.threads: dict[int, dict[str, Any]] = {}
        self.dm_channels: dict[int, dict[str, Any]] = {}
        self.unhandled: Calls = Calls()
        self.faults: list[Fault] = []
        self.deleted_channels: set[int] = set()
        self._seq = itertools.count(1)
        self._handlers: list[tuple[str, re.Pattern[str], Handler]] = []
        self._waiters: list[tuple[Callable[[Call], bool], asyncio.Future[Call]]] = []
        self.scheduled_events = ScheduledEvents(self.world)
        self._routes = self._builtin_routes()

    # -- customisation
    def on(self, method: str, path: str, handler: Handler) -> None:
        """Register a custom responder, tried before the built-in ones.

        ``path`` is a template (``/guilds/{guild_id}/roles``) or a regex.  ``handler(call,
        **path_params)`` returns the JSON body (``(status, body)`` tuple also accepted), may be
        async, and may raise :class:`HTTPError`.
        """
        self._handlers.insert(0, (method.upper(), _compile(path), handler))

    # -- faults
    def fail_next(
        self,
        path: str,
        status: int,
        code: int = 0,
        *,
        method: str | None = None,
        message: str = "",
        retry_after: float | None = None,
        times: int | None = 1,
    ) -> Fault:
        """Answer the next ``times`` calls (None: every call from now on) whose path matches
        the regex ``path`` (``re.search``; and ``method``, if given) with ``status`` and
        Discord's JSON error ``code``, instead of the real answer. A 429 carries
        ``retry_after`` (seconds) in its body and a ``Retry-After`` header, as Discord's do::

            backend.fail_next(r"/channels/\\d+/messages$", 429, retry_after=0.2, method="POST")
            backend.fail_next(r"/interactions/.*/callback$", 404, UNKNOWN_INTERACTION)

        Returns the :class:`Fault`; its ``hits`` are the calls it answered."""
        fault = Fault(
            method=method.upper() if method else None,
            path=re.compile(path),
            status=status,
            code=code,
            message=message,
            retry_after=retry_after,
            left=times,
        )
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.faults.clear()

    def delete_message(self, message_id: int) -> dict[str, Any]:
        """A moderator deletes a message: editing or fetching it answers 404 Unknown Message.
        Returns the message as it was (a client may still hold it, e.g. to click it)."""
        return self.messages.pop(int(message_id))

    def archive_thread(self, thread_id: int, *, locked: bool = False) -> dict[str, Any]:
        """A thread is archived (``locked``: by a moderator, so that only someone with Manage
        Threads may reopen it). Posting or editing in it answers 400 "Thread is archived"
        until a ``PATCH /channels/{id}`` with ``archived: false`` reopens it (refused with 403
        Missing Permissions when locked and the bot has no Manage Threads, see ``revoke``;
        archiving one takes it too). Returns the thread payload, e.g. for a THREAD_UPDATE."""
        meta = self.threads[int(thread_id)]["thread_metadata"]
        meta.update(archived=True, locked=locked, archive_timestamp=pl.iso_now())
        return self.threads[int(thread_id)]

    def delete_channel(self, channel_id: int) -> dict[str, Any]:
        """A thread or channel is deleted, with its messages: every call on it answers 404
        Unknown Channel. Returns its payload (for a THREAD_DELETE / CHANNEL_DELETE)."""
        cid = int(channel_id)
        found = self.threads.pop(cid, None) or self.world.channels.pop(cid, None)
        if found is None:
            raise LookupError(f"no channel {cid}")
        self.deleted_channels.add(cid)
        for mid in [m for m, msg in self.messages.items() if int(msg["channel_id"]) == cid]:
            del self.messages[mid]
        return found

    def revoke(self, channel_id: int, *permissions: str) -> None:
        """Take permissions (``"send_messages"``, ``"send_messages_in_threads"``,
        ``"attach_files"``...) from the bot in a channel (and so in its threads): posting
        without them answers 403 Missing Permissions, as Discord does; interaction payloads'
        ``app_permissions`` leave them out. :meth:`grant` gives them back."""
        bits = discord.Permissions(**{p: True for p in permissions}).value
        self.world.revoked[int(channel_id)] = self.world.revoked.get(int(channel_id), 0) | bits

    def grant(self, channel_id: int, *permissions: str) -> None:
        bits = discord.Permissions(**{p: True for p in permissions}).value
        left = self.world.revoked.get(int(channel_id), 0) & ~bits
        self.world.revoked[int(channel_id)] = left

    def bot_can(self, channel_id: int, permission: str) -> bool:
        parent = self.threads.get(int(channel_id), {}).get("parent_id")
        allowed = self.world.bot_permissions_in(int(channel_id), int(parent) if parent else None)
        return bool(getattr(discord.Permissions(allowed), permission))

    def _check_channel(self, call: Call) -> None:
        """The faults of a channel: deleted, archived thread, missing permissions."""
        m = re.match(r"^/channels/(\d+)(/.*)?$", call.path)
        if m is None:
            return
        cid, rest = int(m.group(1)), m.group(2) or ""
        if cid in self.deleted_channels:
            raise HTTPError(404, "Unknown Channel", UNKNOWN_CHANNEL)
        thread = self.threads.get(cid)
        on_message = rest.startswith("/messages")
        archived = thread is not None and thread["thread_metadata"].get("archived")
        if archived and on_message and call.method in ("POST", "PATCH", "DELETE"):
            raise HTTPError(400, "Thread is archived", THREAD_ARCHIVED)
        if call.method == "POST" and rest == "/messages":
            needed = "send_messages_in_threads" if thread is not None else "send_messages"
            if not self.bot_can(cid, needed):
                raise HTTPError(403, "Missing Permissions", MISSING_PERMISSIONS)
        uploads = on_message and call.method in ("POST", "PATCH") and bool(call.files)
        if uploads and not self.bot_can(cid, "attach_files"):
            raise HTTPError(403, "Missing Permissions", MISSING_PERMISSIONS)

    # -- interactions
    def register_interaction(self, payload: dict[str, Any]) -> InteractionInfo:
        msg = payload.get("message")
        info = InteractionInfo(
            id=int(payload["id"]),
            token=payload["token"],
            type=int(payload["type"]),
            channel_id=int(payload.get("channel_id") or self.world.default_channel_id),
            source_message_id=int(msg["id"]) if msg else None,
        )
        user = (payload.get("member") or {}).get("user") or payload.get("user")
        if user:
            info.user = user
        self.interactions[info.token] = info
        return info

    def find_message(self, custom_id: str) -> dict[str, Any]:
        """The most recent stored message with a component whose custom_id matches."""
        for msg in reversed(list(self.messages.values())):
            for comp in _walk_components(msg.get("components") or []):
                if comp.get("custom_id") == custom_id:
                    return msg
        raise LookupError(f"no message with a component custom_id={custom_id!r}")

    # -- waiting
    def mark(self) -> int:
        """An index into :attr:`calls`; pass to :meth:`wait_for_call` as ``since``."""
        return len(self.calls)

    async def wait_for_call(
        self,
        predicate: Callable[[Call], bool] | None = None,
        *,
        method: str | None = None,
        path: str | None = None,
        kind: str | None = None,
        since: int | None = None,
        timeout: float = 5.0,
    ) -> Call:
        """Wait for a call matching ``predicate`` / ``method`` / ``path`` regex / ``kind``.

        Calls recorded at or after index ``since`` count (default: only future calls)."""

        def match(c: Call) -> bool:
            return bool(
                (method is None or c.method == method.upper())
                and (path is None or re.search(path, c.path))
                and (kind is None or c.kind == kind)
                and (predicate is None or predicate(c))
            )

        if since is not None:
            for c in self.calls[since:]:
                if match(c):
                    return c
        fut: asyncio.Future[Call] = asyncio.get_running_loop().create_future()
        entry = (match, fut)
        self._waiters.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"no call matching method={method} path={path} kind={kind} within {timeout}s; "
                f"calls so far: {list(self.calls)!r}"
            ) from None
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    # -- the entry point
    async def handle(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        files: list[SentFile] | None = None,
        params: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        call = Call(
            seq=next(self._seq),
            method=method.upper(),
            path=path,
            json=json,
            files=list(files or []),
            params={k: str(v) for k, v in (params or {}).items()},
        )
        fault = next((f for f in self.faults if f.matches(call)), None)
        try:
            if fault is not None:
                if fault.left is not None:
                    fault.left -= 1
                fault.hits.append(call)
                status, body = fault.status, fault.body()
            else:
                self._check_channel(call)
                status, body = await self._respond(call)
        except HTTPError as e:
            status, body = e.status, e.body
        call.status, call.response = status, body
        self.calls.append(call)
        for match, fut in list(self._waiters):
            if not fut.done() and match(call):
                fut.set_result(call)
        return status, body

    async def _respond(self, call: Call) -> tuple[int, Any]:
        for method, rx, handler in self._handlers + self._routes:
            if method != call.method:
                continue
            m = rx.match(call.path)
            if m is None:
                continue
            result = handler(call, **m.groupdict())
            if inspect.isawaitable(result):
                result = await result
            if isinstance(result, tuple):
                return result
            return (204 if result is None else 200), result
        self.unhandled.append(call)
        if call.method == "DELETE":
            return 204, None
        return 200, {}

    # ------------------------------------------------------------------ built-in routes
    def _builtin_routes(self) -> list[tuple[str, re.Pattern[str], Handler]]:
        r: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", lambda c: self.world.bot_user.user_payload()),
            ("GET", "/oauth2/applications/@me", lambda c: self.world.application_payload()),
            ("GET", "/applications/{app}/commands", self._get_commands),
            ("PUT", "/applications/{app}/commands", self._put_commands),
            ("POST", "/applications/{app}/commands", self._post_command),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self._get_commands),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self._put_commands),
            ("POST", "/applications/{app}/guilds/{guild}/commands", self._post_command),
            ("POST", "/interactions/{iid}/{token}/callback", self._interaction_callback),
            ("POST", "/webhooks/{app}/{token}", self._followup),
            ("GET", "/webhooks/{app}/{token}/messages/{mid}", self._get_webhook_message),
            ("PATCH", "/webhooks/{app}/{token}/messages/{mid}", self._edit_webhook_message),
            ("DELETE", "/webhooks/{app}/{token}/messages/{mid}", self._delete_webhook_message),
            ("POST", "/channels/{cid}/messages", self._channel_send),
            ("GET", "/channels/{cid}/messages/{mid}", self._get_message),
            ("PATCH", "/channels/{cid}/messages/{mid}", self._edit_message),
            ("DELETE", "/channels/{cid}/messages/{mid}", self._delete_message),
            ("POST", "/channels/{cid}/messages/{mid}/threads", self._create_thread),
            ("POST", "/channels/{cid}/threads", self._create_thread),
            ("PUT", r"^/channels/\d+/messages/\d+/reactions/.*$", lambda c: None),
            ("DELETE", r"^/channels/\d+/messages/\d+/reactions/.*$", lambda c: None),
            ("PUT", r"^/channels/\d+/thread-members/.*$", lambda c: None),
            ("POST", "/channels/{cid}/typing", lambda c, cid: None),
            ("GET", "/channels/{cid}", self._get_channel),
            ("PATCH", "/channels/{cid}", self._edit_channel),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/users/{uid}", self._get_user),
            ("GET", "/guilds/{gid}/members/{uid}", self._get_member),
            ("PUT", "/guilds/{gid}/members/{uid}/roles/{rid}", self._member_role),
            ("DELETE", "/guilds/{gid}/members/{uid}/roles/{rid}", self._member_role),
            ("GET", "/guilds/{gid}/channels", lambda c, gid: self._guild(gid, "channels")),
            ("GET", "/guilds/{gid}/roles", lambda c, gid: self._guild(gid, "roles")),
            ("GET", "/guilds/{gid}", lambda c, gid: self._guild(gid, None)),
            ("GET", "/gateway/bot", self._gateway_bot),
            *self.scheduled_events.routes(),
        ]
        return [(m, _compile(p), h) for m, p, h in r]

    def _guild(self, gid: str, part: str | None) -> Any:
        # a guild the world does not know: the world's own, as before guilds were added
        guild = int(gid) if int(gid) in self.world.guild_ids else self.world.guild_id
        if part == "channels":
            return self.world.channels_of(guild)
        if part == "roles":
            return self.world.roles_of(guild)
        return self.world.guild_payload(guild)

    def _gateway_bot(self, call: Call) -> dict[str, Any]:
        """GET /gateway/bot: where to connect and the shard count Discord recommends (the
        count the test gave the fake)."""
        return {
            "url": self.gateway_url,
            "shards": self.shard_count,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    # commands
    def _get_commands(self, call: Call, app: str, guild: str | None = None) -> list:
        return self.commands.get(int(guild) if guild else None, [])

    def _echo_command(self, cmd: dict[str, Any], guild: str | None) -> dict[str, Any]:
        out = {
            "id": str(pl.command_id_for(cmd["name"])),
            "application_id": str(self.world.application_id),
            "version": str(pl.snowflake()),
            "default_member_permissions": None,
            "type": 1,
            "nsfw": False,
            "description": "",
            "options": [],
            **cmd,
        }
        if guild:
            out["guild_id"] = guild
        return out

    def _put_commands(self, call: Call, app: str, guild: str | None = None) -> list:
        out = [self._echo_command(cmd, guild) for cmd in call.json or []]
        self.commands[int(guild) if guild else None] = out
        return out

    def _post_command(self, call: Call, app: str, guild: str | None = None) -> dict:
        out = self._echo_command(call.json, guild)
        key = int(guild) if guild else None
        self.commands[key] = [c for c in self.commands.get(key, []) if c["name"] != out["name"]]
        self.commands[key].append(out)
        return out

    # messages
    def _attachments_for(self, call: Call) -> list[dict[str, Any]]:
        described = {
            str(a.get("id")): a for a in (call.body.get("attachments") or []) if isinstance(a, dict)
        }
        out = []
        for idx, f in enumerate(call.files):
            att = pl.attachment_payload(
                f.filename, f.data, url_base=self.url_base, content_type=f.content_type
            )
            desc = described.get(str(idx), {})
            if desc.get("description"):
                att["description"] = desc["description"]
            self.attachments[att["url"]] = f.data
            out.append(att)
        return out

    def _store(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.messages[int(msg["id"])] = msg
        return msg

    def _new_message(
        self, call: Call, channel_id: int, body: dict[str, Any], info: InteractionInfo | None
    ) -> dict[str, Any]:
        meta = None
        if info is not None:
            meta = {
                "id": str(info.id),
                "type": info.type,
                "user": info.user,
                "authorizing_integration_owners": {},
            }
        msg = pl.message_payload(
            self.world,
            channel_id=channel_id,
            body=body,
            attachments=self._attachments_for(call),
            webhook_id=self.world.application_id if info is not None else None,
            interaction=meta,
        )
        if channel_id in self.threads:
            msg["guild_id"] = str(self.world.guild_of(channel_id))
        return self._store(msg)

    def _info(self, token: str) -> InteractionInfo:
        info = self.interactions.get(token)
        if info is None:
            raise HTTPError(404, "Unknown interaction", 10062)
        return info

    def _interaction_callback(self, call: Call, iid: str, token: str) -> dict[str, Any]:
        info = self._info(token)
        if info.responded:
            raise HTTPError(400, "Interaction has already been acknowledged.", 40060)
        info.responded = True
        rtype = int(call.json["type"])
        data = call.body
        flags = int(data.get("flags") or 0)
        message: dict[str, Any] | None = None
        if rtype == 4:
            message = self._new_message(call, info.channel_id, data, info)
            info.original_message_id = int(message["id"])
        elif rtype == 5:
            body = {"flags": (flags & 64) | 128}
            message = self._new_message(call, info.channel_id, body, info)
            info.original_message_id = int(message["id"])
        elif rtype in (6, 7) and info.source_message_id is not None:
            info.original_message_id = info.source_message_id
            if rtype == 7:
                message = self.messages.get(info.source_message_id)
                if message is not None:
                    pl.apply_message_edit(message, data, self._attachments_for(call))
        call.message = message
        eph = bool(int((message or {}).get("flags") or flags) & 64)
        inter: dict[str, Any] = {
            "id": str(info.id),
            "type": info.type,
            "response_message_loading": rtype == 5,
            "response_message_ephemeral": eph,
        }
        out: dict[str, Any] = {"interaction": inter}
        if message is not None:
            inter["response_message_id"] = message["id"]
            out["resource"] = {"type": rtype, "message": message}
        elif rtype not in (6, 8):
            out["resource"] = {"type": rtype}
        return out

    def _followup(self, call: Call, app: str, token: str) -> dict[str, Any] | None:
        info = self._info(token)
        loading = self.messages.get(info.original_message_id or 0)
        if loading is not None and int(loading.get("flags") or 0) & 128:
            # As Discord does: the first followup after a deferred ("thinking…") answer takes
            # that message's place, and its visibility: the followup's own ephemeral flag is
            # ignored (a refusal after a public "thinking…" would be shown to everyone).
            pl.apply_message_edit(loading, call.body, self._attachments_for(call))
            call.message = loading
            return loading
        msg = self._new_message(call, info.channel_id, call.body, info)
        call.message = msg
        return msg

    def _webhook_message_id(self, token: str, mid: str) -> int:
        if mid == "@original":
            info = self._info(token)
            if info.original_message_id is None:
                raise HTTPError(404, "Unknown Message", 10008)
            return info.original_message_id
        return int(mid)

    def _lookup(self, message_id: int) -> dict[str, Any]:
        msg = self.messages.get(message_id)
        if msg is None:
            raise HTTPError(404, "Unknown Message", 10008)
        return msg

    def _get_webhook_message(self, call: Call, app: str, token: str, mid: str) -> dict:
        return self._lookup(self._webhook_message_id(token, mid))

    def _edit_webhook_message(self, call: Call, app: str, token: str, mid: str) -> dict:
        msg = self._lookup(self._webhook_message_id(token, mid))
        pl.apply_message_edit(msg, call.body, self._attachments_for(call))
        call.message = msg
        return msg

    def _delete_webhook_message(self, call: Call, app: str, token: str, mid: str) -> None:
        self.messages.pop(self._webhook_message_id(token, mid), None)

    def _channel_send(self, call: Call, cid: str) -> dict[str, Any]:
        msg = self._new_message(call, int(cid), call.body, None)
        call.message = msg
        return msg

    def _get_message(self, call: Call, cid: str, mid: str) -> dict[str, Any]:
        return self._lookup(int(mid))

    def _edit_message(self, call: Call, cid: str, mid: str) -> dict[str, Any]:
        msg = self._lookup(int(mid))
        pl.apply_message_edit(msg, call.body, self._attachments_for(call))
        call.message = msg
        return msg

    def _delete_message(self, call: Call, cid: str, mid: str) -> None:
        self.messages.pop(int(mid), None)

    def _create_thread(self, call: Call, cid: str, mid: str | None = None) -> dict[str, Any]:
        body = call.body
        thread = pl.thread_payload(
            self.world,
            parent_id=int(cid),
            name=body.get("name", "thread"),
            thread_id=int(mid) if mid else None,
            type_=int(body.get("type") or 11),
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        self.threads[int(thread["id"])] = thread
        self.world.thread_parents[int(thread["id"])] = int(cid)
        if "message" in body:  # forum post
            first = self._new_message(call, int(thread["id"]), body["message"], None)
            thread["message"] = first
        return thread

    def _get_channel(self, call: Call, cid: str) -> dict[str, Any]:
        c = int(cid)
        found = self.world.channels.get(c) or self.threads.get(c) or self.dm_channels.get(c)
        if found is None:
            raise HTTPError(404, "Unknown Channel", 10003)
        return found

    def _edit_channel(self, call: Call, cid: str) -> dict[str, Any]:
        c = int(cid)
        thread = self.threads.get(c)
        if thread is None:
            found = self.world.channels.get(c)
            if found is None:
                raise HTTPError(404, "Unknown Channel", UNKNOWN_CHANNEL)
            found.update({k: v for k, v in (call.json or {}).items() if k in ("name", "topic")})
            return found
        body = call.json or {}
        meta = thread["thread_metadata"]
        # Archiving, locking or changing a locked thread takes Manage Threads; reopening an
        # unlocked thread only Send Messages (Discord's Modify Channel for threads).
        managing = body.get("archived") is True or "locked" in body or meta.get("locked")
        changes = "archived" in body or "locked" in body
        if managing and changes and not self.bot_can(c, "manage_threads"):
            raise HTTPError(403, "Missing Permissions", MISSING_PERMISSIONS)
        for key in ("archived", "locked", "auto_archive_duration", "invitable"):
            if key in body:
                meta[key] = body[key]
        if "name" in body:
            thread["name"] = body["name"]
        return thread

    def _create_dm(self, call: Call) -> dict[str, Any]:
        uid = int(call.json["recipient_id"])
        user = self.world.users.get(uid) or pl.FakeUser(uid, f"user{uid}")
        ch: dict[str, Any] = {
            "id": str(pl.snowflake()),
            "type": 1,
            "last_message_id": None,
            "recipients": [user.user_payload()],
        }
        self.dm_channels[int(ch["id"])] = ch
        return ch

    def _get_user(self, call: Call, uid: str) -> dict[str, Any]:
        user = self.world.users.get(int(uid))
        if user is None:
            raise HTTPError(404, "Unknown User", 10013)
        return user.user_payload()

    def _get_member(self, call: Call, gid: str, uid: str) -> dict[str, Any]:
        if int(uid) not in self.world.users:
            raise HTTPError(404, "Unknown Member", 10007)
        return self.world.member_payload(int(uid))

    def _member_role(self, call: Call, gid: str, uid: str, rid: str) -> tuple[int, None]:
        """Give (PUT) or take (DELETE) a member's role, as Discord does: the bot needs Manage
        Roles (taken from it server-wide by `revoke(guild_id, "manage_roles")`) and may only
        manage roles below its own highest."""
        if int(uid) not in self.world.users:
            raise HTTPError(404, "Unknown Member", 10007)
        role = self.world.roles.get(int(rid))
        if role is None:
            raise HTTPError(404, "Unknown Role", 10011)
        allowed = pl.BOT_PERMISSIONS & ~self.world.revoked.get(int(gid), 0)
        top = max(
            int(self.world.roles[r].get("position", 0))
            for r in self.world.bot_user.roles
            if r in self.world.roles
        )
        if not allowed & discord.Permissions(manage_roles=True).value or (
            int(role.get("position", 0)) >= top or role.get("managed")
        ):
            raise HTTPError(403, "Missing Permissions", 50013)
        user = self.world.users[int(uid)]
        roles = (
            set(user.roles) | {int(rid)} if call.method == "PUT" else set(user.roles) - {int(rid)}
        )
        self.world.users[int(uid)] = dataclasses.replace(user, roles=tuple(sorted(roles)))
        return 204, None


def _compile(path: str) -> re.Pattern[str]:
    if path.startswith("^"):
        return re.compile(path)
    rx = re.sub(
        r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(path).replace(r"\{", "{").replace(r"\}", "}")
    )
    return re.compile(f"^{rx}$")
