"""Race! Formula 90 images: the track, the car dashboards and the classification.

- `render_track(state, active_section=None)`: the circuit drawn from the track data (sections
  as outlined shapes, curves tinted apart from straights and braking zones, slots), every
  trajectory kind with its own shape or line style (normal = disc, sharp = diamond, extreme =
  triangle, late brake = dashed red/white brake line, off track = dashed run-off box), the cars
  as markers in their own colour (`Car.colour`) with a number (players: seat + 1, round) or a
  robot letter (X = SuperFast, F = Fast, S = Slow, square), the Leader token, "turn ended" /
  "turn skipped" badges, the active section highlighted; around the track the section numbers,
  the corner names with their duel modifiers and run-off costs, the late brake targets; in the
  infield the trajectory bonuses, costs and targets next to their symbols, the title, the
  weather track, the turn and the car list; below, the turn indicator strip (turns, stages,
  the current turn, every car's fuel chit and the robots' pit tokens) and the legend.
- `render_dashboards(state)`: one panel per car (tyres and chips, blue discs, damage, fuel
  turn, strategy, skill, the number of cards in hand - never the cards).
- `render_classification(state)`: the final order with status and pit stops.

Phone legibility: the track image is 1860 x 1568 px and its texts are 24-34 px (never under
`MIN_TEXT` = 22 px at full width), so that they still read when Discord shows the image about
840 px wide. Labels never sit under a car: `track_layout(state)` gives the box of every text
label and every car marker (with its badges) the image draws. The labels around the track
(corner blocks with their duel modifiers, run-off costs, section numbers, late brake targets,
trajectory labels) are placed once per track by a small search that keeps them off the track,
off every car slot, off the run-off spots where off-track cars wait, off the infield's texts
and off each other; a leader line joins a label pushed away from what it names and crosses no
other label.

The static part of a track (everything but cars, marks, chits, the weather pawn, the turn, the
car list and the highlight) is drawn once per track, supersampled for smooth edges, and
cached with its PNG palette; an image then costs only the moving parts, the mapping to that
palette and the PNG encoding. `slot_xy`, `car_xy`, `off_track_xy`,
`section_box`, `section_polygon`, `turn_cell_xy`, `track_layout` and `dashboard_rows` expose
the layout and the drawn data for callers and tests.

Only the public information is drawn: everything comes from `GAME.public_view(state)` (where
a hand is a count), plus the static track data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    MUTED,
    OUTLINE_DARK,
    PALETTE,
    PAPER,
    RGB,
    TITLE_BG,
    TITLE_FG,
    Cell,
    Column,
    TableStyle,
    car_colour,
    car_marker,
    displayable,
    draw_table,
    draw_text,
    ellipsize,
    table_height,
    text_width,
    to_png,
)
from rules.rf90 import GAME, catalog
from rules.rf90.catalog import Section, Track
from rules.rf90.engine import damage_capacity, fuel_chit
from rules.rf90.state import Car, RF90State

Point = tuple[float, float]
PxPoint = tuple[int, int]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

# --- theme -------------------------------------------------------------------------------

GRASS: RGB = (118, 166, 98)
INFIELD: RGB = (236, 240, 232)
STRAIGHT: RGB = (92, 96, 104)
BRAKING: RGB = (112, 92, 98)
CURVE: RGB = (58, 74, 122)
EDGE: RGB = (240, 242, 244)
SLOT_LINE: RGB = (160, 166, 176)
HIGHLIGHT: RGB = (255, 224, 0)
LEADER_BG: RGB = (255, 200, 0)
ENDED_BG: RGB = (0, 150, 70)
SKIPPED_BG: RGB = (230, 110, 0)
OFF_BG: RGB = (200, 150, 90)
BRAKE_RED: RGB = (220, 30, 40)
LABEL_BG: RGB = (255, 255, 255)
CORNER_BG: RGB = (220, 228, 250)
TRAJ_BG: RGB = (255, 255, 236)
STRIP_BG: RGB = (246, 247, 250)
CARD_RGB: dict[str, RGB] = {
    "red": (214, 26, 36),
    "orange": (255, 128, 0),
    "yellow": (255, 214, 0),
    "green": (0, 150, 70),
}
WEATHER_RGB: dict[str, RGB] = {
    "Sun": (255, 210, 60),
    "Cloudy": (200, 206, 214),
    "Drizzle": (150, 180, 210),
    "Wet": (100, 145, 200),
    "Rain": (40, 90, 180),
}

# cars without a colour (states saved before `Car.colour`): players take their seat's colour,
# robots their type's colour from the rules tables
SEAT_COLOURS = ("red", "blue", "green", "yellow", "white", "orange")
ROBOT_LETTERS = {"superfast": "X", "fast": "F", "slow": "S"}

DATA_W, DATA_H = 1600, 1000  # the track canvas of the data files
MX, MY = 130, 80  # the data canvas is drawn this far from the image's left and top edges
W, H = DATA_W + 2 * MX, DATA_H + 2 * MY  # the track area of the image
STRIP_H = 236  # the turn indicator strip, below the track
LEGEND_H = 172  # the legend, below the strip
HEIGHT = H + STRIP_H + LEGEND_H
SS = 2  # supersampling of the static layer

MIN_TEXT = 22  # no text on the track image is smaller (px at the image's full width)
NAME_PX = 26  # corner names, duel modifiers, section numbers
CHIP_PX = 24  # trajectory labels, run-off costs, late brake targets
STRIP_PX = 24  # the turn strip
LIST_PX = 24  # the turn, the car list
TEXT_PX = 24  # every other text (subtitle, weather spaces, legend)
TITLE_PX = 34
HEAD_PX = 28

MARKER = 42
OFF_MARKER = 34  # off-track cars, in the run-off area
CHIT = 32  # fuel chits and robot pit tokens on the turn strip
LIST_MARKER = 32  # the car list in the infield
BADGE_PAD = 10  # badges and the "to play" ring reach this far beyond a marker
SLOT_GAP = 44  # slot centres are spread at least this far apart
OFF_DEPTH = 44  # depth of a run-off area, outside the track
OFF_ROW = 3  # off-track cars waiting at one corner stand in rows of this many
LABEL_GAP = 6  # free space kept around every label placed around the track
LEADER_MIN = 12  # a label further than this from what it names gets a leader line


# --- geometry ----------------------------------------------------------------------------


def _track(state_or_name: RF90State | str) -> Track:
    name = state_or_name if isinstance(state_or_name, str) else state_or_name.track
    return catalog.track(name)


def _inside(poly: Iterable[Point], p: Point) -> bool:
    pts = list(poly)
    x, y = p
    inside = False
    n = len(pts)
    for i in range(n):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _shift(p: Point) -> Point:
    """A point of the data canvas on the image."""
    return (p[0] + MX, p[1] + MY)


def _unit(dx: float, dy: float) -> Point:
    d = math.hypot(dx, dy) or 1.0
    return (dx / d, dy / d)


def _bilinear(q: list[Point], u: float, v: float) -> Point:
    """Point of a section quad: u along the track (start -> end), v across (inner -> outer)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = q  # inner start, inner end, outer end, outer start
    ix, iy = x0 + (x1 - x0) * u, y0 + (y1 - y0) * u
    ox, oy = x3 + (x2 - x3) * u, y3 + (y2 - y3) * u
    return (ix + (ox - ix) * v, iy + (oy - iy) * v)


def _unbilinear(q: list[Point], p: Point) -> tuple[float, float]:
    u, v = 0.5, 0.5
    for _ in range(12):  # Newton steps on the quad's bilinear map
        x, y = _bilinear(q, u, v)
        e = 1e-4
        xu, yu = _bilinear(q, u + e, v)
        xv, yv = _bilinear(q, u, v + e)
        a, b = (xu - x) / e, (xv - x) / e
        c, d = (yu - y) / e, (yv - y) / e
        det = a * d - b * c or 1e-9
        rx, ry = p[0] - x, p[1] - y
        u += (d * rx - b * ry) / det
        v += (-c * rx + a * ry) / det
    return u, v


def _spread(sec: Section) -> list[Point]:
    """The data's slot centres, pushed apart where they are closer than a marker (some curve
    slots are only ~25 px apart on the canvas), kept inside the section's outline."""
    q = list(sec.polygon)
    if len(q) != 4:
        return list(sec.slots)
    lo, hi = 0.2, 0.8
    uv = [list(_unbilinear(q, p)) for p in sec.slots]
    for t in uv:
        t[0], t[1] = min(max(t[0], lo), hi), min(max(t[1], lo), hi)
    for _ in range(200):
        pts = [list(_bilinear(q, u, v)) for u, v in uv]
        moved = False
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                dx, dy = pts[j][0] - pts[i][0], pts[j][1] - pts[i][1]
                d = math.hypot(dx, dy)
                if d >= SLOT_GAP:
                    continue
                if d < 1e-6:
                    dx, dy, d = 1.0, 0.0, 1.0
                push = (SLOT_GAP - d) / 2 + 0.3
                pts[i][0] -= dx / d * push
                pts[i][1] -= dy / d * push
                pts[j][0] += dx / d * push
                pts[j][1] += dy / d * push
                moved = True
        if not moved:
            break
        uv = [list(_unbilinear(q, (x, y))) for x, y in pts]
        for t in uv:
            t[0], t[1] = min(max(t[0], lo), hi), min(max(t[1], lo), hi)
    return [(round(x, 1), round(y, 1)) for x, y in (_bilinear(q, u, v) for u, v in uv)]


@cache
def _polys(track_name: str) -> tuple[tuple[Point, ...], ...]:
    return tuple(tuple(_shift(p) for p in s.polygon) for s in _track(track_name).sections)


def section_polygon(track: str, section: int) -> list[Point]:
    """A section's outline on the track image."""
    return list(_polys(track)[section])


@cache
def _inner(track_name: str) -> tuple[Point, ...]:
    """The infield: the inner edges of all sections."""
    return tuple(p[0] for p in _polys(track_name))


@cache
def _slots(track_name: str) -> tuple[tuple[Point, ...], ...]:
    return tuple(tuple(_shift(p) for p in _spread(s)) for s in _track(track_name).sections)


@cache
def _traj_xy(track_name: str) -> dict[str, Point]:
    return {t.id: _shift(t.xy) for s in _track(track_name).sections for t in s.trajectories}


def slot_xy(track: str, section: int, slot: int) -> PxPoint:
    """Pixel centre of a slot (0 = the front of the section) on the track image."""
    x, y = _slots(track)[section][slot]
    return round(x), round(y)


@cache
def _frame(track_name: str, section: int) -> tuple[Point, Point, Point]:
    """The middle of a section's outer edge, the outward normal there (from the inner edge's
    middle to the outer edge's middle) and the direction of travel along the outer edge."""
    q = _polys(track_name)[section]
    inner = ((q[0][0] + q[1][0]) / 2, (q[0][1] + q[1][1]) / 2)
    outer = ((q[3][0] + q[2][0]) / 2, (q[3][1] + q[2][1]) / 2)
    return (
        outer,
        _unit(outer[0] - inner[0], outer[1] - inner[1]),
        _unit(q[2][0] - q[3][0], q[2][1] - q[3][1]),
    )


def section_box(track: str, section: int) -> tuple[int, int, int, int]:
    """Bounding box of a section's outline on the track image."""
    poly = _polys(track)[section]
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return (math.floor(min(xs)), math.floor(min(ys)), math.ceil(max(xs)), math.ceil(max(ys)))


@cache
def _off_owner(track_name: str) -> dict[int, int]:
    """Re-entry section -> the corner whose run-off area a waiting off-track car stands in."""
    out: dict[int, int] = {}
    for s in _track(track_name).sections:
        if s.off_track is not None:
            out.setdefault(s.off_track.reentry, s.index)
    return out


@cache
def _off_band(track: str, section: int) -> tuple[Point, Point, Point, Point]:
    """The run-off area of a corner: a band outside the middle of its outer edge, long enough
    for a row of `OFF_ROW` waiting cars."""
    mid, n, t = _frame(track, section)
    q = _polys(track)[section]
    half = max(0.35 * math.dist(q[3], q[2]), (OFF_ROW * (OFF_MARKER + 4) + 8) / 2)
    a = (mid[0] - t[0] * half, mid[1] - t[1] * half)
    b = (mid[0] + t[0] * half, mid[1] + t[1] * half)
    return (a, b, (b[0] + n[0] * OFF_DEPTH, b[1] + n[1] * OFF_DEPTH),
            (a[0] + n[0] * OFF_DEPTH, a[1] + n[1] * OFF_DEPTH))  # fmt: skip


def _off_spot(track: str, section: int, k: int, waiting: int) -> PxPoint:
    """Where the k-th of `waiting` off-track cars stands in this corner's run-off area: rows of
    `OFF_ROW` along the band, further rows outwards."""
    mid, n, t = _frame(track, section)
    row, col = divmod(k, OFF_ROW)
    in_row = min(OFF_ROW, waiting - row * OFF_ROW)
    step = OFF_MARKER + 4
    along = (col - (in_row - 1) / 2) * step
    out = OFF_DEPTH / 2 + row * step
    return (round(mid[0] + t[0] * along + n[0] * out), round(mid[1] + t[1] * along + n[1] * out))


def off_track_xy(track: str, section: int) -> PxPoint:
    """Centre of the run-off area of this section, where a lone off-track car waits."""
    return _off_spot(track, section, 0, 1)


def car_xy(state: RF90State, car_id: int) -> PxPoint | None:
    """Pixel centre of a car's marker on the track image (None when it is out of the race)."""
    car = state.cars[car_id]
    if not car.running or state.phase in ("setup", "qualifying"):
        return None
    if car.off_track:
        owner = _off_owner(state.track).get(car.section, car.section)
        waiting = [
            c.id for c in state.cars if c.running and c.off_track and c.section == car.section
        ]
        return _off_spot(state.track, owner, waiting.index(car_id), len(waiting))
    cars = state.sections[car.section]
    if car_id not in cars:
        return None
    slot = cars.index(car_id)
    slots = _slots(state.track)[car.section]
    if slot >= len(slots):  # over capacity: never in a legal state, still drawn
        x, y = slots[-1]
        return round(x) + 8 * (slot - len(slots) + 1), round(y)
    return slot_xy(state.track, car.section, slot)


def _footprint(xy: Point, size: int) -> Box:
    """What a car marker covers, with its badges and the "to play" ring."""
    r = size / 2 + BADGE_PAD
    return (xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r)


# --- cars --------------------------------------------------------------------------------


def car_colour_name(car: Car) -> str:
    """The car's own colour; for states saved without one, the seat's or the robot type's."""
    if car.colour:
        return car.colour
    if car.robot is not None:
        return catalog.tables().robots.colours[car.robot]
    return SEAT_COLOURS[(car.seat if car.seat is not None else car.id) % len(SEAT_COLOURS)]


def car_label(state: RF90State, car: Car) -> str:
    """Players: seat + 1; robots: X (SuperFast), F (Fast), S (Slow) and their number."""
    if car.robot is None:
        return str((car.seat if car.seat is not None else car.id) + 1)
    same = [c.id for c in state.cars if c.robot == car.robot]
    return f"{ROBOT_LETTERS[car.robot]}{same.index(car.id) + 1}"


def _marker(
    draw: ImageDraw.ImageDraw, state: RF90State, car: Car, xy: PxPoint, size: int
) -> tuple[int, int, int, int]:
    shape = "rounded" if car.is_robot else "circle"
    return car_marker(draw, xy, car_colour_name(car), car_label(state, car), size, shape=shape)


# --- layout ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """A text label on the track image: what kind, its text, the box it covers (its chip or
    its text), the smallest font size in it, and what it names (a section, a trajectory)."""

    kind: str
    text: str
    box: Box
    size: int
    ref: str = ""


@dataclass(frozen=True)
class MarkerBox:
    """A car marker on the track image (`car` None for a robot pit token) and what it covers,
    its badges included. `where`: track, off (run-off area), list (car list) or chit."""

    car: int | None
    where: str
    box: Box


@dataclass(frozen=True)
class Layout:
    labels: tuple[Label, ...]
    markers: tuple[MarkerBox, ...]
    leaders: tuple[tuple[Point, Point], ...]  # leader lines from a thing to its label


def boxes_overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _grow(b: Box, k: float) -> Box:
    return (b[0] - k, b[1] - k, b[2] + k, b[3] + k)


def _corners(b: Box) -> tuple[Point, Point, Point, Point]:
    return ((b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3]))


def _bbox(poly: Iterable[Point]) -> Box:
    pts = list(poly)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class _Shape:
    """An obstacle for the label search: a box, or a convex polygon with its bounding box."""

    bbox: Box
    poly: tuple[Point, ...] | None = None

    def hits(self, box: Box) -> bool:
        if not boxes_overlap(self.bbox, box):
            return False
        if self.poly is None:
            return True
        corners = _corners(box)
        pts = self.poly
        n = len(pts)
        for i in range(n):  # separating axes: the polygon's edge normals (the box's: bbox)
            (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n]
            ax, ay = y1 - y2, x2 - x1
            p = [ax * x + ay * y for x, y in pts]
            b = [ax * x + ay * y for x, y in corners]
            if max(p) <= min(b) or max(b) <= min(p):
                return False
        return True


def _poly_shape(poly: Iterable[Point]) -> _Shape:
    pts = tuple(poly)
    return _Shape(_bbox(pts), pts)


# candidate offsets for a label: (cost, distance outwards, shift along the track)
_CANDIDATES = sorted(
    (d + 0.8 * abs(s), d, s) for d in range(0, 331, 6) for s in range(-320, 321, 10)
)


def _place(
    size: tuple[float, float],
    anchor: Point,
    normal: Point,
    tangent: Point,
    shapes: list[_Shape],
    ok: Callable[[Box], bool],
    avoid: list[Box],
) -> Box | None:
    """The cheapest free box of this size near `anchor`, pushed along `normal` (and shifted
    along `tangent`): free of every shape and accepted by `ok(box)`, its leader line (if it
    needs one) crossing none of the boxes in `avoid`; None if there is none."""
    w, h = size
    ext = abs(normal[0]) * w / 2 + abs(normal[1]) * h / 2
    reach = 330 + 320 + w + h
    near = [
        s for s in shapes
        if boxes_overlap(s.bbox, (anchor[0] - reach, anchor[1] - reach, anchor[0] + reach,
                                  anchor[1] + reach))
    ]  # fmt: skip
    for _, d, s in _CANDIDATES:
        cx = anchor[0] + normal[0] * (d + ext) + tangent[0] * s
        cy = anchor[1] + normal[1] * (d + ext) + tangent[1] * s
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        if box[0] < 4 or box[1] < 4 or box[2] > W - 4 or box[3] > H - 4:
            continue
        if not ok(box):
            continue
        test = _grow(box, LABEL_GAP)
        if any(sh.hits(test) for sh in near):
            continue
        end = _nearest(box, anchor)
        if math.dist(end, anchor) > LEADER_MIN and any(
            _crosses(anchor, end, b) for b in avoid if boxes_overlap(b, _bbox((anchor, end)))
        ):
            continue  # a leader line would cross another label
        return box
    return None


def _crosses(a: Point, b: Point, box: Box) -> bool:
    """Whether the segment a-b passes through `box` (Liang-Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]),
                 (dy, box[3] - a[1])):  # fmt: skip
        if p == 0:
            if q < 0:
                return False
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return True


def _nearest(box: Box, p: Point) -> Point:
    return (min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3]))


# --- static labels -----------------------------------------------------------------------


def cost_text(tyres: int, damage: int, cards: int) -> str:
    parts = [
        f"T{tyres}" if tyres else "",
        f"D{damage}" if damage else "",
        f"C{cards}" if cards else "",
    ]
    return " ".join(p for p in parts if p)


def corner_title(sec: Section) -> str:
    """A corner's title, e.g. "10 · T5 Chicane": the section, the corner's number and its
    name, without the data's explanations in brackets ("Chicane (turn 5)")."""
    assert sec.corner is not None
    name = sec.corner.name.split(" (")[0].strip()
    if name.lower() == f"turn {sec.corner.number}":
        return f"{sec.index} · T{sec.corner.number}"
    return f"{sec.index} · T{sec.corner.number} {name}"


CORNER_LINE_W = 260  # a longer corner title wraps
CORNER_NAME_W = 200  # a corner's name under its numbers wraps at this width
CELL_W = 44
ROW_H = 38  # one line of a label block


def _wrap_title(title: str, width: float) -> list[str]:
    """Greedy wrap after spaces and hyphens ("Maggots-" / "Becketts-Chapel")."""
    words = re.findall(r"[^ -]+[ -]*", title)
    lines: list[str] = []
    for word in words:
        if lines and text_width((lines[-1] + word).rstrip(), NAME_PX, True) <= width:
            lines[-1] += word
        else:
            lines.append(word)
    return [line.rstrip() for line in lines]


def _off_chip(sec: Section) -> str:
    if sec.off_track is None:
        return ""
    c = sec.off_track.cost
    return "off " + cost_text(c.tyres, c.damage, c.cards)


def _corner_variants(sec: Section) -> list[tuple[str, tuple[float, float]]]:
    """A corner block's title lines (joined by newlines) and size: on one line if it fits
    CORNER_LINE_W, else wrapped; then, narrower, the section and corner numbers on a line of
    their own above the name."""
    assert sec.corner is not None
    title = corner_title(sec)
    prefix = f"{sec.index} · T{sec.corner.number}"
    name = title[len(prefix) :].strip()
    options = [_wrap_title(title, CORNER_LINE_W)]
    if name:
        options.append([prefix, *_wrap_title(name, CORNER_NAME_W)])
    out: list[tuple[str, tuple[float, float]]] = []
    for lines in options:
        name_w = max(text_width(t, NAME_PX, True) for t in lines) + 16
        size = (max(name_w, CELL_W * len(sec.corner.duel_modifiers)), ROW_H * (len(lines) + 1))
        out.append(("\n".join(lines), size))
    return out


def _off_size(sec: Section) -> tuple[float, float]:
    return text_width(_off_chip(sec), CHIP_PX, True) + 16, ROW_H - 4


def _section_size(sec: Section) -> tuple[float, float]:
    w = text_width(str(sec.index), NAME_PX, True) + 18
    if sec.late_brake is not None:
        w += text_width(f"late brake {sec.late_brake.target}", CHIP_PX, True) + 16
    return w, ROW_H


def _traj_text(t: catalog.Trajectory) -> str:
    bits = [f"+{t.bonus}"]
    cost = cost_text(t.cost.tyres, t.cost.damage, t.cost.cards)
    if cost:
        bits.append(cost)
    if t.target is not None:
        bits.append(f"chk {t.target}")
    return " ".join(bits)


def _traj_size(t: catalog.Trajectory) -> tuple[float, float]:
    """A trajectory label: its symbol (shape and colours, as on the track) and its text."""
    return text_width(_traj_text(t), CHIP_PX, True) + 16 + TRAJ_CHIP_SYMBOL, ROW_H - 4


# --- infield panels (title, weather, turn, car list) --------------------------------------


@cache
def _infield_frame(track_name: str) -> Box:
    """The infield's area kept for the title, the turn, the car list and the weather: the
    infield less a band along its edge for the trajectory labels."""
    x0, y0, x1, y1 = _bbox(_inner(track_name))
    return (x0 + 124, y0 + 60, x1 - 124, y1 - 60)


WEATHER_CELL = 96
LIST_COLS = 3
LIST_ROWS = 4
LIST_ROW_H = 38
INFIELD_H = 436  # the height of the infield's contents, centred in the frame


@dataclass(frozen=True)
class _Infield:
    """Centres of the infield's texts (the widest, the car list, in the middle, where the
    infield is widest; the others centred, clear of the infield's cut corners)."""

    title: Point
    subtitle: Point
    turn_head: Point
    turn_sub: Point
    list_origin: Point  # top-left of the car list
    list_col_w: float
    weather_head: Point
    weather_cells: Point  # top-left of the first cell


@cache
def _infield(track_name: str) -> _Infield:
    x0, y0, x1, y1 = _infield_frame(track_name)
    cx = (x0 + x1) / 2
    top = (y0 + y1) / 2 - INFIELD_H / 2
    n = len(catalog.tables().weather.spaces)
    return _Infield(
        title=(cx, top + 20),
        subtitle=(cx, top + 64),
        turn_head=(cx, top + 106),
        turn_sub=(cx, top + 144),
        list_origin=(x0, top + 168),
        list_col_w=(x1 - x0) / LIST_COLS,
        weather_head=(cx, top + 346),
        weather_cells=(cx - n * WEATHER_CELL / 2, top + 370),
    )


def _text_box(xy: Point, text: str, size: int, bold: bool = False) -> Box:
    """Box of a text drawn with anchor 'lm' at `xy`."""
    return (xy[0], xy[1] - size * 0.72, xy[0] + text_width(text, size, bold), xy[1] + size * 0.72)


def _ctext_box(xy: Point, text: str, size: int, bold: bool = False) -> Box:
    """Box of a text drawn with anchor 'mm' at `xy`."""
    half = text_width(text, size, bold) / 2
    return (xy[0] - half, xy[1] - size * 0.72, xy[0] + half, xy[1] + size * 0.72)


def _subtitle(tr: Track) -> str:
    return f"{tr.race_turns} turns · {tr.laps} laps · pit stop: {tr.pit_sections} sections back"


def _weather_cell_box(track_name: str, i: int) -> Box:
    x, y = _infield(track_name).weather_cells
    return (x + i * WEATHER_CELL, y, x + (i + 1) * WEATHER_CELL - 4, y + 42)


TURN_SUB_W = 760  # the widest "duel at" / "to play" line


@cache
def _infield_reserved(track_name: str) -> tuple[Box, ...]:
    """Boxes the dynamic infield texts may take (turn, car list, weather, its pawn): kept
    free of the trajectory labels."""
    f = _infield(track_name)
    x0, _, x1, _ = _infield_frame(track_name)
    cx = (x0 + x1) / 2
    cells = _weather_cell_box(track_name, len(catalog.tables().weather.spaces) - 1)
    return (
        (cx - 300, f.turn_head[1] - 21, cx + 300, f.turn_head[1] + 21),
        (cx - TURN_SUB_W / 2, f.turn_sub[1] - 18, cx + TURN_SUB_W / 2, f.turn_sub[1] + 18),
        (x0, f.list_origin[1], x1, f.list_origin[1] + LIST_ROWS * LIST_ROW_H),
        (cx - 280, f.weather_head[1] - 19, cx + 280, f.weather_head[1] + 19),
        (f.weather_cells[0] - 4, cells[1] - 4, cells[2] + 4, cells[3] + 28),
    )


# --- the turn strip and the legend, below the track --------------------------------------

STRIP_LEFT = 96
STRIP_RIGHT = W - 16
STAGE_Y = H + 8
STAGE_H = 38
TURN_ROW_Y = H + 54
TURN_ROW_H = 42
CHIT_Y = TURN_ROW_Y + TURN_ROW_H + 6
LEGEND_Y = H + STRIP_H
LEGEND_COLS = 3
LEGEND_ROW_H = 38


def _cell_w(tr: Track) -> float:
    return (STRIP_RIGHT - STRIP_LEFT) / tr.race_turns


def _stage_spans(tr: Track) -> list[tuple[float, float]]:
    """Left and right x of each race stage's band over the turn indicator strip."""
    cw = _cell_w(tr)
    ends = [*tr.stages, tr.race_turns + 1]
    spans = zip(ends, ends[1:], strict=False)  # each stage runs to the next one's first turn
    return [(STRIP_LEFT + (a - 1) * cw, STRIP_LEFT + (b - 1) * cw) for a, b in spans]


def turn_cell_xy(track: str, turn: int) -> PxPoint:
    """Centre of a turn's cell on the turn indicator strip."""
    tr = _track(track)
    cw = _cell_w(tr)
    return round(STRIP_LEFT + (turn - 0.5) * cw), TURN_ROW_Y + TURN_ROW_H // 2


LEGEND_ROWS: tuple[tuple[str, str], ...] = (
    ("normal", "Normal trajectory: +MP bonus"),
    ("sharp", "Sharp: +MP, cost T tyres D damage C cards"),
    ("extreme", "Extreme: +MP, check target (chk)"),
    ("brake", "Late brake line: check target"),
    ("off", "Run-off: off-track cars wait (off = cost)"),
    ("curve", "Curve: duel modifiers, front slot first"),
    ("braking", "Braking zone"),
    ("player", "Player car (seat number)"),
    ("robot", "Robot: X SuperFast, F Fast, S Slow"),
    ("L", "Leader token"),
    ("ok", "Turn ended"),
    ("II", "Turn skipped"),
)


def _legend_xy(i: int) -> Point:
    col, row = divmod(i, len(LEGEND_ROWS) // LEGEND_COLS)
    col_w = (W - 32) / LEGEND_COLS
    return (16 + col * col_w, LEGEND_Y + 24 + row * LEGEND_ROW_H)


# --- the static layout -------------------------------------------------------------------


@dataclass(frozen=True)
class _StaticLayout:
    labels: tuple[Label, ...]
    leaders: tuple[tuple[Point, Point], ...]
    car_spots: tuple[Box, ...]  # every place a car marker can take on the track


@cache
def _static_layout(track_name: str) -> _StaticLayout:
    """Every static label of a track image, placed once: the infield texts, the strip and the
    legend at fixed places; the corner blocks, section numbers and trajectory labels by a
    search that keeps them off the track, off every car spot and off each other."""
    tr = _track(track_name)
    labels: list[Label] = []
    leaders: list[tuple[Point, Point]] = []
    # every spot a car can take: the slots, and rows of OFF_ROW cars in each run-off area
    spots: list[Box] = [_footprint(p, MARKER) for sec in _slots(track_name) for p in sec]
    for s in tr.sections:
        if s.off_track is not None:
            for waiting in range(1, OFF_ROW + 1):
                for k in range(waiting):
                    spots.append(_footprint(_off_spot(track_name, s.index, k, waiting), OFF_MARKER))
    # infield texts
    f = _infield(track_name)
    labels.append(Label("title", tr.name, _ctext_box(f.title, tr.name,
                                                    TITLE_PX, True), TITLE_PX))  # fmt: skip
    sub = _subtitle(tr)
    labels.append(Label("title", sub, _ctext_box(f.subtitle, sub,
                                                TEXT_PX), TEXT_PX))  # fmt: skip
    for i, sp in enumerate(catalog.tables().weather.spaces):
        labels.append(Label("weather", sp.name, _weather_cell_box(track_name, i), TEXT_PX))
    # strip and legend
    cw = _cell_w(tr)
    labels.append(Label("strip", "Turn", _text_box((12, TURN_ROW_Y + TURN_ROW_H / 2), "Turn",
                                                   STRIP_PX, True), STRIP_PX))  # fmt: skip
    labels.append(Label("strip", "Fuel", _text_box((12, CHIT_Y + 20), "Fuel", STRIP_PX, True),
                        STRIP_PX))  # fmt: skip
    for k, (a, b) in enumerate(_stage_spans(tr)):
        labels.append(Label("strip", f"Stage {k + 1}", (a, STAGE_Y, b - 2, STAGE_Y + STAGE_H),
                            STRIP_PX))  # fmt: skip
    for t in range(1, tr.race_turns + 1):
        x0 = STRIP_LEFT + (t - 1) * cw
        labels.append(Label("turn", str(t), (x0, TURN_ROW_Y, x0 + cw - 2,
                                             TURN_ROW_Y + TURN_ROW_H), STRIP_PX))  # fmt: skip
    for i, (_, text) in enumerate(LEGEND_ROWS):
        x, y = _legend_xy(i)
        labels.append(Label("legend", text, _text_box((x + 52, y), text, TEXT_PX), TEXT_PX))
    # obstacles for the labels around the track
    ring = [_poly_shape(p) for p in _polys(track_name)]
    spot_shapes = [_Shape(b) for b in spots]
    symbols = [_Shape(_grow((x, y, x, y), 18)) for x, y in _traj_xy(track_name).values()]
    taken: list[_Shape] = ring + spot_shapes + symbols + [_Shape(lb.box) for lb in labels]
    taken += [_Shape(b) for b in _infield_reserved(track_name)]
    avoid = [lb.box for lb in labels] + list(_infield_reserved(track_name))
    inner = _inner(track_name)

    def outside(box: Box) -> bool:
        return not any(_inside(inner, p) for p in _corners(box))

    def infield(box: Box) -> bool:
        return all(_inside(inner, p) for p in _corners(box))

    def add(kind: str, variants: list[tuple[str, tuple[float, float]]], font: int, ref: str,
            anchor: Point, normal: Point, tangent: Point, ok: Callable[[Box], bool],
            mate: Box | None = None) -> Box:  # fmt: skip
        """Place a label (the first of its variants that fits); a leader line may cross its
        `mate` (the run-off cost of the same corner)."""
        others = [b for b in avoid if b != mate]
        placed: tuple[str, Box] | None = None
        for text, size in variants:
            found = _place(size, anchor, normal, tangent, taken, ok, others)
            if found is not None:
                placed = (text, found)
                break
        if placed is None:  # nowhere free (the layout test says so): the first at the anchor
            text, (w, h) = variants[0]
            ext = abs(normal[0]) * w / 2 + abs(normal[1]) * h / 2
            cx, cy = anchor[0] + normal[0] * ext, anchor[1] + normal[1] * ext
            placed = (text, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
        text, box = placed
        labels.append(Label(kind, text, box, font, ref))
        taken.append(_Shape(box))
        avoid.append(box)
        near = _nearest(box, anchor)
        if math.dist(near, anchor) > LEADER_MIN:
            leaders.append((anchor, near))
        return box

    order = sorted(tr.sections, key=lambda s: (s.corner is None, s.late_brake is None, s.index))
    for sec in order:
        mid, n, t = _frame(track_name, sec.index)
        if sec.corner is not None:
            anchor = mid
            if sec.off_track is not None:
                anchor = (mid[0] + n[0] * OFF_DEPTH, mid[1] + n[1] * OFF_DEPTH)
            block = add("corner", _corner_variants(sec), NAME_PX, str(sec.index), anchor, n, t,
                        outside)  # fmt: skip
            if sec.off_track is not None:  # the run-off cost, next to the run-off area
                add("offtrack", [(_off_chip(sec), _off_size(sec))], CHIP_PX, str(sec.index),
                    anchor, n, t, outside, block)  # fmt: skip
        else:
            text = str(sec.index)
            if sec.late_brake is not None:
                text += f" late brake {sec.late_brake.target}"
            font = CHIP_PX if sec.late_brake is not None else NAME_PX
            add("section", [(text, _section_size(sec))], font, str(sec.index), mid, n, t, outside)
    for sec in tr.sections:
        _, n, t = _frame(track_name, sec.index)
        for tj in sec.trajectories:
            xy = _traj_xy(track_name)[tj.id]
            anchor = (xy[0] - n[0] * 14, xy[1] - n[1] * 14)
            add("trajectory", [(_traj_text(tj), _traj_size(tj))], CHIP_PX, tj.id, anchor,
                (-n[0], -n[1]), t, infield)  # fmt: skip
    return _StaticLayout(tuple(labels), tuple(leaders), tuple(spots))


# --- the dynamic layout ------------------------------------------------------------------


def _weather_head(state: RF90State) -> str:
    spaces = catalog.tables().weather.spaces
    sp = spaces[min(max(state.weather, 0), len(spaces) - 1)]
    return f"Weather: {sp.name} ({sp.state})"


def _turn_texts(state: RF90State) -> tuple[str, str]:
    tr = _track(state)
    phase = state.phase
    if phase in ("race", "finished"):
        head = f"Turn {state.turn}/{tr.race_turns} · stage {tr.stage(state.turn)}"
        if phase == "finished":
            head = f"Finished after turn {state.turn}"
    else:
        head = {"setup": "Set-up", "qualifying": "Qualifying", "start": "Start"}.get(phase, phase)
    sub = ""
    if state.duel is not None:
        sec = tr.sections[state.duel.section]
        sub = f"Duel at {corner_title(sec)}" if sec.corner else f"Duel at section {sec.index}"
    elif state.pending is not None:
        car = state.cars[state.pending.car]
        sub = f"To play: {car.name} (phase {state.pending.phase})"
    return head, sub


@dataclass(frozen=True)
class _ListEntry:
    car: Car | None  # None: the "more cars" line
    marker: PxPoint
    text: str
    text_xy: Point


def _car_list(state: RF90State) -> list[_ListEntry]:
    """The car list in the infield: marker and name of each car, in columns; past
    LIST_COLS x LIST_ROWS cars, the last line counts the others."""
    f = _infield(state.track)
    cap = LIST_COLS * LIST_ROWS
    cars = state.cars if len(state.cars) <= cap else state.cars[: cap - 1]
    out = []
    for i in range(len(cars) + (len(state.cars) > cap)):
        col, row = divmod(i, LIST_ROWS)
        x = f.list_origin[0] + col * f.list_col_w
        y = f.list_origin[1] + row * LIST_ROW_H + LIST_ROW_H / 2
        room = f.list_col_w - LIST_MARKER - 24
        marker = (round(x + LIST_MARKER / 2), round(y))
        if i < len(cars):
            car = cars[i]
            status = "" if car.running else f" ({car.status})"
            off = " off track" if car.off_track and car.running else ""
            text = _fit(f"{car.name}{status}{off}", LIST_PX, room)
            out.append(_ListEntry(car, marker, text, (x + LIST_MARKER + 10, y)))
        else:
            text = f"+{len(state.cars) - len(cars)} more cars"
            out.append(_ListEntry(None, marker, text, (x, y)))
    return out


def _fit(text: str, size: int, room: float) -> str:
    return ellipsize(displayable(text), size, room)


def _chits(state: RF90State) -> list[tuple[Car | str, bool, PxPoint, int]]:
    """Fuel chits (player cars) and robot pit tokens on the turn strip: (car or robot type,
    carried over the top of the indicator, centre, size)."""
    tr = _track(state)
    cw = _cell_w(tr)
    chits: dict[int, list[tuple[Car | str, bool]]] = {}
    for car in state.cars:
        if car.robot is None and car.running and car.fuel_turn > 0:
            space, over = fuel_chit(state, car)
            if 1 <= space <= tr.race_turns:
                chits.setdefault(space, []).append((car, over))
    for tok in state.robot_tokens:
        if not tok.done and 1 <= tok.turn <= tr.race_turns:
            chits.setdefault(tok.turn, []).append((tok.robot, False))
    out = []
    for space, items in sorted(chits.items()):
        cx = STRIP_LEFT + (space - 0.5) * cw
        cols = 1 if len(items) <= 3 else 2
        size = min(CHIT if cols == 1 else CHIT - 4, int(cw / cols) - 4)
        for k, (item, over) in enumerate(items[:8]):
            col, row = k % cols, k // cols
            x = cx - 1 + (col - (cols - 1) / 2) * (size + 2)
            out.append((item, over, (round(x), CHIT_Y + size // 2 + 2 + row * (size + 2)), size))
    return out


def track_layout(state: RF90State) -> Layout:
    """Every text label and every car marker the track image of this state draws, with the
    box each covers (markers with their badges), and the leader lines."""
    st = _static_layout(state.track)
    f = _infield(state.track)
    labels = list(st.labels)
    markers: list[MarkerBox] = []
    for car in state.cars:
        xy = car_xy(state, car.id)
        if xy is not None:
            size = OFF_MARKER if car.off_track else MARKER
            markers.append(MarkerBox(car.id, "off" if car.off_track else "track",
                                     _footprint(xy, size)))  # fmt: skip
    text = _weather_head(state)
    labels.append(Label("weather", text, _ctext_box(f.weather_head, text, NAME_PX, True), NAME_PX))
    head, sub = _turn_texts(state)
    labels.append(Label("status", head, _ctext_box(f.turn_head, head, HEAD_PX, True), HEAD_PX))
    if sub:
        sub = _fit(sub, LIST_PX, TURN_SUB_W)
        labels.append(Label("status", sub, _ctext_box(f.turn_sub, sub, LIST_PX), LIST_PX))
    for e in _car_list(state):
        if e.car is not None:
            h = LIST_MARKER / 2
            box = (e.marker[0] - h, e.marker[1] - h, e.marker[0] + h, e.marker[1] + h)
            markers.append(MarkerBox(e.car.id, "list", box))
        labels.append(Label("cars", e.text, _text_box(e.text_xy, e.text, LIST_PX), LIST_PX))
    for item, _, xy, size in _chits(state):
        h = size / 2
        car_id = None if isinstance(item, str) else item.id
        markers.append(MarkerBox(car_id, "chit", (xy[0] - h, xy[1] - h, xy[0] + h, xy[1] + h)))
    return Layout(tuple(labels), tuple(markers), st.leaders)


# --- static layer ------------------------------------------------------------------------


def _s(p: Point) -> tuple[float, float]:
    return (p[0] * SS, p[1] * SS)


def _dashed(
    draw: ImageDraw.ImageDraw, a: Point, b: Point, colours: tuple[RGB, RGB], width: int, dash: float
) -> None:
    length = math.dist(a, b)
    n = max(1, round(length / dash))
    for i in range(n):
        t0, t1 = i / n, (i + 1) / n
        p = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
        q = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
        draw.line((_s(p), _s(q)), fill=colours[i % 2], width=width * SS)


def _traj_shape(kind: str, c: Point, r: float) -> list[Point]:
    x, y = c
    if kind == "sharp":  # diamond
        return [(x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y)]
    if kind == "extreme":  # triangle, point up
        return [(x, y - r * 1.3), (x + r * 1.25, y + r * 0.9), (x - r * 1.25, y + r * 0.9)]
    return []


def draw_trajectory_symbol(
    draw: ImageDraw.ImageDraw, kind: str, colours: list[str], c: Point, r: float, ss: int = 1
) -> None:
    """Normal = disc, sharp = diamond, extreme = triangle; two colours split left/right."""
    cx, cy = c[0] * ss, c[1] * ss
    rr = r * ss
    pts = _traj_shape(kind, (cx, cy), rr)
    outline_w = max(2, round(rr / 5))
    if kind == "normal":
        box = (cx - rr - outline_w, cy - rr - outline_w, cx + rr + outline_w, cy + rr + outline_w)
        draw.ellipse(box, fill=(255, 255, 255))
        inner = (cx - rr, cy - rr, cx + rr, cy + rr)
        if len(colours) == 1:
            draw.ellipse(inner, fill=CARD_RGB[colours[0]], outline=INK, width=max(1, ss))
        else:
            draw.pieslice(inner, 90, 270, fill=CARD_RGB[colours[0]])
            draw.pieslice(inner, 270, 90, fill=CARD_RGB[colours[1]])
            draw.ellipse(inner, outline=INK, width=max(1, ss))
        return
    grow = [(cx + (x - cx) * 1.25, cy + (y - cy) * 1.25) for x, y in pts]
    draw.polygon(grow, fill=(255, 255, 255))
    if len(colours) == 1:
        draw.polygon(pts, fill=CARD_RGB[colours[0]])
    else:
        top = min(p[1] for p in pts) - 1
        bottom = max(p[1] for p in pts) + 1
        draw.polygon(_clip_half(pts, cx, True), fill=CARD_RGB[colours[0]])
        draw.polygon(_clip_half(pts, cx, False), fill=CARD_RGB[colours[1]])
        draw.line(((cx, top), (cx, bottom)), fill=INK, width=max(1, ss))
    draw.polygon(pts, outline=INK, width=max(1, ss))


def _clip_half(pts: list[Point], x0: float, left: bool) -> list[Point]:
    """Sutherland-Hodgman clip of a convex polygon to x <= x0 (left) or x >= x0."""

    def keep(p: Point) -> bool:
        return p[0] <= x0 if left else p[0] >= x0

    out: list[Point] = []
    n = len(pts)
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        if keep(a):
            out.append(a)
        if keep(a) != keep(b):
            t = (x0 - a[0]) / (b[0] - a[0])
            out.append((x0, a[1] + (b[1] - a[1]) * t))
    return out


TRAJ_R = 12
TRAJ_CHIP_SYMBOL = 30  # room for the symbol in a trajectory label


def _draw_shapes(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Sections, the start line, run-off areas, slots, brake lines, trajectory symbols and
    the leader lines of the labels, at SS x scale."""
    polys = _polys(tr.id)
    for sec in tr.sections:
        if sec.off_track is not None:
            band = _off_band(tr.id, sec.index)
            draw.polygon([_s(p) for p in band], fill=OFF_BG)
            for i in range(4):
                _dashed(draw, band[i], band[(i + 1) % 4], (INK, OFF_BG), 2, 7)
    for sec in tr.sections:
        fill = {"curve": CURVE, "braking": BRAKING}.get(sec.kind, STRAIGHT)
        draw.polygon([_s(p) for p in polys[sec.index]], fill=fill, outline=EDGE, width=3 * SS)
    # start / finish line: chequered along the start edge of section 0
    a, b = polys[0][0], polys[0][3]
    _dashed(draw, a, b, ((255, 255, 255), (20, 20, 20)), 8, 10)
    for sec in tr.sections:
        if sec.late_brake is not None:  # the brake line across the end of the braking zone
            _dashed(draw, polys[sec.index][1], polys[sec.index][2], (BRAKE_RED, (255, 255, 255)),
                    6, 9)  # fmt: skip
        for x, y in _slots(tr.id)[sec.index]:
            r = MARKER / 2 - 2
            draw.ellipse(((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS),
                         outline=SLOT_LINE, width=2 * SS)  # fmt: skip
        for t in sec.trajectories:
            draw_trajectory_symbol(draw, t.kind, list(t.colours), _traj_xy(tr.id)[t.id], TRAJ_R,
                                   SS)  # fmt: skip
    for a, b in _static_layout(tr.id).leaders:
        draw.line((_s(a), _s(b)), fill=(250, 250, 250), width=5 * SS)
        draw.line((_s(a), _s(b)), fill=INK, width=2 * SS)
        r = 4 * SS
        draw.ellipse((a[0] * SS - r, a[1] * SS - r, a[0] * SS + r, a[1] * SS + r), fill=INK)


def _draw_corner(draw: ImageDraw.ImageDraw, sec: Section, text: str, box: Box) -> None:
    assert sec.corner is not None
    x0, y0, x1, y1 = box
    lines = text.split("\n")
    draw.rounded_rectangle(box, radius=6, fill=CORNER_BG)
    for i, line in enumerate(lines):
        draw_text(draw, (x0 + 8, y0 + ROW_H * i + ROW_H / 2 + 1), line, NAME_PX, INK, bold=True,
                  anchor="lm")  # fmt: skip
    ry = y0 + ROW_H * len(lines)
    draw.rectangle((x0, ry, x1, y1 - 6), fill=LABEL_BG)
    draw.rounded_rectangle((x0, ry, x1, y1), radius=6, fill=LABEL_BG)
    mods = sec.corner.duel_modifiers
    for i, m in enumerate(mods):
        cx = x0 + i * CELL_W
        if i:
            draw.line((cx, ry + 4, cx, y1 - 4), fill=(150, 156, 166), width=2)
        draw_text(draw, (cx + CELL_W / 2, ry + ROW_H / 2), f"{m:+d}" if m else "0", NAME_PX, INK,
                  bold=True, anchor="mm")  # fmt: skip
    draw.line((x0, ry, x1, ry), fill=(150, 156, 166), width=2)
    draw.rounded_rectangle(box, radius=6, outline=INK, width=2)


def _draw_section_chip(draw: ImageDraw.ImageDraw, sec: Section, box: Box) -> None:
    x0, y0, x1, y1 = box
    num = str(sec.index)
    nw = text_width(num, NAME_PX, True) + 18
    draw.rounded_rectangle(box, radius=6, fill=LABEL_BG)
    if sec.late_brake is not None:
        draw.rounded_rectangle((x0 + nw - 8, y0, x1, y1), radius=6, fill=BRAKE_RED)
        draw.rectangle((x0 + nw, y0, x0 + nw + 8, y1), fill=BRAKE_RED)
        draw_text(draw, ((x0 + nw + x1) / 2, (y0 + y1) / 2), f"late brake {sec.late_brake.target}",
                  CHIP_PX, (255, 255, 255), bold=True, anchor="mm")  # fmt: skip
    draw_text(draw, (x0 + nw / 2, (y0 + y1) / 2), num, NAME_PX, INK, bold=True, anchor="mm")
    draw.rounded_rectangle(box, radius=6, outline=INK, width=2)


def _draw_static_labels(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    trajectories = {t.id: t for s in tr.sections for t in s.trajectories}
    for lb in _static_layout(tr.id).labels:
        if lb.kind == "corner":
            _draw_corner(draw, tr.sections[int(lb.ref)], lb.text, lb.box)
        elif lb.kind == "section":
            _draw_section_chip(draw, tr.sections[int(lb.ref)], lb.box)
        elif lb.kind == "offtrack":
            draw.rounded_rectangle(lb.box, radius=6, fill=OFF_BG, outline=INK, width=2)
            x0, y0, x1, y1 = lb.box
            draw_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), lb.text, CHIP_PX, INK, bold=True,
                      anchor="mm")  # fmt: skip
        elif lb.kind == "trajectory":
            t = trajectories[lb.ref]
            draw.rounded_rectangle(lb.box, radius=6, fill=TRAJ_BG, outline=INK, width=2)
            x0, y0, x1, y1 = lb.box
            cy = (y0 + y1) / 2
            draw_trajectory_symbol(draw, t.kind, list(t.colours), (x0 + 6 + TRAJ_CHIP_SYMBOL / 2,
                                                                  cy), 10)  # fmt: skip
            draw_text(draw, ((x0 + TRAJ_CHIP_SYMBOL + x1) / 2, cy), _traj_text(t), CHIP_PX, INK,
                      bold=True, anchor="mm")  # fmt: skip


def _draw_infield(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Title, the weather track (the pawn is drawn per image)."""
    f = _infield(tr.id)
    draw_text(draw, f.title, tr.name, TITLE_PX, INK, bold=True,
              anchor="mm")  # fmt: skip
    draw_text(draw, f.subtitle, _subtitle(tr), TEXT_PX, MUTED,
              anchor="mm")  # fmt: skip
    for i, sp in enumerate(catalog.tables().weather.spaces):
        box = _weather_cell_box(tr.id, i)
        draw.rectangle(box, fill=WEATHER_RGB[sp.name], outline=(120, 126, 136))
        fg = (255, 255, 255) if sp.name == "Rain" else INK
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), sp.name, TEXT_PX, fg,
                  anchor="mm")  # fmt: skip


def _draw_legend(draw: ImageDraw.ImageDraw) -> None:
    draw.rectangle((0, LEGEND_Y, W, HEIGHT), fill=PAPER)
    draw.line((0, LEGEND_Y, W, LEGEND_Y), fill=(200, 204, 212), width=2)
    for i, (kind, text) in enumerate(LEGEND_ROWS):
        x, cy = _legend_xy(i)
        sx = x + 20  # the symbol's centre
        if kind in ("normal", "sharp", "extreme"):
            draw_trajectory_symbol(draw, kind, ["orange"], (sx, cy), 11)
        elif kind == "brake":
            for k in range(5):
                c = BRAKE_RED if k % 2 == 0 else (255, 255, 255)
                draw.rectangle((sx - 18 + k * 7, cy - 5, sx - 11 + k * 7, cy + 5), fill=c)
            draw.rectangle((sx - 18, cy - 5, sx + 17, cy + 5), outline=INK)
        elif kind == "off":
            draw.rounded_rectangle((sx - 18, cy - 12, sx + 18, cy + 12), radius=4, fill=OFF_BG,
                                   outline=INK)  # fmt: skip
        elif kind in ("curve", "braking"):
            draw.rectangle((sx - 18, cy - 12, sx + 18, cy + 12),
                           fill=CURVE if kind == "curve" else BRAKING)  # fmt: skip
        elif kind == "player":
            car_marker(draw, (round(sx), round(cy)), "white", "1", 32)
        elif kind == "robot":
            car_marker(draw, (round(sx), round(cy)), "white", "X1", 32, shape="rounded")
        else:
            colour = {"L": LEADER_BG, "ok": ENDED_BG, "II": SKIPPED_BG}[kind]
            _badge(draw, (sx, cy), kind, colour, 13)
        draw_text(draw, (x + 52, cy), text, TEXT_PX, INK, anchor="lm")


@cache
def _static(track_name: str) -> Image.Image:
    tr = _track(track_name)
    big = Image.new("RGB", (W * SS, H * SS), GRASS)
    d = ImageDraw.Draw(big)
    d.polygon([_s(p) for p in _inner(track_name)], fill=INFIELD)
    _draw_shapes(d, tr)
    img = big.resize((W, H), Image.Resampling.LANCZOS)
    full = Image.new("RGB", (W, HEIGHT), PAPER)
    full.paste(img, (0, 0))
    draw = ImageDraw.Draw(full)
    _draw_static_labels(draw, tr)
    _draw_infield(draw, tr)
    _draw_strip_static(draw, tr)
    _draw_legend(draw)
    return full


@cache
def _section_mask(track_name: str, section: int) -> tuple[Image.Image, tuple[int, int]]:
    x0, y0, x1, y1 = section_box(track_name, section)
    x0, y0 = max(0, x0 - 6), max(0, y0 - 6)
    mask = Image.new("L", (x1 + 7 - x0, y1 + 7 - y0), 0)
    d = ImageDraw.Draw(mask)
    pts = [(x - x0, y - y0) for x, y in _polys(track_name)[section]]
    d.polygon(pts, fill=110)
    d.line(pts + [pts[0]], fill=255, width=7, joint="curve")
    return mask, (x0, y0)


def _draw_strip_static(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    draw.rectangle((0, H, W, LEGEND_Y), fill=STRIP_BG)
    draw.line((0, H, W, H), fill=INK, width=2)
    draw_text(draw, (12, TURN_ROW_Y + TURN_ROW_H / 2), "Turn", STRIP_PX, INK, bold=True,
              anchor="lm")  # fmt: skip
    draw_text(draw, (12, CHIT_Y + 20), "Fuel", STRIP_PX, INK, bold=True, anchor="lm")
    cw = _cell_w(tr)
    for k, (a, b) in enumerate(_stage_spans(tr)):
        shade = (226, 232, 244) if k % 2 == 0 else (212, 220, 236)
        draw.rectangle((a, STAGE_Y, b - 2, STAGE_Y + STAGE_H), fill=shade)
        draw_text(draw, ((a + b) / 2, STAGE_Y + STAGE_H / 2), f"Stage {k + 1}", STRIP_PX, INK,
                  bold=True, anchor="mm")  # fmt: skip
    for t in range(1, tr.race_turns + 1):
        x0 = STRIP_LEFT + (t - 1) * cw
        draw.rectangle((x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H),
                       fill=(255, 255, 255), outline=(150, 156, 166))  # fmt: skip
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(t), STRIP_PX, INK,
                  anchor="mm")  # fmt: skip
        draw.line((x0 + cw - 1, CHIT_Y, x0 + cw - 1, LEGEND_Y - 8), fill=(226, 229, 234))


# --- dynamic parts -----------------------------------------------------------------------


def _badge(draw: ImageDraw.ImageDraw, c: Point, kind: str, colour: RGB, r: int) -> None:
    x, y = c
    draw.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=(255, 255, 255))
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    w = max(2, r // 4)
    if kind == "ok":  # a tick
        pts = [(x - r * 0.5, y), (x - r * 0.1, y + r * 0.45), (x + r * 0.55, y - r * 0.45)]
        draw.line(pts, fill=(255, 255, 255), width=w, joint="curve")
    elif kind == "II":  # pause bars
        draw.rectangle((x - r * 0.45, y - r * 0.5, x - r * 0.1, y + r * 0.5), fill=(255, 255, 255))
        draw.rectangle((x + r * 0.1, y - r * 0.5, x + r * 0.45, y + r * 0.5), fill=(255, 255, 255))
    elif kind == "+":
        draw.line((x - r * 0.6, y, x + r * 0.6, y), fill=(255, 255, 255), width=w)
        draw.line((x, y - r * 0.6, x, y + r * 0.6), fill=(255, 255, 255), width=w)
    else:
        draw_text(draw, (x, y), kind, round(r * 1.4), INK, bold=True, anchor="mm")


def _draw_cars(draw: ImageDraw.ImageDraw, state: RF90State, leader: int | None) -> None:
    tr = _track(state)
    pending = state.pending.car if state.pending is not None else None
    placed = [(car, car_xy(state, car.id)) for car in state.cars]
    for car, xy in placed:  # trajectory lines first: markers are never under a line
        if xy is not None and car.trajectory and not car.off_track:
            t = _traj_xy(tr.id)[car.trajectory]
            draw.line((xy, t), fill=INK, width=6)
            draw.line((xy, t), fill=car_colour(car_colour_name(car)).fill, width=3)
    for car, xy in placed:
        if xy is None:
            continue
        size = OFF_MARKER if car.off_track else MARKER
        if car.id == pending or (state.duel is not None and car.id in state.duel.order):
            r = size // 2 + 6
            draw.ellipse((xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r), outline=HIGHLIGHT,
                         width=5)  # fmt: skip
        _marker(draw, state, car, xy, size)
        half = size // 2
        br = max(8, round(size / 4.2))
        if car.id == leader:
            _badge(draw, (xy[0] - half + 2, xy[1] - half + 2), "L", LEADER_BG, br)
        if car.mark == "ended":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "ok", ENDED_BG, br - 1)
        elif car.mark == "skipped":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "II", SKIPPED_BG, br - 1)


def _draw_infield_dynamic(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    f = _infield(state.track)
    draw_text(draw, f.weather_head, _weather_head(state), NAME_PX, INK, bold=True, anchor="mm")
    spaces = catalog.tables().weather.spaces
    pawn = min(max(state.weather, 0), len(spaces) - 1)
    x0, y0, x1, y1 = _weather_cell_box(state.track, pawn)
    draw.rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), outline=INK, width=4)
    px = (x0 + x1) / 2
    draw.polygon([(px, y1 + 5), (px - 12, y1 + 24), (px + 12, y1 + 24)], fill=INK)
    head, sub = _turn_texts(state)
    draw_text(draw, f.turn_head, head, HEAD_PX, INK, bold=True, anchor="mm")
    if sub:
        draw_text(draw, f.turn_sub, sub, LIST_PX, INK, anchor="mm", max_width=TURN_SUB_W)
    for e in _car_list(state):
        if e.car is not None:
            _marker(draw, state, e.car, e.marker, LIST_MARKER)
        draw_text(draw, e.text_xy, e.text, LIST_PX, INK if e.car is not None else MUTED,
                  anchor="lm")  # fmt: skip


def _draw_strip(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    tr = _track(state)
    cw = _cell_w(tr)
    if state.phase in ("race", "finished") and 1 <= state.turn <= tr.race_turns:
        x0 = STRIP_LEFT + (state.turn - 1) * cw
        draw.rectangle((x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H), fill=TITLE_BG)
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(state.turn),
                  STRIP_PX + 2, TITLE_FG, bold=True, anchor="mm")  # fmt: skip
    colours = catalog.tables().robots.colours
    for item, over, xy, size in _chits(state):
        if isinstance(item, str):  # a robot pit token: the robot type's colour and letter
            car_marker(draw, xy, colours[item], ROBOT_LETTERS[item], size, shape="rounded")
        else:
            _marker(draw, state, item, xy, size)
            if over:  # carried over the top: a second lap of the indicator
                _badge(draw, (xy[0] + size // 2 - 2, xy[1] - size // 2 + 3), "+", INK, 7)


def render_track(state: RF90State, *, active_section: int | None = None) -> bytes:
    """The track image: circuit, trajectories, cars, marks, the active section, the weather,
    the turn, the car list, the turn indicator strip with the fuel chits, and a legend. The
    section lit is `active_section`, by default the one whose activation is in progress."""
    tr = _track(state)
    if active_section is None:
        active_section = state.activation
    if active_section is not None and not 0 <= active_section < tr.length:
        raise ValueError(f"no section {active_section} on {tr.name}")
    img = _static(tr.id).copy()
    if active_section is not None:
        mask, origin = _section_mask(tr.id, active_section)
        img.paste(HIGHLIGHT, (*origin, origin[0] + mask.width, origin[1] + mask.height), mask)
    draw = ImageDraw.Draw(img)
    view = GAME.public_view(state)
    _draw_cars(draw, state, view.get("leader"))
    _draw_strip(draw, state)
    _draw_infield_dynamic(draw, state)
    return to_png(img, reference=_reference(tr.id))


@cache
def _reference(track_name: str) -> Image.Image:
    """The palette of every image of this track, made once: the static layer's colours (with
    and without the highlight) plus every car, badge and marker colour, so that each image is
    only mapped to it (no octree per image) and a car colour is never merged away."""
    static = _static(track_name)
    lit = static.copy()
    for i in range(_track(track_name).length):
        mask, origin = _section_mask(track_name, i)
        lit.paste(HIGHLIGHT, (*origin, origin[0] + mask.width, origin[1] + mask.height), mask)
    both = Image.new("RGB", (static.width, static.height * 2))
    both.paste(static, (0, 0))
    both.paste(lit, (0, static.height))
    sample = both.resize((both.width // 2, both.height // 2), Image.Resampling.NEAREST)
    base = sample.quantize(colors=192, method=Image.Quantize.FASTOCTREE,
                           dither=Image.Dither.NONE)  # fmt: skip
    flat = base.getpalette() or []
    used = sorted(i for _, i in base.getcolors(256) or [])
    colours: list[RGB] = [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in used]
    extra: list[RGB] = [HIGHLIGHT, LEADER_BG, ENDED_BG, SKIPPED_BG, TITLE_BG, TITLE_FG, INK,
                        (255, 255, 255), (0, 0, 0), OUTLINE_DARK]  # fmt: skip
    for c in PALETTE.values():  # the fills, and their blends with the marker's white ring
        extra.append(c.fill)
        r, g, b = c.fill
        extra.append(((r + 255) // 2, (g + 255) // 2, (b + 255) // 2))
    for c in extra:
        if c not in colours and len(colours) < 256:
            colours.append(c)
    ref = Image.new("P", (1, 1))
    ref.putpalette([v for c in colours for v in c] + [0, 0, 0] * (256 - len(colours)))
    return ref


# --- dashboards --------------------------------------------------------------------------


@dataclass(frozen=True)
class DashRow:
    """What a car's dashboard panel shows: public information and counts only."""

    car: int
    name: str
    colour: str
    label: str
    robot: str | None
    status: str
    tyre: str | None
    chips: int
    blue: int
    damage_red: int
    damage_brown: int
    damage_capacity: int
    fuel_turn: int
    fuel_over: bool
    strategy: str | None
    skill: str | None
    hand_count: int
    pit_stops: int
    target_check: int | None
    place: int | None


@cache
def _names() -> tuple[dict[str, str], dict[str, str]]:
    t = catalog.tables()
    return {s.id: s.name for s in t.strategies}, {s.id: s.name for s in t.skills}


def dashboard_rows(state: RF90State) -> list[DashRow]:
    """The data drawn on the dashboards, built from the public view (a hand is a count)."""
    view = GAME.public_view(state)
    order = GAME.race_classification(state) if state.phase in ("race", "finished") else []
    place = {c.id: i + 1 for i, c in enumerate(order) if c.running}
    strategies, skills = _names()
    cards = catalog.cards(state.track)
    rows = []
    for vc, car in zip(view["cars"], state.cars, strict=True):
        over = False
        fuel = int(vc["fuel_turn"])
        if car.robot is None and fuel:
            fuel, over = fuel_chit(state, car)
        qual = vc["qual_card"]
        target = cards[qual].check_factor if qual is not None else None
        rows.append(
            DashRow(
                car=car.id,
                name=vc["name"],
                colour=car_colour_name(car),
                label=car_label(state, car),
                robot=vc["robot"],
                status=vc["status"],
                tyre=vc["tyre"],
                chips=vc["chips"],
                blue=vc["blue"],
                damage_red=vc["damage_red"],
                damage_brown=vc["damage_brown"],
                damage_capacity=damage_capacity(car),
                fuel_turn=fuel,
                fuel_over=over,
                strategy=strategies.get(vc["strategy"], vc["strategy"]),
                skill=skills.get(vc["skill"], vc["skill"]),
                hand_count=int(vc["hand"]),
                pit_stops=vc["pit_stops"],
                target_check=target,
                place=place.get(car.id),
            )
        )
    return rows


PANEL_W, PANEL_H = 520, 276
ROBOT_PANEL_H = 130
DASH_COLS = 2
DASH_PAD = 16
DASH_TITLE_H = 64


def _dots(draw: ImageDraw.ImageDraw, x: float, y: float, n: int, fill: RGB, total: int) -> float:
    r = 10
    for i in range(max(n, total)):
        cx = x + i * (2 * r + 6) + r
        if i < n:
            draw.ellipse((cx - r, y - r, cx + r, y + r), fill=fill, outline=INK, width=2)
        else:
            draw.ellipse((cx - r, y - r, cx + r, y + r), outline=(170, 176, 186), width=2)
    return x + max(n, total) * (2 * r + 6)


def _panel(draw: ImageDraw.ImageDraw, state: RF90State, row: DashRow, x: int, y: int) -> None:
    h = ROBOT_PANEL_H if row.robot else PANEL_H
    out = row.status != "running"
    draw.rounded_rectangle((x, y, x + PANEL_W, y + h), radius=12, fill=(250, 250, 252),
                           outline=(170, 176, 186), width=2)  # fmt: skip
    draw.rounded_rectangle((x, y, x + PANEL_W, y + 52), radius=12, fill=HEADER_BG)
    draw.rectangle((x, y + 40, x + PANEL_W, y + 52), fill=HEADER_BG)
    car = state.cars[row.car]
    _marker(draw, state, car, (x + 30, y + 26), 40)
    draw_text(draw, (x + 60, y + 26), row.name, 24, HEADER_FG, bold=True, anchor="lm",
              max_width=300)  # fmt: skip
    right = f"P{row.place}" if row.place and not out else row.status.upper()
    draw_text(draw, (x + PANEL_W - 14, y + 26), right, 24 if not out else 18,
              (255, 120, 120) if out else HEADER_FG, bold=True, anchor="rm")  # fmt: skip
    ty = y + 80
    lx = x + 16
    size = 20
    tyre = (row.tyre or "-").capitalize()
    if row.robot:
        kind = {"superfast": "SuperFast", "fast": "Fast", "slow": "Slow"}[row.robot]
        draw_text(draw, (lx, ty), f"{kind} robot · tyres {tyre} · pit stops {row.pit_stops}",
                  size, INK, anchor="lm")  # fmt: skip
        draw_text(draw, (lx, ty + 32), "Damage", size, INK, anchor="lm")
        nx = _dots(draw, lx + 90, ty + 32, row.damage_red, BRAKE_RED, 0)
        _dots(draw, nx, ty + 32, row.damage_brown, (120, 72, 36), 0)
        if row.damage_red + row.damage_brown == 0:
            draw_text(draw, (lx + 90, ty + 32), "none", size, MUTED, anchor="lm")
        return
    draw_text(draw, (lx, ty), f"Tyres {tyre}", size, INK, bold=True, anchor="lm")
    draw_text(draw, (lx + 190, ty), f"{row.chips} chips", size, INK, anchor="lm")
    draw_text(draw, (lx + 320, ty), "Blue", size, INK, anchor="lm")
    _dots(draw, lx + 370, ty, row.blue, (30, 90, 220), 0)
    if row.blue == 0:
        draw_text(draw, (lx + 370, ty), "0", size, MUTED, anchor="lm")
    ty += 34
    draw_text(draw, (lx, ty), "Damage", size, INK, bold=True, anchor="lm")
    nx = _dots(draw, lx + 100, ty, row.damage_red, BRAKE_RED, 0)
    empty = max(0, row.damage_capacity - row.damage_red - row.damage_brown)
    nx = _dots(draw, nx, ty, row.damage_brown, (120, 72, 36), 0)
    _dots(draw, nx, ty, 0, INK, empty)
    total = row.damage_red + row.damage_brown
    draw_text(draw, (lx + 330, ty), f"{total}/{row.damage_capacity}", size, INK, anchor="lm")
    ty += 34
    fuel = f"turn {row.fuel_turn}" + (" (next lap of the indicator)" if row.fuel_over else "")
    draw_text(draw, (lx, ty), "Fuel", size, INK, bold=True, anchor="lm")
    draw_text(draw, (lx + 100, ty), fuel if row.fuel_turn else "-", size, INK, anchor="lm")
    ty += 34
    draw_text(draw, (lx, ty), "Strategy", size, INK, bold=True, anchor="lm")
    draw_text(draw, (lx + 100, ty), row.strategy or "-", size, INK, anchor="lm", max_width=390)
    ty += 34
    draw_text(draw, (lx, ty), "Skill", size, INK, bold=True, anchor="lm")
    draw_text(draw, (lx + 100, ty), row.skill or "-", size, INK, anchor="lm", max_width=170)
    check = f"target check {row.target_check}" if row.target_check is not None else ""
    draw_text(draw, (lx + 290, ty), check, size, INK, anchor="lm")
    ty += 34
    draw_text(draw, (lx, ty), "Hand", size, INK, bold=True, anchor="lm")
    n = row.hand_count
    draw_text(draw, (lx + 100, ty), f"{n} card{'s' if n != 1 else ''}", size, INK, anchor="lm")
    draw_text(draw, (lx + 290, ty), f"pit stops {row.pit_stops}", size, INK, anchor="lm")


def dashboard_layout(rows: list[DashRow]) -> tuple[list[PxPoint], int, int]:
    """Top-left corner of each panel, and the image size: players first, then robots."""
    width = DASH_PAD + DASH_COLS * (PANEL_W + DASH_PAD)
    y = DASH_TITLE_H + DASH_PAD
    corners: list[PxPoint] = [(0, 0)] * len(rows)
    for group in ([r for r in rows if not r.robot], [r for r in rows if r.robot]):
        h = ROBOT_PANEL_H if group and group[0].robot else PANEL_H
        for k, r in enumerate(group):
            corners[r.car] = (DASH_PAD + (k % DASH_COLS) * (PANEL_W + DASH_PAD),
                              y + (k // DASH_COLS) * (h + DASH_PAD))  # fmt: skip
        y += ((len(group) + DASH_COLS - 1) // DASH_COLS) * (h + DASH_PAD)
    return corners, width, y


def render_dashboards(state: RF90State) -> bytes:
    """One dashboard panel per car (players first, then robots), two columns."""
    rows = dashboard_rows(state)
    corners, width, height = dashboard_layout(rows)
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, DASH_TITLE_H), fill=TITLE_BG)
    tr = _track(state)
    head = f"{tr.name} · turn {state.turn}/{tr.race_turns} · dashboards"
    draw_text(draw, (DASH_PAD, DASH_TITLE_H / 2), head, 26, TITLE_FG, bold=True, anchor="lm",
              max_width=width - 2 * DASH_PAD)  # fmt: skip
    for row, (x, y) in zip(rows, corners, strict=True):
        _panel(draw, state, row, x, y)
    return to_png(img)


# --- classification ----------------------------------------------------------------------

CLASS_W = 900
CLASS_TITLE_H = 70
CLASS_STYLE = TableStyle(row_height=52, header_height=38, font_size=22, marker_size=38)
CLASS_COLUMNS = [
    Column("Pos", 70, "center", bold=True),
    Column("Car", 330),
    Column("Status", 170),
    Column("Laps", 90, "center"),
    Column("Pit stops", 120, "center"),
    Column("Damage", 88, "center"),
]


def classification_rows(state: RF90State) -> list[list[str | Cell]]:
    rows: list[list[str | Cell]] = []
    for place, car in enumerate(GAME.race_classification(state), start=1):
        status = car.status if not car.running else "running"
        fill = INK if car.running else (190, 20, 40)
        out = f" (turn {car.out_turn})" if car.out_turn and not car.running else ""
        rows.append(
            [
                str(place),
                Cell(
                    car.name, marker_colour=car_colour_name(car), marker_label=car_label(state, car)
                ),
                Cell(status + out, fill=fill),
                str(car.lap),
                str(car.pit_stops),
                str(car.damage),
            ]
        )
    return rows


def render_classification(state: RF90State) -> bytes:
    tr = _track(state)
    rows = classification_rows(state)
    height = CLASS_TITLE_H + 16 + table_height(len(rows), CLASS_STYLE) + 16
    img = Image.new("RGB", (CLASS_W, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, CLASS_W, CLASS_TITLE_H), fill=TITLE_BG)
    title = "Final classification" if state.phase == "finished" else "Classification"
    draw_text(draw, (16, CLASS_TITLE_H / 2), f"{title} · {tr.name}", 28, TITLE_FG, bold=True,
              anchor="lm", max_width=CLASS_W - 32)  # fmt: skip
    draw_table(draw, 16, CLASS_TITLE_H + 16, CLASS_COLUMNS, rows, CLASS_STYLE)
    return to_png(img)
