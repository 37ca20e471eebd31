"""Shared machinery of `msmlir.numpy`: the decorator that makes a function a
compiled msmlir primitive, operand conversion with mindspore.numpy's default
dtypes, and axis helpers.

Every public function is decorated with `_api` (or `_creation`): inside
`msmlir.jit` it builds `mindir` IR on TensorValues; called outside, the whole
function (all the ops it builds) is traced into one module, compiled once per
input signature and run (`msmlir.ops._base.primitive`). Compile-time errors
raised while building it are reported as ``msmlir.numpy.<name>: <message>``.
"""
from __future__ import annotations

import builtins
import functools
import numbers
import threading

import numpy as onp

from .. import dtype as _dt
from ..frontend import builder as _b
from ..arraylike import host_tensor, is_array
from ..errors import CompileError
from ..frontend.trace import param_value
from ..frontend.values import TensorValue
from ..ops._base import cast_to, primitive, promote, scalar_const

__all__ = []

_state = threading.local()


def _named_error(name, e: CompileError) -> CompileError:
    err = CompileError(f"msmlir.numpy.{name}: {e.msg}", e.pos, e.call_stack, kind=type(e))
    err._mnp_named = True
    return err


def _traced(fn, name):
    """fn, reporting its CompileErrors under the name of the outermost
    msmlir.numpy function being built."""
    @functools.wraps(fn)
    def traced(*args, **kwargs):
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        try:
            return fn(*args, **kwargs)
        except CompileError as e:
            if depth == 0 and not getattr(e, "_mnp_named", False):
                raise _named_error(name, e) from None
            raise
        finally:
            _state.depth = depth
    return traced


def _api(fn):
    """A compiled msmlir.numpy function (numpy in -> numpy out, msmlir.Tensor in
    -> Tensor out, TensorValue in -> IR, like msmlir.ops)."""
    return primitive(_traced(fn, fn.__name__))


def _creation(fn):
    """Like `_api`, for functions that create a tensor: called eagerly they
    return an msmlir.Tensor, as mindspore.numpy's creation functions do."""
    prim = primitive(_traced(fn, fn.__name__))

    @functools.wraps(prim)
    def wrapper(*args, **kwargs):
        out = prim(*args, **kwargs)
        if _b.current() is None:
            out = _wrap_tensor(out)
        return out
    wrapper.__msmlir_primitive__ = True
    return wrapper


def _wrap_tensor(out):
    if isinstance(out, onp.ndarray):
        return host_tensor(out)
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap_tensor(o) for o in out)
    return out


# ---------------------------------------------------------------------------
# Operands
# ---------------------------------------------------------------------------

def is_tensorlike(x) -> bool:
    """A tensor operand: a TensorValue or an array (msmlir.arraylike; numpy scalars are numbers)."""
    return isinstance(x, TensorValue) or is_array(x, scalars=False)


def _host_array(a, dtype=None, what="array"):
    """Python data (scalars, nested lists/tuples) or a numpy array as a numpy array
    with mindspore.numpy's dtype rules: Python data of int64/float64 becomes
    int32/float32; numpy arrays keep their dtype. Only compile-time data."""
    if isinstance(a, onp.ndarray):
        arr = a
    elif hasattr(a, "asnumpy"):
        arr = onp.asarray(a.asnumpy())
    else:
        try:
            arr = onp.asarray(a)
        except ValueError:
            _b.error(f"{what}: the input has different sizes in different dimensions")
        if arr.dtype == object:
            _b.error(f"{what}: the input has different sizes in different dimensions or "
                     f"non-numeric elements")
        if arr.dtype.kind in "US":
            _b.error(f"{what}: string data is not supported")
        if dtype is None:
            if arr.dtype.kind == "f":
                arr = arr.astype(onp.float32)
            elif arr.dtype.kind in "iu":
                arr = arr.astype(onp.int32)
    if dtype is not None:
        arr = arr.astype(_dtype(dtype).to_numpy())
    return arr


def _dtype(dtype):
    """A DType from any dtype-like value, or a compile error."""
    if isinstance(dtype, TensorValue):
        _b.error("dtype must be a dtype (e.g. msmlir.float32), got a tensor")
    try:
        return _dt.get(dtype)
    except (TypeError, ValueError) as e:
        _b.error(f"invalid dtype {dtype!r}: {e}")


def _t(x, dtype=None) -> TensorValue:
    """Any operand as a TensorValue (Python data with mindspore.numpy's defaults:
    bool, int32, float32), cast to `dtype` when given."""
    if isinstance(x, TensorValue):
        return x if dtype is None else cast_to(x, _dtype(dtype))
    pv = param_value(x)
    if pv is not None:
        return pv if dtype is None else cast_to(pv, _dtype(dtype))
    if x is None:
        _b.error("expected a tensor, got None")
    if isinstance(x, str):
        _b.error(f"expected a tensor, got the string {x!r}")
    from ..ops._base import const
    if isinstance(x, (bool, numbers.Number, onp.generic)) and dtype is None:
        v = x.item() if isinstance(x, onp.generic) else x
        if isinstance(x, onp.generic):
            return const(onp.asarray(x))
        if isinstance(v, bool):
            return scalar_const(v, _dt.bool_)
        if isinstance(v, numbers.Integral):
            return scalar_const(v, _dt.int32 if -2**31 <= v < 2**31 else _dt.int64)
        if isinstance(v, complex):
            _b.error("complex numbers are not supported")
        return scalar_const(v, _dt.float32)
    if isinstance(x, (list, tuple)) and _has_tensor(x):
        # a (nested) sequence holding traced tensors: stacked, like mindspore.numpy.asarray
        items = [_t(e) for e in x]
        if not items:
            _b.error("cannot stack an empty sequence")
        items = promote(*items)
        for e in items:
            if e.shape != items[0].shape:
                _b.error(f"the sequence elements have different shapes ({items[0].shape} and "
                         f"{e.shape})")
        from ..ops import stack
        out = stack(list(items), 0)
        return out if dtype is None else cast_to(out, _dtype(dtype))
    arr = _host_array(x, dtype)
    return const(arr)


def _has_tensor(x) -> bool:
    if isinstance(x, TensorValue) or param_value(x) is not None:
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(_has_tensor(e) for e in x)
    return False


def _operands(*xs, broadcast=True):
    """Operands of an elementwise function, promoted to one dtype: Python scalars
    are weakly typed when some operand is a tensor (they take its dtype, as in
    mindspore); with no tensor operand, they get mindspore.numpy's defaults."""
    if not builtins.any(is_tensorlike(x) or param_value(x) is not None for x in xs):
        xs = [_t(x) for x in xs]
    else:
        xs = [x if (is_tensorlike(x) or isinstance(x, (bool, numbers.Number))) else _t(x) for x in xs]
    out = promote(*xs)
    if broadcast:
        _broadcast_shapes(*(t.shape for t in out))
    return out


def _float(t: TensorValue, dtype=None) -> TensorValue:
    """t as a float tensor (float32 unless it already is a float)."""
    if dtype is not None:
        return cast_to(t, _dtype(dtype))
    return t if t.dtype.is_float else cast_to(t, _dt.float32)


def _out(t, dtype):
    """Applies an explicit output dtype (the ufunc `dtype` argument)."""
    return t if dtype is None else cast_to(t, _dtype(dtype))


# ---------------------------------------------------------------------------
# Axes and shapes (all compile-time)
# ---------------------------------------------------------------------------

def _axis(axis, ndim, what="axis", allow_end=False):
    from ..ops._base import norm_axis
    return norm_axis(axis, ndim, allow_end=allow_end, what=what)


def _axes(axis, ndim):
    """None -> all axes; int or sequence -> a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = [_axis(a, ndim) for a in axis]
    else:
        axes = [_axis(axis, ndim)]
    if len(set(axes)) != len(axes):
        _b.error(f"repeated axis in {axis!r}")
    return tuple(sorted(axes))


def _int(v, what):
    if isinstance(v, TensorValue):
        _b.error(f"{what} must be a Python int known at compile time, got a tensor")
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, onp.integer)):
        _b.error(f"{what} must be an int, got {v!r}")
    return int(v)


def _shape(shape, what="shape"):
    """A shape from an int or a sequence of ints (non-negative)."""
    if isinstance(shape, TensorValue):
        _b.error(f"{what} must be known at compile time (a tuple of ints), got a tensor")
    if isinstance(shape, (numbers.Integral, onp.integer)) and not isinstance(shape, bool):
        s = (int(shape),)
    elif isinstance(shape, (list, tuple)):
        s = tuple(_int(d, f"{what} entry") for d in shape)
    else:
        _b.error(f"{what} must be an int or a tuple of ints, got {shape!r}")
    if builtins.any(d < 0 for d in s):
        _b.error(f"negative dimension in {what} {s}")
    return s


def _broadcast_shapes(*shapes):
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        d = 1
        for s in shapes:
            k = i - (nd - len(s))
            if k < 0:
                continue
            e = s[k]
            if e != 1:
                if d != 1 and d != e:
                    _b.error("shapes " + " and ".join(str(list(s)) for s in shapes)
                             + " cannot be broadcast together")
                d = e
        out.append(d)
    return tuple(out)


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n
