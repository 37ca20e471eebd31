"""bprops of the neural-network ops: bias_add, conv2d (and its backprop ops),
pooling (and its grad ops), softmax, log_softmax, layer_norm, batch_norm,
dropout, the cross-entropy losses and one_hot."""
from __future__ import annotations

import math

from mlir import ir

from msmlir.dialects import mindir

from . import emit as E
from .registry import needs_grad, register_bprop as bprop


def _sum(x, axes, keep_dims=False):
    """reduce_sum over `axes`; no reduction for an empty list (reduce_sum's empty
    axes would mean all axes)."""
    return mindir.reduce_sum(x, axes=E.i64s(axes), keep_dims=E.boolattr(keep_dims)) if axes else x


def _mean(x, axes):
    n = math.prod(E.shape(x)[a] for a in axes)
    return E.scale(mindir.reduce_sum(x, axes=E.i64s(axes), keep_dims=E.boolattr(True)), 1.0 / n)


@bprop("mindir.bias_add")
def _bias_add(op, d):
    x = op.operation.operands[0]
    r = E.rank(x)
    c = 1 if E.attr(op, "data_format", "NCHW") == "NCHW" else r - 1
    return [d[0], _sum(d[0], [i for i in range(r) if i != c]) if needs_grad(1) else None]


# --- convolution ------------------------------------------------------------------

@bprop("mindir.conv2d")
def _conv2d(op, d):
    x, w = op.operation.operands
    a = E.conv_attrs(op)
    dx = mindir.Conv2DBackpropInputOp(d[0], w, E.i64s(E.shape(x)), **a).result \
        if needs_grad(0) else None
    dw = mindir.Conv2DBackpropFilterOp(d[0], x, E.i64s(E.shape(w)), **a).result \
        if needs_grad(1) else None
    return [dx, dw]


@bprop("mindir.conv2d_backprop_input")
def _conv2d_backprop_input(op, d):
    # dx = B_in(dout, w), linear in each: <g, B_in(dout, w)> = <dout, conv(g, w)>
    dout, w = op.operation.operands
    a = E.conv_attrs(op)
    dd = mindir.Conv2DOp(d[0], w, **a).result if needs_grad(0) else None
    dw = mindir.Conv2DBackpropFilterOp(dout, d[0], E.i64s(E.shape(w)), **a).result \
        if needs_grad(1) else None
    return [dd, dw]


@bprop("mindir.conv2d_backprop_filter")
def _conv2d_backprop_filter(op, d):
    # dw = B_w(dout, x): <g, B_w(dout, x)> = <dout, conv(x, g)>
    dout, x = op.operation.operands
    a = E.conv_attrs(op)
    dd = mindir.Conv2DOp(x, d[0], **a).result if needs_grad(0) else None
    dx = mindir.Conv2DBackpropInputOp(dout, d[0], E.i64s(E.shape(x)), **a).result \
        if needs_grad(1) else None
    return [dd, dx]


# --- pooling ---------------------------------------------------------------------

def _kernel(op):
    a = E.pool_attrs(op)
    return a.pop("kernel_size"), a


@bprop("mindir.max_pool2d")
def _max_pool2d(op, d):
    x = op.operation.operands[0]
    k, a = _kernel(op)
    return [mindir.MaxPool2DGradOp(x, d[0], k, **a).result]


@bprop("mindir.avg_pool2d")
def _avg_pool2d(op, d):
    x = op.operation.operands[0]
    k, a = _kernel(op)
    return [mindir.AvgPool2DGradOp(d[0], E.i64s(E.shape(x)), k, **a).result]


@bprop("mindir.avg_pool2d_grad")
def _avg_pool2d_grad(op, d):
    # linear in dout; its adjoint is the average pooling itself
    k, a = _kernel(op)
    return [mindir.AvgPool2DOp(d[0], k, **a).result]


def _window_pads(op, in_hw):
    """[top, bottom, left, right] padding and output size as the C++ inference."""
    kh, kw = E.attr(op, "kernel_size")
    sh, sw = E.attr(op, "strides", [1, 1])
    mode = E.attr(op, "pad_mode", "valid")
    pad = E.attr(op, "pad", [0, 0, 0, 0])
    pads, outs = [], []
    for (n, k, s, lo, hi) in ((in_hw[0], kh, sh, pad[0], pad[1]), (in_hw[1], kw, sw, pad[2], pad[3])):
        if mode == "same":
            o = -(-n // s)
            tot = max((o - 1) * s + k - n, 0)
            lo, hi = tot // 2, tot - tot // 2
        elif mode == "valid":
            lo = hi = 0
            o = (n - k) // s + 1
        else:
            o = (n + lo + hi - k) // s + 1
        pads += [lo, hi]
        outs.append(o)
    return pads, outs, (kh, kw), (sh, sw)


@bprop("mindir.max_pool2d_grad")
def _max_pool2d_grad(op, d):
    # linear in dout (routes each window's dout to its first maximum); the
    # adjoint reads g at the first maximum of each window. Zero w.r.t. x.
    x = op.operation.operands[0]
    g = d[0]
    n_, c_, h, w = E.shape(x)
    pads, (ho, wo), (kh, kw), (sh, sw) = _window_pads(op, (h, w))
    xp = E.pad(x, [0, 0, 0, 0] + pads, -math.inf)
    gp = E.pad(g, [0, 0, 0, 0] + pads, 0.0)
    slices = []
    for i in range(kh):
        for j in range(kw):
            b = [0, 0, i, j]
            e = [n_, c_, i + (ho - 1) * sh + 1, j + (wo - 1) * sw + 1]
            st = [1, 1, sh, sw]
            slices.append((mindir.strided_slice(xp, b, e, st), mindir.strided_slice(gp, b, e, st)))
    ymax = slices[0][0]
    for xs, _ in slices[1:]:
        ymax = mindir.maximum(ymax, xs)
    # first maximum in row-major window order, with float 0/1 masks
    out, taken = None, None
    for xs, gs in slices:
        hit = E.cast_mask(mindir.equal(xs, ymax), xs)
        if taken is not None:
            hit = mindir.mul(hit, mindir.sub(E.scalar(1.0, xs), taken))
            taken = mindir.add(taken, hit)
        else:
            taken = hit
        term = mindir.mul(gs, hit)
        out = term if out is None else mindir.add(out, term)
    return [None, out]


# --- softmax family -----------------------------------------------------------------

@bprop("mindir.softmax")
def _softmax(op, d):
    y = op.operation.results[0]
    axis = E.attr(op, "axis", -1)
    s = mindir.reduce_sum(mindir.mul(d[0], y), axes=E.i64s([axis]), keep_dims=E.boolattr(True))
    return [mindir.mul(y, mindir.sub(d[0], s))]


@bprop("mindir.log_softmax")
def _log_softmax(op, d):
    y = op.operation.results[0]
    axis = E.attr(op, "axis", -1)
    s = mindir.reduce_sum(d[0], axes=E.i64s([axis]), keep_dims=E.boolattr(True))
    return [mindir.sub(d[0], mindir.mul(mindir.exp(y), s))]


def _softmax_vjp(s, g):
    """Softmax's vjp along the last axis given the softmax s."""
    gs = mindir.reduce_sum(mindir.mul(g, s), axes=E.i64s([-1]), keep_dims=E.boolattr(True))
    return mindir.mul(s, mindir.sub(g, gs))


@bprop("mindir.softmax_cross_entropy_with_logits")
def _sce(op, d):
    logits, labels = op.operation.operands
    _, backprop = op.operation.results
    dloss, dbp = d
    n = E.shape(logits)[0]
    dl = dlab = None
    if dloss is not None:
        dl2 = E.reshape(dloss, [n, 1])
        dl = mindir.mul(dl2, backprop)
        if needs_grad(1):
            lsm = mindir.LogSoftmaxOp(logits).result
            dlab = mindir.neg(mindir.mul(dl2, lsm))
    if dbp is not None:
        s = mindir.add(backprop, labels)  # softmax(logits)
        t = _softmax_vjp(s, dbp)
        dl = t if dl is None else mindir.add(dl, t)
        if needs_grad(1):
            dlab = mindir.neg(dbp) if dlab is None else mindir.sub(dlab, dbp)
    return [dl, dlab]


@bprop("mindir.sparse_softmax_cross_entropy_with_logits")
def _sparse_sce(op, d):
    logits, _ = op.operation.operands
    _, backprop = op.operation.results
    dloss, dbp = d
    n = E.shape(logits)[0]
    dl = None
    if dloss is not None:
        dl = mindir.mul(E.reshape(dloss, [n, 1]), backprop)
    if dbp is not None:
        s = mindir.SoftmaxOp(logits).result
        t = _softmax_vjp(s, dbp)
        dl = t if dl is None else mindir.add(dl, t)
    return [dl, None]


# --- normalization ------------------------------------------------------------------

@bprop("mindir.layer_norm")
def _layer_norm(op, d):
    x, gamma, beta = op.operation.operands
    _, mean, rstd = op.operation.results
    dy, dmean, drstd = d
    xs = E.shape(x)
    r = len(xs)
    bna = E.norm_axis(E.attr(op, "begin_norm_axis", -1), r)
    bpa = E.norm_axis(E.attr(op, "begin_params_axis", -1), r)
    naxes = list(range(bna, r))
    m = math.prod(xs[bna:])
    xhat = mindir.mul(mindir.sub(x, mean), rstd)
    dx = dgamma = dbeta = None
    if dy is not None:
        if needs_grad(1):
            dgamma = _sum(mindir.mul(dy, xhat), list(range(bpa)))
        if needs_grad(2):
            dbeta = _sum(dy, list(range(bpa)))
        if needs_grad(0):
            dxhat = mindir.mul(dy, gamma)
            inner = mindir.sub(mindir.sub(dxhat, _mean(dxhat, naxes)),
                               mindir.mul(xhat, _mean(mindir.mul(dxhat, xhat), naxes)))
            dx = mindir.mul(rstd, inner)
    if needs_grad(0):
        if dmean is not None:
            t = E.broadcast_to(E.scale(dmean, 1.0 / m), xs)
            dx = t if dx is None else mindir.add(dx, t)
        if drstd is not None:
            t = mindir.mul(E.scale(mindir.mul(drstd, mindir.square(rstd)), -1.0 / m), xhat)
            dx = t if dx is None else mindir.add(dx, t)
    return [dx, dgamma, dbeta]


@bprop("mindir.batch_norm")
def _batch_norm(op, d):
    x, scale, bias, mean_in, var_in = op.operation.operands
    _, bmean, bvar = op.operation.results
    dy, dm, dv = d
    xs = E.shape(x)
    r = len(xs)
    c = xs[1]
    cshape = [c] + [1] * (r - 2)
    axes = [i for i in range(r) if i != 1]
    m = math.prod(xs) // c
    eps = E.attr(op, "epsilon", 1e-5)
    training = E.attr(op, "is_training", False)
    vec = lambda v: E.reshape(v, cshape)  # noqa: E731
    dx = dscale = dbias = dmean_in = dvar_in = None
    if training:
        mu, var = vec(bmean), vec(bvar)
        rstd = mindir.rsqrt(mindir.add(var, E.scalar(eps, var)))
        xc = mindir.sub(x, mu)
        xhat = mindir.mul(xc, rstd)
        if dy is not None:
            if needs_grad(1):
                dscale = mindir.reduce_sum(mindir.mul(dy, xhat), axes=E.i64s(axes),
                                           keep_dims=E.boolattr(False))
            if needs_grad(2):
                dbias = mindir.reduce_sum(dy, axes=E.i64s(axes), keep_dims=E.boolattr(False))
            if needs_grad(0):
                dxhat = mindir.mul(dy, vec(scale))
                inner = mindir.sub(mindir.sub(dxhat, _mean(dxhat, axes)),
                                   mindir.mul(xhat, _mean(mindir.mul(dxhat, xhat), axes)))
                dx = mindir.mul(rstd, inner)
        if needs_grad(0):
            if dm is not None:
                t = E.broadcast_to(E.scale(vec(dm), 1.0 / m), xs)
                dx = t if dx is None else mindir.add(dx, t)
            if dv is not None:
                t = mindir.mul(E.scale(vec(dv), 2.0 / m), xc)
                dx = t if dx is None else mindir.add(dx, t)
        return [dx, dscale, dbias, None, None]
    # inference: normalised with the given statistics, which are also returned
    mu, var = vec(mean_in), vec(var_in)
    rstd = mindir.rsqrt(mindir.add(var, E.scalar(eps, var)))
    xc = mindir.sub(x, mu)
    if dy is not None:
        k = mindir.mul(vec(scale), rstd)
        dyk = mindir.mul(dy, k)
        if needs_grad(0):
            dx = dyk
        if needs_grad(1):
            dscale = mindir.reduce_sum(mindir.mul(dy, mindir.mul(xc, rstd)), axes=E.i64s(axes),
                                       keep_dims=E.boolattr(False))
        if needs_grad(2):
            dbias = mindir.reduce_sum(dy, axes=E.i64s(axes), keep_dims=E.boolattr(False))
        if needs_grad(3):
            dmean_in = mindir.neg(mindir.reduce_sum(dyk, axes=E.i64s(axes),
                                                    keep_dims=E.boolattr(False)))
        if needs_grad(4):
            r3 = mindir.mul(rstd, mindir.square(rstd))
            dvar_in = mindir.reduce_sum(
                mindir.mul(mindir.mul(dy, vec(scale)), mindir.mul(xc, E.scale(r3, -0.5))),
                axes=E.i64s(axes), keep_dims=E.boolattr(False))
    if dm is not None and needs_grad(3):
        dmean_in = dm if dmean_in is None else mindir.add(dmean_in, dm)
    if dv is not None and needs_grad(4):
        dvar_in = dv if dvar_in is None else mindir.add(dvar_in, dv)
    return [dx, dscale, dbias, dmean_in, dvar_in]


@bprop("mindir.dropout")
def _dropout(op, d):
    mask = op.operation.results[1]
    keep = E.attr(op, "keep_prob", 0.5)
    rest = [None] * (len(op.operation.operands) - 1)  # the run-time RNG offset, if any
    if d[0] is None:
        return [None] + rest
    return [E.scale(mindir.mul(d[0], mask), 1.0 / keep)] + rest


@bprop("mindir.one_hot")
def _one_hot(op, d):
    # the indices carry no gradient; on/off values get the sums of their slots
    indices = op.operation.operands[0]
    y = op.operation.results[0]
    depth = E.attr(op, "depth")
    axis = E.attr(op, "axis", -1)
    et = E.elem(y)
    mask = mindir.OneHotOp(indices, E.scalar(1.0, et), E.scalar(0.0, et), E.i64(depth),
                           axis=E.i64(axis)).result
    total = dict(axes=E.i64s([]), keep_dims=E.boolattr(False))
    don = mindir.reduce_sum(mindir.mul(d[0], mask), **total) if needs_grad(1) else None
    doff = (mindir.reduce_sum(mindir.mul(d[0], mindir.sub(E.scalar(1.0, et), mask)), **total)
            if needs_grad(2) else None)
    return [None, don, doff]


_ = ir  # keep the import for type annotations in custom rules
