"""`mindspore.mint.nn.functional`: torch-style activation, loss and layer functions."""
from ... import ops as _ops
from ...ops import functional as _F

__all__ = ["relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout",
           "linear", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "leaky_relu", "elu", "softplus", "pad",
           "one_hot", "embedding", "layer_norm", "max_pool2d", "avg_pool2d", "interpolate",
           "hardtanh", "mish", "normalize"]

relu, sigmoid, tanh, silu = _ops.relu, _ops.sigmoid, _ops.tanh, _ops.silu
mish, interpolate, hardtanh = _F.mish, _F.interpolate, _ops.hardtanh


def gelu(input, approximate="none"):
    return _ops.gelu(input, approximate)


def softmax(input, dim=None, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.softmax(x, -1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.log_softmax(x, -1 if dim is None else dim)


def dropout(input, p=0.5, training=True, inplace=False):
    return _ops.dropout(input, p, training)


def linear(input, weight, bias=None):
    """input @ weight.T + bias (torch's linear)."""
    return _ops.dense(input, weight, bias)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    return _ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def mse_loss(input, target, reduction="mean"):
    return _ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    d = _ops.abs(_ops.sub(input, target))
    if reduction == "none":
        return d
    return _ops.reduce_sum(d) if reduction == "sum" else _ops.reduce_mean(d)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _ops.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _ops.select(_ops.greater(input, 0), input, _ops.mul(alpha, _ops.expm1(input)))


def softplus(input, beta=1, threshold=20):
    if beta == 1:
        return _ops.softplus(input)
    return _ops.div(_ops.softplus(_ops.mul(input, beta)), beta)


def pad(input, pad, mode="constant", value=0.0):
    return _ops.pad(input, tuple(pad), mode, value)


def one_hot(tensor, num_classes=-1):
    if num_classes < 0:
        raise ValueError("mint.nn.functional.one_hot: num_classes must be given "
                         "(no data-dependent shapes)")
    return _ops.one_hot(tensor, num_classes, 1, 0)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    return _ops.gather(weight, input, 0)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _ops.layer_norm(input, tuple(normalized_shape), weight, bias, eps)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise ValueError("max_pool2d: return_indices=True is not supported by msmlir")
    return _ops.window_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, "max")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _ops.window_pool2d(input, kernel_size, stride, padding, 1, ceil_mode, "avg",
                              count_include_pad, divisor_override)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    n = _F.norm(input, p, dim, True)
    return _ops.div(input, _ops.maximum(n, eps))
