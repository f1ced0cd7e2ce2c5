"""The clock of a turn: a reminder before the deadline, the seat policy deciding at it, and
an idle race (or a lobby nobody starts) closed after its days."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

import discord

from bot.availability import due_at_fire, turn_clock
from bot.components import shown
from bot.errors import NotPosted
from bot.limits import DAY
from bot.presenter import REMINDER_AT, Loaded, timestamp
from bot.table.core import MENTION_NONE, mention_only
from bot.table.moves import turn_timers
from rules.base import Event
from rules.errors import PaddockError
from store.errors import NotFound
from store.models import GameRecord, Timer, TimerSpec

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.life import Life
    from bot.table.moves import Moves
    from bot.table.recovery import Recovery

log = logging.getLogger("paddock.table")


def _seats(timer: Timer) -> list[int]:
    # "seat": timers stored before simultaneous picks existed
    return list(timer.payload.get("seats") or [timer.payload.get("seat")])


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
        seats = _seats(timer)
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
        # Those away or in their quiet hours now: named, not pinged, no DM.
        silent = (await self.core.drivers(loaded.record, users)).silent(self.core.clock())
        pinged = [u for u in users if u not in silent]
        channel = await self.core.channel_of(loaded.record)
        await channel.send(text, allowed_mentions=mention_only(*pinged))
        for user_id in pinged:
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
            seats, away = await self._still_due(loaded, timer, seats)
            if not seats:
                return
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
            notes = []
            for gone, why in ((False, "ran out of time"), (True, "is away")):
                names = ", ".join(shown(loaded.name(s)) for s in seats if (s in away) == gone)
                if names:
                    notes.append(f"⏱ {names} {why}: the robot decided for them.")
            await self.moves.advance(loaded, events, key_before=key, notes=notes)

    async def _still_due(
        self, loaded: Loaded, timer: Timer, seats: list[int]
    ) -> tuple[list[int], set[int]]:
        """The seats whose deadline has come (each driver's availability read now: one gone
        away or quiet since the timer was armed gets a timeout of their own, later), and those
        of them the robot decides for because they are away."""
        users = {s: loaded.seats[s].user_id for s in seats}
        drivers = await self.core.drivers(loaded.record, list(users.values()))
        now = self.core.clock()
        due: list[int] = []
        away: set[int] = set()
        later = False
        for seat in seats:
            avail = drivers.of(users[seat])
            at = due_at_fire(now, avail, drivers.policy)
            if at > now + 1:
                later = True
                await self.core.bot.timers.create(
                    timer.event,
                    at,
                    {**timer.payload, "seats": [seat], "deadline": at},
                    loaded.id,
                )
            else:
                due.append(seat)
                if timer.payload.get("away") or avail.away(now):
                    away.add(seat)
        if later:
            self.core.race(loaded.id).deadline_known = False  # read again from the timers
        return due, away

    async def rearm(self, user_id: int) -> int:
        """A driver's deadlines in their running games worked out again, after they changed
        their away period or quiet hours: each turn they are to act in gets a clock of its
        own from the time it had left (bot/availability.py: away under 'wait' starts it when
        they are back, under 'robot' makes it due now; quiet hours move it out of them). The
        other drivers' clocks stay as they were. Returns how many turns it changed."""
        now = self.core.clock()
        changed = 0
        for record in await self.core.store.running_games_of_user(user_id):
            presenter = self.core.presenters.get(record.kind)
            if presenter is None or not presenter.turn_timers:
                continue
            async with self.core.lock(record.id):
                specs = await self._rearmed(record, user_id, now)
                if specs is not None:
                    await self.core.store.replace_game_timers(record.id, specs)
                    self.core.armed(record.id, specs)
                    changed += 1
        if changed:
            self.core.bot.timers.poke()
        return changed

    async def _rearmed(
        self, record: GameRecord, user_id: int, now: float
    ) -> list[TimerSpec] | None:
        """The game's timers with `user_id`'s turn on a clock of its own (None: they are not
        to act, or their deadline has come already)."""
        area = self.core.presenter(record).area
        timeout, reminder = f"{area}_timeout", f"{area}_reminder"
        seat = next(
            (
                s.seat
                for s in await self.core.store.seats(record.id)
                if s.user_id == user_id and not s.driven_by_robot
            ),
            None,
        )
        timers = await self.core.store.timers(record.id)
        theirs = [t for t in timers if t.event == timeout and seat in _seats(t)]
        if seat is None or not theirs:
            return None
        left = theirs[0].payload.get("deadline", theirs[0].due_at) - now
        if left <= 0:
            return None
        drivers = await self.core.drivers(record, [user_id])
        clock = turn_clock(now, left, drivers.of(user_id), drivers.policy, share=REMINDER_AT)
        if not any(t.event == reminder and seat in _seats(t) for t in timers):
            clock = dataclasses.replace(clock, reminder=None)  # theirs was sent already
        specs = []
        for t in timers:
            payload = t.payload
            if t.event in (timeout, reminder) and seat in _seats(t):
                rest = [s for s in _seats(t) if s != seat]
                if not rest:
                    continue
                payload = {**payload, "seats": rest}
            specs.append(TimerSpec(event=t.event, due_at=t.due_at, payload=payload))
        return specs + turn_timers(area, [seat], theirs[0].payload.get("key"), clock)

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
