"""Symbolic derivatives of scalar kernel bodies.

`derivative(expr, wrt)` is d(expr)/d(leaf) for the leaves in `wrt`, built with
the simplifying constructors of expr.py, so structurally zero terms vanish as
the derivative is formed (AKG's zero elimination): d(x*c)/dx is `c`, not
`1*c + x*0`, and a term whose factor is zero is never emitted.

Rules exist for the arith/math float ops a compute body uses (table `RULES`);
non-float values (i1 conditions, index arithmetic, integer casts) have no
derivative and only steer `arith.select`. An unknown float op is an error
naming the op.
"""
from __future__ import annotations

import math

from . import expr as E
from .expr import KernelADError, Node


def _r_add(n, a, d):
    return E.add(d[0], d[1])


def _r_sub(n, a, d):
    return E.sub(d[0], d[1])


def _r_mul(n, a, d):
    return E.add(E.mul(d[0], a[1]), E.mul(a[0], d[1]))


def _r_div(n, a, d):
    # d(a/b) = (da - (a/b) db) / b
    return E.div(E.sub(d[0], E.mul(n, d[1])), a[1])


def _r_neg(n, a, d):
    return E.neg(d[0])


def _r_max(pred):
    def rule(n, a, d):
        # ties go to the first operand
        return E.select(E.cmpf(pred, a[0], a[1]), d[0], d[1])
    return rule


def _r_select(n, a, d):
    return E.select(a[0], d[1], d[2])


def _r_cast(n, a, d):  # extf / truncf: the derivative is cast the same way
    return E.build(n.name, (d[0],), n.type, n.attrs)


def _r_exp(n, a, d):
    return E.mul(d[0], n)


def _r_exp2(n, a, d):
    return E.mul(d[0], E.mul(E.cst(math.log(2.0), n), n))


def _r_expm1(n, a, d):
    return E.mul(d[0], E.add(n, E.cst(1.0, n)))


def _r_log(n, a, d):
    return E.div(d[0], a[0])


def _r_log1p(n, a, d):
    return E.div(d[0], E.add(a[0], E.cst(1.0, n)))


def _r_log2(n, a, d):
    return E.div(d[0], E.mul(E.cst(math.log(2.0), n), a[0]))


def _r_log10(n, a, d):
    return E.div(d[0], E.mul(E.cst(math.log(10.0), n), a[0]))


def _r_sqrt(n, a, d):
    return E.div(E.mul(E.cst(0.5, n), d[0]), n)


def _r_rsqrt(n, a, d):
    # d a^(-1/2) = -1/2 a^(-3/2) = -0.5 * rsqrt(a) / a
    return E.mul(E.cst(-0.5, n), E.div(E.mul(d[0], n), a[0]))


def _r_tanh(n, a, d):
    return E.mul(d[0], E.sub(E.cst(1.0, n), E.mul(n, n)))


def _r_sin(n, a, d):
    return E.mul(d[0], E.unary("math.cos", a[0]))


def _r_cos(n, a, d):
    return E.neg(E.mul(d[0], E.unary("math.sin", a[0])))


def _r_tan(n, a, d):
    return E.mul(d[0], E.add(E.cst(1.0, n), E.mul(n, n)))


def _r_atan(n, a, d):
    return E.div(d[0], E.add(E.cst(1.0, n), E.mul(a[0], a[0])))


def _r_erf(n, a, d):
    k = E.cst(2.0 / math.sqrt(math.pi), n)
    return E.mul(E.mul(k, d[0]), E.unary("math.exp", E.neg(E.mul(a[0], a[0]))))


def _r_abs(n, a, d):
    return E.select(E.cmpf("olt", a[0], E.cst(0.0, n)), E.neg(d[0]), d[0])


def _r_pow(n, a, d):
    # d(a^b) = da * b * a^(b-1) + db * log(a) * a^b; the db term is dropped
    # when db is structurally zero (so log(a) of a negative base never appears).
    base, ex = a
    t1 = E.zero(n.type)
    if not E.is_zero(d[0]):
        t1 = E.mul(d[0], E.mul(ex, E.build("math.powf", (base, E.sub(ex, E.cst(1.0, n))), n.type)))
    t2 = E.zero(n.type)
    if not E.is_zero(d[1]):
        t2 = E.mul(d[1], E.mul(E.unary("math.log", base), n))
    return E.add(t1, t2)


def _r_fma(n, a, d):
    return E.add(E.add(E.mul(d[0], a[1]), E.mul(a[0], d[1])), d[2])


def _r_zero(n, a, d):
    return E.zero(n.type)


RULES = {
    "arith.addf": _r_add,
    "arith.subf": _r_sub,
    "arith.mulf": _r_mul,
    "arith.divf": _r_div,
    "arith.negf": _r_neg,
    "arith.maximumf": _r_max("oge"),
    "arith.maxnumf": _r_max("oge"),
    "arith.minimumf": _r_max("ole"),
    "arith.minnumf": _r_max("ole"),
    "arith.select": _r_select,
    "arith.extf": _r_cast,
    "arith.truncf": _r_cast,
    "arith.sitofp": _r_zero,
    "arith.uitofp": _r_zero,
    "math.exp": _r_exp,
    "math.exp2": _r_exp2,
    "math.expm1": _r_expm1,
    "math.log": _r_log,
    "math.log1p": _r_log1p,
    "math.log2": _r_log2,
    "math.log10": _r_log10,
    "math.sqrt": _r_sqrt,
    "math.rsqrt": _r_rsqrt,
    "math.tanh": _r_tanh,
    "math.sin": _r_sin,
    "math.cos": _r_cos,
    "math.tan": _r_tan,
    "math.atan": _r_atan,
    "math.erf": _r_erf,
    "math.absf": _r_abs,
    "math.powf": _r_pow,
    "math.fma": _r_fma,
    "math.floor": _r_zero,
    "math.ceil": _r_zero,
    "math.round": _r_zero,
    "math.roundeven": _r_zero,
    "math.trunc": _r_zero,
}


def derivative(expr: Node, wrt: set, memo: dict | None = None) -> Node:
    """d(expr)/d(leaf) summed over the leaf keys in `wrt` (all treated as one variable)."""
    memo = {} if memo is None else memo

    def go(n: Node) -> Node | None:
        # None stands for "no derivative" (non-float values)
        if n in memo:
            return memo[n]
        if not E.is_float_type(n.type):
            r = None
        elif n.is_leaf:
            r = E.one(n.type) if n.value in wrt else E.zero(n.type)
        elif n.is_const:
            r = E.zero(n.type)
        else:
            ds = [go(a) for a in n.args]
            rule = RULES.get(n.name)
            if all(dd is None or E.is_zero(dd) for dd in ds) and (E.simplifying() or rule is None):
                r = E.zero(n.type)  # nothing below depends on wrt: no rule needed
            else:
                if rule is None:
                    raise KernelADError(f"no derivative rule for '{n.name}' in a kernel body")
                ds = [E.zero(a.type) if dd is None and E.is_float_type(a.type) else dd
                      for dd, a in zip(ds, n.args)]
                r = rule(n, n.args, ds)
        memo[n] = r
        return r

    r = go(expr)
    return E.zero(expr.type) if r is None else r
