"""Taking a move back, as every registered game's rules decide it (issue 27, `undo_refusal`).

From random reachable states of each game's simulated races: an action the rules let be
taken back never moved the random source, showed no revealing event and drew from no hidden
pile; and, checked independently of how `undo_refusal` decides, its outcome does not depend
on the random source or the order of the hidden piles (played again from a state whose
random source and piles differ, it comes out the same): taking it back shows nobody anything.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from rules.base import Game, GameState, drew_from_hidden_pile, games
from rules.rng import Rng

SEEDS = (1, 2, 3)
MAX_STEPS = 400


def _piles(game: Game[Any]) -> list[tuple[Any, ...]]:
    return [z.path for z in game.spec.hidden if not z.held and "*" not in z.path]


def _shaken(game: Game[Any], state: GameState, seed: int) -> GameState:
    """The state with another random source and every hidden pile in another order."""
    data = json.loads(state.model_dump_json())
    data["rng"] = Rng.from_seed(seed + 7919).model_dump()
    for path in _piles(game):
        box = data
        for key in path[:-1]:
            box = box.get(key) if isinstance(box, dict) else None
            if box is None:
                break
        if isinstance(box, dict) and isinstance(box.get(path[-1]), list):
            box[path[-1]] = list(reversed(box[path[-1]]))
    return game.load_state(json.dumps(data))


def _without_hidden(game: Game[Any], state: GameState) -> Any:
    data = json.loads(state.model_dump_json())
    data.pop("rng")
    for path in _piles(game):
        box = data
        for key in path[:-1]:
            box = box.get(key) if isinstance(box, dict) else None
            if box is None:
                break
        if isinstance(box, dict):
            box.pop(path[-1], None)
    return data


def _walk(game: Game[Any], seed: int) -> list[tuple[GameState, Any, GameState, list[Any]]]:
    """(before, action, after, events) of a race played by random legal actions and robots."""
    rng = random.Random(seed)
    state = game.new_game(seed, game.simulation_config())
    out = []
    for _ in range(MAX_STEPS):
        if game.is_terminal(state):
            break
        seat = rng.choice(game.to_act(state))
        legal = game.legal_actions(state, seat)
        action = (
            rng.choice(legal) if legal and rng.random() < 0.5 else game.robot_action(state, seat)
        )
        if action.kind == "retire":
            action = game.robot_action(state, seat)
        after, events = game.apply(state, action)
        out.append((state, action, after, events))
        state = after
    return out


@pytest.mark.parametrize("name", sorted(games()))
def test_an_undoable_action_drew_nothing_and_showed_nothing(name: str) -> None:
    game = games()[name]
    allowed = refused = 0
    for seed in SEEDS:
        for before, action, after, events in _walk(game, seed):
            why = game.undo_refusal(before, after, action.seat, events)
            if why is not None:
                assert why and len(why) < 80  # a short reason a player reads
                refused += 1
                continue
            allowed += 1
            assert before.rng == after.rng, "taken back after a random draw"
            assert not any(e.kind in game.undo_reveals for e in events)
            assert not drew_from_hidden_pile(game.spec, before, after)
            assert not game.is_terminal(after)
            # the same action where chance and the piles are other: the same outcome
            again, again_events = game.apply(_shaken(game, before, seed), action)
            assert _without_hidden(game, again) == _without_hidden(game, after), action
            assert [e.text for e in again_events] == [e.text for e in events]
    assert refused > 0
    if name == "pitformula":
        assert allowed == 0  # real time: nothing is taken back
    else:
        assert allowed > 0


@pytest.mark.parametrize("name", sorted(games()))
def test_a_random_draw_or_a_revealing_event_is_never_taken_back(name: str) -> None:
    game = games()[name]
    for seed in SEEDS:
        for before, action, after, events in _walk(game, seed):
            why = game.undo_refusal(before, after, action.seat, events)
            if before.rng != after.rng or any(e.kind in game.undo_reveals for e in events):
                assert why is not None, action


def test_waddington_a_speed_may_be_taken_back_but_not_the_dice() -> None:
    game = games()["waddington"]
    seen: dict[str, set[str | None]] = {}
    for seed in SEEDS:
        for before, action, after, events in _walk(game, seed):
            why = game.undo_refusal(before, after, action.seat, events)
            seen.setdefault(action.kind, set()).add(why)
            if any(e.data.get("dice") for e in events):
                assert why == "the dice have been rolled"
    assert seen["set_speed"] == {None}  # a speed shows nothing and draws nothing
    assert "the dice have been rolled" in seen["proceed"] | seen["move"]


def test_rf90_a_card_play_may_be_taken_back_unless_it_turned_a_card_over() -> None:
    """A card play from the driver's own hand (and the move it makes) shows them nothing
    new: it may be taken back (docs/rules/rf90.md), unless a card was turned over for a
    check, one drawn, or a damage disc drawn along the way."""
    game = games()["rf90"]
    seen: set[str | None] = set()
    for seed in SEEDS:
        for before, action, after, events in _walk(game, seed):
            if action.kind != "play_cards":
                continue
            why = game.undo_refusal(before, after, action.seat, events)
            seen.add(why)
            if any(e.kind == "check" for e in events):
                assert why is not None
            if why is None:
                assert {e.kind for e in events} >= {"pay", "move"}
    assert None in seen
    assert "your cards are on the table" not in seen
