"""A race's life after its start, besides its moves: ending it (abandon, an idle race),
handing a car to the robot (replace, autopilot), and showing it again (`status`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.components import button, shown, view_of
from bot.errors import is_expired
from bot.posting import edit_source, result, think
from bot.presenter import Loaded, Presenter, TablePort
from bot.table.core import MENTION_NONE
from rules.errors import PaddockError
from store.models import GameRecord

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.ending import Endings
    from bot.table.moves import Moves
    from bot.table.publish import Publisher

log = logging.getLogger("paddock.table")


class Life:
    def __init__(
        self,
        core: TableCore,
        moves: Moves,
        publisher: Publisher,
        endings: Endings,
        port: TablePort,
    ) -> None:
        self.core = core
        self.moves = moves
        self.publisher = publisher
        self.endings = endings
        self.port = port  # what a presenter is given (its repost, its recovery)

    async def close(self, record: GameRecord, notice: str) -> bool:
        """End a lobby or a race with no league points (its status and timers in one
        transaction), strip its live message of buttons and post `notice`. False when it
        had already ended."""
        timers = await self.endings.end_timers(record)
        if not await self.core.store.end_game(
            record.id, from_status=(record.status,), timers=timers
        ):
            return False
        self.core.forget(record.id)
        live = record.status_message_id if record.status == "lobby" else record.prompt_message_id
        channel = await self.core.channel_of(record)
        await self.publisher.strip_prompt(channel, live)
        await channel.send(notice, allowed_mentions=MENTION_NONE)
        return True

    # Life cycle ------------------------------------------------------------------------

    async def abandon(
        self, interaction: discord.Interaction, record: GameRecord, *, confirmed: bool
    ) -> None:
        presenter = self.core.presenter(record)
        await self.core.require_manager(interaction, record, f"abandon this {presenter.noun}")
        if record.status == "lobby":
            raise PaddockError(f"This {presenter.noun} has not started: use Cancel in its lobby.")
        if record.status != "running":
            raise PaddockError(f"This {presenter.noun} is already over.")
        if not confirmed:
            await interaction.response.send_message(
                f"Abandon {presenter.title} {presenter.noun} #{record.id}? It ends now and no "
                "league points are recorded.",
                view=view_of(
                    button(
                        "Abandon the race",
                        presenter.area,
                        record.id,
                        "abandon",
                        style=discord.ButtonStyle.danger,
                    )
                ),
                ephemeral=True,
            )
            return
        notice = (
            f"🏳 {interaction.user.mention} abandoned this {presenter.noun}. No league points "
            "are recorded."
        )
        async with self.core.lock(record.id):
            if not await self.close(record, notice):
                raise PaddockError(f"This {presenter.noun} is already over.")
        await edit_source(interaction, content="Abandoned.", view=None)  # (deferred: route)

    async def replace(
        self, interaction: discord.Interaction, record: GameRecord, user: discord.abc.User
    ) -> None:
        presenter = self.core.presenter(record)
        _robots_drive(presenter)
        await self.core.require_manager(interaction, record, "hand a car to a robot")
        await think(interaction)  # before the race's lock (held while a move is shown)
        async with self.core.lock(record.id):
            loaded = await self.core.load(record.id)
            seat = loaded.human_seat(user.id)
            if seat is None:
                raise PaddockError(f"{user.mention} is not driving in this {presenter.noun}.")
            await self.core.store.update_seat(record.id, seat.seat, robot=True)
            loaded.seats[seat.seat] = seat.model_copy(update={"robot": True})
            await result(
                interaction,
                f"🤖 {interaction.user.mention} handed {user.mention}'s car "
                f"({shown(seat.name)}) to a robot for the rest of the "
                f"{presenter.noun}; it scores no league points.",
                allowed_mentions=MENTION_NONE,
                channel=await self.core.channel_of(record),
            )
            await self._robot_to_act(loaded, seat.seat)

    async def autopilot(
        self, interaction: discord.Interaction, record: GameRecord, on: bool
    ) -> None:
        presenter = self.core.presenter(record)
        _robots_drive(presenter)
        await think(interaction, ephemeral=True)  # before the race's lock
        async with self.core.lock(record.id):
            loaded = await self.core.load(record.id)
            seat = loaded.human_seat(interaction.user.id)
            if seat is None:
                raise PaddockError(f"You are not driving in this {presenter.noun}.")
            if seat.autopilot == on:
                raise PaddockError(f"Autopilot is already {'on' if on else 'off'} for you.")
            await self.core.store.update_seat(record.id, seat.seat, autopilot=on)
            loaded.seats[seat.seat] = seat.model_copy(update={"autopilot": on})
            await result(
                interaction,
                f"Autopilot {'on' if on else 'off'}: "
                + (
                    f"the robot plays your turns until you use `/{presenter.area} autopilot off`."
                    if on
                    else "you drive again from your next turn."
                ),
            )
            if on:
                await self._robot_to_act(loaded, seat.seat)
            elif seat.seat in presenter.waiting_seats(loaded.state):
                # Back in control mid-turn: a prompt with a clock of its own.
                now = self.core.clock()
                drivers = await self.core.waiting_drivers(loaded, loaded.state)
                self.core.race(record.id).silent = drivers.silent(now)
                timers = self.moves.timers_for(
                    loaded, loaded.state, now, fresh=True, drivers=drivers
                )
                await self.core.store.replace_game_timers(
                    record.id, self.core.armed(record.id, timers) or []
                )
                self.core.bot.timers.poke()
                await self.publisher.publish(loaded, [], key_before=None)

    async def _robot_to_act(self, loaded: Loaded, seat: int) -> None:
        """A seat just handed to the robot plays at once if it is to act."""
        presenter = self.core.presenter(loaded.record)
        if loaded.record.status == "running" and seat in presenter.waiting_seats(loaded.state):
            await self.moves.advance(loaded, [], key_before=presenter.move_key(loaded.state))

    async def status(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """Repost the live state: board, whose turn, deadline, and the prompt at the bottom
        (after the moves a failed post did not show, told as they would have been)."""
        try:
            await interaction.response.send_message("The race as it stands:", ephemeral=True)
        except discord.HTTPException as exc:
            if not is_expired(exc):
                raise
            log.warning("interaction %s expired: reposting all the same", interaction.id)
        async with self.core.lock(record.id):
            loaded = await self.core.load(record.id)
            await self.show_race(loaded)

    async def show_race(self, loaded: Loaded) -> None:
        """Post the race as it stands (under its lock): the actions no post showed yet, as
        recovery at start-up tells them, else the board and the prompt again. (A real-time
        game, Pit Formula, edits its live message without counting what it showed.)"""
        presenter = self.core.presenter(loaded.record)
        behind = (loaded.record.published_seq or 0) < loaded.record.seq
        if behind and presenter.turn_timers:
            await presenter.recover(self.port, loaded)
        else:
            await presenter.repost(self.port, loaded)


def _robots_drive(presenter: Presenter) -> None:
    if not presenter.robots_drive:
        raise PaddockError(
            f"{presenter.title} is played in real time: there are no turns for a robot to "
            f"take. `/{presenter.area} abandon` ends a game nobody plays."
        )
