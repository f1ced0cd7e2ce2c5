"""Taking a race back (issue 27), written once for every game: a driver's undo of their last
decision and an admin's rewind to an earlier action both end here.

The store writes the take-back as a log entry (a mark, store/undo.py) with the state it
returns to, under the move's row lock and sequence check; then, as after a move, the robots
play if it is theirs to, and the thread is told (the notice) and asked again (a new prompt;
the old one loses its buttons). This process's memory of the race (pictures due, who
acted, the deadline, the last board) is dropped: the store has what it needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bot.availability import EVERYONE_AVAILABLE, Drivers
from bot.components import shown
from bot.presenter import Loaded
from rules.base import GameState
from store.models import TimerSpec
from store.undo import REWIND, UNDO, Mark, state_after

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.moves import Moves


def mark_line(mark: Mark, who: str) -> str:
    """A mark in words, for the thread and `/<game> log` (`who`: a name, shown escaped)."""
    if mark.kind == UNDO:
        return f"↩️ {shown(who)} took back their last decision."
    assert mark.kind == REWIND
    where = "its start" if mark.to == 0 else f"action {mark.to}"
    return f"⏪ {shown(who)} rewound the race to {where}."


class TakeBacks:
    def __init__(self, core: TableCore, moves: Moves) -> None:
        self.core = core
        self.moves = moves

    async def state_after(self, loaded: Loaded[Any], to: int) -> GameState:
        """The race as it stood after log entry `to` (0: its start), replayed from its seed
        off the event loop (a long race's log takes tens of milliseconds)."""
        log = await self.core.store.actions(loaded.id)
        record = loaded.record
        return await asyncio.to_thread(
            state_after, loaded.game, record.seed, record.config, log, to
        )

    async def take_back(
        self,
        loaded: Loaded[Any],
        mark: Mark,
        actor: str,
        state: GameState,
        *,
        timers: list[TimerSpec] | None = None,
        notes: list[str],
        then: Callable[[], Awaitable[None]] | None = None,
    ) -> Loaded[Any]:
        """Under the race's lock: `mark` stored with `state` (the race after entry
        `mark.to`), StaleState if the race moved on meanwhile (nothing written). `timers`
        None: those before the last action (an undo: the deadline as it was). Then the
        thread: `notes` and the decision asked again. `then`: what is done once it is
        stored, before the thread is told (an undo marks its move's posts as taken back)."""
        store = self.core.store
        now = self.core.clock()  # a person's act: the race's idle days count from it
        seq = await store.take_back(
            loaded.id,
            loaded.record.seq,
            actor,
            mark,
            state.model_dump_json(),
            timers=timers,
            human_at=now,
        )
        self.core.forget(loaded.id)  # pictures due, who acted, deadline, last board
        self.core.bot.timers.poke()
        self.core.fault("after-take-back", seq)
        if then is not None:
            await then()
        record = loaded.record.model_copy(
            update={
                "seq": seq,
                "status": "running",
                "results_recorded": False,
                "last_human_at": now,
            }
        )
        after = Loaded(record, loaded.game, state, loaded.seats, feed=loaded.feed)
        # nobody away or in their quiet hours is pinged by the prompt asking again
        drivers = await self.core.waiting_drivers(after, state)
        self.core.race(loaded.id).silent = drivers.silent(now)
        return await self.moves.advance(after, [], key_before=None, notes=notes)

    def fresh_timers(
        self, loaded: Loaded[Any], state: GameState, drivers: Drivers = EVERYONE_AVAILABLE
    ) -> list[TimerSpec]:
        """A new clock for the seats to act in `state` (a rewind: the old deadline is long
        gone), by `drivers`' availability (`TableCore.waiting_drivers`). The take-back counts
        as a person's act for the idle timer: a race finished days ago is not idle at once."""
        now = self.core.clock()
        timers = self.moves.timers_for(loaded, state, now, human=True, fresh=True, drivers=drivers)
        return timers or []
