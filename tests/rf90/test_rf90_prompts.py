"""The prompts: `legal_actions` lists what a player may really choose, and the seat policy
(docs/rules/rf90.md, Prompts and the seat policy)."""

from __future__ import annotations

from rules.errors import IllegalAction
from rules.rf90 import GAME, PlayCards, StartTurn, catalog
from rules.rf90.scenario import begin, build, card

STRATEGIES = catalog.strategy_ids()


def _phase_a(**car):
    spec = [{"name": "Blue", "seat": 0, "section": 9, "hand": [card("red", 4)], **car}]
    return begin(build("barcelona", spec), 0)


def _legal(state, action) -> bool:
    try:
        GAME.apply(state, action)
    except IllegalAction:
        return False
    return True


def test_a_pit_stop_offers_every_tyre_type_and_a_strategy_change():
    state = _phase_a(fuel_turn=5, strategy="save_tyres")
    legal = GAME.legal_actions(state, 0)
    assert all(isinstance(a, StartTurn) and a.pit is not None for a in legal)
    assert {a.pit.tyres for a in legal} == {"soft", "hard", "intermediate", "wet"}
    assert {a.pit.strategy for a in legal} == {None} | (set(STRATEGIES) - {"save_tyres"})
    assert {a.pit.extra_sections for a in legal} == {0, 1, 2}
    assert len(legal) == 3 * 4 * len(STRATEGIES)
    assert all(_legal(state, a) for a in legal[:: len(STRATEGIES) + 1])


def test_no_soft_tyres_once_both_soft_sets_are_used():
    state = _phase_a(fuel_turn=5, soft_sets=2)
    assert "soft" not in {a.pit.tyres for a in GAME.legal_actions(state, 0)}


def test_skipping_a_turn_offers_a_strategy_change_and_playing_on_does_not():
    state = _phase_a(strategy="push")
    legal = GAME.legal_actions(state, 0)
    skips = {a.new_strategy for a in legal if a.skip}
    assert skips == {None} | (set(STRATEGIES) - {"push"})
    assert not any(a.new_strategy for a in legal if not a.skip)
    assert _legal(state, StartTurn(seat=0, skip=True, new_strategy="save_fuel"))
    versatile = GAME.legal_actions(_phase_a(strategy="push", skill="versatility"), 0)
    assert StartTurn(seat=0, new_strategy="save_fuel") in versatile


def test_save_fuel_offers_its_discard_for_cards_over_two_mp():
    red4, orange2, green3 = card("red", 4), card("orange", 2), card("green", 3)
    state = _phase_a(strategy="save_fuel", hand=[red4, orange2, green3])
    discards = {a.save_fuel_discard for a in GAME.legal_actions(state, 0) if not a.pit}
    assert discards == {None, red4, green3}
    after, _ = GAME.apply(state, StartTurn(seat=0, save_fuel_discard=red4))
    assert len(after.cars[0].hand) == 4  # discarded one, drew two
    plays = GAME.legal_actions(after, 0)
    assert PlayCards(seat=0, cards=[orange2], save_fuel_choice="fuel") in plays
    assert not any(a.save_fuel_choice == "fuel" and red4 in a.cards for a in plays)


def test_the_seat_policy_takes_no_extreme_trajectory_the_turn_before_its_fuel_turn():
    # B9a is Extreme; a failure sends the car off the track, and an off-track car cannot pit
    risky = _phase_a(trajectory="B9a", fuel_turn=6)
    assert GAME.robot_action(risky, 0) == StartTurn(seat=0)
    safe = _phase_a(trajectory="B9a", fuel_turn=8)
    assert GAME.robot_action(safe, 0) == StartTurn(seat=0, extreme=True)
