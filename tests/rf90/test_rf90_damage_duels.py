"""Damage effects, duels repeated when a section is activated again, players declining to
unlap (Paddock rules; see docs/rules/rf90.md)."""

from __future__ import annotations

import pytest

from rules.rf90 import GAME, DuelDeclare, EndTurn, PlayCards, StartTurn, catalog
from rules.rf90.scenario import advance, begin, build, card

RACE = catalog.race_deck()


# --- damage effects (Paddock rule, rules.json "damage_effects") ---------------------------------


@pytest.mark.parametrize(("before", "mp", "hurt"), [(1, 3, False), (2, 2, True), (3, 2, True)])
def test_a_badly_damaged_car_moves_one_mp_less(before, mp, hurt):
    # wear 2 = 4 damage spaces; red +3 costs 1 tyre and 1 damage disc in phase C.
    # after phase C: 2 discs (2 spaces left): full 3 MP; 3 or 4 discs (1 or 0 left): 3 - 1 = 2.
    red3 = card("red", 3)
    spec = [{"name": "Blue", "seat": 0, "section": 13, "hand": [red3], "damage_red": before}]
    state = begin(build("barcelona", spec, weather=0), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[red3]))
    car = state.cars[0]
    assert car.running and car.damage == before + 1
    assert car.last_mp == mp and car.section == 13 + mp
    damaged = [e for e in events if e.kind == "damaged"]
    assert (damaged[0].data if damaged else None) == ({"car": 0, "mp": -1} if hurt else None)


def test_damage_effects_are_data_and_spare_the_robots():
    eff = catalog.tables().damage_effects
    assert (eff.spaces_left, eff.mp_penalty) == (1, 1) and "Paddock rule" in eff.source
    spec = [
        {"name": "Blue", "seat": 0, "section": 20, "mark": "ended"},
        {"name": "Slow robot", "robot": "slow", "section": 13, "damage_red": 4},
    ]
    state, events = advance(GAME, build("barcelona", spec))
    move = next(e for e in events if e.kind == "move" and e.data["car"] == 1)
    assert move.data["mp"] == 3 and state.cars[1].section == 16


# --- duels: a section activated again is duelled again (Paddock rule) ---------------------------


def test_a_restart_from_a_new_leader_activates_the_curve_again_and_it_is_duelled_again():
    # Turn 5. The Slow robot L leads in section 8; three players wait in curve 7 (Seat).
    # L plays alone (3 MP: to section 11), then section 7 is activated: duel 1, nobody
    # challenges. Blue (front) plays red +4 and yellow +1: 5 MP, to section 12, ahead of L.
    # Blue now leads: activation restarts from section 12 (FAS case 2) and reaches section 7
    # again with Green and Yellow unmoved: a new activation, so duel 2 is offered.
    red4 = card("red", 4)
    yellow1 = card("yellow", 1, weather=0)
    spec = [
        {"name": "L", "robot": "slow", "section": 8},
        {"name": "Blue", "seat": 0, "section": 7, "hand": [red4, yellow1]},
        {"name": "Green", "seat": 1, "section": 7},
        {"name": "Yellow", "seat": 2, "section": 7},
    ]
    state, events = advance(GAME, build("barcelona", spec, weather=0))
    assert state.cars[0].section == 11 and state.cars[0].mark == "ended"
    assert state.duel is not None and state.duel.order == [1, 2, 3]
    for seat in (2, 1, 0):  # asked from the back: nobody challenges
        assert GAME.to_act(state) == [seat]
        state, _ = GAME.apply(state, DuelDeclare(seat=seat, join=False))
    assert state.duel is None and GAME.to_act(state) == [0]
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[red4, yellow1]))
    assert state.cars[1].last_mp == 5 and state.cars[1].section == 12
    state, _ = GAME.apply(state, EndTurn(seat=0))
    assert state.active_leader == 1
    assert state.duel is not None and state.duel.order == [2, 3]
    assert state.duelled == [7, 7]
    assert GAME.to_act(state) == [2]  # Yellow is asked first, again


def test_within_one_activation_a_section_is_duelled_once():
    # No change of leader: after duel 1 and Blue's move (not past L), Green plays without a
    # second duel.
    yellow1 = card("yellow", 1, weather=0)
    spec = [
        {"name": "L", "robot": "slow", "section": 8},
        {"name": "Blue", "seat": 0, "section": 7, "hand": [yellow1]},
        {"name": "Green", "seat": 1, "section": 7},
        {"name": "Yellow", "seat": 2, "section": 7},
    ]
    state, _ = advance(GAME, build("barcelona", spec, weather=0))
    for seat in (2, 1, 0):
        state, _ = GAME.apply(state, DuelDeclare(seat=seat, join=False))
    state, _ = GAME.apply(state, StartTurn(seat=0))
    state, _ = GAME.apply(state, PlayCards(seat=0, cards=[yellow1]))
    state, _ = GAME.apply(state, EndTurn(seat=0))
    assert state.duel is None and state.pending is not None and state.pending.car == 2
    assert state.duelled == [7]


# --- players may decline to unlap themselves (Paddock rule) -------------------------------------


@pytest.mark.parametrize(("unlap", "section", "order5"), [(True, 7, [0]), (False, 5, [0, 1])])
def test_a_lapped_player_may_decline_to_unlap(unlap, section, order5):
    # Blue (lap 2) leads in section 5 and has played; Red (lap 1) is behind it and plays a
    # yellow +2: with unlap it passes Blue (2 sections), declining it stays behind Blue.
    yellow2 = card("yellow", 2, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "lap": 2, "mark": "ended"},
        {"name": "Red", "seat": 1, "section": 5, "lap": 1, "hand": [yellow2]},
    ]
    state = begin(build("barcelona", spec, weather=0), 1)
    state, _ = GAME.apply(state, StartTurn(seat=1))
    state, events = GAME.apply(state, PlayCards(seat=1, cards=[yellow2], unlap=unlap))
    assert state.cars[1].section == section and state.sections[5] == order5
    assert any(e.kind == "no_unlap" for e in events) is (not unlap)
    assert state.cars[1].last_mp == 2
