"""IR helpers for the bprop rules: type and attribute queries, constants, and
the compositions rules share (sum_to, unreduce, where, scale, ...).

A single op is built with its generated builder (`mindir.add(a, b)`,
`mindir.reduce_sum(x, axes=i64s(axes), keep_dims=boolattr(k))`). Every
builder works at the current insertion point and location (the autodiff
engine sets both around each rule), infers result types through the ops' C++
inference, and returns an `ir.Value`. The backward pass is therefore plain
mindir that CSE/canonicalize/fusion optimise like the forward.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from msmlir.dialects import mindir
from msmlir.dialects.enums import enum_name, is_enum_attr

DYN = ir.ShapedType.get_dynamic_size()


# --- types and attributes ---------------------------------------------------------

def ttype(v) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type if isinstance(v, ir.Value) else v)


def shape(v) -> list[int]:
    return list(ttype(v).shape)


def rank(v) -> int:
    return ttype(v).rank


def elem(v) -> ir.Type:
    return ttype(v).element_type


def numel(v) -> int:
    return math.prod(shape(v))


def is_float_type(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def is_static_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape


def is_diff_type(t: ir.Type) -> bool:
    """Types that carry gradients: float tensors and float scalars."""
    if isinstance(t, ir.RankedTensorType):
        return is_float_type(ir.RankedTensorType(t).element_type)
    return is_float_type(t)


def i64s(vals) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in vals])


def i64(v: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))


def f64(v: float) -> ir.FloatAttr:
    return ir.FloatAttr.get(ir.F64Type.get(), float(v))


def boolattr(v: bool) -> ir.BoolAttr:
    return ir.BoolAttr.get(bool(v))


def attr(op, name: str, default=None):
    """Python value of an attribute of `op` (ints, floats, bools, strings,
    i64 arrays; the case name, a str, of an enum attribute such as
    #mindir.pad_mode<same>), or `default` when it is absent."""
    attrs = op.operation.attributes
    if name not in attrs:
        return default
    a = attrs[name]
    if is_enum_attr(a):
        return enum_name(a)
    for cls, get in ((ir.DenseI64ArrayAttr, lambda x: list(x)),
                     (ir.BoolAttr, lambda x: x.value),
                     (ir.IntegerAttr, lambda x: x.value),
                     (ir.FloatAttr, lambda x: x.value),
                     (ir.StringAttr, lambda x: x.value)):
        if isinstance(a, cls):
            return get(a)
        try:
            return get(cls(a))
        except (ValueError, TypeError):
            continue
    return a


def norm_axis(axis: int, r: int) -> int:
    return axis + r if axis < 0 else axis


# --- creation -----------------------------------------------------------------------

def scalar(value: float, like) -> ir.Value:
    """A 0-d mindir.constant of `like`'s element type (broadcasts against anything)."""
    et = elem(like) if not isinstance(like, ir.Type) else like
    t = ir.RankedTensorType.get([], et)
    a = (ir.FloatAttr.get(et, float(value)) if is_float_type(et)
         else ir.IntegerAttr.get(et, int(value)))
    return mindir.ConstantOp(ir.DenseElementsAttr.get_splat(t, a)).result


def constant(array, et: ir.Type) -> ir.Value:
    """A dense mindir.constant from a numpy array (0/1 masks, selection matrices)."""
    arr = np.asarray(array, dtype=np.float64 if is_float_type(et) else np.int64)
    t = ir.RankedTensorType.get(list(arr.shape), et)
    return mindir.ConstantOp(ir.DenseElementsAttr.get(arr.astype(_np_dtype(et)), type=t)).result


def _np_dtype(et):
    return {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
            "i8": np.int8, "i32": np.int32, "i64": np.int64}[str(et)]


def zeros_like(v) -> ir.Value:
    t = v.type
    if is_static_tensor(t):
        return mindir.ZerosLikeOp(v).result
    if isinstance(t, ir.RankedTensorType):
        return fill_dynamic_like(v, 0.0)
    return scalar_constant(t, 0)


def zeros(shape_: Sequence[int], et: ir.Type) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape_), et)
    a = ir.FloatAttr.get(et, 0.0) if is_float_type(et) else ir.IntegerAttr.get(et, 0)
    return mindir.ConstantOp(ir.DenseElementsAttr.get_splat(t, a)).result


def scalar_constant(t: ir.Type, value) -> ir.Value:
    """An arith.constant scalar (index, integer or float)."""
    if is_float_type(t):
        return arith.ConstantOp(t, ir.FloatAttr.get(t, float(value))).result
    return arith.ConstantOp(t, ir.IntegerAttr.get(t, int(value))).result


def index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), int(value))).result


def fill_dynamic_like(v, value: float) -> ir.Value:
    """Zeros (or `value`) shaped like a possibly dynamically shaped tensor."""
    t = ttype(v)
    dims = [tensor.DimOp(v, index(i)).result for i, d in enumerate(t.shape) if d == DYN]
    c = scalar_constant(t.element_type, value)
    return linalg.fill(c, outs=[empty(t, dims)])


def empty(t: ir.RankedTensorType, dyn_sizes: Sequence[ir.Value] = ()) -> ir.Value:
    """tensor.empty of type t; dyn_sizes gives the dynamic dims in order."""
    sizes, k = [], 0
    for d in t.shape:
        if d == DYN:
            sizes.append(dyn_sizes[k])
            k += 1
        else:
            sizes.append(d)
    return tensor.EmptyOp(sizes, t.element_type).result


# --- elementwise ----------------------------------------------------------------

def add_any(a, b):
    """a + b for static mindir tensors, or dynamically shaped tensors (linalg.add)."""
    if is_static_tensor(a.type) and is_static_tensor(b.type):
        return mindir.add(a, b)
    if isinstance(a.type, ir.RankedTensorType):
        return linalg.add(a, b, outs=[fill_dynamic_like(a, 0.0)])
    return arith.AddFOp(a, b).result


def cast(x, et: ir.Type):
    t = ir.RankedTensorType.get(shape(x), et)
    if t == x.type:
        return x
    return mindir.CastOp(t, x).result


def cast_mask(mask, like):
    """A bool mask as 0/1 in `like`'s element type."""
    return cast(mask, elem(like))


def where(mask, g):
    """g where mask else 0 (mask broadcasts; the result has g's broadcast shape)."""
    return mindir.select(mask, g, scalar(0.0, g))


def scale(g, factor: float):
    return mindir.mul(g, scalar(factor, g))


# --- reductions and shapes ---------------------------------------------------------

def reshape(x, shape_: Sequence[int]):
    if shape(x) == list(shape_):
        return x
    return mindir.ReshapeOp(x, i64s(shape_)).result


def transpose(x, perm: Sequence[int]):
    if list(perm) == list(range(len(perm))):
        return x
    return mindir.TransposeOp(x, i64s(perm)).result


def broadcast_to(x, shape_: Sequence[int]):
    if shape(x) == list(shape_):
        return x
    return mindir.BroadcastToOp(x, i64s(shape_)).result


def slice_(x, begin: Sequence[int], size: Sequence[int]):
    if list(begin) == [0] * rank(x) and list(size) == shape(x):
        return x
    return mindir.SliceOp(x, i64s(begin), i64s(size)).result


def pad(x, paddings: Sequence[int], value: float = 0.0):
    if all(p == 0 for p in paddings):
        return x
    return mindir.PadOp(x, i64s(paddings), constant_value=f64(value)).result


def concat(xs, axis: int):
    if len(xs) == 1:
        return xs[0]
    return mindir.ConcatOp(list(xs), axis=i64(axis)).result


def one_hot(indices, depth: int, et: ir.Type):
    on, off = scalar(1.0, et), scalar(0.0, et)
    return mindir.OneHotOp(indices, on, off, i64(depth)).result


def sum_to(g, target: Sequence[int]):
    """Reduces a broadcast gradient back to `target` (NumPy broadcasting
    reversed): sums the leading extra dims and the dims that were 1."""
    gs = shape(g)
    target = list(target)
    if gs == target:
        return g
    lead = len(gs) - len(target)
    axes = list(range(lead))
    for i, d in enumerate(target):
        if d == 1 and gs[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        g = mindir.reduce_sum(g, axes=i64s(axes), keep_dims=boolattr(True))
    return reshape(g, target)


def keep_dims_shape(xshape: Sequence[int], axes: Sequence[int]) -> list[int]:
    r = len(xshape)
    ax = {norm_axis(a, r) for a in axes} if axes else set(range(r))
    return [1 if i in ax else d for i, d in enumerate(xshape)]


def unreduce(g, xshape: Sequence[int], axes: Sequence[int]):
    """Broadcasts the gradient of a reduction (with or without keep_dims) back
    to the input shape."""
    return broadcast_to(reshape(g, keep_dims_shape(xshape, axes)), xshape)


def conv_attrs(op) -> dict:
    """The window attributes of a conv2d-like op, as attributes to pass on."""
    attrs = op.operation.attributes
    return {k: attrs[k] for k in ("stride", "pad_mode", "pad", "dilation", "group") if k in attrs}


def pool_attrs(op) -> dict:
    attrs = op.operation.attributes
    return {k: attrs[k] for k in ("kernel_size", "strides", "pad_mode", "pad") if k in attrs}
