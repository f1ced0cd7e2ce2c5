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


Step = tuple[RF90State, list[Event]]


def logged_replay(
    seed: int, config: dict[str, Any], actions_json: Iterable[str]
) -> tuple[list[list[Event]], int]:
    """The race's log in words and its thread's pictures (GameSpec.replay): each action's
    events, and how many activation pictures the thread showed, from one replay without a
    copy of the state."""
    from rules.base import get_game

    game = get_game("rf90")
    assert isinstance(game, RF90)
    said: list[list[Event]] = []
    pictures = 0
    for events, steps in iter_action_steps(game, seed, config, actions_json, snapshots=False):
        pictures += len(steps)
        if events is not None:
            said.append(events)
    return said, pictures


def iter_action_steps(
    game: RF90,
    seed: int,
    config: dict[str, Any],
    actions_json: Iterable[str],
    *,
    snapshots: bool = True,
) -> Iterator[tuple[list[Event] | None, list[Step]]]:
    """The replay action by action: (the action's events, the steps it completed), one item
    per logged action in order, between an item for the state before any action and one
    for the state at the end (events None: no action; steps as `iter_activation_steps`).
    The log is replayed on one state of its own (`owned`: no copy per action); a step's
    state is a copy of it as it was (`snapshots`), or with `snapshots=False` the replay's
    own state object, good only for counting the steps (the race page's pictures)."""
    state = game.new_game(seed, config)
    current = False  # whether the last step given is the state as it is now
    given = False
    carried: list[Event] = []  # events not yet told with a state

    def now() -> RF90State:
        return state.model_copy(deep=True) if snapshots else state

    if state.phase not in _BEFORE_GRID:  # no driver to wait for: nothing left to watch
        current = given = True
        yield None, [(now(), [])]
    else:
        yield None, []
    for raw in actions_json:
        before = state.phase
        state, events, frames = game.apply_frames(
            state, game.parse_action(raw), owned=True, snapshots=snapshots
        )
        current = False
        if before in _BEFORE_GRID and state.phase not in _BEFORE_GRID and not frames:
            # The qualifying reveal (the last pick) leaves the race at the start phase, before
            # any activation: the grid, as the thread shows it. Were it to run on into the
            # race there would be no state of the grid alone, and the film starts racing.
            current = given = True
            yield events, [(now(), [*carried, *events])]
            carried = []
            continue
        told = 0
        steps: list[Step] = []
        for _section, at, count in frames:
            steps.append((at, [*carried, *events[told:count]]))
            carried, told = [], count
        given = given or bool(steps)
        carried += events[told:]
        yield events, steps
    if given and not current:
        yield None, [(state, carried)]  # the final classification (or the race as it stands)
    else:
        yield None, []


def iter_activation_steps(
    game: RF90, seed: int, config: dict[str, Any], actions_json: Iterable[str]
) -> Iterator[Step]:
    """`iter_activation_states`, each state with the events that led to it since the one
    before (the events of actions before the grid go with the grid)."""
    for _events, steps in iter_action_steps(game, seed, config, actions_json):
        yield from steps


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
