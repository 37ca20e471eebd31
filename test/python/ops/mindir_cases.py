"""Helpers for the per-op numerics tests: build `func.func`s that apply one
mindir op to numpy inputs, compile many of them in one module (one JIT compile),
run them and compare with numpy references.

    cases = [Case("mindir.add", [x, y], expected), ...]
    check_cases(cases)          # compiles once, runs each, asserts

(pytest puts this directory on sys.path: the test directories are not packages.)

Ops are written in MLIR's generic form, so one formatter covers every op:
    %r = "mindir.add"(%arg0, %arg1) {attrs} : (tensor<..>, tensor<..>) -> tensor<..>
Result types come from the expected arrays. `via="bf16"` runs the op on bf16
(numpy has no bf16): float inputs are passed as f32 and cast to bf16 inside the
function, and float results are cast back to f32.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

MLIR_ELEM = {
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
    np.dtype(np.int8): "i8", np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
    np.dtype(np.bool_): "i1",
}


def tensor_type(shape, elem: str) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{elem}>"


def np_tensor_type(a: np.ndarray) -> str:
    return tensor_type(a.shape, MLIR_ELEM[np.dtype(a.dtype)])


# Attributes that are mindir enums (#mindir.pad_mode<same>, ...): cases give them
# as the case name, a str.
_MINDIR_ENUMS = ("pad_mode", "approximate", "data_format")


def attr_text(attrs: dict) -> str:
    """{name: python value} -> MLIR attribute dictionary text."""
    if not attrs:
        return ""
    parts = []
    for k, v in attrs.items():
        if isinstance(v, bool):
            s = "true" if v else "false"
        elif isinstance(v, (int, np.integer)):
            s = f"{int(v)} : i64"
        elif isinstance(v, (float, np.floating)):
            f = float(v)
            special = {float("inf"): "0x7FF0000000000000", float("-inf"): "0xFFF0000000000000"}
            s = (special.get(f) or ("0x7FF8000000000000" if f != f else repr(f))) + " : f64"
        elif isinstance(v, str) and v.startswith("#raw:"):
            s = v[5:]
        elif isinstance(v, str) and k in _MINDIR_ENUMS:
            s = f"#mindir.{k}<{v}>"  # an enum attribute given by its case name
        elif isinstance(v, str):
            s = f'"{v}"'
        elif isinstance(v, (list, tuple)):
            s = "array<i64" + (": " + ", ".join(str(int(x)) for x in v) if v else "") + ">"
        else:
            raise TypeError(f"attribute {k}: cannot format {v!r}")
        parts.append(f"{k} = {s}")
    return " {" + ", ".join(parts) + "}"


def bf16_round(x: np.ndarray) -> np.ndarray:
    """f32 -> nearest-even bf16 value, returned as f32."""
    x = np.asarray(x, np.float32)
    b = x.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


@dataclass
class Case:
    """One op application: op(inputs, attrs) should give `expected`."""
    op: str
    inputs: list
    expected: object  # ndarray or list of ndarrays
    attrs: dict = field(default_factory=dict)
    rtol: float = 0.0
    atol: float = 0.0
    via: str | None = None  # "bf16": run on bf16 (see module docstring)
    signed_zeros: bool = True  # exact compares also check the sign of zeros
    # i1 values live in memory (e.g. an i1 constant/fill), which the i8
    # boundary casts cannot fuse away: not run while i1 is unsupported.
    needs_i1_memory: bool = False
    label: str = ""

    @property
    def expected_list(self) -> list[np.ndarray]:
        e = self.expected
        return [np.asarray(x) for x in (e if isinstance(e, (list, tuple)) else [e])]


def _boundary(a: np.ndarray, case: Case, bool_as_i8: bool) -> tuple[str, str]:
    """(type in the function signature, type the op sees) of one array."""
    sig = np_tensor_type(a)
    if case.via == "bf16" and a.dtype == np.float32:
        return sig, tensor_type(a.shape, "bf16")
    if bool_as_i8 and a.dtype == np.bool_:
        return tensor_type(a.shape, "i8"), sig
    return sig, sig


def func_text(name: str, case: Case, bool_as_i8: bool = False) -> str:
    """One function applying the case's op; with bool_as_i8, i1 arrays cross
    the function boundary as i8 (cast inside with mindir.cast)."""
    ins = [np.asarray(a) for a in case.inputs]
    outs = case.expected_list
    in_types = [_boundary(a, case, bool_as_i8) for a in ins]
    out_types = [_boundary(o, case, bool_as_i8) for o in outs]
    lines = []
    args = [f"%arg{i}" for i in range(len(ins))]
    for i, (sig, opt) in enumerate(in_types):
        if sig != opt:
            lines.append(f'    %in{i} = "mindir.cast"({args[i]}) : ({sig}) -> {opt}')
            args[i] = f"%in{i}"
    n = len(outs)
    res = "%r" if n == 1 else f"%r:{n}"
    res_names = ["%r"] if n == 1 else [f"%r#{j}" for j in range(n)]
    op_outs = [t for _, t in out_types]
    out_t = op_outs[0] if n == 1 else "(" + ", ".join(op_outs) + ")"
    lines.append(f'    {res} = "{case.op}"({", ".join(args)}){attr_text(case.attrs)} : '
                 f'({", ".join(t for _, t in in_types)}) -> {out_t}')
    for j, (sig, opt) in enumerate(out_types):
        if sig != opt:
            lines.append(f'    %o{j} = "mindir.cast"({res_names[j]}) : ({opt}) -> {sig}')
            res_names[j] = f"%o{j}"
    sig_out = [sig for sig, _ in out_types]
    params = ", ".join(f"%arg{i}: {sig}" for i, (sig, _) in enumerate(in_types))
    return (f"  func.func @{name}({params}) -> ({', '.join(sig_out)}) {{\n"
            + "\n".join(lines)
            + f"\n    return {', '.join(res_names)} : {', '.join(sig_out)}\n  }}\n")


def module_text(cases: list[Case], bool_as_i8: bool = False) -> str:
    return "module {\n" + "\n".join(func_text(f"f{i}", c, bool_as_i8)
                                     for i, c in enumerate(cases)) + "}\n"


def describe(case: Case) -> str:
    ins = ", ".join(f"{a.dtype}{list(np.shape(a))}" for a in map(np.asarray, case.inputs))
    return f"{case.op}({ins}){attr_text(case.attrs)} {case.label}".strip()


def compare(got: np.ndarray, exp: np.ndarray, case: Case, what: str = ""):
    assert got.shape == exp.shape, f"{what}: shape {got.shape} != {exp.shape}"
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype} != {exp.dtype}"
    if np.issubdtype(exp.dtype, np.floating) and (case.rtol or case.atol):
        np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64),
                                   rtol=case.rtol, atol=case.atol, equal_nan=True,
                                   err_msg=what)
    else:  # exact, bit for bit except NaN payloads
        if np.issubdtype(exp.dtype, np.floating):
            same = (got == exp) | (np.isnan(got) & np.isnan(exp))
            if case.signed_zeros:
                same &= (np.signbit(got) == np.signbit(exp)) | np.isnan(exp)
            if not same.all():
                idx = np.argwhere(~same)[:5].tolist()
                raise AssertionError(f"{what}: not exact at {idx}: got "
                                     f"{got[~same][:5]} expected {exp[~same][:5]}")
        else:
            np.testing.assert_array_equal(got, exp, err_msg=what)


_I1_PROBE = """
import numpy as np
from msmlir.compiler import compile_mlir
m = compile_mlir('func.func @f(%a: tensor<3xi1>) -> tensor<3xi1> {'
                 '%r = "mindir.logical_not"(%a) : (tensor<3xi1>) -> tensor<3xi1> '
                 'return %r : tensor<3xi1> }')
assert (m.call("f", np.array([True, False, True]))[0] == [False, True, False]).all()
"""
_i1_ok: bool | None = None


def i1_supported() -> bool:
    """Whether msmlir-cpu-pipeline compiles i1 tensors. Probed once, in a
    subprocess: MLIR 22's finalize-memref-to-llvm asserts (aborting the
    process) on memref.load/store of i1 unless the pipeline widens them."""
    global _i1_ok
    if _i1_ok is None:
        import subprocess
        import sys
        p = subprocess.run([sys.executable, "-c", _I1_PROBE], capture_output=True)
        _i1_ok = p.returncode == 0
    return _i1_ok


def compile_cases(cases: list[Case]):
    """Compiles the cases into one module (functions f0, f1, ...) for tests that
    check results themselves. Cases must not have i1 arrays unless
    i1_supported()."""
    from msmlir.compiler import compile_mlir
    return compile_mlir(module_text(cases))


def check_cases(cases: list[Case]):
    """Compiles all cases in one module, runs each and compares; reports every
    failing case.

    While the pipeline cannot compile i1 memrefs (probed by i1_supported; it
    aborts the process), i1 arrays cross the function boundary as i8 and are
    cast to/from i1 inside the function: the op's i1 lowering is still what is
    tested, and the casts fuse into the op's linalg.generic
    (linalg-fuse-elementwise-ops), so no i1 buffer is left. Cases marked
    needs_i1_memory are then not run, and the test reports a skip after the
    other cases passed."""
    ok = i1_supported()
    skipped = [] if ok else [c for c in cases if c.needs_i1_memory]
    run = cases if ok else [c for c in cases if not c.needs_i1_memory]
    if run:
        _check(run, bool_as_i8=not ok)
    if skipped:
        pytest.skip(f"{len(skipped)} case(s) not run: msmlir-cpu-pipeline aborts on i1 "
                    "memrefs (finalize-memref-to-llvm asserts "
                    "'integralElementType.getWidth() >= 8'); the other "
                    f"{len(run)} case(s) passed")


def _check(cases: list[Case], bool_as_i8: bool):
    from msmlir.compiler import compile_mlir
    mod = compile_mlir(module_text(cases, bool_as_i8))
    failures = []
    for i, case in enumerate(cases):
        what = describe(case)
        try:
            args = [np.asarray(a) for a in case.inputs]
            if bool_as_i8:
                args = [a.astype(np.int8) if a.dtype == np.bool_ else a for a in args]
            got = mod.call(f"f{i}", *args)
            exps = case.expected_list
            assert len(got) == len(exps)
            for j, (g, e) in enumerate(zip(got, exps)):
                if bool_as_i8 and e.dtype == np.bool_:
                    assert set(np.unique(g)) <= {0, 1}, f"{what}: i1 result not 0/1: {g}"
                    g = g.astype(np.bool_)
                compare(g, e, case, f"{what} result {j}")
        except AssertionError as e:
            failures.append(f"{what}:\n{e}")
    if failures:
        pytest.fail(f"{len(failures)}/{len(cases)} cases failed:\n\n" + "\n\n".join(failures))


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# Shapes: (7, 13) odd sizes, 0-d, unit dims, rank 3.
UNARY_SHAPES = [(7, 13), (), (1,), (2, 3, 5)]
# Broadcasting pairs, incl. 0-d and size-1 dims on either side.
BINARY_SHAPES = [((7, 13), (7, 13)), ((7, 13), (13,)), ((7, 1), (1, 13)), ((), (7, 13)),
                 ((2, 1, 5), (3, 1)), ((1,), ())]
