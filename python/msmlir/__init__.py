"""msmlir: an MLIR-based multi-level deep-learning compiler with a MindSpore-style frontend."""
import importlib

from . import _native  # noqa: F401  (registers the mindir and mskernel dialects)
from . import providers as _providers

__version__ = "0.1.0"

# The public API is imported on first use (PEP 562): `import msmlir` itself only
# loads the dialects, so tools that need just the dialects and passes (ms-opt,
# started once per lit test) skip the frontend, nn, dataset, ...
# name -> (module, attribute; None for the module itself)
_LAZY = {
    # dtypes, ops, jit (msmlir/dtype.py, msmlir/ops, msmlir/frontend)
    "dtype": ("msmlir.dtype", None), "ops": ("msmlir.ops", None),
    **{n: ("msmlir.dtype", n) for n in ("bfloat16", "bool_", "float16", "float32", "float64",
                                        "int8", "int32", "int64")},
    "CompileError": ("msmlir.errors", "CompileError"),
    "FallbackWarning": ("msmlir.frontend.fallback", "FallbackWarning"),
    "HostCallbackError": ("msmlir.runtime.host_callbacks", "HostCallbackError"),
    "jit": ("msmlir.frontend.jit", "jit"),
    "kernel": ("msmlir.kernel", None),      # `@msmlir.kernel` compute definitions
    # MindSpore API independent of autodiff (msmlir/common, dataset, train)
    "common": ("msmlir.common", None), "initializer": ("msmlir.common.initializer", None),
    **{n: ("msmlir.common.context", n) for n in ("GRAPH_MODE", "PYNATIVE_MODE", "get_context",
                                                 "set_context")},
    "Parameter": ("msmlir.common.parameter", "Parameter"),
    "ParameterTuple": ("msmlir.common.parameter", "ParameterTuple"),
    "get_seed": ("msmlir.seed", "get_seed"), "set_seed": ("msmlir.seed", "set_seed"),
    **{n: ("msmlir.common.tensor", n) for n in ("Tensor", "is_tensor", "tensor")},
    "dataset": ("msmlir.dataset", None), "train": ("msmlir.train", None),
    **{n: ("msmlir.train.checkpoint", n) for n in ("load_checkpoint", "load_param_into_net",
                                                   "save_checkpoint")},
    **{n: ("msmlir.train.model_file", n) for n in ("export", "load")},
    # autodiff and function transforms (msmlir/autodiff)
    **{n: ("msmlir.autodiff", n) for n in ("custom_bprop", "grad", "value_and_grad", "vjp",
                                           "vmap")},
    "nn": ("msmlir.nn", None),              # Cell, layers, losses, optimizers
    "numpy": ("msmlir.numpy", None),        # mindspore.numpy-style functions, compiled
}

__all__ = sorted(_LAZY)


def _host_tensor_type():
    from .common.tensor import Tensor
    return Tensor


def _function_transforms():
    from . import autodiff
    return autodiff


# What lower layers use of higher ones, imported on first use (see providers.py):
# msmlir.Tensor (arraylike.py), and msmlir.autodiff, which adds ops.grad & co. to msmlir.ops.
_providers.register("host_tensor_type", _host_tensor_type)
_providers.register("function_transforms", _function_transforms)


def __getattr__(name):
    spec = _LAZY.get(name)
    if spec is None:
        raise AttributeError(f"module 'msmlir' has no attribute {name!r}")
    module = importlib.import_module(spec[0])
    value = module if spec[1] is None else getattr(module, spec[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
