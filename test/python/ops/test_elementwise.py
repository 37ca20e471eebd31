"""Numerics of the elementwise mindir ops, compiled through msmlir-cpu-pipeline
and compared with numpy (references computed in float64 and rounded, unless the
op is exact in the element type)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mindir_cases import BINARY_SHAPES, UNARY_SHAPES, Case, bf16_round, check_cases, rng

FLOATS = [np.float32, np.float64, np.float16]
INTS = [np.int8, np.int32, np.int64]
EPS = {np.float16: 2.0 ** -10, np.float32: 2.0 ** -23, np.float64: 2.0 ** -52}

_erf = np.vectorize(math.erf, otypes=[np.float64])


def uniform(lo, hi):
    return lambda r, shape, dt: np.asarray(r.uniform(lo, hi, shape)).astype(dt)


def tol(dt, ulps, atol_ulps=None):
    """(rtol, atol) of `ulps` units of the type's epsilon; f16 results are
    computed in f32 and rounded once, so they get one f16 ulp at least."""
    e = EPS[dt]
    if dt == np.float16:
        ulps = max(ulps, 1.0)
    a = ulps if atol_ulps is None else atol_ulps
    return ulps * e, a * e


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _gelu_erf(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


# name -> (float64 reference, input domain, ulps (rtol), atol ulps, attrs)
UNARY_FLOAT = {
    "exp": (np.exp, uniform(-10, 10), 2, 0, {}),
    "log": (np.log, uniform(0.01, 100), 2, 2, {}),
    "log1p": (np.log1p, uniform(-0.9, 10), 2, 2, {}),
    "expm1": (np.expm1, uniform(-5, 5), 2, 2, {}),
    "sqrt": (np.sqrt, uniform(0, 100), 0, 0, {}),  # correctly rounded: exact
    "rsqrt": (lambda x: 1 / np.sqrt(x), uniform(0.01, 100), 2, 0, {}),
    "reciprocal": (lambda x: 1 / x, uniform(0.1, 10), 0, 0, {}),
    "sin": (np.sin, uniform(-10, 10), 2, 2, {}),
    "cos": (np.cos, uniform(-10, 10), 2, 2, {}),
    "tanh": (np.tanh, uniform(-5, 5), 2, 2, {}),
    "erf": (_erf, uniform(-3, 3), 2, 2, {}),
    "sigmoid": (_sigmoid, uniform(-20, 20), 4, 2, {}),
    "softplus": (lambda x: np.logaddexp(0.0, x), uniform(-30, 30), 4, 2, {}),
    "silu": (lambda x: x * _sigmoid(x), uniform(-20, 20), 4, 8, {}),
    "floor": (np.floor, uniform(-10, 10), 0, 0, {}),
    "ceil": (np.ceil, uniform(-10, 10), 0, 0, {}),
    "gelu": (_gelu_tanh, uniform(-6, 6), 8, 16, {}),
    "gelu_none": (_gelu_erf, uniform(-6, 6), 8, 16, {"approximate": "none"}),
    "leaky_relu": (lambda x: np.where(x >= 0, x, 0.2 * x), uniform(-5, 5), 1, 0, {}),
    "leaky_relu_alpha": (lambda x: np.where(x >= 0, x, 0.01 * x), uniform(-5, 5), 1, 0,
                         {"alpha": 0.01}),
}
_OPNAME = {"gelu_none": "gelu", "leaky_relu_alpha": "leaky_relu"}

# Special inputs where numpy defines the result (inf, nan, signed zeros).
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0])
SPECIAL_OPS = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "tanh", "erf",
               "sigmoid", "softplus", "floor", "ceil", "leaky_relu"]


@pytest.mark.parametrize("name", list(UNARY_FLOAT))
def test_unary_float(name):
    ref, dom, ulps, aulps, attrs = UNARY_FLOAT[name]
    op = "mindir." + _OPNAME.get(name, name)
    r = rng(1)
    cases = []
    for dt in FLOATS:
        rt, at = tol(dt, ulps, aulps)
        for shape in [(7, 13), (), (2, 3, 5)] if dt == np.float32 else [(7, 13)]:
            x = dom(r, shape, dt)
            cases.append(Case(op, [x], ref(x.astype(np.float64)).astype(dt), attrs, rt, at))
        if name in SPECIAL_OPS and dt != np.float64:
            x = SPECIAL.astype(dt)
            with np.errstate(all="ignore"):
                cases.append(Case(op, [x], ref(x.astype(np.float64)).astype(dt), attrs,
                                  rt, at, label="special values"))
    # bf16 (computed in f32, rounded once): inputs are bf16 values.
    x = bf16_round(dom(r, (7, 13), np.float32))
    exp = bf16_round(ref(x.astype(np.float64)).astype(np.float32))
    cases.append(Case(op, [x], exp, attrs, 2.0 ** -7, 2.0 ** -7 * 4 if aulps else 0,
                      via="bf16"))
    check_cases(cases)


def test_round_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 3.5, -7.5, 1e8, np.nan, -0.0],
                 np.float32)
    cases = [Case("mindir.round", [x.astype(dt)], np.round(x.astype(dt))) for dt in FLOATS]
    r = rng(2)
    y = r.uniform(-100, 100, (7, 13)).astype(np.float32)
    cases.append(Case("mindir.round", [y], np.round(y)))
    check_cases(cases)


def test_log1p_expm1_small_arguments():
    x = np.array([1e-7, -1e-7, 1e-5, -3e-6, 1e-3, 2e-10], np.float32)
    cases = []
    for name, ref in (("log1p", np.log1p), ("expm1", np.expm1)):
        for dt in (np.float32, np.float64):
            xd = x.astype(dt)
            rt, at = tol(dt, 2, 0)
            cases.append(Case("mindir." + name, [xd], ref(xd.astype(np.float64)).astype(dt),
                              rtol=rt, atol=at))
    check_cases(cases)


def _int_inputs(r, shape, dt, lo=None, hi=None):
    info = np.iinfo(dt)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return np.asarray(r.integers(lo, hi, shape, endpoint=True)).astype(dt)


# name -> (reference on the typed array, float domain)
UNARY_NUM = {
    "neg": (np.negative, uniform(-10, 10)),
    "abs": (np.abs, uniform(-10, 10)),
    "sign": (np.sign, uniform(-2, 2)),
    "square": (np.square, uniform(-10, 10)),
    "relu": (lambda x: np.maximum(x, np.zeros((), x.dtype)), uniform(-10, 10)),
}


@pytest.mark.parametrize("name", list(UNARY_NUM))
def test_unary_numeric(name):
    ref, dom = UNARY_NUM[name]
    op = "mindir." + name
    # relu(-0.0): numpy.maximum gives -0.0, arith.maximumf may give +0.0 (IEEE
    # maximum orders -0 < +0); either is accepted.
    zs = name != "relu"
    r = rng(3)
    cases = []
    for dt in FLOATS:
        for shape in UNARY_SHAPES if dt == np.float32 else [(7, 13)]:
            x = dom(r, shape, dt)
            if shape == (7, 13):
                x.flat[:3] = [0.0, -0.0, 0.0]
            # exact in the type (numpy rounds the same)
            cases.append(Case(op, [x], ref(x), signed_zeros=zs))
        x = SPECIAL.astype(dt)
        cases.append(Case(op, [x], ref(x), label="special values", signed_zeros=zs))
    for dt in INTS:  # the full range: wrap-around as numpy (neg/abs of INT_MIN)
        for shape in [(7, 13), ()] if dt == np.int32 else [(7, 13)]:
            x = _int_inputs(r, shape, dt)
            if shape:
                x.flat[:3] = [0, np.iinfo(dt).min, np.iinfo(dt).max]
            cases.append(Case(op, [x], ref(x)))
    x = bf16_round(dom(r, (7, 13), np.float32))
    cases.append(Case(op, [x], bf16_round(ref(x)), via="bf16"))
    check_cases(cases)


def test_logical_not_isnan_isfinite():
    r = rng(4)
    cases = []
    for shape in UNARY_SHAPES:
        b = r.random(shape) < 0.5
        cases.append(Case("mindir.logical_not", [np.asarray(b)], np.logical_not(b)))
    for dt in FLOATS:
        x = r.uniform(-5, 5, (7, 13)).astype(dt)
        x.flat[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, -np.nan, 1e30 if dt != np.float16
                      else 6e4, 1e-40 if dt != np.float16 else 1e-7]
        cases.append(Case("mindir.isnan", [x], np.isnan(x)))
        cases.append(Case("mindir.isfinite", [x], np.isfinite(x)))
        x0 = np.array(np.nan, dt)
        cases.append(Case("mindir.isnan", [x0], np.isnan(x0)))
        cases.append(Case("mindir.isfinite", [x0], np.isfinite(x0)))
    check_cases(cases)


def test_stop_gradient():
    r = rng(5)
    x = r.standard_normal((7, 13)).astype(np.float32)
    i = r.integers(-100, 100, (3,)).astype(np.int32)
    b = np.array(True)
    check_cases([Case("mindir.stop_gradient", [v], v.copy()) for v in (x, i, b)])


def test_cast():
    r = rng(6)
    f = r.uniform(-100, 100, (7, 13)).astype(np.float32)
    f.flat[:6] = [0.5, -0.5, 1.999, -1.999, 0.0, -0.0]  # toward zero
    fb = f.copy()
    fb.flat[6:8] = [np.nan, 0.0]
    i32 = r.integers(-(2 ** 31), 2 ** 31, (7, 13)).astype(np.int32)
    i64 = r.integers(-(2 ** 62), 2 ** 62, (7, 13)).astype(np.int64)
    i8 = r.integers(-128, 128, (7, 13)).astype(np.int8)
    i8.flat[:2] = [-128, 127]
    b = r.random((7, 13)) < 0.5
    small = r.integers(-(2 ** 20), 2 ** 20, (7, 13)).astype(np.int32)
    cases = [
        Case("mindir.cast", [f], f.astype(np.int32)),
        Case("mindir.cast", [f], f.astype(np.int8)),
        Case("mindir.cast", [f.astype(np.float64)], f.astype(np.float64).astype(np.int64)),
        Case("mindir.cast", [f.astype(np.float16)], f.astype(np.float16).astype(np.int32)),
        Case("mindir.cast", [f], f.astype(np.float16)),
        Case("mindir.cast", [f], f.astype(np.float64)),
        Case("mindir.cast", [f.astype(np.float64) / 3], (f.astype(np.float64) / 3)
             .astype(np.float32)),
        Case("mindir.cast", [f.astype(np.float64) / 3], (f.astype(np.float64) / 3)
             .astype(np.float16)),
        Case("mindir.cast", [f.astype(np.float16)], f.astype(np.float16).astype(np.float32)),
        Case("mindir.cast", [f.astype(np.float16)], f.astype(np.float16).astype(np.float64)),
        Case("mindir.cast", [i32], i32.astype(np.float32)),
        Case("mindir.cast", [i64], i64.astype(np.float64)),
        Case("mindir.cast", [i64], i64.astype(np.float32)),
        Case("mindir.cast", [small], small.astype(np.float16)),
        Case("mindir.cast", [i8], i8.astype(np.float16)),
        Case("mindir.cast", [i64], i64.astype(np.int32)),  # wraps
        Case("mindir.cast", [i32], i32.astype(np.int8)),  # wraps
        Case("mindir.cast", [i8], i8.astype(np.int64)),  # sign-extends
        Case("mindir.cast", [i32], i32.astype(np.int64)),
        Case("mindir.cast", [i8], i8.astype(np.bool_)),  # x != 0
        Case("mindir.cast", [i64 % 3], (i64 % 3).astype(np.bool_)),
        Case("mindir.cast", [fb], fb.astype(np.bool_)),  # NaN -> true, 0 -> false
        Case("mindir.cast", [b], b.astype(np.float32)),
        Case("mindir.cast", [b], b.astype(np.int32)),
        Case("mindir.cast", [b], b.astype(np.int8)),
        Case("mindir.cast", [np.array(2.75, np.float32)], np.array(2, np.int64)),
        Case("mindir.cast", [np.array(-3, np.int32)], np.array(-3.0, np.float64)),
    ]
    check_cases(cases)


def test_cast_bf16():
    """f32 -> bf16 rounds to nearest even; bf16 -> f32/int exact/truncating."""
    r = rng(7)
    f = r.uniform(-300, 300, (7, 13)).astype(np.float32)
    fb = bf16_round(f)
    cases = [
        # round trip f32 -> bf16 -> f32 (the harness casts on both sides)
        Case("mindir.stop_gradient", [f], fb, via="bf16"),
        Case("mindir.cast", [f], fb.astype(np.float64), via="bf16"),  # bf16 -> f64
        Case("mindir.cast", [f], fb.astype(np.int32), via="bf16"),  # bf16 -> i32
    ]
    check_cases(cases)


# --- binary ----------------------------------------------------------------------

def _pair(r, shapes, dt, dom):
    return [dom(r, s, dt) for s in shapes]


def _float_dom(lo, hi):
    return lambda r, s, dt: np.asarray(r.uniform(lo, hi, s)).astype(dt)


def _nonzero_dom(lo, hi):
    def f(r, s, dt):
        v = r.uniform(lo, hi, s) * np.where(r.random(s) < 0.5, -1, 1)
        return np.asarray(v).astype(dt)
    return f


def _int_dom(lo=None, hi=None):
    return lambda r, s, dt: _int_inputs(r, s, dt, lo, hi)


def _binary_cases(op, ref, dts, doms, seed, shapes_all=np.float32, tol_ulps=0,
                  bf16=True):
    """Cases over BINARY_SHAPES for the first dtype of each kind, two shapes for
    the rest; `doms[kind]` makes (x, y) for a shape pair."""
    r = rng(seed)
    cases = []
    for dt in dts:
        kind = "f" if np.issubdtype(dt, np.floating) else "i"
        # every broadcasting pattern for f32, three for i32, one for the rest
        shape_list = (BINARY_SHAPES if dt == np.float32 else
                      BINARY_SHAPES[1:4] if dt == np.int32 else BINARY_SHAPES[2:3])
        for shapes in shape_list:
            x, y = doms[kind](r, shapes, dt)
            exp = ref(x, y)
            rt = at = 0.0
            if kind == "f" and tol_ulps:
                rt, at = tol(dt, tol_ulps)
            cases.append(Case(op, [x, y], np.asarray(exp).astype(exp.dtype), rtol=rt, atol=at))
    if bf16:
        x, y = doms["f"](r, BINARY_SHAPES[1], np.float32)
        x, y = bf16_round(x), bf16_round(y)
        exp = bf16_round(ref(x.astype(np.float64), y.astype(np.float64)).astype(np.float32))
        cases.append(Case(op, [x, y], exp, rtol=2.0 ** -8, atol=0, via="bf16"))
    return cases


def _doms(fdom, idom):
    return {"f": lambda r, shapes, dt: [fdom(r, s, dt) for s in shapes],
            "i": lambda r, shapes, dt: [idom(r, s, dt) for s in shapes]}


def test_add_sub_mul():
    doms = _doms(_float_dom(-10, 10), _int_dom())  # ints wrap like numpy
    cases = []
    for seed, (name, ref) in enumerate([("add", np.add), ("sub", np.subtract),
                                        ("mul", np.multiply)]):
        cases += _binary_cases("mindir." + name, ref, FLOATS + INTS, doms, 10 + seed)
    # special values
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0], np.float32)
    y = np.array([-np.inf, -np.inf, 1.0, -0.0, -0.0, np.inf], np.float32)
    cases += [Case("mindir.add", [x, y], x + y), Case("mindir.sub", [x, y], x - y),
              Case("mindir.mul", [x, y], x * y)]
    check_cases(cases)


def _trunc_div(x, y):
    y1 = np.where(y == 0, 1, y)
    q = np.abs(x.astype(np.int64)) // np.abs(y1.astype(np.int64))
    q = np.where((x < 0) != (y1 < 0), -q, q)
    return np.where(y == 0, 0, q).astype(x.dtype)


def test_div():
    doms = _doms(_nonzero_dom(0.5, 5), _int_dom(-1000, 1000))
    doms["i"] = lambda r, shapes, dt: [_int_inputs(r, shapes[0], dt, -120, 120),
                                       _int_inputs(r, shapes[1], dt, -12, 12)]
    cases = _binary_cases("mindir.div", lambda x, y: x / y if x.dtype.kind == "f"
                          else _trunc_div(x, y), FLOATS + INTS, doms, 20)
    # integer division truncates toward zero; by 0 gives 0; INT_MIN / -1 wraps
    for dt in INTS:
        m = np.iinfo(dt).min
        x = np.array([7, -7, 7, -7, 5, 0, m, m], dt)
        y = np.array([2, 2, -2, -2, 0, 0, -1, 1], dt)
        exp = np.array([3, -3, -3, 3, 0, 0, m, m], dt)
        cases.append(Case("mindir.div", [x, y], exp))
    x = np.array([1.0, -1.0, 0.0, np.inf], np.float32)
    y = np.array([0.0, 0.0, 0.0, np.inf], np.float32)
    cases.append(Case("mindir.div", [x, y], x / y))
    check_cases(cases)


def test_floordiv():
    doms = _doms(_nonzero_dom(0.3, 5), _int_dom())
    doms["f"] = lambda r, shapes, dt: [np.asarray(r.uniform(-20, 20, shapes[0])).astype(dt),
                                       _nonzero_dom(0.3, 5)(r, shapes[1], dt)]
    doms["i"] = lambda r, shapes, dt: [_int_inputs(r, shapes[0], dt, -120, 120),
                                       _int_inputs(r, shapes[1], dt, -12, 12)]
    # floats: floor(x / y) with the quotient rounded to the element type
    cases = _binary_cases("mindir.floordiv", lambda x, y: np.floor(x / y) if x.dtype.kind
                          == "f" else np.floor_divide(x, y), FLOATS + INTS, doms, 21,
                          bf16=False)
    for dt in INTS:
        m = np.iinfo(dt).min
        x = np.array([7, -7, 7, -7, 6, -6, 5, 0, m, m], dt)
        y = np.array([2, 2, -2, -2, 3, -3, 0, 0, -1, 1], dt)
        cases.append(Case("mindir.floordiv", [x, y], np.array([3, -4, -4, 3, 2, 2, 0, 0, m, m],
                                                              dt)))
    check_cases(cases)


def test_mod():
    doms = _doms(None, None)
    doms["f"] = lambda r, shapes, dt: [np.asarray(r.uniform(-20, 20, shapes[0])).astype(dt),
                                       _nonzero_dom(0.3, 5)(r, shapes[1], dt)]
    doms["i"] = lambda r, shapes, dt: [_int_inputs(r, shapes[0], dt),
                                       _int_inputs(r, shapes[1], dt, -12, 12)]
    # numpy.remainder: exact (fmod-based) for floats, sign of the divisor
    cases = _binary_cases("mindir.mod", np.mod, FLOATS + INTS, doms, 22, bf16=False)
    for dt in FLOATS:
        x = np.array([7.5, -7.5, 7.5, -7.5, 4.0, -4.0, 3.0, np.inf, 1.0], dt)
        y = np.array([2.0, 2.0, -2.0, -2.0, 2.0, -2.0, 0.0, 2.0, np.inf], dt)
        cases.append(Case("mindir.mod", [x, y], np.mod(x, y), label="special values"))
    for dt in INTS:
        m = np.iinfo(dt).min
        x = np.array([7, -7, 7, -7, 5, 0, m, m], dt)
        y = np.array([2, 2, -2, -2, 0, 0, -1, 3], dt)
        cases.append(Case("mindir.mod", [x, y], np.mod(x, y)))
    check_cases(cases)


def test_pow():
    doms = {"f": lambda r, shapes, dt: [np.asarray(r.uniform(0.1, 10, shapes[0])).astype(dt),
                                        np.asarray(r.uniform(-3, 3, shapes[1])).astype(dt)]}
    cases = _binary_cases("mindir.pow", lambda x, y: np.power(x.astype(np.float64), y)
                          .astype(x.dtype), FLOATS, doms, 23, tol_ulps=4)
    for c in cases:
        if c.via == "bf16":
            c.rtol = 2.0 ** -7
    x = np.array([-2.0, -2.0, 0.0, 0.0, 1.0, np.nan, 4.0], np.float32)
    y = np.array([3.0, 2.0, 0.0, -1.0, np.nan, 0.0, 0.5], np.float32)
    cases.append(Case("mindir.pow", [x, y], np.power(x, y), label="special values"))
    check_cases(cases)


def _with_nans(dom, frac=0.1):
    def f(r, s, dt):
        v = dom(r, s, dt)
        if np.issubdtype(dt, np.floating) and np.ndim(v):
            v[r.random(np.shape(v)) < frac] = np.nan
        return v
    return f


def test_maximum_minimum():
    doms = _doms(_with_nans(_float_dom(-10, 10)), _int_dom())
    cases = []
    for name, ref in (("maximum", np.maximum), ("minimum", np.minimum)):
        cases += _binary_cases("mindir." + name, ref, FLOATS + INTS, doms, 24)
        x = np.array([0.0, -0.0, np.nan, 1.0, np.inf], np.float32)
        y = np.array([-0.0, 0.0, 1.0, np.nan, np.nan], np.float32)
        cases.append(Case("mindir." + name, [x, y], ref(x, y), label="special values"))
    check_cases(cases)


def _small_ints(r, s, dt):
    return np.asarray(r.integers(-3, 4, s)).astype(dt)


COMPARES = [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
            ("less_equal", np.less_equal), ("greater", np.greater),
            ("greater_equal", np.greater_equal)]


@pytest.mark.parametrize("name,ref", COMPARES, ids=[c[0] for c in COMPARES])
def test_compare(name, ref):
    # Small integer values (also as floats) so that equal elements occur; NaNs
    # compare false except for not_equal.
    doms = _doms(_with_nans(_small_ints, 0.15), _small_ints)
    cases = _binary_cases("mindir." + name, ref, FLOATS + INTS, doms, 25, bf16=False)
    r = rng(26)
    a, b = r.random((7, 13)) < 0.5, r.random((13,)) < 0.5
    cases.append(Case("mindir." + name, [a, b], ref(a, b)))  # i1: false < true
    i = np.array([np.iinfo(np.int64).min, -1, 0, 5], np.int64)
    j = np.array([0, 0, -1, np.iinfo(np.int64).max], np.int64)
    cases.append(Case("mindir." + name, [i, j], ref(i, j)))  # signed
    check_cases(cases)


def test_logical_and_or():
    r = rng(27)
    cases = []
    for sa, sb in BINARY_SHAPES:
        a, b = np.asarray(r.random(sa) < 0.5), np.asarray(r.random(sb) < 0.5)
        cases.append(Case("mindir.logical_and", [a, b], np.logical_and(a, b)))
        cases.append(Case("mindir.logical_or", [a, b], np.logical_or(a, b)))
    check_cases(cases)


def test_select():
    r = rng(28)
    shapes = [((7, 13), (7, 13), (7, 13)), ((7, 1), (13,), ()), ((), (2, 3), (2, 1)),
              ((2, 1, 5), (3, 1), (1, 5))]
    cases = []
    for dt in (np.float32, np.int32, np.bool_, np.float16, np.int64):
        for sc, sx, sy in shapes:
            cond = np.asarray(r.random(sc) < 0.5)
            x = np.asarray(r.integers(-50, 50, sx)).astype(dt)
            y = np.asarray(r.integers(-50, 50, sy)).astype(dt)
            cases.append(Case("mindir.select", [cond, x, y], np.where(cond, x, y)))
    check_cases(cases)


def test_clamp():
    r = rng(29)
    shapes = [((7, 13), (7, 13), (7, 13)), ((7, 13), (), ()), ((7, 1), (13,), (7, 1)),
              ((), (2, 3), ())]
    cases = []
    for dt in (np.float32, np.int32, np.float64, np.int8, np.float16):
        for sx, slo, shi in shapes:
            x = np.asarray(r.integers(-100, 100, sx)).astype(dt)
            lo = np.asarray(r.integers(-60, 0, slo)).astype(dt)
            hi = np.asarray(r.integers(0, 60, shi)).astype(dt)
            if dt == np.float32 and np.ndim(x):
                x.flat[0] = np.nan  # propagates
            cases.append(Case("mindir.clamp", [x, lo, hi], np.minimum(np.maximum(x, lo), hi)))
    check_cases(cases)
