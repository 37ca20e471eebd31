"""log_softmax gets softmax's fast row max (issue 9 leftover): msmlir-fuse-rows
marks its max SHIFT_ONLY (compare and select) and the exp of its row sum
NONPOSITIVE, and the results keep IEEE max semantics on NaN, inf, -inf,
-0/+0 and underflowing rows."""
from __future__ import annotations

import re

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, pipeline_options, ttype
from mlir import ir
from test_softmax_fast_path import _special_rows

from msmlir.compiler import context
from msmlir.passes import run_pipeline
from msmlir.passes.cpu.tiling import host_has_avx512
from msmlir.passes.pipelines.cpu import kernels


def _log_softmax_text(shape, axis=-1):
    t = ttype(shape)
    return f"""
func.func @lsm(%x: {t}) -> {t} {{
  %r = "mindir.log_softmax"(%x) {{axis = {axis} : i64}} : ({t}) -> {t}
  return %r : {t}
}}"""


def _ref_log_softmax(x, axis=-1):
    """numpy with IEEE max semantics (a NaN in the row is the max): x - max
    in f32 as the kernel (-3e38 - 3e38 is -inf), the rest in float64."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = (x - x.max(axis, keepdims=True)).astype(np.float64)
        return d - np.log(np.exp(d).sum(axis, keepdims=True))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rows,cols", [(64, 1024), (12, 1000)])
def test_log_softmax_special_rows_match_ieee_max(rows, cols, threads):
    """Rows with a NaN (or inf - inf) all NaN as with IEEE max, the rest
    within 2e-6 of float64 numpy (relative to max(1, |ref|): the f32 row sum
    and log), -inf entries stay -inf, and the row of -0/+0 ties gives
    exactly -log(cols) (the sign of the max's zero cannot show)."""
    x = _special_rows(rows, cols, 3)
    got = compile_with(_log_softmax_text((rows, cols)), codegen=True,
                       threads=threads).call("lsm", x)[0]
    ref = _ref_log_softmax(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    for r in (0, 1, 2, 3, 7):
        assert np.all(np.isnan(got[r])), r
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)])
    err = np.abs(got[fin] - ref[fin]) / np.maximum(1.0, np.abs(ref[fin]))
    assert err.max() <= 2e-6, err.max()
    np.testing.assert_array_equal(got[8], np.float32(-np.log(np.float64(cols))))
    assert not np.signbit(got[8]).any() or np.all(got[8] < 0)


def test_log_softmax_zero_ties_bitwise():
    """-0 and +0 as the row's maximum in both orders (compare and select
    keeps whichever comes first or last, IEEE max +0): bit-identical rows."""
    rows, cols = 16, 1024
    x = np.full((rows, cols), -50.0, np.float32)
    x[::2, 0], x[::2, 1] = -0.0, 0.0
    x[1::2, 0], x[1::2, 1] = 0.0, -0.0
    x[2, 2:] = -np.inf
    got = compile_with(_log_softmax_text((rows, cols)), codegen=True).call("lsm", x)[0]
    np.testing.assert_array_equal(got[0].view(np.uint32), got[1].view(np.uint32))
    ref = _ref_log_softmax(x).astype(np.float32)
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=0)


def test_log_softmax_codegen_marks_and_rewrites():
    """Codegen IR of a log_softmax: the row max is compare and select (no
    IEEE maximumf on vectors), the exp's only clamp is the lower one, no
    mark left behind."""
    text, _ = codegen_ir(_log_softmax_text((256, 1024)), before=kernels(True))
    assert "msmlir.shift_only" in text and "msmlir.nonpositive" in text
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, "builtin.module(msmlir-cpu-fast-math,canonicalize,cse)")
        out = str(m)
    assert "msmlir.shift_only" not in out and "msmlir.nonpositive" not in out
    # (the halving tree after the partial max loop keeps exact maximumf)
    assert re.search(r"arith\.cmpf ogt, %\w+, %\w+ : vector<64xf32>", out), out
    assert not re.search(r"arith\.maximumf .*: vector<64xf32>", out)
    exp_loop = out[out.index("arith.subf"):]
    exp_loop = exp_loop[:exp_loop.index("scf.yield")]
    assert exp_loop.count("arith.cmpf") == 1 and "olt" in exp_loop, exp_loop


def test_log_softmax_with_other_use_of_the_max_not_marked():
    """A max that is also returned (used outside the shift) keeps IEEE max."""
    t = ttype((64, 1024))
    text = f"""
func.func @f(%x: {t}) -> ({t}, tensor<64x1xf32>) {{
  %m = "mindir.reduce_max"(%x) {{axes = array<i64: 1>, keep_dims = true}} : ({t}) -> tensor<64x1xf32>
  %d = "mindir.sub"(%x, %m) : ({t}, tensor<64x1xf32>) -> {t}
  %e = "mindir.exp"(%d) : ({t}) -> {t}
  %s = "mindir.reduce_sum"(%e) {{axes = array<i64: 1>, keep_dims = true}} : ({t}) -> tensor<64x1xf32>
  %l = "mindir.log"(%s) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %r = "mindir.sub"(%d, %l) : ({t}, tensor<64x1xf32>) -> {t}
  return %r, %m : {t}, tensor<64x1xf32>
}}"""
    out, _ = codegen_ir(text, before=kernels(True))
    assert "msmlir.shift_only" not in out


@pytest.mark.parametrize("rows,cols", [(64, 1024), (12, 1000)])
def test_log_softmax_bit_identical_to_ieee_max_kernel(rows, cols, monkeypatch):
    """Against the same kernel without the marks (IEEE maximumf, clamped
    exp): every row bit-identical, NaN rows NaN in both."""
    import msmlir.passes.fusion.row_fusion as rf
    x = _special_rows(rows, cols, 7)
    x[13 % rows, :] = np.where(np.arange(cols) % 2, 0.0, -0.0)   # -0/+0 ties
    x[13 % rows, 5:] = -200.0
    text = _log_softmax_text((rows, cols))
    fast = compile_with(text, codegen=True).call("lsm", x)[0]
    monkeypatch.setattr(rf, "_log_softmax_users", lambda r, members: None)
    plain = compile_with(text + "\n// unmarked", codegen=True).call("lsm", x)[0]
    nan = np.isnan(plain)
    np.testing.assert_array_equal(np.isnan(fast), nan)
    np.testing.assert_array_equal(fast[~nan].view(np.uint32), plain[~nan].view(np.uint32))


@pytest.mark.skipif(not host_has_avx512(), reason="vscalefps: AVX-512 hosts only")
def test_log_softmax_exp_scale_is_vscalefps():
    """The exp of log_softmax's row sum runs on 64-lane vectors: its 2^n
    scale is still vscalefps by the float n (16-lane slices), no llvm.ldexp
    (vpaddd + vcvtdq2ps more per vector)."""
    with context():
        m = ir.Module.parse(_log_softmax_text((256, 1024)))
        with pipeline_options(min_work=0):
            run_pipeline(m, "builtin.module(msmlir-cpu-pipeline)")
        out = str(m)
    assert "llvm.x86.avx512.mask.scalef.ps.512" in out
    assert "llvm.ldexp" not in out
