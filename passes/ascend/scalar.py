"""The scalar fallback: any kernel whose linalg form the vector/cube/conv/pool
planners cannot express (f16 convolutions, middle-axis reductions, gathers,
poolings of computed values) as
an Ascend C kernel of scalar loops over GM (no pass).

The kernel's named ops are first generalized by upstream MLIR
(`linalg-generalize-named-ops`, on a copy of the function); every
linalg.generic then becomes a loop nest over its iteration space whose body
reads its operands with `GlobalTensor::GetValue` at the indexing maps'
addresses, evaluates the body's scalar ops as C++ and writes the result with
`SetValue`. Intermediate tensors live in the kernel's GM workspace (the size
the host tiling function reports through GetWorkspaceSizes). It runs on one
core (blockDim 1) and uses neither the vector nor the cube unit: correct,
and as slow as the cost model says (SCALAR cycles per element access, every
iteration of every loop nest counted). The
report marks such kernels `scalar fallback`, so a slow kernel is visible,
never silent.

scf.for (mindir.sort's bitonic stages) becomes a C++ for loop; the tensors it
carries live in workspace buffers, and a tensor no later op reads is updated
in place (a loop's initial value, a stage's row insert_slice) instead of
copied. Bounds must be constants or an enclosing loop's variable (the cost
model counts every iteration; a triangular loop is counted at its largest
trip). A failed run-time check (`msmlir_check_failed`, gather's index check
on the CPU) cannot call the host from a kernel: the kernel gets one more
output, 4 int64 (site, value, bound, count; zeroed first), written at the
first failure, which the host runner (msmlir.ascend) raises as the CPU's
IndexError.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.passmanager import PassManager

from .plan import Plan, Unsupported, Value, f32_literal, kind_of

_CTYPE = {"f16": "half", "f32": "float", "f64": "double", "i32": "int32_t", "i64": "int64_t", "i1": "uint8_t", "index": "int64_t"}


def _etype(t: ir.Type) -> str:
    if isinstance(t, ir.F32Type):
        return "f32"
    if isinstance(t, ir.F16Type):
        return "f16"                    # half (mixed-precision casts around the cube's f16 matmuls)
    if isinstance(t, ir.F64Type):
        return "f64"                    # wide accumulators of big reductions (the CPU lowering's)
    if isinstance(t, ir.IndexType):
        return "index"
    if isinstance(t, ir.IntegerType) and ir.IntegerType(t).width in (1, 32, 64):
        return {1: "i1", 32: "i32", 64: "i64"}[ir.IntegerType(t).width]
    raise Unsupported(f"element type {t} in a scalar kernel")


def _scalar_ctype(t: ir.Type) -> str:
    e = _etype(t)
    return "bool" if e == "i1" else _CTYPE[e]


class _Buf:
    """A row-major tensor in GM: a GlobalTensor `name` of `shape`."""
    def __init__(self, name, shape, etype):
        self.name, self.shape, self.etype = name, list(shape), etype

    def index(self, exprs):
        if len(exprs) != len(self.shape):
            raise Unsupported("an access whose rank differs from its tensor's")
        out, stride = [], 1
        for e, d in reversed(list(zip(exprs, self.shape))):
            out.append(f"({e}) * {stride}" if stride != 1 else f"({e})")
            stride *= d
        return " + ".join(reversed(out)) if out else "0"

    def read(self, exprs):
        v = f"{self.name}.GetValue({self.index(exprs)})"
        return f"({v} != 0)" if self.etype == "i1" else v


def _affine(e: ir.AffineExpr, dims: list[str]) -> str:
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return str(e.value)
    for cls, fmt in ((ir.AffineAddExpr, "({} + {})"), (ir.AffineMulExpr, "({} * {})"),
                     (ir.AffineFloorDivExpr, "msmlir_floordiv({}, {})"), (ir.AffineModExpr, "msmlir_mod({}, {})"),
                     (ir.AffineCeilDivExpr, "msmlir_ceildiv({}, {})")):
        if isinstance(e, cls):
            return fmt.format(_affine(e.lhs, dims), _affine(e.rhs, dims))
    raise Unsupported(f"affine expression {e}")


_HELPERS = """static inline int64_t msmlir_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t msmlir_ceildiv(int64_t a, int64_t b) { return -msmlir_floordiv(-a, b); }
static inline int64_t msmlir_mod(int64_t a, int64_t b) { int64_t r = a % b; return r < 0 ? r + b : r; }
static inline float msmlir_maximumf(float a, float b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }
static inline float msmlir_minimumf(float a, float b) { return (a != a || b != b) ? NAN : (a < b ? a : b); }
"""

_FBIN = {"arith.addf": "({} + {})", "arith.subf": "({} - {})", "arith.mulf": "({} * {})",
         "arith.divf": "({} / {})", "arith.maximumf": "msmlir_maximumf({}, {})",
         "arith.minimumf": "msmlir_minimumf({}, {})", "arith.maxnumf": "fmaxf({}, {})",
         "arith.minnumf": "fminf({}, {})", "math.powf": "powf({}, {})",
         "arith.addi": "({} + {})", "arith.subi": "({} - {})", "arith.muli": "({} * {})",
         "arith.divsi": "({} / {})", "arith.remsi": "({} % {})", "arith.andi": "({} & {})",
         "arith.ori": "({} | {})", "arith.xori": "({} ^ {})", "arith.maxsi": "std::max({}, {})",
         "arith.minsi": "std::min({}, {})", "arith.floordivsi": "msmlir_floordiv({}, {})",
         "arith.divui": "(int64_t)((uint64_t)({}) / (uint64_t)({}))",
         "arith.remui": "(int64_t)((uint64_t)({}) % (uint64_t)({}))",
         "arith.maxui": "std::max({}, {})", "arith.minui": "std::min({}, {})",
         "arith.ceildivsi": "msmlir_ceildiv({}, {})", "arith.remf": "fmodf({}, {})",
         "arith.shli": "({} << {})", "arith.shrsi": "({} >> {})", "math.copysign": "copysignf({}, {})"}
_WRAP = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.shli": "<<"}
_FUN = {"math.exp": "expf", "math.log": "logf", "math.tanh": "tanhf", "math.sqrt": "sqrtf", "math.erf": "erff",
        "math.log1p": "log1pf", "math.absf": "fabsf", "math.floor": "floorf", "math.ceil": "ceilf",
        "math.sin": "sinf", "math.cos": "cosf", "math.expm1": "expm1f", "math.roundeven": "nearbyintf",
        "math.round": "roundf", "math.erfc": "erfcf", "math.log2": "log2f", "math.exp2": "exp2f"}
# arith.cmpf predicates as C expressions of a and b: C's == < > <= >= are false on NaN, != true,
# so `one` is (a < b || a > b) and each unordered predicate the negated ordered opposite
_CMPF = {0: "false", 1: "({a} == {b})", 2: "({a} > {b})", 3: "({a} >= {b})", 4: "({a} < {b})", 5: "({a} <= {b})",
         6: "({a} < {b} || {a} > {b})", 7: "({a} == {a} && {b} == {b})", 8: "!({a} < {b} || {a} > {b})",
         9: "!({a} <= {b})", 10: "!({a} < {b})", 11: "!({a} >= {b})", 12: "!({a} > {b})", 13: "({a} != {b})",
         14: "({a} != {a} || {b} != {b})", 15: "true"}
_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}


def _float_literal(a) -> str:
    a = ir.FloatAttr(a)
    if isinstance(a.type, ir.F64Type):
        v = a.value
        return "NAN" if v != v else ("INFINITY" if v > 0 else "-INFINITY") if v in (float("inf"), float("-inf")) \
            else f"double({v!r})"
    return f32_literal(a.value)


def _literal(op: ir.Operation) -> str:
    a = op.attributes["value"]
    if isinstance(a, ir.FloatAttr):
        return _float_literal(a)
    if isinstance(a, ir.BoolAttr):
        return "true" if ir.BoolAttr(a).value else "false"
    if isinstance(a, ir.IntegerAttr):
        t = op.results[0].type
        if isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1:
            return "true" if ir.IntegerAttr(a).value else "false"
        return f"int64_t({ir.IntegerAttr(a).value})"
    raise Unsupported(f"constant {a}")


CHECK = "msmlir_check_failed"      # runtime/checks.py: the host callback of a failed run-time check
SITES = "msmlir.check_sites"


def _calls(op: ir.Operation, callee: str) -> bool:
    """Whether `op` calls `callee` anywhere inside it."""
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                o = o.operation
                if o.name == "func.call" and ir.FlatSymbolRefAttr(o.attributes["callee"]).value == callee:
                    return True
                if _calls(o, callee):
                    return True
    return False


class _Emitter:
    def __init__(self, fn):
        self.fn = fn
        self.lines: list[str] = []
        self.env: dict = {}            # ir.Value -> _Buf | ("scalar", expr)
        self.ws = 0                    # workspace bytes
        self.nbuf = 0
        self.tmp = 0
        self.consts: list[str] = []
        self.accesses = 0              # element reads + writes (cost model)
        self.status = None             # _Buf of the check status output (site, value, bound, count), if any
        self.iv_max: dict = {}         # scf.for induction variable -> its largest value (cost model)
        self.done: set = set()         # ops emitted so far (and the ops nested in them)
        self.owned: set = set()        # workspace buffers no other value views (may be updated in place)

    def new_buf(self, shape, etype, gm_expr, size=None):
        name = f"g{self.nbuf}"
        self.nbuf += 1
        n = math.prod(shape) if size is None else size
        self.lines.append(f"GlobalTensor<{_CTYPE[etype]}> {name}; "
                          f"{name}.SetGlobalBuffer((__gm__ {_CTYPE[etype]}*)({gm_expr}), {n});")
        return _Buf(name, shape, etype)

    def workspace_buf(self, shape, etype):
        nbytes = math.prod(shape) * (1 if etype == "i1" else 2 if etype == "f16" else
                                     8 if etype in ("i64", "index", "f64") else 4)
        off = self.ws
        self.ws += (nbytes + 31) // 32 * 32
        buf = self.new_buf(shape, etype, f"workspace + {off}")
        self.owned.add(buf.name)
        return buf

    def _mark(self, op):
        self.done.add(op)
        for r in op.regions:
            for b in r.blocks:
                for o in b.operations:
                    self._mark(o.operation)

    def reusable(self, v: ir.Value, op) -> "_Buf | None":
        """The buffer of `v` if `op` may overwrite it: a workspace buffer no
        other value views, defined in `op`'s block (not outside a loop
        around it), every other use of `v` already emitted (a sort stage's
        row updates, a loop's initial value)."""
        buf = self.env.get(v)
        if not isinstance(buf, _Buf) or buf.name not in self.owned:
            return None
        home = v.owner if isinstance(v.owner, ir.Block) else v.owner.operation.block
        if home != op.block:                          # defined outside an enclosing loop: read again next time
            return None
        if all(u.owner.operation in self.done or u.owner.operation == op for u in v.uses):
            return buf
        return None

    def value(self, v: ir.Value, dims=None):
        got = self.env.get(v)
        if got is not None:
            return got
        owner = v.owner
        op = None if isinstance(owner, ir.Block) else (owner.operation if hasattr(owner, "operation") else owner)
        if op is not None and op.name == "arith.constant":
            a = op.attributes["value"]
            if isinstance(a, ir.DenseElementsAttr):
                d = ir.DenseElementsAttr(a)
                t = ir.RankedTensorType(v.type)
                if d.is_splat:
                    s = d.get_splat_value()
                    expr = _float_literal(s) if isinstance(s, ir.FloatAttr) \
                        else f"int64_t({ir.IntegerAttr(s).value})"
                    self.env[v] = ("scalar", expr)
                else:
                    import numpy as np
                    arr = np.array(d).reshape(-1)
                    if arr.size > 65536:
                        raise Unsupported("a constant of more than 65536 elements")
                    et = _etype(t.element_type)
                    name = f"kConst{len(self.consts)}"
                    vals = ", ".join(f32_literal(float(x)) if et == "f32" else repr(float(x)) if et == "f64"
                                     else str(int(x)) for x in arr)
                    self.consts.append(f"static {_CTYPE[et]} {name}[{arr.size}] = {{{vals}}};")
                    self.env[v] = self.new_buf(t.shape, et, name)
            else:
                self.env[v] = ("scalar", _literal(op))
            return self.env[v]
        raise Unsupported("a value defined outside what the scalar emitter handles")

    def read(self, v, exprs):
        x = self.value(v)
        if isinstance(x, tuple):
            return x[1]
        self.accesses += 1
        return x.read(exprs)

    def result_buf(self, v: ir.Value, outputs: dict):
        t = ir.RankedTensorType(v.type)
        if v in outputs:
            return outputs[v]
        return self.workspace_buf(t.shape, _etype(t.element_type))

    # --- ops -------------------------------------------------------------------------------------
    def op(self, op, outputs):
        """Emits one op of the kernel body (or of an scf region in it)."""
        self._op(op, outputs)
        self._mark(op)

    def _op(self, op, outputs):
        if op.name in ("arith.constant", "tensor.empty"):
            return
        if op.name == "linalg.generic":
            self.generic(op, outputs)
        elif op.name == "tensor.pad":
            self.pad(op, outputs)
        elif op.name == "tensor.extract":
            self.extract(op)
        elif op.name == "tensor.extract_slice":
            self.extract_slice(op, outputs)
        elif op.name == "tensor.insert_slice":
            self.insert_slice(op, outputs)
        elif op.name in ("tensor.expand_shape", "tensor.collapse_shape"):
            src = self.value(op.operands[0])
            shape = ir.RankedTensorType(op.results[0].type).shape
            self.env[op.results[0]] = src if isinstance(src, tuple) else _Buf(src.name, shape, src.etype)
            if not isinstance(src, tuple):
                self.owned.discard(src.name)          # two values view it now
        elif op.name == "scf.for":
            self.for_(op)
        elif op.name == "scf.if":
            self.if_(op)
        elif op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == CHECK:
            self.check_failed(op)
        elif not op.regions and len(op.results) == 1 and \
                not isinstance(op.results[0].type, (ir.RankedTensorType, ir.UnrankedTensorType)) and \
                (op.name.startswith("arith.") or op.name.startswith("math.")):
            local: dict = {}                          # scalar arithmetic outside the loops (seeds, offsets)
            self.lines.append(self.scalar_op(op, local, []))
            self.env[op.results[0]] = ("scalar", local[op.results[0]])
        else:
            raise Unsupported(f"'{op.name}' (scalar fallback)")

    def _bound(self, v) -> int:
        """The largest value of loop bound `v`: a constant or an enclosing loop's variable."""
        if v in self.iv_max:
            return self.iv_max[v]
        owner = v.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant":
            return ir.IntegerAttr(owner.operation.attributes["value"]).value
        raise Unsupported("an scf.for whose bounds are neither constants nor an enclosing loop's variable")

    def for_(self, op):
        """scf.for (the sorting network's stages): a C++ for loop; each tensor
        it carries lives in a workspace buffer, copied in before the loop and
        from what the body yields at the end of each iteration."""
        lb, ub, step = op.operands[:3]
        lo, hi, st = self._bound(lb), self._bound(ub), self._bound(step)
        if st <= 0:
            raise Unsupported("an scf.for with a step that is not a positive constant")
        body = op.regions[0].blocks[0]
        iv = f"k{self.tmp}"
        self.tmp += 1
        self.env[body.arguments[0]] = ("scalar", iv)
        self.iv_max[body.arguments[0]] = max(lo, hi - 1)
        carried = []
        for init, arg in zip(list(op.operands)[3:], list(body.arguments)[1:]):
            if not isinstance(arg.type, ir.RankedTensorType):
                raise Unsupported("an scf.for carrying a scalar (scalar fallback)")
            t = ir.RankedTensorType(arg.type)
            buf = self.reusable(init, op)
            if buf is None or any(buf is c for c in carried):
                buf = self.workspace_buf(t.shape, _etype(t.element_type))
                self.copy(init, buf)
            self.env[arg] = buf
            carried.append(buf)
        self.lines.append(f"for (int64_t {iv} = {self.read(lb, [])}; {iv} < {self.read(ub, [])}; "
                          f"{iv} += {self.read(step, [])}) {{")
        before = self.accesses
        for o in body.operations:
            o = o.operation
            if o.name != "scf.yield":
                self.op(o, {})
                continue
            for k, v in enumerate(o.operands):
                got = self.value(v)
                if got is carried[k]:
                    continue
                if any(got is c for c in carried):
                    raise Unsupported("an scf.for that yields its carried tensors permuted (scalar fallback)")
                self.copy(v, carried[k])
        self.lines.append("}")
        self.accesses += (max(0, -(-(hi - lo) // st)) - 1) * (self.accesses - before)
        for r, buf in zip(op.results, carried):
            self.env[r] = buf

    def if_(self, op):
        """scf.if without results (a failed run-time check's report): a C++ if."""
        if len(op.results):
            raise Unsupported("an scf.if with results (scalar fallback)")
        self.lines.append(f"if ({self.read(op.operands[0], [])}) {{")
        for o in op.regions[0].blocks[0].operations:
            if o.operation.name != "scf.yield":
                self.op(o.operation, {})
        self.lines.append("}")
        if len(op.regions) > 1 and op.regions[1].blocks and \
                any(o.operation.name != "scf.yield" for o in op.regions[1].blocks[0].operations):
            raise Unsupported("an scf.if with an else region (scalar fallback)")

    def check_failed(self, op):
        """msmlir_check_failed(site, value, bound, count): a kernel cannot call
        the host, so the first failure is written to the status output, which
        the host runner reads after the launch and raises as the CPU does."""
        vals = [self.read(v, []) for v in op.operands]
        st = self.status.name
        self.lines.append(f"if ({st}.GetValue(3) == 0) {{ " +
                          " ".join(f"{st}.SetValue({k}, (int64_t)({x}));" for k, x in enumerate(vals)) + " }")

    def generic(self, op, outputs):
        maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
        n_out = len(op.results)
        n_in = len(op.operands) - n_out
        body = op.regions[0].blocks[0]
        ranges = [None] * maps[0].n_dims
        for v, m in zip(op.operands, maps):
            if not isinstance(v.type, ir.RankedTensorType):
                continue
            for i, e in enumerate(m.results):
                if isinstance(e, ir.AffineDimExpr):
                    ranges[e.position] = ir.RankedTensorType(v.type).shape[i]
        if any(r is None for r in ranges):
            raise Unsupported("a linalg.generic whose loop ranges are not given by an operand dimension")
        dims = [f"i{self.tmp}_{d}" for d in range(len(ranges))]
        self.tmp += 1
        res_bufs = []
        for k in range(n_out):
            buf = self.result_buf(op.results[k], outputs)
            init = op.operands[n_in + k]
            out_arg = body.arguments[n_in + k]
            if len(list(out_arg.uses)):            # the body reads its accumulator: copy the init
                self.copy(init, buf)
            res_bufs.append(buf)
        self.lines.append(f"// {op.name} over [{', '.join(map(str, ranges))}]")
        before = self.accesses
        head = "".join(f"for (int64_t {d} = 0; {d} < {r}; ++{d}) " for d, r in zip(dims, ranges))
        stmts = []
        local = {}
        for j, (arg, v, m) in enumerate(zip(body.arguments, op.operands, maps)):
            if not len(list(arg.uses)):
                continue
            ct = _scalar_ctype(arg.type)
            name = f"a{j}"
            if isinstance(v.type, ir.RankedTensorType):
                src = res_bufs[j - n_in] if j >= n_in else None
                idx = [_affine(e, dims) for e in m.results]
                expr = src.read(idx) if src is not None else self.read(v, idx)
                if src is not None:
                    self.accesses += 1
            else:
                expr = self.read(v, [])
            stmts.append(f"{ct} {name} = {expr};")
            local[arg] = name
        for bop in list(body.operations):
            bop = bop.operation
            if bop.name == "linalg.yield":
                for k, y in enumerate(bop.operands):
                    idx = [_affine(e, dims) for e in maps[n_in + k].results]
                    val = local.get(y) or self.read(y, [])
                    if res_bufs[k].etype == "i1":
                        val = f"(uint8_t)({val} ? 1 : 0)"
                    stmts.append(f"{res_bufs[k].name}.SetValue({res_bufs[k].index(idx)}, {val});")
                    self.accesses += 1
                continue
            stmts.append(self.scalar_op(bop, local, dims))
        self.lines.append(head + "{ " + " ".join(stmts) + " }")
        self.accesses += (math.prod(ranges) - 1) * (self.accesses - before)     # every iteration's accesses
        for k in range(n_out):
            self.env[op.results[k]] = res_bufs[k]

    def scalar_op(self, bop, local, dims) -> str:
        name = f"s{self.tmp}"
        self.tmp += 1
        res = bop.results[0] if len(bop.results) else None

        def arg(i):
            v = bop.operands[i]
            return local[v] if v in local else self.read(v, [])
        if bop.name == "linalg.index":
            local[res] = dims[ir.IntegerAttr(bop.attributes["dim"]).value]
            return ""
        ct = _scalar_ctype(res.type) if res is not None else "auto"
        if bop.name == "arith.constant":
            e = _literal(bop)
        elif bop.name in _WRAP and ct in ("int32_t", "int64_t"):
            # arith's integer + - * << wrap around; C++'s signed ones are undefined on overflow (a
            # compiler may assume they never overflow: a hash's loop was miscompiled), so unsigned
            u = "u" + ct
            e = f"({ct})(({u})({arg(0)}) {_WRAP[bop.name]} ({u})({arg(1)}))"
        elif bop.name in _FBIN:
            e = _FBIN[bop.name].format(arg(0), arg(1))
        elif bop.name in _FUN:
            e = f"{_FUN[bop.name]}({arg(0)})"
        elif bop.name == "math.rsqrt":
            e = f"(1.0f / sqrtf({arg(0)}))"
        elif bop.name == "arith.negf":
            e = f"(-{arg(0)})"
        elif bop.name == "arith.cmpf":
            e = "(" + _CMPF[ir.IntegerAttr(bop.attributes['predicate']).value].format(a=arg(0), b=arg(1)) + ")"
        elif bop.name == "arith.cmpi":
            e = f"({arg(0)} {_CMPI[ir.IntegerAttr(bop.attributes['predicate']).value]} {arg(1)})"
        elif bop.name == "arith.shrui":
            u = {"int32_t": "uint32_t", "int64_t": "uint64_t"}.get(ct, "uint64_t")
            e = f"({ct})(({u})({arg(0)}) >> {arg(1)})"
        elif bop.name == "arith.select":
            e = f"({arg(0)} ? {arg(1)} : {arg(2)})"
        elif bop.name in ("arith.uitofp", "arith.sitofp", "arith.fptosi", "arith.fptoui", "arith.extui",
                          "arith.extsi", "arith.trunci", "arith.index_cast", "arith.index_castui",
                          "arith.extf", "arith.truncf"):
            e = f"({ct})({arg(0)})"
        elif bop.name == "tensor.extract":
            e = self.read(bop.operands[0], [arg(i) for i in range(1, len(bop.operands))])
        else:
            raise Unsupported(f"'{bop.name}' in a linalg body (scalar fallback)")
        local[res] = name
        return f"{ct} {name} = {e};"

    def copy(self, src: ir.Value, dst: _Buf):
        dims = [f"c{self.tmp}_{d}" for d in range(len(dst.shape))]
        self.tmp += 1
        head = "".join(f"for (int64_t {d} = 0; {d} < {r}; ++{d}) " for d, r in zip(dims, dst.shape))
        x = self.value(src)
        if isinstance(x, _Buf) and math.prod(x.shape) != math.prod(dst.shape):
            raise Unsupported("a copy between tensors of different sizes")
        lin = dst.index(dims)
        val = x[1] if isinstance(x, tuple) else f"{x.name}.GetValue({lin})"
        if dst.etype == "i1" and isinstance(x, tuple):
            val = f"(uint8_t)({val} ? 1 : 0)"
        self.lines.append(head + f"{dst.name}.SetValue({lin}, {val});")
        self.accesses += 2 * math.prod(dst.shape)

    def extract(self, op):
        """tensor.extract of a scalar (a seed offset, a loss scale) outside the loops."""
        name = f"e{self.tmp}"
        self.tmp += 1
        ct = _scalar_ctype(op.results[0].type)
        idx = [self.read(i, []) for i in list(op.operands)[1:]]
        self.lines.append(f"{ct} {name} = {self.read(op.operands[0], idx)};")
        self.env[op.results[0]] = ("scalar", name)

    def _slice_dims(self, op, src_rank, res_shape):
        """(offsets, strides, source dim of each result dim) of a static
        extract/insert_slice; unit dims the slice drops are not result dims."""
        offs = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
        strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        n_fixed = 2 if op.name == "tensor.insert_slice" else 1
        dyn = list(op.operands)[n_fixed:]
        if len(dyn) != sum(abs(x) >= 2 ** 62 for x in offs) or any(abs(x) >= 2 ** 62 for x in sizes + strides):
            raise Unsupported(f"{op.name} with dynamic sizes or strides")
        offs = [self.read(dyn.pop(0), []) if abs(x) >= 2 ** 62 else x for x in offs]   # a sort's row offsets
        which, j = [], 0
        for d in range(src_rank):
            if j < len(res_shape) and (sizes[d] == res_shape[j] and (sizes[d] != 1 or
                                                                    src_rank - d <= len(res_shape) - j)):
                which.append(d)
                j += 1
        if j != len(res_shape):
            raise Unsupported(f"{op.name}: cannot match the slice's dims")
        return offs, strides, which

    def _slice_loop(self, offs, strides, which, rank, small_shape):
        dims = [f"q{self.tmp}_{d}" for d in range(len(small_shape))]
        self.tmp += 1
        big = [str(o) for o in offs]
        for j, d in enumerate(which):
            big[d] = f"{offs[d]} + {dims[j]} * {strides[d]}" if strides[d] != 1 else f"{offs[d]} + {dims[j]}"
        head = "".join(f"for (int64_t {d} = 0; {d} < {r}; ++{d}) " for d, r in zip(dims, small_shape))
        return dims, big[:rank], head

    def extract_slice(self, op, outputs):
        src = self.value(op.operands[0])
        t = ir.RankedTensorType(op.results[0].type)
        offs, strides, which = self._slice_dims(op, len(src.shape), t.shape)
        buf = self.result_buf(op.results[0], outputs)
        dims, big, head = self._slice_loop(offs, strides, which, len(src.shape), t.shape)
        self.lines.append("// tensor.extract_slice")
        self.lines.append(head + f"{buf.name}.SetValue({buf.index(dims)}, {src.read(big)});")
        self.accesses += 2 * math.prod(t.shape)
        self.env[op.results[0]] = buf

    def insert_slice(self, op, outputs):
        src_t = ir.RankedTensorType(op.operands[0].type)
        dest = op.operands[1]
        buf = None if op.results[0] in outputs else self.reusable(dest, op)
        if buf is None:
            buf = self.result_buf(op.results[0], outputs)
            if dest.owner.operation.name != "tensor.empty" if not isinstance(dest.owner, ir.Block) else True:
                self.copy(dest, buf)                  # the destination's other elements
        offs, strides, which = self._slice_dims(op, len(buf.shape), src_t.shape)
        dims, big, head = self._slice_loop(offs, strides, which, len(buf.shape), src_t.shape)
        self.lines.append("// tensor.insert_slice")
        self.lines.append(head + f"{buf.name}.SetValue({buf.index(big)}, {self.read(op.operands[0], dims)});")
        self.accesses += 2 * math.prod(src_t.shape)
        self.env[op.results[0]] = buf

    def pad(self, op, outputs):
        t = ir.RankedTensorType(op.results[0].type)
        src = self.value(op.operands[0])
        low = list(ir.DenseI64ArrayAttr(op.attributes["static_low"]))
        if any(x < 0 for x in low) or len(op.operands) != 1:
            raise Unsupported("tensor.pad with dynamic or negative padding")
        yop = [o.operation for o in op.regions[0].blocks[0].operations][-1]
        padv = self.read(yop.operands[0], [])
        buf = self.result_buf(op.results[0], outputs)
        dims = [f"p{self.tmp}_{d}" for d in range(len(t.shape))]
        self.tmp += 1
        inside = " && ".join(f"{d} >= {lo} && {d} < {lo + s}" for d, lo, s in zip(dims, low, src.shape)) or "true"
        head = "".join(f"for (int64_t {d} = 0; {d} < {r}; ++{d}) " for d, r in zip(dims, t.shape))
        read = src.read([f"{d} - {lo}" for d, lo in zip(dims, low)])
        self.lines.append("// tensor.pad")
        self.lines.append(head + f"{buf.name}.SetValue({buf.index(dims)}, ({inside}) ? {read} : {padv});")
        self.accesses += 2 * math.prod(t.shape)
        self.env[op.results[0]] = buf


def plan_scalar(fn: ir.Operation, kernel: str, *, soc: str, reason: str) -> Plan:
    """The scalar-fallback plan of kernel function `fn` (`reason`: why the
    vector/cube planners declined, kept in the report)."""
    with fn.context, ir.Location.unknown():
        scratch = ir.Module.create()
        clone = fn.clone(ip=ir.InsertionPoint(scratch.body))
        clone.attributes["sym_visibility"] = ir.StringAttr.get("public")
        for decl in fn.parent.regions[0].blocks[0].operations:      # callees the kernel may name (checks)
            decl = decl.operation
            if decl.name == "func.func" and not decl.regions[0].blocks and \
                    ir.StringAttr(decl.attributes["sym_name"]).value == CHECK:
                decl.clone(ip=ir.InsertionPoint(scratch.body))
        PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(scratch.operation)
        block = clone.regions[0].blocks[0]
        e = _Emitter(clone)
        e.status = True if _calls(clone, CHECK) else None
        args = list(block.arguments)
        ret = [o.operation for o in block.operations][-1]
        xs = [f"x{i}" for i in range(len(args))]
        ys = [f"y{k}" for k in range(len(ret.operands))]
        for i, a in enumerate(args):
            t = ir.RankedTensorType(a.type)
            e.env[a] = e.new_buf(t.shape, _etype(t.element_type), xs[i])
        outputs = {}
        for k, v in enumerate(ret.operands):
            t = ir.RankedTensorType(v.type)
            if v not in outputs and not isinstance(v.owner, ir.Block) and \
                    v.owner.operation.name in ("linalg.generic", "tensor.pad", "tensor.extract_slice",
                                               "tensor.insert_slice"):
                outputs[v] = e.new_buf(t.shape, _etype(t.element_type), ys[k])
        if e.status is not None:
            e.status = e.new_buf([4], "i64", f"y{len(ret.operands)}")
            e.lines.append(f"for (int64_t k = 0; k < 4; ++k) {e.status.name}.SetValue(k, 0);  // no failed check")
        for op in list(block.operations):
            op = op.operation
            if op.name == "func.return":
                for k, v in enumerate(op.operands):
                    if outputs.get(v) is not None and e.env.get(v) is outputs[v]:
                        continue
                    t = ir.RankedTensorType(v.type)
                    dst = e.new_buf(t.shape, _etype(t.element_type), ys[k])
                    e.lines.append(f"// result {k}")
                    e.copy(v, dst)
            else:
                e.op(op, outputs)
    plan = Plan(kernel=kernel, func=ir.StringAttr(fn.attributes["sym_name"]).value, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), 0) for i in range(len(args))],
                outputs=[(Value(f"out{k}", "full", "output", index=k), 0) for k in range(len(ret.operands))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc, double_buffer=False)

    def npdt(t):
        return {"f16": "float16", "f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "i1": "bool", "index": "int64"}[
            _etype(ir.RankedTensorType(t).element_type)]
    plan.shapes = {"in": [list(ir.RankedTensorType(a.type).shape) for a in fn.regions[0].blocks[0].arguments],
                   "out": [list(ir.RankedTensorType(v.type).shape) for v in ret.operands],
                   "in_dtypes": [npdt(a.type) for a in fn.regions[0].blocks[0].arguments],
                   "out_dtypes": [npdt(v.type) for v in ret.operands]}
    plan.scalar = {"tiling": {"blockDim": 1, "workspaceBytes": max(32, e.ws)}, "lines": e.lines,
                   "consts": e.consts, "accesses": e.accesses, "reason": reason}
    if e.status is not None:           # the check status: one more output, read and raised by the host runner
        plan.outputs.append((Value(f"out{len(ret.operands)}", "full", "output", index=len(ret.operands), dtype="i64"), 0))
        plan.shapes["out"].append([4])
        plan.shapes["out_dtypes"].append("int64")
        sites = fn.parent.attributes[SITES] if SITES in fn.parent.attributes else []
        plan.scalar["check_sites"] = [ir.StringAttr(a).value for a in sites]
    return plan


def scalar_source(plan: Plan, bug: str = "") -> str:
    s = plan.scalar
    xs = [f"x{i}" for i in range(len(plan.inputs))]
    ys = [f"y{k}" for k in range(len(plan.outputs))]
    params = ", ".join(f"GM_ADDR {n}" for n in xs + ys)
    body = "\n".join(f"  {x}" for x in s["lines"])
    consts = "\n".join(s["consts"])
    return (f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the\n"
            f"// kernel function @{plan.func} (kind {plan.kind}): SCALAR FALLBACK, one core, loops of\n"
            f"// GlobalTensor GetValue/SetValue (no vector or cube instructions), because: {s['reason']}\n"
            f"// Workspace: {s['tiling']['workspaceBytes']} bytes of GM for the intermediate tensors.\n"
            f'#include "kernel_operator.h"\n'
            f"using namespace AscendC;\n\n"
            f"{_HELPERS}{consts}\n\n"
            f'extern "C" __global__ __aicore__ void {plan.kernel}({params}, GM_ADDR workspace, GM_ADDR tiling) {{\n'
            f"  GET_TILING_DATA(tilingData, tiling);\n"
            f"  if (GetBlockIdx() != 0 || tilingData.workspaceBytes == 0) return;\n"
            f"{body}\n"
            f"}}\n")
