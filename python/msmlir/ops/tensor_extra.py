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
