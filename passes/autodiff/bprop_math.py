"""bprops of elementwise math, select/clamp, reductions, matmul and cast.

Binary ops broadcast: each operand's gradient is reduced back to the
operand's shape (`E.sum_to`: reduce_sum over the broadcast dims + reshape).
"""
from __future__ import annotations

import math

import numpy as np
from mlir import ir

from msmlir.dialects import mindir

from . import emit as E
from .registry import needs_grad, register_bprop as bprop


def _x(op, i=0):
    return op.operation.operands[i]


def _y(op, i=0):
    return op.operation.results[i]


# --- unary ------------------------------------------------------------------------

@bprop("mindir.neg")
def _neg(op, d):
    return [mindir.neg(d[0])]


@bprop("mindir.abs")
def _abs(op, d):
    return [mindir.mul(d[0], mindir.sign(_x(op)))]


@bprop("mindir.square")
def _square(op, d):
    return [mindir.mul(d[0], mindir.mul(_x(op), E.scalar(2.0, d[0])))]


@bprop("mindir.relu")
def _relu(op, d):
    # The mask from the output, as MindSpore's ReluGrad(dout, out): y > 0 iff
    # x > 0 (NaN and -0 included), and y is live anyway (the next layer reads
    # it), so the forward kernel stores no mask and the backward kernel
    # computes it where it is used.
    y = _y(op)
    return [E.where(mindir.greater(y, E.scalar(0.0, y)), d[0])]


@bprop("mindir.exp")
def _exp(op, d):
    return [mindir.mul(d[0], _y(op))]


@bprop("mindir.log")
def _log(op, d):
    return [mindir.div(d[0], _x(op))]


@bprop("mindir.log1p")
def _log1p(op, d):
    x = _x(op)
    return [mindir.div(d[0], mindir.add(x, E.scalar(1.0, x)))]


@bprop("mindir.expm1")
def _expm1(op, d):
    y = _y(op)
    return [mindir.mul(d[0], mindir.add(y, E.scalar(1.0, y)))]


@bprop("mindir.sqrt")
def _sqrt(op, d):
    # d / (2 sqrt(x))
    return [mindir.div(E.scale(d[0], 0.5), _y(op))]


@bprop("mindir.rsqrt")
def _rsqrt(op, d):
    # d * (-1/2) x^(-3/2) = d * (-1/2) y^3
    y = _y(op)
    return [mindir.mul(E.scale(d[0], -0.5), mindir.mul(y, mindir.square(y)))]


@bprop("mindir.reciprocal")
def _reciprocal(op, d):
    return [mindir.neg(mindir.mul(d[0], mindir.square(_y(op))))]


@bprop("mindir.sin")
def _sin(op, d):
    return [mindir.mul(d[0], mindir.cos(_x(op)))]


@bprop("mindir.cos")
def _cos(op, d):
    return [mindir.neg(mindir.mul(d[0], mindir.sin(_x(op))))]


@bprop("mindir.tanh")
def _tanh(op, d):
    y = _y(op)
    return [mindir.mul(d[0], mindir.sub(E.scalar(1.0, y), mindir.square(y)))]


@bprop("mindir.sigmoid")
def _sigmoid(op, d):
    y = _y(op)
    return [mindir.mul(d[0], mindir.mul(y, mindir.sub(E.scalar(1.0, y), y)))]


@bprop("mindir.erf")
def _erf(op, d):
    x = _x(op)
    gauss = mindir.exp(mindir.neg(mindir.square(x)))
    return [mindir.mul(d[0], E.scale(gauss, 2.0 / math.sqrt(math.pi)))]


@bprop("mindir.softplus")
def _softplus(op, d):
    return [mindir.mul(d[0], mindir.sigmoid(_x(op)))]


@bprop("mindir.silu")
def _silu(op, d):
    # d/dx x s(x) = s + x s (1 - s)
    x = _x(op)
    s = mindir.sigmoid(x)
    one = E.scalar(1.0, x)
    return [mindir.mul(d[0], mindir.mul(s, mindir.add(one, mindir.mul(x, mindir.sub(one, s)))))]


@bprop("mindir.leaky_relu")
def _leaky_relu(op, d):
    x = _x(op)
    alpha = E.attr(op, "alpha", 0.2)
    return [mindir.select(mindir.greater(x, E.scalar(0.0, x)), d[0], E.scale(d[0], alpha))]


@bprop("mindir.gelu")
def _gelu(op, d):
    x = _x(op)
    one = E.scalar(1.0, x)
    if E.attr(op, "approximate", "tanh") == "none":
        # 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)
        cdf = E.scale(mindir.add(one, mindir.erf(E.scale(x, 1.0 / math.sqrt(2.0)))), 0.5)
        pdf = E.scale(mindir.exp(E.scale(mindir.square(x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
        return [mindir.mul(d[0], mindir.add(cdf, mindir.mul(x, pdf)))]
    c = math.sqrt(2.0 / math.pi)
    x2 = mindir.square(x)
    u = E.scale(mindir.mul(x, mindir.add(one, E.scale(x2, 0.044715))), c)
    t = mindir.tanh(u)
    du = E.scale(mindir.add(one, E.scale(x2, 3 * 0.044715)), c)
    dy = mindir.add(E.scale(mindir.add(one, t), 0.5),
                    mindir.mul(E.scale(x, 0.5), mindir.mul(mindir.sub(one, mindir.square(t)), du)))
    return [mindir.mul(d[0], dy)]


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
            E.sum_to(mindir.neg(d[0]), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.mul")
def _mul(op, d):
    a, b = _ab(op)
    return [E.sum_to(mindir.mul(d[0], b), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(mindir.mul(d[0], a), E.shape(b)) if needs_grad(1) else None]


@bprop("mindir.div")
def _div(op, d):
    a, b = _ab(op)
    y = _y(op)
    return [E.sum_to(mindir.div(d[0], b), E.shape(a)) if needs_grad(0) else None,
            E.sum_to(mindir.neg(mindir.div(mindir.mul(d[0], y), b)), E.shape(b))
            if needs_grad(1) else None]


@bprop("mindir.pow")
def _pow(op, d):
    a, b = _ab(op)
    y = _y(op)
    da = db = None
    if needs_grad(0):
        # d * b * a^(b - 1)
        da = E.sum_to(mindir.mul(d[0], mindir.mul(b, mindir.pow(a, mindir.sub(b, E.scalar(1.0, b))))),
                      E.shape(a))
    if needs_grad(1):
        # d * a^b * log(a), with log(a) taken as 0 where a <= 0 (MindSpore)
        pos = mindir.greater(a, E.scalar(0.0, a))
        safe = mindir.select(pos, a, E.scalar(1.0, a))
        db = E.sum_to(mindir.mul(d[0], mindir.mul(y, mindir.log(safe))), E.shape(b))
    return [da, db]


# Masks are recomputed for each use (one use per i1 value): elementwise fusion
# then folds every comparison into its consumer and no i1 tensor is stored.

def _tie_split(win, tie, g):
    """g where `win`, g / 2 where `tie`, else 0: MindSpore 2.10's Maximum/MinimumGrad share
    a tie evenly between the operands (recorded: grad.maximum.ties in
    test/python/compat)."""
    return mindir.select(win, g, E.where(tie, E.scale(g, 0.5)))


@bprop("mindir.maximum")
def _maximum(op, d):
    a, b = _ab(op)
    return [E.sum_to(_tie_split(mindir.greater(a, b), mindir.equal(a, b), d[0]), E.shape(a))
            if needs_grad(0) else None,
            E.sum_to(_tie_split(mindir.less(a, b), mindir.equal(a, b), d[0]), E.shape(b))
            if needs_grad(1) else None]


@bprop("mindir.minimum")
def _minimum(op, d):
    a, b = _ab(op)
    return [E.sum_to(_tie_split(mindir.less(a, b), mindir.equal(a, b), d[0]), E.shape(a))
            if needs_grad(0) else None,
            E.sum_to(_tie_split(mindir.greater(a, b), mindir.equal(a, b), d[0]), E.shape(b))
            if needs_grad(1) else None]


@bprop("mindir.mod")
def _mod(op, d):
    # a - floor(a / b) * b: da = d, db = -d * floor(a / b)
    a, b = _ab(op)
    return [E.sum_to(d[0], E.shape(a)) if needs_grad(0) else None,
            E.sum_to(mindir.neg(mindir.mul(d[0], mindir.floor(mindir.div(a, b)))), E.shape(b))
            if needs_grad(1) else None]


@bprop("mindir.select")
def _select(op, d):
    c, x, y = op.operation.operands
    z = E.scalar(0.0, d[0])
    return [None,
            E.sum_to(mindir.select(c, d[0], z), E.shape(x)) if needs_grad(1) else None,
            E.sum_to(mindir.select(c, z, d[0]), E.shape(y)) if needs_grad(2) else None]


@bprop("mindir.clamp")
def _clamp(op, d):
    # y = minimum(maximum(x, lo), hi), differentiated as that composition
    x, lo, hi = op.operation.operands
    m = mindir.maximum(x, lo)
    dm = E.where(mindir.less_equal(m, hi), d[0])
    return [E.sum_to(E.where(mindir.greater_equal(x, lo), dm), E.shape(x))
            if needs_grad(0) else None,
            E.sum_to(E.where(mindir.less(x, lo), dm), E.shape(lo)) if needs_grad(1) else None,
            E.sum_to(E.where(mindir.greater(m, hi), d[0]), E.shape(hi)) if needs_grad(2) else None]


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
    # the gradient is shared evenly between the elements equal to the extremum (ReduceMax),
    # or, on a reduction marked msmlir.first_extremum (ops.max/min with an axis), goes to
    # the first of them as MindSpore's ArgMaxWithValue (recorded in test/python/compat)
    x, y = _x(op), _y(op)
    axes, xs = _axes(op), E.shape(x)
    if "msmlir.first_extremum" in op.operation.attributes and len(axes) == 1:
        return [_first_extremum_grad(x, y, d[0], E.norm_axis(axes[0], len(xs)), axes)]
    mask = E.cast_mask(mindir.equal(x, E.unreduce(y, xs, axes)), x)
    cnt = E.unreduce(mindir.reduce_sum(mask, axes=E.i64s(axes), keep_dims=E.boolattr(True)),
                     xs, axes)
    return [mindir.div(mindir.mul(E.unreduce(d[0], xs, axes), mask), cnt)]


def _first_extremum_grad(x, y, g, axis, axes):
    """g (unreduced) at the first element equal to the extremum y along `axis`, 0 elsewhere:
    the first position is the min over the tied positions (a plain integer reduction; an
    argmax here would be a second, slower search)."""
    xs = E.shape(x)
    i32 = ir.IntegerType.get_signless(32)
    shape = [1] * len(xs)
    shape[axis] = xs[axis]
    iota = E.constant(np.arange(xs[axis]).reshape(shape), i32)
    tied = mindir.select(mindir.equal(x, E.unreduce(y, xs, axes)), E.broadcast_to(iota, xs),
                         E.scalar(xs[axis], i32))
    first = mindir.reduce_min(tied, axes=E.i64s(axes), keep_dims=E.boolattr(True))
    return E.where(mindir.equal(iota, first), E.unreduce(g, xs, axes))


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
    zf = E.cast_mask(mindir.equal(x, zero), x)
    safe = mindir.add(x, zf)                                   # zeros replaced by ones
    keep = dict(axes=E.i64s(axes), keep_dims=E.boolattr(True))
    p_safe = E.unreduce(mindir.reduce_prod(safe, **keep), xs, axes)
    nzero = E.unreduce(mindir.reduce_sum(zf, **keep), xs, axes)
    no_zero = E.cast_mask(mindir.equal(nzero, zero), x)
    one_zero = E.cast_mask(mindir.equal(nzero, one), x)
    others = mindir.add(mindir.mul(no_zero, mindir.div(p_safe, safe)),
                        mindir.mul(mindir.mul(one_zero, zf), p_safe))
    return [mindir.mul(E.unreduce(d[0], xs, axes), others)]


# --- linear algebra ---------------------------------------------------------------

def _mm_grads(op, d, mm):
    """Gradients of a (batch) matmul; `mm` is mindir.matmul or mindir.batch_matmul."""
    a, b = _ab(op)
    ta, tb = E.attr(op, "transpose_a", False), E.attr(op, "transpose_b", False)
    g = d[0]
    da = db = None
    if needs_grad(0):
        if not ta:
            da = mm(g, b, transpose_a=False, transpose_b=not tb)  # g @ B'^T
        elif not tb:
            da = mm(b, g, transpose_a=False, transpose_b=True)    # (g @ b^T)^T = b @ g^T
        else:
            da = mm(b, g, transpose_a=True, transpose_b=True)     # b^T @ g^T
    if needs_grad(1):
        if not tb:
            db = mm(a, g, transpose_a=not ta, transpose_b=False)  # A'^T @ g
        elif not ta:
            db = mm(g, a, transpose_a=True, transpose_b=False)    # (a^T g)^T = g^T a
        else:
            db = mm(g, a, transpose_a=True, transpose_b=True)     # g^T a^T
    return a, b, da, db


@bprop("mindir.matmul")
def _matmul(op, d):
    _, _, da, db = _mm_grads(op, d, mindir.matmul)
    return [da, db]


@bprop("mindir.batch_matmul")
def _batch_matmul(op, d):
    a, b, da, db = _mm_grads(op, d, mindir.batch_matmul)
    return [E.sum_to(da, E.shape(a)) if da is not None else None,
            E.sum_to(db, E.shape(b)) if db is not None else None]


@bprop("mindir.cast")
def _cast(op, d):
    x = _x(op)
    if not E.is_float_type(E.elem(x)):
        return [None]
    return [E.cast(d[0], E.elem(x))]
