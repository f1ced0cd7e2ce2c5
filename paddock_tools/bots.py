"""A PaddockBot built as `paddock run` builds it, and the fake Discord's world it plays in:
for the bench, the demo's drivers and the bot tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.client import PaddockBot, create_bot
from bot.settings import Settings
from paddock_tools.fakediscord import payloads as pl

LEAGUE_ROLE_ID = 1100000000000000015
DAVE = pl.FakeUser(1100000000000000035, "dave", roles=(LEAGUE_ROLE_ID,))  # league role only
ERIN = pl.FakeUser(1100000000000000036, "erin")


def world() -> pl.World:
    w = pl.World.default()
    w.add_role(pl.role_payload(LEAGUE_ROLE_ID, "League Steward", 0, position=1))
    w.add_user(DAVE)
    w.add_user(ERIN)
    return w


def make_bot(db: Path | str, **settings: Any) -> PaddockBot:
    """The bot as `paddock run` builds it (`create_bot`: shard settings give a
    ShardedPaddockBot) on ``db``: a SQLite file, or a database URL (PADDOCK_DATABASE_URL).
    Settings not given are read from the environment (PADDOCK_*), as `paddock run` does."""
    where = "database_url" if isinstance(db, str) and "://" in db else "db_path"
    values = {where: db, "sync_commands": False, "token": None, **settings}
    return create_bot(Settings(_env_file=None, **values))
