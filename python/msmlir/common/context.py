"""Execution context (MindSpore's `set_context` / `get_context`).

`mode` is `GRAPH_MODE` (0: networks are compiled whole) or `PYNATIVE_MODE`
(1: ops run one by one, each a cached compiled kernel; the default, as in
MindSpore 2.x). `device_target` is 'CPU' (the default and the only one that
runs today), 'GPU' or 'Ascend'. The other MindSpore keys are accepted and
stored so that scripts run unchanged; consumers read them with `get_context`.
"""
from __future__ import annotations

import os
import threading

from msmlir import compiler
from msmlir.runtime import compile_cache
from msmlir.passes.registry import get_pass, set_option_defaults

# the pipeline's own default (environment), restored by _reset_context
_GRAPH_KERNEL_DEFAULT = get_pass("msmlir-cpu-pipeline").defaults()["graph-kernel"]

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "set_device"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEVICE_TARGETS = ("CPU", "GPU", "Ascend")

# Keys MindSpore 2.x accepts; msmlir interprets `mode`, `device_target`,
# `enable_graph_kernel` (graph-kernel fusion on/off: the msmlir-cpu-pipeline
# option graph-kernel, default on, MSMLIR_GRAPH_KERNEL=0 in the environment
# turns it off) and `save_graphs`/`save_graphs_path` (IR after each stage and
# every kernel, dumped by msmlir.compiler) and `enable_compile_cache`/
# `compile_cache_path` (compiled graphs kept on disk across processes, see
# msmlir/runtime/compile_cache.py; MSMLIR_COMPILE_CACHE=DIR in the environment
# does the same).
_DEFAULTS = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "precompile_only": False,
    "save_graphs": False,
    "save_graphs_path": ".",
    "enable_dump": False,
    "save_dump_path": ".",
    "deterministic": "OFF",
    "print_file_path": "",
    "env_config_path": "",
    "max_device_memory": "1024GB",
    "variable_memory_max_size": "",
    "mempool_block_size": "1GB",
    "enable_graph_kernel": None,      # the pipeline's default (see get_context)
    "graph_kernel_flags": "",
    "enable_reduce_precision": True,
    "check_bprop": False,
    "max_call_depth": 1000,
    "grad_for_scalar": False,
    "enable_compile_cache": False,
    "compile_cache_path": ".",
    "inter_op_parallel_num": 0,
    "runtime_num_threads": 30,
    "disable_format_transform": False,
    "memory_optimize_level": "O0",
    "memory_offload": "OFF",
    "ascend_config": None,
    "jit_syntax_level": 2,
    "jit_config": None,
    "gpu_config": None,
    "aoe_tune_mode": "",
    "aoe_config": None,
    "op_timeout": 1800,
    "pynative_synchronize": False,
    "debug_level": 0,
    "device_memory": None,
    "jit_level": "",
}

_LOCK = threading.Lock()
_CONTEXT = dict(_DEFAULTS)


def set_context(**kwargs):
    """Sets context keys, e.g. `set_context(mode=GRAPH_MODE, device_target="CPU")`.
    Unknown keys raise ValueError, like MindSpore."""
    updates = {}
    if kwargs.get("enable_compile_cache", _CONTEXT["enable_compile_cache"]) is True and (
            "enable_compile_cache" in kwargs or "compile_cache_path" in kwargs):
        # the directory is checked before anything changes (CompileCacheError)
        compile_cache.check_directory(kwargs.get("compile_cache_path",
                                                 _CONTEXT["compile_cache_path"]))
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'context.set_context', the keyword argument {key} is not "
                             f"recognized! For detailed usage of 'set_context', please refer to "
                             f"the MindSpore official website.")
        if key == "mode":
            if isinstance(value, bool) or value not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"For 'set_context', the argument 'mode' should be "
                                 f"context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), "
                                 f"but got {value!r}.")
        elif key == "device_target":
            if not isinstance(value, str):
                raise TypeError(f"For 'set_context', 'device_target' must be a str, got "
                                f"{type(value).__name__}")
            norm = {t.lower(): t for t in _DEVICE_TARGETS}.get(value.lower())
            if norm is None:
                raise ValueError(f"For 'set_context', 'device_target' must be one of "
                                 f"{list(_DEVICE_TARGETS)}, but got {value!r}.")
            value = norm
        elif key == "enable_graph_kernel":
            if not isinstance(value, bool):
                raise TypeError(f"For 'set_context', 'enable_graph_kernel' must be a bool, "
                                f"but got {type(value).__name__}.")
        elif key == "save_graphs":
            if not isinstance(value, (bool, int)) or not 0 <= int(value) <= 3:
                raise ValueError(f"For 'set_context', 'save_graphs' must be a bool or an int "
                                 f"in [0, 3], but got {value!r}.")
        elif key == "enable_compile_cache":
            if not isinstance(value, bool):
                raise TypeError(f"For 'set_context', 'enable_compile_cache' must be a bool, "
                                f"but got {type(value).__name__}.")
        elif key == "compile_cache_path":
            if not isinstance(value, (str, os.PathLike)):
                raise TypeError(f"For 'set_context', 'compile_cache_path' must be a str, "
                                f"but got {type(value).__name__}.")
        elif key == "gpu_config":
            if value is not None and not isinstance(value, dict):
                raise TypeError(f"For 'set_context', 'gpu_config' must be a dict, but got "
                                f"{type(value).__name__}.")
        elif key == "device_id":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4096:
                raise ValueError(f"For 'set_context', 'device_id' must be an int in [0, 4096), "
                                 f"but got {value!r}.")
        updates[key] = value
    with _LOCK:
        _CONTEXT.update(updates)
        _apply(updates)


def _apply(updates: dict) -> None:
    """Hands the keys msmlir interprets to the compiler."""
    if "enable_graph_kernel" in updates:
        set_option_defaults("msmlir-cpu-pipeline",
                            {"graph-kernel": bool(_CONTEXT["enable_graph_kernel"])})
    if "enable_compile_cache" in updates or "compile_cache_path" in updates:
        compile_cache.configure(bool(_CONTEXT["enable_compile_cache"]),
                                _CONTEXT["compile_cache_path"])
    if "device_target" in updates:
        compiler.set_device_target(_CONTEXT["device_target"])
    if "gpu_config" in updates:      # MindSpore's matmul_allow_tf32 (default off): TF32 MMA
        cfg = _CONTEXT["gpu_config"] or {}
        set_option_defaults("msmlir-gpu-pipeline",
                            {"tf32": bool(cfg.get("matmul_allow_tf32", False))})
    if "save_graphs" in updates or "save_graphs_path" in updates:
        compiler.save_graphs(str(_CONTEXT["save_graphs_path"]) if _CONTEXT["save_graphs"]
                             else None)


def set_device(device_target, device_id=None):
    """MindSpore 2.5+'s `set_device`: `set_context(device_target=..., device_id=...)`."""
    set_context(device_target=device_target,
                **({} if device_id is None else {"device_id": device_id}))


def get_context(attr_key):
    """The value of one context key."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"For 'context.get_context', the argument {attr_key} is not "
                         f"recognized!")
    with _LOCK:
        if attr_key == "enable_graph_kernel" and _CONTEXT[attr_key] is None:
            return get_pass("msmlir-cpu-pipeline").defaults()["graph-kernel"]
        return _CONTEXT[attr_key]


def _reset_context():
    """Test helper: restores the defaults."""
    reset_auto_parallel_context()
    with _LOCK:
        changed = {k: v for k, v in _CONTEXT.items() if _DEFAULTS[k] != v}
        _CONTEXT.clear()
        _CONTEXT.update(_DEFAULTS)
        if changed.pop("enable_graph_kernel", None) is not None:
            set_option_defaults("msmlir-cpu-pipeline", {"graph-kernel": _GRAPH_KERNEL_DEFAULT})
        _apply(changed)


# ---------------------------------------------------------------------------
# Auto-parallel context (MindSpore's set_auto_parallel_context & co.), validated
# here and read by the layers above: DATA_PARALLEL makes TrainOneStepCell reduce
# gradients over the MPI ranks (nn/distributed.py); SEMI_AUTO_PARALLEL and
# AUTO_PARALLEL compile jit graphs sharded over the ranks (msmlir.parallel).
# HYBRID_PARALLEL reduces gradients as DATA_PARALLEL does.
# ---------------------------------------------------------------------------

class ParallelMode:
    """MindSpore's parallel modes (strings, as in MindSpore)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_AUTO_PARALLEL_DEFAULTS = {
    "device_num": 1,
    "global_rank": 0,
    "gradients_mean": False,
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "parallel_mode": ParallelMode.STAND_ALONE,
    "search_mode": "recursive_programming",
    "auto_parallel_search_mode": "recursive_programming",
    "parameter_broadcast": False,
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "strategy_ckpt_config": None,
    "full_batch": False,
    "dataset_strategy": "data_parallel",
    "enable_parallel_optimizer": False,
    "parallel_optimizer_config": None,
    "enable_alltoall": False,
    "all_reduce_fusion_config": [],
    "pipeline_stages": 1,
    "pipeline_result_broadcast": False,
    "pipeline_config": None,
    "grad_accumulation_step": 1,
    "comm_fusion": None,
    "auto_pipeline": False,
    "enable_micro_interleaved": False,
}
_AUTO_PARALLEL = dict(_AUTO_PARALLEL_DEFAULTS)


def set_auto_parallel_context(**kwargs):
    """Sets auto-parallel keys (MindSpore's); unknown keys raise ValueError."""
    for key, value in kwargs.items():
        if key not in _AUTO_PARALLEL_DEFAULTS:
            raise ValueError(f"For 'context.set_auto_parallel_context', the keyword argument "
                             f"{key} is not recognized!")
        if key == "parallel_mode" and value not in ParallelMode.MODE_LIST:
            raise ValueError(f"For 'set_auto_parallel_context', 'parallel_mode' must be one of "
                             f"{ParallelMode.MODE_LIST}, but got {value!r}.")
        if key in ("device_num", "global_rank", "pipeline_stages", "grad_accumulation_step") and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"For 'set_auto_parallel_context', '{key}' must be a non-negative "
                             f"int, but got {value!r}.")
    with _LOCK:
        _AUTO_PARALLEL.update(kwargs)
        compiler.set_parallel_mode(_AUTO_PARALLEL["parallel_mode"], _AUTO_PARALLEL["device_num"],
                                   _AUTO_PARALLEL["full_batch"])


def get_auto_parallel_context(attr_key):
    if attr_key not in _AUTO_PARALLEL_DEFAULTS:
        raise ValueError(f"For 'context.get_auto_parallel_context', the argument {attr_key} is "
                         f"not recognized!")
    with _LOCK:
        return _AUTO_PARALLEL[attr_key]


def reset_auto_parallel_context():
    with _LOCK:
        _AUTO_PARALLEL.clear()
        _AUTO_PARALLEL.update(_AUTO_PARALLEL_DEFAULTS)
        compiler.set_parallel_mode(_AUTO_PARALLEL["parallel_mode"], _AUTO_PARALLEL["device_num"],
                                   _AUTO_PARALLEL["full_batch"])


_PS_CONTEXT = {"enable_ps": False}


def set_ps_context(**kwargs):
    _PS_CONTEXT.update(kwargs)


def get_ps_context(attr_key):
    return _PS_CONTEXT.get(attr_key)


def reset_ps_context():
    _PS_CONTEXT.clear()
    _PS_CONTEXT["enable_ps"] = False


_ALGO_DEFAULTS = {"fully_use_devices": True, "elementwise_op_strategy_follow": False,
                  "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_ALGO = dict(_ALGO_DEFAULTS)


def set_algo_parameters(**kwargs):
    """Sets the parallel strategy-search parameters (stored for the distributed work)."""
    for k in kwargs:
        if k not in _ALGO_DEFAULTS:
            raise ValueError(f"For 'set_algo_parameters', the keyword argument {k} is not "
                             f"recognized!")
    _ALGO.update(kwargs)


def get_algo_parameters(attr_key):
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"For 'get_algo_parameters', the argument {attr_key} is not "
                         f"recognized!")
    return _ALGO[attr_key]


def reset_algo_parameters():
    _ALGO.clear()
    _ALGO.update(_ALGO_DEFAULTS)


# jit_syntax_level values (MindSpore 2.x)
STRICT, COMPATIBLE, LAX = 0, 1, 2

__all__ += ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
            "reset_auto_parallel_context", "set_ps_context", "get_ps_context", "reset_ps_context",
            "STRICT", "COMPATIBLE", "LAX", "set_algo_parameters", "get_algo_parameters",
            "reset_algo_parameters"]
