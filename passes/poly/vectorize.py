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
count is a constant of at least MIN_LANES (a loop shorter than one vector,
such as the tail of a tiled reduction schedule.isolate_full_tiles made
constant, uses the widest power-of-two vector it fills):

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

A loop whose bounds are not a constant apart (a tile's point loop ending at
min(T, N - t), where isolate_full_tiles could not separate the partial
tiles: inside the partial tiles of an outer tile level) becomes one vector
step at a time, each under `vector.create_mask` of min(lanes, ub - j)
lanes (masked loads, the neutral element selected past the end).

`transposes(loops)`: a 2-d point nest (constant trips, multiples of 8) of
elementwise statements writing C[.., i, .., j] along j that read some array
transposed (its last index moving with i) becomes 8 x 8 vector blocks:
vector.transfer_read with a transposing permutation map, the ops on
vector<8x8>, transfer_write (msmlir-cpu-lower-vectors lowers them as it
does the hand path's 8 x 8 transposed tiles). Why: LLVM leaves the strided
read scalar (session 9, thread CPU time over 4 input placements, load 10,
min us vector / scalar / hand: transpose 512x768 121/193/155, 1000^2
360/494/326, 1024^2 523/725/889; a transpose + add fused by isl: a tie,
memory bound, 545/586/856 at 1000^2). Legal because every statement of
the nest is elementwise over the block: an array the nest writes is read
only at the cell written in the same iteration (checked; such a read is
forwarded from the stored block, and a store overwritten later dropped).

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
MIN_LANES = 4   # shorter loops stay scalar

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
        if loop is None or loop.name != "affine.for" or ATTR_VECTOR not in loop.attributes or rec.inner:
            raise _Skip
        if len(rec.calls) != 1:
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
        if self.trip is None:
            # bounds that are not a constant apart (a tile ending at min(T, N - t)):
            # one vector step at a time, each under a mask of the lanes left
            if len(lb_map.results) != 1:
                raise _Skip
            self.k = 1
            return
        if self.trip < self.lanes:
            # a short loop (a tile's tail, isolated by schedule.isolate_full_tiles):
            # the widest power-of-two vector it fills, at least MIN_LANES
            self.lanes = 1 << (self.trip.bit_length() - 1)
        if len(lb_map.results) != 1 or self.lanes < MIN_LANES:
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


def _rewrite_dynamic(p: _Plan, ip, zero, bcast) -> ir.Value:
    """The loop as `for j = lb to ub step lanes`, each step's loads masked
    to min(lanes, ub - j) lanes (vector.create_mask; masked-off lanes give
    the neutral element); returns the vector accumulator."""
    loop, lanes = p.loop, p.lanes
    lb_map = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
    ub_map = ir.AffineMapAttr(loop.attributes["upperBoundMap"]).value
    ops = list(loop.operands)
    lb_ops, ub_ops = ops[:lb_map.n_inputs], ops[lb_map.n_inputs:lb_map.n_inputs + ub_map.n_inputs]
    with ip:
        f = affine.AffineForOp(lb_map, ub_map, lanes, iter_args=[zero],
                               lower_bound_operands=lb_ops, upper_bound_operands=ub_ops)
    f.operation.attributes[ATTR_REDUCTION] = ir.StringAttr.get(f"{p.kind} masked x{lanes}")
    bip = ir.InsertionPoint(f.body)
    nd = ub_map.n_dims
    j = ir.AffineDimExpr.get(nd)
    left = ir.AffineMap.get(nd + 1, ub_map.n_symbols,
                            [e - j for e in ub_map.results] + [ir.AffineConstantExpr.get(lanes)])
    with bip:
        n = affine.AffineMinOp(left, ub_ops[:nd] + [f.induction_variable] + ub_ops[nd:]).result
        mask = vector.CreateMaskOp(ir.VectorType.get([lanes], ir.IntegerType.get_signless(1)), [n]).result
    e = _clone_at(p, bip, f.induction_variable, lanes, bcast, mask)
    with bip:
        e = arith.SelectOp(mask, e, zero).result
        affine.AffineYieldOp([_combine(p, bip, f.inner_iter_args[0], e)])
    return f.results[0]


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
    lanes, k, trip = p.lanes, p.k, p.trip or 0
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
        if p.trip is None:
            acc = _rewrite_dynamic(p, ip, zero, bcast)
            main = whole = trip = 0
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
        rec.op = None   # (erased)
        done += 1
    return done


# --- transposed elementwise tiles ---------------------------------------------------

TRANSPOSE_BLOCK = 8   # the hand path's transposed tiles (msmlir-cpu-tile-vectorize: 8 x 8)
ATTR_TRANSPOSE = "mskernel.vector_transpose"


def _dims(acc, lins, name: str) -> list[tuple[int, int]] | None:
    """[(memref dim, coefficient)] along which access `acc` moves when AST
    iterator `name` steps by one (None: not linear)."""
    out = []
    for d, lin in enumerate(acc.coeffs):
        if lin is None:
            return None
        c = sum(v * lins[k].get(name, 0) for k, v in lin.items() if k != "const")
        if c:
            out.append((d, c))
    return out


def _cell(acc, lins) -> tuple | None:
    """The cell access `acc` touches, as linear forms in the AST iterators."""
    out = []
    for lin in acc.coeffs:
        if lin is None:
            return None
        form = {}
        for k, v in lin.items():
            terms = {1: 1} if k == "const" else lins[k]
            for name, c in terms.items():
                form[name] = form.get(name, 0) + v * c
        out.append(frozenset((n, c) for n, c in form.items() if c))
    return tuple(out)


class _TPlan:
    """A 2-d point nest (outer i, inner j, constant trips multiples of
    TRANSPOSE_BLOCK) of one elementwise statement writing C[.., i, .., j]
    contiguously along j that reads at least one array transposed (its last
    index moves with i, another with j): what the hand path vectorizes as
    8 x 8 transposed tiles, and LLVM leaves scalar (a strided read)."""

    def __init__(self, inner, by_op):
        loop = inner.op
        if loop is None or loop.name != "affine.for" or inner.inner or inner.step != 1 \
                or not inner.calls:
            raise _Skip
        parent = loop.parent
        outer = by_op.get(getattr(parent, "operation", parent))
        if outer is None or outer.step != 1 or outer.op.name != "affine.for":
            raise _Skip
        obody = [o.operation for o in outer.op.regions[0].blocks[0].operations]
        if len(obody) != 2 or obody[0] != loop:
            raise _Skip
        b = TRANSPOSE_BLOCK
        if inner.trip is None or outer.trip is None or inner.trip % b or outer.trip % b:
            raise _Skip
        for rec in (inner, outer):
            lb = ir.AffineMapAttr(rec.op.attributes["lowerBoundMap"]).value
            if len(lb.results) != 1:
                raise _Skip
        oiv = outer.op.regions[0].blocks[0].arguments[0]
        if oiv in list(loop.operands):
            raise _Skip  # inner bounds depend on the outer loop
        self.inner, self.outer = inner, outer
        self.ivs = (oiv, loop.regions[0].blocks[0].arguments[0])
        self.ops = [o.operation for o in loop.regions[0].blocks[0].operations
                    if o.operation.name != "affine.yield"]
        self.maps = {}   # load / store op -> (dim moved by i or None, dim moved by j or None)
        self.cells = {}  # load / store op -> (memref, cell)
        transposed = False
        accesses = []
        for stmt, lins, clones in inner.calls:
            if any(l is None for l in lins):
                raise _Skip
            loads = [clones[o] for o in stmt.ops if o.name == "affine.load"]
            stores = [clones[o] for o in stmt.ops if o.name == "affine.store"]
            if len(stores) != 1 or len(stmt.writes) != 1 or len(loads) != len(stmt.reads):
                raise _Skip
            accesses += [(acc, op, lins) for acc, op in zip(stmt.reads, loads)]
            accesses.append((stmt.writes[0], stores[0], lins))
        # a written array is read only at the cell written there (no value
        # crosses between the cells of a block: any order of them is legal)
        written = {}
        for acc, op, lins in accesses:
            if op.name == "affine.store":
                written.setdefault(op.operands[1], []).append(_cell(acc, lins))
        for acc, op, lins in accesses:
            mem = op.operands[0] if op.name == "affine.load" else op.operands[1]
            if any(c != _cell(acc, lins) for c in written.get(mem, [])):
                raise _Skip
        for acc, op, lins in accesses:
            di, dj = _dims(acc, lins, outer.name), _dims(acc, lins, inner.name)
            if di is None or dj is None or len(di) > 1 or len(dj) > 1 \
                    or any(c != 1 for _, c in di + dj):
                raise _Skip
            i, j = (di[0][0] if di else None), (dj[0][0] if dj else None)
            if i is not None and i == j:
                raise _Skip
            mem = op.operands[1] if op.name == "affine.store" else op.operands[0]
            rank = len(ir.MemRefType(mem.type).shape)
            if op.name == "affine.store" and (j != rank - 1 or i is None):
                raise _Skip
            if (i is not None or j is not None) and not _contiguous_memref(mem.type):
                raise _Skip
            transposed = transposed or (i == rank - 1 and j is not None)
            self.maps[op] = (i, j)
            self.cells[op] = (mem, _cell(acc, lins))
        if not transposed:
            raise _Skip
        for o in self.ops:
            if o.regions or not (o.name in ("affine.apply", "affine.load", "affine.store")
                                 or o.name.startswith(_PURE)):
                raise _Skip
            if o.name.startswith(_PURE) and any(_is_index(v.type) for v in list(o.operands) + list(o.results)):
                raise _Skip


def _indices(op: ir.Operation, m: dict, ip) -> list[ir.Value]:
    """The index values of affine load/store `op` with its operands mapped by `m`."""
    first = 2 if op.name == "affine.store" else 1
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    ops = [m.get(v, v) for v in list(op.operands)[first:]]
    with ip:
        return [affine.AffineApplyOp(ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e]), ops).result
                for e in amap.results]


def _rewrite_transpose(p: _TPlan) -> None:
    b = TRANSPOSE_BLOCK
    outer, inner = p.outer.op, p.inner.op

    def bounds(rec):
        lb = ir.AffineMapAttr(rec.op.attributes["lowerBoundMap"]).value
        ops = list(rec.op.operands)[:lb.n_inputs]
        ub = ir.AffineMap.get(lb.n_dims, lb.n_symbols, [lb.results[0] + rec.trip])
        return lb, ub, ops
    lb0, ub0, ops0 = bounds(p.outer)
    lb1, ub1, ops1 = bounds(p.inner)
    with outer.location:
        with ir.InsertionPoint(outer):
            fo = affine.AffineForOp(lb0, ub0, b, lower_bound_operands=ops0, upper_bound_operands=ops0)
        with ir.InsertionPoint(fo.body):
            fi = affine.AffineForOp(lb1, ub1, b, lower_bound_operands=ops1, upper_bound_operands=ops1)
            affine.AffineYieldOp([])
        for name, a in _attrs(outer).items():
            if name not in ("lowerBoundMap", "upperBoundMap", "step", "operandSegmentSizes"):
                fo.operation.attributes[name] = a
        fi.operation.attributes[ATTR_TRANSPOSE] = ir.StringAttr.get(f"{b}x{b}")
        ip = ir.InsertionPoint(fi.body)
        m = {p.ivs[0]: fo.induction_variable, p.ivs[1]: fi.induction_variable}
        vec = set()
        # a block stored and read again in the same iteration (a transpose
        # written to the output, then read by its consumer: two statements
        # isl fused) is forwarded, and a store a later one overwrites dropped
        stored = {}
        stores = [o for o in p.ops if o.name == "affine.store"]
        last = {p.cells[o]: o for o in stores}

        def vt(t):
            return ir.VectorType.get([b, b], t)

        def as_vector(v):
            if v in vec:
                return v
            with ip:
                return vector.BroadcastOp(vt(v.type), v).result

        for o in p.ops:
            if o.name == "affine.apply":
                new = o.clone(ip)
                for k, v in enumerate(o.operands):
                    new.operands[k] = m.get(v, v)
                m[o.results[0]] = new.results[0]
            elif o.name == "affine.load" and p.maps[o] == (None, None):
                new = o.clone(ip)
                for k, v in enumerate(o.operands):
                    new.operands[k] = m.get(v, v)
                m[o.results[0]] = new.results[0]
            elif o.name == "affine.load" and p.cells[o] in stored:
                m[o.results[0]] = stored[p.cells[o]]
            elif o.name == "affine.store" and last[p.cells[o]] is not o:
                stored[p.cells[o]] = as_vector(m[o.operands[0]])
            elif o.name in ("affine.load", "affine.store"):
                mem = o.operands[1] if o.name == "affine.store" else o.operands[0]
                rank = len(ir.MemRefType(mem.type).shape)
                i, j = p.maps[o]
                perm = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) if d is not None
                                                  else ir.AffineConstantExpr.get(0) for d in (i, j)])
                idx = _indices(o, m, ip)
                inb = ir.ArrayAttr.get([ir.BoolAttr.get(True)] * 2)
                with ip:
                    if o.name == "affine.load":
                        et = o.results[0].type
                        pad = arith.ConstantOp(et, _zero(et)).result
                        r = vector.TransferReadOp(vt(et), mem, idx, ir.AffineMapAttr.get(perm), pad,
                                                  inb).result
                        m[o.results[0]] = r
                        vec.add(r)
                    else:
                        vector.TransferWriteOp(None, as_vector(m[o.operands[0]]), mem, idx,
                                               ir.AffineMapAttr.get(perm), inb)
            else:
                args = [m.get(v, v) for v in o.operands]
                if any(a in vec for a in args):
                    args = [as_vector(a) for a in args]
                    new = ir.Operation.create(o.name, results=[vt(r.type) for r in o.results],
                                              operands=args, attributes=_attrs(o), ip=ip,
                                              loc=o.location)
                    vec.update(new.results)
                else:
                    new = o.clone(ip)
                    for k, a in enumerate(args):
                        new.operands[k] = a
                for a, r in zip(o.results, new.results):
                    m[a] = r
        with ip:
            affine.AffineYieldOp([])
    outer.erase()


def transposes(loops) -> int:
    """Rewrites the transposed elementwise point nests among codegen's
    `loops` as TRANSPOSE_BLOCK^2 vector tiles (vector.transfer_read with a
    transposing permutation map; the CPU pipeline's msmlir-cpu-lower-vectors
    lowers them as it does the hand path's); returns how many."""
    live = [rec for rec in loops if rec.op is not None]
    by_op = {rec.op: rec for rec in live}
    plans = []
    for rec in live:
        try:
            plans.append(_TPlan(rec, by_op))
        except _Skip:
            continue
    for p in plans:   # (all planned first: a rewrite erases the loops it replaces)
        _rewrite_transpose(p)
        p.outer.op = p.inner.op = None
    return len(plans)
