"""The league site as Discord tells of it: a league's address (PADDOCK_WEB_BASE_URL and its
token), a race's and a server index's, and what `/league-admin web` answers. The site
itself is web/."""

from __future__ import annotations

from bot.settings import Settings
from store import League, SiteIndex, Store
from store.errors import shown


def site_path(league: League, season: int | None = None) -> str:
    """The league's address on the site (its latest season's token), `?season=N` for an
    earlier season."""
    return f"/l/{league.web_token}" + (f"?season={season}" if season is not None else "")


def site_link(settings: Settings, latest: League, season: int | None = None) -> str | None:
    """The link `/league standings` and `/league info` carry: only when the site's address
    is known and the league's site is on (`latest`: the league's latest season)."""
    base = settings.web_url
    if base is None or not latest.web_on or not latest.web_token:
        return None
    return base + site_path(latest, None if season == latest.season else season)


async def latest_of(store: Store, league: League) -> League:
    """The season that holds the league's switch and token: its latest (the token moves to
    each new season)."""
    return league if league.web_token else await store.get_league(league.guild_id, league.name)


async def league_link(settings: Settings, store: Store, league: League) -> str | None:
    """The site's page of this season of the league, if the site is on and its address
    known (no store read when it is not)."""
    if settings.web_url is None:
        return None
    return site_link(settings, await latest_of(store, league), league.season)


async def race_link(settings: Settings, store: Store, league: League, game_id: int) -> str | None:
    """The site's page of a finished league race, on the same terms as `league_link`."""
    if settings.web_url is None:
        return None
    home = site_link(settings, await latest_of(store, league))
    return None if home is None else f"{home}/race/{game_id}"


def _address(settings: Settings, path: str) -> str:
    base = settings.web_url
    return f"<{base}{path}>" if base else f"`{path}`"


def _served(settings: Settings, path: str) -> str:
    """What the answer adds when this bot does not serve the site itself."""
    if settings.web_url is None:
        return (
            "\nThis bot does not serve the site (PADDOCK_WEB_PORT and PADDOCK_WEB_BASE_URL are "
            f"not set): the address is `{path}` on the site once the operator serves it "
            "(`paddock web`)."
        )
    if settings.web_port is None:
        return (
            "\nThis bot process does not serve the site itself: the link works where the "
            "operator runs `paddock web`."
        )
    return ""


def _search_line(league: League, changed: bool) -> str:
    if league.web_search:
        text = (
            "Search engines may list its pages: they no longer say noindex, and the site's "
            "robots.txt names its address, so the address is no secret any more. "
            "`search:off` keeps them out again."
        )
        return text if changed or league.web_on else text + " (Once its site is on.)"
    if changed:
        return (
            "Search engines are kept out again: its pages say noindex (pages already listed "
            "drop out as the engines come back)."
        )
    return "Search engines are kept out (its pages say noindex); `search:on` lets them in."


def _index_line(settings: Settings, index: SiteIndex) -> str:
    if index.token is None:
        return ""
    if not index.on:
        return "\nThe server's index of public leagues is off (`scope:index state:on`)."
    return (
        f"\nThe server's index of public leagues: {_address(settings, f'/s/{index.token}')} "
        "(`scope:index` turns it off or changes its address)."
    )


def web_answer(
    settings: Settings,
    league: League,
    state: str | None,
    index: SiteIndex,
    *,
    search_changed: bool = False,
) -> str:
    """What `/league-admin web` answers about a league (only to the admin): its link,
    search engines, the server's index, and whether this bot serves the site. `state`
    None: nothing switched (its state as it is, or only `search:` changed)."""
    path = site_path(league)
    address = _address(settings, path)
    name = shown(league.name)
    if state is None and league.web_token is None:
        head = f"**{name}** has never been public: `state:on` makes it public."
    elif state == "off" or (state is None and not league.web_on):
        head = (
            f"The site of **{name}** is off: its address shows a not-found page. "
            "`state:on` brings it back at the same address."
        )
    elif state == "regenerate":
        head = f"**{name}** has a new address: {address}. The old one no longer works."
        if not league.web_on:
            head += " Its site is off: `state:on` makes it public."
        if index.token is not None:
            head += (
                " The server's index lists the new one; its own address changes with "
                "`scope:index state:regenerate`."
            )
    else:
        head = (
            f"The site of **{name}** is public: {address}\nAnyone with the link "
            "sees its standings, calendar, results, finished races and drivers' careers (names "
            "only, no Discord ids). `state:regenerate` changes the address; `state:off` hides it."
        )
    if search_changed or state in ("on", None):
        head += "\n" + _search_line(league, search_changed)
    if league.web_on and state != "regenerate":
        head += _index_line(settings, index)
    return head + _served(settings, path)


def index_answer(settings: Settings, index: SiteIndex, state: str | None) -> str:
    """What `/league-admin web scope:index` answers: the server's index of public leagues."""
    if index.token is None:
        return (
            "This server has no index of public leagues yet: the first `/league-admin web "
            "state:on` makes one, or `scope:index state:on` now."
        )
    path = f"/s/{index.token}"
    address = _address(settings, path)
    if state == "regenerate":
        head = f"The server's index has a new address: {address}. The old one no longer works."
        if not index.on:
            head += " It is off: `scope:index state:on` shows it."
    elif not index.on:
        head = (
            "The server's index of public leagues is off: its address shows a not-found page. "
            "`scope:index state:on` brings it back at the same address."
        )
    else:
        head = (
            f"The server's index of public leagues is on: {address}\nIt lists the leagues "
            "whose own site is on (name, game, season, link), never a private one, and says "
            "noindex to search engines. `scope:index state:regenerate` changes the address; "
            "`scope:index state:off` hides it."
        )
    return head + _served(settings, path)
