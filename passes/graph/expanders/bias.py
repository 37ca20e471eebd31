"""Expander of bias_add: a broadcasting add (the bias reshaped to [C, 1, ...]
when the channels are not the last dim)."""
from __future__ import annotations

from msmlir.dialects import mindir
from msmlir.passes.autodiff import emit as E

from .registry import case_name, register_expander


@register_expander("mindir.bias_add")
def expand_bias_add(op):
    x, bias = op.operation.operands
    r = E.rank(x)
    fmt = case_name(op, "data_format", "NCHW")
    if fmt == "NCHW":
        channel = 1
    elif fmt == "NHWC":
        channel = r - 1
    else:
        return None
    c = E.shape(bias)[0]
    b = E.reshape(bias, [c] + [1] * (r - 1 - channel))
    return [mindir.add(x, b)]
