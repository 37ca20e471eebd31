"""Lowering of mindir.host_callback (JIT Fallback, see msmlir/frontend/fallback.py).

    %r = mindir.host_callback @cb "..." (%x) : (tensor<4xf32>) -> tensor<2xi64>
becomes
    %xb = bufferization.to_buffer %x read_only : tensor<4xf32> to memref<4xf32>
    %rb = memref.alloc() : memref<2xi64>
    func.call @cb(ptr(%xb), ptr(%rb)) : (i64, i64) -> ()
    %r  = bufferization.to_tensor %rb restrict writable : memref<2xi64> to tensor<2xi64>
with `func.func private @cb(i64, i64)` declared in the module: the callee gets the
aligned data pointer of each input and of each (identity-layout, row-major)
result buffer. The runtime binds the symbol to the Python trampoline.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, func, memref

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)

from . import lowering
from .builders import declare_i64_function, module_of


def _pointer(buf: ir.Value) -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    return arith.index_cast(i64, memref.extract_aligned_pointer_as_index(buf))


@lowering("mindir.host_callback")
def lower_host_callback(op):
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    ptrs, outs = [], []
    for v in op.inputs:
        t = ir.RankedTensorType(v.type)
        buf = bufferization.to_buffer(ir.MemRefType.get(t.shape, t.element_type), v, read_only=True)
        ptrs.append(_pointer(buf))
    for r in op.results:
        t = ir.RankedTensorType(r.type)
        buf = memref.alloc(ir.MemRefType.get(t.shape, t.element_type), [], [])
        ptrs.append(_pointer(buf))
        outs.append((t, buf))
    declare_i64_function(module_of(op.operation), callee, len(ptrs))
    func.call([], ir.FlatSymbolRefAttr.get(callee), ptrs)
    return [bufferization.to_tensor(t, buf, restrict=True, writable=True) for t, buf in outs]
