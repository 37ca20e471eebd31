"""Differentiation of scf.if, scf.for, scf.while and func.call.

scf.if   forward: both branches copied; the values the backward needs from
         inside a branch become extra results of the forward scf.if (the other
         branch yields placeholders). backward: an scf.if on the same
         condition, each branch holding its branch's backward and yielding the
         cotangents of the outer values the branch used.
scf.for  forward: the loop, plus one loop-carried stack per saved value,
         tensor<N x ...> written at the iteration number (N = trip count:
         static when the bounds are constants, run time otherwise); no
         unrolling. backward: a loop over the iterations in reverse, carrying
         the cotangents of the iter_args and accumulating those of the outer
         values; it reads the saved values from the stacks.
scf.while forward: the loop, plus an iteration counter and stacks of run-time
         size (tensor<? x ...>, capacity doubled when full) for the values the
         backward needs from the `before` and `after` regions. backward: the
         last `before` execution, then a reverse scf.for over the n iterations
         (n = the counter), each step the `after` then the `before` backward.
func.call the callee is differentiated once per set of varied arguments into
         @callee_fwd (results + saved values) and @callee_bwd (saved values +
         cotangents -> gradients); the call becomes a call of @callee_fwd and
         the backward a call of @callee_bwd. When a saved value has a run-time
         shape (a while loop in the callee), @callee_bwd recomputes the forward
         instead (the saved values cannot cross a function boundary on the CPU
         pipeline).
"""
from __future__ import annotations


from mlir import ir
from mlir.dialects import arith, func, tensor

from . import emit as E
from .activity import AutodiffError, terminator
from .engine import (STRUCTURED, Anchor, BlockDiff, defined_inside, move_block_ops,
                     rematerializable, rematerialize, replace_in_block, set_terminator,
                     split_remat, used_values)

DYN = E.DYN


def _index_t():
    return ir.IndexType.get()


# --- small helpers -----------------------------------------------------------------

def placeholder(t: ir.Type) -> ir.Value:
    """A cheap value of type t that is never read (the other branch's residual)."""
    if isinstance(t, ir.RankedTensorType):
        rt = ir.RankedTensorType(t)
        return E.empty(rt, [E.index(0) for d in rt.shape if d == DYN])
    return E.scalar_constant(t, 0)


def zeros_of(t: ir.Type) -> ir.Value:
    if isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape:
        rt = ir.RankedTensorType(t)
        return E.zeros(list(rt.shape), rt.element_type)
    if isinstance(t, ir.RankedTensorType):
        raise AutodiffError(f"mindir-autodiff: a zero cotangent of dynamic type {t} is needed")
    return E.scalar_constant(t, 0)


def constant_int(v: ir.Value):
    """The integer value of an arith.constant (index or integer), else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    try:
        return ir.IntegerAttr(owner.operation.attributes["value"]).value
    except (ValueError, KeyError):
        return None


def isub(a, b):
    return arith.SubIOp(a, b).result


def iadd(a, b):
    return arith.AddIOp(a, b).result


def imul(a, b):
    return arith.MulIOp(a, b).result


def idiv(a, b):
    return arith.DivSIOp(a, b).result


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _storage_elem(t: ir.Type) -> ir.Type:
    # booleans are saved as i8 (one byte per flag, as in memory)
    return ir.IntegerType.get_signless(8) if _is_i1(t) else t


def stack_type(t: ir.Type, n: int) -> ir.RankedTensorType:
    if isinstance(t, ir.RankedTensorType):
        rt = ir.RankedTensorType(t)
        if not rt.has_static_shape:
            raise AutodiffError(f"mindir-autodiff: cannot save a value of dynamic type {t} "
                                "per loop iteration (a while loop nested in a loop)")
        return ir.RankedTensorType.get([n] + list(rt.shape), _storage_elem(rt.element_type))
    return ir.RankedTensorType.get([n], _storage_elem(t))


def stack_insert(v: ir.Value, stack: ir.Value, k: ir.Value) -> ir.Value:
    if isinstance(v.type, ir.RankedTensorType):
        if _is_i1(E.elem(v)):
            v = E.cast(v, ir.IntegerType.get_signless(8))
        shp = E.shape(v)
        r = len(shp)
        return tensor.InsertSliceOp(v, stack, [k], [], [], E.i64s([DYN] + [0] * r),
                                    E.i64s([1] + shp), E.i64s([1] * (r + 1))).result
    if _is_i1(v.type):
        v = arith.ExtUIOp(ir.IntegerType.get_signless(8), v).result
    return tensor.InsertOp(v, stack, [k]).result


def stack_extract(stack: ir.Value, k: ir.Value, t: ir.Type) -> ir.Value:
    if isinstance(t, ir.RankedTensorType):
        rt = ir.RankedTensorType(t)
        shp = list(rt.shape)
        r = len(shp)
        st = ir.RankedTensorType.get(shp, _storage_elem(rt.element_type))
        v = tensor.ExtractSliceOp(st, stack, [k], [], [], E.i64s([DYN] + [0] * r),
                                  E.i64s([1] + shp), E.i64s([1] * (r + 1))).result
        return E.cast(v, rt.element_type) if st != rt else v
    v = tensor.ExtractOp(stack, [k]).result
    return arith.TruncIOp(t, v).result if _is_i1(t) else v


def stack_grow(stack: ir.Value, cap: ir.Value, newcap: ir.Value) -> ir.Value:
    st = E.ttype(stack)
    rest = list(st.shape)[1:]
    r = len(rest)
    e = E.empty(st, [newcap])
    return tensor.InsertSliceOp(stack, e, [], [cap], [], E.i64s([0] * (r + 1)),
                                E.i64s([DYN] + rest), E.i64s([1] * (r + 1))).result


def create(name, results, operands, regions, attrs=None, loc=None):
    return ir.Operation.create(name, results=list(results), operands=list(operands),
                               attributes=attrs, regions=regions, loc=loc)


def _rauw(fd, old_op, new_op):
    for i, r in enumerate(old_op.results):
        n = new_op.results[i]
        fd.replaced(r, n)
        r.replace_all_uses_with(n)


def _add_if_varied(fd, adj, v, g):
    if g is not None and fd.is_varied(v):
        adj.add(v, g)


# --- scf.if -----------------------------------------------------------------------

class IfEntry:
    def __init__(self, bd: BlockDiff, src):
        fd = self.fd = bd.fd
        self.loc = src.location
        cond = fd.mapping[src.operands[0]]
        with self.loc:
            op = create("scf.if", [r.type for r in src.results], [cond], 2)
        self.subs = []
        for i in range(2):
            sregion = src.regions[i]
            blk = op.regions[i].blocks.append()
            sub = BlockDiff(fd)
            with ir.InsertionPoint(blk), self.loc:
                vals = []
                if sregion.blocks:
                    sblk = sregion.blocks[0]
                    sub.forward(sblk)
                    vals = [fd.mapping[v] for v in terminator(sblk).operands]
                create("scf.yield", [], vals, 0)
            self.subs.append(sub)
        for r, n in zip(src.results, op.results):
            fd.map(r, n)
        self.op = op
        self.n = len(src.results)
        self.resid: dict = {}   # value -> result index

    def _residual_results(self, res):
        new = [[v for v in res[i] if v not in self.resid] for i in range(2)]
        if new[0] or new[1]:
            old = self.op
            extra = [v.type for v in new[0]] + [v.type for v in new[1]]
            with ir.InsertionPoint(old), self.loc:
                nop = create("scf.if", [r.type for r in old.results] + extra,
                             [old.operands[0]], 2)
            for i in range(2):
                blk = old.regions[i].blocks[0]
                blk.append_to(nop.regions[i])
                yld = terminator(blk)
                with ir.InsertionPoint(yld), self.loc:
                    vals = list(yld.operands)
                    for j in range(2):
                        vals += new[j] if j == i else [placeholder(v.type) for v in new[j]]
                set_terminator(blk, "scf.yield", vals)
            base = len(old.results)
            _rauw(self.fd, old, nop)
            old.erase()
            self.op = nop
            for v in new[0] + new[1]:
                self.resid[v] = base
                base += 1
        return [{v: self.op.results[self.resid[v]] for v in res[i]} for i in range(2)]

    def backward(self, bd: BlockDiff, adj) -> None:
        fd, op = self.fd, self.op
        douts = [adj.pop(r) for r in op.results[:self.n]]
        if all(d is None for d in douts):
            return
        holders = fd.state.holders
        tmps, contribs = [], []
        for i in range(2):
            blk = holders.block(loc=self.loc)
            with ir.InsertionPoint(blk), self.loc:
                yld = terminator(op.regions[i].blocks[0])
                badj = self.subs[i].backward(list(zip(list(yld.operands)[:self.n], douts)))
            contribs.append([(v, g) for v, g in badj.items() if not defined_inside(v, self.op)])
            tmps.append(blk)
        res = [used_values(tmps[i], lambda v: defined_inside(v, self.op)) for i in range(2)]
        remat = [split_remat(r)[0] for r in res]
        res = [split_remat(r)[1] for r in res]
        repl = self._residual_results(res)
        for i in range(2):
            with ir.InsertionPoint.at_block_begin(tmps[i]), self.loc:
                for v in remat[i]:
                    repl[i][v] = rematerialize(v)
            replace_in_block(tmps[i], repl[i])
        keys = []
        for c in contribs:
            for v, _ in c:
                if v not in keys:
                    keys.append(v)
        with self.loc:
            bwd = create("scf.if", [k.type for k in keys], [self.op.operands[0]], 2)
        for i in range(2):
            d = dict(contribs[i])
            with ir.InsertionPoint(tmps[i]), self.loc:
                vals = [d[k] if k in d else E.zeros_like(k) for k in keys]
                create("scf.yield", [], vals, 0)
            tmps[i].append_to(bwd.regions[i])
        for k, r in zip(keys, bwd.results):
            adj.add(k, r)


# --- scf.for ----------------------------------------------------------------------

class ForEntry:
    def __init__(self, bd: BlockDiff, src):
        fd = self.fd = bd.fd
        self.loc = src.location
        operands = [fd.mapping[v] for v in src.operands]
        sblk = src.regions[0].blocks[0]
        with self.loc:
            op = create("scf.for", [r.type for r in src.results], operands, 1)
            blk = op.regions[0].blocks.append(*[a.type for a in sblk.arguments])
        for a, b in zip(sblk.arguments, blk.arguments):
            fd.map(a, b)
        self.sub = BlockDiff(fd)
        with ir.InsertionPoint(blk), self.loc:
            self.sub.forward(sblk)
            create("scf.yield", [], [fd.mapping[v] for v in terminator(sblk).operands], 0)
        for r, n in zip(src.results, op.results):
            fd.map(r, n)
        self.op = op
        self.n = len(src.results)
        self.stack_idx: dict = {}
        self.trip = None

    def body(self) -> ir.Block:
        return self.op.regions[0].blocks[0]

    def _trip_count(self):
        """(value, static int or None) of the trip count, computed before the loop."""
        if self.trip is None:
            lb, ub, step = list(self.op.operands)[:3]
            c = [constant_int(v) for v in (lb, ub, step)]
            with ir.InsertionPoint(self.op), self.loc:
                if None not in c:
                    n = max(0, -(-(c[1] - c[0]) // c[2])) if c[2] > 0 else 0
                    if n >= 2 ** 62:   # every iteration's values are kept for the backward
                        raise AutodiffError(
                            f"mindir-autodiff: the scf.for from {c[0]} to {c[1]} step {c[2]} "
                            f"runs {n} times, too many to keep each iteration's values for "
                            f"the gradient", self.loc)
                    self.trip = (E.index(n), n)
                else:
                    one = E.index(1)
                    span = isub(iadd(isub(ub, lb), step), one)
                    n = arith.MaxSIOp(idiv(span, step), E.index(0)).result
                    self.trip = (n, None)
        return self.trip

    def _stacks(self, res):
        new = [v for v in res if v not in self.stack_idx]
        if new:
            old = self.op
            n, ns = self._trip_count()
            types = [stack_type(v.type, DYN if ns is None else ns) for v in new]
            with ir.InsertionPoint(old), self.loc:
                inits = [E.empty(t, [] if ns is not None else [n]) for t in types]
                nop = create("scf.for", [r.type for r in old.results] + types,
                             list(old.operands) + inits, 1)
            blk = old.regions[0].blocks[0]
            blk.append_to(nop.regions[0])
            args = [blk.add_argument(t, self.loc) for t in types]
            yld = terminator(blk)
            lb, step = old.operands[0], old.operands[2]
            with ir.InsertionPoint(yld), self.loc:
                k = idiv(isub(blk.arguments[0], lb), step)
                ins = [stack_insert(v, a, k) for v, a in zip(new, args)]
            set_terminator(blk, "scf.yield", list(yld.operands) + ins)
            base = len(old.results)
            _rauw(self.fd, old, nop)
            old.erase()
            self.op = nop
            for v in new:
                self.stack_idx[v] = base
                base += 1
        return {v: self.op.results[self.stack_idx[v]] for v in res}

    def backward(self, bd: BlockDiff, adj) -> None:
        fd = self.fd
        douts = [adj.pop(r) for r in self.op.results[:self.n]]
        if all(d is None for d in douts):
            return
        blk = self.body()
        carried = [i for i in range(self.n) if fd.is_varied(blk.arguments[i + 1])]
        n, _ = self._trip_count()
        lb, step = self.op.operands[0], self.op.operands[2]
        tmp = fd.state.holders.block([_index_t()] + [blk.arguments[i + 1].type for i in carried],
                                     loc=self.loc)
        with ir.InsertionPoint(tmp), self.loc:
            k = isub(isub(n, E.index(1)), tmp.arguments[0])
            iv = iadd(lb, imul(k, step))
            anchor = Anchor()
            yld = terminator(blk)
            seeds = [(yld.operands[i], tmp.arguments[1 + t]) for t, i in enumerate(carried)]
            badj = self.sub.backward(seeds)
            new_carried = []
            for t, i in enumerate(carried):
                g = badj.get(blk.arguments[i + 1])
                new_carried.append(g if g is not None else E.zeros_like(tmp.arguments[1 + t]))
            outer = [(v, g) for v, g in badj.items() if not defined_inside(v, self.op)]
        iv_fwd = blk.arguments[0]
        res = used_values(tmp, lambda v: defined_inside(v, self.op) and v != iv_fwd)
        remat, res = split_remat(res)
        _check_top_level(res, blk)
        stacks = self._stacks(res)
        repl = {iv_fwd: iv}
        with anchor.ip(), self.loc:
            for v in remat:
                repl[v] = rematerialize(v)
            for v in res:
                repl[v] = stack_extract(stacks[v], k, v.type)
        replace_in_block(tmp, repl)
        anchor.erase()
        accs = [tmp.add_argument(v.type, self.loc) for v, _ in outer]
        with ir.InsertionPoint(tmp), self.loc:
            sums = [E.add_any(a, g) for a, (_, g) in zip(accs, outer)]
            create("scf.yield", [], new_carried + sums, 0)
        with self.loc:
            inits = [douts[i] if douts[i] is not None else E.zeros_like(self.op.results[i])
                     for i in carried]
            inits += [E.zeros_like(v) for v, _ in outer]
            bwd = create("scf.for", [v.type for v in inits],
                         [E.index(0), n, E.index(1)] + inits, 1)
        tmp.append_to(bwd.regions[0])
        fwd_inits = list(self.op.operands)[3:]
        for t, i in enumerate(carried):
            _add_if_varied(fd, adj, fwd_inits[i], bwd.results[t])
        for (v, _), r in zip(outer, list(bwd.results)[len(carried):]):
            adj.add(v, r)


def _check_top_level(res, blocks):
    blocks = blocks if isinstance(blocks, (list, tuple)) else [blocks]
    for v in res:
        owner = v.owner
        blk = owner if isinstance(owner, ir.Block) else owner.operation.block
        if not any(blk == b for b in blocks):
            raise AutodiffError("mindir-autodiff internal error: a saved value is not at the "
                                "top level of its loop body", _loc_of(v))


def _loc_of(v):
    owner = v.owner
    return (owner.owner if isinstance(owner, ir.Block) else owner).location


# --- scf.while --------------------------------------------------------------------

_INITIAL_CAPACITY = 8


class WhileEntry:
    def __init__(self, bd: BlockDiff, src):
        fd = self.fd = bd.fd
        self.loc = src.location
        sb, sa = src.regions[0].blocks[0], src.regions[1].blocks[0]
        with self.loc:
            op = create("scf.while", [r.type for r in src.results],
                        [fd.mapping[v] for v in src.operands], 2)
            before = op.regions[0].blocks.append(*[a.type for a in sb.arguments])
            after = op.regions[1].blocks.append(*[a.type for a in sa.arguments])
        for a, b in zip(sb.arguments, before.arguments):
            fd.map(a, b)
        for a, b in zip(sa.arguments, after.arguments):
            fd.map(a, b)
        self.subB, self.subA = BlockDiff(fd), BlockDiff(fd)
        with ir.InsertionPoint(before), self.loc:
            self.subB.forward(sb)
            create("scf.condition", [], [fd.mapping[v] for v in terminator(sb).operands], 0)
        with ir.InsertionPoint(after), self.loc:
            self.subA.forward(sa)
            create("scf.yield", [], [fd.mapping[v] for v in terminator(sa).operands], 0)
        for r, n in zip(src.results, op.results):
            fd.map(r, n)
        self.op = op
        self.n = len(src.results)
        self.stack_idx: dict | None = None

    def blocks(self):
        return self.op.regions[0].blocks[0], self.op.regions[1].blocks[0]

    def _instrument(self, resB, resA):
        """Rebuilds the forward loop with a counter, a capacity and the stacks."""
        if self.stack_idx is not None:
            missing = [v for v in resB + resA if v not in self.stack_idx]
            if missing:
                raise AutodiffError("mindir-autodiff internal error: new saved values for an "
                                    "already instrumented while loop", self.loc)
            return
        old = self.op
        before, after = self.blocks()
        idx = _index_t()
        typesB = [stack_type(v.type, DYN) for v in resB]
        typesA = [stack_type(v.type, DYN) for v in resA]
        extra = [idx, idx] + typesB + typesA
        with ir.InsertionPoint(old), self.loc:
            cap0 = E.index(_INITIAL_CAPACITY)
            inits = [E.index(0), cap0] + [E.empty(t, [cap0]) for t in typesB + typesA]
            nop = create("scf.while", [r.type for r in old.results] + extra,
                         list(old.operands) + inits, 2)
        before.append_to(nop.regions[0])
        after.append_to(nop.regions[1])
        bargs = [before.add_argument(t, self.loc) for t in extra]
        aargs = [after.add_argument(t, self.loc) for t in extra]
        nb = len(typesB)
        cond = terminator(before)
        with ir.InsertionPoint(cond), self.loc:
            k, cap, stacks = bargs[0], bargs[1], bargs[2:]
            full = arith.CmpIOp(arith.CmpIPredicate.sge, k, cap).result
            grown = create("scf.if", [idx] + [s.type for s in stacks], [full], 2)
            tb = grown.regions[0].blocks.append()
            eb = grown.regions[1].blocks.append()
            with ir.InsertionPoint(tb):
                newcap = imul(cap, E.index(2))
                create("scf.yield", [], [newcap] + [stack_grow(s, cap, newcap) for s in stacks], 0)
            with ir.InsertionPoint(eb):
                create("scf.yield", [], [cap] + list(stacks), 0)
            cap2, stacks2 = grown.results[0], list(grown.results)[1:]
            sB = [stack_insert(v, s, k) for v, s in zip(resB, stacks2[:nb])]
            vals = list(cond.operands) + [k, cap2] + sB + stacks2[nb:]
        set_terminator(before, "scf.condition", vals)
        yld = terminator(after)
        with ir.InsertionPoint(yld), self.loc:
            k, cap, stacks = aargs[0], aargs[1], aargs[2:]
            sA = [stack_insert(v, s, k) for v, s in zip(resA, stacks[nb:])]
            vals = list(yld.operands) + [iadd(k, E.index(1)), cap] + list(stacks[:nb]) + sA
        set_terminator(after, "scf.yield", vals)
        _rauw(self.fd, old, nop)
        old.erase()
        self.op = nop
        base = self.n + 2
        self.stack_idx = {}
        for v in resB + resA:
            self.stack_idx[v] = base
            base += 1

    def backward(self, bd: BlockDiff, adj) -> None:
        fd = self.fd
        douts = [adj.pop(r) for r in self.op.results[:self.n]]
        if all(d is None for d in douts):
            return
        before, after = self.blocks()
        DB = [i for i, a in enumerate(before.arguments) if fd.is_varied(a)]
        DA = [j for j, a in enumerate(after.arguments) if fd.is_varied(a)]
        holders = fd.state.holders
        cond = terminator(before)
        yld = terminator(after)
        fwd_of_cond = list(cond.operands)[1:1 + self.n]

        def b_backward(seeds):
            badj = self.subB.backward(seeds)
            d = [badj.get(before.arguments[i]) for i in DB]
            d = [g if g is not None else zeros_of(before.arguments[i].type)
                 for g, i in zip(d, DB)]
            outer = [(v, g) for v, g in badj.items() if not defined_inside(v, self.op)]
            return d, outer

        # The last `before` execution (the one whose condition was false).
        tmpB = holders.block(loc=self.loc)
        with ir.InsertionPoint(tmpB), self.loc:
            anchorB = Anchor()
            d_last, outer_last = b_backward(list(zip(fwd_of_cond, douts)))
        # The reverse loop: step j handles iteration k = n - 1 - j (after, then before).
        tmpL = holders.block([_index_t()] + [before.arguments[i].type for i in DB], loc=self.loc)
        with ir.InsertionPoint(tmpL), self.loc:
            anchorL = Anchor()
            seedsA = [(yld.operands[i], tmpL.arguments[1 + t]) for t, i in enumerate(DB)]
            aadj = self.subA.backward(seedsA)
            dA = []
            for j in DA:
                g = aadj.get(after.arguments[j])
                dA.append(g if g is not None else zeros_of(after.arguments[j].type))
            outerA = [(v, g) for v, g in aadj.items() if not defined_inside(v, self.op)]
            new_carried, outerB = b_backward([(fwd_of_cond[j], g) for j, g in zip(DA, dA)])
            acc: dict = {}
            order = []
            for v, g in outerA + outerB:
                if v in acc:
                    acc[v] = E.add_any(acc[v], g)
                else:
                    acc[v] = g
                    order.append(v)
            outer = [(v, acc[v]) for v in order]
        inside = lambda v: defined_inside(v, self.op) and not rematerializable(v)  # noqa: E731
        remat_inside = lambda v: defined_inside(v, self.op) and rematerializable(v)  # noqa: E731
        used = used_values(tmpB, inside) + used_values(tmpL, inside)
        resB, resA = [], []
        for v in used:
            tgt = resB if _in_block(v, before) else resA
            if v not in tgt:
                tgt.append(v)
        _check_top_level(resB + resA, [before, after])
        self._instrument(resB, resA)
        n = self.op.results[self.n]
        with anchorB.ip(), self.loc:
            replB = {v: stack_extract(self.op.results[self.stack_idx[v]], n, v.type)
                     for v in used_values(tmpB, inside)}
            replB.update({v: rematerialize(v) for v in used_values(tmpB, remat_inside)})
        replace_in_block(tmpB, replB)
        anchorB.erase()
        with anchorL.ip(), self.loc:
            k = isub(isub(n, E.index(1)), tmpL.arguments[0])
            replL = {v: stack_extract(self.op.results[self.stack_idx[v]], k, v.type)
                     for v in used_values(tmpL, inside)}
            replL.update({v: rematerialize(v) for v in used_values(tmpL, remat_inside)})
        replace_in_block(tmpL, replL)
        anchorL.erase()
        accs = [tmpL.add_argument(v.type, self.loc) for v, _ in outer]
        with ir.InsertionPoint(tmpL), self.loc:
            sums = [E.add_any(a, g) for a, (_, g) in zip(accs, outer)]
            create("scf.yield", [], new_carried + sums, 0)
        move_block_ops(tmpB, ir.InsertionPoint.current)
        with self.loc:
            inits = d_last + [E.zeros_like(v) for v, _ in outer]
            bwd = create("scf.for", [v.type for v in inits], [E.index(0), n, E.index(1)] + inits, 1)
        tmpL.append_to(bwd.regions[0])
        for v, g in outer_last:
            adj.add(v, g)
        fwd_inits = list(self.op.operands)[:len(before.arguments)]
        for t, i in enumerate(DB):
            _add_if_varied(fd, adj, fwd_inits[i], bwd.results[t])
        for (v, _), r in zip(outer, list(bwd.results)[len(DB):]):
            adj.add(v, r)


def _in_block(v, block) -> bool:
    owner = v.owner
    blk = owner if isinstance(owner, ir.Block) else owner.operation.block
    return blk == block


# --- func.call --------------------------------------------------------------------

class CallEntry:
    def __init__(self, bd: BlockDiff, src):
        fd = self.fd = bd.fd
        state = fd.state
        self.loc = src.location
        callee = state.lookup(ir.FlatSymbolRefAttr(src.attributes["callee"]).value, self.loc)
        self.positions = [i for i, v in enumerate(src.operands) if fd.src_varied(v)]
        self.vjp = state.get_vjp(callee, self.positions)
        self.args = [fd.mapping[v] for v in src.operands]
        self.n = len(src.results)
        vjp = self.vjp
        with self.loc:
            if vjp.mode == "split":
                call = func.CallOp([r.type for r in src.results] + vjp.saved_types,
                                   vjp.fwd, self.args)
            else:
                call = func.CallOp([r.type for r in src.results], vjp.fwd, self.args)
        self.call = call
        for r, n in zip(src.results, call.results):
            fd.map(r, n)

    def backward(self, bd: BlockDiff, adj) -> None:
        results = list(self.call.results)
        douts = [adj.pop(r) for r in results[:self.n]]
        if all(d is None for d in douts):
            return
        vjp = self.vjp
        with self.loc:
            ds = [douts[i] if douts[i] is not None else E.zeros_like(results[i])
                  for i in vjp.varied_results]
            if vjp.mode == "split":
                saved = [self.args[i] if kind == "arg" else
                         results[i] if kind == "out" else results[self.n + i]
                         for kind, i in vjp.saved_sources]
                out = list(func.CallOp(vjp.bwd_types, vjp.bwd, ds + saved).results)
                grads = [out[i] for i in vjp.index]
            else:
                out = list(func.CallOp(vjp.bwd_types, vjp.bwd, self.args + ds).results)
                grads = [out[i] for i in vjp.index[len(vjp.result_types):]]
        for p, g in zip(self.positions, grads):
            _add_if_varied(self.fd, adj, self.args[p], g)


STRUCTURED.update({
    "scf.if": IfEntry,
    "scf.for": ForEntry,
    "scf.while": WhileEntry,
    "func.call": CallEntry,
})
