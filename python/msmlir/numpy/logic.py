"""Comparison and logic (mindspore.numpy.logic_ops)."""
from __future__ import annotations

import numbers

import numpy as onp

from .. import dtype as _dt
from .. import ops
from ..ops._base import cast_to, scalar_const
from ._utils import _api, _axes, _broadcast_shapes, _float, _operands, _out, _t

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "isfinite", "isnan", "isinf", "isposinf",
           "isneginf", "signbit", "isclose", "allclose", "array_equal", "array_equiv", "all", "any",
           "sometrue", "isin", "in1d", "isscalar", "bitwise_and", "bitwise_or", "bitwise_xor",
           "invert", "bitwise_not", "left_shift", "right_shift"]


def _compare(name, op, doc):
    def fn(x1, x2, dtype=None):
        a, b = _operands(x1, x2)
        return _out(op(a, b), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{doc}, elementwise, as bool (mindspore.numpy.{name})."
    return _api(fn)


equal = _compare("equal", ops.equal, "x1 == x2")
not_equal = _compare("not_equal", ops.not_equal, "x1 != x2")
less = _compare("less", ops.less, "x1 < x2")
less_equal = _compare("less_equal", ops.less_equal, "x1 <= x2")
greater = _compare("greater", ops.greater, "x1 > x2")
greater_equal = _compare("greater_equal", ops.greater_equal, "x1 >= x2")
logical_and = _compare("logical_and", ops.logical_and, "x1 and x2 (non-zero is true)")
logical_or = _compare("logical_or", ops.logical_or, "x1 or x2")
logical_xor = _compare("logical_xor", ops.logical_xor, "x1 xor x2")



def _bitwise(name, op, doc):
    def fn(x1, x2, dtype=None):
        a, b = _operands(x1, x2)
        return _out(op(a, b), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{doc}, elementwise, on integers or bools (mindspore.numpy.{name})."
    return _api(fn)


bitwise_and = _bitwise("bitwise_and", ops.bitwise_and, "x1 & x2")
bitwise_or = _bitwise("bitwise_or", ops.bitwise_or, "x1 | x2")
bitwise_xor = _bitwise("bitwise_xor", ops.bitwise_xor, "x1 ^ x2")
left_shift = _bitwise("left_shift", ops.bitwise_left_shift,
                      "x1 << x2 (a shift outside [0, bit width) gives 0)")
right_shift = _bitwise("right_shift", ops.bitwise_right_shift,
                       "x1 >> x2, arithmetic (a shift outside [0, bit width) gives 0 or -1)")


@_api
def invert(x, dtype=None):
    """~x, elementwise, on integers or bools (mindspore.numpy.invert)."""
    return _out(ops.invert(_t(x)), dtype)


bitwise_not = invert


@_api
def logical_not(a, dtype=None):
    """not a, elementwise (mindspore.numpy.logical_not)."""
    return _out(ops.logical_not(_t(a)), dtype)


@_api
def isfinite(x, dtype=None):
    """Neither inf nor nan (mindspore.numpy.isfinite)."""
    return _out(ops.isfinite(_t(x)), dtype)


@_api
def isnan(x, dtype=None):
    """nan, elementwise (mindspore.numpy.isnan)."""
    return _out(ops.isnan(_t(x)), dtype)


@_api
def isinf(x, dtype=None):
    """+inf or -inf (mindspore.numpy.isinf)."""
    return _out(ops.isinf(_t(x)), dtype)


@_api
def isposinf(x):
    """+inf (mindspore.numpy.isposinf)."""
    t = _t(x)
    return ops.logical_and(ops.isinf(t), ops.greater(t, 0)) if t.dtype.is_float else ops.isinf(t)


@_api
def isneginf(x):
    """-inf (mindspore.numpy.isneginf)."""
    t = _t(x)
    return ops.logical_and(ops.isinf(t), ops.less(t, 0)) if t.dtype.is_float else ops.isinf(t)


@_api
def signbit(x, dtype=None):
    """True where the sign bit is set, including -0.0 (mindspore.numpy.signbit)."""
    from .math import _signbit
    t = _t(x)
    if t.dtype.is_bool:
        return _out(scalar_const(False, _dt.bool_, t.shape), dtype)
    return _out(_signbit(t), dtype)


def _isclose(a, b, rtol, atol, equal_nan):
    x, y = _operands(a, b)
    x, y = _float(x), _float(y)
    shape = _broadcast_shapes(x.shape, y.shape)
    x, y = ops.broadcast_to(x, shape), ops.broadcast_to(y, shape)
    close = ops.less_equal(ops.abs(ops.sub(x, y)), ops.add(ops.mul(ops.abs(y), float(rtol)), float(atol)))
    finite = ops.logical_and(ops.isfinite(x), ops.isfinite(y))
    out = ops.select(finite, close, ops.equal(x, y))  # infinities: equal only to themselves
    if equal_nan:
        out = ops.logical_or(out, ops.logical_and(ops.isnan(x), ops.isnan(y)))
    return out


@_api
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| elementwise, with numpy's handling of inf and
    nan (mindspore.numpy.isclose)."""
    return _isclose(a, b, rtol, atol, equal_nan)


@_api
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """all(isclose(a, b)) as a 0-d bool tensor."""
    return ops.all(_isclose(a, b, rtol, atol, equal_nan))


@_api
def array_equal(a1, a2, equal_nan=False):
    """True (a 0-d bool tensor) if the inputs have the same shape and elements
    (mindspore.numpy.array_equal)."""
    x, y = _operands(a1, a2, broadcast=False)
    if x.shape != y.shape:
        return scalar_const(False, _dt.bool_)
    eq = ops.equal(x, y)
    if equal_nan and x.dtype.is_float:
        eq = ops.logical_or(eq, ops.logical_and(ops.isnan(x), ops.isnan(y)))
    return ops.all(eq)


@_api
def array_equiv(a1, a2):
    """True if the inputs broadcast to each other and are equal (mindspore.numpy.array_equiv)."""
    x, y = _operands(a1, a2, broadcast=False)
    try:
        _broadcast_shapes(x.shape, y.shape)
    except Exception:  # noqa: BLE001 - shapes that do not broadcast: not equivalent
        return scalar_const(False, _dt.bool_)
    return ops.all(ops.equal(x, y))


def _bool_reduce(op, a, axis, keepdims):
    t = _t(a)
    b = ops.not_equal(t, scalar_const(0, t.dtype)) if not t.dtype.is_bool else t
    axes = _axes(axis, b.ndim)
    if not axes or b.ndim == 0:
        return b
    return cast_to(op(cast_to(b, _dt.int32), axes, bool(keepdims)), _dt.bool_)


@_api
def all(a, axis=None, keepdims=False):
    """True where every element along `axis` (None: all) is non-zero."""
    return _bool_reduce(ops.reduce_min, a, axis, keepdims)


@_api
def any(a, axis=None, keepdims=False):
    """True where some element along `axis` (None: all) is non-zero."""
    return _bool_reduce(ops.reduce_max, a, axis, keepdims)


sometrue = any


def _isin(element, test_elements, invert):
    e, s = _operands(element, test_elements, broadcast=False)
    s = ops.reshape(s, (-1,))
    hit = ops.equal(ops.expand_dims(e, e.ndim), s)
    out = cast_to(ops.reduce_max(cast_to(hit, _dt.int32), (e.ndim,), False), _dt.bool_)
    return ops.logical_not(out) if invert else out


@_api
def isin(element, test_elements, invert=False):
    """element in test_elements, elementwise (mindspore.numpy.isin)."""
    return _isin(element, test_elements, invert)


@_api
def in1d(ar1, ar2, invert=False):
    """isin for the flattened ar1 (mindspore.numpy.in1d)."""
    return _isin(ops.reshape(_t(ar1), (-1,)), ar2, invert)


def isscalar(element):
    """True for Python and numpy scalars (mindspore.numpy.isscalar)."""
    return isinstance(element, (numbers.Number, bool, str, bytes, onp.generic))
