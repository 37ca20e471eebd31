"""Python AST -> mindir: the source-transformation half of `msmlir.jit`.

The parser *interprets* a function's AST at compile time (partial evaluation):
Python values (numbers, tuples, lists, dtypes, functions, modules, objects) are
computed in Python, and tensors are `TensorValue`s whose operations build
mindir ops. Control flow on Python values is folded (`if`) or unrolled
(`for`, `while`); control flow on tensor values becomes `scf.if` / `scf.while`
on tensors, with the variables assigned in the branches / loop body as results
/ iteration arguments. Calls to other user functions are specialized per
argument signature into `func.func private` functions and `func.call`ed.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import numbers
import operator
import os
import sys
import sysconfig
import textwrap
import types
from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.dialects import arith, func, scf, tensor

from .. import dtype as _dt
from . import builder as _b
from . import fallback
from .errors import CompileError, SourcePos
from .values import TensorValue

MAX_UNROLL = 10000      # iterations of a Python-valued loop unrolled at compile time
MAX_CALL_DEPTH = 200    # nested calls of user functions
MAX_WHILE_ATTEMPTS = 6  # rebuilds of a tensor while loop until its carried types settle


# ---------------------------------------------------------------------------
# Control-flow signals of the interpreter
# ---------------------------------------------------------------------------

class _Signal(Exception):
    def __init__(self, pos):
        super().__init__()
        self.pos = pos


class _Break(_Signal):
    pass


class _Continue(_Signal):
    pass


class _Return(_Signal):
    def __init__(self, value, pos):
        super().__init__(pos)
        self.value = value


class Undefined:
    """Marks a variable that is not defined on every path (read -> error)."""

    def __init__(self, name, reason):
        self.name = name
        self.reason = reason


_MISSING = object()


# ---------------------------------------------------------------------------
# Trees of values (tuples/lists/dicts with tensor leaves)
# ---------------------------------------------------------------------------

LEAF = ("L",)


def tree_flatten(x, is_leaf):
    """(spec, leaves): `spec` is a nested description of `x` with LEAF where a
    leaf was taken out and ("C", value) for every other non-container value."""
    leaves = []

    def rec(v):
        if is_leaf(v):
            leaves.append(v)
            return LEAF
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return ("nt", type(v), tuple(rec(e) for e in v))
        if type(v) is tuple:
            return ("tuple", tuple(rec(e) for e in v))
        if type(v) is list:
            return ("list", tuple(rec(e) for e in v))
        if type(v) is dict:
            return ("dict", tuple(v.keys()), tuple(rec(e) for e in v.values()))
        return ("C", v)

    return rec(x), leaves


def tree_unflatten(spec, leaves):
    it = iter(leaves)

    def rec(s):
        kind = s[0]
        if kind == "L":
            return next(it)
        if kind == "C":
            return s[1]
        if kind == "tuple":
            return tuple(rec(c) for c in s[1])
        if kind == "list":
            return [rec(c) for c in s[1]]
        if kind == "nt":
            return s[1](*[rec(c) for c in s[2]])
        if kind == "dict":
            return dict(zip(s[1], [rec(c) for c in s[2]]))
        raise AssertionError(kind)

    return rec(spec)


def const_key(v):
    """A hashable key for a compile-time constant (identity for unhashables)."""
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (bool, int, str, bytes, type(None))):
        return (type(v).__name__, v)
    if isinstance(v, np.ndarray):
        return ("ndarray", id(v))
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return (type(v).__qualname__, v)


def spec_key(spec):
    kind = spec[0]
    if kind == "L":
        return spec
    if kind == "C":
        return ("C", const_key(spec[1]))
    if kind == "nt":
        return ("nt", spec[1], tuple(spec_key(c) for c in spec[2]))
    if kind == "dict":
        return ("dict", tuple(const_key(k) for k in spec[1]), tuple(spec_key(c) for c in spec[2]))
    return (kind, tuple(spec_key(c) for c in spec[1]))


def _is_tv(v):
    return isinstance(v, TensorValue)


def _describe(v) -> str:
    if isinstance(v, TensorValue):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of length {len(v)}"
    return f"the Python value {v!r}" if isinstance(v, (numbers.Number, str, type(None))) else \
        f"a {type(v).__name__}"


def _scalar(v) -> bool:
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


# ---------------------------------------------------------------------------
# Source of user functions
# ---------------------------------------------------------------------------

@dataclass
class SourceFunction:
    """A parsed user function: its AST, file, globals and closure."""
    fn: types.FunctionType
    node: ast.FunctionDef
    filename: str
    globals: dict
    closure: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.__name__

    def pos(self, node) -> SourcePos:
        return SourcePos(self.filename, node.lineno, node.col_offset + 1,
                         getattr(node, "end_lineno", None),
                         (node.end_col_offset + 1) if getattr(node, "end_col_offset", None) is not None else None)


_SOURCE_CACHE: dict = {}


def _closure_vars(fn) -> dict:
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell: not yet assigned
            pass
    return out


def get_source_function(fn) -> SourceFunction | None:
    """Parses `fn`'s source once (per code object); None if it has no source."""
    code = fn.__code__
    cached = _SOURCE_CACHE.get(code)
    if cached is None:
        try:
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            return None
        src = "".join(lines)
        wrapped = bool(lines) and lines[0][:1] in (" ", "\t")
        text = "if 1:\n" + src if wrapped else src
        try:
            tree = ast.parse(text)
        except SyntaxError:
            try:  # e.g. a function whose continuation lines are indented oddly
                tree = ast.parse(textwrap.dedent(src))
                wrapped = False
            except SyntaxError:
                return None
        ast.increment_lineno(tree, start - 1 - (1 if wrapped else 0))
        body = tree.body[0].body if wrapped else tree.body
        node = None
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == fn.__name__:
                node = st
                break
        if node is None:
            return None
        cached = (node, code.co_filename)
        _SOURCE_CACHE[code] = cached
    node, filename = cached
    return SourceFunction(fn, node, filename, fn.__globals__, _closure_vars(fn))


_LIB_PATHS = tuple({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    if (p := sysconfig.get_paths().get(key))})
_PRIMITIVE_MODULES = ("msmlir.ops", "msmlir.frontend", "msmlir.dtype", "msmlir.dialects",
                      "msmlir.compiler", "msmlir._native",
                      "msmlir.autodiff",  # grad/vmap/custom_bprop: called, they build IR
                      "msmlir.numpy")


def _is_user_function(f) -> bool:
    """Functions whose source is parsed (as opposed to called directly):
    Python functions outside the standard library, site-packages and msmlir's
    own primitive modules (msmlir's other modules, e.g. nn, are parsed)."""
    if not isinstance(f, types.FunctionType) or f.__name__ == "<lambda>":
        return False
    mod = f.__module__ or ""
    if mod == "msmlir" or mod.startswith("msmlir."):
        return not mod.startswith(_PRIMITIVE_MODULES)
    filename = os.path.realpath(f.__code__.co_filename)
    return not filename.startswith(_LIB_PATHS)


# ---------------------------------------------------------------------------
# Static analysis helpers
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
# Module builder: one module, many specialized functions
# ---------------------------------------------------------------------------

@dataclass
class TensorSpec:
    """An entry argument: a tensor of known shape and dtype."""
    shape: tuple
    dtype: object

    def mlir_type(self):
        return _b.tensor_type(self.shape, self.dtype)


@dataclass
class FuncInfo:
    name: str
    func_op: object          # None when elided (the body built nothing)
    out_spec: tuple
    result_types: list
    params: list = field(default_factory=list)   # Parameters passed after the leaves
    closed: list = field(default_factory=list)   # enclosing functions' values, passed last


def call_operands(info: FuncInfo, args, kwargs) -> list:
    """The operands of a call of `info` from the function being built: the tensor
    leaves of the arguments, the caller's values of the Parameters the callee
    uses (captured by the caller in turn), then the closed-over values."""
    _, leaves = tree_flatten((tuple(args), dict(kwargs)), _is_tv)
    ops = [lf.value for lf in leaves]
    ops += [_b.param_value(p).value for p in info.params]
    ops += list(info.closed)
    return ops


def close_over(fop, block) -> list:
    """Closure conversion of a just-built function: every value its body uses
    that is defined outside it (a tensor of an enclosing function, reached
    through a jit-local closure) becomes a new trailing argument. Returns the
    outer values, in argument order (a call passes them last)."""
    inside = set()
    todo = [fop.operation]
    ops = []
    while todo:
        op = todo.pop()
        for r in op.regions:
            for b in r.blocks:
                inside.update(b.arguments)
                for o in b.operations:
                    inside.update(o.operation.results)
                    ops.append(o.operation)
                    todo.append(o.operation)
    outer, repl = [], {}
    for o in ops:
        for v in list(o.operands):
            if v in inside:
                continue
            if v not in repl:
                repl[v] = block.add_argument(v.type, ir.Location.unknown())
                outer.append(v)
            o.replace_uses_of_with(v, repl[v])
    return outer


class ModuleBuilder:
    """Builds one `builtin.module`: the entry function and every specialization
    of the user functions it calls."""

    def __init__(self):
        self.module = ir.Module.create()
        self.specs: dict = {}
        self.in_progress: set = set()
        self.symbols: set = set()
        self.depth = 0

    def unique_name(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "fn"
        name, i = base, 1
        while name in self.symbols:
            name = f"{base}_{i}"
            i += 1
        self.symbols.add(name)
        return name

    def function(self, fn, args, kwargs, *, public=False, name=None, trace=False,
                 params=(), close=False, key_extra=None) -> FuncInfo:
        """The func.func specialization of `fn` for these arguments, whose leaves
        are TensorValues (a call from jitted code) or TensorSpecs (the entry).

        Its arguments are the tensor leaves, then the Parameters it uses (`params`
        first, bound in that order; then those captured while building, see
        frontend/builder.py), then, with `close`, the values of enclosing
        functions its body uses (closure conversion: a jit-local function passed
        to grad/vmap may close over the caller's tensors). `FuncInfo.params` and
        `FuncInfo.closed` say what a call must pass after the leaves."""
        is_leaf = lambda v: isinstance(v, (TensorValue, TensorSpec))  # noqa: E731
        in_spec, leaves = tree_flatten((tuple(args), dict(kwargs)), is_leaf)
        types_ = [lf.type if isinstance(lf, TensorValue) else lf.mlir_type() for lf in leaves]
        key = (fn, spec_key(in_spec), tuple(str(t) for t in types_), public,
               tuple(id(p) for p in params), key_extra)
        info = self.specs.get(key)
        if info is not None:
            return info
        if key in self.in_progress:
            _b.error(f"recursive call of '{getattr(fn, '__name__', fn)}' with the same argument "
                     f"signature: recursion in jitted code must end on Python values")
        if self.depth >= MAX_CALL_DEPTH:
            _b.error(f"calls nested more than {MAX_CALL_DEPTH} deep")
        src = None if trace else get_source_function(fn)
        def_pos = src.pos(src.node) if src else _b.current_pos()
        self.in_progress.add(key)
        self.depth += 1
        fop = None
        try:
            sym = name or self.unique_name(getattr(fn, "__name__", "fn"))
            ptypes = [_b.tensor_type(tuple(p.shape), p.dtype) for p in params]
            with _b.at(def_pos):
                with ir.InsertionPoint(self.module.body):
                    fop = func.FuncOp(sym, ir.FunctionType.get(types_ + ptypes, []),
                                      visibility=None if public else "private")
                loc = ir.Location.current
                block = fop.regions[0].blocks.append(*(types_ + ptypes),
                                                     arg_locs=[loc] * (len(types_) + len(ptypes)))
            bargs = list(block.arguments)
            targs, tkwargs = tree_unflatten(in_spec, [TensorValue(a) for a in bargs[:len(types_)]])
            fr = _b.Frame(block, params, [TensorValue(a) for a in bargs[len(types_):]])
            with ir.InsertionPoint(block), _b.frame(fr):
                if src is not None:
                    comp = FunctionCompiler(self, src)
                    result, ret_pos = comp.run(targs, tkwargs)
                else:
                    with _b.at(def_pos):
                        result, ret_pos = self._trace(fn, targs, tkwargs, explicit=trace), def_pos
                out_spec, outs = tree_flatten(result, _is_tv)
                with _b.at(ret_pos):
                    func.ReturnOp([o.value for o in outs])
            closed = close_over(fop, block) if close else []
            rtypes = [o.type for o in outs]
            if not public and not rtypes and len(block.operations) == 1:
                # A helper that only computes Python values: nothing to call.
                fop.operation.erase()
                self.symbols.discard(sym)
                fop = None
            else:
                fop.attributes["function_type"] = ir.TypeAttr.get(
                    ir.FunctionType.get([a.type for a in block.arguments], rtypes))
            info = FuncInfo(sym, fop, out_spec, rtypes, list(fr.params), closed)
            self.specs[key] = info
            return info
        except BaseException:
            if fop is not None:  # a half-built function (the error may be handled by a `try`)
                fop.operation.erase()
                self.symbols.discard(sym)
            raise
        finally:
            self.depth -= 1
            self.in_progress.discard(key)

    @staticmethod
    def _trace(fn, args, kwargs, explicit):
        """Calls fn on TensorValues directly (tracing: Python control flow runs
        on Python values only)."""
        try:
            return fn(*args, **kwargs)
        except CompileError as e:
            if explicit:
                raise
            name = getattr(fn, "__name__", "function")
            note = (f"(the source of '{name}' is not available, e.g. it was defined in an "
                    f"interactive session, so it was traced instead of parsed: `if`/`while` on "
                    f"tensors need the source)")
            raise CompileError(f"{e.msg} {note}", e.pos, e.call_stack) from None
        except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError) as e:
            _b.error(f"{type(e).__name__}: {e}")

    def call(self, fn, args, kwargs, *, trace=False):
        """Emits a func.call of the specialization of `fn` (building it first)."""
        name = getattr(fn, "__name__", "fn")
        with _b.calling(name):
            info = self.function(fn, args, kwargs, trace=trace)
        if info.func_op is None:
            return tree_unflatten(info.out_spec, [])
        call = _b.emit(func.CallOp, info.result_types, ir.FlatSymbolRefAttr.get(info.name),
                       call_operands(info, args, kwargs))
        return tree_unflatten(info.out_spec, [TensorValue(r) for r in call.operation.results])


# ---------------------------------------------------------------------------
# The interpreter of one function body
# ---------------------------------------------------------------------------

class FunctionCompiler:
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
            sig = inspect.signature(fn)
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            _b.error(f"calling '{fn.__name__}': {e}")
        bound.apply_defaults()
        self.scope = Scope(dict(bound.arguments))
        return self.run_body(node.body, self.src.pos(node))

    def run_body(self, body, def_pos):
        try:
            self.exec_block(body, tail=True)
        except _Return as r:
            return r.value, r.pos
        except (_Break, _Continue) as s:
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
            except (CompileError, _Signal, RecursionError):
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
            _b.error(f"cannot unpack {_describe(value)}")
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
        raise _Return(value, self.pos(st))

    def stmt_Break(self, st):
        raise _Break(self.pos(st))

    def stmt_Continue(self, st):
        raise _Continue(self.pos(st))

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
                    _b.error(f"{_describe(cm)} is not a context manager", self.pos(item.context_expr))
                value = self._guard(item.context_expr, enter, cm)
                managers.append((cm, exit_, item.context_expr))
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.exec_block(st.body)
        except (CompileError, _Signal) as e:
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
                        saved = self.scope.vars.get(h.name, _MISSING) if h.name else _MISSING
                        if h.name:
                            self.scope.vars[h.name] = exc
                        self.exec_block(h.body)
                        if h.name:  # `except E as e`: e is unbound after the handler
                            self.scope.vars.pop(h.name, None)
                            if saved is not _MISSING:
                                self.scope.vars[h.name] = saved
                        break
                else:
                    raise
            else:
                self.exec_block(st.orelse)
        except CompileError:
            raise  # compilation stops: `finally` is not run
        except _Signal:
            self.exec_block(st.finalbody)
            raise
        self.exec_block(st.finalbody)

    def stmt_Import(self, st):
        import importlib
        for a in st.names:
            mod = self._guard(st, importlib.import_module, a.name)
            if a.asname:
                self.scope.vars[a.asname] = mod
            else:
                top = a.name.split(".")[0]
                self.scope.vars[top] = sys.modules[top]

    def stmt_ImportFrom(self, st):
        import importlib
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
            from .jit import JitFunction, jit
            if dec is not jit and not isinstance(dec, JitFunction):
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
            except _Break:
                return
            except _Continue:
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
            _b.error(f"{_describe(it)} is not iterable", self.pos(st.iter))
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
            except _Break:
                return
            except _Continue:
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
            raise _Return(value, self.pos(st))

    def _truth(self, v, node):
        return self._guard(node, bool, v)

    def _to_i1(self, cond: TensorValue, node):
        from ..ops.math import to_bool
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
        ret = _MISSING
        try:
            with ir.InsertionPoint(block):
                try:
                    self.exec_block(stmts, tail=returns)
                    if returns:
                        ret = None  # falls off the end of the function
                except _Return as r:
                    ret = r.value
                except (_Break, _Continue) as s:
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
                if then_vars.get(n, _MISSING) is not before.get(n, _MISSING) or \
                        else_vars.get(n, _MISSING) is not before.get(n, _MISSING):
                    names.append(n)
            pairs = []
            for n in names:
                a, b = then_vars.get(n, _MISSING), else_vars.get(n, _MISSING)
                if a is _MISSING or b is _MISSING or isinstance(a, Undefined) or isinstance(b, Undefined):
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
            cnt = _count_leaves(spec)
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
            _b.error(f"{desc} is {_describe(x)} in the `if` branch but {_describe(y)} in the `else` "
                     f"branch of the `if` at line {line}; both branches must give the same type",
                     self.pos(st))

        def materialize(v, like: TensorValue, blk):
            from ..ops._base import scalar_const
            with ir.InsertionPoint(blk), _b.at(self.pos(st)):
                return scalar_const(v, like.dtype, like.shape)

        def rec(x, y):
            if x is y and not isinstance(x, TensorValue):
                return ("C", x)
            if isinstance(x, TensorValue) or isinstance(y, TensorValue):
                if isinstance(x, TensorValue) and isinstance(y, TensorValue):
                    if x.type != y.type:
                        mismatch(x, y)
                elif isinstance(x, TensorValue) and _scalar(y):
                    y = materialize(y, x, else_blk)
                elif isinstance(y, TensorValue) and _scalar(x):
                    x = materialize(x, y, then_blk)
                else:
                    mismatch(x, y)
                then_leaves.append(x)
                else_leaves.append(y)
                return LEAF
            if type(x) is not type(y):
                if _scalar(x) and _scalar(y):
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
            if _scalar(x):
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
            from ..ops import _base
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
                        v = new_vars.get(n, _MISSING)
                        if v is _MISSING or isinstance(v, Undefined):
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
                cnt = _count_leaves(spec)
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
        from ..ops import _base
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
            cnt = _count_leaves(spec)
            self.scope.vars[n] = tree_unflatten(spec, [TensorValue(a) for a in args[k:k + cnt]])
            k += cnt

    def _carry_match(self, name, spec, value, slot_types, promoted, line, st):
        """The yielded leaves for a carried variable, or None if a Python number
        changed (it is then marked for promotion and the loop is rebuilt)."""
        from ..ops import _base
        out = []
        counter = [0]
        retry = [False]

        def fail(old, new):
            _b.error(f"variable '{name}' changes type in the body of the `while` loop at line {line}: "
                     f"{old} before the loop, {_describe(new)} after an iteration; a loop variable "
                     f"must keep its type", self.pos(st))

        def rec(s, v):
            idx = counter[0]
            counter[0] += 1
            kind = s[0]
            if kind == "L":
                t = slot_types[len(out)]  # the type of the iteration argument
                if isinstance(v, TensorValue):
                    if v.type != t:
                        fail(_type_str(t), v)
                    out.append(v)
                elif _scalar(v):
                    rt = ir.RankedTensorType(t)
                    out.append(_base.scalar_const(v, _dt.from_mlir(rt.element_type), tuple(rt.shape)))
                else:
                    fail(_type_str(t), v)
                return
            if kind == "C":
                c = s[1]
                if v is c:
                    return
                if _scalar(c) and type(v) is type(c) and v == c:
                    return
                if _scalar(c) and (_scalar(v) or isinstance(v, TensorValue)):
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
                fail(_describe(c), v)
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
                from .. import ops
                return ops.logical_not(v)
            return not v
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.UAdd):
            return +v
        return ~v

    def expr_BoolOp(self, n):
        from .. import ops
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
        from .. import ops
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
        if any(isinstance(p, fallback.HostString) for p in parts):
            # formatted at run time (it can only be printed)
            out = fallback.HostString([])
            for p in parts:
                out = out + p
            return out
        return "".join(parts)

    def expr_FormattedValue(self, n):
        v = self.eval(n.value)
        if isinstance(v, (TensorValue, fallback.HostString)):
            spec = self.expr_JoinedStr(n.format_spec) if n.format_spec is not None else ""
            if isinstance(v, fallback.HostString) or isinstance(spec, fallback.HostString):
                _b.error("a format spec or nested f-string built from tensors is not supported",
                         self.pos(n))
            conv = chr(n.conversion) if n.conversion and n.conversion > 0 else ""
            return fallback.HostString([(v, conv, spec)])
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
        from .jit import JitFunction, _BoundJit
        if isinstance(f, JitFunction):
            f = f.fn
        elif isinstance(f, _BoundJit):
            args = [f.__self__, *args]
            f = f.jit_function.fn
        if isinstance(f, InterpFunction):
            return f(*args, **kwargs)
        if has_custom_bprop(f):
            from ..autodiff.custom import cell_call
            return cell_call(f, args, kwargs)
        special = _SPECIAL_BUILTINS.get(id(f))
        if special is not None and special[0] is f:
            return special[1](self, args, kwargs)
        if _is_user_function(f):
            return self.call_user(f, args, kwargs)
        if isinstance(f, types.MethodType) and _is_user_function(f.__func__):
            return self.call_user(f.__func__, [f.__self__, *args], kwargs)
        if (not isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType))
                and callable(f)):
            call = getattr(type(f), "__call__", None)
            if _is_user_function(call):
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
        if not _has_runtime_values(args, kwargs):
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
        if _is_user_function(v):
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


def has_custom_bprop(f) -> bool:
    """A MindSpore Cell with a user-defined `bprop(self, *inputs, out, dout)`:
    an object (not a function or class) with `construct` and `bprop` methods
    written in user code (see msmlir.autodiff.custom)."""
    if isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return False
    bprop = getattr(type(f), "bprop", None)
    construct = getattr(type(f), "construct", None)
    return _is_user_function(bprop) and construct is not None


def invoke(f, args, kwargs):
    """Calls `f` from the function being built, as a call in jitted code does:
    user functions, methods and callable objects are parsed into their own
    func.func (or traced when their source is unavailable); jit-local
    functions are run inline; anything else (a primitive, a lambda, a grad or
    vmap transform) is called directly on the TensorValues."""
    from .jit import JitFunction, _BoundJit
    mb = _b.current()
    if isinstance(f, JitFunction):
        f = f.fn
    elif isinstance(f, _BoundJit):
        args = [f.__self__, *args]
        f = f.jit_function.fn
    if isinstance(f, InterpFunction):
        return f(*args, **kwargs)
    if has_custom_bprop(f):
        from ..autodiff.custom import cell_call
        return cell_call(f, args, kwargs)
    if isinstance(f, types.MethodType) and getattr(f.__func__, "__name__", "") == "construct" \
            and has_custom_bprop(f.__self__):
        # `cell.construct(...)` of a Cell with a bprop (nn.Cell.__call__ does this)
        from ..autodiff.custom import cell_call
        return cell_call(f.__self__, args, kwargs)
    if _is_user_function(f):
        return mb.call(f, list(args), kwargs, trace=get_source_function(f) is None)
    if isinstance(f, types.MethodType) and _is_user_function(f.__func__):
        return mb.call(f.__func__, [f.__self__, *args], kwargs,
                       trace=get_source_function(f.__func__) is None)
    if (not isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType))
            and callable(f)):
        call = getattr(type(f), "__call__", None)
        if _is_user_function(call):
            return mb.call(call, [f, *args], kwargs, trace=get_source_function(call) is None)
    return f(*args, **kwargs)


def _has_runtime_values(args, kwargs) -> bool:
    """Whether the arguments hold tensors (or strings built from them)."""
    _, leaves = tree_flatten((tuple(args), dict(kwargs)),
                             lambda v: isinstance(v, (TensorValue, fallback.HostString)))
    return bool(leaves)


def _is_msmlir_callable(f) -> bool:
    mod = getattr(f, "__module__", None) or ""
    return mod == "msmlir" or mod.startswith("msmlir.")


def _is_tensor_constructor(f) -> bool:
    from ..common import tensor as _t
    return f is _t.Tensor or f is _t.tensor


def _tensor_of(input_data=None, dtype=None, *args, **kwargs):
    """`Tensor(x, dtype)` in graph mode on tensor values: the value itself (cast),
    a (nested) list of tensors/numbers stacked."""
    from .. import ops
    from ..ops._base import to_tensor

    def conv(v, like):
        if isinstance(v, (list, tuple)):
            items = [conv(e, like) for e in v]
            dt = functools.reduce(_dt.promote_types, [i.dtype for i in items])
            return ops.stack([ops.cast(i, dt) if i.dtype != dt else i for i in items])
        if isinstance(v, TensorValue):
            return v
        return to_tensor(v, like.dtype if like is not None else None)

    _, leaves = tree_flatten(input_data, _is_tv)
    t = conv(input_data, leaves[0] if leaves else None)
    if dtype is not None:
        dt = _dt.get(dtype)
        if t.dtype != dt:
            t = ops.cast(t, dt)
    return t


def _count_leaves(spec) -> int:
    kind = spec[0]
    if kind == "L":
        return 1
    if kind == "C":
        return 0
    children = spec[2] if kind in ("nt", "dict") else spec[1]
    return sum(_count_leaves(c) for c in children)


def _type_str(t) -> str:
    rt = ir.RankedTensorType(t)
    return f"Tensor(shape={list(rt.shape)}, dtype={_dt.from_mlir(rt.element_type)!r})"


class _TensorRows:
    """Iterating a tensor in a `for` loop unrolls over its first dim."""

    def __init__(self, t, pos):
        self.t, self.pos = t, pos

    def __iter__(self):
        for i in range(self.t.shape[0]):
            with _b.at(self.pos):
                yield self.t[i]


# ---------------------------------------------------------------------------
# Builtins with tensor-aware behaviour
# ---------------------------------------------------------------------------

def _b_isinstance(comp, args, kwargs):
    obj, classes = args
    if isinstance(obj, TensorValue):
        cls = classes if isinstance(classes, tuple) else (classes,)
        return any(c is TensorValue or getattr(c, "__name__", "") == "Tensor" for c in cls)
    return isinstance(obj, classes)


def _b_minmax(which):
    """max()/min(): of several values with tensors among them, elementwise
    (ops.maximum/minimum); of one 1-D tensor, its reduction; else Python's."""
    def impl(comp, args, kwargs):
        from .. import ops
        if len(args) == 1 and isinstance(args[0], TensorValue):
            t = args[0]
            if t.ndim != 1:
                _b.error(f"{which}() of a tensor of rank {t.ndim}; use ops.reduce_{which} or "
                         f"Tensor.{which}(axis)")
            return ops.reduce_max(t) if which == "max" else ops.reduce_min(t)
        items = list(args[0]) if len(args) == 1 else list(args)
        if not kwargs and any(isinstance(v, TensorValue) for v in items):
            pairwise = ops.maximum if which == "max" else ops.minimum
            acc = items[0]
            for v in items[1:]:
                acc = pairwise(acc, v)
            return acc
        return (builtins.max if which == "max" else builtins.min)(*args, **kwargs)
    return impl


def _b_print(comp, args, kwargs):
    return fallback.host_print(args, kwargs)  # prints at every run (JIT Fallback)


def _b_scalar(kind):
    """float(x) / int(x) / bool(x) of a one-element tensor: a 0-d tensor stands
    for the Python scalar known at run time (compiled, not called back)."""
    py = {"float": builtins.float, "int": builtins.int, "bool": builtins.bool}[kind]

    def impl(comp, args, kwargs):
        if len(args) != 1 or kwargs or not isinstance(args[0], TensorValue):
            return py(*args, **kwargs)
        from .. import ops
        t = args[0]
        if t.size != 1:
            _b.error(f"{kind}() of a tensor with {t.size} elements (shape {list(t.shape)}); only "
                     f"one-element tensors convert to Python scalars")
        t = ops.reshape(t, ()) if t.shape else t
        if kind == "float":
            return t if t.dtype.is_float else ops.cast(t, _dt.float32)
        if kind == "int":
            return t if t.dtype.is_int else ops.cast(t, _dt.int64)
        return ops.cast(t, _dt.bool_)
    return impl


def _b_range(comp, args, kwargs):
    if _has_runtime_values(args, kwargs):
        _b.error("range() of a tensor: the number of iterations is only known at run time, and "
                 "`for` loops are unrolled at compile time; use a `while` loop on a tensor "
                 "condition (compiled to scf.while)")
    return builtins.range(*args, **kwargs)


def _b_str(which):
    py = {"str": builtins.str, "repr": builtins.repr}[which]

    def impl(comp, args, kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], TensorValue):
            return fallback.HostString([(args[0], "r" if which == "repr" else "s", "")])
        if len(args) == 1 and not kwargs and isinstance(args[0], fallback.HostString):
            return args[0]
        return py(*args, **kwargs)
    return impl


def _b_super(comp, args, kwargs):
    _b.error("super() is not supported inside jit")


_SPECIAL_BUILTINS = {id(f): (f, impl) for f, impl in [
    (builtins.isinstance, _b_isinstance),
    (builtins.max, _b_minmax("max")),
    (builtins.min, _b_minmax("min")),
    (builtins.print, _b_print),
    (builtins.float, _b_scalar("float")),
    (builtins.int, _b_scalar("int")),
    (builtins.bool, _b_scalar("bool")),
    (builtins.str, _b_str("str")),
    (builtins.range, _b_range),
    (builtins.repr, _b_str("repr")),
    (builtins.super, _b_super),
]}
