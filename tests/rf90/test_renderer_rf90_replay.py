"""The RF90 race replay: a whole robot-driven race, logged as the store logs it, replays to the
grid, one state per section activation the thread showed, and the end; the animated WebP has
one frame per state, decodes, stays under Discord's 10 MiB and ends on the final
classification, held longest."""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

from renderer.rf90_base import W
from renderer.rf90_replay import (
    DEFAULT_WIDTH,
    DISPLAY_WIDTH,
    FINAL_MS,
    FRAME_MS,
    GRID_MS,
    MIN_DISPLAY_TEXT,
    UPLOAD_LIMIT,
    caption,
    caption_height,
    caption_px,
    frame_size,
    render_replay,
    replay_frame,
)
from rules.base import get_game
from rules.rf90 import RF90, RF90State
from rules.rf90.replay import activation_states, iter_action_steps

SEED = 7
# Barcelona at the width posted (its races have the most activations: the size that
# matters); Silverstone smaller, to keep the test quick.
WIDTHS = {"barcelona": DEFAULT_WIDTH, "silverstone": W // 4}


@dataclass(frozen=True)
class Race:
    game: RF90
    config: dict[str, Any]
    log: list[str]  # the actions as the store logs them (store/play.py)
    seen: list[tuple[int, str]]  # (section, state JSON) of every apply_frames frame in play
    final: RF90State


@cache
def _race(track: str) -> Race:
    game = get_game("rf90")
    assert isinstance(game, RF90)
    config = game.simulation_config(players=4, track=track)
    state = game.new_game(SEED, config)
    log: list[str] = []
    seen: list[tuple[int, str]] = []
    while not game.is_terminal(state):
        action = game.robot_action(state, game.to_act(state)[0])
        log.append(action.model_dump_json())
        state, _events, frames = game.apply_frames(state, action)
        seen += [(section, at.model_dump_json()) for section, at, _n in frames]
    return Race(game, config, log, seen, state)


@cache
def _states(track: str) -> list[RF90State]:
    race = _race(track)
    return activation_states(race.game, SEED, race.config, race.log)


@cache
def _webp(track: str) -> bytes:
    return render_replay(_states(track), width=WIDTHS[track])


def _band(img: Image.Image, width: int) -> Image.Image:
    return img.convert("RGB").crop((0, 0, width, caption_height(width)))


TRACKS = pytest.mark.parametrize("track", sorted(WIDTHS))


@TRACKS
def test_replay_gives_the_grid_every_activation_and_the_end(track: str) -> None:
    race, states = _race(track), _states(track)
    assert len(race.seen) > 100  # a whole race
    assert len(states) == len(race.seen) + 2
    grid, *middle, last = states
    assert grid.phase == "start" and grid.activation is None and grid.grid_order
    # the same states the thread was shown, in order, each lit on its own section
    assert [(s.activation, s.model_dump_json()) for s in middle] == race.seen
    assert last.phase == "finished" and last.activation is None
    assert last.model_dump_json() == race.final.model_dump_json()


def test_replay_of_no_action_is_empty() -> None:
    race = _race("barcelona")
    assert activation_states(race.game, SEED, race.config, []) == []
    assert activation_states(race.game, SEED, race.config, iter(race.log[:3])) == []


@TRACKS
def test_the_replay_action_by_action_counts_the_same_pictures_and_tells_each_actions_events(
    track: str,
) -> None:
    """The league site's race page: the log in words and the count of the pictures, from one
    replay without a copy of the state (`snapshots=False`), for whole races and parts."""
    race = _race(track)
    for cut in (0, 3, len(race.log) // 2, len(race.log)):
        log = race.log[:cut]
        items = list(iter_action_steps(race.game, SEED, race.config, log, snapshots=False))
        assert len(items) == len(log) + 2  # the start, each action, the end
        assert items[0][0] is None and items[-1][0] is None
        counted = sum(len(steps) for _, steps in items)
        assert counted == len(activation_states(race.game, SEED, race.config, log))
        state = race.game.new_game(SEED, race.config)
        for raw, (events, _) in zip(log, items[1:-1], strict=True):
            state, told = race.game.apply(state, race.game.parse_action(raw))
            assert events is not None and [e.text for e in events] == [e.text for e in told]


@TRACKS
def test_webp_has_one_frame_per_state_under_the_upload_limit(track: str) -> None:
    data, states, width = _webp(track), _states(track), WIDTHS[track]
    assert len(data) < UPLOAD_LIMIT
    img = Image.open(io.BytesIO(data))
    assert img.format == "WEBP"
    assert img.is_animated
    assert img.n_frames == len(states)
    assert img.size == frame_size(width)
    assert img.info["loop"] == 0
    assert [_duration(img, i) for i in (0, 1, len(states) - 2, len(states) - 1)] == [
        GRID_MS,
        FRAME_MS,
        FRAME_MS,
        FINAL_MS,  # the result is held longest
    ]


def _duration(img: Image.Image, frame: int) -> int:
    img.seek(frame)
    img.load()  # the frame's info is read as it is decoded
    return img.info["duration"]


@TRACKS
def test_last_frame_shows_the_final_classification(track: str) -> None:
    race, states, width = _race(track), _states(track), WIDTHS[track]
    n = len(states)
    winner = race.game.race_classification(race.final)[0]
    first, second, car = caption(states[-1], n - 1, n)
    assert "final classification" in first and first.endswith(f"{n}/{n}")
    assert second.startswith(f"Winner: {winner.name}")
    assert car is not None and car.id == winner.id
    before_first, before_second, _ = caption(states[-2], n - 2, n)
    assert before_first.startswith("Game turn ") and before_second.startswith("Leader: ")

    img = Image.open(io.BytesIO(_webp(track)))
    img.seek(n - 1)
    shown = _band(img, width)
    final = _band(replay_frame(states[-1], n - 1, n, width), width)
    before = _band(replay_frame(states[-2], n - 2, n, width), width)
    # the decoded caption is the final one (lossy, so close), and visibly not the one before
    near = sum(ImageStat.Stat(ImageChops.difference(shown, final)).mean)
    far = sum(ImageStat.Stat(ImageChops.difference(shown, before)).mean)
    assert near < 15 and far > 40


@pytest.mark.parametrize("width", [W // 4, DEFAULT_WIDTH, W])
def test_caption_is_legible_at_phone_width(width: int) -> None:
    for px in caption_px(width):
        assert px * DISPLAY_WIDTH / width >= MIN_DISPLAY_TEXT


def test_replay_is_deterministic() -> None:
    states = _states("silverstone")
    short = [*states[:3], states[-1]]
    assert render_replay(short, width=W // 6) == render_replay(short, width=W // 6)


def test_replay_needs_a_state() -> None:
    with pytest.raises(ValueError):
        render_replay([])
