"""The store's availability: a person's settings (time zone, quiet hours, the daily digest),
their away periods and the league seasons each counts in, a league's away allowance and
policy, and the timer of no game a person's digest keeps (store.dialect: both databases).

An away period is counted, in whole days (a part day counts as one), in every open league
season its person is an active member of when they ask for it; a season allows its
`away_days`. Asking beyond it is refused (`AwayRefused`) and changes nothing.
"""

from __future__ import annotations

import json
import math
from typing import Any

from store.dialect import Reads, Row, Tx, now
from store.errors import LeagueError, shown
from store.leagues import LeagueStore
from store.models import AwayUse, League, UserSettings

DAY = 86400
UNDO = 3600.0  # an away period ended within this long of its start counts no day
POLICIES = ("wait", "robot")
_SETTINGS = ("timezone", "quiet_from", "quiet_to", "digest", "digest_at", "confirmations")
# The current away period of each person (its end still to come), beside their settings.
_USERS = (
    "SELECT u.*, a.starts_at AS away_from, a.ends_at AS away_until FROM user_settings u"
    " LEFT JOIN away_periods a ON a.user_id = u.user_id AND a.ends_at > ?"
)


def away_days(starts_at: float, ends_at: float) -> int:
    """The days an away period counts: whole days, a part day as one."""
    return max(0, math.ceil((ends_at - starts_at) / DAY))


class AwayRefused(LeagueError):
    """An away period longer than a league season still allows: nothing was changed."""

    def __init__(self, league: League, used: int, asked: int) -> None:
        left = max(0, league.away_days - used)
        super().__init__(
            f"That is {asked} away day{'s' * (asked != 1)}, but **{shown(league.label)}** "
            f"allows {league.away_days} a season and you have {left} left: choose an earlier "
            "date (nothing changed)."
        )
        self.league, self.used, self.asked = league, used, asked


class AvailabilityStore(LeagueStore):
    @staticmethod
    def _user(row: Row | None, user_id: int) -> UserSettings:
        if row is None:
            return UserSettings(user_id=user_id)
        d = dict(row)
        for flag in ("dm_reminders", "digest", "confirmations"):
            d[flag] = bool(d[flag])
        return UserSettings.model_validate(d)

    async def user_settings(self, user_id: int, at: float) -> UserSettings:
        """A person's settings, and their away period under way at `at` (if any)."""
        row = await self._one(f"{_USERS} WHERE u.user_id = ?", at, user_id)
        return self._user(row, user_id)

    async def users_settings(self, user_ids: list[int], at: float) -> dict[int, UserSettings]:
        """The settings of those of `user_ids` who have any (one read)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" * len(user_ids))
        rows = await self._all(f"{_USERS} WHERE u.user_id IN ({marks})", at, *user_ids)
        return {r["user_id"]: self._user(r, r["user_id"]) for r in rows}

    async def set_user_settings(self, user_id: int, **fields: Any) -> None:
        """Set some of a person's own settings (time zone, quiet hours, digest,
        confirmations)."""
        if not fields or set(fields) - set(_SETTINGS):
            raise ValueError(f"set_user_settings takes only {_SETTINGS}")
        cols = ", ".join(fields)
        marks = ", ".join("?" * len(fields))
        updates = ", ".join(f"{k} = excluded.{k}" for k in fields)
        values = [int(v) if isinstance(v, bool) else v for v in fields.values()]
        await self._statement(
            f"INSERT INTO user_settings (user_id, {cols}) VALUES (?, {marks})"
            f" ON CONFLICT (user_id) DO UPDATE SET {updates}",
            user_id,
            *values,
        )

    # Away ------------------------------------------------------------------------------

    async def _lock_user(self, tx: Tx, user_id: int) -> None:
        """The person's settings row, made if need be and locked (two away requests of one
        person, on PostgreSQL, one after the other)."""
        await tx.execute(
            "INSERT INTO user_settings (user_id) VALUES (?) ON CONFLICT DO NOTHING", user_id
        )
        if self.dialect.lock_row:
            await tx.execute(
                f"SELECT 1 FROM user_settings WHERE user_id = ?{self.dialect.lock_row}", user_id
            )

    async def _away_uses(
        self, db: Reads, user_id: int, *, leaving_out: int | None = None
    ) -> list[AwayUse]:
        """The open seasons `user_id` drives in, with the away days they used in each
        (`leaving_out`: a period not to count, the one being changed)."""
        rows = await db.fetch(
            "SELECT l.* FROM leagues l JOIN league_members m ON m.league_id = l.id"
            " WHERE m.user_id = ? AND m.active = 1 AND l.status = 'open' ORDER BY l.id",
            user_id,
        )
        uses = []
        for row in rows:
            league = self._league(row)
            periods = await db.fetch(
                "SELECT p.id, p.starts_at, p.ends_at FROM away_periods p JOIN away_charges c"
                " ON c.period_id = p.id WHERE c.league_id = ? AND p.user_id = ?",
                league.id,
                user_id,
            )
            used = sum(
                away_days(p["starts_at"], p["ends_at"]) for p in periods if p["id"] != leaving_out
            )
            uses.append(AwayUse(league=league, used=used))
        return uses

    async def away_uses(self, user_id: int) -> list[AwayUse]:
        """The open league seasons the person drives in and the away days used in each."""
        return await self._away_uses(self._reads, user_id)

    async def set_away(self, user_id: int, at: float, until: float | None) -> None:
        """Away from `at` (or since the period under way began) until `until`; None: back at
        `at` (a period ended within `UNDO` of its start is forgotten). Refused with
        `AwayRefused`, nothing changed, where a season it counts in would go over its
        allowance."""

        async def set_away(tx: Tx) -> None:
            await self._lock_user(tx, user_id)
            current = await tx.fetchrow(
                "SELECT id, starts_at FROM away_periods WHERE user_id = ? AND ends_at > ?"
                " ORDER BY starts_at DESC LIMIT 1",
                user_id,
                at,
            )
            if until is None:
                if current is None:
                    return
                if at - current["starts_at"] < UNDO:
                    await tx.execute("DELETE FROM away_charges WHERE period_id = ?", current["id"])
                    await tx.execute("DELETE FROM away_periods WHERE id = ?", current["id"])
                else:
                    await tx.execute(
                        "UPDATE away_periods SET ends_at = ? WHERE id = ?", at, current["id"]
                    )
                return
            start = current["starts_at"] if current is not None else at
            asked = away_days(start, until)
            uses = await self._away_uses(
                tx, user_id, leaving_out=current["id"] if current is not None else None
            )
            for use in uses:
                if use.used + asked > use.league.away_days:
                    raise AwayRefused(use.league, use.used, asked)
            if current is None:
                period = await tx.fetchval(
                    "INSERT INTO away_periods (user_id, starts_at, ends_at) VALUES (?, ?, ?)"
                    " RETURNING id",
                    user_id,
                    at,
                    until,
                )
            else:
                period = current["id"]
                await tx.execute("UPDATE away_periods SET ends_at = ? WHERE id = ?", until, period)
            await tx.executemany(
                "INSERT INTO away_charges (period_id, league_id) VALUES (?, ?)"
                " ON CONFLICT DO NOTHING",
                [(period, use.league.id) for use in uses],
            )

        await self._transact(set_away)

    async def set_league_away(self, league: League, days: int, policy: str) -> League:
        """A league season's away allowance (days) and policy ('wait' or 'robot')."""
        if policy not in POLICIES or not 0 <= days <= 365:
            raise ValueError(f"away: 0 to 365 days, policy one of {POLICIES}")
        return await self._set_league(
            league, "UPDATE leagues SET away_days = ?, away_policy = ? WHERE id = ?", days, policy
        )

    # The timer of no game each person's digest keeps -------------------------------------

    async def set_user_timer(self, event: str, user_id: int, due_at: float | None) -> None:
        """Replace `user_id`'s timer `event` (of no game; payload {"user": id}) by one due at
        `due_at` (None: none), in one transaction: one at most, whoever arms it."""
        payload = json.dumps({"user": user_id})

        async def replace(tx: Tx) -> None:
            await self._lock_user(tx, user_id)
            await tx.execute(
                "DELETE FROM timers WHERE event = ? AND game_id IS NULL AND payload_json = ?",
                event,
                payload,
            )
            if due_at is not None:
                await tx.execute(
                    "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
                    " VALUES (?, ?, NULL, ?, ?)",
                    event,
                    due_at,
                    payload,
                    now(),
                )

        await self._transact(replace)
