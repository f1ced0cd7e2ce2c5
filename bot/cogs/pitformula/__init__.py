"""`/pit`: Pit Formula, played in real time in any channel.

The table layer (bot/table/) runs the lobby, the lock, persistence, timers, recovery and the
life-cycle commands, and its real-time part (bot/table/realtime.py) the countdown, the
coalesced race-message edits and the stopwatch. Here: the presenter (presenter.py), the
commands (commands.py), the race messages (race.py) and their words (text.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cogs.pitformula.commands import PitCog
from bot.cogs.pitformula.presenter import PitPresenter
from bot.cogs.pitformula.race import table_image

if TYPE_CHECKING:
    from bot.client import PaddockBot

__all__ = ["PitCog", "PitPresenter", "setup", "table_image"]


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(PitCog(bot))
