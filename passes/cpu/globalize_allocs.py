"""msmlir-cpu-globalize-allocs: static temporaries -> private globals.

Rewrites static-size `memref.alloc`s of a function's entry block (after
buffer hoisting, before the deallocation pipeline) of at least `min-bytes`
into private `memref.global`s (64-byte aligned) read with memref.get_global;
their deallocs are dropped.

Why: the matmul's packed panels are big temporaries; allocating and faulting
them in on every call costs more than a small matmul. The price: the
functions become NON-REENTRANT (two concurrent calls of the same compiled
function would share the buffers), so the pass is off in the default
pipeline and only enabled with `msmlir-cpu-pipeline{globalize=true}`.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from ..registry import Option, register_pass


def _identity_layout(t: ir.MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, ir.AffineMapAttr):
        return layout.value == ir.AffineMap.get_identity(t.rank)
    return False


@register_pass("msmlir-cpu-globalize-allocs",
               "Static memref.allocs in functions -> private memref.globals (makes the "
               "functions non-reentrant); run before the deallocation pipeline",
               options={"min-bytes": Option(int, 1 << 16, "only buffers at least this big")})
def globalize_allocs(module: ir.Operation, *, min_bytes: int):
    body = module.regions[0].blocks[0]
    names = set()
    for op in body.operations:
        if "sym_name" in op.operation.attributes:
            names.add(ir.StringAttr(op.operation.attributes["sym_name"]).value)
    n = 0
    for fop in list(body.operations):
        if fop.operation.name != "func.func":
            continue
        # Only allocations in the function's entry block (run after buffer
        # hoisting, before the deallocation pipeline): one buffer per call.
        entry = fop.operation.regions[0].blocks[0]
        allocs = [o.operation for o in entry.operations if o.operation.name == "memref.alloc"]
        for a in allocs:
            if any(u.owner.name == "func.return" for u in a.results[0].uses):
                continue
            t = ir.MemRefType(a.results[0].type)
            if not t.has_static_shape or len(a.operands) or not _identity_layout(t):
                continue
            size = 1
            for d in t.shape:
                size *= d
            if size * max(1, t.element_type.width // 8 if hasattr(t.element_type, "width") else 4) < min_bytes:
                continue
            while f"__msmlir_buf{n}" in names:
                n += 1
            name = f"__msmlir_buf{n}"
            names.add(name)
            with a.location:
                memref.GlobalOp(sym_name=name, type_=ir.TypeAttr.get(t), sym_visibility="private",
                                initial_value=ir.UnitAttr.get(), alignment=64,
                                ip=ir.InsertionPoint(fop))
                with ir.InsertionPoint(a):
                    g = memref.GetGlobalOp(t, name)
            for use in list(a.results[0].uses):
                if use.owner.name == "memref.dealloc":
                    use.owner.erase()
            a.results[0].replace_all_uses_with(g.result)
            a.erase()
