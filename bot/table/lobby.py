"""A game before its start: opening it (its row, its thread, its lobby message), the lobby's
buttons (join, leave, colour, robots, start, cancel) and the start itself."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.components import INVALID_BUTTON, button, human_seat, shown, view_of
from bot.errors import NotPosted, is_expired
from bot.limits import DAY
from bot.posting import PostChannel, edit_source, result
from bot.presenter import Loaded, Presenter, TablePort
from bot.table.core import MENTION_NONE
from rules.base import get_game
from rules.errors import BadConfig, PaddockError
from store.errors import Repeated
from store.models import GameRecord, Once, Seat, TimerSpec

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.ending import Endings
    from bot.table.moves import Moves
    from bot.table.publish import Publisher

log = logging.getLogger("paddock.table")

# The same command from the same user in the same place within this many seconds is a retry
# of one answered already (Discord's "did not respond", a double submit): no second game.
RETRY_SECONDS = 30.0


def seed_of(interaction: discord.Interaction) -> int:
    """A new game's seed: the low 48 bits of the command's snowflake (unique, and stored with
    the game, so the race replays the same)."""
    return interaction.id % (2**48)


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


class Lobby:
    def __init__(
        self,
        core: TableCore,
        moves: Moves,
        publisher: Publisher,
        endings: Endings,
        port: TablePort,
    ) -> None:
        self.core = core
        self.moves = moves
        self.publisher = publisher
        self.endings = endings
        self.port = port  # what a presenter is given (its begin)

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
            running = await self.core.store.find_game(presenter.kind, channel_id=channel.id)
            if running is not None:
                raise PaddockError(_busy(presenter, running, interaction.user.id))
        settings = {"host": interaction.user.id, **settings}
        settings.setdefault("title", presenter.title)
        now = self.core.clock()
        idle_at = now + settings.get("idle_days", presenter.default_idle_days) * DAY
        league_id = round_id = None
        if league_round is not None:
            league_id, round_id = league_round[0].id, league_round[1].id
            # the host races in their league colour, as a driver who joins does
            host_colour: dict[str, str] = {}
            await self.league_colour(presenter, league_id, interaction.user.id, host_colour)
            if host_colour:
                settings["colours"] = host_colour
        once = Once(
            channel_id=channel.id,
            user_id=interaction.user.id,
            command=command_key(interaction),
            at=now,
            window=RETRY_SECONDS,
        )
        try:
            record = await self.core.store.create_game(
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
        self.core.bot.timers.poke()
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
                await self.core.store.update_game(record.id, status_message_id=message.id)
            return await self.core.store.load_game(record.id)
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
        await self.core.store.update_game(record.id, thread_id=thread.id)
        record = await self.core.store.load_game(record.id)
        seats_now = await self.core.store.seats(record.id)
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
        await self.core.store.update_game(record.id, status_message_id=lobby_message.id)
        return record

    async def league_colour(
        self, presenter: Presenter, league_id: int, user_id: int, colours: dict[str, str]
    ) -> None:
        """A league driver races in their league colour, if the game offers colours and
        nobody in this lobby holds it (`colours`: the lobby's, by user id, given it)."""
        if not presenter.colours:
            return
        member = await self.core.store.member_by_user(league_id, user_id)
        if member and member.colour and member.colour not in colours.values():
            colours[str(user_id)] = member.colour

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
        await self.core.store.end_game(game_id, from_status=("lobby",))
        if announced is not None:
            try:
                await announced.edit(content=f"{opened}: not opened. {reason}")
            except discord.HTTPException as failed:
                log.warning("game %s: announcement not corrected: %s", game_id, failed)
        return PaddockError(reason)

    async def _made_already(self, presenter: Presenter, game_id: int) -> str:
        """What a retry of the command that made `game_id` a moment ago is told."""
        record = await self.core.store.load_game(game_id)
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
        presenter = self.core.presenter(record)
        settings = record.settings
        colours = settings.get("colours", {})
        title = shown(settings.get("title", presenter.title))
        embed = discord.Embed(
            title=f"{title} - {presenter.noun} #{record.id}",
            colour=discord.Colour.red(),
        )
        lines = presenter.lobby_lines(record)
        robots = settings.get("robots", 0)
        if settings.get("grid") and record.status == "lobby":  # a league round's
            lines.append(f"Robots fill the grid to {settings['grid']} cars at the start")
        elif presenter.max_cars > presenter.max_players or robots:
            lines.append(f"{robots} robot(s) added at the start")
        if settings.get("host") is not None:
            lines.append(f"Host: <@{settings.get('host')}>")
        elif record.status == "lobby":  # a league round the bot opened
            lines.append(_signup_line(settings))
        elif record.status == "abandoned":
            lines.append("Sign-up closed: not raced.")
        else:
            lines.append("Sign-up closed: the race is on.")
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
        async with self.core.lock(game_id):
            record = await self.core.store.load_game(game_id)
            if record.status != "lobby":
                raise PaddockError(
                    f"This {presenter.noun} has already started."
                    if record.status == "running"
                    else f"This {presenter.noun} is over."
                )
            seats = await self.core.store.seats(game_id)
            user = interaction.user
            settings = dict(record.settings)
            if action == "join":
                if any(s.user_id == user.id for s in seats):
                    raise PaddockError(f"You are already in this {presenter.noun}.")
                if len(seats) >= settings.get("max_players", presenter.max_players):
                    raise PaddockError(f"This {presenter.noun} is full.")
                if (
                    record.league_id is not None
                    and await self.core.store.member_by_user(record.league_id, user.id) is None
                ):
                    league = await self.core.store.league_by_id(record.league_id)
                    raise PaddockError(
                        f"This is a league {presenter.noun}: join **{league.label}** first "
                        "with `/league join`."
                    )
                seats.append(human_seat(len(seats), user))
                if presenter.colours and record.league_id is not None:
                    colours = settings.setdefault("colours", {})
                    await self.league_colour(presenter, record.league_id, user.id, colours)
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
                if not seats and not settings.get("scheduled"):
                    raise PaddockError(
                        "You are the last driver: press Cancel to close the lobby instead."
                    )
                if settings.get("host") == user.id:
                    settings["host"] = seats[0].user_id  # the host passes to the next driver
            elif action in ("robot-add", "robot-remove"):
                if not (presenter.max_cars > 1 and "robots" in settings):
                    raise PaddockError(INVALID_BUTTON)  # this lobby offers no such button
                await self.core.require_manager(interaction, record, "change the robots")
                robots = settings.get("robots", 0) + (1 if action == "robot-add" else -1)
                if not 0 <= robots <= presenter.max_cars - 1:
                    raise PaddockError(f"Robots go from 0 to {presenter.max_cars - 1}.")
                settings["robots"] = robots
            elif action == "cancel":
                await self.core.require_manager(interaction, record, "cancel this lobby")
                timers = await self.endings.end_timers(record)
                await self.core.store.end_game(game_id, from_status=("lobby",), timers=timers)
                await edit_source(
                    interaction,
                    content=f"Lobby cancelled by {user.mention}.",
                    embed=None,
                    view=None,
                    allowed_mentions=MENTION_NONE,
                )
                return
            else:
                await self.core.require_manager(interaction, record, f"start this {presenter.noun}")
                await self.start(interaction, presenter, record, seats)
                return
            await self.core.store.set_lobby(game_id, seats, settings)
            record = record.model_copy(update={"settings": settings})
            if action == "join" and await self.everyone_in(record, seats):
                await self.start_round(interaction, record, seats)
                return
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
        now = self.core.clock()
        loaded = Loaded(
            # The start counts as the players' last action, for the idle-race timer.
            record.model_copy(
                update={"status": "running", "config": config, "seq": 0, "last_human_at": now}
            ),
            game,
            state,
            {s.seat: s for s in all_seats},
        )
        drivers = await self.core.waiting_drivers(loaded, state)
        self.core.race(record.id).silent = drivers.silent(now)
        timers = self.core.armed(
            record.id, self.moves.timers_for(loaded, state, now, fresh=True, drivers=drivers)
        )
        await self.core.store.start_game(
            record.id,
            config,
            state.model_dump_json(),
            all_seats,
            timers=timers or [],
            human_at=now,
        )
        self.core.bot.timers.poke()
        try:
            if answer is not None:
                await answer()
            elif interaction is not None:  # the click on Start (deferred already)
                lobby = self.lobby_embed(loaded.record, all_seats)
                await edit_source(interaction, embed=lobby, view=None)
        finally:  # a started game gets its first post even if the answer failed
            await presenter.begin(self.port, loaded)
        return loaded

    async def everyone_in(self, record: GameRecord, seats: list[Seat]) -> bool:
        """A league round's lobby the bot opened is full, or every league driver is in it:
        it starts without waiting for the end of sign-up."""
        if not record.settings.get("scheduled") or record.league_id is None:
            return False
        if len(seats) >= record.settings.get(
            "max_players", self.core.presenter(record).max_players
        ):
            return True
        drivers = {
            m.user_id for m in await self.core.store.members(record.league_id, active_only=True)
        }
        return drivers <= {s.user_id for s in seats}

    async def start_round(
        self, interaction: discord.Interaction | None, record: GameRecord, seats: list[Seat]
    ) -> Loaded:
        """Start a league round's lobby the bot opened: robots fill the grid to the league's
        size, and the lobby message (not a click's answer, when the sign-up closed by
        itself) shows it started."""
        presenter = self.core.presenter(record)
        settings = dict(record.settings)
        if presenter.robots_offered:
            cars = min(settings.get("grid", 0), presenter.max_cars)
            settings["robots"] = max(0, cars - len(seats))
            await self.core.store.set_lobby(record.id, seats, settings)
            record = record.model_copy(update={"settings": settings})

        async def lobby_started() -> None:
            started = record.model_copy(update={"status": "running"})
            embed = self.lobby_embed(started, seats)
            if interaction is not None:
                await edit_source(interaction, embed=embed, view=None)
                return
            channel = await self.core.channel_of(record)
            if record.status_message_id is not None:
                try:
                    await channel.get_partial_message(record.status_message_id).edit(
                        embed=embed, view=None
                    )
                except discord.HTTPException as exc:  # deleted: the race starts all the same
                    log.info("game %s: lobby not edited: %s", record.id, exc)

        return await self.start(interaction, presenter, record, seats, answer=lobby_started)

    async def repost_lobby(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """`/<game> status` before the start: the lobby posted again (the old message loses
        its buttons; a moderator may have deleted it)."""
        await interaction.response.send_message("The lobby, below:", ephemeral=True)
        async with self.core.lock(record.id):
            record = await self.core.store.load_game(record.id)
            if record.status != "lobby":
                return
            channel = await self.core.channel_of(record)
            await self.publisher.strip_prompt(channel, record.status_message_id)
            await self.post_lobby(channel, record)

    async def post_lobby(self, channel: Any, record: GameRecord) -> None:
        """The lobby (its embed and buttons) posted again in `channel`: the game's live
        message from now on."""
        message = await channel.send(
            embed=self.lobby_embed(record, await self.core.store.seats(record.id)),
            view=self.lobby_view(self.core.presenter(record), record),
            allowed_mentions=MENTION_NONE,
        )
        await self.core.store.update_game(record.id, status_message_id=message.id)


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


def _signup_line(settings: dict[str, Any]) -> str:
    """A league round's lobby, opened by the bot: when it starts by itself."""
    closes = settings.get("signup_closes")
    until = f" until <t:{int(closes)}:t> (<t:{int(closes)}:R>)" if closes else ""
    return (
        f"Sign-up open{until}: it starts then, or as soon as every league driver has joined. "
        "League admins may start or cancel it."
    )
