"""The toy dice race as Paddock knows it besides its rules (rules/spec.py): its cog, its
board (and what warms its cache) and the car colours a league driver may claim. Nothing
outside this package names it: the registry is how the bot, the renderer's boards and the
leagues find it."""

from __future__ import annotations

from rules.spec import GameSpec

SPEC = GameSpec(
    name="toy",
    title="Toy dice race",
    cog="tests.toygame.cog",
    board="tests.toygame.board:render_board",
    warm="tests.toygame.board:warm",
    colours=("red", "blue", "green", "white"),
)
