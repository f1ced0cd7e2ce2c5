"""The toy game's rules: a tiny dice race, used to test the store, replay and verify without
depending on a real game's rules, and played in Discord by tests/toygame/test_toygame.py.
Two or more seats take turns rolling a die (or a die plus one); the first past 20 ends it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import TypeAdapter

from rules.base import Action, Event, Game, GameState, Placing
from rules.errors import IllegalAction, NotYourTurn
from rules.rng import Rng
from tests.toygame.spec import SPEC

GOAL = 20  # the first past it ends the race


class ToyState(GameState):
    positions: list[int]
    turn: int = 0
    moves: int = 0


class Roll(Action):
    kind: Literal["roll"] = "roll"
    boost: int = 0


class ToyGame(Game[ToyState]):
    spec = SPEC
    name = SPEC.name
    title = SPEC.title
    state_type = ToyState
    action_adapter = TypeAdapter(Roll)

    def new_game(self, seed: int, config: dict[str, Any]) -> ToyState:
        return ToyState(rng=Rng.from_seed(seed), positions=[0] * int(config.get("players", 2)))

    def apply(self, state: ToyState, action: Action) -> tuple[ToyState, list[Event]]:
        if self.is_terminal(state):
            raise IllegalAction("The race is over.")
        if action.seat != state.turn:
            raise NotYourTurn()
        assert isinstance(action, Roll)
        if not 0 <= action.boost <= 1:
            raise IllegalAction("Boost is 0 or 1.")
        new = state.model_copy(deep=True)
        roll = new.rng.die() + action.boost
        new.positions[action.seat] += roll
        new.moves += 1
        new.turn = (new.turn + 1) % len(new.positions)
        return new, [Event(kind="roll", text=f"seat {action.seat} rolled {roll}")]

    def to_act(self, state: ToyState) -> list[int]:
        return [] if self.is_terminal(state) else [state.turn]

    def legal_actions(self, state: ToyState, seat: int) -> list[Action]:
        return [Roll(seat=seat), Roll(seat=seat, boost=1)] if seat in self.to_act(state) else []

    def is_terminal(self, state: ToyState) -> bool:
        return max(state.positions) > GOAL

    def classification(self, state: ToyState) -> list[Placing]:
        order = sorted(range(len(state.positions)), key=lambda s: (-state.positions[s], s))
        return [Placing(seat=s, place=i + 1) for i, s in enumerate(order)]

    def robot_action(self, state: ToyState, seat: int) -> Action:
        return Roll(seat=seat)

    def simulation_config(self, players: int | None = None, **options: Any) -> dict[str, Any]:
        return {"players": players or 2}
