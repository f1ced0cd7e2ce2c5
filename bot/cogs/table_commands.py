"""The life-cycle commands every game has, written once: `/<game> status`, `log`, `cancel`,
`abandon`, `rewind`, `replace`, `autopilot` and `undo`, and `/<game> rules` (how to play it
in Discord). A game cog subclasses `TableCog` (a GroupCog named after the game) and adds its
own commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.help import rules_embed
from bot.posting import result, think
from bot.presenter import Presenter
from rules.errors import PaddockError

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from bot.table import Table

MAX_ACTION = 10**9  # beyond any race's log: `rewind to:` refuses it in words
ON_OFF = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]


@app_commands.guild_only()
class TableCog(commands.GroupCog):
    presenter: Presenter[Any]

    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        bot.table.register(self.presenter)
        super().__init__()

    @property
    def table(self) -> Table:
        return self.bot.table

    @property
    def store(self):  # noqa: ANN201 - the bot's store
        return self.bot.store

    @app_commands.command(name="status", description="Repost the race as it stands here")
    async def status(self, interaction: discord.Interaction) -> None:
        # A game that is over is refused privately: nothing is posted, so an archived
        # race's thread stays archived.
        record = await self.table.game_here(interaction, self.presenter, running=False)
        if record.status == "lobby":  # e.g. its message deleted: the lobby again, below
            await self.table.lobby.repost_lobby(interaction, record)
            return
        await self.table.life.status(interaction, record)

    @app_commands.command(name="log", description="The last actions of this race, in words")
    @app_commands.describe(count="How many actions (1-50, default 10)")
    async def log(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 50] = 10
    ) -> None:
        record = await self.table.game_here(interaction, self.presenter, ended=True)
        loaded = await self.table.load(record.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        count = max(1, min(count, 50))
        text, pager = await self.table.log.log_page(loaded, count, loaded.record.seq)
        await interaction.followup.send(
            text,
            view=pager or discord.utils.MISSING,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="cancel", description="Close this lobby (host or league admin)")
    async def cancel(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter, running=False)
        if record.status != "lobby":
            raise PaddockError(
                f"This {self.presenter.noun} has started: use "
                f"`/{self.presenter.area} abandon` to end it."
            )
        await self.table.core.require_manager(interaction, record, "cancel this lobby")
        await think(interaction)  # before the store's write
        timers = await self.table.endings.end_timers(record)
        if not await self.store.end_game(record.id, from_status=("lobby",), timers=timers):
            raise PaddockError("This lobby is already closed.")
        channel = await self.table.channel_of(record)
        await self.table.publisher.strip_prompt(
            channel, record.status_message_id
        )  # the lobby's buttons
        await result(
            interaction,
            f"Lobby #{record.id} cancelled by {interaction.user.mention}.",
            allowed_mentions=discord.AllowedMentions.none(),
            channel=channel,
        )

    @app_commands.command(
        name="abandon", description="End this race now, with no league points (host or admin)"
    )
    async def abandon(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter, running=False)
        await self.table.life.abandon(interaction, record, confirmed=False)

    @app_commands.command(
        name="rewind", description="Take the race back to an earlier action (host or admin)"
    )
    @app_commands.describe(to="The action's number in this race's log (0: the start)")
    async def rewind(
        self, interaction: discord.Interaction, to: app_commands.Range[int, 0, MAX_ACTION]
    ) -> None:
        await self.table.rewind.ask(interaction, self.presenter, to)

    @app_commands.command(
        name="replace", description="Hand an absent driver's car to a robot (host or admin)"
    )
    @app_commands.describe(driver="The driver whose car the robot takes over")
    async def replace(self, interaction: discord.Interaction, driver: discord.User) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        await self.table.life.replace(interaction, record, driver)

    @app_commands.command(
        name="autopilot", description="Let the robot play your turns, or take back control"
    )
    @app_commands.describe(mode="on: the robot plays your turns; off: you drive again")
    @app_commands.choices(mode=ON_OFF)
    async def autopilot(
        self, interaction: discord.Interaction, mode: app_commands.Choice[str]
    ) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        await self.table.life.autopilot(interaction, record, mode.value == "on")

    @app_commands.command(
        name="undo", description="Take back your last decision, while nobody has moved since"
    )
    async def undo(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        if self.presenter.undo_refused is not None:  # e.g. a game played in real time
            raise PaddockError(self.presenter.undo_refused)
        await self.table.undos.command(interaction, self.presenter, record)

    @app_commands.command(
        name="rules", description="How to play this game on Discord (only to you)"
    )
    async def rules(self, interaction: discord.Interaction) -> None:
        embed = rules_embed(self.presenter.title, self.presenter.kind)
        await interaction.response.send_message(embed=embed, ephemeral=True)
