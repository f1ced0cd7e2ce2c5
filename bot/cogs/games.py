"""`/games`: your unfinished games on this server, one line each, across every game."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import shown
from bot.posting import result, think
from bot.presenter import timestamp
from rules.base import get_game

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store.models import GameRecord


class GamesCog(commands.Cog):
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot

    @app_commands.command(name="games", description="Your games on this server and whose turn")
    @app_commands.guild_only()
    @app_commands.describe(reminders="Also remind you by direct message when it is your turn")
    @app_commands.choices(
        reminders=[
            app_commands.Choice(name="on: DM me my reminders too", value="on"),
            app_commands.Choice(name="off: reminders in the race thread only", value="off"),
        ]
    )
    async def games(
        self,
        interaction: discord.Interaction,
        reminders: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild is not None
        store = self.bot.store
        head = ""
        await think(interaction, ephemeral=True)  # before the store and the games' reads
        if reminders is not None:
            await store.set_dm_reminders(interaction.user.id, reminders.value == "on")
            head = (
                "Reminders by direct message: **on** (Discord must allow DMs from this server).\n"
                if reminders.value == "on"
                else "Reminders by direct message: **off**.\n"
            )
        records = await store.games_of_user(interaction.guild.id, interaction.user.id)
        lines = [await self._line(r, interaction.user.id) for r in records[:20]]
        if len(records) > 20:
            lines.append(f"... and {len(records) - 20} more")
        body = "\n".join(lines) or "You have no games running on this server."
        await result(interaction, head + body, allowed_mentions=discord.AllowedMentions.none())

    async def _line(self, record: GameRecord, user_id: int) -> str:
        table = self.bot.table
        presenter = table.presenters.get(record.kind)
        title = presenter.title if presenter else record.kind
        where = f"<#{record.where_id}>"
        if record.status == "lobby" or record.state_json is None:
            return f"**{title}** #{record.id} in {where}: lobby, waiting for the start"
        loaded = await table.load(record.id)
        mine = loaded.human_seat(user_id)
        seat_text = f"you drive {shown(mine.name)}" if mine else "your car was handed to a robot"
        if mine is not None and mine.autopilot:
            seat_text += " (autopilot)"
        game = get_game(record.kind)
        waiting = presenter.waiting_seats(loaded.state) if presenter else []
        if not waiting:
            to_act = game.to_act(loaded.state)
            turn = "everyone at once" if len(to_act) > 1 else "nobody"
        elif mine is not None and mine.seat in waiting:
            turn = "**your turn**"
        else:
            names = ", ".join(shown(loaded.name(s)) for s in waiting)
            turn = f"{names} to act"
        deadline = await table.core.deadline(loaded)
        due = f", due {timestamp(deadline)}" if deadline else ""
        return f"**{title}** #{record.id} in {where}: {seat_text}; {turn}{due}"


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(GamesCog(bot))
