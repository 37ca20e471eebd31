"""mindir-functionalize-assign: parameter updates become function results.

`mindir.assign %param, %value` writes a parameter. Bufferization cannot keep
an in-place write into a function argument that is also read (it privatizes a
copy) and drops writes whose result is unused, so before lowering each assign
to an argument of a public function is replaced by an extra function result
carrying the new value, recorded in the function attribute
`msmlir.writeback = [[result_index, argument_index], ...]`. The runtime copies
those results into the caller's arrays after the call (msmlir.compiler), so the
parameter is updated exactly once, after the step, as MindSpore's ordering
(depend/UpdateState) requires. Later reads of the parameter inside the
function see the new value.
"""
from __future__ import annotations

from mlir import ir

from ..registry import PassFailure, register_pass

WRITEBACK_ATTR = "msmlir.writeback"


def _assigns(func: ir.Operation) -> list[tuple[ir.Operation, bool]]:
    """The mindir.assign ops in func, each with whether it is at the top level
    (directly in the entry block); collected before any is rewritten."""
    entry = func.regions[0].blocks[0]
    found: list[tuple[ir.Operation, bool]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "mindir.assign":
            found.append((op, op.block == entry))
        return ir.WalkResult.ADVANCE
    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _ancestor_in(op: ir.Operation, block: ir.Block):
    """op itself or its ancestor whose block is `block` (None if outside it)."""
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None and parent.name != "func.func" else None
    return None


def _functionalize(func: ir.Operation) -> bool:
    block = func.regions[0].blocks[0]
    args = list(block.arguments)
    updates: dict[int, ir.Value] = {}
    ok = True
    for op, top_level in _assigns(func):
        var, value = op.operands[0], op.operands[1]
        arg_index = next((i for i, a in enumerate(args) if a == var), None)
        if not top_level or arg_index is None:
            op.location.emit_error(
                "mindir.assign must update a parameter (an argument of the public function) "
                "at the top level of the function, not inside control flow or a callee")
            ok = False
            continue
        # Reads of the parameter after the assign see the new value (a later
        # assign to the same parameter still names the parameter: the last wins).
        for use in list(var.uses):
            user = use.owner.operation
            if user.name == "mindir.assign" and use.operand_number == 0:
                continue
            anchor = _ancestor_in(user, op.block)
            if anchor is not None and op.is_before_in_block(anchor):
                user.operands[use.operand_number] = value
        op.results[0].replace_all_uses_with(value)
        updates[arg_index] = value
        op.erase()
    if not updates:
        return ok
    ret = block.operations[len(block.operations) - 1].operation
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    results = list(ftype.results)
    pairs = []
    new_operands = list(ret.operands)
    for arg_index, value in sorted(updates.items()):
        pairs.append((len(results), arg_index))
        results.append(value.type)
        new_operands.append(value)
    with ret.location, ir.InsertionPoint(ret):
        ir.Operation.create("func.return", operands=new_operands)
    ret.erase()
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ftype.inputs), results))
    i64 = ir.IntegerType.get_signless(64)
    func.attributes[WRITEBACK_ATTR] = ir.ArrayAttr.get([
        ir.ArrayAttr.get([ir.IntegerAttr.get(i64, r), ir.IntegerAttr.get(i64, a)]) for r, a in pairs])
    return ok


@register_pass("mindir-functionalize-assign",
               "Turn parameter assigns into extra results written back by the runtime")
def functionalize_assign(module: ir.Operation):
    ok = True
    with module.location:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "func.func" or not op.regions[0].blocks:
                continue
            if "sym_visibility" not in op.attributes:
                ok = _functionalize(op) and ok
                continue
            for assign, _ in _assigns(op):
                assign.location.emit_error(
                    "mindir.assign in a function that was not inlined into its caller; "
                    "parameters can only be updated by the public function")
                ok = False
    if not ok:
        raise PassFailure()
