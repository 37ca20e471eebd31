"""Python AST -> mindir: the source-transformation half of `msmlir.jit`.

The parser *interprets* a function's AST at compile time (partial evaluation):
Python values (numbers, tuples, lists, dtypes, functions, modules, objects) are
computed in Python, and tensors are `TensorValue`s whose operations build
mindir ops. Control flow on Python values is folded (`if`) or unrolled
(`for`, `while`); control flow on tensor values becomes `scf.if` / `scf.while`
(control_flow.py). Calls to other user functions (source.py) are specialized
per argument signature into `func.func private` functions and `func.call`ed
(trace.py, `ModuleBuilder`); builtins with tensor-aware behaviour are in
builtin_calls.py, run-time calls back into Python in fallback.py.

Plugged in from above, so that this module imports nothing of layer 5:
`set_custom_bprop_call` (msmlir.autodiff: a Cell with a user `bprop` is
called through it). Wrappers of user functions (jit's `JitFunction`) tell the
parser what to call instead with `__msmlir_unwrap__(self, args) -> (fn, args)`.
"""
from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import operator
import os
import sys
import types

from mlir import ir

from .. import dtype as _dt
from .. import ops
from ..errors import CompileError, SourcePos
from ..ops._base import to_tensor
from ..ops.host import HostString
from ..pytree import tree_flatten
from . import builder as _b
from . import fallback
from .builtin_calls import SPECIAL_BUILTINS, has_runtime_values
from .control_flow import (MISSING, Break, Continue, ControlFlow, Return, Signal, Undefined,
                           contains, describe, is_tensor_value)
from .source import SourceFunction, get_source_function, has_custom_bprop, is_user_function
from .trace import ModuleBuilder, set_parser
from .values import TensorValue

MAX_UNROLL = 10000      # iterations of a Python-valued loop unrolled at compile time

_CUSTOM_BPROP_CALL: list = []   # [cell_call(cell, args, kwargs)], set by msmlir.autodiff


def set_custom_bprop_call(call) -> None:
    """Registers how a Cell with a user-defined `bprop` is called from compiled
    code (msmlir.autodiff.custom.cell_call). Until then such a Cell is parsed
    like any other: nothing can differentiate it before autodiff is loaded."""
    _CUSTOM_BPROP_CALL[:] = [call]


def _unwrap(f, args):
    unwrap = getattr(type(f), "__msmlir_unwrap__", None)
    return unwrap(f, args) if unwrap is not None else (f, args)


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift}
_IBINOPS = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
            ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
            ast.Pow: operator.ipow, ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand,
            ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
            ast.RShift: operator.irshift}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}

_CONSTRUCT_NAMES = {
    ast.AsyncWith: "`async with` statements",
    ast.ClassDef: "class definitions", ast.Global: "`global` declarations",
    ast.Nonlocal: "`nonlocal` declarations", ast.AsyncFor: "`async for` loops",
    ast.AsyncFunctionDef: "async functions", ast.Await: "`await`", ast.Yield: "`yield` (generators)",
    ast.YieldFrom: "`yield from` (generators)",
}
if hasattr(ast, "TryStar"):
    _CONSTRUCT_NAMES[ast.TryStar] = "`try ... except*` statements"
if hasattr(ast, "Match"):
    _CONSTRUCT_NAMES[ast.Match] = "`match` statements"


# ---------------------------------------------------------------------------
# Scopes and interpreted closures
# ---------------------------------------------------------------------------

class Scope:
    def __init__(self, vars, parent=None):
        self.vars = vars
        self.parent = parent


class InterpFunction:
    """A `lambda` or nested `def` from jitted code: called inline by the parser."""

    def __init__(self, compiler, node, scope, signature, name):
        self.compiler = compiler
        self.node = node
        self.scope = scope
        self.signature = signature
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return self.compiler.call_interp(self, args, kwargs)

    def __repr__(self):
        return f"<jit-local function {self.__name__}>"


# ---------------------------------------------------------------------------
# The interpreter of one function body
# ---------------------------------------------------------------------------

class FunctionCompiler(ControlFlow):
    """Interprets one user function's AST at compile time, building IR at the
    current insertion point."""

    def __init__(self, mb: ModuleBuilder, src: SourceFunction):
        self.mb = mb
        self.src = src
        self.scope = Scope({})

    # ---- entry --------------------------------------------------------------------
    def run(self, args, kwargs):
        fn = self.src.fn
        node = self.src.node
        if isinstance(node, ast.AsyncFunctionDef):
            self.unsupported(node, "async functions")
        try:
            sig = inspect.signature(fn, follow_wrapped=False)  # a wraps wrapper's own (*args)
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            _b.error(f"calling '{fn.__name__}': {e}")
        bound.apply_defaults()
        self.scope = Scope(dict(bound.arguments))
        return self.run_body(node.body, self.src.pos(node))

    def run_body(self, body, def_pos):
        try:
            self.exec_block(body, tail=True)
        except Return as r:
            return r.value, r.pos
        except (Break, Continue) as s:
            _b.error("`break`/`continue` outside a loop", s.pos)
        return None, self._end_pos(body) or def_pos

    def _end_pos(self, body):
        if not body:
            return None
        last = body[-1]
        return SourcePos(self.src.filename, getattr(last, "end_lineno", last.lineno) or last.lineno,
                         1)

    # ---- helpers ----------------------------------------------------------------------
    def pos(self, node) -> SourcePos:
        return self.src.pos(node)

    def unsupported(self, node, what=None):
        what = what or _CONSTRUCT_NAMES.get(type(node)) or f"`{type(node).__name__}` syntax"
        _b.error(f"{what} are not supported inside jit" if what.endswith("s") and not what.endswith("`")
                 else f"{what} is not supported inside jit", self.pos(node))

    def _guard(self, node, fn, *args):
        """Runs fn at node's position, turning Python errors into CompileErrors."""
        with _b.at(self.pos(node)):
            try:
                return fn(*args)
            except (CompileError, Signal, RecursionError):
                raise
            except Exception as e:  # a Python error while evaluating user code
                if os.environ.get("MSMLIR_JIT_DEBUG"):
                    raise
                msg = str(e)
                err = _b.make_error(f"{type(e).__name__}: {msg}" if msg else type(e).__name__)
                err.py_exception = e  # a `try` in the jitted code may handle it (stmt_Try)
                raise err from None

    # ---- variables ----------------------------------------------------------------------
    def lookup(self, name, node):
        s = self.scope
        while s is not None:
            if name in s.vars:
                v = s.vars[name]
                if isinstance(v, Undefined):
                    _b.error(f"variable '{name}' is not defined on every path: {v.reason}",
                             self.pos(node))
                return v
            s = s.parent
        if name in self.src.closure:
            return self.src.closure[name]
        if name in self.src.globals:
            return self.src.globals[name]
        b = self.src.globals.get("__builtins__", builtins)
        b = b if isinstance(b, dict) else vars(b)
        if name in b:
            return b[name]
        _b.error(f"name '{name}' is not defined", self.pos(node))

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.scope.vars[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            with _b.at(self.pos(target)):
                items = self._unpack(value, target)
            for t, v in zip(target.elts, items):  # a starred target gets a list
                self.assign(t, v)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value)
            idx = self.eval_index(target.slice)
            if isinstance(obj, TensorValue):
                with _b.at(self.pos(target)):
                    obj[idx] = value  # raises a clear error
            self._guard(target, operator.setitem, obj, idx, value)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value)
            if isinstance(obj, TensorValue):
                _b.error("tensor attributes cannot be assigned inside jit", self.pos(target))
            _b.error(f"assigning to attribute '{target.attr}' is not supported inside jit "
                     f"(objects are compile-time constants)", self.pos(target))
        else:
            self.unsupported(target, f"assignment to {type(target).__name__}")

    def _unpack(self, value, target):
        elts = target.elts
        n_star = sum(isinstance(e, ast.Starred) for e in elts)
        try:
            items = list(value)
        except CompileError:
            raise
        except TypeError:
            _b.error(f"cannot unpack {describe(value)}")
        if n_star == 0:
            if len(items) != len(elts):
                _b.error(f"cannot unpack {len(items)} values into {len(elts)} targets")
            return items
        i = next(k for k, e in enumerate(elts) if isinstance(e, ast.Starred))
        after = len(elts) - i - 1
        if len(items) < len(elts) - 1:
            _b.error(f"not enough values to unpack (expected at least {len(elts) - 1}, got {len(items)})")
        return items[:i] + [items[i:len(items) - after]] + items[len(items) - after:]

    # ---- statements ------------------------------------------------------------------------
    def exec_block(self, stmts, tail=False):
        """Executes statements. `tail`: the block ends the function (a `return`
        inside a tensor `if` is then supported: the rest of the block joins
        both branches)."""
        for i, st in enumerate(stmts):
            if isinstance(st, ast.If):
                if self.exec_if(st, stmts[i + 1:], tail):
                    return
            else:
                self.exec_stmt(st)

    def exec_stmt(self, st):
        with _b.at(self.pos(st)):
            m = getattr(self, "stmt_" + type(st).__name__, None)
            if m is None:
                self.unsupported(st)
            m(st)

    def stmt_Expr(self, st):
        self.eval(st.value)

    def stmt_Pass(self, st):
        pass

    def stmt_Assign(self, st):
        value = self.eval(st.value)
        for t in st.targets:
            self.assign(t, value)

    def stmt_AnnAssign(self, st):
        if st.value is not None:
            self.assign(st.target, self.eval(st.value))

    def stmt_AugAssign(self, st):
        op = _IBINOPS[type(st.op)]  # in place on Python objects; tensors build a new value
        t = st.target
        if isinstance(t, ast.Name):
            value = self._guard(st, op, self.lookup(t.id, t), self.eval(st.value))
            self.scope.vars[t.id] = value
        elif isinstance(t, ast.Subscript):
            obj = self.eval(t.value)
            idx = self.eval_index(t.slice)
            cur = self._guard(t, operator.getitem, obj, idx)
            value = self._guard(st, op, cur, self.eval(st.value))
            if isinstance(obj, TensorValue):
                with _b.at(self.pos(t)):
                    obj[idx] = value  # raises a clear error
            self._guard(t, operator.setitem, obj, idx, value)
        else:
            self.assign(t, None)  # attributes: the same error as a plain assignment

    def stmt_Return(self, st):
        value = self.eval(st.value) if st.value is not None else None
        raise Return(value, self.pos(st))

    def stmt_Break(self, st):
        raise Break(self.pos(st))

    def stmt_Continue(self, st):
        raise Continue(self.pos(st))

    def stmt_Delete(self, st):
        for t in st.targets:
            if isinstance(t, ast.Name):
                if t.id not in self.scope.vars:
                    _b.error(f"name '{t.id}' is not defined", self.pos(t))
                del self.scope.vars[t.id]
            elif isinstance(t, ast.Subscript):
                obj = self.eval(t.value)
                self._guard(t, operator.delitem, obj, self.eval_index(t.slice))
            else:
                self.unsupported(t, "this `del` target")

    def stmt_Assert(self, st):
        test = self.eval(st.test)
        if isinstance(test, TensorValue):
            _b.error("`assert` on a tensor value is not supported inside jit (its value is only "
                     "known at run time)", self.pos(st))
        if not self._truth(test, st.test):
            msg = self.eval(st.msg) if st.msg is not None else None
            _b.error("assertion failed" + (f": {msg}" if msg is not None else ""), self.pos(st))

    def stmt_Raise(self, st):
        exc = self.eval(st.exc) if st.exc is not None else None
        if exc is None:
            _b.error("`raise` reached at compile time", self.pos(st))
        name = exc.__name__ if isinstance(exc, type) else type(exc).__name__
        text = "" if isinstance(exc, type) else str(exc)
        err = _b.make_error(f"{name} raised at compile time" + (f": {text}" if text else ""),
                            self.pos(st))
        if isinstance(exc, type) and issubclass(exc, BaseException):
            exc = self._guard(st.exc, exc)
        if isinstance(exc, BaseException):
            err.py_exception = exc
        raise err

    # `with` and `try` run at compile time on Python values (JIT Fallback): a
    # context manager's __enter__/__exit__ are called around the body while it
    # is compiled, and an exception raised by compile-time Python (a NumPy call
    # on constants, `raise`, ...) is handled by the matching `except` clause.
    # Tensor values have no exceptions at run time.
    def stmt_With(self, st):
        managers = []
        try:
            for item in st.items:
                cm = self.eval(item.context_expr)
                enter = getattr(type(cm), "__enter__", None)
                exit_ = getattr(type(cm), "__exit__", None)
                if enter is None or exit_ is None:
                    _b.error(f"{describe(cm)} is not a context manager", self.pos(item.context_expr))
                value = self._guard(item.context_expr, enter, cm)
                managers.append((cm, exit_, item.context_expr))
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.exec_block(st.body)
        except (CompileError, Signal) as e:
            exc = getattr(e, "py_exception", None)
            suppressed = False
            for cm, exit_, node in reversed(managers):
                if exc is not None and not suppressed:
                    suppressed = bool(self._guard(node, exit_, cm, type(exc), exc, exc.__traceback__))
                else:
                    self._guard(node, exit_, cm, None, None, None)
            if not suppressed:
                raise
            return
        for cm, exit_, node in reversed(managers):
            self._guard(node, exit_, cm, None, None, None)

    def stmt_Try(self, st):
        try:
            try:
                self.exec_block(st.body)
            except CompileError as e:
                exc = getattr(e, "py_exception", None)
                if exc is None:
                    raise  # a compile error (shape, type, syntax) is not a Python exception
                for h in st.handlers:
                    kinds = self.eval(h.type) if h.type is not None else BaseException
                    if self._guard(h, isinstance, exc, kinds):
                        saved = self.scope.vars.get(h.name, MISSING) if h.name else MISSING
                        if h.name:
                            self.scope.vars[h.name] = exc
                        self.exec_block(h.body)
                        if h.name:  # `except E as e`: e is unbound after the handler
                            self.scope.vars.pop(h.name, None)
                            if saved is not MISSING:
                                self.scope.vars[h.name] = saved
                        break
                else:
                    raise
            else:
                self.exec_block(st.orelse)
        except CompileError:
            raise  # compilation stops: `finally` is not run
        except Signal:
            self.exec_block(st.finalbody)
            raise
        self.exec_block(st.finalbody)

    def stmt_Import(self, st):
        for a in st.names:
            mod = self._guard(st, importlib.import_module, a.name)
            if a.asname:
                self.scope.vars[a.asname] = mod
            else:
                top = a.name.split(".")[0]
                self.scope.vars[top] = sys.modules[top]

    def stmt_ImportFrom(self, st):
        if st.level:
            self.unsupported(st, "relative imports")
        mod = self._guard(st, importlib.import_module, st.module)
        for a in st.names:
            if a.name == "*":
                self.unsupported(st, "`import *`")
            self.scope.vars[a.asname or a.name] = self._guard(st, getattr, mod, a.name)

    def stmt_FunctionDef(self, st):
        for d in st.decorator_list:
            dec = self.eval(d)
            if not getattr(dec, "__msmlir_jit__", False):   # msmlir.jit, or a JitFunction
                _b.error("decorators on functions defined inside jit are not supported (except jit)",
                         self.pos(d))
        self.scope.vars[st.name] = self.make_function(st, st.name)

    def stmt_While(self, st):
        iterations = 0
        while True:
            mark = self._mark()
            cond = self.eval(st.test)
            if isinstance(cond, TensorValue):
                self._rollback(mark)
                self.tensor_while(st)
                self.exec_block(st.orelse)
                return
            if not self._truth(cond, st.test):
                break
            iterations += 1
            if iterations > MAX_UNROLL:
                _b.error(f"a while loop on Python values ran more than {MAX_UNROLL} iterations at "
                         f"compile time (its condition never became False)", self.pos(st))
            try:
                self.exec_block(st.body)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(st.orelse)

    def stmt_For(self, st):
        it = self.eval(st.iter)
        if isinstance(it, TensorValue):
            if not it.shape:
                _b.error("iteration over a 0-d tensor", self.pos(st.iter))
            it = _TensorRows(it, self.pos(st.iter))
        try:
            iterator = iter(it)
        except TypeError:
            _b.error(f"{describe(it)} is not iterable", self.pos(st.iter))
        count = 0
        while True:
            with _b.at(self.pos(st.iter)):
                try:
                    item = next(iterator)
                except StopIteration:
                    break
                except CompileError:
                    raise
                except Exception as e:
                    _b.error(f"{type(e).__name__}: {e}")
            count += 1
            if count > MAX_UNROLL:
                _b.error(f"a for loop is unrolled at compile time and ran more than {MAX_UNROLL} "
                         f"iterations", self.pos(st))
            self.assign(st.target, item)
            try:
                self.exec_block(st.body)
            except Break:
                return
            except Continue:
                continue
        self.exec_block(st.orelse)

    # ---- if ----------------------------------------------------------------------------
    def exec_if(self, st, rest, tail) -> bool:
        """Executes `if`; returns True when it also consumed the statements `rest`
        after it (a tensor `if` containing `return`)."""
        with _b.at(self.pos(st)):
            cond = self.eval(st.test)
            if not isinstance(cond, TensorValue):
                branch = st.body if self._truth(cond, st.test) else st.orelse
                if tail:  # the rest of the block follows the branch, still in tail position
                    self.exec_block([*branch, *rest], True)
                    return True
                self.exec_block(branch)
                return False
            ret = contains([*st.body, *st.orelse], (ast.Return,))
            if ret is None:
                self.tensor_if(st, cond, st.body, st.orelse, returns=False)
                return False
            if not tail:
                _b.error("`return` inside an `if` whose condition is a tensor is only supported when "
                         "the `if` is at the top level of the function body (not inside a loop or "
                         "another block)", self.pos(ret))
            value = self.tensor_if(st, cond, [*st.body, *rest], [*st.orelse, *rest], returns=True)
            raise Return(value, self.pos(st))

    def _truth(self, v, node):
        return self._guard(node, bool, v)

    # ---- expressions ---------------------------------------------------------------------
    def eval(self, node):
        m = getattr(self, "expr_" + type(node).__name__, None)
        if m is None:
            self.unsupported(node)
        return self._guard(node, m, node)

    def expr_Constant(self, n):
        return n.value

    def expr_Name(self, n):
        return self.lookup(n.id, n)

    def expr_NamedExpr(self, n):
        v = self.eval(n.value)
        self.assign(n.target, v)
        return v

    def _elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(list(self.eval(e.value)))
            else:
                out.append(self.eval(e))
        return out

    def expr_Tuple(self, n):
        return tuple(self._elts(n.elts))

    def expr_List(self, n):
        return self._elts(n.elts)

    def expr_Set(self, n):
        return set(self._elts(n.elts))

    def expr_Dict(self, n):
        out = {}
        for k, v in zip(n.keys, n.values):
            if k is None:
                out.update(self.eval(v))
            else:
                out[self.eval(k)] = self.eval(v)
        return out

    def expr_BinOp(self, n):
        left = self.eval(n.left)
        right = self.eval(n.right)
        return _BINOPS[type(n.op)](left, right)

    def expr_UnaryOp(self, n):
        v = self.eval(n.operand)
        if isinstance(n.op, ast.Not):
            if isinstance(v, TensorValue):
                return ops.logical_not(v)
            return not v
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.UAdd):
            return +v
        return ~v

    def expr_BoolOp(self, n):
        is_and = isinstance(n.op, ast.And)
        acc = None  # a tensor accumulated so far
        for e in n.values:
            v = self.eval(e)
            if isinstance(v, TensorValue):
                acc = v if acc is None else (ops.logical_and(acc, v) if is_and else ops.logical_or(acc, v))
                continue
            truth = self._truth(v, e)
            if acc is None:
                # Python short-circuit semantics on Python values
                if is_and and not truth:
                    return v
                if not is_and and truth:
                    return v
                last = v
                continue
            # tensor so far combined with a Python value
            if is_and and not truth:
                return False
            if not is_and and truth:
                return True
        return acc if acc is not None else last

    def expr_Compare(self, n):
        left = self.eval(n.left)
        if len(n.ops) == 1:
            return _CMPOPS[type(n.ops[0])](left, self.eval(n.comparators[0]))
        acc = None  # `a < b < c` is `(a < b) and (b < c)`
        for op, comp in zip(n.ops, n.comparators):
            right = self.eval(comp)
            r = _CMPOPS[type(op)](left, right)
            if isinstance(r, TensorValue):
                acc = r if acc is None else ops.logical_and(acc, r)
            elif not self._truth(r, n):
                return False
            left = right
        return True if acc is None else acc

    def expr_IfExp(self, n):
        cond = self.eval(n.test)
        if not isinstance(cond, TensorValue):
            return self.eval(n.body if self._truth(cond, n.test) else n.orelse)
        body = ast.Return(value=n.body)
        orelse = ast.Return(value=n.orelse)
        for r, src in ((body, n.body), (orelse, n.orelse)):
            ast.copy_location(r, src)
            r.end_lineno, r.end_col_offset = src.end_lineno, src.end_col_offset
        return self.tensor_if(n, cond, [body], [orelse], returns=True,
                              what="the value of the conditional expression")

    def expr_Attribute(self, n):
        obj = self.eval(n.value)
        if isinstance(obj, TensorValue) and n.attr == "asnumpy":
            # graph mode: a tensor is its own array; NumPy calls on it run at run time
            return lambda: obj
        try:
            return getattr(obj, n.attr)
        except AttributeError:
            if isinstance(obj, TensorValue):
                method = fallback.ndarray_method(obj, n.attr)
                if method is not None:
                    return method
            what = "Tensor" if isinstance(obj, TensorValue) else f"'{type(obj).__name__}' object"
            _b.error(f"{what} has no attribute '{n.attr}'", self.pos(n))

    def eval_index(self, node):
        if isinstance(node, ast.Slice):
            lo = self.eval(node.lower) if node.lower is not None else None
            hi = self.eval(node.upper) if node.upper is not None else None
            st = self.eval(node.step) if node.step is not None else None
            return slice(lo, hi, st)
        if isinstance(node, ast.Tuple):
            return tuple(self.eval_index(e) for e in node.elts)
        return self.eval(node)

    def expr_Subscript(self, n):
        obj = self.eval(n.value)
        idx = self.eval_index(n.slice)
        return obj[idx]

    def expr_Slice(self, n):
        return self.eval_index(n)

    def expr_Starred(self, n):
        _b.error("starred expression is not allowed here", self.pos(n))

    def expr_JoinedStr(self, n):
        parts = []
        for v in n.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append(self.expr_FormattedValue(v))
        if any(isinstance(p, HostString) for p in parts):
            # formatted at run time (it can only be printed)
            out = HostString([])
            for p in parts:
                out = out + p
            return out
        return "".join(parts)

    def expr_FormattedValue(self, n):
        v = self.eval(n.value)
        if isinstance(v, (TensorValue, HostString)):
            spec = self.expr_JoinedStr(n.format_spec) if n.format_spec is not None else ""
            if isinstance(v, HostString) or isinstance(spec, HostString):
                _b.error("a format spec or nested f-string built from tensors is not supported",
                         self.pos(n))
            conv = chr(n.conversion) if n.conversion and n.conversion > 0 else ""
            return HostString([(v, conv, spec)])
        if n.conversion == ord("r"):
            v = repr(v)
        elif n.conversion == ord("s"):
            v = str(v)
        elif n.conversion == ord("a"):
            v = ascii(v)
        spec = self.expr_JoinedStr(n.format_spec) if n.format_spec is not None else ""
        return format(v, spec)

    def expr_Lambda(self, n):
        return self.make_function(n, "<lambda>")

    # comprehensions
    def _comprehension(self, n, emit):
        saved = self.scope
        self.scope = Scope({}, saved)
        try:
            self._gen(n.generators, 0, emit)
        finally:
            self.scope = saved

    def _gen(self, gens, i, emit):
        if i == len(gens):
            emit()
            return
        g = gens[i]
        it = self.eval(g.iter)
        if isinstance(it, TensorValue):
            it = _TensorRows(it, self.pos(g.iter))
        count = 0
        for item in it:
            count += 1
            if count > MAX_UNROLL:
                _b.error(f"a comprehension ran more than {MAX_UNROLL} iterations", self.pos(g.iter))
            self.assign(g.target, item)
            if all(self._truth(self.eval(c), c) for c in g.ifs):
                self._gen(gens, i + 1, emit)

    def expr_ListComp(self, n):
        out = []
        self._comprehension(n, lambda: out.append(self.eval(n.elt)))
        return out

    def expr_GeneratorExp(self, n):
        return iter(self.expr_ListComp(n))

    def expr_SetComp(self, n):
        return set(self.expr_ListComp(n))

    def expr_DictComp(self, n):
        out = {}

        def emit():
            out[self.eval(n.key)] = self.eval(n.value)
        self._comprehension(n, emit)
        return out

    # ---- calls ------------------------------------------------------------------------------
    def expr_Call(self, n):
        f = self.eval(n.func)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                args.extend(list(self.eval(a.value)))
            else:
                args.append(self.eval(a))
        kwargs = {}
        for k in n.keywords:
            if k.arg is None:
                kwargs.update(self.eval(k.value))
            else:
                kwargs[k.arg] = self.eval(k.value)
        return self.call(f, args, kwargs, n)

    def call(self, f, args, kwargs, node=None):
        f, args = _unwrap(f, args)
        if isinstance(f, InterpFunction):
            return f(*args, **kwargs)
        if _CUSTOM_BPROP_CALL and has_custom_bprop(f):
            return _CUSTOM_BPROP_CALL[0](f, args, kwargs)
        special = SPECIAL_BUILTINS.get(id(f))
        if special is not None and special[0] is f:
            return special[1](self, args, kwargs)
        if is_user_function(f):
            return self.call_user(f, args, kwargs)
        if isinstance(f, types.MethodType) and is_user_function(f.__func__):
            return self.call_user(f.__func__, [f.__self__, *args], kwargs)
        if (not isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType))
                and callable(f)):
            call = getattr(type(f), "__call__", None)
            if is_user_function(call):
                return self.call_user(call, [f, *args], kwargs)
        if getattr(f, "__msmlir_transform__", False):
            # msmlir.grad / value_and_grad / vmap / custom_bprop and the functions
            # they return: they take user functions as they are (and parse them)
            return f(*args, **kwargs)
        # A Python callable outside the user's code (a primitive in msmlir.ops, a
        # builtin, a numpy or math function, a class): called directly. User
        # functions passed to it are wrapped so they are still parsed.
        wargs = [self._wrap_callable(a) for a in args]
        wkwargs = {k: self._wrap_callable(v) for k, v in kwargs.items()}
        if not has_runtime_values(args, kwargs):
            return f(*wargs, **wkwargs)
        if _is_tensor_constructor(f):
            return _tensor_of(*args, **kwargs)
        if _is_msmlir_callable(f):
            return f(*wargs, **wkwargs)
        # JIT Fallback (frontend/fallback.py): a third-party call on tensors. NumPy & co.
        # run at run time; anything else is tried as is, and kept for run time if it
        # fails only for want of a tensor's value. A host call gets the user's
        # functions as they are (run by the interpreter).
        if fallback.is_host_library_function(f):
            return fallback.host_call(f, args, kwargs)
        mark = self._mark()
        try:
            return f(*wargs, **wkwargs)
        except CompileError as e:
            if not getattr(e, "needs_runtime_value", False):
                raise
        self._rollback(mark)
        return fallback.host_call(f, args, kwargs)

    def _wrap_callable(self, v):
        if is_user_function(v):
            return lambda *a, **k: self.call_user(v, list(a), k)
        return v

    def call_user(self, fn, args, kwargs):
        if get_source_function(fn) is None:
            # No source available (e.g. defined in an interactive session): trace it.
            return self.mb.call(fn, args, kwargs, trace=True)
        return self.mb.call(fn, args, kwargs)

    def make_function(self, node, name):
        a = node.args
        P = inspect.Parameter
        params = []
        defaults = [self.eval(d) for d in a.defaults]
        positional = a.posonlyargs + a.args
        first_default = len(positional) - len(defaults)
        for i, arg in enumerate(positional):
            kind = P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD
            d = defaults[i - first_default] if i >= first_default else P.empty
            params.append(P(arg.arg, kind, default=d))
        if a.vararg:
            params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(P(arg.arg, P.KEYWORD_ONLY, default=self.eval(d) if d is not None else P.empty))
        if a.kwarg:
            params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
        return InterpFunction(self, node, self.scope, inspect.Signature(params), name)

    def call_interp(self, f: InterpFunction, args, kwargs):
        try:
            bound = f.signature.bind(*args, **kwargs)
        except TypeError as e:
            _b.error(f"calling '{f.__name__}': {e}")
        bound.apply_defaults()
        saved = self.scope
        self.scope = Scope(dict(bound.arguments), f.scope)
        try:
            with _b.calling(f.__name__):
                if isinstance(f.node, ast.Lambda):
                    return self.eval(f.node.body)
                value, _ = self.run_body(f.node.body, self.pos(f.node))
                return value
        finally:
            self.scope = saved

    # ---- rollback of speculatively built ops ------------------------------------------------
    def _mark(self):
        block = ir.InsertionPoint.current.block
        return block, len(block.operations)

    def _rollback(self, mark):
        block, n = mark
        ops = list(block.operations)[n:]
        for op in reversed(ops):
            op.erase()


def invoke(f, args, kwargs):
    """Calls `f` from the function being built, as a call in jitted code does:
    user functions, methods and callable objects are parsed into their own
    func.func (or traced when their source is unavailable); jit-local
    functions are run inline; anything else (a primitive, a lambda, a grad or
    vmap transform) is called directly on the TensorValues."""
    mb = _b.current()
    f, args = _unwrap(f, args)
    if isinstance(f, InterpFunction):
        return f(*args, **kwargs)
    if _CUSTOM_BPROP_CALL and has_custom_bprop(f):
        return _CUSTOM_BPROP_CALL[0](f, args, kwargs)
    if _CUSTOM_BPROP_CALL and isinstance(f, types.MethodType) \
            and getattr(f.__func__, "__name__", "") == "construct" and has_custom_bprop(f.__self__):
        # `cell.construct(...)` of a Cell with a bprop (nn.Cell.__call__ does this)
        return _CUSTOM_BPROP_CALL[0](f.__self__, args, kwargs)
    if is_user_function(f):
        return mb.call(f, list(args), kwargs, trace=get_source_function(f) is None)
    if isinstance(f, types.MethodType) and is_user_function(f.__func__):
        return mb.call(f.__func__, [f.__self__, *args], kwargs,
                       trace=get_source_function(f.__func__) is None)
    if (not isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType))
            and callable(f)):
        call = getattr(type(f), "__call__", None)
        if is_user_function(call):
            return mb.call(call, [f, *args], kwargs, trace=get_source_function(call) is None)
    return f(*args, **kwargs)


def _is_msmlir_callable(f) -> bool:
    mod = getattr(f, "__module__", None) or ""
    return mod == "msmlir" or mod.startswith("msmlir.")


def _is_tensor_constructor(f) -> bool:
    """`msmlir.Tensor` / `msmlir.tensor` (and other constructors that declare it, not
    their subclasses): called on tensor values they build the tensor in the graph."""
    return bool(getattr(f, "__dict__", {}).get("__msmlir_tensor_constructor__", False))


def _tensor_of(input_data=None, dtype=None, *args, **kwargs):
    """`Tensor(x, dtype)` in graph mode on tensor values: the value itself (cast),
    a (nested) list of tensors/numbers stacked."""
    def conv(v, like):
        if isinstance(v, (list, tuple)):
            items = [conv(e, like) for e in v]
            dt = functools.reduce(_dt.promote_types, [i.dtype for i in items])
            return ops.stack([ops.cast(i, dt) if i.dtype != dt else i for i in items])
        if isinstance(v, TensorValue):
            return v
        return to_tensor(v, like.dtype if like is not None else None)

    _, leaves = tree_flatten(input_data, is_tensor_value)
    t = conv(input_data, leaves[0] if leaves else None)
    if dtype is not None:
        dt = _dt.get(dtype)
        if t.dtype != dt:
            t = ops.cast(t, dt)
    return t


class _TensorRows:
    """Iterating a tensor in a `for` loop unrolls over its first dim."""

    def __init__(self, t, pos):
        self.t, self.pos = t, pos

    def __iter__(self):
        for i in range(self.t.shape[0]):
            with _b.at(self.pos):
                yield self.t[i]


class _Parsed:
    """A parsed user function, as trace.ModuleBuilder builds it."""

    def __init__(self, src: SourceFunction):
        self.src = src
        self.def_pos = src.pos(src.node)

    def compile(self, mb, args, kwargs):
        return FunctionCompiler(mb, self.src).run(args, kwargs)


def _parse(fn):
    src = get_source_function(fn)
    return None if src is None else _Parsed(src)


set_parser(_parse)
