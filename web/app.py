"""The league site as an aiohttp application: its routes, the pages rendered from Jinja2
templates (autoescaped), and the one middleware that limits each client's rate and turns
every error into a small HTML page (never a traceback).

Routes (a league's address holds its token, `store.sites`):

- `/l/{token}`: the league's home: standings, the season selector (`?season=N`), calendar
  and results;
- `/l/{token}/standings.png`: the standings image (the bot's), for Open Graph;
- `/l/{token}/driver/{member_id}`: a driver's career on the server;
- `/l/{token}/race/{game_id}` and `.../board.png`: a finished league race of the league;
  for Race! Formula 90 also `.../replay.webp` (the animated replay) and `.../step/{n}` (the
  n-th picture of its thread: the grid, each section activation, the finish) with
  `.../step/{n}.png` and `.../step/{n}/dashboards.png`; for Pit Formula `.../scoring/{n}.png`
  (race n's scoring sheet) and `.../standings.png` (the final standings);
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
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import jinja2
from aiohttp import web

from bot.league_careers import Ratings
from renderer.common import PALETTE
from store import League, Store, StoreUnavailable
from web import league_data, race_data, race_media
from web.cache import Lru
from web.security import (
    INDEXABLE,
    IPAddress,
    RateLimit,
    add_headers,
    client_address,
    indexable,
    redact_logs,
)

log = logging.getLogger("paddock.web")

TOKEN = r"[A-Za-z0-9_-]{8,64}"
NUMBER = re.compile(r"[1-9][0-9]{0,8}")  # an id or a season in an address: no sign, no 0
STATIC_TYPES = {"css": "text/css", "js": "text/javascript"}
ERRORS = {
    400: ("Bad request", "This address asks for something the site cannot read."),
    404: ("Not found", "There is nothing at this address."),
    405: ("Method not allowed", "This address only answers GET."),
    429: ("Too many requests", "Slow down a little, then try again."),
    500: ("Something went wrong", "The site could not show this page. Try again later."),
    503: ("Unavailable", "The site cannot read its data right now. Try again later."),
}

SITE_KEY: web.AppKey[Site] = web.AppKey("site")


@dataclass
class Site:
    store: Store
    base_url: str  # public address, no trailing slash
    env: jinja2.Environment
    static: dict[str, tuple[bytes, str]]  # name -> (body, content type)
    media: race_media.RaceMedia  # replayed races and drawn replays, by game id and seq
    trusted_proxies: frozenset[IPAddress] = frozenset()  # whose X-Forwarded-For counts
    # standings images by their league and all they draw (8 MiB of PNG, ~45 KB each)
    images: Lru[bytes] = field(default_factory=lambda: Lru(1024, weight=len, budget=8 << 20))
    # each server's ratings by its finished games' version (a few KB each)
    ratings: Lru[Ratings] = field(default_factory=lambda: Lru(256))


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


def _site(request: web.Request) -> Site:
    return request.app[SITE_KEY]


def page(request: web.Request, template: str, code: int = 200, **values: Any) -> web.Response:
    site = _site(request)
    noindex = not indexable(request, code)
    html = site.env.get_template(template).render(noindex=noindex, **values)
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


def _number(text: str) -> int:
    if not NUMBER.fullmatch(text):
        raise NotFoundPage()
    return int(text)


async def _league(request: web.Request) -> League:
    """The league the address's token names, if its site is on; else the one 404."""
    league = await _site(request).store.league_by_web_token(request.match_info["token"])
    if league is None:
        raise NotFoundPage()
    request[INDEXABLE] = league.web_search  # its admin's choice, for its pages only
    return league


async def _season(request: web.Request, latest: League) -> League:
    """The season `?season=N` asks for (default: the latest); 400 if N is not a number,
    404 if the league has no such season."""
    asked = request.query.getall("season", [])
    if not asked:
        return latest
    if len(asked) > 1 or not NUMBER.fullmatch(asked[0]):
        raise web.HTTPBadRequest()
    number = int(asked[0])
    if number == latest.season:
        return latest
    for lg in await league_data.seasons_of(_site(request).store, latest):
        if lg.season == number:
            return lg
    raise NotFoundPage()


async def league_home(request: web.Request) -> web.Response:
    latest = await _league(request)
    shown = await _season(request, latest)
    data = await league_data.league_page(_site(request).store, latest, shown)
    base = f"/l/{latest.web_token}"
    suffix = "" if shown.id == latest.id else f"?season={shown.season}"
    return page(
        request,
        "league.html",
        p=data,
        base=base,
        suffix=suffix,
        og_url=_site(request).base_url + base + suffix,
        og_image=f"{_site(request).base_url}{base}/standings.png{suffix}",
    )


async def standings_png(request: web.Request) -> web.Response:
    latest = await _league(request)
    shown = await _season(request, latest)
    report = await league_data.standings_report(_site(request).store, shown)
    # The image is kept by everything it draws (a new result, a name changed: a new key)
    drawn = (shown.id, report.title(), report.subtitle(), repr(report.lines))
    # an image: drawn off the event loop
    png = await _site(request).images.get(drawn, lambda: asyncio.to_thread(report.png))
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "max-age=60"})


async def driver(request: web.Request) -> web.Response:
    latest = await _league(request)
    member_id = _number(request.match_info["member_id"])
    store = _site(request).store
    member = await league_data.find_member(store, latest, member_id)
    if member is None:
        raise NotFoundPage()
    data = await league_data.driver_page(store, latest, member, _site(request).ratings)
    return page(request, "driver.html", p=data, base=f"/l/{latest.web_token}")


async def _race(request: web.Request) -> tuple[League, Any]:
    latest = await _league(request)
    game_id = _number(request.match_info["game_id"])
    store = _site(request).store
    seasons = await league_data.seasons_of(store, latest)
    game = await race_data.finished_race(store, seasons, game_id)
    if game is None:
        raise NotFoundPage()
    season = next(s for s in seasons if s.id == game.league_id)
    return latest, (season, game)


async def race(request: web.Request) -> web.Response:
    latest, (season, game) = await _race(request)
    store = _site(request).store
    data = await race_data.race_page(store, season, game, _site(request).media.logs)
    base = f"/l/{latest.web_token}"
    suffix = "" if season.id == latest.id else f"?season={season.season}"
    media = _site(request).media
    pit = await media.pit_races(store, game, await _names(store, game)) if game.kind == PIT else []
    return page(request, "race.html", p=data, base=base, suffix=suffix, steps=data.steps, pit=pit)


PIT = "pitformula"
MAX_AGE = {"Cache-Control": "max-age=3600"}  # a finished race's pictures never change


def _png(body: bytes | None) -> web.Response:
    if body is None:
        raise NotFoundPage()
    return web.Response(body=body, content_type="image/png", headers=MAX_AGE)


async def _names(store: Store, game: Any) -> dict[int, str]:
    return {s.seat: s.name for s in await store.seats(game.id)}


async def race_board(request: web.Request) -> web.Response:
    _, (_, game) = await _race(request)
    return _png(await race_data.final_board(game))


async def _rf90(request: web.Request) -> tuple[League, League, Any, list[race_media.Step]]:
    """The RF90 race the address names (latest season, its season, the game) and its steps
    (404 for any other game)."""
    latest, (season, game) = await _race(request)
    if game.kind != "rf90":
        raise NotFoundPage()
    steps = await _site(request).media.rf90_steps(_site(request).store, game)
    return latest, season, game, steps


def _step_number(request: web.Request, steps: list[race_media.Step]) -> int:
    n = _number(request.match_info["n"])
    if n > len(steps):
        raise NotFoundPage()
    return n


async def race_replay(request: web.Request) -> web.Response:
    _, (_, game) = await _race(request)
    if game.kind != "rf90":
        raise NotFoundPage()
    body = await _site(request).media.rf90_replay(_site(request).store, game)
    if body is None:
        raise NotFoundPage()
    return web.Response(body=body, content_type="image/webp", headers=MAX_AGE)


async def race_step(request: web.Request) -> web.Response:
    latest, season, game, steps = await _rf90(request)
    n = _step_number(request, steps)
    base = f"/l/{latest.web_token}"
    suffix = "" if season.id == latest.id else f"?season={season.season}"
    return page(
        request,
        "step.html",
        base=base,
        suffix=suffix,
        league=season,
        game=game,
        title=f"{season.name} - Race! Formula 90 race #{game.id}",
        n=n,
        count=len(steps),
        step=steps[n - 1],
    )


async def race_step_png(request: web.Request) -> web.Response:
    *_, steps = await _rf90(request)
    n = _step_number(request, steps)
    picture = request.match_info.get("picture", "track")  # `.../step/{n}.png`: the track
    return _png(await race_media.step_picture(steps[n - 1], picture))


async def race_scoring(request: web.Request) -> web.Response:
    _, (_, game) = await _race(request)
    if game.kind != PIT:
        raise NotFoundPage()
    store = _site(request).store
    names = await _names(store, game)
    races = await _site(request).media.pit_races(store, game, names)
    n = _number(request.match_info["n"])
    if n > len(races):
        raise NotFoundPage()
    return _png(await race_media.scoring_picture(races[n - 1], names))


async def race_standings(request: web.Request) -> web.Response:
    _, (_, game) = await _race(request)
    if game.kind != PIT or game.state_json is None:
        raise NotFoundPage()
    names = await _names(_site(request).store, game)
    return _png(await race_media.pit_standings(game.state_json, names))


async def server_index(request: web.Request) -> web.Response:
    """The server's public leagues: the one 404 unless the index is on and lists one."""
    leagues = await _site(request).store.leagues_by_index_token(request.match_info["token"])
    if not leagues:
        raise NotFoundPage()
    return page(request, "index.html", leagues=league_data.index_entries(leagues))


async def static(request: web.Request) -> web.Response:
    found = _site(request).static.get(request.match_info["name"])
    if found is None:
        raise NotFoundPage()
    body, kind = found
    return web.Response(
        body=body, content_type=kind, charset="utf-8", headers={"Cache-Control": "max-age=3600"}
    )


async def robots(request: web.Request) -> web.Response:
    """Crawlers kept out of everything but the leagues whose admins turned search on (and
    the stylesheets their pages need): those addresses are no secret any more."""
    tokens = await _site(request).store.searchable_web_tokens()
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
        race_media.RaceMedia(),
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
    app.router.add_get(race_ + "/replay.webp", race_replay, name="replay")
    app.router.add_get(race_ + "/step/{n:[0-9]+}", race_step, name="step")
    app.router.add_get(race_ + "/step/{n:[0-9]+}.png", race_step_png, name="step-track")
    app.router.add_get(
        race_ + "/step/{n:[0-9]+}/{picture:[a-z]+}.png", race_step_png, name="step-picture"
    )
    app.router.add_get(race_ + "/scoring/{n:[0-9]+}.png", race_scoring, name="scoring")
    app.router.add_get(race_ + "/standings.png", race_standings, name="race-standings")
    app.router.add_get(f"/s/{{token:{TOKEN}}}", server_index, name="index")
    app.router.add_get("/static/{name}", static, name="static")
    app.router.add_get("/robots.txt", robots, name="robots")
    return app
