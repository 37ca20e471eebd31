"""The Ascend target on the Ascend C CPU emulation: numerics of emitted kernels
vs numpy (tails that are not multiples of 32 bytes, several tiles, several
cores), the per-kernel report, and planted emitter bugs caught by the
emulator with errors naming the kernel and the API call.

Every kernel is built with g++ against lib/ascendc_emu (cached by source
hash under $MSMLIR_ASCEND_CACHE or the temp dir, shared by the tests).
"""
import warnings

import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(0)

UNARY = {  # mindir op -> numpy reference (inputs chosen inside the domain)
    "exp": np.exp, "log": np.log, "abs": np.abs, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "tanh": np.tanh, "neg": np.negative, "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "square": np.square, "reciprocal": lambda x: 1 / x,
}
POSITIVE = {"log", "sqrt", "rsqrt", "reciprocal"}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "maximum": np.maximum, "minimum": np.minimum}


def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _unary_fn(name, op, shape):
    t = _t(shape)
    return f"""func.func @{name}(%x: {t}) -> {t} {{
  %r = mindir.{op} %x : {t}
  return %r : {t}
}}"""


def _binary_fn(name, op, sa, sb, so):
    return f"""func.func @{name}(%a: {_t(sa)}, %b: {_t(sb)}) -> {_t(so)} {{
  %r = mindir.{op} %a, %b : ({_t(sa)}, {_t(sb)}) -> {_t(so)}
  return %r : {_t(so)}
}}"""


SHAPE = (37, 100)      # rows of 400 bytes: every copy is DataCopyPad, the last tile a tail


@pytest.fixture(scope="module")
def ops_prog():
    """One module, one function (one kernel) per op; tiny tiles and 3 cores so
    that every kernel has several tiles per core and a tail tile."""
    fns = [_unary_fn(f"u_{op}", op, SHAPE) for op in UNARY]
    fns += [_binary_fn(f"b_{op}", op, SHAPE, SHAPE, SHAPE) for op in BINARY]
    fns += [_binary_fn("bc_row", "add", SHAPE, (37, 1), SHAPE),       # per-row value
            _binary_fn("bc_col", "mul", SHAPE, (100,), SHAPE),        # per-column vector
            _binary_fn("bc_div_row", "div", SHAPE, (37, 1), SHAPE),
            _binary_fn("bc_scalar", "sub", (), SHAPE, SHAPE)]
    return A.compile("\n".join(fns), graph_kernel=False, tile_elems=512, cores=3)


def _input(op, shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    return np.abs(x) + 0.1 if op in POSITIVE else x


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(ops_prog, op):
    x = _input(op, SHAPE)
    (got,) = ops_prog.call(f"u_{op}", x)
    np.testing.assert_allclose(got, UNARY[op](x.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(ops_prog, op):
    a, b = _input(op, SHAPE), _input(op, SHAPE)
    if op == "div":
        b = np.where(np.abs(b) < 0.1, 0.5, b).astype(np.float32)
    (got,) = ops_prog.call(f"b_{op}", a, b)
    np.testing.assert_allclose(got, BINARY[op](a, b), rtol=1e-6, atol=0)


@pytest.mark.parametrize("name,shape_b,ref", [
    ("bc_row", (37, 1), lambda a, b: a + b),
    ("bc_col", (100,), lambda a, b: a * b),
    ("bc_div_row", (37, 1), lambda a, b: a / b),
])
def test_broadcast(ops_prog, name, shape_b, ref):
    a = _input("", SHAPE)
    b = (np.abs(_input("", shape_b)) + 0.5).astype(np.float32)
    (got,) = ops_prog.call(name, a, b)
    np.testing.assert_allclose(got, ref(a, b), rtol=1e-6, atol=0)


def test_scalar_operand(ops_prog):
    s = np.array(1.25, dtype=np.float32)
    b = _input("", SHAPE)
    (got,) = ops_prog.call("bc_scalar", s, b)
    np.testing.assert_array_equal(got, s - b)       # (-b) + s: exact


def test_kernels_use_pad_copies_and_tails(ops_prog):
    k = ops_prog.kernels[next(n for n in ops_prog.kernels if "add" in n)]
    assert "DataCopyPad(" in k.source and "DataCopy(" not in k.source.replace("DataCopyPad(", "")
    t = k.plan.tiling                       # elementwise: flattened to one row of 3700, chunked
    assert t.R == 1 and t.tiles > t.block_dim > 1                   # several tiles per core
    assert (t.C % t.cb) * 4 % 32 != 0                               # an unaligned tail chunk
    t = ops_prog.kernels[next(n for n in ops_prog.kernels if ops_prog.kernels[n].plan.cols)].plan.tiling
    assert t.C == 100 and t.R % t.rb != 0 and t.tiles > t.block_dim  # rows of 400 B, a tail tile


B1 = """func.func @b1(%x: tensor<4099xf32>) -> tensor<4099xf32> {
  %c15 = "mindir.constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %c05 = "mindir.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %a = "mindir.mul"(%x, %c15) : (tensor<4099xf32>, tensor<f32>) -> tensor<4099xf32>
  %z = "mindir.add"(%a, %c05) : (tensor<4099xf32>, tensor<f32>) -> tensor<4099xf32>
  %g = "mindir.gelu"(%z) {approximate = #mindir.approximate<tanh>} : (tensor<4099xf32>) -> tensor<4099xf32>
  %sg = "mindir.sigmoid"(%x) : (tensor<4099xf32>) -> tensor<4099xf32>
  %r = "mindir.mul"(%g, %sg) : (tensor<4099xf32>, tensor<4099xf32>) -> tensor<4099xf32>
  return %r : tensor<4099xf32>
}
func.func @softmax(%x: tensor<67x129xf32>) -> tensor<67x129xf32> {
  %r = "mindir.softmax"(%x) {axis = -1 : i64} : (tensor<67x129xf32>) -> tensor<67x129xf32>
  return %r : tensor<67x129xf32>
}
func.func @layernorm(%x: tensor<67x129xf32>, %g: tensor<129xf32>, %b: tensor<129xf32>) -> (tensor<67x129xf32>, tensor<67x1xf32>, tensor<67x1xf32>) {
  %y, %m, %r = "mindir.layer_norm"(%x, %g, %b) {begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-5 : f64} : (tensor<67x129xf32>, tensor<129xf32>, tensor<129xf32>) -> (tensor<67x129xf32>, tensor<67x1xf32>, tensor<67x1xf32>)
  return %y, %m, %r : tensor<67x129xf32>, tensor<67x1xf32>, tensor<67x1xf32>
}
func.func @rowsum(%x: tensor<64x256xf32>) -> tensor<64xf32> {
  %r = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<64x256xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @rowmax(%x: tensor<40x33xf32>) -> tensor<40x1xf32> {
  %r = mindir.reduce_max %x {axes = array<i64: 1>, keep_dims = true} : (tensor<40x33xf32>) -> tensor<40x1xf32>
  return %r : tensor<40x1xf32>
}
"""


@pytest.fixture(scope="module")
def fused_prog():
    return A.compile(B1)


def test_b1_gelu_chain(fused_prog):
    x = RNG.standard_normal(4099).astype(np.float32)
    (got,) = fused_prog.call("b1", x)
    z = x.astype(np.float64) * 1.5 + 0.5
    ref = 0.5 * z * (1 + np.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3))) / (1 + np.exp(-x))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_softmax(fused_prog):
    x = RNG.standard_normal((67, 129)).astype(np.float32) * 3
    (got,) = fused_prog.call("softmax", x)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_layernorm(fused_prog):
    x = RNG.standard_normal((67, 129)).astype(np.float32)
    g, b = RNG.standard_normal(129).astype(np.float32), RNG.standard_normal(129).astype(np.float32)
    y, m, r = fused_prog.call("layernorm", x, g, b)
    xd = x.astype(np.float64)
    mu = xd.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((xd - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(m, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, rstd, rtol=1e-5)
    np.testing.assert_allclose(y, (xd - mu) * rstd * g + b, rtol=1e-5, atol=1e-5)


def test_reductions(fused_prog):
    x = RNG.standard_normal((64, 256)).astype(np.float32)
    (s,) = fused_prog.call("rowsum", x)
    np.testing.assert_allclose(s, x.astype(np.float64).sum(-1), rtol=1e-5, atol=1e-5)
    x2 = RNG.standard_normal((40, 33)).astype(np.float32)
    (mx,) = fused_prog.call("rowmax", x2)
    np.testing.assert_array_equal(mx, x2.max(-1, keepdims=True))


def test_report_and_measured_counters(fused_prog):
    k = fused_prog.kernels[next(n for n in fused_prog.kernels if "layer" in n or "mean" in n)]
    x = RNG.standard_normal((67, 129)).astype(np.float32)
    k.run(x, np.ones(129, np.float32), np.zeros(129, np.float32))
    r = k.report
    assert 0 < r["ub_bytes"] <= 192 * 1024 and r["double_buffer"] is True
    assert r["measured"]["peak_ub"] == r["ub_bytes"]                 # what InitBuffer reserved
    assert r["measured"]["datacopy_calls"] == r["datacopy_calls"]   # the model counts the copies
    assert r["cycles"] > 0 and r["l0c_bytes"] == 0
    text = fused_prog.report()
    assert "double-buffer=on" in text and "est-cycles=" in text


def test_emulation_is_said_once():
    prog = A.compile(_unary_fn("f", "exp", (8,)))
    A._WARNED = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        prog.call("f", np.ones(8, np.float32))
        prog.call("f", np.ones(8, np.float32))
    said = [x for x in w if issubclass(x.category, A.AscendEmulationWarning)]
    assert len(said) == 1 and "not an NPU" in str(said[0].message)


def test_project_layout(fused_prog, tmp_path):
    paths = fused_prog.write_project(str(tmp_path))
    k = next(iter(fused_prog.kernels.values())).name
    for rel in (f"op_kernel/{k}.cpp", f"op_host/{k}.cpp", f"op_host/{k}_tiling.h", f"launch/{k}_launch.cpp"):
        assert str(tmp_path / rel) in paths
    assert "BEGIN_TILING_DATA_DEF" in (tmp_path / f"op_host/{k}_tiling.h").read_text()
    assert (tmp_path / "report.txt").read_text().count("est-cycles=") == len(fused_prog.kernels)


# ----------------------------------------------------------------------------- planted bugs
ADD_EXP = """func.func @f(%x: tensor<37x100xf32>, %y: tensor<37x100xf32>) -> tensor<37x100xf32> {
  %a = mindir.add %x, %y : (tensor<37x100xf32>, tensor<37x100xf32>) -> tensor<37x100xf32>
  %e = mindir.exp %a : tensor<37x100xf32>
  return %e : tensor<37x100xf32>
}"""
BIG = ADD_EXP.replace("37x100", "4096x256")


@pytest.mark.parametrize("bug,text,api,what", [
    ("unaligned-copy", ADD_EXP, "DataCopy(GM->local)", "not a multiple of 32 bytes"),
    ("missing-deque", ADD_EXP, "Add", "missing DeQue"),
    ("ub-overflow", BIG, "TPipe::InitBuffer", "UB overflow"),
])
def test_planted_bug_is_caught(bug, text, api, what):
    prog = A.compile(text, bug=bug)
    k = next(iter(prog.kernels.values()))
    shape = (4096, 256) if bug == "ub-overflow" else (37, 100)
    x = np.ones(shape, np.float32)
    with pytest.raises(A.AscendEmulationError) as e:
        prog.call("f", x, x)
    msg = str(e.value)
    assert msg.startswith(f"{k.name}: {api}: ") and what in msg, msg


def test_without_bug_same_kernels_pass():
    for text, shape in ((ADD_EXP, (37, 100)), (BIG, (4096, 256))):
        prog = A.compile(text)
        x = RNG.standard_normal(shape).astype(np.float32)
        (got,) = prog.call("f", x, x)
        np.testing.assert_allclose(got, np.exp(x + x), rtol=1e-6)


def test_unsupported_kernel_is_a_clear_error():
    text = """func.func @f(%x: tensor<4x5x6xf32>) -> tensor<4x6xf32> {
  %r = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x5x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}"""
    with pytest.raises(A.AscendEmulationError, match=r"kernel @\w+: reduction over dims \[1\] of \[4, 5, 6\]"):
        A.compile(text, fallback=False)


# ----------------------------------------------------------------------------- first-axis reductions
COLRED = """func.func @sgd_bias(%x: tensor<83x37xf32>, %lr: tensor<f32>, %b: tensor<37xf32>) -> tensor<37xf32> {
  %s = mindir.reduce_sum %x {axes = array<i64: 0>} : (tensor<83x37xf32>) -> tensor<37xf32>
  %m = mindir.mul %s, %lr : (tensor<37xf32>, tensor<f32>) -> tensor<37xf32>
  %r = mindir.sub %b, %m : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32>
  return %r : tensor<37xf32>
}
func.func @exp_colmax(%x: tensor<50x200xf32>) -> (tensor<200xf32>, tensor<50x200xf32>) {
  %e = mindir.exp %x : tensor<50x200xf32>
  %s = mindir.reduce_max %e {axes = array<i64: 0>} : (tensor<50x200xf32>) -> tensor<200xf32>
  return %s, %e : tensor<200xf32>, tensor<50x200xf32>
}
func.func @mean_all(%x: tensor<8xf32>) -> tensor<f32> {
  %s = mindir.reduce_mean %x {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  return %s : tensor<f32>
}"""


@pytest.fixture(scope="module")
def colred_prog():
    return A.compile(COLRED, tile_elems=256, cores=3)


def test_first_axis_reduction_and_column_ops(colred_prog):
    x = RNG.standard_normal((83, 37)).astype(np.float32)
    lr, b = np.array(0.1, np.float32), RNG.standard_normal(37).astype(np.float32)
    (got,) = colred_prog.call("sgd_bias", x, lr, b)
    np.testing.assert_allclose(got, b - x.astype(np.float64).sum(0) * 0.1, rtol=1e-5, atol=1e-5)
    k = colred_prog.kernels[next(n for n in colred_prog.kernels if "sum_mul_sub" in n)]
    assert k.plan.mode == "col" and k.plan.tiling.R % k.plan.tiling.rb != 0      # a tail row tile
    assert "DataCopyPad(" in k.source                                            # 148-byte rows
    assert k.report["measured"]["datacopy_calls"] == k.report["datacopy_calls"]


def test_first_axis_max_with_full_output(colred_prog):
    x = RNG.standard_normal((50, 200)).astype(np.float32)
    s, e = colred_prog.call("exp_colmax", x)
    np.testing.assert_allclose(e, np.exp(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_array_equal(s, e.max(0))
    k = colred_prog.kernels[next(n for n in colred_prog.kernels if "exp" in n)]
    assert k.plan.tiling.nct > 1 and k.plan.tiling.block_dim > 1                 # chunks over cores
    assert k.report["measured"]["datacopy_calls"] == k.report["datacopy_calls"]


def test_full_reduction_to_a_scalar(colred_prog):
    x = RNG.standard_normal(8).astype(np.float32)
    (m,) = colred_prog.call("mean_all", x)
    assert m.shape == () and abs(float(m) - x.astype(np.float64).mean()) < 1e-6


# ----------------------------------------------------------------------------- cube (Mmad)
def _mm(M, K, N):
    return f"""func.func @f(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %r = "mindir.matmul"(%a, %b) : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}"""


@pytest.mark.parametrize("M,K,N", [(64, 48, 32), (70, 100, 50), (200, 300, 130)])
def test_matmul_mmad(M, K, N):
    prog = A.compile(_mm(M, K, N))
    k = next(iter(prog.kernels.values()))
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    (c,) = prog.call("f", a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    assert "Mmad(c1, a2, b2, mp);" in k.source and "Nd2NzParams" in k.source and "Fixpipe(" in k.source
    r = k.report
    assert r["l0a_bytes"] <= 64 * 1024 and r["l0c_bytes"] <= 128 * 1024 and r["l1_bytes"] > 0
    assert r["measured"]["mmad_macs"] == M * N * K
    assert r["measured"]["peak_l0a"] == r["l0a_bytes"]


def test_batched_matmul_with_epilogue_falls_back_or_is_a_clear_error():
    """A plain batched matmul runs on the cube (test_ascend_conv_pool.py); one
    with a fused epilogue is not a cube group yet: scalar fallback, or an error."""
    text = """func.func @f(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %m = mindir.batch_matmul %a, %b : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  %r = mindir.relu %m : tensor<2x8x4xf32>
  return %r : tensor<2x8x4xf32>
}"""
    with pytest.raises(A.AscendEmulationError, match=r"kernel @\w+: .*batched matmul"):
        A.compile(text, fallback=False)
    a = RNG.standard_normal((2, 8, 16)).astype(np.float32)
    b = RNG.standard_normal((2, 16, 4)).astype(np.float32)
    (c,) = A.compile(text).call("f", a, b)
    np.testing.assert_allclose(c, np.maximum(a.astype(np.float64) @ b, 0), rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------- emulator rules
RULES = r"""
using namespace AscendC;
class K {
 public:
  void Run(GM_ADDR x, GM_ADDR y, uint32_t mode) {
    xGm.SetGlobalBuffer((__gm__ float*)x, 64); yGm.SetGlobalBuffer((__gm__ float*)y, 64);
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    if (mode == 1) { LocalTensor<float> u = q.AllocTensor<float>(); }   // depth 1: no second buffer
    DataCopy(t, xGm, 64);
    if (mode == 2) { q.FreeTensor(t); Exp(t, t, 64); }                   // use after FreeTensor
    if (mode == 3) { Exp(t[1], t, 8); }                                  // unaligned vector operand
    if (mode == 4) { Exp(t, t, 65); }                                    // count beyond the tensor
    if (mode == 5) { q.EnQue(t); return; }                               // never DeQue'd
    if (mode == 6) { DataCopy(yGm[32], t, 64); }                         // GM out of bounds
    DataCopy(yGm, t, 64);
    q.FreeTensor(t);
  }
  TPipe pipe; TQue<QuePosition::VECIN, 1> q; GlobalTensor<float> xGm, yGm;
};
extern "C" __global__ __aicore__ void rules(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  K k; k.Run(x, y, td.mode);
}
"""


@pytest.mark.parametrize("mode,api,what", [
    (0, None, None),
    (1, "TQue::AllocTensor", "no free buffer"),
    (2, "Exp", "use after FreeTensor"),
    (3, "Exp", "not 32-byte aligned"),
    (4, "Exp", "65 elements requested from a tensor of 64"),
    (5, "kernel end", "never DeQue'd"),
    (6, "DataCopy(local->GM)", "GM access [0, 64) outside the buffer of 32 elements"),
])
def test_emulator_rules(mode, api, what):
    from msmlir.ascend.emulator import EmulatedKernel, build
    tiling = ("struct RulesTilingData { uint32_t mode; };\n"
              "#define GET_TILING_DATA(v, p) RulesTilingData v; std::memcpy(&v, (p), sizeof(v))\n")
    k = EmulatedKernel("rules", build("rules", RULES, tiling, 4), [(64,)], [(64,)], [mode], 2)
    x = RNG.standard_normal(64).astype(np.float32)
    if api is None:
        (y,) = k.run(x)
        np.testing.assert_array_equal(y, x)
        return
    with pytest.raises(A.AscendEmulationError) as e:
        k.run(x)
    assert str(e.value).startswith(f"rules: {api}: ") and what in str(e.value), str(e.value)


# ----------------------------------------------------------------------------- matmul groups
GROUPS = """func.func @dense_relu(%x: tensor<37x70xf32>, %w: tensor<20x70xf32>, %b: tensor<20xf32>) -> tensor<37x20xf32> {
  %m = mindir.matmul %x, %w {transpose_b = true} : (tensor<37x70xf32>, tensor<20x70xf32>) -> tensor<37x20xf32>
  %a = mindir.add %m, %b : (tensor<37x20xf32>, tensor<20xf32>) -> tensor<37x20xf32>
  %r = mindir.relu %a : tensor<37x20xf32>
  return %r : tensor<37x20xf32>
}
func.func @wgrad_sgd(%dy: tensor<37x20xf32>, %x: tensor<37x70xf32>, %lr: tensor<f32>, %w: tensor<20x70xf32>) -> tensor<20x70xf32> {
  %g = mindir.matmul %dy, %x {transpose_a = true} : (tensor<37x20xf32>, tensor<37x70xf32>) -> tensor<20x70xf32>
  %s = mindir.mul %g, %lr : (tensor<20x70xf32>, tensor<f32>) -> tensor<20x70xf32>
  %r = mindir.sub %w, %s : (tensor<20x70xf32>, tensor<20x70xf32>) -> tensor<20x70xf32>
  return %r : tensor<20x70xf32>
}
func.func @mm_tb(%a: tensor<33x40xf32>, %b: tensor<17x40xf32>) -> tensor<33x17xf32> {
  %m = mindir.matmul %a, %b {transpose_b = true} : (tensor<33x40xf32>, tensor<17x40xf32>) -> tensor<33x17xf32>
  return %m : tensor<33x17xf32>
}"""


@pytest.fixture(scope="module")
def groups_prog():
    return A.compile(GROUPS)


def test_dense_forward_group(groups_prog):
    x = RNG.standard_normal((37, 70)).astype(np.float32)
    w = RNG.standard_normal((20, 70)).astype(np.float32)
    b = RNG.standard_normal(20).astype(np.float32)
    (got,) = groups_prog.call("dense_relu", x, w, b)
    np.testing.assert_allclose(got, np.maximum(x.astype(np.float64) @ w.T + b, 0), rtol=1e-5, atol=1e-5)
    k = groups_prog.kernels[next(n for n in groups_prog.kernels if "relu" in n)]
    assert [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts] == ["tb", "mm", "ep"]
    assert k.plan.workspaces == [[70, 20], [37, 20]]
    assert k.report["measured"]["mmad_macs"] == 37 * 20 * 70
    assert "launch_" + k.name in k.sources[f"launch/{k.name}_launch.cpp"]


def test_weight_gradient_group(groups_prog):
    dy = RNG.standard_normal((37, 20)).astype(np.float32)
    x = RNG.standard_normal((37, 70)).astype(np.float32)
    w = RNG.standard_normal((20, 70)).astype(np.float32)
    (got,) = groups_prog.call("wgrad_sgd", dy, x, np.array(0.01, np.float32), w)
    np.testing.assert_allclose(got, w - 0.01 * (dy.astype(np.float64).T @ x), rtol=1e-5, atol=1e-5)


def test_transposed_matmul_without_epilogue(groups_prog):
    a = RNG.standard_normal((33, 40)).astype(np.float32)
    b = RNG.standard_normal((17, 40)).astype(np.float32)
    (got,) = groups_prog.call("mm_tb", a, b)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    k = groups_prog.kernels[next(n for n in groups_prog.kernels if "mm_tb" in n or len(groups_prog.kernels[n].parts) == 2)]
    assert len(k.parts) == 2 and k.plan.workspaces == [[40, 17]]


# ----------------------------------------------------------------------------- i1 masks
MASKS = """func.func @relu_mask(%x: tensor<37x70xf32>, %w: tensor<20x70xf32>, %b: tensor<20xf32>) -> (tensor<37x20xf32>, tensor<37x20xi1>) {
  %m = mindir.matmul %x, %w {transpose_b = true} : (tensor<37x70xf32>, tensor<20x70xf32>) -> tensor<37x20xf32>
  %a = mindir.add %m, %b : (tensor<37x20xf32>, tensor<20xf32>) -> tensor<37x20xf32>
  %r = mindir.relu %a : tensor<37x20xf32>
  %z = mindir.constant dense<0.0> : tensor<f32>
  %g = mindir.greater %r, %z : (tensor<37x20xf32>, tensor<f32>) -> tensor<37x20xi1>
  return %r, %g : tensor<37x20xf32>, tensor<37x20xi1>
}
func.func @select(%c: tensor<37x20xi1>, %x: tensor<37x20xf32>, %y: tensor<37x20xf32>) -> tensor<37x20xf32> {
  %r = mindir.select %c, %x, %y : (tensor<37x20xi1>, tensor<37x20xf32>, tensor<37x20xf32>) -> tensor<37x20xf32>
  return %r : tensor<37x20xf32>
}
func.func @less(%x: tensor<3x100xf32>, %y: tensor<3x100xf32>) -> tensor<3x100xi1> {
  %r = mindir.less %x, %y : (tensor<3x100xf32>, tensor<3x100xf32>) -> tensor<3x100xi1>
  return %r : tensor<3x100xi1>
}"""


@pytest.fixture(scope="module")
def masks_prog():
    return A.compile(MASKS, graph_kernel=True)


def test_relu_mask_output(masks_prog):
    x = RNG.standard_normal((37, 70)).astype(np.float32)
    w = RNG.standard_normal((20, 70)).astype(np.float32)
    b = RNG.standard_normal(20).astype(np.float32)
    r, g = masks_prog.call("relu_mask", x, w, b)
    ref = np.maximum(x.astype(np.float64) @ w.T + b, 0)
    np.testing.assert_allclose(r, ref, rtol=1e-5, atol=1e-5)
    assert g.dtype == np.bool_
    np.testing.assert_array_equal(g, r > 0)


def test_select_and_compare(masks_prog):
    c = RNG.random((37, 20)) > 0.5
    x, y = RNG.standard_normal((37, 20)).astype(np.float32), RNG.standard_normal((37, 20)).astype(np.float32)
    (s,) = masks_prog.call("select", c, x, y)
    np.testing.assert_array_equal(s, np.where(c, x, y))
    a, b = RNG.standard_normal((3, 100)).astype(np.float32), RNG.standard_normal((3, 100)).astype(np.float32)
    (lt,) = masks_prog.call("less", a, b)
    np.testing.assert_array_equal(lt, a < b)
    for k in masks_prog.kernels.values():
        if not k.parts:
            assert k.report["measured"]["peak_ub"] == k.report["ub_bytes"]
            assert "Compare(bits, " in k.source and "Cast(hbuf[r * pitchH]" in k.source


# ----------------------------------------------------------------------------- scalar fallback
# What the cube/vector planners still decline: a middle-axis sum; the f16
# convolution and the padded pooling next to it are on the cube / vector path
# now (conv.py in half, pool.py: a -inf slot).
FALLBACK = """func.func @conv(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x7x4xf16> {
  %y = mindir.conv2d %x, %w {stride = array<i64: 1, 2>} : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x7x4xf16>
  return %y : tensor<2x4x7x4xf16>
}
func.func @pool(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = mindir.max_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}
func.func @midsum(%x: tensor<4x5x6xf32>) -> tensor<4x6xf32> {
  %r = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x5x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}"""


@pytest.fixture(scope="module")
def fallback_prog():
    return A.compile(FALLBACK)


def test_scalar_fallback_conv_pool_midsum(fallback_prog):
    # an f16 convolution: on the cube now (f32 accumulation, one rounding to f16), within one
    # f16 ulp of the float64 result (the CPU target's f16 accumulation is not the reference)
    x = RNG.standard_normal((2, 3, 9, 9)).astype(np.float16)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float16)
    (y,) = fallback_prog.call("conv", x, w)
    ref = np.zeros((2, 4, 7, 4))
    for c in range(3):
        for i in range(3):
            for j in range(3):
                ref = ref + (x[:, None, c, i:i + 7, j:j + 7:2].astype(np.float64) * w[None, :, c, i, j, None, None])
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=1e-3, atol=2e-3)
    p = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    (m,) = fallback_prog.call("pool", p)
    pp = np.pad(p, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    np.testing.assert_array_equal(m, np.max([pp[:, :, i:i + 7:2, j:j + 7:2] for i in range(3) for j in range(3)], 0))
    s = RNG.standard_normal((4, 5, 6)).astype(np.float32)
    (r,) = fallback_prog.call("midsum", s)
    np.testing.assert_allclose(r, s.astype(np.float64).sum(1), rtol=1e-5, atol=1e-6)
    for k in fallback_prog.kernels.values():
        if k.plan.pool is not None:
            assert k.plan.pool["kind"] == "max_padded" and "SCALAR FALLBACK" not in k.source
            continue
        if "conv" in k.function:
            assert k.plan.parts and "SCALAR FALLBACK" not in k.source
            continue
        assert k.report["bound"] == "scalar fallback" and k.report["block_dim"] == 1
        assert "SCALAR FALLBACK" in k.source and "GetValue(" in k.source
        assert k.report["fallback_reason"]


def test_fallback_off_is_an_error():
    with pytest.raises(A.AscendEmulationError, match=r"kernel @\w+: reduction over dims \[1\] of \[4, 5, 6\]"):
        A.compile("func.func @midsum" + FALLBACK.split("func.func @midsum")[1], fallback=False)
