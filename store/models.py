"""Rows as small pydantic models."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict


class League(BaseModel):
    id: int
    guild_id: int
    name: str
    game: str
    season: int
    points_table: str
    points: list[int]
    status: str
    created_by: int | None
    created_at: str
    robots_take_places: bool = False
    archive_hours: int = 1  # a race's thread is archived this long after the race ends
    channel_id: int | None = None  # its home: where its races open and its news goes
    role_id: int | None = None  # the role /league join gives its drivers
    timezone: str = "UTC"  # the zone its admins write times in
    race_settings: dict[str, Any] = {}  # how the bot opens its rounds (bot/race_settings.py)
    away_days: int = 14  # away days a member may take in a season
    away_policy: str = "wait"  # while away: 'wait' (their clock waits) or 'robot' (decides)
    wrapped_at: str | None = None  # when its season's wrap-up was posted (once)
    web_token: str | None = None  # its site's address (store.sites); secret until shared
    web_on: bool = False  # its site is public
    web_search: bool = False  # search engines may index its pages (else noindex)

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    @property
    def label(self) -> str:
        return f"{self.name} (season {self.season})"


class SiteIndex(BaseModel):
    """A server's index of its public leagues on the site (store.sites)."""

    guild_id: int
    token: str | None = None  # its address's secret; None until the first public league
    on: bool = False


class Member(BaseModel):
    id: int
    league_id: int
    user_id: int
    display_name: str
    colour: str | None
    active: bool


class Round(BaseModel):
    id: int
    league_id: int
    number: int
    name: str
    scheduled: str | None
    status: str
    starts_at: float | None = None  # its start, an instant (epoch seconds)
    settings: dict[str, Any] = {}  # this round's overrides of the league's race settings
    opened_at: float | None = None  # when the bot opened its race (once)
    event_id: int | None = None  # its Discord scheduled event, if the bot made one


class ResultRecord(BaseModel):
    round_id: int
    round_number: int
    member_id: int
    place: int | None
    status: str
    source: str
    game_id: int | None


class SeasonSheet(BaseModel):
    """What a season's standings are worked out from: its members, its results (in the
    order `results` gives) and its calendar."""

    members: list[Member]
    results: list[ResultRecord]
    rounds: list[Round]


class UserSettings(BaseModel):
    """A person's own settings (every server): reminders by DM, their time zone, quiet hours
    (minutes after their midnight), the daily digest, whether a costly decision asks Confirm
    first (bot/table/confirm.py), and the away period under way."""

    user_id: int
    dm_reminders: bool = False
    timezone: str | None = None  # None: UTC
    quiet_from: int | None = None  # None: no quiet hours
    quiet_to: int | None = None
    digest: bool = False
    digest_at: int = 9 * 60  # minutes after midnight, in their zone
    confirmations: bool = True  # a decision that can't be undone asks Confirm first
    away_from: float | None = None  # the away period under way (epoch seconds), if any
    away_until: float | None = None


class AwayUse(BaseModel):
    """A league season a person drives in, and the away days they used in it."""

    league: League
    used: int


class FinishedPlacing(BaseModel):
    """One seat of a finished game and its place: what ratings are computed from."""

    game_id: int
    kind: str
    league_id: int | None
    seat: int
    user_id: int | None
    robot: bool
    place: int | None
    status: str


class Seat(BaseModel):
    seat: int
    user_id: int | None
    name: str
    robot: bool
    autopilot: bool = False  # a driver's own choice: the robot plays their turns for now

    @property
    def driven_by_robot(self) -> bool:
        return self.robot or self.autopilot


class GameRecord(BaseModel):
    id: int
    kind: str
    guild_id: int | None
    channel_id: int | None
    thread_id: int | None
    status_message_id: int | None
    league_id: int | None
    round_id: int | None
    seed: int
    config: dict[str, Any]
    settings: dict[str, Any] = {}
    status: str
    results_recorded: bool
    seq: int
    state_json: str | None
    published_seq: int | None = None
    prompt_message_id: int | None = None
    last_human_at: float | None = None
    # what the live prompt carries besides its question (bot/feed.py), as the bot left it
    feed: dict[str, Any] = {}

    @property
    def where_id(self) -> int | None:
        """The thread (or channel) the game is played in."""
        return self.thread_id or self.channel_id

    @classmethod
    def from_row(cls, row: Any) -> GameRecord:
        d = dict(row)
        d["config"] = json.loads(d.pop("config_json"))
        d["settings"] = json.loads(d.pop("settings_json", None) or "{}")
        d["feed"] = json.loads(d.pop("feed_json", None) or "{}")
        d["results_recorded"] = bool(d["results_recorded"])
        d["seq"] = d["seq"] if d.get("seq") is not None else 0
        return cls.model_validate(d)


class ActionRecord(BaseModel):
    game_id: int
    seq: int
    actor: str
    by_robot: bool
    action_json: str
    created_at: str


class Once(BaseModel):
    """A command that makes a game once: the same one (its options included) from the same
    user in the same channel within `window` seconds of `at` (a retry of a command already
    answered) makes none, and learns the game the first made (store.errors.Repeated)."""

    channel_id: int
    user_id: int
    command: str
    at: float
    window: float


class TimerSpec(BaseModel):
    """A timer to arm together with an action (in the same transaction)."""

    event: str
    due_at: float
    payload: dict[str, Any] = {}


class Timer(BaseModel):
    id: int
    event: str
    due_at: float
    game_id: int | None
    payload: dict[str, Any]
    round_id: int | None = None  # a league round's timer (its opening, its reminder)
    guild_id: int | None = None  # a timer of no game: the guild whose shard claims it


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends a guild's events to: (guild_id >> 22) % shard_count. Without
    a guild (a direct message, a game with no server) it is shard 0, as Discord does."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


class Shards(BaseModel):
    """The Discord shards one bot process runs: `ids` out of `count`. Timers of games on
    other shards are left to the process that runs them (store.claim_due_timer)."""

    model_config = ConfigDict(frozen=True)

    count: int
    ids: tuple[int, ...]

    def owns(self, guild_id: int | None) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    @property
    def everything(self) -> bool:
        """Every shard in this process: nothing to leave to another."""
        return set(self.ids) >= set(range(self.count))
