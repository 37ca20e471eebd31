"""msmlir-outline-mpi: `mpi` ops on buffers -> calls of bodiless helper functions.

Why: convert-shard-to-mpi runs on tensors (before bufferization) and leaves
`mpi.allreduce` (and send/recv, ...) on memrefs in the function; the `mpi`
ops declare no memory effects, and the buffer deallocation pipeline rejects
them ("ops with unknown memory side effects are not supported",
docs/known-issues.md §13). As msmlir's own collectives do, each such op is
moved out until after bufferization: it becomes a call of a private
declaration carrying the op (name, attributes), and msmlir-materialize-mpi
gives the declaration the op back as its body in the LLVM stage.

    mpi.allreduce(%b, %b, MPI_SUM, %comm) : memref<32xf32>, memref<32xf32>
becomes
    func.call @msmlir_shard_mpi_0(%b, %comm) : (memref<32xf32>, !mpi.comm) -> ()
    func.func private @msmlir_shard_mpi_0(memref<32xf32>, !mpi.comm)
        attributes {msmlir.mpi_op = "mpi.allreduce", msmlir.mpi_attrs = {op = 3 : i32},
                    msmlir.mpi_operands = array<i64: 0, 0, 1>}

A value passed twice (an in-place allreduce: upstream lowers it with
MPI_IN_PLACE) stays one argument, so the body still passes one value twice.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..registry import register_pass

OP_ATTR = "msmlir.mpi_op"
ATTRS_ATTR = "msmlir.mpi_attrs"
OPERANDS_ATTR = "msmlir.mpi_operands"   # op operand i = helper argument [i]
PREFIX = "msmlir_shard_mpi_"


def _has_memref(op: ir.Operation) -> bool:
    return any(isinstance(v.type, ir.MemRefType) for v in op.operands)


def _walk(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name.startswith("mpi.") and _has_memref(inner):
                    out.append(inner)
                _walk(inner, out)


@register_pass("msmlir-outline-mpi",
               "mpi ops on memrefs -> calls of helper declarations (bodies after bufferization)")
def outline_mpi(module: ir.Operation):
    body = module.regions[0].blocks[0]
    found: list = []
    _walk(module, found)
    helpers: dict = {}
    existing = sum(1 for op in body.operations if op.operation.name == "func.func"
                   and ir.StringAttr(op.attributes["sym_name"]).value.startswith(PREFIX))
    for op in found:
        attrs = {a.name: a.attr for a in map(op.attributes.__getitem__, range(len(op.attributes)))}
        dattr = ir.DictAttr.get(attrs)
        # a value passed twice stays one argument (in place: MPI_IN_PLACE)
        unique: list = []
        index = []
        for v in op.operands:
            k = next((j for j, u in enumerate(unique) if u == v), None)
            if k is None:
                k = len(unique)
                unique.append(v)
            index.append(k)
        args = [v.type for v in unique]
        res = [r.type for r in op.results]
        key = (op.name, str(dattr), tuple(map(str, args)), tuple(map(str, res)), tuple(index))
        name = helpers.get(key)
        if name is None:
            name = helpers[key] = f"{PREFIX}{existing + len(helpers)}"
            with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
                f = func.FuncOp(name, ir.FunctionType.get(args, res), visibility="private")
                f.attributes[OP_ATTR] = ir.StringAttr.get(op.name)
                f.attributes[ATTRS_ATTR] = dattr
                f.attributes[OPERANDS_ATTR] = ir.DenseI64ArrayAttr.get(index)
        with ir.InsertionPoint(op), op.location:
            call = func.CallOp(res, ir.FlatSymbolRefAttr.get(name), unique)
        for old, new in zip(op.results, call.results):
            old.replace_all_uses_with(new)
        op.erase()
