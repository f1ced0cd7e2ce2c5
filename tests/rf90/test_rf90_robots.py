"""Robot late braking, contests forced by an orange card, stops after a weather change
(docs/rules/rf90.md, Robots); the seat policy's choices (Robots, "Seat policy")."""

from __future__ import annotations

from rules.rf90 import GAME, DuelCards, DuelDeclare, EndTurn, PlayCards, StartTurn, catalog
from rules.rf90.scenario import advance, begin, build, card

RACE = catalog.race_deck()


def _cf(lo: int, hi: int) -> int:
    return next(
        cid
        for cid, c in RACE.items()
        if lo <= c.check_factor < hi and not c.flag and not c.weather and c.colour == "yellow"
    )


def _late_brake(check: int):
    spec = [
        {"name": "Blue", "seat": 0, "section": 16, "mark": "ended"},
        {"name": "Slow robot", "robot": "slow", "section": 13},
        {"name": "Leader", "seat": 1, "section": 20, "mark": "ended"},  # plays first on turn 6
    ]
    return advance(GAME, build("barcelona", spec, deck_top=[check]))


def test_robot_brakes_late_behind_a_car_and_passes():
    state, events = _late_brake(_cf(1, 40))  # target 40 before La Caixa
    assert state.sections[16] == [1, 0]
    assert any(e.kind == "late_brake" and e.data["car"] == 1 for e in events)


def test_robot_late_braking_failure_costs_nothing():
    state, events = _late_brake(_cf(40, 99))
    assert state.sections[16] == [0, 1]
    assert state.cars[1].damage == 0 and not state.cars[1].off_track
    assert [e.data["ok"] for e in events if e.kind == "check"] == [False]


def _duel(card_a: int):
    red4 = card("red", 4)
    spec = [
        {"name": "Leader", "robot": "superfast", "section": 10, "lap": 1, "mark": "ended"},
        {"name": "A", "seat": 0, "section": 3, "lap": 1, "hand": [card_a]},
        {"name": "Fast robot", "robot": "fast", "section": 3, "lap": 1},
    ]
    state, _ = advance(GAME, build("barcelona", spec, deck_top=[red4]))
    assert state.duel is not None and GAME.to_act(state) == [0]  # the robot did not challenge
    state, _ = GAME.apply(state, DuelDeclare(seat=0, join=True))
    state, events = GAME.apply(state, DuelCards(seat=0, cards=[card_a]))
    return next(e for e in events if e.kind == "duel_result"), events


def test_orange_card_forces_the_robot_behind_to_contest():
    result, events = _duel(card("orange", 2))
    assert any(e.kind == "duel_forced" and e.data["cars"] == [2] for e in events)
    # A: orange +2 (first car) = 2; robot: its top card red +4, -1 as second car at Elf = 3
    assert result.data["totals"] == {1: 2, 2: 3}
    assert result.data["order"] == [2, 1]


def test_without_an_orange_card_the_robot_stays_out_of_the_duel():
    result, events = _duel(card("yellow", 2, weather=0))
    assert not any(e.kind == "duel_forced" for e in events)
    assert result.data["totals"] == {1: 2}
    assert result.data["order"] == [1, 2]


def test_robots_pit_again_when_the_weather_turns_to_rain():
    rain2 = card("yellow", 2, weather=1)
    spec = [
        {"name": "Blue", "seat": 0, "section": 12, "hand": [rain2]},
        {"name": "Slow robot", "robot": "slow", "section": 10, "robot_pitted": True},
        {"name": "Wet robot", "robot": "slow", "section": 8, "tyre": "wet"},
    ]
    state = begin(build("barcelona", spec, weather=4), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[rain2]))
    assert state.weather == 5  # Wet -> Rain
    assert state.cars[1].robot_weather_pit == "wet"
    assert state.cars[2].robot_weather_pit is None  # already on wet tyres
    state, events = GAME.apply(state, EndTurn(seat=0))
    robot = state.cars[1]
    assert [e.data["car"] for e in events if e.kind == "pit"] == [1]
    assert (robot.tyre, robot.pit_stops, robot.robot_weather_pit) == ("wet", 1, None)
    assert robot.section == 6  # back 7 from 10 to 3, then 3 MP


# --- off-track costs paid the player's way (Paddock rule) ---------------------------------------


def _extreme_off(pay):
    from rules.rf90 import OffTrackPay

    red4, orange2 = card("red", 4), card("orange", 2)
    yellow1 = card("yellow", 1, weather=0)
    fail = next(
        cid
        for cid, c in RACE.items()
        if c.check_factor >= 60 and c.colour == "green" and cid not in (red4, orange2, yellow1)
    )
    draw_b = card("yellow", 1, weather=0, exclude={yellow1, fail})
    spec = [
        {
            "name": "Blue",
            "seat": 0,
            "section": 9,
            "trajectory": "B9a",
            "hand": [red4, orange2, yellow1],
        }
    ]
    state = begin(build("barcelona", spec, deck_top=[fail, draw_b]), 0)
    pay = OffTrackPay(**pay) if pay is not None else None
    state, events = GAME.apply(state, StartTurn(seat=0, extreme=True, off_track_pay=pay))
    assert [e.data["ok"] for e in events if e.kind == "check"] == [False]
    car = state.cars[0]
    assert car.off_track and car.section == 11 and car.damage == 1  # corner 5: re-enter 11
    # off the track the turn ends at the re-entry point: no phase B draw, straight to phase E
    assert state.pending is not None and state.pending.phase == "E" and car.last_mp == 0
    return car, red4, orange2, yellow1, draw_b


def test_off_track_costs_paid_with_the_chosen_cards():
    red4, orange2 = card("red", 4), card("orange", 2)
    car, _, _, yellow1, draw_b = _extreme_off({"tyre_cards": [red4], "discard": orange2})
    assert car.chips == 12  # the tyre paid with the red +4
    assert car.hand == [yellow1] and draw_b not in car.hand


def test_off_track_costs_paid_automatically_by_default():
    car, red4, orange2, yellow1, draw_b = _extreme_off(None)
    assert car.chips == 11  # chips first
    assert sorted(car.hand) == sorted([red4, orange2])  # the lowest card discarded


def test_off_track_pay_with_a_card_not_in_hand_is_refused():
    import pytest

    from rules.errors import IllegalAction

    with pytest.raises(IllegalAction):
        _extreme_off({"tyre_cards": [card("green", 4)]})


# --- robots change tyres for the weather at most once per race (Paddock rule) -------------------


def test_robot_changes_tyres_for_the_weather_at_most_once_per_race():
    rain2 = card("yellow", 2, weather=1)
    spec = [
        {"name": "Blue", "seat": 0, "section": 12, "hand": [rain2]},
        {"name": "Changed", "robot": "slow", "section": 10, "robot_weather_stops": 1},
        {"name": "Fresh", "robot": "slow", "section": 8},
    ]
    state = begin(build("barcelona", spec, weather=4), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[rain2]))
    assert state.weather == 5
    assert state.cars[1].robot_weather_pit is None  # its one weather stop is used up
    assert state.cars[2].robot_weather_pit == "wet"
    state, events = GAME.apply(state, EndTurn(seat=0))
    assert [e.data["car"] for e in events if e.kind == "pit"] == [2]
    assert (state.cars[2].robot_weather_stops, state.cars[2].tyre) == (1, "wet")
    assert state.cars[1].tyre == "hard"


def test_a_robot_fuel_stop_fits_the_tyres_for_the_weather_without_using_its_weather_stop():
    spec = [
        {"name": "Blue", "seat": 0, "section": 12, "mark": "ended"},
        {"name": "Robot", "robot": "fast", "section": 10, "robot_pit_due": True},
    ]
    state, events = advance(GAME, build("barcelona", spec, weather=6))
    robot = state.cars[1]
    assert any(e.kind == "pit" and e.data["car"] == 1 for e in events)
    assert (robot.tyre, robot.robot_pitted, robot.robot_weather_stops) == ("wet", True, 0)


def test_robots_average_at_most_two_stops_per_race():
    for track in ("barcelona", "silverstone"):
        stops = []
        for seed in (1, 2, 3):
            result = GAME.simulate(seed, track=track)
            stops += [c["pit_stops"] for c in result["classification"] if c["robot"]]
        assert sum(stops) / len(stops) <= 2.0, (track, stops)
        assert max(stops) <= 2


# --- the seat policy (docs/rules/rf90.md, "Seat policy") -----------------------------------------


def _policy_race(seed: int, config: dict) -> int:
    """Play a race with the seat policy and check each of its choices is an offered action."""
    state = GAME.new_game(seed, config)
    checked = 0
    while not GAME.is_terminal(state):
        seat = GAME.to_act(state)[0]
        action = GAME.robot_action(state, seat)
        assert action in GAME.legal_actions(state, seat), (state.phase, state.turn, action)
        checked += 1
        state, _ = GAME.apply(state, action)
    return checked


def test_the_seat_policy_always_picks_an_offered_action():
    skills = [{"skill": "reflexes"}, {"skill": "pitting"}, {"skill": "wise_driving"}, {}]
    configs = [
        (21, {"track": "barcelona", "players": 2}),
        (22, {"track": "silverstone", "players": skills}),
        (23, {"track": "silverstone", "players": [{"skill": "versatility"}]}),
    ]
    for seed, config in configs:
        assert _policy_race(seed, config) > 25


def test_the_seat_policy_never_plays_the_disc_that_retires_its_car():
    red4, orange2 = card("red", 4), card("orange", 2)
    spec = [{"name": "Blue", "seat": 0, "section": 13, "hand": [red4], "damage_red": 4}]
    state = begin(build("barcelona", spec, deck_top=[orange2]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    action = GAME.robot_action(state, 0)
    assert isinstance(action, PlayCards) and action.cards == [orange2]


def test_the_seat_policy_stops_early_for_wet_tyres_when_rain_sets_in():
    spec = [{"name": "Blue", "seat": 0, "section": 13, "hand": [card("red", 4)], "fuel_turn": 20}]
    rain = begin(build("barcelona", spec, weather=5), 0)  # hard tyres in the rain: 2 MP less
    action = GAME.robot_action(rain, 0)
    assert isinstance(action, StartTurn) and action.pit is not None
    assert action.pit.tyres == "wet" and action in GAME.legal_actions(rain, 0)
    dry = begin(build("barcelona", spec, weather=0), 0)
    assert GAME.robot_action(dry, 0) == StartTurn(seat=0)


def test_the_seat_policy_plays_a_pair_that_pays_no_tyre_for_the_save_tyres_track_card():
    # Save Tyres: orange +2 (1 tyre, saved) with yellow +1 moves 3 and draws a Track card;
    # red +4 would pay a chip and a third disc, which brings the damage effect
    orange2, yellow1, red4 = card("orange", 2), card("yellow", 1, weather=0), card("red", 4)
    spec = [
        {
            "name": "Blue",
            "seat": 0,
            "section": 13,
            "hand": [orange2, red4],
            "strategy": "save_tyres",
            "damage_red": 2,
        }
    ]
    state = begin(build("barcelona", spec, deck_top=[yellow1]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    action = GAME.robot_action(state, 0)
    assert isinstance(action, PlayCards) and sorted(action.cards) == sorted([orange2, yellow1])
    state, events = GAME.apply(state, action)
    assert any(e.kind == "track_card" for e in events)
