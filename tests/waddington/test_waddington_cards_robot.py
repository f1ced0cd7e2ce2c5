"""Pit card and gauge card effects, and the robot driver's behaviour."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction
from rules.waddington import Move, PlayTactic, Proceed, SetSpeed, Waddington, catalog
from rules.waddington.scenario import build, card_of_type, rng_with_throws
from tests.waddington.waddington_helpers import play

GAME = Waddington()
CAT = catalog()
FAR = {"row": 40, "lane": 1}


def test_special_brakes_make_one_hard_reduction_free():
    st = build([{"colour": "Red", "row": 28, "lane": 1, "speed": 160, "brake": 5,
                 "special_brakes": True}, FAR])  # fmt: skip
    st, _ = play(st, SetSpeed(seat=0, speed=40))
    car = st.cars[0]
    assert (car.speed, car.brake, car.tyre, car.special_brakes) == (40, 5, 0, False)


@pytest.mark.parametrize(
    ("kind", "lose", "burst", "special"),
    [
        ("lose_turn", 1, False, False),
        ("fast_service", 0, False, False),
        ("burst", 0, True, False),
        ("special_brakes", 0, False, True),
    ],
)
def test_pit_card_effects(kind, lose, burst, special):
    top = card_of_type(kind)
    deck = [top] + [c for c in CAT.pit_ids if c != top]
    st = build(
        [{"colour": "Yellow", "row": 61, "lane": 0, "speed": 60, "tyre": 7}, FAR], pit_deck=deck
    )
    st, ev = play(st, SetSpeed(seat=0, speed=60), Move(seat=0, to=(64, -1)))
    car = st.cars[0]
    assert (car.lose_turns, car.burst, car.special_brakes) == (lose, burst, special)
    assert st.pit_deck == deck[1:] + [top]
    assert CAT.cards[top].title in next(e for e in ev if e.kind == "pit").text


def test_gauge_cards():
    tyre = card_of_type("tyre_care")
    brake = card_of_type("brake_adjust")
    st = build(
        [
            {
                "colour": "Red",
                "row": 28,
                "lane": 1,
                "speed": 60,
                "tyre": 5,
                "brake": 0,
                "hand": [tyre, brake],
            },
            FAR,
        ]  # fmt: skip
    )
    st, _ = play(st, SetSpeed(seat=0, speed=60), Move(seat=0, to=(31, 1)))
    opts = [a for a in GAME.legal_actions(st, 0) if isinstance(a, PlayTactic)]
    assert [a.card for a in opts] == [tyre]  # brake gauge shows no wear
    with pytest.raises(IllegalAction):
        GAME.apply(st, PlayTactic(seat=0, card=brake))
    st, _ = play(st, PlayTactic(seat=0, card=tyre))
    assert st.cars[0].tyre == 3 and st.turn.seat == 1


def test_accelerate_card_needs_a_speed_below_120():
    acc = card_of_type("accelerate_120")
    st = build([{"colour": "Red", "row": 28, "lane": 1, "speed": 120, "hand": [acc]}, FAR])
    assert not [a for a in GAME.legal_actions(st, 0) if isinstance(a, PlayTactic)]
    with pytest.raises(IllegalAction, match="below 120"):
        GAME.apply(st, PlayTactic(seat=0, card=acc))


def test_proceed_without_card_throws_the_dice():
    extra = card_of_type("extra_move", squares=4)
    st = build(
        [{"colour": "Red", "row": 8, "lane": 2, "speed": 120, "hand": [extra]}, FAR],
        throws=[9],
    )
    st, ev = play(st, SetSpeed(seat=0, speed=120), Move(seat=0, to=(14, 2)))
    assert not [e for e in ev if e.kind == "band"]  # the card window comes before the dice
    st, ev = play(st, Proceed(seat=0))
    assert [e.data["throw"] for e in ev if e.kind == "band"] == [9]
    assert (st.cars[0].tyre, st.cars[0].brake) == (1, 1)


def test_scenario_throws_are_the_engine_throws():
    rng = rng_with_throws([7, 2])
    assert rng.die() + rng.die() == 7 and rng.die() + rng.die() == 2


# --- the robot ---------------------------------------------------------------------------------


def robot_turn(st, seat=0):
    events = []
    while not GAME.is_terminal(st) and GAME.to_act(st) == [seat]:
        st, ev = GAME.apply(st, GAME.robot_action(st, seat))
        events += ev
    return st, events


def test_robot_pits_when_worn_near_the_end_of_a_lap():
    st = build([{"colour": "Yellow", "row": 61, "lane": 0, "speed": 60, "tyre": 7}, FAR])
    st, ev = robot_turn(st)
    assert any(e.kind == "pit" for e in ev)
    assert (st.cars[0].lane, st.cars[0].tyre) == (-1, 0)


def test_robot_does_not_pit_on_the_last_lap():
    st = build([{"colour": "Yellow", "row": 61, "lane": 0, "speed": 60, "tyre": 7, "lap": 3}, FAR])
    st, ev = robot_turn(st)
    assert not any(e.kind == "pit" for e in ev)


def test_robot_brakes_for_a_corner_ahead():
    # 160 mph five rows before Copse Corner: it must slow down rather than take it at +80
    st = build([{"colour": "Red", "row": 4, "lane": 1, "speed": 160}, FAR])
    st, ev = robot_turn(st)
    assert not any(e.kind == "spin" for e in ev)
    assert st.cars[0].speed < 160


@pytest.mark.parametrize("seed", range(4))
def test_robots_never_take_a_band_at_40_over(seed):
    state = GAME.new_game(seed, {"count": 6, "laps": 2})
    excesses = []
    while not GAME.is_terminal(state):
        (seat,) = GAME.to_act(state)
        state, ev = GAME.apply(state, GAME.robot_action(state, seat))
        excesses += [e.data["excess"] for e in ev if e.kind == "band"]
    assert all(x <= 20 for x in excesses)
