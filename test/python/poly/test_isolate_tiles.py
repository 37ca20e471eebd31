"""Full tiles isolated from partial ones (schedule.isolate_full_tiles): the
scheduled kernels still give the unscheduled loops' results on shapes that
do not divide the tiles, the full tiles' point loops have constant bounds,
the tails of tiled reductions get vector code (vectorize.py: the widest
vector the tail fills, then a masked step), and codegen builds isl's
disjunctive conditions (`a || b`, what isolating a 3-d band gives) as an
if/else chain."""
from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir

import kernels as K
from msmlir import compiler
from msmlir.passes.poly import codegen, dependences, model, schedule, targets

SMALL = "{target=cpu l1-bytes=4096 l2-bytes=32768}"


def matvec(m: int, k: int, comb: str = "arith.addf", op: str = "arith.mulf") -> str:
    """y[i] = comb(y[i], op(A[i, k], x[k])): rows share x (reuse), the
    reduction innermost."""
    return f"""func.func @k(%A: memref<{m}x{k}xf32>, %x: memref<{k}xf32>, %y: memref<{m}xf32>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {k} {{
      %a = affine.load %A[%i, %j] : memref<{m}x{k}xf32>
      %b = affine.load %x[%j] : memref<{k}xf32>
      %c = affine.load %y[%i] : memref<{m}xf32>
      %p = {op} %a, %b : f32
      %s = {comb} %c, %p : f32
      affine.store %s, %y[%i] : memref<{m}xf32>
    }}
  }}
  return
}}"""


def transpose_add(m: int, n: int) -> str:
    return f"""func.func @k(%A: memref<{n}x{m}xf32>, %B: memref<{m}x{n}xf32>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %a = affine.load %A[%j, %i] : memref<{n}x{m}xf32>
      %b = affine.load %B[%i, %j] : memref<{m}x{n}xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}"""


def _run(text, arrays, sched):
    engine, out, _ = K.compile_kernel(text, sched)
    got = [a.copy() for a in arrays]
    K.call(engine, got)
    return got, out


@pytest.mark.parametrize("m,k", [(64, 1000), (40, 1000), (33, 517), (64, 1024), (5, 300)])
def test_tiled_matvec_tails(m, k):
    rng = np.random.default_rng(m * k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    x = rng.standard_normal(k).astype(np.float32)
    y = rng.standard_normal(m).astype(np.float32)
    ref, _ = _run(matvec(m, k), [a, x, y], None)
    got, out = _run(matvec(m, k), [a, x, y], SMALL)
    assert "isolate" in out and "mskernel.vector_reduction" in out, out
    exact = y.astype(np.float64) + a.astype(np.float64) @ x.astype(np.float64)
    bound = 2 * k * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(x) + np.abs(y))
    assert np.all(np.abs(got[2] - exact) <= bound + 1e-6)
    assert np.all(np.abs(ref[2] - exact) <= bound + 1e-6)
    # the reductions of the partial tiles (k mod 32 columns) are vector code too
    tail = k % 32 % 16
    if tail >= 4:
        lanes = 1 << (tail.bit_length() - 1)
        assert f"add 1x{lanes}" in out or f"vector<{lanes}xf32>" in out, out


@pytest.mark.parametrize("comb,ref", [("arith.maximumf", np.maximum), ("arith.minimumf", np.minimum)])
@pytest.mark.parametrize("m,k", [(40, 1000), (33, 517), (64, 1000)])
def test_tiled_max_min_tails_exact(comb, ref, m, k):
    """max / min in the masked steps (masked-off lanes: the neutral +-inf): exact."""
    rng = np.random.default_rng(m + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    x = rng.standard_normal(k).astype(np.float32)
    y = rng.standard_normal(m).astype(np.float32)
    text = matvec(m, k, comb, "arith.addf")
    got, out = _run(text, [a, x, y], SMALL)
    assert "mskernel.vector_reduction" in out, out
    np.testing.assert_array_equal(got[2], ref(y, ref.reduce(a + x[None, :], axis=1)))


@pytest.mark.parametrize("m,n", [(100, 100), (67, 45), (128, 96), (31, 200)])
def test_tiled_transpose_tails_exact(m, n):
    rng = np.random.default_rng(m + n)
    a = rng.standard_normal((n, m)).astype(np.float32)
    b = rng.standard_normal((m, n)).astype(np.float32)
    ref, _ = _run(transpose_add(m, n), [a, b], None)
    got, out = _run(transpose_add(m, n), [a, b], SMALL)
    np.testing.assert_array_equal(got[1], ref[1])
    np.testing.assert_array_equal(got[1], a.T + b)
    if m >= 32 and n >= 32:
        # full tiles: constant point loops, 8x8 transposed vector blocks
        # (vectorize.transposes); partial ones: loops of their own, marked
        assert re.search(r"affine.for %\w+ = 0 to 16 step 8 \{", out), out
        assert 'mskernel.vector_transpose = "8x8"' in out, out
        assert out.count('mskernel.band = "point"') >= (2 if m % 16 or n % 16 else 1), out


def test_disjunctions_become_if_chains():
    """A 3-d band isolated (max_members=3): isl's partial-tile conditions are
    disjunctions; codegen builds them as if/else chains with the same results."""
    m_, n_, k_ = 100, 70, 90
    text = K.matmul(m_, n_, k_, init=False)
    ctx = compiler.context()
    with ctx:
        m = ir.Module.parse(text)
        func = next(o.operation for o in m.body.operations)
        scop = model.extract(func)
        deps = dependences.compute(scop)
        t = targets.make("cpu", l1=4096, l2=32768)
        res = schedule.schedule(scop, deps, tile_sizes=[], target=t)
        iso = schedule.isolate_full_tiles(res.schedule, max_members=3)
        c_text = codegen.ast(iso).to_C_str()
        assert "||" in c_text, c_text
        codegen.rebuild(scop, iso, None)
        assert m.operation.verify()
        scheduled = str(m)
    assert "else" in scheduled
    rng = np.random.default_rng(3)
    arrays = [rng.integers(-4, 5, size=s).astype(np.float32) for s in ((m_, k_), (k_, n_), (m_, n_))]
    ref, _ = _run(text, arrays, None)
    got, _ = _run(scheduled, arrays, None)
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(r, g)


def transpose_then(m: int, n: int, body: str) -> str:
    """C = A^T (one nest), then C[i, j] = body(C[i, j], B[i, j]) (another):
    isl fuses them; vectorize.transposes forwards the stored block."""
    return f"""func.func @k(%A: memref<{n}x{m}xf32>, %B: memref<{m}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %a = affine.load %A[%j, %i] : memref<{n}x{m}xf32>
      affine.store %a, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load %C[%i, %j] : memref<{m}x{n}xf32>
      %b = affine.load %B[%i, %j] : memref<{m}x{n}xf32>
      %s = {body} %c, %b : f32
      affine.store %s, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}"""


@pytest.mark.parametrize("m,n,tiles", [(100, 100, "{tile-sizes=32}"), (64, 40, "{tile-sizes=16}"),
                                       (77, 129, "{tile-sizes=8}"), (300, 200, "")])
@pytest.mark.parametrize("body,ref", [("arith.addf", np.add), ("arith.mulf", np.multiply)])
def test_transposed_blocks_exact(m, n, tiles, body, ref):
    rng = np.random.default_rng(m * n)
    a = rng.standard_normal((n, m)).astype(np.float32)
    b = rng.standard_normal((m, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    text = transpose_then(m, n, body)
    got, out = _run(text, [a, b, c], tiles)
    if tiles:
        assert 'mskernel.vector_transpose = "8x8"' in out, out
    np.testing.assert_array_equal(got[2], ref(a.T, b))
