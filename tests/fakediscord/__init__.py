"""Offline Discord test harness: in-process driver and loopback fake Discord server.

In-process (fast, no sockets)::

    from tests.fakediscord import ALICE, BOB, InProcessDriver

    async def test_ping():
        async with InProcessDriver(PaddockBot(...)) as driver:
            calls = await driver.slash("league", "create", name="Spring Cup", game="waddington")
            assert calls.last.embed.title == "Spring Cup"
            denied = await driver.slash("league", "delete", user=BOB)
            assert denied.ephemeral
            clicked = await driver.click("league:join:42", user=BOB)

Loopback server (real gateway + REST over 127.0.0.1)::

    from tests.fakediscord.server import FakeDiscord

    async with FakeDiscord() as fd, fd.running(bot):
        calls = await fd.slash("demo", "image")
        assert calls.files[0].is_png

Both return :class:`Calls` (a list of :class:`Call`) for every interaction, and raise
:class:`BotError` if a handler task died or discord.py logged an unhandled error.
"""

from .backend import Backend, Call, Calls, HTTPError, SentFile
from .base import BotError
from .driver import InProcessDriver
from .payloads import (
    ALICE,
    APPLICATION_ID,
    BOB,
    BOT_USER,
    CAROL,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    OWNER,
    RACES_CHANNEL_ID,
    Attachment,
    FakeUser,
    World,
)
from .server import FakeDiscord

__all__ = [
    "ALICE",
    "APPLICATION_ID",
    "BOB",
    "BOT_USER",
    "CAROL",
    "GENERAL_CHANNEL_ID",
    "GUILD_ID",
    "OWNER",
    "RACES_CHANNEL_ID",
    "Attachment",
    "Backend",
    "BotError",
    "Call",
    "Calls",
    "FakeDiscord",
    "FakeUser",
    "HTTPError",
    "InProcessDriver",
    "SentFile",
    "World",
]
