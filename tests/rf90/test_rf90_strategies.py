"""Balance bonus and Slipstream special (Paddock rules; docs/rules/rf90.md, Strategies)."""

from __future__ import annotations

import pytest

from rules.errors import IllegalAction
from rules.rf90 import GAME, PlayCards, StartTurn, catalog
from rules.rf90.scenario import begin, build, card

RACE = catalog.race_deck()


def _play(strategy: str, hand: list[int], play: PlayCards, others=(), section: int = 5):
    draw_b = card("yellow", 1, weather=0, exclude=set(hand))
    spec = [{"name": "Blue", "seat": 0, "section": section, "hand": hand, "strategy": strategy}]
    spec += list(others)
    state = begin(build("barcelona", spec, deck_top=[draw_b]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    return GAME.apply(state, play)


def test_balance_pays_a_tyre_with_a_damage_disc_and_earns_its_special():
    orange3 = card("orange", 3)  # 2 tyres
    state, events = _play(
        "balance", [orange3], PlayCards(seat=0, cards=[orange3], balance_damage=True)
    )
    car = state.cars[0]
    pay = next(e for e in events if e.kind == "pay")
    assert (pay.data["tyres"], pay.data["chips"]) == (1, 1)
    assert car.chips == 11 and car.damage == 1
    # 1 tyre paid = 1 damage disc drawn: Balance special
    assert sum(1 for c in car.hand if c > catalog.TRACK_CARD_BASE) == 1
    assert any("Balance special" in e.text for e in events)


def test_balance_bonus_without_tyres_due_or_strategy_is_refused():
    yellow1 = card("yellow", 1, weather=0)  # no tyres
    with pytest.raises(IllegalAction):
        _play("balance", [yellow1], PlayCards(seat=0, cards=[yellow1], balance_damage=True))
    orange3 = card("orange", 3)
    with pytest.raises(IllegalAction):
        _play("hazard", [orange3], PlayCards(seat=0, cards=[orange3], balance_damage=True))


def test_slipstream_bonus_and_special_passing_the_car_ahead():
    yellow2 = card("yellow", 2, weather=0)
    robot = {"name": "Fast robot", "robot": "fast", "section": 6, "mark": "ended"}
    state, events = _play("slipstream", [yellow2], PlayCards(seat=0, cards=[yellow2]), [robot])
    car = state.cars[0]
    assert car.last_mp == 3 and car.section == 8  # +2, +1 Slipstream
    assert any("Slipstream special" in e.text for e in events)
    assert sum(1 for c in car.hand if c > catalog.TRACK_CARD_BASE) == 1


def test_slipstream_needs_a_car_in_the_section_right_ahead():
    yellow1 = card("yellow", 1, weather=0)
    robot = {"name": "Fast robot", "robot": "fast", "section": 7, "mark": "ended"}
    # the car is two sections ahead: no bonus, no special
    state, events = _play("slipstream", [yellow1], PlayCards(seat=0, cards=[yellow1]), [robot])
    assert state.cars[0].last_mp == 1 and state.cars[0].section == 6
    assert not any("Slipstream special" in e.text for e in events)
    # one section ahead: +1 MP, and moving past it earns the special
    robot = {"name": "Fast robot", "robot": "fast", "section": 6, "mark": "ended"}
    state, events = _play("slipstream", [yellow1], PlayCards(seat=0, cards=[yellow1]), [robot])
    assert state.cars[0].last_mp == 2 and state.cars[0].section == 7
    assert any("Slipstream special" in e.text for e in events)
