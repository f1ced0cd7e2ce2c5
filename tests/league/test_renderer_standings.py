"""Standings image: valid PNG, size budget, determinism, layout and legibility checks."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from renderer import common
from renderer.common import (
    ELLIPSIS,
    HEADER_BG,
    NEUTRAL,
    PALETTE,
    car_colour,
    displayable,
    ellipsize,
    marker_fill_box,
    text_width,
    to_png,
)
from renderer.standings import (
    MARGIN,
    MAX_ROUND_COLUMNS,
    STYLE,
    WIDTH,
    StandingsLine,
    position_label,
    render_standings,
    standings_layout,
)
from tests.helpers import near, open_png, pixels

TITLE = "Sunday League - Season 3"
SUBTITLE = "Race! Formula 90 · points 25-18-15-12-10-8-6-4-2-1"
COLOURS = ["yellow", "orange", "green", "red", "black", "blue", "white", "purple", "silver"]


def line(
    i: int, rounds: int = 6, name: str | None = None, colour: str | None = "x"
) -> StandingsLine:
    results = [("R", "-", "1", "2", "3", "7")[(i + r) % 6] for r in range(rounds)]
    return StandingsLine(
        position=i + 1,
        tied=False,
        name=name if name is not None else f"Driver {i + 1}",
        colour=COLOURS[i % len(COLOURS)] if colour == "x" else colour,
        points=200 - i,
        wins=max(0, 4 - i),
        podiums=max(0, 8 - i),
        rounds=rounds,
        results=results,
    )


def lines(n: int, rounds: int = 6) -> list[StandingsLine]:
    return [line(i, rounds) for i in range(n)]


def test_valid_png_with_layout_size():
    rows = lines(10)
    data = render_standings(TITLE, SUBTITLE, rows)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = open_png(data)
    layout = standings_layout(SUBTITLE, rows)
    assert image.size == (WIDTH, layout.height)
    assert 900 <= WIDTH <= 1000


def test_forty_rows_under_size_budget():
    data = render_standings(TITLE, SUBTITLE, lines(40, rounds=16))
    assert len(data) < 500_000
    assert open_png(data).height > 40 * STYLE.row_height


def test_deterministic_even_with_cold_caches():
    rows = lines(12, rounds=14)
    first = render_standings(TITLE, SUBTITLE, rows)
    assert render_standings(TITLE, SUBTITLE, rows) == first
    common._text_mask.cache_clear()
    common.text_width.cache_clear()
    assert render_standings(TITLE, SUBTITLE, rows) == first


def test_different_input_gives_different_image():
    rows = lines(5)
    changed = [*rows[:4], line(4, name="Someone Else")]
    assert render_standings(TITLE, SUBTITLE, rows) != render_standings(TITLE, SUBTITLE, changed)


def test_height_grows_by_one_row_height_per_driver():
    heights = [open_png(render_standings(TITLE, SUBTITLE, lines(n))).height for n in (1, 2, 10, 40)]
    assert heights == sorted(set(heights))
    assert heights[1] - heights[0] == STYLE.row_height
    assert heights[3] - heights[2] == 30 * STYLE.row_height


def test_empty_standings_render_the_no_results_variant():
    empty = render_standings(TITLE, SUBTITLE, [])
    one = render_standings(TITLE, SUBTITLE, lines(1))
    assert empty != one
    empty_image, one_image = open_png(empty), open_png(one)
    assert empty_image.width == WIDTH
    assert empty_image.height < one_image.height
    # The table's dark header row is drawn only when there are rows.
    layout = standings_layout(SUBTITLE, [])
    probe = (WIDTH // 2, layout.table_top + STYLE.header_height // 2)
    assert near(one_image.getpixel(probe), HEADER_BG, tol=8)
    assert not near(empty_image.getpixel(probe), HEADER_BG, tol=8)
    # ...and the empty variant shows dark text ("No results yet") in its middle.
    middle = empty_image.crop((WIDTH // 4, layout.table_top, 3 * WIDTH // 4, layout.height))
    assert min(sum(px) for px in pixels(middle)) < 150


@pytest.mark.parametrize("row", [0, 3, 8])
def test_marker_shows_the_car_colour(row):
    rows = lines(9)
    image = open_png(render_standings(TITLE, SUBTITLE, rows))
    layout = standings_layout(SUBTITLE, rows)
    cx, cy = layout.marker_centre(row)
    expected = PALETTE[rows[row].colour].fill
    left, top, right, bottom = marker_fill_box((cx, cy), STYLE.marker_size)
    # Just inside the coloured disc, left of the centred number.
    assert near(image.getpixel((left + 3, cy)), expected, tol=8)
    # Most of the coloured disc is the car colour (the rest is the number and antialiasing).
    box = image.crop((left, top, right, bottom))
    matching = sum(1 for px in pixels(box) if near(px, expected, tol=8))
    assert matching > 0.45 * box.width * box.height


def test_marker_colour_follows_the_driver_not_the_row():
    rows = [line(0, colour="red"), line(1, colour="blue")]
    swapped = [line(0, colour="blue"), line(1, colour="red")]
    layout = standings_layout(SUBTITLE, rows)
    cx, cy = layout.marker_centre(0)
    left = marker_fill_box((cx, cy), STYLE.marker_size)[0]
    a = open_png(render_standings(TITLE, SUBTITLE, rows)).getpixel((left + 3, cy))
    b = open_png(render_standings(TITLE, SUBTITLE, swapped)).getpixel((left + 3, cy))
    assert near(a, PALETTE["red"].fill, tol=8)
    assert near(b, PALETTE["blue"].fill, tol=8)


def test_marker_has_a_dark_outline_so_white_cars_show_on_white():
    rows = [line(0, colour="white")]
    image = open_png(render_standings(TITLE, SUBTITLE, rows))
    cx, cy = standings_layout(SUBTITLE, rows).marker_centre(0)
    edge = (cx - STYLE.marker_size // 2 + 1, cy)  # on the outer ring
    assert sum(image.getpixel(edge)) < 200


def test_unknown_or_missing_colour_uses_neutral_marker():
    assert car_colour(None) is NEUTRAL
    assert car_colour("chartreuse-ish") is NEUTRAL
    assert car_colour(" Yellow ") is PALETTE["yellow"]
    assert car_colour("gray") is PALETTE["grey"]
    rows = [line(0, colour=None)]
    image = open_png(render_standings(TITLE, SUBTITLE, rows))
    cx, cy = standings_layout(SUBTITLE, rows).marker_centre(0)
    left = marker_fill_box((cx, cy), STYLE.marker_size)[0]
    assert near(image.getpixel((left + 3, cy)), NEUTRAL.fill, tol=8)


def test_long_and_unicode_names_do_not_crash():
    names = [
        "Maximilian-Alexander von Longname-Hohenzollern der Dritte " * 3,
        "Björn Émilie Łukasz Núñez",
        "日本語のドライバー 😀🏎️",
        "مرحبا بالعالم",
        "",
        "\u200b\u0301",
    ]
    rows = [line(i, name=n) for i, n in enumerate(names)]
    image = open_png(render_standings("Ünïcødé — League 🏁", "Sub — title " * 30, rows))
    assert image.width == WIDTH


def test_ellipsize_truncates_to_width():
    text = "Maximilian-Alexander von Longname-Hohenzollern"
    cut = ellipsize(text, 23, 150)
    assert cut.endswith(ELLIPSIS)
    assert text.startswith(cut[:-1])
    assert text_width(cut, 23) <= 150
    assert ellipsize("Short", 23, 150) == "Short"
    assert ellipsize(text, 23, 1) == ""


def _clear_font_caches() -> None:
    for cached in (
        common._font_file,
        common.font,
        common._has_glyph,
        common._displayable_char,
        common.text_width,
        common._text_mask,
    ):
        cached.cache_clear()


@pytest.fixture
def fallback_font(monkeypatch):
    """The renderer as it is when the font package is missing: Pillow's bundled font."""
    _clear_font_caches()
    monkeypatch.setattr(common, "_font_file", lambda: None)
    yield
    monkeypatch.undo()
    _clear_font_caches()


def test_displayable_keeps_what_the_font_has_and_replaces_what_it_lacks():
    assert common.has_real_bold()
    assert displayable("Björn Émilie Łukasz — Straße") == "Björn Émilie Łukasz — Straße"
    assert displayable("José Núñez, Żółć, Ångström") == "José Núñez, Żółć, Ångström"
    assert displayable("plain ascii") == "plain ascii"
    assert displayable("\U0001d400\u2462") == "A3"  # math bold A, circled 3: not in the font
    assert displayable("😀") == "😀"  # no stand-in: kept (drawn as a box)


def test_displayable_replaces_letters_the_fallback_font_lacks(fallback_font):
    assert not common.has_real_bold()
    assert displayable("Björn Émilie Łukasz — Straße") == "Bjorn Emilie Lukasz - Strasse"
    assert displayable("plain ascii") == "plain ascii"
    assert displayable("😀") == "😀"  # no stand-in: kept (drawn as a box)
    image = open_png(render_standings(TITLE, SUBTITLE, lines(3)))  # still renders
    assert image.width == WIDTH


def test_accented_letters_are_drawn_with_their_accents():
    def drawn(text: str, bold: bool = False) -> bytes:
        image = Image.new("L", (80, 80), 0)
        shown = common.draw_text(ImageDraw.Draw(image), (10, 10), text, 40, 255, bold=bold)
        assert shown == text
        return image.tobytes()

    for accented, plain in [("É", "E"), ("ö", "o"), ("Ł", "L"), ("ñ", "n"), ("—", "-")]:
        assert drawn(accented) != drawn(plain), accented
        assert drawn(accented, bold=True) != drawn(plain, bold=True), accented
    assert drawn("É", bold=True) != drawn("É")  # a real bold face
    plain_names = [line(i, name=n) for i, n in enumerate(["Emilie Lefevre", "Lukasz Zolc"])]
    accented_names = [line(i, name=n) for i, n in enumerate(["Émilie Lefèvre", "Łukasz Żółć"])]
    assert render_standings(TITLE, SUBTITLE, accented_names) != render_standings(
        TITLE, SUBTITLE, plain_names
    )


def test_long_subtitle_wraps_to_at_most_two_lines():
    layout = standings_layout("word " * 200, lines(1))
    assert len(layout.subtitle_lines) == 2
    assert layout.subtitle_lines[-1].endswith(ELLIPSIS)
    short = standings_layout("short", lines(1))
    assert len(short.subtitle_lines) == 1
    assert layout.height > short.height


def test_tied_positions_are_marked():
    assert position_label(3, True) == "=3"
    assert position_label(3, False) == "3"


@pytest.mark.parametrize("rounds", [0, 1, 6, 12, 13, 30])
def test_columns_fill_the_width_and_show_at_most_twelve_rounds(rounds):
    layout = standings_layout(SUBTITLE, lines(3, rounds=rounds))
    assert sum(c.width for c in layout.columns) == WIDTH - 2 * MARGIN
    round_headers = [
        c.header for c in layout.columns if c.header.startswith("R") and c.header != "Rds"
    ]
    shown = min(rounds, MAX_ROUND_COLUMNS)
    assert round_headers == [f"R{r}" for r in range(rounds - shown + 1, rounds + 1)]
    assert layout.shown_rounds == shown
    driver = next(c for c in layout.columns if c.header == "Driver")
    assert driver.width >= 200


def test_more_than_twelve_rounds_renders_and_differs_from_twelve():
    twelve = render_standings(TITLE, SUBTITLE, lines(4, rounds=12))
    sixteen = render_standings(TITLE, SUBTITLE, lines(4, rounds=16))
    assert open_png(twelve).size == open_png(sixteen).size
    assert twelve != sixteen


def test_to_png_palette_and_rgb_modes_round_trip():
    image = Image.new("RGB", (40, 20), (255, 214, 0))
    paletted = Image.open(io.BytesIO(to_png(image)))
    assert paletted.mode == "P"
    assert paletted.convert("RGB").getpixel((5, 5)) == (255, 214, 0)
    rgb = Image.open(io.BytesIO(to_png(image, palette=False)))
    assert rgb.mode == "RGB"
