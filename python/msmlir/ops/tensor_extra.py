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
    nonzero as _nonzero, unique as _unique
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


def _i0(x):
    """The modified Bessel function I0: its power series for |x| <= 30 (terms
    ((x/2)^2)^k / (k!)^2, 60 of them), the asymptotic expansion e^|x| / sqrt(2 pi |x|)
    * sum_k ((2k-1)!!)^2 / (k! (8|x|)^k) beyond."""
    t = _float(x)
    ax = F.abs(t)
    small = F.less_equal(ax, 30.0)
    xs = F.select(small, ax, F.zeros_like(ax))
    q = F.mul(F.mul(xs, xs), 0.25)
    term = F.ones_like(t)
    total = F.ones_like(t)
    for k in range(1, 61):
        term = F.div(F.mul(term, q), float(k * k))
        total = F.add(total, term)
    xl = F.select(small, F.full_like(ax, 31.0), ax)
    inv = F.reciprocal(F.mul(xl, 8.0))
    c = F.ones_like(t)
    series = F.ones_like(t)
    for k in range(1, 12):
        c = F.mul(c, F.mul(inv, float((2 * k - 1) ** 2) / k))
        series = F.add(series, c)
    big = F.mul(F.div(F.exp(xl), F.sqrt(F.mul(xl, 2 * _math.pi))), series)
    return F.select(small, total, big)


_IGAMMA_STEPS = 160


def _igamma_pq(a, x):
    """(P, Q): the regularized incomplete gamma functions. The series
    P = e^-x x^a / Γ(a+1) Σ x^n / ((a+1)...(a+n)) where x < a + 1, else Q by Legendre's
    continued fraction (modified Lentz), each a fixed number of steps."""
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
    for _ in range(_IGAMMA_STEPS):
        ap = F.add(ap, 1.0)
        term = F.mul(term, F.div(xt, ap))
        total = F.add(total, term)
    p_series = F.mul(total, front)
    # continued fraction for Q
    tiny = 1e-300 if xt.dtype == _dt.float64 else 1e-30
    b = F.sub(F.add(xs, 1.0), at)
    c = F.full_like(xt, 1.0 / tiny)
    d = F.reciprocal(b)
    h = d
    for i in range(1, _IGAMMA_STEPS + 1):
        an = F.mul(F.neg(float(i)), F.sub(float(i), at))
        b = F.add(b, 2.0)
        d = F.add(F.mul(an, d), b)
        d = F.select(F.less(F.abs(d), tiny), F.full_like(d, tiny), d)
        c = F.add(b, F.div(an, c))
        c = F.select(F.less(F.abs(c), tiny), F.full_like(c, tiny), c)
        d = F.reciprocal(d)
        h = F.mul(h, F.mul(d, c))
    q_cf = F.mul(front, h)
    p = F.select(use_series, p_series, F.sub(1.0, q_cf))
    q = F.select(use_series, F.sub(1.0, p_series), q_cf)
    zero = F.logical_not(pos)
    return F.select(zero, F.zeros_like(p), p), F.select(zero, F.ones_like(q), q)


_JACOBI_SWEEPS = 12


def _svd(x, full_matrices=False, compute_uv=True):
    """(s, u, v) with x = u diag(s) v^T, s descending: one-sided Jacobi (Hestenes) on
    the columns, a fixed number of sweeps (12: quadratic convergence makes that exact
    to rounding for the small matrices it is meant for); full_matrices=False only."""
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
    for _ in range(_JACOBI_SWEEPS):
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
    "unique_with_pad": _unique_with_pad, "i0": _i0,
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
