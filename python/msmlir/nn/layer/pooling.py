"""MaxPool2d, AvgPool2d (mindspore.nn; defaults kernel_size=1, stride=1, pad_mode='valid')."""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d"]


class _Pool(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, data_format="NCHW"):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError("pooling: only data_format='NCHW' is supported")
        self.kernel_size = kernel_size
        self.stride = stride
        self.pad_mode = pad_mode.lower()
        self.padding = padding

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool):
    def construct(self, x):
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.pad_mode)


class AvgPool2d(_Pool):
    def construct(self, x):
        return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.pad_mode)
