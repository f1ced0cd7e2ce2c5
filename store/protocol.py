"""The store interface: what the bot, the table layer, `paddock verify`, the demo and the
bench may ask of a store, whichever database is under it.

Two implementations: `SqliteStore` (store.sqlite, the embedded default) and `PostgresStore`
(store.postgres, for a bot that runs as several processes). Both keep the same semantics:

- `append_action(s)` writes the log entries, the snapshot, the sequence check and whatever
  goes with the action (status, league result, timers) in one transaction; a writer that
  lost the race gets `StaleState(game_id, seq, state_json)` carrying the winner's state.
- Missing rows raise `NotFound`, refused league changes `LeagueError`, faults of the
  database (unreachable, locked past the timeout, disk full, read-only) `StoreUnavailable`
  naming the database in one line; nothing is changed in any of these cases.
- Each due timer is claimed (`claim_due_timer`, or `delete_timer` returning True) by exactly
  one caller, across processes too.

Backend-specific helpers (`transaction()`, the raw connection) are left out on purpose:
code that needs them is tied to one database and should say so by naming the class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from store.health import PING_TIMEOUT
from store.models import (
    ActionRecord,
    AwayUse,
    FinishedPlacing,
    GameRecord,
    League,
    Member,
    Once,
    ResultRecord,
    Round,
    SeasonSheet,
    Seat,
    Shards,
    SiteIndex,
    Timer,
    TimerSpec,
    UserSettings,
)
from store.undo import Mark

if TYPE_CHECKING:
    from store.race_logs import RaceLog

Placings = list[tuple[int, int | None, str]]  # (user or member id, place, status)


@runtime_checkable
class Store(Protocol):
    # Where the data is, for messages: a file path, or a URL without its password.
    path: str
    # True where other processes write the same database (PostgreSQL): timers they add are
    # not announced to this one, so a timer loop re-reads the table every few seconds.
    shared: bool

    # Life cycle ------------------------------------------------------------------------

    async def open(self, *, run_migrations: bool = True) -> list[str]:
        """Connect and apply pending migrations; return their names. All or nothing. With
        `run_migrations=False` (read-only use: verify), refuse a database that is behind."""
        ...

    async def migrate(self) -> list[str]: ...

    async def close(self) -> None:
        """Idempotent: a second close does nothing."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None: ...

    # Guild and user settings -----------------------------------------------------------

    async def admin_role(self, guild_id: int) -> int | None: ...

    async def set_admin_role(self, guild_id: int, role_id: int | None) -> None: ...

    async def dm_reminders(self, user_id: int) -> bool: ...

    async def set_dm_reminders(self, user_id: int, on: bool) -> None: ...

    # Availability (store.availability) ----------------------------------------------------

    async def user_settings(self, user_id: int, at: float) -> UserSettings:
        """A person's settings, with their away period under way at `at` (if any)."""
        ...

    async def users_settings(self, user_ids: list[int], at: float) -> dict[int, UserSettings]:
        """The settings of those of `user_ids` who have any, in one read."""
        ...

    async def set_user_settings(self, user_id: int, **fields: Any) -> None:
        """Some of: timezone, quiet_from, quiet_to, digest, digest_at, confirmations."""
        ...

    async def away_uses(self, user_id: int) -> list[AwayUse]:
        """The open league seasons the person drives in, and the away days used in each."""
        ...

    async def set_away(self, user_id: int, at: float, until: float | None) -> None:
        """Away until `until` (None: back at `at`); refused (`AwayRefused`, nothing changed)
        beyond a season's allowance."""
        ...

    async def set_league_away(self, league: League, days: int, policy: str) -> League: ...

    async def set_user_timer(self, event: str, user_id: int, due_at: float | None) -> None:
        """Replace the person's timer `event` of no game (None: remove it)."""
        ...

    # Leagues ---------------------------------------------------------------------------

    async def create_league(
        self,
        guild_id: int,
        name: str,
        game: str,
        points_table: str,
        points: list[int],
        created_by: int | None,
    ) -> League: ...

    async def league_by_id(self, league_id: int) -> League: ...

    async def get_league(self, guild_id: int, name: str, season: int | None = None) -> League: ...

    async def list_leagues(self, guild_id: int, *, latest_only: bool = True) -> list[League]: ...

    async def set_points_table(self, league: League, table: str, points: list[int]) -> League: ...

    async def close_season(self, league: League) -> League: ...

    async def set_robots_take_places(self, league: League, on: bool) -> League: ...

    async def set_archive_hours(self, league: League, hours: int) -> League: ...

    async def set_home(
        self, league: League, channel_id: int | None, role_id: int | None, timezone: str
    ) -> League:
        """The league's home: its channel, its drivers' role, its admins' time zone."""

    async def set_race_settings(self, league: League, settings: dict[str, Any]) -> League:
        """How the bot opens the league's rounds (bot/race_settings.py checks them)."""

    async def members(self, league_id: int, *, active_only: bool = False) -> list[Member]: ...

    async def member_by_user(self, league_id: int, user_id: int) -> Member | None: ...

    async def join_league(
        self, league: League, user_id: int, display_name: str, colour: str | None
    ) -> Member: ...

    async def leave_league(self, league: League, user_id: int) -> Member: ...

    async def rounds(self, league_id: int) -> list[Round]: ...

    async def get_round(self, league: League, number: int) -> Round: ...

    async def set_round(
        self,
        league: League,
        number: int,
        name: str,
        scheduled: str | None,
        starts_at: float | None = None,
        *,
        settings: dict[str, Any] | None = None,
        timers: list[TimerSpec] | None = None,
    ) -> Round:
        """Add or change a round; `timers` (its opening, its reminder) replace its own in the
        same transaction. Refuses a start within an hour of another round's (LeagueError)."""

    async def round_by_id(self, round_id: int) -> Round: ...

    async def set_round_event(self, round_id: int, event_id: int | None) -> None:
        """The round's Discord scheduled event (None: it has none)."""

    async def round_race(self, round_id: int) -> int | None:
        """The race on for a round (a lobby or running), if any."""

    async def rounds_to_open(
        self, now_at: float, event: str, *, shards: Shards | None = None
    ) -> list[Round]:
        """Rounds whose start has come with no race opened and no `event` timer left."""

    async def remove_round(self, league: League, number: int) -> Round: ...

    async def results(self, league_id: int) -> list[ResultRecord]: ...

    async def record_round(
        self,
        league: League,
        rnd: Round,
        placings: Placings,
        *,
        source: str = "manual",
        game_id: int | None = None,
    ) -> list[ResultRecord]: ...

    async def correct_result(
        self, league: League, rnd: Round, member: Member, place: int | None, status: str
    ) -> ResultRecord: ...

    async def record_game_results(self, game_id: int, placings: Placings) -> bool:
        """A finished league game's result for its round, exactly once (False if done)."""
        ...

    # Careers and ratings ---------------------------------------------------------------

    async def wrap_season(self, league_id: int) -> bool:
        """Claim the season's wrap-up: True for exactly one caller, once the season has a
        result and is closed or has its whole calendar raced."""
        ...

    async def unwrap_season(self, league_id: int) -> None:
        """Give the wrap-up's claim back: it could not be posted."""
        ...

    async def driver_leagues(self, guild_id: int, user_id: int) -> list[League]:
        """The league seasons on this server the user is or was a member of."""
        ...

    async def finished_placings(self, guild_id: int) -> list[FinishedPlacing]:
        """Every seat of every finished game here, games in the order they finished."""
        ...

    async def season_sheets(self, league_ids: Sequence[int]) -> dict[int, SeasonSheet]:
        """Each season's members, results and calendar, by league id (three queries)."""
        ...

    async def member_by_id(self, member_id: int) -> Member | None: ...

    async def finished_version(self, guild_id: int) -> tuple[int, int, str]:
        """What changes whenever `finished_placings` may (the site keeps ratings by it)."""
        ...

    # A finished race's log in words (store.race_logs) ----------------------------------

    async def keep_race_log(self, game_id: int, seq: int, log: RaceLog) -> None:
        """Keep a finished race's log, made at `seq` (a later one replaces it)."""
        ...

    async def race_log(self, game_id: int, seq: int) -> RaceLog | None:
        """The race's kept log if it was made at `seq` (None: none kept, or an older one)."""
        ...

    # The league site (store.sites) -----------------------------------------------------

    async def set_web(self, league: League, state: str) -> League:
        """`on`, `off` or `regenerate` (a new token: the old address stops working)."""
        ...

    async def league_by_web_token(self, token: str) -> League | None:
        """The league whose site is on at that token (None: wrong, off or missing alike)."""
        ...

    async def set_web_search(self, league: League, on: bool) -> League:
        """Whether search engines may index the league's pages (off: noindex)."""
        ...

    async def searchable_web_tokens(self) -> list[str]:
        """The addresses of public leagues that let search engines in (robots.txt's)."""
        ...

    async def site_index(self, guild_id: int) -> SiteIndex:
        """The server's index of its public leagues: its token and switch."""
        ...

    async def set_site_index(self, guild_id: int, state: str) -> SiteIndex:
        """`on`, `off` or `regenerate` the server's index (as a league's site)."""
        ...

    async def leagues_by_index_token(self, token: str) -> list[League]:
        """The public leagues the index at that token lists ([]: wrong, off or none alike)."""
        ...

    # Games -----------------------------------------------------------------------------

    async def create_game(
        self,
        kind: str,
        seed: int,
        config: dict[str, Any],
        state_json: str | None,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        league_id: int | None = None,
        round_id: int | None = None,
        seats: list[Seat] | None = None,
        status: str = "running",
        settings: dict[str, Any] | None = None,
        timers: list[TimerSpec] | None = None,
        once: Once | None = None,
        opens_round: float | None = None,
    ) -> GameRecord:
        """A game row; `opens_round`: marks its league round opened in the same transaction,
        or raises RoundOpened (a round opens once)."""

    async def start_game(
        self,
        game_id: int,
        config: dict[str, Any],
        state_json: str,
        seats: list[Seat],
        *,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> GameRecord: ...

    async def set_lobby(
        self, game_id: int, seats: list[Seat], settings: dict[str, Any]
    ) -> None: ...

    async def set_seats(self, game_id: int, seats: list[Seat]) -> None: ...

    async def seats(self, game_id: int) -> list[Seat]: ...

    async def update_seat(self, game_id: int, seat: int, **fields: Any) -> None: ...

    async def load_game(self, game_id: int) -> GameRecord: ...

    async def list_games(self, *, unfinished_only: bool = False) -> list[GameRecord]: ...

    async def games_of_user(self, guild_id: int, user_id: int) -> list[GameRecord]: ...

    async def unposted_lobbies(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """League rounds' lobbies stored but never posted (posted at start-up)."""

    async def running_games_of_user(self, user_id: int) -> list[GameRecord]: ...

    async def unpublished_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """Games whose last action has not reached Discord; with `shards`, only those of
        guilds on these shards (the games this process recovers at start-up)."""
        ...

    async def find_game(
        self, kind: str, *, channel_id: int | None = None, thread_id: int | None = None
    ) -> GameRecord | None:
        """The newest unfinished (lobby or running) game of this kind there."""
        ...

    async def latest_game(
        self, kind: str, *, channel_id: int | None = None, thread_id: int | None = None
    ) -> GameRecord | None:
        """The newest game of this kind there, whatever its status (finished, abandoned or
        a cancelled lobby too): a thread has one game, a channel the last of several."""
        ...

    async def update_game(self, game_id: int, **fields: Any) -> None: ...

    async def end_game(
        self,
        game_id: int,
        *,
        from_status: tuple[str, ...],
        timers: list[TimerSpec] | None = None,
    ) -> bool:
        """Abandon a game still in one of `from_status`: its status and its timers replaced
        by `timers` (those its end arms, e.g. archiving its thread), in one transaction."""
        ...

    async def append_action(
        self,
        game_id: int,
        expected_seq: int,
        actor: str,
        action_json: str,
        state_json: str,
        *,
        by_robot: bool = False,
        status: str | None = None,
        results: Placings | None = None,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int: ...

    async def append_actions(
        self,
        game_id: int,
        expected_seq: int,
        actions: list[tuple[str, str, bool]],
        state_json: str,
        *,
        status: str | None = None,
        results: Placings | None = None,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int: ...

    async def take_back(
        self,
        game_id: int,
        expected_seq: int,
        actor: str,
        mark: Mark,
        state_json: str,
        *,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int:
        """An undo or a rewind written as a log entry with the state it returns to
        (store/undo.py); None timers: those before the last append (an undo). `human_at`:
        when the person took it back (a race's idle days count from it)."""
        ...

    async def actions(self, game_id: int) -> list[ActionRecord]:
        """The whole log, marks included (store.undo.standing: the actions that stand)."""
        ...

    # Timers ----------------------------------------------------------------------------

    async def add_timer(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer: ...

    async def next_timer(self, *, shards: Shards | None = None) -> Timer | None:
        """The earliest timer; with `shards`, the earliest of those this process may claim."""
        ...

    async def claim_due_timer(self, now: float, *, shards: Shards | None = None) -> Timer | None:
        """Delete and return the earliest timer due at `now` (None: nothing is due). Of
        several processes claiming at once, each timer goes to exactly one. With `shards`,
        only a timer whose game's guild is on one of them (a timer of no guild: shard 0);
        the others wait for the process that runs their shard."""
        ...

    async def timers(self, game_id: int | None = None) -> list[Timer]: ...

    async def delete_timer(self, timer_id: int) -> bool:
        """True for the one caller that deleted it (a claim of that timer)."""
        ...

    async def replace_game_timers(self, game_id: int, timers: list[TimerSpec]) -> None: ...

    async def delete_game_timers(self, game_id: int) -> int: ...

    # Operators (store.health: bot/ops.py's /healthz and /metrics) --------------------------

    async def ping(self, timeout: float = PING_TIMEOUT) -> None:
        """One quick read, or StoreUnavailable naming why not (closed, unreachable, no
        answer within `timeout` seconds)."""
        ...

    async def games_active(self) -> dict[tuple[str, str], int]:
        """{(kind, status): count} of the games in lobby or running."""
        ...

    async def timers_due(self, now: float) -> int:
        """Timers due at `now` and not claimed yet, whatever their shard."""
        ...
