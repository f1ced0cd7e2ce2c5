"""Championship standings table as a PNG.

`render_standings(title, subtitle, rows)` draws a title bar (league, season, game, points
table), then one row per driver: position ("=3" when tied), a car-colour marker holding the
position number, the name, points (bold), wins, podiums, rounds started and the result of
each of the last `MAX_ROUND_COLUMNS` rounds, then a legend. `standings_layout` exposes the
geometry so that callers and tests can find things in the picture.

Made for a phone that shows the image about `PHONE_WIDTH` (400) px wide: no text is smaller
than `MIN_PX` (27 px on the 900 px image, 12 px on the phone). Names in any script or with
emoji are drawn with the renderer's fallback fonts and cut with an ellipsis to their column.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderer.common import (
    INK,
    MUTED,
    PAPER,
    RGB,
    RULE,
    TITLE_BG,
    TITLE_FG,
    Cell,
    Column,
    TableStyle,
    draw_table,
    draw_text,
    table_height,
    to_png,
    wrap_text,
)

WIDTH = 900
PHONE_WIDTH = 400  # how wide Discord shows an image on a phone
PHONE_MIN_PX = 12  # the smallest text a player can read there
MIN_PX = -(-PHONE_MIN_PX * WIDTH // PHONE_WIDTH)  # 27: every text is at least this size
MARGIN = 16
MAX_ROUND_COLUMNS = 5  # the last rounds' results that fit beside a name at MIN_PX

TITLE_SIZE = 40
SUBTITLE_SIZE = MIN_PX
SUBTITLE_LINE = 34
SUBTITLE_MAX_LINES = 2
TITLE_TOP = 14
LEGEND_SIZE = MIN_PX
LEGEND_LINE = 34
LEGEND_MAX_LINES = 3
EMPTY_HEIGHT = 150

STYLE = TableStyle(
    row_height=56,
    header_height=44,
    font_size=MIN_PX,
    header_font_size=MIN_PX,
    marker_size=42,
)

# Podium chips behind round results 1-3: colour plus the number, never colour alone.
PODIUM_CHIPS: dict[str, RGB] = {"1": (255, 205, 40), "2": (200, 206, 214), "3": (222, 150, 90)}
RETIRED_FG: RGB = (200, 16, 46)


@dataclass(frozen=True)
class StandingsLine:
    """One driver's line in the standings."""

    position: int
    tied: bool
    name: str
    colour: str | None  # a car colour name (see renderer.common.PALETTE); None -> neutral
    points: int
    wins: int
    podiums: int
    rounds: int  # rounds started
    results: list[str]  # per round, in calendar order: "1", "2", ..., "R" retired, "-" absent


@dataclass(frozen=True)
class StandingsLayout:
    width: int
    height: int
    title_height: int
    subtitle_lines: list[str]
    table_top: int
    legend_lines: list[str]
    columns: list[Column]
    first_round: int  # 1-based number of the first round column shown
    total_rounds: int

    @property
    def shown_rounds(self) -> int:
        return self.total_rounds - self.first_round + 1 if self.total_rounds else 0

    def row_top(self, row: int) -> int:
        return self.table_top + STYLE.header_height + row * STYLE.row_height

    def marker_centre(self, row: int) -> tuple[int, int]:
        """Centre of the car-colour marker in the driver cell of `row` (0-based)."""
        left = MARGIN + self.columns[0].width + STYLE.padding
        return (left + STYLE.marker_size // 2, self.row_top(row) + STYLE.row_height // 2)


def _columns(shown_rounds: int, first_round: int) -> list[Column]:
    round_width = 54  # "R12" in bold at MIN_PX
    fixed = [
        Column("Pos", 64, "center"),
        None,  # the driver column takes the remaining width
        Column("Pts", 70, "right", bold=True),
        Column("W", 40, "center", padding=2),
        Column("Pod", 58, "center", padding=2),
        Column("Rds", 56, "center", padding=2),
    ]
    driver_width = (
        WIDTH - 2 * MARGIN - sum(c.width for c in fixed if c) - round_width * shown_rounds
    )
    fixed[1] = Column("Driver", driver_width)
    rounds = [
        Column(
            f"R{first_round + i}",
            round_width,
            "center",
            padding=1,
        )
        for i in range(shown_rounds)
    ]
    return [c for c in fixed if c] + rounds


def standings_layout(subtitle: str, rows: list[StandingsLine]) -> StandingsLayout:
    total_rounds = max((len(r.results) for r in rows), default=0)
    shown = min(total_rounds, MAX_ROUND_COLUMNS)
    first_round = total_rounds - shown + 1
    lines = wrap_text(subtitle, SUBTITLE_SIZE, WIDTH - 2 * MARGIN, SUBTITLE_MAX_LINES)
    title_height = TITLE_TOP + TITLE_SIZE + 14 + len(lines) * SUBTITLE_LINE + 10
    table_top = title_height + 12
    legend = (
        wrap_text(
            _legend(first_round, total_rounds), LEGEND_SIZE, WIDTH - 2 * MARGIN, LEGEND_MAX_LINES
        )
        if rows
        else []
    )
    body = (
        table_height(len(rows), STYLE) + 12 + len(legend) * LEGEND_LINE + 8
        if rows
        else EMPTY_HEIGHT
    )
    return StandingsLayout(
        width=WIDTH,
        height=table_top + body,
        title_height=title_height,
        subtitle_lines=lines,
        table_top=table_top,
        legend_lines=legend,
        columns=_columns(shown, first_round),
        first_round=first_round,
        total_rounds=total_rounds,
    )


def _result_cell(result: str) -> Cell:
    text = result.strip()
    if text in PODIUM_CHIPS:
        return Cell(text, fill=INK, background=PODIUM_CHIPS[text], bold=True)
    if text.upper() == "R":
        return Cell("R", fill=RETIRED_FG, bold=True)
    if text in ("-", ""):
        return Cell(text, fill=MUTED)
    return Cell(text)


def position_label(position: int, tied: bool) -> str:
    """'3', or '=3' when the position is shared."""
    return f"={position}" if tied else str(position)


def _row_cells(line: StandingsLine, layout: StandingsLayout) -> list[str | Cell]:
    pos = position_label(line.position, line.tied)
    results = [
        _result_cell(line.results[i]) if i < len(line.results) else Cell("")
        for i in range(layout.first_round - 1, layout.total_rounds)
    ]
    return [
        Cell(pos, bold=True),
        Cell(line.name, marker_colour=line.colour, marker_label=str(line.position)),
        str(line.points),
        str(line.wins),
        str(line.podiums),
        str(line.rounds),
        *results,
    ]


def _legend(first_round: int, total_rounds: int) -> str:
    parts = [
        "Pts points",
        "W wins",
        "Pod podiums (top 3)",
        "Rds rounds started",
        "R retired",
        "- absent",
        "=3 tied",
    ]
    text = "  ·  ".join(parts)
    if first_round > 1:
        shown = total_rounds - first_round + 1
        text = f"Last {shown} of {total_rounds} rounds shown  ·  " + text
    return text


def title_band(
    draw: ImageDraw.ImageDraw,
    width: int,
    height: int,
    title: str,
    subtitle_lines: list[str],
    line_height: float,
) -> None:
    """The dark band at the top of a league image (the standings, a career): its title in
    bold and its subtitle lines (at SUBTITLE_SIZE, `line_height` apart)."""
    draw.rectangle((0, 0, width - 1, height - 1), fill=TITLE_BG)
    draw_text(
        draw,
        (MARGIN, TITLE_TOP),
        title,
        TITLE_SIZE,
        TITLE_FG,
        bold=True,
        max_width=width - 2 * MARGIN,
    )
    y: float = TITLE_TOP + TITLE_SIZE + 14
    for line in subtitle_lines:
        draw_text(draw, (MARGIN, y), line, SUBTITLE_SIZE, TITLE_FG)
        y += line_height


def render_standings(title: str, subtitle: str, rows: list[StandingsLine]) -> bytes:
    """PNG bytes of the standings table (WIDTH px wide, height grows with the rows)."""
    layout = standings_layout(subtitle, rows)
    image = Image.new("RGB", (layout.width, layout.height), PAPER)
    draw = ImageDraw.Draw(image)

    title_band(draw, layout.width, layout.title_height, title, layout.subtitle_lines, SUBTITLE_LINE)

    if not rows:
        top = layout.table_top
        draw.rounded_rectangle(
            (MARGIN, top, layout.width - MARGIN - 1, layout.height - MARGIN - 1),
            radius=12,
            outline=RULE,
            width=2,
        )
        mid_x = layout.width / 2
        mid_y = (top + layout.height - MARGIN) / 2
        draw_text(draw, (mid_x, mid_y - 18), "No results yet", 36, INK, bold=True, anchor="mm")
        draw_text(
            draw,
            (mid_x, mid_y + 24),
            "Standings appear after the first round.",
            MIN_PX,
            MUTED,
            anchor="mm",
            max_width=layout.width - 4 * MARGIN,
        )
        return to_png(image)

    table = [_row_cells(line, layout) for line in rows]
    draw_table(draw, MARGIN, layout.table_top, layout.columns, table, STYLE)
    y = layout.row_top(len(rows)) + 12 + LEGEND_LINE / 2
    for line in layout.legend_lines:
        draw_text(draw, (MARGIN, y), line, LEGEND_SIZE, MUTED, anchor="lm")
        y += LEGEND_LINE
    return to_png(image)


__all__ = [
    "MIN_PX",
    "StandingsLayout",
    "StandingsLine",
    "position_label",
    "render_standings",
    "standings_layout",
]
