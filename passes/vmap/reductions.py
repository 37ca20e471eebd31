"""Batching rules of reductions and single-axis ops (reduce_*, argmax/argmin,
softmax/log_softmax, sort): the op along its axes shifted past the batch dim
(`axes = []`, "all", becomes the explicit per-example axes).
"""
from __future__ import annotations

from .engine import (arr_attr, attrs_of, i64, i64s, int_attr, no_batched_scalar, norm_axis, same_op,
                     shape_of)
from .registry import rule


@rule("mindir.reduce_sum", "mindir.reduce_mean", "mindir.reduce_max", "mindir.reduce_min",
      "mindir.reduce_prod")
def _reduce(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    (x, _), = ins
    r = len(shape_of(x)) - 1
    axes = arr_attr(op, "axes")
    if r == 0:            # a reduction of a 0-d tensor: the identity
        return [(x, 0)]
    axes = list(range(r)) if not axes else [norm_axis(a, r, "axis", op.location) for a in axes]
    a = attrs_of(op)
    a["axes"] = i64s([ax + 1 for ax in axes])
    return same_op(bt, op, [x], a)


@rule("mindir.argmax", "mindir.argmin", "mindir.softmax", "mindir.log_softmax", "mindir.sort")
def _axis_op(bt, op, ins, mapping):
    """The op along its shifted axis (every result batched at 0)."""
    no_batched_scalar(op, ins)
    (x, _), = ins
    r = len(shape_of(x)) - 1
    a = attrs_of(op)
    a["axis"] = i64(norm_axis(int_attr(op, "axis", -1), r, "axis", op.location) + 1)
    return same_op(bt, op, [x], a)
