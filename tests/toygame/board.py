"""The toy race's board (its spec's `board`): one lane per seat, a marker at its square. A
pure function of the state, as every game's renderer is (renderer/)."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from tests.toygame.rules import GOAL, ToyState

SQUARE = 16  # pixels per square
LANE = 24  # pixels per seat
MARKERS = ("#d62828", "#1d4ed8", "#15803d", "#a16207", "#6b21a8", "#0f766e")


def render_board(state: ToyState) -> bytes:
    """The board as PNG bytes: squares 0 to GOAL + 6 along, a lane per seat, the finish
    line after GOAL."""
    width = (GOAL + 7) * SQUARE
    height = len(state.positions) * LANE
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    finish = (GOAL + 1) * SQUARE
    draw.line([(finish, 0), (finish, height)], fill="black", width=2)
    for seat, position in enumerate(state.positions):
        top = seat * LANE
        draw.line([(0, top + LANE - 1), (width, top + LANE - 1)], fill="#cccccc")
        left = min(position, GOAL + 6) * SQUARE
        draw.ellipse(
            [(left + 2, top + 4), (left + SQUARE - 2, top + LANE - 6)],
            fill=MARKERS[seat % len(MARKERS)],
        )
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
