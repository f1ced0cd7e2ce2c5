"""A small scenario builder: put cars where a rulebook example needs them (tests, tutorials).

    state = build([
        {"colour": "Red", "row": 8, "lane": 2, "speed": 120},
        {"colour": "Blue", "row": 40, "lane": 1},
    ], throws=[9])

Each car dict may give: colour or number, name, row, lane (-1 = in its pit, 3 = off the track),
lap (1-based, default 1) or dist, speed, tyre, brake, hand (card ids), lose_turns, burst,
special_brakes, spun_at, status. Seats are numbered in list order. `throws` makes the state's
dice produce those two-dice totals, in order, by searching for a suitable random seed.
"""

from __future__ import annotations

from typing import Any

from rules.rng import Rng
from rules.waddington.catalog import catalog
from rules.waddington.state import Car, Settings, TurnState, WaddingtonState

_CAR_KEYS = {
    "colour",
    "number",
    "name",
    "row",
    "lane",
    "lap",
    "dist",
    "speed",
    "tyre",
    "brake",
    "hand",
    "lose_turns",
    "burst",
    "special_brakes",
    "spun_at",
    "status",
    "robot",
}


def rng_with_throws(throws: list[int], search: int = 2_000_000) -> Rng:
    """An Rng whose next len(throws) two-dice totals are `throws` (die() + die() each)."""
    for seed in range(search):
        rng = Rng.from_seed(seed)
        probe = rng.model_copy()
        if all(probe.die() + probe.die() == want for want in throws):
            return rng
    raise ValueError(f"no seed below {search} throws {throws}")


def rng_with_faces(faces: list[int], search: int = 2_000_000) -> Rng:
    """An Rng whose next len(faces) die() results are `faces`."""
    for seed in range(search):
        rng = Rng.from_seed(seed)
        probe = rng.model_copy()
        if all(probe.die() == want for want in faces):
            return rng
    raise ValueError(f"no seed below {search} gives faces {faces}")


def build(
    cars: list[dict[str, Any]],
    *,
    seed: int = 0,
    throws: list[int] | None = None,
    laps: int = 3,
    to_move: int = 0,
    phase: str = "speed",
    pit_deck: list[str] | None = None,
    round: int = 1,
    **settings: Any,
) -> WaddingtonState:
    """A race state with the given cars; seat `to_move` is about to act in `phase`."""
    cat = catalog()
    built: list[Car] = []
    for seat, spec in enumerate(cars):
        unknown = set(spec) - _CAR_KEYS
        if unknown:
            raise ValueError(f"unknown car keys {sorted(unknown)}")
        if "number" in spec:
            number = spec["number"]
        elif "colour" in spec:
            number = next(c.number for c in cat.race.cars if c.colour == spec["colour"])
        else:
            number = seat + 1
        row = spec.get("row", cat.grid_of[number][0])
        lane = spec.get("lane", cat.grid_of[number][1])
        dist = spec.get("dist", (spec.get("lap", 1) - 1) * cat.length + row)
        built.append(
            Car(
                seat=seat,
                name=spec.get("name", cat.colour_of[number]),
                robot=spec.get("robot", False),
                number=number,
                colour=cat.colour_of[number],
                row=row,
                lane=lane,
                dist=dist,
                speed=spec.get("speed", 0),
                tyre=spec.get("tyre", 0),
                brake=spec.get("brake", 0),
                hand=list(spec.get("hand", [])),
                lose_turns=spec.get("lose_turns", 0),
                burst=spec.get("burst", False),
                special_brakes=spec.get("special_brakes", False),
                spun_at=spec.get("spun_at"),
                status=spec.get("status", "running"),
            )
        )
    numbers = [c.number for c in built]
    if len(set(numbers)) != len(numbers):
        raise ValueError("two cars share a number")
    order = sorted(range(len(built)), key=lambda s: built[s].number)
    rng = rng_with_throws(throws) if throws else Rng.from_seed(seed)
    dealt = {cid for c in built for cid in c.hand}
    mover = built[to_move]
    return WaddingtonState(
        rng=rng,
        circuit=cat.circuit.name,
        settings=Settings(laps=laps, **settings),
        cars=built,
        order=order,
        round=round,
        turn_index=order.index(to_move),
        turn=TurnState(
            seat=to_move,
            phase=phase,  # type: ignore[arg-type]
            start_speed=mover.speed,
            start_dist=mover.dist,
        ),
        pit_deck=list(pit_deck) if pit_deck is not None else list(cat.pit_ids),
        tactic_undealt=[cid for cid in cat.tactic_ids if cid not in dealt],
    )


def card_of_type(kind: str, squares: int = 0) -> str:
    """The first Tactic or Pit card id of a type (and, for extra moves, of a length)."""
    for cid, card in catalog().cards.items():
        if card.type == kind and (not squares or card.squares == squares):
            return cid
    raise KeyError(kind)
