"""Tensor methods of MindSpore's `Tensor` that compose the functional ops of
layer 5 (msmlir/ops/functional.py, msmlir.numpy): `x.acos()`, `x.lerp(end, w)`,
`x.addmm(a, b)`, `x.mT`, ...

The tensor-method table (ops/tensor_methods.py, layer 3) lists these names in
`DELEGATED` and installs a stub for each on `Tensor` and on the traced
`TensorValue`; a stub looks its implementation up here on first use through
msmlir/providers.py ("tensor_method_extensions"). So, like every table method,
each means the same in PyNative (one cached kernel) and inside jit.
"""
from __future__ import annotations

import math as _math

import numpy as _np

from .. import dtype as _dt
from .. import numpy as mnp
from .. import ops as F
from ..frontend import builder as _b
from .dynamic import unique_consecutive as _unique_consecutive
from .dynamic import bincount as _bincount, masked_select as _masked_select, \
    nonzero as _nonzero, unique_sorted as _unique
from . import functional as _fn   # noqa: F401  (loads the layer-5 functional ops into F)
from ._base import const as _const, to_tensor as _t


def _swap_last(x):
    """The last two dims swapped (mT; for real tensors also H, mH, adjoint, and t
    of a 2-D tensor); called eagerly by the properties, so only primitives."""
    return x if len(x.shape) < 2 else F.swapaxes(x, -2, -1)


def _cumsum(x, axis=None, dtype=None):
    t = _t(x)
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    return F.cumsum(t, axis, dtype)


def _cumprod(x, axis=None, dtype=None):
    return mnp.cumprod(x, axis, dtype)


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    t = _t(x)
    if not t.dtype.is_float:
        return t
    info = _np.finfo(t.dtype.to_numpy())
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    t = F.select(F.isnan(t), F.full_like(t, nan), t)
    t = F.select(F.logical_and(F.isinf(t), F.greater(t, 0)), F.full_like(t, hi), t)
    return F.select(F.logical_and(F.isinf(t), F.less(t, 0)), F.full_like(t, lo), t)


def _sinc(x):
    t = _t(x)
    t = t if t.dtype.is_float else F.cast(t, _dt.float32)
    px = F.mul(t, _math.pi)
    zero = F.equal(t, 0)
    return F.select(zero, F.ones_like(t), F.div(F.sin(px), F.select(zero, F.ones_like(t), px)))


def _resize(x, *new_shape):
    """numpy's ndarray.resize semantics (MindSpore's Tensor.resize): the flat
    data cut or padded with zeros to the new size, reshaped."""
    if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)):
        new_shape = tuple(new_shape[0])
    t = _t(x)
    n = int(_np.prod(new_shape, dtype=_np.int64))
    flat = F.reshape(t, (-1,))
    size = int(_np.prod(t.shape, dtype=_np.int64))
    if n < size:
        flat = F.slice(flat, (0,), (n,))
    elif n > size:
        flat = F.pad(flat, (0, n - size))
    return F.reshape(flat, tuple(new_shape))


def _sum_to_size(x, *size):
    """x summed over the broadcast dims so that its shape is `size`."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    t = _t(x)
    lead = t.ndim - len(size)
    if lead < 0:
        _b.error(f"sum_to_size: size {size} has more dims than the tensor {list(t.shape)}")
    axes = list(range(lead)) + [lead + i for i, d in enumerate(size)
                                if d == 1 and t.shape[lead + i] != 1]
    out = F.reduce_sum(t, tuple(axes), True) if axes else t
    return F.reshape(out, tuple(size))


def _set_const_arg(x, const_arg=True):
    x.const_arg = bool(const_arg)
    return x


def _chunk(x, chunks, axis=0):
    t = _t(x)
    dim = t.shape[axis]
    size = -(-dim // chunks)
    return F.split(t, size, axis)


def _tensor_split(x, indices_or_sections, axis=0):
    return tuple(mnp.array_split(x, indices_or_sections, axis))


def _with_value(reduce, x, axis=0, keep_dims=False):
    values, index = reduce(x, axis, keep_dims)
    return index, values


def _is(kind):
    def check(x):
        d = _dt.get(x.dtype)
        return {"float": d.is_float, "complex": d.is_complex,
                "signed": d.is_float or d.kind == "i" or d.is_complex}[kind]
    return check


def _new(fill):
    def make(x, size, dtype=None):
        size = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        return F.fill(dtype if dtype is not None else x.dtype, size, fill)
    return make


def _addbmm(x, batch1, batch2, *, beta=1, alpha=1):
    return F.add(F.mul(x, beta), F.mul(F.reduce_sum(F.bmm(batch1, batch2), 0), alpha))


TENSOR_METHODS = {
    # elementwise (functional twins)
    "acos": F.acos, "arccos": F.acos, "asin": F.asin, "arcsin": F.asin, "atan": F.atan,
    "arctan": F.atan, "asinh": F.asinh, "arcsinh": F.asinh, "atanh": F.atanh,
    "arctanh": F.atanh, "arccosh": F.acosh, "cosh": F.cosh, "tan": F.tan,
    "atan2": F.atan2, "arctan2": F.atan2, "inv": F.inv, "logit": F.logit,
    "xdivy": F.xdivy, "xlogy": F.xlogy, "lerp": F.lerp, "hardshrink": F.hardshrink,
    "soft_shrink": F.soft_shrink, "approximate_equal": F.approximate_equal,
    "isclose": F.isclose, "erfc": lambda x: F.sub(1.0, F.erf(x)), "sgn": F.sign,
    "positive": lambda x: x, "sinc": _sinc, "nan_to_num": _nan_to_num,
    "deg2rad": mnp.deg2rad, "rad2deg": mnp.rad2deg, "float_power": mnp.float_power,
    "fmod": mnp.fmod, "heaviside": mnp.heaviside, "hypot": mnp.hypot,
    "isneginf": mnp.isneginf, "isposinf": mnp.isposinf, "log10": mnp.log10,
    "log2": mnp.log2, "logaddexp": mnp.logaddexp, "logaddexp2": mnp.logaddexp2,
    "signbit": mnp.signbit, "copysign": mnp.copysign,
    "addcdiv": lambda x, t1, t2, value=1: F.add(x, F.mul(F.div(t1, t2), value)),
    "addcmul": lambda x, t1, t2, value=1: F.add(x, F.mul(F.mul(t1, t2), value)),
    # reductions / scans
    "logsumexp": lambda x, axis, keepdims=False: F.logsumexp(x, axis, keepdims),
    "norm": F.norm, "cumsum": _cumsum, "cumprod": _cumprod,
    "ptp": lambda x, axis=None, keepdims=False: mnp.ptp(x, axis, keepdims),
    "argmax_with_value": lambda x, axis=0, keep_dims=False: _with_value(F.max, x, axis,
                                                                        keep_dims),
    "argmin_with_value": lambda x, axis=0, keep_dims=False: _with_value(F.min, x, axis,
                                                                        keep_dims),
    "trace": lambda x, offset=0, axis1=0, axis2=1, dtype=None: mnp.trace(x, offset, axis1,
                                                                         axis2, dtype),
    "msort": lambda x: F.sort(x, 0)[0],
    "unsorted_segment_max": F.unsorted_segment_max,
    "unsorted_segment_min": F.unsorted_segment_min,
    "unsorted_segment_prod": F.unsorted_segment_prod,
    # linear algebra
    "bmm": F.bmm, "mm": F.matmul, "ger": F.ger, "inner": mnp.inner,
    "cross": lambda x, other, dim=None: mnp.cross(x, other, axis=-1 if dim is None else dim),
    "addmm": lambda x, mat1, mat2, *, beta=1, alpha=1: F.add(
        F.mul(x, beta), F.mul(F.matmul(mat1, mat2), alpha)),
    "addmv": lambda x, mat, vec, *, beta=1, alpha=1: F.add(
        F.mul(x, beta), F.mul(F.matmul(mat, vec), alpha)),
    "addr": lambda x, vec1, vec2, *, beta=1, alpha=1: F.add(
        F.mul(x, beta), F.mul(F.ger(vec1, vec2), alpha)),
    "baddbmm": lambda x, batch1, batch2, *, beta=1, alpha=1: F.add(
        F.mul(x, beta), F.mul(F.bmm(batch1, batch2), alpha)),
    "addbmm": _addbmm,
    # shape / indexing
    "expand": lambda x, size: F.broadcast_to(x, tuple(size)), "flip": F.flip,
    "fliplr": mnp.fliplr, "flipud": mnp.flipud, "rot90": lambda x, k=1, dims=(0, 1):
        mnp.rot90(x, k, dims), "roll": lambda x, shifts, dims=None: mnp.roll(x, shifts, dims),
    "diag": F.diag, "diagflat": lambda x, offset=0: mnp.diagflat(x, offset),
    "diagonal": lambda x, offset=0, axis1=0, axis2=1: mnp.diagonal(x, offset, axis1, axis2),
    "tril": lambda x, diagonal=0: mnp.tril(x, diagonal),
    "triu": lambda x, diagonal=0: mnp.triu(x, diagonal),
    "narrow": F.narrow, "gather_elements": F.gather_elements, "gather_nd": F.gather_nd,
    "masked_fill": F.masked_fill, "inplace_update": F.inplace_update,
    "take": lambda x, indices, axis=None, mode="clip": mnp.take(x, indices, axis, mode=mode),
    "repeat": lambda x, repeats, axis=None: mnp.repeat(x, repeats, axis),
    "repeat_interleave": lambda x, repeats, dim=None: mnp.repeat(x, repeats, dim),
    "select": lambda x, condition, y: F.select(condition, x, y),
    "where": lambda x, condition, y: F.select(condition, x, y),
    "split": lambda x, split_size_or_sections, axis=0: F.split(x, split_size_or_sections,
                                                               axis),
    "chunk": _chunk, "tensor_split": _tensor_split,
    "hsplit": lambda x, indices_or_sections: tuple(mnp.hsplit(x, indices_or_sections)),
    "vsplit": lambda x, indices_or_sections: tuple(mnp.vsplit(x, indices_or_sections)),
    "dsplit": lambda x, indices_or_sections: tuple(mnp.dsplit(x, indices_or_sections)),
    "unbind": lambda x, dim=0: F.unstack(x, dim),
    "top_k": lambda x, k, sorted=True: F.topk(x, k, None, True, sorted),
    "reshape_as": lambda x, other: F.reshape(x, tuple(other.shape)),
    "resize": _resize, "t": _swap_last,
    "choose": lambda x, choices, mode="clip": mnp.choose(x, choices, mode=mode),
    "fill": lambda x, value: F.full_like(x, value), "fills": lambda x, value: F.full_like(x, value),
    "new_ones": _new(1), "new_zeros": _new(0),
    "searchsorted": lambda x, v, side="left", sorter=None: mnp.searchsorted(x, v, side, sorter),
    "reverse": lambda x, axis: F.flip(x, axis),
    "index_add": lambda x, indices, y, axis, use_lock=True, check_index_bound=True:
        F.index_add(x, indices, y, axis),
    "index_fill": lambda x, axis, index, value: F.index_fill(x, axis, index, value),
    "scatter_add": lambda x, indices, updates: F.tensor_scatter_add(x, indices, updates),
    "scatter_sub": lambda x, indices, updates: F.tensor_scatter_sub(x, indices, updates),
    "sum_to_size": lambda x, *size: _sum_to_size(x, *size),
    "isreal": lambda x: F.ones_like(F.cast(x, _dt.bool_)),
    "real": lambda x: x, "conj": lambda x: x,
    "angle": lambda x: F.select(F.less(x, 0), F.full_like(F.cast(x, _dt.float32), _math.pi),
                                F.zeros_like(F.cast(x, _dt.float32))),
    "ldexp": lambda x, other: F.mul(x, F.pow(2.0, F.cast(other, _dt.float32))),
    # data-dependent output shapes (PyNative only; msmlir/ops/dynamic.py)
    "nonzero": _nonzero, "masked_select": _masked_select, "unique": _unique,
    "bincount": _bincount,
    "reverse_sequence": lambda x, seq_lengths, seq_dim=0, batch_dim=0: _fn.reverse_sequence(
        x, seq_lengths, seq_dim, batch_dim),
    # Python-valued
    "short": lambda x: x.astype(_dt.int16),
    "set_const_arg": lambda x, const_arg=True: _set_const_arg(x, const_arg),
    "is_floating_point": _is("float"), "is_signed": _is("signed"), "is_complex": _is("complex"),
    # properties
    "mT": _swap_last, "mH": _swap_last, "H": _swap_last, "adjoint": _swap_last,
}


# ---------------------------------------------------------------------------
# More of MindSpore's Tensor methods (issue 12): patches, medians, scans, linear algebra by
# unrolled elimination (the matrix size is static), special functions, host-side helpers.
# ---------------------------------------------------------------------------

def _float(t):
    t = _t(t)
    return t if t.dtype.is_float else F.cast(t, _dt.float32)


def _pair2(v, what):
    t = (v, v) if isinstance(v, int) else tuple(v)
    if len(t) != 2 or not all(isinstance(i, int) and i >= 0 for i in t):
        _b.error(f"Tensor.unfold/fold: {what} must be an int or a pair of ints >= 0, got {v!r}",
                 kind=ValueError)
    return t


def _patch_index(c, h, w, k, d, p, s):
    """The flat positions, in the zero-padded (C, H+2p, W+2p) plane, of unfold's
    output (C*kh*kw, L) in its order (channel, kernel row, kernel col; L row-major)."""
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    oh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if oh <= 0 or ow <= 0:
        _b.error(f"Tensor.unfold/fold: the {k} kernel (dilation {d}) does not fit the padded "
                 f"{hp}x{wp} input", kind=ValueError)
    ci, a, b = _np.meshgrid(_np.arange(c), _np.arange(k[0]), _np.arange(k[1]), indexing="ij")
    y = a.reshape(-1, 1, 1) * d[0] + _np.arange(oh).reshape(1, oh, 1) * s[0]
    x = b.reshape(-1, 1, 1) * d[1] + _np.arange(ow).reshape(1, 1, ow) * s[1]
    idx = ci.reshape(-1, 1, 1) * hp * wp + y * wp + x
    return idx.reshape(c * k[0] * k[1], oh * ow).astype(_np.int32), hp, wp


def _unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """im2col of (N, C, H, W): (N, C*kh*kw, L), every sliding block as a column."""
    t = _t(x)
    if t.ndim != 4:
        _b.error(f"Tensor.unfold: the input must be 4-D (N, C, H, W), got {tuple(t.shape)}",
                 kind=ValueError)
    k, d, p, s = (_pair2(v, w) for v, w in ((kernel_size, "kernel_size"),
                                            (dilation, "dilation"), (padding, "padding"),
                                            (stride, "stride")))
    n, c, h, w = t.shape
    idx, hp, wp = _patch_index(c, h, w, k, d, p, s)
    tp = F.pad(t, (p[1], p[1], p[0], p[0])) if p[0] or p[1] else t
    flat = F.reshape(tp, (n, c * hp * wp))
    out = F.gather(flat, _const(idx.reshape(-1)), 1)
    return F.reshape(out, (n,) + idx.shape)


def _fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: the columns (N, C*kh*kw, L) summed back into (N, C, H, W) (the adjoint of
    unfold; overlapping blocks add up)."""
    t = _t(x)
    if t.ndim != 3:
        _b.error(f"Tensor.fold: the input must be 3-D (N, C*kh*kw, L), got {tuple(t.shape)}",
                 kind=ValueError)
    osz = _pair2(tuple(output_size.asnumpy().tolist()) if hasattr(output_size, "asnumpy")
                 else output_size, "output_size")
    k, d, p, s = (_pair2(v, w) for v, w in ((kernel_size, "kernel_size"),
                                            (dilation, "dilation"), (padding, "padding"),
                                            (stride, "stride")))
    n, ck, length = t.shape
    if ck % (k[0] * k[1]):
        _b.error(f"Tensor.fold: dim 1 ({ck}) is not a multiple of the kernel's {k[0] * k[1]} "
                 f"elements", kind=ValueError)
    c = ck // (k[0] * k[1])
    idx, hp, wp = _patch_index(c, osz[0], osz[1], k, d, p, s)
    if idx.shape[1] != length:
        _b.error(f"Tensor.fold: {length} blocks given, the output size {osz} makes "
                 f"{idx.shape[1]}", kind=ValueError)
    cols = F.transpose(F.reshape(t, (n, ck * length)), (1, 0))           # (C*kh*kw*L, N)
    summed = F.unsorted_segment_sum(cols, _const(idx.reshape(-1)), c * hp * wp)
    out = F.reshape(F.transpose(summed, (1, 0)), (n, c, hp, wp))
    if p[0] or p[1]:
        out = F.slice(out, (0, 0, p[0], p[1]), (n, c, osz[0], osz[1]))
    return out


def _col2im(x, output_size, kernel_size, dilation, padding_value, stride):
    """MindSpore's Tensor.col2im: fold with output_size a 2-element int tensor (read on the
    host, so a concrete Tensor: its values are the output's shape)."""
    if hasattr(output_size, "asnumpy"):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    return x.fold(output_size, kernel_size, dilation, padding_value, stride)


def _median(x, axis=-1, keepdims=False):
    """(values, int64 indices): the lower median along axis (MindSpore's Tensor.median)."""
    t = _t(x)
    a = axis % t.ndim if t.ndim else 0
    n = t.shape[a]
    vals, idx = F.sort(t, a)
    begin = [0] * t.ndim
    begin[a] = (n - 1) // 2
    size = list(t.shape)
    size[a] = 1
    v = F.slice(vals, tuple(begin), tuple(size))
    i = F.cast(F.slice(idx, tuple(begin), tuple(size)), _dt.int64)
    if not keepdims:
        v, i = F.squeeze(v, a), F.squeeze(i, a)
    return v, i


def _as_strided(x, size, stride, storage_offset=0):
    """The view with `size` and element `stride`s over x's flat (C-order) data."""
    t = _t(x)
    size, stride = tuple(int(v) for v in size), tuple(int(v) for v in stride)
    if len(size) != len(stride):
        _b.error(f"Tensor.as_strided: size {size} and stride {stride} differ in length",
                 kind=ValueError)
    idx = _np.full(size, int(storage_offset), _np.int64)
    for dim, (n, st) in enumerate(zip(size, stride)):
        shp = [1] * len(size)
        shp[dim] = n
        idx = idx + (_np.arange(n) * st).reshape(shp)
    total = int(_np.prod(t.shape))
    if idx.size and (idx.min() < 0 or idx.max() >= total):
        _b.error(f"Tensor.as_strided: size {size}, stride {stride}, offset {storage_offset} "
                 f"reach outside the {total} elements", kind=ValueError)
    return F.reshape(F.gather(F.reshape(t, (total,)), _const(idx.reshape(-1).astype(_np.int32)),
                              0), size)


def _renorm(x, p, axis, maxnorm):
    """Each slice along `axis` whose p-norm exceeds maxnorm scaled down to maxnorm."""
    t = _float(x)
    a = axis % t.ndim
    others = tuple(i for i in range(t.ndim) if i != a)
    norm = F.pow(F.reduce_sum(F.pow(F.abs(t), float(p)), others, True), 1.0 / float(p))
    scale = F.select(F.greater(norm, maxnorm), F.div(float(maxnorm), F.add(norm, 1e-7)),
                     F.ones_like(norm))
    return F.mul(t, scale)


def _cum_extreme(x, axis, larger):
    """(values, int64 indices) of the running max (min) along axis; on ties the later
    index, as MindSpore's kernels (a log-step scan of (value, index) pairs)."""
    t = _t(x)
    a = axis % t.ndim
    n = t.shape[a]
    shp = [1] * t.ndim
    shp[a] = n
    idx = F.broadcast_to(_const(_np.arange(n, dtype=_np.int64).reshape(shp)), tuple(t.shape))
    v = t
    k = 1
    fill = -_np.inf if larger else _np.inf
    if not t.dtype.is_float:
        info = _np.iinfo(t.dtype.to_numpy())
        fill = info.min if larger else info.max
    while k < n:
        size = list(t.shape)
        size[a] = n - k
        pad_shape = list(t.shape)
        pad_shape[a] = k
        prev_v = F.concat((F.fill(t.dtype, tuple(pad_shape), fill),
                           F.slice(v, (0,) * t.ndim, tuple(size))), a)
        prev_i = F.concat((F.zeros(tuple(pad_shape), _dt.int64),
                           F.slice(idx, (0,) * t.ndim, tuple(size))), a)
        keep = F.greater_equal(v, prev_v) if larger else F.less_equal(v, prev_v)
        v, idx = F.select(keep, v, prev_v), F.select(keep, idx, prev_i)
        k *= 2
    return v, idx


def _random_categorical(x, num_sample, seed=0, dtype=None):
    """num_sample draws per row of the logits x (batch, classes), Gumbel-max: argmax of
    logits + Gumbel noise (independent draws, with replacement)."""
    t = _float(x)
    if t.ndim != 2:
        _b.error(f"Tensor.random_categorical: logits must be 2-D (batch, classes), got "
                 f"{tuple(t.shape)}", kind=ValueError)
    b, c = t.shape
    u = F.random_uniform((b, int(num_sample), c), int(seed), 1e-12, 1.0, t.dtype)
    g = F.neg(F.log(F.neg(F.log(u))))
    out = F.argmax(F.add(F.expand_dims(t, 1), g), -1)
    return F.cast(out, _dt.int64 if dtype is None else dtype)


# ---- linear algebra: unrolled Gaussian elimination (n static) ------------------------------

def _square(x, what):
    t = _float(x)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        _b.error(f"Tensor.{what}: needs (..., n, n) matrices, got shape {tuple(t.shape)}",
                 kind=ValueError)
    return t


def _row(t, i):
    return F.slice(t, (0,) * (t.ndim - 2) + (i, 0), tuple(t.shape[:-2]) + (1, t.shape[-1]))


def _col(t, j):
    return F.slice(t, (0,) * (t.ndim - 1) + (j,), tuple(t.shape[:-1]) + (1,))


def _pivot_swap(a, k, sign):
    """Rows k and argmax_{i >= k} |a[i, k]| swapped (partial pivoting); sign flipped
    when they differ."""
    n = a.shape[-2]
    colk = F.squeeze(_col(a, k), -1)                                     # (..., n)
    below = F.to_tensor(_np.arange(n) >= k)
    score = F.select(F.broadcast_to(below, colk.shape), F.abs(colk),
                     F.fill(colk.dtype, colk.shape, -1.0))
    p = F.cast(F.argmax(score, -1), _dt.int32)                           # (...)
    ar = F.to_tensor(_np.arange(n, dtype=_np.int32))
    pe = F.expand_dims(p, -1)
    perm = F.select(F.equal(ar, k), F.broadcast_to(pe, colk.shape),
                    F.select(F.equal(ar, pe), F.fill(_dt.int32, colk.shape, k),
                             F.broadcast_to(ar, colk.shape)))
    a = F.gather_elements(a, a.ndim - 2, F.broadcast_to(F.expand_dims(perm, -1), a.shape))
    sign = F.select(F.equal(p, k), sign, F.neg(sign))
    return a, sign


def _lu_diag(x, what):
    """(sign, diag of U) of the pivoted LU factorization of (..., n, n)."""
    a = _square(x, what)
    n = a.shape[-1]
    sign = F.ones(tuple(a.shape[:-2]), a.dtype)
    diag = []
    for k in range(n):
        a, sign = _pivot_swap(a, k, sign)
        rk = _row(a, k)                                                  # (..., 1, n)
        piv = _col(rk, k)                                                # (..., 1, 1)
        diag.append(F.reshape(piv, tuple(a.shape[:-2])))
        if k + 1 < n:
            factors = F.div(_col(a, k), piv)                             # (..., n, 1)
            mask = F.to_tensor((_np.arange(n) > k).reshape(n, 1))
            a = F.sub(a, F.mul(F.select(F.broadcast_to(mask, factors.shape), factors,
                                        F.zeros_like(factors)), rk))
    return sign, F.stack(diag, -1)


def _det(x):
    sign, d = _lu_diag(x, "det")
    return F.mul(sign, F.reduce_prod(d, -1))


def _slogdet(x):
    sign, d = _lu_diag(x, "slogdet")
    s = F.mul(sign, F.reduce_prod(F.sign(d), -1))
    return s, F.reduce_sum(F.log(F.abs(d)), -1)


def _logdet(x):
    """log(det(x)): nan for a negative determinant, -inf for zero (MindSpore's logdet)."""
    s, la = _slogdet(x)
    return F.select(F.less(s, 0), F.full_like(la, _np.nan), la)


def _inverse(x):
    """Gauss-Jordan elimination of [x | I] with partial pivoting."""
    a = _square(x, "inverse")
    n = a.shape[-1]
    eye = F.broadcast_to(F.to_tensor(_np.eye(n, dtype=a.dtype.to_numpy())), a.shape)
    m = F.concat((a, eye), -1)                                           # (..., n, 2n)
    sign = F.ones(tuple(a.shape[:-2]), a.dtype)
    for k in range(n):
        m, sign = _pivot_swap(m, k, sign)
        rk = F.div(_row(m, k), _col(_row(m, k), k))                      # pivot row / pivot
        factors = _col(m, k)                                             # (..., n, 1)
        mask = F.to_tensor((_np.arange(n) != k).reshape(n, 1))
        m = F.sub(m, F.mul(F.select(F.broadcast_to(mask, factors.shape), factors,
                                    F.zeros_like(factors)), rk))
        onek = F.to_tensor((_np.arange(n) == k).reshape(n, 1))
        m = F.select(F.broadcast_to(onek, m.shape), F.broadcast_to(rk, m.shape), m)
    return F.slice(m, (0,) * (m.ndim - 1) + (n,), tuple(m.shape[:-1]) + (n,))


def _cholesky(x, upper=False):
    """The lower (upper) triangular factor L with x = L L^T, column by column."""
    a = _square(x, "cholesky")
    n = a.shape[-1]
    cols = []
    ar = _np.arange(n)
    for j in range(n):
        v = _col(a, j)                                                   # (..., n, 1)
        if j:
            lprev = F.stack(cols, -1)                                    # (..., n, j)
            lj = F.slice(lprev, (0,) * (a.ndim - 2) + (j, 0), tuple(a.shape[:-2]) + (1, j))
            v = F.sub(v, F.matmul(lprev, F.swapaxes(lj, -1, -2)))
        d = F.sqrt(F.slice(v, (0,) * (a.ndim - 2) + (j, 0), tuple(a.shape[:-2]) + (1, 1)))
        col = F.div(v, d)
        col = F.select(F.broadcast_to(F.to_tensor((ar >= j).reshape(n, 1)), col.shape), col,
                       F.zeros_like(col))
        cols.append(F.squeeze(col, -1))
    low = F.stack(cols, -1)
    return F.swapaxes(low, -1, -2) if upper else low


def _cholesky_inverse(x, upper=False):
    """The inverse of A from its Cholesky factor (A = L L^T, or U^T U when upper)."""
    f = _square(x, "cholesky_inverse")
    a = F.matmul(F.swapaxes(f, -1, -2), f) if upper else F.matmul(f, F.swapaxes(f, -1, -2))
    return _inverse(a)


# ---- special functions ----------------------------------------------------------------------

_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma(x):
    """log|Γ(x)|: Lanczos (g = 7) for x >= 0.5, the reflection formula below."""
    t = _float(x)
    refl = F.less(t, 0.5)
    z = F.sub(F.select(refl, F.sub(1.0, t), t), 1.0)
    s = F.full_like(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], 1):
        s = F.add(s, F.div(c, F.add(z, float(i))))
    tt = F.add(z, 7.5)
    lg = F.add(F.add(0.5 * _math.log(2 * _math.pi), F.mul(F.add(z, 0.5), F.log(tt))),
               F.sub(F.log(s), tt))
    # Γ(x) Γ(1 - x) = π / sin(π x)
    lr = F.sub(F.sub(_math.log(_math.pi), F.log(F.abs(F.sin(F.mul(t, _math.pi))))), lg)
    return F.select(refl, lr, lg)


def _digamma(x):
    """ψ(x): recurrence ψ(x) = ψ(x + 1) - 1/x up to x >= 6, then the asymptotic series;
    reflection ψ(1 - x) - π cot(π x) for x < 0.5."""
    t = _float(x)
    refl = F.less(t, 0.5)
    z = F.select(refl, F.sub(1.0, t), t)
    acc = F.zeros_like(z)
    for _ in range(6):
        small = F.less(z, 6.0)
        acc = F.select(small, F.sub(acc, F.reciprocal(z)), acc)
        z = F.select(small, F.add(z, 1.0), z)
    inv2 = F.reciprocal(F.mul(z, z))
    series = F.mul(inv2, F.sub(1 / 12, F.mul(inv2, F.sub(1 / 120, F.mul(inv2, F.sub(
        1 / 252, F.mul(inv2, F.sub(1 / 240, F.mul(inv2, 1 / 132)))))))))
    psi = F.add(acc, F.sub(F.sub(F.log(z), F.div(0.5, z)), series))
    pix = F.mul(t, _math.pi)
    return F.select(refl, F.sub(psi, F.div(_math.pi, F.tan(pix))), psi)


def _erfinv(x):
    """erf⁻¹ by Giles' single-precision approximation, refined by two Newton steps on
    erf (±1 give ±inf, |x| > 1 nan)."""
    t = _float(x)
    w = F.neg(F.log(F.mul(F.sub(1.0, t), F.add(1.0, t))))
    lo = F.sub(w, 2.5)
    p1 = F.full_like(t, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p1 = F.add(F.mul(p1, lo), c)
    hi = F.sub(F.sqrt(w), 3.0)
    p2 = F.full_like(t, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p2 = F.add(F.mul(p2, hi), c)
    y = F.mul(F.select(F.less(w, 5.0), p1, p2), t)
    for _ in range(2):
        err = F.sub(F.erf(y), t)
        y = F.sub(y, F.div(err, F.mul(2 / _math.sqrt(_math.pi), F.exp(F.neg(F.mul(y, y))))))
    inf = F.full_like(t, _np.inf)
    y = F.select(F.equal(t, 1.0), inf, F.select(F.equal(t, -1.0), F.neg(inf), y))
    return F.select(F.greater(F.abs(t), 1.0), F.full_like(t, _np.nan), y)


# ---- scatter with a reduction (tensor_scatter_mul/div/max/min) --------------------------------

def _scatter_reduce(kind):
    def run(x, indices, updates):
        t = _t(x)
        idx = F.cast(_t(indices), _dt.int32)
        u = F.cast(_t(updates), t.dtype)
        depth = idx.shape[-1]
        count = int(_np.prod(idx.shape[:-1]))
        flat_i = F.reshape(idx, (count, depth))
        flat_u = F.reshape(u, (count,) + tuple(t.shape[depth:]))
        op = {"mul": F.mul, "div": F.div, "max": F.maximum, "min": F.minimum}[kind]
        for i in range(count):                 # in order: duplicates compound, as the kernels
            where = F.slice(flat_i, (i, 0), (1, depth))
            cur = F.gather_nd(t, where)
            upd = F.slice(flat_u, (i,) + (0,) * (flat_u.ndim - 1), (1,) + tuple(flat_u.shape[1:]))
            t = F.tensor_scatter_update(t, where, op(cur, upd))
        return t
    run.__name__ = f"scatter_{kind}"
    return run


# ---- host-side -------------------------------------------------------------------------------

def _to_tensor(x, slice_index=None, shape=None, opt_shard_group=None):
    """The tensor itself (MindSpore's init_data: msmlir fills data at construction)."""
    return x


def _flush_from_cache(x):
    """No-op: msmlir has no parameter-server cache to flush."""
    return None


def _itemset(x, *args):
    """numpy's itemset, in place: itemset(value) on a one-element tensor, or
    itemset(flat index or index tuple, value)."""
    data = x._data
    if not data.flags.writeable:
        data = x._data = data.copy()
    if len(args) == 1:
        if data.size != 1:
            raise ValueError(f"For 'Tensor.itemset', a single argument needs a one-element "
                             f"tensor, got shape {data.shape}")
        data.reshape(-1)[0] = args[0]
    elif len(args) == 2:
        where, value = args
        if isinstance(where, int):
            data.reshape(-1)[where] = value
        else:
            data[tuple(where)] = value
    else:
        raise TypeError(f"For 'Tensor.itemset', expected 1 or 2 arguments, got {len(args)}")
    return x


def _unique_with_pad(x, pad_num):
    """(y, idx) of a 1-D tensor: its distinct values ascending, padded with pad_num to
    x's length, and each element's position in y (int32): a static shape, compiled."""
    t = _t(x)
    if t.ndim != 1:
        _b.error(f"Tensor.unique_with_pad: the input must be 1-D, got shape {tuple(t.shape)}",
                 kind=ValueError)
    n = t.shape[0]
    s, perm = F.sort(t)
    first = F.concat((F.ones((1,), _dt.bool_),
                      F.not_equal(F.slice(s, (1,), (n - 1,)), F.slice(s, (0,), (n - 1,)))), 0) \
        if n > 1 else F.ones((1,), _dt.bool_)
    pos = F.sub(F.cumsum(F.cast(first, _dt.int32), 0), 1)               # slot of each sorted
    # each value written once: the repeats go to a spare last slot, cut off again
    dest = F.select(first, pos, F.fill(_dt.int32, (n,), n))
    y = F.tensor_scatter_update(F.fill(t.dtype, (n + 1,), pad_num), F.expand_dims(dest, 1), s)
    y = F.slice(y, (0,), (n,))
    inv = F.scatter_nd(F.expand_dims(F.cast(perm, _dt.int32), 1),
                       _const(_np.arange(n, dtype=_np.int32)), (n,))
    return y, F.gather(pos, inv, 0)


_IGAMMA_STEPS = 160


def _loop(count, body, init):
    """body(*carry) -> carry, applied `count` times as one scf.while (the graph holds
    one copy of the body instead of `count`: compile time stays flat). Every carried
    value is a tensor whose type the body keeps."""
    from mlir import ir
    from mlir.dialects import scf, tensor as _tensor_d
    from ._base import TensorValue
    init = [_t(v) for v in init]
    i0 = _const(0, _dt.int32)
    vals = [i0] + init
    types_ = [v.type for v in vals]
    loc = ir.Location.current
    wop = scf.WhileOp(types_, [v.value for v in vals])
    before = wop.before.blocks.append(*types_, arg_locs=[loc] * len(types_))
    after = wop.after.blocks.append(*types_, arg_locs=[loc] * len(types_))
    with ir.InsertionPoint(before):
        go = F.less(TensorValue(before.arguments[0]), _const(int(count), _dt.int32))
        scf.ConditionOp(_tensor_d.ExtractOp(go.value, []).result, list(before.arguments))
    with ir.InsertionPoint(after):
        args = [TensorValue(a) for a in after.arguments]
        out = [_t(v) for v in body(*args[1:])]
        for o, t in zip(out, types_[1:]):
            if o.type != t:
                _b.error(f"loop body changed a carried type: {t} -> {o.type}")
        scf.YieldOp([F.add(args[0], _const(1, _dt.int32)).value] + [o.value for o in out])
    return [TensorValue(r) for r in list(wop.results)[1:]]


def _igamma_pq(a, x):
    """(P, Q): the regularized incomplete gamma functions. The series
    P = e^-x x^a / Γ(a+1) Σ x^n / ((a+1)...(a+n)) where x < a + 1, else Q by Legendre's
    continued fraction (modified Lentz), each a fixed number of steps (a loop)."""
    at, xt = _float(a), _float(x)
    if at.dtype != xt.dtype:
        at, xt = F.cast(at, _dt.float64), F.cast(xt, _dt.float64)
    shape = _np.broadcast_shapes(tuple(at.shape), tuple(xt.shape))
    at, xt = F.broadcast_to(at, shape), F.broadcast_to(xt, shape)
    use_series = F.less(xt, F.add(at, 1.0))
    one = F.ones_like(xt)
    pos = F.greater(xt, 0.0)
    xs = F.select(pos, xt, one)                                 # log(x) only where x > 0
    front = F.exp(F.sub(F.sub(F.mul(at, F.log(xs)), xt), _lgamma(at)))
    # series
    ap, term = at, F.reciprocal(at)
    total = term

    # each branch sees harmless x where the other is used, so that its (unused) value
    # and gradient stay finite: select's gradient multiplies the unused one by 0
    xser = F.select(use_series, xt, F.zeros_like(xt))

    def series_step(ap, term, total):
        ap = F.add(ap, 1.0)
        term = F.mul(term, F.div(xser, ap))
        return ap, term, F.add(total, term)
    ap, term, total = _loop(_IGAMMA_STEPS, series_step, (ap, term, total))
    p_series = F.mul(total, front)
    # continued fraction for Q
    tiny = 1e-300 if xt.dtype == _dt.float64 else 1e-30
    b = F.sub(F.add(F.select(use_series, F.add(at, 2.0), xs), 1.0), at)
    c = F.full_like(xt, 1.0 / tiny)
    d = F.reciprocal(b)
    h = d

    def cf_step(i, b, c, d, h):
        i = F.add(i, 1.0)
        an = F.mul(F.neg(i), F.sub(i, at))
        b = F.add(b, 2.0)
        d = F.add(F.mul(an, d), b)
        d = F.select(F.less(F.abs(d), tiny), F.full_like(d, tiny), d)
        c = F.add(b, F.div(an, c))
        c = F.select(F.less(F.abs(c), tiny), F.full_like(c, tiny), c)
        d = F.reciprocal(d)
        return i, b, c, d, F.mul(h, F.mul(d, c))
    _, b, c, d, h = _loop(_IGAMMA_STEPS, cf_step, (F.zeros_like(xt), b, c, d, h))
    q_cf = F.mul(front, h)
    p = F.select(use_series, p_series, F.sub(1.0, q_cf))
    q = F.select(use_series, F.sub(1.0, p_series), q_cf)
    zero = F.logical_not(pos)
    return F.select(zero, F.zeros_like(p), p), F.select(zero, F.ones_like(q), q)


_JACOBI_SWEEPS = 12


def _svd(x, full_matrices=False, compute_uv=True):
    """(s, u, v) with x = u diag(s) v^T, s descending: one-sided Jacobi (Hestenes) on
    the columns, a fixed number of sweeps (12: quadratic convergence makes that exact
    to rounding for the small matrices it is meant for) run as a loop over one sweep
    (its n(n-1)/2 rotations unrolled); full_matrices=False only."""
    t = _float(x)
    if t.ndim < 2:
        _b.error(f"Tensor.svd: needs (..., m, n) matrices, got shape {tuple(t.shape)}",
                 kind=ValueError)
    if full_matrices:
        _b.error("Tensor.svd: full_matrices=True is not supported (the reduced SVD only)",
                 kind=ValueError)
    wide = t.shape[-2] < t.shape[-1]
    a = F.swapaxes(t, -1, -2) if wide else t
    n = a.shape[-1]
    cols = [F.squeeze(_col(a, j), -1) for j in range(n)]                 # (..., m) each
    eye = _np.eye(n, dtype=a.dtype.to_numpy())
    vcols = [F.broadcast_to(_const(eye[:, j]), tuple(a.shape[:-2]) + (n,)) for j in range(n)]
    def sweep(*carry):
        cols, vcols = list(carry[:n]), list(carry[n:])
        for p in range(n - 1):
            for q in range(p + 1, n):
                ap, aq = cols[p], cols[q]
                alpha = F.reduce_sum(F.mul(ap, ap), -1, True)
                beta = F.reduce_sum(F.mul(aq, aq), -1, True)
                gamma = F.reduce_sum(F.mul(ap, aq), -1, True)
                small = F.less_equal(F.abs(gamma), F.mul(F.sqrt(F.mul(alpha, beta)), 1e-300
                                                         if a.dtype == _dt.float64 else 1e-37))
                g = F.select(small, F.ones_like(gamma), gamma)
                zeta = F.div(F.sub(beta, alpha), F.mul(g, 2.0))
                sgn = F.select(F.less(zeta, 0.0), F.full_like(zeta, -1.0), F.ones_like(zeta))
                tt = F.div(sgn, F.add(F.abs(zeta), F.sqrt(F.add(F.mul(zeta, zeta), 1.0))))
                c = F.rsqrt(F.add(F.mul(tt, tt), 1.0))
                sn = F.mul(c, tt)
                c = F.select(small, F.ones_like(c), c)
                sn = F.select(small, F.zeros_like(sn), sn)
                cols[p], cols[q] = F.sub(F.mul(ap, c), F.mul(aq, sn)), \
                    F.add(F.mul(ap, sn), F.mul(aq, c))
                vp, vq = vcols[p], vcols[q]
                vcols[p], vcols[q] = F.sub(F.mul(vp, c), F.mul(vq, sn)), \
                    F.add(F.mul(vp, sn), F.mul(vq, c))
        return cols + vcols
    out = _loop(_JACOBI_SWEEPS, sweep, cols + vcols)     # one sweep in the graph, run 12 times
    cols, vcols = out[:n], out[n:]
    sig = F.stack([F.sqrt(F.reduce_sum(F.mul(c_, c_), -1)) for c_ in cols], -1)   # (..., n)
    order = F.argsort(sig, -1, True)
    sig = F.gather_elements(sig, sig.ndim - 1, order)
    if not compute_uv:
        return sig
    u = F.stack(cols, -1)                                                  # (..., m, n)
    v = F.stack(vcols, -1)                                                 # (..., n, n)
    take = lambda m: F.gather_elements(m, m.ndim - 1, F.broadcast_to(     # noqa: E731
        F.expand_dims(order, -2), m.shape))
    u, v = take(u), take(v)
    nz = F.greater(sig, 0.0)
    u = F.div(u, F.expand_dims(F.select(nz, sig, F.ones_like(sig)), -2))
    return (sig, v, u) if wide else (sig, u, v)


from . import sparse as _sparse   # noqa: E402

TENSOR_METHODS.update({
    "to_coo": _sparse.to_coo, "to_csr": _sparse.to_csr,
    "svd": _svd,
    "unique_with_pad": _unique_with_pad, "i0": lambda x: _fn.bessel_i0(x),
    "igamma": lambda x, other: _igamma_pq(x, other)[0],
    "igammac": lambda x, other: _igamma_pq(x, other)[1],
    "unique_consecutive": lambda x, return_idx=False, return_counts=False, axis=None:
        _unique_consecutive(x, return_idx, return_counts, axis),
})

TENSOR_METHODS.update({
    "unfold": _unfold, "fold": _fold, "col2im": _col2im, "median": _median,
    "as_strided": _as_strided, "renorm": _renorm,
    "cummax": lambda x, axis: _cum_extreme(x, axis, True),
    "cummin": lambda x, axis: _cum_extreme(x, axis, False),
    "random_categorical": _random_categorical,
    "bernoulli": lambda x, p=0.5, seed=None: F.bernoulli(x, p, seed),
    "lcm": lambda x, other: mnp.lcm(x, other),
    "det": _det, "matrix_determinant": _det, "slogdet": _slogdet,
    "log_matrix_determinant": _slogdet, "logdet": _logdet, "inverse": _inverse,
    "cholesky": _cholesky, "cholesky_inverse": _cholesky_inverse,
    "lgamma": _lgamma, "digamma": _digamma, "erfinv": _erfinv,
    **{f"scatter_{k}": _scatter_reduce(k) for k in ("mul", "div", "max", "min")},
    "to_tensor": _to_tensor, "flush_from_cache": _flush_from_cache, "itemset": _itemset,
})


# ---------------------------------------------------------------------------
# MindSpore 2.x's additions (issue 12): the in-place methods (`add_`, `masked_fill_`,
# `normal_`, ...), scatters into slices and diagonals, nan-aware reductions and
# quantiles, triangular / Cholesky / LU solves, QR and Householder reflectors
# (geqrf / orgqr / ormqr) unrolled over the static matrix size, random fills, and
# host-side attributes (`stride`, `storage_offset`, `is_pinned`, ...).
#
# The in-place methods: MindSpore documents that its CPU backend runs in-place
# operations in PyNative only, and so do these (inside jit an error at the user's
# line). One computes its out-of-place twin as one compiled kernel and writes the
# result into the tensor's own buffer, in the tensor's dtype.
# ---------------------------------------------------------------------------

from ..frontend.trace import eager_call   # noqa: E402
from . import dynamic as _dyn   # noqa: E402


def _axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


def _err(msg, kind=ValueError):
    _b.error(msg, kind=kind)


# ---- elementwise ------------------------------------------------------------------------

def _frac(x):
    t = _t(x)
    return F.sub(t, F.trunc(t)) if t.dtype.is_float else F.zeros_like(t)


def _mvlgamma(x, p):
    t = _float(x)
    p = int(p)
    if p < 1:
        _err(f"Tensor.mvlgamma: p must be >= 1, got {p}")
    out = F.full_like(t, p * (p - 1) / 4.0 * _math.log(_math.pi))
    for i in range(p):
        out = F.add(out, _lgamma(F.sub(t, i / 2.0)))
    return out


def _bshape(a, b):
    return tuple(_np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))


# ---- reductions, order statistics ---------------------------------------------------------

def _aminmax(x, *, axis=0, keepdims=False):
    t = _t(x)
    if t.ndim == 0:
        return t, t
    return F.reduce_min(t, axis, keepdims), F.reduce_max(t, axis, keepdims)


def _count_nonzero(x, dim=None, *, axis=None, keep_dims=False, dtype=None):
    t = _t(x)
    ax = dim if dim is not None else axis
    ax = () if ax is None else ax
    return F.count_nonzero(t, ax, keep_dims, _dt.int64 if dtype is None else dtype)


def _nansum(x, axis=None, keepdims=False, *, dtype=None, dim=None, keepdim=None):
    axis = dim if dim is not None else axis
    keepdims = keepdim if keepdim is not None else keepdims
    return mnp.nansum(x, axis, dtype, keepdims)


def _kthvalue(x, k, dim=-1, keepdim=False):
    t = _t(x)
    n = t.shape[dim] if t.ndim else 1
    if not 1 <= int(k) <= n:
        _err(f"Tensor.kthvalue: k must be in [1, {n}], got {k}")
    v, i = F.sort(t, dim)
    idx = F.cast(F.fill(_dt.int64, (1,), int(k) - 1), _dt.int32)
    v, i = F.gather(v, idx, dim), F.gather(i, idx, dim)
    if not keepdim:
        v, i = F.squeeze(v, dim), F.squeeze(i, dim)
    return v, F.cast(i, _dt.int64)


def _nan_sorted(x, axis):
    """(sorted values with NaN last, their original indices, count of non-NaN) along axis."""
    t = _t(x)
    nan = F.isnan(t)
    key = F.select(nan, F.full_like(t, _np.inf), t)
    _, idx = F.sort(key, axis)
    vals = F.gather_elements(t, axis, idx)
    nvalid = F.reduce_sum(F.cast(F.logical_not(nan), _dt.int32), axis, True)
    return vals, idx, nvalid


def _nanmedian(x, axis=-1, keepdims=False):
    """The lower median of the non-NaN values along axis (NaN where all are NaN), and
    its index."""
    t = _t(x)
    if t.ndim == 0:
        return t, F.zeros_like(F.cast(t, _dt.int64))
    vals, idx, nvalid = _nan_sorted(t, axis)
    k = F.cast(F.floor_div(F.maximum(F.sub(nvalid, 1), 0), 2), _dt.int32)
    v = F.gather_elements(vals, axis, k)
    i = F.gather_elements(idx, axis, k)
    if not keepdims:
        v, i = F.squeeze(v, axis), F.squeeze(i, axis)
    return v, F.cast(i, _dt.int64)


def _nanquantile(x, q, axis=None, keepdims=False):
    """Linear-interpolated quantiles of the non-NaN values (numpy.nanquantile)."""
    t = _float(x)
    if axis is None:
        t, ax = F.reshape(t, (-1,)), 0
        out_keep = (1,) * len(_t(x).shape)
    else:
        ax = _axis(axis, t.ndim)
    qs = _np.atleast_1d(_np.asarray(q.asnumpy() if hasattr(q, "asnumpy") else q,
                                    dtype=_np.float64))
    if ((qs < 0) | (qs > 1)).any():
        _err("Tensor.nanquantile: q must be in [0, 1]")
    vals, _, nvalid = _nan_sorted(t, ax)
    n1 = F.cast(F.maximum(F.sub(nvalid, 1), 0), t.dtype)
    outs = []
    for qq in qs:
        pos = F.mul(n1, float(qq))
        lo = F.floor(pos)
        frac = F.sub(pos, lo)
        hi = F.minimum(F.add(lo, 1.0), n1)
        vlo = F.gather_elements(vals, ax, F.cast(lo, _dt.int32))
        vhi = F.gather_elements(vals, ax, F.cast(hi, _dt.int32))
        r = F.add(vlo, F.mul(F.sub(vhi, vlo), frac))
        r = F.select(F.equal(nvalid, 0), F.full_like(r, _np.nan), r)
        if axis is None:
            r = F.reshape(r, out_keep) if keepdims else F.reshape(r, ())
        elif not keepdims:
            r = F.squeeze(r, ax)
        outs.append(r)
    scalar_q = _np.ndim(q.asnumpy() if hasattr(q, "asnumpy") else q) == 0
    return outs[0] if scalar_q else F.stack(outs, 0)


def _quantile(x, q, axis=None, keepdims=False):
    qq = q.asnumpy() if hasattr(q, "asnumpy") else q
    return mnp.quantile(_float(x), qq, axis, keepdims)


def _logcumsumexp(x, axis):
    t = _float(x)
    m = F.stop_gradient(F.reduce_max(t, axis, True))
    m = F.select(F.isinf(m), F.zeros_like(m), m)
    return F.add(F.log(F.cumsum(F.exp(F.sub(t, m)), axis)), m)


def _histc(x, bins=100, min=0, max=0):   # noqa: A002 - MindSpore's names
    """Counts of `bins` equal-width bins over [min, max] (the data's range when
    min == max); values outside are ignored, max falls in the last bin."""
    t = _float(x)
    flat = F.reshape(t, (-1,))
    bins = int(bins)
    if bins <= 0:
        _err(f"Tensor.histc: bins must be > 0, got {bins}")
    if float(min) > float(max):
        _err(f"Tensor.histc: min ({min}) must not exceed max ({max})")
    if float(min) == float(max):
        lo, hi = F.reduce_min(flat), F.reduce_max(flat)
        same = F.equal(lo, hi)
        lo = F.select(same, F.sub(lo, 1.0), lo)
        hi = F.select(same, F.add(hi, 1.0), hi)
    else:
        lo, hi = _const(float(min), t.dtype), _const(float(max), t.dtype)
    inside = F.logical_and(F.greater_equal(flat, lo), F.less_equal(flat, hi))
    pos = F.floor(F.mul(F.div(F.sub(flat, lo), F.sub(hi, lo)), float(bins)))
    pos = F.minimum(F.maximum(pos, 0.0), float(bins - 1))
    onehot = F.equal(F.expand_dims(F.cast(pos, _dt.int32), 1),
                     _const(_np.arange(bins, dtype=_np.int32)[None, :]))
    onehot = F.logical_and(onehot, F.expand_dims(inside, 1))
    return F.reduce_sum(F.cast(onehot, t.dtype), 0)


def _cov(x, *, correction=1, fweights=None, aweights=None):
    return mnp.cov(_float(x), ddof=int(correction), fweights=fweights, aweights=aweights)


# ---- scatters into slices / diagonals / masks ------------------------------------------------

def _diag_map(n1, n2, offset):
    """(mask of the (offset) diagonal positions of an n1 x n2 matrix, index along the
    diagonal of each position (0 elsewhere))."""
    i, j = _np.indices((n1, n2))
    mask = (j - i) == offset
    k = _np.where(mask, _np.minimum(i, j), 0)
    return mask, k


def _diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    t, s = _t(x), _t(src)
    nd = t.ndim
    d1, d2 = _axis(dim1, nd), _axis(dim2, nd)
    rest = [a for a in range(nd) if a not in (d1, d2)]
    perm = tuple(rest + [d1, d2])
    tt = F.transpose(t, perm)
    n1, n2 = t.shape[d1], t.shape[d2]
    mask, k = _diag_map(n1, n2, offset)
    length = int(mask.sum())
    if tuple(s.shape) != tuple(tt.shape[:-2]) + (length,):
        _err(f"Tensor.diagonal_scatter: src must have shape "
             f"{tuple(tt.shape[:-2]) + (length,)}, got {tuple(s.shape)}")
    full = F.reshape(F.gather(F.cast(s, t.dtype), _const(k.reshape(-1).astype(_np.int32)),
                              -1 if s.ndim else 0), tuple(tt.shape))
    out = F.select(_const(mask), full, tt)
    inv = tuple(int(v) for v in _np.argsort(perm))
    return F.transpose(out, inv)


def _along(t, axis, index_map, src):
    """t with, along `axis`, position j replaced by src[..., index_map[j], ...] where
    index_map[j] >= 0."""
    ax = _axis(axis, t.ndim)
    n = t.shape[ax]
    m = _np.asarray(index_map)
    sel = m >= 0
    gathered = F.gather(F.cast(_t(src), t.dtype), _const(_np.where(sel, m, 0).astype(_np.int32)),
                        ax)
    shape = [1] * t.ndim
    shape[ax] = n
    return F.select(_const(sel.reshape(shape)), gathered, t)


def _slice_scatter(x, src, axis=0, start=None, end=None, step=1):
    t, s = _t(x), _t(src)
    ax = _axis(axis, t.ndim)
    pos = list(range(t.shape[ax]))[slice(start, end, step)]
    want = tuple(t.shape[:ax]) + (len(pos),) + tuple(t.shape[ax + 1:])
    if tuple(s.shape) != want:
        _err(f"Tensor.slice_scatter: src must have shape {want}, got {tuple(s.shape)}")
    m = -_np.ones(t.shape[ax], _np.int64)
    m[pos] = _np.arange(len(pos))
    return _along(t, ax, m, s)


def _select_scatter(x, src, axis, index):
    t, s = _t(x), _t(src)
    ax = _axis(axis, t.ndim)
    idx = int(index) + (t.shape[ax] if int(index) < 0 else 0)
    if not 0 <= idx < t.shape[ax]:
        _err(f"Tensor.select_scatter: index {index} out of range for dim {axis} of size "
             f"{t.shape[ax]}", IndexError)
    want = tuple(t.shape[:ax]) + tuple(t.shape[ax + 1:])
    if tuple(s.shape) != want:
        _err(f"Tensor.select_scatter: src must have shape {want}, got {tuple(s.shape)}")
    m = -_np.ones(t.shape[ax], _np.int64)
    m[idx] = 0
    return _along(t, ax, m, F.expand_dims(s, ax))


def _masked_scatter(x, mask, source):
    """The elements of `source` (in row-major order) written where the broadcast mask is
    True."""
    t = _t(x)
    m = F.broadcast_to(_t(mask), tuple(t.shape))
    if m.dtype != _dt.bool_:
        _err(f"Tensor.masked_scatter: mask must be bool, got {m.dtype}", TypeError)
    flat_m = F.reshape(m, (-1,))
    pos = F.sub(F.cumsum(F.cast(flat_m, _dt.int32), 0), 1)
    src = F.reshape(F.cast(_t(source), t.dtype), (-1,))
    n = int(_np.prod(_t(source).shape, dtype=_np.int64))
    pos = F.minimum(F.maximum(pos, 0), max(n - 1, 0))
    vals = F.reshape(F.gather(src, pos, 0), tuple(t.shape))
    return F.select(m, vals, t)


def _index_along(x, dim, index, values, mode):
    """x with the slices at `index` (1-D) along dim replaced by / added to `values`."""
    t = _t(x)
    ax = _axis(dim, t.ndim)
    perm = (ax,) + tuple(a for a in range(t.ndim) if a != ax)
    tt = F.transpose(t, perm) if ax else t
    v = F.cast(_t(values), t.dtype)
    v = F.transpose(v, perm) if ax else v
    idx = F.reshape(F.cast(_t(index), _dt.int32), (-1, 1))
    idx = F.select(F.less(idx, 0), F.add(idx, t.shape[ax]), idx)
    op = F.tensor_scatter_add if mode == "add" else F.tensor_scatter_update
    out = op(tt, idx, v)
    inv = tuple(int(v) for v in _np.argsort(perm))
    return F.transpose(out, inv) if ax else out


def _index_put(x, indices, values, accumulate=False):
    t = _t(x)
    idx = [F.cast(_t(i), _dt.int32) for i in indices]
    if not idx or len(idx) > t.ndim:
        _err(f"Tensor.index_put: between 1 and {t.ndim} index tensors expected, got "
             f"{len(idx)}")
    shape = tuple(_np.broadcast_shapes(*(tuple(i.shape) for i in idx)))
    idx = [F.broadcast_to(i, shape) for i in idx]
    idx = [F.select(F.less(i, 0), F.add(i, t.shape[d]), i) for d, i in enumerate(idx)]
    stacked = F.stack(idx, -1)
    v = F.broadcast_to(F.cast(_t(values), t.dtype), shape + tuple(t.shape[len(idx):]))
    op = F.tensor_scatter_add if accumulate else F.tensor_scatter_update
    return op(t, stacked, v)


def _put(x, index, source, accumulate=False):
    t = _t(x)
    flat = F.reshape(t, (-1,))
    i = F.reshape(F.cast(_t(index), _dt.int32), (-1, 1))
    i = F.select(F.less(i, 0), F.add(i, int(_np.prod(t.shape, dtype=_np.int64))), i)
    s = F.reshape(F.cast(_t(source), t.dtype), (-1,))
    op = F.tensor_scatter_add if accumulate else F.tensor_scatter_update
    return F.reshape(op(flat, i, s), tuple(t.shape))


def _scatter(x, dim, index, src=None, *, value=None, reduce=None):
    """MindSpore's Tensor.scatter(_): src (a Tensor of index's shape, or a scalar value)
    written (or, reduce='add', added) at index along dim."""
    t = _t(x)
    idx = F.cast(_t(index), _dt.int32)
    s = src if src is not None else value
    if hasattr(s, "shape") and len(s.shape):
        s = F.cast(_t(s), t.dtype)
        if tuple(s.shape) != tuple(idx.shape):
            _err(f"Tensor.scatter: src must have index's shape {tuple(idx.shape)}, got "
                 f"{tuple(s.shape)}")
    else:
        s = F.broadcast_to(F.cast(_t(s), t.dtype), tuple(idx.shape))
    red = {None: "none", "add": "add"}.get(reduce)
    if red is None:
        _err(f"Tensor.scatter: reduce must be None or 'add' (msmlir has no 'multiply' "
             f"scatter), got {reduce!r}")
    return F.tensor_scatter_elements(t, idx, s, _axis(dim, t.ndim), red)


def _fill_diagonal(x, fill_value, wrap=False):
    t = _t(x)
    if t.ndim < 2:
        _err("Tensor.fill_diagonal: the tensor must be at least 2-D")
    if t.ndim > 2 and len(set(t.shape)) != 1:
        _err(f"Tensor.fill_diagonal: all dims must be equal for a {t.ndim}-D tensor, got "
             f"{tuple(t.shape)}")
    mask = _np.zeros(tuple(t.shape), _np.bool_)
    _np.fill_diagonal(mask, True, wrap=bool(wrap))
    return F.select(_const(mask), F.full_like(t, fill_value), t)


# ---- linear algebra by unrolled substitution (n static) ------------------------------------

def _tri_solve(a, b, upper, unit=False):
    """X with A X = B for triangular A (..., n, n), B (..., n, k): substitution
    unrolled over n."""
    n = a.shape[-1]
    rows = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = _row(b, i)
        arow = _row(a, i)                                   # (..., 1, n)
        for j in (range(i + 1, n) if upper else range(i)):
            aij = F.slice(arow, (0,) * (a.ndim - 1) + (j,), tuple(arow.shape[:-1]) + (1,))
            acc = F.sub(acc, F.mul(aij, rows[j]))
        if not unit:
            aii = F.slice(arow, (0,) * (a.ndim - 1) + (i,), tuple(arow.shape[:-1]) + (1,))
            acc = F.div(acc, aii)
        rows[i] = acc
    return F.concat(rows, -2)


def _mT(a):
    return F.swapaxes(a, -1, -2)


def _bcast_batch(a, b):
    batch = tuple(_np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    return (F.broadcast_to(a, batch + tuple(a.shape[-2:])),
            F.broadcast_to(b, batch + tuple(b.shape[-2:])))


def _check_square(a, what):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        _err(f"Tensor.{what}: a square matrix (..., n, n) expected, got {tuple(a.shape)}")


def _triangular_solve(x, A, upper=True, transpose=False, unitriangular=False):
    b, a = _float(x), F.cast(_t(A), _float(x).dtype)
    _check_square(a, "triangular_solve")
    a0 = a
    if transpose:
        a, upper = _mT(a), not upper
    a, b = _bcast_batch(a, b)
    return _tri_solve(a, b, upper, unitriangular), a0


def _cholesky_solve(x, input2, upper=False):
    b, u = _float(x), F.cast(_t(input2), _float(x).dtype)
    _check_square(u, "cholesky_solve")
    u, b = _bcast_batch(u, b)
    if upper:      # A = U^T U
        y = _tri_solve(_mT(u), b, False)
        return _tri_solve(u, y, True)
    y = _tri_solve(u, b, False)          # A = L L^T
    return _tri_solve(_mT(u), y, True)


def _lu_solve(x, LU_data, LU_pivots):
    """X with A X = B from A's LU factorization (LAPACK getrf's packed L\\U and 1-based
    row pivots, MindSpore's / torch's lu_factor layout)."""
    b, lu = _float(x), F.cast(_t(LU_data), _float(x).dtype)
    _check_square(lu, "lu_solve")
    lu, b = _bcast_batch(lu, b)
    n = lu.shape[-1]
    piv = F.sub(F.cast(_t(LU_pivots), _dt.int32), 1)               # (..., n)
    piv = F.broadcast_to(piv, tuple(b.shape[:-2]) + (n,))
    rows = _const(_np.arange(n, dtype=_np.int32).reshape(n, 1))
    for i in range(n):                       # apply the row swaps i <-> piv[i] in order
        p = F.slice(piv, (0,) * (piv.ndim - 1) + (i,), tuple(piv.shape[:-1]) + (1,))
        p = F.expand_dims(p, -1)                                         # (..., 1, 1)
        rp = F.gather_elements(b, b.ndim - 2, F.broadcast_to(
            F.cast(p, _dt.int32), tuple(b.shape[:-2]) + (1, b.shape[-1])))
        ri = _row(b, i)
        b = F.select(F.equal(rows, i), F.broadcast_to(rp, tuple(b.shape)),
                     F.select(F.equal(rows, p), F.broadcast_to(ri, tuple(b.shape)), b))
    y = _tri_solve(lu, b, False, unit=True)
    return _tri_solve(lu, y, True)


def _qr(x, some=True):
    """Q, R by modified Gram-Schmidt unrolled over the columns (R's diagonal >= 0:
    LAPACK's Householder QR may differ in the signs of Q's columns / R's rows)."""
    a = _float(x)
    if a.ndim < 2:
        _err(f"Tensor.qr: a (..., m, n) matrix expected, got {tuple(a.shape)}")
    m, n = a.shape[-2], a.shape[-1]
    if not some and m > n:
        _err("Tensor.qr: some=False (complete Q) is supported for m <= n only")
    k = min(m, n)

    def col(t, j):
        return F.slice(t, (0,) * (t.ndim - 1) + (j,), tuple(t.shape[:-1]) + (1,))
    vs = [col(a, j) for j in range(n)]
    qs, rrows = [], []
    for i in range(k):
        r_ii = F.sqrt(F.reduce_sum(F.mul(vs[i], vs[i]), -2, True))
        q = F.div(vs[i], F.select(F.equal(r_ii, 0), F.ones_like(r_ii), r_ii))
        qs.append(q)
        row = []
        for j in range(n):
            if j < i:
                row.append(F.zeros_like(r_ii))
            elif j == i:
                row.append(r_ii)
            else:
                r_ij = F.reduce_sum(F.mul(q, vs[j]), -2, True)
                vs[j] = F.sub(vs[j], F.mul(r_ij, q))
                row.append(r_ij)
        rrows.append(F.concat(row, -1))
    return F.concat(qs, -1), F.concat(rrows, -2)


def _lstsq(x, A):
    """min ||x y - A|| (m >= n, by QR of x) or the minimum-norm y with x y = A (m < n, by
    QR of x^T): ops.lstsq's full-rank least squares."""
    a, b = _float(x), F.cast(_t(A), _float(x).dtype)
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
        _err(f"Tensor.lstsq: (m, n) and (m, k) matrices expected, got {tuple(a.shape)} and "
             f"{tuple(b.shape)}")
    m, n = a.shape
    if m >= n:
        q, r = _qr(a)
        return _tri_solve(r, F.matmul(_mT(q), b), True)
    q, r = _qr(_mT(a))                                   # x^T = Q R, x = R^T Q^T
    return F.matmul(q, _tri_solve(_mT(r), b, False))


def _householder(a):
    """LAPACK geqrf: R in the upper triangle, the Householder vectors (unit first element
    implied) below it, and tau; reflectors H_j = I - tau_j v_j v_j^T, unrolled over the
    min(m, n) columns (dlarfg's sign convention: beta = -sign(alpha) ||(alpha, x)||)."""
    m, n = a.shape[-2], a.shape[-1]
    rows = _const(_np.arange(m).reshape(m, 1))
    taus = []
    for j in range(min(m, n)):
        col = F.slice(a, (0,) * (a.ndim - 1) + (j,), tuple(a.shape[:-1]) + (1,))   # (.., m, 1)
        below = F.select(F.greater(rows, j), col, F.zeros_like(col))
        alpha = F.slice(col, (0,) * (a.ndim - 2) + (j, 0), tuple(a.shape[:-2]) + (1, 1))
        xnorm2 = F.reduce_sum(F.mul(below, below), -2, True)
        norm = F.sqrt(F.add(F.mul(alpha, alpha), xnorm2))
        sgn = F.select(F.less(alpha, 0), F.full_like(alpha, -1.0), F.ones_like(alpha))
        trivial = F.equal(xnorm2, 0)
        beta = F.select(trivial, alpha, F.mul(F.neg(sgn), norm))
        safe = F.select(trivial, F.ones_like(beta), beta)
        tau = F.select(trivial, F.zeros_like(beta), F.div(F.sub(beta, alpha), safe))
        denom = F.select(trivial, F.ones_like(beta), F.sub(alpha, beta))
        v = F.add(F.div(below, denom), F.cast(F.equal(rows, j), a.dtype))      # v_j = 1
        # apply H to the trailing columns, then store beta and v in column j
        w = F.reduce_sum(F.mul(v, a), -2, True)                                 # v^T A
        upd = F.sub(a, F.mul(F.mul(tau, v), w))
        cols = _const(_np.arange(n).reshape(1, n))
        a = F.select(F.greater(cols, j), upd, a)
        newcol = F.select(F.equal(rows, j), F.broadcast_to(beta, tuple(col.shape)),
                          F.select(F.greater(rows, j), F.div(below, denom), col))
        a = F.select(F.equal(cols, j), F.broadcast_to(newcol, tuple(a.shape)), a)
        taus.append(F.reshape(tau, tuple(a.shape[:-2]) + (1,)))
    return a, F.concat(taus, -1)


def _geqrf(x):
    a = _float(x)
    if a.ndim < 2:
        _err(f"Tensor.geqrf: a (..., m, n) matrix expected, got {tuple(a.shape)}")
    return _householder(a)


def _reflector(h, j):
    """v_j (..., m, 1) of the packed Householder matrix h (unit j-th element)."""
    m = h.shape[-2]
    rows = _const(_np.arange(m).reshape(m, 1))
    col = F.slice(h, (0,) * (h.ndim - 1) + (j,), tuple(h.shape[:-1]) + (1,))
    return F.add(F.select(F.greater(rows, j), col, F.zeros_like(col)),
                 F.cast(F.equal(rows, j), h.dtype))


def _apply_reflectors(h, tau, c, left, transpose):
    """Q c, Q^T c, c Q or c Q^T for Q = H_0 H_1 ... H_{k-1} (the reflectors of h, tau)."""
    k = tau.shape[-1]

    def tau_j(j):
        return F.expand_dims(F.slice(tau, (0,) * (tau.ndim - 1) + (j,),
                                     tuple(tau.shape[:-1]) + (1,)), -1)          # (..., 1, 1)
    forward = transpose if left else not transpose
    for j in (range(k) if forward else range(k - 1, -1, -1)):
        v, t = _reflector(h, j), tau_j(j)
        if left:     # H c = c - tau v (v^T c)
            c = F.sub(c, F.mul(t, F.matmul(v, F.matmul(_mT(v), c))))
        else:        # c H = c - tau (c v) v^T
            c = F.sub(c, F.mul(t, F.matmul(F.matmul(c, v), _mT(v))))
    return c


def _orgqr(x, input2):
    """The first n columns of Q from geqrf's reflectors (LAPACK orgqr)."""
    h, tau = _float(x), F.cast(_t(input2), _float(x).dtype)
    m, n = h.shape[-2], h.shape[-1]
    if m < n:
        _err(f"Tensor.orgqr: m >= n expected, got {tuple(h.shape)}")
    eye = F.broadcast_to(_const(_np.eye(m, n), h.dtype), tuple(h.shape))
    return _apply_reflectors(h, tau, eye, True, False)


def _ormqr(x, input2, input3, left=True, transpose=False):
    h, tau = _float(x), F.cast(_t(input2), _float(x).dtype)
    c = F.cast(_t(input3), h.dtype)
    mn = c.shape[-2] if left else c.shape[-1]
    if h.shape[-2] != mn:
        _err(f"Tensor.ormqr: the reflectors have {h.shape[-2]} rows, the product needs {mn}")
    return _apply_reflectors(h, tau, c, bool(left), bool(transpose))


def _nextafter(x, other):
    """The next float after x toward other: x plus or minus one unit in the last place,
    the unit read from a table of the powers of two (exact, subnormals included)."""
    t = _t(x)
    if t.dtype not in (_dt.float32, _dt.float64):
        _err(f"Tensor.nextafter: float32 or float64 input expected, got {t.dtype}", TypeError)
    o = F.cast(_t(other), t.dtype)
    shape = _bshape(t, o)
    t, o = F.broadcast_to(t, shape), F.broadcast_to(o, shape)
    fi = _np.finfo(t.dtype.to_numpy())
    emin, emax, mant = int(fi.minexp), int(fi.maxexp) - 1, int(fi.nmant)
    npd = t.dtype.to_numpy()
    pow2 = _const(_np.ldexp(_np.ones(emax - emin + 1, npd), _np.arange(emin, emax + 1)), t.dtype)
    ulp = _const(_np.ldexp(_np.ones(emax - emin + 1, npd), _np.arange(emin, emax + 1) - mant),
                 t.dtype)
    a = F.abs(t)
    tiny_a = F.select(F.greater(a, 0), a, F.ones_like(a))
    e = F.floor(F.div(F.log(tiny_a), _math.log(2.0)))
    e = F.minimum(F.maximum(e, float(emin)), float(emax))
    ei = F.cast(F.sub(e, float(emin)), _dt.int32)
    p = F.gather(pow2, F.reshape(ei, (-1,)), 0)
    p = F.reshape(p, shape)
    ei = F.select(F.logical_and(F.greater(p, a), F.greater(ei, 0)), F.sub(ei, 1), ei)
    p = F.reshape(F.gather(pow2, F.reshape(ei, (-1,)), 0), shape)
    ei = F.select(F.logical_and(F.less_equal(F.mul(p, 2.0), a), F.less(ei, emax - emin)),
                  F.add(ei, 1), ei)
    p = F.reshape(F.gather(pow2, F.reshape(ei, (-1,)), 0), shape)
    u = F.reshape(F.gather(ulp, F.reshape(ei, (-1,)), 0), shape)
    toward_zero = F.logical_xor(F.greater(o, t), F.greater(t, 0))
    halve = F.logical_and(toward_zero, F.logical_and(F.equal(a, p), F.greater(ei, 0)))
    u = F.select(halve, F.mul(u, 0.5), u)
    step = F.select(F.greater(o, t), u, F.neg(u))
    out = F.add(t, step)
    smallest = float(fi.smallest_subnormal)
    out = F.select(F.equal(t, 0), F.select(F.greater(o, t), F.full_like(t, smallest),
                                           F.full_like(t, -smallest)), out)
    big = float(fi.max)
    out = F.select(F.isinf(t), F.select(F.greater(t, 0), F.full_like(t, big),
                                        F.full_like(t, -big)), out)
    out = F.select(F.equal(t, o), o, out)
    return F.select(F.logical_or(F.isnan(t), F.isnan(o)), F.add(t, o), out)


# ---- random fills (counter-based RNG: MindSpore's distributions, not its numbers) ----------

def _uniform_like(t, lo=0.0, hi=1.0, seed=None):
    ft = t.dtype if t.dtype.is_float else _dt.float32
    return F.uniform(tuple(t.shape), float(lo), float(hi), seed, ft)


def _uniform(x, from_=0.0, to=1.0, generator=None):
    t = _t(x)
    if float(from_) > float(to):
        _err(f"Tensor.uniform: from_ ({from_}) must not exceed to ({to})")
    return F.cast(_uniform_like(t, from_, to), t.dtype)


def _normal(x, mean=0.0, std=1.0, generator=None):
    t = _t(x)
    if float(std) < 0:
        _err(f"Tensor.normal_: std must be >= 0, got {std}")
    z = F.standard_normal(tuple(t.shape))
    return F.cast(F.add(F.mul(z, float(std)), float(mean)), t.dtype)


def _exponential(x, lambd=1.0, generator=None):
    t = _t(x)
    if float(lambd) <= 0:
        _err(f"Tensor.exponential_: lambd must be > 0, got {lambd}")
    u = _uniform_like(t, 0.0, 1.0)
    return F.cast(F.div(F.neg(F.log(F.sub(1.0, u))), float(lambd)), t.dtype)


def _cauchy(x, median=0.0, sigma=1.0):
    t = _t(x)
    u = _uniform_like(t, 1e-7, 1.0 - 1e-7)
    return F.cast(F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), _math.pi)), float(sigma)),
                        float(median)), t.dtype)


def _log_normal(x, mean=1.0, std=2.0):
    t = _t(x)
    z = F.standard_normal(tuple(t.shape))
    return F.cast(F.exp(F.add(F.mul(z, float(std)), float(mean))), t.dtype)


def _random(x, from_=0, to=None, generator=None):
    """Integers uniform in [from_, to) (to None: up to the largest integer the dtype
    holds exactly, 2^(mantissa bits + 1) for floats), in the tensor's dtype."""
    t = _t(x)
    if to is None:
        d = t.dtype.to_numpy()
        to = (2 ** (_np.finfo(d).nmant + 1) + 1 if t.dtype.is_float else
              int(_np.iinfo(d).max) if t.dtype != _dt.bool_ else 2)
    if int(to) <= int(from_):
        _err(f"Tensor.random_: to ({to}) must be > from_ ({from_})")
    u = F.uniform(tuple(t.shape), 0.0, 1.0, None, _dt.float64)
    r = F.add(F.floor(F.mul(u, float(int(to) - int(from_)))), float(from_))
    return F.cast(F.minimum(r, float(int(to) - 1)), t.dtype)


def _bernoulli_fill(x, p=0.5, *, generator=None):
    t = _t(x)
    u = _uniform_like(t)
    pp = F.cast(_t(p), u.dtype) if hasattr(p, "shape") else float(p)
    return F.cast(F.less(u, pp), t.dtype)


# ---- in-place (PyNative only) ---------------------------------------------------------------

def _inplace(name, fn):
    """Tensor.<name>: fn's result written into the tensor's buffer (its dtype kept)."""
    def method(x, *args, **kwargs):
        if _b.current() is not None:
            _b.error(f"Tensor.{name} changes the tensor in place, which msmlir (like "
                     f"MindSpore's CPU backend) runs in PyNative mode only; inside jit use "
                     f"the out-of-place Tensor.{name.rstrip('_')} or ops.assign on a "
                     f"Parameter", kind=RuntimeError)
        r = _np.asarray(eager_call(fn, (x,) + args, kwargs))   # one compiled kernel
        dst = x._data
        if r.shape != dst.shape:
            try:
                r = _np.broadcast_to(r, dst.shape)
            except ValueError:
                raise ValueError(f"For 'Tensor.{name}', the result's shape {r.shape} does not "
                                 f"match the tensor's {dst.shape}") from None
        if dst.flags.writeable:
            _np.copyto(dst, r, casting="unsafe")
        else:
            x._data = r.astype(dst.dtype)
        return x
    method.__name__ = name
    return method


def _copy_src(x, src, non_blocking=False):
    return F.broadcast_to(F.cast(_t(src), _t(x).dtype), tuple(_t(x).shape))


def _div_mode(x, other, *, rounding_mode=None):
    if rounding_mode is None:
        return F.div(x, other)
    if rounding_mode == "floor":
        return F.floor_div(x, other)
    if rounding_mode == "trunc":
        return F.trunc(F.div(_float(x), other))
    _err(f"Tensor.div_: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


def _host_storage(x):
    raise RuntimeError("For 'Tensor.storage', the tensor's storage is not on Ascend: "
                       "MindSpore provides it on Ascend only (msmlir's tensors live in host "
                       "memory)")


def _stride(x, dim=None):
    shape = tuple(x.shape)
    st = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        st[i] = st[i + 1] * shape[i + 1]
    if dim is None:
        return tuple(st)
    return st[_axis(int(dim), len(shape))]


def _allclose(x, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return F.reduce_all(F.isclose(x, other, rtol, atol, equal_nan))


COMPUTE = {
    "acosh": F.acosh, "sinh": F.sinh, "frac": _frac, "mvlgamma": _mvlgamma,
"fmax": lambda x, other: mnp.fmax(x, other),
    "fmin": lambda x, other: mnp.fmin(x, other), "gcd": lambda x, other: mnp.gcd(x, other),
    "imag": lambda x: F.zeros_like(x), "clone": lambda x: F.add(x, F.zeros_like(x)),
    "allclose": _allclose,
    "aminmax": _aminmax, "count_nonzero": _count_nonzero, "nansum": _nansum,
    "nanmean": lambda x, axis=None, keepdims=False, *, dtype=None: mnp.nanmean(
        x, axis, dtype, keepdims),
    "nanmedian": _nanmedian, "nanquantile": _nanquantile, "quantile": _quantile,
    "kthvalue": _kthvalue, "logcumsumexp": _logcumsumexp, "histc": _histc, "cov": _cov,
    "diff": lambda x, n=1, axis=-1, prepend=None, append=None: mnp.diff(x, n, axis, prepend,
                                                                        append),
    "dot": lambda x, other: F.reduce_sum(F.mul(x, other)),
    "outer": F.outer, "matrix_power": lambda x, n: mnp.matrix_power(x, int(n)),
    "moveaxis": lambda x, source, destination: mnp.moveaxis(x, source, destination),
    "movedim": lambda x, source, destination: mnp.moveaxis(x, source, destination),
    "swapdims": lambda x, dim0, dim1: F.swapaxes(x, dim0, dim1),
    "index_select": lambda x, axis, index: F.gather(x, F.reshape(index, (-1,)), axis),
    "index_put": _index_put, "masked_scatter": _masked_scatter,
    "diagonal_scatter": _diagonal_scatter, "slice_scatter": _slice_scatter,
    "select_scatter": _select_scatter, "scatter": _scatter, "fill_diagonal": _fill_diagonal,
    "new_full": lambda x, size, fill_value, *, dtype=None: F.fill(
        dtype if dtype is not None else x.dtype,
        tuple(size) if isinstance(size, (tuple, list)) else (size,), fill_value),
    "new_empty": lambda x, size, *, dtype=None, device=None: F.fill(
        dtype if dtype is not None else x.dtype,
        tuple(size) if isinstance(size, (tuple, list)) else (size,), 0),
    "multinomial": lambda x, num_samples, replacement=True, seed=None: F.multinomial(
        x, num_samples, replacement, seed),
    "uniform": _uniform, "cauchy": _cauchy, "log_normal": _log_normal,
    "triangular_solve": _triangular_solve, "cholesky_solve": _cholesky_solve,
    "lu_solve": _lu_solve, "qr": _qr, "lstsq": _lstsq, "geqrf": _geqrf, "orgqr": _orgqr,
    "ormqr": _ormqr, "nextafter": _nextafter,
}

_INPLACE_OF = {
    "add_": lambda x, other, *, alpha=1: x.add(F.mul(other, alpha) if alpha != 1 else other),
    "sub_": lambda x, other, *, alpha=1: x.sub(F.mul(other, alpha) if alpha != 1 else other),
    "mul_": lambda x, other: x.mul(other),
    "div_": lambda x, other, *, rounding_mode=None: _div_mode(x, other,
                                                              rounding_mode=rounding_mode),
    "floor_divide_": lambda x, other: x.floor_divide(other),
    "remainder_": lambda x, other: x.remainder(other),
    "addmm_": lambda x, mat1, mat2, *, beta=1, alpha=1: x.addmm(mat1, mat2, beta=beta,
                                                                alpha=alpha),
    "clamp_": lambda x, min=None, max=None: x.clamp(min, max),   # noqa: A006
    "copy_": _copy_src, "exp_": lambda x: x.exp(), "floor_": lambda x: x.floor(),
    "log_": lambda x: x.log(), "erfinv_": lambda x: x.erfinv(),
    "sigmoid_": lambda x: x.sigmoid(), "sign_": lambda x: x.sign(),
    "tanh_": lambda x: x.tanh(), "zero_": lambda x: F.zeros_like(x),
    "fill_": lambda x, value: F.full_like(x, value),
    "fill_diagonal_": lambda x, fill_value, wrap=False: x.fill_diagonal(fill_value, wrap),
    "index_add_": lambda x, dim, index, source, *, alpha=1: _index_along(
        x, dim, index, F.mul(source, alpha) if alpha != 1 else source, "add"),
    "index_copy_": lambda x, dim, index, tensor: _index_along(x, dim, index, tensor, "copy"),
    "index_fill_": lambda x, dim, index, value: x.index_fill(dim, index, value),
    "index_put_": lambda x, indices, values, accumulate=False: x.index_put(indices, values,
                                                                          accumulate),
    "masked_fill_": lambda x, mask, value: x.masked_fill(mask, value),
    "masked_scatter_": lambda x, mask, source: x.masked_scatter(mask, source),
    "put_": _put,
    "scatter_": lambda x, dim, index, src=None, *, value=None, reduce=None: _scatter(
        x, dim, index, src, value=value, reduce=reduce),
    "scatter_add_": lambda x, dim, index, src: _scatter(x, dim, index, src, reduce="add"),
    "bernoulli_": _bernoulli_fill, "exponential_": _exponential, "normal_": _normal,
    "random_": _random, "uniform_": _uniform,
}

INPLACE = {n: _inplace(n, fn) for n, fn in _INPLACE_OF.items()}

PYTHON = {
    "argwhere": lambda x: _dyn.nonzero(x),
    "bfloat16": lambda x: x.astype(_dt.bfloat16), "byte": lambda x: x.astype(_dt.uint8),
    "contiguous": lambda x: x, "is_pinned": lambda x: False, "pin_memory": lambda x: x,
    "move_to": lambda x, to="CPU", blocking=True: x.copy(),
    "storage": _host_storage, "untyped_storage": _host_storage,
    "stride": _stride, "storage_offset": lambda x: 0,
    "type_as": lambda x, other: x.astype(other.dtype),
}

TENSOR_METHODS.update({**COMPUTE, **INPLACE, **PYTHON})
