"""The store's leagues: guild settings, leagues and seasons, members, the calendar and
round results, on either database (store.dialect).

A method that reads, checks and then writes (is the colour free? does the round have
results?) must not interleave with another. SQLite lets one writer in at a time; on
PostgreSQL each such transaction first locks the league's row (`_lock_league`), or, for a
new league or season, takes an advisory lock on the name.
"""

from __future__ import annotations

import json
from typing import Any

from rules.championship import places_among_members
from store.dialect import Backend, Reads, Row, Tx, now, shard_filter
from store.errors import LeagueError, NotFound, RoundOpened, in_code, shown
from store.models import League, Member, ResultRecord, Round, Shards, TimerSpec
from store.protocol import Placings

# A season's results (its rounds' league_id with each), and their order: by round, then
# place; member_id last: ties (drivers without a place) in one order on both databases.
RESULTS = (
    "SELECT lr.league_id, r.round_id, lr.number AS round_number, r.member_id, r.place,"
    " r.status, r.source, r.game_id FROM round_results r"
    " JOIN league_rounds lr ON lr.id = r.round_id"
)
RESULTS_ORDER = "ORDER BY lr.number, r.place IS NULL, r.place, r.member_id"

# Rounds of a league start at least this many seconds apart (a Paddock rule: one race
# night's rounds do not open on top of each other).
ROUND_GAP = 3600.0


class LeagueStore(Backend):
    # Guild settings --------------------------------------------------------------------

    async def admin_role(self, guild_id: int) -> int | None:
        row = await self._one(
            "SELECT admin_role_id FROM guild_settings WHERE guild_id = ?", guild_id
        )
        return row["admin_role_id"] if row else None

    async def set_admin_role(self, guild_id: int, role_id: int | None) -> None:
        await self._statement(
            "INSERT INTO guild_settings (guild_id, admin_role_id) VALUES (?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET admin_role_id = excluded.admin_role_id",
            guild_id,
            role_id,
        )

    # Locks -----------------------------------------------------------------------------

    async def _lock_league(self, tx: Tx, league_id: int) -> None:
        if self.dialect.lock_row:  # (SQLite: the transaction is the lock)
            await tx.execute(
                f"SELECT 1 FROM leagues WHERE id = ?{self.dialect.lock_row}", league_id
            )

    # Leagues ---------------------------------------------------------------------------

    @staticmethod
    def _league(row: Row) -> League:
        d = dict(row)
        d["points"] = json.loads(d.pop("points_json"))
        d["race_settings"] = json.loads(d.get("race_settings") or "{}")
        d.pop("closed_at", None)
        return League.model_validate(d)

    async def create_league(
        self,
        guild_id: int,
        name: str,
        game: str,
        points_table: str,
        points: list[int],
        created_by: int | None,
    ) -> League:
        """A new league, or the next season of a league whose last season is closed.

        A new season keeps the previous season's active members (and their colours).
        """
        name = " ".join(name.split())
        if not 1 <= len(name) <= 50:
            raise LeagueError("A league name has 1 to 50 characters.")
        d = self.dialect
        name_lock = d.name_lock(
            "'paddock-league:' || CAST(? AS TEXT) || ':' || " + d.fold("CAST(? AS TEXT)")
        )

        async def create(tx: Tx) -> int:
            if name_lock is not None:
                # Two processes creating the same name: the second waits, then sees the first.
                await tx.execute(name_lock, str(guild_id), name)
            prev = await self._latest_league(guild_id, name, db=tx)
            if prev is not None and prev.is_open:
                raise LeagueError(
                    f"This server already has a league called **{shown(prev.name)}** "
                    f"(season {prev.season} is open). Pick another name, or close that season "
                    "first with `/league-admin close-season`."
                )
            if prev is not None and prev.game != game:
                raise LeagueError(
                    f"**{shown(prev.name)}** is a league of another game; a new season keeps its "
                    "game. "
                    "Pick another name for a league of this game."
                )
            season = prev.season + 1 if prev else 1
            league_id: int = await tx.fetchval(
                "INSERT INTO leagues (guild_id, name, game, season, points_table, points_json,"
                " status, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)"
                " RETURNING id",
                guild_id,
                name,
                game,
                season,
                points_table,
                json.dumps(points),
                created_by,
                now(),
            )
            if prev is not None:
                # ORDER BY user_id: the same new ids on both databases.
                await tx.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) SELECT CAST(? AS BIGINT), user_id, display_name,"
                    " colour, 1, CAST(? AS TEXT) FROM league_members WHERE league_id = ?"
                    " AND active = 1 ORDER BY user_id",
                    league_id,
                    now(),
                    prev.id,
                )
                # ... its home (the channel, the drivers' role, the time zone), its race
                # settings, its away allowance and policy, and its site's address (moved:
                # the token is unique, and names the latest season; store.sites).
                await tx.execute(
                    "UPDATE leagues SET web_token = NULL, web_on = 0, web_search = 0 WHERE id = ?",
                    prev.id,
                )
                await tx.execute(
                    "UPDATE leagues SET channel_id = ?, role_id = ?, timezone = ?,"
                    " race_settings = ?, away_days = ?, away_policy = ?, web_token = ?,"
                    " web_on = ?, web_search = ? WHERE id = ?",
                    prev.channel_id,
                    prev.role_id,
                    prev.timezone,
                    json.dumps(prev.race_settings),
                    prev.away_days,
                    prev.away_policy,
                    prev.web_token,
                    int(prev.web_on),
                    int(prev.web_search),
                    league_id,
                )
            return league_id

        return await self.league_by_id(await self._transact(create))

    async def _latest_league(
        self, guild_id: int, name: str, *, db: Reads | None = None
    ) -> League | None:
        row = await (db or self._reads).fetchrow(
            f"SELECT * FROM leagues WHERE guild_id = ? AND {self.dialect.same_text('name')}"
            " ORDER BY season DESC LIMIT 1",
            guild_id,
            " ".join(name.split()),
        )
        return self._league(row) if row else None

    async def league_by_id(self, league_id: int, *, db: Reads | None = None) -> League:
        row = await (db or self._reads).fetchrow("SELECT * FROM leagues WHERE id = ?", league_id)
        if row is None:
            raise NotFound("That league no longer exists.")
        return self._league(row)

    async def get_league(self, guild_id: int, name: str, season: int | None = None) -> League:
        """The league of that name here (its latest season unless one is given)."""
        if season is None:
            league = await self._latest_league(guild_id, name)
        else:
            row = await self._one(
                f"SELECT * FROM leagues WHERE guild_id = ? AND {self.dialect.same_text('name')}"
                " AND season = ?",
                guild_id,
                " ".join(name.split()),
                season,
            )
            league = self._league(row) if row else None
        if league is None:
            which = f" season {season}" if season is not None else ""
            raise NotFound(
                f"There is no league called **{shown(name)}**{which} on this server. "
                "`/league list` shows the leagues here."
            )
        return league

    async def list_leagues(self, guild_id: int, *, latest_only: bool = True) -> list[League]:
        rows = await self._all(
            "SELECT * FROM leagues WHERE guild_id = ?"
            f" ORDER BY {self.dialect.fold('name')}, season DESC",
            guild_id,
        )
        leagues = [self._league(r) for r in rows]
        if latest_only:
            seen: set[str] = set()
            out = []
            for lg in leagues:
                if lg.name.casefold() not in seen:
                    seen.add(lg.name.casefold())
                    out.append(lg)
            return out
        return leagues

    @staticmethod
    def _require_open(league: League) -> None:
        if not league.is_open:
            raise LeagueError(
                f"Season {league.season} of **{shown(league.name)}** is closed. An admin can start "
                f"the next season with `/league create name:{in_code(league.name)}`."
            )

    async def _set_league(self, league: League, sql: str, *args: Any) -> League:
        """One change to an open league (`sql` ends with `WHERE id = ?`), read back."""
        self._require_open(league)
        await self._statement(sql, *args, league.id)
        return await self.league_by_id(league.id)

    async def set_points_table(self, league: League, table: str, points: list[int]) -> League:
        return await self._set_league(
            league,
            "UPDATE leagues SET points_table = ?, points_json = ? WHERE id = ?",
            table,
            json.dumps(points),
        )

    async def close_season(self, league: League) -> League:
        self._require_open(league)

        async def close(tx: Tx) -> None:
            # its rounds open no race now: their timers go with the season
            await tx.execute(
                "DELETE FROM timers WHERE round_id IN"
                " (SELECT id FROM league_rounds WHERE league_id = ?)",
                league.id,
            )
            await tx.execute(
                "UPDATE leagues SET status = 'closed', closed_at = ? WHERE id = ?", now(), league.id
            )

        await self._transact(close)
        return await self.league_by_id(league.id)

    async def set_race_settings(self, league: League, settings: dict[str, Any]) -> League:
        """How the bot opens the league's rounds (checked by the bot: bot/race_settings.py)."""
        return await self._set_league(
            league, "UPDATE leagues SET race_settings = ? WHERE id = ?", json.dumps(settings)
        )

    async def set_robots_take_places(self, league: League, on: bool) -> League:
        return await self._set_league(
            league, "UPDATE leagues SET robots_take_places = ? WHERE id = ?", int(on)
        )

    async def set_archive_hours(self, league: League, hours: int) -> League:
        return await self._set_league(
            league, "UPDATE leagues SET archive_hours = ? WHERE id = ?", hours
        )

    async def set_home(
        self, league: League, channel_id: int | None, role_id: int | None, timezone: str
    ) -> League:
        return await self._set_league(
            league,
            "UPDATE leagues SET channel_id = ?, role_id = ?, timezone = ? WHERE id = ?",
            channel_id,
            role_id,
            timezone,
        )

    # Members ---------------------------------------------------------------------------

    @staticmethod
    def _member(row: Row) -> Member:
        d = dict(row)
        d.pop("joined_at", None)
        d["active"] = bool(d["active"])
        return Member.model_validate(d)

    async def members(
        self, league_id: int, *, active_only: bool = False, db: Reads | None = None
    ) -> list[Member]:
        sql = "SELECT * FROM league_members WHERE league_id = ?"
        if active_only:
            sql += " AND active = 1"
        rows = await (db or self._reads).fetch(sql + " ORDER BY id", league_id)
        return [self._member(r) for r in rows]

    async def member_by_user(
        self, league_id: int, user_id: int, *, db: Reads | None = None
    ) -> Member | None:
        row = await (db or self._reads).fetchrow(
            "SELECT * FROM league_members WHERE league_id = ? AND user_id = ?",
            league_id,
            user_id,
        )
        return self._member(row) if row else None

    async def join_league(
        self, league: League, user_id: int, display_name: str, colour: str | None
    ) -> Member:
        self._require_open(league)

        async def join(tx: Tx) -> None:
            await self._lock_league(tx, league.id)  # two joins asking for one colour
            existing = await self.member_by_user(league.id, user_id, db=tx)
            if existing is not None and existing.active:
                raise LeagueError(f"You are already a member of **{shown(league.label)}**.")
            if colour is not None:
                taken = await tx.fetchrow(
                    "SELECT display_name FROM league_members WHERE league_id = ? AND active = 1"
                    " AND colour = ? AND user_id != ?",
                    league.id,
                    colour,
                    user_id,
                )
                if taken is not None:
                    raise LeagueError(
                        f"{taken['display_name']} already drives the {colour} car in this "
                        "league. Pick another colour."
                    )
            if existing is not None:
                await tx.execute(
                    "UPDATE league_members SET active = 1, display_name = ?, colour = ?"
                    " WHERE id = ?",
                    display_name,
                    colour,
                    existing.id,
                )
            else:
                await tx.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) VALUES (?, ?, ?, ?, 1, ?)",
                    league.id,
                    user_id,
                    display_name,
                    colour,
                    now(),
                )

        await self._transact(join)
        member = await self.member_by_user(league.id, user_id)
        assert member is not None
        return member

    async def leave_league(self, league: League, user_id: int) -> Member:
        """Mark a member inactive. Their results stay in the standings."""
        self._require_open(league)

        async def leave(tx: Tx) -> Member:
            await self._lock_league(tx, league.id)
            member = await self.member_by_user(league.id, user_id, db=tx)
            if member is None or not member.active:
                raise LeagueError(f"That driver is not a member of **{shown(league.label)}**.")
            await tx.execute("UPDATE league_members SET active = 0 WHERE id = ?", member.id)
            return member

        member = await self._transact(leave)
        return member.model_copy(update={"active": False})

    # Calendar --------------------------------------------------------------------------

    @staticmethod
    def _round(row: Row) -> Round:
        d = dict(row)
        d["settings"] = json.loads(d.pop("settings_json", None) or "{}")
        return Round.model_validate(d)

    async def rounds(self, league_id: int) -> list[Round]:
        rows = await self._all(
            "SELECT * FROM league_rounds WHERE league_id = ? ORDER BY number", league_id
        )
        return [self._round(r) for r in rows]

    async def get_round(self, league: League, number: int) -> Round:
        row = await self._one(
            "SELECT * FROM league_rounds WHERE league_id = ? AND number = ?", league.id, number
        )
        if row is None:
            raise NotFound(
                f"**{shown(league.label)}** has no round {number}. `/league calendar` lists its "
                "rounds."
            )
        return self._round(row)

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
        """Add a round to the calendar, or rename/reschedule an existing one (`scheduled`:
        the date as free text; `starts_at`: its start as an instant; `settings`: its
        overrides, None keeps them). `timers` (its opening, its reminder) replace the round's
        own, in the same transaction, unless its result is in. A start within an hour of
        another round's, or a new start for a round whose race is on, is refused."""
        self._require_open(league)
        name = " ".join(name.split())
        if not 1 <= len(name) <= 60:
            raise LeagueError("A round name has 1 to 60 characters.")

        async def change(tx: Tx) -> int:
            await self._lock_league(tx, league.id)  # two admins' rounds: one at a time
            if starts_at is not None:
                await self._refuse_clash(tx, league, number, starts_at)
            old = await tx.fetchrow(
                "SELECT id, starts_at, opened_at FROM league_rounds"
                " WHERE league_id = ? AND number = ?",
                league.id,
                number,
            )
            reopen = False
            if (
                old is not None
                and old["opened_at"] is not None
                and starts_at is not None
                and starts_at != old["starts_at"]
            ):
                reopen = True
                live = await tx.fetchval(
                    "SELECT id FROM games WHERE round_id = ? AND status IN ('lobby', 'running')"
                    " ORDER BY id LIMIT 1",
                    old["id"],
                )
                if live is not None:
                    raise LeagueError(
                        f"Round {number}'s race is on already (game #{live}): its start can't "
                        "change now. Cancel or abandon that race first."
                    )
            round_id: int = await tx.fetchval(
                "INSERT INTO league_rounds (league_id, number, name, scheduled, starts_at,"
                " settings_json) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (league_id, number)"
                " DO UPDATE SET name = excluded.name, scheduled = excluded.scheduled,"
                " starts_at = excluded.starts_at"
                + (", settings_json = excluded.settings_json" if settings is not None else "")
                + (", opened_at = NULL" if reopen else "")
                + " RETURNING id",
                league.id,
                number,
                name,
                scheduled,
                starts_at,
                json.dumps(settings or {}),
            )
            if timers is not None:
                await self._replace_round_timers(tx, league, round_id, timers)
            return round_id

        await self._transact(change)
        return await self.get_round(league, number)

    async def _refuse_clash(self, tx: Tx, league: League, number: int, starts_at: float) -> None:
        other = await tx.fetchrow(
            "SELECT number, starts_at FROM league_rounds WHERE league_id = ? AND number <> ?"
            " AND starts_at IS NOT NULL AND starts_at > ? AND starts_at < ?"
            " ORDER BY number LIMIT 1",
            league.id,
            number,
            starts_at - ROUND_GAP,
            starts_at + ROUND_GAP,
        )
        if other is not None:
            raise LeagueError(
                f"Round {other['number']} starts <t:{int(other['starts_at'])}:F>: rounds of a "
                "league start at least an hour apart. Pick another time."
            )

    async def _replace_round_timers(
        self, tx: Tx, league: League, round_id: int, timers: list[TimerSpec]
    ) -> None:
        """The round's timers replaced (none once its result is in), routed to the shard of
        the league's guild."""
        await tx.execute("DELETE FROM timers WHERE round_id = ?", round_id)
        status = await tx.fetchval("SELECT status FROM league_rounds WHERE id = ?", round_id)
        if timers and status == "scheduled":
            at = now()
            await tx.executemany(
                "INSERT INTO timers (event, due_at, round_id, guild_id, payload_json,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (t.event, t.due_at, round_id, league.guild_id, json.dumps(t.payload), at)
                    for t in timers
                ],
            )

    async def round_by_id(self, round_id: int) -> Round:
        row = await self._one("SELECT * FROM league_rounds WHERE id = ?", round_id)
        if row is None:
            raise NotFound("That round is no longer on the calendar.")
        return self._round(row)

    async def set_round_event(self, round_id: int, event_id: int | None) -> None:
        await self._statement(
            "UPDATE league_rounds SET event_id = ? WHERE id = ?", event_id, round_id
        )

    async def round_race(self, round_id: int) -> int | None:
        """The race on for a round (a lobby or running), if any."""
        value = await self._val(
            "SELECT id FROM games WHERE round_id = ? AND status IN ('lobby', 'running')"
            " ORDER BY id LIMIT 1",
            round_id,
        )
        return int(value) if value is not None else None

    async def rounds_to_open(
        self, now_at: float, event: str, *, shards: Shards | None = None
    ) -> list[Round]:
        """Rounds of open leagues whose start has come, with no race opened for them and no
        `event` timer to open one: those a process that claimed the timer and died (or a bot
        that was down) left. With `shards`: of guilds on those shards only."""
        where, args = shard_filter(shards, "l.guild_id")
        rows = await self._all(
            "SELECT r.* FROM league_rounds r JOIN leagues l ON l.id = r.league_id"
            " WHERE l.status = 'open' AND r.status = 'scheduled' AND r.starts_at <= ?"
            " AND r.opened_at IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM timers t WHERE t.round_id = r.id AND t.event = ?)"
            " AND NOT EXISTS (SELECT 1 FROM games g WHERE g.round_id = r.id"
            f" AND g.status IN ('lobby', 'running', 'finished')){where} ORDER BY r.starts_at, r.id",
            now_at,
            event,
            *args,
        )
        return [self._round(r) for r in rows]

    async def claim_round(self, tx: Tx, league_id: int, round_id: int, at: float) -> None:
        """In the transaction making the round's race: mark the round opened, or raise
        RoundOpened (rolling it back) if it was opened already, has a race or a result, or
        its season is closed. The league's row is locked first, as every league writer
        does, then the round's."""
        await self._lock_league(tx, league_id)
        row = await tx.fetchrow(
            "SELECT r.opened_at, r.status, l.status AS league_status FROM league_rounds r"
            " JOIN leagues l ON l.id = r.league_id WHERE r.id = ?",
            round_id,
        )
        if row is None or row["league_status"] != "open" or row["status"] != "scheduled":
            raise RoundOpened(None)
        live = await tx.fetchval(
            "SELECT id FROM games WHERE round_id = ? AND status IN ('lobby', 'running',"
            " 'finished') ORDER BY id LIMIT 1",
            round_id,
        )
        if row["opened_at"] is not None or live is not None:
            raise RoundOpened(live)
        await tx.execute("UPDATE league_rounds SET opened_at = ? WHERE id = ?", at, round_id)

    async def remove_round(self, league: League, number: int) -> Round:
        self._require_open(league)
        rnd = await self.get_round(league, number)

        async def remove(tx: Tx) -> None:
            await self._lock_league(tx, league.id)  # no result may arrive meanwhile
            if await self._round_has_results(tx, rnd.id):
                raise LeagueError(
                    f"Round {number} already has results; correct them instead of removing it."
                )
            await tx.execute("DELETE FROM league_rounds WHERE id = ?", rnd.id)

        await self._transact(remove)
        return rnd

    # Results ---------------------------------------------------------------------------

    async def results(self, league_id: int) -> list[ResultRecord]:
        rows = await self._all(f"{RESULTS} WHERE lr.league_id = ? {RESULTS_ORDER}", league_id)
        return [ResultRecord.model_validate(dict(r)) for r in rows]

    async def record_round(
        self,
        league: League,
        rnd: Round,
        placings: Placings,
        *,
        source: str = "manual",
        game_id: int | None = None,
    ) -> list[ResultRecord]:
        """Record a round's result: (member id, place, status) per driver.

        Refused when the round already has results (use `correct_result`).
        """
        self._require_open(league)
        self._check_placings(league, placings)

        async def record(tx: Tx) -> None:
            await self._lock_league(tx, league.id)
            if await self._round_has_results(tx, rnd.id):
                raise LeagueError(
                    f"Round {rnd.number} already has a result. An admin can change a place "
                    "with `/league-admin correct`."
                )
            await self._insert_results(tx, rnd, placings, source, game_id)

        await self._transact(record)
        return [r for r in await self.results(league.id) if r.round_id == rnd.id]

    @staticmethod
    async def _round_has_results(tx: Tx, round_id: int) -> bool:
        row = await tx.fetchrow("SELECT 1 FROM round_results WHERE round_id = ? LIMIT 1", round_id)
        return row is not None

    @staticmethod
    async def _insert_results(
        tx: Tx, rnd: Round, placings: Placings, source: str, game_id: int | None
    ) -> None:
        at = now()
        await tx.executemany(
            "INSERT INTO round_results (round_id, member_id, place, status, source, game_id,"
            " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(rnd.id, m, p, s, source, game_id, at) for m, p, s in placings],
        )
        await tx.execute("UPDATE league_rounds SET status = 'done' WHERE id = ?", rnd.id)

    @staticmethod
    def _check_placings(league: League, placings: Placings) -> None:
        members = [m for m, _, _ in placings]
        if not placings:
            raise LeagueError("A result needs at least one driver.")
        if len(set(members)) != len(members):
            raise LeagueError("Each driver can appear only once in a round's result.")
        places = [p for _, p, _ in placings if p is not None]
        if len(set(places)) != len(places):
            raise LeagueError("Two drivers cannot share a place; give each a different place.")

    async def correct_result(
        self, league: League, rnd: Round, member: Member, place: int | None, status: str
    ) -> ResultRecord:
        """Set one driver's place in a round (adding the driver if they had no result)."""
        self._require_open(league)

        async def correct(tx: Tx) -> None:
            await self._lock_league(tx, league.id)
            clash = await tx.fetchrow(
                "SELECT m.display_name FROM round_results r JOIN league_members m"
                " ON m.id = r.member_id WHERE r.round_id = ? AND r.place = ? AND r.member_id != ?",
                rnd.id,
                place,
                member.id,
            )
            if place is not None and clash is not None:
                raise LeagueError(
                    f"{clash['display_name']} already has place {place} in round {rnd.number}; "
                    "correct their place first."
                )
            await tx.execute(
                "INSERT INTO round_results (round_id, member_id, place, status, source,"
                " recorded_at) VALUES (?, ?, ?, ?, 'correction', ?)"
                " ON CONFLICT (round_id, member_id) DO UPDATE SET place = excluded.place,"
                " status = excluded.status, source = 'correction',"
                " recorded_at = excluded.recorded_at",
                rnd.id,
                member.id,
                place,
                status,
                now(),
            )
            await tx.execute("UPDATE league_rounds SET status = 'done' WHERE id = ?", rnd.id)

        await self._transact(correct)
        return next(
            r
            for r in await self.results(league.id)
            if r.round_id == rnd.id and r.member_id == member.id
        )

    async def record_game_results(self, game_id: int, placings: Placings) -> bool:
        """Record a finished league game's result for its round, exactly once.

        `placings` are (user id, place, status) of the seats people drive, in finishing
        order. Returns False when the game's result was already recorded (a finish
        processed twice changes nothing).
        """
        return await self._transact(lambda tx: self._record_game_results(tx, game_id, placings))

    async def _record_game_results(self, tx: Tx, game_id: int, placings: Placings) -> bool:
        # The game's row first, then its league's: the order every writer takes them in
        # (append_actions holds the game already), so two never wait for each other.
        game = await tx.fetchrow(
            "SELECT league_id, round_id, results_recorded FROM games WHERE id = ?"
            + self.dialect.lock_row,
            game_id,
        )
        if game is None:
            raise NotFound(f"There is no game #{game_id}.")
        if game["results_recorded"] or game["league_id"] is None or game["round_id"] is None:
            return False
        await self._lock_league(tx, game["league_id"])
        league = await self.league_by_id(game["league_id"], db=tx)
        round_row = await tx.fetchrow("SELECT * FROM league_rounds WHERE id = ?", game["round_id"])
        assert round_row is not None  # games.round_id references league_rounds
        rnd = self._round(round_row)
        member_of = {m.user_id: m.id for m in await self.members(league.id, db=tx)}
        rows = [(member_of[u], p, s) for u, p, s in placings if u in member_of]
        if not league.robots_take_places:
            rows = places_among_members(rows)
        if rows and league.is_open and not await self._round_has_results(tx, rnd.id):
            await self._insert_results(tx, rnd, rows, "game", game_id)
        await tx.execute("UPDATE games SET results_recorded = 1 WHERE id = ?", game_id)
        return True
