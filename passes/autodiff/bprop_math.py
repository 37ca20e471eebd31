"""bprops of elementwise math, select/clamp, reductions, matmul and cast.

Binary ops broadcast: each operand's gradient is reduced back to the
operand's shape (`E.sum_to`: reduce_sum over the broadcast dims + reshape).
"""
from __future__ import annotations

import math

from . import emit as E
from .registry import needs_grad, register_bprop as bprop


def _x(op, i=0):
    return op.operation.operands[i]


def _y(op, i=0):
    return op.operation.results[i]


# --- unary ------------------------------------------------------------------------

@bprop("mindir.neg")
def _neg(op, d):
    return [E.neg(d[0])]


@bprop("mindir.abs")
def _abs(op, d):
    return [E.mul(d[0], E.sign(_x(op)))]


@bprop("mindir.square")
def _square(op, d):
    return [E.mul(d[0], E.mul(_x(op), E.scalar(2.0, d[0])))]


@bprop("mindir.relu")
def _relu(op, d):
    x = _x(op)
    return [E.where(E.greater(x, E.scalar(0.0, x)), d[0])]


@bprop("mindir.exp")
def _exp(op, d):
    return [E.mul(d[0], _y(op))]


@bprop("mindir.log")
def _log(op, d):
    return [E.div(d[0], _x(op))]


@bprop("mindir.log1p")
def _log1p(op, d):
    x = _x(op)
    return [E.div(d[0], E.add(x, E.scalar(1.0, x)))]


@bprop("mindir.expm1")
def _expm1(op, d):
    y = _y(op)
    return [E.mul(d[0], E.add(y, E.scalar(1.0, y)))]


@bprop("mindir.sqrt")
def _sqrt(op, d):
    # d / (2 sqrt(x))
    return [E.div(E.scale(d[0], 0.5), _y(op))]


@bprop("mindir.rsqrt")
def _rsqrt(op, d):
    # d * (-1/2) x^(-3/2) = d * (-1/2) y^3
    y = _y(op)
    return [E.mul(E.scale(d[0], -0.5), E.mul(y, E.square(y)))]


@bprop("mindir.reciprocal")
def _reciprocal(op, d):
    return [E.neg(E.mul(d[0], E.square(_y(op))))]


@bprop("mindir.sin")
def _sin(op, d):
    return [E.mul(d[0], E.cos(_x(op)))]


@bprop("mindir.cos")
def _cos(op, d):
    return [E.neg(E.mul(d[0], E.sin(_x(op))))]


@bprop("mindir.tanh")
def _tanh(op, d):
    y = _y(op)
    return [E.mul(d[0], E.sub(E.scalar(1.0, y), E.square(y)))]


@bprop("mindir.sigmoid")
def _sigmoid(op, d):
    y = _y(op)
    return [E.mul(d[0], E.mul(y, E.sub(E.scalar(1.0, y), y)))]


@bprop("mindir.erf")
def _erf(op, d):
    x = _x(op)
    return [E.mul(d[0], E.scale(E.exp(E.neg(E.square(x))), 2.0 / math.sqrt(math.pi)))]


@bprop("mindir.softplus")
def _softplus(op, d):
    return [E.mul(d[0], E.sigmoid(_x(op)))]


@bprop("mindir.silu")
def _silu(op, d):
    # d/dx x s(x) = s + x s (1 - s)
    x = _x(op)
    s = E.sigmoid(x)
    one = E.scalar(1.0, x)
    return [E.mul(d[0], E.mul(s, E.add(one, E.mul(x, E.sub(one, s)))))]


@bprop("mindir.leaky_relu")
def _leaky_relu(op, d):
    x = _x(op)
    alpha = E.attr(op, "alpha", 0.2)
    return [E.select(E.greater(x, E.scalar(0.0, x)), d[0], E.scale(d[0], alpha))]


@bprop("mindir.gelu")
def _gelu(op, d):
    x = _x(op)
    one = E.scalar(1.0, x)
    if E.attr(op, "approximate", "tanh") == "none":
        # 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)
        cdf = E.scale(E.add(one, E.erf(E.scale(x, 1.0 / math.sqrt(2.0)))), 0.5)
        pdf = E.scale(E.exp(E.scale(E.square(x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
        return [E.mul(d[0], E.add(cdf, E.mul(x, pdf)))]
    c = math.sqrt(2.0 / math.pi)
    x2 = E.square(x)
    u = E.scale(E.mul(x, E.add(one, E.scale(x2, 0.044715))), c)
    t = E.tanh(u)
    du = E.scale(E.add(one, E.scale(x2, 3 * 0.044715)), c)
    dy = E.add(E.scale(E.add(one, t), 0.5),
               E.mul(E.scale(x, 0.5), E.mul(E.sub(one, E.square(t)), du)))
    return [E.mul(d[0], dy)]


# --- binary (broadcasting) ---------------------------------------------------------

def _ab(op):
    return _x(op, 0), _x(op, 1)


@bprop("mindir.add")
def _add(op, d):
    a, b = _ab(op)
    return [E.sum_to(d[0], E.shape(a)) if needs_grad(0) else None,
            E.sum_to(d[0], E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.sub")
def _sub(op, d):
    a, b = _ab(op)
    return [E.sum_to(d[0], E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.neg(d[0]), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.mul")
def _mul(op, d):
    a, b = _ab(op)
    return [E.sum_to(E.mul(d[0], b), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.mul(d[0], a), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.div")
def _div(op, d):
    a, b = _ab(op)
    y = _y(op)
    return [E.sum_to(E.div(d[0], b), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.neg(E.div(E.mul(d[0], y), b)), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.pow")
def _pow(op, d):
    a, b = _ab(op)
    y = _y(op)
    da = db = None
    if needs_grad(0):
        # d * b * a^(b - 1)
        da = E.sum_to(E.mul(d[0], E.mul(b, E.pow_(a, E.sub(b, E.scalar(1.0, b))))), E.shape(a))
    if needs_grad(1):
        # d * a^b * log(a), with log(a) taken as 0 where a <= 0 (MindSpore)
        pos = E.greater(a, E.scalar(0.0, a))
        safe = E.select(pos, a, E.scalar(1.0, a))
        db = E.sum_to(E.mul(d[0], E.mul(y, E.log(safe))), E.shape(b))
    return [da, db]


# Masks are recomputed for each use (one use per i1 value): elementwise fusion
# then folds every comparison into its consumer and no i1 tensor is stored.

@bprop("mindir.maximum")
def _maximum(op, d):
    # ties go to lhs (MindSpore MaximumGrad: dx where x >= y)
    a, b = _ab(op)
    return [E.sum_to(E.where(E.greater_equal(a, b), d[0]), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.where(E.less(a, b), d[0]), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.minimum")
def _minimum(op, d):
    a, b = _ab(op)
    return [E.sum_to(E.where(E.less_equal(a, b), d[0]), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.where(E.greater(a, b), d[0]), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.mod")
def _mod(op, d):
    # a - floor(a / b) * b: da = d, db = -d * floor(a / b)
    a, b = _ab(op)
    return [E.sum_to(d[0], E.shape(a)) if needs_grad(0) else None,
            E.sum_to(E.neg(E.mul(d[0], E.floor(E.div(a, b)))), E.shape(b))
            if needs_grad(1) else None]


@bprop("mindir.select")
def _select(op, d):
    c, x, y = op.operation.operands
    z = E.scalar(0.0, d[0])
    return [None,
            E.sum_to(E.select(c, d[0], z), E.shape(x)) if needs_grad(1) else None,
            E.sum_to(E.select(c, z, d[0]), E.shape(y)) if needs_grad(2) else None]


@bprop("mindir.clamp")
def _clamp(op, d):
    # y = minimum(maximum(x, lo), hi), differentiated as that composition
    x, lo, hi = op.operation.operands
    m = E.maximum(x, lo)
    dm = E.where(E.less_equal(m, hi), d[0])
    return [E.sum_to(E.where(E.greater_equal(x, lo), dm), E.shape(x)) if needs_grad(0) else None,
            E.sum_to(E.where(E.less(x, lo), dm), E.shape(lo)) if needs_grad(1) else None,
            E.sum_to(E.where(E.greater(m, hi), d[0]), E.shape(hi)) if needs_grad(2) else None]


# --- reductions -----------------------------------------------------------------

def _axes(op):
    return E.attr(op, "axes", []) or []


def _count(xshape, axes):
    r = len(xshape)
    ax = {E.norm_axis(a, r) for a in axes} if axes else set(range(r))
    return math.prod(xshape[i] for i in ax)


@bprop("mindir.reduce_sum")
def _reduce_sum(op, d):
    x = _x(op)
    return [E.unreduce(d[0], E.shape(x), _axes(op))]


@bprop("mindir.reduce_mean")
def _reduce_mean(op, d):
    x = _x(op)
    axes = _axes(op)
    n = _count(E.shape(x), axes)
    return [E.scale(E.unreduce(d[0], E.shape(x), axes), 1.0 / max(n, 1))]


def _reduce_extremum(op, d):
    # the gradient is shared evenly between the elements equal to the extremum
    x, y = _x(op), _y(op)
    axes, xs = _axes(op), E.shape(x)
    mask = E.cast_mask(E.equal(x, E.unreduce(y, xs, axes)), x)
    cnt = E.unreduce(E.reduce_sum(mask, axes, keep_dims=True), xs, axes)
    return [E.div(E.mul(E.unreduce(d[0], xs, axes), mask), cnt)]


bprop("mindir.reduce_max")(_reduce_extremum)
bprop("mindir.reduce_min")(_reduce_extremum)


@bprop("mindir.reduce_prod")
def _reduce_prod(op, d):
    # Exact with zeros: the product of the other elements is p / x_i without
    # zeros, the product of the non-zero elements at the single zero, else 0.
    # Masks are float 0/1 (no i1 tensor with several uses).
    x = _x(op)
    axes, xs = _axes(op), E.shape(x)
    zero, one = E.scalar(0.0, x), E.scalar(1.0, x)
    zf = E.cast_mask(E.equal(x, zero), x)
    safe = E.add(x, zf)                                   # zeros replaced by ones
    p_safe = E.unreduce(E.reduce_prod(safe, axes, keep_dims=True), xs, axes)
    nzero = E.unreduce(E.reduce_sum(zf, axes, keep_dims=True), xs, axes)
    no_zero = E.cast_mask(E.equal(nzero, zero), x)
    one_zero = E.cast_mask(E.equal(nzero, one), x)
    others = E.add(E.mul(no_zero, E.div(p_safe, safe)), E.mul(E.mul(one_zero, zf), p_safe))
    return [E.mul(E.unreduce(d[0], xs, axes), others)]


# --- linear algebra ---------------------------------------------------------------

def _mm_grads(op, d, mm):
    a, b = _ab(op)
    ta, tb = E.attr(op, "transpose_a", False), E.attr(op, "transpose_b", False)
    g = d[0]
    da = db = None
    if needs_grad(0):
        if not ta:
            da = mm(g, b, False, not tb)          # g @ B'^T
        elif not tb:
            da = mm(b, g, False, True)            # (g @ b^T)^T = b @ g^T
        else:
            da = mm(b, g, True, True)             # b^T @ g^T
    if needs_grad(1):
        if not tb:
            db = mm(a, g, not ta, False)          # A'^T @ g
        elif not ta:
            db = mm(g, a, True, False)            # (a^T g)^T = g^T a
        else:
            db = mm(g, a, True, True)             # g^T a^T
    return a, b, da, db


@bprop("mindir.matmul")
def _matmul(op, d):
    _, _, da, db = _mm_grads(op, d, E.matmul)
    return [da, db]


@bprop("mindir.batch_matmul")
def _batch_matmul(op, d):
    a, b, da, db = _mm_grads(op, d, E.batch_matmul)
    return [E.sum_to(da, E.shape(a)) if da is not None else None,
            E.sum_to(db, E.shape(b)) if db is not None else None]


@bprop("mindir.cast")
def _cast(op, d):
    x = _x(op)
    if not E.is_float_type(E.elem(x)):
        return [None]
    return [E.cast(d[0], E.elem(x))]
