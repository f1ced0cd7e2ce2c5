"""`/f1`: Waddington's Formula 1 races, played asynchronously in a thread.

Flow: `/f1 new` opens a thread with a lobby (Join / Leave / Start). At the start the cars are
allotted by the dice (rule 7) and the race runs in the thread: the driver to move is pinged
with buttons for what the rules allow now (speed, then the lettered end squares on a close-up
image, then Tactic cards from an ephemeral hand view or the dice). Every button's custom_id
carries the game, the sequence number it was offered at and the index of the legal action,
so it is resolved from the database and survives restarts. Robot seats move at once; a
driver who misses the time limit is reminded once, then the robot policy drives for them.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import button, human_seat, view_of
from bot.league_tables import league_points_table, league_round_for_game
from renderer.waddington import (
    render_board,
    render_classification,
    render_closeup,
)
from rules.base import get_game
from rules.errors import NotYourTurn, PaddockError
from rules.waddington import (
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
from store import GameRecord, Seat, play
from store.models import Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.f1")

KIND = "waddington"
AREA = "f1"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
LANES = {0: "inside", 1: "middle", 2: "outside"}
MAX_CARS = 6
REMINDER_AT = 0.75  # share of the time limit after which the driver is reminded once


def _game() -> Any:
    return get_game(KIND)


def _file(png: bytes, name: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)


def _car_label(state: WaddingtonState, seat: int) -> str:
    car = state.cars[seat]
    return f"{car.colour} #{car.number}"


def _dashboard(state: WaddingtonState, seat: int) -> str:
    car = state.cars[seat]
    return (
        f"{car.speed} mph · laps to go {lap_indicator(state, car)} · tyre {car.tyre}/8 · "
        f"brake {car.brake}/5 · {len(car.hand)} Tactic card{'s' if len(car.hand) != 1 else ''}"
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


class WaddingtonCog(commands.Cog):
    f1 = app_commands.Group(
        name="f1", description="Waddington's Formula 1 races in a thread", guild_only=True
    )

    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._kicked = False
        bot.component_routes[AREA] = self.on_button

    @property
    def store(self):  # noqa: ANN201
        return self.bot.store

    # Commands --------------------------------------------------------------------------

    @f1.command(name="new", description="Open a race lobby in a new thread")
    @app_commands.describe(
        laps="Laps to race (1-10; default 5 for a league round, as rule 57, else 3)",
        max_players="Most human drivers (2-6, default 6)",
        robots="Robot cars to add at the start (0-5, default 0)",
        turn_minutes="Minutes a driver has for a move before the robot drives (default 1440)",
        league="A Waddington's league this race counts for",
        round="That league's round number",
        soft_options="Beginners' options from the player notes (default off)",
    )
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
    ) -> None:
        assert interaction.guild is not None and interaction.channel is not None
        if laps is None:
            laps = 5 if league is not None else 3  # §O rule 57: the league is "over 5 laps"
        if not (1 <= laps <= 10 and 2 <= max_players <= 6 and 0 <= robots <= 5):
            raise PaddockError("Laps go from 1 to 10, drivers from 2 to 6, robots from 0 to 5.")
        if not 1 <= turn_minutes <= 10080:
            raise PaddockError("The turn time limit is 1 minute to 7 days (10080 minutes).")
        league_id = round_id = None
        title = "Waddington's Formula 1"
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        if found is not None:
            league_id, round_id = found[0].id, found[1].id
            title = f"{found[0].name} round {found[1].number}: {found[1].name}"
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            channel = channel.parent  # races get their own thread beside the current one
        if not isinstance(channel, discord.TextChannel):
            raise PaddockError("Open races in a text channel, where I can start a thread.")
        settings = {
            "laps": laps,
            "max_players": max_players,
            "robots": robots,
            "turn_seconds": turn_minutes * 60,
            "soft_options": soft_options,
            "host": interaction.user.id,
            "title": title,
        }
        seed = int.from_bytes(interaction.id.to_bytes(8, "big")[-6:], "big")
        record = await self.store.create_game(
            KIND,
            seed,
            {},  # the rules config is made at the start, from the lobby
            None,
            settings=settings,
            guild_id=interaction.guild.id,
            channel_id=channel.id,
            league_id=league_id,
            round_id=round_id,
            status="lobby",
            seats=[human_seat(0, interaction.user)],
        )
        name = f"F1 race #{record.id}"
        if isinstance(interaction.channel, discord.Thread):
            # A message in a thread cannot start another thread: open it in the parent.
            thread = await channel.create_thread(name=name, type=discord.ChannelType.public_thread)
            await interaction.response.send_message(
                f"🏁 **{title}** - race #{record.id}: lobby open in {thread.mention}."
            )
        else:
            await interaction.response.send_message(
                f"🏁 **{title}** - race #{record.id}: lobby open in the thread below "
                f"({laps} lap{'s' if laps != 1 else ''})."
            )
            message = await interaction.original_response()
            thread = await message.create_thread(name=name)
        await self.store.update_game(record.id, thread_id=thread.id)
        lobby = await thread.send(
            embed=await self._lobby_embed(record.id), view=self._lobby_view(record.id)
        )
        await self.store.update_game(record.id, status_message_id=lobby.id)

    @f1.command(name="hand", description="Your Tactic cards in this race (only you see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        record = await self._game_here(interaction)
        await self._show_hand(interaction, record.id)

    @f1.command(name="board", description="Post the current board of the race in this thread")
    async def board(self, interaction: discord.Interaction) -> None:
        record = await self._game_here(interaction)
        _, game, state = await play.load(self.store, record.id)
        await interaction.response.defer(thinking=True)
        to_act = game.to_act(state)
        png = render_board(state, highlight_seat=to_act[0] if to_act else None)
        await interaction.followup.send(
            self._summary(state), file=_file(png, f"race{record.id}-board.png")
        )

    @f1.command(name="retire", description="Retire your car from the race (on your turn)")
    async def retire(self, interaction: discord.Interaction) -> None:
        record = await self._game_here(interaction)
        async with self._locks[record.id]:
            record, game, state = await play.load(self.store, record.id)
            seat = await self._acting_seat(interaction, record, game, state)
            await interaction.response.send_message(
                f"{_car_label(state, seat)} retires.", ephemeral=True
            )
            played = await play.act(
                self.store,
                record.id,
                Retire(seat=seat),
                actor=str(interaction.user.id),
                expected_seq=record.seq,
                loaded=(record, game, state),
            )
            await self._advance(record.id, played.events, played.state)

    async def _game_here(self, interaction: discord.Interaction) -> GameRecord:
        """The race whose thread this is."""
        record = await self.store.find_game(KIND, thread_id=interaction.channel_id)
        if record is None:
            raise PaddockError("Use this in the thread of a running Waddington's race.")
        if record.status != "running":
            raise PaddockError("This race has not started yet.")
        return record

    # Buttons ---------------------------------------------------------------------------

    async def on_button(
        self, interaction: discord.Interaction, game_id: int, action: str, arg: str | None
    ) -> None:
        if action in ("join", "leave", "start"):
            await self._lobby_button(interaction, game_id, action)
        elif action == "act" and arg is not None:
            seq_text, _, index_text = arg.partition(".")
            await self._act_button(interaction, game_id, int(seq_text), int(index_text))
        elif action == "hand":
            await self._show_hand(interaction, game_id)
        else:
            raise PaddockError("This button is no longer in use.")

    async def _acting_seat(
        self, interaction: discord.Interaction, record: GameRecord, game: Any, state: Any
    ) -> int:
        if record.status != "running":
            raise PaddockError(
                "This race is over."
                if record.status == "finished"
                else "This race has not started yet."
            )
        seats = await self.store.seats(record.id)
        mine = [s.seat for s in seats if s.user_id == interaction.user.id and not s.robot]
        to_act = game.to_act(state)
        if not to_act:
            raise PaddockError("This race is over.")
        if to_act[0] not in mine:
            raise NotYourTurn(
                f"It's not your turn: {_car_label(state, to_act[0])} "
                f"({state.cars[to_act[0]].name}) is to move."
            )
        return to_act[0]

    async def _act_button(
        self, interaction: discord.Interaction, game_id: int, seq: int, index: int
    ) -> None:
        async with self._locks[game_id]:
            record, game, state = await play.load(self.store, game_id)
            seat = await self._acting_seat(interaction, record, game, state)
            if seq != record.seq:
                raise PaddockError(
                    "That choice is out of date: the race has moved on. Use the newest message."
                )
            options = game.legal_actions(state, seat)
            if not 0 <= index < len(options):
                raise PaddockError("That choice is no longer offered. Use the newest message.")
            await interaction.response.defer()
            # A StaleState (another process acted first) reaches the user as its message.
            played = await play.act(
                self.store,
                game_id,
                options[index],
                actor=str(interaction.user.id),
                expected_seq=seq,
                loaded=(record, game, state),
            )
            if not interaction.message or not interaction.message.flags.ephemeral:
                await interaction.edit_original_response(view=None)
            else:
                await interaction.edit_original_response(content="Played.", view=None)
            await self._advance(game_id, played.events, played.state)

    async def _show_hand(self, interaction: discord.Interaction, game_id: int) -> None:
        record, game, state = await play.load(self.store, game_id)
        seats = await self.store.seats(game_id)
        mine = [s.seat for s in seats if s.user_id == interaction.user.id and not s.robot]
        if not mine:
            raise PaddockError("You are not driving in this race.")
        seat = mine[0]
        cards = catalog().cards
        hand = state.cars[seat].hand
        lines = [f"**{cards[c].title}**: {cards[c].text}" for c in hand] or ["No cards left."]
        items = []
        if seat in game.to_act(state):
            for index, action in enumerate(game.legal_actions(state, seat)):
                if isinstance(action, PlayTactic):
                    items.append(
                        button(
                            action_label(state, action),
                            AREA,
                            game_id,
                            "act",
                            f"{record.seq}.{index}",
                            style=discord.ButtonStyle.success,
                        )
                    )
        note = "\nPlayable now: the buttons below." if items else ""
        await interaction.response.send_message(
            f"Your Tactic cards ({_car_label(state, seat)}):\n" + "\n".join(lines) + note,
            view=view_of(*items[:25]) if items else discord.utils.MISSING,
            ephemeral=True,
        )

    # Lobby -----------------------------------------------------------------------------

    async def _lobby_embed(self, game_id: int) -> discord.Embed:
        record = await self.store.load_game(game_id)
        seats = await self.store.seats(game_id)
        cfg = record.settings
        embed = discord.Embed(
            title=f"{cfg['title']} - race #{game_id}", colour=discord.Colour.red()
        )
        embed.description = (
            f"{cfg['laps']} lap(s) · up to {cfg['max_players']} drivers · "
            f"{cfg['robots']} robot(s) added at the start · "
            f"{cfg['turn_seconds'] // 60} min per move"
            + (" · beginners' options" if cfg.get("soft_options") else "")
            + "\nCars are allotted by the dice at the start (rule 7)."
        )
        embed.add_field(
            name=f"Drivers ({len(seats)})",
            value="\n".join(f"<@{s.user_id}> {s.name}" for s in seats) or "nobody yet",
            inline=False,
        )
        return embed

    def _lobby_view(self, game_id: int) -> discord.ui.View:
        return view_of(
            button("Join", AREA, game_id, "join", style=discord.ButtonStyle.primary),
            button("Leave", AREA, game_id, "leave"),
            button("Start", AREA, game_id, "start", style=discord.ButtonStyle.success),
        )

    async def _lobby_button(
        self, interaction: discord.Interaction, game_id: int, action: str
    ) -> None:
        async with self._locks[game_id]:
            record = await self.store.load_game(game_id)
            if record.status != "lobby":
                raise PaddockError("This race has already started.")
            seats = await self.store.seats(game_id)
            user = interaction.user
            if action == "join":
                if any(s.user_id == user.id for s in seats):
                    raise PaddockError("You are already in this race.")
                if len(seats) >= record.settings["max_players"]:
                    raise PaddockError("This race is full.")
                if (
                    record.league_id is not None
                    and await self.store.member_by_user(record.league_id, user.id) is None
                ):
                    league = await self.store.league_by_id(record.league_id)
                    raise PaddockError(
                        f"This is a league race: join **{league.label}** first with `/league join`."
                    )
                seats.append(human_seat(len(seats), user))
            elif action == "leave":
                if not any(s.user_id == user.id for s in seats):
                    raise PaddockError("You are not in this race.")
                seats = [s for s in seats if s.user_id != user.id]
                seats = [s.model_copy(update={"seat": i}) for i, s in enumerate(seats)]
            else:
                await self._start(interaction, record, seats)
                return
            await self.store.set_seats(game_id, seats)
            await interaction.response.edit_message(
                embed=await self._lobby_embed(game_id), view=self._lobby_view(game_id)
            )

    async def _start(
        self, interaction: discord.Interaction, record: GameRecord, seats: list[Seat]
    ) -> None:
        cfg = record.settings
        if interaction.user.id != cfg["host"] and not (
            isinstance(interaction.user, discord.Member)
            and interaction.user.guild_permissions.manage_guild
        ):
            raise PaddockError(f"Only the host (<@{cfg['host']}>) can start this race.")
        if not seats:
            raise PaddockError("Nobody has joined yet.")
        robots = min(cfg["robots"], MAX_CARS - len(seats))
        all_seats = seats + [
            Seat(seat=len(seats) + i, user_id=None, name=f"Robot {i + 1}", robot=True)
            for i in range(robots)
        ]
        if len(all_seats) < 2:
            raise PaddockError("A race needs at least 2 cars: wait for a driver or add robots.")
        game = _game()
        config = {
            "laps": cfg["laps"],
            "players": [{"name": s.name, "robot": s.robot} for s in all_seats],
            "soft_tactic_after_dice": bool(cfg.get("soft_options")),
            "soft_spin_tyres": bool(cfg.get("soft_options")),
        }
        state = game.new_game(record.seed, config)
        await self.store.start_game(record.id, config, state.model_dump_json(), all_seats)
        await interaction.response.edit_message(embed=await self._lobby_embed(record.id), view=None)
        throws = ", ".join(f"{s.name} {state.start_throws[0][s.seat]}" for s in all_seats)
        grid = ", ".join(
            f"{_car_label(state, seat)} {state.cars[seat].name}" for seat in state.order
        )
        await interaction.followup.send(
            f"🎲 Dice for the cars (rule 7): {throws}.\nGrid and moving order: {grid}."
        )
        await self._advance(record.id, [], state)

    # The race --------------------------------------------------------------------------

    async def _advance(self, game_id: int, events: list[Any], state: WaddingtonState) -> None:
        """After a human action: robots move, then the board, the log and the next prompt."""
        game = _game()
        events = list(events)
        seats = {s.seat: s for s in await self.store.seats(game_id)}
        while not game.is_terminal(state):
            seat = game.to_act(state)[0]
            if not seats[seat].robot:
                break
            played = await play.act(
                self.store, game_id, game.robot_action(state, seat), actor="robot", by_robot=True
            )
            events += played.events
            state = played.state
        await self._publish(game_id, events, state)

    async def _thread(self, record: GameRecord) -> discord.abc.Messageable:
        channel_id = record.thread_id or record.channel_id
        assert channel_id is not None
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            channel = await self.bot.fetch_channel(channel_id)
        return channel  # type: ignore[return-value]

    def _summary(self, state: WaddingtonState) -> str:
        return f"Round {state.round} · {state.settings.laps} lap race"

    async def _publish(self, game_id: int, events: list[Any], state: WaddingtonState) -> None:
        record = await self.store.load_game(game_id)
        thread = await self._thread(record)
        game = _game()
        lines = [e.text for e in events if e.text]
        text = "\n".join(lines)[-1900:] or self._summary(state)
        if game.is_terminal(state):
            await self.bot.timers.cancel_for_game(game_id)
            await thread.send(text, file=_file(render_board(state), f"race{game_id}-board.png"))
            await self._finish(record, state, thread)
            return
        seat = game.to_act(state)[0]
        board = await thread.send(
            text, file=_file(render_board(state, highlight_seat=seat), f"race{game_id}-board.png")
        )
        await self.store.update_game(game_id, status_message_id=board.id)
        await self._prompt(record, state, seat, thread)

    async def _prompt(
        self, record: GameRecord, state: WaddingtonState, seat: int, thread: Any
    ) -> None:
        game = _game()
        seats = {s.seat: s for s in await self.store.seats(record.id)}
        user_id = seats[seat].user_id
        assert state.turn is not None
        phase = state.turn.phase
        buttons, files, letter = [], [], 0
        options = game.legal_actions(state, seat)
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
                    f"{record.seq}.{index}",
                    style=style,
                )
            )
        if any(isinstance(a, PlayTactic) for a in options) or state.cars[seat].hand:
            buttons.append(button("Tactic cards", AREA, record.id, "hand"))
        heading = {
            "speed": "set your speed for this move",
            "move": "choose where to end your move (letters on the close-up)",
            "after_move": "play a Tactic card (your hand) or carry on",
            "spin_choice": "beginners' option: take 2 tyre wear or spin off",
        }[phase]
        if phase == "move":
            destinations = game.destinations(state, seat)
            png = render_closeup(state, seat, destinations, list(LETTERS[: len(destinations)]))
            files.append(_file(png, f"race{record.id}-closeup.png"))
            warnings = [
                f"{LETTERS[i]}: "
                + ", ".join(f"{b.corner} +{b.excess}" for b in d.bands if b.excess > 0)
                for i, d in enumerate(destinations)
                if any(b.excess > 0 for b in d.bands)
            ]
            if warnings:
                heading += "\nOver the safety speed: " + "; ".join(warnings)
        mention = f"<@{user_id}>" if user_id else seats[seat].name
        limit = record.settings.get("turn_seconds", 86400)
        content = (
            f"{mention}, {_car_label(state, seat)}: {heading}.\n{_dashboard(state, seat)} · "
            f"you have {_duration(limit)} per move."
        )
        await thread.send(
            content,
            view=view_of(*buttons[:25]),
            files=files,
            allowed_mentions=discord.AllowedMentions(users=True),
        )
        if phase == "speed":
            await self._arm_timers(record, state, seat, limit)

    async def _arm_timers(
        self, record: GameRecord, state: WaddingtonState, seat: int, limit: float
    ) -> None:
        await self.bot.timers.cancel_for_game(record.id)
        now = self.bot.timers.clock()
        payload = {"seat": seat, "round": state.round}
        await self.bot.timers.create("f1_reminder", now + limit * REMINDER_AT, payload, record.id)
        await self.bot.timers.create("f1_timeout", now + limit, payload, record.id)

    def _still_waiting(self, state: WaddingtonState, timer: Timer) -> bool:
        t = state.turn
        return (
            not state.over
            and t is not None
            and t.seat == timer.payload["seat"]
            and state.round == timer.payload["round"]
        )

    @commands.Cog.listener()
    async def on_f1_reminder_timer_complete(self, timer: Timer) -> None:
        assert timer.game_id is not None
        record, _, state = await play.load(self.store, timer.game_id)
        if record.status != "running" or not self._still_waiting(state, timer):
            return
        seats = {s.seat: s for s in await self.store.seats(record.id)}
        left = max(0, record.settings.get("turn_seconds", 86400) * (1 - REMINDER_AT))
        thread = await self._thread(record)
        await thread.send(
            f"⏰ <@{seats[timer.payload['seat']].user_id}>, your move in race #{record.id}: "
            f"about {_duration(left)} left before the robot drives for you.",
            allowed_mentions=discord.AllowedMentions(users=True),
        )

    @commands.Cog.listener()
    async def on_f1_timeout_timer_complete(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self._locks[timer.game_id]:
            record, game, state = await play.load(self.store, timer.game_id)
            if record.status != "running" or not self._still_waiting(state, timer):
                return
            seat = timer.payload["seat"]
            seats = {s.seat: s for s in await self.store.seats(record.id)}
            events = []
            while (
                not game.is_terminal(state)
                and game.to_act(state) == [seat]
                and (state.round == timer.payload["round"])
            ):
                played = await play.act(
                    self.store,
                    record.id,
                    game.robot_action(state, seat),
                    actor=f"timeout:{seats[seat].user_id}",
                    by_robot=True,
                )
                events += played.events
                state = played.state
            thread = await self._thread(record)
            await thread.send(
                f"⏱ {seats[seat].name} ran out of time: the robot drove "
                f"{_car_label(await self._state(record.id), seat)}'s move."
            )
            await self._advance(record.id, events, state)

    async def _state(self, game_id: int) -> WaddingtonState:
        return (await play.load(self.store, game_id))[2]

    async def _finish(self, record: GameRecord, state: WaddingtonState, thread: Any) -> None:
        game = _game()
        seats = {s.seat: s for s in await self.store.seats(record.id)}
        names = {seat: s.name for seat, s in seats.items()}
        placings = game.classification(state)
        lines = [
            f"{p.place}. {_car_label(state, p.seat)} {names[p.seat]}"
            + ("" if p.status == "running" else f" ({p.status})")
            for p in placings
        ]
        if not record.results_recorded:  # play.act records them at the finish; this is a
            await play.record_finish(self.store, record.id, game, state)  # safety net
        if record.league_id is not None:
            league = await self.store.league_by_id(record.league_id)
            table = league_points_table(league)
            points = [
                f"{names[p.seat]} {table.points_for(p.place)}"
                for p in placings
                if seats[p.seat].user_id is not None and not seats[p.seat].robot
            ]
            lines.append(f"\nLeague points ({league.label}, recorded): " + ", ".join(points))
        await thread.send(
            "🏁 **Classification**\n" + "\n".join(lines),
            file=_file(render_classification(state, names), f"race{record.id}-result.png"),
        )

    # Start-up --------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After a restart, let robots finish any move they were due to make."""
        if self._kicked:
            return
        self._kicked = True
        game = _game()
        for record in await self.store.list_games(unfinished_only=True):
            if record.kind != KIND or record.status != "running":
                continue
            async with self._locks[record.id]:
                _, _, state = await play.load(self.store, record.id)
                to_act = game.to_act(state)
                seats = {s.seat: s for s in await self.store.seats(record.id)}
                if to_act and seats[to_act[0]].robot:
                    try:
                        await self._advance(record.id, [], state)
                    except discord.HTTPException:
                        log.warning("could not resume race #%s", record.id, exc_info=True)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 86400 and seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours // 24} day{'s' if hours // 24 != 1 else ''}" + (
            f" {hours % 24} h" if hours % 24 else ""
        )
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    return f"{max(1, seconds // 60)} min"


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(WaddingtonCog(bot))
