"""msmlir-materialize-mpi: gives the helper declarations of msmlir-outline-mpi
their `mpi` op back as body, after bufferization (see outline_mpi.py for why
the op had to leave the function), so that convert-to-llvm lowers it to the
MPI call.

    func.func private @msmlir_shard_mpi_0(%a: memref<32xf32>, %c: !mpi.comm) {
      mpi.allreduce(%a, %a, MPI_SUM, %c) : memref<32xf32>, memref<32xf32>
      return
    }
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..registry import register_pass
from .outline_mpi import ATTRS_ATTR, OP_ATTR, OPERANDS_ATTR


@register_pass("msmlir-materialize-mpi",
               "helper declarations of msmlir-outline-mpi -> functions running their mpi op")
def materialize_mpi(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name != "func.func" or OP_ATTR not in op.attributes:
            continue
        f = op
        name = ir.StringAttr(f.attributes[OP_ATTR]).value
        attrs = {a.name: a.attr for a in ir.DictAttr(f.attributes[ATTRS_ATTR])}
        ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        loc = f.operation.location
        block = f.regions[0].blocks.append(*ftype.inputs, arg_locs=[loc] * len(ftype.inputs))
        with ir.InsertionPoint(block), loc:
            args = list(block.arguments)
            if OPERANDS_ATTR in f.attributes:
                args = [args[i] for i in ir.DenseI64ArrayAttr(f.attributes[OPERANDS_ATTR])]
            inner = ir.Operation.create(name, results=list(ftype.results),
                                        operands=args, attributes=attrs)
            func.ReturnOp(list(inner.results))
        del f.attributes[OP_ATTR]
        del f.attributes[ATTRS_ATTR]
        if OPERANDS_ATTR in f.attributes:
            del f.attributes[OPERANDS_ATTR]
