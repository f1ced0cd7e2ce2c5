"""The PostgreSQL store (asyncpg), for a bot that runs as several processes.

`PostgresStore` is the store's one SQL (store.leagues, store.games, store.health) on the PostgreSQL
connection (store.postgres_connection: the pool, migrations, faults, the dialect); only the
append of actions is its own, one statement rather than five. Migrations are
store/migrations/postgres/NNNN_name.sql.
"""

from __future__ import annotations

import json

from store.dialect import Tx
from store.errors import NotFound
from store.games import Append, GameStore
from store.health import HealthStore
from store.postgres_connection import POSTGRES, PostgresConnection

# The whole append in one statement once the game is locked (each statement is a round
# trip to the server, and one the event loop may wait for behind the image threads): the
# snapshot moves from $2 to $3 only if it is still at $2 (else nothing below happens and
# the count is 0; the seq it moved from and the timers until now kept for an undo,
# store/undo.py), the log entries, the game's status and last human action, and (with $11)
# the game's timers replaced.
_APPEND = """
WITH snap AS (
    UPDATE game_snapshots SET seq = $3, state_json = $4, updated_at = $5, prior_seq = seq,
        prior_timers_json = {prior_timers}
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
""".replace("{prior_timers}", POSTGRES.timers_json_sql.replace("?", "$1"))


class PostgresStore(GameStore, HealthStore, PostgresConnection):
    """A pool of connections, one per transaction; the database's locks keep transactions
    apart, within a process and across processes.

    Of two writers racing for one sequence number (in one process or two) exactly one
    wins: the other waits on the game's row lock, then finds the sequence moved on and
    gets StaleState with the winner's state. Each timer is claimed by exactly one process
    (`claim_due_timer` with SKIP LOCKED, or `delete_timer`).
    """

    async def _append(self, tx: Tx, a: Append) -> bool:
        # The game's lock first: a writer that lost the race waited here for the winner's
        # commit; the statement after it (a snapshot taken then) sees what the winner wrote.
        game = await tx.fetchrow(
            f"SELECT 1 FROM games WHERE id = ?{self.dialect.lock_row}", a.game_id
        )
        if game is None:
            raise NotFound(f"Game #{a.game_id} has no state to act on.")
        timers = a.timers or []
        stored = await tx.fetchval(
            _APPEND,
            a.game_id,
            a.expected_seq,
            a.seq,
            a.state_json,
            a.at,
            [who for who, _, _ in a.actions],
            [int(robot) for _, _, robot in a.actions],
            [body for _, body, _ in a.actions],
            a.status,
            a.human_at,
            a.timers is not None,
            [t.event for t in timers],
            [t.due_at for t in timers],
            [json.dumps(t.payload) for t in timers],
        )
        return bool(stored)  # 0: nothing written, the game moved on (or has no state)
