"""mskernel-poly-schedule: reschedules a function's affine loop nests with isl.

For each `func.func` whose body holds `affine.for` nests over memrefs (what
convert-linalg-to-affine-loops makes of a bufferized kernel, or hand-written
affine): extracts the polyhedral model (model.py), computes the dependences
with isl's dataflow analysis (dependences.py), lets isl's scheduler pick a new
schedule (validity = all dependences, proximity = RAW, coincidence = all:
producer/consumer nests over the same domain get fused, loops permuted
within what the dependences allow), tiles the outermost permutable bands
(`tile-sizes`, else the largest power of two whose tile footprint fits in
half of L1: `l1-bytes`, else read from sysfs) and rebuilds the loops from the
isl AST (codegen.py). Marks (no transformation): `mskernel.parallel` on the
outermost coincident loop, `mskernel.vector` on innermost contiguous loops.
The function gets `mskernel.schedule`: the isl schedule tree, tile sizes and
cache sizes used, as a string.

A function that cannot be represented (non-affine index, memref.load with
computed indices, scf control flow inside, dynamic sizes, ...) or whose AST
cannot be rebuilt as affine is left unchanged, with a remark at the function
saying why. Functions without affine.for nests, or that already carry
`mskernel.schedule`, are skipped silently.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..registry import Option, PassFailure, register_pass
from . import codegen, dependences, model, schedule

ATTR_SCHEDULE = "mskernel.schedule"
NAME = "mskernel-poly-schedule"


def _funcs(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and len(op.operation.regions[0].blocks):
            yield op.operation


def _has_loops(func: ir.Operation) -> bool:
    return any(o.operation.name == "affine.for" for o in func.regions[0].blocks[0].operations)


def describe(res: schedule.Result, deps: dependences.Dependences) -> str:
    """The text stored in mskernel.schedule."""
    tiles = "; ".join("x".join(map(str, t)) for t in res.tile_sizes) or "none"
    red = "; ".join(f"{s}: dims {d}" for s, d in sorted(deps.reductions.items())) or "none"
    return (f"tile-sizes: {tiles} | l1: {res.l1} | l2: {res.l2} | reductions: {red} | "
            f"schedule: {res.schedule}")


def schedule_function(func: ir.Operation, *, tile_sizes: list[int], l1: int, l2: int) -> str:
    """Reschedules `func` in place; returns the schedule text (raises
    model.NotRepresentable, the function unchanged)."""
    scop = model.extract(func)
    deps = dependences.compute(scop)
    res = schedule.schedule(scop, deps, tile_sizes=tile_sizes, l1=l1, l2=l2)
    codegen.rebuild(scop, res.schedule)
    text = describe(res, deps)
    func.attributes[ATTR_SCHEDULE] = ir.StringAttr.get(text)
    return text


@register_pass(NAME, "polyhedral scheduling (isl) of affine loop nests: fusion, permutation, tiling, marks",
               options={"target": Option(str, "cpu", "memory model to tile for (cpu only today)"),
                        "tile-sizes": Option(list, [], "tile sizes of band members (empty: memory model)"),
                        "l1-bytes": Option(int, 0, "L1 data cache bytes (0: read from sysfs)"),
                        "l2-bytes": Option(int, 0, "L2 cache bytes (0: read from sysfs)")})
def run(module: ir.Operation, *, target: str, tile_sizes: list, l1_bytes: int, l2_bytes: int):
    if target != "cpu":
        ir.Location.unknown(module.context).emit_error(
            f"{NAME}: target '{target}' has no memory model yet (only 'cpu')")
        raise PassFailure(target)
    l1, l2 = schedule.cache_sizes()
    l1, l2 = l1_bytes or l1, l2_bytes or l2
    for func in list(_funcs(module)):
        if ATTR_SCHEDULE in func.attributes or not _has_loops(func):
            continue
        try:
            schedule_function(func, tile_sizes=[int(t) for t in tile_sizes], l1=l1, l2=l2)
        except model.NotRepresentable as e:
            emit_remark(func.location, f"{NAME}: not representable: {e}; the function is unchanged")
