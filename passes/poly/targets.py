"""Target memory models, as data (no pass).

What the polyhedral tiler (schedule.py) solves tile sizes against and what
memory promotion (promote.py) allocates buffers in:

  cpu     L1 data / L2 / L3 bytes read from sysfs (cpu0), vector width from
          the host's ISA flags (avx512f -> 64 B, avx/avx2 -> 32 B, else 16 B);
          every figure can be overridden. Tiling: two levels (an L2 tile band
          around an L1 tile band); buffers stay in the default memory space.
  gpu     shared memory per block (48 KiB), max threads per block (1024),
          registers per thread (255) and per block (64 Ki), warp (32).
          Tiling: one level; the coincident members of the point band are the
          threads (their product <= threads per block), the tile loops the
          blocks; buffers in #mskernel.scope<shared>.
  ascend  910B: UB 192 KiB, L1 512 KiB, L0A / L0B 64 KiB, L0C 128 KiB, 32-byte
          alignment. Vector kernels: one level, footprint in UB; matmul-like
          (cube) kernels: an L1 tile band around an L0 tile band; the innermost
          tile extent times the element size is a multiple of 32 bytes.

`make(target, **overrides)` builds one; overrides use the field names
(`l1`, `l2`, `l3`, `vector_bytes`, `shared`, `threads`, ...), 0/None = keep.
"""
from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass, fields, replace

KiB = 1024


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * mult


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def host_caches() -> tuple[int, int, int]:
    """(L1 data, L2, L3) bytes of cpu0 from sysfs; (32 KiB, 1 MiB, 8 MiB) where
    unreadable. Read once per process (every CPU compile asks)."""
    out = {1: 32 * KiB, 2: 1024 * KiB, 3: 8 * 1024 * KiB}
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            level = int(_read(os.path.join(d, "level")))
            kind = _read(os.path.join(d, "type")).strip()
            size = _parse_size(_read(os.path.join(d, "size")))
        except (OSError, ValueError):
            continue
        if level == 1 and kind not in ("Data", "Unified"):
            continue
        if level in out:
            out[level] = size
    return out[1], out[2], out[3]


@functools.lru_cache(maxsize=None)
def host_vector_bytes() -> int:
    """Widest SIMD register of the host: 64 (AVX-512), 32 (AVX/AVX2), 16 otherwise
    (read once per process)."""
    try:
        flags = set()
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        return 16
    if "avx512f" in flags:
        return 64
    if "avx" in flags or "avx2" in flags:
        return 32
    if "sve" in flags:
        return 32
    return 16


@dataclass(frozen=True)
class CPU:
    name: str = "cpu"
    l1: int = 32 * KiB
    l2: int = 1024 * KiB
    l3: int = 8 * 1024 * KiB
    vector_bytes: int = 16

    def describe(self) -> str:
        return f"cpu l1={self.l1} l2={self.l2} l3={self.l3} vector={self.vector_bytes}B"


@dataclass(frozen=True)
class GPU:
    name: str = "gpu"
    shared: int = 48 * KiB           # shared memory per block
    threads: int = 1024              # max threads per block
    registers: int = 255             # registers per thread
    registers_per_block: int = 64 * KiB
    warp: int = 32
    registers_per_point: int = 32    # estimate: registers one scheduled point needs

    @property
    def max_threads(self) -> int:
        """Threads per block the register file allows at the per-point estimate."""
        per = min(self.registers, self.registers_per_point)
        return min(self.threads, self.registers_per_block // max(1, per))

    def describe(self) -> str:
        return (f"gpu shared={self.shared} threads={self.threads} registers={self.registers} "
                f"warp={self.warp}")


@dataclass(frozen=True)
class Ascend:
    name: str = "ascend"
    ub: int = 192 * KiB
    l1: int = 512 * KiB
    l0a: int = 64 * KiB
    l0b: int = 64 * KiB
    l0c: int = 128 * KiB
    align: int = 32                  # bytes

    def describe(self) -> str:
        return (f"ascend ub={self.ub} l1={self.l1} l0a={self.l0a} l0b={self.l0b} "
                f"l0c={self.l0c} align={self.align}B")


TARGETS = ("cpu", "gpu", "ascend")


def make(target: str, **overrides):
    """The memory model of `target` ('cpu' reads the host), with overrides
    (field name -> value; 0 or None keeps the model's figure)."""
    if target == "cpu":
        l1, l2, l3 = host_caches()
        model = CPU(l1=l1, l2=l2, l3=l3, vector_bytes=host_vector_bytes())
    elif target == "gpu":
        model = GPU()
    elif target == "ascend":
        model = Ascend()
    else:
        raise ValueError(f"unknown target '{target}' (one of {', '.join(TARGETS)})")
    names = {f.name for f in fields(model)}
    given = {k: v for k, v in overrides.items() if v and k in names}
    return replace(model, **given)
