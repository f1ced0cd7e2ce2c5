"""The daily digest: one direct message a day, at the hour a driver chose in their own time
zone, listing every race waiting for them (on every server), each with its game, title, a
link to its thread and their deadline as a Discord timestamp. Opt-in (`/games digest:on`).

One timer of no game per person who opted in (`digest`, payload {"user": id}; a timer of no
game is shard 0's), re-armed for the next day each time it fires. Nothing is sent when no
race waits, while they are away, and never in their quiet hours (the digest waits for their
end).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.availability import next_daily, of_settings, out_of_quiet, quiet_window
from bot.components import shown
from bot.presenter import timestamp
from bot.table.core import MENTION_NONE
from store.errors import NotFound
from store.models import Timer, UserSettings

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.digest")

DIGEST = "digest"  # the timer's event: `on_digest_timer_complete`
MAX_LINES = 20


async def arm(bot: PaddockBot, settings: UserSettings) -> float | None:
    """The person's digest timer at its next hour (none when the digest is off)."""
    at = None
    if settings.digest:
        zone = settings.timezone or "UTC"
        quiet = of_settings(settings).quiet
        at = next_daily(bot.timers.clock(), settings.digest_at, zone, quiet)
    await bot.store.set_user_timer(DIGEST, settings.user_id, at)
    bot.timers.poke()
    return at


async def seat_deadline(bot: PaddockBot, game_id: int, area: str, seat: int) -> float | None:
    """When this seat's turn times out (drivers away or quiet have clocks of their own)."""
    due = [
        t.due_at
        for t in await bot.store.timers(game_id)
        if t.event == f"{area}_timeout"
        and seat in (t.payload.get("seats") or [t.payload.get("seat")])
    ]
    return min(due) if due else None


async def waiting_lines(bot: PaddockBot, user_id: int) -> list[str]:
    """One line for each race waiting for `user_id`'s decision, on every server."""
    table = bot.table
    lines = []
    for record in await bot.store.running_games_of_user(user_id):
        presenter = table.presenters.get(record.kind)
        if presenter is None or record.state_json is None:
            continue
        try:
            loaded = await table.load(record.id)
        except NotFound:
            continue
        mine = loaded.human_seat(user_id)
        if mine is None or mine.autopilot or mine.seat not in presenter.waiting_seats(loaded.state):
            continue
        title = record.settings.get("title")
        named = f" {shown(str(title))}" if title else ""
        link = f"https://discord.com/channels/{record.guild_id or '@me'}/{record.where_id}"
        due = await seat_deadline(bot, record.id, presenter.area, mine.seat)
        when = f", due {timestamp(due, 'F')} ({timestamp(due)})" if due else ""
        lines.append(f"• **{presenter.title}** #{record.id}{named}: {link}{when}")
    return lines


async def on_digest(bot: PaddockBot, timer: Timer) -> None:
    """A digest timer is due: tomorrow's armed first, then today's sent if anything waits."""
    user_id = int(timer.payload["user"])
    now = bot.timers.clock()
    settings = await bot.store.user_settings(user_id, now)
    if not settings.digest:
        return
    avail = of_settings(settings)
    if quiet_window(now, avail.quiet) is not None:  # quiet hours set since it was armed
        await bot.store.set_user_timer(DIGEST, user_id, out_of_quiet(now, avail.quiet))
        bot.timers.poke()
        return
    await arm(bot, settings)
    if avail.away(now):
        return
    lines = await waiting_lines(bot, user_id)
    if not lines:
        return
    more = f"\n… and {len(lines) - MAX_LINES} more" if len(lines) > MAX_LINES else ""
    text = (
        f"☀ Your daily digest: {len(lines)} race{'s' * (len(lines) != 1)} waiting for you\n"
        + "\n".join(lines[:MAX_LINES])
        + more
    )
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        await user.send(text[:2000], allowed_mentions=MENTION_NONE)
    except discord.HTTPException:
        log.info("could not DM the digest to %s", user_id)
