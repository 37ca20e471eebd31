"""Collective ops (MindSpore's AllReduce, AllGather, ReduceScatter, Broadcast,
AlltoAll) over all ranks of the MPI job (`mpirun -n N`;
msmlir.communication.init() first). The first four are one mindir op each,
compiled with the rest of the graph
(passes/lowering/mindir_to_linalg/collectives.py) and differentiable where
MindSpore's are (passes/autodiff/bprop_comm.py); all_to_all is composed of
all_gather and slices (exact; N times the bytes of a point-to-point exchange,
as the pinned mpi dialect has no MPI_Alltoall), its gradient follows."""
from __future__ import annotations

from ..dialects.enums import ReduceOp as _ReduceOp, enum_case
from ..runtime import mpi as _mpi
from ._base import emit, mindir, primitive, to_tensor, _b

__all__ = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "ReduceOp"]

_COMM_DTYPES = ("float32", "float64", "int32", "int64")


class ReduceOp:
    """MindSpore's ops.ReduceOp names."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_MAX_RANK = 8
_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")


def _operand(x, what: str):
    t = to_tensor(x)
    if str(t.dtype) not in _COMM_DTYPES:
        _b.error(f"{what}: tensors of {', '.join(_COMM_DTYPES)} only, got {t.dtype}")
    return t


def _check_ranks_agree(t, what: str, extra: int = 0) -> None:
    """Every rank must call the same collective on the same dtype and shape
    (else MPI would read past buffers or wait forever): at trace time the
    ranks exchange (op, dtype, shape) and a mismatch is an error at the user's
    line on every rank, naming each rank's tensor."""
    if not _mpi.initialized() or _mpi.size() == 1:
        return
    if t.ndim > _MAX_RANK:
        _b.error(f"{what}: tensors of rank <= {_MAX_RANK} only, got rank {t.ndim}")
    code = [_COLLECTIVES.index(what), _COMM_DTYPES.index(str(t.dtype)), extra, t.ndim]
    mine = code + list(t.shape) + [-1] * (_MAX_RANK - t.ndim)
    everyone = _mpi.allgather_ints(mine)
    if any(row != everyone[0] for row in everyone):
        def show(row):
            return f"{_COMM_DTYPES[row[1]]}{row[4:4 + row[3]]}"
        ranks = "; ".join(f"rank {r}: {show(row)}" for r, row in enumerate(everyone))
        _b.error(f"{what}: the ranks do not call it on the same tensor type ({ranks})")


def _reduction(op, what):
    try:
        return enum_case(_ReduceOp, str(op).lower(), f"{what} op")
    except ValueError as e:
        _b.error(str(e))


def _group_size(what: str) -> int:
    if not _mpi.initialized():
        _b.error(f"{what} needs msmlir.communication.init() first (and mpirun to start the ranks)")
    return _mpi.size()


@primitive
def all_reduce(x, op=ReduceOp.SUM):
    """Element-wise `op` (sum, max, min, prod) of x over all ranks, on every rank."""
    t = _operand(x, "all_reduce")
    _group_size("all_reduce")
    how = _reduction(op, "all_reduce")
    _check_ranks_agree(t, "all_reduce", int(how))
    return emit(mindir.AllReduceOp, t.value, op=how)


@primitive
def all_gather(x):
    """The ranks' x concatenated along dim 0 in rank order, on every rank."""
    t = _operand(x, "all_gather")
    n = _group_size("all_gather")
    if t.ndim < 1:
        _b.error("all_gather: needs a tensor of rank >= 1 (it joins dim 0)")
    _check_ranks_agree(t, "all_gather")
    shape = [t.shape[0] * n] + list(t.shape[1:])
    return emit(mindir.AllGatherOp, _b.tensor_type(shape, t.dtype), t.value, _b.i64_attr(n))


@primitive
def reduce_scatter(x, op=ReduceOp.SUM):
    """`op` of x over all ranks; rank r keeps the r-th of N equal slices of dim 0."""
    t = _operand(x, "reduce_scatter")
    n = _group_size("reduce_scatter")
    how = _reduction(op, "reduce_scatter")
    _check_ranks_agree(t, "reduce_scatter", int(how))
    if t.ndim < 1 or t.shape[0] % n:
        _b.error(f"reduce_scatter: dim 0 of a {list(t.shape)} tensor is not divisible by the "
                 f"{n} ranks")
    shape = [t.shape[0] // n] + list(t.shape[1:])
    return emit(mindir.ReduceScatterOp, _b.tensor_type(shape, t.dtype), t.value, _b.i64_attr(n),
                op=how)


@primitive
def broadcast(x, root=0):
    """Rank `root`'s x on every rank."""
    t = _operand(x, "broadcast")
    if not 0 <= int(root) < _group_size("broadcast"):
        _b.error(f"broadcast: root {root} is not a rank of the {_mpi.size()} processes")
    _check_ranks_agree(t, "broadcast", int(root))
    return emit(mindir.BroadcastOp, t.value, root=_b.i64_attr(int(root)))


@primitive
def all_to_all(x, split_dim=0, concat_dim=0, split_count=None):
    """MindSpore's AlltoAll: x is cut into N equal chunks along split_dim, chunk
    j goes to rank j, and each rank concatenates what it receives (rank 0's
    chunk first) along concat_dim. Composed of all_gather and slices."""
    from .array import reshape, slice as _slice, transpose
    t = _operand(x, "all_to_all")
    n = _group_size("all_to_all")
    if split_count is not None and int(split_count) != n:
        _b.error(f"all_to_all: split_count {split_count} must equal the {n} ranks")
    sd, cd = int(split_dim), int(concat_dim)
    if not (-t.ndim <= sd < t.ndim and -t.ndim <= cd < t.ndim):
        _b.error(f"all_to_all: split_dim {split_dim} / concat_dim {concat_dim} out of range for "
                 f"a rank-{t.ndim} tensor")
    sd, cd = sd % t.ndim, cd % t.ndim
    if t.shape[sd] % n:
        _b.error(f"all_to_all: dim {sd} of a {list(t.shape)} tensor is not divisible by the "
                 f"{n} ranks")
    c, r = t.shape[sd] // n, _mpi.rank()
    ranks = reshape(all_gather(reshape(t, (1,) + tuple(t.shape))), (n,) + tuple(t.shape))
    begin = [0] * (t.ndim + 1)
    begin[1 + sd] = r * c
    size = [n] + list(t.shape)
    size[1 + sd] = c
    mine = _slice(ranks, begin, size)                 # [N, ...] : rank i's chunk r at i
    perm = list(range(1, t.ndim + 1))
    perm.insert(cd, 0)                                # N next to concat_dim, then merged
    out = list(mine.shape[1:])
    out[cd] *= n
    return reshape(transpose(mine, tuple(perm)), tuple(out))
