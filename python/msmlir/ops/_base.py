"""Shared machinery of `msmlir.ops`: eager dispatch, operand conversion,
implicit dtype promotion and op emission.

(`msmlir.frontend.builder` is imported by its full name: ``from ..frontend
import builder`` would name the frontend package, a higher layer.)"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import dtype as _dt
from ..dialects import mindir  # noqa: F401  (re-exported for the op modules)
import msmlir.frontend.builder as _b
from ..frontend.trace import eager_call, param_value
from ..frontend.values import TensorValue

__all__ = ["primitive", "is_tensor", "to_tensor", "promote", "emit", "const", "scalar_const",
           "cast_to", "norm_axis", "norm_axes", "TensorValue"]

_WEAK = (bool, int, float)


def primitive(fn):
    """Marks a functional op. Inside a jitted function it builds IR; called
    outside (on numpy arrays / Python numbers) it compiles and runs the single
    op eagerly (cached per signature), like MindSpore's PyNative mode."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _b.current() is None:
            return eager_call(fn, args, kwargs)
        return fn(*args, **kwargs)
    wrapper.__msmlir_primitive__ = True
    return wrapper


def is_tensor(x) -> bool:
    return isinstance(x, TensorValue)


def _is_weak(x) -> bool:
    return isinstance(x, _WEAK) or (isinstance(x, np.generic) and x.ndim == 0 and not isinstance(x, np.ndarray))


def _weak_value(x):
    return x.item() if isinstance(x, np.generic) else x


def _as_array(x):
    """A strongly typed constant operand (numpy array, Tensor-like) as a numpy
    array, or None (Python numbers and lists are weakly typed)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "asnumpy"):
        return np.asarray(x.asnumpy())
    return None


def _flat(x):
    for e in x:
        if isinstance(e, (list, tuple)):
            yield from _flat(e)
        else:
            yield e


def _default_dtype(v) -> _dt.DType:
    v = _weak_value(v)
    if isinstance(v, bool):
        return _dt.bool_
    if isinstance(v, numbers.Integral):
        return _dt.int64
    return _dt.float32


def _weak_result(dt: _dt.DType, v) -> _dt.DType:
    """dtype of `tensor(dt) op weak_scalar(v)` (MindSpore: a float scalar makes an
    integer/bool tensor float32; an int scalar makes a bool tensor int64)."""
    v = _weak_value(v)
    if isinstance(v, float) and not dt.is_float:
        return _dt.float32
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and dt.is_bool:
        return _dt.int64
    return dt


def scalar_const(value, dt, shape=()) -> TensorValue:
    """A constant tensor filled with one Python scalar."""
    dt = _dt.get(dt)
    value = _weak_value(value)
    if dt.is_int or dt.is_bool:
        if isinstance(value, float) and not float(value).is_integer():
            _b.error(f"cannot convert {value!r} to {dt} exactly")
    return TensorValue(_b.emit(mindir.ConstantOp, _b.splat_attr(value, shape, dt)))


def const(value, dtype=None) -> TensorValue:
    """A mindir.constant from a Python scalar, (nested) list/tuple or numpy array."""
    if isinstance(value, TensorValue):
        return cast_to(value, dtype) if dtype is not None else value
    pv = param_value(value)  # a Parameter is a function argument, not a constant
    if pv is not None:
        return cast_to(pv, dtype) if dtype is not None else pv
    if _is_weak(value):
        return scalar_const(value, dtype if dtype is not None else _default_dtype(value))
    arr = _as_array(value)
    if arr is None:
        try:
            arr = np.asarray(value)
        except Exception:
            _b.error(f"cannot convert {type(value).__name__} to a tensor")
        if arr.dtype == object:
            _b.error(f"cannot convert {value!r} to a constant tensor")
        if dtype is None:
            if arr.dtype.kind == "f":
                dtype = _dt.float32
            elif arr.dtype.kind in "iu":
                dtype = _dt.int64
    if dtype is not None:
        dtype = _dt.get(dtype)
        arr = arr.astype(dtype.to_numpy())
    elif arr.dtype.kind == "u" or arr.dtype == np.int16:
        _b.error(f"numpy dtype {arr.dtype} is not supported by msmlir")
    try:
        attr = _b.array_attr(arr)
    except TypeError as e:
        _b.error(str(e))
    return TensorValue(_b.emit(mindir.ConstantOp, attr))


def cast_to(x: TensorValue, dt) -> TensorValue:
    dt = _dt.get(dt)
    if x.dtype is dt:
        return x
    return TensorValue(_b.emit(mindir.CastOp, _b.tensor_type(x.shape, dt), x.value))


def to_tensor(x, dtype=None) -> TensorValue:
    """Converts an operand to a TensorValue: tensors are kept (cast when `dtype`
    is given), Python scalars and lists become constants of `dtype` (or their
    default dtype), numpy arrays keep their dtype unless `dtype` is given."""
    if isinstance(x, TensorValue):
        return x if dtype is None else cast_to(x, dtype)
    pv = param_value(x)  # a Parameter is a function argument (see frontend/trace.py)
    if pv is not None:
        return pv if dtype is None else cast_to(pv, dtype)
    if x is None:
        _b.error("expected a tensor, got None")
    if dtype is None and _is_weak(x):
        return scalar_const(x, _default_dtype(x))
    if _is_weak(x) or isinstance(x, (list, tuple)):
        return const(x, dtype)
    arr = _as_array(x)
    if arr is not None:
        return const(arr, dtype)
    if isinstance(x, str):
        _b.error(f"expected a tensor, got the string {x!r}")
    _b.error(f"expected a tensor, got {type(x).__name__}")


def result_dtype(*xs) -> _dt.DType:
    """The common dtype of the operands: tensors and numpy arrays are strong,
    Python scalars weak (they take the tensors' dtype)."""
    strong = None
    weak = []
    for x in xs:
        if isinstance(x, TensorValue):
            d = x.dtype
        elif (arr := _as_array(x)) is not None:
            d = _dt.from_numpy(arr.dtype)
        else:
            weak.append(x)
            continue
        strong = d if strong is None else _dt.promote_types(strong, d)
    scalars = []
    for w in weak:
        scalars.extend(v for v in (_flat(w) if isinstance(w, (list, tuple)) else (w,)) if _is_weak(v))
    if strong is None:
        # Only Python values: the widest of their default dtypes.
        for v in scalars:
            d = _default_dtype(v)
            strong = d if strong is None else _dt.promote_types(strong, d)
        return strong or _dt.float32
    for v in scalars:
        strong = _weak_result(strong, v)
    return strong


def promote(*xs, min_float=False):
    """Converts the operands to TensorValues of one common dtype, inserting
    mindir.cast where a tensor's dtype differs. With `min_float`, integer and
    bool results are promoted to float32 (ops that only exist on floats)."""
    dt = result_dtype(*xs)
    if min_float and not dt.is_float:
        dt = _dt.float32
    return [to_tensor(x, dt) for x in xs]


def emit(op_builder, *args, **kwargs):
    """Emits an op and wraps its result(s) as TensorValue(s)."""
    op = _b.emit(op_builder, *args, **kwargs)
    results = op.operation.results
    if len(results) == 1:
        return TensorValue(results[0])
    return tuple(TensorValue(r) for r in results)


def norm_axis(axis, ndim, *, allow_end=False, what="axis") -> int:
    """A non-negative axis in [0, ndim) (or [0, ndim] with allow_end)."""
    if isinstance(axis, TensorValue):
        _b.error(f"{what} must be a Python int known at compile time, got a tensor")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        _b.error(f"{what} must be an int, got {axis!r}")
    n = ndim + (1 if allow_end else 0)
    a = int(axis)
    if not -n <= a < n:
        _b.error(f"{what} {axis} is out of range for a tensor of rank {ndim}")
    return a + n if a < 0 else a


def norm_axes(axis, ndim):
    """None/()/[] -> all axes (as the empty list the dialect expects); int or
    sequence -> sorted non-negative axes."""
    if axis is None:
        return []
    if isinstance(axis, (list, tuple)):
        axes = [norm_axis(a, ndim) for a in axis]
    else:
        axes = [norm_axis(axis, ndim)]
    if len(set(axes)) != len(axes):
        _b.error(f"duplicate axes in {axis!r}")
    return sorted(axes)


def int_tuple(v, what="shape"):
    """A tuple of Python ints from an int, a tuple/list of ints."""
    if isinstance(v, TensorValue):
        _b.error(f"{what} must be known at compile time (a tuple of ints), got a tensor")
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (list, tuple)):
        out = []
        for e in v:
            if isinstance(e, TensorValue):
                _b.error(f"{what} must be known at compile time (a tuple of ints), got a tensor element")
            if isinstance(e, bool) or not isinstance(e, numbers.Integral):
                _b.error(f"{what} must contain ints, got {e!r}")
            out.append(int(e))
        return tuple(out)
    _b.error(f"{what} must be an int or a tuple of ints, got {v!r}")
