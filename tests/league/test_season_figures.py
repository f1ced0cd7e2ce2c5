"""A season's figures, its tie-breaks, a career's totals and the ratings: the pure functions
of the wrap-up, `/league driver` and `/league ratings`, with exact numbers."""

from __future__ import annotations

import pytest

from rules.championship import (
    CareerSeason,
    PointsTable,
    RoundResult,
    SeasonFigures,
    TieBreak,
    career_totals,
    season_figures,
    standings,
    tie_breaks,
)
from rules.ratings import rate

TABLE = PointsTable(name="w", title="w", points=[10, 8, 6, 4, 2, 1], source="test")
MEMBERS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def R(rnd: int, member: str, place: int | None, status: str = "finished") -> RoundResult:
    return RoundResult(round=rnd, member=member, place=place, status=status)


# Three rounds. e, a and b end on 18 points (e ahead of a on second places, a ahead of b on
# wins); c and f on 10 with the same places (c ahead: the better place in round 1); g and h
# never scored (h did not start round 2): level on everything.
RESULTS = [
    R(1, "a", 1),
    R(1, "c", 2, "retired"),
    R(1, "b", 3),
    R(1, "d", 4),
    R(1, "f", 5),
    R(2, "d", 1, "timed out"),
    R(2, "e", 2),
    R(2, "b", 3),
    R(2, "a", 4),
    R(2, "h", None, "did not start"),
    R(3, "e", 1),
    R(3, "f", 2),
    R(3, "b", 3),
    R(3, "a", 4),
    R(3, "c", 5),
    R(3, "d", 7, "out of fuel"),
]


def test_standings_of_the_example_season() -> None:
    rows = standings(MEMBERS, RESULTS, TABLE)
    assert [(r.position, r.tied, r.member, r.points) for r in rows] == [
        (1, False, "e", 18),
        (2, False, "a", 18),
        (3, False, "b", 18),
        (4, False, "d", 14),
        (5, False, "c", 10),
        (6, False, "f", 10),
        (7, True, "g", 0),
        (7, True, "h", 0),
    ]


def test_season_figures_count_each_driver_exactly() -> None:
    figures = season_figures(MEMBERS, RESULTS, TABLE)

    def f(member: str, *values: object) -> SeasonFigures:
        keys = ["races", "wins", "podiums", "points", "points_per_race", "best"]
        keys += ["retirements", "missed"]
        return SeasonFigures(member=member, **dict(zip(keys, values, strict=True)))  # type: ignore[arg-type]

    assert figures == {
        "a": f("a", 3, 1, 1, 18, 6.0, 1, 0, 0),
        "b": f("b", 3, 0, 3, 18, 6.0, 3, 0, 0),
        "c": f("c", 2, 0, 1, 10, 5.0, 2, 1, 1),  # retired in round 1 (2nd), absent in round 2
        "d": f("d", 3, 1, 1, 14, 4.67, 1, 2, 0),  # timed out and out of fuel: 14 / 3
        "e": f("e", 2, 1, 2, 18, 9.0, 1, 0, 1),
        "f": f("f", 2, 0, 1, 10, 5.0, 2, 0, 1),
        "g": f("g", 0, 0, 0, 0, 0.0, None, 0, 3),
        "h": f("h", 0, 0, 0, 0, 0.0, None, 0, 3),  # did not start: a round missed, not a race
    }


def test_tie_breaks_name_the_rule_that_decided_each_pair() -> None:
    rows = standings(MEMBERS, RESULTS, TABLE)
    assert tie_breaks(rows, RESULTS, TABLE) == [
        TieBreak(ahead="e", behind="a", points=18, rule="countback", place=2, counts=(1, 0)),
        TieBreak(ahead="a", behind="b", points=18, rule="countback", place=1, counts=(1, 0)),
        TieBreak(ahead="c", behind="f", points=10, rule="earlier", round=1, places=(2, 5)),
        TieBreak(ahead="g", behind="h", points=0, rule="level"),
    ]


def test_no_tie_breaks_when_no_two_drivers_are_level() -> None:
    results = [R(1, "a", 1), R(1, "b", 2), R(2, "b", 1)]
    rows = standings(["a", "b"], results, TABLE)
    assert [r.member for r in rows] == ["b", "a"]
    assert tie_breaks(rows, results, TABLE) == []


def test_career_totals_add_up_per_game_across_seasons() -> None:
    def s(game: str, season: int, races: int, wins: int, podiums: int, champion: bool):  # noqa: ANN202
        return CareerSeason(
            game=game,
            league="Cup",
            season=season,
            races=races,
            wins=wins,
            podiums=podiums,
            points=0,
            position=1 if champion else 2,
            champion=champion,
        )

    totals = career_totals(
        [
            s("waddington", 1, 3, 2, 3, True),
            s("rf90", 1, 4, 0, 1, False),
            s("waddington", 2, 5, 1, 2, False),
            s("waddington", 3, 2, 2, 2, True),
        ]
    )
    assert [(t.game, t.seasons, t.races, t.wins, t.podiums, t.titles) for t in totals] == [
        ("waddington", 3, 10, 5, 7, 2),
        ("rf90", 1, 4, 0, 1, 0),
    ]
    assert career_totals([]) == []


def test_ratings_follow_openskill_plackett_luce() -> None:
    # OpenSkill 6's Plackett-Luce defaults (mu 25, sigma 25/3): one race of three...
    first = rate([[(10, 1), (20, 2), (30, 3)]])
    got = {
        u: (round(r.mu, 6), round(r.sigma, 6), round(r.ordinal, 6), r.races)
        for u, r in first.items()
    }
    assert got == {
        10: (27.869049, 8.205243, 3.253319, 1),
        20: (25.717262, 8.058224, 1.54259, 1),
        30: (21.413689, 8.058224, -2.760984, 1),
    }
    # ... then a second, where the last beats the first: each rated from where they were.
    second = rate([[(10, 1), (20, 2), (30, 3)], [(30, 1), (10, 2)]])
    assert round(second[10].mu, 6) == 24.62634 and second[10].races == 2
    assert round(second[30].mu, 6) == 24.541247 and second[30].races == 2
    assert second[20] == first[20]  # not in the second race: unchanged


def test_ratings_are_deterministic_and_order_matters() -> None:
    races = [[(1, 1), (2, 2)], [(2, 1), (1, 2)], [(1, 1), (2, 2), (3, 3)]]
    assert rate(races) == rate([list(r) for r in races])
    assert rate(races) != rate(list(reversed(races)))


def test_a_race_of_one_person_rates_nobody_and_ties_rate_alike() -> None:
    assert rate([[(1, 1)], [], [(2, 3), (2, 1)]]) == {}  # one person, even in two seats
    tied = rate([[(1, 1), (2, 2), (3, 2)]])
    assert tied[2].mu == pytest.approx(tied[3].mu) and tied[2].mu < tied[1].mu
    # Not placed: last, level with the other unplaced.
    unplaced = rate([[(1, None), (2, 1), (3, None)]])
    assert unplaced[1].mu == pytest.approx(unplaced[3].mu)
    assert unplaced[1].mu < unplaced[2].mu
    assert unplaced[1].races == 1
