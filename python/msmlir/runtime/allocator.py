"""glibc malloc tuning for compiled code, applied once when the runtime starts
(the first `CompiledModule`), never as a side effect of building a pipeline.

Compiled functions malloc their temporaries (the matmul's packed panels, 4 MiB
each at 1024^3) and the runtime allocates every output with numpy.empty; with
glibc's defaults each big block is a fresh mmap, so every call pays page faults
on it (measured: 1024^3 matmul 42.6 ms -> 33.0 ms). M_MMAP_THRESHOLD 64 MiB and
M_TRIM_THRESHOLD 256 MiB keep such blocks for reuse. Process-wide; up to
256 MiB of freed memory may stay mapped. MSMLIR_CPU_MALLOPT=0 disables it.
"""
from __future__ import annotations

import ctypes
import os

from .linker import system_library

_DONE: list = []


def tune_malloc() -> bool:
    """Applies the thresholds once; returns whether they are in effect."""
    if _DONE:
        return _DONE[0]
    ok = False
    if os.environ.get("MSMLIR_CPU_MALLOPT", "1") not in ("0", "false"):
        try:
            libc = ctypes.CDLL(system_library("c"))
            M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
            ok = bool(libc.mallopt(M_MMAP_THRESHOLD, 64 << 20)) and \
                bool(libc.mallopt(M_TRIM_THRESHOLD, 256 << 20))
        except (OSError, AttributeError, TypeError):
            ok = False
    _DONE.append(ok)
    return ok
