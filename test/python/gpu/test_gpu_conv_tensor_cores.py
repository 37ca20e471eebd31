"""Half-precision convolutions on the tensor cores (passes/gpu/conv.py): the
f16 convolution widened to f32 accumulation, rewritten by upstream's im2col
into a gather and a batched contraction, the gather fused into the
contraction by upstream's elementwise fusion (an implicit GEMM: no im2col
buffer; the load phase gathers the input windows straight into shared
memory), which passes/gpu/mma.py tiles for mma.sync. The CPU runs the mapped loop nest (the MMA tiles with the per-lane
fragment reads of ldmatrix) against numpy; ptxas checks the nvgpu form for
sm_90 and sm_80. Nothing here ran on a GPU."""
import re

import numpy as np
import pytest

from msmlir.gpu import compile_gpu, ptxas, run_mapped_on_cpu
from support.ptx import mma_kernels

rng = np.random.default_rng(1313)
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason="no ptxas")


def _t(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _out(size, k, stride, pad, dil):
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def _conv(N, C, H, W, F, KH, KW, stride=1, pad=0, dil=1, dt="f16"):
    OH, OW = _out(H, KH, stride, pad, dil), _out(W, KW, stride, pad, dil)
    attrs = []
    if stride != 1:
        attrs.append(f"stride = array<i64: {stride}, {stride}>")
    if dil != 1:
        attrs.append(f"dilation = array<i64: {dil}, {dil}>")
    if pad:
        attrs += ["pad_mode = #mindir.pad_mode<pad>", f"pad = array<i64: {pad}, {pad}, {pad}, {pad}>"]
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    x, w, o = _t([N, C, H, W], dt), _t([F, C, KH, KW], dt), _t([N, F, OH, OW], dt)
    return f"""
func.func @conv(%x: {x}, %w: {w}) -> {o} {{
  %r = mindir.conv2d %x, %w{attr} : ({x}, {w}) -> {o}
  return %r : {o}
}}"""


def _ref(x, w, stride, pad, dil):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    w = w.astype(np.float64)
    F, C, KH, KW = w.shape
    OH = (x.shape[2] - dil * (KH - 1) - 1) // stride + 1
    OW = (x.shape[3] - dil * (KW - 1) - 1) // stride + 1
    out = np.zeros((x.shape[0], F, OH, OW))
    for kh in range(KH):
        for kw in range(KW):
            win = x[:, :, kh * dil: kh * dil + stride * (OH - 1) + 1: stride,
                    kw * dil: kw * dil + stride * (OW - 1) + 1: stride]
            out += np.einsum("nchw,fc->nfhw", win, w[:, :, kh, kw])
    return out


CASES = [
    # N, C, H, W, F, KH, KW, stride, pad, dilation
    (8, 16, 34, 34, 32, 3, 3, 1, 0, 1),      # whole tiles: M = 32, N = 1024, K = 144
    (2, 8, 19, 17, 24, 3, 3, 2, 1, 1),       # strided, padded, partial tiles on M, N and K
    (3, 4, 20, 20, 20, 5, 5, 1, 0, 1),       # 5x5, K = 100
]


def _mma_mapped(text) -> str:
    return str(compile_gpu(text, stop_after="mapped").module)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_f16_conv_mma_tiles_on_cpu_match_numpy(case):
    N, C, H, W, F, KH, KW, s, p, d = case
    text = _conv(*case)
    mapped = _mma_mapped(text)
    # no im2col buffer [N, C*KH*KW, OH*OW]: the B tile gathered from the input
    # (index arithmetic of the output pixel and k); the MMA tiles' accumulators
    OH, OW = _out(H, KH, s, p, d), _out(W, KW, s, p, d)
    assert f"x{C * KH * KW}x{OH * OW}xf16>" not in mapped
    assert f"floordiv {KH * KW}" in mapped
    assert re.search(r"\{msmlir.gpu_local\} : memref<(128|256)x\d+x\d+x4xf32>", mapped)
    x = rng.standard_normal((N, C, H, W)).astype(np.float16)
    w = rng.standard_normal((F, C, KH, KW)).astype(np.float16)
    out = run_mapped_on_cpu(text).call("conv", x, w)[0]
    want = _ref(x, w, s, p, d)
    assert out.dtype == np.float16 and out.shape == want.shape
    # f32 accumulation, one rounding to f16 at the end: within one f16 ulp
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2 ** -10,
                               atol=2 ** -14 * np.abs(want).max())


@pytest.mark.parametrize("why,text,opts", [
    ("f32", _conv(2, 16, 18, 18, 32, 3, 3, dt="f32"), {}),
    ("tensor-cores off", _conv(2, 16, 18, 18, 32, 3, 3), {"tensor_cores": False}),
    ("6 filters (LeNet's first layer): M < 16", _conv(2, 1, 32, 32, 6, 5, 5), {}),
    ("dilated: upstream's im2col takes no dilation", _conv(2, 16, 18, 18, 32, 3, 3, dil=2), {}),
    ("sm_75: no mma.sync", _conv(2, 16, 18, 18, 32, 3, 3), {"chip": "sm_75",
                                                             "features": "+ptx70"}),
])
def test_convs_that_stay_direct(why, text, opts):
    mapped = str(compile_gpu(text, stop_after="mapped", **opts).module)
    assert "x4xf32>" not in mapped and "linalg" not in mapped, why
    assert not re.search(r"memref<\d+x\d+x\d+xf(16|32)> *$", mapped, re.M)    # no im2col buffer



@needs_ptxas
@pytest.mark.parametrize("chip,features", [("sm_90", "+ptx80"), ("sm_80", "+ptx70")])
def test_f16_conv_mma_ptxas(chip, features):
    prog = compile_gpu(_conv(*CASES[0]), chip=chip, features=features)
    (name, r, ptx), = mma_kernels(prog, chip)
    # 64x64 tiles (M = 32 filters: one tile row), 4 warps of 32x32 (2x4 fragments),
    # K steps of 32 (two k16 slices): 16 mma.sync per step
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32", ptx)) == 16
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx)) == 4
    # im2col's columns (output pixels contiguous) stay k-major: ldmatrix .trans
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16", ptx)) == 8
    # two stages: filter 2 x 64 x (32 + 8), columns 2 x 32 x (64 + 8) f16
    assert r.shared == 2 * 64 * 40 * 2 + 2 * 32 * 72 * 2 and r.registers <= 168, r
    assert not r.spills and r.stack == 0, r
    # the filter tile by cp.async (2 chunks a thread, prologue and K loop); the
    # input windows gathered element by element into the column tile (the
    # implicit GEMM: 16 elements a thread per K step, prologue and K loop)
    assert ptx.count("cp.async.cg.shared.global") == 4
    assert ptx.count("ld.global.b16") == 32 and ptx.count("st.shared.b16") == 32
    # in the K loop the gathered values are loaded before the step's mma.sync and
    # stored to the other stage after them (held in registers meanwhile)
    loop = ptx[ptx.index('"nounroll"'):]
    steps = re.findall(r"ld\.global\.b16|cp\.async\.wait_group|bar\.sync|mma\.sync|st\.shared\.b16",
                       loop)
    kinds = [k for i, k in enumerate(steps) if i == 0 or steps[i - 1] != k]
    assert kinds[:6] == ["ld.global.b16", "cp.async.wait_group", "bar.sync", "mma.sync",
                         "st.shared.b16", "bar.sync"], kinds
    launch, = [l for l in prog.launches if l.kernel == name]
    assert (launch.grid, launch.block) == ((16, 8, 1), (128, 1, 1))   # 16 tiles of OH*OW x 8 images
    # the accumulator's fill and the truncation back are plain kernels; no gather
    assert len(prog.launches) == 3


def test_bf16_conv_mma_tiles_on_cpu_match_numpy():
    """bf16 inputs cast in the graph (host arrays stay f32): the same im2col +
    MMA tiles (nvvm.mma.sync bf16 on the GPU), against numpy on the rounded
    inputs."""
    import ml_dtypes
    x, w, o = [2, 16, 18, 18], [32, 16, 3, 3], [2, 32, 16, 16]
    text = f"""
func.func @conv(%x: {_t(x, 'f32')}, %w: {_t(w, 'f32')}) -> {_t(o, 'f32')} {{
  %xc = mindir.cast %x : {_t(x, 'f32')} to {_t(x, 'bf16')}
  %wc = mindir.cast %w : {_t(w, 'f32')} to {_t(w, 'bf16')}
  %r = mindir.conv2d %xc, %wc : ({_t(x, 'bf16')}, {_t(w, 'bf16')}) -> {_t(o, 'bf16')}
  %oc = mindir.cast %r : {_t(o, 'bf16')} to {_t(o, 'f32')}
  return %oc : {_t(o, 'f32')}
}}"""
    mapped = str(compile_gpu(text, stop_after="mapped").module)
    assert re.search(r"\{msmlir.gpu_local\} : memref<(128|256)x\d+x\d+x4xf32>", mapped)
    X = rng.standard_normal(x).astype(np.float32)
    W = rng.standard_normal(w).astype(np.float32)
    out = run_mapped_on_cpu(text).call("conv", X, W)[0]
    bf = ml_dtypes.bfloat16
    want = _ref(X.astype(bf), W.astype(bf), 1, 0, 1)
    # f32 accumulation, the result rounded once to bf16
    np.testing.assert_allclose(out, want, rtol=2 ** -7, atol=2 ** -12 * np.abs(want).max())
