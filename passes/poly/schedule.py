"""Scheduling a Scop with isl (no pass): the schedule tree, its tiling, marks.

    compute_schedule  isl's scheduler (Pluto-like): validity = all dependences,
                      proximity = flow (RAW) dependences, coincidence = all
                      dependences (a coincident band member is a parallel loop)
    tile              the outermost permutable bands with >= 2 members are tiled
                      at each level of the target's memory model (isl
                      band_tile, then the point band tiled again; tails become
                      min/max in the AST), sizes given or solved by `plan`;
                      on the cpu the band is first permuted so that its most
                      contiguous member is innermost (innermost_contiguous),
                      and it is only tiled when it loses reuse (reuse_lost:
                      an elementwise nest or a column sum whose rows fit in
                      L1 is not: tiles would cut its streams)
    separate          cpu: bands over several statements generate separate
                      loops where the set of statements changes (no guards
                      in the innermost loop)
    isolate_full_tiles  cpu: the full tiles of each innermost tile band
                      (<= 2 members) generated apart from the
                      partial ones (isl's isolate option): constant point
                      loops, so the reductions of tile tails get vector code
    split_tasks       cpu, threads > 1: the outermost band's first coincident
                      member strip-mined into `threads` chunks, the chunk loop
                      a band of its own above the band with a "tasks" mark
                      (codegen: affine.parallel -> scf.parallel -> OpenMP);
                      only for nests of at least PARALLEL_MIN_WORK instances
                      (PARALLEL_MIN_WORK_REDUCTION with a reduction): the hand
                      strategies' break-evens (passes/common/linalg.py)
    mark_parallel     a "parallel" mark above the outermost coincident band
                      member on each path (the band is split there if needed)

Marks left in the tree for codegen: "band:<level>" above each tile band (its
iterations are tiles sized for memory level <level>) and "band:point" above
the innermost point band; for gpu, "blocks" above each coincident member of
the tile band and "threads" above each coincident member of the point band.

Tile sizes (targets.py has the figures): the footprint of one tile (for each
array: the bounding box of the cells the first tile's instances access, times
the element size) must fit the level; the largest power of two (the same for
every member, clamped by the members' constraints below) that fits is chosen.
  cpu     two levels: L2 tiles (footprint <= L2/2) around L1 tiles (<= L1/2);
          the innermost member is at least one vector (vector bytes / element
          size) when that still fits. One level when the L2 tile would not be
          larger than the L1 tile or the whole band fits in L2. A size that
          does not divide its extent moves to a nearby multiple of 8 that
          does, if any (`divisible`: 1000 -> tiles of 40 and 200, no
          partial tiles left scalar).
  gpu     one level: the tile's footprint <= shared memory per block, the
          product of the coincident (thread) members <= threads per block.
  gpu and ascend bands are tiled even when they fit whole (one tile): their
  compute units read the promoted buffers only.
  ascend  matmul-like (cube) bands: L1 tiles (A + B tiles <= L1/2) around L0
          tiles (A <= L0A, B <= L0B, accumulator <= L0C); other bands one UB
          level (footprint <= UB/2, double buffering). The innermost member's
          size times the element size is a multiple of 32 bytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import islpy as isl
from mlir import ir

from ..common.linalg import PARALLEL_MIN_WORK, PARALLEL_MIN_WORK_REDUCTION
from . import targets
from .dependences import Dependences
from .model import Scop

PARALLEL = "parallel"
BAND = "band:"        # + level name, or "point"
POINT = "point"
BLOCKS, THREADS = "blocks", "threads"
TASKS = "tasks"       # cpu: the loop over one chunk per thread
_CANDIDATES = (256, 128, 64, 32, 16, 8, 4, 2)


def cache_sizes() -> tuple[int, int]:
    """(L1 data, L2) bytes of cpu0, from sysfs (see targets.host_caches)."""
    l1, l2, _ = targets.host_caches()
    return l1, l2


@dataclass
class Result:
    schedule: isl.Schedule
    # per tiled band, outermost level first: [(level, sizes), ...]
    tile_sizes: list[list[tuple[str, list[int]]]] = field(default_factory=list)
    target: object = None


def compute_schedule(scop: Scop, deps: Dependences) -> isl.Schedule:
    validity = deps.all
    sc = isl.ScheduleConstraints.on_domain(scop.domain())
    sc = sc.set_validity(validity).set_proximity(deps.raw).set_coincidence(validity)
    return sc.compute_schedule()


def _is_band(node: isl.ScheduleNode) -> bool:
    return node.get_type() == isl.schedule_node_type.band


def _has_band_ancestor(node: isl.ScheduleNode) -> bool:
    n = node
    while n.has_parent():
        n = n.parent()
        if _is_band(n):
            return True
    return False


def _sets(u: isl.UnionSet) -> list[isl.Set]:
    out = []
    u.foreach_set(out.append)
    return out


class _Guard:
    """isl ignores exceptions raised in callbacks: keep the first, re-raise it."""
    def __init__(self, fn):
        self.fn, self.error = fn, None

    def __call__(self, node):
        if self.error is not None:
            return node
        try:
            return self.fn(node)
        except Exception as e:  # noqa: BLE001 - re-raised by run()
            self.error = e
            return node

    def run(self, sched: isl.Schedule) -> isl.Schedule:
        out = sched.get_root().map_descendant_bottom_up(self).get_schedule()
        if self.error is not None:
            raise self.error
        return out


def footprints(scop: Scop, node: isl.ScheduleNode, sizes: list[int],
               line: int = 0) -> dict[str, int] | None:
    """{array: bytes} accessed by the first tile of band `node` with `sizes`
    (None: not computable; an unbounded array counts 1 << 62). `line`: count
    whole cache lines of this many bytes along the last index (a column of
    n cells is n lines)."""
    partial = node.band_get_partial_schedule_union_map()
    dom = node.get_domain()
    image = partial.intersect_domain(dom).range()
    sets = _sets(image)
    if len(sets) != 1:
        return None
    img = sets[0]
    cons = []
    for m, t in enumerate(sizes):
        lo = img.dim_min_val(m)
        if not lo.is_int():
            return None
        lo = int(lo.to_python())
        cons.append(f"{lo} <= b{m} < {lo + t}")
    box = isl.Set(f"{{ [{', '.join(f'b{m}' for m in range(len(sizes)))}] : {' and '.join(cons)} }}")
    box = box.set_tuple_id(img.get_tuple_id()) if img.has_tuple_id() else box
    inst = partial.intersect_range(isl.UnionSet.from_set(box)).domain().intersect(dom)
    prefix = node.get_prefix_schedule_union_map()
    if not prefix.range().is_empty():
        try:
            first = prefix.intersect_domain(inst).range().lexmin()
            inst = prefix.intersect_range(first).domain().intersect(inst)
        except isl.Error:
            pass
    cells = scop.reads().union(scop.writes()).intersect_domain(inst).range()
    out = {}
    for s in _sets(cells):
        name = s.get_tuple_name()
        n = 1
        for d in range(s.dim(isl.dim_type.set)):
            hi, lo = s.dim_max_val(d), s.dim_min_val(d)
            if not (hi.is_int() and lo.is_int()):
                n = 1 << 62
                break
            n *= int(hi.to_python()) - int(lo.to_python()) + 1
        eb = scop.elem_bytes.get(name, 4)
        if line and n < 1 << 62 and s.dim(isl.dim_type.set):
            d = s.dim(isl.dim_type.set) - 1
            last = int(s.dim_max_val(d).to_python()) - int(s.dim_min_val(d).to_python()) + 1
            out[name] = n // last * -(-last * eb // line) * line
        else:
            out[name] = n * eb
    return out


def footprint(scop: Scop, node: isl.ScheduleNode, sizes: list[int]) -> int:
    """Bytes accessed by the first tile of band `node` with `sizes` (0: unknown)."""
    fp = footprints(scop, node, sizes)
    return sum(fp.values()) if fp else 0


def extents(node: isl.ScheduleNode) -> list[int] | None:
    """Per band member: the number of values it takes (None: not constant)."""
    image = node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain()).range()
    sets = _sets(image)
    if len(sets) != 1:
        return None
    out = []
    for m in range(node.band_n_member()):
        hi, lo = sets[0].dim_max_val(m), sets[0].dim_min_val(m)
        if not (hi.is_int() and lo.is_int()):
            return None
        out.append(int(hi.to_python()) - int(lo.to_python()) + 1)
    return out


def _value_op(v):
    return v.owner.operation if isinstance(v, ir.OpResult) else None


def cube_operands(ops) -> tuple | None:
    """(A, B, C) memrefs of a matmul-like statement `C[..] = C[..] + A[..] * B[..]`
    (add/mul float or integer, the C load at the store's indices), else None."""
    for o in ops:
        if o.name != "affine.store":
            continue
        store_ops = list(o.operands)
        add = _value_op(store_ops[0])
        if add is None or add.name not in ("arith.addf", "arith.addi"):
            continue
        x, y = (_value_op(v) for v in add.operands)
        for acc, mul in ((x, y), (y, x)):
            if acc is None or mul is None or acc.name != "affine.load" \
                    or mul.name not in ("arith.mulf", "arith.muli"):
                continue
            if acc.operands[0] != store_ops[1] or list(acc.operands)[1:] != store_ops[2:] \
                    or str(acc.attributes["map"]) != str(o.attributes["map"]):
                continue
            a, b = (_value_op(v) for v in mul.operands)
            if a is not None and b is not None and a.name == b.name == "affine.load":
                return a.operands[0], b.operands[0], store_ops[1]
    return None


def _band_statements(scop: Scop, node: isl.ScheduleNode):
    names = [s.get_tuple_name() for s in _sets(node.get_domain())]
    return [scop.statement(n) for n in names]


def _cube_arrays(scop: Scop, node: isl.ScheduleNode) -> tuple | None:
    """Array names (A, B, C) of the band's matmul-like statement, if any."""
    names = {v: k for k, v in scop.arrays.items()}
    for st in _band_statements(scop, node):
        abc = cube_operands(st.ops)
        if abc is not None:
            return tuple(names.get(v) for v in abc)
    return None


def _inner_multiple(scop: Scop, align: int) -> int:
    """Elements per `align` bytes, for the widest requirement among the arrays."""
    m = 1
    for eb in set(scop.elem_bytes.values()) or {4}:
        k = align // math.gcd(align, eb)
        m = m * k // math.gcd(m, k)
    return m


def solve(scop: Scop, node: isl.ScheduleNode, fits, *, inner_multiple: int = 1,
          inner_prefer: int = 1, coincident_product: int | None = None,
          upper: list[int] | None = None, untiled: bool = True) -> list[int] | None:
    """The largest power-of-two sizes (one value for every member, then clamped:
    by `upper` (an enclosing level's sizes), by `coincident_product` (the
    product of the coincident members' sizes), the innermost member rounded up
    to `inner_multiple` and raised to `inner_prefer` when that still fits)
    whose first tile's footprints satisfy `fits({array: bytes})`. None when
    the whole band fits (no tiling at this level) and `untiled` (else the
    sizes: one tile, whose footprint still gets promoted)."""
    n = node.band_n_member()
    ext = extents(node)
    coinc = [m for m in range(n) if node.band_member_get_coincident(m)]
    last = None
    for t in _CANDIDATES:
        sizes = [t] * n
        if upper is not None:
            sizes = [min(s, u) for s, u in zip(sizes, upper)]
        if coincident_product is not None and coinc:
            while math.prod(sizes[m] for m in coinc) > coincident_product:
                big = max(coinc, key=lambda m: sizes[m])
                if sizes[big] == 1:
                    break
                sizes[big] //= 2
        if inner_multiple > 1 and sizes[-1] % inner_multiple:
            sizes[-1] = -(-sizes[-1] // inner_multiple) * inner_multiple
        tries = [sizes]
        if inner_prefer > sizes[-1] and (upper is None or inner_prefer <= upper[-1]):
            tries.insert(0, sizes[:-1] + [inner_prefer])
        last = sizes
        for cand in tries:
            fp = footprints(scop, node, cand)
            if fp is not None and fits(fp):
                if untiled and ext is not None and all(e <= c for e, c in zip(ext, cand)):
                    return None
                return cand
    return last


SHARED_FRACTION = 8   # reuse: consecutive iterations share >= 1/8 of one's lines
DIVIDE_BLOCK = 8      # the vector blocks of codegen's transposed tiles (vectorize.TRANSPOSE_BLOCK)


def divisible(scop: Scop, node: isl.ScheduleNode, sizes: list[int], fits,
              inner: list[int] | None = None) -> list[int]:
    """`sizes` with each member whose extent the size does not divide moved
    to a multiple of DIVIDE_BLOCK (and of `inner`'s size, an inner level's)
    in (size/2, 5/4 size] that divides it, when the footprint still `fits`.
    Why: a partial tile's point loops end at min(T, N - t), which codegen
    leaves scalar (a 1000^2 transpose's last 8 rows read columns one float
    at a time: ~15% of its time); 1000 = 25 x 40 has no partial tile."""
    ext = extents(node)
    if ext is None:
        return sizes
    out = list(sizes)
    for m, (e, t) in enumerate(zip(ext, sizes)):
        if e % t == 0 or e <= t:
            continue
        step = DIVIDE_BLOCK if inner is None else inner[m] * DIVIDE_BLOCK // math.gcd(inner[m], DIVIDE_BLOCK)
        for d in sorted(range(step, t * 5 // 4 + 1, step), key=lambda d: abs(d - t)):
            if d > t // 2 and e % d == 0:
                cand = out[:m] + [d] + out[m + 1:]
                fp = footprints(scop, node, cand)
                if fp is not None and fits(fp):
                    out = cand
                    break
    return out


def reuse_lost(scop: Scop, node: isl.ScheduleNode, budget: int, line: int = 64) -> bool:
    """Whether the untiled band `node` loses reuse from a cache of `budget`
    bytes: for some member m but the innermost, two consecutive iterations of
    m (the inner members whole) share at least 1/SHARED_FRACTION of one
    iteration's cache lines (reuse carried by m), and one iteration touches
    more than `budget` (the reuse is evicted before it comes). An
    elementwise nest (no reuse) or a row / column reduction whose rows fit
    in L1 does not: tiling it only cuts its streams into short pieces
    (measured: a 1024x1024 add in 32x32 tiles 3x slower); nor does a row
    sum over long rows (consecutive rows share one output line: tiles would
    cut each row into 16-element vector reductions).
    True when the extents are not constant."""
    ext = extents(node)
    if ext is None:
        return True
    n = len(ext)
    for m in range(n - 1):
        if ext[m] < 2:
            continue
        one = footprints(scop, node, [1] * m + [1] + ext[m + 1:], line)
        two = footprints(scop, node, [1] * m + [2] + ext[m + 1:], line)
        if one is None or two is None:
            return True
        f1, f2 = sum(one.values()), sum(two.values())
        if (2 * f1 - f2) * SHARED_FRACTION >= f1 and f1 > budget:
            return True
    return False


def _stride(r: isl.Map, m: int, n: int) -> list[int] | None:
    """The index step of access `r` ([band] -> cell) when band member `m`
    steps by one (the others fixed): [] when the access does not move (or no
    instance has a next one), None when it is not one constant step."""
    b = [f"b{k}" for k in range(n)]
    nxt = [f"b{k} + 1" if k == m else f"b{k}" for k in range(n)]
    step = isl.Map(f"{{ [{', '.join(b)}] -> [{', '.join(nxt)}] }}")
    d = r.reverse().apply_range(step).apply_range(r).deltas()
    if d.is_empty():
        return []
    if not d.is_singleton():
        return None
    p = d.sample_point()
    v = [int(p.get_coordinate_val(isl.dim_type.set, k).to_python())
         for k in range(d.dim(isl.dim_type.set))]
    return [] if not any(v) else v


def _strided_accesses(scop: Scop, node: isl.ScheduleNode, m: int) -> int:
    """How many accesses of the band's statements are neither invariant nor
    contiguous (last index +-1, the others fixed) along member `m`."""
    n = node.band_n_member()
    part = node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain())
    bad = 0
    for acc in _sets_maps(scop.reads().union(scop.writes()).intersect_domain(node.get_domain())):
        sched = part.intersect_domain(isl.UnionSet.from_set(acc.domain()))
        maps = _sets_maps(sched)
        if len(maps) != 1:
            bad += 1
            continue
        r = maps[0].reverse().apply_range(acc)
        v = _stride(r, m, n)
        if v is None or (v and (abs(v[-1]) != 1 or any(v[:-1]))):
            bad += 1
    return bad


def _sets_maps(u: isl.UnionMap) -> list[isl.Map]:
    out = []
    u.foreach_map(out.append)
    return out


def innermost_contiguous(scop: Scop, node: isl.ScheduleNode) -> isl.ScheduleNode:
    """Permutable band `node` with the member along which the fewest accesses
    are strided moved innermost (ties: the innermost stays). Why: isl's
    scheduler puts coincident (parallel) members outermost, so a column
    reduction `y[j] += x[i, j]` comes out as j outer, i inner: a strided
    scalar loop LLVM cannot vectorize (4096x1024: 3.8 ms, against 0.56 ms in
    the i, j order). Any order of a permutable band is legal."""
    n = node.band_n_member()
    cost = [_strided_accesses(scop, node, m) for m in range(n)]
    best = min(range(n), key=lambda m: (cost[m], m != n - 1))
    if best == n - 1 or cost[best] >= cost[-1]:
        return node
    order = [m for m in range(n) if m != best] + [best]
    coinc = [node.band_member_get_coincident(m) for m in order]
    b = [f"b{k}" for k in range(n)]
    perm = isl.Map(f"{{ [{', '.join(b)}] -> [{', '.join(b[m] for m in order)}] }}")
    umap = node.band_get_partial_schedule_union_map().apply_range(isl.UnionMap.from_map(perm))
    mupa = isl.MultiUnionPwAff.from_union_map(umap)
    node = node.delete().insert_partial_schedule(mupa).band_set_permutable(1)
    for m, c in enumerate(coinc):
        node = node.band_member_set_coincident(m, c)
    return node


def plan(scop: Scop, node: isl.ScheduleNode, target) -> list[tuple[str, list[int]]]:
    """[(level, sizes)], outermost level first, for permutable band `node`."""
    if isinstance(target, targets.CPU):
        if not reuse_lost(scop, node, target.l1 // 2):
            return []
        eb = min(scop.elem_bytes.values() or [4])
        lanes = max(1, target.vector_bytes // eb)
        fits1 = lambda fp: sum(fp.values()) <= target.l1 // 2   # noqa: E731
        fits2 = lambda fp: sum(fp.values()) <= target.l2 // 2   # noqa: E731
        l1 = solve(scop, node, fits1, inner_prefer=lanes)
        if l1 is None:
            return []
        l1 = divisible(scop, node, l1, fits1)
        l2 = solve(scop, node, fits2, inner_prefer=lanes)
        if l2 is None or all(a <= b for a, b in zip(l2, l1)):
            return [("l1", l1)]
        l2 = divisible(scop, node, [max(a, b) for a, b in zip(l2, l1)], fits2, inner=l1)
        return [("l2", l2), ("l1", l1)]
    if isinstance(target, targets.GPU):
        sh = solve(scop, node, lambda fp: sum(fp.values()) <= target.shared,
                   coincident_product=target.max_threads, untiled=False)
        return [("shared", sh)] if sh is not None else []
    if isinstance(target, targets.Ascend):
        mult = _inner_multiple(scop, target.align)
        abc = _cube_arrays(scop, node)
        if abc is None:
            ub = solve(scop, node, lambda fp: sum(fp.values()) <= target.ub // 2, inner_multiple=mult,
                       untiled=False)
            return [("ub", ub)] if ub is not None else []
        a, b, c = abc

        def l0_fits(fp):
            return (fp.get(a, 0) <= target.l0a and fp.get(b, 0) <= target.l0b
                    and fp.get(c, 0) <= target.l0c)
        l0 = solve(scop, node, l0_fits, inner_multiple=mult, untiled=False)
        if l0 is None:
            return []
        l1 = solve(scop, node, lambda fp: fp.get(a, 0) + fp.get(b, 0) <= target.l1 // 2,
                   inner_multiple=mult)
        if l1 is None or all(x <= y for x, y in zip(l1, l0)):
            return [("l0", l0)]
        return [("l1", [max(x, y) for x, y in zip(l1, l0)]), ("l0", l0)]
    raise ValueError(f"no tiling plan for target {target}")


def given_level(scop: Scop, node: isl.ScheduleNode, target) -> str:
    """The level explicitly given tile sizes are for (the innermost one)."""
    if target.name == "ascend" and _cube_arrays(scop, node) is not None:
        return "l0"
    return {"cpu": "l1", "gpu": "shared", "ascend": "ub"}[target.name]


def _mv(node: isl.ScheduleNode, sizes: list[int]) -> isl.MultiVal:
    mv = isl.MultiVal.zero(node.band_get_space())
    for m, t in enumerate(sizes):
        mv = mv.set_val(m, isl.Val(str(t)))
    return mv


def _mark_members(node: isl.ScheduleNode, kind: str) -> tuple[isl.ScheduleNode, int]:
    """Splits band `node` into one band per member and puts mark `kind` above
    each coincident member; returns (the last member's band, how many levels
    below `node`'s position it is)."""
    n = node.band_n_member()
    coinc = [node.band_member_get_coincident(m) for m in range(n)]
    cur, down = node, 0
    for m in range(n):
        if m < n - 1:
            cur = cur.band_split(1)
        if coinc[m]:
            cur = cur.insert_mark(isl.Id(kind)).child(0)
            down += 1
        if m < n - 1:
            cur = cur.child(0)
            down += 1
    return cur, down


def tile(scop: Scop, sched: isl.Schedule, sizes: list[int], target) -> tuple[isl.Schedule, list]:
    """Tiles the outermost permutable bands (>= 2 members) at each level."""
    chosen = []
    gpu = isinstance(target, targets.GPU)

    def visit(node):
        if (not _is_band(node) or node.band_n_member() < 2 or not node.band_get_permutable()
                or _has_band_ancestor(node)):
            return node
        if isinstance(target, targets.CPU):
            node = innermost_contiguous(scop, node)
        n = node.band_n_member()
        if sizes:
            ts = [sizes[min(m, len(sizes) - 1)] for m in range(n)]
            if isinstance(target, targets.Ascend):  # the 32-byte rule holds for given sizes too
                mult = _inner_multiple(scop, target.align)
                ts[-1] = -(-ts[-1] // mult) * mult
            levels = [(given_level(scop, node, target), ts)]
        else:
            levels = plan(scop, node, target)
        if not levels or any(t <= 0 for _, ts in levels for t in ts):
            return node
        chosen.append(levels)
        cur, down = node, 0
        for k, (level, ts) in enumerate(levels):
            if k:
                # the point band of the previous level: tile it again (point
                # loops of the outer level are shifted to start at 0)
                cur = cur.child(0)
                down += 1
            cur = cur.band_tile(_mv(cur, ts)).insert_mark(isl.Id(BAND + level)).child(0)
            down += 1
            if gpu:
                cur, d = _mark_members(cur, BLOCKS)
                down += d
        cur = cur.child(0).insert_mark(isl.Id(BAND + POINT)).child(0)
        down += 2
        if gpu:
            cur, d = _mark_members(cur, THREADS)
            down += d
        for _ in range(down):
            cur = cur.parent()
        return cur
    return _Guard(visit).run(sched), chosen


def _instances(node: isl.ScheduleNode) -> int:
    """Statement instances under `node` (each statement's bounding box)."""
    n = 0
    for s in _sets(node.get_domain()):
        k = 1
        for d in range(s.dim(isl.dim_type.set)):
            hi, lo = s.dim_max_val(d), s.dim_min_val(d)
            if not (hi.is_int() and lo.is_int()):
                return 0
            k *= max(0, int(hi.to_python()) - int(lo.to_python()) + 1)
        n += k
    return n


def _zero_distance(node: isl.ScheduleNode, deps: isl.UnionMap, m: int) -> bool:
    """Every dependence between instances under band `node` has distance 0
    on member m (checked directly rather than trusting the member's
    coincidence, which isl computes relative to the band's earlier members)."""
    dom = node.get_domain()
    d = deps.intersect_domain(dom).intersect_range(dom)
    if d.is_empty():
        return True
    part = node.band_get_partial_schedule_union_map().intersect_domain(dom)
    for s in _sets(d.apply_domain(part).apply_range(part).deltas()):
        hi, lo = s.dim_max_val(m), s.dim_min_val(m)
        if not (hi.is_int() and lo.is_int()) or int(hi.to_python()) or int(lo.to_python()):
            return False
    return True


def split_tasks(sched: isl.Schedule, deps: Dependences, threads: int, align: int = 1) -> isl.Schedule:
    """threads > 1: above the outermost band of each path whose first
    coincident member m carries enough work, a one-member band
    floor((b_m - min) / chunk), chunk = ceil(extent / threads) (rounded up to
    a multiple of `align` when m is the innermost member: vector rows stay
    whole), marked "tasks". Legal: every dependence under the band has
    distance 0 on m (_zero_distance), and the band is permutable when m is
    not its first member (strip-mining m and moving the chunk loop outermost
    is a tiling). Why m and not always the first member: a column
    sum's parallel member is its inner one (the rows outermost: its streams
    in order); splitting the columns is what the hand path does too."""
    if threads <= 1:
        return sched

    def visit(node):
        if not _is_band(node) or _has_band_ancestor(node):
            return node
        n = node.band_n_member()
        coinc = [m for m in range(n) if node.band_member_get_coincident(m)]
        if not coinc or (coinc[0] and not node.band_get_permutable()):
            return node
        m = coinc[0]
        ext = extents(node)
        if ext is None or ext[m] < 2 or not _zero_distance(node, deps.all, m):
            return node
        stmts = {s.get_tuple_name() for s in _sets(node.get_domain())}
        reduces = any(s in deps.reductions for s in stmts)
        if _instances(node) < (PARALLEL_MIN_WORK_REDUCTION if reduces else PARALLEL_MIN_WORK):
            return node
        image = _sets(node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain()).range())
        lo = int(image[0].dim_min_val(m).to_python())
        chunk = -(-ext[m] // threads)
        if m == n - 1 and align > 1:
            chunk = -(-chunk // align) * align
        b = [f"b{k}" for k in range(n)]
        split = isl.Map(f"{{ [{', '.join(b)}] -> [floor(({b[m]} - ({lo})) / {chunk})] }}")
        umap = node.band_get_partial_schedule_union_map().apply_range(isl.UnionMap.from_map(split))
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))
        node = node.band_member_set_coincident(0, 1)
        return node.insert_mark(isl.Id(TASKS))
    return _Guard(visit).run(sched)


def mark_parallel(sched: isl.Schedule) -> isl.Schedule:
    """A "parallel" mark above the outermost coincident band member of each path."""
    def coincident_above(node):
        n = node
        while n.has_parent():
            n = n.parent()
            if _is_band(n) and any(n.band_member_get_coincident(m) for m in range(n.band_n_member())):
                return True
        return False

    def visit(node):
        if not _is_band(node) or coincident_above(node):
            return node
        for m in range(node.band_n_member()):
            if node.band_member_get_coincident(m):
                if m > 0:
                    return node.band_split(m).child(0).insert_mark(isl.Id(PARALLEL)).parent()
                return node.insert_mark(isl.Id(PARALLEL))
        return node
    return _Guard(visit).run(sched)


def separate(sched: isl.Schedule) -> isl.Schedule:
    """Every member of a band over more than one statement generated as
    "separate" loops: the iterations where the set of statements changes get
    loops of their own. Why: a reduction's initialization fused into its band
    (matmul `C = 0` at k == 0) is otherwise an `affine.if` inside the
    innermost loop, in the way of LLVM's loop vectorizer (measured on a
    scheduled 256^3 matmul, i, k, j order: 6.1 ms with the guard, 5.4 ms
    separated)."""
    def visit(node):
        if not _is_band(node) or len(_sets(node.get_domain())) < 2:
            return node
        for m in range(node.band_n_member()):
            node = node.band_member_set_ast_loop_type(m, isl.ast_loop_type.separate)
        return node
    return _Guard(visit).run(sched)


def _box_constraints(s: isl.Set, first: int, sizes: list[int]) -> isl.Set:
    """`s` with 0 <= dim (first + k) < sizes[k]."""
    for k, t in enumerate(sizes):
        lo = isl.Constraint.inequality_alloc(s.get_space()).set_coefficient_val(
            isl.dim_type.set, first + k, 1)
        hi = isl.Constraint.inequality_alloc(s.get_space()).set_coefficient_val(
            isl.dim_type.set, first + k, -1).set_constant_val(t - 1)
        s = s.add_constraint(lo).add_constraint(hi)
    return s


def full_tiles(node: isl.ScheduleNode, sizes: list[int]) -> isl.Set | None:
    """The tiles of tile band `node` (whose child band holds the point loops,
    `sizes` per member, shifted to start at 0) that hold every point of the
    box: [outer schedule dims, tile dims] (None: the band's image is not one
    set)."""
    prefix = node.get_prefix_schedule_union_map()
    tiles = node.band_get_partial_schedule_union_map()
    point = node.child(0)
    while not _is_band(point):
        point = point.child(0)
    dom = node.get_domain()
    outer = prefix.flat_range_product(tiles).intersect_domain(dom)
    ot, act = _sets(outer.range()), _sets(outer.flat_range_product(
        point.band_get_partial_schedule_union_map()).range())
    if len(ot) != 1 or len(act) != 1:
        return None
    ot, act = ot[0], act[0]
    n = ot.dim(isl.dim_type.set)
    box = _box_constraints(ot.insert_dims(isl.dim_type.set, n, len(sizes)), n, sizes)
    partial = box.subtract(act).project_out(isl.dim_type.set, n, len(sizes))
    return ot.subtract(partial)


def isolate_full_tiles(sched: isl.Schedule, max_members: int = 2) -> isl.Schedule:
    """cpu: the full tiles of each innermost tile band (the band above a
    "band:point" mark) generated apart from the partial ones (isl's
    `isolate` option): the point loops of a full tile have constant bounds
    (no min), and so do those of the partial tiles along one edge (isl
    substitutes the fixed tile position). Why: vectorize.py gives a loop of
    constant trip count whole vectors and one masked step; a loop ending at
    min(T, N - t) gets a masked step per vector instead. The point sizes are read off the point band (its largest value + 1: the
    tile size, or the extent where that is smaller). Bands of at most two
    members only: a 3-d band's partial tiles come as `c0 == e || c1 == e
    || ...` conditions, one copy of the tile each (a 100^3 matmul: 54 loops
    instead of 9; `max_members` lifts the limit)."""
    def visit(node):
        if node.get_type() != isl.schedule_node_type.mark or \
                node.mark_get_id().get_name() != BAND + POINT:
            return node
        band, up = node.parent(), 1
        while not _is_band(band):
            band, up = band.parent(), up + 1
        if band.band_n_member() > max_members:
            return node
        point = node.child(0)
        ext = extents(point) if _is_band(point) else None
        lo = _sets(point.band_get_partial_schedule_union_map().intersect_domain(
            point.get_domain()).range()) if ext is not None else []
        if ext is None or len(lo) != 1 or band.band_n_member() != len(ext) or any(
                not lo[0].dim_min_val(m).is_zero() for m in range(len(ext))):
            return node
        full = full_tiles(band, ext)
        if full is None or full.is_empty():
            return node
        n = len(ext)
        n_outer = full.dim(isl.dim_type.set) - n
        iso = isl.Map.from_domain(full).move_dims(isl.dim_type.out, 0, isl.dim_type.in_,
                                                  n_outer, n).wrap().set_tuple_name("isolate")
        opts = isl.UnionSet.from_set(iso)
        node = band.band_set_ast_build_options(opts)
        for _ in range(up):
            node = node.child(0)
        return node
    return _Guard(visit).run(sched)


def schedule(scop: Scop, deps: Dependences, *, tile_sizes: list[int], target=None,
             threads: int = 1) -> Result:
    """`threads` (cpu): split_tasks' chunk count."""
    target = target if target is not None else targets.make("cpu")
    sched = compute_schedule(scop, deps)
    sched, chosen = tile(scop, sched, tile_sizes, target)
    if isinstance(target, targets.CPU):
        eb = min(scop.elem_bytes.values() or [4])
        sched = split_tasks(sched, deps, threads, align=max(1, target.vector_bytes // eb))
    sched = mark_parallel(sched)
    if isinstance(target, targets.CPU):
        sched = separate(sched)
        sched = isolate_full_tiles(sched)
    return Result(sched, chosen, target)
