"""MindSpore's backward primitives that its own tests and older scripts call directly
(`from mindspore.ops.operations import _grad_ops as G`; msmlir.compat.alias maps that
module onto `ops.operations`): elementwise derivatives written as in MindSpore, in
its input order -- `(x, dout)` for ACosGrad / AsinGrad / AtanGrad, `(y, dy)` (the
forward output) for AcoshGrad / AsinhGrad / SqrtGrad / RsqrtGrad / InvGrad /
SigmoidGrad / TanhGrad, `(dy, x)` for ReluGrad / ReLU6Grad / SoftplusGrad -- and
BiasAddGrad. Checked against MindSpore 2.10's CPU kernels
(test/python/compat/test_grad_primitives.py). msmlir's own autodiff does not use
them: gradients come from the bprop rules in passes/autodiff.
"""
from __future__ import annotations

from ... import ops as F


def _one_minus_square(x):
    return F.sub(1.0, F.square(x))


def _mask(cond, dy):
    return F.where(cond, dy, F.zeros_like(dy))


def bias_add_grad(s, dout):
    rank = len(F.shape(dout))
    channel = rank - 1 if s.data_format == "NHWC" else 1
    axes = tuple(a for a in range(rank) if a != channel)
    return F.reduce_sum(dout, axes) if axes else dout


ROWS = [
    ("ACosGrad", "", lambda s, x, dout: F.neg(F.div(dout, F.sqrt(_one_minus_square(x)))), "math"),
    ("AsinGrad", "", lambda s, x, dout: F.div(dout, F.sqrt(_one_minus_square(x))), "math"),
    ("AtanGrad", "", lambda s, x, dout: F.div(dout, F.add(1.0, F.square(x))), "math"),
    ("AcoshGrad", "", lambda s, y, dy: F.div(dy, F.sinh(y)), "math"),
    ("AsinhGrad", "", lambda s, y, dy: F.div(dy, F.cosh(y)), "math"),
    ("SqrtGrad", "", lambda s, y, dy: F.div(F.mul(dy, 0.5), y), "math"),
    ("RsqrtGrad", "", lambda s, y, dy: F.mul(F.mul(dy, -0.5), F.mul(F.square(y), y)), "math"),
    ("InvGrad", "", lambda s, y, dy: F.neg(F.mul(dy, F.square(y))), "math"),
    ("SigmoidGrad", "", lambda s, y, dy: F.mul(dy, F.mul(y, F.sub(1.0, y))), "math"),
    ("TanhGrad", "", lambda s, y, dy: F.mul(dy, _one_minus_square(y)), "math"),
    ("ReluGrad", "", lambda s, dy, y: _mask(F.greater(y, 0), dy), "nn"),
    ("ReLU6Grad", "", lambda s, dy, x: _mask(F.logical_and(F.greater(x, 0), F.less(x, 6)), dy),
     "nn"),
    ("SoftplusGrad", "", lambda s, dy, x: F.mul(dy, F.sigmoid(x)), "nn"),
    ("BiasAddGrad", "data_format='NCHW'", bias_add_grad, "nn"),
]
