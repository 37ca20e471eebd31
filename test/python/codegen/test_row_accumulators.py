"""Row reductions with several partial-sum vectors (msmlir-cpu-tile-vectorize,
REDUCTION_ACCUMULATORS): sums, max and min over rows whose lengths give 4, 2
or 1 partial vectors (and rows without a vector-sized divisor), with other
reduction dims around the row, serial and with 2 tasks, against numpy in
float64; and the partial-sum width the strategy picks."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, reduce_text

from msmlir.passes.cpu import tile_vectorize as tv


CASES = [((64, 1024), (1,)), ((48, 96), (1,)), ((40, 48), (1,)), ((16, 1000), (1,)),
         ((8, 3, 512), (0, 2)), ((257, 2048), (1,))]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,axes", CASES)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min"])
def test_row_reductions_match_numpy(op, shape, axes, threads):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    x.flat[5] = 40.0   # the max / min sit in different partial vectors
    x.flat[-3] = -40.0
    cm = compile_with(reduce_text(op, shape, axes), threads=threads)
    got = cm.call("f", x)[0]
    ref = {"reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min}[op](
        x.astype(np.float64), axis=axes)
    if op == "reduce_sum":
        n = int(np.prod([shape[a] for a in axes]))
        np.testing.assert_allclose(got, ref, rtol=0, atol=4e-7 * n ** 0.5 * 4)
    else:
        np.testing.assert_array_equal(got, ref.astype(np.float32))


def test_max_propagates_nan_from_any_partial_vector():
    x = np.zeros((4, 1024), np.float32)
    x[0, 3] = np.nan       # first partial vector
    x[1, 1023] = np.nan    # last one
    cm = compile_with(reduce_text("reduce_max", x.shape, (1,)))
    got = cm.call("f", x)[0]
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 0 and got[3] == 0


@pytest.mark.parametrize("cols,width", [(1024, 64), (768, 64), (1056, 32), (1000, 8)])
def test_partial_sum_width(cols, width):
    """4 partial vectors of 16 when the row holds two rounds of them, fewer
    (a power of two) otherwise, one vector of the row's best divisor when
    16 does not divide it."""
    assert tv.REDUCTION_ACCUMULATORS == 4
    text, _ = codegen_ir(reduce_text("reduce_sum", (64, cols), (1,)))
    assert f"step %c{width} " in text and f"vector<{width}xf32>" in text, text


def test_short_rows_are_one_vector():
    """Rows of at most WHOLE_VECTOR_MAX elements (after row fusion) are one
    vector each, reduced by a halving tree: no partial-sum loop."""
    text, _ = codegen_ir(reduce_text("reduce_sum", (64, 96), (1,)))
    assert "vector<1x96xf32> to vector<1xf32>" in text
