"""The bot process's memory: image buffers go back to the system when freed, freed heap
memory is given back now and then, and the garbage collector's pauses kept short.

glibc serves a large allocation with mmap only above a threshold that it raises each time
such a block is freed, so after the first boards (several MB each) image buffers come from
the heap, which fragments and never shrinks: ~60 MB more RSS after a few hundred moves. A
fixed threshold keeps them on mmap, returned whole when Pillow frees them.

Every click leaves ~90 objects in reference cycles (discord.py's views, interactions and
messages refer to each other), which only the garbage collector frees. With CPython's
default thresholds many of them are still in use when the youngest generation is
collected, so they reach the oldest, and under issue 11's load a full collection ran every
~4 s for 85-160 ms, holding up every answer under way. A youngest generation of 5,000
objects lets most of those cycles die young, and the ~90,000 objects of start-up (modules,
commands, image caches) are frozen once the images are warm, so a full collection (now about
one a minute) no longer walks them: measured over 600 s, answers' p99 201 -> 84 ms, the
longest pause ~60 ms (a youngest generation of 20,000 was tried too: its collections then
took 30-85 ms each)."""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import time
from collections.abc import Callable

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
MMAP_THRESHOLD = 256 * 1024  # bytes: a 64x1024 RGBA strip and up


def _glibc(name: str) -> Callable[..., int] | None:
    """glibc's function `name` in this process, or None where that is not glibc."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # not glibc (musl has no mallopt, no malloc_trim)
        return None


def tune_malloc() -> bool:
    """Fix glibc's mmap threshold for this process; False where that is not glibc."""
    mallopt = _glibc("mallopt")
    return mallopt is not None and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


# Freed memory inside glibc's heaps (between blocks still in use: objects, text masks, a
# board's buffers below the mmap threshold) stays in the process until malloc_trim gives
# its whole pages back. Under issue 11's load ~25-38 MB of the heaps was free, growing with
# the run. A trim takes a few ms (in an image thread, without the GIL); twice a minute is
# enough to keep that from building up.
TRIM_EVERY_S = 30.0


class Trimmer:
    """Gives freed heap memory back to the system now and then (`now_and_then`, from any
    thread: one trim at a time, at most one per `every` seconds of `clock`)."""

    def __init__(
        self,
        trim: Callable[[int], int] | None,
        every: float = TRIM_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.trim, self.every, self.clock = trim, every, clock
        self.trims = 0
        self._last = clock()
        self._lock = threading.Lock()

    def now_and_then(self) -> bool:
        """Trim if `every` seconds have passed since the last (or the start); True if it did."""
        if self.trim is None or self.clock() - self._last < self.every:
            return False
        if not self._lock.acquire(blocking=False):
            return False  # another thread is trimming
        try:
            if self.clock() - self._last < self.every:
                return False
            self.trim(0)
            self._last = self.clock()
            self.trims += 1
            return True
        finally:
            self._lock.release()


TRIMMER = Trimmer(_glibc("malloc_trim"))


# Objects (allocations less deallocations of containers) between young collections:
# CPython's default is 700. The older generations keep their defaults (10, 10).
YOUNG_THRESHOLD = 5_000


def tune_collector() -> None:
    """Collect the youngest generation less often, so that a click's cycles are garbage
    (and freed young) by then rather than promoted towards a full collection."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)


def freeze_startup() -> None:
    """Move everything alive now out of the collector's sight (after start-up: modules,
    commands, warmed image caches), collected first so no garbage is frozen with it."""
    gc.collect()
    gc.freeze()
