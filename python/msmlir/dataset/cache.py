"""`mindspore.dataset.DatasetCache`: keeps the rows a pipeline node produced, so later
passes (epochs) read them from memory instead of reading and decoding again.

MindSpore's cache is a separate server (`cache_admin`) that pipelines reach by
session id; msmlir's is in the process: a `DatasetCache` object holds the rows of
the nodes it is given to (`cache=` of a source or of `map`). On a source the rows
are kept by row number, so the sampler still shuffles and shards every pass (as
MindSpore's cache over a leaf); on a map they are kept by position in the pass,
which needs a pipeline below that gives the same rows in the same order each pass,
and deterministic operations (MindSpore also refuses random operations there).
`size` (MB, 0 = no limit) caps the memory: rows beyond it are not cached and are
produced again each pass (MindSpore without spilling; `spilling=True`, spilling to
disk, is not supported).
"""
from __future__ import annotations

import numbers
import threading

__all__ = ["DatasetCache"]


class DatasetCache:
    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None,
                 num_connections=None, prefetch_size=None):
        for name, v in (("session_id", session_id), ("size", size)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"DatasetCache: {name} must be a non-negative int, got {v!r}")
        if spilling:
            raise ValueError("DatasetCache: spilling=True (spilling to disk) is not supported; "
                             "the cache is in memory")
        self.session_id, self.size, self.spilling = int(session_id), int(size), False
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size
        self._rows = {}          # (node id, key) -> row
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, node, key):
        """The cached row, or None."""
        return self._rows.get((id(node), key))

    def put(self, node, key, row):
        n = sum(getattr(a, "nbytes", 0) for a in row)
        with self._lock:
            if self.size and self._bytes + n > self.size * 2 ** 20:
                return               # full: a miss every pass
            if (id(node), key) not in self._rows:
                self._rows[(id(node), key)] = row
                self._bytes += n

    def fetch(self, node, key, produce):
        row = self.get(node, key)
        if row is None:
            row = produce()
            self.put(node, key, row)
        return row

    def get_stat(self):
        """(num_mem_cached, num_disk_cached, avg_cache_sz) as MindSpore's get_stat."""
        from types import SimpleNamespace
        n = len(self._rows)
        return SimpleNamespace(num_mem_cached=n, num_disk_cached=0,
                               avg_cache_sz=self._bytes // n if n else 0)

    def __repr__(self):
        return f"DatasetCache(session_id={self.session_id}, size={self.size})"


def check(cache, what):
    if cache is not None and not isinstance(cache, DatasetCache):
        raise TypeError(f"{what}: cache must be a DatasetCache, got {type(cache).__name__}")
    return cache
