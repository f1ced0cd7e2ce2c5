"""The embedded SQLite store (aiosqlite, WAL, foreign keys on).

`SqliteStore` is the store's one SQL (store.leagues, store.games, store.health) on the SQLite
connection (store.connection: the file, migrations, faults, the dialect). Each transaction
runs in one hop to the connection's thread.
"""

from __future__ import annotations

from store.connection import SqliteConnection
from store.games import GameStore
from store.health import HealthStore


class SqliteStore(GameStore, HealthStore, SqliteConnection):
    """One connection per process; an asyncio lock keeps its transactions apart.

    Across processes, SQLite's own locking and the (game_id, seq) primary key make sure
    that of two writers racing for one sequence number exactly one wins.
    """
