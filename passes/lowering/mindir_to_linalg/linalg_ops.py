"""Linear algebra: matmul, batch_matmul, bias_add.

matmul and batch_matmul become the named linalg.matmul / linalg.batch_matmul
(transposed operands through the ops' indexing_maps, no transpose copy), into a
linalg.fill of zero. f16/bf16 products accumulate in f32 and are rounded once.
batch_matmul broadcasts each operand to the result's batch shape
(linalg.broadcast, only where needed), collapses the batch dims into one, and
expands the result back.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from . import builders as B
from . import lowering
from .elementwise import add, attr, compute_type, operands, result_type, to_float


def _maps(n_loops: int, exprs: list[list[int]]) -> list[ir.AffineMap]:
    return [ir.AffineMap.get(n_loops, 0, [ir.AffineDimExpr.get(d) for d in e]) for e in exprs]


def _round_to(v: ir.Value, elem: ir.Type) -> ir.Value:
    vt = B.tensor_type(v)
    if vt.element_type == elem:
        return v
    return B.elementwise([v], ir.RankedTensorType.get(list(vt.shape), elem),
                         lambda s: to_float(s, elem))


@lowering("mindir.matmul")
def lower_matmul(op):
    a, b = operands(op)
    ta, tb = attr(op, "transpose_a", False), attr(op, "transpose_b", False)
    rt = result_type(op)
    acc = compute_type(rt.element_type)
    init = B.fill(list(rt.shape), acc, 0)
    maps = None
    if ta or tb:  # loops (m, n, k)
        maps = _maps(3, [[2, 0] if ta else [0, 2], [1, 2] if tb else [2, 1], [0, 1]])
    r = linalg.matmul(a, b, outs=[init], indexing_maps=maps)
    return _round_to(r, rt.element_type)


@lowering("mindir.batch_matmul")
def lower_batch_matmul(op):
    a, b = operands(op)
    ta, tb = attr(op, "transpose_a", False), attr(op, "transpose_b", False)
    rt = result_type(op)
    batch = list(rt.shape[:-2])
    nb = len(batch)
    # Broadcast both operands to the result's batch dims, then fold the batch
    # dims into one.
    groups = [list(range(nb))] + [[nb], [nb + 1]]
    flat = []
    for v in (a, b):
        shape = list(B.tensor_type(v).shape)
        v = B.broadcast_to(v, batch + shape[-2:])
        flat.append(B.collapse_dims(v, groups) if nb != 1 else v)
    nbatch = 1
    for d in batch:
        nbatch *= d
    acc = compute_type(rt.element_type)
    init = B.fill([nbatch] + list(rt.shape[-2:]), acc, 0)
    maps = None
    if ta or tb:  # loops (batch, m, n, k)
        maps = _maps(4, [[0, 3, 1] if ta else [0, 1, 3], [0, 2, 3] if tb else [0, 3, 2],
                         [0, 1, 2]])
    r = linalg.batch_matmul(flat[0], flat[1], outs=[init], indexing_maps=maps)
    r = _round_to(r, rt.element_type)
    if nb != 1:
        out = ir.RankedTensorType.get(list(rt.shape), rt.element_type)
        r = tensor.ExpandShapeOp(out, r, B.reassociation(groups), [],
                                 ir.DenseI64ArrayAttr.get(list(rt.shape))).result
    return r


@lowering("mindir.bias_add")
def lower_bias_add(op):
    x, bias = operands(op)
    rt = result_type(op)
    rank = rt.rank
    channel = 1 if attr(op, "data_format", "NCHW") == "NCHW" else rank - 1
    return B.generic([x, bias], [list(range(rank)), [channel]], list(rt.shape),
                     [rt.element_type], lambda u, v, _out: add(u, v))[0]
