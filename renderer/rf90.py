"""Race! Formula 90 images: the track, the car dashboards and the classification.

- `render_track(state, active_section=None)`: the circuit drawn from the track data (sections
  as outlined shapes, curves tinted apart from straights and braking zones, corner names with
  their duel modifiers, slots), every trajectory kind with its own shape or line style (normal
  = disc, sharp = diamond, extreme = triangle, late brake = dashed red/white brake line with
  its target, off track = dashed run-off box with its cost), the cars as markers in their
  colour with a number (players: seat + 1) or a robot letter (X = SuperFast, F = Fast,
  S = Slow), the Leader token, "turn ended" / "turn skipped" badges, the active section
  highlighted, the weather pawn, a legend, and a strip below with the turn indicator (turns,
  stages, the current turn and every car's fuel chit).
- `render_dashboards(state)`: one panel per car (tyres and chips, blue discs, damage, fuel
  turn, strategy, skill, the number of cards in hand - never the cards).
- `render_classification(state)`: the final order with status and pit stops.

The static part of a track (everything but cars, marks, chits, weather and the highlight) is
drawn once per track, supersampled for smooth edges, and cached; an image then costs only
the moving parts and the PNG encoding. `slot_xy`, `car_xy`, `section_box`, `turn_cell_xy`
and `dashboard_rows` expose the layout and the drawn data for callers and tests.

Only the public information is drawn: everything comes from `GAME.public_view(state)` (where
a hand is a count), plus the static track data.
"""

from __future__ import annotations

import math
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
from rules.rf90 import GAME, catalog
from rules.rf90.catalog import Section, Track
from rules.rf90.engine import damage_capacity, fuel_chit
from rules.rf90.state import Car, RF90State

Point = tuple[float, float]
PxPoint = tuple[int, int]

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

# player cars take the colours of their seats, as the engine names them ("Red car"...)
SEAT_COLOURS = ("red", "blue", "green", "yellow", "white", "orange")
ROBOT_COLOURS = {"superfast": "black", "fast": "grey", "slow": "silver"}
ROBOT_LETTERS = {"superfast": "X", "fast": "F", "slow": "S"}

W, H = 1600, 1000  # the track canvas of the data files
STRIP_H = 216
HEIGHT = H + STRIP_H
SS = 2  # supersampling of the static layer
MARKER = 42
SMALL_MARKER = 30
SLOT_GAP = 44  # slot centres are spread at least this far apart
OFF_DEPTH = 22


# --- geometry ----------------------------------------------------------------------------


def _track(state_or_name: RF90State | str) -> Track:
    name = state_or_name if isinstance(state_or_name, str) else state_or_name.track
    return catalog.track(name)


def _inside(poly: list[Point], p: Point) -> bool:
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _centroid(poly: list[Point]) -> Point:
    return (sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly))


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
def _slots(track_name: str) -> tuple[tuple[Point, ...], ...]:
    return tuple(tuple(_spread(s)) for s in _track(track_name).sections)


def slot_xy(track: str, section: int, slot: int) -> PxPoint:
    """Pixel centre of a slot (0 = the front of the section) on the track image."""
    x, y = _slots(track)[section][slot]
    return round(x), round(y)


def _outward(p: Point, k: float) -> Point:
    """`p` moved `k` px away from the infield centre."""
    dx, dy = p[0] - W / 2, p[1] - H / 2
    d = math.hypot(dx, dy) or 1.0
    return (p[0] + dx / d * k, p[1] + dy / d * k)


def _inward(p: Point, k: float) -> Point:
    return _outward(p, -k)


@cache
def _off_owner(track_name: str) -> dict[int, int]:
    """Re-entry section -> the corner whose run-off area a waiting off-track car stands in."""
    out: dict[int, int] = {}
    for s in _track(track_name).sections:
        if s.off_track is not None:
            out.setdefault(s.off_track.reentry, s.index)
    return out


def _off_band(track: str, section: int) -> list[Point]:
    """The run-off area of a corner: a band hugging the middle of its outer edge."""
    poly = _track(track).sections[section].polygon
    (ax, ay), (bx, by) = poly[3], poly[2]  # outer edge, start -> end
    a = (ax + (bx - ax) * 0.15, ay + (by - ay) * 0.15)
    b = (ax + (bx - ax) * 0.85, ay + (by - ay) * 0.85)
    return [a, b, _outward(b, OFF_DEPTH), _outward(a, OFF_DEPTH)]


def off_track_xy(track: str, section: int) -> PxPoint:
    """Centre of the run-off area of this section, where off-track cars wait."""
    x, y = _centroid(_off_band(track, section))
    return round(x), round(y)


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
        x, y = off_track_xy(state.track, owner)
        k = waiting.index(car_id)
        return x + (k - (len(waiting) - 1) / 2) * (SMALL_MARKER + 2) // 1, y
    cars = state.sections[car.section]
    if car_id not in cars:
        return None
    slot = cars.index(car_id)
    slots = _slots(state.track)[car.section]
    if slot >= len(slots):  # over capacity: never in a legal state, still drawn
        x, y = slots[-1]
        return round(x) + 8 * (slot - len(slots) + 1), round(y)
    return slot_xy(state.track, car.section, slot)


def section_box(track: str, section: int) -> tuple[int, int, int, int]:
    """Bounding box of a section's outline on the track image."""
    poly = _track(track).sections[section].polygon
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return (math.floor(min(xs)), math.floor(min(ys)), math.ceil(max(xs)), math.ceil(max(ys)))


# --- cars --------------------------------------------------------------------------------


def car_colour_name(car: Car) -> str:
    if car.robot is not None:
        return ROBOT_COLOURS[car.robot]
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
        left = [(x, y) for x, y in _clip_half(pts, cx, True)]
        right = [(x, y) for x, y in _clip_half(pts, cx, False)]
        draw.polygon(left, fill=CARD_RGB[colours[0]])
        draw.polygon(right, fill=CARD_RGB[colours[1]])
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


def cost_text(tyres: int, damage: int, cards: int) -> str:
    parts = [
        f"T{tyres}" if tyres else "",
        f"D{damage}" if damage else "",
        f"C{cards}" if cards else "",
    ]
    return " ".join(p for p in parts if p)


def _chip(
    draw: ImageDraw.ImageDraw,
    xy: Point,
    text: str,
    size: int,
    *,
    fill: RGB = INK,
    bg: RGB = LABEL_BG,
    bold: bool = False,
    outline: RGB | None = None,
) -> tuple[float, float, float, float]:
    """A text chip centred at `xy`, kept inside the track canvas."""
    w = text_width(text, size, bold) + 10
    h = size + 8
    x = min(max(xy[0], w / 2 + 4), W - w / 2 - 4)
    y = min(max(xy[1], h / 2 + 4), H - h / 2 - 4)
    box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    draw.rounded_rectangle(box, radius=5, fill=bg, outline=outline, width=2 if outline else 0)
    draw_text(draw, (x, y), text, size, fill, bold=bold, anchor="mm")
    return box


def _draw_shapes(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Grass, sections, kerbs, slots, brake lines and run-off boxes, at SS x scale."""
    for sec in tr.sections:
        fill = {"curve": CURVE, "braking": BRAKING}.get(sec.kind, STRAIGHT)
        draw.polygon([_s(p) for p in sec.polygon], fill=fill, outline=EDGE, width=3 * SS)
    # start / finish line: chequered along the start edge of section 0
    poly = tr.sections[0].polygon
    a, b = poly[0], poly[3]
    _dashed(draw, a, b, ((255, 255, 255), (20, 20, 20)), 8, 10)
    for sec in tr.sections:
        if sec.off_track is not None:
            band = _off_band(tr.id, sec.index)
            draw.polygon([_s(p) for p in band], fill=OFF_BG)
            for i in range(4):
                _dashed(draw, band[i], band[(i + 1) % 4], (INK, OFF_BG), 2, 7)
        if sec.late_brake is not None:  # the brake line across the end of the braking zone
            p1, p2 = sec.polygon[1], sec.polygon[2]
            _dashed(draw, p1, p2, (BRAKE_RED, (255, 255, 255)), 6, 9)
        for x, y in _slots(tr.id)[sec.index]:
            r = MARKER / 2 - 2
            draw.ellipse(
                ((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS),
                outline=SLOT_LINE,
                width=2 * SS,
            )
        for t in sec.trajectories:
            draw_trajectory_symbol(draw, t.kind, list(t.colours), t.xy, 11, SS)


def _draw_labels(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Section names, corner names with duel modifiers and run-off costs, late brake targets,
    trajectory bonuses, costs and targets."""
    for sec in tr.sections:
        lx, ly = sec.label
        if sec.corner is not None:
            title = f"{sec.index} · T{sec.corner.number} {sec.corner.name}"
            box = _chip(draw, (lx, ly - 12), title, 17, bold=True, bg=(220, 228, 250))
            mods = sec.corner.duel_modifiers
            cell = 30
            off = sec.off_track
            off_text = ""
            if off is not None:
                off_text = "off " + cost_text(off.cost.tyres, off.cost.damage, off.cost.cards)
            off_w = text_width(off_text, 13, True) + 12 if off_text else 0
            width = 44 + cell * len(mods) + off_w
            x0 = (box[0] + box[2]) / 2 - width / 2
            x0 = min(max(x0, 4), W - 4 - width)
            y0 = box[3] + 2
            draw.rectangle((x0, y0, x0 + width, y0 + 22), fill=(255, 255, 255))
            draw_text(draw, (x0 + 4, y0 + 11), "duel", 13, MUTED, anchor="lm")
            for i, m in enumerate(mods):
                cx = x0 + 44 + i * cell
                draw.rectangle((cx, y0, cx + cell, y0 + 22), outline=(150, 156, 166))
                text = f"{m:+d}" if m else "0"
                draw_text(draw, (cx + cell / 2, y0 + 11), text, 14, INK, bold=True, anchor="mm")
            if off_text:
                ox = x0 + 44 + cell * len(mods)
                draw.rectangle((ox, y0, x0 + width, y0 + 22), fill=OFF_BG)
                draw_text(draw, (ox + off_w / 2, y0 + 11), off_text, 13, INK, bold=True,
                          anchor="mm")  # fmt: skip
        else:
            name = sec.name if sec.kind != "straight" or sec.index % 2 == 0 else ""
            box = _chip(draw, (lx, ly), f"{sec.index} {name}".strip(), 15, fill=INK)
            if sec.late_brake is not None:
                text = f"late brake {sec.late_brake.target}"
                _chip(draw, ((box[0] + box[2]) / 2, box[3] + 13), text, 13,
                      fill=(255, 255, 255), bg=BRAKE_RED, bold=True)  # fmt: skip
        for t in sec.trajectories:
            bits = [f"+{t.bonus}"]
            cost = cost_text(t.cost.tyres, t.cost.damage, t.cost.cards)
            if cost:
                bits.append(cost)
            if t.target is not None:
                bits.append(f"chk {t.target}")
            _chip(draw, _inward(t.xy, 34), " ".join(bits), 13, bg=(255, 255, 240))


def _draw_infield(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Title and the legend of symbols (cars are listed per image)."""
    draw_text(draw, (270, 250), tr.name, 30, INK, bold=True, max_width=560)
    draw_text(
        draw,
        (270, 290),
        f"{tr.race_turns} turns · {tr.laps} laps · pit stop: {tr.pit_sections} sections back",
        17,
        MUTED,
    )
    x, y = 820, 360
    draw_text(draw, (x, y - 30), "Legend", 19, INK, bold=True)
    rows: list[tuple[str, str]] = [
        ("normal", "Normal trajectory: +MP bonus"),
        ("sharp", "Sharp: +MP, cost T tyres D damage C cards"),
        ("extreme", "Extreme: +MP, check target (chk)"),
        ("brake", "Late brake line (check target)"),
        ("off", "Run-off: off-track cars wait (off = cost)"),
        ("curve", "Curve (duel: modifier per slot)"),
        ("braking", "Braking zone"),
    ]
    for i, (kind, text) in enumerate(rows):
        cy = y + i * 30 + 6
        if kind in ("normal", "sharp", "extreme"):
            draw_trajectory_symbol(draw, kind, ["orange"], (x + 14, cy), 9)
        elif kind == "brake":
            for k in range(4):
                c = BRAKE_RED if k % 2 == 0 else (255, 255, 255)
                draw.rectangle((x + 2 + k * 7, cy - 4, x + 9 + k * 7, cy + 4), fill=c)
            draw.rectangle((x + 2, cy - 4, x + 30, cy + 4), outline=INK)
        elif kind == "off":
            draw.rounded_rectangle((x, cy - 9, x + 30, cy + 9), radius=4, fill=OFF_BG, outline=INK)
        else:
            draw.rectangle((x, cy - 9, x + 30, cy + 9), fill=CURVE if kind == "curve" else BRAKING)
        draw_text(draw, (x + 42, cy), text, 16, INK, anchor="lm")
    y2 = y + len(rows) * 30 + 14
    badges = [("L", LEADER_BG, "Leader token"), ("ok", ENDED_BG, "turn ended"),
              ("II", SKIPPED_BG, "turn skipped")]  # fmt: skip
    for i, (kind, colour, text) in enumerate(badges):
        cy = y2 + i * 30
        _badge(draw, (x + 15, cy), kind, colour, 12)
        draw_text(draw, (x + 42, cy), text, 16, INK, anchor="lm")


@cache
def _static(track_name: str) -> Image.Image:
    tr = _track(track_name)
    big = Image.new("RGB", (W * SS, H * SS), GRASS)
    d = ImageDraw.Draw(big)
    # infield: the inner edges of all sections, lighter
    inner = [_s(s.polygon[0]) for s in tr.sections]
    d.polygon(inner, fill=INFIELD)
    _draw_shapes(d, tr)
    img = big.resize((W, H), Image.Resampling.LANCZOS)
    full = Image.new("RGB", (W, HEIGHT), PAPER)
    full.paste(img, (0, 0))
    draw = ImageDraw.Draw(full)
    _draw_labels(draw, tr)
    _draw_infield(draw, tr)
    _draw_strip_static(draw, tr)
    return full


@cache
def _section_mask(track_name: str, section: int) -> tuple[Image.Image, tuple[int, int]]:
    x0, y0, x1, y1 = section_box(track_name, section)
    x0, y0 = max(0, x0 - 6), max(0, y0 - 6)
    mask = Image.new("L", (x1 + 7 - x0, y1 + 7 - y0), 0)
    d = ImageDraw.Draw(mask)
    pts = [(x - x0, y - y0) for x, y in _track(track_name).sections[section].polygon]
    d.polygon(pts, fill=110)
    d.line(pts + [pts[0]], fill=255, width=7, joint="curve")
    return mask, (x0, y0)


# --- turn strip --------------------------------------------------------------------------

STRIP_LEFT = 110
STRIP_RIGHT = W - 16
TURN_ROW_Y = H + 44
TURN_ROW_H = 34
CHIT_Y = TURN_ROW_Y + TURN_ROW_H + 6


def _cell_w(tr: Track) -> float:
    return (STRIP_RIGHT - STRIP_LEFT) / tr.race_turns


def turn_cell_xy(track: str, turn: int) -> PxPoint:
    """Centre of a turn's cell on the turn indicator strip."""
    tr = _track(track)
    cw = _cell_w(tr)
    return round(STRIP_LEFT + (turn - 0.5) * cw), TURN_ROW_Y + TURN_ROW_H // 2


def _draw_strip_static(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    draw.rectangle((0, H, W, HEIGHT), fill=(246, 247, 250))
    draw.line((0, H, W, H), fill=INK, width=2)
    draw_text(draw, (12, TURN_ROW_Y + TURN_ROW_H / 2), "Turn", 18, INK, bold=True, anchor="lm")
    draw_text(draw, (12, CHIT_Y + 28), "Fuel", 18, INK, bold=True, anchor="lm")
    draw_text(draw, (12, CHIT_Y + 50), "chits", 14, MUTED, anchor="lm")
    cw = _cell_w(tr)
    stages = tr.stages + [tr.race_turns + 1]
    for k in range(len(tr.stages)):
        a = STRIP_LEFT + (stages[k] - 1) * cw
        b = STRIP_LEFT + (stages[k + 1] - 1) * cw
        shade = (226, 232, 244) if k % 2 == 0 else (212, 220, 236)
        draw.rectangle((a, H + 8, b - 2, TURN_ROW_Y - 4), fill=shade)
        draw_text(draw, ((a + b) / 2, H + 22), f"Stage {k + 1}", 16, INK, bold=True, anchor="mm")
    for t in range(1, tr.race_turns + 1):
        x0 = STRIP_LEFT + (t - 1) * cw
        draw.rectangle(
            (x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H), fill=(255, 255, 255),
            outline=(150, 156, 166),
        )  # fmt: skip
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(t), 16, INK,
                  anchor="mm")  # fmt: skip
        draw.line((x0 + cw - 1, CHIT_Y, x0 + cw - 1, HEIGHT - 8), fill=(226, 229, 234))


def _draw_strip(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    tr = _track(state)
    cw = _cell_w(tr)
    if state.phase in ("race", "finished") and 1 <= state.turn <= tr.race_turns:
        x0 = STRIP_LEFT + (state.turn - 1) * cw
        draw.rectangle((x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H), fill=TITLE_BG)
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(state.turn), 18,
                  TITLE_FG, bold=True, anchor="mm")  # fmt: skip
    chits: dict[int, list[tuple[Car | str, bool]]] = {}
    for car in state.cars:
        if car.robot is None and car.running and car.fuel_turn > 0:
            space, over = fuel_chit(state, car)
            if 1 <= space <= tr.race_turns:
                chits.setdefault(space, []).append((car, over))
    for tok in state.robot_tokens:
        if not tok.done and 1 <= tok.turn <= tr.race_turns:
            chits.setdefault(tok.turn, []).append((tok.robot, False))
    for space, items in sorted(chits.items()):
        cx = STRIP_LEFT + (space - 0.5) * cw
        cols = 1 if len(items) <= 3 else 2
        size = min(SMALL_MARKER if cols == 1 else 26, int(cw / cols) - 3)
        for k, (item, over) in enumerate(items[:8]):
            col, row = k % cols, k // cols
            x = cx - 1 + (col - (cols - 1) / 2) * (size + 2)
            xy = (round(x), CHIT_Y + size // 2 + 2 + row * (size + 2))
            if isinstance(item, str):  # a robot pit token: the robot type letter
                car_marker(draw, xy, ROBOT_COLOURS[item], ROBOT_LETTERS[item], size,
                           shape="rounded")  # fmt: skip
            else:
                _marker(draw, state, item, xy, size)
                if over:  # carried over the top: a second lap of the indicator
                    _badge(draw, (xy[0] + size // 2 - 2, xy[1] - size // 2 + 3), "+", INK, 7)
    # weather pawn, right of the title in the infield
    _draw_weather(draw, state)


def _draw_weather(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    spaces = catalog.tables().weather.spaces
    x, y, cw = 270, 330, 76
    pawn = min(max(state.weather, 0), len(spaces) - 1)
    draw_text(draw, (x, y), "Weather", 19, INK, bold=True)
    state_name = spaces[pawn].state
    draw_text(draw, (x + 100, y + 2), f"now: {spaces[pawn].name} ({state_name})", 17, INK)
    top = y + 30
    for i, sp in enumerate(spaces):
        x0 = x + i * cw
        draw.rectangle((x0, top, x0 + cw - 4, top + 40), fill=WEATHER_RGB[sp.name],
                       outline=(120, 126, 136))  # fmt: skip
        fg = (255, 255, 255) if sp.name == "Rain" else INK
        draw_text(draw, (x0 + cw / 2 - 2, top + 20), sp.name, 14, fg, anchor="mm")
    px = x + pawn * cw + cw / 2 - 2
    draw.polygon([(px, top + 44), (px - 12, top + 64), (px + 12, top + 64)], fill=INK)
    draw.rectangle((x + pawn * cw - 2, top - 3, x + pawn * cw + cw - 2, top + 43), outline=INK,
                   width=4)  # fmt: skip


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
    for car in state.cars:
        xy = car_xy(state, car.id)
        if xy is None:
            continue
        size = SMALL_MARKER if car.off_track else MARKER
        if car.trajectory:
            t = tr.trajectory(car.trajectory)
            draw.line((xy, t.xy), fill=INK, width=6)
            draw.line((xy, t.xy), fill=car_colour(car_colour_name(car)).fill, width=3)
        if car.id == pending or (state.duel is not None and car.id in state.duel.order):
            r = size // 2 + 6
            draw.ellipse((xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r), outline=HIGHLIGHT,
                         width=5)  # fmt: skip
        _marker(draw, state, car, xy, size)
        half = size // 2
        if car.id == leader:
            _badge(draw, (xy[0] - half + 2, xy[1] - half + 2), "L", LEADER_BG, 10)
        if car.mark == "ended":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "ok", ENDED_BG, 9)
        elif car.mark == "skipped":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "II", SKIPPED_BG, 9)


def _draw_car_legend(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    tr = _track(state)
    x, y = 270, 440
    phase = state.phase
    if phase in ("race", "finished"):
        head = f"Turn {state.turn}/{tr.race_turns} · stage {tr.stage(state.turn)}"
        if phase == "finished":
            head = f"Finished after turn {state.turn}"
    else:
        head = {"setup": "Set-up", "qualifying": "Qualifying", "start": "Start"}.get(phase, phase)
    draw_text(draw, (x, y), head, 24, INK, bold=True)
    sub = ""
    if state.duel is not None:
        sec = tr.sections[state.duel.section]
        name = sec.corner.name if sec.corner else sec.name
        sub = f"Duel at {name} (section {sec.index})"
    elif state.pending is not None:
        car = state.cars[state.pending.car]
        sub = f"To play: {car.name} (phase {state.pending.phase})"
    if sub:
        draw_text(draw, (x, y + 32), sub, 17, INK, max_width=520)
    y += 62
    cars = state.cars
    per_col = 7
    for i, car in enumerate(cars):
        cx = x + (i // per_col) * 270
        cy = y + (i % per_col) * 34
        _marker(draw, state, car, (cx + 14, cy + 14), 28)
        status = "" if car.running else f" ({car.status})"
        off = " off track" if car.off_track and car.running else ""
        draw_text(draw, (cx + 34, cy + 14), f"{car.name}{status}{off}", 15, INK, anchor="lm",
                  max_width=225)  # fmt: skip


def render_track(state: RF90State, *, active_section: int | None = None) -> bytes:
    """The track image: circuit, trajectories, cars, marks, the active section, the weather, a
    legend, and the turn indicator strip with the fuel chits."""
    tr = _track(state)
    img = _static(tr.id).copy()
    draw = ImageDraw.Draw(img)
    view = GAME.public_view(state)
    if active_section is not None:
        if not 0 <= active_section < tr.length:
            raise ValueError(f"no section {active_section} on {tr.name}")
        mask, origin = _section_mask(tr.id, active_section)
        img.paste(HIGHLIGHT, (*origin, origin[0] + mask.width, origin[1] + mask.height), mask)
    _draw_cars(draw, state, view.get("leader"))
    _draw_strip(draw, state)
    _draw_car_legend(draw, state)
    return to_png(img)


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
