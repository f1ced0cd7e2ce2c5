"""`/league-admin`: the admin tools (calendar, results, members, points, robots, archiving,
the league's site, closing a season, the admin role), a group Discord shows only to members
with Manage Server, whose commands still check the permission or the league admin role
themselves. Closing a season and removing a driver ask to confirm with a button."""

from __future__ import annotations

import contextlib
import time

import discord
from discord import app_commands

from bot.autocomplete import league_option
from bot.cogs.league.common import (
    MENTION,
    STATUS_CHOICES,
    TABLE_CHOICES,
    LeagueBase,
    _archive_rule,
    _away_rule,
    _points_choice,
    _require_open,
    _robots_rule,
    is_league_admin,
    league_admin,
    manage_server_only,
)
from bot.cogs.league.home import check_channel, check_role, events_note, home_answer
from bot.components import INVALID_BUTTON, button, in_code, shown, view_of
from bot.league_site import index_answer, web_answer
from bot.league_tables import standings_report
from bot.league_wrapup import wrap_up
from bot.posting import defer, edit_source, result, think
from bot.race_settings import MODES, RaceSettings, changed, round_choices
from bot.round_events import drop_round_events, sync_round_event
from bot.table.rounds import round_timers
from bot.when import parse_start, suggestions, timestamp, zone, zone_matches
from rules.errors import PaddockError
from store import League, Round

# `start:` words that take a round off the schedule
NO_START = ("none", "off", "no", "clear", "-")


def round_answer(league: League, rnd: Round) -> str:
    """What round-set answers: the round as it now stands, and what will happen at its
    start (or why nothing will)."""
    when = f", starting {timestamp(rnd.starts_at)}" if rnd.starts_at else ""
    extras = [f"{k}: {v}" for k, v in sorted(rnd.settings.items())]
    text = (
        f"Round {rnd.number} of **{shown(league.label)}** is {shown(rnd.name)}"
        + (f" ({shown(rnd.scheduled)})" if rnd.scheduled else "")
        + f"{when}"
        + (f" [{', '.join(extras)}]" if extras else "")
        + "."
    )
    if rnd.starts_at and rnd.status == "scheduled":
        if league.channel_id is None:
            text += (
                "\nNo race will open by itself until the league has a channel: set it with "
                "`/league-admin setup`."
            )
        else:
            text += (
                f"\nAt its start I open its race in <#{league.channel_id}> and ping its drivers."
            )
    return text


class LeagueAdminCog(LeagueBase):
    # Discord shows this group only to members with Manage Server (a server can allow more in
    # Server Settings > Integrations); each command still checks `is_league_admin` itself.
    admin = app_commands.Group(
        name="league-admin",
        description="League admins: home, schedule, race settings, results, members, season",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    confirm_seconds: float = 180.0  # how long a Confirm button works

    # Admins: /league-admin, hidden by Discord from members without Manage Server ----------

    @admin.command(name="round-set", description="Add a round or change its name, date or start")
    @app_commands.describe(
        number="Round number (start typing: the rounds so far and the next one)",
        name="e.g. Silverstone",
        date="Free text",
        start="When the bot opens its race: date, time and zone, e.g. 2026-12-12 20:00 "
        "Europe/Madrid (start typing; left out: unchanged; none: not scheduled)",
        mode="This round only: live (short decisions, a race night) or asynchronous",
        game="This round only, its game's own settings, e.g. a track (start typing: what its "
        "game offers; none: the league's)",
    )
    @app_commands.choices(
        mode=[
            app_commands.Choice(name="live: short decisions, a race night", value="live"),
            app_commands.Choice(name="asynchronous: a decision a day", value="async"),
            app_commands.Choice(name="the league's mode", value="league"),
        ],
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
        start: app_commands.Range[str, 1, 60] | None = None,
        mode: app_commands.Choice[str] | None = None,
        game: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        if not 1 <= number <= 99:
            raise PaddockError("Round numbers go from 1 to 99.")
        await think(interaction)  # before the store
        found = await self._league(interaction, league)
        presenter = self.bot.table.presenters[found.game]
        old = next((r for r in await self.store.rounds(found.id) if r.number == number), None)
        now = self.bot.timers.clock()
        starts_at = old.starts_at if old is not None else None
        if start is not None and start.strip().lower() in NO_START:
            starts_at = None
        elif start is not None:
            starts_at, _ = parse_start(start, default_zone=found.timezone, now=now)
        overrides = dict(old.settings) if old is not None else {}
        if mode is not None:
            overrides.pop("mode", None)
            if mode.value != "league":
                overrides["mode"] = mode.value
        if game is not None:
            overrides = {k: v for k, v in overrides.items() if k == "mode"}
            if game.strip().lower() not in NO_START:
                overrides.update(round_choices(presenter, game))
        planned = Round(
            id=old.id if old else 0,
            league_id=found.id,
            number=number,
            name=name,
            scheduled=date,
            status=old.status if old else "scheduled",
            starts_at=starts_at,
            settings=overrides,
        )
        rnd = await self.store.set_round(
            found,
            number,
            name,
            date,
            starts_at,
            settings=overrides,
            timers=round_timers(found, planned, now),
        )
        self.bot.timers.poke()
        await sync_round_event(self.bot, found, rnd)
        await result(
            interaction,
            round_answer(found, rnd),
            allowed_mentions=discord.AllowedMentions.none(),
            channel=interaction.channel,
        )

    @round_set.autocomplete("start")
    async def _start_options(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        zone_name = "UTC"
        league = getattr(interaction.namespace, "league", None)
        if interaction.guild is not None and isinstance(league, str):
            with contextlib.suppress(PaddockError):  # a league still being typed: UTC
                zone_name = (await self._league(interaction, league)).timezone
        try:
            offered = suggestions(current, default_zone=zone_name, now=self.bot.timers.clock())
        except PaddockError:
            offered = []
        return [app_commands.Choice(name=o, value=o) for o in offered[:25]]

    @admin.command(name="setup", description="Where a league's races open, its drivers' role")
    @app_commands.describe(
        channel="The channel its races open in (a thread each) and its news goes",
        role="A role /league join gives its drivers, so one mention pings a round (optional)",
        timezone="The time zone you write its times in, e.g. Europe/Madrid (default UTC)",
    )
    @league_option(open_only=True)
    @league_admin
    async def setup(
        self,
        interaction: discord.Interaction,
        league: str,
        channel: discord.TextChannel,
        role: discord.Role | None = None,
        timezone: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        assert interaction.guild is not None
        me = interaction.guild.me
        check_channel(channel, me)
        warnings = [check_role(role, me) if role is not None else None, events_note(me)]
        await think(interaction)  # before the store's write (a refusal follows privately)
        found = await self._league(interaction, league)
        zone_name = zone(timezone).key if timezone else found.timezone
        updated = await self.store.set_home(found, channel.id, role.id if role else None, zone_name)
        for rnd in await self.store.rounds(updated.id):  # rounds set before the home
            await sync_round_event(self.bot, updated, rnd)
        await result(
            interaction,
            "\n".join([home_answer(updated), *(w for w in warnings if w)]),
            allowed_mentions=discord.AllowedMentions.none(),
            channel=interaction.channel,
        )

    @setup.autocomplete("timezone")
    async def _zone_options(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=z, value=z) for z in zone_matches(current)]

    @admin.command(name="race-settings", description="How the bot opens the league's rounds")
    @app_commands.describe(
        mode="Asynchronous (a decision a day) or live (2-minute decisions, a race night)",
        turn_minutes="Asynchronous mode: minutes for a decision (1-10080, default 1440)",
        signup_minutes="How long sign-up stays open from a round's start (5-10080, default 60)",
        grid="Robots fill the grid up to this many cars (0: no robots)",
        reminder_hours="Hours before a round its drivers are reminded (0: no reminder; default 24)",
        idle_days="Days with nobody acting before a race is abandoned (1-60, default 7)",
        game="The league's game's own settings as name=value, e.g. laps=5 (start typing: what "
        "its game offers)",
    )
    @app_commands.choices(
        mode=[app_commands.Choice(name=text, value=key) for key, text in MODES.items()],
    )
    @league_option(open_only=True)
    @league_admin
    async def race_settings(
        self,
        interaction: discord.Interaction,
        league: str,
        mode: app_commands.Choice[str] | None = None,
        turn_minutes: app_commands.Range[int, 1, 10080] | None = None,
        signup_minutes: app_commands.Range[int, 5, 10080] | None = None,
        grid: app_commands.Range[int, 0, 20] | None = None,
        reminder_hours: app_commands.Range[int, 0, 168] | None = None,
        idle_days: app_commands.Range[int, 1, 60] | None = None,
        game: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        await think(interaction)  # before the store's write (a refusal follows privately)
        found = await self._league(interaction, league)
        presenter = self.bot.table.presenters[found.game]
        current = RaceSettings.of(found)
        values = {
            "mode": mode.value if mode else None,
            "turn_minutes": turn_minutes,
            "signup_minutes": signup_minutes,
            "grid": grid,
            "reminder_hours": reminder_hours,
            "idle_days": idle_days,
        }
        new = changed(current, presenter, values, game)
        if new != current:
            found = await self.store.set_race_settings(found, new.model_dump())
            await self._rearm(found)  # its rounds' reminders and events
        lines = "\n".join(f"• {line}" for line in new.lines(presenter))
        head = "changed" if new != current else "unchanged (give an option to change it)"
        await result(
            interaction,
            f"Race settings of **{shown(found.label)}**, {head}:\n{lines}\n"
            "Rounds opened already keep theirs.",
            allowed_mentions=discord.AllowedMentions.none(),
            channel=interaction.channel,
        )

    @race_settings.autocomplete("game")
    async def _league_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._choices_offered(interaction, current, rounds=False)

    @round_set.autocomplete("game")
    async def _round_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._choices_offered(interaction, current, rounds=True)

    async def _choices_offered(
        self, interaction: discord.Interaction, current: str, *, rounds: bool
    ) -> list[app_commands.Choice[str]]:
        """The game's own settings of the league being typed, as examples to edit."""
        league = getattr(interaction.namespace, "league", None)
        if interaction.guild is None or not isinstance(league, str):
            return []
        try:
            found = await self._league(interaction, league)
        except PaddockError:
            return []
        presenter = self.bot.table.presenters.get(found.game)
        if presenter is None:
            return []
        offered = presenter.round_choices if rounds else presenter.league_choices
        typed = current.strip()
        examples = [e for e in offered.values() if typed.lower() in e.lower()]
        if typed and "=" in typed:
            examples.insert(0, typed)  # what is typed, as it is
        return [app_commands.Choice(name=e[:100], value=e.split(" (")[0][:100]) for e in examples][
            :25
        ]

    async def _rearm(self, league: League) -> None:
        """The rounds still to open get their timers (a reminder's hours) and events (a
        sign-up's length, the mode) again."""
        now = self.bot.timers.clock()
        for rnd in await self.store.rounds(league.id):
            if rnd.starts_at is None or rnd.starts_at <= now or rnd.opened_at is not None:
                continue
            await self.store.set_round(
                league,
                rnd.number,
                rnd.name,
                rnd.scheduled,
                rnd.starts_at,
                timers=round_timers(league, rnd, now),
            )
            await sync_round_event(self.bot, league, rnd)
        self.bot.timers.poke()

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
        await drop_round_events(self.bot, found, [rnd])

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
        await wrap_up(self.bot, found.id, interaction.channel)  # the calendar's last round?

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
        await wrap_up(self.bot, found.id, interaction.channel)  # the calendar's last round?

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

    @admin.command(name="away", description="Away days a season allows, and what turns do then")
    @app_commands.describe(
        days="Away days each member may take a season (0-365, default 14)",
        policy="While a driver is away: their deadlines wait (default), or the robot decides",
    )
    @app_commands.choices(
        policy=[
            app_commands.Choice(name="wait: their deadlines wait for them", value="wait"),
            app_commands.Choice(name="robot: the robot decides for them at once", value="robot"),
        ]
    )
    @league_option(open_only=True)
    @league_admin
    async def away(
        self,
        interaction: discord.Interaction,
        league: str,
        days: app_commands.Range[int, 0, 365] | None = None,
        policy: app_commands.Choice[str] | None = None,
    ) -> None:
        if days is not None and not 0 <= days <= 365:  # Discord keeps the range
            raise PaddockError("Give 0 to 365 away days a season.")
        await think(interaction, ephemeral=True)  # before the store (a settings answer)
        found = await self._league(interaction, league)
        _require_open(found)
        updated = await self.store.set_league_away(
            found,
            found.away_days if days is None else days,
            found.away_policy if policy is None else policy.value,
        )
        await result(
            interaction,
            f"**{shown(updated.label)}**: {_away_rule(updated)}.",
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @admin.command(
        name="web",
        description="Public pages: a league's (on, off, new address, search) or the index",
    )
    @app_commands.describe(
        state="on: public at a secret address; off: private; regenerate: a new address; "
        "none: as it is",
        search="on: search engines may list the league's pages; off: noindex (the default)",
        scope="league (default): the league named; index: the server's index of its leagues",
    )
    @app_commands.choices(
        state=[
            app_commands.Choice(name="on: public pages at an unguessable address", value="on"),
            app_commands.Choice(name="off: private (the address shows nothing)", value="off"),
            app_commands.Choice(
                name="regenerate: a new address, the old one revoked", value="regenerate"
            ),
        ],
        search=[
            app_commands.Choice(name="on: search engines may list its pages", value="on"),
            app_commands.Choice(name="off: its pages say noindex (default)", value="off"),
        ],
        scope=[
            app_commands.Choice(name="league: the league named (default)", value="league"),
            app_commands.Choice(name="index: the server's index of public leagues", value="index"),
        ],
    )
    @league_option
    @league_admin
    async def web(
        self,
        interaction: discord.Interaction,
        league: str | None = None,
        state: app_commands.Choice[str] | None = None,
        search: app_commands.Choice[str] | None = None,
        scope: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild is not None
        guild_id = interaction.guild.id
        settings = self.bot.settings
        switched = state.value if state else None
        if scope is not None and scope.value == "index":
            if league is not None:
                raise PaddockError("`scope:index` is the server's index: leave out `league:`.")
            if search is not None:
                raise PaddockError("`search:` is a league's choice: the index always says noindex.")
            await think(interaction, ephemeral=True)  # the address is the admin's to share
            index = (
                await self.store.set_site_index(guild_id, switched)
                if switched
                else await self.store.site_index(guild_id)
            )
            answer = index_answer(settings, index, switched)
        else:
            if league is None:
                raise PaddockError(
                    "Name the league (`league:`), or give `scope:index` for the server's index."
                )
            await think(interaction, ephemeral=True)  # the address is the admin's to share
            found = await self._league(interaction, league)
            if switched:
                found = await self.store.set_web(found, switched)
            if search is not None:
                found = await self.store.set_web_search(found, search.value == "on")
            answer = web_answer(
                settings,
                found,
                switched,
                await self.store.site_index(guild_id),
                search_changed=search is not None,
            )
        await result(interaction, answer, allowed_mentions=discord.AllowedMentions.none())

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

    async def answer(
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
        await drop_round_events(self.bot, closed, await self.store.rounds(closed.id))
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
        await wrap_up(self.bot, closed.id, interaction.channel)  # unless posted already

    async def _remove(self, interaction: discord.Interaction, league: League, user_id: int) -> None:
        await defer(interaction)  # before the store: the question is edited through it
        member = await self.store.leave_league(league, user_id)
        await edit_source(interaction, content="Removed.", view=None)
        await interaction.followup.send(
            f"{shown(member.display_name)} was removed from **{shown(league.label)}**; their "
            "results stay.",
            allowed_mentions=discord.AllowedMentions.none(),
        )
