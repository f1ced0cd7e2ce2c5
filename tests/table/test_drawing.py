"""bot/drawing.py: the bot's images drawn in worker processes of their own, at a lower CPU
priority, which leave with the bot; a worker that dies loses no image."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

import pytest

from bot.drawing import IMAGE_NICE, Drawing


def facts(tag: str) -> bytes:
    """Drawn in a worker: where and how it ran (a stand-in for a picture's PNG)."""
    return json.dumps({"tag": tag, "pid": os.getpid(), "nice": os.nice(0)}).encode()


def gone(pid: int, within: float) -> bool:
    """True once process `pid` no longer exists (a zombie counts as gone), within `within` s."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


async def test_images_are_drawn_in_worker_processes_at_a_lower_priority() -> None:
    drawing = Drawing(2)
    try:
        await drawing.warm()
        drawn = await asyncio.gather(*(drawing.png(partial(facts, str(i))) for i in range(6)))
    finally:
        drawing.close()
    seen = [json.loads(png) for png, _ in drawn]
    assert [s["tag"] for s in seen] == [str(i) for i in range(6)]  # each its own picture
    assert all(s["pid"] != os.getpid() for s in seen)  # not this process
    assert len({s["pid"] for s in seen}) <= 2
    assert all(s["nice"] == min(19, os.nice(0) + IMAGE_NICE) for s in seen)
    assert all(seconds >= 0 for _, seconds in drawn)


async def test_a_real_picture_drawn_in_a_worker_is_the_one_drawn_here() -> None:
    from renderer.rf90 import activation_pictures
    from rules.base import get_game

    game = get_game("rf90")
    state = game.new_game(5, game.simulation_config(players=2, track="silverstone"))
    pictures = activation_pictures(state, None)
    drawing = Drawing(1)
    try:
        there = [(await drawing.png(draw))[0] for draw in pictures.values()]
    finally:
        drawing.close()
    assert there == [draw() for draw in pictures.values()]
    assert there[0].startswith(b"\x89PNG")


async def test_with_no_processes_images_are_drawn_in_the_bots_threads() -> None:
    drawing = Drawing(0)
    png, _ = await drawing.png(partial(facts, "here"))
    assert json.loads(png)["pid"] == os.getpid()


async def test_a_worker_that_dies_loses_no_image_and_is_replaced() -> None:
    drawing = Drawing(1)
    try:
        png, _ = await drawing.png(partial(facts, "first"))
        worker = json.loads(png)["pid"]
        os.kill(worker, signal.SIGKILL)
        assert gone(worker, 5)
        # the pool finds its worker dead: this image is drawn all the same
        png, _ = await drawing.png(partial(facts, "second"))
        assert json.loads(png)["tag"] == "second"
        png, _ = await drawing.png(partial(facts, "third"))  # in a new worker
        third = json.loads(png)
        assert third["tag"] == "third" and third["pid"] not in (worker, os.getpid())
    finally:
        drawing.close()


def test_the_workers_leave_when_the_bot_is_killed(tmp_path: Path) -> None:
    """A bot killed with SIGKILL cannot stop its workers: they see it gone and leave, so none
    outlives it (holding its output open, or its memory)."""
    script = textwrap.dedent(
        """
        import asyncio, json, sys, time
        from functools import partial
        from bot.drawing import Drawing
        from tests.table.test_drawing import facts

        async def main():
            drawing = Drawing(2)
            await drawing.warm()
            drawn = await asyncio.gather(*(drawing.png(partial(facts, str(i))) for i in range(4)))
            print(json.dumps(sorted({json.loads(png)["pid"] for png, _ in drawn})), flush=True)
            time.sleep(60)

        asyncio.run(main())
        """
    )
    bot = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
        text=True,
    )
    try:
        assert bot.stdout is not None
        workers = json.loads(bot.stdout.readline())
        assert workers and all(not gone(pid, 0.1) for pid in workers)
        bot.kill()
        bot.wait(10)
        assert all(gone(pid, 5) for pid in workers)
        assert bot.stdout.read() == ""  # the output closed: no worker holds it open
    finally:
        bot.kill()
        bot.wait(10)


@pytest.mark.parametrize("processes", [0, 2])
def test_the_setting_names_where_images_are_drawn(
    processes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.settings import Settings

    assert Settings(image_processes=processes).image_processes == processes
    monkeypatch.delenv("PADDOCK_IMAGE_PROCESSES", raising=False)
    assert Settings(_env_file=None).image_processes == 2  # `paddock run`'s default
    with pytest.raises(ValueError):
        Settings(image_processes=-1)
