"""Double-buffered tile loads of the tensor-core matmul (passes/gpu/mma.py):
two shared stages, the next K step's tiles loaded while the current one is
computed; operands with k contiguous go in 16-byte chunks that become
cp.async (nvgpu.device_async_copy, zero-filled past K) with a commit and a
wait for all but the newest group before each barrier. The CPU runs the
pipelined schedule of the mapped loop nest (prologue, prefetch into the
other stage, compute) against numpy, and that check fails when the stages
or the zero fill are wrong; ptxas checks the cp.async form for sm_90 and
sm_80. Nothing here ran on a GPU."""
import re

import numpy as np
import pytest
from mlir.dialects import arith

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from msmlir.passes.gpu import mma

rng = np.random.default_rng(1331)
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


def _t(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _xwt(M, K, N, dt="f16"):
    """x @ w^T with w stored (N, K), as nn.Dense: both operands k-contiguous."""
    return f"""
func.func @f(%a: {_t([M, K], dt)}, %b: {_t([N, K], dt)}) -> {_t([M, N], dt)} {{
  %r = mindir.matmul %a, %b {{transpose_b = true}}
      : ({_t([M, K], dt)}, {_t([N, K], dt)}) -> {_t([M, N], dt)}
  return %r : {_t([M, N], dt)}
}}"""


def _check(text, M, K, N, dt=np.float16, **opts):
    A = rng.standard_normal((M, K)).astype(dt)
    B = rng.standard_normal((N, K)).astype(dt)
    out = run_mapped_on_cpu(text, **opts).call("f", A, B)[0]
    want = A.astype(np.float64) @ B.astype(np.float64).T
    return out.astype(np.float64), want


CASES = [
    (130, 72, 150),     # partial tiles on M and N, 3 K steps of 32, the last half past K
    (64, 32, 128),      # one K step: the loop only prefetches past K
    (96, 200, 40),      # K = 200: 7 steps
]


@pytest.mark.parametrize("M,K,N", CASES, ids=lambda c: str(c))
def test_pipelined_schedule_on_cpu_matches_numpy(M, K, N):
    text = _xwt(M, K, N)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    # two stages per operand; both operands in 8-element chunks (scf.for of 8
    # carrying indices, stage, row, k, valid count)
    assert re.search(r"memref<2x\d+x40xf16>", mapped)
    assert len(re.findall(r"scf\.for %\S+ = %c0 to %c8 step %c1 iter_args", mapped)) >= 4
    out, want = _check(text, M, K, N)
    np.testing.assert_allclose(out, want, rtol=2 ** -10, atol=2 ** -14 * np.abs(want).max())


def _xw(M, K, N):
    return f"""
func.func @f(%a: {_t([M, K], "f16")}, %b: {_t([K, N], "f16")}) -> {_t([M, N], "f16")} {{
  %r = mindir.matmul %a, %b : ({_t([M, K], "f16")}, {_t([K, N], "f16")}) -> {_t([M, N], "f16")}
  return %r : {_t([M, N], "f16")}
}}"""


@pytest.mark.parametrize("M,K,N,chunked", [(70, 72, 136, True), (64, 40, 50, False)],
                         ids=["n-chunks", "n-elements"])
def test_k_major_b_on_cpu_matches_numpy(M, K, N, chunked):
    """x @ w with w (K, N): B stays k-major in shared memory ([2][TK][TN + 8],
    read by ldmatrix .trans on the GPU), loaded in 8-element chunks along n
    when N is a multiple of 8 (partial N tile: zero-filled chunks), else
    element by element."""
    text = _xw(M, K, N)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    assert re.search(r"memref<2x32x\d+xf16>", mapped)            # k-major B stages
    n_chunk_loops = len(re.findall(r"to %c8 step %c1 iter_args", mapped))
    assert (n_chunk_loops >= 4) if chunked else (n_chunk_loops == 2)  # (A's: prologue, loop)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    out = run_mapped_on_cpu(text).call("f", A, B)[0].astype(np.float64)
    want = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=2 ** -10, atol=2 ** -14 * np.abs(want).max())


def test_k_not_a_multiple_of_a_chunk_loads_elements():
    """K = 53: a 16-byte chunk would straddle K, so both operands go element by
    element (zeros past K), still through the two stages."""
    text = _xwt(40, 53, 48)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    assert re.search(r"memref<2x\d+x40xf16>", mapped)
    assert not re.search(r"to %c8 step %c1 iter_args", mapped)
    out, want = _check(text, 40, 53, 48)
    np.testing.assert_allclose(out, want, rtol=2 ** -10, atol=2 ** -14 * np.abs(want).max())


def test_tf32_chunks_are_four_floats():
    text = _xwt(96, 40, 72, "f32")
    mapped = str(compile_gpu(text, stop_after="mapped", tf32=True).module)
    assert re.search(r"memref<2x\d+x20xf32>", mapped)
    assert re.search(r"to %c4 step %c1 iter_args", mapped)
    out, want = _check(text, 96, 40, 72, np.float32, tf32=True)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def _broken(monkeypatch, how):
    orig = mma._chunk_copies

    def chunks(ld, buf, stage, t, T, TS, TK, S, K, s0, k0, check_k, *rest):
        if how == "stage":         # the prefetch lands in the stage being computed
            stage = arith.SubIOp(mma._i(1), stage).result
        else:                      # no zero fill past K
            check_k = False
        return orig(ld, buf, stage, t, T, TS, TK, S, K, s0, k0, check_k, *rest)
    monkeypatch.setattr(mma, "_chunk_copies", chunks)


@pytest.mark.parametrize("how", ["stage", "zero fill"])
def test_the_cpu_check_catches_a_broken_pipeline(monkeypatch, how):
    """The check is not vacuous: a prefetch into the wrong stage, or chunks
    past K that are not zero-filled, give numbers numpy does not."""
    _broken(monkeypatch, how)
    out, want = _check(_xwt(130, 72, 150), 130, 72, 150)
    assert not np.allclose(out, want, rtol=2 ** -10, atol=2 ** -14 * np.abs(want).max())


@needs_ptxas
@pytest.mark.parametrize("chip,features", [("sm_90", "+ptx80"), ("sm_80", "+ptx70")])
def test_cp_async_ptxas(chip, features):
    prog = compile_gpu(_xwt(1024, 1024, 1024), chip=chip, features=features)
    (name, r), = [(n, r) for n, r in ptxas.check_program(prog).items()
                  if "mma.sync" in prog.ptx[n]]
    ptx = prog.ptx[name]
    assert f".target {chip}" in ptx
    assert not r.problems and not r.spills and r.stack == 0, r
    assert "ld.local" not in ptx and "st.local" not in ptx
    # 64x128 tiles, 256 threads: A 64 x 4 chunks (one a thread), B 128 x 4 (two),
    # in the prologue (whole chunks) and in the K loop (valid count in a register)
    chunk = r"cp\.async\.cg\.shared\.global \[%r\w+(?:\+\d+)?\], \[%rd\d+\], 16, "
    assert len(re.findall(chunk + r"16;", ptx)) == 3
    assert len(re.findall(chunk + r"%r\d+;", ptx)) == 3
    assert ptx.count("cp.async.commit_group") == 2
    assert len(re.findall(r"cp\.async\.wait_group\s+1;", ptx)) == 2
    assert "ld.global.b16" not in ptx          # every tile element comes by cp.async
    # the wait comes before the barrier that precedes the K step's ldmatrix/mma
    body = ptx[ptx.index("cp.async.commit_group"):]
    assert body.index("cp.async.wait_group") < body.index("bar.sync") < body.index("ldmatrix")
    assert r.shared == 30720 and r.registers <= 168, r


def test_the_cpu_check_follows_the_transposed_ldmatrix_rows(monkeypatch):
    """The k-major B is read at the rows ldmatrix .trans gets from each lane
    (`_bt_row_addr`, the function the GPU form uses too): wrong rows there
    give numbers numpy does not."""
    monkeypatch.setattr(mma, "_bt_row_addr", lambda lane: arith.RemUIOp(lane, mma._i(8)).result)
    text = _xw(70, 72, 136)
    A = rng.standard_normal((70, 72)).astype(np.float16)
    B = rng.standard_normal((72, 136)).astype(np.float16)
    out = run_mapped_on_cpu(text).call("f", A, B)[0].astype(np.float64)
    want = A.astype(np.float64) @ B.astype(np.float64)
    assert not np.allclose(out, want, rtol=2 ** -10, atol=2 ** -14 * np.abs(want).max())
