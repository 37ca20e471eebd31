"""convert-mindir-to-linalg: lowers every mindir op to linalg/tensor/arith/math.

Each mindir op has one lowering function in mindir_to_linalg/ (registered with
@lowering); this pass walks the module in order, builds the replacement at the
op, and erases the op. An op without a lowering is an error at its location.

Why: from linalg on, everything is upstream MLIR (elementwise fusion, tiling,
vectorization and bufferization through the transform dialect and upstream
passes); mindir's tensor semantics (broadcasting, keep_dims, axes) are made
explicit here once, in indexing maps, so no later pass needs to know mindir.
"""
from __future__ import annotations

from mlir import ir

from msmlir.dialects import mindir as _mindir  # noqa: F401  (registers the op classes)

from ..registry import PassFailure, register_pass
from .mindir_to_linalg import LOWERINGS, LoweringError, load_all


def _mindir_ops(root: ir.Operation) -> list[ir.Operation]:
    """The mindir ops nested in root, in pre-order (collected before any is
    rewritten: the lowering erases ops)."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("mindir."):
            found.append(op)
        return ir.WalkResult.ADVANCE
    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


@register_pass("convert-mindir-to-linalg",
               "Lower mindir ops to linalg/tensor/arith/math on tensors")
def convert_mindir_to_linalg(module: ir.Operation):
    load_all()
    failed = False
    for op in _mindir_ops(module):
        fn = LOWERINGS.get(op.name)
        if fn is None:
            op.location.emit_error(f"no lowering to linalg for '{op.name}'")
            failed = True
            continue
        try:
            with op.location, ir.InsertionPoint(op):
                new_values = fn(op.opview)
        except LoweringError as e:
            op.location.emit_error(f"{op.name}: {e}")
            failed = True
            continue
        if isinstance(new_values, ir.Value):
            new_values = [new_values]
        for old, new in zip(op.results, new_values):
            old.replace_all_uses_with(new)
        op.erase()
    if failed:
        raise PassFailure()
