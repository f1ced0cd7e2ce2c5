"""RF90 images: valid PNGs within budget, determinism, and that cars, highlights, badges and
chits are drawn where the layout helpers say, in the cars' own colours; on crowded positions no
car marker covers a label, labels do not overlap and no text is smaller than 22 px; dashboards
never show card identities."""

from __future__ import annotations

import io
import math
from functools import cache

import pytest
from PIL import Image, ImageChops

from renderer.common import PALETTE, TITLE_BG
from renderer.rf90 import (
    CORNER_BG,
    ENDED_BG,
    HEIGHT,
    LEADER_BG,
    MARKER,
    MIN_TEXT,
    OFF_BG,
    OFF_ROW,
    SEAT_COLOURS,
    SKIPPED_BG,
    SLOT_GAP,
    TRAJ_BG,
    Layout,
    W,
    _inside,
    _poly_shape,
    boxes_overlap,
    car_colour_name,
    car_label,
    car_xy,
    classification_rows,
    dashboard_rows,
    off_track_xy,
    render_classification,
    render_dashboards,
    render_track,
    section_box,
    section_polygon,
    slot_xy,
    track_layout,
    turn_cell_xy,
)
from rules.rf90 import GAME, catalog
from rules.rf90.scenario import build, cards, off_track
from rules.rf90.state import RF90State, RobotToken

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BUDGET = 500_000


def _img(png: bytes) -> Image.Image:
    assert png.startswith(PNG_MAGIC)
    return Image.open(io.BytesIO(png)).convert("RGB")


def _near(a: tuple[int, ...], b: tuple[int, ...], tol: int = 24) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def _count(img: Image.Image, box: tuple[int, int, int, int], rgb: tuple[int, int, int]) -> int:
    crop = img.crop(box)
    return sum(1 for px in crop.get_flattened_data() if _near(px, rgb))


def _around(xy: tuple[int, int], r: int) -> tuple[int, int, int, int]:
    return (xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r)


def _scene(track: str = "barcelona") -> RF90State:
    """Two players and three robots in a mid-race position."""
    sec = 16 if track == "barcelona" else 14
    return build(
        track,
        [
            {"name": "Red car", "seat": 0, "section": sec, "hand": cards([("red", 3)]),
             "fuel_turn": 12},
            {"name": "Blue car", "seat": 1, "section": sec, "mark": "ended", "fuel_turn": 30},
            {"name": "SF", "robot": "superfast", "section": 5, "lap": 1, "mark": "skipped"},
            {"name": "Fast", "robot": "fast", "section": 3},
            {"name": "Slow", "robot": "slow", "section": 3},
        ],
        turn=7,
    )  # fmt: skip


@cache
def _finished(track: str, seed: int = 5) -> RF90State:
    state = GAME.new_game(seed, {"track": track, "players": [{} for _ in range(3)]})
    for _ in range(20_000):
        if GAME.is_terminal(state):
            break
        state, _ = GAME.apply(state, GAME.robot_action(state, GAME.to_act(state)[0]))
    assert GAME.is_terminal(state)
    return state


# --- layout ------------------------------------------------------------------------------


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_slots_are_inside_their_section_and_far_enough_apart(track: str) -> None:
    tr = catalog.track(track)
    for sec in tr.sections:
        pts = [slot_xy(track, sec.index, k) for k in range(sec.capacity)]
        for p in pts:
            assert _inside(section_polygon(track, sec.index), p), (sec.index, p)
        for i, a in enumerate(pts):
            for b in pts[i + 1 :]:
                assert math.dist(a, b) >= SLOT_GAP - 2, (sec.index, a, b)


def test_car_xy_follows_the_section_order() -> None:
    state = _scene()
    assert car_xy(state, 0) == slot_xy("barcelona", 16, 0)
    assert car_xy(state, 1) == slot_xy("barcelona", 16, 1)
    assert car_xy(state, 4) == slot_xy("barcelona", 3, 1)


def test_robot_labels_name_the_type() -> None:
    state = _scene()
    assert [car_label(state, c) for c in state.cars] == ["1", "2", "X1", "F1", "S1"]


# --- track image -------------------------------------------------------------------------


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_track_png_is_valid_within_budget_and_deterministic(track: str) -> None:
    state = _scene(track)
    png = render_track(state, active_section=3)
    img = _img(png)
    assert img.size == (W, HEIGHT)
    assert len(png) < BUDGET
    assert render_track(state, active_section=3) == png
    assert render_track(state) != png


def test_each_car_marker_shows_its_colour_at_its_slot() -> None:
    state = _scene()
    img = _img(render_track(state))
    expect = {0: "red", 1: "blue", 2: "black", 3: "yellow", 4: "purple"}
    for cid, colour in expect.items():
        xy = car_xy(state, cid)
        assert xy is not None
        rgb = PALETTE[colour].fill
        assert _count(img, _around(xy, MARKER // 3), rgb) > 80, (cid, colour)
    # and not where the car is not: red is absent from the robots' slots
    assert _count(img, _around(car_xy(state, 3), MARKER // 3), PALETTE["red"].fill) == 0


def test_active_section_highlight_changes_only_that_section() -> None:
    state = _scene()
    plain = _img(render_track(state))
    for track_sec, far in ((8, 20), (14, 2)):
        lit = _img(render_track(state, active_section=track_sec))
        # (the PNG palette may shift a colour a little elsewhere: count real changes only)
        diff = ImageChops.difference(plain, lit).convert("L").point(lambda v: 255 if v > 40 else 0)
        x0, y0, x1, y1 = section_box("barcelona", track_sec)
        changed = diff.histogram()[255]
        inside = diff.crop((x0 - 8, y0 - 8, x1 + 8, y1 + 8)).histogram()[255]
        assert changed > 2000 and inside >= 0.98 * changed, (changed, inside)
        assert diff.crop(section_box("barcelona", far)).getbbox() is None
        inner = (x0 + (x1 - x0) // 3, y0 + (y1 - y0) // 3, x1 - (x1 - x0) // 3, y1 - (y1 - y0) // 3)
        assert diff.crop(inner).getbbox() is not None  # the inside is tinted, not just the rim


def test_unknown_active_section_is_refused() -> None:
    with pytest.raises(ValueError):
        render_track(_scene(), active_section=99)


def test_leader_and_turn_marks_are_drawn_on_the_right_cars() -> None:
    state = _scene()
    img = _img(render_track(state))
    half = MARKER // 2

    def corner(cid: int, dx: int, dy: int) -> tuple[int, int, int, int]:
        x, y = car_xy(state, cid)  # type: ignore[misc]
        return _around((x + dx * (half - 2), y + dy * (half - 2)), 7)

    lead = GAME.public_view(state)["leader"]
    assert lead == 2  # the SuperFast robot is a lap ahead
    assert _count(img, corner(2, -1, -1), LEADER_BG) > 20
    assert _count(img, corner(3, -1, -1), LEADER_BG) == 0
    assert _count(img, corner(1, 1, 1), ENDED_BG) > 20  # Blue: turn ended
    assert _count(img, corner(0, 1, 1), ENDED_BG) == 0
    assert _count(img, corner(2, 1, 1), SKIPPED_BG) > 20  # SuperFast: turn skipped
    assert _count(img, corner(0, 1, 1), SKIPPED_BG) == 0


def test_turn_strip_marks_the_current_turn_and_the_fuel_chits() -> None:
    state = _scene()
    img = _img(render_track(state))
    for turn in range(1, 28):
        x, y = turn_cell_xy("barcelona", turn)
        cell = (x - 20, y - 12, x + 20, y + 12)  # the number is drawn in the middle
        assert (_count(img, cell, TITLE_BG) > 200) == (turn == 7), turn
    # Red's chit on turn 12; Blue's (turn 30 > 27 turns) over the top, on space 3
    x12, y = turn_cell_xy("barcelona", 12)
    below = (x12 - 20, y + 24, x12 + 20, y + 120)
    assert _count(img, below, PALETTE["red"].fill) > 60
    x3, _ = turn_cell_xy("barcelona", 3)
    assert _count(img, (x3 - 20, y + 24, x3 + 20, y + 120), PALETTE["blue"].fill) > 60
    x5, _ = turn_cell_xy("barcelona", 5)
    assert _count(img, (x5 - 20, y + 24, x5 + 20, y + 120), PALETTE["blue"].fill) == 0


def test_off_track_car_waits_in_the_run_off_area() -> None:
    state, _ = off_track(_scene(), 0, 17)
    assert state.cars[0].off_track
    xy = car_xy(state, 0)
    assert xy == off_track_xy("barcelona", 17)
    img = _img(render_track(state))
    assert _count(img, _around(xy, 8), PALETTE["red"].fill) > 40


def test_cars_wear_their_own_colours_and_old_states_fall_back_to_the_seat() -> None:
    state = _scene()
    state.cars[0].colour = "green"
    state.cars[1].colour = "black"
    img = _img(render_track(state))
    for cid, colour in ((0, "green"), (1, "black")):
        xy = car_xy(state, cid)
        assert xy is not None
        assert _count(img, _around(xy, MARKER // 3), PALETTE[colour].fill) > 80, (cid, colour)
    assert [r.colour for r in dashboard_rows(state)][:2] == ["green", "black"]
    old = _scene()
    for car in old.cars:
        car.colour = None  # a state saved before cars had a colour
    robots = catalog.tables().robots.colours
    assert [car_colour_name(c) for c in old.cars] == [
        SEAT_COLOURS[0],
        SEAT_COLOURS[1],
        robots["superfast"],
        robots["fast"],
        robots["slow"],
    ]
    _img(render_track(old))


def test_robot_pit_tokens_wear_the_robot_type_colour() -> None:
    state = _scene()
    state.robot_tokens = [RobotToken(robot="slow", value=3, check=50, turn=9)]
    img = _img(render_track(state))
    x, y = turn_cell_xy("barcelona", 9)
    below = (x - 20, y + 24, x + 20, y + 80)
    assert _count(img, below, PALETTE[catalog.tables().robots.colours["slow"]].fill) > 60


# --- crowded positions: labels stay readable ----------------------------------------------


def _crowded(track: str) -> RF90State:
    """Every section full, a row of off-track cars waiting at every run-off area, every car in
    a section with a trajectory on it, players and robots mixed, marks and a leader."""
    tr = catalog.track(track)
    specs: list[dict] = []
    kinds = ("superfast", "fast", "slow")
    for sec in tr.sections:
        trajectories = [t.id for t in sec.trajectories]
        for k in range(sec.capacity):
            spec: dict = {"section": sec.index, "lap": 1 + (sec.index % 2), "qual_card": None}
            if len(specs) % 3 == 2:
                spec["robot"] = kinds[len(specs) % 9 // 3]
            if trajectories:
                spec["trajectory"] = trajectories[k % len(trajectories)]
            spec["mark"] = ("ended", "skipped", None)[len(specs) % 3]
            specs.append(spec)
    for sec in tr.sections:
        if sec.off_track is not None:
            for _ in range(OFF_ROW):
                specs.append({"section": sec.off_track.reentry, "off_track": True,
                              "qual_card": None})  # fmt: skip
    return build(track, specs, turn=9)


def _check_layout(layout: Layout) -> None:
    for lb in layout.labels:
        assert lb.size >= MIN_TEXT, lb
        x0, y0, x1, y1 = lb.box
        assert 0 <= x0 < x1 <= W and 0 <= y0 < y1 <= HEIGHT, lb
    for m in layout.markers:
        for lb in layout.labels:
            assert not boxes_overlap(m.box, lb.box), (m, lb)
    labels = layout.labels
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            assert not boxes_overlap(a.box, b.box), (a, b)


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_crowded_track_keeps_every_label_clear_and_readable(track: str) -> None:
    state = _crowded(track)
    tr = catalog.track(track)
    on_track = sum(len(cars) for cars in state.sections)
    assert on_track == sum(s.capacity for s in tr.sections)
    layout = track_layout(state)
    drawn = [m for m in layout.markers if m.where in ("track", "off")]
    assert len(drawn) == len(state.cars)  # every car is drawn, and checked
    off = {car_xy(state, c.id) for c in state.cars if c.off_track}
    assert len(off) == sum(1 for c in state.cars if c.off_track)  # no two at one spot
    _check_layout(layout)
    kinds = {lb.kind for lb in layout.labels}
    assert {"corner", "section", "trajectory", "offtrack", "legend", "turn", "weather"} <= kinds
    corners = [lb for lb in layout.labels if lb.kind == "corner"]
    assert len(corners) == sum(1 for s in tr.sections if s.corner)
    numbered = {lb.ref for lb in layout.labels if lb.kind in ("corner", "section")}
    assert numbered == {str(s.index) for s in tr.sections}  # every section is numbered
    ring = [_poly_shape(section_polygon(track, s.index)) for s in tr.sections]
    for lb in layout.labels:  # and no label lies on the track
        if lb.kind in ("corner", "section", "offtrack", "trajectory"):
            assert not any(shape.hits(lb.box) for shape in ring), lb
    png = render_track(state, active_section=tr.length - 1)
    img = _img(png)
    assert img.size == (W, HEIGHT)
    assert len(png) < BUDGET
    backgrounds = {"corner": CORNER_BG, "offtrack": OFF_BG, "trajectory": TRAJ_BG}
    for lb in layout.labels:  # the labels are drawn where the layout says, uncovered
        if lb.kind in backgrounds:
            box = tuple(round(v) for v in lb.box)
            area = (box[2] - box[0]) * (box[3] - box[1])
            assert _count(img, box, backgrounds[lb.kind]) > 0.25 * area, lb  # type: ignore[arg-type]


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_mid_race_layout_is_clear_too(track: str) -> None:
    _check_layout(track_layout(_scene(track)))
    _check_layout(track_layout(_finished(track)))


# --- dashboards --------------------------------------------------------------------------


def test_dashboard_rows_hold_counts_never_cards() -> None:
    state = _scene()
    hand = cards([("red", 3), ("green", 1), ("yellow", 2)])
    state.cars[0].hand = hand
    rows = dashboard_rows(state)
    assert rows[0].hand_count == 3
    labels = {catalog.cards("barcelona")[c].label for c in hand}
    for row in rows:
        for value in vars(row).values():
            assert not isinstance(value, list | tuple | dict)
            assert str(value) not in labels


def test_dashboards_do_not_depend_on_which_cards_are_in_hand() -> None:
    a = _scene()
    b = a.model_copy(deep=True)
    a.cars[0].hand = cards([("red", 3), ("green", 1)])
    b.cars[0].hand = cards([("orange", 3), ("yellow", 2)])
    assert render_dashboards(a) == render_dashboards(b)
    assert render_track(a) == render_track(b)
    c = a.model_copy(deep=True)
    c.cars[0].hand = cards([("red", 3)])  # one card fewer: the count is drawn
    assert render_dashboards(c) != render_dashboards(a)


def test_dashboard_png_is_valid_and_shows_every_car_colour() -> None:
    state = _scene()
    png = render_dashboards(state)
    img = _img(png)
    assert len(png) < BUDGET
    assert render_dashboards(state) == png
    for colour in ("red", "blue", "black", "yellow", "purple"):
        assert _count(img, (0, 0, img.width, img.height), PALETTE[colour].fill) > 200, colour


# --- finished robot races ----------------------------------------------------------------


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_finished_robot_race_renders_everything(track: str) -> None:
    state = _finished(track)
    for png in (render_track(state), render_dashboards(state), render_classification(state)):
        _img(png)
        assert len(png) < BUDGET
    rows = classification_rows(state)
    order = GAME.race_classification(state)
    assert [r[1].text for r in rows] == [c.name for c in order]  # type: ignore[union-attr]
    for row, car in zip(rows, order, strict=True):
        assert row[2].text.startswith(car.status)  # type: ignore[union-attr]
        assert row[4] == str(car.pit_stops)
    assert sum(c.pit_stops for c in order) > 0


def test_classification_shows_retired_cars() -> None:
    state = _scene()
    state.cars[3].status = "retired"
    state.cars[3].out_turn = 4
    state.sections[3].remove(3)
    rows = classification_rows(state)
    assert rows[-1][1].text == "Fast"  # type: ignore[union-attr]
    assert rows[-1][2].text == "retired (turn 4)"  # type: ignore[union-attr]
    assert car_xy(state, 3) is None
    _img(render_classification(state))


def test_the_section_being_activated_is_lit_by_default() -> None:
    state = _scene()
    state.activation = None
    plain = render_track(state)
    state.activation = 8
    assert render_track(state) == render_track(state, active_section=8)
    assert render_track(state) != plain
