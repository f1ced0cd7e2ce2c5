"""A scenario builder: state a race position in a few lines (tests, tutorials, examples).

    state = build("barcelona", [
        {"name": "Blue", "seat": 0, "section": 16, "trajectory": "B16a",
         "hand": [card("red", 3), card("orange", 1)], "chips": 5},
        {"name": "Robot", "robot": "fast", "section": 5, "mark": "ended"},
    ], turn=7, deck_top=[card("yellow", 1)])
    state = begin(state, 0)          # car 0 starts its individual turn (phase A)

Cars are numbered in list order; cars sharing a section stand in list order, front first.
`deck_top` lists the next Race cards to be drawn, first drawn first.
"""

from __future__ import annotations

from typing import Any

from rules.base import Event
from rules.rf90 import catalog as cat
from rules.rf90.engine import RF90, Ctx, go_off_track, leader
from rules.rf90.spec import SPEC
from rules.rf90.state import ROBOT_SEAT, Car, Pending, RF90State, RobotTurn
from rules.rng import Rng


def card(colour: str, mp: int, *, exclude: set[int] | None = None, **attrs: Any) -> int:
    """A Race card id of this colour and MP (and attributes), skipping ids in `exclude`."""
    skip = exclude or set()
    for cid, c in cat.race_deck().items():
        if cid in skip or c.colour != colour or c.mp != mp:
            continue
        if all(getattr(c, k) == v for k, v in attrs.items()):
            return cid
    raise ValueError(f"no race card {colour} +{mp} {attrs}")


def cards(spec: list[tuple[str, int]], **attrs: Any) -> list[int]:
    """Distinct card ids for a list of (colour, mp)."""
    out: list[int] = []
    for colour, mp in spec:
        out.append(card(colour, mp, exclude=set(out), **attrs))
    return out


def build(
    track: str,
    cars: list[dict[str, Any]],
    *,
    turn: int = 5,
    weather: int = 0,
    deck_top: list[int] | None = None,
    seed: int = 0,
    bag: tuple[int, int] | None = None,
) -> RF90State:
    tr = cat.track(track)
    built: list[Car] = []
    sections: list[list[int]] = [[] for _ in tr.sections]
    used: set[int] = set()
    for i, spec in enumerate(cars):
        spec = dict(spec)
        spec.setdefault("name", f"Car {i}")
        if spec.get("robot") is None:
            spec.setdefault("seat", i)
            spec.setdefault("colour", SPEC.colours[spec["seat"] % len(SPEC.colours)])
            spec.setdefault("tyre", "hard")
            spec.setdefault("chips", 12)
            spec.setdefault("fuel_turn", 99)
            spec.setdefault("qual_card", card("yellow", 2, exclude=used))
        else:
            spec.setdefault("tyre", "hard")
            spec.setdefault("colour", cat.tables().robots.colours[spec["robot"]])
        spec.setdefault("mulligan_done", True)
        car = Car(id=i, **spec)
        used.update(car.hand)
        if car.qual_card:
            used.add(car.qual_card)
        if not car.off_track:
            sections[car.section].append(i)
        built.append(car)
    top = list(deck_top or [])
    rest = [c for c in sorted(cat.race_deck()) if c not in used and c not in top]
    rng = Rng.from_seed(seed)
    race_draw = rng.shuffled(rest) + list(reversed(top))
    track_draw = [c for c in sorted(cat.track_deck(track)) if c not in used]
    humans = sum(1 for c in built if c.seat is not None)
    red, brown = bag or cat.tables().damage_bag.by_players[max(1, min(humans, 6))]
    red -= sum(c.damage_red for c in built)
    brown -= sum(c.damage_brown for c in built)
    state = RF90State(
        rng=rng,
        track=track,
        phase="race",
        turn=turn,
        cars=built,
        sections=sections,
        race_draw=race_draw,
        track_draw=track_draw,
        bag_red=red,
        bag_brown=brown,
        weather=weather,
        grid_order=[c.id for c in built],
    )
    lead = leader(Ctx(state))
    if lead is not None and not state.cars[lead].off_track:
        lst = state.sections[state.cars[lead].section]
        state.deferred = lst[: lst.index(lead)]  # as at the start of a game turn (FAS case 3)
    return state


def begin(state: RF90State, car_id: int) -> RF90State:
    """Car `car_id` (a player's car) starts its individual turn, in phase A."""
    s = state.model_copy(deep=True)
    order = race_order_ids(s)
    s.pending = Pending(
        car=car_id,
        phase="A",
        trajectory=s.cars[car_id].trajectory,
        start_section=s.cars[car_id].section,
        start_lap=s.cars[car_id].lap,
        ahead_at_start=order[: order.index(car_id)],
    )
    return s


def advance(game: RF90, state: RF90State) -> tuple[RF90State, list[Event]]:
    """Let the engine run its automatic steps (robots, activation, duels) from this state.

    In a race without player seats the robot turns are RobotTurn actions: they are played too.
    """
    ctx = Ctx(state.model_copy(deep=True))
    game._advance(ctx)
    state, events = ctx.s, ctx.events
    while state.robot_next is not None:
        state, more = game.apply(state, RobotTurn(seat=ROBOT_SEAT, car=state.robot_next))
        events += more
    return state, events


def off_track(state: RF90State, car_id: int, corner_section: int) -> tuple[RF90State, list[Event]]:
    """Send a car off the track at this corner (phase E resolution), as after a failed check."""
    ctx = Ctx(state.model_copy(deep=True))
    go_off_track(ctx, ctx.s.cars[car_id], corner_section)
    return ctx.s, ctx.events


def race_order_ids(state: RF90State) -> list[int]:
    from rules.rf90.engine import race_order

    return race_order(Ctx(state))


def leader_id(state: RF90State) -> int | None:
    return leader(Ctx(state))
