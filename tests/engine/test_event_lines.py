"""Players read every event line in a thread: none shows an identifier (issue 28). A skill is
"Rain Expert", never `rain_expert` (which Discord even shows with an escaped underscore)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from rules.base import games, get_game
from rules.rf90 import ChooseSetup, catalog

# snake_case, camelCase, or an enum's repr: what code calls a thing, not what players do
IDENTIFIER = re.compile(r"\b[A-Za-z]+_[A-Za-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|<\w+\.\w+: ")


def lines_of_a_game(name: str, seed: int, players: int) -> list[str]:
    """The event lines of one game in which the seats pick among their legal actions at
    random half the time (so the lines of choices robots never make are read too), else as
    their robot would."""
    game = get_game(name)
    rng = random.Random(seed)
    config: dict[str, Any]
    if name == "rf90":  # player seats, who choose skills and set-ups
        config = {"track": rng.choice(["barcelona", "silverstone"]), "players": [{}] * players}
    else:
        config = game.simulation_config(players=players)
    state = game.new_game(seed, config)
    lines: list[str] = []
    for _ in range(5000):
        if game.is_terminal(state):
            break
        seat = game.to_act(state)[0]
        options = game.legal_actions(state, seat)
        if options and rng.random() < 0.5:
            action = rng.choice(options)
        else:
            action = game.robot_action(state, seat)
        state, events = game.apply(state, action)
        lines += [e.text for e in events if e.text]
    return lines


@pytest.mark.parametrize("name", sorted(games()))
def test_no_event_line_shows_an_identifier(name: str) -> None:
    found = {
        line
        for seed in range(1, 7)
        for line in lines_of_a_game(name, seed, 2 + seed % 3)
        if IDENTIFIER.search(line)
    }
    assert not found, sorted(found)[:10]


def test_a_set_up_line_names_the_skill_as_players_do() -> None:
    game = get_game("rf90")
    state = game.new_game(1, {"track": "barcelona", "players": [{}, {}]})
    for skill in catalog.skill_ids():
        pick = ChooseSetup(seat=0, tyres=2, wear=2, cards=2, skill=skill)
        _, events = game.apply(state, pick)
        (line,) = [e.text for e in events if e.kind == "setup"]
        name = catalog.name(skill)
        assert line.endswith(f", skill {name}.") and name != skill and "_" not in name


def test_the_catalogue_names_every_id_it_has() -> None:
    for catalogue_id in [*catalog.skill_ids(), *catalog.strategy_ids()]:
        assert catalog.name(catalogue_id)[0].isupper()
    assert catalog.name(None) == "-" and catalog.name(None, "no skill") == "no skill"


@pytest.mark.parametrize("track", ["barcelona", "silverstone"])
def test_the_cockpit_names_a_trajectory_as_the_close_up_draws_it(track: str) -> None:
    """Not its id ("B5a" is drawn nowhere): its kind, section, colours, bonus and cost."""
    from types import SimpleNamespace

    from bot.cogs.rf90 import trajectory_label

    state: Any = SimpleNamespace(track=track)
    for section in catalog.track(track).sections:
        for t in section.trajectories:
            label = trajectory_label(state, t.id)
            assert t.id not in label and f"section {section.index}:" in label
            assert label.startswith(t.kind.capitalize()) and f"+{t.bonus} MP" in label
    assert trajectory_label(state, None) == "none"
