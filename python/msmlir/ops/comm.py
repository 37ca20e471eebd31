"""Collective ops (MindSpore's AllReduce, AllGather, ReduceScatter, Broadcast)
over all ranks of the MPI job (`mpirun -n N`; msmlir.communication.init()
first). Each is one mindir op, compiled with the rest of the graph
(passes/lowering/mindir_to_linalg/collectives.py) and differentiable where
MindSpore's are (passes/autodiff/bprop_comm.py)."""
from __future__ import annotations

from ..dialects.enums import ReduceOp as _ReduceOp, enum_case
from ..runtime import mpi as _mpi
from ._base import emit, mindir, primitive, to_tensor, _b

__all__ = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "ReduceOp"]

_COMM_DTYPES = ("float32", "float64", "int32", "int64")


class ReduceOp:
    """MindSpore's ops.ReduceOp names."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _operand(x, what: str):
    t = to_tensor(x)
    if str(t.dtype) not in _COMM_DTYPES:
        _b.error(f"{what}: tensors of {', '.join(_COMM_DTYPES)} only, got {t.dtype}")
    return t


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
    return emit(mindir.AllReduceOp, t.value, op=_reduction(op, "all_reduce"))


@primitive
def all_gather(x):
    """The ranks' x concatenated along dim 0 in rank order, on every rank."""
    t = _operand(x, "all_gather")
    n = _group_size("all_gather")
    if t.ndim < 1:
        _b.error("all_gather: needs a tensor of rank >= 1 (it joins dim 0)")
    shape = [t.shape[0] * n] + list(t.shape[1:])
    return emit(mindir.AllGatherOp, _b.tensor_type(shape, t.dtype), t.value, _b.i64_attr(n))


@primitive
def reduce_scatter(x, op=ReduceOp.SUM):
    """`op` of x over all ranks; rank r keeps the r-th of N equal slices of dim 0."""
    t = _operand(x, "reduce_scatter")
    n = _group_size("reduce_scatter")
    if t.ndim < 1 or t.shape[0] % n:
        _b.error(f"reduce_scatter: dim 0 of a {list(t.shape)} tensor is not divisible by the "
                 f"{n} ranks")
    shape = [t.shape[0] // n] + list(t.shape[1:])
    return emit(mindir.ReduceScatterOp, _b.tensor_type(shape, t.dtype), t.value, _b.i64_attr(n),
                op=_reduction(op, "reduce_scatter"))


@primitive
def broadcast(x, root=0):
    """Rank `root`'s x on every rank."""
    t = _operand(x, "broadcast")
    if not 0 <= int(root) < _group_size("broadcast"):
        _b.error(f"broadcast: root {root} is not a rank of the {_mpi.size()} processes")
    return emit(mindir.BroadcastOp, t.value, root=_b.i64_attr(int(root)))
