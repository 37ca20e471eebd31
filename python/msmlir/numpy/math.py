"""Math (mindspore.numpy.math_ops): elementwise arithmetic and transcendental
functions, reductions, cumulative ops and linear algebra.

Functions that have no mindir op of their own are composed from the ones that
exist, exactly or to float32 accuracy (a few ulp):
arctan is a minimax polynomial with argument reduction (Cephes' atanf for
float16/float32, the rational atan for float64); arcsin/arccos/arctan2 are
built on it; sinh/cosh/arcsinh/arccosh/arctanh use exp/expm1/log/log1p in
cancellation-free forms; cumsum/cumprod are log-step (Hillis-Steele) scans of
shifted slices, exact for integers.
"""
from __future__ import annotations

import builtins
import math as _math
import numbers

from .. import dtype as _dt
from .. import ops
from ..frontend import builder as _b
from ..ops._base import cast_to, scalar_const
from ._utils import (_api, _axes, _axis, _broadcast_shapes, _dtype, _float, _int, _operands, _out,
                     _prod, _t, is_tensorlike)

__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "fmod", "divmod", "power", "float_power", "negative", "positive", "absolute", "abs", "fabs",
    "sign", "sqrt", "square", "cbrt", "reciprocal", "maximum", "minimum", "fmax", "fmin", "clip",
    "copysign", "heaviside", "hypot", "logaddexp", "logaddexp2",
    # exponential / logarithm / trigonometry
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "deg2rad", "rad2deg", "radians", "degrees",
    # rounding
    "floor", "ceil", "rint", "around", "round", "trunc", "fix",
    # reductions
    "sum", "mean", "prod", "amax", "amin", "max", "min", "ptp", "var", "std", "average",
    "nansum", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd", "argmax", "argmin",
    "count_nonzero", "trace",
    # cumulative / differences
    "cumsum", "cumprod", "nancumsum", "diff", "ediff1d", "trapz",
    # linear algebra
    "dot", "vdot", "inner", "outer", "matmul", "tensordot", "kron", "cross", "multi_dot",
    "matrix_power", "searchsorted", "cov", "corrcoef",
]

_PI = _math.pi


# ---------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------

@_api
def add(x1, x2, dtype=None):
    """x1 + x2, broadcasting (mindspore.numpy.add)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        return _out(ops.logical_or(a, b), dtype)
    return _out(ops.add(a, b), dtype)


@_api
def subtract(x1, x2, dtype=None):
    """x1 - x2 (mindspore.numpy.subtract)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        _b.error("subtracting bool tensors is not supported, use logical_xor")
    return _out(ops.sub(a, b), dtype)


@_api
def multiply(x1, x2, dtype=None):
    """x1 * x2 (mindspore.numpy.multiply)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        return _out(ops.logical_and(a, b), dtype)
    return _out(ops.mul(a, b), dtype)


@_api
def divide(x1, x2, dtype=None):
    """True division x1 / x2; integer inputs give float32 (mindspore.numpy.divide)."""
    a, b = _operands(x1, x2)
    return _out(ops.div(_float(a), _float(b)), dtype)


true_divide = divide


def _c_fmod(a, b):
    """C fmod (exact): the remainder of |a| / |b| with the sign of a."""
    r = ops.floor_mod(ops.abs(a), ops.abs(b))  # both operands non-negative: remf, exact
    return ops.select(_signbit(a), ops.neg(r), r)


def _float_floor_divide(a, b):
    """numpy's floor division of floats (npy_divmod): the quotient of a - fmod(a, b)
    by b, corrected to the floor, so floor_divide(1, 0.1) is 9 like numpy."""
    shape = _broadcast_shapes(a.shape, b.shape)
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    m = _c_fmod(a, b)
    div = ops.div(ops.sub(a, m), b)
    adjust = ops.logical_and(ops.not_equal(m, 0), ops.not_equal(ops.less(b, 0), ops.less(m, 0)))
    div = ops.select(adjust, ops.sub(div, 1.0), div)
    fl = ops.floor(div)
    fl = ops.select(ops.greater(ops.sub(div, fl), 0.5), ops.add(fl, 1.0), fl)
    q = ops.div(a, b)
    zero = ops.zeros_like(q)
    signed_zero = ops.select(_signbit(q), ops.neg(zero), zero)
    fl = ops.select(ops.equal(div, 0), signed_zero, fl)
    return ops.select(ops.equal(b, 0), q, fl)


@_api
def floor_divide(x1, x2, dtype=None):
    """floor(x1 / x2), computed like numpy (exactly for floats) (mindspore.numpy.floor_divide)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        a, b = cast_to(a, _dt.int32), cast_to(b, _dt.int32)
    if a.dtype.is_float:
        return _out(_float_floor_divide(a, b), dtype)
    return _out(ops.floor_div(a, b), dtype)


@_api
def remainder(x1, x2, dtype=None):
    """x1 - floor(x1 / x2) * x2, with the sign of x2 (mindspore.numpy.remainder)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        a, b = cast_to(a, _dt.int32), cast_to(b, _dt.int32)
    return _out(ops.floor_mod(a, b), dtype)


mod = remainder


@_api
def fmod(x1, x2, dtype=None):
    """The C remainder x1 - trunc(x1 / x2) * x2, with the sign of x1 (mindspore.numpy.fmod)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        a, b = cast_to(a, _dt.int32), cast_to(b, _dt.int32)
    if a.dtype.is_float:
        return _out(_c_fmod(a, b), dtype)
    r = ops.floor_mod(ops.abs(a), ops.abs(b))  # both operands non-negative: exact
    return _out(ops.select(ops.less(a, 0), ops.neg(r), r), dtype)


@_api
def divmod(x1, x2, dtype=None):
    """(floor_divide(x1, x2), remainder(x1, x2)) (mindspore.numpy.divmod)."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def _int_power(a, e):
    """a ** e for integer tensors by binary exponentiation (wrapping like numpy);
    negative exponents give 1 / a**|e| truncated (0 unless |a| == 1)."""
    bits = {8: 7, 32: 31, 64: 63}[a.dtype.bits] if not a.dtype.is_bool else 1
    e = ops.broadcast_to(e, _broadcast_shapes(a.shape, e.shape))
    a = ops.broadcast_to(a, e.shape)
    neg = ops.less(e, 0)
    k = ops.abs(e)
    result = ops.ones_like(a)
    base = a
    for i in range(bits):
        odd = ops.equal(ops.floor_mod(k, 2), 1)
        result = ops.select(odd, ops.mul(result, base), result)
        if i + 1 < bits:
            k = ops.floor_div(k, 2)
            base = ops.mul(base, base)
    unit = ops.equal(ops.abs(a), 1)
    return ops.select(ops.logical_and(neg, ops.logical_not(unit)), ops.zeros_like(result), result)


@_api
def power(x1, x2, dtype=None):
    """x1 ** x2 elementwise (mindspore.numpy.power); integer ** integer stays integer."""
    if isinstance(x2, numbers.Integral) and not isinstance(x2, bool) and is_tensorlike(x1):
        a = _t(x1)
        if not a.dtype.is_float and not a.dtype.is_bool and 0 <= x2 <= 16:
            return _out(ops.pow(a, int(x2)), dtype)
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        a, b = cast_to(a, _dt.int32), cast_to(b, _dt.int32)
    if not a.dtype.is_float:
        return _out(_int_power(a, b), dtype)
    return _out(ops.pow(a, b), dtype)


@_api
def float_power(x1, x2, dtype=None):
    """x1 ** x2 in floating point (mindspore.numpy.float_power). numpy computes in
    float64; here float64 inputs stay float64 and others are computed in float32."""
    a, b = _operands(x1, x2)
    return _out(ops.pow(_float(a), _float(b)), dtype)


@_api
def maximum(x1, x2, dtype=None):
    """Elementwise maximum, nan-propagating (mindspore.numpy.maximum)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        return _out(ops.logical_or(a, b), dtype)
    return _out(ops.maximum(a, b), dtype)


@_api
def minimum(x1, x2, dtype=None):
    """Elementwise minimum, nan-propagating (mindspore.numpy.minimum)."""
    a, b = _operands(x1, x2)
    if a.dtype.is_bool:
        return _out(ops.logical_and(a, b), dtype)
    return _out(ops.minimum(a, b), dtype)


@_api
def fmax(x1, x2, dtype=None):
    """Elementwise maximum ignoring nan (mindspore.numpy.fmax)."""
    a, b = _operands(x1, x2)
    m = ops.maximum(a, b)
    if a.dtype.is_float:
        m = ops.select(ops.isnan(a), b, ops.select(ops.isnan(b), a, m))
    return _out(m, dtype)


@_api
def fmin(x1, x2, dtype=None):
    """Elementwise minimum ignoring nan (mindspore.numpy.fmin)."""
    a, b = _operands(x1, x2)
    m = ops.minimum(a, b)
    if a.dtype.is_float:
        m = ops.select(ops.isnan(a), b, ops.select(ops.isnan(b), a, m))
    return _out(m, dtype)


@_api
def clip(x, xmin, xmax, dtype=None):
    """minimum(maximum(x, xmin), xmax); either bound may be None (mindspore.numpy.clip)."""
    if xmin is None and xmax is None:
        _b.error("xmin and xmax cannot both be None")
    t = _t(x)
    if xmin is not None:
        t = ops.maximum(*_operands(t, xmin))
    if xmax is not None:
        t = ops.minimum(*_operands(t, xmax))
    return _out(t, dtype)


def _signbit(t):
    """True where the sign bit is set (x < 0, -0.0; not nan)."""
    if not t.dtype.is_float:
        return ops.less(t, 0)
    neg_zero = ops.logical_and(ops.equal(t, 0), ops.less(ops.div(scalar_const(1, t.dtype), t), 0))
    return ops.logical_or(ops.less(t, 0), neg_zero)


@_api
def copysign(x1, x2, dtype=None):
    """|x1| with the sign of x2 (mindspore.numpy.copysign); float result."""
    a, b = _operands(x1, x2)
    a, b = _float(a), _float(b)
    m = ops.abs(a)
    return _out(ops.select(_signbit(b), ops.neg(m), m), dtype)


@_api
def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, nan where x1 is nan
    (mindspore.numpy.heaviside)."""
    a, b = _operands(x1, x2)
    shape = _broadcast_shapes(a.shape, b.shape)
    one = ops.ones_like(ops.broadcast_to(a, shape))
    out = ops.select(ops.less(a, 0), ops.zeros_like(one), ops.select(ops.greater(a, 0), one, b))
    if a.dtype.is_float:
        out = ops.select(ops.isnan(a), a, out)
    return _out(out, dtype)


@_api
def hypot(x1, x2, dtype=None):
    """sqrt(x1**2 + x2**2) without overflow or underflow (mindspore.numpy.hypot)."""
    a, b = _operands(x1, x2)
    a, b = ops.abs(_float(a)), ops.abs(_float(b))
    hi, lo = ops.maximum(a, b), ops.minimum(a, b)
    r = ops.div(lo, ops.select(ops.equal(hi, 0), ops.ones_like(hi), hi))
    h = ops.mul(hi, ops.sqrt(ops.add(ops.mul(r, r), 1)))
    inf = ops.logical_or(ops.isinf(a), ops.isinf(b))
    return _out(ops.select(inf, ops.fill(h.dtype, h.shape, float("inf")), h), dtype)


@_api
def logaddexp(x1, x2, dtype=None):
    """log(exp(x1) + exp(x2)), computed stably (mindspore.numpy.logaddexp)."""
    a, b = _operands(x1, x2)
    a, b = _float(a), _float(b)
    m = ops.maximum(a, b)
    d = ops.neg(ops.abs(ops.sub(a, b)))
    out = ops.add(m, ops.log1p(ops.exp(d)))
    return _out(ops.select(ops.equal(a, b), ops.add(a, _math.log(2.0)), out), dtype)


@_api
def logaddexp2(x1, x2, dtype=None):
    """log2(2**x1 + 2**x2), computed stably (mindspore.numpy.logaddexp2)."""
    a, b = _operands(x1, x2)
    a, b = _float(a), _float(b)
    m = ops.maximum(a, b)
    d = ops.neg(ops.abs(ops.sub(a, b)))
    out = ops.add(m, ops.mul(ops.log1p(ops.exp(ops.mul(d, _math.log(2.0)))), 1 / _math.log(2.0)))
    return _out(ops.select(ops.equal(a, b), ops.add(a, 1.0), out), dtype)


# ---------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------

def _unary_num(x, what):
    t = _t(x)
    if t.dtype.is_bool:
        _b.error(f"{what} is not defined for bool tensors")
    return t


def _with_f32(t, fn):
    """fn on a float tensor; float16 is computed in float32 and rounded back."""
    t = _float(t)
    if t.dtype in (_dt.float16, _dt.bfloat16):
        return cast_to(fn(cast_to(t, _dt.float32)), t.dtype)
    return fn(t)


@_api
def negative(a, dtype=None):
    """-a (mindspore.numpy.negative)."""
    return _out(ops.neg(_unary_num(a, "negative")), dtype)


@_api
def positive(a, dtype=None):
    """+a, a copy (mindspore.numpy.positive)."""
    return _out(_unary_num(a, "positive"), dtype)


@_api
def absolute(x, dtype=None):
    """|x| (mindspore.numpy.absolute)."""
    t = _t(x)
    if t.dtype.is_bool:
        return _out(t, dtype)
    return _out(ops.abs(t), dtype)


abs = fabs = absolute


@_api
def sign(x, dtype=None):
    """-1, 0 or 1 by the sign of x; nan for nan (mindspore.numpy.sign)."""
    return _out(ops.sign(_unary_num(x, "sign")), dtype)


@_api
def square(x, dtype=None):
    """x * x (mindspore.numpy.square)."""
    t = _t(x)
    if t.dtype.is_bool:
        return _out(t, dtype)
    return _out(ops.square(t), dtype)


def _float_unary(name, op, doc):
    def fn(x, dtype=None):
        return _out(op(_float(_t(x))), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + f" (mindspore.numpy.{name}); integer inputs are computed in float32."
    return _api(fn)


sqrt = _float_unary("sqrt", ops.sqrt, "Square root")
reciprocal = _float_unary("reciprocal", ops.reciprocal, "1 / x")
exp = _float_unary("exp", ops.exp, "e ** x")
expm1 = _float_unary("expm1", ops.expm1, "e ** x - 1, accurate for small x")
log = _float_unary("log", ops.log, "Natural logarithm")
log1p = _float_unary("log1p", ops.log1p, "log(1 + x), accurate for small x")
sin = _float_unary("sin", ops.sin, "Sine")
cos = _float_unary("cos", ops.cos, "Cosine")
tanh = _float_unary("tanh", ops.tanh, "Hyperbolic tangent")
floor = _float_unary("floor", ops.floor, "Round toward -inf")
ceil = _float_unary("ceil", ops.ceil, "Round toward +inf")
rint = _float_unary("rint", ops.round, "Round to the nearest integer, halves to even")


@_api
def trunc(x, dtype=None):
    """Round toward zero (mindspore.numpy.trunc); float result."""
    return _out(ops.trunc(_float(_t(x))), dtype)


fix = trunc


@_api
def cbrt(x, dtype=None):
    """Cube root, real for negative x (mindspore.numpy.cbrt)."""
    def f(t):
        a = ops.abs(t)
        y = ops.pow(a, 1.0 / 3.0)
        # one Newton step on y**3 = a (y - (y - a / y**2) / 3) fixes pow's rounding
        safe = ops.logical_and(ops.greater(a, 0), ops.isfinite(a))
        ys = ops.select(safe, y, ops.ones_like(y))
        y = ops.select(safe, ops.sub(ys, ops.div(ops.sub(ys, ops.div(a, ops.mul(ys, ys))), 3.0)), y)
        return ops.select(ops.less(t, 0), ops.neg(y), y)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def exp2(x, dtype=None):
    """2 ** x (mindspore.numpy.exp2)."""
    t = _float(_t(x))
    return _out(ops.pow(scalar_const(2.0, t.dtype), t), dtype)


@_api
def log2(x, dtype=None):
    """Base-2 logarithm (mindspore.numpy.log2)."""
    t = _float(_t(x))
    return _out(ops.mul(ops.log(t), 1.0 / _math.log(2.0)), dtype)


@_api
def log10(x, dtype=None):
    """Base-10 logarithm (mindspore.numpy.log10)."""
    t = _float(_t(x))
    return _out(ops.mul(ops.log(t), 1.0 / _math.log(10.0)), dtype)


@_api
def tan(x, dtype=None):
    """Tangent, sin(x) / cos(x) (mindspore.numpy.tan)."""
    t = _float(_t(x))
    return _out(ops.div(ops.sin(t), ops.cos(t)), dtype)


# arctan: Cephes atanf (float32) and atan (float64) with argument reduction
# to |x| <= tan(pi/8) (float32) or |x| <= 0.66 (float64).
_T3P8 = 2.41421356237309504880        # tan(3 pi / 8)
_ATAN_P = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
           -1.228866684490136173410e2, -6.485021904942025371773e1)
_ATAN_Q = (2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
           4.853903996359136964868e2, 1.945506571482613964425e2)
_MOREBITS = 6.123233995736765886130e-17  # pi/2 - float64(pi/2)


def _poly(z, coeffs, leading_one=False):
    acc = None
    if leading_one:
        acc = ops.add(z, coeffs[0])
        coeffs = coeffs[1:]
    for c in coeffs:
        acc = scalar_const(c, z.dtype, z.shape) if acc is None else ops.add(ops.mul(acc, z), c)
    return acc


def _atan(t):
    """arctan of a float32/float64 tensor."""
    ax = ops.abs(t)
    one = ops.ones_like(ax)
    big = ops.greater(ax, _T3P8)
    if t.dtype is _dt.float64:
        mid = ops.greater(ax, 0.66)
        xr = ops.select(big, ops.div(ops.neg(one), ops.select(big, ax, one)),
                        ops.select(mid, ops.div(ops.sub(ax, 1.0), ops.add(ax, 1.0)), ax))
        z = ops.mul(xr, xr)
        p = ops.div(ops.mul(z, _poly(z, _ATAN_P)), _poly(z, _ATAN_Q, leading_one=True))
        r = ops.add(ops.mul(xr, p), xr)
        y0 = ops.select(big, scalar_const(_PI / 2, t.dtype, t.shape),
                        ops.select(mid, scalar_const(_PI / 4, t.dtype, t.shape), ops.zeros_like(ax)))
        extra = ops.select(big, scalar_const(_MOREBITS, t.dtype, t.shape),
                           ops.select(mid, scalar_const(0.5 * _MOREBITS, t.dtype, t.shape),
                                      ops.zeros_like(ax)))
        r = ops.add(y0, ops.add(r, extra))
    else:
        mid = ops.greater(ax, 0.4142135623730950)  # tan(pi / 8)
        xr = ops.select(big, ops.div(ops.neg(one), ops.select(big, ax, one)),
                        ops.select(mid, ops.div(ops.sub(ax, 1.0), ops.add(ax, 1.0)), ax))
        z = ops.mul(xr, xr)
        p = _poly(z, (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1))
        r = ops.add(ops.mul(ops.mul(p, z), xr), xr)
        y0 = ops.select(big, scalar_const(_PI / 2, t.dtype, t.shape),
                        ops.select(mid, scalar_const(_PI / 4, t.dtype, t.shape), ops.zeros_like(ax)))
        r = ops.add(y0, r)
    return ops.select(ops.less(t, 0), ops.neg(r), r)


@_api
def arctan(x, dtype=None):
    """Inverse tangent, in [-pi/2, pi/2] (mindspore.numpy.arctan)."""
    return _out(_with_f32(_t(x), _atan), dtype)


@_api
def arcsin(x, dtype=None):
    """Inverse sine, atan(x / sqrt((1 - x)(1 + x))); nan outside [-1, 1] (mindspore.numpy.arcsin)."""
    def f(t):
        return _atan(ops.div(t, ops.sqrt(ops.mul(ops.sub(1.0, t), ops.add(t, 1.0)))))
    return _out(_with_f32(_t(x), f), dtype)


@_api
def arccos(x, dtype=None):
    """Inverse cosine, 2 atan(sqrt((1 - x) / (1 + x))); nan outside [-1, 1] (mindspore.numpy.arccos)."""
    def f(t):
        return ops.mul(_atan(ops.sqrt(ops.div(ops.sub(1.0, t), ops.add(t, 1.0)))), 2.0)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def arctan2(x1, x2, dtype=None):
    """The angle of the point (x2, x1), in [-pi, pi], with numpy's signed-zero and
    infinity conventions (mindspore.numpy.arctan2)."""
    a, b = _operands(x1, x2)

    def f(y, x):
        shape = _broadcast_shapes(y.shape, x.shape)
        y, x = ops.broadcast_to(y, shape), ops.broadcast_to(x, shape)
        ay, ax = ops.abs(y), ops.abs(x)
        hi, lo = ops.maximum(ay, ax), ops.minimum(ay, ax)
        q = ops.div(lo, ops.select(ops.equal(hi, 0), ops.ones_like(hi), hi))
        q = ops.select(ops.equal(ay, ax), ops.ones_like(q), q)          # inf/inf, equal values
        q = ops.select(ops.equal(hi, 0), ops.zeros_like(q), q)          # atan2(0, 0)
        r = _atan(q)                                                    # in [0, pi/4]
        r = ops.select(ops.greater(ay, ax), ops.sub(_PI / 2, r), r)
        r = ops.select(_signbit(x), ops.sub(_PI, r), r)
        r = ops.select(ops.logical_or(ops.isnan(x), ops.isnan(y)), ops.add(x, y), r)
        return ops.select(_signbit(y), ops.neg(r), r)

    a, b = _float(a), _float(b)
    if a.dtype in (_dt.float16, _dt.bfloat16):
        out = cast_to(f(cast_to(a, _dt.float32), cast_to(b, _dt.float32)), a.dtype)
    else:
        out = f(a, b)
    return _out(out, dtype)


@_api
def sinh(x, dtype=None):
    """Hyperbolic sine, (expm1(x) - expm1(-x)) / 2 (mindspore.numpy.sinh)."""
    def f(t):
        return ops.mul(ops.sub(ops.expm1(t), ops.expm1(ops.neg(t))), 0.5)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def cosh(x, dtype=None):
    """Hyperbolic cosine, (exp(x) + exp(-x)) / 2 (mindspore.numpy.cosh)."""
    def f(t):
        return ops.mul(ops.add(ops.exp(t), ops.exp(ops.neg(t))), 0.5)
    return _out(_with_f32(_t(x), f), dtype)


_LN2 = _math.log(2.0)


@_api
def arcsinh(x, dtype=None):
    """Inverse hyperbolic sine (mindspore.numpy.arcsinh)."""
    def f(t):
        a = ops.abs(t)
        big = ops.greater(a, 1e8)
        small_a = ops.select(big, ops.ones_like(a), a)
        aa = ops.mul(small_a, small_a)
        r = ops.log1p(ops.add(small_a, ops.div(aa, ops.add(ops.sqrt(ops.add(aa, 1.0)), 1.0))))
        r = ops.select(big, ops.add(ops.log(a), _LN2), r)
        return ops.select(ops.less(t, 0), ops.neg(r), r)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def arccosh(x, dtype=None):
    """Inverse hyperbolic cosine; nan for x < 1 (mindspore.numpy.arccosh)."""
    def f(t):
        big = ops.greater(t, 1e8)
        s = ops.sub(ops.select(big, ops.ones_like(t), t), 1.0)
        r = ops.log1p(ops.add(s, ops.sqrt(ops.add(ops.mul(s, 2.0), ops.mul(s, s)))))
        return ops.select(big, ops.add(ops.log(t), _LN2), r)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def arctanh(x, dtype=None):
    """Inverse hyperbolic tangent, sign(x) log1p(2|x| / (1 - |x|)) / 2 (mindspore.numpy.arctanh)."""
    def f(t):  # on |x| (no cancellation in log1p), then the sign
        a = ops.abs(t)
        r = ops.mul(ops.log1p(ops.div(ops.mul(a, 2.0), ops.sub(1.0, a))), 0.5)
        return ops.select(ops.less(t, 0), ops.neg(r), r)
    return _out(_with_f32(_t(x), f), dtype)


@_api
def deg2rad(x, dtype=None):
    """Degrees to radians (mindspore.numpy.deg2rad)."""
    return _out(ops.mul(_float(_t(x)), _PI / 180.0), dtype)


@_api
def rad2deg(x, dtype=None):
    """Radians to degrees (mindspore.numpy.rad2deg)."""
    return _out(ops.mul(_float(_t(x)), 180.0 / _PI), dtype)


radians = deg2rad
degrees = rad2deg


@_api
def around(a, decimals=0):
    """Round to `decimals` decimals, halves to even (mindspore.numpy.around), as
    numpy does it: rint(a * 10**decimals) / 10**decimals."""
    t = _t(a)
    d = _int(decimals, "decimals")
    if not t.dtype.is_float:
        if d >= 0:
            return t
        f = scalar_const(10 ** (-d), t.dtype)
        q = ops.floor_div(t, f)
        r2 = ops.mul(ops.sub(t, ops.mul(q, f)), 2)
        odd = ops.equal(ops.floor_mod(q, 2), 1)
        up = ops.logical_or(ops.greater(r2, f), ops.logical_and(ops.equal(r2, f), odd))
        return ops.mul(ops.select(up, ops.add(q, 1), q), f)  # halves to even, like numpy
    if d == 0:
        return ops.round(t)
    if d > 0:
        f = scalar_const(10.0 ** d, t.dtype)
        return ops.div(ops.round(ops.mul(t, f)), f)
    f = scalar_const(10.0 ** (-d), t.dtype)
    return ops.mul(ops.round(ops.div(t, f)), f)


round = around


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _acc_dtype(t):
    """Sums and products of bool/int8 are accumulated in int32."""
    if t.dtype.is_bool or t.dtype is _dt.int8:
        return cast_to(t, _dt.int32)
    return t


def _reduce(op, t, axis, keepdims):
    axes = _axes(axis, t.ndim)
    if not axes:
        return t
    if t.ndim == 0:
        return t
    return op(t, axes, bool(keepdims))


@_api
def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    """Sum over `axis` (None: all) (mindspore.numpy.sum); bool and int8 are summed in int32."""
    t = _t(a)
    t = _acc_dtype(t) if dtype is None else cast_to(t, _dtype(dtype))
    out = _reduce(ops.reduce_sum, t, axis, keepdims)
    if initial is not None:
        out = ops.add(out, initial)
    return out


@_api
def prod(a, axis=None, dtype=None, keepdims=False, initial=None):
    """Product over `axis` (mindspore.numpy.prod)."""
    t = _t(a)
    t = _acc_dtype(t) if dtype is None else cast_to(t, _dtype(dtype))
    out = _reduce(ops.reduce_prod, t, axis, keepdims)
    if initial is not None:
        out = ops.mul(out, initial)
    return out


def _count(t, axis):
    axes = _axes(axis, t.ndim)
    return _prod(t.shape[a] for a in axes)


@_api
def mean(a, axis=None, keepdims=False, dtype=None):
    """Arithmetic mean over `axis`; integers give float32 (mindspore.numpy.mean)."""
    t = _float(_t(a), dtype)
    return _reduce(ops.reduce_mean, t, axis, keepdims)


def _minmax(op, name, a, axis, keepdims, initial):
    t = _t(a)
    if t.dtype.is_bool:
        out = _reduce(op, cast_to(t, _dt.int32), axis, keepdims)
        out = cast_to(out, _dt.bool_)
    else:
        out = _reduce(op, t, axis, keepdims)
    if initial is not None:
        out = (ops.maximum if name == "max" else ops.minimum)(out, initial)
    return out


@_api
def amax(a, axis=None, keepdims=False, initial=None):
    """Maximum over `axis`, nan-propagating (mindspore.numpy.amax)."""
    return _minmax(ops.reduce_max, "max", a, axis, keepdims, initial)


@_api
def amin(a, axis=None, keepdims=False, initial=None):
    """Minimum over `axis`, nan-propagating (mindspore.numpy.amin)."""
    return _minmax(ops.reduce_min, "min", a, axis, keepdims, initial)


max = amax
min = amin


@_api
def ptp(x, axis=None, keepdims=False):
    """max - min over `axis` (mindspore.numpy.ptp)."""
    t = _t(x)
    if t.dtype.is_bool:
        _b.error("ptp is not defined for bool tensors")
    return ops.sub(_reduce(ops.reduce_max, t, axis, keepdims), _reduce(ops.reduce_min, t, axis, keepdims))


def _var(t, axis, ddof, keepdims):
    t = _float(t)
    n = _count(t, axis)
    m = _reduce(ops.reduce_mean, t, axis, True)
    d = ops.sub(t, m)
    ss = _reduce(ops.reduce_sum, ops.mul(d, d), axis, keepdims)
    return ops.div(ss, scalar_const(builtins.max(n - ddof, 0), ss.dtype))


@_api
def var(x, axis=None, ddof=0, keepdims=False):
    """Variance sum((x - mean)**2) / (N - ddof) over `axis` (mindspore.numpy.var)."""
    return _var(_t(x), axis, _int(ddof, "ddof"), keepdims)


@_api
def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation, sqrt(var) (mindspore.numpy.std)."""
    return ops.sqrt(_var(_t(x), axis, _int(ddof, "ddof"), keepdims))


@_api
def average(x, axis=None, weights=None, returned=False):
    """Weighted mean over `axis` (mindspore.numpy.average); `weights` has the shape of
    x or is 1-D along a single axis. With `returned`, also the sum of the weights."""
    t = _float(_t(x))
    if weights is None:
        avg = _reduce(ops.reduce_mean, t, axis, False)
        if returned:
            n = _count(t, axis)
            return avg, ops.fill(avg.dtype, avg.shape, float(n))
        return avg
    w = _t(weights)
    if w.shape != t.shape:
        if axis is None:
            _b.error(f"weights of shape {w.shape} differ from the input's {t.shape}: axis must be given")
        if w.ndim != 1 or isinstance(axis, (tuple, list)):
            _b.error(f"1-D weights need a single axis; weights of shape {w.shape}, input {t.shape}")
        ax = _axis(axis, t.ndim)
        if w.shape[0] != t.shape[ax]:
            _b.error(f"weights of length {w.shape[0]} do not match axis {ax} of size {t.shape[ax]}")
        s = [1] * t.ndim
        s[ax] = w.shape[0]
        w = ops.reshape(w, tuple(s))
    t, w = _operands(t, _float(w))
    w = ops.broadcast_to(w, t.shape)
    wsum = _reduce(ops.reduce_sum, w, axis, False)
    avg = ops.div(_reduce(ops.reduce_sum, ops.mul(t, w), axis, False), wsum)
    if returned:
        return avg, wsum
    return avg


def _nan_to(t, value):
    if not t.dtype.is_float:
        return t
    return ops.select(ops.isnan(t), scalar_const(value, t.dtype, t.shape), t)


@_api
def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating nan as zero (mindspore.numpy.nansum)."""
    t = _t(a)
    t = _acc_dtype(t) if dtype is None else cast_to(t, _dtype(dtype))
    return _reduce(ops.reduce_sum, _nan_to(t, 0.0), axis, keepdims)


def _nan_count(t, axis, keepdims):
    valid = cast_to(ops.logical_not(ops.isnan(t)), t.dtype)
    return _reduce(ops.reduce_sum, valid, axis, keepdims)


@_api
def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean ignoring nan (mindspore.numpy.nanmean); nan where every element is nan."""
    t = _float(_t(a), dtype)
    s = _reduce(ops.reduce_sum, _nan_to(t, 0.0), axis, keepdims)
    return ops.div(s, _nan_count(t, axis, keepdims))


def _nanminmax(op, fill, a, axis, keepdims):
    t = _t(a)
    if not t.dtype.is_float:
        return _reduce(op, t, axis, keepdims)
    out = _reduce(op, _nan_to(t, fill), axis, keepdims)
    all_nan = ops.equal(_nan_count(t, axis, keepdims), 0)
    return ops.select(all_nan, scalar_const(float("nan"), out.dtype, out.shape), out)


@_api
def nanmax(a, axis=None, dtype=None, keepdims=False):
    """Maximum ignoring nan (mindspore.numpy.nanmax); nan where every element is nan."""
    return _out(_nanminmax(ops.reduce_max, float("-inf"), a, axis, keepdims), dtype)


@_api
def nanmin(a, axis=None, dtype=None, keepdims=False):
    """Minimum ignoring nan (mindspore.numpy.nanmin); nan where every element is nan."""
    return _out(_nanminmax(ops.reduce_min, float("inf"), a, axis, keepdims), dtype)


def _nanvar(t, axis, ddof, keepdims):
    t = _float(t)
    cnt = _nan_count(t, axis, True)
    m = ops.div(_reduce(ops.reduce_sum, _nan_to(t, 0.0), axis, True), cnt)
    d = _nan_to(ops.sub(t, m), 0.0)
    ss = _reduce(ops.reduce_sum, ops.mul(d, d), axis, keepdims)
    n = _nan_count(t, axis, keepdims)
    return ops.div(ss, ops.maximum(ops.sub(n, float(ddof)), 0.0))


@_api
def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance ignoring nan (mindspore.numpy.nanvar)."""
    return _out(_nanvar(_t(a), axis, _int(ddof, "ddof"), keepdims), dtype)


@_api
def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Standard deviation ignoring nan (mindspore.numpy.nanstd)."""
    return _out(ops.sqrt(_nanvar(_t(a), axis, _int(ddof, "ddof"), keepdims)), dtype)


@_api
def argmax(a, axis=None):
    """Index (int64, as MindSpore 2.10) of the first maximum along `axis` (None: of the
    flattened tensor) (mindspore.numpy.argmax)."""
    t = _t(a)
    if axis is not None:
        _axis(axis, t.ndim)
    if t.ndim == 0:
        return scalar_const(0, _dt.int64)
    return ops.argmax(t, axis)


@_api
def argmin(a, axis=None):
    """Index (int32) of the first minimum along `axis` (mindspore.numpy.argmin)."""
    t = _t(a)
    if axis is not None:
        _axis(axis, t.ndim)
    if t.ndim == 0:
        return scalar_const(0, _dt.int32)
    return ops.argmin(t, axis)


@_api
def count_nonzero(x, axis=None, keepdims=False):
    """The number (int32) of non-zero elements along `axis` (mindspore.numpy.count_nonzero)."""
    t = _t(x)
    nz = cast_to(ops.not_equal(t, scalar_const(0, t.dtype)) if not t.dtype.is_bool else t, _dt.int32)
    return _reduce(ops.reduce_sum, nz, axis, keepdims)


@_api
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum of the `offset` diagonal over (axis1, axis2) (mindspore.numpy.trace)."""
    from .creation import _diagonal
    d = _diagonal(_t(a), offset, axis1, axis2)
    d = _acc_dtype(d) if dtype is None else cast_to(d, _dtype(dtype))
    return ops.reduce_sum(d, (d.ndim - 1,), False)


# ---------------------------------------------------------------------------
# Cumulative ops and differences
# ---------------------------------------------------------------------------

def _shift(t, axis, k, fill):
    """t shifted by k along axis (t[i - k], `fill` for i < k)."""
    n = t.shape[axis]
    begin = [0] * t.ndim
    end = list(t.shape)
    end[axis] = n - k
    head = ops.strided_slice(t, begin, end, [1] * t.ndim)
    pad = [0] * (2 * t.ndim)
    # ops.pad takes (left, right) pairs from the last dim backwards
    pad[2 * (t.ndim - 1 - axis)] = k
    return ops.pad(head, tuple(pad), value=fill)


def _scan(t, axis, op, identity):
    """Inclusive scan along axis in ceil(log2(n)) steps: after step j each element
    holds the combination of the 2**(j+1) elements ending at it."""
    n = t.shape[axis]
    k = 1
    while k < n:
        t = op(t, _shift(t, axis, k, identity))
        k *= 2
    return t


def _cum_input(a, axis, dtype):
    t = _t(a)
    t = _acc_dtype(t) if dtype is None else cast_to(t, _dtype(dtype))
    if axis is None:
        t = ops.reshape(t, (-1,))
        axis = 0
    if t.ndim == 0:
        t = ops.reshape(t, (1,))
    return t, _axis(axis, t.ndim)


@_api
def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along `axis` (None: of the flattened tensor) (mindspore.numpy.cumsum);
    bool and int8 accumulate in int32."""
    t, ax = _cum_input(a, axis, dtype)
    return _scan(t, ax, ops.add, 0)


@_api
def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum treating nan as zero (mindspore.numpy.nancumsum)."""
    t, ax = _cum_input(a, axis, dtype)
    return _scan(_nan_to(t, 0.0), ax, ops.add, 0)


@_api
def cumprod(a, axis=None, dtype=None):
    """Cumulative product along `axis` (mindspore.numpy.cumprod)."""
    t, ax = _cum_input(a, axis, dtype)
    return _scan(t, ax, ops.mul, 1)


def _slice_axis(t, axis, start, stop):
    begin = [0] * t.ndim
    end = list(t.shape)
    begin[axis], end[axis] = start, stop
    return ops.strided_slice(t, begin, end, [1] * t.ndim)


@_api
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """n-th discrete difference along `axis` (mindspore.numpy.diff); bool inputs
    use !=, as numpy does."""
    t = _t(a)
    if t.ndim == 0:
        _b.error("the input must be at least 1-D")
    n = _int(n, "n")
    if n < 0:
        _b.error(f"order n must be non-negative, got {n}")
    ax = _axis(axis, t.ndim)

    def edge(e):
        e = _t(e)
        if e.ndim == 0:
            s = list(t.shape)
            s[ax] = 1
            e = ops.broadcast_to(e, tuple(s))
        return e

    parts = ([edge(prepend)] if prepend is not None else []) + [t] + (
        [edge(append)] if append is not None else [])
    if len(parts) > 1:
        t = ops.concat(parts, ax)
    if n >= t.shape[ax]:
        _b.error(f"diff of order {n} along an axis of size {t.shape[ax]} would be empty "
                 f"(zero-size tensors are not supported)")
    for _ in range(n):
        m = t.shape[ax]
        hi, lo = _slice_axis(t, ax, 1, m), _slice_axis(t, ax, 0, m - 1)
        t = ops.not_equal(hi, lo) if t.dtype.is_bool else ops.sub(hi, lo)
    return t


@_api
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened input, with optional values before/after
    (mindspore.numpy.ediff1d)."""
    t = ops.reshape(_t(ary), (-1,))
    n = t.shape[0]
    parts = []
    if to_begin is not None:
        parts.append(ops.reshape(_t(to_begin, t.dtype), (-1,)))
    if n > 1:
        parts.append(ops.sub(_slice_axis(t, 0, 1, n), _slice_axis(t, 0, 0, n - 1)))
    if to_end is not None:
        parts.append(ops.reshape(_t(to_end, t.dtype), (-1,)))
    if not parts:
        _b.error("the result would be empty (zero-size tensors are not supported)")
    return ops.concat(parts, 0) if len(parts) > 1 else parts[0]


@_api
def trapz(y, x=None, dx=1.0, axis=-1):
    """Integral by the trapezoidal rule along `axis` (mindspore.numpy.trapz)."""
    t = _float(_t(y))
    ax = _axis(axis, t.ndim)
    n = t.shape[ax]
    if x is None:
        d = dx
    else:
        xt = _float(_t(x))
        if xt.ndim == 1:
            d = ops.sub(_slice_axis(xt, 0, 1, n), _slice_axis(xt, 0, 0, n - 1))
            s = [1] * t.ndim
            s[ax] = n - 1
            d = ops.reshape(d, tuple(s))
        else:
            d = ops.sub(_slice_axis(xt, ax, 1, n), _slice_axis(xt, ax, 0, n - 1))
    mid = ops.mul(ops.add(_slice_axis(t, ax, 1, n), _slice_axis(t, ax, 0, n - 1)), 0.5)
    return ops.reduce_sum(ops.mul(mid, d), (ax,), False)


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------

def _mm_operands(x1, x2):
    a, b = _operands(x1, x2, broadcast=False)
    if a.dtype.is_bool:
        a, b = cast_to(a, _dt.int32), cast_to(b, _dt.int32)
    return a, b


@_api
def matmul(x1, x2, dtype=None):
    """Matrix product with numpy's broadcasting rules (mindspore.numpy.matmul)."""
    a, b = _mm_operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        _b.error("operands must not be scalars (0-d), use multiply")
    k1 = a.shape[-1]
    k2 = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k1 != k2:
        _b.error(f"contraction dims do not match: shapes {list(a.shape)} and {list(b.shape)} "
                 f"({k1} != {k2})")
    if a.ndim > 2 or b.ndim > 2:
        _broadcast_shapes(a.shape[:-2] if a.ndim > 1 else (), b.shape[:-2] if b.ndim > 1 else ())
    return _out(ops.matmul(a, b), dtype)


def _tensordot(a, b, axes_a, axes_b):
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            _b.error(f"shape mismatch for sum: dim {i} of {list(a.shape)} and dim {j} of "
                     f"{list(b.shape)}")
    k = _prod(a.shape[d] for d in axes_a)
    ma = _prod(a.shape[d] for d in free_a)
    nb = _prod(b.shape[d] for d in free_b)
    at = ops.reshape(ops.transpose(a, tuple(free_a + list(axes_a))), (ma, k))
    bt = ops.reshape(ops.transpose(b, tuple(list(axes_b) + free_b)), (k, nb))
    out = ops.matmul(at, bt)
    return ops.reshape(out, tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))


@_api
def tensordot(a, b, axes=2):
    """Sum of products over the given axes (mindspore.numpy.tensordot): `axes` is
    an int N (the last N of a with the first N of b) or a pair of axis lists."""
    x, y = _mm_operands(a, b)
    if isinstance(axes, (numbers.Integral,)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > x.ndim or n > y.ndim:
            _b.error(f"axes={n} is out of range for operands of rank {x.ndim} and {y.ndim}")
        axes_a = list(range(x.ndim - n, x.ndim))
        axes_b = list(range(n))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        aa, bb = axes
        aa = [aa] if isinstance(aa, numbers.Integral) else list(aa)
        bb = [bb] if isinstance(bb, numbers.Integral) else list(bb)
        if len(aa) != len(bb):
            _b.error(f"axes {axes!r}: the two axis lists differ in length")
        axes_a = [_axis(v, x.ndim) for v in aa]
        axes_b = [_axis(v, y.ndim) for v in bb]
    else:
        _b.error(f"axes must be an int or a pair of axis sequences, got {axes!r}")
    return _tensordot(x, y, axes_a, axes_b)


@_api
def dot(a, b):
    """Dot product with numpy's rules (mindspore.numpy.dot): scalars multiply,
    1-D . 1-D is the inner product, N-D . M-D sums over the last axis of a and
    the second-to-last of b."""
    x, y = _mm_operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return ops.mul(x, y)
    if y.ndim == 1:
        return _tensordot(x, y, [x.ndim - 1], [0])
    return _tensordot(x, y, [x.ndim - 1], [y.ndim - 2])


@_api
def vdot(a, b):
    """Dot product of the flattened inputs (mindspore.numpy.vdot; real inputs)."""
    x, y = _mm_operands(a, b)
    x, y = ops.reshape(x, (-1,)), ops.reshape(y, (-1,))
    if x.shape != y.shape:
        _b.error(f"the inputs have different sizes ({x.shape[0]} and {y.shape[0]})")
    return ops.matmul(x, y)


@_api
def inner(a, b):
    """Sum of products over the last axes (mindspore.numpy.inner)."""
    x, y = _mm_operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return ops.mul(x, y)
    return _tensordot(x, y, [x.ndim - 1], [y.ndim - 1])


@_api
def outer(a, b):
    """Outer product of the flattened inputs (mindspore.numpy.outer)."""
    x, y = _mm_operands(a, b)
    x, y = ops.reshape(x, (-1, 1)), ops.reshape(y, (1, -1))
    return ops.mul(x, y)


@_api
def kron(a, b):
    """Kronecker product (mindspore.numpy.kron)."""
    x, y = _mm_operands(a, b)
    nd = builtins.max(x.ndim, y.ndim)
    xs = (1,) * (nd - x.ndim) + x.shape
    ys = (1,) * (nd - y.ndim) + y.shape
    xr = ops.reshape(x, tuple(v for d in xs for v in (d, 1)))
    yr = ops.reshape(y, tuple(v for d in ys for v in (1, d)))
    out = ops.mul(xr, yr)
    return ops.reshape(out, tuple(p * q for p, q in zip(xs, ys)))


@_api
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (or 2-vectors, z = 0) along the given axes
    (mindspore.numpy.cross)."""
    x, y = _mm_operands(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    ax_a, ax_b = _axis(axisa, x.ndim, "axisa"), _axis(axisb, y.ndim, "axisb")
    from .array_ops import moveaxis
    x, y = moveaxis(x, ax_a, -1), moveaxis(y, ax_b, -1)
    na, nb = x.shape[-1], y.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        _b.error(f"incompatible dimensions for cross product (dimension must be 2 or 3), got {na} and {nb}")

    def comp(t, i):
        return ops.squeeze(_slice_axis(t, t.ndim - 1, i, i + 1), t.ndim - 1)

    x0, x1 = comp(x, 0), comp(x, 1)
    y0, y1 = comp(y, 0), comp(y, 1)
    z = ops.sub(ops.mul(x0, y1), ops.mul(x1, y0))
    if na == 2 and nb == 2:
        return z
    x2 = comp(x, 2) if na == 3 else None
    y2 = comp(y, 2) if nb == 3 else None
    c0 = ops.sub(ops.mul(x1, y2), ops.mul(x2, y1)) if x2 is not None and y2 is not None else (
        ops.mul(x1, y2) if x2 is None else ops.neg(ops.mul(x2, y1)))
    c1 = ops.sub(ops.mul(x2, y0), ops.mul(x0, y2)) if x2 is not None and y2 is not None else (
        ops.neg(ops.mul(x0, y2)) if x2 is None else ops.mul(x2, y0))
    shape = _broadcast_shapes(c0.shape, c1.shape, z.shape)
    out = ops.stack([ops.broadcast_to(c, shape) for c in (c0, c1, z)], -1)
    ax_c = _axis(axisc, out.ndim, "axisc")
    return moveaxis(out, -1, ax_c)


@_api
def multi_dot(arrays):
    """dot of a sequence of matrices, left to right (mindspore.numpy.multi_dot);
    the first/last may be 1-D."""
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        _b.error("expects a list of at least two arrays")
    out = _t(arrays[0])
    for a in arrays[1:]:
        out = dot(out, a)
    return out


@_api
def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices (int32) of v in the sorted 1-D a (or a[sorter]) (mindspore.numpy.searchsorted):
    the number of elements < v (side='left') or <= v (side='right')."""
    if side not in ("left", "right"):
        _b.error(f"side must be 'left' or 'right', got {side!r}")
    x, y = _operands(a, v, broadcast=False)
    if x.ndim != 1:
        _b.error(f"a must be 1-D, got rank {x.ndim}")
    if sorter is not None:  # a[sorter] is sorted
        x = ops.gather(x, _t(sorter), 0)
    yy = ops.expand_dims(y, y.ndim)
    cmp = ops.less(x, yy) if side == "left" else ops.less_equal(x, yy)
    return ops.reduce_sum(cast_to(cmp, _dt.int32), (yy.ndim - 1,), False)


def _cov(m, y, rowvar, bias, ddof):
    x = _float(_t(m))
    if x.ndim > 2:
        _b.error(f"m has more than 2 dimensions (rank {x.ndim})")
    if x.ndim < 2:
        x = ops.reshape(x, (1, -1))
    if not rowvar and x.shape[0] != 1:
        x = ops.transpose(x, (1, 0))
    if y is not None:
        yt = _float(_t(y))
        if yt.ndim > 2:
            _b.error(f"y has more than 2 dimensions (rank {yt.ndim})")
        if yt.ndim < 2:
            yt = ops.reshape(yt, (1, -1))
        if not rowvar and yt.shape[0] != 1:
            yt = ops.transpose(yt, (1, 0))
        x, yt = _operands(x, yt, broadcast=False)
        if yt.shape[1] != x.shape[1]:
            _b.error(f"m and y have different numbers of observations ({x.shape[1]} and {yt.shape[1]})")
        x = ops.concat([x, yt], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    d = ops.sub(x, ops.reduce_mean(x, (1,), True))
    c = ops.matmul(d, ops.transpose(d, (1, 0)))
    c = ops.div(c, scalar_const(float(builtins.max(n - _int(ddof, "ddof"), 0)), c.dtype))
    return c


@_api
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """Covariance matrix of the variables in the rows (rowvar) or columns of m (and y)
    (mindspore.numpy.cov; fweights/aweights are not supported)."""
    if fweights is not None or aweights is not None:
        _b.error("fweights and aweights are not supported")
    c = _cov(m, y, rowvar, bias, ddof)
    if c.shape == (1, 1):
        c = ops.reshape(c, ())
    return _out(c, dtype)


@_api
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients, cov / (std std^T), clipped to [-1, 1]
    (mindspore.numpy.corrcoef)."""
    c = _cov(x, y, rowvar, False, None)
    n = c.shape[0]
    from .creation import _diagonal
    s = ops.sqrt(_diagonal(c, 0, 0, 1))
    c = ops.div(ops.div(c, ops.reshape(s, (n, 1))), ops.reshape(s, (1, n)))
    c = ops.clamp(c, -1.0, 1.0)
    if c.shape == (1, 1):
        c = ops.reshape(c, ())
    return _out(c, dtype)


@_api
def matrix_power(a, n):
    """a @ a @ ... (n times) for square matrices in the last two dims, by repeated
    squaring (mindspore.numpy.matrix_power); n must be a non-negative int."""
    t = _t(a)
    n = _int(n, "n")
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        _b.error(f"the input must be square in its last two dims, got shape {t.shape}")
    if n < 0:
        _b.error("negative powers (matrix inverses) are not supported")
    if t.dtype.is_bool:
        t = cast_to(t, _dt.int32)
    if n == 0:
        from .creation import _offsets
        eye = cast_to(ops.equal(_offsets(t.shape[-1], t.shape[-1]), 0), t.dtype)
        return ops.broadcast_to(eye, t.shape)
    result, base = None, t
    while n:
        if n & 1:
            result = base if result is None else ops.matmul(result, base)
        n >>= 1
        if n:
            base = ops.matmul(base, base)
    return result
