"""Sorting and order statistics (mindspore.numpy / numpy names): sort, argsort,
msort, median, percentile, quantile.

All are built on `msmlir.ops.sort` (the `mindir.sort` op): a stable sort, so
every `kind` gives numpy's 'stable' result; NaN sorts last (numpy's order).
Indices are int32. median/percentile/quantile propagate NaN like numpy (a
slice holding a NaN gives NaN) and compute integer inputs in float32 (floats
keep their dtype); `q` may be a compile-time number/sequence/array or a tensor.
"""
from __future__ import annotations

import builtins

import numpy as onp

from .. import dtype as _dt
from .. import ops
from ..frontend import builder as _b
from ..frontend.values import TensorValue
from ..frontend.trace import param_value
from ..ops._base import cast_to, const, scalar_const
from ._utils import _api, _axes, _axis, _prod, _t

__all__ = ["sort", "argsort", "msort", "median", "percentile", "quantile"]

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_kind(kind, order):
    if order is not None:
        _b.error("order (sorting by fields of a structured array) is not supported")
    if kind not in _KINDS:
        _b.error(f"kind must be one of 'quicksort', 'mergesort', 'heapsort', 'stable', "
                 f"got {kind!r}")


def _sortable(a, axis):
    """(tensor, axis) to sort: axis None sorts the flattened tensor."""
    t = _t(a)
    if axis is None:
        return ops.reshape(t, (-1,)), 0
    return t, _axis(axis, t.ndim)


@_api
def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy of `a` along `axis` (None: the flattened array) (numpy.sort).
    Always stable (every kind); NaN sorts last."""
    _check_kind(kind, order)
    t, ax = _sortable(a, axis)
    return ops.sort(t, ax)[0]


@_api
def argsort(a, axis=-1, kind=None, order=None):
    """int32 indices that sort `a` along `axis` (None: flattened) (numpy.argsort);
    stable: equal elements keep their order."""
    _check_kind(kind, order)
    t, ax = _sortable(a, axis)
    return ops.sort(t, ax)[1]


@_api
def msort(a):
    """`a` sorted along its first axis (numpy.msort, = sort(a, axis=0))."""
    t = _t(a)
    return ops.sort(t, _axis(0, t.ndim))[0]


# ---------------------------------------------------------------------------
# Order statistics
# ---------------------------------------------------------------------------

def _sorted_last(a, axis, name):
    """(sorted values with the reduced axes merged into the last dim, the shape
    of the kept dims, the keepdims shape, the float dtype of the result)."""
    t = _t(a)
    if t.dtype.is_bool:
        _b.error(f"the {name} of a bool array is not supported")
    ft = t.dtype if t.dtype.is_float else _dt.float32
    axes = _axes(axis, t.ndim)
    kept = [d for d in range(t.ndim) if d not in axes]
    keep_shape = tuple(1 if d in axes else s for d, s in enumerate(t.shape))
    rest = tuple(t.shape[d] for d in kept)
    n = _prod(t.shape[d] for d in axes)
    if n == 0:
        _b.error(f"the {name} of an empty slice is not defined")
    if t.ndim == 0:
        t = ops.reshape(t, (1,))
    else:
        order = kept + list(axes)
        if order != list(range(t.ndim)):
            t = ops.transpose(t, tuple(order))
        t = ops.reshape(t, rest + (n,))
    s = ops.sort(t, -1)[0]
    return cast_to(s, ft), rest, keep_shape, ft


def _last(s, i):
    """s[..., i] (a static index) with the last dim dropped."""
    n = s.shape[-1]
    begin = (0,) * (s.ndim - 1) + (i,)
    size = s.shape[:-1] + (1,)
    out = ops.slice(s, begin, size) if n > 1 else s
    return ops.reshape(out, s.shape[:-1])


def _nan_propagate(s, r, lead):
    """NaN where the slice holds a NaN (sorted last, so s[..., -1] is NaN); r has
    `lead` extra leading dims (the q dims)."""
    if not s.dtype.is_float:
        return r
    has_nan = ops.isnan(_last(s, s.shape[-1] - 1))
    if lead:
        has_nan = ops.reshape(has_nan, (1,) * lead + has_nan.shape)
    return ops.select(has_nan, scalar_const(float("nan"), r.dtype), r)


@_api
def median(a, axis=None, keepdims=False):
    """Median along `axis` (None: all; a tuple: those axes together)
    (numpy.median): the middle element, or the mean of the two middle ones.
    NaN if the slice holds a NaN; integers give float32."""
    s, rest, keep_shape, ft = _sorted_last(a, axis, "median")
    n = s.shape[-1]
    m = n // 2
    r = _last(s, m)
    if n % 2 == 0:
        r = ops.mul(ops.add(_last(s, m - 1), r), scalar_const(0.5, ft))
    r = _nan_propagate(s, r, 0)
    return ops.reshape(r, keep_shape) if keepdims else r


def _q_tensor(q, scale):
    """q / scale as a float64 tensor; compile-time q is range checked."""
    if isinstance(q, TensorValue) or param_value(q) is not None:
        qt = _t(q)
        if not (qt.dtype.is_float or qt.dtype.is_int):
            _b.error(f"q must be a number or an array of numbers, got {qt.dtype}")
        qt = cast_to(qt, _dt.float64)
        return ops.div(qt, scalar_const(float(scale), _dt.float64)) if scale != 1 else qt
    arr = onp.asarray(q.asnumpy() if hasattr(q, "asnumpy") else q)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        _b.error(f"q must be a number or a sequence of numbers, got {q!r}")
    arr = arr.astype(onp.float64) / scale
    if not builtins.bool(onp.all((arr >= 0) & (arr <= 1))):
        lim = "[0, 100]" if scale == 100 else "[0, 1]"
        _b.error(f"q must be in the range {lim}, got {q!r}")
    return const(arr, _dt.float64)


def _quantile(a, q, axis, keepdims, method, scale, name):
    if method not in _METHODS:
        _b.error(f"method must be one of {', '.join(map(repr, _METHODS))}, got {method!r}")
    s, rest, keep_shape, ft = _sorted_last(a, axis, name)
    qt = _q_tensor(q, scale)
    n = s.shape[-1]
    f64 = _dt.float64
    h = ops.mul(qt, scalar_const(float(n - 1), f64))       # virtual index, float64
    lo = ops.floor(h)
    frac = ops.sub(h, lo)
    if method == "lower":
        idx, other, gamma = lo, None, None
    elif method == "higher":
        idx, other, gamma = ops.ceil(h), None, None
    elif method == "nearest":
        idx, other, gamma = ops.round(h), None, None        # halves to even, as numpy
    else:
        hi = ops.minimum(ops.add(lo, scalar_const(1.0, f64)), scalar_const(float(n - 1), f64))
        idx, other = lo, hi
        gamma = frac if method == "linear" else ops.select(
            ops.equal(frac, scalar_const(0.0, f64)), frac, 0.5)

    def take(i):
        i = cast_to(ops.clamp(i, 0.0, float(n - 1)), _dt.int32)
        g = ops.gather(s, i, s.ndim - 1)                   # rest + q.shape
        k = qt.ndim
        if k and rest:
            r = len(rest)
            g = ops.transpose(g, tuple(range(r, r + k)) + tuple(range(r)))
        return g

    r = take(idx)
    if other is not None:
        b = take(other)
        qshape = qt.shape
        gm = cast_to(gamma, ft)
        if rest:
            gm = ops.reshape(gm, qshape + (1,) * len(rest))
        d = ops.sub(b, r)
        one = scalar_const(1.0, ft)
        # numpy's lerp: a + (b - a) t, or b - (b - a)(1 - t) for t >= 0.5
        r = ops.select(ops.greater_equal(gm, scalar_const(0.5, ft)),
                       ops.sub(b, ops.mul(d, ops.sub(one, gm))), ops.add(r, ops.mul(d, gm)))
    r = _nan_propagate(s, r, qt.ndim)
    if keepdims:
        r = ops.reshape(r, qt.shape + keep_shape)
    return r


@_api
def quantile(a, q, axis=None, keepdims=False, method="linear"):
    """The q-th quantiles (q in [0, 1], a number or an array: its dims lead the
    result) along `axis` (numpy.quantile); method 'linear' (default), 'lower',
    'higher', 'midpoint' or 'nearest'. NaN if the slice holds a NaN."""
    return _quantile(a, q, axis, keepdims, method, 1, "quantile")


@_api
def percentile(a, q, axis=None, keepdims=False, method="linear"):
    """The q-th percentiles (q in [0, 100]) along `axis` (numpy.percentile);
    see quantile."""
    return _quantile(a, q, axis, keepdims, method, 100, "percentile")
