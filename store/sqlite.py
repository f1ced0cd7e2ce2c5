"""The embedded SQLite store (aiosqlite, WAL, foreign keys on)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from rules.championship import places_among_members
from store import migrate
from store.errors import LeagueError, NotFound, StaleState
from store.models import (
    ActionRecord,
    GameRecord,
    League,
    Member,
    ResultRecord,
    Round,
    Seat,
    Timer,
    TimerSpec,
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_GAME_COLUMNS = (
    "g.id, g.kind, g.guild_id, g.channel_id, g.thread_id, g.status_message_id, g.league_id,"
    " g.round_id, g.seed, g.config_json, g.settings_json, g.status, g.results_recorded, s.seq,"
    " s.state_json, g.published_seq, g.prompt_message_id, g.last_human_at"
)


class SqliteStore:
    """One connection per process; an asyncio lock keeps its transactions apart.

    Across processes, SQLite's own locking and the (game_id, seq) primary key make sure
    that of two writers racing for one sequence number exactly one wins.
    """

    def __init__(self, path: str | Path, migrations_dir: Path | None = None) -> None:
        self.path = str(path)
        self.migrations_dir = migrations_dir or migrate.MIGRATIONS_DIR
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    # Connection and transactions -------------------------------------------------------

    async def open(self, *, run_migrations: bool = True) -> list[str]:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(self.path, isolation_level=None)
        conn.row_factory = sqlite3.Row
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.execute("PRAGMA busy_timeout=5000")
        await conn.execute("PRAGMA synchronous=NORMAL")
        self._conn = conn
        if run_migrations:
            return await self.migrate()
        return []

    async def migrate(self) -> list[str]:
        async with self._lock:
            return await migrate.apply_pending(self.conn, self.migrations_dir)

    async def close(self) -> None:
        # Detach first: a second close() while the first is in progress must not touch the
        # connection again (aiosqlite would wait forever for its stopped thread).
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    async def __aenter__(self) -> SqliteStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise RuntimeError("the store is not open")
        return self._conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            else:
                await self.conn.execute("COMMIT")

    async def _one(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Row | None:
        async with self.conn.execute(sql, tuple(args)) as cur:
            return await cur.fetchone()

    async def _all(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        async with self.conn.execute(sql, tuple(args)) as cur:
            return list(await cur.fetchall())

    # Guild settings --------------------------------------------------------------------

    async def admin_role(self, guild_id: int) -> int | None:
        row = await self._one(
            "SELECT admin_role_id FROM guild_settings WHERE guild_id = ?", (guild_id,)
        )
        return row["admin_role_id"] if row else None

    async def set_admin_role(self, guild_id: int, role_id: int | None) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, admin_role_id) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET admin_role_id = excluded.admin_role_id",
                (guild_id, role_id),
            )

    # Leagues ---------------------------------------------------------------------------

    @staticmethod
    def _league(row: sqlite3.Row) -> League:
        d = dict(row)
        d["points"] = json.loads(d.pop("points_json"))
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
        async with self.transaction() as db:
            prev = await self._latest_league(guild_id, name)
            if prev is not None and prev.is_open:
                raise LeagueError(
                    f"This server already has a league called **{prev.name}** "
                    f"(season {prev.season} is open). Pick another name, or close that season "
                    "first with `/league close-season`."
                )
            if prev is not None and prev.game != game:
                raise LeagueError(
                    f"**{prev.name}** is a league of another game; a new season keeps its game. "
                    "Pick another name for a league of this game."
                )
            season = prev.season + 1 if prev else 1
            cur = await db.execute(
                "INSERT INTO leagues (guild_id, name, game, season, points_table, points_json,"
                " status, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)",
                (
                    guild_id,
                    name,
                    game,
                    season,
                    points_table,
                    json.dumps(points),
                    created_by,
                    _now(),
                ),
            )
            league_id = cur.lastrowid
            if prev is not None:
                await db.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) SELECT ?, user_id, display_name, colour, 1, ?"
                    " FROM league_members WHERE league_id = ? AND active = 1",
                    (league_id, _now(), prev.id),
                )
        return await self.league_by_id(league_id)

    async def _latest_league(self, guild_id: int, name: str) -> League | None:
        row = await self._one(
            "SELECT * FROM leagues WHERE guild_id = ? AND name = ? COLLATE NOCASE"
            " ORDER BY season DESC LIMIT 1",
            (guild_id, " ".join(name.split())),
        )
        return self._league(row) if row else None

    async def league_by_id(self, league_id: int) -> League:
        row = await self._one("SELECT * FROM leagues WHERE id = ?", (league_id,))
        if row is None:
            raise NotFound("That league no longer exists.")
        return self._league(row)

    async def get_league(self, guild_id: int, name: str, season: int | None = None) -> League:
        """The league of that name here (its latest season unless one is given)."""
        if season is None:
            league = await self._latest_league(guild_id, name)
        else:
            row = await self._one(
                "SELECT * FROM leagues WHERE guild_id = ? AND name = ? COLLATE NOCASE"
                " AND season = ?",
                (guild_id, " ".join(name.split()), season),
            )
            league = self._league(row) if row else None
        if league is None:
            which = f" season {season}" if season is not None else ""
            raise NotFound(
                f"There is no league called **{name}**{which} on this server. "
                "`/league list` shows the leagues here."
            )
        return league

    async def list_leagues(self, guild_id: int, *, latest_only: bool = True) -> list[League]:
        rows = await self._all(
            "SELECT * FROM leagues WHERE guild_id = ? ORDER BY name COLLATE NOCASE, season DESC",
            (guild_id,),
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
                f"Season {league.season} of **{league.name}** is closed. An admin can start "
                f"the next season with `/league create name:{league.name}`."
            )

    async def set_points_table(self, league: League, table: str, points: list[int]) -> League:
        self._require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET points_table = ?, points_json = ? WHERE id = ?",
                (table, json.dumps(points), league.id),
            )
        return await self.league_by_id(league.id)

    async def close_season(self, league: League) -> League:
        self._require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET status = 'closed', closed_at = ? WHERE id = ?",
                (_now(), league.id),
            )
        return await self.league_by_id(league.id)

    # Members ---------------------------------------------------------------------------

    @staticmethod
    def _member(row: sqlite3.Row) -> Member:
        d = dict(row)
        d.pop("joined_at", None)
        d["active"] = bool(d["active"])
        return Member.model_validate(d)

    async def members(self, league_id: int, *, active_only: bool = False) -> list[Member]:
        sql = "SELECT * FROM league_members WHERE league_id = ?"
        if active_only:
            sql += " AND active = 1"
        rows = await self._all(sql + " ORDER BY id", (league_id,))
        return [self._member(r) for r in rows]

    async def member_by_user(self, league_id: int, user_id: int) -> Member | None:
        row = await self._one(
            "SELECT * FROM league_members WHERE league_id = ? AND user_id = ?",
            (league_id, user_id),
        )
        return self._member(row) if row else None

    async def join_league(
        self, league: League, user_id: int, display_name: str, colour: str | None
    ) -> Member:
        self._require_open(league)
        async with self.transaction() as db:
            existing = await self.member_by_user(league.id, user_id)
            if existing is not None and existing.active:
                raise LeagueError(f"You are already a member of **{league.label}**.")
            if colour is not None:
                taken = await self._one(
                    "SELECT display_name FROM league_members WHERE league_id = ? AND active = 1"
                    " AND colour = ? AND user_id != ?",
                    (league.id, colour, user_id),
                )
                if taken is not None:
                    raise LeagueError(
                        f"{taken['display_name']} already drives the {colour} car in this "
                        "league. Pick another colour."
                    )
            if existing is not None:
                await db.execute(
                    "UPDATE league_members SET active = 1, display_name = ?, colour = ?"
                    " WHERE id = ?",
                    (display_name, colour, existing.id),
                )
            else:
                await db.execute(
                    "INSERT INTO league_members (league_id, user_id, display_name, colour,"
                    " active, joined_at) VALUES (?, ?, ?, ?, 1, ?)",
                    (league.id, user_id, display_name, colour, _now()),
                )
        member = await self.member_by_user(league.id, user_id)
        assert member is not None
        return member

    async def leave_league(self, league: League, user_id: int) -> Member:
        """Mark a member inactive. Their results stay in the standings."""
        self._require_open(league)
        async with self.transaction() as db:
            member = await self.member_by_user(league.id, user_id)
            if member is None or not member.active:
                raise LeagueError(f"That driver is not a member of **{league.label}**.")
            await db.execute("UPDATE league_members SET active = 0 WHERE id = ?", (member.id,))
        return member.model_copy(update={"active": False})

    # Calendar --------------------------------------------------------------------------

    @staticmethod
    def _round(row: sqlite3.Row) -> Round:
        return Round.model_validate(dict(row))

    async def rounds(self, league_id: int) -> list[Round]:
        rows = await self._all(
            "SELECT * FROM league_rounds WHERE league_id = ? ORDER BY number", (league_id,)
        )
        return [self._round(r) for r in rows]

    async def get_round(self, league: League, number: int) -> Round:
        row = await self._one(
            "SELECT * FROM league_rounds WHERE league_id = ? AND number = ?", (league.id, number)
        )
        if row is None:
            raise NotFound(
                f"**{league.label}** has no round {number}. `/league calendar` lists its rounds."
            )
        return self._round(row)

    async def set_round(
        self, league: League, number: int, name: str, scheduled: str | None
    ) -> Round:
        """Add a round to the calendar, or rename/reschedule an existing one."""
        self._require_open(league)
        name = " ".join(name.split())
        if not 1 <= len(name) <= 60:
            raise LeagueError("A round name has 1 to 60 characters.")
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO league_rounds (league_id, number, name, scheduled) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (league_id, number) DO UPDATE SET name = excluded.name,"
                " scheduled = excluded.scheduled",
                (league.id, number, name, scheduled),
            )
        return await self.get_round(league, number)

    async def remove_round(self, league: League, number: int) -> Round:
        self._require_open(league)
        rnd = await self.get_round(league, number)
        async with self.transaction() as db:
            has = await self._one(
                "SELECT 1 FROM round_results WHERE round_id = ? LIMIT 1", (rnd.id,)
            )
            if has is not None:
                raise LeagueError(
                    f"Round {number} already has results; correct them instead of removing it."
                )
            await db.execute("DELETE FROM league_rounds WHERE id = ?", (rnd.id,))
        return rnd

    # Results ---------------------------------------------------------------------------

    async def results(self, league_id: int) -> list[ResultRecord]:
        rows = await self._all(
            "SELECT r.round_id, lr.number AS round_number, r.member_id, r.place, r.status,"
            " r.source, r.game_id FROM round_results r"
            " JOIN league_rounds lr ON lr.id = r.round_id"
            " WHERE lr.league_id = ? ORDER BY lr.number, r.place IS NULL, r.place",
            (league_id,),
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
        self._require_open(league)
        self._check_placings(league, placings)
        async with self.transaction() as db:
            if await self._round_has_results(rnd.id):
                raise LeagueError(
                    f"Round {rnd.number} already has a result. An admin can change a place "
                    "with `/league correct`."
                )
            await self._insert_results(db, rnd, placings, source, game_id)
        return [r for r in await self.results(league.id) if r.round_id == rnd.id]

    async def _round_has_results(self, round_id: int) -> bool:
        row = await self._one("SELECT 1 FROM round_results WHERE round_id = ? LIMIT 1", (round_id,))
        return row is not None

    async def _insert_results(
        self,
        db: aiosqlite.Connection,
        rnd: Round,
        placings: list[tuple[int, int | None, str]],
        source: str,
        game_id: int | None,
    ) -> None:
        now = _now()
        await db.executemany(
            "INSERT INTO round_results (round_id, member_id, place, status, source, game_id,"
            " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(rnd.id, m, p, s, source, game_id, now) for m, p, s in placings],
        )
        await db.execute("UPDATE league_rounds SET status = 'done' WHERE id = ?", (rnd.id,))

    @staticmethod
    def _check_placings(league: League, placings: list[tuple[int, int | None, str]]) -> None:
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
        async with self.transaction() as db:
            clash = await self._one(
                "SELECT m.display_name FROM round_results r JOIN league_members m"
                " ON m.id = r.member_id WHERE r.round_id = ? AND r.place = ? AND r.member_id != ?",
                (rnd.id, place, member.id),
            )
            if place is not None and clash is not None:
                raise LeagueError(
                    f"{clash['display_name']} already has place {place} in round {rnd.number}; "
                    "correct their place first."
                )
            await db.execute(
                "INSERT INTO round_results (round_id, member_id, place, status, source,"
                " recorded_at) VALUES (?, ?, ?, ?, 'correction', ?)"
                " ON CONFLICT (round_id, member_id) DO UPDATE SET place = excluded.place,"
                " status = excluded.status, source = 'correction',"
                " recorded_at = excluded.recorded_at",
                (rnd.id, member.id, place, status, _now()),
            )
            await db.execute("UPDATE league_rounds SET status = 'done' WHERE id = ?", (rnd.id,))
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
        self, db: aiosqlite.Connection, game_id: int, placings: list[tuple[int, int | None, str]]
    ) -> bool:
        game = await self._one(
            "SELECT league_id, round_id, results_recorded FROM games WHERE id = ?", (game_id,)
        )
        if game is None:
            raise NotFound(f"There is no game #{game_id}.")
        if game["results_recorded"] or game["league_id"] is None or game["round_id"] is None:
            return False
        league = await self.league_by_id(game["league_id"])
        rnd = self._round(
            await self._one("SELECT * FROM league_rounds WHERE id = ?", (game["round_id"],))
        )
        member_of = {m.user_id: m.id for m in await self.members(league.id)}
        rows = [(member_of[u], p, s) for u, p, s in placings if u in member_of]
        if not league.robots_take_places:
            rows = places_among_members(rows)
        if rows and league.is_open and not await self._round_has_results(rnd.id):
            await self._insert_results(db, rnd, rows, "game", game_id)
        await db.execute("UPDATE games SET results_recorded = 1 WHERE id = ?", (game_id,))
        return True

    async def set_robots_take_places(self, league: League, on: bool) -> League:
        self._require_open(league)
        async with self.transaction() as db:
            await db.execute(
                "UPDATE leagues SET robots_take_places = ? WHERE id = ?", (int(on), league.id)
            )
        return await self.league_by_id(league.id)

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
    ) -> GameRecord:
        """A game row. `config` is what the rules need to replay it from `seed`; `settings`
        is the table's own (host, time limit...), never passed to the rules."""
        now = _now()
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO games (kind, guild_id, channel_id, league_id, round_id, seed,"
                " config_json, settings_json, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    guild_id,
                    channel_id,
                    league_id,
                    round_id,
                    seed,
                    json.dumps(config),
                    json.dumps(settings or {}),
                    status,
                    now,
                    now,
                ),
            )
            game_id = cur.lastrowid
            assert game_id is not None
            if state_json is not None:
                await db.execute(
                    "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                    " VALUES (?, 0, ?, ?)",
                    (game_id, state_json, now),
                )
            if seats:
                await self._write_seats(db, game_id, seats)
        return await self.load_game(game_id)

    async def _write_seats(self, db: aiosqlite.Connection, game_id: int, seats: list[Seat]) -> None:
        await db.execute("DELETE FROM game_seats WHERE game_id = ?", (game_id,))
        await db.executemany(
            "INSERT INTO game_seats (game_id, seat, user_id, name, robot, autopilot)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.user_id, s.name, int(s.robot), int(s.autopilot)) for s in seats],
        )

    async def start_game(
        self,
        game_id: int,
        config: dict[str, Any],
        state_json: str,
        seats: list[Seat],
        *,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> GameRecord:
        """Move a lobby to a running game: final config, seats, the seq-0 snapshot and the
        first timers, in one transaction (`human_at`: the start, for idle races)."""
        async with self.transaction() as db:
            row = await self._one("SELECT status FROM games WHERE id = ?", (game_id,))
            if row is None:
                raise NotFound(f"There is no game #{game_id}.")
            if row["status"] != "lobby":
                raise LeagueError("This game has already started.")
            await db.execute(
                "UPDATE games SET config_json = ?, status = 'running', updated_at = ?,"
                " last_human_at = ? WHERE id = ?",
                (json.dumps(config), _now(), human_at, game_id),
            )
            await db.execute(
                "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                " VALUES (?, 0, ?, ?)",
                (game_id, state_json, _now()),
            )
            await self._write_seats(db, game_id, seats)
            await self._replace_timers(db, game_id, timers or [])
        return await self.load_game(game_id)

    async def set_lobby(self, game_id: int, seats: list[Seat], settings: dict[str, Any]) -> None:
        """A lobby's seats and table settings (host, robots...) together."""
        async with self.transaction() as db:
            await self._write_seats(db, game_id, seats)
            await db.execute(
                "UPDATE games SET settings_json = ?, updated_at = ? WHERE id = ?",
                (json.dumps(settings), _now(), game_id),
            )

    async def set_seats(self, game_id: int, seats: list[Seat]) -> None:
        async with self.transaction() as db:
            await self._write_seats(db, game_id, seats)

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._all(
            "SELECT seat, user_id, name, robot, autopilot FROM game_seats WHERE game_id = ?"
            " ORDER BY seat",
            (game_id,),
        )
        return [
            Seat(
                seat=r["seat"],
                user_id=r["user_id"],
                name=r["name"],
                robot=bool(r["robot"]),
                autopilot=bool(r["autopilot"]),
            )
            for r in rows
        ]

    async def update_seat(self, game_id: int, seat: int, **fields: Any) -> None:
        """Set a seat's robot or autopilot flag (a driver replaced, or on autopilot)."""
        if not fields or set(fields) - {"robot", "autopilot"}:
            raise ValueError("update_seat takes only robot and autopilot")
        cols = ", ".join(f"{k} = ?" for k in fields)
        async with self.transaction() as db:
            await db.execute(
                f"UPDATE game_seats SET {cols} WHERE game_id = ? AND seat = ?",
                (*(int(v) for v in fields.values()), game_id, seat),
            )

    async def load_game(self, game_id: int) -> GameRecord:
        row = await self._one(
            f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN game_snapshots s"
            " ON s.game_id = g.id WHERE g.id = ?",
            (game_id,),
        )
        if row is None:
            raise NotFound(f"There is no game #{game_id}; it may have been removed.")
        return GameRecord.from_row(row)

    async def list_games(self, *, unfinished_only: bool = False) -> list[GameRecord]:
        where = " WHERE g.status IN ('lobby', 'running')" if unfinished_only else ""
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN game_snapshots s"
            f" ON s.game_id = g.id{where} ORDER BY g.id"
        )
        return [GameRecord.from_row(r) for r in rows]

    async def end_game(self, game_id: int, *, from_status: tuple[str, ...]) -> bool:
        """Abandon a game (a cancelled lobby or an abandoned race): status, no timers, in one
        transaction. False when it was no longer in one of `from_status`."""
        async with self.transaction() as db:
            marks = ", ".join("?" * len(from_status))
            cur = await db.execute(
                f"UPDATE games SET status = 'abandoned', updated_at = ? WHERE id = ?"
                f" AND status IN ({marks})",
                (_now(), game_id, *from_status),
            )
            if cur.rowcount == 0:
                return False
            await db.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
        return True

    async def games_of_user(self, guild_id: int, user_id: int) -> list[GameRecord]:
        """Unfinished games on this server in which the user holds a seat."""
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.guild_id = ? AND g.status IN ('lobby', 'running') AND EXISTS (SELECT 1"
            " FROM game_seats t WHERE t.game_id = g.id AND t.user_id = ?) ORDER BY g.id",
            (guild_id, user_id),
        )
        return [GameRecord.from_row(r) for r in rows]

    async def unpublished_games(self) -> list[GameRecord]:
        """Running games, and finished ones, whose last action has not reached the thread."""
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games g JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.status IN ('running', 'finished')"
            " AND (g.published_seq IS NULL OR g.published_seq < s.seq) ORDER BY g.id"
        )
        return [GameRecord.from_row(r) for r in rows]

    async def dm_reminders(self, user_id: int) -> bool:
        row = await self._one(
            "SELECT dm_reminders FROM user_settings WHERE user_id = ?", (user_id,)
        )
        return bool(row and row["dm_reminders"])

    async def set_dm_reminders(self, user_id: int, on: bool) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO user_settings (user_id, dm_reminders) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET dm_reminders = excluded.dm_reminders",
                (user_id, int(on)),
            )

    async def find_game(
        self, kind: str, *, channel_id: int | None = None, thread_id: int | None = None
    ) -> GameRecord | None:
        """The newest unfinished game of this kind in a channel or thread."""
        where, args = ["g.kind = ?", "g.status IN ('lobby', 'running')"], [kind]
        if channel_id is not None:
            where.append("g.channel_id = ?")
            args.append(channel_id)
        if thread_id is not None:
            where.append("g.thread_id = ?")
            args.append(thread_id)
        row = await self._one(
            f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN game_snapshots s"
            f" ON s.game_id = g.id WHERE {' AND '.join(where)} ORDER BY g.id DESC LIMIT 1",
            args,
        )
        return GameRecord.from_row(row) if row else None

    async def update_game(self, game_id: int, **fields: Any) -> None:
        """Set bookkeeping columns (thread, live message, status), never the state."""
        allowed = {
            "thread_id",
            "status_message_id",
            "channel_id",
            "status",
            "published_seq",
            "prompt_message_id",
        }
        if not fields or set(fields) - allowed:
            raise ValueError(f"update_game takes only {sorted(allowed)}")
        cols = ", ".join(f"{k} = ?" for k in fields)
        async with self.transaction() as db:
            await db.execute(
                f"UPDATE games SET {cols}, updated_at = ? WHERE id = ?",
                (*fields.values(), _now(), game_id),
            )

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
        results: list[tuple[int, int | None, str]] | None = None,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int:
        """Append one action as sequence number expected_seq + 1 and store the new snapshot,
        in one transaction. Raises StaleState (with the state that won) if the game moved on.

        In the same transaction: `results` (a finishing action's league placings, as
        `record_game_results` takes them), `timers` (replace the game's timers; None keeps
        them) and `human_at` (the time of a person's action, for idle races).
        """
        return await self.append_actions(
            game_id,
            expected_seq,
            [(actor, action_json, by_robot)],
            state_json,
            status=status,
            results=results,
            timers=timers,
            human_at=human_at,
        )

    async def append_actions(
        self,
        game_id: int,
        expected_seq: int,
        actions: list[tuple[str, str, bool]],
        state_json: str,
        *,
        status: str | None = None,
        results: list[tuple[int, int | None, str]] | None = None,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int:
        """`append_action` for a chain of actions (actor, action JSON, by robot) taken one
        after the other, e.g. robots' moves: every one logged, the snapshot of the last
        stored, one transaction. Returns the last sequence number."""
        if not actions:
            raise ValueError("append_actions needs at least one action")
        seq = expected_seq + len(actions)
        now = _now()
        try:
            async with self.transaction() as db:
                current = await self._one(
                    "SELECT seq FROM game_snapshots WHERE game_id = ?", (game_id,)
                )
                if current is None:
                    raise NotFound(f"Game #{game_id} has no state to act on.")
                if current["seq"] != expected_seq:
                    raise _Moved()
                await db.executemany(
                    "INSERT INTO game_actions (game_id, seq, actor, by_robot, action_json,"
                    " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (game_id, expected_seq + i + 1, who, int(robot), body, now)
                        for i, (who, body, robot) in enumerate(actions)
                    ],
                )
                await db.execute(
                    "UPDATE game_snapshots SET seq = ?, state_json = ?, updated_at = ?"
                    " WHERE game_id = ?",
                    (seq, state_json, now, game_id),
                )
                if status is not None:
                    await db.execute(
                        "UPDATE games SET status = ?, updated_at = ? WHERE id = ?",
                        (status, now, game_id),
                    )
                else:
                    await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
                if human_at is not None:
                    await db.execute(
                        "UPDATE games SET last_human_at = ? WHERE id = ?", (human_at, game_id)
                    )
                if results is not None:
                    await self._record_game_results(db, game_id, results)
                if timers is not None:
                    await self._replace_timers(db, game_id, timers)
        except (_Moved, sqlite3.IntegrityError):
            latest = await self.load_game(game_id)
            raise StaleState(game_id, latest.seq, latest.state_json or "") from None
        return seq

    async def actions(self, game_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT game_id, seq, actor, by_robot, action_json, created_at FROM game_actions"
            " WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            ActionRecord.model_validate({**dict(r), "by_robot": bool(r["by_robot"])}) for r in rows
        ]

    # Timers (RoboDanny's pattern: one task sleeps until the earliest) -------------------

    async def add_timer(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer:
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (event, due_at, game_id, json.dumps(payload), _now()),
            )
        assert cur.lastrowid is not None
        return Timer(id=cur.lastrowid, event=event, due_at=due_at, game_id=game_id, payload=payload)

    async def next_timer(self) -> Timer | None:
        row = await self._one("SELECT * FROM timers ORDER BY due_at, id LIMIT 1")
        return self._timer(row) if row else None

    async def timers(self, game_id: int | None = None) -> list[Timer]:
        if game_id is None:
            rows = await self._all("SELECT * FROM timers ORDER BY due_at, id")
        else:
            rows = await self._all(
                "SELECT * FROM timers WHERE game_id = ? ORDER BY due_at, id", (game_id,)
            )
        return [self._timer(r) for r in rows]

    async def delete_timer(self, timer_id: int) -> bool:
        async with self.transaction() as db:
            cur = await db.execute("DELETE FROM timers WHERE id = ?", (timer_id,))
        return cur.rowcount > 0

    async def replace_game_timers(self, game_id: int, timers: list[TimerSpec]) -> None:
        async with self.transaction() as db:
            await self._replace_timers(db, game_id, timers)

    async def _replace_timers(
        self, db: aiosqlite.Connection, game_id: int, timers: list[TimerSpec]
    ) -> None:
        await db.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
        await db.executemany(
            "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(t.event, t.due_at, game_id, json.dumps(t.payload), _now()) for t in timers],
        )

    async def delete_game_timers(self, game_id: int) -> int:
        async with self.transaction() as db:
            cur = await db.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
        return cur.rowcount

    @staticmethod
    def _timer(row: sqlite3.Row) -> Timer:
        d = dict(row)
        d["payload"] = json.loads(d.pop("payload_json"))
        d.pop("created_at", None)
        return Timer.model_validate(d)


class _Moved(Exception):
    """Internal: the snapshot's seq is not the one the writer expected."""
