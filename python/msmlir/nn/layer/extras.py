"""More mindspore.nn cells, each a thin Cell over the functional ops (msmlir.ops,
including the layer-5 ones of ops/functional.py): activations (CELU, FastGelu,
HShrink, Mish, SeLU, Softsign, SoftShrink, LogSigmoid, Softmin, Tanhshrink,
Threshold), padding (ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d),
adaptive average pooling, tools (Tril, Triu, Roll, Range, OneHot, Norm,
ClipByNorm, Moments, MatrixDiag, MatrixDiagPart) and losses (BCELoss, HuberLoss,
SmoothL1Loss, SoftMarginLoss, RMSELoss, CosineEmbeddingLoss, DiceLoss)."""
from __future__ import annotations

import numbers

from ... import dtype as mstype
from ... import numpy as mnp
from ... import ops
from ...ops import functional as F
from ..cell import Cell
from ..loss import LossBase

__all__ = ["CELU", "FastGelu", "HShrink", "Mish", "SeLU", "Softsign", "SoftShrink", "LogSigmoid",
           "Softmin", "Tanhshrink", "Threshold", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "Tril", "Triu", "Roll", "Range", "OneHot", "Norm", "ClipByNorm",
           "Moments", "MatrixDiag", "MatrixDiagPart", "BCELoss", "HuberLoss", "SmoothL1Loss",
           "SoftMarginLoss", "RMSELoss", "CosineEmbeddingLoss", "DiceLoss"]


# ---- activations --------------------------------------------------------------------------

class CELU(Cell):
    def __init__(self, alpha=1.0):
        super().__init__()
        if alpha == 0:
            raise ValueError("For 'CELU', 'alpha' must not be 0")
        self.alpha = alpha

    def construct(self, x):
        return F.celu(x, self.alpha)


class FastGelu(Cell):
    def construct(self, x):
        return F.fast_gelu(x)


class HShrink(Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, x):
        return F.hardshrink(x, self.lambd)


class SoftShrink(Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        if lambd < 0:
            raise ValueError(f"For 'SoftShrink', 'lambd' must be >= 0, got {lambd}")
        self.lambd = lambd

    def construct(self, x):
        return F.soft_shrink(x, self.lambd)


class Mish(Cell):
    def construct(self, x):
        return F.mish(x)


class SeLU(Cell):
    def construct(self, x):
        return F.selu(x)


class Softsign(Cell):
    def construct(self, x):
        return F.softsign(x)


class LogSigmoid(Cell):
    """log(sigmoid(x)) = -softplus(-x), computed stably."""

    def construct(self, x):
        return ops.neg(ops.softplus(ops.neg(x)))


class Softmin(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(ops.neg(x), self.axis)


class Tanhshrink(Cell):
    def construct(self, x):
        return x - ops.tanh(x)


class Threshold(Cell):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, x):
        return ops.select(x > self.threshold, x, ops.full_like(x, self.value))


# ---- padding --------------------------------------------------------------------------------

def _pairs(padding, n, what):
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * (2 * n)
    padding = tuple(padding)
    if len(padding) != 2 * n or not all(isinstance(p, numbers.Integral) for p in padding):
        raise ValueError(f"For '{what}', padding must be an int or a tuple of {2 * n} ints, "
                         f"got {padding!r}")
    return padding


class _ConstantPadNd(Cell):
    _n = 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _pairs(padding, self._n, type(self).__name__)
        self.value = value

    def construct(self, x):
        return ops.pad(x, self.padding, value=self.value)


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class ZeroPad2d(_ConstantPadNd):
    _n = 2

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class _ReflectionPadNd(Cell):
    _n = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _pairs(padding, self._n, type(self).__name__)

    def construct(self, x):
        widths = [(0, 0)] * (x.ndim - self._n)
        for k in range(self._n - 1, -1, -1):   # (left, right) of the last dim come first
            widths.append((self.padding[2 * k], self.padding[2 * k + 1]))
        return mnp.pad(x, widths, mode="reflect")


class ReflectionPad1d(_ReflectionPadNd):
    _n = 1


class ReflectionPad2d(_ReflectionPadNd):
    _n = 2


# ---- pooling --------------------------------------------------------------------------------

class AdaptiveAvgPool1d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return F.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)


# ---- tools -----------------------------------------------------------------------------------

class Tril(Cell):
    def construct(self, x, k=0):
        return mnp.tril(x, k)


class Triu(Cell):
    def construct(self, x, k=0):
        return mnp.triu(x, k)


class Roll(Cell):
    def __init__(self, shift, axis):
        super().__init__()
        self.shift = shift
        self.axis = axis

    def construct(self, x):
        return mnp.roll(x, self.shift, self.axis)


class Range(Cell):
    """The 1-D range [start, limit) by delta (mindspore.nn.Range)."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if limit is None:
            start, limit = 0, start
        self.start, self.limit, self.delta = start, limit, delta

    def construct(self):
        return ops.arange(self.start, self.limit, self.delta)


class OneHot(Cell):
    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.axis, self.depth = axis, depth
        self.on_value, self.off_value, self.dtype = on_value, off_value, dtype

    def construct(self, indices):
        return ops.cast(ops.one_hot(indices, self.depth, self.on_value, self.off_value,
                                    self.axis), self.dtype)


class Norm(Cell):
    """sqrt(sum(x**2, axis)) (mindspore.nn.Norm)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        return ops.sqrt(ops.reduce_sum(ops.square(x), self.axis, self.keep_dims))


class ClipByNorm(Cell):
    """x * clip_norm / max(l2norm(x, axis), clip_norm) (mindspore.nn.ClipByNorm)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = () if axis is None else axis

    def construct(self, x, clip_norm):
        n = ops.sqrt(ops.reduce_sum(ops.square(x), self.axis, True))
        return x * clip_norm / ops.maximum(n, clip_norm)


class Moments(Cell):
    """(mean, variance) over `axis` (mindspore.nn.Moments)."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        mean = ops.reduce_mean(x, self.axis, True)
        var = ops.reduce_mean(ops.square(x - mean), self.axis, self.keep_dims)
        if not self.keep_dims:
            mean = ops.reduce_mean(x, self.axis, False)
        return mean, var


class MatrixDiag(Cell):
    """A diagonal matrix from each vector of the last dim."""

    def construct(self, x):
        n = x.shape[-1]
        return ops.expand_dims(x, -1) * ops.eye(n, n, x.dtype)


class MatrixDiagPart(Cell):
    """The main diagonal of each matrix of the last two dims."""

    def construct(self, x):
        return mnp.diagonal(x, 0, -2, -1)


# ---- losses ------------------------------------------------------------------------------------

class BCELoss(LossBase):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class HuberLoss(LossBase):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        if delta <= 0:
            raise ValueError(f"For 'HuberLoss', 'delta' must be > 0, got {delta}")
        self.delta = delta

    def construct(self, logits, labels):
        d = ops.abs(logits - labels)
        loss = ops.select(d < self.delta, 0.5 * d * d, self.delta * (d - 0.5 * self.delta))
        return self.get_loss(loss)


class SmoothL1Loss(LossBase):
    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class SoftMarginLoss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.log1p(ops.exp(ops.neg(logits * labels))))


class RMSELoss(LossBase):
    def __init__(self):
        super().__init__("mean")

    def construct(self, logits, label):
        d = logits - label
        return ops.sqrt(ops.reduce_mean(d * d))


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) for y = 1, max(0, cos(x1, x2) - margin) for y = -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        prod = ops.reduce_sum(logits_x1 * logits_x2, -1)
        n1 = ops.reduce_sum(logits_x1 * logits_x1, -1)
        n2 = ops.reduce_sum(logits_x2 * logits_x2, -1)
        cos = prod / ops.sqrt(n1 * n2 + 1e-12)
        loss = ops.select(labels > 0, 1.0 - cos, ops.maximum(cos - self.margin, 0.0))
        return self.get_loss(loss)


class DiceLoss(LossBase):
    """1 - (2 * sum(y * p) + smooth) / (sum(y * y) + sum(p * p) + smooth)."""

    def __init__(self, smooth=1e-5):
        super().__init__("mean")
        self.smooth = smooth

    def construct(self, logits, label):
        inter = ops.reduce_sum(logits * label)
        union = ops.reduce_sum(logits * logits) + ops.reduce_sum(label * label)
        return 1.0 - (2.0 * inter + self.smooth) / (union + self.smooth)


# ---- pooling 1-D, channel dropout, instance norm, BatchNorm3d ------------------------------

class MaxPool1d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__()
        if return_indices:
            raise ValueError("For 'MaxPool1d', return_indices=True is not supported by msmlir")
        if pad_mode.lower() == "same":
            raise ValueError("For 'MaxPool1d', pad_mode 'same' is not supported by msmlir")
        self.kernel_size, self.stride, self.ceil_mode = kernel_size, stride, ceil_mode
        self.padding = padding if pad_mode.lower() == "pad" else 0

    def construct(self, x):
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode)


class AvgPool1d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        if pad_mode.lower() == "same":
            raise ValueError("For 'AvgPool1d', pad_mode 'same' is not supported by msmlir")
        self.kernel_size, self.stride, self.ceil_mode = kernel_size, stride, ceil_mode
        self.padding = padding if pad_mode.lower() == "pad" else 0
        self.count_include_pad = count_include_pad

    def construct(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class Dropout2d(Cell):
    """Zeroes whole channels with probability p in training (mindspore.nn.Dropout2d)."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"For 'Dropout2d', 'p' must be in [0, 1], got {p}")
        self.p = p

    def construct(self, x):
        return F.dropout2d(x, self.p, self.training)


class Dropout3d(Dropout2d):
    def construct(self, x):
        return F.dropout3d(x, self.p, self.training)


class _InstanceNorm(Cell):
    _ndim = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        from ...common.initializer import initializer
        from ...common.parameter import Parameter
        self.num_features = int(num_features)
        self.eps = float(eps)
        self.affine = affine
        c = (self.num_features,)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        if x.ndim != self._ndim:
            raise ValueError(f"For '{type(self).__name__}', the input must be {self._ndim}-D")
        axes = tuple(range(2, x.ndim))
        mean = ops.reduce_mean(x, axes, True)
        d = x - mean
        var = ops.reduce_mean(d * d, axes, True)
        shp = (1, self.num_features) + (1,) * (x.ndim - 2)
        return d * ops.rsqrt(var + self.eps) * ops.reshape(self.gamma, shp) + \
            ops.reshape(self.beta, shp)


class InstanceNorm1d(_InstanceNorm):
    _ndim = 3


class InstanceNorm2d(_InstanceNorm):
    _ndim = 4


class InstanceNorm3d(_InstanceNorm):
    _ndim = 5


class BatchNorm3d(Cell):
    """Batch normalization of (N, C, D, H, W) inputs: BatchNorm2d on (N, C, D*H, W)
    (mindspore.nn.BatchNorm3d; the same moving statistics)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        from .normalization import BatchNorm2d
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        n, c, d, h, w = x.shape
        y = self.bn2d(ops.reshape(x, (n, c, d * h, w)))
        return ops.reshape(y, (n, c, d, h, w))


# ---- image tools, regularizer, gradient wrappers -------------------------------------------

class CentralCrop(Cell):
    """The central `central_fraction` of the image(s) (mindspore.nn.CentralCrop; CHW or NCHW)."""

    def __init__(self, central_fraction):
        super().__init__()
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', 'central_fraction' must be in (0, 1], got "
                             f"{central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image):
        h, w = image.shape[-2], image.shape[-1]
        if self.central_fraction == 1.0:
            return image
        oh = int(h * self.central_fraction)
        ow = int(w * self.central_fraction)
        top = (h - oh) // 2
        left = (w - ow) // 2
        begin = (0,) * (image.ndim - 2) + (top, left)
        size = tuple(image.shape[:-2]) + (oh, ow)
        return ops.slice(image, begin, size)


class ImageGradients(Cell):
    """(dy, dx) of NCHW images: forward differences, the last row/column zero
    (mindspore.nn.ImageGradients)."""

    def construct(self, images):
        n, c, h, w = images.shape
        dy = ops.concat((images[:, :, 1:, :] - images[:, :, :h - 1, :],
                         ops.zeros((n, c, 1, w), images.dtype)), 2)
        dx = ops.concat((images[:, :, :, 1:] - images[:, :, :, :w - 1],
                         ops.zeros((n, c, h, 1), images.dtype)), 3)
        return dy, dx


class L1Regularizer(Cell):
    """scale * sum(|weights|) (mindspore.nn.L1Regularizer)."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', 'scale' must be a positive number, got "
                             f"{scale!r}")
        self.scale = float(scale)

    def construct(self, weights):
        return ops.reduce_sum(ops.abs(weights)) * self.scale


class ForwardValueAndGrad(Cell):
    """(network output, gradients) (mindspore.nn.ForwardValueAndGrad): gradients
    w.r.t. the inputs (get_all), the `weights` (get_by_list) or both, as
    GradOperation's; with sens_param the last input is the output's sensitivity.
    (The output is computed by a forward pass of its own.)"""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__()
        if get_by_list and weights is None:
            raise TypeError("For 'ForwardValueAndGrad', 'weights' must be given when "
                            "'get_by_list' is True")
        from ... import ops as _ops
        self.network = network
        self.sens_param = sens_param
        self.grad_fn = _ops.GradOperation(get_all, get_by_list, sens_param)(
            network, weights if get_by_list else None)

    def construct(self, *inputs):
        if self.sens_param:
            out = self.network(*inputs[:-1])
        else:
            out = self.network(*inputs)
        return out, self.grad_fn(*inputs)


class WithGradCell(Cell):
    """The gradients of `loss_fn(network(data), label)` w.r.t. the network's
    trainable parameters (mindspore.nn.WithGradCell)."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__()
        from ... import ops as _ops
        from ..wrap import WithLossCell
        self.network = network
        self.net = WithLossCell(network, loss_fn) if loss_fn is not None else network
        self.grad_fn = _ops.GradOperation(get_by_list=True)(self.net,
                                                            network.trainable_params())

    def construct(self, *inputs):
        return self.grad_fn(*inputs)


__all__ += ["MaxPool1d", "AvgPool1d", "Dropout2d", "Dropout3d", "InstanceNorm1d",
            "InstanceNorm2d", "InstanceNorm3d", "BatchNorm3d", "CentralCrop", "ImageGradients",
            "L1Regularizer", "ForwardValueAndGrad", "WithGradCell"]


# ---- found missing by MindSpore's own tests (tools/run_mindspore_tests.py) ---------------

class AdaptiveMaxPool2d(Cell):
    """Adaptive max pooling of the last two dims (ops.adaptive_max_pool2d)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, x):
        return F.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(Cell):
    """Adaptive max pooling of the last dim (ops.adaptive_max_pool1d)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, x):
        return F.adaptive_max_pool1d(x, self.output_size, self.return_indices)


class BiDense(Cell):
    """y = x1^T W x2 + b (mindspore.nn.BiDense): W (out, in1, in2); weight and bias
    default to U(-1/sqrt(in1), 1/sqrt(in1)) as in MindSpore."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=mstype.float32):
        super().__init__()
        from ...common.initializer import Uniform, initializer
        from ...common.parameter import Parameter
        for name, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'BiDense', '{name}' must be a positive int, got {v!r}")
        self.in1_channels, self.in2_channels = in1_channels, in2_channels
        self.out_channels, self.has_bias = out_channels, bool(has_bias)
        bound = 1.0 / in1_channels ** 0.5
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None else weight_init,
                                            (out_channels, in1_channels, in2_channels), dtype),
                                name="weight")
        if self.has_bias:
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init,
                                              (out_channels,), dtype), name="bias")

    def construct(self, input1, input2):
        return F.bidense(input1, input2, self.weight, self.bias if self.has_bias else None)


__all__ += ["AdaptiveMaxPool2d", "AdaptiveMaxPool1d", "BiDense"]
