"""A shorter race (Paddock rule, `race_turns`): the race ends after that many game turns, its
stages and laps shrink in proportion, and the track image's turn indicator has that many cells."""

from __future__ import annotations

import pytest

from renderer.rf90_track_layout import track_layout
from rules.base import get_game
from rules.rf90 import catalog

GAME = get_game("rf90")


def test_a_four_turn_race_ends_after_game_turn_four() -> None:
    state = GAME.new_game(3, {"track": "barcelona", "players": 2, "race_turns": 4})
    assert state.race_turns == 4
    turns_seen = set()
    while not GAME.is_terminal(state):
        turns_seen.add(state.turn)
        seat = GAME.to_act(state)[0]
        state, _ = GAME.apply(state, GAME.robot_action(state, seat))
    assert state.phase == "finished" and max(turns_seen) == 4 and state.turn == 4
    assert [p.status for p in GAME.classification(state)] == ["finished", "finished"]


def test_the_stages_and_laps_shrink_in_proportion() -> None:
    full = catalog.track("barcelona")
    assert (full.race_turns, full.stages, full.laps) == (27, [1, 10, 19], 65)
    short = catalog.track("barcelona", 9)
    # 1 + round((10 - 1) * 9 / 27) = 4, 1 + round((19 - 1) * 9 / 27) = 7; 65 * 9 / 27 ≈ 22
    assert (short.race_turns, short.stages, short.laps) == (9, [1, 4, 7], 22)
    assert catalog.track("barcelona", 27) is full  # the full race is the track itself


@pytest.mark.parametrize("turns", [2, 28])
def test_a_race_length_outside_the_track_is_refused(turns: int) -> None:
    with pytest.raises(ValueError, match="3 to 27 game turns"):
        GAME.new_game(1, {"track": "barcelona", "players": 1, "race_turns": turns})


def test_the_turn_indicator_has_one_cell_per_game_turn_of_the_race() -> None:
    short = GAME.new_game(1, {"track": "silverstone", "players": 1, "race_turns": 6})
    full = GAME.new_game(1, {"track": "silverstone", "players": 1})
    cells = [
        sorted(int(lb.text) for lb in track_layout(s).labels if lb.kind == "turn")
        for s in (short, full)
    ]
    assert cells == [list(range(1, 7)), list(range(1, 26))]
