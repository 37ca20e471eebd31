"""Row fusion of softmax / layer_norm (msmlir-fuse-rows) against numpy in
float64: odd sizes, normalization over non-last / several axes, the
statistics returned next to y (the training case: the row loop yields them),
serial and with 2 tasks, and the expanded layer_norm's fused structure."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, ttype

from msmlir.passes.pipelines.cpu import EXPANDED, kernels

EPS = 1e-5


def _ln_text(shape, bna, stats):
    r = len(shape)
    b = bna % r
    t, v = ttype(shape), ttype(shape[b:])
    s = ttype(shape[:b] + (1,) * (r - b))
    ret, rt = (f"%y, %m, %r : {t}, {s}, {s}", f"({t}, {s}, {s})") if stats else (f"%y : {t}", t)
    return f"""
func.func @ln(%x: {t}, %g: {v}, %b: {v}) -> {rt} {{
  %y, %m, %r = "mindir.layer_norm"(%x, %g, %b) {{begin_norm_axis = {bna} : i64, begin_params_axis = {bna} : i64, epsilon = {EPS:e} : f64}} : ({t}, {v}, {v}) -> ({t}, {s}, {s})
  return {ret}
}}"""


def _ln_ref(x, g, b, bna):
    ax = tuple(range(bna % x.ndim, x.ndim))
    x64 = x.astype(np.float64)
    m = x64.mean(ax, keepdims=True)
    rs = 1.0 / np.sqrt(x64.var(ax, keepdims=True) + EPS)
    return [(x64 - m) * rs * g + b, m, rs]


LN_CASES = [((64, 1000), -1), ((33, 517), -1), ((7, 13, 33), 1), ((6, 40, 96), -1), ((2, 5, 8, 31), 2)]


def test_layer_norm_is_expanded_for_fusion():
    assert "layer_norm" in EXPANDED.split(",")
    assert "batch_norm" not in EXPANDED.split(",")
    assert "layer_norm" in kernels(True)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("stats", [False, True], ids=["y", "y+mean+rstd"])
@pytest.mark.parametrize("shape,bna", LN_CASES, ids=[f"{'x'.join(map(str, s))}_a{a}" for s, a in LN_CASES])
def test_layer_norm_rows(shape, bna, stats, threads):
    rng = np.random.default_rng(0)
    ps = shape[bna % len(shape):]
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    g = rng.uniform(0.5, 1.5, ps).astype(np.float32)
    b = rng.standard_normal(ps).astype(np.float32)
    cm = compile_with(_ln_text(shape, bna, stats), codegen=True, threads=threads)
    got = cm.call("ln", x, g, b)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    ref = _ln_ref(x, g, b, bna)
    assert len(got) == (3 if stats else 1)
    for k, (a, r) in enumerate(zip(got, ref)):
        assert a.shape == r.shape, (k, a.shape, r.shape)
        np.testing.assert_allclose(a, r, rtol=1e-5, atol=2e-5, err_msg=f"result {k}")


SM_CASES = [((64, 1000), -1), ((33, 517), -1), ((7, 13, 33), 1), ((40, 24, 12), 0), ((9, 300), -1)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,axis", SM_CASES, ids=[f"{'x'.join(map(str, s))}_a{a}" for s, a in SM_CASES])
def test_softmax_rows(shape, axis, threads):
    t = ttype(shape)
    text = f"""
func.func @sm(%x: {t}) -> {t} {{
  %r = "mindir.softmax"(%x) {{axis = {axis} : i64}} : ({t}) -> {t}
  return %r : {t}
}}"""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    x.flat[::97] = -np.inf  # masked entries: exp -> 0
    got = compile_with(text, codegen=True, threads=threads).call("sm", x)
    got = got[0] if isinstance(got, (list, tuple)) else got
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis, keepdims=True))
    ref = e / e.sum(axis, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-7)


def test_softmax_nan_row_propagates():
    t = ttype((16, 512))
    text = f"""
func.func @sm(%x: {t}) -> {t} {{
  %r = "mindir.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %r : {t}
}}"""
    x = np.random.default_rng(2).standard_normal((16, 512)).astype(np.float32)
    x[3, 100] = np.nan
    got = compile_with(text, codegen=True).call("sm", x)
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert np.all(np.isnan(got[3]))
    ok = np.delete(np.arange(16), 3)
    e = np.exp(x[ok].astype(np.float64) - x[ok].max(-1, keepdims=True))
    np.testing.assert_allclose(got[ok], e / e.sum(-1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_expanded_layer_norm_is_one_row_loop():
    """The expanded layer_norm with its statistics returned: one loop over
    the rows yielding y, mean and rstd, no reshape left inside it and no
    [rows, 1, cols] op (the unit dims folded), no remark."""
    text, got = codegen_ir(_ln_text((256, 128), -1, stats=True), before=kernels(True))
    assert not [r for r in got if "msmlir-fuse-rows" in r], got
    assert "-> (tensor<256x128xf32>, tensor<256xf32>, tensor<256xf32>)" in text
    loop = text[text.index("-> (tensor<256x128xf32>, tensor<256xf32>, tensor<256xf32>)"):]
    loop = loop[:loop.index("scf.yield %inserted")]
    assert "tensor.expand_shape" not in loop and "tensor.collapse_shape" not in loop
    assert "x1x128xf32>" not in text
    assert "math.rsqrt" in loop
