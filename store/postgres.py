"""The PostgreSQL store (asyncpg), for a bot that runs as several processes.

`PostgresStore` is built in layers like `SqliteStore`, one module each: the connection
(store.postgres_connection: pool, migrations, faults), leagues (store.postgres_leagues),
games and timers (store.postgres_games). Migrations: store/migrations/postgres/NNNN_name.sql.
"""

from __future__ import annotations

from store.postgres_games import PostgresGameStore


class PostgresStore(PostgresGameStore):
    """A pool of connections, one per transaction; the database's locks keep transactions
    apart, within a process and across processes.

    Of two writers racing for one sequence number (in one process or two) exactly one
    wins: the other waits on the game's row lock, then finds the sequence moved on and
    gets StaleState with the winner's state. Each timer is claimed by exactly one process
    (`claim_due_timer` with SKIP LOCKED, or `delete_timer`).
    """
