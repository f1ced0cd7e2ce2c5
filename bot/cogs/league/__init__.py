"""`/league` and `/league-admin`: championships (members.py) and their admin tools
(admin.py), on what both share (common.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cogs.league.admin import LeagueAdminCog
from bot.cogs.league.common import is_league_admin
from bot.cogs.league.members import LeagueCog

if TYPE_CHECKING:
    from bot.client import PaddockBot

__all__ = ["LeagueAdminCog", "LeagueCog", "is_league_admin", "setup"]


async def setup(bot: PaddockBot) -> None:
    members, admin = LeagueCog(bot), LeagueAdminCog(bot)
    members.answer = admin.answer
    await bot.add_cog(members)
    await bot.add_cog(admin)
