"""The toy race's board (its spec's `board`): one lane per seat, a marker at its square. A
pure function of the state, as every game's renderer is (renderer/); the empty board of each
size is cached, and built ahead at the bot's start-up (its spec's `warm`)."""

from __future__ import annotations

import io
from functools import cache

from PIL import Image, ImageDraw

from tests.toygame.rules import GOAL, ToyState

SQUARE = 16  # pixels per square
LANE = 24  # pixels per seat
MARKERS = ("#d62828", "#1d4ed8", "#15803d", "#a16207", "#6b21a8", "#0f766e")


@cache
def empty_board(seats: int) -> Image.Image:
    """Squares 0 to GOAL + 6 along, a lane per seat, the finish line after GOAL."""
    width = (GOAL + 7) * SQUARE
    height = seats * LANE
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    finish = (GOAL + 1) * SQUARE
    draw.line([(finish, 0), (finish, height)], fill="black", width=2)
    for seat in range(seats):
        bottom = (seat + 1) * LANE - 1
        draw.line([(0, bottom), (width, bottom)], fill="#cccccc")
    return image


def warm() -> None:
    """Every size of empty board with a marker colour per seat, ahead of the first race."""
    for seats in range(2, len(MARKERS) + 1):
        empty_board(seats)


def render_board(state: ToyState) -> bytes:
    """The board as PNG bytes: each seat's marker on its square in its lane."""
    image = empty_board(len(state.positions)).copy()
    draw = ImageDraw.Draw(image)
    for seat, position in enumerate(state.positions):
        top = seat * LANE
        left = min(position, GOAL + 6) * SQUARE
        draw.ellipse(
            [(left + 2, top + 4), (left + SQUARE - 2, top + LANE - 6)],
            fill=MARKERS[seat % len(MARKERS)],
        )
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
