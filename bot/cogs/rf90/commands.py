"""`/rf90`'s own commands: a new race's lobby, the driver's hand, the animated replay."""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.autocomplete import league_option
from bot.cogs.table_commands import TableCog
from bot.components import shown
from bot.league_tables import league_round_for_game, round_title
from bot.limits import MINUTE
from bot.posting import think
from bot.table.ending import ending
from bot.table.lobby import seed_of
from renderer.rf90_replay import render_replay
from rules.errors import PaddockError
from rules.rf90 import (
    GAME,
    catalog,
)
from rules.rf90.replay import activation_states
from store.undo import standing

if TYPE_CHECKING:
    from bot.client import PaddockBot
from bot.cogs.rf90.cockpit import dashboard
from bot.cogs.rf90.presenter import KIND, PICTURES, TRACK_NAMES, RF90Presenter

TRACKS = [app_commands.Choice(name=t.capitalize(), value=t) for t in TRACK_NAMES]


class RF90Cog(TableCog, group_name="rf90", group_description="Race! Formula 90 races"):
    presenter = RF90Presenter()

    def __init__(self, bot: PaddockBot) -> None:
        super().__init__(bot)
        self._replaying = asyncio.Lock()
        self._replays: dict[tuple[int, int], bytes] = {}  # the last two drawn, newest first

    @app_commands.command(name="new", description="Open a Race! Formula 90 lobby in a thread")
    @app_commands.describe(
        track="Barcelona or Silverstone",
        max_players="Most human drivers (1-6, default 6)",
        turn_minutes="Minutes for each decision before the seat policy decides (default 1440)",
        league="An RF90 league this race counts for (start typing to pick one)",
        round="That league's round (start typing: the rounds still to race)",
        idle_days="Days with nobody acting before the race is abandoned (default 7)",
        pictures="Post the track after every section activation (default) or only those "
        "in which a driver decides",
        turns="Game turns for a shorter race (default: the track's full race, Barcelona 27, "
        "Silverstone 25)",
    )
    @app_commands.choices(
        track=TRACKS,
        pictures=[app_commands.Choice(name=text, value=key) for key, text in PICTURES.items()],
    )
    @league_option(game=KIND, open_only=True, rounds_offered="to race", describe=False)
    async def new(
        self,
        interaction: discord.Interaction,
        track: app_commands.Choice[str],
        max_players: app_commands.Range[int, 1, 6] = 6,
        turn_minutes: app_commands.Range[int, 1, 10080] = 1440,
        league: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
        idle_days: app_commands.Range[int, 1, 60] = 7,
        pictures: str = "every",
        turns: app_commands.Range[int, catalog.MIN_RACE_TURNS, 99] | None = None,
    ) -> None:
        assert interaction.guild is not None
        full = catalog.track(track.value).race_turns
        if turns is not None and not catalog.MIN_RACE_TURNS <= turns <= full:
            raise PaddockError(
                f"A race at {track.name} lasts at most {full} game turns: "
                f"choose {catalog.MIN_RACE_TURNS} to {full}, or leave turns out for the full race."
            )
        # Discord keeps options in their ranges; discord.py does not check, so here too.
        if not 1 <= max_players <= 6:
            raise PaddockError("A race has 1 to 6 drivers (robots fill the grid).")
        if not 1 <= turn_minutes <= 10080:
            raise PaddockError("The time for a decision is 1 minute to 7 days (10080 minutes).")
        if not 1 <= idle_days <= 60:
            raise PaddockError("An idle race is abandoned after 1 to 60 days.")
        await think(interaction, starting=True)  # before the store: a race night's burst
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        title = f"Race! Formula 90 at {track.name}"
        if found is not None:
            title = round_title(found)
        settings = {
            "track": track.value,
            "max_players": max_players,
            "turn_seconds": turn_minutes * MINUTE,
            "idle_days": idle_days,
            "pictures": pictures if pictures in PICTURES else "every",
            "title": title,
        }
        if turns is not None and turns < full:
            settings["race_turns"] = turns
        seed = seed_of(interaction)
        await self.table.lobby.open_lobby(
            interaction, self.presenter, settings, seed=seed, league_round=found
        )

    @app_commands.command(name="hand", description="Reopen your cockpit (only you see it)")
    async def hand(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        loaded = await self.table.load(record.id)
        mine = loaded.human_seat(interaction.user.id)
        if mine is None:
            raise PaddockError("You are not driving in this race.")
        if mine.seat in self.presenter.waiting_seats(loaded.state):
            await self.presenter.cockpit(self.table, interaction, record.id, None)
        else:
            await interaction.response.send_message(
                dashboard(loaded.state, mine.seat) + "\nNothing to decide right now.",
                ephemeral=True,
            )

    @app_commands.command(
        name="replay", description="Post this race as an animation: one frame per activation"
    )
    async def replay(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter, running=False, ended=True)
        if record.state_json is None:
            raise PaddockError("This race has not started yet: nothing to replay.")
        await interaction.response.defer(thinking=True)
        actions = [a.action_json for a in standing(await self.store.actions(record.id))]
        key = (record.id, len(actions))

        def render() -> bytes:  # ~10 s of drawing on one core: never on the event loop
            states = activation_states(GAME, record.seed, record.config, actions)
            if len(states) < 2 and record.status != "running":
                raise PaddockError(
                    f"This race is over: it was {ending(record)} before its first "
                    "section activation, so there is nothing to replay; `/rf90 log` tells its "
                    "moves."
                )
            if len(states) < 2:
                raise PaddockError("The race has not reached its first activation yet.")
            return render_replay(states)

        async with self._replaying:  # one at a time: the other core keeps serving races
            if key not in self._replays:
                self._replays = {key: await asyncio.to_thread(render), **self._replays}
                self._replays = dict(list(self._replays.items())[:2])
        data = self._replays[key]
        state = GAME.load_state(record.state_json)
        done = "the whole race" if state.phase == "finished" else f"up to game turn {state.turn}"
        if record.status not in ("lobby", "running"):  # watched again once it is over
            how = ending(record)
            done += " (it has finished)" if how == "finished" else f", where it was {how}"
        await interaction.followup.send(
            f"Replay of {shown(record.settings.get('title', 'the race'))}"
            f": {done}, one frame per section activation.",
            file=discord.File(io.BytesIO(data), filename=f"race{record.id}-replay.webp"),
        )
