"""Integer bitwise mindir ops -> linalg.generic with arith bodies.

and/or/xor/not map to arith.andi/ori/xori. arith's shifts are poison for a
shift amount outside [0, bit width), so the shifts select numpy's results
there instead: 0 for left_shift, and for the arithmetic right_shift the sign
fill (0, or -1 for a negative value).
"""
from __future__ import annotations

from mlir.dialects import arith

from . import lowering
from .elementwise import _ew, c, cmpi, operands, select, width


def _shift_in_range(y):
    t = y.type
    return arith.andi(cmpi("sge", y, c(t, 0)), cmpi("slt", y, c(t, width(t))))


def _left_shift(x, y):
    t = x.type
    ok = _shift_in_range(y)
    return select(ok, arith.shli(x, select(ok, y, c(t, 0))), c(t, 0))


def _right_shift(x, y):
    t = x.type
    ok = _shift_in_range(y)
    fill = arith.shrsi(x, c(t, width(t) - 1))          # 0 or -1: the sign
    return select(ok, arith.shrsi(x, select(ok, y, c(t, 0))), fill)


_BINARY = {
    "mindir.bitwise_and": arith.andi,
    "mindir.bitwise_or": arith.ori,
    "mindir.bitwise_xor": arith.xori,
    "mindir.left_shift": _left_shift,
    "mindir.right_shift": _right_shift,
}


@lowering(*_BINARY)
def lower_bitwise_binary(op):
    return _ew(op, operands(op), _BINARY[op.operation.name])


@lowering("mindir.bitwise_not")
def lower_bitwise_not(op):
    return _ew(op, operands(op), lambda x: arith.xori(x, c(x.type, -1)))
