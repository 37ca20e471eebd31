"""Scheduling a Scop with isl (no pass): the schedule tree, its tiling, marks.

    compute_schedule  isl's scheduler (Pluto-like): validity = all dependences,
                      proximity = flow (RAW) dependences, coincidence = all
                      dependences (a coincident band member is a parallel loop)
    tile              the outermost permutable bands with >= 2 members are tiled
                      (isl band_tile; tails become min/max in the AST), sizes
                      given or chosen by the CPU memory model below
    mark_parallel     a "parallel" mark above the outermost coincident band
                      member on each path (the band is split there if needed)

CPU memory model: the footprint of one tile (for each array: the bounding box
of the cells the tile's instances access, times the element size; inner
dims not in the band count with their whole extent) must fit in half of L1;
the largest power-of-two size (same for every member) that fits is chosen.
L1/L2 sizes come from /sys/devices/system/cpu/cpu0/cache/index*/ unless
given.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

import islpy as isl

from .dependences import Dependences
from .model import Scop

PARALLEL = "parallel"
_CANDIDATES = (256, 128, 64, 32, 16, 8, 4, 2)


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * mult


def cache_sizes() -> tuple[int, int]:
    """(L1 data, L2) bytes of cpu0, from sysfs; (32 KiB, 1 MiB) if unreadable."""
    l1, l2 = 32 * 1024, 1024 * 1024
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            level = int(open(os.path.join(d, "level")).read())
            kind = open(os.path.join(d, "type")).read().strip()
            size = _parse_size(open(os.path.join(d, "size")).read())
        except (OSError, ValueError):
            continue
        if level == 1 and kind in ("Data", "Unified"):
            l1 = size
        elif level == 2:
            l2 = size
    return l1, l2


@dataclass
class Result:
    schedule: isl.Schedule
    tile_sizes: list[list[int]] = field(default_factory=list)  # per tiled band
    l1: int = 0
    l2: int = 0


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


def footprint(scop: Scop, node: isl.ScheduleNode, sizes: list[int]) -> int:
    """Bytes accessed by the first tile of band `node` with `sizes`."""
    partial = node.band_get_partial_schedule_union_map()
    dom = node.get_domain()
    image = partial.intersect_domain(dom).range()
    sets = _sets(image)
    if len(sets) != 1:
        return 0
    img = sets[0]
    cons = []
    for m, t in enumerate(sizes):
        lo = img.dim_min_val(m)
        if not lo.is_int():
            return 0
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
    total = 0
    for s in _sets(cells):
        name = s.get_tuple_name()
        n = 1
        for d in range(s.dim(isl.dim_type.set)):
            hi, lo = s.dim_max_val(d), s.dim_min_val(d)
            if not (hi.is_int() and lo.is_int()):
                return 1 << 62
            n *= int(hi.to_python()) - int(lo.to_python()) + 1
        total += n * scop.elem_bytes.get(name, 4)
    return total


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


def choose_sizes(scop: Scop, node: isl.ScheduleNode, l1: int) -> list[int] | None:
    """The largest power of two (every member) whose tile footprint fits in
    L1/2; None when the whole band fits (no tiling needed)."""
    n = node.band_n_member()
    ext = extents(node)
    for t in _CANDIDATES:
        sizes = [t] * n
        if footprint(scop, node, sizes) <= l1 // 2:
            if ext is not None and all(e <= t for e in ext):
                return None
            return sizes
    return [_CANDIDATES[-1]] * n


def tile(scop: Scop, sched: isl.Schedule, sizes: list[int], l1: int) -> tuple[isl.Schedule, list[list[int]]]:
    """Tiles the outermost permutable bands (>= 2 members)."""
    chosen = []

    def visit(node):
        if (not _is_band(node) or node.band_n_member() < 2 or not node.band_get_permutable()
                or _has_band_ancestor(node)):
            return node
        n = node.band_n_member()
        ts = [sizes[min(m, len(sizes) - 1)] for m in range(n)] if sizes else choose_sizes(scop, node, l1)
        if ts is None or any(t <= 0 for t in ts):
            return node
        chosen.append(ts)
        mv = isl.MultiVal.zero(node.band_get_space())
        for m, t in enumerate(ts):
            mv = mv.set_val(m, isl.Val(str(t)))
        return node.band_tile(mv)
    return _Guard(visit).run(sched), chosen


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


def schedule(scop: Scop, deps: Dependences, *, tile_sizes: list[int], l1: int, l2: int) -> Result:
    sched = compute_schedule(scop, deps)
    sched, chosen = tile(scop, sched, tile_sizes, l1)
    sched = mark_parallel(sched)
    return Result(sched, chosen, l1, l2)
