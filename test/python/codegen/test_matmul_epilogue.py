"""Packed matmuls with the elementwise epilogues of a train step (bias + relu
with its mask, the SGD update `w - lr * grad`, the relu-backward select),
transposed operands, odd and narrow sizes, with threads=1 and 2: numerics
against numpy, and the task split of mid-size matmuls with threads."""
from __future__ import annotations

import numpy as np
import pytest

from cg_helpers import compile_with, ttype
from msmlir.passes.cpu import pack_matmul as pm

RNG = np.random.default_rng(7)


def _mm(a, b, ta, tb):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return (a.T if ta else a) @ (b.T if tb else b)


def _shapes(m, n, k, ta, tb):
    return ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))


def _attrs(ta, tb):
    at = [s for s, on in (("transpose_a = true", ta), ("transpose_b = true", tb)) if on]
    return ("{" + ", ".join(at) + "}") if at else ""


def dense_relu_text(m, n, k, ta, tb):
    sa, sb = _shapes(m, n, k, ta, tb)
    A, B, C, V, S = ttype(sa), ttype(sb), ttype((m, n)), ttype((n,)), ttype(())
    M = ttype((m, n), "i1")
    return f"""
func.func @f(%a: {A}, %b: {B}, %bias: {V}) -> ({C}, {M}) {{
  %z = mindir.constant dense<0.0> : {S}
  %0 = mindir.matmul %a, %b {_attrs(ta, tb)} : ({A}, {B}) -> {C}
  %1 = mindir.add %0, %bias : ({C}, {V}) -> {C}
  %2 = mindir.relu %1 : {C}
  %3 = mindir.greater %1, %z : ({C}, {S}) -> {M}
  return %2, %3 : {C}, {M}
}}"""


def sgd_text(m, n, k, ta, tb):
    sa, sb = _shapes(m, n, k, ta, tb)
    A, B, C, S = ttype(sa), ttype(sb), ttype((m, n)), ttype(())
    return f"""
func.func @f(%a: {A}, %b: {B}, %lr: {S}, %w: {C}) -> {C} {{
  %0 = mindir.matmul %a, %b {_attrs(ta, tb)} : ({A}, {B}) -> {C}
  %1 = mindir.mul %0, %lr : ({C}, {S}) -> {C}
  %2 = mindir.sub %w, %1 : ({C}, {C}) -> {C}
  return %2 : {C}
}}"""


def select_text(m, n, k, ta, tb):
    sa, sb = _shapes(m, n, k, ta, tb)
    A, B, C, S = ttype(sa), ttype(sb), ttype((m, n)), ttype(())
    M = ttype((m, n), "i1")
    return f"""
func.func @f(%a: {A}, %b: {B}, %mask: {M}) -> {C} {{
  %z = mindir.constant dense<0.0> : {S}
  %0 = mindir.matmul %a, %b {_attrs(ta, tb)} : ({A}, {B}) -> {C}
  %1 = mindir.select %mask, %0, %z : ({M}, {C}, {S}) -> {C}
  return %1 : {C}
}}"""


def _tol(k):
    return dict(rtol=1e-4, atol=2e-6 * k)


SIZES = [
    (128, 512, 784, False, True),    # B5 layer 1 forward (x @ W1^T)
    (128, 10, 512, False, True),     # the logits: N=10
    (10, 512, 128, True, False),     # dW3 = dz^T @ a2: M=10, A transposed
    (512, 784, 128, True, False),    # dW1 = dh1^T @ x (N=784: a partial panel)
    (67, 45, 33, False, False),      # odd sizes
    (96, 200, 70, True, True),       # both transposed
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k,ta,tb", SIZES)
def test_dense_relu_mask(m, n, k, ta, tb, threads):
    sa, sb = _shapes(m, n, k, ta, tb)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    bias = RNG.uniform(-1, 1, (n,)).astype(np.float32)
    cm = compile_with(dense_relu_text(m, n, k, ta, tb), codegen=True, threads=threads, min_work=8192)
    y, mask = cm.call("f", a, b, bias)
    h = _mm(a, b, ta, tb) + bias
    np.testing.assert_allclose(y, np.maximum(h, 0), **_tol(k))
    sure = np.abs(h) > 1e-3  # the sign of values near 0 may round either way
    np.testing.assert_array_equal(mask[sure], (h > 0)[sure])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k,ta,tb", SIZES)
def test_sgd_update(m, n, k, ta, tb, threads):
    sa, sb = _shapes(m, n, k, ta, tb)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    w = RNG.uniform(-1, 1, (m, n)).astype(np.float32)
    lr = np.array(0.01, np.float32)
    cm = compile_with(sgd_text(m, n, k, ta, tb), codegen=True, threads=threads, min_work=8192)
    got = cm.call("f", a, b, lr, w)[0]
    np.testing.assert_allclose(got, w - 0.01 * _mm(a, b, ta, tb), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k,ta,tb", [(128, 512, 512, False, False), (128, 512, 10, False, False),
                                         (50, 70, 90, True, False)])
def test_select_mask(m, n, k, ta, tb, threads):
    sa, sb = _shapes(m, n, k, ta, tb)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    mask = RNG.random((m, n)) > 0.5
    cm = compile_with(select_text(m, n, k, ta, tb), codegen=True, threads=threads, min_work=8192)
    got = cm.call("f", a, b, mask)[0]
    np.testing.assert_allclose(got, np.where(mask, _mm(a, b, ta, tb), 0.0), **_tol(k))


def test_threads_identical_results():
    """The task split only partitions the output: t=1 and t=2 agree bitwise."""
    m, n, k = 128, 512, 784
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    bias = RNG.uniform(-1, 1, (n,)).astype(np.float32)
    outs = [compile_with(dense_relu_text(m, n, k, False, True), codegen=True, threads=t,
                         min_work=8192).call("f", a, b, bias) for t in (1, 2)]
    for x, y in zip(*outs):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("mo,no,tm,tn,want", [
    (128, 128, 16, 16, (0, 16)),   # enough row blocks: one task per cache block of rows
    (16, 16, 16, 16, (1, 8)),      # M=128: the columns in 2 pieces
    (64, 25, 16, 5, (0, 16)),      # dW1 (N=784: 25 panels): row blocks
    (16, 25, 16, 5, (0, 8)),       # odd column panels: rows in pieces
    (1, 1, 1, 1, None),            # nothing to split
])
def test_task_split(mo, no, tm, tn, want):
    assert pm._task_split(mo, no, tm, tn, 2) == want


def plain_text(m, n, k, ta, tb):
    sa, sb = _shapes(m, n, k, ta, tb)
    A, B, C = ttype(sa), ttype(sb), ttype((m, n))
    return f"""
func.func @f(%a: {A}, %b: {B}) -> {C} {{
  %0 = mindir.matmul %a, %b {_attrs(ta, tb)} : ({A}, {B}) -> {C}
  return %0 : {C}
}}"""


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k,ta,tb", [(1000, 1000, 1000, False, False), (10, 512, 784, False, True),
                                         (127, 33, 65, False, False), (127, 33, 65, True, True),
                                         (1000, 1000, 1000, True, True)])
def test_plain_odd_sizes(m, n, k, ta, tb, threads):
    """The direct kernel (no packed C): M/N tails stored with masked transfers."""
    sa, sb = _shapes(m, n, k, ta, tb)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    cm = compile_with(plain_text(m, n, k, ta, tb), codegen=True, threads=threads, min_work=8192)
    got = cm.call("f", a, b)[0]
    np.testing.assert_allclose(got, _mm(a, b, ta, tb), **_tol(k))


@pytest.mark.parametrize("direct", [False, True])
def test_direct_matches_packed_c(direct, monkeypatch):
    """Both recipes (MSMLIR_MM_DIRECT=0: packed C + unpack) agree with numpy."""
    monkeypatch.setattr(pm, "DIRECT", direct)
    m, n, k = 67, 45, 33
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float32)
    cm = compile_with(plain_text(m, n, k, False, False), codegen=True, threads=1, min_work=8192 + direct)
    np.testing.assert_allclose(cm.call("f", a, b)[0], _mm(a, b, False, False), **_tol(k))
