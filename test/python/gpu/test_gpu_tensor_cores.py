"""Tensor cores on the GPU target (passes/gpu/mma.py): f16 contractions
(f32 accumulation) tiled per warp for mma.sync m16n8k16 with ldmatrix from
shared memory; f32 ones as TF32 (m16n8k8) only with tf32=True. The CPU runs
the same tiles (shared layout, zero padding, the accumulator elements each
lane owns, the ldmatrix row addresses) as the mapped loop nest, checked
against numpy; ptxas checks the nvgpu form for sm_90 and sm_80."""
import json
import re

import numpy as np
import pytest

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from support.ptx import mma_kernels
from msmlir.passes.gpu.mma import plan_mma

rng = np.random.default_rng(130)
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


def _t(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _matmul(M, K, N, dt="f16", ta=False, tb=False, batch=None, bcast=False):
    a = [K, M] if ta else [M, K]
    b = [N, K] if tb else [K, N]
    out, op = [M, N], "matmul"
    if batch:
        a, b, out, op = [batch] + a, [1 if bcast else batch] + b, [batch] + out, "batch_matmul"
    text = f"""
func.func @f(%a: {_t(a, dt)}, %b: {_t(b, dt)}) -> {_t(out, dt)} {{
  %r = mindir.{op} %a, %b {{transpose_a = {str(ta).lower()}, transpose_b = {str(tb).lower()}}}
      : ({_t(a, dt)}, {_t(b, dt)}) -> {_t(out, dt)}
  return %r : {_t(out, dt)}
}}"""
    return text, a, b


def _ref(A, B, ta, tb):
    A, B = A.astype(np.float64), B.astype(np.float64)
    return np.matmul(np.swapaxes(A, -1, -2) if ta else A, np.swapaxes(B, -1, -2) if tb else B)


SHAPES = [
    # M, K, N, transpose_a, transpose_b, batch, broadcast b
    (37, 53, 29, False, False, None, False),     # partial tiles on M, N and K
    (130, 70, 150, False, True, None, False),    # x @ w^T
    (64, 100, 40, True, False, None, False),     # x^T @ dy
    (96, 40, 72, True, True, None, False),
    (256, 64, 256, False, False, None, False),   # whole 64x128 tiles of 2x4 warps
    (33, 24, 20, False, False, 3, False),        # batched
    (16, 35, 48, False, True, 4, True),          # batched, b broadcast over the batch
]


def _ids(s):
    return "x".join(map(str, s[:3])) + ("_ta" if s[3] else "") + ("_tb" if s[4] else "") + \
        (f"_b{s[5]}" if s[5] else "") + ("_bc" if s[6] else "")


@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
def test_f16_mma_tiles_on_cpu_match_numpy(shape):
    M, K, N, ta, tb, batch, bcast = shape
    text, a, b = _matmul(M, K, N, "f16", ta, tb, batch, bcast)
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    # the MMA tiles: f16 rows padded by 16 bytes, the per-lane accumulators
    assert re.search(r"memref<\d+x40xf16> *$", mapped, re.M) or "x40xf16>" in mapped
    assert re.search(r"memref<(128|256)x\d+x\d+x4xf32>", mapped), mapped[:3000]
    A = rng.standard_normal(a).astype(np.float16)
    B = rng.standard_normal(b).astype(np.float16)
    out = run_mapped_on_cpu(text).call("f", A, B)[0]
    want = _ref(A, B, ta, tb)
    assert out.dtype == np.float16 and out.shape == want.shape
    # f32 accumulation, one rounding to f16 at the end: within one f16 ulp
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2 ** -10,
                               atol=2 ** -14 * np.abs(want).max())


def test_tf32_is_opt_in():
    text, a, b = _matmul(96, 40, 72, "f32", tb=True)
    plain = str(compile_gpu(text, stop_after="mapped").module)
    tf32 = str(compile_gpu(text, stop_after="mapped", tf32=True).module)
    # FMA tiles: a [T, RM, RN] register tile (the MMA form's is [T, FM, FN, 4])
    assert re.search(r"gpu_local\} : memref<\d+x\d+x\d+xf32>", plain)
    assert not re.search(r"gpu_local\} : memref<\d+x\d+x\d+x4xf32>", plain)
    assert re.search(r"memref<2x\d+x20xf32>", tf32) and re.search(r"x4xf32>", tf32)
    A = rng.standard_normal(a).astype(np.float32)
    B = rng.standard_normal(b).astype(np.float32)
    # the CPU form sums the f32 inputs unrounded (the hardware rounds them to TF32)
    out = run_mapped_on_cpu(text, tf32=True).call("f", A, B)[0]
    want = _ref(A, B, False, True)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_tensor_cores_off_keeps_fma_tiles():
    text, _, _ = _matmul(128, 64, 128)
    off = str(compile_gpu(text, stop_after="mapped", tensor_cores=False).module)
    assert not re.search(r"x4xf32>", off) and "msmlir.gpu_local" in off


def test_plan_mma():
    assert plan_mma(1024, 1024) == (64, 128, 2, 4)      # 128 blocks of 8 warps
    assert plan_mma(4096, 4096) == (128, 128, 2, 4)
    assert plan_mma(64, 84) == (32, 32, 2, 2)           # small: the smallest tiles
    for M, N in [(16, 16), (300, 70), (2048, 512)]:
        TM, TN, wgm, wgn = plan_mma(M, N)
        assert TM % (16 * wgm) == 0 and TN % (8 * wgn) == 0



@needs_ptxas
@pytest.mark.parametrize("chip,features", [("sm_90", "+ptx80"), ("sm_80", "+ptx70")])
def test_f16_mma_ptxas(chip, features):
    text, _, _ = _matmul(1024, 1024, 1024)
    prog = compile_gpu(text, chip=chip, features=features)
    (name, r, ptx), = mma_kernels(prog, chip)
    # 64x128 tiles, 8 warps of 32x32 (2x4 fragments), K steps of 32 (two k16 slices)
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32", ptx)) == 16
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx)) == 4
    # B (n contiguous) stays k-major in shared memory: ldmatrix .trans
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16", ptx)) == 8
    # two stages: A 2 x 64 x (32 + 8) f16, B 2 x 32 x (128 + 8) f16
    assert re.search(r"\.shared \.align 16 \.b8 \S+\[10240\]", ptx)
    assert re.search(r"\.shared \.align 16 \.b8 \S+\[17408\]", ptx)
    assert r.shared == 27648 and r.registers <= 168, r
    # both tiles by cp.async, 16-byte chunks: A one a thread, B two, in the
    # prologue and per K step; no element loads left for the tiles
    assert ptx.count("cp.async.cg.shared.global") == 6 and "ld.global.b16" not in ptx
    assert ptx.count("cp.async.commit_group") == 2
    assert len(re.findall(r"cp\.async\.wait_group\s+1;", ptx)) == 2
    launch, = [l for l in prog.launches if l.kernel == name]
    assert (launch.grid, launch.block) == ((8, 16, 1), (256, 1, 1))


@needs_ptxas
def test_tf32_mma_ptxas():
    text, _, _ = _matmul(1024, 1024, 1024, "f32")
    assert not any("mma.sync" in p for p in compile_gpu(text).ptx.values())
    prog = compile_gpu(text, tf32=True)
    (name, r, ptx), = mma_kernels(prog, "sm_90")
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32", ptx)) == 16
    assert "ldmatrix" not in ptx and r.shared == 2 * (64 + 128) * 20 * 4


@needs_ptxas
def test_no_tensor_cores_before_sm_80():
    text, _, _ = _matmul(256, 64, 256)
    prog = compile_gpu(text, chip="sm_75", features="+ptx70")
    assert not any("mma.sync" in p for p in prog.ptx.values())
    ptxas.check_program(prog)


@needs_ptxas
def test_export_keeps_working_withmma_kernels(tmp_path):
    from msmlir.gpu import export_cubin
    text, _, _ = _matmul(130, 70, 150, tb=True)
    manifest = json.loads(open(export_cubin(text, str(tmp_path))).read())
    fn = manifest["functions"]["f"]
    assert [b["dtype"] for b in fn["buffers"] if b["kind"] in ("input", "output")] == \
        ["float16"] * 3
    mods = [m for m in manifest["modules"].values() if m["shared_static"]]
    assert len(mods) == 1 and mods[0]["registers"] and mods[0]["spill_bytes"] == 0
    launches = [s for s in fn["steps"] if s["op"] == "launch"]
    assert any(s["block"] == [128, 1, 1] for s in launches)
    assert (tmp_path / "runner.py").exists()


def _bf16_matmul(M, K, N):
    """bf16 inputs cast in the graph (host arrays stay f32), the f32 result."""
    return f"""
func.func @f(%a: {_t([M, K], "f32")}, %b: {_t([K, N], "f32")}) -> {_t([M, N], "f32")} {{
  %ac = mindir.cast %a : {_t([M, K], "f32")} to {_t([M, K], "bf16")}
  %bc = mindir.cast %b : {_t([K, N], "f32")} to {_t([K, N], "bf16")}
  %r = mindir.matmul %ac, %bc : ({_t([M, K], "bf16")}, {_t([K, N], "bf16")}) -> {_t([M, N], "bf16")}
  %o = mindir.cast %r : {_t([M, N], "bf16")} to {_t([M, N], "f32")}
  return %o : {_t([M, N], "f32")}
}}"""


def test_bf16_mma_tiles_on_cpu_match_numpy():
    import ml_dtypes
    text = _bf16_matmul(70, 45, 90)
    assert "x40xbf16>" in str(compile_gpu(text, stop_after="mapped").module)
    A = rng.standard_normal((70, 45)).astype(np.float32)
    B = rng.standard_normal((45, 90)).astype(np.float32)
    out = run_mapped_on_cpu(text).call("f", A, B)[0]
    bf = ml_dtypes.bfloat16
    want = A.astype(bf).astype(np.float64) @ B.astype(bf).astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=2 ** -7, atol=2 ** -12 * np.abs(want).max())


@needs_ptxas
def test_bf16_mma_ptxas():
    prog = compile_gpu(_bf16_matmul(1024, 1024, 1024))
    (name, r, ptx), = mma_kernels(prog, "sm_90")
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32", ptx)) == 16
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx)) == 4
    assert r.shared == 27648 and r.registers <= 168, r


MMA_ACC = r"gpu_local\} : memref<\d+x\d+x\d+x4xf32>"     # the MMA tiles' accumulators


def test_tf32_from_the_context():
    """MindSpore's set_context(gpu_config={"matmul_allow_tf32": True}) turns TF32 on."""
    import msmlir as ms
    from msmlir.common.context import _reset_context
    text, _, _ = _matmul(96, 40, 72, "f32")
    try:
        ms.set_context(gpu_config={"matmul_allow_tf32": True})
        assert re.search(MMA_ACC, str(compile_gpu(text, stop_after="mapped").module))
        with pytest.raises(TypeError, match="'gpu_config' must be a dict"):
            ms.set_context(gpu_config="tf32")
    finally:
        _reset_context()
    assert not re.search(MMA_ACC, str(compile_gpu(text, stop_after="mapped").module))
