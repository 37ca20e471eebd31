"""msmlir-make-shardable: the ops of a train step that MLIR 22's shard passes
cannot shard -> equivalent `linalg.generic`s, which they can.

1. `tensor.expand_shape` / `collapse_shape` that only add or drop unit dims.
Upstream `sharding-propagation` fails on every op without a
ShardingInterface ("'tensor.expand_shape' op sharding interface is not
implemented", docs/known-issues.md §17), and the tensor reshapes have none.
A train step has such reshapes wherever a reduction keeps its dims (the
softmax cross-entropy's row max and sum, the labels' one-hot). As linalg
copies with projected indexing maps they are sharded like any elementwise
op. Run right before msmlir-shard-partition (a later canonicalize does not
turn them back; they fuse or lower as plain copies):

    %e = tensor.expand_shape %x [[0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
becomes
    %e = linalg.generic {indexing_maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)],
                         iterator_types = ["parallel", "parallel"]} ins(%x) outs(%empty)

and a collapse reads (d0, d1) -> (d0, d1) and writes (d0, d1) -> (d0), its
dropped unit dim a reduction of extent 1. Other reshapes are left alone
(propagation then reports them at their location).

2. Non-splat `arith.constant` tensors that are a ramp along one dim
(`b + a * i_d`, e.g. the class indices [0, 1, ..., 9] a sparse
cross-entropy compares its labels with): arith.constant's ShardingInterface
partitions splat constants only and fails silently on the others (known-issues
§18); a generic computing `b + a * linalg.index d` is shardable. Other
constants are left alone.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg

from ..kernel.builders import empty, generic
from ..registry import register_pass


def _groups(op: ir.Operation) -> list[list[int]]:
    return [[ir.IntegerAttr(d).value for d in ir.ArrayAttr(g)]
            for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _kept_dims(groups, big_shape, small_shape) -> list[int] | None:
    """Per dim of the small shape, the dim of its group in the big shape that
    carries it (every other dim of the group has extent 1), or None."""
    kept = []
    for g, size in zip(groups, small_shape):
        non_unit = [d for d in g if big_shape[d] != 1]
        if len(non_unit) > 1 or (non_unit and big_shape[non_unit[0]] != size):
            return None
        kept.append(non_unit[0] if non_unit else g[0])
    return kept


def _rewrite(op: ir.Operation) -> bool:
    src, res = op.operands[0], op.results[0]
    st, rt = ir.RankedTensorType(src.type), ir.RankedTensorType(res.type)
    if not (st.has_static_shape and rt.has_static_shape):
        return False
    expand = op.name == "tensor.expand_shape"
    big, small = (rt, st) if expand else (st, rt)
    kept = _kept_dims(_groups(op), list(big.shape), list(small.shape))
    if kept is None:
        return False
    n = big.rank
    full = ir.AffineMap.get_identity(n)
    proj = ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in kept])
    with op.location, ir.InsertionPoint(op):
        init = empty(list(rt.shape), rt.element_type)
        if expand:
            out = generic([src], [proj], init, full, ["parallel"] * n, lambda a, o: a[0])
        else:
            iters = ["parallel" if d in kept else "reduction" for d in range(n)]
            out = generic([src], [full], init, proj, iters, lambda a, o: a[0])
    res.replace_all_uses_with(out)
    op.erase()
    return True


def _ramp(a: np.ndarray):
    """(dim, start, step) when a == start + step * index along dim, else None."""
    for d in range(a.ndim):
        if a.shape[d] < 2:
            continue
        idx = np.arange(a.shape[d]).reshape([-1 if k == d else 1 for k in range(a.ndim)])
        start = a.reshape(-1)[0]
        step = np.take(a, 1, axis=d).reshape(-1)[0] - start
        if np.array_equal(a, np.broadcast_to(start + step * idx, a.shape).astype(a.dtype)):
            return d, start.item(), step.item()
    return None


def _rewrite_constant(op: ir.Operation) -> bool:
    t = op.results[0].type
    if not isinstance(t, ir.RankedTensorType):
        return False
    rt = ir.RankedTensorType(t)
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or ir.DenseElementsAttr(attr).is_splat:
        return False
    elem = rt.element_type
    is_int = isinstance(elem, ir.IntegerType)
    if not (is_int or isinstance(elem, (ir.F32Type, ir.F64Type))):
        return False
    try:
        a = np.array(attr)
    except (TypeError, ValueError):
        return False
    ramp = _ramp(a.reshape(rt.shape))
    if ramp is None:
        return False
    d, start, step = ramp
    n = rt.rank

    def body(args, out):
        i = arith.index_cast(elem if is_int else ir.IntegerType.get_signless(64),
                             linalg.IndexOp(d).result)
        if not is_int:
            i = arith.sitofp(elem, i)
        attr_of = (lambda v: ir.IntegerAttr.get(elem, int(v))) if is_int else \
            (lambda v: ir.FloatAttr.get(elem, float(v)))
        mul, add = (arith.muli, arith.addi) if is_int else (arith.mulf, arith.addf)
        scaled = mul(i, arith.constant(elem, attr_of(step)))
        return add(scaled, arith.constant(elem, attr_of(start)))
    with op.location, ir.InsertionPoint(op):
        init = empty(list(rt.shape), elem)
        out = generic([], [], init, ir.AffineMap.get_identity(n), ["parallel"] * n, body)
    op.results[0].replace_all_uses_with(out)
    op.erase()
    return True


def _walk(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name in ("tensor.expand_shape", "tensor.collapse_shape",
                                  "arith.constant"):
                    out.append(inner)
                _walk(inner, out)


@register_pass("msmlir-make-shardable",
               "unit-dim tensor reshapes and ramp constants -> linalg.generic "
               "(ops MLIR 22's shard passes cannot shard)")
def make_shardable(module: ir.Operation):
    ops: list = []
    _walk(module, ops)
    for op in ops:
        if op.name == "arith.constant":
            _rewrite_constant(op)
        else:
            _rewrite(op)
