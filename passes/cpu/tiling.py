"""Tile-size choices of the CPU strategies: divisors, vector lengths, the host ISA."""
from __future__ import annotations

from ..common.linalg import MIN_WORK
from ..registry import Option

# The options of the CPU strategies that vectorize big ops and split them over
# threads (tile-vectorize, vectorize-windows, vectorize-arg-reductions).
CODEGEN_OPTIONS = {
    "threads": Option(int, 1, "split the outermost parallel loop of big ops into this many "
                              "scf.forall tasks (1: serial)"),
    "min-work": Option(int, MIN_WORK, "top-level ops with a smaller iteration space keep the "
                                      "plain path")}


def divisor_le(n: int, t: int) -> int:
    """The largest divisor of n that is at most t (1 if none)."""
    for d in range(min(n, t), 0, -1):
        if n % d == 0:
            return d
    return 1


def lanes(bits: int) -> int:
    """Vector lanes for an element width: 16 x f32, 8 x f64, 32 x f16 / i8
    (half an AVX-512 register, two AVX2 ones; at least 4, at most 32)."""
    return min(32, max(4, 512 // max(bits, 8)))


def vector_tile(size: int, bits: int) -> int:
    """Vector length for a dim of `size` elements: a divisor of size close to
    two AVX2 registers; the whole dim when it is small."""
    n = lanes(bits)
    if size <= 2 * n:
        return size
    for c in (n, n * 2, n // 2, n * 3 // 2, n // 4 * 3, n // 4):
        if c >= 4 and size % c == 0:
            return c
    best = divisor_le(size, 2 * n)
    if best >= 4:
        return best
    return 0  # no good divisor: caller peels


_AVX512 = None


def host_has_avx512() -> bool:
    """Whether the JIT's host CPU has AVX-512F (ExecutionEngine targets the host)."""
    global _AVX512
    if _AVX512 is None:
        try:
            with open("/proc/cpuinfo") as f:
                flags = next((ln for ln in f if ln.startswith("flags")), "")
            _AVX512 = " avx512f" in flags
        except OSError:
            _AVX512 = False
    return _AVX512
