"""Batching rules of elementwise and broadcasting ops (unary, binary, compare,
select, clamp, cast, stop_gradient, ...) and mindir.depend.

A batched operand of lower per-example rank than the result is reshaped to
[B, 1.., shape], so NumPy broadcasting still pairs the examples.
"""
from __future__ import annotations

from .engine import attrs_of, create, no_batched_scalar, same_op, shape_of
from .registry import rule


_ELEMENTWISE = [
    "neg", "abs", "sign", "square", "relu", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "softplus", "silu", "floor", "ceil",
    "round", "stop_gradient", "leaky_relu", "gelu", "logical_not", "isnan", "isfinite", "cast",
    "zeros_like", "ones_like",
    "add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "select", "clamp",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "bitwise_not",
]


@rule(*[f"mindir.{n}" for n in _ELEMENTWISE])
def _elementwise(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    R = max(len(shape_of(r)) for r in op.results)
    return same_op(bt, op, [bt.align(v, bd, R) for v, bd in ins])


@rule("mindir.depend")
def _depend(bt, op, ins, mapping):
    (v, bd), deps = ins[0], ins[1:]
    new = create(op.name, [v.type], [v] + [d for d, _ in deps], attrs_of(op), op.location)
    return [(new.results[0], bd)]
