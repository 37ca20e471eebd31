"""Expanders: composite mindir ops -> basic mindir ops (MindSpore's graph-kernel
expanders), used by `mindir-expand-composites` (passes/graph/expand_composites.py).

    registry.py    register_expander / get_expander / expandable_ops, case_name
    activation.py  gelu (tanh and erf), silu, sigmoid, softplus, leaky_relu
    softmax.py     softmax, log_softmax, softmax_cross_entropy_with_logits,
                   sparse_softmax_cross_entropy_with_logits
    norm.py        layer_norm, batch_norm (training and inference)
    bias.py        bias_add (NCHW / NHWC)

"Basic" ops are those graph-kernel fusion clusters: elementwise and broadcast
ops, reduce_*, reshape/transpose/broadcast_to, cast, constants (and matmul,
conv). Single elementwise ops (square, reciprocal, rsqrt, exp, tanh, ...) are
basic already and have no rule. Pooling/convolution gradients, dropout (its
counter-based mask), sort, gather have no expansion into basic ops either.
"""
from . import activation, bias, norm, softmax  # noqa: F401  (register the rules)
from .registry import (case_name, expandable_ops, get_expander, register_expander,  # noqa: F401
                       unregister_expander)
