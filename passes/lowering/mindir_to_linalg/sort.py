"""Lowering of mindir.sort: an in-place bitonic sorting network.

Layout. The sort axis is moved to the front (linalg.transpose) and the tensor
viewed as [n, R] (R = the product of the other dims), padded along the axis to
P = the next power of two with a sentinel that sorts after every real element
(ascending: NaN for floats, INT_MAX for integers; descending: -inf / INT_MIN;
a tie with a real element goes to the real one by the index tie-break, so the
padding always ends up at the back and is sliced off at the end).

Order. Each element carries its original position along the axis (i32). The
network sorts the (value, index) pairs by a total order: the value order
(NaN above +inf, so NaNs come last ascending and first descending; -0.0 and
+0.0 equal), ties broken by the smaller index. Every pair is distinct under it,
so the network's result is the unique sorted order: the sort is stable.

Network. Bitonic sort: for k = 2, 4, ..., P and j = k/2, ..., 1 every row i is
compare-exchanged with row i ^ j; in a k-block with (i & k) == 0 the lower row
keeps the first of the two in the order, otherwise the second. That is
P(P+1)/2 stages, O(n log^2 n) work per column, as loops (never unrolled, so
the generated code does not grow with n):

    scf.for over column blocks of width W       (R > 1; W divides R, <= 64)
      block = copy of the [P, W] columns + iota (a fresh, contiguous buffer)
      scf.for kk = 1 .. log2 P                   (k = 2^kk)
        scf.for t = 0 .. kk-1                    (j = 2^(kk-1-t))
          scf.for q = 0 .. P/2 - 1               (the row pair lo, lo + j)
            linalg.generic over [W]: reads rows lo and hi (tensor.extract_slice),
            writes both back (tensor.insert_slice into the loop-carried block)
      tensor.insert_slice block -> result

The rows of one pair are read and written by the same generic, so every loop
carries its tensors in place after bufferization (no copies). The row generic
is contiguous along W and vectorizes (it sits inside loops, so the CPU strategy
always vectorizes it), and the [P, W] block stays in cache through all stages.
For R == 1 (a 1-D sort) there are no rows to pair: each stage is one
linalg.generic over [P] that reads its partner i ^ j with tensor.extract
(vectorized as a gather) into a new buffer.

Finally the padding is sliced off and the axis moved back (linalg.transpose).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from . import builders as B
from . import lowering
from .elementwise import attr, cmpf, cmpi, is_float, operands, result_type, select
from .shape import extract_slice, pad_const, reshape_to, transpose_to

# Largest column block (see _block_width).
MAX_BLOCK = 64


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _sentinel(elem: ir.Type, descending: bool):
    """A padding value that sorts last (ties go to the real elements by index)."""
    if is_float(elem):
        return float("-inf") if descending else float("nan")
    w = ir.IntegerType(elem).width
    return -(1 << (w - 1)) if descending else (1 << (w - 1)) - 1


def _not(v):
    i1 = ir.IntegerType.get_signless(1)
    return arith.xori(v, arith.ConstantOp(i1, ir.IntegerAttr.get(i1, 1)).result)


def _before(a, ia, b, ib, descending: bool):
    """i1: (a, ia) comes strictly before (b, ib) in the sort order."""
    idx_lt = cmpi("slt", ia, ib)
    if is_float(a.type):
        a_nan = cmpf("UNO", a, a)
        b_nan = cmpf("UNO", b, b)
        if descending:   # NaN first, then the larger values
            strict = arith.ori(cmpf("OGT", a, b), arith.andi(a_nan, _not(b_nan)))
        else:            # the smaller values first, NaN last
            strict = arith.ori(cmpf("OLT", a, b), arith.andi(b_nan, _not(a_nan)))
        tie = arith.ori(cmpf("OEQ", a, b), arith.andi(a_nan, b_nan))
    else:
        strict = cmpi("sgt" if descending else "slt", a, b)
        tie = cmpi("eq", a, b)
    return arith.ori(strict, arith.andi(tie, idx_lt))


def _index(d: int) -> ir.Value:
    return linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result


def _iconst(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), v)).result


def _expand(v: ir.Value, shape: list[int]) -> ir.Value:
    """tensor.expand_shape of a 1-D tensor to `shape`."""
    if list(B.tensor_type(v).shape) == list(shape):
        return v
    rt = ir.RankedTensorType.get(shape, B.tensor_type(v).element_type)
    return tensor.ExpandShapeOp(rt, v, B.reassociation([list(range(len(shape)))]), [],
                                ir.DenseI64ArrayAttr.get(shape)).result


def _collapse(v: ir.Value) -> ir.Value:
    """tensor.collapse_shape of v to 1-D."""
    t = B.tensor_type(v)
    if t.rank == 1:
        return v
    rt = ir.RankedTensorType.get([_prod(t.shape)], t.element_type)
    return tensor.CollapseShapeOp(rt, v, B.reassociation([list(range(t.rank))])).result


def _static(xs):
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    return ir.DenseI64ArrayAttr.get([dyn if isinstance(x, ir.Value) else x for x in xs])


def _dynamic(xs):
    return [x for x in xs if isinstance(x, ir.Value)]


def _slice(t: ir.Value, offsets, sizes, result_shape) -> ir.Value:
    """Unit-stride tensor.extract_slice; offsets are ints or index Values."""
    rt = ir.RankedTensorType.get(list(result_shape), B.tensor_type(t).element_type)
    return tensor.ExtractSliceOp(rt, t, _dynamic(offsets), [], [], _static(offsets),
                                 _static(sizes), _static([1] * len(sizes))).result


def _insert(src: ir.Value, dest: ir.Value, offsets, sizes) -> ir.Value:
    return tensor.InsertSliceOp(src, dest, _dynamic(offsets), [], [], _static(offsets),
                                _static(sizes), _static([1] * len(sizes))).result


def _init(src: ir.Value):
    """(copy of src, iota of its leading dim as i32): the network's state, a
    fresh buffer it updates in place (never the operand's, e.g. a caller's
    array)."""
    t = B.tensor_type(src)
    i32 = ir.IntegerType.get_signless(32)
    dims = list(range(t.rank))
    return B.generic([src], [dims], list(t.shape), [t.element_type, i32],
                     lambda a, _o, _i: [a, arith.index_cast(i32, _index(0))])


def _kj_loops(state: list, stage, P: int) -> list:
    """scf.for kk = 1..log2 P { scf.for t = 0..kk-1 { state = stage(*state, j, lj, k) } }
    with k = 2^kk, j = 2^lj, lj = kk - 1 - t: the stages in the network's order."""
    p = P.bit_length() - 1
    outer = scf.ForOp(_iconst(1), _iconst(p + 1), _iconst(1), state)
    with ir.InsertionPoint(outer.body):
        kk = outer.induction_variable
        k = arith.shli(_iconst(1), kk)
        inner = scf.ForOp(_iconst(0), kk, _iconst(1), list(outer.inner_iter_args))
        with ir.InsertionPoint(inner.body):
            lj = arith.subi(arith.subi(kk, _iconst(1)), inner.induction_variable)
            j = arith.shli(_iconst(1), lj)
            scf.YieldOp(list(stage(*inner.inner_iter_args, j, lj, k)))
        scf.YieldOp(list(inner.results))
    return list(outer.results)


def _pair_stage(v, idx, P: int, W: int, j, lj, k, descending: bool):
    """One stage, in place on the [P, W] block: scf.for over the P/2 row pairs
    (lo, hi = lo + j), a linalg.generic over [W] per pair."""
    elem = B.tensor_type(v).element_type
    i32 = ir.IntegerType.get_signless(32)
    loop = scf.ForOp(_iconst(0), _iconst(P // 2), _iconst(1), [v, idx])
    with ir.InsertionPoint(loop.body):
        q = loop.induction_variable
        # lo: q with a 0 bit inserted at bit lj
        lo = arith.addi(arith.shli(arith.shrui(q, lj), arith.addi(lj, _iconst(1))),
                        arith.andi(q, arith.subi(j, _iconst(1))))
        hi = arith.addi(lo, j)
        up = cmpi("eq", arith.andi(lo, k), _iconst(0))   # lo keeps the first of the pair
        cv, ci = loop.inner_iter_args
        rows = [_slice(t, [r, 0], [1, W], [W]) for t in (cv, ci) for r in (lo, hi)]

        def body(a, b, ia, ib, *_outs):
            take_a = cmpi("eq", _before(a, ia, b, ib, descending), up)
            return [select(take_a, a, b), select(take_a, b, a),
                    select(take_a, ia, ib), select(take_a, ib, ia)]

        r = B.generic(rows, [[0]] * 4, [W], [elem, elem, i32, i32], body, inits=rows)
        nv = _insert(r[1], _insert(r[0], cv, [lo, 0], [1, W]), [hi, 0], [1, W])
        ni = _insert(r[3], _insert(r[2], ci, [lo, 0], [1, W]), [hi, 0], [1, W])
        scf.YieldOp([nv, ni])
    return loop.results[0], loop.results[1]


def _gather_stage(v, idx, P: int, j, lj, k, descending: bool):
    """One stage on a 1-D state [P]: a generic that reads element i and its
    partner i ^ j (tensor.extract) and keeps one of them."""
    elem = B.tensor_type(v).element_type
    i32 = ir.IntegerType.get_signless(32)

    def body(a, ia, _ov, _oi):
        i = _index(0)
        pi = arith.xori(i, j)
        b = tensor.ExtractOp(v, [pi]).result
        ib = tensor.ExtractOp(idx, [pi]).result
        is_lo = cmpi("eq", arith.andi(i, j), _iconst(0))
        up = cmpi("eq", arith.andi(i, k), _iconst(0))
        keep = cmpi("eq", _before(a, ia, b, ib, descending), cmpi("eq", is_lo, up))
        return [select(keep, a, b), select(keep, ia, ib)]

    return B.generic([v, idx], [[0], [0]], [P], [elem, i32], body)


def _block_width(R: int) -> int:
    """Columns sorted together: a divisor of R in [16, MAX_BLOCK], or R itself
    when it is at most MAX_BLOCK or has no such divisor."""
    if R <= MAX_BLOCK:
        return R
    for w in range(MAX_BLOCK, 15, -16):
        if R % w == 0:
            return w
    return R


def _network(src: ir.Value, P: int, R: int, descending: bool):
    """(values, indices) [P * R] sorted along P of the [P * R] source."""
    if R == 1:
        state = list(_init(src))
        return _kj_loops(state, lambda v, i, j, lj, k:
                         _gather_stage(v, i, P, j, lj, k, descending), P)
    W = _block_width(R)

    def sort_block(block):
        return _kj_loops(list(_init(block)), lambda v, i, j, lj, k:
                         _pair_stage(v, i, P, W, j, lj, k, descending), P)

    src2 = _expand(src, [P, R])
    if W == R:
        out = sort_block(src2)
    else:
        elem = B.tensor_type(src).element_type
        i32 = ir.IntegerType.get_signless(32)
        blocks = scf.ForOp(_iconst(0), _iconst(R), _iconst(W),
                           [B.empty([P, R], elem), B.empty([P, R], i32)])
        with ir.InsertionPoint(blocks.body):
            c = blocks.induction_variable
            bv, bi = sort_block(_slice(src2, [0, c], [P, W], [P, W]))
            dv, di = blocks.inner_iter_args
            scf.YieldOp([_insert(bv, dv, [0, c], [P, W]), _insert(bi, di, [0, c], [P, W])])
        out = list(blocks.results)
    return _collapse(out[0]), _collapse(out[1])


def sort_network(x: ir.Value, axis: int, descending: bool) -> tuple[ir.Value, ir.Value]:
    """(values, i32 indices) of the stable sort of x along `axis` (normalized),
    built at the current insertion point."""
    xt = B.tensor_type(x)
    shape = list(xt.shape)
    elem = xt.element_type
    rank = len(shape)
    i32 = ir.IntegerType.get_signless(32)
    n = shape[axis]
    numel = _prod(shape)
    if numel == 0:
        return B.empty(shape, elem), B.empty(shape, i32)
    if n == 1:
        return x, B.fill(shape, i32, 0)
    R = numel // n
    perm = [axis] + [d for d in range(rank) if d != axis]
    inv = [0] * rank
    for i, p in enumerate(perm):
        inv[p] = i
    P = 1 << (n - 1).bit_length()
    v = reshape_to(transpose_to(x, perm), [n * R])
    if P > n:
        v = pad_const(v, [0], [(P - n) * R], _sentinel(elem, descending))
    outs = []
    for t in _network(v, P, R, descending):
        if P > n:
            t = extract_slice(t, [0], [n * R], [1])
        outs.append(transpose_to(reshape_to(t, [shape[p] for p in perm]), inv))
    return outs[0], outs[1]


@lowering("mindir.sort")
def lower_sort(op):
    x = operands(op)[0]
    rank = result_type(op).rank
    axis = attr(op, "axis", -1)
    axis = axis + rank if axis < 0 else axis
    return list(sort_network(x, axis, bool(attr(op, "descending", False))))
