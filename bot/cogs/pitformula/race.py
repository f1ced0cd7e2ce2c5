"""Pit Formula's race messages: the countdown and Go!, the race message kept up to date as
tokens go (bot/table/realtime.py coalesces the edits), the stopwatch, each race's scoring and
the final standings."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import discord

from bot.cogs.pitformula.presenter import AREA, KIND, names_of
from bot.cogs.pitformula.text import (
    finished_race_text,
    race_text,
    stopwatch_stopped_text,
    stopwatch_text,
)
from bot.components import button, shown, view_of
from bot.errors import NotPosted
from bot.presenter import Image, Loaded
from bot.table import draw
from bot.table.core import MENTION_NONE, mention_only
from renderer.common import counted
from renderer.pitformula import render_scoring, render_table
from rules.base import get_game
from rules.pitformula import (
    FLAG_NAMES,
    Go,
    PitFormulaState,
    TimeUp,
    car_of_seat,
    competitor_scores,
)
from store.models import Timer

if TYPE_CHECKING:
    from bot.cogs.pitformula.commands import PitCog

log = logging.getLogger("paddock.pit")


def table_image(state: PitFormulaState) -> Image:
    return Image("table.png", partial(render_table, state))


class Races:
    """The messages of a cog's races, published through the table (`cog.table`)."""

    def __init__(self, cog: PitCog) -> None:
        self.cog = cog
        self.table = cog.table
        self.store = cog.store
        self.live = cog.live

    async def next_race(self, game_id: int) -> None:
        """The countdown, then Go!: the race message, and the solo stopwatch."""
        record = await self.store.load_game(game_id)
        channel = await self.table.channel_of(record)
        game = get_game(KIND)
        state: PitFormulaState = game.load_state(record.state_json)
        crews: list[int] = []
        if state.race.number == 1:  # the game's first message that pings: its crews
            host = record.settings.get("host")
            seats = await self.store.seats(game_id)
            crews = [s.user_id for s in seats if s.user_id not in (None, host)]
        pings = "".join(f"<@{u}> " for u in crews)
        seconds = self.cog.countdown_seconds
        await self.live.countdown(
            channel,
            f"{pings}Race {state.race.number}: ready... (Go! in {seconds:.0f} s)",
            seconds,
            mention_only(*crews),
        )
        async with self.table.lock(game_id):
            loaded = await self.table.load(game_id)
            if loaded.record.status != "running" or loaded.state.phase != "ready":
                return  # abandoned meanwhile, or another process said Go!
            starter = game.to_act(loaded.state)[0]
            loaded, _ = await self.table.commit(loaded, Go(seat=starter), actor="bot")
            self.live.go(game_id)
            await self.post_race_message(loaded, "**Go!**\n")
        state = loaded.state
        if state.race.deadline_ms is not None:
            clock = await channel.send(stopwatch_text(state.race.deadline_ms))
            race = state.race.number

            async def tick(left_ms: int) -> bool:
                return await self._tick_stopwatch(game_id, race, clock, left_ms)

            self.live.start_stopwatch(
                game_id, clock, state.race.deadline_ms / 1000, self.cog.clock_interval, tick
            )

    async def post_race_message(self, loaded: Loaded[PitFormulaState], heading: str) -> None:
        channel = await self.table.channel_of(loaded.record)
        state = loaded.state
        message = await channel.send(
            heading + race_text(state, names_of(loaded)),
            files=await draw([table_image(state)]),
            view=view_of(
                button("My cards", AREA, loaded.id, "cards", style=discord.ButtonStyle.primary),
                button("Take flag", AREA, loaded.id, "flag", style=discord.ButtonStyle.success),
            ),
            allowed_mentions=MENTION_NONE,
        )
        await self.store.update_game(
            loaded.id, status_message_id=message.id, published_seq=loaded.record.seq
        )

    async def _tick_stopwatch(
        self, game_id: int, race: int, message: discord.Message, left_ms: int
    ) -> bool:
        """One tick of the stopwatch message, while its race is being repaired."""
        record = await self.store.load_game(game_id)
        state: PitFormulaState = get_game(KIND).load_state(record.state_json)
        if record.status != "running" or state.race.number != race or state.phase != "repair":
            return False
        try:
            await message.edit(content=stopwatch_text(left_ms))
        except discord.HTTPException:
            log.warning("could not edit the stopwatch of game %s", game_id, exc_info=True)
        return True

    async def edit(self, game_id: int) -> bool:
        """The race message shows the race as it is now (a burst of fixes: one edit)."""
        loaded = await self.table.load(game_id)
        state = loaded.state
        if state.phase != "repair" or loaded.record.status_message_id is None:
            return False
        channel = await self.table.channel_of(loaded.record)
        try:
            await channel.get_partial_message(loaded.record.status_message_id).edit(
                content="**Go!**\n" + race_text(state, names_of(loaded)),
                attachments=await draw([table_image(state)]),
                allowed_mentions=MENTION_NONE,
            )
        except discord.NotFound:  # a moderator deleted it: the race goes on in a new one
            heading = "**Go!** (the race message was deleted; carry on)\n"
            try:
                async with self.table.lock(game_id):
                    await self.post_race_message(await self.table.load(game_id), heading)
            except (NotPosted, discord.HTTPException) as exc:
                log.warning("could not repost the race message of game %s: %s", game_id, exc)
        return True

    async def close_race(self, loaded: Loaded[PitFormulaState]) -> None:
        """The race just scored: its message says so and loses its buttons, the stopwatch
        stops (no "flags: 1 of 1 left" or a running clock once the race is over)."""
        game_id = loaded.id
        await self.live.settle(game_id)
        state = loaded.state
        result = state.results[-1]
        stopped = await self.live.stop_stopwatch(game_id)
        if stopped is not None:
            message, left_ms = stopped
            try:
                await message.edit(content=stopwatch_stopped_text(result.number, result, left_ms))
            except discord.HTTPException:
                log.warning("could not stop the stopwatch of game %s", game_id, exc_info=True)
        if loaded.record.status_message_id is None:
            return
        channel = await self.table.channel_of(loaded.record)
        try:
            await channel.get_partial_message(loaded.record.status_message_id).edit(
                content=finished_race_text(state, names_of(loaded)),
                view=None,
                allowed_mentions=MENTION_NONE,
            )
        except discord.HTTPException:
            log.warning("could not close the race message of game %s", game_id, exc_info=True)

    async def after_race(self, loaded: Loaded[PitFormulaState], before: PitFormulaState) -> None:
        channel = await self.table.channel_of(loaded.record)
        names = names_of(loaded)
        await self.close_race(loaded)
        state = loaded.state
        result = state.results[-1]
        scores = competitor_scores(state)
        lines = [f"🏁 Race {result.number} scored."]
        for cr in result.cars:
            who = " & ".join(names[s] for s in state.cars[cr.car].seats)
            flag = f"{FLAG_NAMES[cr.flag]} flag, " if cr.flag is not None else ""
            wrong = f"wrong: {', '.join(cr.errors)}, " if cr.errors else ""
            lines.append(f"{shown(who)}: {flag}{wrong}{counted(cr.points, 'point')}")
        if result.rival is not None:
            lines.append(
                f"Rival: {counted(result.rival.points, 'point')} (total {state.rival_score})"
            )
        lines.append(
            "Championship: "
            + ", ".join(
                f"{shown(' & '.join(names[s] for s in car.seats))} {car.score}"
                for car in state.cars
            )
            + f" (scores {scores})"
        )
        scoring = Image("scoring.png", partial(render_scoring, state, names, board=before))
        await channel.send(
            "\n".join(lines), files=await draw([scoring]), allowed_mentions=MENTION_NONE
        )
        if state.phase == "over":
            await self.final(loaded, channel)
        else:
            await self.store.update_game(loaded.id, published_seq=loaded.record.seq)
            await self.next_race(loaded.id)

    async def final(self, loaded: Loaded[PitFormulaState], channel: Any) -> None:
        state = loaded.state
        names = names_of(loaded)
        lines = ["🏆 **Final standings** (points, then trophy tokens, then shared):"]
        for p in loaded.game.classification(state):
            car = state.cars[car_of_seat(state, p.seat)]
            lines.append(
                f"{p.place}. {shown(names[p.seat])}: {counted(car.score, 'point')}, "
                f"{counted(len(car.trophies), 'trophy', 'trophies')}"
            )
        if state.settings.solo:
            lines.append(f"The Rival: {counted(state.rival_score, 'point')}.")
        if loaded.record.league_id is not None:
            lines.append(await self.table.publisher.league_lines(loaded))
        standings = Image("standings.png", partial(render_table, state, names))
        await channel.send(
            "\n".join(lines), files=await draw([standings]), allowed_mentions=MENTION_NONE
        )
        await self.store.update_game(loaded.id, published_seq=loaded.record.seq)

    async def time_up(self, timer: Timer) -> None:
        """The Rival's stopwatch ran out: the race is scored as it stands."""
        assert timer.game_id is not None
        async with self.table.lock(timer.game_id):
            loaded = await self.table.load(timer.game_id)
            state = loaded.state
            if (
                loaded.record.status != "running"
                or state.phase != "repair"
                or state.race.number != timer.payload["race"]
            ):
                return
            before = loaded
            action = TimeUp(seat=loaded.game.to_act(state)[0], at_ms=state.race.deadline_ms or 0)
            loaded, _ = await self.table.commit(loaded, action, actor="stopwatch")
        try:
            channel = await self.table.channel_of(loaded.record)
            await channel.send("⏱ The Rival's stopwatch ran out!")
            await self.after_race(loaded, before.state)
        except NotPosted as exc:  # scored and stored: `/pit status` shows it
            await self.table.recovery.not_shown(loaded.id, exc)
