"""`mindspore.ops` functions that are the functional form of a Tensor method msmlir
already has (`ops.diagonal(x, 1)` is `x.diagonal(1)`, as in MindSpore, whose
Tensor methods call these functions): the method itself (called on the input), exposed under
`msmlir.ops` for every such name of MindSpore's functional API (compat/_reference.py)
that msmlir.ops lacked. Found by running MindSpore's own tests
(tools/run_mindspore_tests.py). In-place methods (`x.clamp_()`) are not exposed.

Layer 5 (it reads the Tensor-method table of ops/tensor_extra.py); `msmlir.ops`
finds these names through msmlir/providers.py ("ops_extensions").
"""
from __future__ import annotations

import numpy as _np

from ..compat._reference import NAMES as _NAMES
from .tensor_extra import TENSOR_METHODS as _TM


def _method_call(name):
    """input.<name>(...): the Tensor (eager) or the traced value (jit) picks the
    implementation, as the method call itself does."""
    def twin(input, *args, **kwargs):
        if isinstance(input, _np.ndarray):
            from ..common.tensor import Tensor
            input = Tensor(input)
        return getattr(input, name)(*args, **kwargs)
    twin.__name__ = name
    twin.__doc__ = f"ops.{name}(input, ...) = input.{name}(...) (Tensor.{name})"
    return twin


def _twins():
    from .. import ops
    from ..common.tensor import Tensor
    out = {}
    for name in sorted(_NAMES["ops"]):
        if name.endswith("_") or name.startswith("_") or name in ops.__dict__:
            continue
        for mod in ("msmlir.ops.operations", "msmlir.ops.composite", "msmlir.ops.functional"):
            import importlib
            if name in getattr(importlib.import_module(mod), "__all__", ()):
                break
        else:
            if name in _TM or callable(getattr(Tensor, name, None)):
                out[name] = _method_call(name)
    return out


TWINS = _twins()
globals().update(TWINS)
__all__ = sorted(TWINS)
