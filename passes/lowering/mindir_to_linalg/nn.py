"""Lowerings of the mindir neural-network ops: convolution and its gradients,
pooling and its gradients, softmax/log_softmax, layer/batch norm, dropout,
one_hot and the softmax cross-entropy losses.

Conventions (see dialects/MindIR.td and lib/MindIROps.cpp):
- conv/pool are NCHW (weights OIHW); pad_mode (#mindir.pad_mode<...>, read
  with msmlir.dialects.enums.enum_name) "valid" (no padding), "same"
  (out = ceil(in / stride), total padding max((out-1)*s + eff - in, 0) split
  with the extra row/column at the bottom/right) or "pad" (explicit
  [top, bottom, left, right]).
- Convolutions use linalg.conv_2d_nchw_fchw (group == 1) or
  linalg.conv_2d_ngchw_gfchw (group > 1) on a tensor.pad-ed input. The input
  gradient is a stride-1 convolution (forward dilation) of the
  zero-interleaved (strided tensor.insert_slice), padded (or, for padding
  beyond the kernel reach, cropped) dout with the flipped, transposed weight
  (built by a tensor.extract generic); the filter gradient is a convolution
  of the (transposed) padded input with dout as the filter (strides and
  dilations swap roles).
- No indexing map has a negative coefficient (upstream linalg tiling asserts
  on them); flips are tensor.extract gathers.
- Pooling uses linalg.pooling_nchw_max / pooling_nchw_sum; the average
  divides by the number of non-padding elements of each window. The pooling
  gradients are a "gather" linalg.generic over the padded input: each input
  position visits the ceil(k / s) candidate windows per dim that can contain
  it (dout is padded so that every access is in bounds), then the padding is
  cropped. max_pool2d_grad routes dout to the first (row-major) max of each
  window; the argmax is computed with an order-independent tie-break. A
  window entirely in the padding (only with pad >= kernel) gives -inf (max)
  and 0 (average).
- softmax/log_softmax/cross-entropy subtract the max before exp (softmax
  materializes e = exp(x - max) once, then sums and divides it); layer/batch
  norm use two-pass mean and biased variance, rstd = rsqrt(var + eps).
- dropout uses the counter-based generator of builders.py (splitmix64 of
  (seed, stream 3, offset, linear index)); mask = u < keep_prob.
"""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, linalg, math, tensor

import msmlir.dialects.mindir  # noqa: F401  (registers the op view classes)
from msmlir.dialects.enums import enum_name

from . import lowering
from .builders import (STREAM_DROPOUT, constant, empty, fill, linear_index, rng_key, rng_offset,
                       tensor_type, uniform_hash)
from .shape import extract_slice, gather_generic, pad_const, reshape_to, transpose_to

# ----------------------------------------------------------------------------
# Small helpers
# ----------------------------------------------------------------------------


def _ints(attr) -> list[int]:
    return [int(x) for x in ir.DenseI64ArrayAttr(attr)]


def _int(attr) -> int:
    return ir.IntegerAttr(attr).value


def _float(attr) -> float:
    return ir.FloatAttr(attr).value


def _shape(v: ir.Value) -> list[int]:
    return list(tensor_type(v).shape)


def _elem(v: ir.Value) -> ir.Type:
    return tensor_type(v).element_type


def _d(i: int) -> ir.AffineExpr:
    return ir.AffineDimExpr.get(i)


def _c(v: int) -> ir.AffineExpr:
    return ir.AffineConstantExpr.get(v)


def _map(n: int, exprs: Sequence) -> ir.AffineMap:
    return ir.AffineMap.get(n, 0, [_d(e) if isinstance(e, int) else e for e in exprs])


def _generic_maps(inputs: Sequence[ir.Value], inits: Sequence[ir.Value],
                  maps: Sequence[ir.AffineMap], iterators: Sequence[str],
                  body: Callable[..., Sequence[ir.Value] | ir.Value]) -> list[ir.Value]:
    """linalg.generic with arbitrary affine indexing maps (inputs, then inits)."""
    iter_attr = ir.ArrayAttr.get([
        ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators])
    op = linalg.GenericOp([ir.Value(i).type for i in inits], list(inputs), list(inits),
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), iter_attr)
    arg_types = [_elem(v) for v in inputs] + [_elem(v) for v in inits]
    block = op.regions[0].blocks.append(*arg_types)
    with ir.InsertionPoint(block):
        results = body(*block.arguments)
        if isinstance(results, ir.Value):
            results = [results]
        linalg.YieldOp(list(results))
    return list(op.results)


def _index(dim: int) -> ir.Value:
    return linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim)).result


def _cidx(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr.get(ir.IndexType.get(), v)).result


def _tensor_const(values: Sequence[float], elem: ir.Type) -> ir.Value:
    """A 1-D dense arith.constant of small integers-valued floats."""
    t = ir.RankedTensorType.get([len(values)], elem)
    attr = ir.DenseElementsAttr.get([ir.FloatAttr.get(elem, float(v)) for v in values], type=t)
    return arith.ConstantOp(t, attr).result


# ----------------------------------------------------------------------------
# Window geometry
# ----------------------------------------------------------------------------


def window_pads(mode: str, size: int, k: int, s: int, d: int, lo: int, hi: int) -> tuple[int, int]:
    """(pad_before, pad_after) of one spatial dim, as lib/MindIROps.cpp infers it."""
    if mode == "valid":
        return 0, 0
    if mode == "pad":
        return lo, hi
    if mode == "same":
        eff = d * (k - 1) + 1
        out = (size + s - 1) // s
        total = max((out - 1) * s + eff - size, 0)
        return total // 2, total - total // 2
    raise ValueError(f"unknown pad_mode {mode!r}")


def window_out(mode: str, size: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    plo, phi = window_pads(mode, size, k, s, d, lo, hi)
    if mode == "same":
        return (size + s - 1) // s
    return (size + plo + phi - (d * (k - 1) + 1)) // s + 1


class _Conv:
    """Attributes of a conv op, with per-dim padding resolved."""

    def __init__(self, op, in_shape, w_shape):
        self.stride = _ints(op.stride)
        self.dilation = _ints(op.dilation)
        self.mode = enum_name(op.pad_mode)
        pad = _ints(op.pad)
        self.group = _int(op.group)
        self.k = w_shape[2:]
        self.pads = [window_pads(self.mode, in_shape[2 + i], self.k[i], self.stride[i],
                                 self.dilation[i], pad[2 * i], pad[2 * i + 1]) for i in range(2)]
        self.out = [window_out(self.mode, in_shape[2 + i], self.k[i], self.stride[i],
                               self.dilation[i], pad[2 * i], pad[2 * i + 1]) for i in range(2)]


class _Pool:
    def __init__(self, op, in_shape):
        self.k = _ints(op.kernel_size)
        self.stride = _ints(op.strides)
        self.mode = enum_name(op.pad_mode)
        pad = _ints(op.pad)
        self.pads = [window_pads(self.mode, in_shape[2 + i], self.k[i], self.stride[i], 1,
                                 pad[2 * i], pad[2 * i + 1]) for i in range(2)]
        self.out = [window_out(self.mode, in_shape[2 + i], self.k[i], self.stride[i], 1,
                               pad[2 * i], pad[2 * i + 1]) for i in range(2)]


def _pad_spatial(x: ir.Value, pads, value) -> ir.Value:
    (t, b), (l, r) = pads
    if t == b == l == r == 0:
        return x
    return pad_const(x, [0, 0, t, l], [0, 0, b, r], value)


def _i64_attr(vals):
    """strides/dilations of the OpDSL-generated named ops (a list of ints)."""
    return [int(v) for v in vals]


def _conv_named(x: ir.Value, w: ir.Value, out_shape, strides, dilations, group: int) -> ir.Value:
    """Convolution of x [N, C, H, W] with w [O, C/group, KH, KW] (NCHW / FCHW),
    output [N, O, out_shape...]; x must already be padded."""
    elem = _elem(x)
    n, c, h, wd = _shape(x)
    o, cg, kh, kw = _shape(w)
    strides_attr = _i64_attr(strides)
    dil_attr = _i64_attr(dilations)
    if group == 1:
        init = fill([n, o] + list(out_shape), elem, 0.0)
        return linalg.conv_2d_nchw_fchw(x, w, outs=[init], strides=strides_attr,
                                        dilations=dil_attr)
    g = group
    xg = reshape_to(x, [n, g, c // g, h, wd])
    wg = reshape_to(w, [g, o // g, cg, kh, kw])
    init = fill([n, g, o // g] + list(out_shape), elem, 0.0)
    y = linalg.conv_2d_ngchw_gfchw(xg, wg, outs=[init], strides=strides_attr,
                                   dilations=dil_attr)
    return reshape_to(y, [n, o] + list(out_shape))


# ----------------------------------------------------------------------------
# Convolutions
# ----------------------------------------------------------------------------

# On the convolution of lower_conv2d_backprop_input (group 1): array<i64: sh, sw,
# dh, dw, pad_top, pad_left, OH, OW> of the forward convolution. Its operands are
# dout zero-interleaved/padded (a tensor.pad, or a strided tensor.insert_slice into
# a fill, possibly cropped by a tensor.extract_slice) and the flipped, transposed
# weight (a tensor.extract generic of w); msmlir-cpu-conv-to-matmul reads dout and
# w back through them. Other passes ignore it (the op is a plain convolution).
INPUT_GRAD_TAG = "msmlir.conv_input_grad"


@lowering("mindir.conv2d")
def lower_conv2d(op):
    x, w = op.input, op.weight
    cv = _Conv(op, _shape(x), _shape(w))
    xp = _pad_spatial(x, cv.pads, 0.0)
    return _conv_named(xp, w, cv.out, cv.stride, cv.dilation, cv.group)


@lowering("mindir.conv2d_backprop_input")
def lower_conv2d_backprop_input(op):
    dout, w = op.dout, op.weight
    in_shape = _ints(op.input_shape)
    cv = _Conv(op, in_shape, _shape(w))
    elem = _elem(dout)
    n, o, oh, ow = _shape(dout)
    _, cg, kh, kw = _shape(w)
    g = cv.group
    og = o // g
    c = cg * g
    # dout zero-interleaved by the stride and padded so that a stride-1 conv with
    # the flipped kernel (dilated by the forward dilation) yields dx:
    #   dx[h] = sum_i P[h + i*d] * w[K-1-i],  P[lo + oh*s] = dout[oh].
    lo, hi, full = [], [], []
    for i in range(2):
        eff = cv.dilation[i] * (cv.k[i] - 1) + 1
        dil_len = (_shape(dout)[2 + i] - 1) * cv.stride[i] + 1
        p_lo = eff - 1 - cv.pads[i][0]
        p_hi = in_shape[2 + i] - dil_len + cv.pads[i][0]
        lo.append(p_lo)
        hi.append(p_hi)
        full.append(in_shape[2 + i] + eff - 1)
    if cv.stride == [1, 1] and min(lo + hi) >= 0:
        p = pad_const(dout, [0, 0] + lo, [0, 0] + hi, 0.0) if max(lo + hi) > 0 else dout
    else:
        plo = [max(v, 0) for v in lo]
        phi = [max(v, 0) for v in hi]
        size = [(_shape(dout)[2 + i] - 1) * cv.stride[i] + 1 + plo[i] + phi[i] for i in range(2)]
        zeros = fill([n, o] + size, elem, 0.0)
        p = tensor.InsertSliceOp(dout, zeros, [], [], [],
                                 ir.DenseI64ArrayAttr.get([0, 0] + plo),
                                 ir.DenseI64ArrayAttr.get([n, o, oh, ow]),
                                 ir.DenseI64ArrayAttr.get([1, 1] + list(cv.stride))).result
        crop = [max(-v, 0) for v in lo]
        if any(crop) or any(v < 0 for v in hi):
            p = extract_slice(p, [0, 0] + crop, [n, o] + full, [1, 1, 1, 1])
    # Flipped, transposed weight: wt[g, c, o, i, j] = w[g*og + o, c, KH-1-i, KW-1-j],
    # i.e. an FCHW filter with F = C/group, C = O/group per group. Built with
    # tensor.extract (a flip as an indexing map needs negative coefficients,
    # which linalg tiling rejects); the weight is small.
    def flipped(i, j):
        return [arith.SubIOp(_cidx(kh - 1), i).result, arith.SubIOp(_cidx(kw - 1), j).result]

    if g == 1:
        wt = gather_generic(w, [cg, og, kh, kw], lambda ix: [ix[1], ix[0]] + flipped(ix[2], ix[3]))
        init = fill([n, c] + in_shape[2:], elem, 0.0)
        r = linalg.conv_2d_nchw_fchw(p, wt, outs=[init], strides=_i64_attr([1, 1]),
                                     dilations=_i64_attr(cv.dilation))
        # The forward geometry, for msmlir-cpu-conv-to-matmul (which computes the
        # input gradient from dout and w without the zeros of p): see INPUT_GRAD_TAG.
        r.owner.attributes[INPUT_GRAD_TAG] = ir.DenseI64ArrayAttr.get(
            list(cv.stride) + list(cv.dilation) + [cv.pads[0][0], cv.pads[1][0], oh, ow])
        return r
    w5 = reshape_to(w, [g, og, cg, kh, kw])
    wt = gather_generic(w5, [g, cg, og, kh, kw],
                        lambda ix: [ix[0], ix[2], ix[1]] + flipped(ix[3], ix[4]))
    pg = reshape_to(p, [n, g, og] + _shape(p)[2:])
    init = fill([n, g, cg] + in_shape[2:], elem, 0.0)
    r = linalg.conv_2d_ngchw_gfchw(pg, wt, outs=[init], strides=_i64_attr([1, 1]),
                                   dilations=_i64_attr(cv.dilation))
    return reshape_to(r, in_shape)


@lowering("mindir.conv2d_backprop_filter")
def lower_conv2d_backprop_filter(op):
    dout, x = op.dout, op.input
    f_shape = _ints(op.filter_shape)
    cv = _Conv(op, _shape(x), f_shape)
    elem = _elem(x)
    n, c, _, _ = _shape(x)
    _, o, oh, ow = _shape(dout)
    _, cg, kh, kw = f_shape
    g = cv.group
    og = o // g
    xp = _pad_spatial(x, cv.pads, 0.0)
    hp, wp = _shape(xp)[2:]
    # dw[o, c, i, j] = sum_{n, oh, ow} xp[n, c, oh*s + i*d, ...] * dout[n, o, oh, ow]:
    # a convolution with batch and channel swapped, strides = d, dilations = s.
    if g == 1:
        xt = transpose_to(xp, [1, 0, 2, 3])              # [C, N, Hp, Wp]
        dt = transpose_to(dout, [1, 0, 2, 3])            # [O, N, OH, OW]
        init = fill([c, o, kh, kw], elem, 0.0)
        r = linalg.conv_2d_nchw_fchw(xt, dt, outs=[init], strides=_i64_attr(cv.dilation),
                                     dilations=_i64_attr(cv.stride))
        return transpose_to(r, [1, 0, 2, 3])
    xt = transpose_to(reshape_to(xp, [n, g, cg, hp, wp]), [2, 1, 0, 3, 4])     # [Cg, G, N, Hp, Wp]
    dt = transpose_to(reshape_to(dout, [n, g, og, oh, ow]), [1, 2, 0, 3, 4])   # [G, Og, N, OH, OW]
    init = fill([cg, g, og, kh, kw], elem, 0.0)
    r = linalg.conv_2d_ngchw_gfchw(xt, dt, outs=[init], strides=_i64_attr(cv.dilation),
                                   dilations=_i64_attr(cv.stride))         # [Cg, G, Og, KH, KW]
    return reshape_to(transpose_to(r, [1, 2, 0, 3, 4]), [o, cg, kh, kw])


# ----------------------------------------------------------------------------
# Pooling
# ----------------------------------------------------------------------------


def _pool_named(fn, xp: ir.Value, pl: _Pool, init_value) -> ir.Value:
    n, c = _shape(xp)[:2]
    elem = _elem(xp)
    init = fill([n, c] + pl.out, elem, init_value)
    window = empty(pl.k, elem)
    return fn(xp, window, outs=[init], strides=_i64_attr(pl.stride), dilations=_i64_attr([1, 1]))


@lowering("mindir.max_pool2d")
def lower_max_pool2d(op):
    x = op.x
    pl = _Pool(op, _shape(x))
    xp = _pad_spatial(x, pl.pads, float("-inf"))
    return _pool_named(linalg.pooling_nchw_max, xp, pl, float("-inf"))


def _window_counts(size: int, pl: _Pool, i: int) -> list[int]:
    """Number of non-padding input positions in each window along dim i."""
    lo = pl.pads[i][0]
    out = []
    for o in range(pl.out[i]):
        start = o * pl.stride[i]
        # a window entirely in the padding (pad >= kernel) divides 0 by 1, not 0
        out.append(max(1, min(start + pl.k[i], lo + size) - max(start, lo)))
    return out


def _divide_by_counts(v: ir.Value, in_hw, pl: _Pool) -> ir.Value:
    """v[n, c, oh, ow] / count[oh, ow] (count = non-padding window elements)."""
    elem = _elem(v)
    ch = _window_counts(in_hw[0], pl, 0)
    cw = _window_counts(in_hw[1], pl, 1)
    shape = _shape(v)
    if len(set(ch)) == 1 and len(set(cw)) == 1:
        k = constant(elem, ch[0] * cw[0])
        return _generic_maps([v], [empty(shape, elem)], [_map(4, range(4))] * 2,
                             ["parallel"] * 4, lambda a, _: arith.DivFOp(a, k).result)[0]
    th = _tensor_const([float(x) for x in ch], elem)
    tw = _tensor_const([float(x) for x in cw], elem)
    return _generic_maps(
        [v, th, tw], [empty(shape, elem)],
        [_map(4, range(4)), _map(4, [2]), _map(4, [3]), _map(4, range(4))],
        ["parallel"] * 4,
        lambda a, hh, ww, _: arith.DivFOp(a, arith.MulFOp(hh, ww).result).result)[0]


@lowering("mindir.avg_pool2d")
def lower_avg_pool2d(op):
    x = op.x
    pl = _Pool(op, _shape(x))
    xp = _pad_spatial(x, pl.pads, 0.0)
    s = _pool_named(linalg.pooling_nchw_sum, xp, pl, 0.0)
    return _divide_by_counts(s, _shape(x)[2:], pl)


def _pool_grad_gather(contrib: ir.Value, in_shape, pl: _Pool, elem,
                      select: Callable | None, idx: ir.Value | None = None) -> ir.Value:
    """dx[n, c, h, w] = sum over the windows (oh, ow) containing (h, w) of
    contrib[n, c, oh, ow] (restricted by `select`), on the padded input grid,
    then cropped. select(kh, kw, idx_elem) -> i1 or None (all windows)."""
    n, c, h, w = in_shape
    (pt, pb), (pleft, pr) = pl.pads
    hp, wp = h + pt + pb, w + pleft + pr
    sh, sw = pl.stride
    kh, kw = pl.k
    oh, ow = pl.out
    a_n = -(-kh // sh)   # candidate windows per position along H
    b_n = -(-kw // sw)
    extra_h = max(0, (hp - 1) // sh - (oh - 1))
    extra_w = max(0, (wp - 1) // sw - (ow - 1))
    lows, highs = [0, 0, a_n - 1, b_n - 1], [0, 0, extra_h, extra_w]
    need_pad = any(lows) or any(highs)
    cp = pad_const(contrib, lows, highs, 0.0) if need_pad else contrib
    inputs = [cp]
    # loop dim 4 = t in [0, A): candidate window oh = h floordiv sh - (A-1) + t,
    # i.e. row h floordiv sh + t of dout padded by A-1 rows on top (positive
    # coefficients only: linalg tiling rejects negative ones)
    src = [0, 1, ir.AffineExpr.get_floor_div(_d(2), _c(sh)) + _d(4),
           ir.AffineExpr.get_floor_div(_d(3), _c(sw)) + _d(5)]
    maps = [_map(6, src)]
    if idx is not None:
        ip = pad_const(idx, lows, highs, -1) if need_pad else idx
        inputs.append(ip)
        maps.append(_map(6, src))
    inputs.append(empty([a_n, b_n], elem))        # gives the window loops their ranges
    maps.append(_map(6, [4, 5]))
    maps.append(_map(6, range(4)))
    init = fill([n, c, hp, wp], elem, 0.0)

    def body(*args):
        v = args[0]
        acc = args[-1]
        if select is None and kh % sh == 0 and kw % sw == 0:
            # every candidate window contains the position: no mask needed
            return arith.AddFOp(acc, v).result
        # position inside the window: kh = h mod sh + (A-1-t)*sh (likewise kw)
        ih = arith.AddIOp(arith.RemUIOp(_index(2), _cidx(sh)).result,
                          arith.MulIOp(arith.SubIOp(_cidx(a_n - 1), _index(4)).result,
                                       _cidx(sh)).result).result
        iw = arith.AddIOp(arith.RemUIOp(_index(3), _cidx(sw)).result,
                          arith.MulIOp(arith.SubIOp(_cidx(b_n - 1), _index(5)).result,
                                       _cidx(sw)).result).result
        ok = arith.AndIOp(arith.CmpIOp(arith.CmpIPredicate.ult, ih, _cidx(kh)).result,
                          arith.CmpIOp(arith.CmpIPredicate.ult, iw, _cidx(kw)).result).result
        if select is not None:
            ok = arith.AndIOp(ok, select(ih, iw, args[1])).result
        zero = constant(elem, 0.0)
        return arith.AddFOp(acc, arith.SelectOp(ok, v, zero).result).result

    dxp = _generic_maps(inputs, [init], maps, ["parallel"] * 4 + ["reduction"] * 2, body)[0]
    if hp == h and wp == w:
        return dxp
    return extract_slice(dxp, [0, 0, pt, pleft], [n, c, h, w], [1, 1, 1, 1])


@lowering("mindir.max_pool2d_grad")
def lower_max_pool2d_grad(op):
    x, dout = op.x, op.dout
    pl = _Pool(op, _shape(x))
    elem = _elem(x)
    n, c = _shape(x)[:2]
    kh, kw = pl.k
    sh, sw = pl.stride
    i32 = ir.IntegerType.get_signless(32)
    xp = _pad_spatial(x, pl.pads, float("-inf"))
    # First (row-major) argmax of every window, k = kh*KW + kw. The tie-break is
    # explicit (smaller k wins on equal values), so it does not depend on the
    # order in which the reduction visits the window.
    init_v = fill([n, c] + pl.out, elem, float("-inf"))
    init_i = fill([n, c] + pl.out, i32, kh * kw)

    def argmax_body(v, _w, m, k_cur):
        k = arith.IndexCastOp(i32, arith.AddIOp(
            arith.MulIOp(_index(4), _cidx(kw)).result, _index(5)).result).result
        gt = arith.CmpFOp(arith.CmpFPredicate.OGT, v, m).result
        eq = arith.CmpFOp(arith.CmpFPredicate.OEQ, v, m).result
        lt = arith.CmpIOp(arith.CmpIPredicate.slt, k, k_cur).result
        take = arith.OrIOp(gt, arith.AndIOp(eq, lt).result).result
        return [arith.SelectOp(take, v, m).result, arith.SelectOp(take, k, k_cur).result]

    _, arg = _generic_maps(
        [xp, empty([kh, kw], elem)], [init_v, init_i],
        [_map(6, [0, 1, _d(2) * sh + _d(4), _d(3) * sw + _d(5)]), _map(6, [4, 5]),
         _map(6, range(4)), _map(6, range(4))],
        ["parallel"] * 4 + ["reduction"] * 2, argmax_body)

    def select(ih, iw, k_sel):
        k = arith.IndexCastOp(i32, arith.AddIOp(arith.MulIOp(ih, _cidx(kw)).result, iw).result).result
        return arith.CmpIOp(arith.CmpIPredicate.eq, k, k_sel).result

    return _pool_grad_gather(dout, _shape(x), pl, elem, select, arg)


@lowering("mindir.avg_pool2d_grad")
def lower_avg_pool2d_grad(op):
    dout = op.dout
    in_shape = _ints(op.input_shape)
    pl = _Pool(op, in_shape)
    scaled = _divide_by_counts(dout, in_shape[2:], pl)
    return _pool_grad_gather(scaled, in_shape, pl, _elem(dout), None)


# ----------------------------------------------------------------------------
# Softmax family
# ----------------------------------------------------------------------------


def _reduce(x: ir.Value, axes: Sequence[int], init_value, combine) -> ir.Value:
    """Reduces x over `axes` (result drops them): combine(elem, acc)."""
    shape = _shape(x)
    rank = len(shape)
    elem = _elem(x)
    keep = [i for i in range(rank) if i not in axes]
    init = fill([shape[i] for i in keep], elem, init_value)
    return _generic_maps([x], [init], [_map(rank, range(rank)), _map(rank, keep)],
                         ["reduction" if i in axes else "parallel" for i in range(rank)],
                         combine)[0]


def _max_over(x, axes):
    return _reduce(x, axes, float("-inf"), lambda a, acc: arith.MaximumFOp(a, acc).result)


def _softmax_parts(x: ir.Value, axis: int):
    """(max, sum of exp(x - max)) over axis, both with axis dropped."""
    shape = _shape(x)
    rank = len(shape)
    elem = _elem(x)
    keep = [i for i in range(rank) if i != axis]
    m = _max_over(x, [axis])
    init = fill([shape[i] for i in keep], elem, 0.0)
    s = _generic_maps(
        [x, m], [init], [_map(rank, range(rank)), _map(rank, keep), _map(rank, keep)],
        ["reduction" if i == axis else "parallel" for i in range(rank)],
        lambda a, mm, acc: arith.AddFOp(acc, math.ExpOp(arith.SubFOp(a, mm).result).result).result)[0]
    return m, s, keep


def _axis(op, rank):
    a = _int(op.axis)
    return a + rank if a < 0 else a


@lowering("mindir.softmax")
def lower_softmax(op):
    """e = exp(x - max) once (materialized), sum(e) over the axis, e / sum."""
    x = op.x
    shape = _shape(x)
    rank = len(shape)
    elem = _elem(x)
    axis = _axis(op, rank)
    keep = [i for i in range(rank) if i != axis]
    ident, kmap = _map(rank, range(rank)), _map(rank, keep)
    m = _max_over(x, [axis])
    e = _generic_maps([x, m], [empty(shape, elem)], [ident, kmap, ident], ["parallel"] * rank,
                      lambda a, mm, _: math.ExpOp(arith.SubFOp(a, mm).result).result)[0]
    s = _reduce(e, [axis], 0.0, lambda a, acc: arith.AddFOp(acc, a).result)
    return _generic_maps([e, s], [empty(shape, elem)], [ident, kmap, ident], ["parallel"] * rank,
                         lambda a, ss, _: arith.DivFOp(a, ss).result)[0]


@lowering("mindir.log_softmax")
def lower_log_softmax(op):
    x = op.x
    rank = len(_shape(x))
    m, s, keep = _softmax_parts(x, _axis(op, rank))
    return _generic_maps(
        [x, m, s], [empty(_shape(x), _elem(x))],
        [_map(rank, range(rank)), _map(rank, keep), _map(rank, keep), _map(rank, range(rank))],
        ["parallel"] * rank,
        lambda a, mm, ss, _: arith.SubFOp(arith.SubFOp(a, mm).result, math.LogOp(ss).result).result)[0]


def _cross_entropy(logits: ir.Value, label_at: Callable, label_inputs, label_maps):
    """loss[n] = -sum_c label[n, c] * log_softmax[n, c]; dlogits = softmax - label.
    label_at(args..., c_index) -> label value (element type of logits)."""
    n, c = _shape(logits)
    elem = _elem(logits)
    m, s, _ = _softmax_parts(logits, 1)
    zero = fill([n], elem, 0.0)

    def loss_body(*args):
        a, mm, ss = args[:3]
        lab = label_at(*args[3:-1])
        acc = args[-1]
        logp = arith.SubFOp(arith.SubFOp(a, mm).result, math.LogOp(ss).result).result
        return arith.SubFOp(acc, arith.MulFOp(lab, logp).result).result

    loss = _generic_maps(
        [logits, m, s] + label_inputs, [zero],
        [_map(2, [0, 1]), _map(2, [0]), _map(2, [0])] + label_maps + [_map(2, [0])],
        ["parallel", "reduction"], loss_body)[0]

    def grad_body(*args):
        a, mm, ss = args[:3]
        lab = label_at(*args[3:-1])
        p = arith.DivFOp(math.ExpOp(arith.SubFOp(a, mm).result).result, ss).result
        return arith.SubFOp(p, lab).result

    grad = _generic_maps(
        [logits, m, s] + label_inputs, [empty([n, c], elem)],
        [_map(2, [0, 1]), _map(2, [0]), _map(2, [0])] + label_maps + [_map(2, [0, 1])],
        ["parallel", "parallel"], grad_body)[0]
    return [loss, grad]


@lowering("mindir.softmax_cross_entropy_with_logits")
def lower_softmax_cross_entropy(op):
    return _cross_entropy(op.logits, lambda lab: lab, [op.labels], [_map(2, [0, 1])])


@lowering("mindir.sparse_softmax_cross_entropy_with_logits")
def lower_sparse_softmax_cross_entropy(op):
    elem = _elem(op.logits)

    def label_at(lab):
        # compare as index (sign-extending the label): no truncation of the class
        lab_i = arith.IndexCastOp(ir.IndexType.get(), lab).result
        eq = arith.CmpIOp(arith.CmpIPredicate.eq, _index(1), lab_i).result
        return arith.SelectOp(eq, constant(elem, 1.0), constant(elem, 0.0)).result

    return _cross_entropy(op.logits, label_at, [op.labels], [_map(2, [0])])


# ----------------------------------------------------------------------------
# Normalization
# ----------------------------------------------------------------------------


def _mean_var(x: ir.Value, axes: Sequence[int]):
    """Mean and biased variance over axes (two-pass), axes dropped."""
    shape = _shape(x)
    rank = len(shape)
    elem = _elem(x)
    count = 1
    for a in axes:
        count *= shape[a]
    keep = [i for i in range(rank) if i not in axes]
    its = ["reduction" if i in axes else "parallel" for i in range(rank)]
    kshape = [shape[i] for i in keep]
    total = _reduce(x, axes, 0.0, lambda a, acc: arith.AddFOp(acc, a).result)
    cnt = constant(elem, float(count))
    mean = _generic_maps([total], [empty(kshape, elem)], [_map(len(keep), range(len(keep)))] * 2,
                         ["parallel"] * len(keep), lambda t, _: arith.DivFOp(t, cnt).result)[0]

    def sq(a, mm, acc):
        dlt = arith.SubFOp(a, mm).result
        return arith.AddFOp(acc, arith.MulFOp(dlt, dlt).result).result

    ss = _generic_maps([x, mean], [fill(kshape, elem, 0.0)],
                       [_map(rank, range(rank)), _map(rank, keep), _map(rank, keep)], its, sq)[0]
    cnt2 = constant(elem, float(count))
    var = _generic_maps([ss], [empty(kshape, elem)], [_map(len(keep), range(len(keep)))] * 2,
                        ["parallel"] * len(keep), lambda t, _: arith.DivFOp(t, cnt2).result)[0]
    return mean, var, keep


def _rstd(var: ir.Value, eps: float) -> ir.Value:
    """rsqrt(var + eps), elementwise (computed once per statistic)."""
    shape = _shape(var)
    n = len(shape)
    e = constant(_elem(var), eps)
    return _generic_maps([var], [empty(shape, _elem(var))], [_map(n, range(n))] * 2,
                         ["parallel"] * n,
                         lambda v, _: math.RsqrtOp(arith.AddFOp(v, e).result).result)[0]


def _normalize(x, mean, rstd, scale, bias, stat_dims, param_dims):
    """y = (x - mean) * rstd * scale + bias."""
    rank = len(_shape(x))
    elem = _elem(x)

    def body(a, mm, r, g, b, _):
        y = arith.MulFOp(arith.SubFOp(a, mm).result, r).result
        return arith.AddFOp(arith.MulFOp(y, g).result, b).result

    return _generic_maps(
        [x, mean, rstd, scale, bias], [empty(_shape(x), elem)],
        [_map(rank, range(rank)), _map(rank, stat_dims), _map(rank, stat_dims),
         _map(rank, param_dims), _map(rank, param_dims), _map(rank, range(rank))],
        ["parallel"] * rank, body)[0]


@lowering("mindir.layer_norm")
def lower_layer_norm(op):
    x = op.x
    shape = _shape(x)
    rank = len(shape)
    bna = _int(op.begin_norm_axis)
    bna = bna + rank if bna < 0 else bna
    bpa = _int(op.begin_params_axis)
    bpa = bpa + rank if bpa < 0 else bpa
    mean, var, keep = _mean_var(x, list(range(bna, rank)))
    rstd = _rstd(var, _float(op.epsilon))
    y = _normalize(x, mean, rstd, op.gamma, op.beta, keep, list(range(bpa, rank)))
    stat_shape = shape[:bna] + [1] * (rank - bna)
    return [y, reshape_to(mean, stat_shape), reshape_to(rstd, stat_shape)]


@lowering("mindir.batch_norm")
def lower_batch_norm(op):
    x = op.x
    rank = len(_shape(x))
    eps = _float(op.epsilon)
    training = ir.BoolAttr(op.is_training).value
    if training:
        mean, var, _ = _mean_var(x, [i for i in range(rank) if i != 1])
    else:
        mean, var = op.mean, op.variance
    y = _normalize(x, mean, _rstd(var, eps), op.scale, op.bias, [1], [1])
    return [y, mean, var]


# ----------------------------------------------------------------------------
# Dropout, one_hot
# ----------------------------------------------------------------------------


@lowering("mindir.dropout")
def lower_dropout(op):
    x = op.x
    shape = _shape(x)
    rank = len(shape)
    elem = _elem(x)
    keep_prob = _float(op.keep_prob)
    key = rng_key(_int(op.seed), STREAM_DROPOUT, rng_offset(op))
    kp = constant(elem, keep_prob)

    def body(a, _y, _m):
        u = uniform_hash(key, linear_index(shape), elem)
        keep = arith.CmpFOp(arith.CmpFPredicate.OLT, u, kp).result
        mask = arith.SelectOp(keep, constant(elem, 1.0), constant(elem, 0.0)).result
        return [arith.DivFOp(arith.MulFOp(a, mask).result, kp).result, mask]

    ident = _map(rank, range(rank))
    return _generic_maps([x], [empty(shape, elem), empty(shape, elem)], [ident] * 3,
                         ["parallel"] * rank, body)


@lowering("mindir.one_hot")
def lower_one_hot(op):
    idx = op.indices
    out_t = ir.RankedTensorType(op.output.type)
    out_shape = list(out_t.shape)
    rank = len(out_shape)
    axis = _int(op.axis)
    axis = rank - 1 if axis == -1 else axis
    keep = [i for i in range(rank) if i != axis]

    def body(i, on, off, _):
        # compare as index (sign-extending the index): no truncation for depth > 127
        i_idx = arith.IndexCastOp(ir.IndexType.get(), i).result
        hit = arith.CmpIOp(arith.CmpIPredicate.eq, _index(axis), i_idx).result
        return arith.SelectOp(hit, on, off).result

    return _generic_maps(
        [idx, op.on_value, op.off_value], [empty(out_shape, out_t.element_type)],
        [_map(rank, keep), _map(rank, []), _map(rank, []), _map(rank, range(rank))],
        ["parallel"] * rank, body)[0]
