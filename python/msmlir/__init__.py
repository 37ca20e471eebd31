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
                                        "int8", "int16", "int32", "int64", "uint8", "uint16",
                                        "uint32", "uint64", "complex64", "complex128", "half",
                                        "single", "double", "float_", "int_", "uint",
                                        "complex_", "byte", "short", "intc", "intp",
                                        "ubyte", "ushort", "uintc", "uintp", "dtype_to_nptype", "pytype_to_dtype",
                                        "dtype_to_pytype", "get_py_obj_dtype", "number_type",
                                        "int_type", "uint_type", "float_type", "all_types",
                                        "string", "type_none", "tensor_type")},
    **{n: ("msmlir.errors", n) for n in ("CompileError", "CompileTypeError", "CompileValueError",
                                         "CompileIndexError", "CompileRuntimeError",
                                         "CompileNameError")},
    "FallbackWarning": ("msmlir.frontend.fallback", "FallbackWarning"),
    "HostCallbackError": ("msmlir.runtime.host_callbacks", "HostCallbackError"),
    "jit": ("msmlir.frontend.jit", "jit"),
    "kernel": ("msmlir.kernel", None),      # `@msmlir.kernel` compute definitions
    # MindSpore API independent of autodiff (msmlir/common, dataset, train)
    "common": ("msmlir.common", None), "context": ("msmlir.context", None),
    "log": ("msmlir.log", None),
    **{n: ("msmlir.common.api", n) for n in ("mutable", "jit_class", "ms_function",
                                             "ms_class", "JitConfig", "run_check")},
    **{n: ("msmlir.log", n) for n in ("get_level", "get_log_config")},
    **{n: ("msmlir.train", n) for n in ("Model", "Callback", "LossMonitor", "TimeMonitor",
                                        "RunContext", "CheckpointConfig", "ModelCheckpoint",
                                        "History", "LambdaCallback", "LearningRateScheduler",
                                        "EarlyStopping", "ReduceLROnPlateau",
                                        "FixedLossScaleManager", "DynamicLossScaleManager",
                                        "SummaryRecord", "SummaryCollector")},
    **{n: ("msmlir.context", n) for n in ("ParallelMode", "set_auto_parallel_context",
                                          "get_auto_parallel_context",
                                          "reset_auto_parallel_context", "set_ps_context",
                                          "get_ps_context", "reset_ps_context",
                                          "set_algo_parameters", "get_algo_parameters",
                                          "reset_algo_parameters")}, "initializer": ("msmlir.common.initializer", None),
    **{n: ("msmlir.common.context", n) for n in ("GRAPH_MODE", "PYNATIVE_MODE", "get_context",
                                                 "set_context", "set_device", "STRICT",
                                                 "COMPATIBLE", "LAX")},
    "device_context": ("msmlir.device_context", None),   # per-device settings (2.5+)
    "Parameter": ("msmlir.common.parameter", "Parameter"),
    "ParameterTuple": ("msmlir.common.parameter", "ParameterTuple"),
    "get_seed": ("msmlir.seed", "get_seed"), "set_seed": ("msmlir.seed", "set_seed"),
    **{n: ("msmlir.common.tensor", n) for n in ("Tensor", "is_tensor", "tensor")},
    **{n: ("msmlir.ops.sparse", n) for n in ("COOTensor", "CSRTensor", "RowTensor")},  # host-side
    "dataset": ("msmlir.dataset", None), "train": ("msmlir.train", None),
    "mindrecord": ("msmlir.mindrecord", None),   # FileWriter / FileReader (MindDataset's files)
    "profiler": ("msmlir.profiler", None), "Profiler": ("msmlir.profiler", "Profiler"),
    **{n: ("msmlir.train.checkpoint", n) for n in ("load_checkpoint", "load_param_into_net",
                                                   "save_checkpoint")},
    **{n: ("msmlir.train.model_file", n) for n in ("export", "load")},
    # autodiff and function transforms (msmlir/autodiff)
    **{n: ("msmlir.autodiff", n) for n in ("custom_bprop", "grad", "value_and_grad", "vjp",
                                           "vmap")},
    "nn": ("msmlir.nn", None),              # Cell, layers, losses, optimizers
    # more than one process (MPI): mindspore.communication, ms.shard
    "communication": ("msmlir.communication", None),
    "shard": ("msmlir.parallel", "shard"), "parallel": ("msmlir.parallel", None),
    "Layout": ("msmlir.parallel", "Layout"),
    "amp": ("msmlir.amp", None),            # auto_mixed_precision, build_train_network
    "mint": ("msmlir.mint", None),          # mindspore.mint: torch-style functions
    "numpy": ("msmlir.numpy", None),        # mindspore.numpy-style functions, compiled
}

__all__ = sorted(_LAZY)


def _host_tensor_type():
    from .common.tensor import Tensor
    return Tensor


def _function_transforms():
    from . import autodiff
    return autodiff


def _ops_extensions():
    import importlib as _il

    def lookup(name):
        from .ops import SUBMODULES
        if name in SUBMODULES:
            return _il.import_module(f"msmlir.ops.{name}")
        for mod in ("msmlir.ops.operations", "msmlir.ops.composite", "msmlir.ops.functional",
                    "msmlir.ops.method_twins"):
            m = _il.import_module(mod)
            if name in getattr(m, "__all__", ()):
                return getattr(m, name)
        return None
    return lookup


# What lower layers use of higher ones, imported on first use (see providers.py):
# msmlir.Tensor (arraylike.py), and msmlir.autodiff, which adds ops.grad & co. to msmlir.ops.
_providers.register("host_tensor_type", _host_tensor_type)
_providers.register("function_transforms", _function_transforms)
_providers.register("ops_extensions", _ops_extensions)
_providers.register("tensor_method_extensions",
                    lambda: importlib.import_module("msmlir.ops.tensor_extra").TENSOR_METHODS)


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
