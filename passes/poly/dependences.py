"""Dependences of a Scop, with isl's dataflow analysis (no pass).

    raw   value-based flow dependences (a read -> the last write it reads)
    waw   value-based output dependences (a write -> the next write of the cell)
    war   memory-based anti dependences (a read -> every later write of the cell)

Together they order every pair of conflicting accesses that must stay
ordered (the WAW chain is transitive; WAR is kept memory-based so a
schedule can never move a write before a read of the old value).

Accesses are taken per buffer (Scop.dep_reads/dep_writes): a write through
a view and a read through its source are a dependence.

A reduction is a statement that reads and writes the same cell with the same
access function (`C[i,j] = C[i,j] + ...`); its self-dependences are carried
only along some of its dims, the reduction dims.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from .model import Scop


@dataclass
class Dependences:
    raw: isl.UnionMap
    war: isl.UnionMap
    waw: isl.UnionMap
    reductions: dict[str, list[int]] = field(default_factory=dict)  # statement -> reduction dims

    @property
    def all(self) -> isl.UnionMap:
        return self.raw.union(self.war).union(self.waw).coalesce()


def _flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.UnionMap, must: bool) -> isl.UnionMap:
    info = isl.UnionAccessInfo.from_sink(sink)
    info = info.set_must_source(source) if must else info.set_may_source(source)
    return info.set_schedule_map(schedule).compute_flow().get_may_dependence()


def compute(scop: Scop) -> Dependences:
    # (per buffer: an access through a view and one through its source conflict)
    reads, writes, sched = scop.dep_reads(), scop.dep_writes(), scop.schedule_map()
    raw = _flow(reads, writes, sched, must=True)
    waw = _flow(writes, writes, sched, must=True)
    # source = reads, sink = writes: every earlier read of the cell a write overwrites
    war = _flow(writes, reads, sched, must=False)
    deps = Dependences(raw.coalesce(), war.coalesce(), waw.coalesce())
    deps.reductions = _reductions(scop, deps)
    return deps


def _reductions(scop: Scop, deps: Dependences) -> dict[str, list[int]]:
    out = {}
    for s in scop.statements:
        if not any(r.array == w.array and r.exprs == w.exprs for r in s.reads for w in s.writes):
            continue
        self_deps = isl.UnionMap("{ }")
        for m in (deps.raw, deps.waw):
            self_deps = self_deps.union(m)
        space = f"{{ {s.name}[{', '.join(s.iters)}] -> {s.name}[{', '.join('o' + x for x in s.iters)}] }}"
        self_deps = self_deps.intersect(isl.UnionMap(space))
        if self_deps.is_empty():
            continue
        delta = self_deps.deltas()
        dims = []
        for d in range(len(s.ivs)):
            fixed = isl.UnionSet(f"{{ {s.name}[{', '.join(s.iters)}] : {s.iters[d]} = 0 }}")
            if not delta.is_subset(fixed):
                dims.append(d)
        if dims and len(dims) < len(s.ivs):
            out[s.name] = dims
    return out


def carried(deps: isl.UnionMap, stmt: str, n: int) -> list[int]:
    """The dims of statement `stmt` (n iterators) along which `deps` has a
    non-zero distance (for diagnostics and tests)."""
    iters = [f"i{k}" for k in range(n)]
    own = deps.intersect(isl.UnionMap(f"{{ {stmt}[{', '.join(iters)}] -> {stmt}[{', '.join('o' + x for x in iters)}] }}"))
    delta = own.deltas()
    return [d for d in range(n)
            if not delta.is_subset(isl.UnionSet(f"{{ {stmt}[{', '.join(iters)}] : {iters[d]} = 0 }}"))]
