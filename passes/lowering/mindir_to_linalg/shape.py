"""Lowerings of the mindir shape ops (reshape, transpose, broadcast, slicing,
concat/split/stack, gather, tile, pad) and of assign/depend.

Static shapes only (mindir tensors are statically shaped):
- reshape/expand_dims/squeeze/flatten become tensor.collapse_shape followed by
  tensor.expand_shape (either is skipped when it would be the identity);
  every static row-major reshape of a non-empty tensor decomposes so. Tensors
  with a zero-sized dim use tensor.reshape with a constant shape operand.
- strided_slice with positive strides is a strided tensor.extract_slice; with
  a negative stride it is a linalg.generic over the result that
  tensor.extract-s x[begin + i * stride] (a reversing affine map would need a
  negative coefficient, which linalg tiling rejects).
- gather: indices of any integer type; a negative index i counts from the end
  (i + dim, as Python), then indices are CLAMPED to [0, dim - 1], so an
  out-of-range index reads the first/last slice instead of memory out of
  bounds.
- assign: `%r = bufferization.materialize_in_destination %value in %variable`
  (tensor form; the CPU pipeline bufferizes function arguments as writable
  buffers, so this writes into the parameter's buffer). The assign's result is
  %r (equal to value), not value itself: the tensor form has no side effect,
  so canonicalize erases it when its result is unused. With %r as the result
  the write survives whenever the assign's result is used (returned, read,
  ...); an assign whose result is only consumed by `depend` is still dropped
  (depend returns its value operand), which the pipeline has to handle.
- depend: its value operand.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, func, linalg, scf, tensor

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)
from msmlir.diagnostics import file_line_col
from msmlir.runtime import checks

from . import check_tensor_size, lowering
from .builders import declare_i64_function, drop_broadcast_dims, empty, fill_op, is_float, module_of, \
    tensor_type


# ----------------------------------------------------------------------------
# Helpers (also used by nn.py)
# ----------------------------------------------------------------------------


def _ints(attr) -> list[int]:
    return [int(x) for x in ir.DenseI64ArrayAttr(attr)]


def _int(attr) -> int:
    return ir.IntegerAttr(attr).value


def _shape(v: ir.Value) -> list[int]:
    return list(tensor_type(v).shape)


def _elem(v: ir.Value) -> ir.Type:
    return tensor_type(v).element_type


def _reassoc(groups) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g])
                             for g in groups])


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def reshape_groups(src: Sequence[int], dst: Sequence[int]):
    """Pairs of (src dims, dst dims) groups with equal products, covering both
    shapes in order; None when there is no such decomposition (zero-sized
    dims). Unit dims that would form a group alone on one side join a
    neighbouring group."""
    src, dst = list(src), list(dst)
    if 0 in src or 0 in dst or _prod(src) != _prod(dst):
        return None
    groups = []
    i = j = 0
    while i < len(src) or j < len(dst):
        gi, gj = [], []
        pi = pj = 1
        if i < len(src):
            gi.append(i)
            pi *= src[i]
            i += 1
        if j < len(dst):
            gj.append(j)
            pj *= dst[j]
            j += 1
        while pi != pj:
            if pi < pj:
                gi.append(i)
                pi *= src[i]
                i += 1
            else:
                gj.append(j)
                pj *= dst[j]
                j += 1
        groups.append((gi, gj))
    # Merge groups that are empty on one side (only unit dims) into a neighbour.
    merged = []
    for gi, gj in groups:
        if (not gi or not gj) and merged:
            merged[-1][0].extend(gi)
            merged[-1][1].extend(gj)
        else:
            merged.append((list(gi), list(gj)))
    if len(merged) > 1 and (not merged[0][0] or not merged[0][1]):
        first = merged.pop(0)
        merged[0] = (first[0] + merged[0][0], first[1] + merged[0][1])
    return merged


def reshape_to(v: ir.Value, shape: Sequence[int]) -> ir.Value:
    """Row-major reshape of v to a static shape: collapse_shape to the common
    coarsening, then expand_shape; tensor.reshape for zero-sized tensors."""
    src = _shape(v)
    shape = list(shape)
    elem = _elem(v)
    if src == shape:
        return v
    if not shape:                               # -> 0-d: collapse everything
        return tensor.CollapseShapeOp(ir.RankedTensorType.get([], elem), v, _reassoc([])).result
    if not src:                                 # 0-d -> all-unit shape
        return tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, elem), v, _reassoc([]), [],
                                    ir.DenseI64ArrayAttr.get(shape)).result
    groups = reshape_groups(src, shape)
    if groups is None:
        i64 = ir.IntegerType.get_signless(64)
        st = ir.RankedTensorType.get([len(shape)], i64)
        shp = arith.ConstantOp(st, ir.DenseElementsAttr.get(np.asarray(shape, dtype=np.int64),
                                                            type=st)).result
        return tensor.ReshapeOp(ir.RankedTensorType.get(shape, elem), v, shp).result
    mid = [_prod(src[d] for d in gi) for gi, _ in groups]
    cur = v
    if any(len(gi) != 1 for gi, _ in groups):
        cur = tensor.CollapseShapeOp(ir.RankedTensorType.get(mid, elem), cur,
                                     _reassoc([gi for gi, _ in groups])).result
    if any(len(gj) != 1 for _, gj in groups):
        cur = tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, elem), cur,
                                   _reassoc([gj for _, gj in groups]), [],
                                   ir.DenseI64ArrayAttr.get(shape)).result
    return cur


def _scalar_attr(elem: ir.Type, value):
    if is_float(elem):
        return ir.FloatAttr.get(elem, float(value))
    if ir.IntegerType(elem).width == 1:
        return ir.IntegerAttr.get(elem, 1 if value else 0)
    return ir.IntegerAttr.get(elem, int(value))


def pad_const(v: ir.Value, low: Sequence[int], high: Sequence[int], value) -> ir.Value:
    """tensor.pad of v with a constant (a Python number, converted to v's
    element type, or a scalar Value)."""
    shape = _shape(v)
    elem = _elem(v)
    out = [s + a + b for s, a, b in zip(shape, low, high)]
    check_tensor_size(out, elem, "the padded input")
    c = value if isinstance(value, ir.Value) else \
        arith.ConstantOp(elem, _scalar_attr(elem, value)).result
    op = tensor.PadOp(ir.RankedTensorType.get(out, elem), v, [], [],
                      ir.DenseI64ArrayAttr.get(list(low)), ir.DenseI64ArrayAttr.get(list(high)))
    block = op.regions[0].blocks.append(*([ir.IndexType.get()] * len(shape)))
    with ir.InsertionPoint(block):
        tensor.YieldOp(c)
    return op.result


def extract_slice(v: ir.Value, offsets, sizes, strides, result_shape=None) -> ir.Value:
    """Static tensor.extract_slice (result_shape for a rank-reducing slice)."""
    rt = ir.RankedTensorType.get(list(result_shape if result_shape is not None else sizes),
                                 _elem(v))
    return tensor.ExtractSliceOp(rt, v, [], [], [], ir.DenseI64ArrayAttr.get(list(offsets)),
                                 ir.DenseI64ArrayAttr.get(list(sizes)),
                                 ir.DenseI64ArrayAttr.get(list(strides))).result


def insert_slice(src: ir.Value, dest: ir.Value, offsets, sizes, strides) -> ir.Value:
    return tensor.InsertSliceOp(src, dest, [], [], [], ir.DenseI64ArrayAttr.get(list(offsets)),
                                ir.DenseI64ArrayAttr.get(list(sizes)),
                                ir.DenseI64ArrayAttr.get(list(strides))).result


def transpose_to(v: ir.Value, perm: Sequence[int]) -> ir.Value:
    """linalg.transpose: result dim i is v's dim perm[i]."""
    perm = list(perm)
    if perm == list(range(len(perm))):
        return v
    shape = _shape(v)
    init = empty([shape[p] for p in perm], _elem(v))
    return linalg.transpose(v, outs=[init], permutation=perm).results[0]


def broadcast_value(v: ir.Value, out_shape: Sequence[int]) -> ir.Value:
    """NumPy broadcast of v to out_shape: collapse v's stretched unit dims, then
    linalg.broadcast adds the missing dims."""
    if _shape(v) == list(out_shape):
        return v
    collapsed, dims = drop_broadcast_dims(v, out_shape)
    added = [d for d in range(len(out_shape)) if d not in dims]
    if not added:
        return collapsed
    return linalg.broadcast(collapsed, outs=[empty(out_shape, _elem(v))], dimensions=added).results[0]


def gather_generic(src: ir.Value, out_shape: Sequence[int], coords_fn) -> ir.Value:
    """out[i...] = src[coords_fn(i...)]: a linalg.generic over the result that
    tensor.extract-s from src. coords_fn maps the loop indices (index Values)
    to src coordinates. Used where an affine indexing map would need a
    negative coefficient (which upstream linalg tiling rejects)."""
    rank = len(out_shape)
    elem = _elem(src)
    init = empty(out_shape, elem)
    iters = ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank)
    op = linalg.GenericOp([init.type], [], [init],
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))]),
                          iters)
    block = op.regions[0].blocks.append(elem)
    with ir.InsertionPoint(block):
        i64 = ir.IntegerType.get_signless(64)
        idx = [linalg.IndexOp(ir.IntegerAttr.get(i64, d)).result for d in range(rank)]
        linalg.YieldOp([tensor.ExtractOp(src, list(coords_fn(idx))).result])
    return op.result


def index_const(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), v)).result


def _axis(a: int, rank: int) -> int:
    return a + rank if a < 0 else a


def _result_shape(op) -> list[int]:
    return list(ir.RankedTensorType(op.results[0].type).shape)


# ----------------------------------------------------------------------------
# Reshapes
# ----------------------------------------------------------------------------


@lowering("mindir.reshape", "mindir.expand_dims", "mindir.squeeze", "mindir.flatten")
def lower_reshape(op):
    return reshape_to(op.operands[0], _result_shape(op))


@lowering("mindir.transpose")
def lower_transpose(op):
    return transpose_to(op.x, _ints(op.perm))


@lowering("mindir.broadcast_to")
def lower_broadcast_to(op):
    return broadcast_value(op.x, _result_shape(op))


# ----------------------------------------------------------------------------
# Slicing
# ----------------------------------------------------------------------------


@lowering("mindir.slice")
def lower_slice(op):
    out = _result_shape(op)
    begin = _ints(op.begin)
    return extract_slice(op.x, begin, out, [1] * len(out))


@lowering("mindir.strided_slice")
def lower_strided_slice(op):
    x = op.x
    out = _result_shape(op)
    begin, strides = _ints(op.begin), _ints(op.strides)
    if all(s > 0 for s in strides) or 0 in out:
        offsets = [b if n > 0 else 0 for b, n in zip(begin, out)]
        return extract_slice(x, offsets, out, [abs(s) for s in strides])
    # A negative stride: one gather straight from x, element i of dim d at
    # begin[d] + i * strides[d] (no intermediate strided slice).

    def coords(idx):
        res = []
        for i, b, s in zip(idx, begin, strides):
            if s == 1 and b == 0:
                res.append(i)
                continue
            step = i if s == 1 else arith.MulIOp(i, index_const(abs(s))).result
            res.append(arith.AddIOp(index_const(b), step).result if s > 0
                       else arith.SubIOp(index_const(b), step).result)
        return res

    return gather_generic(x, out, coords)


@lowering("mindir.concat")
def lower_concat(op):
    inputs = list(op.inputs)
    out = _result_shape(op)
    if len(inputs) == 1:
        return inputs[0]
    axis = _axis(_int(op.axis), len(out))
    acc = empty(out, _elem(inputs[0]))
    off = 0
    for v in inputs:
        shp = _shape(v)
        offsets = [0] * len(out)
        offsets[axis] = off
        acc = insert_slice(v, acc, offsets, shp, [1] * len(out))
        off += shp[axis]
    return acc


@lowering("mindir.split")
def lower_split(op):
    x = op.x
    shape = _shape(x)
    axis = _axis(_int(op.axis), len(shape))
    n = _int(op.output_num)
    part = list(shape)
    part[axis] //= n
    outs = []
    for i in range(n):
        offsets = [0] * len(shape)
        offsets[axis] = i * part[axis]
        outs.append(extract_slice(x, offsets, part, [1] * len(shape)))
    return outs


@lowering("mindir.stack")
def lower_stack(op):
    inputs = list(op.inputs)
    out = _result_shape(op)
    axis = _axis(_int(op.axis), len(out))
    acc = empty(out, _elem(inputs[0]))
    sizes = list(out)
    sizes[axis] = 1
    for i, v in enumerate(inputs):
        offsets = [0] * len(out)
        offsets[axis] = i
        # rank-extending insert: v's shape is sizes without the unit axis
        acc = insert_slice(v, acc, offsets, sizes, [1] * len(out))
    return acc


def _check_site(op) -> int:
    """Records op's location as a run-time check site of its module (see
    msmlir/runtime/checks.py); returns its number."""
    module = module_of(op)
    sites = list(module.attributes[checks.SITES_ATTR]) if checks.SITES_ATTR in module.attributes \
        else []
    where = file_line_col(op.location)
    name = op.operation.name
    sites.append(ir.StringAttr.get(f"{where[0]}:{where[1]}:{where[2]}: {name}" if where
                                   else name))
    module.attributes[checks.SITES_ATTR] = ir.ArrayAttr.get(sites)
    declare_i64_function(module, checks.SYMBOL, 4)
    return len(sites) - 1


def _check_indices(op, idx: ir.Value, dim: int) -> None:
    """Counts the indices outside [-dim, dim) (one reduction over `idx`) and, if
    there are any, calls msmlir_check_failed(site, a bad index, dim, count): the
    runtime raises IndexError at the op's location after the call."""
    it = _elem(idx)
    i64 = ir.IntegerType.get_signless(64)
    rank = len(_shape(idx))
    site = _check_site(op)
    acc_t = ir.RankedTensorType.get([], i64)
    zero64 = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, 0)).result
    inits = [fill_op(zero64, tensor.EmptyOp([], i64).result) for _ in range(2)]
    maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, []),
            ir.AffineMap.get(rank, 0, [])]
    iters = ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<reduction>")] * rank)
    g = linalg.GenericOp([acc_t, acc_t], [idx], inits,
                         ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), iters)
    block = g.regions[0].blocks.append(it, i64, i64)
    with ir.InsertionPoint(block):
        v = block.arguments[0]
        if ir.IntegerType(it).width < 64:
            v = arith.ExtSIOp(i64, v).result
        lo = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, -dim)).result
        hi = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, dim)).result
        bad = arith.OrIOp(arith.CmpIOp(arith.CmpIPredicate.slt, v, lo).result,
                          arith.CmpIOp(arith.CmpIPredicate.sge, v, hi).result).result
        one = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, 1)).result
        zero = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, 0)).result
        count = arith.AddIOp(block.arguments[1], arith.SelectOp(bad, one, zero).result).result
        linalg.YieldOp([count, arith.SelectOp(bad, v, block.arguments[2]).result])
    count = tensor.ExtractOp(g.results[0], []).result
    failed = arith.CmpIOp(arith.CmpIPredicate.sgt, count,
                          arith.ConstantOp(i64, ir.IntegerAttr.get(i64, 0)).result).result
    if_op = scf.IfOp(failed)
    with ir.InsertionPoint(if_op.then_block):
        args = [arith.ConstantOp(i64, ir.IntegerAttr.get(i64, site)).result,
                tensor.ExtractOp(g.results[1], []).result,
                arith.ConstantOp(i64, ir.IntegerAttr.get(i64, dim)).result, count]
        func.CallOp([], ir.FlatSymbolRefAttr.get(checks.SYMBOL), args)
        scf.YieldOp([])


@lowering("mindir.gather")
def lower_gather(op):
    params, idx = op.params, op.indices
    pshape = _shape(params)
    ishape = _shape(idx)
    axis = _axis(_int(op.axis), len(pshape))
    out = _result_shape(op)
    rank = len(out)
    ir_ = len(ishape)
    elem = _elem(params)
    it = _elem(idx)
    idx_t = ir.IndexType.get()
    i64 = ir.IntegerType.get_signless(64)
    dim = pshape[axis]
    _check_indices(op, idx, dim)   # out-of-range indices raise at run time
    maps = [ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(axis + k) for k in range(ir_)]),
            ir.AffineMap.get_identity(rank)]
    iters = ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank)
    init = empty(out, elem)
    g = linalg.GenericOp([init.type], [idx], [init],
                         ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), iters)
    block = g.regions[0].blocks.append(it, elem)
    with ir.InsertionPoint(block):
        i = arith.IndexCastOp(idx_t, block.arguments[0]).result
        zero = arith.ConstantOp(idx_t, ir.IntegerAttr.get(idx_t, 0)).result
        n = arith.ConstantOp(idx_t, ir.IntegerAttr.get(idx_t, dim)).result
        last = arith.ConstantOp(idx_t, ir.IntegerAttr.get(idx_t, dim - 1)).result
        neg = arith.CmpIOp(arith.CmpIPredicate.slt, i, zero).result
        i = arith.SelectOp(neg, arith.AddIOp(i, n).result, i).result
        i = arith.MaxSIOp(i, zero).result
        i = arith.MinSIOp(i, last).result
        coords = [linalg.IndexOp(ir.IntegerAttr.get(i64, d)).result for d in range(axis)]
        coords.append(i)
        coords += [linalg.IndexOp(ir.IntegerAttr.get(i64, d)).result
                   for d in range(axis + ir_, rank)]
        v = tensor.ExtractOp(params, coords).result
        linalg.YieldOp([v])
    return g.result


@lowering("mindir.tile")
def lower_tile(op):
    x = op.x
    mult = _ints(op.multiples)
    shape = _shape(x)
    off = len(mult) - len(shape)
    full = [1] * off + shape
    # broadcast x to [m0, d0, m1, d1, ...] (m_i == 1 skipped; only m_i for the
    # leading dims x lacks), then collapse: out[i] = x[i mod d] per dim
    b_shape, src_pos = [], []
    for i, (m, d) in enumerate(zip(mult, full)):
        if i < off or m != 1:
            b_shape.append(m)
        if i >= off:
            src_pos.append(len(b_shape))
            b_shape.append(d)
    elem = _elem(x)
    added = [k for k in range(len(b_shape)) if k not in src_pos]
    b = x
    if added:
        b = linalg.broadcast(x, outs=[empty(b_shape, elem)], dimensions=added).results[0]
    return reshape_to(b, _result_shape(op))


@lowering("mindir.pad")
def lower_pad(op):
    x = op.x
    p = _ints(op.paddings)
    value = ir.FloatAttr(op.constant_value).value
    if not any(p):
        return x
    return pad_const(x, p[0::2], p[1::2], value)


# ----------------------------------------------------------------------------
# State and ordering
# ----------------------------------------------------------------------------


@lowering("mindir.assign")
def lower_assign(op):
    # The result of the materialization (== value) is returned so that the
    # write is not dead code (see the module docstring).
    return bufferization.MaterializeInDestinationOp(op.value.type, op.value, op.variable).result


@lowering("mindir.depend")
def lower_depend(op):
    return op.value
