"""The polyhedral model of a function's affine loop nests (no pass).

`extract(func)` reads the `affine.for` nests in a `func.func`'s entry block
(what convert-linalg-to-affine-loops makes of a bufferized kernel, or
hand-written affine) into a `Scop`:

  statements  each maximal group of ops between loops in a loop body (the body
              of an innermost loop is one); arith.constant ops are not part of
              any statement (they are cloned where used)
  domains     isl sets from the affine bounds: constant, or affine in the
              enclosing induction variables (max/min bounds included)
  accesses    reads/writes as isl maps from affine.load/affine.store maps
  aliases     a buffer reached through several memref values (a view --
              expand/collapse_shape, subview, cast, reinterpret_cast,
              transpose -- and its source, or two views) is one array for
              the dependences: each such access is also expressed as the
              element offset into the root buffer (layout offset + sum of
              index * stride, all static), so isl sees the conflicts
  schedule    the original order, 2d+1 encoding, padded to one dimension

Anything else raises `NotRepresentable("<reason>")`: a non-affine index
(memref.load/store), scf/affine.if control flow, iter_args, non-unit steps,
dynamic sizes (bound operands that are not induction variables or
constants), a view with dynamic (or no) strides or offset of a buffer also
reached through another memref value, a scalar value flowing between
statements, an op with unknown side effects inside a nest or between the
nests.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl
from mlir import ir


CONST = "const"  # the key of the constant term in linear forms



def _operand_namer(names: dict, reason: str):
    """Names an affine operand in isl text: an induction variable by its name,
    a constant by its value; anything else is not representable (`reason`)."""
    def name_of(v):
        if v in names:
            return names[v]
        c = _const_value(v)
        if c is not None:
            return c
        raise NotRepresentable(reason)
    return name_of

class NotRepresentable(Exception):
    """The function's loops cannot be described in the polyhedral model."""


# Ops allowed at the function level between the nests (hoisted before them,
# deallocs sunk after them), and ops with no memory effects inside the nests.
_HOISTABLE = {"arith.constant", "memref.alloc", "memref.alloca", "memref.get_global",
              "memref.cast", "memref.reinterpret_cast", "memref.expand_shape",
              "memref.collapse_shape", "memref.subview", "bufferization.to_buffer"}
_SINKABLE = {"memref.dealloc"}
_PURE_PREFIXES = ("arith.", "math.")


@dataclass
class Access:
    array: str
    memref: ir.Value
    exprs: list[str]           # isl index expressions over the statement's iterators
    coeffs: list[dict | None]  # per index: {iterator position | CONST: coefficient} (None: not linear)
    # the same access for the dependences: the root buffer's name and the element
    # offset into it where the buffer is reached through several memref values
    # (set by _Extractor.alias_roots; else the same as array / exprs)
    dep_array: str = ""
    dep_exprs: list[str] = field(default_factory=list)


@dataclass
class Statement:
    name: str
    ops: list[ir.Operation]    # in order; no arith.constant
    ivs: list[ir.Value]        # enclosing induction variables, outermost first
    domain: str                # isl set text
    position: list[int]        # 2d+1 constant positions (d+1 entries)
    reads: list[Access] = field(default_factory=list)
    writes: list[Access] = field(default_factory=list)

    @property
    def iters(self) -> list[str]:
        return [f"i{k}" for k in range(len(self.ivs))]

    def schedule(self, depth: int) -> str:
        """The 2d+1 original schedule, padded with zeros to 2*depth+1 dims."""
        out = []
        for k, p in enumerate(self.position):
            out.append(str(p))
            if k < len(self.ivs):
                out.append(self.iters[k])
        out += ["0"] * (2 * depth + 1 - len(out))
        return f"{self.name}[{', '.join(self.iters)}] -> [{', '.join(out)}]"


@dataclass
class Scop:
    func: ir.Operation
    loops: list[ir.Operation]          # the top-level affine.for ops
    statements: list[Statement]
    arrays: dict[str, ir.Value]        # isl name -> memref
    hoist: list[ir.Operation]          # top-level ops between the loops to move before them
    sink: list[ir.Operation]           # ... or after them
    elem_bytes: dict[str, int] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        return max(len(s.ivs) for s in self.statements)

    def domain(self) -> isl.UnionSet:
        u = isl.UnionSet("{ }")
        for s in self.statements:
            u = u.union(isl.UnionSet(s.domain))
        return u

    def _accesses(self, kind: str, dep: bool = False) -> isl.UnionMap:
        u = isl.UnionMap("{ }")
        for s in self.statements:
            for a in getattr(s, kind):
                arr, ex = (a.dep_array or a.array, a.dep_exprs or a.exprs) if dep else (a.array, a.exprs)
                u = u.union(isl.UnionMap(
                    f"{{ {s.name}[{', '.join(s.iters)}] -> {arr}[{', '.join(ex)}] }}"))
        return u.intersect_domain(self.domain())

    def reads(self) -> isl.UnionMap:
        """Per memref value (the arrays codegen and the tiling see)."""
        return self._accesses("reads")

    def writes(self) -> isl.UnionMap:
        return self._accesses("writes")

    def dep_reads(self) -> isl.UnionMap:
        """Per buffer: views of one buffer as the same array (for the dependences)."""
        return self._accesses("reads", dep=True)

    def dep_writes(self) -> isl.UnionMap:
        return self._accesses("writes", dep=True)

    def schedule_map(self) -> isl.UnionMap:
        d = self.depth
        u = isl.UnionMap("{ }")
        for s in self.statements:
            u = u.union(isl.UnionMap(f"{{ {s.schedule(d)} }}"))
        return u.intersect_domain(self.domain())

    def statement(self, name: str) -> Statement:
        return next(s for s in self.statements if s.name == name)


# --- affine expressions -> isl text ---------------------------------------------------

def owner_op(v: ir.Value) -> ir.Operation | None:
    """The operation defining `v` (None for a block argument)."""
    if isinstance(v, ir.OpResult):
        return v.owner.operation
    return None


def _const_value(v: ir.Value) -> int | None:
    o = owner_op(v)
    if o is not None and o.name == "arith.constant":
        attr = o.attributes["value"]
        if isinstance(attr, ir.IntegerAttr):
            return attr.value
    return None


def _expr_text(e: ir.AffineExpr, names: list[str]) -> str:
    """isl text of affine expression `e` whose dims and then symbols are `names`."""
    e = e.maybe_downcast() if hasattr(e, "maybe_downcast") else e
    if isinstance(e, ir.AffineDimExpr):
        return names[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return names[e.position + _expr_text.n_dims]
    if isinstance(e, ir.AffineConstantExpr):
        return f"({e.value})"
    if isinstance(e, ir.AffineAddExpr):
        return f"({_expr_text(e.lhs, names)} + {_expr_text(e.rhs, names)})"
    if isinstance(e, ir.AffineMulExpr):
        lhs, rhs = e.lhs, e.rhs
        if isinstance(rhs, ir.AffineConstantExpr):  # isl reads "c * x", not "x * (c)"
            lhs, rhs = rhs, lhs
        if isinstance(lhs, ir.AffineConstantExpr):
            return f"({lhs.value} * {_expr_text(rhs, names)})"
        return f"({_expr_text(lhs, names)} * {_expr_text(rhs, names)})"
    # (isl reads "x mod 8", "floor(x / 8)", not "x mod (8)": constant divisors bare)
    if isinstance(e, ir.AffineFloorDivExpr):
        return f"floor(({_expr_text(e.lhs, names)}) / {_divisor(e.rhs, names)})"
    if isinstance(e, ir.AffineCeilDivExpr):
        return f"ceil(({_expr_text(e.lhs, names)}) / {_divisor(e.rhs, names)})"
    if isinstance(e, ir.AffineModExpr):
        return f"(({_expr_text(e.lhs, names)}) mod {_divisor(e.rhs, names)})"
    raise NotRepresentable(f"unsupported affine expression {e}")


_expr_text.n_dims = 0


def _divisor(e: ir.AffineExpr, names: list[str]) -> str:
    if isinstance(e, ir.AffineConstantExpr):
        return str(e.value)
    return _expr_text(e, names)


def _linear(e: ir.AffineExpr, names: list[str]) -> dict | None:
    """{name or 1: coefficient} of a linear expression, None otherwise."""
    if isinstance(e, ir.AffineDimExpr):
        return {names[e.position]: 1}
    if isinstance(e, ir.AffineSymbolExpr):
        return {names[e.position + _expr_text.n_dims]: 1}
    if isinstance(e, ir.AffineConstantExpr):
        return {CONST: e.value}
    if isinstance(e, ir.AffineAddExpr):
        a, b = _linear(e.lhs, names), _linear(e.rhs, names)
        if a is None or b is None:
            return None
        return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}
    if isinstance(e, ir.AffineMulExpr):
        a, b = _linear(e.lhs, names), _linear(e.rhs, names)
        if a is None or b is None:
            return None
        for x, y in ((a, b), (b, a)):
            if set(y) <= {CONST}:
                c = y.get(CONST, 0)
                return {k: v * c for k, v in x.items()}
        return None
    return None


def _map_texts(m: ir.AffineMap, operands, names_of) -> tuple[list[str], list[dict | None]]:
    """The results of map `m` applied to `operands` as isl texts over the
    iterator names (names_of(value) -> name, or an int for a constant)."""
    names = []
    for v in operands:
        n = names_of(v)
        names.append(f"({n})" if isinstance(n, int) else n)
    _expr_text.n_dims = m.n_dims
    texts = [_expr_text(e, names) for e in m.results]
    lins = []
    for e in m.results:
        lin = _linear(e, names)
        if lin is not None:  # fold constant operands into the constant term
            out = {}
            for k, c in lin.items():
                if isinstance(k, str) and k.startswith("("):
                    out[CONST] = out.get(CONST, 0) + c * int(k.strip("()"))
                else:
                    out[k] = out.get(k, 0) + c
            lin = out
        lins.append(lin)
    return texts, lins


# --- extraction -----------------------------------------------------------------------

def _split_operands(op: ir.Operation):
    seg = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ops = list(op.operands)
    lb = ops[:seg[0]]
    ub = ops[seg[0]:seg[0] + seg[1]]
    return lb, ub, seg


def _elem_bytes(t: ir.Type) -> int:
    w = getattr(ir.MemRefType(t).element_type, "width", None)
    if w is None:
        et = ir.MemRefType(t).element_type
        w = 64 if isinstance(et, ir.IndexType) else 32
    return max(1, w // 8)


class _Extractor:
    def __init__(self, func: ir.Operation):
        self.func = func
        self.statements: list[Statement] = []
        self.arrays: dict[str, ir.Value] = {}
        self.array_of: dict = {}
        self.elem_bytes: dict[str, int] = {}
        self.stmt_of_value: dict = {}

    def array(self, v: ir.Value) -> str:
        if v not in self.array_of:
            if not isinstance(v.type, ir.MemRefType):
                raise NotRepresentable(f"access to a non-memref value of type {v.type}")
            mt = ir.MemRefType(v.type)
            if not mt.has_static_shape:
                raise NotRepresentable(f"dynamic sizes ({v.type})")
            owner = owner_op(v)
            if owner is not None and self._inside(owner):
                raise NotRepresentable("a memref defined inside the loop nests")
            name = f"A{len(self.arrays)}"
            self.array_of[v] = name
            self.arrays[name] = v
            self.elem_bytes[name] = _elem_bytes(v.type)
        return self.array_of[v]

    def _inside(self, op: ir.Operation) -> bool:
        p = op.parent
        while p is not None and p.name != "func.func":
            if p.name == "affine.for":
                return True
            p = p.parent
        return False

    def run(self) -> Scop:
        block = self.func.regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        loop_idx = [k for k, o in enumerate(ops) if o.name == "affine.for"]
        if not loop_idx:
            raise NotRepresentable("no affine.for loop nest")
        first, last = loop_idx[0], loop_idx[-1]
        hoist, sink = [], []
        for o in ops[first:last + 1]:
            if o.name == "affine.for":
                continue
            if o.name in _HOISTABLE and not o.regions:
                hoist.append(o)
            elif o.name in _SINKABLE:
                sink.append(o)
            else:
                raise NotRepresentable(f"'{o.name}' between the loop nests")
        loops = [ops[k] for k in loop_idx]
        self.hoisted = set(hoist)
        for k, loop in enumerate(loops):
            self.nest(loop, [], [], [k])
        for s in self.statements:
            self.check_operands(s)
        self.alias_roots()
        return Scop(self.func, loops, self.statements, self.arrays, hoist, sink, self.elem_bytes)

    def nest(self, loop: ir.Operation, ivs, constraints, position):
        if len(loop.results):
            raise NotRepresentable("affine.for with iter_args")
        step = ir.IntegerAttr(loop.attributes["step"]).value
        if step != 1:
            raise NotRepresentable(f"affine.for with step {step}")
        lb_ops, ub_ops, _ = _split_operands(loop)
        iv = loop.regions[0].blocks[0].arguments[0]
        names = {v: f"i{k}" for k, v in enumerate(ivs)}
        me = f"i{len(ivs)}"

        name_of = _operand_namer(names, "dynamic sizes (a loop bound operand that is neither "
                                        "an induction variable nor a constant)")
        lbs, _ = _map_texts(ir.AffineMapAttr(loop.attributes["lowerBoundMap"]).value, lb_ops, name_of)
        ubs, _ = _map_texts(ir.AffineMapAttr(loop.attributes["upperBoundMap"]).value, ub_ops, name_of)
        cons = constraints + [f"{me} >= {t}" for t in lbs] + [f"{me} < {t}" for t in ubs]
        ivs = ivs + [iv]
        body = [o.operation for o in loop.regions[0].blocks[0].operations]
        group: list[ir.Operation] = []
        pos = 0

        def flush():
            nonlocal group, pos
            real = [o for o in group if o.name != "arith.constant"]
            if real:
                self.statement(real, ivs, cons, position + [pos])
                pos += 1
            group = []
        for o in body:
            if o.name == "affine.yield":
                continue
            if o.name == "affine.for":
                flush()
                self.nest(o, ivs, cons, position + [pos])
                pos += 1
            else:
                group.append(o)
        flush()

    def statement(self, ops, ivs, cons, position):
        name = f"S{len(self.statements)}"
        iters = [f"i{k}" for k in range(len(ivs))]
        names = {v: n for v, n in zip(ivs, iters)}

        name_of = _operand_namer(names, "non-affine index (an index operand that is neither an "
                                        "induction variable nor a constant)")
        st = Statement(name, ops, list(ivs), f"{{ {name}[{', '.join(iters)}] : "
                       f"{' and '.join(cons) or 'true'} }}", position)
        for o in ops:
            if o.regions:
                raise NotRepresentable(f"control flow inside a loop nest ('{o.name}')")
            if o.name in ("affine.load", "affine.store"):
                is_store = o.name == "affine.store"
                operands = list(o.operands)
                mem = operands[1] if is_store else operands[0]
                idx = operands[2:] if is_store else operands[1:]
                m = ir.AffineMapAttr(o.attributes["map"]).value
                texts, lins = _map_texts(m, idx, name_of)
                lins = [None if lin is None else {(int(k[1:]) if k != CONST else k): c
                                                  for k, c in lin.items()} for lin in lins]
                acc = Access(self.array(mem), mem, texts, lins)
                (st.writes if is_store else st.reads).append(acc)
            elif o.name in ("memref.load", "memref.store"):
                raise NotRepresentable(f"{o.name} with computed indices (non-affine index)")
            elif o.name.startswith(_PURE_PREFIXES):
                pass
            else:
                raise NotRepresentable(f"'{o.name}' inside a loop nest")
            for r in o.results:
                self.stmt_of_value[r] = name
        self.statements.append(st)

    def alias_roots(self):
        """Accesses to one buffer through several memref values get the root
        buffer's name and their element offset into it as dep_array/dep_exprs."""
        groups: dict = {}
        for s in self.statements:
            for a in s.reads + s.writes:
                groups.setdefault(buffer_of(a.memref), []).append(a)
        for k, accs in enumerate(groups.values()):
            if len({a.memref for a in accs}) < 2:
                continue
            for a in accs:
                try:
                    strides, offset = ir.MemRefType(a.memref.type).get_strides_and_offset()
                except RuntimeError:  # a layout map that is not strided
                    strides, offset = [_DYNAMIC], _DYNAMIC
                if _DYNAMIC in (*strides, offset):
                    raise NotRepresentable(
                        f"a view with dynamic strides or offset ({a.memref.type}) of a buffer "
                        "also accessed through another memref value")
                terms = [f"({offset})"] + [f"{st} * ({e})" for st, e in zip(strides, a.exprs) if st]
                a.dep_array, a.dep_exprs = f"R{k}", [" + ".join(terms)]

    def check_operands(self, s: Statement):
        mine = set(s.ivs)
        for o in s.ops:
            for v in o.operands:
                if v in mine:
                    continue
                owner_stmt = self.stmt_of_value.get(v)
                if owner_stmt is not None and owner_stmt != s.name:
                    raise NotRepresentable("a scalar value flows between statements")
                if owner_stmt == s.name:
                    continue
                owner = owner_op(v)
                if owner is not None:
                    if owner.name == "arith.constant" or not self._inside(owner):
                        continue
                    raise NotRepresentable(f"value of '{owner.name}' used across statements")
                parent = v.owner.owner if isinstance(v, ir.BlockArgument) else None
                if parent is not None and parent.name == "affine.for":
                    raise NotRepresentable("an induction variable used outside its statement")
            for r in o.results:
                mine.add(r)


_DYNAMIC = -(1 << 63)  # ShapedType::kDynamic
# ops whose result addresses the same memory as their first operand
_VIEWS = {"memref.expand_shape", "memref.collapse_shape", "memref.subview", "memref.cast",
          "memref.reinterpret_cast", "memref.transpose"}


def buffer_of(v: ir.Value):
    """The buffer `v` is a view of: the value after following view ops back
    to their sources (a global by its symbol: two get_globals alias)."""
    while True:
        o = owner_op(v)
        if o is None or o.name not in _VIEWS:
            break
        v = o.operands[0]
    o = owner_op(v)
    if o is not None and o.name == "memref.get_global":
        return ("global", ir.FlatSymbolRefAttr(o.attributes["name"]).value)
    return v


def extract(func: ir.Operation) -> Scop:
    """The polyhedral model of `func`'s loop nests; raises NotRepresentable."""
    return _Extractor(func).run()
