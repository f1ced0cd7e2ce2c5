"""Waddington's Formula 1 images: the board, the move close-up and the classification.

- `render_board(state, highlight_seat=None, previous=None, title=None)`: the whole circuit
  (track, faint lane squares, red bands, a sign per corner with its bands' safety speeds,
  islands, Prenton Pool, chequered line, pit lane with each car's pit square, spin-off
  points), every car as a numbered marker in its colour, the car to move ringed, a line from
  where each car was at `previous` to where it is, finished cars flagged, and a dashboard row
  per car in race order (position, speed, laps to go, tyre and brake wear, Tactic cards,
  status) with a key (renderer/waddington_board.py).
- `render_closeup(state, seat, destinations, letters=None)`: a crop around the car with every
  destination square lettered A, B, C...; a letter on red with "+20"/"+40" marks a move that
  crosses a red band over its safety speed (renderer/waddington_closeup.py).
- `render_classification(state, names=None, title=None)`: the classification: place,
  status, laps out of the race's, gap to the leader (renderer/waddington_tables.py).

Every image is made for a phone that shows it about 400 px wide: no text is drawn smaller
than 12 px at that width (`min_px`). The circuit's layers are drawn once and cached
(renderer/waddington_layout.py); each image then costs only what moves and the PNG encoding.
`board_xy` and `closeup_layout` expose the geometry so that callers and tests can find things
in the pictures.
"""

from __future__ import annotations

from renderer import waddington_board, waddington_closeup
from renderer.waddington_board import (
    BOARD_WIDTH,
    CAR_SIZE,
    LastMove,
    board_height,
    board_labels,
    board_xy,
    car_board_xy,
    moves_between,
    render_board,
)
from renderer.waddington_closeup import (
    CLOSEUP_HEIGHT,
    CLOSEUP_WIDTH,
    CloseupLayout,
    closeup_layout,
    letter_size,
    render_closeup,
    warning,
)
from renderer.waddington_layout import (
    HIGHLIGHT,
    LETTER_BG,
    PHONE_MIN_PX,
    PHONE_WIDTH,
    WARN_RED,
    min_px,
    unit_xy,
)
from renderer.waddington_tables import (
    CLASS_WIDTH,
    ClassLine,
    car_status,
    classification_lines,
    classification_marker_xy,
    classification_order,
    dash_rows,
    race_order,
    render_classification,
)

__all__ = [
    "BOARD_WIDTH",
    "CAR_SIZE",
    "CLASS_WIDTH",
    "CLOSEUP_HEIGHT",
    "CLOSEUP_WIDTH",
    "HIGHLIGHT",
    "LETTER_BG",
    "PHONE_MIN_PX",
    "PHONE_WIDTH",
    "WARN_RED",
    "ClassLine",
    "CloseupLayout",
    "LastMove",
    "board_height",
    "board_labels",
    "board_xy",
    "car_board_xy",
    "car_status",
    "classification_lines",
    "classification_marker_xy",
    "classification_order",
    "closeup_layout",
    "dash_rows",
    "letter_size",
    "min_px",
    "moves_between",
    "race_order",
    "render_board",
    "render_classification",
    "render_closeup",
    "unit_xy",
    "warm_caches",
    "warning",
]


def warm_caches(circuit: str = "paddock-park") -> None:
    """Build the cached static layers (the board for every number of cars and every
    close-up zoom) ahead of the first move, so no driver waits for them; the bot runs this
    in a thread at start-up."""
    waddington_board.warm(circuit)
    waddington_closeup.warm(circuit)
