"""Tensor creation (mindspore.numpy.array_creations)."""
from __future__ import annotations

import builtins
import math as _math
import numbers

import numpy as onp

from .. import dtype as _dt
from .. import ops
from ..arraylike import host_tensor, is_host_tensor
from ..frontend import builder as _b
from ..frontend.values import TensorValue
from ..ops._base import cast_to
from ._utils import (_api, _creation, _dtype, _int, _shape, _t, _traced, _axis,
                     is_tensorlike)

__all__ = ["array", "asarray", "asfarray", "copy", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace", "eye",
           "identity", "tri", "tril", "triu", "diag", "diagflat", "diagonal", "meshgrid", "indices"]


# ---------------------------------------------------------------------------
# From data
# ---------------------------------------------------------------------------

def _eager_host(fname, obj, dtype):
    """Eager conversion of host data (no computation: the data becomes a Tensor)."""
    if dtype is not None:
        try:
            dtype = _dt.get(dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"msmlir.numpy.{fname}: invalid dtype {dtype!r}: {e}") from None
    if hasattr(obj, "asnumpy"):
        arr = onp.asarray(obj.asnumpy())
    elif isinstance(obj, onp.ndarray):
        arr = obj
    else:
        try:
            arr = onp.asarray(obj)
        except ValueError:
            raise ValueError(f"msmlir.numpy.{fname}: the input has different sizes in different "
                             f"dimensions") from None
        if arr.dtype == object:
            raise ValueError(f"msmlir.numpy.{fname}: the input has different sizes in different "
                             f"dimensions or non-numeric elements")
        if arr.dtype.kind in "USc":
            raise TypeError(f"msmlir.numpy.{fname}: {arr.dtype} data is not supported")
        if dtype is None:
            if arr.dtype.kind == "f":
                arr = arr.astype(onp.float32)
            elif arr.dtype.kind in "iu":
                arr = arr.astype(onp.int32)
    if dtype is not None:
        arr = arr.astype(dtype.to_numpy())
    else:
        try:
            _dt.from_numpy(arr.dtype)
        except TypeError as e:
            raise TypeError(f"msmlir.numpy.{fname}: {e}") from None
    return arr


def _ndmin(t, ndmin):
    if ndmin > t.ndim:
        t = ops.reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t


def _traced_array(obj, dtype, ndmin):
    t = _t(obj, dtype)
    return _ndmin(t, _int(ndmin, "ndmin"))


_traced_array_fn = _traced(_traced_array, "array")
_traced_asarray_fn = _traced(lambda a, dtype: _t(a, dtype), "asarray")


def array(obj, dtype=None, copy=True, ndmin=0):
    """Creates a tensor from array-like data (mindspore.numpy.array). Python data
    gets mindspore.numpy's default dtypes (int32, float32, bool); numpy arrays and
    tensors keep theirs unless `dtype` is given. Returns an msmlir.Tensor
    (inside msmlir.jit: a constant / the traced tensor)."""
    if _b.current() is not None:
        return _traced_array_fn(obj, dtype, ndmin)
    arr = _eager_host("array", obj, dtype)
    if isinstance(ndmin, bool) or not isinstance(ndmin, numbers.Integral):
        raise TypeError(f"msmlir.numpy.array: ndmin must be an int, got {ndmin!r}")
    if ndmin > arr.ndim:
        arr = arr.reshape((1,) * (ndmin - arr.ndim) + arr.shape)
    if copy or arr is obj or (hasattr(obj, "asnumpy") and arr.base is not None):
        arr = onp.array(arr, order="C", copy=True)
    return host_tensor(arr)


def asarray(a, dtype=None):
    """Converts the input to a tensor (mindspore.numpy.asarray); an msmlir.Tensor
    of the right dtype is returned as it is."""
    if _b.current() is not None:
        return _traced_asarray_fn(a, dtype)
    if is_host_tensor(a) and (dtype is None or _dt.get(dtype) is a.dtype):
        return a
    arr = _eager_host("asarray", a, dtype)
    if arr is a:
        arr = onp.array(arr, order="C", copy=True)
    return host_tensor(onp.asarray(arr, order="C"))


def _float_dtype(dtype):
    if dtype is None:
        return None
    d = _dt.get(dtype)
    return d if d.is_float else _dt.float32


def asfarray(a, dtype=_dt.float32):
    """Converts the input to a float tensor (mindspore.numpy.asfarray): a
    non-float `dtype` gives float32."""
    try:
        dtype = _float_dtype(dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"msmlir.numpy.asfarray: invalid dtype {dtype!r}: {e}") from None
    return asarray(a, dtype)


def copy(a):
    """A copy of the input (mindspore.numpy.copy)."""
    if _b.current() is not None:
        return _traced_asarray_fn(a, None)
    return array(a, copy=True)


# ---------------------------------------------------------------------------
# Filled tensors
# ---------------------------------------------------------------------------

def _fill(shape, dtype, value):
    return ops.fill(dtype, shape, value)


@_creation
def zeros(shape, dtype=_dt.float32):
    """A tensor of zeros (mindspore.numpy.zeros; float32 by default)."""
    return _fill(_shape(shape), _dtype(dtype), 0)


@_creation
def ones(shape, dtype=_dt.float32):
    """A tensor of ones (mindspore.numpy.ones; float32 by default)."""
    return _fill(_shape(shape), _dtype(dtype), 1)


@_creation
def empty(shape, dtype=_dt.float32):
    """mindspore.numpy.empty: here a tensor of zeros (an uninitialized tensor has no
    use in a functional graph)."""
    return _fill(_shape(shape), _dtype(dtype), 0)


def _scalar_dtype(v):
    if isinstance(v, (bool, onp.bool_)):
        return _dt.bool_
    if isinstance(v, (numbers.Integral, onp.integer)):
        return _dt.int32
    return _dt.float32


@_creation
def full(shape, fill_value, dtype=None):
    """A tensor of `shape` filled with `fill_value` (a scalar or an array broadcast to
    `shape`) (mindspore.numpy.full). dtype defaults to that of fill_value (bool,
    int32 or float32 for Python scalars)."""
    s = _shape(shape)
    if isinstance(fill_value, (bool, numbers.Number, onp.generic)) and not isinstance(fill_value, complex):
        dt = _dtype(dtype) if dtype is not None else _scalar_dtype(fill_value)
        return _fill(s, dt, fill_value.item() if isinstance(fill_value, onp.generic) else fill_value)
    v = _t(fill_value, dtype)
    return ops.broadcast_to(v, s)


def _like(a, dtype, shape, fname):
    t = _t(a)
    s = t.shape if shape is None else _shape(shape)
    dt = t.dtype if dtype is None else _dtype(dtype)
    return s, dt


@_api
def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of `a` (mindspore.numpy.zeros_like)."""
    s, dt = _like(a, dtype, shape, "zeros_like")
    return _fill(s, dt, 0)


@_api
def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of `a` (mindspore.numpy.ones_like)."""
    s, dt = _like(a, dtype, shape, "ones_like")
    return _fill(s, dt, 1)


@_api
def empty_like(prototype, dtype=None, shape=None):
    """mindspore.numpy.empty_like: zeros with the shape and dtype of `prototype`."""
    s, dt = _like(prototype, dtype, shape, "empty_like")
    return _fill(s, dt, 0)


@_api
def full_like(a, fill_value, dtype=None, shape=None):
    """`fill_value` broadcast to the shape of `a`, in the dtype of `a` (mindspore.numpy.full_like)."""
    s, dt = _like(a, dtype, shape, "full_like")
    if isinstance(fill_value, (bool, numbers.Number, onp.generic)):
        v = fill_value.item() if isinstance(fill_value, onp.generic) else fill_value
        if dt.is_int and isinstance(v, float):
            v = int(v)  # numpy: the value is converted (truncated) to the dtype
        return _fill(s, dt, v)
    return ops.broadcast_to(_t(fill_value, dt), s)


# ---------------------------------------------------------------------------
# Ranges
# ---------------------------------------------------------------------------

def _static_number(v, what):
    if isinstance(v, TensorValue) or is_tensorlike(v):
        _b.error(f"{what} must be a Python number known at compile time, got a tensor")
    if isinstance(v, onp.generic):
        v = v.item()
    if not isinstance(v, numbers.Real):
        _b.error(f"{what} must be a real number, got {v!r}")
    return v


@_creation
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop) (mindspore.numpy.arange): int32 when
    every argument is an int, else float32."""
    start = _static_number(start, "start")
    if stop is None:
        start, stop = 0, start
    stop = _static_number(stop, "stop")
    step = 1 if step is None else _static_number(step, "step")
    if step == 0:
        _b.error("step must not be zero")
    if dtype is None:
        ints = builtins.all(isinstance(v, numbers.Integral) for v in (start, stop, step))
        dt = _dt.int32 if ints else _dt.float32
    else:
        dt = _dtype(dtype)
    n = builtins.max(0, _math.ceil((stop - start) / step))
    if n == 0:
        _b.error(f"the range [{start}, {stop}) with step {step} is empty (zero-size tensors "
                 f"are not supported)")
    if dt.is_float and not (float(start).is_integer() and float(step).is_integer()):
        # start + i * step in float64, then rounded once (as numpy does)
        i = ops.arange(0, n, 1, dtype=_dt.int32)
        y = ops.add(ops.mul(cast_to(i, _dt.float64), float(step)), float(start))
        return cast_to(y, dt)
    return ops.arange(start, start + n * step, step, dtype=dt)


def _lin_ramp(start, stop, num, endpoint, fname):
    """(samples with the new axis first, step), computed in float64."""
    num = _int(num, "num")
    if num <= 0:
        _b.error(f"num must be positive, got {num} (zero-size tensors are not supported)")
    f64 = _dt.float64
    scalar_ends = builtins.all(isinstance(v, (numbers.Real, onp.generic)) and not isinstance(v, TensorValue)
                               for v in (start, stop))
    div = num - 1 if endpoint else num
    i = cast_to(ops.arange(0, num, 1, dtype=_dt.int32), f64)
    if scalar_ends:
        a, b = float(start), float(stop)
        step = (b - a) / div if div > 0 else float("nan")
        if div > 0 and step != 0:
            y = ops.add(ops.mul(i, step), a)
        elif div > 0:
            y = ops.add(ops.mul(ops.div(i, float(div)), b - a), a)
        else:
            y = ops.add(ops.mul(i, b - a), a)
        if endpoint and num > 1:
            last = ops.equal(ops.arange(0, num, 1, dtype=_dt.int32), num - 1)
            y = ops.select(last, b, y)
        return y, step, None
    a = _t(start, None)
    b = _t(stop, None)
    from ._utils import _broadcast_shapes
    s = _broadcast_shapes(a.shape, b.shape)
    a = ops.broadcast_to(cast_to(a, f64), s)
    b = ops.broadcast_to(cast_to(b, f64), s)
    delta = ops.sub(b, a)
    i = ops.reshape(i, (num,) + (1,) * len(s))
    if div > 0:
        step = ops.div(delta, float(div))
        y = ops.add(ops.mul(i, step), a)
    else:
        step = ops.fill(f64, s, float("nan"))
        y = ops.add(ops.mul(i, delta), a)
    if endpoint and num > 1:
        last = ops.equal(ops.reshape(ops.arange(0, num, 1, dtype=_dt.int32), (num,) + (1,) * len(s)),
                         num - 1)
        y = ops.select(last, ops.broadcast_to(b, (num,) + s), y)
    return y, step, s


def _place_axis(y, axis, nd):
    a = _axis(axis, nd + 1, allow_end=False)
    if a == 0:
        return y
    perm = list(range(1, nd + 1))
    perm.insert(a, 0)
    return ops.transpose(y, tuple(perm))


@_creation
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced samples over [start, stop] (mindspore.numpy.linspace;
    float32 by default). start/stop may be arrays: the samples go along `axis`.
    Computed in float64 and rounded once, like numpy."""
    dt = _dt.float32 if dtype is None else _dtype(dtype)
    y, step, s = _lin_ramp(start, stop, num, endpoint, "linspace")
    y = _place_axis(y, axis, 0 if s is None else len(s))
    out = cast_to(y, dt)
    if retstep:
        st = (ops.fill(dt if dt.is_float else _dt.float32, (), step) if s is None
              else cast_to(step, dt if dt.is_float else _dt.float32))
        return out, st
    return out


@_creation
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num) (mindspore.numpy.logspace; float32 by
    default). The exponents are computed in float64, the power in float32."""
    dt = _dt.float32 if dtype is None else _dtype(dtype)
    y, _, s = _lin_ramp(start, stop, num, endpoint, "logspace")
    y = _place_axis(y, axis, 0 if s is None else len(s))
    y32 = cast_to(y, _dt.float32)
    if isinstance(base, (numbers.Real, onp.generic)) and not isinstance(base, TensorValue):
        out = ops.pow(ops.fill(_dt.float32, y32.shape, float(base)), y32)
    else:
        out = ops.pow(_t(base, _dt.float32), y32)
    return cast_to(out, dt)


# ---------------------------------------------------------------------------
# Matrices
# ---------------------------------------------------------------------------

def _offsets(n, m):
    """col - row as an (n, m) int32 tensor."""
    row = ops.reshape(ops.arange(0, n, 1, dtype=_dt.int32), (n, 1))
    col = ops.reshape(ops.arange(0, m, 1, dtype=_dt.int32), (1, m))
    return ops.sub(col, row)


@_creation
def eye(N, M=None, k=0, dtype=_dt.float32):
    """Ones on the k-th diagonal of an N x M matrix (mindspore.numpy.eye)."""
    n = _int(N, "N")
    m = n if M is None else _int(M, "M")
    k = _int(k, "k")
    if n <= 0 or m <= 0:
        _b.error(f"N and M must be positive, got {n} and {m}")
    return cast_to(ops.equal(_offsets(n, m), k), _dtype(dtype))


@_creation
def identity(n, dtype=_dt.float32):
    """The n x n identity matrix (mindspore.numpy.identity)."""
    n = _int(n, "n")
    if n <= 0:
        _b.error(f"n must be positive, got {n}")
    return cast_to(ops.equal(_offsets(n, n), 0), _dtype(dtype))


@_creation
def tri(N, M=None, k=0, dtype=_dt.float32):
    """Ones at and below the k-th diagonal (mindspore.numpy.tri)."""
    n = _int(N, "N")
    m = n if M is None else _int(M, "M")
    if n <= 0 or m <= 0:
        _b.error(f"N and M must be positive, got {n} and {m}")
    return cast_to(ops.less_equal(_offsets(n, m), _int(k, "k")), _dtype(dtype))


def _tri_mask(m, k, lower):
    t = _t(m)
    if t.ndim == 0:
        _b.error("the input must be at least 1-D")
    if t.ndim == 1:  # numpy: a 1-D input is broadcast to a square matrix
        t = ops.broadcast_to(ops.reshape(t, (1, t.shape[0])), (t.shape[0], t.shape[0]))
    off = _offsets(t.shape[-2], t.shape[-1])
    k = _int(k, "k")
    mask = ops.less_equal(off, k) if lower else ops.greater_equal(off, k)
    return ops.select(mask, t, ops.zeros_like(t))


@_api
def tril(m, k=0):
    """The lower triangle (at and below the k-th diagonal) of the last two dims (mindspore.numpy.tril)."""
    return _tri_mask(m, k, True)


@_api
def triu(m, k=0):
    """The upper triangle (at and above the k-th diagonal) of the last two dims (mindspore.numpy.triu)."""
    return _tri_mask(m, k, False)


def _diagonal(t, offset, axis1, axis2):
    if t.ndim < 2:
        _b.error(f"the input must be at least 2-D, got rank {t.ndim}")
    a1 = _axis(axis1, t.ndim, "axis1")
    a2 = _axis(axis2, t.ndim, "axis2")
    if a1 == a2:
        _b.error(f"axis1 and axis2 cannot be the same ({a1})")
    offset = _int(offset, "offset")
    rest = [d for d in range(t.ndim) if d not in (a1, a2)]
    t = ops.transpose(t, tuple(rest + [a1, a2]))
    r, c = t.shape[-2], t.shape[-1]
    # the sub-matrix whose main diagonal is the offset diagonal
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = builtins.max(0, builtins.min(r - r0, c - c0))
    if n == 0:
        _b.error(f"offset {offset} is outside the {r} x {c} matrix (zero-size tensors are not supported)")
    lead = t.shape[:-2]
    nd = t.ndim
    sub = ops.strided_slice(t, (0,) * (nd - 2) + (r0, c0), lead + (r0 + n, c0 + n), (1,) * nd)
    flat = ops.reshape(sub, lead + (n * n,))
    return ops.strided_slice(flat, (0,) * (nd - 2) + (0,), lead + ((n - 1) * (n + 1) + 1,),
                             (1,) * (nd - 2) + (n + 1,))


@_api
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The `offset` diagonal of the (axis1, axis2) planes, as the last dim
    (mindspore.numpy.diagonal)."""
    return _diagonal(_t(a), offset, axis1, axis2)


def _diag_from_vector(v, k):
    n0 = v.shape[0]
    n = n0 + builtins.abs(k)
    off = _offsets(n, n)
    if k >= 0:   # out[i, i + k] = v[i]: a value per row
        vv = ops.pad(v, (0, k)) if k else v
        vals = ops.broadcast_to(ops.reshape(vv, (n, 1)), (n, n))
    else:        # out[j - k, j] = v[j]: a value per column
        vv = ops.pad(v, (0, -k))
        vals = ops.broadcast_to(ops.reshape(vv, (1, n)), (n, n))
    return ops.select(ops.equal(off, k), vals, ops.zeros_like(vals))


@_api
def diag(v, k=0):
    """A 1-D input: the 2-D matrix with it on the k-th diagonal; a 2-D input: its
    k-th diagonal (mindspore.numpy.diag)."""
    t = _t(v)
    k = _int(k, "k")
    if t.ndim == 1:
        return _diag_from_vector(t, k)
    if t.ndim == 2:
        return _diagonal(t, k, 0, 1)
    _b.error(f"the input must be 1-D or 2-D, got rank {t.ndim}")


@_api
def diagflat(v, k=0):
    """The flattened input on the k-th diagonal of a 2-D matrix (mindspore.numpy.diagflat)."""
    t = _t(v)
    return _diag_from_vector(ops.reshape(t, (-1,)), _int(k, "k"))


@_api
def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-D coordinate vectors (mindspore.numpy.meshgrid);
    returns a tuple."""
    if indexing not in ("xy", "ij"):
        _b.error(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    ts = [_t(x) for x in xi]
    ts = [ops.reshape(t, (-1,)) if t.ndim != 1 else t for t in ts]
    n = len(ts)
    if n == 0:
        return ()
    shape = [t.shape[0] for t in ts]
    if indexing == "xy" and n >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    outs = []
    for i, t in enumerate(ts):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        s = [1] * n
        s[pos] = t.shape[0]
        o = ops.reshape(t, tuple(s))
        if not sparse:
            o = ops.broadcast_to(o, tuple(shape))
        outs.append(o)
    return tuple(outs)


@_creation
def indices(dimensions, dtype=_dt.int32, sparse=False):
    """The grid indices of a tensor of shape `dimensions` (mindspore.numpy.indices):
    a tensor of shape (len(dimensions),) + dimensions, or a tuple when sparse."""
    dims = _shape(dimensions, "dimensions")
    dt = _dtype(dtype)
    outs = []
    for i, d in enumerate(dims):
        s = [1] * len(dims)
        s[i] = d
        o = ops.reshape(ops.arange(0, d, 1, dtype=dt), tuple(s))
        outs.append(o if sparse else ops.broadcast_to(o, dims))
    if sparse:
        return tuple(outs)
    return ops.stack(outs, 0)
