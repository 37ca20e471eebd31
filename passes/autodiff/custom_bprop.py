"""Custom bprop hook of mindir-autodiff (user-defined derivatives).

A function carrying the attribute `mindir.bprop = @g` has a user-defined
backward: a `func.call @f(%args...)` reached by a gradient is not
differentiated through @f's body; the forward keeps the call and the backward
calls

    @g(%args..., %results..., %douts...) -> (one gradient per argument of @f)

(MindSpore's `bprop(self, *inputs, out, dout)`; the frontend builds @g from the
user's Python bprop, see msmlir/autodiff/custom.py). A gradient for an
argument that needs none is ignored; missing result cotangents are zeros.
Higher order works: @g is ordinary mindir and is differentiated like any
function when the backward is differentiated again.

Hooked into the engine by wrapping the `func.call` entry of
`engine.STRUCTURED` (control_flow.CallEntry stays the default); activity
analysis (activity.py) treats every float result of such a call as varied
when an argument is.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from . import emit as E
from .activity import AutodiffError
from .engine import STRUCTURED, BlockDiff

BPROP_ATTR = "mindir.bprop"


def custom_bprop_name(f) -> str | None:
    """The name of @f's user bprop function, or None."""
    attrs = f.operation.attributes
    if BPROP_ATTR not in attrs:
        return None
    return ir.FlatSymbolRefAttr(attrs[BPROP_ATTR]).value


def _ftype(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.operation.attributes["function_type"]).value)


class CustomCallEntry:
    """Tape entry of a call of a function with a user bprop."""

    def __init__(self, bd: BlockDiff, src, callee, bprop_name: str):
        fd = self.fd = bd.fd
        state = fd.state
        self.loc = src.location
        state.ensure_expanded(callee)
        self.bprop = state.lookup(bprop_name, self.loc)
        state.ensure_expanded(self.bprop)
        self.bprop_name = bprop_name
        bt = _ftype(self.bprop)
        n_in, n_out = len(src.operands), len(src.results)
        ins = list(bt.inputs)
        want = [v.type for v in src.operands] + [r.type for r in src.results] * 2
        if len(ins) != len(want) or any(a != b for a, b in zip(ins, want)) or \
                len(bt.results) != n_in or \
                any(a != v.type for a, v in zip(bt.results, src.operands)):
            raise AutodiffError(
                f"mindir-autodiff: the bprop @{bprop_name} of @{ir.FlatSymbolRefAttr(src.attributes['callee']).value} "
                f"must have type ({', '.join(str(t) for t in want)}) -> "
                f"({', '.join(str(v.type) for v in src.operands)}), got {bt}", self.loc)
        self.args = [fd.mapping[v] for v in src.operands]
        self.n = n_out
        with self.loc:
            self.call = func.CallOp([r.type for r in src.results],
                                    ir.FlatSymbolRefAttr(src.attributes["callee"]).value,
                                    self.args)
        for r, n in zip(src.results, self.call.results):
            fd.map(r, n)

    def backward(self, bd: BlockDiff, adj) -> None:
        results = list(self.call.results)
        douts = [adj.pop(r) for r in results]
        if all(d is None for d in douts):
            return
        with self.loc:
            ds = [d if d is not None else E.zeros_like(r) for d, r in zip(douts, results)]
            out = func.CallOp([v.type for v in self.args], self.bprop_name,
                              self.args + results + ds)
        for a, g in zip(self.args, out.results):
            if self.fd.is_varied(a):
                adj.add(a, g)


_default_call_entry = STRUCTURED.get("func.call")


def _call_entry(bd: BlockDiff, src):
    state = bd.fd.state
    callee = state.lookup(ir.FlatSymbolRefAttr(src.attributes["callee"]).value, src.location)
    name = custom_bprop_name(callee)
    if name is None:
        return _default_call_entry(bd, src)
    return CustomCallEntry(bd, src, callee, name)


if _default_call_entry is not None and STRUCTURED.get("func.call") is not _call_entry:
    STRUCTURED["func.call"] = _call_entry
