"""mskernel-inline-kernels: replaces `mskernel.fused` kernels by their bodies.

The CPU back end compiles kernels and the graph around them as one function
(linalg fusion, bufferization and loop lowering see everything), so a kernel
is dissolved into its enclosing block: body arguments become the kernel's
operands, the yielded values its results. Compute kernels (the msmlir.kernel
DSL and kernel-level AD) carry linalg.generic bodies; graph kernels carry mindir
ops, which convert-mindir-to-linalg lowers afterwards.

Options (case names of the enums `#mskernel.target<...>`/`#mskernel.kind<...>`):
  target=cpu     inline only kernels with this `target` ("" = every target)
  kinds=         comma-separated `kind`s to inline ("" = every kind)

Private scalar functions that only carried user derivatives for kernel-level
AD (`mskernel.fdiff_fn`) are erased once no kernel refers to them.
"""
from __future__ import annotations

from mlir import ir

from msmlir.dialects.enums import FusionKind, KernelTarget, enum_case, enum_name

from ..registry import Option, PassFailure, register_pass


def _kernels(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == "mskernel.fused":
                    out.append(inner)
                else:
                    _kernels(inner, out)


def _enum_attr(op, name, default):
    return enum_name(op.attributes[name] if name in op.attributes else None, default)


def inline_kernel(fused) -> list[ir.Value]:
    """Dissolves one mskernel.fused into its parent block; returns its result values."""
    op = fused.operation
    block = op.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, op.operands):
        arg.replace_all_uses_with(operand)
    ops = list(block.operations)
    yielded = list(ops[-1].operands)
    for inner in ops[:-1]:
        inner.operation.move_before(op)
    for old, new in zip(op.results, yielded):
        old.replace_all_uses_with(new)
    op.erase()
    return yielded


@register_pass("mskernel-inline-kernels",
               "Replace mskernel.fused kernels by their bodies (CPU: compile kernels with the graph)",
               options={"target": Option(str, "cpu", "inline kernels of this target only ('' = all)"),
                        "kinds": Option(str, "", "comma-separated kernel kinds to inline ('' = all)")})
def inline_kernels(module: ir.Operation, *, target: str, kinds: str):
    try:  # option values are enum case names
        if target:
            enum_case(KernelTarget, target, "mskernel-inline-kernels: target")
        wanted = {str(enum_case(FusionKind, k.strip(), "mskernel-inline-kernels: kind"))
                  for k in kinds.split(",") if k.strip()}
    except ValueError as e:
        module.location.emit_error(str(e))
        raise PassFailure() from None
    found: list = []
    _kernels(module, found)
    # innermost first is not needed (kernels do not nest in practice), but inlining
    # an outer kernel moves inner ones intact, so order does not matter.
    for op in found:
        if target and _enum_attr(op, "target", "cpu") != target:
            continue
        if wanted and _enum_attr(op, "kind", "opaque") not in wanted:
            continue
        inline_kernel(op)
    _erase_unused_fdiff_functions(module)


def _erase_unused_fdiff_functions(module: ir.Operation):
    remaining: list = []
    _kernels(module, remaining)
    referenced = set()
    for op in remaining:
        if "mskernel.fdiff" in op.attributes:
            d = ir.DictAttr(op.attributes["mskernel.fdiff"])
            for i in range(len(d)):
                referenced.add(ir.FlatSymbolRefAttr(d[i].attr).value)
    if module.name != "builtin.module":
        return
    for f in list(module.regions[0].blocks[0].operations):
        f = f.operation
        if f.name == "func.func" and "mskernel.fdiff_fn" in f.attributes:
            if ir.StringAttr(f.attributes["sym_name"]).value not in referenced:
                f.erase()
