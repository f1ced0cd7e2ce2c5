"""What every Race! Formula 90 image shares: the theme, the track geometry on the track image
(sections, slots, run-off areas, where each car stands), car colours and labels, the label
search that keeps texts off the track and off each other, and the trajectory symbols and
badges. The track image (`renderer.rf90_track`), the close-up (`renderer.rf90_closeup`), the
dashboards (`renderer.rf90_tables`) and the cockpit (`renderer.rf90_cockpit`) build on it;
`renderer.rf90` gathers their public names."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from PIL import ImageDraw

from renderer.common import (
    INK,
    RGB,
    MarkerShape,
    _label_size,  # the size `car_marker` draws its label at
    _text_mask,  # the box of a text drawn
    car_marker,
    counted,
    draw_text,
)
from rules.rf90 import catalog
from rules.rf90.catalog import Section, Track
from rules.rf90.state import Car, RF90State

Point = tuple[float, float]
PxPoint = tuple[int, int]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1


# --- theme -------------------------------------------------------------------------------

GRASS: RGB = (118, 166, 98)
INFIELD: RGB = (236, 240, 232)
STRAIGHT: RGB = (92, 96, 104)
BRAKING: RGB = (112, 92, 98)
CHEVRON: RGB = (178, 156, 162)  # the chevrons of a braking zone
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
# the dark theme of the images meant for a phone (dashboards, cockpit): they sit in Discord's
# dark theme without a white glare, and read on the light theme too
DARK_BG: RGB = (30, 33, 39)
DARK_PANEL: RGB = (42, 46, 55)
DARK_HEAD: RGB = (20, 22, 27)
DARK_FG: RGB = (238, 240, 244)
DARK_MUTED: RGB = (170, 178, 192)
DARK_EMPTY: RGB = (150, 158, 172)  # an empty damage space
BROWN_DISC: RGB = (132, 80, 40)
BLUE_DISC: RGB = (40, 110, 240)
TYRE_RGB: dict[str, RGB] = {
    "soft": (220, 40, 50),
    "hard": (236, 238, 242),
    "intermediate": (40, 170, 80),
    "wet": (40, 110, 240),
}
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

PHONE_W = 400  # Discord shows an image about this wide on a phone
PHONE_MIN_PX = 12  # the smallest text a player reads there


def phone_px(width: int) -> int:
    """The smallest font size (px at the image's full width) that is still `PHONE_MIN_PX`
    when an image `width` px wide is shown `PHONE_W` px wide: 24 px at 800, 56 px at 1860."""
    return math.ceil(PHONE_MIN_PX * width / PHONE_W)


DATA_W, DATA_H = 1600, 1000  # the track canvas of the data files
MX, MY = 130, 80  # the data canvas is drawn this far from the track area's left and top edges
W = DATA_W + 2 * MX
BAND_H = 176  # the header band at the top of the track image, above the track area
H = BAND_H + DATA_H + 2 * MY  # the bottom of the track area (it starts at BAND_H)
STRIP_H = 236  # the game turn indicator strip, below the track
LEGEND_H = 172  # the legend, below the strip
HEIGHT = H + STRIP_H + LEGEND_H
SS = 2  # supersampling of the static layer

BAND_PX = phone_px(W)  # the header band's texts: 56 px, 12 px on a phone
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
    if isinstance(state_or_name, str):
        return catalog.track(state_or_name)
    return catalog.track(state_or_name.track, state_or_name.race_turns)


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
    return (p[0] + MX, p[1] + MY + BAND_H)


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


def draw_braking_chevrons(
    draw: ImageDraw.ImageDraw, quad: Iterable[Point], ss: int = 1, width: int = 6
) -> None:
    """Chevrons across a braking zone's quad (inner start, inner end, outer end, outer start),
    pointing the way the cars run, so that a braking zone reads apart from a straight without
    its tint (for red-green colour-blind players too)."""
    q = list(quad)
    start = ((q[0][0] + q[3][0]) / 2, (q[0][1] + q[3][1]) / 2)
    end = ((q[1][0] + q[2][0]) / 2, (q[1][1] + q[2][1]) / 2)
    length = math.dist(start, end) or 1.0
    n = max(2, round(length / 34))
    d = min(0.35 / n, 14 / length)  # the chevron's depth along the track
    for k in range(n):
        u = (k + 0.5) / n
        pts = [_bilinear(q, u - d, 0.14), _bilinear(q, u + d, 0.5), _bilinear(q, u - d, 0.86)]
        draw.line([(x * ss, y * ss) for x, y in pts], fill=CHEVRON, width=width * ss,
                  joint="curve")  # fmt: skip


# --- words: one meaning each ---------------------------------------------------------------
# "game turn" is the race's turn (never a bare "turn" or "T"); a corner is called by its name
# ("Corner 8" when it has none); what a trajectory or a run-off area costs is written "1 tyre",
# "1 dmg" (a damage disc) and "1 card".


def cost_text(tyres: int, damage: int, cards: int) -> str:
    """A cost in words, e.g. "2 tyres, 1 dmg, 1 card"; "" when there is none."""
    parts = [
        counted(tyres, "tyre") if tyres else "",
        f"{damage} dmg" if damage else "",
        counted(cards, "card") if cards else "",
    ]
    return ", ".join(p for p in parts if p)


def corner_name(sec: Section) -> str:
    """A corner's name without the data's explanations in brackets ("Chicane (turn 5)" ->
    "Chicane"); a corner named only by its number is "Corner 8"."""
    assert sec.corner is not None
    name = sec.corner.name.split(" (")[0].strip()
    if name.lower() in (f"turn {sec.corner.number}", f"corner {sec.corner.number}", ""):
        return f"Corner {sec.corner.number}"
    return name


def corner_title(sec: Section) -> str:
    """A corner's title, e.g. "10 · Chicane": the section and the corner's name."""
    return f"{sec.index} · {corner_name(sec)}"


def game_turn_text(state: RF90State) -> str:
    """Where the race is, e.g. "Game turn 11/27", "Finished after game turn 27", "Start"."""
    tr = _track(state)
    if state.phase == "finished":
        return f"Finished after game turn {state.turn}"
    if state.phase == "race":
        return f"Game turn {state.turn}/{tr.race_turns}"
    return {"setup": "Set-up", "qualifying": "Qualifying", "start": "Start"}.get(
        state.phase, state.phase.capitalize()
    )


def weather_text(state: RF90State) -> tuple[str, RGB]:
    """The weather, e.g. "Sun (dry)", and its colour."""
    spaces = catalog.tables().weather.spaces
    sp = spaces[min(max(state.weather, 0), len(spaces) - 1)]
    text = sp.name if sp.state.lower() == sp.name.lower() else f"{sp.name} ({sp.state})"
    return text, WEATHER_RGB[sp.name]


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
    shape: MarkerShape = "rounded" if car.is_robot else "circle"
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
    bounds: Box = (4, BAND_H + 4, W - 4, H - 4),
) -> Box | None:
    """The cheapest free box of this size near `anchor`, pushed along `normal` (and shifted
    along `tangent`): inside `bounds` (by default the track area of the track image), free of
    every shape and accepted by `ok(box)`, its leader line (if it needs one) crossing none of
    the boxes in `avoid`; None if there is none."""
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
        if box[0] < bounds[0] or box[1] < bounds[1] or box[2] > bounds[2] or box[3] > bounds[3]:
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


def draw_discs(
    draw: ImageDraw.ImageDraw, x: float, y: float, fills: list[RGB | None], r: int = 13
) -> float:
    """A row of discs centred on `y` from `x` (None: an empty space, a ring); returns the x
    after the last."""
    for fill in fills:
        box = (x, y - r, x + 2 * r, y + r)
        if fill is None:
            draw.ellipse(box, outline=DARK_EMPTY, width=3)
        else:
            draw.ellipse(box, fill=fill, outline=(250, 250, 250), width=2)
        x += 2 * r + 6
    return x


# --- drawn texts, for the phone legibility checks ------------------------------------------


@dataclass(frozen=True)
class DrawnText:
    """A text an image draws, its font size in px at the image's full width, and the box its
    ink covers (None for a car marker's label, which stays inside its marker)."""

    text: str
    size: int
    box: Box | None = None


class TextLog(list[DrawnText]):
    """Draws texts and car markers and records every text drawn with its size, so that a
    caller (a test) can check that none is too small once the image is scaled down."""

    def text(
        self,
        draw: ImageDraw.ImageDraw,
        xy: Point,
        text: str,
        size: int,
        fill: RGB = INK,
        *,
        bold: bool = False,
        anchor: str = "la",
        max_width: float | None = None,
    ) -> str:
        drawn = draw_text(draw, xy, text, size, fill, bold=bold, anchor=anchor,
                          max_width=max_width)  # fmt: skip
        if drawn:
            mask, dx, dy = _text_mask(drawn, size, bold, anchor)  # cached: drawn just now
            x, y = round(xy[0]) + dx, round(xy[1]) + dy
            self.append(DrawnText(drawn, size, (x, y, x + mask.width, y + mask.height)))
        return drawn

    def marker(
        self,
        draw: ImageDraw.ImageDraw,
        xy: PxPoint,
        colour_name: str | None,
        label: str,
        size: int,
        *,
        shape: MarkerShape = "circle",
    ) -> tuple[int, int, int, int]:
        box = car_marker(draw, xy, colour_name, label, size, shape=shape)
        if label:  # the marker fits its label to its size, as `car_marker` does
            self.append(DrawnText(label, _label_size(label, size)))
        return box

    def car(
        self, draw: ImageDraw.ImageDraw, state: RF90State, car: Car, xy: PxPoint, size: int
    ) -> tuple[int, int, int, int]:
        shape: MarkerShape = "rounded" if car.is_robot else "circle"
        return self.marker(draw, xy, car_colour_name(car), car_label(state, car), size,
                           shape=shape)  # fmt: skip
