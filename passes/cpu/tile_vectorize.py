"""msmlir-cpu-tile-vectorize: tiling + vectorization of linalg ops on tensors.

Rewrites, before bufferization, every linalg.generic and linalg.fill on static
tensors (elementwise ops, broadcasts, transposes, reductions along any dims)
into loops over vector-sized tiles and vector ops, with the upstream
transform dialect (this module only chooses the tile sizes per op and writes
the transform script):

* parallel ops: tiled to vector-sized pieces along the innermost loop dim
  (elementwise ops with identity maps are flattened first; a transposed
  operand tiles both dims of the transpose together; sizes without a good
  divisor use masked vectors), then vectorized;
* reductions along the innermost dim: rows tiled by 1, the row tiled with
  `tile_reduction_using_for` (partial sums that live in registers, up to
  REDUCTION_ACCUMULATORS independent vectors of them for long rows, so the
  adds or max of a row are not one latency-bound chain; the other
  reduction dims are loops around it, tiled by 1: a
  bias gradient summing [N, C, H, W] over N, H, W keeps W partial sums
  across N and H), then vectorized; a small reduction (at most
  REDUCTION_VECTOR_MAX elements per row, the row at most two vectors) is one
  vector op;
* reductions elsewhere (column sums, Dense bias gradients): loops in the
  op's dim order so memory streams in order, COLUMN_SUM_ROWS rows per step
  folded into a vector of the accumulator row (L1-resident); with threads,
  the columns split between tasks (masked vectors when the split is off
  vector boundaries);
* short reduced rows (17-31 f32 elements, a 28-wide LeNet image row): the
  partial sums in one masked 32-lane vector;
* ops of at most WHOLE_VECTOR_MAX elements: one vector op, no tiling.

Why: convert-linalg-to-loops gives scalar loops (math.exp becomes one libm
call per element, reductions a serial chain); explicit vectors give 16-lane
code with partial sums in registers.

Runs after msmlir-cpu-pack-matmul, msmlir-cpu-generalize and msmlir-fuse-rows
(ops inside the row loops of fused clusters are always vectorized). Each op's
transform runs in its own `transform.sequence failures(suppress)`: if the
vectorizer rejects an op, that op keeps the plain path (convert-linalg-to-
loops). If the script fails definitely, the function is restored and a remark
at the function says it keeps the plain path; a strategy that cannot be
planned for an op gives a remark at the op. Ops on dynamic shapes,
convolutions and pooling windows keep the plain path (the pooling windows
that msmlir-cpu-vectorize-windows did not take), as do top-level ops
with fewer than `min-work` iterations (their scalar loops compile to much
less code, LLVM's loop vectorizer still sees them, and they run in
microseconds either way).

Ops with i1 (bool) operands or results (compares, masks, selects, the relu
mask of a train step's epilogue) are vectorized too: i1 vectors are masks in
registers; in memory booleans are bytes (msmlir-cpu-unroll-transfers runs
msmlir-widen-bool-memrefs after bufferization, before the transfers are
lowered). The vector length follows the other operands (16 lanes next to f32
data), or bytes (32 lanes) for ops on booleans only.

With `threads` > 1 the outermost parallel loop of big ops is an `scf.forall`
(lowered after bufferization by msmlir-cpu-lower-vectors to scf.parallel and
run as OpenMP regions): from PARALLEL_MIN_WORK iterations, or
PARALLEL_MIN_WORK_REDUCTION for reductions (common/linalg.py: measured
break-evens).
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..common.linalg import (PARALLEL_MIN_WORK, PARALLEL_MIN_WORK_REDUCTION, LoopInfo, elem_bits,
                             funcs, in_block, is_structured, loop_info, numel, static_tensor, walk_ops)
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import register_pass
from .tiling import CODEGEN_OPTIONS, divisor_le, lanes, vector_tile

TAG = "msmlir.cg"

# Ops whose whole iteration space is at most this many elements are
# vectorized as one vector op (no tiling).
WHOLE_VECTOR_MAX = 512

# Reductions along the innermost dim with other reduction dims: those are
# tiled by 1 (outermost first) until the vectorized tile has at most this
# many elements (a vector.multi_reduction is unrolled into scalar code).
REDUCTION_VECTOR_MAX = 256

# Rows of a column sum (reduction over a leading dim) added per step: one
# accumulator vector load/store per this many input vectors.
COLUMN_SUM_ROWS = 8


def _masked_length(n: int, n_lanes: int) -> int:
    """The partial-sum vector of a whole short row of n elements (n_lanes <
    n < 2*n_lanes, e.g. a LeNet bias gradient's 28-wide image rows): one
    masked vector of 2*n_lanes, or 0 (keep vector<n>). Measured on B6's conv1
    bias gradient (relu select + sum over N, H, W): vector<28xf32>, lowered
    to 16 + 8 + 4 lane pieces, 140-150 us; masked vector<32xf32> 125 us.
    (Rows of 9-15 and the elementwise epilogues measured no gain.)"""
    if not n_lanes < n < 2 * n_lanes:
        return 0
    return 2 * n_lanes


def _identity_elementwise(op: ir.Operation, li: LoopInfo) -> bool:
    return (all(it == "parallel" for it in li.iterators)
            and all(m.is_permutation and m == ir.AffineMap.get_identity(li.rank)
                    for m in li.maps))


def _body_has_math(op: ir.Operation) -> bool:
    if not op.regions or not op.regions[0].blocks:
        return False
    return any(o.operation.name.startswith("math.") for o in op.regions[0].blocks[0].operations)


# Long rows reduce into this many independent partial-sum vectors (a wider
# partial vector, one register each after lowering): one chain of dependent
# adds (or max) per row is latency-bound, ~4 cycles a vector.
REDUCTION_ACCUMULATORS = 4


def _accumulators(r: int, v: int) -> int:
    """The partial-sum length for a row of r elements reduced in vectors of v:
    v times REDUCTION_ACCUMULATORS (or fewer, a power of two) when the row
    holds at least two of those, else v."""
    if v <= 0:
        return v
    k = REDUCTION_ACCUMULATORS
    while k > 1 and (r % (v * k) or r < 2 * v * k):
        k //= 2
    return v * k


def generic_script(s: Script, root: str, tag: int, op: ir.Operation, li: LoopInfo,
                   threads: int) -> bool:
    """Tile + vectorize one linalg op (generic or fill). False: no strategy."""
    rank = li.rank
    if rank == 0:
        return False
    h = s.match_attr(root, TAG, tag)
    n_lanes = lanes(li.min_bits)
    its = li.iterators
    ranges = list(li.ranges)
    work = 1
    for r in ranges:
        work *= r
    par_ok = threads > 1 and work >= (PARALLEL_MIN_WORK_REDUCTION if "reduction" in its
                                      else PARALLEL_MIN_WORK)
    if work <= WHOLE_VECTOR_MAX and (rank == 1 or (rank <= 3 and not _body_has_math(op))):
        # (n-D vectors of math ops do not lower to LLVM, so those stay 1-D)
        s.vectorize(h)
        return True

    def outer_parallel(target: str, sizes: list[int]) -> str:
        """First tiling: the outermost parallel loop with size > 1 becomes
        an scf.forall when worth it; returns the tiled op."""
        if par_ok:
            for d, sz in enumerate(sizes):
                if sz and its[d] == "parallel" and ranges[d] // sz >= threads:
                    fa_sizes = [0] * rank
                    chunk = -(-(ranges[d] // sz) // threads) * sz
                    if ranges[d] % chunk:
                        break
                    fa_sizes[d] = chunk
                    t, _ = s.tile_forall(target, fa_sizes)
                    t, _ = s.tile(t, sizes)  # then the same tiling inside each task
                    return t
        if any(sizes):
            t, _ = s.tile(target, sizes)
            return t
        return target

    if all(it == "parallel" for it in its):
        if rank > 1 and op.name == "linalg.generic" and _identity_elementwise(op, li):
            f = s.fresh("fl")
            s.emit(f"{f} = transform.structured.flatten_elementwise {h} : ({ANY}) -> {ANY}")
            h, ranges, rank = f, [work], 1
            its = ["parallel"]
        # transposed input: tile the two dims of the transpose together
        tdim = None
        for m in li.maps[:li.n_inputs] if rank == li.rank else []:
            if len(m.results) and isinstance(m.results[-1], ir.AffineDimExpr):
                p = m.results[-1].position
                if p != rank - 1 and ranges[p] > 1:
                    tdim = p
                    break
        v = vector_tile(ranges[-1], li.min_bits)
        peel = v == 0
        if peel:
            v = n_lanes
        sizes = [1] * (rank - 1) + [v]
        if tdim is not None:
            sizes[tdim] = divisor_le(ranges[tdim], 8)
            if not peel:
                sizes[-1] = divisor_le(ranges[-1], 8)
        t = outer_parallel(h, sizes)
        if peel:
            # no good divisor: the last tile is partial (dynamic shape), so use
            # masked vectorization with a fixed vector size
            s.emit(f"transform.structured.vectorize {t} vector_sizes {sizes} : {ANY}")
        else:
            s.vectorize(t)
        return True

    last = rank - 1
    if its[last] == "reduction":
        # rows: parallel dims tiled by 1
        psizes = [1 if it == "parallel" else 0 for it in its]
        t = outer_parallel(h, psizes)
        r = ranges[last]
        # The other reduction dims (e.g. N, H of a bias gradient summing
        # [N, C, H, W] over N, H, W) are tiled by 1 too, outermost first,
        # until the tile left for the vector is at most REDUCTION_VECTOR_MAX
        # elements: vectorizing a whole [N, 1, H, W] tile gives one
        # vector.multi_reduction of N*H*W elements, which the vector lowering
        # fully unrolls (megabytes of IR, minutes of LLVM codegen).
        osizes = [0] * rank
        vol = r
        for d in range(last):
            if its[d] == "reduction":
                vol *= ranges[d]
        for d in range(last):
            if vol <= REDUCTION_VECTOR_MAX:
                break
            if its[d] == "reduction" and ranges[d] > 1:
                osizes[d] = 1
                vol //= ranges[d]
        if r <= 2 * n_lanes and not any(osizes):
            s.vectorize(t)  # the whole tile is one small vector
            return True
        # A short row under other reduction loops (a bias gradient's [H, W]
        # images, W = 28) gets a vector of r partial sums too, kept across
        # those loops: vectorized as is, each row would be one
        # vector.multi_reduction into the scalar accumulator, which lowers to
        # a serial chain of r dependent adds (latency-bound, ~4x slower).
        v = r if r <= 2 * n_lanes else vector_tile(r, li.min_bits)
        v = _accumulators(r, v)
        if v == 0:
            if any(osizes):
                t, _ = s.tile(t, osizes)
            if r > 4096:
                return True  # rows tiled, reduction left scalar
            s.vectorize(t)
            return True
        # (the other reduction dims are tiled by 1 inside the partial-sum loop)
        rsizes = [0 if it == "parallel" else 1 for it in its]
        rsizes[last] = v
        fill, part, comb, _ = s.tile_reduction(t, rsizes)
        s.vectorize(fill)
        p2 = _masked_length(r, n_lanes) if v == r else 0
        if p2:
            vs = [1] * rank
            vs[last] = p2
            s.emit(f"transform.structured.vectorize {part} vector_sizes {vs} : {ANY}")
        else:
            s.vectorize(part)
        s.vectorize(comb)
        return True

    # innermost dim parallel, reductions elsewhere (e.g. column sums, the bias
    # gradient of a Dense layer): loops in the op's dim order, so memory is
    # read in order (rows outer, vectors along the row inner), the innermost
    # reduction dim tiled by COLUMN_SUM_ROWS rows per step (one accumulator
    # load/store per that many rows; the accumulator row stays in L1). Vector
    # columns outer with the reduction inside kept the accumulator in a
    # register but touched a new page every step: ~4x slower.
    v = vector_tile(ranges[last], li.min_bits)
    masked = v == 0
    if masked:
        v = n_lanes
    red = [d for d in range(rank) if its[d] == "reduction"]
    rows = divisor_le(ranges[red[-1]], COLUMN_SUM_ROWS)
    sizes = [1] * rank
    sizes[red[-1]] = rows
    sizes[last] = v
    t = h
    if par_ok and ranges[last] >= threads * v:
        # threads split the columns (dims kept in order inside each task);
        # a split that does not fall on vector boundaries gives tasks of
        # dynamic width, so the vectors are masked
        fa = [0] * rank
        fa[last] = -(-ranges[last] // (v * threads)) * v
        masked = masked or ranges[last] % fa[last] != 0
        t, _ = s.tile_forall(h, fa)
    t2, _ = s.tile(t, sizes)
    if masked:
        vs = [1] * rank
        vs[red[-1]] = rows
        vs[last] = v
        s.emit(f"transform.structured.vectorize {t2} vector_sizes {vs} : {ANY}")
    else:
        s.vectorize(t2)
    return True


def fill_script(s: Script, root: str, tag: int, op: ir.Operation, threads: int) -> bool:
    rt = static_tensor(op.results[0].type) if op.results else None
    if rt is None or rt.rank == 0:
        return False
    bits = elem_bits(rt.element_type)
    if bits is None or (bits < 8 and bits != 1):
        return False
    bits = max(bits, 8)  # i1: stored as bytes
    shape = list(rt.shape)
    v = vector_tile(shape[-1], bits) or divisor_le(shape[-1], lanes(bits))
    h = s.match_attr(root, TAG, tag)
    t, _ = s.tile(h, [1] * (len(shape) - 1) + [v])
    s.vectorize(t)
    return True


_CLEANUP = ["vector.lower_masked_transfers",  # vector.mask {transfer} -> masked transfer
            "vector.transfer_permutation_patterns", "vector.cast_away_vector_leading_one_dim",
            "canonicalization", "tensor.fold_tensor_subset_ops_into_vector_transfers"]


def _plan(s: Script, tag: int, op: ir.Operation, build) -> bool:
    """Adds one op's suppressed sequence to `s`; False (and nothing added)
    when the op has no strategy."""
    mark = len(s.lines)
    seq = s.begin_suppressed("%root")
    try:
        ok = build(s, seq, tag)
    except Exception as e:  # noqa: BLE001 - a planning bug must not break compilation: plain path
        emit_remark(op.location, "msmlir-cpu-tile-vectorize: planning failed, this op keeps the "
                                 f"plain path: {type(e).__name__}: {e}")
        ok = False
    if not ok:
        del s.lines[mark:]
        return False
    s.end_sequence()
    return True


def tile_vectorize_func(func: ir.Operation, threads: int, min_work: int) -> ir.Operation:
    """Tiles and vectorizes the linalg ops of `func`; returns the function (a
    restored copy if the interpreter failed)."""
    entry = func.regions[0].blocks[0]
    ops = walk_ops(func, [], is_structured)
    s = Script()
    n = 0
    for op in ops:
        if numel(op) < min_work and in_block(op, entry):
            continue
        if op.name == "linalg.fill":
            planned = _plan(s, n, op, lambda sc, root, t: fill_script(sc, root, t, op, threads))
        else:
            li = loop_info(op)
            if li is None or op.name != "linalg.generic":
                continue
            planned = _plan(s, n, op, lambda sc, root, t: generic_script(sc, root, t, op, li, threads))
        if planned:
            op.attributes[TAG] = i64(n)
            n += 1
    if n:
        s.patterns("%root", _CLEANUP)
        s.cse("%root")
        func, error = apply_or_restore(func, s.text())
        if error is not None:
            emit_remark(func.location, "msmlir-cpu-tile-vectorize: the transform script failed; "
                                       f"this function keeps the plain path: {error}")
        strip_attrs(func, (TAG,))     # (n == 0: no op was tagged, no walk)
    return func


@register_pass("msmlir-cpu-tile-vectorize",
               "Tile and vectorize linalg.generic/fill ops on tensors for the CPU (elementwise "
               "ops, broadcasts, transposes, reductions); ops without a strategy keep the plain path",
               options=CODEGEN_OPTIONS)
def tile_vectorize(module: ir.Operation, *, threads: int, min_work: int):
    for func in list(funcs(module)):
        if "mskernel.poly" in func.attributes:  # the isl scheduler's (passes/poly/claim.py)
            continue
        try:
            tile_vectorize_func(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # the script is applied atomically, so the function is consistent
            strip_attrs(module, (TAG,))
            emit_remark(func.location, "msmlir-cpu-tile-vectorize: internal error, the function "
                                       f"keeps the plain path: {type(e).__name__}: {e}")
