"""msmlir-widen-bool-memrefs: store booleans in memory as i8.

LLVM 22's memref-to-LLVM lowering asserts (and aborts the process) on any
load/store of a `memref<...xi1>`. Booleans are one byte per element in numpy
anyway, so after bufferization this pass gives every i1 memref an i8 element
type and converts at the accesses: loads are followed by `arith.trunci`,
stored values go through `arith.extui`. The byte layout matches numpy's bool_.
Vector transfers are converted the same way (a `vector<16xi1>` transfer of a
`memref<...xi1>` would be lowered to a bit-packed load/store), as are the
payloads of linalg ops on memrefs (block arguments of widened operands become
i8, narrowed at the block start; yielded i1 values are widened; a bool
linalg.fill fills bytes), so the pass runs before the vector and linalg
lowerings: msmlir-cpu-pipeline ends bufferization with it (the module is
small there; no later pass makes new i1 memrefs), and
msmlir-cpu-unroll-transfers calls it when it meets a bool transfer on its own.
A module without i1 memrefs costs one walk that reads result types only.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ..registry import register_pass


def _widen(t: ir.Type) -> ir.Type | None:
    """The i8 counterpart of an i1 memref/vector type, else None."""
    if isinstance(t, ir.MemRefType) and _is_i1(t.element_type):
        return ir.MemRefType.get(t.shape, ir.IntegerType.get_signless(8), t.layout, t.memory_space)
    if isinstance(t, ir.VectorType) and _is_i1(t.element_type):
        return ir.VectorType.get(t.shape, ir.IntegerType.get_signless(8))
    return None


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def _widen_all(types):
    return [(_widen(t) if isinstance(t, ir.MemRefType) else None) or t for t in types]


def _all_ops(root: ir.Operation) -> list[ir.Operation]:
    """root and every op nested in it, in pre-order (a list: the callers
    rewrite the IR while going through it)."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op)
        return ir.WalkResult.ADVANCE
    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _widen_bool_elements(init: ir.DenseElementsAttr, shaped: ir.RankedTensorType):
    """The i8 copy of an i1 dense attribute (i1 data is bit-packed in MLIR, so
    read it element by element rather than through the buffer protocol)."""
    dense = ir.DenseIntElementsAttr(init)
    if dense.is_splat:   # stays a splat: a huge i1 splat must not become a huge array
        bit = int(ir.IntegerAttr(dense.get_splat_value()).value) & 1
        return ir.DenseElementsAttr.get_splat(
            shaped, ir.IntegerAttr.get(ir.IntegerType.get_signless(8), bit))
    else:
        values = np.array([int(dense[i]) & 1 for i in range(len(dense))],
                          np.int8).reshape(shaped.shape)
    return ir.DenseElementsAttr.get(values, type=shaped)


def _retype_values(ops: list[ir.Operation]) -> None:
    for op in ops:
        name = op.name
        if name.startswith(_VALUE_DIALECTS) and name != "vector.type_cast":
            continue    # no memref results, no regions with block arguments
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if isinstance(arg.type, ir.MemRefType) and (w := _widen(arg.type)) is not None:
                        arg.set_type(w)
        if name == "func.func":
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            new = ir.FunctionType.get(_widen_all(ft.inputs), _widen_all(ft.results))
            op.attributes["function_type"] = ir.TypeAttr.get(new)
        elif name == "memref.global":
            t = ir.TypeAttr(op.attributes["type"]).value
            if (w := _widen(t)) is not None:
                op.attributes["type"] = ir.TypeAttr.get(w)
                if "initial_value" in op.attributes:
                    init = op.attributes["initial_value"]
                    if isinstance(init, ir.DenseElementsAttr):
                        shaped = ir.RankedTensorType.get(list(ir.MemRefType(t).shape),
                                                         ir.IntegerType.get_signless(8))
                        op.attributes["initial_value"] = _widen_bool_elements(init, shaped)
        for res in op.results:
            if isinstance(res.type, ir.MemRefType) and (w := _widen(res.type)) is not None:
                res.set_type(w)


def _narrow_after(op: ir.Operation, result: ir.Value, narrow_type: ir.Type) -> None:
    """result now holds i8 data; give its users an i1 value again."""
    wide = _widen(narrow_type) if not _is_i1(narrow_type) else ir.IntegerType.get_signless(8)
    result.set_type(wide)
    with ir.InsertionPoint.after(op), op.location:
        narrowed = arith.TruncIOp(narrow_type, result)
    result.replace_all_uses_except(narrowed.result, narrowed.operation)


def _widen_operand(op: ir.Operation, index: int) -> None:
    v = op.operands[index]
    wide = ir.IntegerType.get_signless(8) if _is_i1(v.type) else _widen(v.type)
    with ir.InsertionPoint(op), op.location:
        op.operands[index] = arith.ExtUIOp(wide, v).result


def _is_i8_memref(v: ir.Value) -> bool:
    t = v.type
    return isinstance(t, ir.MemRefType) and isinstance(t.element_type, ir.IntegerType) \
        and t.element_type.width == 8


def _fix_accesses(ops: list[ir.Operation]) -> None:
    for op in ops:
        name = op.name
        if name in ("memref.load", "vector.transfer_read", "vector.load", "affine.load"):
            if _is_i8_memref(op.operands[0]) and (_is_i1(op.results[0].type)
                                                 or _widen(op.results[0].type) is not None):
                if name == "vector.transfer_read":
                    _widen_operand(op, _padding_index(op))
                _narrow_after(op, op.results[0], op.results[0].type)
        elif name in ("memref.store", "vector.transfer_write", "vector.store", "affine.store"):
            if _is_i8_memref(op.operands[1]) and (_is_i1(op.operands[0].type)
                                                 or _widen(op.operands[0].type) is not None):
                _widen_operand(op, 0)
        elif name.startswith("linalg.") and len(op.results) == 0 and name != "linalg.yield":
            _fix_linalg(op)


def _fix_linalg(op: ir.Operation) -> None:
    """A linalg op on memrefs whose i1 memref operands are now i8: its payload
    block arguments of those operands become i8 (narrowed at the block start),
    the values it yields into them are widened; a linalg.fill's i1 scalar is
    widened (its payload yields that argument)."""
    if not op.regions or not op.regions[0].blocks:
        return
    block = op.regions[0].blocks[0]
    operands = list(op.operands)
    args = list(block.arguments)
    if len(args) != len(operands):
        return
    widened = [_is_i8_memref(v) and _is_i1(a.type) for v, a in zip(operands, args)]
    if op.name == "linalg.fill" and widened[-1] and _is_i1(operands[0].type):
        _widen_operand(op, 0)
        args[0].set_type(ir.IntegerType.get_signless(8))
        args[-1].set_type(ir.IntegerType.get_signless(8))  # (unused by the payload)
        return
    if not any(widened):
        return
    i8 = ir.IntegerType.get_signless(8)
    ops = list(block.operations)
    first = ops[0] if ops else None
    for a, w in zip(args, widened):
        if not w:
            continue
        a.set_type(i8)
        if first is None or not list(a.uses):
            continue
        with ir.InsertionPoint(first), op.location:
            narrowed = arith.TruncIOp(ir.IntegerType.get_signless(1), a)
        a.replace_all_uses_except(narrowed.result, narrowed.operation)
    yld = list(block.operations)[-1]
    n_out = len(yld.operands)
    outs = widened[len(widened) - n_out:]
    for j, w in enumerate(outs):
        if w and _is_i1(yld.operands[j].type):
            _widen_operand(yld, j)


def _padding_index(op: ir.Operation) -> int:
    # vector.transfer_read operands: source, indices..., padding, [mask]
    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return segs[0] + segs[1]


# Ops of these dialects compute values, never memrefs (vector.type_cast aside):
# their result types need no look (most of a vectorized kernel's ops).
_VALUE_DIALECTS = ("arith.", "math.", "vector.", "index.", "ub.", "affine.apply",
                   "affine.linearize_index", "affine.delinearize_index")


def _has_bool_memrefs(module: ir.Operation) -> bool:
    """Whether any i1 memref is left to widen: in an op result, a function's
    type or a memref.global. Block arguments need no look: an entry block's
    are its function's type, the others (branch targets, loop-carried values)
    take values that are results or function arguments themselves. One walk
    that reads result types only, stopping at the first hit: the common case
    (no bool memref, or widened already by msmlir-cpu-unroll-transfers) costs
    a fraction of the rewrite's two walks over every region and block."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if name == "func.func":
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            types = [*ft.inputs, *ft.results]
        elif name == "memref.global":
            types = [ir.TypeAttr(op.attributes["type"]).value]
        elif name.startswith(_VALUE_DIALECTS) and name != "vector.type_cast":
            return ir.WalkResult.ADVANCE
        else:
            types = [r.type for r in op.results]
        if any(isinstance(t, ir.MemRefType) and _is_i1(t.element_type) for t in types):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return bool(found)


def widen_ops(root: ir.Operation) -> None:
    """Widens the i1 memrefs of `root` and every op in it (one walk; the
    accesses are fixed after the retyping, the ops they insert are not
    visited)."""
    ops = _all_ops(root)
    with root.location:
        _retype_values(ops)
        _fix_accesses(ops)


@register_pass("msmlir-widen-bool-memrefs",
               "Store i1 memrefs as i8 (works around LLVM 22's i1 memref lowering assertion)")
def widen_bool_memrefs(module: ir.Operation):
    # Only the top-level ops (functions, globals) that hold an i1 memref:
    # a function that uses one has it in its type or as an op result
    # (_has_bool_memrefs), so the others need no rewrite (a train step's
    # kernels without masks: most of the module).
    if module.name != "builtin.module":
        if _has_bool_memrefs(module):
            widen_ops(module)
        return
    for op in list(module.regions[0].blocks[0].operations):
        op = op.operation
        if _has_bool_memrefs(op):
            widen_ops(op)
