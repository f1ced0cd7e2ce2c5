"""The table layer: what every game shares in Discord, written once.

boardgame.io's split: the framework owns the lobby, seats, the per-game lock, load -> act ->
persist (the league result and the next timers in the same transaction as the action),
robots and autopilot, publishing (images drawn off the event loop; one board per completed
move, sub-steps edit the prompt, a superseded prompt loses its buttons), the finish, the life
cycle (cancel, abandon, replace, autopilot, idle races) and recovery at start-up. A game
brings a `Presenter` (bot/presenter.py) and a short cog of commands.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.components import INVALID_BUTTON, shown, view_of
from bot.errors import SAY_FAILURE, NotPosted
from bot.feed import MESSAGE_LIMIT, Feed, split
from bot.feed import clip as _clip
from bot.memory import TRIMMER
from bot.pages import MESSAGE, numbered_page_of, page_view, pages
from bot.posting import PostChannel, defer, not_posted, think
from bot.presenter import REMINDER_AT, Frame, Image, Loaded, Presenter
from bot.table_life import ARCHIVE, MENTION_NONE, REPOST, LifeCycle, mention_only
from bot.threads import image_pool
from rules.base import Action, Event, GameState, get_game
from rules.championship import places_among_members
from rules.errors import NotYourTurn, PaddockError
from store import play
from store.errors import NotFound
from store.models import GameRecord, TimerSpec

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.table")

MAX_ID = 2**63 - 1  # SQLite's INTEGER; a larger id in a button is forged
LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "robot-add", "robot-remove", "colour")


class InvalidButton(PaddockError):
    """A forged or stale button: another server's or channel's game, or one that is gone."""

    def __init__(self) -> None:
        super().__init__(INVALID_BUTTON)


async def draw(images: list[Image]) -> list[discord.File]:
    """Render the images in the image threads (bot/threads.py): a board takes ~20 ms the
    event loop needs, and Pillow lets go of the GIL while it encodes, so two cores draw two
    at once."""

    def one(image: Image) -> discord.File:
        drawn = discord.File(io.BytesIO(image.draw()), filename=image.filename)
        TRIMMER.now_and_then()  # the memory a busy bot freed goes back (bot/memory.py)
        return drawn

    loop = asyncio.get_running_loop()
    return list(
        await asyncio.gather(*(loop.run_in_executor(image_pool(), one, im) for im in images))
    )


class Table(LifeCycle):
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        self.presenters: dict[str, Presenter] = {}  # by rules kind
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._recovered = False
        self._deadlines: dict[int, float | None] = {}  # game id -> its turn timeout
        self._frames: dict[int, list[Frame]] = {}  # pictures due at the next publish
        self._acted: dict[int, set[int]] = {}  # seats that acted in the activation under way
        self._shown: dict[int, GameState] = {}  # the state of each race's last board
        self.fault: Callable[[str, int], None] = lambda point, seq: None  # tests stop the bot here
        bot.add_listener(self.on_thread_gone, "on_raw_thread_delete")  # a race goes on elsewhere
        bot.add_listener(self.on_repost, f"on_{REPOST}_timer_complete")  # after a failed post
        bot.add_listener(self.on_archive, f"on_{ARCHIVE}_timer_complete")  # a race over

    @property
    def store(self):  # noqa: ANN201 - the bot's store
        return self.bot.store

    def register(self, presenter: Presenter) -> None:
        self.presenters[presenter.kind] = presenter
        self.bot.component_routes[presenter.area] = self._router(presenter)
        for what, handler in (
            ("reminder", self.on_reminder),
            ("timeout", self.on_timeout),
            ("idle", self.on_idle),
        ):
            self.bot.add_listener(handler, f"on_{presenter.area}_{what}_timer_complete")

    def lock(self, game_id: int) -> asyncio.Lock:
        return self._locks[game_id]

    def presenter(self, record: GameRecord) -> Presenter:
        return self.presenters[record.kind]

    # Loading and checking --------------------------------------------------------------

    async def load(self, game_id: int) -> Loaded:
        """The game row (with its snapshot) and its seats: one read each."""
        record = await self.store.load_game(game_id)
        seats = {s.seat: s for s in await self.store.seats(game_id)}
        game = get_game(record.kind)
        if record.state_json is None:
            raise PaddockError(f"This {self.presenter(record).noun} has not started yet.")
        state = game.load_state(record.state_json)
        return Loaded(record, game, state, seats, feed=Feed.model_validate(record.feed))

    @staticmethod
    def check_where(interaction: discord.Interaction, record: GameRecord, kind: str) -> None:
        """A button acts only on a game of its own kind, server and channel or thread."""
        if (
            record.kind != kind
            or record.guild_id != interaction.guild_id
            or interaction.channel_id not in (record.thread_id, record.channel_id)
        ):
            raise InvalidButton()

    async def record_for_button(
        self, interaction: discord.Interaction, presenter: Presenter, game_id: int
    ) -> GameRecord:
        if not 0 < game_id <= MAX_ID:
            raise InvalidButton()
        try:
            record = await self.store.load_game(game_id)
        except NotFound:
            raise InvalidButton() from None
        self.check_where(interaction, record, presenter.kind)
        return record

    async def may_manage(self, interaction: discord.Interaction, record: GameRecord) -> bool:
        """The host, or a league admin (Manage Server or the server's admin role)."""
        user = interaction.user
        if user.id == record.settings.get("host"):
            return True
        if not isinstance(user, discord.Member):
            return False
        if user.guild_permissions.manage_guild:
            return True
        role_id = await self.store.admin_role(user.guild.id)
        return role_id is not None and any(r.id == role_id for r in user.roles)

    async def require_manager(
        self, interaction: discord.Interaction, record: GameRecord, what: str
    ) -> None:
        if not await self.may_manage(interaction, record):
            host = record.settings.get("host")
            raise PaddockError(f"Only the host (<@{host}>) or a league admin can {what}.")

    def acting_seat(self, loaded: Loaded, user_id: int) -> int:
        """The seat this user may act for now, or a refusal that says who is to act."""
        presenter = self.presenter(loaded.record)
        if loaded.record.status != "running":
            raise PaddockError(f"This {presenter.noun} is over.")
        waiting = presenter.waiting_seats(loaded.state)
        if not waiting:
            raise PaddockError(f"This {presenter.noun} is over.")
        mine = loaded.human_seat(user_id)
        if mine is None or mine.seat not in waiting:
            names = ", ".join(shown(loaded.name(s)) for s in waiting)
            raise NotYourTurn(
                f"It's not your turn: {names} {'is' if len(waiting) == 1 else 'are'} to act."
            )
        return mine.seat

    @staticmethod
    def robot_drives(loaded: Loaded, seat: int) -> bool:
        """A robot plays this seat: a robot car, a driver replaced or on autopilot, or a
        seat the table does not know (the engine's own robots)."""
        driver = loaded.seats.get(seat)
        return driver is None or driver.driven_by_robot

    async def game_here(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        *,
        running: bool = True,
        ended: bool = False,
    ) -> GameRecord:
        """The game of this thread (or the newest of this channel, for games played in
        one). A game that is over is refused with how it ended and what still works,
        unless `ended` (a command that shows it: its log, its replay) and it was played."""
        where = {"thread_id" if presenter.in_thread else "channel_id": interaction.channel_id}
        record = await self.store.latest_game(presenter.kind, **where)
        place = "thread" if presenter.in_thread else "channel"
        if record is None:
            raise PaddockError(f"There is no {presenter.title} {presenter.noun} in this {place}.")
        if record.status not in ("lobby", "running"):
            if not ended or record.state_json is None:
                raise PaddockError(self.over_text(record))
            return record
        if running and record.status != "running":
            raise PaddockError(f"This {presenter.noun} has not started yet.")
        return record

    # Buttons ---------------------------------------------------------------------------

    def _router(
        self, presenter: Presenter
    ) -> Callable[[discord.Interaction, int, str, str | None], Awaitable[None]]:
        async def route(
            interaction: discord.Interaction, game_id: int, action: str, arg: str | None
        ) -> None:
            # A move, a lobby's button and a confirmed abandon are answered first: the click
            # waits neither for the database nor for the race's lock (held while the previous
            # move is shown), so a burst costs time in what follows, never a click Discord
            # gives up on; refusals follow as private lines, the lobby or the question is
            # edited through the answer.
            answered = None
            first = presenter.answered_first(action)  # a game's own button (Pit Formula's)
            if action == "act" or action in LOBBY_ACTIONS or action == "abandon":
                answered = await defer(interaction)
                if action == "start":  # a start failing after this answer is said in public
                    interaction.extras[SAY_FAILURE] = True
            elif first == "private":
                answered = await think(interaction, ephemeral=True)
            elif first == "update":
                answered = await defer(interaction)
            record = await self.record_for_button(interaction, presenter, game_id)
            if action in LOBBY_ACTIONS:
                await self.lobby_button(interaction, presenter, record.id, action, arg)
            elif action == "act" and arg:
                await self.act_button(interaction, presenter, record.id, arg, answered=answered)
            elif action == "abandon":
                await self.abandon(interaction, record, confirmed=True)
            elif action == "page":
                await self.log_button(interaction, record, arg)
            elif not await presenter.on_button(self, interaction, record.id, action, arg or ""):
                raise InvalidButton()

        return route

    async def act_button(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        arg: str,
        *,
        answered: bool | None = None,
    ) -> None:
        """`act:<token>.<index>`: the index-th legal action offered when the presenter's
        act token (by default the sequence number) was `token`."""
        token, _, index_text = arg.partition(".")
        if not (token.isalnum() and index_text.isdigit()):
            raise InvalidButton()
        await self.act_index(
            interaction, presenter, game_id, token, int(index_text), answered=answered
        )

    async def act_index(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        token: str,
        index: int,
        *,
        done: str = "Played.",
        answered: bool | None = None,
    ) -> None:
        """The index-th of the user's legal actions, if the act token still holds; an
        ephemeral message it came from (a hand, a cockpit) is answered with `done`.
        `answered`: the click was deferred already (False: too late for Discord); None:
        it is deferred now, before the race's lock, so a refusal comes as a followup."""
        if answered is None:
            answered = await defer(interaction)
        async with self.lock(game_id):
            loaded = await self.load(game_id)
            seat = self.acting_seat(loaded, interaction.user.id)
            if token != presenter.act_token(loaded, seat):
                raise PaddockError(
                    "That choice is out of date: the race has moved on. Use the newest message."
                )
            options = loaded.game.legal_actions(loaded.state, seat)
            if not 0 <= index < len(options):
                raise PaddockError("That choice is no longer offered. Use the newest message.")
            # A click Discord no longer took (answered late) still plays: the thread shows it.
            key_before = presenter.move_key(loaded.state)
            # A StaleState (another process acted first) reaches the user as its message.
            loaded, played = await self.commit(
                loaded, options[index], actor=str(interaction.user.id), human=True
            )
            message = interaction.message
            if answered and message is not None and message.flags.ephemeral:
                # Sent while the robots play on and the activation's pictures are drawn:
                # the thread's pictures do not wait for this answer's round trip.
                said = asyncio.ensure_future(
                    interaction.edit_original_response(content=done, view=None, attachments=[])
                )
                try:
                    await self.advance(loaded, played.events, key_before=key_before)
                except BaseException:
                    # the race's error is the one to report; this answer's fate is moot
                    said.add_done_callback(lambda task: task.cancelled() or task.exception())
                    raise
                await said
            else:
                await self.advance(loaded, played.events, key_before=key_before)

    # Acting ----------------------------------------------------------------------------

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
        presenter = self.presenter(loaded.record)
        state, events, shown = presenter.apply(loaded.game, loaded.state, action)
        frames = [(label, at, upto, 0) for label, at, upto in shown]
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
        now = self.bot.timers.clock()
        ends = loaded.game.is_terminal(state)  # the finish arms its own timers
        played = await play.persist(
            self.store,
            loaded.record,
            loaded.game,
            steps,
            state,
            events,
            frames,
            seats=list(loaded.seats.values()),
            timers=lambda state: self.armed(
                loaded.id, self.timers_for(loaded, state, now, human=human)
            ),
            human_at=now if human else None,
            end_timers=await self.end_timers(loaded.record) if ends else None,
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
        acted = self._acted.pop(loaded.id, set())
        start = done = 0
        for label, at, upto, step in played.frames:
            acted |= {getattr(action, "seat", -1) for _, action, _ in steps[done : step + 1]}
            done = max(done, step + 1)
            frame = Frame(label, at, events[start:upto], acted)
            self._frames.setdefault(loaded.id, []).append(frame)
            start, acted = upto, set()
        acted |= {getattr(action, "seat", -1) for _, action, _ in steps[done:]}
        if acted:
            self._acted[loaded.id] = acted
        self.fault("after-commit", played.seq)
        self.bot.timers.poke()
        return Loaded(record, loaded.game, played.state, loaded.seats, feed=loaded.feed), played

    def timers_for(
        self,
        before: Loaded,
        state: GameState,
        now: float,
        *,
        human: bool = False,
        fresh: bool = False,
    ) -> list[TimerSpec] | None:
        """The game's timers after this state: None keeps them (a sub-step of the same move
        keeps its clock), else the idle timer and, for a person to act, reminder and timeout.
        `fresh`: a new clock even within a move (the start, a driver back from autopilot)."""
        presenter = self.presenters[before.record.kind]
        key = presenter.move_key(state)
        if not fresh and key == presenter.move_key(before.state):
            return None
        settings = before.record.settings
        last = now if human else (before.record.last_human_at or now)
        idle_days = settings.get("idle_days", presenter.default_idle_days)
        timers = [TimerSpec(event=f"{presenter.area}_idle", due_at=last + idle_days * 86400)]
        timers += presenter.race_timers(state, now)
        seats = [s for s in presenter.waiting_seats(state) if not self.robot_drives(before, s)]
        if presenter.turn_timers and seats:
            limit = settings.get("turn_seconds", 86400)
            payload = {"seats": seats, "key": str(key), "deadline": now + limit}
            timers.append(
                TimerSpec(
                    event=f"{presenter.area}_reminder",
                    due_at=now + limit * REMINDER_AT,
                    payload=payload,
                )
            )
            timers.append(
                TimerSpec(event=f"{presenter.area}_timeout", due_at=now + limit, payload=payload)
            )
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
        presenter = self.presenter(loaded.record)
        events = list(events)
        posted = False
        pending = self._frames.get(loaded.id, [])
        shown = any(presenter.frame_shown(loaded, f) for f in pending)
        if shown and self._plays_next(loaded) is not None:
            # The activations this action ended are shown before the robots think on.
            head = [*loaded.feed.take_steps(), *(notes or [])]
            if start:
                head = [*presenter.start_lines(loaded), *head]
            events, _ = await self.post_frames(loaded, events, head)
            posted, start, notes = True, False, None
        # This action's events no picture showed yet: the first activation the chain ends
        # shows them, in order (its lines open that message), not after the pictures.
        covered = {id(e) for frame in self._frames.get(loaded.id, []) for e in frame.events}
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
        await self.publish(
            loaded, events, key_before=key_before, start=start, notes=notes, posted=posted
        )
        return loaded

    def _plays_next(self, loaded: Loaded) -> tuple[int, Action | None] | None:
        """The seat the table plays by itself next: a robot's or an autopilot's (no action:
        its policy decides), or one with a single forced action; None when a person is to
        act or the game is over."""
        if loaded.game.is_terminal(loaded.state) or loaded.record.status != "running":
            return None
        waiting = self.presenter(loaded.record).waiting_seats(loaded.state)
        robots = [s for s in waiting if self.robot_drives(loaded, s)]
        return (robots[0], None) if robots else self.forced(loaded, waiting)

    def forced(self, loaded: Loaded, waiting: list[int]) -> tuple[int, Action] | None:
        """A waiting seat whose only legal action is forced, for games that play those."""
        if not self.presenter(loaded.record).plays_forced(loaded.state):
            return None
        for seat in waiting:
            options = loaded.game.legal_actions(loaded.state, seat)
            if len(options) == 1:
                return seat, options[0]
        return None

    async def recovered_events(self, loaded: Loaded) -> list[Event]:
        """The events of the actions that never reached the thread, by replaying the log;
        their pictures (frames) are due at the next publish, as if just played."""
        done = loaded.record.published_seq or 0
        presenter, game, record = self.presenter(loaded.record), loaded.game, loaded.record
        actions = await self.store.actions(loaded.id)

        def replay() -> tuple[list[Event], list[Frame]]:
            state = game.new_game(record.seed, record.config)
            events: list[Event] = []
            frames: list[Frame] = []
            start, acted = 0, set()
            for logged in actions:
                action = game.parse_action(logged.action_json)
                if logged.seq <= done:
                    state, _ = game.apply(state, action)
                    continue
                before = len(events)
                state, new, shown = presenter.apply(game, state, action)
                events += new
                acted.add(getattr(action, "seat", -1))
                for label, at, upto in shown:
                    frames.append(Frame(label, at, events[start : before + upto], acted))
                    start, acted = before + upto, set()
            return events, frames

        events, frames = await asyncio.to_thread(replay)
        if frames:
            self._frames[loaded.id] = frames + self._frames.get(loaded.id, [])
        return events

    async def history(self, loaded: Loaded) -> list[tuple[int, str, list[Event]]]:
        """(seq, actor, events) of every action, by replaying the log from the seed (in a
        worker thread: a long race's log takes the event loop too long)."""
        game, record = loaded.game, loaded.record
        actions = await self.store.actions(loaded.id)

        def replay() -> list[tuple[int, str, list[Event]]]:
            state = game.new_game(record.seed, record.config)
            out = []
            for done in actions:
                state, new = game.apply(state, game.parse_action(done.action_json))
                out.append((done.seq, done.actor, new))
            return out

        return await asyncio.to_thread(replay)

    async def log_page(
        self, loaded: Loaded, count: int, upto: int, page: int | None = None
    ) -> tuple[str, discord.ui.View | None]:
        """The `count` actions up to `upto` in words: who acted, and what happened (the
        lines the thread was shown, so nothing private), cut into pages within a message;
        page `page` (None: the last, the newest actions) and its ◀ / ▶, which name the
        actions asked for: a page shows the same ones after the race has moved on."""
        names = {str(s.user_id): s.name for s in loaded.seats.values() if s.user_id}

        def who(actor: str) -> str:
            kind, _, user = actor.partition(":")
            if actor in names:
                return names[actor]
            if kind in ("timeout", "autopilot") and user in names:
                return f"{names[user]} ({'timed out' if kind == 'timeout' else kind})"
            return {"robot": "robot", "forced": "forced", "bot": "the bot"}.get(kind, kind)

        lines = []
        for seq, actor, events in await self.history(loaded):
            if upto - count < seq <= upto:
                said = "; ".join(shown(e.text) for e in events if e.text) or "(no public effect)"
                lines.append(f"`{seq}` {shown(who(actor))}: {said}")
        lines = lines or ["Nothing has been played yet."]
        if upto == loaded.record.seq:  # a log that reaches the end tells how it ended
            lines += self.end_lines(loaded)
        cut = pages(lines, MESSAGE)
        page = len(cut) - 1 if page is None else min(page, len(cut) - 1)
        area = self.presenter(loaded.record).area
        return cut[page], page_view(area, loaded.id, f"log-{upto}-{count}", page, len(cut))

    async def log_button(
        self, interaction: discord.Interaction, record: GameRecord, arg: str | None
    ) -> None:
        """◀ / ▶ of a log: the page it names, on the private answer it sits on (only
        there: the log's asker's own message)."""
        found = numbered_page_of(arg, "log", 2)
        message = interaction.message
        if found is None or message is None or not message.flags.ephemeral:
            raise InvalidButton()
        (upto, count), page = found
        if not (1 <= count <= 50 and 0 <= upto <= record.seq):
            raise InvalidButton()
        text, view = await self.log_page(await self.load(record.id), count, upto, page)
        await interaction.response.edit_message(
            content=text, view=view, allowed_mentions=MENTION_NONE
        )

    def end_lines(self, loaded: Loaded) -> list[str]:
        """How a game that is over ended, after its last action (none while it is on)."""
        record, noun = loaded.record, self.presenter(loaded.record).noun
        if record.status in ("lobby", "running"):
            return []
        if self.ending(record) == "abandoned":
            return [f"🏳 **This {noun} is over**: it was abandoned here."]
        order = ", ".join(
            f"{p.place}. {shown(loaded.name(p.seat))}"
            + ("" if p.status in ("running", "finished") else f" ({p.status})")
            for p in loaded.game.classification(loaded.state)
        )
        return [f"🏁 **This {noun} is over**: it has finished. Final order: {order}."]

    # Publishing ------------------------------------------------------------------------

    async def channel_of(self, record: GameRecord) -> Any:
        """The game's thread (or channel) as a `PostChannel`: its posts get through archived
        threads and missing Attach Files, and fail as one-line `NotPosted` (bot/posting.py).
        A thread or channel deleted: `NotPosted` whose `gone` is true."""
        channel_id = record.where_id
        assert channel_id is not None
        command = f"/{self.presenter(record).area} status"
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except (discord.NotFound, discord.Forbidden) as exc:
                place = "thread" if record.thread_id else "channel"
                raise not_posted(exc, None, command, place=place) from exc
        return PostChannel(channel, status_command=command)

    async def deadline(self, loaded: Loaded) -> float | None:
        """When the seat to act runs out of time (kept from the timers this process wrote;
        read from the database after a restart)."""
        if loaded.id not in self._deadlines:
            area = self.presenter(loaded.record).area
            timers = await self.store.timers(loaded.id)
            due = [t.due_at for t in timers if t.event == f"{area}_timeout"]
            self._deadlines[loaded.id] = due[0] if due else None
        return self._deadlines[loaded.id]

    def armed(self, game_id: int, timers: list[TimerSpec] | None) -> list[TimerSpec] | None:
        """Note the deadline among timers about to be stored (None: the old ones stay)."""
        if timers is not None:
            due = [t.due_at for t in timers if t.event.endswith("_timeout")]
            self._deadlines[game_id] = due[0] if due else None
        return timers

    def forget(self, game_id: int) -> None:
        """A game is over: what this process kept in memory for it goes (memory stays flat
        with the number of finished games)."""
        for kept in (
            self._deadlines,
            self._frames,
            self._acted,
            self._shown,
        ):
            kept.pop(game_id, None)

    def _seen(self, loaded: Loaded) -> Loaded:
        """`loaded` knowing what the thread's last board showed (a board draws each car's
        move since then; not known after a restart)."""
        return dataclasses.replace(loaded, shown=self._shown.get(loaded.id))

    async def send_lines(
        self, channel: Any, lines: list[str], fallback: str, **kwargs: Any
    ) -> discord.Message:
        """`lines` in as many messages as they take (none is cut by Discord's 2,000
        characters), the last with `kwargs` (files, a view); `fallback` when there are none."""
        runs = split(lines) or [[fallback]]
        for run in runs[:-1]:
            await channel.send(_clip("\n".join(run)), allowed_mentions=MENTION_NONE)
        return await channel.send(_clip("\n".join(runs[-1])), **kwargs)

    async def post_frames(
        self,
        loaded: Loaded,
        events: list[Event],
        head: list[str],
        *,
        frames: list[Frame] | None = None,
        posted: bool = False,
    ) -> tuple[list[Event], list[str]]:
        """One message per frame (an RF90 section activation), its lines and pictures, the
        old prompt stripped first (unless `posted` frames did); `head` opens the first.
        Without `frames`, the pending ones, and the thread counts as up to date with them.
        Returns the events no message told and `head` if no frame was shown. The next
        frame is drawn while one is sent."""
        presenter = self.presenter(loaded.record)
        record = loaded.record
        pending = frames is None
        frames = self._frames.pop(record.id, []) if frames is None else frames
        # Frames the race's settings skip lend their lines to the next one shown; those of
        # skipped frames at the end stay with the events the caller tells in words. Each
        # message shown names its frame, whatever an earlier message said (its caption).
        shown_frames: list[tuple[Frame, list[str]]] = []
        carried: list[str] = []
        for frame in frames:
            own = presenter.event_lines(frame.events)
            if presenter.frame_shown(loaded, frame):
                shown_frames.append((frame, [*carried, *presenter.frame_caption(frame), *own]))
                carried = []
            else:
                carried += own
        told = frames[: frames.index(shown_frames[-1][0]) + 1] if shown_frames else []
        ahead = None
        if shown_frames:  # drawn while the old prompt is stripped
            ahead = asyncio.ensure_future(draw(presenter.frame_images(loaded, shown_frames[0][0])))
        try:
            channel = await self.channel_of(record)
            if not posted:
                await self.strip_prompt(channel, record.prompt_message_id, loaded.feed)
            for index, (_, lines) in enumerate(shown_frames):
                assert ahead is not None
                files = await ahead
                if index + 1 < len(shown_frames):  # drawn while this one is sent
                    following = presenter.frame_images(loaded, shown_frames[index + 1][0])
                    ahead = asyncio.ensure_future(draw(following))
                chunk = [*head, *lines]
                head = []
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel, chunk, summary, files=files, allowed_mentions=MENTION_NONE
                )
        finally:
            if ahead is not None:
                ahead.cancel()  # a send that failed leaves no drawing behind
        if pending:  # a restart from here must not post these again
            feed = loaded.feed.model_dump()
            await self.store.update_game(record.id, published_seq=record.seq, feed=feed)
        shown = {id(e) for frame in told for e in frame.events}
        return [e for e in events if id(e) not in shown], head

    async def strip_prompt(
        self, channel: Any, message_id: int | None, feed: Feed | None = None
    ) -> None:
        """A superseded prompt loses its buttons (it may have been deleted: no matter), and
        with its `feed`, the move's steps it showed (the move's message tells them): it
        keeps the lines it opened with."""
        if message_id is None:
            return
        content = {"content": feed.base} if feed is not None and feed.base is not None else {}
        if feed is not None:
            feed.base, feed.opening = None, []
        try:
            await channel.get_partial_message(message_id).edit(view=None, **content)
        except (discord.HTTPException, NotPosted) as exc:  # its buttons answer "out of date"
            log.info("could not strip the old prompt %s: %s", message_id, exc)

    async def publish(
        self,
        loaded: Loaded,
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
        posted: bool = False,
    ) -> None:
        """Tell the thread what `events` did and ask the seats to act: a step of the move
        under way edits its prompt, a move completed gets its board (or pictures) and a new
        prompt. `key_before`: the move key before the action (None: a new prompt all the
        same, e.g. `/<game> status`). `posted`: pictures of this move's activations were
        already posted (advance), so this is no sub-step and the old prompt is stripped."""
        presenter = self.presenter(loaded.record)
        record, state, feed = loaded.record, loaded.state, loaded.feed
        channel = await self.channel_of(record)
        frames = self._frames.pop(record.id, [])
        pictured = bool(frames) or posted
        terminal = loaded.game.is_terminal(state)
        key = presenter.move_key(state)
        # The feed's steps are of the move under way (or of a game older than the feed).
        ongoing = not terminal and feed.key in (None, Feed.key_of(key))
        # A simultaneous pick still under way: what its picks did waits for the last one.
        held = ongoing and not frames and presenter.holds_lines(state)
        said = [*(notes or [])]
        if start:
            said = [*presenter.start_lines(loaded), *said]
        sub_step = (
            key_before is not None
            and key == key_before
            and ongoing
            and record.prompt_message_id is not None
            and not pictured
        )
        head = said if sub_step or held else [*feed.take_steps(), *said]
        if frames:
            events, head = await self.post_frames(
                loaded, events, head, frames=frames, posted=posted
            )
        told = presenter.event_lines(events)
        if held:
            feed.add_steps(key, told)
            told = []
        lines = [*head, *told]
        if terminal:
            if not pictured:
                await self.strip_prompt(channel, record.prompt_message_id, feed)
                boards = _images(presenter.board(self._seen(loaded), None))
                files = await draw(boards)
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel, lines, summary, files=files, allowed_mentions=MENTION_NONE
                )
            elif lines:  # the last frame showed the finish; what followed it, in words
                await self.send_lines(channel, lines, "", allowed_mentions=MENTION_NONE)
            self.forget(record.id)
            await self.post_finish(loaded, channel)
            await self.store.update_game(
                record.id, published_seq=record.seq, prompt_message_id=None, feed={}
            )
            return
        prompt = presenter.prompt(
            loaded, presenter.waiting_seats(state), await self.deadline(loaded)
        )
        if sub_step:
            # A step of the same move: the prompt is edited, no new board.
            assert record.prompt_message_id is not None  # a sub-step edits the prompt there is
            if held:
                feed.opening += lines  # said in public, not a pick (none so far)
            else:
                feed.add_steps(key, lines)
            steps = [] if held else feed.steps
            text = "\n".join([*feed.opening, *steps, prompt.content])
            if len(text) <= MESSAGE_LIMIT:  # else a new message below tells the steps
                try:
                    await channel.get_partial_message(record.prompt_message_id).edit(
                        content=text,
                        view=view_of(*prompt.items[:25]),
                        attachments=await draw(prompt.images),
                        allowed_mentions=MENTION_NONE,
                    )
                except discord.NotFound:
                    log.info("prompt of game %s was deleted; posting a new one", record.id)
                else:
                    feed.base = "\n".join([*feed.opening, prompt.content])
                    await self.store.update_game(
                        record.id, published_seq=record.seq, feed=feed.model_dump()
                    )
                    return
            lines = [] if held else feed.take_steps()
        if not pictured:  # stripped before the frames
            await self.strip_prompt(channel, record.prompt_message_id, feed)
        boards = (
            []
            if pictured
            else _images(presenter.board(self._seen(loaded), presenter.acting_seat(state)))
        )
        # The board and the prompt's images are drawn at once (Pillow lets go of the GIL).
        board_files, prompt_files = await asyncio.gather(draw(boards), draw(prompt.images))
        told_any = False
        try:
            if board_files:  # the prompt below says where the race stands
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel, lines, summary, files=board_files, allowed_mentions=MENTION_NONE
                )
                told_any, lines = True, []
            if boards:
                self._shown[record.id] = state
            # Without a board the lines open the prompt itself (no message of a lone line);
            # what the prompt cannot hold goes before it.
            runs = split([*lines, prompt.content])
            for run in runs[:-1]:
                await channel.send(_clip("\n".join(run)), allowed_mentions=MENTION_NONE)
                told_any = True
            opening = runs[-1][:-1]
            message = await channel.send(
                _clip("\n".join(runs[-1])),
                view=view_of(*prompt.items[:25]),
                files=prompt_files,
                allowed_mentions=mention_only(*prompt.pings),
            )
        except NotPosted:
            # Not shown: this action's events are replayed from the log when it is shown
            # (published_seq stays behind); what was said besides them waits in the feed.
            if not told_any and said:
                kept = Feed.model_validate(record.feed)
                kept.steps += said
                await self.store.update_game(record.id, feed=kept.model_dump())
            raise
        # (its text is what it was sent with, until a step edits it: then `base`)
        feed.key, feed.opening, feed.base = Feed.key_of(key), opening, None
        await self.store.update_game(
            record.id,
            published_seq=record.seq,
            prompt_message_id=message.id,
            feed=feed.model_dump(),
        )

    async def post_finish(self, loaded: Loaded, channel: Any) -> None:
        presenter = self.presenter(loaded.record)
        lines, image = presenter.finish(loaded)
        record = loaded.record
        if not record.results_recorded and record.league_id is not None:
            # play.act records them with the finishing action; this is a safety net.
            await play.record_finish(self.store, record.id, loaded.game, loaded.state)
        if record.league_id is not None:
            lines.append(await self.league_lines(loaded))
        await channel.send(
            "\n".join(lines)[:1990],
            files=await draw([image] if image else []),
            allowed_mentions=MENTION_NONE,
        )

    async def league_lines(self, loaded: Loaded) -> str:
        from bot.league_tables import league_points_table

        assert loaded.record.league_id is not None
        league = await self.store.league_by_id(loaded.record.league_id)
        table = league_points_table(league)
        placings = play.league_placings(loaded.game, loaded.state, list(loaded.seats.values()))
        if not league.robots_take_places:
            placings = places_among_members(placings)
        by_user = {s.user_id: s.name for s in loaded.seats.values()}
        points = ", ".join(
            f"{shown(by_user[u])} {table.points_for(p) if p else 0}" for u, p, _ in placings
        )
        return f"\nLeague points ({shown(league.label)}, recorded): {points or 'none'}"

    # Recovery --------------------------------------------------------------------------

    async def recover(self) -> None:
        """At start-up: every game whose last action did not reach the thread gets it now
        (robots play, the board and the prompt are posted), once per process."""
        if self._recovered:
            return
        self._recovered = True
        # only this process's shards: another process recovers the other guilds' games
        for record in await self.store.unpublished_games(shards=self.bot.timers.shards):
            if record.kind not in self.presenters:
                continue
            try:
                async with self.lock(record.id):
                    loaded = await self.load(record.id)
                    await self.presenter(record).recover(self, loaded)
            except NotPosted as exc:  # stored; shown by `/<game> status` or the next start
                await self.not_shown(record.id, exc)
            except Exception:  # one broken game must not stop the others
                log.exception("could not recover game #%s", record.id)


def _images(board: Image | list[Image] | None) -> list[Image]:
    if board is None:
        return []
    return board if isinstance(board, list) else [board]
