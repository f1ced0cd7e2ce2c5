"""Board renderers by game name (each game's spec names its own), so the demo, the bench
and the bot find them alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.base import specs
from rules.spec import resolve


def board_renderers() -> dict[str, Callable[[Any], bytes]]:
    """Each registered game's board (its spec's `board`): state -> PNG bytes."""
    return {name: resolve(spec.board) for name, spec in specs().items() if spec.board}


def warm_all() -> None:
    """Draw each kind of image once, so that fonts, sprites and static layers are cached
    before the first player waits for one (the first draw of each costs up to a second):
    the standings, each registered game's board, then what its spec's `warm` builds."""
    from renderer.standings import StandingsLine, render_standings
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
    for spec in specs().values():
        if spec.warm:
            resolve(spec.warm)()  # e.g. Waddington's boards, RF90's tracks and close-ups
