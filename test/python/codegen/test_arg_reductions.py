"""msmlir-cpu-vectorize-arg-reductions: argmax / argmin as vector compare-select loops.

Numerics against numpy (first index of the extremum, the first NaN wins) on
rows with tails, ties, NaNs, infinities and constant rows, f32 / f16 / i32,
along the last axis (lane combine), axis 0 and a middle axis (lane-wise
across rows), serial and with two threads; the codegen IR (the generic is
gone: vector compares, selects, the lane combine); a remark when an arg
reduction keeps the plain path.
"""
from __future__ import annotations

import numpy as np
import pytest

from cg_helpers import codegen_ir, compile_with, ttype

import msmlir as ms
from mlir import ir
from msmlir.compiler import context
from msmlir.passes import run_pipeline
from msmlir.passes.pipelines.cpu import _TO_LINALG
from msmlir import ops
from msmlir.ops import operations as P


def arg_text(op: str, shape, axis: int, elem: str = "f32") -> str:
    out = ttype(tuple(d for i, d in enumerate(shape) if i != axis), "i32")
    return f"""
func.func @f(%x: {ttype(shape, elem)}) -> {out} {{
  %r = "mindir.{op}"(%x) {{axis = {axis} : i64}} : ({ttype(shape, elem)}) -> {out}
  return %r : {out}
}}"""


def this_pass(text: str, passes: str) -> str:
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, f"builtin.module({_TO_LINALG},{passes})")
        return str(m)


def special_rows(x: np.ndarray, axis: int, rng) -> np.ndarray:
    """Puts ties, NaNs, infinities and constant lines along `axis` into x."""
    x = np.moveaxis(x, axis, -1).copy()
    flat = x.reshape(-1, x.shape[-1])
    n = flat.shape[1]
    rows = flat.shape[0]
    if rows == 1:
        flat[0, [5, n - 3]] = flat[0].max() + 1               # a tie
        return np.moveaxis(x, -1, axis)
    if rows < 8:
        return np.moveaxis(x, -1, axis)
    flat[0] = flat[0, 0]                                    # all equal: index 0
    flat[1, [n // 3, n - 1]] = flat[1].max() + 1            # a tie of maxima: the first
    flat[2, [n // 4, n - 1]] = flat[2].min() - 1            # a tie of minima
    if np.issubdtype(flat.dtype, np.floating):
        flat[3, [n // 2, n - 1]] = np.nan                   # two NaNs: the first
        flat[3, 0] = np.inf
        flat[4] = -np.inf                                   # all -inf
        flat[5] = np.inf                                    # all +inf
        flat[6, n - 1] = np.inf                             # +inf in the tail
        flat[7, n - 1] = np.nan                             # NaN last (in the masked step)
    return np.moveaxis(flat.reshape(x.shape), -1, axis)


def data(shape, elem, rng):
    if elem == "i32":
        return rng.integers(-50, 50, size=shape).astype(np.int32)   # many ties
    x = rng.standard_normal(shape)
    return x.astype(np.float16 if elem == "f16" else np.float32)


CASES = [((8, 100), 1), ((16, 2048), 1), ((9, 64), 1), ((10, 3), 1), ((12, 17), 1), ((12, 22), 1),
         ((12, 37), 1), ((3, 5, 131), 2), ((1000,), 0),
         ((130, 33), 0), ((40, 16), 0), ((4, 37, 20), 1)]


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,axis", CASES)
def test_arg_numerics_f32(op, shape, axis):
    rng = np.random.default_rng(sum(shape) + axis)
    x = special_rows(data(shape, "f32", rng), axis, rng)
    got = compile_with(arg_text(op, shape, axis)).call("f", x)[0]
    np.testing.assert_array_equal(got, getattr(np, op)(x, axis))


@pytest.mark.parametrize("elem", ["i32", "f16"])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,axis", [((12, 300), 1), ((70, 21), 0)])
def test_arg_numerics_other_types(elem, op, shape, axis):
    rng = np.random.default_rng(7)
    x = special_rows(data(shape, elem, rng), axis, rng)
    got = compile_with(arg_text(op, shape, axis, elem)).call("f", x)[0]
    np.testing.assert_array_equal(got, getattr(np, op)(x, axis))


@pytest.mark.parametrize("shape,axis", [((128, 1200), 1), ((64, 250), 0)])
def test_arg_threads(shape, axis):
    rng = np.random.default_rng(3)
    x = special_rows(data(shape, "f32", rng), axis, rng)
    cm = compile_with(arg_text("argmax", shape, axis), threads=2, min_work=1)
    np.testing.assert_array_equal(cm.call("f", x)[0], np.argmax(x, axis))


def test_row_tasks_ir():
    """With threads, the rows split into scf.forall tasks (from PARALLEL_MIN_WORK_REDUCTION)."""
    text = this_pass(arg_text("argmax", (128, 1200), 1),
                     "msmlir-cpu-generalize,msmlir-cpu-vectorize-arg-reductions{threads=2 min-work=0}")
    assert "scf.forall" in text and "tensor.parallel_insert_slice" in text and "linalg.generic" not in text


def test_row_ir():
    text, remarks = codegen_ir(arg_text("argmax", (8, 100), 1))
    assert not remarks
    assert "linalg.generic" not in text
    for s in ("arith.cmpf ogt", "arith.cmpf uno", "vector.constant_mask",
              "vector.reduction <maximumf>", "vector.reduction <minsi>", "vector<64xi32>"):
        assert s in text, s


def test_short_rows_keep_plain_path():
    """Rows of at most SHORT_ROW_MAX elements: the generic is left alone (its
    scalar row loop, unrolled by LLVM, is faster than a lane combine per row)."""
    from msmlir.passes.cpu.vectorize_arg_reductions import SHORT_ROW_MAX
    after = "msmlir-cpu-generalize,msmlir-cpu-vectorize-arg-reductions{min-work=0}"
    assert "linalg.generic" in this_pass(arg_text("argmax", (64, SHORT_ROW_MAX), 1), after)
    assert "linalg.generic" not in this_pass(arg_text("argmax", (64, SHORT_ROW_MAX + 1), 1), after)


def test_column_ir():
    text, remarks = codegen_ir(arg_text("argmin", (64, 33), 0))
    assert not remarks
    assert "linalg.generic" not in text
    assert "arith.cmpf olt" in text and "vector<32xi32>" in text
    assert "vector.reduction" not in text     # lane-wise: no horizontal step


def test_plain_path_remark():
    """A column reduction with one column has no vector dim: plain path, said so."""
    text, remarks = codegen_ir(arg_text("argmax", (64, 1), 0))
    assert any("msmlir-cpu-vectorize-arg-reductions" in r and "plain path" in r for r in remarks), remarks


def test_jit_ops():
    """ops.argmax / argmin and ArgMaxWithValue through ms.jit (min-work default)."""
    amv = P.ArgMaxWithValue(axis=-1)

    @ms.jit
    def f(x):
        i, v = amv(x)
        return ops.argmax(x, -1), ops.argmin(x, 0), i, v

    rng = np.random.default_rng(5)
    x = special_rows(data((300, 257), "f32", rng), 1, rng)
    a, b, i, v = f(x)
    np.testing.assert_array_equal(a, x.argmax(-1))
    np.testing.assert_array_equal(b, x.argmin(0))
    np.testing.assert_array_equal(i, x.argmax(-1))
    np.testing.assert_array_equal(v, x.max(-1))
