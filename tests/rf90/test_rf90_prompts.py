"""The prompts: `legal_actions` lists what a player may really choose, and the seat policy
(docs/rules/rf90.md, Prompts and the seat policy)."""

from __future__ import annotations

import random

import pytest

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
    state = _phase_a(strategy="save_fuel", hand=[red4, orange2, green3], fuel_turn=12)
    discards = {a.save_fuel_discard for a in GAME.legal_actions(state, 0) if not a.pit}
    assert discards == {None, red4, green3}
    after, _ = GAME.apply(state, StartTurn(seat=0, save_fuel_discard=red4))
    assert len(after.cars[0].hand) == 4  # discarded one, drew two
    plays = GAME.legal_actions(after, 0)
    assert PlayCards(seat=0, cards=[orange2], save_fuel_choice="fuel") in plays
    assert not any(a.save_fuel_choice == "fuel" and red4 in a.cards for a in plays)


def test_the_seat_policy_takes_no_extreme_trajectory_the_turn_before_its_fuel_turn():
    # B9a is Extreme (target 50); a failure sends the car off the track, and an off-track car
    # cannot pit. Reflexes and Consistency raise the target to 80: worth trying, but not then.
    hand = [card("red", 4), card("yellow", 1), card("orange", 2), card("yellow", 2)]
    sure = {"skill": "reflexes", "strategy": "consistency", "hand": hand}
    risky = _phase_a(trajectory="B9a", fuel_turn=6, **sure)
    assert GAME.robot_action(risky, 0) == StartTurn(seat=0)
    safe = _phase_a(trajectory="B9a", fuel_turn=8, **sure)
    assert GAME.robot_action(safe, 0) == StartTurn(seat=0, extreme=True)
    # at the printed target alone (50) a failure costs more than the +2 is worth
    assert GAME.robot_action(_phase_a(trajectory="B9a", fuel_turn=8), 0) == StartTurn(seat=0)


# --- every offered action is accepted: random legal play (a fuzz over the prompts) -------------


def _random_race(seed: int, track: str, players: int, probes: int = 3) -> tuple[int, int]:
    """Play a race choosing uniformly among the offered actions half of the time; at each
    decision also apply a few other offered actions (discarded) to check they are accepted.
    Returns (actions, probes); the race must reach its end."""
    from rules.rf90 import ROBOT_SEAT
    from tests.rf90.rf90_helpers import check_invariants

    rng = random.Random(seed)
    state = GAME.new_game(seed, GAME.simulation_config(players=players, track=track))
    actions = checked = 0
    while not GAME.is_terminal(state) and actions < 4000:
        seat = GAME.to_act(state)[0]
        offered = GAME.legal_actions(state, seat)
        assert offered, (seat, state.phase)
        for probe in rng.sample(offered, min(probes, len(offered))):
            GAME.apply(state, probe)  # raises if an offered action is refused
            checked += 1
        # players mostly follow the seat policy so that races reach their end
        use_policy = seat == ROBOT_SEAT or rng.random() < 0.5
        action = GAME.robot_action(state, seat) if use_policy else rng.choice(offered)
        if not use_policy:
            assert action in offered
        state, _ = GAME.apply(state, action)
        check_invariants(state)
        actions += 1
    assert GAME.is_terminal(state)
    return actions, checked


@pytest.mark.parametrize(
    ("seed", "track", "players"),
    [
        (1, "barcelona", 2),
        (2, "silverstone", 3),
        (3, "barcelona", 6),
        (4, "silverstone", 5),
        (5, "barcelona", 1),
        (6, "silverstone", 6),
        (7, "barcelona", 4),
        (8, "silverstone", 2),
    ],
)
def test_every_offered_action_is_accepted_in_random_races(seed: int, track: str, players: int):
    actions, checked = _random_race(seed, track, players)
    assert actions > 0 and checked >= actions  # every decision probed


# --- what the phase A and B prompts offer -----------------------------------------------------


def test_a_car_off_the_track_is_offered_no_pit_stop():
    state = _phase_a(section=11, off_track=True, off_penalty=1, fuel_turn=9)
    legal = GAME.legal_actions(state, 0)
    assert legal and not any(a.pit for a in legal)
    with pytest.raises(IllegalAction):
        GAME.apply(state, StartTurn(seat=0, pit={"tyres": "hard"}))


def test_wise_driving_offers_discarding_the_k_lowest_race_cards():
    red4, y1, o2 = card("red", 4), card("yellow", 1, weather=0), card("orange", 2)
    state = _phase_a(skill="wise_driving", hand=[red4, y1, o2])
    wise = [a.wise_driving for a in GAME.legal_actions(state, 0) if a.wise_driving is not None]
    assert wise == [[], [y1], [y1, o2], [y1, o2, red4]]
    assert all(_legal(state, StartTurn(seat=0, wise_driving=w)) for w in wise)


def _phase_b(**car):
    spec = [{"name": "Blue", "seat": 0, **car}]
    state = begin(build("barcelona", spec, deck_top=[card("yellow", 1, weather=1)]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    return state, GAME.legal_actions(state, 0)


def test_a_sharp_trajectory_is_offered_taken_and_declined():
    # B16a: sharp orange/green +2, 1 tyre; S4a at Silverstone costs a card (see below)
    o1, y2 = card("orange", 1), card("yellow", 2, weather=0)
    state, legal = _phase_b(section=16, trajectory="B16a", hand=[o1, y2])
    single = [a for a in legal if a.cards == [o1]]
    assert {a.use_trajectory for a in single} == {True, False}
    assert all(_legal(state, a) for a in single)


def test_a_sharp_trajectory_that_costs_a_card_offers_the_lowest_card_and_can_be_declined():
    o1, o2, y2 = card("orange", 1), card("orange", 2), card("yellow", 2, weather=0)
    spec = [{"name": "Blue", "seat": 0, "section": 4, "trajectory": "S4a", "hand": [o2, y2]}]
    state = begin(build("silverstone", spec, deck_top=[o1]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    plays = [a for a in GAME.legal_actions(state, 0) if a.cards == [o2]]
    taken = [a for a in plays if a.use_trajectory]
    assert taken and all(a.sharp_discard == o1 for a in taken)  # the lowest card left
    assert any(not a.use_trajectory and a.sharp_discard is None for a in plays)
    assert all(_legal(state, a) for a in plays)
    # with no card left to discard, only declining is offered (and the engine says why)
    lone = begin(
        build(
            "silverstone",
            [{"name": "Blue", "seat": 0, "section": 4, "trajectory": "S4a", "hand": []}],
            deck_top=[o2],
        ),
        0,
    )
    lone, _ = GAME.apply(lone, StartTurn(seat=0))
    offered = GAME.legal_actions(lone, 0)
    assert [a.use_trajectory for a in offered] == [False]
    with pytest.raises(IllegalAction, match="play without it"):
        GAME.apply(lone, PlayCards(seat=0, cards=[o2]))


def test_blue_discs_balance_and_paying_missing_chips_with_cards_are_offered():
    r4, y1 = card("red", 4), card("yellow", 1, weather=0)
    # 1 chip for the red +4's 2 tyres: pay the missing one with a card, or take a disc
    state, legal = _phase_b(section=5, hand=[r4, y1], chips=1, blue=2, strategy="balance")
    red = [a for a in legal if a.cards == [r4]]
    assert {a.blue_bonus for a in red} == {True, False}
    assert {a.balance_damage for a in red} == {True, False}
    assert {tuple(a.tyre_cards) for a in red} >= {(), (y1,)}
    assert all(_legal(state, a) for a in red)
    paid = next(a for a in red if a.tyre_cards and not a.balance_damage and not a.blue_bonus)
    after, _ = GAME.apply(state, paid)
    assert after.cars[0].chips == 0 and after.cars[0].damage == 1  # red +4's own disc only


def test_declining_to_unlap_is_offered_only_with_a_car_on_a_higher_lap():
    y1 = card("yellow", 1, weather=0)
    _, alone = _phase_b(section=5, hand=[y1], lap=1)
    assert {a.unlap for a in alone} == {True}
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "hand": [y1], "lap": 1},
        {"name": "Leader", "robot": "fast", "section": 5, "lap": 2, "mark": "ended"},
    ]
    state = begin(build("barcelona", spec, deck_top=[card("yellow", 2, weather=0)]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    assert {a.unlap for a in GAME.legal_actions(state, 0)} == {True, False}
