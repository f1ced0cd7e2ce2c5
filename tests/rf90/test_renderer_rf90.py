"""RF90 images: valid PNGs within budget, determinism, and that cars, highlights, badges and
chits are drawn where the layout helpers say, in the cars' own colours; on crowded positions no
car marker covers a label, labels do not overlap and no text is smaller than 22 px; dashboards
never show card identities.

Reading on a phone (issue 12), checked on every text drawn (`draw_text` is recorded): the
track image's header band (the game turn, the section, the weather, who is to play, the
winner) and every text of the dashboards and the classification are 12 px or more when the
image is shown 400 px wide; the dashboards' texts never overlap; drivers' names are drawn, never
a colour's stand-in; one word per meaning across the images (a game turn, a corner's name,
tyres); braking zones carry a pattern, not only a tint."""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Iterator
from functools import cache

import pytest
from PIL import Image, ImageChops

from renderer import common, rf90_base, rf90_closeup, rf90_cockpit, rf90_tables, rf90_track
from renderer.common import PALETTE, TITLE_BG
from renderer.rf90 import (
    BAND_H,
    BRAKING,
    CHEVRON,
    CORNER_BG,
    DASH_W,
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
    band,
    boxes_overlap,
    car_colour_name,
    car_label,
    car_xy,
    classification_rows,
    classification_texts,
    corner_name,
    dashboard_layout,
    dashboard_rows,
    dashboard_texts,
    off_track_xy,
    phone_px,
    race_head,
    race_status,
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
from tests.helpers import (
    PHONE_MIN_PX,
    PHONE_WIDTH,
    assert_phone_legible,
    count,
    near,
    open_png,
    record_texts,
)

BUDGET = 500_000


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
    img = open_png(png)
    assert img.size == (W, HEIGHT)
    assert len(png) < BUDGET
    assert render_track(state, active_section=3) == png
    assert render_track(state) != png


def test_each_car_marker_shows_its_colour_at_its_slot() -> None:
    state = _scene()
    img = open_png(render_track(state))
    expect = {0: "red", 1: "blue", 2: "black", 3: "yellow", 4: "purple"}
    for cid, colour in expect.items():
        xy = car_xy(state, cid)
        assert xy is not None
        rgb = PALETTE[colour].fill
        assert count(img, _around(xy, MARKER // 3), rgb) > 80, (cid, colour)
    # and not where the car is not: red is absent from the robots' slots
    assert count(img, _around(car_xy(state, 3), MARKER // 3), PALETTE["red"].fill) == 0


def test_active_section_highlight_changes_only_that_section() -> None:
    state = _scene()
    plain = open_png(render_track(state))
    for track_sec, far in ((8, 20), (14, 2)):
        lit = open_png(render_track(state, active_section=track_sec))
        # (the PNG palette may shift a colour a little elsewhere: count real changes only)
        diff = ImageChops.difference(plain, lit).convert("L").point(lambda v: 255 if v > 40 else 0)
        diff = diff.crop((0, BAND_H, W, HEIGHT))  # the header band names the section: not here
        x0, y0, x1, y1 = section_box("barcelona", track_sec)
        y0, y1 = y0 - BAND_H, y1 - BAND_H
        changed = diff.histogram()[255]
        inside = diff.crop((x0 - 8, y0 - 8, x1 + 8, y1 + 8)).histogram()[255]
        assert changed > 2000 and inside >= 0.98 * changed, (changed, inside)
        fx0, fy0, fx1, fy1 = section_box("barcelona", far)
        assert diff.crop((fx0, fy0 - BAND_H, fx1, fy1 - BAND_H)).getbbox() is None
        inner = (x0 + (x1 - x0) // 3, y0 + (y1 - y0) // 3, x1 - (x1 - x0) // 3, y1 - (y1 - y0) // 3)
        assert diff.crop(inner).getbbox() is not None  # the inside is tinted, not just the rim


def test_track_png_maps_only_what_changed_and_gives_the_same_pixels() -> None:
    """`render_track` maps only the pixels an image draws over the static layer: those are
    the pixels of mapping the whole image, and every other pixel is the static layer's as
    mapped once. Compared over the whole image, so a box `_dirty` forgot would show."""
    from renderer.rf90_track import _layers, drawn_mask, track_image

    scene = _scene()
    scene.robot_tokens = [RobotToken(robot="slow", value=3, check=50, turn=9)]
    states = [scene, off_track(_scene(), 0, 17)[0], _crowded("silverstone"),
              _finished("barcelona"), _named("silverstone")]  # fmt: skip
    for state in states:
        base, ref = _layers(state.track, catalog.track(state.track).race_turns)
        for active in (None, 3, catalog.track(state.track).length - 1):
            drawn = track_image(state, active_section=active)
            expected = base.copy()
            expected.paste(drawn.quantize(palette=ref, dither=Image.Dither.NONE), (0, 0),
                           drawn_mask(drawn, base))  # fmt: skip
            got = Image.open(io.BytesIO(render_track(state, active_section=active)))
            assert got.mode == "P" and got.getpalette() == base.getpalette()
            assert got.tobytes() == expected.tobytes(), (state.track, active)
            assert expected.tobytes() != base.tobytes()  # the cars and the band were drawn


def test_track_image_without_its_header_band_is_the_rest_of_the_image() -> None:
    from renderer.rf90_track import track_image

    state = _scene()
    whole = track_image(state, active_section=4)
    rest = track_image(state, active_section=4, header=False)
    assert whole.size == (W, HEIGHT) and rest.size == (W, HEIGHT - BAND_H)
    assert ImageChops.difference(rest, whole.crop((0, BAND_H, W, HEIGHT))).getbbox() is None


def test_unknown_active_section_is_refused() -> None:
    with pytest.raises(ValueError):
        render_track(_scene(), active_section=99)


def test_leader_and_turn_marks_are_drawn_on_the_right_cars() -> None:
    state = _scene()
    img = open_png(render_track(state))
    half = MARKER // 2

    def corner(cid: int, dx: int, dy: int) -> tuple[int, int, int, int]:
        x, y = car_xy(state, cid)  # type: ignore[misc]
        return _around((x + dx * (half - 2), y + dy * (half - 2)), 7)

    lead = GAME.public_view(state)["leader"]
    assert lead == 2  # the SuperFast robot is a lap ahead
    assert count(img, corner(2, -1, -1), LEADER_BG) > 20
    assert count(img, corner(3, -1, -1), LEADER_BG) == 0
    assert count(img, corner(1, 1, 1), ENDED_BG) > 20  # Blue: turn ended
    assert count(img, corner(0, 1, 1), ENDED_BG) == 0
    assert count(img, corner(2, 1, 1), SKIPPED_BG) > 20  # SuperFast: turn skipped
    assert count(img, corner(0, 1, 1), SKIPPED_BG) == 0


def test_turn_strip_marks_the_current_turn_and_the_fuel_chits() -> None:
    state = _scene()
    img = open_png(render_track(state))
    for turn in range(1, 28):
        x, y = turn_cell_xy("barcelona", turn)
        cell = (x - 20, y - 12, x + 20, y + 12)  # the number is drawn in the middle
        assert (count(img, cell, TITLE_BG) > 200) == (turn == 7), turn
    # Red's chit on turn 12; Blue's (turn 30 > 27 turns) over the top, on space 3
    x12, y = turn_cell_xy("barcelona", 12)
    below = (x12 - 20, y + 24, x12 + 20, y + 120)
    assert count(img, below, PALETTE["red"].fill) > 60
    x3, _ = turn_cell_xy("barcelona", 3)
    assert count(img, (x3 - 20, y + 24, x3 + 20, y + 120), PALETTE["blue"].fill) > 60
    x5, _ = turn_cell_xy("barcelona", 5)
    assert count(img, (x5 - 20, y + 24, x5 + 20, y + 120), PALETTE["blue"].fill) == 0


def test_off_track_car_waits_in_the_run_off_area() -> None:
    state, _ = off_track(_scene(), 0, 17)
    assert state.cars[0].off_track
    xy = car_xy(state, 0)
    assert xy == off_track_xy("barcelona", 17)
    img = open_png(render_track(state))
    assert count(img, _around(xy, 8), PALETTE["red"].fill) > 40


def test_cars_wear_their_own_colours_and_old_states_fall_back_to_the_seat() -> None:
    state = _scene()
    state.cars[0].colour = "green"
    state.cars[1].colour = "black"
    img = open_png(render_track(state))
    for cid, colour in ((0, "green"), (1, "black")):
        xy = car_xy(state, cid)
        assert xy is not None
        assert count(img, _around(xy, MARKER // 3), PALETTE[colour].fill) > 80, (cid, colour)
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
    open_png(render_track(old))


def test_robot_pit_tokens_wear_the_robot_type_colour() -> None:
    state = _scene()
    state.robot_tokens = [RobotToken(robot="slow", value=3, check=50, turn=9)]
    img = open_png(render_track(state))
    x, y = turn_cell_xy("barcelona", 9)
    below = (x - 20, y + 24, x + 20, y + 80)
    assert count(img, below, PALETTE[catalog.tables().robots.colours["slow"]].fill) > 60


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
    img = open_png(png)
    assert img.size == (W, HEIGHT)
    assert len(png) < BUDGET
    backgrounds = {"corner": CORNER_BG, "offtrack": OFF_BG, "trajectory": TRAJ_BG}
    for lb in layout.labels:  # the labels are drawn where the layout says, uncovered
        if lb.kind in backgrounds:
            box = tuple(round(v) for v in lb.box)
            area = (box[2] - box[0]) * (box[3] - box[1])
            assert count(img, box, backgrounds[lb.kind]) > 0.25 * area, lb  # type: ignore[arg-type]


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
    img = open_png(png)
    assert len(png) < BUDGET
    assert render_dashboards(state) == png
    for colour in ("red", "blue", "black", "yellow", "purple"):
        assert count(img, (0, 0, img.width, img.height), PALETTE[colour].fill) > 200, colour


# --- finished robot races ----------------------------------------------------------------


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_finished_robot_race_renders_everything(track: str) -> None:
    state = _finished(track)
    for png in (render_track(state), render_dashboards(state), render_classification(state)):
        open_png(png)
        assert len(png) < BUDGET
    rows = classification_rows(state)
    order = GAME.race_classification(state)
    assert [r[1].name for r in rows] == [c.name for c in order]
    for row, car in zip(rows, order, strict=True):
        assert row[2] == ("finished" if car.running else car.status) or row[2].startswith(
            f"{car.status} (game turn "
        )
        assert row[4] == f"{car.pit_stops} pit stop{'s' if car.pit_stops != 1 else ''}"
    assert sum(c.pit_stops for c in order) > 0


def test_classification_shows_retired_cars() -> None:
    state = _scene()
    state.cars[3].status = "retired"
    state.cars[3].out_turn = 4
    state.sections[3].remove(3)
    rows = classification_rows(state)
    assert rows[-1][1].name == "Fast"
    assert rows[-1][2] == "retired (game turn 4)"
    assert rows[0][2] == "running"  # the race goes on
    assert car_xy(state, 3) is None
    open_png(render_classification(state))


def test_the_section_being_activated_is_lit_by_default() -> None:
    state = _scene()
    state.activation = None
    plain = render_track(state)
    state.activation = 8
    assert render_track(state) == render_track(state, active_section=8)
    assert render_track(state) != plain


# --- reading on a phone (issue 12) -----------------------------------------------------------


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], object]], list]]:
    """Records every text an image draws (through `draw_text`, which the RF90 renderers, the
    text log of the phone images and the shared marker helper use), static layers included."""
    modules = (common, rf90_base, rf90_track, rf90_tables, rf90_cockpit, rf90_closeup)
    yield from record_texts(monkeypatch, modules, (rf90_track._layers, rf90_closeup._layer))


def test_the_phone_rule_is_what_the_tests_check() -> None:
    assert phone_px(DASH_W) == 24 == math.ceil(PHONE_MIN_PX * DASH_W / PHONE_WIDTH)
    assert phone_px(W) == 56


@cache
def _named(track: str, turn: int = 8) -> RF90State:
    """Three drivers with names (as the bot gives them) and the robots, in game turn `turn`
    while a driver is to play."""
    names = [{"name": "Alice"}, {"name": "Bob"}, {"name": "Chloé Dupont-Aignan"}]
    state = GAME.new_game(11, {"track": track, "players": names})
    for _ in range(20_000):
        pending = state.pending
        if (state.phase == "race" and state.turn >= turn and pending is not None
                and state.cars[pending.car].seat is not None):  # fmt: skip
            return state
        state, _ = GAME.apply(state, GAME.robot_action(state, GAME.to_act(state)[0]))
    raise AssertionError("the race ended first")


def _packed() -> RF90State:
    """The most cars a race has: six players with long names (wet tyres, every disc, the
    longest strategy and skill) and the seven robots, one of them out of the race."""
    robots = ["superfast", "superfast", "fast", "fast", "fast", "slow", "slow"]
    specs: list[dict] = [
        {"seat": k, "name": f"Driver number {k + 1} with a very long name indeed",
         "section": k, "tyre": ("intermediate", "soft", "hard", "wet")[k % 4], "chips": 12,
         "blue": 3, "damage_red": 2, "damage_brown": 2, "strategy": "banging_wheels",
         "skill": "wise_driving", "fuel_turn": 12 + k, "pit_stops": 2}
        for k in range(6)
    ] + [{"robot": r, "section": 8 + k, "pit_stops": 1} for k, r in enumerate(robots)]  # fmt: skip
    state = build("barcelona", specs, turn=9)
    out = state.cars[-1]
    out.status, out.out_turn = "retired", 6
    state.sections[out.section].remove(out.id)
    return state


def _dash_states() -> list[RF90State]:
    return [_scene(), _packed(), _named("barcelona"), _named("silverstone"), _finished("barcelona")]


def test_dashboard_texts_read_on_a_phone(texts) -> None:
    for state in _dash_states():
        drawn = texts(lambda state=state: render_dashboards(state))
        assert_phone_legible(drawn, DASH_W, tuple(c.name for c in state.cars))
        assert [(t.text, t.size) for t in drawn] == [  # the text log draws the same texts
            (t.text, t.size) for t in dashboard_texts(state)
        ]
        assert open_png(render_dashboards(state)).width == DASH_W


def test_dashboard_texts_never_overlap() -> None:
    for state in _dash_states():
        boxes = [t for t in dashboard_texts(state) if t.box is not None]
        assert len(boxes) > 20
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not boxes_overlap(a.box, b.box), (a, b)
            x0, y0, x1, y1 = a.box
            assert 0 <= x0 < x1 <= DASH_W, a


def test_dashboards_name_the_drivers_never_a_colour() -> None:
    state = _named("barcelona")
    words = [t.text for t in dashboard_texts(state)]
    for car in state.cars:
        assert car.name in words, car.name
    assert "Chloé Dupont-Aignan" in words  # drawn as typed
    assert not any(re.search(r"\b(Red|Blue|Green|Yellow) car\b", w) for w in words)


def test_dashboards_show_the_race_in_order_then_a_legend_of_the_discs() -> None:
    state = _named("silverstone")
    rows = dashboard_rows(state)
    corners, width, height = dashboard_layout(rows)
    order = [c.id for c in GAME.race_classification(state)]
    assert [corners[c][1] for c in order] == sorted(corners[c][1] for c in order)
    words = [t.text for t in dashboard_texts(state)]
    # where the race is and what happens, as the track's header band says it
    head, (status, _) = race_head(state), race_status(state)
    assert head in words and status in words
    assert "temporary damage" in words and "blue disc: +1 MP, one a game turn" in words
    assert any(w.startswith("permanent damage, -") for w in words)
    # a player's panel: tyres and chips, blue discs, damage, fuel, strategy, skill, check, hand
    packed = [t.text for t in dashboard_texts(_packed())]
    for word in ("Intermediate", "12 chips", "Blue discs", "4/4", "Refuel by game turn 12",
                 "Banging Wheels", "Wise Driving", "Target check"):  # fmt: skip
        assert word in packed, word
    assert "retired (game turn 6)" in packed  # a car out of the race says so
    # the robots' pit tokens and the circuit's facts, as the track image's strip and title
    scene = _scene()
    scene.robot_tokens = [
        RobotToken(robot="slow", value=3, check=50, turn=9),
        RobotToken(robot="fast", value=3, check=50, turn=4, done=True),  # pitted: not shown
    ]
    notes = [t.text for t in dashboard_texts(scene)]
    assert "Robots pit on game turn 9 (Slow)" in notes
    assert "Barcelona: 27 game turns · pit stop: 7 sections back" in notes


def test_track_header_reads_on_a_phone_and_names_the_winner(texts) -> None:
    for state in (_scene(), _named("silverstone"), _finished("barcelona")):
        b = band(state)
        layout = track_layout(state)
        header = [lb for lb in layout.labels if lb.kind == "header"]
        assert {lb.text for lb in header} == {t for t in (b.head, b.weather, b.sub) if t}
        drawn = texts(lambda state=state: render_track(state))
        shown = [t for t in drawn if t.text in {lb.text for lb in header}]
        assert len(shown) == len(header)
        assert_phone_legible(shown, W)
        for lb in header:  # in the band, above the track
            assert lb.box[3] <= BAND_H, lb
    final = _finished("silverstone")
    winner = GAME.race_classification(final)[0]
    b = band(final)
    assert b.head.startswith("Finished after game turn ")
    assert b.sub == f"Winner: {winner.name}" and b.car is not None and b.car.id == winner.id
    assert race_status(_scene())[0] == "Leader: SF"  # nobody to play: the leader


def test_classification_reads_on_a_phone(texts) -> None:
    state = _finished("barcelona")
    drawn = texts(lambda: render_classification(state))
    assert_phone_legible(drawn, 800)
    words = [t.text for t in classification_texts(state)]
    assert words[0] == "Final classification"
    assert [c.name for c in GAME.race_classification(state)] == [
        w for w in words if w in {c.name for c in state.cars}
    ]


_NOT_GAME_TURN = re.compile(r"(?<![Gg]ame )\b[Tt]urns?\b")
_T_NUMBER = re.compile(r"\bT\d")


def test_one_word_per_meaning_across_the_images(texts) -> None:
    """A game turn is "game turn", a corner is called by its name, tyres are "tyre(s)": no "T"
    stands for any of them, and "turn" alone is never used (a car "played" / "skipped" this
    game turn)."""
    from renderer.rf90 import render_closeup, render_cockpit

    rules_texts = {s.bonus for s in catalog.tables().strategies}
    rules_texts |= {s.text for s in catalog.tables().skills}
    for track in catalog.TRACKS:
        state = _named(track)
        drawn = texts(lambda state=state: render_track(state))
        for section in range(catalog.track(track).length):
            drawn += texts(lambda state=state, section=section: render_closeup(state, section))
        drawn += texts(lambda state=state: render_cockpit(state, 0))
        drawn += texts(lambda state=state: render_dashboards(state))
        drawn += texts(lambda track=track: render_classification(_finished(track)))
        words = {t.text for t in drawn}
        assert any(w.startswith("Game turn") for w in words)
        assert "Game turn" in words  # the strip's row
        for w in words:
            if any(w in t for t in rules_texts):  # the rules' own explanations, wrapped
                continue
            assert not _T_NUMBER.search(w), w
            assert not _NOT_GAME_TURN.search(w), w
        tr = catalog.track(track)
        for sec in tr.sections:
            if sec.corner is not None:
                name = corner_name(sec)  # (a long name is wrapped)
                assert any(name[:6] in w for w in words), name
                assert not name.startswith("Turn ")
        costs = [w for w in words if w.startswith("off:")]
        assert costs and all(re.fullmatch(r"off:( \d (tyres?|dmg|cards?),?)*", w) for w in costs)


def test_legend_words_the_marks() -> None:
    legend = {lb.text for lb in track_layout(_scene()).labels if lb.kind == "legend"}
    assert {"Played this game turn", "Skipped this game turn", "Braking zone (chevrons)"} <= legend


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_braking_zones_carry_chevrons_not_only_a_tint(track: str) -> None:
    """Red-green colour-blind players tell a braking zone from a straight by its chevrons:
    their colour stands out from the zone's in lightness, and only braking zones have them
    (on the track image and on the close-up)."""
    from renderer.rf90 import closeup_layout, render_closeup

    def lightness(rgb: tuple[int, int, int]) -> float:
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]

    assert lightness(CHEVRON) - lightness(BRAKING) > 40
    state = _scene(track)
    img = open_png(render_track(state))
    tr = catalog.track(track)
    for sec in tr.sections:
        if sec.kind not in ("braking", "straight"):
            continue
        x0, y0, x1, y1 = section_box(track, sec.index)
        poly = section_polygon(track, sec.index)
        inside = [(x, y) for x in range(x0, x1, 2) for y in range(y0, y1, 2)
                  if _inside(poly, (x, y))]  # fmt: skip
        hits = sum(1 for p in inside if near(img.getpixel(p), CHEVRON, 12))
        if sec.kind == "braking":
            assert hits > 0.04 * len(inside), (sec.index, hits, len(inside))
        else:
            assert hits < 0.005 * len(inside), (sec.index, hits, len(inside))
    braking = next(s.index for s in tr.sections if s.kind == "braking")
    centre = braking + 1  # (the section it is centred on is lit)
    close = open_png(render_closeup(state, centre))
    lay = closeup_layout(state, centre)
    assert braking in lay.sections
    qx = [p[0] for p in lay.quads[braking]]
    qy = [p[1] for p in lay.quads[braking]]
    box = (round(min(qx)), round(min(qy)), round(max(qx)), round(max(qy)))
    assert count(close, box, CHEVRON) > 200
