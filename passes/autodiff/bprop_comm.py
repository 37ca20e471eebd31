"""bprops of the collectives (MindSpore's rules): the gradient of a sum over
ranks is the sum of the ranks' cotangents, gathered and scattered dims swap.

    all_reduce(sum)          dx = all_reduce(sum, dy)
    all_gather               dx = reduce_scatter(sum, dy)
    reduce_scatter(sum)      dx = all_gather(dy)

all_reduce/reduce_scatter with max/min/prod, and broadcast, have no rule here:
reaching one with a gradient is an error at its location.
"""
from __future__ import annotations

from msmlir.dialects import mindir
from msmlir.dialects.enums import enum_name

from .activity import AutodiffError
from .registry import register_bprop as bprop


def _only_sum(op) -> None:
    how = enum_name(op.attributes["op"]) if "op" in op.attributes else "sum"
    if how != "sum":
        raise AutodiffError(f"{op.operation.name} with op={how} has no gradient "
                            f"(only op=sum is differentiable)")


@bprop("mindir.all_reduce")
def _all_reduce(op, d):
    _only_sum(op)
    return [mindir.AllReduceOp(d[0]).result]


@bprop("mindir.all_gather")
def _all_gather(op, d):
    x = op.operation.operands[0]
    return [mindir.ReduceScatterOp(x.type, d[0], op.attributes["group_size"]).result]


@bprop("mindir.reduce_scatter")
def _reduce_scatter(op, d):
    _only_sum(op)
    x = op.operation.operands[0]
    return [mindir.AllGatherOp(x.type, d[0], op.attributes["group_size"]).result]
