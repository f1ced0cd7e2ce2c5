"""`/pit`: Pit Formula's commands, and the typed shorthand (`t2 b3 c4`) in a race channel.

Everyone repairs at once: `/pit fix` (or a typed line when the bot has the message-content
intent) lays tokens on a card; the engine takes them if they are all still on the table and
checks the arithmetic only at scoring, as at the table.
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
from bot.cogs.pitformula.presenter import AREA, KIND, PitPresenter
from bot.cogs.pitformula.race import Races
from bot.cogs.pitformula.text import answer_text, repairs_text, without_typing
from bot.cogs.table_commands import TableCog
from bot.components import button, human_seat, view_of
from bot.errors import EXPIRED
from bot.league_tables import league_round_for_game
from bot.posting import defer, result, think
from bot.presenter import Loaded
from bot.table.core import MENTION_NONE
from bot.table.lobby import seed_of
from renderer.common import counted
from rules.base import Action
from rules.errors import IllegalAction, PaddockError
from rules.pitformula import PitFormulaState, catalog, parse_command
from store import GameRecord, Seat
from store.models import Timer

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.pit")

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


class PitCog(TableCog, group_name="pit", group_description="Pit Formula: real-time pit crews"):
    presenter: PitPresenter
    countdown_seconds: float = 3.0
    edit_interval: float = 1.5
    clock_interval: float = 5.0  # how often the solo stopwatch message is edited

    def __init__(self, bot: PaddockBot) -> None:
        self.presenter = PitPresenter(self)
        super().__init__(bot)
        self.live = self.table.realtime
        self.races = Races(self)

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
            seed=seed_of(interaction),
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
            seed=seed_of(interaction),
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
            self.live.background(
                self.races.after_race(loaded, before.state), f"pit-after-race-{game_id}"
            )
        else:
            self.live.mark_dirty(game_id, self.edit_interval, lambda: self.races.edit(game_id))
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

    @commands.Cog.listener()
    async def on_pit_time_up_timer_complete(self, timer: Timer) -> None:
        await self.races.time_up(timer)


async def _member(guild: discord.Guild | None, user_id: int) -> discord.Member | None:
    if guild is None:
        return None
    try:
        return guild.get_member(user_id) or await guild.fetch_member(user_id)
    except discord.NotFound:
        return None


def _mentions(text: str) -> list[str]:
    return re.findall(r"<@!?(\d+)>", text)
