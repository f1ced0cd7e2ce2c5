"""`/league`: championships — create, join, standings, calendar, results; `/league-admin`:
the admin tools (calendar, results, members, points, closing a season), a group Discord shows
only to members with Manage Server, whose commands still check the permission or the league
admin role themselves. Closing a season and removing a driver ask to confirm with a button."""

from __future__ import annotations

import io
import re
import time
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands
from discord.ext import commands
from discord.utils import MISSING

from bot.autocomplete import league_option
from bot.components import INVALID_BUTTON, button, in_code, shown, view_of
from bot.errors import NotAdmin
from bot.league_tables import league_points_table, standings_report
from bot.pages import DESCRIPTION, FIELD, MESSAGE, page_of, page_view, pages
from bot.posting import defer, edit_source, result, think
from renderer.common import counted
from rules.championship import (
    car_colours,
    default_points_table,
    game_kinds,
    get_points_table,
    parse_custom_points,
    points_tables,
)
from rules.errors import PaddockError
from store import League, Member, NotFound

if TYPE_CHECKING:
    from bot.client import PaddockBot

MENTION = re.compile(r"<@!?(\d+)>")
STATUSES = ["finished", "retired", "timed out", "did not start"]

TABLE_CHOICES = [
    app_commands.Choice(name=t.title[:100], value=t.name) for t in points_tables().values()
]
STATUS_CHOICES = [app_commands.Choice(name=s, value=s) for s in STATUSES]


def _bot(interaction: discord.Interaction) -> PaddockBot:
    return cast("PaddockBot", interaction.client)


async def is_league_admin(interaction: discord.Interaction) -> bool:
    """Manage Server, or the admin role the server configured with `/league-admin admin-role`."""
    if interaction.guild is None or not isinstance(interaction.user, discord.Member):
        raise app_commands.NoPrivateMessage()
    if interaction.user.guild_permissions.manage_guild:
        return True
    role_id = await _bot(interaction).store.admin_role(interaction.guild.id)
    if role_id is not None and any(r.id == role_id for r in interaction.user.roles):
        return True
    role = f" or the <@&{role_id}> role" if role_id else ""
    raise NotAdmin(f"Only league admins can do this: it needs the Manage Server permission{role}.")


league_admin = app_commands.check(is_league_admin)


async def manage_server_only(interaction: discord.Interaction) -> bool:
    if interaction.guild is None or not isinstance(interaction.user, discord.Member):
        raise app_commands.NoPrivateMessage()
    if interaction.user.guild_permissions.manage_guild:
        return True
    raise NotAdmin("Only members with the Manage Server permission can choose the admin role.")


def _points_choice(table: str | None, custom: str | None) -> tuple[str, list[int]]:
    if custom:
        return "custom", parse_custom_points(custom)
    chosen = get_points_table(table) if table else default_points_table()
    return chosen.name, chosen.points


def _require_open(league: League) -> None:
    """Refused before a question is asked, as the store would refuse it after."""
    if not league.is_open:
        raise PaddockError(f"Season {league.season} of **{shown(league.name)}** is closed.")


def _game(value: str) -> str:
    """A game the registry knows, picked by name or title (the option offers them)."""
    kinds = game_kinds()
    for kind, title in kinds.items():
        if value.strip().casefold() in (kind, title.casefold()):
            return kind
    raise PaddockError(f"Pick a game from the list: {', '.join(kinds.values())}.")


def _check_colour(league: League, colour: str | None) -> str | None:
    if colour is None:
        return None
    colour = colour.strip().casefold()
    allowed = car_colours(league.game)
    if not allowed:
        raise PaddockError(f"{game_kinds()[league.game]} has no car colours; leave colour empty.")
    if colour not in allowed:
        raise PaddockError(f"Pick a colour from: {', '.join(allowed)}.")
    return colour


class LeagueCog(commands.Cog):
    league = app_commands.Group(
        name="league",
        description="Championships: standings, calendar and results",
        guild_only=True,
    )
    # Discord shows this group only to members with Manage Server (a server can allow more in
    # Server Settings > Integrations); each command still checks `is_league_admin` itself.
    admin = app_commands.Group(
        name="league-admin",
        description="League admins: calendar, results, members, points, closing a season",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    confirm_seconds: float = 180.0  # how long a Confirm button works

    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        bot.component_routes["league"] = self.on_button

    @property
    def store(self):  # noqa: ANN201 - the bot's store
        return self.bot.store

    async def _league(self, interaction: discord.Interaction, name: str) -> League:
        assert interaction.guild is not None
        return await self.store.get_league(interaction.guild.id, name)

    async def _member_of(self, league: League, user_id: int) -> Member:
        member = await self.store.member_by_user(league.id, user_id)
        if member is None:
            raise PaddockError(f"<@{user_id}> is not a member of **{shown(league.label)}**.")
        return member

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
        await result(
            interaction,
            f"{interaction.user.mention} joined **{shown(found.label)}**{car} as "
            f"{shown(member.display_name)}.",
            channel=interaction.channel,
        )

    @league.command(name="leave", description="Leave a league (your results stay)")
    @league_option(open_only=True)
    async def leave(self, interaction: discord.Interaction, league: str) -> None:
        await think(interaction, ephemeral=True)  # before the store
        found = await self._league(interaction, league)
        await self.store.leave_league(found, interaction.user.id)
        await result(
            interaction,
            f"You left **{shown(found.label)}**. Your results this season stay in the standings.",
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

    # Admins: /league-admin, hidden by Discord from members without Manage Server ----------

    @admin.command(name="round-set", description="Add a round or change its name or date")
    @app_commands.describe(
        number="Round number (start typing: the rounds so far and the next one)",
        name="e.g. Silverstone",
        date="Free text",
    )
    @league_option(open_only=True, rounds_offered="calendar", round_param="number")
    @league_admin
    async def round_set(
        self,
        interaction: discord.Interaction,
        league: str,
        number: app_commands.Range[int, 1, 99],
        name: app_commands.Range[str, 1, 60],
        date: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        if not 1 <= number <= 99:
            raise PaddockError("Round numbers go from 1 to 99.")
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        rnd = await self.store.set_round(found, number, name, date)
        await result(
            interaction,
            f"Round {rnd.number} of **{shown(found.label)}** is {shown(rnd.name)}"
            + (f" ({shown(rnd.scheduled)})." if rnd.scheduled else "."),
            channel=interaction.channel,
        )

    @admin.command(name="round-remove", description="Remove a round with no result")
    @app_commands.describe(number="Round number (start typing: the rounds with no result)")
    @league_option(open_only=True, rounds_offered="to race", round_param="number")
    @league_admin
    async def round_remove(
        self,
        interaction: discord.Interaction,
        league: str,
        number: app_commands.Range[int, 1, 99],
    ) -> None:
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        rnd = await self.store.remove_round(found, number)
        await result(
            interaction,
            f"Round {rnd.number} ({shown(rnd.name)}) removed from **{shown(found.label)}**.",
            channel=interaction.channel,
        )

    @admin.command(name="record", description="Record a round raced elsewhere")
    @app_commands.describe(
        round="Round number (start typing: the rounds with no result)",
        order="Drivers in finishing order, as mentions: @first @second @third ...",
        retired="Drivers among them who retired (they keep the place given)",
    )
    @league_option(open_only=True, rounds_offered="to race")
    @league_admin
    async def record(
        self,
        interaction: discord.Interaction,
        league: str,
        round: app_commands.Range[int, 1, 99],
        order: app_commands.Range[str, 1, 1000],
        retired: app_commands.Range[str, 1, 1000] | None = None,
    ) -> None:
        user_ids = [int(u) for u in MENTION.findall(order)]
        if not user_ids:
            raise PaddockError("List the drivers in finishing order as mentions: `@a @b @c`.")
        if len(set(user_ids)) != len(user_ids):
            raise PaddockError("A driver appears twice in the order; list each driver once.")
        retired_ids = {int(u) for u in MENTION.findall(retired or "")}
        if retired_ids - set(user_ids):
            raise PaddockError("Every retired driver must also be in the finishing order.")
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        rnd = await self.store.get_round(found, round)
        placings = []
        for place, uid in enumerate(user_ids, start=1):
            member = await self._member_of(found, uid)
            placings.append((member.id, place, "retired" if uid in retired_ids else "finished"))
        await self.store.record_round(found, rnd, placings, source="manual")
        await result(
            interaction,
            f"Round {rnd.number} ({shown(rnd.name)}) of **{shown(found.label)}** recorded: "
            + ", ".join(f"{p}. <@{u}>" for p, u in enumerate(user_ids, start=1)),
            channel=interaction.channel,
        )

    @admin.command(name="correct", description="Change one driver's result in a round")
    @app_commands.describe(
        round="Round number (start typing: the rounds raced)",
        place="New place (leave empty for unclassified)",
    )
    @app_commands.choices(status=STATUS_CHOICES)
    @league_option(open_only=True, rounds_offered="raced")
    @league_admin
    async def correct(
        self,
        interaction: discord.Interaction,
        league: str,
        round: app_commands.Range[int, 1, 99],
        driver: discord.User,
        place: app_commands.Range[int, 1, 99] | None = None,
        status: app_commands.Choice[str] | None = None,
    ) -> None:
        if place is not None and place < 1:
            raise PaddockError("Places start at 1.")
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        rnd = await self.store.get_round(found, round)
        member = await self._member_of(found, driver.id)
        new_status = status.value if status else "finished"
        await self.store.correct_result(found, rnd, member, place, new_status)
        where = f"place {place}" if place else "unclassified"
        await result(
            interaction,
            f"Corrected: {shown(member.display_name)} is {where} ({new_status}) in round "
            f"{rnd.number} of **{shown(found.label)}**.",
            channel=interaction.channel,
        )

    @admin.command(name="remove-member", description="Remove a driver from a league (confirm)")
    @app_commands.describe(driver="The driver to remove (their results stay)")
    @league_option(open_only=True)
    @league_admin
    async def remove_member(
        self, interaction: discord.Interaction, league: str, driver: discord.User
    ) -> None:
        found = await self._league(interaction, league)
        _require_open(found)
        member = await self.store.member_by_user(found.id, driver.id)
        if member is None or not member.active:
            raise PaddockError(f"<@{driver.id}> is not a member of **{shown(found.label)}**.")
        await self._ask(
            interaction,
            found,
            f"Remove {shown(member.display_name)} (<@{driver.id}>) from "
            f"**{shown(found.label)}**? Their results stay in the standings.",
            "remove",
            driver.id,
        )

    @admin.command(name="points", description="Change the league's points table")
    @app_commands.choices(table=TABLE_CHOICES)
    @league_option(open_only=True)
    @league_admin
    async def points(
        self,
        interaction: discord.Interaction,
        league: str,
        table: app_commands.Choice[str] | None = None,
        custom_points: app_commands.Range[str, 1, 120] | None = None,
    ) -> None:
        if table is None and not custom_points:
            raise PaddockError("Choose a `table` or give `custom_points` like 10-8-6-4-2-1.")
        name, values = _points_choice(table.value if table else None, custom_points)
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        updated = await self.store.set_points_table(found, name, values)
        await result(
            interaction,
            f"**{shown(updated.label)}** now scores {'-'.join(map(str, updated.points))}; "
            "the standings are recounted with it.",
            channel=interaction.channel,
        )

    @admin.command(name="robots", description="Do robots in league races take places?")
    @app_commands.describe(
        places="on: robots keep their places (a member behind one scores less); "
        "off (default): members are placed by their order among members"
    )
    @app_commands.choices(
        places=[
            app_commands.Choice(name="off: members by their order among members", value="off"),
            app_commands.Choice(name="on: robots take places", value="on"),
        ]
    )
    @league_option(open_only=True)
    @league_admin
    async def robots(
        self, interaction: discord.Interaction, league: str, places: app_commands.Choice[str]
    ) -> None:
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        updated = await self.store.set_robots_take_places(found, places.value == "on")
        await result(
            interaction,
            f"**{shown(updated.label)}**: {_robots_rule(updated)}. "
            "Rounds already recorded keep their results.",
            allowed_mentions=discord.AllowedMentions.none(),
            channel=interaction.channel,
        )

    @admin.command(name="archive", description="How long after a race ends its thread is archived")
    @app_commands.describe(
        hours="Hours after the finish (or abandon) until the race's thread is archived "
        "(0-168, default 1); it stays open to talk in"
    )
    @league_option(open_only=True)
    @league_admin
    async def archive(
        self, interaction: discord.Interaction, league: str, hours: app_commands.Range[int, 0, 168]
    ) -> None:
        if not 0 <= hours <= 168:  # Discord keeps the range; discord.py does not check it
            raise PaddockError(
                "Give 0 to 168 hours (a week): how long after a race ends its thread is archived."
            )
        await think(interaction)  # before the store's write (a refusal follows privately)
        found = await self._league(interaction, league)
        updated = await self.store.set_archive_hours(found, hours)
        await result(
            interaction,
            f"**{shown(updated.label)}**: {_archive_rule(updated)}.",
            allowed_mentions=discord.AllowedMentions.none(),
            channel=interaction.channel,
        )

    @admin.command(name="close-season", description="Close the season: final standings (confirm)")
    @league_option(open_only=True)
    @league_admin
    async def close_season(self, interaction: discord.Interaction, league: str) -> None:
        found = await self._league(interaction, league)
        _require_open(found)
        await self._ask(
            interaction,
            found,
            f"Close season {found.season} of **{shown(found.name)}**? This cannot be undone.",
            "close",
        )

    @admin.command(name="admin-role", description="Manage Server: the role that runs leagues")
    @app_commands.describe(role="Members with this role are league admins (empty: none)")
    @app_commands.check(manage_server_only)
    async def admin_role(
        self, interaction: discord.Interaction, role: discord.Role | None = None
    ) -> None:
        assert interaction.guild is not None
        await think(interaction, ephemeral=True)  # before the store
        await self.store.set_admin_role(interaction.guild.id, role.id if role else None)
        text = (
            f"League admins: Manage Server and the {role.mention} role."
            if role
            else "League admins: members with Manage Server only."
        )
        await result(interaction, text)

    # Confirmations ---------------------------------------------------------------------

    async def _ask(
        self,
        interaction: discord.Interaction,
        league: League,
        question: str,
        action: str,
        target: int | None = None,
    ) -> None:
        """An ephemeral question with Confirm / Cancel. Nothing changes until Confirm; the
        buttons name the admin who asked (only they may press them) and expire after
        `confirm_seconds`, after which Confirm changes nothing."""
        expires = int(time.time() + self.confirm_seconds)
        asker = interaction.user.id
        arg = f"{asker}.{expires}" + (f".{target}" if target is not None else "")
        await interaction.response.send_message(
            question,
            view=view_of(
                button(
                    "Confirm", "league", league.id, action, arg, style=discord.ButtonStyle.danger
                ),
                button("Cancel", "league", league.id, "cancel", f"{asker}.{expires}"),
            ),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _answer(
        self, interaction: discord.Interaction, league: League, action: str, arg: str
    ) -> None:
        """Confirm or Cancel pressed: checked again (the admin who asked, in time, still an
        admin, the league as it was), then done."""
        parts = arg.split(".")
        wanted = {"close": 2, "cancel": 2, "remove": 3}[action]
        if len(parts) != wanted or not all(p.isdigit() and len(p) <= 20 for p in parts):
            raise PaddockError(INVALID_BUTTON)
        asker, expires = int(parts[0]), int(parts[1])
        if interaction.user.id != asker:
            raise PaddockError("Only the admin who asked can answer this.")
        if action == "cancel":
            await interaction.response.edit_message(
                content="Cancelled: nothing changed.", view=None
            )
            return
        if time.time() >= expires:
            await interaction.response.edit_message(
                content="This question timed out: nothing changed. Run the command again.",
                view=None,
            )
            return
        await is_league_admin(interaction)  # an admin when asked may not be one now
        if action == "close":
            await self._close(interaction, league)
        else:
            await self._remove(interaction, league, int(parts[2]))

    async def _close(self, interaction: discord.Interaction, league: League) -> None:
        await defer(interaction)  # before the store: the question is edited through it
        closed = await self.store.close_season(league)
        report = await standings_report(self.store, closed)
        champion = [
            shown(report.members[r.member].display_name) for r in report.rows if r.position == 1
        ]
        crown = f" Champion: {' and '.join(champion)}." if champion and report.rounds_done else ""
        await edit_source(interaction, content="Season closed.", view=None)
        await interaction.followup.send(
            f"Season {closed.season} of **{shown(closed.name)}** is closed.{crown} "
            f"`/league create name:{in_code(closed.name)}` starts the next season.",
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _remove(self, interaction: discord.Interaction, league: League, user_id: int) -> None:
        await defer(interaction)  # before the store: the question is edited through it
        member = await self.store.leave_league(league, user_id)
        await edit_source(interaction, content="Removed.", view=None)
        await interaction.followup.send(
            f"{shown(member.display_name)} was removed from **{shown(league.label)}**; their "
            "results stay.",
            allowed_mentions=discord.AllowedMentions.none(),
        )

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
            assert arg is not None
            await self._answer(interaction, league, action, arg)
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
        await result(
            interaction,
            f"{interaction.user.mention} joined **{shown(league.label)}**{car}. Choose another "
            f"colour with `/league join league:{in_code(league.name)} colour:...`."
            if member.colour
            else f"{interaction.user.mention} joined **{shown(league.label)}**.",
            channel=interaction.channel,
        )


def _archive_rule(league: League) -> str:
    after = (
        "as soon as"
        if league.archive_hours == 0
        else f"{counted(league.archive_hours, 'hour')} after"
    )
    return f"a race's thread is archived {after} the race ends (anyone may still talk in it)"


def _robots_rule(league: League) -> str:
    if league.robots_take_places:
        return "robots in a race take places: members score by their place among all cars"
    return "league points go to members by their order among members (robots take none)"


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(LeagueCog(bot))
