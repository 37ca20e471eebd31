"""Activation cells (mindspore.nn.ReLU, GELU, Sigmoid, Tanh, Softmax, ...)."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["ReLU", "ReLU6", "GELU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LeakyReLU",
           "SiLU", "get_activation"]


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


_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "gelu": GELU, "sigmoid": Sigmoid, "tanh": Tanh,
                "softmax": Softmax, "logsoftmax": LogSoftmax, "leakyrelu": LeakyReLU, "silu": SiLU}


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
