"""Scenario tests: the rulebook's worked examples and numbered rules, one position each.

Section numbers refer to rules-sources/waddingtons-formula1-1962.txt.
"""

from __future__ import annotations

import pytest

from rules.base import get_game
from rules.errors import IllegalAction, NotYourTurn
from rules.waddington import (
    Move,
    PlayTactic,
    Proceed,
    Retire,
    SetSpeed,
    SoftSpin,
    Waddington,
    catalog,
)
from rules.waddington.scenario import build, card_of_type
from tests.waddington.waddington_helpers import play

GAME = Waddington()
CAT = catalog()
L = CAT.length
FAR = {"row": 40, "lane": 1}  # a second car well out of the way, on the back straight


def kinds(events, kind):
    return [e for e in events if e.kind == kind]


# --- §H rule 27: the Copse Corner example -------------------------------------------------


def test_copse_example_120_throw_9_gives_tyre_1_brake_1():
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 120}, FAR], throws=[9])
    dests = GAME.destinations(st, 0)
    straight = next(d for d in dests if d.to == (14, 2))
    assert [(b.corner, b.safety, b.excess) for b in straight.bands] == [("Copse Corner", 80, 40)]
    st, ev = play(st, SetSpeed(seat=0, speed=120), Move(seat=0, to=(14, 2)))
    band = kinds(ev, "band")
    assert len(band) == 1
    assert band[0].text.startswith("Red took Copse Corner at 120 (+40): threw 9")
    assert band[0].data["column"] == "+40" and band[0].data["throw"] == 9
    car = st.cars[0]
    assert (car.tyre, car.brake) == (1, 1)
    assert (car.row, car.lane, car.speed) == (14, 2, 120)


def test_copse_example_100_throw_9_is_no_penalty():
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 100}, FAR], throws=[9])
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(13, 2)))
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["column"] == "+20" and band[0].data["throw"] == 9
    assert "no penalty" in band[0].text
    assert (st.cars[0].tyre, st.cars[0].brake) == (0, 0)


def test_within_safety_speed_throws_no_dice():
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 80}, FAR])
    rng_before = st.rng.model_copy()
    st, ev = play(st, SetSpeed(seat=0, speed=80), Move(seat=0, to=(12, 2)))  # rest on the band
    assert kinds(ev, "band") == []
    assert st.rng == rng_before


def test_coming_to_rest_on_a_band_over_the_safety_speed_counts():
    st = build([{"colour": "Red", "row": 8, "lane": 1, "speed": 80}, FAR], throws=[4])
    st, ev = play(st, SetSpeed(seat=0, speed=80), Move(seat=0, to=(12, 1)))  # middle lane: 60
    assert [e.data["excess"] for e in kinds(ev, "band")] == [20]
    assert st.cars[0].tyre == 2  # a throw of 4 gives 2 tyre wear


# --- §H rule 29: two bands in one move ---------------------------------------------------


def test_two_bands_crossed_in_one_move_are_rolled_separately():
    st = build([{"colour": "Red", "row": 56, "lane": 2, "speed": 100}, FAR], throws=[9, 4])
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(61, 2)))
    band = kinds(ev, "band")
    assert [(b.data["row"], b.data["throw"]) for b in band] == [(58, 9), (61, 4)]
    assert all(b.data["corner"] == "Abbey Curve" and b.data["column"] == "+20" for b in band)
    assert (st.cars[0].tyre, st.cars[0].brake) == (2, 0)  # 9: nothing; 4: tyre 2


# --- §J rule 38: the speed reduction chart -----------------------------------------------


@pytest.mark.parametrize(
    ("reduction", "brake", "tyre"),
    [(20, 0, 0), (40, 1, 0), (60, 2, 1), (80, 3, 2), (100, 4, 3), (120, 5, 4)],
)
def test_speed_reduction_chart(reduction, brake, tyre):
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 160}, FAR])
    st, _ = play(st, SetSpeed(seat=0, speed=160 - reduction))
    car = st.cars[0]
    assert (car.speed, car.brake, car.tyre) == (160 - reduction, brake, tyre)


def test_reduction_beyond_the_brakes_left_is_refused():
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 160, "brake": 4}, FAR])
    with pytest.raises(IllegalAction, match="brakes"):
        GAME.apply(st, SetSpeed(seat=0, speed=100))  # needs brake wear 2, only 1 left
    st, _ = play(st, SetSpeed(seat=0, speed=120))  # 40: brake wear 1 fits
    assert st.cars[0].brake == 5


def test_no_brakes_left_allows_only_20_reduction():
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 100, "brake": 5}, FAR])
    assert 60 not in [a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)]
    with pytest.raises(IllegalAction):
        GAME.apply(st, SetSpeed(seat=0, speed=60))
    st, _ = play(st, SetSpeed(seat=0, speed=80))
    assert (st.cars[0].brake, st.cars[0].tyre) == (5, 0)


def test_tyre_wear_8_limits_braking_to_40():  # §J rule 40
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 120, "tyre": 8}, FAR])
    speeds = [a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)]
    assert min(speeds) == 80
    with pytest.raises(IllegalAction, match="tyres"):
        GAME.apply(st, SetSpeed(seat=0, speed=60))
    st, _ = play(st, SetSpeed(seat=0, speed=80))
    assert (st.cars[0].brake, st.cars[0].tyre) == (1, 8)


# --- §C rule 15, §G rules 21-25: speed and movement --------------------------------------


def test_acceleration_over_60_is_refused_with_a_clear_message():
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 40}, FAR])
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, SetSpeed(seat=0, speed=120))
    assert "more than 60 mph" in err.value.message and "up to 100 mph" in err.value.message
    st, _ = play(st, SetSpeed(seat=0, speed=100))
    assert st.cars[0].speed == 100


def test_standing_still_is_refused():
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 40}, FAR])
    with pytest.raises(IllegalAction, match="stand still"):
        GAME.apply(st, SetSpeed(seat=0, speed=0))


def test_one_square_per_20_mph_forward_or_diagonal_never_sideways():
    st = build([{"colour": "Green", "row": 28, "lane": 1, "speed": 60}, FAR])
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    dests = GAME.destinations(st, 0)
    assert sorted(d.to for d in dests) == [(31, 0), (31, 1), (31, 2)]
    for d in dests:
        rows = [28] + [r for r, _ in d.path]
        lanes = [1] + [ln for _, ln in d.path]
        assert all(b - a == 1 for a, b in zip(rows, rows[1:], strict=False))
        assert all(abs(b - a) <= 1 for a, b in zip(lanes, lanes[1:], strict=False))
    with pytest.raises(IllegalAction):
        GAME.apply(st, Move(seat=0, to=(30, 1)))  # two squares at 60 mph


def test_no_two_cars_on_a_square_and_no_jumping():
    # a wall of cars across row 30 blocks every way through
    cars = [{"colour": "Yellow", "row": 28, "lane": 1, "speed": 60}]
    cars += [
        {"colour": c, "row": 30, "lane": i, "speed": 60}
        for i, c in enumerate(("Orange", "Green", "Red"))
    ]
    st = build(cars)
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    dests = GAME.destinations(st, 0)
    assert all(d.to[0] == 29 and d.baulked for d in dests)
    assert {d.to for d in dests} == {(29, 0), (29, 1), (29, 2)}


# --- §I: spinning off ---------------------------------------------------------------------


def test_spin_60_over_the_safety_speed_without_dice():  # rule 30
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 140, "tyre": 3, "brake": 2}, FAR])
    rng_before = st.rng.model_copy()
    st, ev = play(st, SetSpeed(seat=0, speed=140), Move(seat=0, to=(15, 2)))
    car = st.cars[0]
    assert kinds(ev, "spin") and "60 mph or more" in kinds(ev, "band")[0].text
    assert (car.row, car.lane, car.speed, car.spun_at) == (12, 3, 0, "Copse Corner")
    assert (car.tyre, car.brake) == (3, 2)  # rule 36: gauges unchanged
    assert car.dist == 12
    assert st.rng == rng_before  # no dice thrown


def test_spin_on_worn_out_tyres_over_the_safety_speed():  # rule 32
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 100, "tyre": 8}, FAR])
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(13, 2)))
    assert "worn-out tyres" in kinds(ev, "band")[0].text
    assert (st.cars[0].lane, st.cars[0].spun_at) == (3, "Copse Corner")


def test_worn_out_tyres_within_the_safety_speed_do_not_spin():
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 80, "tyre": 8}, FAR])
    st, ev = play(st, SetSpeed(seat=0, speed=80), Move(seat=0, to=(12, 2)))
    assert kinds(ev, "spin") == [] and st.cars[0].lane == 2


@pytest.mark.parametrize("throw", [3, 11])
def test_penalty_chart_spins(throw):  # rule 33
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 100}, FAR], throws=[throw])
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(13, 2)))
    assert kinds(ev, "spin") and st.cars[0].lane == 3 and st.cars[0].speed == 0


def test_spin_restart_at_60_from_the_spin_off_point():  # rule 37
    st = build(
        [{"colour": "Red", "row": 12, "lane": 3, "speed": 0, "spun_at": "Copse Corner"}, FAR]
    )
    speeds = [a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)]
    assert speeds == [60]  # "proceed normally, at the starting speed of 60mph"
    with pytest.raises(IllegalAction):
        GAME.apply(st, SetSpeed(seat=0, speed=40))
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    assert {d.to for d in GAME.destinations(st, 0)} == {(15, 0), (15, 1), (15, 2)}
    st, _ = play(st, Move(seat=0, to=(15, 1)))
    assert (st.cars[0].row, st.cars[0].lane, st.cars[0].dist, st.cars[0].spun_at) == (
        15,
        1,
        15,
        None,
    )


def test_baulked_car_that_cannot_brake_spins_to_the_outside():  # rules 31 and 35
    st = build(
        [
            {"colour": "Yellow", "row": 30, "lane": 1, "speed": 100, "brake": 5, "tyre": 2},
            {"colour": "Orange", "row": 35, "lane": 2, "speed": 40},
        ]
    )
    st, ev = play(st, SetSpeed(seat=0, speed=100))
    dests = GAME.destinations(st, 0)
    assert all(d.baulked and d.baulked_by == 1 and d.to[0] == 34 for d in dests)
    st, ev = play(st, Move(seat=0, to=(34, 2)))
    car = st.cars[0]
    assert kinds(ev, "spin")
    assert (car.row, car.lane, car.speed, car.spun_at) == (34, 3, 0, "verge")
    assert (car.brake, car.tyre) == (5, 2)


# --- §K: baulking ---------------------------------------------------------------------------


def test_baulked_by_a_slower_car_matches_its_speed_with_braking_wear():  # rules 41-42
    st = build(
        [
            {"colour": "Yellow", "row": 30, "lane": 1, "speed": 100},
            {"colour": "Orange", "row": 35, "lane": 2, "speed": 40},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=100))
    dests = GAME.destinations(st, 0)
    assert {d.to for d in dests} == {(34, 1), (34, 2)}
    assert all(d.baulked and d.baulk_speed == 40 and d.steps == 4 for d in dests)
    st, ev = play(st, Move(seat=0, to=(34, 2)))
    car = st.cars[0]
    assert (car.row, car.lane, car.speed) == (34, 2, 40)
    assert (car.brake, car.tyre) == (2, 1)  # 100 -> 40 is a reduction of 60
    assert kinds(ev, "baulk")


def test_baulked_by_a_faster_car_may_raise_speed_to_match():  # rule 43
    st = build(
        [
            {"colour": "Yellow", "row": 31, "lane": 2, "speed": 80},
            {"colour": "Orange", "row": 35, "lane": 2, "speed": 120},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=80))
    moves = [a for a in GAME.legal_actions(st, 0) if isinstance(a, Move)]
    assert Move(seat=0, to=(34, 2), raise_to_match=True) in moves
    kept, _ = play(st, Move(seat=0, to=(34, 2)))
    assert kept.cars[0].speed == 80
    raised, _ = play(st, Move(seat=0, to=(34, 2), raise_to_match=True))
    assert raised.cars[0].speed == 120


def test_raise_to_match_is_limited_to_60_over_the_turn_start():
    st = build(
        [
            {"colour": "Yellow", "row": 32, "lane": 2, "speed": 40},
            {"colour": "Orange", "row": 35, "lane": 2, "speed": 160},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=80))
    assert not any(isinstance(a, Move) and a.raise_to_match for a in GAME.legal_actions(st, 0))
    with pytest.raises(IllegalAction):
        GAME.apply(st, Move(seat=0, to=(34, 2), raise_to_match=True))


def test_baulked_in_the_pit_may_set_60_and_leave_at_up_to_120():  # rule 44
    pit_row = CAT.pit_row_of[1]  # Yellow's pit, beside row 64
    nxt = pit_row + 1
    cars = [{"colour": "Yellow", "row": pit_row, "lane": -1, "speed": 0, "lap": 1}]
    cars += [
        {"colour": c, "row": nxt, "lane": i, "speed": 40}
        for i, c in enumerate(("Orange", "Green", "Red"))
    ]
    st = build(cars)
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    dests = GAME.destinations(st, 0)
    assert [(d.to, d.steps, d.baulked) for d in dests] == [((pit_row, -1), 0, True)]
    st, ev = play(st, Move(seat=0, to=(pit_row, -1)))
    car = st.cars[0]
    assert (car.row, car.lane, car.speed) == (pit_row, -1, 60)  # no matching, no wear
    assert (car.brake, car.tyre) == (0, 0)
    # next turn: up to 120
    st = st.model_copy(update={"turn": st.turn.model_copy(update={"seat": 0, "start_speed": 60})})
    st = st.model_copy(update={"turn_index": 0})
    speeds = [a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)]
    assert max(speeds) == 120


# --- §L: Tactic cards --------------------------------------------------------------------


def test_superb_driving_takes_a_corner_at_any_speed_without_penalty():
    superb = card_of_type("superb_driving")
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 140, "hand": [superb]}, FAR])
    rng_before = st.rng.model_copy()
    st, ev = play(st, PlayTactic(seat=0, card=superb), SetSpeed(seat=0, speed=160))
    st, ev = play(st, Move(seat=0, to=(16, 2)))
    car = st.cars[0]
    assert kinds(ev, "band") == [] and kinds(ev, "spin") == []
    assert (car.row, car.lane, car.tyre, car.brake) == (16, 2, 0, 0)
    assert st.rng == rng_before
    assert superb in st.tactic_used and superb not in car.hand


def test_accelerate_to_120_from_a_standing_start():
    acc = card_of_type("accelerate_120")
    st = build([{"colour": "Yellow", "row": 7, "lane": 0, "speed": 0, "hand": [acc]}, FAR])
    st, _ = play(st, PlayTactic(seat=0, card=acc))
    assert st.cars[0].speed == 120 and st.turn.phase == "move"
    assert {d.steps for d in GAME.destinations(st, 0)} == {6}
    st, _ = play(st, Move(seat=0, to=(13, 2)))
    assert st.cars[0].dist == 13


def test_extra_move_card_after_the_move_before_the_dice():
    extra = card_of_type("extra_move", squares=2)
    st = build(
        [{"colour": "Red", "row": 6, "lane": 2, "speed": 100, "hand": [extra]}, FAR], throws=[9]
    )
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(11, 2)))
    assert st.turn.phase == "after_move" and st.turn.seat == 0
    opts = [a for a in GAME.legal_actions(st, 0) if isinstance(a, PlayTactic)]
    assert {tuple(a.to) for a in opts} == {(13, 0), (13, 1), (13, 2)}
    st, ev = play(st, PlayTactic(seat=0, card=extra, to=(13, 2)))
    band = kinds(ev, "band")  # the extra move crossed Copse at 100 (+20)
    assert len(band) == 1 and band[0].data["excess"] == 20 and band[0].data["throw"] == 9
    assert (st.cars[0].row, st.cars[0].dist) == (13, 13)
    assert st.turn.seat == 1


def test_only_one_tactic_card_per_turn():
    superb = card_of_type("superb_driving")
    acc = card_of_type("accelerate_120")
    extra = card_of_type("extra_move", squares=2)
    hand = [superb, acc, extra]
    st = build([{"colour": "Red", "row": 28, "lane": 1, "speed": 60, "hand": hand}, FAR])
    st, _ = play(st, PlayTactic(seat=0, card=superb))
    assert not [a for a in GAME.legal_actions(st, 0) if isinstance(a, PlayTactic)]
    with pytest.raises(IllegalAction, match="one Tactic card"):
        GAME.apply(st, PlayTactic(seat=0, card=acc))
    st, _ = play(st, SetSpeed(seat=0, speed=60), Move(seat=0, to=(31, 1)))
    assert st.turn.seat == 1  # no after-move window: a card was already played


def test_after_move_card_cannot_be_played_before_moving():
    extra = card_of_type("extra_move", squares=2)
    st = build([{"colour": "Red", "row": 28, "lane": 1, "speed": 60, "hand": [extra]}, FAR])
    with pytest.raises(IllegalAction, match="after your move"):
        GAME.apply(st, PlayTactic(seat=0, card=extra, to=(30, 1)))


def test_soft_option_throw_first_then_play_a_card():
    extra = card_of_type("extra_move", squares=1)
    st = build(
        [{"colour": "Red", "row": 8, "lane": 2, "speed": 100, "hand": [extra]}, FAR],
        throws=[12],
        soft_tactic_after_dice=True,
    )
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(13, 2)))
    assert kinds(ev, "band")[0].data["throw"] == 12  # dice first...
    assert st.turn.phase == "after_move"  # ...then the card window
    st, _ = play(st, Proceed(seat=0))
    assert st.turn.seat == 1 and extra in st.cars[0].hand


@pytest.mark.parametrize("take", [True, False])
def test_soft_option_two_tyre_wear_instead_of_spinning_on_3(take):
    st = build(
        [{"colour": "Red", "row": 8, "lane": 2, "speed": 100, "tyre": 1}, FAR],
        throws=[3],
        soft_spin_tyres=True,
    )
    st, _ = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(13, 2)))
    assert st.turn.phase == "spin_choice"
    st, ev = play(st, SoftSpin(seat=0, take_tyre_wear=take))
    car = st.cars[0]
    if take:
        assert (car.lane, car.tyre) == (2, 3)
    else:
        assert (car.lane, car.tyre, car.spun_at) == (3, 1, "Copse Corner")


# --- §M: pits ------------------------------------------------------------------------------


def _pit_state(speed, deck_top="lose_turn"):
    top = card_of_type(deck_top)
    deck = [top] + [c for c in CAT.pit_ids if c != top]
    car = {"colour": "Yellow", "row": 61, "lane": 0, "speed": speed, "tyre": 6, "brake": 4}
    return build([car, {"colour": "Orange", "row": 40, "lane": 1, "speed": 60}], pit_deck=deck)


def test_exact_count_into_the_pit_resets_gauges_and_draws_a_pit_card():
    st = _pit_state(60)
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    pit = next(d for d in GAME.destinations(st, 0) if d.pit)
    assert pit.to == (64, -1) and pit.steps == 3 and pit.path[-2] == (63, 0)
    top = st.pit_deck[0]
    st, ev = play(st, Move(seat=0, to=(64, -1)))
    car = st.cars[0]
    assert (car.row, car.lane, car.speed, car.tyre, car.brake) == (64, -1, 0, 0, 0)
    assert car.dist == 64  # the lap count is unchanged
    assert kinds(ev, "pit") and st.pit_deck[-1] == top  # card goes under the pack
    assert car.lose_turns == 1
    # Orange moves; Yellow's next turn is lost, so Orange moves again
    st, ev = play(st, SetSpeed(seat=1, speed=60), Move(seat=1, to=(43, 1)))
    assert kinds(ev, "skip") and st.turn.seat == 1 and st.cars[0].lose_turns == 0


def test_pit_not_reachable_without_the_exact_count():
    st = _pit_state(80)
    st, _ = play(st, SetSpeed(seat=0, speed=80))
    assert not any(d.pit for d in GAME.destinations(st, 0))
    with pytest.raises(IllegalAction):
        GAME.apply(st, Move(seat=0, to=(64, -1)))


def test_overshooting_the_pit_continues_the_new_lap():
    st = build([{"colour": "Yellow", "row": 66, "lane": 0, "speed": 160, "tyre": 6}, FAR], laps=3)
    st, ev = play(st, SetSpeed(seat=0, speed=160), Move(seat=0, to=(2, 0)))
    car = st.cars[0]
    assert (car.row, car.dist, car.tyre) == (2, L + 2, 6)
    assert [e.data["lap"] for e in kinds(ev, "lap")] == [1]
    assert GAME.public_view(st)["cars"][0]["laps_to_go"] == 2


def test_leaving_the_pit_next_turn_up_to_60_or_120_with_burst():
    st = build([{"colour": "Yellow", "row": 64, "lane": -1, "speed": 0}, FAR])
    assert max(a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)) == 60
    st = build([{"colour": "Yellow", "row": 64, "lane": -1, "speed": 0, "burst": True}, FAR])
    assert max(a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)) == 120


def test_no_tactic_card_when_entering_the_pits():
    extra = card_of_type("extra_move", squares=1)
    st = _pit_state(60)
    st.cars[0].hand.append(extra)
    st, _ = play(st, SetSpeed(seat=0, speed=60), Move(seat=0, to=(64, -1)))
    assert st.turn.seat == 1 and extra in st.cars[0].hand


# --- §N: finishing ----------------------------------------------------------------------------


def test_everyone_has_the_same_number_of_turns_and_furthest_over_the_line_wins():
    final = 3 * L
    st = build(
        [
            {"colour": "Yellow", "row": 70, "lap": 3, "lane": 1, "speed": 60},
            {"colour": "Orange", "row": 68, "lap": 3, "lane": 2, "speed": 160},
            {"colour": "Green", "row": 20, "lap": 2, "lane": 1, "speed": 60, "status": "retired"},
        ],
        laps=3,
    )
    st, ev = play(st, SetSpeed(seat=0, speed=60), Move(seat=0, to=(1, 1)))
    assert kinds(ev, "finish") and not GAME.is_terminal(st)
    assert st.cars[0].dist == final + 1
    assert GAME.to_act(st) == [1]  # Orange still gets its turn
    st, ev = play(st, SetSpeed(seat=1, speed=160), Move(seat=1, to=(4, 2)))
    assert GAME.is_terminal(st) and kinds(ev, "race_over")
    assert st.cars[0].turns == st.cars[1].turns == 1
    places = GAME.classification(st)
    assert [(p.seat, p.place, p.status) for p in places] == [
        (1, 1, "running"),
        (0, 2, "running"),
        (2, 3, "retired"),
    ]
    assert GAME.to_act(st) == [] and GAME.legal_actions(st, 0) == []


def test_retire_puts_the_car_after_running_cars():
    st = build([{"colour": "Yellow", "row": 30, "lane": 1, "speed": 60}, FAR])
    st, ev = play(st, Retire(seat=0))
    assert st.cars[0].status == "retired" and st.turn.seat == 1
    st, _ = play(st, SetSpeed(seat=1, speed=20), Move(seat=1, to=(41, 1)))
    assert st.turn.seat == 1  # the retired car no longer takes turns
    assert [p.seat for p in GAME.classification(st)] == [1, 0]


# --- turn order, set-up, errors -----------------------------------------------------------


def test_out_of_turn_action_is_refused():
    st = build([{"colour": "Yellow", "row": 30, "lane": 1, "speed": 60}, FAR])
    with pytest.raises(NotYourTurn) as err:
        GAME.apply(st, SetSpeed(seat=1, speed=60))
    assert "Yellow" in err.value.message
    assert GAME.legal_actions(st, 1) == []


def test_wrong_phase_is_refused():
    st = build([{"colour": "Yellow", "row": 30, "lane": 1, "speed": 60}, FAR])
    with pytest.raises(IllegalAction, match="set your speed first"):
        GAME.apply(st, Move(seat=0, to=(33, 1)))


def test_moving_order_by_colour():  # §F rule 19
    st = GAME.new_game(5, {"count": 6})
    colours = [st.cars[s].colour for s in st.order]
    assert colours == ["Yellow", "Orange", "Green", "Red", "Black", "Blue"]


@pytest.mark.parametrize("seed", range(6))
def test_choice_of_cars_by_dice(seed):  # §B rule 7
    st = GAME.new_game(seed, {"count": 5})
    last = st.start_throws[-1]
    top = max(last)
    assert last.count(top) == 1
    first = last.index(top)
    for i in range(5):
        assert st.cars[(first + i) % 5].number == i + 1
    for rnd in st.start_throws[:-1]:  # earlier rounds were ties at the top
        assert rnd.count(max(rnd)) > 1
    for car in st.cars:  # §B rules 8-9, 11: grid, zeroed gauges, five cards
        assert (car.row, car.lane) == CAT.grid_of[car.number]
        assert (car.speed, car.tyre, car.brake) == (0, 0, 0)
        assert len(car.hand) == 5
    assert sorted(st.pit_deck) == sorted(CAT.pit_ids)


def test_more_than_six_cars_is_a_setting():
    with pytest.raises(IllegalAction, match="1 to 6"):
        GAME.new_game(1, {"count": 8})
    st = GAME.new_game(1, {"count": 8, "more_than_six": True})
    assert [st.cars[s].colour for s in st.order][6:] == ["White", "Purple"]
    assert all(len(c.hand) == 3 for c in st.cars)  # 30 cards shared by 8
    hands = [cid for c in st.cars for cid in c.hand] + st.tactic_undealt
    assert sorted(hands) == sorted(CAT.tactic_ids)


def test_config_validation():
    with pytest.raises(IllegalAction, match="Laps"):
        GAME.new_game(1, {"count": 2, "laps": 11})
    with pytest.raises(IllegalAction, match="Unknown"):
        GAME.new_game(1, {"count": 2, "lapz": 3})
    st = GAME.new_game(1, {"players": [{"name": "Ann"}, {"name": "Bot", "robot": True}]})
    assert [c.name for c in st.cars] == ["Ann", "Bot"] and st.cars[1].robot
    assert st.settings.laps == 3


def test_registered_once_under_its_name():
    game = get_game("waddington")
    assert isinstance(game, Waddington) and game.title == "Waddington's Formula 1"


def test_views_hide_hands_and_the_pit_deck():
    st = GAME.new_game(3, {"count": 3})
    pub = GAME.public_view(st)
    assert "rng" not in pub and "pit_deck" not in pub and "tactic_undealt" not in pub
    assert all("hand" not in c and c["hand_count"] == 5 for c in pub["cars"])
    assert pub["pit_deck_count"] == 16
    text = str(pub)
    assert not any(cid in text for c in st.cars for cid in c.hand)
    mine = GAME.seat_view(st, 1)
    assert [c["id"] for c in mine["hand"]] == st.cars[1].hand
    assert not any(cid in str(mine) for cid in st.cars[0].hand)


def test_actions_parse_from_json():
    a = GAME.parse_action('{"kind": "move", "seat": 2, "to": [14, 2]}')
    assert a == Move(seat=2, to=(14, 2))
    assert GAME.parse_action({"kind": "set_speed", "seat": 0, "speed": 80}) == SetSpeed(
        seat=0, speed=80
    )


# --- found by an audit against the source ------------------------------------------------


def test_leaving_the_verge_never_crosses_lanes():  # rules 22 and 24
    st = build(
        [
            {"colour": "Red", "row": 12, "lane": 3, "speed": 0, "spun_at": "Copse Corner"},
            {"colour": "Blue", "row": 13, "lane": 2},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    # the outside lane beside the verge is taken: the car may not hop across to lane 1 or 0
    assert [(d.to, d.steps, d.baulked) for d in GAME.destinations(st, 0)] == [((12, 3), 0, True)]


def test_stuck_in_the_pit_twice_moves_off_at_up_to_120():  # rule 44
    pit_row = CAT.pit_row_of[1]
    st = build([{"colour": "Yellow", "row": pit_row, "lane": -1, "speed": 120}, FAR])
    speeds = [a.speed for a in GAME.legal_actions(st, 0) if isinstance(a, SetSpeed)]
    assert max(speeds) == 120


def test_no_card_before_a_move_that_enters_the_pits():  # rule 45
    superb = card_of_type("superb_driving")
    st = _pit_state(60)
    st.cars[0].hand.append(superb)
    assert any(d.pit for d in GAME.destinations(st, 0, speed=60))
    st, _ = play(st, PlayTactic(seat=0, card=superb), SetSpeed(seat=0, speed=60))
    assert not any(d.pit for d in GAME.destinations(st, 0))
    with pytest.raises(IllegalAction):
        GAME.apply(st, Move(seat=0, to=(CAT.pit_row_of[st.cars[0].number], -1)))


def test_no_card_when_the_spin_is_certain():  # rules 30 and 45
    extra = card_of_type("extra_move", squares=2)
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 140, "hand": [extra]}, FAR])
    st, _ = play(st, SetSpeed(seat=0, speed=140), Move(seat=0, to=(15, 2)))
    # 140 over Copse's 80 mph outer lane is +60: a certain spin, so no card window opens,
    # the car spins at once and keeps its card; the next car is to move.
    assert st.cars[0].spun_at == "Copse Corner" and extra in st.cars[0].hand
    assert st.turn.seat == 1


def test_gauge_cards_take_no_square():
    care = card_of_type("tyre_care")
    st = build(
        [
            {"colour": "Red", "row": 40, "lane": 1, "speed": 40, "tyre": 3, "hand": [care]},
            {"row": 10, "lane": 1},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=40), Move(seat=0, to=(42, 1)))
    with pytest.raises(IllegalAction, match="takes no square"):
        GAME.apply(st, PlayTactic(seat=0, card=care, to=(43, 1)))


# --- review: a red band is judged where it is crossed, not after baulking ------------------
#
# §H rule 27: "When a car has been moved the full number of spaces shown on the speedometer,
# and has passed over or come to rest on a red band, if it has exceeded the safety speed
# shown, the two dice must be thrown."
# §I: "A car always spins off in the following circumstances : 30. (1) When a red corner band
# is crossed at a speed of 60mph or more above the safety speed. ... 32. (3) When a red corner
# band is crossed at any speed over the safety speed, and the tyre wear gauge is at its
# maximum of 8."
# §K rule 42: "If the car baulking you is travelling at a lower speed than your own car you
# must reduce the speed on your speedometer to equal that of the car in front."
# The band is crossed before the car reaches the square where it is baulked, so it is judged
# at the speed (and on the tyres) the car crossed it with.


def _wall(row, speed, colours=("Orange", "Green", "Yellow")):
    """Three cars side by side across `row`, all at `speed`: nothing gets past."""
    return [{"colour": c, "row": row, "lane": i, "speed": speed} for i, c in enumerate(colours)]


def test_rule_30_band_crossed_60_over_spins_even_if_baulked_beyond_it():
    # 140 mph over Copse's outer lane (safe at 80) is +60; the wall at row 15 baulks the car
    # at row 14, behind cars at 40 mph.
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 140}, *_wall(15, 40)])
    st, _ = play(st, SetSpeed(seat=0, speed=140))
    d = next(d for d in GAME.destinations(st, 0) if d.to == (14, 2))
    assert d.baulked and d.baulk_speed == 40
    assert [(b.corner, b.excess) for b in d.bands] == [("Copse Corner", 60)]  # the prompt's warning
    rng_before = st.rng.model_copy()
    st, ev = play(st, Move(seat=0, to=(14, 2)))
    car = st.cars[0]
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["speed"] == 140 and band[0].data["excess"] == 60
    assert "60 mph or more over, spins off" in band[0].text
    assert (car.row, car.lane, car.speed, car.spun_at, car.dist) == (12, 3, 0, "Copse Corner", 12)
    # it spun at the band and never reached the baulking cars: no matching, no braking wear
    assert kinds(ev, "baulk") == [] and (car.brake, car.tyre) == (0, 0)
    assert st.rng == rng_before  # a certain spin throws no dice


def test_rule_32_worn_tyres_over_the_safety_speed_spin_even_if_baulked_beyond_the_band():
    # tyre wear 8, 100 mph over Copse's outer lane (+20); the wall at row 13 (cars at 80)
    # stops the car on the band itself.
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 100, "tyre": 8}, *_wall(13, 80)])
    st, _ = play(st, SetSpeed(seat=0, speed=100))
    rng_before = st.rng.model_copy()
    st, ev = play(st, Move(seat=0, to=(12, 2)))
    car = st.cars[0]
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["speed"] == 100 and band[0].data["excess"] == 20
    assert "worn-out tyres" in band[0].text
    assert (car.lane, car.speed, car.spun_at) == (3, 0, "Copse Corner")
    assert st.rng == rng_before


def test_band_crossed_below_60_over_is_rolled_at_the_crossing_speed_when_baulked():  # rule 27
    # 120 mph over Copse's outer lane is +40 (the rulebook's own example); slowed to 80 by
    # the baulk afterwards, the band is still rolled in the +40 column.
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 120}, *_wall(14, 80)], throws=[9])
    st, ev = play(st, SetSpeed(seat=0, speed=120), Move(seat=0, to=(13, 2)))
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["column"] == "+40" and band[0].data["throw"] == 9
    car = st.cars[0]
    assert (car.row, car.lane, car.speed) == (13, 2, 80)
    assert (car.tyre, car.brake) == (1, 2)  # 9 at +40: tyre 1, brake 1; 120 -> 80: brake 1


def test_rule_43_raising_speed_after_the_band_does_not_change_how_it_was_taken():
    # Set 100 (+20 over Copse's outer lane), baulked on the band by cars at 140: raising to
    # 140 (§K rule 43) happens after the band, which was crossed at 100, not at +60.
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 80}, *_wall(13, 140)], throws=[12])
    st, _ = play(st, SetSpeed(seat=0, speed=100))
    assert Move(seat=0, to=(12, 2), raise_to_match=True) in GAME.legal_actions(st, 0)
    st, ev = play(st, Move(seat=0, to=(12, 2), raise_to_match=True))
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["speed"] == 100 and band[0].data["excess"] == 20
    car = st.cars[0]
    assert kinds(ev, "spin") == [] and (car.row, car.lane, car.speed) == (12, 2, 140)


def test_rule_32_tyres_worn_out_by_the_baulk_after_the_band_do_not_make_it_a_spin():
    # Tyre wear 7 when the car crosses Copse at +20; the baulk beyond it (100 -> 40, a
    # reduction of 60: brake 2, tyre 1) takes the gauge to 8 only afterwards: the band is
    # rolled for (a 12: no penalty), not a certain spin.
    st = build(
        [{"colour": "Red", "row": 8, "lane": 2, "speed": 100, "tyre": 7}, *_wall(13, 40)],
        throws=[12],
    )
    st, ev = play(st, SetSpeed(seat=0, speed=100), Move(seat=0, to=(12, 2)))
    band = kinds(ev, "band")
    assert len(band) == 1 and band[0].data["throw"] == 12
    car = st.cars[0]
    assert kinds(ev, "spin") == []
    assert (car.row, car.lane, car.speed, car.tyre, car.brake) == (12, 2, 40, 8, 2)


def test_rules_30_and_35_a_certain_spin_at_the_band_comes_before_a_baulking_spin():
    # No brakes left: the baulk at row 14 would spin the car to the verge there (§I rules 31
    # and 35), but it already spun at Copse's band at +60 (rule 30), onto the Spin Off Point.
    st = build([{"colour": "Red", "row": 8, "lane": 2, "speed": 140, "brake": 5}, *_wall(15, 40)])
    st, ev = play(st, SetSpeed(seat=0, speed=140), Move(seat=0, to=(14, 2)))
    car = st.cars[0]
    assert len(kinds(ev, "spin")) == 1
    assert (car.row, car.lane, car.spun_at, car.dist) == (12, 3, "Copse Corner", 12)


@pytest.mark.parametrize(("throw", "where"), [(4, (13, "verge")), (3, (12, "Copse Corner"))])
def test_rules_27_and_35_a_band_before_a_baulking_spin_is_still_rolled(throw, where):
    # No brakes left, +40 over Copse, then baulked at row 13 by cars at 40: the band's dice
    # are thrown first (4: tyre wear 2, then the baulking spin to the verge at row 13;
    # 3: a spin at Copse, onto its Spin Off Point, before the car reaches the baulk).
    st = build(
        [{"colour": "Red", "row": 8, "lane": 2, "speed": 120, "brake": 5}, *_wall(14, 40)],
        throws=[throw],
    )
    st, ev = play(st, SetSpeed(seat=0, speed=120), Move(seat=0, to=(13, 2)))
    car = st.cars[0]
    assert [b.data["throw"] for b in kinds(ev, "band")] == [throw]
    assert len(kinds(ev, "spin")) == 1
    assert (car.row, car.spun_at) == where and car.lane == 3 and car.speed == 0
    assert car.tyre == (2 if throw == 4 else 0)
    assert st.turn.seat != 0


def test_no_tactic_card_when_a_baulking_spin_is_certain():  # rule 45
    extra = card_of_type("extra_move", squares=1)
    st = build(
        [
            {"colour": "Red", "row": 8, "lane": 2, "speed": 120, "brake": 5, "hand": [extra]},
            *_wall(14, 40),
        ],
        throws=[12],
    )
    st, ev = play(st, SetSpeed(seat=0, speed=120), Move(seat=0, to=(13, 2)))
    assert st.turn.seat != 0 and extra in st.cars[0].hand
    assert st.cars[0].spun_at == "verge"


# --- review: leaving the pit, a Spin Off Point or the verge ---------------------------------
#
# §G rule 22: "Movement is always in a forward direction; straight ahead or diagonally, but
# never sideways." Rule 24: "No car may 'jump over' another." §K rule 44: "If a car is
# baulked in the pit or in a spin off point, he may bring his speedometer up to 60mph,
# although he may be unable to move".


def test_one_car_beside_the_pit_exit_baulks_a_car_in_its_pit():  # rules 22, 24 and 44
    pit_row = CAT.pit_row_of[1]  # Yellow's pit, beside row 64, on the inside of lane 0
    st = build(
        [
            {"colour": "Yellow", "row": pit_row, "lane": -1, "speed": 0},
            {"colour": "Orange", "row": pit_row + 1, "lane": 0, "speed": 100},
            {"colour": "Green", "row": pit_row + 1, "lane": 2, "speed": 20},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    # lanes 1 and 2 of the next row are open, but only lane 0 is diagonally ahead of the pit
    dests = GAME.destinations(st, 0)
    assert [(d.to, d.steps, d.baulked, d.baulked_by) for d in dests] == [
        ((pit_row, -1), 0, True, 1)
    ]
    st, ev = play(st, Move(seat=0, to=(pit_row, -1)))
    assert "baulked by Orange" in kinds(ev, "baulk")[0].text
    assert (st.cars[0].lane, st.cars[0].speed) == (-1, 60)


def test_the_first_step_out_of_the_pit_is_diagonal_into_the_inside_lane():  # rule 22
    pit_row = CAT.pit_row_of[1]
    st = build([{"colour": "Yellow", "row": pit_row, "lane": -1, "speed": 0}, FAR])
    st, _ = play(st, SetSpeed(seat=0, speed=20))
    assert [d.to for d in GAME.destinations(st, 0)] == [(pit_row + 1, 0)]


def test_a_car_on_the_verge_is_baulked_by_the_car_diagonally_ahead():  # rules 22 and 44
    st = build(
        [
            {"colour": "Red", "row": 12, "lane": 3, "speed": 0, "spun_at": "Copse Corner"},
            {"colour": "Blue", "row": 13, "lane": 2, "speed": 100},
            {"colour": "Black", "row": 13, "lane": 0, "speed": 20},
        ]
    )
    st, _ = play(st, SetSpeed(seat=0, speed=60))
    assert [(d.to, d.baulked_by) for d in GAME.destinations(st, 0)] == [((12, 3), 1)]
