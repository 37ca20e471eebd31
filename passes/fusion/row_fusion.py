"""msmlir-fuse-rows: chains of linalg ops computed row by row, in one loop.

Rewrites, on tensors before bufferization, each cluster of linalg ops in a
function's entry block that can be computed one row at a time -- a sink (a
result no other linalg op uses) whose r leading loops are parallel, plus the
producers reached through operands whose indexing maps keep those r loops as
the leading dims on both sides (fills included) -- into one `scf.for` nest
over the rows (the sink tiled by 1 along its r leading dims, the producers
fused into the loop with `transform.structured.fuse_into_containing_op`).
Typical clusters: softmax (max, exp-sum, normalize), layernorm (mean,
variance, normalize), bias + activation chains after a reduction.

Why: unfused, each op of such a chain streams the whole tensor through
memory; fused, a row stays in cache (or registers) between the ops, and
msmlir-cpu-tile-vectorize then vectorizes the per-row ops. It is graph-kernel
fusion at the linalg level: one cluster becomes one loop nest.

Producers with a use outside the cluster are left out (fusing them would
recompute them, not remove them). Clusters whose sink iterates less than
`min-work` times are left alone (compile time). With `threads` > 1 the rows of
big clusters are first split into `threads` scf.forall tasks. Runs after
msmlir-cpu-generalize (it reads linalg.generic and linalg.fill only). If the
interpreter fails, the function is restored and a remark says it stays
unfused.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..common.linalg import MIN_WORK, PARALLEL_MIN_WORK, fill_shape, funcs, is_structured, loop_info, numel
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass

TAG = "msmlir.fuse"


def _dims_prefix(m: ir.AffineMap, r: int) -> bool:
    res = list(m.results)
    if len(res) < r:
        return False
    return all(isinstance(e, ir.AffineDimExpr) and e.position == i for i, e in enumerate(res[:r]))


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
            shape = fill_shape(op)
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


def fuse_rows(func: ir.Operation, threads: int, min_work: int) -> ir.Operation:
    """Fuses the row clusters of `func`; returns the function (a restored copy
    if the interpreter failed)."""
    clusters = [(r, m) for r, m in _row_clusters(func) if numel(m[0]) >= min_work]
    if not clusters:
        return func
    s = Script()
    n = 0
    for r, members in clusters:
        seq = s.begin_suppressed("%root")
        sink = members[0]
        tags = []
        for op in members:
            op.attributes[TAG] = i64(n)
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
    func, error = apply_or_restore(func, s.text())
    strip_attrs(func, (TAG,))
    if error is not None:
        emit_remark(func.location, "msmlir-fuse-rows: the fusion script failed; the ops of this "
                                   f"function stay unfused: {error}")
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


@register_pass("msmlir-fuse-rows",
               "Fuse chains of linalg ops on tensors that can be computed row by row (softmax, "
               "layernorm, ...) into one loop over rows",
               options={"threads": Option(int, 1, "split the rows of big clusters into this many "
                                                  "scf.forall tasks (1: serial)"),
                        "min-work": Option(int, MIN_WORK, "clusters whose sink has a smaller "
                                                          "iteration space are not fused")})
def fuse_rows_pass(module: ir.Operation, *, threads: int, min_work: int):
    for func in list(funcs(module)):
        try:
            fuse_rows(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # the script is applied atomically, so the function is consistent
            strip_attrs(module, (TAG,))
            emit_remark(func.location, "msmlir-fuse-rows: internal error, the ops of this function "
                                       f"stay unfused: {type(e).__name__}: {e}")
