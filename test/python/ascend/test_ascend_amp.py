"""Mixed precision (AMP O2) on the Ascend target: the LeNet5 train step with a
dynamic loss scale on device_target="Ascend" vs "CPU" over 5 steps (one of
them overflowing, so both branches of the host graph's "update only if
finite" run), and the kernels that used to be scalar loops: f16 matmuls with a
transposed operand and a cast epilogue (transpose -> cube -> vector groups),
an f16 product rounded by Fixpipe and reshaped, f16 sums over the first axis
(column mode, half rows in the queues); and the two NaN/inf divergences the
step exposed (isfinite as `|x| one inf`, the max-pool gradient's dy * mask).
"""
import warnings

import numpy as np
import pytest

import msmlir as ms
import msmlir.ascend as A
from msmlir import Tensor, nn
from msmlir.compiler import compile_mlir

from kernel_cases import host_function, random_inputs
from support.models import lenet5_with_biases

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(41)


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def _scalar_kernels(prog):
    return [p for k in prog.kernels.values() for p in (k.parts or [k]) if p.report["bound"] == "scalar fallback"]


@pytest.fixture
def graph_mode():
    previous = ms.get_context("mode"), ms.get_context("device_target")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=previous[0], device_target=previous[1])


def _amp_steps(target, x, y, steps=5):
    from msmlir.amp import build_train_network
    from msmlir.train.loss_scale_manager import DynamicLossScaleManager
    ms.set_context(device_target=target)
    ms.set_seed(1)
    net = lenet5_with_biases()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = build_train_network(net, nn.SGD(net.trainable_params(), learning_rate=0.05), loss, level="O2",
                               loss_scale_manager=DynamicLossScaleManager(2 ** 18, 2, 2))
    step.set_train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = [[np.asarray(v.asnumpy()) for v in step(Tensor(x), Tensor(y))] for _ in range(steps)]
    return out, [p.asnumpy() for p in net.trainable_params()]


def test_amp_o2_lenet5_step_on_ascend_equals_cpu(graph_mode):
    rng = np.random.default_rng(0)
    x = rng.random((4, 1, 32, 32)).astype(np.float32)
    y = np.arange(4).astype(np.int32)
    cpu, cpu_params = _amp_steps("CPU", x, y)
    asc, asc_params = _amp_steps("Ascend", x, y)
    overflow = [bool(s[1]) for s in cpu]
    assert any(overflow) and not all(overflow)             # both branches of the loss-scale update
    assert [bool(s[1]) for s in asc] == overflow
    assert [float(s[2]) for s in asc] == [float(s[2]) for s in cpu]          # the loss scales
    # f16 arithmetic: the cube accumulates f16 convolutions in f32 (the CPU in f16), a few f16 ulps
    np.testing.assert_allclose([float(s[0]) for s in asc], [float(s[0]) for s in cpu], rtol=1e-4)
    for a, c in zip(asc_params, cpu_params):
        np.testing.assert_allclose(a, c, rtol=0, atol=2e-3)
    assert max(float(np.abs(a - c).max()) for a, c in zip(asc_params, cpu_params)) > 0   # the update ran


# ----------------------------------------------------------------------------- the kernels
MATMULS = {   # f16 products with a transposed operand and a cast epilogue, as AMP's Dense layers make them
    "dense": lambda M, K, N: (
        [RNG.standard_normal((M, K)).astype(np.float16), RNG.standard_normal((N, K)).astype(np.float16),
         RNG.standard_normal(N).astype(np.float32)],
        f"""func.func @f(%a: {_t((M, K), 'f16')}, %b: {_t((N, K), 'f16')}, %bias: {_t((N,))}) -> {_t((M, N))} {{
  %m = mindir.matmul %a, %b {{transpose_b = true}} : ({_t((M, K), 'f16')}, {_t((N, K), 'f16')}) -> {_t((M, N), 'f16')}
  %c = mindir.cast %bias : {_t((N,))} to {_t((N,), 'f16')}
  %s = mindir.add %m, %c : ({_t((M, N), 'f16')}, {_t((N,), 'f16')}) -> {_t((M, N), 'f16')}
  %r = mindir.cast %s : {_t((M, N), 'f16')} to {_t((M, N))}
  return %r : {_t((M, N))}
}}"""),
    "weight_grad": lambda M, K, N: (
        [RNG.standard_normal((K, M)).astype(np.float16), RNG.standard_normal((K, N)).astype(np.float16),
         np.array(1024.0, np.float32)],
        f"""func.func @f(%a: {_t((K, M), 'f16')}, %b: {_t((K, N), 'f16')}, %s: tensor<f32>) -> {_t((M, N))} {{
  %m = mindir.matmul %a, %b {{transpose_a = true}} : ({_t((K, M), 'f16')}, {_t((K, N), 'f16')}) -> {_t((M, N), 'f16')}
  %c = mindir.cast %m : {_t((M, N), 'f16')} to {_t((M, N))}
  %r = mindir.div %c, %s : ({_t((M, N))}, tensor<f32>) -> {_t((M, N))}
  return %r : {_t((M, N))}
}}"""),
}


@pytest.mark.parametrize("M,K,N", [(4, 84, 10), (37, 50, 21), (70, 130, 33)])
@pytest.mark.parametrize("kind", sorted(MATMULS))
def test_f16_transposed_matmul_with_cast_epilogue_on_the_cube(kind, M, K, N):
    ins, text = MATMULS[kind](M, K, N)
    prog = A.compile(text, fallback=False)
    k = next(iter(prog.kernels.values()))
    names = [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
    assert names == ["tb" if kind == "dense" else "ta", "mm", "ep"]
    tp, cube = k.plan.parts[0][0], k.plan.parts[1][0]
    assert tp.transpose["dtype"] == "f16" and "GlobalTensor<half> xGm, yGm;" in k.parts[0].source
    assert cube.cube["dtype"] == "f16"
    got = prog.call("f", *ins)[0]
    ref = compile_mlir(text).call("f", *ins)[0]
    # the product rounded to f16 once from f32 on both targets; the sums' order differs (K steps on
    # the cube), so an element at an f16 rounding boundary may differ by one f16 ulp of the product
    a = ins[0].astype(np.float64) if kind == "dense" else ins[0].astype(np.float64).T
    b = ins[1].astype(np.float64).T if kind == "dense" else ins[1].astype(np.float64)
    ulp = np.spacing(np.abs(a @ b).astype(np.float16)).astype(np.float64)
    scale = 1.0 if kind == "dense" else 1 / 1024.0
    assert (np.abs(got.astype(np.float64) - ref) <= ulp * scale * 1.01 + 1e-7).all()
    assert (got == ref).mean() > 0.95


def test_f16_product_rounded_by_fixpipe_then_reshaped():
    """AMP's dense -> conv backward: an f16 product reshaped to NCHW: one cube
    kernel whose Fixpipe converts to half (F322F16), no epilogue kernel."""
    text = f"""func.func @f(%a: {_t((4, 120), 'f16')}, %b: {_t((120, 400), 'f16')}) -> {_t((4, 16, 5, 5), 'f16')} {{
  %m = mindir.matmul %a, %b : ({_t((4, 120), 'f16')}, {_t((120, 400), 'f16')}) -> {_t((4, 400), 'f16')}
  %r = mindir.reshape %m {{shape = array<i64: 4, 16, 5, 5>}} : ({_t((4, 400), 'f16')}) -> {_t((4, 16, 5, 5), 'f16')}
  return %r : {_t((4, 16, 5, 5), 'f16')}
}}"""
    prog = A.compile(text, fallback=False)
    k = next(iter(prog.kernels.values()))
    assert [p.cube["out_dtype"] for p, _, _ in k.plan.parts] == ["f16"]
    a = RNG.standard_normal((4, 120)).astype(np.float16)
    b = RNG.standard_normal((120, 400)).astype(np.float16)
    got = prog.call("f", a, b)[0]
    assert got.dtype == np.float16 and got.shape == (4, 16, 5, 5)
    exact = (a.astype(np.float64) @ b.astype(np.float64)).reshape(4, 16, 5, 5)
    ulp = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64)
    assert (np.abs(got.astype(np.float64) - exact) <= ulp).all()        # f32 accumulation, one rounding


@pytest.mark.parametrize("R,C", [(4, 84), (37, 130), (300, 19)])
def test_f16_first_axis_sum_in_column_mode(R, C):
    """AMP's bias gradients: sum over the batch of an f16 tensor (accumulated
    in f32), rounded to f16, cast back and divided by the loss scale."""
    text = f"""func.func @f(%x: {_t((R, C), 'f16')}, %s: tensor<f32>) -> {_t((C,))} {{
  %r = mindir.reduce_sum %x {{axes = array<i64: 0>, keep_dims = true}} : ({_t((R, C), 'f16')}) -> {_t((1, C), 'f16')}
  %q = mindir.reshape %r {{shape = array<i64: {C}>}} : ({_t((1, C), 'f16')}) -> {_t((C,), 'f16')}
  %c = mindir.cast %q : {_t((C,), 'f16')} to {_t((C,))}
  %d = mindir.div %c, %s : ({_t((C,))}, tensor<f32>) -> {_t((C,))}
  return %d : {_t((C,))}
}}"""
    prog = A.compile(text, fallback=False)
    k = next(iter(prog.kernels.values()))
    assert k.plan.mode == "col" and "GlobalTensor<half> in0Gm;" in k.source and "Cast(rnd, " in k.source
    x = (RNG.standard_normal((R, C)) * 4).astype(np.float16)
    s = np.array(1024.0, np.float32)
    got = prog.call("f", x, s)[0]
    np.testing.assert_array_equal(got, compile_mlir(text).call("f", x, s)[0])
    ref = x.astype(np.float64).sum(0).astype(np.float16).astype(np.float64) / 1024.0
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=1e-6)                       # f16 rounding of the sum


def test_isfinite_of_nan_and_max_pool_gradient_of_nan_as_on_the_cpu():
    """Both made the Ascend AMP step update parameters with NaN where the CPU
    skipped the step: the vector Compare NE is true on NaN (|NaN| != inf), and
    dy * 0 is NaN where the CPU selects 0."""
    x = RNG.standard_normal((4, 6, 8, 8)).astype(np.float32)
    dy = RNG.standard_normal((4, 6, 4, 4)).astype(np.float32)
    dy[0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
    v = RNG.standard_normal((37, 19)).astype(np.float32)
    v[0, :4] = [np.nan, np.inf, -np.inf, 0]
    text = f"""func.func @fin(%v: {_t((37, 19))}) -> {_t((37, 19), 'i1')} {{
  %r = mindir.isfinite %v : ({_t((37, 19))}) -> {_t((37, 19), 'i1')}
  return %r : {_t((37, 19), 'i1')}
}}
func.func @pg(%x: {_t(x.shape)}, %dy: {_t(dy.shape)}) -> {_t(x.shape)} {{
  %d = mindir.max_pool2d_grad %x, %dy {{kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}} : ({_t(x.shape)}, {_t(dy.shape)}) -> {_t(x.shape)}
  return %d : {_t(x.shape)}
}}"""
    prog = A.compile(text, fallback=False)
    assert not _scalar_kernels(prog)
    cpu = compile_mlir(text)
    fin = prog.call("fin", v)[0]
    np.testing.assert_array_equal(fin, np.isfinite(v))
    np.testing.assert_array_equal(fin, cpu.call("fin", v)[0])
    got, ref = prog.call("pg", x, dy)[0], cpu.call("pg", x, dy)[0]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    assert np.isnan(got).sum() == 1 and np.isinf(got).sum() == 2           # one NaN, two infs: at the maxima
    np.testing.assert_array_equal(got[~np.isnan(got)], ref[~np.isnan(ref)])


@pytest.mark.parametrize("shape", [(4, 16, 10, 10), (3, 5, 7, 9)])
def test_f16_bias_gradient_as_row_then_column_kernels(shape):
    """AMP's conv bias gradient: relu-masked f16 dy summed over (N, H, W) in
    f32: split.py's row-mode partial sums over (H, W), then the column-mode
    sum over N of the f32 partials, rounded to f16 once; bit-identical to the
    CPU target."""
    n, c, h, w = shape
    text = f"""func.func @f(%m: {_t(shape, 'i1')}, %dy: {_t(shape, 'f16')}, %s: tensor<f32>) -> ({_t(shape, 'f16')}, {_t((c,))}) {{
  %z = mindir.zeros_like %dy : {_t(shape, 'f16')}
  %g = mindir.select %m, %dy, %z : ({_t(shape, 'i1')}, {_t(shape, 'f16')}, {_t(shape, 'f16')}) -> {_t(shape, 'f16')}
  %r = mindir.reduce_sum %g {{axes = array<i64: 0, 2, 3>}} : ({_t(shape, 'f16')}) -> {_t((c,), 'f16')}
  %q = mindir.cast %r : {_t((c,), 'f16')} to {_t((c,))}
  %d = mindir.div %q, %s : ({_t((c,))}, tensor<f32>) -> {_t((c,))}
  return %g, %d : {_t(shape, 'f16')}, {_t((c,))}
}}"""
    prog = A.compile(text, fallback=False)
    k = next(iter(prog.kernels.values()))
    assert [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts] == ["rows", "cols"]
    m = RNG.random(shape) > 0.5
    dy = (RNG.standard_normal(shape) * 8).astype(np.float16)
    s = np.array(64.0, np.float32)
    got = prog.call("f", m, dy, s)
    ref = compile_mlir(text).call("f", m, dy, s)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    exact = np.where(m, dy, 0).astype(np.float64).sum((0, 2, 3)).astype(np.float16).astype(np.float64) / 64
    np.testing.assert_allclose(got[1], exact, rtol=2e-3, atol=1e-6)


FLAG = """func.func @f(%x: tensor<37x19xf32>, %flag: tensor<i1>) -> tensor<i1> {
  %s = mindir.reduce_sum %x : (tensor<37x19xf32>) -> tensor<f32>
  %ok = mindir.isfinite %s : (tensor<f32>) -> tensor<i1>
  %r = mindir.logical_and %flag, %ok : (tensor<i1>, tensor<i1>) -> tensor<i1>
  return %r : tensor<i1>
}"""


@pytest.mark.parametrize("bad", [None, np.inf, -np.inf, np.nan, 3e38])
@pytest.mark.parametrize("flag", [True, False])
def test_loss_scale_overflow_check_on_the_vector_path(bad, flag):
    """The dynamic loss scale's "all gradients finite": a full sum (vector
    ReduceSum), isfinite of the sum and the AND with the previous flag on the
    scalar unit (row values), the i1 argument read as a scalar, the i1 result
    written as one byte: equal to the CPU target for finite, inf, NaN and
    overflowing (3e38 * 2: the f32 sum is inf) gradients."""
    prog = A.compile(FLAG, fallback=False)
    src = next(iter(prog.kernels.values())).source
    assert "SetValue(r, (uint8_t)(" in src and "SetFlag<HardEvent::S_MTE3>(0);" in src
    x = RNG.standard_normal((37, 19)).astype(np.float32)
    if bad is not None:
        x[5, 7] = bad
        x[30, 1] = bad
    f = np.array(flag)
    got = prog.call("f", x, f)[0]
    ref = compile_mlir(FLAG).call("f", x, f)[0]
    assert got.dtype == np.bool_ and got.shape == ()
    assert bool(got) == bool(ref) == (flag and bad is None)


def test_every_amp_kernel_on_ascend_equals_cpu(tmp_path, graph_mode):
    """Each outlined kernel of the AMP O2 LeNet5 step, compiled alone for both
    targets on the same random inputs (a few with NaN and inf): bit-identical,
    except the f16 products (cube: f32 accumulation, one rounding; within one
    f16 ulp of the CPU's) and the f16 convolutions (the CPU accumulates f16
    convolutions in f16: test_ascend_conv_f16.py checks them against a model of
    the cube instead). Four kernels stay scalar loops, each for its reason."""
    import glob
    import re
    from msmlir.amp import build_train_network
    ms.set_context(device_target="CPU", save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        ms.set_seed(1)
        net = lenet5_with_biases()
        step = build_train_network(net, nn.SGD(net.trainable_params(), learning_rate=0.05),
                                   nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), level="O2")
        step(Tensor(np.zeros((4, 1, 32, 32), np.float32)), Tensor(np.arange(4).astype(np.int32)))
    finally:
        ms.set_context(save_graphs=False)
    files = sorted(glob.glob(str(tmp_path / "*" / "kernels" / "*.mlir")))
    assert len(files) == 39
    rng = np.random.default_rng(3)
    scalar = {}
    for f in files:
        kname, text = host_function(f)
        ins = random_inputs(text, rng)
        for a in ins:
            if a.dtype.kind == "f" and a.size > 8 and "isfinite" in kname:
                a.reshape(-1)[rng.integers(0, a.size)] = rng.choice([np.nan, np.inf, 1.0])
        prog = A.compile(text)
        for p in (p for k in prog.kernels.values() for p in (k.parts or [k])):
            if p.report["bound"] == "scalar fallback":
                scalar[kname] = p.report.get("fallback_reason")
        if "_conv_" in kname:
            continue
        ref = compile_mlir(text).call("host", *ins)
        got = prog.call("host", *ins)
        for j, (g, r) in enumerate(zip(got, ref)):
            g, r = np.asarray(g), np.asarray(r)
            assert g.dtype == r.dtype and g.shape == r.shape, kname
            if "_matmul_" in kname and g.dtype == np.float16:
                ulp = np.maximum(np.spacing(np.abs(r)), np.spacing(np.abs(g))).astype(np.float32)
                # and f32 summation order under cancellation: 1e-4 of the largest element
                bad = np.abs(g.astype(np.float32) - r.astype(np.float32)) > ulp + 1e-4 * np.abs(r).max()
                assert not bad.any(), (kname, j, g[bad][:4], r[bad][:4])
            elif "_matmul_" in kname:      # an f16 product rounded, then f32 epilogue ops: one f16 ulp, scaled
                np.testing.assert_allclose(g, r, rtol=1e-3, atol=1e-6, err_msg=f"{kname} result {j}")
            else:
                np.testing.assert_array_equal(g, r, err_msg=f"{kname} result {j}")
    reasons = sorted((re.sub(r"_[0-9a-f]{10}$", "", k), v) for k, v in scalar.items())
    assert reasons == [
        ("cpu_reduce_reduce_sum_isfinite_logical_and", "'arith.extf' in a linalg body (no Ascend C vector "
                                                       "instruction emitted for it)"),      # f64 accumulators
        ("cpu_reduce_reduce_sum_isfinite_logical_and", "'arith.extf' in a linalg body (no Ascend C vector "
                                                       "instruction emitted for it)"),
        ("cpu_reduce_reduce_sum_isfinite_logical_and", "a value the emitter cannot place"),  # i32 counter update
        ("cpu_reduce_reshape_equal_cast", "'linalg.broadcast' in a vector kernel"),          # the loss
    ], reasons


def test_independent_updates_over_different_domains_are_one_vector_kernel_per_domain():
    """One fused kernel updating parameters of different shapes (an SGD step,
    AMP's parameter casts): a vector kernel per domain, the computations over
    the same domain planned together (two [6, 5] updates: one kernel)."""
    text = """func.func @f(%a: tensor<6x5xf32>, %b: tensor<6x5xf32>, %c: tensor<10xf32>, %lr: tensor<f32>) -> (tensor<6x5xf32>, tensor<6x5xf32>, tensor<10xf32>) {
  %x = mindir.mul %a, %lr : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %y = mindir.sub %b, %x : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %z = mindir.mul %b, %lr : (tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %w = mindir.sub %a, %z : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %u = mindir.mul %c, %lr : (tensor<10xf32>, tensor<f32>) -> tensor<10xf32>
  %v = mindir.sub %c, %u : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
  return %y, %w, %v : tensor<6x5xf32>, tensor<6x5xf32>, tensor<10xf32>
}"""
    prog = A.compile(text, fallback=False)
    (k,) = prog.kernels.values()
    assert [(ins, outs) for _, ins, outs in k.plan.parts] == [
        ([("arg", i) for i in range(4)], [("out", 0), ("out", 1)]), ([("arg", i) for i in range(4)], [("out", 2)])]
    ins = [RNG.standard_normal((6, 5)).astype(np.float32), RNG.standard_normal((6, 5)).astype(np.float32),
           RNG.standard_normal(10).astype(np.float32), np.array(0.1, np.float32)]
    for g, r in zip(prog.call("f", *ins), compile_mlir(text).call("f", *ins)):
        np.testing.assert_array_equal(g, r)


def test_f16_to_f32_cast_keeps_negative_zero():
    """A body that yields its (f16 -> f32) input is a copy into the result:
    Muls by 1.0 (exact), not Adds of 0.0, which turns -0.0 into +0.0."""
    text = """func.func @f(%x: tensor<7x13xf16>) -> tensor<7x13xf32> {
  %c = mindir.cast %x : tensor<7x13xf16> to tensor<7x13xf32>
  return %c : tensor<7x13xf32>
}"""
    x = RNG.standard_normal((7, 13)).astype(np.float16)
    x[0, :3] = [-0.0, 0.0, -0.0]
    prog = A.compile(text, fallback=False)
    got = prog.call("f", x)[0]
    ref = compile_mlir(text).call("f", x)[0]
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))
    assert "Muls(out0, tF0, 1.0f, cntF);" in next(iter(prog.kernels.values())).source
