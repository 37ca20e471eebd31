"""Reductions over leading dims with the innermost dim parallel (column sums,
Dense/Conv bias gradients; msmlir-cpu-tile-vectorize, COLUMN_SUM_ROWS): rows
outer and several rows per step, columns split between 2 tasks, shapes whose
rows and columns divide no tile (masked vectors, fewer rows per step), and
3-D reductions over the first dim or the first two; against numpy in float64,
and the loop order the strategy writes."""
from __future__ import annotations

import re

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, reduce_text, ttype

CASES = [((4096, 1024), (0,)), ((4000, 1000), (0,)), ((7, 33), (0,)), ((129, 250), (0,)),
         ((6, 5, 1000), (0,)), ((6, 5, 96), (0, 1)), ((9, 13, 31), (0, 1)), ((3, 64, 48), (1,))]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,axes", CASES)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max"])
def test_column_reductions_match_numpy(op, shape, axes, threads):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    x.flat[-1] = 50.0   # a max in the last row, last column (the tails)
    cm = compile_with(reduce_text(op, shape, axes), threads=threads)
    got = cm.call("f", x)[0]
    x64 = x.astype(np.float64)
    if op == "reduce_sum":
        n = int(np.prod([shape[a] for a in axes]))
        # a sequential f32 sum of n terms ~1: rounding error ~ eps * n
        np.testing.assert_allclose(got, x64.sum(axis=axes), rtol=0, atol=3e-7 * n + 1e-6)
    else:
        np.testing.assert_array_equal(got, x64.max(axis=axes).astype(np.float32))


def test_rows_outer_columns_inner():
    """4096 x 1024 summed over rows: the row loop (8 rows a step) encloses
    the 16-column loop, and 8 x 16 tiles fold into a 16-lane accumulator."""
    text, _ = codegen_ir(reduce_text("reduce_sum", (4096, 1024), (0,)))
    loops = re.findall(r"scf\.for %\S+ = %c0 to %(c\d+) step %(c\d+)", text)
    # (the first 16-column loop is the accumulator's zero fill)
    assert loops[-2:] == [("c4096", "c8"), ("c1024", "c16")]
    assert "vector.multi_reduction <add>" in text and "vector<8x16xf32> to vector<16xf32>" in text


# Bias gradients with short rows (msmlir-cpu-tile-vectorize: rows of 17-31
# elements keep their partial sums in one masked 32-lane vector): the lanes
# past the row must not leak into the sums, with relu's select in front.
BIAS_CASES = [(4, 6, 28, 28), (3, 5, 7, 23), (2, 3, 5, 17), (2, 4, 6, 31), (3, 2, 9, 10)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", BIAS_CASES)
def test_short_row_bias_gradients_match_numpy(shape, threads):
    t, m = ttype(shape), ttype(shape, "i1")
    c = ttype((shape[1],))
    text = f"""
func.func @f(%m: {m}, %g: {t}) -> ({t}, {c}) {{
  %z = mindir.constant dense<0.0> : tensor<f32>
  %s = mindir.select %m, %g, %z : ({m}, {t}, tensor<f32>) -> {t}
  %r = "mindir.reduce_sum"(%s) {{axes = array<i64: 0, 2, 3>, keep_dims = false}} : ({t}) -> {c}
  return %s, %r : {t}, {c}
}}"""
    rng = np.random.default_rng(11)
    g = rng.standard_normal(shape).astype(np.float32)
    mask = rng.random(shape) > 0.4
    cm = compile_with(text, threads=threads)
    sel, got = cm.call("f", mask, g)
    ref = np.where(mask, g.astype(np.float64), 0.0)
    np.testing.assert_array_equal(sel, ref.astype(np.float32))
    n = shape[0] * shape[2] * shape[3]
    np.testing.assert_allclose(got, ref.sum(axis=(0, 2, 3)), rtol=0, atol=3e-7 * n + 1e-6)


@pytest.mark.parametrize("shape,masked", [((4096, 1024), False), ((4000, 1000), True)])
def test_two_tasks_split_the_columns(shape, masked):
    """threads=2: an scf.forall of 2 tasks over the columns, each with rows
    outer; a split off vector boundaries (1000 columns) uses masked vectors."""
    from mlir import ir

    from msmlir.compiler import context
    from msmlir.passes import run_pipeline
    from msmlir.passes.pipelines.cpu import _TO_LINALG, tensor_codegen
    with context():
        m = ir.Module.parse(reduce_text("reduce_sum", shape, (0,)))
        run_pipeline(m, f"builtin.module({_TO_LINALG},{tensor_codegen(2, 0)})")
        text = str(m)
    assert "scf.forall (%arg1) in (2)" in text
    body = text[text.index("scf.forall"):]
    assert re.search(rf"scf\.for %\S+ = %c0 to %c{shape[0]} step %c8", body)
    assert ("vector.create_mask" in body) == masked
