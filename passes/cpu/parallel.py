"""Multicore CPU code on the MLIR async runtime (no system package needed).

With `msmlir-cpu-pipeline{threads=N}` (N > 1) the codegen stage splits the
outermost parallel loop of big ops (and of fused row clusters) into N
`scf.forall` tasks. After bufferization `msmlir-cpu-lower-vectors{threads=N}`
turns them into `scf.parallel`, and upstream
`async-parallel-for{async-dispatch=true}` + `async-to-async-runtime` +
`convert-async-to-llvm` turn those into calls of the async runtime
(`mlirAsyncRuntime*`), a thread pool in `libmlir_async_runtime.so`, which
ships in the MLIR wheel (mlir/lib). `ensure_runtime()` loads it into the
process with RTLD_GLOBAL so the ExecutionEngine's JIT resolves those symbols
from the process (the compiler driver only passes libmlir_c_runner_utils.so
as a shared library). It is called when a threaded pipeline is built.
The pool has one worker per hardware thread.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

_LOADED: list = []


def runtime_lib_dir() -> Path:
    import mlir
    return Path(list(mlir.__path__)[0]) / "lib"


def async_runtime_path() -> Path:
    return runtime_lib_dir() / "libmlir_async_runtime.so"


def runtime_libs() -> list[str]:
    """Shared libraries a threaded module needs (for ExecutionEngine(shared_libs=...))."""
    return [str(async_runtime_path()), str(runtime_lib_dir() / "libmlir_c_runner_utils.so")]


def ensure_runtime() -> bool:
    """Loads the async runtime globally (once). False if it is missing."""
    if _LOADED:
        return True
    path = async_runtime_path()
    if not path.is_file():
        return False
    _LOADED.append(ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL))
    return True


_MALLOPT_DONE: list = []


def tune_malloc() -> bool:
    """Makes glibc keep big freed blocks for reuse instead of returning them to
    the OS (M_MMAP_THRESHOLD 64 MiB, M_TRIM_THRESHOLD 256 MiB).

    Compiled functions malloc their temporaries (the matmul's packed panels,
    4 MiB each at 1024^3) and the runtime allocates every output with
    numpy.empty; with glibc's defaults each of those big blocks is a fresh
    mmap, so every call pays page faults on it (measured: 1024^3 matmul
    42.6 ms -> 33.0 ms, the same as making the temporaries globals, without
    making functions non-reentrant). Process-wide; the cost is that up to
    256 MiB of freed memory may stay mapped. Disable with MSMLIR_CPU_MALLOPT=0.
    Called once when a codegen pipeline is built. Returns whether it applied.
    """
    if _MALLOPT_DONE:
        return _MALLOPT_DONE[0]
    ok = False
    if os.environ.get("MSMLIR_CPU_MALLOPT", "1") not in ("0", "false"):
        try:
            libc = ctypes.CDLL("libc.so.6")
            M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
            ok = bool(libc.mallopt(M_MMAP_THRESHOLD, 64 << 20)) and \
                bool(libc.mallopt(M_TRIM_THRESHOLD, 256 << 20))
        except (OSError, AttributeError):
            ok = False
    _MALLOPT_DONE.append(ok)
    return ok


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else
               (os.cpu_count() or 1))
