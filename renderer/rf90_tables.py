"""Race! Formula 90 tables: `render_dashboards(state)` (one panel per car: tyres and chips, blue
discs, damage, fuel turn, strategy, skill, the number of cards in hand - never the cards) and
`render_classification(state)` (the final order with status and pit stops)."""

from __future__ import annotations

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
    draw_table,
    draw_text,
    table_height,
    to_png,
)
from renderer.rf90_base import (
    BRAKE_RED,
    PxPoint,
    _marker,
    _track,
    car_colour_name,
    car_label,
)
from rules.rf90 import GAME, catalog
from rules.rf90.engine import damage_capacity, fuel_chit
from rules.rf90.state import RF90State

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
