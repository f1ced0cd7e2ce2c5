"""Pit Formula images: the token table, the race scoring sheet and the solo stopwatch.

`render_table(state)` draws the 70 part tokens as two 7 x 5 blocks (columns a-g and h-n, rows
1-5, printed along the edges), each token showing its part by colour AND shape (tyre: dark
disc, wing: blue shield, gas: green drop, engine: red hexagon) AND its digit in large type.
A token that has left the table is an empty dashed slot showing its coordinate. The header
gives the race, the crash card and what it asks, and the spare parts left; a legend explains
the shapes.

`render_scoring(state, names, board=...)` draws the sheet of the last race scored: per car its
cards (numbers, tokens used, right/wrong mark), the flag taken and the flag kept after the
checks, flag points, part points, spare penalty, race points and the championship total.

`render_solo_clock(remaining_ms, total_ms)` draws a small stopwatch.

Pure functions from state to PNG bytes; static parts (background, token sprites) are cached.
Layout helpers (`token_xy`, `token_fill_xy`, `scoring_layout`) let tests find things.
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
    RULE,
    ZEBRA,
    car_marker,
    draw_text,
    font,
    to_png,
    wrap_text,
)
from rules.pitformula import (
    CARD_SLOTS,
    FLAG_NAMES,
    SLOT_PART,
    PitFormulaState,
    card_view,
    catalog,
    slot_of,
)
from rules.pitformula.coords import BLOCK_COLUMNS, COLUMNS, ROWS
from rules.pitformula.state import ON_TABLE, OUT_OF_PLAY

# --- part tokens: colour + shape + digit ---------------------------------------------------

PART_FILL: dict[str, RGB] = {
    "tyre": (38, 38, 44),
    "wing": (28, 92, 214),
    "gas": (0, 138, 68),
    "engine": (206, 34, 44),
}
PART_EDGE: dict[str, RGB] = {
    "tyre": (150, 152, 160),  # a grey tread ring
    "wing": (12, 40, 110),
    "gas": (0, 70, 34),
    "engine": (110, 10, 18),
}
PART_SHAPE = {"tyre": "disc", "wing": "shield", "gas": "drop", "engine": "hexagon"}
PART_LABEL = {"tyre": "Tyre", "wing": "Wing", "gas": "Gas", "engine": "Engine"}
SLOT_LABEL = {"t1": "T1", "t2": "T2", "t3": "T3", "t4": "T4", "w": "W", "g": "G", "e": "E"}

# A point inside each shape, clear of the digit, as fractions of the sprite (x, y).
_FILL_POINT = {"tyre": (0.2, 0.5), "wing": (0.2, 0.33), "gas": (0.22, 0.64), "engine": (0.2, 0.5)}
# Where the digit sits (fraction of the sprite height) and how big it is (fraction of size).
_DIGIT_Y = {"tyre": 0.5, "wing": 0.40, "gas": 0.63, "engine": 0.5}
_DIGIT_SIZE = {"tyre": 0.6, "wing": 0.56, "gas": 0.52, "engine": 0.6}

SPARE_FILL: RGB = (240, 170, 20)
SPARE_EDGE: RGB = (130, 80, 0)
GOOD: RGB = (0, 140, 60)
BAD: RGB = (200, 20, 40)
FLAG_FILL: dict[str, RGB] = {
    "gold": (236, 186, 30),
    "silver": (192, 198, 208),
    "bronze": (200, 120, 50),
}
FLAG_LETTER = {"gold": "G", "silver": "S", "bronze": "B"}
CAR_COLOURS = ("red", "blue", "green", "yellow")

_SS = 4  # supersampling for antialiased shapes


def _shape_points(shape: str, s: float) -> list[tuple[float, float]]:
    """Polygon of a shape in an s x s box (discs are drawn as ellipses, not with this)."""
    if shape == "shield":
        pts = [(0.06, 0.06), (0.94, 0.06), (0.94, 0.58), (0.5, 0.96), (0.06, 0.58)]
    elif shape == "drop":
        pts = [(0.5, 0.02), (0.788, 0.404)]
        cx, cy, r = 0.5, 0.62, 0.36
        start = math.atan2(0.404 - cy, 0.788 - cx)
        end = math.atan2(0.404 - cy, 0.212 - cx) + 2 * math.pi
        for i in range(1, 40):
            a = start + (end - start) * i / 40
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
        pts.append((0.212, 0.404))
    elif shape == "hexagon":
        pts = [
            (
                0.5 + 0.48 * math.cos(math.radians(90 + 60 * k)),
                0.5 + 0.48 * math.sin(math.radians(90 + 60 * k)),
            )
            for k in range(6)
        ]
    elif shape == "star":
        pts = []
        for k in range(10):
            r = 0.48 if k % 2 == 0 else 0.21
            a = math.radians(-90 + 36 * k)
            pts.append((0.5 + r * math.cos(a), 0.53 + r * math.sin(a)))
    else:
        raise ValueError(shape)
    return [(x * s, y * s) for x, y in pts]


def _shape_mask(shape: str, size: int, inset: float) -> Image.Image:
    big = Image.new("L", (size * _SS, size * _SS), 0)
    d = ImageDraw.Draw(big)
    s = size * _SS
    if shape == "disc":
        d.ellipse((inset * _SS, inset * _SS, s - 1 - inset * _SS, s - 1 - inset * _SS), fill=255)
    else:
        pts = _shape_points(shape, s - 2 * inset * _SS)
        d.polygon([(x + inset * _SS, y + inset * _SS) for x, y in pts], fill=255)
    return big.resize((size, size), Image.Resampling.BOX)


@cache
def _mask(shape: str, size: int, inset: float) -> Image.Image:
    return _shape_mask(shape, size, inset)


@cache
def token_sprite(part: str, digit: int | None, size: int) -> Image.Image:
    """RGBA sprite of a part token: its shape in the part colour with a dark edge and the digit
    in white (no digit when `digit` is None, for the legend)."""
    shape = PART_SHAPE[part]
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    edge = max(2.0, size * 0.07)
    img.paste(PART_EDGE[part], (0, 0), _mask(shape, size, 0))
    img.paste(PART_FILL[part], (0, 0), _mask(shape, size, edge))
    if part == "tyre":  # a hub ring, so the tyre reads as a wheel
        d = ImageDraw.Draw(img)
        r = size * 0.34
        c = size / 2
        d.ellipse((c - r, c - r, c + r, c + r), outline=(92, 94, 102), width=max(1, size // 28))
    if digit is not None:
        d = ImageDraw.Draw(img)
        px = round(size * _DIGIT_SIZE[part])
        d.text(
            (size / 2, size * _DIGIT_Y[part]),
            str(digit),
            font=font(px),
            fill=(255, 255, 255),
            anchor="mm",
            stroke_width=max(1, px // 14),
            stroke_fill=(255, 255, 255),
        )
    return img


@cache
def spare_sprite(size: int, used: bool = False) -> Image.Image:
    """A spare part: an amber star (used: a hollow grey star)."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    if used:
        img.paste((150, 154, 162), (0, 0), _mask("star", size, 0))
        img.paste((0, 0, 0, 0), (0, 0), _mask("star", size, max(2.0, size * 0.12)))
        return img
    img.paste(SPARE_EDGE, (0, 0), _mask("star", size, 0))
    img.paste(SPARE_FILL, (0, 0), _mask("star", size, max(1.5, size * 0.08)))
    return img


@cache
def flag_sprite(flag: str, size: int) -> Image.Image:
    """A flag disc: gold, silver or bronze with its letter G, S or B."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    img.paste((60, 50, 30), (0, 0), _mask("disc", size, 0))
    img.paste(FLAG_FILL[flag], (0, 0), _mask("disc", size, max(1.5, size * 0.08)))
    d = ImageDraw.Draw(img)
    px = round(size * 0.56)
    d.text(
        (size / 2, size / 2),
        FLAG_LETTER[flag],
        font=font(px),
        fill=INK,
        anchor="mm",
        stroke_width=max(1, px // 16),
        stroke_fill=INK,
    )
    return img


@cache
def mark_sprite(good: bool, size: int) -> Image.Image:
    """A right (tick) or wrong (cross) mark drawn as strokes, not font glyphs."""
    s = size * _SS
    big = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(big)
    w = max(3 * _SS, round(s * 0.17))
    if good:
        d.line([(0.1 * s, 0.55 * s), (0.4 * s, 0.84 * s), (0.92 * s, 0.16 * s)], fill=255, width=w)
    else:
        d.line([(0.16 * s, 0.16 * s), (0.84 * s, 0.84 * s)], fill=255, width=w)
        d.line([(0.84 * s, 0.16 * s), (0.16 * s, 0.84 * s)], fill=255, width=w)
    mask = big.resize((size, size), Image.Resampling.BOX)
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    img.paste(GOOD if good else BAD, (0, 0), mask)
    return img


def _paste(img: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> None:
    x = round(centre[0] - sprite.width / 2)
    y = round(centre[1] - sprite.height / 2)
    img.paste(sprite, (x, y), sprite)


def _dashed_rect(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], fill: RGB, dash: int, width: int
) -> None:
    x0, y0, x1, y1 = box
    for x in range(x0, x1, 2 * dash):
        draw.line((x, y0, min(x + dash, x1), y0), fill=fill, width=width)
        draw.line((x, y1, min(x + dash, x1), y1), fill=fill, width=width)
    for y in range(y0, y1, 2 * dash):
        draw.line((x0, y, x0, min(y + dash, y1)), fill=fill, width=width)
        draw.line((x1, y, x1, min(y + dash, y1)), fill=fill, width=width)


# --- the table -----------------------------------------------------------------------------

TABLE_WIDTH = 1000
TABLE_HEIGHT = 560
MARGIN = 18
ROW_LABEL = 30
CELL = 62
TOKEN = 56
BLOCK_GAP = 36
HEADER_H = 118
COL_LABEL_H = 30
GRID_TOP = HEADER_H + COL_LABEL_H
LEGEND_TOP = GRID_TOP + ROWS * CELL + 14

PANEL: RGB = (226, 231, 238)
PANEL_EDGE: RGB = (188, 196, 208)
SLOT_DASH: RGB = (150, 158, 172)
SLOT_TEXT: RGB = (138, 146, 160)


def _block_left(block: int) -> int:
    return MARGIN + ROW_LABEL + (block - 1) * (BLOCK_COLUMNS * CELL + BLOCK_GAP)


def cell_box(coord: str) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of a token's cell, e.g. `cell_box("b3")`."""
    slot = slot_of(coord)
    row, col = divmod(slot, len(COLUMNS))
    block = 1 if col < BLOCK_COLUMNS else 2
    left = _block_left(block) + (col % BLOCK_COLUMNS) * CELL
    top = GRID_TOP + row * CELL
    return (left, top, left + CELL, top + CELL)


def token_xy(coord: str) -> tuple[int, int]:
    """Centre of a token's cell, e.g. `token_xy("k5")`."""
    left, top, right, bottom = cell_box(coord)
    return ((left + right) // 2, (top + bottom) // 2)


def token_fill_xy(coord: str, part: str) -> tuple[int, int]:
    """A pixel inside the token's coloured shape, clear of its digit and edge."""
    cx, cy = token_xy(coord)
    fx, fy = _FILL_POINT[part]
    return (round(cx - TOKEN / 2 + fx * TOKEN), round(cy - TOKEN / 2 + fy * TOKEN))


@cache
def _table_background() -> Image.Image:
    img = Image.new("RGB", (TABLE_WIDTH, TABLE_HEIGHT), PAPER)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, TABLE_WIDTH, HEADER_H - 1), fill=HEADER_BG)
    for block in (1, 2):
        left = _block_left(block)
        right = left + BLOCK_COLUMNS * CELL
        d.rounded_rectangle(
            (left - 4, GRID_TOP - 4, right + 4, GRID_TOP + ROWS * CELL + 4),
            radius=10,
            fill=PANEL,
            outline=PANEL_EDGE,
            width=2,
        )
        for i in range(BLOCK_COLUMNS):
            letter = COLUMNS[(block - 1) * BLOCK_COLUMNS + i]
            x = left + i * CELL + CELL // 2
            draw_text(
                d, (x, HEADER_H + COL_LABEL_H // 2 + 1), letter, 24, INK, bold=True, anchor="mm"
            )
            if i:
                d.line(
                    (left + i * CELL, GRID_TOP + 4, left + i * CELL, GRID_TOP + ROWS * CELL - 4),
                    fill=PANEL_EDGE,
                )
        label_x = left - ROW_LABEL // 2 - 4 if block == 1 else right + ROW_LABEL // 2 + 4
        if block == 2:
            label_x = right + ROW_LABEL // 2 + 2
        for r in range(ROWS):
            y = GRID_TOP + r * CELL + CELL // 2
            draw_text(d, (label_x, y), str(r + 1), 24, INK, bold=True, anchor="mm")
            if r:
                d.line(
                    (left + 4, GRID_TOP + r * CELL, right - 4, GRID_TOP + r * CELL), fill=PANEL_EDGE
                )
    # between the blocks: the row numbers again, so every token is near a label
    mid = _block_left(1) + BLOCK_COLUMNS * CELL + BLOCK_GAP // 2
    for r in range(ROWS):
        y = GRID_TOP + r * CELL + CELL // 2
        draw_text(d, (mid, y), str(r + 1), 20, MUTED, bold=True, anchor="mm")
    # legend
    y = LEGEND_TOP + 22
    x = MARGIN + 4
    draw_text(d, (x, y), "Tokens:", 20, MUTED, bold=True, anchor="lm")
    x += 84
    for part in ("tyre", "wing", "gas", "engine"):
        _paste(img, token_sprite(part, None, 34), (x + 17, y))
        draw_text(d, (x + 40, y), PART_LABEL[part], 21, INK, bold=True, anchor="lm")
        x += 44 + round(d.textlength(PART_LABEL[part], font=font(21))) + 24
    slot = (x, y - 16, x + 32, y + 16)
    d.rounded_rectangle(slot, radius=6, fill=PANEL)
    _dashed_rect(d, slot, SLOT_DASH, 5, 2)
    draw_text(d, (x + 40, y), "taken", 21, INK, anchor="lm")
    x += 40 + 60 + 24
    _paste(img, spare_sprite(30), (x + 16, y))
    draw_text(d, (x + 38, y), "spare = any token", 21, INK, anchor="lm")
    return img


@cache
def _empty_slot(coord: str, out_of_play: bool) -> Image.Image:
    """The tile of a cell whose token has left the table (a dashed slot with its coordinate),
    or, for a token not used in this game, a plain pale tile."""
    tile = Image.new("RGB", (CELL - 2, CELL - 2), PANEL)
    d = ImageDraw.Draw(tile)
    box = (5, 5, CELL - 8, CELL - 8)
    if out_of_play:
        d.rounded_rectangle(box, radius=8, fill=(214, 219, 227))
        draw_text(d, (tile.width / 2, tile.height / 2), "-", 20, SLOT_TEXT, anchor="mm")
        return tile
    _dashed_rect(d, box, SLOT_DASH, 5, 2)
    draw_text(d, (tile.width / 2, tile.height / 2), coord, 18, SLOT_TEXT, anchor="mm")
    return tile


def _crash_lines(state: PitFormulaState) -> tuple[str, str]:
    race = state.race
    if state.phase == "over":
        return ("Championship over", "Every race has been run.")
    if state.phase == "ready" or race.crash is None:
        return ("Waiting for Go!", "The starting car draws the crash card and says Go.")
    card = catalog().crash_cards[race.crash]
    return (card.name, card.text())


def render_table(state: PitFormulaState) -> bytes:
    """The token table as a PNG (1000 x 560)."""
    img = _table_background().copy()
    d = ImageDraw.Draw(img)
    race = state.race
    # header: race, crash card, spare parts
    draw_text(d, (MARGIN, 14), "PIT FORMULA", 16, (170, 180, 196), bold=True)
    draw_text(d, (MARGIN, 36), f"Race {race.number}", 36, HEADER_FG, bold=True)
    if race.super and state.phase == "repair":
        d.rounded_rectangle((MARGIN, 82, MARGIN + 150, 108), radius=6, fill=(200, 16, 46))
        draw_text(d, (MARGIN + 75, 95), "SUPER CRASH", 17, HEADER_FG, bold=True, anchor="mm")
    name, text = _crash_lines(state)
    tx, tw = 200, 520
    label = "CRASH CARD" if state.phase == "repair" else ""
    if label:
        draw_text(d, (tx, 14), label, 16, (170, 180, 196), bold=True)
    draw_text(d, (tx, 34), name, 27, HEADER_FG, bold=True, max_width=tw)
    for i, line in enumerate(wrap_text(text, 20, tw, 2)):
        draw_text(d, (tx, 70 + i * 24), line, 20, (225, 230, 238))
    sx = 760
    left = race.spares_left if state.phase == "repair" else catalog().components.spare_parts
    total = catalog().components.spare_parts
    draw_text(d, (sx, 14), "SPARE PARTS", 16, (170, 180, 196), bold=True)
    draw_text(d, (TABLE_WIDTH - MARGIN, 12), f"{left} left", 22, HEADER_FG, bold=True, anchor="ra")
    for i in range(total):
        cx = sx + 14 + (i % 4) * 36
        cy = 58 + (i // 4) * 34
        _paste(img, spare_sprite(30, used=i >= left), (cx, cy))
    # tokens
    for slot, face in enumerate(state.faces):
        row, col = divmod(slot, len(COLUMNS))
        coord = f"{COLUMNS[col]}{row + 1}"
        left_, top, _, _ = cell_box(coord)
        where = state.where[slot]
        if where == ON_TABLE:
            part = {"T": "tyre", "W": "wing", "G": "gas", "E": "engine"}[face[0]]
            _paste(img, token_sprite(part, int(face[1]), TOKEN), token_xy(coord))
        else:
            img.paste(_empty_slot(coord, where == OUT_OF_PLAY), (left_ + 1, top + 1))
    return to_png(img)


# --- the scoring sheet ---------------------------------------------------------------------

SC_MARGIN = 16
SC_TITLE_H = 100
SC_HEAD_H = 34
SC_ROW_H = 88
SC_LEGEND_H = 52
SC_COLUMNS: tuple[tuple[str, int], ...] = (
    ("Car", 206),
    ("T1", 94),
    ("T2", 94),
    ("T3", 94),
    ("T4", 94),
    ("W", 94),
    ("G", 94),
    ("E", 94),
    ("Flag", 108),
    ("Flag pts", 70),
    ("Parts", 62),
    ("Spares", 72),
    ("Race", 64),
    ("Total", 74),
)
FACE_DOWN: RGB = (226, 230, 236)
SC_WIDTH = 2 * SC_MARGIN + sum(w for _, w in SC_COLUMNS)


@dataclass(frozen=True)
class ScoringLayout:
    width: int
    height: int
    rows: int
    column_lefts: list[int]

    def row_top(self, row: int) -> int:
        return SC_TITLE_H + SC_HEAD_H + row * SC_ROW_H

    def cell_box(self, row: int, column: str) -> tuple[int, int, int, int]:
        i = [name for name, _ in SC_COLUMNS].index(column)
        left = self.column_lefts[i]
        top = self.row_top(row)
        return (left, top, left + SC_COLUMNS[i][1], top + SC_ROW_H)

    def mark_xy(self, row: int, slot: str) -> tuple[int, int]:
        """Centre of the right/wrong mark of a card (`slot` t1 ... e) in a row."""
        left, top, right, bottom = self.cell_box(row, SLOT_LABEL[slot])
        return (right - 16, bottom - 24)


def scoring_layout(state: PitFormulaState) -> ScoringLayout:
    result = state.results[-1] if state.results else None
    rows = len(result.cars) if result else 0
    if result is not None and result.rival is not None:
        rows += 1
    lefts, x = [], SC_MARGIN
    for _, w in SC_COLUMNS:
        lefts.append(x)
        x += w
    height = SC_TITLE_H + SC_HEAD_H + rows * SC_ROW_H + SC_LEGEND_H
    return ScoringLayout(SC_WIDTH, height, rows, lefts)


def _car_name(state: PitFormulaState, car: int, names: dict[int, str] | None) -> str:
    seats = state.cars[car].seats
    if names:
        got = [names[s] for s in seats if s in names]
        if got:
            return " & ".join(got)
    return f"Car {car + 1}"


def _chip(
    draw: ImageDraw.ImageDraw, centre: tuple[int, int], text: str, fill: RGB, fg: RGB
) -> None:
    w = max(40, round(draw.textlength(text, font=font(22))) + 16)
    x, y = centre
    draw.rounded_rectangle((x - w // 2, y - 17, x + w // 2, y + 17), radius=8, fill=fill)
    draw_text(draw, (x, y), text, 22, fg, bold=True, anchor="mm")


def render_scoring(
    state: PitFormulaState,
    names: dict[int, str] | None = None,
    *,
    board: PitFormulaState | None = None,
) -> bytes:
    """The scoring sheet of the last race scored (`state.results[-1]`).

    `names` maps seats to player names (a car's crew are joined with "&"); default "Car N".
    Scoring resets the cards, so a car's card numbers and tokens come from `board`: the state
    just before the action that ended the race (still in the repair phase of that race). Without
    it, each card shows only its right/wrong mark."""
    if not state.results:
        raise ValueError("no race has been scored yet")
    result = state.results[-1]
    index = len(state.results) - 1
    if board is not None and (board.phase != "repair" or board.race.number != result.number):
        raise ValueError(f"board is not the repair phase of race {result.number}")
    layout = scoring_layout(state)
    img = Image.new("RGB", (layout.width, layout.height), PAPER)
    d = ImageDraw.Draw(img)

    # title
    d.rectangle((0, 0, layout.width, SC_TITLE_H - 1), fill=HEADER_BG)
    crash = catalog().crash_cards[result.crash]
    draw_text(d, (SC_MARGIN, 12), f"Race {result.number} results", 34, HEADER_FG, bold=True)
    sub = crash.name + (" - SUPER CRASH (+3 to gold)" if result.super else "")
    draw_text(d, (SC_MARGIN, 58), sub, 21, (225, 230, 238), max_width=560)
    ended = {"flags": "all flags taken", "retire": "every car stopped", "time_up": "time up"}
    draw_text(d, (SC_MARGIN, 82), ended.get(result.ended_by, ""), 15, (170, 180, 196))
    x = 620
    draw_text(
        d,
        (x, 22),
        "FLAGS WORTH" if result.trophy or any(result.flag_values) else "NO TROPHY",
        16,
        (170, 180, 196),
        bold=True,
    )
    flags_in_play = max(1, min(3, len(result.cars) - 1)) if result.rival is None else 1
    for f in range(flags_in_play):
        fname = FLAG_NAMES[f]
        cx = x + 20 + f * 96
        _paste(img, flag_sprite(fname, 40), (cx, 66))
        value = result.flag_values[f] if f < len(result.flag_values) else 0
        draw_text(
            d,
            (cx + 26, 66),
            f"{value} pt" + ("" if value == 1 else "s"),
            20,
            HEADER_FG,
            bold=True,
            anchor="lm",
        )

    # column headers
    top = SC_TITLE_H
    d.rectangle((0, top, layout.width, top + SC_HEAD_H - 1), fill=(52, 60, 74))
    for (name, w), left in zip(SC_COLUMNS, layout.column_lefts, strict=True):
        anchor_x = left + 10 if name == "Car" else left + w / 2
        draw_text(
            d,
            (anchor_x, top + SC_HEAD_H / 2),
            name,
            17,
            HEADER_FG,
            bold=True,
            anchor="lm" if name == "Car" else "mm",
        )

    totals = [
        sum(r.cars[i].points for r in state.results[: index + 1] if i < len(r.cars))
        for i in range(len(state.cars))
    ]
    for row, cr in enumerate(result.cars):
        rt = layout.row_top(row)
        bg = ZEBRA if row % 2 else PAPER
        d.rectangle((0, rt, layout.width, rt + SC_ROW_H - 1), fill=bg)
        cy = rt + SC_ROW_H // 2
        # car
        lx = layout.column_lefts[0]
        car_marker(d, (lx + 24, cy), CAR_COLOURS[cr.car % len(CAR_COLOURS)], str(cr.car + 1), 40)
        draw_text(
            d,
            (lx + 52, cy - 12),
            _car_name(state, cr.car, names),
            22,
            INK,
            bold=True,
            anchor="lm",
            max_width=150,
        )
        if cr.penalized:
            draw_text(d, (lx + 52, cy + 16), "penalised", 16, BAD, bold=True, anchor="lm")
        elif result.winner == cr.car:
            # a passed gold flag can win the race with required cards still empty
            draw_text(d, (lx + 52, cy + 16), "race winner", 16, GOOD, bold=True, anchor="lm")
        elif cr.missing:
            miss = ", ".join(f"{n} {p}" + ("s" if n > 1 else "") for p, n in cr.missing.items())
            draw_text(
                d,
                (lx + 52, cy + 16),
                f"missing {miss}",
                16,
                BAD,
                bold=True,
                anchor="lm",
                max_width=150,
            )
        # cards
        cards = {cs.slot: cs for cs in board.cars[cr.car].cards} if board is not None else {}
        for slot in CARD_SLOTS:
            left, ctop, right, bottom = layout.cell_box(row, SLOT_LABEL[slot])
            part = SLOT_PART[slot]
            good, bad = slot in cr.correct, slot in cr.errors
            box = (left + 3, ctop + 5, right - 3, bottom - 5)
            cs = cards.get(slot)
            view = card_view(board, cs) if board is not None and cs is not None else None
            if good or bad:
                edge = GOOD if good else BAD
                d.rounded_rectangle(box, radius=8, fill=(255, 255, 255), outline=edge, width=3)
            elif view is not None and view["revealed"]:
                d.rounded_rectangle(box, radius=8, fill=(255, 255, 255), outline=RULE, width=2)
            else:  # face down (or unknown): a blank grey card
                d.rounded_rectangle(box, radius=8, fill=FACE_DOWN)
            if view is not None and view["revealed"]:
                a, b = view["numbers"]
                mid = (left + right) / 2
                draw_text(d, (mid, ctop + 21), f"{a} | {b}", 20, INK, bold=True, anchor="mm")
            if view is not None and view["faces"]:
                tx = left + 21
                for face in view["faces"]:
                    if face == "spare":
                        _paste(img, spare_sprite(30), (tx, bottom - 24))
                    else:
                        _paste(img, token_sprite(part, int(face[1]), 30), (tx, bottom - 24))
                    tx += 31
            if good or bad:
                _paste(img, mark_sprite(good, 24), layout.mark_xy(row, slot))
        # flag taken -> flag kept
        left, _, right, _ = layout.cell_box(row, "Flag")
        if cr.took_flag is None and cr.flag is None:
            draw_text(d, ((left + right) / 2, cy), "-", 22, MUTED, anchor="mm")
        else:
            fx = left + 26
            if cr.took_flag is not None:
                _paste(img, flag_sprite(FLAG_NAMES[cr.took_flag], 34), (fx, cy))
            else:
                draw_text(d, (fx, cy), "-", 22, MUTED, anchor="mm")
            d.line((fx + 20, cy, fx + 38, cy), fill=MUTED, width=3)
            d.polygon([(fx + 44, cy), (fx + 36, cy - 6), (fx + 36, cy + 6)], fill=MUTED)
            if cr.flag is not None:
                _paste(img, flag_sprite(FLAG_NAMES[cr.flag], 34), (fx + 62, cy))
            else:
                _paste(img, mark_sprite(False, 24), (fx + 62, cy))
        # numbers
        fp = f"{cr.flag_points}" + (f"+{cr.super_bonus}" if cr.super_bonus else "")
        for column, text, colour in (
            ("Flag pts", fp, INK),
            ("Parts", str(cr.part_points), INK),
            (
                "Spares",
                f"-{cr.spare_penalty}" if cr.spare_penalty else "0",
                BAD if cr.spare_penalty else INK,
            ),
        ):
            left, _, right, _ = layout.cell_box(row, column)
            draw_text(d, ((left + right) / 2, cy), text, 24, colour, anchor="mm")
        if cr.spares:
            left, _, right, _ = layout.cell_box(row, "Spares")
            draw_text(d, ((left + right) / 2, cy + 24), f"{cr.spares} used", 14, MUTED, anchor="mm")
        left, _, right, _ = layout.cell_box(row, "Race")
        _chip(
            d,
            ((left + right) // 2, cy),
            str(cr.points),
            (255, 226, 120) if cr.points else ZEBRA,
            INK,
        )
        left, _, right, _ = layout.cell_box(row, "Total")
        draw_text(d, ((left + right) / 2, cy), str(totals[cr.car]), 28, INK, bold=True, anchor="mm")
    if result.rival is not None:
        rv = result.rival
        row = len(result.cars)
        rt = layout.row_top(row)
        d.rectangle((0, rt, layout.width, rt + SC_ROW_H - 1), fill=(250, 236, 238))
        cy = rt + SC_ROW_H // 2
        lx = layout.column_lefts[0]
        car_marker(d, (lx + 24, cy), "black", "R", 40)
        draw_text(
            d,
            (lx + 52, cy - 12),
            catalog().rivals[state.settings.rival].name,
            22,
            INK,
            bold=True,
            anchor="lm",
            max_width=150,
        )
        draw_text(
            d,
            (lx + 52, cy + 16),
            "won the round" if rv.won else "beaten",
            16,
            BAD if rv.won else GOOD,
            bold=True,
            anchor="lm",
        )
        left = layout.column_lefts[1]
        draw_text(
            d,
            (left + 10, cy),
            f"{rv.unrepaired_points} for parts left unrepaired, {rv.error_points} for errors",
            19,
            INK,
            anchor="lm",
            max_width=7 * 94 - 20,
        )
        left, _, right, _ = layout.cell_box(row, "Flag pts")
        fp = f"{rv.trophy_points}" + (f"+{rv.super_bonus}" if rv.super_bonus else "")
        draw_text(d, ((left + right) / 2, cy), fp, 24, INK, anchor="mm")
        left, _, right, _ = layout.cell_box(row, "Race")
        _chip(
            d,
            ((left + right) // 2, cy),
            str(rv.points),
            (255, 226, 120) if rv.points else ZEBRA,
            INK,
        )
        left, _, right, _ = layout.cell_box(row, "Total")
        rival_total = sum(r.rival.points for r in state.results[: index + 1] if r.rival)
        draw_text(d, ((left + right) / 2, cy), str(rival_total), 28, INK, bold=True, anchor="mm")

    # legend
    y = layout.height - SC_LEGEND_H // 2
    d.line((0, y - SC_LEGEND_H // 2, layout.width, y - SC_LEGEND_H // 2), fill=RULE)
    x = SC_MARGIN
    _paste(img, mark_sprite(True, 22), (x + 11, y))
    draw_text(d, (x + 28, y), "right", 19, INK, anchor="lm")
    x += 90
    _paste(img, mark_sprite(False, 22), (x + 11, y))
    draw_text(d, (x + 28, y), "wrong", 19, INK, anchor="lm")
    x += 96
    _paste(img, spare_sprite(24), (x + 12, y))
    draw_text(d, (x + 30, y), "spare part", 19, INK, anchor="lm")
    x += 140
    for i, fname in enumerate(FLAG_NAMES):
        _paste(img, flag_sprite(fname, 26), (x + 13 + i * 30, y))
    draw_text(d, (x + 96, y), "flag taken  >  flag kept after the checks", 19, INK, anchor="lm")
    draw_text(
        d,
        (layout.width - SC_MARGIN, y),
        "card: its numbers, the tokens laid on it; grey: face down",
        17,
        MUTED,
        anchor="rm",
    )
    return to_png(img)


# --- the solo stopwatch --------------------------------------------------------------------

CLOCK_SIZE = 240


def render_solo_clock(remaining_ms: int, total_ms: int) -> bytes:
    """A stopwatch: the time left as m:ss and as a coloured arc (green, amber under a third,
    red under a tenth)."""
    total_ms = max(1, total_ms)
    remaining_ms = max(0, min(remaining_ms, total_ms))
    frac = remaining_ms / total_ms
    img = Image.new("RGB", (CLOCK_SIZE, CLOCK_SIZE), PAPER)
    d = ImageDraw.Draw(img)
    c = CLOCK_SIZE // 2
    r = 100
    d.rectangle((c - 14, 6, c + 14, 20), fill=INK)  # the stopwatch's crown
    d.ellipse((c - r, c - r + 8, c + r, c + r + 8), fill=(236, 240, 245), outline=INK, width=5)
    colour = GOOD if frac > 1 / 3 else ((230, 150, 0) if frac > 0.1 else BAD)
    if frac > 0:
        box = (c - r + 12, c - r + 20, c + r - 12, c + r - 4)
        d.arc(box, start=-90, end=-90 + 360 * frac, fill=colour, width=16)
    secs = math.ceil(remaining_ms / 1000)
    draw_text(d, (c, c + 8), f"{secs // 60}:{secs % 60:02d}", 52, INK, bold=True, anchor="mm")
    draw_text(
        d,
        (c, c + 52),
        "left" if remaining_ms else "TIME UP",
        20,
        MUTED if remaining_ms else BAD,
        bold=True,
        anchor="mm",
    )
    return to_png(img)
