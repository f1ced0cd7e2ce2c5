"""The league site as Discord tells of it: a league's address (PADDOCK_WEB_BASE_URL and its
token) and what `/league-admin web` answers. The site itself is web/."""

from __future__ import annotations

from bot.settings import Settings
from store import League
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


def web_answer(settings: Settings, league: League, state: str) -> str:
    """What `/league-admin web` answers (only to the admin): the league's link, and whether
    this bot serves the site."""
    path = site_path(league)
    base = settings.web_url
    address = f"<{base}{path}>" if base else f"`{path}`"
    if state == "off":
        head = (
            f"The site of **{shown(league.name)}** is off: its address shows a not-found page. "
            "`state:on` brings it back at the same address."
        )
    elif state == "regenerate":
        head = (
            f"**{shown(league.name)}** has a new address: {address}. The old one no longer works."
        )
        if not league.web_on:
            head += " Its site is off: `state:on` makes it public."
    else:
        head = (
            f"The site of **{shown(league.name)}** is public: {address}\nAnyone with the link "
            "sees its standings, calendar, results, finished races and drivers' careers (names "
            "only, no Discord ids). `state:regenerate` changes the address; `state:off` hides it."
        )
    if base is None:
        head += (
            "\nThis bot does not serve the site (PADDOCK_WEB_PORT and PADDOCK_WEB_BASE_URL are "
            f"not set): the address is `{path}` on the site once the operator serves it "
            "(`paddock web`)."
        )
    elif settings.web_port is None:
        head += (
            "\nThis bot process does not serve the site itself: the link works where the "
            "operator runs `paddock web`."
        )
    return head
