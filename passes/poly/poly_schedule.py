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
isl AST (codegen.py). On the cpu target, reduction loops along which every
access is contiguous get vector accumulators (vectorize.py: scalar
replacement of the accumulated cell, 4 partial-sum vectors, a masked tail;
`vector-reductions=false` keeps the serial order), reductions over an outer
loop (column sums, a matmul's k) register-blocked vector columns, the other
independent innermost loops 16-lane vector steps, and `cpu-threads=N` > 1
splits the outermost parallel band member of nests above the hand path's
break-even work into N chunks, one `affine.parallel` iteration each
(schedule.split_tasks; in claimed functions lowered to scf.parallel at once,
which msmlir-cpu-pipeline{threads=N} runs as an OpenMP region). Marks (no
transformation): `mskernel.parallel` on the outermost coincident loop,
`mskernel.vector` on innermost contiguous loops,
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

`nests=true` (what msmlir-cpu-pipeline runs on the plain path, after
bufferization): functions that mix other code (vector ops, scf loops, OpenMP
ops) with affine nests are scheduled per nest group: each maximal run of
consecutive top-level `affine.for` ops in any block (allocs and constants
between them hoisted before the run, deallocs sunk after it) whose outside
values are memrefs or constants is outlined into a private function
`<func>_poly<k>` (memrefs as arguments, constants cloned), called in place,
and scheduled there (it carries `mskernel.schedule`; `inline` puts it back
later). A run that cannot be represented is moved back unchanged, silently
(it is the plain path's scalar loop nest, as without the pass).

`claimed=true` (what msmlir-cpu-pipeline runs after bufferization, always):
only the functions mskernel-poly-claim outlined (`mskernel.poly`: the kernel
classes the scheduler compiles better than the hand strategies, claim.py has
the measurements): their linalg ops become affine loops, scalar exp / tanh /
erf polynomials (msmlir-cpu-fast-math{min-lanes=1}: LLVM's loop vectorizer
then vectorizes them), and the whole function is scheduled; one that cannot
be gets a remark saying why and keeps its plain loops.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func as func_d
from mlir.passmanager import PassManager

from ..common.diagnostics import emit_remark
from ..registry import Option, PassFailure, register_pass
from . import codegen, dependences, model, schedule, targets, vectorize

ATTR_SCHEDULE = "mskernel.schedule"
ATTR_POLY = "mskernel.poly"      # set by mskernel-poly-claim (claim.py)
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


def _lanes(target):
    """cpu: vector lanes per element width for the vector accumulators (the
    hand strategies' width, cpu/tiling.lanes); other targets: None."""
    if not isinstance(target, targets.CPU):
        return None
    from ..cpu.tiling import lanes
    return lanes


def schedule_function(func: ir.Operation, *, tile_sizes: list[int], target=None,
                      threads: int = 1, vector_reductions: bool = True) -> str:
    """Reschedules `func` in place; returns the schedule text (raises
    model.NotRepresentable, the function unchanged)."""
    scop = model.extract(func)
    deps = dependences.compute(scop)
    target = target if target is not None else targets.make("cpu")
    res = schedule.schedule(scop, deps, tile_sizes=tile_sizes, target=target, threads=threads)
    if codegen.rebuild(scop, res.schedule, _lanes(target) if vector_reductions else None):
        vectorize.halving_trees(func)
    text = describe(res, deps)
    func.attributes[ATTR_SCHEDULE] = ir.StringAttr.get(text)
    return text


# --- nests=true: one nest group at a time -------------------------------------------

def _runs(func: ir.Operation) -> list[list[ir.Operation]]:
    """Maximal runs of top-level affine.for ops (between them only hoistable
    ops without regions and deallocs), in every block of `func`, each run's
    affine.for ops and in-between ops in order."""
    runs = []

    def walk(block):
        cur, loops = [], 0
        for o in block.operations:
            o = o.operation
            if o.name == "affine.for":
                cur.append(o)
                loops += 1
                continue
            if cur and not o.regions and (o.name in model._HOISTABLE or o.name in model._SINKABLE):
                cur.append(o)
                continue
            if loops:
                runs.append(cur)
            cur, loops = [], 0
            for r in o.regions:
                for b in r.blocks:
                    walk(b)
        if loops:
            runs.append(cur)
    walk(func.regions[0].blocks[0])
    return runs


def _walk(op: ir.Operation, fn):
    fn(op)
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                _walk(o.operation, fn)


def _outline_run(func: ir.Operation, run: list[ir.Operation], name: str):
    """Outlines `run` into a private function (the views its loops use cloned
    into it); returns (callee, call, memrefs) or None (left alone: an outside
    value that is neither a memref nor a constant)."""
    ops = list(run)
    # in-between ops: hoist before / sink after the run (only values from outside)
    inside = set()
    for o in ops:
        if o.name != "affine.for":
            continue
        _walk(o, lambda x: inside.update(x.results))
    hoist = [o for o in ops if o.name != "affine.for" and o.name not in model._SINKABLE]
    sink = [o for o in ops if o.name in model._SINKABLE]
    for o in hoist + sink:
        if any(v in inside for v in o.operands):
            return None
    loops = [o for o in ops if o.name == "affine.for"]
    # values the loops use from outside
    defined, used = set(), []

    def visit(x):
        defined.update(x.results)
        for r in x.regions:
            for b in r.blocks:
                defined.update(b.arguments)
        used.extend(x.operands)
    for o in loops:
        _walk(o, visit)
    # views the loops use (expand/collapse_shape, subview, ...) are cloned into
    # the callee, their sources passed: a view and its source as two arguments
    # would be two arrays to the model, their dependences missed
    views = []

    def chase(v):
        o = model.owner_op(v)
        if v in defined or o is None or o.name not in model._VIEWS or o in views:
            return
        for w in o.operands:
            chase(w)
        views.append(o)
    for v in list(used):
        chase(v)
    for o in views:
        visit(o)
    memrefs, consts, seen = [], [], set()
    for v in used:
        if v in defined or v in seen:
            continue
        seen.add(v)
        owner = model.owner_op(v)
        if owner is not None and owner.name == "arith.constant":
            consts.append(v)
        elif isinstance(v.type, ir.MemRefType):
            memrefs.append(v)
        else:
            return None
    for o in hoist:
        o.move_before(ops[0])
    for o in reversed(sink):
        o.move_after(ops[-1])
    with func.location:
        with ir.InsertionPoint(func):
            callee = func_d.FuncOp(name, ([v.type for v in memrefs], []), visibility="private")
        entry = callee.add_entry_block()
        with ir.InsertionPoint(entry):
            ret = func_d.ReturnOp([])
        with ir.InsertionPoint(loops[0]):
            call = func_d.CallOp([], ir.FlatSymbolRefAttr.get(name), memrefs)
    remap = dict(zip(memrefs, entry.arguments))
    for c in consts:
        remap[c] = model.owner_op(c).clone(ir.InsertionPoint(ret)).results[0]

    def fix(x):
        for i, v in enumerate(x.operands):
            if v in remap:
                x.operands[i] = remap[v]
    for o in views:
        c = o.clone(ir.InsertionPoint(ret))
        fix(c)
        remap.update(zip(o.results, c.results))
    for o in loops:
        o.move_before(ret)
    for o in loops:
        _walk(o, fix)
    return callee.operation, call.operation, memrefs


def _inline_back(callee: ir.Operation, call: ir.Operation, memrefs):
    """Undoes _outline_run: the callee's body back before the call."""
    entry = callee.regions[0].blocks[0]
    for arg, v in zip(entry.arguments, memrefs):
        arg.replace_all_uses_with(v)
    for o in list(entry.operations)[:-1]:
        o.operation.move_before(call)
    call.erase()
    callee.erase()


def schedule_nests(func: ir.Operation, *, tile_sizes: list[int], target=None,
                   vector_reductions: bool = True) -> int:
    """nests=true on one function; returns the number of groups scheduled."""
    base = ir.StringAttr(func.attributes["sym_name"]).value
    table = ir.SymbolTable(func.parent)
    done = 0
    for k, run in enumerate(_runs(func)):
        name = f"{base}_poly{k}"
        if name in table:
            continue
        out = _outline_run(func, run, name)
        if out is None:
            continue
        callee, call, memrefs = out
        try:
            schedule_function(callee, tile_sizes=tile_sizes, target=target,
                              vector_reductions=vector_reductions)
            done += 1
        except Exception:  # noqa: BLE001 - not representable (or an isl limit): unchanged
            _inline_back(callee, call, memrefs)
    return done


def _has_op(op: ir.Operation, name: str) -> bool:
    found = []

    def visit(o):
        if o.name == name:
            found.append(o)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    op.walk(visit)
    return bool(found)


def _schedule_claimed(func: ir.Operation, target, threads: int, vector_reductions: bool) -> None:
    from ..cpu.fast_math import fast_math
    PassManager.parse("func.func(convert-linalg-to-affine-loops)", func.context).run(func)
    fast_math(func, ops="exp,tanh,erf", min_lanes=1, row_ops=False)
    try:
        schedule_function(func, tile_sizes=[], target=target, threads=threads,
                          vector_reductions=vector_reductions)
    except model.NotRepresentable as e:
        emit_remark(func.location, f"{NAME}: not representable: {e}; the claimed function keeps "
                                   "its plain loops")
        return
    if _has_op(func, "affine.parallel"):
        # the task loop -> scf.parallel now: the CPU pipeline's
        # convert-scf-to-openmp runs before its own lower-affine
        PassManager.parse("func.func(lower-affine)", func.context).run(func)


@register_pass(NAME, "polyhedral scheduling (isl) of affine loop nests: fusion, permutation, tiling, marks",
               options={"target": Option(str, "cpu", "memory model to tile for: cpu, gpu or ascend"),
                        "tile-sizes": Option(list, [], "tile sizes of band members, one level "
                                             "(empty: solved from the memory model)"),
                        "l1-bytes": Option(int, 0, "cpu: L1 data cache bytes (0: read from sysfs)"),
                        "l2-bytes": Option(int, 0, "cpu: L2 cache bytes (0: read from sysfs)"),
                        "l3-bytes": Option(int, 0, "cpu: L3 cache bytes (0: read from sysfs)"),
                        "vector-bytes": Option(int, 0, "cpu: vector register bytes (0: from the host)"),
                        "shared-bytes": Option(int, 0, "gpu: shared memory per block (0: 48 KiB)"),
                        "threads": Option(int, 0, "gpu: max threads per block (0: 1024)"),
                        "nests": Option(bool, False, "schedule each group of consecutive nests on "
                                        "its own, outlined into a private function; groups that "
                                        "cannot be represented stay, silently"),
                        "claimed": Option(bool, False, "only the functions marked mskernel.poly by "
                                          "mskernel-poly-claim, their linalg ops lowered to affine "
                                          "loops first"),
                        "cpu-threads": Option(int, 1, "cpu: split the outermost parallel band member of "
                                              "big nests into this many tasks (affine.parallel; "
                                              "scf.parallel in claimed functions)"),
                        "vector-reductions": Option(bool, True, "cpu: reduction loops with vector "
                                                    "accumulators (reassociated; false: serial "
                                                    "order)")})
def run(module: ir.Operation, *, target: str, tile_sizes: list, l1_bytes: int, l2_bytes: int,
        l3_bytes: int, vector_bytes: int, shared_bytes: int, threads: int, nests: bool,
        claimed: bool, cpu_threads: int, vector_reductions: bool):
    if target not in targets.TARGETS:
        ir.Location.unknown(module.context).emit_error(
            f"{NAME}: unknown target '{target}' (one of {', '.join(targets.TARGETS)})")
        raise PassFailure(target)
    over = {"cpu": dict(l1=l1_bytes, l2=l2_bytes, l3=l3_bytes, vector_bytes=vector_bytes),
            "gpu": dict(shared=shared_bytes, threads=threads)}.get(target, {})
    model_ = targets.make(target, **over)
    for func in list(_funcs(module)):
        if ATTR_SCHEDULE in func.attributes:
            continue
        if claimed:
            if ATTR_POLY in func.attributes:
                _schedule_claimed(func, model_, cpu_threads, vector_reductions)
            continue
        if nests:
            schedule_nests(func, tile_sizes=[int(t) for t in tile_sizes], target=model_,
                           vector_reductions=vector_reductions)
            continue
        if not _has_loops(func):
            continue
        try:
            schedule_function(func, tile_sizes=[int(t) for t in tile_sizes], target=model_,
                              threads=cpu_threads, vector_reductions=vector_reductions)
        except model.NotRepresentable as e:
            emit_remark(func.location, f"{NAME}: not representable: {e}; the function is unchanged")
