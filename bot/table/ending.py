"""A game that is over: how it ended, what a command used in its thread is told, and its
thread archived a while later (Discord allows a server 1,000 active threads)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.limits import HOUR
from bot.presenter import Presenter
from rules.errors import PaddockError
from store.errors import NotFound
from store.models import GameRecord, Timer, TimerSpec

if TYPE_CHECKING:
    from bot.table.core import TableCore

log = logging.getLogger("paddock.table")

ARCHIVE = "paddock_archive"  # the timer that archives a race's thread a while after its end
ARCHIVE_HOURS = 1  # that while, for a race in no league (a league sets its own)


def ending(record: GameRecord) -> str:
    """How a game that is over ended: finished, abandoned (a race stopped) or cancelled
    (a lobby closed before the start)."""
    if record.status == "finished":
        return "finished"
    return "abandoned" if record.state_json is not None else "cancelled"


class Endings:
    def __init__(self, core: TableCore) -> None:
        self.core = core
        core.bot.add_listener(self.on_archive, f"on_{ARCHIVE}_timer_complete")

    async def game_here(
        self,
        interaction: discord.Interaction,
        presenter: Presenter[Any],
        *,
        running: bool = True,
        ended: bool = False,
    ) -> GameRecord:
        """The game of this thread (or the newest of this channel, for games played in
        one). A game that is over is refused with how it ended and what still works,
        unless `ended` (a command that shows it: its log, its replay) and it was played."""
        where = {"thread_id" if presenter.in_thread else "channel_id": interaction.channel_id}
        record = await self.core.store.latest_game(presenter.kind, **where)
        place = "thread" if presenter.in_thread else "channel"
        if record is None:
            raise PaddockError(f"There is no {presenter.title} {presenter.noun} in this {place}.")
        if record.status not in ("lobby", "running"):
            if not ended or record.state_json is None:
                raise PaddockError(self.over_text(record))
            return record
        if running and record.status != "running":
            raise PaddockError(f"This {presenter.noun} has not started yet.")
        return record

    def over_text(self, record: GameRecord) -> str:
        """One line for a command used where a game is over: how it ended, and what still
        works there (its log, its replay, the league table, a new game)."""
        presenter = self.core.presenter(record)
        area, noun = presenter.area, presenter.noun
        if presenter.in_thread:
            subject, again = f"This {noun}", f"`/{area} new` opens a new {noun}"
        else:
            subject = f"The last {presenter.title} {noun} in this channel"
            again = f"`/{area} start` begins a new {noun} here"
        how_it_ended = ending(record)
        if how_it_ended == "cancelled":
            return (
                f"{subject} is over: its lobby was cancelled before the start, so nothing "
                f"was played. {again}."
            )
        league = record.league_id is not None
        how = "it has finished" if how_it_ended == "finished" else "it was abandoned"
        if how_it_ended == "abandoned" and league:
            how += ", so it scores no league points"
        still = [f"`/{area} log` tells its moves"]
        group = self.core.bot.tree.get_command(area)
        if isinstance(group, app_commands.Group) and group.get_command("replay") is not None:
            still.append(f"`/{area} replay` shows it again")
        if league and how_it_ended == "finished":
            still.append("`/league standings` shows the league table")
        if not presenter.in_thread:
            still.append(again)
        told = ", ".join(still[:-1]) + (" and " if len(still) > 1 else "") + still[-1]
        return f"{subject} is over: {how}. {told}."

    async def end_timers(self, record: GameRecord) -> list[TimerSpec]:
        """The timers a game's end arms, stored with the end (which drops the others): its
        race thread archived after its league's grace (ARCHIVE_HOURS without a league).
        None for a game played in a channel: the channel is not the bot's to archive."""
        if not self.core.presenter(record).in_thread or record.thread_id is None:
            return []
        hours = ARCHIVE_HOURS
        if record.league_id is not None:
            hours = (await self.core.store.league_by_id(record.league_id)).archive_hours
        return [TimerSpec(event=ARCHIVE, due_at=self.core.clock() + hours * HOUR)]

    async def on_archive(self, timer: Timer) -> None:
        """A while after a race ended, its thread is archived, not locked: it leaves the
        server's active threads and anyone may still talk in it. A thread a moderator
        locked, or one the bot may not archive, is left as it is."""
        assert timer.game_id is not None
        try:
            record = await self.core.store.load_game(timer.game_id)
        except NotFound:
            return
        if record.status in ("lobby", "running") or record.thread_id is None:
            return  # not over (a stray timer): its thread is in use
        try:
            thread = await self.core.bot.fetch_channel(record.thread_id)  # as it is now
            if not isinstance(thread, discord.Thread) or thread.archived or thread.locked:
                return
            await thread.edit(archived=True, locked=False)
        except discord.HTTPException as exc:  # no Manage Threads (403), deleted, an outage
            log.warning(
                "game %s: could not archive thread %s: %s", record.id, record.thread_id, exc
            )
            return
        log.info("game %s: archived its thread %s", record.id, record.thread_id)
