"""Where the bot draws the images it posts (`draw` in bot/table/core.py): in worker processes
of their own, at a lower CPU priority than the bot (PADDOCK_IMAGE_PROCESSES, default 2), or
in threads of the bot's process (0).

Why processes: under issue 11's mixed load on PostgreSQL, the image threads were ~45 % of
the bot process's samples (py-spy, 2026-12-06). Pillow's Python-level code holds the GIL, so
each answer to Discord waited for a drawing thread to let go of it, and the answers and the
pictures had one CPU priority between them. A worker process has an interpreter of its own,
so the event loop never waits for a picture's GIL, and at IMAGE_NICE the scheduler gives a
core to an answer before a picture. A picture is posted after its move's answer anyway.

What crosses to a worker: the image's `draw` (bot/presenter.py `Image`), a picklable callable
(a `functools.partial` of a renderer function and the state), and back the PNG bytes. The
workers build the renderers' caches once when the bot starts (`warm`:
`renderer.boards.warm_all`; a worker started later builds what its images need), ignore
Ctrl-C (the bot stops them), and leave when the bot's process is gone (a SIGKILL included),
so none outlives the bot holding its output open. A worker that dies (the pool is then
broken) is replaced, and the image that met it is drawn in a thread instead."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.memory import TRIMMER, freeze_startup, tune_malloc
from bot.threads import image_pool

log = logging.getLogger("paddock.drawing")

DEFAULT_PROCESSES = 2  # two cores here: one picture drawn on each while the bot answers
IMAGE_NICE = 10  # as the league site's child (bot/site_child.py SITE_NICE)
WATCH_PARENT_S = 0.5  # how often a worker checks that the bot is still there


class Drawing:
    """The bot's image workers: `processes` worker processes, or the image threads (0)."""

    def __init__(self, processes: int = DEFAULT_PROCESSES) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def pool(self) -> Executor:
        """The executor images are drawn in (the worker processes start with the first
        image, or with `warm`)."""
        if self.processes <= 0:
            return image_pool()
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,
                    initargs=(IMAGE_NICE,),
                )
            return self._pool

    async def png(self, draw: Callable[[], bytes]) -> tuple[bytes, float]:
        """The image `draw` draws, and the seconds its drawing took (in the worker)."""
        loop = asyncio.get_running_loop()
        pool = self.pool()
        try:
            return await loop.run_in_executor(pool, drawn, draw)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): the next image gets a new pool, this
            # one is drawn here rather than lost.
            log.warning("an image worker died: starting new ones")
            self._replace(pool)
            return await loop.run_in_executor(image_pool(), drawn, draw)

    async def warm(self) -> None:
        """Start the worker processes and build their image caches, or this process's for
        its image threads."""
        loop = asyncio.get_running_loop()
        if self.processes <= 0:
            await asyncio.to_thread(warm_here)
            return
        pool = self.pool()
        # each submission finding no idle worker starts one, up to `processes`; a worker that
        # takes a second one finds its caches built
        try:
            await asyncio.gather(
                *(loop.run_in_executor(pool, warm_worker) for _ in range(self.processes))
            )
        except BrokenProcessPool:  # the images will start new workers, which build as needed
            log.warning("an image worker died while warming up: starting new ones")
            self._replace(pool)

    def _replace(self, broken: Executor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes (a new image starts new ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def drawn(draw: Callable[[], bytes]) -> tuple[bytes, float]:
    """Run in a worker (or an image thread): the PNG and its drawing time."""
    started = time.perf_counter()
    png = draw()
    seconds = time.perf_counter() - started
    TRIMMER.now_and_then()  # the memory a busy worker freed goes back (bot/memory.py)
    return png, seconds


_warm_lock = threading.Lock()
_warmed = False


def warm_here() -> bool:
    """Build this process's image caches (fonts, sprites, static layers), once: False if
    they were built already."""
    global _warmed
    from renderer.boards import warm_all

    with _warm_lock:
        if _warmed:
            return False
        warm_all()
        _warmed = True
        return True


def warm_worker() -> int:
    """Run in a worker: its caches built, then kept out of the garbage collector's sight;
    its process id."""
    if warm_here():
        freeze_startup()
    return os.getpid()


def start_worker(nice: int) -> None:
    """A worker process's start: a lower priority, no Ctrl-C (the bot stops its workers),
    a watch on the bot. (Its caches are built by `warm`, or as its first images need them.)"""
    with contextlib.suppress(OSError):
        os.nice(nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tune_malloc()
    threading.Thread(
        target=_watch_parent, args=(os.getppid(),), name="paddock-watch-bot", daemon=True
    ).start()


def _watch_parent(parent: int) -> None:
    """Leave as soon as the bot is gone (this worker is then another's child)."""
    while os.getppid() == parent:
        time.sleep(WATCH_PARENT_S)
    os._exit(0)


# The process's one Drawing: the bot sets its number of workers from its settings
# (PaddockBot.__init__); every part of the bot draws through it (bot/table/core.py `draw`).
DRAWING = Drawing()


def use_processes(processes: int) -> Drawing:
    """Draw in `processes` worker processes from now on (0: threads); the workers of another
    number stop."""
    if processes != DRAWING.processes:
        DRAWING.close()
        DRAWING.processes = processes
    return DRAWING
