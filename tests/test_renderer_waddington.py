"""Waddington's Formula 1 images: valid PNGs, budgets, determinism and that things are drawn
where the layout helpers say they are."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from renderer.common import PALETTE
from renderer.waddington import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    CLOSEUP_HEIGHT,
    CLOSEUP_WIDTH,
    HIGHLIGHT,
    LETTER_BG,
    WARN_RED,
    board_xy,
    car_board_xy,
    car_status,
    classification_marker_xy,
    classification_order,
    closeup_layout,
    render_board,
    render_classification,
    render_closeup,
    warning,
)
from rules.waddington import GAME
from rules.waddington.scenario import build
from rules.waddington.state import WaddingtonState

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BUDGET = 500_000

SIX = [
    {"colour": "Yellow", "row": 9, "lane": 1, "speed": 120, "tyre": 3, "brake": 1},
    {"colour": "Orange", "row": 30, "lane": 2, "speed": 100, "tyre": 8, "brake": 5},
    {"colour": "Green", "row": 12, "lane": 3, "spun_at": "Copse Corner"},
    {"colour": "Red", "row": 66, "lane": -1, "lose_turns": 1},
    {"colour": "Black", "row": 5, "lane": 0, "speed": 60, "lap": 2},
    {"colour": "Blue", "row": 40, "lane": 1, "speed": 140},
]


def open_png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def close(a: tuple[int, ...], b: tuple[int, ...], tol: int = 24) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def fill_point(xy: tuple[int, int]) -> tuple[int, int]:
    """A point inside a board marker's coloured disc but clear of its number."""
    return (xy[0] - 11, xy[1])


def six_cars(**changes: dict) -> WaddingtonState:
    cars = [dict(c) for c in SIX]
    for i, change in changes.items():
        cars[int(i[1:])].update(change)
    return build(cars, to_move=0, phase="move")


# --- board ---------------------------------------------------------------------------------


def test_board_is_a_png_of_the_fixed_size_within_budget() -> None:
    data = render_board(six_cars(), highlight_seat=0)
    image = open_png(data)
    assert image.size == (BOARD_WIDTH, BOARD_HEIGHT)
    assert len(data) < BUDGET


def test_board_is_deterministic() -> None:
    state = six_cars()
    assert render_board(state, highlight_seat=2) == render_board(state, highlight_seat=2)


@pytest.mark.parametrize("seat", range(6))
def test_board_shows_each_car_in_its_colour_at_its_square(seat: int) -> None:
    state = six_cars()
    car = state.cars[seat]
    xy = car_board_xy(state, seat)
    assert xy == board_xy(car.row, car.lane)  # no two cars share a point here
    image = open_png(render_board(state))
    assert close(image.getpixel(fill_point(xy)), PALETTE[car.colour.lower()].fill)


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
    assert close(before.getpixel(fill_point(old)), blue)
    assert not close(after.getpixel(fill_point(old)), blue)
    assert close(after.getpixel(fill_point(new)), blue)
    assert not close(before.getpixel(fill_point(new)), blue)


def test_retired_cars_are_left_off_the_circuit() -> None:
    state = six_cars(s5={"status": "retired"})
    assert car_board_xy(state, 5) is None
    image = open_png(render_board(state))
    assert not close(image.getpixel(fill_point(board_xy(40, 1))), PALETTE["blue"].fill)


def test_the_highlighted_car_is_ringed() -> None:
    state = six_cars()
    x, y = board_xy(40, 1)
    ring = (x + 24, y)  # between the marker's edge and the ring's outside
    plain = open_png(render_board(state))
    ringed = open_png(render_board(state, highlight_seat=5))
    assert close(ringed.getpixel(ring), HIGHLIGHT)
    assert not close(plain.getpixel(ring), HIGHLIGHT)


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


# --- close-up ------------------------------------------------------------------------------


def corner_state() -> WaddingtonState:
    """Yellow alone before Copse Corner: at 60 mph the inside lane of the band is over."""
    return build([{"colour": "Yellow", "row": 9, "lane": 1, "speed": 60}], phase="move")


def test_closeup_is_a_png_of_the_fixed_size_within_budget() -> None:
    state = six_cars()
    dests = GAME.destinations(state, 0)
    data = render_closeup(state, 0, dests)
    assert open_png(data).size == (CLOSEUP_WIDTH, CLOSEUP_HEIGHT)
    assert len(data) < BUDGET
    assert data == render_closeup(state, 0, dests)


def test_closeup_letters_one_per_destination_where_the_squares_are() -> None:
    state = corner_state()
    dests = GAME.destinations(state, 0)
    assert len(dests) == 3
    layout = closeup_layout(state, 0, dests)
    assert len(layout.letter_centres) == len(dests)
    assert len(set(layout.letter_centres)) == len(dests)
    with_letters = open_png(render_closeup(state, 0, dests))
    without = open_png(render_closeup(state, 0, []))
    for (x, y), d in zip(layout.letter_centres, dests, strict=True):
        box = (x - 12, y - 12, x + 12, y + 12)
        assert with_letters.crop(box).tobytes() != without.crop(box).tobytes()
        # the letter's disc: red when the move crosses a band over its safety speed
        disc = with_letters.getpixel((x - round(layout.scale * 0.3), y))
        assert close(disc, WARN_RED if d.over else LETTER_BG), (d.to, d.over, disc)
    assert [d.over for d in dests] == [1, 0, 0]


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
    assert close(image.getpixel((x - round(layout.scale * 0.28), y)), PALETTE["yellow"].fill)


def test_closeup_covers_a_long_move() -> None:
    state = build([{"colour": "Yellow", "row": 0, "lane": 1, "speed": 160}], phase="move")
    dests = GAME.destinations(state, 0)
    layout = closeup_layout(state, 0, dests)
    for x, y in [*layout.letter_centres, layout.car_centre]:
        assert 0 <= x < CLOSEUP_WIDTH and 0 <= y < CLOSEUP_HEIGHT


# --- classification ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_race() -> WaddingtonState:
    state = GAME.new_game(7, GAME.simulation_config(5, 1))
    for _ in range(20000):
        if GAME.is_terminal(state):
            break
        seat = GAME.to_act(state)[0]
        state, _ = GAME.apply(state, GAME.robot_action(state, seat))
    assert GAME.is_terminal(state)
    return state


def test_classification_renders_a_finished_robot_race(finished_race) -> None:
    data = render_classification(finished_race, names={0: "Alice"})
    image = open_png(data)
    assert image.width == 900 and len(data) < BUDGET
    assert data == render_classification(finished_race, names={0: "Alice"})
    assert data != render_classification(finished_race)
    order = classification_order(finished_race)
    assert [c.seat for c in order] == [p.seat for p in GAME.classification(finished_race)]
    for place, car in enumerate(order, start=1):
        x, y = classification_marker_xy(place)
        assert close(image.getpixel((x - 11, y)), PALETTE[car.colour.lower()].fill)
    assert image.height > classification_marker_xy(len(order))[1]


def test_warning_tags() -> None:
    state = corner_state()
    inside, middle, _ = GAME.destinations(state, 0)
    assert warning(middle) is None
    assert warning(inside) == "+20"
    assert warning(inside, tyres_gone=True) == "SPIN"
    fast = build([{"colour": "Red", "row": 56, "lane": 2, "speed": 160}], phase="move")
    assert {warning(d) for d in GAME.destinations(fast, 0) if not d.pit} == {"SPIN x2"}
