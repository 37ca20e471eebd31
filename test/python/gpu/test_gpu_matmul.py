"""Matmul-like kernels on the GPU target: the tiled mapping (TM x TN output
tiles per block, RM x RN register tiles per thread, K stepped by TK through
shared memory) run on the CPU as its mapped loop nest vs numpy (plain,
transposed A/B, batched with broadcast, partial tiles everywhere, several
thread budgets), the tile planner, and the PTX: ptxas figures of the tiled
kernels, fma contraction, warp shuffles in the block reductions."""
import re

import numpy as np
import pytest

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from msmlir.passes.gpu.convert_mskernel_to_gpu import MIN_BLOCKS, plan_matmul

rng = np.random.default_rng(13)


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _matmul(M, K, N, ta=False, tb=False, batch=None, bcast=False):
    a = ([K, M] if ta else [M, K])
    b = ([N, K] if tb else [K, N])
    op = "matmul"
    out = [M, N]
    if batch:
        a, b, out, op = [batch] + a, [1 if bcast else batch] + b, [batch] + out, "batch_matmul"
    text = f"""
func.func @f(%a: {_t(a)}, %b: {_t(b)}) -> {_t(out)} {{
  %r = mindir.{op} %a, %b {{transpose_a = {str(ta).lower()}, transpose_b = {str(tb).lower()}}}
      : ({_t(a)}, {_t(b)}) -> {_t(out)}
  return %r : {_t(out)}
}}"""
    return text, a, b


def _ref(A, B, ta, tb):
    A, B = A.astype(np.float64), B.astype(np.float64)
    return np.matmul(np.swapaxes(A, -1, -2) if ta else A, np.swapaxes(B, -1, -2) if tb else B)


SHAPES = [
    # M, K, N, transpose_a, transpose_b, batch, broadcast b
    (37, 53, 29, False, False, None, False),     # partial tiles on M, N, K
    (130, 70, 150, False, True, None, False),    # x @ w^T (Dense forward)
    (64, 100, 10, True, False, None, False),     # x^T @ dy (Dense weight gradient)
    (96, 40, 72, True, True, None, False),
    (128, 512, 10, False, True, None, False),    # the MLP's last layer
    (33, 24, 20, False, False, 3, False),        # batched
    (16, 35, 48, False, True, 4, True),          # batched, b broadcast over the batch
]


@pytest.mark.parametrize("threads", [32, 256, 1024])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:3])) +
                         ("_ta" if s[3] else "") + ("_tb" if s[4] else "") +
                         (f"_b{s[5]}" if s[5] else "") + ("_bc" if s[6] else ""))
def test_tiled_matmul_on_cpu_matches_numpy(shape, threads):
    M, K, N, ta, tb, batch, bcast = shape
    text, a, b = _matmul(M, K, N, ta, tb, batch, bcast)
    A = rng.standard_normal(a).astype(np.float32)
    B = rng.standard_normal(b).astype(np.float32)
    mapped = str(compile_gpu(text, stop_after="mapped", threads=threads).module)
    assert "msmlir.gpu_local" in mapped and mapped.count("msmlir.gpu_shared") == 2
    out = run_mapped_on_cpu(text, threads=threads).call("f", A, B)[0]
    want = _ref(A, B, ta, tb)
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_untiled_matches_tiled():
    text, a, b = _matmul(70, 90, 50, tb=True)
    A = rng.standard_normal(a).astype(np.float32)
    B = rng.standard_normal(b).astype(np.float32)
    plain = compile_gpu(text, stop_after="mapped", tile_matmul=False)
    assert "msmlir.gpu_local" not in str(plain.module)
    x = run_mapped_on_cpu(text, tile_matmul=False).call("f", A, B)[0]
    y = run_mapped_on_cpu(text).call("f", A, B)[0]
    np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5 * np.abs(x).max())


def test_plan_matmul():
    for M, N, K in [(1024, 1024, 1024), (128, 512, 784), (128, 10, 512), (10, 84, 64),
                    (1, 1, 8), (3, 1000, 17), (4096, 4096, 64)]:
        for threads in (1, 32, 64, 256, 1024):
            TM, TN, RM, RN, TK = plan_matmul(M, N, K, threads)
            assert (TM // RM) * (TN // RN) <= max(threads, 1)
            assert TM % RM == 0 and TN % RN == 0 and RM * RN <= 64
            assert 1 <= TK <= 16 and TK & (TK - 1) == 0
    # large: 64x128 tiles of 4x8 outputs (128 blocks for 1024^3), 16-deep K steps
    assert plan_matmul(1024, 1024, 1024, 256) == (64, 128, 4, 8, 16)
    assert plan_matmul(4096, 4096, 64, 256) == (128, 128, 8, 8, 8)
    # small: tiles shrink until about one wave of blocks
    TM, TN, _, _, _ = plan_matmul(128, 512, 784, 256)
    assert -(-128 // TM) * -(-512 // TN) >= MIN_BLOCKS


needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


@pytest.fixture(scope="module")
def b4_like():
    text, _, _ = _matmul(1024, 1024, 1024)
    return compile_gpu(text)


@needs_ptxas
def test_tiled_kernel_ptxas(b4_like):
    reports = ptxas.check_program(b4_like)
    (name, r), = [(n, r) for n, r in reports.items() if r.shared]
    assert not r.problems and not r.spills and r.stack == 0, r
    # two stages of two tiles, copied by cp.async: A [64, 16 + 4] (k rows as in
    # memory, 16-byte pad), B [16, 128 + 4] (test_gpu_fma_pipelined.py)
    assert r.shared == 2 * (64 * 20 + 16 * 132) * 4
    assert r.registers <= 128, r
    ptx = b4_like.ptx[name]
    assert ptx.count("fma.rn.f32") >= 32 and "mul.rn.f32" not in ptx
    assert "ld.local" not in ptx and "st.local" not in ptx     # the register tile stays in registers
    assert "bar.sync" in ptx and "ld.shared" in ptx and "cp.async.cg" in ptx
    launch, = [l for l in b4_like.launches if l.kernel == name]
    assert (launch.grid, launch.block) == ((8, 16, 1), (256, 1, 1))


@needs_ptxas
def test_small_tiles_stay_small():
    """LeNet's fc2 (64x84 @ (120x84)^T, a K tail): 16x16 tiles, one output per
    thread, two stages of [16, 16 + 4] tiles (k contiguous, cp.async); the
    K-step loop not unrolled, so ptxas keeps it in few registers."""
    text, _, _ = _matmul(64, 120, 84, tb=True)
    prog = compile_gpu(text)
    reports = ptxas.check_program(prog)
    (name, r), = [(n, r) for n, r in reports.items() if r.shared]
    assert r.shared == 2 * (16 * 20 + 16 * 20) * 4 and r.registers <= 64 and not r.problems, r
    launch, = [l for l in prog.launches if l.kernel == name]
    assert (launch.grid, launch.block) == ((6, 4, 1), (256, 1, 1))


@needs_ptxas
def test_fma_contraction_option():
    text = f"""
func.func @f(%x: {_t([4096])}, %y: {_t([4096])}, %z: {_t([4096])}) -> {_t([4096])} {{
  %m = mindir.mul %x, %y : ({_t([4096])}, {_t([4096])}) -> {_t([4096])}
  %r = mindir.add %m, %z : ({_t([4096])}, {_t([4096])}) -> {_t([4096])}
  return %r : {_t([4096])}
}}"""
    on = "".join(compile_gpu(text).ptx.values())
    off = "".join(compile_gpu(text, fma=False).ptx.values())
    assert "fma.rn.f32" in on and "mul.rn.f32" not in on
    assert "fma.rn.f32" not in off and "mul.rn.f32" in off and "add.rn.f32" in off
    for prog_ptx in (on, off):
        cubin, _, _ = ptxas.assemble(prog_ptx, "sm_90")
        assert cubin[:4] == b"\x7fELF"


SOFTMAX = f"""
func.func @f(%x: {_t([64, 300])}) -> {_t([64, 300])} {{
  %r = "mindir.softmax"(%x) {{axis = -1 : i64}} : ({_t([64, 300])}) -> {_t([64, 300])}
  return %r : {_t([64, 300])}
}}"""


@needs_ptxas
@pytest.mark.parametrize("threads,shuffles", [(256, 5), (64, 5), (16, 0)])
def test_block_reductions_end_in_warp_shuffles(threads, shuffles):
    prog = compile_gpu(SOFTMAX, threads=threads)
    reports = ptxas.check_program(prog)
    reductions = [n for n, r in reports.items() if r.shared]
    assert len(reductions) == 2            # row max, row sum
    for n in reductions:
        assert len(re.findall(r"shfl\.sync\.down\.b32", prog.ptx[n])) == shuffles
        assert not reports[n].problems
    # the CPU form (the shared-memory tree the shuffles replace) still matches numpy
    x = rng.standard_normal((64, 300)).astype(np.float32)
    out = run_mapped_on_cpu(SOFTMAX, threads=threads).call("f", x)[0]
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
