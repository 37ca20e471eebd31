"""Elementwise math, comparison, logical, reduction and linear-algebra ops."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtype as _dt
import msmlir.frontend.builder as _b
from ..dialects.enums import DataFormat, GeluApproximate, enum_case
from ._base import (TensorValue, cast_to, emit, mindir, norm_axes, norm_axis, primitive, promote,
                    scalar_const, to_tensor)

__all__ = [
    # binary arithmetic
    "add", "sub", "mul", "div", "true_divide", "floor_div", "floordiv", "floor_mod", "remainder",
    "mod", "pow", "maximum", "minimum", "addn", "subtract", "multiply", "divide",
    # unary
    "neg", "negative", "abs", "absolute", "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp",
    "log", "log1p", "expm1", "sin", "cos", "tanh", "sigmoid", "erf", "softplus", "silu", "floor",
    "ceil", "round", "relu", "relu6", "leaky_relu", "gelu", "stop_gradient", "isnan", "isfinite",
    "isinf", "cast", "trunc",
    # comparison / logical / selection
    "equal", "eq", "not_equal", "ne", "less", "lt", "less_equal", "le", "greater", "gt",
    "greater_equal", "ge", "logical_not", "logical_and", "logical_or", "logical_xor", "select",
    "where", "clamp", "clip", "clip_by_value",
    # integer bitwise (bool operands: the logical ops)
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "invert",
    # reductions
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "sum", "mean", "amax",
    "amin", "max", "min", "prod", "argmax", "argmin", "logsumexp", "all", "any",
    # linear algebra
    "matmul", "bmm", "batch_matmul", "bias_add", "dense",
]


# ---------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------

def _binary(op, x, y, *, min_float=False):
    a, b = promote(x, y, min_float=min_float)
    return emit(op, a.value, b.value)


@primitive
def add(input, other):
    """input + other, broadcasting (MindSpore ops.add)."""
    return _binary(mindir.AddOp, input, other)


@primitive
def sub(input, other):
    """input - other (ops.sub)."""
    return _binary(mindir.SubOp, input, other)


@primitive
def mul(input, other):
    """input * other (ops.mul)."""
    return _binary(mindir.MulOp, input, other)


@primitive
def div(input, other, rounding_mode=None):
    """input / other (ops.div). rounding_mode None: true division (integers are
    promoted to float32); 'floor': floor division; 'trunc': rounds toward zero."""
    if rounding_mode is None:
        return _binary(mindir.DivOp, input, other, min_float=True)
    if rounding_mode == "floor":
        return floor_div(input, other)
    if rounding_mode == "trunc":
        a, b = promote(input, other)
        q = emit(mindir.DivOp, a.value, b.value)
        return trunc(q) if q.dtype.is_float else q
    _b.error(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


@primitive
def floor_div(input, other):
    """floor(input / other) (ops.floor_div)."""
    return _binary(mindir.FloorDivOp, input, other)


@primitive
def floor_mod(x, y):
    """x - floor(x / y) * y, the sign of y (ops.floor_mod)."""
    return _binary(mindir.ModOp, x, y)


@primitive
def pow(input, exponent):
    """input ** exponent (ops.pow). Integer tensors with a small non-negative
    Python int exponent use repeated multiplication; otherwise the operands are
    promoted to a float type."""
    if (isinstance(input, TensorValue) and not input.dtype.is_float and isinstance(exponent, int)
            and not isinstance(exponent, bool) and 0 <= exponent <= 16):
        if exponent == 0:
            return emit(mindir.OnesLikeOp, input.value)
        result = input
        for _ in range(exponent - 1):
            result = mul(result, input)
        return result
    return _binary(mindir.PowOp, input, exponent, min_float=True)


@primitive
def maximum(input, other):
    """max(input, other) elementwise, nan-propagating (ops.maximum)."""
    return _binary(mindir.MaximumOp, input, other)


@primitive
def minimum(input, other):
    """min(input, other) elementwise, nan-propagating (ops.minimum)."""
    return _binary(mindir.MinimumOp, input, other)


@primitive
def addn(x):
    """Sum of a tuple/list of tensors (ops.addn)."""
    if not isinstance(x, (list, tuple)) or not x:
        _b.error("addn expects a non-empty tuple or list of tensors")
    result = x[0]
    for t in x[1:]:
        result = add(result, t)
    return to_tensor(result)


true_divide = divide = div
floordiv = floor_div
remainder = mod = floor_mod
subtract = sub
multiply = mul


# ---------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------

def _num_unary(op, x):
    t = to_tensor(x)
    if t.dtype.is_bool:
        _b.error(f"{op.OPERATION_NAME} does not accept bool tensors")
    return emit(op, t.value)


def _float_unary(op, x):
    t = to_tensor(x)
    if not t.dtype.is_float:
        t = cast_to(t, _dt.float32)
    return emit(op, t.value)


def _define_unary(name, op, is_float, doc):
    def fn(input):
        return (_float_unary if is_float else _num_unary)(op, input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + (" Integer inputs are computed in float32." if is_float else "")
    return primitive(fn)


neg = _define_unary("neg", mindir.NegOp, False, "-input (ops.neg).")
abs = _define_unary("abs", mindir.AbsOp, False, "|input| (ops.abs).")
sign = _define_unary("sign", mindir.SignOp, False, "sign(input) in {-1, 0, 1} (ops.sign).")
square = _define_unary("square", mindir.SquareOp, False, "input * input (ops.square).")
relu = _define_unary("relu", mindir.ReluOp, False, "max(input, 0) (ops.relu).")
exp = _define_unary("exp", mindir.ExpOp, True, "e ** input (ops.exp).")
log = _define_unary("log", mindir.LogOp, True, "natural logarithm (ops.log).")
log1p = _define_unary("log1p", mindir.Log1pOp, True, "log(1 + input) (ops.log1p).")
expm1 = _define_unary("expm1", mindir.Expm1Op, True, "e ** input - 1 (ops.expm1).")
sqrt = _define_unary("sqrt", mindir.SqrtOp, True, "square root (ops.sqrt).")
rsqrt = _define_unary("rsqrt", mindir.RsqrtOp, True, "1 / sqrt(input) (ops.rsqrt).")
reciprocal = _define_unary("reciprocal", mindir.ReciprocalOp, True, "1 / input (ops.reciprocal).")
sin = _define_unary("sin", mindir.SinOp, True, "sine (ops.sin).")
cos = _define_unary("cos", mindir.CosOp, True, "cosine (ops.cos).")
tanh = _define_unary("tanh", mindir.TanhOp, True, "hyperbolic tangent (ops.tanh).")
sigmoid = _define_unary("sigmoid", mindir.SigmoidOp, True, "1 / (1 + e ** -input) (ops.sigmoid).")
erf = _define_unary("erf", mindir.ErfOp, True, "Gauss error function (ops.erf).")
softplus = _define_unary("softplus", mindir.SoftplusOp, True, "log(1 + e ** input) (ops.softplus).")
silu = _define_unary("silu", mindir.SiluOp, True, "input * sigmoid(input) (ops.silu).")
floor = _define_unary("floor", mindir.FloorOp, True, "round toward -inf (ops.floor).")
ceil = _define_unary("ceil", mindir.CeilOp, True, "round toward +inf (ops.ceil).")
round = _define_unary("round", mindir.RoundOp, True, "round half to even (ops.round).")
negative = neg
absolute = abs


@primitive
def trunc(input):
    """Round toward zero (ops.trunc)."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        return t
    return select(less(t, 0), ceil(t), floor(t))


@primitive
def relu6(x):
    """min(max(x, 0), 6) (ops.relu6), written so that its gradient is MindSpore's
    ReLU6Grad: 1 on (0, 6] (0 at x = 0, 1 at x = 6; recorded in test/python/compat)."""
    t = to_tensor(x)
    return select(greater(t, 6), to_tensor(6, t.dtype), relu(t))


@primitive
def leaky_relu(input, alpha=0.2):
    """input if input >= 0 else alpha * input (ops.leaky_relu)."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        t = cast_to(t, _dt.float32)
    return emit(mindir.LeakyReluOp, t.value, alpha=_b.f64_attr(alpha))


@primitive
def gelu(input_x, approximate="none"):
    """GELU (ops.gelu): approximate='none' (erf form, the MindSpore default) or 'tanh'."""
    mode = enum_case(GeluApproximate, approximate, "gelu: approximate")
    t = to_tensor(input_x)
    if not t.dtype.is_float:
        t = cast_to(t, _dt.float32)
    return emit(mindir.GeluOp, t.value, approximate=mode)


@primitive
def stop_gradient(value):
    """Identity whose gradient is zero (ops.stop_gradient)."""
    return emit(mindir.StopGradientOp, to_tensor(value).value)


@primitive
def isnan(input):
    """input != input (ops.isnan); False for integer tensors."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        return scalar_const(False, _dt.bool_, t.shape)
    return emit(mindir.IsNanOp, t.value)


@primitive
def isfinite(input):
    """Not nan and not +-inf (ops.isfinite); True for integer tensors."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        return scalar_const(True, _dt.bool_, t.shape)
    return emit(mindir.IsFiniteOp, t.value)


@primitive
def isinf(input):
    """+-inf (ops.isinf)."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        return scalar_const(False, _dt.bool_, t.shape)
    return logical_and(logical_not(isfinite(t)), logical_not(isnan(t)))


@primitive
def cast(input, dtype):
    """Converts the element type (ops.cast); float -> int truncates toward zero."""
    if isinstance(dtype, TensorValue):
        _b.error("cast: dtype must be a dtype (e.g. ms.float32), not a tensor")
    try:
        dt = _dt.get(dtype)
    except (TypeError, ValueError) as e:
        _b.error(f"cast: {e}")
    return to_tensor(input, dt) if not isinstance(input, TensorValue) else cast_to(input, dt)


# ---------------------------------------------------------------------------
# Comparison, logical, selection
# ---------------------------------------------------------------------------

def _define_compare(name, op, doc):
    def fn(input, other):
        return _binary(op, input, other)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return primitive(fn)


equal = _define_compare("equal", mindir.EqualOp, "input == other, as bool (ops.equal).")
not_equal = _define_compare("not_equal", mindir.NotEqualOp, "input != other (ops.not_equal).")
less = _define_compare("less", mindir.LessOp, "input < other (ops.less).")
less_equal = _define_compare("less_equal", mindir.LessEqualOp, "input <= other (ops.less_equal).")
greater = _define_compare("greater", mindir.GreaterOp, "input > other (ops.greater).")
greater_equal = _define_compare("greater_equal", mindir.GreaterEqualOp,
                                "input >= other (ops.greater_equal).")
eq, ne, lt, le, gt, ge = equal, not_equal, less, less_equal, greater, greater_equal


def to_bool(x) -> TensorValue:
    """A bool tensor: bool tensors as they are, others compared with zero."""
    t = to_tensor(x)
    if t.dtype.is_bool:
        return t
    return emit(mindir.NotEqualOp, t.value, scalar_const(0, t.dtype).value)


@primitive
def logical_not(input):
    """not input, elementwise (ops.logical_not)."""
    return emit(mindir.LogicalNotOp, to_bool(input).value)


@primitive
def logical_and(input, other):
    """input and other, elementwise (ops.logical_and)."""
    return emit(mindir.LogicalAndOp, to_bool(input).value, to_bool(other).value)


@primitive
def logical_or(input, other):
    """input or other, elementwise (ops.logical_or)."""
    return emit(mindir.LogicalOrOp, to_bool(input).value, to_bool(other).value)


@primitive
def logical_xor(input, other):
    """input xor other, elementwise (ops.logical_xor)."""
    return emit(mindir.NotEqualOp, to_bool(input).value, to_bool(other).value)


def _bitwise_operands(name, x, y):
    a, b = promote(x, y)
    if not (a.dtype.is_int or a.dtype.is_bool):
        _b.error(f"For '{name}', the inputs must be integer or bool tensors, got {a.dtype}",
                 kind=TypeError)
    return a, b


def _define_bitwise(name, op, logical, doc):
    def fn(input, other):
        a, b = _bitwise_operands(name, input, other)
        if a.dtype.is_bool:
            if logical is None:
                _b.error(f"For '{name}', the inputs must be integer tensors, got bool",
                         kind=TypeError)
            return emit(logical, a.value, b.value)
        return emit(op, a.value, b.value)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return primitive(fn)


bitwise_and = _define_bitwise("bitwise_and", mindir.BitwiseAndOp, mindir.LogicalAndOp,
                              "input & other, elementwise (ops.bitwise_and; bool: and).")
bitwise_or = _define_bitwise("bitwise_or", mindir.BitwiseOrOp, mindir.LogicalOrOp,
                             "input | other, elementwise (ops.bitwise_or; bool: or).")
bitwise_xor = _define_bitwise("bitwise_xor", mindir.BitwiseXorOp, mindir.NotEqualOp,
                              "input ^ other, elementwise (ops.bitwise_xor; bool: xor).")
bitwise_left_shift = _define_bitwise(
    "bitwise_left_shift", mindir.LeftShiftOp, None,
    "input << other, elementwise (ops.bitwise_left_shift); shifts outside [0, bit width) give "
    "0, as numpy.")
bitwise_right_shift = _define_bitwise(
    "bitwise_right_shift", mindir.RightShiftOp, None,
    "input >> other, arithmetic (ops.bitwise_right_shift); shifts outside [0, bit width) give "
    "0 or -1 (the sign), as numpy.")


@primitive
def invert(input):
    """~input, elementwise (ops.invert; bool: not)."""
    t = to_tensor(input)
    if t.dtype.is_bool:
        return emit(mindir.LogicalNotOp, t.value)
    if not t.dtype.is_int:
        _b.error(f"For 'invert', the input must be an integer or bool tensor, got {t.dtype}",
                 kind=TypeError)
    return emit(mindir.BitwiseNotOp, t.value)


@primitive
def select(cond, x, y):
    """cond ? x : y elementwise, all three broadcast (ops.select)."""
    c = to_bool(cond)
    a, b = promote(x, y)
    return emit(mindir.SelectOp, c.value, a.value, b.value)


@primitive
def where(condition, x, y):
    """condition ? x : y (ops.where)."""
    return select(condition, x, y)


@primitive
def clamp(input, min=None, max=None):
    """min(max(input, min), max) (ops.clamp); either bound may be None."""
    if min is None and max is None:
        _b.error("clamp: at least one of min and max must be given")
    t = to_tensor(input)
    if min is None or max is None:
        # one bound: mindir.clamp against the dtype's extreme, so that the gradient at the
        # bound is 1 as MindSpore's clamp (a maximum/minimum would split it 0.5/0.5)
        a, b = promote(t, max if min is None else min)
        far = _extreme_value(a.dtype, min is None)
        lo, hi = (far, b) if min is None else (b, far)
        return emit(mindir.ClampOp, a.value, lo.value, hi.value)
    a, lo, hi = promote(t, min, max)
    return emit(mindir.ClampOp, a.value, lo.value, hi.value)


def _extreme_value(dtype, lowest):
    """-inf / +inf (floats) or the integer range's end, as a scalar of `dtype`."""
    if dtype.is_float:
        v = -np.inf if lowest else np.inf
    else:
        info = np.iinfo(dtype.to_numpy())
        v = int(info.min if lowest else info.max)
    return to_tensor(np.asarray(v, dtype.to_numpy()), dtype)


clip = clamp


@primitive
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """minimum(maximum(x, min), max) (ops.clip_by_value): composed as MindSpore does, so a
    value at a bound gets half the gradient (Maximum/MinimumGrad split ties; recorded)."""
    if clip_value_min is None and clip_value_max is None:
        _b.error("clip_by_value: at least one of clip_value_min and clip_value_max must be "
                 "given", kind=ValueError)
    t = to_tensor(x)
    if clip_value_min is not None:
        t = maximum(t, clip_value_min)
    if clip_value_max is not None:
        t = minimum(t, clip_value_max)
    return t


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _reduce(op, x, axis, keep_dims, dtype=None):
    t = to_tensor(x)
    if dtype is not None:
        t = cast_to(t, dtype)
    if t.dtype.is_bool:
        t = cast_to(t, _dt.int64)
    axes = norm_axes(axis, t.ndim)  # [] = all axes (also for axis=())
    return emit(op, t.value, axes=_b.i64_array(axes), keep_dims=_b.bool_attr(keep_dims))


def _mean(x, axis, keep_dims):
    t = to_tensor(x)
    if not t.dtype.is_float:
        t = cast_to(t, _dt.float32)
    return _reduce(mindir.ReduceMeanOp, t, axis, keep_dims)


@primitive
def reduce_sum(x, axis=(), keep_dims=False, *, dtype=None):
    """Sum over `axis` (int, tuple; () or None = all axes), like ops.ReduceSum(keep_dims)(x, axis)."""
    return _reduce(mindir.ReduceSumOp, x, axis, keep_dims, dtype)


@primitive
def reduce_mean(x, axis=(), keep_dims=False):
    """Mean over `axis` (ops.ReduceMean); integer inputs are averaged in float32."""
    return _mean(x, axis, keep_dims)


@primitive
def reduce_max(x, axis=(), keep_dims=False):
    """Max over `axis` (ops.ReduceMax)."""
    return _reduce(mindir.ReduceMaxOp, x, axis, keep_dims)


@primitive
def reduce_min(x, axis=(), keep_dims=False):
    """Min over `axis` (ops.ReduceMin)."""
    return _reduce(mindir.ReduceMinOp, x, axis, keep_dims)


@primitive
def reduce_prod(x, axis=(), keep_dims=False):
    """Product over `axis` (ops.ReduceProd)."""
    return _reduce(mindir.ReduceProdOp, x, axis, keep_dims)


def _int64_if_int(t, dtype):
    """The accumulation dtype of ops.sum / ops.prod: MindSpore 2.10 sums and multiplies
    bool and integer tensors in int64 (P.ReduceSum / P.ReduceProd keep the input dtype)."""
    if dtype is None and not t.dtype.is_float:
        return _dt.int64
    return dtype


@primitive
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (None = all) (ops.sum); bool/integer inputs sum to int64."""
    t = to_tensor(input)
    return _reduce(mindir.ReduceSumOp, t, dim, keepdim, _int64_if_int(t, dtype))


@primitive
def mean(input, axis=None, keep_dims=False):
    """Mean over `axis` (None = all) (ops.mean)."""
    return _mean(input, axis, keep_dims)


@primitive
def amax(input, axis=None, keepdims=False):
    """Max over `axis` (ops.amax)."""
    return _reduce(mindir.ReduceMaxOp, input, axis, keepdims)


@primitive
def amin(input, axis=None, keepdims=False):
    """Min over `axis` (ops.amin)."""
    return _reduce(mindir.ReduceMinOp, input, axis, keepdims)


@primitive
def prod(input, axis=None, keep_dims=False, *, dtype=None):
    """Product over `axis` (ops.prod); bool/integer inputs multiply in int64."""
    t = to_tensor(input)
    return _reduce(mindir.ReduceProdOp, t, axis, keep_dims, _int64_if_int(t, dtype))


def _arg_reduce(op, x, axis, keepdims):
    t = to_tensor(x)
    if t.dtype.is_bool:
        t = cast_to(t, _dt.int32)
    if axis is None:
        from .array import reshape
        t = reshape(t, (-1,))
        axis = 0
    a = norm_axis(axis, t.ndim)
    return emit(op, t.value, axis=_b.i64_attr(a), keep_dims=_b.bool_attr(keepdims))


@primitive
def argmax(input, dim=None, keepdim=False):
    """Index (int64, as MindSpore 2.10's ops.argmax; P.Argmax casts to int32) of the first
    max along `dim` (None: of the flattened tensor) (ops.argmax)."""
    return cast_to(_arg_reduce(mindir.ArgmaxOp, input, dim, keepdim), _dt.int64)


@primitive
def argmin(input, axis=None, keepdims=False):
    """Index (int32, as MindSpore 2.10's ops.argmin) of the first min along `axis`
    (ops.argmin)."""
    return _arg_reduce(mindir.ArgminOp, input, axis, keepdims)


# Marks a reduce_max/min whose gradient goes to the first extremum (MindSpore's
# ArgMaxWithValue: ops.max/min with an axis, Tensor.max(axis)) rather than shared between
# ties (ReduceMax); read by the bprop in passes/autodiff/bprop_math.py. A discardable
# attribute: the forward pass stays one reduction (no argmax unless the indices are used).
FIRST_EXTREMUM_ATTR = "msmlir.first_extremum"


def _extremum_with_index(op, arg, input, axis, keepdims):
    t = to_tensor(input)
    values = _reduce(op, t, axis, keepdims)
    if axis is not None and t.dtype.is_float:
        from mlir import ir
        values.value.owner.attributes[FIRST_EXTREMUM_ATTR] = ir.UnitAttr.get()
    return values, cast_to(arg(t, axis, keepdims), _dt.int64)


@primitive
def max(input, axis=None, keepdims=False):
    """(values, int64 indices) of the max along `axis` (ops.max); axis None reduces all
    elements (the index is into the flattened tensor). With an axis the gradient goes to
    the first maximum (ArgMaxWithValue); without, ties share it (ReduceMax)."""
    return _extremum_with_index(mindir.ReduceMaxOp, argmax, input, axis, keepdims)


@primitive
def min(input, axis=None, keepdims=False):
    """(values, int64 indices) of the min along `axis` (ops.min), as ops.max."""
    return _extremum_with_index(mindir.ReduceMinOp, argmin, input, axis, keepdims)


def _bool_reduce(op, x, axis, keep_dims):
    t = cast_to(to_bool(x), _dt.int32)
    return cast_to(_reduce(op, t, axis, keep_dims), _dt.bool_)


@primitive
def all(input, axis=None, keep_dims=False):
    """True where every element along `axis` (None = all) is non-zero (ops.all)."""
    return _bool_reduce(mindir.ReduceMinOp, input, axis, keep_dims)


@primitive
def any(input, axis=None, keep_dims=False):
    """True where some element along `axis` (None = all) is non-zero (ops.any)."""
    return _bool_reduce(mindir.ReduceMaxOp, input, axis, keep_dims)


@primitive
def logsumexp(input, axis, keep_dims=False):
    """log(sum(exp(input), axis)), computed stably (ops.logsumexp)."""
    t = to_tensor(input)
    if not t.dtype.is_float:
        t = cast_to(t, _dt.float32)
    m = stop_gradient(_reduce(mindir.ReduceMaxOp, t, axis, True))
    s = log(_reduce(mindir.ReduceSumOp, exp(sub(t, m)), axis, True))
    out = add(s, m)
    if not keep_dims:
        from .array import squeeze
        axes = norm_axes(axis, t.ndim) or list(range(t.ndim))
        out = squeeze(out, tuple(axes))
    return out


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------

@primitive
def matmul(input, other):
    """Matrix product with numpy semantics (ops.matmul): 2-D x 2-D is
    mindir.matmul; higher ranks use mindir.batch_matmul (batch dims broadcast);
    a 1-D operand gets a unit dim that is removed from the result."""
    from .array import expand_dims, squeeze
    a, b = promote(input, other)
    if a.ndim == 0 or b.ndim == 0:
        _b.error("matmul: operands must not be 0-d (use ops.mul)")
    input_shape, other_shape = a.shape, b.shape
    squeeze_axes = []
    if a.ndim == 1:
        a = expand_dims(a, 0)
        squeeze_axes.append(-2)
    if b.ndim == 1:
        b = expand_dims(b, 1)
        squeeze_axes.append(-1)
    # MindSpore 2.10's ops.matmul is MatMulExt (RuntimeError on bad shapes) unless `other`
    # is 1-D (then MatMul: ValueError) -- recorded in test/python/compat
    kind = ValueError if len(other_shape) == 1 else RuntimeError
    op = "mindir.matmul" if a.ndim == b.ndim == 2 else "mindir.batch_matmul"
    if a.shape[-1] != b.shape[-2]:
        _b.error(f"{op}: the last dim of input ({a.shape[-1]}) must equal the second-to-last "
                 f"dim of other ({b.shape[-2]}); shapes {list(input_shape)} and "
                 f"{list(other_shape)}", kind=kind)
    try:
        np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        _b.error(f"{op}: the batch dims of shapes {list(input_shape)} and {list(other_shape)} "
                 f"do not broadcast", kind=kind)
    if a.ndim == 2 and b.ndim == 2:
        out = emit(mindir.MatMulOp, a.value, b.value)
    else:
        from .array import reshape
        rank = builtins.max(a.ndim, b.ndim)  # leading unit dims; batch dims broadcast
        a = reshape(a, (1,) * (rank - a.ndim) + a.shape)
        b = reshape(b, (1,) * (rank - b.ndim) + b.shape)
        out = emit(mindir.BatchMatMulOp, a.value, b.value)
    if squeeze_axes:
        out = squeeze(out, tuple(sorted(norm_axis(ax, out.ndim) for ax in squeeze_axes)))
    return out


@primitive
def batch_matmul(x, y, transpose_a=False, transpose_b=False):
    """Batched matrix product over the last two dims (ops.BatchMatMul)."""
    a, b = promote(x, y)
    return emit(mindir.BatchMatMulOp, a.value, b.value, transpose_a=_b.bool_attr(transpose_a),
                transpose_b=_b.bool_attr(transpose_b))


@primitive
def bmm(input_x, mat2):
    """Batched matrix product (ops.bmm)."""
    return batch_matmul(input_x, mat2)


@primitive
def mat_mul(x, y, transpose_a=False, transpose_b=False):
    """2-D matrix product with optional transposes (ops.MatMul)."""
    a, b = promote(x, y)
    return emit(mindir.MatMulOp, a.value, b.value, transpose_a=_b.bool_attr(transpose_a),
                transpose_b=_b.bool_attr(transpose_b))


@primitive
def bias_add(input_x, bias, data_format="NCHW"):
    """input_x + bias along the channel dim (ops.bias_add)."""
    fmt = enum_case(DataFormat, data_format, "bias_add: data_format")
    x, b = promote(input_x, bias)
    return emit(mindir.BiasAddOp, x.value, b.value, data_format=fmt)


@primitive
def dense(input, weight, bias=None):
    """input @ weight.T + bias (ops.dense); weight is [out, in]."""
    x, w = promote(input, weight)
    if x.ndim == 2 and w.ndim == 2:
        out = emit(mindir.MatMulOp, x.value, w.value, transpose_b=_b.bool_attr(True))
    else:
        from .array import transpose
        out = matmul(x, transpose(w, (1, 0)))
    if bias is not None:
        out = add(out, bias)
    return out
