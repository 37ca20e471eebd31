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

Producers with a use outside the cluster after the sink (e.g. a layernorm's
mean and rstd returned next to y) are computed in the row loop too and
yielded as extra loop results (the loop is built as an scf.forall, whose
fusion can yield producers, then made an scf.for); producers with other
outside uses are left out. Each producer gets its own `tensor.empty` init
(shared with the sink's, its fused tile would write the output row, which
bufferization then copies). In functions with reshapes between their linalg
ops (an expanded layernorm's [rows, 1] statistics) the unit dims are folded
first (upstream fold-unit-extent-dims patterns) and cheap elementwise
producers with several consumers (`x - mean`) are cloned per consumer and
fused into it (upstream elementwise fusion), so the chain is one row loop
without a temporary. Clusters whose sink iterates less than
`min-work` times are left alone (compile time). With `threads` > 1 the rows of
big clusters are first split into `threads` scf.forall tasks. Runs after
msmlir-cpu-generalize (it reads linalg.generic and linalg.fill only). If the
interpreter fails, the function is restored and a remark says it stays
unfused.

Softmax clusters (m = max of the row, e = exp(x - m), s = sum of e, and e
only divided by s): the max's `arith.maximumf` gets the SHIFT_ONLY mark,
which msmlir-cpu-fast-math turns into a compare-and-select max (one vmaxps;
IEEE maximumf is four instructions on x86: compare, unordered compare, mask
or, blend). Why that is exact here: m only shifts x before exp; with no NaN
in the row both give the same m, and with a NaN the NaN's exp makes s NaN,
so every e / s is NaN either way. The exp gets the NONPOSITIVE mark (x - m
<= 0 or NaN: fast-math's exp leaves out its upper clamp). log_softmax
clusters ((x - m) - log(s), s = sum of exp(x - m)) get the same marks: a
NaN in the row makes s and so every result NaN, and a -0/+0 tie (the only
case where the two maxima differ without a NaN) gives +-0 - log(s) with
s >= 2, the same value.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf
from mlir.passmanager import PassManager

from ..common.diagnostics import emit_remark
from ..common.linalg import (MIN_WORK, PARALLEL_MIN_WORK, fill_shape, funcs, is_structured, loop_info,
                             numel, walk_ops)
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass

TAG = "msmlir.fuse"
ROW_FORALL = "msmlir.row_forall"
# Set on each function with a row loop built here: the only functions
# msmlir-cpu-prefetch-rows{marked-only} looks at (it drops the mark).
ROW_LOOPS = "msmlir.row_loops"
SHIFT_ONLY = "msmlir.shift_only"     # read by msmlir-cpu-fast-math
NONPOSITIVE = "msmlir.nonpositive"


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
        members, yielded = _closed_cluster(ops, si, members, producer, infos)
        if len(members) > 1:
            # consumers before producers (program order reversed)
            members = sorted(set(members), reverse=True)
            taken.update(members)
            clusters.append((r, [ops[i] for i in members], bool(yielded)))
    return clusters


def _block_ancestor(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """`op` or its ancestor whose parent block is `block` (None: not in it)."""
    while op is not None:
        parent = op.parent
        if parent is None:
            return None
        if op.block == block:
            return op
        op = parent.operation if hasattr(parent, "operation") else parent
    return None


def _closed_cluster(ops, si, members, producer, infos):
    """Drops producers with a use outside the cluster that does not come
    after the sink in the block (such uses could not take the row loop's
    result), then whatever is no longer reachable from the sink. Returns
    (members, yielded): the producers kept with uses after the sink (e.g. a
    layernorm's mean and rstd returned next to y) are computed in the row
    loop too, which yields their rows as extra results."""
    members = set(members)
    sink = ops[si]
    block = sink.block
    while True:
        member_ops = [ops[i] for i in members]
        bad, yielded = set(), set()
        for i in members:
            if i == si:
                continue
            for res in ops[i].results:
                for use in res.uses:
                    owner = use.owner
                    owner = owner.operation if hasattr(owner, "operation") else owner
                    if any(owner == m for m in member_ops):
                        continue
                    top = _block_ancestor(owner, block)
                    if top is not None and sink.is_before_in_block(top):
                        yielded.add(i)
                    else:
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
    return sorted(members), sorted(yielded & members)


_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _reshape_between_linalg(func: ir.Operation) -> bool:
    """Whether a reshape in the entry block takes a linalg result or feeds a
    linalg op (e.g. an expanded layer_norm's [rows, 1] statistics)."""
    for o in func.regions[0].blocks[0].operations:
        o = o.operation
        if o.name not in _RESHAPES:
            continue
        src = o.operands[0].owner
        src = src.operation if hasattr(src, "operation") else src
        if isinstance(src, ir.Operation) and is_structured(src):
            return True
        for use in o.results[0].uses:
            owner = use.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if is_structured(owner):
                return True
    return False


def _sink_reshapes(func: ir.Operation) -> None:
    """Moves each reshape of the entry block down to just before its first
    user there (pure ops: a reshape of a row cluster's statistic, e.g. the
    [rows] -> [rows, 1] mean of a layernorm, would otherwise sit between
    the producer and the sink and keep the producer out of the row loop)."""
    block = func.regions[0].blocks[0]
    reshapes = [o.operation for o in block.operations if o.operation.name in _RESHAPES]
    for op in reversed(reshapes):
        first = None
        for use in op.results[0].uses:
            owner = use.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            top = _block_ancestor(owner, block)
            if top is None:
                first = None
                break
            if first is None or top.is_before_in_block(first):
                first = top
        if first is not None and op.is_before_in_block(first):
            op.move_before(first)


def fold_unit_dims(func: ir.Operation) -> ir.Operation:
    """Upstream's fold-unit-extent-dims patterns (+ canonicalization, CSE) on
    `func` (with reshapes between its linalg ops): an op on [rows, 1, cols]
    becomes an op on [rows, cols] and the expand/collapse pairs between
    producers and consumers cancel, so the chain is one row cluster again.
    Returns the function (restored if the script failed)."""
    s = Script()
    s.patterns("%root", ["linalg.fold_unit_extent_dims_via_reshapes",
                         "tensor.fold_tensor_empty", "canonicalization"])
    s.cse("%root")
    func, error = apply_or_restore(func, s.text())
    if error is not None:
        emit_remark(func.location, "msmlir-fuse-rows: folding unit dims failed, the function "
                                   f"keeps its reshapes: {error}")
    return func


# Multi-use elementwise producers with at most this many payload ops (and no
# math ops) are recomputed per consumer rather than materialized.
RECOMPUTE_MAX_OPS = 4


def _cheap_elementwise(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    li = loop_info(op)
    if li is None or any(it != "parallel" for it in li.iterators):
        return False
    if not all(m.is_projected_permutation for m in li.maps):
        return False
    body = list(op.regions[0].blocks[0].operations)
    if len(body) > RECOMPUTE_MAX_OPS + 1:
        return False
    return not any(o.operation.name.startswith("math.") or o.operation.name == "linalg.index"
                   for o in body)


def _n_generics(func: ir.Operation) -> int:
    return sum(1 for o in func.regions[0].blocks[0].operations
               if o.operation.name == "linalg.generic")


def recompute_multi_use(func: ir.Operation) -> ir.Operation:
    """Clones each cheap elementwise producer with several linalg consumers
    (and no other use) once per consumer, then runs upstream elementwise
    fusion (which fuses single-use producers only) on the function: e.g. an
    expanded layernorm's `x - mean`, used by the variance and by the
    normalization, is recomputed from x in both instead of written to a
    temporary and read back. If a clone does not fuse (more linalg.generic
    ops than before), the function is put back as it was. Returns the
    function."""
    block = func.regions[0].blocks[0]
    candidates = []
    for op in [o.operation for o in block.operations]:
        if not _cheap_elementwise(op):
            continue
        uses = list(op.results[0].uses)
        if len(uses) < 2:
            continue
        owners = []
        for use in uses:
            owner = use.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if owner.name != "linalg.generic" or owner.block != block:
                owners = None
                break
            n_in = len(owner.operands) - len(owner.results)
            if use.operand_number >= n_in:
                owners = None  # an init, not an input
                break
            owners.append((owner, use.operand_number))
        if owners:
            candidates.append((op, owners))
    if not candidates:
        return func
    before = _n_generics(func)
    backup_holder = ir.Module.create(loc=ir.Location.unknown(func.context))
    with ir.InsertionPoint(backup_holder.body):
        backup = func.clone()
    for op, owners in candidates:
        for owner, k in owners[1:]:
            c = op.clone(ir.InsertionPoint(op))
            owner.operands[k] = c.results[0]
    try:
        PassManager.parse("func.func(linalg-fuse-elementwise-ops,canonicalize,cse)",
                          func.context).run(func)
        ok = _n_generics(func) <= before
    except ir.MLIRError:
        ok = False
    if ok:
        return func
    with ir.InsertionPoint(func):
        restored = backup.clone()
    func.erase()
    return restored


def _body(op: ir.Operation) -> tuple[list[ir.Operation], list[ir.Value]]:
    """(ops, block arguments) of a linalg op's body."""
    block = op.regions[0].blocks[0]
    return [o.operation for o in block.operations], list(block.arguments)


def _owner(use) -> ir.Operation:
    o = use.owner
    return o.operation if hasattr(o, "operation") else o


def _only_uses(v: ir.Value) -> list[ir.Operation]:
    return [_owner(u) for u in v.uses]


def _row_reduction(op: ir.Operation, kind: str) -> ir.Value | None:
    """The input of `op` when it is a one-input, one-output generic whose
    body is `kind`(in, acc) and yield (a max or sum over rows), else None."""
    if op.name != "linalg.generic" or len(op.operands) != 2 or len(op.results) != 1:
        return None
    li = loop_info(op)
    if li is None or "reduction" not in li.iterators:
        return None
    body, args = _body(op)
    if len(body) != 2 or body[0].name != kind or body[1].name != "linalg.yield":
        return None
    if {body[0].operands[0], body[0].operands[1]} != set(args) or body[1].operands[0] != body[0].results[0]:
        return None
    return op.operands[0]


def _same_row_reduction(op: ir.Operation, v: ir.Value, like: ir.Operation, kind: str) -> bool:
    """Whether `op` reduces `v` with `kind` over the same loops and maps as
    the reduction `like` (a sum over the max's rows)."""
    x = _row_reduction(op, kind)
    if x is None or x != v:
        return False
    a, b = loop_info(op), loop_info(like)
    return a.ranges == b.ranges and a.iterators == b.iterators and a.maps == b.maps


def _arg_of(op: ir.Operation, v: ir.Value) -> list[tuple[ir.Value, ir.AffineMap]]:
    """(body argument, indexing map) of each input operand of `op` that is `v`."""
    _, args = _body(op)
    li = loop_info(op)
    n_in = len(op.operands) - len(op.results)
    return [(args[k], li.maps[k]) for k in range(n_in) if op.operands[k] == v]


def _elementwise_like(op: ir.Operation, like: ir.Operation) -> bool:
    """A parallel generic over the same loop ranges as the reduction `like`."""
    if op.name != "linalg.generic":
        return False
    li, lr = loop_info(op), loop_info(like)
    return li is not None and li.ranges == lr.ranges and all(it == "parallel" for it in li.iterators)


def _is_softmax_max(r: ir.Operation, members: list[ir.Operation]) -> bool:
    """Whether the max reduction `r` (m[row] = max of x over the row) only
    shifts exps that a sum over the same rows then divides: each user e
    computes exp(x - m) alone, at the elements m was reduced from, and e is
    only summed over those rows (in the cluster) and divided by such a sum,
    element by element (m's NaN is then irrelevant; x - m <= 0 or NaN)."""
    x = _row_reduction(r, "arith.maximumf")
    if x is None:
        return False
    lr = loop_info(r)
    row_map, red_map = lr.maps[0], lr.maps[1]   # x's element, m's element

    def in_cluster(op):
        return any(op == q for q in members)
    m = r.results[0]
    for e in _only_uses(m):
        if not in_cluster(e) or not _elementwise_like(e, r) or len(e.results) != 1:
            return False
        body, _ = _body(e)
        if [o.name for o in body] != ["arith.subf", "math.exp", "linalg.yield"]:
            return False
        sub, exp = body[0], body[1]
        margs, xargs = _arg_of(e, m), _arg_of(e, x)
        if len(margs) != 1 or margs[0][1] != red_map or loop_info(e).maps[-1] != row_map:
            return False
        if sub.operands[1] != margs[0][0] or not any(sub.operands[0] == a and mp == row_map
                                                     for a, mp in xargs):
            return False
        if exp.operands[0] != sub.results[0] or body[2].operands[0] != exp.results[0]:
            return False
        ev = e.results[0]
        users = _only_uses(ev)
        sums = [u for u in users if in_cluster(u) and _same_row_reduction(u, ev, r, "arith.addf")]
        if not sums:
            return False
        for u in users:
            if any(u == su for su in sums):
                continue
            if not in_cluster(u) or not _elementwise_like(u, r):
                return False
            ubody, _ = _body(u)
            eargs = _arg_of(u, ev)
            sargs = [a for su in sums for a in _arg_of(u, su.results[0])]
            if len(eargs) != 1 or len(sargs) != 1 or eargs[0][1] != row_map or sargs[0][1] != red_map:
                return False
            ea, sa = eargs[0][0], sargs[0][0]
            divs = [o for o in ubody if o.name == "arith.divf" and o.operands[0] == ea
                    and o.operands[1] == sa]
            # e and s used by that division alone: it is NaN in both cases
            if len(divs) != 1 or len(list(ea.uses)) != 1 or len(list(sa.uses)) != 1:
                return False
    return True


def _shift_arg(op: ir.Operation, sub: ir.Operation, x: ir.Value, m: ir.Value, r: ir.Operation) -> bool:
    """Whether `sub` (in `op`'s body) is x[row, j] - m[row] with x and m read
    at the maps the max `r` reads x and writes m at, and m's body argument
    used by `sub` alone."""
    if sub.name != "arith.subf":
        return False
    lr = loop_info(r)
    row_map, red_map = lr.maps[0], lr.maps[1]
    margs, xargs = _arg_of(op, m), _arg_of(op, x)
    return (len(margs) == 1 and margs[0][1] == red_map and sub.operands[1] == margs[0][0]
            and len(list(margs[0][0].uses)) == 1
            and any(sub.operands[0] == a and mp == row_map for a, mp in xargs))


def _log_softmax_users(r: ir.Operation, members: list[ir.Operation]) -> list[ir.Operation] | None:
    """The sums of exp(x - m) of a log_softmax's max `r` (m[row] = max of x),
    when m only shifts: its users are those sums over r's loops (body
    exp(x - m) + acc) and elementwise ops over r's loops whose body is
    (x - m) - log(s), s such a sum (a NaN in the row makes s NaN, so
    every result of the row is NaN whatever m is, as with softmax; -0/+0
    ties give +-0 - log(s) with s >= 2: the same value). Else None."""
    x = _row_reduction(r, "arith.maximumf")
    if x is None:
        return None
    m = r.results[0]

    def in_cluster(op):
        return any(op == q for q in members)
    users = _only_uses(m)
    sums, outs = [], []
    for u in users:
        if not in_cluster(u) or len(u.results) != 1:
            return None
        body, args = _body(u)
        if [o.name for o in body] == ["arith.subf", "math.exp", "arith.addf", "linalg.yield"]:
            sub, exp, add, y = body
            li, lr = loop_info(u), loop_info(r)
            n_in = len(u.operands) - 1
            if (li.ranges != lr.ranges or li.iterators != lr.iterators or n_in != 2
                    or li.maps[-1] != lr.maps[1] or not _shift_arg(u, sub, x, m, r)
                    or exp.operands[0] != sub.results[0] or len(list(sub.results[0].uses)) != 1
                    or set(add.operands) != {exp.results[0], args[-1]}
                    or y.operands[0] != add.results[0]):
                return None
            sums.append(u)
        else:
            outs.append(u)
    if not sums:
        return None
    red_map, row_map = loop_info(r).maps[1], loop_info(r).maps[0]
    for u in outs:
        if not _elementwise_like(u, r) or loop_info(u).maps[-1] != row_map:
            return None
        body, _ = _body(u)
        if len(body) != 4 or body[-1].name != "linalg.yield":
            return None
        sub = next((o for o in body if o.name == "arith.subf" and _shift_arg(u, o, x, m, r)), None)
        lg = next((o for o in body if o.name == "math.log"), None)
        if sub is None or lg is None:
            return None
        sargs = [a for su in sums for a, mp in _arg_of(u, su.results[0]) if mp == red_map]
        if len(sargs) != 1 or lg.operands[0] != sargs[0] or len(list(sargs[0].uses)) != 1:
            return None
        out = next((o for o in body if o not in (sub, lg)), None)
        if (out is None or out.name != "arith.subf" or out.operands[0] != sub.results[0]
                or out.operands[1] != lg.results[0] or body[-1].operands[0] != out.results[0]):
            return None
    return sums


def _mark_softmax(members: list[ir.Operation]) -> None:
    """Marks the max of each softmax or log_softmax among `members`
    SHIFT_ONLY and its exps NONPOSITIVE (x - max <= 0, or NaN)."""
    for r in members:
        if _is_softmax_max(r, members):
            body, _ = _body(r)
            body[0].attributes[SHIFT_ONLY] = ir.UnitAttr.get()
            for e in _only_uses(r.results[0]):
                ebody, _ = _body(e)
                ebody[1].attributes[NONPOSITIVE] = ir.UnitAttr.get()
            continue
        sums = _log_softmax_users(r, members)
        if sums:
            body, _ = _body(r)
            body[0].attributes[SHIFT_ONLY] = ir.UnitAttr.get()
            for e in sums:
                ebody, _ = _body(e)
                ebody[1].attributes[NONPOSITIVE] = ir.UnitAttr.get()


def fuse_rows(func: ir.Operation, threads: int, min_work: int) -> ir.Operation:
    """Fuses the row clusters of `func`; returns the function (a restored copy
    if the interpreter failed)."""
    if _reshape_between_linalg(func):
        # (only there: elsewhere the elementwise fusion of the linalg stage,
        # bounded by msmlir-bound-elementwise-fusion, has the last word)
        func = fold_unit_dims(func)
        func = recompute_multi_use(func)
    _sink_reshapes(func)
    clusters = [c for c in _row_clusters(func) if numel(c[1][0]) >= min_work]
    if not clusters:
        return func
    s = Script()
    n = 0
    for r, members, yields in clusters:
        _distinct_inits(members[1:])
        _mark_softmax(members)
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
        if yields:
            # producers used after the sink too: fuse_into_containing_op yields
            # their tiles only from an scf.forall; made an scf.for below
            _, rows = s.tile_forall(h, sizes)
            _, rows = _fuse_all(s, producers, rows, last_loop=True)
            s.emit(f"transform.annotate {rows} \"{ROW_FORALL}\" : {ANY}")
        else:
            _, loops = s.tile(h, sizes)
            _fuse_all(s, producers, loops[-1])
        s.end_sequence()
    func, error = apply_or_restore(func, s.text())
    strip_attrs(func, (TAG,))
    if error is not None:
        emit_remark(func.location, "msmlir-fuse-rows: the fusion script failed; the ops of this "
                                   f"function stay unfused: {error}")
    else:
        func.attributes[ROW_LOOPS] = ir.UnitAttr.get()
    for fa in walk_ops(func, [], lambda o: o.name == "scf.forall" and ROW_FORALL in o.attributes):
        _forall_to_for(fa)
    return func


def _forall_to_for(fa: ir.Operation) -> None:
    """A row scf.forall (one induction variable, 0 to N by 1, on tensors)
    -> scf.for with the shared outputs as iteration arguments and the
    parallel_insert_slices as insert_slices (upstream forall_to_for wants
    bufferized loops)."""
    ub = list(ir.DenseI64ArrayAttr(fa.attributes["staticUpperBound"]))
    lb = list(ir.DenseI64ArrayAttr(fa.attributes["staticLowerBound"]))
    st = list(ir.DenseI64ArrayAttr(fa.attributes["staticStep"]))
    if len(ub) != 1 or lb != [0] or st != [1]:
        del fa.attributes[ROW_FORALL]
        return
    outs = list(fa.operands)[-len(fa.results):] if len(fa.results) else []
    body = fa.regions[0].blocks[0]
    idx = ir.IndexType.get()
    with fa.location, ir.InsertionPoint(fa):
        c0 = arith.constant(idx, 0)
        cn = arith.constant(idx, ub[0])
        c1 = arith.constant(idx, 1)
        loop = scf.ForOp(c0, cn, c1, outs)
    new_body = loop.body
    term = next(o.operation for o in body.operations if o.operation.name == "scf.forall.in_parallel")
    ops_to_move = [o.operation for o in body.operations if o.operation.name != "scf.forall.in_parallel"]
    with fa.location, ir.InsertionPoint(new_body):
        anchor = scf.YieldOp([])  # placeholder, replaced below
    for o in ops_to_move:
        o.move_before(anchor.operation)
    args = list(body.arguments)
    args[0].replace_all_uses_with(loop.induction_variable)
    for a, it in zip(args[1:], loop.inner_iter_args):
        a.replace_all_uses_with(it)
    yielded = list(loop.inner_iter_args)
    iter_args = list(loop.inner_iter_args)
    with fa.location, ir.InsertionPoint(anchor.operation):
        for pis in list(term.regions[0].blocks[0].operations):
            pis = pis.operation
            dest = pis.operands[1]
            k = next(i for i, it in enumerate(iter_args) if it == dest)
            attrs = {k: pis.attributes[k] for k in pis.attributes}
            ins = ir.Operation.create("tensor.insert_slice", results=[dest.type],
                                      operands=list(pis.operands), attributes=attrs)
            yielded[k] = ins.results[0]
        scf.YieldOp(yielded)
    anchor.operation.erase()
    for old, new in zip(fa.results, loop.results):
        old.replace_all_uses_with(new)
    fa.erase()


def _distinct_inits(producers: list[ir.Operation]) -> None:
    """Gives each producer's `tensor.empty` init a copy of its own. After CSE
    the ops of a cluster share one empty tensor of the full shape; fused into
    the row loop, a producer whose init is the sink's shared init writes a
    slice of the sink's result, which bufferization then copies (a whole
    row, or a whole task's rows under scf.forall, read back from the
    output) instead of using a row-sized temporary."""
    for op in producers:
        n_init = 1 if op.name == "linalg.fill" else len(op.results)
        base = len(op.operands) - n_init
        for k in range(base, len(op.operands)):
            v = op.operands[k]
            owner = v.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if not isinstance(owner, ir.Operation) or owner.name != "tensor.empty":
                continue
            if sum(1 for _ in v.uses) < 2:
                continue
            op.operands[k] = owner.clone(ir.InsertionPoint(op)).results[0]


def _fuse_all(s: Script, producers: list[str], loop: str, last_loop: bool = False):
    """fuse_into_containing_op for each producer (consumers first); returns
    the handles of the fused copies (and, with last_loop, the loop's handle
    after the fusions: a forall that yields a producer is replaced)."""
    fused_ops = []
    for p in producers:
        fused, nl = s.fresh("fu"), s.fresh("fl")
        s.emit(f"{fused}, {nl} = transform.structured.fuse_into_containing_op {p} into {loop} "
               f": ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        loop = nl
        fused_ops.append(fused)
    if last_loop:
        return fused_ops, loop
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
        if "mskernel.poly" in func.attributes:
            continue         # claimed by the isl scheduler (passes/poly/claim.py)
        try:
            fuse_rows(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation;
            # the script is applied atomically, so the function is consistent
            strip_attrs(module, (TAG,))
            emit_remark(func.location, "msmlir-fuse-rows: internal error, the ops of this function "
                                       f"stay unfused: {type(e).__name__}: {e}")
