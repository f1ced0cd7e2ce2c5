"""Grouped choices: every legal action of a decision is reachable by a short path of
questions, each question has at least two answers, and a path that no longer fits is refused."""

from __future__ import annotations

import pytest

from bot.choices import Facet, decode, encode, narrow, path_to
from bot.cogs.rf90 import facets
from rules.base import get_game


def test_questions_split_the_options_and_lead_to_each_one() -> None:
    options = [("pit", 0, "soft"), ("pit", 0, "hard"), ("pit", 1, "soft"), ("go", None, None)]
    parts = [
        Facet("What", lambda o: o[0]),
        Facet("Extra", lambda o: None if o[1] is None else str(o[1])),
        Facet("Tyres", lambda o: o[2]),
    ]
    first = narrow(options, parts, [])
    assert first.question is not None and first.question.answers == ["pit", "go"]
    assert narrow(options, parts, [1]).index == 3  # "go": nothing else to ask
    tyres = narrow(options, parts, [0, 0])
    assert tyres.question is not None and tyres.question.title == "Tyres"
    assert tyres.question.chosen == [("What", "pit"), ("Extra", "0")]
    assert narrow(options, parts, [0, 0, 1]).index == 1
    assert narrow(options, parts, [0, 1]).index == 2  # one extra-section pit stop: no tyre asked
    for target in range(len(options)):
        assert narrow(options, parts, path_to(options, parts, target)).index == target
    with pytest.raises(ValueError):
        narrow(options, parts, [5])
    with pytest.raises(ValueError):
        narrow(options, parts, [1, 0])  # an answer too many


def test_paths_round_trip_through_a_custom_id_argument() -> None:
    assert decode(encode("ab12", [3, 0, 21])) == ("ab12", [3, 0, 21], 0)
    assert decode(encode("ab12", [3], 2)) == ("ab12", [3], 2)
    for bad in ("ab.x", "a-b.1", "ab.p"):
        with pytest.raises(ValueError):
            decode(bad)


@pytest.mark.parametrize("track", ["barcelona", "silverstone"])
def test_every_rf90_decision_is_reachable_through_its_questions(track: str) -> None:
    game = get_game("rf90")
    state = game.new_game(11, game.simulation_config(players=3, track=track))
    checked = 0
    while not game.is_terminal(state) and checked < 400:
        for seat in game.to_act(state):
            options = game.legal_actions(state, seat)
            if len(options) < 2:
                continue
            parts = facets(state)
            step = narrow(options, parts, [])
            assert step.question is not None and len(step.question.answers) >= 2
            wanted = game.robot_action(state, seat)
            targets = {0, len(options) - 1} | (
                {options.index(wanted)} if wanted in options else set()
            )
            for target in targets:
                path = path_to(options, parts, target)
                assert narrow(options, parts, path).index == target
                assert len(encode("0123456789", path)) <= 60  # custom_ids stay short
            checked += 1
        seat = game.to_act(state)[0]
        state, _ = game.apply(state, game.robot_action(state, seat))
    assert checked > 50
