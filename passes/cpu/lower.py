"""Post-bufferization passes of the CPU pipeline.

* msmlir-cpu-lower-vectors: hoists loop-invariant vector transfers (keeps the
  matmul accumulators and the reduction partial sums in registers), then
  lowers contractions to outer products / FMAs, multi-reductions, transfers,
  transposes and shape casts to 1-D vector ops (transform dialect patterns).
* msmlir-cpu-globalize-allocs: static-size `memref.alloc`s of functions
  (the matmul's packed panels) become private `memref.global`s. This makes
  the functions NON-REENTRANT (two concurrent calls of the same compiled
  function would share the buffers), so it is off in the default pipeline
  and only enabled with `msmlir-cpu-pipeline{globalize=true}`.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from ..registry import register_pass
from .analysis import walk_ops
from .script import ANY, Script, apply_script


def _lower_vectors_script(threads: int) -> str:
    s = Script()
    foralls = s.match_ops("%root", ["scf.forall"])
    s.emit(f"transform.foreach {foralls} : {ANY} {{")
    s.emit(f"^bb0(%fa: {ANY}):")
    if threads > 1:
        s.emit(f"  %par = transform.loop.forall_to_parallel %fa : ({ANY}) -> {ANY}")
    else:
        s.emit(f"  %ser = transform.loop.forall_to_for %fa : ({ANY}) -> {ANY}")
    s.emit("  transform.yield")
    s.emit("}")
    funcs = s.match_ops("%root", ["func.func"])
    s.patterns(funcs, ["canonicalization"])
    s.cse(funcs)
    h = s.fresh("h")
    s.emit(f"{h} = transform.structured.hoist_redundant_vector_transfers {funcs} : ({ANY}) -> {ANY}")
    # Separate greedy rounds: vector.lower_shape_cast + vector.lower_transpose +
    # canonicalization in one set ping-pong forever on unit-dim transposes.
    s.patterns(h, [
        'vector.lower_contraction lowering_strategy = "outerproduct"',
        "vector.transfer_permutation_patterns",
        'vector.lower_multi_reduction lowering_strategy = "innerparallel"',
        'vector.split_transfer_full_partial split_transfer_strategy = "linalg-copy"',
        "vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true",
        "vector.lower_transfer max_transfer_rank = 1",
        "vector.lower_outerproduct",
    ])
    s.patterns(h, ['vector.lower_transpose lowering_strategy = "shuffle_1d"'])
    s.patterns(h, ["vector.lower_shape_cast"])
    s.patterns(h, ["canonicalization"])
    return s.text()


_SCRIPTS: dict = {}


@register_pass("msmlir-cpu-lower-vectors",
               "After bufferization: scf.forall -> scf.parallel (threads > 1) or scf.for, hoist "
               "loop-invariant vector transfers and lower contractions/reductions/transfers/"
               "transposes to 1-D vector ops",
               options={"threads": (int, 1, "> 1: keep scf.forall loops parallel (scf.parallel)")})
def lower_vectors(module: ir.Operation, threads: int = 1):
    key = threads > 1
    if key not in _SCRIPTS:
        _SCRIPTS[key] = _lower_vectors_script(threads)
    interesting = walk_ops(module, [], lambda o: o.name.startswith("vector.") or o.name == "scf.forall")
    if interesting:
        apply_script(module, _SCRIPTS[key])


_UNROLL = None


@register_pass("msmlir-cpu-unroll-transfers",
               "After bufferization, before fold-memref-alias-ops: unroll n-D vector "
               "transfers into 1-D ones (vector.transfer_to_scf, full unroll). Upstream "
               "fold-memref-alias-ops folds an n-D transfer_read of a memref.expand_shape "
               "with a minor identity map over the collapsed source, which is wrong when the "
               "vector dims straddle a collapsed group; 1-D transfers fold correctly")
def unroll_transfers(module: ir.Operation):
    global _UNROLL
    if not walk_ops(module, [], lambda o: o.name in ("vector.transfer_read",
                                                       "vector.transfer_write")):
        return
    if _UNROLL is None:
        s = Script()
        funcs = s.match_ops("%root", ["func.func"])
        s.patterns(funcs, ["vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true"])
        _UNROLL = s.text()
    apply_script(module, _UNROLL)


def _identity_layout(t: ir.MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, ir.AffineMapAttr):
        return layout.value == ir.AffineMap.get_identity(t.rank)
    return False


@register_pass("msmlir-cpu-globalize-allocs",
               "Static memref.allocs in functions -> private memref.globals (makes the "
               "functions non-reentrant); run before the deallocation pipeline",
               options={"min-bytes": (int, 1 << 16, "only buffers at least this big")})
def globalize_allocs(module: ir.Operation, **opts):
    min_bytes = opts.get("min-bytes", 1 << 16)
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
