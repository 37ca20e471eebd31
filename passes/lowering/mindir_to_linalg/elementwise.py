"""Elementwise mindir ops -> broadcasting linalg.generic with arith/math bodies.

Every op here becomes one `linalg.generic` (built by builders.elementwise, which
collapses broadcast unit dims so that each operand is read through a projected
permutation). The scalar helpers below pick the float or integer arith op from
the element type; transcendental math on f16/bf16 is computed in f32 (extf,
math op, truncf), because the CPU math lowerings (llvm intrinsics, libm) only
cover f32/f64 everywhere.
"""
from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, math

from msmlir.dialects.enums import enum_name, is_enum_attr

from . import builders as B
from . import lowering


# --- attribute / operand access (works on generic OpViews too) ----------------

def operands(op) -> list[ir.Value]:
    return list(op.operation.operands)


def result_type(op, i: int = 0) -> ir.RankedTensorType:
    return ir.RankedTensorType(op.operation.results[i].type)


def attr(op, name: str, default=None):
    """The Python value of attribute `name` (bool/int/float/str/list[int]; the
    case name, a str, for an enum attribute such as #mindir.pad_mode<same>)."""
    attrs = op.operation.attributes
    if name not in attrs:
        return default
    a = attrs[name]
    if isinstance(a, ir.BoolAttr):
        return a.value
    if isinstance(a, ir.IntegerAttr):
        return a.value
    if isinstance(a, ir.FloatAttr):
        return a.value
    if isinstance(a, ir.StringAttr):
        return a.value
    if isinstance(a, ir.DenseI64ArrayAttr):
        return list(a)
    if is_enum_attr(a):
        return enum_name(a)
    return a


# --- scalar helpers --------------------------------------------------------------

def is_float(t: ir.Type) -> bool:
    return B.is_float(t)


def is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def width(t: ir.Type) -> int:
    if isinstance(t, ir.IntegerType):
        return t.width
    return {ir.F16Type: 16, ir.BF16Type: 16, ir.F32Type: 32, ir.F64Type: 64}[type(t)]


def is_half(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type))


def compute_type(t: ir.Type) -> ir.Type:
    """f16/bf16 math is computed in f32."""
    return ir.F32Type.get() if is_half(t) else t


def c(t: ir.Type, value) -> ir.Value:
    return B.constant(t, value)


def to_float(v: ir.Value, dst: ir.Type) -> ir.Value:
    """Float -> float conversion (ext or trunc; f16 <-> bf16 through f32)."""
    src = v.type
    if src == dst:
        return v
    if width(src) == width(dst):  # f16 <-> bf16
        v = arith.extf(ir.F32Type.get(), v)
        return arith.truncf(dst, v)
    if width(dst) > width(src):
        return arith.extf(dst, v)
    return arith.truncf(dst, v)


def convert(v: ir.Value, dst: ir.Type) -> ir.Value:
    """Scalar element-type conversion with mindir.cast semantics: float -> int
    truncates toward zero, x -> i1 is x != 0, i1 -> number is 0/1."""
    src = v.type
    if src == dst:
        return v
    sf, df = is_float(src), is_float(dst)
    if sf and df:
        return to_float(v, dst)
    if sf:
        if is_i1(dst):
            return arith.cmpf(arith.CmpFPredicate.UNE, v, c(src, 0.0))
        if is_half(src):
            v = arith.extf(ir.F32Type.get(), v)
        return arith.fptosi(dst, v)
    if df:
        if is_i1(src):
            return arith.uitofp(dst, v)
        return arith.sitofp(dst, v)
    if is_i1(dst):
        return arith.cmpi(arith.CmpIPredicate.ne, v, c(src, 0))
    if is_i1(src):
        return arith.extui(dst, v)
    if width(dst) > width(src):
        return arith.extsi(dst, v)
    return arith.trunci(dst, v)


def add(a, b):
    return arith.addf(a, b) if is_float(a.type) else arith.addi(a, b)


def sub(a, b):
    return arith.subf(a, b) if is_float(a.type) else arith.subi(a, b)


def mul(a, b):
    return arith.mulf(a, b) if is_float(a.type) else arith.muli(a, b)


def maximum(a, b):
    """NaN-propagating max (arith.maximumf) / signed max."""
    return arith.maximumf(a, b) if is_float(a.type) else arith.maxsi(a, b)


def minimum(a, b):
    return arith.minimumf(a, b) if is_float(a.type) else arith.minsi(a, b)


def select(cond, a, b):
    return arith.select(cond, a, b)


def cmpf(pred: str, a, b):
    return arith.cmpf(getattr(arith.CmpFPredicate, pred), a, b)


def cmpi(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def in_compute(fn):
    """Wraps a scalar float function so that f16/bf16 run it in f32."""
    def wrapped(*args):
        t = args[0].type
        ct = compute_type(t)
        r = fn(*[to_float(a, ct) for a in args])
        return to_float(r, t)
    return wrapped


def _sigmoid(x):
    one = c(x.type, 1.0)
    return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))


def _softplus(x):
    # max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
    t = x.type
    return arith.addf(arith.maximumf(x, c(t, 0.0)),
                      math.log1p(math.exp(arith.negf(math.absf(x)))))


def _silu(x):
    one = c(x.type, 1.0)
    return arith.divf(x, arith.addf(one, math.exp(arith.negf(x))))


def _gelu_tanh(x):
    t = x.type
    x3 = arith.mulf(arith.mulf(x, x), x)
    inner = arith.mulf(c(t, pymath.sqrt(2.0 / pymath.pi)),
                       arith.addf(x, arith.mulf(c(t, 0.044715), x3)))
    half_x = arith.mulf(c(t, 0.5), x)
    return arith.mulf(half_x, arith.addf(c(t, 1.0), math.tanh(inner)))


def _gelu_erf(x):
    t = x.type
    half_x = arith.mulf(c(t, 0.5), x)
    e = math.erf(arith.mulf(x, c(t, pymath.sqrt(0.5))))
    return arith.mulf(half_x, arith.addf(c(t, 1.0), e))


def _rsqrt(x):
    return math.rsqrt(x)


def _expm1(x):
    """Kahan's expm1: (u - 1) * x / log(u) with u = exp(x) is accurate near 0,
    where exp(x) - 1 (what math.expm1 becomes in LLVM) cancels catastrophically."""
    t = x.type
    u = math.exp(x)
    um1 = arith.subf(u, c(t, 1.0))
    kahan = arith.divf(arith.mulf(um1, x), math.log(u))
    big = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, u, c(t, float("inf"))), u, kahan)
    low = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, um1, c(t, -1.0)), um1, big)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, u, c(t, 1.0)), x, low)


def _ew(op, inputs, body):
    return B.elementwise(inputs, result_type(op), body)


# --- unary float math -----------------------------------------------------------

_FLOAT_MATH = {
    "mindir.exp": math.exp,
    "mindir.log": math.log,
    "mindir.log1p": math.log1p,
    "mindir.expm1": _expm1,
    "mindir.sqrt": math.sqrt,
    "mindir.rsqrt": _rsqrt,
    "mindir.sin": math.sin,
    "mindir.cos": math.cos,
    "mindir.tanh": math.tanh,
    "mindir.erf": math.erf,
    "mindir.sigmoid": _sigmoid,
    "mindir.softplus": _softplus,
    "mindir.silu": _silu,
    "mindir.floor": math.floor,
    "mindir.ceil": math.ceil,
    "mindir.round": math.roundeven,
}


@lowering(*_FLOAT_MATH)
def lower_float_math(op):
    fn = in_compute(_FLOAT_MATH[op.operation.name])
    return _ew(op, operands(op), fn)


@lowering("mindir.gelu")
def lower_gelu(op):
    approx = attr(op, "approximate", "tanh")
    fn = in_compute(_gelu_tanh if approx == "tanh" else _gelu_erf)
    return _ew(op, operands(op), fn)


@lowering("mindir.leaky_relu")
def lower_leaky_relu(op):
    alpha = attr(op, "alpha", 0.2)

    def body(x):
        t = x.type
        neg = arith.mulf(c(t, alpha), x)
        return select(cmpf("OGE", x, c(t, 0.0)), x, neg)
    return _ew(op, operands(op), in_compute(body))  # f16/bf16: alpha * x in f32


@lowering("mindir.reciprocal")
def lower_reciprocal(op):
    return _ew(op, operands(op), lambda x: arith.divf(c(x.type, 1.0), x))


# --- unary numeric ----------------------------------------------------------------

@lowering("mindir.neg")
def lower_neg(op):
    return _ew(op, operands(op),
               lambda x: arith.negf(x) if is_float(x.type) else arith.subi(c(x.type, 0), x))


@lowering("mindir.abs")
def lower_abs(op):
    return _ew(op, operands(op),
               lambda x: math.absf(x) if is_float(x.type) else math.absi(x))


@lowering("mindir.sign")
def lower_sign(op):
    def body(x):
        t = x.type
        if is_float(t):
            # numpy.sign: +-0 -> +0, NaN -> NaN.
            zero = c(t, 0.0)
            s = select(cmpf("OGT", x, zero), c(t, 1.0),
                       select(cmpf("OLT", x, zero), c(t, -1.0), zero))
            return select(cmpf("UNO", x, x), x, s)
        zero = c(t, 0)
        return select(cmpi("sgt", x, zero), c(t, 1),
                      select(cmpi("slt", x, zero), c(t, -1), zero))
    return _ew(op, operands(op), body)


@lowering("mindir.square")
def lower_square(op):
    return _ew(op, operands(op), lambda x: mul(x, x))


@lowering("mindir.relu")
def lower_relu(op):
    return _ew(op, operands(op), lambda x: maximum(x, c(x.type, 0)))


@lowering("mindir.logical_not")
def lower_logical_not(op):
    return _ew(op, operands(op), lambda x: arith.xori(x, c(x.type, 1)))


@lowering("mindir.isnan")
def lower_isnan(op):
    return _ew(op, operands(op), lambda x: cmpf("UNO", x, x))


@lowering("mindir.isfinite")
def lower_isfinite(op):
    # |x| != inf, ordered: false for NaN and +-inf.
    return _ew(op, operands(op),
               lambda x: cmpf("ONE", math.absf(x), c(x.type, float("inf"))))


@lowering("mindir.cast")
def lower_cast(op):
    x = operands(op)[0]
    rt = result_type(op)
    if x.type == rt:
        return x
    return _ew(op, [x], lambda v: convert(v, rt.element_type))


@lowering("mindir.stop_gradient")
def lower_stop_gradient(op):
    return operands(op)[0]


# --- binary ---------------------------------------------------------------------

def _int_divisor(y):
    """Integer division never traps: a divisor of 0 gives 0 (numpy) and -1 is
    handled as negation (INT_MIN / -1 wraps to INT_MIN, as numpy). Returns
    (safe divisor, y == 0, y == -1)."""
    t = y.type
    is_zero = cmpi("eq", y, c(t, 0))
    is_m1 = cmpi("eq", y, c(t, -1))
    return select(arith.ori(is_zero, is_m1), c(t, 1), y), is_zero, is_m1


def _div(x, y):
    t = x.type
    if is_float(t):
        return arith.divf(x, y)
    safe, is_zero, is_m1 = _int_divisor(y)
    q = select(is_m1, arith.subi(c(t, 0), x), arith.divsi(x, safe))
    return select(is_zero, c(t, 0), q)


def _floordiv(x, y):
    t = x.type
    if is_float(t):
        # The quotient is rounded to the element type before the floor.
        return in_compute(math.floor)(arith.divf(x, y))
    safe, is_zero, is_m1 = _int_divisor(y)
    zero = c(t, 0)
    q = arith.divsi(x, safe)
    r = arith.remsi(x, safe)
    # Truncated quotient minus one when the remainder is nonzero and its sign
    # differs from the divisor's.
    adjust = arith.andi(cmpi("ne", r, zero),
                        arith.xori(cmpi("slt", r, zero), cmpi("slt", safe, zero)))
    q = select(adjust, arith.subi(q, c(t, 1)), q)
    q = select(is_m1, arith.subi(zero, x), q)
    return select(is_zero, zero, q)


def _mod(x, y):
    t = x.type
    if is_float(t):
        def fmod(a, b):
            ct = a.type
            zero = c(ct, 0.0)
            r = arith.remf(a, b)  # fmod: sign of a
            # numpy.remainder: shift into the sign of b; exact zeros get b's sign.
            fix = arith.andi(cmpf("UNE", r, zero),
                             arith.xori(cmpf("OLT", r, zero), cmpf("OLT", b, zero)))
            r = select(fix, arith.addf(r, b), r)
            return select(cmpf("OEQ", r, zero), math.copysign(zero, b), r)
        return in_compute(fmod)(x, y)
    safe, is_zero, _ = _int_divisor(y)  # x mod -1 == x mod 1 == 0
    zero = c(t, 0)
    r = arith.remsi(x, safe)
    fix = arith.andi(cmpi("ne", r, zero),
                     arith.xori(cmpi("slt", r, zero), cmpi("slt", safe, zero)))
    r = select(fix, arith.addi(r, safe), r)
    return select(is_zero, zero, r)


_BINARY = {
    "mindir.add": add,
    "mindir.sub": sub,
    "mindir.mul": mul,
    "mindir.div": _div,
    "mindir.floordiv": _floordiv,
    "mindir.mod": _mod,
    "mindir.pow": in_compute(math.powf),
    "mindir.maximum": maximum,
    "mindir.minimum": minimum,
    "mindir.logical_and": arith.andi,
    "mindir.logical_or": arith.ori,
}


@lowering(*_BINARY)
def lower_binary(op):
    return _ew(op, operands(op), _BINARY[op.operation.name])


# Float predicates are ordered (false on NaN) except not_equal, which is the
# negation of equal (NaN != NaN is true, as in numpy). i1 compares unsigned
# (false < true), the other integers signed.
_COMPARE = {
    "mindir.equal": ("OEQ", "eq", "eq"),
    "mindir.not_equal": ("UNE", "ne", "ne"),
    "mindir.less": ("OLT", "slt", "ult"),
    "mindir.less_equal": ("OLE", "sle", "ule"),
    "mindir.greater": ("OGT", "sgt", "ugt"),
    "mindir.greater_equal": ("OGE", "sge", "uge"),
}


@lowering(*_COMPARE)
def lower_compare(op):
    fpred, ipred, bpred = _COMPARE[op.operation.name]

    def body(a, b):
        t = a.type
        if is_float(t):
            return cmpf(fpred, a, b)
        return cmpi(bpred if is_i1(t) else ipred, a, b)
    return _ew(op, operands(op), body)


@lowering("mindir.select")
def lower_select(op):
    return _ew(op, operands(op), select)


@lowering("mindir.clamp")
def lower_clamp(op):
    return _ew(op, operands(op), lambda x, lo, hi: minimum(maximum(x, lo), hi))
