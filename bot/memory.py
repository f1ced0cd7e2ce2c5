"""The bot process's memory: image buffers go back to the system when freed.

glibc serves a large allocation with mmap only above a threshold that it raises each time
such a block is freed, so after the first boards (several MB each) image buffers come from
the heap, which fragments and never shrinks: ~60 MB more RSS after a few hundred moves. A
fixed threshold keeps them on mmap, returned whole when Pillow frees them."""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
MMAP_THRESHOLD = 256 * 1024  # bytes: a 64x1024 RGBA strip and up


def tune_malloc() -> bool:
    """Fix glibc's mmap threshold for this process; False where that is not glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
