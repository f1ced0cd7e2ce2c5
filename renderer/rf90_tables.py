"""Race! Formula 90 tables for a phone, which shows them about 400 px wide: both are 800 px
wide with no text under 24 px (12 px on the phone), on the dark theme of the cockpit.

- `render_dashboards(state)`: where the race is (the game turn, the section activated, the
  weather, who is to play or the winner), then one panel per car in race order: a player's car
  with its tyres and chips, blue discs, damage discs, fuel, strategy, skill, target check, the
  number of cards in hand (never the cards) and pit stops; a robot, or a car out of the race,
  as one compact row; and a legend of the discs (red and brown damage, blue discs).
- `render_classification(state)`: the final order, each car with its status, laps and pit
  stops (and the game turn it went out).

`dashboard_texts` and `classification_texts` list every text drawn, with its size and box."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_FG,
    OUTLINE_DARK,
    RGB,
    TITLE_BG,
    MarkerShape,
    car_marker,
    counted,
    draw_text,
    palette_reference,
    text_width,
    to_png,
    wrap_text,
)
from renderer.rf90_base import (
    BLUE_DISC,
    BRAKE_RED,
    BROWN_DISC,
    DARK_BG,
    DARK_FG,
    DARK_HEAD,
    DARK_MUTED,
    DARK_PANEL,
    TYRE_RGB,
    WEATHER_RGB,
    DrawnText,
    PxPoint,
    TextLog,
    _track,
    car_colour_name,
    car_label,
    draw_discs,
    phone_px,
    weather_text,
)
from renderer.rf90_track_layout import race_head, race_status
from rules.rf90 import GAME, catalog
from rules.rf90.engine import damage_capacity, fuel_chit
from rules.rf90.state import Car, RF90State

DASH_W = 800
TEXT_PX = phone_px(DASH_W)  # 24 px: 12 px on a phone
NAME_PX = 28
PAD = 16
TITLE_H = 108
GAP = 8  # between panels
HEAD_H = 56  # a player's panel: its header (marker, name, place)
ROW_H = 38  # and each of its rows
ROWS = 4
PANEL_H = HEAD_H + ROWS * ROW_H + 8
COMPACT_H = 58  # a robot's row, or a car out of the race
MARKER_D = 48  # car markers: their labels are drawn at 24-25 px
LEGEND_H = 2 * ROW_H + 16  # the discs; then the race's notes, a line each
OUT_FG: RGB = (255, 128, 128)
# the second column of a player's panel starts here
COL2 = DASH_W // 2 + 8

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
    out_turn: int | None
    tyre: str | None
    chips: int
    blue: int
    damage_red: int
    damage_brown: int
    damage_capacity: int
    fuel_turn: int  # the game turn the car must refuel by (0: none set)
    fuel_to_finish: bool  # its fuel lasts past the last game turn
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
    """The data drawn on the dashboards (one row per car, in car order), built from the
    public view (a hand is a count). `place`: the car's place in the race (running cars), or
    on the grid before the start."""
    view = GAME.public_view(state)
    if state.phase in ("race", "finished"):
        order = GAME.race_classification(state)
        place = {c.id: i + 1 for i, c in enumerate(order) if c.running}
    else:
        place = {c: i + 1 for i, c in enumerate(state.grid_order)}
    strategies, skills = _names()
    cards = catalog.cards(state.track)
    rows = []
    for vc, car in zip(view["cars"], state.cars, strict=True):
        fuel = int(vc["fuel_turn"])
        over = bool(fuel) and fuel_chit(state, car)[1]
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
                out_turn=vc["out_turn"],
                tyre=vc["tyre"],
                chips=vc["chips"],
                blue=vc["blue"],
                damage_red=vc["damage_red"],
                damage_brown=vc["damage_brown"],
                damage_capacity=damage_capacity(car),
                fuel_turn=fuel,
                fuel_to_finish=over,
                strategy=strategies.get(vc["strategy"], vc["strategy"]),
                skill=skills.get(vc["skill"], vc["skill"]),
                hand_count=int(vc["hand"]),
                pit_stops=vc["pit_stops"],
                target_check=target,
                place=place.get(car.id),
            )
        )
    return rows


def _compact(row: DashRow) -> bool:
    return row.robot is not None or row.status != "running"


def dashboard_layout(rows: list[DashRow], notes: int = 0) -> tuple[list[PxPoint], int, int]:
    """Top-left corner of each car's panel (indexed by car), and the image's size: the panels
    in race order (`place`: in the race, or on the grid; cars out of the race last, in the
    order given), then `notes` lines about the race and the legend of the discs."""
    order = sorted(rows, key=lambda r: (r.place is None, r.place or 0))
    corners: list[PxPoint] = [(0, 0)] * len(rows)
    y = TITLE_H + PAD
    for r in order:
        corners[r.car] = (PAD, y)
        y += (COMPACT_H if _compact(r) else PANEL_H) + GAP
    return corners, DASH_W, y + notes * ROW_H + LEGEND_H


def _status(row: DashRow) -> str:
    out = f" (game turn {row.out_turn})" if row.out_turn else ""
    return f"{row.status}{out}"


class _Painter:
    """Draws the texts of a table image and records each (`TextLog`), with the x after it."""

    def __init__(self, draw: ImageDraw.ImageDraw, log: TextLog) -> None:
        self.draw = draw
        self.log = log

    def text(
        self,
        x: float,
        y: float,
        text: str,
        fill: RGB = DARK_FG,
        *,
        bold: bool = False,
        size: int = TEXT_PX,
        anchor: str = "lm",
        room: float | None = None,
    ) -> float:
        drawn = self.log.text(self.draw, (x, y), text, size, fill, bold=bold, anchor=anchor,
                              max_width=room)  # fmt: skip
        return x + text_width(drawn, size, bold)


def _panel(p: _Painter, state: RF90State, row: DashRow, x: int, y: int) -> None:
    """A player's car: header (marker, name, place), then two columns of four rows."""
    draw = p.draw
    right = DASH_W - PAD
    draw.rounded_rectangle((x, y, right, y + PANEL_H), radius=12, fill=DARK_PANEL)
    draw.rounded_rectangle((x, y, right, y + HEAD_H), radius=12, fill=DARK_HEAD)
    draw.rectangle((x, y + HEAD_H - 12, right, y + HEAD_H), fill=DARK_HEAD)
    cy = y + HEAD_H / 2
    p.log.car(draw, state, state.cars[row.car], (x + 12 + MARKER_D // 2, round(cy)), MARKER_D)
    place = f"P{row.place}" if row.place else ""
    pw = text_width(place, NAME_PX, True)
    p.text(right - 14, cy, place, bold=True, size=NAME_PX, anchor="rm")
    nx = x + 24 + MARKER_D
    p.text(nx, cy, row.name, bold=True, size=NAME_PX, room=right - 14 - pw - 20 - nx)
    left, mid = x + 16, COL2
    room = mid - left - 20  # what the first column may take
    ys = [y + HEAD_H + ROW_H * k + ROW_H / 2 + 2 for k in range(ROWS)]
    # tyres and chips | blue discs
    tx: float = left
    if row.tyre:
        tyre = row.tyre.capitalize()
        tw = text_width(tyre, TEXT_PX, True) + 20
        draw.rounded_rectangle((tx, ys[0] - 16, tx + tw, ys[0] + 16), radius=8,
                               fill=TYRE_RGB.get(row.tyre, DARK_MUTED))  # fmt: skip
        ink = (24, 26, 31) if row.tyre == "hard" else (255, 255, 255)
        p.text(tx + tw / 2, ys[0], tyre, ink, bold=True, anchor="mm")
        tx += tw + 12
        p.text(tx, ys[0], counted(row.chips, "chip"), bold=True, room=left + room - tx)
    else:
        p.text(tx, ys[0], "Tyres not chosen yet", DARK_MUTED, room=room)
    bx = p.text(mid, ys[0], "Blue discs", DARK_MUTED) + 12
    if row.blue:
        bx = draw_discs(draw, bx, ys[0], [BLUE_DISC] * row.blue)
        p.text(bx + 2, ys[0], str(row.blue), bold=True)
    else:
        p.text(bx, ys[0], "none", bold=True)
    # damage discs | fuel
    dx = p.text(left, ys[1], "Damage", DARK_MUTED) + 12
    fills: list[RGB | None] = [BRAKE_RED] * row.damage_red
    fills += [BROWN_DISC] * row.damage_brown
    fills += [None] * max(0, row.damage_capacity - len(fills))
    dx = draw_discs(draw, dx, ys[1], fills)
    p.text(dx + 2, ys[1], f"{row.damage_red + row.damage_brown}/{row.damage_capacity}",
           bold=True)  # fmt: skip
    if row.fuel_turn:
        fuel = f"Refuel by game turn {row.fuel_turn}"
        if row.fuel_to_finish:
            fuel = "Fuel to the finish"
        p.text(mid, ys[1], fuel, bold=True)
    else:
        p.text(mid, ys[1], "No fuel chit yet", DARK_MUTED)
    # strategy | skill
    sx = p.text(left, ys[2], "Strategy", DARK_MUTED) + 12
    p.text(sx, ys[2], row.strategy or "none", bold=True, room=left + room - sx)
    kx = p.text(mid, ys[2], "Skill", DARK_MUTED) + 12
    p.text(kx, ys[2], row.skill or "none", bold=True, room=right - 14 - kx)
    # target check | cards in hand and pit stops
    cx = p.text(left, ys[3], "Target check", DARK_MUTED) + 12
    p.text(cx, ys[3], str(row.target_check) if row.target_check is not None else "-", bold=True)
    hand = f"{counted(row.hand_count, 'card')} · {counted(row.pit_stops, 'pit stop')}"
    p.text(mid, ys[3], hand, bold=True, room=right - 14 - mid)


def _compact_row(p: _Painter, state: RF90State, row: DashRow, x: int, y: int) -> None:
    """A robot, or a car out of the race: marker, name, tyres and pit stops (or its status),
    place."""
    draw = p.draw
    right = DASH_W - PAD
    draw.rounded_rectangle((x, y, right, y + COMPACT_H), radius=12, fill=DARK_PANEL)
    cy = y + COMPACT_H / 2
    p.log.car(draw, state, state.cars[row.car], (x + 12 + MARKER_D // 2, round(cy)), MARKER_D)
    out = row.status != "running"
    end: float = right - 14
    if row.place and not out:
        end -= text_width(f"P{row.place}", NAME_PX, True) + 20
        p.text(right - 14, cy, f"P{row.place}", bold=True, size=NAME_PX, anchor="rm")
    nx = x + 24 + MARKER_D
    if out:
        detail = _status(row)
    else:
        bits = [f"{(row.tyre or '-').capitalize()} tyres", counted(row.pit_stops, "pit stop")]
        damage = row.damage_red + row.damage_brown
        if damage:
            bits.append(f"{damage} dmg")
        detail = " · ".join(bits)
    dw = text_width(detail, TEXT_PX)
    name_room = max(120.0, end - nx - dw - 24)
    tx = p.text(nx, cy, row.name, bold=True, room=name_room) + 24
    p.text(tx, cy, detail, OUT_FG if out else DARK_MUTED, room=end - tx)


def _title(p: _Painter, state: RF90State, width: int) -> None:
    """Where the race is and the weather; what happens, and the circuit."""
    draw = p.draw
    draw.rectangle((0, 0, width, TITLE_H), fill=DARK_HEAD)
    draw.rectangle((0, TITLE_H - 4, width, TITLE_H), fill=TITLE_BG)
    weather, rgb = weather_text(state)
    ww = text_width(weather, TEXT_PX, True) + 24
    y1, y2 = 32, 76
    draw.rounded_rectangle((width - PAD - ww, y1 - 18, width - PAD, y1 + 18), radius=8, fill=rgb)
    fg = (255, 255, 255) if weather.startswith("Rain") else (24, 26, 31)
    p.text(width - PAD - ww / 2, y1, weather, fg, bold=True, anchor="mm")
    p.text(PAD, y1, race_head(state), bold=True, size=NAME_PX, room=width - 3 * PAD - ww)
    status, car = race_status(state)
    place = state.track.capitalize()
    cw = text_width(place, TEXT_PX)
    p.text(width - PAD, y2, place, DARK_MUTED, anchor="rm")
    x = PAD
    if car is not None:  # the car's colour, with no number: its name follows
        shape: MarkerShape = "rounded" if car.is_robot else "circle"
        car_marker(draw, (x + 15, y2), car_colour_name(car), "", 30, shape=shape)
        x += 42
    if status:
        p.text(x, y2, status, room=width - PAD - cw - 24 - x)


ROBOT_NAMES = {"superfast": "SuperFast", "fast": "Fast", "slow": "Slow"}


def race_notes(state: RF90State) -> list[str]:
    """Lines about the race, below the cars: the game turns the robots' pit tokens stand on
    (the best-placed robot of the type that has not pitted stops then), and the circuit."""
    tr = _track(state)
    turns: dict[int, list[str]] = {}
    for t in sorted(state.robot_tokens, key=lambda t: (t.turn, t.robot)):
        if not t.done:
            turns.setdefault(t.turn, []).append(ROBOT_NAMES[t.robot])
    lines = []
    if turns:
        text = "Robots pit on game turn " + ", ".join(
            f"{n} ({', '.join(kinds)})" for n, kinds in turns.items()
        )
        lines += wrap_text(text, TEXT_PX, DASH_W - 2 * PAD, 2)
    lines.append(f"{state.track.capitalize()}: {counted(tr.race_turns, 'game turn')} · pit "
                 f"stop: {tr.pit_sections} sections back")  # fmt: skip
    return lines


def _legend(p: _Painter, y: int) -> None:
    """The discs: red and brown damage, blue discs."""
    check = catalog.tables().damage_effects.check_per_brown
    cy = y + ROW_H / 2 + 4
    x = draw_discs(p.draw, PAD, cy, [BRAKE_RED]) + 4
    x = p.text(x, cy, "temporary damage", DARK_MUTED) + 28
    x = draw_discs(p.draw, x, cy, [BROWN_DISC]) + 4
    p.text(x, cy, f"permanent damage, -{check} to checks", DARK_MUTED)
    cy += ROW_H
    x = draw_discs(p.draw, PAD, cy, [BLUE_DISC]) + 4
    p.text(x, cy, "blue disc: +1 MP, one a game turn", DARK_MUTED)


def _dashboards(state: RF90State) -> tuple[Image.Image, TextLog]:
    rows = dashboard_rows(state)
    notes = race_notes(state)
    corners, width, height = dashboard_layout(rows, len(notes))
    img = Image.new("RGB", (width, height), DARK_BG)
    draw = ImageDraw.Draw(img)
    log = TextLog()
    p = _Painter(draw, log)
    _title(p, state, width)
    for row, (x, y) in zip(rows, corners, strict=True):
        if _compact(row):
            _compact_row(p, state, row, x, y)
        else:
            _panel(p, state, row, x, y)
    y = height - LEGEND_H - len(notes) * ROW_H
    for k, line in enumerate(notes):
        p.text(PAD, y + ROW_H * k + ROW_H / 2 + 4, line, DARK_MUTED)
    _legend(p, height - LEGEND_H)
    return img, log


@cache
def _reference() -> Image.Image:
    """The PNG palette of the dashboards and the classification, made once from a fixed
    sample (the texts on each ground, tyres, weather, discs) plus every car colour: an image
    is then only mapped to it (no octree per image), and the same state always gives the
    same bytes."""
    grounds = (DARK_BG, DARK_PANEL, DARK_HEAD)
    inks = (DARK_FG, DARK_MUTED, OUT_FG)
    sample = Image.new("RGB", (DASH_W, len(grounds) * len(inks) * ROW_H + 2 * ROW_H), DARK_BG)
    draw = ImageDraw.Draw(sample)
    y = 0
    for ground in grounds:
        for ink in inks:
            draw.rectangle((0, y, DASH_W, y + ROW_H), fill=ground)
            draw_text(draw, (PAD, y + ROW_H / 2), "Refuel by game turn 12", TEXT_PX, ink,
                      bold=True, anchor="lm")  # fmt: skip
            draw_text(draw, (330, y + ROW_H / 2), "Target check 94 · 9 cards", TEXT_PX, ink,
                      anchor="lm")  # fmt: skip
            draw_discs(draw, 640, y + ROW_H / 2, [BRAKE_RED, BROWN_DISC, BLUE_DISC, None])
            y += ROW_H
    x = 0
    for fill in (*TYRE_RGB.values(), *WEATHER_RGB.values(), TITLE_BG):
        draw.rounded_rectangle((x, y + 4, x + 80, y + ROW_H - 4), radius=8, fill=fill)
        for ink in ((255, 255, 255), (24, 26, 31)):
            draw_text(draw, (x + 8, y + ROW_H / 2), "Wet", TEXT_PX, ink, bold=True, anchor="lm")
        x += 80
    extra: list[RGB] = [*grounds, *inks, BRAKE_RED, BROWN_DISC, BLUE_DISC, TITLE_BG, HEADER_FG,
                        (255, 255, 255), (24, 26, 31), (0, 0, 0), OUTLINE_DARK,
                        *TYRE_RGB.values(), *WEATHER_RGB.values()]  # fmt: skip
    return palette_reference(sample, 180, extra, dark_rings=True)


def render_dashboards(state: RF90State) -> bytes:
    """Where the race is, one panel per car in race order (a robot or a car out of the race
    as a compact row), and a legend of the discs; 800 px wide."""
    return to_png(_dashboards(state)[0], reference=_reference())


def dashboard_texts(state: RF90State) -> list[DrawnText]:
    """Every text `render_dashboards(state)` draws, with its size and box."""
    return list(_dashboards(state)[1])


# --- classification ----------------------------------------------------------------------

CLASS_W = 800
CLASS_TITLE_H = 108
CLASS_ROW_H = 84  # two lines: the name and the laps; the status and pit stops


def classification_rows(state: RF90State) -> list[tuple[str, Car, str, str, str]]:
    """Each car in the final order: (place, car, status, laps, pit stops)."""
    rows = []
    for place, car in enumerate(GAME.race_classification(state), start=1):
        if car.running:
            status = "finished" if state.phase == "finished" else "running"
        else:
            status = car.status + (f" (game turn {car.out_turn})" if car.out_turn else "")
        rows.append((str(place), car, status, counted(car.lap, "lap"),
                     counted(car.pit_stops, "pit stop")))  # fmt: skip
    return rows


def _classification(state: RF90State) -> tuple[Image.Image, TextLog]:
    tr = _track(state)
    rows = classification_rows(state)
    height = CLASS_TITLE_H + PAD + len(rows) * (CLASS_ROW_H + 6) + PAD
    img = Image.new("RGB", (CLASS_W, height), DARK_BG)
    draw = ImageDraw.Draw(img)
    log = TextLog()
    p = _Painter(draw, log)
    draw.rectangle((0, 0, CLASS_W, CLASS_TITLE_H), fill=DARK_HEAD)
    draw.rectangle((0, CLASS_TITLE_H - 4, CLASS_W, CLASS_TITLE_H), fill=TITLE_BG)
    title = "Final classification" if state.phase == "finished" else "Classification"
    p.text(PAD, 32, title, bold=True, size=NAME_PX)
    p.text(PAD, 76, f"{tr.name} · {counted(state.turn, 'game turn')}", DARK_MUTED,
           room=CLASS_W - 2 * PAD)  # fmt: skip
    y = CLASS_TITLE_H + PAD
    right = CLASS_W - PAD
    for k, (place, car, status, laps, stops) in enumerate(rows):
        draw.rounded_rectangle((PAD, y, right, y + CLASS_ROW_H), radius=12,
                               fill=DARK_PANEL if k % 2 == 0 else DARK_HEAD)  # fmt: skip
        y1, y2 = y + 24, y + CLASS_ROW_H - 24
        p.text(PAD + 36, y + CLASS_ROW_H / 2, place, bold=True, size=NAME_PX, anchor="mm")
        p.log.car(draw, state, car, (PAD + 72 + MARKER_D // 2, y + CLASS_ROW_H // 2), MARKER_D)
        x = PAD + 84 + MARKER_D
        lw = text_width(laps, TEXT_PX, True)
        p.text(right - 16, y1, laps, bold=True, anchor="rm")
        p.text(x, y1, car.name, bold=True, room=right - 16 - lw - 24 - x)
        sw = text_width(stops, TEXT_PX)
        p.text(right - 16, y2, stops, DARK_MUTED, anchor="rm")
        p.text(x, y2, status, DARK_FG if car.running else OUT_FG, room=right - 16 - sw - 24 - x)
        y += CLASS_ROW_H + 6
    return img, log


def render_classification(state: RF90State) -> bytes:
    """The final order: each car with its status, laps and pit stops; 800 px wide."""
    return to_png(_classification(state)[0], reference=_reference())


def classification_texts(state: RF90State) -> list[DrawnText]:
    """Every text `render_classification(state)` draws, with its size and box."""
    return list(_classification(state)[1])
