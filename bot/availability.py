"""A driver's availability, as times: away periods, quiet hours in their own time zone, the
daily digest's hour, and what they do to a turn's clock. Pure: instants (epoch seconds) in,
instants out, no clock read here (callers pass `now`), so each rule is tested on exact times.

The rules (Paddock rules; docs/play/leagues.md and docs/rules/championship.md say them):

- **Away**, policy `wait` (a league's default, and every game outside a league): the turn's
  clock starts when the away period ends (deadline = its end + the turn's time).
- **Away**, policy `robot`: the robot decides for them at once (deadline = now).
- **Quiet hours**: a deadline that would fall inside them moves to their end. A reminder that
  would fall inside them is sent at their end if that is still before the deadline; else it
  goes at its time with the mention left out (and no DM). Nobody is pinged while quiet.
- **Digest**: daily at their hour, in their zone; one inside quiet hours waits for their end.

Wall-clock times a clock change skips are taken as the same time an hour later (23:00 to
07:00 on a night the clocks go forward ends at 07:00 all the same); a time a clock change
repeats is its first occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.limits import DAY
from bot.when import zone
from rules.errors import PaddockError
from store.models import UserSettings

REMINDER_SHARE = 0.75  # bot.presenter.REMINDER_AT: share of the time limit before a reminder
MAX_AWAY_DAYS = 365
_CLOCK = re.compile(r"^\s*(\d{1,2})(?:[:h.](\d{2}))?\s*$", re.I)
_DATE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]+(\d{1,2})[:h.](\d{2}))?\s*$")
OFF = ("off", "back", "none", "no")


@dataclass(frozen=True)
class Quiet:
    """Quiet hours: from `start` to `end` (minutes after midnight) in `zone`, every day;
    `start` > `end` runs over midnight (23:00 to 07:00)."""

    start: int
    end: int
    zone: str


@dataclass(frozen=True)
class Availability:
    away_until: float | None = None  # the end of the away period under way
    quiet: Quiet | None = None

    def away(self, at: float) -> bool:
        return self.away_until is not None and at < self.away_until


NOBODY_AWAY = Availability()


def of_settings(settings: UserSettings | None) -> Availability:
    """A person's availability as their stored settings say (their away period under way
    at the time they were read)."""
    if settings is None:
        return NOBODY_AWAY
    quiet = None
    if settings.quiet_from is not None and settings.quiet_to is not None:
        quiet = Quiet(settings.quiet_from, settings.quiet_to, settings.timezone or "UTC")
    return Availability(away_until=settings.away_until, quiet=quiet)


@dataclass(frozen=True)
class Drivers:
    """The availability of some of a game's drivers (by user id), and its league's away
    policy ('wait' outside a league)."""

    users: dict[int, Availability]
    policy: str = "wait"

    def of(self, user_id: int | None) -> Availability:
        return self.users.get(user_id, NOBODY_AWAY) if user_id is not None else NOBODY_AWAY

    def silent(self, at: float) -> set[int]:
        """Those not to be pinged at `at` (away, or in their quiet hours)."""
        return {u for u, a in self.users.items() if silent(at, a)}


EVERYONE_AVAILABLE = Drivers({})


@dataclass(frozen=True)
class TurnClock:
    deadline: float
    reminder: float | None  # None: none (the robot decides at once)
    away: bool = False  # the robot decides at once: away, and the league says so


def _local(day: date, minute: int, tz: ZoneInfo) -> float:
    """The instant of `minute` after midnight on `day` in `tz` (skipped: an hour later;
    repeated: the first)."""
    wall = datetime.combine(day, time(minute // 60, minute % 60), tzinfo=tz)
    return wall.astimezone(UTC).timestamp()


def quiet_window(at: float, quiet: Quiet | None) -> tuple[float, float] | None:
    """The quiet hours `at` falls in, as (start, end) instants (start ≤ at < end), or None."""
    if quiet is None or quiet.start == quiet.end:
        return None
    tz = zone(quiet.zone)
    today = datetime.fromtimestamp(at, tz).date()
    for back in (1, 0):  # the window that began yesterday (over midnight), then today's
        day = today - timedelta(days=back)
        start = _local(day, quiet.start, tz)
        end_day = day + timedelta(days=1) if quiet.end <= quiet.start else day
        end = _local(end_day, quiet.end, tz)
        if start <= at < end:
            return start, end
    return None


def out_of_quiet(at: float, quiet: Quiet | None) -> float:
    """`at`, or the end of the quiet hours it falls in."""
    window = quiet_window(at, quiet)
    return window[1] if window else at


def silent(at: float, avail: Availability) -> bool:
    """Not to be pinged at `at`: away, or in their quiet hours."""
    return avail.away(at) or quiet_window(at, avail.quiet) is not None


def turn_clock(
    now: float,
    limit: float,
    avail: Availability,
    policy: str = "wait",
    *,
    share: float = REMINDER_SHARE,
) -> TurnClock:
    """The deadline and reminder of a turn given at `now` with `limit` seconds to decide, for
    a driver of this availability, under the away `policy` of its league ('wait' outside a
    league)."""
    if avail.away(now) and policy == "robot":
        return TurnClock(deadline=now, reminder=None, away=True)
    start = avail.away_until if avail.away(now) and avail.away_until is not None else now
    deadline = out_of_quiet(start + limit, avail.quiet)
    reminder = start + limit * share
    moved = out_of_quiet(reminder, avail.quiet)
    if moved < deadline:  # (else: at its time, the mention left out: `silent`)
        reminder = moved
    return TurnClock(deadline=deadline, reminder=reminder)


def due_at_fire(at: float, avail: Availability, policy: str = "wait") -> float:
    """When a deadline armed for `at` may take effect for this driver now that it is due
    (they may have gone away or quiet since it was armed): `at`, or the end of their away
    period (policy 'wait') or of their quiet hours."""
    if avail.away(at) and policy == "wait" and avail.away_until is not None:
        at = avail.away_until
    return out_of_quiet(at, avail.quiet)


def next_daily(after: float, minute: int, tz_name: str, quiet: Quiet | None = None) -> float:
    """The first instant after `after` that is `minute` after midnight in `tz_name` (the
    digest's hour), or the end of the quiet hours it falls in."""
    tz = zone(tz_name)
    day = datetime.fromtimestamp(after, tz).date()
    at = _local(day, minute, tz)
    while at <= after:
        day += timedelta(days=1)
        at = _local(day, minute, tz)
    return out_of_quiet(at, quiet)


# What drivers type ------------------------------------------------------------------------


def parse_clock(text: str) -> int:
    """`23:00`, `7`, `07.30` as minutes after midnight."""
    match = _CLOCK.match(text)
    if match is None or int(match.group(1)) > 23 or int(match.group(2) or 0) > 59:
        raise PaddockError(f"Write a time of day as HH:MM, e.g. 23:00 (not `{text.strip()[:20]}`).")
    return int(match.group(1)) * 60 + int(match.group(2) or 0)


def clock_text(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def parse_until(text: str, tz_name: str, now: float) -> float:
    """The end of an away period: a date (the day you are back: away until its midnight in
    your zone) or a date and time, still to come and within `MAX_AWAY_DAYS`."""
    match = _DATE.match(text)
    if match is None:
        raise PaddockError(
            "Write the day you are back as a date, e.g. `2026-08-20` (or `off` if you are back)."
        )
    year, month, day = (int(g) for g in match.groups()[:3])
    hour, minute = (int(match.group(4)), int(match.group(5))) if match.group(4) else (0, 0)
    tz = zone(tz_name)
    try:
        if hour > 23 or minute > 59:
            raise ValueError
        until = _local(date(year, month, day), hour * 60 + minute, tz)
    except ValueError:
        raise PaddockError(
            f"{text.strip()[:20]} is not a date: write it as e.g. `2026-08-20`."
        ) from None
    if until <= now:
        raise PaddockError(f"{text.strip()[:20]} has passed: give the day you will be back.")
    if until - now > MAX_AWAY_DAYS * DAY:
        raise PaddockError(f"Away is at most {MAX_AWAY_DAYS} days: give an earlier date.")
    return until


def until_suggestions(typed: str, tz_name: str, now: float, limit: int = 25) -> list[str]:
    """What the `away` option offers: `off`, then the coming days (as dates) that start with
    what was typed."""
    tz = zone(tz_name)
    today = datetime.fromtimestamp(now, tz).date()
    days = [f"{today + timedelta(days=n):%Y-%m-%d}" for n in range(1, 61)]
    text = typed.strip().lower()
    offered = [o for o in ["off", *days] if o.startswith(text)]
    return offered[:limit]
