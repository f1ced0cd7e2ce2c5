"""What every part of the table layer shares: the bot, the store, the presenters, each
race's lock and memory, loading a game, its thread, and who may do what.

The other parts (bot/table/*.py) each take this core and the parts they call, nothing else.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.availability import EVERYONE_AVAILABLE, Drivers, of_settings
from bot.components import INVALID_BUTTON, shown
from bot.drawing import DRAWING
from bot.feed import Feed
from bot.metrics import observe_draw
from bot.posting import PostChannel, not_posted
from bot.presenter import Decision, Frame, Image, Loaded, Presenter
from rules.base import Action, GameState, get_game
from rules.errors import NotYourTurn, PaddockError
from store.errors import NotFound
from store.models import GameRecord, TimerSpec

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store import Store

log = logging.getLogger("paddock.table")

MAX_ID = 2**63 - 1  # SQLite's INTEGER; a larger id in a button is forged
MENTION_NONE = discord.AllowedMentions.none()
# interaction.extras: the game row the button's route read for this click (the click's own
# later reads start from it instead of reading it again)
ROUTED = "paddock.routed"


def mention_only(*user_ids: int | None) -> discord.AllowedMentions:
    """Ping exactly these users and nobody else (names typed by users never ping)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        users=[discord.Object(id=u) for u in user_ids if u is not None],
    )


class InvalidButton(PaddockError):
    """A forged or stale button: another server's or channel's game, or one that is gone."""

    def __init__(self) -> None:
        super().__init__(INVALID_BUTTON)


async def draw(images: list[Image]) -> list[discord.File]:
    """Render the images off the event loop, in the image worker processes (bot/drawing.py)
    or threads, all at once: a board takes ~20 ms of a core."""

    async def one(image: Image) -> discord.File:
        png, seconds = await DRAWING.png(image.draw)
        observe_draw(image.filename, seconds)
        return discord.File(io.BytesIO(png), filename=image.filename)

    return list(await asyncio.gather(*(one(im) for im in images)))


def images(board: Image | list[Image] | None) -> list[Image]:
    if board is None:
        return []
    return board if isinstance(board, list) else [board]


@dataclass
class Race:
    """What this process keeps of a race between two actions (all of it can be rebuilt
    from the store, but the questions asked: a restart loses no move): one object per race,
    dropped at its end."""

    deadline: float | None = None  # when the seat to act runs out of time
    deadline_known: bool = False
    frames: list[Frame[Any]] = field(default_factory=list)  # pictures due at the next post
    acted: set[int] = field(default_factory=set)  # seats that acted in the activation under way
    last_board: GameState | None = None  # the state the thread's last board showed
    silent: set[int] = field(default_factory=set)  # users away or quiet at the last action
    # costly decisions asked first (bot/table/confirm.py), by (seat, seq, option index)
    asked: dict[tuple[int, int, int], Action] = field(default_factory=dict)

    def take_frames(self) -> list[Frame[Any]]:
        """The pictures due, now to be shown."""
        frames, self.frames = self.frames, []
        return frames


class TableCore:
    def __init__(self, bot: PaddockBot) -> None:
        self.bot = bot
        self.presenters: dict[str, Presenter[Any]] = {}  # by rules kind
        # A lock lives while someone holds or waits for it: memory stays flat.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self.races: dict[int, Race] = {}
        self.fault: Callable[[str, int], None] = lambda point, seq: None  # tests stop the bot
        self._keeping: set[asyncio.Task[None]] = set()  # race logs being kept (below)

    @property
    def store(self) -> Store:
        return self.bot.store

    def clock(self) -> float:
        return self.bot.timers.clock()

    def lock(self, game_id: int) -> asyncio.Lock:
        """The race's lock: one action at a time is applied and shown."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def presenter(self, record: GameRecord) -> Presenter[Any]:
        return self.presenters[record.kind]

    def race(self, game_id: int) -> Race:
        return self.races.setdefault(game_id, Race())

    def keep_race_log(self, record: GameRecord) -> None:
        """A league race has just finished (stored and told): its log in words is replayed
        and kept for the league site's race page (store/race_logs.py), off the event loop,
        so that the site need not replay it at its first visit. A failure is a warning: the
        site replays a race it finds no log for."""
        if record.league_id is None or record.status != "finished":
            return
        task = asyncio.create_task(self._keep_race_log(record), name=f"race-log-{record.id}")
        self._keeping.add(task)
        task.add_done_callback(self._keeping.discard)

    async def _keep_race_log(self, record: GameRecord) -> None:
        from store.race_logs import replay_log
        from store.undo import standing

        try:
            record = await self.store.load_game(record.id)  # as stored: its final state
            if record.status != "finished" or record.state_json is None:
                return  # (taken back meanwhile)
            logged = await self.store.actions(record.id)
            actions = standing([a for a in logged if a.seq <= record.seq])
            state_json = record.state_json
            done = [(a.seq, a.actor, a.action_json) for a in actions]
            kept = await asyncio.to_thread(
                replay_log, record.kind, record.seed, record.config, state_json, done
            )
            await self.store.keep_race_log(record.id, record.seq, kept)
        except Exception as exc:  # the site replays it instead
            log.warning("game %s: its log for the league site was not kept: %r", record.id, exc)

    def forget(self, game_id: int) -> None:
        """A game is over: what this process kept in memory for it goes (memory stays flat
        with the number of finished games)."""
        self.races.pop(game_id, None)

    def seen(self, loaded: Loaded[Any]) -> Loaded[Any]:
        """`loaded` knowing what the thread's last board showed (a board draws each car's
        move since then; not known after a restart)."""
        race = self.races.get(loaded.id)
        return dataclasses.replace(loaded, last_board=race.last_board if race else None)

    # Loading ---------------------------------------------------------------------------

    async def load(self, game_id: int, *, record: GameRecord | None = None) -> Loaded[Any]:
        """The game row (with its snapshot) and its seats: one read each (`record`: the row
        just read for this click, then only the seats are read)."""
        if record is None or record.id != game_id:
            record = await self.store.load_game(game_id)
        seats = {s.seat: s for s in await self.store.seats(game_id)}
        game = get_game(record.kind)
        if record.state_json is None:
            raise PaddockError(f"This {self.presenter(record).noun} has not started yet.")
        state = game.load_state(record.state_json)
        return Loaded(record, game, state, seats, feed=Feed.model_validate(record.feed))

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

    # Deadlines -------------------------------------------------------------------------

    async def deadline(self, loaded: Loaded[Any]) -> float | None:
        """When the seat to act runs out of time (kept from the timers this process wrote;
        read from the database after a restart)."""
        race = self.race(loaded.id)
        if not race.deadline_known:
            area = self.presenter(loaded.record).area
            timers = await self.store.timers(loaded.id)
            due = [t.due_at for t in timers if t.event == f"{area}_timeout"]
            race.deadline, race.deadline_known = (due[0] if due else None), True
        return race.deadline

    def armed(self, game_id: int, timers: list[TimerSpec] | None) -> list[TimerSpec] | None:
        """Note the deadline among timers about to be stored (None: the old ones stay): the
        earliest, where drivers away or quiet have deadlines of their own."""
        if timers is not None:
            due = [t.due_at for t in timers if t.event.endswith("_timeout")]
            race = self.race(game_id)
            race.deadline, race.deadline_known = (min(due) if due else None), True
        return timers

    async def drivers(self, record: GameRecord, user_ids: list[int | None]) -> Drivers:
        """The availability of these drivers of `record` now (one read), and, if one of them
        is away, the away policy of its league (bot/availability.py)."""
        ids = sorted({u for u in user_ids if u is not None})
        if not ids:
            return EVERYONE_AVAILABLE
        now = self.clock()
        users = {u: of_settings(s) for u, s in (await self.store.users_settings(ids, now)).items()}
        policy = "wait"  # outside a league: deadlines wait (a Paddock rule)
        if record.league_id is not None and any(a.away(now) for a in users.values()):
            policy = (await self.store.league_by_id(record.league_id)).away_policy
        return Drivers(users, policy)

    async def waiting_drivers(self, loaded: Loaded[Any], state: GameState) -> Drivers:
        """The availability of the people to act in `state` (none read for a game without
        turn timers)."""
        presenter = self.presenter(loaded.record)
        if not presenter.turn_timers:
            return EVERYONE_AVAILABLE
        seats = [loaded.seats.get(s) for s in presenter.waiting_seats(state)]
        return await self.drivers(
            loaded.record, [s.user_id for s in seats if s is not None and not s.driven_by_robot]
        )

    # Who may do what -------------------------------------------------------------------

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
        self, interaction: discord.Interaction, presenter: Presenter[Any], game_id: int
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
            if host is None:  # a league round the bot opened: its admins manage it
                raise PaddockError(f"Only a league admin can {what}.")
            raise PaddockError(f"Only the host (<@{host}>) or a league admin can {what}.")

    def acting_seat(self, loaded: Loaded[Any], user_id: int) -> int:
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

    def decision(self, loaded: Loaded[Any], presenter: Presenter[Any], user_id: int) -> Decision:
        """This user's decision in the game as read: their seat (or the refusal that says
        who is to act), its legal actions and act token, each worked out once."""
        seat = self.acting_seat(loaded, user_id)
        return Decision(loaded, seat, loaded.options(seat), presenter.act_token(loaded, seat))

    @staticmethod
    def robot_drives(loaded: Loaded[Any], seat: int) -> bool:
        """A robot plays this seat: a robot car, a driver replaced or on autopilot, or a
        seat the table does not know (the engine's own robots)."""
        driver = loaded.seats.get(seat)
        return driver is None or driver.driven_by_robot
