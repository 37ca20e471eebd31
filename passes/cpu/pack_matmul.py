"""msmlir-cpu-pack-matmul: big f32 matmuls -> packed, register-tiled micro-kernels.

Rewrites, on tensors before bufferization, each f32 matmul
(`linalg.matmul` or an equivalent `linalg.generic`, either operand
transposed) of at least MATMUL_MIN_WORK multiply-adds into the packed layout
of BLIS-style kernels, with the upstream transform dialect:
`structured.pack [MR,NR,0]`, the B panel made contiguous along k with
`pack_transpose`, tiled [tm,tn,tk] (cache blocks) then [1,1,kt] (the
micro-kernel: one `vector.contract` MR x NR += (kt x MR)^T (kt x NR) whose
accumulators stay in registers), and the pack/unpack copies lowered to
vectorized transposes. Sizes that do not divide are padded by the pack
(zeros), so any static shape takes this path.

Why: a plain matmul loop nest streams B from memory once per row of A; the
packed panels are read contiguously from cache and the register tile does
MR*NR FMAs per loaded vector pair, which is what makes the matmul run near
peak.

Each matmul's recipe is applied on its own and all or nothing: a half-applied
recipe would leave linalg.pack ops, which neither bufferize nor lower to
loops. If the interpreter fails, the function is restored, that matmul is
left as it was (it takes the generic tile+vectorize path) and a remark at the
matmul says so. With `threads` > 1 the outer loop of matmuls of at least
PARALLEL_MIN_FLOPS is an `scf.forall` (tasks on the MLIR async runtime): one
task per cache block of rows when there are enough of them, else the column
panels (or rows) cut into `threads` pieces, so mid-size matmuls (M=128 of a
training batch) are split too. A narrow C (n <= NR/2, e.g. N=10 logits) is
packed in half-width panels.
"""
from __future__ import annotations

import os as _os

from mlir import ir

from ..common.diagnostics import emit_remark
from ..common.linalg import MatmulInfo, funcs, is_structured, matmul_info, walk_ops
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass
from .tiling import divisor_le, host_has_avx512

TAG = "msmlir.cg"
SKIP_TAG = "msmlir.cg_no_pack"

# Matmuls smaller than this (m*n*k) take the generic path.
MATMUL_MIN_WORK = 32 * 32 * 32

# With threads, matmuls of at least this many flops (2*m*n*k) are split into
# tasks. A parallel region costs ~30-70 us on the async runtime (waking an idle
# worker and then the waiting caller), so only matmuls of a few hundred us are
# worth it; the packing copies stay serial (their own regions cost more than
# they save).
PARALLEL_MIN_FLOPS = 1 << 24

# With threads, also split the packing/unpacking copies into tasks (each
# parallel region costs JIT time: the async runtime lowering makes coroutines).
PARALLEL_PACKING = _os.environ.get("MSMLIR_PARALLEL_PACKING", "0") == "1"


# Micro-kernel: MR rows x NR columns of C kept in vector registers.
# AVX2 (16 ymm): 4 x 16 = 8 accumulators. AVX-512 (32 zmm): 8 x 32 = 16.
def kernel_shape() -> tuple[int, int, int, int, int]:
    """(MR, NR, tm, tn, tk): register tile and cache blocks (in packs, packs, k).
    MSMLIR_MM_KERNEL=MR,NR,tm,tn,tk overrides the choice for the host."""
    env = _os.environ.get("MSMLIR_MM_KERNEL")
    if env:
        return tuple(int(x) for x in env.split(","))
    if host_has_avx512():
        return (8, 32, 16, 16, 256)
    return (4, 16, 16, 8, 256)


def _task_split(mo: int, no: int, tm: int, tn: int, threads: int) -> tuple[int, int] | None:
    """(dim, chunk): the outer loop of the packed matmul split into tasks of
    `chunk` packs along dim 0 (row panels) or 1 (column panels); None if
    neither dim splits into `threads` even tasks. Whole cache blocks of rows
    when there are at least `threads` of them (as many tasks as blocks: they
    balance), else the columns in `threads` pieces (each task reads its own
    part of the B panels; A is small then), else the rows in pieces."""
    if mo // tm >= threads:
        return 0, tm
    if no >= threads and no % threads == 0:
        return 1, no // threads
    if mo >= threads and mo % threads == 0:
        return 0, mo // threads
    return None


def _k_tile(k: int) -> int:
    for c in (4, 8, 2, 6, 3, 5, 7):
        if k % c == 0:
            return c
    return 1


def matmul_script(s: Script, root: str, tag: int, mi: MatmulInfo, threads: int) -> None:
    MR, NR, TM, TN, TK = kernel_shape()
    if mi.n <= NR // 2 and not _os.environ.get("MSMLIR_MM_KERNEL"):
        NR //= 2  # a narrow C (e.g. N=10 logits) is padded to half a panel, not a whole one
    mo, no = -(-mi.m // MR), -(-mi.n // NR)
    tm, tn, tk = divisor_le(mo, TM), divisor_le(no, TN), divisor_le(mi.k, TK)
    kt = _k_tile(tk)
    gen = '!transform.op<"linalg.generic">'
    pack_t = '!transform.op<"linalg.pack">'
    unpack_t = '!transform.op<"linalg.unpack">'
    mm = s.match_attr(root, TAG, tag)
    p = s.fresh("p")
    s.emit(f"{p} = transform.structured.pack {mm} packed_sizes = [{MR}, {NR}, 0] : ({ANY}) -> ({gen})")
    for operand, transpose in ((1, not mi.b_nk), (0, mi.a_km)):
        if transpose:  # make the packed panel contiguous along k: [No|Mo, K, t]
            pk, np_, un = s.fresh("pk"), s.fresh("p"), s.fresh("u")
            s.emit(f"{pk} = transform.get_producer_of_operand {p}[{operand}] : ({gen}) -> ({pack_t})")
            s.emit(f"{np_}, {s.fresh('pk')}, {un} = transform.structured.pack_transpose {pk} "
                   f"with_compute_op({p}) outer_perm = [1, 0] : ({pack_t}, {gen}) -> ({gen}, {pack_t}, {ANY})")
            p = np_
    func = s.fresh("f")
    s.emit(f"{func} = transform.get_parent_op {p} {{op_name = \"func.func\"}} : ({gen}) -> {ANY}")
    s.patterns(func, ["canonicalization"])  # folds pack(fill) into a fill of the packed C
    pa, pb = s.fresh("pa"), s.fresh("pb")
    s.emit(f"{pa} = transform.get_producer_of_operand {p}[0] : ({gen}) -> ({pack_t})")
    s.emit(f"{pb} = transform.get_producer_of_operand {p}[1] : ({gen}) -> ({pack_t})")
    pc = s.fresh("pc")
    s.emit(f"{pc} = transform.get_producer_of_operand {p}[2] : ({gen}) -> ({ANY})")
    up = s.fresh("up")
    s.emit(f"{up} = transform.get_consumers_of_result {p}[0] : ({gen}) -> ({unpack_t})")
    # Cache blocks, then the register tile.
    pany = s.fresh("p")
    s.emit(f"{pany} = transform.cast {p} : {gen} to {ANY}")
    p = pany
    par = threads > 1 and 2 * mi.m * mi.n * mi.k >= PARALLEL_MIN_FLOPS
    split = _task_split(mo, no, tm, tn, threads) if par else None
    par = split is not None

    def tiled(h: str, sizes: list[int], dim0: int) -> str:
        """tile_using_for; with threads, first split dim 0 into `threads` tasks."""
        if par and PARALLEL_PACKING and dim0 % threads == 0 and dim0 // threads >= max(1, sizes[0]):
            h, _ = s.tile_forall(h, [dim0 // threads] + [0] * (len(sizes) - 1))
        t, _ = s.tile(h, sizes)
        return t

    if split is not None:
        dim, chunk = split
        outer, fa = s.tile_forall(p, [chunk, 0, 0] if dim == 0 else [0, chunk, 0])
        if dim == 0:
            t1, _ = s.tile(outer, [divisor_le(chunk, tm), tn, tk])
        else:
            t1, _ = s.tile(outer, [tm, divisor_le(chunk, tn), tk])
    else:
        t1, _ = s.tile(p, [tm, tn, tk])
    t2, _ = s.tile(t1, [1, 1, kt])
    s.vectorize(t2)
    # C init: a fill of the packed tile (pack(fill) folded) or a real pack.
    if mi.fill_init:
        s.vectorize(tiled(pc, [1, 1, 0, 0], mo))
        packs = [(pa, "a"), (pb, "b")]
    else:
        pcp = s.fresh("pcp")
        s.emit(f"{pcp} = transform.cast {pc} : {ANY} to {pack_t}")
        packs = [(pa, "a"), (pb, "b"), (pcp, "c")]
    kb = divisor_le(mi.k, 8)
    for h, which in packs:
        pad, ex, tr = s.fresh("pad"), s.fresh("ex"), s.fresh("tr")
        s.emit(f"{pad}, {ex}, {tr} = transform.structured.lower_pack {h} : ({pack_t}) -> "
               f"(!transform.op<\"tensor.pad\">, !transform.op<\"tensor.expand_shape\">, "
               f"!transform.op<\"linalg.transpose\">)")
        sizes = {"a": [1, kb, MR], "b": [1, kb, NR], "c": [1, 1, MR, NR]}[which]
        dim0 = {"a": mo, "b": no, "c": mo}[which]
        s.vectorize(tiled(s.cast(tr, '!transform.op<"linalg.transpose">'), sizes, dim0))
    e, tr, cl, es = (s.fresh(x) for x in ("e", "tr", "cl", "es"))
    s.emit(f"{e}, {tr}, {cl}, {es} = transform.structured.lower_unpack {up} : ({unpack_t}) -> "
           f"(!transform.op<\"tensor.empty\">, !transform.op<\"linalg.transpose\">, "
           f"!transform.op<\"tensor.collapse_shape\">, !transform.op<\"tensor.extract_slice\">)")
    s.vectorize(tiled(s.cast(tr, '!transform.op<"linalg.transpose">'), [1, MR, 1, NR], mo))
    cp = s.fresh("cp")
    s.emit(f"{cp} = transform.get_consumers_of_result {es}[0] : "
           f"(!transform.op<\"tensor.extract_slice\">) -> ({ANY})")
    s.vectorize(tiled(cp, [1, divisor_le(mi.n, 64)], mi.m))
    s.patterns(func, ["vector.reduction_to_contract", "vector.transfer_permutation_patterns",
                      "vector.cast_away_vector_leading_one_dim", "vector.drop_unit_dims_with_shape_cast", "canonicalization",
                      "tensor.fold_tensor_subset_ops_into_vector_transfers"])
    s.cse(func)


def pack_matmuls(func: ir.Operation, threads: int) -> ir.Operation:
    """Applies the packed recipe to each big f32 matmul of `func`, one at a
    time; returns the function (a restored copy if a recipe failed)."""
    while True:
        target = None
        for op in walk_ops(func, [], is_structured):
            if SKIP_TAG in op.attributes:
                continue
            mi = matmul_info(op)
            if mi is not None and mi.m * mi.n * mi.k >= MATMUL_MIN_WORK:
                target = (op, mi)
                break
        if target is None:
            break
        op, mi = target
        loc = op.location
        if mi.fill_init:
            _private_fill(op)
        op.attributes[TAG] = i64(0)
        s = Script()
        matmul_script(s, "%root", 0, mi, threads)
        func, error = apply_or_restore(func, s.text())
        if error is not None:
            # restored: find the op again and mark it
            for o in walk_ops(func, [], is_structured):
                if TAG in o.attributes:
                    o.attributes[SKIP_TAG] = ir.UnitAttr.get()
            emit_remark(loc, "msmlir-cpu-pack-matmul: the packed matmul recipe failed; this "
                             f"matmul keeps the generic path: {error}")
        strip_attrs(func, (TAG,))
    strip_attrs(func, (SKIP_TAG,))
    return func


def _private_fill(mm: ir.Operation) -> None:
    """Gives the matmul its own copy of its init fill (pack(fill) folds into a
    fill of the packed tile only when the fill has no other users)."""
    init = mm.operands[2]
    fill = init.owner
    fill = fill.operation if hasattr(fill, "operation") else fill
    if len(list(init.uses)) <= 1:
        return
    with ir.InsertionPoint(mm):
        clone = fill.clone()
    mm.operands[2] = clone.results[0]


@register_pass("msmlir-cpu-pack-matmul",
               "Big f32 matmuls on tensors -> packed panels + register-tiled vector.contract "
               "micro-kernel (the packed recipe, all or nothing per matmul)",
               options={"threads": Option(int, 1, "split the outer cache-block loop of big matmuls "
                                                  "into scf.forall tasks (1: serial)")})
def pack_matmul(module: ir.Operation, *, threads: int):
    for func in list(funcs(module)):
        try:
            pack_matmuls(func, threads)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # each recipe is applied atomically, so the function is consistent
            strip_attrs(module, (TAG, SKIP_TAG))
            emit_remark(func.location, "msmlir-cpu-pack-matmul: internal error, the remaining "
                                       f"matmuls keep the generic path: {type(e).__name__}: {e}")
