"""MaxPool2d, AvgPool2d (mindspore.nn; defaults kernel_size=1, stride=1, pad_mode='valid').

MindSpore 2.x's extra arguments -- MaxPool2d(dilation, ceil_mode), AvgPool2d(
ceil_mode, count_include_pad, divisor_override) -- are computed by
`ops.window_pool2d` (the max/sum of the kernel's strided slices); the plain
cases keep the fused mindir pooling ops."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d"]


def _is_one(v):
    return v == 1 or (isinstance(v, (tuple, list)) and all(e == 1 for e in v))


class _Pool(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, data_format="NCHW"):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError("pooling: only data_format='NCHW' is supported")
        self.kernel_size = kernel_size
        self.stride = stride
        self.pad_mode = pad_mode.lower()
        self.padding = padding

    def _window_args(self):
        if self.pad_mode == "same":
            raise ValueError(f"For '{type(self).__name__}', pad_mode 'same' cannot be combined "
                             f"with dilation/ceil_mode/count_include_pad/divisor_override")
        return self.kernel_size, self.stride, self.padding if self.pad_mode == "pad" else 0

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        if return_indices:
            raise ValueError("For 'MaxPool2d', return_indices=True is not supported by msmlir")
        self.dilation = dilation
        self.ceil_mode = bool(ceil_mode)
        self._window = not _is_one(dilation) or self.ceil_mode

    def construct(self, x):
        if self._window:
            k, s, p = self._window_args()
            return ops.window_pool2d(x, k, s, p, self.dilation, self.ceil_mode, "max")
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.pad_mode)


class AvgPool2d(_Pool):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, data_format)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override
        self._window = self.ceil_mode or (not self.count_include_pad and self.padding) or \
            divisor_override is not None

    def construct(self, x):
        if self._window:
            k, s, p = self._window_args()
            return ops.window_pool2d(x, k, s, p, 1, self.ceil_mode, "avg",
                                     self.count_include_pad, self.divisor_override)
        return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.pad_mode)
