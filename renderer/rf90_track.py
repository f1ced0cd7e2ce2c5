"""The Race! Formula 90 track image, `render_track(state, active_section=None)`: the static
layer (circuit, labels, infield texts, strip, legend) drawn once per track, supersampled and
cached with its PNG palette; each image then draws the moving parts over it, and the header
band (the game turn, the section activated, the weather, who is to play or the winner) in
type a phone shows at 12 px."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageChops, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    MUTED,
    OUTLINE_DARK,
    PAPER,
    RGB,
    TITLE_BG,
    TITLE_FG,
    MarkerShape,
    car_colour,
    car_marker,
    draw_text,
    palette_reference,
    text_width,
    to_png,
)
from renderer.rf90_base import (
    BAND_H,
    BAND_PX,
    BRAKE_RED,
    BRAKING,
    CHIP_PX,
    CORNER_BG,
    CURVE,
    EDGE,
    ENDED_BG,
    GRASS,
    HEIGHT,
    HIGHLIGHT,
    INFIELD,
    LABEL_BG,
    LEADER_BG,
    LIST_MARKER,
    LIST_PX,
    MARKER,
    NAME_PX,
    OFF_BG,
    OFF_MARKER,
    ROBOT_LETTERS,
    SKIPPED_BG,
    SLOT_LINE,
    SS,
    STRAIGHT,
    STRIP_BG,
    STRIP_PX,
    TEXT_PX,
    TITLE_PX,
    TRAJ_BG,
    TRAJ_CHIP_SYMBOL,
    TRAJ_R,
    WEATHER_RGB,
    Box,
    H,
    Point,
    W,
    _badge,
    _inner,
    _marker,
    _off_band,
    _polys,
    _slots,
    _track,
    _traj_xy,
    car_colour_name,
    car_xy,
    draw_braking_chevrons,
    draw_trajectory_symbol,
    section_box,
)
from renderer.rf90_track_layout import (
    BAND_DISC,
    CELL_W,
    CHIT_Y,
    LEGEND_ROWS,
    LEGEND_Y,
    ROW_H,
    STAGE_H,
    STAGE_Y,
    STRIP_LEFT,
    TURN_ROW_H,
    TURN_ROW_Y,
    _car_list,
    _cell_w,
    _chits,
    _infield,
    _legend_xy,
    _stage_spans,
    _static_layout,
    _subtitle,
    _weather_cell_box,
    _weather_head,
    band,
    traj_text,
)
from rules.rf90 import GAME, catalog
from rules.rf90.catalog import Section, Track
from rules.rf90.state import RF90State

# --- static layer ------------------------------------------------------------------------


def _s(p: Point) -> tuple[float, float]:
    return (p[0] * SS, p[1] * SS)


def _dashed(
    draw: ImageDraw.ImageDraw, a: Point, b: Point, colours: tuple[RGB, RGB], width: int, dash: float
) -> None:
    length = math.dist(a, b)
    n = max(1, round(length / dash))
    for i in range(n):
        t0, t1 = i / n, (i + 1) / n
        p = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
        q = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
        draw.line((_s(p), _s(q)), fill=colours[i % 2], width=width * SS)


def _draw_shapes(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Sections, the start line, run-off areas, slots, brake lines, trajectory symbols and
    the leader lines of the labels, at SS x scale."""
    polys = _polys(tr.id)
    for sec in tr.sections:
        if sec.off_track is not None:
            band = _off_band(tr.id, sec.index)
            draw.polygon([_s(p) for p in band], fill=OFF_BG)
            for i in range(4):
                _dashed(draw, band[i], band[(i + 1) % 4], (INK, OFF_BG), 2, 7)
    for sec in tr.sections:
        fill = {"curve": CURVE, "braking": BRAKING}.get(sec.kind, STRAIGHT)
        draw.polygon([_s(p) for p in polys[sec.index]], fill=fill, outline=EDGE, width=3 * SS)
        if sec.kind == "braking":
            draw_braking_chevrons(draw, polys[sec.index], SS)
    # start / finish line: chequered along the start edge of section 0
    a, b = polys[0][0], polys[0][3]
    _dashed(draw, a, b, ((255, 255, 255), (20, 20, 20)), 8, 10)
    for sec in tr.sections:
        if sec.late_brake is not None:  # the brake line across the end of the braking zone
            _dashed(draw, polys[sec.index][1], polys[sec.index][2], (BRAKE_RED, (255, 255, 255)),
                    6, 9)  # fmt: skip
        for x, y in _slots(tr.id)[sec.index]:
            r = MARKER / 2 - 2
            draw.ellipse(((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS),
                         outline=SLOT_LINE, width=2 * SS)  # fmt: skip
        for t in sec.trajectories:
            draw_trajectory_symbol(draw, t.kind, list(t.colours), _traj_xy(tr.id)[t.id], TRAJ_R,
                                   SS)  # fmt: skip
    for a, b in _static_layout(tr.id, tr.race_turns).leaders:
        draw.line((_s(a), _s(b)), fill=(250, 250, 250), width=5 * SS)
        draw.line((_s(a), _s(b)), fill=INK, width=2 * SS)
        r = 4 * SS
        draw.ellipse((a[0] * SS - r, a[1] * SS - r, a[0] * SS + r, a[1] * SS + r), fill=INK)


def _draw_corner(draw: ImageDraw.ImageDraw, sec: Section, text: str, box: Box) -> None:
    assert sec.corner is not None
    x0, y0, x1, y1 = box
    lines = text.split("\n")
    draw.rounded_rectangle(box, radius=6, fill=CORNER_BG)
    for i, line in enumerate(lines):
        draw_text(draw, (x0 + 8, y0 + ROW_H * i + ROW_H / 2 + 1), line, NAME_PX, INK, bold=True,
                  anchor="lm")  # fmt: skip
    ry = y0 + ROW_H * len(lines)
    draw.rectangle((x0, ry, x1, y1 - 6), fill=LABEL_BG)
    draw.rounded_rectangle((x0, ry, x1, y1), radius=6, fill=LABEL_BG)
    mods = sec.corner.duel_modifiers
    for i, m in enumerate(mods):
        cx = x0 + i * CELL_W
        if i:
            draw.line((cx, ry + 4, cx, y1 - 4), fill=(150, 156, 166), width=2)
        draw_text(draw, (cx + CELL_W / 2, ry + ROW_H / 2), f"{m:+d}" if m else "0", NAME_PX, INK,
                  bold=True, anchor="mm")  # fmt: skip
    draw.line((x0, ry, x1, ry), fill=(150, 156, 166), width=2)
    draw.rounded_rectangle(box, radius=6, outline=INK, width=2)


def _draw_section_chip(draw: ImageDraw.ImageDraw, sec: Section, box: Box) -> None:
    x0, y0, x1, y1 = box
    num = str(sec.index)
    nw = text_width(num, NAME_PX, True) + 18
    draw.rounded_rectangle(box, radius=6, fill=LABEL_BG)
    if sec.late_brake is not None:
        draw.rounded_rectangle((x0 + nw - 8, y0, x1, y1), radius=6, fill=BRAKE_RED)
        draw.rectangle((x0 + nw, y0, x0 + nw + 8, y1), fill=BRAKE_RED)
        draw_text(draw, ((x0 + nw + x1) / 2, (y0 + y1) / 2), f"late brake {sec.late_brake.target}",
                  CHIP_PX, (255, 255, 255), bold=True, anchor="mm")  # fmt: skip
    draw_text(draw, (x0 + nw / 2, (y0 + y1) / 2), num, NAME_PX, INK, bold=True, anchor="mm")
    draw.rounded_rectangle(box, radius=6, outline=INK, width=2)


def _draw_static_labels(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    trajectories = {t.id: t for s in tr.sections for t in s.trajectories}
    for lb in _static_layout(tr.id, tr.race_turns).labels:
        if lb.kind == "corner":
            _draw_corner(draw, tr.sections[int(lb.ref)], lb.text, lb.box)
        elif lb.kind == "section":
            _draw_section_chip(draw, tr.sections[int(lb.ref)], lb.box)
        elif lb.kind == "offtrack":
            draw.rounded_rectangle(lb.box, radius=6, fill=OFF_BG, outline=INK, width=2)
            x0, y0, x1, y1 = lb.box
            lines = lb.text.split("\n")
            for k, line in enumerate(lines):
                cy = (y0 + y1) / 2 + (k - (len(lines) - 1) / 2) * (ROW_H - 8)
                draw_text(draw, ((x0 + x1) / 2, cy), line, CHIP_PX, INK, bold=True, anchor="mm")
        elif lb.kind == "trajectory":
            t = trajectories[lb.ref]
            draw.rounded_rectangle(lb.box, radius=6, fill=TRAJ_BG, outline=INK, width=2)
            x0, y0, x1, y1 = lb.box
            cy = (y0 + y1) / 2
            draw_trajectory_symbol(draw, t.kind, list(t.colours), (x0 + 6 + TRAJ_CHIP_SYMBOL / 2,
                                                                  cy), 10)  # fmt: skip
            draw_text(draw, ((x0 + TRAJ_CHIP_SYMBOL + x1) / 2, cy), traj_text(t), CHIP_PX, INK,
                      bold=True, anchor="mm")  # fmt: skip


def _draw_infield(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    """Title, the weather track (the pawn is drawn per image)."""
    f = _infield(tr.id)
    draw_text(draw, f.title, tr.name, TITLE_PX, INK, bold=True,
              anchor="mm")  # fmt: skip
    draw_text(draw, f.subtitle, _subtitle(tr), TEXT_PX, MUTED,
              anchor="mm")  # fmt: skip
    for i, sp in enumerate(catalog.tables().weather.spaces):
        box = _weather_cell_box(tr.id, i)
        draw.rectangle(box, fill=WEATHER_RGB[sp.name], outline=(120, 126, 136))
        fg = (255, 255, 255) if sp.name == "Rain" else INK
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), sp.name, TEXT_PX, fg,
                  anchor="mm")  # fmt: skip


def _draw_legend(draw: ImageDraw.ImageDraw) -> None:
    draw.rectangle((0, LEGEND_Y, W, HEIGHT), fill=PAPER)
    draw.line((0, LEGEND_Y, W, LEGEND_Y), fill=(200, 204, 212), width=2)
    for i, (kind, text) in enumerate(LEGEND_ROWS):
        x, cy = _legend_xy(i)
        sx = x + 20  # the symbol's centre
        if kind in ("normal", "sharp", "extreme"):
            draw_trajectory_symbol(draw, kind, ["orange"], (sx, cy), 11)
        elif kind == "brake":
            for k in range(5):
                c = BRAKE_RED if k % 2 == 0 else (255, 255, 255)
                draw.rectangle((sx - 18 + k * 7, cy - 5, sx - 11 + k * 7, cy + 5), fill=c)
            draw.rectangle((sx - 18, cy - 5, sx + 17, cy + 5), outline=INK)
        elif kind == "off":
            draw.rounded_rectangle((sx - 18, cy - 12, sx + 18, cy + 12), radius=4, fill=OFF_BG,
                                   outline=INK)  # fmt: skip
        elif kind in ("curve", "braking"):
            draw.rectangle((sx - 18, cy - 12, sx + 18, cy + 12),
                           fill=CURVE if kind == "curve" else BRAKING)  # fmt: skip
            if kind == "braking":
                quad = [(sx - 18, cy - 12), (sx + 18, cy - 12), (sx + 18, cy + 12),
                        (sx - 18, cy + 12)]  # fmt: skip
                draw_braking_chevrons(draw, quad, 1, 3)
        elif kind == "player":
            car_marker(draw, (round(sx), round(cy)), "white", "1", 32)
        elif kind == "robot":
            car_marker(draw, (round(sx), round(cy)), "white", "X1", 32, shape="rounded")
        else:
            colour = {"L": LEADER_BG, "ok": ENDED_BG, "II": SKIPPED_BG}[kind]
            _badge(draw, (sx, cy), kind, colour, 13)
        draw_text(draw, (x + 52, cy), text, TEXT_PX, INK, anchor="lm")


def _static(track_name: str, race_turns: int) -> Image.Image:
    """The static layer in RGB, drawn once per track by `_layers` and not kept (9.7 MB)."""
    tr = catalog.track(track_name, race_turns)
    big = Image.new("RGB", (W * SS, H * SS), GRASS)
    d = ImageDraw.Draw(big)
    d.polygon([_s(p) for p in _inner(track_name)], fill=INFIELD)
    _draw_shapes(d, tr)
    img = big.resize((W, H), Image.Resampling.LANCZOS)
    full = Image.new("RGB", (W, HEIGHT), PAPER)
    full.paste(img, (0, 0))
    draw = ImageDraw.Draw(full)
    draw.rectangle((0, 0, W, BAND_H - 1), fill=HEADER_BG)
    _draw_static_labels(draw, tr)
    _draw_infield(draw, tr)
    _draw_strip_static(draw, tr)
    _draw_legend(draw)
    return full


@cache
def _section_mask(track_name: str, section: int) -> tuple[Image.Image, tuple[int, int]]:
    x0, y0, x1, y1 = section_box(track_name, section)
    x0, y0 = max(0, x0 - 6), max(0, y0 - 6)
    mask = Image.new("L", (x1 + 7 - x0, y1 + 7 - y0), 0)
    d = ImageDraw.Draw(mask)
    pts = [(x - x0, y - y0) for x, y in _polys(track_name)[section]]
    d.polygon(pts, fill=110)
    d.line(pts + [pts[0]], fill=255, width=7, joint="curve")
    return mask, (x0, y0)


def _draw_strip_static(draw: ImageDraw.ImageDraw, tr: Track) -> None:
    draw.rectangle((0, H, W, LEGEND_Y), fill=STRIP_BG)
    draw.line((0, H, W, H), fill=INK, width=2)
    draw_text(draw, (12, TURN_ROW_Y + TURN_ROW_H / 2), "Game turn", STRIP_PX, INK, bold=True,
              anchor="lm")  # fmt: skip
    draw_text(draw, (12, CHIT_Y + 20), "Fuel", STRIP_PX, INK, bold=True, anchor="lm")
    cw = _cell_w(tr)
    for k, (a, b) in enumerate(_stage_spans(tr)):
        shade = (226, 232, 244) if k % 2 == 0 else (212, 220, 236)
        draw.rectangle((a, STAGE_Y, b - 2, STAGE_Y + STAGE_H), fill=shade)
        draw_text(draw, ((a + b) / 2, STAGE_Y + STAGE_H / 2), f"Stage {k + 1}", STRIP_PX, INK,
                  bold=True, anchor="mm")  # fmt: skip
    for t in range(1, tr.race_turns + 1):
        x0 = STRIP_LEFT + (t - 1) * cw
        draw.rectangle((x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H),
                       fill=(255, 255, 255), outline=(150, 156, 166))  # fmt: skip
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(t), STRIP_PX, INK,
                  anchor="mm")  # fmt: skip
        draw.line((x0 + cw - 1, CHIT_Y, x0 + cw - 1, LEGEND_Y - 8), fill=(226, 229, 234))


# --- dynamic parts -----------------------------------------------------------------------


def _draw_cars(draw: ImageDraw.ImageDraw, state: RF90State, leader: int | None) -> None:
    tr = _track(state)
    pending = state.pending.car if state.pending is not None else None
    placed = [(car, car_xy(state, car.id)) for car in state.cars]
    for car, xy in placed:  # trajectory lines first: markers are never under a line
        if xy is not None and car.trajectory and not car.off_track:
            t = _traj_xy(tr.id)[car.trajectory]
            draw.line((xy, t), fill=INK, width=6)
            draw.line((xy, t), fill=car_colour(car_colour_name(car)).fill, width=3)
    for car, xy in placed:
        if xy is None:
            continue
        size = OFF_MARKER if car.off_track else MARKER
        if car.id == pending or (state.duel is not None and car.id in state.duel.order):
            r = size // 2 + 6
            draw.ellipse((xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r), outline=HIGHLIGHT,
                         width=5)  # fmt: skip
        _marker(draw, state, car, xy, size)
        half = size // 2
        br = max(8, round(size / 4.2))
        if car.id == leader:
            _badge(draw, (xy[0] - half + 2, xy[1] - half + 2), "L", LEADER_BG, br)
        if car.mark == "ended":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "ok", ENDED_BG, br - 1)
        elif car.mark == "skipped":
            _badge(draw, (xy[0] + half - 2, xy[1] + half - 2), "II", SKIPPED_BG, br - 1)


def _draw_infield_dynamic(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    f = _infield(state.track)
    draw_text(draw, f.weather_head, _weather_head(state), NAME_PX, INK, bold=True, anchor="mm")
    spaces = catalog.tables().weather.spaces
    pawn = min(max(state.weather, 0), len(spaces) - 1)
    x0, y0, x1, y1 = _weather_cell_box(state.track, pawn)
    draw.rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), outline=INK, width=4)
    px = (x0 + x1) / 2
    draw.polygon([(px, y1 + 5), (px - 12, y1 + 24), (px + 12, y1 + 24)], fill=INK)
    for e in _car_list(state):
        if e.car is not None:
            _marker(draw, state, e.car, e.marker, LIST_MARKER)
        draw_text(draw, e.text_xy, e.text, LIST_PX, INK if e.car is not None else MUTED,
                  anchor="lm")  # fmt: skip


def _draw_band(draw: ImageDraw.ImageDraw, state: RF90State, active_section: int | None) -> None:
    """The header band: two lines a phone shows at 12 px (the band's dark ground is static)."""
    b = band(state, active_section)
    draw_text(draw, b.head_xy, b.head, BAND_PX, HEADER_FG, bold=True, anchor="lm")
    draw.rounded_rectangle(b.chip, radius=12, fill=b.weather_rgb)
    fg = (255, 255, 255) if b.weather.startswith("Rain") else INK
    draw_text(draw, ((b.chip[0] + b.chip[2]) / 2, (b.chip[1] + b.chip[3]) / 2), b.weather,
              BAND_PX, fg, bold=True, anchor="mm")  # fmt: skip
    if b.car is not None:  # the car's colour, with no number: its name follows
        shape: MarkerShape = "rounded" if b.car.is_robot else "circle"
        car_marker(draw, b.disc, car_colour_name(b.car), "", BAND_DISC, shape=shape)
    if b.sub:
        draw_text(draw, b.sub_xy, b.sub, BAND_PX, HEADER_FG, anchor="lm")


def _draw_strip(draw: ImageDraw.ImageDraw, state: RF90State) -> None:
    tr = _track(state)
    cw = _cell_w(tr)
    if state.phase in ("race", "finished") and 1 <= state.turn <= tr.race_turns:
        x0 = STRIP_LEFT + (state.turn - 1) * cw
        draw.rectangle((x0, TURN_ROW_Y, x0 + cw - 2, TURN_ROW_Y + TURN_ROW_H), fill=TITLE_BG)
        draw_text(draw, (x0 + cw / 2 - 1, TURN_ROW_Y + TURN_ROW_H / 2), str(state.turn),
                  STRIP_PX + 2, TITLE_FG, bold=True, anchor="mm")  # fmt: skip
    colours = catalog.tables().robots.colours
    for item, over, xy, size in _chits(state):
        if isinstance(item, str):  # a robot pit token: the robot type's colour and letter
            car_marker(draw, xy, colours[item], ROBOT_LETTERS[item], size, shape="rounded")
        else:
            _marker(draw, state, item, xy, size)
            if over:  # carried over the top: a second lap of the indicator
                _badge(draw, (xy[0] + size // 2 - 2, xy[1] - size // 2 + 3), "+", INK, 7)


def render_track(state: RF90State, *, active_section: int | None = None) -> bytes:
    """The track image: the header band, circuit, trajectories, cars, marks, the active
    section, the weather, the car list, the game turn indicator strip with the fuel chits, and
    a legend. The section lit is `active_section`, by default the one whose activation is in
    progress.

    Only what an image draws over the static layer is mapped to the PNG palette: the static
    layer is kept mapped (`_layers`), and in the boxes `_dirty` gives the pixels drawn are
    mapped and pasted over a copy of it; every other pixel stays the static layer's (a test
    checks both)."""
    tr = _track(state)
    img = track_image(state, active_section=active_section)
    base, ref = _layers(tr.id, tr.race_turns)
    out = base.copy()
    for box in _dirty(state, active_section):
        drawn = img.crop(box)
        out.paste(drawn.quantize(palette=ref, dither=Image.Dither.NONE), box[:2],
                  drawn_mask(drawn, base.crop(box)))  # fmt: skip
    return to_png(out)


def drawn_mask(drawn: Image.Image, base: Image.Image) -> Image.Image:
    """'L' mask, 255 where `drawn` (RGB) differs from `base` (the static layer, 'P')."""
    diff = ImageChops.difference(drawn, base.convert("RGB")).split()
    return ImageChops.lighter(ImageChops.lighter(diff[0], diff[1]), diff[2]).point(_ANY)


_ANY = [0] + [255] * 255  # a point table: any difference at all


def _box(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
    """Whole pixels covering the box, within the image."""
    return (max(0, math.floor(x0)), max(0, math.floor(y0)), min(W, math.ceil(x1)),
            min(HEIGHT, math.ceil(y1)))  # fmt: skip


def _dirty(state: RF90State, active_section: int | None) -> list[tuple[int, int, int, int]]:
    """Every box `track_image` draws in over the static layer: the header band, the section
    lit, each car (its ring, badges and trajectory line), the current game turn's cell and
    the chits, the weather and its pawn, the car list."""
    tr = _track(state)
    if active_section is None:
        active_section = state.activation
    out = [_box(0, 0, W, BAND_H)]
    if active_section is not None:
        mask, (x0, y0) = _section_mask(tr.id, active_section)
        out.append(_box(x0, y0, x0 + mask.width, y0 + mask.height))
    for car in state.cars:
        xy = car_xy(state, car.id)
        if xy is None:
            continue
        r = (OFF_MARKER if car.off_track else MARKER) / 2 + 16
        out.append(_box(xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r))
        if car.trajectory and not car.off_track:
            t = _traj_xy(tr.id)[car.trajectory]
            out.append(_box(min(xy[0], t[0]) - 6, min(xy[1], t[1]) - 6, max(xy[0], t[0]) + 6,
                            max(xy[1], t[1]) + 6))  # fmt: skip
    if state.phase in ("race", "finished") and 1 <= state.turn <= tr.race_turns:
        cell_x = STRIP_LEFT + (state.turn - 1) * _cell_w(tr)
        out.append(
            _box(cell_x - 2, TURN_ROW_Y - 2, cell_x + _cell_w(tr) + 2, TURN_ROW_Y + TURN_ROW_H + 2)
        )
    for _, _, xy, size in _chits(state):
        r = size / 2 + 12
        out.append(_box(xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r))
    f = _infield(tr.id)
    head = _weather_head(state)
    half = text_width(head, NAME_PX, True) / 2 + 8
    out.append(_box(f.weather_head[0] - half, f.weather_head[1] - NAME_PX,
                    f.weather_head[0] + half, f.weather_head[1] + NAME_PX))  # fmt: skip
    spaces = catalog.tables().weather.spaces
    wx0, wy0, wx1, wy1 = _weather_cell_box(tr.id, min(max(state.weather, 0), len(spaces) - 1))
    out.append(_box(wx0 - 6, wy0 - 6, wx1 + 6, wy1 + 28))
    for e in _car_list(state):
        h = LIST_MARKER / 2 + 2
        out.append(_box(e.marker[0] - h, e.marker[1] - h, e.marker[0] + h, e.marker[1] + h))
        x, y = e.text_xy
        out.append(_box(x - 2, y - LIST_PX, x + text_width(e.text, LIST_PX) + 4, y + LIST_PX))
    return out


def track_image(
    state: RF90State, *, active_section: int | None = None, header: bool = True
) -> Image.Image:
    """`render_track` as an RGB Pillow image of W x HEIGHT, before the PNG palette: for
    callers that compose or scale it (the replay animation) without a PNG round trip.
    Without its `header` band (for a caller that writes its own caption), the image is
    W x (HEIGHT - BAND_H): the track area starts at its top."""
    tr = _track(state)
    if active_section is None:
        active_section = state.activation
    if active_section is not None and not 0 <= active_section < tr.length:
        raise ValueError(f"no section {active_section} on {tr.name}")
    # the static layer as mapped (its RGB is not kept: 9.7 MB a track)
    img = _layers(tr.id, tr.race_turns)[0].convert("RGB")
    if active_section is not None:
        mask, origin = _section_mask(tr.id, active_section)
        img.paste(HIGHLIGHT, (*origin, origin[0] + mask.width, origin[1] + mask.height), mask)
    draw = ImageDraw.Draw(img)
    view = GAME.public_view(state)
    _draw_cars(draw, state, view.get("leader"))
    _draw_strip(draw, state)
    _draw_infield_dynamic(draw, state)
    if not header:
        return img.crop((0, BAND_H, W, HEIGHT))
    _draw_band(draw, state, active_section)
    return img


def _reference(static: Image.Image, track_name: str) -> Image.Image:
    """The palette of every image of this track: the static layer's colours (with and
    without the highlight) plus every car, badge and marker colour, so that each image is
    only mapped to it (no octree per image) and a car colour is never merged away."""
    lit = static.copy()
    for i in range(_track(track_name).length):
        mask, origin = _section_mask(track_name, i)
        lit.paste(HIGHLIGHT, (*origin, origin[0] + mask.width, origin[1] + mask.height), mask)
    both = Image.new("RGB", (static.width, static.height * 2))
    both.paste(static, (0, 0))
    both.paste(lit, (0, static.height))
    sample = both.resize((both.width // 2, both.height // 2), Image.Resampling.NEAREST)
    extra: list[RGB] = [HIGHLIGHT, LEADER_BG, ENDED_BG, SKIPPED_BG, TITLE_BG, TITLE_FG, INK,
                        HEADER_BG, HEADER_FG, (255, 255, 255), (0, 0, 0), OUTLINE_DARK,
                        *WEATHER_RGB.values()]  # fmt: skip
    return palette_reference(sample, 192, extra)


@cache
def _layers(track_name: str, race_turns: int) -> tuple[Image.Image, Image.Image]:
    """The static layer mapped to the track's PNG palette, and that palette, made once."""
    static = _static(track_name, race_turns)
    ref = _reference(static, track_name)
    return static.quantize(palette=ref, dither=Image.Dither.NONE), ref


def warm_track(track: str) -> None:
    """Build the cached static layer of a track image and its PNG palette (~1 s)."""
    _layers(track, _track(track).race_turns)
