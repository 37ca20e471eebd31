"""The compute-definition language of msmlir.kernel (tracing objects).

A kernel function is *traced*: it runs once per input signature with
placeholder tensors; indexing them with loop variables builds symbolic
expressions, and `compute` records one stage per call.

    compute(shape, lambda i, j: expr)        out[i, j] = expr        (one stage)
    reduce_sum(lambda k: expr, k=K)          sum over k in [0, K)    (also reduce_max/min)
    x[i, j], x[i + j], x[i // 2], x[2*i + 1] affine reads (bounds are checked)
    + - * / ** unary-, abs, < <= > >= and the functions below   scalar arithmetic
    select(cond, a, b)                        instead of Python `if`

Index arithmetic is affine: loop variables combine with + and -, and with
integer constants by *, // and % (positive constants). An index expression
used as a value (e.g. `x[i] * i`) becomes a float.
"""
from __future__ import annotations

import inspect
import sys
from typing import Callable, Sequence


class KernelDefinitionError(ValueError):
    """A compute definition the DSL rejects (bad shape, out-of-bounds read, ...)."""


# --- index expressions ---------------------------------------------------------------------

class Idx:
    """An affine index expression over loop variables."""

    __slots__ = ("kind", "a", "b")

    def __init__(self, kind: str, a=None, b=None):
        self.kind = kind  # "var" | "const" | "add" | "mul" | "floordiv" | "mod"
        self.a = a
        self.b = b

    # affine arithmetic; anything non-affine becomes a (float) value expression
    def __add__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            return self if o == 0 else Idx("add", self, Idx("const", o))
        if isinstance(o, Idx):
            return Idx("add", self, o)
        return _value(self) + o

    def __radd__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            return self + o
        return o + _value(self)

    def __neg__(self):
        return Idx("mul", self, Idx("const", -1))

    def __sub__(self, o):
        if isinstance(o, (int, Idx)) and not isinstance(o, bool):
            return self + (-o)
        return _value(self) - o

    def __rsub__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            return (-self) + o
        return o - _value(self)

    def __mul__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            return Idx("mul", self, Idx("const", o))
        if isinstance(o, Idx) and (o.kind == "const" or self.kind == "const"):
            return Idx("mul", self, o) if o.kind == "const" else Idx("mul", o, self)
        return _value(self) * o

    def __rmul__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            return self * o
        return o * _value(self)

    def __floordiv__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and o > 0:
            return self if o == 1 else Idx("floordiv", self, Idx("const", o))
        raise KernelDefinitionError("index expressions divide (//) by positive integer constants only")

    def __mod__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and o > 0:
            return Idx("mod", self, Idx("const", o))
        raise KernelDefinitionError("index expressions take % of positive integer constants only")

    def __truediv__(self, o):
        return _value(self) / o

    def __rtruediv__(self, o):
        return o / _value(self)

    # comparisons produce conditions (for select)
    def __lt__(self, o):
        return _value(self) < o

    def __le__(self, o):
        return _value(self) <= o

    def __gt__(self, o):
        return _value(self) > o

    def __ge__(self, o):
        return _value(self) >= o

    def __bool__(self):
        raise KernelDefinitionError("a loop variable has no value while tracing; use select() "
                                    "instead of Python `if`/`and`/`or` on kernel expressions")

    __hash__ = object.__hash__

    def vars(self, out: list | None = None) -> list:
        out = [] if out is None else out
        if self.kind == "var":
            if self not in out:
                out.append(self)
        elif self.kind != "const":
            self.a.vars(out)
            self.b.vars(out)
        return out

    def bounds(self) -> tuple[int, int]:
        """[min, max] over the loop box (interval arithmetic, exact for these forms)."""
        k = self.kind
        if k == "var":
            return 0, self.extent - 1
        if k == "const":
            return self.a, self.a
        lo1, hi1 = self.a.bounds()
        lo2, hi2 = self.b.bounds()
        if k == "add":
            return lo1 + lo2, hi1 + hi2
        if k == "mul":
            c = [lo1 * lo2, lo1 * hi2, hi1 * lo2, hi1 * hi2]
            return min(c), max(c)
        if k == "floordiv":
            return lo1 // lo2, hi1 // lo2
        if k == "mod":
            if lo1 >= 0 and hi1 < lo2:
                return lo1, hi1
            return 0, lo2 - 1
        raise AssertionError(k)

    def __repr__(self):
        k = self.kind
        if k == "var":
            return self.name
        if k == "const":
            return str(self.a)
        op = {"add": "+", "mul": "*", "floordiv": "//", "mod": "%"}[k]
        return f"({self.a!r} {op} {self.b!r})"


class IndexVar(Idx):
    """A loop variable: an output dim of `compute` or a dim of a reduction."""

    __slots__ = ("name", "extent", "serial")
    _serial = 0

    def __init__(self, name: str, extent: int):
        super().__init__("var")
        self.name = name
        self.extent = int(extent)
        IndexVar._serial += 1
        self.serial = IndexVar._serial


def _const_idx(v) -> Idx:
    return Idx("const", int(v))


def _as_idx(v) -> Idx:
    if isinstance(v, Idx):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return _const_idx(v)
    if hasattr(v, "__index__"):
        return _const_idx(v.__index__())
    raise KernelDefinitionError(f"an index must be an affine expression of loop variables or an "
                                f"integer, got {v!r} ({type(v).__name__})")


# --- value expressions ---------------------------------------------------------------------

class Expr:
    """A scalar value expression (the element computed at one loop point)."""

    __slots__ = ("op", "args", "attr")

    def __init__(self, op: str, args: tuple = (), attr=None):
        self.op = op      # read const index unary binary cmp select reduce
        self.args = args
        self.attr = attr

    def __add__(self, o):
        return _bin("add", self, o)

    def __radd__(self, o):
        return _bin("add", o, self)

    def __sub__(self, o):
        return _bin("sub", self, o)

    def __rsub__(self, o):
        return _bin("sub", o, self)

    def __mul__(self, o):
        return _bin("mul", self, o)

    def __rmul__(self, o):
        return _bin("mul", o, self)

    def __truediv__(self, o):
        return _bin("div", self, o)

    def __rtruediv__(self, o):
        return _bin("div", o, self)

    def __pow__(self, o):
        return _bin("pow", self, o)

    def __rpow__(self, o):
        return _bin("pow", o, self)

    def __neg__(self):
        return Expr("unary", (as_expr(self),), "neg")

    def __pos__(self):
        return self

    def __abs__(self):
        return Expr("unary", (self,), "abs")

    def __lt__(self, o):
        return _cmp("olt", self, o)

    def __le__(self, o):
        return _cmp("ole", self, o)

    def __gt__(self, o):
        return _cmp("ogt", self, o)

    def __ge__(self, o):
        return _cmp("oge", self, o)

    def __bool__(self):
        raise KernelDefinitionError("a kernel expression has no value while tracing; use "
                                    "select(cond, a, b) instead of Python `if`/`and`/`or`")

    __hash__ = object.__hash__

    @property
    def is_bool(self) -> bool:
        return self.op == "cmp"

    def __repr__(self):
        if self.op == "read":
            return f"{self.args[0].name}{list(self.args[1])}"
        if self.op == "const":
            return repr(self.attr)
        if self.op == "index":
            return f"float({self.args[0]!r})"
        return f"{self.attr}({', '.join(map(repr, self.args))})"


def _value(i: Idx) -> Expr:
    return Expr("index", (i,))


def as_expr(v) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, Idx):
        return _value(v)
    if isinstance(v, bool):
        raise KernelDefinitionError("a Python bool in a kernel expression; use a comparison")
    if isinstance(v, (int, float)):
        return Expr("const", (), float(v))
    if hasattr(v, "__float__") and not hasattr(v, "shape"):
        return Expr("const", (), float(v))
    if isinstance(v, Tensor):
        raise KernelDefinitionError(f"tensor '{v.name}' used as a value: index it, e.g. "
                                    f"{v.name}[i, ...]")
    raise KernelDefinitionError(f"cannot use {v!r} ({type(v).__name__}) in a kernel expression")


def _bin(kind, a, b) -> Expr:
    a, b = as_expr(a), as_expr(b)
    if a.is_bool or b.is_bool:
        raise KernelDefinitionError("arithmetic on a condition; use select(cond, a, b)")
    return Expr("binary", (a, b), kind)


def _cmp(pred, a, b) -> Expr:
    a, b = as_expr(a), as_expr(b)
    return Expr("cmp", (a, b), pred)


def _unary(kind):
    def f(x):
        x = as_expr(x)
        if x.is_bool:
            raise KernelDefinitionError(f"{kind}() of a condition")
        return Expr("unary", (x,), kind)
    f.__name__ = kind
    f.__doc__ = f"elementwise {kind} (math.{kind})"
    return f


exp = _unary("exp")
log = _unary("log")
tanh = _unary("tanh")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
sin = _unary("sin")
cos = _unary("cos")
erf = _unary("erf")
log1p = _unary("log1p")
expm1 = _unary("expm1")
floor = _unary("floor")
ceil = _unary("ceil")


def sigmoid(x):
    """1 / (1 + exp(-x)) (a composition; AD differentiates through it)."""
    return 1.0 / (1.0 + exp(-as_expr(x)))


def maximum(a, b):
    return _bin("max", a, b)


def minimum(a, b):
    return _bin("min", a, b)


def relu(x):
    return maximum(x, 0.0)


def power(a, b):
    return _bin("pow", a, b)


def equal(a, b):
    return _cmp("oeq", a, b)


def not_equal(a, b):
    return _cmp("one", a, b)


def select(cond, a, b):
    """`a` where cond holds, else `b` (cond: a comparison)."""
    if not (isinstance(cond, Expr) and cond.is_bool):
        raise KernelDefinitionError("select() needs a comparison as its condition")
    a, b = as_expr(a), as_expr(b)
    return Expr("select", (cond, a, b), "select")


where = select


# --- reductions ----------------------------------------------------------------------------

def _loop_vars(fn: Callable, extents: Sequence, named: dict, what: str) -> list[IndexVar]:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params]
    if extents and named:
        raise KernelDefinitionError(f"{what}: give the extents positionally or by name, not both")
    if named:
        unknown = set(named) - set(names)
        if unknown:
            raise KernelDefinitionError(f"{what}: no loop variable named {sorted(unknown)} "
                                        f"(the lambda takes {names})")
        missing = [n for n in names if n not in named]
        if missing:
            raise KernelDefinitionError(f"{what}: no extent for loop variable(s) {missing}")
        extents = [named[n] for n in names]
    elif len(extents) != len(names):
        raise KernelDefinitionError(f"{what}: {len(extents)} extents for a lambda of "
                                    f"{len(names)} loop variables")
    out = []
    for n, e in zip(names, extents):
        e = _current().resolve_extent(e)
        out.append(IndexVar(n, e))
    return out


def _reduce(kind, fn, extents, named) -> Expr:
    vars_ = _loop_vars(fn, extents, named, f"reduce_{kind}")
    if not vars_:
        raise KernelDefinitionError(f"reduce_{kind} needs at least one loop variable")
    body = as_expr(fn(*vars_))
    if body.is_bool:
        raise KernelDefinitionError(f"reduce_{kind} of a condition")
    return Expr("reduce", (body,), (kind, tuple(vars_)))


def reduce_sum(fn: Callable, *extents, **named) -> Expr:
    """sum of fn(k, ...) over its loop variables: `reduce_sum(lambda k: a[i, k], k=K)`."""
    return _reduce("sum", fn, extents, named)


def reduce_max(fn: Callable, *extents, **named) -> Expr:
    return _reduce("max", fn, extents, named)


def reduce_min(fn: Callable, *extents, **named) -> Expr:
    return _reduce("min", fn, extents, named)


# --- tensors and stages --------------------------------------------------------------------

class Tensor:
    """A kernel input or a computed stage, indexable with affine expressions."""

    def __init__(self, name: str, shape: tuple, dtype: str, role: str, index: int):
        self.name = name
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.role = role   # "input" | "stage"
        self.index = index

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, idx) -> Expr:
        if not isinstance(idx, tuple):
            idx = (idx,)
        if len(idx) != len(self.shape):
            raise KernelDefinitionError(f"{self.name} has rank {len(self.shape)} but is indexed "
                                        f"with {len(idx)} indices")
        exprs = []
        for d, v in enumerate(idx):
            if isinstance(v, Expr) and v.op == "index":
                v = v.args[0]
            if isinstance(v, Expr):
                raise KernelDefinitionError(f"{self.name}[...]: index #{d} is a value expression "
                                            f"({v!r}); indices must be affine in loop variables")
            i = _as_idx(v)
            lo, hi = i.bounds()
            if lo < 0 or hi >= self.shape[d]:
                raise KernelDefinitionError(
                    f"{self.name}[...]: index #{d} ({i!r}) ranges over [{lo}, {hi}] but the "
                    f"dimension has size {self.shape[d]}")
            exprs.append(i)
        return Expr("read", (self, tuple(exprs)))

    def __repr__(self):
        return f"{self.name}: {self.dtype}{list(self.shape)}"

    def __bool__(self):
        return True

    __hash__ = object.__hash__


class Stage:
    """One compute(): out[vars] = body (body may be a top-level reduction)."""

    def __init__(self, tensor: Tensor, vars_: list[IndexVar], body: Expr, loc):
        self.tensor = tensor
        self.vars = vars_
        self.body = body
        self.loc = loc  # (file, line)

    @property
    def reduce(self):
        return self.body.attr if self.body.op == "reduce" else None

    @property
    def all_vars(self) -> list[IndexVar]:
        r = self.reduce
        return list(self.vars) + (list(r[1]) if r else [])


class Trace:
    """What tracing a kernel function records."""

    def __init__(self, dtype: str, symbols: dict):
        self.dtype = dtype
        self.symbols = dict(symbols)
        self.inputs: list[Tensor] = []
        self.stages: list[Stage] = []

    def resolve_extent(self, e) -> int:
        if isinstance(e, str):
            if e not in self.symbols:
                raise KernelDefinitionError(f"unknown shape symbol '{e}' (known: "
                                            f"{', '.join(sorted(self.symbols)) or 'none'})")
            return self.symbols[e]
        if isinstance(e, bool) or not isinstance(e, int) and not hasattr(e, "__index__"):
            raise KernelDefinitionError(f"an extent must be an int or a shape symbol, got {e!r}")
        e = int(e.__index__() if not isinstance(e, int) else e)
        if e <= 0:
            raise KernelDefinitionError(f"extents must be positive, got {e}")
        return e

    def add_stage(self, shape, fn, name, loc) -> Tensor:
        shape = tuple(self.resolve_extent(s) for s in (shape if isinstance(shape, (tuple, list))
                                                       else (shape,)))
        vars_ = _loop_vars(fn, shape, {}, "compute")
        body = as_expr(fn(*vars_))
        if body.is_bool:
            raise KernelDefinitionError("compute() of a condition: wrap it in select(c, 1.0, 0.0)")
        return self._stage(shape, vars_, body, name, loc)

    def _stage(self, shape, vars_, body, name, loc) -> Tensor:
        # a reduction must be the whole body of a stage; nested ones become stages
        if body.op == "reduce":
            inner = self._lift(body.args[0], loc)
            body = Expr("reduce", (inner,), body.attr)
        else:
            body = self._lift(body, loc)
        t = Tensor(name or f"t{len(self.stages)}", shape, self.dtype, "stage", len(self.stages))
        self.stages.append(Stage(t, list(vars_), body, loc))
        return t

    def _lift(self, e: Expr, loc) -> Expr:
        """Replaces reductions nested in e by reads of new stages over their free variables."""
        if e.op == "reduce":
            own = set(e.attr[1])
            free = [v for v in _expr_vars(e.args[0]) if v not in own]
            free.sort(key=lambda v: v.serial)
            shape = tuple(v.extent for v in free) or (1,)
            if free:
                t = self._stage(shape, free, e, None, loc)
                return Expr("read", (t, tuple(free)))
            dummy = IndexVar("_", 1)
            t = self._stage(shape, [dummy], e, None, loc)
            return Expr("read", (t, (_const_idx(0),)))
        if e.op in ("read", "const", "index"):
            return e
        return Expr(e.op, tuple(self._lift(a, loc) for a in e.args), e.attr)


def _expr_vars(e: Expr, out: list | None = None) -> list:
    out = [] if out is None else out
    if e.op == "read":
        for i in e.args[1]:
            i.vars(out)
    elif e.op == "index":
        e.args[0].vars(out)
    elif e.op == "reduce":
        _expr_vars(e.args[0], out)
    else:
        for a in e.args:
            if isinstance(a, Expr):
                _expr_vars(a, out)
    return out


_TRACES: list[Trace] = []


def _current() -> Trace:
    if not _TRACES:
        raise KernelDefinitionError("compute()/reduce_*() are used inside a @kernel function")
    return _TRACES[-1]


def compute(shape, fn: Callable, name: str | None = None) -> Tensor:
    """A stage: a tensor of `shape` whose element [i, j, ...] is fn(i, j, ...).

    shape entries are ints or shape symbols of the kernel's `In[...]` annotations."""
    f = sys._getframe(1)
    return _current().add_stage(shape, fn, name, (f.f_code.co_filename, f.f_lineno))
