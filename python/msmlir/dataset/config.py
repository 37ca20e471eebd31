"""Dataset pipeline configuration (MindSpore's `mindspore.dataset.config`).

* `set_seed(seed)` / `get_seed()`: the seed of the pipeline's random operations
  (shuffles). Without it, the global `msmlir.set_seed` seed is used; without
  either, every iterator shuffles differently.
* `set_prefetch_size(size)` / `get_prefetch_size()`: rows (or batches) buffered by
  the background producer thread of each iterator (default 16).
* `set_num_parallel_workers(n)` / `get_num_parallel_workers()`: accepted and
  stored; msmlir runs each pipeline in one producer thread.
"""
from __future__ import annotations

import numbers
import threading

__all__ = ["set_seed", "get_seed", "set_prefetch_size", "get_prefetch_size",
           "set_num_parallel_workers", "get_num_parallel_workers", "set_enable_shared_mem",
           "get_enable_shared_mem"]

_LOCK = threading.Lock()
_STATE = {"seed": None, "prefetch_size": 16, "num_parallel_workers": 8, "shared_mem": False}


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
        from ..common.seed import get_seed as _global
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


def _reset():
    """Test helper: forget the dataset seed and restore the defaults."""
    with _LOCK:
        _STATE.update({"seed": None, "prefetch_size": 16, "num_parallel_workers": 8,
                       "shared_mem": False})
