"""Worked examples of the rule sources, as scenario tests (exact numbers from the text)."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction
from rules.rf90 import (
    GAME,
    ChooseSetup,
    DuelCards,
    DuelDeclare,
    Mulligan,
    PitStop,
    PlayCards,
    Qualify,
    StartTurn,
    catalog,
    fuel_chit,
    target_check,
)
from rules.rf90.engine import Ctx
from rules.rf90.scenario import advance, begin, build, card, cards, off_track

RACE = catalog.race_deck()


def _solo(track: str = "barcelona", **car) -> dict:
    car.setdefault("name", "Blue")
    car.setdefault("seat", 0)
    return car


# --- Sharp Trajectory example (expansion, Barcelona Special rules) ------------------------------


def _sharp_state(second: int):
    red3 = card("red", 3)
    spare = card("yellow", 1, weather=0, exclude={second})
    draw_b, draw_c = cards([("yellow", 2), ("yellow", 2)], weather=0)
    state = build(
        "barcelona",
        [_solo(section=16, trajectory="B16a", hand=[red3, second, spare], chips=5)],
        turn=7,
        deck_top=[draw_b, draw_c],
    )
    return begin(state, 0), red3, spare, draw_b, draw_c


def test_sharp_trajectory_before_turn_7_red_and_orange():
    orange1 = card("orange", 1)
    assert (RACE[orange1].tyres, RACE[orange1].draw) == (1, 1)
    state, red3, spare, draw_b, draw_c = _sharp_state(orange1)
    traj = catalog.track("barcelona").trajectory("B16a")
    assert traj.kind == "sharp" and "orange" in traj.colours
    assert "red" not in traj.colours and "yellow" not in traj.colours
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[red3, orange1], tyre_cards=[spare]))
    car = state.cars[0]
    pay = next(e for e in events if e.kind == "pay")
    assert pay.data == {"car": 0, "tyres": 3, "chips": 2, "cards": 1}  # 2 chips + 1 card
    assert car.chips == 3
    assert car.damage == 1  # one damage disc
    assert sorted(car.hand) == sorted([draw_b, draw_c])  # phase B draw + one card drawn
    assert car.last_mp == 6  # +4 MP cards, +2 MP trajectory
    assert car.section == 22


def test_sharp_trajectory_with_a_yellow_card_gives_no_bonus():
    yellow1 = card("yellow", 1, weather=0)
    state, red3, spare, _, _ = _sharp_state(yellow1)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[red3, yellow1]))
    car = state.cars[0]
    assert car.last_mp == 4  # no card matching the trajectory colours: no bonus
    pay = next(e for e in events if e.kind == "pay")
    assert pay.data["tyres"] == 1  # and no trajectory cost either


# The Sharp Trajectory and the strategies (expansion, Barcelona Sharp Trajectories): "With Save
# Tyres you will save 1 tyre chip on the total ... this includes the tyre chip due to a Sharp
# Trajectory", Push's Special counts it, Hazard adds 1 MP per disc including the Sharp one, and
# Sharp Trajectories "increase your chances to score a Special when using the Balance strategy".


def _sharp_play(track: str, section: int, traj: str, hand: list[int], play: PlayCards, **car):
    draw_b = card("yellow", 1, weather=0, exclude=set(hand))
    spec = [{"name": "Blue", "seat": 0, "section": section, "trajectory": traj, "hand": hand}]
    spec[0].update(car)
    state = begin(build(track, spec, deck_top=[draw_b]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    return GAME.apply(state, play)


def test_save_tyres_saves_one_of_the_three_tyres_of_the_sharp_example():
    red3, orange1 = card("red", 3), card("orange", 1)
    state, events = _sharp_play(
        "barcelona", 16, "B16a", [red3, orange1], PlayCards(seat=0, cards=[red3, orange1]),
        chips=5, strategy="save_tyres",
    )  # fmt: skip
    assert next(e for e in events if e.kind == "pay").data["tyres"] == 2  # 3 - 1
    assert state.cars[0].chips == 3 and state.cars[0].last_mp == 6


def test_push_special_counts_the_sharp_trajectory_tyre():
    orange2, yellow2 = card("orange", 2), card("yellow", 2, weather=0)
    # orange +2: 1 tyre + 1 for B16a = 2 chips -> a Track card
    state, _ = _sharp_play(
        "barcelona", 16, "B16a", [orange2, yellow2], PlayCards(seat=0, cards=[orange2]),
        strategy="push",
    )  # fmt: skip
    assert state.cars[0].chips == 10
    assert sum(1 for c in state.cars[0].hand if c > catalog.TRACK_CARD_BASE) == 1
    # yellow +2 (no trajectory colour): 1 chip, no Special
    state, _ = _sharp_play(
        "barcelona", 16, "B16a", [orange2, yellow2], PlayCards(seat=0, cards=[yellow2]),
        strategy="push",
    )  # fmt: skip
    assert state.cars[0].chips == 11
    assert not any(c > catalog.TRACK_CARD_BASE for c in state.cars[0].hand)


@pytest.mark.parametrize(("use", "mp", "damage"), [(True, 5, 1), (False, 2, 0)])
def test_hazard_adds_one_mp_for_the_sharp_trajectory_damage(use: bool, mp: int, damage: int):
    # Silverstone S3a: sharp yellow +2 costing 1 damage; yellow +2 alone draws no disc
    yellow2 = card("yellow", 2, weather=0)
    play = PlayCards(seat=0, cards=[yellow2], use_trajectory=use)
    state, _ = _sharp_play("silverstone", 3, "S3a", [yellow2], play, strategy="hazard")
    car = state.cars[0]
    assert car.damage == damage
    assert car.last_mp == mp  # 2 + 2 trajectory + 1 Hazard, or 2 when declined


@pytest.mark.parametrize(("use", "special"), [(True, 1), (False, 0)])
def test_the_sharp_trajectory_damage_earns_balance_its_special(use: bool, special: int):
    # 1 tyre paid (yellow +2) and 1 disc drawn (S3a): equal numbers -> Balance special
    yellow2 = card("yellow", 2, weather=0)
    play = PlayCards(seat=0, cards=[yellow2], use_trajectory=use)
    state, _ = _sharp_play("silverstone", 3, "S3a", [yellow2], play, strategy="balance")
    assert sum(1 for c in state.cars[0].hand if c > catalog.TRACK_CARD_BASE) == special


def test_phase_c_checks_before_drawing_cards():
    # EXP's phase C order: pay, perform checks, draw cards. Green +2: a check and one card drawn.
    green2 = card("green", 2)
    used = {green2}
    qual = next(c for c, k in RACE.items() if k.check_factor == 50 and c not in used)
    used.add(qual)
    draw_b = next(c for c, k in RACE.items() if not k.check and c not in used)
    used.add(draw_b)
    check = next(c for c, k in RACE.items() if k.check_factor < 50 and c not in used)
    used.add(check)
    drawn = next(c for c, k in RACE.items() if k.check_factor > 50 and c not in used)
    spec = [{"name": "Blue", "seat": 0, "section": 5, "hand": [green2], "qual_card": qual}]
    state = begin(build("barcelona", spec, deck_top=[draw_b, check, drawn]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[green2]))
    result = next(e for e in events if e.kind == "check")
    assert result.data["ok"] and f"check {RACE[check].check_factor} vs 50" in result.text
    assert sorted(state.cars[0].hand) == sorted([draw_b, drawn])
    assert state.cars[0].last_mp == 2


# --- Push, Save Fuel and the refuelling chit (expansion, NEW STRATEGIES) -------------------------


def test_push_on_turn_13_with_chit_on_14_runs_out_of_fuel():
    orange2, red3 = card("orange", 2), card("red", 3)
    state = build(
        "barcelona",
        [_solo(section=5, hand=[orange2, red3], strategy="push", fuel_turn=14)],
        turn=13,
    )
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[orange2, red3]))
    assert state.cars[0].status == "out of fuel"
    assert any(e.kind == "out" for e in events)


def test_push_pair_of_two_and_one_does_not_move_the_chit():
    orange2, yellow1 = card("orange", 2), card("yellow", 1, weather=0)
    state = build(
        "barcelona",
        [_solo(section=5, hand=[orange2, yellow1], strategy="push", fuel_turn=14)],
        turn=13,
    )
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[orange2, yellow1]))
    assert state.cars[0].fuel_turn == 14 and state.cars[0].status == "running"


def test_two_and_three_cannot_pair_without_push():
    orange2, red3 = card("orange", 2), card("red", 3)
    state = build("barcelona", [_solo(section=5, hand=[orange2, red3], strategy="hazard")])
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0))
    with pytest.raises(IllegalAction):
        GAME.apply(state, PlayCards(seat=0, cards=[orange2, red3]))


def test_barcelona_fuel_overflow_pit_at_23_chit_on_6():
    state = build("barcelona", [_solo(section=5, hand=[card("yellow", 1)], fuel_turn=23)], turn=23)
    state = begin(state, 0)
    with pytest.raises(IllegalAction):
        GAME.apply(state, StartTurn(seat=0))  # the chit is on turn 23: must pit
    state, _ = GAME.apply(state, StartTurn(seat=0, pit=PitStop(tyres="hard")))
    car = state.cars[0]
    assert car.fuel_turn == 33
    assert fuel_chit(state, car) == (6, True)
    assert car.pit_stops == 1


def test_extra_fuel_three_turns_per_section_at_most_sixteen():
    state = build("barcelona", [_solo(section=12, hand=[], fuel_turn=10)], turn=10)
    state, _ = GAME.apply(
        begin(state, 0), StartTurn(seat=0, pit=PitStop(tyres="hard", extra_sections=2))
    )
    car = state.cars[0]
    assert car.fuel_turn == 10 + 16
    assert car.section == 12 - 7 - 2
    with pytest.raises(ValueError):
        PitStop(tyres="hard", extra_sections=3)


def test_save_fuel_discard_four_to_draw_two_and_shift_chit():
    red4, y1, y2 = card("red", 4), card("yellow", 1, weather=0), card("yellow", 2, weather=0)
    top = cards([("green", 1), ("green", 1)])
    state = build(
        "barcelona",
        [_solo(section=5, hand=[red4, y1, y2], strategy="save_fuel", fuel_turn=15)],
        deck_top=top,
    )
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0, save_fuel_discard=red4))
    assert state.pending.drawn == top  # two race cards instead of one
    assert red4 in state.race_discard
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y1, y2], save_fuel_choice="fuel"))
    assert state.cars[0].fuel_turn == 16


def test_save_fuel_special_track_card_with_small_cards_only():
    y1 = card("yellow", 1, weather=0)
    state = build("barcelona", [_solo(section=5, hand=[y1], strategy="save_fuel")])
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y1]))
    assert any(c > catalog.TRACK_CARD_BASE for c in state.cars[0].hand)


# --- Skills: Wise Driving and Rain Expert (expansion) --------------------------------------------


def test_wise_driving_one_race_card_and_three_track_cards_gives_nine():
    race = card("yellow", 1, weather=0)
    tracks = sorted(catalog.track_deck("barcelona"))[:3]
    state = build("barcelona", [_solo(section=5, hand=[race, *tracks], skill="wise_driving")])
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0, wise_driving=[race]))
    car = state.cars[0]
    before_draw = [c for c in car.hand if c not in state.pending.drawn]
    assert len(before_draw) == 9  # 6 new Race cards + the 3 Track cards
    assert sum(1 for c in before_draw if c > catalog.TRACK_CARD_BASE) == 3
    assert race not in car.hand and car.wise_used
    # once per stint
    state2 = begin(
        build("barcelona", [_solo(section=5, hand=[race], skill="wise_driving", wise_used=True)]), 0
    )
    with pytest.raises(IllegalAction):
        GAME.apply(state2, StartTurn(seat=0, wise_driving=[race]))


@pytest.mark.parametrize(("skill", "blue", "mp"), [("rain_expert", 2, 3), (None, 0, 1)])
def test_rain_expert_pits_for_wet_tyres_in_uncertain_weather(skill, blue, mp):
    y2 = card("yellow", 2, weather=0)
    state = build(
        "barcelona",
        [_solo(section=12, hand=[y2], skill=skill, fuel_turn=9)],
        turn=9,
        weather=3,  # uncertain (the middle space)
    )
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0, pit=PitStop(tyres="wet")))
    car = state.cars[0]
    assert car.blue == (3 if skill else 0)
    assert car.chips == 12
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y2], blue_bonus=bool(skill)))
    car = state.cars[0]
    assert car.blue == blue
    assert car.last_mp == mp  # expert: 2 +1 blue, no uncertain penalty; others: 2 - 1


# --- Qualification (how-to-play, Qualification) -------------------------------------------------


def _qualify(picks, seed: int = 5):
    """picks: per seat (card id, fuel turn). No robots."""
    state = GAME.new_game(seed, {"players": len(picks), "robots": {"superfast": 0}})
    for seat in range(len(picks)):
        state, _ = GAME.apply(state, ChooseSetup(seat=seat))
    for seat in range(len(picks)):
        state, _ = GAME.apply(state, Mulligan(seat=seat))
    for seat, (cid, _) in enumerate(picks):
        state.cars[seat].hand.append(cid)
    for seat, (cid, fuel) in enumerate(picks):
        state, _ = GAME.apply(state, Qualify(seat=seat, card=cid, fuel=fuel))
    return state


def test_qualification_bonuses_and_check_factor_tie_break():
    y2 = card("yellow", 2, weather=0)  # 2 + 2 (turn 8) = 4
    red4 = card("red", 4)  # 4 - 2 (turn 16) = 2
    red3 = card("red", 3)  # 3 + 1 (turn 10) = 4
    state = _qualify([(y2, 8), (red4, 16), (red3, 10)])
    values = [c.qual_value for c in state.cars]
    assert values == [4, 2, 4]
    first = 0 if RACE[y2].check_factor < RACE[red3].check_factor else 2
    other = 2 - first
    assert state.grid_order == [first, other, 1]
    assert [c.fuel_turn for c in state.cars] == [8, 16, 10]
    # the qualification card stays on the dashboard as the target check
    ctx = Ctx(state)
    assert target_check(ctx, state.cars[1]) == RACE[red4].check_factor
    assert all(cid not in state.cars[i].hand for i, cid in enumerate([y2, red4, red3]))


def test_qualification_turn_12_gives_nothing_and_turn_14_minus_one():
    y2, o3 = card("yellow", 2, weather=0), card("orange", 3)
    state = _qualify([(y2, 12), (o3, 14)])
    assert [c.qual_value for c in state.cars] == [2, 2]  # 2 + 0 and 3 - 1
    assert [c.fuel_turn for c in state.cars] == [12, 14]


def test_qualification_same_value_goes_to_the_lower_check_factor():
    a, b = cards([("orange", 2), ("orange", 2)])
    assert RACE[a].check_factor != RACE[b].check_factor
    state = _qualify([(a, 12), (b, 12)])
    lower = 0 if RACE[a].check_factor < RACE[b].check_factor else 1
    assert state.grid_order[0] == lower


def test_qualification_full_tie_is_a_draw():
    # same value and same check factor: a draw decides (HTP), kept in the seeded RNG
    a, b = next(
        (x, y)
        for x in RACE
        for y in RACE
        if x < y and RACE[x].check_factor == RACE[y].check_factor and RACE[x].mp == RACE[y].mp
    )
    orders = {tuple(_qualify([(a, 12), (b, 12)], seed=seed).grid_order) for seed in range(12)}
    assert orders == {(0, 1), (1, 0)}  # both outcomes happen
    assert _qualify([(a, 12), (b, 12)], 3).grid_order == _qualify([(a, 12), (b, 12)], 3).grid_order


def test_qualification_picks_are_hidden_until_revealed():
    state = GAME.new_game(5, {"players": 2})
    for seat in range(2):
        state, _ = GAME.apply(state, ChooseSetup(seat=seat))
    for seat in range(2):
        state, _ = GAME.apply(state, Mulligan(seat=seat))
    pick = state.cars[0].hand[0]
    state, _ = GAME.apply(state, Qualify(seat=0, card=pick, fuel=10))
    view = GAME.public_view(state)
    assert view["cars"][0]["qual_card"] is None and view["cars"][0]["qual_fuel"] is None
    assert GAME.seat_view(state, 0)["cars"][0]["qual_card"] == pick
    assert GAME.seat_view(state, 1)["cars"][0]["qual_card"] is None


# --- FAS: the three cases (how-to-play, Activate Section and FAS) --------------------------------


def _robots(track: str, spec, turn: int):
    cars_ = [{"name": n, "robot": r, "section": sec, "lap": lap} for n, r, sec, lap in spec]
    state = build(track, cars_, turn=turn)
    state, events = advance(GAME, state)
    return [e.data["car"] for e in events if e.kind == "move"], state


def test_fas_case_1_only_the_leader_plays_first():
    # A leads in section 5 with B behind it; C is one section back. Slow robots move 3.
    order, _ = _robots(
        "barcelona",
        [("A", "slow", 5, 1), ("B", "slow", 5, 1), ("C", "slow", 4, 1)],
        27,
    )
    assert order == [0, 1, 2]


def test_fas_case_2_leader_overtaken_new_fas():
    # The SuperFast B (4 MP) behind the Slow leader A passes it; C then plays, then nobody twice.
    order, state = _robots(
        "barcelona",
        [("A", "slow", 0, 1), ("B", "superfast", 0, 1), ("C", "slow", 23, 0)],
        27,
    )
    assert order == [0, 1, 2]
    assert state.cars[1].section > state.cars[0].section  # B is the new leader


def test_fas_case_3_lapped_car_in_front_of_the_leader_plays_once_the_leader_has_left():
    # L (lapped, lap 0) stands in front of leader A (lap 1) in section 5; B is in section 2.
    # A moves on to section 8: section 5 is then "the section immediately behind the leader
    # that contains cars that have not yet been activated", before section 2 (more in
    # test_rf90_activation_order.py).
    order, _ = _robots(
        "barcelona",
        [("L", "slow", 5, 0), ("A", "fast", 5, 1), ("B", "slow", 2, 1)],
        27,
    )
    assert order == [1, 0, 2]


# --- Duels (how-to-play, Duel Procedures and Resolution) ----------------------------------------


def test_duel_with_a_refuser_and_banging_wheels():
    red3, orange2 = card("red", 3), card("orange", 2)
    state = build(
        "barcelona",
        [
            {"name": "Robot", "robot": "fast", "section": 10, "lap": 1, "mark": "ended"},
            _solo(name="A", seat=0, section=3, lap=1, hand=[red3]),
            _solo(name="B", seat=1, section=3, lap=1, hand=[card("yellow", 1)]),
            _solo(name="C", seat=2, section=3, lap=1, hand=[orange2], strategy="banging_wheels"),
        ],
    )
    state, _ = advance(GAME, state)
    assert state.duel is not None and GAME.to_act(state) == [2]  # asked from the back
    state, _ = GAME.apply(state, DuelDeclare(seat=2, join=True))  # C challenges
    assert GAME.to_act(state) == [1]
    state, _ = GAME.apply(state, DuelDeclare(seat=1, join=False))  # B refuses
    state, _ = GAME.apply(state, DuelDeclare(seat=0, join=True))  # A accepts
    declared = state
    assert GAME.to_act(state) == [2, 0]  # the cards are picked at the same time, face down
    state, _ = GAME.apply(state, DuelCards(seat=2, cards=[orange2]))
    assert GAME.public_view(state)["duel"]["cards"] == {"3": 1}  # face down
    assert GAME.to_act(state) == [0]
    state, events = GAME.apply(state, DuelCards(seat=0, cards=[red3]))
    # The other way round (A puts down first) ends the same: nobody waits on anybody.
    other, _ = GAME.apply(declared, DuelCards(seat=0, cards=[red3]))
    assert GAME.to_act(other) == [2]
    other, _ = GAME.apply(other, DuelCards(seat=2, cards=[orange2]))
    assert other == state
    result = next(e for e in events if e.kind == "duel_result")
    # C: 2 MP, -1 (third car at Elf), +3 Banging Wheels = 4; A: 3 (first car, no modifier)
    assert result.data["totals"] == {3: 4, 1: 3}
    assert state.sections[3] == [3, 1, 2]  # the refuser B falls behind the challenger
    assert state.pending is not None and state.pending.car == 3  # C plays first
    assert any(c > catalog.TRACK_CARD_BASE for c in state.cars[3].hand)  # BW special


# --- Off-track with the card symbol (expansion, Barcelona corners 5 and 9) ----------------------


def test_barcelona_corner_5_off_track_with_no_card_left_is_out():
    state = build("barcelona", [_solo(section=9, hand=[], chips=5)])
    state, _ = off_track(state, 0, 10)
    assert state.cars[0].status == "retired"


def test_barcelona_corner_5_off_track_pays_and_discards_a_card():
    y1 = card("yellow", 1, weather=0)
    state = build("barcelona", [_solo(section=9, hand=[y1], chips=5)])
    state, _ = off_track(state, 0, 10)
    car = state.cars[0]
    assert car.status == "running" and car.off_track and car.section == 11
    assert car.hand == [] and car.chips == 4 and car.damage == 1


def test_barcelona_corner_5_robot_ignores_the_card_symbol():
    state = build("barcelona", [{"name": "R", "robot": "slow", "section": 9}])
    state, _ = off_track(state, 0, 10)
    car = state.cars[0]
    assert car.status == "running" and car.off_track and car.section == 11


def test_off_track_penalty_and_reentry_next_turn():
    y2 = card("yellow", 2, weather=0)
    state = build("barcelona", [_solo(section=11, off_track=True, off_penalty=1, hand=[y2])])
    state, _ = GAME.apply(begin(state, 0), StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[y2]))
    car = state.cars[0]
    assert car.last_mp == 1 and not car.off_track and car.section == 11  # 1 MP to re-enter


def test_off_track_car_on_its_fuel_turn_is_out_of_fuel():
    state = build(
        "barcelona",
        [_solo(section=11, off_track=True, hand=[card("yellow", 1)], fuel_turn=5)],
        turn=5,
    )
    state, _ = advance(GAME, state)
    assert state.cars[0].status == "out of fuel"


# --- Set-up and skill (how-to-play, Car Setup) -------------------------------------------------


def test_setup_phase_comes_before_the_hands_and_qualifying():
    state = GAME.new_game(5, {"players": 2})
    assert state.phase == "setup" and GAME.to_act(state) == [0, 1]
    assert all(not c.setup_chosen and c.hand == [] for c in state.cars if c.seat is not None)
    state, events = GAME.apply(state, ChooseSetup(seat=1, skill="tuning", tyres=3, wear=3, cards=2))
    assert [e.kind for e in events] == ["setup"]
    assert GAME.to_act(state) == [0] and state.cars[1].hand == []  # nobody drew yet
    with pytest.raises(IllegalAction, match="chooses a set-up before the substitute car"):
        GAME.apply(state, Mulligan(seat=0))
    state, _ = GAME.apply(state, ChooseSetup(seat=0, skill="qualifying", tyres=1, wear=2, cards=3))
    assert GAME.to_act(state) == [0, 1]  # now the substitute car
    a, b = state.cars[0], state.cars[1]
    assert (a.setup.tyres, a.setup.wear, a.setup.cards, a.skill) == (1, 2, 3, "qualifying")
    # hand size + 1 cards: 7 + 1 Race cards, and 2 Track cards for Qualifying
    assert sum(1 for c in a.hand if c <= catalog.TRACK_CARD_BASE) == 8
    assert sum(1 for c in a.hand if c > catalog.TRACK_CARD_BASE) == 2
    assert len(b.hand) == 6 + 1  # cards 2 = hand 6, + 1
    from rules.rf90.engine import base_chips, damage_capacity

    assert (base_chips(b), damage_capacity(b)) == (14, 5)  # tyres 3 = 14, wear 3 = 5
    with pytest.raises(IllegalAction, match="already chosen"):
        GAME.apply(state, ChooseSetup(seat=0))


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ({"tyres": 3, "wear": 3, "cards": 1}, "uses 7 points: at most 6 \\(8 with Tuning\\)"),
        ({"tyres": 4, "wear": 1, "cards": 1}, "worth 1 to 3 points: tyres 4"),
        ({"tyres": 2, "wear": 0, "cards": 2}, "worth 1 to 3 points: wear 0"),
        ({"skill": "tuning", "tyres": 3, "wear": 3, "cards": 3}, "uses 9 points: at most 8"),
        ({"skill": "tuning", "tyres": 4, "wear": 2, "cards": 2}, "tyres 4"),
        ({"skill": "nitro"}, "Unknown skill 'nitro'"),
    ],
)
def test_bad_setups_are_refused_with_a_clear_message(choice, message):
    state = GAME.new_game(5, {"players": 1})
    with pytest.raises(IllegalAction, match=message):
        GAME.apply(state, ChooseSetup(seat=0, **choice))


def test_tuning_allows_eight_points_and_the_config_can_fix_the_setup():
    state = GAME.new_game(5, {"players": 1})
    state, _ = GAME.apply(state, ChooseSetup(seat=0, skill="tuning", tyres=3, wear=2, cards=3))
    assert state.cars[0].setup.tyres + state.cars[0].setup.wear + state.cars[0].setup.cards == 8
    fixed = GAME.new_game(5, {"players": [{"skill": "reflexes", "setup": {"tyres": 3, "wear": 1}}]})
    assert fixed.cars[0].setup_chosen and len(fixed.cars[0].hand) == 7
    assert GAME.to_act(fixed) == [0]  # straight to the substitute car
    with pytest.raises(ValueError, match="at most 6"):
        GAME.new_game(5, {"players": [{"setup": {"tyres": 3, "wear": 3, "cards": 3}}]})


def test_the_robot_policy_chooses_the_standard_setup_and_it_is_legal():
    state = GAME.new_game(5, {"players": 1})
    action = GAME.robot_action(state, 0)
    assert action == ChooseSetup(seat=0, skill=None, tyres=2, wear=2, cards=2)
    legal = GAME.legal_actions(state, 0)
    assert action in legal
    assert len(legal) == 17 + 7 * 17 + 26  # no skill / 7 other skills: 17 each; Tuning: 26


# --- Silverstone: the dual-colour Extreme Trajectory before corner 7 (EXP) -----------------------


def _silverstone_extreme(colour: str, mp: int):
    from rules.rf90 import PlayCards, StartTurn

    played = card(colour, mp, weather=0) if colour == "yellow" else card(colour, mp)
    race = catalog.race_deck()
    check = next(  # check factor 60: passes against 65, would fail against a target of 50
        cid
        for cid, c in sorted(race.items())
        if 55 <= c.check_factor < 65 and not c.flag and not c.weather and cid != played
    )
    spec = [{"name": "Blue", "seat": 0, "section": 16, "trajectory": "S16a", "hand": [played]}]
    state = begin(build("silverstone", spec, deck_top=[check]), 0)
    state, events = GAME.apply(state, StartTurn(seat=0, extreme=True))
    assert [e.data["ok"] for e in events if e.kind == "check"] == [True]
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[played]))
    return next(e.data["mp"] for e in events if e.kind == "move")


def test_silverstone_dual_colour_extreme_gives_orange_and_yellow_the_bonus_not_red():
    traj = catalog.track("silverstone").trajectory("S16a")
    assert (traj.kind, sorted(traj.colours), traj.target, traj.bonus) == (
        "extreme",
        ["orange", "yellow"],
        65,
        2,
    )
    assert _silverstone_extreme("orange", 2) == 4
    assert _silverstone_extreme("yellow", 2) == 4
    assert _silverstone_extreme("red", 3) == 3
