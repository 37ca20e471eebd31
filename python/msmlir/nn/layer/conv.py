"""Convolutions (mindspore.nn): Conv2d, Conv1d, Conv2dTranspose, Conv1dTranspose.

NCHW data, OIHW weights; defaults as MindSpore 2.x: pad_mode='same',
has_bias=False, weight HeUniform(sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))
with fan_in = weight.shape[1] * kernel area.

* Conv3d (NCDHW, weight (C_out, C_in / group, kd, kh, kw)) is the sum over the kernel's
  depth taps of 2-D convolutions of the depth-strided input slices (depths folded
  into the batch), so it compiles to the 2-D convolution kernels.
* Conv1d runs the 2-D convolution on a (N, C, 1, L) view; its weight is MindSpore's
  (C_out, C_in / group, 1, kernel_size) (a 3-D Tensor weight_init is expanded).
* Conv2dTranspose is the gradient of a convolution w.r.t. its input
  (conv2d_backprop_input); weight (C_in, C_out / group, kh, kw). Output size
  (MindSpore's): 'same' H * stride; 'valid' H * stride + max(k_eff - stride, 0);
  'pad' H * stride - (pad_top + pad_bottom) + k_eff - stride, k_eff = dilation * (k - 1) + 1;
  then `output_padding` zero rows/columns at the bottom/right (pad_mode 'pad' only).
"""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ... import ops
from ...common.tensor import Tensor
from ..cell import Cell
from . import _init

__all__ = ["Conv2d", "Conv1d", "Conv2dTranspose", "Conv1dTranspose", "Conv3d"]


def _pair(v, name, cls):
    t = (v, v) if isinstance(v, int) else tuple(v)
    if len(t) != 2 or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 1 for i in t):
        raise ValueError(f"For '{cls}', '{name}' must be a positive int or a pair of them, got {v!r}.")
    return tuple(int(i) for i in t)


def _int(v, name, cls, low=1):
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= {low}, got {v!r}.")
    return v


def _pad4(padding, pad_mode, cls):
    p = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    if len(p) != 4 or not all(isinstance(i, int) and i >= 0 for i in p):
        raise ValueError(f"For '{cls}', 'padding' must be an int >= 0 or 4 of them, got {padding!r}.")
    if pad_mode != "pad" and any(p):
        raise ValueError(f"For '{cls}', 'padding' must be 0 unless pad_mode='pad', got {padding!r}.")
    return p


class _Conv(Cell):
    """Shared construction: checks, weight and bias Parameters."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                 group, has_bias, weight_init, bias_init, dtype, transposed=False):
        super().__init__()
        cls = type(self).__name__
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"For '{cls}', pad_mode must be 'same', 'valid' or 'pad', got "
                             f"{pad_mode!r}.")
        self.in_channels = _int(in_channels, "in_channels", cls)
        self.out_channels = _int(out_channels, "out_channels", cls)
        self.group = _int(group, "group", cls)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cls}', in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by group ({group}).")
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        self.pad_mode = pad_mode
        self.padding = padding
        self.has_bias = bool(has_bias)
        lead = (in_channels, out_channels // group) if transposed else \
            (out_channels, in_channels // group)
        shape = lead + tuple(kernel_size)
        self.weight = _init.weight(weight_init, shape, "weight", dtype)
        if self.has_bias:
            fan_in = shape[1] * int(np.prod(shape[2:]))
            self.bias = _init.bias(bias_init, (out_channels,), fan_in, "bias", dtype)

    def _add_bias(self, out):
        if self.has_bias:
            return ops.bias_add(out, self.bias)
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")


class Conv2d(_Conv):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=mstype.float32):
        if data_format != "NCHW":
            raise ValueError("Conv2d: only data_format='NCHW' is supported")
        cls = "Conv2d"
        super().__init__(in_channels, out_channels, _pair(kernel_size, "kernel_size", cls),
                         _pair(stride, "stride", cls), pad_mode, _pad4(padding, pad_mode, cls),
                         _pair(dilation, "dilation", cls), group, has_bias, weight_init, bias_init,
                         dtype)
        self.padding = padding

    def construct(self, x):
        out = ops.conv2d(x, self.weight, None, self.stride, self.pad_mode, self.padding,
                         self.dilation, self.group)
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1))
        return out


def _conv1d_args(kernel_size, stride, dilation, padding, weight_init, cls):
    """The 2-D (1, k) kernel, stride and dilation, the (0, 0, p, p) padding of a 1-D
    convolution, and its weight_init (a 3-D Tensor / ndarray is expanded to
    MindSpore's (C, C', 1, k))."""
    k, s, d = (_int(kernel_size, "kernel_size", cls), _int(stride, "stride", cls),
               _int(dilation, "dilation", cls))
    p = _int(padding, "padding", cls, low=0)
    if isinstance(weight_init, (Tensor, np.ndarray)):
        arr = weight_init.asnumpy() if isinstance(weight_init, Tensor) else weight_init
        if arr.ndim == 3:
            weight_init = Tensor(np.expand_dims(arr, 2))
    return (1, k), (1, s), (1, d), (0, 0, p, p), weight_init


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) (mindspore.nn.Conv1d)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        k, s, d, pad, weight_init = _conv1d_args(kernel_size, stride, dilation, padding,
                                                 weight_init, "Conv1d")
        pad = _pad4(pad, pad_mode, "Conv1d")
        super().__init__(in_channels, out_channels, k, s, pad_mode, pad, d, group, has_bias,
                         weight_init, bias_init, dtype)
        self.padding = padding
        self._pad4 = pad

    def construct(self, x):
        out = ops.conv2d(ops.expand_dims(x, 2), self.weight, None, self.stride, self.pad_mode,
                         self._pad4, self.dilation, self.group)
        return ops.squeeze(self._add_bias(out), 2)


def _deconv_length(mode, n, k, s, d, pad):
    """MindSpore's output length of a transposed convolution."""
    k_eff = k + (k - 1) * (d - 1)
    if mode == "valid":
        return n * s + max(k_eff - s, 0)
    if mode == "same":
        return n * s
    return n * s - pad + k_eff - s


class Conv2dTranspose(_Conv):
    """2-D transposed convolution (mindspore.nn.Conv2dTranspose): the gradient of
    Conv2d(out_channels -> in_channels) w.r.t. its input."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        cls = type(self).__name__
        super().__init__(in_channels, out_channels, _pair(kernel_size, "kernel_size", cls),
                         _pair(stride, "stride", cls), pad_mode, _pad4(padding, pad_mode, cls),
                         _pair(dilation, "dilation", cls), group, has_bias, weight_init, bias_init,
                         dtype, transposed=True)
        self._pad4 = _pad4(padding, pad_mode, cls)
        self.padding = padding
        op = (output_padding,) * 2 if isinstance(output_padding, int) else tuple(output_padding)
        if len(op) != 2 or not all(isinstance(i, int) for i in op):
            raise ValueError(f"For '{cls}', 'output_padding' must be an int or a pair of ints, got "
                             f"{output_padding!r}.")
        for i in range(2):
            if op[i] < 0 or op[i] >= max(self.stride[i], self.dilation[i]):
                raise ValueError(f"For '{cls}', output_padding[{i}] must be in "
                                 f"[0, max(stride, dilation)), got {op[i]}.")
        if any(op) and pad_mode != "pad":
            raise ValueError(f"For '{cls}', a non-zero output_padding needs pad_mode='pad'.")
        self.output_padding = output_padding
        self._out_pad = op

    def _out_hw(self, h, w):
        p = self._pad4
        return (_deconv_length(self.pad_mode, h, self.kernel_size[0], self.stride[0],
                               self.dilation[0], p[0] + p[1]),
                _deconv_length(self.pad_mode, w, self.kernel_size[1], self.stride[1],
                               self.dilation[1], p[2] + p[3]))

    def _transpose(self, x):
        n, _, h, w = x.shape
        ho, wo = self._out_hw(h, w)
        out = ops.conv2d_backprop_input(x, self.weight, (n, self.out_channels, ho, wo),
                                        self.stride, self.pad_mode, self._pad4, self.dilation,
                                        self.group)
        out = self._add_bias(out)
        if self._out_pad[0] or self._out_pad[1]:
            out = ops.pad(out, (0, self._out_pad[1], 0, self._out_pad[0]))
        return out

    def construct(self, x):
        return self._transpose(x)


class Conv1dTranspose(Conv2dTranspose):
    """1-D transposed convolution over (N, C_in, L); weight (C_in, C_out / group, 1, k)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        k, s, d, pad, weight_init = _conv1d_args(kernel_size, stride, dilation, padding,
                                                 weight_init, "Conv1dTranspose")
        super().__init__(in_channels, out_channels, k, s, pad_mode, pad, 0, d, group, has_bias,
                         weight_init, bias_init, dtype)
        self.padding = padding

    def construct(self, x):
        return ops.squeeze(self._transpose(ops.expand_dims(x, 2)), 2)


def _triple(v, name, cls):
    t = (v,) * 3 if isinstance(v, int) else tuple(v)
    if len(t) != 3 or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 1 for i in t):
        raise ValueError(f"For '{cls}', '{name}' must be a positive int or 3 of them, got {v!r}.")
    return tuple(int(i) for i in t)


def _pad6(padding, pad_mode, cls):
    p = (padding,) * 6 if isinstance(padding, int) else tuple(padding)
    if len(p) != 6 or not all(isinstance(i, int) and i >= 0 for i in p):
        raise ValueError(f"For '{cls}', 'padding' must be an int >= 0 or 6 of them, got "
                         f"{padding!r}.")
    if pad_mode != "pad" and any(p):
        raise ValueError(f"For '{cls}', 'padding' must be 0 unless pad_mode='pad', got "
                         f"{padding!r}.")
    return p


def _conv3d(x, weight, stride, pad_mode, padding, dilation, group):
    """3-D convolution (NCDHW) as the sum over depth taps of 2-D convolutions."""
    n, c, d, h, w = x.shape
    kd = weight.shape[2]
    sd, sh, sw = stride
    dd, dh, dw = dilation
    if pad_mode == "same":
        total = max((-(-d // sd) - 1) * sd + (kd - 1) * dd + 1 - d, 0)
        front, back = total // 2, total - total // 2
    elif pad_mode == "pad":
        front, back = padding[0], padding[1]
    else:
        front, back = 0, 0
    if front or back:
        x = ops.pad(x, (0, 0, 0, 0, front, back))
    out_d = (d + front + back - (kd - 1) * dd - 1) // sd + 1
    if out_d < 1:
        raise ValueError(f"For 'Conv3d', the input depth {d} is smaller than the dilated kernel "
                         f"depth {(kd - 1) * dd + 1}")
    out = None
    for i in range(kd):
        xs = x[:, :, i * dd:i * dd + sd * (out_d - 1) + 1:sd]
        xs = ops.reshape(ops.transpose(xs, (0, 2, 1, 3, 4)), (n * out_d, c, h, w))
        y = ops.conv2d(xs, weight[:, :, i], None, (sh, sw), pad_mode,
                       tuple(padding[2:]) if pad_mode == "pad" else 0, (dh, dw), group)
        out = y if out is None else out + y
    out = ops.reshape(out, (n, out_d) + tuple(out.shape[1:]))
    return ops.transpose(out, (0, 2, 1, 3, 4))


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W) (mindspore.nn.Conv3d); `padding`:
    an int or (head, tail, top, bottom, left, right) with pad_mode='pad'."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        cls = "Conv3d"
        if data_format != "NCDHW":
            raise ValueError("Conv3d: only data_format='NCDHW' is supported")
        super().__init__(in_channels, out_channels, _triple(kernel_size, "kernel_size", cls),
                         _triple(stride, "stride", cls), pad_mode, _pad6(padding, pad_mode, cls),
                         _triple(dilation, "dilation", cls), group, has_bias, weight_init,
                         bias_init, dtype)

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'Conv3d', the input must be 5-D (N, C, D, H, W), got shape "
                             f"{tuple(x.shape)}")
        out = _conv3d(x, self.weight, self.stride, self.pad_mode, self.padding, self.dilation,
                      self.group)
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1, 1))
        return out
