"""Chase and Slipstream, overtaking a car that skipped its turn, and running wide off the track
in play (Paddock rules; docs/rules/rf90.md, "Strategies", "The game turn" and "Trajectories")."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction
from rules.rf90 import GAME, EndTurn, OffTrackPay, PlayCards, StartTurn, catalog
from rules.rf90.scenario import advance, begin, build, card

RACE = catalog.race_deck()
QUAL_50 = next(cid for cid, c in RACE.items() if c.check_factor == 50 and not c.check)


def _cf_card(lo: int, hi: int, exclude: set[int]) -> int:
    """A plain Race card (no flag, no weather, no check) whose check factor is in [lo, hi)."""
    for cid, c in RACE.items():
        if cid in exclude or c.flag or c.weather or c.check:
            continue
        if lo <= c.check_factor < hi:
            return cid
    raise ValueError((lo, hi))


def _turn(spec: list[dict], play: PlayCards, deck_top: list[int], track: str = "barcelona"):
    """Car 0 (seat 0) plays its turn: phase A, then `play`."""
    state = begin(build(track, spec, deck_top=deck_top), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    return GAME.apply(state, play)


def _track_cards(hand: list[int]) -> int:
    return sum(1 for c in hand if c > catalog.TRACK_CARD_BASE)


# --- Chase and Slipstream: two different bonuses -----------------------------------------------


def _blue(section: int, hand: list[int], strategy: str) -> dict:
    return {"name": "Blue", "seat": 0, "section": section, "hand": hand, "strategy": strategy}


def _robot(name: str, section: int) -> dict:
    return {"name": name, "robot": "fast", "section": section, "mark": "ended"}


def test_chase_gives_one_mp_behind_a_car_in_its_own_section_and_slipstream_does_not():
    y2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 1, weather=0)
    for strategy, mp in (("chase", 3), ("slipstream", 2)):
        # the robot stands in front of Blue (car 1) in section 5; section 6 is empty
        spec = [_robot("Front", 5), _blue(5, [y2], strategy)]
        state = begin(build("barcelona", spec, deck_top=[draw_b]), 1)
        state, _ = GAME.apply(state, StartTurn(seat=0))
        state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y2]))
        assert state.cars[1].last_mp == mp, strategy


def test_slipstream_gives_one_mp_with_a_car_in_the_section_ahead_and_chase_does_not():
    y2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 1, weather=0)
    for strategy, mp in (("slipstream", 3), ("chase", 2)):
        spec = [_blue(5, [y2], strategy), _robot("Ahead", 6)]
        state, _ = _turn(spec, PlayCards(seat=0, cards=[y2]), [draw_b])
        assert state.cars[0].last_mp == mp, strategy


def test_slipstream_gives_nothing_out_of_a_curve():
    # Barcelona section 4 is Renault (a curve); section 5 ahead holds a car
    y2 = card("yellow", 2, weather=0)
    spec = [_blue(4, [y2], "slipstream"), _robot("Ahead", 5)]
    state, _ = _turn(spec, PlayCards(seat=0, cards=[y2]), [card("yellow", 1, weather=0)])
    assert catalog.track("barcelona").sections[4].kind == "curve"
    assert state.cars[0].last_mp == 2


def test_chase_special_for_catching_a_car_that_started_ahead():
    y1 = card("yellow", 1, weather=0)
    draw_b = card("yellow", 1, weather=0, exclude={y1})
    # Blue is behind Front in section 5 (Chase +1); Target is in section 7, two sections ahead
    spec = [_robot("Front", 5), _blue(5, [y1], "chase"), _robot("Target", 7)]
    state = begin(build("barcelona", spec, deck_top=[draw_b]), 1)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[y1]))
    blue = state.cars[1]
    assert blue.last_mp == 2 and blue.section == 7  # +1 and Chase +1: caught Target
    assert any("Chase special" in e.text for e in events)
    assert _track_cards(blue.hand) == 1


def test_no_chase_special_without_moving():
    # Blue cannot leave section 5 (section 6 is full): it ends beside the car that started
    # ahead of it, but it caught nobody
    y1 = card("yellow", 1, weather=0)
    spec = [_robot("Front", 5), _blue(5, [y1], "chase")]
    spec += [_robot(f"Wall {k}", 6) for k in range(3)]
    state = begin(
        build("barcelona", spec, deck_top=[card("yellow", 1, weather=0, exclude={y1})]), 1
    )
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[y1]))
    assert state.cars[1].section == 5
    assert not any("Chase special" in e.text for e in events)


# --- "turn skipped": a car that skipped its turn is overtaken ---------------------------------


def test_a_car_entering_a_section_passes_the_car_that_skipped_its_turn():
    y2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 1, weather=0)
    # S (seat 0) leads in section 8 and skips its turn; Blue (seat 1) then reaches section 8
    spec = [
        {"name": "S", "seat": 0, "section": 8, "hand": [card("yellow", 1, weather=0)]},
        {"name": "Blue", "seat": 1, "section": 6, "hand": [y2]},
    ]
    state = begin(build("barcelona", spec, deck_top=[draw_b]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0, skip=True))
    assert state.cars[0].mark == "skipped"
    assert state.pending is not None and state.pending.car == 1
    state, _ = GAME.apply(state, StartTurn(seat=1))
    state, events = GAME.apply(state, PlayCards(seat=1, cards=[y2]))
    assert state.sections[8] == [1, 0]  # Blue in front of the skipped car
    assert any(e.kind == "pass_skipped" for e in events)


def test_a_car_that_ended_its_turn_is_not_passed_on_entry():
    y2 = card("yellow", 2, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 6, "hand": [y2]},
        {"name": "E", "robot": "fast", "section": 8, "mark": "ended"},
    ]
    state, events = _turn(spec, PlayCards(seat=0, cards=[y2]), [card("yellow", 1, weather=0)])
    assert state.sections[8] == [1, 0]
    assert not any(e.kind == "pass_skipped" for e in events)


def test_skipped_cars_are_passed_only_at_the_back_of_the_section():
    # section 8: E (ended) then S (skipped): Blue goes between them, not in front of E
    y2 = card("yellow", 2, weather=0)
    spec = [
        {"name": "E", "robot": "fast", "section": 8, "mark": "ended"},
        {"name": "S", "robot": "slow", "section": 8, "mark": "skipped"},
        {"name": "Blue", "seat": 0, "section": 6, "hand": [y2]},
    ]
    state = begin(build("barcelona", spec, deck_top=[card("yellow", 1, weather=0)]), 2)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y2]))
    assert state.sections[8] == [0, 2, 1]


@pytest.mark.parametrize(("mark", "checks"), [("skipped", 0), ("ended", 1)])
def test_passing_a_lapped_car_that_skipped_needs_no_lapping_check(mark: str, checks: int):
    y2 = card("yellow", 2, weather=0)
    spec = [
        {"name": "Lapped", "robot": "slow", "section": 5, "lap": 1, "mark": mark},
        {"name": "Blue", "seat": 0, "section": 5, "lap": 2, "hand": [y2]},
    ]
    state = begin(build("barcelona", spec, deck_top=[card("yellow", 1, weather=0)]), 1)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[y2]))
    assert sum(1 for e in events if e.kind == "check") == checks
    assert sum(1 for e in events if e.kind == "blue_flag") == checks


# --- running wide: a failed green check in a corner with an off-track trajectory ---------------


def _green_in(section: int, passes: bool, hand_extra: int = 1, track: str = "barcelona"):
    """Blue (target check 50) stands in `section` and plays a green +3 (a blind check)."""
    green3 = card("green", 3)
    used = {green3, QUAL_50}
    extra = []
    for _ in range(hand_extra):
        extra.append(_cf_card(1, 99, used))
        used.add(extra[-1])
    draw_b = _cf_card(1, 99, used)
    used.add(draw_b)
    check = _cf_card(1, 50, used) if passes else _cf_card(50, 99, used)
    spec = [
        {"name": "Blue", "seat": 0, "section": section, "hand": [green3, *extra], "chips": 5},
    ]
    spec[0]["qual_card"] = QUAL_50
    state, events = _turn(spec, PlayCards(seat=0, cards=[green3]), [draw_b, check], track)
    return state, events, extra, draw_b


def test_a_failed_green_check_at_barcelona_corner_5_runs_wide_and_pays_the_card_symbol():
    # the chicane (section 10): 1 tyre, 1 damage and a card; re-entry in section 11
    state, events, extra, draw_b = _green_in(10, passes=False)
    car = state.cars[0]
    assert any(e.kind == "runs_wide" for e in events)
    assert car.off_track and car.section == 11 and car.status == "running"
    assert car.last_mp == 0
    # green +3 asks no tyre: the chip is the off-track tyre, the disc its damage, and one of the
    # two cards left (the spare and the phase B draw) pays the card symbol
    assert car.chips == 4 and car.damage == 1 and len(car.hand) == 1
    assert state.pending is not None and state.pending.phase == "E"
    state, _ = GAME.apply(state, EndTurn(seat=0))  # the only car: the next game turn begins
    assert state.turn == 6 and state.cars[0].off_track
    assert state.pending is not None and state.pending.car == 0


def test_the_card_symbol_can_be_paid_with_a_chosen_card():
    green3 = card("green", 3)
    keep = _cf_card(1, 99, {green3, QUAL_50})
    pay = _cf_card(1, 99, {green3, QUAL_50, keep})
    draw_b = _cf_card(1, 99, {green3, QUAL_50, keep, pay})
    check = _cf_card(60, 99, {green3, QUAL_50, keep, pay, draw_b})
    spec = [{"name": "Blue", "seat": 0, "section": 10, "hand": [green3, keep, pay], "chips": 5}]
    spec[0]["qual_card"] = QUAL_50
    play = PlayCards(seat=0, cards=[green3], off_track_pay=OffTrackPay(discard=pay))
    state, _ = _turn(spec, play, [draw_b, check])
    assert sorted(state.cars[0].hand) == sorted([keep, draw_b])
    bad = PlayCards(seat=0, cards=[green3], off_track_pay=OffTrackPay(discard=green3))
    with pytest.raises(IllegalAction):
        _turn(spec, bad, [draw_b, check])


# EXP, "Off-track Discard Card symbol": "If you go off-track at one of these locations you will
# have to discard one card from your hand in addition to any other payment requested. [...] If
# you have no cards left in your hand and you must discard a card, then your car is out of the
# race." docs/rules/rf90.md: "the named `discard` pays the card symbol".


def _last_card_at_corner_5(pay: OffTrackPay | None):
    """Blue has no chip and plays its only card, a green +3 that fails its check in the chicane
    (1 tyre, 1 damage and the card symbol): it holds just the phase B draw."""
    green3 = card("green", 3)
    draw_b = _cf_card(1, 99, {green3, QUAL_50})
    check = _cf_card(60, 99, {green3, QUAL_50, draw_b})
    spec = [{"name": "Blue", "seat": 0, "section": 10, "hand": [green3], "chips": 0}]
    spec[0]["qual_card"] = QUAL_50
    play = PlayCards(seat=0, cards=[green3], off_track_pay=pay(draw_b) if pay else None)
    state, _ = _turn(spec, play, [draw_b, check])
    return state, draw_b


def test_the_card_named_for_the_card_symbol_pays_it_and_the_unpaid_tyre_is_damage():
    # the named card pays the card symbol, so Blue still had a card to discard and stays in the
    # race; the tyre it can pay with neither chips nor cards becomes a damage disc (Paddock rule)
    state, draw_b = _last_card_at_corner_5(lambda c: OffTrackPay(discard=c))
    car = state.cars[0]
    assert car.status == "running" and car.off_track and car.section == 11
    assert car.hand == [] and draw_b in state.race_discard
    assert car.chips == 0 and car.damage == 1 + 1  # the unpaid tyre + the printed damage
    assert state.pending is not None and state.pending.phase == "E"


def test_paid_automatically_the_last_card_pays_the_card_symbol_not_a_tyre():
    # automatic payment (Paddock rule) keeps the car in the race the same way: the card symbol
    # takes the last card, and the tyre becomes a damage disc
    state, draw_b = _last_card_at_corner_5(None)
    car = state.cars[0]
    assert car.status == "running" and car.off_track and car.section == 11
    assert car.hand == [] and car.chips == 0 and car.damage == 2


def test_a_card_named_for_tyres_pays_the_card_symbol_when_it_is_the_last_card():
    # Paddock rule: the card symbol is paid first, since a car without a card for it is out;
    # the tyre it was named for becomes a damage disc
    state, draw_b = _last_card_at_corner_5(lambda c: OffTrackPay(tyre_cards=[c]))
    car = state.cars[0]
    assert car.status == "running" and car.hand == [] and car.damage == 2


def test_a_passed_green_check_in_the_corner_moves_normally():
    state, events, _, _ = _green_in(10, passes=True)
    car = state.cars[0]
    assert not car.off_track and car.last_mp == 3 and car.section == 13


def test_a_failed_green_check_on_a_straight_only_loses_the_card_mp():
    state, events, _, _ = _green_in(11, passes=False)
    car = state.cars[0]
    assert not any(e.kind == "runs_wide" for e in events)
    assert not car.off_track and car.last_mp == 0 and car.section == 11


def test_silverstone_copse_and_stowe_can_be_left_in_play():
    for section, reentry in ((1, 2), (6, 7)):  # Copse and Stowe: 2 tyres and 1 damage
        state, events, _, _ = _green_in(section, passes=False, track="silverstone")
        car = state.cars[0]
        assert car.off_track and car.section == reentry
        assert car.chips == 3 and car.damage == 1


# --- robots run wide too, and ignore the card symbol ---------------------------------------------


def _robot_in(section: int, cf_from: int, cf_to: int):
    mistake = _cf_card(cf_from, cf_to, set())
    spec = [{"name": "R", "robot": "slow", "section": section}]
    spec += [{"name": "P", "seat": 0, "section": 0, "mark": "ended"}]  # a seat: no RobotTurn
    return advance(GAME, build("barcelona", spec, deck_top=[mistake], turn=27))  # one move


def test_a_robot_runs_wide_at_corner_5_and_ignores_the_card_symbol():
    state, events = _robot_in(10, 96, 100)
    robot = state.cars[0]
    assert any(e.kind == "runs_wide" for e in events)
    assert robot.off_track and robot.section == 11 and robot.status == "running"
    assert robot.damage == 0 and robot.hand == []


def test_a_robot_that_reveals_a_lower_card_drives_on():
    state, events = _robot_in(10, 60, 96)
    robot = state.cars[0]
    assert not any(e.kind == "runs_wide" for e in events)
    assert not robot.off_track and robot.section == 13  # Slow robot: 3 MP


def test_a_robot_that_ran_wide_re_enters_with_the_penalty():
    spec = [
        {"name": "R", "robot": "slow", "section": 11, "off_track": True, "off_penalty": 1},
        {"name": "P", "seat": 0, "section": 0, "mark": "ended"},
    ]
    state, _ = advance(GAME, build("barcelona", spec, turn=27))  # the last turn: one move
    robot = state.cars[0]
    # 3 MP - 1 penalty = 2: 1 MP to re-enter section 11, 1 MP to section 12
    assert robot.last_mp == 2 and not robot.off_track and robot.section == 12


# --- the seat policy weighs the chance of failing a blind check ---------------------------------


@pytest.mark.parametrize(("target", "plays_green"), [(95, True), (10, False)])
def test_the_seat_policy_plays_a_green_card_only_with_a_good_chance_of_passing(
    target: int, plays_green: bool
):
    green4, yellow2, red4 = card("green", 4), card("yellow", 2, weather=0), card("red", 4)
    qual = _cf_card(target, target + 1, {green4, yellow2, red4})
    # on the grid straight: neither play ends on a trajectory spot (no other reason to choose)
    spec = [{"name": "Blue", "seat": 0, "section": 21, "hand": [green4, yellow2]}]
    spec[0]["qual_card"] = qual
    state = begin(build("barcelona", spec, deck_top=[red4]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    action = GAME.robot_action(state, 0)
    assert isinstance(action, PlayCards)
    assert (green4 in action.cards) is plays_green


def test_the_lucky_special_needs_a_pair_not_the_drawn_card_alone():
    y2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 2, weather=0, exclude={y2})
    spec = [{"name": "Blue", "seat": 0, "section": 5, "hand": [y2], "strategy": "lucky"}]
    # playing the drawn +2 alone is no pair; playing the other +2 with the drawn +2 in hand is
    state, _ = _turn(spec, PlayCards(seat=0, cards=[draw_b]), [draw_b])
    assert _track_cards(state.cars[0].hand) == 0
    state, _ = _turn(spec, PlayCards(seat=0, cards=[y2]), [draw_b])
    assert _track_cards(state.cars[0].hand) == 1


def test_running_wide_is_reported_as_a_move_of_nothing():
    state, events, _, _ = _green_in(10, passes=False)
    moves = [e for e in events if e.kind == "move"]
    assert [(m.data["car"], m.data["mp"], m.data["turn"]) for m in moves] == [(0, 0, 5)]


# --- edges found in review -------------------------------------------------------------------


def test_a_robot_does_not_pass_a_skipped_car_on_a_higher_lap():
    # robots never unlap themselves (public source), skipped or not
    spec = [
        {"name": "P", "seat": 0, "section": 20, "lap": 2, "mark": "ended"},
        {"name": "Leader", "seat": 1, "section": 8, "lap": 1, "mark": "skipped"},
        {"name": "Slow", "robot": "slow", "section": 6, "lap": 0},
    ]
    state, _ = advance(GAME, build("barcelona", spec, turn=27))
    assert state.sections[8] == [1, 2]


def test_no_overtaking_a_skipped_car_under_a_yellow_flag():
    y2 = card("yellow", 2, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 6, "hand": [y2]},
        {"name": "S", "robot": "slow", "section": 8, "mark": "skipped"},
    ]
    state = build("barcelona", spec, deck_top=[card("yellow", 1, weather=0)])
    state.yellow_flags = [8]
    state = begin(state, 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[y2]))
    assert state.sections[8] == [1, 0]
    assert not any(e.kind == "pass_skipped" for e in events)


def test_a_robot_off_the_track_on_its_fuel_turn_is_out_of_fuel():
    # public source: a car that cannot pit on its fuel turn (off track) retires
    spec = [
        {"name": "R", "robot": "slow", "section": 11, "off_track": True, "robot_pit_due": True},
        {"name": "P", "seat": 0, "section": 0, "mark": "ended"},
    ]
    state, events = advance(GAME, build("barcelona", spec, turn=27))
    assert state.cars[0].status == "out of fuel"
    assert not any(e.kind == "pit" for e in events)


def test_the_public_view_shows_discard_piles_as_counts_only():
    # HTP, Substitute Car: the discarded hand need not be shown to the other players
    from rules.rf90 import ChooseSetup, Mulligan

    state = GAME.new_game(4, {"track": "barcelona", "players": 2})
    for seat in (0, 1):
        state, _ = GAME.apply(state, ChooseSetup(seat=seat))
    old_hand = list(state.cars[0].hand)
    before = GAME.public_view(state)
    state, _ = GAME.apply(state, Mulligan(seat=0, swap=True))
    assert sorted(state.race_discard) == sorted(old_hand)  # the engine keeps them
    # Until every player has decided, nothing tells that one took the substitute car (a
    # Paddock rule: the substitute cars are told together).
    for view in (GAME.public_view(state), GAME.seat_view(state, 1)):
        assert (view["race_draw"], view["race_discard"]) == (
            before["race_draw"],
            before["race_discard"],
        )
    state, _ = GAME.apply(state, Mulligan(seat=1, swap=False))
    assert state.phase == "qualifying"
    for view in (GAME.public_view(state), GAME.seat_view(state, 1)):
        assert view["race_discard"] == len(old_hand)
        assert view["track_discard"] == 0


def test_wise_driving_refuses_a_card_named_twice_or_also_paying_save_fuel():
    red4, y1 = card("red", 4), card("yellow", 1, weather=0)
    spec = [
        {
            "name": "Blue",
            "seat": 0,
            "section": 5,
            "hand": [red4, y1],
            "skill": "wise_driving",
            "strategy": "save_fuel",
        }
    ]
    state = begin(build("barcelona", spec), 0)
    before = state.model_dump()
    for bad in (
        StartTurn(seat=0, wise_driving=[y1, y1]),
        StartTurn(seat=0, wise_driving=[red4], save_fuel_discard=red4),
    ):
        with pytest.raises(IllegalAction):
            GAME.apply(state, bad)
    assert state.model_dump() == before


def test_the_slipstream_special_needs_passing_the_car_on_the_track_not_in_the_standings():
    # L in the section ahead is a lap down: Blue ranks ahead of it already; entering L's
    # section behind it passes nobody on the track
    y1 = card("yellow", 1, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "lap": 2, "hand": [y1], "strategy": "slipstream"},
        {"name": "L", "robot": "slow", "section": 6, "lap": 1, "mark": "ended"},
    ]
    spec += [  # section 7 is full
        {"name": f"W{k}", "robot": "fast", "section": 7, "lap": 2, "mark": "ended"}
        for k in range(4)
    ]
    state, events = _turn(spec, PlayCards(seat=0, cards=[y1]), [card("yellow", 1, exclude={y1})])
    assert state.cars[0].section == 6 and state.cars[0].last_mp == 2  # section 7 is full
    assert not any("Slipstream special" in e.text for e in events)


def test_an_off_track_car_waiting_in_a_curve_does_not_cancel_its_duel():
    # Elf (section 3) re-enters in section 3: the waiting car plays after the duel
    spec = [
        {"name": "Leader", "robot": "fast", "section": 10, "lap": 1, "mark": "ended"},
        {"name": "A", "seat": 0, "section": 3, "lap": 1, "hand": [card("red", 3)]},
        {"name": "B", "seat": 1, "section": 3, "lap": 1, "hand": [card("orange", 2)]},
        {"name": "Off", "seat": 2, "section": 3, "lap": 1, "off_track": True, "off_penalty": 1},
    ]
    state, _ = advance(GAME, build("barcelona", spec))
    assert state.duel is not None and state.duel.order == [1, 2]


def test_save_fuel_cannot_fill_the_tank_beyond_sixteen_turns():
    y1 = card("yellow", 1, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "hand": [y1], "strategy": "save_fuel"},
    ]
    spec[0]["fuel_turn"] = 5 + 16  # just pitted with 16 turns on turn 5
    draw_b = card("yellow", 1, weather=0, exclude={y1})
    with pytest.raises(IllegalAction, match="16 turns"):
        _turn(spec, PlayCards(seat=0, cards=[y1], save_fuel_choice="fuel"), [draw_b])
    state, _ = _turn(spec, PlayCards(seat=0, cards=[y1]), [draw_b])  # the Track card is fine
    assert _track_cards(state.cars[0].hand) == 1 and state.cars[0].fuel_turn == 21
    spec[0]["fuel_turn"] = 5 + 15
    state, _ = _turn(spec, PlayCards(seat=0, cards=[y1], save_fuel_choice="fuel"), [draw_b])
    assert state.cars[0].fuel_turn == 21


# --- dashboards and colours (HTP, Preparation 3; robots' colours: public source) ---------------


def test_players_choose_their_colour_and_robots_wear_their_types_colours():
    config = {"track": "barcelona", "players": [{"colour": "white"}, {}, {"colour": "red"}]}
    state = GAME.new_game(1, config)
    players = [c for c in state.cars if c.seat is not None]
    assert [c.colour for c in players] == ["white", "blue", "red"]  # free colours in order
    assert players[0].name == "White car"
    robots = {c.robot: c.colour for c in state.cars if c.robot}
    assert robots == {"superfast": "black", "fast": "yellow", "slow": "purple"}
    with pytest.raises(ValueError, match="same colour"):
        GAME.new_game(1, {"players": [{"colour": "red"}, {"colour": "red"}]})
    with pytest.raises(ValueError, match="no .mauve. car"):
        GAME.new_game(1, {"players": [{"colour": "mauve"}]})


def test_the_seat_policy_avoids_running_wide_just_before_its_fuel_turn():
    # in the chicane with a good chance (target 95): the green +4 is worth it, except when a
    # failure would leave the car off the track on its fuel turn (out of fuel)
    green4, y2, red4 = card("green", 4), card("yellow", 2, weather=0), card("red", 4)
    qual = _cf_card(95, 96, {green4, y2, red4})
    for fuel_turn, plays_green in ((9, True), (6, False)):
        spec = [{"name": "Blue", "seat": 0, "section": 10, "hand": [green4, y2], "qual_card": qual}]
        spec[0]["fuel_turn"] = fuel_turn
        state = begin(build("barcelona", spec, deck_top=[red4]), 0)
        state, _ = GAME.apply(state, StartTurn(seat=0))
        action = GAME.robot_action(state, 0)
        assert isinstance(action, PlayCards)
        assert (green4 in action.cards) is plays_green, fuel_turn


# --- one picture per section activation: apply_watching ----------------------------------------


def test_apply_watching_gives_the_state_after_each_section_activation():
    from rules.rf90 import ROBOT_SEAT, RobotTurn

    # FAS case 2: the leader A (section 5) plays alone and passes the lapped L (section 7),
    # so section 7 is activated before B's section 4
    spec = [
        {"name": "A", "robot": "slow", "section": 5, "lap": 1},  # teammates: no lapping cost
        {"name": "L", "robot": "slow", "section": 7, "lap": 0},
        {"name": "B", "robot": "slow", "section": 4, "lap": 1},
    ]
    state = build("barcelona", spec, turn=27)
    state, _ = advance_until_robot(state)
    shots: list[tuple[int, object]] = []
    activated: list[int] = []
    while state.robot_next is not None:
        state, events, more = GAME.apply_watching(
            state, RobotTurn(seat=ROBOT_SEAT, car=state.robot_next)
        )
        shots += more
        activated += [e.data["section"] for e in events if e.kind == "activate"]
    assert [sec for sec, _ in shots] == [5, 7, 4]
    assert activated == [7, 4]  # section 5's activation began before the loop
    moved = [[c.id for c in shot.cars if c.mark == "ended"] for _, shot in shots]
    assert moved == [[0], [0, 1], [0, 1, 2]]
    assert shots[0][1].cars[0].section == 8  # A has moved 3, L and B not yet
    assert (shots[0][1].cars[1].section, shots[0][1].cars[2].section) == (7, 4)
    assert state.phase == "finished" and state.activation is None
    # watching changes nothing: plain apply gives the same final state
    plain = build("barcelona", spec, turn=27)
    plain, _ = advance(GAME, plain)
    assert plain.model_dump() == state.model_dump()


def advance_until_robot(state):
    """Run the engine's automatic steps up to the first RobotTurn (not playing it)."""
    from rules.rf90.engine import Ctx

    ctx = Ctx(state.model_copy(deep=True))
    GAME._advance(ctx)
    return ctx.s, ctx.events
