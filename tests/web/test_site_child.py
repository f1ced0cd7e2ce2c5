"""The league site in a child process of the bot's (`paddock run` with PADDOCK_WEB_PORT,
bot/site_child.py): it serves the pages, is started again after it dies (a back-off, not a
loop), stops with the bot, and is gone when the bot is killed outright."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import time
from pathlib import Path

import aiohttp
import pytest

from bot.settings import Settings
from bot.site_child import SITE_NICE, SiteChild
from paddock_tools.bots import world
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from tests.web.web_helpers import Filled, filled


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def settings(db: Path, port: int) -> Settings:
    return Settings(_env_file=None, db_path=db, web_port=port, token=None)


async def status(port: int, path: str) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        await response.read()
        return response.status


def gone(pid: int) -> bool:
    """No such process, or one that has exited (a zombie nobody reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


async def until(predicate: object, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return False


def listens(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


@pytest.fixture
async def data(tmp_path: Path) -> Filled:
    return await filled(tmp_path)


async def test_the_child_serves_the_site_is_started_again_after_a_kill_and_stops(
    data: Filled,
) -> None:
    port = free_port()
    child = SiteChild(settings(data.path, port), backoff=(0.1, 1.0))
    child.start()
    try:
        await asyncio.wait_for(child.listening.wait(), 30)
        first = child.pid
        assert first is not None and first != os.getpid()
        assert child.address == f"127.0.0.1:{port}"
        # below the bot's CPU priority: where both want a core, the bot's answer comes first
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, first) == min(19, mine + SITE_NICE) > mine
        home = f"/l/{data.league.web_token}"
        assert await status(port, home) == 200
        assert await status(port, f"/l/{data.private.web_token}") == 404  # read as ever

        os.kill(first, signal.SIGKILL)  # it dies: a new one takes its place
        assert await until(lambda: child.pid not in (None, first) and child.listening.is_set())
        assert child.starts == 2 and gone(first)
        assert await status(port, home) == 200
    finally:
        last = child.pid
        await child.close()
    assert last is not None and gone(last) and not listens(port)
    await asyncio.sleep(0.3)  # (more than the back-off: nothing starts again)
    assert child.starts == 2 and not listens(port)


async def test_a_child_that_cannot_start_is_tried_again_after_a_growing_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No database there: each child exits at once; the next waits 0.2, 0.4, 0.8 s..., each
    end one ERROR line; nothing is made (read-only)."""
    missing = tmp_path / "none.db"
    child = SiteChild(settings(missing, free_port()), backoff=(0.2, 5.0))

    def ends() -> list[str]:
        return [r.getMessage() for r in caplog.records if "process exited" in r.getMessage()]

    with caplog.at_level(logging.ERROR, logger="paddock.web"):
        child.start()
        assert await until(lambda: len(ends()) >= 3, 60)
        await child.close()
    said = ends()
    assert all("exit code 2" in line for line in said)
    assert [line.rsplit("again in ", 1)[1] for line in said[:3]] == ["0.2 s", "0.4 s", "0.8 s"]
    assert child.starts == len(said)  # closed while waiting: no start after the last end
    assert not missing.exists()


@pytest.mark.parametrize("end", ["stopped", "killed"])
async def test_the_site_child_ends_with_the_bot_process(data: Filled, end: str) -> None:
    """The bot as `paddock run` runs it, in a process of its own with PADDOCK_WEB_PORT: its
    child serves the site; the bot stopped (SIGTERM) or killed outright (SIGKILL: nothing of
    the bot's runs), the child is gone and the port free within seconds, and the bot's image
    workers (bot/drawing.py) are gone too."""
    port = free_port()
    async with RemoteFakeDiscord(world()) as fd:
        bot = BotProcess(fd, data.path, env={"PADDOCK_WEB_PORT": str(port)}, ready_timeout=60)
        await bot.start()
        try:
            assert bot.proc is not None
            assert await until(lambda: listens(port), 30), bot.stderr_tail()
            # the site's child, and the bot's image workers (bot/drawing.py)
            children = children_of(bot.proc.pid)
            (site,) = [c for c in children if b"web" in Path(f"/proc/{c}/cmdline").read_bytes()]
            assert await status(port, f"/l/{data.league.web_token}") == 200
            if end == "stopped":
                assert await bot.stop(timeout=20) == 0
            else:
                assert await bot.kill() == -signal.SIGKILL
            assert await until(lambda: gone(site) and not listens(port)), bot.stderr_tail()
            assert await until(lambda: all(gone(c) for c in children)), bot.stderr_tail()
        finally:
            await bot.kill()
