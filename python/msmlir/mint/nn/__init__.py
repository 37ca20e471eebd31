"""`mindspore.mint.nn`: the torch-style layers are msmlir.nn's (Linear = Dense with
torch's argument names); `functional` holds the torch-style functions."""
from ... import nn as _nn
from ... import ops as _ops
from . import functional  # noqa: F401

__all__ = ["Linear", "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "Dropout", "Flatten",
           "Identity", "SiLU", "functional"]


class Linear(_nn.Dense):
    """torch-style Linear(in_features, out_features, bias=True)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        kwargs = {}
        if weight_init is not None:
            kwargs["weight_init"] = weight_init
        if bias_init is not None:
            kwargs["bias_init"] = bias_init
        super().__init__(in_features, out_features, has_bias=bias, **kwargs)


ReLU, GELU, Sigmoid, Tanh, SiLU = _nn.ReLU, _nn.GELU, _nn.Sigmoid, _nn.Tanh, _nn.SiLU
Identity = _nn.Identity


class Softmax(_nn.Softmax):
    def __init__(self, dim=None):
        super().__init__(-1 if dim is None else dim)


class Dropout(_nn.Dropout):
    """torch-style Dropout(p=0.5)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=p)


class Flatten(_nn.Cell):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return _ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)
