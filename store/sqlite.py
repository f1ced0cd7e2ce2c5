"""The embedded SQLite store (aiosqlite, WAL, foreign keys on).

`SqliteStore` is built in layers, one module each: the connection (store.connection),
leagues (store.leagues), games and timers (store.games).
"""

from __future__ import annotations

from store.games import GameStore


class SqliteStore(GameStore):
    """One connection per process; an asyncio lock keeps its transactions apart.

    Across processes, SQLite's own locking and the (game_id, seq) primary key make sure
    that of two writers racing for one sequence number exactly one wins.
    """
