"""f16 on the vector path (half in GM and in the queues, Cast to f32 in UB,
every f16 op rounded back to f16), the AMP pattern f16 matmul + f32 epilogue
without a scalar kernel; average pooling and its gradient, padded max pooling
and the general (overlapping / padded) max-pool gradient on the vector path
(Gather tables): numerics of the emitted Ascend C on the emulator vs numpy,
tails that are not multiples of 32 bytes included."""
import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(14)


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def _no_scalar(prog):
    for k in prog.kernels.values():
        for p in [k] + k.parts:
            assert p.report["bound"] != "scalar fallback", (p.name, p.report.get("fallback_reason"))
            assert "SCALAR FALLBACK" not in p.source


# ----------------------------------------------------------------------------- f16 vector kernels
@pytest.mark.parametrize("M,K,N", [(33, 50, 17), (64, 96, 48)])
def test_amp_f16_matmul_with_f32_epilogue(M, K, N):
    """matmul(f16, f16) -> f16, cast to f32, bias, relu: a cube kernel (f16
    operands, f32 accumulation) then a vector epilogue rounding the product to
    f16 (Cast f32 -> half -> f32) before the f32 bias and relu."""
    text = f"""func.func @h(%a: {_t((M, K), 'f16')}, %b: {_t((K, N), 'f16')}, %bias: {_t((N,))}) -> {_t((M, N))} {{
  %m = mindir.matmul %a, %b : ({_t((M, K), 'f16')}, {_t((K, N), 'f16')}) -> {_t((M, N), 'f16')}
  %c = mindir.cast %m : {_t((M, N), 'f16')} to {_t((M, N))}
  %z = mindir.bias_add %c, %bias : ({_t((M, N))}, {_t((N,))}) -> {_t((M, N))}
  %r = mindir.relu %z : {_t((M, N))}
  return %r : {_t((M, N))}
}}"""
    prog = A.compile(text, fallback=False)
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    bias = RNG.standard_normal(N).astype(np.float32)
    (y,) = prog.call("h", a, b, bias)
    mm = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16).astype(np.float32)
    # f32 accumulation rounded once to f16: at most one f16 ulp away from the exact product's rounding
    np.testing.assert_allclose(y, np.maximum(mm + bias, 0), rtol=2e-3, atol=2e-3)
    _no_scalar(prog)
    k = next(iter(prog.kernels.values()))
    names = [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
    assert names == ["mm", "ep"] and k.plan.parts[0][0].cube["dtype"] == "f16"
    ep = k.parts[1].source
    assert "Cast(rnd, in3, RoundMode::CAST_RINT, cntF);" in ep and "Cast(tF0, rnd, RoundMode::CAST_NONE, cntF);" in ep


@pytest.mark.parametrize("shape", [(33, 17), (4, 64), (3, 5, 7)])
def test_f16_elementwise_is_rounded_like_numpy(shape):
    """f32 -> f16 cast, f16 mul and add, an f16 result: each f16 op computed in
    f32 and rounded to f16 (for + - * exactly what half arithmetic gives)."""
    x, h = _t(shape), _t(shape, "f16")
    text = f"""func.func @g(%a: {x}, %b: {h}) -> {h} {{
  %c = mindir.cast %a : {x} to {h}
  %d = mindir.mul %c, %b : ({h}, {h}) -> {h}
  %e = mindir.add %d, %c : ({h}, {h}) -> {h}
  return %e : {h}
}}
func.func @w(%b: {h}) -> {x} {{
  %c = mindir.cast %b : {h} to {x}
  %e = mindir.exp %c : {x}
  return %e : {x}
}}"""
    prog = A.compile(text, fallback=False)
    a = (RNG.standard_normal(shape) * 10).astype(np.float32)
    b = RNG.standard_normal(shape).astype(np.float16)
    (e,) = prog.call("g", a, b)
    c = a.astype(np.float16)
    assert e.dtype == np.float16
    np.testing.assert_array_equal(e, c * b + c)
    (w,) = prog.call("w", b)
    np.testing.assert_allclose(w, np.exp(b.astype(np.float32)), rtol=1e-6)
    _no_scalar(prog)
    src = "\n".join(k.source for k in prog.kernels.values())
    assert "GlobalTensor<half>" in src and "Cast(rnd, " in src and "pitchH" in src


def test_f16_row_reduction_and_what_stays_scalar():
    text = f"""func.func @r(%x: {_t((5, 37), 'f16')}) -> {_t((5,), 'f16')} {{
  %m = mindir.reduce_max %x {{axes = array<i64: 1>}} : ({_t((5, 37), 'f16')}) -> {_t((5,), 'f16')}
  return %m : {_t((5,), 'f16')}
}}"""
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal((5, 37)).astype(np.float16)
    np.testing.assert_array_equal(prog.call("r", x)[0], x.max(1))
    pool = f"""func.func @p(%x: {_t((2, 3, 8, 8), 'f16')}) -> {_t((2, 3, 4, 4), 'f16')} {{
  %y = mindir.max_pool2d %x {{kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : ({_t((2, 3, 8, 8), 'f16')}) -> {_t((2, 3, 4, 4), 'f16')}
  return %y : {_t((2, 3, 4, 4), 'f16')}
}}"""
    # f16 pooling is on the vector path now (test_ascend_pool_f16_dilated.py), and so is an f16
    # convolution on the cube (test_ascend_conv_f16.py: f32 accumulation, one rounding)
    x4 = RNG.standard_normal((2, 3, 8, 8)).astype(np.float16)
    np.testing.assert_array_equal(A.compile(pool, fallback=False).call("p", x4)[0],
                                  x4.reshape(2, 3, 4, 2, 4, 2).max((3, 5)))
    conv = f"""func.func @c(%x: {_t((1, 2, 6, 6), 'f16')}, %w: {_t((3, 2, 3, 3), 'f16')}) -> {_t((1, 3, 4, 4), 'f16')} {{
  %y = mindir.conv2d %x, %w : ({_t((1, 2, 6, 6), 'f16')}, {_t((3, 2, 3, 3), 'f16')}) -> {_t((1, 3, 4, 4), 'f16')}
  return %y : {_t((1, 3, 4, 4), 'f16')}
}}"""
    xc = RNG.standard_normal((1, 2, 6, 6)).astype(np.float16)
    wc = RNG.standard_normal((3, 2, 3, 3)).astype(np.float16)
    ref = sum(np.einsum("nchw,oc->nohw", xc[:, :, i:i + 4, j:j + 4].astype(np.float64), wc[:, :, i, j])
              for i in range(3) for j in range(3))
    got = A.compile(conv, fallback=False).call("c", xc, wc)[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=1e-3, atol=2e-3)


# ----------------------------------------------------------------------------- pooling
def _windows(h, w, k, s, pads):
    oh, ow = (h + pads[0] + pads[1] - k[0]) // s[0] + 1, (w + pads[2] + pads[3] - k[1]) // s[1] + 1
    return oh, ow


def _slices(i, j, s, oh, ow):
    return slice(i, i + s[0] * (oh - 1) + 1, s[0]), slice(j, j + s[1] * (ow - 1) + 1, s[1])


def avg_refs(x, dy, k, s, pads):
    n, c, h, w = x.shape
    oh, ow = _windows(h, w, k, s, pads)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    ones = np.pad(np.ones((h, w)), (pads[:2], pads[2:]))
    y, cnt = np.zeros((n, c, oh, ow)), np.zeros((oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            si, sj = _slices(i, j, s, oh, ow)
            y += xp[:, :, si, sj]
            cnt += ones[si, sj]
    cnt = np.maximum(cnt, 1)
    dxp = np.zeros(xp.shape)
    for i in range(k[0]):
        for j in range(k[1]):
            si, sj = _slices(i, j, s, oh, ow)
            dxp[:, :, si, sj] += dy / cnt
    return y / cnt, dxp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


def max_refs(x, dy, k, s, pads):
    n, c, h, w = x.shape
    oh, ow = _windows(h, w, k, s, pads)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]), constant_values=-np.inf)
    y = np.zeros((n, c, oh, ow))
    dxp = np.zeros(xp.shape)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].reshape(n, c, -1)
            y[:, :, i, j] = win.max(-1)
            first = win.argmax(-1)                                  # the first (row-major) maximum
            for q in range(n):
                for r in range(c):
                    kh, kw = divmod(first[q, r], k[1])
                    dxp[q, r, i * s[0] + kh, j * s[1] + kw] += dy[q, r, i, j]
    return y, dxp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


POOLS = [  # x shape, window, stride, pads (top, bottom, left, right)
    ((2, 3, 9, 9), (3, 3), (2, 2), (0, 0, 0, 0)),        # overlapping
    ((4, 6, 28, 28), (2, 2), (2, 2), (0, 0, 0, 0)),      # LeNet's
    ((1, 3, 7, 6), (2, 2), (2, 2), (0, 0, 0, 0)),        # uncovered last row
    ((2, 2, 10, 11), (3, 3), (1, 1), (1, 1, 1, 1)),      # padded, stride 1
    ((2, 3, 9, 13), (3, 2), (2, 1), (1, 1, 0, 0)),       # padded rows only
    ((2, 3, 10, 10), (2, 2), (3, 3), (0, 0, 0, 0)),      # gapped windows
]


def _pool_text(xs, k, s, pads):
    n, c, h, w = xs
    ys = (n, c) + _windows(h, w, k, s, pads)
    pm = "" if not any(pads) else (f", pad_mode = #mindir.pad_mode<pad>, pad = array<i64: {pads[0]}, {pads[1]}, "
                                   f"{pads[2]}, {pads[3]}>")
    attrs = f"kernel_size = array<i64: {k[0]}, {k[1]}>, strides = array<i64: {s[0]}, {s[1]}>{pm}"
    return ys, f"""func.func @avg(%x: {_t(xs)}) -> {_t(ys)} {{
  %y = mindir.avg_pool2d %x {{{attrs}}} : ({_t(xs)}) -> {_t(ys)}
  return %y : {_t(ys)}
}}
func.func @avg_grad(%dy: {_t(ys)}) -> {_t(xs)} {{
  %d = mindir.avg_pool2d_grad %dy {{input_shape = array<i64: {n}, {c}, {h}, {w}>, {attrs}}} : ({_t(ys)}) -> {_t(xs)}
  return %d : {_t(xs)}
}}
func.func @max(%x: {_t(xs)}) -> {_t(ys)} {{
  %y = mindir.max_pool2d %x {{{attrs}}} : ({_t(xs)}) -> {_t(ys)}
  return %y : {_t(ys)}
}}
func.func @max_grad(%x: {_t(xs)}, %dy: {_t(ys)}) -> {_t(xs)} {{
  %d = mindir.max_pool2d_grad %x, %dy {{{attrs}}} : ({_t(xs)}, {_t(ys)}) -> {_t(xs)}
  return %d : {_t(xs)}
}}"""


@pytest.mark.parametrize("xs,k,s,pads", POOLS)
def test_avg_and_max_pooling_with_gradients_on_the_vector_path(xs, k, s, pads):
    ys, text = _pool_text(xs, k, s, pads)
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal(xs).astype(np.float32)
    x[0, 0, :3, :3] = 1.5                                   # ties: the first maximum gets the gradient
    dy = RNG.standard_normal(ys).astype(np.float32)
    y_ref, dx_ref = avg_refs(x, dy, k, s, pads)
    np.testing.assert_allclose(prog.call("avg", x)[0], y_ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(prog.call("avg_grad", dy)[0], dx_ref, rtol=1e-6, atol=1e-6)
    y_ref, dx_ref = max_refs(x, dy, k, s, pads)
    np.testing.assert_array_equal(prog.call("max", x)[0], y_ref)
    np.testing.assert_allclose(prog.call("max_grad", x, dy)[0], dx_ref, rtol=1e-6, atol=1e-6)
    _no_scalar(prog)
    for kern in prog.kernels.values():
        assert kern.plan.pool is not None and "Gather(" in kern.source and "GetValue" not in kern.source
        assert kern.report["measured"]["peak_ub"] <= 192 * 1024
    kinds = {kern.plan.pool["kind"] for kern in prog.kernels.values()}
    assert kinds == {"avg", "avg_grad", "max_grad", "max_padded" if any(pads) else "max"}
    mg = next(kk for kk in prog.kernels.values() if kk.plan.pool["kind"] == "max_grad")
    assert mg.plan.pool["general"] == (any(pads) or k != s)


def test_pool_table_rules_catch_a_planted_bug():
    """The avg-pool gradient's tables with the zero slot moved past the dout
    tile: the emulator's Gather bound check names the kernel."""
    ys, text = _pool_text((1, 2, 9, 9), (3, 3), (2, 2), (0, 0, 0, 0))
    prog = A.compile(text.split("func.func @max(")[0], fallback=False)
    k = next(kk for kk in prog.kernels.values() if kk.plan.pool["kind"] == "avg_grad")
    from msmlir.ascend.emulator import EmulatedKernel, build
    from msmlir.passes.ascend import emit
    p = k.plan
    bad = k.source.replace("uint32_t src = cnt;", "uint32_t src = cnt + 8;").replace(p.kernel, p.kernel + "_bad")
    assert bad != k.source
    lib = build(p.kernel + "_bad", bad, emit.emulator_tiling(p), 4)
    ek = EmulatedKernel(p.kernel + "_bad", lib, p.shapes["in"], p.shapes["out"],
                        list(emit.tiling_values(p).values()), emit.tiling_values(p)["blockDim"])
    with pytest.raises(A.AscendEmulationError, match=r"_bad: Gather: offset \d+ of element \d+ is outside"):
        ek.run(RNG.standard_normal(ys).astype(np.float32))


# ----------------------------------------------------------------------------- emulator: Cast to half
CAST = r"""
using namespace AscendC;
extern "C" __global__ __aicore__ void castk(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  TPipe pipe; TBuf<TPosition::VECCALC> a, b;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 64); yGm.SetGlobalBuffer((__gm__ float*)y, 64);
  pipe.InitBuffer(a, 256); pipe.InitBuffer(b, 128);
  LocalTensor<float> f = a.Get<float>();
  LocalTensor<half> h = b.Get<half>();
  DataCopy(f, xGm, 64);
  Cast(h, f, td.mode == 1 ? RoundMode::CAST_FLOOR : RoundMode::CAST_RINT, 64);
  Cast(f, h, RoundMode::CAST_NONE, 64);
  DataCopy(yGm, f, 64);
}
"""


@pytest.mark.parametrize("mode", [0, 1])
def test_cast_to_half_rounds_at_half_precision(mode):
    """f32 -> f16 rounds to nearest even at f16's precision (not to an
    integer); a directed rounding mode to a floating type is an error."""
    from msmlir.ascend.emulator import EmulatedKernel, build
    tiling = ("struct CastkTilingData { uint32_t mode; };\n"
              "#define GET_TILING_DATA(v, p) CastkTilingData v; std::memcpy(&v, (p), sizeof(v))\n")
    k = EmulatedKernel("castk", build("castk", CAST, tiling, 4), [(64,)], [(64,)], [mode], 1)
    x = (RNG.standard_normal(64) * 3).astype(np.float32)
    if mode == 0:
        np.testing.assert_array_equal(k.run(x)[0], x.astype(np.float16).astype(np.float32))
        return
    with pytest.raises(A.AscendEmulationError, match=r"castk: Cast: a cast to a floating type with a directed"):
        k.run(x)


def test_vector_built_tables_clamp_the_padding_lanes():
    """The forward tables are built by the vector unit (CreateVecIndex + f32
    arithmetic + Cast); without the clamp of the lanes past the tile's outputs
    (a planted bug) their offsets leave the tile and the emulator's Gather check
    names the kernel."""
    xs = (1, 3, 7, 6)
    _, text = _pool_text(xs, (2, 2), (2, 2), (0, 0, 0, 0))
    prog = A.compile(text.split("func.func @max_grad(")[0], fallback=False)
    k = next(kk for kk in prog.kernels.values() if kk.plan.pool["kind"] == "max")
    assert "CreateVecIndex(fi, 0.0f, cnt);" in k.source and "SetValue" not in k.source
    from msmlir.ascend.emulator import EmulatedKernel, build
    from msmlir.passes.ascend import emit
    p = k.plan
    clamp = "    Mins(fi, fi, (float)(tilePlanes * OH * OW - 1), cnt);\n"
    assert clamp in k.source
    bad = k.source.replace(clamp, "").replace(p.kernel, p.kernel + "_noclamp")
    lib = build(p.kernel + "_noclamp", bad, emit.emulator_tiling(p), 4)
    ek = EmulatedKernel(p.kernel + "_noclamp", lib, p.shapes["in"], p.shapes["out"],
                        list(emit.tiling_values(p).values()), emit.tiling_values(p)["blockDim"])
    with pytest.raises(A.AscendEmulationError, match=r"_noclamp: Gather: offset \d+ of element \d+ is outside"):
        ek.run(RNG.standard_normal(xs).astype(np.float32))
