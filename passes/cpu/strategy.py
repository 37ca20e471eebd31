"""msmlir-cpu-tile-vectorize: tiling + vectorization of linalg ops on tensors.

Runs before bufferization, with the transform dialect (upstream tiling,
packing and vectorization; this file only chooses the strategy per op and
writes the transform script):

* matmul (f32, `linalg.matmul` or an equivalent `linalg.generic`, either
  operand transposed): packed layout + register-tiled 4x16 micro-kernel —
  `structured.pack [4,16,0]`, B panel made contiguous along k with
  `pack_transpose`, tiled [tm,tn,tk] (cache blocks) then [1,1,kt] (the
  micro-kernel: one `vector.contract` 4x16 += (kt x 4)^T (kt x 16)), pack and
  unpack lowered to vectorized transposes. Sizes that do not divide are
  padded by the pack (zeros), so any static shape takes this path.
* every other linalg op on static tensors (elementwise, broadcasts,
  transposes, reductions along any dims): tiled to vector-sized pieces along
  the innermost loop dim (elementwise ops with identity maps are flattened
  first), reductions along the innermost dim are tiled with
  `tile_reduction_using_for` (a vector of partial sums that lives in
  registers), then vectorized.

Each op's transform runs in its own `transform.sequence failures(suppress)`:
if the vectorizer (or anything else) rejects an op, that op keeps the plain
path (convert-linalg-to-loops). A definite failure of the interpreter
restores the function as it was. Ops on i1 tensors, dynamic shapes,
convolutions and pooling keep the plain path.

With `threads` > 1 the outermost parallel loop of big ops is an
`scf.forall` (lowered after bufferization to scf.parallel and run on the
MLIR async runtime, see parallel.py).
"""
from __future__ import annotations

import os as _os

from mlir import ir

from ..registry import register_pass
from .analysis import (LoopInfo, MatmulInfo, divisor_le, host_has_avx512, is_structured,
                       keeps_named_form,
                       loop_info, matmul_info, vector_tile, walk_ops)
from .script import ANY, Script, apply_script

TAG = "msmlir.cg"
GEN_TAG = "msmlir.cg_generalize"

# Matmuls smaller than this (m*n*k) take the generic path.
MATMUL_MIN_WORK = 32 * 32 * 32

# Ops whose whole iteration space is at most this many elements are
# vectorized as one vector op (no tiling).
WHOLE_VECTOR_MAX = 512

# Top-level ops with a smaller iteration space keep the plain path (compile time).
MIN_WORK = 8192

# Work (in elements or multiply-adds) below which an op is not split across threads.
PARALLEL_MIN_WORK = 1 << 16

# With threads, also split the packing/unpacking copies into tasks (each
# parallel region costs JIT time: the async runtime lowering makes coroutines).
PARALLEL_PACKING = _os.environ.get("MSMLIR_PARALLEL_PACKING", "0") == "1"

# Micro-kernel: MR rows x NR columns of C kept in vector registers.
# AVX2 (16 ymm): 4 x 16 = 8 accumulators. AVX-512 (32 zmm): 8 x 32 = 16.
def kernel_shape() -> tuple[int, int, int, int, int]:
    """(MR, NR, tm, tn, tk): register tile and cache blocks (in packs, packs, k)."""
    env = _os.environ.get("MSMLIR_MM_KERNEL")
    if env:
        return tuple(int(x) for x in env.split(","))
    if host_has_avx512():
        return (8, 32, 16, 16, 256)
    return (4, 16, 16, 8, 256)


def _funcs(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and op.operation.regions[0].blocks:
            yield op.operation


def _i64(v: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)


def _strip_tags(op: ir.Operation) -> None:
    def strip(o):
        for key in (TAG, GEN_TAG):
            if key in o.attributes:
                del o.attributes[key]
        return False
    walk_ops(op, [], strip)


# ---------------------------------------------------------------------------------- matmul

def _k_tile(k: int) -> int:
    for c in (4, 8, 2, 6, 3, 5, 7):
        if k % c == 0:
            return c
    return 1


def matmul_script(s: Script, root: str, tag: int, mi: MatmulInfo, threads: int) -> None:
    MR, NR, TM, TN, TK = kernel_shape()
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
    par = threads > 1 and 2 * mi.m * mi.n * mi.k >= PARALLEL_MIN_WORK * 64

    def tiled(h: str, sizes: list[int], dim0: int) -> str:
        """tile_using_for; with threads, first split dim 0 into `threads` tasks."""
        if par and PARALLEL_PACKING and dim0 % threads == 0 and dim0 // threads >= max(1, sizes[0]):
            h, _ = s.tile_forall(h, [dim0 // threads] + [0] * (len(sizes) - 1))
        t, _ = s.tile(h, sizes)
        return t

    if par and (mo // tm) > 1:
        outer, fa = s.tile_forall(p, [tm, 0, 0])
        t1, _ = s.tile(outer, [0, tn, tk])
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


# ---------------------------------------------------------------------------------- generic

def _lanes(bits: int) -> int:
    return min(32, max(4, 512 // max(bits, 8)))


def _identity_elementwise(op: ir.Operation, li: LoopInfo) -> bool:
    return (all(it == "parallel" for it in li.iterators)
            and all(m.is_permutation and m == ir.AffineMap.get_identity(li.rank)
                    for m in li.maps))


def _body_has_math(op: ir.Operation) -> bool:
    if not op.regions or not op.regions[0].blocks:
        return False
    return any(o.operation.name.startswith("math.") for o in op.regions[0].blocks[0].operations)


def generic_script(s: Script, root: str, tag: int, op: ir.Operation, li: LoopInfo,
                   threads: int) -> bool:
    """Tile + vectorize one linalg op (generic or fill). False: no strategy."""
    rank = li.rank
    if rank == 0:
        return False
    h = s.match_attr(root, TAG, tag)
    lanes = _lanes(li.min_bits)
    its = li.iterators
    ranges = list(li.ranges)
    work = 1
    for r in ranges:
        work *= r
    par_ok = threads > 1 and work >= PARALLEL_MIN_WORK
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
            v = lanes
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
        if r <= 2 * lanes:
            s.vectorize(t)
            return True
        v = vector_tile(r, li.min_bits)
        if v == 0:
            if r > 4096:
                return True  # rows tiled, reduction left scalar
            s.vectorize(t)
            return True
        rsizes = [0 if it == "parallel" else 1 for it in its]
        rsizes[last] = v
        fill, part, comb, _ = s.tile_reduction(t, rsizes)
        s.vectorize(fill)
        s.vectorize(part)
        s.vectorize(comb)
        return True

    # innermost dim parallel, reductions elsewhere (e.g. column sums): vector
    # along the innermost dim, the reduction loops inside (accumulator in registers)
    v = vector_tile(ranges[last], li.min_bits)
    masked = v == 0
    if masked:
        v = lanes
    psizes = [1 if it == "parallel" else 0 for it in its]
    psizes[last] = v
    t = outer_parallel(h, psizes)
    rsizes = [1 if it == "reduction" else 0 for it in its]
    t2, _ = s.tile(t, rsizes)
    if masked:
        vs = [1] * rank
        vs[last] = v
        s.emit(f"transform.structured.vectorize {t2} vector_sizes {vs} : {ANY}")
    else:
        s.vectorize(t2)
    return True


def fill_script(s: Script, root: str, tag: int, op: ir.Operation, threads: int) -> bool:
    from .analysis import elem_bits, static_tensor
    rt = static_tensor(op.results[0].type) if op.results else None
    if rt is None or rt.rank == 0:
        return False
    bits = elem_bits(rt.element_type)
    if bits is None or bits < 8:
        return False
    shape = list(rt.shape)
    v = vector_tile(shape[-1], bits) or divisor_le(shape[-1], _lanes(bits))
    h = s.match_attr(root, TAG, tag)
    t, _ = s.tile(h, [1] * (len(shape) - 1) + [v])
    s.vectorize(t)
    return True


# ---------------------------------------------------------------------------------- the pass

_CLEANUP = ["vector.lower_masked_transfers",  # vector.mask {transfer} -> masked transfer
            "vector.transfer_permutation_patterns", "vector.cast_away_vector_leading_one_dim",
            "canonicalization", "tensor.fold_tensor_subset_ops_into_vector_transfers"]


LAST_ERROR: list[str] = []


def _run(func: ir.Operation, text: str) -> tuple[bool, ir.Operation]:
    """Applies a script to one function; on a definite failure puts back an
    untouched copy of it. Returns (success, the function now in the module)."""
    backup_holder = ir.Module.create(loc=ir.Location.unknown(func.context))
    with ir.InsertionPoint(backup_holder.body):
        backup = func.clone()
    try:
        apply_script(func, text)
        return True, func
    except (ValueError, ir.MLIRError) as e:
        LAST_ERROR[:] = [str(e)]
        with ir.InsertionPoint(func):
            restored = backup.clone()
        func.erase()
        return False, restored


def tile_vectorize_func(func: ir.Operation, threads: int = 1, matmul: bool = True,
                        others: bool = True, min_work: int = None) -> ir.Operation:
    """Returns the (possibly replaced) function."""
    if min_work is None:
        min_work = MIN_WORK
    # Phase A1: each big f32 matmul gets the packed recipe, one at a time and
    # all or nothing (a half-applied recipe would leave linalg.pack ops, which
    # neither bufferize nor lower to loops): on failure the function is
    # restored and that matmul takes the other paths.
    if matmul:
        func = _pack_matmuls(func, threads)
    # Phase A2: the other named ops are generalized.
    s = Script()
    gen = False
    for op in walk_ops(func, [], is_structured):
        if not keeps_named_form(op.name):
            op.attributes[GEN_TAG] = ir.UnitAttr.get()
            gen = True
    if gen:
        g = s.fresh("g")
        s.emit(f"{g} = transform.structured.match attributes{{{GEN_TAG}}} in %root : ({ANY}) -> {ANY}")
        s.emit(f"transform.structured.generalize {g} : ({ANY}) -> {ANY}")
        _, func = _run(func, s.text())
        _strip_tags(func)
    if not others:
        return func
    # Phase F: row fusion (softmax, layernorm, bias+activation chains...).
    func = fuse_rows(func, threads, min_work)
    # Phase B: everything else. Small top-level ops keep the plain path: their
    # scalar loops compile to much less code (LLVM's loop vectorizer still
    # sees them) and run in microseconds either way. (Ops inside the row
    # loops made by phase F are small per row but always vectorized.)
    entry = func.regions[0].blocks[0]
    ops = walk_ops(func, [], is_structured)
    s = Script()
    n = 0
    for op in ops:
        if _numel(op) < min_work and _in_block(op, entry):
            continue
        if op.name == "linalg.fill":
            planned = _plan(s, n, lambda sc, root, t: fill_script(sc, root, t, op, threads))
        else:
            li = loop_info(op)
            if li is None or op.name != "linalg.generic":
                continue
            planned = _plan(s, n, lambda sc, root, t: generic_script(sc, root, t, op, li, threads))
        if planned:
            op.attributes[TAG] = _i64(n)
            n += 1
    if n:
        s.patterns("%root", _CLEANUP)
        s.cse("%root")
        _, func = _run(func, s.text())
    _strip_tags(func)
    return func


SKIP_TAG = "msmlir.cg_no_pack"


def _pack_matmuls(func: ir.Operation, threads: int) -> ir.Operation:
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
        if mi.fill_init:
            _private_fill(op)
        op.attributes[TAG] = _i64(0)
        s = Script()
        matmul_script(s, "%root", 0, mi, threads)
        ok, func = _run(func, s.text())
        if not ok:
            # restored: find the op again and mark it
            for o in walk_ops(func, [], is_structured):
                if TAG in o.attributes:
                    o.attributes[SKIP_TAG] = ir.UnitAttr.get()
        _strip_tags(func)
    def unskip(o):
        if SKIP_TAG in o.attributes:
            del o.attributes[SKIP_TAG]
        return False
    walk_ops(func, [], unskip)
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


# ---------------------------------------------------------------------------------- fusion

def _dims_prefix(m: ir.AffineMap, r: int) -> bool:
    res = list(m.results)
    if len(res) < r:
        return False
    return all(isinstance(e, ir.AffineDimExpr) and e.position == i for i, e in enumerate(res[:r]))


def _fill_info(op: ir.Operation):
    from .analysis import static_tensor
    rt = static_tensor(op.results[0].type) if op.results else None
    return None if rt is None else list(rt.shape)


def _row_clusters(func: ir.Operation):
    """Groups of ops in the function's entry block that can be computed row by
    row: a sink (result not used by another linalg op) whose r leading loops
    are parallel, plus the producers reached through operands whose maps
    keep those r loops as the leading dims on both sides."""
    block = func.regions[0].blocks[0]
    ops = [o.operation for o in block.operations if is_structured(o.operation)]
    if len(ops) < 2:
        return []
    producer = {}
    for i, op in enumerate(ops):
        for res in op.results:
            producer[res] = i
    infos = {}
    for i, op in enumerate(ops):
        if op.name == "linalg.fill":
            shape = _fill_info(op)
            infos[i] = None if shape is None else ("fill", shape)
        elif op.name == "linalg.generic":
            li = loop_info(op)
            infos[i] = None if li is None else ("generic", li)
        else:
            infos[i] = None
    used_by_linalg = set()
    for i, op in enumerate(ops):
        for v in op.operands:
            if v in producer:
                used_by_linalg.add(producer[v])
    clusters = []
    taken = set()
    for si in reversed(range(len(ops))):
        if si in used_by_linalg or si in taken or infos[si] is None or infos[si][0] != "generic":
            continue
        li = infos[si][1]
        r = 0
        while r < li.rank - 1 and li.iterators[r] == "parallel":
            r += 1
        if r == 0:
            continue
        rows = li.ranges[:r]
        nrows = 1
        for x in rows:
            nrows *= x
        if nrows < 2:
            continue
        members = [si]
        frontier = [si]
        while frontier:
            ci = frontier.pop()
            kind, cinfo = infos[ci]
            c = ops[ci]
            if kind == "fill":
                continue  # its operand is a scalar
            for v, m in zip(c.operands, cinfo.maps):
                pi = producer.get(v)
                if pi is None or pi in members or infos[pi] is None:
                    continue
                if not _dims_prefix(m, r):
                    continue
                pkind, pinfo = infos[pi]
                if pkind == "fill":
                    if len(pinfo) < r or pinfo[:r] != rows:
                        continue
                else:
                    if pinfo.rank < r or pinfo.ranges[:r] != rows or \
                            any(it != "parallel" for it in pinfo.iterators[:r]):
                        continue
                    res_idx = list(ops[pi].results).index(v)
                    if not _dims_prefix(pinfo.maps[pinfo.n_inputs + res_idx], r):
                        continue
                members.append(pi)
                frontier.append(pi)
        members = _closed_cluster(ops, si, members, producer, infos)
        if len(members) > 1:
            # consumers before producers (program order reversed)
            members = sorted(set(members), reverse=True)
            taken.update(members)
            clusters.append((r, [ops[i] for i in members]))
    return clusters


def _closed_cluster(ops, si, members, producer, infos):
    """Drops producers with a use outside the cluster (fuse_into_containing_op
    only handles those for scf.forall, and recomputing them would not remove
    the original anyway), then whatever is no longer reachable from the sink."""
    members = set(members)
    while True:
        member_ops = [ops[i] for i in members]
        bad = set()
        for i in members:
            if i == si:
                continue
            for res in ops[i].results:
                for use in res.uses:
                    owner = use.owner
                    owner = owner.operation if hasattr(owner, "operation") else owner
                    if not any(owner == m for m in member_ops):
                        bad.add(i)
        if not bad:
            break
        members -= bad
        # keep only producers still reachable from the sink through members
        reach, stack = {si}, [si]
        while stack:
            c = stack.pop()
            for v in ops[c].operands:
                pi = producer.get(v)
                if pi is not None and pi in members and pi not in reach:
                    reach.add(pi)
                    stack.append(pi)
        members = reach
    return sorted(members)


def _numel(op: ir.Operation) -> int:
    """Iteration-space size of a linalg op (for fills: result elements)."""
    if op.name == "linalg.fill":
        shape = _fill_info(op)
        ranges = shape if shape is not None else []
    else:
        li = loop_info(op)
        ranges = li.ranges if li is not None else []
    if not ranges and op.name != "linalg.fill":
        return 1 << 62  # unknown: let the strategy decide
    n = 1
    for r in ranges:
        n *= r
    return n


def _in_block(op: ir.Operation, block: ir.Block) -> bool:
    """Whether op is directly in `block` (not nested in a loop or region op)."""
    parent = op.parent
    return parent is not None and parent == block.owner


def fuse_rows(func: ir.Operation, threads: int, min_work: int = 0) -> ir.Operation:
    clusters = [(r, m) for r, m in _row_clusters(func) if _numel(m[0]) >= min_work]
    if not clusters:
        return func
    s = Script()
    n = 0
    for r, members in clusters:
        seq = s.begin_suppressed("%root")
        sink = members[0]
        tags = []
        for op in members:
            op.attributes[TAG] = _i64(n)
            tags.append(n)
            n += 1
        h = s.match_attr(seq, TAG, tags[0])
        li = loop_info(sink)
        producers = [s.match_attr(seq, TAG, t) for t in tags[1:]]
        work = 1
        for x in li.ranges:
            work *= x
        rows0 = li.ranges[0]
        if threads > 1 and work >= PARALLEL_MIN_WORK and rows0 % threads == 0 and rows0 >= threads:
            # one task per thread over the first row dim, then rows inside each task
            fa_sizes = [rows0 // threads] + [0] * (li.rank - 1)
            h, fa = s.tile_forall(h, fa_sizes)
            producers = _fuse_all(s, producers, fa)
        sizes = [1] * r + [0] * (li.rank - r)
        _, loops = s.tile(h, sizes)
        _fuse_all(s, producers, loops[-1])
        s.end_sequence()
    _, func = _run(func, s.text())
    _strip_tags(func)
    return func


def _fuse_all(s: Script, producers: list[str], loop: str) -> list[str]:
    """fuse_into_containing_op for each producer (consumers first); returns
    the handles of the fused copies."""
    fused_ops = []
    for p in producers:
        fused, nl = s.fresh("fu"), s.fresh("fl")
        s.emit(f"{fused}, {nl} = transform.structured.fuse_into_containing_op {p} into {loop} "
               f": ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        loop = nl
        fused_ops.append(fused)
    return fused_ops


def _plan(s: Script, tag: int, build) -> bool:
    mark = len(s.lines), s._n
    seq = s.begin_suppressed("%root")
    try:
        ok = build(s, seq, tag)
    except Exception as e:  # a planning bug must not break compilation: plain path
        LAST_ERROR[:] = [f"planning failed: {type(e).__name__}: {e}"]
        ok = False
    if not ok:
        del s.lines[mark[0]:]
        return False
    s.end_sequence()
    return True


@register_pass("msmlir-cpu-tile-vectorize",
               "Tile and vectorize linalg ops on tensors for the CPU (packed matmul micro-kernel, "
               "vectorized elementwise ops and reductions); ops without a strategy keep the plain path",
               options={"threads": (int, 1, "split the outermost parallel loop of big ops into "
                                             "this many scf.forall tasks (1: serial)"),
                        "matmul": (bool, True, "use the packed matmul recipe"),
                        "others": (bool, True, "vectorize the other linalg ops"),
                        "min-work": (int, MIN_WORK, "top-level ops with a smaller iteration "
                                                    "space keep the plain path")})
def tile_vectorize(module: ir.Operation, threads: int = 1, matmul: bool = True,
                   others: bool = True, **opts):
    min_work = opts.get("min-work", MIN_WORK)
    for func in list(_funcs(module)):
        try:
            tile_vectorize_func(func, threads=threads, matmul=matmul, others=others,
                                min_work=min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # every phase applies its transform script atomically (_run), so the
            # function is consistent, just less optimized
            LAST_ERROR[:] = [f"{type(e).__name__}: {e}"]
