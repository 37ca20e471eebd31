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

Determinism: random operations (samplers, `shuffle`) draw from numpy
Generators seeded with (pipeline seed, node position in the pipeline, pass
number of that node), and the random transforms from a generator per row
(`_random`), so with `config.set_seed` (or `msmlir.set_seed`) every iterator of
the same pipeline yields the same rows in the same order, with any number of
parallel workers, and each epoch / repeat is reshuffled differently.

Parallelism: `map`, `filter`, `batch` (with per_batch_map) and random-access
`GeneratorDataset` sources run their per-row work on `num_parallel_workers`
threads (`_ordered_parallel`); results keep the input order, so the output is
the serial one. Threads, not processes: numpy releases the GIL inside its array
loops, so numpy-heavy operations speed up; pure-Python ones do not.
"""
from __future__ import annotations

import itertools
import numbers
import queue
import threading
import weakref

import numpy as np

from . import config

__all__ = ["Dataset", "NumpySlicesDataset", "GeneratorDataset", "MnistDataset", "BatchInfo",
           "MapDataset", "BatchDataset", "FilterDataset", "ShuffleDataset", "RepeatDataset",
           "TakeDataset", "SkipDataset", "ProjectDataset", "RenameDataset", "ZipDataset",
           "ConcatDataset"]


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
        return cls(root, _resolve_seed(), 0 if s is None else int(s))

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


def _resolve_seed() -> int:
    s = config.get_seed()
    if s is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    return int(s)


def _resolve_workers(num_parallel_workers, what="num_parallel_workers"):
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


def _add_note(exc, note):
    if hasattr(exc, "add_note") and note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


# Parallel workers: a pass pulls its input items (rows, index lists, batches) in
# order on the producer thread and hands chunks of them to a pool of threads; the
# results come back in input order, so the output equals the serial one. Chunks
# grow while the per-item work is short (about 1 ms of work per chunk), which keeps
# the pool's overhead small for cheap operations.
#
# Threads only pay off when the work spends its time in GIL-free loops (numpy on
# large enough arrays, I/O, sleeps); for small numpy arrays CPython's GIL hand-offs
# make a pool slower than one thread. So the pool is adaptive: it alternates short
# probe phases (pool, then inline on the producer thread, ~30 ms each) and runs the
# faster mode for the following ~1 s (2, 4, ... 16 s while the choice is confirmed),
# probing again after that; the choice carries over to the node's next pass
# (`state`). The results do not depend on the mode (same items,
# same order, same per-row random generators).
_CHUNK_TARGET_S = 1e-3
_MAX_CHUNK = 64
_PROBE_S = 0.03          # minimum length of a probe phase
_PROBE_ITEMS = 8         # ... and minimum items in it
_RUN_PROBES = 30         # the chosen mode then runs this many probe lengths
_POOL_MARGIN = 0.9       # the pool must be at least 10% faster per item to be kept


_ADAPTIVE = True          # module switch (benchmarks compare against a fixed pool)


def _ordered_parallel(fn, items, workers, name, adaptive=None, state=None):
    """Yields fn(item) for every item, in order, computing on up to `workers` threads.
    An exception of fn(item) is raised after the results of the items before it,
    as in the serial loop. `state` (a dict kept by the calling node) remembers the
    adaptive choice between passes."""
    if workers <= 1:
        for item in items:
            yield fn(item)
        return
    import collections
    import time
    from concurrent.futures import ThreadPoolExecutor

    perf = time.perf_counter
    stats = [0.0, 0]                          # work seconds, items (approximate)

    def task(chunk):
        t0 = perf()
        out = []
        try:
            for item in chunk:
                out.append(fn(item))
        except BaseException as e:  # noqa: BLE001  (re-raised in order by the consumer)
            return out, e
        finally:
            stats[0] += perf() - t0
            stats[1] += len(chunk)
        return out, None

    def chunk_size():
        if stats[1] == 0:
            return 1
        per = stats[0] / stats[1]
        return max(1, min(_MAX_CHUNK, int(_CHUNK_TARGET_S / max(per, 1e-7))))

    if adaptive is None:
        adaptive = _ADAPTIVE
    pool = None
    pending = collections.deque()
    window = 2 * workers
    it = iter(items)
    # adaptive state: mode "pool" or "inline"; a phase is timed by the wall clock
    # (pipeline throughput: the pool's threads also slow the stages downstream)
    state = {} if state is None else state
    if state.get("mode"):                     # a choice from an earlier pass: run it
        mode, probing = state["mode"], False
        phase_len = state.get("run", 1) * _RUN_PROBES * _PROBE_S
    else:
        mode, probing, phase_len = "pool", True, _PROBE_S
    per_item = state.setdefault("per_item", {})
    phase_n = 0
    phase_start = perf()
    try:
        while True:
            if mode == "pool":
                if pool is None:
                    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
                chunk = list(itertools.islice(it, chunk_size()))
                if chunk:
                    pending.append(pool.submit(task, chunk))
                    phase_n += len(chunk)
                if pending and (len(pending) >= window or not chunk):
                    out, err = pending.popleft().result()
                    yield from out
                    if err is not None:
                        raise err
                if not chunk and not pending:
                    return
            else:
                item = next(it, _END)
                if item is _END:
                    return
                v = fn(item)
                phase_n += 1
                yield v
            elapsed = perf() - phase_start
            if adaptive and elapsed >= phase_len and \
                    (phase_n >= _PROBE_ITEMS or elapsed >= 3 * phase_len):
                if mode == "pool":              # finish the pool's items before switching
                    while pending:
                        out, err = pending.popleft().result()
                        yield from out
                        if err is not None:
                            raise err
                per_item[mode] = (perf() - phase_start) / max(phase_n, 1)
                if probing and mode == "pool":
                    mode = "inline"             # probe the other mode
                else:
                    probing = not probing
                    if probing:                 # the run is over: probe again
                        mode, phase_len = "pool", _PROBE_S
                    else:                       # run the faster mode for a while
                        fast = per_item.get("pool", 1e9) < \
                            _POOL_MARGIN * per_item.get("inline", 1e9)
                        new = "pool" if fast else "inline"
                        # a confirmed choice runs twice as long before the next probe
                        run = state.get("run", 1) * 2 if new == state.get("mode") else 1
                        state["run"] = min(run, 16)
                        mode = state["mode"] = new
                        phase_len = state["run"] * _RUN_PROBES * _PROBE_S
                phase_n, phase_start = 0, perf()
    finally:
        for f in pending:
            f.cancel()
        if pool is not None:
            pool.shutdown(wait=True)


_END = object()


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
        (see `_ordered_parallel`). `python_multiprocessing=True` is accepted and runs
        on threads too (msmlir has no process pool). The random transforms
        (`vision.RandomCrop`, ...) draw from a generator per row (see
        `msmlir.dataset._random`), so they give the same result with any number of
        workers; a user function drawing from numpy's global
        generator does not (use the random transforms, or one worker, for that).

        An exception in an operation is re-raised in the consumer with its type and
        message, with a note naming the map, the operation and the row.
        `cache`, `callbacks`, `max_rowsize` and `offload` are accepted and ignored."""
        if kwargs:
            raise TypeError(f"map() got unexpected keyword arguments {sorted(kwargs)}")
        return MapDataset(self, operations, input_columns, output_columns, column_order,
                          num_parallel_workers)

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
            if isinstance(n, _SourceDataset) and n.sampler is not None:
                n.sampler = select_sampler(None, new_sampler, None, None, None)
                found = True
        if not found:
            raise RuntimeError("use_sampler: the pipeline has no random-access source")

    def add_sampler(self, new_sampler):
        """Makes the sources' current sampler the child of `new_sampler`."""
        for n in self._walk():
            if isinstance(n, _SourceDataset) and n.sampler is not None:
                new_sampler.add_child(n.sampler)
                n.sampler = new_sampler

    # ---- queries -----------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) in one epoch; -1 for an infinite pipeline."""
        n = self._size()
        if n is None:
            n = sum(1 for _ in self._rows(_Run.create(self)))
        return int(n)

    def _first_row(self):
        for row in self._rows(_Run.create(self)):
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
            num_shards = _check_positive_int("num_shards", num_shards)
            if isinstance(shard_id, bool) or not isinstance(shard_id, numbers.Integral) or \
                    not 0 <= shard_id < num_shards:
                raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id!r}")
        self.num_shards = num_shards
        self.shard_id = shard_id
        if num_parallel_workers is not None:
            _resolve_workers(num_parallel_workers)          # validates
        self.sampler = None
        if random_access:
            from .samplers import select_sampler
            self.sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)

    def get_col_names(self):
        return list(self._columns)

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
        return 1 if w is None else _resolve_workers(w)

    def _rows(self, run):
        idx, pass_no = self._indices(run)
        workers = self._workers()
        if workers <= 1 and type(self)._get is not GeneratorDataset._get:
            for i in idx:                      # built-in sources: plain slicing
                yield self._get(int(i))
            return
        from ._random import row_scope
        key = run.key(self, pass_no) + [1]

        def fetch(ki):                         # random transforms in __getitem__: per row
            k, i = ki
            with row_scope(key + [k]):
                return self._get(int(i))

        yield from _ordered_parallel(fetch, enumerate(idx), workers,
                                     f"msmlir-dataset-{type(self).__name__}",
                                     state=self.__dict__.setdefault("_pool_state", {}))

    def _size(self):
        return self.sampler._count(self._n())


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
    `shuffle=None` shuffles, as in MindSpore; `sampler`, `num_samples`, `num_shards`
    and `shard_id` select the rows (see `_SourceDataset`). `num_parallel_workers` is
    accepted: a row is a slice, too cheap to be worth a thread pool."""

    def _workers(self):
        return 1

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


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------

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
                 num_parallel_workers=None):
        super().__init__((child,), num_parallel_workers)
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
        new = _output_layout(cols, ins, outs, "map")
        order = _col_list(column_order, "column_order")
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
        self._workers = _resolve_workers(num_parallel_workers)
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
            vals = [_to_numpy(v) for v in vals]
        except Exception as e:
            _add_note(e, f"msmlir.dataset: raised by the map operation {_op_name(op)} on "
                         f"row {k} of pass {pass_no} (input_columns {self._ins})")
            raise
        if len(vals) != len(self._outs):
            raise RuntimeError(f"map: the operations returned {len(vals)} columns, expected "
                               f"{len(self._outs)} (output_columns {self._outs})")
        return tuple(vals[j] if kind == "out" else row[j] for kind, j in self._src)

    def _rows(self, run):
        from ._random import row_scope
        pass_no = run.next_pass(self)
        key = run.key(self, pass_no)

        def fn(item):
            k, row = item
            with row_scope(key + [k]):
                return self._apply(row, k, pass_no)

        yield from _ordered_parallel(fn, enumerate(self.children[0]._rows(run)), self._workers,
                                     "msmlir-dataset-map", state=self._pool_state)

    def _size(self):
        return self.children[0]._size()


class FilterDataset(Dataset):
    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__((child,), num_parallel_workers)
        if not callable(predicate):
            raise TypeError("filter: predicate must be callable")
        self.predicate = predicate
        cols = child.get_col_names()
        ins = _col_list(input_columns, "input_columns") or list(cols)
        for c in ins:
            if c not in cols:
                raise ValueError(f"filter: input column '{c}' is not in {cols}")
        self._idx = [cols.index(c) for c in ins]
        self._workers = _resolve_workers(num_parallel_workers)
        self._pool_state = {}

    def get_col_names(self):
        return self.children[0].get_col_names()

    def _rows(self, run):
        from ._random import row_scope
        pass_no = run.next_pass(self)
        key = run.key(self, pass_no)

        def fn(item):
            k, row = item
            with row_scope(key + [k]):
                try:
                    keep = bool(np.asarray(self.predicate(*[row[i] for i in self._idx])))
                except Exception as e:
                    _add_note(e, f"msmlir.dataset: raised by the filter predicate "
                                 f"{_op_name(self.predicate)} on row {k} of pass {pass_no}")
                    raise
            return row if keep else None

        for row in _ordered_parallel(fn, enumerate(self.children[0]._rows(run)), self._workers,
                                     "msmlir-dataset-filter", state=self._pool_state):
            if row is not None:
                yield row

    def _size(self):
        return None


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
            self.batch_size = _check_positive_int("batch_size", batch_size)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"drop_remainder must be a bool, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        cols = child.get_col_names()
        self._child_cols = cols
        ins = _col_list(input_columns, "input_columns")
        outs = _col_list(output_columns, "output_columns")
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
        self._workers = _resolve_workers(num_parallel_workers)
        self._pool_state = {}

    def get_col_names(self):
        return list(self._cols)

    def _stack_column(self, name, col):
        if isinstance(col, np.ndarray):
            return col
        col = [_to_numpy(c) for c in col]
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
            _add_note(e, f"msmlir.dataset: raised by per_batch_map {_op_name(self.per_batch_map)}"
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

        yield from _ordered_parallel(fn, self._batches(run, epoch), workers,
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


# msmlir Tensors have no unsigned (or 16-bit integer) dtypes: such columns are
# widened, value-preserving, when an iterator hands out Tensors (output_numpy=False).
_WIDEN = {np.dtype(np.uint8): np.dtype(np.int32), np.dtype(np.uint16): np.dtype(np.int32),
          np.dtype(np.int16): np.dtype(np.int32), np.dtype(np.uint32): np.dtype(np.int64),
          np.dtype(np.uint64): np.dtype(np.int64)}


def _widen(c, name, warned):
    c = np.asarray(c)
    to = _WIDEN.get(c.dtype)
    if to is None:
        return c
    if c.dtype == np.uint64 and c.size and c.max() > np.iinfo(np.int64).max:
        raise TypeError(f"column '{name}' has uint64 values above the int64 range; msmlir "
                        f"Tensors have no uint64: iterate with output_numpy=True")
    if name in warned:
        return c.astype(to)
    warned.add(name)                          # once per iterator and column
    import warnings
    warnings.warn(f"msmlir.dataset: column '{name}' is {c.dtype}, which msmlir Tensors do not "
                  f"support; the iterator hands it out as {to} (values unchanged). Cast it in "
                  f"the pipeline (transforms.TypeCast) or iterate with output_numpy=True to "
                  f"keep {c.dtype}.", stacklevel=2)
    return c.astype(to)


def _converter(output_numpy, names=None):
    if output_numpy:
        def conv(row):
            return tuple(c if isinstance(c, np.ndarray) and c.flags.owndata else np.array(c)
                         for c in row)
        return conv
    from ..common.tensor import Tensor
    names = list(names or [])
    warned = set()

    def conv(row):
        out = []
        for i, c in enumerate(row):
            name = names[i] if i < len(names) else f"#{i}"
            try:
                out.append(Tensor._make(_widen(c, name, warned)))
            except TypeError as e:
                raise TypeError(f"column '{name}': {e}. Convert the column in the pipeline "
                                f"(e.g. .map(transforms.TypeCast(ms.int32), 'label')) or "
                                f"iterate with output_numpy=True") from None
        return tuple(out)
    return conv


def _produce(run, root, num_epochs, idx, names, output_numpy, q, stop):
    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    try:
        conv = _converter(output_numpy, names)
        epoch = 0
        while num_epochs < 0 or epoch < num_epochs:
            rows = root._rows(run)
            try:
                for row in rows:
                    if stop.is_set():
                        return
                    if idx is not None:
                        row = tuple(row[i] for i in idx)
                    if not put((_ROW, conv(row))):
                        return
            finally:
                if hasattr(rows, "close"):
                    rows.close()        # stops the pipeline's worker pools now
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
                                  args=(_Run.create(dataset), dataset, self.num_epochs, idx,
                                        names, output_numpy, q, stop))
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
