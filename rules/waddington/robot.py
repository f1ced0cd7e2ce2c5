"""The robot driver (Paddock rule): drives robots, absent players and simulations.

It looks one move ahead: a speed is worth the squares it gains, minus the wear of the braking
it needs now and to take the next stretch of track within the safety speeds, minus the risk of
any red band taken too fast. It takes a +20 risk only on fresh tyres and brakes, never +40,
pits when worn near the end of a lap (not on the last lap) and uses its Tactic cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.base import Action
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, catalog
from rules.waddington.engine import lap_indicator, speed_options
from rules.waddington.movement import _search, find_destinations, occupied_squares, safe_steps
from rules.waddington.state import (
    Car,
    Move,
    PlayTactic,
    Proceed,
    SetSpeed,
    SoftSpin,
    WaddingtonState,
)

if TYPE_CHECKING:
    from rules.waddington.engine import Waddington

NEG = -1.0e9


def _wear_cost(car: Car, reduction: int, brake: int, tyre: int) -> float | None:
    """Cost of slowing by `reduction` with the given gauges (None when impossible)."""
    if reduction <= 20:
        return 0.0
    race = catalog().race
    if car.special_brakes:
        return 0.0
    cost = race.reduction_cost(reduction)
    if brake + cost.brake > race.max_brake_wear or (tyre >= race.max_tyre_wear and reduction > 40):
        return None
    return cost.brake * (0.5 + 0.25 * brake) + cost.tyre * (0.6 + 0.2 * tyre)


def _next_turn_cost(car: Car, row: int, lane: int, speed: int, brake: int, tyre: int) -> float:
    """How much braking the next move needs to stay within every safety speed; NEG if it
    cannot (the robot then avoids this end square)."""
    tyre_full = tyre >= catalog().race.max_tyre_wear
    best = None
    for v in range(min(160, speed + 60), 19, -20):
        if safe_steps(row, lane, v // 20, tyre_full) != (0, 0):
            continue
        cost = _wear_cost(car, speed - v, brake, tyre) if v < speed else 0.0
        if cost is None:
            break
        best = cost - 0.01 * v if best is None else min(best, cost - 0.01 * v)
        if v <= speed:
            break
    return NEG if best is None else -best


def _want_pit(state: WaddingtonState, car: Car) -> bool:
    if lap_indicator(state, car) <= 1:
        return False
    return car.tyre >= 5 or car.brake >= 4


def _pit_gap(car: Car) -> int:
    """Squares from the car's row to its pit row (ahead, within this lap)."""
    cat = catalog()
    return (cat.pit_row_of[car.number] - car.row) % cat.length


def _evaluate(
    state: WaddingtonState,
    car: Car,
    speed: int,
    superb: bool,
    brake: int,
    tyre: int,
) -> float:
    """Best score over the end squares reachable at `speed`."""
    cat = catalog()
    steps = speed // 20
    want_pit = _want_pit(state, car)
    occupied = occupied_squares(state.cars, car.seat)
    pit_row = cat.pit_row_of[car.number] if want_pit else None
    reached, best = _search(
        cat,
        car.row,
        car.lane,
        steps,
        speed,
        occupied,
        superb,
        tyre >= cat.race.max_tyre_wear,
        pit_row,
    )
    if reached < steps:
        # baulked: judge the slowdown it forces
        score = NEG
        for d in find_destinations(state.cars, car.seat, steps, speed, superb):
            end_speed = speed
            wear = 0.0
            if d.baulk_speed is not None and d.baulk_speed < speed and d.steps > 0:
                w = _wear_cost(car, speed - d.baulk_speed, brake, tyre)
                if w is None:
                    continue
                wear, end_speed = w, d.baulk_speed
            if d.over:
                continue
            nxt = _next_turn_cost(car, d.to[0], d.to[1], end_speed, brake, tyre)
            score = max(score, d.steps - wear + nxt - 0.5)
        return score
    score = NEG
    gap = _pit_gap(car)
    for (row, lane), (cost, _path) in best.items():
        certain, over, excess, _pref = cost
        if certain:
            continue
        risk = 0.0
        if over:
            if over > 1 or excess > 20 or tyre > 3 or brake > 3:
                continue
            risk = 2.0
        if lane == PIT_LANE:
            s = 100.0
        else:
            nxt = _next_turn_cost(car, row, lane, speed, brake, tyre)
            if nxt <= NEG / 2:
                continue
            s = steps - risk + nxt
            if want_pit and 0 < gap <= 20:
                left = gap - steps
                if left <= 0:
                    s -= 8.0
                elif left * 20 <= speed + 60:
                    s += 1.0
        score = max(score, s)
    return score


def _speed_choice(state: WaddingtonState, car: Car, superb: bool) -> tuple[int, float]:
    t = state.turn
    assert t is not None
    race = catalog().race
    best_speed, best_score = 0, NEG
    for sp in speed_options(state, car):
        brake, tyre = car.brake, car.tyre
        if sp < car.speed:
            cost = race.reduction_cost(car.speed - sp)
            if not car.special_brakes:
                brake = min(race.max_brake_wear, brake + cost.brake)
                tyre = min(race.max_tyre_wear, tyre + cost.tyre)
            wear = _wear_cost(car, car.speed - sp, car.brake, car.tyre) or 0.0
        else:
            wear = 0.0
        sc = _evaluate(state, car, sp, superb, brake, tyre) - wear
        if sc > best_score:
            best_speed, best_score = sp, sc
    return best_speed, best_score


def choose(game: Waddington, state: WaddingtonState, seat: int) -> Action:
    t = state.turn
    if t is None or t.seat != seat or state.over:
        raise ValueError("the robot was asked to act out of turn")
    car = state.cars[seat]
    cards = catalog().cards
    if t.phase == "spin_choice":
        return SoftSpin(seat=seat, take_tyre_wear=car.tyre <= 5)
    if t.phase == "speed":
        speed, score = _speed_choice(state, car, t.superb)
        if not t.card_played:
            card_by_type = {cards[cid].type: cid for cid in reversed(car.hand)}
            acc = card_by_type.get("accelerate_120")
            if acc is not None and car.speed < 60:
                sc = _evaluate(state, car, 120, False, car.brake, car.tyre)
                if sc > score + 1.0:
                    return PlayTactic(seat=seat, card=acc)
            superb = card_by_type.get("superb_driving")
            if superb is not None and car.lane not in (PIT_LANE, VERGE_LANE):
                sp2, sc2 = _speed_choice(state, car, True)
                if sp2 >= speed + 40 and sc2 > score + 1.5:
                    return PlayTactic(seat=seat, card=superb)
        if speed == 0:  # nothing scored: take the slowest legal speed
            speed = speed_options(state, car)[0]
        return SetSpeed(seat=seat, speed=speed)
    if t.phase == "move":
        dests = game.destinations(state, seat)
        want_pit = _want_pit(state, car)
        best, best_score = None, NEG
        for d in dests:
            if d.pit:
                s = 1000.0 if want_pit else NEG / 4
            else:
                end_speed = car.speed
                wear = 0.0
                baulk_speed = d.baulk_speed if d.baulked else None
                if (
                    baulk_speed is not None
                    and baulk_speed < car.speed
                    and (d.steps > 0 or car.lane not in (PIT_LANE, VERGE_LANE))
                ):
                    w = _wear_cost(car, car.speed - baulk_speed, car.brake, car.tyre)
                    wear = 50.0 if w is None else w
                    end_speed = baulk_speed
                risky = sum(3.0 + b.excess / 10 for b in d.bands if b.excess > 0)
                nxt = _next_turn_cost(car, d.to[0], d.to[1], end_speed, car.brake, car.tyre)
                s = d.steps * 2 - wear - risky + max(nxt, -20.0)
            if best is None or s > best_score:
                best, best_score = d, s
        assert best is not None
        return Move(seat=seat, to=best.to)
    if t.phase == "after_move":
        options = game._window_options(state, car)
        pending = len(t.pending)
        by_type: dict[str, list[PlayTactic]] = {}
        for a in options:
            assert isinstance(a, PlayTactic)
            by_type.setdefault(cards[a.card].type, []).append(a)
        if "tyre_care" in by_type and (car.tyre >= 6 or (pending and car.tyre >= 4)):
            return by_type["tyre_care"][0]
        if "extra_move" in by_type:
            best_a, best_s = None, 0.0
            for a in by_type["extra_move"]:
                card = cards[a.card]
                assert a.to is not None
                ds = find_destinations(state.cars, seat, card.squares, car.speed, allow_pit=False)
                d = next(x for x in ds if x.to == a.to)
                if d.over:
                    continue
                nxt = _next_turn_cost(car, d.to[0], d.to[1], car.speed, car.brake, car.tyre)
                if nxt <= NEG / 2:
                    continue
                s = d.steps + nxt
                if s > best_s:
                    best_a, best_s = a, s
            if best_a is not None:
                return best_a
        if "brake_adjust" in by_type and car.brake >= 3:
            return by_type["brake_adjust"][0]
        if "tyre_care" in by_type and car.tyre >= 4:
            return by_type["tyre_care"][0]
        return Proceed(seat=seat)
    return game.legal_actions(state, seat)[0]
