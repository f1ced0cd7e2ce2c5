"""Property tests: robot races on both tracks keep the invariants to the end."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.base import get_game
from rules.errors import IllegalAction, NotYourTurn
from rules.rf90 import GAME, ROBOT_SEAT, RobotTurn, catalog
from rules.rf90.state import RF90State
from tests.rf90.rf90_helpers import check_invariants


def _check_views(state: RF90State) -> None:
    """No hidden card in the public view; a seat's view shows only that seat's secrets."""
    data = GAME.public_view(state)
    assert len(json.dumps(data)) < 64_000
    assert all(isinstance(c["hand"], int) for c in data["cars"])
    for pile in ("race_draw", "track_draw", "race_discard", "track_discard"):
        assert isinstance(data[pile], int)  # piles as counts (a substitute hand is private)
    if data["pending"] is not None:
        assert isinstance(data["pending"]["drawn"], int)  # the phase B draw
    if data["duel"] is not None:
        assert all(isinstance(n, int) for n in data["duel"]["cards"].values())  # face down
    if state.phase in ("setup", "qualifying"):
        assert all(c["qual_card"] is None and c["qual_fuel"] is None for c in data["cars"])
    for car in state.cars:
        if car.seat is None:
            continue
        mine = GAME.seat_view(state, car.seat)
        assert mine["cars"][car.id]["hand"] == car.hand
        others = [c for c in mine["cars"] if c["id"] != car.id]
        assert all(isinstance(c["hand"], int) for c in others)
        if state.phase in ("setup", "qualifying"):
            assert all(c["qual_card"] is None for c in others)
        if mine["duel"] is not None:
            for cid, cards in mine["duel"]["cards"].items():
                assert isinstance(cards, list) == (int(cid) == car.id)


def _play(seed: int, track: str, players: int):
    state = GAME.new_game(seed, GAME.simulation_config(players=players, track=track))
    played: Counter[tuple[int, int]] = Counter()
    actions = 0
    while not GAME.is_terminal(state):
        seat = GAME.to_act(state)[0]
        state, events = GAME.apply(state, GAME.robot_action(state, seat))
        actions += 1
        for e in events:
            if e.kind in ("move", "skip"):
                played[(e.data["turn"], e.data["car"])] += 1
        check_invariants(state)
        _check_views(state)
    return state, played, actions


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    track=st.sampled_from(["barcelona", "silverstone"]),
    players=st.sampled_from([1, 3, 4]),
)
def test_robot_races_finish_and_keep_invariants(seed, track, players):
    state, played, _ = _play(seed, track, players)
    assert state.phase == "finished"
    assert state.turn == catalog.track(track).race_turns
    assert all(n == 1 for n in played.values())
    cls = GAME.classification(state)
    assert sorted(p.seat for p in cls) == list(range(players))


def test_each_car_plays_at_most_once_per_turn_robot_only():
    # zero player seats: the race is played through RobotTurn actions, not inside new_game
    state = GAME.new_game(11, GAME.simulation_config(players=0, track="silverstone"))
    assert not GAME.is_terminal(state)
    assert GAME.to_act(state) == [ROBOT_SEAT]
    assert state.phase == "race" and state.turn == 1
    state, played, actions = _play(11, "silverstone", 0)
    assert state.phase == "finished"
    assert all(n == 1 for n in played.values())
    # 7 robots (2 SuperFast, 3 Fast, 2 Slow), one action per car still running per turn
    assert actions == sum(played.values())
    assert actions <= 7 * 25


def test_robot_only_race_is_an_action_log_the_store_can_replay():
    config = {"track": "barcelona", "players": [], "robots": {"superfast": 2, "fast": 4, "slow": 4}}
    state = GAME.new_game(1, config)
    log = []
    while not GAME.is_terminal(state):
        seat = GAME.to_act(state)[0]
        action = GAME.robot_action(state, seat)
        assert isinstance(action, RobotTurn) and action.car == state.robot_next
        assert action in GAME.legal_actions(state, seat)
        log.append(GAME.parse_action(action.model_dump_json()))
        state, events = GAME.apply(state, action)
        assert any(e.kind == "move" for e in events)
    assert len(log) == 10 * 27 - sum(27 - c.out_turn for c in state.cars if c.out_turn)
    assert GAME.replay(1, config, log).to_json() == state.to_json()
    assert len(state.to_json()) < 64_000


def test_a_robot_turn_out_of_order_is_refused():
    state = GAME.new_game(2, GAME.simulation_config(players=0))
    wrong = next(c.id for c in state.cars if c.id != state.robot_next)
    with pytest.raises(IllegalAction, match="not car"):
        GAME.apply(state, RobotTurn(seat=ROBOT_SEAT, car=wrong))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, RobotTurn(seat=0, car=state.robot_next))


def test_simulate_with_no_players_counts_the_robot_actions():
    out = get_game("rf90").simulate(1, track="barcelona", players=0)
    assert out["players"] == 0 and out["turns"] == 27
    assert (
        out["actions"]
        == 7 * 27 - sum(27 - 1 for e in out["classification"] if e["status"] != "running")
        or out["actions"] > 150
    )


def test_simulate_is_deterministic_and_complete():
    game = get_game("rf90")
    a = game.simulate(7, track="silverstone", players=3)
    b = game.simulate(7, track="silverstone", players=3)
    assert a == b
    assert {"game", "track", "seed", "turns", "actions", "classification"} <= set(a)
    assert a["turns"] == 25 and len(a["classification"]) == 10
    for entry in a["classification"]:
        assert (entry["seat"] is None) != (entry["robot"] is None)
        assert entry["status"] in ("running", "retired", "out of fuel")
        assert entry["pit_stops"] >= 0


def test_replay_from_the_log_gives_the_same_snapshot():
    state = GAME.new_game(3, GAME.simulation_config(players=2))
    log = []
    while not GAME.is_terminal(state) and len(log) < 120:
        seat = GAME.to_act(state)[0]
        action = GAME.robot_action(state, seat)
        log.append(GAME.parse_action(action.model_dump_json()))
        state, _ = GAME.apply(state, action)
    again = GAME.replay(3, GAME.simulation_config(players=2), log)
    assert again.to_json() == state.to_json()
    assert GAME.load_state(state.to_json()) == state


def test_legal_actions_contain_the_robot_choice_early():
    state = GAME.new_game(4, GAME.simulation_config(players=2))
    for _ in range(40):
        seat = GAME.to_act(state)[0]
        action = GAME.robot_action(state, seat)
        kinds = {a.kind for a in GAME.legal_actions(state, seat)}
        assert action.kind in kinds
        state, _ = GAME.apply(state, action)
