"""Championships: points tables and standings, independent of any game.

Standings order (see docs/rules/championship.md): points; then countback (most wins, then
most second places, and so on); then the earlier result (the better place in the earliest
round where the two drivers differ); drivers still level share the position.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TypeVar

from pydantic import BaseModel, Field, field_validator

from rules.errors import PaddockError

T = TypeVar("T")


def game_kinds() -> dict[str, str]:
    """Every registered game's title, by name: the games a league may be of."""
    from rules.base import games

    return {name: game.title for name, game in games().items()}


def car_colours(kind: str) -> list[str]:
    """The car colours a league member of this game may claim (none: no choice)."""
    from rules.base import get_game

    return list(get_game(kind).spec.colours)


class PointsTable(BaseModel):
    name: str
    title: str
    points: list[int] = Field(min_length=1)
    source: str

    @field_validator("points")
    @classmethod
    def _non_increasing(cls, v: list[int]) -> list[int]:
        if any(p < 0 for p in v) or any(a < b for a, b in zip(v, v[1:], strict=False)):
            raise ValueError("points must be non-negative and never increase with the place")
        return v

    def points_for(self, place: int | None) -> int:
        """Points for a finishing place (1-based); no place or beyond the table scores 0."""
        if place is None or place < 1 or place > len(self.points):
            return 0
        return self.points[place - 1]

    def describe(self) -> str:
        return "-".join(str(p) for p in self.points)


class _TablesFile(BaseModel):
    default: str
    tables: list[PointsTable]


@cache
def _tables_file() -> _TablesFile:
    raw = resources.files("rules.data").joinpath("points_tables.json").read_text("utf-8")
    data = _TablesFile.model_validate(json.loads(raw))
    names = [t.name for t in data.tables]
    if len(set(names)) != len(names) or data.default not in names:
        raise ValueError("points_tables.json: names must be unique and include the default")
    return data


def points_tables() -> dict[str, PointsTable]:
    return {t.name: t for t in _tables_file().tables}


def default_points_table() -> PointsTable:
    return points_tables()[_tables_file().default]


def get_points_table(name: str) -> PointsTable:
    tables = points_tables()
    if name not in tables:
        raise PaddockError(
            f"There is no points table called `{name}`. Choose one of: {', '.join(tables)}."
        )
    return tables[name]


def parse_custom_points(text: str) -> list[int]:
    """'10-8-6-4-2-1' or '10,8,6' -> [10, 8, 6, ...]; PaddockError when malformed."""
    parts = [p for p in text.replace(",", "-").replace(" ", "-").split("-") if p]
    try:
        values = [int(p) for p in parts]
    except ValueError:
        values = []
    if not values or len(values) > 30 or any(v < 0 or v > 1000 for v in values):
        raise PaddockError(
            "Write the points from first place down, like `10-8-6-4-2-1` (up to 30 places)."
        )
    if any(a < b for a, b in zip(values, values[1:], strict=False)):
        raise PaddockError("Points must not increase from one place to the next.")
    return values


def places_among_members(
    placings: list[tuple[T, int | None, str]],
) -> list[tuple[T, int | None, str]]:
    """A league's default for races with robots: (driver, place, status) renumbered 1, 2, ...
    in finishing order among the drivers given, so a robot's place is nobody's (Paddock
    rule); a driver without a place keeps none."""
    ranked = sorted(placings, key=lambda r: (r[1] is None, r[1] or 0))
    return [(d, i + 1 if p is not None else None, s) for i, (d, p, s) in enumerate(ranked)]


class RoundResult(BaseModel):
    """One driver's result in one round. `place` None means not classified / did not start."""

    round: int
    member: str
    place: int | None
    status: str = "finished"


class StandingRow(BaseModel):
    position: int
    tied: bool
    member: str
    points: int
    places: dict[int, int]
    rounds: int
    best: int | None


def standings(
    members: list[str], results: list[RoundResult], table: PointsTable
) -> list[StandingRow]:
    """Order members by points, countback, then the earlier result; ties share a position."""
    by_member: dict[str, list[RoundResult]] = {m: [] for m in members}
    for r in results:
        by_member.setdefault(r.member, []).append(r)
    rounds = sorted({r.round for r in results})
    max_place = max([r.place or 0 for r in results] + [1])

    def key(member: str) -> tuple:
        res = by_member[member]
        pts = sum(table.points_for(r.place) for r in res)
        countback = tuple(sum(1 for r in res if r.place == p) for p in range(1, max_place + 1))
        place_in = {r.round: r.place for r in res}
        # Earlier result: in calendar order, a better place (lower number) ranks ahead;
        # no result counts as worse than any place.
        earlier = tuple(-(place_in.get(rnd) or max_place + 1) for rnd in rounds)
        return (pts, countback, earlier)

    # Stable sorts: alphabetical first, so drivers still level are listed by name.
    ordered = sorted(by_member, key=str.casefold)
    ordered.sort(key=key, reverse=True)
    rows: list[StandingRow] = []
    prev_key = None
    position = 0
    for index, member in enumerate(ordered):
        k = key(member)
        if k != prev_key:
            position = index + 1
        prev_key = k
        res = by_member[member]
        places: dict[int, int] = {}
        for r in res:
            if r.place is not None:
                places[r.place] = places.get(r.place, 0) + 1
        rows.append(
            StandingRow(
                position=position,
                tied=False,
                member=member,
                points=k[0],
                places=places,
                rounds=len(res),
                best=min(places) if places else None,
            )
        )
    counts: dict[int, int] = {}
    for row in rows:
        counts[row.position] = counts.get(row.position, 0) + 1
    for row in rows:
        row.tied = counts[row.position] > 1
    return rows
