"""f16 and dilated pooling on the vector path (pool.py): half in GM and in
the copy queues, each tile Cast to an f32 image on chip, computed with the
f32 Gather tables, Cast back to half; sums and divisions (average pooling,
overlapping max-pool gradients) rounded to f16 after each op, as the CPU
target's f16 arithmetic: bit-identical to the CPU target. Dilated windows
(only linalg-level kernels carry them: mindir pooling has no dilation)
step the tables by the dilation."""
import numpy as np
import pytest
from mlir import ir

import msmlir.ascend as A
from msmlir.compiler import compile_mlir, context
from msmlir.passes.ascend import cost
from msmlir.passes.ascend.lower_to_ascend import plan_kernel
from msmlir.passes.ascend.plan import Unsupported

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(5)


def _t(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def _pool_fns(xs, k, s, pad):
    h, w = xs[2] + pad[0] + pad[1], xs[3] + pad[2] + pad[3]
    ys = (xs[0], xs[1], (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1)
    a = f"kernel_size = array<i64: {k[0]}, {k[1]}>, strides = array<i64: {s[0]}, {s[1]}>" + (
        f", pad_mode = #mindir.pad_mode<pad>, pad = array<i64: {', '.join(map(str, pad))}>" if any(pad) else "")
    X, Y = _t(xs, "f16"), _t(ys, "f16")
    return ys, f"""func.func @mx(%x: {X}) -> {Y} {{
  %y = mindir.max_pool2d %x {{{a}}} : ({X}) -> {Y}
  return %y : {Y}
}}
func.func @mxg(%x: {X}, %dy: {Y}) -> {X} {{
  %d = mindir.max_pool2d_grad %x, %dy {{{a}}} : ({X}, {Y}) -> {X}
  return %d : {X}
}}
func.func @av(%x: {X}) -> {Y} {{
  %y = mindir.avg_pool2d %x {{{a}}} : ({X}) -> {Y}
  return %y : {Y}
}}
func.func @avg(%dy: {Y}) -> {X} {{
  %d = mindir.avg_pool2d_grad %dy {{input_shape = array<i64: {', '.join(map(str, xs))}>, {a}}} : ({Y}) -> {X}
  return %d : {X}
}}"""


F16_POOLS = {   # x shape, window, stride, pads (t, b, l, r); widths not multiples of 16 (32-byte half rows)
    "tiled_2x2": ((2, 3, 9, 13), (2, 2), (2, 2), (0, 0, 0, 0)),
    "padded_overlapping": ((1, 2, 11, 10), (3, 3), (2, 2), (1, 1, 1, 1)),
    "rect_overlapping": ((2, 2, 8, 7), (3, 2), (1, 2), (0, 0, 0, 0)),
}


@pytest.mark.parametrize("name", sorted(F16_POOLS))
def test_f16_pooling_bit_identical_to_the_cpu_target(name):
    xs, k, s, pad = F16_POOLS[name]
    ys, text = _pool_fns(xs, k, s, pad)
    prog = A.compile(text, fallback=False)
    cpu = compile_mlir(text)
    x = RNG.standard_normal(xs).astype(np.float16)
    x[0, 0, :2, :2] = 1.5                                  # ties: the first maximum gets the gradient
    dy = RNG.standard_normal(ys).astype(np.float16)
    for fn, args in (("mx", [x]), ("mxg", [x, dy]), ("av", [x]), ("avg", [dy])):
        (got,) = prog.call(fn, *args)
        ref = cpu.call(fn, *args)
        ref = np.asarray(ref[0] if isinstance(ref, (list, tuple)) else ref)
        assert got.dtype == np.float16 and ref.dtype == np.float16
        np.testing.assert_array_equal(got, ref, err_msg=fn)
    for kern in prog.kernels.values():
        src = kern.source
        assert kern.plan.pool["f16"] and "SCALAR FALLBACK" not in src
        assert "Cast(x, xh, RoundMode::CAST_NONE" in src and "GlobalTensor<half> xGm, yGm" in src
        assert "Cast(yh, " in src and kern.report["measured"]["peak_ub"] <= 192 * 1024
        if kern.plan.pool["kind"] in ("avg", "avg_grad"):     # every sum and division rounded to f16
            assert "// f16 arithmetic: round now" in src


def test_f16_average_needs_the_per_op_rounding():
    """The CPU's f16 average (each add and the division rounded to f16) differs
    from an f32 average rounded once, which is what the emitted kernel would
    give without its per-op rounding: the bit-identical test above can fail."""
    xs, k, s, pad = F16_POOLS["padded_overlapping"]
    ys, text = _pool_fns(xs, k, s, pad)
    x = RNG.standard_normal(xs).astype(np.float16)
    ref = compile_mlir(text).call("av", x)
    ref = np.asarray(ref[0] if isinstance(ref, (list, tuple)) else ref)
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), pad[:2], pad[2:]))
    cnt = np.zeros(xp.shape[2:], np.float32)
    cnt[pad[0]:pad[0] + xs[2], pad[2]:pad[2] + xs[3]] = 1
    oh, ow = ys[2:]
    win = [(xp[:, :, i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]],
            cnt[i:i + s[0] * (oh - 1) + 1:s[0], j:j + s[1] * (ow - 1) + 1:s[1]]) for i in range(k[0]) for j in range(k[1])]
    once = (sum(w for w, _ in win) / sum(c for _, c in win)).astype(np.float16)
    assert not np.array_equal(once, ref)
    np.testing.assert_array_equal(A.compile(text, fallback=False).call("av", x)[0], ref)


# ----------------------------------------------------------------------------- dilated (linalg-level kernels)
def _dilated_kernel(xs, k, s, d, pad, dtypes=("f32", "f32")):
    n, c, h, w = xs
    hp, wp = h + pad[0] + pad[1], w + pad[2] + pad[3]
    oh, ow = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1, (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    ti, to = dtypes
    src, padtxt = "%x", ""
    if any(pad):
        src = "%p"
        padtxt = (f"  %p = tensor.pad %x low[0, 0, {pad[0]}, {pad[2]}] high[0, 0, {pad[1]}, {pad[3]}] {{\n"
                  f"  ^bb0(%a: index, %b: index, %e: index, %f: index):\n    tensor.yield %ni : {ti}\n"
                  f"  }} : {_t(xs, ti)} to {_t((n, c, hp, wp), ti)}\n")
    ninf = {"f32": "0xFF800000", "f16": "0xFC00"}
    return (oh, ow), f"""func.func @k(%x: {_t(xs, ti)}) -> {_t((n, c, oh, ow), to)} attributes {{mskernel.kind = #mskernel.kind<opaque>}} {{
  %ni = arith.constant {ninf[ti]} : {ti}
  %no = arith.constant {ninf[to]} : {to}
{padtxt}  %e = tensor.empty() : {_t((n, c, oh, ow), to)}
  %i = linalg.fill ins(%no : {to}) outs(%e : {_t((n, c, oh, ow), to)}) -> {_t((n, c, oh, ow), to)}
  %win = tensor.empty() : {_t(k, ti)}
  %y = linalg.pooling_nchw_max {{dilations = dense<[{d[0]}, {d[1]}]> : vector<2xi64>, strides = dense<[{s[0]}, {s[1]}]> : vector<2xi64>}} ins({src}, %win : {_t((n, c, hp, wp), ti)}, {_t(k, ti)}) outs(%i : {_t((n, c, oh, ow), to)}) -> {_t((n, c, oh, ow), to)}
  return %y : {_t((n, c, oh, ow), to)}
}}"""


def _plan(text):
    with context(), ir.Location.unknown():
        module = ir.Module.parse(text)            # alive while the kernel is planned
        fn = next(iter(module.body.operations))
        return plan_kernel(fn, "ascend_dilated_pool", fallback=False)


@pytest.mark.parametrize("xs,k,s,d,pad", [((2, 3, 11, 13), (3, 3), (1, 1), (2, 2), (0, 0, 0, 0)),
                                          ((1, 2, 17, 15), (2, 3), (2, 1), (3, 2), (0, 0, 0, 0)),
                                          ((2, 3, 11, 13), (3, 3), (2, 2), (2, 2), (1, 1, 2, 2))])
def test_dilated_max_pooling_on_the_vector_path(xs, k, s, d, pad):
    (oh, ow), text = _dilated_kernel(xs, k, s, d, pad)
    plan = _plan(text)
    plan.report = cost.report(plan)
    kern = A.AscendKernel(plan)
    x = RNG.standard_normal(xs).astype(np.float32)
    (y,) = kern.run(x)
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]), constant_values=-np.inf)
    ref = np.max([xp[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
                  for i in range(k[0]) for j in range(k[1])], 0)
    np.testing.assert_array_equal(y, ref)
    assert plan.pool["tiling"]["dh"] == d[0] and plan.pool["tiling"]["dw"] == d[1]
    assert plan.pool["kind"] == ("max_padded" if any(pad) else "max")
    assert ("(oh * sh + kh * dh)" in kern.source) == any(pad) and ("k / KW * dh * Wp + k % KW * dw" in kern.source) != any(pad)


def test_mixed_dtype_pooling_is_a_clear_error():
    """A pooling reading f16 into an f32 result is neither the f32 nor the f16
    form: Unsupported (the scalar fallback with fallback=true)."""
    _, text = _dilated_kernel((1, 2, 9, 9), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), dtypes=("f16", "f32"))
    with pytest.raises(Unsupported, match=r"a pooling that is not all f32 or all f16"):
        _plan(text)
