"""The polyhedral schedule as the GPU mapping (no pass): convert-mskernel-to-gpu{poly-schedule}.

Why: the isl schedule for target=gpu (mskernel-poly-schedule, passes/poly)
already decides the mapping: it tiles each permutable band so that one
tile's footprint fits shared memory and the coincident point members fit a
block (targets.GPU: threads per block, registers per thread / per block), and
marks the coincident tile loops `mskernel.gpu = "blocks"` and the coincident
point loops `"threads"`. `schedule_and_map(kernel)` runs that schedule on a
bufferized kernel (its linalg ops as affine loops) and turns the marks into the
same mapped form the matcher builds: one scf.parallel over the block loops
(block_x = the innermost marked one), one nested scf.parallel over the thread
loops (extent = the tile size, the partial tiles guarded by scf.if), the
unmarked loops inside serial. The mapped nest is plain scf, so the CPU check
(msmlir.gpu.run_mapped_on_cpu) runs it; upstream convert-parallel-loops-to-gpu
makes the launch.

A kernel is declined (the caller keeps the matcher, with a remark) when it
cannot be represented, when a nest is not tiled (1-D bands are not), or when
its marks are not "blocks, then threads" perfectly nested (a serial tile loop
between them: reductions along an outer dim), or exceed the hardware limits
(3 block / thread dims, 1024 threads, grid y/z 65535, block z 64).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, scf
from mlir.passmanager import PassManager

from ..poly import model, poly_schedule, targets
from ..poly.codegen import ATTR_GPU, ATTR_PARALLEL
from .loops import (MAX_BLOCK_Z, MAX_GRID_YZ, MAX_THREADS, _and, _const, _coords, _index,
                    _new_parallel, WARP)

ATTR_MAPPING = "mskernel.gpu_mapping"   # the mapping, as text (print-schedule shows it)
_BLOCK_IDS = ["block_x", "block_y", "block_z"]
_THREAD_IDS = ["thread_x", "thread_y", "thread_z"]


class Declined(Exception):
    """The schedule does not give a mapping for this kernel (the reason)."""


def _loops(op: ir.Operation, name: str) -> list[ir.Operation]:
    out = []

    def visit(o):
        if o.name == name:
            out.append(o)
        return ir.WalkResult.ADVANCE
    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def _extent(loop: ir.Operation) -> int | None:
    """A constant upper bound of an affine.for's trip count (a point loop:
    `max(lbs) to min(ubs)`, some ub - lb pair constant, the tile size), or None."""
    lbm = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
    ubm = ir.AffineMapAttr(loop.attributes["upperBoundMap"]).value
    step = ir.IntegerAttr(loop.attributes["step"]).value
    ops = list(loop.operands)
    lbo, ubo = ops[:lbm.n_inputs], ops[lbm.n_inputs:lbm.n_inputs + ubm.n_inputs]
    uniq = []
    for v in lbo + ubo:
        if v not in uniq:
            uniq.append(v)
    n = len(uniq)

    def common(m, operands):
        dims = [ir.AffineDimExpr.get(uniq.index(v)) for v in operands]
        return [r.compose(ir.AffineMap.get(n, 0, dims)) if dims else r for r in m.results]
    best = None
    for u in common(ubm, ubo):
        for lo in common(lbm, lbo):
            text = str(ir.AffineExpr.simplify_affine_expr(u - lo, n, 0))
            try:
                e = int(text)
            except ValueError:
                continue
            best = e if best is None else min(best, e)
    return None if best is None else -(-best // step)


def _body(loop: ir.Operation) -> ir.Block:
    return loop.regions[0].blocks[0]


def _pure(o: ir.Operation) -> bool:
    return o.name.startswith(("arith.", "index.")) and not o.regions


def _chain(top: ir.Operation, marks: dict) -> tuple[list, list]:
    """The block loops (a perfect nest from `top`) and thread loops below them;
    every other op between them pure (bound arithmetic)."""
    blocks, threads, cur = [], [], top
    while True:
        kind = marks.get(cur)
        if kind is None or kind[0] == "parallel":
            break
        (blocks if kind[0] == "blocks" else threads).append(cur)
        if kind[0] == "blocks" and threads:
            raise Declined("a block loop inside a thread loop")
        inner = [o.operation for o in _body(cur).operations][:-1]
        loops = [o for o in inner if o.name == "scf.for"]
        if len(loops) != 1 or any(o is not loops[0] and not _pure(o) for o in inner) \
                or loops[0] not in marks:
            break
        cur = loops[0]
    if not threads:
        seen, o = [], top
        while True:
            seen.append(marks.get(o, ("serial",))[0])
            inner = [x.operation for x in _body(o).operations if x.operation.name == "scf.for"]
            if len(inner) != 1 or len(seen) > 8:
                break
            o = inner[0]
        raise Declined("the marks do not nest as blocks then threads: "
                       + " > ".join(seen) + (" > ..." if inner else ""))
    for lp in blocks:
        if None in (_const(lp.operands[0]), _const(lp.operands[1]), _const(lp.operands[2])):
            raise Declined("a block loop with non-constant bounds")
    return blocks, threads


def _grid(sizes: list[int], ids: list[str]) -> tuple[list[list[int]], list[int]]:
    """Dims (outer -> inner) to at most 3 hardware ids: the innermost -> x, the
    next -> y, the rest linearized into z; (groups, their sizes)."""
    n = len(sizes)
    groups = [[n - 1 - k] for k in range(min(n, 2))]
    if n > 2:
        groups.append(list(range(n - 2)))
    return groups, [math.prod(sizes[d] for d in g) for g in groups]


def _parallel(sizes: list[int], ids: list[str]) -> tuple[ir.Operation, list[ir.Value], str]:
    """scf.parallel over `sizes` (outer -> inner) mapped to `ids`; (op, the
    per-dim coordinates, delinearized at its body's start, description)."""
    groups, ext = _grid(sizes, ids)
    op, ivs = _new_parallel(ext, ids[:len(groups)])
    body = _body(op)
    coords = {}
    with ir.InsertionPoint(body.operations[len(body.operations) - 1]):
        for g, v in zip(groups, ivs):
            coords.update(_coords(v, g, dict(enumerate(sizes))))
    label = {d: ids[k] for k, g in enumerate(groups) for d in g}
    names = ",".join(label[d] for d in range(len(sizes)))
    return op, [coords[d] for d in range(len(sizes))], \
        f"{'x'.join(map(str, sizes))} ({names})"


def _map_nest(top: ir.Operation, marks: dict) -> str:
    """Rebuilds the marked nest at `top` (scf.for after lower-affine) as a
    mapped scf.parallel pair; returns its description."""
    blocks, threads = _chain(top, marks)
    trips = [-(-(_const(b.operands[1]) - _const(b.operands[0])) // _const(b.operands[2]))
             for b in blocks]
    ext = [marks[t][1] for t in threads]
    if None in ext or min(ext) < 1:
        raise Declined("a thread loop without a constant tile extent")
    text = _grid(ext, _THREAD_IDS)[1]
    if math.prod(ext) > MAX_THREADS or (len(text) == 3 and text[2] > MAX_BLOCK_Z):
        raise Declined(f"thread tile {'x'.join(map(str, ext))} exceeds the block limits")
    if any(t > MAX_GRID_YZ for t in _grid(trips, _BLOCK_IDS)[1][1:]):
        raise Declined(f"grid {'x'.join(map(str, trips))} exceeds the y/z limit")
    with ir.InsertionPoint(top), top.location:
        # (no block loop: one tile, its loops elided by isl's AST: one block)
        bpar, bivs, bdesc = _parallel(trips or [1], _BLOCK_IDS)
    bterm = _body(bpar).operations[len(_body(bpar).operations) - 1]

    def take(loop, iv, term):
        """The loop's index (lb + iv * step), computed before `term`, replaces
        its induction variable; returns it and the loop's body ops."""
        with ir.InsertionPoint(term), loop.location:
            step = arith.MulIOp(iv, loop.operands[2]).result
            i = arith.AddIOp(loop.operands[0], step).result
        body = _body(loop)
        body.arguments[0].replace_all_uses_with(i)
        return i, [o.operation for o in body.operations][:-1]

    for lp, iv in zip(blocks, bivs):
        _, ops = take(lp, iv, bterm)
        for o in ops:
            if o is not threads[0] and o not in blocks:
                o.move_before(bterm)
    with ir.InsertionPoint(bterm), top.location:
        tpar, tivs, tdesc = _parallel(ext, _THREAD_IDS)
    tterm = _body(tpar).operations[len(_body(tpar).operations) - 1]
    conds, last_ops = [], []
    for k, (lp, iv) in enumerate(zip(threads, tivs)):
        i, ops = take(lp, iv, tterm)
        with ir.InsertionPoint(tterm), lp.location:
            conds.append(arith.CmpIOp(arith.CmpIPredicate.slt, i, lp.operands[1]).result)
        if k < len(threads) - 1:
            for o in ops:
                if o is not threads[k + 1]:
                    o.move_before(tterm)
        else:
            last_ops = ops
    with ir.InsertionPoint(tterm), top.location:
        guard = scf.IfOp(_and(conds))
        with ir.InsertionPoint(guard.then_block):
            gterm = scf.YieldOp([]).operation
    for o in last_ops:
        o.move_before(gterm)
    top.erase()
    return f"blocks {bdesc} threads {tdesc}"


def _map_parallel_loop(top: ir.Operation, threads: int) -> str:
    """An untiled nest (a one-member band: isl tiles bands of >= 2) whose
    outermost loop the schedule marks parallel: that loop strip-mined into
    blocks of `threads` threads (fewer for a short loop, a multiple of the
    warp), the rest serial in each thread."""
    lb, ub, st = (_const(v) for v in list(top.operands)[:3])
    if None in (lb, ub, st):
        raise Declined("a parallel loop with non-constant bounds")
    trip = -(-(ub - lb) // st)
    T = min(threads, -(-trip // WARP) * WARP)
    nb = -(-trip // T)
    with ir.InsertionPoint(top), top.location:
        bpar, (b,) = _new_parallel([nb], ["block_x"])
        bterm = _body(bpar).operations[len(_body(bpar).operations) - 1]
        with ir.InsertionPoint(bterm):
            tpar, (t,) = _new_parallel([T], ["thread_x"])
        tterm = _body(tpar).operations[len(_body(tpar).operations) - 1]
        with ir.InsertionPoint(tterm):
            k = arith.AddIOp(arith.MulIOp(b, _index(T)).result, t).result
            i = arith.AddIOp(arith.MulIOp(k, _index(st)).result, _index(lb)).result
            guard = scf.IfOp(arith.CmpIOp(arith.CmpIPredicate.slt, i, _index(ub)).result)
            with ir.InsertionPoint(guard.then_block):
                gterm = scf.YieldOp([]).operation
    body = _body(top)
    body.arguments[0].replace_all_uses_with(i)
    for o in [o.operation for o in body.operations][:-1]:
        o.move_before(gterm)
    top.erase()
    return f"blocks {nb} (block_x) threads {T} (thread_x) over the parallel loop"


def schedule_and_map(kernel: ir.Operation, threads: int) -> str:
    """Schedules the bufferized `kernel` (func.func, linalg on memrefs) with
    isl for the GPU model capped at `threads` per block and maps its marked
    nests; returns the mapping's description. Raises Declined (the kernel is
    then in an unspecified state: run it on a clone)."""
    # (canonicalize folds the affine.apply of shifted / strided windows into the accesses)
    PassManager.parse("func.func(convert-linalg-to-affine-loops,canonicalize)",
                      kernel.context).run(kernel)
    entry = kernel.regions[0].blocks[0]
    if not any(o.operation.name == "affine.for" for o in entry.operations):
        raise Declined("no loop nest")
    try:
        poly_schedule.schedule_function(kernel, tile_sizes=[],
                                        target=targets.make("gpu", threads=threads))
    except model.NotRepresentable as e:
        raise Declined(f"not representable: {e}") from None
    except Exception as e:  # noqa: BLE001 - an isl limit: the matcher maps it
        raise Declined(f"isl: {e}") from None
    fors = _loops(kernel, "affine.for")
    info = []
    for f in fors:
        kind = ir.StringAttr(f.attributes[ATTR_GPU]).value if ATTR_GPU in f.attributes else None
        if kind is None and ATTR_PARALLEL in f.attributes:
            kind = "parallel"
        info.append(None if kind is None else (kind, _extent(f) if kind == "threads" else None))
    PassManager.parse("func.func(lower-affine)", kernel.context).run(kernel)
    sfors = _loops(kernel, "scf.for")
    if len(sfors) != len(fors):
        raise Declined("lower-affine changed the loop structure")
    marks = {lp: k for lp, k in zip(sfors, info) if k is not None}
    tops = [o.operation for o in entry.operations if o.operation.name == "scf.for"]
    if not tops:
        raise Declined("no loop nest")
    done = []
    for top in tops:
        if top not in marks:
            raise Declined("a nest without a parallel loop (no blocks/threads/parallel marks)")
        if marks[top][0] == "parallel":
            done.append(_map_parallel_loop(top, threads))
        else:
            done.append(_map_nest(top, marks))
    text = "; ".join(done)
    kernel.attributes[ATTR_MAPPING] = ir.StringAttr.get(text)
    sched = ir.StringAttr(kernel.attributes[poly_schedule.ATTR_SCHEDULE]).value
    kernel.attributes[poly_schedule.ATTR_SCHEDULE] = ir.StringAttr.get(
        f"{sched} | gpu mapping: {text}")
    return text
