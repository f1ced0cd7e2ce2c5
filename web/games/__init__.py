"""A game's own pages on the league site: what it adds to a finished race's page beyond its
classification, log in words and final board (Race! Formula 90's replay and activation
pictures, Pit Formula's scoring), and the addresses of those pictures. Each game declares
them in its GameSpec (`site`: "module:class", made once per site), so the site lists no game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web

from rules.base import specs
from rules.spec import resolve

if TYPE_CHECKING:
    from web.race_data import RacePage
    from web.site import Race


class RacePages(Protocol):
    """A game's part of its finished races' pages (one per site: it keeps its caches)."""

    # its part of the race page (web/templates/games/), shown after the classification with
    # what `extra` gives it
    template: str

    def routes(self, race_path: str) -> list[web.RouteDef]:
        """Its addresses under a race's (`race_path`: ".../race/{game_id}")."""
        ...

    async def extra(self, request: web.Request, found: Race, page: RacePage) -> dict[str, Any]:
        """What its part of the race page shows (and "board": False to leave out the final
        board, which it shows in its own way)."""
        ...


def race_pages() -> dict[str, RacePages]:
    """Each registered game's race pages, new, by its kind (games without: none)."""
    return {name: resolve(spec.site)() for name, spec in specs().items() if spec.site}
