"""Ops whose output shape depends on the data: nonzero, masked_select, unique,
bincount, unique_consecutive, argwhere, intersect1d, setdiff1d.

msmlir compiles statically shaped graphs, so these cannot be compiled: in
PyNative mode (outside jit) they run on the host with numpy on the tensors'
values and return Tensors, as MindSpore's PyNative does; inside jit or a
compiled Cell they stop with an error at the user's line naming the op (JIT
Fallback cannot help: its host calls need their result shapes at compile time).
"""
from __future__ import annotations

import numpy as np

from ..arraylike import as_array, host_wrapper, is_array
import msmlir.frontend.builder as _b

__all__ = ["nonzero", "masked_select", "unique", "bincount", "unique_consecutive", "argwhere",
           "intersect1d", "setdiff1d"]


def _host(name, *tensors):
    """The arguments as numpy arrays in PyNative; inside a compiled graph, an error."""
    if _b.current() is not None:
        _b.error(f"'{name}' has a data-dependent output shape and cannot be compiled "
                 f"(jit / graph mode); call it in PyNative mode, outside the compiled "
                 f"function", kind=RuntimeError)
    out = []
    for t in tensors:
        if not is_array(t, scalars=False):
            raise TypeError(f"For '{name}', the input must be a Tensor, got {type(t).__name__}")
        out.append(as_array(t))
    return out


def _wrap(a):
    w = host_wrapper()
    return np.asarray(a) if w is None else w(np.ascontiguousarray(a))


def nonzero(input, as_tuple=False):   # noqa: A002 - MindSpore's name
    """The indices of the non-zero elements: (N, ndim) int64, or with as_tuple a
    tuple of ndim 1-D int64 tensors (ops.nonzero / Tensor.nonzero)."""
    (x,) = _host("nonzero", input)
    if x.ndim == 0:
        raise ValueError("For 'nonzero', the input must have at least one dimension")
    idx = np.nonzero(x)
    if as_tuple:
        return tuple(_wrap(i.astype(np.int64)) for i in idx)
    return _wrap(np.stack(idx, -1).astype(np.int64).reshape(-1, x.ndim))


def masked_select(input, mask):   # noqa: A002
    """The elements of `input` where the (broadcast) bool `mask` is True, as a 1-D
    tensor (ops.masked_select / Tensor.masked_select)."""
    x, m = _host("masked_select", input, mask)
    if m.dtype != np.bool_:
        raise TypeError(f"For 'masked_select', the mask must be bool, got {m.dtype}")
    try:
        x, m = np.broadcast_arrays(x, m)
    except ValueError:
        raise ValueError(f"For 'masked_select', the shapes {x.shape} and {m.shape} do not "
                         f"broadcast") from None
    return _wrap(x[m])


def unique(input):   # noqa: A002
    """(y, idx): the distinct elements of `input` in the order of their first
    occurrence (MindSpore 2.10's CPU kernel for ops.unique / P.Unique; recorded), and for
    each input element its position in y, int32 in input's shape."""
    (x,) = _host("unique", input)
    y, first, inv = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")          # sorted position -> first-seen rank
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return (_wrap(y[order].astype(x.dtype)),
            _wrap(rank[inv.reshape(-1)].reshape(x.shape).astype(np.int32)))


def unique_sorted(input):   # noqa: A002
    """(y, idx) with y ascending (Tensor.unique, torch-style sorted=True)."""
    (x,) = _host("unique", input)
    y, inv = np.unique(x, return_inverse=True)
    return _wrap(y.astype(x.dtype)), _wrap(inv.reshape(x.shape).astype(np.int32))


def bincount(input, weights=None, minlength=0):   # noqa: A002
    """Counts (or summed weights) of each value 0..max(input) of a 1-D non-negative
    integer tensor, at least `minlength` of them (ops.bincount / Tensor.bincount)."""
    if weights is None:
        (x,) = _host("bincount", input)
        w = None
    else:
        x, w = _host("bincount", input, weights)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise ValueError(f"For 'bincount', the input must be a 1-D integer tensor, got "
                         f"{x.ndim}-D {x.dtype}")
    if x.size and x.min() < 0:
        raise ValueError(f"For 'bincount', the values must be non-negative, got {x.min()}")
    if w is not None and w.shape != x.shape:
        raise ValueError(f"For 'bincount', weights {w.shape} must have the input's shape "
                         f"{x.shape}")
    out = np.bincount(x, w, int(minlength))
    return _wrap(out.astype(w.dtype if w is not None else np.int64))


def unique_consecutive(input, return_idx=False, return_counts=False, axis=None):   # noqa: A002
    """The first element (slice along `axis`; None: of the flattened input) of every run
    of equal consecutive ones; with return_idx each element's run number (int64), with
    return_counts each run's length (int64): output, or (output, idx[, counts])."""
    (x,) = _host("unique_consecutive", input)
    if axis is None:
        flat = x.reshape(-1)
        keep = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else \
            np.zeros(0, bool)
        out = flat[keep]
        idx = (np.cumsum(keep) - 1).reshape(x.shape)
    else:
        a = int(axis)
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"For 'unique_consecutive', axis {axis} is out of range for a "
                             f"{x.ndim}-D input")
        a %= x.ndim
        m = np.moveaxis(x, a, 0).reshape(x.shape[a], -1)
        keep = np.concatenate([[True], (m[1:] != m[:-1]).any(1)])
        out = np.compress(keep, x, a)
        idx = np.cumsum(keep) - 1
    starts = np.flatnonzero(keep)
    counts = np.diff(np.append(starts, keep.size))
    res = [_wrap(out)]
    if return_idx:
        res.append(_wrap(idx.astype(np.int64)))
    if return_counts:
        res.append(_wrap(counts.astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def argwhere(input):   # noqa: A002
    """The indices of the non-zero elements, (N, ndim) int64 (ops.argwhere /
    numpy.argwhere); a 0-d input counts as one element of shape (N, 0)."""
    (x,) = _host("argwhere", input)
    return _wrap(np.argwhere(x).astype(np.int64))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted distinct values in both inputs (flattened), as numpy.intersect1d; with
    return_indices also the first positions in each input (int64)."""
    a, b = _host("intersect1d", ar1, ar2)
    r = np.intersect1d(a, b, assume_unique, return_indices)
    if return_indices:
        return _wrap(r[0]), _wrap(r[1].astype(np.int64)), _wrap(r[2].astype(np.int64))
    return _wrap(r)


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted distinct values of ar1 that are not in ar2 (flattened), as
    numpy.setdiff1d (ar1's order kept with assume_unique=True)."""
    a, b = _host("setdiff1d", ar1, ar2)
    return _wrap(np.setdiff1d(a, b, assume_unique))
