"""bot/availability.py, the pure rules of availability, on exact instants: quiet hours in a
driver's zone (over midnight, across both of Madrid's clock changes), a turn's deadline and
reminder when away (either policy) or quiet, a deadline due at fire time, the digest's next
hour, and what drivers type."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.availability import (
    Availability,
    Quiet,
    TurnClock,
    due_at_fire,
    next_daily,
    out_of_quiet,
    parse_clock,
    parse_until,
    quiet_window,
    silent,
    turn_clock,
    until_suggestions,
)
from rules.errors import PaddockError

HOUR = 3600.0
DAY = 86400.0
NIGHT = Quiet(start=23 * 60, end=7 * 60, zone="Europe/Madrid")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()


# Quiet hours -----------------------------------------------------------------------------


def test_quiet_hours_run_over_midnight_in_the_drivers_zone() -> None:
    # January: Madrid is UTC+1; 23:00 to 07:00 there is 22:00 to 06:00 UTC.
    night = (utc(2026, 1, 10, 22), utc(2026, 1, 11, 6))
    assert quiet_window(utc(2026, 1, 10, 22, 30), NIGHT) == night  # 23:30, before midnight
    assert quiet_window(utc(2026, 1, 11, 5, 59), NIGHT) == night  # 06:59, after it
    assert quiet_window(utc(2026, 1, 11, 6), NIGHT) is None  # 07:00: over
    assert quiet_window(utc(2026, 1, 10, 21, 59), NIGHT) is None  # 22:59: not yet
    assert out_of_quiet(utc(2026, 1, 11, 2), NIGHT) == utc(2026, 1, 11, 6)
    assert out_of_quiet(utc(2026, 1, 11, 12), NIGHT) == utc(2026, 1, 11, 12)
    day = Quiet(start=13 * 60, end=15 * 60, zone="America/New_York")  # UTC-5 in January
    assert quiet_window(utc(2026, 1, 10, 19), day) == (utc(2026, 1, 10, 18), utc(2026, 1, 10, 20))
    assert quiet_window(utc(2026, 1, 10, 3), None) is None


def test_quiet_hours_across_the_clock_changes() -> None:
    # 29 March 2026: Madrid goes from UTC+1 to UTC+2 at 02:00: the night is seven hours.
    spring = (utc(2026, 3, 28, 22), utc(2026, 3, 29, 5))
    assert quiet_window(utc(2026, 3, 29, 1, 30), NIGHT) == spring  # 03:30 CEST
    assert quiet_window(utc(2026, 3, 29, 5), NIGHT) is None  # 07:00 CEST
    # 25 October 2026: from UTC+2 back to UTC+1 at 03:00: nine hours.
    autumn = (utc(2026, 10, 24, 21), utc(2026, 10, 25, 6))
    assert quiet_window(utc(2026, 10, 25, 0, 30), NIGHT) == autumn  # 02:30 CEST
    assert quiet_window(utc(2026, 10, 25, 1, 30), NIGHT) == autumn  # 02:30 CET, again
    assert quiet_window(utc(2026, 10, 25, 5, 59), NIGHT) == autumn
    # A start the spring change skips (02:00) is taken an hour later: 03:00 CEST.
    skipped = Quiet(start=2 * 60, end=4 * 60, zone="Europe/Madrid")
    assert quiet_window(utc(2026, 3, 29, 1, 30), skipped) == (
        utc(2026, 3, 29, 1),
        utc(2026, 3, 29, 2),
    )
    # A time the autumn change repeats (02:30) is its first occurrence (CEST).
    repeated = Quiet(start=2 * 60 + 30, end=5 * 60, zone="Europe/Madrid")
    assert quiet_window(utc(2026, 10, 25, 0, 45), repeated) == (
        utc(2026, 10, 25, 0, 30),
        utc(2026, 10, 25, 4),
    )


# A turn's clock --------------------------------------------------------------------------

T = utc(2026, 1, 10, 14)  # 15:00 in Madrid


def test_a_turns_clock_with_nothing_set_is_the_time_limit() -> None:
    assert turn_clock(T, DAY, Availability()) == TurnClock(T + DAY, T + 0.75 * DAY)
    away_over = Availability(away_until=T)  # back already
    assert turn_clock(T, DAY, away_over, "robot") == TurnClock(T + DAY, T + 0.75 * DAY)


def test_away_the_clock_waits_or_the_robot_decides_at_once() -> None:
    away = Availability(away_until=T + 3 * DAY)
    assert turn_clock(T, DAY, away, "wait") == TurnClock(T + 4 * DAY, T + 3.75 * DAY)
    assert turn_clock(T, DAY, away, "robot") == TurnClock(T, None, away=True)
    assert silent(T, away) and not silent(T + 3 * DAY, away)


def test_quiet_hours_move_a_deadline_to_their_end_and_a_reminder_when_it_can() -> None:
    quiet = Availability(quiet=NIGHT)
    # 20 hours: the reminder (15 h, 06:00 local) waits for 07:00, before the 11:00 deadline.
    assert turn_clock(T, 20 * HOUR, quiet) == TurnClock(T + 20 * HOUR, utc(2026, 1, 11, 6))
    # 12 hours: the deadline (03:00 local) moves to 07:00; the reminder (00:00) would meet
    # it there, so it stays at its time, to be posted without the mention.
    clock = turn_clock(T, 12 * HOUR, quiet)
    assert clock == TurnClock(utc(2026, 1, 11, 6), T + 9 * HOUR)
    assert silent(T + 9 * HOUR, quiet)
    # Away and quiet: the clock starts at the end of the away period, then quiet applies.
    both = Availability(away_until=utc(2026, 1, 12, 20), quiet=NIGHT)  # back at 21:00 local
    assert turn_clock(T, 4 * HOUR, both) == TurnClock(utc(2026, 1, 13, 6), utc(2026, 1, 12, 23))


def test_a_deadline_due_at_fire_time_waits_for_an_away_or_quiet_driver() -> None:
    due = utc(2026, 1, 11, 2)  # 03:00 local
    assert due_at_fire(due, Availability()) == due
    assert due_at_fire(due, Availability(quiet=NIGHT)) == utc(2026, 1, 11, 6)
    away = Availability(away_until=due + DAY)
    assert due_at_fire(due, away, "wait") == due + DAY
    assert due_at_fire(due, away, "robot") == due  # the robot decides now


def test_the_digest_comes_daily_at_its_hour_in_the_drivers_zone() -> None:
    nine = 9 * 60
    assert next_daily(utc(2026, 3, 27, 20), nine, "Europe/Madrid") == utc(2026, 3, 28, 8)  # CET
    assert next_daily(utc(2026, 3, 28, 8), nine, "Europe/Madrid") == utc(2026, 3, 29, 7)  # CEST
    assert next_daily(utc(2026, 3, 28, 7), nine, "Europe/Madrid") == utc(2026, 3, 28, 8)
    late = Quiet(start=23 * 60, end=10 * 60, zone="Europe/Madrid")
    assert next_daily(utc(2026, 1, 10, 12), nine, "Europe/Madrid", late) == utc(2026, 1, 11, 9)


# What drivers type -----------------------------------------------------------------------


def test_times_and_dates_as_drivers_type_them() -> None:
    assert [parse_clock(t) for t in ("23:00", "7", "07.30", "0:05")] == [1380, 420, 450, 5]
    for bad in ("24:00", "7pm", "12:60", ""):
        with pytest.raises(PaddockError, match="HH:MM"):
            parse_clock(bad)
    now = T
    assert parse_until("2026-08-20", "Europe/Madrid", now) == utc(2026, 8, 19, 22)
    assert parse_until("2026-01-12 18:30", "UTC", now) == utc(2026, 1, 12, 18, 30)
    with pytest.raises(PaddockError, match="has passed"):
        parse_until("2026-01-10", "Europe/Madrid", now)
    with pytest.raises(PaddockError, match="not a date"):
        parse_until("2026-02-30", "UTC", now)
    with pytest.raises(PaddockError, match="at most 365 days"):
        parse_until("2027-03-01", "UTC", now)
    with pytest.raises(PaddockError, match="e.g. `2026-08-20`"):
        parse_until("next week", "UTC", now)
    offered = until_suggestions("", "Europe/Madrid", now)  # (2026: no 29 February)
    assert offered[:3] == ["off", "2026-01-11", "2026-01-12"] and len(offered) == 25
    assert until_suggestions("2026-02-2", "UTC", now) == [f"2026-02-2{d}" for d in range(9)]
