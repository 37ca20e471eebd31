"""Expanders of the activation functions: gelu (tanh and erf forms), silu,
sigmoid, softplus, leaky_relu.

Each follows the formula of its lowering (lowering/mindir_to_linalg/
elementwise.py) operation by operation. The lowering computes f16/bf16 in f32
(one extf, the formula, one truncf), so for those types the expansion casts
the input to f32, expands there and casts the result back: every
intermediate is rounded exactly as in the fused lowering.
"""
from __future__ import annotations

import math

from mlir import ir

from msmlir.dialects import mindir
from msmlir.passes.autodiff import emit as E

from .registry import case_name, register_expander


def _in_compute(x, body):
    """body(x) computed in f32 for f16/bf16 inputs (cast in, cast out)."""
    et = E.elem(x)
    if isinstance(et, (ir.F16Type, ir.BF16Type)):
        return E.cast(body(E.cast(x, ir.F32Type.get())), et)
    return body(x)


def _x(op):
    return op.operation.operands[0]


@register_expander("mindir.gelu")
def expand_gelu(op):
    """tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
    none: 0.5 x (1 + erf(x sqrt(1/2)))."""
    approximate = case_name(op, "approximate", "tanh")

    def tanh_form(x):
        x3 = mindir.mul(mindir.mul(x, x), x)
        inner = mindir.mul(E.scalar(math.sqrt(2.0 / math.pi), x),
                           mindir.add(x, mindir.mul(E.scalar(0.044715, x), x3)))
        half_x = mindir.mul(E.scalar(0.5, x), x)
        return mindir.mul(half_x, mindir.add(E.scalar(1.0, x), mindir.tanh(inner)))

    def erf_form(x):
        half_x = mindir.mul(E.scalar(0.5, x), x)
        e = mindir.erf(mindir.mul(x, E.scalar(math.sqrt(0.5), x)))
        return mindir.mul(half_x, mindir.add(E.scalar(1.0, x), e))

    if approximate == "tanh":
        return [_in_compute(_x(op), tanh_form)]
    if approximate == "none":
        return [_in_compute(_x(op), erf_form)]
    return None


def _one_plus_exp_neg(x):
    return mindir.add(E.scalar(1.0, x), mindir.exp(mindir.neg(x)))


@register_expander("mindir.sigmoid")
def expand_sigmoid(op):
    """1 / (1 + exp(-x))."""
    return [_in_compute(_x(op), lambda x: mindir.div(E.scalar(1.0, x), _one_plus_exp_neg(x)))]


@register_expander("mindir.silu")
def expand_silu(op):
    """x / (1 + exp(-x))."""
    return [_in_compute(_x(op), lambda x: mindir.div(x, _one_plus_exp_neg(x)))]


@register_expander("mindir.softplus")
def expand_softplus(op):
    """max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|."""
    def body(x):
        return mindir.add(mindir.maximum(x, E.scalar(0.0, x)),
                          mindir.log1p(mindir.exp(mindir.neg(mindir.abs(x)))))
    return [_in_compute(_x(op), body)]


@register_expander("mindir.leaky_relu")
def expand_leaky_relu(op):
    """x >= 0 ? x : alpha * x (NaN takes the alpha * x branch, which is NaN)."""
    alpha = E.attr(op, "alpha", 0.2)

    def body(x):
        return mindir.select(mindir.greater_equal(x, E.scalar(0.0, x)), x,
                             mindir.mul(E.scalar(alpha, x), x))
    return [_in_compute(_x(op), body)]
