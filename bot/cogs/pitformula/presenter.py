"""Pit Formula's presenter: what the table layer asks of the game (its lobby, settings and
their refusals, timers, buttons, and what to show after a restart)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.cogs.pitformula.text import race_text
from bot.presenter import Loaded, Presenter
from renderer.common import counted
from rules.base import GameState
from rules.errors import BadConfig, PaddockError, PlayerCount
from rules.pitformula import PitFormulaState, catalog, parse_settings
from store import GameRecord, Round, Seat
from store.models import TimerSpec

if TYPE_CHECKING:
    from bot.cogs.pitformula.commands import PitCog

KIND = "pitformula"
AREA = "pit"


def names_of(loaded: Loaded[PitFormulaState]) -> dict[int, str]:
    """Each seat's name, as the race messages show them."""
    return {seat: s.name for seat, s in loaded.seats.items()}


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
    rewinds = False  # a race against the clock is not played again from a past moment
    default_idle_days = 1
    # Paddock rule (docs/rules/pitformula.md): nothing is taken back in real time
    undo_refused = (
        "Pit Formula is played in real time: nothing is taken back. "
        "Take your tokens off a card with `/pit clear` instead."
    )

    def __init__(self, cog: PitCog) -> None:
        self.cog = cog

    def league_round_settings(self, choices: dict[str, Any], rnd: Round) -> dict[str, Any]:
        return {"mode": "standard", "races": 5}  # `/pit start`'s defaults

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
        return "**Go!**\n" + race_text(loaded.state, names_of(loaded))

    # Answered before the race is read (bot/table/routes.py): `My cards` and `Take flag`
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
        self.cog.live.background(self.cog.races.next_race(loaded.id), f"pit-first-race-{loaded.id}")

    async def repost(self, table: Any, loaded: Loaded[PitFormulaState]) -> None:
        if loaded.state.phase == "repair":
            await self.cog.races.post_race_message(loaded, "**Go!**\n")
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
            cog.live.background(cog.races.next_race(loaded.id), f"pit-recover-{loaded.id}")
        elif state.phase == "repair":  # the race goes on: a fresh race message to follow
            await cog.races.post_race_message(loaded, "**Go!** (the bot restarted; carry on)\n")
        else:
            channel = await table.channel_of(loaded.record)
            await cog.races.final(loaded, channel)
