"""Double-buffered FMA matmul tiles (passes/gpu/convert_mskernel_to_gpu.py,
_map_matmul): two shared stages per operand, K step kt+1 loaded while step
kt is computed; an operand whose tile rows are contiguous 16-byte chunks in
global memory (k contiguous: x @ w^T, A of x @ w; or m/n contiguous: B of
x @ w, A of x^T @ dy) keeps that layout in shared memory and is copied by
cp.async (sm_80 and later, the tensor-core path's chunk copies), the others
element by element. The CPU runs the pipelined mapped loop nest against
numpy (and that check fails when the prefetch lands in the stage being
computed); ptxas checks the cp.async form for sm_90 and sm_80 and the
element form for sm_75. Nothing here ran on a GPU."""
import re

import numpy as np
import pytest
from mlir.dialects import arith

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from msmlir.passes.gpu import mma

rng = np.random.default_rng(2024)
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _matmul(M, K, N, ta=False, tb=False):
    a = [K, M] if ta else [M, K]
    b = [N, K] if tb else [K, N]
    return f"""
func.func @f(%a: {_t(a)}, %b: {_t(b)}) -> {_t([M, N])} {{
  %r = mindir.matmul %a, %b {{transpose_a = {str(ta).lower()}, transpose_b = {str(tb).lower()}}}
      : ({_t(a)}, {_t(b)}) -> {_t([M, N])}
  return %r : {_t([M, N])}
}}""", a, b


def _run(M, K, N, ta=False, tb=False, **opts):
    text, a, b = _matmul(M, K, N, ta, tb)
    A = rng.standard_normal(a).astype(np.float32)
    B = rng.standard_normal(b).astype(np.float32)
    out = run_mapped_on_cpu(text, **opts).call("f", A, B)[0].astype(np.float64)
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    want = (A64.T if ta else A64) @ (B64.T if tb else B64)
    return out, want


CASES = [
    # M, K, N, ta, tb: which operands go by chunks
    (130, 72, 150, False, True),   # both k-contiguous (x @ w^T); K = 4.5 steps: prefetch past K
    (100, 64, 36, False, False),   # A k rows, B n rows (n contiguous); N = 36: partial n tile
    (64, 100, 40, True, False),    # x^T @ dy: A m-contiguous, B n-contiguous, K tail
    (96, 40, 72, True, True),      # A m-contiguous, B k-contiguous
    (37, 53, 29, False, False),    # nothing a chunk multiple: element loads, two stages
]


@pytest.mark.parametrize("M,K,N,ta,tb", CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("cp_async", [True, False])
def test_pipelined_fma_tiles_on_cpu_match_numpy(M, K, N, ta, tb, cp_async):
    out, want = _run(M, K, N, ta, tb, chip="sm_90" if cp_async else "sm_75",
                     features="+ptx80" if cp_async else "+ptx63")
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_the_mapped_nest_has_two_stages_and_chunks():
    text, _, _ = _matmul(130, 72, 150, tb=True)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    assert len(re.findall(r"memref\.alloc\(\) \{msmlir\.gpu_shared\} : memref<2x\d+x20xf32>",
                          mapped)) == 2
    assert len(re.findall(r"scf\.for %\S+ = %c0 to %c4\S* step %c1 iter_args", mapped)) == 4
    old = str(compile_gpu(text, stop_after="mapped", chip="sm_75", features="+ptx63").module)
    assert not re.search(r"to %c4\S* step %c1 iter_args", old)      # sm_75: no cp.async
    assert len(re.findall(r"memref\.alloc\(\) \{msmlir\.gpu_shared\} : memref<2x16x(?:17|16)xf32>",
                          old)) == 2


def test_the_cpu_check_catches_a_prefetch_into_the_wrong_stage(monkeypatch):
    orig = mma._chunk_copies

    def chunks(ld, buf, stage, *rest):
        return orig(ld, buf, arith.SubIOp(mma._i(1), stage).result, *rest)
    monkeypatch.setattr(mma, "_chunk_copies", chunks)
    out, want = _run(130, 72, 150, tb=True)
    assert not np.allclose(out, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())


@needs_ptxas
@pytest.mark.parametrize("chip,features", [("sm_90", "+ptx80"), ("sm_80", "+ptx70")])
def test_fma_cp_async_ptxas(chip, features):
    """1024^3 (B4): 64x128 tiles, 256 threads of 4x8 outputs; A [2][64][16+4]
    (one 16-byte chunk a thread), B [2][16][128+4] (two); every tile element
    by cp.async; the wait before the barrier that precedes the compute."""
    text, _, _ = _matmul(1024, 1024, 1024)
    prog = compile_gpu(text, chip=chip, features=features)
    (name, r), = [(n, r) for n, r in ptxas.check_program(prog).items() if r.shared]
    ptx = prog.ptx[name]
    assert f".target {chip}" in ptx
    assert not r.problems and not r.spills and r.stack == 0, r
    assert r.shared == 2 * (64 * 20 + 16 * 132) * 4 and r.registers <= 96, r
    assert "ld.local" not in ptx and "st.local" not in ptx
    chunk = r"cp\.async\.cg\.shared\.global \[%rd\d+(?:\+\d+)?\], \[%rd\d+(?:\+\d+)?\], 16, "
    assert len(re.findall(chunk + r"16;", ptx)) == 3          # the prologue: whole chunks
    assert len(re.findall(chunk + r"%r\d+;", ptx)) == 3       # the K loop: zero past K
    assert ptx.count("cp.async.commit_group") == 2
    assert len(re.findall(r"cp\.async\.wait_group\s+1;", ptx)) == 2
    loop = ptx[ptx.index("$L__BB0_1:"):]
    assert loop.index("cp.async.wait_group") < loop.index("bar.sync") < loop.index("fma.rn.f32")
    assert ptx.count("st.shared") == 0                        # no tile element by hand
    assert ptx.count("fma.rn.f32") >= 32


@needs_ptxas
def test_before_sm_80_the_tiles_are_loaded_by_elements():
    text, _, _ = _matmul(1024, 1024, 1024)
    prog = compile_gpu(text, chip="sm_75", features="+ptx63")
    (name, r), = [(n, r) for n, r in ptxas.check_program(prog).items() if r.shared]
    ptx = prog.ptx[name]
    assert "cp.async" not in ptx and "st.shared" in ptx and ".target sm_75" in ptx
    # A k-fast, transposed into k rows padded by one: [2][16][64+1]; B [2][16][128]
    assert r.shared == 2 * (16 * 65 + 16 * 128) * 4 and not r.problems, r
    assert not r.spills and r.stack == 0 and "ld.local" not in ptx, r
    # register staging: per K step the next step's 12 elements a thread are
    # loaded, the current step computed, then the loaded values stored to the
    # other stage (from the loop header on: loads, fma, stores)
    loop = ptx[ptx.index('"nounroll"'):]
    order = [m.group(0) for m in re.finditer(r"ld\.global\.b32|fma\.rn\.f32|st\.shared\.b32",
                                             loop)]
    first = {k: order.index(k) for k in ("ld.global.b32", "fma.rn.f32", "st.shared.b32")}
    assert first["ld.global.b32"] < first["fma.rn.f32"] < first["st.shared.b32"], order
    assert order.count("ld.global.b32") == 12 and order.count("st.shared.b32") == 12
    # barriers: after the init and the prologue's loads; per step after the
    # loads and at its end (none between the compute and the staged stores)
    assert ptx.count("bar.sync") == 4
