"""Split-K on the cube: a product whose output tiles leave cube cores idle
and whose K has several steps (LeNet5's conv1 filter gradient: one 16 x 32
tile over K = 3136) runs as (tile, K slice) items on as many cores, each
writing an f32 partial product to a GM workspace, then a second kernel
launch (a vector first-axis sum) adds the partials: the emulator runs blocks
one after the other and has no cross-core barrier (SyncAll is an error), so
the phase boundary is a launch. The cost model decides: split only where
the two kernels' estimate beats the single one, each launch and block charged
(cost.LAUNCH_CYCLES, BLOCK_CYCLES): a split whose saving is smaller than its
second launch is not taken."""
import numpy as np
import pytest

import msmlir.ascend as A
from msmlir.passes.ascend import cost, cube

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(41)


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def _filter_grad_fn(dy_t, x_t, w_t, attrs=""):
    fs = ", ".join(str(d) for d in w_t)
    extra = f", {attrs}" if attrs else ""
    return f"""func.func @dw(%dy: {_t(dy_t)}, %x: {_t(x_t)}, %lr: tensor<f32>, %w: {_t(w_t)}) -> {_t(w_t)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: {fs}>{extra}}} : ({_t(dy_t)}, {_t(x_t)}) -> {_t(w_t)}
  %s = mindir.mul %g, %lr : ({_t(w_t)}, tensor<f32>) -> {_t(w_t)}
  %n = mindir.sub %w, %s : ({_t(w_t)}, {_t(w_t)}) -> {_t(w_t)}
  return %n : {_t(w_t)}
}}"""


def _dw_ref(dy, x, kh, kw, pad=0):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = dy.shape[2:]
    dw = np.zeros((dy.shape[1], x.shape[1], kh, kw))
    for i in range(kh):
        for j in range(kw):
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", dy.astype(np.float64), xp[:, :, i:i + oh, j:j + ow])
    return dw


def _parts(k):
    return [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]


def _unsplit_estimate(mm):
    """The cost-model estimate of the same product without split-K."""
    t = mm.cube["tiling"]
    layout = {k: t[k] for k in ("sA", "sB", "sC", "lda", "ldb", "ldc", "bG", "gA", "gB", "gC")}
    from msmlir.passes.poly import targets
    plain = cube.cube_plan(t["M"], t["N"], t["K"], "x", "f", "conv", soc="Ascend910B", cores=24,
                           model=targets.make("ascend"), batch=mm.cube["batch"], layout=layout)
    assert plain.cube["split"] == 1
    return cost.with_launch(plain)


@pytest.mark.parametrize("dy_t,x_t,w_t,pad,split", [
    ((4, 6, 28, 28), (4, 1, 32, 32), (6, 1, 5, 5), 0, True),      # LeNet5's conv1 filter gradient (batch 4)
    ((3, 5, 19, 17), (3, 3, 19, 17), (5, 3, 3, 3), 1, False),     # odd shapes, padded: the saving < a launch
])
def test_thin_long_k_product_is_split_across_cores(dy_t, x_t, w_t, pad, split):
    attrs = "pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>" if pad else ""
    prog = A.compile(_filter_grad_fn(dy_t, x_t, w_t, attrs), fallback=False)
    dy = RNG.standard_normal(dy_t).astype(np.float32)
    x = RNG.standard_normal(x_t).astype(np.float32)
    w = RNG.standard_normal(w_t).astype(np.float32)
    lr = np.array(0.05, np.float32)
    (got,) = prog.call("dw", dy, x, lr, w)
    np.testing.assert_allclose(got, w - 0.05 * _dw_ref(dy, x, w_t[2], w_t[3], pad), rtol=1e-5, atol=1e-4)
    k = next(iter(prog.kernels.values()))
    names = _parts(k)
    mm = next(p for p, _, _ in k.plan.parts if p.cube is not None)
    if not split:
        assert "ksum" not in names and mm.cube["split"] == 1, names
        return
    assert names[names.index("mm") + 1] == "ksum" and names[-1] == "ep", names
    t = mm.cube["tiling"]
    S = mm.cube["split"]
    assert S > 1 and t["kSplit"] == S and t["blockDim"] == t["tileNum"] == S * mm.cube["batch"] * t["nTiles"]
    assert (S - 1) * t["kPer"] < -(-t["K"] // t["baseK"]) <= S * t["kPer"]          # every K step in one slice
    # the report says so; no K step is computed twice
    km = next(p for p in k.parts if p.name.endswith("_mm"))
    assert f"split-K {S}" in km.report["tile"] and f"split-K {S}" in k.report["tile"]
    assert km.report["measured"]["mmad_macs"] == t["M"] * t["N"] * t["K"] * mm.cube["batch"]
    assert "Fixpipe(cGm[slice * sS + bo * sC" in km.source and "split-K: " in km.source
    # the cost model's reason: the split product plus the sum beat the single-core product
    ks = next(p for p, _, _ in k.plan.parts if p.kernel.endswith("_ksum"))
    assert cost.with_launch(mm) + cost.with_launch(ks) < _unsplit_estimate(mm)


def test_no_split_when_every_core_has_a_tile():
    """One core: nothing to split across; the same kernel as one product."""
    dy_t, x_t, w_t = (4, 6, 28, 28), (4, 1, 32, 32), (6, 1, 5, 5)
    prog = A.compile(_filter_grad_fn(dy_t, x_t, w_t), fallback=False, cores=1)
    k = next(iter(prog.kernels.values()))
    assert "ksum" not in _parts(k)
    mm = next(p for p, _, _ in k.plan.parts if p.cube is not None)
    assert mm.cube["split"] == 1 and "kSplit" not in mm.cube["tiling"] and "split-K" not in k.report["tile"]
    dy = RNG.standard_normal(dy_t).astype(np.float32)
    x = RNG.standard_normal(x_t).astype(np.float32)
    w = RNG.standard_normal(w_t).astype(np.float32)
    (got,) = prog.call("dw", dy, x, np.array(0.05, np.float32), w)
    np.testing.assert_allclose(got, w - 0.05 * _dw_ref(dy, x, 5, 5), rtol=1e-5, atol=1e-4)


def test_cross_core_barrier_is_an_emulator_error():
    """The emulator runs blocks one after the other: a kernel that waits for
    the other cores (SyncAll) is an error naming the call, which is why
    split-K's sum is a second launch."""
    from msmlir.ascend.emulator import EmulatedKernel, build
    src = r"""
using namespace AscendC;
extern "C" __global__ __aicore__ void barrier(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  GlobalTensor<float> yGm; yGm.SetGlobalBuffer((__gm__ float*)y, 8);
  yGm.SetValue(GetBlockIdx(), 1.0f);
  if (td.mode) SyncAll();
}
"""
    tiling = ("struct BarrierTilingData { uint32_t mode; };\n"
              "#define GET_TILING_DATA(v, p) BarrierTilingData v; std::memcpy(&v, (p), sizeof(v))\n")
    x = np.zeros(8, np.float32)
    ok = EmulatedKernel("barrier", build("barrier", src, tiling, 4), [(8,)], [(8,)], [0], 2)
    np.testing.assert_array_equal(ok.run(x)[0][:2], [1.0, 1.0])
    bad = EmulatedKernel("barrier", build("barrier", src, tiling, 4), [(8,)], [(8,)], [1], 2)
    with pytest.raises(A.AscendEmulationError, match=r"^barrier: SyncAll: a barrier across cores cannot be honoured"):
        bad.run(x)


@pytest.mark.parametrize("dy_t,x_t,w_t,split", [
    ((4, 6, 28, 28), (4, 1, 32, 32), (6, 1, 5, 5), True),          # AMP LeNet5's conv1 dW
    ((4, 16, 10, 10), (4, 6, 14, 14), (16, 6, 5, 5), False)])      # and conv2's (the saving < a launch)
def test_f16_product_is_split_and_rounded_once(dy_t, x_t, w_t, split):
    """f16 operands: the K slices' partials stay f32 in the workspace (no
    Fixpipe conversion) and the sum kernel rounds once to half (column mode,
    Cast CAST_RINT in Finish): within half an f16 ulp plus f32 accumulation
    error of the exact product (the CPU target, accumulating f16 in f16, is
    thousands of ulps away here)."""
    fs = ", ".join(map(str, w_t))
    text = f"""func.func @dw(%dy: {_t(dy_t, 'f16')}, %x: {_t(x_t, 'f16')}, %s: tensor<f32>) -> {_t(w_t)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: {fs}>}} : ({_t(dy_t, 'f16')}, {_t(x_t, 'f16')}) -> {_t(w_t, 'f16')}
  %c = mindir.cast %g : {_t(w_t, 'f16')} to {_t(w_t)}
  %d = mindir.div %c, %s : ({_t(w_t)}, tensor<f32>) -> {_t(w_t)}
  return %d : {_t(w_t)}
}}"""
    prog = A.compile(text, fallback=False)
    k = next(iter(prog.kernels.values()))
    names = _parts(k)
    mm = next(p for p, _, _ in k.plan.parts if p.cube is not None)
    if split:
        assert names[names.index("mm") + 1] == "ksum", names
        ksum = k.plan.parts[names.index("ksum")][0]
        assert mm.cube["split"] > 1 and mm.cube["dtype"] == "f16" and mm.cube.get("out_dtype", "f32") == "f32"
        assert ksum.shapes["out_dtypes"] == ["float16"] and ksum.mode == "col"
        src = k.parts[names.index("ksum")].source
        assert "Cast(out0, " in src and "RoundMode::CAST_RINT, colsAl);" in src and "GlobalTensor<half> out0Gm;" in src
    else:                   # one product, rounded once by Fixpipe
        assert "ksum" not in names and mm.cube["split"] == 1 and mm.cube.get("out_dtype") == "f16"
    dy = RNG.standard_normal(dy_t).astype(np.float16)
    x = RNG.standard_normal(x_t).astype(np.float16)
    (got,) = prog.call("dw", dy, x, np.array(8.0, np.float32))
    exact = _dw_ref(dy, x, w_t[2], w_t[3])
    mag = _dw_ref(np.abs(dy), np.abs(x), w_t[2], w_t[3])
    K = dy_t[0] * dy_t[2] * dy_t[3]
    bound = 0.5 * np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64) + K * 2.0 ** -24 * mag
    assert (np.abs(got.astype(np.float64) * 8 - exact) <= bound).all()
