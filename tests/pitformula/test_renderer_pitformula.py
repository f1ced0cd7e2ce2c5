"""Pit Formula images: valid PNGs, budgets, determinism, that tokens, taken slots and the
scoring sheet are drawn where the layout helpers say, and that every text reads on a phone
(at least 12 px when the image is shown 400 px wide), recorded as it is drawn."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import renderer.pitformula as pit_images
from renderer import common, pitformula_scoring, pitformula_table
from renderer.pitformula import (
    BAD,
    GOOD,
    PANEL,
    PART_FILL,
    TABLE_HEIGHT,
    TABLE_WIDTH,
    TOKEN,
    crash_band,
    render_scoring,
    render_solo_clock,
    render_table,
    scoring_layout,
    token_fill_xy,
    token_xy,
)
from renderer.pitformula_sprites import DIGIT_SIZE
from rules.pitformula import GAME, PitFormulaState, catalog, coord_of
from rules.pitformula.state import OUT_OF_PLAY, Fix, Go, Reveal
from tests.helpers import (
    PHONE_MIN_PX,
    PHONE_WIDTH,
    Drawn,
    assert_phone_legible,
    near,
    open_png,
    pixels,
    record_texts,
)
from tests.pitformula.pf_helpers import new, on_table, robot_move

BUDGET = 200_000
PARTS = {"T": "tyre", "W": "wing", "G": "gas", "E": "engine"}
ERRORS = {"mode": "standard", "players": 4}
ERRORS["skills"] = [{"speed_ms": 4000, "error_rate": 0.3, "greed": 0.6}] * 4


def go(state: PitFormulaState) -> PitFormulaState:
    state, _ = GAME.apply(state, Go(seat=state.cars[state.starter].seats[0]))
    return state


def play_one_race(seed: int, config: dict) -> tuple[PitFormulaState, PitFormulaState]:
    """Robots play until a race is scored: (the state before the race-ending action, after)."""
    state = GAME.new_game(seed, config)
    before = state
    for _ in range(5000):
        if state.results:
            return before, state
        action = robot_move(state)
        before = state
        state, _ = GAME.apply(state, action)
    raise AssertionError("the race did not end")


# --- the table ------------------------------------------------------------------------------


def test_table_is_a_small_png_of_the_planned_size_and_deterministic():
    state = go(new())
    data = render_table(state)
    image = open_png(data)
    assert image.size == (TABLE_WIDTH, TABLE_HEIGHT)
    assert len(data) < BUDGET
    assert render_table(state) == data
    assert render_table(new()) != data  # the header (crash card) is drawn per state


def test_token_cells_follow_the_coordinates():
    # block 1 is a-g, block 2 h-n, rows 1-5 downwards
    assert token_xy("a1")[0] < token_xy("g1")[0] < token_xy("h1")[0] < token_xy("n1")[0]
    assert token_xy("a1")[1] < token_xy("a5")[1]
    assert token_xy("h3")[0] - token_xy("g3")[0] > token_xy("b3")[0] - token_xy("a3")[0]
    for coord in ("a1", "n5", "g3", "h2"):
        x, y = token_xy(coord)
        assert 0 < x < TABLE_WIDTH and 0 < y < TABLE_HEIGHT


def test_each_token_shows_its_part_colour():
    state = go(new())
    image = open_png(render_table(state))
    for slot, face in enumerate(state.faces):
        coord = coord_of(slot)
        part = PARTS[face[0]]
        got = image.getpixel(token_fill_xy(coord, part))
        assert near(got, PART_FILL[part], tol=30), (coord, face, got)
    tyre, engine = on_table(state, "T"), on_table(state, "E")
    assert not near(
        image.getpixel(token_fill_xy(tyre, "tyre")),
        image.getpixel(token_fill_xy(engine, "engine")),
        tol=60,
    )


def test_the_digit_is_drawn_in_white_on_the_token():
    state = go(new())
    image = open_png(render_table(state))
    coord = on_table(state, "E")
    x, y = token_xy(coord)
    box = image.crop((x - 12, y - 14, x + 12, y + 14))
    whites = sum(1 for p in pixels(box) if min(p) > 230)
    assert whites > 40


def test_a_token_taken_by_a_fix_leaves_an_empty_slot():
    state = go(new())
    seat = 0
    state, _ = GAME.apply(state, Reveal(seat=seat, cards=["t1"], at_ms=100))
    coord = on_table(state, "T")
    before = open_png(render_table(state))
    assert near(before.getpixel(token_fill_xy(coord, "tyre")), PART_FILL["tyre"], tol=30)
    state, _ = GAME.apply(state, Fix(seat=seat, card="t1", tokens=[coord], at_ms=200))
    assert state.where[coord_of_index(coord)] == 0
    after = open_png(render_table(state))
    got = after.getpixel(token_fill_xy(coord, "tyre"))
    assert not near(got, PART_FILL["tyre"], tol=60)
    assert near(got, PANEL, tol=8)
    # every other token is unchanged
    other = on_table(state, "T")
    assert after.getpixel(token_fill_xy(other, "tyre")) == before.getpixel(
        token_fill_xy(other, "tyre")
    )


def coord_of_index(coord: str) -> int:
    from rules.pitformula import slot_of

    return slot_of(coord)


def test_basic_game_engine_tokens_are_not_drawn():
    state = go(new({"basic": True}))
    slots = [s for s, w in enumerate(state.where) if w == OUT_OF_PLAY]
    assert slots and all(state.faces[s][0] == "E" for s in slots)
    image = open_png(render_table(state))
    for s in slots:
        assert not near(
            image.getpixel(token_fill_xy(coord_of(s), "engine")), PART_FILL["engine"], tol=30
        )


def test_spares_left_change_the_header():
    state = go(new())
    a = render_table(state)
    state = state.model_copy(deep=True)
    state.race.spares_left = 3
    assert render_table(state) != a


def test_table_renders_before_go_and_in_a_super_race():
    assert open_png(render_table(new())).size == (TABLE_WIDTH, TABLE_HEIGHT)
    state = go(new({"races": 1}))
    assert state.race.super
    assert len(render_table(state)) < BUDGET


# --- the scoring sheet ----------------------------------------------------------------------


def test_scoring_needs_a_scored_race():
    with pytest.raises(ValueError, match="no race"):
        render_scoring(new())


def test_scoring_after_a_simulated_race():
    board, state = play_one_race(4, ERRORS)
    result = state.results[-1]
    names = {0: "Ayrton", 1: "Björn", 2: "Carla", 3: "Dmitri"}
    data = render_scoring(state, names, board=board)
    image = open_png(data)
    layout = scoring_layout(state)
    assert image.size == (layout.width, layout.height)
    assert layout.rows == len(result.cars) == 4
    assert len(data) < BUDGET
    assert render_scoring(state, names, board=board) == data
    assert render_scoring(state, {0: "Someone else"}, board=board) != data
    marks = 0
    for row, cr in enumerate(result.cars):
        for slot in cr.correct + cr.errors:
            want = GOOD if slot in cr.correct else BAD
            x, y = layout.mark_xy(row, slot)
            box = image.crop((x - 10, y - 10, x + 10, y + 10))
            assert any(near(p, want, tol=40) for p in pixels(box)), (row, slot)
            marks += 1
    assert marks and any(cr.errors for cr in result.cars)  # both kinds of mark were checked
    # no mark where a card has no tokens
    empty = next(
        (r, s)
        for r, cr in enumerate(result.cars)
        for s in ("t1", "t2", "t3", "t4", "w", "g", "e")
        if s not in cr.correct + cr.errors
    )
    x, y = layout.mark_xy(*empty)
    box = image.crop((x - 10, y - 10, x + 10, y + 10))
    assert not any(near(p, GOOD, tol=40) or near(p, BAD, tol=40) for p in pixels(box))


def test_scoring_without_the_board_and_board_must_match():
    board, state = play_one_race(2, ERRORS)
    assert render_scoring(state) != render_scoring(state, board=board)
    with pytest.raises(ValueError, match="repair phase"):
        render_scoring(state, board=state)


def test_solo_scoring_has_a_rival_row():
    board, state = play_one_race(5, {"mode": "solo", "players": 1})
    assert state.results[-1].rival is not None
    layout = scoring_layout(state)
    assert layout.rows == 2
    assert open_png(render_scoring(state, board=board)).size == (layout.width, layout.height)


# --- the stopwatch --------------------------------------------------------------------------


def test_solo_clock():
    full = render_solo_clock(60_000, 60_000)
    low = render_solo_clock(3_000, 60_000)
    assert open_png(full).size == open_png(low).size
    assert full != low and render_solo_clock(3_000, 60_000) == low
    assert len(full) < 50_000
    image = open_png(low)
    assert any(near(p, BAD, tol=40) for p in pixels(image))  # red when nearly out
    assert not any(near(p, BAD, tol=40) for p in pixels(open_png(full)))


# --- every text reads on a phone ------------------------------------------------------------


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], bytes]], list]]:
    """Records every text an image draws through `draw_text` (the car markers' labels
    included), static layers too."""
    modules = (common, pitformula_table, pitformula_scoring, pit_images)
    caches = (pitformula_table._table_background, pitformula_table._empty_slot)
    yield from record_texts(monkeypatch, modules, caches)


def test_the_phone_rule_is_what_the_tests_check() -> None:
    with pytest.raises(AssertionError):
        assert_phone_legible([Drawn("Race 1/5", 29)], TABLE_WIDTH)  # 11.6 px
    assert_phone_legible([Drawn("Race 1/5", 30)], TABLE_WIDTH)
    with pytest.raises(AssertionError):
        assert_phone_legible([Drawn("Sabo\u2026", 40)], TABLE_WIDTH)


def test_table_texts_read_on_a_phone(texts) -> None:
    for state in (new(), go(new()), go(new({"races": 1})), go(new({"basic": True}))):
        drawn = texts(lambda state=state: render_table(state))
        assert_phone_legible(drawn, TABLE_WIDTH)
        shown = [t.text for t in drawn]
        assert f"Race {state.race.number}/{state.settings.races}" in shown
        assert "a" in shown and "n" in shown and "5" in shown  # the coordinates
        assert {"Tyre", "Wing", "Gas", "Engine"} <= set(shown)  # the legend


def test_the_token_digits_read_on_a_phone() -> None:
    # drawn inside the cached sprites, not through draw_text: the smallest digit's size
    assert round(TOKEN * min(DIGIT_SIZE.values())) * PHONE_WIDTH / TABLE_WIDTH >= PHONE_MIN_PX


def test_a_taken_token_shows_its_coordinate_on_a_phone(texts) -> None:
    state = go(new())
    state, _ = GAME.apply(state, Reveal(seat=0, cards=["t1"], at_ms=100))
    coord = on_table(state, "T")
    state, _ = GAME.apply(state, Fix(seat=0, card="t1", tokens=[coord], at_ms=200))
    drawn = texts(lambda: render_table(state))
    assert_phone_legible(drawn, TABLE_WIDTH)
    assert coord in [t.text for t in drawn]


@pytest.mark.parametrize("crash", sorted(catalog().crash_cards))
def test_every_crash_card_fits_its_band(texts, crash: str) -> None:
    state = go(new())
    state.race.crash = crash
    card = catalog().crash_cards[crash]
    lines = crash_band(card.text())
    assert 1 <= len(lines) <= 2 and " ".join(lines) == card.text()  # all of it, two lines
    drawn = texts(lambda: render_table(state))
    assert_phone_legible(drawn, TABLE_WIDTH)
    shown = [t.text for t in drawn]
    assert card.name in shown and all(line in shown for line in lines)


def test_final_table_shows_the_standings_after_the_last_race(texts) -> None:
    state = play_to_the_end(3, ERRORS)
    assert state.phase == "over" and len(state.results) == state.settings.races == 5
    names = {0: "Ayrton", 1: "Björn", 2: "Carla", 3: "Dmitri"}
    drawn = texts(lambda: render_table(state, names))
    assert_phone_legible(drawn, TABLE_WIDTH)
    shown = [t.text for t in drawn]
    assert "Final standings" in shown and "after 5 races: points, then trophies" in shown
    assert not any(t.startswith("Race ") for t in shown)  # not "Race 6", nor a stale table
    assert not any(t in ("a", "n", "Tyre") for t in shown)
    order = [GAME.classification(state)[i].seat for i in range(4)]
    assert [t for t in shown if t in names.values()] == [names[s] for s in order]
    for seat in order:
        car = state.cars[seat]
        trophies = len(car.trophies)
        assert f"{car.score} pts · {trophies} troph{'y' if trophies == 1 else 'ies'}" in shown
    image = open_png(render_table(state, names))
    assert image.width == TABLE_WIDTH and image.height < TABLE_HEIGHT


def test_solo_final_standings_name_the_rival(texts) -> None:
    state = play_to_the_end(5, {"mode": "solo", "players": 1, "races": 2})
    drawn = texts(lambda: render_table(state, {0: "Ayrton"}))
    assert_phone_legible(drawn, TABLE_WIDTH)
    shown = [t.text for t in drawn]
    assert "Ayrton" in shown and "The Rookie" in shown
    assert f"{state.rival_score} pts · {len(state.rival_trophies)}" in " ".join(shown)


def test_scoring_texts_read_on_a_phone(texts) -> None:
    board, state = play_one_race(4, ERRORS)
    names = {0: "Ayrton", 1: "Björn", 2: "Carla", 3: "Dmitri"}
    drawn = texts(lambda: render_scoring(state, names, board=board))
    assert_phone_legible(drawn, scoring_layout(state).width)
    shown = [t.text for t in drawn]
    assert "Race 1/5 results" in shown and set(names.values()) <= set(shown)
    result = state.results[-1]
    for cr in result.cars:
        total = sum(r.cars[cr.car].points for r in state.results)
        assert f"+{cr.points} · total {total}" in shown
    solo_board, solo = play_one_race(5, {"mode": "solo", "players": 1})
    drawn = texts(lambda: render_scoring(solo, {0: "Ayrton"}, board=solo_board))
    assert_phone_legible(drawn, scoring_layout(solo).width)
    assert "The Rookie" in [t.text for t in drawn]


def play_to_the_end(seed: int, config: dict) -> PitFormulaState:
    state = GAME.new_game(seed, config)
    for _ in range(50000):
        if GAME.is_terminal(state):
            return state
        action = robot_move(state)
        state, _ = GAME.apply(state, action)
    raise AssertionError("the championship did not end")
