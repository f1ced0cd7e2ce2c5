"""Scenario tests: crash cards, submissions, flags, scoring rules and every mode."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction, NotYourTurn
from rules.pitformula import GAME, answers, catalog, missing_repairs, slot_of, super_race
from rules.pitformula.engine import flag_values
from rules.pitformula.state import DISCARDED, ON_TABLE, OUT_OF_PLAY
from tests.pitformula.pf_helpers import (
    Clear,
    Fix,
    Go,
    Retire,
    Reveal,
    TakeFlag,
    TimeUp,
    act,
    fix,
    flag,
    new,
    repair,
    repair_tyres,
    set_card,
    start,
    token,
)


def four_tyres(state, seat, numbers=((2, 5), (9, 4), (1, 2), (3, 4))):
    """Give the seat's car four known tyre cards."""
    car = next(i for i, c in enumerate(state.cars) if seat in c.seats)
    for slot, nums in zip(("t1", "t2", "t3", "t4"), numbers, strict=True):
        set_card(state, car, slot, "tyre", nums)


SUMS = (["T7"], ["T1", "T3"], ["T1"], ["T7"])  # (2,5) (9,4) (1,2) (3,4) added up
DIFFS = (["T3"], ["T5"], ["T1"], ["T1"])  # and subtracted


def fix_tyres(state, seat, good=True, faces=SUMS, at_ms=1000):
    """Repair the four tyres (2,5) (9,4) (1,2) (3,4): right, or t1 wrong."""
    for slot, f in zip(("t1", "t2", "t3", "t4"), faces, strict=True):
        state = fix(state, seat, slot, f if good or slot != "t1" else ["T8"], at_ms)
    return state


def scored(state, n=-1):
    return state.results[n]


# --- crash cards (source: '1. Drawing a crash card') ----------------------------------------


def test_sudden_rain_all_players_repair_four_tyres():
    state = start(new(), "sudden-rain")
    assert state.phase == "repair" and state.race.crash == "sudden-rain"
    for car in state.cars:
        assert car.group == "all"
        assert car.required.model_dump() == {"tyre": 4, "wing": 0, "gas": 0, "engine": 0}


def test_smoke_leader_differs_with_tied_leaders():
    state = new()
    for car, pts in zip(state.cars, (10, 10, 4, 7), strict=True):
        car.score = pts
    state = start(state, "smoke")
    leader = {"tyre": 0, "wing": 0, "gas": 1, "engine": 1}
    other = {"tyre": 2, "wing": 0, "gas": 1, "engine": 0}
    assert [c.required.model_dump() for c in state.cars] == [leader, leader, other, other]


def test_safety_car_last_place_differs_with_tied_lasts():
    state = new()
    for car, pts in zip(state.cars, (10, 3, 3, 7), strict=True):
        car.score = pts
    state = start(state, "safety-car")
    last = {"tyre": 4, "wing": 0, "gas": 0, "engine": 0}
    other = {"tyre": 0, "wing": 1, "gas": 1, "engine": 0}
    assert [c.required.model_dump() for c in state.cars] == [other, last, last, other]


def test_first_race_everyone_is_leader_and_last():
    state = start(new(), "smoke")
    assert all(c.group == "special" for c in state.cars)


def test_only_the_starter_draws_and_the_winner_starts_next():
    state = new()
    others = [s for s in range(4) if s not in state.cars[state.starter].seats]
    with pytest.raises(NotYourTurn):
        GAME.apply(state, Go(seat=others[0]))
    state = new()
    state.starter = 0
    four_tyres(state, 2)
    state = start(state, "sudden-rain")
    state = fix_tyres(state, 2)
    state = flag(state, 2)
    state = act(state, *(Retire(seat=s) for s in (0, 1, 3)))
    assert scored(state).winner == 2
    assert state.starter == 2 and GAME.to_act(state) == [2]


# --- submissions ------------------------------------------------------------------------------


def test_submission_takes_tokens_at_once_and_checks_only_presence_and_type():
    state = new()
    four_tyres(state, 0)
    state = start(state, "sudden-rain")
    with pytest.raises(IllegalAction, match="Turn t1 over"):
        GAME.apply(state, Fix(seat=0, card="t1", tokens=[token(state, "T7")]))
    state = act(state, Reveal(seat=0, cards=["t1", "t2"], at_ms=100))
    t8 = token(state, "T8")
    before = state.model_dump_json()
    new_state, _ = GAME.apply(state, Fix(seat=0, card="t1", tokens=[t8], at_ms=900))
    assert state.model_dump_json() == before  # the input is never mutated
    state = new_state  # a wrong sum is accepted now and judged at scoring
    assert state.where[slot_of(t8)] == 0
    state = act(state, Reveal(seat=1, cards=["t1"]))
    with pytest.raises(IllegalAction, match="no longer on the table"):
        GAME.apply(state, Fix(seat=1, card="t1", tokens=[t8]))
    with pytest.raises(IllegalAction, match="already has tokens"):
        GAME.apply(state, Fix(seat=0, card="t1", tokens=[token(state, "T7")]))
    with pytest.raises(IllegalAction, match="gas token"):
        GAME.apply(state, Fix(seat=0, card="t2", tokens=[token(state, "G5")]))
    with pytest.raises(IllegalAction, match="same token twice"):
        t1 = token(state, "T1")
        GAME.apply(state, Fix(seat=0, card="t2", tokens=[t1, t1]))
    with pytest.raises(IllegalAction, match="1 or 2 tokens"):
        GAME.apply(state, Fix(seat=0, card="t2", tokens=[token(state, "T1", i) for i in range(3)]))
    with pytest.raises(IllegalAction, match="not a token"):
        GAME.apply(state, Fix(seat=0, card="t2", tokens=["q9"]))
    state = act(state, Clear(seat=0, card="t1"))
    assert state.where[slot_of(t8)] == -1


def test_wing_gas_engine_take_exactly_two_tokens():
    state = start(new(), "armageddon")
    state = act(state, Reveal(seat=0, cards=["w", "g", "e"]))
    for card, letter in (("w", "W"), ("g", "G"), ("e", "E")):
        with pytest.raises(IllegalAction, match="exactly 2"):
            GAME.apply(state, Fix(seat=0, card=card, tokens=[token(state, f"{letter}1")]))


# --- scoring (source: '3. Counting the score for the race') ---------------------------------


def test_clean_race_trophy_values_for_all_flags_and_part_points():
    state = start(new(), "sudden-rain", trophy="TR11")  # 5 / 3 / 2
    for s in (0, 1, 2):
        state = repair_tyres(state, s)
    state = flag(state, 1)
    state = flag(state, 0)
    state = flag(state, 2)
    r = scored(state)
    assert r.trophy == "TR11" and r.winner == 1 and r.flag_values == [5, 3, 2]
    pts = {c.car: c for c in r.cars}
    assert (pts[1].flag, pts[1].flag_points, pts[1].part_points, pts[1].points) == (0, 5, 4, 9)
    assert (pts[0].flag, pts[0].points) == (1, 3 + 4)
    assert (pts[2].flag, pts[2].points) == (2, 2 + 4)
    assert (pts[3].flag, pts[3].points) == (None, 0)
    assert [c.score for c in state.cars] == [7, 9, 6, 0]
    assert state.cars[1].trophies == ["TR11"]


def test_flag_passing_with_a_chain_of_errors():
    state = start(new(), "sudden-rain", trophy="TR11")
    state = repair_tyres(state, 0, wrong=("t1",))  # will take gold, with an error
    state = repair_tyres(state, 1, wrong=("t4",))  # silver, with an error
    state = repair_tyres(state, 2)  # bronze, all right
    for slot in ("t1", "t2", "t4"):
        state = repair(state, 3, slot)
    state = repair(state, 3, "t3", spares=1)  # all right, but no flag taken
    state = flag(state, 0)
    state = flag(state, 1)
    state = flag(state, 2)
    r = scored(state)
    by = {c.car: c for c in r.cars}
    # gold (0) errs and passes it to 1, who errs too: 2 gets gold, and silver goes to 3
    assert by[0].penalized and by[0].flag is None and by[0].errors == ["t1"]
    assert by[1].penalized and by[1].flag is None and by[1].errors == ["t4"]
    assert by[2].flag == 0 and by[3].flag == 1
    assert r.unscored_flags == [2]  # the bronze flag returns to the centre
    assert r.winner == 2
    assert by[0].points == 3  # penalised players still score their correct parts
    assert by[2].points == 5 + 4
    assert by[3].points == 3 + 4 - 1  # one spare part: -1


def test_penalised_player_never_receives_a_new_flag_and_unclaimable_flag_is_unscored():
    # NEVER_RULE and NOBODY_RULE: seat 2 took no flag but repaired t1 wrongly, a mistake
    state = start(new({"players": 3}), "sudden-rain", trophy="TR11")
    state = repair_tyres(state, 0, wrong=("t2",))
    state = repair_tyres(state, 1)
    state = repair(state, 2, "t1", wrong=True)
    state = flag(state, 0)
    state = flag(state, 1)
    r = scored(state)
    by = {c.car: c for c in r.cars}
    assert by[1].flag == 0 and by[0].flag is None and by[2].flag is None
    assert r.unscored_flags == [1]
    assert by[1].flag_points == 5


def test_flag_nobody_can_take_returns_unscored_and_no_trophy():
    # NOBODY_RULE: the opponent, who would be next, made a mistake (NEVER_RULE)
    state = new({"players": 2})
    four_tyres(state, 0)
    state = start(state, "sudden-rain")
    stack = list(state.trophy_stack)
    state = repair(state, 1, "t1", wrong=True)
    state = fix(state, 0, "t1", ["T7"])  # only one tyre of four: taking the flag is an error
    state = flag(state, 0)
    r = scored(state)
    assert r.winner is None and r.unscored_flags == [0] and r.trophy is None
    assert r.cars[0].penalized and r.cars[0].missing == {"tyre": 3}
    assert r.cars[1].flag is None and r.cars[1].errors == ["t1"]
    assert r.cars[0].points == 1  # still a point for the correct tyre
    assert state.trophy_stack == stack


def test_a_retired_player_never_receives_a_flag():
    # Paddock rule (the rulebook has no retiring): `retire` stops a crew for the race, and a
    # crew that stopped receives no flag, so here the gold flag scores nothing
    state = new({"players": 2})
    four_tyres(state, 0)
    state = start(state, "sudden-rain")
    state = act(state, Retire(seat=1))
    state = fix(state, 0, "t1", ["T7"])
    state = flag(state, 0)
    r = scored(state)
    assert r.winner is None and r.unscored_flags == [0] and r.cars[1].flag is None


# --- passing a lost flag (source: '3. Counting the score for the race') ----------------------

PASS_RULE = (
    "If there is any mistake (marked with the error symbol, a boxed X), the player who made it"
    " is penalized and loses his flag marker, which must be passed to the player in the next"
    " place."
)
EMPTY_RULE = (
    "Cards left empty are not considered wrong. However, if an empty card is one of the crash"
    " card requirements, and the player mistakenly took a flag marker, it is considered an error."
)
NEVER_RULE = "If a player has been penalized he must never receive a new marker."
NOBODY_RULE = (
    "If the marker cannot be given to anyone, it returns to the center of the table and no one"
    " scores points for it."
)


def test_two_players_a_gold_flag_taken_with_nothing_repaired_passes_to_the_opponent():
    # PASS_RULE and EMPTY_RULE: the leader grabs the only flag at once, which is an error; the
    # opponent made no mistake (their empty cards are not wrong) and is in the next place
    state = start(new({"players": 2}), "sudden-rain", trophy="TR05")  # gold 3
    state = flag(state, 0)
    r = scored(state)
    by = {c.car: c for c in r.cars}
    assert by[0].penalized and by[0].flag is None and by[0].missing == {"tyre": 4}
    assert by[1].flag == 0 and not by[1].penalized and by[1].missing == {"tyre": 4}
    assert r.winner == 1 and r.trophy == "TR05" and r.unscored_flags == []
    assert by[1].flag_points == 3 and by[1].points == 3 and by[0].points == 0
    assert state.cars[1].trophies == ["TR05"] and state.starter == 1


def test_pit_crew_a_gold_flag_taken_with_nothing_repaired_passes_to_the_other_car():
    # the doubles game is a 2-car game with one flag: PASS_RULE as with two players
    state = start(new({"mode": "pitcrew", "players": 4}), "sudden-rain", trophy="TR05")
    state = flag(state, 1)  # car 0's second seat takes gold with nothing repaired
    r = scored(state)
    assert r.winner == 1 and r.cars[1].flag == 0 and r.cars[0].penalized
    assert state.cars[1].trophies == ["TR05"] and GAME.to_act(state) == [2, 3]


def test_a_flag_passes_to_a_player_without_a_flag_who_made_no_mistake():
    # PASS_RULE and EMPTY_RULE: gold errs, silver moves up, and silver goes to the third player,
    # who took no flag and left required cards empty, but made no mistake
    state = start(new({"players": 3}), "sudden-rain", trophy="TR11")  # 5 / 3 / 2
    state = repair_tyres(state, 0, wrong=("t2",))
    state = repair_tyres(state, 1)
    state = repair(state, 2, "t1")
    state = flag(state, 0)
    state = flag(state, 1)
    r = scored(state)
    by = {c.car: c for c in r.cars}
    assert by[0].flag is None and by[1].flag == 0 and by[2].flag == 1
    assert r.unscored_flags == [] and by[2].missing == {"tyre": 3}
    assert by[2].flag_points == 3 and by[2].points == 3 + 1


def test_spare_part_penalties_and_never_negative():
    state = new({"players": 2})
    four_tyres(state, 0)
    state = start(state, "sudden-rain", trophy="TR01")
    state = fix(state, 0, "t1", ["spare"])
    state = fix(state, 0, "t2", ["spare", "spare"])
    state = fix(state, 0, "t3", ["T1"])
    state = fix(state, 0, "t4", ["T7"])
    state = repair(state, 1, "t1", spares=1)
    state = repair(state, 1, "t2", spares=1)
    state = repair(state, 1, "t3", spares=1)
    state = repair(state, 1, "t4", spares=1)
    state = repair(state, 1, "g", spares=1)
    assert state.race.spares_left == 0  # 8 per race
    with pytest.raises(IllegalAction, match="Only 0 spare parts left"):
        fix(state, 1, "w", ["W1", "spare"])
    state = flag(state, 0)
    r = scored(state)
    a, b = r.cars
    assert (a.flag, a.flag_points, a.part_points) == (0, 1, 4)
    assert (a.spares, a.spare_penalty, a.points) == (3, 1 + 2 + 3, 0)  # -1 would be negative
    assert (b.spares, b.spare_penalty, b.part_points, b.points) == (5, 15, 6, 0)
    assert state.race.spares_left == 8  # a new race has 8 again


def test_spare_part_penalty_is_deducted():
    state = new({"players": 2})
    four_tyres(state, 0)
    state = start(state, "sudden-rain", trophy="TR12")
    state = fix(state, 0, "t1", ["T7"])
    state = fix(state, 0, "t2", ["spare", "T3"])
    state = fix(state, 0, "t3", ["spare"])
    state = fix(state, 0, "t4", ["T7"])
    state = flag(state, 0)
    assert scored(state).cars[0].points == 6 + 4 - (1 + 2)


def test_extra_parts_score_and_empty_extra_cards_are_not_errors():
    state = new({"players": 3})
    four_tyres(state, 0)
    set_card(state, 0, "e", "engine", (3, 9))
    state = start(state, "sudden-rain", trophy="TR01")
    state = fix_tyres(state, 0)
    state = fix(state, 0, "e", ["E2", "E7"])
    state = act(state, Reveal(seat=0, cards=["w"]))  # turned over, left empty: no penalty
    state = flag(state, 0)
    with pytest.raises(IllegalAction, match="taken a flag"):  # no more moves after the flag
        GAME.apply(state, Reveal(seat=0, cards=["g"]))
    state = act(state, Retire(seat=1), Retire(seat=2))
    r = scored(state, 0)
    assert r.cars[0].correct == ["t1", "t2", "t3", "t4", "e"] and not r.cars[0].errors
    assert r.cars[0].points == 1 + 4 + 2


def test_super_crash_gold_gets_three_more_and_comes_in_the_last_race():
    state = new({"players": 2, "races": 1})
    assert super_race(state)
    four_tyres(state, 0)
    state = start(state, "pile-up", trophy="TR01")
    assert state.race.super
    state = fix_tyres(state, 0)
    set_w = next(c for c in state.cars[0].cards if c.slot == "w")
    set_g = next(c for c in state.cars[0].cards if c.slot == "g")
    state = act(state, Reveal(seat=0, cards=["w", "g"]))
    wa, wb = catalog().part_cards[set_w.card].numbers
    ga, gb = catalog().part_cards[set_g.card].numbers
    state = fix(state, 0, "w", [f"W{d}" for d in answers("wing", wa, wb)[0]])
    state = fix(state, 0, "g", [f"G{d}" for d in answers("gas", ga, gb)[0]])
    state = flag(state, 0)
    r = scored(state)
    assert r.super and r.cars[0].super_bonus == 3
    assert r.cars[0].points == 1 + 3 + 4 + 2 + 2
    assert GAME.is_terminal(state)


@pytest.mark.parametrize(
    ("races", "supers"),
    [(5, [5]), (1, [1]), (3, [3]), (10, [9, 10]), (12, [11, 12])],
)
def test_super_crash_from_four_fifths(races, supers):
    state = new({"races": races})
    got = []
    for n in range(1, races + 1):
        state.race.number = n
        if super_race(state):
            got.append(n)
    assert got == supers


def test_trophies_break_ties_then_shared_wins():
    state = new()
    state.phase = "over"
    for car, (pts, tr) in zip(state.cars, [(20, 1), (20, 2), (20, 2), (5, 0)], strict=True):
        car.score = pts
        car.trophies = [f"TR{i:02d}" for i in range(1, tr + 1)]
    places = {p.seat: p.place for p in GAME.classification(state)}
    assert places == {1: 1, 2: 1, 0: 3, 3: 4}


# --- modes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "flags", "standard"),
    [
        ({"players": 2}, 1, [3]),
        ({"players": 3}, 2, [4, 2]),
        ({"players": 4}, 3, [5, 3, 2]),
        ({"mode": "pitcrew", "players": 4}, 1, [3]),
        ({"mode": "constructors", "players": 4}, 3, [5, 3, 2]),
        ({"mode": "solo", "players": 1}, 1, [3]),
        ({"mode": "coop", "players": 2}, 1, [3]),
    ],
)
def test_flag_count_and_standard_score_per_mode(config, flags, standard):
    state = start(new({**config, "standard_score": True}), "sudden-rain")
    assert state.race.flags == flags
    assert flag_values(state, "TR12") == standard
    plain = start(new(config), "sudden-rain")
    assert flag_values(plain, "TR12") == [6, 3, 1]


def test_standard_score_race_still_gives_the_trophy():
    state = start(new({"players": 3, "standard_score": True}), "sudden-rain", trophy="TR01")
    state = repair_tyres(state, 2)
    state = repair_tyres(state, 1)
    state = flag(state, 2)
    state = flag(state, 1)
    r = scored(state)
    assert r.flag_values == [4, 2]
    assert [c.points for c in r.cars] == [0, 2 + 4, 4 + 4]
    assert state.cars[2].trophies == ["TR01"]


def test_basic_game_has_no_engines():
    state = new({"basic": True})
    assert all(len(c.cards) == 6 and all(cs.slot != "e" for cs in c.cards) for c in state.cars)
    out = [s for s, w in enumerate(state.where) if w == OUT_OF_PLAY]
    assert len(out) == 10 and all(state.faces[s][0] == "E" for s in out)
    assert "engine" not in state.decks
    for deck in ("crash", "super"):
        assert not any(catalog().crash_cards[c].uses_engine() for c in state.decks[deck])
    state = start(state, "sudden-rain")
    with pytest.raises(IllegalAction, match="no engines"):
        GAME.apply(state, Reveal(seat=0, cards=["e"]))


def test_points_championship_ends_at_40_and_supers_from_30():
    state = new({"players": 2, "points_target": 40})
    assert len(state.trophy_stack) == 12
    state.cars[0].score = 29
    assert not super_race(state)
    state.cars[0].score = 30
    assert super_race(state)
    state.cars[0].score = 36
    four_tyres(state, 0)
    state = start(state, "pile-up", trophy="TR01")
    state = fix_tyres(state, 0)
    state = flag(state, 0)  # 4 + 1 + 3 = 8 (wing and gas missing: error, flag lost)
    assert state.cars[0].score == 40 and GAME.is_terminal(state)


def test_longer_championship_uses_one_trophy_per_race():
    assert len(new({"races": 9}).trophy_stack) == 9
    with pytest.raises(ValueError):
        new({"races": 13})


def test_pit_crew_two_seats_share_a_car():
    state = new({"mode": "pitcrew", "players": 4})
    assert [c.seats for c in state.cars] == [[0, 1], [2, 3]]
    four_tyres(state, 0)
    state = start(state, "sudden-rain", trophy="TR01")
    state = fix(state, 0, "t1", ["T7"])
    state = fix(state, 1, "t2", ["T5"])
    state = fix(state, 0, "t3", ["T1"])
    state = fix(state, 1, "t4", ["T7"])
    assert missing_repairs(state.cars[0]) == {}
    state = flag(state, 1)
    assert scored(state).winner == 0
    assert GAME.to_act(state) == [0, 1]  # the car's crew draws the next crash card


def test_constructors_team_points_and_classification():
    state = new({"mode": "constructors", "players": 4})
    assert state.settings.teams == [[0, 1], [2, 3]]
    state.phase = "over"
    for car, pts in zip(state.cars, (10, 12, 15, 5), strict=True):
        car.score = pts
    assert GAME.public_view(state)["scores"] == [22, 20]
    places = {p.seat: p.place for p in GAME.classification(state)}
    assert places == {0: 1, 1: 1, 2: 2, 3: 2}


def test_constructors_leader_is_by_team_points():
    state = new({"mode": "constructors", "players": 4})
    for car, pts in zip(state.cars, (1, 12, 10, 2), strict=True):
        car.score = pts
    state = start(state, "smoke")
    assert [c.group for c in state.cars] == ["special", "special", "others", "others"]


# --- solo and cooperative (source: 'Solo Rules') ---------------------------------------------


def test_solo_scoring_example_from_the_rulebook():
    state = new({"mode": "solo", "players": 1})
    four_tyres(state, 0)
    state = start(state, "sudden-rain", trophy="TR01")  # a trophy worth 1 point
    assert state.race.deadline_ms == 40_000
    state = fix_tyres(state, 0)
    state = flag(state, 0, at_ms=30_000)
    r = scored(state)
    assert r.winner == 0 and r.trophy == "TR01" and not r.rival.won
    assert r.cars[0].points == 5  # 1 for the trophy + 4 tyres: "advances 5 spaces"
    assert r.rival.unrepaired_points == 6 and r.rival.points == 6  # wing, gas, engine
    assert state.cars[0].score == 5 and state.rival_score == 6
    assert state.cars[0].trophies == ["TR01"]


def test_solo_time_up_rival_wins_trophy_and_super_bonus():
    state = new({"mode": "solo", "players": 1, "races": 1})
    four_tyres(state, 0)
    state = start(state, "armageddon", trophy="TR12")
    state = fix(state, 0, "t1", ["T7"])
    state = fix(state, 0, "t2", ["T8"])  # wrong
    with pytest.raises(IllegalAction, match="has not run out"):
        GAME.apply(state, TimeUp(seat=0, at_ms=39_999))
    with pytest.raises(IllegalAction, match="has run out"):
        GAME.apply(state, TakeFlag(seat=0, at_ms=40_001))
    state = act(state, TimeUp(seat=0, at_ms=40_000))
    r = scored(state)
    assert r.rival.won and r.winner is None
    assert r.rival.trophy_points == 6 and r.rival.super_bonus == 3
    assert r.rival.unrepaired_points == 2 * 1 + 3 * 2  # t3 t4, wing, gas, engine
    assert r.rival.error_points == 1  # the rookie does not double
    assert r.cars[0].points == 1  # the right tyre still scores
    assert state.rival_trophies == ["TR12"]
    assert [p.place for p in GAME.classification(state)] == [2]


def test_solo_wrong_part_loses_round_and_veteran_doubles_error_points():
    state = new({"mode": "solo", "players": 1, "rival": "veteran"})
    four_tyres(state, 0)
    state = start(state, "sudden-rain", trophy="TR01")
    assert state.race.deadline_ms == 30_000
    state = fix_tyres(state, 0, good=False)
    state = flag(state, 0)
    r = scored(state)
    assert r.rival.won and r.rival.error_points == 2 and r.rival.trophy_points == 1
    assert r.rival.points == 1 + 2 + 6


def test_solo_tie_goes_to_the_rival():
    state = new({"mode": "solo", "players": 1})
    state.phase = "over"
    state.cars[0].score = state.rival_score = 17
    assert [p.place for p in GAME.classification(state)] == [2]
    state.cars[0].score = 18
    assert [p.place for p in GAME.classification(state)] == [1]


def test_solo_player_is_always_the_leader():
    state = new({"mode": "solo", "players": 1})
    state.rival_score = 30
    assert start(state, "smoke").cars[0].group == "special"
    assert start(state, "safety-car").cars[0].group == "others"


def test_solo_used_tokens_go_to_a_discard_pile_refilled_by_the_rival_card():
    state = new({"mode": "solo", "players": 1})  # the Rookie: 1 round without refill
    four_tyres(state, 0)
    state = start(state, "sudden-rain")
    t7 = token(state, "T7")
    state = fix_tyres(state, 0)
    state = flag(state, 0)
    assert state.where.count(DISCARDED) == 5  # race 2 starts without them
    state = start(state, "sudden-rain")
    state = act(state, Reveal(seat=0, cards=["t1"]))
    with pytest.raises(IllegalAction, match="no longer on the table"):
        GAME.apply(state, Fix(seat=0, card="t1", tokens=[t7]))
    state = act(state, Retire(seat=0))
    assert state.where.count(DISCARDED) == 0  # race 3 starts with them back
    assert state.where.count(ON_TABLE) == 70
    state = start(state, "sudden-rain")
    state = act(state, Reveal(seat=0, cards=["t1"]))
    state = act(state, Fix(seat=0, card="t1", tokens=[t7]), Retire(seat=0))
    assert state.where.count(DISCARDED) == 1  # and race 4 without


def test_coop_halves_the_stopwatch_and_two_seats_play_one_car():
    state = new({"mode": "coop", "players": 2})
    assert [c.seats for c in state.cars] == [[0, 1]]
    state = start(state, "sudden-rain")
    assert state.race.deadline_ms == 20_000
    assert GAME.to_act(state) == [0, 1]


def test_views_hide_face_down_cards_and_decks():
    state = start(new(), "sudden-rain")
    state = act(state, Reveal(seat=1, cards=["t1"]))
    view = GAME.public_view(state)
    assert "decks" not in view and "trophy_stack" not in view and "rng" not in view
    car1 = view["cars"][1]["cards"]
    assert "numbers" in car1[0] and all("numbers" not in c for c in car1[1:])
    mine = GAME.seat_view(state, 1)["you"]
    assert mine["car"] == 1 and mine["missing"] == {"tyre": 4}
    assert "numbers" in mine["cards"][0] and "numbers" not in mine["cards"][1]
    text = str(view)
    for car in state.cars:
        for cs in car.cards[1:]:
            assert cs.card not in text
