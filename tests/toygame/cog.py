"""`/toy`: the toy dice race in Discord, the bot extension its spec names (`cog`).

All a game brings to the table layer (bot/table/): a presenter (its lobby lines, the rules
config made from the lobby, the prompt and its buttons, the board, the finish) and a
`TableCog` with its own command, `/toy new`. The table runs the lobby, the turns, timers,
robots, the finish and the league's points; `TableCog` adds status, log, cancel, abandon,
rewind, replace, autopilot and rules.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.autocomplete import league_option
from bot.cogs.table_commands import TableCog
from bot.components import button, shown
from bot.league_tables import league_round_for_game, round_title
from bot.limits import MINUTE
from bot.posting import think
from bot.presenter import Image, Loaded, Presenter, Prompt, duration, timestamp
from bot.table.lobby import seed_of
from rules.base import Action
from rules.errors import PaddockError
from store import GameRecord, Seat
from tests.toygame.board import render_board
from tests.toygame.rules import GOAL, Roll, ToyState
from tests.toygame.spec import SPEC

if TYPE_CHECKING:
    from bot.client import PaddockBot

AREA = "toy"  # the command group and the buttons' custom_id area
MAX_DRIVERS = 4


def action_label(action: Action) -> str:
    """A button's text for one legal action."""
    assert isinstance(action, Roll)
    return "Roll +1" if action.boost else "Roll"


class ToyPresenter(Presenter[ToyState]):
    kind = SPEC.name
    area = AREA
    title = SPEC.title
    max_players = MAX_DRIVERS
    max_cars = MAX_DRIVERS
    robots_offered = True
    colours = list(SPEC.colours)  # a driver picks one in the lobby (a league's: theirs)

    def lobby_lines(self, record: GameRecord) -> list[str]:
        cfg = record.settings
        return [
            f"First past square {GOAL} wins · up to {cfg['max_players']} drivers · "
            f"{duration(cfg['turn_seconds'])} per roll"
        ]

    def rules_config(self, record: GameRecord, seats: list[Seat]) -> dict[str, Any]:
        return {"players": len(seats)}

    def driver(self, loaded: Loaded[ToyState], seat: int) -> str:
        """A seat's driver, named as they typed it, with the colour they race in."""
        driver = loaded.seats[seat]
        colour = loaded.record.settings.get("colours", {}).get(str(driver.user_id))
        return shown(driver.name) + (f" ({colour})" if colour else "")

    def start_lines(self, loaded: Loaded[ToyState]) -> list[str]:
        order = ", ".join(self.driver(loaded, seat) for seat in sorted(loaded.seats))
        return [f"On the grid, in turn order: {order}."]

    def summary(self, loaded: Loaded[ToyState]) -> str:
        squares = ", ".join(
            f"{self.driver(loaded, seat)} {square}"
            for seat, square in enumerate(loaded.state.positions)
        )
        return f"Roll {loaded.state.moves + 1} · {squares}"

    def board(self, loaded: Loaded[ToyState], highlight: int | None) -> Image:
        state = loaded.state
        return Image(f"race{loaded.id}-board.png", partial(render_board, state))

    def prompt(self, loaded: Loaded[ToyState], seats: list[int], deadline: float | None) -> Prompt:
        (seat,) = seats  # one driver rolls at a time
        token = self.act_token(loaded, seat)
        buttons: list[discord.ui.Item[Any]] = [
            button(action_label(action), AREA, loaded.id, "act", f"{token}.{index}")
            for index, action in enumerate(loaded.options(seat))
        ]
        driver = loaded.seats[seat]
        who = f"<@{driver.user_id}>" if driver.user_id else shown(driver.name)
        due = f" · the robot rolls {timestamp(deadline)}" if deadline else ""
        square = loaded.state.positions[seat]
        content = f"{who}, your roll: you are on square {square} of {GOAL}.{due}"
        return Prompt(content, buttons, pings=[driver.user_id] if driver.user_id else [])

    def finish(self, loaded: Loaded[ToyState]) -> tuple[list[str], Image]:
        state = loaded.state
        lines = ["🏁 **Classification**"] + [
            f"{p.place}. {self.driver(loaded, p.seat)}: square {state.positions[p.seat]}"
            for p in loaded.game.classification(state)
        ]
        return lines, Image(f"race{loaded.id}-result.png", partial(render_board, state))


class ToyCog(TableCog, group_name=AREA, group_description="Toy dice races (tests only)"):
    presenter = ToyPresenter()

    @app_commands.command(name="new", description="Open a toy race lobby in a new thread")
    @app_commands.describe(
        max_players="Most human drivers (2-4, default 4)",
        robots="Robot cars to add at the start (0-3, default 0)",
        turn_minutes="Minutes a driver has for a roll before the robot rolls (default 60)",
        league="A toy league this race counts for (start typing to pick one)",
        round="That league's round (start typing: the rounds still to race)",
    )
    @league_option(game=SPEC.name, open_only=True, rounds_offered="to race", describe=False)
    async def new(
        self,
        interaction: discord.Interaction,
        max_players: app_commands.Range[int, 2, MAX_DRIVERS] = MAX_DRIVERS,
        robots: app_commands.Range[int, 0, MAX_DRIVERS - 1] = 0,
        turn_minutes: app_commands.Range[int, 1, 10080] = 60,
        league: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
    ) -> None:
        assert interaction.guild is not None
        if not (2 <= max_players <= MAX_DRIVERS and 0 <= robots < MAX_DRIVERS):
            raise PaddockError(f"Drivers go from 2 to {MAX_DRIVERS}, robots up to one fewer.")
        await think(interaction, starting=True)  # before the store
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, SPEC.name, interaction.user.id
        )
        title = SPEC.title
        if found is not None:
            title = round_title(found)
        settings = {
            "max_players": max_players,
            "robots": robots,
            "turn_seconds": turn_minutes * MINUTE,
            "title": title,
        }
        seed = seed_of(interaction)
        await self.table.lobby.open_lobby(
            interaction, self.presenter, settings, seed=seed, league_round=found
        )


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(ToyCog(bot))
