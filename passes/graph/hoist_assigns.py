"""mindir-hoist-assigns: parameter assigns inside scf.if / scf.for / scf.while
become values carried by the control flow, and one assign after it.

mindir-functionalize-assign turns top-level assigns of a public function's
parameters into written-back results; an assign inside a loop (a training
loop compiled whole, `Model.train(dataset_sink_mode=True)`) or a branch has no
such place. This pass, innermost control flow first, threads each parameter
`%p` assigned inside an op through it:

    scf.for ... iter_args(...) { ...; mindir.assign %p, %v; ... }
becomes
    %r:2 = scf.for ... iter_args(..., %pi = %p) { ... uses of %p -> %pi ...;
                                                  scf.yield ..., %v }
    mindir.assign %p, %r#1

(scf.while carries it through both regions and scf.condition; scf.if yields
each branch's last value). Inside a block, reads after an assign see the
assigned value, as at the top level. The assign left after the op is then
hoisted by the enclosing op, up to the function body.
"""
from __future__ import annotations

from mlir import ir

from ..registry import register_pass

_CONTROL_FLOW = ("scf.for", "scf.while", "scf.if")


def _params(func: ir.Operation) -> list[ir.Value]:
    return list(func.regions[0].blocks[0].arguments)


def _assigned_params(op: ir.Operation, params: list[ir.Value]) -> list[ir.Value]:
    """Parameters assigned directly in the top-level blocks of op's regions, in order."""
    found: list[ir.Value] = []
    for region in op.regions:
        for block in region.blocks:
            for o in block.operations:
                o = o.operation
                if o.name == "mindir.assign" and o.operands[0] in params and o.operands[0] not in found:
                    found.append(o.operands[0])
    return found


def _thread_block(block: ir.Block, param: ir.Value, entry: ir.Value) -> ir.Value:
    """Inside `block`, reads of `param` become `entry` or the last assigned
    value; its assigns are erased. Returns the value at the block's end."""
    current = entry
    for o in list(block.operations):
        o = o.operation
        if o.name == "mindir.assign" and o.operands[0] == param:
            value = o.operands[1]
            o.results[0].replace_all_uses_with(value)
            o.erase()
            current = value
            continue
        _replace_inside(o, param, current)
    return current


def _replace_inside(op: ir.Operation, old: ir.Value, new: ir.Value) -> None:
    """Uses of `old` by op or by anything nested in it become `new`."""
    if old == new:
        return
    for use in list(old.uses):
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        o = user
        while o is not None and not o == op:
            parent = o.parent
            o = parent.operation if parent is not None else None
        if o is not None:
            user.operands[use.operand_number] = new


def _move_body(old: ir.Block, new: ir.Block) -> None:
    for a, b in zip(old.arguments, new.arguments):
        a.replace_all_uses_with(b)
    ip = ir.InsertionPoint(new)
    for o in list(old.operations):
        o = o.operation
        o.detach_from_parent()
        ip.insert(o)


def _terminator(block: ir.Block) -> ir.Operation:
    return block.operations[len(block.operations) - 1].operation


def _retarget_terminator(block: ir.Block, extra: list[ir.Value]) -> None:
    term = _terminator(block)
    with term.location, ir.InsertionPoint(term):
        ir.Operation.create(term.name, operands=list(term.operands) + extra,
                            attributes={a.name: a.attr for a in term.attributes})
    term.erase()


def _rebuild(op: ir.Operation, operands, result_types, block_arg_types) -> ir.Operation:
    """A copy of op with the given operands/result types and each region's
    entry block given `block_arg_types[i]` arguments; the bodies are moved."""
    attrs = {a.name: a.attr for a in op.attributes}
    with op.location, ir.InsertionPoint(op):
        new = ir.Operation.create(op.name, results=result_types, operands=operands,
                                  attributes=attrs, regions=len(op.regions))
    for i, region in enumerate(op.regions):
        if not region.blocks:
            continue
        old_block = region.blocks[0]
        types = block_arg_types[i]
        new_block = new.regions[i].blocks.append(*types, arg_locs=[op.location] * len(types))
        _move_body(old_block, new_block)
    return new


def _hoist_from(op: ir.Operation, params: list[ir.Value]) -> ir.Operation | None:
    assigned = _assigned_params(op, params)
    if not assigned:
        return None
    types = [p.type for p in assigned]
    old_results = list(op.results)
    if op.name == "scf.if":
        result_types = [r.type for r in old_results] + types
        new = _rebuild(op, list(op.operands), result_types, [[]] * len(op.regions))
        if not new.regions[1].blocks:   # no else: one that yields the parameters unchanged
            block = new.regions[1].blocks.append()
            with new.location, ir.InsertionPoint(block):
                ir.Operation.create("scf.yield", operands=[])
        for region in new.regions:
            block = region.blocks[0]
            ends = [_thread_block(block, p, p) for p in assigned]
            _retarget_terminator(block, ends)
    elif op.name == "scf.for":
        # operands: lb, ub, step, inits...; body args: iv, iter args...
        body = op.regions[0].blocks[0]
        arg_types = [a.type for a in body.arguments] + types
        new = _rebuild(op, list(op.operands) + assigned, [r.type for r in old_results] + types,
                       [arg_types])
        block = new.regions[0].blocks[0]
        carried = list(block.arguments)[-len(assigned):]
        ends = [_thread_block(block, p, c) for p, c in zip(assigned, carried)]
        _retarget_terminator(block, ends)
    else:   # scf.while: before(args) -> scf.condition(cond) args'; after(args') -> yield
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        new = _rebuild(op, list(op.operands) + assigned, [r.type for r in old_results] + types,
                       [[a.type for a in before.arguments] + types,
                        [a.type for a in after.arguments] + types])
        b_block, a_block = new.regions[0].blocks[0], new.regions[1].blocks[0]
        b_carried = list(b_block.arguments)[-len(assigned):]
        b_ends = [_thread_block(b_block, p, c) for p, c in zip(assigned, b_carried)]
        _retarget_terminator(b_block, b_ends)
        a_carried = list(a_block.arguments)[-len(assigned):]
        a_ends = [_thread_block(a_block, p, c) for p, c in zip(assigned, a_carried)]
        _retarget_terminator(a_block, a_ends)
    for old, fresh in zip(old_results, list(new.results)[:len(old_results)]):
        old.replace_all_uses_with(fresh)
    finals = list(new.results)[len(old_results):]
    op.erase()
    # reads of a parameter after the op see its final value (as after a top-level assign)
    with new.location, ir.InsertionPoint.after(new):
        for p, v in zip(assigned, finals):
            ir.Operation.create("mindir.assign", results=[p.type], operands=[p, v])
    return new


def _hoist_function(func: ir.Operation) -> None:
    """Every control-flow op, innermost first (post-order): hoisting an op
    leaves its assigns right after it, in its parent's block, where the
    enclosing op (later in the order) picks them up."""
    params = _params(func)
    ops: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        if o.name in _CONTROL_FLOW:
            ops.append(o)
        return ir.WalkResult.ADVANCE
    func.walk(visit, ir.WalkOrder.POST_ORDER)
    for o in ops:
        _hoist_from(o, params)


@register_pass("mindir-hoist-assigns",
               "Parameter assigns inside scf.if/for/while -> carried values + one assign after")
def hoist_assigns(module: ir.Operation):
    with module.location:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "func.func" and op.regions[0].blocks and "sym_visibility" not in op.attributes:
                _hoist_function(op)
