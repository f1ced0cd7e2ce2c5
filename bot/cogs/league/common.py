"""What the league cogs share: who is a league admin, the options' choices, checks of what
a command names, and the base both cogs stand on (the bot's store, a league by name)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import shown
from bot.errors import NotAdmin
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
from store import League, Member

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


def _archive_rule(league: League) -> str:
    after = (
        "as soon as"
        if league.archive_hours == 0
        else f"{counted(league.archive_hours, 'hour')} after"
    )
    return f"a race's thread is archived {after} the race ends (anyone may still talk in it)"


def _away_rule(league: League) -> str:
    what = (
        "the robot decides for them at once"
        if league.away_policy == "robot"
        else "their deadlines wait until they are back"
    )
    return (
        f"each member may be away {counted(league.away_days, 'day')} a season "
        f"(`/games away:`); while away, {what}"
    )


def _robots_rule(league: League) -> str:
    if league.robots_take_places:
        return "robots in a race take places: members score by their place among all cars"
    return "league points go to members by their order among members (robots take none)"


class LeagueBase(commands.Cog):
    """The bot's store, and a league or member named in a command."""

    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot

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
