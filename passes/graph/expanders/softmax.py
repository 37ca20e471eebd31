"""Expanders of the softmax family: softmax, log_softmax and the two softmax
cross-entropy losses, as reduce_max / sub / exp / reduce_sum / div (log).

Each follows its lowering (lowering/mindir_to_linalg/nn.py): the max is
subtracted before exp; softmax materializes e = exp(x - max) once and
divides it by its sum; log_softmax is (x - max) - log(sum); the losses are
loss = -sum(labels * log_softmax) and backprop = exp(x - max) / sum - labels.
The statistics keep the reduced axis (keep_dims) so they broadcast back.

f16/bf16 note: the elementwise steps round to the element type as in the
lowering, but the sums are mindir.reduce_sum, which accumulates f16/bf16 in
f32 (the lowering's fused reductions accumulate in the element type), so the
expanded form is at least as accurate, not bitwise equal, on half types.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from msmlir.dialects import mindir
from msmlir.passes.autodiff import emit as E

from .registry import register_expander


# Up to this many classes the iota is a dense constant, beyond an arange.
_CONSTANT_IOTA = 1 << 16


def _keep(axis):
    return dict(axes=E.i64s([axis]), keep_dims=E.boolattr(True))


def _shifted(x, axis):
    """x - max(x) along axis (the max kept as a unit dim)."""
    return mindir.sub(x, mindir.reduce_max(x, **_keep(axis)))


def _axis(op):
    return E.norm_axis(E.attr(op, "axis", -1), E.rank(op.operation.operands[0]))


@register_expander("mindir.softmax")
def expand_softmax(op):
    axis = _axis(op)
    e = mindir.exp(_shifted(op.operation.operands[0], axis))
    return [mindir.div(e, mindir.reduce_sum(e, **_keep(axis)))]


@register_expander("mindir.log_softmax")
def expand_log_softmax(op):
    axis = _axis(op)
    d = _shifted(op.operation.operands[0], axis)
    s = mindir.reduce_sum(mindir.exp(d), **_keep(axis))
    return [mindir.sub(d, mindir.log(s))]


def _cross_entropy(logits, labels):
    """(loss [N], backprop [N, C]) for dense labels [N, C] of the logits' type."""
    d = _shifted(logits, 1)
    e = mindir.exp(d)
    s = mindir.reduce_sum(e, **_keep(1))
    logp = mindir.sub(d, mindir.log(s))
    loss = mindir.neg(mindir.reduce_sum(mindir.mul(labels, logp), axes=E.i64s([1]),
                                        keep_dims=E.boolattr(False)))
    backprop = mindir.sub(mindir.div(e, s), labels)
    return [loss, backprop]


@register_expander("mindir.softmax_cross_entropy_with_logits")
def expand_softmax_cross_entropy(op):
    logits, labels = op.operation.operands
    return _cross_entropy(logits, labels)


@register_expander("mindir.sparse_softmax_cross_entropy_with_logits")
def expand_sparse_softmax_cross_entropy(op):
    """The dense labels are the one-hot of the class indices, built as an
    elementwise compare of the labels [N, 1] against the iota [C] (out-of-range
    labels give a row of zeros, as one_hot), then cast to 0/1: elementwise and
    broadcast ops that fuse with the loss, where mindir.one_hot would not."""
    logits, labels = op.operation.operands
    n, c = E.shape(logits)
    it = E.elem(labels)
    if ir.IntegerType(it).width < 64 and c - 1 >= 2 ** (ir.IntegerType(it).width - 1):
        # an i8 label cannot name class 128 or above: compare in i64 (sign-extended)
        it = ir.IntegerType.get_signless(64)
        labels = E.cast(labels, it)
    if c <= _CONSTANT_IOTA:
        # a constant stays in the host graph (graph-kernel fusion copies small
        # ones into the kernels); an arange would be a kernel of its own
        iota = E.constant(np.arange(c), it)
    else:
        iota = mindir.arange(ir.RankedTensorType.get([c], it), E.f64(0.0), E.f64(float(c)))
    hit = mindir.equal(E.reshape(labels, [n, 1]), iota)
    return _cross_entropy(logits, E.cast(hit, E.elem(logits)))
