"""A driver's career as a PNG (`/league driver`).

`render_career(name, subtitle, blocks)` draws a title bar (the driver, a line of totals),
then one block a game: its title, a summary line (titles, races, wins, podiums, rating) and a
table with one row a league season (position, races, wins, podiums, points; a title's
position on a gold chip), then a legend. `career_layout` gives the geometry to callers and
tests.

Made for a phone that shows it `PHONE_WIDTH` (400) px wide, as the standings image is: no
text smaller than `MIN_PX` (27 px on the 900 px image, 12 px on the phone).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderer.common import (
    INK,
    MUTED,
    PAPER,
    RGB,
    Cell,
    Column,
    TableStyle,
    draw_table,
    draw_text,
    table_height,
    to_png,
    wrap_text,
)
from renderer.standings import MARGIN, MIN_PX, TITLE_SIZE, TITLE_TOP, WIDTH, title_band

LINE = 36  # a line of MIN_PX text
HEADING_SIZE = 34
HEADING_LINE = 46
SUMMARY_MAX_LINES = 2
BLOCK_GAP = 22
TITLE_CHIP: RGB = (255, 205, 40)  # a title: the champion's gold (as the standings' 1st)
LEGEND = "S season · Pos final or current position · gold: title (champion) · Pod podiums (top 3)"

STYLE = TableStyle(
    row_height=52,
    header_height=44,
    font_size=MIN_PX,
    header_font_size=MIN_PX,
)
COLUMNS = [
    Column("League", WIDTH - 2 * MARGIN - 60 - 70 - 96 - 48 - 66 - 80),
    Column("S", 60, "center", padding=2),
    Column("Pos", 70, "center", bold=True),
    Column("Races", 96, "center", padding=2),
    Column("W", 48, "center", padding=2),
    Column("Pod", 66, "center", padding=2),
    Column("Pts", 80, "right", bold=True),
]


@dataclass(frozen=True)
class CareerLine:
    """One league season of the driver's."""

    league: str
    season: int
    position: int | None  # None: no result that season
    champion: bool
    races: int
    wins: int
    podiums: int
    points: int


@dataclass(frozen=True)
class CareerBlock:
    """One game: its title, a summary line, the seasons raced in it."""

    title: str
    summary: str
    lines: list[CareerLine]


@dataclass(frozen=True)
class BlockLayout:
    top: int
    summary_lines: list[str]
    table_top: int | None  # None: no season to list
    bottom: int


@dataclass(frozen=True)
class CareerLayout:
    width: int
    height: int
    title_height: int
    subtitle_lines: list[str]
    blocks: list[BlockLayout]
    legend_lines: list[str]


def career_layout(subtitle: str, blocks: list[CareerBlock]) -> CareerLayout:
    subtitle_lines = wrap_text(subtitle, MIN_PX, WIDTH - 2 * MARGIN, 2)
    title_height = TITLE_TOP + TITLE_SIZE + 14 + len(subtitle_lines) * LINE + 8
    y = title_height + 10
    laid = []
    for block in blocks:
        top = y
        summary = wrap_text(block.summary, MIN_PX, WIDTH - 2 * MARGIN, SUMMARY_MAX_LINES)
        y += HEADING_LINE + len(summary) * LINE + 6
        table_top = y if block.lines else None
        if block.lines:
            y += table_height(len(block.lines), STYLE)
        y += BLOCK_GAP
        laid.append(BlockLayout(top, summary, table_top, y))
    legend = wrap_text(LEGEND, MIN_PX, WIDTH - 2 * MARGIN, 2) if blocks else []
    height = y + len(legend) * LINE + 10
    return CareerLayout(WIDTH, height, title_height, subtitle_lines, laid, legend)


def _row(line: CareerLine) -> list[str | Cell]:
    if line.position is None:
        pos = Cell("-", fill=MUTED)
    elif line.champion:
        pos = Cell(str(line.position), fill=INK, background=TITLE_CHIP, bold=True)
    else:
        pos = Cell(str(line.position))
    return [
        line.league,
        str(line.season),
        pos,
        str(line.races),
        str(line.wins),
        str(line.podiums),
        str(line.points),
    ]


def render_career(name: str, subtitle: str, blocks: list[CareerBlock]) -> bytes:
    """PNG bytes of the career (WIDTH px wide, as tall as its blocks)."""
    layout = career_layout(subtitle, blocks)
    image = Image.new("RGB", (layout.width, layout.height), PAPER)
    draw = ImageDraw.Draw(image)
    title_band(draw, layout.width, layout.title_height, name, layout.subtitle_lines, LINE)
    y: float
    for block, laid in zip(blocks, layout.blocks, strict=True):
        draw_text(
            draw,
            (MARGIN, laid.top + 4),
            block.title,
            HEADING_SIZE,
            INK,
            bold=True,
            max_width=layout.width - 2 * MARGIN,
        )
        y = laid.top + HEADING_LINE
        for line in laid.summary_lines:
            draw_text(draw, (MARGIN, y), line, MIN_PX, MUTED)
            y += LINE
        if laid.table_top is not None:
            rows = [_row(line) for line in block.lines]
            draw_table(draw, MARGIN, laid.table_top, COLUMNS, rows, STYLE)
    y = layout.blocks[-1].bottom if layout.blocks else layout.title_height + 10
    for line in layout.legend_lines:
        draw_text(draw, (MARGIN, y), line, MIN_PX, MUTED)
        y += LINE
    return to_png(image)


__all__ = ["CareerBlock", "CareerLayout", "CareerLine", "career_layout", "render_career"]
