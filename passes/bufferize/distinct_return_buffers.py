"""msmlir-distinct-return-buffers: one buffer per returned result.

After bufferization, a function returning the same buffer twice
(`return %x, %x`, e.g. a value that is both an output and a parameter update)
crashes upstream `buffer-results-to-out-params{hoist-static-allocs}` in
MLIR 22. Each repeated return operand gets its own buffer (alloc + copy), so
every caller-provided out-parameter receives the value.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from ..registry import register_pass


@register_pass("msmlir-distinct-return-buffers",
               "Give each repeated memref return operand its own buffer (run before "
               "buffer-results-to-out-params)")
def distinct_return_buffers(module: ir.Operation):
    for func in module.regions[0].blocks[0].operations:
        func = func.operation
        if func.name != "func.func" or not func.regions[0].blocks:
            continue
        for block in func.regions[0].blocks:
            ret = block.operations[len(block.operations) - 1].operation
            if ret.name != "func.return":
                continue
            seen = set()
            for i, v in enumerate(list(ret.operands)):
                if not isinstance(v.type, ir.MemRefType):
                    continue
                if v in seen:
                    t = ir.MemRefType(v.type)
                    with ret.location, ir.InsertionPoint(ret):
                        fresh = memref.AllocOp(ir.MemRefType.get(t.shape, t.element_type), [], []).result
                        memref.CopyOp(v, fresh)
                    ret.operands[i] = fresh
                else:
                    seen.add(v)
