"""The wide register tile of big AVX-512 matmuls (pack_matmul.WIDE_KERNEL,
6 rows x 64 columns): which matmuls take it (read from the codegen IR: the
micro-kernel's vector.contract shape) and their numerics against numpy
(float64) — every operand layout, tails of the 6-row and 64-column tiles,
prime k, threads=2, a fused epilogue, the real threshold (1000^3, a prime
k of 1009) and the narrow C of a logits layer (n = 10, not wide)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from cg_helpers import codegen_ir, compile_with, ttype
from msmlir.passes.cpu import pack_matmul as pm
from msmlir.passes.cpu.tiling import host_has_avx512

RNG = np.random.default_rng(23)

pytestmark = pytest.mark.skipif(not host_has_avx512(), reason="the wide tile is AVX-512 only")


def matmul_text(m, n, k, ta, tb, epilogue=False):
    sa = (k, m) if ta else (m, k)
    sb = (n, k) if tb else (k, n)
    at = [s for s, on in (("transpose_a = true", ta), ("transpose_b = true", tb)) if on]
    attrs = ("{" + ", ".join(at) + "}") if at else ""
    A, B, C, V = ttype(sa), ttype(sb), ttype((m, n)), ttype((n,))
    if not epilogue:
        return sa, sb, f"""
func.func @f(%a: {A}, %b: {B}) -> {C} {{
  %0 = mindir.matmul %a, %b {attrs} : ({A}, {B}) -> {C}
  return %0 : {C}
}}"""
    return sa, sb, f"""
func.func @f(%a: {A}, %b: {B}, %v: {V}) -> {C} {{
  %0 = mindir.matmul %a, %b {attrs} : ({A}, {B}) -> {C}
  %1 = mindir.add %0, %v : ({C}, {V}) -> {C}
  %2 = mindir.relu %1 : {C}
  return %2 : {C}
}}"""


def check(m, n, k, ta, tb, threads=1, epilogue=False):
    sa, sb, text = matmul_text(m, n, k, ta, tb, epilogue)
    a = RNG.uniform(-1, 1, sa).astype(np.float32)
    b = RNG.uniform(-1, 1, sb).astype(np.float32)
    args = [a, b]
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    if epilogue:
        v = RNG.uniform(-1, 1, (n,)).astype(np.float32)
        args.append(v)
        want = np.maximum(want + v, 0.0)
    got = compile_with(text, codegen=True, threads=threads, min_work=8192).call("f", *args)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6 * k)


def tiles(m, n, k, ta, tb) -> set[str]:
    """The register tile shapes (vector.contract accumulators) of the codegen IR."""
    text = codegen_ir(matmul_text(m, n, k, ta, tb)[2])[0]
    return set(re.findall(r"vector\.contract .* into vector<(\d+x\d+)xf32>", text))


@pytest.fixture
def wide_everywhere(monkeypatch):
    """Every matmul with a C of at least 64 columns takes the wide tile."""
    monkeypatch.delenv("MSMLIR_MM_KERNEL", raising=False)
    monkeypatch.setattr(pm, "WIDE_MIN_FLOPS", 0)


def test_which_matmuls_take_it(monkeypatch):
    monkeypatch.delenv("MSMLIR_MM_KERNEL", raising=False)
    assert pm.WIDE_MIN_FLOPS == 1 << 28
    assert tiles(512, 512, 512, False, False) == {"6x64"}     # 2^28 flops, A read in place
    assert tiles(512, 512, 512, True, False) == {"6x64"}      # A [k, m]: packed by a copy
    assert tiles(512, 512, 512, False, True) == {"6x64"}      # B [n, k]: unswapped, 64-column transposing pack
    assert tiles(512, 512, 512, True, True) == {"8x32"}       # A^T @ B^T: stays swapped
    assert tiles(512, 512, 511, False, False) == {"8x32"}     # below the threshold
    assert tiles(128, 512, 784, False, True) == {"8x32"}      # B5's forward layer (swapped)
    assert tiles(512, 784, 128, True, False) == {"8x32"}      # B5's weight gradient


def test_which_matmuls_take_it_small(wide_everywhere):
    assert tiles(128, 512, 512, False, False) == {"6x64"}
    assert tiles(64, 512, 512, False, True) == {"6x64"}       # x @ W^T unswapped
    # A^T @ B^T stays swapped (C^T computed, its transpose takes MR a power
    # of two); a C narrower than 64 columns: the 8x32 kernel family
    assert tiles(64, 512, 512, True, True) == {"8x32"}
    assert tiles(512, 40, 512, False, False) == {"8x32"}


# (m, n, k): tails of the 6-row tile (m % 6 = 1..5) and of the 64-column
# panel, n = 64 exactly, a prime k in one k block (steps of 4 and one of 1),
# k above a block of 1024 (two blocks), a short k.
SHAPES = [(61, 130, 67), (96, 64, 509), (100, 200, 1031), (6, 64, 33), (47, 129, 12), (255, 300, 256)]


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_layouts_and_tails(m, n, k, ta, tb, wide_everywhere):
    check(m, n, k, ta, tb)


@pytest.mark.parametrize("m,n,k,ta,tb", [(300, 520, 257, False, False), (130, 300, 509, True, False),
                                         (200, 72, 1025, False, True), (7, 700, 100, False, False)])
def test_threads(m, n, k, ta, tb, wide_everywhere):
    """threads=2: row panels split (86 -> 43 + 43 of 6 rows, ragged), or
    the 64-column panels when there are too few rows."""
    check(m, n, k, ta, tb, threads=2)


@pytest.mark.parametrize("threads", [1, 2])
def test_epilogue(threads, wide_everywhere):
    """bias_add + relu applied to the 6x64 register tile before the store."""
    check(101, 190, 77, False, False, threads=threads, epilogue=True)


@pytest.mark.parametrize("m,n,k", [(1000, 1000, 1000), (1024, 1024, 1009)])
def test_big_tails(m, n, k, monkeypatch):
    """The default threshold: 1000^3 (tails in m, n) and a prime k."""
    monkeypatch.delenv("MSMLIR_MM_KERNEL", raising=False)
    assert tiles(m, n, k, False, False) == {"6x64"}
    check(m, n, k, False, False)


def test_narrow_c_not_wide(monkeypatch):
    """n = 10 (a logits layer): narrow 8-column panels, never the wide tile."""
    monkeypatch.delenv("MSMLIR_MM_KERNEL", raising=False)
    monkeypatch.setattr(pm, "WIDE_MIN_FLOPS", 0)
    assert tiles(1024, 10, 1024, False, False) == {"8x8"}
    check(1024, 10, 1024, False, False)
