"""`/f1`: Waddington's Formula 1 races, played asynchronously in a thread.

The table layer (bot/table/) runs the lobby, the turns, timers, robots and the finish; this
module is the game's presenter and its own commands. At the start the cars are allotted by
the dice (rule 7); the driver to move is pinged with buttons for what the rules allow now
(speed, then the lettered end squares on a close-up image, then - whenever the car holds a
Tactic card, playable or not - "carry on" or a card from the ephemeral hand view). Nothing
public depends on which cards a hand holds: not the steps, the text, the buttons nor their
custom_ids (tests/table/test_bot_hidden_info.py). The sub-steps of one move edit its prompt; the
board is posted once per completed move.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from functools import partial
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.autocomplete import league_option
from bot.cogs.table_commands import TableCog
from bot.components import button, shown, view_of
from bot.league_tables import league_round_for_game, round_title
from bot.limits import MINUTE
from bot.posting import result, think
from bot.presenter import Image, Loaded, Presenter, Prompt, duration, timestamp
from bot.race_settings import on_off
from bot.table import draw
from bot.table.lobby import seed_of
from renderer.common import counted
from renderer.waddington import (
    render_board,
    render_classification,
    render_closeup,
)
from rules.errors import PaddockError
from rules.waddington import (
    GAME,
    Move,
    PlayTactic,
    Proceed,
    Retire,
    SetSpeed,
    SoftSpin,
    WaddingtonState,
    catalog,
    lap_indicator,
)
from rules.waddington.state import LEAGUE_LAPS, default_laps
from store import GameRecord, Round, Seat

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.f1")

KIND = "waddington"
AREA = "f1"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
LANES = {0: "inside", 1: "middle", 2: "outside"}
MAX_CARS = 6


def _car_label(state: WaddingtonState, seat: int) -> str:
    car = state.cars[seat]
    return f"{car.colour} #{car.number}"


def _dashboard(state: WaddingtonState, seat: int) -> str:
    car = state.cars[seat]
    return (
        f"{car.speed} mph · laps to go {lap_indicator(state, car)} · tyre {car.tyre}/8 · "
        f"brake {car.brake}/5 · {counted(len(car.hand), 'Tactic card')}"
    )


def action_label(state: WaddingtonState, action: Any, letter: str | None = None) -> str:
    """The button text for one legal action."""
    if isinstance(action, SetSpeed):
        return f"{action.speed} mph"
    if isinstance(action, Move):
        if action.to[1] == -1:
            return f"{letter}: pit"
        return f"{letter}: match speed" if action.raise_to_match else f"{letter}"
    if isinstance(action, PlayTactic):
        title = catalog().cards[action.card].title
        if action.to is not None:
            return f"{title} → {LANES.get(action.to[1], 'lane')} lane"[:80]
        return title[:80]
    if isinstance(action, Proceed):
        pending = state.turn is not None and bool(state.turn.pending)
        return "Throw the dice" if pending else "End move"
    if isinstance(action, SoftSpin):
        return "Take 2 tyre wear" if action.take_tyre_wear else "Spin off"
    if isinstance(action, Retire):
        return "Retire"
    return action.kind


class WaddingtonPresenter(Presenter[WaddingtonState]):
    kind = KIND
    area = AREA
    title = "Waddington's Formula 1"
    max_players = 6
    max_cars = MAX_CARS
    robots_offered = True
    league_choices = {
        "laps": "laps=5 (laps a race, 1 to 10)",
        "soft_options": "soft_options=on (the beginners' options, on or off)",
    }

    def league_choice(self, key: str, text: str) -> Any:
        if key == "laps":
            if not text.isdigit() or not 1 <= int(text) <= 10:
                raise PaddockError("Laps go from 1 to 10, e.g. `laps=5`.")
            return int(text)
        return on_off(text, key)

    def check_league_choices(self, choices: dict[str, Any]) -> None:
        if not 1 <= int(choices.get("laps", LEAGUE_LAPS)) <= 10:
            raise PaddockError("Laps go from 1 to 10.")

    def league_choice_lines(self, choices: dict[str, Any]) -> list[str]:
        return [
            f"{choices.get('laps', LEAGUE_LAPS)} lap(s)"
            + (" · beginners' options" if choices.get("soft_options") else "")
        ]

    def league_round_settings(self, choices: dict[str, Any], rnd: Round) -> dict[str, Any]:
        return {
            "laps": int(choices.get("laps", LEAGUE_LAPS)),
            "soft_options": bool(choices.get("soft_options", False)),
        }

    def lobby_lines(self, record: GameRecord) -> list[str]:
        cfg = record.settings
        return [
            f"{cfg['laps']} lap(s) · up to {cfg['max_players']} drivers · "
            f"{duration(cfg['turn_seconds'])} per move"
            + (" · beginners' options" if cfg.get("soft_options") else ""),
            "Cars are allotted by the dice at the start (rule 7).",
        ]

    def rules_config(self, record: GameRecord, seats: list[Seat]) -> dict[str, Any]:
        cfg = record.settings
        return {
            "laps": cfg["laps"],
            "players": [{"name": s.name, "robot": s.robot} for s in seats],
            "soft_tactic_after_dice": bool(cfg.get("soft_options")),
            "soft_spin_tyres": bool(cfg.get("soft_options")),
            # nothing public may tell whether a hand holds a playable card (issue 11)
            "public_card_window": True,
        }

    def start_lines(self, loaded: Loaded[WaddingtonState]) -> list[str]:
        state = loaded.state
        throws = ", ".join(
            f"{shown(loaded.name(seat))} {total}"
            for seat, total in enumerate(state.start_throws[0])
        )
        grid = ", ".join(
            f"{_car_label(state, seat)} {shown(loaded.name(seat))}" for seat in state.order
        )
        return [f"🎲 Dice for the cars (rule 7): {throws}.", f"Grid and moving order: {grid}."]

    def move_key(self, state: Any) -> Hashable:
        # One move: a seat's turn in a game turn (speed, end square, card or dice, spin).
        return None if state.turn is None else (state.round, state.turn.seat)

    def confirmation(self, loaded: Loaded[WaddingtonState], seat: int, action: Any) -> str | None:
        # Costly: retiring, and a Tactic card after which the dice are thrown (the rules
        # say which: `card_throws_dice`, from the card's timing and the bands to judge).
        state = loaded.state
        if isinstance(action, Retire):
            return (
                f"Retire your car ({_car_label(state, seat)}) from the race? "
                "This can't be taken back."
            )
        if isinstance(action, PlayTactic) and GAME.card_throws_dice(state, action):
            return (
                f"Play **{action_label(state, action)}**? It throws the dice: the bands you "
                "crossed over their safety speed are judged at once, and that can't be taken "
                "back."
            )
        return None

    def summary(self, loaded: Loaded[WaddingtonState]) -> str:
        state = loaded.state
        return f"Game turn {state.round} · {state.settings.laps} lap race"

    def board(self, loaded: Loaded[WaddingtonState], highlight: int | None) -> Image:
        state, previous = loaded.state, loaded.last_board
        title = loaded.record.settings.get("title")

        # each car's line from where the thread's last board showed it
        picture = partial(
            render_board, state, highlight_seat=highlight, previous=previous, title=title
        )
        return Image(f"race{loaded.id}-board.png", picture)

    def prompt(
        self, loaded: Loaded[WaddingtonState], seats: list[int], deadline: float | None
    ) -> Prompt:
        """The public prompt: nothing in it depends on the hand but its size (public). The
        steps of a turn do not (the engine's `public_card_window`, set for every race since
        issue 11), the buttons are actions that come before any Tactic card in the engine's
        list (so their indices do not count cards), and the cards are offered in the
        ephemeral hand view only."""
        (seat,) = seats  # one car moves at a time
        game = GAME  # the registered Waddington game (loaded.game, typed)
        state = loaded.state
        record = loaded.record
        assert state.turn is not None
        phase = state.turn.phase
        buttons: list[discord.ui.Item[Any]] = []
        letter = 0
        options = loaded.options(seat)
        for index, action in enumerate(options):
            if isinstance(action, PlayTactic | Retire):
                continue  # private cards go in the hand view; retiring is /f1 retire
            label_letter = None
            if isinstance(action, Move):
                if action.raise_to_match:
                    label_letter = LETTERS[letter - 1]
                else:
                    label_letter = LETTERS[letter]
                    letter += 1
            style = (
                discord.ButtonStyle.primary
                if isinstance(action, SetSpeed | Move)
                else discord.ButtonStyle.success
            )
            buttons.append(
                button(
                    action_label(state, action, label_letter),
                    AREA,
                    record.id,
                    "act",
                    f"{self.act_token(loaded, seat)}.{index}",
                    style=style,
                )
            )
        if state.cars[seat].hand:  # how many cards a car holds is public; which, is not
            buttons.append(button("Tactic cards", AREA, record.id, "hand"))
        heading = {
            "speed": "set your speed for this move",
            "move": "choose where to end your move (letters on the close-up)",
            "after_move": "play a Tactic card (your hand) or carry on",
            "spin_choice": "beginners' option: take 2 tyre wear or spin off",
        }[phase]
        images = []
        if phase == "move":
            destinations = game.destinations(state, seat)
            letters = list(LETTERS[: len(destinations)])
            images.append(
                Image(
                    f"race{record.id}-closeup.png",
                    partial(render_closeup, state, seat, destinations, letters),
                )
            )
            warnings = [
                f"{LETTERS[i]}: "
                + ", ".join(f"{b.corner} +{b.excess}" for b in d.bands if b.excess > 0)
                for i, d in enumerate(destinations)
                if any(b.excess > 0 for b in d.bands)
            ]
            if warnings:
                heading += "\nOver the safety speed: " + "; ".join(warnings)
        driver = loaded.seats[seat]
        who = f"<@{driver.user_id}>" if driver.user_id else shown(driver.name)
        due = f" · the robot drives {timestamp(deadline)}" if deadline else ""
        content = f"{who}, {_car_label(state, seat)}: {heading}.\n{_dashboard(state, seat)}{due}"
        return Prompt(content, buttons, images, pings=[driver.user_id] if driver.user_id else [])

    def finish(self, loaded: Loaded[WaddingtonState]) -> tuple[list[str], Image]:
        state = loaded.state
        names = {seat: s.name for seat, s in loaded.seats.items()}
        lines = ["🏁 **Classification**"] + [
            f"{p.place}. {_car_label(state, p.seat)} {shown(names[p.seat])}"
            + ("" if p.status == "running" else f" ({p.status})")
            for p in loaded.game.classification(state)
        ]
        title = loaded.record.settings.get("title")
        return lines, Image(
            f"race{loaded.id}-result.png",
            partial(render_classification, state, names, title=title),
        )

    async def on_button(
        self, table: Any, interaction: discord.Interaction, game_id: int, action: str, arg: str
    ) -> bool:
        if action != "hand":
            return False
        await show_hand(table, interaction, game_id)
        return True


async def show_hand(table: Any, interaction: discord.Interaction, game_id: int) -> None:
    """The driver's Tactic cards, only to them, with buttons for those playable now."""
    loaded = await table.load(game_id)
    mine = loaded.human_seat(interaction.user.id)
    if mine is None:
        raise PaddockError("You are not driving in this race.")
    seat, state, record = mine.seat, loaded.state, loaded.record
    cards = catalog().cards
    hand = state.cars[seat].hand
    lines = [f"**{cards[c].title}**: {cards[c].text}" for c in hand] or ["No cards left."]
    items = []
    if record.status == "running" and seat in loaded.game.to_act(state):
        for index, action in enumerate(loaded.options(seat)):
            if isinstance(action, PlayTactic):
                items.append(
                    button(
                        action_label(state, action),
                        AREA,
                        game_id,
                        "act",
                        f"{table.core.presenter(record).act_token(loaded, seat)}.{index}",
                        style=discord.ButtonStyle.success,
                    )
                )
    note = "\nPlayable now: the buttons below." if items else ""
    await interaction.response.send_message(
        f"Your Tactic cards ({_car_label(state, seat)}):\n" + "\n".join(lines) + note,
        view=view_of(*items[:25]) if items else discord.utils.MISSING,
        ephemeral=True,
    )


class WaddingtonCog(TableCog, group_name="f1", group_description="Waddington's Formula 1 races"):
    presenter = WaddingtonPresenter()

    @app_commands.command(name="new", description="Open a race lobby in a new thread")
    @app_commands.describe(
        laps="Laps to race (1-10; default 5 for a league round, as rule 57, else 3)",
        max_players="Most human drivers (2-6, default 6)",
        robots="Robot cars to add at the start (0-5, default 0)",
        turn_minutes="Minutes a driver has for a move before the robot drives (default 1440)",
        league="A Waddington's league this race counts for (start typing to pick one)",
        round="That league's round (start typing: the rounds still to race)",
        soft_options="Beginners' options from the player notes (default off)",
        idle_days="Days with nobody acting before the race is abandoned (default 7)",
    )
    @league_option(game=KIND, open_only=True, rounds_offered="to race", describe=False)
    async def new(
        self,
        interaction: discord.Interaction,
        laps: app_commands.Range[int, 1, 10] | None = None,
        max_players: app_commands.Range[int, 2, 6] = 6,
        robots: app_commands.Range[int, 0, 5] = 0,
        turn_minutes: app_commands.Range[int, 1, 10080] = 1440,
        league: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
        soft_options: bool = False,
        idle_days: app_commands.Range[int, 1, 60] = 7,
    ) -> None:
        assert interaction.guild is not None
        if laps is None:
            laps = default_laps(league is not None)
        if not (1 <= laps <= 10 and 2 <= max_players <= 6 and 0 <= robots <= 5):
            raise PaddockError("Laps go from 1 to 10, drivers from 2 to 6, robots from 0 to 5.")
        if not 1 <= turn_minutes <= 10080:
            raise PaddockError("The turn time limit is 1 minute to 7 days (10080 minutes).")
        if not 1 <= idle_days <= 60:
            raise PaddockError("An idle race is abandoned after 1 to 60 days.")
        await think(interaction, starting=True)  # before the store: a race night's burst
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        title = "Waddington's Formula 1"
        if found is not None:
            title = round_title(found)
        settings = {
            "laps": laps,
            "max_players": max_players,
            "robots": robots,
            "turn_seconds": turn_minutes * MINUTE,
            "soft_options": soft_options,
            "idle_days": idle_days,
            "title": title,
        }
        seed = seed_of(interaction)
        await self.table.lobby.open_lobby(
            interaction, self.presenter, settings, seed=seed, league_round=found
        )

    @app_commands.command(name="hand", description="Your Tactic cards (only you see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        await show_hand(self.table, interaction, record.id)

    @app_commands.command(name="board", description="Post the current board of this race")
    async def board(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        loaded = await self.table.load(record.id)
        await interaction.response.defer(thinking=True)
        seat = self.presenter.acting_seat(loaded.state)
        files = await draw([self.presenter.board(loaded, seat)])
        await interaction.followup.send(self.presenter.summary(loaded), files=files)

    @app_commands.command(
        name="retire", description="Retire your car from the race (your turn; asks Confirm)"
    )
    async def retire(self, interaction: discord.Interaction) -> None:
        record = await self.table.game_here(interaction, self.presenter)
        await think(interaction, ephemeral=True)  # before the race's lock
        async with self.table.lock(record.id):
            loaded = await self.table.load(record.id)
            seat = self.table.acting_seat(loaded, interaction.user.id)
            if await self.table.confirm.asks(interaction, loaded, seat, Retire(seat=seat)):
                return  # asked first: the driver's Confirm retires the car
            await result(interaction, f"{_car_label(loaded.state, seat)} retires.")
            key = self.presenter.move_key(loaded.state)
            loaded, played = await self.table.commit(
                loaded, Retire(seat=seat), actor=str(interaction.user.id), human=True
            )
            await self.table.advance(loaded, played.events, key_before=key)


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(WaddingtonCog(bot))
