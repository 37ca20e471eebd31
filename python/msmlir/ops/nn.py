"""Neural-network ops: softmax, normalization, convolution, pooling, losses, dropout."""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as _dt
import msmlir.frontend.builder as _b
from ..dialects.enums import PadMode, enum_case
from ..frontend.trace import rng_offset
from ._base import TensorValue, cast_to, emit, int_tuple, mindir, norm_axis, primitive, promote, to_tensor
from .array import assign, pad, reshape
from .math import add, bias_add, mul, neg, reduce_mean, reduce_sum, stop_gradient
from .primitive import Primitive

__all__ = [
    "softmax", "log_softmax", "layer_norm", "batch_norm", "dropout", "one_hot", "conv2d",
    "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool2d", "avg_pool2d",
    "max_pool2d_grad", "avg_pool2d_grad", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "cross_entropy", "nll_loss", "mse_loss",
    "LayerNorm", "BatchNorm", "Dropout", "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
]


def _float(x):
    t = to_tensor(x)
    return t if t.dtype.is_float else cast_to(t, _dt.float32)


@primitive
def softmax(input, axis=-1):
    """Softmax along `axis` (ops.softmax)."""
    t = _float(input)
    a = norm_axis(axis, t.ndim) if t.ndim else 0
    return emit(mindir.SoftmaxOp, t.value, axis=_b.i64_attr(a))


@primitive
def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along `axis`, computed stably (ops.log_softmax)."""
    t = _float(logits)
    a = norm_axis(axis, t.ndim) if t.ndim else 0
    return emit(mindir.LogSoftmaxOp, t.value, axis=_b.i64_attr(a))


def _layer_norm3(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon):
    x, g, b = promote(_float(x), gamma, beta)
    return emit(mindir.LayerNormOp, x.value, g.value, b.value,
                begin_norm_axis=_b.i64_attr(begin_norm_axis),
                begin_params_axis=_b.i64_attr(begin_params_axis), epsilon=_b.f64_attr(epsilon))


@primitive
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the trailing dims `normalized_shape` (ops.layer_norm);
    weight/bias default to ones/zeros. Returns the normalized tensor."""
    t = _float(input)
    ns = int_tuple(normalized_shape, "normalized_shape")
    if t.shape[t.ndim - len(ns):] != ns:
        _b.error(f"layer_norm: normalized_shape {ns} does not match the trailing dims of {list(t.shape)}")
    from .array import ones, zeros
    g = weight if weight is not None else ones(ns, t.dtype)
    b = bias if bias is not None else zeros(ns, t.dtype)
    axis = t.ndim - len(ns)
    return _layer_norm3(t, g, b, axis, axis, eps)[0]


class LayerNorm(Primitive):
    """Primitive ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
    called as (input_x, gamma, beta), returns (output, mean, rstd)."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__()
        self._add_attrs(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                        epsilon=epsilon)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon

    def _impl(self, x, g, b):
        rank = to_tensor(x).ndim
        return _layer_norm3(x, g, b, norm_axis(self.begin_norm_axis, rank),
                            norm_axis(self.begin_params_axis, rank), self.epsilon)


def _batch_norm3(x, scale, bias, mean, variance, is_training, epsilon):
    x, s, b, m, v = promote(_float(x), scale, bias, mean, variance)
    return emit(mindir.BatchNormOp, x.value, s.value, b.value, m.value, v.value,
                is_training=_b.bool_attr(is_training), epsilon=_b.f64_attr(epsilon))


@primitive
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalization over channel dim 1 (ops.batch_norm); returns the normalized
    tensor. In training, running_mean / running_var (Parameters) are updated in place as
    MindSpore 2.10 does: running = (1 - momentum) * running + momentum * batch statistic,
    the variance unbiased (n / (n - 1); recorded in test/python/compat)."""
    y, mean, var = _batch_norm3(input_x, weight, bias, running_mean, running_var, training, eps)
    if training:
        x = to_tensor(input_x)
        n = int(np.prod(x.shape)) // (x.shape[1] if x.ndim > 1 else 1)
        var = mul(stop_gradient(var), n / max(n - 1, 1))
        for run, batch in ((running_mean, stop_gradient(mean)), (running_var, var)):
            if not isinstance(run, np.ndarray):     # a numpy array is a constant here
                assign(run, add(mul(run, 1.0 - momentum), mul(batch, momentum)))
    return y


class BatchNorm(Primitive):
    """Primitive ops.BatchNorm(is_training=False, epsilon=1e-5): called as
    (input_x, scale, bias, mean, variance), returns (y, batch_mean, batch_var)."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError("BatchNorm: only data_format='NCHW' is supported")
        self._add_attrs(is_training=is_training, epsilon=epsilon, momentum=momentum,
                        data_format=data_format)
        self.is_training = is_training
        self.epsilon = epsilon

    def _impl(self, input_x, scale, bias, mean, variance):
        return _batch_norm3(input_x, scale, bias, mean, variance, self.is_training, self.epsilon)


def _dropout2(x, keep_prob, seed):
    # `offset`: the run-time RNG counter, so every execution draws a new mask
    # (frontend/builder.py, "The RNG counter"); the seed only selects the stream
    t = _float(x)
    off = rng_offset()
    return emit(mindir.DropoutOp, t.value, keep_prob=_b.f64_attr(keep_prob), seed=_b.i64_attr(seed),
                offset=None if off is None else off.value)


@primitive
def dropout(input, p=0.5, training=True, seed=None):
    """Zeroes elements with probability p and scales the rest by 1/(1-p)
    (ops.dropout); the identity when not training. Each call site draws a new
    mask at every execution (the RNG counter; `msmlir.set_seed` restarts it)."""
    if not training or p == 0:
        return to_tensor(input)
    if not 0 <= p < 1:
        _b.error(f"dropout: p must be in [0, 1), got {p}")
    return _dropout2(input, 1.0 - p, 0 if seed is None else seed)[0]


class Dropout(Primitive):
    """Primitive ops.Dropout(keep_prob=0.5, Seed0=0, Seed1=0): returns (output, mask)."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__()
        if not 0 < keep_prob <= 1:
            raise ValueError(f"For 'Dropout', 'keep_prob' must be in (0, 1], but got {keep_prob}")
        self._add_attrs(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        self.keep_prob = keep_prob
        self.seed = Seed0 * 65536 + Seed1

    def _impl(self, x):
        return _dropout2(x, self.keep_prob, self.seed)


@primitive
def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding (ops.one_hot); the output dtype is on_value's: a Tensor's dtype,
    int64 for a Python int (the default 1: MindSpore 2.10), float32 for a Python float."""
    idx = to_tensor(indices, None if isinstance(indices, TensorValue) else _dt.int32)
    if not idx.dtype.is_int:
        _b.error(f"one_hot: indices must be an integer tensor, got {idx.dtype}")
    if not isinstance(depth, numbers.Integral) or isinstance(depth, bool) or depth < 0:
        _b.error(f"one_hot: depth must be a non-negative Python int, got {depth!r}")
    if isinstance(on_value, TensorValue):
        dt = on_value.dtype
    elif isinstance(on_value, numbers.Integral) and not isinstance(on_value, bool):
        dt = _dt.int64
    else:
        dt = _dt.float32
    on = to_tensor(on_value, dt)
    off = to_tensor(off_value, dt)
    if on.ndim:
        on = reshape(on, ())
    if off.ndim:
        off = reshape(off, ())
    a = -1 if axis == -1 else norm_axis(axis, idx.ndim, allow_end=True)
    return emit(mindir.OneHotOp, idx.value, on.value, off.value, _b.i64_attr(depth),
                axis=_b.i64_attr(a))


# ---------------------------------------------------------------------------
# Convolution and pooling (NCHW)
# ---------------------------------------------------------------------------

def _pair(v, what):
    t = int_tuple(v, what)
    if len(t) == 1:
        return t * 2
    if len(t) == 4 and what == "stride":  # MindSpore allows (1, 1, sh, sw)
        return t[2:]
    if len(t) != 2:
        _b.error(f"{what} must be an int or a pair, got {v!r}")
    return t


def _pad4(padding):
    p = int_tuple(padding, "padding")
    if len(p) == 1:
        return p * 4
    if len(p) == 2:
        return (p[0], p[0], p[1], p[1])
    if len(p) != 4:
        _b.error(f"padding must be an int, a pair or 4 ints (top, bottom, left, right), got {padding!r}")
    return p


def _pad_mode(pad_mode, pad):
    """The PadMode enum for a user's pad_mode string; non-zero `pad` implies 'pad'."""
    mode = enum_case(PadMode, pad_mode, "pad_mode")
    return PadMode.pad if any(pad) and mode == PadMode.valid else mode


def _conv_attrs(stride, pad_mode, padding, dilation, groups):
    pad = _pad4(padding)
    return dict(stride=_b.i64_array(_pair(stride, "stride")), pad_mode=_pad_mode(pad_mode, pad),
                pad=_b.i64_array(pad), dilation=_b.i64_array(_pair(dilation, "dilation")),
                group=_b.i64_attr(groups))


@primitive
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D convolution, NCHW input and OIHW weight (ops.conv2d). Non-zero
    `padding` implies pad_mode='pad' ([top, bottom, left, right] or one int / a pair)."""
    x, w = promote(_float(input), weight)
    out = emit(mindir.Conv2DOp, x.value, w.value, **_conv_attrs(stride, pad_mode, padding, dilation, groups))
    if bias is not None:
        out = bias_add(out, bias)
    return out


@primitive
def conv2d_backprop_input(dout, weight, input_shape, stride=1, pad_mode="valid", padding=0,
                          dilation=1, groups=1):
    """Gradient of conv2d w.r.t. its input (ops.Conv2DBackpropInput)."""
    d, w = promote(_float(dout), weight)
    return emit(mindir.Conv2DBackpropInputOp, d.value, w.value,
                _b.i64_array(int_tuple(input_shape, "input_shape")),
                **_conv_attrs(stride, pad_mode, padding, dilation, groups))


@primitive
def conv2d_backprop_filter(dout, input, filter_shape, stride=1, pad_mode="valid", padding=0,
                           dilation=1, groups=1):
    """Gradient of conv2d w.r.t. its weight (ops.Conv2DBackpropFilter)."""
    d, x = promote(_float(dout), input)
    return emit(mindir.Conv2DBackpropFilterOp, d.value, x.value,
                _b.i64_array(int_tuple(filter_shape, "filter_shape")),
                **_conv_attrs(stride, pad_mode, padding, dilation, groups))


def _pool_attrs(kernel_size, stride, padding, pad_mode):
    mode = enum_case(PadMode, pad_mode, "pad_mode")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    pad = _pad4(padding)
    return _b.i64_array(k), dict(strides=_b.i64_array(s), pad_mode=_pad_mode(mode, pad),
                                 pad=_b.i64_array(pad))


@primitive
def max_pool2d(x, kernel_size, stride=None, padding=0, pad_mode="valid"):
    """2-D max pooling over NCHW (ops.max_pool2d); stride defaults to kernel_size."""
    k, attrs = _pool_attrs(kernel_size, stride, padding, pad_mode)
    return emit(mindir.MaxPool2DOp, _float(x).value, k, **attrs)


@primitive
def avg_pool2d(input_x, kernel_size=1, stride=None, padding=0, pad_mode="valid", *,
               ceil_mode=False, count_include_pad=True, divisor_override=None):
    """2-D average pooling over NCHW (ops.avg_pool2d). As MindSpore 2.10, explicit
    `padding` counts in the divisor unless count_include_pad=False (the zero-padded input
    pooled 'valid'); divisor_override divides the window sums by that number instead."""
    x = _float(input_x)
    pad4 = _pad4(padding)
    same = enum_case(PadMode, pad_mode, "pad_mode") == PadMode.same
    if ceil_mode or (divisor_override and (same or (any(pad4) and not count_include_pad))):
        _b.error("ops.avg_pool2d: ceil_mode, and divisor_override with pad_mode 'same' or "
                 "count_include_pad=False, are computed by ops.window_pool2d (or "
                 "nn.AvgPool2d)", kind=ValueError)
    if count_include_pad and any(pad4) and not same:
        x = pad(x, (pad4[2], pad4[3], pad4[0], pad4[1]))      # (left, right, top, bottom)
        padding = 0
    k, attrs = _pool_attrs(kernel_size, stride, padding, pad_mode)
    out = emit(mindir.AvgPool2DOp, x.value, k, **attrs)
    if divisor_override:
        kk = _pair(kernel_size, "kernel_size")
        out = mul(out, float(kk[0] * kk[1]) / float(divisor_override))
    return out


@primitive
def max_pool2d_grad(x, dout, kernel_size, stride=None, padding=0, pad_mode="valid"):
    """Gradient of max_pool2d: dout routed to the first max of each window."""
    k, attrs = _pool_attrs(kernel_size, stride, padding, pad_mode)
    a, d = promote(_float(x), dout)
    return emit(mindir.MaxPool2DGradOp, a.value, d.value, k, **attrs)


@primitive
def avg_pool2d_grad(dout, input_shape, kernel_size, stride=None, padding=0, pad_mode="valid"):
    """Gradient of avg_pool2d for an input of shape input_shape."""
    k, attrs = _pool_attrs(kernel_size, stride, padding, pad_mode)
    return emit(mindir.AvgPool2DGradOp, _float(dout).value,
                _b.i64_array(int_tuple(input_shape, "input_shape")), k, **attrs)


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------

def _sce(logits, labels):
    lg, lb = promote(_float(logits), labels)
    return emit(mindir.SoftmaxCrossEntropyWithLogitsOp, lg.value, lb.value)


def _sparse_sce(logits, labels):
    lg = _float(logits)
    lb = to_tensor(labels, None if isinstance(labels, TensorValue) else _dt.int32)
    if not lb.dtype.is_int:
        _b.error(f"sparse softmax cross entropy: labels must be integers, got {lb.dtype}")
    return emit(mindir.SparseSoftmaxCrossEntropyWithLogitsOp, lg.value, lb.value)


@primitive
def softmax_cross_entropy_with_logits(logits, labels):
    """(per-sample loss [N], d loss / d logits [N, C]) for dense labels [N, C]
    (ops.SoftmaxCrossEntropyWithLogits)."""
    return _sce(logits, labels)


@primitive
def sparse_softmax_cross_entropy_with_logits(logits, labels):
    """(per-sample loss [N], d loss / d logits) for class-index labels [N]."""
    return _sparse_sce(logits, labels)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """Primitive ops.SoftmaxCrossEntropyWithLogits(): (logits, labels) -> (loss, backprop)."""

    def _impl(self, logits, labels):
        return _sce(logits, labels)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """Primitive ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=False): the mean loss."""

    def __init__(self, is_grad=False):
        super().__init__()
        self.add_prim_attr("is_grad", is_grad)
        self.is_grad = is_grad

    def _impl(self, lg, lb):
        loss, backprop = _sparse_sce(lg, lb)
        return backprop if self.is_grad else reduce_mean(loss)


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return reduce_mean(loss)
    if reduction == "sum":
        return reduce_sum(loss)
    if reduction == "none":
        return loss
    _b.error(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


@primitive
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of logits `input` [N, C] with class indices [N] or class
    probabilities [N, C] (ops.cross_entropy). `weight` [C] rescales each class;
    `label_smoothing` eps mixes the target with the uniform distribution:
    (1 - eps) * nll + eps / C * sum_c(-w_c log p_c); with class indices, targets
    equal to `ignore_index` count for nothing and 'mean' divides by the summed
    weight of the counted targets (MindSpore's / PyTorch's semantics)."""
    is_sparse = (target.dtype.is_int if isinstance(target, TensorValue) else
                 np.asarray(target).dtype.kind in "iu")
    if weight is None and not label_smoothing:
        loss = (_sparse_sce if is_sparse else _sce)(input, target)[0]
        return _reduce_loss(loss, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        _b.error(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    from . import math as m
    from .array import ones_like, zeros_like
    x = _float(input)
    if x.ndim != 2:
        _b.error(f"cross_entropy: with weight or label_smoothing the input must be [N, C], got "
                 f"{list(x.shape)}")
    n, c = x.shape
    logp = log_softmax(x, 1)
    w = (ones_like(logp) if weight is None else
         reshape(cast_to(to_tensor(weight), x.dtype), (1, c)))
    wlogp = m.mul(logp, w)                                    # w_c * log p_c, [N, C]
    smooth = m.neg(m.reduce_sum(wlogp, 1))                    # sum_c -w_c log p_c, [N]
    if is_sparse:
        t = to_tensor(target, None if isinstance(target, TensorValue) else _dt.int32)
        keep = m.not_equal(t, ignore_index)
        safe = m.select(keep, t, zeros_like(t))
        oh = one_hot(safe, c, 1.0, 0.0)                       # [N, C] float32
        oh = cast_to(oh, x.dtype)
        keepf = cast_to(keep, x.dtype)
        nll = m.mul(m.neg(m.reduce_sum(m.mul(wlogp, oh), 1)), keepf)
        smooth = m.mul(smooth, keepf)
        wt = m.mul(m.reduce_sum(m.mul(oh, w), 1), keepf)      # weight of each counted target
        loss = (m.add(m.mul(nll, 1.0 - label_smoothing), m.mul(smooth, label_smoothing / c))
                if label_smoothing else nll)
        if reduction == "mean":
            return m.div(m.reduce_sum(loss), m.reduce_sum(wt))
        return _reduce_loss(loss, reduction)
    y = cast_to(to_tensor(target), x.dtype)
    if label_smoothing:
        y = m.add(m.mul(y, 1.0 - label_smoothing), label_smoothing / c)
    loss = m.neg(m.reduce_sum(m.mul(wlogp, y), 1))
    return _reduce_loss(loss, reduction)


@primitive
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Negative log likelihood of log-probabilities [N, C] at class indices [N] (ops.nll_loss)."""
    if weight is not None or label_smoothing:
        _b.error("nll_loss: weight and label_smoothing are not supported")
    x = _float(inputs)
    mask = one_hot(target, x.shape[-1], 1.0, 0.0, -1)
    loss = neg(reduce_sum(mul(x, cast_to(mask, x.dtype)), -1))
    return _reduce_loss(loss, reduction)


@primitive
def mse_loss(input, target, reduction="mean"):
    """(input - target) ** 2 (ops.mse_loss)."""
    from .math import square, sub
    return _reduce_loss(square(sub(input, target)), reduction)

