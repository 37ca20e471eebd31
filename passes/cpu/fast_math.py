"""msmlir-cpu-fast-math: f32 math.exp / math.tanh / math.erf -> polynomials.

Upstream MLIR has polynomial approximations (populateMathPolynomialApproximation
Patterns) but no pass, transform op or Python binding exposes them, so these are
Python rewrite patterns (`mlir.rewrite.RewritePatternSet`) that build the
approximations from arith/math ops, on scalars and on vectors of any shape.
Without them `math.exp` on vectors becomes one libm call per lane.

exp:  Cody-Waite range reduction x = n*ln2 + r (|r| <= ln2/2, two-constant
      ln2 with FMAs), Cephes degree-6 polynomial for e^r, scale by 2^n as two
      exponent-bit multiplications (2^(n>>1) * 2^(n - n>>1)) so that results in
      the subnormal range are right and overflow gives +inf. x is clamped to
      [-104, 89]: exp(-104) rounds to 0, exp(89) to +inf. NaN in -> NaN out.
      Max error vs numpy float64 rounded: see test_fast_math.py (<= 2 ulp, rel
      error < 2.4e-7 for normal results).
tanh: the Eigen / MLIR rational approximation x*P(x^2)/Q(x^2) on x clamped to
      [-7.9988, 7.9988]; tanh(x) = x for |x| < 4e-4; +-1 for |x| >= 9.
erf:  Eigen's rational approximation x*P(x^2)/Q(x^2) on x clamped to [-4, 4]
      (erf(+-4) = +-1 in f32).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, math
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from ..common.linalg import walk_ops
from ..registry import Option, register_pass

LOG2E = 1.44269504088896341
LN2_HI = 0.693359375
LN2_LO = -2.12194440e-4
EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
         1.6666665459e-1, 5.0000001201e-1)
EXP_LO, EXP_HI = -104.0, 89.0

TANH_CLAMP = 7.99881172180175781
TANH_TINY = 0.0004
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


def build_exp(b: _B, x: ir.Value) -> ir.Value:
    nan = b.is_nan(x)
    # NaN lanes run through the rest as NaN/poison and are replaced at the end
    # (a select does not propagate poison from the arm it does not pick).
    xc = b.clamp(x, EXP_LO, EXP_HI)
    # n = round(x / ln2)
    n = math.floor(b.fma(xc, b.f(LOG2E), b.f(0.5)))
    r = b.fma(n, b.f(-LN2_HI), xc)
    r = b.fma(n, b.f(-LN2_LO), r)
    r2 = arith.mulf(r, r)
    p = b.horner(r, EXP_P)
    y = b.fma(p, r2, arith.addf(r, b.f(1.0)))
    ni = arith.fptosi(b.it, n)
    n1 = arith.shrsi(ni, b.i(1))
    n2 = arith.subi(ni, n1)
    s1 = arith.bitcast(b.t, arith.shli(arith.addi(n1, b.i(127)), b.i(23)))
    s2 = arith.bitcast(b.t, arith.shli(arith.addi(n2, b.i(127)), b.i(23)))
    res = arith.mulf(arith.mulf(y, s1), s2)
    return arith.select(nan, x, res)


def build_tanh(b: _B, x: ir.Value) -> ir.Value:
    xc = b.clamp(x, -TANH_CLAMP, TANH_CLAMP)
    x2 = arith.mulf(xc, xc)
    p = arith.mulf(xc, b.horner(x2, TANH_ALPHA[::-1]))
    q = b.horner(x2, TANH_BETA[::-1])
    res = arith.divf(p, q)
    ax = math.absf(x)
    res = arith.select(b.lt(ax, b.f(TANH_TINY)), x, res)
    one = math.copysign(b.f(1.0), x)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OGE, ax, b.f(9.0)), one, res)


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


def _pattern(build, min_lanes: int):
    def rewrite(op, rewriter):
        op = op.operation if hasattr(op, "operation") else op
        t = op.results[0].type
        if not _is_f32(t) or _lanes(t) < min_lanes:
            return True  # no match
        with op.location, rewriter.ip:
            new = build(_B(t), op.operands[0])
        rewriter.replace_op(op, [new])
        return None
    return rewrite


_FROZEN: dict = {}


@register_pass("msmlir-cpu-fast-math",
               "f32 math.exp/tanh/erf -> polynomial approximations (vectors of at least "
               "min-lanes elements; scalars too with min-lanes=1)",
               options={"ops": Option(str, "exp,tanh,erf", "which math ops to rewrite"),
                        "min-lanes": Option(int, 8, "rewrite only ops on at least this many elements: "
                                                    "scalar and tiny-vector code is not throughput "
                                                    "bound and keeps the libm/LLVM intrinsic")})
def fast_math(module: ir.Operation, *, ops: str, min_lanes: int):
    wanted = {f"math.{o.strip()}" for o in ops.split(",") if o.strip()}
    if not walk_ops(module, [], lambda o: o.name in wanted):
        return
    key = (id(module.context), tuple(sorted(wanted)), min_lanes)
    hit = _FROZEN.get(key)
    if hit is None or hit[0] is not module.context:
        patterns = RewritePatternSet(module.context)
        for name in sorted(wanted):
            if name in _BUILDERS:
                patterns.add(name, _pattern(_BUILDERS[name], min_lanes))
        hit = _FROZEN[key] = (module.context, patterns.freeze())
    walk_and_apply_patterns(module, hit[1])
