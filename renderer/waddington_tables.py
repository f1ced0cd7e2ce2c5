"""Waddington's Formula 1 tables: the board's dashboard rows and the final classification.

Both list the cars in race order (rule 56: running cars by distance, then retired ones) with
a position column. Statuses say what a car is doing during the race (running, in pits, spun,
retired, finished) and how it ended once the race is over (finished, on lap N when the race
ended before it crossed the line after its last lap, retired): never "running" after the
finish.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    INK,
    MUTED,
    PAPER,
    RGB,
    TITLE_BG,
    TITLE_FG,
    Cell,
    Column,
    TableLayout,
    TableStyle,
    counted,
    draw_table,
    draw_text,
    table_height,
    text_width,
    to_png,
    wrap_text,
)
from renderer.waddington_layout import car_label, circuit, draw_ring, marker, min_px
from rules.waddington import GAME
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, catalog
from rules.waddington.engine import lap_indicator
from rules.waddington.state import Car, WaddingtonState

STATUS_COLOURS: dict[str, RGB] = {
    "running": (20, 120, 50),
    "in pits": (20, 80, 200),
    "spun": (190, 90, 0),
    "retired": (200, 16, 46),
    "finished": INK,
    "on lap": (90, 96, 108),
}
WEAR_OK: RGB = (30, 130, 60)
WEAR_WARN: RGB = (200, 110, 0)
WEAR_BAD: RGB = (214, 26, 36)


def race_order(state: WaddingtonState) -> list[Car]:
    """Cars in race order (§N rule 56): running cars by distance, then retired ones."""
    return [state.cars[p.seat] for p in GAME.classification(state)]


def car_status(state: WaddingtonState, car: Car) -> str:
    """running / in pits / spun / retired / finished during the race; once it is over,
    finished / retired / on lap (the race ended before the car took the flag)."""
    if car.status == "retired":
        return "retired"
    if lap_indicator(state, car) == 0:
        return "finished"
    if state.over:
        return "on lap"
    if car.lane == PIT_LANE:
        return "in pits"
    if car.lane == VERGE_LANE or car.spun_at:
        return "spun"
    return "running"


def laps_done(state: WaddingtonState, car: Car) -> int:
    return min(car.dist // catalog().length, state.settings.laps)


def status_text(state: WaddingtonState, car: Car) -> str:
    """The status in a word or two, for a narrow column (the event lines give the details:
    turns lost in the pits, where a car spun, when it retired)."""
    status = car_status(state, car)
    return f"on lap {laps_done(state, car) + 1}" if status == "on lap" else status


def game_turn(state: WaddingtonState) -> str:
    """What the rules call a round: one turn for every car in the moving order."""
    return f"Game turn {state.round}"


def laps_text(laps: int) -> str:
    return counted(laps, "lap")


def driver_name(car: Car, names: dict[int, str] | None = None) -> str:
    name = (names or {}).get(car.seat, car.name)
    if car.robot and "robot" not in name.lower():
        name += " (robot)"
    return name


def _wear(value: int, limit: int) -> Cell:
    """The wear as x/limit, coloured green, amber from 60%, red when worn out."""
    colour = WEAR_BAD if value >= limit else WEAR_WARN if value >= limit * 0.6 else WEAR_OK
    return Cell(f"{value}/{limit}", fill=colour, bold=True)


# --- the board's dashboard ---------------------------------------------------------------


def _fit(texts: list[str], header: str, px: int, pad: int) -> int:
    """A column just wide enough for its header and its widest value (all bold)."""
    return round(max(text_width(t, px, True) for t in [header, *texts])) + 2 * pad + 2


TABLE_MARGIN = 8


@dataclass(frozen=True)
class Dashboard:
    columns: list[Column]
    style: TableStyle
    marker_size: int


@cache
def dashboard(width: int) -> Dashboard:
    """The board's table: every column sized for its header and widest value at the
    phone's minimum text size; the driver's name gets what is left."""
    px = min_px(width)
    style = TableStyle(
        row_height=round(px * 1.7),
        header_height=round(px * 1.5),
        font_size=px,
        header_font_size=px,
        padding=4,
    )
    pad = style.padding
    marker_size = round(px * 1.34)
    colours = [c.colour for c in catalog().race.cars]
    statuses = ["finished", "in pits", "retired", "on lap 9"]
    fixed = [
        Column("Pos", _fit(["8"], "Pos", px, pad), "center", bold=True),
        Column("", marker_size + 2 * pad),
        Column("Car", _fit(colours, "Car", px, pad)),
        Column("Driver", 0),
        Column("mph", _fit(["160"], "mph", px, pad), "right", bold=True),
        Column("Laps", _fit(["10"], "Laps", px, pad), "center", bold=True),
        Column("Tyres", _fit(["8/8"], "Tyres", px, pad), "center"),
        Column("Brakes", _fit(["5/5"], "Brakes", px, pad), "center"),
        Column("Cards", _fit(["5"], "Cards", px, pad), "center"),
        Column("Status", _fit(statuses, "Status", px, pad), bold=True),
    ]
    rest = width - 2 * TABLE_MARGIN - sum(c.width for c in fixed)
    fixed[3] = Column("Driver", rest)
    if rest < text_width("Robot 8", px):
        raise ValueError(f"a {width} px board leaves the drivers' names {rest} px")
    return Dashboard(fixed, style, marker_size)


def dash_rows(state: WaddingtonState) -> list[list[str | Cell]]:
    """One row per car in race order: position, marker, colour, driver, speed, laps to go,
    tyre and brake wear, Tactic cards in hand, status."""
    race = catalog().race
    rows: list[list[str | Cell]] = []
    for place, car in enumerate(race_order(state), start=1):
        status = car_status(state, car)
        rows.append(
            [
                str(place),
                "",
                car.colour,
                driver_name(car),
                str(car.speed),
                str(lap_indicator(state, car)),
                _wear(car.tyre, race.max_tyre_wear),
                _wear(car.brake, race.max_brake_wear),
                str(len(car.hand)),
                Cell(status_text(state, car), fill=STATUS_COLOURS[status], bold=True),
            ]
        )
    return rows


def dashboard_height(width: int, n_cars: int) -> int:
    return table_height(n_cars, dashboard(width).style)


def draw_dashboard(
    draw: ImageDraw.ImageDraw,
    state: WaddingtonState,
    width: int,
    top: int,
    highlight_seat: int | None,
) -> TableLayout:
    """The dashboard table at `top`; the car to move has the yellow ring there too."""
    dash = dashboard(width)
    px = dash.style.font_size
    layout = draw_table(draw, TABLE_MARGIN, top, dash.columns, dash_rows(state), dash.style)
    for r, car in enumerate(race_order(state)):
        left, t, right, bottom = layout.cell_box(r, 1)
        xy = ((left + right) // 2, (t + bottom) // 2)
        if car.seat == highlight_seat:
            draw_ring(draw, xy, dash.marker_size)
        marker(draw, xy, car.colour, car_label(car), dash.marker_size, px)
    return layout


# --- classification ----------------------------------------------------------------------

CLASS_WIDTH = 800
CLASS_PX = min_px(CLASS_WIDTH)
CLASS_MARGIN = 12
CLASS_TITLE = round(CLASS_PX * 4.9)  # three lines: the heading, the race, the circuit
CLASS_STYLE = TableStyle(
    row_height=round(CLASS_PX * 1.9),
    header_height=round(CLASS_PX * 1.5),
    font_size=CLASS_PX,
    header_font_size=CLASS_PX,
    padding=8,
)
CLASS_MARKER = round(CLASS_PX * 1.5)
CLASS_COLUMNS = [
    Column("Place", _fit(["8"], "Place", CLASS_PX, 8), "center", bold=True),
    Column("", CLASS_MARKER + 16),
    Column("Car", _fit([c.colour for c in catalog().race.cars], "Car", CLASS_PX, 8)),
    Column("Driver", 0),
    Column("Status", _fit(["finished", "on lap 10", "retired"], "Status", CLASS_PX, 8)),
    Column("Laps", _fit(["10/10"], "Laps", CLASS_PX, 8), "center", bold=True),
    Column("Gap", _fit(["+888 sq", "winner"], "Gap", CLASS_PX, 8), "right"),
]
CLASS_COLUMNS[3] = Column(
    "Driver", CLASS_WIDTH - 2 * CLASS_MARGIN - sum(c.width for c in CLASS_COLUMNS)
)


@dataclass(frozen=True)
class ClassLine:
    """One line of the classification, as drawn."""

    place: int
    seat: int
    status: str  # finished / on lap / retired (running / in pits / spun: race not over)
    status_text: str
    laps: str  # laps completed / race laps
    gap: str  # squares behind the leader ("" for the leader and retired cars)


def classification_lines(state: WaddingtonState) -> list[ClassLine]:
    """The classification's lines: place, status, laps completed out of the race's laps,
    and the gap to the leader in squares."""
    laps = state.settings.laps
    cars = race_order(state)
    lead = cars[0].dist if cars else 0
    out = []
    for place, car in enumerate(cars, start=1):
        status = car_status(state, car)
        behind = lead - car.dist
        if status == "retired":
            gap = ""
        elif place == 1:
            gap = "winner" if state.over else "leader"
        elif behind == 0:
            gap = "level"  # as far as the car ahead: placed by the moving order
        else:
            gap = f"+{behind} sq"
        out.append(
            ClassLine(
                place,
                car.seat,
                status,
                status_text(state, car),
                f"{laps_done(state, car)}/{laps}",
                gap,
            )
        )
    return out


def classification_order(state: WaddingtonState) -> list[Car]:
    """Cars in classification order (§N rule 56): running cars by distance, then retired."""
    return race_order(state)


def _class_table_top() -> int:
    return CLASS_TITLE + 12


def classification_marker_xy(place: int) -> tuple[int, int]:
    """Pixel centre of the car marker on the line of `place` (1-based) of the classification."""
    top = _class_table_top() + CLASS_STYLE.header_height + (place - 1) * CLASS_STYLE.row_height
    left = CLASS_MARGIN + CLASS_COLUMNS[0].width
    return (left + CLASS_COLUMNS[1].width // 2, top + CLASS_STYLE.row_height // 2)


CLASS_NOTE = (
    "Places: distance run (rule 56), retired cars last, the latest retirement first. "
    "Gap: squares (sq) behind the leader."
)


def render_classification(
    state: WaddingtonState, names: dict[int, str] | None = None, *, title: str | None = None
) -> bytes:
    """PNG of the classification: place, car, driver, status, laps and gap; `title` is the
    race's own name (a league round's, say), the circuit named as what it is."""
    px = CLASS_PX
    lines = classification_lines(state)
    cars = {c.seat: c for c in state.cars}
    note = wrap_text(CLASS_NOTE, px, CLASS_WIDTH - 2 * CLASS_MARGIN, 3)
    top = _class_table_top()
    height = top + table_height(len(lines), CLASS_STYLE) + 10 + len(note) * round(px * 1.3) + 10
    image = Image.new("RGB", (CLASS_WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, CLASS_WIDTH - 1, CLASS_TITLE - 1), fill=TITLE_BG)
    heading = "Classification" if state.over else "Classification (provisional)"
    room = CLASS_WIDTH - 2 * CLASS_MARGIN
    draw_text(
        draw,
        (CLASS_MARGIN, px * 1.05),
        heading,
        round(px * 1.25),
        TITLE_FG,
        bold=True,
        anchor="lm",
        max_width=room,
    )
    draw_text(
        draw,
        (CLASS_MARGIN, px * 2.55),
        title or "Waddington's Formula 1",
        px,
        TITLE_FG,
        bold=True,
        anchor="lm",
        max_width=room,
    )
    race = (
        f"{circuit(state.circuit).title} circuit  ·  {laps_text(state.settings.laps)}"
        f"  ·  {counted(state.round, 'game turn')}"
    )
    draw_text(draw, (CLASS_MARGIN, px * 3.85), race, px, TITLE_FG, anchor="lm", max_width=room)
    rows: list[list[str | Cell]] = []
    for line in lines:
        car = cars[line.seat]
        rows.append(
            [
                str(line.place),
                "",
                car.colour,
                driver_name(car, names),
                Cell(line.status_text, fill=STATUS_COLOURS[line.status], bold=True),
                line.laps,
                line.gap,
            ]
        )
    layout = draw_table(draw, CLASS_MARGIN, top, CLASS_COLUMNS, rows, CLASS_STYLE)
    for r, line in enumerate(lines):
        car = cars[line.seat]
        marker(draw, classification_marker_xy(r + 1), car.colour, car_label(car), CLASS_MARKER, px)
    y = layout.row_top(len(rows)) + 10 + px * 0.65
    for text in note:
        draw_text(draw, (CLASS_MARGIN, y), text, px, MUTED, anchor="lm")
        y += round(px * 1.3)
    return to_png(image)
