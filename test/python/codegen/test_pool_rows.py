"""msmlir-cpu-vectorize-windows' contiguous rows (emit_rows): pooling
windows and their gradients read each input row with one contiguous masked
transfer_read spread over the lanes by a vector.shuffle, no vector.gather.
Max pooling (forward, argmax, gradient) must be bit-identical to numpy
(it only selects and copies values), average pooling within float32
rounding of the float64 reference; the lane patterns are checked directly."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with
from mlir import ir
from test_pool_vectorize import pool_module, pool_ref

from msmlir.compiler import context
from msmlir.passes.cpu.vectorize_windows import lane_pattern

RNG = np.random.default_rng(23)

CASES = [
    # (x shape, kernel, strides, pad_mode, pad)
    ((8, 6, 28, 28), (2, 2), (2, 2), "valid", (0, 0, 0, 0)),     # LeNet5 (B6) pool 1
    ((8, 16, 10, 10), (2, 2), (2, 2), "valid", (0, 0, 0, 0)),    # LeNet5 pool 2 (5 outputs a row)
    ((2, 3, 21, 45), (3, 3), (3, 3), "valid", (0, 0, 0, 0)),     # stride 3: a 64-element read
    ((2, 3, 19, 40), (3, 3), (1, 1), "pad", (1, 1, 1, 1)),       # stride 1, padded, two vector tiles
    ((2, 2, 13, 37), (3, 3), (2, 2), "same", (0, 0, 0, 0)),      # overlapping, odd sizes
]


def _id(c):
    return f"x{'x'.join(map(str, c[0]))}_k{c[1][0]}{c[1][1]}_s{c[2][0]}{c[2][1]}_{c[3]}"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_max_pool_bit_identical(case, threads):
    xs, k, s, mode, pad = case
    text, os_ = pool_module("max", xs, k, s, mode, pad)
    cm = compile_with(text, codegen=True, threads=threads)
    x = (np.round(RNG.standard_normal(xs) * 2) / 2).astype(np.float32)   # ties: the first max wins
    d = RNG.standard_normal(os_).astype(np.float32)
    y_ref, dx_ref = pool_ref("max", x, d, k, s, mode, pad)
    y = cm.call("fwd", x)
    dx = cm.call("bwd", x, d)
    y = y[0] if isinstance(y, (list, tuple)) else y
    dx = dx[0] if isinstance(dx, (list, tuple)) else dx
    np.testing.assert_array_equal(y, y_ref.astype(np.float32))
    # the gradient sums dy over overlapping windows: float32 sums in window order
    if k == s:
        np.testing.assert_array_equal(dx, dx_ref.astype(np.float32))
    else:
        np.testing.assert_allclose(dx, dx_ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_avg_pool_close(case):
    xs, k, s, mode, pad = case
    text, os_ = pool_module("avg", xs, k, s, mode, pad)
    cm = compile_with(text, codegen=True, threads=2)
    x = RNG.standard_normal(xs).astype(np.float32)
    d = RNG.standard_normal(os_).astype(np.float32)
    y_ref, dx_ref = pool_ref("avg", x, d, k, s, mode, pad)
    y = cm.call("fwd", x)
    dx = cm.call("bwd", d)
    y = y[0] if isinstance(y, (list, tuple)) else y
    dx = dx[0] if isinstance(dx, (list, tuple)) else dx
    np.testing.assert_allclose(y, y_ref, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(dx, dx_ref, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("case", CASES[:3], ids=[_id(c) for c in CASES[:3]])
def test_no_gathers(kind, case):
    """Non-overlapping windows and the LeNet5 shapes: contiguous reads and
    shuffles only, vectors of a power of two lanes, no remark."""
    xs, k, s, mode, pad = case
    text, _ = pool_module(kind, xs, k, s, mode, pad)
    out, got = codegen_ir(text)
    assert "vector.gather" not in out and "vector.scatter" not in out, out
    assert "vector.shuffle" in out
    assert "linalg.pooling" not in out and "linalg.generic" not in out, out
    assert not [g for g in got if "vectorize-windows" in g], got


def _map_expr(text: str):
    return ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{text}>")).value.results[0]


def test_lane_patterns():
    with context():
        # stride 2 along the width: the even elements of a read
        e = _map_expr("(d0, d1) -> (d0 * 2 + d1)")
        assert lane_pattern(e, 0, [14, 2], 16) == list(range(0, 32, 2))
        # a gradient's `w floordiv 2`: each element twice
        e = _map_expr("(d0, d1) -> (d0 floordiv 2 + d1)")
        assert lane_pattern(e, 0, [28, 1], 32) == [i // 2 for i in range(32)]
        # `w floordiv 3` from tiles of 16: lane 0 is not always a window start
        e = _map_expr("(d0, d1) -> (d0 floordiv 3 + d1)")
        assert lane_pattern(e, 0, [43, 1], 16) is None
        assert lane_pattern(e, 0, [43, 1], 48) == [i // 3 for i in range(48)]
        # reversed rows: negative offsets
        e = _map_expr("(d0) -> (20 - d0)")
        assert lane_pattern(e, 0, [16], 16) is None
