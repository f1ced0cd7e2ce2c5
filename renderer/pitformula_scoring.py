"""The Pit Formula scoring sheet of the race just scored, laid out for a phone.

`render_scoring(state, names, board=...)` draws one block per car, one under the other: the
car and its crew with the race's points and the championship total; its seven cards (numbers,
the tokens laid on them, a right/wrong mark; grey when face down); the flag taken and the flag
kept after the checks, with flag points, part points and the spare penalty; and what went wrong
(penalised, missing repairs) or "race winner". In solo games the Rival gets a block too.

The sheet is SC_WIDTH (800) px wide and every text is at least SC_MIN_FONT (24) px: 12 px when
it is shown 400 px wide on a phone.
"""

from __future__ import annotations

from dataclasses import dataclass

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
)
from renderer.pitformula_sprites import (
    BAD,
    CAR_COLOURS,
    GOOD,
    SLOT_LABEL,
    flag_sprite,
    mark_sprite,
    paste,
    spare_sprite,
    token_sprite,
)
from rules.pitformula import CARD_SLOTS, FLAG_NAMES, SLOT_PART, PitFormulaState, card_view, catalog

SC_WIDTH = 800
SC_MIN_FONT = 24  # 24 x 400 / 800 = 12 px on a phone
SC_MARGIN = 16
SC_TITLE_H = 150
NAME_H = 60  # marker, crew, race points and total
CARD_H = 112
CARD_GAP = 6
LINE_H = 38
CAR_H = NAME_H + CARD_H + 2 * LINE_H + 18
RIVAL_H = NAME_H + 2 * LINE_H + 14
SC_LEGEND_H = 2 * LINE_H + 16
CARD_W = (SC_WIDTH - 2 * SC_MARGIN - 6 * CARD_GAP) // 7
FACE_DOWN: RGB = (226, 230, 236)
SUB: RGB = (225, 230, 238)
ENDED = {"flags": "every flag taken", "retire": "every car stopped", "time_up": "time up"}


@dataclass(frozen=True)
class ScoringLayout:
    width: int
    height: int
    rows: int  # cars, plus the Rival in solo games
    cars: int

    def row_top(self, row: int) -> int:
        """Top of a car's block (row = its place in the result; the Rival comes last)."""
        return SC_TITLE_H + row * CAR_H

    def card_box(self, row: int, slot: str) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of a card (`slot` t1 ... e) in a car's block."""
        left = SC_MARGIN + CARD_SLOTS.index(slot) * (CARD_W + CARD_GAP)
        top = self.row_top(row) + NAME_H
        return (left, top, left + CARD_W, top + CARD_H)

    def mark_xy(self, row: int, slot: str) -> tuple[int, int]:
        """Centre of the right/wrong mark of a card in a row."""
        left, top, right, _ = self.card_box(row, slot)
        return (right - 20, top + 20)


def scoring_layout(state: PitFormulaState) -> ScoringLayout:
    result = state.results[-1] if state.results else None
    cars = len(result.cars) if result else 0
    rival = result is not None and result.rival is not None
    height = SC_TITLE_H + cars * CAR_H + (RIVAL_H if rival else 0) + SC_LEGEND_H
    return ScoringLayout(SC_WIDTH, height, cars + int(rival), cars)


def _car_name(state: PitFormulaState, car: int, names: dict[int, str] | None) -> str:
    seats = state.cars[car].seats
    if names:
        got = [names[s] for s in seats if s in names]
        if got:
            return " & ".join(got)
    return f"Car {car + 1}"


def _points(d: ImageDraw.ImageDraw, y: int, race: int, total: int) -> int:
    """'+race  total N' at the right of a block's first line; returns where it starts."""
    text = f"+{race} · total {total}"
    x = SC_WIDTH - SC_MARGIN
    draw_text(d, (x, y), text, 28, INK, bold=True, anchor="rm")
    return x - round(d.textlength(text, font=font(28, bold=True)))


def _title(img: Image.Image, d: ImageDraw.ImageDraw, state: PitFormulaState) -> None:
    result = state.results[-1]
    d.rectangle((0, 0, SC_WIDTH, SC_TITLE_H - 1), fill=HEADER_BG)
    crash = catalog().crash_cards[result.crash]
    title = f"Race {result.number}/{state.settings.races} results"
    draw_text(d, (SC_MARGIN, 10), title, 40, HEADER_FG, bold=True)
    sub = crash.name + (" - SUPER CRASH (+3 to gold)" if result.super else "")
    draw_text(d, (SC_MARGIN, 62), sub, 26, SUB, max_width=SC_WIDTH - 2 * SC_MARGIN)
    y = 124
    draw_text(d, (SC_MARGIN, y), ENDED.get(result.ended_by, ""), SC_MIN_FONT, SUB, anchor="lm")
    flags = max(1, min(3, len(result.cars) - 1)) if result.rival is None else 1
    x = SC_WIDTH - SC_MARGIN
    for f in reversed(range(flags)):
        value = result.flag_values[f] if f < len(result.flag_values) else 0
        text = f"{value} pt" + ("" if value == 1 else "s")
        draw_text(d, (x, y), text, SC_MIN_FONT, HEADER_FG, bold=True, anchor="rm")
        x -= round(d.textlength(text, font=font(SC_MIN_FONT, bold=True))) + 24
        paste(img, flag_sprite(FLAG_NAMES[f], 38), (x, y))
        x -= 40


def _card(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    slot: str,
    view: dict | None,
    mark: bool | None,
) -> None:
    left, top, right, bottom = box
    revealed = view is not None and view["revealed"]
    if mark is not None:
        edge = GOOD if mark else BAD
        d.rounded_rectangle(box, radius=8, fill=(255, 255, 255), outline=edge, width=3)
    elif revealed:
        d.rounded_rectangle(box, radius=8, fill=(255, 255, 255), outline=RULE, width=2)
    else:  # face down (or unknown): a blank grey card
        d.rounded_rectangle(box, radius=8, fill=FACE_DOWN)
    draw_text(d, (left + 8, top + 18), SLOT_LABEL[slot], SC_MIN_FONT, MUTED, bold=True, anchor="lm")
    if mark is not None:
        paste(img, mark_sprite(mark, 26), (right - 20, top + 20))
    if revealed and view is not None:
        a, b = view["numbers"]
        mid = (left + right) / 2
        draw_text(d, (mid, top + 52), f"{a} | {b}", SC_MIN_FONT, INK, bold=True, anchor="mm")
    if view is not None and view["faces"]:
        part = SLOT_PART[slot]
        tx = left + 18
        for face in view["faces"]:
            sprite = spare_sprite(32) if face == "spare" else token_sprite(part, int(face[1]), 32)
            paste(img, sprite, (tx, bottom - 22))
            tx += 34


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
    _title(img, d, state)
    size = SC_MIN_FONT
    totals = [
        sum(r.cars[i].points for r in state.results[: index + 1] if i < len(r.cars))
        for i in range(len(state.cars))
    ]
    for row, cr in enumerate(result.cars):
        top = layout.row_top(row)
        d.rectangle((0, top, SC_WIDTH, top + CAR_H - 1), fill=ZEBRA if row % 2 else PAPER)
        cy = top + NAME_H // 2
        colour = CAR_COLOURS[cr.car % len(CAR_COLOURS)]
        car_marker(d, (SC_MARGIN + 24, cy), colour, str(cr.car + 1), 48)
        right = _points(d, cy, cr.points, totals[cr.car])
        name = _car_name(state, cr.car, names)
        room = right - SC_MARGIN - 60 - 16
        draw_text(d, (SC_MARGIN + 60, cy), name, 28, INK, bold=True, anchor="lm", max_width=room)
        cards = {cs.slot: cs for cs in board.cars[cr.car].cards} if board is not None else {}
        for slot in CARD_SLOTS:
            cs = cards.get(slot)
            view = card_view(board, cs) if board is not None and cs is not None else None
            mark = True if slot in cr.correct else False if slot in cr.errors else None
            _card(img, d, layout.card_box(row, slot), slot, view, mark)
        # the flag taken -> the flag kept, and the points
        y = top + NAME_H + CARD_H + 8 + LINE_H // 2
        x = SC_MARGIN + 18
        if cr.took_flag is not None:
            paste(img, flag_sprite(FLAG_NAMES[cr.took_flag], 34), (x, y))
        else:
            draw_text(d, (x, y), "-", size, MUTED, anchor="mm")
        d.line((x + 20, y, x + 38, y), fill=MUTED, width=3)
        d.polygon([(x + 44, y), (x + 36, y - 6), (x + 36, y + 6)], fill=MUTED)
        if cr.flag is not None:
            paste(img, flag_sprite(FLAG_NAMES[cr.flag], 34), (x + 62, y))
        else:
            paste(img, mark_sprite(False, 24), (x + 62, y))
        fp = f"{cr.flag_points}" + (f"+{cr.super_bonus}" if cr.super_bonus else "")
        spares = f" · spares -{cr.spare_penalty} ({cr.spares} used)" if cr.spares else ""
        text = f"flag {fp} · parts {cr.part_points}{spares}"
        draw_text(d, (x + 92, y), text, size, INK, anchor="lm")
        y += LINE_H
        if cr.penalized:
            status, colour_ = "penalised", BAD
        elif result.winner == cr.car:
            # a passed gold flag can win the race with required cards still empty
            status, colour_ = "race winner", GOOD
        elif cr.missing:
            miss = ", ".join(f"{n} {p}" + ("s" if n > 1 else "") for p, n in cr.missing.items())
            status, colour_ = f"missing {miss}", BAD
        else:
            status, colour_ = "", INK
        if status:
            draw_text(d, (SC_MARGIN, y), status, size, colour_, bold=True, anchor="lm")
    if result.rival is not None:
        rv = result.rival
        top = layout.row_top(len(result.cars))
        d.rectangle((0, top, SC_WIDTH, top + RIVAL_H - 1), fill=(250, 236, 238))
        cy = top + NAME_H // 2
        car_marker(d, (SC_MARGIN + 24, cy), "black", "R", 48)
        rival_total = sum(r.rival.points for r in state.results[: index + 1] if r.rival)
        right = _points(d, cy, rv.points, rival_total)
        name = catalog().rivals[state.settings.rival].name
        room = right - SC_MARGIN - 60 - 16
        draw_text(d, (SC_MARGIN + 60, cy), name, 28, INK, bold=True, anchor="lm", max_width=room)
        y = top + NAME_H + LINE_H // 2
        won = "won the round" if rv.won else "beaten"
        draw_text(d, (SC_MARGIN, y), won, size, BAD if rv.won else GOOD, bold=True, anchor="lm")
        fp = f"{rv.trophy_points}" + (f"+{rv.super_bonus}" if rv.super_bonus else "")
        trophy = f"trophy {fp} · " if rv.won else ""
        text = f"{trophy}{rv.unrepaired_points} for parts unrepaired, {rv.error_points} for errors"
        draw_text(d, (SC_MARGIN, y + LINE_H), text, size, INK, anchor="lm")
    _legend(img, d, layout.height - SC_LEGEND_H)
    return to_png(img)


def _legend(img: Image.Image, d: ImageDraw.ImageDraw, top: int) -> None:
    d.line((0, top, SC_WIDTH, top), fill=RULE)
    size = SC_MIN_FONT
    y = top + 8 + LINE_H // 2
    x = SC_MARGIN
    for sprite, label in (
        (mark_sprite(True, 24), "right"),
        (mark_sprite(False, 24), "wrong"),
        (spare_sprite(28), "spare part"),
    ):
        paste(img, sprite, (x + 12, y))
        draw_text(d, (x + 30, y), label, size, INK, anchor="lm")
        x += 30 + round(d.textlength(label, font=font(size))) + 24
    paste(img, flag_sprite("gold", 28), (x + 14, y))
    paste(img, flag_sprite("silver", 28), (x + 46, y))
    draw_text(d, (x + 66, y), "flag taken, flag kept", size, INK, anchor="lm")
    y += LINE_H
    draw_text(
        d, (SC_MARGIN, y), "Card: its numbers and tokens; grey: face down", size, MUTED, anchor="lm"
    )
