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

all_to_all and all_to_all_v (python/msmlir/ops/comm.py) have no mindir op:
the frontend calls an exchange function that define_alltoall /
define_alltoallv (below) add to the module, a tensor function holding the
bufferized call of the helper and naming its gradient (`mindir.bprop`,
passes/autodiff/custom_bprop.py: the exchange with send and receive swapped):

    %y = func.call @msmlir_alltoall_2_8xf32(%x) : (tensor<8xf32>) -> tensor<8xf32>
    func.func private @msmlir_alltoall_2_8xf32(%x: tensor<8xf32>) -> tensor<8xf32>
        attributes {mindir.bprop = @msmlir_alltoall_2_8xf32_bprop} {
      %s = bufferization.to_buffer %x read_only : tensor<8xf32> to memref<8xf32>
      %r = memref.alloc() : memref<8xf32>
      func.call @msmlir_mpi_alltoall_2_8xf32(%s, %r) : (memref<8xf32>, memref<8xf32>) -> ()
      %y = bufferization.to_tensor %r restrict writable : memref<8xf32> to tensor<8xf32>
      return %y : tensor<8xf32>
    }
    func.func private @msmlir_mpi_alltoall_2_8xf32(memref<8xf32>, memref<8xf32>)
        attributes {msmlir.mpi = "alltoall_2"}          MPI_Alltoall, 4 elements each way

    all_to_all      "alltoall_<ranks>"     MPI_Alltoall (x: <ranks> equal blocks, block j
                                           to rank j; y: block i from rank i)
    all_to_all_v    "alltoallv"            MPI_Alltoallv, the counts and displacements
                                           in `msmlir.mpi_counts` (static)

The inliner folds the exchange function into its caller after autodiff.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization, func, memref, tensor

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)

from . import LoweringError, lowering
from .builders import declare_function, module_of

MPI_ATTR = "msmlir.mpi"       # on the helper declarations: the kind (table above)
COUNTS_ATTR = "msmlir.mpi_counts"  # an alltoallv helper's counts and displacements
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


# --- the exchange functions of all_to_all / all_to_all_v (docstring) ----------

def _symbols(module: ir.Operation) -> set:
    return {ir.StringAttr(o.attributes["sym_name"]).value
            for o in module.regions[0].blocks[0].operations if "sym_name" in o.attributes}


def _exchange_name(stem: str, n: int, et, group: str | None, counts=None) -> str:
    import hashlib
    name = f"msmlir_{stem}_{n}x{et}"
    if counts is not None:           # the receive size and a digest of the counts
        name += f"_{sum(counts[2 * len(counts) // 4:3 * len(counts) // 4])}_" + \
            hashlib.sha1(",".join(map(str, counts)).encode()).hexdigest()[:10]
    if group is not None:
        from msmlir.runtime.mpi import group_symbol
        name += "_" + group_symbol(group).removeprefix("msmlir_mpi_group_")
    return name


def _define_exchange(module: ir.Operation, name: str, kind: str, n: int, m: int, et,
                     group: str | None, back: str, counts=None) -> None:
    """@name: tensor<n x et> -> tensor<m x et> through the helper of `kind`,
    its bprop calling the exchange @back on the cotangent (once per module)."""
    if name in _symbols(module):
        return
    xt, yt = ir.RankedTensorType.get([n], et), ir.RankedTensorType.get([m], et)
    xm, ym = ir.MemRefType.get([n], et), ir.MemRefType.get([m], et)
    helper = name.replace("msmlir_", "msmlir_mpi_", 1)
    attrs = {MPI_ATTR: ir.StringAttr.get(kind)}
    if group is not None:
        attrs[GROUP_ATTR] = ir.StringAttr.get(group)
    if counts is not None:
        attrs[COUNTS_ATTR] = ir.DenseI32ArrayAttr.get(list(counts))
    declare_function(module, helper, [xm, ym], [], attrs)
    body = module.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
        f = func.FuncOp(name, ir.FunctionType.get([xt], [yt]), visibility="private")
        f.attributes["mindir.bprop"] = ir.FlatSymbolRefAttr.get(name + "_bprop")
        with ir.InsertionPoint(f.add_entry_block()):
            send = bufferization.to_buffer(xm, f.arguments[0], read_only=True)
            recv = memref.alloc(ym, [], [])
            func.call([], ir.FlatSymbolRefAttr.get(helper), [send, recv])
            func.ReturnOp([bufferization.to_tensor(yt, recv, restrict=True, writable=True)])
        bp = func.FuncOp(name + "_bprop", ir.FunctionType.get([xt, yt, yt], [xt]),
                         visibility="private")
        with ir.InsertionPoint(bp.add_entry_block()):
            dx = func.CallOp([xt], ir.FlatSymbolRefAttr.get(back), [bp.arguments[2]])
            if group is not None:
                dx.attributes["group"] = ir.StringAttr.get(group)
            func.ReturnOp([dx.result])


def define_alltoall(module: ir.Operation, ranks: int, n: int, et, group: str | None) -> str:
    """The exchange function of MPI_Alltoall on a flat tensor<n x et> of `ranks`
    equal blocks; its gradient is itself (block j of rank i <-> block i of
    rank j). Returns its name."""
    if n % ranks:
        raise LoweringError(f"all_to_all: {n} elements are not {ranks} equal blocks")
    name = _exchange_name(f"alltoall_{ranks}", n, et, group)
    _define_exchange(module, name, f"alltoall_{ranks}", n, n, et, group, name)
    return name


def define_alltoallv(module: ir.Operation, send: list[int], recv: list[int], et,
                     group: str | None) -> str:
    """The exchange function of MPI_Alltoallv on a flat tensor: send[j]
    consecutive elements to rank j, recv[j] from rank j in rank order; its
    gradient is the exchange with send and recv swapped (defined with it).
    Returns its name."""
    def displs(counts):
        out, at = [], 0
        for c in counts:
            out.append(at)
            at += c
        return out
    fwd = list(send) + displs(send) + list(recv) + displs(recv)
    bwd = list(recv) + displs(recv) + list(send) + displs(send)
    n, m = sum(send), sum(recv)
    name, back = _exchange_name("alltoallv", n, et, group, fwd), \
        _exchange_name("alltoallv", m, et, group, bwd)
    _define_exchange(module, name, "alltoallv", n, m, et, group, back, fwd)
    _define_exchange(module, back, "alltoallv", m, n, et, group, name, bwd)
    return name
