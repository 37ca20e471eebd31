"""More of mindspore.numpy: window functions, index helpers (tril/triu/diag
indices, ix_, mgrid/ogrid, ravel_multi_index), geomspace, vander, polynomials,
norm, digitize, interp, convolve/correlate, histogram, gradient, unwrap,
piecewise, apply_along_axis/apply_over_axes, random creation (rand, randn,
randint), promote_types/result_type, array_str. Compositions of msmlir.ops
like the rest of msmlir.numpy (numpy's semantics, mindspore.numpy's default
dtypes: float32, int32)."""
from __future__ import annotations

import builtins
import math as _pymath

import numpy as onp

from .. import dtype as _dt
from .. import ops
from ..frontend import builder as _b
from ..ops._base import const as _const
from ._utils import _api, _creation, _dtype, _int, _t
from . import array_ops as _arr
from . import math as _math

__all__ = ["bartlett", "blackman", "hamming", "hanning", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "diag_indices", "ix_", "mgrid", "ogrid",
           "ravel_multi_index", "geomspace", "vander", "polyadd", "polysub", "polymul",
           "polyval", "polyder", "polyint", "norm", "digitize", "interp", "convolve",
           "correlate", "histogram", "histogram_bin_edges", "gradient", "unwrap", "piecewise",
           "apply_along_axis", "apply_over_axes", "rand", "randn", "randint", "promote_types",
           "result_type", "array_str", "gcd", "lcm", "histogramdd", "histogram2d", "unique",
           "bincount"]


# ---- window functions (numpy's formulas; float32) -------------------------------------------

def _window(name, M):
    m = _int(M, "M")
    if m < 1:
        return _const(onp.zeros((0,), onp.float32))
    return _const(getattr(onp, name)(m).astype(onp.float32))


@_creation
def bartlett(M):
    """The Bartlett window (mindspore.numpy.bartlett)."""
    return _window("bartlett", M)


@_creation
def blackman(M):
    """The Blackman window."""
    return _window("blackman", M)


@_creation
def hamming(M):
    """The Hamming window."""
    return _window("hamming", M)


@_creation
def hanning(M):
    """The Hann window."""
    return _window("hanning", M)


# ---- index helpers ------------------------------------------------------------------------------

def _idx_pair(rows, cols):
    return (_const(onp.asarray(rows, onp.int32)), _const(onp.asarray(cols, onp.int32)))


@_creation
def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle (int32 tensors)."""
    return _idx_pair(*onp.tril_indices(_int(n, "n"), _int(k, "k"),
                                       None if m is None else _int(m, "m")))


@_creation
def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle (int32 tensors)."""
    return _idx_pair(*onp.triu_indices(_int(n, "n"), _int(k, "k"),
                                       None if m is None else _int(m, "m")))


@_creation
def tril_indices_from(arr, k=0):
    t = _t(arr)
    if t.ndim != 2:
        _b.error("the input must be 2-D")
    return _idx_pair(*onp.tril_indices(t.shape[0], _int(k, "k"), t.shape[1]))


@_creation
def triu_indices_from(arr, k=0):
    t = _t(arr)
    if t.ndim != 2:
        _b.error("the input must be 2-D")
    return _idx_pair(*onp.triu_indices(t.shape[0], _int(k, "k"), t.shape[1]))


@_creation
def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array (int32)."""
    idx = onp.arange(_int(n, "n"), dtype=onp.int32)
    return tuple(_const(idx) for _ in range(_int(ndim, "ndim")))


@_creation
def ix_(*args):
    """Open-mesh index arrays: argument i reshaped to have its length in dim i."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        t = _t(a)
        if t.ndim != 1:
            _b.error("ix_: each input must be 1-D")
        out.append(ops.reshape(t, (1,) * i + (t.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


class _Grid:
    """numpy's mgrid / ogrid: `mgrid[0:3, 0:4]`, with complex steps as point counts."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        grid = (onp.ogrid if self.sparse else onp.mgrid)[key]
        float_ = builtins.any(isinstance(v, (float, complex)) for k in keys
                              for v in (k.start, k.stop, k.step) if v is not None)
        dt = onp.float32 if float_ else onp.int32
        if isinstance(grid, (list, tuple)):
            return tuple(_wrap(onp.asarray(g, dt)) for g in grid)
        return _wrap(onp.asarray(grid, dt))


def _wrap(arr):
    from ..arraylike import host_tensor
    if _b.current() is not None:
        return _const(arr)
    return host_tensor(arr)


mgrid = _Grid(False)
ogrid = _Grid(True)


@_api
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of the index tuples (C order; mode 'raise' is not checked at
    run time: out-of-range indices give out-of-range flat indices)."""
    if order != "C":
        _b.error("ravel_multi_index: only order='C' is supported")
    dims = tuple(_int(d, "dims") for d in dims)
    strides = [int(onp.prod(dims[i + 1:], dtype=onp.int64)) for i in range(len(dims))]
    if mode not in ("raise", "clip", "wrap"):
        _b.error(f"ravel_multi_index: mode must be 'raise', 'clip' or 'wrap', got {mode!r}")
    out = None
    for idx, s, d in zip(multi_index, strides, dims):
        t = ops.cast(_t(idx), _dt.int32)
        if mode == "clip":
            t = ops.clamp(t, 0, d - 1)
        elif mode == "wrap":
            t = ops.floor_mod(t, d)
        term = ops.mul(t, s)
        out = term if out is None else ops.add(out, term)
    return out


# ---- creation --------------------------------------------------------------------------------

@_creation
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale (positive start/stop)."""
    n = _int(num, "num")
    if start <= 0 or stop <= 0:
        _b.error("geomspace: start and stop must be positive (no complex numbers)")
    e = onp.geomspace(float(start), float(stop), n, endpoint)
    return _const(e.astype(onp.float32 if dtype is None else _dtype(dtype).to_numpy()))


@_api
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D x."""
    t = _t(x)
    if t.ndim != 1:
        _b.error("vander: x must be 1-D")
    n = t.shape[0] if N is None else _int(N, "N")
    powers = onp.arange(n) if increasing else onp.arange(n - 1, -1, -1)
    cols = [ops.pow(t, int(p)) if p else ops.ones_like(t) for p in powers]
    return ops.stack(cols, 1)


def _rng_shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


@_creation
def rand(*shape, dtype=_dt.float32):
    """Uniform [0, 1) samples."""
    return ops.random_uniform(_rng_shape(shape), 0, dtype=_dtype(dtype))


@_creation
def randn(*shape, dtype=_dt.float32):
    """Standard normal samples."""
    return ops.random_normal(_rng_shape(shape), 0, dtype=_dtype(dtype))


@_creation
def randint(minval, maxval=None, shape=None, dtype=_dt.int32):
    """Integers uniform in [minval, maxval)."""
    if maxval is None:
        minval, maxval = 0, minval
    shp = () if shape is None else (tuple(shape) if isinstance(shape, (tuple, list))
                                     else (shape,))
    u = ops.random_uniform(shp, 0, dtype=_dt.float64)
    v = ops.floor(ops.add(ops.mul(u, float(maxval - minval)), float(minval)))
    return ops.cast(v, _dtype(dtype))


# ---- polynomials ---------------------------------------------------------------------------------

def _pad_front(t, n):
    return t if t.shape[0] == n else ops.concat((ops.zeros((n - t.shape[0],), t.dtype), t), 0)


@_api
def polyadd(a1, a2):
    x, y = _t(a1), _t(a2)
    n = builtins.max(x.shape[0], y.shape[0])
    return ops.add(_pad_front(x, n), _pad_front(y, n))


@_api
def polysub(a1, a2):
    x, y = _t(a1), _t(a2)
    n = builtins.max(x.shape[0], y.shape[0])
    return ops.sub(_pad_front(x, n), _pad_front(y, n))


@_api
def polymul(a1, a2):
    return convolve(a1, a2, "full")


@_api
def polyval(p, x):
    """Horner evaluation of the polynomial p (highest power first) at x."""
    c = _t(p)
    out = None
    for i in range(c.shape[0]):
        ci = ops.reshape(ops.slice(c, (i,), (1,)), ())
        out = ci if out is None else ops.add(ops.mul(out, x), ci)
    return ops.mul(ops.ones_like(_t(x, c.dtype)), out) if out is not None else out


@_api
def polyder(p, m=1):
    c = _t(p)
    m = _int(m, "m")
    for _ in range(m):
        n = c.shape[0]
        if n <= 1:
            return ops.zeros((1,), c.dtype)
        c = ops.mul(ops.slice(c, (0,), (n - 1,)), _const(onp.arange(n - 1, 0, -1), c.dtype))
    return c


@_api
def polyint(p, m=1, k=None):
    c = _t(p)
    c = c if c.dtype.is_float else ops.cast(c, _dt.float32)
    m = _int(m, "m")
    ks = [0.0] * m if k is None else (list(k) if isinstance(k, (list, tuple)) else [k] * m)
    for i in range(m):
        n = c.shape[0]
        c = ops.div(c, _const(onp.arange(n, 0, -1), c.dtype))
        c = ops.concat((c, ops.fill(c.dtype, (1,), float(ks[i]))), 0)
    return c


# ---- norms, binning, interpolation, convolution ----------------------------------------------

@_api
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector / Frobenius norms (ord None, 'fro', p, inf, -inf)."""
    return ops.norm(x, ord, axis, keepdims)


@_api
def digitize(x, bins, right=False):
    """The index of the bin of each element (increasing bins)."""
    return _math.searchsorted(bins, x, side="left" if right else "right")


@_api
def interp(x, xp, fp, left=None, right=None):
    """One-dimensional piecewise-linear interpolation (increasing xp)."""
    xv = _t(x, _dt.float32)
    xs = _t(xp, _dt.float32)
    fs = _t(fp, _dt.float32)
    n = xs.shape[0]
    i = ops.clamp(ops.sub(_math.searchsorted(xs, xv, side="right"), 1), 0, n - 2)
    x0, x1 = ops.gather(xs, i, 0), ops.gather(xs, ops.add(i, 1), 0)
    y0, y1 = ops.gather(fs, i, 0), ops.gather(fs, ops.add(i, 1), 0)
    w = ops.div(ops.sub(xv, x0), ops.maximum(ops.sub(x1, x0), 1e-30))
    out = ops.add(y0, ops.mul(w, ops.sub(y1, y0)))
    lo = ops.reshape(ops.slice(fs, (0,), (1,)), ()) if left is None else left
    hi = ops.reshape(ops.slice(fs, (n - 1,), (1,)), ()) if right is None else right
    x_first = ops.reshape(ops.slice(xs, (0,), (1,)), ())
    x_last = ops.reshape(ops.slice(xs, (n - 1,), (1,)), ())
    out = ops.select(ops.less(xv, x_first), ops.mul(ops.ones_like(out), lo), out)
    return ops.select(ops.greater(xv, x_last), ops.mul(ops.ones_like(out), hi), out)


def _conv1d(a, v, mode, flip):
    x, k = _t(a), _t(v)
    if x.ndim != 1 or k.ndim != 1:
        _b.error("convolve/correlate: the inputs must be 1-D")
    dt = _dt.promote_types(x.dtype, k.dtype)
    dt = dt if dt.is_float else _dt.float32
    x, k = ops.cast(x, dt), ops.cast(k, dt)
    n, m = x.shape[0], k.shape[0]
    if flip:
        k = ops.gather(k, _const(onp.arange(m - 1, -1, -1, dtype=onp.int32)), 0)
    full = n + m - 1
    xp = ops.pad(x, (m - 1, m - 1))
    idx = onp.arange(full)[:, None] + onp.arange(m)[None, :]         # windows of xp
    win = ops.gather(xp, _const(idx.astype(onp.int32)), 0)           # [full, m]
    out = ops.reduce_sum(ops.mul(win, k), 1)
    if mode == "full":
        return out
    if mode == "same":
        size = builtins.max(n, m)
        start = (full - size) // 2
        return ops.slice(out, (start,), (size,))
    if mode == "valid":
        size = builtins.max(n, m) - builtins.min(n, m) + 1
        return ops.slice(out, (builtins.min(n, m) - 1,), (size,))
    _b.error(f"mode must be 'full', 'same' or 'valid', got {mode!r}")


@_api
def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D sequences (numpy.convolve)."""
    x, k = _t(a), _t(v)
    if x.shape[0] < k.shape[0]:
        x, k = k, x
    return _conv1d(x, k, mode, True)


@_api
def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-D sequences (numpy.correlate)."""
    return _conv1d(a, v, mode, False)


def _edges(t, bins, range_):
    nb = _int(bins, "bins")
    if range_ is not None:
        lo, hi = float(range_[0]), float(range_[1])
        e = onp.linspace(lo, hi, nb + 1)
        if lo == hi:
            e = onp.linspace(lo - 0.5, hi + 0.5, nb + 1)
        return _const(e.astype(onp.float32)), nb
    lo = ops.reduce_min(t)
    hi = ops.reduce_max(t)
    same = ops.equal(lo, hi)
    lo = ops.select(same, ops.sub(lo, 0.5), lo)
    hi = ops.select(same, ops.add(hi, 0.5), hi)
    return ops.linspace(lo, hi, nb + 1), nb


@_api
def histogram_bin_edges(a, bins=10, range=None, weights=None):   # noqa: A002
    t = ops.cast(ops.reshape(_t(a), (-1,)), _dt.float32)
    return _edges(t, bins, range)[0]


@_api
def histogram(a, bins=10, range=None, weights=None, density=False):   # noqa: A002
    """(counts, edges) of the values in `bins` equal-width bins (the last bin
    closed), as numpy.histogram with an int `bins`."""
    t = ops.cast(ops.reshape(_t(a), (-1,)), _dt.float32)
    edges, nb = _edges(t, bins, range)
    lo = ops.slice(edges, (0,), (1,))
    hi = ops.slice(edges, (nb,), (1,))
    width = ops.div(ops.sub(hi, lo), float(nb))
    pos = ops.floor(ops.div(ops.sub(t, lo), width))
    pos = ops.select(ops.equal(t, ops.reshape(hi, ())), ops.full_like(pos, nb - 1), pos)
    inside = ops.logical_and(ops.greater_equal(t, ops.reshape(lo, ())),
                             ops.less_equal(t, ops.reshape(hi, ())))
    onehot = ops.equal(ops.expand_dims(pos, 1), _const(onp.arange(nb, dtype=onp.float32)))
    onehot = ops.logical_and(onehot, ops.expand_dims(inside, 1))
    w = ops.ones_like(t) if weights is None else ops.cast(ops.reshape(_t(weights), (-1,)),
                                                          _dt.float32)
    counts = ops.reduce_sum(ops.mul(ops.cast(onehot, _dt.float32), ops.expand_dims(w, 1)), 0)
    if density:
        counts = ops.div(counts, ops.mul(ops.reduce_sum(counts), width))
    elif weights is None:
        counts = ops.cast(counts, _dt.int32)
    return counts, edges


@_api
def gradient(f, *varargs, axis=None, edge_order=1):
    """numpy.gradient with unit or scalar spacings: central differences inside,
    one-sided at the edges (edge_order 1)."""
    t = _t(f)
    t = t if t.dtype.is_float else ops.cast(t, _dt.float32)
    axes = list(builtins.range(t.ndim)) if axis is None else (
        [axis] if isinstance(axis, int) else list(axis))
    spacing = list(varargs) if varargs else [1.0] * len(axes)
    if len(spacing) == 1 and len(axes) > 1:
        spacing = spacing * len(axes)
    outs = []
    for a, h in zip(axes, spacing):
        n = t.shape[a]
        if n < 2:
            _b.error("gradient: each dimension needs at least 2 points")

        def take(lo, size):
            begin = [0] * t.ndim
            sz = list(t.shape)
            begin[a], sz[a] = lo, size
            return ops.slice(t, tuple(begin), tuple(sz))
        first = ops.div(ops.sub(take(1, 1), take(0, 1)), h)
        last = ops.div(ops.sub(take(n - 1, 1), take(n - 2, 1)), h)
        parts = [first]
        if n > 2:
            parts.append(ops.div(ops.sub(take(2, n - 2), take(0, n - 2)), 2.0 * h))
        parts.append(last)
        outs.append(ops.concat(tuple(parts), a))
    return outs[0] if len(outs) == 1 else tuple(outs)


@_api
def unwrap(p, discont=None, axis=-1, period=2 * _pymath.pi):
    """Unwraps phase jumps larger than discont (numpy.unwrap)."""
    t = _t(p, _dt.float32)
    a = axis + t.ndim if axis < 0 else axis
    n = t.shape[a]
    disc = period / 2 if discont is None else builtins.max(discont, period / 2)

    def take(lo, size):
        begin = [0] * t.ndim
        sz = list(t.shape)
        begin[a], sz[a] = lo, size
        return ops.slice(t, tuple(begin), tuple(sz))
    d = ops.sub(take(1, n - 1), take(0, n - 1))
    dd = ops.sub(_math.mod(ops.add(d, period / 2), period), period / 2)
    dd = ops.select(ops.logical_and(ops.equal(dd, -period / 2), ops.greater(d, 0)),
                    ops.full_like(dd, period / 2), dd)
    corr = ops.sub(dd, d)
    corr = ops.select(ops.less(ops.abs(d), disc), ops.zeros_like(corr), corr)
    cum = ops.cumsum(corr, a)
    return ops.concat((take(0, 1), ops.add(take(1, n - 1), cum)), a)


@_api
def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluates funclist[i] where condlist[i] holds (later conditions win; an
    extra function is the default)."""
    t = _t(x)
    conds = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    funcs = list(funclist)
    if len(funcs) not in (len(conds), len(conds) + 1):
        _b.error("piecewise: funclist must have len(condlist) or len(condlist) + 1 entries")
    out = ops.zeros_like(t)

    def val(f):
        r = f(t, *args, **kw) if callable(f) else f
        return ops.mul(ops.ones_like(t), r) if not hasattr(r, "shape") or r.shape != t.shape \
            else r
    if len(funcs) == len(conds) + 1:
        out = val(funcs[-1])
    for c, f in zip(conds, funcs):
        out = ops.select(_t(c), val(f), out)
    return out


@_api
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to the 1-D slices along `axis` (a Python loop over the
    slices at compile time; the results are stacked)."""
    t = _t(arr)
    a = axis + t.ndim if axis < 0 else axis
    moved = _arr.moveaxis(t, a, -1)
    lead = moved.shape[:-1]
    flat = ops.reshape(moved, (-1, moved.shape[-1]))
    rows = [func1d(ops.reshape(ops.slice(flat, (i, 0), (1, flat.shape[1])), (flat.shape[1],)),
                   *args, **kwargs) for i in builtins.range(flat.shape[0])]
    res = ops.stack([_t(r) for r in rows], 0)
    res = ops.reshape(res, tuple(lead) + tuple(res.shape[1:]))
    if res.ndim == len(lead):
        return res
    return _arr.moveaxis(res, -1, a) if res.ndim == t.ndim else res


@_api
def apply_over_axes(func, a, axes):
    """func(a, axis) applied over each axis in turn, keeping the dims."""
    t = _t(a)
    for ax in ([axes] if isinstance(axes, int) else list(axes)):
        r = func(t, ax)
        t = r if r.ndim == t.ndim else ops.expand_dims(r, ax)
    return t


# ---- dtypes and printing ------------------------------------------------------------------------

def promote_types(type1, type2):
    """The dtype both promote to (msmlir's promotion rules)."""
    return _dt.promote_types(_dt.get(type1), _dt.get(type2))


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on the arguments (tensors, dtypes, Python numbers)."""
    out = None
    for a in arrays_and_dtypes:
        if hasattr(a, "dtype"):
            d = _dt.get(a.dtype)
        elif isinstance(a, bool):
            d = _dt.bool_
        elif isinstance(a, int):
            d = _dt.int32
        elif isinstance(a, float):
            d = _dt.float32
        else:
            d = _dt.get(a)
        out = d if out is None else _dt.promote_types(out, d)
    return out


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """The string of a tensor's data (numpy.array_str on the host values)."""
    data = a.asnumpy() if hasattr(a, "asnumpy") else onp.asarray(a)
    return onp.array_str(data, max_line_width, precision, suppress_small)


# ---- gcd / lcm: Euclid's algorithm unrolled to its worst case --------------------------------

# Euclid needs at most k steps when min(a, b) < F(k+2) (Lamé): 46 steps cover int32, 92 int64
_EUCLID_STEPS = {"int8": 11, "int32": 46, "int64": 92}


def _gcd_abs(a, b):
    steps = _EUCLID_STEPS.get(str(a.dtype))
    if steps is None:
        _b.error(f"gcd/lcm: integer inputs only (int8, int32, int64), got {a.dtype}",
                 kind=TypeError)
    a, b = ops.abs(a), ops.abs(b)
    zero = ops.zeros_like(b)
    one = ops.ones_like(b)
    for _ in builtins.range(steps):
        nz = ops.not_equal(b, zero)
        r = ops.floor_mod(a, ops.select(nz, b, one))   # never a division by zero
        a, b = ops.select(nz, b, a), ops.select(nz, r, zero)
    return a


def _int_pair(x1, x2, what):
    a, b = _t(x1), _t(x2)
    if not (a.dtype.is_int and b.dtype.is_int) or a.dtype.is_bool or b.dtype.is_bool:
        _b.error(f"{what}: integer inputs only, got {a.dtype} and {b.dtype}", kind=TypeError)
    dt = a.dtype if a.dtype == b.dtype else _dt.int64
    shape = onp.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    return (ops.broadcast_to(ops.cast(a, dt), shape), ops.broadcast_to(ops.cast(b, dt), shape))


@_api
def gcd(x1, x2, dtype=None):
    """Greatest common divisor of |x1| and |x2| elementwise (gcd(0, 0) = 0)."""
    a, b = _int_pair(x1, x2, "gcd")
    out = _gcd_abs(a, b)
    return out if dtype is None else ops.cast(out, dtype)


@_api
def lcm(x1, x2, dtype=None):
    """Lowest common multiple of |x1| and |x2| elementwise (0 when either is 0)."""
    a, b = _int_pair(x1, x2, "lcm")
    g = _gcd_abs(a, b)
    zero = ops.equal(g, ops.zeros_like(g))
    q = ops.floor_div(ops.abs(a), ops.select(zero, ops.ones_like(g), g))
    out = ops.select(zero, ops.zeros_like(g), ops.mul(q, ops.abs(b)))
    return out if dtype is None else ops.cast(out, dtype)


# ---- multi-dimensional histograms (static bin counts) -----------------------------------------

def _dim_bins(bins, d):
    if isinstance(bins, (list, tuple)):
        if len(bins) != d:
            _b.error(f"histogramdd: {len(bins)} bin counts for {d} dimensions", kind=ValueError)
        return [_int(b, "bins") for b in bins]
    return [_int(bins, "bins")] * d


@_api
def histogramdd(sample, bins=10, range=None, weights=None, density=False):   # noqa: A002
    """(hist, edges): counts of the (N, D) sample points in equal-width bins per
    dimension (each last bin closed), as numpy.histogramdd with int bin counts."""
    t = ops.cast(_t(sample), _dt.float32)
    if t.ndim == 1:
        t = ops.reshape(t, (t.shape[0], 1))
    if t.ndim != 2:
        _b.error(f"histogramdd: sample must be (N, D), got shape {tuple(t.shape)}",
                 kind=ValueError)
    n, d = t.shape
    nbs = _dim_bins(bins, d)
    if range is not None and len(range) != d:
        _b.error(f"histogramdd: range needs one (min, max) per dimension ({d})", kind=ValueError)
    flat = None
    inside = None
    edges_out = []
    widths = []
    for k in builtins.range(d):
        col = ops.reshape(ops.slice(t, (0, k), (n, 1)), (n,))
        edges, nb = _edges(col, nbs[k], None if range is None else range[k])
        edges_out.append(edges)
        lo = ops.reshape(ops.slice(edges, (0,), (1,)), ())
        hi = ops.reshape(ops.slice(edges, (nb,), (1,)), ())
        width = ops.div(ops.sub(hi, lo), float(nb))
        widths.append(width)
        pos = ops.floor(ops.div(ops.sub(col, lo), width))
        pos = ops.select(ops.equal(col, hi), ops.full_like(pos, nb - 1), pos)
        pos = ops.minimum(ops.maximum(pos, 0.0), float(nb - 1))
        ok = ops.logical_and(ops.greater_equal(col, lo), ops.less_equal(col, hi))
        inside = ok if inside is None else ops.logical_and(inside, ok)
        idx = ops.cast(pos, _dt.int32)
        flat = idx if flat is None else ops.add(ops.mul(flat, nb), idx)
    total = int(onp.prod(nbs))
    w = ops.ones((n,), _dt.float32) if weights is None else \
        ops.cast(ops.reshape(_t(weights), (n,)), _dt.float32)
    w = ops.select(inside, w, ops.zeros_like(w))
    onehot = ops.cast(ops.equal(ops.expand_dims(flat, 1),
                                _const(onp.arange(total, dtype=onp.int32))), _dt.float32)
    hist = ops.reshape(ops.reduce_sum(ops.mul(onehot, ops.expand_dims(w, 1)), 0), tuple(nbs))
    if density:
        vol = None
        for k in builtins.range(d):
            shp = [1] * d
            shp[k] = nbs[k]
            wk = ops.broadcast_to(ops.reshape(widths[k], (1,) * d), tuple(shp))
            vol = wk if vol is None else ops.mul(vol, wk)
        hist = ops.div(hist, ops.mul(ops.reduce_sum(hist), vol))
    elif weights is None:
        hist = ops.cast(hist, _dt.int32)
    return (hist, tuple(edges_out))


@_api
def histogram2d(x, y, bins=10, range=None, weights=None, density=False):   # noqa: A002
    """(hist, xedges, yedges) of the points (x[i], y[i]) (numpy.histogram2d, int bins)."""
    a = ops.reshape(ops.cast(_t(x), _dt.float32), (-1,))
    b = ops.reshape(ops.cast(_t(y), _dt.float32), (-1,))
    if a.shape != b.shape:
        _b.error(f"histogram2d: x and y must have the same length, got {a.shape[0]} and "
                 f"{b.shape[0]}", kind=ValueError)
    hist, (ex, ey) = histogramdd(ops.stack((a, b), 1), bins, range, weights, density)
    return hist, ex, ey


def unique(x, return_inverse=False):
    """The sorted distinct elements of x (flattened) and, with return_inverse, each
    element's position in them: a data-dependent output shape, so PyNative only
    (inside jit an error at the user's line), as msmlir.ops.unique."""
    from ..ops.dynamic import unique_sorted as _unique
    if _b.current() is not None:
        _b.error("msmlir.numpy.unique: the output shape depends on the data; call it outside "
                 "jit (PyNative)", kind=RuntimeError)
    y, idx = _unique(ops.reshape(x, (-1,)) if hasattr(x, "shape") and len(x.shape) != 1 else x)
    return (y, idx) if return_inverse else y


def bincount(x, weights=None, minlength=0, length=None):
    """Occurrences (or summed weights) of each value of a 1-D non-negative integer
    tensor; data-dependent length, so PyNative only (msmlir.ops.bincount). mindspore.numpy's
    `length`, when given, fixes the result's length (values >= length are dropped)."""
    from ..ops.dynamic import bincount as _bincount
    if _b.current() is not None:
        _b.error("msmlir.numpy.bincount: the output length depends on the data; call it "
                 "outside jit (PyNative)", kind=RuntimeError)
    out = _bincount(x, weights, minlength if length is None else max(minlength, int(length)))
    if length is not None:
        out = out[:int(length)]
    return out
