"""Every op convert-mindir-to-linalg handles, through the Ascend target: one
function per op (shapes with rows that are not multiples of 32 bytes), compiled
for the CPU and for Ascend (kernels as Ascend C on the emulator, the host graph
interpreted), the results compared: bit for bit for integers, booleans and
exact float ops, else within 1e-5 relative (1e-6 absolute near zero).

The table is checked against the lowering registry, so an op added to
convert-mindir-to-linalg without a case here fails `test_every_lowered_op_has_a_case`.
Ops that do not become kernels (collectives and host callbacks, lowered to
runtime calls of the host graph) are listed with the reason in NOT_KERNELS;
kernels the vector/cube planners cannot express run as scalar-loop Ascend C
(the scalar fallback, still emulated and compared) and are listed in SCALAR
with the planner's reason, so a kernel that moves onto or off the fallback
shows here.
"""
from __future__ import annotations

import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

_ET = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.int32): "i32",
       np.dtype(np.int64): "i64", np.dtype(np.int8): "i8", np.dtype(np.bool_): "i1"}


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def _ta(a):
    return _t(np.shape(a), _ET[np.asarray(a).dtype])


R = np.random.default_rng(14)
X = R.standard_normal((7, 13)).astype(np.float32)                 # rows of 52 bytes
Y = R.standard_normal((7, 13)).astype(np.float32)
Y = np.where(R.random((7, 13)) < 0.25, X, Y).astype(np.float32)   # some equal pairs for the compares
POS = (np.abs(X) + 0.1).astype(np.float32)
NZ = np.where(np.abs(Y) < 0.1, 0.5, Y).astype(np.float32)
B = R.random((7, 13)) < 0.5
B2 = R.random((7, 13)) < 0.5
I = R.integers(-50, 50, (7, 13)).astype(np.int32)
IP = R.integers(0, 5, (7, 13)).astype(np.int32)
SPECIAL = X.copy()
SPECIAL[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
X3 = R.standard_normal((5, 6, 9)).astype(np.float32)
IMG = R.standard_normal((2, 4, 9, 9)).astype(np.float32)


def F(ins, out_types, body, results=None, exact=False, rtol=1e-5, atol=1e-6):
    """A case: function @f(ins) -> out_types with `body` (%a0.. the arguments,
    results %r, or `results`), compared exactly or within rtol/atol."""
    params = ", ".join(f"%a{i}: {_ta(a)}" for i, a in enumerate(ins))
    res = results or (["%r"] if len(out_types) == 1 else [f"%r#{k}" for k in range(len(out_types))])
    text = (f"func.func @f({params}) -> ({', '.join(out_types)}) {{\n  {body}\n"
            f"  return {', '.join(res)} : {', '.join(out_types)}\n}}")
    return {"text": text, "ins": ins, "exact": exact, "rtol": rtol, "atol": atol}


def un(op, x=X, attrs="", exact=False, out=None):
    t = _ta(x)
    return F([x], [out or t], f"%r = mindir.{op} %a0{attrs} : {t}" if out is None
             else f"%r = mindir.{op} %a0{attrs} : ({t}) -> {out}", exact=exact)


def bi(op, a=X, b=Y, out=None, exact=False):
    ta, tb = _ta(a), _ta(b)
    o = out or ta
    return F([a, b], [o], f"%r = mindir.{op} %a0, %a1 : ({ta}, {tb}) -> {o}", exact=exact)


T713, B713 = _t((7, 13)), _t((7, 13), "i1")
CASES = {
    # elementwise, unary
    "abs": un("abs", exact=True), "neg": un("neg", exact=True), "sign": un("sign", exact=True),
    "exp": un("exp"), "log": un("log", POS), "log1p": un("log1p", POS), "expm1": un("expm1"),
    "sqrt": un("sqrt", POS), "rsqrt": un("rsqrt", POS), "reciprocal": un("reciprocal", POS),
    "square": un("square", exact=True), "sin": un("sin"), "cos": un("cos"), "tanh": un("tanh"),
    "sigmoid": un("sigmoid"), "relu": un("relu", exact=True), "leaky_relu": un("leaky_relu", attrs=" {alpha = 0.1 : f64}"),
    "gelu": un("gelu"), "erf": un("erf"), "softplus": un("softplus"), "silu": un("silu"),
    "floor": un("floor", X * 3, exact=True), "ceil": un("ceil", X * 3, exact=True),
    "round": un("round", X * 3, exact=True), "stop_gradient": un("stop_gradient", exact=True),
    "isnan": un("isnan", SPECIAL, out=B713, exact=True), "isfinite": un("isfinite", SPECIAL, out=B713, exact=True),
    "logical_not": un("logical_not", B, exact=True),
    "cast": F([X * 100], [_t((7, 13), "f16")], f"%r = mindir.cast %a0 : {T713} to {_t((7, 13), 'f16')}", exact=True),
    # elementwise, binary (broadcasting in some)
    "add": bi("add", exact=True), "sub": bi("sub", X, Y[0], exact=True), "mul": bi("mul", exact=True),
    "div": bi("div", X, NZ), "floordiv": bi("floordiv", X * 5, NZ), "mod": bi("mod", X * 5, NZ),
    "pow": bi("pow", POS, Y), "maximum": bi("maximum", SPECIAL, Y, exact=True),
    "minimum": bi("minimum", X, Y[:, :1], out=T713, exact=True),
    "equal": bi("equal", out=B713, exact=True), "not_equal": bi("not_equal", SPECIAL, Y, out=B713, exact=True),
    "less": bi("less", SPECIAL, Y, out=B713, exact=True), "less_equal": bi("less_equal", out=B713, exact=True),
    "greater": bi("greater", SPECIAL, Y, out=B713, exact=True),
    "greater_equal": bi("greater_equal", out=B713, exact=True),
    "logical_and": bi("logical_and", B, B2, exact=True), "logical_or": bi("logical_or", B, B2[0], out=B713, exact=True),
    "select": F([B, X, Y], [T713], f"%r = mindir.select %a0, %a1, %a2 : ({B713}, {T713}, {T713}) -> {T713}", exact=True),
    "clamp": F([X, np.float32(-0.5), np.full(13, 0.7, np.float32)], [T713],
               f"%r = mindir.clamp %a0, %a1, %a2 : ({T713}, tensor<f32>, {_t((13,))}) -> {T713}", exact=True),
    "bitwise_and": bi("bitwise_and", I, IP, exact=True), "bitwise_or": bi("bitwise_or", I, IP, exact=True),
    "bitwise_xor": bi("bitwise_xor", I, IP, exact=True), "left_shift": bi("left_shift", I, IP, exact=True),
    "right_shift": bi("right_shift", I, IP, exact=True), "bitwise_not": un("bitwise_not", I, exact=True),
    # creation
    "constant": F([], [_t((2, 3))], f"%r = mindir.constant dense<[[1.0, 2.0, 3.5], [4.0, 5.0, 6.0]]> : {_t((2, 3))}",
                  exact=True),
    "fill": F([], [_t((3, 11))], f"%r = mindir.fill 2.5 : f32 : {_t((3, 11))}", exact=True),
    "zeros_like": un("zeros_like", exact=True), "ones_like": un("ones_like", exact=True),
    "arange": F([], [_t((11,))], "%r = mindir.arange {start = 1.0 : f64, limit = 3.75 : f64, delta = 0.25 : f64} : "
                f"{_t((11,))}", exact=True),
    "random_uniform": F([np.array(5, np.int64)], [_t((9, 13))],
                        f"%r = mindir.random_uniform offset(%a0 : tensor<i64>) {{seed = 42 : i64}} : {_t((9, 13))}",
                        exact=True),
    "random_normal": F([np.array(5, np.int64)], [_t((9, 13))],
                       f"%r = mindir.random_normal offset(%a0 : tensor<i64>) {{seed = 42 : i64}} : {_t((9, 13))}"),
    "dropout": F([X, np.array(3, np.int64)], [T713, T713],
                 f"%r:2 = mindir.dropout %a0, %a1 {{keep_prob = 0.75 : f64, seed = 7 : i64}} : ({T713}, tensor<i64>) "
                 f"-> ({T713}, {T713})", exact=True),
    # linear algebra and nn
    "matmul": bi("matmul", R.standard_normal((37, 50)).astype(np.float32),
                 R.standard_normal((50, 23)).astype(np.float32), out=_t((37, 23))),
    "batch_matmul": bi("batch_matmul", R.standard_normal((3, 20, 30)).astype(np.float32),
                       R.standard_normal((3, 30, 17)).astype(np.float32), out=_t((3, 20, 17))),
    "bias_add": bi("bias_add", IMG, R.standard_normal(4).astype(np.float32), exact=True),
    "conv2d": F([IMG, R.standard_normal((6, 4, 3, 3)).astype(np.float32)], [_t((2, 6, 5, 5))],
                "%r = mindir.conv2d %a0, %a1 {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : "
                f"({_ta(IMG)}, {_t((6, 4, 3, 3))}) -> {_t((2, 6, 5, 5))}"),
    "conv2d_backprop_input": F([R.standard_normal((2, 6, 5, 5)).astype(np.float32),
                                R.standard_normal((6, 4, 3, 3)).astype(np.float32)], [_ta(IMG)],
                               "%r = mindir.conv2d_backprop_input %a0, %a1 {input_shape = array<i64: 2, 4, 9, 9>, "
                               "pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : "
                               f"({_t((2, 6, 5, 5))}, {_t((6, 4, 3, 3))}) -> {_ta(IMG)}"),
    "conv2d_backprop_filter": F([R.standard_normal((2, 6, 5, 5)).astype(np.float32), IMG], [_t((6, 4, 3, 3))],
                                "%r = mindir.conv2d_backprop_filter %a0, %a1 {filter_shape = array<i64: 6, 4, 3, 3>, "
                                "pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : "
                                f"({_t((2, 6, 5, 5))}, {_ta(IMG)}) -> {_t((6, 4, 3, 3))}"),
    "max_pool2d": F([IMG], [_t((2, 4, 5, 5))], "%r = mindir.max_pool2d %a0 {kernel_size = array<i64: 3, 3>, "
                    "strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : "
                    f"({_ta(IMG)}) -> {_t((2, 4, 5, 5))}", exact=True),
    "avg_pool2d": F([IMG], [_t((2, 4, 5, 5))], "%r = mindir.avg_pool2d %a0 {kernel_size = array<i64: 3, 3>, "
                    "strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : "
                    f"({_ta(IMG)}) -> {_t((2, 4, 5, 5))}"),
    "max_pool2d_grad": F([IMG, R.standard_normal((2, 4, 5, 5)).astype(np.float32)], [_ta(IMG)],
                         "%r = mindir.max_pool2d_grad %a0, %a1 {kernel_size = array<i64: 3, 3>, strides = "
                         "array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : "
                         f"({_ta(IMG)}, {_t((2, 4, 5, 5))}) -> {_ta(IMG)}", exact=True),
    "avg_pool2d_grad": F([R.standard_normal((2, 4, 5, 5)).astype(np.float32)], [_ta(IMG)],
                         "%r = mindir.avg_pool2d_grad %a0 {input_shape = array<i64: 2, 4, 9, 9>, kernel_size = "
                         "array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : "
                         f"({_t((2, 4, 5, 5))}) -> {_ta(IMG)}"),
    "softmax": un("softmax", attrs=" {axis = -1 : i64}"), "log_softmax": un("log_softmax"),
    "layer_norm": F([X3, R.standard_normal((6, 9)).astype(np.float32), R.standard_normal((6, 9)).astype(np.float32)],
                    [_ta(X3), _t((5, 1, 1)), _t((5, 1, 1))],
                    "%r:3 = mindir.layer_norm %a0, %a1, %a2 {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64} "
                    f": ({_ta(X3)}, {_t((6, 9))}, {_t((6, 9))}) -> ({_ta(X3)}, {_t((5, 1, 1))}, {_t((5, 1, 1))})"),
    "batch_norm": F([IMG] + [R.random(4).astype(np.float32) + 0.5 for _ in range(4)], [_ta(IMG), _t((4,)), _t((4,))],
                    "%r:3 = mindir.batch_norm %a0, %a1, %a2, %a3, %a4 {is_training = true} : "
                    f"({_ta(IMG)}, {_t((4,))}, {_t((4,))}, {_t((4,))}, {_t((4,))}) -> "
                    f"({_ta(IMG)}, {_t((4,))}, {_t((4,))})"),
    "one_hot": F([IP[0], np.float32(1.0), np.float32(0.0)], [_t((10, 13))],
                 "%r = mindir.one_hot %a0, %a1, %a2 {depth = 10 : i64, axis = 0 : i64} : "
                 f"({_t((13,), 'i32')}, tensor<f32>, tensor<f32>) -> {_t((10, 13))}", exact=True),
    "softmax_cross_entropy_with_logits": F(
        [X, np.abs(Y) / np.abs(Y).sum(1, keepdims=True)], [_t((7,)), T713],
        f"%r:2 = mindir.softmax_cross_entropy_with_logits %a0, %a1 : ({T713}, {T713}) -> ({_t((7,))}, {T713})"),
    "sparse_softmax_cross_entropy_with_logits": F(
        [X, IP[:, 0]], [_t((7,)), T713],
        f"%r:2 = mindir.sparse_softmax_cross_entropy_with_logits %a0, %a1 : ({T713}, {_t((7,), 'i32')}) -> "
        f"({_t((7,))}, {T713})"),
    # reductions
    "reduce_sum": F([X3], ["tensor<f32>"], f"%r = mindir.reduce_sum %a0 : ({_ta(X3)}) -> tensor<f32>"),
    "reduce_mean": F([X3], [_t((5, 9))], f"%r = mindir.reduce_mean %a0 {{axes = array<i64: 1>}} : ({_ta(X3)}) -> "
                     f"{_t((5, 9))}"),
    "reduce_max": F([X3], [_t((6,))], f"%r = mindir.reduce_max %a0 {{axes = array<i64: 0, 2>}} : ({_ta(X3)}) -> "
                    f"{_t((6,))}", exact=True),
    "reduce_min": F([X3], [_t((5, 6))], f"%r = mindir.reduce_min %a0 {{axes = array<i64: 2>}} : ({_ta(X3)}) -> "
                    f"{_t((5, 6))}", exact=True),
    "reduce_prod": F([X3 * 0.5 + 1], [_t((5, 6))], f"%r = mindir.reduce_prod %a0 {{axes = array<i64: -1>}} : "
                     f"({_ta(X3)}) -> {_t((5, 6))}"),
    "argmax": F([X3], [_t((5, 6), "i32")], f"%r = mindir.argmax %a0 : ({_ta(X3)}) -> {_t((5, 6), 'i32')}", exact=True),
    "argmin": F([X3], [_t((6, 9), "i32")], f"%r = mindir.argmin %a0 {{axis = 0 : i64}} : ({_ta(X3)}) -> "
                f"{_t((6, 9), 'i32')}", exact=True),
    # shapes and data movement
    "reshape": F([X3], [_t((30, 9))], f"%r = mindir.reshape %a0 {{shape = array<i64: -1, 9>}} : ({_ta(X3)}) -> "
                 f"{_t((30, 9))}", exact=True),
    "expand_dims": F([X], [_t((7, 1, 13))], f"%r = mindir.expand_dims %a0 {{axis = 1 : i64}} : ({T713}) -> "
                     f"{_t((7, 1, 13))}", exact=True),
    "squeeze": F([X.reshape(1, 7, 1, 13)], [T713], f"%r = mindir.squeeze %a0 : ({_t((1, 7, 1, 13))}) -> {T713}",
                 exact=True),
    "flatten": F([X3], [_t((5, 54))], f"%r = mindir.flatten %a0 : ({_ta(X3)}) -> {_t((5, 54))}", exact=True),
    "transpose": F([X3], [_t((9, 5, 6))], f"%r = mindir.transpose %a0 {{perm = array<i64: 2, 0, 1>}} : ({_ta(X3)}) -> "
                   f"{_t((9, 5, 6))}", exact=True),
    "broadcast_to": F([X[:, :1]], [_t((3, 7, 13))], "%r = mindir.broadcast_to %a0 {shape = array<i64: 3, -1, 13>} : "
                      f"({_t((7, 1))}) -> {_t((3, 7, 13))}", exact=True),
    "slice": F([X], [_t((4, 11))], "%r = mindir.slice %a0 {begin = array<i64: 1, 2>, size = array<i64: 4, -1>} : "
               f"({T713}) -> {_t((4, 11))}", exact=True),
    "strided_slice": F([X[:5, :6]], [_t((2, 3))], "%r = mindir.strided_slice %a0 {begin = array<i64: 1, 5>, end = "
                       f"array<i64: 5, -1>, strides = array<i64: 2, -2>}} : ({_t((5, 6))}) -> {_t((2, 3))}",
                       exact=True),
    "concat": F([X, Y[:, :5]], [_t((7, 18))], f"%r = mindir.concat %a0, %a1 {{axis = -1 : i64}} : ({T713}, "
                f"{_t((7, 5))}) -> {_t((7, 18))}", exact=True),
    "split": F([X[:, :12]], [_t((7, 6)), _t((7, 6))], "%r:2 = mindir.split %a0 {axis = 1 : i64, output_num = 2 : i64} : "
               f"({_t((7, 12))}) -> ({_t((7, 6))}, {_t((7, 6))})", exact=True),
    "stack": F([X, Y], [_t((7, 2, 13))], f"%r = mindir.stack %a0, %a1 {{axis = 1 : i64}} : ({T713}, {T713}) -> "
               f"{_t((7, 2, 13))}", exact=True),
    "gather": F([X, IP[:2, :3]], [_t((7, 2, 3))], f"%r = mindir.gather %a0, %a1 {{axis = 1 : i64}} : ({T713}, "
                f"{_t((2, 3), 'i32')}) -> {_t((7, 2, 3))}", exact=True),
    "tile": F([X], [_t((2, 14, 13))], f"%r = mindir.tile %a0 {{multiples = array<i64: 2, 2, 1>}} : ({T713}) -> "
              f"{_t((2, 14, 13))}", exact=True),
    "pad": F([X], [_t((8, 17))], "%r = mindir.pad %a0 {paddings = array<i64: 1, 0, 2, 2>, constant_value = 5.0 : f64} "
             f": ({T713}) -> {_t((8, 17))}", exact=True),
    "sort": F([X[0]], [_t((13,)), _t((13,), "i32")], f"%r:2 = mindir.sort %a0 : ({_t((13,))}) -> ({_t((13,))}, "
              f"{_t((13,), 'i32')})", exact=True),
    "assign": F([X[0], Y[0]], [_t((13,))], f"%r = mindir.assign %a0, %a1 : {_t((13,))}", exact=True),
    "depend": F([X[0], Y[0]], [_t((13,))], f"%s = mindir.exp %a1 : {_t((13,))}\n"
                f"  %r = mindir.depend %a0 after %s : {_t((13,))} : {_t((13,))}", exact=True),
}

NOT_KERNELS = {  # op -> why it is not an Ascend kernel
    "all_reduce": "a collective: MPI calls of the host graph (issue 15), not a kernel",
    "all_gather": "a collective: MPI calls of the host graph (issue 15), not a kernel",
    "reduce_scatter": "a collective: MPI calls of the host graph (issue 15), not a kernel",
    "broadcast": "a collective (mindir.broadcast from a root rank): MPI calls of the host graph, not a kernel",
    "host_callback": "a Python callback of the host graph, not a kernel",
}

# kernels on the scalar fallback (one core, scalar loops over GM, still Ascend C on the emulator):
# op -> the planner's reason (a substring). (transpose, slice, split, concat, stack and tile left it for
# movement.py's MTE copy kernels / the Gather transpose: test_ascend_movement.py)
SCALAR = {
    "arange": "'linalg.index' in a linalg body", "strided_slice": "'linalg.index' in a linalg body",
    "argmax": "a linalg.generic with several results", "argmin": "a linalg.generic with several results",
    "batch_norm": "a reduction over a lower-rank iteration space",
    "bias_add": "operand access [1] of a 4-d domain split at 2",          # the channel of NCHW: a middle axis
    "bitwise_and": "an i32 result", "bitwise_or": "an i32 result", "bitwise_xor": "an i32 result",
    "bitwise_not": "an i32 result", "left_shift": "an i32 result", "right_shift": "an i32 result",
    "broadcast_to": "'linalg.broadcast' in a vector kernel",     # the innermost dim broadcast: no run copy
    "logical_or": "an i1 argument read as col",                          # a broadcast i1 operand
    "mod": "'arith.remf' in a linalg body", "pow": "'math.powf' in a linalg body",
    "round": "'math.roundeven' in a linalg body",
    "one_hot": "an i32 argument read as col", "pad": "'tensor.pad' in a vector kernel",
    "random_uniform": "'tensor.extract' in a vector kernel", "random_normal": "'tensor.extract' in a vector kernel",
    "dropout": "'tensor.extract' in a vector kernel",
    "reduce_max": "reduction over dims [0, 2] of [5, 6, 9]", "reduce_mean": "reduction over dims [1] of [5, 6, 9]",
    "reduce_prod": "a reduction whose body does not end in add/max/min",
    "gather": "'tensor.extract' in a vector kernel",                   # its index check: a status output
    "sort": "'tensor.pad' in a vector kernel",                         # the bitonic network's scf.for stages
}


def test_every_lowered_op_has_a_case():
    from msmlir.passes.lowering.mindir_to_linalg import LOWERINGS, load_all
    load_all()
    ops = {n.split(".", 1)[1] for n in LOWERINGS}
    assert ops == set(CASES) | set(NOT_KERNELS), (sorted(ops - set(CASES) - set(NOT_KERNELS)),
                                                   sorted(set(CASES) | set(NOT_KERNELS) - ops))
    assert not set(CASES) & set(NOT_KERNELS)


def _compare(got, exp, case, what):
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.shape == exp.shape and got.dtype == exp.dtype, (what, got.shape, got.dtype, exp.shape, exp.dtype)
    if np.issubdtype(exp.dtype, np.floating) and not case["exact"]:
        np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64), rtol=case["rtol"],
                                   atol=case["atol"], equal_nan=True, err_msg=what)
    elif np.issubdtype(exp.dtype, np.floating):
        same = (got == exp) | (np.isnan(got) & np.isnan(exp))
        same &= (np.signbit(got) == np.signbit(exp)) | np.isnan(exp)
        assert same.all(), f"{what}: not bit-identical at {np.argwhere(~same)[:5].tolist()}: " \
                           f"{got[~same][:5]} vs {exp[~same][:5]}"
    else:
        np.testing.assert_array_equal(got, exp, err_msg=what)


@pytest.mark.parametrize("op", sorted(CASES))
def test_op_on_ascend_equals_cpu(op):
    from msmlir.compiler import compile_mlir
    case = CASES[op]
    cpu_ins = [np.array(a) for a in case["ins"]]
    asc_ins = [np.array(a) for a in case["ins"]]
    ref = compile_mlir(case["text"]).call("f", *cpu_ins)
    compiled = A.compile_graph(case["text"])          # what set_context(device_target="Ascend") runs
    got = compiled.call("f", *asc_ins)
    prog = compiled.program
    assert len(got) == len(ref)
    for k, (g, r) in enumerate(zip(got, ref)):
        _compare(g, r, case, f"{op} result {k}")
    for k, (g, r) in enumerate(zip(asc_ins, cpu_ins)):       # arguments written back (assign)
        _compare(g, r, case, f"{op} argument {k} after the call")
    leaves = [p for k in prog.kernels.values() for p in (k.parts or [k])]
    for k in leaves:
        assert '__global__ __aicore__ void ' + k.name in k.source
    scalar = [k for k in leaves if k.report["bound"] == "scalar fallback"]
    if op in SCALAR:
        assert scalar and all(SCALAR[op] in (k.report.get("fallback_reason") or "") for k in scalar), \
            [(k.name, k.report.get("fallback_reason")) for k in scalar]
    else:
        assert not scalar, [(k.name, k.report.get("fallback_reason")) for k in scalar]
