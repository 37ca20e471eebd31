"""mskernel-poly-schedule: reschedules a function's affine loop nests with isl.

For each `func.func` whose body holds `affine.for` nests over memrefs (what
convert-linalg-to-affine-loops makes of a bufferized kernel, or hand-written
affine): extracts the polyhedral model (model.py), computes the dependences
with isl's dataflow analysis (dependences.py), lets isl's scheduler pick a new
schedule (validity = all dependences, proximity = RAW, coincidence = all:
producer/consumer nests over the same domain get fused, loops permuted
within what the dependences allow), tiles the outermost permutable bands
(`tile-sizes`: one level; else sizes per level solved from the target's
memory model, schedule.py) and rebuilds the loops from the
isl AST (codegen.py). Marks (no transformation): `mskernel.parallel` on the
outermost coincident loop, `mskernel.vector` on innermost contiguous loops,
`mskernel.band = "<level>"` on the first loop of each tile band ("point":
the innermost point band), for gpu `mskernel.gpu = "blocks"|"threads"`.
The function gets `mskernel.schedule`: the tile sizes per level, the memory
model, the reductions and the isl schedule tree, as a string.

`target` picks the memory model (targets.py): cpu (two-level L2/L1 tiling,
figures from sysfs / the host, `l1-bytes` ... `vector-bytes` override them),
gpu (shared memory per block, threads per block: `shared-bytes`, `threads`),
ascend (910B UB / L1 / L0A / L0B / L0C, 32-byte alignment).

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
from . import codegen, dependences, model, schedule, targets

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
    tiles = "; ".join(" > ".join(f"{lvl} {'x'.join(map(str, ts))}" for lvl, ts in band)
                      for band in res.tile_sizes) or "none"
    red = "; ".join(f"{s}: dims {d}" for s, d in sorted(deps.reductions.items())) or "none"
    return (f"tile-sizes: {tiles} | target: {res.target.describe()} | reductions: {red} | "
            f"schedule: {res.schedule}")


def schedule_function(func: ir.Operation, *, tile_sizes: list[int], target=None) -> str:
    """Reschedules `func` in place; returns the schedule text (raises
    model.NotRepresentable, the function unchanged)."""
    scop = model.extract(func)
    deps = dependences.compute(scop)
    res = schedule.schedule(scop, deps, tile_sizes=tile_sizes, target=target)
    codegen.rebuild(scop, res.schedule)
    text = describe(res, deps)
    func.attributes[ATTR_SCHEDULE] = ir.StringAttr.get(text)
    return text


@register_pass(NAME, "polyhedral scheduling (isl) of affine loop nests: fusion, permutation, tiling, marks",
               options={"target": Option(str, "cpu", "memory model to tile for: cpu, gpu or ascend"),
                        "tile-sizes": Option(list, [], "tile sizes of band members, one level "
                                             "(empty: solved from the memory model)"),
                        "l1-bytes": Option(int, 0, "cpu: L1 data cache bytes (0: read from sysfs)"),
                        "l2-bytes": Option(int, 0, "cpu: L2 cache bytes (0: read from sysfs)"),
                        "l3-bytes": Option(int, 0, "cpu: L3 cache bytes (0: read from sysfs)"),
                        "vector-bytes": Option(int, 0, "cpu: vector register bytes (0: from the host)"),
                        "shared-bytes": Option(int, 0, "gpu: shared memory per block (0: 48 KiB)"),
                        "threads": Option(int, 0, "gpu: max threads per block (0: 1024)")})
def run(module: ir.Operation, *, target: str, tile_sizes: list, l1_bytes: int, l2_bytes: int,
        l3_bytes: int, vector_bytes: int, shared_bytes: int, threads: int):
    if target not in targets.TARGETS:
        ir.Location.unknown(module.context).emit_error(
            f"{NAME}: unknown target '{target}' (one of {', '.join(targets.TARGETS)})")
        raise PassFailure(target)
    over = {"cpu": dict(l1=l1_bytes, l2=l2_bytes, l3=l3_bytes, vector_bytes=vector_bytes),
            "gpu": dict(shared=shared_bytes, threads=threads)}.get(target, {})
    model_ = targets.make(target, **over)
    for func in list(_funcs(module)):
        if ATTR_SCHEDULE in func.attributes or not _has_loops(func):
            continue
        try:
            schedule_function(func, tile_sizes=[int(t) for t in tile_sizes], target=model_)
        except model.NotRepresentable as e:
            emit_remark(func.location, f"{NAME}: not representable: {e}; the function is unchanged")
