"""Global random seed (MindSpore's `mindspore.set_seed` / `get_seed`).

Layer 0 (process state only, no imports): the module builder reads the RNG
counter below while compiling, the initializers and the dataset draw from it.

`set_seed(seed)` fixes every source of randomness that msmlir's Python side
uses: the initializers (`msmlir.common.initializer`), the dataset pipeline
(`msmlir.dataset`, unless `msmlir.dataset.config.set_seed` gives it its own
seed) and, like MindSpore, numpy's legacy global generator
(`np.random.seed`). Without a seed, runs are not reproducible (the generators
are seeded from the operating system).

Internally each consumer asks for its own stream with `generator(purpose)`:
streams for different purposes are independent, and the n-th draw of a given
stream is the same in every run with the same seed.

The compiled random ops (dropout, uniform, normal) are counter-based; their
run-time state is one process-wide counter, `next_rng_offset()`, read once per
execution of a compiled function that draws random numbers (see
`msmlir.frontend.builder.RNG_COUNTER`). `set_seed` restarts it, so the sequence
of random tensors is reproducible; without a seed it starts as for seed 0.
"""
from __future__ import annotations

import numbers
import threading

import numpy as np

__all__ = ["set_seed", "get_seed", "generator"]

_LOCK = threading.Lock()
_SEED: int | None = None
_STREAMS: dict = {}
_RNG_DRAWS = 0      # executions that have read the RNG counter since the last set_seed


def set_seed(seed):
    """Sets the global seed (a non-negative int < 2**32), or None to forget it.

    Also seeds numpy's global generator (`np.random.seed`), as MindSpore does.
    """
    global _SEED, _RNG_DRAWS
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"For 'set_seed', the argument 'seed' must be an int, but got "
                            f"{type(seed).__name__}.")
        seed = int(seed)
        if not 0 <= seed < 2 ** 32:
            raise ValueError(f"For 'set_seed', the argument 'seed' must be in [0, 2**32), but got "
                             f"{seed}.")
    with _LOCK:
        _SEED = seed
        _STREAMS.clear()
        _RNG_DRAWS = 0
    if seed is not None:
        np.random.seed(seed)


def get_seed():
    """The global seed, or None when none was set."""
    return _SEED


def _stable_hash(text: str) -> int:
    """A process-independent hash (Python's str hash is salted per process)."""
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def generator(purpose: str) -> np.random.Generator:
    """The numpy Generator of one stream ('init', 'dataset', ...). With a global
    seed it is derived from (seed, purpose); without one it is seeded from the OS.
    The same Generator is returned until the next `set_seed`."""
    with _LOCK:
        g = _STREAMS.get(purpose)
        if g is None:
            if _SEED is None:
                g = np.random.default_rng()
            else:
                g = np.random.default_rng([_SEED, _stable_hash(purpose)])
            _STREAMS[purpose] = g
        return g


def next_rng_offset() -> int:
    """The next value of the RNG counter of the compiled random ops: an int64
    made of the global seed (high 32 bits; 0 when none) and the number of
    earlier reads since `set_seed` (low 32 bits)."""
    global _RNG_DRAWS
    with _LOCK:
        n = _RNG_DRAWS
        _RNG_DRAWS += 1
        seed = _SEED or 0
    v = ((seed << 32) + n) & 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= 1 << 63 else v
