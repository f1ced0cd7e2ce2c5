"""What every page of the league site shares: the site's state (`Site`, on the application),
rendering a page or the error page, and finding what an address names (its league, season,
race) or the one 404. The generic pages are web/app.py's; a game's own race pages are in
web/games/."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jinja2
from aiohttp import web

from bot.league_careers import Ratings
from store import GameRecord, League, Store
from web import league_data, race_data
from web.cache import Lru
from web.security import INDEXABLE, IPAddress, indexable

if TYPE_CHECKING:
    from web.games import RacePages

TOKEN = r"[A-Za-z0-9_-]{8,64}"
NUMBER = re.compile(r"[1-9][0-9]{0,8}")  # an id or a season in an address: no sign, no 0
ERRORS = {
    400: ("Bad request", "This address asks for something the site cannot read."),
    404: ("Not found", "There is nothing at this address."),
    405: ("Method not allowed", "This address only answers GET."),
    429: ("Too many requests", "Slow down a little, then try again."),
    500: ("Something went wrong", "The site could not show this page. Try again later."),
    503: ("Unavailable", "The site cannot read its data right now. Try again later."),
}
MAX_AGE = {"Cache-Control": "max-age=3600"}  # a finished race's pictures never change

SITE_KEY: web.AppKey[Site] = web.AppKey("site")


@dataclass
class Site:
    store: Store
    base_url: str  # public address, no trailing slash
    env: jinja2.Environment
    static: dict[str, tuple[bytes, str]]  # name -> (body, content type)
    games: dict[str, RacePages]  # each game's own race pages (its spec's `site`), by kind
    trusted_proxies: frozenset[IPAddress] = frozenset()  # whose X-Forwarded-For counts
    # standings images by their league and all they draw (8 MiB of PNG, ~45 KB each)
    images: Lru[bytes] = field(default_factory=lambda: Lru(1024, weight=len, budget=8 << 20))
    # each server's ratings by its finished games' version (a few KB each)
    ratings: Lru[Ratings] = field(default_factory=lambda: Lru(256))
    # a race's log in words by game id and seq (~100 KB each)
    logs: Lru[race_data.Replayed] = field(default_factory=lambda: Lru(64))


def site(request: web.Request) -> Site:
    return request.app[SITE_KEY]


def page(request: web.Request, template: str, code: int = 200, **values: Any) -> web.Response:
    noindex = not indexable(request, code)
    html = site(request).env.get_template(template).render(noindex=noindex, **values)
    return web.Response(
        text=html,
        status=code,
        content_type="text/html",
        charset="utf-8",
        headers={"Cache-Control": "no-cache"},
    )


def error_page(request: web.Request, status: int, **headers: str) -> web.Response:
    title, text = ERRORS.get(status, ERRORS[400])
    response = page(request, "error.html", status, status=status, title=title, text=text)
    response.headers.update(headers)
    return response


class NotFoundPage(web.HTTPNotFound):
    """Raised for anything a visitor may not see: the middleware answers the one 404 page."""


def number(text: str) -> int:
    if not NUMBER.fullmatch(text):
        raise NotFoundPage()
    return int(text)


def png(body: bytes | None) -> web.Response:
    """A finished race's picture (None: there is none: the one 404)."""
    if body is None:
        raise NotFoundPage()
    return web.Response(body=body, content_type="image/png", headers=MAX_AGE)


async def league(request: web.Request) -> League:
    """The league the address's token names, if its site is on; else the one 404."""
    found = await site(request).store.league_by_web_token(request.match_info["token"])
    if found is None:
        raise NotFoundPage()
    request[INDEXABLE] = found.web_search  # its admin's choice, for its pages only
    return found


async def season(request: web.Request, latest: League) -> League:
    """The season `?season=N` asks for (default: the latest); 400 if N is not a number,
    404 if the league has no such season."""
    asked = request.query.getall("season", [])
    if not asked:
        return latest
    if len(asked) > 1 or not NUMBER.fullmatch(asked[0]):
        raise web.HTTPBadRequest()
    wanted = int(asked[0])
    if wanted == latest.season:
        return latest
    for lg in await league_data.seasons_of(site(request).store, latest):
        if lg.season == wanted:
            return lg
    raise NotFoundPage()


@dataclass(frozen=True)
class Race:
    """A finished league race an address names: the league's latest season (whose token
    the address holds), the race's own season, and the race."""

    latest: League
    season: League
    game: GameRecord

    @property
    def base(self) -> str:
        return f"/l/{self.latest.web_token}"

    @property
    def suffix(self) -> str:  # links back to the race's season, if not the latest
        return "" if self.season.id == self.latest.id else f"?season={self.season.season}"


async def race(request: web.Request, kind: str | None = None) -> Race:
    """The finished league race the address names (of `kind`, when given); else the 404."""
    latest = await league(request)
    game_id = number(request.match_info["game_id"])
    store = site(request).store
    seasons = await league_data.seasons_of(store, latest)
    game = await race_data.finished_race(store, seasons, game_id)
    if game is None or (kind is not None and game.kind != kind):
        raise NotFoundPage()
    return Race(latest, next(s for s in seasons if s.id == game.league_id), game)


async def names(store: Store, game: GameRecord) -> dict[int, str]:
    """The race's seats' names (as the thread showed them)."""
    return {s.seat: s.name for s in await store.seats(game.id)}
