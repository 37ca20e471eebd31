"""bprops of depend/assign, the non-differentiable ops (listed explicitly),
and the tensor-dialect ops the loop backward uses (so that a function holding
a differentiated loop can itself be differentiated)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from msmlir.dialects import mindir

from . import emit as E
from .activity import AutodiffError
from .registry import register_bprop as bprop, register_non_differentiable

# --- non-differentiable: results carry no gradient (explicit, not by omission) ------

register_non_differentiable(
    "mindir.equal", "mindir.not_equal", "mindir.less", "mindir.less_equal",
    "mindir.greater", "mindir.greater_equal",
    reason="comparison (bool result)")
register_non_differentiable(
    "mindir.logical_and", "mindir.logical_or", "mindir.logical_not",
    reason="logical op (bool operands and result)")
register_non_differentiable("mindir.isnan", "mindir.isfinite", reason="predicate (bool result)")
register_non_differentiable(
    "mindir.bitwise_and", "mindir.bitwise_or", "mindir.bitwise_xor", "mindir.left_shift",
    "mindir.right_shift", "mindir.bitwise_not", reason="integer bitwise op (integer result)")
register_non_differentiable("mindir.argmax", "mindir.argmin", reason="index result (i32)")
register_non_differentiable(
    "mindir.floor", "mindir.ceil", "mindir.round", "mindir.sign", "mindir.floordiv",
    reason="piecewise constant: zero derivative almost everywhere")
register_non_differentiable("mindir.stop_gradient", reason="stop_gradient: gradient is zero")
register_non_differentiable(
    "mindir.random_uniform", "mindir.random_normal",
    reason="random source (no differentiable operand)")
register_non_differentiable(
    "mindir.constant", "mindir.fill", "mindir.arange", "mindir.zeros_like", "mindir.ones_like",
    reason="creation op: the result does not depend on operand values")
register_non_differentiable(
    "tensor.empty", "tensor.dim", "linalg.fill",
    reason="creation op: the result does not depend on operand values")
# Casts: float -> float carries the gradient (rule in bprop_math); a cast to an
# integer or bool type has a non-float result and so never carries one, and a
# cast from an integer has no varied operand (activity analysis).
# one_hot: the indices are integers (no gradient); on/off values have a rule.
# gather: the indices are integers (no gradient).


# --- JIT Fallback ---------------------------------------------------------------------

@bprop("mindir.host_callback")
def _host_callback(op, d):
    """Python run by the interpreter has no derivative: a clear error, not a silent zero."""
    if all(g is None for g in d):
        return [None] * len(op.operation.operands)
    origin = ir.StringAttr(op.operation.attributes["origin"]).value
    raise AutodiffError(f"mindir-autodiff: no gradient through {origin}: it runs in the Python "
                        f"interpreter at run time (JIT Fallback); compute it with msmlir.ops / "
                        f"msmlir.numpy, or cut the gradient with ops.stop_gradient",
                        op.operation.location)


# --- ordering and state -------------------------------------------------------------

@bprop("mindir.depend")
def _depend(op, d):
    return [d[0]] + [None] * (len(op.operation.operands) - 1)


@bprop("mindir.sharding_hint")
def _sharding_hint(op, d):
    # an identity; the gradient gets the same layout (msmlir.parallel: Cell.shard),
    # a Layout's mesh axes included
    hint = mindir.ShardingHintOp(d[0], op.attributes["strategy"])
    for key in ("mindir.layout", "mindir.device_matrix"):
        if key in op.attributes:
            hint.attributes[key] = op.attributes[key]
    return [hint.result]


@bprop("mindir.assign")
def _assign(op, d):
    # the result is the assigned value; the old contents of the variable are lost
    return [None, d[0]]


# --- tensor dialect (loop stacks) ---------------------------------------------------

def _slice_operands(op, first_dyn: int):
    """(dynamic offsets/sizes/strides operands, static attrs) of a slice op."""
    attrs = op.operation.attributes
    ops = list(op.operation.operands)[first_dyn:]
    seg = list(ir.DenseI32ArrayAttr(attrs["operandSegmentSizes"]))
    no, ns, nst = seg[-3:]
    return (ops[:no], ops[no:no + ns], ops[no + ns:no + ns + nst],
            attrs["static_offsets"], attrs["static_sizes"], attrs["static_strides"])


def _insert_slice(src, dest, parts):
    offs, sizes, strides, so, ss, sst = parts
    return tensor.InsertSliceOp(src, dest, offs, sizes, strides, so, ss, sst).result


def _extract_slice(t, src, parts):
    offs, sizes, strides, so, ss, sst = parts
    return tensor.ExtractSliceOp(t, src, offs, sizes, strides, so, ss, sst).result


@bprop("tensor.extract_slice")
def _extract_slice_bprop(op, d):
    src = op.operation.operands[0]
    parts = _slice_operands(op, 1)
    n = 1 + sum(len(p) for p in parts[:3])
    return [_insert_slice(d[0], E.zeros_like(src), parts)] + [None] * (n - 1)


@bprop("tensor.insert_slice")
def _insert_slice_bprop(op, d):
    src, dest = list(op.operation.operands)[:2]
    parts = _slice_operands(op, 2)
    n = 2 + sum(len(p) for p in parts[:3])
    dsrc = _extract_slice(src.type, d[0], parts)
    ddest = _insert_slice(E.zeros_like(src), d[0], parts)
    return [dsrc, ddest] + [None] * (n - 2)


@bprop("tensor.extract")
def _extract_bprop(op, d):
    t = op.operation.operands[0]
    idx = list(op.operation.operands)[1:]
    return [tensor.InsertOp(d[0], E.zeros_like(t), idx).result] + [None] * len(idx)


@bprop("tensor.insert")
def _insert_bprop(op, d):
    scalar, dest = list(op.operation.operands)[:2]
    idx = list(op.operation.operands)[2:]
    ds = tensor.ExtractOp(d[0], idx).result
    dd = tensor.InsertOp(E.scalar_constant(scalar.type, 0), d[0], idx).result
    return [ds, dd] + [None] * len(idx)


@bprop("linalg.add")
def _linalg_add(op, d):
    return [d[0], d[0], None]
