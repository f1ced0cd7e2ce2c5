"""`paddock bench`'s RF90 parts: a robot-driven race's apply time and track image, an
/rf90 race driven through the cockpit (press to pictures, the cockpit), and the replay.
Run by `paddock_tools.bench` ("rf90")."""

from __future__ import annotations

import tempfile
import time
from typing import Any

from paddock_tools import bots, rf90_driver
from paddock_tools.bench import bench_bot, bench_database, percentiles
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver


def bench_rf90(quick: bool) -> dict[str, Any]:
    """A 10-car Barcelona race (4 robot-driven player seats and 6 robots), one action's
    apply time, the snapshot size and the track image."""
    from renderer.rf90 import render_track
    from rules.base import get_game

    game = get_game("rf90")
    races: list[float] = []
    applies: list[float] = []
    biggest = 0
    state = None
    for seed in range(1 if quick else 5):
        start = time.perf_counter()
        state = game.new_game(seed, game.simulation_config(players=4, track="barcelona"))
        while not game.is_terminal(state):
            action = game.robot_action(state, game.to_act(state)[0])
            t0 = time.perf_counter()
            state, _ = game.apply(state, action)
            applies.append((time.perf_counter() - t0) * 1000)
            biggest = max(biggest, len(state.model_dump_json()))
        races.append((time.perf_counter() - start) * 1000)
    assert state is not None
    render_track(state)  # the static layer, once per process
    track_ms, track = [], b""
    for _ in range(10 if quick else 50):
        start = time.perf_counter()
        track = render_track(state)
        track_ms.append((time.perf_counter() - start) * 1000)
    return {
        "race_10_cars_ms": percentiles(races),
        "apply_ms": percentiles(applies),
        "snapshot_bytes_max": biggest,
        "render_ms": {"track": percentiles(track_ms)},
        "png_bytes": {"track": len(track)},
    }


async def bench_rf90_table(quick: bool) -> dict[str, Any]:
    """An /rf90 race at Barcelona driven through the cockpit by two drivers (with the
    rules' robots): each decision's last click, from its arrival to the state stored and the
    activations' pictures posted ("press_ms"); the cockpit button's answer with its image
    ("cockpit_ms"); and the cockpit image alone."""
    from renderer.rf90 import render_cockpit

    decisions = 12 if quick else 150
    timings: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "rf90") as url:
            bot = bench_bot(url)
            async with InProcessDriver(bot, bots.world(), timeout=30) as driver:
                await bot.images_warm
                while len(timings.get("press", [])) < decisions:
                    before = {g.id for g in await bot.store.list_games()}
                    await driver.slash(
                        "rf90", "new", track="barcelona", turn_minutes=60, user=ALICE
                    )
                    (gid,) = [g.id for g in await bot.store.list_games() if g.id not in before]
                    await driver.click(f"pd:rf90:{gid}:join", user=BOB)
                    await driver.click(f"pd:rf90:{gid}:start", user=ALICE)
                    while len(timings.get("press", [])) < decisions:
                        now = await rf90_driver.loaded(driver, gid)
                        if now.game.is_terminal(now.state):
                            break
                        seat = rf90_driver.PRESENTER.waiting_seats(now.state)[0]
                        await rf90_driver.decide(driver, gid, seat, timings)
                state = (await rf90_driver.loaded(driver, gid)).state
                seat = rf90_driver.PRESENTER.waiting_seats(state)[0]
    render_cockpit(state, seat)  # the palette, once per process
    cockpit_ms, cockpit = [], b""
    for _ in range(10 if quick else 50):
        start = time.perf_counter()
        cockpit = render_cockpit(state, seat)
        cockpit_ms.append((time.perf_counter() - start) * 1000)
    pictures = timings.get("pictures", [])
    return {
        "press_ms": percentiles([t * 1000 for t in timings["press"]]),
        "press_to_picture_ms": percentiles([t * 1000 for t in timings["picture"]]),
        "pictures_per_press": {
            "mean": round(sum(pictures) / len(pictures), 2),
            "max": max(pictures),
        },
        "cockpit_ms": percentiles([t * 1000 for t in timings["cockpit"]]),
        "render_ms": {"cockpit": percentiles(cockpit_ms)},
        "png_bytes": {"cockpit": len(cockpit)},
    }


def bench_rf90_replay(quick: bool) -> dict[str, Any]:
    """The animated replay of a robot-driven race (4 seats, Barcelona): the log replayed to one
    state per activation and drawn as WebP, as `/rf90 replay` does. --quick: its first
    200 actions."""
    from renderer.rf90_replay import render_replay
    from rules.base import get_game
    from rules.rf90.replay import activation_states

    game = get_game("rf90")
    config = game.simulation_config(players=4, track="barcelona")
    state = game.new_game(7, config)
    log: list[str] = []
    while not game.is_terminal(state) and not (quick and len(log) >= 200):
        action = game.robot_action(state, game.to_act(state)[0])
        state, _ = game.apply(state, action)
        log.append(action.model_dump_json())
    start = time.perf_counter()
    states = activation_states(game, 7, config, log)  # type: ignore[arg-type]
    webp = render_replay(states)
    return {
        "replay_s": round(time.perf_counter() - start, 2),
        "replay_bytes": len(webp),
        "replay_frames": len(states),
    }
