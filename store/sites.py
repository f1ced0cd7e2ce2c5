"""The store's side of the league site (web/): a league's switch and the token its address
holds, and the league an address names (store.dialect: both databases).

A league's name has one address across its seasons: the token sits on its latest season's
row (`create_league` moves it to the next season), and the site finds the earlier seasons
by the name. The token is `secrets.token_urlsafe(16)` (128 random bits); a new one replaces
the old at once, so the old address stops working.
"""

from __future__ import annotations

import logging
import secrets

from store.careers import CareerStore
from store.errors import LeagueError
from store.models import League

WEB_STATES = ("on", "off", "regenerate")


class HideTokenQueries(logging.Filter):
    """aiosqlite logs each query with its arguments (at DEBUG): a query of a league's token
    is logged without them, so a token never reaches a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "web_token" in message:
            record.msg, record.args = message.split("web_token")[0] + "web_token ... (hidden)", ()
        return True


logging.getLogger("aiosqlite").addFilter(HideTokenQueries())


def new_token() -> str:
    return secrets.token_urlsafe(16)


class SiteStore(CareerStore):
    async def set_web(self, league: League, state: str) -> League:
        """`on`: public (a token made if it has none); `off`: private again (the token is
        kept, so `on` later gives the same address); `regenerate`: a new token, the old
        one revoked, the switch as it was. A closed season's pages may be public too."""
        if state not in WEB_STATES:
            raise LeagueError(f"Give one of: {', '.join(WEB_STATES)}.")
        if state == "off":
            await self._statement("UPDATE leagues SET web_on = 0 WHERE id = ?", league.id)
        elif state == "on":
            await self._statement(
                "UPDATE leagues SET web_on = 1, web_token = COALESCE(web_token, ?) WHERE id = ?",
                new_token(),
                league.id,
            )
        else:
            await self._statement(
                "UPDATE leagues SET web_token = ? WHERE id = ?", new_token(), league.id
            )
        return await self.league_by_id(league.id)

    async def league_by_web_token(self, token: str) -> League | None:
        """The league whose public address holds `token`, if its site is on (None for a
        wrong token, a league whose site is off and a league that does not exist alike)."""
        row = await self._one("SELECT * FROM leagues WHERE web_token = ? AND web_on = 1", token)
        return self._league(row) if row else None
