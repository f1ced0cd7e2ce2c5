"""The Race! Formula 90 close-up, `render_closeup(state, section=None)`: the section being
activated and its neighbours (up to 2 before and 3 after, fewer where they would not fit), for
a player reading Discord on a phone, where an image shows about 400 px wide.

The full track image (1860 px) is illegible at that width. The close-up redraws the window of
sections as a ribbon 800 x 540 px: each section keeps its kind (straight, braking zone, curve
tinted apart), its slots in their order (front slot ahead, two abreast on straights, single
file in curves) and the way the track turns at each of its ends, but every section gets the
length its slots need, and the ribbon is turned so that the cars run left to right. Around it,
as on the track image: corner blocks with their duel modifiers (also written in the empty slots
of a curve), run-off areas with their costs and the off-track cars waiting there, section
numbers with the late brake targets (and the brake line), the trajectory symbols with their
bonus, cost and target; on the track the cars (markers with their numbers or robot letters,
the Leader token, "played" / "skipped this game turn" badges, the car to play ringed, lines to
the trajectories they hold), the section being activated lit in yellow and named in the
header, sections under a yellow flag outlined in yellow and black; braking zones carry
chevrons. The header gives the game turn, the section and the weather; the footer what
happens (the car to play, a duel, the safety car, yellow flags).

Every text is at least `MIN_PX` = 24 px, 12 px once the image is scaled to 400 px wide
(`closeup_texts` lists them). The window's layout (the ribbon, its turn, the labels placed by
the label search of the track image) is computed once per track and section, and its static
layer drawn once (supersampled) and cached, compressed, with its PNG palette: an image costs
unpacking it, the cars, two lines of text and the PNG encoding.
"""

from __future__ import annotations

import math
import zlib
from functools import lru_cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    OUTLINE_DARK,
    PALETTE,
    RGB,
    TITLE_BG,
    TITLE_FG,
    palette_reference,
    text_width,
    to_png,
)
from renderer.rf90_base import (
    BRAKE_RED,
    BRAKING,
    CORNER_BG,
    CURVE,
    EDGE,
    ENDED_BG,
    GRASS,
    HIGHLIGHT,
    LABEL_BG,
    LEADER_BG,
    OFF_BG,
    SKIPPED_BG,
    SLOT_LINE,
    STRAIGHT,
    TRAJ_BG,
    WEATHER_RGB,
    Box,
    DrawnText,
    Point,
    PxPoint,
    TextLog,
    _badge,
    _bbox,
    _track,
    _unit,
    car_colour_name,
    corner_title,
    draw_braking_chevrons,
    draw_trajectory_symbol,
    game_turn_text,
    weather_text,
)
from renderer.rf90_closeup_layout import (
    C_MARKER,
    C_TRAJ_R,
    CELL_W,
    CHIP_LINE,
    CLOSEUP_H,
    CLOSEUP_W,
    FOOT_H,
    FOOT_Y,
    LEGEND_ROW,
    LEGEND_ROWS,
    LEGEND_SYMBOL,
    LEGEND_Y,
    LINE_H,
    STUB,
    TEXT_PX,
    TOP_H,
    TRAJ_SYMBOL,
    CloseupLayout,
    _car_spot,
    _centre,
    _layout,
    _moved,
)
from rules.rf90 import GAME, catalog
from rules.rf90.state import RF90State

HEAD_PX = 26  # the header
BADGE_R = 13  # the Leader token's "L" is drawn at TEXT_PX
SS = 2  # supersampling of the static layer
STUB_RGB: RGB = (104, 128, 98)
FLAG_RGB: RGB = (255, 214, 0)


# --- drawing -------------------------------------------------------------------------------


def _s(p: Point) -> tuple[float, float]:
    return (p[0] * SS, p[1] * SS)


def _dashed(draw: ImageDraw.ImageDraw, a: Point, b: Point, colours: tuple[RGB, RGB], width: int,
            dash: float) -> None:  # fmt: skip
    n = max(1, round(math.dist(a, b) / dash))
    for i in range(n):
        p = (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
        q = (a[0] + (b[0] - a[0]) * (i + 1) / n, a[1] + (b[1] - a[1]) * (i + 1) / n)
        draw.line((_s(p), _s(q)), fill=colours[i % 2], width=width * SS)


def _draw_shapes(draw: ImageDraw.ImageDraw, lay: CloseupLayout) -> None:
    tr = _track(lay.track)
    for k, stub in enumerate(lay.stubs):  # the track goes on: faded ends, an arrow ahead
        draw.polygon([_s(p) for p in stub], fill=STUB_RGB)
        if k == 1:
            a = ((stub[0][0] + stub[3][0]) / 2, (stub[0][1] + stub[3][1]) / 2)
            b = ((stub[1][0] + stub[2][0]) / 2, (stub[1][1] + stub[2][1]) / 2)
            u = _unit(b[0] - a[0], b[1] - a[1])
            tip = (a[0] + u[0] * (STUB - 6), a[1] + u[1] * (STUB - 6))
            base = (a[0] + u[0] * 10, a[1] + u[1] * 10)
            w = (-u[1] * 16, u[0] * 16)
            draw.polygon([_s(tip), _s(_moved(base, *w)), _s(_moved(base, -w[0], -w[1]))],
                         fill=(236, 238, 240))  # fmt: skip
    for band in lay.bands.values():
        draw.polygon([_s(p) for p in band], fill=OFF_BG)
        for k in range(4):
            _dashed(draw, band[k], band[(k + 1) % 4], (INK, OFF_BG), 2, 7)
    for i in lay.sections:
        sec = tr.sections[i]
        fill = {"curve": CURVE, "braking": BRAKING}.get(sec.kind, STRAIGHT)
        draw.polygon([_s(p) for p in lay.quads[i]], fill=fill, outline=EDGE, width=3 * SS)
        if sec.kind == "braking":
            draw_braking_chevrons(draw, lay.quads[i], SS)
    for i in lay.sections:
        q = lay.quads[i]
        if i == 0:  # the start / finish line
            _dashed(draw, q[0], q[3], ((255, 255, 255), (20, 20, 20)), 8, 12)
        if tr.sections[i].late_brake is not None:
            _dashed(draw, q[1], q[2], (BRAKE_RED, (255, 255, 255)), 6, 10)
        for x, y in lay.slots[i]:
            r = C_MARKER / 2 - 1
            draw.ellipse(((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS),
                         outline=SLOT_LINE, width=2 * SS)  # fmt: skip
        for t in tr.sections[i].trajectories:
            draw_trajectory_symbol(draw, t.kind, list(t.colours), lay.trajectories[t.id],
                                   C_TRAJ_R, SS)  # fmt: skip
    for a, b in lay.leaders:
        draw.line((_s(a), _s(b)), fill=(250, 250, 250), width=5 * SS)
        draw.line((_s(a), _s(b)), fill=INK, width=2 * SS)
        r = 4 * SS
        draw.ellipse((a[0] * SS - r, a[1] * SS - r, a[0] * SS + r, a[1] * SS + r), fill=INK)


def _chip(draw: ImageDraw.ImageDraw, box: Box, fill: RGB) -> None:
    draw.rounded_rectangle(box, radius=6, fill=fill, outline=INK, width=2)


def _chip_lines(draw: ImageDraw.ImageDraw, cx: float, cy: float, text: str, log: TextLog) -> None:
    """A chip's text, on one line or two, centred on (cx, cy)."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        y = cy + (k - (len(lines) - 1) / 2) * CHIP_LINE
        log.text(draw, (cx, y), line, TEXT_PX, INK, bold=True, anchor="mm")


def _draw_labels(draw: ImageDraw.ImageDraw, lay: CloseupLayout, lit: bool, log: TextLog) -> None:
    tr = _track(lay.track)
    trajectories = {t.id: t for i in lay.sections for t in tr.sections[i].trajectories}
    for lb in lay.labels:
        x0, y0, x1, y1 = lb.box
        cy = (y0 + y1) / 2
        if lb.kind == "corner":
            sec = tr.sections[int(lb.ref)]
            assert sec.corner is not None
            lines = lb.text.split("\n")
            head = HIGHLIGHT if lit and sec.index == lay.section else CORNER_BG
            draw.rounded_rectangle(lb.box, radius=6, fill=head)
            ry = y0 + LINE_H * len(lines)
            draw.rectangle((x0, ry, x1, y1 - 6), fill=LABEL_BG)
            draw.rounded_rectangle((x0, ry, x1, y1), radius=6, fill=LABEL_BG)
            for k, line in enumerate(lines):
                log.text(draw, (x0 + 8, y0 + LINE_H * k + LINE_H / 2 + 1), line, TEXT_PX, INK,
                         bold=True, anchor="lm")  # fmt: skip
            for k, m in enumerate(sec.corner.duel_modifiers):
                cx = x0 + k * CELL_W
                if k:
                    draw.line((cx, ry + 4, cx, y1 - 4), fill=(150, 156, 166), width=2)
                log.text(draw, (cx + CELL_W / 2, ry + LINE_H / 2), f"{m:+d}" if m else "0",
                         TEXT_PX, INK, bold=True, anchor="mm")  # fmt: skip
            draw.line((x0, ry, x1, ry), fill=(150, 156, 166), width=2)
            draw.rounded_rectangle(lb.box, radius=6, outline=INK, width=2)
        elif lb.kind == "section":
            sec = tr.sections[int(lb.ref)]
            num = str(sec.index)
            nw = text_width(num, TEXT_PX, True) + 18
            fill = HIGHLIGHT if lit and sec.index == lay.section else LABEL_BG
            draw.rounded_rectangle(lb.box, radius=6, fill=fill)
            if sec.late_brake is not None:
                draw.rounded_rectangle((x0 + nw - 8, y0, x1, y1), radius=6, fill=BRAKE_RED)
                draw.rectangle((x0 + nw, y0, x0 + nw + 8, y1), fill=BRAKE_RED)
                log.text(draw, ((x0 + nw + x1) / 2, cy), lb.text, TEXT_PX, (255, 255, 255),
                         bold=True, anchor="mm")  # fmt: skip
            log.text(draw, (x0 + nw / 2, cy), num, TEXT_PX, INK, bold=True, anchor="mm")
            draw.rounded_rectangle(lb.box, radius=6, outline=INK, width=2)
        elif lb.kind == "offtrack":
            _chip(draw, lb.box, OFF_BG)
            _chip_lines(draw, (x0 + x1) / 2, cy, lb.text, log)
        elif lb.kind == "trajectory":
            t = trajectories[lb.ref]
            _chip(draw, lb.box, TRAJ_BG)
            draw_trajectory_symbol(draw, t.kind, list(t.colours),
                                   (x0 + 6 + TRAJ_SYMBOL / 2, cy), 11)  # fmt: skip
            _chip_lines(draw, (x0 + TRAJ_SYMBOL + x1) / 2, cy, lb.text, log)
    for i in lay.sections:  # a curve's duel modifiers, in its empty slots (cars cover them)
        sec = tr.sections[i]
        if sec.corner is None:
            continue
        for (x, y), m in zip(lay.slots[i], sec.corner.duel_modifiers, strict=True):
            log.text(draw, (x, y), f"{m:+d}" if m else "0", TEXT_PX, (196, 204, 226), bold=True,
                     anchor="mm")  # fmt: skip


def _static(track: str, section: int, lit: bool) -> tuple[Image.Image, tuple[DrawnText, ...]]:
    """The close-up's static layer (everything but the cars, the flags and the two lines of
    text) and the texts it draws."""
    lay = _layout(track, section)
    big = Image.new("RGB", (CLOSEUP_W * SS, CLOSEUP_H * SS), GRASS)
    _draw_shapes(ImageDraw.Draw(big), lay)
    img = big.reduce(SS)  # a box filter: smooth edges, fast
    if lit:  # the section being activated, tinted and outlined as on the track image
        x0, y0, x1, y1 = _bbox(lay.quads[section])
        x0, y0 = math.floor(x0) - 6, math.floor(y0) - 6
        mask = Image.new("L", (math.ceil(x1) + 7 - x0, math.ceil(y1) + 7 - y0), 0)
        d = ImageDraw.Draw(mask)
        pts = [(x - x0, y - y0) for x, y in lay.quads[section]]
        d.polygon(pts, fill=110)
        d.line(pts + [pts[0]], fill=255, width=7, joint="curve")
        img.paste(HIGHLIGHT, (x0, y0, x0 + mask.width, y0 + mask.height), mask)
    draw = ImageDraw.Draw(img)
    log = TextLog()
    _draw_labels(draw, lay, lit, log)
    draw.rectangle((0, 0, CLOSEUP_W, TOP_H - 1), fill=HEADER_BG)
    draw.rectangle((0, FOOT_Y, CLOSEUP_W, CLOSEUP_H), fill=HEADER_BG)
    _draw_legend(draw, log)
    return img, tuple(log)


LEGEND_FG: RGB = (206, 212, 222)


def _draw_legend(draw: ImageDraw.ImageDraw, log: TextLog) -> None:
    """What the symbols mean, below the footer: trajectories, the late brake line, run-off
    areas, braking zones, the Leader token, the cars that played or skipped this game turn."""
    draw.line((0, LEGEND_Y, CLOSEUP_W, LEGEND_Y), fill=(90, 98, 112), width=2)
    for r, row in enumerate(LEGEND_ROWS):
        cy = LEGEND_Y + 6 + LEGEND_ROW * r + LEGEND_ROW / 2
        for kind, text, x in row:
            sx = x + LEGEND_SYMBOL / 2  # the symbol's centre
            if kind in ("normal", "sharp", "extreme"):
                draw_trajectory_symbol(draw, kind, ["orange"], (sx, cy), 11)
            elif kind == "brake":
                for k in range(5):
                    c = BRAKE_RED if k % 2 == 0 else (255, 255, 255)
                    draw.rectangle((sx - 17 + k * 7, cy - 5, sx - 10 + k * 7, cy + 5), fill=c)
            elif kind == "off":
                draw.rounded_rectangle((sx - 17, cy - 12, sx + 17, cy + 12), radius=4,
                                       fill=OFF_BG, outline=INK)  # fmt: skip
            elif kind in ("curve", "braking"):
                quad = [(sx - 17, cy - 12), (sx + 17, cy - 12), (sx + 17, cy + 12),
                        (sx - 17, cy + 12)]  # fmt: skip
                draw.rectangle((sx - 17, cy - 12, sx + 17, cy + 12),
                               fill=CURVE if kind == "curve" else BRAKING)  # fmt: skip
                if kind == "braking":
                    draw_braking_chevrons(draw, quad, 1, 3)
            elif kind == "L":
                _badge(draw, (sx, cy), "", LEADER_BG, BADGE_R)
                log.text(draw, (sx, cy + 1), "L", TEXT_PX, INK, bold=True, anchor="mm")
            else:
                colour = ENDED_BG if kind == "ok" else SKIPPED_BG
                _badge(draw, (sx, cy), kind, colour, BADGE_R - 2)
            log.text(draw, (x + LEGEND_SYMBOL + 6, cy), text, TEXT_PX, LEGEND_FG, anchor="lm")


def _reference(static: Image.Image) -> Image.Image:
    """The PNG palette of the close-ups over this static layer: its colours plus every car,
    badge and text colour, so that an image is only mapped to it."""
    sample = static.resize((static.width // 2, static.height // 2), Image.Resampling.NEAREST)
    extra: list[RGB] = [HIGHLIGHT, LEADER_BG, ENDED_BG, SKIPPED_BG, TITLE_BG, TITLE_FG, INK,
                        HEADER_FG, (255, 255, 255), (0, 0, 0), OUTLINE_DARK, FLAG_RGB,
                        *WEATHER_RGB.values()]  # fmt: skip
    return palette_reference(sample, 160, extra)


@lru_cache(maxsize=128)
def _layer(track: str, section: int, lit: bool) -> tuple[bytes, Image.Image, tuple[DrawnText, ...]]:
    """The static layer of a close-up mapped to its palette, kept as its pixels compressed
    (~25 KB against 500 KB: every section of both tracks, uncompressed, took ~40 MB of the
    bot's memory; unpacking costs ~0.5 ms an image), the palette, and the texts the layer
    draws."""
    static, texts = _static(track, section, lit)
    ref = _reference(static)
    mapped = static.quantize(palette=ref, dither=Image.Dither.NONE)
    return zlib.compress(mapped.tobytes(), 1), ref, texts


def _unpacked(packed: bytes, ref: Image.Image) -> Image.Image:
    """A static layer `_layer` keeps, in RGB to draw on."""
    img = Image.frombytes("P", (CLOSEUP_W, CLOSEUP_H), zlib.decompress(packed))
    img.putpalette(ref.getpalette() or [])
    return img.convert("RGB")


def _header(state: RF90State, section: int, lit: bool) -> str:
    where = f"section {section} activated" if lit else f"section {section}"
    return f"{game_turn_text(state)} · {where}"


def _footer(state: RF90State, lay: CloseupLayout) -> str:
    tr = _track(state)
    bits = []
    if state.duel is not None:
        sec = tr.sections[state.duel.section]
        where = corner_title(sec) if sec.corner else f"section {sec.index}"
        bits.append(f"Duel at {where}")
    elif state.pending is not None:
        car = state.cars[state.pending.car]
        where = "" if car.section in lay.slots else f", at section {car.section}"
        bits.append(f"To play: {car.name} (phase {state.pending.phase}{where})")
    if state.phase == "race" and state.turn <= state.safety_car_until:
        bits.append(f"Safety car: max {catalog.tables().flags.safety_car_max_mp} MP")
    if state.yellow_flags:
        flags = ", ".join(str(s) for s in sorted(state.yellow_flags))
        bits.append(f"Yellow flag at {flags}")
    return " · ".join(bits)


def _draw_dynamic(draw: ImageDraw.ImageDraw, state: RF90State, lay: CloseupLayout, lit: bool,
                  log: TextLog) -> None:  # fmt: skip
    spots = {car.id: _car_spot(state, lay, car) for car in state.cars}
    for i in sorted(set(state.yellow_flags) & set(lay.quads)):  # yellow flag: a striped rim
        q = lay.quads[i]
        for k in range(4):
            a, b = q[k], q[(k + 1) % 4]
            n = max(1, round(math.dist(a, b) / 12))
            for j in range(n):
                p = (a[0] + (b[0] - a[0]) * j / n, a[1] + (b[1] - a[1]) * j / n)
                end = (a[0] + (b[0] - a[0]) * (j + 1) / n, a[1] + (b[1] - a[1]) * (j + 1) / n)
                draw.line((p, end), fill=FLAG_RGB if j % 2 == 0 else INK, width=6)
    for car in state.cars:  # trajectory lines under the markers
        spot = spots[car.id]
        if spot is not None and car.trajectory and not spot[1]:
            t = lay.trajectories.get(car.trajectory)
            if t is not None:
                draw.line((spot[0], t), fill=INK, width=7)
                draw.line((spot[0], t), fill=PALETTE.get(car_colour_name(car), PALETTE["grey"])
                          .fill, width=3)  # fmt: skip
    pending = state.pending.car if state.pending is not None else None
    duel = set(state.duel.order) if state.duel is not None else set()
    lead = GAME.public_view(state).get("leader") if state.phase in ("race", "finished") else None
    for car in state.cars:
        spot = spots[car.id]
        if spot is None:
            continue
        xy: PxPoint = (round(spot[0][0]), round(spot[0][1]))
        half = C_MARKER // 2
        if car.id == pending or car.id in duel:
            r = half + 7  # a yellow ring, edged dark to show on the lit section too
            draw.ellipse((xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r), outline=INK, width=8)
            r -= 1
            draw.ellipse((xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r), outline=HIGHLIGHT, width=5)
        log.car(draw, state, car, xy, C_MARKER)
        if car.id == lead:
            c = (xy[0] - half + 3, xy[1] - half + 3)
            _badge(draw, c, "", LEADER_BG, BADGE_R)
            log.text(draw, (c[0], c[1] + 1), "L", TEXT_PX, INK, bold=True, anchor="mm")
        if car.mark in ("ended", "skipped"):
            kind, colour = ("ok", ENDED_BG) if car.mark == "ended" else ("II", SKIPPED_BG)
            _badge(draw, (xy[0] + half - 3, xy[1] + half - 3), kind, colour, BADGE_R - 2)
    # the header: turn and section, the weather; the footer: what happens
    weather, colour = weather_text(state)
    ww = text_width(weather, TEXT_PX, True) + 20
    wx = CLOSEUP_W - 10 - ww
    draw.rounded_rectangle((wx, 8, CLOSEUP_W - 10, TOP_H - 8), radius=6, fill=colour)
    fg = (255, 255, 255) if weather.startswith("Rain") else INK
    log.text(draw, (wx + ww / 2, TOP_H / 2), weather, TEXT_PX, fg, bold=True, anchor="mm")
    log.text(draw, (12, TOP_H / 2), _header(state, lay.section, lit), HEAD_PX, HEADER_FG,
             bold=True, anchor="lm", max_width=wx - 24)  # fmt: skip
    foot = _footer(state, lay)
    if foot:
        log.text(draw, (12, FOOT_Y + FOOT_H / 2), foot, TEXT_PX, HEADER_FG, anchor="lm",
                 max_width=CLOSEUP_W - 24)  # fmt: skip


def _compose(state: RF90State, section: int | None) -> tuple[Image.Image, TextLog, Image.Image]:
    """The close-up, the texts it draws and its PNG palette."""
    tr = _track(state)
    centre, lit = _centre(state, section)
    if not 0 <= centre < tr.length:
        raise ValueError(f"no section {centre} on {tr.name}")
    packed, ref, texts = _layer(tr.id, centre, lit)
    lay = _layout(tr.id, centre)
    img = _unpacked(packed, ref)
    log = TextLog(texts)
    _draw_dynamic(ImageDraw.Draw(img), state, lay, lit, log)
    return img, log, ref


def render_closeup(state: RF90State, section: int | None = None) -> bytes:
    """The close-up of `section` (by default the section being activated, lit) and its
    neighbours, with the cars, 800 x 540 px."""
    img, _, ref = _compose(state, section)
    return to_png(img, reference=ref)


def closeup_texts(state: RF90State, section: int | None = None) -> list[DrawnText]:
    """Every text `render_closeup(state, section)` draws, with its size in px."""
    return list(_compose(state, section)[1])


def warm_closeups(track: str) -> None:
    """Lay out and draw the static layer of the close-up of every section of a track (lit, as
    while it is activated): ~50 ms each."""
    for section in range(_track(track).length):
        _layer(track, section, True)
