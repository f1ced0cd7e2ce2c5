"""`Game.apply_owned` (a replay's apply, which may change the state it is given instead of
copying it) gives exactly what `apply` gives, for every registered game, over whole
robot-only games of several seeds: the same states and the same events, action by action."""

from __future__ import annotations

import pytest

from rules.base import games


@pytest.mark.parametrize("name", sorted(games()))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_apply_owned_gives_what_apply_gives(name: str, seed: int) -> None:
    game = games()[name]
    try:
        config = game.simulation_config()
    except NotImplementedError:
        pytest.skip(f"{name} has no robot-only game")
    copied = game.new_game(seed, config)
    owned = game.new_game(seed, config)
    actions = 0
    while not game.is_terminal(copied):
        action = game.robot_action(copied, game.to_act(copied)[0])
        previous, before = copied, copied.model_dump_json()
        copied, events = game.apply(copied, action)
        owned, owned_events = game.apply_owned(owned, game.parse_action(action.model_dump_json()))
        assert [e.model_dump() for e in owned_events] == [e.model_dump() for e in events]
        assert owned.model_dump_json() == copied.model_dump_json()
        assert previous.model_dump_json() == before  # (apply, not owning it, left it be)
        actions += 1
    assert actions > 10 and game.is_terminal(owned)
