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
import io
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.components import button, human_seat, view_of
from bot.presenter import REMINDER_AT, Image, Loaded, Presenter, timestamp
from rules.base import Action, Event, GameState, get_game
from rules.errors import NotYourTurn, PaddockError
from store import play
from store.errors import NotFound
from store.models import GameRecord, Seat, Timer, TimerSpec

if TYPE_CHECKING:
    from bot.client import PaddockBot

log = logging.getLogger("paddock.table")

MAX_ID = 2**63 - 1  # SQLite's INTEGER; a larger id in a button is forged
LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "robot-add", "robot-remove")
MENTION_NONE = discord.AllowedMentions.none()


class InvalidButton(PaddockError):
    """A forged or stale button: another server's or channel's game, or one that is gone."""

    def __init__(self) -> None:
        super().__init__("This button is no longer valid.")


def mention_only(*user_ids: int | None) -> discord.AllowedMentions:
    """Ping exactly these users and nobody else (names typed by users never ping)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        users=[discord.Object(id=u) for u in user_ids if u is not None],
    )


async def draw(images: list[Image]) -> list[discord.File]:
    """Render the images in a worker thread: a board takes ~20 ms the event loop needs."""

    def work() -> list[discord.File]:
        return [discord.File(io.BytesIO(image.draw()), filename=image.filename) for image in images]

    return await asyncio.to_thread(work) if images else []


class Table:
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        self.presenters: dict[str, Presenter] = {}  # by rules kind
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._recovered = False
        self.fault: Callable[[str], None] = lambda point: None  # tests stop the bot here

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
        return Loaded(record, game, game.load_state(record.state_json), seats)

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
        seat = presenter.acting_seat(loaded.state)
        if seat is None:
            raise PaddockError(f"This {presenter.noun} is over.")
        mine = loaded.human_seat(user_id)
        if mine is None or mine.seat != seat:
            raise NotYourTurn(f"It's not your turn: {loaded.name(seat)} is to act.")
        return seat

    async def game_here(
        self, interaction: discord.Interaction, presenter: Presenter, *, running: bool = True
    ) -> GameRecord:
        """The game of this thread (or channel, for games played in one)."""
        where = {"thread_id" if presenter.in_thread else "channel_id": interaction.channel_id}
        record = await self.store.find_game(presenter.kind, **where)
        place = "thread" if presenter.in_thread else "channel"
        if record is None:
            raise PaddockError(f"There is no {presenter.title} {presenter.noun} in this {place}.")
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
            record = await self.record_for_button(interaction, presenter, game_id)
            if action in LOBBY_ACTIONS:
                await self.lobby_button(interaction, presenter, record.id, action)
            elif action == "act" and arg:
                await self.act_button(interaction, presenter, record.id, arg)
            elif action == "abandon":
                await self.abandon(interaction, record, confirmed=True)
            elif not await presenter.on_button(self, interaction, record.id, action, arg or ""):
                raise InvalidButton()

        return route

    async def act_button(
        self, interaction: discord.Interaction, presenter: Presenter, game_id: int, arg: str
    ) -> None:
        """`act:<seq>.<index>`: the index-th legal action offered at sequence number seq."""
        seq_text, _, index_text = arg.partition(".")
        if not (seq_text.isdigit() and index_text.isdigit()):
            raise InvalidButton()
        seq, index = int(seq_text), int(index_text)
        async with self.lock(game_id):
            loaded = await self.load(game_id)
            seat = self.acting_seat(loaded, interaction.user.id)
            if seq != loaded.record.seq:
                raise PaddockError(
                    "That choice is out of date: the race has moved on. Use the newest message."
                )
            options = loaded.game.legal_actions(loaded.state, seat)
            if not 0 <= index < len(options):
                raise PaddockError("That choice is no longer offered. Use the newest message.")
            await interaction.response.defer()
            key_before = presenter.move_key(loaded.state)
            # A StaleState (another process acted first) reaches the user as its message.
            loaded, played = await self.commit(
                loaded, options[index], actor=str(interaction.user.id), human=True
            )
            if interaction.message is not None and interaction.message.flags.ephemeral:
                await interaction.edit_original_response(content="Played.", view=None)
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
        now = self.bot.timers.clock()
        played = await play.act(
            self.store,
            loaded.id,
            action,
            actor,
            by_robot=by_robot,
            expected_seq=loaded.record.seq,
            loaded=(loaded.record, loaded.game, loaded.state),
            seats=list(loaded.seats.values()),
            timers=lambda state: self.timers_for(loaded, state, now, human=human),
            human_at=now if human else None,
        )
        record = loaded.record.model_copy(
            update={
                "seq": played.seq,
                "status": "finished" if played.finished else loaded.record.status,
                "results_recorded": loaded.record.results_recorded or played.results_recorded,
                "last_human_at": now if human else loaded.record.last_human_at,
            }
        )
        self.fault("after-commit")
        self.bot.timers.poke()
        return Loaded(record, loaded.game, played.state, loaded.seats), played

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
        seat = presenter.acting_seat(state)
        if presenter.turn_timers and seat is not None and not before.seats[seat].driven_by_robot:
            limit = settings.get("turn_seconds", 86400)
            payload = {"seat": seat, "key": str(key), "deadline": now + limit}
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
        person is to act, then the thread gets what changed."""
        presenter = self.presenter(loaded.record)
        events = list(events)
        while not loaded.game.is_terminal(loaded.state) and loaded.record.status == "running":
            seat = presenter.acting_seat(loaded.state)
            if seat is None or not loaded.seats[seat].driven_by_robot:
                break
            driver = loaded.seats[seat]
            actor = "robot" if driver.robot else f"autopilot:{driver.user_id}"
            action = loaded.game.robot_action(loaded.state, seat)
            loaded, played = await self.commit(loaded, action, actor, by_robot=True)
            events += played.events
        await self.publish(loaded, events, key_before=key_before, start=start, notes=notes)
        return loaded

    async def recovered_events(self, loaded: Loaded) -> list[Event]:
        """The events of the actions that never reached the thread, by replaying the log."""
        done = loaded.record.published_seq or 0
        game = loaded.game
        state = game.new_game(loaded.record.seed, loaded.record.config)
        events: list[Event] = []
        for record in await self.store.actions(loaded.id):
            state, new = game.apply(state, game.parse_action(record.action_json))
            if record.seq > done:
                events += new
        return events

    # Publishing ------------------------------------------------------------------------

    async def channel_of(self, record: GameRecord) -> Any:
        channel_id = record.where_id
        assert channel_id is not None
        channel = self.bot.get_channel(channel_id)
        return channel or await self.bot.fetch_channel(channel_id)

    async def deadline(self, loaded: Loaded) -> float | None:
        area = self.presenter(loaded.record).area
        for timer in await self.store.timers(loaded.id):
            if timer.event == f"{area}_timeout":
                return timer.due_at
        return None

    async def strip_prompt(self, channel: Any, message_id: int | None) -> None:
        """A superseded prompt loses its buttons (it may have been deleted: no matter)."""
        if message_id is None:
            return
        try:
            await channel.get_partial_message(message_id).edit(view=None)
        except discord.HTTPException:
            log.info("could not strip the old prompt %s", message_id)

    async def publish(
        self,
        loaded: Loaded,
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
    ) -> None:
        presenter = self.presenter(loaded.record)
        record = loaded.record
        channel = await self.channel_of(record)
        lines = [*(notes or []), *presenter.event_lines(events)]
        if start:
            lines = [*presenter.start_lines(loaded), *lines]
        text = "\n".join(lines)[-1900:] or presenter.summary(loaded)
        if loaded.game.is_terminal(loaded.state):
            await self.strip_prompt(channel, record.prompt_message_id)
            board = presenter.board(loaded, None)
            await channel.send(
                text, files=await draw([board] if board else []), allowed_mentions=MENTION_NONE
            )
            await self.post_finish(loaded, channel)
            await self.store.update_game(
                record.id, published_seq=record.seq, prompt_message_id=None
            )
            return
        seat = presenter.acting_seat(loaded.state)
        assert seat is not None
        prompt = presenter.prompt(loaded, seat, await self.deadline(loaded))
        if (
            key_before is not None
            and presenter.move_key(loaded.state) == key_before
            and record.prompt_message_id is not None
        ):
            # A sub-step of the same move: the prompt is edited, no new board.
            try:
                await channel.get_partial_message(record.prompt_message_id).edit(
                    content=prompt.content,
                    view=view_of(*prompt.items[:25]),
                    attachments=await draw(prompt.images),
                    allowed_mentions=MENTION_NONE,
                )
                await self.store.update_game(record.id, published_seq=record.seq)
                return
            except discord.NotFound:
                log.info("prompt of game %s was deleted; posting a new one", record.id)
        await self.strip_prompt(channel, record.prompt_message_id)
        board = presenter.board(loaded, seat)
        await channel.send(
            text, files=await draw([board] if board else []), allowed_mentions=MENTION_NONE
        )
        message = await channel.send(
            prompt.content,
            view=view_of(*prompt.items[:25]),
            files=await draw(prompt.images),
            allowed_mentions=mention_only(prompt.ping),
        )
        await self.store.update_game(
            record.id, published_seq=record.seq, prompt_message_id=message.id
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
            placings = [(u, i + 1, s) for i, (u, _, s) in enumerate(placings)]
        by_user = {s.user_id: s.name for s in loaded.seats.values()}
        points = ", ".join(
            f"{by_user[u]} {table.points_for(p) if p else 0}" for u, p, _ in placings
        )
        return f"\nLeague points ({league.label}, recorded): {points or 'none'}"

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
        Leave, Start and Cancel unless `lobby` is False (the caller starts it at once)."""
        assert interaction.guild is not None and interaction.channel is not None
        channel = interaction.channel
        if presenter.in_thread:
            if isinstance(channel, discord.Thread):
                channel = channel.parent  # races get their own thread beside the current one
            if not isinstance(channel, discord.TextChannel):
                raise PaddockError("Open races in a text channel, where I can start a thread.")
        else:
            running = await self.store.find_game(presenter.kind, channel_id=channel.id)
            if running is not None:
                raise PaddockError(
                    f"A {presenter.title} game (#{running.id}) is already on in this channel: "
                    f"finish it, or its host can end it with `/{presenter.area} "
                    f"{'cancel' if running.status == 'lobby' else 'abandon'}`."
                )
        settings = {"host": interaction.user.id, **settings}
        settings.setdefault("title", presenter.title)
        league_id = round_id = None
        if league_round is not None:
            league_id, round_id = league_round[0].id, league_round[1].id
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
        )
        if not presenter.in_thread:
            if lobby:
                await interaction.response.send_message(
                    embed=self.lobby_embed(record, seats or []),
                    view=self.lobby_view(presenter, record),
                    allowed_mentions=MENTION_NONE,
                )
                message = await interaction.original_response()
                await self.store.update_game(record.id, status_message_id=message.id)
            return await self.store.load_game(record.id)
        name = f"{presenter.area.upper()} {presenter.noun} #{record.id}"
        title = settings["title"]
        if isinstance(interaction.channel, discord.Thread):
            # A message in a thread cannot start another thread: open it in the parent.
            thread = await channel.create_thread(name=name, type=discord.ChannelType.public_thread)
            await interaction.response.send_message(
                f"🏁 **{discord.utils.escape_markdown(title)}** - {presenter.noun} #{record.id}: "
                f"lobby open in {thread.mention}.",
                allowed_mentions=MENTION_NONE,
            )
        else:
            await interaction.response.send_message(
                f"🏁 **{discord.utils.escape_markdown(title)}** - {presenter.noun} #{record.id}: "
                "lobby open in the thread below.",
                allowed_mentions=MENTION_NONE,
            )
            message = await interaction.original_response()
            thread = await message.create_thread(name=name)
        await self.store.update_game(record.id, thread_id=thread.id)
        record = await self.store.load_game(record.id)
        seats_now = await self.store.seats(record.id)
        lobby_message = await thread.send(
            embed=self.lobby_embed(record, seats_now),
            view=self.lobby_view(presenter, record),
            allowed_mentions=MENTION_NONE,
        )
        await self.store.update_game(record.id, status_message_id=lobby_message.id)
        return record

    def lobby_embed(self, record: GameRecord, seats: list[Seat]) -> discord.Embed:
        presenter = self.presenter(record)
        settings = record.settings
        embed = discord.Embed(
            title=f"{settings.get('title', presenter.title)} - {presenter.noun} #{record.id}",
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
                f"<@{s.user_id}> {discord.utils.escape_markdown(s.name)}" for s in seats
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
        return view_of(*items)

    async def lobby_button(
        self, interaction: discord.Interaction, presenter: Presenter, game_id: int, action: str
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
            elif action == "leave":
                if not any(s.user_id == user.id for s in seats):
                    raise PaddockError(f"You are not in this {presenter.noun}.")
                seats = [s for s in seats if s.user_id != user.id]
                seats = [s.model_copy(update={"seat": i}) for i, s in enumerate(seats)]
                if not seats:
                    raise PaddockError(
                        "You are the last driver: press Cancel to close the lobby instead."
                    )
                if settings.get("host") == user.id:
                    settings["host"] = seats[0].user_id  # the host passes to the next driver
            elif action in ("robot-add", "robot-remove"):
                await self.require_manager(interaction, record, "change the robots")
                robots = settings.get("robots", 0) + (1 if action == "robot-add" else -1)
                if not 0 <= robots <= presenter.max_cars - 1:
                    raise PaddockError(f"Robots go from 0 to {presenter.max_cars - 1}.")
                settings["robots"] = robots
            elif action == "cancel":
                await self.require_manager(interaction, record, "cancel this lobby")
                await self.store.end_game(game_id, from_status=("lobby",))
                await interaction.response.edit_message(
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
            await interaction.response.edit_message(
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
    ) -> Loaded:
        """The lobby's seats plus robots become the grid; the first prompt is posted."""
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
        except ValueError as exc:  # a config the rules refuse, said in one line
            raise PaddockError(_first_line(exc)) from None
        now = self.bot.timers.clock()
        loaded = Loaded(
            record.model_copy(update={"status": "running", "config": config, "seq": 0}),
            game,
            state,
            {s.seat: s for s in all_seats},
        )
        timers = self.timers_for(loaded, state, now, fresh=True)
        await self.store.start_game(
            record.id, config, state.model_dump_json(), all_seats, timers=timers or []
        )
        self.bot.timers.poke()
        if interaction is not None and not interaction.response.is_done():
            record_now = loaded.record
            await interaction.response.edit_message(
                embed=self.lobby_embed(record_now, all_seats), view=None
            )
        await presenter.begin(self, loaded)
        return loaded

    # Timers ----------------------------------------------------------------------------

    async def _waiting(self, timer: Timer) -> Loaded | None:
        """The game of a turn timer, if that seat is still to act on that move."""
        assert timer.game_id is not None
        try:
            loaded = await self.load(timer.game_id)
        except (NotFound, PaddockError):
            return None
        presenter = self.presenter(loaded.record)
        if (
            loaded.record.status != "running"
            or presenter.acting_seat(loaded.state) != timer.payload.get("seat")
            or str(presenter.move_key(loaded.state)) != timer.payload.get("key")
        ):
            return None
        return loaded

    async def on_reminder(self, timer: Timer) -> None:
        loaded = await self._waiting(timer)
        if loaded is None:
            return
        seat = loaded.seats[timer.payload["seat"]]
        if seat.driven_by_robot:
            return
        presenter = self.presenter(loaded.record)
        deadline = timestamp(timer.payload.get("deadline", timer.due_at))
        text = (
            f"⏰ <@{seat.user_id}>, your move in {presenter.noun} #{loaded.id} "
            f"({presenter.title}): the robot drives for you {deadline}."
        )
        channel = await self.channel_of(loaded.record)
        await channel.send(text, allowed_mentions=mention_only(seat.user_id))
        if seat.user_id is not None and await self.store.dm_reminders(seat.user_id):
            try:
                user = self.bot.get_user(seat.user_id) or await self.bot.fetch_user(seat.user_id)
                await user.send(f"{text}\n{channel.jump_url}", allowed_mentions=MENTION_NONE)
            except discord.HTTPException:
                log.info("could not DM a reminder to %s", seat.user_id)

    async def on_timeout(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.lock(timer.game_id):
            loaded = await self._waiting(timer)
            if loaded is None:
                return
            presenter = self.presenter(loaded.record)
            seat = timer.payload["seat"]
            key = presenter.move_key(loaded.state)
            driver = loaded.seats[seat]
            events: list[Event] = []
            while (
                not loaded.game.is_terminal(loaded.state)
                and presenter.acting_seat(loaded.state) == seat
                and presenter.move_key(loaded.state) == key
            ):
                action = loaded.game.robot_action(loaded.state, seat)
                loaded, played = await self.commit(
                    loaded, action, f"timeout:{driver.user_id}", by_robot=True
                )
                events += played.events
            note = f"⏱ {driver.name} ran out of time: the robot drove this move."
            await self.advance(loaded, events, key_before=key, notes=[note])

    async def on_idle(self, timer: Timer) -> None:
        assert timer.game_id is not None
        async with self.lock(timer.game_id):
            record = await self.store.load_game(timer.game_id)
            if record.status != "running":
                return
            presenter = self.presenter(record)
            idle = record.settings.get("idle_days", presenter.default_idle_days) * 86400
            if record.last_human_at is not None:
                due = record.last_human_at + idle
                if due > self.bot.timers.clock() + 1:
                    # Someone acted since this timer was armed: wait from their action.
                    await self.bot.timers.create(timer.event, due, {}, record.id)
                    return
            if not await self.store.end_game(record.id, from_status=("running",)):
                return
            channel = await self.channel_of(record)
            await self.strip_prompt(channel, record.prompt_message_id)
            await channel.send(
                f"🏳 Nobody has acted in this {presenter.noun} for {idle // 86400} days: it is "
                "abandoned. No league points are recorded.",
                allowed_mentions=MENTION_NONE,
            )

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
        async with self.lock(record.id):
            if not await self.store.end_game(record.id, from_status=("running",)):
                raise PaddockError(f"This {presenter.noun} is already over.")
        await interaction.response.edit_message(content="Abandoned.", view=None)
        channel = await self.channel_of(record)
        await self.strip_prompt(channel, record.prompt_message_id)
        await channel.send(
            f"🏳 {interaction.user.mention} abandoned this {presenter.noun}. No league points "
            "are recorded.",
            allowed_mentions=MENTION_NONE,
        )

    async def replace(
        self, interaction: discord.Interaction, record: GameRecord, user: discord.abc.User
    ) -> None:
        presenter = self.presenter(record)
        await self.require_manager(interaction, record, "hand a car to a robot")
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            seat = loaded.human_seat(user.id)
            if seat is None:
                raise PaddockError(f"{user.mention} is not driving in this {presenter.noun}.")
            await self.store.update_seat(record.id, seat.seat, robot=True)
            loaded.seats[seat.seat] = seat.model_copy(update={"robot": True})
            await interaction.response.send_message(
                f"🤖 {interaction.user.mention} handed {user.mention}'s car "
                f"({discord.utils.escape_markdown(seat.name)}) to a robot for the rest of the "
                f"{presenter.noun}; it scores no league points.",
                allowed_mentions=MENTION_NONE,
            )
            await self._robot_to_act(loaded, seat.seat)

    async def autopilot(
        self, interaction: discord.Interaction, record: GameRecord, on: bool
    ) -> None:
        presenter = self.presenter(record)
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            seat = loaded.human_seat(interaction.user.id)
            if seat is None:
                raise PaddockError(f"You are not driving in this {presenter.noun}.")
            if seat.autopilot == on:
                raise PaddockError(f"Autopilot is already {'on' if on else 'off'} for you.")
            await self.store.update_seat(record.id, seat.seat, autopilot=on)
            loaded.seats[seat.seat] = seat.model_copy(update={"autopilot": on})
            await interaction.response.send_message(
                f"Autopilot {'on' if on else 'off'}: "
                + (
                    f"the robot plays your turns until you use `/{presenter.area} autopilot off`."
                    if on
                    else "you drive again from your next turn."
                ),
                ephemeral=True,
            )
            if on:
                await self._robot_to_act(loaded, seat.seat)
            elif presenter.acting_seat(loaded.state) == seat.seat:
                # Back in control mid-turn: a prompt with a clock of its own.
                now = self.bot.timers.clock()
                timers = self.timers_for(loaded, loaded.state, now, fresh=True)
                await self.store.replace_game_timers(record.id, timers or [])
                self.bot.timers.poke()
                await self.publish(loaded, [], key_before=None)

    async def _robot_to_act(self, loaded: Loaded, seat: int) -> None:
        """A seat just handed to the robot plays at once if it is to act."""
        presenter = self.presenter(loaded.record)
        if loaded.record.status == "running" and presenter.acting_seat(loaded.state) == seat:
            await self.advance(loaded, [], key_before=presenter.move_key(loaded.state))

    async def status(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """Repost the live state: board, whose turn, deadline, and the prompt at the bottom."""
        await interaction.response.send_message("The race as it stands:", ephemeral=True)
        async with self.lock(record.id):
            loaded = await self.load(record.id)
            await self.publish(loaded, [], key_before=None)

    # Recovery --------------------------------------------------------------------------

    async def recover(self) -> None:
        """At start-up: every game whose last action did not reach the thread gets it now
        (robots play, the board and the prompt are posted), once per process."""
        if self._recovered:
            return
        self._recovered = True
        for record in await self.store.unpublished_games():
            if record.kind not in self.presenters:
                continue
            try:
                async with self.lock(record.id):
                    loaded = await self.load(record.id)
                    await self.presenter(record).recover(self, loaded)
            except Exception:  # one broken game must not stop the others
                log.exception("could not recover game #%s", record.id)


def _first_line(exc: Exception) -> str:
    text = str(exc)
    for line in text.splitlines():
        if line.strip().startswith("Value error,"):
            return line.split("Value error,", 1)[1].split("[")[0].strip().capitalize() + "."
    return text.splitlines()[0]
