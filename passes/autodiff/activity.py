"""Activity analysis: which values of a function depend on the differentiated
arguments ("varied" values). Only varied values get adjoints; ops without a
varied result are copied into the forward and never reach a bprop rule.

A fixed point over the function, through scf.if/for/while (loop-carried
values are varied when their init or their yielded value is) and func.call
(the callee is analysed with the varied positions of the call).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .emit import is_diff_type
from .registry import is_non_differentiable


class AutodiffError(Exception):
    """A diagnostic to emit at `loc` (the pass turns it into a PassFailure)."""

    def __init__(self, message: str, loc: ir.Location | None = None):
        super().__init__(message)
        self.loc = loc


@dataclass
class Activity:
    varied: set            # src Values that depend on the differentiated args
    results: list          # per function result: varied?


TERMINATORS = {"func.return", "scf.yield", "scf.condition"}


def walk_ops(region_holder):
    """Pre-order walk of the ops nested in an op (not the op itself) or a block."""
    blocks = ([region_holder] if isinstance(region_holder, ir.Block) else
              [b for r in region_holder.operation.regions for b in r.blocks])
    for b in blocks:
        for op in b.operations:
            yield op
            yield from walk_ops(op)


def func_body(f) -> ir.Block:
    return f.operation.regions[0].blocks[0]


def terminator(block: ir.Block):
    ops = list(block.operations)
    return ops[-1] if ops else None


def analyze(state, f, positions) -> Activity:
    key = (func_name(f), tuple(sorted(set(positions))))
    cached = state.activity_cache.get(key)
    if cached is not None:
        return cached
    if key in state.analysing:
        raise AutodiffError(f"mindir-autodiff: recursive function @{key[0]} cannot be "
                            "differentiated", f.operation.location)
    state.analysing.add(key)
    try:
        act = _analyze(state, f, positions)
    finally:
        state.analysing.discard(key)
    state.activity_cache[key] = act
    return act


def func_name(f) -> str:
    return ir.StringAttr(f.operation.attributes["sym_name"]).value


def _analyze(state, f, positions) -> Activity:
    body = func_body(f)
    varied: set = set()
    for p in set(positions):
        a = body.arguments[p]
        if is_diff_type(a.type):
            varied.add(a)
    changed = [True]

    def mark(v):
        if v not in varied and is_diff_type(v.type):
            varied.add(v)
            changed[0] = True

    def uses_varied(op) -> bool:
        if any(v in varied for v in op.operands):
            return True
        return any(v in varied for inner in walk_ops(op) for v in inner.operands)

    while changed[0]:
        changed[0] = False
        for op in walk_ops(f):
            name = op.operation.name
            if name in TERMINATORS:
                continue
            if name == "scf.for":
                blk = op.regions[0].blocks[0]
                yld = terminator(blk)
                inits = list(op.operands)[3:]
                for i, init in enumerate(inits):
                    if init in varied or yld.operands[i] in varied:
                        mark(blk.arguments[i + 1])
                        mark(op.results[i])
            elif name == "scf.while":
                before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
                cond, yld = terminator(before), terminator(after)
                for i, init in enumerate(op.operands):
                    if init in varied or yld.operands[i] in varied:
                        mark(before.arguments[i])
                fwd = list(cond.operands)[1:]
                for j, v in enumerate(fwd):
                    if v in varied:
                        mark(after.arguments[j])
                        mark(op.results[j])
            elif name == "scf.if":
                for r in op.regions:
                    if not r.blocks:
                        continue
                    yld = terminator(r.blocks[0])
                    for i, v in enumerate(yld.operands):
                        if v in varied:
                            mark(op.results[i])
            elif name == "func.call":
                pos = [i for i, v in enumerate(op.operands) if v in varied]
                if not pos:
                    continue
                callee = state.lookup(ir.FlatSymbolRefAttr(op.attributes["callee"]).value,
                                      op.location)
                if "mindir.bprop" in callee.operation.attributes:
                    # user bprop (custom_bprop.py): every float result may carry a gradient
                    for r in op.results:
                        mark(r)
                    continue
                state.ensure_expanded(callee)
                sub = analyze(state, callee, pos)
                for i, r in enumerate(op.results):
                    if sub.results[i]:
                        mark(r)
            elif is_non_differentiable(name):
                continue
            elif uses_varied(op):
                for r in op.results:
                    mark(r)
    ret = terminator(body)
    return Activity(varied, [v in varied for v in ret.operands])
