"""Showing a race again after something went wrong: at start-up (the actions a stopped bot
stored but never posted), after a failed post (a timer tries again), and after a moderator
deleted its thread (a new one)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.components import shown
from bot.errors import NotPosted
from bot.presenter import TablePort
from bot.table.core import MENTION_NONE
from rules.errors import PaddockError
from store.errors import NotFound
from store.models import Timer

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.life import Life
    from bot.table.lobby import Lobby
    from bot.table.undo import Undos

log = logging.getLogger("paddock.table")

REPOST = "paddock_repost"  # the timer that shows a race again after a failed post


class Recovery:
    def __init__(
        self, core: TableCore, life: Life, lobby: Lobby, port: TablePort, undos: Undos
    ) -> None:
        self.core = core
        self.undos = undos  # an undo stored but not shown is shown as the undo would have
        self.life = life
        self.lobby = lobby
        self.port = port  # what a presenter is given (its recovery)
        self._recovered = False
        core.bot.add_listener(self.on_thread_gone, "on_raw_thread_delete")  # goes on elsewhere
        core.bot.add_listener(self.on_repost, f"on_{REPOST}_timer_complete")  # after a failure

    async def recover(self) -> None:
        """At start-up: every game whose last action did not reach the thread gets it now
        (robots play, the board and the prompt are posted), once per process."""
        if self._recovered:
            return
        self._recovered = True
        # only this process's shards: another process recovers the other guilds' games
        for record in await self.core.store.unpublished_games(shards=self.core.bot.timers.shards):
            if record.kind not in self.core.presenters:
                continue
            try:
                async with self.core.lock(record.id):
                    loaded = await self.core.load(record.id)
                    if not await self.undos.recovered(loaded):
                        await self.core.presenter(record).recover(self.port, loaded)
            except NotPosted as exc:  # stored; shown by `/<game> status` or the next start
                await self.not_shown(record.id, exc)
            except Exception:  # one broken game must not stop the others
                log.exception("could not recover game #%s", record.id)

    # Faults ----------------------------------------------------------------------------

    # Seconds before the bot tries again to show a race a post failed for (an outage, a
    # permission taken): then `/<game> status` or a restart.
    repost_delays: tuple[float, ...] = (60.0, 300.0, 1800.0)

    async def not_shown(self, game_id: int | None, exc: NotPosted, attempt: int = 0) -> None:
        """A post nobody was told about failed (a timer's, recovery's): stored all the same.
        A deleted thread is replaced; else the race is shown again a little later."""
        log.warning("game %s: %s (%s)", game_id, exc.message, exc.cause)
        if game_id is None:
            return
        if exc.gone:
            await self.reopen(game_id)
        elif attempt < len(self.repost_delays):  # a timer: it goes with the game's timers
            due = self.core.clock() + self.repost_delays[attempt]
            await self.core.bot.timers.create(REPOST, due, {"attempt": attempt}, game_id)

    async def on_repost(self, timer: Timer) -> None:
        """Show again a race whose post failed, unless something showed it meanwhile."""
        assert timer.game_id is not None
        try:
            async with self.core.lock(timer.game_id):
                loaded = await self.core.load(timer.game_id)
                record = loaded.record
                if record.status != "running" or (record.published_seq or 0) >= record.seq:
                    return  # shown meanwhile (a status, a move), or over
                await self.life.show_race(loaded)
        except NotPosted as exc:
            await self.not_shown(timer.game_id, exc, int(timer.payload.get("attempt", 0)) + 1)
        except (NotFound, PaddockError):
            return  # the game is gone or not started

    async def on_thread_gone(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A moderator deleted a race's thread: the race goes on in a new one."""
        for presenter in self.core.presenters.values():
            if not presenter.in_thread:
                continue
            record = await self.core.store.find_game(presenter.kind, thread_id=payload.thread_id)
            if record is not None:
                await self.reopen(record.id)

    async def reopen(self, game_id: int) -> None:
        """The race's thread is gone: a new thread in the same channel, announced there, gets
        the race as it stands (or its lobby). Nothing of the race is lost: it is all stored."""
        try:
            async with self.core.lock(game_id):
                record = await self.core.store.load_game(game_id)
                presenter = self.core.presenter(record)
                if (
                    not presenter.in_thread
                    or record.status not in ("lobby", "running")
                    or record.channel_id is None
                ):
                    return
                parent: Any = self.core.bot.get_channel(
                    record.channel_id
                ) or await self.core.bot.fetch_channel(record.channel_id)
                name = f"{presenter.area.upper()} {presenter.noun} #{record.id}"
                thread = await parent.create_thread(
                    name=name, type=discord.ChannelType.public_thread
                )
                await self.core.store.update_game(
                    record.id, thread_id=thread.id, prompt_message_id=None
                )
                self.core.race(record.id).last_board = None  # the new thread has seen no board
                title = shown(record.settings.get("title", presenter.title))
                await parent.send(
                    f"🏁 The thread of **{title}** - {presenter.noun} #{record.id} was deleted: "
                    f"it goes on in {thread.mention}.",
                    allowed_mentions=MENTION_NONE,
                )
                record = await self.core.store.load_game(record.id)
                if record.status == "lobby":
                    await self.lobby.post_lobby(thread, record)
                    return
                await self.life.show_race(await self.core.load(record.id))
        except (NotPosted, discord.HTTPException) as exc:
            log.warning("could not reopen the thread of game %s: %s", game_id, exc)
