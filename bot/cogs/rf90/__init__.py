"""`/rf90`: Race! Formula 90 league races, played asynchronously in a thread.

The table layer (bot/table/) runs the lobby, timers, robots, recovery and the finish; this
package is the game's presenter (presenter.py), its cockpit's words (cockpit.py) and its
commands (commands.py). The engine decides; the drivers it waits for are pinged in public
with one button (the same for everyone, so nothing public depends on a hand), which opens
their private cockpit: the hand and dashboard, and the engine's legal actions asked as a few
short questions (bot/choices.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cogs.rf90.cockpit import dashboard, facets, trajectory_label
from bot.cogs.rf90.commands import RF90Cog
from bot.cogs.rf90.presenter import GRID, PICTURES, RF90Presenter

if TYPE_CHECKING:
    from bot.client import PaddockBot

__all__ = [
    "GRID",
    "PICTURES",
    "RF90Cog",
    "RF90Presenter",
    "dashboard",
    "facets",
    "setup",
    "trajectory_label",
]


async def setup(bot: PaddockBot) -> None:
    await bot.add_cog(RF90Cog(bot))
