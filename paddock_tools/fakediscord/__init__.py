"""Offline Discord test harness: in-process driver and loopback fake Discord server.

In-process (fast, no sockets)::

    from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver

    async def test_ping():
        async with InProcessDriver(PaddockBot(...)) as driver:
            calls = await driver.slash("league", "create", name="Spring Cup", game="waddington")
            assert calls.last.embed.title == "Spring Cup"
            denied = await driver.slash("league", "delete", user=BOB)
            assert denied.ephemeral
            clicked = await driver.click("league:join:42", user=BOB)

Loopback server (real gateway + REST over 127.0.0.1)::

    from paddock_tools.fakediscord.server import FakeDiscord

    async with FakeDiscord() as fd, fd.running(bot):
        calls = await fd.slash("demo", "image")
        assert calls.files[0].is_png

Both return :class:`Calls` (a list of :class:`Call`) for every interaction, and raise
:class:`BotError` if a handler task died or discord.py logged an unhandled error.

Faults (tests/table/test_bot_faults.py), on ``fd.backend``::

    fd.backend.fail_next(r"/channels/\\d+/messages$", 429, method="POST", retry_after=0.2)
    fd.backend.fail_next(r"/interactions/.*/callback$", 404, UNKNOWN_INTERACTION)
    fd.backend.delete_message(message_id)          # then 404 Unknown Message
    fd.backend.archive_thread(thread_id, locked=False)  # then 400 Thread is archived
    fd.backend.delete_channel(thread_id)           # then 404 Unknown Channel
    fd.backend.revoke(channel_id, "attach_files")  # then 403 Missing Permissions
    await fd.drop_gateway()                        # the client RESUMEs, missed events replayed

(429s need the loopback server: discord.py's own HTTP layer waits ``retry_after`` there.)

Shards (loopback server; tests/store/test_shards_e2e.py)::

    world.add_guild(guild_id, "Other", channels={channel_id: "general"})  # a second guild
    async with FakeDiscord(world, shard_count=2) as fd:  # GET /gateway/bot says 2
        ...  # IDENTIFY with shard [i, 2] gets READY / GUILD_CREATE for shard i's guilds only;
             # a guild's events go to the session of shard (guild_id >> 22) % 2
"""

from .backend import (
    MISSING_PERMISSIONS,
    THREAD_ARCHIVED,
    UNKNOWN_CHANNEL,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    Backend,
    Call,
    Calls,
    Fault,
    HTTPError,
    SentFile,
)
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
    "Fault",
    "HTTPError",
    "MISSING_PERMISSIONS",
    "THREAD_ARCHIVED",
    "UNKNOWN_CHANNEL",
    "UNKNOWN_INTERACTION",
    "UNKNOWN_MESSAGE",
    "InProcessDriver",
    "SentFile",
    "World",
]
