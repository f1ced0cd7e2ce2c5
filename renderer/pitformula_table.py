"""The Pit Formula token table, and the final standings that replace it once the championship
is over.

`render_table(state, names)` draws the 70 part tokens as two 7 x 5 blocks (columns a-g and
h-n, rows 1-5, printed along the edges and between the blocks), each token showing its part by
colour AND shape AND its digit. A token that has left the table is an empty dashed slot showing
its coordinate. The header gives the race (n of N), the crash card's name, the spare parts left,
and in a band of its own the crash card's text; a legend explains the shapes. Once the
championship is over it draws the final standings instead (the table then is only the reset
one, and `state.race.number` is one past the last race).

Every text a player reads is at least TABLE_MIN_FONT px: 12 px when the 1000 px image is shown
400 px wide on a phone.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    MUTED,
    PAPER,
    RGB,
    ZEBRA,
    car_marker,
    counted,
    draw_text,
    font,
    to_png,
    wrap_text,
)
from renderer.pitformula_sprites import (
    CAR_COLOURS,
    FILL_POINT,
    PART_LABEL,
    dashed_rect,
    paste,
    spare_sprite,
    token_sprite,
)
from rules.pitformula import PitFormulaState, car_of_seat, catalog, slot_of
from rules.pitformula.coords import BLOCK_COLUMNS, COLUMNS, ROWS
from rules.pitformula.state import ON_TABLE, OUT_OF_PLAY

TABLE_WIDTH = 1000
TABLE_MIN_FONT = 30  # 30 x 400 / 1000 = 12 px on a phone
MARGIN = 18
ROW_LABEL = 30
CELL = 62
TOKEN = 58  # the smallest digit (gas, 0.52 of the token) is then 30 px
BLOCK_GAP = 36
TITLE_H = 64  # race, crash card name, spare parts
CRASH_LINE = 36
HEADER_H = TITLE_H + 2 * CRASH_LINE + 8  # the crash card's text: two lines of its own
COL_LABEL_H = 36
GRID_TOP = HEADER_H + COL_LABEL_H
LEGEND_TOP = GRID_TOP + ROWS * CELL + 12
TABLE_HEIGHT = LEGEND_TOP + 52

PANEL: RGB = (226, 231, 238)
PANEL_EDGE: RGB = (188, 196, 208)
SLOT_DASH: RGB = (150, 158, 172)
SLOT_TEXT: RGB = (120, 128, 142)
SUPER: RGB = (255, 120, 130)
CRASH_TEXT: RGB = (225, 230, 238)


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
    fx, fy = FILL_POINT[part]
    return (round(cx - TOKEN / 2 + fx * TOKEN), round(cy - TOKEN / 2 + fy * TOKEN))


def crash_band(text: str) -> list[str]:
    """The crash card's text as the lines drawn in its band (two at most, nothing cut)."""
    return wrap_text(text, TABLE_MIN_FONT, TABLE_WIDTH - 2 * MARGIN, 2)


@cache
def _table_background() -> Image.Image:
    img = Image.new("RGB", (TABLE_WIDTH, TABLE_HEIGHT), PAPER)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, TABLE_WIDTH, HEADER_H - 1), fill=HEADER_BG)
    d.line((MARGIN, TITLE_H - 2, TABLE_WIDTH - MARGIN, TITLE_H - 2), fill=(70, 80, 98), width=2)
    size = TABLE_MIN_FONT
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
            y = HEADER_H + COL_LABEL_H // 2
            draw_text(d, (x, y), letter, size, INK, bold=True, anchor="mm")
            if i:
                d.line(
                    (left + i * CELL, GRID_TOP + 4, left + i * CELL, GRID_TOP + ROWS * CELL - 4),
                    fill=PANEL_EDGE,
                )
        label_x = left - ROW_LABEL // 2 - 4 if block == 1 else right + ROW_LABEL // 2 + 2
        for r in range(ROWS):
            y = GRID_TOP + r * CELL + CELL // 2
            draw_text(d, (label_x, y), str(r + 1), size, INK, bold=True, anchor="mm")
            if r:
                d.line(
                    (left + 4, GRID_TOP + r * CELL, right - 4, GRID_TOP + r * CELL), fill=PANEL_EDGE
                )
    # between the blocks: the row numbers again, so every token is near a label
    mid = _block_left(1) + BLOCK_COLUMNS * CELL + BLOCK_GAP // 2
    for r in range(ROWS):
        y = GRID_TOP + r * CELL + CELL // 2
        draw_text(d, (mid, y), str(r + 1), size, MUTED, bold=True, anchor="mm")
    # legend: each part's shape, a taken slot, a spare part
    y = LEGEND_TOP + 26
    x = MARGIN + 4
    for part in ("tyre", "wing", "gas", "engine"):
        paste(img, token_sprite(part, None, 38), (x + 19, y))
        draw_text(d, (x + 44, y), PART_LABEL[part], size, INK, bold=True, anchor="lm")
        x += 44 + round(d.textlength(PART_LABEL[part], font=font(size, bold=True))) + 26
    slot = (x, y - 18, x + 36, y + 18)
    d.rounded_rectangle(slot, radius=6, fill=PANEL)
    dashed_rect(d, slot, SLOT_DASH, 5, 2)
    draw_text(d, (x + 44, y), "taken", size, INK, anchor="lm")
    x += 44 + round(d.textlength("taken", font=font(size))) + 26
    paste(img, spare_sprite(34), (x + 17, y))
    draw_text(d, (x + 42, y), "spare", size, INK, anchor="lm")
    return img


@cache
def _empty_slot(coord: str, out_of_play: bool) -> Image.Image:
    """The tile of a cell whose token has left the table (a dashed slot with its coordinate),
    or, for a token not used in this game, a plain pale tile."""
    tile = Image.new("RGB", (CELL - 2, CELL - 2), PANEL)
    d = ImageDraw.Draw(tile)
    box = (4, 4, CELL - 7, CELL - 7)
    if out_of_play:
        d.rounded_rectangle(box, radius=8, fill=(214, 219, 227))
        return tile  # no text: nothing to read on a token that is not in the game
    dashed_rect(d, box, SLOT_DASH, 5, 2)
    draw_text(d, (tile.width / 2, tile.height / 2), coord, TABLE_MIN_FONT, SLOT_TEXT, anchor="mm")
    return tile


def _header(img: Image.Image, d: ImageDraw.ImageDraw, state: PitFormulaState) -> None:
    race = state.race
    size = TABLE_MIN_FONT
    y = TITLE_H // 2
    title = f"Race {race.number}/{state.settings.races}"
    draw_text(d, (MARGIN, y), title, 36, HEADER_FG, bold=True, anchor="lm")
    x = MARGIN + round(d.textlength(title, font=font(36, bold=True))) + 28
    left = race.spares_left if state.phase == "repair" else catalog().components.spare_parts
    spares = counted(left, "spare")
    sw = round(d.textlength(spares, font=font(size, bold=True)))
    draw_text(d, (TABLE_WIDTH - MARGIN, y), spares, size, HEADER_FG, bold=True, anchor="rm")
    paste(img, spare_sprite(34), (TABLE_WIDTH - MARGIN - sw - 24, y))
    room = TABLE_WIDTH - MARGIN - sw - 48 - x
    if state.phase != "repair" or race.crash is None:
        draw_text(d, (x, y), "Waiting for Go!", size, HEADER_FG, bold=True, anchor="lm")
        lines = ["The starting car draws the crash card and says Go."]
    else:
        card = catalog().crash_cards[race.crash]
        if race.super:
            draw_text(d, (x, y), "SUPER", size, SUPER, bold=True, anchor="lm")
            x += round(d.textlength("SUPER ", font=font(size, bold=True)))
            room -= round(d.textlength("SUPER ", font=font(size, bold=True)))
        draw_text(d, (x, y), card.name, 34, HEADER_FG, bold=True, anchor="lm", max_width=room)
        lines = crash_band(card.text())
    for i, line in enumerate(lines):
        draw_text(d, (MARGIN, TITLE_H + 4 + i * CRASH_LINE), line, size, CRASH_TEXT)


def render_table(state: PitFormulaState, names: dict[int, str] | None = None) -> bytes:
    """The token table as a PNG (1000 wide); the final standings once the game is over
    (`names` maps seats to player names there; default "Car N")."""
    if state.phase == "over":
        return render_standings(state, names)
    img = _table_background().copy()
    d = ImageDraw.Draw(img)
    _header(img, d, state)
    for slot, face in enumerate(state.faces):
        row, col = divmod(slot, len(COLUMNS))
        coord = f"{COLUMNS[col]}{row + 1}"
        left_, top, _, _ = cell_box(coord)
        where = state.where[slot]
        if where == ON_TABLE:
            part = {"T": "tyre", "W": "wing", "G": "gas", "E": "engine"}[face[0]]
            paste(img, token_sprite(part, int(face[1]), TOKEN), token_xy(coord))
        else:
            img.paste(_empty_slot(coord, where == OUT_OF_PLAY), (left_ + 1, top + 1))
    return to_png(img)


# --- the final standings -------------------------------------------------------------------

ST_TITLE_H = 110
ST_ROW_H = 72


def standings_rows(state: PitFormulaState, names: dict[int, str] | None) -> list[tuple]:
    """(place, car index or None for the Rival, who, points, trophies), best first."""
    from rules.pitformula import GAME

    rows: list[tuple[int, int | None, str, int, int]] = []
    seen: set[int] = set()
    for p in GAME.classification(state):
        car = car_of_seat(state, p.seat)
        if car in seen:
            continue  # a car's crew share its place: one row per car
        seen.add(car)
        seats = state.cars[car].seats
        who = " & ".join((names or {}).get(s, "") for s in seats if (names or {}).get(s))
        c = state.cars[car]
        rows.append((p.place, car, who or f"Car {car + 1}", c.score, len(c.trophies)))
    if state.settings.solo:
        rival = catalog().rivals[state.settings.rival].name
        place = 1 if state.rival_score >= state.cars[0].score else 2
        rows.append((place, None, rival, state.rival_score, len(state.rival_trophies)))
        rows.sort(key=lambda r: r[0])
    return rows


def render_standings(state: PitFormulaState, names: dict[int, str] | None = None) -> bytes:
    """The championship's final standings: place, car, crew, points, trophies."""
    rows = standings_rows(state, names)
    height = ST_TITLE_H + len(rows) * ST_ROW_H + 16
    img = Image.new("RGB", (TABLE_WIDTH, height), PAPER)
    d = ImageDraw.Draw(img)
    size = TABLE_MIN_FONT
    d.rectangle((0, 0, TABLE_WIDTH, ST_TITLE_H - 1), fill=HEADER_BG)
    draw_text(d, (MARGIN, 14), "Final standings", 40, HEADER_FG, bold=True)
    raced = len(state.results)
    sub = f"after {counted(raced, 'race')}: points, then trophies"
    draw_text(d, (MARGIN, 62), sub, size, CRASH_TEXT)
    for i, (place, car, who, points, trophies) in enumerate(rows):
        top = ST_TITLE_H + i * ST_ROW_H
        d.rectangle((0, top, TABLE_WIDTH, top + ST_ROW_H - 1), fill=ZEBRA if i % 2 else PAPER)
        cy = top + ST_ROW_H // 2
        draw_text(d, (MARGIN + 22, cy), f"{place}.", 36, INK, bold=True, anchor="mm")
        colour = CAR_COLOURS[car % len(CAR_COLOURS)] if car is not None else "black"
        car_marker(d, (MARGIN + 80, cy), colour, str(car + 1) if car is not None else "R", 58)
        score = f"{points} pts · {trophies} troph{'y' if trophies == 1 else 'ies'}"
        sw = round(d.textlength(score, font=font(size, bold=True)))
        draw_text(d, (TABLE_WIDTH - MARGIN, cy), score, size, INK, bold=True, anchor="rm")
        room = TABLE_WIDTH - 2 * MARGIN - sw - 130
        draw_text(d, (MARGIN + 116, cy), who, size, INK, bold=True, anchor="lm", max_width=room)
    return to_png(img)
