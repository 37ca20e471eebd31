"""Load3D (LoadData with LoadData3DParamsV2: img2col from a 5HD feature map
in L1), InitConstValue and multi-matrix Nd2Nz on the Ascend C emulator:
hand-written kernels checked against numpy's img2col, and each rule the
emulator enforces (L1 source, L0A/L0B destination, channels padded to C0,
K/M ranges, unemulated modes) an error naming the kernel and the call."""
import numpy as np
import pytest

from msmlir.ascend.emulator import AscendEmulationError, EmulatedKernel, build

pytestmark = pytest.mark.slow

RNG = np.random.default_rng(14)
TILING = ("struct T { uint32_t dummy; };\n"
          "#define GET_TILING_DATA(var, ptr) T var; std::memcpy(&var, (ptr), sizeof(var))\n")


def img2col(fm, KH, KW, stride, dil, pads, c0):
    """X[m, k] of a [C, H, W] map: m = ho * Wo + wo, k = ((c1 * KH + kh) * KW + kw) * C0 + c0,
    zero padding (left, right, top, bottom); C padded to a multiple of c0."""
    C, H, W = fm.shape
    Cp = -(-C // c0) * c0
    x = np.zeros((Cp, H + pads[2] + pads[3], W + pads[0] + pads[1]), fm.dtype)
    x[:C, pads[2]:pads[2] + H, pads[0]:pads[0] + W] = fm
    Ho = (x.shape[1] - (KH - 1) * dil[0] - 1) // stride[0] + 1
    Wo = (x.shape[2] - (KW - 1) * dil[1] - 1) // stride[1] + 1
    X = np.zeros((Ho * Wo, Cp * KH * KW), fm.dtype)
    for c1 in range(Cp // c0):
        for kh in range(KH):
            for kw in range(KW):
                k0 = ((c1 * KH + kh) * KW + kw) * c0
                win = x[c1 * c0:(c1 + 1) * c0, kh * dil[0]:kh * dil[0] + stride[0] * (Ho - 1) + 1:stride[0],
                        kw * dil[1]:kw * dil[1] + stride[1] * (Wo - 1) + 1:stride[1]]
                X[:, k0:k0 + c0] = win.reshape(c0, -1).T
    return X


def _kernel(name, T, C, H, W, KH, KW, stride, dil, pads, mstart, mext, kstart, kext, O, *, dst="A2",
            channel_size=None, fm_pos="B1", extra=""):
    """A kernel that loads fm [H, W, C] (GM, pixel-major) into L1 as 5HD (Nd2Nz per channel block,
    padded channels zeroed by InitConstValue), forms the img2col slice by Load3D into L0A
    (dst A2: C[m, o] = X @ W^T, W [O, kext] zZ in L0B) or L0B (dst B2: C[o, m] = W @ X^T),
    and writes C (f32) to GM."""
    c0 = 32 // (2 if T == "half" else 4)
    C1 = -(-C // c0)
    cs = channel_size if channel_size is not None else C1 * c0
    pix = H * W
    m, n = (mext, O) if dst == "A2" else (O, mext)
    w_pos = "B2" if dst == "A2" else "A2"
    w_rows, w_cols = (kext, O) if dst == "A2" else (O, kext)      # W's matrix as the other operand
    m16 = -(-m // 16) * 16
    l1 = fm_pos in ("A1", "B1")
    return f"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void {name}(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {{
  GET_TILING_DATA(td, tiling);
  TPipe pipe;
  TBuf<TPosition::{fm_pos}> fmBuf;
  TBuf<TPosition::A1> wL1;
  TBuf<TPosition::{dst}> colBuf;
  TBuf<TPosition::{w_pos}> wBuf;
  TBuf<TPosition::CO1> cBuf;
  GlobalTensor<{T}> fmGm, wGm;
  GlobalTensor<float> yGm;
  fmGm.SetGlobalBuffer((__gm__ {T}*)x0, {C * pix});
  wGm.SetGlobalBuffer((__gm__ {T}*)x1, {w_rows * w_cols});
  yGm.SetGlobalBuffer((__gm__ float*)y0, {m * n});
  pipe.InitBuffer(fmBuf, {(C1 * pix + 16) * c0} * sizeof({T}));
  pipe.InitBuffer(wL1, {(-(-w_rows // 16) * 16) * (-(-w_cols // c0) * c0)} * sizeof({T}));
  pipe.InitBuffer(colBuf, 32768);
  pipe.InitBuffer(wBuf, 32768);
  pipe.InitBuffer(cBuf, 65536);
  LocalTensor<{T}> fm = fmBuf.Get<{T}>(), wl1 = wL1.Get<{T}>(), col = colBuf.Get<{T}>(), w = wBuf.Get<{T}>();
  LocalTensor<float> c = cBuf.Get<float>();
  {"InitConstValue(fm[" + str((C1 - 1) * pix * c0) + "], InitConstValueParams<" + T + ">{1, " + str(pix) + ", 0, (" + T + ")0});" if C % c0 and l1 else ""}
  for (uint32_t c1 = 0; c1 < {C1 if l1 else 0}; ++c1) {{      // HWC -> 5HD: the pixels are Nd2Nz rows
    uint32_t cw = {C} - c1 * {c0} < {c0} ? {C} - c1 * {c0} : {c0};
    DataCopy(fm[c1 * {pix * c0}], fmGm[c1 * {c0}], Nd2NzParams{{1, {pix}, (uint16_t)cw, 0, {C}, {-(-pix // 16) * 16}, 1, 0}});
  }}
  {extra}
  const uint8_t pad[4] = {{{pads[0]}, {pads[1]}, {pads[2]}, {pads[3]}}};
  LoadData(col, fm, LoadData3DParamsV2<{T}>(pad, {H}, {W}, {cs}, {kext}, {mext}, {kstart}, {mstart}, {stride[1]}, {stride[0]},
                                          {KW}, {KH}, {dil[1]}, {dil[0]}, false, false, ({T})0));
  // the other operand: GM ND [{w_rows}, {w_cols}] -> L1 NZ -> zZ, one fractal row at a time
  DataCopy(wl1, wGm, Nd2NzParams{{1, {w_rows}, {w_cols}, 0, {w_cols}, {-(-w_rows // 16) * 16}, 1, 0}});
  for (uint32_t i = 0; i < {-(-w_rows // 16)}; ++i)
    LoadData(w[i * {-(-w_cols // c0)} * {16 * c0}], wl1, LoadData2DParams{{(uint16_t)i, {-(-w_cols // c0)}, {-(-w_rows // 16)}, 0, 0, false, 0}});
  MmadParams mp{{{m}, {n}, {kext}, false, 0, false, false, false}};
  {"Mmad(c, col, w, mp);" if dst == "A2" else "Mmad(c, w, col, mp);"}
  Fixpipe(yGm, c, FixpipeParamsV220{{{n}, {m}, {m16}, {n}, true}});
}}
"""


def _run(name, src, ins, out_shape, in_dtype):
    k = EmulatedKernel(name, build(name, src, TILING, 5), [a.shape for a in ins], [out_shape], [0], 1,
                       [in_dtype] * 2, ["float32"])
    return k.run(*ins)[0], k.last_stats


CASES = {  # name: (T, C, H, W, KH, KW, stride, dilation, pads (l, r, t, b), mstart, mext, kstart, kext, O)
    "f32_whole": ("float", 3, 7, 6, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 0, 42, 0, 72, 5),
    "f32_slice_strided_dilated": ("float", 11, 9, 10, 2, 3, (2, 1), (2, 2), (0, 2, 1, 0), 5, 21, 16, 48, 4),
    "f16_whole_padded_channels": ("half", 5, 6, 7, 3, 2, (1, 2), (1, 1), (2, 0, 0, 1), 0, 20, 0, 96, 3),
    "f16_two_channel_blocks": ("half", 20, 5, 5, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0), 3, 19, 16, 16, 6),
}


@pytest.mark.parametrize("dst", ["A2", "B2"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_load3d_is_img2col(name, dst):
    """Load3D into L0A (the img2col as A: X @ W^T) and into L0B (as B, the
    img2col transposed: W @ X^T -- the cube reduces over the channel axis of
    both) equal numpy's img2col product; padded channels read as zeros."""
    T, C, H, W, KH, KW, stride, dil, pads, ms, me, ks, ke, O = CASES[name]
    dt = np.float16 if T == "half" else np.float32
    fm = RNG.standard_normal((C, H, W)).astype(dt)
    c0 = 16 if T == "half" else 8
    X = img2col(fm, KH, KW, stride, dil, pads, c0)[ms:ms + me, ks:ks + ke].astype(np.float64)
    w = RNG.standard_normal((ke, O) if dst == "A2" else (O, ke)).astype(dt)
    src = _kernel(f"l3d_{name}_{dst}", T, C, H, W, KH, KW, stride, dil, pads, ms, me, ks, ke, O, dst=dst)
    y, stats = _run(f"l3d_{name}_{dst}", src, [np.ascontiguousarray(fm.transpose(1, 2, 0)), w], (me, O) if dst == "A2" else (O, me), dt.__name__)
    ref = X @ w.astype(np.float64) if dst == "A2" else w.astype(np.float64) @ X.T
    np.testing.assert_allclose(y, ref, rtol=1e-5 if T == "float" else 2e-3, atol=1e-5 if T == "float" else 2e-2)
    assert stats["mmad_macs"] == me * ke * O


NEG = {  # what is planted -> (kernel arguments, the error's words)
    "channels_not_padded": (dict(channel_size=12), "channelSize 12 must be a non-zero multiple of C0 = 8"),
    "source_not_l1": (dict(fm_pos="VECCALC"), "the feature map must be in L1"),
    "destination_not_l0": (dict(dst="VECCALC"), "destination must be L0A or L0B"),
    "m_range": (dict(mext=43), "m range [0, 43) beyond the 7 x 6 output positions"),
    "k_unaligned": (dict(kstart=4), "kStartPt and kExtension must be multiples of C0 = 8"),
    "k_range": (dict(kext=80), "k range [0, 80) beyond channelSize * filterH * filterW = 72"),
    "init_const_in_ub": (dict(extra="TBuf<TPosition::VECCALC> ub; pipe.InitBuffer(ub, 64); "
                                    "InitConstValue(ub.Get<float>(), InitConstValueParams<float>{1, 1, 0, 0.f});"),
                         "InitConstValue: destination must be L1 (A1/B1), L0A or L0B"),
    "nd2nz_matrix_stride": (dict(extra="DataCopy(wl1, wGm, Nd2NzParams{2, 2, 2, 2, 2, 16, 1, 3});"),
                            "dstNzMatrixStride 3 elements is not 32-byte aligned"),
}


@pytest.mark.parametrize("what", sorted(NEG))
def test_load3d_rules_are_errors(what):
    kw, words = NEG[what]
    args = dict(T="float", C=3, H=7, W=6, KH=3, KW=3, stride=(1, 1), dil=(1, 1), pads=(1, 1, 1, 1), mstart=0,
                mext=42, kstart=0, kext=72, O=5)
    args.update({k: v for k, v in kw.items() if k in args})
    rest = {k: v for k, v in kw.items() if k not in args}
    name = f"l3d_bad_{what}"
    src = _kernel(name, **args, **rest)
    fm = RNG.standard_normal((7, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((args["kext"], 5)).astype(np.float32)
    with pytest.raises(AscendEmulationError) as e:
        _run(name, src, [fm, w], (args["mext"], 5), "float32")
    assert name in str(e.value) and words in str(e.value), str(e.value)
