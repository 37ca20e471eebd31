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

`transposes(loops)`: a 2-d point nest (constant trips, multiples of 8, or of 4: 4 x 4 blocks) of
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

`columns(loops)`: a loop O around one elementwise loop J that accumulates
into C[.., j] (C's cell moving with J, not with O: a column sum, a bias
gradient, a matmul's k loop in (i, k, j) order) keeps blocks of up to
COLUMN_VECTORS vectors of C in registers across O (iter_args; loaded once
before, stored once after); O in strips of COLUMN_STRIP_ROWS rows when its
rows exceed COLUMN_STRIP_BYTES (the rows stream through L1 once); when C
also moves with P, the loop around O (a matmul's i), ROW_BLOCK rows of P
share each block's loop (unroll-and-jam: B's row loaded once for them); a
C = C + x * y body gets `fastmath<contract>` (an FMA, as pack-matmul's
micro-kernel). Why: as two loops C's row is loaded and stored once per
row (column sum 64x500 3.9 -> 2.8 us, hand 2.8; matmul 64^3 22 -> 6 us,
pack-matmul 4.7). Each C cell still accumulates over O in order.

`elementwise(loops)`: every other innermost loop codegen marked
`mskernel.vector` whose iterations are independent (an array it writes is
accessed in it only at the cell written in the same iteration) becomes
vector steps of the hand strategies' width (cpu/tiling.lanes: 16 x f32),
the last trip mod lanes elements one step under a constant mask (none
with integer division: padded lanes could trap; no i1 memrefs: vector<i1>
loads are bit-packed). Why: LLVM's loop vectorizer picks 8 lanes (its
256-bit preference on AVX-512): gelu*sigmoid 1M 917-1059 us, hand 633-822,
now 751-879 alone and a tie with the hand path once claimed (its fast exp
gets vscalefps there).

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
    _vector_ops([o for o in p.ops if o not in (p.comb, p.store)], p.varying, m, ip, lanes, bcast, mask)
    return m[p.expr]


def _vector_ops(ops, varying, m: dict, ip: ir.InsertionPoint, lanes: int, bcast,
                mask: ir.Value | None = None) -> None:
    """Clones `ops` whose results vary (and every affine.store) as `lanes`-wide
    vector ops at `ip`, operands mapped by `m` (extended): affine.apply kept
    scalar, loads -> affine.vector_load (vector.maskedload under `mask`),
    stores -> affine.vector_store (vector.maskedstore), arith/math ops on
    vectors (invariant operands broadcast by `bcast`)."""
    def indices(o, first):
        amap = ir.AffineMapAttr(o.attributes["map"]).value
        args = [m.get(v, v) for v in list(o.operands)[first:]]
        with ip:
            return [affine.AffineApplyOp(ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e]), args).result
                    for e in amap.results]

    for o in ops:
        if o.name == "affine.store":
            v = o.operands[0]
            v = m[v] if v in m else bcast(v)
            with ip:
                if mask is not None:
                    vector.MaskedStoreOp(o.operands[1], indices(o, 2), mask, v)
                else:
                    affine.AffineVectorStoreOp(v, o.operands[1], [m.get(x, x) for x in list(o.operands)[2:]],
                                               o.attributes["map"])
            continue
        if not o.results or o.results[0] not in varying:
            continue
        if o.name == "affine.apply":
            new = o.clone(ip)
            for i, v in enumerate(o.operands):
                if v in m:
                    new.operands[i] = m[v]
        elif o.name == "affine.load" and mask is not None:
            vt = _vtype(o.results[0].type, lanes)
            idx = indices(o, 1)
            with ip:
                pad = arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(vt, _zero(o.results[0].type))).result
                new = vector.MaskedLoadOp(vt, o.operands[0], idx, mask, pad).operation
        elif o.name == "affine.load":
            idx = [m.get(v, v) for v in list(o.operands)[1:]]
            with ip:
                new = affine.AffineVectorLoadOp(_vtype(o.results[0].type, lanes), o.operands[0], idx,
                                                o.attributes["map"]).operation
        else:
            operands = [m[v] if v in m and isinstance(m[v].type, ir.VectorType) else bcast(m.get(v, v))
                        for v in o.operands]
            new = ir.Operation.create(o.name, results=[_vtype(r.type, lanes) for r in o.results],
                                      operands=operands,
                                      attributes=_attrs(o),
                                      ip=ip, loc=o.location)
        for a, b in zip(o.results, new.results):
            m[a] = b


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


def _call_accesses(calls, one_write: bool = False) -> list:
    """(access, its cloned affine.load/store, the instance's linear forms) of
    every statement instance in `calls`, reads before writes; _Skip when an
    instance's forms are unknown, its loads/stores do not pair with its
    reads/writes, or (one_write) it writes other than exactly one cell."""
    accesses = []
    for stmt, lins, clones in calls:
        if any(l is None for l in lins):
            raise _Skip
        loads = [clones[o] for o in stmt.ops if o.name == "affine.load"]
        stores = [clones[o] for o in stmt.ops if o.name == "affine.store"]
        if (len(loads) != len(stmt.reads) or len(stores) != len(stmt.writes)
                or (one_write and len(stmt.writes) != 1)):
            raise _Skip
        accesses += [(a, o, lins) for a, o in zip(stmt.reads + stmt.writes, loads + stores)]
    return accesses


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
        if inner.trip is None or outer.trip is None:
            raise _Skip
        # 8 x 8 blocks; 4 x 4 where the trips are multiples of 4 only (the
        # tail tiles of 500 x 700: 20, 28)
        self.b = b = next((b for b in (TRANSPOSE_BLOCK, TRANSPOSE_BLOCK // 2)
                           if not inner.trip % b and not outer.trip % b), None)
        if b is None:
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
        accesses = _call_accesses(inner.calls, one_write=True)
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
    b = p.b
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


# --- elementwise loops ----------------------------------------------------------------

ATTR_ELEMENTWISE = "mskernel.vector_elementwise"   # on the vector loop: "<lanes>"
# integer ops a masked-off lane (padded with 0) could trap on
_TRAPPING = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi",
             "arith.ceildivui", "arith.floordivsi")


def _bits(t: ir.Type) -> int | None:
    if isinstance(t, ir.FloatType):
        return ir.FloatType(t).width
    if isinstance(t, ir.IntegerType):
        return ir.IntegerType(t).width
    return None


class _EPlan:
    """An innermost unit-step loop codegen marked `mskernel.vector` (every
    varying access contiguous), constant trip count, whose iterations are
    independent: every array it writes is accessed in it only at the cell
    written in the same iteration (that cell moving with the loop), the
    body loads / stores / arith / math ops (no index maths on the iterator,
    no i1 memrefs: vector<i1> loads are bit-packed)."""

    def __init__(self, rec, bits_to_lanes):
        loop = rec.op
        if loop is None or loop.name != "affine.for" or ATTR_VECTOR not in loop.attributes \
                or rec.inner or rec.step != 1 or not rec.calls or rec.trip is None:
            raise _Skip
        lb_map = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
        if len(lb_map.results) != 1:
            raise _Skip
        body = loop.regions[0].blocks[0]
        self.loop, self.iv, self.trip = loop, body.arguments[0], rec.trip
        self.ops = [o.operation for o in body.operations if o.operation.name != "affine.yield"]
        self.varying = {self.iv}
        for o in self.ops:
            if o.regions or not (o.name in ("affine.apply", "affine.load", "affine.store")
                                 or o.name.startswith(_PURE)):
                raise _Skip
            if any(v in self.varying for v in o.operands):
                self.varying.update(o.results)
        accesses = _call_accesses(rec.calls)
        if sum(1 for o in self.ops if o.name in ("affine.load", "affine.store")) != len(accesses):
            raise _Skip
        written = {}
        for acc, op, lins in accesses:
            if op.name == "affine.store":
                written.setdefault(op.operands[1], set()).add(_cell(acc, lins))
        self.accesses, self.written = accesses, written
        bits = []
        for acc, op, lins in accesses:
            store = op.name == "affine.store"
            mem = op.operands[1] if store else op.operands[0]
            cells = written.get(mem)
            if cells is not None and (len(cells) != 1 or _cell(acc, lins) not in cells):
                raise _Skip
            et = ir.MemRefType(mem.type).element_type
            if _bits(et) in (None, 1):
                raise _Skip
            bits.append(_bits(et))
            moves = _dims(acc, lins, rec.name)
            if moves is None:
                raise _Skip
            if not moves and (store or cells is not None):
                raise _Skip     # a cell the whole loop writes (a reduction) / reads and writes
            if moves:
                rank = len(ir.MemRefType(mem.type).shape)
                if moves != [(rank - 1, 1)] or not _contiguous_memref(mem.type):
                    raise _Skip
        for o in self.ops:
            if o.name.startswith(_PURE):
                types = [v.type for v in list(o.operands) + list(o.results)]
                if any(_is_index(t) or isinstance(t, (ir.VectorType, ir.ShapedType)) for t in types):
                    raise _Skip
                bits += [b for b in map(_bits, types) if b not in (None, 1)]
        if not bits:
            raise _Skip
        self.lanes = bits_to_lanes(max(bits))
        if self.trip < self.lanes:
            self.lanes = 1 << (self.trip.bit_length() - 1)
        if self.lanes < MIN_LANES:
            raise _Skip
        if self.trip % self.lanes and any(o.name in _TRAPPING for o in self.ops):
            raise _Skip     # the masked tail's padding lanes could divide by zero


def _rewrite_elementwise(p: _EPlan) -> None:
    """The loop as vector steps of `lanes`, the last trip mod lanes elements
    one step under a constant mask (masked loads and stores)."""
    loop, lanes, trip = p.loop, p.lanes, p.trip
    for o in p.ops:  # invariant ops (index maths, loads of other arrays) before the loop
        if o.name != "affine.store" and not (o.results and o.results[0] in p.varying):
            o.move_before(loop)
    lb_map = ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value
    lb_ops = list(loop.operands)[:lb_map.n_inputs]

    def bound(off):
        return ir.AffineMap.get(lb_map.n_dims, lb_map.n_symbols, [lb_map.results[0] + off])
    whole = trip // lanes * lanes
    ip = ir.InsertionPoint(loop)
    cache, pre = {}, [ip]

    def bcast(v):  # once, before the loops (constants as splat constants, as the hand path's)
        if v not in cache:
            vt, d = _vtype(v.type, lanes), _owner(v)
            with pre[0]:
                if d is not None and d.name == "arith.constant":
                    cache[v] = arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(
                        vt, d.attributes["value"])).result
                else:
                    cache[v] = vector.BroadcastOp(vt, v).result
        return cache[v]
    with loop.location:
        if whole:
            with ip:
                f = affine.AffineForOp(bound(0), bound(whole), lanes,
                                       lower_bound_operands=lb_ops, upper_bound_operands=lb_ops)
            pre[0] = ir.InsertionPoint(f.operation)
            for name, a in _attrs(loop).items():
                if name not in (ATTR_VECTOR, "lowerBoundMap", "upperBoundMap", "step",
                                "operandSegmentSizes"):
                    f.operation.attributes[name] = a
            f.operation.attributes[ATTR_ELEMENTWISE] = ir.StringAttr.get(f"{lanes}")
            bip = ir.InsertionPoint(f.body)
            _vector_ops(p.ops, p.varying, {p.iv: f.induction_variable}, bip, lanes, bcast)
            with bip:
                affine.AffineYieldOp([])
        if trip > whole:
            with ip:
                mask = vector.ConstantMaskOp(ir.VectorType.get([lanes], ir.IntegerType.get_signless(1)),
                                             [trip - whole]).result
                jt = affine.AffineApplyOp(bound(whole), lb_ops).result
            _vector_ops(p.ops, p.varying, {p.iv: jt}, ip, lanes, bcast, mask)
    loop.erase()


def elementwise(loops, bits_to_lanes) -> int:
    """Rewrites the independent-iteration innermost loops among codegen's
    `loops` (after `reductions` and `transposes` took theirs) as vector
    loops of the hand strategies' width; returns how many."""
    done = 0
    for rec in loops:
        try:
            p = _EPlan(rec, bits_to_lanes)
        except _Skip:
            continue
        _rewrite_elementwise(p)
        rec.op = None
        done += 1
    return done


# --- reductions over an outer loop (column sums) ---------------------------------------

COLUMN_VECTORS = 8   # accumulator vectors kept in registers across the reduced loop
# A reduced loop over more than this many bytes of rows runs in strips of
# COLUMN_STRIP_ROWS rows, every column block per strip (the rows stream
# through L1 once, as the hand path's 8-row blocks: a 4096x1024 column sum
# 914 us with one pass per column block over all rows, hand 569)
COLUMN_STRIP_BYTES = 32 << 10
COLUMN_STRIP_ROWS = 8
# Rows of P (the loop around the reduced one, when the result moves with it:
# a matmul's i) blocked together, at most MAX_ACCUMULATORS vectors in all
ROW_BLOCK = 4
MAX_ACCUMULATORS = 24
ATTR_COLUMNS = "mskernel.vector_columns"   # on the reduced loop: "<vectors>x<lanes>"


class _CPlan:
    """A loop O whose body is one elementwise vector loop J (_EPlan) that
    accumulates into one array C (one load and one store of the same cell,
    the cell moving with J and not with O: C[j] = g(C[j], A[o, j], ...)):
    what a column sum / bias gradient is after the schedule put the reduced
    loop outside the contiguous one. Why: as two loops, C's row is loaded
    and stored once per row of A (a store-to-load chain through L1; 64x500
    column sum 3.3 us against the hand path's 2.8); as blocks of up to
    COLUMN_VECTORS vectors of C held in registers across O, each C vector
    is loaded and stored once (legal: J's iterations are independent and
    O's only carry C's cells, whose order per cell is kept)."""

    def __init__(self, inner, by_op, bits_to_lanes):
        self.e = e = _EPlan(inner, bits_to_lanes)
        self.inner = inner
        loop = inner.op
        parent = loop.parent
        outer = by_op.get(getattr(parent, "operation", parent))
        if outer is None or outer.op.name != "affine.for" or outer.step != 1:
            raise _Skip
        obody = [o.operation for o in outer.op.regions[0].blocks[0].operations]
        if len(obody) != 2 or obody[0] != loop:
            raise _Skip
        self.oiv = outer.op.regions[0].blocks[0].arguments[0]
        if self.oiv in list(loop.operands):
            raise _Skip
        if len(e.written) != 1:
            raise _Skip
        mem = next(iter(e.written))
        stores = [op for _, op, _ in e.accesses if op.name == "affine.store"]
        loads = [op for _, op, _ in e.accesses if op.name == "affine.load" and op.operands[0] == mem]
        if len(stores) != 1 or len(loads) != 1:
            raise _Skip
        for acc, op, lins in e.accesses:
            m = op.operands[1] if op.name == "affine.store" else op.operands[0]
            if m == mem and _dims(acc, lins, outer.name) != []:
                raise _Skip     # C's cell moves with O: not a reduction over O
        self.outer, self.store, self.cload = outer, stores[0], loads[0]
        # C = C + x * y (a matmul's k loop): the multiply and add contracted
        # into an FMA, as pack-matmul's micro-kernel computes it
        self.fma = None
        acc = _owner(self.store.operands[0])
        if acc is not None and acc.name == "arith.addf" and self.cload.results[0] in list(acc.operands):
            other = [v for v in acc.operands if v != self.cload.results[0]]
            mul = _owner(other[0]) if len(other) == 1 else None
            if mul is not None and mul.name == "arith.mulf" and len(list(mul.results[0].uses)) == 1:
                self.fma = (mul, acc)
        if self.store.operands[0] not in e.varying:
            raise _Skip
        # values varying with O (not with J): scalars, once per O iteration
        self.ovary = {self.oiv}
        for o in e.ops:
            if any(v in self.ovary for v in o.operands):
                self.ovary.update(o.results)
        for o in (self.cload, self.store):
            if any(v in self.ovary for v in list(o.operands)[1 if o is self.cload else 2:]):
                raise _Skip
        # P, the loop around O (a matmul's rows): when C's cell moves with it
        # (its iterations then write disjoint cells, read only their own),
        # ROW_BLOCK of its iterations share each column block's loop over O:
        # what is loaded along O but not along P (B's rows) is loaded once
        # for all of them (unroll-and-jam)
        self.p = None
        prec = by_op.get(getattr(outer.op.parent, "operation", outer.op.parent))
        if prec is not None and prec.op.name == "affine.for" and prec.step == 1 and prec.trip \
                and prec.trip >= 2:
            pbody = [o.operation for o in prec.op.regions[0].blocks[0].operations]
            piv = prec.op.regions[0].blocks[0].arguments[0]
            lb = ir.AffineMapAttr(prec.op.attributes["lowerBoundMap"]).value
            cacc = next(acc for acc, op, _ in e.accesses if op is self.store)
            clins = next(lins for _, op, lins in e.accesses if op is self.store)
            if len(pbody) == 2 and pbody[0] == outer.op and len(lb.results) == 1 \
                    and piv not in list(outer.op.operands) and piv not in list(loop.operands) \
                    and _dims(cacc, clins, prec.name):
                self.p, self.piv = prec, piv
                self.pvary = {piv}
                for o in e.ops:
                    if any(v in self.pvary for v in o.operands):
                        self.pvary.update(o.results)


def _contract(*ops) -> None:
    """`fastmath<contract>` on `ops` (LLVM may then fuse a multiply and add)."""
    for o in ops:
        o = getattr(o, "operation", o)
        o.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<contract>")


def _rewrite_columns(p: _CPlan) -> None:
    e, outer = p.e, p.outer.op
    lanes, trip, jiv = e.lanes, e.trip, e.iv
    cres = p.cload.results[0]
    ops = [o for o in e.ops if o not in (p.cload, p.store)]
    nvec_all = -(-trip // lanes)
    rows_per = 1
    if p.p is not None:
        rows_per = max(1, min(ROW_BLOCK, MAX_ACCUMULATORS // min(nvec_all, COLUMN_VECTORS + 2), p.p.trip))
    blocked = rows_per > 1
    top = p.p.op if blocked else outer
    pvary = p.pvary if blocked else set()
    # ops varying with neither loop (nor with P when rows are blocked): before
    # them all; those varying with P only: cloned per row
    prow = []
    for o in e.ops:
        if o.name != "affine.store" and o.results and o.results[0] not in e.varying \
                and o.results[0] not in p.ovary:
            if o.results[0] in pvary:
                prow.append(o)
            else:
                o.move_before(top)
    jmap = ir.AffineMapAttr(e.loop.attributes["lowerBoundMap"]).value
    j_ops = list(e.loop.operands)[:jmap.n_inputs]
    olb = ir.AffineMapAttr(outer.attributes["lowerBoundMap"]).value
    oub = ir.AffineMapAttr(outer.attributes["upperBoundMap"]).value
    oops = list(outer.operands)
    olb_ops, oub_ops = oops[:olb.n_inputs], oops[olb.n_inputs:olb.n_inputs + oub.n_inputs]
    ip = ir.InsertionPoint(top)
    pre = {}
    i1 = ir.IntegerType.get_signless(1)
    # the index maths of C's cell (moves with J, and with P)
    japplies = [o for o in e.ops if o.name == "affine.apply" and o.results[0] in e.varying
                and o.results[0] not in p.ovary]

    def bcast_at(v, where):
        key = (v, where is None)
        if key not in pre:
            vt, d = _vtype(v.type, lanes), _owner(v)
            with (where or ip):
                if d is not None and d.name == "arith.constant":
                    pre[key] = arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(
                        vt, d.attributes["value"])).result
                else:
                    pre[key] = vector.BroadcastOp(vt, v).result
        return pre[key]

    def block(at, jb, count, masked, jb_ops, rows, rmaps):
        """`count` vectors of C from column offset jb (an affine map of
        jb_ops), the last under a constant mask of trip mod lanes lanes
        when `masked`, for each row of P `rmaps` gives (its values of the
        P-varying scalars): loaded, accumulated over the O iterations `rows`
        ((lb map, ub map, lb operands, ub operands)) in registers, stored."""
        def j_at(k, where):
            with where:
                return affine.AffineApplyOp(ir.AffineMap.get(jb.n_dims, jb.n_symbols,
                                                             [jb.results[0] + k * lanes]), jb_ops).result
        local = {v for rm in rmaps for v in rm.values()}

        def bcast_before(v):
            return bcast_at(v, at if v in local else None)
        masks = [None] * count
        if masked:
            with at:
                masks[-1] = vector.ConstantMaskOp(ir.VectorType.get([lanes], i1), [trip % lanes]).result
        js = [j_at(k, at) for k in range(count)]
        cells = [(r, k) for r in range(len(rmaps)) for k in range(count)]
        accs = []
        for r, k in cells:
            m = {**rmaps[r], jiv: js[k]}
            _vector_ops(japplies + [p.cload], e.varying, m, at, lanes, bcast_before, masks[k])
            accs.append(m[cres])
        with at:
            f = affine.AffineForOp(rows[0], rows[1], 1, iter_args=accs,
                                   lower_bound_operands=rows[2], upper_bound_operands=rows[3])
        f.operation.attributes[ATTR_COLUMNS] = ir.StringAttr.get(
            f"{count}x{lanes}" + (f" rows {len(rmaps)}" if len(rmaps) > 1 else ""))
        bip = ir.InsertionPoint(f.body)
        inside = {}
        mis = []
        for rm in rmaps:   # once per O iteration and row: what varies with O, not J (scalars)
            mi = {**rm, p.oiv: f.induction_variable}
            for o in ops:
                if o.results and o.results[0] in p.ovary and o.results[0] not in e.varying:
                    new = o.clone(bip)
                    for i, v in enumerate(o.operands):
                        new.operands[i] = mi.get(v, v)
                    for a, b in zip(o.results, new.results):
                        mi[a] = b
                        inside[b] = None
            mis.append(mi)

        def bcast(v):
            if v in inside:
                if inside[v] is None:
                    with bip:
                        inside[v] = vector.BroadcastOp(_vtype(v.type, lanes), v).result
                return inside[v]
            return bcast_before(v)
        new_accs = []
        for n, (r, k) in enumerate(cells):
            m = dict(mis[r])
            m[jiv] = js[k]
            m[cres] = f.inner_iter_args[n]
            _vector_ops([o for o in ops if o.name != "affine.store"], e.varying, m, bip, lanes, bcast,
                        masks[k])
            new_accs.append(m[p.store.operands[0]])
            if p.fma is not None:
                _contract(m[p.fma[0].results[0]].owner, m[p.fma[1].results[0]].owner)
        with bip:
            affine.AffineYieldOp(new_accs)
        for n, (r, k) in enumerate(cells):   # (at `at`: after the loop)
            _vector_ops(japplies + [p.store], e.varying,
                        {**rmaps[r], jiv: js[k], p.store.operands[0]: f.results[n]},
                        at, lanes, bcast_before, masks[k])

    def columns_at(at, rows, rmaps):
        """Every column of C in blocks (accumulated over `rows`) at `at`."""
        nvec = trip // lanes
        k = COLUMN_VECTORS
        # up to COLUMN_VECTORS + 2 vectors (the tail's included): one block
        full = 0 if nvec + (1 if trip % lanes else 0) <= k + 2 else nvec // k
        if full > 1:
            with at:
                g = affine.AffineForOp(jmap, ir.AffineMap.get(jmap.n_dims, jmap.n_symbols,
                                                              [jmap.results[0] + full * k * lanes]),
                                       k * lanes, lower_bound_operands=j_ops, upper_bound_operands=j_ops)
            with ir.InsertionPoint(g.body):
                y = affine.AffineYieldOp([])
            d = ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0)])
            block(ir.InsertionPoint(y), d, k, False, [g.induction_variable], rows, rmaps)
        elif full == 1:
            block(at, jmap, k, False, j_ops, rows, rmaps)
        rest = nvec - full * k
        if rest or trip % lanes:
            off = ir.AffineMap.get(jmap.n_dims, jmap.n_symbols, [jmap.results[0] + full * k * lanes])
            block(at, off, rest + (1 if trip % lanes else 0), bool(trip % lanes), j_ops, rows, rmaps)

    def shifted(m, by):
        return ir.AffineMap.get(m.n_dims, m.n_symbols, [m.results[0] + by])
    otrip = p.outer.trip
    row_bytes = trip * max(_bits(ir.MemRefType(op.operands[0].type).element_type)
                           for _, op, _ in e.accesses if op.name == "affine.load") // 8
    strips = (otrip is not None and len(olb.results) == 1 and otrip * row_bytes > COLUMN_STRIP_BYTES
              and otrip >= 2 * COLUMN_STRIP_ROWS)

    def emit(at, rmaps):
        """The O loop (in strips when its rows are big) over every column block."""
        if not strips:
            columns_at(at, (olb, oub, olb_ops, oub_ops), rmaps)
            return
        rb = COLUMN_STRIP_ROWS
        n = otrip // rb
        with at:
            s_loop = affine.AffineForOp(olb, shifted(olb, n * rb), rb,
                                        lower_bound_operands=olb_ops, upper_bound_operands=olb_ops)
        with ir.InsertionPoint(s_loop.body):
            y = affine.AffineYieldOp([])
        d = ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0)])
        sv = [s_loop.induction_variable]
        columns_at(ir.InsertionPoint(y), (d, shifted(d, rb), sv, sv), rmaps)
        if otrip % rb:
            columns_at(at, (shifted(olb, n * rb), oub, olb_ops, oub_ops), rmaps)

    def rows_of(at, base, count):
        """Per row r < count at P's iteration `base`: {P-varying value: its clone}."""
        out = []
        for r in range(count):
            with at:
                iv = affine.AffineApplyOp(ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) + r]),
                                          [base]).result
            rm = {p.piv: iv}
            for o in prow:
                new = o.clone(at)
                for i, v in enumerate(o.operands):
                    new.operands[i] = rm.get(v, v)
                for a, b in zip(o.results, new.results):
                    rm[a] = b
            out.append(rm)
        return out

    with outer.location:
        if not blocked:
            emit(ip, [{}])
        else:
            prec = p.p.op
            plb = ir.AffineMapAttr(prec.attributes["lowerBoundMap"]).value
            pub = ir.AffineMapAttr(prec.attributes["upperBoundMap"]).value
            pops = list(prec.operands)
            plb_ops, pub_ops = pops[:plb.n_inputs], pops[plb.n_inputs:plb.n_inputs + pub.n_inputs]
            n = p.p.trip // rows_per
            for start, end, end_ops, step, count in (
                    (shifted(plb, 0), shifted(plb, n * rows_per), plb_ops, rows_per, rows_per),
                    (shifted(plb, n * rows_per), pub, pub_ops, 1, 1)):
                if count == 1 and p.p.trip % rows_per == 0:
                    continue
                with ip:
                    q = affine.AffineForOp(start, end, step, lower_bound_operands=plb_ops,
                                           upper_bound_operands=end_ops)
                for name, a in _attrs(prec).items():
                    if name not in ("lowerBoundMap", "upperBoundMap", "step", "operandSegmentSizes"):
                        q.operation.attributes[name] = a
                with ir.InsertionPoint(q.body):
                    y = affine.AffineYieldOp([])
                at = ir.InsertionPoint(y)
                emit(at, rows_of(at, q.induction_variable, count))
    if blocked:
        p.p.op.erase()
    else:
        outer.erase()


def columns(loops, bits_to_lanes) -> int:
    """Rewrites the reductions over an outer loop among codegen's `loops`
    (_CPlan) as register-blocked vector columns; returns how many."""
    live = [rec for rec in loops if rec.op is not None]
    by_op = {rec.op: rec for rec in live}
    plans = []
    for rec in live:
        try:
            plans.append(_CPlan(rec, by_op, bits_to_lanes))
        except _Skip:
            continue
    for p in plans:
        _rewrite_columns(p)
        p.outer.op = p.inner.op = None
        if p.p is not None:
            p.p.op = None
    return len(plans)
