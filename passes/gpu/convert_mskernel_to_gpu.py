"""convert-mskernel-to-gpu: outlined kernels -> bufferized loop nests mapped to blocks/threads.

The GPU target's kernel stage. Input: the module after
mskernel-outline-kernels and convert-mindir-to-linalg (host functions calling
private kernel functions that carry `mskernel.kind`, linalg on tensors).
Output: the whole module on memrefs (function results become caller-provided
out-parameters, as on the CPU), every kernel's loops mapped to the GPU, and,
with `launch=true`, those loops turned into `gpu.launch` ops by upstream
`convert-parallel-loops-to-gpu` (what gpu-kernel-outlining takes next).

Why this shape: upstream does the heavy lifting (generalization, bufferization,
linalg -> scf.parallel, parallel loops -> gpu.launch); the pass adds only the
mapping decision, expressed as `#gpu.loop_dim_map` attributes on scf.parallel,
so the mapped nest (`launch=false`) is still plain scf that the CPU JIT runs:
the CPU check of every mapping decision (msmlir.gpu.run_mapped_on_cpu).

The mapping, per kernel:
  - named linalg ops generalized; a generic whose reduction iterators come
    before parallel ones is interchanged (transform.structured.interchange) so
    all parallel iterators are outermost; memref.copy becomes linalg.copy;
  - convert-linalg-to-parallel-loops: one scf.parallel per op over its parallel
    dims, its reduction dims as scf.for inside (a reduction to a scalar gets a
    one-iteration scf.parallel around it);
  - a contraction (`tile-matmul`: one scf.for over K >= 8 folding
    add(acc, mul(f(a), g(b))) of two loads into out[idx]: linalg.matmul,
    batch_matmul, the transposed forms, generics with a mul+add body) is
    tiled (plan_matmul): a block per TM x TN output tile (batch dims: a block
    each), a thread per RM x RN register tile (outputs strided by the thread
    counts: coalesced stores, conflict-free shared reads), K stepped by TK
    with the A and B tiles staged through shared memory in two stages (K
    step kt+1 loaded while step kt is computed); an operand whose tile rows
    are contiguous 16-byte chunks in global memory keeps that layout and is
    copied by cp.async (`cp-async`, sm_80+: mma.py's chunk copies), the
    others element by element (coalesced along each buffer's innermost dim;
    a k-fast tile transposed into k rows padded by one column).
    The phases (init the register tile from the output, per K step load /
    compute, store) are sibling thread loops in the block loop, the K steps a
    serial scf.for around the load and compute phases: barrier semantics on
    the CPU as they are; with launch=true one thread loop with gpu.barrier
    after every phase, the register tile (a `local` [T, RM, RN] buffer) a
    private alloca of each thread, which LLVM keeps in registers (the K-step
    loop carries an LLVM no-unroll annotation: fully unrolled at O3, ptxas
    spent up to 249 registers on LeNet's small tiles);
  - a row reduction (one scf.for of >= 32 iterations folding an associative,
    commutative arith op into out[idx], its inputs read contiguously along the
    reduced dim: softmax/layernorm rows, a sum to a scalar) becomes one block
    per output element (`block-reductions`): each of T threads (T = `threads`,
    or less for short rows) folds a strided part of the row, a shared-memory
    tree halves the T partial results (log2 T phases), thread 0 folds the
    result into the output's initial value (with launch=true the tree's
    steps within one warp, s = 16 .. 1, become `gpu.shuffle down` steps of
    warp 0 when the block has >= 32 threads and the type is 32-bit: the same
    combinations in the same order as the shared-memory steps the CPU check
    runs). The phases are sibling thread loops inside the block loop: run
    one after the other they have exactly
    barrier semantics, so the CPU check runs this form as it is; with
    launch=true they are fused into one thread loop with `gpu.barrier`
    between phases and the buffer becomes a workgroup attribution of the
    gpu.launch (upstream convert-parallel-loops-to-gpu accepts one nested
    thread loop per block loop);
  - any other reduction is one thread per output element (each thread owns
    its output and loops over the reduced dims; coalesced across threads when
    the reduced dim is not the innermost one, e.g. column sums, a matmul with
    K < 8 or with tile-matmul=false); the
    innermost reduction loop carries the accumulator in a register (iter_args:
    one load before, one store after) when nothing else in the loop touches
    the output's buffer (neither, like block reductions, in a kernel that
    some call passes the same buffer twice; nor is a matmul tiled there);
  - each other scf.parallel over static bounds is tiled: threads from the
    innermost dim outwards (at most `threads` per block), the tile counts are
    the blocks; thread dims map to thread_x/y/z (innermost -> x, a third
    group of dims linearized into z), tile dims to block_x/y/z likewise (all
    tiles linearized into block_x when y/z would exceed 65535); a partial tile
    is guarded by scf.if;
  - what is left at a kernel's top level that touches memory (a 0-d store, a
    load/compute/store of a scalar) runs as one single-thread launch;
  - memref.get_global is sunk into the loops that use it (so outlining copies
    the constant into the gpu.module instead of passing a host pointer), and
    so is a top-level memref.load (a 0-d tensor's value) when nothing between
    writes its memref.

With launch=true (`fma`, default on) the float add/sub/mul of the device
code get fastmath `contract`, so the NVPTX back end fuses mul+add into
fma.rn (without it: mul.rn + add.rn).

Tensor cores (`tensor-cores`, on; passes/gpu/mma.py): a contraction of
f16/bf16 inputs accumulated in f32 (and of f32 inputs with `tf32=true`) is
tiled per warp for mma.sync instead (nvgpu.ldmatrix + nvgpu.mma.sync with
launch=true; with launch=false the same tiles with the per-lane math the
CPU runs). An f16/bf16 convolution whose GEMM fits becomes im2col + such a
contraction first, accumulated in f32 (passes/gpu/conv.py).

The MMA tiles are double-buffered, k-contiguous operands copied by
cp.async (passes/gpu/mma.py). A contraction operand may be a gather: its
indices pure index arithmetic of the loop ivs and k (a convolution's
implicit GEMM, conv.py); its tile is loaded element by element.

Few long rows are split reductions (plan_split): S blocks per output reduce
balanced chunks into a global partial buffer, a second kernel folds them.

Element-loaded tiles (FMA and MMA) are register-staged in the K loop:
loaded before the compute phase, stored to the other stage after it.

Not yet: conv tiling of f32 / small / dilated convolutions (one thread per
output), split-K for matmuls (a matmul with few output tiles gets small
tiles instead), swizzled shared layouts (a cp.async k-contiguous B tile is
read with 2-way bank conflicts).

`poly-schedule=true`: a kernel that needs none of the strategies above (no
contraction, row or scalar reduction; its buffers not aliased) is mapped from
its isl schedule instead (schedule_mapping.py: mskernel-poly-schedule's
target=gpu tiles and blocks/threads marks); one the schedule declines (not
representable, a serial tile loop between the block and thread loops, views
of one buffer) keeps the matcher. Either way a remark says why the matcher
maps a kernel.

Per-kernel limits: a kernel function carrying `mskernel.gpu_plan = {threads
= N, outputs = R}` (what msmlir.gpu.replan sets after ptxas reported a spill
or a limit) is mapped with at most N threads per block and, for a tiled
contraction, register tiles of at most R outputs per thread. Each kernel's
mapping is described in `mskernel.gpu_mapping` (a contraction's tiles, the
schedule's blocks/threads), which the re-plan remarks quote.

Diagnostics (errors, pass fails): a kernel with dynamic shapes; compute
(linalg ops, parallel loops) outside a kernel function (run mindir-graph-kernel-fusion /
mskernel-outline-kernels first); a top-level value computed in a serial run
and used after it.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, gpu, linalg, memref, scf
from mlir.passmanager import PassManager

from ..common.transform import ANY, Script, apply_script
from ..registry import Option, PassFailure, pipeline_pass_manager, register_pass
from ..common.diagnostics import emit_remark
from . import conv, mma, schedule_mapping
from .loops import (  # noqa: F401 (re-exported: the mapping's limits and helpers)
    MAX_THREADS, MAX_GRID_YZ, MAX_BLOCK_Z, MIN_BLOCKS, WARP, _THREAD_IDS, _PHASES,
    _SHARED, _LOCAL, _NO_BARRIER, _and, _block_grid, _clone, _const, _coords, _groups,
    clone_load,
    _guarded, _index, _new_parallel, _thread_loop, _tile_element, _walk)

KERNEL_ATTR = "mskernel.kind"
PLAN_ATTR = "mskernel.gpu_plan"         # per-kernel limits of a ptxas re-plan
ATTR_MAPPING = schedule_mapping.ATTR_MAPPING
_TAG = "msmlir.gpu_interchange"

# Kernel top-level ops that stay on the host side of the launches.
_HOST_OPS = {"memref.alloc", "memref.dealloc", "memref.get_global", "memref.expand_shape",
             "memref.collapse_shape", "memref.subview", "memref.reinterpret_cast",
             "memref.cast", "memref.dim", "func.return", "memref.extract_strided_metadata",
             "memref.assume_alignment"}
_PURE_DIALECTS = ("arith.", "math.", "index.", "affine.apply", "ub.poison")

_BUFFERIZE = ("eliminate-empty-tensors,"
              "one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map},"
              "canonicalize,"
              "msmlir-distinct-return-buffers,"
              "buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},"
              "buffer-deallocation-pipeline,canonicalize,"
              "msmlir-widen-bool-memrefs")   # i1 memrefs abort the LLVM lowering


class _Error(Exception):
    def __init__(self, loc, msg):
        super().__init__(msg)
        self.loc = loc


def _kernels(module: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func" and KERNEL_ATTR in op.attributes
            and op.regions[0].blocks]




def _check_static(kernel: ir.Operation) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(kernel.attributes["function_type"]).value)
    for t in list(ftype.inputs) + list(ftype.results):
        if isinstance(t, ir.ShapedType) and not ir.ShapedType(t).has_static_shape:
            name = ir.StringAttr(kernel.attributes["sym_name"]).value
            raise _Error(kernel.location, f"convert-mskernel-to-gpu: kernel @{name} has a dynamic "
                         f"shape ({t}); the GPU mapping needs static shapes")


def _interchange(module: ir.Operation, kernels: list[ir.Operation]) -> None:
    """Moves the reduction iterators of every generic innermost."""
    script, n = Script(), 0
    i64 = ir.IntegerType.get_signless(64)
    for k in kernels:
        for op in _walk(k, lambda o: o.name == "linalg.generic"):
            its = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
            par = [i for i, t in enumerate(its) if "parallel" in t]
            perm = par + [i for i, t in enumerate(its) if "parallel" not in t]
            if perm != list(range(len(its))):
                op.attributes[_TAG] = ir.IntegerAttr.get(i64, n)
                h = script.match_attr("%root", _TAG, n)
                script.emit(f"transform.structured.interchange {h} iterator_interchange = {perm}"
                            f" : ({ANY}) -> {ANY}")
                n += 1
    if n:
        apply_script(module, script.text())
        for k in kernels:
            for op in _walk(k, lambda o: _TAG in o.attributes):
                del op.attributes[_TAG]


def _copies_to_linalg(kernel: ir.Operation) -> None:
    for op in _walk(kernel, lambda o: o.name == "memref.copy"):
        with ir.InsertionPoint(op), op.location:
            linalg.copy(op.operands[0], outs=[op.operands[1]])
        op.erase()


def _run(op: ir.Operation, text: str) -> None:
    if text.startswith("builtin.module("):
        pipeline_pass_manager(text, op.context).run(op)     # ours and upstream passes mixed
    else:
        PassManager.parse(text, op.context).run(op)


# --- mapping ------------------------------------------------------------------------

















def plan(ubs: list[int], threads: int) -> tuple[list[int], list[int]]:
    """Thread tile and tile count per dim: threads from the innermost dim
    outwards, at most `threads` in all."""
    n = len(ubs)
    tile, left = [1] * n, threads
    for d in reversed(range(n)):
        if left < 2:
            break
        tile[d] = max(1, min(ubs[d], left))
        left //= tile[d]
    return tile, [-(-u // t) for u, t in zip(ubs, tile)]


def _map_parallel(p: ir.Operation, threads: int) -> None:
    """Replaces scf.parallel `p` (static bounds) by a block loop around a thread loop."""
    pv = p.opview
    lbs = [_const(v) for v in pv.lowerBound]
    ubs = [_const(v) for v in pv.upperBound]
    steps = [_const(v) for v in pv.step]
    if None in lbs + ubs + steps or len(p.results):
        raise _Error(p.location, "convert-mskernel-to-gpu: a parallel loop with dynamic bounds "
                     "or reductions cannot be mapped to the GPU")
    trips = [-(-(u - l) // s) for l, u, s in zip(lbs, ubs, steps)]
    tile, nblocks = plan(trips, threads)
    n = len(trips)
    bdims = [d for d in range(n) if nblocks[d] > 1]
    tdims = [d for d in range(n) if tile[d] > 1]
    bgroups = _groups(bdims, dict(enumerate(nblocks)), MAX_GRID_YZ)
    tgroups = _groups(tdims, dict(enumerate(tile)), MAX_THREADS, MAX_BLOCK_Z)
    body = p.regions[0].blocks[0]
    with ir.InsertionPoint(p), p.location:
        outer, in_outer, bc = _block_grid(bgroups, dict(enumerate(nblocks)))
        with in_outer:
            inner, tivs = _new_parallel([max(1, math.prod(tile[d] for d in g)) for g in tgroups],
                                        _THREAD_IDS[:len(tgroups)])
        iblock = inner.regions[0].blocks[0]
        iterm = iblock.operations[len(iblock.operations) - 1]
        with ir.InsertionPoint(iterm):
            tc = {}
            for g, v in zip(tgroups, tivs):
                tc.update(_coords(v, g, dict(enumerate(tile))))
            idx, conds = [], []
            for d in range(n):
                if d in bc and d in tc:
                    i = arith.AddIOp(arith.MulIOp(bc[d], _index(tile[d])).result, tc[d]).result
                else:
                    i = bc.get(d) or tc.get(d) or _index(0)
                if trips[d] % tile[d]:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, i, _index(trips[d])).result)
                if steps[d] != 1:
                    i = arith.MulIOp(i, _index(steps[d])).result
                if lbs[d] != 0:
                    i = arith.AddIOp(i, _index(lbs[d])).result
                idx.append(i)
            target = iterm
            if conds:
                cond = conds[0]
                for c in conds[1:]:
                    cond = arith.AndIOp(cond, c).result
                guard = scf.IfOp(cond)
                with ir.InsertionPoint(guard.then_block):
                    target = scf.YieldOp([]).operation
    for arg, i in zip(body.arguments, idx):
        arg.replace_all_uses_with(i)
    ops = [o.operation for o in body.operations]
    for o in ops[:-1]:
        o.move_before(target)
    p.erase()


# --- block reductions ------------------------------------------------------------------

_COMBINERS = {"arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
              "arith.minnumf", "arith.addi", "arith.muli", "arith.maxsi", "arith.minsi",
              "arith.maxui", "arith.minui", "arith.andi", "arith.ori", "arith.xori"}
MIN_BLOCK_REDUCTION = 32     # shorter reductions stay one thread per output


def _pow2ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _owner_op(v: ir.Value) -> ir.Operation | None:
    o = v.owner
    return None if isinstance(o, ir.Block) else o.operation


def _k_loop_accumulation(p: ir.Operation, min_k: int, combiners):
    """The shape both reduction matchers start from: p's body is pure ops and
    one scf.for k in [0, K) (no results, K a constant >= min_k) whose body has
    no nested regions and exactly one memref.store of comb(x, acc), where comb
    is a binary op of the loop body named in `combiners` and acc a single-use
    load of the stored element. Returns (p's body ops, the loop, K, k, the
    loop body's ops, the store, comb, acc's operand position, acc's load), or
    None."""
    body = p.regions[0].blocks[0]
    ops = [o.operation for o in body.operations][:-1]
    fors = [o for o in ops if o.name == "scf.for"]
    if len(fors) != 1 or any(o != fors[0] and not _is_pure(o) for o in ops):
        return None
    loop = fors[0]
    lv = loop.opview
    if len(loop.results) or (_const(lv.lowerBound), _const(lv.step)) != (0, 1):
        return None
    K = _const(lv.upperBound)
    if K is None or K < min_k:
        return None
    fbody = loop.regions[0].blocks[0]
    fops = [o.operation for o in fbody.operations][:-1]
    stores = [o for o in fops if o.name == "memref.store"]
    if len(stores) != 1 or any(o.regions for o in fops):
        return None
    store = stores[0]
    mem, idx = store.operands[1], list(store.operands[2:])
    comb = _owner_op(store.operands[0])
    if comb is None or comb.name not in combiners or len(comb.operands) != 2 or comb not in fops:
        return None
    acc_pos = None
    for i, v in enumerate(comb.operands):
        o = _owner_op(v)
        if o is not None and o.name == "memref.load" and o.operands[0] == mem and \
                list(o.operands[1:]) == idx and len(list(v.uses)) == 1:
            acc_pos = i
    if acc_pos is None:
        return None
    return ops, loop, K, fbody.arguments[0], fops, store, comb, acc_pos, _owner_op(comb.operands[acc_pos])


def _match_row_reduction(p: ir.Operation) -> dict | None:
    """The reduction of a row into one output element per parallel iteration:
    p's body is one scf.for k in [0, K) whose body loads acc = out[idx], stores
    comb(e(k), acc) to out[idx] (idx independent of k, comb associative and
    commutative) and reads its other inputs contiguously along k (k only as
    the last index). Returns its parts, or None."""
    found = _k_loop_accumulation(p, MIN_BLOCK_REDUCTION, _COMBINERS)
    if found is None:
        return None
    ops, loop, K, k, fops, store, comb, acc_pos, load = found
    mem, idx = store.operands[1], list(store.operands[2:])
    on_k = {k}
    for o in fops:
        if any(v in on_k for v in o.operands):
            on_k.update(o.results)
    for o in fops:
        if o not in (load, store) and mem in list(o.operands):
            return None                      # the output is read or written elsewhere
        if o.name == "memref.load" and o != load:
            ix = list(o.operands[1:])
            if any(v in on_k for v in ix) and (ix[-1] != k or any(v in on_k for v in ix[:-1])):
                return None                  # not contiguous along k: one thread per output
    if any(v in on_k for v in idx) or any(_owner_op(v) is not None and _owner_op(v) in fops
                                          for v in idx):
        return None
    return {"loop": loop, "k": k, "K": K, "fops": fops, "store": store, "load": load,
            "comb": comb, "acc_pos": acc_pos, "mem": mem, "idx": idx, "pre": ops[:ops.index(loop)]}




def _combine(m: dict, acc: ir.Value, other: ir.Value) -> ir.Value:
    comb = m["comb"].clone()
    comb.operands[m["acc_pos"]] = acc
    comb.operands[1 - m["acc_pos"]] = other
    return comb.results[0]






SPLIT_MIN_PER_THREAD = 4    # a split block's threads fold at least this many elements each
MAX_SPLIT = 1024


def plan_split(outputs: int, K: int, T: int) -> int:
    """How many blocks reduce each output's row (1: one block per output).
    A few long rows would occupy a few SMs only: each row is split into S
    balanced chunks (every thread folding >= SPLIT_MIN_PER_THREAD elements),
    enough for about 2 x MIN_BLOCKS blocks in all."""
    if outputs >= MIN_BLOCKS:
        return 1
    S = min(-(-2 * MIN_BLOCKS // outputs), K // (SPLIT_MIN_PER_THREAD * T), MAX_SPLIT)
    return S if S >= 2 else 1


def _map_row_reduction(p: ir.Operation, m: dict, threads: int) -> bool:
    """One block per output element: the block's T threads reduce the row in
    strided partial sums, then a shared-memory tree (log2 T phases), then
    thread 0 combines the result with the output's initial value. Written as
    sibling thread loops in the block loop (the phases; sequential loops are
    exactly barrier semantics, so the CPU runs this form as is); with
    launch=true they become one thread loop with gpu.barrier between phases
    and the buffer becomes workgroup memory (_fuse_phases).

    Few long rows (plan_split: S > 1) are split reductions instead: S blocks
    per output, block s reducing the balanced chunk [s*K/S, (s+1)*K/S) the
    same way into partial[..., s] (a global buffer), then a second kernel,
    one thread per output, folds the output's initial value and its S
    partial results in order."""
    pv = p.opview
    lbs, ubs, steps = ([_const(v) for v in vs] for vs in (pv.lowerBound, pv.upperBound, pv.step))
    if any(v != 0 for v in lbs) or any(v != 1 for v in steps) or None in ubs:
        return False
    K, trips = m["K"], ubs
    T = min(threads, _pow2ceil(K))
    S = plan_split(math.prod(trips), K, T)
    n = min(T, K)
    nd = len(trips)
    ext = dict(enumerate(trips))
    if S > 1:
        ext[nd] = S                    # the chunk: a block dim of its own, outermost
    bdims = ([nd] if S > 1 else []) + [d for d in range(nd) if trips[d] > 1]
    bgroups = _groups(bdims, ext, MAX_GRID_YZ)
    body = p.regions[0].blocks[0]
    elt = m["store"].operands[0].type
    with ir.InsertionPoint(p), p.location:
        partial = None
        if S > 1:
            partial = memref.AllocOp(ir.MemRefType.get(list(trips) + [S], elt), [], []).result
        outer, in_outer, coords = _block_grid(bgroups, ext)
        outer.attributes[_PHASES] = ir.UnitAttr.get()
        with in_outer:
            pmap = {body.arguments[d]: coords.get(d) or _index(0) for d in range(nd)}
            for o in m["pre"]:
                _clone(o, pmap)
            start, end = _index(0), _index(K)
            if S > 1:
                sc = coords[nd]
                start = arith.DivUIOp(arith.MulIOp(sc, _index(K)).result, _index(S)).result
                end = arith.DivUIOp(arith.MulIOp(arith.AddIOp(sc, _index(1)).result,
                                                 _index(K)).result, _index(S)).result
            shared = memref.AllocOp(ir.MemRefType.get([T], elt), [], [])
            shared.attributes[_SHARED] = ir.UnitAttr.get()
            sh = shared.result
            # phase 1: strided partial results, one per thread
            _, t, at = _thread_loop(T)
            with ir.InsertionPoint(at):
                cond = arith.CmpIOp(arith.CmpIPredicate.ult, t, _index(K)).result if T > K else None
            with ir.InsertionPoint(_guarded(cond, at)):
                expr = [o for o in m["fops"] if o not in (m["load"], m["store"], m["comb"])]
                other = m["comb"].operands[1 - m["acc_pos"]]
                first = t if S == 1 else arith.AddIOp(start, t).result
                mp = dict(pmap)
                mp[m["k"]] = first
                for o in expr:
                    _clone(o, mp)
                part = mp.get(other, other)
                if T < K:
                    loop = scf.ForOp(arith.AddIOp(first, _index(T)).result, end, _index(T),
                                     [part])
                    with ir.InsertionPoint(loop.body):
                        mp = dict(pmap)
                        mp[m["k"]] = loop.induction_variable
                        for o in expr:
                            _clone(o, mp)
                        scf.YieldOp([_combine(m, loop.inner_iter_args[0], mp.get(other, other))])
                    part = loop.results[0]
                memref.StoreOp(part, sh, [t])
            # the tree: phase s folds sh[t + s] into sh[t] for t < s, t + s < n
            s = _pow2ceil(n) // 2
            while s >= 1:
                _, t, at = _thread_loop(T)
                with ir.InsertionPoint(at):
                    ts = arith.AddIOp(t, _index(s)).result
                    cond = arith.CmpIOp(arith.CmpIPredicate.ult, t, _index(s)).result
                    if 2 * s > n:        # the upper half is partly past the n partial results
                        cond = arith.AndIOp(cond, arith.CmpIOp(arith.CmpIPredicate.ult, ts,
                                                               _index(n)).result).result
                with ir.InsertionPoint(_guarded(cond, at)):
                    a = memref.LoadOp(sh, [t]).result
                    b = memref.LoadOp(sh, [ts]).result
                    memref.StoreOp(_combine(m, a, b), sh, [t])
                if s < WARP and T >= WARP and _shuffles(elt):
                    # the last phases, within one warp: shuffles with launch=true
                    ph = at.parent
                    ph.attributes[_WARP_ATTR] = ir.DenseI64ArrayAttr.get([s, n])
                s //= 2
            # thread 0 folds the row's result into the output's initial value
            # (split: stores the chunk's result into its partial slot)
            _, t, at = _thread_loop(T)
            with ir.InsertionPoint(at):
                cond = arith.CmpIOp(arith.CmpIPredicate.eq, t, _index(0)).result
            with ir.InsertionPoint(_guarded(cond, at)):
                if S > 1:
                    r = memref.LoadOp(sh, [_index(0)]).result
                    memref.StoreOp(r, partial, [pmap[body.arguments[d]] for d in range(nd)]
                                   + [coords[nd]])
                else:
                    idx = [pmap.get(v, v) for v in m["idx"]]
                    acc = memref.LoadOp(m["mem"], idx).result
                    r = memref.LoadOp(sh, [_index(0)]).result
                    memref.StoreOp(_combine(m, acc, r), m["mem"], idx)
            memref.DeallocOp(sh)
        if S > 1:
            _fold_partials(p, m, trips, S, partial, threads)
    p.erase()
    return True


def _fold_partials(p: ir.Operation, m: dict, trips: list[int], S: int, partial: ir.Value,
                   threads: int) -> None:
    """The second kernel of a split reduction: per output (one thread each,
    _map_parallel), its initial value folded with partial[..., 0 .. S) in order."""
    body = p.regions[0].blocks[0]
    nd = len(trips)
    c0, c1 = _index(0), _index(1)
    loop = scf.ParallelOp([], [c0] * nd, [_index(u) for u in trips], [c1] * nd, [])
    block = loop.region.blocks.append(*([ir.IndexType.get()] * nd))
    with ir.InsertionPoint(block):
        ivs = list(block.arguments)
        pmap = {body.arguments[d]: ivs[d] for d in range(nd)}
        for o in m["pre"]:
            _clone(o, pmap)
        idx = [pmap.get(v, v) for v in m["idx"]]
        init = memref.LoadOp(m["mem"], idx).result
        f = scf.ForOp(_index(0), _index(S), _index(1), [init])
        with ir.InsertionPoint(f.body):
            v = memref.LoadOp(partial, ivs + [f.induction_variable]).result
            scf.YieldOp([_combine(m, f.inner_iter_args[0], v)])
        memref.StoreOp(f.results[0], m["mem"], idx)
        scf.ReduceOp([], 0)
    _map_parallel(loop.operation, threads)
    with ir.InsertionPoint(p), p.location:
        memref.DeallocOp(partial)


# --- matmul tiling -------------------------------------------------------------------

_MATMUL_COMBINERS = {"arith.addf", "arith.addi"}
_MATMUL_PRODUCTS = {"arith.mulf", "arith.muli"}
MIN_TILED_K = 8              # shorter contractions stay one thread per output


_TILE_LEVELS = [(128, 8), (64, 4), (32, 2), (16, 1)]   # (tile side, outputs per thread)


def plan_matmul(M: int, N: int, K: int, threads: int, batch: int = 1,
                max_outputs: int = 64) -> tuple[int, int, int, int, int]:
    """(TM, TN, RM, RN, TK): a block computes a TM x TN output tile, each of its
    (TM/RM) x (TN/RN) threads an RM x RN register tile (outputs strided by the
    thread counts), K stepped by TK through shared memory. Each side starts at
    the largest tile of _TILE_LEVELS that fits it (16 threads along it; a side
    under 16 gets one thread per element); the larger tile is halved (a level
    down) while the grid has fewer than MIN_BLOCKS blocks, then tiles are
    halved until the block fits the `threads` budget. TK: 8 for 8x8 register
    tiles, else 16 (at most K rounded up to a power of two)."""
    def start(E):
        for lvl, (t, _) in enumerate(_TILE_LEVELS):
            if t <= E:
                return lvl, _TILE_LEVELS[lvl]
        return len(_TILE_LEVELS) - 1, (_pow2ceil(E), 1)
    (lm, (TM, RM)), (ln, (TN, RN)) = start(M), start(N)

    def blocks():
        return -(-M // TM) * -(-N // TN) * batch
    last = len(_TILE_LEVELS) - 1
    while blocks() < MIN_BLOCKS and (lm < last or ln < last):
        if lm < last and (TM >= TN or ln == last):
            lm += 1
            TM, RM = _TILE_LEVELS[lm]
        else:
            ln += 1
            TN, RN = _TILE_LEVELS[ln]
    while (TM // RM) * (TN // RN) > threads:
        if TM // RM >= TN // RN and TM > RM:
            TM //= 2
        elif TN > RN:
            TN //= 2
        else:
            break
    while RM * RN > max_outputs:      # a re-plan after ptxas spilled (msmlir.gpu.replan)
        if RM >= RN:
            RM, TM = RM // 2, TM // 2
        else:
            RN, TN = RN // 2, TN // 2
    TK = min(8 if RM * RN >= 64 else 16, _pow2ceil(K))
    return TM, TN, RM, RN, TK


def _defined_outside(v: ir.Value, op: ir.Operation) -> bool:
    """Whether v is defined outside op (not by an op nor a block argument in it)."""
    o = v.owner
    while o is not None:
        if isinstance(o, ir.Block):
            o = o.owner
        o = o.operation if o is not None else None
        if o == op:
            return False
        o = o.parent if o is not None else None
    return True


def _match_matmul(p: ir.Operation) -> dict | None:
    """A contraction per parallel iteration: p's body is one scf.for k in [0, K)
    (K >= MIN_TILED_K) whose body loads acc = out[idx], stores add(acc, e) with
    e = mul(f(a), g(b)) of exactly two loads a, b that both index with k, the
    other indices being p's ivs or invariants; an iv only `a` uses is the M
    dim (the innermost such), one only `b` uses is N, the others are batch
    dims; idx uses every iv. Returns its parts, or None."""
    ivs = list(p.regions[0].blocks[0].arguments)
    found = _k_loop_accumulation(p, MIN_TILED_K, _MATMUL_COMBINERS)
    if found is None:
        return None
    ops, loop, K, k, fops, store, comb, acc_pos, load = found
    if not all(o.name in ("memref.load", "memref.store") or _is_pure(o) for o in fops):
        return None
    mem, idx = store.operands[1], list(store.operands[2:])
    prod = _owner_op(comb.operands[1 - acc_pos])
    if prod is None or prod.name not in _MATMUL_PRODUCTS or prod not in fops:
        return None
    ins = [o for o in fops if o.name == "memref.load" and o != load]
    if len(ins) != 2 or any(_root(o.operands[0]) == _root(mem) for o in ins):
        return None
    # every other value comes from the loop body, or from outside p
    for o in fops:
        for v in o.operands:
            o2 = _owner_op(v)
            if (o2 is not None and o2 in fops) or v in ivs or v == k:
                continue
            if not _defined_outside(v, p):
                return None
    for v in idx:
        if v == k or (v not in ivs and not _defined_outside(v, p)):
            return None
    if any(iv not in idx for iv in ivs):
        return None
    # an operand's indices are p's ivs, k, invariants, or pure index arithmetic
    # of them in the loop body (affine.apply: a convolution's implicit-GEMM
    # gather, conv.py); `index_ops` are those computations
    index_ops = []
    roots: dict = {}

    def depends(v):
        """The ivs and k that index value v is computed from (None: not index math)."""
        if v in roots:
            return roots[v]
        if v == k or v in ivs:
            return [v]
        o = _owner_op(v)
        if o is None or o not in fops:
            return [] if _defined_outside(v, p) else None
        if not _is_pure(o) or len(o.results) != 1:
            return None
        out = []
        for w in o.operands:
            d = depends(w)
            if d is None:
                return None
            out += [x for x in d if x not in out]
        if o not in index_ops:
            index_ops.append(o)
        roots[v] = out
        return out
    uses, gather = [], []
    for ld in ins:
        ix = list(ld.operands[1:])
        deps = [depends(v) for v in ix]
        if any(d is None for d in deps):
            return None
        direct = sum(1 for v in ix if v == k)
        on_k = sum(1 for d in deps if k in d)
        if on_k == 0 or (direct and on_k != 1):
            return None        # (k indexed directly: the only index that depends on it)
        gather.append(any(_owner_op(v) is not None and _owner_op(v) in fops for v in ix))
        used = []
        for d in deps:
            used += [v for v in d if v in ivs and v not in used]
        uses.append(used)
    if any(o.results[0] in (ins[0].results[0], ins[1].results[0], load.results[0])
           for o in index_ops):
        return None
    only_a = [v for v in uses[0] if v not in uses[1]]
    only_b = [v for v in uses[1] if v not in uses[0]]
    if not only_a or not only_b:
        return None
    m_iv, n_iv = only_a[-1], only_b[-1]
    dims = {"m": ivs.index(m_iv), "n": ivs.index(n_iv)}
    # a tile is loaded k-fast when k is its buffer's innermost index
    kfast = [list(ld.operands[1:])[-1] == k for ld in ins]
    index_ops.sort(key=fops.index)
    return {"loop": loop, "k": k, "K": K, "fops": fops, "store": store, "load": load,
            "comb": comb, "acc_pos": acc_pos, "prod": prod, "mem": mem, "idx": idx,
            "a": ins[0], "b": ins[1], "dims": dims, "kfast": kfast, "index_ops": index_ops,
            "gather": gather}




def _map_matmul(p: ir.Operation, m: dict, threads: int, launch_ops: bool = False,
                cp_async: bool = True, max_outputs: int = 64) -> bool:
    """The tiled contraction: a block per TM x TN output tile (batch dims: a
    block each), a thread per RM x RN register tile, K stepped by TK with the
    A and B tiles staged through shared memory. Phases, as sibling thread
    loops in the block loop (barrier semantics, as block reductions): init
    (the register tile <- the output's initial values), then per K step a
    load phase (each thread copies TK*TM/T elements of A and TK*TN/T of B,
    consecutive threads along the buffers' innermost dims: coalesced) and a
    compute phase (per kk: RM values of A, RN of B from shared memory, RM*RN
    multiply-adds into the register tile), then the store phase. The register
    tile is a `local` buffer [T, RM, RN] here; launch=true makes it a private
    array per thread (mem2reg'd into registers by LLVM)."""
    pv = p.opview
    lbs, ubs, steps = ([_const(v) for v in vs] for vs in (pv.lowerBound, pv.upperBound, pv.step))
    if any(v != 0 for v in lbs) or any(v != 1 for v in steps) or None in ubs:
        return False
    dm, dn = m["dims"]["m"], m["dims"]["n"]
    M, N, K = ubs[dm], ubs[dn], m["K"]
    batch = math.prod(ubs[d] for d in range(len(ubs)) if d not in (dm, dn))
    TM, TN, RM, RN, TK = plan_matmul(M, N, K, threads, batch, max_outputs)
    _note(p, f"matmul tiles {TM}x{TN}, {RM}x{RN} outputs per thread, k step {TK}")
    TY, TX = TM // RM, TN // RN
    T = TX * TY
    nd = len(ubs)
    ext = {d: ubs[d] for d in range(nd)}
    ext[dm], ext[dn] = -(-M // TM), -(-N // TN)
    order = [d for d in range(nd) if d not in (dm, dn) and ubs[d] > 1] + [dm, dn]
    bdims = [d for d in order if ext[d] > 1]
    bgroups = _groups(bdims, ext, MAX_GRID_YZ)
    body = p.regions[0].blocks[0]
    ivs = list(body.arguments)
    elt = m["store"].operands[0].type
    # each operand's shared layout: rows of k ("k_rows": [TK, TS + pad], the m/n
    # dim contiguous) or rows of m/n ([TS, TK + pad], k contiguous); an operand
    # whose shared rows are contiguous 16-byte chunks in global memory too is
    # copied by cp.async (mma._async_ok) in its own layout, pad 16 bytes; the
    # others are loaded element by element into k rows (a k-fast one padded by
    # one column: no bank conflicts on the transposing stores)
    ops_ = []
    for ld, dim, S, kf, gathered in ((m["a"], dm, M, m["kfast"][0], m["gather"][0]),
                                     (m["b"], dn, N, m["kfast"][1], m["gather"][1])):
        TS = TM if dim == dm else TN
        elt_in = ld.results[0].type
        s_fast = list(ld.operands)[-1] == ivs[dim]
        bits = getattr(elt_in, "width", 0)
        ch = mma.CHUNK_BYTES * 8 // bits if bits in (16, 32) and not gathered else 0
        if cp_async and ch and kf and TK % ch == 0 and mma._async_ok(ld, True, K):
            ops_.append((ld, dim, S, TS, kf, "async", False, ch))
        elif cp_async and ch and s_fast and TS % ch == 0 and mma._async_ok(ld, True, S):
            ops_.append((ld, dim, S, TS, kf, "async", True, ch))
        else:
            ops_.append((ld, dim, S, TS, kf, "elements", True, 1 if kf else 0))
    nkt = -(-K // TK)
    with ir.InsertionPoint(p), p.location:
        outer, in_outer, coords = _block_grid(bgroups, ext)
        outer.attributes[_PHASES] = ir.UnitAttr.get()
        with in_outer:
            bc = {d: coords.get(d) or _index(0) for d in range(nd)}
            m0 = arith.MulIOp(bc[dm], _index(TM)).result
            n0 = arith.MulIOp(bc[dn], _index(TN)).result
            bufs = []
            space = ir.Attribute.parse("#gpu.address_space<workgroup>") if launch_ops else None
            for ld, dim, S, TS, kf, how, k_rows, pad in ops_:
                shape = [2, TK, TS + pad] if k_rows else [2, TS, TK + pad]
                b = memref.AllocOp(ir.MemRefType.get(shape, ld.results[0].type,
                                                     memory_space=space), [], [])
                b.attributes[_SHARED] = ir.UnitAttr.get()
                bufs.append(b.result)
            sa, sb = bufs
            acc = memref.AllocOp(ir.MemRefType.get([T, RM, RN], elt), [], [])
            acc.attributes[_LOCAL] = ir.UnitAttr.get()
            acc = acc.result

            def outputs(t):
                """(ri, rj, out index, in-bounds condition) of thread t's tile."""
                tn = arith.RemUIOp(t, _index(TX)).result
                tm = arith.DivUIOp(t, _index(TX)).result
                res = []
                for ri in range(RM):
                    i = arith.AddIOp(m0, arith.AddIOp(tm, _index(ri * TY)).result).result
                    for rj in range(RN):
                        j = arith.AddIOp(n0, arith.AddIOp(tn, _index(rj * TX)).result).result
                        conds = []
                        if M % TM:
                            conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, i, _index(M)).result)
                        if N % TN:
                            conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, j, _index(N)).result)
                        where = {ivs[d]: bc[d] for d in range(nd)}
                        where[ivs[dm]], where[ivs[dn]] = i, j
                        res.append((ri, rj, [where.get(v, v) for v in m["idx"]], _and(conds)))
                return res

            # init: the register tile <- the output's initial values
            _, t, at = _thread_loop(T)
            with ir.InsertionPoint(at):
                for ri, rj, idx, cond in outputs(t):
                    with ir.InsertionPoint(_guarded(cond, at)):
                        v = memref.LoadOp(m["mem"], idx).result
                        memref.StoreOp(v, acc, [t, _index(ri), _index(rj)])

            def element_conds(t, r, TS, kf, s0, k0, S, check_k):
                """(tile k, tile row, global row, global k, in-bounds condition) of
                element r of a thread's share of an element-loaded tile."""
                total = TK * TS
                e, ss, kk, gi, gk = _tile_element(t, r, T, TK, TS, kf, s0, k0)
                conds = []
                if total % T and (r + 1) * T > total:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, e, _index(total)).result)
                if S % TS:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gi, _index(S)).result)
                if check_k:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gk, _index(K)).result)
                return kk, ss, gi, gk, _and(conds)

            def load_phase(k0, stage, check_k, staged=None):
                """The A and B tiles of the K step at k0 -> stage `stage` of the
                shared buffers (check_k: k0 may be past K, the prefetch after
                the last step: nothing, or zero-filled chunks, is loaded there).
                `staged`: a list that receives the element-loaded values' store
                phase (the values kept in registers meanwhile: store_phase)."""
                _, t, at = _thread_loop(T)
                stores = []
                with ir.InsertionPoint(at):
                    for (ld, dim, S, TS, kf, how, k_rows, _), buf in zip(ops_, bufs):
                        s0 = m0 if dim == dm else n0
                        if how == "async":
                            zero = arith.ConstantOp(ld.results[0].type, 0).result \
                                if isinstance(ld.results[0].type, ir.IntegerType) else \
                                arith.ConstantOp(ld.results[0].type, 0.0).result
                            mma._chunk_copies(ld, buf, stage, t, T, TS, TK, S, K, s0, k0,
                                              check_k, {ivs[d]: bc[d] for d in range(nd)},
                                              ivs[dim], m["k"], zero, at, launch_ops, k_rows)
                            continue
                        n = -(-(TK * TS) // T)
                        reg = None
                        if staged is not None:        # this operand's values, per thread
                            with staged_at[0]:
                                reg = memref.AllocOp(ir.MemRefType.get(
                                    [T, n], ld.results[0].type), [], [])
                            reg.attributes[_LOCAL] = ir.UnitAttr.get()
                            reg = reg.result
                            regs.append(reg)
                        for r in range(n):
                            kk, ss, gi, gk, cond = element_conds(t, r, TS, kf, s0, k0, S,
                                                                 check_k)
                            stores.append((reg, buf, r, TS, kf, s0, S))
                            with ir.InsertionPoint(_guarded(cond, at)):
                                where = {ivs[d]: bc[d] for d in range(nd)}
                                where[ivs[dim]] = gi
                                where[m["k"]] = gk
                                v = clone_load(ld, where).results[0]
                                if reg is None:
                                    memref.StoreOp(v, buf, [stage, kk, ss])
                                else:
                                    memref.StoreOp(v, reg, [t, _index(r)])
                    if staged is not None and stores:
                        staged.append((stores, k0, stage, check_k))

            def store_phase(staged):
                """The element-loaded values of a staged load phase, from the
                registers they were loaded into, -> their shared stage (after
                the compute phase: their global latency hidden behind it)."""
                for stores, k0, stage, check_k in staged:
                    _, t, at = _thread_loop(T)
                    with ir.InsertionPoint(at):
                        for reg, buf, r, TS, kf, s0, S in stores:
                            kk, ss, _, _, cond = element_conds(t, r, TS, kf, s0, k0, S,
                                                               check_k)
                            with ir.InsertionPoint(_guarded(cond, at)):
                                v = memref.LoadOp(reg, [t, _index(r)]).result
                                memref.StoreOp(v, buf, [stage, kk, ss])

            def read(buf, k_rows, stage, kk, s):
                return memref.LoadOp(buf, [stage, kk, s] if k_rows else [stage, s, kk]).result

            # two stages: K step kt+1 is loaded (cp.async with launch=true) while
            # step kt is computed from the other stage
            # (element-loaded operands: the next step's values are loaded into
            # registers before the compute phase and stored to shared memory
            # after it, so their latency is hidden behind it)
            load_phase(_index(0), _index(0), K % TK != 0)
            kt_loop = scf.ForOp(_index(0), _index(nkt), _index(1))
            # (kept a loop: fully unrolled by LLVM at O3, ptxas then schedules
            # the small tiles' K steps into up to 255 registers)
            kt_loop.attributes["loop_annotation"] = ir.Attribute.parse(
                "#llvm.loop_annotation<unroll = <disable = true>>")
            staged_at, staged, regs = [ir.InsertionPoint(kt_loop)], [], []
            with ir.InsertionPoint(kt_loop.body):
                kt = kt_loop.induction_variable
                k0 = arith.MulIOp(kt, _index(TK)).result
                nxt = arith.AddIOp(kt, _index(1)).result
                load_phase(arith.MulIOp(nxt, _index(TK)).result,
                           arith.RemUIOp(nxt, _index(2)).result, True, staged)
                # compute phase: RM x RN multiply-adds per kk of this K step
                ph, t, at = _thread_loop(T)
                if staged:      # (the stores after it write the other stage)
                    ph.attributes[_NO_BARRIER] = ir.UnitAttr.get()
                with ir.InsertionPoint(at):
                    stage = arith.RemUIOp(kt, _index(2)).result
                    tn = arith.RemUIOp(t, _index(TX)).result
                    tm = arith.DivUIOp(t, _index(TX)).result
                    ub = _index(TK)
                    if K % TK:
                        ub = arith.MinSIOp(ub, arith.SubIOp(_index(K), k0).result).result
                    kl = scf.ForOp(_index(0), ub, _index(1))
                    with ir.InsertionPoint(kl.body):
                        kk = kl.induction_variable
                        av = [read(sa, ops_[0][6], stage, kk,
                                   arith.AddIOp(tm, _index(r * TY)).result) for r in range(RM)]
                        bv = [read(sb, ops_[1][6], stage, kk,
                                   arith.AddIOp(tn, _index(r * TX)).result) for r in range(RN)]
                        expr = [o for o in m["fops"] if o not in
                                (m["a"], m["b"], m["load"], m["store"], m["comb"])
                                and o not in m["index_ops"]]
                        for ri in range(RM):
                            for rj in range(RN):
                                where = {m["a"].results[0]: av[ri], m["b"].results[0]: bv[rj]}
                                for o in expr:
                                    _clone(o, where)
                                pos = [t, _index(ri), _index(rj)]
                                a = memref.LoadOp(acc, pos).result
                                memref.StoreOp(_combine(m, a, where[m["prod"].results[0]]),
                                               acc, pos)
                        scf.YieldOp([])
                store_phase(staged)
                scf.YieldOp([])
            # store phase: the register tile -> the output
            _, t, at = _thread_loop(T)
            with ir.InsertionPoint(at):
                for ri, rj, idx, cond in outputs(t):
                    with ir.InsertionPoint(_guarded(cond, at)):
                        v = memref.LoadOp(acc, [t, _index(ri), _index(rj)]).result
                        memref.StoreOp(v, m["mem"], idx)
            for buf in [sa, sb, acc] + regs:
                memref.DeallocOp(buf)
    p.erase()
    return True


def _is_thread_loop(op: ir.Operation) -> bool:
    return _is_mapped(op) and "thread_" in str(op.attributes["mapping"])


_WARP_ATTR = "msmlir.gpu_warp"


def _shuffles(t: ir.Type) -> bool:
    """Whether gpu.shuffle (32-bit shfl.sync) carries values of type t."""
    return isinstance(t, (ir.F32Type,)) or (isinstance(t, ir.IntegerType) and
                                            ir.IntegerType(t).width == 32)


def _warp_shuffles(kernel: ir.Operation) -> None:
    """The tree phases of a block reduction within one warp (s = 16 .. 1,
    tagged by _map_row_reduction) -> one phase of warp shuffles: the 32 lanes
    of warp 0 load sh[lane], fold in `gpu.shuffle down` by s (lanes whose
    partner lies past the n partial results keep their value, as the tree's
    guard), lane 0 stores the result to sh[0]. Same values combined in the
    same order as the tree that the CPU check runs, without the shared-memory
    round trips and barriers between the steps."""
    block = kernel.regions[0].blocks[0]
    for outer in [o.operation for o in block.operations]:
        if outer.name != "scf.parallel" or _PHASES not in outer.attributes:
            continue
        tagged = [o.operation for o in outer.regions[0].blocks[0].operations
                  if _WARP_ATTR in o.operation.attributes]
        if not tagged:
            continue
        steps = [list(ir.DenseI64ArrayAttr(o.attributes[_WARP_ATTR])) for o in tagged]
        n = steps[0][1]
        store = _walk(tagged[0], lambda o: o.name == "memref.store")[0]
        comb, sh = _owner_op(store.operands[0]), store.operands[1]
        T = _const(tagged[0].opview.upperBound[0])
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(tagged[0]), tagged[0].location:
            _, t, at = _thread_loop(T)
            with ir.InsertionPoint(at):
                lane = arith.CmpIOp(arith.CmpIPredicate.ult, t, _index(WARP)).result
            y = _guarded(lane, at)
            with ir.InsertionPoint(y):
                v = memref.LoadOp(sh, [t]).result
                width = arith.ConstantOp(i32, WARP).result
                for s, _ in steps:
                    other = gpu.ShuffleOp(v, arith.ConstantOp(i32, s).result, width,
                                          gpu.ShuffleMode.DOWN).results[0]
                    c = comb.clone()
                    c.operands[0], c.operands[1] = v, other
                    if 2 * s > n:
                        ok = arith.CmpIOp(arith.CmpIPredicate.ult,
                                          arith.AddIOp(t, _index(s)).result, _index(n)).result
                        v = arith.SelectOp(ok, c.results[0], v).result
                    else:
                        v = c.results[0]
                first = arith.CmpIOp(arith.CmpIPredicate.eq, t, _index(0)).result
                with ir.InsertionPoint(_guarded(first, y)):
                    memref.StoreOp(v, sh, [_index(0)])
        for o in tagged:
            o.erase()


def _fuse_phases(kernel: ir.Operation) -> None:
    """The phases of each block reduction / tiled matmul -> one thread loop.

    The block loop holds a prologue (coordinates, buffers), then the phases:
    thread loops, and serial scf.for loops (the K steps of a matmul) holding
    thread loops. They move into one thread loop, each phase's body inlined
    where it was, with gpu.barrier after every phase but the last (inside a
    serial loop after its last phase too: the next iteration's first phase
    overwrites what it read). A `local` buffer [T, ...] indexed by the thread
    becomes a private memref.alloca [...] of each thread."""
    block = kernel.regions[0].blocks[0]
    for outer in [o.operation for o in block.operations]:
        if outer.name != "scf.parallel" or _PHASES not in outer.attributes:
            continue
        ops = [o.operation for o in outer.regions[0].blocks[0].operations][:-1]
        # (read before the phases are erased: an erased op's name is garbage)
        local_allocs = [o for o in ops if o.name == "memref.alloc" and _LOCAL in o.attributes]
        phased = [i for i, o in enumerate(ops) if _is_thread_loop(o) or
                  (o.name == "scf.for" and _walk(o, _is_thread_loop))]
        first = _walk(ops[phased[0]], _is_thread_loop)[0]
        T = _const(first.opview.upperBound[0])
        with ir.InsertionPoint(ops[phased[0]]), outer.location:
            fused, (t,) = _new_parallel([T], ["thread_x"])
        fb = fused.regions[0].blocks[0]
        term = fb.operations[len(fb.operations) - 1]
        for o in ops[phased[0]:phased[-1] + 1]:
            o.move_before(term)
        phases = [o for o in _walk(fused, _is_thread_loop) if o != fused]
        for ph in phases:
            pb = ph.regions[0].blocks[0]
            pb.arguments[0].replace_all_uses_with(t)
            for o in [o.operation for o in pb.operations][:-1]:
                o.move_before(ph)
            if _NO_BARRIER not in ph.attributes:
                with ir.InsertionPoint(ph), ph.location:
                    gpu.BarrierOp()
            ph.erase()
        last = fb.operations[len(fb.operations) - 2]
        if last.operation.name == "gpu.barrier":
            last.operation.erase()
        for a in local_allocs:
            t_mem = ir.MemRefType(a.results[0].type)
            with ir.InsertionPoint(fb.operations[0]), a.location:
                priv = memref.AllocaOp(ir.MemRefType.get(t_mem.shape[1:], t_mem.element_type),
                                       [], []).result
            for use in list(a.results[0].uses):
                u = use.owner
                if u.name == "memref.dealloc":
                    u.erase()
                    continue
                with ir.InsertionPoint(u), u.location:
                    if u.name == "memref.load":
                        new = memref.LoadOp(priv, list(u.operands[2:]))
                        u.results[0].replace_all_uses_with(new.result)
                    else:
                        memref.StoreOp(u.operands[0], priv, list(u.operands[3:]))
                u.erase()
            a.erase()
        del outer.attributes[_PHASES]


def _shared_to_workgroup(kernel: ir.Operation) -> None:
    """Shared buffers inside a gpu.launch become its workgroup attributions."""
    space = ir.Attribute.parse("#gpu.address_space<workgroup>")
    for launch in _walk(kernel, lambda o: o.name == "gpu.launch"):
        allocs = _walk(launch, lambda o: o.name == "memref.alloc" and _SHARED in o.attributes)
        if not allocs:
            continue
        entry = launch.regions[0].blocks[0]
        for a in allocs:
            t = ir.MemRefType(a.results[0].type)
            wg = ir.MemRefType.get(t.shape, t.element_type, memory_space=space, loc=a.location)
            arg = entry.add_argument(wg, a.location)
            for use in list(a.results[0].uses):
                if use.owner.name == "memref.dealloc":
                    use.owner.erase()
            a.results[0].replace_all_uses_with(arg)
            a.erase()
        old = launch.attributes["workgroup_attributions"] if "workgroup_attributions" in \
            launch.attributes else None
        count = (ir.IntegerAttr(old).value if old is not None else 0) + len(allocs)
        launch.attributes["workgroup_attributions"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), count)


def _is_mapped(op: ir.Operation) -> bool:
    return op.name == "scf.parallel" and "mapping" in op.attributes


def _is_pure(op: ir.Operation) -> bool:
    return op.name.startswith(_PURE_DIALECTS) and not op.regions


def _serial_runs(block: ir.Block) -> list[list[ir.Operation]]:
    """Maximal runs of top-level ops that touch memory outside a mapped loop."""
    runs, cur, pending = [], [], []
    for o in block.operations:
        o = o.operation
        if _is_mapped(o) or o.name in _HOST_OPS:
            if cur:
                runs.append(cur)
            cur, pending = [], []
        elif _is_pure(o):
            if cur:
                pending.append(o)
        else:
            cur.extend(pending)
            pending = []
            cur.append(o)
    if cur:
        runs.append(cur)
    return runs


def _wrap_serial(run: list[ir.Operation]) -> None:
    """One single-thread launch for a run of top-level compute ops."""
    inside = set(run)
    for o in run:
        for r in o.results:
            for use in r.uses:
                user = use.owner
                while user is not None and user not in inside and user.parent is not None \
                        and user.parent.name != "func.func":
                    user = user.parent
                if user not in inside:
                    raise _Error(o.location, "convert-mskernel-to-gpu: a value computed by serial "
                                 "kernel code is used outside it; cannot map it to the GPU")
    with ir.InsertionPoint(run[0]), run[0].location:
        outer, _ = _new_parallel([1], ["block_x"])
        ob = outer.regions[0].blocks[0]
        with ir.InsertionPoint(ob.operations[len(ob.operations) - 1]):
            inner, _ = _new_parallel([1], ["thread_x"])
    ib = inner.regions[0].blocks[0]
    term = ib.operations[len(ib.operations) - 1]
    for o in run:
        o.move_before(term)


def _top_level(op: ir.Operation, func: ir.Operation) -> ir.Operation:
    while op.parent is not None and op.parent != func:
        op = op.parent
    return op


def _sink_globals(kernel: ir.Operation) -> None:
    block = kernel.regions[0].blocks[0]
    for g in [o.operation for o in block.operations if o.operation.name == "memref.get_global"]:
        clones = {}
        for use in list(g.results[0].uses):
            top = _top_level(use.owner, kernel)
            if top == g:
                continue
            key = id(top)
            if key not in clones:
                first = top.regions[0].blocks[0].operations[0] if top.regions else top
                with ir.InsertionPoint(first):
                    clones[key] = g.clone()
            use.owner.operands[use.operand_number] = clones[key].results[0]
        if not list(g.results[0].uses):
            g.erase()


def _writes(op: ir.Operation, mem: ir.Value) -> bool:
    """Whether op (or an op nested in it) may write `mem` (stores, copies, calls)."""
    return bool(_walk(op, lambda o: (o.name in ("memref.store", "func.call", "linalg.copy",
                                                "memref.copy") or o.name.startswith("linalg."))
                      and mem in list(o.operands)))


def _sink_loads(kernel: ir.Operation) -> None:
    """A top-level memref.load (a 0-d tensor's value, tensor.extract) used in
    mapped loops is re-read at the start of each of them, when nothing between
    writes its memref: the host cannot read device memory."""
    block = kernel.regions[0].blocks[0]
    top = [o.operation for o in block.operations]
    for i, ld in enumerate(top):
        if ld.name != "memref.load":
            continue
        mem = ld.operands[0]
        for use in list(ld.results[0].uses):
            loop = _top_level(use.owner, kernel)
            if not _is_mapped(loop) or loop not in top:
                continue
            j = top.index(loop)
            if j < i or any(_writes(o, mem) for o in top[i + 1:j]):
                continue
            body = loop.regions[0].blocks[0]
            first = body.operations[0]
            clone = None
            for o in body.operations:
                if o.operation.name == "memref.load" and _SUNK in o.attributes and \
                        o.operation.operands[0] == mem and \
                        list(o.operation.operands[1:]) == list(ld.operands[1:]):
                    clone = o.operation
            if clone is None:
                with ir.InsertionPoint(first):
                    clone = ld.clone()
                clone.attributes[_SUNK] = ir.UnitAttr.get()
            use.owner.operands[use.operand_number] = clone.results[0]
        if not list(ld.results[0].uses):
            ld.erase()
    for o in _walk(kernel, lambda o: _SUNK in o.attributes):
        del o.attributes[_SUNK]


_SUNK = "msmlir.gpu_sunk"
_VIEWS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast",
          "memref.reinterpret_cast")


def _root(v: ir.Value) -> ir.Value:
    """The buffer a memref view is a view of."""
    while True:
        o = _owner_op(v)
        if o is None or o.name not in _VIEWS:
            return v
        v = o.operands[0]


def _promote_accumulator(loop: ir.Operation) -> bool:
    """scf.for k { a = load out[idx]; ...; store f(a, ...), out[idx] } with idx
    invariant and out touched by nothing else in the loop (nor through another
    view of its buffer) -> a = load before the loop, carried in iter_args,
    stored once after it: the accumulator stays in a register instead of a
    global-memory round trip per iteration."""
    if len(loop.results):
        return False
    body = loop.regions[0].blocks[0]
    ops = [o.operation for o in body.operations][:-1]
    if any(o.regions for o in ops):
        return False
    stores = [o for o in ops if o.name == "memref.store"]
    if len(stores) != 1:
        return False
    store = stores[0]
    mem, idx = store.operands[1], list(store.operands[2:])
    loads = [o for o in ops if o.name == "memref.load" and o.operands[0] == mem]
    if len(loads) != 1 or list(loads[0].operands[1:]) != idx:
        return False
    load = loads[0]
    if ops.index(load) > ops.index(store):
        return False
    if any(_owner_op(v) is not None and _owner_op(v) in ops for v in idx) or \
            any(v == body.arguments[0] for v in idx):
        return False
    root = _root(mem)
    for o in ops:
        if o in (load, store):
            continue
        for v in o.operands:
            if isinstance(v.type, ir.MemRefType) and (v == mem or _root(v) == root):
                return False
    lv = loop.opview
    with ir.InsertionPoint(loop), loop.location:
        init = memref.LoadOp(mem, idx).result
        new = scf.ForOp(lv.lowerBound, lv.upperBound, lv.step, [init])
    with ir.InsertionPoint(new.body), loop.location:
        term = scf.YieldOp([store.operands[0]])
    body.arguments[0].replace_all_uses_with(new.induction_variable)
    load.results[0].replace_all_uses_with(new.inner_iter_args[0])
    for o in ops:
        if o not in (load, store):
            o.move_before(term.operation)
    with ir.InsertionPoint(loop), loop.location:
        memref.StoreOp(new.results[0], mem, idx)
    load.erase()
    store.erase()
    loop.erase()
    return True


def _check_host(module: ir.Operation) -> None:
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.func" or KERNEL_ATTR in op.attributes:
            continue
        # (host control flow around kernel calls is fine; loops over data are not)
        bad = _walk(op, lambda o: o.name.startswith("linalg.") or o.name == "scf.parallel")
        if bad:
            raise _Error(bad[0].location, f"convert-mskernel-to-gpu: '{bad[0].name}' outside a "
                         "kernel function cannot run on the GPU (run mindir-graph-kernel-fusion "
                         "and mskernel-outline-kernels first)")


_CONTRACTIBLE = ("arith.addf", "arith.subf", "arith.mulf", "arith.negf")


def _contract(kernel: ir.Operation) -> None:
    """fastmath `contract` on the float add/sub/mul of the device code: LLVM
    then fuses a multiply feeding an add into one fma.rn (NVPTX contracts only
    ops that allow it; without the flag it emits mul.rn + add.rn, which ptxas
    may not fuse either). One rounding instead of two: the result differs from
    the CPU's in the last bits, within the GPU suite's tolerance."""
    for launch in _walk(kernel, lambda o: o.name == "gpu.launch"):
        for o in _walk(launch, lambda o: o.name in _CONTRACTIBLE):
            old = str(o.attributes["fastmath"]) if "fastmath" in o.attributes else ""
            flags = {f.strip() for f in old[old.find("<") + 1:old.rfind(">")].split(",")
                     if f.strip() and f.strip() != "none"} if old else set()
            flags.add("contract")
            o.attributes["fastmath"] = ir.Attribute.parse(
                f"#arith.fastmath<{','.join(sorted(flags))}>")


def to_launches(kernel: ir.Operation, contract: bool = True) -> None:
    """Mapped loops -> gpu.launch (upstream convert-parallel-loops-to-gpu), the
    phases of block reductions / tiled matmuls fused with barriers, shared
    buffers -> workgroup memory, float ops marked contractible (FMA)."""
    _warp_shuffles(kernel)
    _fuse_phases(kernel)
    _run(kernel, "func.func(convert-parallel-loops-to-gpu)")
    mma.lower_tagged(kernel)
    _run(kernel, "func.func(canonicalize,cse)")
    _shared_to_workgroup(kernel)
    if contract:
        _contract(kernel)


def _aliased_kernels(module: ir.Operation) -> set[str]:
    """Kernels called somewhere with two arguments on the same buffer."""
    out = set()
    for call in _walk(module, lambda o: o.name == "func.call"):
        roots = [_root(v) for v in call.operands if isinstance(v.type, ir.MemRefType)]
        if any(roots[i] == roots[j] for i in range(len(roots)) for j in range(i + 1, len(roots))):
            out.add(ir.FlatSymbolRefAttr(call.attributes["callee"]).value)
    return out


def _strategy(kernel: ir.Operation, block_reductions: bool, tile_matmul: bool) -> str | None:
    """Which of the matcher's own strategies a bufferized kernel needs (a
    contraction's shared-memory tiles, a row's block reduction), judged on a
    clone's parallel loops; None: only generic loops."""
    clone = kernel.clone(ir.InsertionPoint(kernel))
    try:
        _run(clone, "func.func(convert-linalg-to-parallel-loops,canonicalize,cse)")
        for o in clone.regions[0].blocks[0].operations:
            o = o.operation
            if o.name == "scf.for" and not len(o.results):
                return "a reduction to a scalar (block reduction)"
            if o.name != "scf.parallel":
                continue
            if tile_matmul and _match_matmul(o) is not None:
                return "a contraction (shared-memory / tensor-core tiles)"
            if block_reductions and _match_row_reduction(o) is not None:
                return "a row reduction (block reduction)"
        return None
    finally:
        clone.erase()


def _poly_map(kernel: ir.Operation, threads: int, block_reductions: bool, tile_matmul: bool,
              aliased: bool) -> ir.Operation | None:
    """poly-schedule=true: the kernel mapped from its isl schedule
    (schedule_mapping.py), replacing `kernel`; None (with a remark saying why)
    where the matcher keeps it."""
    name = ir.StringAttr(kernel.attributes["sym_name"]).value
    why = ("called with aliased buffers (the schedule assumes distinct arrays)" if aliased
           else _strategy(kernel, block_reductions, tile_matmul))
    if why is None:
        clone = kernel.clone(ir.InsertionPoint(kernel))
        try:
            text = schedule_mapping.schedule_and_map(clone, threads)
        except (schedule_mapping.Declined, ir.MLIRError) as e:
            clone.erase()
            why = f"the schedule declined: {e}"
        else:
            kernel.erase()
            return clone
    emit_remark(kernel.location, f"convert-mskernel-to-gpu: @{name} is mapped by the matcher, "
                                 f"not the poly schedule: {why}")
    return None


def _note(op: ir.Operation, text: str) -> None:
    """Appends `text` to the mapping description of op's function."""
    while op.name != "func.func":
        op = op.parent
    old = op.attributes[ATTR_MAPPING] if ATTR_MAPPING in op.attributes else None
    op.attributes[ATTR_MAPPING] = ir.StringAttr.get(
        f"{ir.StringAttr(old).value}; {text}" if old is not None else text)


def kernel_plan(kernel: ir.Operation, threads: int) -> tuple[int, int]:
    """(threads per block, register-tile outputs) for `kernel`: the pass's
    `threads` and 64, lowered by a `mskernel.gpu_plan = {threads, outputs}`
    the ptxas re-plan put on it (msmlir.gpu.replan)."""
    if PLAN_ATTR not in kernel.attributes:
        return threads, 64
    d = ir.DictAttr(kernel.attributes[PLAN_ATTR])
    get = lambda k, dflt: ir.IntegerAttr(d[k]).value if k in d else dflt  # noqa: E731
    return max(1, min(threads, get("threads", threads))), max(1, get("outputs", 64))


def map_kernel(kernel: ir.Operation, threads: int, block_reductions: bool = True,
               promote: bool = True, tile_matmul: bool = True, tensor_cores: bool = False,
               tf32: bool = False, mma_ops: bool = False, cp_async: bool = True,
               scheduled: bool = False, max_outputs: int = 64) -> None:
    """Maps the top-level scf.parallel loops of a bufferized kernel (and its
    serial leftovers) to blocks and threads; contractions that fit tensor
    cores (passes/gpu/mma.py) get MMA tiles (mma_ops: as nvgpu ops, else the
    form the CPU runs). `scheduled`: the loops are mapped already (from the
    poly schedule); only the leftovers."""
    block = kernel.regions[0].blocks[0]
    for o in [o.operation for o in block.operations] if not scheduled else []:
        if o.name == "scf.for" and not len(o.results):
            # a reduction to a scalar: a one-iteration parallel loop around it, so
            # that it is mapped (a block reduction when long enough) like the rest
            with ir.InsertionPoint(o), o.location:
                wrap, _ = _new_parallel([1], ["block_x"])
            del wrap.attributes["mapping"]
            wb = wrap.regions[0].blocks[0]
            o.move_before(wb.operations[len(wb.operations) - 1])
    for o in [o.operation for o in block.operations] if not scheduled else []:
        if o.name == "scf.parallel" and not _is_mapped(o):
            mm = _match_matmul(o) if tile_matmul else None
            kind = mma.mma_kind(mm, tf32) if mm is not None and tensor_cores else None
            if kind is not None and mma.map_matmul_mma(o, mm, kind, threads, mma_ops):
                continue
            if mm is not None and _map_matmul(o, mm, threads, mma_ops, cp_async, max_outputs):
                continue
            m = _match_row_reduction(o) if block_reductions else None
            if m is None or not _map_row_reduction(o, m, threads):
                _map_parallel(o, threads)
    _sink_loads(kernel)
    for run in _serial_runs(block):
        _wrap_serial(run)
    if promote:
        for loop in reversed(_walk(kernel, lambda o: o.name == "scf.for")):   # innermost first
            _promote_accumulator(loop)
    _sink_globals(kernel)


@register_pass("convert-mskernel-to-gpu",
               "Bufferize the module; map each kernel's parallel loops to GPU blocks/threads "
               "(scf.parallel mapping attributes), then gpu.launch",
               options={"threads": Option(int, 256, "threads per block the mapping uses "
                                                     "(at most 1024)"),
                        "block-reductions": Option(bool, True, "rows reduced by a block each "
                                                   "(shared-memory tree; false: one thread per "
                                                   "output)"),
                        "tile-matmul": Option(bool, True, "contractions (mul+add over K) tiled "
                                              "through shared memory with register tiles "
                                              "(false: one thread per output)"),
                        "tensor-cores": Option(bool, True, "f16/bf16 contractions (f32 "
                                               "accumulation) tiled for mma.sync (sm_80+)"),
                        "tf32": Option(bool, False, "f32 contractions on the tensor cores too, "
                                       "inputs rounded to TF32 (off by default, as MindSpore's "
                                       "matmul_allow_tf32)"),
                        "fma": Option(bool, True, "float mul/add of device code marked fastmath "
                                      "contract (fused into fma by the back end)"),
                        "cp-async": Option(bool, True, "FMA matmul tiles copied to shared memory "
                                           "by cp.async where contiguous (sm_80+; false: "
                                           "element loads)"),
                        "poly-schedule": Option(bool, False, "map generic kernels from their "
                                                "isl schedule (mskernel-poly-schedule, target "
                                                "gpu: blocks/threads marks, tiles from the GPU "
                                                "model); the matcher keeps the others, with a "
                                                "remark"),
                        "launch": Option(bool, True, "convert the mapped loops to gpu.launch "
                                                     "(false: stop at the mapped scf.parallel "
                                                     "nest, which the CPU can run)")})
def convert_mskernel_to_gpu(module: ir.Operation, *, threads: int, block_reductions: bool,
                            tile_matmul: bool, tensor_cores: bool, tf32: bool, fma: bool,
                            cp_async: bool, poly_schedule: bool, launch: bool):
    try:
        if not 1 <= threads <= MAX_THREADS:
            raise _Error(module.location, f"convert-mskernel-to-gpu: threads={threads} is not in "
                         f"1..{MAX_THREADS}")
        kernels = _kernels(module)
        for k in kernels:
            _check_static(k)
        if tensor_cores and tile_matmul:
            try:
                conv.to_tensor_core_gemms(module, kernels, threads)
            except ValueError as e:     # the transform interpreter's diagnostics
                raise _Error(module.location, "convert-mskernel-to-gpu: the im2col rewrite "
                             f"of a convolution failed: {e}") from None
        _run(module, "builtin.module(linalg-generalize-named-ops)")
        _interchange(module, kernels)
        _run(module, f"builtin.module({_BUFFERIZE})")
        _check_host(module)
        kernels = _kernels(module)
        aliased = _aliased_kernels(module)
        for k in kernels:
            _copies_to_linalg(k)
            safe = ir.StringAttr(k.attributes["sym_name"]).value not in aliased
            kt, outputs = kernel_plan(k, threads)
            mapped = (_poly_map(k, kt, block_reductions and safe, tile_matmul and safe,
                                not safe) if poly_schedule else None)
            if mapped is None:
                _run(k, "func.func(convert-linalg-to-parallel-loops,canonicalize,cse)")
            else:
                k = mapped
            map_kernel(k, kt, block_reductions and safe, promote=safe,
                       tile_matmul=tile_matmul and safe, tensor_cores=tensor_cores, tf32=tf32,
                       mma_ops=launch, cp_async=cp_async, scheduled=mapped is not None,
                       max_outputs=outputs)
            _run(k, "func.func(cse)")      # (canonicalize would merge the block/thread loops)
            if launch:
                to_launches(k, contract=fma)
    except _Error as e:
        e.loc.emit_error(str(e))
        raise PassFailure() from None
    except ir.MLIRError as e:
        module.location.emit_error(f"convert-mskernel-to-gpu: {e}")
        raise PassFailure() from None
