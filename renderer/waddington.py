"""Waddington's Formula 1 images: the board, the move close-up and the classification.

- `render_board(state, highlight_seat=None)`: the whole circuit (track, faint lane squares,
  red bands with each lane's safety speed, islands, Prenton Pool, corner names, chequered
  line, pit lane with each car's pit square, spin-off points), every car as a numbered marker
  in its colour (in its pit and spun off too), the car to move ringed, and a dashboard row per
  car (speed, laps to go, tyre and brake wear gauges, Tactic card count, status).
- `render_closeup(state, seat, destinations, letters=None)`: a crop around the car with every
  destination square lettered A, B, C...; a letter on red with "+20"/"+40" marks a move that
  crosses a red band over its safety speed.
- `render_classification(state, names=None)`: the final classification table.

The circuit layer (everything that does not move) is drawn once per circuit and scale, with
shapes supersampled for smooth edges, and cached; each image then costs only the cars, the
dashboards and the PNG encoding. `board_xy` and `closeup_layout` expose the geometry so that
callers and tests can find things in the pictures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    MUTED,
    PAPER,
    RGB,
    TITLE_BG,
    TITLE_FG,
    Cell,
    Column,
    TableStyle,
    car_colour,
    car_marker,
    draw_table,
    draw_text,
    table_height,
    text_width,
    to_png,
)
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, Circuit, catalog
from rules.waddington.engine import lap_indicator
from rules.waddington.state import Car, WaddingtonState

Point = tuple[float, float]
PxPoint = tuple[int, int]

# --- theme -------------------------------------------------------------------------------

GRASS: RGB = (128, 172, 108)
ASPHALT: RGB = (84, 88, 96)
SQUARE_LINE: RGB = (112, 117, 126)
EDGE_LINE: RGB = (236, 238, 240)
PIT_LANE_FILL: RGB = (150, 154, 162)
BAND_RED: RGB = (206, 20, 40)
ISLAND: RGB = (12, 12, 12)
WATER: RGB = (52, 120, 196)
WATER_LIGHT: RGB = (150, 196, 236)
SPIN_MARK: RGB = (255, 150, 0)
HIGHLIGHT: RGB = (255, 230, 0)
WARN_RED: RGB = (214, 20, 36)
LETTER_BG: RGB = (255, 255, 255)
PATH_COLOUR: RGB = (255, 255, 255)
PATH_WARN: RGB = (255, 150, 150)
CHIP_BG: RGB = (250, 250, 246)

MARGIN = 16
PAD_UNITS = 1.1  # grass around the circuit's outermost points, in squares

# --- circuit geometry --------------------------------------------------------------------


def _circuit(name: str) -> Circuit:
    circuit = catalog().circuit
    if name != circuit.name:
        raise ValueError(f"unknown Waddington circuit {name!r}")
    return circuit


@dataclass(frozen=True)
class Geometry:
    """Per-row unit vectors and the circuit's bounding box, in circuit units (1 = a square)."""

    forward: list[Point]  # direction of travel of each row
    across: list[Point]  # from the inside lane (0) towards the outside lane (2)
    xmin: float
    ymin: float
    xmax: float
    ymax: float


@cache
def _geometry(name: str) -> Geometry:
    c = _circuit(name)
    forward, across = [], []
    xs: list[float] = []
    ys: list[float] = []
    for r in c.rows:
        h = math.radians(r.heading)
        forward.append((math.cos(h), math.sin(h)))
        (x0, y0), (x2, y2) = r.squares[0], r.squares[2]
        n = math.hypot(x2 - x0, y2 - y0) or 1.0
        across.append(((x2 - x0) / n, (y2 - y0) / n))
        for x, y in (*r.squares, r.pit, r.verge):
            xs.append(x)
            ys.append(y)
    return Geometry(forward, across, min(xs), min(ys), max(xs), max(ys))


def unit_xy(name: str, row: int, lane: int) -> Point:
    """Circuit-unit position of a square; lane -1 = the pit beside the row, 3 = the verge."""
    r = _circuit(name).rows[row % len(_circuit(name).rows)]
    if lane == PIT_LANE:
        return r.pit
    if lane == VERGE_LANE:
        return r.verge
    return r.squares[max(0, min(2, lane))]


def _offset(p: Point, v: Point, k: float) -> Point:
    return (p[0] + v[0] * k, p[1] + v[1] * k)


@dataclass(frozen=True)
class Frame:
    """Maps circuit units to pixels of a picture: px = origin + (unit - min) * scale."""

    scale: float
    ox: float
    oy: float
    xmin: float
    ymin: float

    def px(self, p: Point) -> tuple[float, float]:
        return (
            self.ox + (p[0] - self.xmin) * self.scale,
            self.oy + (p[1] - self.ymin) * self.scale,
        )

    def ipx(self, p: Point) -> PxPoint:
        x, y = self.px(p)
        return (round(x), round(y))

    def scaled(self, k: float) -> Frame:
        return Frame(self.scale * k, self.ox * k, self.oy * k, self.xmin, self.ymin)

    def shifted(self, dx: float, dy: float) -> Frame:
        return Frame(self.scale, self.ox + dx, self.oy + dy, self.xmin, self.ymin)


def _natural_size(name: str, scale: float) -> tuple[int, int]:
    g = _geometry(name)
    w = math.ceil((g.xmax - g.xmin + 2 * PAD_UNITS) * scale)
    h = math.ceil((g.ymax - g.ymin + 2 * PAD_UNITS) * scale)
    return w, h


def _frame_for(name: str, scale: float, width: int, height: int) -> Frame:
    """The circuit centred in a width x height picture at `scale` px per square."""
    g = _geometry(name)
    cw = (g.xmax - g.xmin) * scale
    ch = (g.ymax - g.ymin) * scale
    return Frame(scale, (width - cw) / 2, (height - ch) / 2, g.xmin, g.ymin)


# --- the static circuit layer ------------------------------------------------------------

SUPERSAMPLE = 2


def _quad(f: Frame, centre: Point, fwd: Point, acr: Point, along: float, width: float) -> list:
    """Pixel polygon of a rectangle centred at `centre`: `along` long, `width` across."""
    a, w = along / 2, width / 2
    pts = [
        _offset(_offset(centre, fwd, -a), acr, -w),
        _offset(_offset(centre, fwd, a), acr, -w),
        _offset(_offset(centre, fwd, a), acr, w),
        _offset(_offset(centre, fwd, -a), acr, w),
    ]
    return [f.px(p) for p in pts]


def _draw_shapes(draw: ImageDraw.ImageDraw, name: str, f: Frame) -> None:
    """Everything of the circuit but text, in frame `f` (used at the supersampled scale)."""
    c = _circuit(name)
    g = _geometry(name)
    cat = catalog()
    s = f.scale
    rows = c.rows
    n = len(rows)

    # track surface: the outer edge filled with asphalt, the inner edge back to grass
    outer = [f.px(_offset(r.centre, g.across[i], 1.55)) for i, r in enumerate(rows)]
    inner = [f.px(_offset(r.centre, g.across[i], -1.55)) for i, r in enumerate(rows)]
    draw.polygon(outer, fill=ASPHALT)
    draw.polygon(inner, fill=GRASS)
    draw.line([*outer, outer[0]], fill=EDGE_LINE, width=max(2, round(s * 0.06)), joint="curve")
    draw.line([*inner, inner[0]], fill=EDGE_LINE, width=max(2, round(s * 0.06)), joint="curve")

    # pit lane: a strip inside the track along the pit rows, one square per car number
    pit_rows = sorted(p.row for p in c.pits)
    for row in range(pit_rows[0] - 1, pit_rows[-1] + 1):
        r = rows[row % n]
        centre = _offset(r.centre, g.across[row % n], -2.3)
        draw.polygon(
            _quad(f, centre, g.forward[row % n], g.across[row % n], 1.04, 1.3), fill=PIT_LANE_FILL
        )
    for p in c.pits:
        r = rows[p.row]
        colour = car_colour(cat.colour_of.get(p.number))
        tint = tuple(round(v * 0.55 + 255 * 0.45) for v in colour.fill)
        box = _quad(f, r.pit, g.forward[p.row], g.across[p.row], 0.9, 0.9)
        draw.polygon(box, fill=tint, outline=INK, width=max(1, round(s * 0.03)))

    # lane squares, faintly
    line_w = max(1, round(s * 0.035))
    for i, r in enumerate(rows):
        for sq in r.squares:
            draw.polygon(
                _quad(f, sq, g.forward[i], g.across[i], 0.92, 0.92),
                outline=SQUARE_LINE,
                width=line_w,
            )

    # red bands: a bar across the three lanes of the band row
    for b in c.bands:
        r = rows[b.row]
        draw.polygon(
            _quad(f, r.centre, g.forward[b.row], g.across[b.row], 0.56, 3.1),
            fill=BAND_RED,
            outline=EDGE_LINE,
            width=max(1, round(s * 0.04)),
        )

    # islands (black) and Prenton Pool (water)
    for o in c.obstacles:
        fill = ISLAND if o.kind == "island" else WATER
        for row, lane in o.squares:
            sq = rows[row].squares[lane]
            draw.polygon(_quad(f, sq, g.forward[row], g.across[row], 1.06, 1.06), fill=fill)
        if o.kind == "pool":
            for row, lane in o.squares:
                sq = rows[row].squares[lane]
                for k in (-0.2, 0.15):
                    a = f.px(_offset(_offset(sq, g.forward[row], -0.3), g.across[row], k))
                    b = f.px(_offset(_offset(sq, g.forward[row], 0.3), g.across[row], k))
                    draw.line([a, b], fill=WATER_LIGHT, width=max(1, round(s * 0.06)))

    # spin-off points: an orange ring on the verge of each corner's spin-off row
    for corner in c.corners:
        x, y = f.px(rows[corner.spin_off_row].verge)
        rad = s * 0.42
        draw.ellipse(
            (x - rad, y - rad, x + rad, y + rad),
            outline=SPIN_MARK,
            width=max(2, round(s * 0.09)),
        )

    # chequered line: between the last row and row 0
    last, first = rows[n - 1], rows[0]
    mid = ((last.centre[0] + first.centre[0]) / 2, (last.centre[1] + first.centre[1]) / 2)
    fwd, acr = g.forward[0], g.across[0]
    cells = 8
    cell = 3.1 / cells
    for k in range(cells):
        for j in range(2):
            centre = _offset(_offset(mid, acr, -1.55 + cell * (k + 0.5)), fwd, (j - 0.5) * cell)
            fill = (250, 250, 250) if (k + j) % 2 else (16, 16, 16)
            draw.polygon(_quad(f, centre, fwd, acr, cell, cell), fill=fill)


def _chip(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fg: RGB = INK,
    bg: RGB = CHIP_BG,
    *,
    bold: bool = True,
) -> None:
    w = text_width(text, size, bold) + size * 0.8
    h = size * 1.45
    x, y = xy
    draw.rounded_rectangle(
        (round(x - w / 2), round(y - h / 2), round(x + w / 2), round(y + h / 2)),
        radius=round(h / 3),
        fill=bg,
        outline=INK,
        width=1,
    )
    draw_text(draw, (x, y), text, size, fg, bold=bold, anchor="mm")


def _draw_labels(draw: ImageDraw.ImageDraw, name: str, f: Frame) -> None:
    """The circuit's text: safety speeds on the bands, corner names, pit numbers, spin-offs."""
    c = _circuit(name)
    g = _geometry(name)
    s = f.scale
    rows = c.rows
    band_px = max(12, round(s * 0.38))
    for b in c.bands:
        r = rows[b.row]
        for lane, safety in enumerate(b.safety):
            draw_text(
                draw,
                f.px(r.squares[lane]),
                str(safety),
                band_px,
                (255, 255, 255),
                bold=True,
                anchor="mm",
            )
    name_px = max(12, round(s * 0.4))
    for corner in c.corners:
        mid = (corner.first_row + corner.last_row) // 2
        at = _offset(rows[mid].centre, g.across[mid], -3.6)
        _chip(draw, f.px(at), corner.name, name_px)
    small = max(10, round(s * 0.3))
    for corner in c.corners:
        at = _offset(rows[corner.spin_off_row].verge, g.across[corner.spin_off_row], 0.75)
        draw_text(draw, f.px(at), "spin-off", small, (60, 30, 0), bold=True, anchor="mm")
    for p in c.pits:
        draw_text(
            draw,
            f.px(rows[p.row].pit),
            str(p.number),
            max(11, round(s * 0.42)),
            INK,
            bold=True,
            anchor="mm",
        )
    pits = sorted(p.row for p in c.pits)
    first_pit = pits[0]
    at = _offset(rows[first_pit].pit, g.forward[first_pit], -1.2)
    draw_text(draw, f.px(at), "PITS", small, INK, bold=True, anchor="mm")
    for o in c.obstacles:
        if o.kind == "pool":
            row, lane = o.squares[len(o.squares) // 2]
            at = _offset(rows[row].squares[lane], g.across[row], -1.9)
            _chip(draw, f.px(at), o.name, name_px, (255, 255, 255), WATER)
    start = _offset(rows[0].centre, g.across[0], 2.6)
    draw_text(draw, f.px(start), "START / FINISH", small, INK, bold=True, anchor="mm")


def _render_layer(name: str, scale: float, width: int, height: int) -> tuple[Image.Image, Frame]:
    frame = _frame_for(name, scale, width, height)
    k = SUPERSAMPLE
    big = Image.new("RGB", (width * k, height * k), GRASS)
    _draw_shapes(ImageDraw.Draw(big), name, frame.scaled(k))
    image = big.resize((width, height), Image.Resampling.LANCZOS)
    _draw_labels(ImageDraw.Draw(image), name, frame)
    return image, frame


@cache
def _closeup_layer(name: str, scale: int) -> tuple[Image.Image, Frame]:
    w, h = _natural_size(name, scale)
    return _render_layer(name, scale, w, h)


# --- cars --------------------------------------------------------------------------------


def _car_label(car: Car) -> str:
    return str(car.number)


def _car_points(name: str, cars: Sequence[Car]) -> dict[int, Point]:
    """Unit position of each car on the circuit (retired cars are left off); cars sharing a
    point (two spun at one corner) are spread along the verge so that both numbers show."""
    g = _geometry(name)
    out: dict[int, Point] = {}
    used: dict[Point, int] = {}
    for car in cars:
        if car.status != "running":
            continue
        p = unit_xy(name, car.row, car.lane)
        k = used.get(p, 0)
        used[p] = k + 1
        if k:
            p = _offset(p, g.forward[car.row % len(g.forward)], -0.75 * k)
        out[car.seat] = p
    return out


def _draw_ring(draw: ImageDraw.ImageDraw, xy: tuple[float, float], size: int) -> None:
    x, y = xy
    outer = size / 2 + max(7, size // 5)
    width = max(4, size // 8)
    draw.ellipse((x - outer - 2, y - outer - 2, x + outer + 2, y + outer + 2), fill=INK)
    draw.ellipse((x - outer, y - outer, x + outer, y + outer), fill=HIGHLIGHT)
    inner = outer - width
    draw.ellipse((x - inner, y - inner, x + inner, y + inner), fill=INK)


def _draw_cars(
    draw: ImageDraw.ImageDraw,
    state: WaddingtonState,
    frame: Frame,
    size: int,
    highlight_seat: int | None,
    visible: Callable[[tuple[float, float]], bool] = lambda _: True,
) -> None:
    points = _car_points(state.circuit, state.cars)
    if highlight_seat in points:
        xy = frame.px(points[highlight_seat])
        if visible(xy):
            _draw_ring(draw, xy, size)
    for car in state.cars:
        if car.seat not in points:
            continue
        xy = frame.ipx(points[car.seat])
        if visible(xy):
            car_marker(draw, xy, car.colour, _car_label(car), size)


# --- board -------------------------------------------------------------------------------

BOARD_WIDTH = 1400
BOARD_SCALE = 40  # px per square
HEADER_HEIGHT = 58
MAX_CARS = 8
CAR_SIZE = 38
CIRCUIT_HEIGHT = _natural_size("paddock-park", BOARD_SCALE)[1]
TABLE_TOP = HEADER_HEIGHT + CIRCUIT_HEIGHT + 10
DASH_STYLE = TableStyle(
    row_height=46, header_height=34, font_size=22, header_font_size=17, marker_size=36
)
LEGEND_HEIGHT = 40
BOARD_HEIGHT = TABLE_TOP + table_height(MAX_CARS, DASH_STYLE) + LEGEND_HEIGHT

TYRE_OK: RGB = (40, 150, 70)
WEAR_WARN: RGB = (245, 150, 0)
WEAR_BAD: RGB = (214, 26, 36)
GAUGE_EMPTY: RGB = (222, 226, 232)
STATUS_COLOURS: dict[str, RGB] = {
    "running": (20, 120, 50),
    "in pits": (20, 80, 200),
    "spun": (200, 100, 0),
    "retired": (200, 16, 46),
    "finished": INK,
}

DASH_COLUMNS = [
    Column("Car", 150),
    Column("Driver", 240),
    Column("Speed", 120, "right", bold=True),
    Column("Laps to go", 120, "center", bold=True),
    Column("Tyres", 190),
    Column("Brakes", 160),
    Column("Tactic cards", 130, "center"),
    Column("Status", BOARD_WIDTH - 2 * MARGIN - 1110),
]


@cache
def _board_frame(name: str) -> Frame:
    return _frame_for(name, BOARD_SCALE, BOARD_WIDTH, CIRCUIT_HEIGHT).shifted(0, HEADER_HEIGHT)


def board_xy(row: int, lane: int, circuit: str = "paddock-park") -> PxPoint:
    """Pixel centre, on the board image, of a square (lane -1 = its pit, 3 = the verge)."""
    return _board_frame(circuit).ipx(unit_xy(circuit, row, lane))


def car_board_xy(state: WaddingtonState, seat: int) -> PxPoint | None:
    """Pixel centre of a car's marker on the board (None for a retired car, not drawn)."""
    p = _car_points(state.circuit, state.cars).get(seat)
    return None if p is None else _board_frame(state.circuit).ipx(p)


def _legend_box(draw: ImageDraw.ImageDraw, name: str) -> None:
    """A key in the infield: what the marks on the circuit mean."""
    f = _board_frame(name)
    g = _geometry(name)
    cx, cy = f.px(((g.xmin + g.xmax) / 2, (g.ymin + g.ymax) / 2 - 0.3))
    w, h = 560, 150
    left, top = round(cx - w / 2), round(cy - h / 2)
    draw.rounded_rectangle((left, top, left + w, top + h), radius=12, fill=CHIP_BG, outline=INK)
    title = f"{_circuit(name).title}"
    draw_text(draw, (left + 16, top + 12), title, 24, INK, bold=True)
    x, y = left + 16, top + 52
    # red band
    draw.rectangle((x, y, x + 44, y + 18), fill=BAND_RED)
    draw_text(draw, (x + 22, y + 9), "60", 14, (255, 255, 255), bold=True, anchor="mm")
    draw_text(
        draw, (x + 54, y + 9), "red band: safety speed of each lane (mph)", 18, INK, anchor="lm"
    )
    y += 30
    draw.ellipse((x + 12, y - 1, x + 32, y + 19), outline=SPIN_MARK, width=4)
    draw_text(
        draw,
        (x + 54, y + 9),
        "spin-off point      black: island      blue: water",
        18,
        INK,
        anchor="lm",
    )
    y += 30
    ring = (x + 22, y + 9)
    draw.ellipse(
        (ring[0] - 12, ring[1] - 12, ring[0] + 12, ring[1] + 12),
        fill=HIGHLIGHT,
        outline=INK,
        width=2,
    )
    draw.ellipse((ring[0] - 7, ring[1] - 7, ring[0] + 7, ring[1] + 7), fill=INK)
    draw_text(
        draw,
        (x + 54, y + 9),
        "yellow ring: the car to move      markers: car number",
        18,
        INK,
        anchor="lm",
    )


@cache
def _board_static(name: str) -> Image.Image:
    image = Image.new("RGB", (BOARD_WIDTH, BOARD_HEIGHT), PAPER)
    layer, _ = _render_layer(name, BOARD_SCALE, BOARD_WIDTH, CIRCUIT_HEIGHT)
    image.paste(layer, (0, HEADER_HEIGHT))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, BOARD_WIDTH - 1, HEADER_HEIGHT - 1), fill=HEADER_BG)
    _legend_box(draw, name)
    return image


def car_status(state: WaddingtonState, car: Car) -> str:
    """running / in pits / spun / retired / finished."""
    if car.status == "retired":
        return "retired"
    if lap_indicator(state, car) == 0:
        return "finished"
    if car.lane == PIT_LANE:
        return "in pits"
    if car.lane == VERGE_LANE or car.spun_at:
        return "spun"
    return "running"


def _status_text(state: WaddingtonState, car: Car) -> str:
    status = car_status(state, car)
    if status == "in pits" and car.lose_turns:
        return f"in pits ({car.lose_turns} turn{'s' if car.lose_turns > 1 else ''} lost)"
    if status == "spun" and car.spun_at and car.spun_at != "verge":
        return f"spun ({car.spun_at})"
    if status == "retired" and car.retired_round:
        return f"retired (round {car.retired_round})"
    return status


def _wear_colour(value: int, limit: int) -> RGB:
    if value >= limit:
        return WEAR_BAD
    if value >= limit * 0.6:
        return WEAR_WARN
    return TYRE_OK


def _gauge(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], value: int, limit: int
) -> None:
    """`limit` segments, `value` of them filled (green, amber from 60%, red when worn out),
    then the count "x/limit" so that the gauge never relies on colour alone."""
    left, top, right, bottom = box
    text = f"{value}/{limit}"
    text_w = 48
    bar_right = right - DASH_STYLE.padding - text_w
    x0 = left + DASH_STYLE.padding
    gap = 3
    seg = (bar_right - x0 - gap * (limit - 1)) / limit
    cy = (top + bottom) // 2
    colour = _wear_colour(value, limit)
    for i in range(limit):
        sx = x0 + i * (seg + gap)
        fill = colour if i < value else GAUGE_EMPTY
        draw.rectangle((round(sx), cy - 9, round(sx + seg) - 1, cy + 9), fill=fill)
    draw_text(
        draw, (right - DASH_STYLE.padding, cy), text, 20, INK, bold=value >= limit, anchor="rm"
    )


def _dash_rows(state: WaddingtonState) -> list[list[str | Cell]]:
    rows: list[list[str | Cell]] = []
    for seat in state.order:
        car = state.cars[seat]
        status = car_status(state, car)
        rows.append(
            [
                Cell(car.colour, marker_colour=car.colour, marker_label=_car_label(car)),
                Cell(car.name + (" (robot)" if car.robot else "")),
                f"{car.speed} mph",
                str(lap_indicator(state, car)),
                "",
                "",
                str(len(car.hand)),
                Cell(_status_text(state, car), fill=STATUS_COLOURS[status], bold=True),
            ]
        )
    return rows


def render_board(state: WaddingtonState, *, highlight_seat: int | None = None) -> bytes:
    """PNG of the whole circuit with every car, and one dashboard row per car."""
    name = state.circuit
    image = _board_static(name).copy()
    draw = ImageDraw.Draw(image)
    frame = _board_frame(name)
    _draw_cars(draw, state, frame, CAR_SIZE, highlight_seat)

    # header: game, circuit, round and laps; the car to move
    draw_text(
        draw,
        (MARGIN, HEADER_HEIGHT / 2),
        "Waddington's Formula 1",
        28,
        HEADER_FG,
        bold=True,
        anchor="lm",
    )
    laps = state.settings.laps
    info = f"Round {state.round}  ·  {laps} lap{'s' if laps != 1 else ''}"
    if state.over:
        info += "  ·  race over"
    draw_text(
        draw, (BOARD_WIDTH - MARGIN, HEADER_HEIGHT / 2), info, 26, HEADER_FG, bold=True, anchor="rm"
    )
    if highlight_seat is not None and 0 <= highlight_seat < len(state.cars):
        car = state.cars[highlight_seat]
        cx = 420
        car_marker(draw, (cx, HEADER_HEIGHT // 2), car.colour, _car_label(car), 40)
        draw_text(
            draw,
            (cx + 28, HEADER_HEIGHT / 2),
            f"to move: {car.name}",
            24,
            HEADER_FG,
            anchor="lm",
            max_width=480,
        )

    rows = _dash_rows(state)[:MAX_CARS]
    layout = draw_table(draw, MARGIN, TABLE_TOP, DASH_COLUMNS, rows, DASH_STYLE)
    race = catalog().race
    for r, seat in enumerate(state.order[:MAX_CARS]):
        car = state.cars[seat]
        _gauge(draw, layout.cell_box(r, 4), car.tyre, race.max_tyre_wear)
        _gauge(draw, layout.cell_box(r, 5), car.brake, race.max_brake_wear)
        if seat == highlight_seat:
            top = layout.row_top(r)
            draw.rectangle(
                (MARGIN - 10, top, MARGIN - 4, top + DASH_STYLE.row_height - 1), fill=TITLE_BG
            )
    legend_y = layout.row_top(len(rows)) + LEGEND_HEIGHT / 2
    draw_text(
        draw,
        (MARGIN, legend_y),
        "Speed: speedometer (mph)  ·  Laps to go: lap indicator  ·  Tyres x/8 and brakes x/5: "
        "wear (full = red)  ·  Tactic cards: cards in hand",
        17,
        MUTED,
        anchor="lm",
        max_width=BOARD_WIDTH - 2 * MARGIN,
    )
    return to_png(image)


# --- close-up ----------------------------------------------------------------------------

CLOSEUP_WIDTH = 800
CLOSEUP_HEIGHT = 600
CLOSEUP_HEADER = 52
CLOSEUP_FOOTER = 36
CLOSEUP_MAP_HEIGHT = CLOSEUP_HEIGHT - CLOSEUP_HEADER - CLOSEUP_FOOTER
CLOSEUP_SCALES = (64, 54, 46, 38, 32)


@dataclass(frozen=True)
class CloseupLayout:
    scale: int
    crop: tuple[int, int]  # top-left of the crop in the circuit layer at `scale`
    frame: Frame  # circuit units -> close-up pixels
    letter_centres: list[PxPoint]  # one per destination, in the order given
    car_centre: PxPoint


def _dest_point(state: WaddingtonState, seat: int, to: Sequence[int]) -> Point:
    return unit_xy(state.circuit, to[0], to[1])


def closeup_layout(state: WaddingtonState, seat: int, destinations: Sequence) -> CloseupLayout:
    """Where the close-up of `seat`'s move crops the circuit, and where each letter goes."""
    name = state.circuit
    car = state.cars[seat]
    start = unit_xy(name, car.row, car.lane)
    pts = [start]
    for d in destinations:
        pts.append(_dest_point(state, seat, d.to))
        pts.extend(unit_xy(name, r, ln) for r, ln in d.path)
    pad = 1.3
    x0, x1 = min(p[0] for p in pts) - pad, max(p[0] for p in pts) + pad
    y0, y1 = min(p[1] for p in pts) - pad, max(p[1] for p in pts) + pad
    scale = CLOSEUP_SCALES[-1]
    for s in CLOSEUP_SCALES:
        if (x1 - x0) * s <= CLOSEUP_WIDTH and (y1 - y0) * s <= CLOSEUP_MAP_HEIGHT:
            scale = s
            break
    layer_w, layer_h = _natural_size(name, scale)
    base = _frame_for(name, scale, layer_w, layer_h)
    cx, cy = base.px(((x0 + x1) / 2, (y0 + y1) / 2))
    left = round(min(max(0, cx - CLOSEUP_WIDTH / 2), max(0, layer_w - CLOSEUP_WIDTH)))
    top = round(min(max(0, cy - CLOSEUP_MAP_HEIGHT / 2), max(0, layer_h - CLOSEUP_MAP_HEIGHT)))
    frame = base.shifted(-left, CLOSEUP_HEADER - top)
    letters = [frame.ipx(_dest_point(state, seat, d.to)) for d in destinations]
    car_point = _car_points(name, state.cars).get(seat, start)
    return CloseupLayout(scale, (left, top), frame, letters, frame.ipx(car_point))


def warning(d, tyres_gone: bool = False) -> str | None:
    """The tag on a destination's letter: None within every band's safety speed, else the
    worst excess ("+20", "+40"), "SPIN" when a spin is certain (60 mph or more over, or worn
    out tyres, §H), with "x2" when two bands are crossed over their safety speed."""
    excess = max((b.excess for b in d.bands), default=0)
    if not d.over or excess <= 0:
        return None
    tag = "SPIN" if excess >= 60 or tyres_gone else f"+{excess}"
    return f"{tag} x{d.over}" if d.over > 1 else tag


def _letter(
    draw: ImageDraw.ImageDraw, xy: PxPoint, letter: str, size: int, warn: str | None
) -> None:
    x, y = xy
    r = size / 2
    bg = WARN_RED if warn else LETTER_BG
    fg = (255, 255, 255) if warn else INK
    draw.ellipse((x - r - 3, y - r - 3, x + r + 3, y + r + 3), fill=INK)
    draw.ellipse((x - r, y - r, x + r, y + r), fill=bg)
    draw_text(draw, (x, y + 1), letter, round(size * 0.62), fg, bold=True, anchor="mm")
    if warn:
        _chip(
            draw,
            (x + r * 0.95, y - r * 1.05),
            warn,
            max(13, round(size * 0.3)),
            (255, 255, 255),
            INK,
        )


def render_closeup(
    state: WaddingtonState,
    seat: int,
    destinations: list,
    letters: list[str] | None = None,
) -> bytes:
    """PNG close-up of `seat`'s move: the squares it may end on, lettered in the order given.

    A red letter with "+20" / "+40" marks a destination reached over a red band above its
    safety speed (the excess of the worst band; "+60" and more is a certain spin)."""
    if letters is None:
        letters = [chr(ord("A") + i) for i in range(len(destinations))]
    if len(letters) != len(destinations):
        raise ValueError("one letter per destination")
    name = state.circuit
    lay = closeup_layout(state, seat, destinations)
    layer, _ = _closeup_layer(name, lay.scale)
    left, top = lay.crop
    image = Image.new("RGB", (CLOSEUP_WIDTH, CLOSEUP_HEIGHT), GRASS)
    image.paste(
        layer.crop((left, top, left + CLOSEUP_WIDTH, top + CLOSEUP_MAP_HEIGHT)), (0, CLOSEUP_HEADER)
    )
    draw = ImageDraw.Draw(image)
    s = lay.scale
    car = state.cars[seat]
    start = unit_xy(name, car.row, car.lane)

    # the paths, faintly, under everything that moves
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    odraw = ImageDraw.Draw(overlay)
    for d in destinations:
        pts = [lay.frame.px(start)] + [lay.frame.px(unit_xy(name, r, ln)) for r, ln in d.path]
        if len(pts) > 1:
            colour = PATH_WARN if d.over else PATH_COLOUR
            odraw.line(pts, fill=(*colour, 150), width=max(3, round(s * 0.1)), joint="curve")
    image.paste(overlay, (0, 0), overlay)

    def visible(xy: tuple[float, float]) -> bool:
        return -s < xy[0] < CLOSEUP_WIDTH + s and CLOSEUP_HEADER - s < xy[1] < CLOSEUP_HEIGHT

    _draw_cars(draw, state, lay.frame, round(s * 0.86), seat, visible)
    letter_size = round(s * 0.8)
    tyres_gone = car.tyre >= catalog().race.max_tyre_wear
    for d, letter, xy in zip(destinations, letters, lay.letter_centres, strict=True):
        _letter(draw, xy, letter, letter_size, warning(d, tyres_gone))

    # safety speeds on top of cars and letters, at the trailing edge of each band square
    g = _geometry(name)
    chip_px = max(12, round(s * 0.27))
    for band in _circuit(name).bands:
        row = _circuit(name).rows[band.row]
        for lane, safety in enumerate(band.safety):
            xy = lay.frame.px(_offset(row.squares[lane], g.forward[band.row], -0.45))
            if visible(xy):
                _chip(draw, xy, str(safety), chip_px, (255, 255, 255), BAND_RED)

    # header and footer drawn last, over any marker that overhangs the map
    draw.rectangle((0, 0, CLOSEUP_WIDTH - 1, CLOSEUP_HEADER - 1), fill=HEADER_BG)
    car_marker(draw, (30, CLOSEUP_HEADER // 2), car.colour, _car_label(car), 40)
    draw_text(
        draw,
        (58, CLOSEUP_HEADER / 2),
        f"{car.name}  ·  {car.speed} mph",
        24,
        HEADER_FG,
        bold=True,
        anchor="lm",
        max_width=470,
    )
    count = len(destinations)
    draw_text(
        draw,
        (CLOSEUP_WIDTH - MARGIN, CLOSEUP_HEADER / 2),
        f"{count} square{'s' if count != 1 else ''} to choose",
        20,
        HEADER_FG,
        anchor="rm",
    )
    draw.rectangle(
        (0, CLOSEUP_HEIGHT - CLOSEUP_FOOTER, CLOSEUP_WIDTH - 1, CLOSEUP_HEIGHT - 1), fill=PAPER
    )
    draw_text(
        draw,
        (MARGIN, CLOSEUP_HEIGHT - CLOSEUP_FOOTER / 2),
        "Letters: end squares  ·  red +20/+40: over the band's safety speed "
        "(dice)  ·  SPIN: certain spin",
        16,
        MUTED,
        anchor="lm",
        max_width=CLOSEUP_WIDTH - 2 * MARGIN,
    )
    return to_png(image)


# --- classification ----------------------------------------------------------------------

CLASS_WIDTH = 900
CLASS_TITLE = 64
CLASS_STYLE = TableStyle(
    row_height=48, header_height=36, font_size=23, header_font_size=17, marker_size=38
)
CLASS_COLUMNS = [
    Column("Place", 80, "center", bold=True),
    Column("Car", 150),
    Column("Driver", 250),
    Column("Status", 160),
    Column("Laps", 70, "center", bold=True),
    Column("Distance", CLASS_WIDTH - 2 * MARGIN - 710, "right"),
]


def classification_order(state: WaddingtonState) -> list[Car]:
    """Cars in classification order (§N rule 56): running cars by distance, then retired."""
    from rules.waddington import GAME

    return [state.cars[p.seat] for p in GAME.classification(state)]


def classification_marker_xy(place: int) -> PxPoint:
    """Pixel centre of the car marker on the line of `place` (1-based) of the classification."""
    top = CLASS_TITLE + 12 + CLASS_STYLE.header_height + (place - 1) * CLASS_STYLE.row_height
    left = MARGIN + CLASS_COLUMNS[0].width + CLASS_STYLE.padding
    return (left + CLASS_STYLE.marker_size // 2, top + CLASS_STYLE.row_height // 2)


def render_classification(state: WaddingtonState, names: dict[int, str] | None = None) -> bytes:
    """PNG of the final classification: place, car, driver, status, laps and distance."""
    names = names or {}
    cars = classification_order(state)
    length = catalog().length
    height = CLASS_TITLE + 12 + table_height(len(cars), CLASS_STYLE) + 44
    image = Image.new("RGB", (CLASS_WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, CLASS_WIDTH - 1, CLASS_TITLE - 1), fill=TITLE_BG)
    title = "Classification" if state.over else "Classification (provisional)"
    draw_text(draw, (MARGIN, CLASS_TITLE / 2), title, 32, TITLE_FG, bold=True, anchor="lm")
    laps = state.settings.laps
    draw_text(
        draw,
        (CLASS_WIDTH - MARGIN, CLASS_TITLE / 2),
        f"{_circuit(state.circuit).title}  ·  {laps} laps  ·  {state.round} rounds",
        20,
        TITLE_FG,
        anchor="rm",
    )
    rows: list[list[str | Cell]] = []
    for place, car in enumerate(cars, start=1):
        finished = car.status == "running" and lap_indicator(state, car) == 0
        status = "retired" if car.status == "retired" else ("finished" if finished else "running")
        rows.append(
            [
                str(place),
                Cell(car.colour, marker_colour=car.colour, marker_label=_car_label(car)),
                names.get(car.seat, car.name),
                Cell(status, fill=STATUS_COLOURS[status], bold=True),
                str(min(car.dist // length, laps)),
                f"{car.dist} squares",
            ]
        )
    top = CLASS_TITLE + 12
    layout = draw_table(draw, MARGIN, top, CLASS_COLUMNS, rows, CLASS_STYLE)
    draw_text(
        draw,
        (MARGIN, layout.row_top(len(rows)) + 22),
        "Running cars by distance over the line, then retired cars (latest first).",
        17,
        MUTED,
        anchor="lm",
        max_width=CLASS_WIDTH - 2 * MARGIN,
    )
    return to_png(image)


__all__ = [
    "BOARD_HEIGHT",
    "BOARD_WIDTH",
    "CLOSEUP_HEIGHT",
    "CLOSEUP_WIDTH",
    "CloseupLayout",
    "board_xy",
    "car_board_xy",
    "car_status",
    "classification_marker_xy",
    "classification_order",
    "closeup_layout",
    "render_board",
    "render_classification",
    "render_closeup",
    "unit_xy",
    "warning",
]


def warm_caches(circuit: str = "paddock-park") -> None:
    """Build the cached static layers (board and every close-up zoom) ahead of the first
    move, so no driver waits for them; the bot runs this in a thread at start-up."""
    _board_static(circuit)
    for scale in CLOSEUP_SCALES:
        _closeup_layer(circuit, scale)
