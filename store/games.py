"""The store's games (the action log and the snapshot, moving together, and the game's
timers with them: store/timers.py), on either database (store.dialect).

Per-game exclusion: a transaction that reads a game and then writes on what it read, or
that replaces a game's seats or timers, first locks the game's row (`_lock_game`,
`Dialect.lock_row`). On PostgreSQL a second writer then waits for the first to commit and
reads what it wrote, which is what SQLite's one writer at a time gives. Row locks, not
advisory ones: they end with the transaction whatever happens to the process, and they cost
nothing to games nobody else is writing.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from store.dialect import Tx, now, shard_filter
from store.errors import LeagueError, NotFound, NothingToUndo, Repeated, StaleState
from store.models import ActionRecord, GameRecord, Once, Seat, Shards, TimerSpec
from store.protocol import Placings
from store.timers import TimerStore, replace_timers
from store.undo import Mark

_GAME_COLUMNS = (
    "g.id, g.kind, g.guild_id, g.channel_id, g.thread_id, g.status_message_id, g.league_id,"
    " g.round_id, g.seed, g.config_json, g.settings_json, g.status, g.results_recorded, s.seq,"
    " s.state_json, g.published_seq, g.prompt_message_id, g.last_human_at, g.feed_json"
)
_GAMES = f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN game_snapshots s ON s.game_id = g.id"

# What `update_game` may set: the game's bookkeeping, never its state.
_BOOKKEEPING = (
    "thread_id",
    "status_message_id",
    "channel_id",
    "status",
    "published_seq",
    "prompt_message_id",
    "feed",
)


def bookkeeping(fields: dict[str, Any]) -> dict[str, Any]:
    """`update_game`'s fields as columns and values (the feed as JSON); a field it does not
    take is a bug: ValueError."""
    if not fields or set(fields) - set(_BOOKKEEPING):
        raise ValueError(f"update_game takes only {sorted(_BOOKKEEPING)}")
    return {
        ("feed_json" if k == "feed" else k): (json.dumps(v) if k == "feed" else v)
        for k, v in fields.items()
    }


# A timer's game and so its guild; a timer of no game is its own guild's (a league round's),
# or shard 0's.


class Append(NamedTuple):  # (not a frozen dataclass: ~4x slower to make, on every move)
    """What `append_actions` writes: `actions` (actor, action JSON, by robot) numbered from
    `expected_seq` + 1 to `seq`, the snapshot at `seq`, the game's status and last human
    action when given, its timers replaced when `timers` is not None."""

    game_id: int
    expected_seq: int
    seq: int
    actions: list[tuple[str, str, bool]]
    state_json: str
    at: str
    status: str | None
    human_at: float | None
    timers: list[TimerSpec] | None


class GameStore(TimerStore):
    # Locks -----------------------------------------------------------------------------

    async def _lock_game(self, tx: Tx, game_id: int) -> None:
        if self.dialect.lock_row:  # (SQLite: the transaction is the lock)
            await tx.execute(f"SELECT 1 FROM games WHERE id = ?{self.dialect.lock_row}", game_id)

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
        opens_round: float | None = None,
    ) -> GameRecord:
        """A game row. `config` is what the rules need to replay it from `seed`; `settings`
        is the table's own (host, time limit...), never passed to the rules; `timers` (a
        lobby's idle timer) are written in the same transaction. `once`: the command making
        it, noted with it; the same command within its window raises Repeated (the game
        it made), nothing written. `opens_round` (the instant): the bot opening a league
        round at its start; the round is marked opened with it, or RoundOpened is raised
        (it was opened, has a race or a result): a round opens once, across processes."""
        at = now()

        async def create(tx: Tx) -> int:
            if opens_round is not None:
                assert league_id is not None and round_id is not None
                await self.claim_round(tx, league_id, round_id, opens_round)
            game_id: int = await tx.fetchval(
                "INSERT INTO games (kind, guild_id, channel_id, league_id, round_id, seed,"
                " config_json, settings_json, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                kind,
                guild_id,
                channel_id,
                league_id,
                round_id,
                seed,
                json.dumps(config),
                json.dumps(settings or {}),
                status,
                at,
                at,
            )
            if state_json is not None:
                await tx.execute(
                    "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                    " VALUES (?, 0, ?, ?)",
                    game_id,
                    state_json,
                    at,
                )
            if seats:
                await self._write_seats(tx, game_id, seats)
            if timers:
                await replace_timers(tx, game_id, timers)
            if once is not None:
                await self._note_once(tx, game_id, once)
            return game_id

        return await self.load_game(await self._transact(create))

    async def _note_once(self, tx: Tx, game_id: int, once: Once) -> None:
        """Note the command that made `game_id`, or raise Repeated (rolling the game back) if
        the same command made one within its window that is still on (a lobby or a race:
        one cancelled or over meanwhile does not stand in the way of a new one). The row is
        claimed first: a second process noting the same command waits for the first's
        commit, then sees its game."""
        await tx.execute("DELETE FROM recent_commands WHERE at < ?", once.at - once.window)
        key = (once.channel_id, once.user_id, once.command)
        await tx.execute(
            "INSERT INTO recent_commands (channel_id, user_id, command, game_id, at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            *key,
            game_id,
            once.at,
        )
        first = await tx.fetchval(
            "SELECT game_id FROM recent_commands WHERE channel_id = ? AND user_id = ?"
            f" AND command = ?{self.dialect.lock_row}",
            *key,
        )
        if first == game_id:
            return  # noted just now
        if first is not None:  # (None: another process's clean-up took an old row meanwhile)
            status = await tx.fetchval("SELECT status FROM games WHERE id = ?", first)
            if status in ("lobby", "running"):
                raise Repeated(first)
        await tx.execute(
            "INSERT INTO recent_commands (channel_id, user_id, command, game_id, at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel_id, user_id, command)"
            " DO UPDATE SET game_id = excluded.game_id, at = excluded.at",
            *key,
            game_id,
            once.at,
        )

    @staticmethod
    async def _write_seats(tx: Tx, game_id: int, seats: list[Seat]) -> None:
        # Callers hold the game's lock: under PostgreSQL's READ COMMITTED a second DELETE
        # would not see the rows a first writer is inserting, and both sets would clash.
        await tx.execute("DELETE FROM game_seats WHERE game_id = ?", game_id)
        if seats:
            await tx.executemany(
                "INSERT INTO game_seats (game_id, seat, user_id, name, robot, autopilot)"
                " VALUES (?, ?, ?, ?, ?, ?)",
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

        async def start(tx: Tx) -> None:
            row = await tx.fetchrow(  # locked: of two starts, the second sees 'running'
                f"SELECT status FROM games WHERE id = ?{self.dialect.lock_row}", game_id
            )
            if row is None:
                raise NotFound(f"There is no game #{game_id}.")
            if row["status"] != "lobby":
                raise LeagueError("This game has already started.")
            at = now()
            await tx.execute(
                "UPDATE games SET config_json = ?, status = 'running', updated_at = ?,"
                " last_human_at = ? WHERE id = ?",
                json.dumps(config),
                at,
                human_at,
                game_id,
            )
            await tx.execute(
                "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
                " VALUES (?, 0, ?, ?)",
                game_id,
                state_json,
                at,
            )
            await self._write_seats(tx, game_id, seats)
            await replace_timers(tx, game_id, timers or [])

        await self._transact(start)
        return await self.load_game(game_id)

    async def set_lobby(self, game_id: int, seats: list[Seat], settings: dict[str, Any]) -> None:
        """A lobby's seats and table settings (host, robots...) together."""

        async def set_lobby(tx: Tx) -> None:
            await self._lock_game(tx, game_id)
            await self._write_seats(tx, game_id, seats)
            await tx.execute(
                "UPDATE games SET settings_json = ?, updated_at = ? WHERE id = ?",
                json.dumps(settings),
                now(),
                game_id,
            )

        await self._transact(set_lobby)

    async def set_seats(self, game_id: int, seats: list[Seat]) -> None:
        async def set_seats(tx: Tx) -> None:
            await self._lock_game(tx, game_id)
            await self._write_seats(tx, game_id, seats)

        await self._transact(set_seats)

    async def seats(self, game_id: int) -> list[Seat]:
        rows = await self._all(
            "SELECT seat, user_id, name, robot, autopilot FROM game_seats WHERE game_id = ?"
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
        cols = ", ".join(f"{k} = ?" for k in fields)
        await self._statement(
            f"UPDATE game_seats SET {cols} WHERE game_id = ? AND seat = ?",
            *(int(v) for v in fields.values()),
            game_id,
            seat,
        )

    async def load_game(self, game_id: int) -> GameRecord:
        row = await self._one(f"{_GAMES} WHERE g.id = ?", game_id)
        if row is None:
            raise NotFound(f"There is no game #{game_id}; it may have been removed.")
        return GameRecord.from_row(row)

    async def list_games(self, *, unfinished_only: bool = False) -> list[GameRecord]:
        where = " WHERE g.status IN ('lobby', 'running')" if unfinished_only else ""
        rows = await self._all(f"{_GAMES}{where} ORDER BY g.id")
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
        if not from_status:
            return False
        marks = ", ".join("?" * len(from_status))

        async def end(tx: Tx) -> bool:
            # One statement: on PostgreSQL it waits for the row's other writer, then checks
            # the status that writer left.
            done = await tx.fetchval(
                "UPDATE games SET status = 'abandoned', updated_at = ? WHERE id = ?"
                f" AND status IN ({marks}) RETURNING id",
                now(),
                game_id,
                *from_status,
            )
            if done is None:
                return False
            await replace_timers(tx, game_id, timers or [])  # under the row's lock
            return True

        return await self._transact(end)

    async def games_of_user(self, guild_id: int, user_id: int) -> list[GameRecord]:
        """Unfinished games on this server in which the user holds a seat."""
        rows = await self._all(
            f"{_GAMES} WHERE g.guild_id = ? AND g.status IN ('lobby', 'running') AND EXISTS"
            " (SELECT 1 FROM game_seats t WHERE t.game_id = g.id AND t.user_id = ?)"
            " ORDER BY g.id",
            guild_id,
            user_id,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def running_games_of_user(self, user_id: int) -> list[GameRecord]:
        """Running games, on every server, in which the user holds a seat (their digest,
        their deadlines moved when they go away)."""
        rows = await self._all(
            f"{_GAMES} WHERE g.status = 'running' AND EXISTS"
            " (SELECT 1 FROM game_seats t WHERE t.game_id = g.id AND t.user_id = ?)"
            " ORDER BY g.id",
            user_id,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def unpublished_games(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """Running games, and finished ones, whose last action has not reached the thread
        (with `shards`: of guilds on those shards only, the ones this process recovers)."""
        where, args = shard_filter(shards, "COALESCE(g.guild_id, 0)")
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games g JOIN game_snapshots s ON s.game_id = g.id"
            " WHERE g.status IN ('running', 'finished')"
            f" AND (g.published_seq IS NULL OR g.published_seq < s.seq){where} ORDER BY g.id",
            *args,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def unposted_lobbies(self, *, shards: Shards | None = None) -> list[GameRecord]:
        """Lobbies of league rounds stored but never posted (the bot stopped between opening
        a round and posting it): the bot posts them at start-up."""
        where, args = shard_filter(shards, "COALESCE(g.guild_id, 0)")
        rows = await self._all(
            f"{_GAMES} WHERE g.status = 'lobby' AND g.round_id IS NOT NULL AND g.thread_id IS NULL"
            f" AND g.status_message_id IS NULL{where} ORDER BY g.id",
            *args,
        )
        return [GameRecord.from_row(r) for r in rows]

    async def dm_reminders(self, user_id: int) -> bool:
        row = await self._one("SELECT dm_reminders FROM user_settings WHERE user_id = ?", user_id)
        return bool(row and row["dm_reminders"])

    async def set_dm_reminders(self, user_id: int, on: bool) -> None:
        await self._statement(
            "INSERT INTO user_settings (user_id, dm_reminders) VALUES (?, ?)"
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
        where = ["g.kind = ?"]
        if unfinished:
            where.append("g.status IN ('lobby', 'running')")
        args: list[str | int] = [kind]
        if channel_id is not None:
            where.append("g.channel_id = ?")
            args.append(channel_id)
        if thread_id is not None:
            where.append("g.thread_id = ?")
            args.append(thread_id)
        row = await self._one(
            f"{_GAMES} WHERE {' AND '.join(where)} ORDER BY g.id DESC LIMIT 1", *args
        )
        return GameRecord.from_row(row) if row else None

    async def update_game(self, game_id: int, **fields: Any) -> None:
        """Set bookkeeping columns (thread, live message, status, feed), never the state."""
        fields = bookkeeping(fields)
        cols = ", ".join(f"{k} = ?" for k in fields)
        await self._statement(
            f"UPDATE games SET {cols}, updated_at = ? WHERE id = ?",
            *fields.values(),
            now(),
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
        results: Placings | None = None,
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
        results: Placings | None = None,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int:
        """`append_action` for a chain of actions (actor, action JSON, by robot) taken one
        after the other, e.g. robots' moves: every one logged, the snapshot of the last
        stored, one transaction. Returns the last sequence number."""
        if not actions:
            raise ValueError("append_actions needs at least one action")
        seq = expected_seq + len(actions)
        append = Append(
            game_id, expected_seq, seq, actions, state_json, now(), status, human_at, timers
        )

        async def write(tx: Tx) -> None:
            if not await self._append(tx, append):
                raise _Moved()
            if results is not None:  # a finish in a league round: its results with it
                await self._record_game_results(tx, game_id, results)

        lost: tuple[type[Exception], ...] = (_Moved, *self.dialect.integrity_errors)
        try:
            await self._transact(write)
        except lost:
            # A constraint broken by the append (a log entry's key) is a lost race too.
            latest = await self.load_game(game_id)
            if latest.state_json is None:
                raise NotFound(f"Game #{game_id} has no state to act on.") from None
            raise StaleState(game_id, latest.seq, latest.state_json) from None
        return seq

    async def _append(self, tx: Tx, a: Append) -> bool:
        """Write `a` if the game's snapshot is still at `a.expected_seq` (False: it moved on,
        nothing written). Statement by statement; PostgresStore writes it in one."""
        await self._lock_game(tx, a.game_id)  # a writer that lost the race waits here
        # The check and the move in one statement: the snapshot moves only if still there.
        # The seq it moves from and the timers until now are kept for an undo (store/undo.py).
        moved = await tx.fetchval(
            "UPDATE game_snapshots SET seq = ?, state_json = ?, updated_at = ?, prior_seq = seq,"
            f" prior_timers_json = {self.dialect.timers_json_sql}"
            " WHERE game_id = ? AND seq = ? RETURNING seq",
            a.seq,
            a.state_json,
            a.at,
            a.game_id,
            a.game_id,
            a.expected_seq,
        )
        if moved is None:
            if await tx.fetchval("SELECT 1 FROM game_snapshots WHERE game_id = ?", a.game_id):
                return False
            raise NotFound(f"Game #{a.game_id} has no state to act on.")
        await tx.executemany(
            "INSERT INTO game_actions (game_id, seq, actor, by_robot, action_json,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (a.game_id, a.expected_seq + i + 1, who, int(robot), body, a.at)
                for i, (who, body, robot) in enumerate(a.actions)
            ],
        )
        await tx.execute(
            "UPDATE games SET status = COALESCE(?, status), updated_at = ?,"
            " last_human_at = COALESCE(?, last_human_at) WHERE id = ?",
            a.status,
            a.at,
            a.human_at,
            a.game_id,
        )
        if a.timers is not None:
            await replace_timers(tx, a.game_id, a.timers, a.at)
        return True

    async def take_back(
        self,
        game_id: int,
        expected_seq: int,
        actor: str,
        mark: Mark,
        state_json: str,
        *,
        timers: list[TimerSpec] | None = None,
        human_at: float | None = None,
    ) -> int:
        """Append `mark` (an undo or a rewind, store/undo.py) as expected_seq + 1 and set the
        snapshot to `state_json`, the state after entry `mark.to`, in one transaction with the
        row lock and sequence check of a move (StaleState: the game moved on). `timers`
        replace the game's; None (an undo) puts back those kept by the last append, which
        must have been the one action taken back (else NothingToUndo). A finished game runs
        again: its league result and placings go (its season must be open, else
        LeagueError; a wrap-up is posted again). No undo follows a mark: it keeps no prior.
        `human_at`: the person's act, from which the race's idle days count."""
        seq = expected_seq + 1

        async def write(tx: Tx) -> None:
            await self._lock_game(tx, game_id)
            row = await tx.fetchrow(
                "SELECT s.seq, s.prior_seq, s.prior_timers_json, g.status, g.league_id,"
                " g.round_id, g.results_recorded FROM game_snapshots s JOIN games g"
                " ON g.id = s.game_id WHERE s.game_id = ?",
                game_id,
            )
            if row is None:
                raise NotFound(f"Game #{game_id} has no state to act on.")
            if row["seq"] != expected_seq:
                raise _Moved()
            if row["status"] not in ("running", "finished"):
                raise LeagueError("This race is no longer running.")
            restore = timers
            if restore is None:
                if row["prior_seq"] is None or row["prior_seq"] != mark.to:
                    raise NothingToUndo("There is no move of yours to take back.")
                kept = json.loads(row["prior_timers_json"])
                restore = [TimerSpec.model_validate(t) for t in kept]
            if row["status"] == "finished":
                await self._reopen(tx, game_id, row["league_id"], row["round_id"])
            at = now()
            await tx.execute(
                "UPDATE game_snapshots SET seq = ?, state_json = ?, updated_at = ?,"
                " prior_seq = NULL, prior_timers_json = NULL WHERE game_id = ?",
                seq,
                state_json,
                at,
                game_id,
            )
            await tx.execute(
                "INSERT INTO game_actions (game_id, seq, actor, by_robot, action_json,"
                " created_at) VALUES (?, ?, ?, 0, ?, ?)",
                game_id,
                seq,
                actor,
                mark.to_json(),
                at,
            )
            await tx.execute(
                "UPDATE games SET status = 'running', results_recorded = 0, updated_at = ?,"
                " last_human_at = COALESCE(?, last_human_at) WHERE id = ?",
                at,
                human_at,
                game_id,
            )
            await replace_timers(tx, game_id, restore, at)

        lost: tuple[type[Exception], ...] = (_Moved, *self.dialect.integrity_errors)
        try:
            await self._transact(write)
        except lost:
            latest = await self.load_game(game_id)
            raise StaleState(game_id, latest.seq, latest.state_json or "") from None
        return seq

    async def _reopen(
        self, tx: Tx, game_id: int, league_id: int | None, round_id: int | None
    ) -> None:
        """A finished game about to run again: its finishing order and its round's result
        (the round to be raced again) go, in a season still open; a wrap-up posted for the
        season is undone too (posted again once the calendar's results are all in)."""
        await tx.execute("DELETE FROM game_placings WHERE game_id = ?", game_id)
        if league_id is None:
            return
        await self._lock_league(tx, league_id)
        status = await tx.fetchval("SELECT status FROM leagues WHERE id = ?", league_id)
        if status != "open":
            raise LeagueError(
                "This race's season is over: its result stands, so the race cannot be taken back."
            )
        await tx.execute("DELETE FROM round_results WHERE game_id = ? AND source = 'game'", game_id)
        await tx.execute("UPDATE leagues SET wrapped_at = NULL WHERE id = ?", league_id)
        if round_id is not None and not await self._round_has_results(tx, round_id):
            await tx.execute("UPDATE league_rounds SET status = 'scheduled' WHERE id = ?", round_id)

    async def actions(self, game_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT game_id, seq, actor, by_robot, action_json, created_at FROM game_actions"
            " WHERE game_id = ? ORDER BY seq",
            game_id,
        )
        return [
            ActionRecord.model_validate({**dict(r), "by_robot": bool(r["by_robot"])}) for r in rows
        ]

    async def replace_game_timers(self, game_id: int, timers: list[TimerSpec]) -> None:
        async def replace(tx: Tx) -> None:
            await self._lock_game(tx, game_id)
            await replace_timers(tx, game_id, timers)

        await self._transact(replace)


class _Moved(Exception):
    """Internal: the snapshot's seq is not the one the writer expected."""
