"""msmlir-readonly-arguments: the caller's input arrays are never written.

One-Shot Bufferize takes function arguments as writable by default, so a
tensor argument used as the destination of an op (`outs(%arg)`, e.g. a
hand-written linalg convolution accumulating into an argument) would be
updated in place: the numpy array the caller passed in would change. Each
argument of a public function is marked `bufferization.writable = false`, so
such a write goes to a new buffer instead (parameter updates are results,
written back by the runtime: see mindir-functionalize-assign).
"""
from __future__ import annotations

from mlir import ir

from ..registry import register_pass

WRITABLE = "bufferization.writable"


@register_pass("msmlir-readonly-arguments",
               "Mark the tensor arguments of public functions non-writable (before one-shot-bufferize)")
def readonly_arguments(module: ir.Operation):
    false = ir.BoolAttr.get(False)
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks or "sym_visibility" in op.attributes:
            continue
        args = op.regions[0].blocks[0].arguments
        old = op.attributes["arg_attrs"] if "arg_attrs" in op.attributes else None
        attrs = []
        for i, a in enumerate(args):
            entries = {}
            if old is not None:
                d = ir.DictAttr(ir.ArrayAttr(old)[i])
                entries = {n.name: n.attr for n in d}
            if isinstance(a.type, ir.RankedTensorType) or isinstance(a.type, ir.UnrankedTensorType):
                entries[WRITABLE] = false
            attrs.append(ir.DictAttr.get(entries))
        op.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
