"""The Waddington's Formula 1 board: the whole circuit, the cars, the last moves, the
dashboard table and a key, 800 px wide so that a phone showing it ~400 px wide still reads
every text at 12 px or more.

The circuit layer with its infield labels (each red band's safety speeds and the corners'
names, where no car can hide them) and the header's background are drawn once per circuit,
the key once per number of cars, and cached; each board then costs the header's texts, the
last moves, the cars, the table and the PNG encoding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    PAPER,
    RGB,
    car_colour,
    draw_text,
    palette_reference,
    text_width,
    to_png,
)
from renderer.waddington_layout import (
    BAND_RED,
    HIGHLIGHT,
    ISLAND,
    SPIN_MARK,
    WATER,
    WHITE,
    Frame,
    Label,
    Point,
    PxPoint,
    car_label,
    car_points,
    chip,
    chip_size,
    circuit,
    draw_cars,
    draw_chequered_ring,
    draw_label,
    draw_leader,
    draw_ring,
    frame_for,
    geometry,
    marker,
    min_px,
    natural_size,
    offset,
    pit_numbers,
    place_labels,
    render_shapes,
    ring_radius,
    unit_xy,
)
from renderer.waddington_tables import (
    STATUS_COLOURS,
    TABLE_MARGIN,
    WEAR_BAD,
    WEAR_OK,
    WEAR_WARN,
    car_status,
    dashboard_height,
    draw_dashboard,
    game_turn,
    laps_text,
)
from rules.base import get_game
from rules.waddington.state import Car, WaddingtonState

BOARD_WIDTH = 800
PX = min_px(BOARD_WIDTH)  # every text on the board is at least this big
PAD = 0.55  # grass around the circuit's outermost points (the spin-off rings), in squares
BOARD_SCALE = BOARD_WIDTH / natural_size("paddock-park", 1, PAD)[0]  # px per square
CIRCUIT_HEIGHT = natural_size("paddock-park", BOARD_SCALE, PAD)[1]
HEADER_HEIGHT = round(PX * 3.4)  # two lines
HEADER_LINES = (0.29, 0.72)  # their middles, as parts of the header's height
CAR_SIZE = round(PX * 1.34)  # just room for a PX number inside the marker's rings
TABLE_GAP = 8
KEY_LINE = round(PX * 1.35)
KEY_LINES = 4
BOTTOM = 10
MAX_CARS = 8
DEFAULT_TITLE = "Waddington's Formula 1"


def board_height(n_cars: int) -> int:
    """The board's height for `n_cars`: no empty rows below the last car."""
    return _key_top(n_cars) + KEY_LINES * KEY_LINE + BOTTOM


def _table_top() -> int:
    return HEADER_HEIGHT + CIRCUIT_HEIGHT + TABLE_GAP


def _key_top(n_cars: int) -> int:
    return _table_top() + dashboard_height(BOARD_WIDTH, n_cars) + 8


@cache
def _board_frame(name: str) -> Frame:
    return frame_for(name, BOARD_SCALE, BOARD_WIDTH, CIRCUIT_HEIGHT).shifted(0, HEADER_HEIGHT)


def board_xy(row: int, lane: int, circuit: str = "paddock-park") -> PxPoint:
    """Pixel centre, on the board image, of a square (lane -1 = its pit, 3 = the verge)."""
    return _board_frame(circuit).ipx(unit_xy(circuit, row, lane))


def car_board_xy(state: WaddingtonState, seat: int) -> PxPoint | None:
    """Pixel centre of a car's marker on the board (None for a retired car, not drawn)."""
    p = car_points(state.circuit, state.cars).get(seat)
    return None if p is None else _board_frame(state.circuit).ipx(p)


# --- the static layer --------------------------------------------------------------------


def _pool_label_box(name: str, f: Frame) -> tuple[tuple[float, float], str]:
    c = circuit(name)
    g = geometry(name)
    pool = next(o for o in c.obstacles if o.kind == "pool")
    row, lane = pool.squares[len(pool.squares) // 2]
    at = offset(c.rows[row].squares[0], g.across[row], -1.6)
    return f.px(at), pool.name


CAR_REACH = ring_radius(CAR_SIZE) + 3  # a marker with its ring and the ring's outline


@cache
def board_labels(name: str) -> list[Label]:
    """Where the bands' speeds and the corners' names go on the board (cached: the search
    takes a while)."""
    f = _board_frame(name)
    (x, y), text = _pool_label_box(name, f)
    w, h = chip_size(text, PX)
    pool = (round(x - w / 2), round(y - h / 2), round(x + w / 2), round(y + h / 2))
    return place_labels(name, f, PX, avoid=[pool], cars=car_spots(name), reach=CAR_REACH)


def car_spots(name: str) -> list[PxPoint]:
    """Every point of the board a car can stand on: the lanes and the verge beside every
    row (a baulked car spins off beside its square), and the pits."""
    c = circuit(name)
    spots = [board_xy(r, lane, name) for r in range(len(c.rows)) for lane in (0, 1, 2, 3)]
    return spots + [board_xy(p.row, -1, name) for p in c.pits]


@cache
def _circuit_layer(name: str) -> Image.Image:
    """The header's background and the circuit with its labels (the costly part: shapes
    drawn supersampled, the labels' places searched)."""
    image = Image.new("RGB", (BOARD_WIDTH, HEADER_HEIGHT + CIRCUIT_HEIGHT), HEADER_BG)
    f = _board_frame(name)
    image.paste(
        render_shapes(name, f.shifted(0, -HEADER_HEIGHT), BOARD_WIDTH, CIRCUIT_HEIGHT),
        (0, HEADER_HEIGHT),
    )
    draw = ImageDraw.Draw(image)
    pit_numbers(draw, name, f, PX)
    (x, y), pool = _pool_label_box(name, f)
    chip(draw, (x, y), pool, PX, WHITE, WATER)
    labels = board_labels(name)
    for label in labels:  # every leader first, so that no chip is crossed by another's line
        draw_leader(draw, label)
    for label in labels:
        draw_label(draw, label, PX)
    return image


def _board_static(name: str, n_cars: int) -> Image.Image:
    """The board with everything that does not move, as tall as `n_cars` need (drawn when
    its palette-mapped copy is made: only that copy is kept, a third of the memory)."""
    image = Image.new("RGB", (BOARD_WIDTH, board_height(n_cars)), PAPER)
    image.paste(_circuit_layer(name), (0, 0))
    _draw_key(ImageDraw.Draw(image), _key_top(n_cars))
    return image


def _key_item(draw: ImageDraw.ImageDraw, x: float, y: float, kind: str, text: str) -> float:
    """One swatch and its words on a key line; returns where the next item starts."""
    h = PX * 0.8
    if kind == "band":
        draw.rectangle((x, y - h / 2, x + 40, y + h / 2), fill=BAND_RED)
        x += 48
    elif kind == "spin":
        r = h / 2 + 1
        draw.ellipse((x + 2, y - r, x + 2 + 2 * r, y + r), outline=SPIN_MARK, width=4)
        x += 2 * r + 10
    elif kind in ("island", "water"):
        draw.rectangle((x, y - h / 2, x + h, y + h / 2), fill=ISLAND if kind == "island" else WATER)
        x += h + 8
    elif kind == "ring":
        draw_ring(draw, (x + CAR_SIZE / 2, y), CAR_SIZE - 12)
        draw.ellipse((x + 8, y - 8, x + CAR_SIZE - 8, y + 8), fill=INK)
        x += CAR_SIZE + 8
    elif kind == "move":
        _move_line(draw, [(x + 6, y), (x + 46, y)], car_colour("blue").fill, 5)
        _ghost(draw, (x + 6, y), car_colour("blue").fill)
        x += 56
    elif kind == "flag":
        draw_chequered_ring(draw, (x + CAR_SIZE / 2, y), CAR_SIZE - 12)
        draw.ellipse((x + 8, y - 8, x + CAR_SIZE - 8, y + 8), fill=INK)
        x += CAR_SIZE + 8
    draw_text(draw, (x, y), text, PX, INK, anchor="lm")
    return x + text_width(text, PX) + 22


def _draw_key(draw: ImageDraw.ImageDraw, top: int) -> None:
    y = top + KEY_LINE / 2
    x: float = TABLE_MARGIN + 4
    _key_item(draw, x, y, "band", "Red band: each lane's safety speed (mph), inside first")
    y += KEY_LINE
    x = _key_item(draw, x, y, "spin", "spin-off point")
    x = _key_item(draw, x, y, "island", "island")
    _key_item(draw, x, y, "water", "water")
    y += KEY_LINE
    x = TABLE_MARGIN + 4
    x = _key_item(draw, x, y, "ring", "car to move")
    x = _key_item(draw, x, y, "move", "last move")
    _key_item(draw, x, y, "flag", "finished")
    y += KEY_LINE
    draw_text(
        draw,
        (TABLE_MARGIN + 4, y),
        "Laps: laps to go  ·  Tyres, Brakes: wear  ·  Cards: Tactic cards",
        PX,
        INK,
        anchor="lm",
    )


# --- the last moves ----------------------------------------------------------------------


@dataclass(frozen=True)
class LastMove:
    """Where a car was (row, lane, dist) before and where it is now."""

    seat: int
    start: tuple[int, int, int]
    end: tuple[int, int, int]


def moves_between(before: WaddingtonState, after: WaddingtonState) -> list[LastMove]:
    """The cars that moved from `before` to `after` (a pit stop or a spin counts; a car that
    retired or stayed put does not)."""
    if len(before.cars) != len(after.cars) or before.circuit != after.circuit:
        return []
    moves = []
    for old, new in zip(before.cars, after.cars, strict=True):
        if new.status != "running" or old.status != "running":
            continue
        start, end = (old.row, old.lane, old.dist), (new.row, new.lane, new.dist)
        if start != end:
            moves.append(LastMove(new.seat, start, end))
    return moves


def move_points(name: str, move: LastMove) -> list[Point]:
    """The move as a line along the track, row by row, drifting from the start lane to the
    end lane (the rules keep only where the car was and is, not the squares in between)."""
    (r0, l0, d0), (r1, l1, d1) = move.start, move.end
    steps = d1 - d0
    n = abs(steps)
    if n == 0:
        return [unit_xy(name, r0, l0), unit_xy(name, r1, l1)]
    sign = 1 if steps > 0 else -1
    pts = []
    for k in range(n + 1):
        row = r0 + sign * k
        t = k / n
        a, b = unit_xy(name, row, l0), unit_xy(name, row, l1)
        pts.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    return pts


def _move_line(
    draw: ImageDraw.ImageDraw, pts: Sequence[tuple[float, float]], colour: RGB, width: int
) -> None:
    draw.line(list(pts), fill=INK, width=width + 4, joint="curve")
    draw.line(list(pts), fill=colour, width=width, joint="curve")


def _ghost(draw: ImageDraw.ImageDraw, xy: tuple[float, float], colour: RGB) -> None:
    """Where the car started its move: a small dot in its colour."""
    x, y = xy
    r = 7
    draw.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=INK)
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)


def _draw_moves(
    draw: ImageDraw.ImageDraw, name: str, f: Frame, cars: Sequence[Car], moves: list[LastMove]
) -> None:
    width = max(4, round(f.scale * 0.2))
    for move in moves:
        colour = car_colour(cars[move.seat].colour).fill
        pts = [f.px(p) for p in move_points(name, move)]
        _move_line(draw, pts, colour, width)
        _ghost(draw, pts[0], colour)


# --- the board ---------------------------------------------------------------------------


def render_board(
    state: WaddingtonState,
    *,
    highlight_seat: int | None = None,
    previous: WaddingtonState | None = None,
    title: str | None = None,
) -> bytes:
    """PNG of the whole circuit with every car, and one dashboard row per car in race order.

    `highlight_seat`: the car to move, ringed in yellow (on the circuit, in the header and in
    the table). `previous`: the race as it was at the last board; each car that moved since
    is drawn with a line from where it was. `title`: the race's own name (a league round's,
    say); the circuit is named as the circuit.

    Only what a board draws over the static layer is mapped to the PNG palette (the header,
    the table, the cars and the move lines); the static layer is mapped once (cached)."""
    if highlight_seat is not None and not 0 <= highlight_seat < len(state.cars):
        highlight_seat = None
    image = board_image(state, highlight_seat=highlight_seat, previous=previous, title=title)
    name, n = state.circuit, min(len(state.cars), MAX_CARS)
    ref = _reference(name, n)
    out = _static_mapped(name, n).copy()
    for box in _dirty(state, highlight_seat, previous):
        out.paste(image.crop(box).quantize(palette=ref, dither=Image.Dither.NONE), box[:2])
    return to_png(out)


def board_image(
    state: WaddingtonState,
    *,
    highlight_seat: int | None = None,
    previous: WaddingtonState | None = None,
    title: str | None = None,
    static: Image.Image | None = None,
) -> Image.Image:
    """The board as an RGB image (`render_board` without the PNG), drawn over `static` (by
    default the static layer mapped to the board's palette)."""
    name = state.circuit
    n = min(len(state.cars), MAX_CARS)
    image = (static or _static_mapped(name, n)).convert("RGB")
    draw = ImageDraw.Draw(image)
    frame = _board_frame(name)
    if previous is not None:
        _draw_moves(draw, name, frame, state.cars, moves_between(previous, state))
    finished = [c.seat for c in state.cars if car_status(state, c) == "finished"]
    draw_cars(draw, name, state.cars, frame, CAR_SIZE, PX, highlight_seat, finished=finished)
    _draw_header(draw, state, highlight_seat, title)
    draw_dashboard(draw, state, BOARD_WIDTH, _table_top(), highlight_seat)
    return image


Box = tuple[int, int, int, int]


def _box(x0: float, y0: float, x1: float, y1: float, height: int) -> Box:
    """Whole pixels covering the box, within the board."""
    return (max(0, math.floor(x0)), max(0, math.floor(y0)), min(BOARD_WIDTH, math.ceil(x1)),
            min(height, math.ceil(y1)))  # fmt: skip


def _dirty(
    state: WaddingtonState, highlight_seat: int | None, previous: WaddingtonState | None
) -> list[Box]:
    """Every box `board_image` draws in over the static layer: the header, the table, each
    car with its ring, and each segment of the move lines with its ghost dot."""
    name, n = state.circuit, min(len(state.cars), MAX_CARS)
    height = board_height(n)
    f = _board_frame(name)
    r = ring_radius(CAR_SIZE) + 4
    header = max(HEADER_HEIGHT, math.ceil(HEADER_HEIGHT * HEADER_LINES[1] + r))  # "To move" ring
    out = [(0, 0, BOARD_WIDTH, header), (0, _table_top(), BOARD_WIDTH, _key_top(n))]
    for point in car_points(name, state.cars).values():
        x, y = f.px(point)
        out.append(_box(x - r, y - r, x + r, y + r, height))
    if previous is not None:
        pad = max(4, round(f.scale * 0.2)) / 2 + 12  # the line's width, its outline, the dot
        for move in moves_between(previous, state):
            pts = [f.px(p) for p in move_points(name, move)]
            for (xa, ya), (xb, yb) in zip(pts, pts[1:], strict=False):
                out.append(_box(min(xa, xb) - pad, min(ya, yb) - pad,
                                max(xa, xb) + pad, max(ya, yb) + pad, height))  # fmt: skip
    return out


@cache
def _reference(name: str, n_cars: int) -> Image.Image:
    """The PNG palette of this circuit's boards with `n_cars`, made once: the colours of the
    static layer and of a specimen board over it (the table's rows, statuses and wear, a
    ring, move lines), then every car colour and its ring blends, so that a board is only
    mapped to it (no octree per image) and no car colour is ever merged away."""
    static = _board_static(name, n_cars)
    both = Image.new("RGB", (static.width, static.height * 2))
    both.paste(static, (0, 0))
    both.paste(_specimen(name, n_cars, static), (0, static.height))
    sample = both.resize((both.width // 2, both.height // 2), Image.Resampling.NEAREST)
    extra: list[RGB] = [HIGHLIGHT, INK, PAPER, HEADER_BG, HEADER_FG, WHITE, SPIN_MARK,
                        *STATUS_COLOURS.values(), WEAR_OK, WEAR_WARN, WEAR_BAD]  # fmt: skip
    return palette_reference(sample, 176, extra, dark_rings=True)


def _specimen(name: str, n_cars: int, static: Image.Image) -> Image.Image:
    """A board of a race a few game turns in (a fixed seed): what the dynamic layer draws."""
    game = get_game("waddington")
    config = {"count": n_cars, "more_than_six": n_cars > 6}
    state = game.new_game(1, config).model_copy(update={"circuit": name})
    before = state
    for _ in range(3 * n_cars):
        if game.is_terminal(state):
            break
        before = state
        state, _ = game.apply(state, game.robot_action(state, game.to_act(state)[0]))
    return board_image(state, highlight_seat=0, previous=before, title=DEFAULT_TITLE, static=static)


@cache
def _static_mapped(name: str, n_cars: int) -> Image.Image:
    """The static layer mapped to the board's PNG palette, once."""
    return _board_static(name, n_cars).quantize(palette=_reference(name, n_cars),
                                                dither=Image.Dither.NONE)  # fmt: skip


def _draw_header(
    draw: ImageDraw.ImageDraw, state: WaddingtonState, highlight_seat: int | None, title: str | None
) -> None:
    """Line 1: the race's name and the game turn; line 2: the car to move (or the result)
    and the circuit with the race's laps."""
    y1, y2 = (HEADER_HEIGHT * k for k in HEADER_LINES)
    right = BOARD_WIDTH - 12
    turn = game_turn(state)
    turn_w = text_width(turn, PX, True)
    draw_text(draw, (right, y1), turn, PX, HEADER_FG, bold=True, anchor="rm")
    draw_text(
        draw,
        (12, y1),
        title or DEFAULT_TITLE,
        round(PX * 1.15),
        HEADER_FG,
        bold=True,
        anchor="lm",
        max_width=BOARD_WIDTH - 48 - turn_w,
    )
    where = f"{circuit(state.circuit).title} circuit  ·  {laps_text(state.settings.laps)}"
    where_w = text_width(where, PX)
    draw_text(draw, (right, y2), where, PX, HEADER_FG, anchor="rm")
    if state.over:
        draw_text(draw, (12, y2), "Race over", PX, HIGHLIGHT, bold=True, anchor="lm")
    elif highlight_seat is not None:
        car = state.cars[highlight_seat]
        label = "To move:"
        draw_text(draw, (12, y2), label, PX, HEADER_FG, anchor="lm")
        x = 12 + text_width(label, PX) + 8 + CAR_SIZE / 2
        draw_ring(draw, (x, y2), CAR_SIZE)
        marker(draw, (round(x), round(y2)), car.colour, car_label(car), CAR_SIZE, PX)
        draw_text(
            draw,
            (x + CAR_SIZE / 2 + 12, y2),
            car.name,
            PX,
            HEADER_FG,
            bold=True,
            anchor="lm",
            max_width=right - where_w - 24 - x - CAR_SIZE / 2,
        )


def warm(name: str) -> None:
    """Build the static layers for the grids the bot races (up to six cars; seven or eight,
    a player note's option, are drawn on first use): about 2.5 MB each."""
    for n in range(1, 7):
        _static_mapped(name, n)


__all__ = [
    "BOARD_WIDTH",
    "CAR_SIZE",
    "LastMove",
    "board_height",
    "board_labels",
    "board_xy",
    "car_spots",
    "car_board_xy",
    "moves_between",
    "render_board",
]
