"""The Waddington's Formula 1 move close-up: a crop around the car with every destination
square lettered A, B, C...; a red letter tagged "+20"/"+40" marks a move that crosses a red
band over its safety speed ("SPIN": a certain spin). 800 x 600, every text at least
`min_px(800)` = 24 px, so 12 px when a phone shows it 400 px wide.

The circuit layer is drawn once per zoom and cached; each close-up then costs the crop, the
paths, the cars, the letters, the band chips and the PNG encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    HEADER_FG,
    INK,
    MUTED,
    PAPER,
    counted,
    draw_text,
    ellipsize,
    text_width,
    to_png,
)
from renderer.waddington_layout import (
    BAND_RED,
    GRASS,
    LETTER_BG,
    PATH_COLOUR,
    PATH_WARN,
    WARN_RED,
    WATER,
    WHITE,
    Frame,
    Point,
    PxPoint,
    car_label,
    car_points,
    chip,
    chip_size,
    circuit,
    draw_cars,
    draw_ring,
    frame_for,
    geometry,
    marker,
    min_px,
    natural_size,
    offset,
    pit_numbers,
    render_shapes,
    unit_xy,
)
from rules.waddington.catalog import catalog
from rules.waddington.state import WaddingtonState

CLOSEUP_WIDTH = 800
CLOSEUP_HEIGHT = 600
PX = min_px(CLOSEUP_WIDTH)
CLOSEUP_HEADER = round(PX * 2.3)
CLOSEUP_FOOTER = round(PX * 1.7)
CLOSEUP_MAP_HEIGHT = CLOSEUP_HEIGHT - CLOSEUP_HEADER - CLOSEUP_FOOTER
# px per square, largest first; 40 is the least that keeps a PX letter inside its square
CLOSEUP_SCALES = (64, 54, 46, 40)
PAD = 1.1  # grass around the circuit, room for the spin-off labels


def _labels(draw: ImageDraw.ImageDraw, name: str, f: Frame) -> None:
    """The close-up layer's text: corner names, pit numbers, spin-off points, the pool and
    the start line (the safety speeds go on top of the cars, see `render_closeup`)."""
    c = circuit(name)
    g = geometry(name)
    rows = c.rows
    for corner in c.corners:
        mid = (corner.first_row + corner.last_row) // 2
        chip(draw, f.px(offset(rows[mid].centre, g.across[mid], -3.6)), corner.name, PX)
    for corner in c.corners:
        at = offset(rows[corner.spin_off_row].verge, g.across[corner.spin_off_row], 0.75)
        draw_text(draw, f.px(at), "spin-off", PX, (60, 30, 0), bold=True, anchor="mm")
    pit_numbers(draw, name, f, max(PX, round(f.scale * 0.42)))
    first_pit = min(p.row for p in c.pits)
    at = offset(rows[first_pit].pit, g.forward[first_pit], -1.4)
    draw_text(draw, f.px(at), "PITS", PX, INK, bold=True, anchor="mm")
    for o in c.obstacles:
        if o.kind == "pool":
            row, lane = o.squares[len(o.squares) // 2]
            at = offset(rows[row].squares[lane], g.across[row], -1.9)
            chip(draw, f.px(at), o.name, PX, WHITE, WATER)
    start = offset(rows[0].centre, g.across[0], 2.6)
    draw_text(draw, f.px(start), "START / FINISH", PX, INK, bold=True, anchor="mm")


@cache
def _closeup_layer(name: str, scale: int) -> tuple[Image.Image, Frame]:
    w, h = natural_size(name, scale, PAD)
    frame = frame_for(name, scale, w, h)
    image = render_shapes(name, frame, w, h)
    _labels(ImageDraw.Draw(image), name, frame)
    # Kept as a palette image (1 byte a pixel, not 4: the four zooms of the whole circuit
    # held ~30 MB as RGB): only an 800 px crop of it is used per close-up, converted back
    # as it is pasted, and the PNG is reduced to a palette in the end anyway.
    return image.quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE), frame


@dataclass(frozen=True)
class CloseupLayout:
    scale: int
    crop: tuple[int, int]  # top-left of the crop in the circuit layer at `scale`
    frame: Frame  # circuit units -> close-up pixels
    letter_centres: list[PxPoint]  # one per destination, in the order given
    car_centre: PxPoint


def _dest_point(state: WaddingtonState, to: Sequence[int]) -> Point:
    return unit_xy(state.circuit, to[0], to[1])


def closeup_layout(state: WaddingtonState, seat: int, destinations: Sequence) -> CloseupLayout:
    """Where the close-up of `seat`'s move crops the circuit, and where each letter goes."""
    name = state.circuit
    car = state.cars[seat]
    start = unit_xy(name, car.row, car.lane)
    pts = [start]
    for d in destinations:
        pts.append(_dest_point(state, d.to))
        pts.extend(unit_xy(name, r, ln) for r, ln in d.path)
    pad = 1.3
    x0, x1 = min(p[0] for p in pts) - pad, max(p[0] for p in pts) + pad
    y0, y1 = min(p[1] for p in pts) - pad, max(p[1] for p in pts) + pad
    scale = CLOSEUP_SCALES[-1]
    for s in CLOSEUP_SCALES:
        if (x1 - x0) * s <= CLOSEUP_WIDTH and (y1 - y0) * s <= CLOSEUP_MAP_HEIGHT:
            scale = s
            break
    layer_w, layer_h = natural_size(name, scale, PAD)
    base = frame_for(name, scale, layer_w, layer_h)
    cx, cy = base.px(((x0 + x1) / 2, (y0 + y1) / 2))
    left = round(min(max(0, cx - CLOSEUP_WIDTH / 2), max(0, layer_w - CLOSEUP_WIDTH)))
    top = round(min(max(0, cy - CLOSEUP_MAP_HEIGHT / 2), max(0, layer_h - CLOSEUP_MAP_HEIGHT)))
    frame = base.shifted(-left, CLOSEUP_HEADER - top)
    letters = [frame.ipx(_dest_point(state, d.to)) for d in destinations]
    car_point = car_points(name, state.cars).get(seat, start)
    return CloseupLayout(scale, (left, top), frame, letters, frame.ipx(car_point))


def warning(d, tyres_gone: bool = False) -> str | None:
    """The tag on a destination's letter: None within every band's safety speed, else the
    worst excess ("+20", "+40"), "SPIN" when a spin is certain (60 mph or more over, or worn
    out tyres, §H), with "x2" when two bands are crossed over their safety speed."""
    excess = max((b.excess for b in d.bands), default=0)
    if not d.over or excess <= 0:
        return None
    tag = "SPIN" if excess >= 60 or tyres_gone else f"+{excess}"
    return f"{tag} x{d.over}" if d.over > 1 else tag


def letter_size(scale: int) -> tuple[int, int]:
    """(disc diameter, font px) of a destination letter at `scale` px per square."""
    px = max(PX, round(scale * 0.8 * 0.62))
    return max(round(scale * 0.8), round(px / 0.62)), px


def _letter(
    draw: ImageDraw.ImageDraw, xy: PxPoint, letter: str, size: int, px: int, warn: bool
) -> None:
    x, y = xy
    r = size / 2
    bg = WARN_RED if warn else LETTER_BG
    fg = WHITE if warn else INK
    draw.ellipse((x - r - 3, y - r - 3, x + r + 3, y + r + 3), fill=INK)
    draw.ellipse((x - r, y - r, x + r, y + r), fill=bg)
    draw_text(draw, (x, y + 1), letter, px, fg, bold=True, anchor="mm")


def _box(xy: tuple[float, float], hw: float, hh: float) -> tuple[float, float, float, float]:
    return (xy[0] - hw, xy[1] - hh, xy[0] + hw, xy[1] + hh)


def _chip_box(xy: tuple[float, float], text: str) -> tuple[float, float, float, float]:
    """The box `chip` draws for `text` at PX around `xy`."""
    w, h = chip_size(text, PX)
    return _box(xy, w / 2, h / 2)


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place_tag(
    xy: PxPoint, text: str, half: float, taken: list, markers: list
) -> tuple[tuple[float, float], tuple[float, float, float, float]]:
    """Where a letter's tag goes: beside its letter, on the side that covers no other letter
    or tag, then as few car numbers as possible, inside the map."""
    w, h = (v / 2 for v in chip_size(text, PX))
    mine = _box(xy, half, half)
    best: tuple[float, tuple[float, float], tuple] | None = None
    for dx, dy in ((1, 0), (-1, 0), (1, -1), (1, 1), (-1, -1), (-1, 1), (0, -1), (0, 1)):
        at: tuple[float, float]
        if dy == 0:  # touching the disc, so that it reads as the letter's
            at = (xy[0] + dx * (half + w - 4), xy[1])
        elif dx == 0:
            at = (xy[0], xy[1] + dy * (half + h - 4))
        else:
            at = (xy[0] + dx * (half * 0.6 + w), xy[1] + dy * (half * 0.6 + h))
        box = _box(at, w, h)
        out = box[0] < 0 or box[2] > CLOSEUP_WIDTH or box[1] < CLOSEUP_HEADER
        out = out or box[3] > CLOSEUP_HEIGHT - CLOSEUP_FOOTER
        cost = 1e6 * out
        cost += 100 * sum(_overlap(box, o) for o in taken if o != mine)
        cost += sum(_overlap(box, o) for o in markers)
        if best is None or cost < best[0]:
            best = (cost, at, box)
    assert best is not None
    return best[1], best[2]


FOOTER = "Red letter: over a band's safety speed  ·  SPIN: a certain spin"


def render_closeup(
    state: WaddingtonState,
    seat: int,
    destinations: list,
    letters: list[str] | None = None,
) -> bytes:
    """PNG close-up of `seat`'s move: the squares it may end on, lettered in the order given.

    A red letter with "+20" / "+40" marks a destination reached over a red band above its
    safety speed (the excess of the worst band; "+60" and more is a certain spin)."""
    if letters is None:
        letters = [chr(ord("A") + i) for i in range(len(destinations))]
    if len(letters) != len(destinations):
        raise ValueError("one letter per destination")
    name = state.circuit
    lay = closeup_layout(state, seat, destinations)
    layer, _ = _closeup_layer(name, lay.scale)
    left, top = lay.crop
    image = Image.new("RGB", (CLOSEUP_WIDTH, CLOSEUP_HEIGHT), GRASS)
    image.paste(
        layer.crop((left, top, left + CLOSEUP_WIDTH, top + CLOSEUP_MAP_HEIGHT)), (0, CLOSEUP_HEADER)
    )
    draw = ImageDraw.Draw(image)
    s = lay.scale
    car = state.cars[seat]
    start = unit_xy(name, car.row, car.lane)

    # the paths, faintly, under everything that moves
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    odraw = ImageDraw.Draw(overlay)
    for d in destinations:
        pts = [lay.frame.px(start)] + [lay.frame.px(unit_xy(name, r, ln)) for r, ln in d.path]
        if len(pts) > 1:
            colour = PATH_WARN if d.over else PATH_COLOUR
            odraw.line(pts, fill=(*colour, 150), width=max(3, round(s * 0.1)), joint="curve")
    image.paste(overlay, (0, 0), overlay)

    def visible(xy: tuple[float, float]) -> bool:
        return -s < xy[0] < CLOSEUP_WIDTH + s and CLOSEUP_HEADER - s < xy[1] < CLOSEUP_HEIGHT

    car_size = round(s * 0.86)
    cars = draw_cars(
        draw, name, state.cars, lay.frame, car_size, max(PX, round(car_size * 0.52)), seat, visible
    )
    disc, px = letter_size(s)
    tyres_gone = car.tyre >= catalog().race.max_tyre_wear
    warns = [warning(d, tyres_gone) for d in destinations]
    # What must stay readable, most important first: the letters, then their tags, then the
    # cars' numbers; a band's safety chip gives way to all of them (a letter's tag already
    # says by how much that square is over).
    half = disc / 2 + 3
    letter_boxes = [_box(xy, half, half) for xy in lay.letter_centres]
    marker_boxes = [_box(xy, car_size / 2, car_size / 2) for xy in cars.values()]
    tags: list[tuple[tuple[float, float], str]] = []
    taken = list(letter_boxes)
    for xy, warn in zip(lay.letter_centres, warns, strict=True):
        if warn:
            at, box = _place_tag(xy, warn, half, taken, marker_boxes)
            tags.append((at, warn))
            taken.append(box)
    g = geometry(name)
    c = circuit(name)
    numbers = [_box(xy, car_size * 0.3, car_size * 0.3) for xy in cars.values()]
    ends = {tuple(d.to) for d in destinations}
    for band in c.bands:
        row = c.rows[band.row]
        fwd = g.forward[band.row]
        x, y = lay.frame.px(row.centre)
        if not (-2 * s < x < CLOSEUP_WIDTH + 2 * s and -2 * s < y < CLOSEUP_HEIGHT + 2 * s):
            continue  # nowhere near this close-up
        for lane, safety in enumerate(band.safety):
            text = str(safety)
            best = None
            for k in (-0.45, 0.45, -0.75, 0.75):  # along its lane, clear of what matters
                spot = lay.frame.px(offset(row.squares[lane], fwd, k))
                box = _chip_box(spot, text)
                cost = 100 * sum(_overlap(box, o) for o in taken)
                cost += 10 * sum(_overlap(box, o) for o in numbers)
                if best is None or cost < best[0]:
                    best = (cost, spot)
            assert best is not None
            if not visible(best[1]) or (best[0] and (band.row, lane) in ends):
                continue  # that square's letter (and its tag) say what matters there
            chip(draw, best[1], text, PX, WHITE, BAND_RED)
    for at, warn in tags:
        chip(draw, at, warn, PX, WHITE, INK)
    for letter, xy, warn in zip(letters, lay.letter_centres, warns, strict=True):
        _letter(draw, xy, letter, disc, px, warn is not None)

    # header and footer drawn last, over any marker that overhangs the map
    draw.rectangle((0, 0, CLOSEUP_WIDTH - 1, CLOSEUP_HEADER - 1), fill=HEADER_BG)
    size = round(PX * 1.5)
    mid = CLOSEUP_HEADER // 2
    draw_ring(draw, (12 + size / 2, mid), size)
    marker(draw, (12 + size // 2, mid), car.colour, car_label(car), size, PX)
    count = len(destinations)
    choose = f"{counted(count, 'square')} to choose"
    draw_text(draw, (CLOSEUP_WIDTH - 12, mid), choose, PX, HEADER_FG, anchor="rm")
    speed = f"  ·  {car.speed} mph"  # always shown: a long name is cut, not the speed
    room = CLOSEUP_WIDTH - 330 - size - text_width(speed, PX, True)
    name = ellipsize(car.name, PX, room, bold=True)
    draw_text(draw, (24 + size + 8, mid), name + speed, PX, HEADER_FG, bold=True, anchor="lm")
    draw.rectangle(
        (0, CLOSEUP_HEIGHT - CLOSEUP_FOOTER, CLOSEUP_WIDTH - 1, CLOSEUP_HEIGHT - 1), fill=PAPER
    )
    draw_text(
        draw,
        (12, CLOSEUP_HEIGHT - CLOSEUP_FOOTER / 2),
        FOOTER,
        PX,
        MUTED,
        anchor="lm",
        max_width=CLOSEUP_WIDTH - 24,
    )
    return to_png(image)


def warm(name: str) -> None:
    for scale in CLOSEUP_SCALES:
        _closeup_layer(name, scale)
