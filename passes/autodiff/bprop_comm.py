"""bprops of the collectives (MindSpore's rules): the gradient of a sum over
ranks is the sum of the ranks' cotangents, gathered and scattered dims swap.

    all_reduce(sum)          dx = all_reduce(sum, dy)
    all_gather               dx = reduce_scatter(sum, dy)
    reduce_scatter(sum)      dx = all_gather(dy)
    broadcast(root)          dx = the sum of the ranks' dy on the root, 0 elsewhere:
                             reduce_scatter(sum) of dy placed in slot `root` of N
                             zero slots (rank r keeps slot r of the sum)

all_reduce/reduce_scatter with max/min/prod have no rule: reaching one with a
gradient is an error at its location. (broadcast's rule needs the number of
ranks N, which the op does not carry: it is the running MPI job's, or the
size of the op's `group`.) The gradient's collectives run on the forward
op's group (its `group` attribute is copied).
"""
from __future__ import annotations

from msmlir.dialects import mindir
from msmlir.dialects.enums import enum_name

from . import emit as E
from .activity import AutodiffError
from .registry import register_bprop as bprop


def _only_sum(op) -> None:
    how = enum_name(op.attributes["op"]) if "op" in op.attributes else "sum"
    if how != "sum":
        raise AutodiffError(f"{op.operation.name} with op={how} has no gradient "
                            f"(only op=sum is differentiable)")


def _same_group(op, new):
    """`new`'s result, on the group of the forward `op` (if it has one)."""
    if "group" in op.attributes:
        new.operation.attributes["group"] = op.attributes["group"]
    return new.result


@bprop("mindir.all_reduce")
def _all_reduce(op, d):
    _only_sum(op)
    return [_same_group(op, mindir.AllReduceOp(d[0]))]


@bprop("mindir.all_gather")
def _all_gather(op, d):
    x = op.operation.operands[0]
    return [_same_group(op, mindir.ReduceScatterOp(x.type, d[0], op.attributes["group_size"]))]


@bprop("mindir.reduce_scatter")
def _reduce_scatter(op, d):
    _only_sum(op)
    x = op.operation.operands[0]
    return [_same_group(op, mindir.AllGatherOp(x.type, d[0], op.attributes["group_size"]))]


@bprop("mindir.broadcast")
def _broadcast(op, d):
    from msmlir.runtime import mpi
    if not mpi.initialized():
        raise AutodiffError("the gradient of mindir.broadcast needs the MPI job "
                            "(msmlir.communication.init()) to know the number of ranks")
    n, root = mpi.size(), E.attr(op, "root", 0)
    if "group" in op.attributes:
        from mlir import ir
        name = ir.StringAttr(op.attributes["group"]).value
        if mpi.group(name) is None:
            raise AutodiffError(f"the gradient of mindir.broadcast on group {name!r} needs "
                                f"the group (msmlir.communication.create_group)")
        n = mpi.group(name).size
    dy = d[0]
    shape = E.shape(dy)
    flat = E.reshape(dy, [1] + shape) if not shape else dy
    rows = E.shape(flat)[0]
    pads = [0] * (2 * len(E.shape(flat)))
    pads[0], pads[1] = root * rows, (n - 1 - root) * rows
    slots = E.pad(flat, pads)
    dx = _same_group(op, mindir.ReduceScatterOp(flat.type, slots, E.i64(n)))
    return [E.reshape(dx, shape) if not shape else dx]
