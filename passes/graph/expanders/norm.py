"""Expanders of the normalizations: layer_norm and batch_norm (training and
inference), as reduce_mean / sub / square / rsqrt / mul / add.

Each follows its lowering (lowering/mindir_to_linalg/nn.py): two-pass mean
and biased variance (mean of (x - mean)^2), rstd = rsqrt(var + epsilon),
y = (x - mean) * rstd * scale + bias. The statistics are reduced with
keep_dims so they broadcast against x; the op's statistic results are
reshaped from them.

f16/bf16 note: as for softmax, mindir.reduce_mean accumulates half types in
f32 (and any float sum of >= 8192 elements in f64), where the lowering's
fused reductions accumulate in the element type: the expanded form is at
least as accurate, not bitwise equal.
"""
from __future__ import annotations

from msmlir.dialects import mindir
from msmlir.passes.autodiff import emit as E

from .registry import register_expander


def _mean(x, axes):
    return mindir.reduce_mean(x, axes=E.i64s(axes), keep_dims=E.boolattr(True))


def _moments(x, axes):
    """(mean, x - mean, biased variance), the statistics with keep_dims."""
    mean = _mean(x, axes)
    xc = mindir.sub(x, mean)
    return mean, xc, _mean(mindir.square(xc), axes)


def _rstd(var, eps):
    return mindir.rsqrt(mindir.add(var, E.scalar(eps, var)))


def _normalize(xc, rstd, scale, bias):
    return mindir.add(mindir.mul(mindir.mul(xc, rstd), scale), bias)


@register_expander("mindir.layer_norm")
def expand_layer_norm(op):
    """(y, mean, rstd); mean and rstd have x's rank with the normalized dims 1.
    gamma/beta (shape x.shape[begin_params_axis:]) broadcast from the right."""
    x, gamma, beta = op.operation.operands
    r = E.rank(x)
    bna = E.norm_axis(E.attr(op, "begin_norm_axis", -1), r)
    mean, xc, var = _moments(x, list(range(bna, r)))
    rstd = _rstd(var, E.attr(op, "epsilon", 1e-5))
    return [_normalize(xc, rstd, gamma, beta), mean, rstd]


@register_expander("mindir.batch_norm")
def expand_batch_norm(op):
    """(y, batch_mean, batch_var) over all dims but 1 when training; with the
    given mean/variance (returned unchanged) in inference."""
    x, scale, bias, mean_in, var_in = op.operation.operands
    xs = E.shape(x)
    r = len(xs)
    c = xs[1]
    cshape = [c] + [1] * (r - 2)      # [C] broadcasts against dims 1.. of x
    eps = E.attr(op, "epsilon", 1e-5)
    sc, bi = E.reshape(scale, cshape), E.reshape(bias, cshape)
    if E.attr(op, "is_training", False):
        mean, xc, var = _moments(x, [i for i in range(r) if i != 1])
        y = _normalize(xc, _rstd(var, eps), sc, bi)
        return [y, E.reshape(mean, [c]), E.reshape(var, [c])]
    rstd = E.reshape(_rstd(var_in, eps), cshape)
    y = _normalize(mindir.sub(x, E.reshape(mean_in, cshape)), rstd, sc, bi)
    return [y, mean_in, var_in]
