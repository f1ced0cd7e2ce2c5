"""`/pit`: Pit Formula, played in real time in any channel.

Everyone repairs at once: `/pit fix` (or a typed line such as `t2 b3 c4` when the bot has the
message-content intent) lays tokens on a card; the engine takes them if they are all still on
the table and checks the arithmetic only at scoring, as at the table. The race message (crash
card, repairs, token table image) is edited as tokens go, at most once per EDIT_INTERVAL so
that bursts coalesce within Discord's rate limits. The table layer (bot/table.py) runs the
lobby, the lock, persistence, timers, recovery and the life-cycle commands.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import league_option
from bot.cogs.pitformula_text import (
    answer_text,
    finished_race_text,
    repairs_text,
    stopwatch_stopped_text,
    stopwatch_text,
    without_typing,
)
from bot.cogs.table_commands import TableCog
from bot.components import button, human_seat, shown, view_of
from bot.errors import EXPIRED, NotPosted
from bot.league_tables import league_round_for_game
from bot.posting import defer, result, think
from bot.presenter import Image, Loaded, Presenter
from bot.table import draw
from bot.table.core import MENTION_NONE, mention_only
from renderer.common import counted
from renderer.pitformula import render_scoring, render_table
from rules.base import Action, GameState, get_game
from rules.errors import BadConfig, IllegalAction, PaddockError, PlayerCount
from rules.pitformula import (
    FLAG_NAMES,
    Go,
    PitFormulaState,
    TimeUp,
    car_of_seat,
    catalog,
    competitor_scores,
    missing_repairs,
    parse_command,
    parse_settings,
)
from store import GameRecord, Seat
from store.models import Timer, TimerSpec

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.pit")

KIND = "pitformula"
AREA = "pit"
# What each mode is, in one line (rules/pitformula/data/modes.json): shown in the `mode`
# option's choices, so a player picks knowing what it does.
MODE_CHOICES = [
    app_commands.Choice(name=f"{m.id} - {m.help}", value=m.id) for m in catalog().modes.values()
]
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


class PitPresenter(Presenter[PitFormulaState]):
    kind = KIND
    area = AREA
    title = "Pit Formula"
    noun = "game"
    min_players = 1  # the rules say how many each mode takes, in their own words
    max_players = 4
    max_cars = 4
    in_thread = False
    turn_timers = False
    robots_drive = False
    default_idle_days = 1

    def __init__(self, cog: PitCog) -> None:
        self.cog = cog

    def lobby_lines(self, record: GameRecord) -> list[str]:
        s = record.settings
        return [f"{s['mode']}, {counted(s['races'], 'race')} · 2 to 4 crews (solo: `/pit solo`)"]

    def rules_config(self, record: GameRecord, seats: list[Seat]) -> dict[str, Any]:
        return self.config(record.settings, len(seats))

    @staticmethod
    def config(settings: dict[str, Any], players: int) -> dict[str, Any]:
        config: dict[str, Any] = {"players": players, "races": settings["races"]}
        mode = catalog().modes.get(settings["mode"])
        config.update(mode.config if mode else {})
        if settings["mode"] == "solo":
            config.update(mode="solo", rival=settings["rival"])
        return config

    def check(self, settings: dict[str, Any], players: int) -> None:
        """Refuse, before anything is stored, a game started at once that the rules would
        not start (the players named in the command, or solo)."""
        try:
            parse_settings(self.config(settings, players))
        except BadConfig as exc:
            raise PaddockError(self.config_refusal(exc, settings, lobby=False)) from None

    def config_refusal(
        self, error: BadConfig, settings: dict[str, Any], *, lobby: bool = True
    ) -> str:
        if not isinstance(error, PlayerCount):
            return error.message
        mode = catalog().modes.get(settings.get("mode", "standard"))
        name, people = (mode.title, mode.people) if mode else ("Solo", "crews")
        one = people.split(",")[0].split()[0].removesuffix("s")  # "crew" or "player"
        least, most, given = error.least, error.most, error.given
        want = str(least) if least == most else f"{least} to {most}"
        if given > most:
            todo = (
                f"{counted(given - most, one)} must leave the lobby"
                if lobby
                else f"name at most {counted(most - 1, 'other player')} in `players`"
            )
        elif lobby:
            short = (
                f"another {one}" if given + 1 == least else counted(least - given, f"more {one}")
            )
            todo = f"wait for {short} to join"
        else:
            who = "the other players" if given == 1 else counted(least - given, "more player")
            todo = f"mention {who} in `players`, or leave it out to open a lobby they can join"
        if given == 1 and most > 1:
            todo += ", or use `/pit solo` to race alone" if lobby else "; `/pit solo` races alone"
        return f"{name} mode needs {want} {people}: {todo}."

    def waiting_seats(self, state: GameState) -> list[int]:
        return []  # everyone repairs at once, in real time: no turns to wait for

    def move_key(self, state: Any) -> Any:
        return (state.race.number, state.phase)

    def race_timers(self, state: Any, now: float) -> list[TimerSpec]:
        if state.phase != "repair" or state.race.deadline_ms is None:
            return []
        due = now + state.race.deadline_ms / 1000
        return [TimerSpec(event="pit_time_up", due_at=due, payload={"race": state.race.number})]

    def summary(self, loaded: Loaded[PitFormulaState]) -> str:
        return "**Go!**\n" + self.cog.race_text(loaded.state, _names(loaded))

    # Answered before the race is read (bot/table.py's route): `My cards` and `Take flag`
    # with a private "thinking…", a card turned over by editing its `My cards` message.
    FIRST = {"cards": "private", "flag": "private", "reveal": "update"}

    def answered_first(self, action: str) -> str | None:
        return self.FIRST.get(action)

    async def on_button(
        self, table: Any, interaction: discord.Interaction, game_id: int, action: str, arg: str
    ) -> bool:
        cog = self.cog
        if action == "cards":
            await cog.show_cards(interaction, game_id)
        elif action == "reveal" and arg:
            # The button sits on the player's `My cards` message: show the card's numbers there.
            await cog.act_answering(
                interaction, game_id, {"kind": "reveal", "cards": [arg]}, on_cards=True
            )
        elif action == "flag":
            await cog.act_answering(interaction, game_id, {"kind": "flag"})
        else:
            return False
        return True

    async def begin(self, table: Any, loaded: Loaded[PitFormulaState]) -> None:
        # The start runs under the game's lock; the countdown and Go! take it themselves.
        self.cog.live.background(self.cog.next_race(loaded.id), f"pit-first-race-{loaded.id}")

    async def repost(self, table: Any, loaded: Loaded[PitFormulaState]) -> None:
        if loaded.state.phase == "repair":
            await self.cog.post_race_message(loaded, "**Go!**\n")
        else:
            channel = await table.channel_of(loaded.record)
            await channel.send(
                f"Between races: the next one starts in a moment ("
                f"{len(loaded.state.results)} of {loaded.state.settings.races} raced)."
            )

    async def recover(self, table: Any, loaded: Loaded[PitFormulaState]) -> None:
        state = loaded.state
        cog = self.cog
        if state.phase == "ready":  # between races: the countdown was lost with the process
            cog.live.background(cog.next_race(loaded.id), f"pit-recover-{loaded.id}")
        elif state.phase == "repair":  # the race goes on: a fresh race message to follow
            await cog.post_race_message(loaded, "**Go!** (the bot restarted; carry on)\n")
        else:
            channel = await table.channel_of(loaded.record)
            await cog.final(loaded, channel)


class PitCog(TableCog, group_name="pit", group_description="Pit Formula: real-time pit crews"):
    presenter: PitPresenter
    countdown_seconds: float = 3.0
    edit_interval: float = 1.5
    clock_interval: float = 5.0  # how often the solo stopwatch message is edited

    def __init__(self, bot: PaddockBot) -> None:
        self.presenter = PitPresenter(self)
        super().__init__(bot)
        self.live = self.table.realtime

    async def cog_unload(self) -> None:
        self.live.close()

    # Starting --------------------------------------------------------------------------

    @app_commands.command(name="start", description="Start a Pit Formula game in this channel")
    @app_commands.describe(
        players="Mention the other players (empty: a lobby with a Join button)",
        mode="Game mode (default standard)",
        races="Races in the championship (1-12, default 5)",
        league="A Pit Formula league this game counts for (start typing to pick one)",
        round="That league's round (start typing: the rounds still to race)",
    )
    @app_commands.choices(mode=MODE_CHOICES)
    @league_option(game=KIND, open_only=True, rounds_offered="to race", describe=False)
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
        await think(interaction, starting=True)  # before the store: a race night's burst
        found = await league_round_for_game(
            self.store, interaction.guild.id, league, round, KIND, interaction.user.id
        )
        settings = {"mode": mode_name, "races": races}
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
        if len(seats) > self.presenter.max_players:
            raise PaddockError("Pit Formula takes at most 4 players.")
        if players:  # started at once: a count the mode does not take opens nothing
            self.presenter.check(settings, len(seats))
        record = await self.table.lobby.open_lobby(
            interaction,
            self.presenter,
            settings,
            seed=interaction.id % (2**48),
            league_round=found,
            seats=seats,
            lobby=not players,
        )
        if players:
            await self._start_now(
                interaction,
                record,
                seats,
                f"🔧 Pit Formula ({mode_name}, "
                f"{counted(races, 'race')}): " + ", ".join(f"<@{s.user_id}>" for s in seats),
            )

    @app_commands.command(name="solo", description="Play alone against a Rival's stopwatch")
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
        if not 1 <= races <= 12:
            raise PaddockError("A championship has 1 to 12 races.")
        settings = {"mode": "solo", "races": races, "rival": rival.value}
        self.presenter.check(settings, 1)
        seats = [human_seat(0, interaction.user)]
        await think(interaction, starting=True)
        record = await self.table.lobby.open_lobby(
            interaction,
            self.presenter,
            settings,
            seed=interaction.id % (2**48),
            league_round=None,
            seats=seats,
            lobby=False,
        )
        await self._start_now(
            interaction,
            record,
            seats,
            f"⏱ {interaction.user.mention} against {rival.name} ({counted(races, 'race')}).",
        )

    async def _start_now(
        self,
        interaction: discord.Interaction,
        record: GameRecord,
        seats: list[Seat],
        text: str,
    ) -> None:
        """Players named in the command: no lobby, the game starts at once. The command was
        answered at once ("thinking…"); its result says the game is on as soon as the start
        is stored, before the first race is shown (the crews are pinged by its countdown:
        an edited answer pings nobody)."""

        async def answer() -> None:
            await result(
                interaction, text, allowed_mentions=MENTION_NONE, channel=interaction.channel
            )

        async with self.table.lock(record.id):
            try:
                await self.table.lobby.start(None, self.presenter, record, seats, answer=answer)
            except Exception:  # a refusal, or a failure before the start was stored
                try:  # not a stray lobby, which would keep the channel busy
                    await self.store.end_game(record.id, from_status=("lobby",))
                except Exception as exc:  # the store down: the error above is the one told
                    log.warning("game %s: not started, nor ended: %s", record.id, exc)
                raise

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
        await self.live.countdown(
            channel,
            f"{pings}Race {state.race.number}: ready... (Go! in {self.countdown_seconds:.0f} s)",
            self.countdown_seconds,
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
                game_id, clock, state.race.deadline_ms / 1000, self.clock_interval, tick
            )

    async def post_race_message(self, loaded: Loaded[PitFormulaState], heading: str) -> None:
        channel = await self.table.channel_of(loaded.record)
        state = loaded.state
        message = await channel.send(
            heading + self.race_text(state, _names(loaded)),
            files=await draw([_table_image(state)]),
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

    # Playing ---------------------------------------------------------------------------

    @app_commands.command(name="fix", description="Lay tokens on one of your part cards")
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
        action = parse_command(f"{part.value} {tokens}")  # a typo refused as the answer
        await self.act_answering(interaction, None, action)

    @app_commands.command(name="clear", description="Take the tokens back off one of your cards")
    @app_commands.describe(part="The card to clear: its tokens go back on the table")
    @app_commands.choices(part=PART_CHOICES)
    async def clear(self, interaction: discord.Interaction, part: app_commands.Choice[str]) -> None:
        await self.act_answering(interaction, None, {"kind": "clear", "card": part.value})

    @app_commands.command(name="retire", description="Retire your car from this race (no flag)")
    async def retire(self, interaction: discord.Interaction) -> None:
        await self.act_answering(interaction, None, {"kind": "retire"})

    @app_commands.command(name="flag", description="Take the best flag left: your stop is over")
    async def flag(self, interaction: discord.Interaction) -> None:
        await self.act_answering(interaction, None, {"kind": "flag"})

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """The typed shorthand (`t2 b3 c4`, `e a1 a2`, `flag`) in a race channel."""
        if message.author.bot or not message.content or message.guild is None:
            return
        record = await self.store.find_game(KIND, channel_id=message.channel.id)
        if record is None or record.status != "running":
            return
        if not any(s.user_id == message.author.id for s in await self.store.seats(record.id)):
            return  # not one of the crews: people talk in race channels too
        try:
            action = parse_command(message.content)
            await self._act(record.id, message.author.id, action, typed=True)
        except PaddockError as exc:
            await message.reply(
                exc.message, mention_author=False, delete_after=15, allowed_mentions=MENTION_NONE
            )
            return
        await message.add_reaction("✅")

    async def act_answering(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        fields: dict[str, Any],
        *,
        on_cards: bool = False,
    ) -> None:
        """A command's or button's action (`game_id` None: the game of this channel). It is
        acknowledged first, before the store and the race's lock: with many races at once
        the answer must wait for neither (the player's time is taken as the click arrives,
        all the same). A refusal follows privately; an action the rules take is told once
        stored: privately, or (`on_cards`) on the `My cards` message the button sits on. If
        Discord no longer takes the answer, the action stands all the same: the race
        message shows it."""
        arrived = time.monotonic()
        if interaction.response.is_done() or interaction.extras.get(EXPIRED):
            answered = not interaction.extras.get(EXPIRED)  # a button, answered by the route
        elif on_cards:
            answered = await defer(interaction)  # the cards message is edited below
        else:
            answered = await think(interaction, ephemeral=True)
        if game_id is None:
            game_id = (await self.table.game_here(interaction, self.presenter)).id
        done = await self._act(game_id, interaction.user.id, fields, arrived=arrived)
        if not answered:
            return
        if on_cards:
            await self.show_cards(interaction, game_id, update=True)
        else:
            await result(interaction, done)

    async def _act(
        self,
        game_id: int,
        user_id: int,
        fields: dict[str, Any],
        typed: bool = False,
        arrived: float | None = None,
    ) -> str:
        """One player's action through the rules (`arrived`: when the player's click came,
        on the monotonic clock; else now): the answer for that player. A refusal that names
        a typed command (`clear t1`) names the slash command or button instead, unless the
        player typed (typed lines need the Message Content intent; these don't)."""
        try:
            return await self._act_now(game_id, user_id, fields, arrived)
        except IllegalAction as exc:
            if typed:
                raise
            raise type(exc)(without_typing(exc.message)) from exc

    async def _act_now(
        self, game_id: int, user_id: int, fields: dict[str, Any], arrived: float | None
    ) -> str:
        at_ms = self.live.since_go_ms(game_id, arrived)  # as the click arrived
        async with self.table.lock(game_id):
            loaded = await self.table.load(game_id)
            mine, action = self._checked(loaded, user_id, fields, at_ms)
            before = loaded
            loaded, played = await self.table.commit(loaded, action, str(user_id), human=True)
        if any(e.kind == "race_over" for e in played.events):
            # Scoring and the next race's countdown run on their own, so this answer is
            # not held up (the engine has reset the cards: `before` still shows them).
            self.live.background(self.after_race(loaded, before.state), f"pit-after-race-{game_id}")
        else:
            self.live.mark_dirty(game_id, self.edit_interval, lambda: self._edit(game_id))
        return answer_text(action, loaded.state, mine.seat, played.events)

    @staticmethod
    def _checked(
        loaded: Loaded[PitFormulaState], user_id: int, fields: dict[str, Any], at_ms: int | None
    ) -> tuple[Seat, Action]:
        """The player's seat and action, if the rules take it now (else the refusal)."""
        mine = loaded.human_seat(user_id)
        if mine is None:
            raise PaddockError("You are not in this game.")
        if loaded.record.status != "running":
            raise PaddockError("This game is over.")
        state = loaded.state
        if state.phase != "repair":
            raise IllegalAction("Wait for the Go!")
        extra = (
            {"seat": mine.seat} if fields["kind"] == "go" else {"seat": mine.seat, "at_ms": at_ms}
        )
        action = loaded.game.parse_action({**fields, **extra})
        loaded.game.apply(state, action)  # a refusal (IllegalAction) is the answer
        return mine, action

    async def show_cards(
        self, interaction: discord.Interaction, game_id: int, update: bool = False
    ) -> None:
        """The player's cards, privately: a new message, or (update) the `My cards` message
        whose `Turn over` button was pressed, edited in place."""
        loaded = await self.table.load(game_id)
        mine = loaded.human_seat(interaction.user.id)
        if mine is None:
            raise PaddockError("You are not in this game.")
        view = loaded.game.seat_view(loaded.state, mine.seat)["you"]
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
        must = repairs_text(view["missing"]) if view["missing"] else "all done: take a flag"
        items = [button(f"Turn over {slot}", AREA, game_id, "reveal", slot) for slot in hidden]
        text = "Your part cards:\n" + "\n".join(lines) + f"\nStill to repair: {must}."
        if interaction.response.is_done():  # acknowledged first (the route, act_answering)
            await interaction.edit_original_response(
                content=text, view=view_of(*items) if items else None
            )
        elif update:
            await interaction.response.edit_message(
                content=text, view=view_of(*items) if items else None
            )
        else:
            await interaction.response.send_message(
                text, view=view_of(*items) if items else discord.utils.MISSING, ephemeral=True
            )

    # Publishing ------------------------------------------------------------------------

    def race_text(self, state: PitFormulaState, names: dict[int, str]) -> str:
        race = state.race
        crash = catalog().crash_cards[race.crash] if race.crash else None
        lines = [
            f"Race {race.number}/{state.settings.races}"
            + (" - **super crash**" if race.super else "")
            + (f": **{crash.name}**" if crash else ""),
        ]
        for i, car in enumerate(state.cars):
            who = " & ".join(shown(names.get(s, f"seat {s}")) for s in car.seats)
            status = (
                f"{FLAG_NAMES[car.flag]} flag"
                if car.flag is not None
                else "retired"
                if car.retired
                else f"to repair: {repairs_text(missing_repairs(car))}"
            )
            lines.append(f"Car {i + 1} ({who}): {status}")
        lines.append(
            f"Spare parts left: {race.spares_left} · "
            f"flags: {race.flags - len(race.flags_taken)} of {race.flags} left"
        )
        return "\n".join(lines)

    async def _edit(self, game_id: int) -> bool:
        """The race message shows the race as it is now (a burst of fixes: one edit)."""
        loaded = await self.table.load(game_id)
        state = loaded.state
        if state.phase != "repair" or loaded.record.status_message_id is None:
            return False
        channel = await self.table.channel_of(loaded.record)
        try:
            await channel.get_partial_message(loaded.record.status_message_id).edit(
                content="**Go!**\n" + self.race_text(state, _names(loaded)),
                attachments=await draw([_table_image(state)]),
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
                content=finished_race_text(state, _names(loaded)),
                view=None,
                allowed_mentions=MENTION_NONE,
            )
        except discord.HTTPException:
            log.warning("could not close the race message of game %s", game_id, exc_info=True)

    async def after_race(self, loaded: Loaded[PitFormulaState], before: PitFormulaState) -> None:
        channel = await self.table.channel_of(loaded.record)
        names = _names(loaded)
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
        scoring = Image("scoring.png", lambda: render_scoring(state, names, board=before))
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
        names = _names(loaded)
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
        standings = Image("standings.png", lambda: render_table(state, names))
        await channel.send(
            "\n".join(lines), files=await draw([standings]), allowed_mentions=MENTION_NONE
        )
        await self.store.update_game(loaded.id, published_seq=loaded.record.seq)

    @commands.Cog.listener()
    async def on_pit_time_up_timer_complete(self, timer: Timer) -> None:
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


def _table_image(state: PitFormulaState) -> Image:
    return Image("table.png", lambda: render_table(state))


def _names(loaded: Loaded[PitFormulaState]) -> dict[int, str]:
    return {seat: s.name for seat, s in loaded.seats.items()}


async def _member(guild: discord.Guild | None, user_id: int) -> discord.Member | None:
    if guild is None:
        return None
    try:
        return guild.get_member(user_id) or await guild.fetch_member(user_id)
    except discord.NotFound:
        return None


def _mentions(text: str) -> list[str]:
    return re.findall(r"<@!?(\d+)>", text)


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(PitCog(bot))
