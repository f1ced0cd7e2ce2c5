"""The static data of Waddington's Formula 1: circuit, charts, cards and cars.

Everything here is loaded once from the JSON files in `rules/waddington/data/` (via
importlib.resources), validated by pydantic models and cached. Nothing here is part of a game
state: states refer to the circuit by name and to cards by id.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import Field, model_validator

from rules.base import Model

Square = tuple[int, int]

PIT_LANE = -1  # a car in its pit stands in "lane -1" beside its pit row
VERGE_LANE = 3  # a spun car stands off the track, outside the outer lane


def _read(name: str) -> object:
    raw = resources.files("rules.waddington.data").joinpath(name).read_text("utf-8")
    return json.loads(raw)


# --- circuit --------------------------------------------------------------------------------


class RowGeometry(Model):
    row: int
    centre: tuple[float, float]
    heading: float
    squares: list[tuple[float, float]] = Field(min_length=3, max_length=3)
    pit: tuple[float, float]
    verge: tuple[float, float]


class Corner(Model):
    name: str
    first_row: int
    last_row: int
    spin_off_row: int


class Band(Model):
    row: int
    corner: str
    safety: list[int] = Field(min_length=3, max_length=3)
    source: str = "Paddock rule"


class Obstacle(Model):
    name: str
    kind: Literal["island", "pool"]
    squares: list[Square]


class PitSquare(Model):
    number: int
    row: int


class GridSlot(Model):
    number: int
    row: int
    lane: int


class ChequeredLine(Model):
    after_row: int
    ends: list[tuple[float, float]]


class Circuit(Model):
    name: str
    title: str
    source: str
    length: int = Field(ge=20)
    lanes: Literal[3] = 3
    rows: list[RowGeometry]
    corners: list[Corner]
    bands: list[Band]
    obstacles: list[Obstacle]
    pits: list[PitSquare]
    grid: list[GridSlot]
    chequered_line: ChequeredLine

    @model_validator(mode="after")
    def _check(self) -> Circuit:
        n = self.length
        if [r.row for r in self.rows] != list(range(n)):
            raise ValueError("rows must be numbered 0..length-1 in order")
        if self.chequered_line.after_row != n - 1:
            raise ValueError("the chequered line sits after the last row")
        corners = {c.name: c for c in self.corners}
        seen: set[int] = set()
        for b in self.bands:
            if b.row in seen or not 0 <= b.row < n:
                raise ValueError(f"band row {b.row} repeated or off the circuit")
            seen.add(b.row)
            if any(s <= 0 or s % 20 for s in b.safety):
                raise ValueError("safety speeds are positive multiples of 20")
            c = corners.get(b.corner)
            if c is None or not c.first_row <= b.row <= c.last_row:
                raise ValueError(f"band at row {b.row} is outside its corner {b.corner!r}")
        for c in self.corners:
            if not c.first_row <= c.spin_off_row <= c.last_row:
                raise ValueError(f"{c.name}: spin-off row must lie inside the corner")
        blocked = self.blocked_squares()
        for r in range(n):
            nxt = (r + 1) % n
            open_here = [lane for lane in range(3) if (r, lane) not in blocked]
            if not open_here:
                raise ValueError(f"row {r} has no open lane")
            for lane in open_here:
                if all((nxt, to) in blocked for to in (lane - 1, lane, lane + 1) if 0 <= to < 3):
                    raise ValueError(f"square {(r, lane)} has no way forward")
        pit_rows = [p.row for p in self.pits]
        if len(set(pit_rows)) != len(pit_rows) or any((r - 1, 0) in blocked for r in pit_rows):
            raise ValueError("pits need distinct rows entered from an open inside lane")
        grid = [(g.row, g.lane) for g in self.grid]
        if len(set(grid)) != len(grid) or any(sq in blocked for sq in grid):
            raise ValueError("grid slots must be distinct open squares")
        return self

    def blocked_squares(self) -> set[Square]:
        return {tuple(sq) for o in self.obstacles for sq in o.squares}  # type: ignore[misc]


# --- charts -------------------------------------------------------------------------------


class Penalty(Model):
    tyre: int = 0
    brake: int = 0
    spin: bool = False

    def describe(self) -> str:
        if self.spin:
            return "spin"
        parts = []
        if self.tyre:
            parts.append(f"tyre {self.tyre}")
        if self.brake:
            parts.append(f"brake {self.brake}")
        return ", ".join(parts) or "no penalty"


class ChartLine(Model):
    throw: int
    plus20: Penalty
    plus40: Penalty
    source: str


class PenaltyChart(Model):
    title: str
    source: str
    lines: list[ChartLine]

    @model_validator(mode="after")
    def _check(self) -> PenaltyChart:
        if [ln.throw for ln in self.lines] != list(range(2, 13)):
            raise ValueError("the penalty chart has one line per throw 2..12")
        return self

    def penalty(self, throw: int, excess: int) -> Penalty:
        line = self.lines[throw - 2]
        return line.plus20 if excess <= 20 else line.plus40


class CarSpec(Model):
    number: int
    colour: str
    hex: str
    source: str


class Reduction(Model):
    reduction: int
    brake: int
    tyre: int
    source: str


class RaceData(Model):
    source: str
    max_speed: int
    speed_step: int
    max_acceleration: int
    max_tyre_wear: int
    max_brake_wear: int
    min_laps: int
    max_laps: int
    default_laps: int
    hand_size: int
    restart_speed: int
    baulked_restart_max: int
    cars: list[CarSpec]
    speed_reduction: list[Reduction]

    @model_validator(mode="after")
    def _check(self) -> RaceData:
        if [c.number for c in self.cars] != list(range(1, len(self.cars) + 1)):
            raise ValueError("cars are numbered 1..n in moving order")
        steps = [r.reduction for r in self.speed_reduction]
        if steps != list(range(self.speed_step, self.max_speed + 1, self.speed_step)):
            raise ValueError("the speed reduction chart covers every reduction up to max speed")
        return self

    def reduction_cost(self, reduction: int) -> Reduction:
        return self.speed_reduction[reduction // self.speed_step - 1]


# --- cards --------------------------------------------------------------------------------


class TacticSpec(Model):
    type: Literal["superb_driving", "accelerate_120", "extra_move", "tyre_care", "brake_adjust"]
    count: int
    title: str
    timing: Literal["before_move", "after_move"]
    text: str
    source: str
    squares: int = 0
    amount: int = 0


class PitSpec(Model):
    type: Literal["lose_turn", "fast_service", "burst", "special_brakes"]
    count: int
    title: str
    text: str
    source: str
    turns: int = 0


class Card(Model):
    """One physical card; `id` is what states and actions carry."""

    id: str
    deck: Literal["tactic", "pit"]
    type: str
    title: str
    text: str
    timing: Literal["before_move", "after_move", "pit"]
    squares: int = 0
    amount: int = 0
    turns: int = 0
    source: str


class CardsFile(Model):
    source: str
    tactic: list[TacticSpec]
    pit: list[PitSpec]


class Catalog:
    """All the static data, built once."""

    def __init__(self) -> None:
        self.circuit = Circuit.model_validate(_read("circuit.json"))
        self.chart = PenaltyChart.model_validate(_read("penalty_chart.json"))
        self.race = RaceData.model_validate(_read("race.json"))
        cards_file = CardsFile.model_validate(_read("cards.json"))
        self.cards_source = cards_file.source
        cards: dict[str, Card] = {}
        tactic_ids: list[str] = []
        for spec in cards_file.tactic:
            for _ in range(spec.count):
                cid = f"T{len(tactic_ids) + 1:02d}"
                tactic_ids.append(cid)
                cards[cid] = Card(
                    id=cid,
                    deck="tactic",
                    type=spec.type,
                    title=spec.title,
                    text=spec.text,
                    timing=spec.timing,
                    squares=spec.squares,
                    amount=spec.amount,
                    source=spec.source,
                )
        pit_ids: list[str] = []
        for pspec in cards_file.pit:
            for _ in range(pspec.count):
                cid = f"P{len(pit_ids) + 1:02d}"
                pit_ids.append(cid)
                cards[cid] = Card(
                    id=cid,
                    deck="pit",
                    type=pspec.type,
                    title=pspec.title,
                    text=pspec.text,
                    timing="pit",
                    turns=pspec.turns,
                    source=pspec.source,
                )
        if len(tactic_ids) != 30 or len(pit_ids) != 16:
            raise ValueError("cards.json must hold 30 Tactic cards and 16 Pit cards")
        self.cards = cards
        self.tactic_ids = tactic_ids
        self.pit_ids = pit_ids

        c = self.circuit
        self.length = c.length
        self.blocked = frozenset(c.blocked_squares())
        self.band_at: dict[int, Band] = {b.row: b for b in c.bands}
        self.corner_by_name = {k.name: k for k in c.corners}
        self.pit_row_of = {p.number: p.row for p in c.pits}
        self.grid_of = {g.number: (g.row, g.lane) for g in c.grid}
        self.colour_of = {car.number: car.colour for car in self.race.cars}
        # open lanes of each row, for quick path search
        self.open_lanes: list[tuple[int, ...]] = [
            tuple(lane for lane in range(3) if (r, lane) not in self.blocked)
            for r in range(c.length)
        ]


@cache
def catalog() -> Catalog:
    return Catalog()
