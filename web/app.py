"""The league site as an aiohttp application: its routes, the pages rendered from Jinja2
templates (autoescaped), and the one middleware that limits each client's rate and turns
every error into a small HTML page (never a traceback).

Routes (a league's address holds its token, `store.sites`):

- `/l/{token}`: the league's home: standings, the season selector (`?season=N`), calendar
  and results;
- `/l/{token}/standings.png`: the standings image (the bot's), for Open Graph;
- `/l/{token}/driver/{member_id}`: a driver's career on the server;
- `/l/{token}/race/{game_id}` and `.../board.png`: a finished league race of the league,
  and under it the addresses of what its game adds (web/games/, by its GameSpec's `site`:
  Race! Formula 90's `.../replay.webp` and `.../step/{n}` with its pictures, Pit Formula's
  `.../scoring/{n}.png` and `.../standings.png`);
- `/s/{token}`: a server's index of its public leagues (its own token, store.sites);
- `/static/site.css`, `/static/local-time.js`, `/static/colours.css`; `/robots.txt`.

A wrong token, a league whose site is off and one that does not exist answer the same 404;
so do a wrong index token, an index that is off and a server with no public league.
Every answer says noindex (header and meta tag) but a league's own pages when its admin
turned search on; robots.txt lets crawlers reach only those leagues.
"""

from __future__ import annotations

import asyncio
import logging
from importlib import resources
from typing import Any

import jinja2
from aiohttp import web

from bot.league_tables import standings_report
from renderer.common import PALETTE
from store import Store, StoreUnavailable
from web import league_data, race_data, site
from web.games import race_pages
from web.security import (
    IPAddress,
    RateLimit,
    add_headers,
    client_address,
    redact_logs,
)
from web.site import ERRORS, SITE_KEY, TOKEN, Site, error_page, page

log = logging.getLogger("paddock.web")

STATIC_TYPES = {"css": "text/css", "js": "text/javascript"}


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("web", "templates"),
        autoescape=True,  # every name a user typed is escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _colours_css() -> bytes:
    """One class per car colour (`car-red`...): the page's swatches without inline style."""
    lines = [f".car-{c.name}{{background:rgb{c.fill};color:rgb{c.text}}}" for c in PALETTE.values()]
    return ("\n".join(lines) + "\n").encode()


def _static() -> dict[str, tuple[bytes, str]]:
    files = resources.files("web") / "static"
    out = {
        f.name: (f.read_bytes(), STATIC_TYPES[f.name.rsplit(".", 1)[-1]])
        for f in files.iterdir()
        if f.name.rsplit(".", 1)[-1] in STATIC_TYPES
    }
    out["colours.css"] = (_colours_css(), "text/css")
    return out


async def league_home(request: web.Request) -> web.Response:
    latest = await site.league(request)
    shown = await site.season(request, latest)
    data = await league_data.league_page(site.site(request).store, latest, shown)
    base = f"/l/{latest.web_token}"
    suffix = "" if shown.id == latest.id else f"?season={shown.season}"
    return page(
        request,
        "league.html",
        p=data,
        base=base,
        suffix=suffix,
        og_url=site.site(request).base_url + base + suffix,
        og_image=f"{site.site(request).base_url}{base}/standings.png{suffix}",
    )


async def standings_png(request: web.Request) -> web.Response:
    latest = await site.league(request)
    shown = await site.season(request, latest)
    report = await standings_report(site.site(request).store, shown)
    # The image is kept by everything it draws (a new result, a name changed: a new key)
    drawn = (shown.id, report.title(), report.subtitle(), repr(report.lines))
    # an image: drawn off the event loop
    png = await site.site(request).images.get(drawn, lambda: asyncio.to_thread(report.png))
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "max-age=60"})


async def driver(request: web.Request) -> web.Response:
    latest = await site.league(request)
    member_id = site.number(request.match_info["member_id"])
    store = site.site(request).store
    leagues = await store.list_leagues(latest.guild_id, latest_only=False)
    member = await league_data.find_member(store, latest, member_id, leagues)
    if member is None:
        raise site.NotFoundPage()
    data = await league_data.driver_page(store, latest, member, leagues, site.site(request).ratings)
    return page(request, "driver.html", p=data, base=f"/l/{latest.web_token}")


async def race(request: web.Request) -> web.Response:
    found = await site.race(request)
    here = site.site(request)
    data = await race_data.race_page(here.store, found.season, found.game, here.logs)
    values: dict[str, Any] = {"game_part": None, "board": True}
    pages = here.games.get(found.game.kind)
    if pages is not None:
        values |= {"game_part": pages.template} | await pages.extra(request, found, data)
    return page(request, "race.html", p=data, base=found.base, suffix=found.suffix, **values)


async def race_board(request: web.Request) -> web.Response:
    found = await site.race(request)
    return site.png(await race_data.final_board(found.game))


async def server_index(request: web.Request) -> web.Response:
    """The server's public leagues: the one 404 unless the index is on and lists one."""
    leagues = await site.site(request).store.leagues_by_index_token(request.match_info["token"])
    if not leagues:
        raise site.NotFoundPage()
    return page(request, "index.html", leagues=league_data.index_entries(leagues))


async def static(request: web.Request) -> web.Response:
    found = site.site(request).static.get(request.match_info["name"])
    if found is None:
        raise site.NotFoundPage()
    body, kind = found
    return web.Response(
        body=body, content_type=kind, charset="utf-8", headers={"Cache-Control": "max-age=3600"}
    )


async def robots(request: web.Request) -> web.Response:
    """Crawlers kept out of everything but the leagues whose admins turned search on (and
    the stylesheets their pages need): those addresses are no secret any more."""
    tokens = await site.site(request).store.searchable_web_tokens()
    allowed = [f"Allow: /l/{t}\n" for t in tokens] + (["Allow: /static/\n"] if tokens else [])
    text = "User-agent: *\n" + "".join(allowed) + "Disallow: /\n"
    return web.Response(text=text, content_type="text/plain")


def _guard(limit: RateLimit, trusted: frozenset[IPAddress]) -> Any:
    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        """The rate limit first; then any error as its small page: 4xx as they are (the
        404 is one page whatever was not found), a fault of the database 503, anything
        else 500 with the traceback in the log only."""
        # (The stylesheets and the script are not counted: a page brings three along.)
        static = request.path.startswith("/static/")
        client = client_address(
            request.remote, request.headers.getall("X-Forwarded-For", []), trusted
        )
        wait = 0.0 if static else limit.take(client)
        if wait:
            return error_page(request, 429, **{"Retry-After": RateLimit.retry_after(wait)})
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            status = exc.status if exc.status in ERRORS else 400
            extra = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else {}
            return error_page(request, status, **extra)
        except StoreUnavailable as exc:
            log.error("league site: %s", exc)
            return error_page(request, 503)
        except Exception:
            route = request.match_info.route.name or request.match_info.route.__class__.__name__
            log.exception("league site: the %s page failed", route)  # (no path: no token)
            return error_page(request, 500)

    return guard


def make_app(
    store: Store,
    base_url: str,
    *,
    rate_limit: RateLimit | None = None,
    trusted_proxies: frozenset[IPAddress] = frozenset(),
) -> web.Application:
    """The site over `store` (opened read-only by its caller), links made with `base_url`;
    behind `trusted_proxies`, the rate limit keys on the client they forwarded."""
    redact_logs()
    app = web.Application(middlewares=[_guard(rate_limit or RateLimit(), trusted_proxies)])
    app[SITE_KEY] = Site(
        store,
        base_url.rstrip("/"),
        _environment(),
        _static(),
        race_pages(),
        trusted_proxies,
    )
    app.on_response_prepare.append(add_headers)
    league = f"/l/{{token:{TOKEN}}}"
    app.router.add_get(league, league_home, name="league")
    app.router.add_get(league + "/standings.png", standings_png, name="standings")
    app.router.add_get(league + "/driver/{member_id}", driver, name="driver")
    app.router.add_get(league + "/race/{game_id}", race, name="race")
    race_ = league + "/race/{game_id}"
    app.router.add_get(race_ + "/board.png", race_board, name="board")
    for pages in app[SITE_KEY].games.values():  # each game's own (RF90's steps, Pit's sheets)
        app.router.add_routes(pages.routes(race_))
    app.router.add_get(f"/s/{{token:{TOKEN}}}", server_index, name="index")
    app.router.add_get("/static/{name}", static, name="static")
    app.router.add_get("/robots.txt", robots, name="robots")
    return app
