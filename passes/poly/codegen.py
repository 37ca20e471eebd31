"""isl AST -> affine loops (no pass).

`rebuild(scop, schedule)` generates the AST of an isl schedule and builds it
in place of the Scop's nests: `for` -> `affine.for` (max/min bounds become
multi-result lb/ub maps, `<=` becomes ub + 1, the increment the step), `if`
-> `affine.if`, a statement call -> one `affine.apply` per original
induction variable and clones of the statement's ops remapped to them (the
arith.constant ops they use are cloned along). A "parallel" mark puts
`mskernel.parallel` on the first loop under it, a "band:<level>" mark
`mskernel.band = "<level>"` (the first loop of a tile band, or "point" of the
innermost point band: what mskernel-promote-buffers keys on; "l1>point" when
the l1 band has no loop of its own, one tile), a
"blocks"/"threads" mark (gpu) `mskernel.gpu = "blocks"|"threads"`; each innermost unit-step loop
along which every varying access is contiguous (last index, stride +-1) gets
`mskernel.vector`. A "tasks" mark (cpu, threads > 1: schedule.split_tasks)
makes its constant-bound loop an `affine.parallel` (one iteration per
thread; lower-affine turns it into scf.parallel, the CPU pipeline's
convert-scf-to-openmp into an OpenMP region). With `lanes` (cpu), the
reduction loops among the `mskernel.vector` loops get vector accumulators,
transposed point nests vector blocks, reductions over an outer loop
register-blocked vector columns, the other independent innermost loops
vector steps (vectorize.py: reductions, transposes, columns, elementwise).
The old nests are erased (ops between them hoisted before
/ deallocs sunk after).
"""
from __future__ import annotations

import islpy as isl
import numpy as np
from mlir import ir
from mlir.dialects import affine

from . import vectorize
from .model import CONST, NotRepresentable, Scop, owner_op
from .schedule import BAND, BLOCKS, PARALLEL, TASKS, THREADS

ATTR_PARALLEL = "mskernel.parallel"
ATTR_VECTOR = "mskernel.vector"
ATTR_BAND = "mskernel.band"    # first loop of a tile band: the level its tiles are for
ATTR_GPU = "mskernel.gpu"      # "blocks" / "threads": a coincident tile / point loop

_T = isl.ast_expr_op_type


def _children(block_node: isl.AstNode) -> list[isl.AstNode]:
    lst = block_node.block_get_children()
    return [lst.get_at(i) for i in range(lst.n_ast_node())]


def _args(e: isl.AstExpr) -> list[isl.AstExpr]:
    return [e.op_get_arg(i) for i in range(e.op_get_n_arg())]


def _int(e: isl.AstExpr) -> int:
    return int(e.int_get_val().to_python())


class _Loop:
    def __init__(self, op, name, step):
        self.op, self.name, self.step = op, name, step
        self.inner = False         # has a nested loop
        self.calls = []            # (statement, [linear forms of the call args], {old op: clone})
        self.trip = None           # constant trip count, if any
        self.depth = 0             # loops around it


class _Builder:
    def __init__(self, scop: Scop):
        self.scop = scop
        self.iters: list[tuple[str, ir.Value]] = []
        self.loops: list[_Loop] = []
        self.open: list[_Loop] = []
        self.dims: list[str] = []
        self.tasks = False         # the next loop is a "tasks" loop

    # --- expressions
    def used(self, es: list[isl.AstExpr]) -> list[str]:
        """The iterators (in scope order) that expressions `es` use."""
        names = set()

        def walk(e):
            if e.get_type() == isl.ast_expr_type.id:
                names.add(e.get_id().get_name())
            elif e.get_type() == isl.ast_expr_type.op:
                for x in _args(e):
                    walk(x)
        for e in es:
            walk(e)
        return [n for n, _ in self.iters if n in names]

    def expr(self, e: isl.AstExpr) -> ir.AffineExpr:
        t = e.get_type()
        if t == isl.ast_expr_type.id:
            name = e.get_id().get_name()
            if name in self.dims:
                return ir.AffineDimExpr.get(self.dims.index(name))
            raise NotRepresentable(f"unknown AST identifier {name}")
        if t == isl.ast_expr_type.int:
            return ir.AffineConstantExpr.get(_int(e))
        op = e.op_get_type()
        a = [self.expr(x) for x in _args(e)] if op not in (_T.min, _T.max) else None
        if op == _T.add:
            return a[0] + a[1]
        if op == _T.sub:
            return a[0] - a[1]
        if op == _T.mul:
            return a[0] * a[1]
        if op == _T.minus:
            return a[0] * -1
        if op in (_T.div, _T.fdiv_q, _T.pdiv_q):
            return ir.AffineExpr.get_floor_div(a[0], a[1])
        if op in (_T.pdiv_r, _T.zdiv_r):
            return ir.AffineExpr.get_mod(a[0], a[1])
        raise NotRepresentable(f"AST expression {e.to_C_str()} is not affine")

    def linear(self, e: isl.AstExpr) -> dict | None:
        t = e.get_type()
        if t == isl.ast_expr_type.id:
            return {e.get_id().get_name(): 1}
        if t == isl.ast_expr_type.int:
            return {1: _int(e)}
        op = e.op_get_type()
        a = [self.linear(x) for x in _args(e)]
        if any(x is None for x in a):
            return None
        if op in (_T.add, _T.sub):
            s = 1 if op == _T.add else -1
            return {k: a[0].get(k, 0) + s * a[1].get(k, 0) for k in set(a[0]) | set(a[1])}
        if op == _T.minus:
            return {k: -v for k, v in a[0].items()}
        if op == _T.mul:
            for x, y in ((a[0], a[1]), (a[1], a[0])):
                if set(y) <= {1}:
                    return {k: v * y.get(1, 0) for k, v in x.items()}
        return None

    def flat(self, e: isl.AstExpr, kind) -> list[ir.AffineExpr]:
        if e.get_type() == isl.ast_expr_type.op and e.op_get_type() == kind:
            return [r for x in _args(e) for r in self.flat(x, kind)]
        if e.get_type() == isl.ast_expr_type.op and e.op_get_type() in (_T.min, _T.max):
            raise NotRepresentable(f"AST bound {e.to_C_str()} mixes min and max")
        return [self.expr(e)]

    def amap(self, exprs) -> ir.AffineMap:
        return ir.AffineMap.get(len(self.dims), 0, exprs)

    def values(self) -> list[ir.Value]:
        vals = dict(self.iters)
        return [vals[n] for n in self.dims]

    def using(self, es: list[isl.AstExpr]):
        """Makes the iterators used by `es` the dims of the next maps."""
        self.dims = self.used(es)

    # --- nodes
    def node(self, n: isl.AstNode, ip: ir.InsertionPoint):
        t = n.get_type()
        if t == isl.ast_node_type.block:
            for c in _children(n):
                self.node(c, ip)
        elif t == isl.ast_node_type.for_:
            self.for_(n, ip)
        elif t == isl.ast_node_type.if_:
            self.if_(n, ip)
        elif t == isl.ast_node_type.user:
            self.user(n, ip)
        elif t == isl.ast_node_type.mark:
            before = len(self.loops)
            name = n.mark_get_id().get_name()
            self.tasks = self.tasks or name == TASKS
            depth = len(self.open)
            self.node(n.mark_get_node(), ip)
            self.tasks = False
            # every loop the mark's subtree starts at this depth (isolated full
            # tiles and the partial ones are sibling loops)
            for rec in [r for r in self.loops[before:] if r.depth == depth]:
                attrs = rec.op.attributes
                if name == PARALLEL:
                    attrs[ATTR_PARALLEL] = ir.UnitAttr.get()
                elif name.startswith(BAND):
                    # a tile band whose loops were all degenerate (one tile):
                    # its first loop is the inner band's: "outer>inner"
                    level = name[len(BAND):]
                    if ATTR_BAND in attrs:
                        level += ">" + ir.StringAttr(attrs[ATTR_BAND]).value
                    attrs[ATTR_BAND] = ir.StringAttr.get(level)
                elif name in (BLOCKS, THREADS) and ATTR_GPU not in attrs:
                    # (set already: this mark's own loop was degenerate, the
                    # loop belongs to an inner member)
                    attrs[ATTR_GPU] = ir.StringAttr.get(name)
        else:
            raise NotRepresentable(f"AST node of type {t}")

    def for_(self, n, ip):
        name = n.for_get_iterator().get_id().get_name()
        self.using([n.for_get_init()] + ([] if n.for_is_degenerate() else [n.for_get_cond().op_get_arg(1)]))
        lbs = self.flat(n.for_get_init(), _T.max)
        if n.for_is_degenerate():
            if len(lbs) != 1:
                raise NotRepresentable("degenerate AST loop with a max bound")
            ubs = [lbs[0] + 1]
            step = 1
        else:
            cond = n.for_get_cond()
            if cond.get_type() != isl.ast_expr_type.op or cond.op_get_type() not in (_T.le, _T.lt):
                raise NotRepresentable(f"AST loop condition {cond.to_C_str()}")
            lhs, rhs = _args(cond)
            if lhs.get_type() != isl.ast_expr_type.id or lhs.get_id().get_name() != name:
                raise NotRepresentable(f"AST loop condition {cond.to_C_str()}")
            ubs = self.flat(rhs, _T.min)
            if cond.op_get_type() == _T.le:
                ubs = [u + 1 for u in ubs]
            step = _int(n.for_get_inc())
        trip = self._trip(n)
        tasks, self.tasks = self.tasks, False
        const = [_const(e) for e in lbs + ubs]
        if tasks and step == 1 and len(lbs) == len(ubs) == 1 and None not in const:
            loop = _parallel(const[0], const[1], ip)
        else:
            with ip:
                loop = affine.AffineForOp(self.amap(lbs), self.amap(ubs), step,
                                          lower_bound_operands=self.values(),
                                          upper_bound_operands=self.values())
        rec = _Loop(loop.operation, name, step)
        rec.trip, rec.depth = trip, len(self.open)
        for o in self.open:
            o.inner = True
        self.loops.append(rec)
        self.open.append(rec)
        body = loop.operation.regions[0].blocks[0]
        self.iters.append((name, body.arguments[0]))
        self.node(n.for_get_body(), ir.InsertionPoint(body))
        with ir.InsertionPoint(body):
            affine.AffineYieldOp([])
        self.iters.pop()
        self.open.pop()

    def _trip(self, n) -> int | None:
        """The constant trip count of AST loop `n` (unit step), else None."""
        if n.for_is_degenerate():
            return 1
        if _int(n.for_get_inc()) != 1:
            return None
        cond = n.for_get_cond()
        lo, hi = self.linear(n.for_get_init()), self.linear(_args(cond)[1])
        if lo is None or hi is None:
            return None
        d = {k: hi.get(k, 0) - lo.get(k, 0) for k in set(lo) | set(hi)}
        if any(v for k, v in d.items() if k != 1):
            return None
        return d.get(1, 0) + (1 if cond.op_get_type() == _T.le else 0)

    def constraints(self, e: isl.AstExpr, out: list):
        if e.get_type() != isl.ast_expr_type.op:
            raise NotRepresentable(f"AST condition {e.to_C_str()}")
        op = e.op_get_type()
        if op in (_T.and_, _T.and_then):
            for x in _args(e):
                self.constraints(x, out)
            return
        if op not in (_T.eq, _T.ge, _T.le, _T.gt, _T.lt):
            raise NotRepresentable(f"AST condition {e.to_C_str()}")
        a, b = (self.expr(x) for x in _args(e))
        if op == _T.eq:
            out.append((a - b, True))
        elif op == _T.ge:
            out.append((a - b, False))
        elif op == _T.le:
            out.append((b - a, False))
        elif op == _T.gt:
            out.append((a - b - 1, False))
        else:
            out.append((b - a - 1, False))

    def if_(self, n, ip):
        self._if_chain(_disjuncts(n.if_get_cond()), n, ip)

    def _if_chain(self, disj, n, ip):
        """`if (d0 || d1 ...)`: affine.if d0 {then} else {if d1 {then} else ...}
        (the then-node built once per disjunct; affine sets are conjunctions;
        isl's isolated tiles give such conditions)."""
        cons = []
        self.using([disj[0]])
        self.constraints(disj[0], cons)
        iset = ir.IntegerSet.get(len(self.dims), 0, [c for c, _ in cons], [eq for _, eq in cons])
        has_else = len(disj) > 1 or n.if_has_else_node()
        with ip:
            op = affine.AffineIfOp(iset, cond_operands=self.values(), has_else=has_else)
        then = op.operation.regions[0]
        if not len(then.blocks):
            then.blocks.append()
        self.node(n.if_get_then_node(), ir.InsertionPoint(then.blocks[0]))
        with ir.InsertionPoint(then.blocks[0]):
            affine.AffineYieldOp([])
        if has_else:
            els = op.operation.regions[1]
            if not len(els.blocks):
                els.blocks.append()
            if len(disj) > 1:
                self._if_chain(disj[1:], n, ir.InsertionPoint(els.blocks[0]))
            else:
                self.node(n.if_get_else_node(), ir.InsertionPoint(els.blocks[0]))
            with ir.InsertionPoint(els.blocks[0]):
                affine.AffineYieldOp([])

    def user(self, n, ip):
        call = n.user_get_expr()
        args = _args(call)
        stmt = self.scop.statement(args[0].get_id().get_name())
        args = args[1:]
        mapping, clones = {}, {}
        with ip:
            for iv, a in zip(stmt.ivs, args):
                self.using([a])
                mapping[iv] = affine.AffineApplyOp(self.amap([self.expr(a)]), self.values()).result
            for o in stmt.ops:
                new = o.clone()
                for i, v in enumerate(o.operands):
                    if v in mapping:
                        new.operands[i] = mapping[v]
                        continue
                    d = owner_op(v)
                    if d is not None and d.name == "arith.constant" \
                            and d.parent is not None and d.parent.name != "func.func":
                        c = d.clone(ir.InsertionPoint(new))
                        mapping[v] = c.results[0]
                        new.operands[i] = c.results[0]
                for r_old, r_new in zip(o.results, new.results):
                    mapping[r_old] = r_new
                clones[o] = new
        if self.open:
            self.open[-1].calls.append((stmt, [self.linear(a) for a in args], clones))

    def mark_vector(self):
        for rec in self.loops:
            if rec.inner or rec.step != 1 or not rec.calls:
                continue
            varies, ok = False, True
            for stmt, lins, _ in rec.calls:
                for acc in stmt.reads + stmt.writes:
                    coeff = []
                    for lin in acc.coeffs:
                        if lin is None or any(l is None for l in lins):
                            ok = False
                            break
                        coeff.append(sum(c * lins[k].get(rec.name, 0) for k, c in lin.items() if k != CONST))
                    if not ok:
                        break
                    if any(coeff):
                        varies = True
                        if abs(coeff[-1]) != 1 or any(coeff[:-1]):
                            ok = False
                            break
            if ok and varies:
                rec.op.attributes[ATTR_VECTOR] = ir.UnitAttr.get()


def _disjuncts(e: isl.AstExpr) -> list[isl.AstExpr]:
    """The operands of a top-level `||` (else [e])."""
    if e.get_type() == isl.ast_expr_type.op and e.op_get_type() in (_T.or_, _T.or_else):
        return [d for x in _args(e) for d in _disjuncts(x)]
    return [e]


def ast(schedule: isl.Schedule) -> isl.AstNode:
    return isl.AstBuild.from_context(isl.Set("{ : }")).node_from_schedule(schedule)


def _const(e: ir.AffineExpr) -> int | None:
    try:
        return ir.AffineConstantExpr(e).value
    except (TypeError, ValueError):
        return None


def _parallel(lb: int, ub: int, ip: ir.InsertionPoint):
    """`affine.parallel (%t) = (lb) to (ub)` with an empty body."""
    i64 = ir.IntegerType.get_signless(64)
    one = ir.DenseIntElementsAttr.get(np.array([1], np.int32))

    def cmap(v):
        return ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineConstantExpr.get(v)]))
    with ip:
        op = affine.AffineParallelOp([], ir.ArrayAttr.get([]), cmap(lb), one, cmap(ub), one,
                                     ir.ArrayAttr.get([ir.IntegerAttr.get(i64, 1)]), [])
    op.operation.regions[0].blocks.append(ir.IndexType.get())
    return op


def rebuild(scop: Scop, schedule: isl.Schedule, lanes=None) -> int:
    """Replaces the Scop's nests by the code of `schedule` (raises
    NotRepresentable, the IR untouched, if the AST cannot be built as affine).
    `lanes(bits)`: vector lanes per element width, for the vector
    accumulators of reduction loops (None: none). Returns how many loops got
    them."""
    tree = ast(schedule)
    first, last = scop.loops[0], scop.loops[-1]
    # Build into a scratch block first: a failure leaves the function untouched.
    with first.location:
        scratch = ir.Module.create()
        b = _Builder(scop)
        try:
            b.node(tree, ir.InsertionPoint(scratch.body))
        except Exception:
            # (the ops, not the module: Python owns the module, erasing it
            # freed it twice)
            for o in reversed(list(scratch.body.operations)):
                o.operation.erase()
            raise
        b.mark_vector()
        done = vectorize.reductions(b.loops, lanes) if lanes is not None else 0
        if lanes is not None:
            vectorize.transposes(b.loops)
            vectorize.columns(b.loops, lanes)
            vectorize.elementwise(b.loops, lanes)
    for o in scop.hoist:
        o.move_before(first)
    for o in reversed(scop.sink):
        o.move_after(last)
    for o in list(scratch.body.operations):
        o.operation.move_before(first)
    for loop in scop.loops:
        loop.erase()
    return done
