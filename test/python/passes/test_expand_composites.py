"""mindir-expand-composites: every expander against the op it expands.

Each case is a small mindir function using one composite op. All the cases of
one element type go into one module, compiled twice through the CPU pipeline:
as is (the op's own lowering) and after mindir-expand-composites; the results
must agree (f32: 1e-5 relative + 1e-6 absolute, scaled by the largest
magnitude). Gradients: mindir.grad of the same functions, with the expansion
run after mindir-autodiff (so the forward ops, the backward's softmax and the
values the bprops read are all expanded), against the plain compilation.
"""
from __future__ import annotations

import atexit

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

from msmlir.compiler import compile_mlir, compile_module, context
from msmlir.dialects import mindir
from msmlir.passes import run_pipeline
from msmlir.passes.autodiff import emit as E
from msmlir.passes.graph.expanders import expandable_ops

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    BF16 = None

EXPAND = "builtin.module(mindir-expand-composites)"
EXPAND_AFTER_AD = "builtin.module(mindir-autodiff,inline,symbol-dce,mindir-expand-composites)"
NP = {"f16": np.float16, "bf16": BF16, "f32": np.float32, "f64": np.float64,
      "i8": np.int8, "i32": np.int32, "i64": np.int64}
# (absolute, relative) error allowed, the absolute part scaled by max(1, max |ref|)
TOL = {"f64": (1e-12, 1e-11), "f32": (1e-6, 1e-5), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}

# Cases are built at collection time, so the context is entered for the
# module's lifetime and left at exit (a context still entered when the
# interpreter finalizes aborts it).
_ctx = context()
_ctx.__enter__()
_loc = ir.Location.unknown()
_loc.__enter__()
atexit.register(lambda: (_loc.__exit__(None, None, None), _ctx.__exit__(None, None, None)))


def T(shape, et) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def enum(mnemonic: str, case: str) -> ir.Attribute:
    """An enum-like attribute in the form the dialect takes: the ODS enum
    (#mindir.approximate<none>) or, before that conversion, a string."""
    try:
        return ir.Attribute.parse(f"#mindir.{mnemonic}<{case}>")
    except Exception:  # noqa: BLE001  (MLIRError / ValueError: not an enum attribute yet)
        return ir.StringAttr.get(case)


class Case:
    def __init__(self, name, op, et, args, build, pos=None):
        """args: [(shape, element type, kind)], kind "n" (normal), "w" (wide:
        +-30), "p" (positive), "l<C>" (class labels in [-1, C]: -1 and C are
        out of range). build(*values) -> value(s). pos: grad positions."""
        self.name, self.op, self.et, self.args, self.build = name, op, et, args, build
        self.types = [T(s, e) for s, e, _ in args]
        if et == "bf16":
            # the CPU runtime passes no bf16 arrays: f32 in and out, cast inside
            self.types = [T(s, "f32" if e == "bf16" else e) for s, e, _ in args]
            self.build = _through_bf16(build)
        self.pos = [i for i, (_, e, _) in enumerate(args) if e.startswith(("f", "bf"))] \
            if pos is None else pos

    def inputs(self, seed):
        rng = np.random.default_rng(seed)
        out = []
        for shape, et, kind in self.args:
            if kind.startswith("l"):
                a = rng.integers(-1, int(kind[1:]) + 1, size=shape)
            elif kind == "p":
                a = rng.uniform(0.2, 2.0, size=shape)
            elif kind == "w":
                a = rng.uniform(-30.0, 30.0, size=shape)
            else:
                a = rng.standard_normal(shape) * 2.0
            out.append(np.asarray(a).astype(NP[et]))
        if self.et == "bf16":
            out = [a.astype(np.float32) if a.dtype == BF16 else a for a in out]
        return out


def _through_bf16(build):
    def wrapped(*args):
        bf16 = ir.BF16Type.get()
        xs = [E.cast(a, bf16) if isinstance(E.elem(a), ir.F32Type) else a for a in args]
        rs = build(*xs)
        rs = [rs] if isinstance(rs, ir.Value) else list(rs)
        rs = [E.cast(r, ir.F32Type.get()) for r in rs]
        return rs[0] if len(rs) == 1 else rs
    return wrapped


def _op(cls, **attrs):
    def build(*args):
        rs = list(cls(*args, **attrs).results)
        return rs[0] if len(rs) == 1 else rs
    return build


def cases_for(et: str) -> list[Case]:
    f = et
    C = []

    def add(name, op, args, build, **kw):
        C.append(Case(f"{name}-{et}", op, et, args, build, **kw))

    i64 = E.i64
    # softmax family: every axis of a 3-D input, 2-D rows
    for axis in (0, 1, -1):
        add(f"softmax[axis={axis}]", "softmax", [((3, 5, 7), f, "w")],
            _op(mindir.SoftmaxOp, axis=i64(axis)))
        add(f"log_softmax[axis={axis}]", "log_softmax", [((3, 5, 7), f, "w")],
            _op(mindir.LogSoftmaxOp, axis=i64(axis)))
    add("softmax[rows]", "softmax", [((6, 33), f, "n")], _op(mindir.SoftmaxOp))
    add("log_softmax[rows]", "log_softmax", [((6, 33), f, "n")], _op(mindir.LogSoftmaxOp))
    # layer_norm: (begin_norm_axis, begin_params_axis, epsilon) over [4, 6, 8]
    for bna, bpa, eps in ((-1, -1, None), (1, 1, 1e-3), (1, 2, None), (2, 1, 0.5), (0, -1, None)):
        pshape = [4, 6, 8][bpa % 3:]
        kw = dict(begin_norm_axis=i64(bna), begin_params_axis=i64(bpa))
        if eps is not None:
            kw["epsilon"] = E.f64(eps)
        add(f"layer_norm[{bna},{bpa},{eps}]", "layer_norm",
            [((4, 6, 8), f, "n"), (pshape, f, "n"), (pshape, f, "n")],
            _op(mindir.LayerNormOp, **kw))
    # batch_norm: training / inference, NCHW and [N, C]
    for shape in ((3, 4, 5, 2), (6, 5)):
        c = [((shape[1],), f, "n")]
        for training in (True, False):
            kw = dict(is_training=E.boolattr(training))
            if training:
                kw["epsilon"] = E.f64(1e-3)
            add(f"batch_norm[{'x'.join(map(str, shape))},train={training}]", "batch_norm",
                [(shape, f, "n")] + c * 2 + [((shape[1],), f, "n"), ((shape[1],), f, "p")],
                _op(mindir.BatchNormOp, **kw))
    # activations
    add("gelu[tanh]", "gelu", [((5, 9), f, "w")], _op(mindir.GeluOp))
    add("gelu[tanh-explicit]", "gelu", [((5, 9), f, "n")],
        _op(mindir.GeluOp, approximate=enum("approximate", "tanh")))
    add("gelu[none]", "gelu", [((5, 9), f, "w")],
        _op(mindir.GeluOp, approximate=enum("approximate", "none")))
    add("gelu[none-small]", "gelu", [((5, 9), f, "n")],
        _op(mindir.GeluOp, approximate=enum("approximate", "none")))
    for name, cls in (("silu", mindir.SiluOp), ("sigmoid", mindir.SigmoidOp),
                      ("softplus", mindir.SoftplusOp)):
        add(f"{name}", name, [((4, 11), f, "n")], _op(cls))
        add(f"{name}[wide]", name, [((4, 11), f, "w")], _op(cls))
    add("leaky_relu", "leaky_relu", [((4, 11), f, "n")], _op(mindir.LeakyReluOp))
    add("leaky_relu[alpha=0.01]", "leaky_relu", [((4, 11), f, "n")],
        _op(mindir.LeakyReluOp, alpha=E.f64(0.01)))
    # bias_add
    add("bias_add[NCHW]", "bias_add", [((2, 3, 4, 5), f, "n"), ((3,), f, "n")],
        _op(mindir.BiasAddOp))
    add("bias_add[NC]", "bias_add", [((4, 7), f, "n"), ((7,), f, "n")], _op(mindir.BiasAddOp))
    add("bias_add[NHWC]", "bias_add", [((2, 3, 4, 5), f, "n"), ((5,), f, "n")],
        _op(mindir.BiasAddOp, data_format=enum("data_format", "NHWC")))
    add("bias_add[NCHW-explicit]", "bias_add", [((2, 3, 4), f, "n"), ((3,), f, "n")],
        _op(mindir.BiasAddOp, data_format=enum("data_format", "NCHW")))
    # cross-entropy losses
    add("softmax_cross_entropy", "softmax_cross_entropy_with_logits",
        [((6, 10), f, "w"), ((6, 10), f, "p")], _op(mindir.SoftmaxCrossEntropyWithLogitsOp))
    for lt, c in (("i32", 10), ("i64", 10), ("i8", 10), ("i8", 300)):
        add(f"sparse_softmax_cross_entropy[{lt},C={c}]", "sparse_softmax_cross_entropy_with_logits",
            [((12, c), f, "w"), ((12,), lt, f"l{c}")],
            _op(mindir.SparseSoftmaxCrossEntropyWithLogitsOp))
    return C


def int_cases() -> list[Case]:
    return [Case(f"bias_add[{et},{fmt}]", "bias_add", et,
                 [((2, 3, 4), et, "l50"), ((3 if fmt == "NCHW" else 4,), et, "l50")],
                 _op(mindir.BiasAddOp, data_format=enum("data_format", fmt)))
            for et in ("i32", "i8") for fmt in ("NCHW", "NHWC")]


def build_module(cases: list[Case], grads: bool = False) -> str:
    """@f<i> per case; with grads also @g<i> = grad of @f<i> (value and grad,
    every result's cotangent an argument)."""
    m = ir.Module.create()
    result_types = {}
    with ir.InsertionPoint(m.body):
        for i, c in enumerate(cases):
            fn = func.FuncOp.from_py_func(*[ir.Type.parse(t) for t in c.types],
                                          name=f"f{i}")(c.build)
            ftype = ir.FunctionType(ir.TypeAttr(fn.func_op.attributes["function_type"]).value)
            result_types[i] = [str(t) for t in ftype.results]
    text = str(m)
    if not grads:
        return text
    parts = [text.rstrip()[:-1]]          # drop the module's closing brace
    for i, c in enumerate(cases):
        rts = result_types[i]
        args = ", ".join(f"%a{k}: {t}" for k, t in enumerate(c.types))
        sens = ", ".join(f"%s{k}: {t}" for k, t in enumerate(rts))
        outs = rts + [c.types[p] for p in c.pos]
        names = ", ".join(f"%r{k}" for k in range(len(outs)))
        parts.append(f"""
  func.func @g{i}({args}, {sens}) -> ({", ".join(outs)}) {{
    {names} = mindir.grad @f{i}({", ".join(f"%a{k}" for k in range(len(c.types)))}) sens({", ".join(f"%s{k}" for k in range(len(rts)))} : {", ".join(rts)}) {{grad_position = array<i64: {", ".join(map(str, c.pos))}>, return_value}} : ({", ".join(c.types)}) -> ({", ".join(outs)})
    return {names} : {", ".join(outs)}
  }}""")
    parts.append("}\n")
    return "\n".join(parts)


# LLVM's -O level of the JIT (the same for both sides; the msmlir pipeline, which
# decides the numerics, is the full one either way): -O1 halves the compile time.
OPT_LEVEL = 1


def compile_both(text: str, pipeline: str = EXPAND):
    plain = compile_mlir(text, opt_level=OPT_LEVEL)
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, pipeline)
        expanded_text = str(m)
    return plain, compile_module(m, opt_level=OPT_LEVEL), expanded_text


def close(got, ref, et, what, scale=None):
    atol, rtol = TOL.get(et, (0, 0))
    got = np.asarray(got).astype(np.float64)
    ref = np.asarray(ref).astype(np.float64)
    assert got.shape == ref.shape, what
    if not np.issubdtype(np.asarray(ref).dtype, np.floating) or atol == 0:
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    scale = max(1.0, float(np.max(np.abs(ref), initial=0.0))) if scale is None else scale
    same_nan = np.isnan(got) == np.isnan(ref)
    assert same_nan.all(), f"{what}: NaN pattern differs"
    ok = np.isnan(ref) | (np.abs(got - ref) <= atol * scale + rtol * np.abs(ref))
    assert ok.all(), (f"{what}: max error {np.nanmax(np.abs(got - ref))} "
                      f"(scale {scale}) at {np.argwhere(~ok)[:3].tolist()}")


# --- forward --------------------------------------------------------------------------

GROUPS = {"f32": lambda: cases_for("f32"), "f64": lambda: cases_for("f64"),
          "f16": lambda: cases_for("f16"), "int": int_cases}
if BF16 is not None:
    GROUPS["bf16"] = lambda: cases_for("bf16")
_CASES = {g: make() for g, make in GROUPS.items()}
_COMPILED: dict = {}


def compiled(group: str):
    if group not in _COMPILED:
        _COMPILED[group] = compile_both(build_module(_CASES[group]))
    return _COMPILED[group]


def test_every_rule_has_cases():
    covered = {"mindir." + c.op for c in _CASES["f32"]}
    assert set(expandable_ops()) <= covered, set(expandable_ops()) - covered


@pytest.mark.parametrize("group", list(GROUPS))
def test_no_composite_left(group):
    _, _, text = compiled(group)
    for name in expandable_ops():
        assert f"{name} " not in text, name


# Half types: the activations compute in f32 exactly as the lowering (cast in,
# formula, cast out), so they agree to the last bit; the sums of softmax/norms
# accumulate in f32 after expansion (in the element type before), so those are
# compared with the element type's tolerance.
ELEMENTWISE = {"gelu", "silu", "sigmoid", "softplus", "leaky_relu", "bias_add"}
@pytest.mark.parametrize("group,index,name", [
    pytest.param(g, i, c.name, id=c.name) for g, cs in _CASES.items() for i, c in enumerate(cs)])
def test_forward(group, index, name):
    plain, expanded, _ = compiled(group)
    c = _CASES[group][index]
    for seed in (0, 1):
        xs = c.inputs(seed)
        ref = plain.call(f"f{index}", *xs)
        got = expanded.call(f"f{index}", *xs)
        ref = ref if isinstance(ref, (list, tuple)) else [ref]
        got = got if isinstance(got, (list, tuple)) else [got]
        for k, (a, b) in enumerate(zip(got, ref)):
            if c.et in ("f16", "bf16") and c.op in ELEMENTWISE:
                np.testing.assert_array_equal(a, b, err_msg=f"{name} result {k} (seed {seed})")
            else:
                close(a, b, c.et, f"{name} result {k} (seed {seed})")


def test_half_softmax_and_norm_against_f64():
    """f16: the expanded softmax/layer_norm against an f64 reference (not
    only against the plain lowering)."""
    plain64, _, _ = compiled("f64")
    _, expanded16, _ = compiled("f16")
    for i, c in enumerate(_CASES["f16"]):
        if c.op not in ("softmax", "log_softmax", "layer_norm", "batch_norm"):
            continue
        xs = c.inputs(3)
        ref = plain64.call(f"f{i}", *[x.astype(np.float64) for x in xs])
        got = expanded16.call(f"f{i}", *xs)
        ref = ref if isinstance(ref, (list, tuple)) else [ref]
        got = got if isinstance(got, (list, tuple)) else [got]
        for k, (a, b) in enumerate(zip(got, ref)):
            close(a, b, "f16", f"{c.name} result {k} vs f64", scale=max(1.0, np.abs(b).max()) * 4)


# --- gradients -------------------------------------------------------------------------

def grad_cases() -> list[Case]:
    return [c for c in cases_for("f32") if c.pos and "[tanh-explicit]" not in c.name]


_GRAD_CASES = grad_cases()
_GRAD_COMPILED: list = []


def grad_compiled():
    if not _GRAD_COMPILED:
        _GRAD_COMPILED.append(compile_both(build_module(_GRAD_CASES, grads=True), EXPAND_AFTER_AD))
    return _GRAD_COMPILED[0]


def test_grad_module_expanded():
    _, _, text = grad_compiled()
    for name in expandable_ops():
        assert f"{name} " not in text, name
    assert "mindir.grad" not in text


@pytest.mark.parametrize("index,name", [
    pytest.param(i, c.name, id=c.name) for i, c in enumerate(_GRAD_CASES)])
def test_grad(index, name):
    plain, expanded, _ = grad_compiled()
    c = _GRAD_CASES[index]
    xs = c.inputs(5)
    outs = plain.call(f"f{index}", *xs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    rng = np.random.default_rng(7)
    sens = [rng.standard_normal(np.shape(o)).astype(np.float32) for o in outs]
    ref = plain.call(f"g{index}", *xs, *sens)
    got = expanded.call(f"g{index}", *xs, *sens)
    for k, (a, b) in enumerate(zip(got, ref)):
        close(a, b, "f32", f"{name} grad output {k}")


# --- the option --------------------------------------------------------------------

def _expand_text(text, pipeline):
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, pipeline)
        return str(m)


def test_ops_option_restricts():
    cs = [c for c in _CASES["f32"] if c.name in ("softmax[rows]-f32", "layer_norm[-1,-1,None]-f32",
                                                  "gelu[tanh]-f32")]
    text = build_module(cs)
    out = _expand_text(text, "builtin.module(mindir-expand-composites{ops=softmax,mindir.gelu})")
    assert "mindir.softmax " not in out and "mindir.gelu " not in out
    assert "mindir.layer_norm " in out
    with pytest.raises(ir.MLIRError, match="no expander for nope"):
        _expand_text(text, "builtin.module(mindir-expand-composites{ops=nope})")
