"""`simulate_races` and `paddock simulate rf90 --races N`: the balance report's shape, and the
robot data of each field (track and player seats, `robot_balance.json`) as the engine reads it
(docs/rules/rf90.md, "Balance"). The 200-race balance runs are not part of the suite (about an
hour for the twelve fields): the doc gives their commands and figures."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from rules.rf90 import GAME, catalog
from rules.rf90.scenario import advance, build
from rules.rf90.simulate import simulate_races

KEYS = {
    "game",
    "track",
    "races",
    "first_seed",
    "players",
    "cars",
    "wins",
    "win_rate",
    "win_rate_per_car",
    "sections_per_turn",
    "seat_beats_superfast",
    "out",
}


def _check(report: dict, races: int, players: int) -> None:
    assert set(report) == KEYS
    assert report["races"] == races and report["players"] == players
    types = set(report["cars"])  # (JSON output sorts the keys)
    assert types <= {"seat", "superfast", "fast", "slow"}
    assert ("seat" in types) == (players > 0) and report["cars"]["superfast"] == 2
    for key in ("wins", "win_rate", "win_rate_per_car", "sections_per_turn", "out"):
        assert set(report[key]) == types, key
    assert sum(report["wins"].values()) == races  # one winner a race
    assert sum(report["win_rate"].values()) == pytest.approx(1.0, abs=1e-3)
    for t in types:
        assert report["win_rate"][t] == pytest.approx(report["wins"][t] / races, abs=1e-4)
        per_car = report["win_rate"][t] / report["cars"][t]
        assert report["win_rate_per_car"][t] == pytest.approx(per_car, abs=1e-4)
        assert 1.0 < report["sections_per_turn"][t] < 8.0
        assert 0.0 <= report["out"][t] <= 1.0
    beats = report["seat_beats_superfast"]
    assert (beats is None) == (players == 0)
    if beats is not None:
        assert 0.0 <= beats <= 1.0
        # a seat that wins a race finished ahead of both SuperFast robots
        assert beats >= report["win_rate_per_car"]["seat"] - 1e-9


def test_simulate_races_reports_win_rates_and_pace_by_car_type():
    report = simulate_races(GAME, 2, 5, track="silverstone", players=2)
    _check(report, races=2, players=2)
    assert report["track"] == "silverstone" and report["first_seed"] == 5
    assert report["cars"] == {"seat": 2, "superfast": 2, "fast": 3, "slow": 2}
    assert list(report["win_rate"]) == ["seat", "superfast", "fast", "slow"]


def test_simulate_races_without_player_seats_and_its_limits():
    report = simulate_races(GAME, 1, 3, players=0)
    _check(report, races=1, players=0)
    with pytest.raises(ValueError, match="at least one race"):
        simulate_races(GAME, 0)


def test_cli_simulate_races_prints_the_report(capsys):
    assert main(["simulate", "rf90", "--races", "2", "--players", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    _check(report, races=2, players=1)
    assert report["track"] == "barcelona" and report["first_seed"] == 1
    args = ["simulate", "rf90", "--races", "1", "--seed", "4", "--players", "1"]
    assert main([*args, "--track", "silverstone"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("rf90 silverstone: 1 races (seeds 4-4), 1 player seat(s)")
    for line in ("seat ", "superfast ", "fast ", "slow ", "ahead of every SuperFast robot"):
        assert line in text
    assert main(["simulate", "rf90", "--races", "0"]) == 2
    assert "at least one race" in capsys.readouterr().err


# --- the robot data of each field (docs/rules/rf90.md, Balance) ---------------------------------


def test_every_field_has_its_robot_data_and_the_rest_is_rules_json():
    balance = catalog.robot_balance()
    base = catalog.tables()
    for track in catalog.TRACKS:
        assert set(balance.fields[track]) == set(range(1, 7))  # the lobby's 1-6 player seats
        for n in range(1, 7):
            field = balance.fields[track][n]
            tables = catalog.race_tables(track, n)
            assert tables.robots.speed == {**base.robots.speed, **field.speed}
            assert tables.robots.corner_bonus == {**base.robots.corner_bonus, **field.corner_bonus}
            assert tables.off_track.robot_mistake_from == field.mistake_from
            rest = tables.model_copy(update={"robots": base.robots, "off_track": base.off_track})
            assert rest == base
        # a robot-only race counts as one seat, as for the numbers of robots
        assert catalog.race_tables(track, 0) is catalog.race_tables(track, 1)


def _robot_in_curve(track: str, seats: int, section: int, deck_top: list[int] | None = None):
    """A SuperFast robot (car 0, no trajectory) starts its turn in curve `section`; `seats`
    players' cars have ended their turns far ahead (the leader's)."""
    ahead = [22, 22, 22, 23, 23, 23] if track == "barcelona" else [19, 19, 19, 20, 20, 20]
    spec = [{"name": "SuperFast", "robot": "superfast", "section": section}]
    spec += [
        {"name": f"P{k}", "seat": k, "section": ahead[k], "mark": "ended"} for k in range(seats)
    ]
    return advance(GAME, build(track, spec, deck_top=deck_top))


@pytest.mark.parametrize("seats", [1, 6])
def test_a_superfast_robot_moves_with_its_fields_corner_bonus(seats: int):
    tables = catalog.race_tables("barcelona", seats)
    state, events = _robot_in_curve("barcelona", seats, 4)  # a curve without an off-track area
    move = next(e for e in events if e.kind == "move" and e.data["car"] == 0)
    expected = tables.robots.speed["superfast"] + tables.robots.corner_bonus["superfast"]
    assert move.data["mp"] == expected and state.cars[0].section == 4 + expected


def test_robots_run_wide_as_often_as_their_field_says():
    """At Silverstone one seat's robots run wide on a check factor that four seats' do not."""
    few = catalog.race_tables("silverstone", 1).off_track.robot_mistake_from
    many = catalog.race_tables("silverstone", 4).off_track.robot_mistake_from
    assert few < many
    top = next(
        cid for cid, c in catalog.race_deck().items() if few <= c.check_factor < many and not c.flag
    )
    for seats, wide in ((1, True), (4, False)):
        state, events = _robot_in_curve("silverstone", seats, 1, deck_top=[top])  # Copse
        assert any(e.kind == "runs_wide" for e in events) == wide
        assert state.cars[0].off_track == wide
