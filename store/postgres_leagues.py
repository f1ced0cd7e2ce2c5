"""The PostgreSQL store's leagues: guild settings, leagues and seasons, members, the
calendar and round results (the same methods, checks and messages as store.leagues).

SQLite lets one writer in at a time, so its read-check-write methods (is the colour free?
does the round have results?) cannot interleave. Here each takes a lock first: the league's
row for changes within a league, an advisory lock on the name for a new league or season.
"""

from __future__ import annotations

import json

from rules.championship import places_among_members
from store.connection import _now
from store.errors import LeagueError, NotFound, shown
from store.leagues import LeagueStore
from store.models import League, Member, ResultRecord, Round
from store.postgres_connection import Executor, PostgresConnection

# The rows of one league, as store.leagues reads them; shared helpers keep the messages.
_league = LeagueStore._league
_member = LeagueStore._member
_round = LeagueStore._round
_require_open = LeagueStore._require_open
_check_placings = LeagueStore._check_placings

# SQLite's COLLATE NOCASE folds ASCII letters only; lower() under the "C" collation too.
_SAME_NAME = 'lower(name COLLATE "C") = lower($2::text COLLATE "C")'


class PostgresLeagueStore(PostgresConnection):
    # Guild settings --------------------------------------------------------------------

    async def admin_role(self, guild_id: int) -> int | None:
        row = await self._one(
            "SELECT admin_role_id FROM guild_settings WHERE guild_id = $1", guild_id
        )
        return row["admin_role_id"] if row else None

    async def set_admin_role(self, guild_id: int, role_id: int | None) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, admin_role_id) VALUES ($1, $2)"
                " ON CONFLICT (guild_id) DO UPDATE SET admin_role_id = excluded.admin_role_id",
                guild_id,
                role_id,
            )

    # Locks -----------------------------------------------------------------------------

    @staticmethod
    async def _lock_league(db: Executor, league_id: int) -> None:
        # NO KEY UPDATE: excludes other writers of the league, not a game or member row
        # being inserted with a reference to it (those take KEY SHARE).
        await db.execute("SELECT 1 FROM leagues WHERE id = $1 FOR NO KEY UPDATE", league_id)

    # Leagues ---------------------------------------------------------------------------

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
        async with self.transaction() as db:
            # Two processes creating the same name: the second waits, then sees the first.
            await db.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('paddock-league:' || $1::text"
                " || ':' || lower($2::text COLLATE \"C\"), 0))",
                str(guild_id),
                name,
            )
            prev = await self._latest_league(guild_id, name, db=db)
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
            league_id = await db.fetchval(
                "INSERT INTO leagues (guild_id, name, game, season, points_table, points_json,"
                " status, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8)"
                " RETURNING id",
                guild_id,
                name,
                game,
                season,
                points_table,
                json.dumps(points),
                created_by,
                _now(),
            )
            if prev is not None:
                # ORDER BY user_id: the order (and so the new ids) SQLite's copy gives, as
                # it reads the old members through its (league_id, user_id) index.
                await db.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) SELECT $1::bigint, user_id, display_name, colour, 1,"
                    " $2::text FROM league_members WHERE league_id = $3 AND active = 1"
                    " ORDER BY user_id",
                    league_id,
                    _now(),
                    prev.id,
                )
        return await self.league_by_id(league_id)

    async def _latest_league(
        self, guild_id: int, name: str, *, db: Executor | None = None
    ) -> League | None:
        row = await self._one(
            f"SELECT * FROM leagues WHERE guild_id = $1 AND {_SAME_NAME}"
            " ORDER BY season DESC LIMIT 1",
            guild_id,
            " ".join(name.split()),
            db=db,
        )
        return _league(row) if row else None

    async def league_by_id(self, league_id: int, *, db: Executor | None = None) -> League:
        row = await self._one("SELECT * FROM leagues WHERE id = $1", league_id, db=db)
        if row is None:
            raise NotFound("That league no longer exists.")
        return _league(row)

    async def get_league(self, guild_id: int, name: str, season: int | None = None) -> League:
        """The league of that name here (its latest season unless one is given)."""
        if season is None:
            league = await self._latest_league(guild_id, name)
        else:
            row = await self._one(
                f"SELECT * FROM leagues WHERE guild_id = $1 AND {_SAME_NAME} AND season = $3",
                guild_id,
                " ".join(name.split()),
                season,
            )
            league = _league(row) if row else None
        if league is None:
            which = f" season {season}" if season is not None else ""
            raise NotFound(
                f"There is no league called **{shown(name)}**{which} on this server. "
                "`/league list` shows the leagues here."
            )
        return league

    async def list_leagues(self, guild_id: int, *, latest_only: bool = True) -> list[League]:
        rows = await self._all(
            'SELECT * FROM leagues WHERE guild_id = $1 ORDER BY lower(name COLLATE "C"),'
            " season DESC",
            guild_id,
        )
        leagues = [_league(r) for r in rows]
        if latest_only:
            seen: set[str] = set()
            out = []
            for lg in leagues:
                if lg.name.casefold() not in seen:
                    seen.add(lg.name.casefold())
                    out.append(lg)
            return out
        return leagues

    async def set_points_table(self, league: League, table: str, points: list[int]) -> League:
        _require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET points_table = $1, points_json = $2 WHERE id = $3",
                table,
                json.dumps(points),
                league.id,
            )
        return await self.league_by_id(league.id)

    async def close_season(self, league: League) -> League:
        _require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET status = 'closed', closed_at = $1 WHERE id = $2",
                _now(),
                league.id,
            )
        return await self.league_by_id(league.id)

    async def set_robots_take_places(self, league: League, on: bool) -> League:
        _require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET robots_take_places = $1 WHERE id = $2", int(on), league.id
            )
        return await self.league_by_id(league.id)

    async def set_archive_hours(self, league: League, hours: int) -> League:
        _require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET archive_hours = $1 WHERE id = $2", hours, league.id
            )
        return await self.league_by_id(league.id)

    # Members ---------------------------------------------------------------------------

    async def members(
        self, league_id: int, *, active_only: bool = False, db: Executor | None = None
    ) -> list[Member]:
        sql = "SELECT * FROM league_members WHERE league_id = $1"
        if active_only:
            sql += " AND active = 1"
        rows = await self._all(sql + " ORDER BY id", league_id, db=db)
        return [_member(r) for r in rows]

    async def member_by_user(
        self, league_id: int, user_id: int, *, db: Executor | None = None
    ) -> Member | None:
        row = await self._one(
            "SELECT * FROM league_members WHERE league_id = $1 AND user_id = $2",
            league_id,
            user_id,
            db=db,
        )
        return _member(row) if row else None

    async def join_league(
        self, league: League, user_id: int, display_name: str, colour: str | None
    ) -> Member:
        _require_open(league)
        async with self.transaction() as db:
            await self._lock_league(db, league.id)  # two joins asking for one colour
            existing = await self.member_by_user(league.id, user_id, db=db)
            if existing is not None and existing.active:
                raise LeagueError(f"You are already a member of **{shown(league.label)}**.")
            if colour is not None:
                taken = await self._one(
                    "SELECT display_name FROM league_members WHERE league_id = $1"
                    " AND active = 1 AND colour = $2 AND user_id != $3",
                    league.id,
                    colour,
                    user_id,
                    db=db,
                )
                if taken is not None:
                    raise LeagueError(
                        f"{taken['display_name']} already drives the {colour} car in this "
                        "league. Pick another colour."
                    )
            if existing is not None:
                await db.execute(
                    "UPDATE league_members SET active = 1, display_name = $1, colour = $2"
                    " WHERE id = $3",
                    display_name,
                    colour,
                    existing.id,
                )
            else:
                await db.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) VALUES ($1, $2, $3, $4, 1, $5)",
                    league.id,
                    user_id,
                    display_name,
                    colour,
                    _now(),
                )
        member = await self.member_by_user(league.id, user_id)
        assert member is not None
        return member

    async def leave_league(self, league: League, user_id: int) -> Member:
        """Mark a member inactive. Their results stay in the standings."""
        _require_open(league)
        async with self.transaction() as db:
            await self._lock_league(db, league.id)
            member = await self.member_by_user(league.id, user_id, db=db)
            if member is None or not member.active:
                raise LeagueError(f"That driver is not a member of **{shown(league.label)}**.")
            await db.execute("UPDATE league_members SET active = 0 WHERE id = $1", member.id)
        return member.model_copy(update={"active": False})

    # Calendar --------------------------------------------------------------------------

    async def rounds(self, league_id: int) -> list[Round]:
        rows = await self._all(
            "SELECT * FROM league_rounds WHERE league_id = $1 ORDER BY number", league_id
        )
        return [_round(r) for r in rows]

    async def get_round(self, league: League, number: int) -> Round:
        row = await self._one(
            "SELECT * FROM league_rounds WHERE league_id = $1 AND number = $2", league.id, number
        )
        if row is None:
            raise NotFound(
                f"**{shown(league.label)}** has no round {number}. `/league calendar` lists its "
                "rounds."
            )
        return _round(row)

    async def set_round(
        self, league: League, number: int, name: str, scheduled: str | None
    ) -> Round:
        """Add a round to the calendar, or rename/reschedule an existing one."""
        _require_open(league)
        name = " ".join(name.split())
        if not 1 <= len(name) <= 60:
            raise LeagueError("A round name has 1 to 60 characters.")
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO league_rounds (league_id, number, name, scheduled)"
                " VALUES ($1, $2, $3, $4) ON CONFLICT (league_id, number) DO UPDATE"
                " SET name = excluded.name, scheduled = excluded.scheduled",
                league.id,
                number,
                name,
                scheduled,
            )
        return await self.get_round(league, number)

    async def remove_round(self, league: League, number: int) -> Round:
        _require_open(league)
        rnd = await self.get_round(league, number)
        async with self.transaction() as db:
            await self._lock_league(db, league.id)  # no result may arrive meanwhile
            has = await self._one(
                "SELECT 1 FROM round_results WHERE round_id = $1 LIMIT 1", rnd.id, db=db
            )
            if has is not None:
                raise LeagueError(
                    f"Round {number} already has results; correct them instead of removing it."
                )
            await db.execute("DELETE FROM league_rounds WHERE id = $1", rnd.id)
        return rnd

    # Results ---------------------------------------------------------------------------

    async def results(self, league_id: int, *, db: Executor | None = None) -> list[ResultRecord]:
        # member_id last: the order of ties (drivers without a place) SQLite gives, as it
        # reads a round's results through its (round_id, member_id) key.
        rows = await self._all(
            "SELECT r.round_id, lr.number AS round_number, r.member_id, r.place, r.status,"
            " r.source, r.game_id FROM round_results r"
            " JOIN league_rounds lr ON lr.id = r.round_id"
            " WHERE lr.league_id = $1 ORDER BY lr.number, r.place IS NULL, r.place, r.member_id",
            league_id,
            db=db,
        )
        return [ResultRecord.model_validate(dict(r)) for r in rows]

    async def record_round(
        self,
        league: League,
        rnd: Round,
        placings: list[tuple[int, int | None, str]],
        *,
        source: str = "manual",
        game_id: int | None = None,
    ) -> list[ResultRecord]:
        """Record a round's result: (member id, place, status) per driver.

        Refused when the round already has results (use `correct_result`).
        """
        _require_open(league)
        _check_placings(league, placings)
        async with self.transaction() as db:
            await self._lock_league(db, league.id)
            if await self._round_has_results(db, rnd.id):
                raise LeagueError(
                    f"Round {rnd.number} already has a result. An admin can change a place "
                    "with `/league-admin correct`."
                )
            await self._insert_results(db, rnd, placings, source, game_id)
        return [r for r in await self.results(league.id) if r.round_id == rnd.id]

    async def _round_has_results(self, db: Executor, round_id: int) -> bool:
        row = await self._one(
            "SELECT 1 FROM round_results WHERE round_id = $1 LIMIT 1", round_id, db=db
        )
        return row is not None

    async def _insert_results(
        self,
        db: Executor,
        rnd: Round,
        placings: list[tuple[int, int | None, str]],
        source: str,
        game_id: int | None,
    ) -> None:
        now = _now()
        await db.executemany(
            "INSERT INTO round_results (round_id, member_id, place, status, source, game_id,"
            " recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [(rnd.id, m, p, s, source, game_id, now) for m, p, s in placings],
        )
        await db.execute("UPDATE league_rounds SET status = 'done' WHERE id = $1", rnd.id)

    async def correct_result(
        self, league: League, rnd: Round, member: Member, place: int | None, status: str
    ) -> ResultRecord:
        """Set one driver's place in a round (adding the driver if they had no result)."""
        _require_open(league)
        async with self.transaction() as db:
            await self._lock_league(db, league.id)
            clash = await self._one(
                "SELECT m.display_name FROM round_results r JOIN league_members m"
                " ON m.id = r.member_id WHERE r.round_id = $1 AND r.place = $2"
                " AND r.member_id != $3",
                rnd.id,
                place,
                member.id,
                db=db,
            )
            if place is not None and clash is not None:
                raise LeagueError(
                    f"{clash['display_name']} already has place {place} in round {rnd.number}; "
                    "correct their place first."
                )
            await db.execute(
                "INSERT INTO round_results (round_id, member_id, place, status, source,"
                " recorded_at) VALUES ($1, $2, $3, $4, 'correction', $5)"
                " ON CONFLICT (round_id, member_id) DO UPDATE SET place = excluded.place,"
                " status = excluded.status, source = 'correction',"
                " recorded_at = excluded.recorded_at",
                rnd.id,
                member.id,
                place,
                status,
                _now(),
            )
            await db.execute("UPDATE league_rounds SET status = 'done' WHERE id = $1", rnd.id)
        return next(
            r
            for r in await self.results(league.id)
            if r.round_id == rnd.id and r.member_id == member.id
        )

    async def record_game_results(
        self, game_id: int, placings: list[tuple[int, int | None, str]]
    ) -> bool:
        """Record a finished league game's result for its round, exactly once.

        `placings` are (user id, place, status) of the seats people drive, in finishing
        order. Returns False when the game's result was already recorded (a finish
        processed twice changes nothing).
        """
        async with self.transaction() as db:
            return await self._record_game_results(db, game_id, placings)

    async def _record_game_results(
        self, db: Executor, game_id: int, placings: list[tuple[int, int | None, str]]
    ) -> bool:
        # The game's row first, then its league's: the order every writer takes them in
        # (append_actions holds the game already), so two never wait for each other.
        game = await self._one(
            "SELECT league_id, round_id, results_recorded FROM games WHERE id = $1"
            " FOR NO KEY UPDATE",
            game_id,
            db=db,
        )
        if game is None:
            raise NotFound(f"There is no game #{game_id}.")
        if game["results_recorded"] or game["league_id"] is None or game["round_id"] is None:
            return False
        await self._lock_league(db, game["league_id"])
        league = await self.league_by_id(game["league_id"], db=db)
        row = await self._one("SELECT * FROM league_rounds WHERE id = $1", game["round_id"], db=db)
        assert row is not None  # games.round_id references league_rounds
        rnd = _round(row)
        member_of = {m.user_id: m.id for m in await self.members(league.id, db=db)}
        rows = [(member_of[u], p, s) for u, p, s in placings if u in member_of]
        if not league.robots_take_places:
            rows = places_among_members(rows)
        if rows and league.is_open and not await self._round_has_results(db, rnd.id):
            await self._insert_results(db, rnd, rows, "game", game_id)
        await db.execute("UPDATE games SET results_recorded = 1 WHERE id = $1", game_id)
        return True
