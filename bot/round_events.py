"""A league round as a Discord scheduled event on its server (when the bot has Manage
Events): made when the round gets a start, moved with it, deleted when the round loses its
start, is removed or its season closes. Without Manage Events none of this happens and
rounds still open; `/league-admin setup` says so once. A failure is logged, never an error
for the admin: the event is a courtesy, the round's timer is what opens it."""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import discord

from bot.limits import MINUTE
from bot.race_settings import RaceSettings
from store.models import League, Round

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.events")

MIN_EVENT_MINUTES = 60  # an event lasts the sign-up window, and at least this long


def may_schedule(bot: PaddockBot, guild_id: int) -> bool:
    guild = bot.get_guild(guild_id)
    me = guild.me if guild is not None else None
    return me is not None and me.guild_permissions.manage_events


def _wanted(league: League, rnd: Round) -> bool:
    return (
        league.is_open
        and league.channel_id is not None
        and rnd.starts_at is not None
        and rnd.status == "scheduled"
        and rnd.opened_at is None
    )


async def sync_round_event(bot: PaddockBot, league: League, rnd: Round) -> None:
    """The round's event made, moved or deleted to match the round (once it is opened the
    event stays as it was: the race has begun)."""
    guild = bot.get_guild(league.guild_id)
    if guild is None or not may_schedule(bot, league.guild_id):
        return
    try:
        if not _wanted(league, rnd):
            if rnd.event_id is not None and rnd.opened_at is None:
                await _delete(bot, guild, rnd)
            return
        assert rnd.starts_at is not None and league.channel_id is not None
        race = RaceSettings.of(league)
        start = datetime.fromtimestamp(rnd.starts_at, UTC)
        minutes = max(race.signup_minutes, MIN_EVENT_MINUTES)
        end = datetime.fromtimestamp(rnd.starts_at + minutes * MINUTE, UTC)
        channel = guild.get_channel(league.channel_id)
        where = f"#{channel.name}" if channel is not None else "this server"
        live = " A live round: short decisions." if race.mode_of(rnd) == "live" else ""
        name = f"{league.name} round {rnd.number}: {rnd.name}"[:100]
        about = f"Sign-up opens in {where} at the start; the race starts when it closes.{live}"
        if rnd.event_id is not None:
            try:
                event = await guild.fetch_scheduled_event(rnd.event_id)
                await event.edit(
                    name=name,
                    description=about,
                    start_time=start,
                    end_time=end,
                    location=where[:100],
                    entity_type=discord.EntityType.external,
                )
                return
            except discord.NotFound:
                pass  # a moderator deleted it: a new one
        event = await guild.create_scheduled_event(
            name=name,
            description=about,
            start_time=start,
            end_time=end,
            location=where[:100],
            entity_type=discord.EntityType.external,
            privacy_level=discord.PrivacyLevel.guild_only,
        )
        await bot.store.set_round_event(rnd.id, event.id)
    except discord.HTTPException as exc:
        log.warning("round %s: scheduled event not kept in step: %s", rnd.id, exc)


async def _delete(bot: PaddockBot, guild: discord.Guild, rnd: Round) -> None:
    assert rnd.event_id is not None
    with contextlib.suppress(discord.NotFound):  # deleted already
        await bot.http.delete_scheduled_event(guild.id, rnd.event_id)
    await bot.store.set_round_event(rnd.id, None)


async def drop_round_events(bot: PaddockBot, league: League, rounds: list[Round]) -> None:
    """The events of rounds that will not open (removed, or their season closed)."""
    guild = bot.get_guild(league.guild_id)
    if guild is None or not may_schedule(bot, league.guild_id):
        return
    for rnd in rounds:
        if rnd.event_id is not None and rnd.opened_at is None:
            try:
                await _delete(bot, guild, rnd)
            except discord.HTTPException as exc:
                log.warning("round %s: scheduled event not deleted: %s", rnd.id, exc)
