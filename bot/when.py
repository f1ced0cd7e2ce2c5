"""Dates and times as league admins type them: `2026-12-12 20:00 Europe/Madrid`.

A round's start is typed once, in the admin's words, and shown to everyone as a Discord
timestamp (`<t:...:F>`), which each reader's app shows in their own time zone.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta
from functools import cache

from bot.errors import PaddockError

EXAMPLE = "2026-12-12 20:00 Europe/Madrid"
_FORMAT = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})[ T]+(\d{1,2})[:h.](\d{2})(?:\s+(\S+))?\s*$", re.I
)


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA time zone name this machine knows, sorted (tzdata on any machine)."""
    return tuple(sorted(zoneinfo.available_timezones()))


def zone_matches(typed: str, most: int = 25) -> list[str]:
    """Time zone names holding what is typed, those starting with it first (autocomplete)."""
    typed = typed.strip().lower()
    names = [z for z in zone_names() if typed in z.lower()]
    names.sort(key=lambda z: (not z.lower().startswith(typed), z))
    return names[:most]


def zone(name: str) -> zoneinfo.ZoneInfo:
    """The time zone `name` (any case), or a PaddockError saying how to write one."""
    wanted = name.strip()
    if wanted.upper() in ("UTC", "Z", "GMT"):
        return zoneinfo.ZoneInfo("UTC")
    exact = {z.lower(): z for z in zone_names()}.get(wanted.lower())
    if exact is None:
        raise PaddockError(
            f"I don't know the time zone `{wanted[:40]}`: write it as Region/City, "
            "e.g. Europe/Madrid or America/New_York (start typing for suggestions)."
        )
    return zoneinfo.ZoneInfo(exact)


def parse_start(text: str, *, default_zone: str, now: float) -> tuple[float, str]:
    """The instant `text` names (epoch seconds) and the zone it was written in. The zone may
    be left out (`default_zone`, the league's). A time that does not exist in the zone (a
    clock change skips it) or that has passed is refused: nothing can start in the past."""
    match = _FORMAT.match(text)
    if match is None:
        raise PaddockError(
            f"Write the start as date, time and time zone, e.g. `{EXAMPLE}` "
            "(the zone may be left out for the league's own)."
        )
    year, month, day, hour, minute = (int(g) for g in match.groups()[:5])
    tz = zone(match.group(6) or default_zone)
    try:
        local = datetime(year, month, day, hour, minute, tzinfo=tz)
    except ValueError:
        raise PaddockError(
            f"{year}-{month:02d}-{day:02d} {hour:02d}:{minute:02d} is not a date and time: "
            f"write it as e.g. `{EXAMPLE}`."
        ) from None
    # A wall-clock time skipped by a clock change comes back changed from a UTC round trip.
    back = local.astimezone(UTC).astimezone(tz)
    if (back.hour, back.minute) != (hour, minute):
        raise PaddockError(
            f"{hour:02d}:{minute:02d} does not exist on {year}-{month:02d}-{day:02d} in "
            f"{tz.key} (the clocks change then): choose another time."
        )
    at = local.timestamp()
    if at <= now:
        raise PaddockError(
            f"{local:%Y-%m-%d %H:%M} {tz.key} has passed ({timestamp(at, 'R')}): "
            "choose a time still to come."
        )
    return at, tz.key


def timestamp(at: float, style: str = "F") -> str:
    """A Discord timestamp: every reader sees it in their own time zone (F: full date and
    time, R: relative, e.g. "in 3 days")."""
    return f"<t:{int(at)}:{style}>"


def local_text(at: float, zone_name: str) -> str:
    """`at` as an admin would type it back, in `zone_name` (autocomplete, logs, files)."""
    return f"{datetime.fromtimestamp(at, zone(zone_name)):%Y-%m-%d %H:%M} {zone(zone_name).key}"


def suggestions(typed: str, *, default_zone: str, now: float, limit: int = 10) -> list[str]:
    """What autocomplete offers for a start: with a zone being typed, the matching zones
    after the typed date and time; otherwise the coming Saturdays at 20:00 in the league's
    zone, then the typed text as it is."""
    text = typed.strip()
    match = re.match(r"^(\d{4}-\d{1,2}-\d{1,2}[ T]+\d{1,2}[:h.]\d{2})\s+(\S*)$", text)
    if match is not None:
        head, part = match.groups()
        names = [z for z in zone_names() if part.lower() in z.lower()]
        names.sort(key=lambda z: (not z.lower().startswith(part.lower()), z))
        return [f"{head} {z}" for z in names[:limit]]
    tz = zone(default_zone)
    today = datetime.fromtimestamp(now, tz)
    out: list[str] = []
    day = today
    while len(out) < limit - 1:
        day += timedelta(days=1)
        if day.weekday() == 5:  # Saturday: the usual race night
            out.append(f"{day:%Y-%m-%d} 20:00 {tz.key}")
            day += timedelta(days=6)
    prefix = [s for s in out if s.startswith(text)] if text else out
    return ([text] if text and text not in prefix else []) + prefix[: limit - 1]
