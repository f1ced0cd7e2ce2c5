"""League rounds the bot opens itself (the season runner): at a round's start, its race's
lobby in the league's channel, its drivers pinged (the league's role, or each driver), the
sign-up open for the league's window; at the window's end the race starts with whoever
joined and robots fill the grid. A reminder goes out ahead of the start.

A round opens once: its timer is claimed by one process (store.claim_due_timer), and the
game is made in the transaction that marks the round opened (store `opens_round`), which
refuses a second. A process that dies between the two leaves a round with no timer and no
race: `catch_up` at start-up opens it. One that dies after the commit leaves a lobby never
posted: `catch_up` posts it.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.components import shown
from bot.errors import NotPosted
from bot.league_tables import round_title
from bot.limits import DAY, HOUR, MINUTE
from bot.race_settings import RaceSettings
from bot.table.core import MENTION_NONE
from rules.errors import PaddockError
from store.errors import NotFound, RoundOpened
from store.models import GameRecord, League, Round, Timer, TimerSpec

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.lobby import Lobby

log = logging.getLogger("paddock.rounds")

ROUND_OPEN = "league_round_open"  # a round's start: the bot opens its race
ROUND_REMINDER = "league_round_reminder"  # the drivers told ahead of it
SIGNUP = "paddock_signup"  # a round's sign-up closes: its race starts
ROUND_POST = "league_round_post"  # a round's lobby not posted (Discord failed): try again
POST_DELAYS = (60.0, 300.0, 1800.0)


def round_timers(league: League, rnd: Round, now: float) -> list[TimerSpec]:
    """A round's timers: its opening at its start and, if still ahead, its reminder."""
    if rnd.starts_at is None or rnd.status != "scheduled":
        return []
    payload = {"starts_at": rnd.starts_at}
    timers = [TimerSpec(event=ROUND_OPEN, due_at=rnd.starts_at, payload=payload)]
    hours = RaceSettings.of(league).reminder_hours
    remind_at = rnd.starts_at - hours * HOUR
    if hours and remind_at > now:
        timers.append(TimerSpec(event=ROUND_REMINDER, due_at=remind_at, payload=payload))
    return timers


def drivers_ping(league: League, user_ids: list[int]) -> tuple[str, discord.AllowedMentions]:
    """The mention that pings a league's drivers and nobody else: its role, or each one."""
    if league.role_id is not None:
        return f"<@&{league.role_id}>", discord.AllowedMentions(
            everyone=False, users=False, roles=[discord.Object(league.role_id)]
        )
    shown_ids = user_ids[:50]  # (a message holds 2,000 characters)
    return " ".join(f"<@{u}>" for u in shown_ids), discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(u) for u in shown_ids]
    )


def round_seed(rnd: Round) -> int:
    """A round's race's seed: fixed by the round and its start (stored with the game)."""
    digest = hashlib.sha256(f"round:{rnd.id}:{rnd.starts_at}".encode()).hexdigest()
    return int(digest[:12], 16)


class Rounds:
    def __init__(self, core: TableCore, lobby: Lobby) -> None:
        self.core = core
        self.lobby = lobby
        bot = core.bot
        bot.add_listener(self.on_open, f"on_{ROUND_OPEN}_timer_complete")
        bot.add_listener(self.on_reminder, f"on_{ROUND_REMINDER}_timer_complete")
        bot.add_listener(self.on_signup, f"on_{SIGNUP}_timer_complete")
        bot.add_listener(self.on_post, f"on_{ROUND_POST}_timer_complete")
        self._caught_up = False

    @property
    def store(self) -> Any:
        return self.core.store

    # Opening ---------------------------------------------------------------------------

    async def on_open(self, timer: Timer) -> None:
        if timer.round_id is None:
            return
        try:
            rnd = await self.store.round_by_id(timer.round_id)
        except NotFound:
            return  # removed meanwhile
        if rnd.starts_at != timer.payload.get("starts_at"):
            return  # rescheduled: its new timer opens it
        await self.open(rnd)

    async def open(self, rnd: Round) -> GameRecord | None:
        """Open the round's race (once: None if it was opened, has a result, or its season
        is closed, or the league has no channel to open it in)."""
        league = await self.store.league_by_id(rnd.league_id)
        presenter = self.core.presenters.get(league.game)
        if presenter is None or not league.is_open or rnd.status != "scheduled":
            return None
        if league.channel_id is None:
            log.warning("round %s of league %s: no channel to open it in", rnd.id, league.id)
            return None
        race = RaceSettings.of(league)
        now = self.core.clock()
        signup_closes = now + race.signup_minutes * MINUTE
        settings: dict[str, Any] = {
            "max_players": presenter.max_players,
            "turn_seconds": race.turn_seconds(rnd),
            "idle_days": race.idle_days,
            **presenter.league_round_settings(race.game, rnd),
            "host": None,
            "title": round_title((league, rnd)),
            "scheduled": True,
            "round_mode": race.mode_of(rnd),  # ("mode" is Pit Formula's own setting)
            "signup_closes": signup_closes,
        }
        if presenter.robots_offered:
            settings.update(robots=0, grid=race.grid)
        timers = [
            TimerSpec(event=SIGNUP, due_at=signup_closes),
            TimerSpec(
                event=f"{presenter.area}_idle", due_at=now + race.idle_days * DAY
            ),  # as any lobby
        ]
        self.core.fault("round-claimed", rnd.number)  # crash tests: its timer gone, no race
        try:
            record = await self.store.create_game(
                presenter.kind,
                round_seed(rnd),
                {},
                None,
                settings=settings,
                guild_id=league.guild_id,
                channel_id=league.channel_id,
                league_id=league.id,
                round_id=rnd.id,
                status="lobby",
                seats=[],
                timers=timers,
                opens_round=now,
            )
        except RoundOpened as exc:
            log.info("round %s: opened already (game %s)", rnd.id, exc.game_id)
            return None
        self.core.fault("round-opened", rnd.number)  # crash tests: the race stored, not posted
        self.core.bot.timers.poke()
        await self.post(record.id)
        return record

    async def post(self, game_id: int, attempt: int = 0) -> None:
        """Post a round's lobby the bot opened: the announcement pinging the drivers in the
        league's channel, its thread, the lobby in it (once: a lobby posted already is
        left alone)."""
        async with self.core.lock(game_id):
            record = await self.store.load_game(game_id)
            if record.status != "lobby" or record.status_message_id is not None:
                return
            try:
                await self._post(record)
            except (discord.HTTPException, NotPosted) as exc:
                log.warning("round lobby %s not posted: %s", game_id, exc)
                if attempt < len(POST_DELAYS):
                    due = self.core.clock() + POST_DELAYS[attempt]
                    await self.core.bot.timers.create(
                        ROUND_POST, due, {"attempt": attempt + 1}, game_id
                    )
                else:  # nobody could ever join it: not kept, so an admin may open another
                    await self.store.end_game(game_id, from_status=("lobby",))
                    log.warning("round lobby %s given up: its channel refuses the bot", game_id)

    async def on_post(self, timer: Timer) -> None:
        if timer.game_id is not None:
            await self.post(timer.game_id, int(timer.payload.get("attempt", 1)))

    async def _post(self, record: GameRecord) -> None:
        presenter = self.core.presenter(record)
        league = await self.store.league_by_id(record.league_id)
        members = await self.store.members(league.id, active_only=True)
        ping, allowed = drivers_ping(league, [m.user_id for m in members])
        assert record.channel_id is not None
        channel: Any = self.core.bot.get_channel(
            record.channel_id
        ) or await self.core.bot.fetch_channel(record.channel_id)
        title = shown(record.settings.get("title", presenter.title))
        closes = int(record.settings["signup_closes"])
        mode = " · 🏎️ live: short decisions" if record.settings.get("round_mode") == "live" else ""
        opened = (
            f"🏁 **{title}** - {presenter.noun} #{record.id}{mode}\n"
            + (f"{ping} sign-up" if ping else "Sign-up")
            + f" is open until <t:{closes}:t> (<t:{closes}:R>)"
        )
        seats = await self.store.seats(record.id)
        if not presenter.in_thread:  # a game played in the channel itself: the lobby there
            message = await channel.send(
                content=f"{opened}: press Join below.",
                embed=self.lobby.lobby_embed(record, seats),
                view=self.lobby.lobby_view(presenter, record),
                allowed_mentions=allowed,
            )
            await self.store.update_game(record.id, status_message_id=message.id)
            return
        if record.thread_id is None:
            announced = await channel.send(
                f"{opened}: join in the thread below.", allowed_mentions=allowed
            )
            name = f"{presenter.area.upper()} {presenter.noun} #{record.id}"
            thread = await announced.create_thread(name=name)
            await self.store.update_game(record.id, thread_id=thread.id)
        else:  # the thread was made before a failure: the lobby goes in it
            thread = self.core.bot.get_channel(
                record.thread_id
            ) or await self.core.bot.fetch_channel(record.thread_id)
        lobby = await thread.send(
            embed=self.lobby.lobby_embed(record, seats),
            view=self.lobby.lobby_view(presenter, record),
            allowed_mentions=MENTION_NONE,
        )
        await self.store.update_game(record.id, status_message_id=lobby.id)

    # Sign-up ---------------------------------------------------------------------------

    async def on_signup(self, timer: Timer) -> None:
        """The sign-up window closed: the race starts with whoever joined (robots filling
        the grid), or, with nobody, the round is not raced (an admin may open it by hand)."""
        if timer.game_id is None:
            return
        async with self.core.lock(timer.game_id):
            try:
                record = await self.store.load_game(timer.game_id)
            except NotFound:
                return
            if record.status != "lobby":
                return  # started when everyone joined, or cancelled
            if record.status_message_id is None:  # never shown (Discord refused it)
                await self.store.end_game(record.id, from_status=("lobby",))
                log.warning("round lobby %s closed unseen", record.id)
                return
            seats = await self.store.seats(record.id)
            try:
                await self.lobby.start_round(None, record, seats)
            except PaddockError as exc:
                await self._not_raced(record, seats, exc)

    async def _not_raced(self, record: GameRecord, seats: list[Any], exc: PaddockError) -> None:
        presenter = self.core.presenter(record)
        why = "nobody signed up" if not seats else f"it could not start: {exc.message}"
        # its thread archived after the league's grace, as a cancelled lobby's is
        timers = await self.lobby.endings.end_timers(record)
        await self.store.end_game(record.id, from_status=("lobby",), timers=timers)
        text = (
            f"🏁 Sign-up closed and {why}. This round is not raced for now: a league admin "
            f"can open it with `/{presenter.area} new` and its league and round."
        )
        try:
            channel = await self.core.channel_of(record)
            await channel.send(text, allowed_mentions=MENTION_NONE)
            if record.status_message_id is not None:
                ended = record.model_copy(update={"status": "abandoned"})
                await channel.get_partial_message(record.status_message_id).edit(
                    embed=self.lobby.lobby_embed(ended, seats), view=None
                )
        except (discord.HTTPException, NotPosted) as failed:
            log.warning("game %s: not-raced notice not posted: %s", record.id, failed)

    # Reminders -------------------------------------------------------------------------

    async def on_reminder(self, timer: Timer) -> None:
        if timer.round_id is None:
            return
        try:
            rnd = await self.store.round_by_id(timer.round_id)
            league = await self.store.league_by_id(rnd.league_id)
        except NotFound:
            return
        if (
            rnd.starts_at != timer.payload.get("starts_at")
            or rnd.opened_at is not None
            or rnd.status != "scheduled"
            or not league.is_open
            or league.channel_id is None
            or rnd.starts_at <= self.core.clock()  # late (the bot was down): it opens now
        ):
            return
        members = await self.store.members(league.id, active_only=True)
        ping, allowed = drivers_ping(league, [m.user_id for m in members])
        start = int(rnd.starts_at)
        live = (
            " It is a live round: short decisions, be there."
            if (RaceSettings.of(league).mode_of(rnd) == "live")
            else ""
        )
        text = (
            f"⏰ {ping + ' ' if ping else ''}{shown(round_title((league, rnd)))} "
            f"starts <t:{start}:R> "
            f"(<t:{start}:F>): sign-up opens then, in this channel.{live}"
        )
        try:
            channel: Any = self.core.bot.get_channel(
                league.channel_id
            ) or await self.core.bot.fetch_channel(league.channel_id)
            await channel.send(text, allowed_mentions=allowed)
        except discord.HTTPException as exc:
            log.warning("round %s: reminder not posted: %s", rnd.id, exc)

    # Start-up --------------------------------------------------------------------------

    async def catch_up(self) -> None:
        """At start-up, once: rounds whose start came while no process held their timer
        (it died holding it, or the bot was down) open now; lobbies opened but never posted
        are posted."""
        if self._caught_up:
            return
        self._caught_up = True
        shards = self.core.bot.timers.shards
        for record in await self.store.unposted_lobbies(shards=shards):
            if record.settings.get("scheduled") and record.kind in self.core.presenters:
                await self.post(record.id)
        for rnd in await self.store.rounds_to_open(self.core.clock(), ROUND_OPEN, shards=shards):
            try:
                await self.open(rnd)
            except Exception:  # one round must not stop the others
                log.exception("could not open round %s", rnd.id)
