"""nn.MatMul (mindspore.nn, layer/math.py): matmul of the last two dims with
optional transposes, batch dims broadcast."""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ..cell import Cell

__all__ = ["MatMul"]


def _t(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return ops.transpose(x, perm)


class MatMul(Cell):
    def __init__(self, transpose_x1=False, transpose_x2=False, dtype=mstype.float32):
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)
        self.dtype = dtype

    def construct(self, x1, x2):
        if x1.ndim < 1 or x2.ndim < 1:
            raise ValueError("For 'MatMul', the inputs must have at least one dimension")
        if self.transpose_x1 and x1.ndim >= 2:
            x1 = _t(x1)
        if self.transpose_x2 and x2.ndim >= 2:
            x2 = _t(x2)
        return ops.cast(ops.matmul(x1, x2), self.dtype)
