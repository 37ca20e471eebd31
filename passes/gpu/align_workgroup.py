"""msmlir-gpu-align-workgroup: every workgroup attribution of a gpu.func aligned to 16 bytes.

Why: the NVVM lowering gives a workgroup buffer its element type's alignment
(`.shared .align 2` for f16), but ldmatrix reads 16-byte rows, and the MMA
tiles (passes/gpu/mma.py) pad their rows to 16 bytes assuming the buffer
starts on a 16-byte boundary too. The attribution's `llvm.align` attribute is
what the lowering reads; a larger alignment costs at most a few bytes of
shared memory. Runs after gpu-kernel-outlining (on gpu.func), before
convert-gpu-to-nvvm.
"""
from __future__ import annotations

from mlir import ir

from ..registry import register_pass

ALIGN = 16


@register_pass("msmlir-gpu-align-workgroup",
               "Align every gpu.func workgroup attribution to 16 bytes (llvm.align), as "
               "ldmatrix needs")
def align_workgroup(module: ir.Operation):
    funcs = []

    def visit(o):
        if o.name == "gpu.func":
            funcs.append(o)
        return ir.WalkResult.ADVANCE
    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    i64 = ir.IntegerType.get_signless(64)
    for f in funcs:
        n = ir.IntegerAttr(f.attributes["workgroup_attributions"]).value \
            if "workgroup_attributions" in f.attributes else 0
        if not n:
            continue
        old = list(ir.ArrayAttr(f.attributes["workgroup_attrib_attrs"])) \
            if "workgroup_attrib_attrs" in f.attributes else [ir.DictAttr.get({})] * n
        new = []
        for d in old:
            entries = {a.name: a.attr for a in ir.DictAttr(d)}
            align = entries.get("llvm.align")
            if align is None or ir.IntegerAttr(align).value < ALIGN:
                entries["llvm.align"] = ir.IntegerAttr.get(i64, ALIGN)
            new.append(ir.DictAttr.get(entries))
        f.attributes["workgroup_attrib_attrs"] = ir.ArrayAttr.get(new)
