"""A league's home: the channel its races open in, the role its drivers get when they join
(so a round's ping is one role mention), the time zone its admins write times in. What the
bot may not do there is said once, in one line, when the home is set."""

from __future__ import annotations

import logging

import discord

from bot.components import shown
from rules.errors import PaddockError
from store import League

log = logging.getLogger("paddock.league")

# What the bot needs in a league's channel to open races there (a thread each).
CHANNEL_NEEDS = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "create_public_threads": "Create Public Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}


def check_channel(channel: discord.abc.GuildChannel, me: discord.Member | None) -> None:
    """Refuses a channel the bot cannot open races in, naming what to give it there."""
    if not isinstance(channel, discord.TextChannel):
        raise PaddockError(
            f"{channel.mention} is not a text channel: races open as threads in a text channel."
        )
    if me is None:
        return  # not cached: Discord refuses later, and each race says so
    allowed = channel.permissions_for(me)
    missing = [label for perm, label in CHANNEL_NEEDS.items() if not getattr(allowed, perm)]
    if missing:
        raise PaddockError(
            f"I can't open races in {channel.mention}: give me {', '.join(missing)} there, "
            "then run this again."
        )


def check_role(role: discord.Role, me: discord.Member | None) -> str | None:
    """Refuses a role no one can be given (@everyone, a bot's own, one above the bot's);
    returns the warning to tell the admin once if the bot lacks Manage Roles."""
    if role.is_default() or role.managed:
        raise PaddockError(
            f"{role.mention} can't be given to drivers: choose a role of your own, or none."
        )
    if me is None:
        return None
    if role >= me.top_role:
        raise PaddockError(
            f"{role.mention} is above my highest role, so I can't give it: move my role above "
            "it in Server Settings > Roles, then run this again."
        )
    if not me.guild_permissions.manage_roles:
        return (
            f"I don't have Manage Roles, so `/league join` won't give {role.mention} until I "
            "have it; joining the league still works."
        )
    return None


def events_note(me: discord.Member | None) -> str | None:
    """What the admin is told once when the bot lacks Manage Events."""
    if me is None or me.guild_permissions.manage_events:
        return None
    return (
        "I don't have Manage Events, so rounds won't show as the server's events until I have "
        "it; they still open at their start."
    )


def home_text(league: League) -> str:
    """The home as `/league info` and the setting's answer show it."""
    where = f"<#{league.channel_id}>" if league.channel_id else "wherever a race is opened"
    role = f", drivers get <@&{league.role_id}>" if league.role_id else ""
    return f"races open in {where}{role}; times in {league.timezone}"


async def give_role(member: discord.abc.User, league: League, *, on: bool) -> str:
    """Gives (on) or takes the league's role; what to add to the answer when that failed."""
    if league.role_id is None or not isinstance(member, discord.Member):
        return ""
    role = discord.Object(league.role_id)
    reason = f"{'joined' if on else 'left'} league {league.label}"
    try:
        if on:
            await member.add_roles(role, reason=reason)
        else:
            await member.remove_roles(role, reason=reason)
    except discord.HTTPException as exc:
        log.warning("league %s: role %s not %s: %s", league.id, league.role_id, reason, exc)
        verb = "give you" if on else "take back"
        return (
            f" (I couldn't {verb} <@&{league.role_id}>: an admin can check that I have "
            f"Manage Roles and that my role is above it.)"
        )
    return ""


def home_answer(league: League) -> str:
    """What `/league-admin setup` answers: the league and its home as now set."""
    return f"**{shown(league.label)}**: {home_text(league)}."
