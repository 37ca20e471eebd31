"""How much code the direct matmul kernel (pack_matmul) hands to LLVM, for
first-call compile time (issue 11): a transposing pack is one block of code
(its partial last panel and its last, shorter k block take the loop's path),
and a swapped tile is transposed once, before its tail branch, into pieces
that are stored directly (no NR x MR tile assembled from scalars). Counted on
the codegen stage's IR of LeNet5's layer shapes with the AVX-512 kernel shape
fixed (8 x 32 register tiles); numerics of the same shapes against numpy."""
from __future__ import annotations

import re

import numpy as np
import pytest

from cg_helpers import codegen_ir, compile_with, ttype

KERNEL = "8,32,128,4,256"
RNG = np.random.default_rng(11)


def _dense_relu(m, n, k):
    X, W, C, V, S = ttype((m, k)), ttype((n, k)), ttype((m, n)), ttype((n,)), ttype(())
    M = ttype((m, n), "i1")
    return f"""
func.func @f(%x: {X}, %w: {W}, %bias: {V}) -> ({C}, {M}) {{
  %z = mindir.constant dense<0.0> : {S}
  %0 = mindir.matmul %x, %w {{transpose_b = true}} : ({X}, {W}) -> {C}
  %1 = mindir.add %0, %bias : ({C}, {V}) -> {C}
  %2 = mindir.relu %1 : {C}
  %3 = mindir.greater %1, %z : ({C}, {S}) -> {M}
  return %2, %3 : {C}, {M}
}}"""


def _count(text: str, pattern: str) -> int:
    return len(re.findall(pattern, text))


@pytest.mark.parametrize("m,n,k,rows_read", [
    (64, 84, 120, 16),   # LeNet5 fc2: k = 7*16 + 8 (a shifted last k block), no partial panel
    (40, 84, 120, 16),   # x of 40 rows: a partial second panel (clamped rows)
    (64, 84, 9, 16),     # k < 16: one block of 9 k
])
def test_swapped_pack_and_transpose_emitted_once(m, n, k, rows_read, monkeypatch):
    """x @ W^T (swapped: x packed by shuffles into 32-row panels): 16 row
    reads and 4 x 16 zips for the pack (one block, the two 16-row halves in a
    loop), 2 x 3 x 8 zips for the 8 x 32 tile's transpose (84 = 10*8 + 4: the
    tile has a tail branch, but the transpose precedes it); each piece gets
    the epilogue as one vector<16> and is written as a 2 x 8 sub-tile of C
    in each branch."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", KERNEL)
    text, _ = codegen_ir(_dense_relu(m, n, k))
    x = ttype((m, k))
    assert _count(text, rf"vector\.transfer_read %arg0\[[^\]]*\][^\n]*: {re.escape(x)}, vector<\d+xf32>") \
        == rows_read
    shuffles = _count(text, r"vector\.shuffle")
    assert shuffles == 64 + 48 if k >= 16 else shuffles <= 64 + 48   # (zips of zero lanes fold)
    # the epilogue (the bias add: its result has two users, relu and the
    # mask) on each piece as one vector<16>, then a 2 x 8 sub-tile of C:
    # 16 pieces in each branch
    assert _count(text, r"arith\.addf [^\n]*: vector<16xf32>") == 2 * 16
    assert _count(text, r"vector\.shape_cast %\w+ : vector<16xf32> to vector<2x8xf32>") == 2 * 16
    assert "vector.from_elements" not in text.split("scf.if")[-1]   # no tile built of scalars
    assert _count(text, r"vector\.transfer_write [^\n]*: vector<2x8xf32>, tensor<") == 2 * 16
    assert _count(text, r"scf\.if") == 1


def test_partial_panel_clamped(monkeypatch):
    """A partial panel's rows past the operand read its last row (39 of 40)."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", KERNEL)
    text, _ = codegen_ir(_dense_relu(40, 84, 120))
    assert _count(text, r"arith\.minsi %\w+, %c39 : index") == 16
    assert _count(text, r"arith\.minsi %\w+, %c104 : index") == 1   # the last k block: 120 - 16


@pytest.mark.parametrize("m,n,k", [(64, 84, 120), (40, 84, 120), (64, 84, 9), (64, 120, 400),
                                   (24, 45, 65), (72, 84, 33)])
def test_swapped_numerics(m, n, k, monkeypatch):
    """The same kernels against numpy: relu(x W^T + b) and its mask."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", KERNEL)
    x = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    w = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (n,)).astype(np.float32)
    cm = compile_with(_dense_relu(m, n, k))
    y, mask = cm.call("f", x, w, b)
    ref = x.astype(np.float64) @ w.T.astype(np.float64) + b
    np.testing.assert_allclose(y, np.maximum(ref, 0), rtol=1e-5, atol=2e-6 * k)
    close = np.abs(ref) < 1e-4          # the mask may differ only where the sum is ~0
    assert np.array_equal(mask[~close], (ref > 0)[~close])


@pytest.mark.parametrize("m,n,k", [(16, 150, 800), (16, 150, 65), (8, 37, 40)])
def test_kcontig_b_pack_numerics(m, n, k, monkeypatch):
    """B stored [n, k] (a filter gradient's im2col: k contiguous), not
    swapped: B's partial last panel (150 = 4*32 + 22, 37 = 32 + 5) and short
    last k block (65, 40) take the one block of the pack's loop."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", KERNEL)
    A, B, C = ttype((m, k)), ttype((n, k)), ttype((m, n))
    text = f"""
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @f(%a: {A}, %b: {B}, %c: {C}) -> {C} {{
  %r = linalg.generic {{indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : {A}, {B}) outs(%c : {C}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }} -> {C}
  return %r : {C}
}}"""
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (n, k)).astype(np.float32)
    c = RNG.uniform(-1, 1, (m, n)).astype(np.float32)
    got = compile_with(text).call("f", a, b, c)[0]
    ref = c.astype(np.float64) + a.astype(np.float64) @ b.T.astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=2e-6 * k)
