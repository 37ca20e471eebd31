"""msmlir-forward-call-outputs: a call writes straight into the buffer its
result is copied to.

After buffer-results-to-out-params, a function that returns what a call
(a kernel, with msmlir-cpu-pipeline's inline-kernels=false) computed reads

    %tmp = memref.alloc() : memref<4096x1024xf32>
    call @kernel(%x, %tmp)
    memref.copy %tmp, %out          // %out: the function's out-parameter

a temporary as big as the result, filled and copied once per call (LeNet5 and
a 4096x1024 softmax: +40-90% step time). When the temporary has no other use
and nothing touches %out between the call and the copy, the call gets %out
itself and the alloc and the copy go. Upstream buffer-results-to-out-params
hoists the allocations a function returns itself (`hoist-static-allocs`),
not those of a call's out-parameter.
"""
from __future__ import annotations

from mlir import ir

from ..registry import register_pass


def _forward(copy: ir.Operation) -> bool:
    src, dst = copy.operands
    alloc = _op(src.owner) if not isinstance(src, ir.BlockArgument) else None
    if alloc is None or alloc.name != "memref.alloc" or src.type != dst.type:
        return False
    block = copy.block
    if alloc.block != block:
        return False
    users = [_op(u.owner) for u in src.uses]
    calls = [u for u in users if u.name == "func.call"]
    if len(calls) != 1 or len(users) != 2:
        return False
    call = calls[0]
    if call.block != block or dst in list(call.operands):
        return False
    if sum(1 for v in call.operands if v == src) != 1:
        return False
    # the call, then the copy, nothing in between touching %dst; %dst visible at the call
    seen_call = False
    for op in block.operations:
        op = op.operation
        if op == call:
            seen_call = True
            continue
        if op == copy:
            break
        if seen_call and _touches(op, dst):
            return False
    else:
        return False
    if not seen_call or not _dominates_block_entry(dst, block, call):
        return False
    for i, v in enumerate(call.operands):
        if v == src:
            call.operands[i] = dst
    copy.erase()
    alloc.erase()
    return True


def _op(owner) -> ir.Operation | None:
    """The ir.Operation of an OpView / Operation owner (None for a block)."""
    if isinstance(owner, ir.Operation):
        return owner
    return getattr(owner, "operation", None)


def _touches(op: ir.Operation, value: ir.Value) -> bool:
    """Whether `op` or an op nested in it uses `value`."""
    if any(v == value for v in op.operands):
        return True
    found = [False]

    def visit(o):
        if any(v == value for v in o.operands):
            found[0] = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    if len(op.regions):
        op.walk(visit)
    return found[0]


def _dominates_block_entry(value: ir.Value, block: ir.Block, call: ir.Operation) -> bool:
    """`value` is a block argument of the function or defined before `call`."""
    if isinstance(value, ir.BlockArgument):
        return True
    owner = _op(value.owner)
    if owner.block != block:
        return False
    for op in block.operations:
        op = op.operation
        if op == owner:
            return True
        if op == call:
            return False
    return False


@register_pass("msmlir-forward-call-outputs",
               "Pass a function's out-parameter to the call that computes it instead of a "
               "temporary copied into it (run after buffer-results-to-out-params)")
def forward_call_outputs(module: ir.Operation):
    for func in module.regions[0].blocks[0].operations:
        func = func.operation
        if func.name != "func.func" or not func.regions[0].blocks:
            continue
        for block in func.regions[0].blocks:
            copies = [op.operation for op in block.operations if op.operation.name == "memref.copy"]
            for copy in copies:
                _forward(copy)
