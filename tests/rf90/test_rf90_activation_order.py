"""Activation order with lapped cars in front of the leader (HTP, Activate Section and FAS).

HTP = rf90-how-to-play-2nd-edition.txt, "Activate Section":

    "The movement order of cars is based on the activation of track sections, going from front
    to back. The front is always the section where the leader token is located. The next section
    to be activated is the section immediately behind the leader that contains cars that have not
    yet been activated. When a section is activated, all cars in it play their individual turns in
    order."

and "FAS (Front Activation Section)", second and third cases:

    "If the Leader token moves to another section, i.e., if the leader moves or is overtaken, the
    previous section becomes inactive. The new section with the Leader token becomes the new FAS,
    and from this point, a new section must be activated according to the rules above."

    "The last case is when there are cars in front of and behind the Leader IN THE SAME SECTION.
    In these cases, effectively, the Leader token divides the section into two subsections
    regarding individual turns, where an imaginary dividing line must be drawn immediately in
    front of the leader. The first section to activate is the subsection where the Leader and the
    cars behind them are [...] When the Leader moves to another section, the subsection including
    the Leader (and the cars behind them) becomes the new FAS, and from this point, a new section
    must be activated according to the rules above."

So the cars in front of the leader in its section wait only while the Leader token divides that
section. Once the token has left it (the leader moved, or another car overtook it), the section
is behind the leader like any other, and its unmoved cars, the lapped ones included, play in
their order when it is reached: not at the end of the game turn after the whole field behind.

Barcelona: sections 4, 6 and 7 are curves, 5 and 8 straights. Robots (Paddock rules, rules.json)
move 3 MP (Slow) or 4 (Fast, SuperFast), pay 1 MP to lap a car of another type and never unlap
themselves. Turn 27 is the last: the race ends with the turn.
"""

from __future__ import annotations

from typing import Any

from rules.base import Event
from rules.rf90 import GAME, DuelDeclare, StartTurn, catalog
from rules.rf90.scenario import advance, build, card
from rules.rf90.state import RF90State

BARCELONA = catalog.track("barcelona")


def _robot(name: str, robot: str, section: int, lap: int) -> dict[str, Any]:
    return {"name": name, "robot": robot, "section": section, "lap": lap}


def _movers(events: list[Event]) -> list[int]:
    return [e.data["car"] for e in events if e.kind == "move"]


def _activations(events: list[Event]) -> list[int]:
    return [e.data["section"] for e in events if e.kind == "activate"]


def _last_turn(spec: list[dict[str, Any]]) -> tuple[RF90State, list[Event]]:
    """Play the last game turn (27) of a Barcelona race from this position."""
    return advance(GAME, build("barcelona", spec, turn=27))


def test_lapped_car_in_front_of_the_leader_plays_with_its_section_once_the_leader_has_left():
    # The filed defect. Section 5 at the turn start: L (lapped, lap 0), then the leader A, then
    # B. A plays alone and moves on to section 8: the Leader token leaves section 5, which is
    # now "the section immediately behind the leader that contains cars that have not yet been
    # activated"; "all cars in it play their individual turns in order": L, then B.
    assert BARCELONA.sections[5].kind == "straight"
    spec = [_robot("L", "fast", 5, 0), _robot("A", "superfast", 5, 1), _robot("B", "slow", 5, 1)]
    state, events = _last_turn(spec)
    assert _movers(events) == [1, 0, 2]  # A, then L before B (was: A, B, L)
    assert _activations(events) == [5, 5]  # the leader alone, then section 5 again, once
    # B never had to lap L: L left first, and B (3 MP) follows it to section 8
    assert not [e for e in events if e.kind == "blue_flag" and e.data["car"] == 2]
    assert state.sections[8] == [1, 0, 2]
    assert state.phase == "finished"


def test_the_field_behind_does_not_lap_a_car_that_was_in_front_of_the_leader():
    # As above, with more of the field behind in sections 2 and 1: section 5 (L, B) is
    # activated right behind the leader's new section, before sections 2 and 1.
    spec = [
        _robot("L", "fast", 5, 0),
        _robot("A", "superfast", 5, 1),
        _robot("B", "slow", 5, 1),
        _robot("C", "slow", 2, 1),
        _robot("D", "fast", 1, 1),
    ]
    state, events = _last_turn(spec)
    assert _movers(events) == [1, 0, 2, 3, 4]  # was: A, B, C, D, then L last
    assert _activations(events) == [5, 5, 2, 1]
    assert not [e for e in events if e.kind == "blue_flag" and e.data["car"] != 1]
    assert state.sections[8] == [1, 0, 2]


def test_lapped_car_of_a_reactivated_curve_is_in_its_duel_and_plays_in_its_order():
    # Curve section 4: X (a player, lapped), the Fast robot leader, P (a player). The leader
    # moves alone to section 7; section 4 is activated again with X and P unmoved: a curve
    # section with two unmoved cars, so a duel is offered to both (asked from the back), and
    # with no duel X, in front, plays before P.
    assert BARCELONA.sections[4].kind == "curve"
    spec = [
        {"name": "X", "seat": 1, "section": 4, "lap": 0, "hand": [card("yellow", 1)]},
        _robot("Leader", "fast", 4, 1),
        {"name": "P", "seat": 0, "section": 4, "lap": 1, "hand": [card("yellow", 2)]},
    ]
    state, events = _last_turn(spec)
    assert _movers(events) == [1] and state.cars[1].section == 7
    assert state.duel is not None  # was: no duel, P played first and X after everybody
    assert (state.duel.section, state.duel.order) == (4, [0, 2])
    assert GAME.to_act(state) == [0]  # P (seat 0) is asked first
    state, _ = GAME.apply(state, DuelDeclare(seat=0, join=False))
    state, _ = GAME.apply(state, DuelDeclare(seat=1, join=False))
    assert state.duel is None
    assert state.pending is not None and state.pending.car == 0  # X plays before P
    assert GAME.to_act(state) == [1]


def test_lapped_car_in_front_of_an_overtaken_leader_plays_when_its_section_is_reached():
    # FAS second case, "or is overtaken". Section 5: X (lapped), then the leader P (a player),
    # who skips the turn and stays there; C (section 4) then passes P and leads from section 8.
    # The FAS is now section 8; the section immediately behind it with unmoved cars is 5 (X),
    # then 2 (B).
    spec = [
        _robot("X", "fast", 5, 0),
        {"name": "P", "seat": 0, "section": 5, "lap": 1},
        _robot("C", "superfast", 4, 1),
        _robot("B", "slow", 2, 1),
    ]
    state, events = _last_turn(spec)
    assert state.pending is not None and state.pending.car == 1  # the leader plays first
    state, events = GAME.apply(state, StartTurn(seat=0, skip=True))
    assert state.cars[2].section == 8 and state.cars[2].lap == 1  # C leads
    assert _movers(events) == [2, 0, 3]  # was: C, B, then X last
    assert _activations(events) == [4, 5, 2]
    assert state.phase == "finished"


def test_lapped_car_in_front_of_a_leader_that_stays_still_plays_last():
    # FAS third case while the Leader token divides section 5: the leader P (a player) skips and
    # stays in section 5, X in front of it. The subsection of the leader and the cars behind it
    # comes first, then the sections behind (B in section 2); X, in front of the dividing line,
    # is behind everybody else and plays last, in its own activation of section 5. B enters
    # section 5 in front of P, which skipped its turn (Paddock rule), and leads: X is still in
    # front of the leader.
    spec = [
        _robot("X", "fast", 5, 0),
        {"name": "P", "seat": 0, "section": 5, "lap": 1},
        _robot("B", "slow", 2, 1),
    ]
    state, _ = _last_turn(spec)
    state, events = GAME.apply(state, StartTurn(seat=0, skip=True))
    assert _movers(events) == [2, 0]
    assert _activations(events) == [2, 5]
    assert state.phase == "finished"


def test_the_part_of_a_curve_in_front_of_a_leader_that_stays_is_activated_with_its_duel():
    # Curve section 4: X1 and X2 (players, lapped) in front of the leader P (a player), who
    # skips and stays. Nobody else is on the track: the next activation is the subsection in
    # front of the dividing line, a curve with two unmoved cars, so a duel is offered ("When a
    # curve section is activated, each car in the section, starting from the last position and
    # moving forward, announces if it wishes to initiate a duel", HTP, Duel Procedures).
    spec = [
        {"name": "X1", "seat": 1, "section": 4, "lap": 0, "hand": [card("yellow", 1)]},
        {"name": "X2", "seat": 2, "section": 4, "lap": 0, "hand": [card("yellow", 2)]},
        {"name": "P", "seat": 0, "section": 4, "lap": 1},
    ]
    state, _ = _last_turn(spec)
    assert state.pending is not None and state.pending.car == 2
    state, events = GAME.apply(state, StartTurn(seat=0, skip=True))
    assert _activations(events) == [4]
    assert state.duel is not None  # was: no duel, X1 played at once
    assert (state.duel.section, state.duel.order) == (4, [0, 1])
    assert GAME.to_act(state) == [2]  # X2 (seat 2) is asked first, from the back
