"""Where a car can go: paths, red bands crossed and baulking.

A move of `steps` squares goes forward one row per step, into the same lane or a diagonal
neighbour (§G rule 22), never into a square that holds a car or an island (§G rules 23-24).
For each end square the engine uses the path that crosses the fewest red bands over the safety
speed (Paddock rule; the order is: certain spins, then bands over the safety speed, then the
total excess speed, then the path that keeps to the outer lanes).
"""

from __future__ import annotations

from functools import cache

from rules.base import Model
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, Catalog, catalog

Square = tuple[int, int]


class BandPass(Model):
    """A red band a path crosses, with the lane's safety speed and the excess over it."""

    row: int
    lane: int
    corner: str
    safety: int
    excess: int  # speed minus safety speed, 0 when within it


class Destination(Model):
    """One end square the car may move to at the chosen speed (the Discord layer letters them)."""

    to: Square  # (row, lane); lane -1 = the car's own pit
    steps: int
    path: list[Square]  # every square entered, in order (the last is `to`)
    bands: list[BandPass]  # red bands entered on the way
    over: int  # how many of them are above the safety speed (and not covered by Superb Driving)
    pit: bool = False
    baulked: bool = False
    baulked_by: int | None = None  # seat of the baulking car
    baulk_speed: int | None = None  # its speed


def _search(
    cat: Catalog,
    row: int,
    lane: int,
    steps: int,
    speed: int,
    occupied: frozenset[Square] | set[Square],
    superb: bool,
    tyre_full: bool,
    pit_row: int | None,
) -> tuple[int, dict[Square, tuple[tuple[int, int, int, int], list[Square]]]]:
    """Best path to every square of the deepest level reached (at most `steps`).

    Returns (level reached, {square: (cost, path)}). Level 0 means the car cannot move.
    When `pit_row` is given and the pit is reached at exactly `steps`, the pit square
    (pit_row, -1) is included in the result at level `steps`.
    """
    length = cat.length
    band_at = cat.band_at
    open_lanes = cat.open_lanes
    off_track = lane in (PIT_LANE, VERGE_LANE)
    level: dict[int, tuple[tuple[int, int, int, int], list[Square]]] = {lane: ((0, 0, 0, 0), [])}
    reached = 0
    pit_hit = None
    r = row
    for i in range(1, steps + 1):
        r = (r + 1) % length
        band = band_at.get(r)
        nxt: dict[int, tuple[tuple[int, int, int, int], list[Square]]] = {}
        for to in open_lanes[r]:
            if (r, to) in occupied:
                continue
            best = None
            for frm, (cost, path) in level.items():
                # §G rules 22 and 24: leaving the pit (inside) or the verge (outside), the
                # first step also goes straight or diagonally, never across lanes.
                if abs(frm - to) > 1:
                    continue
                if best is None or cost < best[0] or (cost == best[0] and frm > best[2]):
                    best = (cost, path, frm)
            if best is None:
                continue
            cost, path, _ = best
            if band is not None:
                excess = speed - band.safety[to]
                if excess > 0 and not superb:
                    certain = 1 if (excess >= 60 or tyre_full) else 0
                    cost = (cost[0] + certain, cost[1] + 1, cost[2] + excess, cost[3] + 2 - to)
                else:
                    cost = (cost[0], cost[1], cost[2], cost[3] + 2 - to)
            else:
                cost = (cost[0], cost[1], cost[2], cost[3] + 2 - to)
            nxt[to] = (cost, path + [(r, to)])
        if (
            pit_row is not None
            and i == steps
            and r == pit_row
            and 0 in level
            and (i > 1 or not off_track)
        ):
            cost, path = level[0]
            pit_hit = (cost, path + [(r, PIT_LANE)])
        if not nxt:
            break
        level = nxt
        reached = i
    end_row = (row + reached) % length
    result = {(end_row, ln): v for ln, v in level.items()} if reached else {}
    if pit_hit is not None:
        result[(pit_row, PIT_LANE)] = pit_hit  # type: ignore[index]
        if reached < steps:
            reached = steps
            result = {(pit_row, PIT_LANE): pit_hit}  # type: ignore[dict-item]
    return reached, result


def band_passes(cat: Catalog, path: list[Square], speed: int, superb: bool) -> list[BandPass]:
    out = []
    for r, ln in path:
        band = cat.band_at.get(r)
        if band is None or ln < 0 or ln > 2:
            continue
        excess = 0 if superb else max(0, speed - band.safety[ln])
        out.append(
            BandPass(row=r, lane=ln, corner=band.corner, safety=band.safety[ln], excess=excess)
        )
    return out


def occupied_squares(cars: list, exclude_seat: int) -> set[Square]:
    return {
        (c.row, c.lane)
        for c in cars
        if c.status == "running" and c.seat != exclude_seat and 0 <= c.lane <= 2
    }


def find_destinations(
    cars: list,
    seat: int,
    steps: int,
    speed: int,
    superb: bool = False,
    allow_pit: bool = True,
) -> list[Destination]:
    """Every end square for a move of `steps` squares at `speed` (baulked ends when blocked)."""
    cat = catalog()
    car = cars[seat]
    occupied = occupied_squares(cars, seat)
    pit_row = cat.pit_row_of[car.number] if allow_pit else None
    tyre_full = car.tyre >= cat.race.max_tyre_wear
    if steps <= 0:
        return [Destination(to=(car.row, car.lane), steps=0, path=[], bands=[], over=0)]
    reached, best = _search(
        cat, car.row, car.lane, steps, speed, occupied, superb, tyre_full, pit_row
    )
    baulked = reached < steps
    out: list[Destination] = []
    if reached == 0:
        best = {(car.row, car.lane): ((0, 0, 0, 0), [])}
    for sq, (_cost, path) in best.items():
        passes = band_passes(cat, path, speed, superb)
        d = Destination(
            to=sq,
            steps=len(path),
            path=path,
            bands=passes,
            over=sum(1 for p in passes if p.excess > 0),
            pit=sq[1] == PIT_LANE and len(path) > 0,
        )
        if baulked:
            blocker = _baulker(cat, cars, seat, sq)
            d.baulked = True
            if blocker is not None:
                d.baulked_by = blocker.seat
                d.baulk_speed = blocker.speed
        out.append(d)
    out.sort(key=lambda d: (d.pit, d.to[1]))
    return out


def _baulker(cat: Catalog, cars: list, seat: int, sq: Square):
    """The car that stops a baulked car at `sq`: the one straight ahead, else the slowest of
    those diagonally ahead. From the pit (beside lane 0) or the verge (beside lane 2) only
    the lane beside it is diagonally ahead (§G rule 22)."""
    r, ln = sq
    nr = (r + 1) % cat.length
    lanes = [x for x in (ln - 1, ln, ln + 1) if 0 <= x < 3]
    ahead = None
    cands = []
    for c in cars:
        if c.seat == seat or c.status != "running" or c.row != nr or c.lane not in lanes:
            continue
        if c.lane == ln:
            ahead = c
        cands.append(c)
    if ahead is not None:
        return ahead
    if not cands:
        return None
    return min(cands, key=lambda c: (c.speed, c.seat))


@cache
def safe_steps(row: int, lane: int, steps: int, tyre_full: bool = False) -> tuple[int, int]:
    """(certain spins, bands over safety) of the best empty-track path of `steps` squares
    at 20*steps mph from (row, lane). Used by the robot to look ahead; cached per circuit."""
    cat = catalog()
    reached, best = _search(cat, row, lane, steps, steps * 20, frozenset(), False, tyre_full, None)
    if reached < steps or not best:
        return (9, 9)
    cost = min(v[0] for v in best.values())
    return (cost[0], cost[1])
