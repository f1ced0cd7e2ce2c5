"""A race replayed from its action log: the state after the grid is revealed, the state as
each section activation ended (what the thread showed, one picture each), and the state now.

Pure: no rendering here; renderer/rf90_replay.py draws the states as an animation, and the
league site (web/race_media.py) shows each of them as a page with the lines the thread was
told with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rules.base import Event
from rules.rf90.engine import RF90
from rules.rf90.state import RF90State

# Before the grid is known there is nothing to draw on the track (the RF90 presenter's `board`).
_BEFORE_GRID = ("setup", "qualifying")


def iter_activation_steps(
    game: RF90, seed: int, config: dict[str, Any], actions_json: Iterable[str]
) -> Iterator[tuple[RF90State, list[Event]]]:
    """`iter_activation_states`, each state with the events that led to it since the one
    before (the events of actions before the grid go with the grid)."""
    state = game.new_game(seed, config)
    last: RF90State | None = None
    carried: list[Event] = []  # events not yet told with a state
    if state.phase not in _BEFORE_GRID:  # no driver to wait for: nothing left to watch
        last = state
        yield state, []
    for raw in actions_json:
        before = state
        state, events, frames = game.apply_frames(state, game.parse_action(raw))
        if before.phase in _BEFORE_GRID and state.phase not in _BEFORE_GRID and not frames:
            # The qualifying reveal (the last pick) leaves the race at the start phase, before
            # any activation: the grid, as the thread shows it. Were it to run on into the
            # race there would be no state of the grid alone, and the film starts racing.
            last = state
            yield state, [*carried, *events]
            carried = []
            continue
        told = 0
        for _section, at, count in frames:
            last = at
            yield at, [*carried, *events[told:count]]
            carried, told = [], count
        carried += events[told:]
    if last is not None and last is not state:
        yield state, carried  # the final classification (or the race as it stands)


def iter_activation_states(
    game: RF90, seed: int, config: dict[str, Any], actions_json: Iterable[str]
) -> Iterator[RF90State]:
    """`activation_states`, lazily (one logged action applied per step)."""
    for state, _events in iter_activation_steps(game, seed, config, actions_json):
        yield state


def activation_states(
    game: RF90, seed: int, config: dict[str, Any], actions_json: Iterable[str]
) -> list[RF90State]:
    """Replay a logged game (the store's `action_json` strings, in order) from its seed and
    configuration. Returns the grid (the state once qualifying has revealed it), then one state
    per section activation as it ended (`state.activation` is that section, the same states
    `apply_frames` gives the thread's pictures), then the last state, with `activation` None
    (the final classification once the race is over). Empty if the grid was never formed."""
    return list(iter_activation_states(game, seed, config, actions_json))
