"""The bot process's threads: how soon the event loop gets the GIL back.

Images are drawn in worker threads, which hold the GIL while Pillow's Python-level code
runs. The event loop gives the GIL up at every socket call and must then wait for a worker
to let go of it: by default up to 5 ms each time (`sys.getswitchinterval`), several times in
each answer to Discord. Measured under `paddock bench`'s mixed load (the bot in a process of
its own over the loopback fake Discord), 1 ms took answers' p99 from 157 to 127 ms and from
510 to 467 ms in two pairs of runs, at the same CPU time."""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.001


def tune_switch_interval() -> None:
    """Let a thread waiting for the GIL have it after 1 ms, not 5."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
