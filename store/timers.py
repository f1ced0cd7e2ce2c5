"""The store's timers (RoboDanny's pattern: one task sleeps until the earliest due), on
either database (store.dialect). A game's timers are replaced with its moves, in the move's
transaction and under its row lock (store/games.py, `replace_timers`)."""

from __future__ import annotations

import json
from typing import Any

from store.dialect import Row, Tx, now, shard_filter
from store.models import Shards, Timer, TimerSpec
from store.race_logs import RaceLogStore

_TIMERS_FROM = "FROM timers t LEFT JOIN games g ON g.id = t.game_id"
_TIMER_GUILD = "COALESCE(g.guild_id, t.guild_id, 0)"


async def replace_timers(
    tx: Tx, game_id: int, timers: list[TimerSpec], at: str | None = None
) -> None:
    """A game's timers replaced by `timers`. Callers hold the game's lock (two replacements
    would otherwise both insert)."""
    await tx.execute("DELETE FROM timers WHERE game_id = ?", game_id)
    if timers:
        at = at or now()
        await tx.executemany(
            "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(t.event, t.due_at, game_id, json.dumps(t.payload), at) for t in timers],
        )


class TimerStore(RaceLogStore):
    async def add_timer(
        self, event: str, due_at: float, payload: dict[str, Any], game_id: int | None = None
    ) -> Timer:
        (row,) = await self._statement(
            "INSERT INTO timers (event, due_at, game_id, payload_json, created_at)"
            " VALUES (?, ?, ?, ?, ?) RETURNING id",
            event,
            due_at,
            game_id,
            json.dumps(payload),
            now(),
        )
        return Timer(id=row[0], event=event, due_at=due_at, game_id=game_id, payload=payload)

    async def next_timer(self, *, shards: Shards | None = None) -> Timer | None:
        """The earliest timer (of a game on one of `shards`, when given)."""
        where, args = shard_filter(shards, _TIMER_GUILD)
        row = await self._one(
            f"SELECT t.* {_TIMERS_FROM} WHERE true{where} ORDER BY t.due_at, t.id LIMIT 1", *args
        )
        return self._timer(row) if row else None

    async def claim_due_timer(self, now: float, *, shards: Shards | None = None) -> Timer | None:
        """Take the earliest timer due at `now` (of a game on one of `shards`, when given)
        out of the table and return it (None when nothing is due). One statement, in a
        transaction of its own: of several processes claiming at once, each timer goes to
        exactly one (SQLite: BEGIN IMMEDIATE; PostgreSQL: SKIP LOCKED, a timer another
        process is claiming right now is passed over, not waited for)."""
        where, args = shard_filter(shards, _TIMER_GUILD)
        rows = await self._statement(
            "DELETE FROM timers WHERE id = (SELECT t.id"
            f" {_TIMERS_FROM} WHERE t.due_at <= ?{where} ORDER BY t.due_at, t.id LIMIT 1"
            f"{self.dialect.claim_row}) RETURNING *",
            now,
            *args,
        )
        return self._timer(rows[0]) if rows else None

    async def timers(self, game_id: int | None = None) -> list[Timer]:
        if game_id is None:
            rows = await self._all("SELECT * FROM timers ORDER BY due_at, id")
        else:
            rows = await self._all(
                "SELECT * FROM timers WHERE game_id = ? ORDER BY due_at, id", game_id
            )
        return [self._timer(r) for r in rows]

    async def delete_timer(self, timer_id: int) -> bool:
        # Of two processes deleting one timer, the second waits for the first's row lock
        # (or its transaction) and then deletes nothing: True goes to exactly one of them.
        return bool(await self._statement("DELETE FROM timers WHERE id = ? RETURNING id", timer_id))

    async def delete_game_timers(self, game_id: int) -> int:
        rows = await self._statement("DELETE FROM timers WHERE game_id = ? RETURNING id", game_id)
        return len(rows)

    @staticmethod
    def _timer(row: Row) -> Timer:
        d = dict(row)
        d["payload"] = json.loads(d.pop("payload_json"))
        d.pop("created_at", None)
        return Timer.model_validate(d)
