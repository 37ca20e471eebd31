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
PARALLEL_MIN_FLOPS is an `scf.forall` (tasks: OpenMP threads): one
task per cache block of rows when there are enough of them, else the column
panels (or rows) cut into `threads` pieces, so mid-size matmuls (M=128 of a
training batch) are split too (the direct kernel below: `threads` tasks of
row or column panels, the last one shorter, and its operand packs in
`threads` tasks of their own). k blocks need not divide k (the last one is
shorter). A narrow C (n <= NR/2, e.g.
N=10 logits) is packed in half-width panels.
"""
from __future__ import annotations

import os as _os
from math import gcd as _gcd

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
# tasks (OpenMP regions, ~1-5 us each). Measured threads=2 vs 1 on the 2-vCPU
# machine: 128x128x128 (4 Mflop) 26.7 -> 24.3 us, 128x256x128 45.7 -> 35.5 us,
# 128x512x512 368 -> 255 us, 512x128x784 517 -> 305 us. The packed-C
# recipe's packing copies stay serial unless PARALLEL_PACKING (the direct
# kernel's are split: PARALLEL_PACKS).
PARALLEL_MIN_FLOPS = 1 << 22

# With threads, also split the packing/unpacking copies into tasks.
PARALLEL_PACKING = _os.environ.get("MSMLIR_PARALLEL_PACKING", "0") == "1"


# Micro-kernel: MR rows x NR columns of C kept in vector registers.
# AVX2 (16 ymm): 4 x 16 = 8 accumulators. AVX-512 (32 zmm): 8 x 32 = 16, and
# 6 x 64 = 24 for big matmuls (WIDE_KERNEL below).
def kernel_shape() -> tuple[int, int, int, int, int]:
    """(MR, NR, tm, tn, tk): register tile and cache blocks (in packs, packs, k).
    MSMLIR_MM_KERNEL=MR,NR,tm,tn,tk overrides the choice for the host (and
    turns the wide tile off)."""
    env = _os.environ.get("MSMLIR_MM_KERNEL")
    if env:
        return tuple(int(x) for x in env.split(","))
    if host_has_avx512():
        # tn = 4 column panels (k blocks up to 1024 by _k_block), tm = 128 row
        # panels: t=1 thread time, interleaved, vs (16, 16): 1024^3 204 -> 219
        # GF/s, 2048^3 193 -> 210, 128x784x512 157 -> 177; 1024^3 at t=2 5.44
        # -> 4.93 ms (load 0.7)
        return (8, 32, 128, 4, 256)
    return (4, 16, 16, 8, 256)


# The wide register tile of big AVX-512 matmuls: 6 rows x 64 columns, 24 of
# the 32 zmm registers accumulating; per k step 6 broadcasts and 4 vector
# loads feed 24 FMAs (the 8x32 tile: 8 + 2 for 16). Its B panels (64 x k)
# stream from L2, one panel per block (k blocks up to 1024 by _k_block).
# The micro-kernel alone, operands in L1 (interleaved, thread CPU time):
# 6x64 0.77-0.81 of the FMA peak vs 8x32 0.72-0.79; 1024^3 matmul at t=1
# 0.64-0.67 -> 0.68-0.71. Only for matmuls of at least WIDE_MIN_FLOPS:
# B5's (2^25-2^26.6 flops, k = 128 or m = 128) measured 0-15% slower with it.
# Never swapped (the in-register transpose of a swapped tile takes MR a
# power of two), never with A packed by a transpose (panels of 6 rows are not
# a power of two), nor for a C narrower than 64 (_wide).
WIDE_KERNEL = (6, 64, 128, 1, 512)
WIDE_MIN_FLOPS = 1 << 28


def _wide(mi: MatmulInfo, swap: bool, a_arg: bool) -> bool:
    """Whether the direct kernel of `mi` takes WIDE_KERNEL, unswapped: A
    broadcast in place (a function argument stored [m, k]; also for x @ W^T,
    which _swapped would swap: a big matmul amortizes the transposing pack
    of W, 1024^3 14.5 -> 13.5 ms, 1000^3 13.1 -> 12.9) or A stored [k, m]
    and packed by a copy (not if swapped: A^T @ B^T unswapped packs both,
    1000^3 13.1 -> 15.6 ms)."""
    return (not _os.environ.get("MSMLIR_MM_KERNEL") and host_has_avx512()
            and ((a_arg and not mi.a_km) or (mi.a_km and not swap))
            and mi.n >= 64 and mi.m >= 6 and 2 * mi.m * mi.n * mi.k >= WIDE_MIN_FLOPS)



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


def _direct_split(mo: int, no: int, TM: int, threads: int) -> tuple[int, int] | None:
    """(dim, chunk): the direct kernel's tasks, `threads` of them (one per
    thread: OpenMP's static schedule gives each a contiguous part; the last
    task may be shorter): the row panels when there are at least `threads`
    cache blocks of them, else the column panels (each task reads its own
    part of the B panels; A is small then), else the rows; None if neither
    dim has `threads` panels."""
    if mo // min(TM, mo) >= threads:
        return 0, -(-mo // threads)
    if no >= threads:
        return 1, -(-no // threads)
    if mo >= threads:
        return 0, -(-mo // threads)
    return None


def _panel_width(NR: int, n: int) -> int:
    """A narrow C (e.g. N=10 logits) takes narrower B panels, halved down to
    8 while they are wider than C: less zero padding, and C at least one
    panel wide, as the direct kernel's tail transfers need."""
    if _os.environ.get("MSMLIR_MM_KERNEL"):
        return NR
    while NR > 8 and n < NR:
        NR //= 2
    return NR


# Bytes of the packed Q block (tn panels x tk) the row tiles reuse from L2.
# A short k block widens the block to as many panels as fit (direct kernel,
# not the wide tile): each row tile's P panel is reused across more column
# panels and C is written in longer row runs. B5's weight-gradient shapes
# (A^T B, t=1, thread CPU time, min of 60 interleaved calls, load ~16, nice
# -15): 512x784x128 (25 panels in one block, not 4) 824-855 -> 721-726 us,
# 512x512x128 (16, not 4) 450-453 -> 435-440 us; LeNet5's conv kernels
# (short k too) unchanged.
L2_BLOCK = 512 * 1024


def _k_block(TK: int, cols: int) -> int:
    """The k block of the direct kernel: TK, or longer (up to 1024, the MR
    rows of P stay in L1) while the block of `cols` packed columns fits
    L2_BLOCK. Fewer k blocks: fewer copies of the tile code (each k block
    position has its own) and fewer passes over C. B5's 128x512x784
    (4 panels): one block of 784, not 4 of 196."""
    return max(TK, min(1024, L2_BLOCK // (4 * cols)))


def _k_blocks(k: int, KB: int) -> tuple[int, int, int, int]:
    """(tk, nkb, tl, kt): the direct kernel's k split into nkb blocks of tk
    (a multiple of 4 when nkb > 1), the last one tl <= tk long, about KB each
    (a divisor of k would be 1 for a prime k: 1000x1009x1000 ran at 28 GF/s);
    and the k step kt of the micro-kernel: 4 or 8 if it divides every
    block, else 4 and a shorter last step per block (faster than steps of 2:
    128x66x512 146 -> 167 GF/s, 300x330x330 171 -> 184 at t=1), but for a
    short k a divisor of it."""
    nkb = -(-k // KB)
    tk = -(-k // nkb)
    if nkb > 1:
        tk = -(-tk // 4) * 4
        nkb = -(-k // tk)
    tl = k - (nkb - 1) * tk
    g = _gcd(tk, tl)
    kt = next((c for c in (4, 8) if g % c == 0), None)
    if kt is None:  # a short k keeps a divisor (128x10x512: steps of 2 10 us, 4 + 2 12 us)
        kt = _k_tile(g) if tk < 32 and _k_tile(g) > 1 else min(4, tk)
    return tk, nkb, tl, kt


def _k_tile(k: int) -> int:
    for c in (4, 8, 2, 6, 3, 5, 7):
        if k % c == 0:
            return c
    return 1


def matmul_script(s: Script, root: str, tag: int, mi: MatmulInfo, threads: int) -> None:
    MR, NR, TM, TN, TK = kernel_shape()
    NR = _panel_width(NR, mi.n)
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


# --- the direct kernel: only A and B packed, C tiles stored in place ---------------------
#
# The micro-kernel loop nest is emitted here (text, parsed and moved into the
# function). Of the two operands, P gives the MR scalars broadcast per k and
# Q the NR-wide vectors: P is A and Q is B, or, for x @ W^T with W stored
# [n, k] (_swapped), the kernel computes C^T: P is W, Q is x, and each tile
# is transposed in registers before the store. P stored [m, k] (a function
# argument) is read in place by the broadcasts; Q (and P otherwise) is
# packed into panels (pack_panels: 1-D copies, or transposes by vector.shuffle
# zips; in small matmuls an operand already in its panel layout is read in
# place instead). Then cache blocks [tm, tn, tk] of
# register tiles whose MR x NR accumulator is an scf.for iter_arg over k,
# read from / written straight into the (unpadded) output with vector
# transfers: out-of-bounds (masked) transfers for the tiles of the M/N tails
# only (an scf.if per tile). The first k block starts from the fill value
# (no zeroing pass), and the last one applies the matmul's elementwise
# consumers (a chain of single-use 2-D generics: bias add, scale-and-subtract,
# select, relu, ...) to the register tile before the store, so the consumer's
# output is written once and no packed C, unpack or copy exists.

DIRECT = _os.environ.get("MSMLIR_MM_DIRECT", "1") == "1"

# With threads, the direct kernel's packs are split over the threads too
# (pack_panels' tasks); MSMLIR_MM_PARALLEL_PACKS=0 keeps them serial (A/B).
# B5's train step at threads=2, its matmul kernels one at a time: 1355 ->
# 1212 us (x's transposing pack of the forward layers, the copies of dW's).
PARALLEL_PACKS = _os.environ.get("MSMLIR_MM_PARALLEL_PACKS", "1") == "1"

# In matmuls of fewer flops than this, an operand already laid out as its
# panels want it (A as [k, m], B as [k, n]: MR / NR contiguous elements per k)
# is read in place, not packed (when it has no tail panel). Measured (t=1):
# 10x128x512 (dW3 of B5) 17.7 -> 15.1 us, 128x10x512 10.2 -> 9.2 us; but
# 512x128x512 346 -> 392 us, 1024^3 slower still: the strided rows of big
# operands cost more in the micro-kernel than the packing copy.
INPLACE_MAX_FLOPS = 1 << 22


def _vt(shape, elem="f32") -> str:
    return "vector<" + "".join(f"{d}x" for d in shape) + f"{elem}>"


def _epilogue_chain(mm: ir.Operation, m: int, n: int):
    """The single-use chain of elementwise 2-D generics consuming the matmul
    (each the only user of the previous value, identity output map, an
    unused output block argument, arith/math scalar bodies); the last must
    produce f32 (its output holds the partial sums). [] if none."""
    from ..common.linalg import defining_op
    chain = []
    cur = mm.results[0]
    while True:
        uses = list(cur.uses)
        if len(uses) != 1:
            break
        g = uses[0].owner
        g = g.operation if hasattr(g, "operation") else g
        if g.name != "linalg.generic" or len(g.results) != 1 or g.parent != mm.parent:
            break
        ins = list(g.operands)[:-1]
        maps = [ir.AffineMapAttr(a).value for a in g.attributes["indexing_maps"]]
        its = [str(a) for a in g.attributes["iterator_types"]]
        if len(its) != 2 or any("parallel" not in a for a in its):
            break
        ident = ir.AffineMap.get_identity(2)
        if maps[-1] != ident or ir.RankedTensorType(g.results[0].type).shape != [m, n]:
            break
        ok = all(maps[j] == ident for j, v in enumerate(ins) if v == cur)
        block = g.regions[0].blocks[0]
        if not ok or len(list(block.arguments[-1].uses)) != 0:
            break
        for o in block.operations:
            o = o.operation
            if o.name == "linalg.yield":
                continue
            if not (o.name.startswith("arith.") or o.name.startswith("math.")) or len(o.regions) \
                    or len(o.results) != 1:
                ok = False
            for v in o.operands:  # values from outside the body: constants or scalars
                d = defining_op(v)
                if isinstance(v.owner, ir.Block) and v.owner == block:
                    continue
                if d is not None and d.parent == o.parent:
                    continue
                if not (isinstance(v.type, ir.IntegerType) or isinstance(v.type, ir.FloatType)
                        or isinstance(v.type, ir.IndexType)):
                    ok = False
        for v, mp in zip(ins, maps):
            for r in mp.results:
                if not (isinstance(r, ir.AffineDimExpr) or isinstance(r, ir.AffineConstantExpr)):
                    ok = False
        if not ok:
            break
        chain.append(g)
        cur = g.results[0]
    while chain and not isinstance(ir.RankedTensorType(chain[-1].results[0].type).element_type, ir.F32Type):
        chain.pop()
    return chain


class _Text:
    def __init__(self):
        self.lines: list[str] = []
        self.head: list[str] = []
        self.n = 0
        self.ind = 2
        self.consts: dict = {}

    def v(self, p="v") -> str:
        self.n += 1
        return f"%{p}{self.n}"

    def e(self, s: str) -> None:
        self.lines.append("  " * self.ind + s)

    def c(self, x: int) -> str:
        if x not in self.consts:
            name = f"%c{x}".replace("-", "m")
            self.consts[x] = name
            self.head.append(f"    {name} = arith.constant {x} : index")
        return self.consts[x]

    def end_loop(self, value: str, type_: str) -> None:
        """`scf.yield value` and the closing brace of the innermost region."""
        self.e(f"scf.yield {value} : {type_}")
        self.ind -= 1
        self.e("}")

    def bin(self, op: str, a: str, b: str) -> str:
        r = self.v()
        self.e(f"{r} = arith.{op} {a}, {b} : index")
        return r


_KB = 16  # k values per transposed block: one vector<16xf32> per source row
_CB = 16  # rows of X per block in the copy packs (pack_panels, X stored [k, rows])


def _interleave(half: int) -> str:
    """Mask of vector.shuffle zipping the `half` (0: low, 1: high) 8 lanes of
    two vector<16xf32>: [a0 b0 a1 b1 ...]."""
    base = 8 * half
    return ", ".join(f"{base + i}, {16 + base + i}" for i in range(8))


def _zip_rows(T: _Text, vs: list[str]) -> list[str]:
    """The transpose of RB = len(vs) (a power of two <= 16) rows of
    vector<16xf32>, flat: log2(RB) rounds of vector.shuffle zips (a perfect
    shuffle rotates the bits of the flat index by one). Result v holds the
    elements [16v, 16v + 16) of the [16][RB] transpose."""
    V16 = _vt((16,))
    half = len(vs) // 2
    for _ in range(len(vs).bit_length() - 1):
        ws = []
        for j in range(half):
            for hh in (0, 1):
                w = T.v("ps")
                T.e(f"{w} = vector.shuffle {vs[j]}, {vs[j + half]} [{_interleave(hh)}] : {V16}, {V16}")
                ws.append(w)
        vs = ws
    return vs


def _swapped(mi: MatmulInfo, MR: int, NR: int) -> bool:
    """Whether the direct kernel computes C^T = B^T A^T instead (B stored
    [n, k] broadcast in place, A packed into the panels): when B is stored
    [n, k] and A is the smaller operand or stored [k, m] (a copy to pack),
    so the pack moves the fewer bytes (x @ W^T with W (out, in): W is not
    repacked at every call). Its tiles are transposed in registers before
    the store (MR a power of two <= 16, panels of 16 or 32). Not when A
    would fill only narrowed panels (m < NR): the register tile would shrink
    (LeNet5's conv2 filter gradient, m = 16: 423 -> 570 us swapped)."""
    return mi.b_nk and (mi.a_km or mi.m <= mi.n) and MR in (2, 4, 8, 16) and NR % 16 == 0 \
        and _panel_width(NR, mi.m) == NR


def pack_panels(T: _Text, src: str, stype: str, rows: int, K: int, R: int, *, kcontig: bool,
                zero: str, tasks: int = 1) -> str:
    """Emits the packing of a matmul operand into panels of R rows (of A) or
    columns (of B), contiguous along k: P[p, k, r] = X[p*R + r, k] (zero
    padded past `rows`); returns the packed tensor<panels x K x R>.

    `kcontig`: X is stored [rows, K] (k contiguous), else [K, rows]. The
    latter is a copy (one vector<R> per k). The former is a transpose, done
    by blocks of RB = min(R, 16) rows x 16 k: RB vector<16> rows read, log2(RB)
    rounds of vector.shuffle zips (a perfect shuffle of the block rotates the
    bits of the flat index by one: log2(RB) of them turn [r][k] into [k][r]),
    16*RB/16 vector<16> rows written; one such block of code in all (the
    row halves of a 32-wide panel, the partial last panel and the last k
    block all take its loops: first-call compile time). Why not
    linalg.pack's own lowering: its vectorized transpose reaches LLVM as
    element-by-element extract/insert chains after the 1-D transfer
    unrolling (slow to pack, slow to compile).

    `tasks` > 1 (the matmul is split over threads): the whole panels are
    packed by an scf.forall of `tasks` tasks, each its contiguous range
    (the last shorter), so the copy runs in parallel instead of before the
    parallel part (B5's 128x784x512 forward at threads=2: 314 -> 271 us);
    a partial last panel of a copy is packed after it, serially (a
    transpose's is one of the tasks' panels)."""
    if R > 64 or kcontig and (R % 16 if R > 16 else R & (R - 1) or R < 2):
        raise ValueError(f"panel width {R}: a transposing pack takes a power of two <= 16 or a "
                         "multiple of 16, and no pack more than 64")
    panels = -(-rows // R)
    full = rows // R                     # panels with all R rows / columns present
    P2 = f"tensor<{panels}x{K * R}xf32>"
    P3 = f"tensor<{panels}x{K}x{R}xf32>"
    e = T.v("pe")
    T.e(f"{e} = tensor.empty() : {P2}")

    def write(cur: str, DT: str, vec: str, width: int, p: str, idx: str, valid: int) -> str:
        """vec (vector<width>) to cur[p, idx:] (of type DT); only its first `valid` lanes."""
        if valid < width:
            x = T.v("px")
            T.e(f"{x} = vector.extract_strided_slice {vec} {{offsets = [0], sizes = [{valid}], "
                f"strides = [1]}} : {_vt((width,))} to {_vt((valid,))}")
            vec, width = x, valid
        w = T.v("pw")
        T.e(f"{w} = vector.transfer_write {vec}, {cur}[{p}, {idx}] {{in_bounds = [true]}} "
            f": {_vt((width,))}, {DT}")
        return w

    def zeros(width: int) -> str:
        key = ("zero", width)
        if key not in T.consts:
            T.consts[key] = T.v("pz")
            T.head.append(f"    {T.consts[key]} = arith.constant dense<0.0> : {_vt((width,))}")
        return T.consts[key]

    def read(row: str, col: str, width: int, valid: int) -> str:
        """X[row, col : col + width]; lanes past `valid` are zero (no masks:
        a masked 1-D transfer does not lower here)."""
        r = T.v("pr")
        T.e(f"{r} = vector.transfer_read {src}[{row}, {col}], {zero} {{in_bounds = [true]}} "
            f": {stype}, {_vt((valid,))}")
        if valid == width:
            return r
        x = T.v("px")
        T.e(f"{x} = vector.insert_strided_slice {r}, {zeros(width)} {{offsets = [0], strides = [1]}} "
            f": {_vt((valid,))} into {_vt((width,))}")
        return x

    def loop(cur: str, DT: str, lo: int | str, hi: int | str, step: int, body) -> str:
        """scf.for over [lo, hi) carrying the packed tensor; body(iv, cur) -> new."""
        if isinstance(hi, int) and isinstance(lo, int) and hi <= lo:
            return cur
        iv, t, res = T.v("pi"), T.v("pt"), T.v("pl")
        hi = T.c(hi) if isinstance(hi, int) else hi
        lo = T.c(lo) if isinstance(lo, int) else lo
        T.e(f"{res} = scf.for {iv} = {lo} to {hi} step {T.c(step)} iter_args({t} = {cur}) "
            f"-> ({DT}) {{")
        T.ind += 1
        T.end_loop(body(iv, t), DT)
        return res

    if not kcontig:
        # X[k, p*R : p*R + R] -> P[p, k*R : k*R + R]; the last panel's reads
        # are zero filled. Blocks of _CB rows of X, panel by panel: each
        # panel gets _CB * R contiguous floats (whole lines) while the
        # block's rows stay in L1. Row by row, the R-float pieces of one row
        # went to panels a page or more apart (the same L1 set, a partial
        # line each for R < 16); a panel's whole strip at a time read X's
        # rows a page apart. Pack-bound shapes at t=1 (thread CPU time,
        # interleaved, load ~11): B5's dy^T [128, 512] into 8-row panels
        # (512x32x128, A^T B) 68 -> 51 us, x [128, 784] into 32-column panels
        # (8x784x128) 51 -> 38 us, 8x512x512 105 -> 89 us, 8x1024x1024 515
        # -> 495 us; whole matmuls within the noise (+-3%).
        def whole(cur: str, DT: str, base: str | None, count: int | str, last: bool = False) -> str:
            """The whole panels [base, base + count) into cur[0, count), and
            with `last` the partial last panel (serial, after them)."""
            def kblock(k0: str, c: str) -> str:
                k1 = T.bin("addi", k0, T.c(_CB))
                k1 = T.bin("minsi", k1, T.c(K)) if K % _CB else k1

                def panel(p: str, c2: str) -> str:
                    g = T.bin("addi", p, base) if base else p
                    col = T.bin("muli", g, T.c(R))
                    return loop(c2, DT, k0, k1, 1, lambda kv, c3: write(
                        c3, DT, read(kv, col, R, R), R, p, T.bin("muli", kv, T.c(R)), R))
                return loop(c, DT, 0, count, 1, panel)
            cur = loop(cur, DT, 0, K, _CB, kblock) if count != 0 else cur

            def tail_piece(kv: str, c: str) -> str:
                return write(c, DT, read(kv, T.c(full * R), R, rows - full * R), R, T.c(full),
                             T.bin("muli", kv, T.c(R)), R)
            return loop(cur, DT, 0, K, 1, tail_piece) if last else cur

        def tail(cur: str) -> str:
            return whole(cur, P2, None, 0, True)
    else:
        RB = min(R, 16)
        kt16 = min(K, _KB)               # k of one block (K < 16: the whole K)
        # One block of code per pack: the partial last panel and the last k
        # block take the loops' path, the former with its row indices clamped
        # to the last row (its padding lanes then hold copies of that row:
        # any value does, they only meet the C columns / rows that are
        # never stored), the latter shifted back to end at K (it rewrites
        # the same values into the entries it overlaps). B6's conv2 filter
        # gradient packed B with 4 copies of the block (2 row halves x the
        # whole and the partial panel), ~1.1k of its 2.6k LLVM ops.
        clamp = rows % R != 0

        def block(p: str, g: str, DT: str, k0: str, cur: str, h: str) -> str:
            """Rows [g*R + h*RB, + RB) x k [k0, k0 + kt16) into panel p of cur."""
            base = T.bin("muli", g, T.c(R))
            hoff = T.bin("muli", h, T.c(RB)) if R > RB else None
            base = T.bin("addi", base, hoff) if hoff else base
            vs = []
            for r in range(RB):
                row = T.bin("addi", base, T.c(r)) if r else base
                if clamp:
                    row = T.bin("minsi", row, T.c(rows - 1))
                vs.append(read(row, k0, 16, kt16))
            vs = _zip_rows(T, vs)
            # vs[v]: flat [16v, 16v + 16) of the [16 k][RB r] block
            kr = T.bin("muli", k0, T.c(R))
            kr = T.bin("addi", kr, hoff) if hoff else kr
            for v, vec in enumerate(vs):
                kk = (16 * v) // RB
                if kk >= kt16:
                    continue
                off = kk * R + (16 * v) % RB
                idx = T.bin("addi", kr, T.c(off)) if off else kr
                cur = write(cur, DT, vec, 16, p, idx, min(16, (kt16 - kk) * R))
            return cur

        def panel(p: str, g: str, DT: str, cur: str) -> str:
            # one k loop per RB-row half of a 32-wide panel (the halves' loop
            # outside): a loop with all 2 x (16 reads + 16 writes) made LLVM's
            # loop strength reduction take seconds (LeNet5's conv2 filter
            # gradient: 2.96 s in llc)
            def half(h: str, c: str) -> str:
                if K <= _KB:
                    return block(p, g, DT, T.c(0), c, h)

                def kblock(kv: str, c2: str) -> str:
                    k0 = T.bin("minsi", kv, T.c(K - _KB)) if K % _KB else kv
                    return block(p, g, DT, k0, c2, h)
                return loop(c, DT, 0, -(-K // _KB) * _KB, _KB, kblock)
            if R == RB:
                return half(T.c(0), cur)
            return loop(cur, DT, 0, R // RB, 1, half)

        def whole(cur: str, DT: str, base: str | None, count: int | str) -> str:
            return loop(cur, DT, 0, count, 1,
                        lambda p, c: panel(p, T.bin("addi", p, base) if base else p, DT, c))

        def tail(cur: str) -> str:
            return cur
        full = panels                    # the partial panel is one of the loop's

    if tasks > 1 and full >= tasks:
        chunk = -(-full // tasks)
        ntask = -(-full // chunk)
        res, tv, o = T.v("pf"), T.v("ptask"), T.v("po")
        T.e(f"{res} = scf.forall ({tv}) in ({ntask}) shared_outs({o} = {e}) -> ({P2}) {{")
        T.ind += 1
        lo = T.bin("muli", tv, T.c(chunk))
        if full % chunk:
            size = T.v("psz")
            T.e(f"{size} = affine.min affine_map<(d0) -> ({chunk}, {full} - d0)>({lo})")
            ST = f"tensor<?x{K * R}xf32>"
        else:
            size, ST = chunk, f"tensor<{chunk}x{K * R}xf32>"
        sl = T.v("psl")
        T.e(f"{sl} = tensor.extract_slice {o}[{lo}, 0] [{size}, {K * R}] [1, 1] : {P2} to {ST}")
        r = whole(sl, ST, lo, size)
        T.e("scf.forall.in_parallel {")
        T.e(f"  tensor.parallel_insert_slice {r} into {o}[{lo}, 0] [{size}, {K * R}] [1, 1] "
            f": {ST} into {P2}")
        T.e("}")
        T.ind -= 1
        T.e("}")
        if panels > full:
            res = tail(res)
    elif not kcontig:
        res = whole(e, P2, None, full, panels > full)
    else:
        res = whole(e, P2, None, full)
        if panels > full:
            res = tail(res)
    out = T.v("pk")
    T.e(f"{out} = tensor.expand_shape {res} [[0], [1, 2]] output_shape [{panels}, {K}, {R}] "
        f": {P2} into {P3}")
    return out


def direct_matmul(func: ir.Operation, mm: ir.Operation, mi: MatmulInfo, threads: int) -> ir.Operation:
    """Rewrites `mm` (and its epilogue chain) into the direct kernel; returns
    the function. Raises on failure (the caller restores)."""
    from ..common.linalg import defining_op
    MR, NR, TM, TN, TK = kernel_shape()
    cm, cn, k = mi.m, mi.n, mi.k
    swap = _swapped(mi, MR, NR)
    A = mm.operands[0]
    if _wide(mi, swap, isinstance(A.owner, ir.Block) and A.owner.owner.operation.name == "func.func"):
        swap = False
        MR, NR, TM, TN, TK = WIDE_KERNEL
    # the kernel's own (logical) matmul L[m, n] = P[m, k] Q[k, n]: C, or C^T
    # when swapped; P is the broadcast operand, Q the one read as vectors
    m, n = (cn, cm) if swap else (cm, cn)
    A, B, C = mm.operands[0], mm.operands[1], mm.operands[2]
    P, Q = (B, A) if swap else (A, B)
    p_km, q_nk = (False, not mi.a_km) if swap else (mi.a_km, mi.b_nk)
    # P stored [m, k] and given to the function (not a view of another
    # tensor) is not packed: the micro-kernel broadcasts its scalars straight
    # from the MR rows (in L1 while the j loop reuses them). B5's 128x512x512
    # x @ W^T: 380 -> 348 us (before the swap); but on the views of LeNet5's
    # convolutions (a collapsed filter, a slice of im2col rows) it measured
    # slower (297 -> 328 us, 393 -> 559 us), so those are packed.
    pbcast = not p_km and isinstance(P.owner, ir.Block) and P.owner.owner.operation.name == "func.func"
    NR = _panel_width(NR, n)
    mo, no = -(-m // MR), -(-n // NR)
    tk, nkb, tl, kt = _k_blocks(k, _k_block(TK, min(TN, no) * NR))
    if (MR, NR) != WIDE_KERNEL[:2]:
        TN = max(TN, L2_BLOCK // (4 * NR * tk))
    if m < MR or n < NR:
        # (a vector<MRxNR> transfer on a tensor with fewer than MR rows or NR
        # columns: the transfer lowering does not terminate) the packed-C
        # recipe takes it
        raise ValueError("C smaller than the register tile")
    chain = _epilogue_chain(mm, cm, cn)
    fill = defining_op(C) if mi.fill_init else None
    last = chain[-1] if chain else mm
    D = list(last.operands)[-1] if chain else (fill.operands[1] if fill is not None else C)
    TA, TB, TD = str(P.type), str(Q.type), str(D.type)
    VT = _vt((MR, NR))
    T = _Text()
    args: list[tuple[str, ir.Value]] = []

    def arg(v: ir.Value) -> str:
        for name, w in args:
            if w == v:
                return name
        name = f"%arg{len(args)}"
        args.append((name, v))
        return name

    a, b, d = arg(P), arg(Q), arg(D)
    c = arg(C) if fill is None else None
    z = T.v("z")
    T.e(f"{z} = arith.constant 0.0 : f32")
    # packs: P -> [mo, k, MR], Q -> [no, k, NR] (zero padded)
    PA, PB = f"tensor<{mo}x{k}x{MR}xf32>", f"tensor<{no}x{k}x{NR}xf32>"
    par = threads > 1 and 2 * m * n * k >= PARALLEL_MIN_FLOPS
    # (tasks by blocks of 16 row panels, not TM: B5's x @ W1^T at threads=2 keeps
    # the rows of W split, each task reading half of W)
    split = _direct_split(mo, no, 16, threads) if par else None
    # (in place only without a tail: a masked read in the k loop would need a
    # second copy of the loop for the tail tiles)
    inplace = 2 * m * n * k < INPLACE_MAX_FLOPS
    ptasks = threads if split is not None and PARALLEL_PACKS else 1
    pa = None if pbcast or (p_km and inplace and m % MR == 0) else \
        pack_panels(T, a, TA, m, k, MR, kcontig=not p_km, zero=z, tasks=ptasks)
    pb = None if not q_nk and inplace and n % NR == 0 else \
        pack_panels(T, b, TB, n, k, NR, kcontig=q_nk, zero=z, tasks=ptasks)
    if fill is not None:
        fv = fill.operands[0]
        fd = defining_op(fv)
        if fd is not None and fd.name == "arith.constant" and ir.FloatAttr(fd.attributes["value"]).value == 0.0:
            acc_init = T.v("zv")
            T.e(f"{acc_init} = arith.constant dense<0.0> : {VT}")
        else:
            acc_init = T.v("fv")
            T.e(f"{acc_init} = vector.broadcast {arg(fv)} : f32 to {VT}")
    tails = (m % MR != 0, n % NR != 0)
    if swap:
        zero_tile = T.v("zt")
        T.e(f"{zero_tile} = arith.constant dense<0.0> : {VT}")

    def transpose_pieces(acc: str) -> list[tuple[int, str]]:
        """vector<MR x NR> -> the transpose as [(offset, vector<16>)], each
        the G = 16 / MR rows from offset on of the transpose, flat: per 16
        columns, the MR rows' vector<16> zipped by vector.shuffle
        (_zip_rows); zipped vector v of half h holds rows 16h + G*v .. + G
        (the store shape_casts it to a G x MR sub-tile). Why pieces, not one vector<NR x MR>: inserting the rows
        into one tile canonicalizes to a from_elements of NR*MR scalars
        (and the tile is written row by row anyway): the 64x120x84 forward
        kernel was 4.3k LLVM ops. Emitted once per tile, before the
        tail branch (both branches store the same pieces)."""
        rows = []
        for r_ in range(MR):
            x_ = T.v("tr")
            T.e(f"{x_} = vector.extract {acc}[{r_}] : {_vt((NR,))} from {VT}")
            rows.append(x_)
        G = 16 // MR
        out = []
        for h in range(NR // 16):
            vs = rows if NR == 16 else []
            for x_ in rows if NR != 16 else []:
                y_ = T.v("th")
                T.e(f"{y_} = vector.extract_strided_slice {x_} {{offsets = [{16 * h}], sizes = [16], "
                    f"strides = [1]}} : {_vt((NR,))} to {_vt((16,))}")
                vs.append(y_)
            for v, vec in enumerate(_zip_rows(T, vs)):
                out.append((16 * h + G * v, vec))
        return out

    def tile_read(src: str, stype: str, idx: list[str], vshape, perm: str | None, inb: list[bool], elem="f32"):
        r = T.v("r")
        pad = z if elem == "f32" else T.v("p")
        if elem != "f32":
            T.e(f"{pad} = arith.constant false" if elem == "i1" else f"{pad} = arith.constant 0 : {elem}")
        ib = ", ".join("true" if x else "false" for x in inb)
        pm = f", permutation_map = {perm}" if perm else ""
        T.e(f"{r} = vector.transfer_read {src}[{', '.join(idx)}], {pad} {{in_bounds = [{ib}]{pm}}} : "
            f"{stype}, {_vt(vshape, elem)}")
        return r

    def epilogue(acc: str, row: str, col: str, inb: bool, ts: tuple[int, int], flat: bool = False) -> str:
        """The chain applied to the ts-shaped tile acc of C at (row, col).
        `flat`: acc and the result are the tile as one 1-D vector (its
        operand tiles are read, then shape_cast): a swapped tile's pieces,
        whose 2 x 8 ops LLVM would unroll row by row (~45 extra LLVM ops a
        piece in B6's dense forward kernels)."""
        def vt(elem: str) -> str:
            return _vt((ts[0] * ts[1],), elem) if flat else _vt(ts, elem)
        cur_val = mm.results[0]
        cur = acc
        for g in chain:
            block = g.regions[0].blocks[0]
            env = {}
            ins = list(g.operands)[:-1]
            maps = [ir.AffineMapAttr(x).value for x in g.attributes["indexing_maps"]]
            for j, (v, mp) in enumerate(zip(ins, maps)):
                if v == cur_val:
                    env[block.arguments[j]] = cur
                    continue
                st = ir.RankedTensorType(v.type)
                elem = str(st.element_type)
                name = arg(v)
                if st.rank == 0:
                    s = T.v("s")
                    T.e(f"{s} = tensor.extract {name}[] : {v.type}")
                    r = T.v("b")
                    T.e(f"{r} = vector.broadcast {s} : {elem} to {vt(elem)}")
                    env[block.arguments[j]] = r
                    continue
                idx, src_of = [], {}
                for q, ex in enumerate(mp.results):
                    if isinstance(ex, ir.AffineDimExpr):
                        pos = ir.AffineDimExpr(ex).position
                        idx.append(row if pos == 0 else col)
                        src_of[pos] = q
                    else:
                        idx.append(T.c(ir.AffineConstantExpr(ex).value))
                dims = ", ".join(f"s{q}" for q in range(st.rank))
                res = ", ".join(f"s{src_of[p]}" if p in src_of else "0" for p in (0, 1))
                perm = f"affine_map<({dims}) -> ({res})>"
                tv = tile_read(name, str(v.type), idx, ts, perm, [inb or p not in src_of for p in (0, 1)],
                               elem)
                if flat:
                    fv_ = T.v("fl")
                    T.e(f"{fv_} = vector.shape_cast {tv} : {_vt(ts, elem)} to {vt(elem)}")
                    tv = fv_
                env[block.arguments[j]] = tv
            for o in block.operations:
                o = o.operation
                if o.name == "linalg.yield":
                    cur = env[o.operands[0]]
                    break
                ops = []
                for v in o.operands:
                    if v in env:
                        ops.append(env[v])
                        continue
                    dv = defining_op(v)
                    r = T.v("k")
                    if dv is not None and dv.name == "arith.constant":
                        shape = [ts[0] * ts[1]] if flat else list(ts)
                        sp = ir.DenseElementsAttr.get_splat(ir.VectorType.get(shape, v.type),
                                                            dv.attributes["value"])
                        T.e(f"{r} = arith.constant {sp}")
                    else:
                        T.e(f"{r} = vector.broadcast {arg(v)} : {v.type} to {vt(str(v.type))}")
                    env[v] = r
                    ops.append(r)
                rt = vt(str(o.results[0].type))
                r = T.v("x")
                attrs = ", ".join(f"{nm} = {o.attributes[nm]}" for nm in
                                  (getattr(x, "name", x) for x in o.attributes))
                attrs = f" {{{attrs}}}" if attrs else ""
                tys = ", ".join(vt(str(v.type)) for v in o.operands)
                T.e(f'{r} = "{o.name}"({", ".join(ops)}){attrs} : ({tys}) -> {rt}')
                env[o.results[0]] = r
            cur_val = g.results[0]
        return cur

    def tiles(kb: str, klen: int, first: bool, lastk: bool, cur: str, ctype: str, ib: str, jb: str, bm: int,
              bn: int, roff: str | None, coff: str | None, iend: str | None, jend: str | None) -> str:
        """The register tiles of one cache block for the k block [kb, kb +
        klen) (iend / jend: the end of the packs when the last block is short)."""
        i, j, t3, t4 = T.v("i"), T.v("j"), T.v("t"), T.v("t")
        ri = T.v("ri")
        ie = T.bin("addi", ib, T.c(bm))
        je = T.bin("addi", jb, T.c(bn))
        ie = T.bin("minsi", ie, iend) if iend else ie
        je = T.bin("minsi", je, jend) if jend else je
        rj = T.v("rj")
        T.e(f"{ri} = scf.for {i} = {ib} to {ie} step {T.c(1)} iter_args({t3} = {cur}) -> ({ctype}) {{")
        T.ind += 1
        T.e(f"{rj} = scf.for {j} = {jb} to {je} step {T.c(1)} iter_args({t4} = {t3}) -> ({ctype}) {{")
        T.ind += 1
        row = T.bin("muli", i, T.c(MR))
        col = T.bin("muli", j, T.c(NR))
        lrow = T.bin("subi", row, roff) if roff else row
        lcol = T.bin("subi", col, coff) if coff else col
        tail = None
        if any(tails):
            conds = []
            if tails[0]:
                x = T.v("q")
                T.e(f"{x} = arith.cmpi eq, {i}, {T.c(mo - 1)} : index")
                conds.append(x)
            if tails[1]:
                x = T.v("q")
                T.e(f"{x} = arith.cmpi eq, {j}, {T.c(no - 1)} : index")
                conds.append(x)
            tail = conds[0]
            if len(conds) == 2:
                tail = T.v("q")
                T.e(f"{tail} = arith.ori {conds[0]}, {conds[1]} : i1")

        def branched(result_type: str, body) -> str:
            if tail is None:
                return body(True)
            r = T.v("y")
            T.e(f"{r} = scf.if {tail} -> ({result_type}) {{")
            T.ind += 1
            T.e(f"scf.yield {body(False)} : {result_type}")
            T.ind -= 1
            T.e("} else {")
            T.ind += 1
            T.e(f"scf.yield {body(True)} : {result_type}")
            T.ind -= 1
            T.e("}")
            return r

        if first and fill is not None:
            acc0 = acc_init
        elif swap:  # C's partial sums are added after the transpose
            acc0 = zero_tile
        elif first and c is not None and c != d:
            acc0 = branched(VT, lambda inb: tile_read(c, str(C.type), [row, col], (MR, NR), None, [inb, inb]))
        else:
            acc0 = branched(VT, lambda inb: tile_read(t4, ctype, [lrow, lcol], (MR, NR), None, [inb, inb]))
        prows = []
        if pbcast:  # the P rows the tile broadcasts from (clamped in the tail tile)
            for r_ in range(MR):
                x_ = T.bin("addi", row, T.c(r_)) if r_ else row
                prows.append(T.bin("minui", x_, T.c(m - 1)) if tails[0] else x_)

        def kstep(kk: str, kt: int, av: str) -> str:
            """av + the products of k [kk, kk + kt) (an operand not packed is
            read in place)."""
            if pbcast:  # scalars of P: the contract's broadcasts load them
                els = []
                for q in range(kt):
                    kq = T.bin("addi", kk, T.c(q)) if q else kk
                    for pr in prows:
                        x_ = T.v("as")
                        T.e(f"{x_} = tensor.extract {a}[{pr}, {kq}] : {TA}")
                        els.append(x_)
                va = T.v("va")
                T.e(f"{va} = vector.from_elements {', '.join(els)} : {_vt((kt, MR))}")
            else:
                va = tile_read(pa, PA, [i, kk, T.c(0)], (kt, MR), None, [True, True]) if pa else \
                    tile_read(a, TA, [kk, row], (kt, MR), None, [True, True])
            vb = tile_read(pb, PB, [j, kk, T.c(0)], (kt, NR), None, [True, True]) if pb else \
                tile_read(b, TB, [kk, col], (kt, NR), None, [True, True])
            r = T.v("mac")
            T.e(f"{r} = vector.contract {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, "
                f"affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], "
                f"iterator_types = [\"parallel\", \"parallel\", \"reduction\"], kind = #vector.kind<add>}} "
                f"{va}, {vb}, {av} : {_vt((kt, MR))}, {_vt((kt, NR))} into {VT}")
            return r

        def kloop() -> str:
            """The k loop of the tile: steps of kt, then one of the rest."""
            kk, av, acc = T.v("kk"), T.v("a"), T.v("acc")
            main = klen - klen % kt
            ke = T.bin("addi", kb, T.c(main))
            T.e(f"{acc} = scf.for {kk} = {kb} to {ke} step {T.c(kt)} iter_args({av} = {acc0}) -> ({VT}) {{")
            T.ind += 1
            T.end_loop(kstep(kk, kt, av), VT)
            return kstep(ke, klen % kt, acc) if klen % kt else acc
        acc = kloop()

        def store(inb: bool) -> str:
            if not swap:
                out = epilogue(acc, row, col, inb, (MR, NR)) if lastk and chain else acc
                w = T.v("w")
                T.e(f"{w} = vector.transfer_write {out}, {t4}[{lrow}, {lcol}] "
                    f"{{in_bounds = [{str(inb).lower()}, {str(inb).lower()}]}} : {VT}, {ctype}")
                return w
            # swapped: the tile is C^T; C's rows are its columns, stored as
            # the transpose's pieces of G rows
            G = 16 // MR
            PT, V16 = _vt((G, MR)), _vt((16,))
            cur_t = t4
            for off, out in pieces:
                coff_ = T.bin("addi", col, T.c(off)) if off else col
                lcoff_ = T.bin("addi", lcol, T.c(off)) if off else lcol
                if not (first and fill is not None):
                    src, st, at = (c, str(C.type), [coff_, row]) if first and c is not None and c != d \
                        else (cur_t, ctype, [lcoff_, lrow])
                    prev = tile_read(src, st, at, (G, MR), None, [inb, inb])
                    pf, x_ = T.v("fl"), T.v("x")
                    T.e(f"{pf} = vector.shape_cast {prev} : {PT} to {V16}")
                    T.e(f"{x_} = arith.addf {out}, {pf} : {V16}")
                    out = x_
                if lastk and chain:
                    out = epilogue(out, coff_, row, inb, (G, MR), flat=True)
                sc = T.v("tp")
                T.e(f"{sc} = vector.shape_cast {out} : {V16} to {PT}")
                out = sc
                w = T.v("w")
                T.e(f"{w} = vector.transfer_write {out}, {cur_t}[{lcoff_}, {lrow}] "
                    f"{{in_bounds = [{str(inb).lower()}, {str(inb).lower()}]}} : {PT}, {ctype}")
                cur_t = w
            return cur_t
        pieces = transpose_pieces(acc) if swap else None
        w = branched(ctype, store)
        T.end_loop(w, ctype)
        T.end_loop(rj, ctype)
        return ri

    def blocks(cur: str, ctype: str, i_lo: int | str, i_n: int, j_lo: int | str, j_n: int, bm: int, bn: int,
               roff, coff, clip: tuple[bool, bool] = (False, False)) -> str:
        """Cache blocks over packs [i_lo, i_lo+i_n) x [j_lo, j_lo+j_n) (the
        last ones shorter when bm / bn do not divide i_n / j_n; clip: the
        range may pass the last pack, mo / no, and stops there)."""
        ib, jb, t0, t1 = T.v("ib"), T.v("jb"), T.v("t"), T.v("t")
        i_lo = T.c(i_lo) if isinstance(i_lo, int) else i_lo
        j_lo = T.c(j_lo) if isinstance(j_lo, int) else j_lo
        r_ib, r_jb = T.v("rb"), T.v("rb")
        i_hi, j_hi = T.bin('addi', i_lo, T.c(i_n)), T.bin('addi', j_lo, T.c(j_n))
        i_hi = T.bin("minsi", i_hi, T.c(mo)) if clip[0] else i_hi
        j_hi = T.bin("minsi", j_hi, T.c(no)) if clip[1] else j_hi
        T.e(f"{r_ib} = scf.for {ib} = {i_lo} to {i_hi} step {T.c(bm)} "
            f"iter_args({t0} = {cur}) -> ({ctype}) {{")
        T.ind += 1
        T.e(f"{r_jb} = scf.for {jb} = {j_lo} to {j_hi} step {T.c(bn)} "
            f"iter_args({t1} = {t0}) -> ({ctype}) {{")
        T.ind += 1
        ends = (i_hi if i_n % bm or clip[0] else None, j_hi if j_n % bn or clip[1] else None)
        x = tiles(T.c(0), tk if nkb > 1 else tl, True, nkb == 1, t1, ctype, ib, jb, bm, bn, roff, coff, *ends)
        if nkb > 2:
            kb, t2, rk = T.v("kb"), T.v("t"), T.v("rk")
            T.e(f"{rk} = scf.for {kb} = {T.c(tk)} to {T.c((nkb - 1) * tk)} step {T.c(tk)} "
                f"iter_args({t2} = {x}) -> ({ctype}) {{")
            T.ind += 1
            y = tiles(kb, tk, False, False, t2, ctype, ib, jb, bm, bn, roff, coff, *ends)
            T.end_loop(y, ctype)
            x = rk
        if nkb > 1:
            x = tiles(T.c((nkb - 1) * tk), tl, False, True, x, ctype, ib, jb, bm, bn, roff, coff, *ends)
        T.end_loop(x, ctype)
        T.end_loop(r_jb, ctype)
        return r_ib

    if split is None:
        # whole cache blocks of TM x TN packs, the last ones short: a divisor
        # of 125 row panels (m = 1000) would be 5
        res = blocks(d, TD, 0, mo, 0, no, min(TM, mo), min(TN, no), None, None)
    else:
        dim, chunk = split
        ntask = -(-(mo if dim == 0 else no) // chunk)
        ragged = (mo if dim == 0 else no) % chunk != 0
        R = MR if dim == 0 else NR
        full = m if dim == 0 else n
        cdim = 1 - dim if swap else dim  # the dim of C that is split
        res, tv, o = T.v("fa"), T.v("task"), T.v("o")
        T.e(f"{res} = scf.forall ({tv}) in ({ntask}) shared_outs({o} = {d}) -> ({TD}) {{")
        T.ind += 1
        off = T.bin("muli", tv, T.c(chunk))
        eoff = T.bin("muli", off, T.c(R))
        if full % (chunk * R) == 0:
            size, ssize = str(chunk * R), chunk * R
        else:
            size = T.v("sz")
            T.e(f"{size} = affine.min affine_map<(d0) -> ({chunk * R}, {full} - d0)>({eoff})")
            ssize = "?"
        shape = (ssize, cn) if cdim == 0 else (cm, ssize)
        ST = "tensor<" + "".join(f"{x}x" for x in shape) + "f32>"
        offs = f"[{eoff}, 0]" if cdim == 0 else f"[0, {eoff}]"
        sizes = f"[{size}, {cn}]" if cdim == 0 else f"[{cm}, {size}]"
        sl = T.v("sl")
        T.e(f"{sl} = tensor.extract_slice {o}{offs} {sizes} [1, 1] : {TD} to {ST}")
        if dim == 0:
            r = blocks(sl, ST, off, chunk, 0, no, min(TM, chunk), min(TN, no), eoff, None, (ragged, False))
        else:
            r = blocks(sl, ST, 0, mo, off, chunk, min(TM, mo), min(TN, chunk), None, eoff, (False, ragged))
        T.e("scf.forall.in_parallel {")
        T.e(f"  tensor.parallel_insert_slice {r} into {o}{offs} {sizes} [1, 1] : {ST} into {TD}")
        T.e("}")
        T.ind -= 1
        T.e("}")
    T.e(f"return {res} : {TD}")
    sig = ", ".join(f"{name}: {v.type}" for name, v in args)
    text = (f"func.func @__msmlir_direct_mm({sig}) -> {TD} {{\n" + "\n".join(T.head) + "\n"
            + "\n".join(T.lines) + "\n}\n")
    if _os.environ.get("MSMLIR_MM_DUMP"):
        print(text)
    with func.context, last.location:
        mod = ir.Module.parse(text)
    kf = mod.body.operations[0]
    body = kf.regions[0].blocks[0]
    ops = [o.operation for o in body.operations]
    ret = ops[-1]
    for o in ops[:-1]:
        o.move_before(last)
    for (name, v), ba in zip(args, body.arguments):
        ba.replace_all_uses_with(v)
    last.results[0].replace_all_uses_with(ret.operands[0])
    for g in reversed(chain):
        g.erase()
    mm.erase()
    if fill is not None and not list(fill.results[0].uses):
        fill.erase()
    return func


def pack_matmuls(func: ir.Operation, threads: int, cur: list | None = None) -> ir.Operation:
    """Applies the packed recipe to each big f32 matmul of `func`, one at a
    time; returns the function (a restored copy if a recipe failed). `cur`
    (if given) holds the function now in the module at all times."""
    cur = cur if cur is not None else [func]
    while True:
        cur[0] = func
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
        if DIRECT:
            backup_holder = ir.Module.create(loc=ir.Location.unknown(func.context))
            with ir.InsertionPoint(backup_holder.body):
                backup = func.clone()
            try:
                with func.context, ir.Location.unknown():
                    func = direct_matmul(func, op, mi, threads)
                strip_attrs(func, (TAG,))
                continue
            except Exception as e:  # noqa: BLE001 - restore, then the packed-C recipe
                with ir.InsertionPoint(func):
                    restored = backup.clone()
                func.erase()
                func = cur[0] = restored
                if _os.environ.get("MSMLIR_MM_DUMP"):
                    print("direct matmul failed:", type(e).__name__, e)
                op = mi = None
                for o in walk_ops(func, [], is_structured):
                    if SKIP_TAG in o.attributes:
                        continue
                    mi = matmul_info(o)
                    if mi is not None and mi.m * mi.n * mi.k >= MATMUL_MIN_WORK:
                        op = o
                        break
                loc = op.location
        op.attributes[TAG] = i64(0)
        s = Script()
        matmul_script(s, "%root", 0, mi, threads)
        func, error = apply_or_restore(func, s.text())
        cur[0] = func
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
            cur = [func]
            pack_matmuls(func, threads, cur)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # each recipe is applied atomically, so the function is consistent
            strip_attrs(module, (TAG, SKIP_TAG))
            emit_remark(cur[0].location, "msmlir-cpu-pack-matmul: internal error, the remaining "
                                       f"matmuls keep the generic path: {type(e).__name__}: {e}")
