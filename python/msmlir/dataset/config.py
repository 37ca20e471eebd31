"""Dataset pipeline configuration (MindSpore's `mindspore.dataset.config`).

* `set_seed(seed)` / `get_seed()`: the seed of the pipeline's random operations
  (samplers, shuffles, random transforms). Without it, the global
  `msmlir.set_seed` seed is used; without either, every iterator shuffles
  differently, except DistributedSampler, whose permutation must agree across
  shards and uses seed 0 then.
* `set_prefetch_size(size)` / `get_prefetch_size()`: rows (or batches) buffered by
  the background producer thread of each iterator (default 16).
* `set_num_parallel_workers(n)` / `get_num_parallel_workers()`: the default
  number of worker threads of `map`, `filter` and `batch` (with per_batch_map)
  when they are not given `num_parallel_workers` (default 8, as MindSpore).
* `set_debug_mode(True)`: every operation runs serially (one worker).
* `set_enable_shared_mem`, `set_enable_autotune`, `set_auto_num_workers`,
  `set_sending_batches`, `set_callback_timeout`, `set_monitor_sampling_interval`,
  `set_numa_enable`, `set_auto_offload`, `set_enable_watchdog`,
  `set_multiprocessing_timeout_interval`: accepted and stored (no effect: msmlir
  has no shared memory, autotuner, device queue or process pool).
"""
from __future__ import annotations

import numbers
import threading

__all__ = ["set_seed", "get_seed", "set_prefetch_size", "get_prefetch_size",
           "set_num_parallel_workers", "get_num_parallel_workers", "set_enable_shared_mem",
           "get_enable_shared_mem", "set_debug_mode", "get_debug_mode"]

_LOCK = threading.Lock()
_DEFAULTS = {"seed": None, "prefetch_size": 16, "num_parallel_workers": 8, "shared_mem": False,
             "debug_mode": False}
_STATE = dict(_DEFAULTS)


def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{name}', the argument must be an int, but got "
                        f"{type(value).__name__}.")
    if not lo <= int(value) <= hi:
        raise ValueError(f"For '{name}', the argument must be in [{lo}, {hi}], but got {value}.")
    return int(value)


def set_seed(seed):
    """Seeds the pipeline's random operations (an int in [0, 2**32 - 1]); like MindSpore,
    also seeds Python's `random` and numpy's global generator (used by Python
    augmentations such as vision.RandomHorizontalFlip)."""
    seed = _check_int("set_seed", seed, 0, 2 ** 32 - 1)
    with _LOCK:
        _STATE["seed"] = seed
    import random

    import numpy as np
    random.seed(seed)
    np.random.seed(seed)


def get_seed():
    """The pipeline seed: the one set here, else the global msmlir seed, else None."""
    with _LOCK:
        s = _STATE["seed"]
    if s is None:
        from ..seed import get_seed as _global
        s = _global()
    return s


def set_prefetch_size(size):
    with _LOCK:
        _STATE["prefetch_size"] = _check_int("set_prefetch_size", size, 1, 2 ** 31 - 1)


def get_prefetch_size():
    with _LOCK:
        return _STATE["prefetch_size"]


def set_num_parallel_workers(num):
    with _LOCK:
        _STATE["num_parallel_workers"] = _check_int("set_num_parallel_workers", num, 1, 1024)


def get_num_parallel_workers():
    with _LOCK:
        return _STATE["num_parallel_workers"]


def set_enable_shared_mem(enable):
    with _LOCK:
        _STATE["shared_mem"] = bool(enable)


def get_enable_shared_mem():
    with _LOCK:
        return _STATE["shared_mem"]


def set_debug_mode(debug_mode_flag=True, debug_hook_list=None):
    """With True, every pipeline operation runs on one thread (MindSpore's debug mode
    also runs serially); `debug_hook_list` is accepted and ignored."""
    if not isinstance(debug_mode_flag, bool):
        raise TypeError(f"For 'set_debug_mode', the argument must be a bool, but got "
                        f"{type(debug_mode_flag).__name__}.")
    with _LOCK:
        _STATE["debug_mode"] = debug_mode_flag


def get_debug_mode():
    with _LOCK:
        return _STATE["debug_mode"]


def _stored(name, default, doc):
    def setter(value):
        with _LOCK:
            _STATE[name] = value
    setter.__name__ = f"set_{name}"
    setter.__doc__ = f"Accepted and stored; {doc}"

    def getter():
        with _LOCK:
            return _STATE.get(name, default)
    getter.__name__ = f"get_{name}"
    _DEFAULTS[name] = default
    _STATE[name] = default
    return setter, getter


set_enable_autotune, get_enable_autotune = _stored("enable_autotune", False,
                                                   "msmlir has no pipeline autotuner.")
set_auto_num_workers, get_auto_num_workers = _stored("auto_num_workers", False,
                                                     "worker counts are the given ones.")
set_sending_batches, get_sending_batches = _stored("sending_batches", 0,
                                                   "msmlir has no device queue.")
set_callback_timeout, get_callback_timeout = _stored("callback_timeout", 60, "no effect.")
set_monitor_sampling_interval, get_monitor_sampling_interval = _stored(
    "monitor_sampling_interval", 1000, "msmlir has no pipeline profiler.")
set_numa_enable, get_numa_enable = _stored("numa_enable", False, "no effect.")
set_auto_offload, get_auto_offload = _stored("auto_offload", False, "no effect.")
set_enable_watchdog, get_enable_watchdog = _stored("enable_watchdog", True, "no effect.")
set_multiprocessing_timeout_interval, get_multiprocessing_timeout_interval = _stored(
    "multiprocessing_timeout_interval", 300, "msmlir uses threads, not processes.")
__all__ += [f"{p}_{n}" for n in ("enable_autotune", "auto_num_workers", "sending_batches",
                                 "callback_timeout", "monitor_sampling_interval", "numa_enable",
                                 "auto_offload", "enable_watchdog",
                                 "multiprocessing_timeout_interval") for p in ("set", "get")]


def _reset():
    """Test helper: forget the dataset seed and restore the defaults."""
    with _LOCK:
        _STATE.clear()
        _STATE.update(_DEFAULTS)
