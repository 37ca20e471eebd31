"""The dataset pipeline: sources, operations and prefetching iterators.

A pipeline is a tree of `Dataset` nodes built by chaining (`NumpySlicesDataset(...)
.map(...).shuffle(...).batch(...).repeat(...)`); every operation returns a new
node. Rows are tuples of numpy arrays, one per column.

Iteration (`create_tuple_iterator`, `create_dict_iterator`, ``for row in ds``)
starts one background producer thread per iterator that runs the pipeline for
`num_epochs` epochs and hands rows over through a bounded queue
(`config.get_prefetch_size()` entries). Each epoch ends with StopIteration in
the consumer; the next ``for`` over the same iterator continues with the next
epoch. An exception raised in the producer (a source, a map function, a batch
of mismatched shapes) is re-raised in the consumer with its original type and
traceback. Stopping early (``break``, `iterator.stop()`, garbage collection)
signals the producer, which exits at its next queue operation.

Determinism: random operations (source shuffles, `shuffle`) draw from
numpy Generators seeded with (pipeline seed, node position in the pipeline,
pass number of that node), so with `config.set_seed` (or `msmlir.set_seed`)
every iterator of the same pipeline yields the same rows in the same order,
and each epoch / repeat is reshuffled differently.
"""
from __future__ import annotations

import itertools
import numbers
import queue
import threading
import weakref

import numpy as np

from . import config

__all__ = ["Dataset", "NumpySlicesDataset", "GeneratorDataset", "MnistDataset", "BatchInfo"]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _to_numpy(x) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "asnumpy"):
        return np.asarray(x.asnumpy())
    return np.asarray(x)


def _col_list(cols, what) -> list | None:
    if cols is None:
        return None
    if isinstance(cols, str):
        return [cols]
    if isinstance(cols, (list, tuple)) and all(isinstance(c, str) for c in cols):
        if len(set(cols)) != len(cols):
            raise ValueError(f"{what}: duplicate column names in {list(cols)}")
        return list(cols)
    raise TypeError(f"{what} must be a str or a list of str, got {cols!r}")


def _check_positive_int(name, value, allow_minus_one=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if allow_minus_one and value == -1:
        return -1
    if value <= 0:
        raise ValueError(f"{name} must be positive{' or -1' if allow_minus_one else ''}, "
                         f"got {value}")
    return int(value)


class _Run:
    """The state of one iterator (or one counting pass): the seed and, per node,
    how many passes it has made (each pass of a shuffling node reshuffles)."""

    def __init__(self, root: "Dataset", seed: int):
        self.seed = int(seed)
        self.ordinal = {}
        self.passes = {}
        stack = [root]
        while stack:
            n = stack.pop()
            if id(n) not in self.ordinal:
                self.ordinal[id(n)] = len(self.ordinal)
                stack.extend(reversed(n.children))

    def rng(self, node) -> np.random.Generator:
        k = id(node)
        p = self.passes.get(k, 0)
        self.passes[k] = p + 1
        return np.random.default_rng([self.seed, self.ordinal.get(k, 0), p])


def _resolve_seed() -> int:
    s = config.get_seed()
    if s is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    return int(s)


class BatchInfo:
    """Passed to `per_batch_map`: the batch number (in the epoch) and the epoch."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


# ---------------------------------------------------------------------------
# Base class
# ---------------------------------------------------------------------------

class Dataset:
    """A node of a dataset pipeline (MindSpore's `mindspore.dataset.Dataset`)."""

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers

    # ---- to override -----------------------------------------------------------------
    def get_col_names(self) -> list:
        raise NotImplementedError

    def _rows(self, run: _Run):
        """Yields the rows (tuples of numpy arrays) of one pass."""
        raise NotImplementedError

    def _size(self):
        """Rows per pass: an int, None when unknown without iterating, -1 if infinite."""
        return None

    # ---- operations ------------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, column_order=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None, callbacks=None,
            max_rowsize=16, offload=None):
        """Applies `operations` (a callable or a list of them, chained) to `input_columns`
        (default: the first column); results replace them as `output_columns`."""
        return MapDataset(self, operations, input_columns, output_columns, column_order)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None,
              python_multiprocessing=False, max_rowsize=16):
        """Stacks `batch_size` consecutive rows along a new first axis; the last,
        smaller batch is dropped with `drop_remainder`."""
        return BatchDataset(self, batch_size, drop_remainder, per_batch_map, input_columns,
                            output_columns)

    def shuffle(self, buffer_size):
        """Shuffles through a buffer of `buffer_size` rows (> 1); reshuffles every pass."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Repeats the pipeline `count` times (None or -1: forever)."""
        return RepeatDataset(self, count)

    def take(self, count=-1):
        return TakeDataset(self, count)

    def skip(self, count):
        return SkipDataset(self, count)

    def project(self, columns):
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        return RenameDataset(self, input_columns, output_columns)

    def zip(self, datasets):
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        return ZipDataset((self,) + tuple(datasets))

    def concat(self, datasets):
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        return ConcatDataset([self] + list(datasets))

    def __add__(self, other):
        return self.concat(other)

    # ---- queries -----------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) in one epoch; -1 for an infinite pipeline."""
        n = self._size()
        if n is None:
            n = sum(1 for _ in self._rows(_Run(self, _resolve_seed())))
        return int(n)

    def _first_row(self):
        for row in self._rows(_Run(self, _resolve_seed())):
            return row
        raise RuntimeError("the dataset is empty")

    def output_shapes(self, estimate=False):
        return [list(np.shape(c)) for c in self._first_row()]

    def output_types(self):
        from .. import dtype as _dt
        out = []
        for c in self._first_row():
            try:
                out.append(_dt.from_numpy(np.asarray(c).dtype))
            except TypeError:
                out.append(np.asarray(c).dtype)
        return out

    def get_batch_size(self):
        for n in self._walk():
            if isinstance(n, BatchDataset):
                return n.batch_size
        return 1

    def get_repeat_count(self):
        for n in self._walk():
            if isinstance(n, RepeatDataset):
                return n.count
        return 1

    def _walk(self):
        yield self
        for c in self.children:
            yield from c._walk()

    # ---- iteration -----------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator of lists of Tensors (numpy arrays with `output_numpy`), one list
        per row, for `num_epochs` epochs (-1: unlimited)."""
        return _Iterator(self, columns, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like create_tuple_iterator, yielding {column name: value} dicts."""
        return _Iterator(self, None, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def __repr__(self):
        return f"<{type(self).__name__} columns={self.get_col_names()}>"


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------

class _SourceDataset(Dataset):
    """Common source options: shuffle, num_samples, sampler, sharding."""

    def __init__(self, column_names, num_samples, shuffle, sampler, num_shards, shard_id,
                 num_parallel_workers):
        super().__init__((), num_parallel_workers)
        self._columns = column_names
        if num_samples is not None:
            num_samples = _check_positive_int("num_samples", num_samples)
        self.num_samples = num_samples
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a bool or None, got {shuffle!r}")
        if sampler is not None and shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time")
        self._shuffle_arg = shuffle
        self.sampler = sampler
        if (num_shards is None) != (shard_id is None):
            raise RuntimeError("num_shards and shard_id need to be specified together")
        if num_shards is not None:
            num_shards = _check_positive_int("num_shards", num_shards)
            if isinstance(shard_id, bool) or not isinstance(shard_id, numbers.Integral) or \
                    not 0 <= shard_id < num_shards:
                raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id!r}")
        self.num_shards = num_shards
        self.shard_id = shard_id

    def get_col_names(self):
        return list(self._columns)


class _RandomAccessDataset(_SourceDataset):
    """A source that can fetch row i of n (shuffled globally by default)."""

    def _n(self) -> int:
        raise NotImplementedError

    def _get(self, i):
        raise NotImplementedError

    def _indices(self, run):
        n = self._n()
        if self.sampler is not None:
            idx = np.asarray([int(i) for i in self.sampler], dtype=np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                raise IndexError(f"sampler produced an index outside [0, {n})")
        elif self._shuffle_arg is not False:
            idx = run.rng(self).permutation(n)
        else:
            idx = np.arange(n)
        if self.num_shards is not None:
            idx = idx[self.shard_id::self.num_shards]
        if self.num_samples is not None:
            idx = idx[:self.num_samples]
        return idx

    def _rows(self, run):
        for i in self._indices(run):
            yield self._get(int(i))

    def _size(self):
        n = self._n()
        if self.sampler is not None:
            if hasattr(self.sampler, "__len__"):
                n = len(self.sampler)
            else:
                return None
        if self.num_shards is not None:
            n = len(range(self.shard_id, n, self.num_shards))
        if self.num_samples is not None:
            n = min(n, self.num_samples)
        return n


def _row_of(item, ncols, names):
    if isinstance(item, (tuple, list)):
        row = tuple(_to_numpy(e) for e in item)
    else:
        row = (_to_numpy(item),)
    if len(row) != ncols:
        raise RuntimeError(f"the source returned a row of {len(row)} columns, but the dataset "
                           f"has {ncols} column names {names}")
    return row


class NumpySlicesDataset(_RandomAccessDataset):
    """Rows are slices along the first axis of `data`: a list or array (one column),
    a tuple (one column per element) or a dict (column name -> data).
    `shuffle=None` shuffles, as in MindSpore."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        if isinstance(data, dict):
            names = [str(k) for k in data.keys()]
            cols = [_to_numpy(v) for v in data.values()]
        elif isinstance(data, tuple):
            cols = [_to_numpy(v) for v in data]
            names = None
        elif isinstance(data, (list, np.ndarray)) or hasattr(data, "asnumpy"):
            cols = [_to_numpy(data)]
            names = None
        else:
            raise TypeError(f"NumpySlicesDataset: data must be a list, tuple, dict or numpy "
                            f"array, got {type(data).__name__}")
        column_names = _col_list(column_names, "column_names")
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


class GeneratorDataset(_SourceDataset):
    """Rows from a Python source: a random-accessible object (`__getitem__` and
    `__len__`; shuffled by default), an iterable, or a callable returning an
    iterator (called once per pass). Each item is a tuple of arrays (or one array
    for a single column)."""

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        names = _col_list(column_names, "column_names")
        if names is None:
            if schema is None:
                raise ValueError("GeneratorDataset: column_names and schema are both None")
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
                         num_parallel_workers)
        self.source = source
        self.column_types = column_types

    def _convert(self, item):
        row = _row_of(item, len(self._columns), self._columns)
        if self.column_types is not None:
            from .. import dtype as _dt
            row = tuple(r.astype(_dt.get(t).to_numpy()) for r, t in zip(row, self.column_types))
        return row

    # random-access sources reuse the index logic
    _indices = _RandomAccessDataset._indices

    def _n(self):
        return len(self.source)

    def _rows(self, run):
        if self._random_access:
            for i in self._indices(run):
                yield self._convert(self.source[int(i)])
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
        self._images = np.concatenate(images)[..., None]
        self._labels = np.concatenate(labels).astype(np.uint32)

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


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------

class MapDataset(Dataset):
    def __init__(self, child, operations, input_columns, output_columns, column_order=None):
        super().__init__((child,))
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(o) for o in ops):
            raise TypeError("map: operations must be a callable or a non-empty list of callables")
        self.operations = ops
        cols = child.get_col_names()
        ins = _col_list(input_columns, "input_columns") or [cols[0]]
        for c in ins:
            if c not in cols:
                raise ValueError(f"map: input column '{c}' is not in the dataset columns {cols}")
        outs = _col_list(output_columns, "output_columns") or list(ins)
        if outs == ins:
            new = list(cols)
        else:
            first = min(cols.index(c) for c in ins)
            rest = [c for c in cols if c not in ins]
            pos = sum(1 for c in cols[:first] if c not in ins)
            new = rest[:pos] + outs + rest[pos:]
            if len(set(new)) != len(new):
                raise ValueError(f"map: output columns {outs} collide with the columns {rest}")
        order = _col_list(column_order, "column_order")
        if order is not None:
            if sorted(order) != sorted(new):
                raise ValueError(f"map: column_order {order} must list the columns {new}")
        self._in_idx = [cols.index(c) for c in ins]
        self._ins, self._outs, self._child_cols = ins, outs, cols
        self._cols = new
        self._order = order

    def get_col_names(self):
        return list(self._order or self._cols)

    def _rows(self, run):
        ins, outs, cols = self._ins, self._outs, self._child_cols
        for row in self.children[0]._rows(run):
            vals = [row[i] for i in self._in_idx]
            for op in self.operations:
                res = op(*vals)
                vals = list(res) if isinstance(res, tuple) else [res]
            vals = [_to_numpy(v) for v in vals]
            if len(vals) != len(outs):
                raise RuntimeError(f"map: the operations returned {len(vals)} columns, expected "
                                   f"{len(outs)} (output_columns {outs})")
            by_name = {c: v for c, v in zip(cols, row)}
            by_name.update(zip(outs, vals))
            yield tuple(by_name[c] for c in self.get_col_names())

    def _size(self):
        return self.children[0]._size()


class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder, per_batch_map=None, input_columns=None,
                 output_columns=None):
        super().__init__((child,))
        self.batch_size = _check_positive_int("batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"drop_remainder must be a bool, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        cols = child.get_col_names()
        self._ins = _col_list(input_columns, "input_columns")
        self._outs = _col_list(output_columns, "output_columns")
        if per_batch_map is not None:
            if not callable(per_batch_map):
                raise TypeError("per_batch_map must be callable")
            self._ins = self._ins or list(cols)
            for c in self._ins:
                if c not in cols:
                    raise ValueError(f"batch: input column '{c}' is not in {cols}")
            self._outs = self._outs or list(self._ins)
            if self._outs != self._ins:
                raise ValueError("batch: per_batch_map with output_columns different from "
                                 "input_columns is not supported")

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _stack(self, rows, batch_num, epoch):
        cols = self.get_col_names()
        columns = [[r[i] for r in rows] for i in range(len(cols))]
        if self.per_batch_map is not None:
            idx = [cols.index(c) for c in self._ins]
            res = self.per_batch_map(*[columns[i] for i in idx], BatchInfo(batch_num, epoch))
            res = res if isinstance(res, tuple) else (res,)
            if len(res) != len(idx):
                raise RuntimeError(f"per_batch_map returned {len(res)} columns, expected "
                                   f"{len(idx)}")
            for i, r in zip(idx, res):
                columns[i] = r
        out = []
        for name, col in zip(cols, columns):
            if isinstance(col, np.ndarray):
                out.append(col)
                continue
            col = [_to_numpy(c) for c in col]
            shapes = {c.shape for c in col}
            if len(shapes) != 1:
                raise RuntimeError(f"batch: column '{name}' has rows of different shapes "
                                   f"{sorted(shapes)}; rows must have the same shape to be "
                                   f"batched")
            out.append(np.stack(col))
        return tuple(out)

    def _rows(self, run):
        epoch = run.passes.get(id(self), 0)
        run.passes[id(self)] = epoch + 1
        buf, k = [], 0
        for row in self.children[0]._rows(run):
            buf.append(row)
            if len(buf) == self.batch_size:
                yield self._stack(buf, k, epoch)
                buf, k = [], k + 1
        if buf and not self.drop_remainder:
            yield self._stack(buf, k, epoch)

    def _size(self):
        n = self.children[0]._size()
        if n is None or n < 0:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)


class ShuffleDataset(Dataset):
    def __init__(self, child, buffer_size):
        super().__init__((child,))
        buffer_size = _check_positive_int("buffer_size", buffer_size)
        if buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be greater than 1, got {buffer_size}")
        self.buffer_size = buffer_size

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        rng = run.rng(self)
        buf = []
        for row in self.children[0]._rows(run):
            if len(buf) < self.buffer_size:
                buf.append(row)
                continue
            j = int(rng.integers(len(buf)))
            out, buf[j] = buf[j], row
            yield out
        for j in rng.permutation(len(buf)):
            yield buf[j]

    def _size(self):
        return self.children[0]._size()


class RepeatDataset(Dataset):
    def __init__(self, child, count):
        super().__init__((child,))
        self.count = -1 if count is None else _check_positive_int("count", count, True)

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        it = itertools.count() if self.count == -1 else range(self.count)
        for _ in it:
            yield from self.children[0]._rows(run)

    def _size(self):
        if self.count == -1:
            return -1
        n = self.children[0]._size()
        return n if n is None or n < 0 else n * self.count


class TakeDataset(Dataset):
    def __init__(self, child, count):
        super().__init__((child,))
        self.count = _check_positive_int("count", count, True)

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        rows = self.children[0]._rows(run)
        return rows if self.count == -1 else itertools.islice(rows, self.count)

    def _size(self):
        n = self.children[0]._size()
        if self.count == -1 or n is None:
            return n
        return self.count if n < 0 else min(n, self.count)


class SkipDataset(Dataset):
    def __init__(self, child, count):
        super().__init__((child,))
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
            raise ValueError(f"skip: count must be a non-negative int, got {count!r}")
        self.count = int(count)

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        return itertools.islice(self.children[0]._rows(run), self.count, None)

    def _size(self):
        n = self.children[0]._size()
        return n if n is None or n < 0 else max(n - self.count, 0)


class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__((child,))
        cols = child.get_col_names()
        self._cols = _col_list(columns, "columns")
        for c in self._cols:
            if c not in cols:
                raise ValueError(f"project: column '{c}' is not in {cols}")
        self._idx = [cols.index(c) for c in self._cols]

    def get_col_names(self):
        return list(self._cols)

    def _rows(self, run):
        for row in self.children[0]._rows(run):
            yield tuple(row[i] for i in self._idx)

    def _size(self):
        return self.children[0]._size()


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        super().__init__((child,))
        ins = _col_list(input_columns, "input_columns")
        outs = _col_list(output_columns, "output_columns")
        if len(ins) != len(outs):
            raise ValueError("rename: input_columns and output_columns differ in length")
        cols = child.get_col_names()
        for c in ins:
            if c not in cols:
                raise ValueError(f"rename: column '{c}' is not in {cols}")
        m = dict(zip(ins, outs))
        self._cols = [m.get(c, c) for c in cols]
        if len(set(self._cols)) != len(self._cols):
            raise ValueError(f"rename: duplicate column names {self._cols}")

    def get_col_names(self):
        return list(self._cols)

    def _rows(self, run):
        return self.children[0]._rows(run)

    def _size(self):
        return self.children[0]._size()


class ZipDataset(Dataset):
    def __init__(self, datasets):
        super().__init__(datasets)
        names = [c for d in datasets for c in d.get_col_names()]
        if len(set(names)) != len(names):
            raise ValueError(f"zip: duplicate column names {names}; rename them first")
        self._cols = names

    def get_col_names(self):
        return list(self._cols)

    def _rows(self, run):
        for rows in zip(*[d._rows(run) for d in self.children]):
            yield tuple(c for r in rows for c in r)

    def _size(self):
        sizes = [d._size() for d in self.children]
        if any(s is None for s in sizes):
            return None
        finite = [s for s in sizes if s >= 0]
        return min(finite) if finite else -1


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        super().__init__(datasets)
        cols = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != cols:
                raise ValueError(f"concat: datasets have different columns "
                                 f"{cols} and {d.get_col_names()}")
        self._cols = cols

    def get_col_names(self):
        return list(self._cols)

    def _rows(self, run):
        for d in self.children:
            yield from d._rows(run)

    def _size(self):
        sizes = [d._size() for d in self.children]
        if any(s is None for s in sizes):
            return None
        if any(s < 0 for s in sizes):
            return -1
        return sum(sizes)


# ---------------------------------------------------------------------------
# Iterators with a background producer
# ---------------------------------------------------------------------------

_ROW, _EPOCH_END, _DONE, _ERROR = range(4)


def _converter(output_numpy):
    if output_numpy:
        def conv(row):
            return tuple(c if isinstance(c, np.ndarray) and c.flags.owndata else np.array(c)
                         for c in row)
        return conv
    from ..common.tensor import Tensor

    def conv(row):
        out = []
        for c in row:
            try:
                out.append(Tensor._make(c))
            except TypeError as e:
                raise TypeError(f"{e}. Convert the column in the pipeline (e.g. "
                                f".map(transforms.TypeCast(ms.int32), 'label')) or iterate "
                                f"with output_numpy=True") from None
        return tuple(out)
    return conv


def _produce(root, seed, num_epochs, idx, output_numpy, q, stop):
    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    try:
        conv = _converter(output_numpy)
        run = _Run(root, seed)
        epoch = 0
        while num_epochs < 0 or epoch < num_epochs:
            for row in root._rows(run):
                if stop.is_set():
                    return
                if idx is not None:
                    row = tuple(row[i] for i in idx)
                if not put((_ROW, conv(row))):
                    return
            if not put((_EPOCH_END, None)):
                return
            epoch += 1
        put((_DONE, None))
    except BaseException as e:  # noqa: BLE001  (re-raised in the consumer)
        put((_ERROR, e))


def _shutdown(stop, q, thread):
    stop.set()
    try:  # unblock a producer waiting on a full queue
        while True:
            q.get_nowait()
    except queue.Empty:
        pass
    if thread.is_alive() and thread is not threading.current_thread():
        thread.join(timeout=10)


class _Iterator:
    """Iterates a pipeline for `num_epochs` epochs; each epoch ends with StopIteration."""

    def __init__(self, dataset, columns, num_epochs, output_numpy, as_dict):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, numbers.Integral) or \
                (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        cols = _col_list(columns, "columns")
        idx = None
        if cols is not None:
            for c in cols:
                if c not in names:
                    raise ValueError(f"column '{c}' is not in {names}")
            idx = [names.index(c) for c in cols]
            names = cols
        self._names = names
        self._as_dict = as_dict
        self._done = False
        self.num_epochs = int(num_epochs)
        q = queue.Queue(maxsize=config.get_prefetch_size())
        stop = threading.Event()
        self._queue = q
        thread = threading.Thread(target=_produce, name="msmlir-dataset-producer", daemon=True,
                                  args=(dataset, _resolve_seed(), self.num_epochs, idx,
                                        output_numpy, q, stop))
        self._thread = thread
        self._finalizer = weakref.finalize(self, _shutdown, stop, q, thread)
        thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        kind, payload = self._queue.get()
        if kind == _ROW:
            return dict(zip(self._names, payload)) if self._as_dict else list(payload)
        if kind == _EPOCH_END:
            raise StopIteration
        self._done = True
        self._finalizer()
        if kind == _ERROR:
            raise payload
        raise StopIteration

    def stop(self):
        """Stops the producer thread (also done when the iterator is garbage collected)."""
        self._done = True
        self._finalizer()

    def get_col_names(self):
        return list(self._names)
