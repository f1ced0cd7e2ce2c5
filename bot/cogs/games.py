"""`/games`: your unfinished games on this server, one line each, across every game; and your
own settings: reminders by DM, away, quiet hours, the daily digest, your time zone
(bot/availability.py says what they do to your deadlines), and whether a decision that can't
be undone asks Confirm first (bot/table/confirm.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.availability import until_suggestions
from bot.cogs.games_settings import settings_asked, settings_lines
from bot.components import shown
from bot.digest import arm as digest_timer
from bot.digest import on_digest, seat_deadline
from bot.posting import result, think
from bot.presenter import timestamp
from bot.when import zone_matches
from renderer.common import counted
from rules.base import get_game
from store.models import Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store.models import GameRecord


class GamesCog(commands.Cog):
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot

    @app_commands.command(name="games", description="Your games on this server and whose turn")
    @app_commands.guild_only()
    @app_commands.describe(
        reminders="Also remind you by direct message when it is your turn",
        away="Away until the day you are back, e.g. 2026-08-20 (your time zone); off: back now",
        quiet_from="Quiet hours from (HH:MM, your time zone): no pings, no deadlines; off: none",
        quiet_to="Quiet hours until (HH:MM), e.g. 07:00",
        timezone="Your time zone, e.g. Europe/Madrid (for away, quiet hours and the digest)",
        digest="A direct message each day listing the races waiting for you",
        digest_at="When the digest comes (HH:MM, your time zone; default 09:00)",
        confirm="Ask Confirm before a decision that can't be undone (retiring, a pit stop...)",
    )
    @app_commands.choices(
        reminders=[
            app_commands.Choice(name="on: DM me my reminders too", value="on"),
            app_commands.Choice(name="off: reminders in the race thread only", value="off"),
        ],
        digest=[
            app_commands.Choice(name="on: a daily DM of the races waiting for me", value="on"),
            app_commands.Choice(name="off: no daily digest", value="off"),
        ],
        confirm=[
            app_commands.Choice(name="on: ask me to confirm a costly decision", value="on"),
            app_commands.Choice(name="off: play it at once", value="off"),
        ],
    )
    async def games(
        self,
        interaction: discord.Interaction,
        reminders: app_commands.Choice[str] | None = None,
        away: app_commands.Range[str, 1, 30] | None = None,
        quiet_from: app_commands.Range[str, 1, 10] | None = None,
        quiet_to: app_commands.Range[str, 1, 10] | None = None,
        timezone: app_commands.Range[str, 1, 60] | None = None,
        digest: app_commands.Choice[str] | None = None,
        digest_at: app_commands.Range[str, 1, 10] | None = None,
        confirm: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild is not None
        store = self.bot.store
        user_id = interaction.user.id
        await think(interaction, ephemeral=True)  # before the store and the games' reads
        now = self.bot.timers.clock()
        mine = await store.user_settings(user_id, now)
        # Everything typed is read first: a bad value changes nothing.
        changes = settings_asked(
            mine,
            now,
            away=away,
            quiet_from=quiet_from,
            quiet_to=quiet_to,
            timezone=timezone,
            digest=digest.value if digest else None,
            digest_at=digest_at,
            confirm=confirm.value if confirm else None,
        )
        head = []
        if changes.away is not None:
            await store.set_away(user_id, now, changes.away or None)  # may refuse: one line
            head.append(
                f"Away until {timestamp(changes.away, 'F')}." if changes.away else "Welcome back."
            )
        if changes.fields:
            await store.set_user_settings(user_id, **changes.fields)
        if reminders is not None:
            await store.set_dm_reminders(user_id, reminders.value == "on")
            head.append(
                "Reminders by direct message: **on** (Discord must allow DMs from this server)."
                if reminders.value == "on"
                else "Reminders by direct message: **off**."
            )
        if changes.any:
            mine = await store.user_settings(user_id, now)
            if changes.away is not None or changes.timing:
                moved = await self.bot.table.turns.rearm(user_id)
                if moved:
                    head.append(f"Deadlines worked out again in {counted(moved, 'race')}.")
            await digest_timer(self.bot, mine)
            head.append("Saved.")
        uses = await store.away_uses(user_id)
        records = await store.games_of_user(interaction.guild.id, user_id)
        lines = [await self._line(r, user_id) for r in records[:20]]
        if len(records) > 20:
            lines.append(f"... and {len(records) - 20} more")
        body = "\n".join(lines) or "You have no games running on this server."
        text = "\n".join([*head, *settings_lines(mine, uses, now), "", body])
        await result(interaction, text[:2000], allowed_mentions=discord.AllowedMentions.none())

    @games.autocomplete("away")
    async def _away_options(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        mine = await self.bot.store.user_settings(interaction.user.id, self.bot.timers.clock())
        offered = until_suggestions(current, mine.timezone or "UTC", self.bot.timers.clock())
        return [app_commands.Choice(name=o, value=o) for o in offered]

    @games.autocomplete("timezone")
    async def _zone_options(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=z, value=z) for z in zone_matches(current)]

    @commands.Cog.listener()
    async def on_digest_timer_complete(self, timer: Timer) -> None:
        await on_digest(self.bot, timer)

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
        if presenter and mine is not None and mine.seat in waiting:  # their own (away, quiet)
            deadline = await seat_deadline(self.bot, record.id, presenter.area, mine.seat)
        due = f", due {timestamp(deadline)}" if deadline else ""
        return f"**{title}** #{record.id} in {where}: {seat_text}; {turn}{due}"


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(GamesCog(bot))
