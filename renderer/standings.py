"""Championship standings table as a PNG.

`render_standings(title, subtitle, rows)` draws a title bar (league, season, game, points
table), then one row per driver: position ("=3" when tied), a car-colour marker holding the
position number, the name, points (bold), wins, podiums, rounds started and the result of
each of the last `MAX_ROUND_COLUMNS` rounds, then a legend. `standings_layout` exposes the
geometry so that callers and tests can find things in the picture.
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

WIDTH = 960
MARGIN = 16
MAX_ROUND_COLUMNS = 12

TITLE_SIZE = 34
SUBTITLE_SIZE = 20
SUBTITLE_LINE = 26
SUBTITLE_MAX_LINES = 2
TITLE_TOP = 16
LEGEND_SIZE = 17
LEGEND_HEIGHT = 44
EMPTY_HEIGHT = 120

STYLE = TableStyle(
    row_height=46, header_height=36, font_size=23, header_font_size=17, marker_size=36
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
    round_width = 36
    fixed = [
        Column("Pos", 58, "center"),
        None,  # the driver column takes the remaining width
        Column("Pts", 64, "right", bold=True),
        Column("W", 40, "center", padding=2),
        Column("Pod", 50, "center", padding=2),
        Column("Rds", 50, "center", padding=2),
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
            font_size=19,
            header_font_size=15,
        )
        for i in range(shown_rounds)
    ]
    return [c for c in fixed if c] + rounds


def standings_layout(subtitle: str, rows: list[StandingsLine]) -> StandingsLayout:
    total_rounds = max((len(r.results) for r in rows), default=0)
    shown = min(total_rounds, MAX_ROUND_COLUMNS)
    first_round = total_rounds - shown + 1
    lines = wrap_text(subtitle, SUBTITLE_SIZE, WIDTH - 2 * MARGIN, SUBTITLE_MAX_LINES)
    title_height = TITLE_TOP + TITLE_SIZE + 10 + len(lines) * SUBTITLE_LINE + 12
    table_top = title_height + 12
    body = table_height(len(rows), STYLE) + LEGEND_HEIGHT if rows else EMPTY_HEIGHT
    return StandingsLayout(
        width=WIDTH,
        height=table_top + body,
        title_height=title_height,
        subtitle_lines=lines,
        table_top=table_top,
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


def _legend(layout: StandingsLayout) -> str:
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
    if layout.first_round > 1:
        text = f"Last {layout.shown_rounds} of {layout.total_rounds} rounds shown  ·  " + text
    return text


def render_standings(title: str, subtitle: str, rows: list[StandingsLine]) -> bytes:
    """PNG bytes of the standings table (WIDTH px wide, height grows with the rows)."""
    layout = standings_layout(subtitle, rows)
    image = Image.new("RGB", (layout.width, layout.height), PAPER)
    draw = ImageDraw.Draw(image)

    draw.rectangle((0, 0, layout.width - 1, layout.title_height - 1), fill=TITLE_BG)
    draw_text(
        draw,
        (MARGIN, TITLE_TOP),
        title,
        TITLE_SIZE,
        TITLE_FG,
        bold=True,
        max_width=layout.width - 2 * MARGIN,
    )
    y = TITLE_TOP + TITLE_SIZE + 10
    for line in layout.subtitle_lines:
        draw_text(draw, (MARGIN, y), line, SUBTITLE_SIZE, TITLE_FG)
        y += SUBTITLE_LINE

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
        draw_text(draw, (mid_x, mid_y - 12), "No results yet", 30, INK, bold=True, anchor="mm")
        draw_text(
            draw,
            (mid_x, mid_y + 20),
            "Standings appear after the first round.",
            19,
            MUTED,
            anchor="mm",
        )
        return to_png(image)

    table = [_row_cells(line, layout) for line in rows]
    draw_table(draw, MARGIN, layout.table_top, layout.columns, table, STYLE)
    legend_y = layout.row_top(len(rows)) + LEGEND_HEIGHT / 2
    draw_text(
        draw,
        (MARGIN, legend_y),
        _legend(layout),
        LEGEND_SIZE,
        MUTED,
        anchor="lm",
        max_width=layout.width - 2 * MARGIN,
    )
    return to_png(image)


__all__ = [
    "StandingsLayout",
    "StandingsLine",
    "position_label",
    "render_standings",
    "standings_layout",
]
