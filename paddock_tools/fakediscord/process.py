"""The real bot in a child process against the loopback fake Discord of the test process.

A test can then SIGKILL the bot at any point and start a new one on the same database;
the fake Discord (messages, interactions, call log) lives on across restarts::

    async with RemoteFakeDiscord(world()) as fd:
        async with BotProcess(fd, db) as bot:
            await fd.slash("league", "create", name="Kill Cup", game="waddington")
            await bot.kill()
        async with BotProcess(fd, db):
            listed = await fd.slash("league", "list")

Shards: give each process ``PADDOCK_SHARD_COUNT`` / ``PADDOCK_SHARD_IDS`` in ``env`` (and one
database, e.g. a PostgreSQL URL as ``db``); an interaction goes to the process serving its
guild's shard, and its errors are read from that process's log::

    async with RemoteFakeDiscord(world, shard_count=2) as fd:
        env = {"PADDOCK_SHARD_COUNT": "2"}
        async with BotProcess(fd, url, env={**env, "PADDOCK_SHARD_IDS": "0"}), \
                BotProcess(fd, url, env={**env, "PADDOCK_SHARD_IDS": "1"}):
            ...

:meth:`RemoteFakeDiscord.slash` and friends build payloads from a command tree built in this
process (the bot is constructed but never started here), push INTERACTION_CREATE over the
websocket, wait for the interaction's callback and then for the REST traffic to go quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

from discord import app_commands

from bot.settings import parse_shard_ids

from . import payloads as pl
from .backend import Calls
from .base import BotError, check_errors
from .server import FakeDiscord, GatewaySession

ERROR_LEVELS = ("ERROR:", "CRITICAL:")  # prefixes of child log lines (see child.LOG_FORMAT)


class BotGone(BotError):
    """The bot's gateway connection closed before it answered the interaction (it was killed,
    or crashed).  ``calls`` holds what it sent before that."""


class ChildLogError(Exception):
    """An ERROR log record of the child, with the traceback lines that followed it."""


async def paddock_tree() -> app_commands.CommandTree:
    """Paddock's command tree, for building payloads; the bot is never started (and so never
    opens its database)."""
    from bot.client import cogs
    from paddock_tools.bots import make_bot

    bot = make_bot(Path(os.devnull))
    for extension in cogs():
        await bot.load_extension(extension)
    return bot.tree


class RemoteFakeDiscord(FakeDiscord):
    """A :class:`FakeDiscord` whose bot runs in another process (see :class:`BotProcess`)."""

    def __init__(
        self,
        world: pl.World | None = None,
        *,
        tree: app_commands.CommandTree | None = None,
        quiet: float = 0.3,
        timeout: float = 10.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(world, timeout=timeout, **kwargs)
        self.tree = tree
        self.quiet = quiet  # no REST call for this long = the bot is done with an interaction
        self.process: BotProcess | None = None  # the last started; its stderr gives errors
        self.processes: dict[int, BotProcess] = {}  # shard id -> the process started for it

    async def start(self) -> None:
        if self.tree is None:
            self.tree = await paddock_tree()
        await super().start()

    @property
    def _tree(self) -> app_commands.CommandTree:
        assert self.tree is not None, "start() the server first"
        return self.tree

    async def wait_quiet(self, quiet: float | None = None, timeout: float | None = None) -> None:
        """Wait until no REST call arrived for ``quiet`` seconds (at most ``timeout``); a bot
        that keeps calling (live countdown edits...) just ends the wait at the timeout."""
        quiet = self.quiet if quiet is None else quiet
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.timeout if timeout is None else timeout)
        seen = -1
        while len(self.backend.calls) != seen and loop.time() < deadline:
            seen = len(self.backend.calls)
            await asyncio.sleep(min(quiet, max(0.0, deadline - loop.time())))

    async def _connected_session(self, guild_id: int | None) -> GatewaySession:
        """The session of the guild's shard, once a client is connected on it (not while it
        is dropped: an interaction is sent to a live connection)."""
        while True:
            session = await self.session_for(guild_id)
            if session.ready.is_set():
                return session
            await self._until(
                lambda s=session: s.ready.is_set() or self.sessions.get(s.shard_id) is not s,
                None,
                f"shard {session.shard_id} not back",
            )

    async def _deliver(self, payload: dict[str, Any]) -> Calls:
        mark = self.backend.mark()
        guild_id = payload.get("guild_id")
        session = await self._connected_session(None if guild_id is None else int(guild_id))
        process = self.processes.get(session.shard_id, self.process)
        log_mark = len(process.log) if process else 0
        gone = session.gone  # the connection the interaction goes out on
        callback = f"^/interactions/{payload['id']}/{re.escape(payload['token'])}/callback$"
        answered = asyncio.ensure_future(
            self.backend.wait_for_call(
                method="POST", path=callback, since=mark, timeout=self.timeout
            )
        )
        closed = asyncio.ensure_future(gone.wait())
        try:
            await self._dispatch(session, "INTERACTION_CREATE", payload)
            await asyncio.wait({answered, closed}, return_when=asyncio.FIRST_COMPLETED)
            if not answered.done():
                raise BotGone(
                    "the bot disconnected before answering the interaction",
                    Calls(self.backend.calls[mark:]),
                )
            call = answered.result()  # TimeoutError when the bot never answered
            if int((call.json or {}).get("type") or 0) == 5:
                # "Thinking...": what the user waits for is the answer edited in (or a
                # followup); TimeoutError when it never comes.
                token = re.escape(payload["token"])
                shown = asyncio.ensure_future(
                    self.backend.wait_for_call(
                        lambda c: c.method in ("PATCH", "POST"),
                        path=rf"^/webhooks/\d+/{token}(/messages/@original)?$",
                        since=mark,
                        timeout=self.timeout,
                    )
                )
                try:
                    await asyncio.wait({shown, closed}, return_when=asyncio.FIRST_COMPLETED)
                    if not shown.done():
                        raise BotGone(
                            "the bot disconnected before its answer's result",
                            Calls(self.backend.calls[mark:]),
                        )
                    shown.result()
                finally:
                    shown.cancel()
        finally:
            answered.cancel()
            closed.cancel()
        if not gone.is_set():
            await self.wait_quiet()
        calls = Calls(self.backend.calls[mark:])
        if process is not None:
            await asyncio.sleep(0.05)  # stderr may trail the REST calls a little
            calls.errors = process.errors_since(log_mark)
        return check_errors(calls, self.raise_errors)


class BotProcess:
    """``python -m paddock_tools.fakediscord.child`` serving ``fd`` from the database ``db`` (a
    SQLite file, or a ``postgresql://`` URL).

    ``env`` is added to the environment (PADDOCK_* variables inherited from the test runner's
    shell are dropped first, so a developer's settings cannot leak in, but for where images
    are drawn, PADDOCK_IMAGE_PROCESSES); its
    PADDOCK_SHARD_COUNT / PADDOCK_SHARD_IDS are the shards the process serves.
    ``timer_reread``: how often the bot re-reads a shared (PostgreSQL) timer table, in
    seconds (the bot's own default otherwise). ``warm``: ready only once the bot's image
    caches are built (a bench measures a bot warmed up)."""

    def __init__(
        self,
        fd: RemoteFakeDiscord,
        db: Path | str,
        *,
        env: dict[str, str] | None = None,
        ready_timeout: float = 20.0,
        timer_reread: float | None = None,
        warm: bool = False,
    ) -> None:
        self.fd = fd
        self.db = db
        self.env = env or {}
        self.ready_timeout = ready_timeout
        self.timer_reread = timer_reread
        self.warm = warm
        count = self.env.get("PADDOCK_SHARD_COUNT")
        ids = self.env.get("PADDOCK_SHARD_IDS")
        if count:
            self.shard_ids = list(parse_shard_ids(ids, int(count)) if ids else range(int(count)))
        else:
            self.shard_ids = [0]  # no shards: one connection, shard 0 of 1
        self.proc: asyncio.subprocess.Process | None = None
        self.sessions: list[GatewaySession] = []  # the gateway sessions of its last start
        self.log: list[str] = []  # the child's stderr, line by line
        self._readers: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> BotProcess:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    async def start(self) -> None:
        """Spawn the child and wait until its bot is ready (fd has seen it IDENTIFY)."""
        if self.alive:
            raise RuntimeError("already running")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PADDOCK_")}
        if "PADDOCK_IMAGE_PROCESSES" in os.environ:  # where the runner's bots draw, kept
            env["PADDOCK_IMAGE_PROCESSES"] = os.environ["PADDOCK_IMAGE_PROCESSES"]
        env.update(self.env)
        self.log = []
        self.sessions = []
        self.fd.process = self
        self.fd.processes.update(dict.fromkeys(self.shard_ids, self))
        args = ["--api-base", self.fd.api_base, "--gateway", self.fd.gateway_url]
        args += ["--db", str(self.db)]
        if self.timer_reread is not None:
            args += ["--timer-reread", str(self.timer_reread)]
        if self.warm:
            args.append("--warm")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "paddock_tools.fakediscord.child",
            *args,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        # drain stderr all along: a full pipe would block the child
        self._readers = [asyncio.create_task(self._read_stderr(self.proc.stderr))]
        try:
            await asyncio.wait_for(self._wait_ready(self.proc.stdout), self.ready_timeout)
        except BaseException as e:
            await self.kill()
            raise RuntimeError(f"bot child not ready: {e!r}\n{self.stderr_tail()}") from e
        self._readers.append(asyncio.create_task(self._drain(self.proc.stdout)))

    async def _wait_ready(self, stdout: asyncio.StreamReader) -> None:
        from .child import READY_LINE

        while (line := await stdout.readline()) and line.decode().strip() != READY_LINE:
            pass
        if not line:
            raise EOFError(f"child exited with {await self.proc.wait()}")  # type: ignore[union-attr]
        # the child saw READY, so fd marked its sessions ready before; wait anyway, cheaply
        await self.fd.wait_shards(self.shard_ids)
        self.sessions = [self.fd.sessions[i] for i in self.shard_ids]

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.log.append(line.decode(errors="replace").rstrip("\n"))

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    def stderr_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log[-lines:])

    def errors_since(self, index: int) -> list[BaseException]:
        """ERROR/CRITICAL log records in ``log[index:]``, each with its traceback lines."""
        errors: list[list[str]] = []
        for line in self.log[index:]:
            if line.startswith(ERROR_LEVELS):
                errors.append([line])
            elif errors and not re.match(r"^[A-Z]+:", line):
                errors[-1].append(line)
        return [ChildLogError("\n".join(e)) for e in errors]

    async def kill(self) -> int:
        """SIGKILL the child (no clean-up runs in it) and wait for it to exit."""
        return await self._end(signal.SIGKILL)

    async def stop(self, timeout: float = 5.0) -> int:
        """SIGTERM: the child closes the bot (and its store); SIGKILL after ``timeout``."""
        return await self._end(signal.SIGTERM, timeout)

    async def _end(self, sig: int, timeout: float = 5.0) -> int:
        proc = self.proc
        if proc is None:
            return 0
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        # let the fake notice the dropped websockets, so that `fd.shard_connected(i)` is
        # False for this process's shards on return (and `fd.connected`, if it was alone)
        for session in self.sessions:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.gone.wait(), timeout)
        # the pipes close with the process; let the readers take the last lines
        if self._readers:
            await asyncio.wait(self._readers, timeout=timeout)
        for task in self._readers:
            task.cancel()
        assert proc.returncode is not None
        return proc.returncode


__all__ = ["BotGone", "BotProcess", "ChildLogError", "RemoteFakeDiscord", "paddock_tree"]
