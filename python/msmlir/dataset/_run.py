"""The state of one pass over a pipeline: seeds, node positions, pass counts.

Determinism: random operations (samplers, `shuffle`) draw from numpy
Generators seeded with (pipeline seed, node position in the pipeline, pass
number of that node), and the random transforms from a generator per row
(`_random`), so with `config.set_seed` (or `msmlir.set_seed`) every iterator of
the same pipeline yields the same rows in the same order, with any number of
parallel workers, and each epoch / repeat is reshuffled differently.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import config


class Run:
    """The state of one iterator (or one counting pass): the seeds and, per node,
    how many passes it has made (each pass of a shuffling node reshuffles).

    `seed` seeds the random operations; `shard_seed` (the explicit dataset seed, 0
    without one) seeds DistributedSampler shuffles, which all shards must agree on."""

    def __init__(self, root: "Dataset", seed: int, shard_seed: int = 0):
        self.seed = int(seed)
        self.shard_seed = int(shard_seed)
        self.ordinal = {}
        self.passes = {}
        stack = [root]
        while stack:
            n = stack.pop()
            if id(n) not in self.ordinal:
                self.ordinal[id(n)] = len(self.ordinal)
                stack.extend(reversed(n.children))

    @classmethod
    def create(cls, root):
        s = config.get_seed()
        return cls(root, resolve_seed(), 0 if s is None else int(s))

    def next_pass(self, node) -> int:
        """This node's pass number (0, 1, ...), counting this pass."""
        k = id(node)
        p = self.passes.get(k, 0)
        self.passes[k] = p + 1
        return p

    def key(self, node, pass_no):
        """The seed sequence of a node's pass (extended with a row number for per-row
        random transforms)."""
        return [self.seed, self.ordinal.get(id(node), 0), pass_no]

    def rng(self, node) -> np.random.Generator:
        return np.random.default_rng(self.key(node, self.next_pass(node)))


def resolve_seed() -> int:
    s = config.get_seed()
    if s is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    return int(s)


def resolve_workers(num_parallel_workers, what="num_parallel_workers"):
    """num_parallel_workers (None: `config.get_num_parallel_workers()`), validated;
    1 in `config.set_debug_mode(True)`."""
    if num_parallel_workers is None:
        n = config.get_num_parallel_workers()
    else:
        if isinstance(num_parallel_workers, bool) or \
                not isinstance(num_parallel_workers, numbers.Integral):
            raise TypeError(f"{what} must be an int, got {type(num_parallel_workers).__name__}")
        if not 1 <= num_parallel_workers <= 1024:
            raise ValueError(f"{what} must be in [1, 1024], got {num_parallel_workers}")
        n = int(num_parallel_workers)
    return 1 if config.get_debug_mode() else n

