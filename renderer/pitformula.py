"""Pit Formula images: the token table (and the final standings), the race scoring sheet and
the solo stopwatch.

- `render_table(state, names)`: renderer/pitformula_table.py (the final standings once the
  championship is over);
- `render_scoring(state, names, board=...)`: renderer/pitformula_scoring.py;
- the tokens, flags and marks they share: renderer/pitformula_sprites.py;
- `render_solo_clock(remaining_ms, total_ms)`: here.

Pure functions from state to PNG bytes; static parts (background, token sprites) are cached.
Layout helpers (`token_xy`, `token_fill_xy`, `scoring_layout`) let tests find things. Every
text a player reads is at least 12 px when an image is shown 400 px wide on a phone.
"""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from renderer.common import INK, MUTED, PAPER, draw_text, to_png
from renderer.pitformula_scoring import (
    SC_MIN_FONT,
    SC_WIDTH,
    ScoringLayout,
    render_scoring,
    scoring_layout,
)
from renderer.pitformula_sprites import (
    BAD,
    CAR_COLOURS,
    FLAG_FILL,
    GOOD,
    PART_FILL,
    PART_LABEL,
    PART_SHAPE,
    SLOT_LABEL,
    flag_sprite,
    mark_sprite,
    spare_sprite,
    token_sprite,
)
from renderer.pitformula_table import (
    PANEL,
    TABLE_HEIGHT,
    TABLE_MIN_FONT,
    TABLE_WIDTH,
    TOKEN,
    cell_box,
    crash_band,
    render_standings,
    render_table,
    token_fill_xy,
    token_xy,
)

__all__ = [
    "BAD",
    "CAR_COLOURS",
    "CLOCK_SIZE",
    "FLAG_FILL",
    "GOOD",
    "PANEL",
    "PART_FILL",
    "PART_LABEL",
    "PART_SHAPE",
    "SC_MIN_FONT",
    "SC_WIDTH",
    "SLOT_LABEL",
    "TABLE_HEIGHT",
    "TABLE_MIN_FONT",
    "TABLE_WIDTH",
    "TOKEN",
    "ScoringLayout",
    "cell_box",
    "crash_band",
    "flag_sprite",
    "mark_sprite",
    "render_scoring",
    "render_solo_clock",
    "render_standings",
    "render_table",
    "scoring_layout",
    "spare_sprite",
    "token_fill_xy",
    "token_sprite",
    "token_xy",
]

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
