"""The random generator of the random transforms (RandomCrop, RandomHorizontalFlip, ...).

Inside a pipeline, every row that a map (or a batch's per_batch_map, or a
random-access source) processes gets its own numpy Generator, seeded with
(pipeline seed, node, pass, row number). A random transform draws from the
generator of the row it is processing, so its result does not depend on which
worker thread runs it or in which order the workers finish: a map with
num_parallel_workers=N yields exactly what the serial map yields, and the whole
pipeline is reproducible under `ds.config.set_seed` / `msmlir.set_seed`.

Called outside a pipeline (eagerly, ``vision.RandomCrop(8)(img)``), a transform
draws a fresh seed from numpy's global generator (seeded by `set_seed`).
"""
from __future__ import annotations

import threading

import numpy as np

_LOCAL = threading.local()


def generator() -> np.random.Generator:
    """The generator of the row being processed (see the module docstring)."""
    key = getattr(_LOCAL, "key", None)
    if key is None:
        return np.random.default_rng(int(np.random.randint(0, 2 ** 31 - 1)))
    gen = getattr(_LOCAL, "gen", None)
    if gen is None:
        gen = _LOCAL.gen = np.random.default_rng(key)
    return gen


class row_scope:
    """Context manager: the random transforms called inside draw from a generator
    seeded with `key` (a sequence of non-negative ints), created lazily."""

    __slots__ = ("key", "_saved")

    def __init__(self, key):
        self.key = key

    def __enter__(self):
        self._saved = (getattr(_LOCAL, "key", None), getattr(_LOCAL, "gen", None))
        _LOCAL.key = self.key
        _LOCAL.gen = None
        return self

    def __exit__(self, *exc):
        _LOCAL.key, _LOCAL.gen = self._saved
        return False
