"""Functional ops composed from the other ops (MindSpore names and semantics):
gather_nd, gather_elements, scatter_nd, tensor_scatter_update, masked_fill,
clip_by_norm, clip_by_global_norm, l2_normalize, losses (binary_cross_entropy,
binary_cross_entropy_with_logits, smooth_l1_loss), iou, the resize kernels
(nearest / bilinear on NCHW), hardtanh, rms_norm, and the Python-level helpers
MindSpore keeps under `ops` (dtype, partial, tuple_to_array, make_range).

Index arithmetic that depends only on shapes (flat strides, resize source
positions and weights) is computed with numpy at compile time and becomes
constants; everything that depends on tensor values is compiled.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from .. import dtype as _dt
import msmlir.frontend.builder as _b
from ._base import (TensorValue, cast_to, const, emit, int_tuple, mindir, norm_axis, primitive,
                    promote, to_tensor)
from . import array as _a
from . import math as _m

__all__ = [
    "gather_nd", "gather_elements", "gather_d", "scatter_nd", "tensor_scatter_update",
    "masked_fill", "clip_by_norm", "clip_by_global_norm", "l2_normalize",
    "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "smooth_l1_loss", "iou", "resize_nearest_neighbor",
    "resize_bilinear", "hardtanh", "rms_norm", "dtype", "partial", "tuple_to_array",
    "make_range", "cumsum", "flip", "eye", "linspace", "square_sum", "window_pool2d",
    "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
    "unsorted_segment_prod", "tensor_scatter_elements", "multinomial",
]


def _index_tensor(indices):
    return to_tensor(indices, None if isinstance(indices, TensorValue) else _dt.int32)


def _linear_index(idx: TensorValue, shape, what):
    """Flat row-major positions of the index tuples in the last dim of `idx`
    into the leading len(idx.shape[-1]) dims of `shape`."""
    if not idx.dtype.is_int:
        _b.error(f"{what}: indices must be an integer tensor, got {idx.dtype}")
    if idx.ndim == 0:
        _b.error(f"{what}: indices must have rank >= 1")
    k = idx.shape[-1]
    if k > len(shape):
        _b.error(f"{what}: the last dim of indices ({k}) is larger than the rank {len(shape)}")
    strides = [int(np.prod(shape[i + 1:k], dtype=np.int64)) for i in range(k)]
    # each component goes through a gather from arange(shape[i]): an index outside
    # [-shape[i], shape[i]) raises IndexError at run time (the gather's check) instead
    # of landing in another row or being dropped; negative ones count from the end
    cols = [_a.gather(const(np.arange(shape[i], dtype=idx.dtype.to_numpy())),
                      _a.gather(idx, const(np.array([i], np.int32)), idx.ndim - 1), 0)
            for i in range(k)]
    checked = cols[0] if k == 1 else _a.concat(cols, -1)
    lin = _m.reduce_sum(_m.mul(checked, const(np.array(strides, idx.dtype.to_numpy()))), -1)
    return lin, int(np.prod(shape[:k], dtype=np.int64)), tuple(shape[k:])


@primitive
def gather_nd(input_x, indices):
    """Slices of input_x at the index tuples in the last dim of `indices`
    (ops.gather_nd / P.GatherNd): out.shape = indices.shape[:-1] +
    input_x.shape[indices.shape[-1]:]. Out-of-range indices raise IndexError."""
    x = to_tensor(input_x)
    idx = _index_tensor(indices)
    lin, rows, rest = _linear_index(idx, x.shape, "gather_nd")
    flat = _a.reshape(x, (rows,) + rest)
    return _a.gather(flat, lin, 0)


@primitive
def gather_elements(input, dim, index):
    """out[i][j] = input[index[i][j]][j] for dim=0 (ops.gather_elements /
    P.GatherD); negative indices count from the end; an index outside
    [-n, n) raises IndexError at run time."""
    x = to_tensor(input)
    idx = _index_tensor(index)
    if not idx.dtype.is_int:
        _b.error(f"gather_elements: index must be an integer tensor, got {idx.dtype}")
    if idx.ndim != x.ndim:
        _b.error(f"gather_elements: index rank {idx.ndim} must equal the input rank {x.ndim}")
    d = norm_axis(dim, x.ndim, what="gather_elements: dim")
    for a in range(x.ndim):
        if a != d and idx.shape[a] > x.shape[a]:
            _b.error(f"gather_elements: index dim {a} ({idx.shape[a]}) is larger than the "
                     f"input's ({x.shape[a]})")
    n = x.shape[d]
    strides = [int(np.prod(x.shape[a + 1:], dtype=np.int64)) for a in range(x.ndim)]
    offs = np.zeros(idx.shape, np.int64)
    for a in range(x.ndim):
        if a != d:
            shp = [1] * x.ndim
            shp[a] = idx.shape[a]
            offs = offs + np.arange(idx.shape[a], dtype=np.int64).reshape(shp) * strides[a]
    i64 = cast_to(idx, _dt.int64)
    i64 = _m.select(_m.less(i64, 0), _m.add(i64, n), i64)
    bad = _m.logical_or(_m.less(i64, 0), _m.greater_equal(i64, n))
    pos = _m.add(_m.mul(i64, strides[d]), const(offs))
    pos = _m.select(bad, const(np.full(idx.shape, -1 - x.size if x.size else -1, np.int64)), pos)
    return _a.gather(_a.reshape(x, (-1,)), pos, 0)


gather_d = gather_elements


def _scatter_sum(idx, updates, shape, what):
    lin, rows, rest = _linear_index(idx, shape, what)
    u = to_tensor(updates)
    if tuple(u.shape) != tuple(idx.shape[:-1]) + rest:
        _b.error(f"{what}: updates of shape {list(u.shape)} do not match indices.shape[:-1] + "
                 f"shape[{idx.shape[-1]}:] = {list(tuple(idx.shape[:-1]) + rest)}")
    n = int(np.prod(idx.shape[:-1], dtype=np.int64))
    r = int(np.prod(rest, dtype=np.int64))
    work = _dt.float64 if not u.dtype.is_float else u.dtype
    onehot = _a.reshape(cast_to(_m.equal(_a.reshape(lin, (n, 1)),
                                         const(np.arange(rows, dtype=lin.dtype.to_numpy()))),
                                work), (n, rows))
    out = _m.matmul(_a.transpose(onehot, (1, 0)), cast_to(_a.reshape(u, (n, r)), work))
    return cast_to(_a.reshape(out, tuple(shape)), u.dtype), onehot


@primitive
def scatter_nd(indices, updates, shape):
    """A zero tensor of `shape` with `updates` added at the index tuples of
    `indices` (ops.scatter_nd / P.ScatterNd; duplicates are summed). An index
    outside the shape raises IndexError (as MindSpore on the CPU); negative
    indices count from the end."""
    shape = int_tuple(shape, "scatter_nd shape")
    return _scatter_sum(_index_tensor(indices), updates, shape, "scatter_nd")[0]


@primitive
def tensor_scatter_update(input_x, indices, updates):
    """input_x with the slices at the index tuples of `indices` replaced by
    `updates` (ops.tensor_scatter_update / P.TensorScatterUpdate); of duplicate index
    tuples the last update is written."""
    x = to_tensor(input_x)
    idx = _index_tensor(indices)
    u = cast_to(to_tensor(updates), x.dtype)
    n = int(np.prod(idx.shape[:-1], dtype=np.int64))
    if n > 1:
        # duplicate index tuples: the last update wins (MindSpore's CPU kernel writes them
        # in order), not their sum -- every other one is zeroed before the summing scatter
        lin, rows, rest = _linear_index(idx, x.shape, "tensor_scatter_update")
        lin = _a.reshape(lin, (n, 1))
        pos = const(np.arange(n, dtype=lin.dtype.to_numpy()).reshape(n, 1))
        hits = _m.equal(lin, const(np.arange(rows, dtype=lin.dtype.to_numpy())))  # (n, rows)
        last = _m.reduce_max(_m.select(hits, _a.broadcast_to(pos, (n, rows)),
                                       const(np.full((n, rows), -1, lin.dtype.to_numpy()))), 0)
        keep = _m.equal(_a.gather(last, _a.reshape(lin, (n,)), 0), _a.reshape(pos, (n,)))
        keep = _a.broadcast_to(_a.reshape(keep, tuple(idx.shape[:-1]) + (1,) * len(rest)),
                               tuple(u.shape))
        u = _m.select(keep, u, _a.zeros_like(u))
    scattered, _ = _scatter_sum(idx, u, x.shape, "tensor_scatter_update")
    hit, _ = _scatter_sum(idx, _a.ones(u.shape, _dt.float32), x.shape, "tensor_scatter_update")
    return _m.select(_m.greater(hit, 0.0), scattered, x)


@primitive
def masked_fill(input_x, mask, value):
    """input_x with `value` where `mask` is True (ops.masked_fill); broadcasts."""
    x = to_tensor(input_x)
    m = to_tensor(mask)
    if not m.dtype.is_bool:
        _b.error(f"masked_fill: mask must be a bool tensor, got {m.dtype}")
    v = cast_to(to_tensor(value, x.dtype) if not isinstance(value, TensorValue) else value, x.dtype)
    return _m.select(m, v, x)


@primitive
def hardtanh(input, min_val=-1.0, max_val=1.0):
    """minimum(maximum(input, min_val), max_val) (ops.hardtanh): MindSpore 2.10 gives half
    the gradient at the bounds (recorded), as this composition does."""
    return _m.clip_by_value(input, min_val, max_val)


@primitive
def l2_normalize(x, axis=0, epsilon=1e-4):
    """x / sqrt(max(sum(x**2, axis), epsilon)) (P.L2Normalize)."""
    t = to_tensor(x)
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    s = _m.reduce_sum(_m.square(t), axes, True)
    return _m.div(t, _m.sqrt(_m.maximum(s, epsilon)))


@primitive
def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x scaled so that its L2 norm is at most max_norm (ops.clip_by_norm for one
    tensor; a tuple/list clips every tensor by the norm of all of them, as
    MindSpore 2.x does)."""
    if isinstance(x, (list, tuple)):
        return clip_by_global_norm(x, max_norm)
    if norm_type != 2.0:
        _b.error("clip_by_norm: only norm_type=2.0 is supported")
    t = to_tensor(x)
    t = t if t.dtype.is_float else cast_to(t, _dt.float32)
    norm = _m.sqrt(_m.reduce_sum(_m.square(t)))
    scale = _m.div(to_tensor(max_norm, t.dtype) if not isinstance(max_norm, TensorValue)
                   else max_norm, _m.add(norm, 1e-6))
    return _m.mul(t, _m.minimum(scale, 1.0))


@primitive
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Every tensor of `x` scaled by clip_norm / max(global_norm, clip_norm)
    (ops.clip_by_global_norm); global_norm = sqrt(sum of squares of all)."""
    ts = [to_tensor(e) for e in x]
    if use_norm is None:
        sq = [_m.reduce_sum(_m.square(cast_to(t, _dt.float32))) for t in ts]
        gn = _m.sqrt(_m.addn(sq) if len(sq) > 1 else sq[0])
    else:
        gn = to_tensor(use_norm, _dt.float32)
    scale = _m.div(clip_norm, _m.maximum(gn, clip_norm))
    return tuple(_m.mul(t, cast_to(scale, t.dtype)) for t in ts)


def _reduce_loss(loss, reduction, what):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return _m.reduce_mean(loss)
    if reduction == "sum":
        return _m.reduce_sum(loss)
    _b.error(f"{what}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


@primitive
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-w * (y*log(x) + (1-y)*log(1-x)) on probabilities x (ops.binary_cross_entropy /
    P.BinaryCrossEntropy); log arguments are clamped at 1e-12 as MindSpore's kernel."""
    x, y = promote(logits, labels, min_float=True)
    eps = 1e-12
    loss = _m.neg(_m.add(_m.mul(y, _m.log(_m.maximum(x, eps))),
                         _m.mul(_m.sub(1.0, y), _m.log(_m.maximum(_m.sub(1.0, x), eps)))))
    if weight is not None:
        loss = _m.mul(loss, weight)
    return _reduce_loss(loss, reduction, "binary_cross_entropy")


@primitive
def binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Sigmoid cross entropy on logits, computed stably (ops.binary_cross_entropy_with_logits):
    (1 + (pw - 1) y) * log(1 + exp(-x)) + (1 - y) x, weighted."""
    x, y = promote(logits, label, min_float=True)
    # log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
    lse = _m.add(_m.maximum(_m.neg(x), 0.0), _m.log1p(_m.exp(_m.neg(_m.abs(x)))))
    if pos_weight is not None:
        coef = _m.add(1.0, _m.mul(_m.sub(pos_weight, 1.0), y))
        loss = _m.add(_m.mul(coef, lse), _m.mul(_m.sub(1.0, y), x))
    else:
        loss = _m.add(lse, _m.mul(_m.sub(1.0, y), x))
    if weight is not None:
        loss = _m.mul(loss, weight)
    return _reduce_loss(loss, reduction, "binary_cross_entropy_with_logits")


@primitive
def sigmoid_cross_entropy_with_logits(logits, labels):
    """Elementwise max(x, 0) - x*z + log(1 + exp(-|x|)) (P.SigmoidCrossEntropyWithLogits)."""
    x, z = promote(logits, labels, min_float=True)
    return _m.add(_m.sub(_m.maximum(x, 0.0), _m.mul(x, z)),
                  _m.log1p(_m.exp(_m.neg(_m.abs(x)))))


@primitive
def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (ops.smooth_l1_loss;
    reduction 'none' by default as P.SmoothL1Loss)."""
    if beta <= 0:
        _b.error(f"smooth_l1_loss: beta must be > 0, got {beta}")
    x, y = promote(input, target, min_float=True)
    d = _m.abs(_m.sub(x, y))
    loss = _m.select(_m.less(d, beta), _m.div(_m.mul(0.5, _m.square(d)), beta),
                     _m.sub(d, 0.5 * beta))
    return _reduce_loss(loss, reduction, "smooth_l1_loss")


@primitive
def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Intersection over union (or foreground, mode='iof') of boxes (x0, y0, x1, y1)
    (P.IOU): anchor [N, 4], gt [M, 4] -> [M, N]; areas use MindSpore's +1 convention."""
    if mode not in ("iou", "iof"):
        _b.error(f"iou: mode must be 'iou' or 'iof', got {mode!r}")
    a, g = promote(anchor_boxes, gt_boxes, min_float=True)
    for t, nm in ((a, "anchor_boxes"), (g, "gt_boxes")):
        if t.ndim != 2 or t.shape[1] != 4:
            _b.error(f"iou: {nm} must have shape [N, 4], got {list(t.shape)}")

    def col(t, i, gt):
        c = _a.slice(t, (0, i), (t.shape[0], 1))          # [K, 1]
        return c if gt else _a.reshape(c, (1, t.shape[0]))  # gt: [M, 1]; anchor: [1, N]
    ax0, ay0, ax1, ay1 = (col(a, i, False) for i in range(4))
    gx0, gy0, gx1, gy1 = (col(g, i, True) for i in range(4))
    iw = _m.maximum(_m.add(_m.sub(_m.minimum(ax1, gx1), _m.maximum(ax0, gx0)), 1.0), 0.0)
    ih = _m.maximum(_m.add(_m.sub(_m.minimum(ay1, gy1), _m.maximum(ay0, gy0)), 1.0), 0.0)
    inter = _m.mul(iw, ih)
    area_a = _m.mul(_m.add(_m.sub(ax1, ax0), 1.0), _m.add(_m.sub(ay1, ay0), 1.0))
    area_g = _m.mul(_m.add(_m.sub(gx1, gx0), 1.0), _m.add(_m.sub(gy1, gy0), 1.0))
    if mode == "iou":
        return _m.div(inter, _m.sub(_m.add(area_a, area_g), inter))
    return _m.div(inter, area_g)


def _size2(size, what):
    s = int_tuple(size, f"{what} size")
    if len(s) != 2 or builtins.any(v <= 0 for v in s):
        _b.error(f"{what}: size must be two positive ints (height, width), got {s}")
    return s


def _nearest_src(n_in, n_out, align_corners, half_pixel=False):
    i = np.arange(n_out, dtype=np.float64)
    if align_corners and n_out > 1:
        src = np.round(i * (n_in - 1) / (n_out - 1))
    elif half_pixel:
        src = np.floor((i + 0.5) * n_in / n_out)
    else:
        src = np.floor(i * n_in / n_out)
    return np.minimum(src, n_in - 1).astype(np.int32)


@primitive
def resize_nearest_neighbor(input_x, size, align_corners=False, half_pixel_centers=False):
    """Nearest-neighbour resize of the last two dims (NCHW) to `size`
    (P.ResizeNearestNeighbor): source index floor(i * in / out), or
    round(i * (in - 1) / (out - 1)) with align_corners."""
    x = to_tensor(input_x)
    if x.ndim != 4:
        _b.error(f"resize_nearest_neighbor: the input must be 4-D (NCHW), got rank {x.ndim}")
    oh, ow = _size2(size, "resize_nearest_neighbor")
    h, w = x.shape[2], x.shape[3]
    out = _a.gather(x, const(_nearest_src(h, oh, align_corners, half_pixel_centers)), 2)
    return _a.gather(out, const(_nearest_src(w, ow, align_corners, half_pixel_centers)), 3)


def _linear_src(n_in, n_out, align_corners, half_pixel):
    i = np.arange(n_out, dtype=np.float64)
    if align_corners and n_out > 1:
        src = i * (n_in - 1) / (n_out - 1)
    elif half_pixel:
        src = np.maximum((i + 0.5) * n_in / n_out - 0.5, 0.0)
    else:
        src = i * n_in / n_out
    lo = np.minimum(np.floor(src), n_in - 1).astype(np.int32)
    hi = np.minimum(lo + 1, n_in - 1).astype(np.int32)
    frac = (src - np.floor(src)).astype(np.float32)
    return lo, hi, frac


@primitive
def resize_bilinear(x, size, align_corners=False, half_pixel_centers=False):
    """Bilinear resize of the last two dims (NCHW) to `size` (P.ResizeBilinear,
    TensorFlow's source-position convention; float32 result)."""
    t = to_tensor(x)
    if t.ndim != 4:
        _b.error(f"resize_bilinear: the input must be 4-D (NCHW), got rank {t.ndim}")
    if align_corners and half_pixel_centers:
        _b.error("resize_bilinear: align_corners and half_pixel_centers cannot both be True")
    t = t if t.dtype is _dt.float32 else cast_to(t, _dt.float32)
    oh, ow = _size2(size, "resize_bilinear")
    for axis, n_in, n_out in ((2, t.shape[2], oh), (3, t.shape[3], ow)):
        lo, hi, frac = _linear_src(n_in, n_out, align_corners, half_pixel_centers)
        shp = [1, 1, 1, 1]
        shp[axis] = n_out
        f = const(frac.reshape(shp))
        a = _a.gather(t, const(lo), axis)
        b = _a.gather(t, const(hi), axis)
        t = _m.add(a, _m.mul(_m.sub(b, a), f))
    return t


@primitive
def rms_norm(x, gamma, epsilon=1e-6):
    """(x * rsqrt(mean(x**2, -1) + epsilon) * gamma, rstd) (ops.rms_norm)."""
    t = to_tensor(x)
    t = t if t.dtype.is_float else cast_to(t, _dt.float32)
    rstd = _m.rsqrt(_m.add(_m.reduce_mean(_m.square(t), -1, True), epsilon))
    return _m.mul(_m.mul(t, rstd), gamma), rstd


@primitive
def square_sum(x, axis=(), keep_dims=False):
    """sum(x**2) over `axis`."""
    return _m.reduce_sum(_m.square(x), axis, keep_dims)


@primitive
def cumsum(x, axis, dtype=None, exclusive=False, reverse=False):
    """Cumulative sum along `axis` (ops.cumsum / P.CumSum(exclusive, reverse)),
    as a lower-triangular matmul of ones (exact for integers up to 2**53)."""
    t = to_tensor(x)
    if dtype is not None:
        t = cast_to(t, dtype)
    a = norm_axis(axis, t.ndim)
    n = t.shape[a]
    tri = np.tril(np.ones((n, n)), -1 if exclusive else 0)
    if reverse:
        tri = tri[::-1, ::-1]
    work = t.dtype if t.dtype.is_float else _dt.float64
    moved = _a.swapaxes(cast_to(t, work), a, -1) if t.ndim > 1 else cast_to(t, work)
    out = _m.matmul(moved, const(np.ascontiguousarray(tri.T), work))
    out = _a.swapaxes(out, a, -1) if t.ndim > 1 else out
    return cast_to(out, t.dtype if not t.dtype.is_bool else _dt.int64)


@primitive
def flip(input, dims):
    """input reversed along `dims` (ops.flip / P.ReverseV2(axis))."""
    t = to_tensor(input)
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    out = t
    for d in dims:
        a = norm_axis(d, t.ndim, what="flip: dim")
        out = _a.gather(out, const(np.arange(t.shape[a] - 1, -1, -1, dtype=np.int32)), a)
    return out


@primitive
def eye(n, m=None, dtype=None):
    """The n x m identity matrix (ops.eye; float32 by default)."""
    m = n if m is None else m
    dt = _dt.get(dtype) if dtype is not None else _dt.float32
    return const(np.eye(int(n), int(m)), dt)


@primitive
def linspace(start, end, steps):
    """`steps` evenly spaced values from start to end inclusive (ops.linspace /
    P.LinSpace); start/end may be 0-d tensors (then computed at run time)."""
    if isinstance(steps, TensorValue) or isinstance(steps, bool) or not isinstance(
            steps, numbers.Integral):
        _b.error(f"linspace: steps must be a Python int, got {steps!r}")
    steps = int(steps)
    if steps <= 0:
        _b.error(f"linspace: steps must be positive, got {steps}")
    s, e = promote(start, end, min_float=True)
    if s.ndim or e.ndim:
        s = _a.reshape(s, ())
        e = _a.reshape(e, ())
    frac = np.arange(steps, dtype=np.float64) / (steps - 1) if steps > 1 else np.zeros(1)
    out = _m.add(s, _m.mul(_m.sub(e, s), const(frac, s.dtype)))
    if steps > 1:   # the last point is exactly `end`
        last = const(np.arange(steps) == steps - 1)
        out = _m.select(last, _a.broadcast_to(e, (steps,)), out)
    return out


# ---------------------------------------------------------------------------
# Python-level helpers (no op of their own)
# ---------------------------------------------------------------------------

def dtype(input):
    """The dtype of a tensor (ops.dtype / P.DType)."""
    d = getattr(input, "dtype", None)
    if d is None:
        raise TypeError(f"For 'dtype', the input must be a tensor, got {type(input).__name__}")
    return _dt.get(d)


class partial:
    """ops.partial(fn, *args): fn with its first arguments bound. Inside jit the
    call is the call of `fn` itself (the parser unwraps it), so `fn` is compiled."""

    def __init__(self, func, *args):
        if not callable(func):
            raise TypeError(f"For 'partial', the first argument must be callable, got "
                            f"{type(func).__name__}")
        self.func = func
        self.args = args

    def __msmlir_unwrap__(self, args):
        f, a = self.func, [*self.args, *args]
        unwrap = getattr(type(f), "__msmlir_unwrap__", None)   # nested partials, overloads
        return unwrap(f, a) if unwrap is not None else (f, a)

    def __call__(self, *args, **kwargs):
        return self.func(*self.args, *args, **kwargs)

    def __repr__(self):
        return f"partial({self.func!r}, {', '.join(map(repr, self.args))})"


@primitive
def tuple_to_array(input_x):
    """A 1-D tensor from a tuple of numbers (ops.tuple_to_array; int64 for ints,
    float32 for floats)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        _b.error("tuple_to_array: the input must be a non-empty tuple of numbers")
    return to_tensor(tuple(input_x))


def make_range(start=0, limit=None, delta=1):
    """A tuple of ints like range() (F.make_range), at compile time."""
    if limit is None:
        start, limit = 0, start
    for v in (start, limit, delta):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"For 'make_range', the arguments must be ints, got {v!r}")
    if delta == 0:
        raise ValueError("For 'make_range', delta must not be 0")
    return tuple(range(start, limit, delta))



def _pool_out(n, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    num = n + 2 * p - eff
    if num < 0:
        _b.error(f"pooling: the window ({eff}) is larger than the padded input ({n + 2 * p})")
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:   # the last window must start inside
        out -= 1
    return out


@primitive
def window_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                  mode="max", count_include_pad=True, divisor_override=None):
    """2-D max/avg pooling of NCHW `x` with PyTorch/MindSpore 2.x's arguments
    (dilation, ceil_mode, count_include_pad, divisor_override), as the max/sum of
    the kernel's k*k strided slices of the padded input. The avg divisor of each
    window is computed at compile time (windows cut by ceil_mode count only
    their part inside input + padding; count_include_pad=False counts only the
    input)."""
    t = to_tensor(x)
    if t.ndim != 4:
        _b.error(f"pooling: the input must be 4-D (NCHW), got rank {t.ndim}")

    def pair(v, what):
        v = int_tuple(v, f"pooling {what}")
        return (v[0], v[0]) if len(v) == 1 else v[:2]
    kh, kw = pair(kernel_size, "kernel_size")
    sh, sw = pair(kernel_size if stride is None else stride, "stride")
    ph, pw = pair(padding, "padding")
    dh, dw = pair(dilation, "dilation")
    n, c, h, w = t.shape
    oh = _pool_out(h, kh, sh, ph, dh, ceil_mode)
    ow = _pool_out(w, kw, sw, pw, dw, ceil_mode)
    # pad: explicit padding, plus what the last (ceil) windows reach beyond it
    need_h = (oh - 1) * sh + dh * (kh - 1) + 1
    need_w = (ow - 1) * sw + dw * (kw - 1) + 1
    extra_h = builtins.max(0, need_h - (h + 2 * ph))
    extra_w = builtins.max(0, need_w - (w + 2 * pw))
    fill = -np.inf if mode == "max" else 0.0
    xf = t if t.dtype.is_float else cast_to(t, _dt.float32)
    if ph or pw or extra_h or extra_w:
        xf = _a.pad(xf, (pw, pw + extra_w, ph, ph + extra_h), value=fill)
    acc = None
    for a in range(kh):
        for b in range(kw):
            sl = _a.strided_slice(xf, (0, 0, a * dh, b * dw),
                                  (n, c, a * dh + (oh - 1) * sh + 1, b * dw + (ow - 1) * sw + 1),
                                  (1, 1, sh, sw))
            acc = sl if acc is None else (_m.maximum(acc, sl) if mode == "max" else
                                          _m.add(acc, sl))
    if mode == "max":
        return acc
    if divisor_override:
        return _m.div(acc, float(divisor_override))
    div = np.zeros((oh, ow), np.float64)
    for i in range(oh):
        hs = i * sh - ph
        he = builtins.min(hs + (kh - 1) * dh + 1, h + ph)
        hs_in, he_in = builtins.max(hs, 0), builtins.min(he, h)
        for j in range(ow):
            ws = j * sw - pw
            we = builtins.min(ws + (kw - 1) * dw + 1, w + pw)
            ws_in, we_in = builtins.max(ws, 0), builtins.min(we, w)
            if count_include_pad:
                div[i, j] = (he - hs) * (we - ws)
            else:
                div[i, j] = builtins.max(he_in - hs_in, 0) * builtins.max(we_in - ws_in, 0)
    return _m.div(acc, const(div.reshape(1, 1, oh, ow), xf.dtype))


def _batched_gather(p, i, a, bd):
    """ops.gather with batch_dims (see array.gather)."""
    if bd < 0:
        bd += i.ndim
    if not 0 < bd <= builtins.min(i.ndim, a):
        _b.error(f"gather: batch_dims {bd} must be in [0, min(rank of indices, axis)] = "
                 f"[0, {builtins.min(i.ndim, a)}]")
    if p.shape[:bd] != i.shape[:bd]:
        _b.error(f"gather: the batch dims of params {list(p.shape[:bd])} and indices "
                 f"{list(i.shape[:bd])} differ")
    nb = int(np.prod(p.shape[:bd], dtype=np.int64))
    mid = p.shape[bd:a]                      # params dims between the batch dims and axis
    n = p.shape[a]
    rest = p.shape[a + 1:]
    # params -> [nb * n, mid..., rest...] with the gathered axis right after the batch
    perm = tuple(range(bd)) + (a,) + tuple(range(bd, a)) + tuple(range(a + 1, p.ndim))
    pt = _a.reshape(_a.transpose(p, perm), (nb * n,) + mid + rest)
    ishape = i.shape[bd:]
    iflat = _a.reshape(i, (nb,) + ishape)
    offs = np.arange(nb, dtype=i.dtype.to_numpy()).reshape((nb,) + (1,) * len(ishape)) * n
    # negative indices count from the end of their own batch's axis; one outside
    # [-n, n) is sent out of the flat range, so gather raises IndexError at run time
    iflat = _m.select(_m.less(iflat, 0), _m.add(iflat, n), iflat)
    bad = _m.logical_or(_m.less(iflat, 0), _m.greater_equal(iflat, n))
    flat_idx = _m.select(bad, const(np.full(iflat.shape, -nb * n - 1, offs.dtype)),
                         _m.add(iflat, const(offs)))
    g = emit(mindir.GatherOp, pt.value, flat_idx.value, axis=_b.i64_attr(0))
    # g: [nb, ishape..., mid..., rest...] -> [batch..., mid..., ishape..., rest...]
    k, m = len(ishape), len(mid)
    order = (0,) + tuple(range(1 + k, 1 + k + m)) + tuple(range(1, 1 + k)) + \
        tuple(range(1 + k + m, 1 + k + m + len(rest)))
    g = _a.transpose(g, order)
    return _a.reshape(g, p.shape[:bd] + mid + ishape + rest)


_a._BATCHED_GATHER[:] = [_batched_gather]


# ---------------------------------------------------------------------------
# Segment reductions (one-hot over the segments; ids outside [0, num_segments)
# contribute nothing; empty segments hold the reduction's identity: 0 for sum,
# the dtype's lowest/highest value for max/min, 1 for prod -- as MindSpore)
# ---------------------------------------------------------------------------

def _segment_reduce(kind, x, segment_ids, num_segments):
    t = to_tensor(x)
    ids = _index_tensor(segment_ids)
    if isinstance(num_segments, TensorValue) or isinstance(num_segments, bool) or \
            not isinstance(num_segments, numbers.Integral):
        _b.error(f"unsorted_segment_{kind}: num_segments must be a Python int")
    lead = ids.ndim
    if tuple(t.shape[:lead]) != tuple(ids.shape):
        _b.error(f"unsorted_segment_{kind}: segment_ids shape {list(ids.shape)} must be a "
                 f"prefix of the input shape {list(t.shape)}")
    n = int(num_segments)
    full = tuple(t.shape) + (n,)
    oh = _m.equal(_a.reshape(ids, tuple(ids.shape) + (1,) * (t.ndim - lead + 1)),
                  const(np.arange(n).reshape((1,) * t.ndim + (n,)), ids.dtype))
    oh = _a.broadcast_to(oh, full)
    big = _a.broadcast_to(_a.expand_dims(t, -1), full)
    axes = tuple(range(lead))
    if kind == "sum":
        r = _m.reduce_sum(_m.select(oh, big, _a.zeros_like(big)), axes)
    elif kind == "prod":
        r = _m.reduce_prod(_m.select(oh, big, _a.ones_like(big)), axes)
    else:
        info = np.finfo if t.dtype.is_float else np.iinfo
        fill = info(t.dtype.to_numpy()).min if kind == "max" else info(t.dtype.to_numpy()).max
        fill = float(fill) if t.dtype.is_float else int(fill)
        red = _m.reduce_max if kind == "max" else _m.reduce_min
        r = red(_m.select(oh, big, _a.full_like(big, fill)), axes)
    return _a.transpose(r, (r.ndim - 1,) + tuple(range(r.ndim - 1)))


@primitive
def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """Sum of the rows of input_x with the same segment id (ops.unsorted_segment_sum)."""
    return _segment_reduce("sum", input_x, segment_ids, num_segments)


@primitive
def unsorted_segment_max(x, segment_ids, num_segments):
    """Max of the rows with the same segment id (ops.unsorted_segment_max)."""
    return _segment_reduce("max", x, segment_ids, num_segments)


@primitive
def unsorted_segment_min(x, segment_ids, num_segments):
    """Min of the rows with the same segment id (ops.unsorted_segment_min)."""
    return _segment_reduce("min", x, segment_ids, num_segments)


@primitive
def unsorted_segment_prod(x, segment_ids, num_segments):
    """Product of the rows with the same segment id (ops.unsorted_segment_prod)."""
    return _segment_reduce("prod", x, segment_ids, num_segments)


@primitive
def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """input_x with updates written at the element positions `indices` along
    `axis` (ops.tensor_scatter_elements; the inverse of gather_elements):
    reduction 'none' replaces, 'add' adds (duplicates add up). Negative indices
    count from the end; an index outside [-n, n) writes nothing."""
    if reduction not in ("none", "add"):
        _b.error(f"tensor_scatter_elements: reduction must be 'none' or 'add', got "
                 f"{reduction!r}", kind=ValueError)
    x = to_tensor(input_x)
    idx = _index_tensor(indices)
    u = cast_to(to_tensor(updates), x.dtype)
    if idx.ndim != x.ndim or tuple(u.shape) != tuple(idx.shape):
        _b.error(f"tensor_scatter_elements: indices {list(idx.shape)} and updates "
                 f"{list(u.shape)} must have the same shape and the rank of the input "
                 f"{list(x.shape)}")
    d = norm_axis(axis, x.ndim, what="tensor_scatter_elements: axis")
    n = x.shape[d]
    strides = [int(np.prod(x.shape[a + 1:], dtype=np.int64)) for a in range(x.ndim)]
    offs = np.zeros(idx.shape, np.int64)
    for a in range(x.ndim):
        if a != d:
            shp = [1] * x.ndim
            shp[a] = idx.shape[a]
            offs = offs + np.arange(idx.shape[a], dtype=np.int64).reshape(shp) * strides[a]
    i64 = cast_to(idx, _dt.int64)
    i64 = _m.select(_m.less(i64, 0), _m.add(i64, n), i64)
    bad = _m.logical_or(_m.less(i64, 0), _m.greater_equal(i64, n))
    pos = _m.add(_m.mul(i64, strides[d]), const(offs))
    pos = _m.select(bad, _a.full_like(pos, x.size), pos)        # dropped by the one-hot
    pos = _a.reshape(pos, (-1, 1))
    shape = (x.size,)
    scattered, _ = _scatter_sum(pos, _a.reshape(u, (-1,)), shape, "tensor_scatter_elements")
    flat = _a.reshape(x, (-1,))
    if reduction == "add":
        return _a.reshape(_m.add(flat, scattered), x.shape)
    hit, _ = _scatter_sum(pos, _a.ones((u.size,), _dt.float32), shape, "tensor_scatter_elements")
    return _a.reshape(_m.select(_m.greater(hit, 0.0), scattered, flat), x.shape)


@primitive
def multinomial(input, num_samples, replacement=True, seed=None):
    """Indices drawn from the rows of `input` (non-negative weights, 1-D or 2-D)
    (ops.multinomial): with replacement by inverse-CDF sampling of uniform
    numbers, without by the Gumbel-top-k trick; int32 indices (MindSpore's docs
    say float32 for the output; its kernels return integers). New numbers at
    every call (msmlir's counter-based RNG, not MindSpore's stream)."""
    p = to_tensor(input)
    if p.ndim not in (1, 2):
        _b.error(f"multinomial: the input must be 1-D or 2-D, got rank {p.ndim}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) or \
            num_samples <= 0:
        _b.error(f"multinomial: num_samples must be a positive int, got {num_samples!r}",
                 kind=TypeError if not isinstance(num_samples, numbers.Integral) else ValueError)
    p = p if p.dtype.is_float else cast_to(p, _dt.float32)
    squeeze = p.ndim == 1
    if squeeze:
        p = _a.expand_dims(p, 0)
    b, n = p.shape
    s = int(num_samples)
    seed_ = 0 if seed is None else int(seed)
    if replacement:
        cdf = cumsum(p, 1)
        cdf = _m.div(cdf, _a.slice(cdf, (0, n - 1), (b, 1)))
        u = _a.random_uniform((b, s, 1), seed_, dtype=p.dtype)
        below = _m.less_equal(_a.expand_dims(cdf, 1), u)               # [b, s, n]
        idx = _m.reduce_sum(cast_to(below, _dt.int32), -1)
        idx = _m.minimum(idx, n - 1)
    else:
        if s > n:
            _b.error(f"multinomial: num_samples ({s}) must be at most the number of "
                     f"categories ({n}) without replacement", kind=ValueError)
        u = _a.random_uniform((b, n), seed_, dtype=p.dtype)
        u = _m.maximum(u, 1e-20)
        key = _m.sub(_m.log(p), _m.log(_m.neg(_m.log(u))))
        idx = _a.topk(key, s)[1]
    return _a.reshape(idx, (s,)) if squeeze else idx
