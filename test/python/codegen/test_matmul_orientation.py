"""The direct matmul kernel's operand roles (pack_matmul): A stored [m, k] and
given to the function is broadcast in place (not packed), clamped rows in the
M tail; x @ W^T (B stored [n, k]) is computed as C^T = W x^T with W
broadcast in place, x packed and each register tile transposed before its
store and epilogue. Numerics against numpy (float64) with tails in both
dims, several k blocks, a C that is accumulated into (not a fill), the
train-step epilogues and threads=2; and which orientation each shape gets."""
from __future__ import annotations

import numpy as np
import pytest

from cg_helpers import compile_with, ttype
from msmlir.passes.common.linalg import MatmulInfo
from msmlir.passes.cpu import pack_matmul as pm

RNG = np.random.default_rng(5)


def _tol(k):
    return dict(rtol=1e-5, atol=2e-6 * k)


def _dense_text(m, n, k, epilogue):
    """x [m, k] @ W [n, k]^T, then `epilogue` ("relu": + bias, relu and its
    mask; "sgd": w - lr * _; "none")."""
    X, W, C, V, S = ttype((m, k)), ttype((n, k)), ttype((m, n)), ttype((n,)), ttype(())
    M = ttype((m, n), "i1")
    mm = f"%0 = mindir.matmul %x, %w {{transpose_b = true}} : ({X}, {W}) -> {C}"
    if epilogue == "relu":
        return f"""
func.func @f(%x: {X}, %w: {W}, %bias: {V}) -> ({C}, {M}) {{
  %z = mindir.constant dense<0.0> : {S}
  {mm}
  %1 = mindir.add %0, %bias : ({C}, {V}) -> {C}
  %2 = mindir.relu %1 : {C}
  %3 = mindir.greater %1, %z : ({C}, {S}) -> {M}
  return %2, %3 : {C}, {M}
}}"""
    if epilogue == "sgd":
        return f"""
func.func @f(%x: {X}, %w: {W}, %lr: {S}, %p: {C}) -> {C} {{
  {mm}
  %1 = mindir.mul %0, %lr : ({C}, {S}) -> {C}
  %2 = mindir.sub %p, %1 : ({C}, {C}) -> {C}
  return %2 : {C}
}}"""
    return f"""
func.func @f(%x: {X}, %w: {W}) -> {C} {{
  {mm}
  return %0 : {C}
}}"""


def _info(m, n, k, a_km=False, b_nk=True):
    return MatmulInfo(m, n, k, a_km, b_nk, True)


def test_orientation_choice():
    """Swapped when W is [n, k] and x the smaller operand filling whole panels."""
    assert pm._swapped(_info(128, 512, 784), 8, 32)          # B5 layer 1 forward
    assert not pm._swapped(_info(128, 10, 512), 8, 32)       # logits: m > n
    assert not pm._swapped(_info(128, 512, 784, b_nk=False), 8, 32)
    assert not pm._swapped(_info(16, 150, 800), 8, 32)       # m = 16: half-width panels
    assert pm._swapped(_info(600, 400, 64, a_km=True), 8, 32)  # A [k, m]: a copy to pack
    assert not pm._swapped(_info(128, 512, 784), 6, 32)      # MR not a power of two


def test_direct_split():
    """One task per thread, the last one shorter."""
    assert pm._direct_split(64, 4, 16, 2) == (0, 32)     # B5 forward (swapped): W's rows
    assert pm._direct_split(171, 16, 16, 2) == (0, 86)   # 1024^3, 6-row panels
    assert pm._direct_split(25, 5, 16, 2) == (1, 3)      # few row panels: the columns
    assert pm._direct_split(3, 1, 16, 2) == (0, 2)
    assert pm._direct_split(1, 1, 16, 2) is None


def test_k_block():
    """Longer k blocks while the packed columns fit the L2 budget, at most 1024."""
    assert pm._k_block(256, 512) == 256      # 16 panels of 32
    assert pm._k_block(256, 128) == 1024     # 4 panels of 32 (B5's x, swapped)
    assert pm._k_block(256, 32) == 1024


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k", [
    (128, 512, 784),   # B5 layer 1 forward, swapped
    (40, 77, 33),      # swapped, tails in both dims (77 = 9*8 + 5 rows of W, 40 = 32 + 8 of x)
    (70, 45, 16),      # m > n: not swapped, W packed; x broadcast in place with a row tail
    (96, 300, 2100),   # swapped, 3 k blocks of 700
    (100, 290, 200),   # threads=2: 37 row panels of W in tasks of 19 and 18
    (130, 200, 160),   # threads=2: 5 column panels (of x) in tasks of 3 and 2
])
def test_dense_relu(m, n, k, threads):
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    bias = RNG.uniform(-1, 1, (n,)).astype(np.float32)
    cm = compile_with(_dense_text(m, n, k, "relu"), codegen=True, threads=threads, min_work=8192)
    y, mask = cm.call("f", x, w, bias)
    h = x.astype(np.float64) @ w.T.astype(np.float64) + bias
    np.testing.assert_allclose(y, np.maximum(h, 0), **_tol(k))
    sure = np.abs(h) > 1e-3
    np.testing.assert_array_equal(mask[sure], (h > 0)[sure])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k", [(40, 77, 33), (100, 300, 200), (96, 300, 2100)])
def test_sgd_epilogue(m, n, k, threads):
    """An epilogue reading a full [m, n] operand at the transposed tile."""
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    p = RNG.uniform(-1, 1, (m, n)).astype(np.float32)
    lr = np.array(0.01, np.float32)
    cm = compile_with(_dense_text(m, n, k, "sgd"), codegen=True, threads=threads, min_work=8192)
    got = cm.call("f", x, w, lr, p)[0]
    want = p - 0.01 * (x.astype(np.float64) @ w.T.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m,n,k,threads", [(40, 77, 33, 1), (64, 200, 2100, 1), (100, 300, 200, 2)])
def test_accumulate_into_c(m, n, k, threads):
    """A matmul whose init is a tensor (not a fill): swapped, the transposed
    partial sums are added to C's tile (first k block from the init)."""
    X, W, C = ttype((m, k)), ttype((n, k)), ttype((m, n))
    text = f"""
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @f(%x: {X}, %w: {W}, %c: {C}) -> {C} {{
  %r = linalg.generic {{indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : {X}, {W}) outs(%c : {C}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }} -> {C}
  return %r : {C}
}}"""
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    c = RNG.uniform(-1, 1, (m, n)).astype(np.float32)
    got = compile_with(text, codegen=True, threads=threads, min_work=8192).call("f", x, w, c)[0]
    want = c + x.astype(np.float64) @ w.T.astype(np.float64)
    np.testing.assert_allclose(got, want, **_tol(k))


@pytest.mark.parametrize("kernel", ["4,16,16,8,256", "16,16,4,4,64", "2,32,8,8,128"])
def test_swapped_tile_shapes(kernel, monkeypatch):
    """Transposed tiles of MR = 2, 4, 16 rows (pieces of MR lanes) and 16 or 32 columns."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", kernel)
    m, n, k = 70, 90, 51
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    got = compile_with(_dense_text(m, n, k, "none"), codegen=True, min_work=8192).call("f", x, w)[0]
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.T.astype(np.float64), **_tol(k))


@pytest.mark.parametrize("m,n,k", [(40, 77, 33), (128, 512, 512)])
def test_select_epilogue(m, n, k):
    """The relu-backward select: an i1 mask tile read at the transposed tile."""
    X, W, C, S = ttype((m, k)), ttype((n, k)), ttype((m, n)), ttype(())
    M = ttype((m, n), "i1")
    text = f"""
func.func @f(%x: {X}, %w: {W}, %mask: {M}) -> {C} {{
  %z = mindir.constant dense<0.0> : {S}
  %0 = mindir.matmul %x, %w {{transpose_b = true}} : ({X}, {W}) -> {C}
  %1 = mindir.select %mask, %0, %z : ({M}, {C}, {S}) -> {C}
  return %1 : {C}
}}"""
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    mask = RNG.random((m, n)) > 0.5
    got = compile_with(text, codegen=True, min_work=8192).call("f", x, w, mask)[0]
    want = np.where(mask, x.astype(np.float64) @ w.T.astype(np.float64), 0.0)
    np.testing.assert_allclose(got, want, **_tol(k))
