"""Accuracy of msmlir-cpu-fast-math (f32 exp / tanh / erf polynomials) against
numpy in float64, over wide ranges, overflow/underflow edges and inf/-inf/nan."""
from __future__ import annotations

import math

import numpy as np
import pytest
from cg_helpers import compile_with, ttype
from mlir import ir

from msmlir.compiler import context
from msmlir.passes import run_pipeline

N = 1 << 20
F32_MIN_NORMAL = np.float32(1.17549435e-38)


def _compile(op, n):
    t = ttype((n,))
    text = f"""
func.func @f(%x: {t}) -> {t} {{
  %r = "mindir.{op}"(%x) : ({t}) -> {t}
  return %r : {t}
}}"""
    return compile_with(text, codegen=True, fast_math=True)


def _inputs(lo, hi, seed):
    rng = np.random.default_rng(seed)
    grid = np.linspace(lo, hi, N // 2, dtype=np.float64).astype(np.float32)
    rnd = rng.uniform(lo, hi, N // 4).astype(np.float32)
    small = (rng.standard_normal(N // 4) * 10.0 ** rng.uniform(-30, 0, N // 4)).astype(np.float32)
    return np.concatenate([grid, rnd, small])


def _ulp_and_rel(out, ref64):
    """Max ulp distance to the correctly rounded f32 value and max relative error,
    over results that are finite normal numbers."""
    ref32 = ref64.astype(np.float32)
    ok = np.isfinite(ref32) & (np.abs(ref32) >= F32_MIN_NORMAL)
    ulp = np.abs(out[ok].view(np.int32).astype(np.int64) - ref32[ok].view(np.int32).astype(np.int64))
    rel = np.abs(out[ok].astype(np.float64) - ref64[ok]) / np.abs(ref64[ok])
    return int(ulp.max()), float(rel.max())


def test_exp_accuracy():
    cm = _compile("exp", N)
    x = _inputs(-110.0, 95.0, 0)
    out = cm.call("f", x)[0]
    ref = np.exp(x.astype(np.float64))
    ulp, rel = _ulp_and_rel(out, ref)
    print(f"fast exp: max {ulp} ulp, max rel error {rel:.3g}")
    assert ulp <= 2 and rel <= 2.4e-7
    # subnormal results: within one subnormal step of the rounded value
    ref32 = ref.astype(np.float32)
    sub = (ref32 != 0) & (np.abs(ref32) < F32_MIN_NORMAL)
    assert np.all(np.abs(out[sub].astype(np.float64) - ref32[sub]) <= 2.0 ** -149)
    # overflow / underflow regions
    assert np.all(np.isinf(out[x > 88.7228394]))
    assert np.all(out[x < -103.98] == 0)


def test_exp_special_values():
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 88.72283, 88.72284, 89.0, 1e30,
                         -87.33655, -100.0, -103.9, -104.0, -1e30, 1e-30, -1e-30, 1.0, -1.0],
                        np.float32)
    x = np.zeros(64, np.float32)
    x[:len(specials)] = specials
    out = _compile("exp", 64).call("f", x)[0][:len(specials)]
    ref = np.exp(specials.astype(np.float64)).astype(np.float32)
    assert np.isnan(out[2])
    mask = ~np.isnan(ref)
    np.testing.assert_array_max_ulp(out[mask], ref[mask], maxulp=2)
    assert out[0] == np.inf and out[1] == 0.0 and out[6] == np.inf and out[5] < np.inf


@pytest.mark.parametrize("op,lo,hi,abs_tol,max_ulp", [("tanh", -12.0, 12.0, 5e-7, 8),
                                                       ("erf", -6.0, 6.0, 5e-7, 8)])
def test_tanh_erf_accuracy(op, lo, hi, abs_tol, max_ulp):
    cm = _compile(op, N)
    x = _inputs(lo, hi, 1)
    out = cm.call("f", x)[0]
    xd = x.astype(np.float64)
    ref = np.tanh(xd) if op == "tanh" else np.vectorize(math.erf)(xd)
    err = np.abs(out.astype(np.float64) - ref)
    ulp, rel = _ulp_and_rel(out, ref)
    print(f"fast {op}: max abs error {err.max():.3g}, max {ulp} ulp, max rel {rel:.3g}")
    assert err.max() <= abs_tol and ulp <= max_ulp
    assert np.all(np.abs(out) <= 1.0)


@pytest.mark.parametrize("op", ["tanh", "erf"])
def test_tanh_erf_special_values(op):
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30, 100.0, -100.0],
                        np.float32)
    x = np.zeros(16, np.float32)
    x[:len(specials)] = specials
    out = _compile(op, 16).call("f", x)[0][:len(specials)]
    fn = np.tanh if op == "tanh" else np.vectorize(math.erf)
    ref = fn(specials.astype(np.float64)).astype(np.float32)
    assert np.isnan(out[2])
    mask = ~np.isnan(ref)
    np.testing.assert_array_max_ulp(out[mask], ref[mask], maxulp=2)
    assert np.signbit(out[4])  # -0.0 stays -0.0


def test_fast_math_pass_rewrites_scalars_and_vectors_only_f32():
    text = """
func.func @f(%a: f32, %b: vector<8xf32>, %c: f64, %d: f32) -> (f32, vector<8xf32>, f64, f32) {
  %0 = math.exp %a : f32
  %1 = math.tanh %b : vector<8xf32>
  %2 = math.exp %c : f64
  %3 = math.erf %d : f32
  return %0, %1, %2, %3 : f32, vector<8xf32>, f64, f32
}"""
    with context():
        m = ir.Module.parse(text)
        m2 = ir.Module.parse(text)
        run_pipeline(m, "builtin.module(msmlir-cpu-fast-math{min-lanes=1})")
        run_pipeline(m2, "builtin.module(msmlir-cpu-fast-math)")
        s, s2 = str(m), str(m2)
    assert "math.exp %arg0" not in s and "math.tanh" not in s and "math.erf" not in s
    assert "math.exp %arg2 : f64" in s  # f64 keeps the libm path
    assert "math.fma" in s and "arith.bitcast" in s
    # by default only vectors of >= 8 lanes: scalars keep the accurate intrinsic
    assert "math.exp %arg0 : f32" in s2 and "math.erf %arg3 : f32" in s2
    assert "math.tanh %arg1 : vector<8xf32>" not in s2
