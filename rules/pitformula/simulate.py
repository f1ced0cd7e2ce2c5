"""Robot-only championships for `paddock simulate pitformula` and the demo.

Play is simultaneous, so the next action is the one with the earliest virtual time among every
seat that may act (ties: lowest seat). No sleeping: time is only the actions' `at_ms`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.pitformula.catalog import FLAG_NAMES
from rules.pitformula.state import Skill

if TYPE_CHECKING:
    from rules.pitformula.engine import PitFormula

SIM_MODES = ("standard", "basic", "points", "standard-score", "doubles", "constructors", "solo")
_SKILLS = [
    Skill(speed_ms=4500, error_rate=0.08, greed=0.5),
    Skill(speed_ms=5500, error_rate=0.05, greed=0.3),
    Skill(speed_ms=6500, error_rate=0.03, greed=0.2),
    Skill(speed_ms=7500, error_rate=0.02, greed=0.1),
]
MAX_ACTIONS = 20_000


def simulation_config(players: int | None = None, mode: str | None = None) -> dict[str, Any]:
    mode = mode or "standard"
    if mode not in SIM_MODES and mode != "coop":
        raise ValueError(f"unknown mode {mode!r} (known: {', '.join(SIM_MODES)}, coop)")
    config: dict[str, Any] = {"mode": "standard", "players": players or 4}
    if mode == "basic":
        config["basic"] = True
    elif mode == "points":
        config["points_target"] = 40
    elif mode == "standard-score":
        config["standard_score"] = True
    elif mode == "doubles":
        config.update(mode="pitcrew", players=players or 4)
    elif mode == "constructors":
        config.update(mode="constructors", players=players or 4)
    elif mode == "solo":
        config.update(mode="solo", players=players or 1)
    elif mode == "coop":
        config.update(mode="coop", players=players or 2)
    skills = _SKILLS if mode not in ("solo", "coop") else [Skill(speed_ms=5000, greed=0.2)] * 2
    config["skills"] = [s.model_dump() for s in skills[: config["players"]]]
    return config


def simulate(game: PitFormula, seed: int, **options: Any) -> dict[str, Any]:
    config = game.simulation_config(**options)
    state = game.new_game(seed, config)
    actions = 0
    while not game.is_terminal(state):
        seats = game.to_act(state)
        if state.phase == "ready":
            action = game.robot_action(state, seats[0])
        else:
            choices = [game.robot_action(state, s) for s in seats]
            action = min(choices, key=lambda a: (getattr(a, "at_ms", None) or 0, a.seat))
        state, _ = game.apply(state, action)
        actions += 1
        if actions > MAX_ACTIONS:
            raise RuntimeError("simulation did not finish")
    races = []
    for r in state.results:
        races.append(
            {
                "race": r.number,
                "crash": r.crash,
                "super": r.super,
                "trophy": r.trophy,
                "flags": {FLAG_NAMES[cr.flag]: cr.car for cr in r.cars if cr.flag is not None},
                "unscored_flags": [FLAG_NAMES[f] for f in r.unscored_flags],
                "errors": {str(cr.car): cr.errors for cr in r.cars if cr.errors},
                "points": [cr.points for cr in r.cars],
                "rival_points": r.rival.points if r.rival else None,
            }
        )
    return {
        "game": game.name,
        "seed": seed,
        "mode": options.get("mode") or "standard",
        "config": {k: v for k, v in config.items() if k != "skills"},
        "cars": [car.seats for car in state.cars],
        "actions": actions,
        "races": races,
        "scores": [car.score for car in state.cars],
        "rival_score": state.rival_score if state.settings.solo else None,
        "trophies": [len(car.trophies) for car in state.cars],
        "classification": [p.model_dump(mode="json") for p in game.classification(state)],
    }
