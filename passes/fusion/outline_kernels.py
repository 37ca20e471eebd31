"""mskernel-outline-kernels: every `mskernel.fused` becomes a kernel function.

After this pass the host graph is a sequence of `func.call`s of kernels (plus
control flow, host callbacks and constants), and each kernel is a private
function that a target compiles on its own: the interface the CPU codegen,
polyhedral scheduling and the GPU/Ascend targets consume. A kernel function
carries `mskernel.kind` and `mskernel.target` (from the fused op) and is
named deterministically from its kind, its first ops and a hash of its body,
so identical kernels (same body, same types) are one function called from
every place that computes them, and a name means the same kernel across
compilations.

A host function with parameter write-backs (`msmlir.writeback`) gets
`msmlir.num_inputs`, its argument count: after buffer-results-to-out-params
appends the results as arguments, msmlir-inplace-writeback finds the
out-parameter of each written-back result with it.

The module gets `msmlir.kernel_stats = {kernels, calls, bytes}`: distinct
kernels, kernel calls in the program text (a call inside a loop counts once)
and the bytes those calls read and write (operands + results), the figures
of the per-step summary.
"""
from __future__ import annotations

import hashlib
import math

from mlir import ir
from mlir.dialects import func

from ..common.linalg import funcs
from ..registry import register_pass
from .kernel_attrs import kernel_attr, kind_attr, target_attr

KERNEL_ATTR = "mskernel.kind"
TARGET_ATTR = "mskernel.target"
STATS_ATTR = "msmlir.kernel_stats"
WRITEBACK_ATTR = "msmlir.writeback"
NUM_INPUTS_ATTR = "msmlir.num_inputs"


def _bytes(t: ir.Type) -> int:
    if not isinstance(t, ir.ShapedType):
        return 0
    st = ir.ShapedType(t)
    if not st.has_static_shape:
        return 0
    width = st.element_type.width if hasattr(st.element_type, "width") else 8
    return math.prod(st.shape) * max(width, 8) // 8


def _fused_ops(f: ir.Operation) -> list[ir.Operation]:
    found = []

    def visit(op):
        if op.name == "mskernel.fused":
            found.append(op.operation)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE
    f.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _describe(body: ir.Block) -> str:
    names = []
    for op in body.operations:
        short = op.operation.name.split(".", 1)[-1]
        if short not in names and short not in ("constant", "return", "yield"):
            names.append(short)
    return "_".join(names[:3]) or "empty"


def _outline(fused: ir.Operation, module: ir.Operation, kernels: dict[str, str],
             ip: ir.InsertionPoint) -> tuple[str, ir.Operation]:
    """A kernel function for `fused` (reusing an identical one); returns its name and the call."""
    body = fused.regions[0].blocks[0]
    kind, target = kernel_attr(fused, "kind"), kernel_attr(fused, "target")
    in_types = [a.type for a in body.arguments]
    out_types = [r.type for r in fused.results]
    with fused.location:
        fn = func.FuncOp("__kernel", (in_types, out_types), ip=ip)
        fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        fn.attributes[KERNEL_ATTR] = kind_attr(kind)
        fn.attributes[TARGET_ATTR] = target_attr(target)
        entry = fn.add_entry_block()
        for old, new in zip(body.arguments, entry.arguments):
            old.replace_all_uses_with(new)
        ops = [op.operation for op in body.operations]
        with ir.InsertionPoint(entry):
            ret = func.ReturnOp(list(ops[-1].operands))
        ops[-1].erase()                              # the mskernel.yield
        for op in ops[:-1]:
            op.move_before(ret.operation)
    key = hashlib.sha1(fn.operation.get_asm(assume_verified=True).encode()).hexdigest()[:10]
    name = kernels.get(key)
    if name is None:
        name = f"{target}_{kind}_{_describe(entry)}_{key}"
        kernels[key] = name
        fn.attributes["sym_name"] = ir.StringAttr.get(name)
    else:
        fn.operation.erase()
    with ir.InsertionPoint(fused), fused.location:
        call = func.CallOp(out_types, ir.FlatSymbolRefAttr.get(name), list(fused.operands))
    for old, new in zip(fused.results, call.results):
        old.replace_all_uses_with(new)
    fused.erase()
    return name, call.operation


@register_pass("mskernel-outline-kernels",
               "Each mskernel.fused -> a private kernel function (deterministic name, identical "
               "kernels shared) called from the host graph")
def outline_kernels(module: ir.Operation):
    kernels: dict[str, str] = {}
    calls = traffic = 0
    module_block = module.regions[0].blocks[0]
    for f in list(funcs(module)):
        if KERNEL_ATTR in f.attributes:
            continue
        if WRITEBACK_ATTR in f.attributes and f.regions[0].blocks:
            f.attributes[NUM_INPUTS_ATTR] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), len(f.regions[0].blocks[0].arguments))
        for fused in _fused_ops(f):
            _, call = _outline(fused, module, kernels, ir.InsertionPoint(module_block))
            calls += 1
            traffic += sum(_bytes(v.type) for v in call.operands)
            traffic += sum(_bytes(r.type) for r in call.results)
    i64 = ir.IntegerType.get_signless(64)
    module.attributes[STATS_ATTR] = ir.DictAttr.get({
        "kernels": ir.IntegerAttr.get(i64, len(kernels)),
        "calls": ir.IntegerAttr.get(i64, calls),
        "bytes": ir.IntegerAttr.get(i64, traffic)})
