"""`simulate_races` and `paddock simulate rf90 --races N`: the balance report's shape
(docs/rules/rf90.md, "Balance"). The 200-race balance runs are not part of the suite (minutes):
the doc gives their command and figures."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from rules.rf90 import GAME
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
