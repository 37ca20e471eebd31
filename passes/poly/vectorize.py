"""Vector accumulators for the reduction loops of a rebuilt isl AST (no pass).

Why: a scheduled reduction `C[i] = C[i] op e(i, j)` with j innermost stays,
as loops, one serial chain through memory: LLVM neither keeps C[i] in a
register across the loop in a way its vectorizer accepts nor reassociates fp
adds, so a row sum of 4096x1024 f32 ran at ~2.0 ms against the hand path's
0.55 ms (msmlir-cpu-tile-vectorize's partial sums).

`reductions(loops, bits_to_lanes)` rewrites each innermost unit-step loop that
codegen marked `mskernel.vector` (every varying access contiguous) holding one
statement instance that is such a reduction (the cell C[..] invariant in the
loop, read once and written once; combine op one of KINDS), when its trip
count is a constant of at least one vector:

  * scalar replacement: C[..] loaded once before the loop, stored once after;
  * K <= ACCUMULATORS independent vector accumulators (the combine op's
    neutral element to start), iter_args of a loop of step K x lanes whose
    loads along the loop are `affine.vector_load`s (values invariant in the
    loop are computed once before it and broadcast); a one-vector loop for the
    whole vectors left; the accumulators combined pairwise, then
    `vector.multi_reduction <kind>` with C[..]'s old value as accumulator
    (poly_schedule runs msmlir-cpu-fast-math's row-ops rewrite on it: f32
    max/min/add/mul become the hand path's halving tree; LLVM expands a
    vector reduction into one scalar op per lane: a 4096x100 row max 63 ->
    35 us with the tree);
  * the last (trip mod lanes) elements: one more vector step under a
    constant mask (vector.maskedload; masked-off lanes select the neutral
    element), before the reduction (a scalar tail loop measured 25% slower
    on a 4096x100 row max than the hand path's masked vectors).

Reassociation: this splits the reduction into lanes x K partial results
combined at the end - the same reassociation the hand path makes
(msmlir-cpu-tile-vectorize's REDUCTION_ACCUMULATORS partial-sum vectors) and
the one the CPU pipeline's LLVM lowering already allows on vector reductions
(convert-vector-to-llvm{reassociate-fp-reductions=true}: `reassoc` on the
horizontal reduction). No other fast-math assumption: the add starts from
-0.0 (signed zeros kept), max/min use the op's own NaN semantics, integer
reductions are exact in any order. `vector-reductions=false` on
mskernel-poly-schedule keeps the serial order.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import affine, arith, vector

ATTR_VECTOR = "mskernel.vector"
ATTR_REDUCTION = "mskernel.vector_reduction"   # on the main loop: "<kind> <K>x<lanes>"
ACCUMULATORS = 4

# combine op -> (vector.reduction kind, neutral element: float or int function of the width)
KINDS = {
    "arith.addf": ("add", -0.0), "arith.mulf": ("mul", 1.0),
    "arith.maximumf": ("maximumf", -math.inf), "arith.minimumf": ("minimumf", math.inf),
    "arith.maxnumf": ("maxnumf", -math.inf), "arith.minnumf": ("minnumf", math.inf),
    "arith.addi": ("add", lambda w: 0), "arith.muli": ("mul", lambda w: 1),
    "arith.maxsi": ("maxsi", lambda w: -(1 << (w - 1))), "arith.minsi": ("minsi", lambda w: (1 << (w - 1)) - 1),
    "arith.maxui": ("maxui", lambda w: 0), "arith.minui": ("minui", lambda w: (1 << w) - 1),
    "arith.andi": ("and", lambda w: -1), "arith.ori": ("or", lambda w: 0),
    "arith.xori": ("xor", lambda w: 0),
}
_PURE = ("arith.", "math.")


def _attrs(op: ir.Operation) -> dict:
    """{name: attribute} of `op`."""
    out = {}
    for x in op.attributes:
        if isinstance(x, str):
            out[x] = op.attributes[x]
        else:
            out[x.name] = x.attr
    return out


class _Skip(Exception):
    """This loop is left as it is."""


def _owner(v: ir.Value):
    return v.owner.operation if isinstance(v, ir.OpResult) else None


def _is_index(t: ir.Type) -> bool:
    return isinstance(t, ir.IndexType)


def _neutral(kind_value, et: ir.Type) -> ir.Attribute:
    if callable(kind_value):
        w = ir.IntegerType(et).width
        v = kind_value(w)
        if v < 0 and w > 1:  # as the signless bit pattern
            v &= (1 << w) - 1
            v -= (1 << w) if v >= 1 << (w - 1) else 0
        return ir.IntegerAttr.get(et, v)
    return ir.FloatAttr.get(et, kind_value)


def _zero(et: ir.Type) -> ir.Attribute:
    return ir.FloatAttr.get(et, 0.0) if isinstance(et, ir.FloatType) else ir.IntegerAttr.get(et, 0)


def _contiguous_memref(t: ir.Type) -> bool:
    """The last dim has unit stride (what vector loads along it need)."""
    try:
        strides, _ = ir.MemRefType(t).get_strides_and_offset()
    except Exception:  # noqa: BLE001 - no strided form: not contiguous
        return False
    return bool(strides) and strides[-1] == 1


class _Plan:
    """What one loop's rewrite needs (raises _Skip when it does not apply)."""

    def __init__(self, rec, bits_to_lanes):
        loop = rec.op
        if loop.name != "affine.for" or ATTR_VECTOR not in loop.attributes or rec.inner:
            raise _Skip
        if len(rec.calls) != 1 or rec.trip is None:
            raise _Skip
        stmt, lins, clones = rec.calls[0]
        body = loop.regions[0].blocks[0]
        self.loop, self.iv = loop, body.arguments[0]
        self.ops = [o.operation for o in body.operations if o.operation.name != "affine.yield"]
        stores = [o for o in self.ops if o.name == "affine.store"]
        if len(stores) != 1:
            raise _Skip
        st = self.store = stores[0]
        mem = st.operands[1]
        comb = _owner(st.operands[0])
        if comb is None or comb.name not in KINDS or comb not in self.ops:
            raise _Skip
        cload = None
        for k, v in enumerate(comb.operands):
            o = _owner(v)
            if (o is not None and o.name == "affine.load" and o.operands[0] == mem
                    and list(o.operands)[1:] == list(st.operands)[2:]
                    and str(o.attributes["map"]) == str(st.attributes["map"])):
                cload, other = o, comb.operands[1 - k]
                break
        if cload is None:
            raise _Skip
        self.comb, self.cload, self.expr = comb, cload, other
        for o in self.ops:
            if o.regions:
                raise _Skip
            if o.name in ("affine.load", "affine.store") and o not in (cload, st) \
                    and (o.operands[1] if o.name == "affine.store" else o.operands[0]) == mem:
                raise _Skip  # another access to the accumulated array
            if not (o.name in ("affine.apply", "affine.load", "affine.store")
                    or o.name.startswith(_PURE)):
                raise _Skip
        # which values vary along the loop
        self.varying = {self.iv}
        for o in self.ops:
            if any(v in self.varying for v in o.operands):
                self.varying.update(o.results)
        if any(v in self.varying for v in list(st.operands)[1:]) or self.expr not in self.varying:
            raise _Skip
        et = comb.results[0].type
        if _is_index(et) or not (isinstance(et, ir.FloatType) or isinstance(et, ir.IntegerType)):
            raise _Skip
        # loads along the loop: contiguous (+1 in the last index only, by codegen's linear forms)
        reads = [clones[o] for o in stmt.ops if o.name == "affine.load"]
        if any(lin is None for lin in lins):
            raise _Skip
        for acc, new in zip(stmt.reads, reads):
            if new.results[0] not in self.varying:
                continue
            if any(c is None for c in acc.coeffs):
                raise _Skip
            coeff = [sum(c * lins[k].get(rec.name, 0) for k, c in lin.items() if k != "const")
                     for lin in acc.coeffs]
            if coeff[-1] != 1 or any(coeff[:-1]) or not _contiguous_memref(new.operands[0].type):
                raise _Skip
        for o in self.ops:
            if o.results and o.results[0] in self.varying and o.name.startswith(_PURE):
                if any(_is_index(v.type) for v in list(o.operands) + list(o.results)):
                    raise _Skip  # index arithmetic on the iterator (an iota): not vectorized here
        self.kind, self.neutral = KINDS[comb.name]
        self.et = et
        self.lanes = bits_to_lanes(ir.FloatType(et).width if isinstance(et, ir.FloatType)
                                   else ir.IntegerType(et).width)
        self.trip = rec.trip
        lb_map = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
        if len(lb_map.results) != 1 or self.trip < self.lanes:
            raise _Skip
        k = ACCUMULATORS
        while k > 1 and self.trip < k * self.lanes:
            k //= 2
        self.k = k


def _vtype(t: ir.Type, lanes: int) -> ir.Type:
    return ir.VectorType.get([lanes], t)


def _clone_at(p: _Plan, ip: ir.InsertionPoint, iv: ir.Value, lanes: int, bcast,
              mask: ir.Value | None = None) -> ir.Value:
    """Clones the varying ops of the body (not the combine op nor the store)
    as vectors of `lanes` with the loop's iterator replaced by `iv` (loads ->
    affine.vector_load, or vector.maskedload under `mask`; invariant operands
    broadcast by `bcast`). Returns the value of the reduced expression."""
    m = {p.iv: iv}
    for o in p.ops:
        if o in (p.comb, p.store) or not o.results or o.results[0] not in p.varying:
            continue
        if o.name == "affine.apply":
            new = o.clone(ip)
            for i, v in enumerate(o.operands):
                if v in m:
                    new.operands[i] = m[v]
        elif o.name == "affine.load" and mask is not None:
            vt = _vtype(o.results[0].type, lanes)
            amap = ir.AffineMapAttr(o.attributes["map"]).value
            ops = [m.get(v, v) for v in list(o.operands)[1:]]
            with ip:
                idx = [affine.AffineApplyOp(ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e]), ops).result
                       for e in amap.results]
                pad = arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(vt, _zero(o.results[0].type))).result
                new = vector.MaskedLoadOp(vt, o.operands[0], idx, mask, pad).operation
        elif o.name == "affine.load":
            idx = [m.get(v, v) for v in list(o.operands)[1:]]
            with ip:
                new = affine.AffineVectorLoadOp(_vtype(o.results[0].type, lanes), o.operands[0], idx,
                                                o.attributes["map"]).operation
        else:
            operands = [m[v] if v in m else bcast(v) for v in o.operands]
            new = ir.Operation.create(o.name, results=[_vtype(r.type, lanes) for r in o.results],
                                      operands=operands,
                                      attributes=_attrs(o),
                                      ip=ip, loc=o.location)
        for a, b in zip(o.results, new.results):
            m[a] = b
    return m[p.expr]


def _combine(p: _Plan, ip, a: ir.Value, b: ir.Value) -> ir.Value:
    return ir.Operation.create(p.comb.name, results=[a.type], operands=[a, b],
                               attributes=_attrs(p.comb),
                               ip=ip, loc=p.comb.location).results[0]


def _rewrite(p: _Plan) -> None:
    loop = p.loop
    # invariant ops (index maths, loads of other arrays, C's old value) before the loop
    for o in p.ops:
        if o is p.store or (o.results and o.results[0] in p.varying):
            continue
        o.move_before(loop)
    lb_map = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
    lb_ops = list(loop.operands)[:lb_map.n_inputs]
    lb = lb_map.results[0]

    def bound(off):
        return ir.AffineMap.get(lb_map.n_dims, lb_map.n_symbols, [lb + off])
    lanes, k, trip = p.lanes, p.k, p.trip
    step = k * lanes
    main = trip // step * step
    whole = trip // lanes * lanes
    ip = ir.InsertionPoint(loop)
    vt = _vtype(p.et, lanes)
    with loop.location:
        with ip:
            zero = arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(vt, _neutral(p.neutral, p.et))).result
        cache, pre = {}, ir.InsertionPoint(zero.owner)

        def bcast(v):  # once, before the loops
            if v not in cache:
                with pre:
                    cache[v] = vector.BroadcastOp(_vtype(v.type, lanes), v).result
            return cache[v]

        acc = zero
        if main:
            with ip:
                f = affine.AffineForOp(bound(0), bound(main), step, iter_args=[zero] * k,
                                       lower_bound_operands=lb_ops, upper_bound_operands=lb_ops)
            for name, a in _attrs(loop).items():
                if name not in (ATTR_VECTOR, "lowerBoundMap", "upperBoundMap", "step",
                                "operandSegmentSizes"):
                    f.operation.attributes[name] = a
            f.operation.attributes[ATTR_REDUCTION] = ir.StringAttr.get(f"{p.kind} {k}x{lanes}")
            bip = ir.InsertionPoint(f.body)
            accs = []
            for j in range(k):
                if j:
                    with bip:
                        jv = affine.AffineApplyOp(ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) + j * lanes]),
                                                  [f.induction_variable]).result
                else:
                    jv = f.induction_variable
                e = _clone_at(p, bip, jv, lanes, bcast)
                accs.append(_combine(p, bip, f.inner_iter_args[j], e))
            with bip:
                affine.AffineYieldOp(accs)
            vals = list(f.results)
            while len(vals) > 1:  # pairwise: (a0 + a1) + (a2 + a3)
                vals = [_combine(p, ip, vals[i], vals[i + 1]) for i in range(0, len(vals), 2)]
            acc = vals[0]
        if whole > main:
            with ip:
                g = affine.AffineForOp(bound(main), bound(whole), lanes, iter_args=[acc],
                                       lower_bound_operands=lb_ops, upper_bound_operands=lb_ops)
            gip = ir.InsertionPoint(g.body)
            e = _clone_at(p, gip, g.induction_variable, lanes, bcast)
            with gip:
                affine.AffineYieldOp([_combine(p, gip, g.inner_iter_args[0], e)])
            acc = g.results[0]
        if trip > whole:
            # the last trip mod lanes elements: one step under a constant mask
            # (masked loads; the lanes past the end give the neutral element)
            with ip:
                mask = vector.ConstantMaskOp(ir.VectorType.get([lanes], ir.IntegerType.get_signless(1)),
                                             [trip - whole]).result
                jt = affine.AffineApplyOp(bound(whole), lb_ops).result
            e = _clone_at(p, ip, jt, lanes, bcast, mask)
            with ip:
                e = arith.SelectOp(mask, e, zero).result
            acc = _combine(p, ip, acc, e)
        with ip:
            # (a multi_reduction: msmlir-cpu-fast-math's row-ops make f32 ones a
            # halving tree, which LLVM would otherwise expand lane by lane)
            red = vector.MultiDimReductionOp(ir.Attribute.parse(f"#vector.kind<{p.kind}>"), acc,
                                             p.cload.results[0], [0]).result
        st = p.store.clone(ip)
        st.operands[0] = red
    loop.erase()


def halving_trees(func: ir.Operation) -> None:
    """The f32 reductions made here (and the vector divisions by a value
    invariant in the row) rewritten as the hand path's row reductions are
    (msmlir-cpu-fast-math row-ops)."""
    from ..cpu.fast_math import fast_math
    fast_math(func, ops="", min_lanes=8, row_ops=True)


def reductions(loops, bits_to_lanes) -> int:
    """Rewrites the reduction loops among codegen's `loops` (its _Loop
    records); returns how many."""
    done = 0
    for rec in loops:
        try:
            p = _Plan(rec, bits_to_lanes)
        except _Skip:
            continue
        _rewrite(p)
        done += 1
    return done
