"""Collective ops (MindSpore's AllReduce, AllGather, ReduceScatter, Broadcast,
AlltoAll) over all ranks of the MPI job (`mpirun -n N`;
msmlir.communication.init() first), or over the ranks of a group made by
msmlir.communication.create_group (`group="g0"`: the op carries
`group = "g0"` and runs on the group's communicator; ranks and sizes are
then the group's, broadcast's root is a world rank as in MindSpore). The
first four are one mindir op each, compiled with the rest of the graph
(passes/lowering/mindir_to_linalg/collectives.py) and differentiable where
MindSpore's are (passes/autodiff/bprop_comm.py); all_to_all and
all_to_all_v (AlltoAllV) are one MPI_Alltoall / MPI_Alltoallv each, called
through an exchange function with its own gradient (below: the dialect has
no op for them)."""
from __future__ import annotations

import threading

from mlir import ir

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
_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all")


def _operand(x, what: str):
    t = to_tensor(x)
    if str(t.dtype) not in _COMM_DTYPES:
        _b.error(f"{what}: tensors of {', '.join(_COMM_DTYPES)} only, got {t.dtype}")
    return t


# MindSpore's names of the world group on each backend: all are MPI_COMM_WORLD
WORLD_GROUPS = ("mpi_world_group", "hccl_world_group", "nccl_world_group", "mccl_world_group")


class _Comm:
    """Where a collective runs: `name` None for the world, else a group; the
    number of ranks and this process's rank in it."""

    def __init__(self, name, size, rank):
        self.name, self.size, self.rank = name, size, rank


def _comm(group, what: str) -> _Comm:
    """The world or the named group, checked: MPI started, the group exists
    and this rank is one of its members."""
    if not _mpi.initialized():
        _b.error(f"{what} needs msmlir.communication.init() first (and mpirun to start the ranks)")
    if group is None or group in WORLD_GROUPS:
        return _Comm(None, _mpi.size(), _mpi.rank())
    if not isinstance(group, str):
        _b.error(f"{what}: group must be a str (a name given to create_group), got "
                 f"{type(group).__name__}", kind=TypeError)
    g = _mpi.group(group)
    if g is None:
        _b.error(f"{what}: group {group!r} does not exist: create it with "
                 f"msmlir.communication.create_group({group!r}, rank_ids) first", kind=ValueError)
    r = g.rank_of(_mpi.rank())
    if r is None:
        _b.error(f"{what}: rank {_mpi.rank()} is not in group {group!r} (rank_ids {g.ranks}); "
                 f"only its members can call its collectives", kind=ValueError)
    return _Comm(group, g.size, r)


def _checked(prim):
    """`prim`, whose group is checked at every PyNative call too: the compiled
    op is cached per signature (frontend/trace.py), so a call after
    destroy_group would otherwise reach MPI with MPI_COMM_NULL. For the same
    reason the ranks' agreement is checked per PyNative call here, not at
    trace time (`_eager_agree`): one rank may find the op in its cache and go
    straight into the collective while another traces and exchanges its
    checks, and the two would wait on different MPI calls."""
    import functools
    import inspect
    sig = inspect.signature(prim)

    @functools.wraps(prim)
    def wrapper(*args, **kwargs):
        if _b.current() is not None or not _mpi.initialized():
            return prim(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        _AGREED.sends = _eager_agree(prim.__name__, bound.arguments)
        _AGREED.active = True
        try:
            return prim(*args, **kwargs)
        finally:
            _AGREED.active = False
    wrapper.__msmlir_primitive__ = True
    return wrapper


_AGREED = threading.local()       # set while a PyNative collective call runs (checked already)
_EAGER_NAMES = _COLLECTIVES + ("all_to_all_v",)


def _eager_agree(what: str, args: dict):
    """The ranks' agreement on one PyNative collective call, before its
    compiled op (cached, or traced now) runs: one MPI_Allgather of each
    rank's row (the collective, its tensor's dtype and shape, a digest of the
    other arguments, and all_to_all_v's send counts with whether its own
    count checks passed); a difference is an error on every rank, naming each
    rank's tensor. Returns all_to_all_v's send lists (for its trace)."""
    import zlib

    import numpy as np
    comm = _comm(args.get("group"), what)
    n = comm.size
    if n == 1:
        return None
    x = np.asarray(args["x"])
    dtype = _COMM_DTYPES.index(str(x.dtype)) if str(x.dtype) in _COMM_DTYPES else -1
    problem = None
    if x.ndim > _MAX_RANK:
        problem = f"{what}: tensors of rank <= {_MAX_RANK} only, got rank {x.ndim}"
    shape = list(x.shape) if problem is None else []
    rest = {k: v for k, v in args.items() if k not in ("x", "send_numel_list", "recv_numel_list")}
    send = [0] * n
    if what == "all_to_all_v":
        shape = []                       # the ranks' inputs differ in size
        problem = problem or _counts_problem(x.size, args["send_numel_list"],
                                             args["recv_numel_list"], args["block_size"], n)
        if problem is None:
            send = [int(v) for v in args["send_numel_list"]]
    row = [_EAGER_NAMES.index(what), dtype, len(shape)] + shape \
        + [-1] * (_MAX_RANK - len(shape)) + [zlib.crc32(repr(sorted(rest.items())).encode())]
    rows, bad = _mpi.allgather_checked(row + send, problem is None, comm.name)
    if problem is not None:
        _b.error(problem, kind=ValueError)
    where = f" of group {comm.name!r}" if comm.name else ""
    if bad:
        _b.error(f"{what}: rank(s) {bad}{where} called it with invalid arguments (their error "
                 "says which); no data was exchanged", kind=ValueError)
    if any(r[0] != row[0] for r in rows):
        _b.error(f"the ranks{where} call different collectives (" + "; ".join(
            f"rank {j}: {_EAGER_NAMES[r[0]]}" for j, r in enumerate(rows)) + ")")

    def show(r):
        name = _COMM_DTYPES[r[1]] if r[1] >= 0 else "an unsupported dtype"
        return name + (str(r[3:3 + r[2]]) if what != "all_to_all_v" else "")
    if any(r[1:3 + _MAX_RANK] != row[1:3 + _MAX_RANK] for r in rows):
        ranks = "; ".join(f"rank {j}: {show(r)}" for j, r in enumerate(rows))
        _b.error(f"{what}: the ranks{where} do not call it on the same tensor type ({ranks})")
    if any(r[3 + _MAX_RANK] != row[3 + _MAX_RANK] for r in rows):
        _b.error(f"{what}: the ranks{where} call it with different arguments (each of "
                 f"{', '.join(sorted(rest))} must be the same on every rank)", kind=ValueError)
    return [r[4 + _MAX_RANK:] for r in rows]


def _counts_problem(numel: int, send_numel_list, recv_numel_list, block_size, n: int):
    """What is wrong with all_to_all_v's counts on this rank alone (None: nothing)."""
    bsz = int(block_size)
    send = [int(v) for v in send_numel_list]
    recv = [int(v) for v in recv_numel_list]
    if bsz <= 0 or len(send) != n or len(recv) != n or min(send + recv) < 0:
        return (f"all_to_all_v: send_numel_list and recv_numel_list need one count >= 0 per "
                f"rank ({n}) and block_size > 0, got {send}, {recv}, block_size={bsz}")
    if sum(send) * bsz != numel:
        return (f"all_to_all_v: send_numel_list sums to {sum(send)} blocks of {bsz}, the input "
                f"has {numel} elements")
    if max(numel, sum(recv) * bsz) >= 2 ** 31:
        return f"all_to_all_v: {max(numel, sum(recv) * bsz)} elements exceed MPI's int count"
    return None


def _tag(out, comm: _Comm):
    """Marks the emitted collective with its group."""
    if comm.name is not None:
        out.value.owner.attributes["group"] = ir.StringAttr.get(comm.name)
    return out


def _check_ranks_agree(t, what: str, extra: int = 0, comm: _Comm | None = None) -> None:
    """Every rank must call the same collective on the same dtype and shape
    (else MPI would read past buffers or wait forever): at trace time the
    ranks exchange (op, dtype, shape) and a mismatch is an error at the user's
    line on every rank, naming each rank's tensor."""
    if not _mpi.initialized() or (comm.size if comm else _mpi.size()) == 1 or \
            getattr(_AGREED, "active", False):       # a PyNative call: _eager_agree did it
        return
    if t.ndim > _MAX_RANK:
        _b.error(f"{what}: tensors of rank <= {_MAX_RANK} only, got rank {t.ndim}")
    code = [_COLLECTIVES.index(what), _COMM_DTYPES.index(str(t.dtype)), extra, t.ndim]
    mine = code + list(t.shape) + [-1] * (_MAX_RANK - t.ndim)
    everyone = _mpi.allgather_ints(mine, comm.name if comm else None)
    if any(row != everyone[0] for row in everyone):
        def show(row):
            return f"{_COMM_DTYPES[row[1]]}{row[4:4 + row[3]]}"
        where = f" of group {comm.name!r}" if comm and comm.name else ""
        ranks = "; ".join(f"rank {r}: {show(row)}" for r, row in enumerate(everyone))
        _b.error(f"{what}: the ranks{where} do not call it on the same tensor type ({ranks})")


def _reduction(op, what):
    try:
        return enum_case(_ReduceOp, str(op).lower(), f"{what} op")
    except ValueError as e:
        _b.error(str(e))


@_checked
@primitive
def all_reduce(x, op=ReduceOp.SUM, group=None):
    """Element-wise `op` (sum, max, min, prod) of x over the ranks (of `group`), on each of them."""
    t = _operand(x, "all_reduce")
    c = _comm(group, "all_reduce")
    how = _reduction(op, "all_reduce")
    _check_ranks_agree(t, "all_reduce", int(how), c)
    return _tag(emit(mindir.AllReduceOp, t.value, op=how), c)


@_checked
@primitive
def all_gather(x, group=None):
    """The ranks' x concatenated along dim 0 in (group) rank order, on every rank."""
    t = _operand(x, "all_gather")
    c = _comm(group, "all_gather")
    n = c.size
    if t.ndim < 1:
        _b.error("all_gather: needs a tensor of rank >= 1 (it joins dim 0)")
    _check_ranks_agree(t, "all_gather", 0, c)
    shape = [t.shape[0] * n] + list(t.shape[1:])
    return _tag(emit(mindir.AllGatherOp, _b.tensor_type(shape, t.dtype), t.value, _b.i64_attr(n)),
                c)


@_checked
@primitive
def reduce_scatter(x, op=ReduceOp.SUM, group=None):
    """`op` of x over the N ranks (of `group`); rank r keeps the r-th of N equal slices of dim 0."""
    t = _operand(x, "reduce_scatter")
    c = _comm(group, "reduce_scatter")
    n = c.size
    how = _reduction(op, "reduce_scatter")
    _check_ranks_agree(t, "reduce_scatter", int(how), c)
    if t.ndim < 1 or t.shape[0] % n:
        _b.error(f"reduce_scatter: dim 0 of a {list(t.shape)} tensor is not divisible by the "
                 f"{n} ranks")
    shape = [t.shape[0] // n] + list(t.shape[1:])
    return _tag(emit(mindir.ReduceScatterOp, _b.tensor_type(shape, t.dtype), t.value,
                     _b.i64_attr(n), op=how), c)


@_checked
@primitive
def broadcast(x, root=0, group=None):
    """Rank `root`'s x on every rank (of `group`; `root` is a world rank, as
    MindSpore's root_rank, and must be in the group)."""
    t = _operand(x, "broadcast")
    c = _comm(group, "broadcast")
    if c.name is None:
        if not 0 <= int(root) < c.size:
            _b.error(f"broadcast: root {root} is not a rank of the {c.size} processes")
        local = int(root)
    else:
        local = _mpi.group(c.name).rank_of(int(root))
        if local is None:
            _b.error(f"broadcast: root {root} is not in group {c.name!r} "
                     f"(rank_ids {_mpi.group(c.name).ranks})")
    _check_ranks_agree(t, "broadcast", local, c)
    return _tag(emit(mindir.BroadcastOp, t.value, root=_b.i64_attr(local)), c)


# --- all_to_all / all_to_all_v: MPI_Alltoall / MPI_Alltoallv --------------------
# The dialect has no op for them: each is a call of an exchange function (a
# tensor function around the bufferized call of an MPI helper, with a
# `mindir.bprop` naming its gradient), built by
# passes/lowering/mindir_to_linalg/collectives.py (define_alltoall /
# define_alltoallv, whose docstring shows the IR). The exchange works on a
# flat buffer of per-destination blocks (all_to_all moves its split dim to
# the front first); its gradient is the exchange with send and receive
# swapped, so the swap of split_dim / concat_dim follows from the reshapes
# and transposes around it.

def _exchange(flat, kind: str, comm: _Comm, *counts):
    """The call of the exchange function of `kind` ("alltoall": comm.size equal
    blocks; "alltoallv": send/receive element counts per rank) on a flat tensor."""
    from mlir.dialects import func
    from msmlir.passes.lowering.mindir_to_linalg.collectives import (define_alltoall,
                                                                     define_alltoallv)
    from ..frontend.values import TensorValue
    op = ir.InsertionPoint.current.block.owner.operation
    while op.name != "builtin.module":
        op = op.parent.operation
    et = ir.RankedTensorType(flat.value.type).element_type
    if kind == "alltoall":
        name = define_alltoall(op, comm.size, flat.shape[0], et, comm.name)
        m = flat.shape[0]
    else:
        name = define_alltoallv(op, counts[0], counts[1], et, comm.name)
        m = sum(counts[1])
    call = _b.emit(func.CallOp, [ir.RankedTensorType.get([m], et)], ir.FlatSymbolRefAttr.get(name),
                   [flat.value])
    if comm.name is not None:        # runtime/group_check.py finds the group by this attribute
        call.attributes["group"] = ir.StringAttr.get(comm.name)
    return TensorValue(call.result)


@_checked
@primitive
def all_to_all(x, split_dim=0, concat_dim=0, split_count=None, group=None):
    """MindSpore's AlltoAll: x is cut into N equal chunks along split_dim, chunk
    j goes to rank j (of `group`), and each rank concatenates what it receives
    (rank 0's chunk first) along concat_dim. One MPI_Alltoall of x with its
    split dim moved to the front (each rank sends and receives (N-1)/N of x)."""
    from .array import reshape, transpose
    t = _operand(x, "all_to_all")
    comm = _comm(group, "all_to_all")
    n = comm.size
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
    _check_ranks_agree(t, "all_to_all", sd * _MAX_RANK + cd, comm)
    if n == 1:
        return t
    shape = list(t.shape)
    c = shape[sd] // n
    numel = 1
    for d in shape:
        numel *= d
    blocks = reshape(t, tuple(shape[:sd] + [n, c] + shape[sd + 1:]))
    perm = [sd] + [d for d in range(t.ndim + 1) if d != sd]     # destination rank first
    flat = reshape(transpose(blocks, tuple(perm)), (numel,))
    got = _exchange(flat, "alltoall", comm)                             # source rank first
    chunk = shape[:sd] + [c] + shape[sd + 1:]
    ranks = reshape(got, tuple([n] + chunk))
    perm = list(range(1, t.ndim + 1))
    perm.insert(cd, 0)                                           # N next to concat_dim, merged
    out = list(chunk)
    out[cd] *= n
    return reshape(transpose(ranks, tuple(perm)), tuple(out))


@_checked
@primitive
def all_to_all_v(x, send_numel_list, recv_numel_list, group=None, block_size=1):
    """MindSpore's AlltoAllV: x flattened, its consecutive pieces of
    send_numel_list[j] * block_size elements go to rank j; the output (1-D) is what
    rank 0, 1, ... sent to this rank, in that order (recv_numel_list[j] * block_size
    elements from rank j). The lists are Python ints, known at trace time, so the
    ranks exchange them then (one MPI_Allgather of ints, as the shape checks do)
    and check them against each other; the data moves in one MPI_Alltoallv with
    those counts (each piece once). Its gradient is the MPI_Alltoallv with the
    send and receive counts swapped."""
    from .array import reshape
    t = _operand(x, "all_to_all_v")
    comm = _comm(group, "all_to_all_v")
    n, r = comm.size, comm.rank
    bsz = int(block_size)
    numel = 1
    for d in t.shape:
        numel *= d
    problem = _counts_problem(numel, send_numel_list, recv_numel_list, bsz, n)
    send = [int(v) for v in send_numel_list]
    recv = [int(v) for v in recv_numel_list]
    sends = None
    if getattr(_AGREED, "active", False):          # PyNative: exchanged by _eager_agree
        sends = _AGREED.sends
    elif n > 1:
        # inside jit: the ranks exchange their send lists with their checks'
        # outcome, so a rank's bad counts stop every rank here (the others
        # would otherwise wait in this exchange, or match its next collective)
        dtype = _COMM_DTYPES.index(str(t.dtype))
        rows, bad = _mpi.allgather_checked(
            [dtype] + ((send + [0] * n)[:n] if problem else send), problem is None, comm.name)
        if problem is None and bad:
            _b.error(f"all_to_all_v: rank(s) {bad} called it with invalid counts (their error "
                     "says which); no data was exchanged", kind=ValueError)
        if problem is None and any(row[0] != dtype for row in rows):
            _b.error("all_to_all_v: the ranks do not call it on the same dtype (" + "; ".join(
                f"rank {j}: {_COMM_DTYPES[row[0]]}" for j, row in enumerate(rows)) + ")",
                kind=ValueError)
        sends = [row[1:] for row in rows]                # every rank's send list
    if problem is not None:
        _b.error(problem, kind=ValueError)
    flat = reshape(t, (numel,))
    if n == 1:
        return flat
    for j in range(n):
        if sends[j][r] != recv[j]:
            _b.error(f"all_to_all_v: rank {r} expects {recv[j]} from rank {j}, which sends "
                     f"{sends[j][r]}", kind=ValueError)
    if max(sum(row) for row in sends) == 0:
        return flat
    return _exchange(flat, "alltoallv", comm, [v * bsz for v in send], [v * bsz for v in recv])
