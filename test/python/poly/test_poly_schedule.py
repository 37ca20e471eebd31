"""mskernel-poly-schedule numerics: random small affine kernels run through
the JIT before and after isl scheduling (fusion, permutation, tiling with
tails) give bit-identical results on integer-valued float data (every
schedule here keeps each reduction's order, so results match exactly)."""
from __future__ import annotations

import numpy as np
import pytest

import kernels as K


def _same(text, make_arrays, schedule, seed=0):
    rng = np.random.default_rng(seed)
    arrays = make_arrays(rng)
    ref = [a.copy() for a in arrays]
    got = [a.copy() for a in arrays]
    e0, _, c0 = K.compile_kernel(text, None)
    e1, scheduled, c1 = K.compile_kernel(text, schedule)
    assert "mskernel.schedule" in scheduled, scheduled  # rescheduled, not left alone
    K.call(e0, ref)
    K.call(e1, got)
    for r, g in zip(ref, got):
        assert np.array_equal(r, g), f"max diff {np.max(np.abs(r - g))}\n{scheduled}"
    return scheduled


def _ints(rng, shape):
    return rng.integers(-4, 5, size=shape).astype(np.float32)


@pytest.mark.parametrize("m,n,k,tiles", [(16, 16, 16, ""), (24, 20, 12, "{tile-sizes=8}"),
                                         (33, 17, 9, "{tile-sizes=8,4,16}"), (10, 10, 10, "{tile-sizes=4}")])
def test_matmul(m, n, k, tiles):
    text = K.matmul(m, n, k)
    out = _same(text, lambda r: [_ints(r, (m, k)), _ints(r, (k, n)), np.full((m, n), 7, np.float32)], tiles)
    assert "mskernel.parallel" in out


def test_matmul_no_init_i32():
    text = K.matmul(12, 20, 8, et="i32", init=False)
    _same(text, lambda r: [r.integers(-9, 9, (12, 8)).astype(np.int32),
                           r.integers(-9, 9, (8, 20)).astype(np.int32),
                           r.integers(-9, 9, (12, 20)).astype(np.int32)], "{tile-sizes=8}")


@pytest.mark.parametrize("m,n", [(8, 8), (13, 7)])
def test_transposed_producer_consumer(m, n):
    _same(K.transposed_chain(m, n), lambda r: [_ints(r, (m, n)), np.zeros((m, n), np.float32),
                                                np.zeros((n, m), np.float32)], "{tile-sizes=4}")


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_reduction_each_axis(axis):
    shape = (6, 10, 7)
    out = tuple(d for a, d in enumerate(shape) if a != axis)
    _same(K.reduce_axis(shape, axis), lambda r: [_ints(r, shape), np.full(out, 3, np.float32)], "")


@pytest.mark.parametrize("seed", range(3))
def test_stencil_shifts(seed):
    n = 11 + seed
    _same(K.stencil(n), lambda r: [_ints(r, (n, n)), _ints(r, (n, n)), np.zeros((n, n), np.float32)],
          "{tile-sizes=4}", seed=seed)


def test_triangular_bounds():
    n = 9
    _same(K.triangular(n), lambda r: [_ints(r, (n, n)), _ints(r, (n, n))], "{tile-sizes=4}")


def test_random_elementwise_chains():
    """Random chains of 2-4 elementwise nests with random shifts of reads."""
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        n = int(rng.integers(5, 12))
        steps = int(rng.integers(2, 5))
        t = f"memref<{n}x{n}xf32>"
        args = ", ".join(f"%B{s}: {t}" for s in range(steps + 1))
        body = []
        for s in range(steps):
            di, dj = (int(x) for x in rng.integers(0, 2, 2))
            swap = bool(rng.integers(0, 2))
            src = f"%B{s}[%i - {di}, %j - {dj}]" if not swap else f"%B{s}[%j - {dj}, %i - {di}]"
            body.append(f"""  affine.for %i = 1 to {n} {{
    affine.for %j = 1 to {n} {{
      %x = affine.load {src} : {t}
      %y = arith.addf %x, %x : f32
      affine.store %y, %B{s + 1}[%i, %j] : {t}
    }}
  }}""")
        text = f"func.func @k({args}) {{\n" + "\n".join(body) + "\n  return\n}"
        _same(text, lambda r: [_ints(r, (n, n)) for _ in range(steps + 1)], "{tile-sizes=4}", seed=seed)
