"""Players' names in every image (issue 12): emoji, CJK and Cyrillic display names are drawn
with real glyphs (the fallback font chain: Noto Emoji, Noto Sans CJK, ...), never as the
missing-glyph box; a long name is cut with an ellipsis and stays in its column; and a name is
at least 12 px tall when the image is shown 400 px wide on a phone.

Checked on the images of every game: Waddington's board (its dashboard) and classification,
RF90's dashboards and classification, Pit Formula's scoring sheet and final standings, and the
league standings. Every text these images draw goes through `draw_text`, which the `drawn`
fixture records with the box its ink covers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from PIL import Image, ImageChops, ImageDraw

from renderer import (
    common,
    pitformula_scoring,
    pitformula_table,
    rf90_base,
    rf90_tables,
    standings,
    waddington_board,
    waddington_tables,
)
from renderer.common import ELLIPSIS, chain_font, displayable, draw_text, ellipsize, text_width
from renderer.pitformula_scoring import render_scoring
from renderer.pitformula_table import render_table
from renderer.rf90 import render_classification as rf90_classification
from renderer.rf90 import render_dashboards
from renderer.standings import STYLE, StandingsLine, render_standings, standings_layout
from renderer.waddington import BOARD_WIDTH, render_board
from renderer.waddington import render_classification as waddington_classification
from renderer.waddington_tables import CLASS_COLUMNS, CLASS_STYLE, dashboard
from rules.pitformula import GAME as PIT
from rules.rf90.scenario import build
from rules.waddington import GAME as WADDINGTON
from tests.helpers import PHONE_MIN_PX, PHONE_WIDTH, open_png
from tests.pitformula.pf_helpers import robot_move

EMOJI = "Ayrton 🏎️ Senna"
CJK = "佐藤琢磨"
CYRILLIC = "Кими"
LONG = "Maximilian Alexander Christopher Hohenzollern-Sigmaringen IV"
LONG_MIXED = "佐藤 🏁 Кими Räikkönen " + "琢磨" * 20  # 60 characters, three scripts and emoji
NAMES = [EMOJI, CJK, CYRILLIC, LONG, LONG_MIXED]
PROBE = "\U0010fffd"  # a private-use code point no font has: every font draws its box for it


def test_the_sample_names_are_what_the_issue_asks_for() -> None:
    assert len(LONG) == len(LONG_MIXED) == 60
    assert "\ufe0f" in EMOJI  # the race car with its emoji variation selector


# --- (a) glyphs, not boxes ---------------------------------------------------------------


def _ink(draw_it: Callable[[ImageDraw.ImageDraw], object]) -> bytes:
    """The ink of one drawing, cropped to its bounding box (so position does not matter);
    b"" if nothing was drawn."""
    image = Image.new("L", (400, 200), 0)
    draw_it(ImageDraw.Draw(image))
    box = image.getbbox()
    return image.crop(box).tobytes() if box else b""


def _boxes(size: int) -> set[bytes]:
    """The missing-glyph box of every font of the chain (the base font's included; b"" for a
    font whose missing glyph is blank)."""
    fonts = [chain_font(face, size) for face in range(len(common.fallback_files()) + 1)]
    return {_ink(lambda d, f=f: d.text((20, 150), PROBE, fill=255, font=f)) for f in fonts}


def _clusters(text: str) -> list[str]:
    """`text` cut where `ellipsize` may cut it: characters with their marks, emoji sequences."""
    cuts = [0, *common._cut_points(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if not text[a:b].isspace()]


def test_the_box_detector_sees_a_box() -> None:
    drawn = _ink(lambda d: draw_text(d, (20, 150), PROBE, 40, 255, anchor="ls"))
    assert drawn and drawn in _boxes(40)


@pytest.mark.parametrize("bold", [False, True])
@pytest.mark.parametrize("name", [EMOJI, CJK, CYRILLIC, LONG_MIXED, "Zoë 👍🏽", "Ali علي"])
def test_no_character_of_a_name_is_drawn_as_the_missing_glyph_box(name: str, bold: bool) -> None:
    boxes = _boxes(40)
    assert displayable(name) == name  # drawn as typed, not transliterated
    for cluster in _clusters(name):
        for text in {cluster, cluster[0]}:  # an emoji with its modifier, and alone
            drawn = _ink(lambda d, t=text: draw_text(d, (20, 150), t, 40, 255, bold=bold))
            assert drawn, f"{text!r} of {name!r} is not drawn"
            assert drawn not in boxes, f"{text!r} of {name!r} is drawn as a box"


def test_emoji_and_cjk_use_their_fonts_and_plain_names_the_fast_path() -> None:
    runs = common.text_runs(EMOJI)
    assert [text for _face, text in runs] == ["Ayrton ", "🏎️", " Senna"]
    assert runs[0][0] == runs[2][0] == 0 and runs[1][0] > 0  # the emoji (with its VS16)
    assert [face > 0 for face, _text in common.text_runs(CJK)] == [True]
    assert common.text_runs(CYRILLIC) == [(0, CYRILLIC)]  # Noto Sans has Cyrillic
    assert common.text_runs("Björn Łukasz") == [(0, "Björn Łukasz")]
    assert common.text_runs("Ayrton Senna") == [(0, "Ayrton Senna")]


def test_a_mixed_name_is_measured_as_drawn() -> None:
    for name in NAMES:
        width = text_width(name, 40)
        drawn = Image.new("L", (round(width) + 120, 120), 0)
        draw_text(ImageDraw.Draw(drawn), (60, 60), name, 40, 255, anchor="lm")
        left, _top, right, _bottom = drawn.getbbox()
        assert right - left <= width + 4, name  # ink within the advance (+ side bearings)
        assert right - left >= width * 0.8, name


def test_what_no_font_has_is_transliterated_readably() -> None:
    assert displayable("ᏣᎳᎩ") == "TsaLaGi"  # Cherokee: no font of the chain has it
    assert displayable("\U0001d400\u2462") == "A3"  # compatibility forms: their plain letters


def test_ellipsis_never_splits_an_emoji_sequence_or_a_mark() -> None:
    family = "Team 👨\u200d👩\u200d👧\u200d👦 Rocket 🚀🚀🚀"
    for room in range(40, round(text_width(family, 30)) + 1, 7):
        cut = ellipsize(family, 30, room)
        assert text_width(cut, 30) <= room
        if cut.endswith(ELLIPSIS):
            kept = cut[:-1]
            assert family.startswith(kept)
            assert not kept.endswith(("\u200d", "\ufe0f")), cut
            rest = family[len(kept) :].lstrip()
            assert not rest or not common._attaches(rest[0]), cut
    assert ellipsize(EMOJI + "x" * 40, 30, 150).endswith(ELLIPSIS)


# --- (b) and (c) on every game's images --------------------------------------------------


@dataclass(frozen=True)
class Drawn:
    asked: str  # the text the renderer asked for
    shown: str  # the text drawn (stand-ins, ellipsis)
    size: int
    box: tuple[int, int, int, int]  # the ink's box in the image


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], bytes]], tuple]]:
    """Records every text an image draws through `draw_text` with the box of its ink."""
    log: list[Drawn] = []
    real = common.draw_text

    def spy(draw, xy, text, size, *args, **kwargs) -> str:  # noqa: ANN001
        shown = real(draw, xy, text, size, *args, **kwargs)
        if shown:
            bold, anchor = kwargs.get("bold", False), kwargs.get("anchor", "la")
            mask, dx, dy = common._text_mask(shown, size, bold, anchor)
            x, y = round(xy[0]) + dx, round(xy[1]) + dy
            log.append(Drawn(text, shown, size, (x, y, x + mask.width, y + mask.height)))
        return shown

    modules = (
        common,
        standings,
        waddington_board,
        waddington_tables,
        rf90_base,
        rf90_tables,
        pitformula_scoring,
        pitformula_table,
    )
    for module in modules:
        monkeypatch.setattr(module, "draw_text", spy)

    def record(render: Callable[[], bytes]) -> tuple[Image.Image, list[Drawn]]:
        render()  # once first, so that cached layers drawn into other images are not logged
        log.clear()
        image = open_png(render())
        return image, list(log)

    return record


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_names_fit_and_read(
    image: Image.Image, texts: list[Drawn], names: list[str], *, long: list[str] = ()
) -> None:
    """Each name is drawn (as typed, or cut with an ellipsis), at 12 px or more on a phone,
    inside the image, over no other text; the long ones are cut; glyphs drawn by a fallback
    font are as tall as a Latin capital at the same size."""
    for name in names:
        hits = [t for t in texts if name in t.asked]
        assert hits, f"{name!r} is not drawn"
        for t in hits:
            assert t.size * PHONE_WIDTH / image.width >= PHONE_MIN_PX, t
            left, top, right, bottom = t.box
            assert left >= 0 and top >= 0, t
            assert right <= image.width and bottom <= image.height, t
            others = [o for o in texts if o is not t and _overlap(o.box, t.box)]
            assert not others, f"{t.shown!r} runs into {[o.shown for o in others]}"
            if name in long:
                assert t.shown.endswith(ELLIPSIS), t
            elif t.shown != t.asked:
                assert t.shown.endswith(ELLIPSIS) and t.asked.startswith(t.shown[:-1]), t
            if not name.isascii():
                capital = common._text_mask("H", t.size, False, "la")[0].height
                assert bottom - top >= capital, t


def assert_confined(a: Image.Image, b: Image.Image, x_range: tuple[int, int]) -> None:
    """Images `a` and `b` differ only between x_range's columns (pixel test; differences of a
    few levels, from the PNG palette chosen per image, are not counted)."""
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 40 else 0)
    diff = diff.getbbox()
    assert diff is not None, "the names changed nothing"
    assert x_range[0] <= diff[0] and diff[2] <= x_range[1], (diff, x_range)


# Waddington's


def waddington_race(names: list[str], moves: int) -> object:
    players = [{"name": n, "robot": False} for n in names]
    state = WADDINGTON.new_game(3, {"players": players, "laps": 1})
    for _ in range(moves):
        if WADDINGTON.is_terminal(state):
            break
        seat = WADDINGTON.to_act(state)[0]
        state, _ = WADDINGTON.apply(state, WADDINGTON.robot_action(state, seat))
    return state


def test_waddington_board_dashboard_names(drawn) -> None:
    state = waddington_race(NAMES, 12)
    image, texts = drawn(lambda: render_board(state))
    assert_names_fit_and_read(image, texts, NAMES, long=[LONG, LONG_MIXED])
    plain = waddington_race(["A", "B", "C", "D", "E"], 12)
    cols = dashboard(BOARD_WIDTH).columns
    left = 8 + sum(c.width for c in cols[:3])
    pad = dashboard(BOARD_WIDTH).style.padding
    assert_confined(image, open_png(render_board(plain)), (left + pad, left + cols[3].width - pad))


def test_waddington_to_move_header_cuts_a_long_name(drawn) -> None:
    state = waddington_race([LONG_MIXED, "B"], 0)
    image, texts = drawn(lambda: render_board(state, highlight_seat=0))
    header = [t for t in texts if t.asked == LONG_MIXED and t.box[1] < 80]
    assert header and header[0].shown.endswith(ELLIPSIS)
    assert_names_fit_and_read(image, texts, [LONG_MIXED], long=[LONG_MIXED])


def test_waddington_classification_names(drawn) -> None:
    state = waddington_race(NAMES, 5000)
    image, texts = drawn(lambda: waddington_classification(state))
    assert_names_fit_and_read(image, texts, NAMES, long=[LONG, LONG_MIXED])
    names = {seat: "" for seat in range(len(NAMES))}
    plain = open_png(waddington_classification(state, names))
    left = 12 + sum(c.width for c in CLASS_COLUMNS[:3])
    pad = CLASS_STYLE.padding
    assert_confined(image, plain, (left + pad, left + CLASS_COLUMNS[3].width - pad))


# RF90


def rf90_race(names: list[str]) -> object:
    cars = [{"name": n, "seat": i, "section": 16 - 2 * i} for i, n in enumerate(names)]
    return build("barcelona", [*cars, {"name": "SF", "robot": "superfast", "section": 5}])


def test_rf90_dashboards_names(drawn) -> None:
    state = rf90_race(NAMES)
    image, texts = drawn(lambda: render_dashboards(state))
    assert_names_fit_and_read(image, texts, NAMES, long=[LONG, LONG_MIXED])


def test_rf90_classification_names(drawn) -> None:
    state = rf90_race(NAMES)
    image, texts = drawn(lambda: rf90_classification(state))
    assert_names_fit_and_read(image, texts, NAMES, long=[LONG, LONG_MIXED])


# Pit Formula


def pit_races(races: int) -> tuple[object, object]:
    """Robots play `races` races (0: to the end): (the state before the last race-ending
    action, the state after it)."""
    state = PIT.new_game(4, {"mode": "standard", "players": 4})
    before = state
    for _ in range(200_000):
        if state.phase == "over" or (races and len(state.results) == races):
            return before, state
        before, (state, _) = state, PIT.apply(state, robot_move(state))
    raise AssertionError("the game did not end")


PIT_NAMES = {0: EMOJI, 1: CJK, 2: CYRILLIC, 3: LONG_MIXED}


def test_pitformula_scoring_names(drawn) -> None:
    board, state = pit_races(1)
    image, texts = drawn(lambda: render_scoring(state, PIT_NAMES, board=board))
    assert_names_fit_and_read(image, texts, list(PIT_NAMES.values()), long=[LONG_MIXED])


def test_pitformula_final_standings_names(drawn) -> None:
    _board, state = pit_races(0)
    image, texts = drawn(lambda: render_table(state, PIT_NAMES))
    assert_names_fit_and_read(image, texts, list(PIT_NAMES.values()), long=[LONG_MIXED])


# League standings


def standings_rows(names: list[str]) -> list[StandingsLine]:
    colours = ["red", "blue", "green", "yellow", "white"]
    return [
        StandingsLine(i + 1, False, n, colours[i], 90 - i, 1, 2, 6, ["1", "2", "R", "-", "3", "7"])
        for i, n in enumerate(names)
    ]


def test_standings_names(drawn) -> None:
    rows = standings_rows(NAMES)
    image, texts = drawn(lambda: render_standings("League 🏁", "Season 1", rows))
    assert_names_fit_and_read(image, texts, NAMES, long=[LONG, LONG_MIXED])
    plain = open_png(render_standings("League 🏁", "Season 1", standings_rows([""] * 5)))
    layout = standings_layout("Season 1", rows)
    left = 16 + layout.columns[0].width
    # right of the marker, inside the padding of the driver column
    text_left = left + STYLE.padding + STYLE.marker_size + STYLE.padding
    assert_confined(image, plain, (text_left, left + layout.columns[1].width - STYLE.padding))


def test_every_standings_text_reads_on_a_phone(drawn) -> None:
    rows = standings_rows(NAMES)
    for subtitle, lines in (("Season 1 · " * 20, rows), ("Season 1", [])):
        image, texts = drawn(lambda s=subtitle, r=lines: render_standings("League", s, r))
        # the markers' numbers only repeat the Pos column's
        labels = {
            (str(r.position), common._label_size(str(r.position), STYLE.marker_size)) for r in lines
        }
        assert texts
        for t in texts:
            if (t.asked, t.size) not in labels:
                assert t.size * PHONE_WIDTH / image.width >= PHONE_MIN_PX, t


# --- without the fallback fonts ----------------------------------------------------------


@pytest.fixture
def no_fallback_fonts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The renderer as it is when the fallback font packages are missing."""
    common.clear_text_caches()
    monkeypatch.setattr(common, "fallback_files", lambda: ())
    yield
    monkeypatch.undo()
    common.clear_text_caches()


def test_without_the_fallback_fonts_names_are_transliterated(no_fallback_fonts) -> None:
    assert displayable(CJK) == "ZuoTengZuoMo"  # readable, not four boxes
    assert displayable(CYRILLIC) == CYRILLIC  # Noto Sans has it
    assert displayable("Zoë 🏁") == "Zoë :checkered_flag:"  # accents kept, emoji named
    boxes = _boxes(40)
    for name in (EMOJI, CJK):
        shown = displayable(name)
        drawn = _ink(lambda d, s=shown: draw_text(d, (20, 150), s, 40, 255))
        assert drawn not in boxes
    image = open_png(render_standings("League", "Season 1", standings_rows(NAMES)))
    assert image.width == standings.WIDTH


def test_plain_names_never_load_a_fallback_font(monkeypatch: pytest.MonkeyPatch) -> None:
    """ASCII and accented Latin names take the one-font path: no fallback font, no coverage
    lookup (the renderers' time budgets are tight)."""
    common.clear_text_caches()

    def refuse(*_args: object) -> None:
        raise AssertionError("a fallback font was used for a plain name")

    monkeypatch.setattr(common, "_fallback_font", refuse)
    monkeypatch.setattr(common, "_fallback_face", refuse)
    names = ["Ayrton Senna", "Björn Émilie Łukasz", "Jean-Éric Vergne", "Кими"]
    render_standings("League", "Season 1 · points 10-8-6", standings_rows(names))
    monkeypatch.undo()
    common.clear_text_caches()


def test_counted_says_one_and_many_right() -> None:
    from renderer.common import counted

    assert [counted(1, "race"), counted(5, "race"), counted(0, "point")] == [
        "1 race",
        "5 races",
        "0 points",
    ]
    assert (counted(1, "trophy", "trophies"), counted(2, "trophy", "trophies")) == (
        "1 trophy",
        "2 trophies",
    )
