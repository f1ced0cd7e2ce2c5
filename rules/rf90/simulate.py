"""Robot-only RF90 races (player seats driven by the seat policy), for balance checks.

`simulate` plays one race and summarises it; `simulate_races` plays a run of races (seeds
`seed`, `seed + 1`, ...) and reports, by car type (player seats and each robot type), the win
rates and the sections moved per turn (docs/rules/rf90.md, "Balance").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.rf90.engine import RF90
    from rules.rf90.state import Car, RF90State

MAX_ACTIONS = 50_000
CAR_TYPES = ("seat", "superfast", "fast", "slow")


def car_type(car: Car) -> str:
    """ "seat" for a player's car, else the robot type."""
    return car.robot or "seat"


def _play(game: RF90, seed: int, **options: Any) -> tuple[RF90State, int, int, dict[int, int]]:
    """Play one race to the end: (final state, actions, pit events, sections moved per car)."""
    config = game.simulation_config(**options)
    state = game.new_game(seed, config)
    actions = 0
    pit_events = 0
    moved = {c.id: 0 for c in state.cars}
    while not game.is_terminal(state):
        if actions >= MAX_ACTIONS:
            raise RuntimeError(f"rf90 simulation {seed} did not finish in {MAX_ACTIONS} actions")
        seat = game.to_act(state)[0]
        state, events = game.apply(state, game.robot_action(state, seat))
        actions += 1
        for e in events:
            if e.kind == "pit":
                pit_events += 1
            elif e.kind == "move":
                moved[e.data["car"]] += e.data["steps"]
    return state, actions, pit_events, moved


def simulate(game: RF90, seed: int, **options: Any) -> dict[str, Any]:
    """Play to the end from `seed`; a JSON-ready summary (same seed and options, same dict)."""
    state, actions, _pits, _moved = _play(game, seed, **options)
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


def simulate_races(game: RF90, races: int, seed: int = 1, **options: Any) -> dict[str, Any]:
    """Play `races` races (seeds seed .. seed + races - 1) and report by car type.

    - `cars`: how many cars of each type start a race;
    - `wins`, `win_rate`: races won by a car of that type (the rates sum to 1);
    - `win_rate_per_car`: the same shared among the cars of the type (a seat's own chance);
    - `sections_per_turn`: sections moved forward per individual turn played (pit stops and
      turns off the track included as played turns, their moves back not counted);
    - `seat_beats_superfast`: the share of (race, seat) pairs in which that seat finishes ahead
      of every SuperFast robot (the balance target: docs/rules/rf90.md, "Balance");
    - `out`: the share of cars of the type that did not finish (retired or out of fuel).
    """
    if races < 1:
        raise ValueError("simulate at least one race")
    wins = dict.fromkeys(CAR_TYPES, 0)
    cars = dict.fromkeys(CAR_TYPES, 0)
    moved = dict.fromkeys(CAR_TYPES, 0)
    turns = dict.fromkeys(CAR_TYPES, 0)
    out = dict.fromkeys(CAR_TYPES, 0)
    seat_races = seat_beats = 0
    track = ""
    for k in range(races):
        state, _actions, _pits, race_moved = _play(game, seed + k, **options)
        track = state.track
        order = game.race_classification(state)
        wins[car_type(order[0])] += 1
        place = {c.id: i for i, c in enumerate(order)}
        superfast = [place[c.id] for c in state.cars if c.robot == "superfast"]
        for car in state.cars:
            kind = car_type(car)
            if k == 0:
                cars[kind] += 1
            moved[kind] += race_moved[car.id]
            turns[kind] += car.out_turn if car.out_turn is not None else state.turn
            out[kind] += not car.running
            if kind == "seat":
                seat_races += 1
                seat_beats += all(place[car.id] < p for p in superfast)
    types = [t for t in CAR_TYPES if cars[t]]
    return {
        "game": game.name,
        "track": track,
        "races": races,
        "first_seed": seed,
        "players": cars["seat"],
        "cars": {t: cars[t] for t in types},
        "wins": {t: wins[t] for t in types},
        "win_rate": {t: round(wins[t] / races, 4) for t in types},
        "win_rate_per_car": {t: round(wins[t] / races / cars[t], 4) for t in types},
        "sections_per_turn": {t: round(moved[t] / max(1, turns[t]), 3) for t in types},
        "seat_beats_superfast": round(seat_beats / seat_races, 4) if seat_races else None,
        "out": {t: round(out[t] / (races * cars[t]), 4) for t in types},
    }
