"""Acting: an action applied and stored (with the league result of a finish and the timers
the new state needs, in one transaction), then the robots, the autopilots and the forced
choices played until a person is to act, and the thread told (bot/table/publish.py)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from bot.availability import EVERYONE_AVAILABLE, Drivers, TurnClock, turn_clock
from bot.limits import DAY
from bot.presenter import REMINDER_AT, Frame, Loaded, Presenter
from rules.base import Action, Event, GameState
from store import play
from store.models import TimerSpec
from store.undo import standing

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.ending import Endings
    from bot.table.publish import Publisher


class Moves:
    def __init__(self, core: TableCore, publisher: Publisher, endings: Endings) -> None:
        self.core = core
        self.publisher = publisher
        self.endings = endings

    async def commit(
        self,
        loaded: Loaded,
        action: Action,
        actor: str,
        *,
        by_robot: bool = False,
        human: bool = False,
    ) -> tuple[Loaded, play.Played]:
        """Apply and persist one action; the league result of a finishing action and the
        timers the new state needs go in the same transaction."""
        presenter = self.core.presenter(loaded.record)
        state, events, pictured = presenter.apply(loaded.game, loaded.state, action)
        frames = [(label, at, upto, 0) for label, at, upto in pictured]
        return await self._persist(
            loaded, [(actor, action, by_robot)], state, events, frames, human=human
        )

    async def _persist(
        self,
        loaded: Loaded,
        steps: list[tuple[str, Action, bool]],
        state: GameState,
        events: list[Event],
        frames: list[Any],
        *,
        human: bool = False,
    ) -> tuple[Loaded, play.Played]:
        """Store actions applied to `loaded`'s state (one transaction, with the league
        result of a finish and the timers `state` needs); its pictures are kept for the next
        publish. `frames`: (label, state, events so far, index of the step that ended it) of
        the pictures on the way."""
        now = self.core.clock()
        ends = loaded.game.is_terminal(state)  # the finish arms its own timers
        drivers = EVERYONE_AVAILABLE if ends else await self.core.waiting_drivers(loaded, state)
        self.core.race(loaded.id).silent = drivers.silent(now)  # not pinged by the prompt
        played = await play.persist(
            self.core.store,
            loaded.record,
            loaded.game,
            steps,
            state,
            events,
            frames,
            seats=list(loaded.seats.values()),
            timers=lambda state: self.core.armed(
                loaded.id, self.timers_for(loaded, state, now, human=human, drivers=drivers)
            ),
            human_at=now if human else None,
            end_timers=await self.endings.end_timers(loaded.record) if ends else None,
        )
        record = loaded.record.model_copy(
            update={
                "seq": played.seq,
                "status": "finished" if played.finished else loaded.record.status,
                "results_recorded": loaded.record.results_recorded or played.results_recorded,
                "last_human_at": now if human else loaded.record.last_human_at,
            }
        )
        # Who acted in each activation: the seats of the actions since the previous frame
        # up to the one that ended it (frames: label, state, events so far, step index).
        race = self.core.race(loaded.id)
        acted, race.acted = race.acted, set()
        start = done = 0
        for label, at, upto, step in played.frames:
            acted |= {getattr(action, "seat", -1) for _, action, _ in steps[done : step + 1]}
            done = max(done, step + 1)
            frame = Frame(label, at, events[start:upto], acted)
            race.frames.append(frame)
            start, acted = upto, set()
        acted |= {getattr(action, "seat", -1) for _, action, _ in steps[done:]}
        race.acted = acted
        self.core.fault("after-commit", played.seq)
        self.core.bot.timers.poke()
        return Loaded(record, loaded.game, played.state, loaded.seats, feed=loaded.feed), played

    def timers_for(
        self,
        before: Loaded,
        state: GameState,
        now: float,
        *,
        human: bool = False,
        fresh: bool = False,
        drivers: Drivers = EVERYONE_AVAILABLE,
    ) -> list[TimerSpec] | None:
        """The game's timers after this state: None keeps them (a sub-step of the same move
        keeps its clock), else the idle timer and, for a person to act, reminder and timeout.
        `fresh`: a new clock even within a move (the start, a driver back from autopilot).
        `drivers`: the availability of those to act (`TableCore.waiting_drivers`)."""
        presenter = self.core.presenters[before.record.kind]
        key = presenter.move_key(state)
        if not fresh and key == presenter.move_key(before.state):
            return None
        settings = before.record.settings
        last = now if human else (before.record.last_human_at or now)
        idle_days = settings.get("idle_days", presenter.default_idle_days)
        timers = [TimerSpec(event=f"{presenter.area}_idle", due_at=last + idle_days * DAY)]
        timers += presenter.race_timers(state, now)
        seats = [s for s in presenter.waiting_seats(state) if not self.core.robot_drives(before, s)]
        if presenter.turn_timers and seats:
            limit = settings.get("turn_seconds", DAY)
            # Each driver's clock (bot/availability.py: away, quiet hours); seats whose
            # clocks agree share a reminder and a timeout.
            clocks: dict[TurnClock, list[int]] = {}
            for seat in seats:
                avail = drivers.of(before.seats[seat].user_id)
                clock = turn_clock(now, limit, avail, drivers.policy, share=REMINDER_AT)
                clocks.setdefault(clock, []).append(seat)
            for clock, group in clocks.items():
                timers += turn_timers(presenter.area, group, key, clock)
        return timers

    async def advance(
        self,
        loaded: Loaded,
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
    ) -> Loaded:
        """After an action (under the game's lock): robots and autopilot seats play until a
        person is to act, then the thread gets what changed. Their moves are stored as one
        chain in one transaction: a click followed by robots' moves costs two commits."""
        presenter = self.core.presenter(loaded.record)
        events = list(events)
        posted = False
        pending = self.core.race(loaded.id).frames
        pictures = any(presenter.frame_shown(loaded, f) for f in pending)
        if pictures and self._plays_next(loaded) is not None:
            # The activations this action ended are shown before the robots think on.
            head = [*loaded.feed.take_steps(), *(notes or [])]
            if start:
                head = [*presenter.start_lines(loaded), *head]
            events, _ = await self.publisher.post_frames(loaded, events, head)
            posted, start, notes = True, False, None
        # This action's events no picture showed yet: the first activation the chain ends
        # shows them, in order (its lines open that message), not after the pictures.
        covered = {id(e) for frame in self.core.race(loaded.id).frames for e in frame.events}
        lead = [e for e in events if id(e) not in covered]
        steps: list[tuple[str, Action, bool]] = []
        chain: list[Event] = []
        frames: list[Any] = []
        state = loaded.state

        def play_chain() -> GameState:
            """The robots' moves, pure rules work: in a thread, so that a long chain (an
            RF90 game turn of robots) does not hold up other races' answers."""
            state = loaded.state
            while plays := self._plays_next(
                Loaded(loaded.record, loaded.game, state, loaded.seats)
            ):
                seat, forced = plays
                if forced is not None:  # nothing to decide: no need to wait days for a click
                    actor, action, by_robot = "forced", forced, False
                else:
                    driver = loaded.seats.get(seat)
                    autopilot = driver is not None and driver.autopilot
                    actor = f"autopilot:{driver.user_id}" if autopilot and driver else "robot"
                    action, by_robot = loaded.game.robot_action(state, seat), True
                state, new, pictured = presenter.apply(loaded.game, state, action)
                at_chain = len(lead) + len(chain)
                frames.extend(
                    (label, at, at_chain + upto, len(steps)) for label, at, upto in pictured
                )
                chain.extend(new)
                steps.append((actor, action, by_robot))
            return state

        if self._plays_next(loaded) is not None:
            state = await asyncio.to_thread(play_chain)
        if steps:
            loaded, _ = await self._persist(loaded, steps, state, lead + chain, frames)
            events += chain
        await self.publisher.publish(
            loaded, events, key_before=key_before, start=start, notes=notes, posted=posted
        )
        return loaded

    def _plays_next(self, loaded: Loaded) -> tuple[int, Action | None] | None:
        """The seat the table plays by itself next: a robot's or an autopilot's (no action:
        its policy decides), or one with a single forced action; None when a person is to
        act or the game is over."""
        if loaded.game.is_terminal(loaded.state) or loaded.record.status != "running":
            return None
        waiting = self.core.presenter(loaded.record).waiting_seats(loaded.state)
        robots = [s for s in waiting if self.core.robot_drives(loaded, s)]
        return (robots[0], None) if robots else self.forced(loaded, waiting)

    def forced(self, loaded: Loaded, waiting: list[int]) -> tuple[int, Action] | None:
        return forced(self.core.presenter(loaded.record), loaded, waiting)

    async def recovered_events(self, loaded: Loaded) -> list[Event]:
        """The events of the actions that never reached the thread, by replaying the log;
        their pictures (frames) are due at the next publish, as if just played."""
        done = loaded.record.published_seq or 0
        presenter, game, record = self.core.presenter(loaded.record), loaded.game, loaded.record
        actions = await self.core.store.actions(loaded.id)

        def replay() -> tuple[list[Event], list[Frame]]:
            state = game.new_game(record.seed, record.config)
            events: list[Event] = []
            frames: list[Frame] = []
            start, acted = 0, set()
            for logged in standing(actions):  # (a take-back's notice is its own to tell)
                action = game.parse_action(logged.action_json)
                if logged.seq <= done:
                    state, _ = game.apply(state, action)
                    continue
                before = len(events)
                state, new, pictured = presenter.apply(game, state, action)
                events += new
                acted.add(getattr(action, "seat", -1))
                for label, at, upto in pictured:
                    frames.append(Frame(label, at, events[start : before + upto], acted))
                    start, acted = before + upto, set()
            return events, frames

        events, frames = await asyncio.to_thread(replay)
        if frames:
            race = self.core.race(loaded.id)
            race.frames = frames + race.frames
        return events


def turn_timers(area: str, seats: list[int], key: Any, clock: TurnClock) -> list[TimerSpec]:
    """A turn's reminder (if it has one) and timeout for `seats`, by `clock`. The payload
    names the seats, the move they are for (`key`) and the deadline; `away`: the robot
    decides for them because they are away."""
    payload: dict[str, Any] = {"seats": seats, "key": str(key), "deadline": clock.deadline}
    if clock.away:
        payload["away"] = True
    timers = [TimerSpec(event=f"{area}_timeout", due_at=clock.deadline, payload=payload)]
    if clock.reminder is not None:
        timers.insert(
            0, TimerSpec(event=f"{area}_reminder", due_at=clock.reminder, payload=payload)
        )
    return timers


def forced(
    presenter: Presenter[Any], loaded: Loaded[Any], waiting: list[int]
) -> tuple[int, Action] | None:
    """A waiting seat whose only legal action is forced, for games that play those (then
    nobody is pinged and no prompt is posted)."""
    if not presenter.plays_forced(loaded.state):
        return None
    for seat in waiting:
        options = loaded.options(seat)
        if len(options) == 1:
            return seat, options[0]
    return None
