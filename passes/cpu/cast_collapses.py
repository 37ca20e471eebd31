"""msmlir-cpu-cast-collapses: contiguous memref.collapse_shape -> memref.reinterpret_cast.

Rewrites, after bufferization and before fold-memref-alias-ops, each
`memref.collapse_shape` whose result has a static shape, strides and offset
into a `memref.reinterpret_cast` of the same buffer to the same type (the
same view of the same elements).

Why: fold-memref-alias-ops folds a memref.load of a collapse_shape into a load
of its source, with the collapsed index split back by
`affine.delinearize_index` (a div and a rem per collapsed dim, in the loop
that loads) that LLVM does not fold back into the linear index it came from.
A packed matmul reading the rows of an im2col buffer (LeNet5's conv2 filter
gradient: [150, 800] collapsed from a 7-D gather) then did 4 urems per k step
and its address arithmetic made LLVM's loop strength reduction take ~1 s in
llc. Through the cast, a load's address is affine in the loop indices
(row * stride + k). The cast is not an alias op that pass folds.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from ..common.linalg import walk_ops
from ..registry import register_pass

_DYNAMIC = -(1 << 63)  # ShapedType::kDynamic


@register_pass("msmlir-cpu-cast-collapses",
               "After bufferization, before fold-memref-alias-ops: memref.collapse_shape with a "
               "static result layout -> memref.reinterpret_cast, so that loads through it "
               "keep affine indices (folding them would split the collapsed index with div/rem)")
def cast_collapses(module: ir.Operation):
    for op in walk_ops(module, [], lambda o: o.name == "memref.collapse_shape"):
        cast_collapse(op)


def cast_collapse(op: ir.Operation) -> bool:
    """One collapse_shape -> reinterpret_cast; False (unchanged) unless its
    result has rank >= 1 and a static shape, strides and offset (then the cast
    of the source's buffer to that layout is the same view)."""
    res = ir.MemRefType(op.results[0].type)
    if not res.has_static_shape or res.rank == 0:
        return False
    strides, offset = res.get_strides_and_offset()
    if offset == _DYNAMIC or _DYNAMIC in strides:
        return False
    with op.location, ir.InsertionPoint(op):
        cast = memref.ReinterpretCastOp(res, op.operands[0], [], [], [],
                                        ir.DenseI64ArrayAttr.get([offset]),
                                        ir.DenseI64ArrayAttr.get(list(res.shape)),
                                        ir.DenseI64ArrayAttr.get(strides))
    op.results[0].replace_all_uses_with(cast.result)
    op.erase()
    return True
