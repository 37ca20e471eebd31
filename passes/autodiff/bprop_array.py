"""bprops of the shape ops: reshape, transpose, broadcast_to, expand_dims,
squeeze, flatten, slice, strided_slice, concat, split, stack, gather, tile,
pad, sort."""
from __future__ import annotations

import math

import numpy as np

from msmlir.dialects import mindir

from . import emit as E
from .registry import needs_grad, register_bprop as bprop


def _x(op, i=0):
    return op.operation.operands[i]


@bprop("mindir.reshape", "mindir.flatten", "mindir.expand_dims", "mindir.squeeze")
def _reshape(op, d):
    return [E.reshape(d[0], E.shape(_x(op)))] + [None] * (len(op.operation.operands) - 1)


@bprop("mindir.transpose")
def _transpose(op, d):
    perm = E.attr(op, "perm")
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return [E.transpose(d[0], inv)]


@bprop("mindir.broadcast_to")
def _broadcast_to(op, d):
    return [E.sum_to(d[0], E.shape(_x(op)))]


def _pad_dim(g, dim, before, after):
    p = [0] * (2 * E.rank(g))
    p[2 * dim], p[2 * dim + 1] = before, after
    return E.pad(g, p)


@bprop("mindir.slice")
def _slice(op, d):
    x = _x(op)
    xs, ys = E.shape(x), E.shape(op.operation.results[0])
    begin = E.attr(op, "begin")
    p = []
    for b, n, o in zip(begin, xs, ys):
        p += [b, n - b - o]
    return [E.pad(d[0], p)]


@bprop("mindir.pad")
def _pad(op, d):
    x = _x(op)
    p = E.attr(op, "paddings")
    return [E.slice_(d[0], p[0::2], E.shape(x))]


@bprop("mindir.strided_slice")
def _strided_slice(op, d):
    # Per dim: undo a negative stride by reversing, spread the elements `stride`
    # apart (expand_dims + pad + reshape), then pad to the input extent.
    x = _x(op)
    xs, ys = E.shape(x), E.shape(op.operation.results[0])
    begin, strides = E.attr(op, "begin"), E.attr(op, "strides")
    if 0 in ys:
        return [E.zeros_like(x)]
    g = d[0]
    r = len(xs)
    for dim in range(r):
        b, s, n, length = begin[dim], strides[dim], ys[dim], xs[dim]
        if s < 0:
            gb = [0] * r
            ge = list(E.shape(g))
            gs = [1] * r
            gb[dim], ge[dim], gs[dim] = n - 1, -1, -1
            g = mindir.strided_slice(g, gb, ge, gs)
            first, s = b + (n - 1) * s, -s
        else:
            first = b
        keep = n
        if s > 1:
            g = mindir.expand_dims(g, dim + 1)
            g = _pad_dim(g, dim + 1, 0, s - 1)
            gsh = E.shape(g)
            g = E.reshape(g, gsh[:dim] + [n * s] + gsh[dim + 2:])
            keep = min(n * s, length - first)
            if keep < n * s:
                sz = E.shape(g)
                sz[dim] = keep
                g = E.slice_(g, [0] * r, sz)
        g = _pad_dim(g, dim, first, length - first - keep)
    return [g]


@bprop("mindir.concat")
def _concat(op, d):
    inputs = list(op.operation.operands)
    r = E.rank(inputs[0])
    axis = E.norm_axis(E.attr(op, "axis", 0), r)
    out, off = [], 0
    for i, x in enumerate(inputs):
        xs = E.shape(x)
        if needs_grad(i):
            b = [0] * r
            b[axis] = off
            out.append(E.slice_(d[0], b, xs))
        else:
            out.append(None)
        off += xs[axis]
    return out


@bprop("mindir.split")
def _split(op, d):
    results = list(op.operation.results)
    axis = E.attr(op, "axis", 0)
    parts = [g if g is not None else E.zeros_like(y) for g, y in zip(d, results)]
    return [E.concat(parts, axis)]


@bprop("mindir.stack")
def _stack(op, d):
    inputs = list(op.operation.operands)
    r = E.rank(inputs[0]) + 1
    axis = E.norm_axis(E.attr(op, "axis", 0), r)
    out = []
    ys = E.shape(op.operation.results[0])
    for i, x in enumerate(inputs):
        if not needs_grad(i):
            out.append(None)
            continue
        b = [0] * r
        b[axis] = i
        sz = list(ys)
        sz[axis] = 1
        out.append(E.reshape(E.slice_(d[0], b, sz), E.shape(x)))
    return out


@bprop("mindir.gather")
def _gather(op, d):
    # scatter-add as one_hot(indices)^T @ dout, over [pre, n, post] views
    params, indices = op.operation.operands
    ps = E.shape(params)
    a = E.norm_axis(E.attr(op, "axis", 0), len(ps))
    depth = ps[a]
    pre, post = math.prod(ps[:a]), math.prod(ps[a + 1:])
    n = E.numel(indices)
    et = E.elem(params)
    # the indices as the forward reads them: negative ones count from the end,
    # then clamped to [0, depth - 1] (convert-mindir-to-linalg's gather)
    idx = E.reshape(indices, [n])
    zero = E.scalar(0, idx)
    idx = mindir.select(mindir.less(idx, zero), mindir.add(idx, E.scalar(depth, idx)), idx)
    idx = mindir.clamp(idx, zero, E.scalar(depth - 1, idx))
    oh = E.one_hot(idx, depth, et)                                # [n, A]
    g = E.reshape(d[0], [pre, n, post])
    g = E.reshape(E.transpose(g, [1, 0, 2]), [n, pre * post])
    dp = mindir.matmul(oh, g, transpose_a=True, transpose_b=False)  # [A, pre * post]
    dp = E.transpose(E.reshape(dp, [depth, pre, post]), [1, 0, 2])
    return [E.reshape(dp, ps), None]


@bprop("mindir.sort")
def _sort(op, d):
    # values[.., k, ..] = x[.., indices[k], ..]: d(values) goes back to the input
    # positions, dx = take_along_axis(dvalues, inv, axis) with inv the inverse
    # permutation of the indices (inv[indices[k]] = k; a permutation's argsort),
    # done as one gather on the flattened cotangent. The indices carry no gradient.
    if d[0] is None:
        return [None]
    x = _x(op)
    xs = E.shape(x)
    a = E.norm_axis(E.attr(op, "axis", -1), len(xs))
    n, numel = xs[a], math.prod(xs)
    if n == 1 or numel == 0:
        return [d[0]]
    i32 = E.elem(op.operation.results[1])
    inv = mindir.SortOp(op.operation.results[1], axis=E.i64(a)).results[1]
    pre, post = math.prod(xs[:a]), math.prod(xs[a + 1:])
    # flat position of (p, inv, q) in the [pre, n, post] view: (p * n + inv) * post + q
    pos = E.reshape(inv, [pre, n, post])
    if post > 1:
        pos = mindir.add(mindir.mul(pos, E.scalar(post, i32)),
                         E.constant(np.arange(post).reshape(1, 1, post), i32))
    if pre > 1:
        pos = mindir.add(pos, E.constant((np.arange(pre) * (n * post)).reshape(pre, 1, 1), i32))
    g = mindir.GatherOp(E.reshape(d[0], [numel]), E.reshape(pos, [numel]), axis=E.i64(0)).result
    return [E.reshape(g, xs)]


@bprop("mindir.tile")
def _tile(op, d):
    x = _x(op)
    xs = E.shape(x)
    mult = E.attr(op, "multiples")
    xv = [1] * (len(mult) - len(xs)) + xs
    inter = []
    for m, n in zip(mult, xv):
        inter += [m, n]
    g = E.reshape(d[0], inter)
    g = mindir.reduce_sum(g, axes=E.i64s(range(0, 2 * len(mult), 2)), keep_dims=E.boolattr(False))
    return [E.reshape(g, xs)]
