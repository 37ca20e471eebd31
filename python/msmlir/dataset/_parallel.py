"""The ordered thread pool behind `num_parallel_workers`.

`map`, `filter`, `batch` (with per_batch_map) and random-access
`GeneratorDataset` sources run their per-row work on `num_parallel_workers`
threads; results keep the input order, so the output is the serial one. Threads,
not processes: numpy releases the GIL inside its array loops, so numpy-heavy
operations speed up; pure-Python ones do not.
"""
from __future__ import annotations

import itertools

_END = object()

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


def ordered_parallel(fn, items, workers, name, state=None):
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
            if elapsed >= phase_len and \
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

