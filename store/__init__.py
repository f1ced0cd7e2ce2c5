"""Persistence: leagues, games (action log + snapshot) and timers.

`Store` is the interface the bot uses; `SqliteStore` is the embedded default.
"""

from store.errors import LeagueError, NotFound, StaleState, StoreUnavailable
from store.models import (
    ActionRecord,
    GameRecord,
    League,
    Member,
    ResultRecord,
    Round,
    Seat,
    Timer,
)
from store.sqlite import SqliteStore

__all__ = [
    "ActionRecord",
    "GameRecord",
    "League",
    "LeagueError",
    "Member",
    "NotFound",
    "ResultRecord",
    "Round",
    "Seat",
    "SqliteStore",
    "StaleState",
    "StoreUnavailable",
    "Timer",
]
