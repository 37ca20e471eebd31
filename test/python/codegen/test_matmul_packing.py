"""The direct matmul kernel's operand packing (pack_matmul.pack_panels): the
shuffle transposes of k-contiguous operands, the copies of [k, rows] ones,
operands read in place in small matmuls, zero padding of row and k tails,
every panel width (2 to 32), with threads=2 (the packs and the matmul
split into tasks, unevenly), k blocks that do not divide k (a prime k, k just
above or below a block): numerics against numpy (float64)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from cg_helpers import codegen_ir, compile_with, ttype
from msmlir.passes.cpu import pack_matmul as pm
from msmlir.passes.cpu.tiling import host_has_avx512

RNG = np.random.default_rng(11)


def matmul_text(m, n, k, ta, tb):
    sa = (k, m) if ta else (m, k)
    sb = (n, k) if tb else (k, n)
    at = [s for s, on in (("transpose_a = true", ta), ("transpose_b = true", tb)) if on]
    attrs = ("{" + ", ".join(at) + "}") if at else ""
    A, B, C = ttype(sa), ttype(sb), ttype((m, n))
    return sa, sb, f"""
func.func @f(%a: {A}, %b: {B}) -> {C} {{
  %0 = mindir.matmul %a, %b {attrs} : ({A}, {B}) -> {C}
  return %0 : {C}
}}"""


def check(m, n, k, ta, tb, threads=1):
    sa, sb, text = matmul_text(m, n, k, ta, tb)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    got = compile_with(text, codegen=True, threads=threads, min_work=8192).call("f", a, b)[0]
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6 * k)


# (m, n, k): k tails of 16 (k < 16, k % 16 != 0), row tails of every panel
# width, small ones (operands read in place) and big ones (packed).
SHAPES = [(40, 48, 7), (37, 70, 33), (64, 96, 100), (70, 45, 16), (200, 130, 300), (128, 784, 128)]


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_layouts_and_tails(m, n, k, ta, tb):
    check(m, n, k, ta, tb)


@pytest.mark.parametrize("kernel", ["4,16,16,8,256", "8,32,16,16,256", "16,16,4,4,64", "2,32,8,8,128"])
@pytest.mark.parametrize("ta,tb", [(False, True), (True, False)])
def test_panel_widths(kernel, ta, tb, monkeypatch):
    """MR/NR of 2..32: transposed blocks of 2, 4, 8, 16 rows and 16-row halves of 32."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", kernel)
    check(75, 90, 51, ta, tb)


@pytest.mark.parametrize("m,n,k,ta,tb", [(128, 512, 784, False, True), (512, 784, 128, True, False),
                                         (128, 512, 512, False, False), (256, 100, 300, True, True)])
def test_threads(m, n, k, ta, tb):
    """threads=2: rows or columns of the output split into tasks."""
    check(m, n, k, ta, tb, threads=2)


def test_width_not_power_of_two_falls_back(monkeypatch):
    """A panel width that is not a power of two: pack_panels refuses it
    (ValueError), so a direct kernel with 6-row panels of A ([k, m]: packed)
    fails (62 rows: not read in place) and the packed-C recipe computes the
    matmul; A read in place (a [m, k] argument, no panels) takes 6-row tiles
    in the direct kernel."""
    T = pm._Text()
    with pytest.raises(ValueError, match="panel width 6: a transposing pack"):
        pm.pack_panels(T, "%a", "tensor<64x64xf32>", 64, 64, 6, kcontig=True, zero="%z")
    monkeypatch.setenv("MSMLIR_MM_KERNEL", "6,16,16,8,256")
    check(62, 64, 40, True, True)
    check(60, 64, 40, False, True)


def test_k_blocks():
    """k blocks near the chosen size whatever k's divisors; the last shorter."""
    assert pm._k_blocks(1009, 256) == (256, 4, 241, 4)     # prime k: 4 blocks, not 1009 of 1
    assert pm._k_blocks(1009, 1024) == (1009, 1, 1009, 4)  # one block, steps of 4 and one of 1
    assert pm._k_blocks(1024, 256) == (256, 4, 256, 4)
    assert pm._k_blocks(784, 1024) == (784, 1, 784, 4)
    assert pm._k_blocks(257, 256) == (132, 2, 125, 4)
    assert pm._k_blocks(3000, 1024) == (1000, 3, 1000, 4)
    assert pm._k_blocks(3, 256) == (3, 1, 3, 3)


# (m, n, k) with the AVX-512 kernel (8 x 32; k blocks of 256 to 1024 by the
# panel count): a prime k in one block (steps of 4 then 1) and in 2 blocks of
# 508 + 501, k just above a block (257: 132 + 125) and just below (255: one
# block, a last step of 3), 3 blocks of 344 + 344 + 337, a small matmul whose
# operands are read in place (509: a last step of 1).
K_SHAPES = [(64, 96, 1009), (40, 256, 1009), (40, 520, 257), (40, 520, 255), (72, 300, 1025),
            (32, 64, 509)]


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("m,n,k", K_SHAPES)
def test_k_remainders(m, n, k, ta, tb, monkeypatch):
    monkeypatch.setenv("MSMLIR_MM_KERNEL", "8,32,16,16,256")
    check(m, n, k, ta, tb)


@pytest.mark.parametrize("m,n,k,ta,tb", [(128, 520, 1009, False, False), (130, 300, 257, False, True),
                                         (200, 72, 1025, True, False)])
def test_k_remainders_threads(m, n, k, ta, tb, monkeypatch):
    """threads=2 with the short last k block (row and column splits, tails)."""
    monkeypatch.setenv("MSMLIR_MM_KERNEL", "8,32,16,16,256")
    check(m, n, k, ta, tb, threads=2)


@pytest.mark.parametrize("kernel", ["8,32,16,16,256", ""])
@pytest.mark.parametrize("m,n,k,ta,tb", [(128, 300, 256, False, False), (170, 600, 200, False, True),
                                         (300, 128, 130, True, False), (72, 520, 1009, True, True)])
def test_parallel_packs(m, n, k, ta, tb, kernel, monkeypatch):
    """threads=2: the packs split over the threads in uneven ranges of whole
    panels (9 -> 5 + 4, 5 -> 3 + 2, 37 -> 19 + 18), copies and shuffle
    transposes, the partial last panel packed after them ("": the host's kernel)."""
    if kernel:
        monkeypatch.setenv("MSMLIR_MM_KERNEL", kernel)
    check(m, n, k, ta, tb, threads=2)


@pytest.mark.skipif(not host_has_avx512(), reason="the AVX-512 kernel's cache blocks")
@pytest.mark.parametrize("m,n,k,ta,step", [(512, 784, 128, True, 25), (128, 512, 512, False, 8),
                                           (64, 512, 1024, False, 4)])
def test_short_k_column_blocks(m, n, k, ta, step, monkeypatch):
    """A short k block widens the column block of the 8x32 kernel to the
    panels that fit L2_BLOCK (k = 128: all 25 panels of n = 784; k = 512: 8;
    k = 1024: the default 4): the step of the cache-block loop over column
    panels, read from the codegen IR; numerics against numpy."""
    monkeypatch.delenv("MSMLIR_MM_KERNEL", raising=False)
    text = codegen_ir(matmul_text(m, n, k, ta, False)[2])[0]
    C = f"tensor<{m}x{n}xf32>"
    loops = [ln for ln in text.splitlines() if "scf.for" in ln and f"-> ({C})" in ln]
    assert re.search(rf"step %c{step} iter_args", loops[1]), loops[:2]
    check(m, n, k, ta, False)
