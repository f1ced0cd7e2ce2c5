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
