"""Reductions: reduce_{sum,mean,max,min,prod}, argmax, argmin.

Each reduction is one linalg.generic whose reduced loops are "reduction"
iterators, writing into a linalg.fill of the identity; the output drops the
reduced dims, and keep_dims re-inserts them as unit dims with
tensor.expand_shape. f16/bf16 sums, means and products accumulate in f32 and
are rounded once at the end. argmax/argmin carry (value, index) through a
two-output generic and keep the first index of the extremum (numpy).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg

from . import builders as B
from . import lowering
from .elementwise import (add, attr, c, cmpf, cmpi, compute_type, is_float, maximum,
                          minimum, mul, operands, result_type, select, to_float)


def norm_axes(axes, rank: int) -> list[int]:
    """Sorted non-negative axes; empty means all."""
    if not axes:
        return list(range(rank))
    return sorted({a + rank if a < 0 else a for a in axes})


def reduce_generic(x: ir.Value, axes: list[int], acc_elem: ir.Type, init_value,
                   combine) -> ir.Value:
    """linalg.generic reducing x over `axes` (normalized) into a tensor of the
    kept dims with element type acc_elem, initialised to init_value;
    combine(x_elem, acc) -> new acc."""
    xt = B.tensor_type(x)
    rank = xt.rank
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [xt.shape[d] for d in kept]
    init = B.fill(out_shape, acc_elem, init_value)
    iterators = ["reduction" if d in axes else "parallel" for d in range(rank)]
    return B.generic([x], [list(range(rank))], out_shape, [acc_elem],
                     lambda a, acc: combine(a, acc),
                     iterators=iterators, out_dims=[kept], inits=[init])[0]


def keep_dims(v: ir.Value, op, rank: int, axes: list[int]) -> ir.Value:
    """Reshapes the reduced value to the op's result type (unit dims for the
    reduced axes when keep_dims)."""
    rt = result_type(op)
    if attr(op, "keep_dims", False):
        kept = [d for d in range(rank) if d not in axes]
        return B.expand_unit_dims(v, list(rt.shape), kept)
    return v


def _map_tensor(v: ir.Value, elem: ir.Type, fn) -> ir.Value:
    """Elementwise fn over v producing elem."""
    vt = B.tensor_type(v)
    return B.elementwise([v], ir.RankedTensorType.get(list(vt.shape), elem), fn)


def _extreme(t: ir.Type, largest: bool):
    if is_float(t):
        return float("inf") if largest else float("-inf")
    w = ir.IntegerType(t).width
    return (1 << (w - 1)) - 1 if largest else -(1 << (w - 1))


# Float sums and means over at least this many elements accumulate in f64: a
# long f32 sum drifts (3e7 x 0.1f summed in f32 gave 2,964,896; numpy's
# pairwise sum 3,000,000.75). Such reductions are memory-bound, so the wider
# accumulator costs little; shorter ones (rows of softmax/layernorm) keep the
# input's precision, where the vectorized lanes already bound the error like
# numpy's blocked summation.
LONG_REDUCTION = 8192


def _lower_reduce(op, kind: str):
    x = operands(op)[0]
    xt = B.tensor_type(x)
    elem = xt.element_type
    axes = norm_axes(attr(op, "axes", []), xt.rank)
    if kind in ("max", "min"):
        init = _extreme(elem, largest=(kind == "min"))
        fn = maximum if kind == "max" else minimum
        r = reduce_generic(x, axes, elem, init, fn)
        return keep_dims(r, op, xt.rank, axes)

    count = 1
    for d in axes:
        count *= xt.shape[d]
    if kind == "mean" and not is_float(elem):
        acc = ir.IntegerType.get_signless(64)  # exact integer sum, then truncating division
    elif kind in ("sum", "mean") and is_float(elem) and count >= LONG_REDUCTION:
        acc = ir.F64Type.get()                 # see LONG_REDUCTION
    else:
        acc = compute_type(elem)

    def widen(a):
        if a.type == acc:
            return a
        return to_float(a, acc) if is_float(acc) else arith.extsi(acc, a)

    if kind == "prod":
        r = reduce_generic(x, axes, acc, 1, lambda a, s: mul(widen(a), s))
    else:
        r = reduce_generic(x, axes, acc, 0, lambda a, s: add(widen(a), s))
    if kind == "mean":
        if is_float(acc):
            r = _map_tensor(r, elem,
                            lambda s: to_float(arith.divf(s, c(acc, float(count))), elem))
        else:
            n = max(count, 1)  # an empty reduction sums to 0; avoid dividing by 0
            r = _map_tensor(r, elem, lambda s: arith.trunci(elem, arith.divsi(s, c(acc, n)))
                            if elem != acc else arith.divsi(s, c(acc, n)))
    elif acc != elem:
        r = _map_tensor(r, elem, lambda s: to_float(s, elem))
    return keep_dims(r, op, xt.rank, axes)


@lowering("mindir.reduce_sum")
def lower_reduce_sum(op):
    return _lower_reduce(op, "sum")


@lowering("mindir.reduce_mean")
def lower_reduce_mean(op):
    return _lower_reduce(op, "mean")


@lowering("mindir.reduce_max")
def lower_reduce_max(op):
    return _lower_reduce(op, "max")


@lowering("mindir.reduce_min")
def lower_reduce_min(op):
    return _lower_reduce(op, "min")


@lowering("mindir.reduce_prod")
def lower_reduce_prod(op):
    return _lower_reduce(op, "prod")


def _lower_arg(op, is_max: bool):
    x = operands(op)[0]
    xt = B.tensor_type(x)
    elem = xt.element_type
    rank = xt.rank
    axis = attr(op, "axis", -1)
    axis = axis + rank if axis < 0 else axis
    kept = [d for d in range(rank) if d != axis]
    out_shape = [xt.shape[d] for d in kept]
    i32 = ir.IntegerType.get_signless(32)
    val_init = B.fill(out_shape, elem, _extreme(elem, largest=not is_max))
    idx_init = B.fill(out_shape, i32, 0)

    def body(a, best, best_idx):
        t = a.type
        if is_float(t):
            # Strictly better, or the first NaN (numpy returns the first NaN).
            better = cmpf("OGT" if is_max else "OLT", a, best)
            first_nan = arith.andi(cmpf("UNO", a, a), cmpf("ORD", best, best))
            take = arith.ori(better, first_nan)
        else:
            take = cmpi("sgt" if is_max else "slt", a, best)
        i = arith.index_cast(i32, linalg.IndexOp(axis).result)
        return [select(take, a, best), select(take, i, best_idx)]

    iterators = ["reduction" if d == axis else "parallel" for d in range(rank)]
    _, idx = B.generic([x], [list(range(rank))], out_shape, [elem, i32], body,
                       iterators=iterators, out_dims=[kept, kept],
                       inits=[val_init, idx_init])
    return keep_dims(idx, op, rank, [axis])


@lowering("mindir.argmax")
def lower_argmax(op):
    return _lower_arg(op, True)


@lowering("mindir.argmin")
def lower_argmin(op):
    return _lower_arg(op, False)
