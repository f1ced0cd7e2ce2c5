"""The bot in a child process: SIGKILL it, start another on the same database, carry on."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest

from paddock_tools.bots import world
from paddock_tools.fakediscord import ALICE, BOB, Call
from paddock_tools.fakediscord.process import BotGone, BotProcess, RemoteFakeDiscord

MESSAGE_CONTENT_INTENT = 1 << 15


async def test_league_survives_sigkill_and_restart(tmp_path: Path) -> None:
    started = time.perf_counter()
    db = tmp_path / "kill.db"
    async with RemoteFakeDiscord(world()) as fd:
        assert fd.api_base.startswith("http://127.0.0.1:")
        # env reaches the child's settings unchanged (here: ask for the message-content intent)
        async with BotProcess(fd, db, env={"PADDOCK_MESSAGE_CONTENT": "true"}) as first:
            assert fd.identify is not None
            assert fd.identify["intents"] & MESSAGE_CONTENT_INTENT
            created = await fd.slash(
                "league", "create", name="Kill Cup", game="waddington", user=ALICE
            )
            assert "League **Kill Cup** created" in created.content
            assert created.errors == []
            assert await first.kill() == -signal.SIGKILL
            assert not first.alive and not fd.connected

        async with BotProcess(fd, db) as second:
            identifies = [f for f in fd.gateway_received if f.get("op") == 2]
            assert len(identifies) == 2  # a fresh IDENTIFY got READY + GUILD_CREATE again
            assert not fd.identify["intents"] & MESSAGE_CONTENT_INTENT  # type: ignore[index]
            listed = await fd.slash("league", "list", user=BOB)
            assert "**Kill Cup**" in listed.content
            assert listed.ephemeral
            info = await fd.slash("league", "info", league="Kill Cup", user=BOB)
            assert info.last.embed.title.startswith("Kill Cup")
        assert second.returncode == 0  # SIGTERM closed the bot politely
    assert time.perf_counter() - started < 15


async def test_kill_while_the_bot_waits_for_discord(tmp_path: Path) -> None:
    """Hold the command's result open (its "thinking…" answer came first, before the store),
    SIGKILL the bot meanwhile: the league row was written before the result, so a restarted
    bot has it though nobody was told."""
    db = tmp_path / "half.db"
    held, release = asyncio.Event(), asyncio.Event()

    async def hold(call: Call, app: str, token: str, mid: str) -> None:
        held.set()
        await release.wait()

    async with RemoteFakeDiscord(world()) as fd:
        async with BotProcess(fd, db) as bot:
            fd.on("PATCH", "/webhooks/{app}/{token}/messages/{mid}", hold)
            task = asyncio.create_task(
                fd.slash("league", "create", name="Half Cup", game="waddington", user=ALICE)
            )
            await asyncio.wait_for(held.wait(), 10)
            await bot.kill()
            with pytest.raises(BotGone) as gone:
                await task
            # answered ("thinking…"), the result never shown
            assert [c.response_type for c in gone.value.calls.interaction_responses] == [5]
            release.set()
        fd.backend._handlers.clear()  # answer callbacks normally again
        async with BotProcess(fd, db):
            listed = await fd.slash("league", "list", user=BOB)
            assert "**Half Cup**" in listed.content
