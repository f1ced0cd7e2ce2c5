"""Coverage of rules the other RF90 tests leave open: Lucky and Consistency, the Versatility and
Pitting skills, robot fuel tokens, the finish order, the FAS cases that tell the FAS rules apart
from a plain activation in starting order, and many fixed-seed robot races.

Sources: HTP = rf90-how-to-play-2nd-edition.txt, EXP = rf90-expansion2-barcelona-silverstone.txt,
public = public-facts.md; "Paddock rule" = docs/rules/rf90.md where the sources are silent.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from rules.base import Event, Placing
from rules.errors import IllegalAction
from rules.rf90 import (
    GAME,
    ROBOT_SEAT,
    EndTurn,
    PitStop,
    PlayCards,
    RobotTurn,
    StartTurn,
    catalog,
    target_check,
)
from rules.rf90.engine import Ctx
from rules.rf90.scenario import advance, begin, build
from rules.rf90.state import Car, RF90State, RobotToken
from tests.rf90.rf90_helpers import check_invariants

RACE = catalog.race_deck()
BARCELONA = catalog.track("barcelona")


def _cf(colour: str, mp: int, check_factor: int) -> int:
    """The Race card of this colour and MP with this check factor (no weather or flag symbol)."""
    return next(
        cid
        for cid, c in sorted(RACE.items())
        if (c.colour, c.mp, c.check_factor) == (colour, mp, check_factor)
        and not c.weather
        and not c.flag
    )


QUAL = _cf("yellow", 2, 56)  # qualification card on the dashboard: target check 56
GREEN3 = _cf("green", 3, 34)  # +3, no tyres, a blind check
Y1 = _cf("yellow", 1, 89)
Y2 = _cf("yellow", 2, 31)
O2 = _cf("orange", 2, 34)
DRAW_Y1 = _cf("yellow", 1, 27)  # a neutral phase B draw (+1)
DRAW_O2 = _cf("orange", 2, 71)  # a phase B draw of +2 (another colour than Y2)
DRAW_R4 = _cf("red", 4, 38)
FAIL_56 = _cf("orange", 1, 56)  # 56 is not below 56: fails against target 56
PASS_10 = _cf("red", 3, 10)
CHECK_60 = _cf("orange", 3, 60)  # fails against 56, passes against 66


def _player(seat: int, section: int, hand: list[int], **extra: Any) -> dict[str, Any]:
    return {"name": f"P{seat}", "seat": seat, "section": section, "hand": hand, **extra}


def _track_cards(car: Car) -> int:
    return sum(1 for c in car.hand if c > catalog.TRACK_CARD_BASE)


def _one_turn(
    spec: list[dict[str, Any]], deck_top: list[int], play: list[int], **start: Any
) -> tuple[RF90State, list[Event]]:
    """Car 0 (a player) plays phase A (StartTurn with `start`) and phases B-D with `play`.

    Section 13 and 5 are not curves: a failed green check there does not run wide."""
    state = begin(build("barcelona", spec, deck_top=deck_top), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0, **start))
    assert state.pending is not None and state.pending.drawn == deck_top[:1]
    return GAME.apply(state, PlayCards(seat=0, cards=play))


def _robots_until(state: RF90State, last_turn: int) -> tuple[RF90State, list[Event]]:
    """Robot-only race: the automatic steps, then RobotTurn actions until `last_turn` is over."""
    ctx = Ctx(state.model_copy(deep=True))
    GAME._advance(ctx)
    state, events = ctx.s, ctx.events
    while state.robot_next is not None and state.turn <= last_turn:
        state, more = GAME.apply(state, RobotTurn(seat=ROBOT_SEAT, car=state.robot_next))
        events += more
    return state, events


def _turn_events(events: list[Event], turn: int) -> list[Event]:
    """The events of game turn `turn` (from its "turn" event, if there, to its "turn_end")."""
    start = next(
        (i for i, e in enumerate(events) if e.kind == "turn" and e.data["turn"] == turn), 0
    )
    end = next(i for i, e in enumerate(events) if e.kind == "turn_end" and e.data["turn"] == turn)
    return events[start:end]


def _movers(events: list[Event]) -> list[int]:
    return [e.data["car"] for e in events if e.kind == "move"]


# --- Lucky (public: named, "drawing pairs earns Track cards"; details Paddock rule) -------------


@pytest.mark.parametrize(
    ("strategy", "ok", "mp", "section", "revealed"),
    [
        ("lucky", True, 3, 16, [FAIL_56, PASS_10]),  # the second card passes: the +3 counts
        (None, False, 0, 13, [FAIL_56]),  # one card only: the green card gives no MP
    ],
)
def test_lucky_bonus_checks_a_second_card_when_a_blind_check_fails(
    strategy: str | None, ok: bool, mp: int, section: int, revealed: list[int]
) -> None:
    spec = [_player(0, 13, [GREEN3], qual_card=QUAL, strategy=strategy)]
    state, events = _one_turn(spec, [DRAW_Y1, FAIL_56, PASS_10], [GREEN3])
    car = state.cars[0]
    assert [e.data["ok"] for e in events if e.kind == "check"] == [ok]
    assert state.race_discard == [*revealed, GREEN3]
    if not ok:
        assert state.race_draw[-1] == PASS_10  # the second card stays on the deck
    assert (car.last_mp, car.section) == (mp, section)
    assert _track_cards(car) == 0  # the +1 drawn does not match the +3 played: no special


@pytest.mark.parametrize(
    ("strategy", "drawn", "track_cards"),
    [
        ("lucky", DRAW_O2, 1),  # orange +2 drawn, yellow +2 played: same MP
        ("lucky", DRAW_Y1, 0),  # +1 drawn, +2 played
        (None, DRAW_O2, 0),  # same MP, but no Lucky strategy
    ],
)
def test_lucky_special_when_the_phase_b_draw_matches_a_played_card(
    strategy: str | None, drawn: int, track_cards: int
) -> None:
    state, events = _one_turn([_player(0, 5, [Y2], strategy=strategy)], [drawn], [Y2])
    car = state.cars[0]
    assert _track_cards(car) == track_cards
    assert sum("Lucky special" in e.text for e in events) == track_cards
    assert car.hand == [drawn] + [c for c in car.hand if c > catalog.TRACK_CARD_BASE]


# --- Consistency (Paddock rule: target check +10; Track card for two cards of one colour) ------


@pytest.mark.parametrize(
    ("strategy", "target", "ok", "mp"),
    [("consistency", 66, True, 3), (None, 56, False, 0)],
)
def test_consistency_bonus_raises_the_target_check_by_ten(
    strategy: str | None, target: int, ok: bool, mp: int
) -> None:
    spec = [_player(0, 13, [GREEN3], qual_card=QUAL, strategy=strategy)]
    state = build("barcelona", spec)
    assert target_check(Ctx(state), state.cars[0]) == target
    # check factor 60: below 66, not below 56
    state, events = _one_turn(spec, [DRAW_Y1, CHECK_60], [GREEN3])
    assert [e.data["ok"] for e in events if e.kind == "check"] == [ok]
    assert (state.cars[0].last_mp, state.cars[0].section) == (mp, 13 + mp)


@pytest.mark.parametrize(
    ("play", "track_cards"),
    [
        ([Y1, Y2], 1),  # yellow +1 and yellow +2
        ([Y1, O2], 0),  # yellow and orange
        ([Y2], 0),  # a single card
    ],
)
def test_consistency_special_for_two_cards_of_one_colour(play: list[int], track_cards: int) -> None:
    spec = [_player(0, 5, [Y1, Y2, O2], strategy="consistency")]
    state, events = _one_turn(spec, [DRAW_R4], play)
    assert _track_cards(state.cars[0]) == track_cards
    assert sum("Consistency special" in e.text for e in events) == track_cards
    assert state.cars[0].last_mp == sum(RACE[c].mp for c in play)


# --- Versatility (public, first-edition skill: change strategy without pitting) ---------------


def test_versatility_changes_strategy_in_phase_a_and_the_turn_goes_on() -> None:
    spec = [_player(0, 5, [Y1, Y2], strategy="hazard", skill="versatility")]
    state = begin(build("barcelona", spec, deck_top=[DRAW_R4]), 0)
    state, events = GAME.apply(state, StartTurn(seat=0, new_strategy="consistency"))
    car = state.cars[0]
    assert car.strategy == "consistency" and car.mark is None
    assert state.pending is not None and state.pending.phase == "B"
    assert state.pending.drawn == [DRAW_R4]
    assert not any(e.kind == "skip" for e in events)
    # the new strategy already counts in this turn: Consistency special for two yellow cards
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[Y1, Y2]))
    car = state.cars[0]
    assert (car.last_mp, car.section) == (3, 8)
    assert _track_cards(car) == 1 and any("Consistency special" in e.text for e in events)


def test_without_versatility_a_strategy_change_needs_a_skip_or_a_pit_stop() -> None:
    # HTP, Tire Choice and Strategy Card: "only be changed with a pit stop or by losing a turn"
    spec = [_player(0, 5, [Y1, Y2], strategy="hazard")]
    state = begin(build("barcelona", spec, deck_top=[DRAW_R4]), 0)
    before = state.model_dump()
    with pytest.raises(IllegalAction, match="Change strategy by skipping the turn or in a pit"):
        GAME.apply(state, StartTurn(seat=0, new_strategy="consistency"))
    assert state.model_dump() == before
    assert state.cars[0].strategy == "hazard" and state.pending.phase == "A"


# --- Pitting (public, first-edition skill: 2 fewer sections lost, 2 Track cards per stop) -----


@pytest.mark.parametrize(("skill", "back", "track_cards"), [("pitting", 5, 2), (None, 7, 0)])
def test_pitting_skill_loses_two_sections_less_and_draws_two_track_cards(
    skill: str | None, back: int, track_cards: int
) -> None:
    assert BARCELONA.pit_sections == 7  # EXP: 7 sections at Barcelona
    spec = [
        _player(0, 12, [], skill=skill, fuel_turn=10),
        {"name": "Robot 7", "robot": "slow", "section": 7, "mark": "ended"},
        {"name": "Robot 5", "robot": "slow", "section": 5, "mark": "ended"},
    ]
    state = begin(build("barcelona", spec, turn=10), 0)
    # intermediate tyres: no hard-tyre Track card, so every Track card comes from the skill
    state, events = GAME.apply(state, StartTurn(seat=0, pit=PitStop(tyres="intermediate")))
    car = state.cars[0]
    target = 12 - back
    robot = 1 if target == 7 else 2
    assert car.section == target and state.sections[target] == [robot, 0]  # behind the robot
    assert _track_cards(car) == track_cards
    assert len(car.hand) - track_cards == 6 + 1  # hand refilled to 6, then the phase B draw
    assert (car.pit_stops, car.fuel_turn) == (1, 20)
    assert [e.kind for e in events].count("pit") == 1


@pytest.mark.parametrize(
    ("skill", "full", "capacity", "lands"), [("pitting", 7, 3, 6), (None, 5, 4, 4)]
)
def test_a_pit_stop_into_a_full_section_goes_further_back(
    skill: str | None, full: int, capacity: int, lands: int
) -> None:
    # Paddock rule (docs, phase A): behind every car in the section, further back if full
    assert BARCELONA.sections[full].capacity == capacity
    spec = [_player(0, 12, [], skill=skill, fuel_turn=10)]
    spec += [{"name": f"R{i}", "robot": "slow", "section": full} for i in range(capacity)]
    state = begin(build("barcelona", spec, turn=10), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0, pit=PitStop(tyres="hard")))
    assert state.cars[0].section == lands and state.sections[lands] == [0]
    assert state.sections[full] == list(range(1, capacity + 1))


# --- Robot fuel tokens (HTP, Fuel Management) ---------------------------------------------------


def test_the_best_placed_robot_of_the_token_type_pits_once_and_never_again() -> None:
    # HTP: "the robot of that type in the best position on the track must stop to refuel on that
    # turn. Once this requirement is met, the robot will not stop again for refuelling".
    # No robot starts a turn in a curve with an off-track trajectory (3, 10, 12, 17, 20) unless
    # it pits there: no running-wide draw can change the positions.
    spec = [
        {"name": "Slow back", "robot": "slow", "section": 5, "lap": 1, "mark": "ended"},
        {"name": "Slow front", "robot": "slow", "section": 22, "lap": 1, "mark": "ended"},
        {"name": "Fast", "robot": "fast", "section": 14, "lap": 1, "mark": "ended"},
    ]
    state = build("barcelona", spec, turn=11)
    state.robot_tokens = [
        RobotToken(robot="slow", value=1, check=70, turn=12),
        RobotToken(robot="slow", value=2, check=80, turn=14),
        RobotToken(robot="slow", value=1, check=55, turn=15),
    ]
    # turn 12: the front Slow robot (car 1) pits: 22 - 7 = 15, then 3 MP to 18
    state, events = _robots_until(state, 12)
    t12 = _turn_events(events, 12)
    assert [e.data["car"] for e in t12 if e.kind == "pit"] == [1]
    assert _movers(t12) == [1, 2, 0]
    front, back = state.cars[1], state.cars[0]
    assert (front.section, front.pit_stops, front.robot_pitted) == (18, 1, True)
    assert (back.section, back.pit_stops, back.robot_pit_due) == (8, 0, False)  # 5 + 3
    assert state.cars[2].pit_stops == 0
    assert [t.done for t in state.robot_tokens] == [True, False, False]
    # turn 13: no token; car 1 moves 3 + 1 (B18a) to 22, car 0 3 + 1 (B8a) to 12
    state, events = _robots_until(state, 13)
    assert not any(e.kind == "pit" for e in _turn_events(events, 13))
    assert (state.cars[1].section, state.cars[0].section) == (22, 12)
    # turn 14: car 1 is still the better placed but has pitted: the token goes to car 0,
    # 12 - 7 = 5, then 3 MP to 8
    state, events = _robots_until(state, 14)
    t14 = _turn_events(events, 14)
    assert [e.data["car"] for e in t14 if e.kind == "pit"] == [0]
    assert (state.cars[0].section, state.cars[0].pit_stops) == (8, 1)
    assert state.cars[1].pit_stops == 1
    # turn 15: both Slow robots have pitted: the token is discarded and nobody stops
    state, events = _robots_until(state, 15)
    assert not any(e.kind == "pit" for e in _turn_events(events, 15))
    assert [c.pit_stops for c in state.cars] == [1, 1, 0]
    assert all(t.done for t in state.robot_tokens)


# --- Finish order (HTP, Game Objective) ---------------------------------------------------------


def test_the_race_ends_on_the_last_turn_and_the_order_in_a_section_decides() -> None:
    # HTP: "If multiple cars finish in the same section, their order within that specific section
    # determines the winner." The leader is the car with most laps, then the furthest section.
    assert BARCELONA.race_turns == 27
    spec = [
        {"name": "Lapped", "robot": "slow", "section": 23, "lap": 1, "mark": "ended"},
        _player(0, 21, [Y2], lap=2),  # car 1: +2 to section 23, arrives second
        _player(1, 22, [Y1], lap=2),  # car 2: +1 to section 23, arrives first
        {"name": "Leader", "robot": "fast", "section": 1, "lap": 3, "mark": "ended"},
    ]
    state, _ = advance(GAME, build("barcelona", spec, turn=27))
    for seat, cid, card in ((1, 2, Y1), (0, 1, Y2)):  # car 2 plays first: it is further ahead
        assert state.pending is not None and state.pending.car == cid
        state, _ = GAME.apply(state, StartTurn(seat=seat))
        state, _ = GAME.apply(state, PlayCards(seat=seat, cards=[card]))
        state, events = GAME.apply(state, EndTurn(seat=seat))
    assert state.phase == "finished" and state.turn == 27 and GAME.is_terminal(state)
    assert state.sections[23] == [0, 2, 1]  # the lapped car in front, then by arrival
    # lap 3 in section 1 beats lap 2 in section 23; in section 23 car 2 is in front of car 1;
    # the lapped car (lap 1), although first in section 23, is last
    assert [c.id for c in GAME.race_classification(state)] == [3, 2, 1, 0]
    assert next(e for e in events if e.kind == "finish").data["order"] == [3, 2, 1, 0]
    assert GAME.classification(state) == [
        Placing(seat=1, place=2, status="finished"),
        Placing(seat=0, place=3, status="finished"),
    ]


# --- FAS cases that a plain activation in starting order would get wrong (HTP, FAS) ------------


def test_fas_case_1_a_robot_leader_in_a_curve_moves_alone_before_the_duel() -> None:
    # HTP: "When the Leader's section is activated for the first time, only the leader can take
    # their individual turn ... all cars in the same section as the Leader usually play later".
    spec = [
        {"name": "Leader", "robot": "fast", "section": 4, "lap": 1},
        _player(0, 4, [Y2], lap=1),
        _player(1, 4, [O2], lap=1),
    ]
    assert BARCELONA.sections[4].kind == "curve"
    state, events = advance(GAME, build("barcelona", spec))
    assert _movers(events) == [0]  # the leader moved, with no duel before it
    assert not any(e.kind.startswith("duel") for e in events)
    assert (state.cars[0].section, state.cars[0].mark) == (8, "ended")  # 4 MP
    # then section 4 is activated again: a duel between the two players only
    assert state.duel is not None
    assert (state.duel.section, state.duel.order) == (4, [1, 2])
    assert GAME.to_act(state) == [1]  # asked from the back
    assert state.duelled == [4]


def test_fas_case_1_a_player_leader_in_a_curve_plays_before_the_duel() -> None:
    spec = [_player(0, 4, [Y2], lap=1), _player(1, 4, [Y1], lap=1), _player(2, 4, [O2], lap=1)]
    state, _ = advance(GAME, build("barcelona", spec))
    assert state.duel is None and state.duelled == []
    assert state.pending is not None and (state.pending.car, state.pending.phase) == (0, "A")
    assert GAME.to_act(state) == [0]
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[Y2]))
    state, _ = GAME.apply(state, EndTurn(seat=0))
    assert state.cars[0].section == 6
    assert state.duel is not None
    assert (state.duel.section, state.duel.order) == (4, [1, 2])
    assert GAME.to_act(state) == [2]


def test_fas_case_2_activation_goes_on_behind_the_leader_new_section() -> None:
    # HTP: "If the Leader token moves to another section ... The new section with the Leader token
    # becomes the new FAS". Slow robots (3 MP) are teammates: A passes L without a lapping cost.
    spec = [
        {"name": "A", "robot": "slow", "section": 5, "lap": 1},
        {"name": "B", "robot": "slow", "section": 4, "lap": 1},
        {"name": "L", "robot": "slow", "section": 7, "lap": 0},
    ]
    state, events = _robots_until(build("barcelona", spec), 5)
    turn5 = _turn_events(events, 5)
    # A 5 -> 8 passing L; activation goes on from section 8 backwards: L (section 7) before B
    # (section 4). In plain starting order (A, B, L) B would play second.
    assert _movers(turn5) == [0, 2, 1]
    # L stops behind A (robots never unlap themselves, public); B 4 -> 7
    assert state.sections[8] == [0, 2] and state.cars[1].section == 7
    assert state.turn == 6


# --- Fixed-seed robot races (races played to the end keep invariants) ---------------------


def _race(seed: int, track: str, players: int) -> tuple[RF90State, Counter[tuple[int, int]]]:
    state = GAME.new_game(seed, GAME.simulation_config(players=players, track=track))
    played: Counter[tuple[int, int]] = Counter()
    for _ in range(50_000):
        if GAME.is_terminal(state):
            break
        seat = GAME.to_act(state)[0]
        state, events = GAME.apply(state, GAME.robot_action(state, seat))
        for e in events:
            if e.kind in ("move", "skip"):
                played[(e.data["turn"], e.data["car"])] += 1
    return state, played


@pytest.mark.parametrize("players", [0, 2, 6])
@pytest.mark.parametrize("track", ["barcelona", "silverstone"])
@pytest.mark.parametrize("seed", [101, 202, 303, 404, 505, 606, 707, 808])
def test_fixed_seed_races_finish_on_the_last_turn_with_everybody_classified(
    seed: int, track: str, players: int
) -> None:
    state, played = _race(seed, track, players)
    turns = catalog.track(track).race_turns
    assert state.phase == "finished" and state.turn == turns
    check_invariants(state)
    ranked = GAME.race_classification(state)
    assert sorted(c.id for c in ranked) == [c.id for c in state.cars]  # each car once
    assert all(c.status in ("running", "retired", "out of fuel") for c in ranked)
    assert all((c.out_turn is None) == c.running for c in ranked)
    running = [c.running for c in ranked]
    assert running == sorted(running, reverse=True)  # the cars still running come first
    assert all(n == 1 for n in played.values())  # no car plays twice in a turn
    for car in (c for c in state.cars if c.running):  # and a car still running played each turn
        assert all(played[(t, car.id)] == 1 for t in range(1, turns + 1)), car.name
    assert {t for t, _ in played} == set(range(1, turns + 1))
    placings = GAME.classification(state)
    assert sorted(p.seat for p in placings) == list(range(players))
    assert [p.place for p in placings] == sorted({p.place for p in placings})
