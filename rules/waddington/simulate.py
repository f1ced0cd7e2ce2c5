"""Robot-only races, for balance checks and determinism tests."""

from __future__ import annotations

from typing import Any

from rules.waddington.engine import Waddington

MAX_ACTIONS = 20000


def simulate(seed: int, players: int = 4, laps: int = 3, **settings: Any) -> dict[str, Any]:
    """Race `players` robots over `laps` laps from `seed`; a JSON-ready summary.

    Same arguments -> the same dict. Extra keyword arguments are race settings
    (soft_tactic_after_dice, soft_spin_tyres, more_than_six; public_card_window=False for the
    card window of races started before it).
    """
    game = Waddington()
    state = game.new_game(seed, game.simulation_config(players, laps, **settings))
    actions = 0
    spins = 0
    pit_stops = 0
    while not game.is_terminal(state):
        if actions >= MAX_ACTIONS:
            raise RuntimeError(f"simulation {seed} did not finish in {MAX_ACTIONS} actions")
        seat = game.to_act(state)[0]
        state, events = game.apply(state, game.robot_action(state, seat))
        actions += 1
        for e in events:
            spins += e.kind == "spin"
            pit_stops += e.kind == "pit"
    placing = game.classification(state)
    return {
        "game": game.name,
        "seed": seed,
        "players": players,
        "laps": laps,
        "turns": state.round,
        "actions": actions,
        "spins": spins,
        "pit_stops": pit_stops,
        "classification": [
            {
                "seat": p.seat,
                "colour": state.cars[p.seat].colour,
                "number": state.cars[p.seat].number,
                "place": p.place,
                "status": p.status,
                "distance": state.cars[p.seat].dist,
            }
            for p in placing
        ],
    }
