"""The reverse-mode engine: source transformation of one function body.

`BlockDiff.forward` copies the ops of a source block into the generated
function, in order, and records a tape entry for every active op (an op with
a varied result). `BlockDiff.backward` walks the tape in reverse at the
backward insertion point, calling each op's bprop with the cotangents of its
results and accumulating the cotangents of its operands. Rules refer to the
forward copies' operands and results directly, so forward values are reused,
never recomputed.

Structured ops (scf.if/for/while, func.call) have entries in
`control_flow.py`. Their backward is first built in a temporary block; the
forward values it uses from inside the forward op's regions ("residuals") are
then routed out of the forward op (extra results for scf.if, per-iteration
stacks for loops, extra function results for calls), and the temporary block
becomes the body of the backward op.
"""
from __future__ import annotations

from typing import Callable

from mlir import ir

from msmlir.dialects import mindir

from . import emit as E
from .activity import TERMINATORS, Activity, AutodiffError, terminator
from .registry import get_bprop, set_needs

# op name -> factory(block_diff, src_op) -> tape entry (set by control_flow.py)
STRUCTURED: dict[str, Callable] = {}


# --- IR utilities ----------------------------------------------------------------

def is_ancestor(anc, op) -> bool:
    """True if `anc` is `op` or contains it."""
    p = op.operation if op is not None else None
    a = anc.operation
    while p is not None:
        if p == a:
            return True
        p = p.parent
        p = p.operation if p is not None else None
    return False


def defining_op(v: ir.Value):
    """The op defining `v`, or for a block argument the op owning its block."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return owner.owner
    return owner


def defined_inside(v: ir.Value, op) -> bool:
    """True if `v` is defined in a region of `op` (not by `op` itself)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return is_ancestor(op, owner.owner)
    parent = owner.operation.parent
    return parent is not None and is_ancestor(op, parent)


def walk_block(block: ir.Block):
    for op in block.operations:
        yield op
        for r in op.operation.regions:
            for b in r.blocks:
                yield from walk_block(b)


def used_values(block: ir.Block, pred) -> list:
    """Values used by ops in `block` (recursively) satisfying pred, in order."""
    seen, out = set(), []
    for op in walk_block(block):
        for v in op.operation.operands:
            if v not in seen and pred(v):
                seen.add(v)
                out.append(v)
    return out


def replace_in_block(block: ir.Block, repl: dict) -> None:
    """Replaces uses of the keys of `repl` by its values inside `block` only."""
    if not repl:
        return
    for op in list(walk_block(block)):
        for v in list(op.operation.operands):
            if v in repl:
                op.operation.replace_uses_of_with(v, repl[v])


def clone_remap(op, mapping: dict):
    """Clones `op` (with its regions) at the insertion point, remapping the
    operands (also inside its regions) that `mapping` has."""
    new = op.operation.clone()
    todo = [new] + [o.operation for r in new.regions for b in r.blocks for o in walk_block(b)]
    todo = [o.operation for o in todo]
    for o in todo:
        for v in list(o.operands):
            if v in mapping:
                o.replace_uses_of_with(v, mapping[v])
    return new


class Anchor:
    """A placeholder op marking an insertion position; erased when done."""

    def __init__(self):
        self.op = E.index(0).owner

    def ip(self) -> ir.InsertionPoint:
        return ir.InsertionPoint(self.op)

    def erase(self):
        self.op.operation.erase()


# --- per-function state --------------------------------------------------------------

class FuncDiff:
    """State of one function being differentiated: src -> new value mapping,
    and the set of varied values of the generated function."""

    def __init__(self, state, activity: Activity):
        self.state = state
        self.activity = activity
        self.mapping: dict = {}
        self.varied: set = set()

    def map(self, src: ir.Value, new: ir.Value) -> None:
        self.mapping[src] = new
        if src in self.activity.varied:
            self.varied.add(new)

    def is_varied(self, v: ir.Value) -> bool:
        return v in self.varied

    def src_varied(self, v: ir.Value) -> bool:
        return v in self.activity.varied

    def replaced(self, old: ir.Value, new: ir.Value) -> None:
        """Bookkeeping after `old` (about to be erased) was replaced by `new`."""
        if old in self.varied:
            self.varied.discard(old)
            self.varied.add(new)
        for k, v in list(self.mapping.items()):
            if v == old:
                self.mapping[k] = new


class Adjoints:
    """Accumulated cotangents, keyed by values of the generated function."""

    def __init__(self):
        self.map: dict = {}
        self.order: list = []

    def add(self, v: ir.Value, g: ir.Value) -> None:
        if g.type != v.type:
            raise AutodiffError(f"mindir-autodiff internal error: gradient of type {g.type} "
                                f"for a value of type {v.type}", defining_op(v).location)
        if v in self.map:
            self.map[v] = E.add_any(self.map[v], g)
        else:
            self.map[v] = g
            self.order.append(v)

    def get(self, v: ir.Value):
        return self.map.get(v)

    def pop(self, v: ir.Value):
        return self.map.pop(v, None)

    def items(self):
        return [(v, self.map[v]) for v in self.order if v in self.map]


class OpEntry:
    """Tape entry of a plain op: its bprop rule on the forward copy."""

    def __init__(self, fd: FuncDiff, new_op, rule, loc: ir.Location):
        self.fd, self.op, self.rule, self.loc = fd, new_op, rule, loc

    def backward(self, bd: "BlockDiff", adj: Adjoints) -> None:
        op = self.op.operation
        douts = [adj.pop(r) for r in op.results]
        if all(d is None for d in douts):
            return
        operands = list(op.operands)
        set_needs([self.fd.is_varied(v) for v in operands])
        with self.loc:
            dins = self.rule(op.opview, douts)
            if len(dins) != len(operands):
                raise AutodiffError(f"mindir-autodiff internal error: the bprop of "
                                    f"'{op.name}' returned {len(dins)} gradients for "
                                    f"{len(operands)} operands", self.loc)
            for v, g in zip(operands, dins):
                if g is not None and self.fd.is_varied(v):
                    adj.add(v, g)


class BlockDiff:
    """Forward copy + tape of one block."""

    def __init__(self, fd: FuncDiff):
        self.fd = fd
        self.tape: list = []

    def forward(self, src_block: ir.Block) -> None:
        ops = list(src_block.operations)
        if ops and ops[-1].operation.name in TERMINATORS:
            ops = ops[:-1]
        for op in ops:
            self.forward_op(op)

    def forward_op(self, op) -> None:
        fd = self.fd
        op = op.operation
        name = op.name
        active = any(fd.src_varied(r) for r in op.results)
        if name == "mindir.grad":
            raise AutodiffError("mindir-autodiff internal error: unexpanded mindir.grad",
                                op.location)
        if not active:
            new = clone_remap(op, fd.mapping)
            for r, n in zip(op.results, new.results):
                fd.map(r, n)
            return
        if name in STRUCTURED:
            self.tape.append(STRUCTURED[name](self, op))
            return
        rule = get_bprop(op.opview)
        if rule is None:
            raise AutodiffError(f"mindir-autodiff: no gradient rule (bprop) for '{name}'; "
                                "register one with register_bprop, or declare it "
                                "non-differentiable", op.location)
        new = clone_remap(op, fd.mapping)
        for r, n in zip(op.results, new.results):
            fd.map(r, n)
        self.tape.append(OpEntry(fd, new, rule, op.location))

    def backward(self, seeds) -> Adjoints:
        """Seeds: (value, cotangent) pairs (cotangent may be None). Runs the tape
        in reverse at the current insertion point."""
        adj = Adjoints()
        for v, g in seeds:
            if g is not None and self.fd.is_varied(v):
                adj.add(v, g)
        for entry in reversed(self.tape):
            entry.backward(self, adj)
        return adj


# --- holders for temporary blocks -----------------------------------------------

class Holders:
    """Detached ops whose single region holds blocks under construction."""

    def __init__(self):
        self.ops: list = []

    def block(self, arg_types=(), loc: ir.Location | None = None) -> ir.Block:
        h = ir.Operation.create("scf.execute_region", results=[], regions=1, ip=False,
                                loc=loc or ir.Location.unknown())
        self.ops.append(h)
        return h.regions[0].blocks.append(*arg_types)

    def cleanup(self) -> None:
        """Erases what is left in the holders (only on failure paths)."""
        for h in reversed(self.ops):
            for b in list(h.regions[0].blocks):
                for op in reversed(list(b.operations)):
                    try:
                        op.operation.erase()
                    except Exception:  # pragma: no cover - best effort
                        pass
        self.ops.clear()


def move_block_ops(src: ir.Block, dst_ip: ir.InsertionPoint) -> None:
    """Moves every op of `src` to `dst_ip` (in order)."""
    for op in list(src.operations):
        op.operation.detach_from_parent()
        dst_ip.insert(op.operation)


def set_terminator(block: ir.Block, name: str, operands, attrs=None) -> None:
    """Replaces the terminator of `block` by `name(operands)`."""
    old = terminator(block)
    with ir.InsertionPoint(old), old.location:
        ir.Operation.create(name, results=[], operands=list(operands), attributes=attrs)
    old.operation.erase()


# --- rematerialisation of constants ----------------------------------------------

_REMAT = {"mindir.constant", "arith.constant", "mindir.fill", "mindir.arange"}


def rematerializable(v: ir.Value) -> bool:
    """Values the backward recreates instead of saving (constants)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return False
    op = owner.operation
    if op.name in _REMAT and len(op.operands) == 0 and len(op.regions) == 0:
        return True
    return op.name in ("mindir.zeros_like", "mindir.ones_like") and E.is_static_tensor(v.type)


def rematerialize(v: ir.Value) -> ir.Value:
    """A copy of constant `v` at the insertion point."""
    op = v.owner.operation
    if op.name in ("mindir.zeros_like", "mindir.ones_like"):
        t = E.ttype(v)
        one = op.name == "mindir.ones_like"
        et = t.element_type
        a = (ir.FloatAttr.get(et, 1.0 if one else 0.0) if E.is_float_type(et)
             else ir.IntegerAttr.get(et, 1 if one else 0))
        return mindir.ConstantOp(ir.DenseElementsAttr.get_splat(t, a)).result
    return op.clone().results[0]


def split_remat(values):
    """(rematerializable, others) of a list of saved values."""
    return ([v for v in values if rematerializable(v)],
            [v for v in values if not rematerializable(v)])
