"""Functional ops that running MindSpore's own CPU tests found missing
(tools/run_mindspore_tests.py): adaptive max pooling, the bilinear dense
product, `cross` and the embedding lookup, composed from msmlir.ops (so they
compile inside jit, run eagerly in PyNative and differentiate through the
composed ops).

Adaptive pooling windows are MindSpore's (and PyTorch's):
[floor(i * in / out), ceil((i + 1) * in / out)); the returned indices are int64
positions in the flattened pooled dims, as MindSpore returns them.
"""
from __future__ import annotations

import builtins as _builtins

from .. import dtype as _dt
from ..frontend import builder as _b
from .. import ops as F   # (imported by ops.functional, after msmlir.ops itself)
from ._base import primitive as _primitive, to_tensor as _t

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "bidense", "cross", "embedding_lookup",
           "pdist", "hinge_embedding_loss", "huber_loss"]


def _windows(n_in, n_out):
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out))
            for i in _builtins.range(n_out)]


def _sizes(output_size, dims, op):
    if isinstance(output_size, int):
        output_size = (output_size,) * len(dims)
    output_size = tuple(output_size)
    if len(output_size) != len(dims):
        _b.error(f"For '{op}', output_size must have {len(dims)} elements, got {output_size}", kind=ValueError)
    out = tuple(d if o is None else int(o) for d, o in zip(dims, output_size))
    if any(o <= 0 for o in out):
        _b.error(f"For '{op}', output_size must be positive, got {output_size}", kind=ValueError)
    return out


def _pool_windows(x, spans, return_indices):
    """Max (and flat argmax) of each window; `spans` lists, per pooled dim (the
    trailing ones), the (start, end) of every window."""
    nd = len(spans)
    lead = x.shape[:-nd]
    dims = x.shape[-nd:]
    values, indices = [], []

    def visit(starts, ends, k):
        if k == nd:
            index = (Ellipsis,) + tuple(_builtins.slice(s, e) for s, e in zip(starts, ends))
            win = F.getitem(x, index)
            flat = F.reshape(win, lead + (-1,))
            values.append(F.reduce_max(flat, -1))
            if return_indices:
                local = F.argmax(flat, -1)
                sizes = [e - s for s, e in zip(starts, ends)]
                pos = None
                rem = local
                for d in _builtins.range(nd):   # local window coords -> global flat index
                    inner = 1
                    for q in sizes[d + 1:]:
                        inner *= q
                    coord = F.floor_div(rem, inner) if inner > 1 else rem
                    rem = F.sub(rem, F.mul(coord, inner)) if inner > 1 else rem
                    stride = 1
                    for q in dims[d + 1:]:
                        stride *= q
                    term = F.mul(F.add(coord, starts[d]), stride)
                    pos = term if pos is None else F.add(pos, term)
                indices.append(F.cast(pos, _dt.int64))
            return
        for s, e in spans[k]:
            visit(starts + [s], ends + [e], k + 1)

    visit([], [], 0)
    out_shape = lead + tuple(len(s) for s in spans)
    out = F.reshape(F.stack(values, -1), out_shape)
    if return_indices:
        return out, F.reshape(F.stack(indices, -1), out_shape)
    return out


@_primitive
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of the last two dims (ops.adaptive_max_pool2d); None in
    output_size keeps that dim."""
    x = _t(input)
    if x.ndim not in (3, 4):
        _b.error(f"For 'adaptive_max_pool2d', input must be 3-D or 4-D, got rank {x.ndim}", kind=ValueError)
    oh, ow = _sizes(output_size, x.shape[-2:], "adaptive_max_pool2d")
    return _pool_windows(x, [_windows(x.shape[-2], oh), _windows(x.shape[-1], ow)],
                         return_indices)


@_primitive
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of the last dim (ops.adaptive_max_pool1d)."""
    x = _t(input)
    if x.ndim not in (2, 3):
        _b.error(f"For 'adaptive_max_pool1d', input must be 2-D or 3-D, got rank {x.ndim}", kind=ValueError)
    (ol,) = _sizes(output_size, x.shape[-1:], "adaptive_max_pool1d")
    return _pool_windows(x, [_windows(x.shape[-1], ol)], return_indices)


@_primitive
def bidense(input1, input2, weight, bias=None):
    """y = input1^T weight input2 + bias (ops.bidense): input1 [..., in1], input2
    [..., in2], weight [out, in1, in2] -> [..., out]."""
    x1, x2, w = _t(input1), _t(input2), _t(weight)
    if w.ndim != 3 or x1.shape[-1] != w.shape[1] or x2.shape[-1] != w.shape[2]:
        _b.error(f"For 'bidense', weight must be [out, {x1.shape[-1]}, {x2.shape[-1]}], "
                 f"got {list(w.shape)}", kind=ValueError)
    if x1.shape[:-1] != x2.shape[:-1]:
        _b.error(f"For 'bidense', input1 and input2 must have the same leading dims, got "
                 f"{list(x1.shape)} and {list(x2.shape)}", kind=ValueError)
    lead = x1.shape[:-1]
    out, in1, in2 = w.shape
    a = F.reshape(x1, (-1, in1))
    b = F.reshape(x2, (-1, 1, in2))
    wm = F.reshape(F.transpose(w, (1, 0, 2)), (in1, out * in2))
    t = F.reshape(F.matmul(a, wm), (-1, out, in2))
    y = F.reduce_sum(F.mul(t, b), -1)
    if bias is not None:
        y = F.add(y, bias)
    return F.reshape(y, lead + (out,))


@_primitive
def cross(input, other, dim=None):
    """Cross product along `dim` (ops.cross); None: the first dim of size 3."""
    x, y = _t(input), _t(other)
    if dim is None:
        dim = next((i for i, d in enumerate(x.shape) if d == 3), None)
        if dim is None:
            _b.error(f"For 'cross', no dim of size 3 in {list(x.shape)}", kind=ValueError)
    d = dim % x.ndim
    if x.shape[d] != 3 or y.shape[d] != 3:
        _b.error(f"For 'cross', dim {dim} must have size 3, got {list(x.shape)} and "
                 f"{list(y.shape)}", kind=ValueError)

    def comp(t, i):
        return F.getitem(t, (_builtins.slice(None),) * d + (i,))

    x0, x1_, x2 = comp(x, 0), comp(x, 1), comp(x, 2)
    y0, y1, y2 = comp(y, 0), comp(y, 1), comp(y, 2)
    return F.stack([F.sub(F.mul(x1_, y2), F.mul(x2, y1)),
                     F.sub(F.mul(x2, y0), F.mul(x0, y2)),
                     F.sub(F.mul(x0, y1), F.mul(x1_, y0))], d)


@_primitive
def embedding_lookup(input_params, input_indices, offset=0):
    """Rows input_params[indices - offset]; an index outside [0, rows) gives a row of
    zeros (MindSpore's EmbeddingLookup on the CPU)."""
    p, idx = _t(input_params), _t(input_indices)
    i = F.sub(idx, offset)
    valid = F.logical_and(F.greater_equal(i, 0), F.less(i, p.shape[0]))
    safe = F.select(valid, i, F.zeros_like(i))
    rows = F.gather(p, safe, 0)
    mask = F.reshape(valid, valid.shape + (1,) * (p.ndim - 1))
    return F.select(F.broadcast_to(mask, rows.shape), rows, F.zeros_like(rows))


@_primitive
def pdist(input, p=2.0):
    """p-norm distances between every pair of rows i < j of input [..., N, M], in row-major
    pair order -> [..., N(N-1)/2] (ops.pdist). The pairs are gathered, not read off a
    full distance matrix, so no sqrt(0) of the diagonal enters the gradient."""
    x = _t(input)
    if x.ndim < 2:
        _b.error(f"For 'pdist', input must be at least 2-D, got rank {x.ndim}", kind=ValueError)
    if p < 0:
        _b.error(f"For 'pdist', p must be >= 0, got {p}", kind=ValueError)
    if not x.dtype.is_float:
        _b.error(f"For 'pdist', input must be a float tensor, got {x.dtype}", kind=TypeError)
    n = x.shape[-2]
    rows_i = [i for i in _builtins.range(n) for j in _builtins.range(i + 1, n)]
    rows_j = [j for i in _builtins.range(n) for j in _builtins.range(i + 1, n)]
    if not rows_i:
        return F.zeros(x.shape[:-2] + (0,), x.dtype)
    axis = x.ndim - 2
    d = F.abs(F.sub(F.gather(x, F.tensor(rows_i, _dt.int32), axis),
                    F.gather(x, F.tensor(rows_j, _dt.int32), axis)))
    if p == 0:
        return F.reduce_sum(F.cast(F.not_equal(d, 0.0), x.dtype), -1)
    if p == float("inf"):
        return F.reduce_max(d, -1)
    if p == 1:
        return F.reduce_sum(d, -1)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.square(d), -1))
    return F.pow(F.reduce_sum(F.pow(d, float(p)), -1), 1.0 / p)


def _reduce(loss, reduction, op):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return F.reduce_mean(loss)
    if reduction == "sum":
        return F.reduce_sum(loss)
    _b.error(f"For '{op}', reduction must be 'none', 'mean' or 'sum', got {reduction!r}",
             kind=ValueError)


@_primitive
def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """x where target is 1, max(0, margin - x) where it is -1 (ops.hinge_embedding_loss)."""
    x, y = _t(inputs), _t(targets)
    loss = F.select(F.equal(y, 1), x, F.zeros_like(x))
    loss = F.add(loss, F.select(F.equal(y, -1), F.maximum(F.sub(margin, x), 0.0),
                                F.zeros_like(x)))
    return _reduce(loss, reduction, "hinge_embedding_loss")


@_primitive
def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 d^2 where |d| < delta, else delta (|d| - delta / 2), d = input - target
    (ops.huber_loss)."""
    if delta <= 0:
        _b.error(f"For 'huber_loss', delta must be positive, got {delta}", kind=ValueError)
    d = F.abs(F.sub(_t(input), _t(target)))
    loss = F.select(F.less(d, delta), F.mul(0.5, F.square(d)),
                    F.mul(delta, F.sub(d, 0.5 * delta)))
    return _reduce(loss, reduction, "huber_loss")
