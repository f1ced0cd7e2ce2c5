"""Lapping checks and blue flags, yellow flags, the safety car, stage weather (Paddock rules on
public facts; see docs/rules/rf90.md, "Lapping and flags")."""

from __future__ import annotations

from rules.rf90 import GAME, EndTurn, PlayCards, StartTurn, catalog, target_check
from rules.rf90.engine import Ctx
from rules.rf90.scenario import advance, begin, build, card

RACE = catalog.race_deck()


def _cf_card(lo: int, hi: int, exclude: set[int]) -> int:
    """A plain Race card (no flag, no weather) whose check factor is in [lo, hi)."""
    for cid, c in RACE.items():
        if cid not in exclude and lo <= c.check_factor < hi and not c.flag and not c.weather:
            return cid
    raise ValueError((lo, hi))


def _lapping(skill: str | None, passes_at: int, *, teammate_robot: bool = False):
    """Blue (lap 2) behind a lapped Slow robot (lap 1) in section 5, playing a yellow +2.

    `passes_at`: the check card's factor relative to Blue's target without skill (-1 = just
    below, +5 = a little above, +30 = far above).
    """
    yellow2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 1, weather=0)
    spec = [
        {"name": "Slow robot", "robot": "slow", "section": 5, "lap": 1, "mark": "ended"},
        {"name": "Blue", "seat": 0, "section": 5, "lap": 2, "hand": [yellow2], "skill": skill},
    ]
    probe = build("barcelona", spec)
    base = target_check(Ctx(probe), probe.cars[1]) - (20 if skill == "reflexes" else 0)
    used = {yellow2, draw_b, probe.cars[1].qual_card}
    if passes_at < 0:
        check = _cf_card(1, base, used)
    else:
        check = _cf_card(base + passes_at, base + passes_at + 5, used)
    state = build("barcelona", spec, deck_top=[draw_b, check])
    state = begin(state, 1)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    return GAME.apply(state, PlayCards(seat=0, cards=[yellow2]))


def test_lapping_check_passed_blue_flag_and_full_move():
    state, events = _lapping(None, -1)
    assert [e.data["lapped"] for e in events if e.kind == "blue_flag"] == [[0]]
    assert [e.data["ok"] for e in events if e.kind == "check"] == [True]
    assert state.cars[1].section == 7 and state.cars[1].last_mp == 2


def test_lapping_check_failed_costs_two_mp_and_stays_behind():
    state, events = _lapping(None, 30)
    assert [e.data["ok"] for e in events if e.kind == "check"] == [False]
    assert state.cars[1].section == 5
    assert state.sections[5] == [0, 1]  # still behind the lapped robot


def test_lapping_skill_failed_check_costs_one_mp():
    state, _ = _lapping("lapping", 30)
    assert state.cars[1].section == 6  # 2 MP - 1 for the failed check


def test_reflexes_adds_twenty_to_the_lapping_check():
    state, events = _lapping("reflexes", 5)
    assert [e.data["ok"] for e in events if e.kind == "check"] == [True]
    assert state.cars[1].section == 7
    state, events = _lapping(None, 5)
    assert [e.data["ok"] for e in events if e.kind == "check"] == [False]
    assert state.cars[1].section == 5


def _robot_lapping(front: str):
    spec = [
        {"name": "Blue", "seat": 0, "section": 12, "lap": 3, "mark": "ended"},
        {"name": "Front", "robot": front, "section": 8, "lap": 1, "mark": "ended"},
        {"name": "SuperFast", "robot": "superfast", "section": 8, "lap": 2},
    ]
    state, events = advance(GAME, build("barcelona", spec))
    return next(e for e in events if e.kind == "move" and e.data["car"] == 2), events


def test_robot_lapping_a_car_pays_one_mp():
    move, events = _robot_lapping("slow")
    assert any(e.kind == "blue_flag" and e.data["car"] == 2 for e in events)
    assert (move.data["mp"], move.data["steps"]) == (4, 3)


def test_teammates_are_ignored_when_lapping():
    move, events = _robot_lapping("superfast")
    assert not any(e.kind == "blue_flag" for e in events)
    assert (move.data["mp"], move.data["steps"]) == (4, 4)


def test_robots_never_unlap_themselves():
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "lap": 2, "mark": "ended"},
        {"name": "Slow robot", "robot": "slow", "section": 5, "lap": 1},
    ]
    state, events = advance(GAME, build("barcelona", spec))
    move = next(e for e in events if e.kind == "move" and e.data["car"] == 1)
    assert move.data["steps"] == 0
    assert any(e.kind == "no_unlap" for e in events)
    assert state.sections[5] == [0, 1]


def test_yellow_flag_card_stops_cars_entering_the_section_this_turn():
    red4 = next(cid for cid, c in RACE.items() if c.flag and c.mp == 4)
    spec = [
        {"name": "Blue", "seat": 0, "section": 10, "hand": [red4]},
        {"name": "Fast robot", "robot": "fast", "section": 8},
    ]
    state = begin(build("barcelona", spec), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[red4]))
    assert state.yellow_flags == [10]
    assert state.cars[0].section == 14
    state, events = GAME.apply(state, EndTurn(seat=0))
    move = next(e for e in events if e.kind == "move" and e.data["car"] == 1)
    assert (move.data["mp"], move.data["steps"]) == (4, 2)  # stops at section 10
    assert state.cars[1].section == 10
    assert state.yellow_flags == []  # cleared at the next game turn


def test_safety_car_after_a_retirement_caps_mp_for_this_turn_and_the_next():
    red3 = card("red", 3)
    spec = [
        {"name": "Blue", "seat": 0, "section": 10, "hand": [red3], "damage_red": 4},
        {"name": "Fast robot", "robot": "fast", "section": 2},
    ]
    state = begin(build("barcelona", spec, turn=5), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[red3]))
    assert state.cars[0].status == "retired"
    assert state.safety_car_until == 6
    # nobody else plays: the race runs to its end; the Fast robot moves 3 on turns 5 and 6
    mps = {e.data["turn"]: e.data["mp"] for e in events if e.kind == "move" and e.data["car"] == 1}
    assert (mps[5], mps[6]) == (3, 3)
    assert mps[7] >= 4
