"""Activation cells (mindspore.nn.ReLU, GELU, Sigmoid, Tanh, Softmax, HSwish, ELU, PReLU, ...)."""
from __future__ import annotations

import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["ReLU", "ReLU6", "GELU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LeakyReLU",
           "SiLU", "HSwish", "HSigmoid", "ELU", "PReLU", "Hardtanh", "get_activation"]


class ReLU(Cell):
    def construct(self, x):
        return ops.relu(x)


class ReLU6(Cell):
    def construct(self, x):
        return ops.relu6(x)


class Sigmoid(Cell):
    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    def construct(self, x):
        return ops.tanh(x)


class SiLU(Cell):
    def construct(self, x):
        return ops.silu(x)


class GELU(Cell):
    """GELU(approximate=True): MindSpore's default is the tanh approximation."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, approximate=self.approximate)


class LeakyReLU(Cell):
    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class HSwish(Cell):
    """x * relu6(x + 3) / 6."""

    def construct(self, x):
        return ops.hardswish(x)


class HSigmoid(Cell):
    """relu6(x + 3) / 6."""

    def construct(self, x):
        return ops.hardsigmoid(x)


class ELU(Cell):
    """x if x > 0 else alpha * (exp(x) - 1) (computed with expm1)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"For 'ELU', 'alpha' must be a float, got {type(alpha).__name__}.")
        self.alpha = float(alpha)

    def construct(self, x):
        neg = ops.expm1(ops.minimum(x, 0.0))
        if self.alpha != 1.0:
            neg = neg * self.alpha
        return ops.select(x > 0.0, x, neg)


class PReLU(Cell):
    """PReLU(channel=1, w=0.25): x if x > 0 else a[c] * x, a the Parameter 'a' of
    shape (channel,) applied along axis 1. As MindSpore, the slope used is relu(a)
    (so a negative `a` acts as 0 and gets no gradient), and in training writes relu(a)
    back into `a` (before the optimizer's update in the same step)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int) or channel < 1:
            raise ValueError(f"For 'PReLU', 'channel' must be an int >= 1, got {channel!r}.")
        if isinstance(w, (float, np.floating)) and not isinstance(w, bool):
            arr = np.full((channel,), w, np.float32)
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(f"For 'PReLU', 'w' must have {channel} values, got {len(w)}.")
            arr = np.asarray(w, np.float32)
        elif isinstance(w, Tensor):
            if tuple(w.shape) not in ((channel,), (1,)) or not w.dtype.is_float:
                raise ValueError(f"For 'PReLU', a Tensor 'w' must be a float tensor of shape "
                                 f"({channel},) or (1,), got {tuple(w.shape)}.")
            arr = np.asarray(w.asnumpy(), np.float32)
        else:
            raise TypeError(f"For 'PReLU', 'w' must be a float, a list or a Tensor, got "
                            f"{type(w).__name__}.")
        self.channel = channel
        self.w = Parameter(Tensor(arr), name="a")

    def construct(self, x):
        u = ops.relu(self.w)
        if x.ndim >= 2 and self.w.shape[0] > 1:
            slope = ops.reshape(u, (1, self.w.shape[0]) + (1,) * (x.ndim - 2))
        else:
            slope = u
        if self.training:
            ops.assign(self.w, u)
        return ops.select(x > 0.0, x, x * ops.cast(slope, x.dtype))


class Hardtanh(Cell):
    """clamp(x, min_val, max_val) (mindspore.nn.Hardtanh; min_val < max_val)."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        for nm, v in (("min_val", min_val), ("max_val", max_val)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"For 'Hardtanh', '{nm}' must be a number, got {v!r}")
        if not min_val < max_val:
            raise ValueError(f"For 'Hardtanh', 'min_val' ({min_val}) must be less than "
                             f"'max_val' ({max_val})")
        self.min_val = min_val
        self.max_val = max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "gelu": GELU, "sigmoid": Sigmoid, "tanh": Tanh,
                "softmax": Softmax, "logsoftmax": LogSoftmax, "leakyrelu": LeakyReLU, "silu": SiLU,
                "hswish": HSwish, "hsigmoid": HSigmoid, "elu": ELU, "prelu": PReLU,
                "hardtanh": Hardtanh}


def get_activation(name, prim_name=None):
    """An activation cell by name (mindspore.nn.get_activation); None -> None."""
    if name is None:
        return None
    if isinstance(name, Cell):
        return name
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        raise KeyError(f"activation {name!r} is not supported; expected one of "
                       f"{sorted(_ACTIVATIONS)}")
    return _ACTIVATIONS[name.lower()]()
