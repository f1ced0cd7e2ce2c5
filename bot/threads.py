"""The bot process's threads: how soon the event loop gets the GIL back.

With PADDOCK_IMAGE_PROCESSES=0 (bot/drawing.py), images are drawn in worker threads, which
hold the GIL while Pillow's Python-level code runs (as do the robots' moves and replays,
in asyncio's threads). The event loop gives the GIL up at every socket call and must then
wait for a worker to let go of it: by default up to 5 ms each time
(`sys.getswitchinterval`), several times in each answer to Discord. Measured under
`paddock bench`'s mixed load (the bot in a process of its own over the loopback fake
Discord), 1 ms took answers' p99 from 157 to 127 ms and from 510 to 467 ms in two pairs of
runs, at the same CPU time."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache

SWITCH_INTERVAL_S = 0.001
# Threads drawing images. Pillow's C code runs without the GIL, so on two cores a third
# thread still finds work while two draw; more only hold more images in memory at once (a
# board is several MB while it is drawn), waiting for the GIL. Measured over 600 s of the
# mixed load against asyncio's default pool (six threads here): RSS peak 286 -> 267 MB,
# answers' p99 84 -> 69 ms, moves done p99 587 -> 550 ms.
IMAGE_THREADS = 3


def tune_switch_interval() -> None:
    """Let a thread waiting for the GIL have it after 1 ms, not 5."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)


@cache
def image_pool() -> ThreadPoolExecutor:
    """The threads that draw images (not asyncio's default pool, sized for the machine's
    cores plus four, which also runs the robots' moves and replays)."""
    return ThreadPoolExecutor(max_workers=IMAGE_THREADS, thread_name_prefix="paddock-image")
