"""The career image (`/league driver`): a PNG of the layout's size, deterministic, a title's
gold chip, and every text readable on a phone (400 px wide)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from renderer import careers, common, standings
from renderer.careers import (
    COLUMNS,
    MARGIN,
    STYLE,
    TITLE_CHIP,
    WIDTH,
    CareerBlock,
    CareerLine,
    career_layout,
    render_career,
)
from tests.helpers import assert_phone_legible, near, open_png, record_texts

LONG = "Maximilian-Alexander von Longname Memorial Trophy of the North"
BLOCKS = [
    CareerBlock(
        "Waddington's Formula 1",
        "2 titles · 11 races · 5 wins · 8 podiums · rating 7.3 (14 races rated)",
        [
            CareerLine("Spring Cup", 1, 1, True, 6, 3, 5, 48),
            CareerLine("Spring Cup", 2, 3, False, 5, 2, 3, 36),
            CareerLine(LONG, 12, None, False, 0, 0, 0, 0),
        ],
    ),
    CareerBlock("Pit Formula", "no league races · rating 2.0 (4 races rated)", []),
]
SUBTITLE = "Career on this server · 4 seasons, 11 league races, 2 titles"


def test_a_png_of_the_layout_size_the_same_each_time() -> None:
    data = render_career("Björn", SUBTITLE, BLOCKS)
    image = open_png(data)
    layout = career_layout(SUBTITLE, BLOCKS)
    assert image.size == (WIDTH, layout.height)
    assert render_career("Björn", SUBTITLE, BLOCKS) == data
    assert render_career("Björn", SUBTITLE, BLOCKS[:1]) != data
    assert sum(c.width for c in COLUMNS) == WIDTH - 2 * MARGIN
    # A block without seasons has no table; one with three has three rows.
    first, second = layout.blocks
    assert second.table_top is None and first.table_top is not None
    assert second.top - first.table_top > 3 * STYLE.row_height


def test_a_title_sits_on_a_gold_chip() -> None:
    image = open_png(render_career("Björn", SUBTITLE, BLOCKS))
    top = career_layout(SUBTITLE, BLOCKS).blocks[0].table_top
    assert top is not None
    pos_left = MARGIN + COLUMNS[0].width + COLUMNS[1].width
    row = top + STYLE.header_height + STYLE.row_height // 2  # the first season: a title
    chip = [image.getpixel((x, row)) for x in range(pos_left, pos_left + COLUMNS[2].width)]
    assert sum(near(px, TITLE_CHIP, tol=12) for px in chip) > 10
    below = row + STYLE.row_height  # third, no title: no gold
    plain = [image.getpixel((x, below)) for x in range(pos_left, pos_left + COLUMNS[2].width)]
    assert not any(near(px, TITLE_CHIP, tol=12) for px in plain)


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], bytes]], list]]:
    # (the title band is the standings image's own: renderer.standings draws it)
    yield from record_texts(monkeypatch, (common, careers, standings))


def test_every_text_reads_on_a_phone(texts) -> None:  # noqa: ANN001
    drawn = texts(lambda: render_career("Björn the Quick", SUBTITLE, BLOCKS))
    assert_phone_legible(drawn, WIDTH, names=[LONG])
    shown = [t.text for t in drawn]
    assert "Björn the Quick" in shown and "Waddington's Formula 1" in shown
    assert "48" in shown and "12" in shown and "League" in shown
