"""Board renderers by game name, so the demo, the bench and the bot find them alike."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

# game name -> "module:function" taking the game state and returning PNG bytes
_BOARDS = {
    "waddington": "renderer.waddington:render_board",
    "pitformula": "renderer.pitformula:render_table",
    "rf90": "renderer.rf90:render_track",
}


def board_renderers() -> dict[str, Callable[[Any], bytes]]:
    found: dict[str, Callable[[Any], bytes]] = {}
    for game, target in _BOARDS.items():
        module, _, func = target.partition(":")
        try:
            found[game] = getattr(importlib.import_module(module), func)
        except ModuleNotFoundError:
            continue  # that game's renderer is not built yet
    return found


def warm_all() -> None:
    """Draw each kind of image once, so that fonts, sprites and static layers are cached
    before the first player waits for one (the first draw of each costs up to a second)."""
    from renderer.rf90 import warm_caches as warm_rf90
    from renderer.standings import StandingsLine, render_standings
    from renderer.waddington import warm_caches
    from rules.base import get_game

    line = StandingsLine(
        position=1,
        tied=False,
        name="Warm-up",
        colour="red",
        points=10,
        wins=1,
        podiums=1,
        rounds=1,
        results=["1"],
    )
    render_standings("Warm-up", "cache", [line])
    for name, render in board_renderers().items():
        game = get_game(name)
        render(game.new_game(1, game.simulation_config()))
    warm_caches()
    warm_rf90()  # both tracks, every section's close-up, the cockpit
