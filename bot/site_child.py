"""The league site beside the bot, in a child process of its own (`paddock run` with
PADDOCK_WEB_PORT): `paddock web` (web/server.py) started by the bot on the bot's database,
read-only, with the PADDOCK_WEB_* settings, so that its pages' CPU and the GIL are never the
bot's (docs/performance.md, issue 26).

`SiteChild` starts it, logs its end and starts it again after a back-off (1 s, doubling to a
minute; back to 1 s after a minute alive), and stops it with the bot: SIGTERM, then SIGKILL
after `stop_timeout`. A bot killed outright leaves no site behind: the child asks Linux to
SIGTERM it when its parent dies (`prctl(PR_SET_PDEATHSIG)`) and polls its parent's id too.
It runs at a lower CPU priority than the bot (SITE_NICE): where the two want the same core,
the driver's answer comes first. Its log lines go where the bot's go (the same stderr, the
same format). This module does not
import the site: the child does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

import bot
from bot.settings import Settings

log = logging.getLogger("paddock.web")

BACKOFF_S = (1.0, 60.0)  # the first wait before a restart, and the longest
# The child's CPU priority below the bot's (`paddock web --nice`): on a machine short of
# cores, a page waits for the CPU, not a driver's answer (docs/performance.md, issue 26).
SITE_NICE = 10
STOP_TIMEOUT_S = 10.0


def _source(settings: Settings) -> tuple[list[str], dict[str, str]]:
    """The bot's database as the child's arguments and environment: a SQLite file on the
    command line; a URL (it may hold a password) in the environment only."""
    url = settings.database_url.get_secret_value().strip() if settings.database_url else ""
    if url:
        return [], {"PADDOCK_DATABASE_URL": url}
    return ["--db", str(settings.db_path)], {}


class SiteChild:
    """`paddock web` as the bot's child, restarted if it dies, stopped with the bot."""

    def __init__(
        self,
        settings: Settings,
        *,
        backoff: tuple[float, float] = BACKOFF_S,
        stop_timeout: float = STOP_TIMEOUT_S,
    ) -> None:
        assert settings.web_port is not None
        self.settings = settings
        self.backoff = backoff
        self.stop_timeout = stop_timeout
        self.proc: asyncio.subprocess.Process | None = None
        self.address: str | None = None  # host:port, while a child listens
        self.listening = asyncio.Event()  # set while a child listens
        self.starts = 0  # children started (1 + restarts)
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.alive and self.proc is not None else None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def command(self) -> tuple[list[str], dict[str, str]]:
        """The child's command line and environment: the same interpreter and the same code
        as this bot's (its package root first on PYTHONPATH), the site's settings given
        explicitly (a .env or the bot's options cannot make them differ), no bot token."""
        s = self.settings
        where, env_db = _source(s)
        args = [sys.executable, "-m", "bot.cli", "web", *where]
        args += ["--host", s.web_host, "--port", str(s.web_port), "--parent", str(os.getpid())]
        args += ["--nice", str(SITE_NICE)]
        env = {k: v for k, v in os.environ.items() if k != "PADDOCK_TOKEN"}
        root = str(Path(bot.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        env.update(env_db)
        env.update(
            PADDOCK_WEB_BASE_URL=s.web_base_url or "",
            PADDOCK_WEB_TRUSTED_PROXIES=s.web_trusted_proxies or "",
            PADDOCK_LOG_LEVEL=s.log_level,
        )
        return args, env

    def start(self) -> None:
        """Start the child and its supervision (returns at once; `listening` tells when)."""
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name="paddock-site-child")

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        first, longest = self.backoff
        wait = first
        while not self._closing:
            started = loop.time()
            code = await self._run_once()
            if self._closing:
                return
            if loop.time() - started >= longest:  # it had been up a while: not a crash loop
                wait = first
            log.error(
                "the league site's process exited (%s); starting it again in %g s",
                code,
                wait,
            )
            await asyncio.sleep(wait)
            wait = min(wait * 2, longest)

    async def _run_once(self) -> str:
        """One child from its start to its end: how it ended, in words."""
        args, env = self.command()
        try:
            proc = await asyncio.create_subprocess_exec(
                *args,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,  # the bot's own: its lines are in the bot's log
            )
        except OSError as exc:
            return f"could not start: {exc}"
        self.proc = proc
        self.starts += 1
        assert proc.stdout is not None
        try:
            while line := await proc.stdout.readline():  # host:port once it listens
                self.address = line.decode(errors="replace").strip()
                self.listening.set()
                log.info("the league site's process %d listens on %s", proc.pid, self.address)
            code = await proc.wait()
        finally:
            self.listening.clear()
            self.address = None
        return f"pid {proc.pid}, exit code {code}"

    async def close(self) -> None:
        """Stop the child (SIGTERM; SIGKILL after `stop_timeout`) and its supervision."""
        self._closing = True
        proc = self.proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), self.stop_timeout)
            except TimeoutError:
                log.warning("the league site's process %d did not stop: killed", proc.pid)
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
