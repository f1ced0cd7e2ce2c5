from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store import SqliteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "paddock.db")
    await s.open()
    try:
        yield s
    finally:
        await s.close()
