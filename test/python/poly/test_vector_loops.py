"""Vector loops of mskernel-poly-schedule's codegen (passes/poly/vectorize.py:
`elementwise`, `columns`) against the unscheduled loops and numpy, on random
shapes with every tail; and the classes mskernel-poly-claim now gives the
scheduler for them (elementwise ops on their own, reductions over outer
axes: column sums / bias gradients) through the whole CPU pipeline.

Both rewrites keep each cell's order of operations (elementwise: one
operation per cell; columns: each column's sum still runs over the rows in
order), so float results equal the unscheduled loops bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import kernels as K
from msmlir.compiler import compile_mlir
from msmlir.passes.poly.vectorize import COLUMN_STRIP_BYTES, COLUMN_STRIP_ROWS, COLUMN_VECTORS

NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8, "f16": np.float16}
LANES = {"f32": 16, "f64": 8, "i32": 16, "i8": 32, "f16": 32}


def _run(text, arrays, schedule):
    engine, out, ctx = K.compile_kernel(text, schedule)
    got = [a.copy() for a in arrays]
    K.call(engine, got)
    return got, out


def _data(rng, shape, et):
    if et.startswith("i"):
        return rng.integers(-20, 21, shape).astype(NP[et])
    return rng.standard_normal(shape).astype(NP[et])


def elementwise(rows: int, cols: int, et: str) -> str:
    """Y[i, j] = X[i, j] * S[i] + V[j] (+ X: a value read twice)."""
    x, s, v = K.ty((rows, cols), et), K.ty((rows,), et), K.ty((cols,), et)
    f = et[0] == "f"
    mul, add = ("arith.mulf", "arith.addf") if f else ("arith.muli", "arith.addi")
    return f"""func.func @k(%X: {x}, %S: {s}, %V: {v}, %Y: {x}) {{
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %a = affine.load %X[%i, %j] : {x}
      %b = affine.load %S[%i] : {s}
      %c = affine.load %V[%j] : {v}
      %p = {mul} %a, %b : {et}
      %q = {add} %p, %c : {et}
      %r = {add} %q, %a : {et}
      affine.store %r, %Y[%i, %j] : {x}
    }}
  }}
  return
}}"""


@pytest.mark.parametrize("et", sorted(NP))
def test_elementwise_loops_match(et):
    rng = np.random.default_rng(len(et))
    for rows, cols in [(3, 1), (5, 3), (4, 4), (7, 13), (9, LANES[et]), (6, LANES[et] + 5),
                       (5, 3 * LANES[et] - 1), (2, 1000)]:
        arrays = [_data(rng, (rows, cols), et), _data(rng, rows, et), _data(rng, cols, et),
                  np.zeros((rows, cols), NP[et])]
        text = elementwise(rows, cols, et)
        ref, _ = _run(text, arrays, None)
        got, out = _run(text, arrays, "")
        # rows of at least MIN_LANES (4): vector steps (the widest power of two
        # up to the type's lanes), the tail one masked step
        assert ("mskernel.vector_elementwise" in out) == (cols >= 4), (rows, cols, out)
        assert ("vector.maskedstore" in out) == (cols >= 4 and cols % min(LANES[et], 1 << (cols.bit_length() - 1)) != 0), (rows, cols, out)
        np.testing.assert_array_equal(got[3], ref[3])
        x, s, v = arrays[:3]
        with np.errstate(over="ignore"):
            want = (x * s[:, None] + v[None, :] + x).astype(NP[et])
        if et[0] == "f":
            np.testing.assert_allclose(got[3].astype(np.float64), want.astype(np.float64),
                                       rtol=1e-2 if et == "f16" else 1e-5, atol=1e-2 if et == "f16" else 1e-5)
        else:
            np.testing.assert_array_equal(got[3], want)


def _div(rows, cols):
    x = K.ty((rows, cols), "i32")
    return f"""func.func @k(%X: {x}, %D: {x}, %Y: {x}) {{
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %a = affine.load %X[%i, %j] : {x}
      %d = affine.load %D[%i, %j] : {x}
      %q = arith.divsi %a, %d : i32
      affine.store %q, %Y[%i, %j] : {x}
    }}
  }}
  return
}}"""


@pytest.mark.parametrize("cols,vector", [(64, True), (70, False)])
def test_integer_division_only_without_masked_tail(cols, vector):
    # a masked tail pads its lanes with 0: an integer division there could
    # trap, so such a loop stays scalar; without a tail it is vectorized
    rng = np.random.default_rng(cols)
    x = rng.integers(-1000, 1000, (3, cols)).astype(np.int32)
    d = rng.integers(1, 9, (3, cols)).astype(np.int32) * rng.choice([-1, 1], (3, cols)).astype(np.int32)
    arrays = [x, d, np.zeros_like(x)]
    ref, _ = _run(_div(3, cols), arrays, None)
    got, out = _run(_div(3, cols), arrays, "")
    assert ("mskernel.vector_elementwise" in out) == vector, out
    np.testing.assert_array_equal(got[2], ref[2])


def test_bool_memrefs_stay_scalar():
    x = K.ty((8, 64), "i1")
    text = f"""func.func @k(%X: {x}, %Y: {x}) {{
  affine.for %i = 0 to 8 {{
    affine.for %j = 0 to 64 {{
      %a = affine.load %X[%i, %j] : {x}
      %t = arith.constant true
      %b = arith.xori %a, %t : i1
      affine.store %b, %Y[%i, %j] : {x}
    }}
  }}
  return
}}"""
    # (scheduled only: the test lowering has no bool widening)
    _, out, _ = K.compile_pipeline(text, "mskernel-poly-schedule", lower=False)
    assert "mskernel.schedule" in out and "vector<" not in out, out


def test_shifted_write_not_vectorized():
    # Y[j + 1] = Y[j] * 2 along j: the written array is read at another cell
    # (a loop-carried dependence): no vector loop, same results
    y = K.ty((100,), "f32")
    text = f"""func.func @k(%Y: {y}) {{
  affine.for %j = 0 to 99 {{
    %a = affine.load %Y[%j] : {y}
    %c = arith.constant 2.0 : f32
    %b = arith.mulf %a, %c : f32
    affine.store %b, %Y[%j + 1] : {y}
  }}
  return
}}"""
    arrays = [np.random.default_rng(1).standard_normal(100).astype(np.float32) * 1e-10]
    ref, _ = _run(text, arrays, None)
    got, out = _run(text, arrays, "")
    assert "vector_elementwise" not in out, out
    np.testing.assert_array_equal(got[0], ref[0])


def column_reduce(rows: int, cols: int, et: str = "f32", scale: bool = False) -> str:
    """Y[j] += X[i, j] (* S[i] when `scale`: a value varying with the rows only)."""
    x, y, s = K.ty((rows, cols), et), K.ty((cols,), et), K.ty((rows,), et)
    add, mul = ("arith.addf", "arith.mulf") if et[0] == "f" else ("arith.addi", "arith.muli")
    expr, extra = "%x", ""
    if scale:
        extra = f"      %s = affine.load %S[%i] : {s}\n      %e = {mul} %x, %s : {et}\n"
        expr = "%e"
    return f"""func.func @k(%X: {x}, %S: {s}, %Y: {y}) {{
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %x = affine.load %X[%i, %j] : {x}
{extra}      %y = affine.load %Y[%j] : {y}
      %r = {add} %y, {expr} : {et}
      affine.store %r, %Y[%j] : {y}
    }}
  }}
  return
}}"""


# (rows, cols): one block of <= COLUMN_VECTORS + 2 vectors with or without a
# masked tail, blocks of COLUMN_VECTORS in a loop + the rest, strips of
# COLUMN_STRIP_ROWS rows (+ the rows left) once the rows exceed
# COLUMN_STRIP_BYTES
COLUMN_SHAPES = [(64, 500), (128, 84), (7, 16), (33, 5), (200, 10), (1000, 37), (20, 1000),
                 (1003, 200), (64, 16 * (COLUMN_VECTORS + 3) + 9)]


@pytest.mark.parametrize("et", ["f32", "f64", "i32"])
@pytest.mark.parametrize("scale", [False, True])
def test_column_reductions_match(et, scale):
    rng = np.random.default_rng(3 + scale)
    for rows, cols in COLUMN_SHAPES:
        arrays = [_data(rng, (rows, cols), et), _data(rng, rows, et), _data(rng, cols, et)]
        text = column_reduce(rows, cols, et, scale)
        ref, _ = _run(text, arrays, None)
        got, out = _run(text, arrays, "")
        assert "mskernel.vector_columns" in out, (rows, cols, out)
        strips = rows * cols * np.dtype(NP[et]).itemsize > COLUMN_STRIP_BYTES and rows >= 2 * COLUMN_STRIP_ROWS
        assert (f"step {COLUMN_STRIP_ROWS} {{" in out) == strips, (rows, cols, out)
        # each column summed over the rows in order: bit-identical; with the
        # scale, y + x * s is contracted into an FMA (one rounding fewer)
        if scale and et[0] == "f":
            assert "fastmath<contract>" in out, out
            np.testing.assert_allclose(got[2], ref[2], rtol=1e-5 if et == "f32" else 1e-12,
                                       atol=(1e-5 if et == "f32" else 1e-12) * rows)
        else:
            np.testing.assert_array_equal(got[2], ref[2])
        x, s, y0 = arrays
        want = y0.astype(np.float64) + ((x * s[:, None]) if scale else x).astype(np.float64).sum(0)
        np.testing.assert_allclose(got[2].astype(np.float64), want, rtol=1e-4, atol=1e-3 * rows)


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (17, 23, 19), (70, 100, 33), (128, 128, 128)])
@pytest.mark.parametrize("init", [True, False])
def test_matmul_columns_exact(m, n, k, init):
    # the scheduled matmul's k loop (i, k, j order): C's row blocks held in
    # vector accumulators across k (without the zero-fill nest: blocks of 4
    # rows of i sharing B's loads), each C[i, j] summed over k in order, the
    # multiply-add an FMA: exact on integer-valued data
    rng = np.random.default_rng(m)
    arrays = [rng.integers(-8, 9, (m, k)).astype(np.float32), rng.integers(-8, 9, (k, n)).astype(np.float32),
              rng.integers(-8, 9, (m, n)).astype(np.float32)]
    text = K.matmul(m, n, k, init=init)
    ref, _ = _run(text, arrays, None)
    got, out = _run(text, arrays, "")
    assert "mskernel.vector_columns" in out, out
    if not init and (m, n, k) == (64, 64, 64):
        assert 'mskernel.vector_columns = "4x16 rows 4"' in out, out
    np.testing.assert_array_equal(got[2], ref[2])
    want = (arrays[2] if not init else 0) + arrays[0] @ arrays[1]
    np.testing.assert_array_equal(got[2], want)


# --- the claimed classes through the CPU pipeline -----------------------------------

def _t(shape, et="f32") -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{et}>"


def _staged(text):
    from test_pipeline_poly import _poly_stage
    return _poly_stage(text)


@pytest.mark.parametrize("shape,et", [((1000, 1000), "f32"), ((300, 77), "f32"), ((64, 257), "f64"),
                                      ((513, 129), "i32")])
def test_claimed_elementwise(shape, et):
    b = shape[-1:]
    text = (f"func.func @f(%x: {_t(shape, et)}, %y: {_t(b, et)}) -> {_t(shape, et)} {{\n"
            f"  %m = mindir.mul %x, %x : ({_t(shape, et)}, {_t(shape, et)}) -> {_t(shape, et)}\n"
            f"  %r = mindir.add %m, %y : ({_t(shape, et)}, {_t(b, et)}) -> {_t(shape, et)}\n"
            f"  return %r : {_t(shape, et)}\n}}")
    staged = _staged(text)
    assert "mskernel.poly" in staged and "mskernel.vector_elementwise" in staged, staged
    rng = np.random.default_rng(shape[1])
    x, y = _data(rng, shape, et), _data(rng, b, et)
    got = compile_mlir(text).call("f", x, y)[0]
    np.testing.assert_array_equal(got, x * x + y)


@pytest.mark.parametrize("shape,axes", [((64, 500), 0), ((128, 84), 0), ((4096, 100), 0),
                                        ((1000, 1000), 0), ((16, 256, 48), 1), ((9, 40, 70), 0)])
def test_claimed_column_sums(shape, axes):
    out = tuple(d for a, d in enumerate(shape) if a != axes)
    text = (f"func.func @f(%x: {_t(shape)}) -> {_t(out)} {{\n"
            f"  %r = mindir.reduce_sum %x {{axes = array<i64: {axes}>}} : ({_t(shape)}) -> {_t(out)}\n"
            f"  return %r : {_t(out)}\n}}")
    staged = _staged(text)
    assert "mskernel.poly" in staged and "mskernel.vector_columns" in staged, staged
    x = np.random.default_rng(len(out)).standard_normal(shape).astype(np.float32)
    got = compile_mlir(text).call("f", x)[0]
    # summed over the axis in order from 0.0 (the fill): numpy's pairwise
    # sum differs by rounding only
    ref = x.astype(np.float64).sum(axes)
    tol = 1e-6 * shape[axes] * np.abs(x).astype(np.float64).sum(axes)
    assert np.all(np.abs(got - ref) <= tol), np.abs(got - ref).max()
