"""msmlir-cpu-vectorize-arg-reductions: argmax / argmin generics -> vector compare-select loops.

The lowering of mindir.argmax / argmin (lowering/mindir_to_linalg/
reduction.py) is a linalg.generic with two outputs, the extremum and its
index, whose body keeps (a, i) when a is strictly better than the best so
far, or is the first NaN: `select(take, a, best)`, `select(take, i, idx)`.
The upstream vectorizer cannot analyse a two-result reduction ("Failed to
anaysis the reduction operation") and the op kept its scalar loop: one
compare-select chain per row (2048x2048 f32: 13-20 ms against numpy's 0.6).

Reduced dim innermost (row argmax, the usual case): loops over the other
dims (with threads, the outermost one split into scf.forall tasks), and
along the row a vector of V lanes (64 f32 / i32: four registers) carrying
the best values and their indices: each lane runs the op's own body over
its elements in order (the body translated lane-wise, the index an iota
plus the step's offset), the row's last partial step masked (the take
condition and-ed with the mask). Each lane then holds the first extremum
(or first NaN) of its elements, and the row's answer is the lane-wise
combine: the extremum m (maximumf/minimumf, maxsi/minsi: NaN propagates),
then the smallest index among the lanes equal to m, or NaN when m is NaN.
That is the scalar recurrence's result for any initial value: numpy's
first index of the extremum, the first NaN.

Reduced dim not innermost (column argmax, axis 0): msmlir-cpu-vectorize-
windows' emit_rows (vectors along the innermost output dim, the reduction
loop inside, the body lane-wise; no horizontal step).

Only bodies of exactly that form are taken (the two yielded selects on one
condition: `cmp(a, best)` for integers; for floats `ogt/olt(a, best) or
(a is NaN and best is not)`); elementwise producers fused into the body
are translated lane-wise too. Runs before msmlir-fuse-rows and
msmlir-cpu-tile-vectorize; top-level ops below `min-work` iterations keep
the plain path, as do rows of at most SHORT_ROW_MAX elements (their
scalar loops, unrolled by LLVM, are faster there).
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..common.linalg import (PARALLEL_MIN_WORK_REDUCTION, elem_bits, funcs, in_block, loop_info, numel,
                             walk_ops)
from ..registry import register_pass
from .tiling import CODEGEN_OPTIONS, lanes
from .vectorize_windows import _INT_DIVS, _open_for, _pow2, _Text, emit_rows

# Rows of at most this many elements keep the plain path: LLVM fully unrolls
# their scalar row loop (constant trip count), which the per-row lane combine
# here does not beat (16384 x n f32, thread CPU time, load ~1: plain 0.014-0.078 ms for
# n = 4..21, here 0.09-0.29 ms; from n = 22 the plain path takes 1.1-1.8 ms
# and this one 0.13-0.30).
SHORT_ROW_MAX = 21

_FLOAT_PREDS = {"ogt": "max", "olt": "min"}
_INT_PREDS = {"sgt": "max", "slt": "min"}


def _owner(v: ir.Value):
    try:
        o = v.owner
    except Exception:  # noqa: BLE001 - a block argument
        return None
    o = getattr(o, "operation", o)
    return o if isinstance(o, ir.Operation) else None


def _pred(o: ir.Operation) -> str:
    """The predicate of an arith.cmpf / cmpi, as its keyword (ogt, slt, ...)."""
    text = str(o)
    return text.split(o.name, 1)[1].split()[0].strip('" ,')


def _is(o, name, *operands) -> bool:
    return o is not None and o.name == name and all(a == b for a, b in zip(o.operands, operands))


def match_arg(op: ir.Operation):
    """The plan of an arg reduction: (loop info, reduced dim, "max"/"min",
    float?, the take condition, the compared value, the index cast, the two
    yielded selects), or why not (a string)."""
    if op.name != "linalg.generic" or len(op.results) != 2:
        return "not a two-output generic"
    li = loop_info(op)
    if li is None:
        return "no loop info"
    red = [d for d, it in enumerate(li.iterators) if it == "reduction"]
    if len(red) != 1:
        return "not one reduced dim"
    axis = red[0]
    block = op.regions[0].blocks[0]
    n_in = li.n_inputs
    best, bidx = block.arguments[n_in], block.arguments[n_in + 1]
    ops = [o.operation for o in block.operations]
    y = ops[-1]
    s0, s1 = _owner(y.operands[0]), _owner(y.operands[1])
    if not (s0 is not None and s1 is not None and s0.name == s1.name == "arith.select"
            and s0.operands[0] == s1.operands[0] and s0.operands[2] == best and s1.operands[2] == bidx):
        return "yields are not two selects on one condition"
    take, a, icast = s0.operands[0], s0.operands[1], _owner(s1.operands[1])
    if not (icast is not None and icast.name == "arith.index_cast"):
        return "index is not a cast of linalg.index"
    ix = _owner(icast.operands[0])
    if not (ix is not None and ix.name == "linalg.index" and ir.IntegerAttr(ix.attributes["dim"]).value == axis):
        return "index is not the reduced dim"
    t = _owner(take)
    is_float = str(a.type) in ("f16", "bf16", "f32", "f64")
    if is_float:
        if t is None or t.name != "arith.ori":
            return "float condition without the NaN clause"
        better = first_nan = None
        for x, z in ((t.operands[0], t.operands[1]), (t.operands[1], t.operands[0])):
            bo, fo = _owner(x), _owner(z)
            if _is(bo, "arith.cmpf", a, best) and fo is not None and fo.name == "arith.andi":
                better, first_nan = bo, fo
        if better is None or _pred(better) not in _FLOAT_PREDS:
            return "not a strict float compare"
        u = [_owner(v) for v in first_nan.operands]
        if not (all(o is not None and o.name == "arith.cmpf" for o in u)
                and any(_is(o, "arith.cmpf", a, a) and _pred(o) == "uno" for o in u)
                and any(_is(o, "arith.cmpf", best, best) and _pred(o) == "ord" for o in u)):
            return "not the first-NaN clause"
        kind = _FLOAT_PREDS[_pred(better)]
    else:
        if not (_is(t, "arith.cmpi", a, best) and _pred(t) in _INT_PREDS):
            return "not a strict integer compare"
        kind = _INT_PREDS[_pred(t)]
    for o in ops[:-1]:
        if o.regions and len(o.regions) > 0:
            return f"{o.name} has regions"
        if not (o.name.startswith("arith.") or o.name.startswith("math.") or o.name == "linalg.index"):
            return f"{o.name} in the body"
        if o.name in _INT_DIVS:
            return f"{o.name} in the body (masked lanes)"
    for i in range(n_in):
        res = list(li.maps[i].results)
        if not all(isinstance(r, (ir.AffineDimExpr, ir.AffineConstantExpr)) for r in res):
            return "an input indexed by an expression"
        if axis == li.rank - 1 and any(isinstance(r, ir.AffineDimExpr) and r.position == axis
                                       for r in res[:-1]):
            return "an input not contiguous along the reduced dim"
    for k in (0, 1):
        m = li.maps[n_in + k]
        if [r.position if isinstance(r, ir.AffineDimExpr) else None for r in m.results] != \
                [d for d in range(li.rank) if d != axis]:
            return "outputs are not the kept dims in order"
    return li, axis, kind, is_float, take, a, icast, (s0, s1)


def emit_row_arg(op: ir.Operation, threads: int, plan) -> None:
    """Rewrites a row arg-reduction (plan from match_arg, the reduced dim
    innermost) as loops over the kept dims, a V-lane vector loop along the
    row, a lane combine; the nest written as MLIR text, parsed, moved in
    place of the op (as emit_rows)."""
    li, axis, kind, is_float, take, a_val, icast, sels = plan
    n_in = li.n_inputs
    block = op.regions[0].blocks[0]
    ranges, rank = li.ranges, li.rank
    operands = list(op.operands)
    captured: list[ir.Value] = []
    inside = {r for o in block.operations for r in o.results}
    for o in block.operations:
        for x in o.operands:
            if x in inside or any(x == b for b in block.arguments) or any(x == c for c in captured):
                continue
            captured.append(x)
    T = _Text(str(op.location))
    L = T.lines
    args = [f"%a{i}: {operands[i].type}" for i in range(len(operands))]
    args += [f"%k{i}: {c.type}" for i, c in enumerate(captured)]
    res_types = [str(r.type) for r in op.results]
    L.append(f"func.func @w({', '.join(args)}) -> ({', '.join(res_types)}) {{")
    const = {}

    def cidx(n):
        if n not in const:
            const[n] = T.const(f"arith.constant {n} : index")
        return const[n]
    c0 = cidx(0)
    elt = [ir.RankedTensorType(v.type).element_type for v in operands]
    vt, it = elt[n_in], elt[n_in + 1]
    bits = max(elem_bits(t) or 32 for i, t in enumerate(elt) if i >= n_in or list(block.arguments[i].uses))
    n = ranges[axis]
    V = min(4 * lanes(bits), _pow2(n))
    V = max(V, 4)
    vec = lambda t: f"vector<{V}x{t}>"  # noqa: E731
    par = [d for d in range(rank) if d != axis]
    work = numel(op)
    split = None
    if threads > 1 and work >= PARALLEL_MIN_WORK_REDUCTION and par:
        d = par[0]
        if ranges[d] >= threads and ranges[d] % threads == 0:
            split = d
    iv: dict[int, str] = {}
    cur, cur_types = [f"%a{n_in}", f"%a{n_in + 1}"], list(res_types)
    stack = []
    if split is not None:
        chunk = ranges[split] // threads
        shared = ["%s0", "%s1"]
        fa, ch = T.new(), T.new()
        L.append(f"{fa}:2 = scf.forall ({ch}) in ({threads}) shared_outs({shared[0]} = {cur[0]}, "
                 f"{shared[1]} = {cur[1]}) -> ({', '.join(cur_types)}) {{")
        lo = T.op(f"arith.muli {ch}, {cidx(chunk)} : index")
        offs = [lo if d == split else "0" for d in par]
        sizes = [chunk if d == split else ranges[d] for d in par]
        st = [f"tensor<{'x'.join(map(str, sizes))}x{t}>" for t in (vt, it)]
        cur = [T.op(f"tensor.extract_slice {shared[k]}[{', '.join(offs)}] [{', '.join(map(str, sizes))}] "
                    f"[{', '.join('1' for _ in sizes)}] : {res_types[k]} to {st[k]}") for k in (0, 1)]
        cur_types = st
    local = {}
    for d in par:
        cnt = chunk if d == split else ranges[d]
        i, accs, res = _open_for(L, T, c0, cidx(cnt), cidx(1), cur, cur_types)
        stack.append(res)
        local[d] = i
        iv[d] = T.op(f"arith.addi {lo}, {i} : index") if d == split else i
        cur = accs
    oc = ", ".join(local[d] for d in par)
    v0 = T.op(f"tensor.extract {cur[0]}[{oc}] : {cur_types[0]}")
    i0 = T.op(f"tensor.extract {cur[1]}[{oc}] : {cur_types[1]}")
    bv = T.op(f"vector.broadcast {v0} : {vt} to {vec(vt)}")
    bi = T.op(f"vector.broadcast {i0} : {it} to {vec(it)}")
    iota = T.const(f"arith.constant dense<[{', '.join(map(str, range(V)))}]> : {vec(it)}")
    zeros = {}

    def pad(t):
        if str(t) not in zeros:
            zeros[str(t)] = T.const(f"arith.constant {'0.0' if str(t).startswith(('f', 'bf')) else '0'} : {t}")
        return zeros[str(t)]
    best, bidx = block.arguments[n_in], block.arguments[n_in + 1]
    skip = {sels[0], sels[1]}

    def step(k: str, accs, mask: str | None):
        """The body lane-wise at row offset k; returns the new (best, idx) vectors."""
        iv[axis] = k
        names, isv = {}, {}
        for j, c in enumerate(captured):
            names[c], isv[c] = f"%k{j}", False
        names[best], isv[best] = accs[0], True
        names[bidx], isv[bidx] = accs[1], True
        for i in range(n_in):
            b = block.arguments[i]
            if not list(b.uses):
                continue
            res = list(li.maps[i].results)
            coords = ", ".join(iv[r.position] if isinstance(r, ir.AffineDimExpr) else cidx(r.value) for r in res)
            if res and isinstance(res[-1], ir.AffineDimExpr) and res[-1].position == axis:
                m = f", {mask}" if mask else ""
                bounds = "" if mask else " {in_bounds = [true]}"
                names[b] = T.op(f"vector.transfer_read %a{i}[{coords}], {pad(elt[i])}{m}{bounds} : "
                                f"{operands[i].type}, {vec(elt[i])}")
                isv[b] = True
            else:
                names[b] = T.op(f"tensor.extract %a{i}[{coords}] : {operands[i].type}")
                isv[b] = False
        for o in block.operations:
            o = o.operation
            if o.name == "linalg.yield" or o in skip:
                continue
            if o.name == "linalg.index":
                d = ir.IntegerAttr(o.attributes["dim"]).value
                if d == axis:
                    b = T.op(f"vector.broadcast {k} : index to {vec('index')}")
                    s = T.const(f"arith.constant dense<[{', '.join(map(str, range(V)))}]> : {vec('index')}")
                    names[o.results[0]] = T.op(f"arith.addi {b}, {s} : {vec('index')}")
                    isv[o.results[0]] = True
                else:
                    names[o.results[0]], isv[o.results[0]] = iv[d], False
                continue
            if o == icast:   # the index: an iota of the index type plus the offset
                kc = T.op(f"arith.index_cast {k} : index to {it}")
                kb = T.op(f"vector.broadcast {kc} : {it} to {vec(it)}")
                names[o.results[0]] = T.op(f"arith.addi {kb}, {iota} : {vec(it)}")
                isv[o.results[0]] = True
                continue
            v = any(isv.get(x, False) for x in o.operands)
            ops, tys = [], []
            for x in o.operands:
                if v and not isv[x]:
                    ops.append(T.op(f"vector.broadcast {names[x]} : {x.type} to {vec(x.type)}"))
                else:
                    ops.append(names[x])
                tys.append(vec(x.type) if v else str(x.type))
            rts = [vec(r.type) if v else str(r.type) for r in o.results]
            attrs = ", ".join(f"{o.attributes[j].name} = {o.attributes[j].attr}" for j in range(len(o.attributes)))
            attrs = f" {{{attrs}}}" if attrs else ""
            r = T.new()
            L.append(f"{r} = \"{o.name}\"({', '.join(ops)}){attrs} : ({', '.join(tys)}) -> ({', '.join(rts)}) loc(#L)")
            names[o.results[0]], isv[o.results[0]] = r, v
        def as_vec(x):
            return names[x] if isv[x] else T.op(f"vector.broadcast {names[x]} : {x.type} to {vec(x.type)}")
        t = as_vec(take)
        if mask:
            t = T.op(f"arith.andi {t}, {mask} : {vec('i1')}")
        nb = T.op(f"arith.select {t}, {as_vec(a_val)}, {accs[0]} : {vec('i1')}, {vec(vt)}")
        ni = T.op(f"arith.select {t}, {names[icast.results[0]]}, {accs[1]} : {vec('i1')}, {vec(it)}")
        return nb, ni

    main = n - n % V
    accs = [bv, bi]
    if main:
        k, inner, res = _open_for(L, T, c0, cidx(main), cidx(V), accs, [vec(vt), vec(it)])
        nb, ni = step(k, inner, None)
        L.append(f"scf.yield {nb}, {ni} : {vec(vt)}, {vec(it)} loc(#L)")
        L.append("} loc(#L)")
        accs = [f"{res}#0", f"{res}#1"]
    if n % V:
        mask = T.op(f"vector.create_mask {cidx(n % V)} : {vec('i1')}")
        accs = list(step(cidx(main), accs, mask))
    # the lane combine: the extremum, then the smallest index of the lanes holding it
    if is_float:
        m = T.op(f"vector.reduction <{kind}imumf>, {accs[0]} : {vec(vt)} into {vt}")
        mb = T.op(f"vector.broadcast {m} : {vt} to {vec(vt)}")
        eq = T.op(f"arith.cmpf oeq, {accs[0]}, {mb} : {vec(vt)}")
        nan = T.op(f"arith.cmpf uno, {accs[0]}, {accs[0]} : {vec(vt)}")
        cand = T.op(f"arith.ori {eq}, {nan} : {vec('i1')}")
    else:
        m = T.op(f"vector.reduction <{kind}si>, {accs[0]} : {vec(vt)} into {vt}")
        mb = T.op(f"vector.broadcast {m} : {vt} to {vec(vt)}")
        cand = T.op(f"arith.cmpi eq, {accs[0]}, {mb} : {vec(vt)}")
    big = T.const(f"arith.constant {(1 << (ir.IntegerType(it).width - 1)) - 1} : {it}")
    bigv = T.const(f"vector.broadcast {big} : {it} to {vec(it)}")
    sel = T.op(f"arith.select {cand}, {accs[1]}, {bigv} : {vec('i1')}, {vec(it)}")
    idx = T.op(f"vector.reduction <minsi>, {sel} : {vec(it)} into {it}")
    vals = [T.op(f"tensor.insert {m} into {cur[0]}[{oc}] : {cur_types[0]}"),
            T.op(f"tensor.insert {idx} into {cur[1]}[{oc}] : {cur_types[1]}")]
    for res in reversed(stack):
        L.append(f"scf.yield {vals[0]}, {vals[1]} : {', '.join(cur_types)} loc(#L)")
        L.append("} loc(#L)")
        vals = [f"{res}#0", f"{res}#1"]
    if split is not None:
        L.append("scf.forall.in_parallel {")
        for k in (0, 1):
            L.append(f"tensor.parallel_insert_slice {vals[k]} into {shared[k]}[{', '.join(offs)}] "
                     f"[{', '.join(map(str, sizes))}] [{', '.join('1' for _ in sizes)}] : {cur_types[k]} "
                     f"into {res_types[k]} loc(#L)")
        L.append("} loc(#L)")
        L.append("} loc(#L)")
        vals = [f"{fa}#0", f"{fa}#1"]
    L.append(f"return {vals[0]}, {vals[1]} : {', '.join(res_types)}")
    L.append("}")
    T.replace(op, L, list(operands) + list(captured))


def vectorize_arg_reductions_func(func: ir.Operation, threads: int, min_work: int) -> None:
    entry = func.regions[0].blocks[0]
    for op in walk_ops(func, [], lambda o: o.name == "linalg.generic" and len(o.results) == 2):
        if numel(op) < min_work and in_block(op, entry):
            continue
        plan = match_arg(op)
        if isinstance(plan, str):
            continue
        li, axis = plan[0], plan[1]
        if axis == li.rank - 1:
            if li.ranges[axis] > SHORT_ROW_MAX:
                emit_row_arg(op, threads, plan)
            continue
        why = emit_rows(op, threads)
        if why is not None:
            emit_remark(op.location, f"msmlir-cpu-vectorize-arg-reductions: this arg reduction keeps "
                                     f"the plain path: {why}")


@register_pass("msmlir-cpu-vectorize-arg-reductions",
               "argmax/argmin generics (value + first index) -> vector compare-select loops with "
               "a lane combine (row) or lane-wise across rows (column)",
               options=CODEGEN_OPTIONS)
def vectorize_arg_reductions(module: ir.Operation, *, threads: int, min_work: int):
    for func in list(funcs(module)):
        try:
            vectorize_arg_reductions_func(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            emit_remark(func.location, "msmlir-cpu-vectorize-arg-reductions: internal error, the "
                                       f"arg reductions of this function keep the plain path: "
                                       f"{type(e).__name__}: {e}")
