"""mskernel-promote-buffers numerics: kernels scheduled (two-level / per-target
tiling, tails) and promoted give bit-identical results to the original
through the JIT (integer-valued float data; promotion only changes where the
cells live, not the order of the arithmetic).

cpu runs as is. gpu/ascend IR cannot run here: it must verify with its
`#mskernel.scope<...>` buffers, and then runs on the CPU with the scopes
erased -- a functional test of the footprints, offsets, copy-in/out loops and
tails (not of the target's memory)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import kernels as K

CPU_SMALL = "target=cpu l1-bytes=4096 l2-bytes=32768 vector-bytes=16"


def _same(text, make_arrays, passes, strip=False, seed=0):
    rng = np.random.default_rng(seed)
    arrays = make_arrays(rng)
    ref = [a.copy() for a in arrays]
    got = [a.copy() for a in arrays]
    e0, _, c0 = K.compile_kernel(text, None)
    e1, out, c1 = K.compile_pipeline(text, passes, strip=strip)
    K.call(e0, ref)
    K.call(e1, got)
    for r, g in zip(ref, got):
        assert np.array_equal(r, g), f"max diff {np.max(np.abs(r - g))}\n{out}"
    return out


def _ints(rng, shape):
    return rng.integers(-4, 5, size=shape).astype(np.float32)


def _promote(target: str, sched: str = "") -> str:
    opts = sched or f"target={target}"
    return f"mskernel-poly-schedule{{{opts}}},mskernel-promote-buffers,canonicalize"


def _mm_arrays(m, n, k, ta, tb):
    return lambda r: [_ints(r, (k, m) if ta else (m, k)), _ints(r, (n, k) if tb else (k, n)),
                      np.full((m, n), 7, np.float32)]


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (70, 45, 37), (33, 17, 100)])
def test_cpu_transposed_matmul(m, n, k):
    """C = A^T B^T: no loop order makes every access contiguous; k stays
    innermost, where A[k, i] is strided: its L1 tiles are copied transposed
    into a contiguous buffer (tails included); B[j, k] is contiguous."""
    out = _same(K.matmul(m, n, k, ta=True, tb=True), _mm_arrays(m, n, k, True, True),
                _promote("cpu", CPU_SMALL))
    assert "mskernel.promoted" in out
    assert re.search(r"tile-sizes: (l2 \d+x\d+x\d+ > )?l1 8x8x8", out), out
    assert "#mskernel.scope" not in out  # cpu buffers stay in the default memory space
    # (the reduction's initialization is fused into the band and its loops
    # separated where it starts: one buffer per separated point band)
    assert out.count("memref.alloc()") >= 1, out
    dims = re.findall(r"memref\.alloc\(\) : memref<(\d+)x(\d+)xf32>", out)
    assert dims and all(int(a) <= 8 and int(b) <= 8 for a, b in dims), out  # L1 tiles, tails smaller


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (70, 45, 37)])
def test_cpu_interchange_instead_of_promotion(m, n, k):
    """C = A^T B: with j innermost (i, k, j) A[k, i] is invariant and B, C are
    contiguous: the band is permuted (schedule.innermost_contiguous) and
    nothing needs a copy."""
    out = _same(K.matmul(m, n, k, ta=True), _mm_arrays(m, n, k, True, False), _promote("cpu", CPU_SMALL))
    assert "mskernel.promoted" not in out and "memref.alloc" not in out, out


def test_cpu_contiguous_not_promoted():
    """A B^T: every access is contiguous along k: nothing worth a copy on cpu."""
    out = _same(K.matmul(40, 40, 40, tb=False, ta=False).replace("%B[%l, %j]", "%B[%j, %l]"),
                lambda r: [_ints(r, (40, 40)), _ints(r, (40, 40)), np.zeros((40, 40), np.float32)],
                _promote("cpu", CPU_SMALL))
    assert "memref.alloc" not in out and "mskernel.promoted" not in out


@pytest.mark.parametrize("target", ["gpu", "ascend"])
@pytest.mark.parametrize("m,n,k,ta,tb", [(64, 64, 64, False, False), (50, 70, 30, True, False),
                                         (33, 17, 9, False, True)])
def test_scoped_matmul(target, m, n, k, ta, tb):
    sched = f"target={target} tile-sizes=16,8,16"
    out = _same(K.matmul(m, n, k, ta=ta, tb=tb), _mm_arrays(m, n, k, ta, tb), _promote(target, sched),
                strip=True)
    scopes = set(re.findall(r"memref\.alloc\(\) : memref<[^,]+, #mskernel\.scope<(\w+)>>", out))
    assert scopes == ({"shared"} if target == "gpu" else {"l0a", "l0b", "l0c"}), out


@pytest.mark.parametrize("target", ["gpu", "ascend"])
def test_scoped_matmul_solved_sizes(target):
    """Sizes solved from the memory model (ascend f32: one L0 level; gpu: 32x32
    threads), a size that does not divide."""
    m, n, k = 100, 90, 80
    out = _same(K.matmul(m, n, k), _mm_arrays(m, n, k, False, False), _promote(target), strip=True)
    assert "mskernel.promoted" in out


@pytest.mark.parametrize("target,sched", [("cpu", "target=cpu tile-sizes=4"), ("gpu", "target=gpu tile-sizes=4"),
                                          ("ascend", "target=ascend tile-sizes=4"),
                                          ("ascend", "target=ascend")])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_reduction_non_dividing(target, sched, axis):
    shape = (6, 10, 7)
    out_shape = tuple(d for a, d in enumerate(shape) if a != axis)
    out = _same(K.reduce_axis(shape, axis), lambda r: [_ints(r, shape), np.full(out_shape, 3, np.float32)],
                _promote(target, sched), strip=target != "cpu")
    if target == "ascend" and "tile-sizes: ub" in out:
        assert "#mskernel.scope<ub>" in out, out


@pytest.mark.parametrize("target", ["gpu", "ascend"])
def test_scoped_stencil_and_chain(target):
    n = 13
    _same(K.stencil(n), lambda r: [_ints(r, (n, n)), _ints(r, (n, n)), np.zeros((n, n), np.float32)],
          _promote(target, f"target={target} tile-sizes=4"), strip=True)
    _same(K.transposed_chain(n, n - 3), lambda r: [_ints(r, (n, n - 3)), np.zeros((n, n - 3), np.float32),
                                                   np.zeros((n - 3, n), np.float32)],
          _promote(target, f"target={target} tile-sizes=4"), strip=True)


def test_ascend_two_level_f16_shapes():
    """f16 matmul on ascend: an L1 band (A, B tiles in l1) around an L0 band
    (l0a / l0b / l0c); the promoted IR verifies (the numerics of the same
    structure are checked on f32 above)."""
    _, out, _ = K.compile_pipeline(K.matmul(512, 512, 512, et="f16", init=False),
                                   _promote("ascend"), lower=False)
    assert "tile-sizes: l1 256x256x256 > l0 128x128x128" in out, out
    for t in ("memref<256x256xf16, #mskernel.scope<l1>>", "memref<128x128xf16, #mskernel.scope<l0a>>",
              "memref<128x128xf16, #mskernel.scope<l0b>>", "memref<128x128xf16, #mskernel.scope<l0c>>"):
        assert t in out, t
