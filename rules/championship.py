"""Championships: points tables and standings, independent of any game.

Standings order (see docs/rules/championship.md): points; then countback (most wins, then
most second places, and so on); then the earlier result (the better place in the earliest
round where the two drivers differ); drivers still level share the position.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Literal, TypeVar

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


# A driver's standing, compared as a whole: (points, countback, earlier result).
Key = tuple[int, tuple[int, ...], tuple[int, ...]]


def _by_member(members: list[str], results: list[RoundResult]) -> dict[str, list[RoundResult]]:
    by_member: dict[str, list[RoundResult]] = {m: [] for m in members}
    for r in results:
        by_member.setdefault(r.member, []).append(r)
    return by_member


def _ranking(
    by_member: dict[str, list[RoundResult]], results: list[RoundResult], table: PointsTable
) -> Callable[[str], Key]:
    """Each driver's standing key: the higher ranks ahead (standings and tie-breaks share it)."""
    rounds = sorted({r.round for r in results})
    max_place = max([r.place or 0 for r in results] + [1])

    def key(member: str) -> Key:
        res = by_member[member]
        pts = sum(table.points_for(r.place) for r in res)
        countback = tuple(sum(1 for r in res if r.place == p) for p in range(1, max_place + 1))
        place_in = {r.round: r.place for r in res}
        # Earlier result: in calendar order, a better place (lower number) ranks ahead;
        # no result counts as worse than any place.
        earlier = tuple(-(place_in.get(rnd) or max_place + 1) for rnd in rounds)
        return (pts, countback, earlier)

    return key


def standings(
    members: list[str], results: list[RoundResult], table: PointsTable
) -> list[StandingRow]:
    """Order members by points, countback, then the earlier result; ties share a position."""
    by_member = _by_member(members, results)
    key = _ranking(by_member, results, table)

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


# A season's figures and its tie-breaks (the wrap-up) ------------------------------------

# A car out of the race before the end: retired, out of fuel, or a driver timed out (the
# game's statuses and `/league-admin correct`'s); "did not start" is a round missed instead.
RETIRED = frozenset({"retired", "out of fuel", "timed out"})
DID_NOT_START = "did not start"


class SeasonFigures(BaseModel):
    """One driver's season in numbers."""

    member: str
    races: int  # rounds started
    wins: int
    podiums: int  # top three
    points: int
    points_per_race: float  # points / races, to two decimals (0.0 with no race)
    best: int | None  # best place (None: never placed)
    retirements: int
    missed: int  # rounds raced without them (no result, or did not start)


def season_figures(
    members: list[str], results: list[RoundResult], table: PointsTable
) -> dict[str, SeasonFigures]:
    """Each member's figures over the rounds raced (the rounds that have a result)."""
    raced = {r.round for r in results}
    out: dict[str, SeasonFigures] = {}
    for member, res in _by_member(members, results).items():
        started = [r for r in res if r.status != DID_NOT_START]
        places = [r.place for r in started if r.place is not None]
        points = sum(table.points_for(r.place) for r in res)
        out[member] = SeasonFigures(
            member=member,
            races=len(started),
            wins=places.count(1),
            podiums=sum(1 for p in places if p <= 3),
            points=points,
            points_per_race=round(points / len(started), 2) if started else 0.0,
            best=min(places) if places else None,
            retirements=sum(1 for r in started if r.status in RETIRED),
            missed=len(raced) - len(started),
        )
    return out


class TieBreak(BaseModel):
    """Two drivers next to each other in the standings, level on points: what put `ahead`
    first. `countback`: more of `place` (`counts`: ahead's, behind's); `earlier`: the better
    place in `round` (`places`); `level`: nothing did, they share the position."""

    ahead: str
    behind: str
    points: int
    rule: Literal["countback", "earlier", "level"]
    place: int | None = None
    counts: tuple[int, int] | None = None
    round: int | None = None
    places: tuple[int | None, int | None] | None = None


def tie_breaks(
    rows: list[StandingRow], results: list[RoundResult], table: PointsTable
) -> list[TieBreak]:
    """The tie-breaks the standings applied, pair by pair down the table (rows from
    `standings` of the same results)."""
    by_member = _by_member([r.member for r in rows], results)
    key = _ranking(by_member, results, table)
    rounds = sorted({r.round for r in results})
    out: list[TieBreak] = []
    for upper, lower in zip(rows, rows[1:], strict=False):
        if upper.points != lower.points:
            continue
        tie = TieBreak(ahead=upper.member, behind=lower.member, points=upper.points, rule="level")
        (_, count_a, earlier_a), (_, count_b, earlier_b) = key(upper.member), key(lower.member)
        if count_a != count_b:
            i = _first_difference(count_a, count_b)
            tie = tie.model_copy(
                update={"rule": "countback", "place": i + 1, "counts": (count_a[i], count_b[i])}
            )
        elif earlier_a != earlier_b:
            rnd = rounds[_first_difference(earlier_a, earlier_b)]
            places = tuple(
                next((r.place for r in by_member[m] if r.round == rnd), None)
                for m in (upper.member, lower.member)
            )
            tie = tie.model_copy(update={"rule": "earlier", "round": rnd, "places": places})
        out.append(tie)
    return out


def _first_difference(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)


# A driver's career: their seasons, and the sum per game ----------------------------------


class CareerSeason(BaseModel):
    """One season of one league, as one driver raced it."""

    game: str
    league: str
    season: int
    races: int
    wins: int
    podiums: int
    points: int
    position: int | None  # in the standings (None: no result that season)
    champion: bool  # first when the season closed or wrapped up: a title


class CareerTotals(BaseModel):
    game: str
    seasons: int
    races: int
    wins: int
    podiums: int
    titles: int


def career_totals(seasons: list[CareerSeason]) -> list[CareerTotals]:
    """The seasons summed per game, games in the order they first appear."""
    totals: dict[str, CareerTotals] = {}
    for s in seasons:
        t = totals.setdefault(
            s.game, CareerTotals(game=s.game, seasons=0, races=0, wins=0, podiums=0, titles=0)
        )
        t.seasons += 1
        t.races += s.races
        t.wins += s.wins
        t.podiums += s.podiums
        t.titles += int(s.champion)
    return list(totals.values())
