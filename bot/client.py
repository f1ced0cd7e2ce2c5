"""The Paddock bot: a commands.Bot whose cogs each handle one area."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Handler, PaddockButton
from bot.drawing import DRAWING, use_processes
from bot.errors import report_error
from bot.memory import freeze_startup, tune_collector, tune_malloc
from bot.metrics import Metrics
from bot.ops import OpsServer
from bot.settings import Settings
from bot.site_child import SiteChild
from bot.table import Table
from bot.threads import tune_switch_interval
from bot.timers import TimerManager
from rules.base import specs
from store import Store, open_store

log = logging.getLogger("paddock")

# The cogs of no game in particular; each game's own comes from its spec (rules/spec.py).
COMMON_COGS = ("bot.cogs.league", "bot.cogs.games", "bot.cogs.help")


def cogs() -> list[str]:
    """Every extension the bot loads: the leagues', then each registered game's, then those
    that list the games (/games, /help)."""
    games = [spec.cog for spec in specs().values() if spec.cog]
    return [COMMON_COGS[0], *games, *COMMON_COGS[1:]]


# What the invite URL in README.md asks for; a test keeps the two in step.
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,  # the ✅ on a Pit Formula repair typed as a message
    manage_threads=True,  # a race's thread is archived a while after the race is over
    manage_roles=True,  # a league's role, given by /league join (optional: /league-admin setup)
    manage_events=True,  # a league's rounds as the server's events (optional)
)
INVITE_SCOPES = ("bot", "applications.commands")


class PaddockTree(app_commands.CommandTree["PaddockBot"]):
    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)


class PaddockBot(commands.Bot):
    def __init__(self, settings: Settings, store: Store | None = None, **options: Any) -> None:
        tune_malloc()  # before the first images: their buffers go back when freed
        tune_collector()  # a click's reference cycles are freed young
        tune_switch_interval()  # the event loop waits less for the image threads
        use_processes(settings.image_processes)  # where images are drawn (bot/drawing.py)
        intents = discord.Intents.default()
        intents.message_content = settings.message_content
        # Nobody is pinged unless a message names them (AllowedMentions(users=[...])): a
        # `<@id>` typed into a league or driver name must not ping anyone.
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=PaddockTree,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.store = store or open_store(settings)
        self.metrics = Metrics()  # this bot's own registry (bot/metrics.py)
        # With shards, the timers of this process's guilds only (the others wait for theirs).
        self.timers = TimerManager(self, shards=settings.shards, metrics=self.metrics)
        self.component_routes: dict[str, Handler] = {}
        self.table = Table(self)
        fault = os.environ.get("PADDOCK_FAULT")
        if fault:  # fault injection for the crash tests: "point" or "point:seq"
            self.table.core.fault = _killer(fault)
        self.images_warm: asyncio.Task[None] | None = None
        self.site: SiteChild | None = None  # the league site's process, with PADDOCK_WEB_PORT
        self.ops: OpsServer | None = None  # /healthz and /metrics, with PADDOCK_OPS_PORT

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        if event_name == "interaction":
            # Called as the interaction arrives, before its handler's task first runs: its
            # answer is timed from here (bot/metrics.py).
            self.metrics.arrived(args[0])
        super().dispatch(event_name, *args, **kwargs)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # An event handler failed (a timer's among them): a store error is counted, then
        # logged as discord.py does.
        error = sys.exc_info()[1]
        if error is not None:
            self.metrics.database_error(error)
        await super().on_error(event_method, *args, **kwargs)

    async def setup_hook(self) -> None:
        applied = await self.store.open()
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
        for extension in cogs():
            await self.load_extension(extension)
        self.add_dynamic_items(PaddockButton)
        self.timers.start()
        # The first draw of each image kind builds fonts and static layers (up to a second);
        # do it now, off the event loop, rather than in a player's first move.
        self.images_warm = asyncio.create_task(self._warm_images(), name="paddock-warm-images")
        if self.settings.ops_port is not None:
            self.ops = OpsServer(self, self.settings.ops_host, self.settings.ops_port)
            await self.ops.start()
        if self.settings.sync_commands:
            await self.sync_commands()
        if self.settings.web_port:
            # The league site in a child process of its own (`paddock web`), read-only on
            # this database: its pages' CPU is never the event loop's. A site that cannot
            # start, or dies, is an ERROR line and a new try later: the races go on.
            self.site = SiteChild(self.settings)
            self.site.start()

    async def _warm_images(self) -> None:
        await DRAWING.warm()  # the image workers started, their caches built
        # what start-up built (modules, commands; the caches, drawing in threads) stays: full
        # collections need not walk it
        freeze_startup()

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        guild_id = self.settings.dev_guild_id
        if guild_id:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (may take up to an hour to show)", len(synced))
        return synced

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guild(s)", self.user, len(self.guilds))
        # Games whose last action never reached their thread (a crash between the commit
        # and the post) get it now; their timers were stored with the action.
        await self.table.recovery.recover()
        # League rounds whose start came while no process held their timer open now.
        await self.table.rounds.catch_up()

    async def close(self) -> None:
        if self.ops is not None:
            await self.ops.stop()
        if self.images_warm is not None:
            self.images_warm.cancel()
        await self.timers.stop()
        if self.site is not None:
            site, self.site = self.site, None
            await site.close()
        await super().close()
        await self.store.close()


class ShardedPaddockBot(PaddockBot, commands.AutoShardedBot):
    """The bot over the shards PADDOCK_SHARD_COUNT / PADDOCK_SHARD_IDS name: one gateway
    connection per shard in this process (discord.py's AutoShardedBot)."""

    def __init__(self, settings: Settings, store: Store | None = None, **options: Any) -> None:
        shards = settings.shards
        if shards is None:
            raise ValueError("ShardedPaddockBot needs PADDOCK_SHARD_COUNT")
        options.setdefault("shard_count", shards.count)
        options.setdefault("shard_ids", list(shards.ids))
        super().__init__(settings, store, **options)


def create_bot(settings: Settings, store: Store | None = None, **options: Any) -> PaddockBot:
    """A sharded bot when the settings name shards, else one process as before."""
    cls = PaddockBot if settings.shards is None else ShardedPaddockBot
    return cls(settings, store, **options)


def _killer(spec: str):  # noqa: ANN202
    """SIGKILL this process when the table passes `point` having stored action number `seq`
    (or a later one: a robots' chain is stored in one commit) (crash tests only)."""
    point, _, seq = spec.partition(":")
    target = int(seq or 1)

    def fault(at: str, stored: int) -> None:
        if at == point and stored >= target:
            log.warning("PADDOCK_FAULT: killing the bot at %s (action %s)", at, stored)
            os.kill(os.getpid(), signal.SIGKILL)

    return fault
