"""Samplers (MindSpore's `mindspore.dataset` samplers): which rows of a random-access
source (`NumpySlicesDataset`, a random-access `GeneratorDataset`, `MnistDataset`) one
pass reads, and in which order.

    sampler = ds.DistributedSampler(num_shards=4, shard_id=rank, shuffle=True)
    data = ds.NumpySlicesDataset(arrays, sampler=sampler)

A sampler is a description: each pass (epoch, repeat) of the source asks it for
a fresh array of indices. Random samplers draw from the pipeline's generator
(seeded by `ds.config.set_seed` / `msmlir.set_seed`, then the source's position
and pass number), so they are deterministic under a seed and reshuffle every
pass. `DistributedSampler` shuffles with a generator that depends only on the
seed (0 when none is set) and the pass number, so every shard of every process
draws the same permutation and the shards partition it, as in MindSpore.

`add_child(sampler)` chains samplers: the child samples the dataset, and this
sampler samples the child's output (MindSpore's semantics).

Any iterable of ints (a list, an array, an object with `__iter__`) is accepted
where a sampler is; `Sampler` is the base class of user-defined samplers
(override `__iter__`; `self.dataset_size` and `self.num_samples` are set before
each pass, `reset()` is called before each pass after the first).
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["BuiltinSampler", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "SubsetSampler", "DistributedSampler",
           "WeightedRandomSampler", "IterSampler"]

_INT64_MAX = 2 ** 63 - 1


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_num_samples(num_samples):
    if num_samples is None:
        return None
    if not _is_int(num_samples):
        raise TypeError(f"num_samples must be an int, but got {type(num_samples).__name__}.")
    if not 0 <= num_samples <= _INT64_MAX:
        raise ValueError(f"num_samples exceeds the boundary between 0 and {_INT64_MAX} "
                         f"(INT64_MAX), got {num_samples}.")
    return int(num_samples) or None          # 0 means all, as in MindSpore


def _check_indices(indices, what):
    if isinstance(indices, (str, bytes)) or not hasattr(indices, "__iter__"):
        raise TypeError(f"{what}: indices must be a sequence of ints, got "
                        f"{type(indices).__name__}.")
    out = []
    for i in indices:
        if not _is_int(i):
            raise TypeError(f"{what}: indices must be ints, got {i!r} "
                            f"({type(i).__name__}).")
        out.append(int(i))
    return np.asarray(out, dtype=np.int64)


def _cap(n, num_samples):
    return n if num_samples is None else min(n, num_samples)


class _SampleContext:
    """What a sampler may use during one pass of its source: the pass's random
    generator (`rng`, per pipeline seed / source / pass) and `shard_rng()`, a generator
    that depends only on the (explicit) seed and the pass number."""

    def __init__(self, rng_factory, shard_seed, pass_no):
        self._factory = rng_factory
        self._rng = None
        self.shard_seed = int(shard_seed)
        self.pass_no = int(pass_no)

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = self._factory()
        return self._rng

    def shard_rng(self) -> np.random.Generator:
        return np.random.default_rng([self.shard_seed, 0x5EED, self.pass_no])


class BuiltinSampler:
    """Base class of the samplers (MindSpore's `BuiltinSampler`)."""

    def __init__(self, num_samples=None):
        self.child_sampler = None
        self.num_samples = _check_num_samples(num_samples)

    # ---- MindSpore API ------------------------------------------------------------
    def add_child(self, sampler):
        """The child samples the dataset first; this sampler then samples the child's
        output (its indices are positions in the child's index list)."""
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError(f"add_child: the child must be a sampler, got "
                            f"{type(sampler).__name__}")
        if sampler is self:
            raise ValueError("add_child: a sampler cannot be its own child")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def get_num_samples(self):
        """num_samples, combined with the child's as MindSpore does (None: all rows)."""
        if self.child_sampler is not None:
            child = self.child_sampler.get_num_samples()
            if self.num_samples is not None:
                return self.num_samples if child is None else min(self.num_samples, child)
            return child
        return self.num_samples

    def is_shuffled(self):
        return self.child_sampler.is_shuffled() if self.child_sampler is not None else False

    def is_sharded(self):
        return self.child_sampler.is_sharded() if self.child_sampler is not None else False

    def parse(self):
        """MindSpore builds a C++ sampler here; msmlir samplers are used directly."""
        return self

    # ---- internal -------------------------------------------------------------------
    def _sample(self, n, ctx) -> np.ndarray:
        """The indices of one pass over a dataset of `n` rows."""
        if self.child_sampler is not None:
            base = np.asarray(self.child_sampler._sample(n, ctx), dtype=np.int64)
            return base[self._own(len(base), ctx)]
        return self._own(n, ctx)

    def _count(self, n):
        """How many indices `_sample(n)` returns (None: unknown without sampling)."""
        if self.child_sampler is not None:
            m = self.child_sampler._count(n)
            return None if m is None else self._own_count(m)
        return self._own_count(n)

    def _own(self, n, ctx) -> np.ndarray:
        raise NotImplementedError

    def _own_count(self, n):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(num_samples={self.num_samples})"


class SequentialSampler(BuiltinSampler):
    """Rows start_index, start_index + 1, ... (at most `num_samples` of them)."""

    def __init__(self, start_index=None, num_samples=None):
        if start_index is not None:
            if not _is_int(start_index):
                raise TypeError(f"start_index must be an int, got {type(start_index).__name__}.")
            if start_index < 0:
                raise ValueError(f"start_index must be non-negative, got {start_index}.")
        self.start_index = 0 if start_index is None else int(start_index)
        super().__init__(num_samples)

    def _own(self, n, ctx):
        if n > 0 and self.start_index >= n:
            raise RuntimeError(f"SequentialSampler: start_index {self.start_index} must be less "
                               f"than the number of rows {n}.")
        return np.arange(self.start_index, self.start_index + self._own_count(n),
                         dtype=np.int64)

    def _own_count(self, n):
        return _cap(max(n - self.start_index, 0), self.num_samples)


class RandomSampler(BuiltinSampler):
    """A random permutation of the rows (first `num_samples` of it), or with
    `replacement` `num_samples` (default: all rows) independent uniform draws."""

    def __init__(self, replacement=False, num_samples=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a bool, got {type(replacement).__name__}.")
        self.replacement = replacement
        super().__init__(num_samples)

    def is_shuffled(self):
        return True

    def _own(self, n, ctx):
        if n == 0:
            return np.zeros(0, np.int64)
        if self.replacement:
            return ctx.rng.integers(0, n, size=self._own_count(n), dtype=np.int64)
        return ctx.rng.permutation(n)[:self._own_count(n)].astype(np.int64)

    def _own_count(self, n):
        if self.replacement:
            return 0 if n == 0 else (n if self.num_samples is None else self.num_samples)
        return _cap(n, self.num_samples)


class SubsetSampler(BuiltinSampler):
    """The given row indices, in order (at most `num_samples` of them)."""

    def __init__(self, indices, num_samples=None):
        self.indices = _check_indices(indices, type(self).__name__)
        super().__init__(num_samples)

    def _own(self, n, ctx):
        idx = self.indices[:self._own_count(n)]
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx[(idx < 0) | (idx >= n)][0]
            raise IndexError(f"{type(self).__name__}: index {bad} is outside the dataset's "
                             f"[0, {n}) rows.")
        return idx

    def _own_count(self, n):
        return _cap(len(self.indices), self.num_samples)


class SubsetRandomSampler(SubsetSampler):
    """The given row indices in a random order (each pass reshuffles)."""

    def is_shuffled(self):
        return True

    def _own(self, n, ctx):
        perm = self.indices[ctx.rng.permutation(len(self.indices))]
        perm = perm[:self._own_count(n)]
        if perm.size and (perm.min() < 0 or perm.max() >= n):
            bad = perm[(perm < 0) | (perm >= n)][0]
            raise IndexError(f"SubsetRandomSampler: index {bad} is outside the dataset's "
                             f"[0, {n}) rows.")
        return perm


class WeightedRandomSampler(BuiltinSampler):
    """`num_samples` (default len(weights)) indices in [0, len(weights)) drawn with
    probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples=None, replacement=True):
        w = np.asarray(list(weights), dtype=np.float64).reshape(-1)
        if w.size == 0 or np.any(w < 0) or not np.any(w > 0) or not np.all(np.isfinite(w)):
            raise ValueError("WeightedRandomSampler: weights must be non-negative, finite and "
                             "not all zero.")
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a bool, got {type(replacement).__name__}.")
        self.weights = w
        self.replacement = replacement
        super().__init__(num_samples)

    def is_shuffled(self):
        return True

    def _own(self, n, ctx):
        k = self._own_count(n)
        if len(self.weights) > n:
            raise IndexError(f"WeightedRandomSampler: {len(self.weights)} weights for a dataset "
                             f"of {n} rows.")
        if not self.replacement and k > np.count_nonzero(self.weights):
            raise RuntimeError("WeightedRandomSampler: num_samples exceeds the number of rows "
                               "with a positive weight (replacement=False).")
        p = self.weights / self.weights.sum()
        return ctx.rng.choice(len(p), size=k, replace=self.replacement, p=p).astype(np.int64)

    def _own_count(self, n):
        return len(self.weights) if self.num_samples is None else self.num_samples


class DistributedSampler(BuiltinSampler):
    """Shard `shard_id` of `num_shards` (distributed training).

    Like MindSpore (even distribution), every shard gets ceil(rows / num_shards)
    indices (at most `num_samples`): shard s takes positions s, s + num_shards,
    s + 2 * num_shards, ... of the (shuffled) row order, wrapping around to the
    start when the rows do not divide evenly. With `shuffle`, the permutation is
    drawn from the dataset seed (`ds.config.set_seed` / `msmlir.set_seed`; 0 when
    none is set) and the pass number only, so all shards, in any process, agree on
    it and together cover every row; each epoch reshuffles. `offset` is accepted
    and stored (MindSpore uses it only for ConcatDataset; msmlir ignores it).
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        if not _is_int(num_shards):
            raise TypeError(f"num_shards must be an int, but got {type(num_shards).__name__}.")
        if not _is_int(shard_id):
            raise TypeError(f"shard_id must be an int, but got {type(shard_id).__name__}.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a bool, but got {type(shuffle).__name__}.")
        if not _is_int(offset):
            raise TypeError(f"offset must be an int, but got {type(offset).__name__}.")
        if num_shards <= 0:
            raise RuntimeError(f"DistributedSampler: num_shards must be positive, got "
                               f"{num_shards}.")
        if not 0 <= shard_id < num_shards:
            raise RuntimeError(f"DistributedSampler: shard_id must be in [0, {num_shards}), got "
                               f"{shard_id}.")
        if offset > num_shards:
            raise RuntimeError(f"DistributedSampler: offset {offset} is greater than num_shards "
                               f"{num_shards}.")
        self.num_shards = int(num_shards)
        self.shard_id = int(shard_id)
        self.shuffle = shuffle
        self.offset = int(offset)
        super().__init__(num_samples)

    def is_shuffled(self):
        return self.shuffle if self.child_sampler is None else self.child_sampler.is_shuffled()

    def is_sharded(self):
        return self.num_shards > 1 if self.child_sampler is None else \
            self.child_sampler.is_sharded()

    def set_offset(self, offset):
        self.offset = int(offset)
        return self

    def _own(self, n, ctx):
        k = self._own_count(n)
        if k == 0:
            return np.zeros(0, np.int64)
        pos = (np.arange(k, dtype=np.int64) * self.num_shards + self.shard_id) % n
        if self.shuffle:
            return ctx.shard_rng().permutation(n).astype(np.int64)[pos]
        return pos

    def _own_count(self, n):
        if n == 0:
            return 0
        return _cap(-(-n // self.num_shards), self.num_samples)


class IterSampler(BuiltinSampler):
    """Wraps an iterable of indices (a list, an array, or any object with
    `__iter__`): iterated afresh each pass."""

    def __init__(self, sampler, num_samples=None):
        self.sampler = sampler
        super().__init__(num_samples)

    def _own(self, n, ctx):
        out = []
        cap = self.num_samples
        for i in self.sampler:
            if cap is not None and len(out) >= cap:
                break
            if isinstance(i, np.ndarray) and i.ndim == 0:
                i = i.item()
            if not _is_int(i):
                raise TypeError(f"sampler: indices must be ints, got {i!r}")
            out.append(int(i))
        idx = np.asarray(out, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"sampler produced an index outside [0, {n})")
        return idx

    def _own_count(self, n):
        if hasattr(self.sampler, "__len__"):
            return _cap(len(self.sampler), self.num_samples)
        return None


class Sampler(BuiltinSampler):
    """Base class of user-defined samplers: override `__iter__` (yielding row
    indices) and optionally `reset()`. Before each pass, `self.dataset_size` is set to
    the number of rows and `self.num_samples` to the requested count (all rows when
    None); `reset()` runs before every pass but the first."""

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self._requested = self.num_samples
        self.dataset_size = 0

    def __iter__(self):
        raise NotImplementedError("a Sampler subclass must implement __iter__")

    def reset(self):
        """Called before each pass after the first; override if needed."""

    def _handshake(self, ds_size, num_samples):
        self.dataset_size = ds_size
        self.num_samples = num_samples

    def _own(self, n, ctx):
        if ctx.pass_no > 0:
            self.reset()
        cap = n if self._requested is None else self._requested
        self._handshake(n, cap)
        out = []
        for i in self:
            if len(out) >= cap:
                break
            if isinstance(i, np.ndarray) and i.ndim == 0:
                i = i.item()
            if not _is_int(i):
                raise TypeError(f"{type(self).__name__}: indices must be ints, got {i!r}")
            out.append(int(i))
        idx = np.asarray(out, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"{type(self).__name__} produced an index outside [0, {n})")
        return idx

    def _own_count(self, n):
        return None

    def get_num_samples(self):
        return self._requested


def select_sampler(num_samples, input_sampler, shuffle, num_shards, shard_id):
    """The sampler of a source from its arguments (MindSpore's rules, except that a
    shuffled source with `num_samples` draws without replacement: MindSpore 2.x then
    samples with replacement)."""
    if input_sampler is not None:
        if isinstance(input_sampler, BuiltinSampler):
            if any(a is not None for a in (num_shards, shard_id, shuffle, num_samples)):
                raise ValueError(
                    f"Conflicting arguments during sampler assignments. num_samples: "
                    f"{num_samples}, num_shards: {num_shards}, shard_id: {shard_id}, "
                    f"shuffle: {shuffle}.")
            return input_sampler
        if isinstance(input_sampler, (list, np.ndarray)):
            return SubsetSampler(np.asarray(input_sampler).reshape(-1).tolist(), num_samples)
        if _is_int(input_sampler):
            return SubsetSampler([int(input_sampler)])
        if not isinstance(input_sampler, (str, bytes)) and hasattr(input_sampler, "__iter__"):
            return IterSampler(input_sampler, num_samples)
        raise TypeError(f"Unsupported sampler object of type ({type(input_sampler).__name__})")
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=shuffle is not False,
                                  num_samples=num_samples)
    if shuffle is False:
        return SequentialSampler(num_samples=num_samples)
    return RandomSampler(num_samples=num_samples)
