"""Pit Formula drawing pieces shared by its images: part tokens (colour AND shape AND digit),
spare parts, flags, right/wrong marks, and the colours they use."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageDraw

from renderer.common import (
    INK,
    RGB,
    font,
)

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
FILL_POINT = {"tyre": (0.2, 0.5), "wing": (0.2, 0.33), "gas": (0.22, 0.64), "engine": (0.2, 0.5)}
# Where the digit sits (fraction of the sprite height) and how big it is (fraction of size).
_DIGIT_Y = {"tyre": 0.5, "wing": 0.40, "gas": 0.63, "engine": 0.5}
DIGIT_SIZE = {"tyre": 0.6, "wing": 0.56, "gas": 0.52, "engine": 0.6}

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
        px = round(size * DIGIT_SIZE[part])
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


def paste(img: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> None:
    x = round(centre[0] - sprite.width / 2)
    y = round(centre[1] - sprite.height / 2)
    img.paste(sprite, (x, y), sprite)


def dashed_rect(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], fill: RGB, dash: int, width: int
) -> None:
    x0, y0, x1, y1 = box
    for x in range(x0, x1, 2 * dash):
        draw.line((x, y0, min(x + dash, x1), y0), fill=fill, width=width)
        draw.line((x, y1, min(x + dash, x1), y1), fill=fill, width=width)
    for y in range(y0, y1, 2 * dash):
        draw.line((x0, y, x0, min(y + dash, y1)), fill=fill, width=width)
        draw.line((x1, y, x1, min(y + dash, y1)), fill=fill, width=width)
