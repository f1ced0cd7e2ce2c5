"""The table layer: what every game shares in Discord, written once.

boardgame.io's split: the framework owns the lobby, seats, the per-game lock, load -> act ->
persist, robots and autopilot, publishing, the finish, the life cycle and recovery at
start-up; a game brings a `Presenter` (bot/presenter.py) and a short cog of commands. One
module a job (docs/architecture.md draws how a click goes through them):

- core.py: the bot, the store, the presenters, each race's lock and memory, loading a game,
  its thread, who may do what;
- routes.py: a click routed from its custom_id to what it does;
- moves.py: an action applied and stored, then the robots, then the thread told;
- publish.py: what the thread is told (boards, activation pictures, prompts, the finish);
- lobby.py: a game before its start; life.py: abandon, replace, autopilot, status;
- turns.py: reminders, timeouts, idle races; ending.py: a game that is over;
- log.py: `/<game> log`; recovery.py: showing a race again after a restart or a failure;
- confirm.py: a costly decision (retiring, a pit stop...) asked first, Confirm or Cancel;
- realtime.py: a game played in real time (Pit Formula): countdown, coalesced edits, clock;
- takeback.py: a race taken back (an undo, a rewind) and asked again; rewind.py: an
  admin's `/<game> rewind`, asked and confirmed;
- undo.py: a driver's undo of their last decision (`/<game> undo`, the Undo button).

`Table` wires the parts and is what a presenter is given (`TablePort`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord

from bot.presenter import Decision, Loaded, Presenter
from bot.table.confirm import Confirmations
from bot.table.core import MENTION_NONE, ROUTED, InvalidButton, TableCore, draw, mention_only
from bot.table.ending import Endings
from bot.table.life import Life
from bot.table.lobby import Lobby
from bot.table.log import Log
from bot.table.moves import Moves
from bot.table.publish import Publisher
from bot.table.realtime import RealTime
from bot.table.recovery import Recovery
from bot.table.rewind import Rewind
from bot.table.rounds import Rounds
from bot.table.routes import Routes
from bot.table.takeback import TakeBacks
from bot.table.turns import Turns
from bot.table.undo import Undos
from rules.base import Action, Event
from store.models import GameRecord

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store import Store
    from store.play import Played

__all__ = ["MENTION_NONE", "InvalidButton", "Table", "draw", "mention_only"]


class Table:
    def __init__(self, bot: PaddockBot) -> None:
        self.core = core = TableCore(bot)
        self.endings = Endings(core)
        self.publisher = Publisher(core)
        self.moves = Moves(core, self.publisher, self.endings)
        self.log = Log(core)
        self.lobby = Lobby(core, self.moves, self.publisher, self.endings, self)
        self.life = Life(core, self.moves, self.publisher, self.endings, self)
        self.takebacks = TakeBacks(core, self.moves)
        self.undos = Undos(core, self.moves, self.takebacks)
        self.recovery = Recovery(core, self.life, self.lobby, self, self.undos)
        self.turns = Turns(core, self.moves, self.life, self.recovery)
        self.rounds = Rounds(core, self.lobby)
        self.rewind = Rewind(core, self.takebacks, self.log, self.endings)
        self.confirm = Confirmations(core, self.moves)
        self.routes = Routes(
            core,
            self.moves,
            self.lobby,
            self.life,
            self.log,
            self,
            rewind=self.rewind,
            confirm=self.confirm,
            undos=self.undos,
        )
        self.realtime = RealTime(lambda: bot.timers.clock())

    @property
    def presenters(self) -> dict[str, Presenter[Any]]:
        return self.core.presenters

    @property
    def store(self) -> Store:
        return self.core.store

    def register(self, presenter: Presenter[Any]) -> None:
        """A game's presenter joins the table: its buttons and its turn timers come here."""
        self.core.presenters[presenter.kind] = presenter
        self.core.bot.component_routes[presenter.area] = self.routes.router(presenter)
        self.turns.listen(presenter.area)

    async def game_here(
        self,
        interaction: discord.Interaction,
        presenter: Presenter[Any],
        *,
        running: bool = True,
        ended: bool = False,
    ) -> GameRecord:
        """The game of this thread or channel (bot/table/ending.py)."""
        return await self.endings.game_here(interaction, presenter, running=running, ended=ended)

    # What a presenter may ask (TablePort) ---------------------------------------------------

    async def load(self, game_id: int) -> Loaded[Any]:
        return await self.core.load(game_id)

    async def decision(
        self, interaction: discord.Interaction, presenter: Presenter[Any], game_id: int
    ) -> Decision[Any]:
        """The user's decision, read outside the game's lock (to ask it: a click that plays
        it reads again under the lock, `act_index`), from the row the route just read."""
        loaded = await self.core.load(game_id, record=interaction.extras.get(ROUTED))
        return self.core.decision(loaded, presenter, interaction.user.id)

    def lock(self, game_id: int) -> asyncio.Lock:
        return self.core.lock(game_id)

    async def channel_of(self, record: GameRecord) -> Any:
        return await self.core.channel_of(record)

    def acting_seat(self, loaded: Loaded[Any], user_id: int) -> int:
        return self.core.acting_seat(loaded, user_id)

    async def commit(
        self,
        loaded: Loaded[Any],
        action: Action,
        actor: str,
        *,
        by_robot: bool = False,
        human: bool = False,
    ) -> tuple[Loaded[Any], Played]:
        return await self.moves.commit(loaded, action, actor, by_robot=by_robot, human=human)

    async def advance(
        self,
        loaded: Loaded[Any],
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
    ) -> Loaded[Any]:
        return await self.moves.advance(
            loaded, events, key_before=key_before, start=start, notes=notes
        )

    async def publish(self, loaded: Loaded[Any], events: list[Event], *, key_before: Any) -> None:
        await self.publisher.publish(loaded, events, key_before=key_before)

    async def act_index(
        self,
        interaction: discord.Interaction,
        presenter: Presenter[Any],
        game_id: int,
        token: str,
        index: int,
        *,
        done: str = "Played.",
        answered: bool | None = None,
    ) -> None:
        await self.routes.act_index(
            interaction, presenter, game_id, token, index, done=done, answered=answered
        )

    async def recovered_events(self, loaded: Loaded[Any]) -> list[Event]:
        return await self.moves.recovered_events(loaded)
