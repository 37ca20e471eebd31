"""Pooling gradients with kernel == stride (msmlir-cpu-vectorize-windows,
drop_zero_init): each input position reads one dy element, so the gather
generic stores its value instead of accumulating into a zero fill. Against
numpy in float64 on sizes the windows do not tile (rows and columns past the
last window get zeros), with padding, and the IR: no fill left in the gradient."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with
from test_pool_vectorize import pool_module, pool_ref

RNG = np.random.default_rng(5)

CASES = [
    ((4, 6, 28, 28), (2, 2), (2, 2), "valid", (0, 0, 0, 0)),    # LeNet
    ((2, 3, 7, 9), (2, 2), (2, 2), "valid", (0, 0, 0, 0)),      # a row and a column past the windows
    ((3, 2, 14, 10), (3, 3), (3, 3), "valid", (0, 0, 0, 0)),
    ((2, 5, 9, 37), (2, 2), (2, 2), "pad", (1, 0, 0, 1)),       # padding, width > vector
    ((2, 2, 11, 13), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[0])) + f"_k{c[1][0]}{c[1][1]}")
def test_non_overlapping_pool_grads_match_numpy(kind, case):
    xs, k, s, mode, pad = case
    text, os_ = pool_module(kind, xs, k, s, mode, pad)
    cm = compile_with(text, codegen=True)
    x = RNG.standard_normal(xs).astype(np.float32)
    d = RNG.standard_normal(os_).astype(np.float32)
    _, dx_ref = pool_ref(kind, x, d, k, s, mode, pad)
    dx = cm.call("bwd", x, d) if kind == "max" else cm.call("bwd", d)
    dx = dx[0] if isinstance(dx, (list, tuple)) else dx
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-6, atol=1e-6)


def test_no_zero_fill_in_max_pool_grad():
    """LeNet's 2x2/2 max-pool gradient: the 28-wide gradient rows are written
    once (32 lanes, masked tail: the selected dy, each dy element spread over
    two lanes by a shuffle), not zero-filled first and then read back and
    added to."""
    text, _ = pool_module("max", (8, 6, 28, 28), (2, 2), (2, 2), "valid", (0, 0, 0, 0))
    out, _ = codegen_ir(text[text.index("func.func @bwd"):])
    writes = [ln for ln in out.splitlines()
              if "vector.transfer_write" in ln and "tensor<8x6x28x28xf32>" in ln]
    assert len(writes) == 1 and "vector<32xf32>" in writes[0], writes
    assert "arith.addf" not in out
    assert "vector.shuffle" in out and "vector.gather" not in out
