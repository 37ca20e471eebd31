"""Names real MindSpore code imports from mindspore.nn that are helpers rather than
layers (counted in compat/usage_counts.tsv): the optimizer-arguments recorder
`opt_init_args_register`, the old loss base name `_Loss`, the data-parallel wrapper
`_VirtualDatasetCell` and the lazy-initialization scope `no_init_parameters`."""
from __future__ import annotations

import contextlib
import functools
import inspect

from .cell import Cell
from .loss import LossBase

__all__ = ["opt_init_args_register", "_Loss", "_VirtualDatasetCell", "no_init_parameters"]

_Loss = LossBase


def opt_init_args_register(fn):
    """Decorator of an optimizer's __init__ (MindSpore's): records the call's arguments
    as `self.init_args` (without `params`, kept in `self.init_params["params"]`;
    a Tensor learning rate stored as its numpy value), then runs __init__."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self", None)
        if "params" in arguments:
            self.init_params = {"params": arguments.pop("params")}
        if "optimizer" in arguments:
            inner = arguments.pop("optimizer")
            self.init_params = {"params": getattr(inner, "init_params", {}).get("params")}
        lr = arguments.get("learning_rate")
        if hasattr(lr, "asnumpy"):
            arguments["learning_rate"] = lr.asnumpy()
        self.init_args = arguments
        return fn(self, *args, **kwargs)
    return deco


class _VirtualDatasetCell(Cell):
    """Wraps a network for (semi-)auto parallel data input (MindSpore's): msmlir feeds
    each rank its own batch slice before the graph (msmlir.parallel), so the wrapper
    calls the backbone unchanged."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *inputs):
        return self._backbone(*inputs)


@contextlib.contextmanager
def no_init_parameters():
    """MindSpore's lazy-initialization scope (parameters created inside get their data
    at `init_parameters_data`): msmlir fills a Parameter when it is created, so the
    scope changes nothing; kept so code that uses it runs."""
    yield
