"""Waddington's Formula 1 images: valid PNGs, budgets, determinism, things drawn where the
layout helpers say they are, and every text readable on a phone that shows the image 400 px
wide (12 px or more there)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PIL import Image, ImageChops

from renderer import (
    common,
    waddington_board,
    waddington_closeup,
    waddington_layout,
    waddington_tables,
)
from renderer.common import PALETTE, PAPER
from renderer.waddington import (
    BOARD_WIDTH,
    CAR_SIZE,
    CLASS_WIDTH,
    CLOSEUP_HEIGHT,
    CLOSEUP_WIDTH,
    HIGHLIGHT,
    LETTER_BG,
    PHONE_MIN_PX,
    PHONE_WIDTH,
    WARN_RED,
    board_height,
    board_labels,
    board_xy,
    car_board_xy,
    car_status,
    classification_lines,
    classification_marker_xy,
    classification_order,
    closeup_layout,
    dash_rows,
    letter_size,
    moves_between,
    race_order,
    render_board,
    render_classification,
    render_closeup,
    warning,
)
from renderer.waddington_layout import band_text, box_distance, ring_radius
from rules.waddington import GAME, Retire
from rules.waddington.catalog import catalog
from rules.waddington.scenario import build
from rules.waddington.state import WaddingtonState
from tests.helpers import assert_phone_legible, near, open_png, record_texts

BUDGET = 500_000

SIX = [
    {"colour": "Yellow", "row": 9, "lane": 1, "speed": 120, "tyre": 3, "brake": 1},
    {"colour": "Orange", "row": 30, "lane": 2, "speed": 100, "tyre": 8, "brake": 5},
    {"colour": "Green", "row": 12, "lane": 3, "spun_at": "Copse Corner"},
    {"colour": "Red", "row": 66, "lane": -1, "lose_turns": 1},
    {"colour": "Black", "row": 5, "lane": 0, "speed": 60, "lap": 2},
    {"colour": "Blue", "row": 40, "lane": 1, "speed": 140},
]


def fill_point(xy: tuple[int, int]) -> tuple[int, int]:
    """A point inside a board marker's coloured disc but clear of its number."""
    return (xy[0] - 10, xy[1])


def six_cars(**changes: dict) -> WaddingtonState:
    cars = [dict(c) for c in SIX]
    for i, change in changes.items():
        cars[int(i[1:])].update(change)
    return build(cars, to_move=0, phase="move")


def robot_race(seed: int, players: int, laps: int, retire_after: int | None = None):
    """A robot race played to the end (one car retiring after `retire_after` actions)."""
    state = GAME.new_game(seed, GAME.simulation_config(players, laps))
    for n in range(20000):
        if GAME.is_terminal(state):
            return state
        seat = GAME.to_act(state)[0]
        action = Retire(seat=seat) if n == retire_after else GAME.robot_action(state, seat)
        state, _ = GAME.apply(state, action)
    raise AssertionError("the race never ended")


@pytest.fixture(scope="module")
def finished_race() -> WaddingtonState:
    return robot_race(7, 5, 1, retire_after=60)


# --- reading on a phone --------------------------------------------------------------------


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], bytes]], list]]:
    """Records every text an image draws (through `draw_text`, which every renderer and
    the shared table and marker helpers use), static layers included."""
    modules = (common, waddington_layout, waddington_board, waddington_closeup, waddington_tables)
    caches = (
        waddington_board._circuit_layer,
        waddington_board._static_mapped,
        waddington_board._reference,
        waddington_closeup._closeup_layer,
    )
    yield from record_texts(monkeypatch, modules, caches)


def test_board_texts_read_on_a_phone(texts) -> None:
    state = six_cars()
    drawn = texts(
        lambda: render_board(
            state, highlight_seat=0, previous=six_cars(s5={"row": 36}), title="Spring Cup"
        )
    )
    assert_phone_legible(drawn, BOARD_WIDTH)
    words = {t.text for t in drawn}
    # the car numbers on the circuit, in the header and in the table, and every band's
    # speeds and corner's name
    for car in state.cars:
        assert sum(t.text == str(car.number) for t in drawn) >= 3, car.number
    for band in catalog().circuit.bands:
        assert band_text(band.safety) in words
    assert {c.name for c in catalog().circuit.corners} <= words


def test_final_board_and_classification_texts_read_on_a_phone(texts, finished_race) -> None:
    assert_phone_legible(texts(lambda: render_board(finished_race)), BOARD_WIDTH)
    names = {0: "Alice", 1: "Bob"}
    drawn = texts(lambda: render_classification(finished_race, names, title="Spring Cup"))
    assert_phone_legible(drawn, CLASS_WIDTH)
    words = [t.text for t in drawn]
    turns = finished_race.round
    assert "Spring Cup" in words and "Alice (robot)" in words  # seat 0 is a robot
    assert f"Paddock Park circuit  ·  1 lap  ·  {turns} game turns" in words
    assert not any("running" in w or "Round" in w or "rounds" in w for w in words)


def one_car(row: int, lane: int, speed: int) -> WaddingtonState:
    return build([{"colour": "Red", "row": row, "lane": lane, "speed": speed}], phase="move")


@pytest.mark.parametrize(
    ("state", "scale"),
    [
        pytest.param(lambda: six_cars(), 64, id="six cars"),
        pytest.param(lambda: one_car(56, 2, 160), 54, id="two bands over"),
        # long moves round corners: the close-up zooms out to fit every letter in
        pytest.param(lambda: one_car(7, 0, 160), 54, id="zoom 54"),
        pytest.param(lambda: one_car(9, 1, 160), 46, id="zoom 46"),
        pytest.param(lambda: one_car(12, 2, 160), 40, id="zoom 40"),
    ],
)
def test_closeup_texts_read_on_a_phone(texts, state, scale: int) -> None:
    s = state()
    dests = GAME.destinations(s, 0)
    assert closeup_layout(s, 0, dests).scale == scale
    drawn = texts(lambda: render_closeup(s, 0, dests))
    assert_phone_legible(drawn, CLOSEUP_WIDTH)
    letters = [t for t in drawn if len(t.text) == 1 and t.text.isalpha()]
    assert len(letters) == len(dests)


def test_the_phone_rule_is_what_the_tests_check() -> None:
    assert (PHONE_WIDTH, PHONE_MIN_PX) == (400, 12)
    assert waddington_layout.min_px(800) == 24
    assert waddington_layout.min_px(1400) == 42


# --- board ---------------------------------------------------------------------------------


def test_board_is_a_png_as_tall_as_its_cars_within_budget() -> None:
    data = render_board(six_cars(), highlight_seat=0, previous=six_cars(s0={"row": 4}))
    image = open_png(data)
    assert image.size == (BOARD_WIDTH, board_height(6))
    assert len(data) < BUDGET
    two = open_png(
        render_board(
            build([{"colour": "Red", "row": 3, "lane": 0}, {"colour": "Blue", "row": 5, "lane": 2}])
        )
    )
    assert two.size == (BOARD_WIDTH, board_height(2)) and board_height(2) < board_height(6)


@pytest.mark.parametrize("n", [1, 2, 6])
def test_board_has_no_empty_band_at_the_bottom(n: int) -> None:
    cars = [{"colour": c["colour"], "row": 2 * i, "lane": 0} for i, c in enumerate(SIX[:n])]
    image = open_png(render_board(build(cars)))
    width, height = image.size
    rows = [
        y for y in range(height) if any(image.getpixel((x, y)) != PAPER for x in range(0, width, 2))
    ]
    assert height - 1 - max(rows) <= waddington_board.BOTTOM + 12


def test_board_is_deterministic() -> None:
    state = six_cars()
    assert render_board(state, highlight_seat=2) == render_board(state, highlight_seat=2)


@pytest.mark.parametrize(
    "state, previous",
    [
        (six_cars(), None),
        (six_cars(s5={"row": 46, "lane": 1}, s0={"row": 30, "lane": 2}), six_cars()),
        (six_cars(s1={"status": "retired"}), six_cars(s1={"row": 60, "lane": 0})),
    ],
)
def test_the_board_maps_every_pixel_it_draws(
    state: WaddingtonState, previous: WaddingtonState | None
) -> None:
    """`render_board` maps only the boxes a board draws in over the static layer (mapped
    once): every pixel the dynamic layer changes lies in one of those boxes, where the PNG
    shows it as drawn."""
    from PIL import ImageDraw

    from renderer.waddington_board import _dirty, _reference, _static_mapped, board_image

    n = len(state.cars)
    drawn = board_image(state, highlight_seat=2, previous=previous)
    base = _static_mapped(state.circuit, n).convert("RGB")
    changed = ImageChops.difference(drawn, base).convert("L").point(lambda v: 255 if v else 0)
    outside = Image.new("L", drawn.size, 255)
    for box in _dirty(state, 2, previous):
        ImageDraw.Draw(outside).rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=0)
    assert changed.getbbox() is not None  # the cars, the header and the table were drawn
    assert ImageChops.multiply(changed, outside).getbbox() is None  # none outside a box
    png = open_png(render_board(state, highlight_seat=2, previous=previous)).convert("RGB")
    mapped = drawn.quantize(palette=_reference(state.circuit, n), dither=Image.Dither.NONE)
    inside = ImageChops.invert(outside)
    diff = ImageChops.difference(png, mapped.convert("RGB")).convert("L")
    assert ImageChops.multiply(diff.point(lambda v: 255 if v else 0), inside).getbbox() is None


def test_every_car_colour_keeps_its_own_palette_entry() -> None:
    from renderer.waddington_board import _reference

    flat = _reference("paddock-park", 6).getpalette() or []
    colours = {tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)}
    assert {c.fill for c in PALETTE.values()} <= colours


@pytest.mark.parametrize("seat", range(6))
def test_board_shows_each_car_in_its_colour_at_its_square(seat: int) -> None:
    state = six_cars()
    car = state.cars[seat]
    xy = car_board_xy(state, seat)
    assert xy == board_xy(car.row, car.lane)  # no two cars share a point here
    image = open_png(render_board(state))
    assert near(image.getpixel(fill_point(xy)), PALETTE[car.colour.lower()].fill)


def test_pit_and_verge_positions_are_off_the_lanes() -> None:
    pit, verge = board_xy(66, -1), board_xy(12, 3)
    lanes = [board_xy(r, lane) for r in (66, 12) for lane in range(3)]
    assert pit not in lanes and verge not in lanes
    assert pit[1] < board_xy(66, 0)[1]  # the pit lane runs inside the bottom straight


def test_moving_a_car_changes_the_board_at_both_squares() -> None:
    before = open_png(render_board(six_cars()))
    after = open_png(render_board(six_cars(s5={"row": 42, "lane": 2})))
    old, new = board_xy(40, 1), board_xy(42, 2)
    blue = PALETTE["blue"].fill
    assert near(before.getpixel(fill_point(old)), blue)
    assert not near(after.getpixel(fill_point(old)), blue)
    assert near(after.getpixel(fill_point(new)), blue)
    assert not near(before.getpixel(fill_point(new)), blue)


def test_retired_cars_are_left_off_the_circuit() -> None:
    state = six_cars(s5={"status": "retired"})
    assert car_board_xy(state, 5) is None
    image = open_png(render_board(state))
    assert not near(image.getpixel(fill_point(board_xy(40, 1))), PALETTE["blue"].fill)


def test_the_car_to_move_is_ringed_on_the_circuit_and_in_the_table() -> None:
    state = six_cars()
    x, y = board_xy(40, 1)
    ring = (x + round((CAR_SIZE / 2 + ring_radius(CAR_SIZE)) / 2), y)  # between marker and ring
    plain = open_png(render_board(state))
    ringed = open_png(render_board(state, highlight_seat=5))
    assert near(ringed.getpixel(ring), HIGHLIGHT)
    assert not near(plain.getpixel(ring), HIGHLIGHT)
    # the table's marker of the same car: its row is the car's place in the race
    row = [c.seat for c in race_order(state)].index(5)
    dash = waddington_tables.dashboard(BOARD_WIDTH)
    style, cols = dash.style, dash.columns
    top = waddington_board._table_top() + style.header_height + row * style.row_height
    cx = waddington_tables.TABLE_MARGIN + cols[0].width + cols[1].width // 2
    at = (
        round(cx + (dash.marker_size / 2 + ring_radius(dash.marker_size)) / 2),
        top + style.row_height // 2,
    )
    assert near(ringed.getpixel(at), HIGHLIGHT)
    assert not near(plain.getpixel(at), HIGHLIGHT)


def test_no_car_can_hide_a_band_label() -> None:
    """The bands' speeds and the corners' names sit in the infield, clear of every square,
    pit and verge point a car can stand on, ring included."""
    c = catalog().circuit
    labels = board_labels(c.name)
    assert sorted(lb.text for lb in labels if lb.kind == "band") == sorted(
        band_text(b.safety) for b in c.bands
    )
    reach = ring_radius(CAR_SIZE) + 2  # the yellow ring and its outline
    spots = [(row, lane) for row in range(len(c.rows)) for lane in (0, 1, 2, 3)]
    spots += [(p.row, -1) for p in c.pits]  # lane 3: the verge, where a car spins off
    for label in labels:
        for row, lane in spots:
            assert box_distance(board_xy(row, lane), label.box) > reach, (label.text, row, lane)


def test_cars_on_every_band_square_leave_the_labels_as_they_were() -> None:
    empty = open_png(render_board(build([{"colour": "Red", "row": 2, "lane": 0}])))
    bands = catalog().circuit.bands
    cars = [
        {"colour": colour, "row": b.row, "lane": lane}
        for b, colour in zip(
            bands, ["Yellow", "Orange", "Green", "Red", "Black", "Blue"], strict=True
        )
        for lane in (1,)
    ]
    cars += [
        {"colour": "White", "row": bands[0].row, "lane": 0},
        {"colour": "Purple", "row": bands[0].row, "lane": 2},
    ]
    full = open_png(render_board(build(cars, more_than_six=True)))
    for label in board_labels("paddock-park"):
        # the same picture there, but for the palette each PNG picks (a few levels on the
        # anti-aliased edges; a marker over a chip would change it by a hundred and more)
        diff = ImageChops.difference(empty.crop(label.box), full.crop(label.box))
        assert max(hi for _, hi in diff.getextrema()) <= 32, label.text
    assert ImageChops.difference(empty, full).getbbox() is not None  # the cars are there


def test_the_table_lists_the_cars_in_race_order_with_their_position() -> None:
    state = six_cars()
    rows = dash_rows(state)
    order = race_order(state)
    assert [r[0] for r in rows] == [str(i) for i in range(1, 7)]
    assert [r[2] for r in rows] == [c.colour for c in order]
    assert [c.seat for c in order] == [p.seat for p in GAME.classification(state)]
    # Black is on its second lap: the furthest round the circuit
    assert order[0].colour == "Black"
    dists = [c.dist for c in order]
    assert dists == sorted(dists, reverse=True)


def test_the_header_names_the_game_turn_the_race_and_the_circuit(texts) -> None:
    state = build([{"colour": "Red", "row": 2, "lane": 0}], round=7, laps=1)
    words = [t.text for t in texts(lambda: render_board(state, title="Spring Cup round 2: Monza"))]
    assert "Game turn 7" in words
    assert not any("Round" in w for w in words)
    assert "Spring Cup round 2: Monza" in words
    assert "Paddock Park circuit  ·  1 lap" in words
    words = [t.text for t in texts(lambda: render_board(state))]
    assert "Waddington's Formula 1" in words


def test_car_status() -> None:
    state = six_cars(s1={"status": "retired"}, s4={"lap": 4})
    assert [car_status(state, c) for c in state.cars] == [
        "running",
        "retired",
        "spun",
        "in pits",
        "finished",
        "running",
    ]


def test_after_the_finish_no_car_is_running(finished_race) -> None:
    statuses = {car_status(finished_race, c) for c in finished_race.cars}
    assert statuses <= {"finished", "on lap", "retired"}
    assert "finished" in statuses and "retired" in statuses
    assert not any(r[-1].text.startswith("running") for r in dash_rows(finished_race))


# --- the last moves --------------------------------------------------------------------------


def test_moves_between_lists_the_cars_that_moved() -> None:
    before = six_cars()
    after = six_cars(s0={"row": 14, "lane": 2}, s3={"row": 67, "lane": 0}, s1={"status": "retired"})
    moves = moves_between(before, after)
    assert [(m.seat, m.start[:2], m.end[:2]) for m in moves] == [
        (0, (9, 1), (14, 2)),
        (3, (66, -1), (67, 0)),
    ]
    assert moves_between(before, before) == []


def test_the_last_move_is_drawn_from_where_the_car_was() -> None:
    before = six_cars()
    after = six_cars(s5={"row": 46, "lane": 1})
    plain = open_png(render_board(after))
    moved = open_png(render_board(after, previous=before))
    blue = PALETTE["blue"].fill
    for row in (41, 43):  # squares it went through, now empty
        x, y = board_xy(row, 1)
        assert near(moved.getpixel((x, y)), blue), row
        assert not near(plain.getpixel((x, y)), blue), row
    # where it started: a dot in its colour
    assert near(moved.getpixel(board_xy(40, 1)), blue)
    assert not near(plain.getpixel(board_xy(40, 1)), blue)


def test_finished_cars_get_a_chequered_ring(finished_race) -> None:
    winner = race_order(finished_race)[0]
    xy = car_board_xy(finished_race, winner.seat)
    assert xy is not None
    image = open_png(render_board(finished_race))
    r = round((CAR_SIZE / 2 + ring_radius(CAR_SIZE)) / 2)
    around = [
        image.getpixel((xy[0] + dx, xy[1] + dy))
        for dx, dy in ((r, 0), (-r, 0), (0, r), (0, -r), (r * 7 // 10, r * 7 // 10))
    ]
    assert any(near(p, (255, 255, 255), 40) for p in around)
    assert any(near(p, (24, 26, 31), 40) for p in around)


# --- close-up ------------------------------------------------------------------------------


def corner_state() -> WaddingtonState:
    """Yellow alone before Copse Corner: at 60 mph the inside lane of the band is over."""
    return build([{"colour": "Yellow", "row": 9, "lane": 1, "speed": 60}], phase="move")


def test_closeup_header_cuts_a_long_name_and_keeps_the_speed(texts) -> None:
    s = one_car(56, 2, 160)
    s.cars[0].name = "Maximilian Alexander von Habsburg-Lothringen the Third of Monza"
    drawn = texts(lambda: render_closeup(s, 0, GAME.destinations(s, 0)))
    (header,) = [t.text for t in drawn if "mph" in t.text]
    assert header.endswith("…  ·  160 mph") and header.startswith("Maximilian")


def test_closeup_is_a_png_of_the_fixed_size_within_budget() -> None:
    state = six_cars()
    dests = GAME.destinations(state, 0)
    data = render_closeup(state, 0, dests)
    assert open_png(data).size == (CLOSEUP_WIDTH, CLOSEUP_HEIGHT)
    assert len(data) < BUDGET
    assert data == render_closeup(state, 0, dests)


@pytest.mark.parametrize(
    "state",
    [
        pytest.param(corner_state, id="before the band"),
        pytest.param(  # the letters land on the band row itself, over its speed chips
            lambda: build([{"colour": "Red", "row": 23, "lane": 2, "speed": 60}], phase="move"),
            id="on the band",
        ),
    ],
)
def test_closeup_letters_one_per_destination_where_the_squares_are(state) -> None:
    s = state()
    dests = GAME.destinations(s, 0)
    layout = closeup_layout(s, 0, dests)
    assert len(layout.letter_centres) == len(dests)
    assert len(set(layout.letter_centres)) == len(dests)
    with_letters = open_png(render_closeup(s, 0, dests))
    without = open_png(render_closeup(s, 0, []))
    disc, _ = letter_size(layout.scale)
    for (x, y), d in zip(layout.letter_centres, dests, strict=True):
        box = (x - 12, y - 12, x + 12, y + 12)
        assert with_letters.crop(box).tobytes() != without.crop(box).tobytes()
        # the letter's disc, never covered: red when the move crosses a band over its speed
        for dx, dy in ((-1, 0), (0, -1), (0, 1)):
            at = (x + dx * round(disc * 0.4), y + dy * round(disc * 0.4))
            disc_colour = with_letters.getpixel(at)
            assert near(disc_colour, WARN_RED if d.over else LETTER_BG), (d.to, at)


def test_closeup_letters_follow_the_order_given_and_must_match() -> None:
    state = corner_state()
    dests = GAME.destinations(state, 0)
    flipped = list(reversed(dests))
    layout = closeup_layout(state, 0, flipped)
    assert layout.letter_centres == list(reversed(closeup_layout(state, 0, dests).letter_centres))
    assert render_closeup(state, 0, dests, ["X", "Y", "Z"]) != render_closeup(state, 0, dests)
    with pytest.raises(ValueError):
        render_closeup(state, 0, dests, ["A"])


def test_closeup_shows_the_car_in_its_colour() -> None:
    state = corner_state()
    dests = GAME.destinations(state, 0)
    layout = closeup_layout(state, 0, dests)
    image = open_png(render_closeup(state, 0, dests))
    x, y = layout.car_centre
    assert near(image.getpixel((x - round(layout.scale * 0.28), y)), PALETTE["yellow"].fill)


def test_closeup_covers_a_long_move() -> None:
    state = build([{"colour": "Yellow", "row": 0, "lane": 1, "speed": 160}], phase="move")
    dests = GAME.destinations(state, 0)
    layout = closeup_layout(state, 0, dests)
    for x, y in [*layout.letter_centres, layout.car_centre]:
        assert 0 <= x < CLOSEUP_WIDTH and 0 <= y < CLOSEUP_HEIGHT


def test_warning_tags() -> None:
    state = corner_state()
    inside, middle, _ = GAME.destinations(state, 0)
    assert warning(middle) is None
    assert warning(inside) == "+20"
    assert warning(inside, tyres_gone=True) == "SPIN"
    fast = build([{"colour": "Red", "row": 56, "lane": 2, "speed": 160}], phase="move")
    assert {warning(d) for d in GAME.destinations(fast, 0) if not d.pit} == {"SPIN x2"}


# --- classification ------------------------------------------------------------------------


def test_classification_renders_a_finished_robot_race(finished_race) -> None:
    data = render_classification(finished_race, names={0: "Alice"})
    image = open_png(data)
    assert image.width == CLASS_WIDTH and len(data) < BUDGET
    assert data == render_classification(finished_race, names={0: "Alice"})
    assert data != render_classification(finished_race)
    order = classification_order(finished_race)
    assert [c.seat for c in order] == [p.seat for p in GAME.classification(finished_race)]
    for place, car in enumerate(order, start=1):
        x, y = classification_marker_xy(place)
        assert near(image.getpixel((x - 11, y)), PALETTE[car.colour.lower()].fill)
    assert image.height > classification_marker_xy(len(order))[1]


def test_classification_places_status_laps_and_gaps(finished_race) -> None:
    state = finished_race
    laps = state.settings.laps
    lines = classification_lines(state)
    placings = GAME.classification(state)
    assert [(ln.place, ln.seat) for ln in lines] == [(p.place, p.seat) for p in placings]
    lead = state.cars[lines[0].seat]
    for line in lines:
        car = state.cars[line.seat]
        done = min(car.dist // catalog().length, laps)
        assert line.laps == f"{done}/{laps}"
        if line.status == "finished":
            assert done == laps
        elif line.status == "retired":
            assert car.status == "retired" and line.gap == ""
        else:  # still on the circuit when the race ended
            assert line.status == "on lap" and done < laps
            assert line.status_text == f"on lap {done + 1}"
        if line.place > 1 and line.status != "retired":
            behind = lead.dist - car.dist
            assert line.gap == (f"+{behind} sq" if behind else "level")
    assert lines[0].status == "finished" and lines[0].gap == "winner"
    assert {ln.status for ln in lines} >= {"finished", "retired"}
    assert lines[-1].status == "retired"  # retired cars last


def test_a_provisional_classification_says_so() -> None:
    state = six_cars()
    lines = classification_lines(state)
    assert lines[0].gap == "leader"
    assert {ln.status for ln in lines} >= {"running", "spun", "in pits"}
