"""`/pit`: Pit Formula, played in real time in any channel.

Everyone repairs at once: `/pit fix` (or a typed line such as `t2 b3 c4` when the bot has the
message-content intent) lays tokens on a card; the engine takes them if they are all still on
the table and checks the arithmetic only at scoring, as at the table. The race message (crash
card, repairs, token table image) is edited as tokens go, at most once per EDIT_INTERVAL so
that bursts coalesce within Discord's rate limits.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import button, human_seat, view_of
from bot.league_tables import league_points_table, league_round_for_game
from renderer.pitformula import render_scoring, render_table
from rules.base import get_game
from rules.errors import IllegalAction, PaddockError
from rules.pitformula import (
    FLAG_NAMES,
    Fix,
    Go,
    PitFormulaState,
    Reveal,
    TakeFlag,
    TimeUp,
    car_of_seat,
    catalog,
    competitor_scores,
    missing_repairs,
    parse_command,
)
from store import GameRecord, Seat, play
from store.models import Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.pit")

KIND = "pitformula"
AREA = "pit"
MODES = {
    "standard": {},
    "basic": {"basic": True},
    "points": {"points_target": 40},
    "standard-score": {"standard_score": True},
    "pitcrew": {"mode": "pitcrew"},
    "constructors": {"mode": "constructors"},
    "coop": {"mode": "coop"},
}
MODE_CHOICES = [app_commands.Choice(name=m, value=m) for m in MODES]
PART_CHOICES = [
    app_commands.Choice(name=n, value=v)
    for n, v in [
        ("tyre1", "t1"),
        ("tyre2", "t2"),
        ("tyre3", "t3"),
        ("tyre4", "t4"),
        ("wing", "w"),
        ("gas", "g"),
        ("engine", "e"),
    ]
]
PART_WORDS = {"tyre": "tyre", "wing": "wing", "gas": "gas", "engine": "engine"}


def _game() -> Any:
    return get_game(KIND)


def _file(png: bytes, name: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)


def _repairs_text(required: dict[str, int]) -> str:
    parts = [f"{n} {p}{'s' if n > 1 and p == 'tyre' else ''}" for p, n in required.items() if n]
    return ", ".join(parts) or "nothing"


class PitCog(commands.Cog):
    pit = app_commands.Group(
        name="pit", description="Pit Formula: real-time pit-crew races", guild_only=True
    )

    countdown_seconds: float = 3.0
    edit_interval: float = 1.5
    clock_interval: float = 5.0  # how often the solo stopwatch message is edited

    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._go_at: dict[int, float] = {}  # game id -> monotonic time of this race's "Go!"
        self._dirty: set[int] = set()
        self._editors: dict[int, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._seat_cache: dict[int, list[Seat]] = {}
        bot.component_routes[AREA] = self.on_button

    @property
    def store(self):  # noqa: ANN201
        return self.bot.store

    async def cog_unload(self) -> None:
        for task in self._editors.values():
            task.cancel()

    # Starting --------------------------------------------------------------------------

    @pit.command(name="start", description="Start a Pit Formula championship in this channel")
    @app_commands.describe(
        players="Mention the other players (empty: a lobby with a Join button)",
        mode="Game mode (default standard)",
        races="Races in the championship (1-12, default 5)",
        league="A Pit Formula league this game counts for",
        round="That league's round number",
    )
    @app_commands.choices(mode=MODE_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction,
        players: str | None = None,
        mode: app_commands.Choice[str] | None = None,
        races: app_commands.Range[int, 1, 12] = 5,
        league: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
    ) -> None:
        if not 1 <= races <= 12:
            raise PaddockError("A championship has 1 to 12 races.")
        mode_name = mode.value if mode else "standard"
        assert interaction.guild is not None
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        league_id, round_id = (found[0].id, found[1].id) if found else (None, None)
        settings = {"mode": mode_name, "races": races, "host": interaction.user.id}
        users: list[discord.abc.User] = [interaction.user]
        if players:
            for uid in {int(u) for u in _mentions(players)} - {interaction.user.id}:
                member = await _member(interaction.guild, uid)
                if member is None:
                    raise PaddockError(f"<@{uid}> is not on this server.")
                if member.bot:
                    raise PaddockError("Bots can't play Pit Formula.")
                users.append(member)
        seats = [human_seat(i, u) for i, u in enumerate(users)]
        record = await self.store.create_game(
            KIND,
            interaction.id % (2**48),
            {},
            None,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            league_id=league_id,
            round_id=round_id,
            status="lobby",
            seats=seats,
            settings=settings,
        )
        if players:
            await interaction.response.send_message(
                f"🔧 Pit Formula ({mode_name}, {races} races): "
                + ", ".join(f"<@{s.user_id}>" for s in seats)
            )
            await self._begin(record.id)
        else:
            await interaction.response.send_message(
                embed=await self._lobby_embed(record.id), view=self._lobby_view(record.id)
            )

    @pit.command(name="solo", description="Play Pit Formula alone against a Rival's stopwatch")
    @app_commands.describe(rival="Rookie, Veteran or Champion", races="Races (1-12, default 5)")
    @app_commands.choices(
        rival=[app_commands.Choice(name=r.name, value=r.id) for r in catalog().rivals.values()]
    )
    async def solo(
        self,
        interaction: discord.Interaction,
        rival: app_commands.Choice[str],
        races: app_commands.Range[int, 1, 12] = 5,
    ) -> None:
        settings = {
            "mode": "solo",
            "races": races,
            "rival": rival.value,
            "host": interaction.user.id,
        }
        record = await self.store.create_game(
            KIND,
            interaction.id % (2**48),
            {},
            None,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            status="lobby",
            settings=settings,
            seats=[human_seat(0, interaction.user)],
        )
        await interaction.response.send_message(
            f"⏱ {interaction.user.mention} against the {rival.name} ({races} races)."
        )
        await self._begin(record.id)

    async def _lobby_embed(self, game_id: int) -> discord.Embed:
        record = await self.store.load_game(game_id)
        seats = await self.store.seats(game_id)
        s = record.settings
        embed = discord.Embed(
            title=f"Pit Formula #{game_id}: {s['mode']}, {s['races']} races",
            colour=discord.Colour.orange(),
        )
        embed.add_field(
            name=f"Crews ({len(seats)})",
            value="\n".join(f"<@{x.user_id}>" for x in seats) or "nobody",
        )
        return embed

    def _lobby_view(self, game_id: int) -> discord.ui.View:
        return view_of(
            button("Join", AREA, game_id, "join", style=discord.ButtonStyle.primary),
            button("Start", AREA, game_id, "start", style=discord.ButtonStyle.success),
        )

    async def _begin(self, game_id: int) -> None:
        """From the lobby: make the rules config from the seats, start, then race 1."""
        record = await self.store.load_game(game_id)
        seats = await self.store.seats(game_id)
        s = record.settings
        config: dict[str, Any] = {
            "players": len(seats),
            "races": s["races"],
            **MODES.get(s["mode"], {}),
        }
        if s["mode"] == "solo":
            config.update(mode="solo", rival=s["rival"])
        game = _game()
        try:
            state = game.new_game(record.seed, config)
        except ValueError as exc:
            raise PaddockError(_first_line(exc)) from None
        await self.store.start_game(game_id, config, state.model_dump_json(), seats)
        await self._next_race(game_id)

    async def _next_race(self, game_id: int) -> None:
        record = await self.store.load_game(game_id)
        channel = await self._channel(record)
        game = _game()
        state: PitFormulaState = game.load_state(record.state_json)
        if self.countdown_seconds > 0:
            await channel.send(
                f"Race {state.race.number}: ready... (Go! in {self.countdown_seconds:.0f} s)"
            )
            await asyncio.sleep(self.countdown_seconds)
        starter = game.to_act(state)[0]
        async with self._locks[game_id]:
            played = await play.act(self.store, game_id, Go(seat=starter), actor="bot")
        self._go_at[game_id] = time.monotonic()
        state = played.state
        names = await self._names(game_id)
        message = await channel.send(
            "**Go!**\n" + self._race_text(state, names),
            file=_file(await asyncio.to_thread(render_table, state), "table.png"),
            view=view_of(
                button("My cards", AREA, game_id, "cards", style=discord.ButtonStyle.primary),
                button("Take flag", AREA, game_id, "flag", style=discord.ButtonStyle.success),
            ),
        )
        await self.store.update_game(game_id, status_message_id=message.id)
        if state.race.deadline_ms is not None:
            due = self.bot.timers.clock() + state.race.deadline_ms / 1000
            await self.bot.timers.create("pit_time_up", due, {"race": state.race.number}, game_id)
            clock = await channel.send(_stopwatch(state.race.deadline_ms))
            task = asyncio.create_task(
                self._run_stopwatch(game_id, state.race.number, clock, due),
                name=f"paddock-pit-clock-{game_id}",
            )
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _run_stopwatch(
        self, game_id: int, race: int, message: discord.Message, due: float
    ) -> None:
        """Edit the stopwatch message until the race is over or the time is up."""
        while True:
            await asyncio.sleep(self.clock_interval)
            _, _, state = await play.load(self.store, game_id)
            left_ms = int((due - self.bot.timers.clock()) * 1000)
            if state.race.number != race or state.phase != "repair" or left_ms <= 0:
                return
            try:
                await message.edit(content=_stopwatch(left_ms))
            except discord.HTTPException:
                log.warning("could not edit the stopwatch of game %s", game_id, exc_info=True)

    # Playing ---------------------------------------------------------------------------

    @pit.command(name="fix", description="Lay tokens on one of your part cards")
    @app_commands.describe(
        part="The card to repair", tokens='Token coordinates like "b3 c4", or "spare"'
    )
    @app_commands.choices(part=PART_CHOICES)
    async def fix(
        self,
        interaction: discord.Interaction,
        part: app_commands.Choice[str],
        tokens: app_commands.Range[str, 1, 60],
    ) -> None:
        game_id = await self._game_in_channel(interaction.channel_id)
        action = parse_command(f"{part.value} {tokens}")
        done = await self._act(game_id, interaction.user.id, action)
        await interaction.response.send_message(done, ephemeral=True)

    @pit.command(name="flag", description="Take the best flag left: your pit stop is over")
    async def flag(self, interaction: discord.Interaction) -> None:
        game_id = await self._game_in_channel(interaction.channel_id)
        done = await self._act(game_id, interaction.user.id, {"kind": "flag"})
        await interaction.response.send_message(done, ephemeral=True)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """The typed shorthand (`t2 b3 c4`, `e a1 a2`, `flag`) in a race channel."""
        if message.author.bot or not message.content or message.guild is None:
            return
        try:
            game_id = await self._game_in_channel(message.channel.id)
        except PaddockError:
            return
        seats = await self._seats(game_id)
        if not any(s.user_id == message.author.id for s in seats):
            return
        try:
            action = parse_command(message.content)
            await self._act(game_id, message.author.id, action)
        except PaddockError as exc:
            await message.reply(exc.message, mention_author=False, delete_after=15)
            return
        await message.add_reaction("✅")

    async def _game_in_channel(self, channel_id: int | None) -> int:
        record = await self.store.find_game(KIND, channel_id=channel_id)
        if record is None or record.status != "running":
            raise PaddockError("There is no Pit Formula race running in this channel.")
        return record.id

    async def _act(self, game_id: int, user_id: int, fields: dict[str, Any]) -> str:
        """One player's action through the rules; the answer for that player."""
        async with self._locks[game_id]:
            record, game, state = await play.load(self.store, game_id)
            seats = [s.seat for s in await self._seats(game_id) if s.user_id == user_id]
            if not seats:
                raise PaddockError("You are not in this game.")
            seat = seats[0]
            if state.phase != "repair":
                raise IllegalAction("Wait for the Go!")
            at_ms = None
            if game_id in self._go_at:
                at_ms = max(0, int((time.monotonic() - self._go_at[game_id]) * 1000))
            action = game.parse_action(
                {**fields, "seat": seat, "at_ms": at_ms}
                if fields["kind"] != "go"
                else {**fields, "seat": seat}
            )
            played = await play.act(
                self.store, game_id, action, actor=str(user_id), loaded=(record, game, state)
            )
        if any(e.kind == "race_over" for e in played.events):
            # Scoring and the next race's countdown run on their own, so this answer is
            # not held up (the engine has reset the cards: `state` still shows them).
            task = asyncio.create_task(
                self._after_race(game_id, played.state, state), name=f"pit-after-race-{game_id}"
            )
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        else:
            self._mark_dirty(game_id)
        return _answer(action, played.state, seat)

    # Buttons ---------------------------------------------------------------------------

    async def on_button(
        self, interaction: discord.Interaction, game_id: int, action: str, arg: str | None
    ) -> None:
        if action in ("join", "start"):
            await self._lobby_button(interaction, game_id, action)
        elif action == "cards":
            await self._show_cards(interaction, game_id)
        elif action == "reveal" and arg:
            done = await self._act(game_id, interaction.user.id, {"kind": "reveal", "cards": [arg]})
            await interaction.response.send_message(done, ephemeral=True)
        elif action == "flag":
            done = await self._act(game_id, interaction.user.id, {"kind": "flag"})
            await interaction.response.send_message(done, ephemeral=True)
        else:
            raise PaddockError("This button is no longer in use.")

    async def _lobby_button(
        self, interaction: discord.Interaction, game_id: int, action: str
    ) -> None:
        async with self._locks[game_id]:
            record = await self.store.load_game(game_id)
            if record.status != "lobby":
                raise PaddockError("This game has already started.")
            seats = await self.store.seats(game_id)
            if action == "join":
                if any(s.user_id == interaction.user.id for s in seats):
                    raise PaddockError("You are already in this game.")
                if len(seats) >= 4:
                    raise PaddockError("This game is full (4 players).")
                seats.append(human_seat(len(seats), interaction.user))
                await self.store.set_seats(game_id, seats)
                await interaction.response.edit_message(embed=await self._lobby_embed(game_id))
                return
            if interaction.user.id != record.settings["host"]:
                raise PaddockError(f"Only the host (<@{record.settings['host']}>) can start.")
            await interaction.response.edit_message(view=None)
        await self._begin(game_id)  # outside the lock: the first race takes it

    async def _show_cards(self, interaction: discord.Interaction, game_id: int) -> None:
        _, game, state = await play.load(self.store, game_id)
        seats = [s.seat for s in await self._seats(game_id) if s.user_id == interaction.user.id]
        if not seats:
            raise PaddockError("You are not in this game.")
        view = game.seat_view(state, seats[0])["you"]
        lines, hidden = [], []
        for card in view["cards"]:
            if card["revealed"]:
                a, b = card["numbers"]
                laid = " ".join(card["tokens"]) or "-"
                lines.append(
                    f"`{card['slot']}` {card['part']}: **{a}** and **{b}** (tokens: {laid})"
                )
            else:
                hidden.append(card["slot"])
                lines.append(f"`{card['slot']}` {card['part']}: face down")
        must = _repairs_text(view["missing"]) if view["missing"] else "all done: take a flag"
        items = [button(f"Turn over {slot}", AREA, game_id, "reveal", slot) for slot in hidden]
        await interaction.response.send_message(
            "Your part cards:\n" + "\n".join(lines) + f"\nStill to repair: {must}.",
            view=view_of(*items) if items else discord.utils.MISSING,
            ephemeral=True,
        )

    # Publishing ------------------------------------------------------------------------

    async def _channel(self, record: GameRecord) -> Any:
        assert record.channel_id is not None
        channel = self.bot.get_channel(record.channel_id)
        return channel or await self.bot.fetch_channel(record.channel_id)

    async def _seats(self, game_id: int) -> list[Seat]:
        """A running game's seats (fixed once it has started, so kept after the first read)."""
        if game_id not in self._seat_cache:
            self._seat_cache[game_id] = await self.store.seats(game_id)
        return self._seat_cache[game_id]

    async def _names(self, game_id: int) -> dict[int, str]:
        return {s.seat: s.name for s in await self._seats(game_id)}

    def _race_text(self, state: PitFormulaState, names: dict[int, str]) -> str:
        race = state.race
        crash = catalog().crash_cards[race.crash] if race.crash else None
        lines = [
            f"Race {race.number}/{state.settings.races}"
            + (" - **super crash**" if race.super else "")
            + (f": **{crash.name}**" if crash else ""),
        ]
        for i, car in enumerate(state.cars):
            who = " & ".join(names.get(s, f"seat {s}") for s in car.seats)
            status = (
                f"{FLAG_NAMES[car.flag]} flag"
                if car.flag is not None
                else "retired"
                if car.retired
                else f"to repair: {_repairs_text(missing_repairs(car))}"
            )
            lines.append(f"Car {i + 1} ({who}): {status}")
        lines.append(
            f"Spare parts left: {race.spares_left} · "
            f"flags: {race.flags - len(race.flags_taken)} of {race.flags} left"
        )
        return "\n".join(lines)

    def _mark_dirty(self, game_id: int) -> None:
        self._dirty.add(game_id)
        task = self._editors.get(game_id)
        if task is None or task.done():
            self._editors[game_id] = asyncio.create_task(
                self._edit_loop(game_id), name=f"paddock-pit-editor-{game_id}"
            )

    async def _edit_loop(self, game_id: int) -> None:
        """Edit the race message at most once per interval; bursts become one edit."""
        while game_id in self._dirty:
            await asyncio.sleep(self.edit_interval)
            self._dirty.discard(game_id)
            try:
                record, _, state = await play.load(self.store, game_id)
                if state.phase != "repair" or record.status_message_id is None:
                    return
                channel = await self._channel(record)
                await channel.get_partial_message(record.status_message_id).edit(
                    content="**Go!**\n" + self._race_text(state, await self._names(game_id)),
                    attachments=[_file(await asyncio.to_thread(render_table, state), "table.png")],
                )
            except discord.HTTPException:
                log.warning("could not edit the race message of game %s", game_id, exc_info=True)

    async def _after_race(
        self, game_id: int, state: PitFormulaState, before: PitFormulaState
    ) -> None:
        try:
            record = await self.store.load_game(game_id)
            channel = await self._channel(record)
            names = await self._names(game_id)
            result = state.results[-1]
            scores = competitor_scores(state)
            lines = [f"🏁 Race {result.number} scored."]
            for cr in result.cars:
                who = " & ".join(names[s] for s in state.cars[cr.car].seats)
                flag = f"{FLAG_NAMES[cr.flag]} flag, " if cr.flag is not None else ""
                wrong = f"wrong: {', '.join(cr.errors)}, " if cr.errors else ""
                lines.append(f"{who}: {flag}{wrong}{cr.points} points")
            if result.rival is not None:
                lines.append(f"Rival: {result.rival.points} points (total {state.rival_score})")
            lines.append(
                "Championship: "
                + ", ".join(
                    f"{' & '.join(names[s] for s in car.seats)} {car.score}" for car in state.cars
                )
                + f" (scores {scores})"
            )
            png = await asyncio.to_thread(render_scoring, state, names, board=before)
            await channel.send("\n".join(lines), file=_file(png, "scoring.png"))
            await self.bot.timers.cancel_for_game(game_id)
            if state.phase == "over":
                await self._final(record, state, names, channel)
            else:
                await self._next_race(game_id)
        except Exception as exc:  # a background task: log, never lose it silently
            log.exception("after race of game %s failed", game_id, exc_info=exc)

    async def _final(
        self, record: GameRecord, state: PitFormulaState, names: dict[int, str], channel: Any
    ) -> None:
        game = _game()
        placings = game.classification(state)
        lines = ["🏆 **Final standings** (points, then trophy tokens, then shared):"]
        for p in placings:
            car = state.cars[car_of_seat(state, p.seat)]
            lines.append(
                f"{p.place}. {names[p.seat]}: {car.score} points, {len(car.trophies)} trophies"
            )
        if state.settings.solo:
            lines.append(f"The Rival: {state.rival_score} points.")
        if record.league_id is not None:
            league = await self.store.league_by_id(record.league_id)
            table = league_points_table(league)
            lines.append(
                f"League points ({league.label}): "
                + ", ".join(f"{names[p.seat]} {table.points_for(p.place)}" for p in placings)
            )
        await channel.send("\n".join(lines))

    @commands.Cog.listener()
    async def on_pit_time_up_timer_complete(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self._locks[timer.game_id]:
            record, game, state = await play.load(self.store, timer.game_id)
            if (
                record.status != "running"
                or state.phase != "repair"
                or state.race.number != timer.payload["race"]
            ):
                return
            deadline = state.race.deadline_ms or 0
            played = await play.act(
                self.store,
                record.id,
                TimeUp(seat=game.to_act(state)[0], at_ms=deadline),
                actor="stopwatch",
            )
        channel = await self._channel(record)
        await channel.send("⏱ The Rival's stopwatch ran out!")
        await self._after_race(record.id, played.state, state)


def _answer(action: Any, state: PitFormulaState, seat: int) -> str:
    car = state.cars[car_of_seat(state, seat)]
    if isinstance(action, Fix):
        return (
            f"Tokens {' '.join(action.tokens)} laid on {action.card}. Still to repair: "
            f"{_repairs_text(missing_repairs(car)) if state.phase == 'repair' else '-'}."
        )
    if isinstance(action, TakeFlag):
        return f"You took the {FLAG_NAMES[car.flag] if car.flag is not None else ''} flag."
    if isinstance(action, Reveal):
        return f"Turned over {', '.join(action.cards)}: see `My cards`."
    return "Done."


def _stopwatch(left_ms: int) -> str:
    seconds = max(0, left_ms // 1000)
    return f"⏱ Rival's stopwatch: **{seconds // 60}:{seconds % 60:02d}** left"


async def _member(guild: discord.Guild | None, user_id: int) -> discord.Member | None:
    if guild is None:
        return None
    try:
        return guild.get_member(user_id) or await guild.fetch_member(user_id)
    except discord.NotFound:
        return None


def _mentions(text: str) -> list[str]:
    import re

    return re.findall(r"<@!?(\d+)>", text)


def _first_line(exc: Exception) -> str:
    text = str(exc)
    for line in text.splitlines():
        if line.strip().startswith("Value error,"):
            return line.split("Value error,", 1)[1].split("[")[0].strip().capitalize() + "."
    return text.splitlines()[0]


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(PitCog(bot))
