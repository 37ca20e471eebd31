"""Iterators with a background producer.

Iteration (`create_tuple_iterator`, `create_dict_iterator`, ``for row in ds``)
starts one background producer thread per iterator that runs the pipeline for
`num_epochs` epochs and hands rows over through a bounded queue
(`config.get_prefetch_size()` entries). Each epoch ends with StopIteration in
the consumer; the next ``for`` over the same iterator continues with the next
epoch. An exception raised in the producer (a source, a map function, a batch
of mismatched shapes) is re-raised in the consumer with its original type and
traceback. Stopping early (``break``, `iterator.stop()`, garbage collection)
signals the producer, which exits at its next queue operation.
"""
from __future__ import annotations

import numbers
import queue
import threading
import weakref

import numpy as np

from . import config
from ._run import Run
from ._util import col_list

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


class DatasetIterator:
    """Iterates a pipeline for `num_epochs` epochs; each epoch ends with StopIteration."""

    def __init__(self, dataset, columns, num_epochs, output_numpy, as_dict):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, numbers.Integral) or \
                (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        cols = col_list(columns, "columns")
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
                                  args=(Run.create(dataset), dataset, self.num_epochs, idx,
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
