"""Where the track image puts its texts: the header band (the game turn, the section activated,
the weather, who is to play, the winner), the labels around the track (corner blocks with their
duel modifiers, run-off costs, section numbers, late brake targets, trajectory labels), placed
once per track by the label search; the infield (title, car list, weather), the game turn
indicator strip and the legend at fixed places; and `track_layout(state)`, every label and
car marker of one image with the box it covers."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from renderer.common import (
    displayable,
    ellipsize,
    text_width,
)
from renderer.rf90_base import (
    BAND_H,
    BAND_PX,
    CHIP_PX,
    CHIT,
    LEADER_MIN,
    LIST_MARKER,
    LIST_PX,
    MARKER,
    NAME_PX,
    OFF_DEPTH,
    OFF_MARKER,
    OFF_ROW,
    STRIP_H,
    STRIP_PX,
    TEXT_PX,
    TITLE_PX,
    TRAJ_CHIP_SYMBOL,
    Box,
    H,
    Label,
    Layout,
    MarkerBox,
    Point,
    PxPoint,
    W,
    _bbox,
    _corners,
    _footprint,
    _frame,
    _grow,
    _inner,
    _inside,
    _nearest,
    _off_spot,
    _place,
    _poly_shape,
    _polys,
    _Shape,
    _slots,
    _track,
    _traj_xy,
    car_xy,
    corner_title,
    cost_text,
    game_turn_text,
    weather_text,
)
from rules.rf90 import GAME, catalog
from rules.rf90.catalog import Section, Track
from rules.rf90.engine import fuel_chit
from rules.rf90.state import Car, RF90State

# --- static labels -----------------------------------------------------------------------


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


def off_text(sec: Section) -> str:
    """What leaving the track at a corner costs, e.g. "off: 2 tyres, 1 dmg"."""
    if sec.off_track is None:
        return ""
    c = sec.off_track.cost
    return "off: " + cost_text(c.tyres, c.damage, c.cards)


def _corner_variants(sec: Section) -> list[tuple[str, tuple[float, float]]]:
    """A corner block's title lines (joined by newlines) and size: on one line if it fits
    CORNER_LINE_W, else wrapped; then, narrower, the section number on a line of its own
    above the name."""
    assert sec.corner is not None
    title = corner_title(sec)
    options = [_wrap_title(title, CORNER_LINE_W)]
    narrow = [str(sec.index), *_wrap_title(title.split(" · ", 1)[1], CORNER_NAME_W)]
    if narrow != options[0]:
        options.append(narrow)
    out: list[tuple[str, tuple[float, float]]] = []
    for lines in options:
        name_w = max(text_width(t, NAME_PX, True) for t in lines) + 16
        size = (max(name_w, CELL_W * len(sec.corner.duel_modifiers)), ROW_H * (len(lines) + 1))
        out.append(("\n".join(lines), size))
    return out


def _off_variants(sec: Section) -> list[tuple[str, tuple[float, float]]]:
    """A run-off cost chip on one line, or on two ("off:" above the cost) where that fits."""
    one = off_text(sec)
    two = one.replace(": ", ":\n", 1)
    return [
        (one, (text_width(one, CHIP_PX, True) + 16, ROW_H - 4)),
        (two, (max(text_width(t, CHIP_PX, True) for t in two.split("\n")) + 16, 2 * ROW_H - 12)),
    ]


def _section_size(sec: Section) -> tuple[float, float]:
    w = text_width(str(sec.index), NAME_PX, True) + 18
    if sec.late_brake is not None:
        w += text_width(f"late brake {sec.late_brake.target}", CHIP_PX, True) + 16
    return w, ROW_H


def traj_text(t: catalog.Trajectory) -> str:
    """A trajectory's bonus, cost and check target, e.g. "+2 · 1 tyre", "+2 · check 50"."""
    bits = [f"+{t.bonus}"]
    cost = cost_text(t.cost.tyres, t.cost.damage, t.cost.cards)
    if cost:
        bits.append(cost)
    if t.target is not None:
        bits.append(f"check {t.target}")
    return " · ".join(bits)


def _traj_size(t: catalog.Trajectory) -> tuple[float, float]:
    """A trajectory label: its symbol (shape and colours, as on the track) and its text."""
    return text_width(traj_text(t), CHIP_PX, True) + 16 + TRAJ_CHIP_SYMBOL, ROW_H - 4


# --- infield panels (title, car list, weather) ----------------------------------------------


@cache
def _infield_frame(track_name: str) -> Box:
    """The infield's area kept for the title, the car list and the weather: the
    infield less a band along its edge for the trajectory labels."""
    x0, y0, x1, y1 = _bbox(_inner(track_name))
    return (x0 + 124, y0 + 60, x1 - 124, y1 - 60)


WEATHER_CELL = 96
LIST_COLS = 3
LIST_ROWS = 4
LIST_ROW_H = 38
INFIELD_H = 380  # the height of the infield's contents, centred in the frame


@dataclass(frozen=True)
class _Infield:
    """Centres of the infield's texts (the widest, the car list, in the middle, where the
    infield is widest; the others centred, clear of the infield's cut corners)."""

    title: Point
    subtitle: Point
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
        list_origin=(x0, top + 100),
        list_col_w=(x1 - x0) / LIST_COLS,
        weather_head=(cx, top + 284),
        weather_cells=(cx - n * WEATHER_CELL / 2, top + 308),
    )


def _text_box(xy: Point, text: str, size: int, bold: bool = False) -> Box:
    """Box of a text drawn with anchor 'lm' at `xy`."""
    return (xy[0], xy[1] - size * 0.72, xy[0] + text_width(text, size, bold), xy[1] + size * 0.72)


def _ctext_box(xy: Point, text: str, size: int, bold: bool = False) -> Box:
    """Box of a text drawn with anchor 'mm' at `xy`."""
    half = text_width(text, size, bold) / 2
    return (xy[0] - half, xy[1] - size * 0.72, xy[0] + half, xy[1] + size * 0.72)


def _subtitle(tr: Track) -> str:
    return (f"{tr.race_turns} game turns · {tr.laps} laps · pit stop: {tr.pit_sections} "
            "sections back")  # fmt: skip


def _weather_cell_box(track_name: str, i: int) -> Box:
    x, y = _infield(track_name).weather_cells
    return (x + i * WEATHER_CELL, y, x + (i + 1) * WEATHER_CELL - 4, y + 42)


@cache
def _infield_reserved(track_name: str) -> tuple[Box, ...]:
    """Boxes the dynamic infield texts may take (car list, weather, its pawn): kept free of
    the trajectory labels."""
    f = _infield(track_name)
    x0, _, x1, _ = _infield_frame(track_name)
    cx = (x0 + x1) / 2
    cells = _weather_cell_box(track_name, len(catalog.tables().weather.spaces) - 1)
    return (
        (x0, f.list_origin[1], x1, f.list_origin[1] + LIST_ROWS * LIST_ROW_H),
        (cx - 280, f.weather_head[1] - 19, cx + 280, f.weather_head[1] + 19),
        (f.weather_cells[0] - 4, cells[1] - 4, cells[2] + 4, cells[3] + 28),
    )


# --- the game turn strip and the legend, below the track ----------------------------------

STRIP_LEFT = 150  # room for "Game turn" on the left
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
    ("sharp", "Sharp: +MP for tyres, dmg, cards"),
    ("extreme", "Extreme: +MP, check target"),
    ("brake", "Late brake line: check target"),
    ("off", "Run-off: off-track cars wait, off: cost"),
    ("curve", "Curve: duel modifiers, front slot first"),
    ("braking", "Braking zone (chevrons)"),
    ("player", "Player car (seat number)"),
    ("robot", "Robot: X SuperFast, F Fast, S Slow"),
    ("L", "Leader token"),
    ("ok", "Played this game turn"),
    ("II", "Skipped this game turn"),
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
def _static_layout(track_name: str, race_turns: int) -> _StaticLayout:
    """Every static label of a track image, placed once: the infield texts, the strip and the
    legend at fixed places; the corner blocks, section numbers and trajectory labels by a
    search that keeps them off the track, off every car spot and off each other."""
    tr = catalog.track(track_name, race_turns)
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
    labels.append(Label("strip", "Game turn", _text_box((12, TURN_ROW_Y + TURN_ROW_H / 2),
                                                        "Game turn", STRIP_PX, True),
                        STRIP_PX))  # fmt: skip
    labels.append(Label("strip", "Fuel", _text_box((12, CHIT_Y + 20), "Fuel", STRIP_PX, True),
                        STRIP_PX))  # fmt: skip
    for k, (a, b) in enumerate(_stage_spans(tr)):
        labels.append(Label("strip", f"Stage {k + 1}", (a, STAGE_Y, b - 2, STAGE_Y + STAGE_H),
                            STRIP_PX))  # fmt: skip
    for turn in range(1, tr.race_turns + 1):
        x0 = STRIP_LEFT + (turn - 1) * cw
        labels.append(Label("turn", str(turn), (x0, TURN_ROW_Y, x0 + cw - 2,
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
                add("offtrack", _off_variants(sec), CHIP_PX, str(sec.index),
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
            add("trajectory", [(traj_text(tj), _traj_size(tj))], CHIP_PX, tj.id, anchor,
                (-n[0], -n[1]), t, infield)  # fmt: skip
    return _StaticLayout(tuple(labels), tuple(leaders), tuple(spots))


# --- the dynamic layout ------------------------------------------------------------------


def _weather_head(state: RF90State) -> str:
    return f"Weather: {weather_text(state)[0]}"


# the header band: two lines of BAND_PX (12 px on a phone), the weather in a chip on the first
BAND_PAD = 28
BAND_LINE1 = BAND_H * 0.27  # centre of the first line
BAND_LINE2 = BAND_H * 0.74
BAND_CHIP_H = 72
BAND_DISC = 58  # the colour disc of the car the second line names


@dataclass(frozen=True)
class Band:
    """The header band of one image: the game turn (and the stage and the section activated),
    the weather in a chip, and what happens (the car to play, a duel, the leader, the winner)
    after the colour disc of the car it names. Texts are drawn with anchor 'lm' at their
    point; `boxes` are what they cover."""

    head: str
    head_xy: Point
    weather: str
    weather_rgb: tuple[int, int, int]
    chip: Box
    sub: str
    sub_xy: Point
    car: Car | None
    disc: PxPoint
    boxes: tuple[Box, Box, Box]  # the head, the chip, the sub line


def race_status(state: RF90State) -> tuple[str, Car | None]:
    """What happens, and the car it names: the winner, a duel, the car to play, the leader or
    the pole sitter (e.g. "To play: Alice")."""
    tr = _track(state)
    if state.phase == "finished":
        order = GAME.race_classification(state)
        if order and order[0].running:
            return f"Winner: {order[0].name}", order[0]
        return "No car finished", None
    if state.duel is not None:
        sec = tr.sections[state.duel.section]
        where = corner_title(sec) if sec.corner else f"section {sec.index}"
        return f"Duel at {where}", None
    if state.pending is not None:
        car = state.cars[state.pending.car]
        return f"To play: {car.name}", car
    if state.phase == "race":
        lead = GAME.public_view(state).get("leader")
        if lead is not None:
            return f"Leader: {state.cars[lead].name}", state.cars[lead]
    if state.phase == "start" and state.grid_order:
        pole = state.cars[state.grid_order[0]]
        return f"Pole: {pole.name}", pole
    return "", None


def race_head(state: RF90State, active_section: int | None = None) -> str:
    """Where the race is, e.g. "Game turn 11/27 · stage 2 · section 21": the section is
    `active_section`, by default the one whose activation is in progress."""
    if active_section is None:
        active_section = state.activation
    head = game_turn_text(state)
    if state.phase == "race":
        head += f" · stage {_track(state).stage(state.turn)}"
    if active_section is not None:
        head += f" · section {active_section}"
    return head


def band(state: RF90State, active_section: int | None = None) -> Band:
    """The header band of the track image of this state (lit on `active_section`, by default
    the section whose activation is in progress)."""
    head = race_head(state, active_section)
    weather, rgb = weather_text(state)
    cw = text_width(weather, BAND_PX, True) + 36
    chip = (W - BAND_PAD - cw, BAND_LINE1 - BAND_CHIP_H / 2, W - BAND_PAD,
            BAND_LINE1 + BAND_CHIP_H / 2)  # fmt: skip
    head = _fit(head, BAND_PX, chip[0] - 2 * BAND_PAD, bold=True)
    head_xy = (BAND_PAD, BAND_LINE1)
    sub, car = race_status(state)
    x = BAND_PAD
    disc = (round(x + BAND_DISC / 2), round(BAND_LINE2))
    if car is not None:
        x += BAND_DISC + 18
    sub = _fit(sub, BAND_PX, W - BAND_PAD - x)
    sub_xy = (x, BAND_LINE2)
    boxes = (_text_box(head_xy, head, BAND_PX, True), chip, _text_box(sub_xy, sub, BAND_PX))
    return Band(head, head_xy, weather, rgb, chip, sub, sub_xy, car, disc, boxes)


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


def _fit(text: str, size: int, room: float, bold: bool = False) -> str:
    return ellipsize(displayable(text), size, room, bold)


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


def track_layout(state: RF90State, active_section: int | None = None) -> Layout:
    """Every text label and every car marker the track image of this state draws, with the
    box each covers (markers with their badges), and the leader lines."""
    st = _static_layout(state.track, _track(state).race_turns)
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
    b = band(state, active_section)
    for text, box in zip((b.head, b.weather, b.sub), b.boxes, strict=True):
        if text:
            labels.append(Label("header", text, box, BAND_PX))
    if b.car is not None:
        h = BAND_DISC / 2
        markers.append(MarkerBox(b.car.id, "band", (b.disc[0] - h, b.disc[1] - h,
                                                    b.disc[0] + h, b.disc[1] + h)))  # fmt: skip
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
