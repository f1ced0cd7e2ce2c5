"""The toy game's bot: the toy game registered for the test (the `toy_game` fixture of
tests/conftest.py), then the bot started as `paddock run` builds it, against the in-process
fake Discord. The bot loads the toy's cog because the registry names it, as it loads the
real games' cogs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import InProcessDriver
from tests.toygame.rules import ToyGame


@pytest.fixture
async def toy_driver(
    tmp_path: Path, toy_game: ToyGame, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[InProcessDriver]:
    """A bot with the toy game's commands, driven in-process; closed before the toy game
    leaves the registry. Its start-up does not draw every real game's images ahead (seconds
    of RF90's close-ups, which the test's end would wait for): the toy's are drawn as
    posted."""
    monkeypatch.setattr("bot.drawing.warm_here", lambda: None)
    async with InProcessDriver(make_bot(tmp_path / "toy.db"), world()) as driver:
        yield driver
