"""Waddington's Formula 1 drawing basics shared by the board, the close-up and the tables.

The theme, the phone rule for text sizes, the circuit's geometry (circuit units: 1 = a square)
and the frames that map it to pixels, the circuit layer (track, lanes, red bands, islands,
Prenton Pool, spin-off points, chequered line, pit lane; supersampled for smooth edges), the
corner signs with each red band's safety speeds, and the cars (markers, the ring of the car
to move, where each car stands).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    INK,
    RGB,
    car_colour,
    car_marker,
    draw_text,
    marker_ring,
    text_width,
)
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, Circuit, catalog
from rules.waddington.state import Car

Point = tuple[float, float]
PxPoint = tuple[int, int]
Box = tuple[int, int, int, int]
Segment = tuple[tuple[float, float], tuple[float, float]]

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
WHITE: RGB = (255, 255, 255)

# --- text sizes for a phone ---------------------------------------------------------------

PHONE_WIDTH = 400  # about how wide Discord shows an image on a phone
PHONE_MIN_PX = 12  # the smallest text a player should have to read there


def min_px(width: int) -> int:
    """The smallest font size for an image `width` px wide: it shows PHONE_MIN_PX tall when
    the image is scaled to PHONE_WIDTH."""
    return math.ceil(PHONE_MIN_PX * width / PHONE_WIDTH)


# --- circuit geometry --------------------------------------------------------------------


def circuit(name: str) -> Circuit:
    c = catalog().circuit
    if name != c.name:
        raise ValueError(f"unknown Waddington circuit {name!r}")
    return c


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
def geometry(name: str) -> Geometry:
    c = circuit(name)
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
    rows = circuit(name).rows
    r = rows[row % len(rows)]
    if lane == PIT_LANE:
        return r.pit
    if lane == VERGE_LANE:
        return r.verge
    return r.squares[max(0, min(2, lane))]


def offset(p: Point, v: Point, k: float) -> Point:
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


def natural_size(name: str, scale: float, pad: float) -> tuple[int, int]:
    """Pixel size of the whole circuit at `scale` px per square with `pad` squares of grass."""
    g = geometry(name)
    w = math.ceil((g.xmax - g.xmin + 2 * pad) * scale)
    h = math.ceil((g.ymax - g.ymin + 2 * pad) * scale)
    return w, h


def frame_for(name: str, scale: float, width: int, height: int) -> Frame:
    """The circuit centred in a width x height picture at `scale` px per square."""
    g = geometry(name)
    cw = (g.xmax - g.xmin) * scale
    ch = (g.ymax - g.ymin) * scale
    return Frame(scale, (width - cw) / 2, (height - ch) / 2, g.xmin, g.ymin)


# --- the circuit layer -------------------------------------------------------------------

SUPERSAMPLE = 2
TRACK_HALF = 1.55  # half the track's width, in squares


def quad_units(centre: Point, fwd: Point, acr: Point, along: float, width: float) -> list:
    """Corners of a rectangle centred at `centre`: `along` long, `width` across (units)."""
    a, w = along / 2, width / 2
    return [
        offset(offset(centre, fwd, -a), acr, -w),
        offset(offset(centre, fwd, a), acr, -w),
        offset(offset(centre, fwd, a), acr, w),
        offset(offset(centre, fwd, -a), acr, w),
    ]


def quad(f: Frame, centre: Point, fwd: Point, acr: Point, along: float, width: float) -> list:
    """Pixel polygon of a rectangle centred at `centre`: `along` long, `width` across."""
    return [f.px(p) for p in quad_units(centre, fwd, acr, along, width)]


def pit_strip(name: str) -> list[tuple[Point, Point, Point]]:
    """(centre, forward, across) of each row of the pit lane strip, inside the track."""
    c = circuit(name)
    g = geometry(name)
    n = len(c.rows)
    pit_rows = sorted(p.row for p in c.pits)
    out = []
    for row in range(pit_rows[0] - 1, pit_rows[-1] + 1):
        i = row % n
        out.append((offset(c.rows[i].centre, g.across[i], -2.3), g.forward[i], g.across[i]))
    return out


def draw_shapes(draw: ImageDraw.ImageDraw, name: str, f: Frame) -> None:
    """Everything of the circuit but text, in frame `f` (used at the supersampled scale)."""
    c = circuit(name)
    g = geometry(name)
    cat = catalog()
    s = f.scale
    rows = c.rows
    n = len(rows)

    # track surface: the outer edge filled with asphalt, the inner edge back to grass
    outer = [f.px(offset(r.centre, g.across[i], TRACK_HALF)) for i, r in enumerate(rows)]
    inner = [f.px(offset(r.centre, g.across[i], -TRACK_HALF)) for i, r in enumerate(rows)]
    draw.polygon(outer, fill=ASPHALT)
    draw.polygon(inner, fill=GRASS)
    draw.line([*outer, outer[0]], fill=EDGE_LINE, width=max(2, round(s * 0.06)), joint="curve")
    draw.line([*inner, inner[0]], fill=EDGE_LINE, width=max(2, round(s * 0.06)), joint="curve")

    # pit lane: a strip inside the track along the pit rows, one square per car number
    for centre, fwd, acr in pit_strip(name):
        draw.polygon(quad(f, centre, fwd, acr, 1.04, 1.3), fill=PIT_LANE_FILL)
    for p in c.pits:
        r = rows[p.row]
        colour = car_colour(cat.colour_of.get(p.number))
        tint = tuple(round(v * 0.55 + 255 * 0.45) for v in colour.fill)
        box = quad(f, r.pit, g.forward[p.row], g.across[p.row], 0.94, 0.94)
        draw.polygon(box, fill=tint, outline=INK, width=max(1, round(s * 0.03)))

    # lane squares, faintly
    line_w = max(1, round(s * 0.035))
    for i, r in enumerate(rows):
        for sq in r.squares:
            draw.polygon(
                quad(f, sq, g.forward[i], g.across[i], 0.92, 0.92),
                outline=SQUARE_LINE,
                width=line_w,
            )

    # red bands: a bar across the three lanes of the band row (their speeds are on signs)
    for b in c.bands:
        r = rows[b.row]
        draw.polygon(
            quad(f, r.centre, g.forward[b.row], g.across[b.row], 0.56, 3.1),
            fill=BAND_RED,
            outline=EDGE_LINE,
            width=max(1, round(s * 0.04)),
        )

    # islands (black) and Prenton Pool (water)
    for o in c.obstacles:
        fill = ISLAND if o.kind == "island" else WATER
        for row, lane in o.squares:
            sq = rows[row].squares[lane]
            draw.polygon(quad(f, sq, g.forward[row], g.across[row], 1.06, 1.06), fill=fill)
        if o.kind == "pool":
            for row, lane in o.squares:
                sq = rows[row].squares[lane]
                for k in (-0.2, 0.15):
                    start = f.px(offset(offset(sq, g.forward[row], -0.3), g.across[row], k))
                    end = f.px(offset(offset(sq, g.forward[row], 0.3), g.across[row], k))
                    draw.line([start, end], fill=WATER_LIGHT, width=max(1, round(s * 0.06)))

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
            centre = offset(offset(mid, acr, -1.55 + cell * (k + 0.5)), fwd, (j - 0.5) * cell)
            fill = (250, 250, 250) if (k + j) % 2 else (16, 16, 16)
            draw.polygon(quad(f, centre, fwd, acr, cell, cell), fill=fill)


def render_shapes(name: str, frame: Frame, width: int, height: int) -> Image.Image:
    """The circuit's shapes in a width x height picture, supersampled for smooth edges."""
    k = SUPERSAMPLE
    big = Image.new("RGB", (width * k, height * k), GRASS)
    draw_shapes(ImageDraw.Draw(big), name, frame.scaled(k))
    return big.resize((width, height), Image.Resampling.LANCZOS)


def chip_size(text: str, px: int, bold: bool = True) -> tuple[float, float]:
    """Width and height of the chip `chip` draws for `text` at `px`."""
    return text_width(text, px, bold) + px * 0.7, px * 1.4


def chip(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fg: RGB = INK,
    bg: RGB = CHIP_BG,
    *,
    bold: bool = True,
    outline: RGB = INK,
) -> Box:
    """A rounded label centred at `xy`; returns its box."""
    w, h = chip_size(text, size, bold)
    x, y = xy
    box = (round(x - w / 2), round(y - h / 2), round(x + w / 2), round(y + h / 2))
    draw.rounded_rectangle(box, radius=round(h / 3), fill=bg, outline=outline, width=1)
    draw_text(draw, (x, y), text, size, fg, bold=bold, anchor="mm")
    return box


def pit_numbers(draw: ImageDraw.ImageDraw, name: str, f: Frame, size: int) -> None:
    """The car number in each pit square (a car parked there covers it with the same number)."""
    c = circuit(name)
    for p in c.pits:
        draw_text(draw, f.px(c.rows[p.row].pit), str(p.number), size, INK, bold=True, anchor="mm")


# --- infield labels: each red band's safety speeds and the corners' names -----------------


def band_text(safety: Sequence[int]) -> str:
    """A band's safety speeds, inside lane first."""
    return " ".join(str(v) for v in safety)


@dataclass(frozen=True)
class Label:
    """A chip in the infield: a band's safety speeds beside the band's inner end, or a
    corner's name. In the infield no car (always on the track, in a pit or on the verge
    outside) can ever hide it."""

    kind: str  # "band" or "corner"
    text: str
    box: Box  # in the picture's pixels
    anchor: tuple[float, float]  # what it labels: the band's inner end, the corner's middle


def _inside(p: Point, poly: Sequence[Point]) -> bool:
    x, y = p
    hit = False
    j = len(poly) - 1
    for i in range(len(poly)):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            hit = not hit
        j = i
    return hit


def _dist_to_poly(p: Point, poly: Sequence[Point]) -> float:
    best = math.inf
    for i in range(len(poly)):
        (ax, ay), (bx, by) = poly[i - 1], poly[i]
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy or 1)))
        best = min(best, math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy))
    return best


def box_distance(p: tuple[float, float], box: Sequence[float]) -> float:
    """How far a point is from a box (0 inside it)."""
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return math.hypot(dx, dy)


def place_labels(
    name: str,
    f: Frame,
    px: int,
    avoid: Sequence[Box] = (),
    cars: Sequence[tuple[float, float]] = (),
    reach: float = 0.0,
    clearance: float = 0.3,
) -> list[Label]:
    """Every band's speeds as near its inner end as fits, then every corner's name near its
    middle, in the infield: clear of the track's inner edge (by `clearance` squares), the
    pit lane, the boxes in `avoid`, each other, and `reach` px from every point in `cars`
    (where a car can stand: its marker and ring never cover a label)."""
    c = circuit(name)
    g = geometry(name)
    inner = [f.px(offset(r.centre, g.across[i], -TRACK_HALF)) for i, r in enumerate(c.rows)]
    pits = [
        [f.px(p) for p in quad_units(centre, fwd, acr, 1.04, 1.3)]
        for centre, fwd, acr in pit_strip(name)
    ]
    xs, ys = [p[0] for p in inner], [p[1] for p in inner]
    step = max(2, round(f.scale / 5))
    grid = [
        (x, y)
        for x in range(round(min(xs)), round(max(xs)), step)
        for y in range(round(min(ys)), round(max(ys)), step)
    ]
    wanted: list[tuple[str, str, tuple[float, float], tuple[float, float]]] = []
    # last band first: Abbey's second band is hemmed in by the pit lane, and gets its spot
    for b in sorted(c.bands, key=lambda b: -b.row):
        end = f.px(offset(c.rows[b.row].centre, g.across[b.row], -TRACK_HALF))
        aim = f.px(offset(c.rows[b.row].centre, g.across[b.row], -TRACK_HALF - 1.2))
        wanted.append(("band", band_text(b.safety), end, aim))
    for corner in c.corners:
        mid = (corner.first_row + corner.last_row) // 2
        aim = f.px(offset(c.rows[mid].centre, g.across[mid], -TRACK_HALF - 2.2))
        wanted.append(("corner", corner.name, aim, aim))
    margin = clearance * f.scale
    taken = list(avoid)
    leaders: list[Segment] = []
    labels = []
    for kind, text, anchor, (ax, ay) in wanted:
        w, h = chip_size(text, px)
        box: Box | None = None
        for cx, cy in sorted(grid, key=lambda p: (p[0] - ax) ** 2 + (p[1] - ay) ** 2):
            cand = (round(cx - w / 2), round(cy - h / 2), round(cx + w / 2), round(cy + h / 2))
            # a band's leader line crosses no other label, and no label sits on a leader
            line = (anchor, _nearest_on_box(anchor, cand)) if kind == "band" else None
            if (
                _box_clear(cand, inner, pits, taken, margin)
                and all(box_distance(p, cand) >= reach for p in cars)
                and not any(_crosses(seg, cand) for seg in leaders)
                and (line is None or not any(_crosses(line, o) for o in taken))
                and (line is None or not _crosses_pits(line, pits))
            ):
                box = cand
                if line is not None:
                    leaders.append(line)
                break
        if box is None:
            raise ValueError(f"no room in the infield for {text!r}")
        taken.append(box)
        labels.append(Label(kind, text, box, anchor))
    return labels


def _along(seg: Segment) -> list[tuple[float, float]]:
    """Points every 2 px along a segment."""
    (x0, y0), (x1, y1) = seg
    n = max(2, round(math.hypot(x1 - x0, y1 - y0) / 2))
    return [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n) for k in range(n + 1)]


def _crosses_pits(seg: Segment, pits: Sequence[Sequence[Point]]) -> bool:
    return any(_inside(p, pit) for p in _along(seg) for pit in pits)


def _crosses(seg: Segment, box: Sequence[float]) -> bool:
    """Whether a line segment passes through a box (with a few px to spare)."""
    grown = (box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4)
    return any(box_distance(p, grown) == 0 for p in _along(seg))


def _box_clear(
    box: Box,
    inner: Sequence[Point],
    pits: Sequence[Sequence[Point]],
    taken: Sequence[Box],
    margin: float,
) -> bool:
    left, top, right, bottom = box
    gap = 8
    if not all(
        right + gap < o[0] or o[2] + gap < left or bottom + gap < o[1] or o[3] + gap < top
        for o in taken
    ):
        return False
    samples = []
    for k in range(7):  # the box's outline, sampled
        t = k / 6
        samples += [
            (left + (right - left) * t, top),
            (left + (right - left) * t, bottom),
            (left, top + (bottom - top) * t),
            (right, top + (bottom - top) * t),
        ]
    for p in samples:
        if not _inside(p, inner) or _dist_to_poly(p, inner) < margin:
            return False
        if any(_inside(p, pit) for pit in pits):
            return False
    return not any(  # a pit square poking into the box
        left <= x <= right and top <= y <= bottom for pit in pits for x, y in pit
    )


def _nearest_on_box(p: tuple[float, float], box: Box) -> tuple[float, float]:
    return (min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3]))


def draw_leader(draw: ImageDraw.ImageDraw, label: Label) -> None:
    """The line that ties a band's speeds to the band's inner end."""
    if label.kind == "band":
        near = _nearest_on_box(label.anchor, label.box)
        draw.line([label.anchor, near], fill=WHITE, width=7)
        draw.line([label.anchor, near], fill=BAND_RED, width=3)


def draw_label(draw: ImageDraw.ImageDraw, label: Label, px: int) -> None:
    """A band's speeds in red, a corner's name in white."""
    left, top, right, bottom = label.box
    centre = ((left + right) / 2, (top + bottom) / 2)
    if label.kind == "band":
        chip(draw, centre, label.text, px, WHITE, BAND_RED)
    else:
        chip(draw, centre, label.text, px)


# --- cars --------------------------------------------------------------------------------


def car_label(car: Car) -> str:
    return str(car.number)


def car_points(name: str, cars: Sequence[Car]) -> dict[int, Point]:
    """Unit position of each car on the circuit (retired cars are left off); cars sharing a
    point (two spun at one corner) are spread along the verge so that both numbers show."""
    g = geometry(name)
    out: dict[int, Point] = {}
    used: dict[Point, int] = {}
    for car in cars:
        if car.status != "running":
            continue
        p = unit_xy(name, car.row, car.lane)
        k = used.get(p, 0)
        used[p] = k + 1
        if k:
            p = offset(p, g.forward[car.row % len(g.forward)], -0.75 * k)
        out[car.seat] = p
    return out


def marker(
    draw: ImageDraw.ImageDraw, xy: PxPoint, colour: str | None, label: str, size: int, px: int
) -> None:
    """A car marker `size` px across whose number is drawn at `px` (at least the phone's
    minimum, more than `car_marker` would fit, so it reads on a phone)."""
    car_marker(draw, xy, colour, "", size)
    inner = size - 4 * marker_ring(size)
    if text_width(label, px, True) > inner:
        raise ValueError(f"a {px} px label {label!r} does not fit a {size} px marker")
    draw_text(draw, (xy[0], xy[1]), label, px, car_colour(colour).text, bold=True, anchor="mm")


def ring_radius(size: int) -> float:
    return size / 2 + max(5, size // 6)


def draw_ring(draw: ImageDraw.ImageDraw, xy: tuple[float, float], size: int) -> None:
    """The yellow ring of the car to move, drawn under its marker."""
    x, y = xy
    outer = ring_radius(size)
    draw.ellipse((x - outer - 2, y - outer - 2, x + outer + 2, y + outer + 2), fill=INK)
    draw.ellipse((x - outer, y - outer, x + outer, y + outer), fill=HIGHLIGHT)


def draw_chequered_ring(draw: ImageDraw.ImageDraw, xy: tuple[float, float], size: int) -> None:
    """A black and white chequered ring, drawn under the marker of a car that finished."""
    x, y = xy
    outer = ring_radius(size)
    draw.ellipse((x - outer - 2, y - outer - 2, x + outer + 2, y + outer + 2), fill=INK)
    box = (x - outer, y - outer, x + outer, y + outer)
    for k in range(0, 360, 30):
        draw.pieslice(box, k, k + 15, fill=WHITE)


def draw_cars(
    draw: ImageDraw.ImageDraw,
    name: str,
    cars: Sequence[Car],
    frame: Frame,
    size: int,
    px: int,
    highlight_seat: int | None,
    visible: Callable[[tuple[float, float]], bool] = lambda _: True,
    finished: Sequence[int] = (),
) -> dict[int, PxPoint]:
    """Every running car's marker; the rings (yellow: the car to move, chequered: the
    `finished` seats) first, so that a neighbour's marker may cover a bit of a ring but
    never a number. Returns the marker centres."""
    points = car_points(name, cars)
    for seat in finished:
        if seat in points and visible(frame.px(points[seat])):
            draw_chequered_ring(draw, frame.px(points[seat]), size)
    if highlight_seat in points:
        xy = frame.px(points[highlight_seat])
        if visible(xy):
            draw_ring(draw, xy, size)
    drawn: dict[int, PxPoint] = {}
    for car in cars:
        if car.seat not in points:
            continue
        xy = frame.ipx(points[car.seat])
        if visible(xy):
            marker(draw, xy, car.colour, car_label(car), size, px)
            drawn[car.seat] = xy
    return drawn
