"""msmlir.numpy elementwise functions vs numpy, eager (one compiled kernel per call)."""
import numpy as np
import pytest

import msmlir.numpy as mnp

RNG = np.random.default_rng(0)
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1e-30, 3e30],
                   np.float32)


def _vals(domain):
    """Random float32 values of the function's domain followed by special values."""
    lo, hi = {"any": (-4, 4), "pos": (0.05, 6), "unit": (-0.999, 0.999), "ge1": (1, 50),
              "trig": (-3, 3)}[domain]
    return np.concatenate([RNG.uniform(lo, hi, 21).astype(np.float32), SPECIAL])


def _close(got, want, rtol=1e-5, atol=0.0):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


# (name, numpy reference, domain of the random part, extra atol)
UNARY = [
    ("negative", np.negative, "any", 0), ("positive", np.positive, "any", 0),
    ("absolute", np.absolute, "any", 0), ("sign", np.sign, "any", 0),
    ("sqrt", np.sqrt, "pos", 0), ("square", np.square, "any", 0), ("cbrt", np.cbrt, "any", 0),
    ("reciprocal", np.reciprocal, "any", 0), ("exp", np.exp, "any", 0),
    ("exp2", np.exp2, "any", 0), ("expm1", np.expm1, "any", 0), ("log", np.log, "pos", 0),
    ("log2", np.log2, "pos", 0), ("log10", np.log10, "pos", 0), ("log1p", np.log1p, "pos", 0),
    ("sin", np.sin, "trig", 1e-7), ("cos", np.cos, "trig", 1e-7), ("tan", np.tan, "trig", 1e-7),
    ("arcsin", np.arcsin, "unit", 0), ("arccos", np.arccos, "unit", 0),
    ("arctan", np.arctan, "any", 0), ("sinh", np.sinh, "any", 0), ("cosh", np.cosh, "any", 0),
    ("tanh", np.tanh, "any", 0), ("arcsinh", np.arcsinh, "any", 0),
    ("arccosh", np.arccosh, "ge1", 0), ("arctanh", np.arctanh, "unit", 0),
    ("floor", np.floor, "any", 0), ("ceil", np.ceil, "any", 0), ("rint", np.rint, "any", 0),
    ("trunc", np.trunc, "any", 0), ("fix", np.fix, "any", 0), ("deg2rad", np.deg2rad, "any", 0),
    ("rad2deg", np.rad2deg, "any", 0),
]


@pytest.mark.parametrize("name,ref,domain,atol", UNARY, ids=[u[0] for u in UNARY])
def test_unary_float32(name, ref, domain, atol):
    x = _vals(domain)
    if name in ("sin", "cos", "tan"):
        x = x[np.abs(x) < 1e3]  # no large-argument range reduction test
    _close(getattr(mnp, name)(x), ref(x), atol=atol)


def test_unary_2d_and_aliases():
    x = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
    _close(mnp.abs(x), np.abs(x))
    _close(mnp.fabs(x), np.fabs(x))
    _close(mnp.radians(x), np.radians(x))
    _close(mnp.degrees(x), np.degrees(x))
    _close(mnp.arctan(x), np.arctan(x))


def test_unary_int_inputs():
    i = np.array([[1, 4, 9], [16, 2, 3]], np.int32)
    _close(mnp.sqrt(i), np.sqrt(i).astype(np.float32))         # float32, not float64
    _close(mnp.exp(i), np.exp(i).astype(np.float32))
    np.testing.assert_array_equal(mnp.negative(i), -i)
    assert mnp.negative(i).dtype == np.int32
    np.testing.assert_array_equal(mnp.absolute(np.array([-3, 2], np.int32)), [3, 2])
    np.testing.assert_array_equal(mnp.square(i), i * i)
    np.testing.assert_array_equal(mnp.sign(np.array([-3, 0, 2], np.int32)), [-1, 0, 1])


def test_unary_dtype_argument():
    x = np.array([1.7, -2.2], np.float32)
    out = mnp.absolute(x, dtype=mnp.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, 2])


def test_unary_float16_via_float32():
    x = np.linspace(-3, 3, 13).astype(np.float16)
    out = mnp.arctan(x)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, np.arctan(x), rtol=1e-3)


def test_float64_arctan_family():
    x = np.linspace(-0.999, 0.999, 41)
    np.testing.assert_allclose(mnp.arctan(x * 30), np.arctan(x * 30), rtol=1e-14)
    np.testing.assert_allclose(mnp.arcsin(x), np.arcsin(x), rtol=1e-14)


def test_around():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.2345, -7.655, 123.456], np.float32)
    _close(mnp.around(x), np.around(x))
    _close(mnp.around(x, 2), np.around(x, 2))
    _close(mnp.round(x, -1), np.round(x, -1))
    i = np.array([15, 25, -15, 14, 16, 35], np.int32)
    np.testing.assert_array_equal(mnp.around(i, -1), np.around(i, -1))
    np.testing.assert_array_equal(mnp.around(i), i)


# (name, numpy reference, domain of x1, domain of x2)
BINARY = [
    ("add", np.add, "any", "any"), ("subtract", np.subtract, "any", "any"),
    ("multiply", np.multiply, "any", "any"), ("divide", np.divide, "any", "any"),
    ("true_divide", np.true_divide, "any", "any"), ("floor_divide", np.floor_divide, "any", "pos"),
    ("remainder", np.remainder, "any", "any"), ("mod", np.mod, "any", "pos"),
    ("fmod", np.fmod, "any", "any"), ("power", np.power, "pos", "any"),
    ("maximum", np.maximum, "any", "any"), ("minimum", np.minimum, "any", "any"),
    ("fmax", np.fmax, "any", "any"), ("fmin", np.fmin, "any", "any"),
    ("arctan2", np.arctan2, "any", "any"), ("hypot", np.hypot, "any", "any"),
    ("copysign", np.copysign, "any", "any"), ("heaviside", np.heaviside, "any", "any"),
    ("logaddexp", np.logaddexp, "any", "any"), ("logaddexp2", np.logaddexp2, "any", "any"),
]


@pytest.mark.parametrize("name,ref,d1,d2", BINARY, ids=[b[0] for b in BINARY])
def test_binary_float32(name, ref, d1, d2):
    # all pairs of values (incl. the specials), as a broadcast (n, 1) x (m,)
    x1 = _vals(d1)[:, None]
    x2 = _vals(d2)[::2].copy()
    want = ref(x1, x2)
    got = getattr(mnp, name)(x1, x2)
    _close(got, want, atol=1e-6 if name in ("fmod", "remainder", "floor_divide", "mod") else 0)


def test_signed_zero_conventions_of_arctan2():
    y = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf], np.float32)
    x = np.array([0.0, 0.0, -0.0, -0.0, -0.0, -0.0, np.inf, -np.inf, -1.0], np.float32)
    got = np.asarray(mnp.arctan2(y, x))
    want = np.arctan2(y, x)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_integer_arithmetic_exact():
    a = np.array([[7, -7, 9, -9], [0, 5, -13, 100]], np.int32)
    b = np.array([2, 3, -4, 5], np.int32)
    for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "maximum",
                 "minimum"):
        got = getattr(mnp, name)(a, b)
        assert got.dtype == np.int32, name
        np.testing.assert_array_equal(got, getattr(np, name)(a, b), err_msg=name)
    d = mnp.divide(a, b)
    assert d.dtype == np.float32
    np.testing.assert_allclose(d, (a / b).astype(np.float32), rtol=1e-6)
    q, r = mnp.divmod(a, b)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


def test_integer_power():
    a = np.array([2, -3, 5, 0, 1, -1, 7], np.int32)
    e = np.array([10, 3, 0, 4, 31, 7, 11], np.int32)
    np.testing.assert_array_equal(mnp.power(a, e), np.power(a, e))
    np.testing.assert_array_equal(mnp.power(a, 3), a ** 3)
    fp = mnp.float_power(a, 2)
    assert fp.dtype == np.float32
    np.testing.assert_array_equal(fp, np.float_power(a, 2))


def test_scalar_operands_are_weak():
    x = np.array([1, 2, 3], np.int32)
    assert mnp.add(x, 2).dtype == np.int32
    assert mnp.add(x, 2.5).dtype == np.float32
    h = np.array([1, 2], np.float16)
    assert mnp.multiply(h, 3.0).dtype == np.float16
    np.testing.assert_allclose(mnp.power(np.array([2.0, 3.0], np.float32), 0.5), np.sqrt([2.0, 3.0]),
                               rtol=1e-6)
    # Python scalars only: mindspore.numpy's default dtypes
    r = mnp.add(2, 3)
    assert np.asarray(r).dtype == np.int32 and int(r) == 5
    assert np.asarray(mnp.multiply(2.0, [1, 2])).dtype == np.float32


def test_clip():
    x = RNG.uniform(-5, 5, (4, 5)).astype(np.float32)
    _close(mnp.clip(x, -1, 2), np.clip(x, -1, 2))
    _close(mnp.clip(x, None, 0.5), np.clip(x, None, 0.5))
    lo = np.linspace(-3, 0, 5).astype(np.float32)
    _close(mnp.clip(x, lo, 1.0), np.clip(x, lo, 1.0))
    i = np.arange(-5, 5, dtype=np.int32)
    np.testing.assert_array_equal(mnp.clip(i, -2, 3), np.clip(i, -2, 3))


def test_bool_arithmetic():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    np.testing.assert_array_equal(mnp.add(a, b), a + b)
    np.testing.assert_array_equal(mnp.multiply(a, b), a * b)
    np.testing.assert_array_equal(mnp.maximum(a, b), np.maximum(a, b))
