"""The clock of a turn: a reminder before the deadline, the seat policy deciding at it, and
an idle race (or a lobby nobody starts) closed after its days."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.components import shown
from bot.errors import NotPosted
from bot.limits import DAY
from bot.presenter import Loaded, timestamp
from bot.table.core import MENTION_NONE, mention_only
from rules.base import Event
from rules.errors import PaddockError
from store.errors import NotFound
from store.models import GameRecord, Timer

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.life import Life
    from bot.table.moves import Moves
    from bot.table.recovery import Recovery

log = logging.getLogger("paddock.table")


class Turns:
    def __init__(self, core: TableCore, moves: Moves, life: Life, recovery: Recovery) -> None:
        self.core = core
        self.moves = moves
        self.life = life
        self.recovery = recovery

    def listen(self, area: str) -> None:
        """The turn timers of a game's area come here."""
        for what, handler in (
            ("reminder", self.on_reminder),
            ("timeout", self.on_timeout),
            ("idle", self.on_idle),
        ):
            self.core.bot.add_listener(handler, f"on_{area}_{what}_timer_complete")

    async def _waiting(self, timer: Timer) -> tuple[Loaded, list[int]] | None:
        """The game of a turn timer and the seats of the timer still to act on that move."""
        assert timer.game_id is not None
        try:
            loaded = await self.core.load(timer.game_id)
        except (NotFound, PaddockError):
            return None
        presenter = self.core.presenter(loaded.record)
        if loaded.record.status != "running" or str(
            presenter.move_key(loaded.state)
        ) != timer.payload.get("key"):
            return None
        waiting = presenter.waiting_seats(loaded.state)
        # "seat": timers stored before simultaneous picks existed
        seats = timer.payload.get("seats") or [timer.payload.get("seat")]
        late = [s for s in seats if s in waiting and not self.core.robot_drives(loaded, s)]
        return (loaded, late) if late else None

    async def on_reminder(self, timer: Timer) -> None:
        try:
            await self._remind(timer)
        except NotPosted as exc:
            await self.recovery.not_shown(timer.game_id, exc)

    async def _remind(self, timer: Timer) -> None:
        found = await self._waiting(timer)
        if found is None:
            return
        loaded, seats = found
        users = [loaded.seats[s].user_id for s in seats]
        presenter = self.core.presenter(loaded.record)
        deadline = timestamp(timer.payload.get("deadline", timer.due_at))
        who = ", ".join(f"<@{u}>" for u in users if u is not None)
        text = (
            f"⏰ {who}, your move in {presenter.noun} #{loaded.id} "
            f"({presenter.title}): the robot drives for you {deadline}."
        )
        channel = await self.core.channel_of(loaded.record)
        await channel.send(text, allowed_mentions=mention_only(*users))
        for user_id in users:
            if user_id is not None and await self.core.store.dm_reminders(user_id):
                try:
                    user = self.core.bot.get_user(user_id) or await self.core.bot.fetch_user(
                        user_id
                    )
                    await user.send(f"{text}\n{channel.jump_url}", allowed_mentions=MENTION_NONE)
                except discord.HTTPException:
                    log.info("could not DM a reminder to %s", user_id)

    async def on_timeout(self, timer: Timer) -> None:
        try:
            await self._time_out(timer)
        except NotPosted as exc:  # stored, not shown: `/<game> status` or a restart shows it
            await self.recovery.not_shown(timer.game_id, exc)

    async def _time_out(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.core.lock(timer.game_id):
            found = await self._waiting(timer)
            if found is None:
                return
            loaded, seats = found
            presenter = self.core.presenter(loaded.record)
            key = presenter.move_key(loaded.state)
            events: list[Event] = []
            for seat in seats:  # the seat policy decides for each driver still to act
                driver = loaded.seats[seat]
                while (
                    not loaded.game.is_terminal(loaded.state)
                    and seat in presenter.waiting_seats(loaded.state)
                    and presenter.move_key(loaded.state) == key
                ):
                    action = loaded.game.robot_action(loaded.state, seat)
                    loaded, played = await self.moves.commit(
                        loaded, action, f"timeout:{driver.user_id}", by_robot=True
                    )
                    events += played.events
            names = ", ".join(shown(loaded.name(s)) for s in seats)
            note = f"⏱ {names} ran out of time: the robot decided for them."
            await self.moves.advance(loaded, events, key_before=key, notes=[note])

    async def on_idle(self, timer: Timer) -> None:
        try:
            await self._idle(timer)
        except NotPosted as exc:
            log.warning("game %s: %s", timer.game_id, exc.message)  # closed all the same

    async def _idle(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.core.lock(timer.game_id):
            record = await self.core.store.load_game(timer.game_id)
            presenter = self.core.presenter(record)
            idle = record.settings.get("idle_days", presenter.default_idle_days) * DAY
            if record.status == "lobby":
                await self._close_idle_lobby(record, idle)
                return
            if record.status != "running":
                return
            if record.last_human_at is not None:
                due = record.last_human_at + idle
                if due > self.core.clock() + 1:
                    # Someone acted since this timer was armed: wait from their action.
                    await self.core.bot.timers.create(timer.event, due, {}, record.id)
                    return
            await self.life.close(
                record,
                f"🏳 Nobody has acted in this {presenter.noun} for {idle // DAY:.0f} days: it is "
                "abandoned. No league points are recorded.",
            )

    async def _close_idle_lobby(self, record: GameRecord, idle: float) -> None:
        await self.life.close(
            record, f"🏳 This lobby was not started within {idle // DAY:.0f} days: it is closed."
        )
