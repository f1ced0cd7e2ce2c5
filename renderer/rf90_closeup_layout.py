"""Where the Race! Formula 90 close-up draws things (`renderer.rf90_closeup` draws them): the
window of sections around the one being activated laid out as a ribbon (each section as long as
its rows of slots need, the bends kept but softened, turned so that the cars run left to
right), the run-off areas of its corners, its slots and trajectory symbols, and its labels
placed by the label search of the track image; tried from the largest window (2 sections
before, 3 after) down until everything fits the 800 x 540 frame. `closeup_layout(state)` adds
where each car stands."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from functools import cache

from renderer.common import (
    text_width,
)
from renderer.rf90_base import (
    LABEL_GAP,
    LEADER_MIN,
    OFF_ROW,
    Box,
    Label,
    MarkerBox,
    Point,
    _bbox,
    _bilinear,
    _nearest,
    _off_owner,
    _place,
    _poly_shape,
    _Shape,
    _track,
    _unbilinear,
    _unit,
    corner_title,
)
from renderer.rf90_track_layout import off_text, traj_text
from rules.rf90 import GAME, catalog
from rules.rf90.catalog import Section
from rules.rf90.state import Car, RF90State

CLOSEUP_W = 800
PHONE_W = 400  # Discord shows an image about this wide on a phone
PHONE_MIN_PX = 12  # no text smaller than this there
MIN_PX = math.ceil(PHONE_MIN_PX * CLOSEUP_W / PHONE_W)  # 24 px at the full width
TEXT_PX = 24  # labels, slot modifiers, the footer, the legend
LINE_H = 34  # one line of a label block
CELL_W = 40  # one duel modifier in a corner block
TOP_H = 48  # the header bar
FOOT_H = 44  # the footer bar
MARGIN = 6  # labels keep this far from the edges of the track area
TRACK_H = 448  # the track area, between the header and the footer

# the legend, below the footer: each symbol (drawn LEGEND_SYMBOL wide) and its words
LEGEND: tuple[tuple[str, str], ...] = (
    ("normal", "normal"),
    ("sharp", "sharp"),
    ("extreme", "extreme"),
    ("brake", "late brake"),
    ("off", "run-off"),
    ("curve", "curve"),
    ("braking", "braking zone"),
    ("L", "leader"),
    ("ok", "played"),
    ("II", "skipped"),  # (this game turn, as the track image says)
)
LEGEND_SYMBOL = 34
LEGEND_ROW = 36


def _legend_rows() -> list[list[tuple[str, str, float]]]:
    """The legend's items in rows that fit the width: (kind, words, left x)."""
    rows: list[list[tuple[str, str, float]]] = [[]]
    x = 12.0
    for kind, text in LEGEND:
        w = LEGEND_SYMBOL + 6 + text_width(text, TEXT_PX)
        if rows[-1] and x + w > CLOSEUP_W - 12:
            rows.append([])
            x = 12.0
        rows[-1].append((kind, text, x))
        x += w + 22
    return rows


LEGEND_ROWS = _legend_rows()
LEGEND_H = LEGEND_ROW * len(LEGEND_ROWS) + 12
FOOT_Y = TOP_H + TRACK_H  # the top of the footer
LEGEND_Y = FOOT_Y + FOOT_H  # the top of the legend
CLOSEUP_H = LEGEND_Y + LEGEND_H

C_MARKER = 48  # car markers (their number is drawn at 24-25 px)
PITCH = 56  # slot centres along the track
TRACK_W = 124  # the width of the ribbon
SLOT_V = (0.27, 0.73)  # across the track: inner and outer slot of a row of two
C_TRAJ_R = 13
TRAJ_V = -0.07  # trajectory symbols stand this far (of the width) off the inner edge
TRAJ_SYMBOL = 32  # room for the symbol in a trajectory label
C_OFF_DEPTH = 60  # depth of a run-off area
C_OFF_STEP = C_MARKER + 4
C_PAD = 14  # badges and the "to play" ring reach this far beyond a marker
STUB = 26  # the track drawn on beyond the window, faded
BEND = 0.6  # the bends of the track, softened: the ribbon holds more sections

# the windows tried, largest first: (sections before, sections after the active one)
WINDOWS = ((2, 3), (2, 2), (1, 3), (1, 2), (1, 1), (0, 1), (0, 0))
TURNS = (0, 12, -12, 24, -24, 36, -36)  # degrees tried around the window's chord

Quad = tuple[Point, Point, Point, Point]  # inner start, inner end, outer end, outer start


# --- the ribbon ----------------------------------------------------------------------------


@cache
def _slot_grid(track: str, section: int) -> tuple[int, tuple[tuple[int, int, int], ...]]:
    """The section's slots as rows across the track: the number of rows, and for each slot
    (in slot order) its row (0 = the front), its place in the row and the row's size."""
    sec = _track(track).sections[section]
    q = list(sec.polygon)
    uv = [_unbilinear(q, p) if len(q) == 4 else (1 - k / sec.capacity, 0.5)
          for k, p in enumerate(sec.slots)]  # fmt: skip
    order = sorted(range(len(uv)), key=lambda k: -uv[k][0])
    rows: list[list[int]] = []
    for k in order:
        if rows and abs(uv[rows[-1][0]][0] - uv[k][0]) < 0.12:
            rows[-1].append(k)
        else:
            rows.append([k])
    out: dict[int, tuple[int, int, int]] = {}
    for r, members in enumerate(rows):
        for i, k in enumerate(sorted(members, key=lambda k: uv[k][1])):
            out[k] = (r, i, len(members))
    return len(rows), tuple(out[k] for k in range(len(uv)))


def _slot_uv(grid: tuple[int, tuple[tuple[int, int, int], ...]]) -> list[Point]:
    rows, slots = grid
    out = []
    for r, i, n in slots:
        v = 0.5 if n == 1 else SLOT_V[0] + (SLOT_V[1] - SLOT_V[0]) * i / (n - 1)
        out.append((1 - (r + 0.5) / rows, v))
    return out


def _across(sec: Section) -> tuple[Point, Point]:
    """Unit vectors from the inner to the outer edge at the start and the end of a section."""
    q = sec.polygon
    return _unit(q[3][0] - q[0][0], q[3][1] - q[0][1]), _unit(q[2][0] - q[1][0], q[2][1] - q[1][1])


def _rot(v: Point, c: float, s: float) -> Point:
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


@dataclass(frozen=True)
class _Ribbon:
    quads: tuple[Quad, ...]
    slots: tuple[tuple[Point, ...], ...]
    stubs: tuple[Quad, Quad]  # the track before and after the window


def _window(track: str, section: int, before: int, after: int) -> tuple[int, ...]:
    n = _track(track).length
    return tuple((section + k) % n for k in range(-before, after + 1))


def _ribbon(track: str, secs: tuple[int, ...], turn: float) -> _Ribbon:
    """The window as a ribbon running left to right (its ends level), turned by `turn`
    radians: each boundary between sections keeps its direction across the track (the bends
    softened by `BEND`), each section gets the length its rows of slots need."""
    tr = _track(track)
    ends = [_across(tr.sections[i]) for i in secs]
    across: list[Point] = [ends[0][0]]
    for k in range(1, len(secs)):
        a, b = ends[k - 1][1], ends[k][0]
        across.append(_unit(a[0] + b[0], a[1] + b[1]))
    across.append(ends[-1][1])
    angles = [math.atan2(a[1], a[0]) for a in across]
    for k in range(1, len(angles)):  # unwrapped, then the bends softened around the middle
        while angles[k] - angles[k - 1] > math.pi:
            angles[k] -= 2 * math.pi
        while angles[k] - angles[k - 1] < -math.pi:
            angles[k] += 2 * math.pi
    mid = angles[len(angles) // 2]
    across = [(math.cos(mid + BEND * (f - mid)), math.sin(mid + BEND * (f - mid))) for f in angles]
    travel = [(-a[1], a[0]) for a in across]  # the outer edge is on the left of travel
    half = TRACK_W / 2
    centre: Point = (0.0, 0.0)
    quads: list[Quad] = []
    slots: list[tuple[Point, ...]] = []
    for k, i in enumerate(secs):
        grid = _slot_grid(track, i)
        uv = _slot_uv(grid)
        a0, a1 = across[k], across[k + 1]
        d = _unit(travel[k][0] + travel[k + 1][0], travel[k][1] + travel[k + 1][1])
        length = grid[0] * PITCH
        for _ in range(40):  # lengthen a wedge until its inner rows are a pitch apart
            end = (centre[0] + d[0] * length, centre[1] + d[1] * length)
            q: Quad = (
                (centre[0] - a0[0] * half, centre[1] - a0[1] * half),
                (end[0] - a1[0] * half, end[1] - a1[1] * half),
                (end[0] + a1[0] * half, end[1] + a1[1] * half),
                (centre[0] + a0[0] * half, centre[1] + a0[1] * half),
            )
            short = min(
                math.dist(_bilinear(list(q), 0, v), _bilinear(list(q), 1, v)) for _, v in uv
            )
            if short >= grid[0] * PITCH - 1:
                break
            length += 6
        quads.append(q)
        slots.append(tuple(_bilinear(list(q), u, v) for u, v in uv))
        centre = end
    first, last = quads[0], quads[-1]
    t0, t1 = travel[0], travel[-1]
    before: Quad = (
        (first[0][0] - t0[0] * STUB, first[0][1] - t0[1] * STUB),
        first[0],
        first[3],
        (first[3][0] - t0[0] * STUB, first[3][1] - t0[1] * STUB),
    )
    after: Quad = (
        last[1],
        (last[1][0] + t1[0] * STUB, last[1][1] + t1[1] * STUB),
        (last[2][0] + t1[0] * STUB, last[2][1] + t1[1] * STUB),
        last[2],
    )
    theta = turn - math.atan2(centre[1], centre[0])  # level the chord, then turn
    c, s = math.cos(theta), math.sin(theta)

    def rq(q: Quad) -> Quad:
        return (_rot(q[0], c, s), _rot(q[1], c, s), _rot(q[2], c, s), _rot(q[3], c, s))

    return _Ribbon(
        tuple(rq(q) for q in quads),
        tuple(tuple(_rot(p, c, s) for p in ps) for ps in slots),
        (rq(before), rq(after)),
    )


def _frame(q: Quad) -> tuple[Point, Point, Point]:
    """The middle of a quad's outer edge, the outward normal and the direction of travel."""
    inner = ((q[0][0] + q[1][0]) / 2, (q[0][1] + q[1][1]) / 2)
    outer = ((q[3][0] + q[2][0]) / 2, (q[3][1] + q[2][1]) / 2)
    return (
        outer,
        _unit(outer[0] - inner[0], outer[1] - inner[1]),
        _unit(q[2][0] - q[3][0], q[2][1] - q[3][1]),
    )


def _band(q: Quad) -> Quad:
    """A corner's run-off area: outside the middle of its outer edge, long enough for a row
    of `OFF_ROW` waiting cars."""
    mid, n, t = _frame(q)
    half = max(0.4 * math.dist(q[3], q[2]), (OFF_ROW * C_OFF_STEP + 8) / 2)
    a = (mid[0] - t[0] * half, mid[1] - t[1] * half)
    b = (mid[0] + t[0] * half, mid[1] + t[1] * half)
    return (a, b, (b[0] + n[0] * C_OFF_DEPTH, b[1] + n[1] * C_OFF_DEPTH),
            (a[0] + n[0] * C_OFF_DEPTH, a[1] + n[1] * C_OFF_DEPTH))  # fmt: skip


def _off_spot(q: Quad, k: int, waiting: int) -> Point:
    """Where the k-th of `waiting` off-track cars stands in a corner's run-off area."""
    mid, n, t = _frame(q)
    row, col = divmod(k, OFF_ROW)
    in_row = min(OFF_ROW, waiting - row * OFF_ROW)
    along = (col - (in_row - 1) / 2) * C_OFF_STEP
    out = C_OFF_DEPTH / 2 + row * C_OFF_STEP
    return (mid[0] + t[0] * along + n[0] * out, mid[1] + t[1] * along + n[1] * out)


def _moved(p: Point, dx: float, dy: float) -> Point:
    return (p[0] + dx, p[1] + dy)


# --- labels --------------------------------------------------------------------------------


def _wrap(title: str, width: float) -> list[str]:
    """Greedy wrap after spaces and hyphens ("Maggots-" / "Becketts-Chapel")."""
    lines: list[str] = []
    for word in re.findall(r"[^ -]+[ -]*", title):
        if lines and text_width((lines[-1] + word).rstrip(), TEXT_PX, True) <= width:
            lines[-1] += word
        else:
            lines.append(word)
    return [line.rstrip() for line in lines]


def _corner_text(sec: Section) -> tuple[str, tuple[float, float]]:
    assert sec.corner is not None
    lines = _wrap(corner_title(sec), 230)
    name_w = max(text_width(t, TEXT_PX, True) for t in lines) + 16
    return "\n".join(lines), (max(name_w, CELL_W * sec.capacity), LINE_H * (len(lines) + 1))


def _section_text(sec: Section) -> str:
    return f"late brake {sec.late_brake.target}" if sec.late_brake is not None else ""


def _section_size(sec: Section) -> tuple[float, float]:
    w = text_width(str(sec.index), TEXT_PX, True) + 18
    if sec.late_brake is not None:
        w += text_width(_section_text(sec), TEXT_PX, True) + 16
    return w, LINE_H


CHIP_LINE = 28  # the line pitch of a chip on two lines


def _chip_variants(text: str, extra: float = 0) -> list[tuple[str, tuple[float, float]]]:
    """A chip's text on one line, then (narrower) on two and three, cut after ": ", ", " or
    " · " (a " · " at the end of a line is dropped) where the widest line is the shortest;
    `extra` is room for a symbol."""
    parts = re.findall(r".+?(?:: |, | · |$)", text)
    out: list[tuple[str, tuple[float, float]]] = [
        (text, (text_width(text, TEXT_PX, True) + 16 + extra, LINE_H - 2))
    ]
    for n in (2, 3):
        best: tuple[float, list[str]] | None = None
        for cuts in itertools.combinations(range(1, len(parts)), n - 1):
            bounds = (0, *cuts, len(parts))
            lines = ["".join(parts[a:b]).removesuffix(" · ").strip() for a, b in
                     itertools.pairwise(bounds)]  # fmt: skip
            w = max(text_width(t, TEXT_PX, True) for t in lines)
            if best is None or w < best[0]:
                best = (w, lines)
        if best is not None:
            out.append(("\n".join(best[1]), (best[0] + 16 + extra, n * CHIP_LINE + 8)))
    return out


def _traj_variants(t: catalog.Trajectory) -> list[tuple[str, tuple[float, float]]]:
    return _chip_variants(traj_text(t), TRAJ_SYMBOL)


# --- the static layout ---------------------------------------------------------------------


@dataclass(frozen=True)
class CloseupLayout:
    """Where a close-up draws things, on its 800 x 540 image: the window of sections (in
    travel order), the section it is centred on (lit when it is being activated), each
    section's outline and slot centres, the trajectory symbols, the run-off areas of its
    corners, the labels and their leader lines; `markers` holds the cars of one state."""

    track: str
    section: int
    sections: tuple[int, ...]
    quads: dict[int, Quad]
    slots: dict[int, tuple[Point, ...]]
    trajectories: dict[str, Point]
    bands: dict[int, Quad]
    stubs: tuple[Quad, Quad]
    labels: tuple[Label, ...]
    leaders: tuple[tuple[Point, Point], ...]
    turn: float  # degrees the data's direction was turned by
    markers: tuple[MarkerBox, ...] = ()


AREA: Box = (0, TOP_H, CLOSEUP_W, FOOT_Y)
BOUNDS: Box = (MARGIN, TOP_H + MARGIN, CLOSEUP_W - MARGIN, FOOT_Y - MARGIN)


def _spot_box(p: Point, size: float) -> Box:
    r = size / 2 + C_PAD
    return (p[0] - r, p[1] - r, p[0] + r, p[1] + r)


def _try(
    track: str, section: int, secs: tuple[int, ...], turn: float, lines: int = 1
) -> CloseupLayout | None:
    """The layout of this window turned by `turn` degrees from its chord, or None when the
    ribbon or one of its labels does not fit the frame. The chips of run-off costs and
    trajectories are tried on `lines` lines first (narrower, they leave room to the others),
    then on fewer, then on more."""
    tr = _track(track)
    rib = _ribbon(track, secs, math.radians(turn))
    bands = {
        i: _band(rib.quads[k]) for k, i in enumerate(secs) if tr.sections[i].off_track is not None
    }
    pts = [p for q in (*rib.quads, *rib.stubs, *bands.values()) for p in q]
    for k, i in enumerate(secs):  # and room for the labels, outside and inside
        sec = tr.sections[i]
        mid, n, _ = _frame(rib.quads[k])
        out: float = LINE_H + 2 * LABEL_GAP
        if sec.corner is not None:
            out = _corner_text(sec)[1][1] + 2 * LABEL_GAP
            if i in bands:
                out += C_OFF_DEPTH
        pts.append((mid[0] + n[0] * out, mid[1] + n[1] * out))
        if sec.trajectories:
            x, y = _bilinear(list(rib.quads[k]), 1, TRAJ_V)
            inside = C_TRAJ_R + LINE_H + 2 * LABEL_GAP
            pts.append((x - n[0] * inside, y - n[1] * inside))
    x0, y0, x1, y1 = _bbox(pts)
    room = (BOUNDS[2] - BOUNDS[0], BOUNDS[3] - BOUNDS[1])
    if x1 - x0 > room[0] or y1 - y0 > room[1]:
        return None
    dx = (AREA[0] + AREA[2]) / 2 - (x0 + x1) / 2
    dy = (AREA[1] + AREA[3]) / 2 - (y0 + y1) / 2

    def mq(q: Quad) -> Quad:
        return (_moved(q[0], dx, dy), _moved(q[1], dx, dy), _moved(q[2], dx, dy),
                _moved(q[3], dx, dy))  # fmt: skip

    quads = {i: mq(rib.quads[k]) for k, i in enumerate(secs)}
    slots = {i: tuple(_moved(p, dx, dy) for p in rib.slots[k]) for k, i in enumerate(secs)}
    bands = {i: mq(b) for i, b in bands.items()}
    stubs = (mq(rib.stubs[0]), mq(rib.stubs[1]))
    trajectories = {  # at the end of the section, just off its inner edge (clear of the slots)
        t.id: _bilinear(list(quads[i]), 1, TRAJ_V)
        for i in secs
        for t in tr.sections[i].trajectories
    }
    # obstacles: the ribbon, the run-off areas, every car spot, the trajectory symbols
    shapes = [_poly_shape(q) for q in (*quads.values(), *stubs, *bands.values())]
    shapes += [_Shape(_spot_box(p, C_MARKER)) for ps in slots.values() for p in ps]
    for i in bands:
        for waiting in range(1, OFF_ROW + 1):
            for k in range(waiting):
                shapes.append(_Shape(_spot_box(_off_spot(quads[i], k, waiting), C_MARKER)))
    r = C_TRAJ_R + 6
    shapes += [_Shape((x - r, y - r, x + r, y + r)) for x, y in trajectories.values()]
    labels: list[Label] = []
    leaders: list[tuple[Point, Point]] = []
    avoid: list[Box] = []

    def add(kind: str, variants: list[tuple[str, tuple[float, float]]], ref: str,
            anchor: Point, normal: Point, tangent: Point,
            mate: Box | None = None) -> Box | None:  # fmt: skip
        """Place a label, the first of its variants that fits."""
        if kind in ("offtrack", "trajectory"):
            variants = variants[lines - 1 :: -1] + variants[lines:]
        others = [b for b in avoid if b != mate]
        placed = None
        for variant, size in variants:
            placed = _place(size, anchor, normal, tangent, shapes, lambda b: True, others, BOUNDS)
            if placed is not None:
                text, box = variant, placed
                break
        if placed is None:
            return None
        labels.append(Label(kind, text, box, TEXT_PX, ref))
        shapes.append(_Shape(box))
        avoid.append(box)
        near = _nearest(box, anchor)
        if math.dist(near, anchor) > LEADER_MIN:
            leaders.append((anchor, near))
        return box

    order = sorted(secs, key=lambda i: (tr.sections[i].corner is None,
                                        tr.sections[i].late_brake is None, i))  # fmt: skip
    for i in order:
        sec = tr.sections[i]
        mid, n, t = _frame(quads[i])
        if sec.corner is not None:
            anchor = mid
            if i in bands:
                anchor = (mid[0] + n[0] * C_OFF_DEPTH, mid[1] + n[1] * C_OFF_DEPTH)
            block = add("corner", [_corner_text(sec)], str(i), anchor, n, t)
            if block is None:
                return None
            if i in bands:
                off = _chip_variants(off_text(sec))
                if add("offtrack", off, str(i), anchor, n, t, block) is None:
                    return None
        elif add("section", [(_section_text(sec), _section_size(sec))], str(i), mid, n,
                 t) is None:  # fmt: skip
            return None
    for i in secs:
        _, n, t = _frame(quads[i])
        for tj in tr.sections[i].trajectories:
            x, y = trajectories[tj.id]
            anchor = (x - n[0] * C_TRAJ_R, y - n[1] * C_TRAJ_R)
            if add("trajectory", _traj_variants(tj), tj.id, anchor, (-n[0], -n[1]),
                   t) is None:  # fmt: skip
                return None
    return CloseupLayout(track, section, secs, quads, slots, trajectories, bands, stubs,
                         tuple(labels), tuple(leaders), turn)  # fmt: skip


@cache
def _layout(track: str, section: int) -> CloseupLayout:
    """The largest window around `section` that fits, turned as little as possible."""
    n = _track(track).length
    for before, after in WINDOWS:
        if before + after + 1 > n:
            continue
        secs = _window(track, section, before, after)
        for turn in TURNS:
            for lines in (1, 2, 3):
                found = _try(track, section, secs, turn, lines)
                if found is not None:
                    return found
    raise ValueError(f"no close-up of section {section} fits")  # never with the two tracks


# --- cars ----------------------------------------------------------------------------------


def _car_spot(state: RF90State, lay: CloseupLayout, car: Car) -> tuple[Point, bool] | None:
    """Where a car's marker stands on the close-up (and whether it is off the track), or None
    when it is not in the window."""
    if not car.running or state.phase in ("setup", "qualifying"):
        return None
    if car.off_track:
        owner = _off_owner(state.track).get(car.section, car.section)
        if owner not in lay.bands:
            return None
        waiting = [
            c.id for c in state.cars if c.running and c.off_track and c.section == car.section
        ]
        return _off_spot(lay.quads[owner], waiting.index(car.id), len(waiting)), True
    if car.section not in lay.slots:
        return None
    cars = state.sections[car.section]
    if car.id not in cars:
        return None
    slot = cars.index(car.id)
    slots = lay.slots[car.section]
    if slot >= len(slots):  # over capacity: never in a legal state, still drawn
        x, y = slots[-1]
        return (x + 8 * (slot - len(slots) + 1), y), False
    return slots[slot], False


def _centre(state: RF90State, section: int | None) -> tuple[int, bool]:
    """The section the close-up shows and whether it is lit (being activated): `section`,
    else the state's activation; else the duel's, the car to play's, the leader's."""
    if section is not None:
        return section, True
    if state.activation is not None:
        return state.activation, True
    if state.duel is not None:
        return state.duel.section, False
    if state.pending is not None:
        return state.cars[state.pending.car].section, False
    lead = GAME.public_view(state).get("leader")
    if lead is not None:
        return state.cars[lead].section, False
    return 0, False


def closeup_layout(state: RF90State, section: int | None = None) -> CloseupLayout:
    """The close-up's layout for this state, with the box of every car marker drawn (badges
    and ring included)."""
    tr = _track(state)
    centre, _ = _centre(state, section)
    if not 0 <= centre < tr.length:
        raise ValueError(f"no section {centre} on {tr.name}")
    lay = _layout(tr.id, centre)
    markers = []
    for car in state.cars:
        spot = _car_spot(state, lay, car)
        if spot is not None:
            markers.append(MarkerBox(car.id, "off" if spot[1] else "track",
                                     _spot_box(spot[0], C_MARKER)))  # fmt: skip
    return CloseupLayout(**{**lay.__dict__, "markers": tuple(markers)})
