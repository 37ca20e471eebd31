"""Small IR builders shared by the kernel DSL and kernel-level AD.

Everything builds at the current insertion point and location.
"""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from .expr import FLOAT_TYPES
from .structure import bare_dims


def tensor_type(v_or_t) -> ir.RankedTensorType:
    t = v_or_t.type if isinstance(v_or_t, ir.Value) else v_or_t
    return ir.RankedTensorType(t)


def iterator_types(kinds: Sequence[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in kinds])


def scalar_constant(value: float, elem: ir.Type) -> ir.Value:
    if str(elem) in FLOAT_TYPES:
        a = ir.FloatAttr.get(elem, float(value))
    else:
        a = ir.IntegerAttr.get(elem, int(value))
    return arith.ConstantOp(elem, a).result


def empty(shape: Sequence[int], elem: ir.Type) -> ir.Value:
    return tensor.EmptyOp(list(shape), elem).result


def filled(t: ir.RankedTensorType, value: float) -> ir.Value:
    """tensor.empty + linalg.fill with a scalar constant."""
    e = empty(t.shape, t.element_type)
    c = scalar_constant(value, t.element_type)
    return linalg.fill(c, outs=[e])


def splat_constant(t: ir.RankedTensorType, value: float) -> ir.Value:
    """arith.constant dense<value> (outside kernels, e.g. a structurally zero gradient)."""
    attr = ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(t.element_type, float(value)))
    return arith.ConstantOp(t, attr).result


def shape_operand(n_dims: int, extents: Sequence[int], maps: Sequence[ir.AffineMap]):
    """(value, map) of a `tensor.empty` operand that fixes the range of every loop
    dim no operand map exposes as a bare result (e.g. k of `x[i + k]`), or None.

    linalg infers loop ranges from operand shapes through bare-dim results only,
    so a dim used only inside compound index expressions needs such an operand;
    its block argument is unused (i8 elements, so it costs little)."""
    covered = set()
    for m in maps:
        covered |= bare_dims(m)
    missing = [d for d in range(n_dims) if d not in covered]
    if not missing:
        return None
    v = empty([extents[d] for d in missing], ir.IntegerType.get_signless(8))
    m = ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in missing])
    return v, m


def generic(inputs: Sequence[ir.Value], in_maps: Sequence[ir.AffineMap], init: ir.Value,
            out_map: ir.AffineMap, iterators: Sequence[str],
            body: Callable[[list[ir.Value], ir.Value], ir.Value]) -> ir.Value:
    """One linalg.generic with one tensor result; `body(input_args, out_arg)`
    builds the scalar body and returns the value to yield."""
    maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in list(in_maps) + [out_map]])
    op = linalg.GenericOp([init.type], list(inputs), [init], maps, iterator_types(iterators))
    elems = [tensor_type(v).element_type for v in list(inputs) + [init]]
    block = op.regions[0].blocks.append(*elems)
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        y = body(args[:-1], args[-1])
        linalg.YieldOp([y])
    return op.result
