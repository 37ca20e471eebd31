"""A caching device allocator (PyTorch's CUDA caching allocator, in small).

Why: cuMemAlloc / cuMemFree are slow driver calls (cuMemFree synchronizes
the device), and every GPU graph call allocates and frees each intermediate
buffer (the host code of msmlir-gpu-device-buffers: gpu.alloc / gpu.dealloc
-> mgpuMemAlloc / mgpuMemFree), every PyNative op its managed result. Freed
blocks are kept instead, in free lists per (size class, kind), and handed
out again to the next request of that class: a graph called in a loop
allocates from the driver on its first call only.

  size classes  requests rounded up to 512 bytes, then to one of four steps
                per power of two (2^k, 1.25, 1.5, 1.75 x 2^k: at most 25 %
                unused); a block is reused only for its own class
  kinds         device memory and managed memory (host-shared) apart
  streams       one: a block freed inside a graph is reused in the same
                stream's order (the graph's host code runs all its work on
                one stream and waits for it before returning: gpu-async-
                region), and the Python side reuses blocks only between
                calls
  out of memory a failed driver allocation releases every cached block
                (`empty_cache`) and tries once more, as PyTorch does

`DeviceRuntime` (resident.py) allocates through `runtime.allocator`; the JIT
of a loaded program gets `mgpuMemAlloc` / `mgpuMemFree` bound to it
(`entry_points`: ctypes callbacks, host.load). `stats` counts driver
allocations and frees, reuses and the cached bytes (the fake libcuda tests
check them).
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

MIN_BLOCK = 512


def size_class(nbytes: int) -> int:
    """The block size a request of `nbytes` gets (>= nbytes, <= 1.25 x)."""
    n = max(MIN_BLOCK, -(-nbytes // MIN_BLOCK) * MIN_BLOCK)
    if n <= 4 * MIN_BLOCK:
        return n
    top = 1 << (n.bit_length() - 1)        # the power of two <= n
    step = top // 4
    return -(-n // step) * step


@dataclass
class Stats:
    driver_allocs: int = 0       # cuMemAlloc(Managed) calls
    driver_frees: int = 0
    reuses: int = 0              # requests served from a free list
    requests: int = 0
    cached_bytes: int = 0        # in the free lists
    in_use_bytes: int = 0


class CachingAllocator:
    """Blocks from `alloc(bytes, stream, managed) -> ptr` / `free(ptr,
    stream)` (the mgpu* entry points), cached by size class and kind."""

    def __init__(self, alloc, free, stream):
        self._alloc, self._free, self.stream = alloc, free, stream
        self._lists: dict[tuple[int, bool], list[int]] = {}
        self._live: dict[int, tuple[int, bool]] = {}     # ptr -> (class, managed)
        self._lock = threading.RLock()    # (a finalizer may free during a malloc)
        self.stats = Stats()

    def malloc(self, nbytes: int, managed: bool = False) -> int:
        """A block of at least `nbytes` (0 when the driver has none left)."""
        cls = size_class(nbytes)
        with self._lock:
            self.stats.requests += 1
            free = self._lists.get((cls, managed))
            if free:
                ptr = free.pop()
                self.stats.reuses += 1
                self.stats.cached_bytes -= cls
            else:
                ptr = self._driver_alloc(cls, managed)
                if not ptr:
                    return 0
            self._live[ptr] = (cls, managed)
            self.stats.in_use_bytes += cls
            return ptr

    def _driver_alloc(self, cls: int, managed: bool) -> int:
        ptr = self._alloc(cls, self.stream, managed)
        if not ptr and self.stats.cached_bytes:
            self._release_all()                 # out of memory: give the cache back, retry
            ptr = self._alloc(cls, self.stream, managed)
        if ptr:
            self.stats.driver_allocs += 1
        return ptr or 0

    def free(self, ptr: int) -> None:
        """Returns a block of ours to its free list (one not ours: to the driver)."""
        if not ptr:
            return
        with self._lock:
            entry = self._live.pop(ptr, None)
            if entry is None:
                self._free(ptr, self.stream)
                self.stats.driver_frees += 1
                return
            self._lists.setdefault(entry, []).append(ptr)
            self.stats.in_use_bytes -= entry[0]
            self.stats.cached_bytes += entry[0]

    def owns(self, ptr: int) -> bool:
        return ptr in self._live

    def _release_all(self) -> None:
        for free in self._lists.values():
            for p in free:
                self._free(p, self.stream)
                self.stats.driver_frees += 1
            free.clear()
        self.stats.cached_bytes = 0

    def empty_cache(self) -> None:
        """Gives every cached (free) block back to the driver."""
        with self._lock:
            self._release_all()

    # -- the JIT's mgpuMemAlloc / mgpuMemFree ---------------------------------------------------

    def entry_points(self) -> dict[str, int]:
        """{"mgpuMemAlloc": address, "mgpuMemFree": address}: ctypes callbacks
        into this allocator with the runtime library's signatures, for a
        loaded program's host code (kept alive by the allocator)."""
        if not hasattr(self, "_callbacks"):
            alloc_t = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                       ctypes.c_bool)
            free_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
            self._callbacks = (alloc_t(lambda n, s, shared: self.malloc(n, bool(shared)) or None),
                               free_t(lambda p, s: self.free(p or 0)))
        a, f = self._callbacks
        return {"mgpuMemAlloc": ctypes.cast(a, ctypes.c_void_p).value,
                "mgpuMemFree": ctypes.cast(f, ctypes.c_void_p).value}
