"""Shared IR builders for the mindir lowerings: broadcasting linalg.generic,
reductions, and scalar arith that picks the float or integer op."""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor


def tensor_type(v: ir.Value) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def empty(shape: Sequence[int], elem: ir.Type) -> ir.Value:
    return tensor.EmptyOp(list(shape), elem).result


def constant(elem: ir.Type, value) -> ir.Value:
    """A scalar arith.constant of `elem` type."""
    if is_float(elem):
        return arith.ConstantOp(elem, ir.FloatAttr.get(elem, float(value))).result
    return arith.ConstantOp(elem, ir.IntegerAttr.get(elem, int(value))).result


def fill(shape: Sequence[int], elem: ir.Type, value) -> ir.Value:
    init = empty(shape, elem)
    c = value if isinstance(value, ir.Value) else constant(elem, value)
    return linalg.fill(c, outs=[init])


def drop_broadcast_dims(v: ir.Value, out_shape: Sequence[int]) -> tuple[ir.Value, list[int]]:
    """Right-aligns v against out_shape; collapses away the unit dims of v that
    broadcast. Returns the collapsed value and the output dims it indexes."""
    shape = tensor_type(v).shape
    off = len(out_shape) - len(shape)
    keep = [i for i, d in enumerate(shape) if not (d == 1 and out_shape[i + off] != 1)]
    if len(keep) == len(shape):
        return v, [i + off for i in keep]
    # Group every dropped unit dim with the next kept dim (or the previous one).
    groups: list[list[int]] = []
    pending: list[int] = []
    for i in range(len(shape)):
        pending.append(i)
        if i in keep:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    elem = tensor_type(v).element_type
    new_type = ir.RankedTensorType.get([shape[i] for i in keep], elem)
    collapsed = tensor.CollapseShapeOp(new_type, v, ir.ArrayAttr.get([
        ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in g])
        for g in groups])).result
    return collapsed, [i + off for i in keep]


def generic(inputs: Sequence[ir.Value], input_dims: Sequence[Sequence[int]],
            out_shape: Sequence[int], out_elems: Sequence[ir.Type],
            body: Callable[..., Sequence[ir.Value]],
            iterators: Sequence[str] | None = None,
            out_dims: Sequence[Sequence[int]] | None = None,
            inits: Sequence[ir.Value] | None = None) -> list[ir.Value]:
    """linalg.generic over a loop nest of rank len(out_shape) (or len(iterators)).

    input_dims[i] lists the loop dims that index input i (a projected
    permutation); body(*scalars) returns the yielded scalars, where scalars are
    the input elements followed by the current output elements."""
    n = len(iterators) if iterators is not None else len(out_shape)
    iterators = iterators or ["parallel"] * n
    out_dims = out_dims or [list(range(n))] * len(out_elems)
    if inits is None:
        inits = [empty(out_shape, e) for e in out_elems]
    maps = [ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in dims])
            for dims in list(input_dims) + list(out_dims)]
    iter_attr = ir.ArrayAttr.get([
        ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators])
    op = linalg.GenericOp([ir.Value(i).type for i in inits], list(inputs), list(inits),
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), iter_attr)
    arg_types = [tensor_type(v).element_type for v in inputs] + \
                [tensor_type(v).element_type for v in inits]
    block = op.regions[0].blocks.append(*arg_types)
    with ir.InsertionPoint(block):
        results = body(*block.arguments)
        if isinstance(results, ir.Value):
            results = [results]
        linalg.YieldOp(list(results))
    return list(op.results)


def elementwise(inputs: Sequence[ir.Value], result_type: ir.RankedTensorType,
                body: Callable[..., ir.Value]) -> ir.Value:
    """Broadcasting elementwise op: body(*input_scalars) -> result scalar."""
    out_shape = list(result_type.shape)
    collapsed, dims = zip(*[drop_broadcast_dims(v, out_shape) for v in inputs]) if inputs else ((), ())
    return generic(collapsed, dims, out_shape, [result_type.element_type],
                   lambda *args: body(*args[:len(inputs)]))[0]
