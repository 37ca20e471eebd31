"""msmlir-cpu-fast-math: f32 math.exp / math.tanh / math.erf -> polynomials.

Upstream MLIR has polynomial approximations (populateMathPolynomialApproximation
Patterns) but no pass, transform op or Python binding exposes them, so these are
Python rewrite patterns (`mlir.rewrite.RewritePatternSet`) that build the
approximations from arith/math ops, on scalars and on vectors of any shape.
Without them `math.exp` on vectors becomes one libm call per lane.

exp:  Cody-Waite range reduction x = n*ln2 + r (|r| <= ln2/2, two-constant
      ln2 with FMAs), a degree-6 relative minimax polynomial for e^r in Horner
      form (6 FMAs; it replaced Cephes' degree 7, 8 ops: 2 ops less and more
      accurate), scale by 2^n as two exponent-bit multiplications (2^(n>>1) *
      2^(n - n>>1)) so that results in the subnormal range are right and
      overflow gives +inf. x is clamped to [-104, 89]: exp(-104) rounds to 0,
      exp(89) to +inf (a softmax's exp of x - max, marked NONPOSITIVE by
      msmlir-fuse-rows, has no upper clamp). n = round(x*log2e) comes from the
      "magic number" 1.5*2^23 added by the FMA (its low mantissa bits are n,
      read with a bitcast: no rounding or float->int conversion, whose poison
      on NaN would need a select). NaN in -> NaN out (NaN times any scale).
      Max error vs numpy float64 rounded: 1 ulp over every f32 in [-104, 89]
      (test_fast_math.py; 0.6% of the results off by one, the polynomial's own
      error is 0.03 ulp), subnormal results within one step. On AVX-512 hosts
      the two multiplications become one vscalefps (msmlir-cpu-scale-by-ldexp,
      in the LLVM dialect: MLIR has no vector ldexp op).
tanh: the Eigen / MLIR rational approximation x*(P(x^2)/Q(x^2)) on x clamped to
      [-7.9988, 7.9988] (+-1 exactly at the clamp, so for all bigger |x|;
      tiny and subnormal x come out as x * ~1, within 3 ulp: no selects).
erf:  Eigen's rational approximation x*P(x^2)/Q(x^2) on x clamped to [-4, 4]
      (erf(+-4) = +-1 in f32).

With row-ops (the default), three rewrites for the row loops of
msmlir-fuse-rows (softmax, layernorm):
max:  an arith.maximumf marked SHIFT_ONLY by msmlir-fuse-rows (a softmax's
      row max, which only shifts exp's argument: row_fusion.py says why its
      NaN semantics do not matter) becomes select(b > a, b, a), one vmaxps
      instead of four x86 instructions.
div:  an f32 vector divided by a broadcast value (softmax's x / sum) becomes
      a multiplication by the broadcast reciprocal (one division per row, not
      one per element; <= 1.5 ulp; LLVM hoists the reciprocal out of the loop).
row reductions: f32 vector.multi_reduction <maximumf|minimumf|maxnumf|minnumf|
      add|mul> of one row ([1, N] or [N], N = 2^k * m) becomes a tree of
      halving elementwise ops (max/min: exact; add: pairwise, reassociated as
      the partial-sum vectors already are); LLVM otherwise expands these
      reductions into a serial chain of scalar ops, one per lane.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math, vector
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from ..common.linalg import walk_ops
from ..registry import Option, register_pass

LOG2E = 1.44269504088896341
LN2_HI = 0.693359375
LN2_LO = -2.12194440e-4
# e^r on |r| <= ln2/2, degree 6, Horner from the highest coefficient: a
# relative minimax fit (1.98e-9, 0.03 ulp) with the constant term 1.
EXP_P = (1.3843607157e-3, 8.3741955459e-3, 4.1668005288e-2, 1.6666430235e-1,
         4.9999994040e-1, 1.0, 1.0)
EXP_LO, EXP_HI = -104.0, 89.0

TANH_CLAMP = 7.99881172180175781
TANH_ALPHA = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
              5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
              -2.76076847742355e-16)
TANH_BETA = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
             1.19825839466702e-06)

ERF_CLAMP = 4.0
ERF_ALPHA = (-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04,
             -5.69250639462346e-05, -2.10102402082508e-06, 2.77068142495902e-08,
             -2.72614225801306e-10)
ERF_BETA = (-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03,
            -2.13374055278905e-04, -1.45660718464996e-05)


def _is_f32(t: ir.Type) -> bool:
    if isinstance(t, ir.VectorType):
        t = t.element_type
    return isinstance(t, ir.F32Type)


class _B:
    """Builds scalar-or-vector arith at the current insertion point."""

    def __init__(self, t: ir.Type):
        self.t = t
        f32 = ir.F32Type.get()
        i32 = ir.IntegerType.get_signless(32)
        if isinstance(t, ir.VectorType):
            self.it = ir.VectorType.get(t.shape, i32)
            self.bt = ir.VectorType.get(t.shape, ir.IntegerType.get_signless(1))
        else:
            self.it = i32
            self.bt = ir.IntegerType.get_signless(1)
        self._f32, self._i32 = f32, i32
        self._cache = {}

    def f(self, c: float) -> ir.Value:
        key = ("f", float(c))
        if key not in self._cache:
            a = ir.FloatAttr.get(self._f32, float(c))
            if isinstance(self.t, ir.VectorType):
                a = ir.DenseElementsAttr.get_splat(self.t, a)
            self._cache[key] = arith.ConstantOp(self.t, a).result
        return self._cache[key]

    def i(self, c: int) -> ir.Value:
        key = ("i", int(c))
        if key not in self._cache:
            a = ir.IntegerAttr.get(self._i32, int(c))
            if isinstance(self.it, ir.VectorType):
                a = ir.DenseElementsAttr.get_splat(self.it, a)
            self._cache[key] = arith.ConstantOp(self.it, a).result
        return self._cache[key]

    def fma(self, a, b, c):
        return math.fma(a, b, c)

    def horner(self, x, coeffs):
        """c0*x^(n-1) + ... + c_{n-1}, with FMAs."""
        acc = self.f(coeffs[0])
        for c in coeffs[1:]:
            acc = self.fma(acc, x, self.f(c))
        return acc

    def lt(self, a, b):
        return arith.cmpf(arith.CmpFPredicate.OLT, a, b)

    def gt(self, a, b):
        return arith.cmpf(arith.CmpFPredicate.OGT, a, b)

    def clamp(self, x, lo, hi):
        """NaN-preserving clamp built from compares and selects."""
        x = arith.select(self.lt(x, self.f(lo)), self.f(lo), x)
        return arith.select(self.gt(x, self.f(hi)), self.f(hi), x)

    def is_nan(self, x):
        return arith.cmpf(arith.CmpFPredicate.UNO, x, x)


EXP_MAGIC = 12582912.0  # 1.5 * 2^23: x + MAGIC rounds x to an integer in the low mantissa bits
EXP_MAGIC_BITS = 0x4B400000


def build_exp(b: _B, x: ir.Value, nonpositive: bool = False) -> ir.Value:
    # (NaN: the clamp keeps it, and it runs through as NaN: y is NaN, the
    # integer scale bits are just bits.) nonpositive: x <= 0 or NaN is known
    # (a softmax's x - max), the upper clamp is left out.
    xc = arith.select(b.lt(x, b.f(EXP_LO)), b.f(EXP_LO), x)
    if not nonpositive:
        xc = arith.select(b.gt(xc, b.f(EXP_HI)), b.f(EXP_HI), xc)
    # t = x/ln2 + 1.5*2^23, rounded to an integer n by the addition: n = t - MAGIC
    t = b.fma(xc, b.f(LOG2E), b.f(EXP_MAGIC))
    n = arith.subf(t, b.f(EXP_MAGIC))
    r = b.fma(n, b.f(-LN2_HI), xc)
    r = b.fma(n, b.f(-LN2_LO), r)
    y = b.horner(r, EXP_P)
    ni = arith.subi(arith.bitcast(b.it, t), b.i(EXP_MAGIC_BITS))
    n1 = arith.shrsi(ni, b.i(1))
    n2 = arith.subi(ni, n1)
    s1 = arith.bitcast(b.t, arith.shli(arith.addi(n1, b.i(127)), b.i(23)))
    s2 = arith.bitcast(b.t, arith.shli(arith.addi(n2, b.i(127)), b.i(23)))
    return arith.mulf(arith.mulf(y, s1), s2)


def build_tanh(b: _B, x: ir.Value) -> ir.Value:
    xc = b.clamp(x, -TANH_CLAMP, TANH_CLAMP)
    x2 = arith.mulf(xc, xc)
    p = b.horner(x2, TANH_ALPHA[::-1])
    q = b.horner(x2, TANH_BETA[::-1])
    # x * (P / Q): no select for tiny or big x (a third of the ops): the
    # quotient is ~1 for tiny x (subnormal x too: one rounding of x), and the
    # clamp makes the result exactly +-1 from |x| = TANH_CLAMP on
    return arith.mulf(xc, arith.divf(p, q))


def build_erf(b: _B, x: ir.Value) -> ir.Value:
    xc = b.clamp(x, -ERF_CLAMP, ERF_CLAMP)
    x2 = arith.mulf(xc, xc)
    p = arith.mulf(xc, b.horner(x2, ERF_ALPHA[::-1]))
    q = b.horner(x2, ERF_BETA[::-1])
    res = arith.divf(p, q)
    one = math.copysign(b.f(1.0), x)
    return arith.select(b.gt(math.absf(res), b.f(1.0)), one, res)


_BUILDERS = {"math.exp": build_exp, "math.tanh": build_tanh, "math.erf": build_erf}


def _lanes(t: ir.Type) -> int:
    if isinstance(t, ir.VectorType):
        n = 1
        for d in t.shape:
            n *= d
        return n
    return 1


# Marks set by msmlir-fuse-rows on a softmax's ops (passes/fusion/row_fusion.py)
SHIFT_ONLY = "msmlir.shift_only"     # arith.maximumf: the row max only shifts exp's argument
NONPOSITIVE = "msmlir.nonpositive"   # math.exp: its argument is <= 0 or NaN

# Set here on each function that got a polynomial exp: the only functions
# msmlir-cpu-scale-by-ldexp{marked-only} looks at (it walks the LLVM
# dialect, the module's biggest form, in Python; it drops the mark).
FAST_EXP = "msmlir.fast_exp"
_EXP_FUNCS: list = []       # (the functions of the current run's exp rewrites)


def _function_of(op: ir.Operation) -> ir.Operation | None:
    while op is not None and op.name != "func.func":
        p = op.parent
        op = p.operation if p is not None and hasattr(p, "operation") else p
    return op


def _pattern(build, min_lanes: int):
    def rewrite(op, rewriter):
        op = op.operation if hasattr(op, "operation") else op
        t = op.results[0].type
        if not _is_f32(t) or _lanes(t) < min_lanes:
            return True  # no match
        if build is build_exp:
            _EXP_FUNCS.append(_function_of(op))
        with op.location, rewriter.ip:
            if NONPOSITIVE in op.attributes:
                new = build(_B(t), op.operands[0], nonpositive=True)
            else:
                new = build(_B(t), op.operands[0])
        rewriter.replace_op(op, [new])
        return None
    return rewrite


def _div_by_broadcast(min_lanes: int):
    """x / broadcast(s) -> x * broadcast(1 / s) on f32 vectors."""
    def rewrite(op, rewriter):
        op = op.operation if hasattr(op, "operation") else op
        t = op.results[0].type
        if not isinstance(t, ir.VectorType) or not _is_f32(t) or _lanes(t) < min_lanes:
            return True
        rhs = op.operands[1]
        owner = rhs.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if not isinstance(owner, ir.Operation) or owner.name != "vector.broadcast":
            return True
        src = owner.operands[0]
        if not _is_f32(src.type):
            return True
        with op.location, rewriter.ip:
            one = _B(src.type).f(1.0)
            recip = arith.divf(one, src)
            new = arith.mulf(op.operands[0], vector.broadcast(t, recip))
        rewriter.replace_op(op, [new])
        return None
    return rewrite


def _shift_only_max(op, rewriter):
    """arith.maximumf marked SHIFT_ONLY (a softmax's row max, msmlir-fuse-rows
    says why its NaN does not matter) -> select(a > b, a, b): one vmaxps on
    x86 instead of four instructions."""
    op = op.operation if hasattr(op, "operation") else op
    if SHIFT_ONLY not in op.attributes:
        return True
    # (b > a ? b : a: in a reduction b is the accumulator, and x86's
    # maxps(b, a) can read a from memory)
    a, b = op.operands[0], op.operands[1]
    with op.location, rewriter.ip:
        new = arith.select(arith.cmpf(arith.CmpFPredicate.OGT, b, a), b, a)
    rewriter.replace_op(op, [new])
    return None


_TREE_KINDS = {"maximumf": arith.maximumf, "minimumf": arith.minimumf,
               "maxnumf": arith.maxnumf, "minnumf": arith.minnumf, "add": arith.addf,
               "mul": arith.mulf}


def _reduction_tree(op, rewriter):
    """vector.multi_reduction <max/min> of one row -> halving tree."""
    op = op.operation if hasattr(op, "operation") else op
    parent = op.parent
    if parent is not None and parent.name == "vector.mask":
        return True  # masked: the lanes outside the mask must not be combined
    kind = str(op.attributes["kind"]).removeprefix("#vector.kind<").removesuffix(">")
    combine = _TREE_KINDS.get(kind)
    src, acc = op.operands[0], op.operands[1]
    st = ir.VectorType(src.type)
    if combine is None or not _is_f32(st) or st.rank not in (1, 2):
        return True
    dims = list(ir.DenseI64ArrayAttr(op.attributes["reduction_dims"]))
    shape = list(st.shape)
    if st.rank == 2 and (shape[0] != 1 or dims != [1]):
        return True
    if st.rank == 1 and dims != [0]:
        return True
    n = shape[-1]
    if n < 4 or n % 2:
        return True
    f32 = ir.F32Type.get()
    with op.location, rewriter.ip:
        v = src
        if st.rank == 2:
            v = vector.shape_cast(ir.VectorType.get([n], f32), v)
        while n > 1 and n % 2 == 0:
            h = n // 2
            ht = ir.VectorType.get([h], f32)
            lo = vector.extract_strided_slice(ht, v, [0], [h], [1])
            hi = vector.extract_strided_slice(ht, v, [h], [h], [1])
            v = combine(lo, hi)
            n = h
        if st.rank == 2:  # result vector<1xf32>, acc vector<1xf32>
            if n > 1:
                r = vector.reduction(f32, ir.Attribute.parse(f"#vector.kind<{kind}>"), v)
                v = vector.broadcast(ir.VectorType.get([1], f32), r)
            new = combine(v, acc)
        else:  # scalar result and acc
            if n > 1:
                new = vector.reduction(f32, ir.Attribute.parse(f"#vector.kind<{kind}>"), v, acc=acc)
            else:
                new = combine(vector.extract(v, [], [0]), acc)
    rewriter.replace_op(op, [new])
    return None


_FROZEN: dict = {}


@register_pass("msmlir-cpu-fast-math",
               "f32 math.exp/tanh/erf -> polynomial approximations (vectors of at least "
               "min-lanes elements; scalars too with min-lanes=1)",
               options={"ops": Option(str, "exp,tanh,erf", "which math ops to rewrite"),
                        "min-lanes": Option(int, 8, "rewrite only ops on at least this many elements: "
                                                    "scalar and tiny-vector code is not throughput "
                                                    "bound and keeps the libm/LLVM intrinsic"),
                        "row-ops": Option(bool, True, "also f32 vector divisions by a broadcast value "
                                                      "-> reciprocal multiplications, max/min "
                                                      "row reductions -> halving trees, softmax "
                                                      "row maxima -> compare and select")})
def fast_math(module: ir.Operation, *, ops: str, min_lanes: int, row_ops: bool):
    wanted = {f"math.{o.strip()}" for o in ops.split(",") if o.strip()}
    if row_ops:
        wanted |= {"arith.divf", "vector.multi_reduction", "arith.maximumf"}
    if not walk_ops(module, [], lambda o: o.name in wanted):
        return
    key = (id(module.context), tuple(sorted(wanted)), min_lanes, row_ops)
    hit = _FROZEN.get(key)
    if hit is None or hit[0] is not module.context:
        patterns = RewritePatternSet(module.context)
        for name in sorted(wanted):
            if name in _BUILDERS:
                patterns.add(name, _pattern(_BUILDERS[name], min_lanes))
        if row_ops:
            patterns.add("arith.divf", _div_by_broadcast(min_lanes))
            patterns.add("vector.multi_reduction", _reduction_tree)
            patterns.add("arith.maximumf", _shift_only_max)
        hit = _FROZEN[key] = (module.context, patterns.freeze())
    _EXP_FUNCS.clear()
    try:
        walk_and_apply_patterns(module, hit[1])
        for f in _EXP_FUNCS:
            if f is not None:
                f.attributes[FAST_EXP] = ir.UnitAttr.get()
    finally:
        _EXP_FUNCS.clear()
