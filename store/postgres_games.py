"""The PostgreSQL store's games (the action log and the snapshot, moving together) and
timers: the same methods and outcomes as store.games.

Per-game exclusion across processes: every transaction that reads a game and then writes
it, or that replaces a game's seats or timers, first locks the game's row
(`SELECT ... FOR NO KEY UPDATE`). A second writer waits for the first to commit and then
reads what it wrote, which is what SQLite's one-writer-at-a-time gave. Row locks, not
advisory ones: they end with the transaction whatever happens to the process, and they
cost nothing to games nobody else is writing.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from store.connection import _now
from store.errors import LeagueError, NotFound, Repeated, StaleState
from store.games import _GAME_COLUMNS, GameStore, bookkeeping
from store.models import ActionRecord, GameRecord, Once, Seat, Shards, Timer, TimerSpec
from store.postgres_connection import Executor
from store.postgres_leagues import PostgresLeagueStore

_timer = GameStore._timer
_FROM = "FROM games g LEFT JOIN game_snapshots s ON s.game_id = g.id"
# A timer's game and so its guild; a timer of no game (or a game of no guild) is shard 0's.
_TIMERS_FROM = "FROM timers t LEFT JOIN games g ON g.id = t.game_id"


def _shard_filter(shards: Shards | None, first: int) -> tuple[str, tuple[Any, ...]]:
    """SQL keeping the games `g` on `shards`' guilds (Discord's rule, as
    store.models.shard_of), with its arguments numbered from `first`."""
    if shards is None or shards.everything:
        return "", ()
    return (
        f" AND ((COALESCE(g.guild_id, 0) >> 22) % ${first}) = ANY(${first + 1}::bigint[])",
        (shards.count, list(shards.ids)),
    )


# One statement for the whole append once the game is locked (each statement is a round trip
# to the server, and one the event loop may wait for behind the image threads): the
# snapshot moves from $2 to $3 only if it is still at $2 (else nothing below happens and
# the count is 0), the log entries, the game's status and last human action, and (with $11)
# the game's timers replaced.
_APPEND = """
WITH snap AS (
    UPDATE game_snapshots SET seq = $3, state_json = $4, updated_at = $5
    WHERE game_id = $1 AND seq = $2 RETURNING game_id
), logged AS (
    INSERT INTO game_actions (game_id, seq, actor, by_robot, action_json, created_at)
    SELECT snap.game_id, $2 + a.n, a.actor, a.by_robot, a.body, $5
    FROM snap,
        unnest($6::text[], $7::int[], $8::text[]) WITH ORDINALITY AS a(actor, by_robot, body, n)
), game AS (
    UPDATE games SET status = COALESCE($9::text, status), updated_at = $5,
        last_human_at = COALESCE($10::float8, last_human_at)
    WHERE id IN (SELECT game_id FROM snap)
), gone AS (
    DELETE FROM timers WHERE $11 AND game_id IN (SELECT game_id FROM snap)
), armed AS (
    INSERT INTO timers (event, due_at, game_id, payload_json, created_at)
    SELECT t.event, t.due_at, snap.game_id, t.payload, $5
    FROM snap, unnest($12::text[], $13::float8[], $14::text[]) AS t(event, due_at, payload)
    WHERE $11
)
SELECT count(*) FROM snap
"""


class PostgresGameStore(PostgresLeagueStore):
    shared = True  # other processes write it too: a timer loop re-reads it every few seconds

    # Locks -----------------------------------------------------------------------------

    @staticmethod
    async def _lock_game(db: Executor, game_id: int) -> asyncpg.Record | None:
        """Lock the game's row until the transaction ends (None: no such game).

        NO KEY UPDATE rather than UPDATE: it excludes the other writers of the game, but
        not the rows that reference it (log entries, timers, results take KEY SHARE)."""
        return await db.fetchrow(
            "SELECT status FROM games WHERE id = $1 FOR NO KEY UPDATE", game_id
        )

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
    ) -> GameRecord:
        """A game row. `config` is what the rules need to replay it from `seed`; `settings`
        is the table's own (host, time limit...), never passed to the rules; `timers` (a
        lobby's idle timer) are written in the same transaction. `once`: the command making
        it, noted with it; the same command within its window raises Repeated (the game
        it made), nothing written."""
        now = _now()
        async with self.transaction() as db:
            game_id = await db.fetchval(
                "INSERT INTO games (kind, guild_id, channel_id, league_id, round_id, seed,"
                " config_json, settings_json, status, created_at, updated_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
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
            )
            if state_json is not None:
                await db.execute(
                    "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                    " VALUES ($1, 0, $2, $3)",
                    game_id,
                    state_json,
                    now,
                )
            if seats:
                await self._write_seats(db, game_id, seats)
            if timers:
                await self._replace_timers(db, game_id, timers)
            if once is not None:
                await self._note_once(db, game_id, once)
        return await self.load_game(game_id)

    async def _note_once(self, db: Executor, game_id: int, once: Once) -> None:
        """Note the command that made `game_id`, or raise Repeated (rolling the game back) if
        the same command made one within its window that is still on (a lobby or a race:
        one cancelled or over meanwhile does not stand in the way of a new one). The row is
        claimed first: a second process noting the same command waits for the first's
        commit, then sees its game."""
        await db.execute("DELETE FROM recent_commands WHERE at < $1", once.at - once.window)
        key = (once.channel_id, once.user_id, once.command)
        await db.execute(
            "INSERT INTO recent_commands (channel_id, user_id, command, game_id, at)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            *key,
            game_id,
            once.at,
        )
        first = await db.fetchval(
            "SELECT game_id FROM recent_commands"
            " WHERE channel_id = $1 AND user_id = $2 AND command = $3 FOR UPDATE",
            *key,
        )
        if first == game_id:
            return  # noted just now
        if first is not None:  # (None: another process's clean-up took an old row meanwhile)
            status = await db.fetchval("SELECT status FROM games WHERE id = $1", first)
            if status in ("lobby", "running"):
                raise Repeated(first)
        await db.execute(
            "INSERT INTO recent_commands (channel_id, user_id, command, game_id, at)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (channel_id, user_id, command)"
            " DO UPDATE SET game_id = excluded.game_id, at = excluded.at",
            *key,
            game_id,
            once.at,
        )

    async def _write_seats(self, db: Executor, game_id: int, seats: list[Seat]) -> None:
        # Callers hold the game's lock: under READ COMMITTED a second DELETE would not see
        # the rows a first writer is inserting, and both sets of seats would clash.
        await db.execute("DELETE FROM game_seats WHERE game_id = $1", game_id)
        if seats:
            await db.executemany(
                "INSERT INTO game_seats (game_id, seat, user_id, name, robot, autopilot)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    (game_id, s.seat, s.user_id, s.name, int(s.robot), int(s.autopilot))
                    for s in seats
                ],
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
            row = await self._lock_game(db, game_id)  # two starts: the second sees 'running'
            if row is None:
                raise NotFound(f"There is no game #{game_id}.")
            if row["status"] != "lobby":
                raise LeagueError("This game has already started.")
            await db.execute(
                "UPDATE games SET config_json = $1, status = 'running', updated_at = $2,"
                " last_human_at = $3 WHERE id = $4",
                json.dumps(config),
                _now(),
                human_at,
                game_id,
            )
            await db.execute(
                "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                " VALUES ($1, 0, $2, $3)",
                game_id,
                state_json,
                _now(),
            )
            await self._write_seats(db, game_id, seats)
            await self._replace_timers(db, game_id, timers or [])
        return await self.load_game(game_id)

    async def set_lobby(self, game_id: int, seats: list[Seat], settings: dict[str, Any]) -> None:
        """A lobby's seats and table settings (host, robots...) together."""
        async with self.transaction() as db:
            await self._lock_game(db, game_id)
            await self._write_seats(db, game_id, seats)
            await db.execute(
                "UPDATE games SET settings_json = $1, updated_at = $2 WHERE id = $3",
                json.dumps(settings),
                _now(),
                game_id,
            )

    async def set_seats(self, game_id: int, seats: list[Seat]) -> None:
        async with self.transaction() as db:
            await self._lock_game(db, game_id)
            await self._write_seats(db, game_id, seats)

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._all(
            "SELECT seat, user_id, name, robot, autopilot FROM game_seats WHERE game_id = $1"
            " ORDER BY seat",
            game_id,
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
        cols = ", ".join(f"{k} = ${i}" for i, k in enumerate(fields, start=1))
        n = len(fields)
        # One statement (so one transaction and one round trip), as in the methods below.
        await self._val(
            f"UPDATE game_seats SET {cols} WHERE game_id = ${n + 1} AND seat = ${n + 2}",
            *(int(v) for v in fields.values()),
            game_id,
            seat,
        )

    async def load_game(self, game_id: int, *, db: Executor | None = None) -> GameRecord:
        row = await self._one(f"SELECT {_GAME_COLUMNS} {_FROM} WHERE g.id = $1", game_id, db=db)
        if row is None:
            raise NotFound(f"There is no game #{game_id}; it may have been removed.")
        return GameRecord.from_row(row)

    async def list_games(self, *, unfinished_only: bool = False) -> list[GameRecord]:
        where = " WHERE g.status IN ('lobby', 'running')" if unfinished_only else ""
        rows = await self._all(f"SELECT {_GAME_COLUMNS} {_FROM}{where} ORDER BY g.id")
        return [GameRecord.from_row(r) for r in rows]

    async def end_game(
        self,
        game_id: int,
        *,
        from_status: tuple[str, ...],
        timers: list[TimerSpec] | None = None,
    ) -> bool:
        """Abandon a game (a cancelled lobby or an abandoned race): status, and its timers
        replaced by `timers` (none by default), in one transaction. False when it was no
        longer in one of `from_status`."""
        async with self.transaction() as db:
            # One statement: it waits for the row's other writer, then checks the status
            # that writer left.
            done = await db.fetchval(
                "UPDATE games SET status = 'abandoned', updated_at = $1 WHERE id = $2"
                " AND status = ANY($3::text[]) RETURNING id",
                _now(),
                game_id,
                list(from_status),
            )
            if done is None:
                return False
            await self._replace_timers(db, game_id, timers or [])  # under the row's lock
        return True

    async def games_of_user(self, guild_id: int, user_id: int) -> list[GameRecord]:
        """Unfinished games on this server in which the user holds a seat."""
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} {_FROM}"
            " WHERE g.guild_id = $1 AND g.status IN ('lobby', 'running') AND EXISTS (SELECT 1"
            " FROM game_seats t WHERE t.game_id = g.id AND t.user_id = $2) ORDER BY g.id",
            guild_id,
            user_id,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def unpublished_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """Running games, and finished ones, whose last action has not reached the thread
        (with `shards`: of guilds on those shards only, the ones this process recovers)."""
        where, args = _shard_filter(shards, 1)
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games g JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.status IN ('running', 'finished')"
            f" AND (g.published_seq IS NULL OR g.published_seq < s.seq){where} ORDER BY g.id",
            *args,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def dm_reminders(self, user_id: int) -> bool:
        row = await self._one("SELECT dm_reminders FROM user_settings WHERE user_id = $1", user_id)
        return bool(row and row["dm_reminders"])

    async def set_dm_reminders(self, user_id: int, on: bool) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO user_settings (user_id, dm_reminders) VALUES ($1, $2)"
                " ON CONFLICT (user_id) DO UPDATE SET dm_reminders = excluded.dm_reminders",
                user_id,
                int(on),
            )

    async def find_game(
        self, kind: str, *, channel_id: int | None = None, thread_id: int | None = None
    ) -> GameRecord | None:
        """The newest unfinished game of this kind in a channel or thread."""
        return await self._newest(kind, channel_id, thread_id, unfinished=True)

    async def latest_game(
        self, kind: str, *, channel_id: int | None = None, thread_id: int | None = None
    ) -> GameRecord | None:
        """The newest game of this kind in a channel or thread, over or not."""
        return await self._newest(kind, channel_id, thread_id, unfinished=False)

    async def _newest(
        self, kind: str, channel_id: int | None, thread_id: int | None, *, unfinished: bool
    ) -> GameRecord | None:
        where = ["g.kind = $1"]
        if unfinished:
            where.append("g.status IN ('lobby', 'running')")
        args: list[str | int] = [kind]
        if channel_id is not None:
            args.append(channel_id)
            where.append(f"g.channel_id = ${len(args)}")
        if thread_id is not None:
            args.append(thread_id)
            where.append(f"g.thread_id = ${len(args)}")
        row = await self._one(
            f"SELECT {_GAME_COLUMNS} {_FROM} WHERE {' AND '.join(where)}"
            " ORDER BY g.id DESC LIMIT 1",
            *args,
        )
        return GameRecord.from_row(row) if row else None

    async def update_game(self, game_id: int, **fields: Any) -> None:
        """Set bookkeeping columns (thread, live message, status, feed), never the state."""
        fields = bookkeeping(fields)
        cols = ", ".join(f"{k} = ${i}" for i, k in enumerate(fields, start=1))
        n = len(fields)
        await self._val(
            f"UPDATE games SET {cols}, updated_at = ${n + 1} WHERE id = ${n + 2}",
            *fields.values(),
            _now(),
            game_id,
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
                # The game's lock first: a writer that lost the race waited here for the
                # winner's commit; the next statement (a snapshot taken now) sees what it
                # wrote, and finds the snapshot no longer at expected_seq.
                if await self._lock_game(db, game_id) is None:
                    raise NotFound(f"Game #{game_id} has no state to act on.")
                stored = await db.fetchval(
                    _APPEND,
                    game_id,
                    expected_seq,
                    seq,
                    state_json,
                    now,
                    [who for who, _, _ in actions],
                    [int(robot) for _, _, robot in actions],
                    [body for _, body, _ in actions],
                    status,
                    human_at,
                    timers is not None,
                    [t.event for t in timers or []],
                    [t.due_at for t in timers or []],
                    [json.dumps(t.payload) for t in timers or []],
                )
                if not stored:
                    raise _Moved()  # nothing written: the game moved on (or has no state)
                if results is not None:
                    await self._record_game_results(db, game_id, results)
        except (_Moved, asyncpg.IntegrityConstraintViolationError):
            # As store.games: a constraint broken by the append is a lost race too.
            latest = await self.load_game(game_id)
            if latest.state_json is None:
                raise NotFound(f"Game #{game_id} has no state to act on.") from None
            raise StaleState(game_id, latest.seq, latest.state_json) from None
        return seq

    async def actions(self, game_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT game_id, seq, actor, by_robot, action_json, created_at FROM game_actions"
            " WHERE game_id = $1 ORDER BY seq",
            game_id,
        )
        return [
            ActionRecord.model_validate({**dict(r), "by_robot": bool(r["by_robot"])}) for r in rows
        ]

    # Timers (RoboDanny's pattern: one task sleeps until the earliest) -------------------

    async def add_timer(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer:
        timer_id = await self._val(
            "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
            " VALUES ($1, $2, $3, $4, $5) RETURNING id",
            event,
            due_at,
            game_id,
            json.dumps(payload),
            _now(),
        )
        return Timer(id=timer_id, event=event, due_at=due_at, game_id=game_id, payload=payload)

    async def next_timer(self, *, shards: Shards | None = None) -> Timer | None:
        """The earliest timer (of a game on one of `shards`, when given)."""
        where, args = _shard_filter(shards, 1)
        row = await self._one(
            f"SELECT t.* {_TIMERS_FROM} WHERE true{where} ORDER BY t.due_at, t.id LIMIT 1",
            *args,
        )
        return _timer(row) if row else None

    async def claim_due_timer(self, now: float, *, shards: Shards | None = None) -> Timer | None:
        """Take the earliest timer due at `now` (of a game on one of `shards`, when given)
        out of the table and return it (None when nothing is due). SKIP LOCKED: a timer
        another process is claiming right now is passed over, not waited for, so several
        processes claim different timers at once and each timer goes to exactly one."""
        where, args = _shard_filter(shards, 2)
        # One statement, so its own transaction: one round trip (the loop runs it often).
        row = await self._one(
            "DELETE FROM timers WHERE id = (SELECT t.id"
            f" {_TIMERS_FROM} WHERE t.due_at <= $1{where} ORDER BY t.due_at, t.id LIMIT 1"
            " FOR UPDATE OF t SKIP LOCKED) RETURNING *",
            now,
            *args,
        )
        return _timer(row) if row else None

    async def timers(self, game_id: int | None = None) -> list[Timer]:
        if game_id is None:
            rows = await self._all("SELECT * FROM timers ORDER BY due_at, id")
        else:
            rows = await self._all(
                "SELECT * FROM timers WHERE game_id = $1 ORDER BY due_at, id", game_id
            )
        return [_timer(r) for r in rows]

    async def delete_timer(self, timer_id: int) -> bool:
        # Of two processes deleting one timer, the second waits for the first's row lock
        # and then deletes nothing: True goes to exactly one of them.
        deleted = await self._val("DELETE FROM timers WHERE id = $1 RETURNING id", timer_id)
        return deleted is not None

    async def replace_game_timers(self, game_id: int, timers: list[TimerSpec]) -> None:
        async with self.transaction() as db:
            await self._lock_game(db, game_id)
            await self._replace_timers(db, game_id, timers)

    async def _replace_timers(self, db: Executor, game_id: int, timers: list[TimerSpec]) -> None:
        # Callers hold the game's lock (two replacements would otherwise both insert).
        await db.execute("DELETE FROM timers WHERE game_id = $1", game_id)
        if timers:
            now = _now()
            await db.executemany(
                "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
                " VALUES ($1, $2, $3, $4, $5)",
                [(t.event, t.due_at, game_id, json.dumps(t.payload), now) for t in timers],
            )

    async def delete_game_timers(self, game_id: int) -> int:
        async with self.transaction() as db:
            status = await db.execute("DELETE FROM timers WHERE game_id = $1", game_id)
        return int(status.split()[-1])  # "DELETE <count>"


class _Moved(Exception):
    """Internal: the snapshot's seq is not the one the writer expected."""
