"""Lowering of the mindir collectives to calls of MPI helper functions.

Every rank runs the same program on MPI_COMM_WORLD (or a group's
communicator, below). Each op becomes one call of a helper on 1-D buffers:

    %y = mindir.all_reduce %x {op = #mindir.reduce_op<sum>} : tensor<4xf32>
becomes
    %xb = bufferization.to_buffer %x read_only : tensor<4xf32> to memref<4xf32>
    %yb = memref.alloc() : memref<4xf32>
    func.call @msmlir_mpi_allreduce_sum_4xf32(%xb, %yb) : (memref<4xf32>, memref<4xf32>) -> ()
    %y  = bufferization.to_tensor %yb restrict writable : memref<4xf32> to tensor<4xf32>

with the helper declared (bodiless, `msmlir.mpi = "allreduce_sum"`) until
msmlir-materialize-collectives gives it its body after bufferization (the
buffer deallocation passes reject the `mpi` ops, which declare no memory
effects). The helpers and the MPI call each makes:

    all_reduce      "allreduce_<op>"       mpi.allreduce (MPI_Allreduce)
    all_gather      "allgather"            MPI_Allgather (x: n elements, y: n x ranks;
                                           dim-0 concatenation is the flat one)
    reduce_scatter  "reduce_scatter_<op>"  MPI_Reduce_scatter_block (rank r keeps block r)
    broadcast       "bcast_<root>"         x copied into y, MPI_Bcast of y from root

The pinned `mpi` dialect has no all-gather, reduce-scatter or broadcast op
(MLIR 22: allreduce, send/recv, barrier only), so those three helpers call
the MPI functions directly (llvm.call, bound from libmpi like the `mpi`
dialect's own calls: materialize_collectives.py). Before, they were built
on MPI_Allreduce of zero-padded tensors, which sent 2x (all_gather: 2 (n-1) S
instead of (n-1) S per rank) and reduced the whole tensor.

A collective with a `group` attribute (a string: a group made by
msmlir.communication.create_group; `group_size` and `root` are then within
the group) calls helpers of that group,

    %y = mindir.all_reduce %x {group = "g0", op = #mindir.reduce_op<sum>} : tensor<4xf32>
    -> func.call @msmlir_mpi_allreduce_sum_4xf32_g0(...)   {msmlir.mpi_group = "g0"}

whose bodies run on the group's communicator (materialize_collectives.py).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization, func, memref, tensor

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)

from . import LoweringError, lowering
from .builders import declare_function, module_of

MPI_ATTR = "msmlir.mpi"       # on the helper declarations: the kind (table above)
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


def _flat(x: ir.Value):
    """(x as a 1-D tensor, its element count, x's type): MLIR 22's MPI lowering
    passes dim 0's size as the element count (docs/known-issues.md), and MPI
    wants contiguous buffers anyway."""
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
    return flat, n, t


def _unflat(flat: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    if t.rank == 1:
        return flat
    if t.rank == 0:
        return tensor.collapse_shape(t, flat, [])
    return tensor.expand_shape(t, flat, [list(range(t.rank))], [], list(t.shape))


def _call(op, x: ir.Value, y_type: ir.RankedTensorType, kind: str, stem: str) -> ir.Value:
    """y = helper(x) for the helper `kind` (x and y flattened to 1-D buffers:
    x read-only, y a new buffer the helper fills)."""
    flat, n, _ = _flat(x)
    m = 1
    for d in y_type.shape:
        m *= d
    if max(n, m) >= 2 ** 31:
        raise LoweringError(f"{op.operation.name}: {max(n, m)} elements exceed MPI's int count")
    et = y_type.element_type
    xt, yt = ir.MemRefType.get([n], et), ir.MemRefType.get([m], et)
    send = bufferization.to_buffer(xt, flat, read_only=True)
    recv = memref.alloc(yt, [], [])
    name = _helper(op, f"msmlir_mpi_{stem}_{n}x{et}", kind, [xt, yt], [])
    func.call([], ir.FlatSymbolRefAttr.get(name), [send, recv])
    out = bufferization.to_tensor(ir.RankedTensorType.get([m], et), recv, restrict=True,
                                  writable=True)
    return _unflat(out, y_type)


def _allreduce(op, x: ir.Value, how: str) -> ir.Value:
    """MPI_Allreduce of x."""
    t = ir.RankedTensorType(x.type)
    return _call(op, x, t, f"allreduce_{how}", f"allreduce_{how}")


@lowering("mindir.all_reduce")
def lower_all_reduce(op):
    return _allreduce(op, op.x, _reduction(op))


@lowering("mindir.all_gather")
def lower_all_gather(op):
    return _call(op, op.x, ir.RankedTensorType(op.y.type), "allgather", "allgather")


@lowering("mindir.reduce_scatter")
def lower_reduce_scatter(op):
    how = _reduction(op)
    return _call(op, op.x, ir.RankedTensorType(op.y.type), f"reduce_scatter_{how}",
                 f"reduce_scatter_{how}")


@lowering("mindir.broadcast")
def lower_broadcast(op):
    root = ir.IntegerAttr(op.attributes["root"]).value
    return _call(op, op.x, ir.RankedTensorType(op.x.type), f"bcast_{root}", f"bcast_root{root}")
