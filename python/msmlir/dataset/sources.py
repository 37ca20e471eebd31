"""Pipeline sources: numpy slices, Python generators / random-access objects, MNIST files."""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from ._parallel import ordered_parallel
from ._run import resolve_workers
from ._util import check_positive_int, col_list, to_numpy
from .datasets import Dataset

__all__ = ["NumpySlicesDataset", "GeneratorDataset", "MnistDataset"]


class _SourceDataset(Dataset):
    """Common source options: shuffle, num_samples, sampler, sharding.

    A random-access source resolves them into one sampler (`self.sampler`), with
    MindSpore's rules (`samplers.select_sampler`): an explicit `sampler` (a
    `samplers.BuiltinSampler`, or a list / array / iterable of indices) excludes
    shuffle, num_samples and sharding; `num_shards`/`shard_id` make a
    `DistributedSampler` (shuffled unless shuffle=False; `num_samples` then caps each
    shard); otherwise `shuffle` (None or True) gives a `RandomSampler`, False a
    `SequentialSampler`, both capped at `num_samples`."""

    def __init__(self, column_names, num_samples, shuffle, sampler, num_shards, shard_id,
                 num_parallel_workers, random_access=True):
        super().__init__((), num_parallel_workers)
        self._columns = column_names
        if num_samples is not None:
            if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
                raise TypeError(f"num_samples must be an int, got {type(num_samples).__name__}")
            if num_samples < 0:
                raise ValueError(f"num_samples must be non-negative, got {num_samples}")
            num_samples = int(num_samples) or None          # 0: all rows, as in MindSpore
        self.num_samples = num_samples
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a bool or None, got {shuffle!r}")
        self._shuffle_arg = shuffle
        if (num_shards is None) != (shard_id is None):
            raise RuntimeError("num_shards and shard_id need to be specified together")
        if num_shards is not None:
            num_shards = check_positive_int("num_shards", num_shards)
            if isinstance(shard_id, bool) or not isinstance(shard_id, numbers.Integral) or \
                    not 0 <= shard_id < num_shards:
                raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id!r}")
        self.num_shards = num_shards
        self.shard_id = shard_id
        if num_parallel_workers is not None:
            resolve_workers(num_parallel_workers)          # validates
        self.sampler = None
        if random_access:
            from .samplers import select_sampler
            self.sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)

    def get_col_names(self):
        return list(self._columns)

    _cache = None        # a DatasetCache (cache=): rows kept by row number

    def _set_cache(self, cache):
        from .cache import check
        self._cache = check(cache, type(self).__name__)

    @property
    def shuffle_flag(self):
        return self.sampler.is_shuffled() if self.sampler is not None else False


class _RandomAccessDataset(_SourceDataset):
    """A source that can fetch row i of n, in the order its sampler gives."""

    def _n(self) -> int:
        raise NotImplementedError

    def _get(self, i):
        raise NotImplementedError

    def _indices(self, run):
        """(this pass's row indices, the pass number)."""
        from .samplers import _SampleContext
        pass_no = run.next_pass(self)
        ctx = _SampleContext(lambda: np.random.default_rng(run.key(self, pass_no)),
                             run.shard_seed, pass_no)
        return self.sampler._sample(self._n(), ctx), pass_no

    def _workers(self):
        """Threads fetching rows (`num_parallel_workers`; 1 when not given)."""
        w = self.num_parallel_workers
        return 1 if w is None else resolve_workers(w)

    def _row(self, i):
        """Row i, from the cache when there is one."""
        if self._cache is None:
            return self._get(i)
        return self._cache.fetch(self, i, lambda: self._get(i))

    def _rows(self, run):
        idx, pass_no = self._indices(run)
        workers = self._workers()
        if workers <= 1 and type(self)._get is not GeneratorDataset._get:
            for i in idx:                      # built-in sources: plain slicing
                yield self._row(int(i))
            return
        from ._random import row_scope
        key = run.key(self, pass_no) + [1]

        def fetch(ki):                         # random transforms in __getitem__: per row
            k, i = ki
            with row_scope(key + [k]):
                return self._row(int(i))

        yield from ordered_parallel(fetch, enumerate(idx), workers,
                                     f"msmlir-dataset-{type(self).__name__}",
                                     state=self.__dict__.setdefault("_pool_state", {}))

    def _size(self):
        return self.sampler._count(self._n())


def _row_of(item, ncols, names):
    if isinstance(item, (tuple, list)):
        row = tuple(to_numpy(e) for e in item)
    else:
        row = (to_numpy(item),)
    if len(row) != ncols:
        raise RuntimeError(f"the source returned a row of {len(row)} columns, but the dataset "
                           f"has {ncols} column names {names}")
    return row


class NumpySlicesDataset(_RandomAccessDataset):
    """Rows are slices along the first axis of `data`: a list or array (one column),
    a tuple (one column per element) or a dict (column name -> data).
    `shuffle=None` shuffles, as in MindSpore; `sampler`, `num_samples`, `num_shards`
    and `shard_id` select the rows (see `_SourceDataset`). `num_parallel_workers` is
    accepted: a row is a slice, too cheap to be worth a thread pool."""

    def _workers(self):
        return 1

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        if isinstance(data, dict):
            names = [str(k) for k in data.keys()]
            cols = [to_numpy(v) for v in data.values()]
        elif isinstance(data, tuple):
            cols = [to_numpy(v) for v in data]
            names = None
        elif isinstance(data, (list, np.ndarray)) or hasattr(data, "asnumpy"):
            cols = [to_numpy(data)]
            names = None
        else:
            raise TypeError(f"NumpySlicesDataset: data must be a list, tuple, dict or numpy "
                            f"array, got {type(data).__name__}")
        column_names = col_list(column_names, "column_names")
        if names is None:
            names = column_names or [f"column_{i}" for i in range(len(cols))]
        elif column_names is not None:
            names = column_names
        if len(names) != len(cols):
            raise ValueError(f"NumpySlicesDataset: {len(names)} column names for {len(cols)} "
                             f"columns")
        if not cols:
            raise ValueError("NumpySlicesDataset: data has no columns")
        for c, nm in zip(cols, names):
            if c.ndim == 0:
                raise ValueError(f"NumpySlicesDataset: column '{nm}' is a scalar; data must be "
                                 f"sliceable along its first axis")
            if c.dtype == object:
                raise TypeError(f"NumpySlicesDataset: column '{nm}' has ragged or non-numeric "
                                f"data")
        lens = {len(c) for c in cols}
        if len(lens) != 1:
            raise ValueError(f"NumpySlicesDataset: columns have different lengths "
                             f"{[len(c) for c in cols]}")
        super().__init__(names, num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self._cols = cols
        self._len = lens.pop()

    def _n(self):
        return self._len

    def _get(self, i):
        return tuple(np.asarray(c[i]) for c in self._cols)


class GeneratorDataset(_RandomAccessDataset):
    """Rows from a Python source: a random-accessible object (`__getitem__` and
    `__len__`; shuffled by default, samplers and sharding apply), an iterable, or a
    callable returning an iterator (called once per pass; `num_shards`/`shard_id`
    then keep every num_shards-th item, and `num_samples` caps the items). Each item
    is a tuple of arrays (or one array for a single column).

    With `num_parallel_workers` > 1, a random-access source's `__getitem__` runs on
    that many threads (rows keep the sampler's order). `python_multiprocessing`
    (MindSpore's default True) is accepted; msmlir always uses threads, so
    `__getitem__` must be thread-safe when num_parallel_workers > 1."""

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        names = col_list(column_names, "column_names")
        self._schema_types = None                 # a Schema's column types (casts)
        if names is None:
            if schema is None:
                raise ValueError("GeneratorDataset: column_names and schema are both None")
            from .schema import Schema
            if isinstance(schema, str):
                schema = Schema(schema)
            if isinstance(schema, Schema):
                names = schema.column_names()
                if not names:
                    raise ValueError("GeneratorDataset: the schema has no columns")
                if column_types is None:
                    self._schema_types = schema.numpy_types()
            else:
                names = list(getattr(schema, "columns", schema))
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if not (callable(source) or hasattr(source, "__iter__")):
                raise TypeError("GeneratorDataset: source must be a random-accessible object, an "
                                "iterable or a callable returning an iterator")
            if shuffle:
                raise ValueError("GeneratorDataset: shuffle=True needs a random-accessible "
                                 "source (with __getitem__ and __len__)")
            if sampler is not None:
                raise ValueError("GeneratorDataset: a sampler needs a random-accessible source")
        super().__init__(names, num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers, random_access=self._random_access)
        self.source = source
        self.column_types = column_types
        self.python_multiprocessing = python_multiprocessing

    def _convert(self, item):
        row = _row_of(item, len(self._columns), self._columns)
        if self.column_types is not None:
            from .. import dtype as _dt

            def np_type(t):
                try:
                    return _dt.get(t).to_numpy()
                except (TypeError, ValueError):
                    return np.dtype(t)
            row = tuple(r.astype(np_type(t)) for r, t in zip(row, self.column_types))
        elif self._schema_types is not None:      # a Schema's column types
            row = tuple(r if t is None else r.astype(t) for r, t in zip(row, self._schema_types))
        return row

    def _n(self):
        return len(self.source)

    def _get(self, i):
        return self._convert(self.source[i])

    def _rows(self, run):
        if self._random_access:
            yield from _RandomAccessDataset._rows(self, run)
            return
        it = self.source() if callable(self.source) and not hasattr(self.source, "__iter__") \
            else iter(self.source)
        if self.num_shards is not None:
            it = itertools.islice(it, self.shard_id, None, self.num_shards)
        if self.num_samples is not None:
            it = itertools.islice(it, self.num_samples)
        for item in it:
            yield self._convert(item)

    def _size(self):
        if self._random_access:
            return _RandomAccessDataset._size(self)
        if hasattr(self.source, "__len__"):
            n = len(self.source)
            if self.num_shards is not None:
                n = len(range(self.shard_id, n, self.num_shards))
            if self.num_samples is not None:
                n = min(n, self.num_samples)
            return n
        return None


class MnistDataset(_RandomAccessDataset):
    """The MNIST IDX files in `dataset_dir` (train-images-idx3-ubyte, ...): columns
    'image' (uint8, [28, 28, 1]) and 'label' (uint32). `usage` is 'train', 'test' or
    'all' (default). The files are validated (magic numbers, sizes) before use.
    uint8 / uint32 are not msmlir Tensor dtypes: map the columns (e.g.
    vision.Rescale, transforms.TypeCast(ms.int32)) or iterate with output_numpy=True."""

    _FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
              "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        import os
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"MnistDataset: usage must be 'train', 'test' or 'all', got "
                             f"{usage!r}")
        parts = ["train", "test"] if usage == "all" else [usage]
        images, labels = [], []
        for part in parts:
            img_f, lbl_f = (os.path.join(dataset_dir, f) for f in self._FILES[part])
            img, lbl = _read_idx(img_f, 3), _read_idx(lbl_f, 1)
            if len(img) != len(lbl):
                raise RuntimeError(f"MnistDataset: {img_f} has {len(img)} images but {lbl_f} has "
                                   f"{len(lbl)} labels")
            images.append(img)
            labels.append(lbl)
        super().__init__(["image", "label"], num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self._set_cache(cache)
        self._images = np.concatenate(images)[..., None]
        self._labels = np.concatenate(labels).astype(np.uint32)

    def _workers(self):
        return 1                     # a row is two array slices: no pool

    def _n(self):
        return len(self._labels)

    def _get(self, i):
        return self._images[i], np.asarray(self._labels[i])


def _read_idx(path, ndim):
    """Reads an IDX file of unsigned bytes with `ndim` dims, validating its header."""
    with open(path, "rb") as f:
        head = f.read(4 + 4 * ndim)
        if len(head) != 4 + 4 * ndim or head[:2] != b"\0\0" or head[2] != 0x08 or head[3] != ndim:
            raise RuntimeError(f"{path}: not an IDX file of {ndim}-D unsigned bytes")
        dims = [int.from_bytes(head[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
        n = int(np.prod(dims, dtype=np.int64))
        import os
        size = os.fstat(f.fileno()).st_size
        if size != len(head) + n:
            raise RuntimeError(f"{path}: header says {n} bytes of data, file has "
                               f"{size - len(head)}")
        data = np.frombuffer(f.read(n), dtype=np.uint8)
    return data.reshape(dims)
