"""`mindspore.Profiler` (`mindspore.profiler.Profiler`): a host-side profile of the
process, written where MindSpore writes its profiling data.

MindSpore's profiler records device kernels (CANN / CUPTI timelines) for MindInsight.
msmlir runs its compiled code on the host CPU inside the calling thread, so the
profile is Python's deterministic profiler (cProfile) over the thread that started
it: the time in each compiled call, in the data pipeline's consumer side, in
callbacks and in compilation, by function. `analyse()` writes, under
`output_path/profiler/`:

  host_profile.prof   the raw cProfile data (`python -m pstats`, snakeviz, ...)
  host_profile.txt    the functions sorted by cumulative time, then by own time

Not recorded: device timelines, memory (`profile_memory`), threads other than the
starting one (dataset workers), and MindSpore's other outputs (op statistics
tables, timeline JSON, MindInsight summary); asking for them is accepted and noted
in host_profile.txt.
"""
from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
from enum import Enum

__all__ = ["Profiler", "ProfilerLevel"]


class ProfilerLevel(Enum):
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class Profiler:
    """Profiler(output_path="./data", start_profile=True, ...): profiles from
    construction (or `start()`) to `stop()` / `analyse()`."""

    _active = None     # one cProfile can run per thread at a time

    def __init__(self, output_path="./data", start_profile=True, profile_memory=False,
                 **kwargs):
        if not isinstance(output_path, (str, os.PathLike)):
            raise TypeError(f"Profiler: output_path must be a path, got "
                            f"{type(output_path).__name__}")
        self._dir = os.path.join(os.path.realpath(str(output_path)), "profiler")
        self._profile = cProfile.Profile()
        self._running = False
        self._ignored = sorted(k for k, v in {"profile_memory": profile_memory, **kwargs}.items()
                               if v not in (None, False))
        if start_profile:
            self.start()

    def start(self):
        if self._running:
            return
        if Profiler._active is not None and Profiler._active is not self:
            raise RuntimeError("Profiler: another Profiler is running; stop() it first")
        self._profile.enable()
        self._running = True
        Profiler._active = self

    def stop(self):
        if not self._running:
            return
        self._profile.disable()
        self._running = False
        Profiler._active = None

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stops profiling and writes host_profile.prof / .txt; returns the directory."""
        if offline_path is not None:
            raise ValueError("Profiler.analyse: offline_path (analysing another run's device "
                             "data) is not supported")
        self.stop()
        os.makedirs(self._dir, exist_ok=True)
        self._profile.dump_stats(os.path.join(self._dir, "host_profile.prof"))
        out = io.StringIO()
        if self._ignored:
            out.write(f"# not recorded (msmlir profiles the host only): "
                      f"{', '.join(self._ignored)}\n")
        stats = pstats.Stats(self._profile, stream=out)
        stats.sort_stats("cumulative").print_stats(60)
        stats.sort_stats("tottime").print_stats(30)
        with open(os.path.join(self._dir, "host_profile.txt"), "w") as f:
            f.write(out.getvalue())
        return self._dir

    @staticmethod
    def offline_analyse(path, pretty=False, step_list=None, data_simplification=True):
        raise ValueError("Profiler.offline_analyse: device profiling data is not produced by "
                         "msmlir (its profile is the host's, written by analyse())")

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.analyse()


# MindSpore's module path mindspore.profiler.profiling (its 1.x home of Profiler)
profiling = sys.modules[__name__]
sys.modules.setdefault(f"{__name__}.profiling", profiling)
