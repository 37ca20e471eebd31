"""msmlir-sink-constants: copies the `arith.constant`s a linalg op's body uses
from above into the body.

Why: MLIR 22's shard-partition crashes ("operation destroyed but still has
uses", an abort) when it partitions a linalg.generic whose reduction dim is
split and whose body uses a constant defined outside it (`x * 2.0` fused
into a row sum): docs/known-issues.md §11. With the constants inside, the
body is self-contained and partitioning works. Run right before
msmlir-shard-partition (a later canonicalize hoists the copies back out).

    %c = arith.constant 2.0 : f32
    linalg.generic ... { ^bb0(%in: f32, %out: f32):  %m = arith.mulf %in, %c ... }
becomes
    linalg.generic ... { ^bb0(%in: f32, %out: f32):
                           %c' = arith.constant 2.0 : f32
                           %m = arith.mulf %in, %c' ... }
"""
from __future__ import annotations

from mlir import ir

from ..common.linalg import walk_ops
from ..registry import register_pass


def _linalg_ops(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name.startswith("linalg.") and inner.regions and inner.regions[0].blocks:
                    out.append(inner)
                else:
                    _linalg_ops(inner, out)


def _inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    p = op.parent
    while p is not None:
        if p == ancestor:
            return True
        p = p.parent if hasattr(p, "parent") else None
    return False


@register_pass("msmlir-sink-constants",
               "arith.constants used in linalg op bodies -> copies inside the bodies")
def sink_constants(module: ir.Operation):
    ops: list = []
    _linalg_ops(module, ops)
    for lop in ops:
        body = lop.regions[0].blocks[0]
        copies: dict = {}
        for inner in walk_ops(lop, [], lambda o: True):
            for i, v in enumerate(list(inner.operands)):
                owner = v.owner
                if isinstance(owner, ir.Block):
                    continue
                owner = owner.operation
                if owner.name != "arith.constant" or _inside(owner, lop):
                    continue
                key = (str(owner.attributes["value"]), str(v.type))
                c = copies.get(key)
                if c is None:
                    clone = owner.clone(ip=ir.InsertionPoint.at_block_begin(body))
                    c = copies[key] = clone.results[0]
                inner.operands[i] = c
