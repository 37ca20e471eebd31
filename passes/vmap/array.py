"""Batching rules of shape and indexing ops: reshape/flatten/broadcast_to/
transpose/expand_dims/squeeze/slice/strided_slice/pad/tile get the batch dim
prepended to their shape, permutation or index attributes; concat/stack/split
and one_hot shift their axis; gather batches its params (axis shifted) or its
indices (result dim moved to 0).
"""
from __future__ import annotations

from .engine import (VmapError, arr_attr, attrs_of, batched_type, broadcast_to, create, i64, i64s,
                     int_attr, move_axis, no_batched_scalar, norm_axis, reshape, same_op, shape_of)
from .registry import rule


@rule("mindir.reshape")
def _reshape(bt, op, ins, mapping):
    (x, _), = ins
    a = attrs_of(op)
    a["shape"] = i64s([bt.B] + shape_of(op.results[0]))
    return same_op(bt, op, [x], a)


@rule("mindir.flatten")
def _flatten(bt, op, ins, mapping):
    (x, _), = ins
    return [(reshape(x, [bt.B] + shape_of(op.results[0])), 0)]


@rule("mindir.transpose")
def _transpose(bt, op, ins, mapping):
    (x, _), = ins
    a = attrs_of(op)
    a["perm"] = i64s([0] + [p + 1 for p in arr_attr(op, "perm")])
    return same_op(bt, op, [x], a)


@rule("mindir.broadcast_to")
def _broadcast_to(bt, op, ins, mapping):
    (x, _), = ins
    T = shape_of(op.results[0])
    x = bt.align(x, 0, len(T))
    return [(broadcast_to(x, [bt.B] + T), 0)]


@rule("mindir.expand_dims")
def _expand_dims(bt, op, ins, mapping):
    (x, _), = ins
    r = len(shape_of(x)) - 1
    a = attrs_of(op)
    a["axis"] = i64(norm_axis(int_attr(op, "axis", 0), r + 1, "axis", op.location) + 1)
    return same_op(bt, op, [x], a)


@rule("mindir.squeeze")
def _squeeze(bt, op, ins, mapping):
    (x, _), = ins
    s = shape_of(x)[1:]
    axes = arr_attr(op, "axis")
    axes = [i for i, d in enumerate(s) if d == 1] if not axes else \
        [norm_axis(ax, len(s), "axis", op.location) for ax in axes]
    if not axes:
        return [(x, 0)]
    a = attrs_of(op)
    a["axis"] = i64s([ax + 1 for ax in axes])
    return same_op(bt, op, [x], a)


@rule("mindir.slice")
def _slice(bt, op, ins, mapping):
    (x, _), = ins
    a = attrs_of(op)
    a["begin"] = i64s([0] + arr_attr(op, "begin"))
    a["size"] = i64s([bt.B] + arr_attr(op, "size"))
    return same_op(bt, op, [x], a)


@rule("mindir.strided_slice")
def _strided_slice(bt, op, ins, mapping):
    (x, _), = ins
    a = attrs_of(op)
    a["begin"] = i64s([0] + arr_attr(op, "begin"))
    a["end"] = i64s([bt.B] + arr_attr(op, "end"))
    a["strides"] = i64s([1] + arr_attr(op, "strides"))
    return same_op(bt, op, [x], a)


@rule("mindir.pad")
def _pad(bt, op, ins, mapping):
    (x, _), = ins
    a = attrs_of(op)
    a["paddings"] = i64s([0, 0] + arr_attr(op, "paddings"))
    return same_op(bt, op, [x], a)


@rule("mindir.tile")
def _tile(bt, op, ins, mapping):
    (x, _), = ins
    mult = arr_attr(op, "multiples")
    s = shape_of(x)
    r = len(s) - 1
    if len(mult) > r:
        x = reshape(x, [s[0]] + [1] * (len(mult) - r) + s[1:])
    a = attrs_of(op)
    a["multiples"] = i64s([1] + mult)
    return same_op(bt, op, [x], a)


@rule("mindir.concat", "mindir.stack")
def _concat(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    vals = [bt.at0(v, bd) for v, bd in ins]
    r = len(shape_of(op.operands[0]))
    n = r + 1 if op.name == "mindir.stack" else r
    a = attrs_of(op)
    a["axis"] = i64(norm_axis(int_attr(op, "axis", 0), n, "axis", op.location) + 1)
    return same_op(bt, op, vals, a)


@rule("mindir.split")
def _split(bt, op, ins, mapping):
    (x, _), = ins
    r = len(shape_of(x)) - 1
    a = attrs_of(op)
    a["axis"] = i64(norm_axis(int_attr(op, "axis", 0), r, "axis", op.location) + 1)
    return same_op(bt, op, [x], a)


@rule("mindir.gather")
def _gather(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    (p, pbd), (i, ibd) = ins
    r = len(shape_of(op.operands[0]))
    axis = norm_axis(int_attr(op, "axis", 0), r, "axis", op.location)
    if pbd is not None and ibd is None:
        a = attrs_of(op)
        a["axis"] = i64(axis + 1)
        return same_op(bt, op, [p, i], a)
    if pbd is None and ibd is not None:
        t = batched_type(op.results[0].type, bt.B, axis)
        new = create(op.name, [t], [p, i], attrs_of(op), op.location)
        return [(move_axis(new.results[0], axis, 0), 0)]
    raise VmapError("vmap: no batching rule for 'mindir.gather' with both the params and the "
                    "indices batched", op.location)


@rule("mindir.one_hot")
def _one_hot(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    (i, ibd), (on, onbd), (off, offbd) = ins
    if onbd is not None or offbd is not None:
        raise VmapError("vmap: no batching rule for 'mindir.one_hot' with batched on/off values",
                        op.location)
    a = attrs_of(op)
    ax = int_attr(op, "axis", -1)
    if ax != -1:
        a["axis"] = i64(ax + 1)
    return same_op(bt, op, [i, on, off], a)
