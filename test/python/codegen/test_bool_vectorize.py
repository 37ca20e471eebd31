"""Vectorized ops with i1 (bool) operands or results: the relu epilogue with
its mask, the relu-backward select and the bias-gradient reductions it feeds,
compares, logical ops, casts from and to bool, at odd and vector-friendly
sizes, threads 1 and 2 — numerics against numpy (bools are one byte per
element in memory: msmlir-widen-bool-memrefs, run before the vector transfers
are lowered), and IR checks that these ops are really vectorized."""
from __future__ import annotations

import numpy as np
import pytest

from cg_helpers import compile_with, ttype
from mlir import ir

from msmlir.compiler import context
from msmlir.passes import run_pipeline
from msmlir.passes.common.linalg import PARALLEL_MIN_WORK, PARALLEL_MIN_WORK_REDUCTION
from msmlir.passes.pipelines.cpu import _TO_LINALG, tensor_codegen

RNG = np.random.default_rng(11)

# (the last two: big enough for tasks with threads=2: elementwise ops from
# PARALLEL_MIN_WORK, reductions from PARALLEL_MIN_WORK_REDUCTION elements)
SIZES = [(67, 997), (64, 1024), (3, 5), (128, 512), (1, 4099), (1024, 520), (2048, 1040)]


def codegen_ir(text: str, threads: int = 1) -> str:
    """mindir text -> linalg -> the codegen stage on tensors, as text."""
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, f"builtin.module({_TO_LINALG},{tensor_codegen(threads, 0)})")
        return str(m)


def _f(shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _b(shape):
    return RNG.random(shape) < 0.5


def epilogue_text(m, n):
    C, V, S, M = ttype((m, n)), ttype((n,)), ttype(()), ttype((m, n), "i1")
    return f"""
func.func @f(%x: {C}, %bias: {V}) -> ({C}, {M}) {{
  %z = mindir.constant dense<0.0> : {S}
  %1 = mindir.add %x, %bias : ({C}, {V}) -> {C}
  %2 = mindir.relu %1 : {C}
  %3 = mindir.greater %1, %z : ({C}, {S}) -> {M}
  return %2, %3 : {C}, {M}
}}"""


def relu_grad_text(m, n):
    C, V, S, M = ttype((m, n)), ttype((n,)), ttype(()), ttype((m, n), "i1")
    R = ttype((m,))
    return f"""
func.func @f(%mask: {M}, %g: {C}) -> ({C}, {V}, {R}) {{
  %z = mindir.constant dense<0.0> : {S}
  %1 = mindir.select %mask, %g, %z : ({M}, {C}, {S}) -> {C}
  %2 = mindir.reduce_sum %1 {{axes = array<i64: 0>}} : ({C}) -> {V}
  %3 = mindir.reduce_sum %1 {{axes = array<i64: 1>}} : ({C}) -> {R}
  return %1, %2, %3 : {C}, {V}, {R}
}}"""


def logical_text(m, n):
    C, M = ttype((m, n)), ttype((m, n), "i1")
    F = ttype((m, n))
    return f"""
func.func @f(%a: {C}, %b: {C}, %c: {M}, %d: {M}) -> ({M}, {M}, {M}, {F}, {M}) {{
  %1 = mindir.greater_equal %a, %b : ({C}, {C}) -> {M}
  %2 = mindir.logical_not %c : {M}
  %3 = mindir.logical_and %1, %2 : ({M}, {M}) -> {M}
  %4 = mindir.logical_or %3, %d : ({M}, {M}) -> {M}
  %5 = mindir.not_equal %c, %d : ({M}, {M}) -> {M}
  %6 = mindir.cast %4 : {M} to {F}
  %7 = mindir.cast %a : {C} to {M}
  return %3, %4, %5, %6, %7 : {M}, {M}, {M}, {F}, {M}
}}"""


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n", SIZES)
def test_relu_epilogue_mask(m, n, threads):
    x, b = _f((m, n)), _f((n,))
    y, mask = compile_with(epilogue_text(m, n), codegen=True, threads=threads).call("f", x, b)
    h = x + b
    np.testing.assert_array_equal(y, np.maximum(h, 0))
    assert mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, h > 0)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n", SIZES)
def test_relu_grad_select_and_bias_grads(m, n, threads):
    mask, g = _b((m, n)), _f((m, n))
    d, col, row = compile_with(relu_grad_text(m, n), codegen=True, threads=threads).call("f", mask, g)
    ref = np.where(mask, g, np.float32(0))
    np.testing.assert_array_equal(d, ref)
    np.testing.assert_allclose(col, ref.astype(np.float64).sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(row, ref.astype(np.float64).sum(1), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n", SIZES)
def test_logical_compare_cast(m, n, threads):
    a, b = _f((m, n)), _f((m, n))
    a.flat[::7] = 0.0
    c, d = _b((m, n)), _b((m, n))
    got = compile_with(logical_text(m, n), codegen=True, threads=threads).call("f", a, b, c, d)
    and_ = (a >= b) & ~c
    or_ = and_ | d
    refs = [and_, or_, c != d, or_.astype(np.float32), a != 0]
    for g, r in zip(got, refs):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(8, 6, 24, 24), (5, 16, 7, 9)])
def test_conv_relu_grad_bias_reduction(shape, threads):
    """The LeNet backward: select(mask, g, 0) on NCHW and its bias gradient
    (a sum over N, H, W), the mask read as bytes."""
    M, C, S, V = ttype(shape, "i1"), ttype(shape), ttype(()), ttype((shape[1],))
    text = f"""
func.func @f(%mask: {M}, %g: {C}) -> ({C}, {V}) {{
  %z = mindir.constant dense<0.0> : {S}
  %1 = mindir.select %mask, %g, %z : ({M}, {C}, {S}) -> {C}
  %2 = mindir.reduce_sum %1 {{axes = array<i64: 0, 2, 3>}} : ({C}) -> {V}
  return %1, %2 : {C}, {V}
}}"""
    mask, g = _b(shape), _f(shape)
    d, gb = compile_with(text, codegen=True, threads=threads).call("f", mask, g)
    ref = np.where(mask, g, np.float32(0))
    np.testing.assert_array_equal(d, ref)
    np.testing.assert_allclose(gb, ref.astype(np.float64).sum((0, 2, 3)), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
def test_mixed_plain_and_vector_bool_ops(threads):
    """Small bool ops left on the plain path (min-work) next to vectorized
    ones, in one function: the plain path's linalg ops on bool memrefs are
    widened to bytes with the vectorized ones."""
    m, n = 128, 512
    C, S, M = ttype((m, n)), ttype(()), ttype((m, n), "i1")
    Ms = ttype((3, 5), "i1")
    Cs = ttype((3, 5))
    text = f"""
func.func @f(%x: {C}, %s: {Cs}, %k: {Ms}) -> ({M}, {Ms}, {Cs}) {{
  %z = mindir.constant dense<0.0> : {S}
  %1 = mindir.greater %x, %z : ({C}, {S}) -> {M}
  %2 = mindir.less %s, %z : ({Cs}, {S}) -> {Ms}
  %3 = mindir.logical_and %2, %k : ({Ms}, {Ms}) -> {Ms}
  %4 = mindir.select %k, %s, %z : ({Ms}, {Cs}, {S}) -> {Cs}
  return %1, %3, %4 : {M}, {Ms}, {Cs}
}}"""
    x, s, k = _f((m, n)), _f((3, 5)), _b((3, 5))
    a, b, c = compile_with(text, codegen=True, threads=threads, min_work=8192).call("f", x, s, k)
    np.testing.assert_array_equal(a, x > 0)
    np.testing.assert_array_equal(b, (s < 0) & k)
    np.testing.assert_array_equal(c, np.where(k, s, np.float32(0)))


def test_big_sizes_split_into_tasks():
    assert 1024 * 520 >= PARALLEL_MIN_WORK and 2048 * 1040 >= PARALLEL_MIN_WORK_REDUCTION
    s = codegen_ir(epilogue_text(1024, 520), threads=2)
    assert "scf.forall" in s
    s = codegen_ir(relu_grad_text(2048, 1040), threads=2)
    assert s.count("scf.forall") >= 2  # the select and the row sum at least


def test_bool_ops_vectorized_ir():
    s = codegen_ir(epilogue_text(64, 1024))
    assert "linalg.generic" not in s
    assert "vector<16xi1>, tensor<" in s           # the mask written as a vector
    s = codegen_ir(relu_grad_text(64, 1024))
    assert "linalg.generic" not in s
    assert "tensor<65536xi1>, vector<16xi1>" in s   # the mask read as a vector


@pytest.mark.parametrize("min_work", [0, 8192])
def test_bool_fill_bytes(min_work):
    """A bool fill (vectorized, or left on the plain path next to a vectorized
    bool op) stores 1 / 0 bytes, as numpy's bool_."""
    text = """
func.func @f(%x: tensor<64x1024xf32>) -> (tensor<64x1024xi1>, tensor<8xi1>, tensor<8xi1>) {
  %z = mindir.constant dense<0.0> : tensor<f32>
  %1 = mindir.greater %x, %z : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xi1>
  %true = arith.constant true
  %false = arith.constant false
  %e = tensor.empty() : tensor<8xi1>
  %k = linalg.fill ins(%true : i1) outs(%e : tensor<8xi1>) -> tensor<8xi1>
  %k2 = linalg.fill ins(%false : i1) outs(%e : tensor<8xi1>) -> tensor<8xi1>
  return %1, %k, %k2 : tensor<64x1024xi1>, tensor<8xi1>, tensor<8xi1>
}"""
    x = _f((64, 1024))
    a, k, k2 = compile_with(text, codegen=True, min_work=min_work).call("f", x)
    np.testing.assert_array_equal(a, x > 0)
    np.testing.assert_array_equal(k.view(np.uint8), np.ones(8, np.uint8))
    np.testing.assert_array_equal(k2.view(np.uint8), np.zeros(8, np.uint8))
