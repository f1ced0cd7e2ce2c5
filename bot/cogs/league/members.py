"""`/league`: championships for everyone: create, list, join, leave, info, calendar,
standings, results; the league buttons (Join, pages, and an admin's Confirm / Cancel, which
the admin cog answers)."""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.utils import MISSING

from bot.autocomplete import league_option
from bot.cogs.league.home import give_role, home_text
from bot.components import INVALID_BUTTON, button, in_code, shown, view_of
from bot.league_careers import career_of, server_ratings
from bot.league_site import league_link
from bot.league_tables import league_points_table, standings_report
from bot.pages import DESCRIPTION, FIELD, MESSAGE, page_of, page_view, pages
from bot.posting import result, think
from bot.when import timestamp
from renderer.common import counted
from rules.championship import (
    car_colours,
    game_kinds,
)
from rules.errors import PaddockError
from store import League, NotFound

if TYPE_CHECKING:
    from bot.client import PaddockBot
from collections.abc import Awaitable, Callable

from bot.cogs.league.common import (
    TABLE_CHOICES,
    LeagueBase,
    _archive_rule,
    _away_rule,
    _check_colour,
    _game,
    _points_choice,
    _robots_rule,
)


class LeagueCog(LeagueBase):
    league = app_commands.Group(
        name="league",
        description="Championships: standings, calendar and results",
        guild_only=True,
    )

    def __init__(self, bot: PaddockBot) -> None:
        super().__init__(bot)
        bot.component_routes["league"] = self.on_button
        # an admin's Confirm / Cancel (the admin cog's questions), pressed on a league button
        self.answer: Callable[[discord.Interaction, League, str, str], Awaitable[None]] | None
        self.answer = None

    # Autocomplete ----------------------------------------------------------------------

    async def colour_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        colours = sorted({c for kind in game_kinds() for c in car_colours(kind)})
        name = getattr(interaction.namespace, "league", None)
        if name and interaction.guild is not None:
            try:
                league = await self.store.get_league(interaction.guild.id, name)
                colours = car_colours(league.game)
            except PaddockError:
                pass
        return [app_commands.Choice(name=c, value=c) for c in colours if current.lower() in c][:25]

    async def game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The games Paddock runs (each game declares itself: rules/spec.py)."""
        return [
            app_commands.Choice(name=title, value=kind)
            for kind, title in game_kinds().items()
            if current.casefold() in title.casefold()
        ][:25]

    # Everyone --------------------------------------------------------------------------

    @league.command(name="create", description="Create a league, or the next season of one")
    @app_commands.describe(
        name="League name (1-50 characters)",
        game="The game the league races",
        points="Points table (default: Waddington's 10-8-6-4-2-1)",
        custom_points="Your own table instead, from first place down, e.g. 12-9-7-5-3-1",
    )
    @app_commands.choices(points=TABLE_CHOICES)
    @app_commands.autocomplete(game=game_autocomplete)
    async def create(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 50],
        game: str,
        points: app_commands.Choice[str] | None = None,
        custom_points: app_commands.Range[str, 1, 120] | None = None,
    ) -> None:
        assert interaction.guild is not None
        table, values = _points_choice(points.value if points else None, custom_points)
        await think(interaction)  # before the store's write (a refusal follows privately)
        league = await self.store.create_league(
            interaction.guild.id, name, _game(game), table, values, interaction.user.id
        )
        season = f"season {league.season}" if league.season > 1 else "its first season"
        await result(
            interaction,
            f"League **{shown(league.name)}** created ({game_kinds()[league.game]}, {season}, "
            f"points {'-'.join(map(str, league.points))}). Drivers join with "
            f"`/league join league:{in_code(league.name)}`.",
            view=self._join_view(league),
            channel=interaction.channel,
        )

    @league.command(name="list", description="The leagues on this server")
    async def list_(self, interaction: discord.Interaction) -> None:
        assert interaction.guild is not None
        leagues = await self.store.list_leagues(interaction.guild.id)
        if not leagues:
            await interaction.response.send_message(
                "No leagues here yet. Start one with `/league create`.", ephemeral=True
            )
            return
        text, view = self._list_page(interaction.guild.id, leagues, 0)
        await interaction.response.send_message(text, view=view or MISSING, ephemeral=True)

    def _list_page(
        self, guild_id: int, leagues: list[League], page: int
    ) -> tuple[str, discord.ui.View | None]:
        lines = [
            f"**{shown(lg.name)}** - {game_kinds()[lg.game]}, season {lg.season}"
            f"{'' if lg.is_open else ' (closed)'}"
            for lg in leagues
        ]
        cut = pages(lines, MESSAGE)
        page = min(page, len(cut) - 1)
        return cut[page], page_view("league", guild_id, "list", page, len(cut))

    @league.command(name="join", description="Join a league as a driver")
    @app_commands.describe(
        league="League name",
        colour="Your car colour, if the game has cars",
        name="The name shown in standings (default: your server name)",
    )
    @league_option(open_only=True)
    @app_commands.autocomplete(colour=colour_autocomplete)
    async def join(
        self,
        interaction: discord.Interaction,
        league: str,
        colour: str | None = None,
        name: app_commands.Range[str, 1, 32] | None = None,
    ) -> None:
        await think(interaction)  # before the store (a refusal follows privately)
        found = await self._league(interaction, league)
        member = await self.store.join_league(
            found,
            interaction.user.id,
            (name or interaction.user.display_name).strip()[:32],
            _check_colour(found, colour),
        )
        car = f" in the {member.colour} car" if member.colour else ""
        role = await give_role(interaction.user, found, on=True)
        await result(
            interaction,
            f"{interaction.user.mention} joined **{shown(found.label)}**{car} as "
            f"{shown(member.display_name)}.{role}",
            channel=interaction.channel,
        )

    @league.command(name="leave", description="Leave a league (your results stay)")
    @league_option(open_only=True)
    async def leave(self, interaction: discord.Interaction, league: str) -> None:
        await think(interaction, ephemeral=True)  # before the store
        found = await self._league(interaction, league)
        await self.store.leave_league(found, interaction.user.id)
        role = await give_role(interaction.user, found, on=False)
        await result(
            interaction,
            f"You left **{shown(found.label)}**. Your results this season stay in the "
            f"standings.{role}",
        )

    @league.command(name="info", description="A league's game, season, points and drivers")
    @league_option
    async def info(self, interaction: discord.Interaction, league: str) -> None:
        found = await self._league(interaction, league)
        embed, pager = await self._info_page(found, 0)
        await interaction.response.send_message(embed=embed, view=self._join_view(found, pager))

    async def _info_page(
        self, found: League, page: int
    ) -> tuple[discord.Embed, discord.ui.View | None]:
        members = await self.store.members(found.id, active_only=True)
        rounds = await self.store.rounds(found.id)
        embed = discord.Embed(title=shown(found.label), colour=discord.Colour.dark_green())
        embed.add_field(name="Game", value=game_kinds()[found.game])
        embed.add_field(name="Status", value="open" if found.is_open else "closed")
        embed.add_field(
            name="Points", value=f"{'-'.join(map(str, found.points))} ({found.points_table})"
        )
        done = sum(1 for r in rounds if r.status == "done")
        embed.add_field(name="Rounds", value=f"{done} of {len(rounds)} raced")
        embed.add_field(name="Robots", value=_robots_rule(found), inline=False)
        embed.add_field(name="Race threads", value=_archive_rule(found), inline=False)
        embed.add_field(name="Away", value=_away_rule(found), inline=False)
        embed.add_field(name="Home", value=home_text(found), inline=False)
        if (link := await self._site_link(found)) is not None:
            embed.url = link
            embed.add_field(name="On the web", value=link, inline=False)
        drivers = pages(
            [
                f"<@{m.user_id}> {shown(m.display_name)}" + (f" ({m.colour})" if m.colour else "")
                for m in members
            ],
            FIELD,
        )
        page = min(page, len(drivers) - 1)
        embed.add_field(
            name=f"Drivers ({len(members)})", value=drivers[page] or "none yet", inline=False
        )
        return embed, page_view("league", found.id, "info", page, len(drivers))

    async def _site_link(self, found: League) -> str | None:
        """The league's site link, when the site's address is known and the league's site
        is on (its latest season holds the switch)."""
        return await league_link(self.bot.settings, self.store, found)

    @league.command(name="calendar", description="A league's rounds")
    @league_option
    async def calendar(self, interaction: discord.Interaction, league: str) -> None:
        found = await self._league(interaction, league)
        embed, view = await self._calendar_page(found, 0)
        await interaction.response.send_message(embed=embed, view=view or MISSING)

    async def _calendar_page(
        self, found: League, page: int
    ) -> tuple[discord.Embed, discord.ui.View | None]:
        rounds = await self.store.rounds(found.id)
        cut = pages(
            [
                f"**Round {r.number}** - {shown(r.name)}"
                + (f" - {shown(r.scheduled)}" if r.scheduled else "")
                + (f" - {timestamp(r.starts_at)}" if r.starts_at else "")
                + (" - done" if r.status == "done" else "")
                for r in rounds
            ],
            DESCRIPTION,
        )
        page = min(page, len(cut) - 1)
        text = cut[page] or "No rounds yet. An admin adds them with `/league-admin round-set`."
        embed = discord.Embed(title=f"{shown(found.label)} - calendar", description=text)
        return embed, page_view("league", found.id, "calendar", page, len(cut))

    @league.command(name="standings", description="The championship table (text and image)")
    @app_commands.describe(season="An earlier season (default: the latest)")
    @league_option
    async def standings(
        self,
        interaction: discord.Interaction,
        league: str,
        season: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        assert interaction.guild is not None
        if season is not None and season < 1:
            raise PaddockError("Seasons are numbered from 1.")
        found = await self.store.get_league(interaction.guild.id, league, season)
        await interaction.response.defer(thinking=True)
        report = await standings_report(self.store, found)
        png = report.png()
        embed = discord.Embed(
            title=f"{shown(report.title())} - standings",
            description=f"```\n{report.text()}\n```",
            colour=discord.Colour.gold(),
        )
        embed.set_footer(text=report.subtitle())
        embed.set_image(url="attachment://standings.png")
        if (link := await self._site_link(found)) is not None:
            embed.url = link
            embed.description = f"{embed.description}\n[On the web]({link})"
        await interaction.followup.send(
            embed=embed, file=discord.File(io.BytesIO(png), filename="standings.png")
        )

    @league.command(name="results", description="The result of one round")
    @app_commands.describe(round="Round number (start typing: the rounds raced)")
    @league_option(rounds_offered="raced")
    async def results(
        self,
        interaction: discord.Interaction,
        league: str,
        round: app_commands.Range[int, 1, 99],
    ) -> None:
        found = await self._league(interaction, league)
        rnd = await self.store.get_round(found, round)
        members = {m.id: m for m in await self.store.members(found.id)}
        rows = [r for r in await self.store.results(found.id) if r.round_id == rnd.id]
        if not rows:
            text = "No result recorded yet."
        else:
            table = league_points_table(found)
            lines = []
            for r in rows:
                m = members[r.member_id]
                pts = table.points_for(r.place)
                place = f"{r.place}." if r.place else "-"
                extra = "" if r.status == "finished" else f" ({r.status})"
                lines.append(f"{place} {shown(m.display_name)}{extra} - {pts} pts")
            text = "\n".join(lines)
        embed = discord.Embed(
            title=f"{shown(found.label)} - round {rnd.number}: {shown(rnd.name)}",
            description=text,
        )
        await interaction.response.send_message(embed=embed)

    @league.command(name="driver", description="A driver's career here: seasons, wins, titles")
    @app_commands.describe(driver="The driver (default: you)")
    async def driver(
        self, interaction: discord.Interaction, driver: discord.User | None = None
    ) -> None:
        assert interaction.guild is not None
        who = driver or interaction.user
        await think(interaction)  # before the store and the image
        career = await career_of(self.store, interaction.guild.id, who.id, who.display_name)
        if not career.races:
            rated = ", ".join(
                f"{game_kinds().get(g, g)} {career.rating_text(g)}" for g in career.ratings
            )
            await interaction.followup.send(
                f"{shown(who.display_name)} has no league races on this server yet"
                + (f" (friendly races: {rated})." if rated else ".")
                + " `/league list` shows the leagues to join.",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        titles = game_kinds()
        embed = discord.Embed(
            title=f"{shown(who.display_name)} - career"[:256],
            description=f"<@{who.id}>",
            colour=discord.Colour.gold(),
        )
        for total in career.totals[:25]:
            embed.add_field(
                name=titles.get(total.game, total.game),
                value=", ".join(
                    counted(n, word)
                    for n, word in (
                        (total.seasons, "season"),
                        (total.races, "race"),
                        (total.wins, "win"),
                        (total.podiums, "podium"),
                        (total.titles, "title"),
                    )
                )
                + f"; {career.rating_text(total.game)}",
                inline=False,
            )
        embed.set_image(url="attachment://career.png")
        png = await asyncio.to_thread(career.png)  # an image: off the event loop
        await interaction.followup.send(
            embed=embed,
            file=discord.File(io.BytesIO(png), filename="career.png"),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @league.command(name="ratings", description="A league's drivers by their rating in its game")
    @league_option
    async def ratings(self, interaction: discord.Interaction, league: str) -> None:
        assert interaction.guild is not None
        await think(interaction)  # before the store (a refusal follows privately)
        found = await self._league(interaction, league)
        rated = (await server_ratings(self.store, interaction.guild.id)).get(found.game, {})
        members = await self.store.members(found.id, active_only=True)
        ranked = sorted(
            members,
            key=lambda m: (-(r.ordinal if (r := rated.get(m.user_id)) else 0.0), m.id),
        )
        lines = []
        for i, m in enumerate(ranked[:25], start=1):
            r = rated.get(m.user_id)
            figure = f"{r.ordinal:6.1f}  {counted(r.races, 'race')}" if r else "     -  not rated"
            lines.append(f"{i:>2}. {in_code(m.display_name)[:24]:<24} {figure}")
        if len(ranked) > 25:
            lines.append(f"... and {len(ranked) - 25} more")
        embed = discord.Embed(
            title=f"{shown(found.label)} - ratings",
            description=f"```\n{chr(10).join(lines)}\n```" if lines else "No drivers yet.",
            colour=discord.Colour.blue(),
        )
        embed.set_footer(
            text=f"{game_kinds()[found.game]} rating on this server (OpenSkill, mu - 3 sigma) "
            "from every finished race, league and friendly; robots are not rated."
        )
        await interaction.followup.send(embed=embed)

    # Buttons ---------------------------------------------------------------------------

    def _join_view(self, league: League, pager: discord.ui.View | None = None) -> discord.ui.View:
        join = button("Join", "league", league.id, "join", style=discord.ButtonStyle.primary)
        return view_of(*(pager.children if pager else []), join)

    async def on_button(
        self, interaction: discord.Interaction, ref: int, action: str, arg: str | None
    ) -> None:
        # The league buttons are `pd:league:<id>:join` and an admin's Confirm / Cancel
        # (`close`, `remove`, `cancel` with the asker and the expiry as argument); anything
        # else, a league that is gone or one of another server is a stale or forged button.
        confirming = action in ("close", "remove", "cancel") and arg is not None
        turning = page_of(arg, ("info", "calendar", "list")) if action == "page" else None
        if interaction.guild is None or not (
            confirming or turning or (action == "join" and arg is None)
        ):
            raise PaddockError(INVALID_BUTTON)
        if turning is not None and turning[0] == "list":  # the server's list: ref is the guild
            if ref != interaction.guild.id:
                raise PaddockError(INVALID_BUTTON)
            leagues = await self.store.list_leagues(ref)
            text, pager = self._list_page(ref, leagues, turning[1])
            await interaction.response.edit_message(content=text, view=pager)
            return
        try:
            league = await self.store.league_by_id(ref)
        except NotFound:
            raise PaddockError(INVALID_BUTTON) from None
        if league.guild_id != interaction.guild.id:
            raise PaddockError(INVALID_BUTTON)
        if confirming:
            assert arg is not None and self.answer is not None
            await self.answer(interaction, league, action, arg)
            return
        if turning is not None:
            what, page = turning
            if what == "info":
                embed, pager = await self._info_page(league, page)
                view: discord.ui.View | None = self._join_view(league, pager)
            else:
                embed, view = await self._calendar_page(league, page)
            await interaction.response.edit_message(embed=embed, view=view)
            return
        await think(interaction)  # before the store (a refusal follows privately)
        taken = {m.colour for m in await self.store.members(league.id, active_only=True)}
        free = [c for c in car_colours(league.game) if c not in taken]
        colour = free[0] if free else None
        member = await self.store.join_league(
            league, interaction.user.id, interaction.user.display_name[:32], colour
        )
        car = f" in the {member.colour} car" if member.colour else ""
        role = await give_role(interaction.user, league, on=True)
        await result(
            interaction,
            f"{interaction.user.mention} joined **{shown(league.label)}**{car}. Choose another "
            f"colour with `/league join league:{in_code(league.name)} colour:...`.{role}"
            if member.colour
            else f"{interaction.user.mention} joined **{shown(league.label)}**.{role}",
            channel=interaction.channel,
        )
