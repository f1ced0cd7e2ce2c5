"""The table layer's lobby, turn timers and life cycle (cancel, abandon, replace,
autopilot, idle races): the half of `Table` that opens, times and ends games."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from bot.components import INVALID_BUTTON, button, human_seat, shown, view_of
from bot.errors import NotPosted, is_expired
from bot.posting import PostChannel, edit_source, result, think
from bot.presenter import Loaded, Presenter, timestamp
from rules.base import Event, get_game
from rules.errors import BadConfig, PaddockError
from store.errors import NotFound, Repeated
from store.models import GameRecord, Once, Seat, Timer, TimerSpec

if TYPE_CHECKING:
    import asyncio

    from bot.client import PaddockBot
    from bot.feed import Feed
    from bot.table import Table
    from rules.base import Action, GameState
    from store import Store, play

log = logging.getLogger("paddock.table")
MENTION_NONE = discord.AllowedMentions.none()
REPOST = "paddock_repost"  # the timer that shows a race again after a failed post
ARCHIVE = "paddock_archive"  # the timer that archives a race's thread a while after its end
ARCHIVE_HOURS = 1  # that while, for a race in no league (a league sets its own)
# The same command from the same user in the same place within this many seconds is a retry
# of one answered already (Discord's "did not respond", a double submit): no second game.
RETRY_SECONDS = 30.0


def command_key(interaction: discord.Interaction) -> str:
    """The command as its user sent it: its name and (hashed, to a bounded key) its options.
    A retry sends the same; a league admin's next race (another round) does not."""
    data: Any = interaction.data or {}
    names, options = [str(data.get("name"))], data.get("options") or []
    while options and options[0].get("type") in (1, 2):  # a subcommand (group)
        names.append(str(options[0].get("name")))
        options = options[0].get("options") or []
    values = sorted((str(o.get("name")), str(o.get("value"))) for o in options)
    digest = hashlib.sha256(json.dumps(values).encode()).hexdigest()[:16]
    return f"{' '.join(names)} {digest}"


def mention_only(*user_ids: int | None) -> discord.AllowedMentions:
    """Ping exactly these users and nobody else (names typed by users never ping)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        users=[discord.Object(id=u) for u in user_ids if u is not None],
    )


class LifeCycle:
    """Mixed into `Table`: uses its store, locks, load, presenters and publish."""

    if TYPE_CHECKING:  # what `Table` provides (bot/table.py), for the type checker
        bot: PaddockBot
        presenters: dict[str, Presenter[Any]]
        _shown: dict[int, GameState]

        @property
        def store(self) -> Store: ...
        def presenter(self, record: GameRecord) -> Presenter[Any]: ...
        def lock(self, game_id: int) -> asyncio.Lock: ...
        async def load(self, game_id: int) -> Loaded[Any]: ...
        async def require_manager(
            self, interaction: discord.Interaction, record: GameRecord, what: str
        ) -> None: ...
        async def channel_of(self, record: GameRecord) -> Any: ...
        def timers_for(
            self,
            before: Loaded[Any],
            state: GameState,
            now: float,
            *,
            human: bool = False,
            fresh: bool = False,
        ) -> list[TimerSpec] | None: ...
        async def strip_prompt(
            self, channel: Any, message_id: int | None, feed: Feed | None = None
        ) -> None: ...
        def armed(self, game_id: int, timers: list[TimerSpec] | None) -> list[TimerSpec] | None: ...
        async def advance(
            self,
            loaded: Loaded[Any],
            events: list[Event],
            *,
            key_before: Any,
            start: bool = False,
            notes: list[str] | None = None,
        ) -> Loaded[Any]: ...
        @staticmethod
        def robot_drives(loaded: Loaded[Any], seat: int) -> bool: ...
        async def publish(
            self,
            loaded: Loaded[Any],
            events: list[Event],
            *,
            key_before: Any,
            start: bool = False,
            notes: list[str] | None = None,
            posted: bool = False,
        ) -> None: ...
        def forget(self, game_id: int) -> None: ...
        async def commit(
            self,
            loaded: Loaded[Any],
            action: Action,
            actor: str,
            *,
            by_robot: bool = False,
            human: bool = False,
        ) -> tuple[Loaded[Any], play.Played]: ...

    # Lobby -----------------------------------------------------------------------------

    async def open_lobby(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        settings: dict[str, Any],
        *,
        seed: int,
        league_round: tuple[Any, Any] | None,
        seats: list[Seat] | None = None,
        lobby: bool = True,
    ) -> GameRecord:
        """A new game's row and, for thread games, its thread; the lobby message with Join,
        Leave, Start and Cancel unless `lobby` is False (the caller starts it at once). The
        command was answered already (`think`): its "thinking…" becomes the announcement
        (or the lobby). The same command from the same user in the same place within
        RETRY_SECONDS (a retry of a command answered) makes nothing: it is told the game."""
        assert interaction.guild is not None and interaction.channel is not None
        channel: Any = interaction.channel
        if presenter.in_thread:
            if isinstance(channel, discord.Thread):
                channel = channel.parent  # races get their own thread beside the current one
            if not isinstance(channel, discord.TextChannel):
                raise PaddockError("Open races in a text channel, where I can start a thread.")
        else:
            running = await self.store.find_game(presenter.kind, channel_id=channel.id)
            if running is not None:
                raise PaddockError(_busy(presenter, running, interaction.user.id))
        settings = {"host": interaction.user.id, **settings}
        settings.setdefault("title", presenter.title)
        now = self.bot.timers.clock()
        idle_at = now + settings.get("idle_days", presenter.default_idle_days) * 86400
        league_id = round_id = None
        if league_round is not None:
            league_id, round_id = league_round[0].id, league_round[1].id
        once = Once(
            channel_id=channel.id,
            user_id=interaction.user.id,
            command=command_key(interaction),
            at=now,
            window=RETRY_SECONDS,
        )
        try:
            record = await self.store.create_game(
                presenter.kind,
                seed,
                {},  # the rules config is made at the start, from the lobby
                None,
                settings=settings,
                guild_id=interaction.guild.id,
                channel_id=channel.id,
                league_id=league_id,
                round_id=round_id,
                status="lobby",
                seats=seats or [human_seat(0, interaction.user)],
                # a lobby nobody starts closes by itself too
                timers=[TimerSpec(event=f"{presenter.area}_idle", due_at=idle_at)]
                if lobby
                else None,
                once=once,
            )
        except Repeated as exc:
            raise PaddockError(await self._made_already(presenter, exc.game_id)) from None
        self.bot.timers.poke()
        if not presenter.in_thread:
            if lobby:
                message = await result(
                    interaction,
                    embed=self.lobby_embed(record, seats or []),
                    view=self.lobby_view(presenter, record),
                    allowed_mentions=MENTION_NONE,
                    channel=channel,
                )
                assert message is not None  # (posted in the channel if not as the answer)
                await self.store.update_game(record.id, status_message_id=message.id)
            return await self.store.load_game(record.id)
        name = f"{presenter.area.upper()} {presenter.noun} #{record.id}"
        opened = f"🏁 **{shown(settings['title'])}** - {presenter.noun} #{record.id}"
        again = f"open the race again with `/{presenter.area} new`"
        announced: discord.Message | None = None
        try:
            if isinstance(interaction.channel, discord.Thread):
                # A message in a thread cannot start another thread: open it in the parent.
                thread = await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread
                )
                await result(
                    interaction,
                    f"{opened}: lobby open in {thread.mention}.",
                    allowed_mentions=MENTION_NONE,
                    channel=channel,
                )
            else:
                announced = await result(
                    interaction,
                    f"{opened}: lobby open in the thread below.",
                    allowed_mentions=MENTION_NONE,
                    channel=channel,
                )
                assert announced is not None  # (posted in the channel if not as the answer)
                thread = await announced.create_thread(name=name)
        except discord.HTTPException as exc:
            if is_expired(exc):
                raise
            if isinstance(exc, discord.Forbidden):
                reason = f"I can't start threads here: give me Create Public Threads, then {again}."
            else:
                reason = f"Discord failed to open the race's thread: {again} in a minute."
            raise await self._not_opened(record.id, announced, opened, reason, exc) from exc
        await self.store.update_game(record.id, thread_id=thread.id)
        record = await self.store.load_game(record.id)
        seats_now = await self.store.seats(record.id)
        try:
            lobby_message = await PostChannel(thread, status_command="").send(
                embed=self.lobby_embed(record, seats_now),
                view=self.lobby_view(presenter, record),
                allowed_mentions=MENTION_NONE,
            )
        except NotPosted as exc:  # no lobby anyone could join: none is kept
            if isinstance(exc.cause, discord.Forbidden):
                reason = (
                    "I can't post in the race's thread: give me Send Messages in Threads, "
                    f"then {again}."
                )
            else:
                reason = f"Discord failed to post the lobby: {again} in a minute."
            raise await self._not_opened(record.id, announced, opened, reason, exc) from exc
        await self.store.update_game(record.id, status_message_id=lobby_message.id)
        return record

    async def _not_opened(
        self,
        game_id: int,
        announced: discord.Message | None,
        opened: str,
        reason: str,
        exc: Exception,
    ) -> PaddockError:
        """A race announced but with no lobby anyone could join: none is kept, and the
        announcement says so (its refusal, for the one who opened it, is returned)."""
        log.warning("game %s: no lobby posted: %s", game_id, getattr(exc, "cause", exc))
        await self.store.end_game(game_id, from_status=("lobby",))
        if announced is not None:
            try:
                await announced.edit(content=f"{opened}: not opened. {reason}")
            except discord.HTTPException as failed:
                log.warning("game %s: announcement not corrected: %s", game_id, failed)
        return PaddockError(reason)

    async def _made_already(self, presenter: Presenter, game_id: int) -> str:
        """What a retry of the command that made `game_id` a moment ago is told."""
        record = await self.store.load_game(game_id)
        title = shown(record.settings.get("title", presenter.title))
        if presenter.in_thread:
            where = f"<#{record.thread_id}>" if record.thread_id else "a thread on its way"
            there = f"its lobby is in {where}"
        else:
            there = "it is on in this channel"
        return (
            f"You opened **{title}** - {presenter.noun} #{record.id} with this command a moment "
            f"ago: {there}. (The same command again within {RETRY_SECONDS:.0f} s opens "
            "nothing more: change an option, or wait, to open another.)"
        )

    def lobby_embed(self, record: GameRecord, seats: list[Seat]) -> discord.Embed:
        presenter = self.presenter(record)
        settings = record.settings
        colours = settings.get("colours", {})
        title = shown(settings.get("title", presenter.title))
        embed = discord.Embed(
            title=f"{title} - {presenter.noun} #{record.id}",
            colour=discord.Colour.red(),
        )
        lines = presenter.lobby_lines(record)
        robots = settings.get("robots", 0)
        if presenter.max_cars > presenter.max_players or robots:
            lines.append(f"{robots} robot(s) added at the start")
        lines.append(f"Host: <@{settings.get('host')}>")
        embed.description = "\n".join(lines)
        embed.add_field(
            name=f"Drivers ({len(seats)}/{settings.get('max_players', presenter.max_players)})",
            value="\n".join(
                (f"<@{s.user_id}> " if s.user_id else "")
                + shown(s.name)
                + (f" ({colours[str(s.user_id)]})" if str(s.user_id) in colours else "")
                for s in seats
            )
            or "nobody yet",
            inline=False,
        )
        return embed

    def lobby_view(self, presenter: Presenter, record: GameRecord) -> discord.ui.View:
        gid, area = record.id, presenter.area
        items = [
            button("Join", area, gid, "join", style=discord.ButtonStyle.primary),
            button("Leave", area, gid, "leave"),
            button("Start", area, gid, "start", style=discord.ButtonStyle.success),
            button("Cancel", area, gid, "cancel", style=discord.ButtonStyle.danger),
        ]
        if presenter.max_cars > 1 and "robots" in record.settings:
            items += [
                button("Robot +", area, gid, "robot-add"),
                button("Robot −", area, gid, "robot-remove"),
            ]
        items += [button(c.capitalize(), area, gid, "colour", c) for c in presenter.colours]
        return view_of(*items)

    async def lobby_button(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        action: str,
        arg: str | None = None,
    ) -> None:
        async with self.lock(game_id):
            record = await self.store.load_game(game_id)
            if record.status != "lobby":
                raise PaddockError(
                    f"This {presenter.noun} has already started."
                    if record.status == "running"
                    else f"This {presenter.noun} is over."
                )
            seats = await self.store.seats(game_id)
            user = interaction.user
            settings = dict(record.settings)
            if action == "join":
                if any(s.user_id == user.id for s in seats):
                    raise PaddockError(f"You are already in this {presenter.noun}.")
                if len(seats) >= settings.get("max_players", presenter.max_players):
                    raise PaddockError(f"This {presenter.noun} is full.")
                if (
                    record.league_id is not None
                    and await self.store.member_by_user(record.league_id, user.id) is None
                ):
                    league = await self.store.league_by_id(record.league_id)
                    raise PaddockError(
                        f"This is a league {presenter.noun}: join **{league.label}** first "
                        "with `/league join`."
                    )
                seats.append(human_seat(len(seats), user))
                if presenter.colours and record.league_id is not None:
                    # a league driver races in the league colour, if it is free here
                    member = await self.store.member_by_user(record.league_id, user.id)
                    colours = settings.setdefault("colours", {})
                    if member and member.colour and member.colour not in colours.values():
                        colours[str(user.id)] = member.colour
            elif action == "colour":
                if not any(s.user_id == user.id for s in seats):
                    raise PaddockError(f"Join this {presenter.noun} first, then pick a colour.")
                if arg not in presenter.colours:
                    raise PaddockError("That colour is not offered here.")
                colours = settings.setdefault("colours", {})
                taken = {c: u for u, c in colours.items() if u != str(user.id)}
                if arg in taken:
                    raise PaddockError(f"<@{taken[arg]}> drives the {arg} car: pick another.")
                colours[str(user.id)] = arg
            elif action == "leave":
                if not any(s.user_id == user.id for s in seats):
                    raise PaddockError(f"You are not in this {presenter.noun}.")
                seats = [s for s in seats if s.user_id != user.id]
                settings.get("colours", {}).pop(str(user.id), None)
                seats = [s.model_copy(update={"seat": i}) for i, s in enumerate(seats)]
                if not seats:
                    raise PaddockError(
                        "You are the last driver: press Cancel to close the lobby instead."
                    )
                if settings.get("host") == user.id:
                    settings["host"] = seats[0].user_id  # the host passes to the next driver
            elif action in ("robot-add", "robot-remove"):
                if not (presenter.max_cars > 1 and "robots" in settings):
                    raise PaddockError(INVALID_BUTTON)  # this lobby offers no such button
                await self.require_manager(interaction, record, "change the robots")
                robots = settings.get("robots", 0) + (1 if action == "robot-add" else -1)
                if not 0 <= robots <= presenter.max_cars - 1:
                    raise PaddockError(f"Robots go from 0 to {presenter.max_cars - 1}.")
                settings["robots"] = robots
            elif action == "cancel":
                await self.require_manager(interaction, record, "cancel this lobby")
                timers = await self.end_timers(record)
                await self.store.end_game(game_id, from_status=("lobby",), timers=timers)
                await edit_source(
                    interaction,
                    content=f"Lobby cancelled by {user.mention}.",
                    embed=None,
                    view=None,
                    allowed_mentions=MENTION_NONE,
                )
                return
            else:
                await self.require_manager(interaction, record, f"start this {presenter.noun}")
                await self.start(interaction, presenter, record, seats)
                return
            await self.store.set_lobby(game_id, seats, settings)
            record = record.model_copy(update={"settings": settings})
            await edit_source(
                interaction,
                embed=self.lobby_embed(record, seats),
                view=self.lobby_view(presenter, record),
                allowed_mentions=MENTION_NONE,
            )

    async def start(
        self,
        interaction: discord.Interaction | None,
        presenter: Presenter,
        record: GameRecord,
        seats: list[Seat],
        *,
        answer: Callable[[], Awaitable[Any]] | None = None,
    ) -> Loaded:
        """The lobby's seats plus robots become the grid; the first prompt is posted.
        The click on Start is answered with the lobby as it started, once the start is
        stored and before the first post; `answer` replaces that (a command's reply)."""
        if not seats:
            raise PaddockError("Nobody has joined yet.")
        robots = min(record.settings.get("robots", 0), presenter.max_cars - len(seats))
        all_seats = seats + [
            Seat(seat=len(seats) + i, user_id=None, name=presenter.robot_name(i), robot=True)
            for i in range(robots)
        ]
        if len(all_seats) < presenter.min_players:
            raise PaddockError(
                f"A {presenter.noun} needs at least {presenter.min_players} "
                f"{'cars' if presenter.max_cars > presenter.max_players else 'players'}: "
                "wait for someone to join"
                + (" or add robots." if "robots" in record.settings else ".")
            )
        game = get_game(record.kind)
        config = presenter.rules_config(record, all_seats)
        try:
            state = game.new_game(record.seed, config)
        except BadConfig as exc:  # the rules' reason, told as what to do in this lobby
            raise PaddockError(presenter.config_refusal(exc, record.settings)) from None
        now = self.bot.timers.clock()
        loaded = Loaded(
            # The start counts as the players' last action, for the idle-race timer.
            record.model_copy(
                update={"status": "running", "config": config, "seq": 0, "last_human_at": now}
            ),
            game,
            state,
            {s.seat: s for s in all_seats},
        )
        timers = self.armed(record.id, self.timers_for(loaded, state, now, fresh=True))
        await self.store.start_game(
            record.id,
            config,
            state.model_dump_json(),
            all_seats,
            timers=timers or [],
            human_at=now,
        )
        self.bot.timers.poke()
        try:
            if answer is not None:
                await answer()
            elif interaction is not None:  # the click on Start (deferred already)
                lobby = self.lobby_embed(loaded.record, all_seats)
                await edit_source(interaction, embed=lobby, view=None)
        finally:  # a started game gets its first post even if the answer failed
            await presenter.begin(cast("Table", self), loaded)
        return loaded

    # Timers ----------------------------------------------------------------------------

    async def _waiting(self, timer: Timer) -> tuple[Loaded, list[int]] | None:
        """The game of a turn timer and the seats of the timer still to act on that move."""
        assert timer.game_id is not None
        try:
            loaded = await self.load(timer.game_id)
        except (NotFound, PaddockError):
            return None
        presenter = self.presenter(loaded.record)
        if loaded.record.status != "running" or str(
            presenter.move_key(loaded.state)
        ) != timer.payload.get("key"):
            return None
        waiting = presenter.waiting_seats(loaded.state)
        # "seat": timers stored before simultaneous picks existed
        seats = timer.payload.get("seats") or [timer.payload.get("seat")]
        late = [s for s in seats if s in waiting and not self.robot_drives(loaded, s)]
        return (loaded, late) if late else None

    async def on_reminder(self, timer: Timer) -> None:
        try:
            await self._remind(timer)
        except NotPosted as exc:
            await self.not_shown(timer.game_id, exc)

    async def _remind(self, timer: Timer) -> None:
        found = await self._waiting(timer)
        if found is None:
            return
        loaded, seats = found
        users = [loaded.seats[s].user_id for s in seats]
        presenter = self.presenter(loaded.record)
        deadline = timestamp(timer.payload.get("deadline", timer.due_at))
        who = ", ".join(f"<@{u}>" for u in users if u is not None)
        text = (
            f"⏰ {who}, your move in {presenter.noun} #{loaded.id} "
            f"({presenter.title}): the robot drives for you {deadline}."
        )
        channel = await self.channel_of(loaded.record)
        await channel.send(text, allowed_mentions=mention_only(*users))
        for user_id in users:
            if user_id is not None and await self.store.dm_reminders(user_id):
                try:
                    user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
                    await user.send(f"{text}\n{channel.jump_url}", allowed_mentions=MENTION_NONE)
                except discord.HTTPException:
                    log.info("could not DM a reminder to %s", user_id)

    async def on_timeout(self, timer: Timer) -> None:
        try:
            await self._time_out(timer)
        except NotPosted as exc:  # stored, not shown: `/<game> status` or a restart shows it
            await self.not_shown(timer.game_id, exc)

    async def _time_out(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.lock(timer.game_id):
            found = await self._waiting(timer)
            if found is None:
                return
            loaded, seats = found
            presenter = self.presenter(loaded.record)
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
                    loaded, played = await self.commit(
                        loaded, action, f"timeout:{driver.user_id}", by_robot=True
                    )
                    events += played.events
            names = ", ".join(shown(loaded.name(s)) for s in seats)
            note = f"⏱ {names} ran out of time: the robot decided for them."
            await self.advance(loaded, events, key_before=key, notes=[note])

    async def on_idle(self, timer: Timer) -> None:
        try:
            await self._idle(timer)
        except NotPosted as exc:
            log.warning("game %s: %s", timer.game_id, exc.message)  # closed all the same

    async def _idle(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.lock(timer.game_id):
            record = await self.store.load_game(timer.game_id)
            presenter = self.presenter(record)
            idle = record.settings.get("idle_days", presenter.default_idle_days) * 86400
            if record.status == "lobby":
                await self._close_idle_lobby(record, idle)
                return
            if record.status != "running":
                return
            if record.last_human_at is not None:
                due = record.last_human_at + idle
                if due > self.bot.timers.clock() + 1:
                    # Someone acted since this timer was armed: wait from their action.
                    await self.bot.timers.create(timer.event, due, {}, record.id)
                    return
            await self.close(
                record,
                f"🏳 Nobody has acted in this {presenter.noun} for {idle // 86400:.0f} days: it is "
                "abandoned. No league points are recorded.",
            )

    async def _close_idle_lobby(self, record: GameRecord, idle: float) -> None:
        await self.close(
            record, f"🏳 This lobby was not started within {idle // 86400:.0f} days: it is closed."
        )

    async def close(self, record: GameRecord, notice: str) -> bool:
        """End a lobby or a race with no league points (its status and timers in one
        transaction), strip its live message of buttons and post `notice`. False when it
        had already ended."""
        timers = await self.end_timers(record)
        if not await self.store.end_game(record.id, from_status=(record.status,), timers=timers):
            return False
        self.forget(record.id)
        live = record.status_message_id if record.status == "lobby" else record.prompt_message_id
        channel = await self.channel_of(record)
        await self.strip_prompt(channel, live)
        await channel.send(notice, allowed_mentions=MENTION_NONE)
        return True

    # Life cycle ------------------------------------------------------------------------

    async def abandon(
        self, interaction: discord.Interaction, record: GameRecord, *, confirmed: bool
    ) -> None:
        presenter = self.presenter(record)
        await self.require_manager(interaction, record, f"abandon this {presenter.noun}")
        if record.status == "lobby":
            raise PaddockError(f"This {presenter.noun} has not started: use Cancel in its lobby.")
        if record.status != "running":
            raise PaddockError(f"This {presenter.noun} is already over.")
        if not confirmed:
            await interaction.response.send_message(
                f"Abandon {presenter.title} {presenter.noun} #{record.id}? It ends now and no "
                "league points are recorded.",
                view=view_of(
                    button(
                        "Abandon the race",
                        presenter.area,
                        record.id,
                        "abandon",
                        style=discord.ButtonStyle.danger,
                    )
                ),
                ephemeral=True,
            )
            return
        notice = (
            f"🏳 {interaction.user.mention} abandoned this {presenter.noun}. No league points "
            "are recorded."
        )
        async with self.lock(record.id):
            if not await self.close(record, notice):
                raise PaddockError(f"This {presenter.noun} is already over.")
        await edit_source(interaction, content="Abandoned.", view=None)  # (deferred: route)

    async def replace(
        self, interaction: discord.Interaction, record: GameRecord, user: discord.abc.User
    ) -> None:
        presenter = self.presenter(record)
        _robots_drive(presenter)
        await self.require_manager(interaction, record, "hand a car to a robot")
        await think(interaction)  # before the race's lock (held while a move is shown)
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            seat = loaded.human_seat(user.id)
            if seat is None:
                raise PaddockError(f"{user.mention} is not driving in this {presenter.noun}.")
            await self.store.update_seat(record.id, seat.seat, robot=True)
            loaded.seats[seat.seat] = seat.model_copy(update={"robot": True})
            await result(
                interaction,
                f"🤖 {interaction.user.mention} handed {user.mention}'s car "
                f"({shown(seat.name)}) to a robot for the rest of the "
                f"{presenter.noun}; it scores no league points.",
                allowed_mentions=MENTION_NONE,
                channel=await self.channel_of(record),
            )
            await self._robot_to_act(loaded, seat.seat)

    async def autopilot(
        self, interaction: discord.Interaction, record: GameRecord, on: bool
    ) -> None:
        presenter = self.presenter(record)
        _robots_drive(presenter)
        await think(interaction, ephemeral=True)  # before the race's lock
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            seat = loaded.human_seat(interaction.user.id)
            if seat is None:
                raise PaddockError(f"You are not driving in this {presenter.noun}.")
            if seat.autopilot == on:
                raise PaddockError(f"Autopilot is already {'on' if on else 'off'} for you.")
            await self.store.update_seat(record.id, seat.seat, autopilot=on)
            loaded.seats[seat.seat] = seat.model_copy(update={"autopilot": on})
            await result(
                interaction,
                f"Autopilot {'on' if on else 'off'}: "
                + (
                    f"the robot plays your turns until you use `/{presenter.area} autopilot off`."
                    if on
                    else "you drive again from your next turn."
                ),
            )
            if on:
                await self._robot_to_act(loaded, seat.seat)
            elif seat.seat in presenter.waiting_seats(loaded.state):
                # Back in control mid-turn: a prompt with a clock of its own.
                now = self.bot.timers.clock()
                timers = self.timers_for(loaded, loaded.state, now, fresh=True)
                await self.store.replace_game_timers(record.id, self.armed(record.id, timers) or [])
                self.bot.timers.poke()
                await self.publish(loaded, [], key_before=None)

    async def _robot_to_act(self, loaded: Loaded, seat: int) -> None:
        """A seat just handed to the robot plays at once if it is to act."""
        presenter = self.presenter(loaded.record)
        if loaded.record.status == "running" and seat in presenter.waiting_seats(loaded.state):
            await self.advance(loaded, [], key_before=presenter.move_key(loaded.state))

    async def repost_lobby(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """`/<game> status` before the start: the lobby posted again (the old message loses
        its buttons; a moderator may have deleted it)."""
        await interaction.response.send_message("The lobby, below:", ephemeral=True)
        async with self.lock(record.id):
            record = await self.store.load_game(record.id)
            if record.status != "lobby":
                return
            channel = await self.channel_of(record)
            await self.strip_prompt(channel, record.status_message_id)
            await self.post_lobby(channel, record)

    async def post_lobby(self, channel: Any, record: GameRecord) -> None:
        """The lobby (its embed and buttons) posted again in `channel`: the game's live
        message from now on."""
        message = await channel.send(
            embed=self.lobby_embed(record, await self.store.seats(record.id)),
            view=self.lobby_view(self.presenter(record), record),
            allowed_mentions=MENTION_NONE,
        )
        await self.store.update_game(record.id, status_message_id=message.id)

    async def status(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """Repost the live state: board, whose turn, deadline, and the prompt at the bottom
        (after the moves a failed post did not show, told as they would have been)."""
        try:
            await interaction.response.send_message("The race as it stands:", ephemeral=True)
        except discord.HTTPException as exc:
            if not is_expired(exc):
                raise
            log.warning("interaction %s expired: reposting all the same", interaction.id)
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            await self.show_race(loaded)

    async def show_race(self, loaded: Loaded) -> None:
        """Post the race as it stands (under its lock): the actions no post showed yet, as
        recovery at start-up tells them, else the board and the prompt again. (A real-time
        game, Pit Formula, edits its live message without counting what it showed.)"""
        presenter = self.presenter(loaded.record)
        behind = (loaded.record.published_seq or 0) < loaded.record.seq
        if behind and presenter.turn_timers:
            await presenter.recover(cast("Table", self), loaded)
        else:
            await presenter.repost(cast("Table", self), loaded)

    # A game that is over ----------------------------------------------------------------

    @staticmethod
    def ending(record: GameRecord) -> str:
        """How a game that is over ended: finished, abandoned (a race stopped) or cancelled
        (a lobby closed before the start)."""
        if record.status == "finished":
            return "finished"
        return "abandoned" if record.state_json is not None else "cancelled"

    def over_text(self, record: GameRecord) -> str:
        """One line for a command used where a game is over: how it ended, and what still
        works there (its log, its replay, the league table, a new game)."""
        presenter = self.presenter(record)
        area, noun = presenter.area, presenter.noun
        if presenter.in_thread:
            subject, again = f"This {noun}", f"`/{area} new` opens a new {noun}"
        else:
            subject = f"The last {presenter.title} {noun} in this channel"
            again = f"`/{area} start` begins a new {noun} here"
        ending = self.ending(record)
        if ending == "cancelled":
            return (
                f"{subject} is over: its lobby was cancelled before the start, so nothing "
                f"was played. {again}."
            )
        league = record.league_id is not None
        how = "it has finished" if ending == "finished" else "it was abandoned"
        if ending == "abandoned" and league:
            how += ", so it scores no league points"
        still = [f"`/{area} log` tells its moves"]
        group = self.bot.tree.get_command(area)
        if isinstance(group, app_commands.Group) and group.get_command("replay") is not None:
            still.append(f"`/{area} replay` shows it again")
        if league and ending == "finished":
            still.append("`/league standings` shows the league table")
        if not presenter.in_thread:
            still.append(again)
        told = ", ".join(still[:-1]) + (" and " if len(still) > 1 else "") + still[-1]
        return f"{subject} is over: {how}. {told}."

    # Archiving the thread of a race that is over --------------------------------------

    async def end_timers(self, record: GameRecord) -> list[TimerSpec]:
        """The timers a game's end arms, stored with the end (which drops the others): its
        race thread archived after its league's grace (ARCHIVE_HOURS without a league).
        None for a game played in a channel: the channel is not the bot's to archive."""
        if not self.presenter(record).in_thread or record.thread_id is None:
            return []
        hours = ARCHIVE_HOURS
        if record.league_id is not None:
            hours = (await self.store.league_by_id(record.league_id)).archive_hours
        return [TimerSpec(event=ARCHIVE, due_at=self.bot.timers.clock() + hours * 3600)]

    async def on_archive(self, timer: Timer) -> None:
        """A while after a race ended, its thread is archived, not locked: it leaves the
        server's active threads (Discord allows 1,000) and anyone may still talk in it. A
        thread a moderator locked, or one the bot may not archive, is left as it is."""
        assert timer.game_id is not None
        try:
            record = await self.store.load_game(timer.game_id)
        except NotFound:
            return
        if record.status in ("lobby", "running") or record.thread_id is None:
            return  # not over (a stray timer): its thread is in use
        try:
            thread = await self.bot.fetch_channel(record.thread_id)  # as it is now
            if not isinstance(thread, discord.Thread) or thread.archived or thread.locked:
                return
            await thread.edit(archived=True, locked=False)
        except discord.HTTPException as exc:  # no Manage Threads (403), deleted, an outage
            log.warning(
                "game %s: could not archive thread %s: %s", record.id, record.thread_id, exc
            )
            return
        log.info("game %s: archived its thread %s", record.id, record.thread_id)

    # Faults ----------------------------------------------------------------------------

    # Seconds before the bot tries again to show a race a post failed for (an outage, a
    # permission taken): then `/<game> status` or a restart.
    repost_delays: tuple[float, ...] = (60.0, 300.0, 1800.0)

    async def not_shown(self, game_id: int | None, exc: NotPosted, attempt: int = 0) -> None:
        """A post nobody was told about failed (a timer's, recovery's): stored all the same.
        A deleted thread is replaced; else the race is shown again a little later."""
        log.warning("game %s: %s (%s)", game_id, exc.message, exc.cause)
        if game_id is None:
            return
        if exc.gone:
            await self.reopen(game_id)
        elif attempt < len(self.repost_delays):  # a timer: it goes with the game's timers
            due = self.bot.timers.clock() + self.repost_delays[attempt]
            await self.bot.timers.create(REPOST, due, {"attempt": attempt}, game_id)

    async def on_repost(self, timer: Timer) -> None:
        """Show again a race whose post failed, unless something showed it meanwhile."""
        assert timer.game_id is not None
        try:
            async with self.lock(timer.game_id):
                loaded = await self.load(timer.game_id)
                record = loaded.record
                if record.status != "running" or (record.published_seq or 0) >= record.seq:
                    return  # shown meanwhile (a status, a move), or over
                await self.show_race(loaded)
        except NotPosted as exc:
            await self.not_shown(timer.game_id, exc, int(timer.payload.get("attempt", 0)) + 1)
        except (NotFound, PaddockError):
            return  # the game is gone or not started

    async def on_thread_gone(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A moderator deleted a race's thread: the race goes on in a new one."""
        for presenter in self.presenters.values():
            if not presenter.in_thread:
                continue
            record = await self.store.find_game(presenter.kind, thread_id=payload.thread_id)
            if record is not None:
                await self.reopen(record.id)

    async def reopen(self, game_id: int) -> None:
        """The race's thread is gone: a new thread in the same channel, announced there, gets
        the race as it stands (or its lobby). Nothing of the race is lost: it is all stored."""
        try:
            async with self.lock(game_id):
                record = await self.store.load_game(game_id)
                presenter = self.presenter(record)
                if (
                    not presenter.in_thread
                    or record.status not in ("lobby", "running")
                    or record.channel_id is None
                ):
                    return
                parent: Any = self.bot.get_channel(
                    record.channel_id
                ) or await self.bot.fetch_channel(record.channel_id)
                name = f"{presenter.area.upper()} {presenter.noun} #{record.id}"
                thread = await parent.create_thread(
                    name=name, type=discord.ChannelType.public_thread
                )
                await self.store.update_game(record.id, thread_id=thread.id, prompt_message_id=None)
                self._shown.pop(record.id, None)  # the new thread has seen no board
                title = shown(record.settings.get("title", presenter.title))
                await parent.send(
                    f"🏁 The thread of **{title}** - {presenter.noun} #{record.id} was deleted: "
                    f"it goes on in {thread.mention}.",
                    allowed_mentions=MENTION_NONE,
                )
                record = await self.store.load_game(record.id)
                if record.status == "lobby":
                    await self.post_lobby(thread, record)
                    return
                await self.show_race(await self.load(record.id))
        except (NotPosted, discord.HTTPException) as exc:
            log.warning("could not reopen the thread of game %s: %s", game_id, exc)


def _busy(presenter: Presenter, running: GameRecord, user_id: int) -> str:
    """The refusal of a second game in a channel that has one (a retry of the command that
    started it among them)."""
    end = f"`/{presenter.area} {'cancel' if running.status == 'lobby' else 'abandon'}`"
    if running.settings.get("host") == user_id:
        return (
            f"Your {presenter.title} game (#{running.id}) is already on in this channel: play "
            f"it, or end it with {end}."
        )
    return (
        f"A {presenter.title} game (#{running.id}) is already on in this channel: finish it, "
        f"or its host can end it with {end}."
    )


def _robots_drive(presenter: Presenter) -> None:
    if not presenter.robots_drive:
        raise PaddockError(
            f"{presenter.title} is played in real time: there are no turns for a robot to "
            f"take. `/{presenter.area} abandon` ends a game nobody plays."
        )
