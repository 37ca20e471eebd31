"""The `Dataset` node and the operations chained from it (map, batch, shuffle, ...).

A pipeline is a tree of `Dataset` nodes built by chaining (`NumpySlicesDataset(...)
.map(...).shuffle(...).batch(...).repeat(...)`); every operation returns a new
node. Rows are tuples of numpy arrays, one per column. A node yields the rows of
one pass from `_rows(run)` (`_run.Run`: seeds and pass counts); sources are in
`sources`, iteration in `iterators`, the thread pool behind
`num_parallel_workers` in `_parallel`.
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from ._parallel import ordered_parallel
from ._run import Run, resolve_workers
from ._util import add_note, check_positive_int, col_list, to_numpy
from .iterators import DatasetIterator

__all__ = ["Dataset", "BatchInfo", "MapDataset", "BatchDataset", "FilterDataset",
           "ShuffleDataset", "RepeatDataset", "TakeDataset", "SkipDataset", "ProjectDataset",
           "RenameDataset", "ZipDataset", "ConcatDataset"]


class BatchInfo:
    """Passed to `per_batch_map`: the batch number (in the epoch) and the epoch."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class Dataset:
    """A node of a dataset pipeline (MindSpore's `mindspore.dataset.Dataset`)."""

    sampler = None       # a random-access source's sampler (sources.py)

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers

    # ---- to override -----------------------------------------------------------------
    def get_col_names(self) -> list:
        raise NotImplementedError

    def _rows(self, run: Run):
        """Yields the rows (tuples of numpy arrays) of one pass."""
        raise NotImplementedError

    def _size(self):
        """Rows per pass: an int, None when unknown without iterating, -1 if infinite."""
        return None

    # ---- operations ------------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, column_order=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None, callbacks=None,
            max_rowsize=16, offload=None, **kwargs):
        """Applies `operations` (a callable or a list of them, chained: each one's outputs
        are the next one's inputs) to `input_columns` (default: the first column).

        The results of the last operation become `output_columns` (default: the input
        column names). With as many output as input columns, they replace the inputs in
        place; otherwise the output columns come first, then the columns that were not
        inputs, in their order (MindSpore's rule). `column_order` (deprecated in
        MindSpore 2.x, use `project`) reorders the result.

        `num_parallel_workers` (default `config.get_num_parallel_workers()`) threads run
        the operations on different rows at the same time; the rows come out in the
        input order, identical to a serial map. numpy releases the GIL in its array
        loops, so operations spending their time there (large arrays, I/O) run in
        parallel; for small arrays CPython's GIL hand-offs make threads slower than
        one, so the pool measures itself against running inline and keeps the faster
        (see `ordered_parallel`). `python_multiprocessing=True` is accepted and runs
        on threads too (msmlir has no process pool). The random transforms
        (`vision.RandomCrop`, ...) draw from a generator per row (see
        `msmlir.dataset._random`), so they give the same result with any number of
        workers; a user function drawing from numpy's global
        generator does not (use the random transforms, or one worker, for that).

        An exception in an operation is re-raised in the consumer with its type and
        message, with a note naming the map, the operation and the row.
        `cache` (a DatasetCache) keeps the map's output rows after the first pass and
        replays them (msmlir/dataset/cache.py: the pipeline below must not shuffle, the
        operations must not be random). `callbacks`, `max_rowsize` and `offload` are
        accepted and ignored."""
        if kwargs:
            raise TypeError(f"map() got unexpected keyword arguments {sorted(kwargs)}")
        return MapDataset(self, operations, input_columns, output_columns, column_order,
                          num_parallel_workers, cache)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None,
              python_multiprocessing=False, max_rowsize=16, **kwargs):
        """Stacks `batch_size` consecutive rows along a new first axis; the last,
        smaller batch is dropped with `drop_remainder`. `batch_size` may be a callable
        taking a `BatchInfo` and returning the size of the next batch.

        `per_batch_map(col_1, ..., col_k, batch_info)` receives, for each of
        `input_columns` (default: all columns), the list of that column's arrays in the
        batch, and returns a tuple of lists (or arrays) that become `output_columns`
        (default: the input names; placed as in `map`). The other columns are batched
        as they are. With `num_parallel_workers` > 1 (default
        `config.get_num_parallel_workers()`), per_batch_map and the stacking run on a
        pool of threads (also with `python_multiprocessing=True`), batches staying in
        order. `pad_info` (MindSpore 1.x) is
        accepted as a keyword: see `padded_batch`."""
        pad_info = kwargs.pop("pad_info", None)
        column_order = kwargs.pop("column_order", None)
        if kwargs:
            raise TypeError(f"batch() got unexpected keyword arguments {sorted(kwargs)}")
        out = BatchDataset(self, batch_size, drop_remainder, per_batch_map, input_columns,
                           output_columns, num_parallel_workers, pad_info)
        return out.project(column_order) if column_order is not None else out

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """Like `batch`, padding the rows of the columns in `pad_info` ({column: (shape,
        pad_value)}; a None shape or a None dimension pads to the batch's largest).
        pad_info=None pads every column to the largest shape with 0."""
        return BatchDataset(self, batch_size, drop_remainder, None, None, None,
                            num_parallel_workers, pad_info if pad_info is not None else {})

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keeps the rows for which `predicate(*input_columns)` (default: all columns)
        is true; `num_parallel_workers` threads evaluate it, order kept."""
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

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

    def apply(self, apply_func):
        """apply_func(self), which must return a Dataset."""
        out = apply_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("apply: apply_func must return a Dataset")
        return out

    def use_sampler(self, new_sampler):
        """Replaces the sampler of this pipeline's random-access source(s)."""
        from .samplers import select_sampler
        found = False
        for n in self._walk():
            if n.sampler is not None:
                n.sampler = select_sampler(None, new_sampler, None, None, None)
                found = True
        if not found:
            raise RuntimeError("use_sampler: the pipeline has no random-access source")

    def add_sampler(self, new_sampler):
        """Makes the sources' current sampler the child of `new_sampler`."""
        for n in self._walk():
            if n.sampler is not None:
                new_sampler.add_child(n.sampler)
                n.sampler = new_sampler

    # ---- queries -----------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) in one epoch; -1 for an infinite pipeline."""
        n = self._size()
        if n is None:
            n = sum(1 for _ in self._rows(Run.create(self)))
        return int(n)

    def _first_row(self):
        for row in self._rows(Run.create(self)):
            return row
        raise RuntimeError("the dataset is empty")

    def output_shapes(self, estimate=False):
        """The shape of each column of the first row (batch), as lists of ints."""
        return [list(np.shape(c)) for c in self._first_row()]

    def output_types(self):
        """The numpy dtype of each column of the first row (as MindSpore returns)."""
        return [np.asarray(c).dtype for c in self._first_row()]

    def get_batch_size(self):
        """The batch size of the last batch operation (1 without one)."""
        for n in self._walk():
            if isinstance(n, BatchDataset):
                return n.batch_size
        return 1

    def get_repeat_count(self):
        """The count of the last repeat operation (1 without one; -1: forever)."""
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
        per row, for `num_epochs` epochs (-1: unlimited).

        msmlir Tensors have no uint8/uint16/int16/uint32/uint64 dtypes: with
        output_numpy=False such columns (MnistDataset's uint8 images and uint32 labels,
        say) are handed out widened to int32 (8/16-bit) or int64 (32/64-bit), values
        unchanged, with a warning; cast them in the pipeline
        (``.map(transforms.TypeCast(ms.int32), 'label')``) or iterate with
        output_numpy=True to keep the numpy dtype. Columns of other unsupported
        dtypes (strings, objects, complex) raise a TypeError naming the column."""
        return DatasetIterator(self, columns, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like create_tuple_iterator, yielding {column name: value} dicts."""
        return DatasetIterator(self, None, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def __repr__(self):
        return f"<{type(self).__name__} columns={self.get_col_names()}>"


def _op_name(op):
    if op is None:
        return "?"
    name = getattr(op, "__qualname__", None)       # functions, lambdas, methods
    return name if name and not isinstance(op, type) else type(op).__name__


def _output_layout(cols, ins, outs, what):
    """The columns after replacing `ins` with `outs` (MindSpore's rule): as many
    outputs as inputs replace them in place; otherwise the outputs come first, then
    the columns that were not inputs."""
    if len(outs) == len(ins):
        m = dict(zip(ins, outs))
        new = [m.get(c, c) for c in cols]
    else:
        new = list(outs) + [c for c in cols if c not in ins]
    if len(set(new)) != len(new):
        raise ValueError(f"{what}: output columns {outs} collide with the columns "
                         f"{[c for c in cols if c not in ins]}")
    return new


class MapDataset(Dataset):
    def __init__(self, child, operations, input_columns, output_columns, column_order=None,
                 num_parallel_workers=None, cache=None):
        super().__init__((child,), num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(o) for o in ops):
            raise TypeError("map: operations must be a callable or a non-empty list of callables")
        self.operations = ops
        self._cache = self._check_cache(cache, child, ops)
        self._cached_rows = None      # rows per pass, once a pass was fully cached
        cols = child.get_col_names()
        ins = col_list(input_columns, "input_columns") or [cols[0]]
        for c in ins:
            if c not in cols:
                raise ValueError(f"map: input column '{c}' is not in the dataset columns {cols}")
        outs = col_list(output_columns, "output_columns") or list(ins)
        new = _output_layout(cols, ins, outs, "map")
        order = col_list(column_order, "column_order")
        if order is not None:
            if sorted(order) != sorted(new):
                raise ValueError(f"map: column_order {order} must list the columns {new}")
        self._in_idx = [cols.index(c) for c in ins]
        self._ins, self._outs, self._child_cols = ins, outs, cols
        self._cols = new
        self._order = order
        final = order or new
        # where each final column comes from: ('in', child index) or ('out', output index)
        self._src = [("out", outs.index(c)) if c in outs else ("in", cols.index(c))
                     for c in final]
        self._workers = resolve_workers(num_parallel_workers)
        self._pool_state = {}

    def get_col_names(self):
        return list(self._order or self._cols)

    def _apply(self, row, k, pass_no):
        vals = [row[i] for i in self._in_idx]
        op = None
        try:
            for op in self.operations:
                res = op(*vals)
                vals = list(res) if isinstance(res, tuple) else [res]
            vals = [to_numpy(v) for v in vals]
        except Exception as e:
            add_note(e, f"msmlir.dataset: raised by the map operation {_op_name(op)} on "
                         f"row {k} of pass {pass_no} (input_columns {self._ins})")
            raise
        if len(vals) != len(self._outs):
            raise RuntimeError(f"map: the operations returned {len(vals)} columns, expected "
                               f"{len(self._outs)} (output_columns {self._outs})")
        return tuple(vals[j] if kind == "out" else row[j] for kind, j in self._src)

    @staticmethod
    def _check_cache(cache, child, ops):
        from .cache import check
        if check(cache, "map") is None:
            return None
        random = [_op_name(o) for o in ops if type(o).__name__.startswith("Random")]
        if random:
            raise ValueError(f"map: a cache keeps the first pass's results, so the operations "
                             f"must not be random, got {random}")
        for n in child._walk():
            if isinstance(n, ShuffleDataset) or getattr(n, "shuffle_flag", False):
                raise ValueError(f"map: a cache replays the rows in the first pass's order, but "
                                 f"{type(n).__name__} below shuffles them; give the cache to the "
                                 f"source instead (cache=...), or shuffle after the map")
        return cache

    def _rows(self, run):
        if self._cache is None:
            yield from _per_row_in_parallel(self, run, self._apply, "msmlir-dataset-map")
            return
        if self._cached_rows is not None:       # every row of a pass is cached
            for k in range(self._cached_rows):
                yield self._cache.get(self, k)
            return
        n = 0
        complete = True

        def apply(row, k, pass_no):
            return self._cache.fetch(self, k, lambda: self._apply(row, k, pass_no))

        for n, row in enumerate(_per_row_in_parallel(self, run, apply, "msmlir-dataset-map"), 1):
            complete = complete and self._cache.get(self, n - 1) is not None
            yield row
        if complete:
            self._cached_rows = n

    def _size(self):
        return self.children[0]._size()


class FilterDataset(Dataset):
    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__((child,), num_parallel_workers)
        if not callable(predicate):
            raise TypeError("filter: predicate must be callable")
        self.predicate = predicate
        cols = child.get_col_names()
        ins = col_list(input_columns, "input_columns") or list(cols)
        for c in ins:
            if c not in cols:
                raise ValueError(f"filter: input column '{c}' is not in {cols}")
        self._idx = [cols.index(c) for c in ins]
        self._workers = resolve_workers(num_parallel_workers)
        self._pool_state = {}

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        for row in _per_row_in_parallel(self, run, self._keep, "msmlir-dataset-filter"):
            if row is not None:
                yield row

    def _keep(self, row, k, pass_no):
        """`row` if the predicate keeps it, else None."""
        try:
            keep = bool(np.asarray(self.predicate(*[row[i] for i in self._idx])))
        except Exception as e:
            add_note(e, f"msmlir.dataset: raised by the filter predicate "
                         f"{_op_name(self.predicate)} on row {k} of pass {pass_no}")
            raise
        return row if keep else None

    def _size(self):
        return None


def _per_row_in_parallel(node, run, per_row, name):
    """per_row(row, k, pass_no) over the rows of node's child, in order, on node's
    worker pool; each row draws from its own random stream (row_scope), so the
    result does not depend on the number of workers."""
    from ._random import row_scope
    pass_no = run.next_pass(node)
    key = run.key(node, pass_no)

    def fn(item):
        k, row = item
        with row_scope(key + [k]):
            return per_row(row, k, pass_no)

    yield from ordered_parallel(fn, enumerate(node.children[0]._rows(run)), node._workers,
                                name, state=node._pool_state)


def _pad_to(arr, shape, value, name):
    if arr.ndim != len(shape):
        raise RuntimeError(f"padded_batch: column '{name}' has rank {arr.ndim}, pad_info shape "
                           f"{list(shape)} has rank {len(shape)}")
    if any(a > s for a, s in zip(arr.shape, shape)):
        raise RuntimeError(f"padded_batch: a row of column '{name}' with shape "
                           f"{list(arr.shape)} is larger than the pad shape {list(shape)}")
    out = np.full(shape, value, dtype=arr.dtype)
    out[tuple(slice(0, d) for d in arr.shape)] = arr
    return out


class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder, per_batch_map=None, input_columns=None,
                 output_columns=None, num_parallel_workers=None, pad_info=None):
        super().__init__((child,), num_parallel_workers)
        if callable(batch_size):
            self.batch_size = batch_size
        else:
            self.batch_size = check_positive_int("batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"drop_remainder must be a bool, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        cols = child.get_col_names()
        self._child_cols = cols
        ins = col_list(input_columns, "input_columns")
        outs = col_list(output_columns, "output_columns")
        if per_batch_map is None:
            if ins is not None or outs is not None:
                raise ValueError("batch: input_columns and output_columns can be specified only "
                                 "with per_batch_map")
            self._ins, self._outs, self._cols = None, None, list(cols)
        else:
            if not callable(per_batch_map):
                raise TypeError("per_batch_map must be callable")
            ins = ins or list(cols)
            for c in ins:
                if c not in cols:
                    raise ValueError(f"batch: input column '{c}' is not in {cols}")
            outs = outs or list(ins)
            self._ins, self._outs = ins, outs
            self._cols = _output_layout(cols, ins, outs, "batch")
        if pad_info is not None:
            if not isinstance(pad_info, dict):
                raise TypeError("pad_info must be a dict {column: (shape, pad_value)}")
            for c in pad_info:
                if c not in self._cols:
                    raise ValueError(f"pad_info: column '{c}' is not in {self._cols}")
        self.pad_info = pad_info
        self._workers = resolve_workers(num_parallel_workers)
        self._pool_state = {}

    def get_col_names(self):
        return list(self._cols)

    def _stack_column(self, name, col):
        if isinstance(col, np.ndarray):
            return col
        col = [to_numpy(c) for c in col]
        if self.pad_info is not None and (not self.pad_info or name in self.pad_info):
            shape, value = self.pad_info.get(name, (None, 0)) if self.pad_info else (None, 0)
            ranks = {c.ndim for c in col}
            if len(ranks) != 1:
                raise RuntimeError(f"padded_batch: column '{name}' has rows of different ranks")
            big = [max(c.shape[d] for c in col) for d in range(ranks.pop())]
            if shape is None:
                shape = big
            else:
                shape = [b if s is None else int(s) for s, b in zip(shape, big)] \
                    if len(shape) == len(big) else list(shape)
            col = [_pad_to(c, shape, 0 if value is None else value, name) for c in col]
        shapes = {c.shape for c in col}
        if len(shapes) != 1:
            raise RuntimeError(f"batch: column '{name}' has rows of different shapes "
                               f"{sorted(shapes)}; rows must have the same shape to be "
                               f"batched (or use padded_batch)")
        return np.stack(col)

    def _stack(self, item):
        rows, batch_num, epoch = item
        cols = self._child_cols
        columns = [[r[i] for r in rows] for i in range(len(cols))]
        if self.per_batch_map is None:
            return tuple(self._stack_column(n, c) for n, c in zip(cols, columns))
        idx = [cols.index(c) for c in self._ins]
        try:
            res = self.per_batch_map(*[columns[i] for i in idx], BatchInfo(batch_num, epoch))
        except Exception as e:
            add_note(e, f"msmlir.dataset: raised by per_batch_map {_op_name(self.per_batch_map)}"
                         f" on batch {batch_num} of epoch {epoch}")
            raise
        res = res if isinstance(res, tuple) else (res,)
        if len(res) != len(self._outs):
            raise RuntimeError(f"per_batch_map returned {len(res)} columns, expected "
                               f"{len(self._outs)} (output_columns {self._outs})")
        by_name = {c: columns[i] for i, c in enumerate(cols) if c not in self._ins}
        by_name.update(zip(self._outs, res))
        return tuple(self._stack_column(n, by_name[n]) for n in self._cols)

    def _batches(self, run, epoch):
        rows = self.children[0]._rows(run)
        k = 0
        while True:
            size = self.batch_size
            if callable(size):
                size = self.batch_size(BatchInfo(k, epoch))
                if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size <= 0:
                    raise ValueError(f"batch: the batch_size callable returned {size!r}; it "
                                     f"must return a positive int")
            buf = list(itertools.islice(rows, int(size)))
            if not buf or (len(buf) < size and self.drop_remainder):
                return
            yield buf, k, epoch
            k += 1
            if len(buf) < size:
                return

    def _rows(self, run):
        from ._random import row_scope
        epoch = run.next_pass(self)
        key = run.key(self, epoch)
        workers = self._workers if self.per_batch_map is not None else 1

        def fn(item):
            with row_scope(key + [item[1]]):
                return self._stack(item)

        yield from ordered_parallel(fn, self._batches(run, epoch), workers,
                                     "msmlir-dataset-batch", state=self._pool_state)

    def _size(self):
        if callable(self.batch_size):
            return None
        n = self.children[0]._size()
        if n is None or n < 0:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)


class ShuffleDataset(Dataset):
    def __init__(self, child, buffer_size):
        super().__init__((child,))
        buffer_size = check_positive_int("buffer_size", buffer_size)
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
        self.count = -1 if count is None else check_positive_int("count", count, True)

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
        self.count = check_positive_int("count", count, True)

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
        self._cols = col_list(columns, "columns")
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
        ins = col_list(input_columns, "input_columns")
        outs = col_list(output_columns, "output_columns")
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
