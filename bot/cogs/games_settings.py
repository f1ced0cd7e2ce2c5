"""A driver's own settings in `/games`: what they typed read (all of it first, so that a bad
value changes nothing) and their settings shown one line each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.availability import OFF, clock_text, parse_clock, parse_until
from bot.components import shown
from bot.presenter import timestamp
from bot.when import zone
from rules.errors import PaddockError
from store.models import AwayUse, UserSettings

POLICY = {"wait": "your deadlines wait", "robot": "the robot decides for you"}


@dataclass
class Asked:
    """The settings a `/games` asks to change."""

    away: float | None = None  # None: not asked; 0: back now; else the end of the away
    fields: dict[str, Any] = field(default_factory=dict)  # UserSettings columns to set
    timing: bool = False  # quiet hours or time zone: the deadlines are worked out again

    @property
    def any(self) -> bool:
        return self.away is not None or bool(self.fields)


def _off(text: str) -> bool:
    return text.strip().lower() in OFF


def settings_asked(
    mine: UserSettings,
    now: float,
    *,
    away: str | None,
    quiet_from: str | None,
    quiet_to: str | None,
    timezone: str | None,
    digest: str | None,
    digest_at: str | None,
    confirm: str | None = None,
) -> Asked:
    """What was typed, checked: a PaddockError (one line, nothing changed) for a bad value."""
    asked = Asked()
    zone_name = mine.timezone or "UTC"
    if timezone is not None:
        zone_name = zone(timezone).key
        asked.fields["timezone"] = zone_name
        asked.timing = True
    if away is not None:
        asked.away = 0.0 if _off(away) else parse_until(away, zone_name, now)
    if quiet_from is not None and _off(quiet_from):
        asked.fields.update(quiet_from=None, quiet_to=None)
        asked.timing = True
    elif quiet_from is not None or quiet_to is not None:
        if quiet_from is None or quiet_to is None:
            raise PaddockError(
                "Give both `quiet_from` and `quiet_to` (e.g. 23:00 and 07:00), "
                "or `quiet_from:off` for none."
            )
        start, end = parse_clock(quiet_from), parse_clock(quiet_to)
        if start == end:
            raise PaddockError("Quiet hours need two different times, e.g. 23:00 to 07:00.")
        asked.fields.update(quiet_from=start, quiet_to=end)
        asked.timing = True
    if digest is not None:
        asked.fields["digest"] = digest == "on"
    if digest_at is not None:
        asked.fields["digest_at"] = parse_clock(digest_at)
    if confirm is not None:
        asked.fields["confirmations"] = confirm == "on"
    return asked


def settings_lines(mine: UserSettings, uses: list[AwayUse], now: float) -> list[str]:
    """The driver's settings, one line each."""
    if mine.away_until is not None and mine.away_until > now:
        away = f"Away: until {timestamp(mine.away_until, 'F')}"
    else:
        away = "Away: no"
    days = [
        f"{shown(u.league.label)} {u.used} of {u.league.away_days} days used "
        f"({POLICY.get(u.league.away_policy, u.league.away_policy)})"
        for u in uses
    ]
    quiet = (
        f"{clock_text(mine.quiet_from)} to {clock_text(mine.quiet_to)}"
        if mine.quiet_from is not None and mine.quiet_to is not None
        else "none"
    )
    digest = f"on, at {clock_text(mine.digest_at)}" if mine.digest else "off"
    return [
        f"Reminders by direct message: {'on' if mine.dm_reminders else 'off'}",
        away + (f" · {'; '.join(days)}" if days else ""),
        f"Quiet hours: {quiet}",
        f"Daily digest: {digest}",
        f"Time zone: {mine.timezone or 'UTC'}",
        "Confirm before a decision that can't be undone: "
        + ("on" if mine.confirmations else "off (played at once)"),
    ]
