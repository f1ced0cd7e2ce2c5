"""Robot-only RF90 races (player seats driven by the robot policy), for balance checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.rf90.engine import RF90

MAX_ACTIONS = 50_000


def simulate(game: RF90, seed: int, **options: Any) -> dict[str, Any]:
    """Play to the end from `seed`; a JSON-ready summary (same seed and options, same dict)."""
    config = game.simulation_config(**options)
    state = game.new_game(seed, config)
    actions = 0
    pit_events = 0
    while not game.is_terminal(state):
        if actions >= MAX_ACTIONS:
            raise RuntimeError(f"rf90 simulation {seed} did not finish in {MAX_ACTIONS} actions")
        seat = game.to_act(state)[0]
        state, events = game.apply(state, game.robot_action(state, seat))
        actions += 1
        pit_events += sum(1 for e in events if e.kind == "pit")
    return {
        "game": game.name,
        "track": state.track,
        "seed": seed,
        "players": sum(1 for c in state.cars if c.seat is not None),
        "turns": state.turn,
        "actions": actions,
        "weather": state.weather,
        "classification": [
            {
                "place": place,
                "car": car.id,
                "seat": car.seat,
                "robot": car.robot,
                "name": car.name,
                "status": car.status,
                "pit_stops": car.pit_stops,
                "lap": car.lap,
                "section": car.section,
                "damage": car.damage,
            }
            for place, car in enumerate(game.race_classification(state), start=1)
        ],
    }
