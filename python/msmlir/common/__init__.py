"""MindSpore's `mindspore.common`: Tensor, Parameter, initializers, seed, dtypes, context."""
from .. import dtype  # noqa: F401  (mindspore.common.dtype)
from . import initializer  # noqa: F401
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
from .parameter import Parameter, ParameterTuple  # noqa: F401
from ..seed import get_seed, set_seed  # noqa: F401
from .tensor import Tensor, is_tensor  # noqa: F401

__all__ = ["Tensor", "Parameter", "ParameterTuple", "is_tensor", "initializer",
           "set_seed", "get_seed", "set_context", "get_context", "GRAPH_MODE", "PYNATIVE_MODE",
           "dtype", "mutable", "jit", "JitConfig"]

_API = ("mutable", "jit", "JitConfig")   # common.api needs the frontend: imported on first use


def __getattr__(name):
    if name in _API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'msmlir.common' has no attribute {name!r}")
