"""Scalar expressions of a kernel body: parse from IR, simplify, emit back.

The scalar body of a `linalg.generic` (arith/math ops on the elements its
operands read at one iteration point) becomes a DAG of immutable, hash-consed
`Node`s. Three kinds:

  * leaf   -- a named scalar input: `("read", k)` the element operand #k of the
              generic reads, `("out", 0)` its accumulator, `("y", 0)` the forward
              result element, `("dout", 0)` the incoming gradient element, ...
  * const  -- a scalar constant of an MLIR scalar type
  * op     -- any single-result, region-free MLIR op (arith.addf, math.exp,
              arith.cmpf, linalg.index, ...) kept with its attributes, so that
              every op can be re-emitted exactly, whether or not the
              differentiator knows it

`build()` is the *simplifying* constructor used for derivative expressions
(the zero elimination of AKG's operator-level AD): x*0 -> 0, 0+x -> x, x*1 -> x,
x-x -> 0, --x -> x, select(c, a, a) -> a, constant folding, ... Structurally
zero terms therefore never reach the IR. `raw()` builds without rewriting
(used to parse forward bodies, whose shape the reduction analysis inspects).

Nodes compare structurally, so equal subexpressions are shared (CSE) when a
DAG is emitted.
"""
from __future__ import annotations

import math

from mlir import ir

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")

# arith.cmpf predicates (the i64 value of the `predicate` attribute).
CMPF = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7,
        "ueq": 8, "ugt": 9, "uge": 10, "ult": 11, "ule": 12, "une": 13, "uno": 14, "true": 15}
CMPF_NAME = {v: k for k, v in CMPF.items()}


class KernelADError(Exception):
    """A kernel that kernel-level AD (or the compute DSL) cannot handle; `loc`
    (when set) is where to report it."""

    def __init__(self, message: str, loc=None):
        super().__init__(message)
        self.loc = loc


def is_float_type(t: str) -> bool:
    return t in FLOAT_TYPES


class Node:
    """An immutable scalar expression node (see the module docstring)."""

    __slots__ = ("kind", "name", "args", "attrs", "type", "value", "_key", "_hash")

    def __init__(self, kind: str, name: str, args: tuple, attrs: tuple, type_: str, value=None):
        self.kind = kind          # "leaf" | "const" | "op"
        self.name = name          # op name, or "leaf"/"const"
        self.args = args          # operand nodes (ops)
        self.attrs = attrs        # ((name, attribute text), ...) sorted (ops)
        self.type = type_         # MLIR scalar type as text: "f32", "i1", "index", ...
        self.value = value        # leaf key tuple, or the constant's Python value
        self._key = (kind, name, args, attrs, type_, value)
        self._hash = hash(self._key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, Node) and self._hash == other._hash
                                 and self._key == other._key)

    def __repr__(self):
        return to_text(self)

    @property
    def is_const(self) -> bool:
        return self.kind == "const"

    @property
    def is_leaf(self) -> bool:
        return self.kind == "leaf"

    def attr(self, name: str):
        for k, v in self.attrs:
            if k == name:
                return v
        return None


# --- constructors -------------------------------------------------------------------------

def leaf(key: tuple, type_: str) -> Node:
    return Node("leaf", "leaf", (), (), type_, tuple(key))


def const(value, type_: str) -> Node:
    if is_float_type(type_):
        value = float(value)
        if value == 0.0:
            value = 0.0  # -0.0 and 0.0 are one structural zero
    elif type_ == "i1":
        value = bool(value)
    else:
        value = int(value)
    return Node("const", "const", (), (), type_, value)


def raw(name: str, args, type_: str, attrs=()) -> Node:
    """An op node, exactly as given (no simplification)."""
    return Node("op", name, tuple(args), tuple(sorted(attrs)), type_)


def is_zero(n: Node) -> bool:
    return n.kind == "const" and is_float_type(n.type) and n.value == 0.0


def is_one(n: Node) -> bool:
    return n.kind == "const" and is_float_type(n.type) and n.value == 1.0


def is_const_value(n: Node, v: float) -> bool:
    return n.kind == "const" and is_float_type(n.type) and n.value == v


def zero(type_: str) -> Node:
    return const(0.0, type_)


def one(type_: str) -> Node:
    return const(1.0, type_)


# Folding of all-constant float ops (Python floats are IEEE doubles).
def _safe(fn):
    def run(*a):
        try:
            r = fn(*a)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        return r if isinstance(r, float) and math.isfinite(r) else None
    return run


_FOLD = {
    "arith.addf": _safe(lambda a, b: a + b),
    "arith.subf": _safe(lambda a, b: a - b),
    "arith.mulf": _safe(lambda a, b: a * b),
    "arith.divf": _safe(lambda a, b: a / b),
    "arith.negf": _safe(lambda a: -a),
    "arith.maximumf": _safe(max),
    "arith.minimumf": _safe(min),
    "arith.maxnumf": _safe(max),
    "arith.minnumf": _safe(min),
    "math.exp": _safe(math.exp),
    "math.log": _safe(math.log),
    "math.sqrt": _safe(math.sqrt),
    "math.tanh": _safe(math.tanh),
    "math.sin": _safe(math.sin),
    "math.cos": _safe(math.cos),
    "math.absf": _safe(abs),
    "math.powf": _safe(lambda a, b: float(a ** b)),
}


_SIMPLIFY_ON = [True]


class simplification:
    """`with simplification(False):` builds derivatives without any rewriting
    (the naive chain rule, for comparison and debugging)."""

    def __init__(self, enabled: bool):
        self.enabled = bool(enabled)

    def __enter__(self):
        _SIMPLIFY_ON.append(self.enabled)
        return self

    def __exit__(self, *exc):
        _SIMPLIFY_ON.pop()
        return False


def simplifying() -> bool:
    return _SIMPLIFY_ON[-1]


def build(name: str, args, type_: str, attrs=()) -> Node:
    """An op node after algebraic simplification (zero elimination)."""
    args = tuple(args)
    attrs = tuple(sorted(attrs))
    if not _SIMPLIFY_ON[-1]:
        return Node("op", name, args, attrs, type_)
    if is_float_type(type_) and args and all(a.is_const for a in args) and name in _FOLD:
        v = _FOLD[name](*[float(a.value) for a in args])
        if v is not None:
            return const(v, type_)
    rule = _SIMPLIFY.get(name)
    if rule is not None:
        r = rule(args, type_, attrs)
        if r is not None:
            return r
    return Node("op", name, args, attrs, type_)


def _s_add(args, t, attrs):
    a, b = args
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    if b.name == "arith.negf":
        return sub(a, b.args[0])
    if a.name == "arith.negf":
        return sub(b, a.args[0])
    if a == b:
        return mul(const(2.0, t), a)
    if a.is_const and not b.is_const:  # constants on the right
        return build("arith.addf", (b, a), t, attrs)
    return None


def _s_sub(args, t, attrs):
    a, b = args
    if is_zero(b):
        return a
    if a == b:
        return zero(t)
    if is_zero(a):
        return neg(b)
    if b.name == "arith.negf":
        return add(a, b.args[0])
    return None


def _s_mul(args, t, attrs):
    a, b = args
    if is_zero(a) or is_zero(b):
        return zero(t)
    if is_one(a):
        return b
    if is_one(b):
        return a
    if is_const_value(a, -1.0):
        return neg(b)
    if is_const_value(b, -1.0):
        return neg(a)
    if b.is_const and not a.is_const:  # constants on the left
        return build("arith.mulf", (b, a), t, attrs)
    if a.is_const and b.name == "arith.mulf" and b.args[0].is_const:
        return mul(const(a.value * b.args[0].value, t), b.args[1])
    # multiply into a select with a zero branch: the zero branch stays zero
    # (dout * select(c, 1, 0) -> select(c, dout, 0))
    for x, s in ((a, b), (b, a)):
        if s.name == "arith.select" and (is_zero(s.args[1]) or is_zero(s.args[2])):
            c, p, q = s.args
            return select(c, mul(x, p), mul(x, q))
    if a.name == "arith.negf" and b.name == "arith.negf":
        return mul(a.args[0], b.args[0])
    if a.name == "arith.negf":
        return neg(mul(a.args[0], b))
    if b.name == "arith.negf":
        return neg(mul(a, b.args[0]))
    return None


def _s_div(args, t, attrs):
    a, b = args
    if is_zero(a):
        return zero(t)
    if is_one(b):
        return a
    if is_const_value(b, -1.0):
        return neg(a)
    if a.name == "arith.negf":
        return neg(div(a.args[0], b))
    return None


def _s_neg(args, t, attrs):
    (a,) = args
    if a.name == "arith.negf":
        return a.args[0]
    if a.is_const:
        return const(-a.value, t)
    if a.name == "arith.subf":
        return sub(a.args[1], a.args[0])
    return None


def _s_select(args, t, attrs):
    c, a, b = args
    if a == b:
        return a
    if c.is_const:
        return a if c.value else b
    return None


_SIMPLIFY = {
    "arith.addf": _s_add,
    "arith.subf": _s_sub,
    "arith.mulf": _s_mul,
    "arith.divf": _s_div,
    "arith.negf": _s_neg,
    "arith.select": _s_select,
}


def add(a: Node, b: Node) -> Node:
    return build("arith.addf", (a, b), a.type)


def sub(a: Node, b: Node) -> Node:
    return build("arith.subf", (a, b), a.type)


def mul(a: Node, b: Node) -> Node:
    return build("arith.mulf", (a, b), a.type)


def div(a: Node, b: Node) -> Node:
    return build("arith.divf", (a, b), a.type)


def neg(a: Node) -> Node:
    return build("arith.negf", (a,), a.type)


def unary(name: str, a: Node) -> Node:
    return build(name, (a,), a.type)


def cmpf(pred: str, a: Node, b: Node) -> Node:
    return build("arith.cmpf", (a, b), "i1", (("predicate", f"{CMPF[pred]} : i64"),))


def select(c: Node, a: Node, b: Node) -> Node:
    return build("arith.select", (c, a, b), a.type)


def cst(v: float, like: Node) -> Node:
    return const(v, like.type)


# --- inspection -----------------------------------------------------------------------------

def leaves(n: Node, out: set | None = None) -> set:
    """The leaf keys a DAG depends on."""
    out = set() if out is None else out
    seen = set()
    stack = [n]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if x.is_leaf:
            out.add(x.value)
        stack.extend(x.args)
    return out


def contains(n: Node, pred) -> bool:
    seen = set()
    stack = [n]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if pred(x):
            return True
        stack.extend(x.args)
    return False


def to_text(n: Node, _memo=None) -> str:
    """A readable infix form, for messages and tests."""
    if n.is_leaf:
        k = n.value
        if k[0] == "read" or len(k) > 2 or (len(k) == 2 and k[1] != 0):
            return f"{k[0]}{''.join(str(x) for x in k[1:])}"
        return k[0]
    if n.is_const:
        return repr(n.value)
    infix = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
    if n.name in infix:
        return f"({to_text(n.args[0])} {infix[n.name]} {to_text(n.args[1])})"
    if n.name == "arith.negf":
        return f"-{to_text(n.args[0])}"
    if n.name == "arith.cmpf":
        p = CMPF_NAME.get(int(n.attr("predicate").split(":")[0]), "?")
        return f"cmpf_{p}({to_text(n.args[0])}, {to_text(n.args[1])})"
    short = n.name.split(".", 1)[-1]
    return f"{short}({', '.join(to_text(a) for a in n.args)})"


# --- IR <-> nodes ---------------------------------------------------------------------------

def _scalar_const(attr: ir.Attribute, type_: str) -> Node | None:
    if isinstance(attr, ir.FloatAttr):
        return const(ir.FloatAttr(attr).value, type_)
    if isinstance(attr, ir.IntegerAttr):
        return const(ir.IntegerAttr(attr).value, type_)
    return None


def node_of_constant(op) -> Node | None:
    """The constant node of a scalar `arith.constant`, else None."""
    op = op.operation
    if op.name != "arith.constant" or len(op.results) != 1:
        return None
    t = str(op.results[0].type)
    if isinstance(op.results[0].type, ir.ShapedType):
        return None
    return _scalar_const(op.attributes["value"], t)


def parse_block(block: ir.Block, env: dict, *, simplify: bool = False) -> list[Node]:
    """Nodes of the values a block's terminator yields.

    `env` maps ir.Value -> Node for the block arguments (and any other value the
    caller wants to name); values defined outside the block must be scalar
    `arith.constant`s. Every op must have one result and no regions."""
    make = build if simplify else raw
    env = dict(env)

    def get(v: ir.Value) -> Node:
        n = env.get(v)
        if n is not None:
            return n
        owner = v.owner
        if isinstance(owner, ir.Block):
            raise KernelADError("a kernel body uses a block argument of an enclosing region")
        c = node_of_constant(owner)
        if c is None:
            raise KernelADError(f"the scalar body uses a value defined outside it by "
                                f"'{owner.operation.name}' (only scalar constants may be captured)")
        env[v] = c
        return c

    ops = list(block.operations)
    for op in ops[:-1]:
        op = op.operation
        if op.regions and any(len(r.blocks) for r in op.regions):
            raise KernelADError(f"'{op.name}' with regions in a kernel's scalar body")
        if len(op.results) != 1:
            raise KernelADError(f"'{op.name}' with {len(op.results)} results in a kernel's scalar body")
        t = str(op.results[0].type)
        c = node_of_constant(op)
        if c is not None:
            env[op.results[0]] = c
            continue
        attrs = tuple((a, str(op.attributes[a])) for a in op.attributes)
        env[op.results[0]] = make(op.name, [get(v) for v in op.operands], t, attrs)
    return [get(v) for v in ops[-1].operands]


def simplify(n: Node, _memo: dict | None = None) -> Node:
    """Rebuilds a DAG bottom-up with the simplifying constructors."""
    memo = {} if _memo is None else _memo

    def go(x: Node) -> Node:
        r = memo.get(x)
        if r is None:
            r = x if not x.args else build(x.name, [go(a) for a in x.args], x.type, x.attrs)
            memo[x] = r
        return r
    return go(n)


def substitute(n: Node, env: dict) -> Node:
    """Replaces subexpressions: `env` maps Node -> Node (simplifying on the way)."""
    memo = {}

    def go(x: Node) -> Node:
        r = memo.get(x)
        if r is None:
            if x in env:
                r = env[x]
            elif not x.args:
                r = x
            else:
                r = build(x.name, [go(a) for a in x.args], x.type, x.attrs)
            memo[x] = r
        return r
    return go(n)


def _attr(text: str) -> ir.Attribute:
    return ir.Attribute.parse(text)


def emit(nodes, env: dict, memo: dict | None = None) -> list[ir.Value]:
    """Emits nodes at the current insertion point; `env` maps leaf keys to Values."""
    memo = {} if memo is None else memo

    def go(n: Node) -> ir.Value:
        v = memo.get(n)
        if v is not None:
            return v
        if n.is_leaf:
            if n.value not in env:
                raise KernelADError(f"internal: no value for leaf {n.value}")
            v = env[n.value]
        elif n.is_const:
            t = ir.Type.parse(n.type)
            if is_float_type(n.type):
                a = ir.FloatAttr.get(t, n.value)
            else:
                a = ir.IntegerAttr.get(t, int(n.value))
            v = ir.Operation.create("arith.constant", results=[t],
                                    attributes={"value": a}).result
        else:
            operands = [go(a) for a in n.args]
            v = ir.Operation.create(n.name, results=[ir.Type.parse(n.type)], operands=operands,
                                    attributes={k: _attr(s) for k, s in n.attrs}).result
        memo[n] = v
        return v

    return [go(n) for n in nodes]
