"""Conv2d (mindspore.nn.Conv2d; defaults pad_mode='same', has_bias=False)."""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ..cell import Cell
from . import _init

__all__ = ["Conv2d"]


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(i) for i in v)


class Conv2d(Cell):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError("Conv2d: only data_format='NCHW' is supported")
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"Conv2d: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if pad_mode != "pad" and padding not in (0, (0, 0, 0, 0)):
            raise ValueError("Conv2d: padding must be 0 unless pad_mode='pad'")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.dilation = _pair(dilation)
        self.pad_mode = pad_mode
        self.padding = padding
        self.group = int(group)
        self.has_bias = bool(has_bias)
        shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        self.weight = _init.weight(weight_init, shape, "weight", dtype)
        if self.has_bias:
            fan_in = (self.in_channels // self.group) * self.kernel_size[0] * self.kernel_size[1]
            self.bias = _init.bias(bias_init, (self.out_channels,), fan_in, "bias", dtype)

    def construct(self, x):
        out = ops.conv2d(x, self.weight, None, self.stride, self.pad_mode, self.padding,
                         self.dilation, self.group)
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"has_bias={self.has_bias}")
