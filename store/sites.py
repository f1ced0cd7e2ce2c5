"""The store's side of the league site (web/): a league's switch, the token its address
holds and its search engines' choice; a server's index of its public leagues and its own
token; the league (or leagues) an address names (store.dialect: both databases).

A league's name has one address across its seasons: the token sits on its latest season's
row (`create_league` moves it to the next season), and the site finds the earlier seasons
by the name. A token is `secrets.token_urlsafe(16)` (128 random bits); a new one replaces
the old at once, so the old address stops working. The server's index (guild_settings) is
made with its first public league and switched the same way; it lists only the leagues
whose own site is on, so it never makes a private league public.
"""

from __future__ import annotations

import logging
import re
import secrets

from store.careers import CareerStore
from store.dialect import Tx
from store.errors import LeagueError
from store.models import League, SiteIndex

WEB_STATES = ("on", "off", "regenerate")

_TOKEN_COLUMN = re.compile(r"web_(?:index_)?token")


class HideTokenQueries(logging.Filter):
    """aiosqlite logs each query with its arguments (at DEBUG): a query of a league's or an
    index's token is logged without them, so a token never reaches a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if found := _TOKEN_COLUMN.search(message):
            record.msg, record.args = message[: found.end()] + " ... (hidden)", ()
        return True


logging.getLogger("aiosqlite").addFilter(HideTokenQueries())


def new_token() -> str:
    return secrets.token_urlsafe(16)


# The server's index: made on (with a token) unless it exists; an admin's `off` sticks.
_INDEX_AT_FIRST_PUBLIC_LEAGUE = (
    "INSERT INTO guild_settings (guild_id, web_index_token, web_index_on) VALUES (?, ?, 1)"
    " ON CONFLICT (guild_id) DO UPDATE SET web_index_on = CASE WHEN"
    " guild_settings.web_index_token IS NULL THEN 1 ELSE guild_settings.web_index_on END,"
    " web_index_token = COALESCE(guild_settings.web_index_token, excluded.web_index_token)"
)


class SiteStore(CareerStore):
    async def set_web(self, league: League, state: str) -> League:
        """`on`: public (a token made if it has none; the server's index made with the
        server's first public league); `off`: private again (the token is kept, so `on`
        later gives the same address); `regenerate`: a new token, the old one revoked, the
        switch as it was. A closed season's pages may be public too."""
        if state not in WEB_STATES:
            raise LeagueError(f"Give one of: {', '.join(WEB_STATES)}.")
        if state == "off":
            await self._statement("UPDATE leagues SET web_on = 0 WHERE id = ?", league.id)
        elif state == "on":

            async def on(tx: Tx) -> None:
                await tx.execute(
                    "UPDATE leagues SET web_on = 1, web_token = COALESCE(web_token, ?)"
                    " WHERE id = ?",
                    new_token(),
                    league.id,
                )
                await tx.execute(_INDEX_AT_FIRST_PUBLIC_LEAGUE, league.guild_id, new_token())

            await self._transact(on)
        else:
            await self._statement(
                "UPDATE leagues SET web_token = ? WHERE id = ?", new_token(), league.id
            )
        return await self.league_by_id(league.id)

    async def set_web_search(self, league: League, on: bool) -> League:
        """Whether search engines may index the league's pages (off: noindex, the default)."""
        await self._statement("UPDATE leagues SET web_search = ? WHERE id = ?", int(on), league.id)
        return await self.league_by_id(league.id)

    async def league_by_web_token(self, token: str) -> League | None:
        """The league whose public address holds `token`, if its site is on (None for a
        wrong token, a league whose site is off and a league that does not exist alike)."""
        row = await self._one("SELECT * FROM leagues WHERE web_token = ? AND web_on = 1", token)
        return self._league(row) if row else None

    async def searchable_web_tokens(self) -> list[str]:
        """The addresses of the public leagues whose admins let search engines in (every
        server's: robots.txt lets crawlers reach exactly these)."""
        rows = await self._all(
            "SELECT web_token FROM leagues WHERE web_on = 1 AND web_search = 1"
            " AND web_token IS NOT NULL ORDER BY web_token"
        )
        return [r["web_token"] for r in rows]

    # The server's index ------------------------------------------------------------------

    async def site_index(self, guild_id: int) -> SiteIndex:
        row = await self._one(
            "SELECT web_index_token, web_index_on FROM guild_settings WHERE guild_id = ?",
            guild_id,
        )
        if row is None:
            return SiteIndex(guild_id=guild_id)
        return SiteIndex(
            guild_id=guild_id, token=row["web_index_token"], on=bool(row["web_index_on"])
        )

    async def set_site_index(self, guild_id: int, state: str) -> SiteIndex:
        """The server's index as a league's site: `on` (a token made if it has none),
        `off` (the token kept), `regenerate` (a new token, the switch as it was)."""
        if state not in WEB_STATES:
            raise LeagueError(f"Give one of: {', '.join(WEB_STATES)}.")
        if state == "on":
            sql = (
                "INSERT INTO guild_settings (guild_id, web_index_token, web_index_on)"
                " VALUES (?, ?, 1) ON CONFLICT (guild_id) DO UPDATE SET web_index_on = 1,"
                " web_index_token = COALESCE(guild_settings.web_index_token,"
                " excluded.web_index_token)"
            )
            await self._statement(sql, guild_id, new_token())
        elif state == "off":
            await self._statement(
                "INSERT INTO guild_settings (guild_id, web_index_on) VALUES (?, 0)"
                " ON CONFLICT (guild_id) DO UPDATE SET web_index_on = 0",
                guild_id,
            )
        else:
            await self._statement(
                "INSERT INTO guild_settings (guild_id, web_index_token) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET"
                " web_index_token = excluded.web_index_token",
                guild_id,
                new_token(),
            )
        return await self.site_index(guild_id)

    async def leagues_by_index_token(self, token: str) -> list[League]:
        """The public leagues (their latest seasons, whose site is on) of the server whose
        index holds `token`, if the index is on: [] for a wrong token, an index that is off
        and a server with no public league alike."""
        rows = await self._all(
            "SELECT l.* FROM leagues l JOIN guild_settings g ON g.guild_id = l.guild_id"
            " WHERE g.web_index_token = ? AND g.web_index_on = 1 AND l.web_on = 1"
            " ORDER BY l.id",
            token,
        )
        return [self._league(r) for r in rows]
