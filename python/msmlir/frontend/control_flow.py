"""Tensor-valued control flow: `if` and `while` on tensors become scf.if / scf.while.

The variables assigned in the branches of a tensor `if` (or its returned value)
are merged into the results of one scf.if; the variables a tensor `while`
carries become its iteration arguments, and Python numbers among them that
change in the body are promoted to 0-d tensors (rebuilding the loop until the
carried types settle). `ControlFlow` is a mixin of the visitor (parser.py):
it uses its `eval`, `exec_block`, `scope` and `pos`.
"""
from __future__ import annotations

import ast
import numbers

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import dtype as _dt
from ..ops import _base
from ..ops.math import to_bool
from ..pytree import LEAF, count_leaves, tree_unflatten
from . import builder as _b
from .values import TensorValue

MAX_WHILE_ATTEMPTS = 6  # rebuilds of a tensor while loop until its carried types settle


# ---------------------------------------------------------------------------
# Control-flow signals of the interpreter
# ---------------------------------------------------------------------------

class Signal(Exception):
    def __init__(self, pos):
        super().__init__()
        self.pos = pos


class Break(Signal):
    pass


class Continue(Signal):
    pass


class Return(Signal):
    def __init__(self, value, pos):
        super().__init__(pos)
        self.value = value


class Undefined:
    """Marks a variable that is not defined on every path (read -> error)."""

    def __init__(self, name, reason):
        self.name = name
        self.reason = reason


MISSING = object()


def is_tensor_value(v):
    return isinstance(v, TensorValue)


def describe(v) -> str:
    if isinstance(v, TensorValue):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of length {len(v)}"
    return f"the Python value {v!r}" if isinstance(v, (numbers.Number, str, type(None))) else \
        f"a {type(v).__name__}"


def is_scalar(v) -> bool:
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


def type_str(t) -> str:
    rt = ir.RankedTensorType(t)
    return f"Tensor(shape={list(rt.shape)}, dtype={_dt.from_mlir(rt.element_type)!r})"


# ---------------------------------------------------------------------------
# Static analysis of statements
# ---------------------------------------------------------------------------

def _target_names(t, out):
    if isinstance(t, ast.Name):
        out.append(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _target_names(e, out)
    elif isinstance(t, ast.Starred):
        _target_names(t.value, out)


def assigned_names(nodes) -> list:
    """Names bound by the statements (not descending into nested scopes), in order."""
    out = []

    class V(ast.NodeVisitor):
        def visit_Assign(self, n):
            for t in n.targets:
                _target_names(t, out)
            self.generic_visit(n)

        def visit_AugAssign(self, n):
            _target_names(n.target, out)
            self.generic_visit(n)

        def visit_AnnAssign(self, n):
            if n.value is not None:
                _target_names(n.target, out)
            self.generic_visit(n)

        def visit_NamedExpr(self, n):
            _target_names(n.target, out)
            self.generic_visit(n)

        def visit_For(self, n):
            _target_names(n.target, out)
            self.generic_visit(n)

        def visit_FunctionDef(self, n):
            out.append(n.name)

        def visit_Lambda(self, n):
            pass

        def visit_ListComp(self, n):
            pass

        visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

        def visit_Delete(self, n):
            for t in n.targets:
                _target_names(t, out)

    v = V()
    for n in nodes:
        v.visit(n)
    seen, res = set(), []
    for n in out:
        if n not in seen:
            seen.add(n)
            res.append(n)
    return res


def contains(nodes, kinds, skip_loops=False) -> ast.AST | None:
    """A node of one of `kinds` in the statements, outside nested scopes (and,
    with skip_loops, outside the bodies of nested loops, whose break/continue
    are their own)."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if skip_loops and isinstance(n, (ast.For, ast.While)):
            stack.extend(n.orelse)
            continue
        stack.extend(ast.iter_child_nodes(n))
    return None


class ControlFlow:
    """scf.if / scf.while from `if` / `while` statements on tensor conditions."""

    def _to_i1(self, cond: TensorValue, node):
        if cond.size != 1:
            _b.error(f"the condition must be a tensor with a single element, got shape "
                     f"{list(cond.shape)} (reduce it first, e.g. with .all(), .any() or .sum())",
                     self.pos(node))
        c = to_bool(cond)
        idx_t = ir.IndexType.get()
        indices = [arith.ConstantOp(idx_t, 0).result for _ in c.shape]
        return tensor.ExtractOp(c.value, indices).result

    def _branch(self, block, stmts, returns):
        """Runs stmts into block on a copy of the variables; returns (vars, return value)."""
        saved = self.scope.vars
        self.scope.vars = dict(saved)
        ret = MISSING
        try:
            with ir.InsertionPoint(block):
                try:
                    self.exec_block(stmts, tail=returns)
                    if returns:
                        ret = None  # falls off the end of the function
                except Return as r:
                    ret = r.value
                except (Break, Continue) as s:
                    _b.error("`break`/`continue` inside an `if` whose condition is a tensor is not "
                             "supported", s.pos)
            return self.scope.vars, ret
        finally:
            self.scope.vars = saved

    def tensor_if(self, st, cond, then_body, else_body, *, returns, what="the returned value"):
        """Lowers an `if` on a tensor condition to scf.if. The variables assigned
        in either branch (or the returned value, with `returns`) become results."""
        pred = self._to_i1(cond, st.test)
        scratch = scf.IfOp(pred, [], has_else=True)
        then_blk, else_blk = scratch.then_block, scratch.else_block
        try:
            then_vars, then_ret = self._branch(then_blk, then_body, returns)
            else_vars, else_ret = self._branch(else_blk, else_body, returns)
        except BaseException:
            scratch.operation.erase()  # half-built (the error may be handled by a `try`)
            raise
        before = self.scope.vars
        line = st.lineno
        merged = []  # (variable name, or None for the returned value; spec with LEAFs)
        if returns:
            pairs = [(what, then_ret, else_ret, None)]
        else:
            names = []
            for n in list(then_vars) + list(else_vars):
                if n in names:
                    continue
                if then_vars.get(n, MISSING) is not before.get(n, MISSING) or \
                        else_vars.get(n, MISSING) is not before.get(n, MISSING):
                    names.append(n)
            pairs = []
            for n in names:
                a, b = then_vars.get(n, MISSING), else_vars.get(n, MISSING)
                if a is MISSING or b is MISSING or isinstance(a, Undefined) or isinstance(b, Undefined):
                    before[n] = Undefined(n, f"it is assigned in only one branch of the `if` at line "
                                             f"{line} (whose condition is a tensor)")
                    continue
                pairs.append((f"variable '{n}'", a, b, n))
        then_leaves, else_leaves = [], []
        for desc, a, b, n in pairs:
            spec = self._merge(desc, a, b, then_blk, else_blk, then_leaves, else_leaves, st)
            merged.append((n, spec))
        rtypes = [v.type for v in then_leaves]
        with _b.at(self.pos(st)):
            with ir.InsertionPoint(scratch):
                final = ir.Operation.create("scf.if", results=rtypes, operands=[pred], regions=2)
            then_blk.append_to(final.regions[0])
            else_blk.append_to(final.regions[1])
            with ir.InsertionPoint(then_blk):
                scf.YieldOp([v.value for v in then_leaves])
            with ir.InsertionPoint(else_blk):
                scf.YieldOp([v.value for v in else_leaves])
        scratch.operation.erase()
        results = [TensorValue(r) for r in final.results]
        k = 0
        value = None
        for n, spec in merged:
            cnt = count_leaves(spec)
            v = tree_unflatten(spec, results[k:k + cnt])
            k += cnt
            if n is None:
                value = v
            else:
                before[n] = v
        return value

    def _merge(self, desc, a, b, then_blk, else_blk, then_leaves, else_leaves, st):
        """Joins the values of one variable from the two branches: returns a spec
        whose LEAFs are scf.if results (appending the branch values to the lists)."""
        line = st.lineno

        def mismatch(x, y):
            _b.error(f"{desc} is {describe(x)} in the `if` branch but {describe(y)} in the `else` "
                     f"branch of the `if` at line {line}; both branches must give the same type",
                     self.pos(st))

        def materialize(v, like: TensorValue, blk):
            with ir.InsertionPoint(blk), _b.at(self.pos(st)):
                return _base.scalar_const(v, like.dtype, like.shape)

        def rec(x, y):
            if x is y and not isinstance(x, TensorValue):
                return ("C", x)
            if isinstance(x, TensorValue) or isinstance(y, TensorValue):
                if isinstance(x, TensorValue) and isinstance(y, TensorValue):
                    if x.type != y.type:
                        mismatch(x, y)
                elif isinstance(x, TensorValue) and is_scalar(y):
                    y = materialize(y, x, else_blk)
                elif isinstance(y, TensorValue) and is_scalar(x):
                    x = materialize(x, y, then_blk)
                else:
                    mismatch(x, y)
                then_leaves.append(x)
                else_leaves.append(y)
                return LEAF
            if type(x) is not type(y):
                if is_scalar(x) and is_scalar(y):
                    return scalars(x, y)
                mismatch(x, y)
            if isinstance(x, (tuple, list)):
                if len(x) != len(y):
                    mismatch(x, y)
                kids = tuple(rec(p, q) for p, q in zip(x, y))
                if hasattr(x, "_fields"):
                    return ("nt", type(x), kids)
                return ("tuple" if isinstance(x, tuple) else "list", kids)
            if isinstance(x, dict):
                if list(x) != list(y):
                    mismatch(x, y)
                return ("dict", tuple(x), tuple(rec(x[k], y[k]) for k in x))
            if is_scalar(x):
                if x == y:
                    return ("C", x)
                return scalars(x, y)
            try:
                same = bool(x == y)
            except Exception:
                same = False
            if same:
                return ("C", x)
            mismatch(x, y)

        def scalars(x, y):
            # Two different Python numbers: both become 0-d tensors.
            dt = _dt.promote_types(_base._default_dtype(x), _base._default_dtype(y))
            with _b.at(self.pos(st)):
                with ir.InsertionPoint(then_blk):
                    then_leaves.append(_base.scalar_const(x, dt))
                with ir.InsertionPoint(else_blk):
                    else_leaves.append(_base.scalar_const(y, dt))
            return LEAF

        return rec(a, b)

    # ---- tensor while ----------------------------------------------------------------------
    def tensor_while(self, st):
        """Lowers a `while` whose condition is a tensor to scf.while. Variables
        assigned in the loop and defined before it are carried; Python numbers
        among them that change become 0-d tensors (rebuilding the loop)."""
        for kind, what in ((ast.Break, "break"), (ast.Continue, "continue"), (ast.Return, "return")):
            n = contains(st.body, (kind,), skip_loops=kind is not ast.Return)
            if n is not None:
                _b.error(f"`{what}` inside a `while` loop whose condition is a tensor is not supported",
                         self.pos(n))
        if contains([st.test], (ast.NamedExpr,)) is not None:
            self.unsupported(st.test, "assignment in the condition of a tensor `while`")
        assigned = assigned_names(st.body)
        outer = self.scope.vars
        carried = [n for n in assigned if n in outer and not isinstance(outer[n], Undefined)]
        promoted = {}  # (name, leaf index in the constant-flattened tree) -> TensorValue-like type
        line = st.lineno
        for _attempt in range(MAX_WHILE_ATTEMPTS):
            mark = self._mark()
            specs, inits, var_types = [], [], []
            for n in carried:
                spec, leaves = self._carry_flatten(n, outer[n], promoted)
                specs.append(spec)
                inits.extend(leaves)
                var_types.append([v.type for v in leaves])
            types_ = [v.type for v in inits]
            loc = ir.Location.current
            wop = scf.WhileOp(types_, [v.value for v in inits])
            before = wop.before.blocks.append(*types_, arg_locs=[loc] * len(types_))
            after = wop.after.blocks.append(*types_, arg_locs=[loc] * len(types_))
            try:
                # condition region
                self.scope.vars = dict(outer)
                self._bind_carried(carried, specs, before.arguments)
                with ir.InsertionPoint(before):
                    cond = self.eval(st.test)
                    with _b.at(self.pos(st.test)):
                        if isinstance(cond, TensorValue):
                            pred = self._to_i1(cond, st.test)
                        else:
                            pred = arith.ConstantOp(ir.IntegerType.get_signless(1),
                                                    1 if self._truth(cond, st.test) else 0).result
                        scf.ConditionOp(pred, list(before.arguments))
                # body region
                self.scope.vars = dict(outer)
                self._bind_carried(carried, specs, after.arguments)
                with ir.InsertionPoint(after):
                    self.exec_block(st.body)
                    new_vars = self.scope.vars
                    yields, retry = [], False
                    for n, spec, vtypes in zip(carried, specs, var_types):
                        v = new_vars.get(n, MISSING)
                        if v is MISSING or isinstance(v, Undefined):
                            _b.error(f"variable '{n}' is deleted in the body of the `while` loop at line "
                                     f"{line}", self.pos(st))
                        r = self._carry_match(n, spec, v, vtypes, promoted, line, st)
                        if r is None:
                            retry = True
                        else:
                            yields.extend(r)
                    if not retry:
                        with _b.at(self.pos(st)):
                            scf.YieldOp([y.value for y in yields])
            except BaseException:
                self._rollback(mark)  # the half-built loop (a `try` may handle the error)
                raise
            finally:
                self.scope.vars = outer
            if retry:
                self._rollback(mark)
                continue
            results = [TensorValue(r) for r in wop.results]
            k = 0
            for n, spec in zip(carried, specs):
                cnt = count_leaves(spec)
                outer[n] = tree_unflatten(spec, results[k:k + cnt])
                k += cnt
            for n in assigned:
                if n not in carried:
                    outer[n] = Undefined(n, f"it is first assigned inside the `while` loop at line {line} "
                                            f"(whose condition is a tensor); define it before the loop")
            return
        _b.error(f"the types of the variables carried by the `while` loop at line {line} do not "
                 f"settle", self.pos(st))

    def _carry_flatten(self, name, value, promoted):
        """spec, leaves of a carried variable: tensors, and Python numbers that
        were found to change (materialized with their promoted type)."""
        counter = [0]
        leaves = []

        def rec(v):
            idx = counter[0]
            counter[0] += 1
            if isinstance(v, TensorValue):
                leaves.append(v)
                return LEAF
            if (name, idx) in promoted:
                shape, dt = promoted[(name, idx)]
                leaves.append(_base.scalar_const(v, dt, shape))
                return LEAF
            if isinstance(v, tuple) and hasattr(v, "_fields"):
                return ("nt", type(v), tuple(rec(e) for e in v))
            if type(v) in (tuple, list):
                return (type(v).__name__, tuple(rec(e) for e in v))
            if type(v) is dict:
                return ("dict", tuple(v), tuple(rec(e) for e in v.values()))
            return ("C", v)

        return rec(value), leaves

    def _bind_carried(self, carried, specs, args):
        k = 0
        for n, spec in zip(carried, specs):
            cnt = count_leaves(spec)
            self.scope.vars[n] = tree_unflatten(spec, [TensorValue(a) for a in args[k:k + cnt]])
            k += cnt

    def _carry_match(self, name, spec, value, slot_types, promoted, line, st):
        """The yielded leaves for a carried variable, or None if a Python number
        changed (it is then marked for promotion and the loop is rebuilt)."""
        out = []
        counter = [0]
        retry = [False]

        def fail(old, new):
            _b.error(f"variable '{name}' changes type in the body of the `while` loop at line {line}: "
                     f"{old} before the loop, {describe(new)} after an iteration; a loop variable "
                     f"must keep its type", self.pos(st))

        def rec(s, v):
            idx = counter[0]
            counter[0] += 1
            kind = s[0]
            if kind == "L":
                t = slot_types[len(out)]  # the type of the iteration argument
                if isinstance(v, TensorValue):
                    if v.type != t:
                        fail(type_str(t), v)
                    out.append(v)
                elif is_scalar(v):
                    rt = ir.RankedTensorType(t)
                    out.append(_base.scalar_const(v, _dt.from_mlir(rt.element_type), tuple(rt.shape)))
                else:
                    fail(type_str(t), v)
                return
            if kind == "C":
                c = s[1]
                if v is c:
                    return
                if is_scalar(c) and type(v) is type(c) and v == c:
                    return
                if is_scalar(c) and (is_scalar(v) or isinstance(v, TensorValue)):
                    if isinstance(v, TensorValue):
                        promoted[(name, idx)] = (v.shape, v.dtype)
                    else:
                        promoted[(name, idx)] = ((), _dt.promote_types(_base._default_dtype(c),
                                                                       _base._default_dtype(v)))
                    retry[0] = True
                    return
                try:
                    if type(v) is type(c) and bool(v == c):
                        return
                except Exception:
                    pass
                fail(describe(c), v)
            children = s[2] if kind in ("nt", "dict") else s[1]
            if kind == "dict":
                if type(v) is not dict or tuple(v) != s[1]:
                    fail("a dict", v)
                vals = list(v.values())
            else:
                want = {"tuple": tuple, "list": list}.get(kind, s[1] if kind == "nt" else None)
                if not isinstance(v, want) or len(v) != len(children):
                    fail(f"a {kind} of length {len(children)}", v)
                vals = list(v)
            for cs, cv in zip(children, vals):
                rec(cs, cv)

        rec(spec, value)
        return None if retry[0] else out
