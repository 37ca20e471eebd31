"""Lowering of the mindir collectives to calls of MPI helper functions.

Every rank runs the same program on MPI_COMM_WORLD. The one MPI collective
the upstream `mpi` dialect has is MPI_Allreduce, and all four ops are built
on it:

    %y = mindir.all_reduce %x {op = #mindir.reduce_op<sum>} : tensor<4xf32>
becomes
    %xb = bufferization.to_buffer %x read_only : tensor<4xf32> to memref<4xf32>
    %yb = memref.alloc() : memref<4xf32>
    func.call @msmlir_mpi_allreduce_sum_4xf32(%xb, %yb) : (memref<4xf32>, memref<4xf32>) -> ()
    %y  = bufferization.to_tensor %yb restrict writable : memref<4xf32> to tensor<4xf32>

with the helper declared (bodiless, `msmlir.mpi = "allreduce_sum"`) until
msmlir-materialize-collectives gives it its `mpi` dialect body after
bufferization (the buffer deallocation passes reject the `mpi` ops, which
declare no memory effects). all_gather puts x at rank r's slice of a zero
tensor and sums over the ranks; reduce_scatter reduces the whole tensor and
keeps rank r's slice; broadcast sums x on the root and zeros elsewhere
(exact: x + 0 = x; they move more bytes than MPI_Allgather /
MPI_Reduce_scatter_block / MPI_Bcast would, which the pinned `mpi` dialect
lacks). The rank comes from `@msmlir_mpi_rank() -> i32`, materialized the
same way.

A collective with a `group` attribute (a string: a group made by
msmlir.communication.create_group; `group_size` and `root` are then within
the group) calls helpers of that group,

    %y = mindir.all_reduce %x {group = "g0", op = #mindir.reduce_op<sum>} : tensor<4xf32>
    -> func.call @msmlir_mpi_allreduce_sum_4xf32_g0(...)   {msmlir.mpi_group = "g0"}

whose bodies run on the group's communicator (materialize_collectives.py),
and the rank in the lowerings above is the rank in the group.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref, tensor

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)

from . import LoweringError, lowering
from .builders import declare_function, fill, module_of

MPI_ATTR = "msmlir.mpi"       # on the helper declarations: "rank" or "allreduce_<how>"
GROUP_ATTR = "msmlir.mpi_group"   # and, for a sub-group's helper, the group's name


def _reduction(op) -> str:
    from msmlir.dialects.enums import enum_name
    return enum_name(op.attributes["op"]) if "op" in op.attributes else "sum"


def _group(op) -> str | None:
    if "group" not in op.attributes:
        return None
    a = op.attributes["group"]
    if not isinstance(a, ir.StringAttr) or not ir.StringAttr(a).value:
        raise LoweringError(f"`group` must be a non-empty string (a group "
                            f"name given to create_group), got {a}")
    return ir.StringAttr(a).value


def _helper(op, name: str, kind: str, args: list, results: list) -> str:
    """Declares `func.func private @name` (once per module) for a materialized
    MPI call of `kind` on the op's group (the world without one); returns the
    name."""
    attrs = {MPI_ATTR: ir.StringAttr.get(kind)}
    group = _group(op)
    if group is not None:
        from msmlir.runtime.mpi import group_symbol
        name += "_" + group_symbol(group).removeprefix("msmlir_mpi_group_")
        attrs[GROUP_ATTR] = ir.StringAttr.get(group)
    declare_function(module_of(op.operation), name, args, results, attrs)
    return name


def _rank(op) -> ir.Value:
    """This process's rank (in the op's group) as an index."""
    i32 = ir.IntegerType.get_signless(32)
    name = _helper(op, "msmlir_mpi_rank", "rank", [], [i32])
    r = func.call([i32], ir.FlatSymbolRefAttr.get(name), [])
    return arith.index_cast(ir.IndexType.get(), r)


def _allreduce(op, x: ir.Value, how: str) -> ir.Value:
    """MPI_Allreduce of x on 1-D buffers (MLIR 22's MPI lowering passes dim 0's
    size as the element count: docs/known-issues.md)."""
    t = ir.RankedTensorType(x.type)
    n = 1
    for d in t.shape:
        n *= d
    flat_t = ir.RankedTensorType.get([n], t.element_type)
    reassoc = [list(range(t.rank))] if t.rank else []
    if t.rank == 0:                      # a scalar: tensor<f32> -> tensor<1xf32> and back
        flat = tensor.expand_shape(flat_t, x, [], [], [1])
    else:
        flat = x if t.rank == 1 else tensor.collapse_shape(flat_t, x, reassoc)
    mt = ir.MemRefType.get([n], t.element_type)
    send = bufferization.to_buffer(mt, flat, read_only=True)
    recv = memref.alloc(mt, [], [])
    name = _helper(op, f"msmlir_mpi_allreduce_{how}_{n}x{t.element_type}", f"allreduce_{how}",
                   [mt, mt], [])
    func.call([], ir.FlatSymbolRefAttr.get(name), [send, recv])
    out = bufferization.to_tensor(flat_t, recv, restrict=True, writable=True)
    if t.rank == 1:
        return out
    if t.rank == 0:
        return tensor.collapse_shape(t, out, [])
    return tensor.expand_shape(t, out, reassoc, [], list(t.shape))


def _dim0_slice_offsets(rank: ir.Value, rows: int, rank_of_t: int):
    """Offsets/sizes/strides of the `rows` rows starting at rank * rows."""
    off = arith.muli(rank, arith.constant(ir.IndexType.get(), rows))
    return [off] + [0] * (rank_of_t - 1)


@lowering("mindir.all_reduce")
def lower_all_reduce(op):
    return _allreduce(op, op.x, _reduction(op))


@lowering("mindir.all_gather")
def lower_all_gather(op):
    xt, yt = ir.RankedTensorType(op.x.type), ir.RankedTensorType(op.y.type)
    rank = _rank(op)
    zeros = fill(yt.shape, yt.element_type, 0)
    offsets = _dim0_slice_offsets(rank, xt.shape[0], xt.rank)
    placed = tensor.insert_slice(op.x, zeros, [offsets[0]], [], [],
                                 static_offsets=[ir.ShapedType.get_dynamic_size()] + offsets[1:],
                                 static_sizes=list(xt.shape), static_strides=[1] * xt.rank)
    return _allreduce(op, placed, "sum")


@lowering("mindir.reduce_scatter")
def lower_reduce_scatter(op):
    yt = ir.RankedTensorType(op.y.type)
    total = _allreduce(op, op.x, _reduction(op))
    offsets = _dim0_slice_offsets(_rank(op), yt.shape[0], yt.rank)
    return tensor.extract_slice(yt, total, [offsets[0]], [], [],
                                static_offsets=[ir.ShapedType.get_dynamic_size()] + offsets[1:],
                                static_sizes=list(yt.shape), static_strides=[1] * yt.rank)


@lowering("mindir.broadcast")
def lower_broadcast(op):
    t = ir.RankedTensorType(op.x.type)
    root = arith.constant(ir.IndexType.get(), ir.IntegerAttr(op.attributes["root"]).value)
    is_root = arith.cmpi(arith.CmpIPredicate.eq, _rank(op), root)
    zeros = fill(t.shape, t.element_type, 0)
    mine = arith.select(is_root, op.x, zeros)
    return _allreduce(op, mine, "sum")

