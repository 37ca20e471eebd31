"""Convolution kernels as img2col + cube matmuls (no pass): a group of Ascend C
kernels, as group.py's matmul groups.

Forward convolutions (the filter a kernel argument, the input one through
zero pads, any strides / dilations / groups, pads <= 255) form their img2col
on chip, with no GM workspace for it (_load3d_parts, cube.py's Load3D form):

    [filter [O, C, KK] -> [KK, O*C] (AIV transpose)] [input NCHW -> [H*W, N*C]
        (AIV transpose)] -> cube kernel (AIC): per K step the filter's columns
        in Load3D's (c1, kh, kw, c0) order (Nd2Nz of ndNum matrices), the band
        of input rows the output tile reads into L1 as 5HD (an Nd2Nz per
        C0-channel block, the padded channels zeroed by InitConstValue), one
        Load3D (LoadData3DParamsV2) into L0B, Mmad; a bias as each tile's
        first Mmad (bias column x a row of ones) -> [epilogue (AIV)]

(the transposes only where C > 1: a single channel is its own pixel-major
form). Load3D cannot express an interleaved input (the strided input
gradient), a cropped one, a rotated or permuted filter (input and filter
gradients), a result written transposed (filter gradient) or an output tile
that reads only padding; those keep the GM im2col form below, the reason in
the plan's `load3d_skipped` and the group's report:

    [filter permute (AIV)] -> im2col (AIV) -> batched cube matmul (AIC, cube.py)
        -> [epilogue (AIV, vector.py)]

  * im2col: col[b, (c, kh, kw), (oh, ow)] = in[b, c, oh*sh + kh*dh - pt, ow*sw + kw*dw - pl]
    in a GM workspace. With a unit width stride every (b, c, kh, kw) row is a
    window of `in` whose rows are contiguous runs in GM, so the im2col is pure
    data movement: DataCopyPad GM -> UB (one run per UB row, GM stride between
    runs) and UB -> GM (the runs packed), through a TQueBind<VECIN, VECOUT> of
    depth 2; the zero padding is written from a UB buffer of zeros (Duplicate).
    The GM side of DataCopyPad has no alignment rule, which is what makes
    unaligned runs legal here. The other form (needed for a width stride,
    the strided input gradient's interleaved dout, a crop; chosen by the cost
    model where it is cheaper) brings the source rows of one (b, c, kh) into
    UB once (GM row strides) and forms every kw's im2col rows on chip: one
    Gather per row through a table per kw (built once; borders and
    interleave gaps read a zeroed margin), the rows out at a GM stride of ry
    output rows (_im2col_gather_body): KW + 1 copies per (b, c, kh) instead
    of 2 KW.
  * grouped: the batch is (image, group); im2col's source adds g * sg, the
    cube's operands (bo, bi) strides (the filter of group g at g * O * K).
  * the product y_b[O, OH*OW] = A[O, C*KH*KW] @ col_b is a batched cube kernel
    whose A has batch stride 0 (one filter for every image) and whose C lands
    in NCHW directly (or, when the kernel transposes the result [1, 0, 2, 3],
    straight into the transposed layout through Fixpipe's row pitch).
  * the operands the linalg form builds inside the kernel are absorbed:
    tensor.pad / extract_slice (a crop) / strided insert_slice into zeros
    (the strided input gradient's interleave) of the input, the group split
    (expand_shape), linalg.transpose
    [1, 0, 2, 3] of the input (im2col's batch/channel strides) or of the
    filter (a permute kernel: [C, O, KK] -> [O, C, KK] by DataCopyPad runs),
    and the input gradient's rotated filter (W[f, c, KH-1-kh, KW-1-kw]: the
    rotation becomes im2col's reversed window offsets, the swap a permute).
    So the forward conv, the input gradient (conv of the padded dout with the
    rotated filter) and the filter gradient (conv of the transposed input with
    the transposed dout, batch = input channels) all run on the cube.

What is left of the kernel (bias, relu, the relu mask, an optimizer update)
is a vector kernel planned by vector.py from a copy of the function in which
the conv result is an argument, as group.py does for matmul epilogues.
f16 convolutions (AMP) take the same path in half: im2col moves halves (UB
rows padded to 16 elements, the Gather's zero margin one 32-byte block), the
cube multiplies f16 fractals accumulating in f32 in L0C and Fixpipe rounds
once to f16 (QuantMode_t::F322F16), as MindSpore's Ascend convolutions do. A
bias (AMP: an f32 parameter cast to f16 inside the kernel, the cast a vector
kernel of its own) is the filter's last column as in f32, so it is summed in
the f32 accumulator and rounded once with the products. The result is the
float32-accumulated convolution (+ bias) rounded to f16. The CPU target's
f16 convolution accumulates in f16 (a rounding per multiply-add) and adds the
bias after rounding, so the two targets differ there by a few f16 ulps on
long reductions. Other f16 casts of arguments over a smaller domain than the
result are also computed by kernels of their own (_side_casts) and read by
the epilogue.
Split-K (cube.py): the product may be split over K across idle cube cores
(f32 results), its partials summed by a vector kernel ("ksum") after it.
"""
from __future__ import annotations

import math

from mlir import ir

from .plan import F32, Plan, Unsupported, Value, align_up, camel, erase_dead_ops, kind_of

UB_TILE_BYTES = 64 * 1024          # one buffer of a copy queue (x2: double buffering)
ZERO_ROWS_BYTES = 16 * 1024        # the zeros a padded im2col copies from


def _op(v: ir.Value):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _ints(attr) -> list[int]:
    try:
        return [int(x) for x in ir.DenseIntElementsAttr(attr)]
    except (TypeError, ValueError):
        return list(ir.DenseI64ArrayAttr(attr))


def _is_swap01(op) -> bool:
    return op is not None and op.name == "linalg.transpose" and \
        list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) == [1, 0, 2, 3]


def _const_f(v: ir.Value):
    op = _op(v)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return None
    return ir.FloatAttr(op.attributes["value"]).value


def _perm(op) -> list[int] | None:
    if op is None or op.name != "linalg.transpose":
        return None
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _split_dim1(op) -> int | None:
    """G of a tensor.expand_shape splitting dim 1 of a 4-D tensor into (G, d1 / G)
    (grouped convolutions), else None."""
    if op is None or op.name != "tensor.expand_shape":
        return None
    src, out = (list(ir.RankedTensorType(v.type).shape) for v in (op.operands[0], op.results[0]))
    # a row-major reshape: the shapes say it all (unit dims make the reassociation ambiguous)
    if len(src) != 4 or len(out) != 5 or out[0] != src[0] or out[1] * out[2] != src[1] or out[3:] != src[2:]:
        return None
    return out[1]


def _split_dim0(op) -> bool:
    """Whether op is a tensor.expand_shape splitting dim 0 of a 4-D tensor in two
    (a grouped filter [G * Og, Cg, KH, KW] -> [G, Og, Cg, KH, KW])."""
    if op is None or op.name != "tensor.expand_shape":
        return False
    src, out = (list(ir.RankedTensorType(v.type).shape) for v in (op.operands[0], op.results[0]))
    return len(src) == 4 and len(out) == 5 and out[0] * out[1] == src[0] and out[2:] == src[1:]


class _Input:
    """The conv's input V (4-D [B, C, Hv, Wv], or 5-D [B, G, C, Hv, Wv] for a
    grouped convolution) as a view of a kernel argument x [d0, d1, H, W]:
    V[b, (g,) c, y, v] = x[b * sb (+ g * sg) + c * sc + ((y - pt) / ry) * W + (v - pl) / rx]
    when both divisions are exact and land inside x, zero elsewhere. pt, pl
    are the low offsets (a zero padding, or negative: a cropped border),
    ry, rx > 1 an interleave (the input gradient of a strided convolution
    spreads dout with ry - 1 zero rows between its rows). The ops between
    x and the conv (pads, crops, the interleaving insert, transposes of the
    leading dims, the group split) are absorbed."""

    def __init__(self, v: ir.Value, block):
        self.pt = self.pl = 0
        self.ry = self.rx = 1
        self.Hv, self.Wv = list(ir.RankedTensorType(v.type).shape)[-2:]
        chain = []
        while True:
            op = _op(v)
            if op is None:
                break
            if op.name not in ("tensor.pad", "tensor.extract_slice", "tensor.insert_slice", "linalg.transpose",
                               "tensor.expand_shape"):
                raise Unsupported(f"a convolution input computed by '{op.name}' inside the kernel")
            chain.append(op)
            v = op.operands[0]
        if v.owner != block:
            raise Unsupported("a convolution input that is not a kernel argument")
        self.arg = v.arg_number
        shape = list(ir.RankedTensorType(v.type).shape)
        self.numel = math.prod(shape)
        d0, d1, self.H, self.W = shape
        lead = [(d0, d1 * self.H * self.W), (d1, self.H * self.W)]     # (size, stride) of the leading dims
        for op in reversed(chain):                                      # from x outwards
            if op.name in ("tensor.pad", "tensor.extract_slice", "tensor.insert_slice"):
                self._spatial(op)
            elif op.name == "linalg.transpose":
                perm = _perm(op)
                n = len(perm)
                if perm[n - 2:] != [n - 2, n - 1] or len(lead) != n - 2:
                    raise Unsupported("a convolution input transposed across its spatial dims")
                lead = [lead[p] for p in perm[:n - 2]]
            else:
                g = _split_dim1(op)
                if g is None or len(lead) != 2:
                    raise Unsupported("a convolution input reshaped otherwise than into groups")
                (a, sa), (c, sc) = lead
                lead = [(a, sa), (g, c // g * sc), (c // g, sc)]
        if len(lead) == 2:
            lead.insert(1, (1, 0))
        (_, self.sb), (self.G, self.sg), (_, self.sc) = lead
        # zeros read by the convolution: a border, or the interleave's gaps
        self.pb = self.Hv - self.pt - ((self.H - 1) * self.ry + 1)
        self.pr = self.Wv - self.pl - ((self.W - 1) * self.rx + 1)
        self.padded = (self.ry, self.rx) != (1, 1) or max(self.pt, self.pb, self.pl, self.pr) > 0

    def _spatial(self, op):
        if (self.ry, self.rx) != (1, 1) and op.name == "tensor.insert_slice":
            raise Unsupported("a convolution input interleaved twice")
        rank = ir.RankedTensorType(op.results[0].type).rank
        if rank != 4:
            raise Unsupported("a convolution input padded or sliced after its group split")
        if op.name == "tensor.pad":
            low = list(ir.DenseI64ArrayAttr(op.attributes["static_low"]))
            high = list(ir.DenseI64ArrayAttr(op.attributes["static_high"]))
            yld = [o.operation for o in op.regions[0].blocks[0].operations][-1]
            if len(op.operands) != 1 or low[:2] != [0, 0] or high[:2] != [0, 0] or min(low + high) < 0 \
                    or _const_f(yld.operands[0]) != 0.0:
                raise Unsupported("a convolution input padded otherwise than with zeros on H and W")
            self.pt += low[2]
            self.pl += low[3]
            return
        offs, sizes, strides = (list(ir.DenseI64ArrayAttr(op.attributes[k])) for k in
                                ("static_offsets", "static_sizes", "static_strides"))
        src = list(ir.RankedTensorType(op.operands[0].type).shape)
        if op.name == "tensor.extract_slice":            # a crop: V[y] = src[y + offset]
            if len(op.operands) != 1 or offs[:2] != [0, 0] or sizes[:2] != src[:2] or set(strides) != {1}:
                raise Unsupported("a convolution input sliced otherwise than on H and W")
            self.pt -= offs[2]
            self.pl -= offs[3]
            return
        from .plan import _const_scalar                  # src spread into zeros: V[o + k * s] = src[k]
        if len(op.operands) != 2 or _const_scalar(op.operands[1]) != 0.0 or offs[:2] != [0, 0] or \
                strides[:2] != [1, 1] or src[:2] != list(ir.RankedTensorType(op.operands[1].type).shape)[:2] \
                or (self.pt, self.pl) != (0, 0):
            raise Unsupported("a convolution input inserted otherwise than into zeros on H and W")
        self.pt, self.pl = offs[2], offs[3]
        self.ry, self.rx = strides[2], strides[3]

    def contiguous(self, sw: int) -> bool:
        """Whether every im2col row is a run of consecutive x elements per output
        row (DataCopyPad alone): unit width stride, no interleave, no crop."""
        return sw == 1 and (self.ry, self.rx) == (1, 1) and min(self.pt, self.pl) >= 0


def _int_const(v: ir.Value, sym: dict):
    if sym.get(v, ("",))[0] == "c":
        return sym[v][1]
    op = _op(v)
    if op is not None and op.name == "arith.constant" and isinstance(op.attributes["value"], ir.IntegerAttr):
        return ir.IntegerAttr(op.attributes["value"]).value
    return None


class _Filter:
    """The conv's filter ([O, C, KH, KW], or [G, O/G, C, KH, KW] grouped) as
    a kernel argument: direct (`perm` None: the A matrices are rows of it),
    or a permute of it (`perm` = (groups, A, Bd, inner): the A matrices are
    y[g, Bd, A, inner] = x[g, A, Bd, inner], a permute kernel), possibly
    rotated by 180 degrees (`flip`: im2col reverses the window)."""

    def __init__(self, v: ir.Value, block):
        self.flip = False
        self.perm = None
        fshape = list(ir.RankedTensorType(v.type).shape)
        KK = fshape[-1] * fshape[-2]
        op = _op(v)
        if op is not None and _perm(op) in ([1, 0, 2, 3], [1, 2, 0, 3, 4]):
            # [C, O, KK] stored (the filter gradient's dout, split in groups: [N, G*Og, KK])
            v = op.operands[0]
            if len(fshape) == 5:
                if _split_dim1(_op(v)) is None:
                    raise Unsupported("a grouped convolution filter of an unexpected form")
                v = _op(v).operands[0]
            s = list(ir.RankedTensorType(v.type).shape)
            self.perm = (1, s[0], s[1], KK)
        elif op is not None and op.name == "linalg.generic":
            v = self._rotated(op)
            if len(fshape) == 5:                        # per group: [Og, Cg, KK] -> [Cg, Og, KK]
                self.perm = (fshape[0], fshape[2], fshape[1], KK)
            else:
                self.perm = (1, fshape[1], fshape[0], KK)
            self.flip = True
        elif op is not None and len(fshape) == 5 and _split_dim0(op):
            v = op.operands[0]
        elif op is not None:
            raise Unsupported(f"a convolution filter computed by '{op.name}' inside the kernel")
        if v.owner != block:
            raise Unsupported("a convolution filter that is not a kernel argument")
        self.arg = v.arg_number
        self.shape = list(ir.RankedTensorType(v.type).shape)
        if self.perm is not None and (self.perm[1] == 1 or self.perm[2] == 1):
            self.perm = None                            # a permute of a unit dim is the identity

    @staticmethod
    def _rotated(op) -> ir.Value:
        """The argument W of `out[a, b, i, j] = W[b, a, KH-1-i, KW-1-j]` (the
        input gradient's rotated filter; grouped: `out[g, a, b, i, j] =
        W5[g, b, a, KH-1-i, KW-1-j]`, W5 W split in groups), else Unsupported."""
        shape = list(ir.RankedTensorType(op.results[0].type).shape)
        body = [o.operation for o in op.regions[0].blocks[0].operations]
        r = len(shape)
        if len(op.operands) != 1 or r not in (4, 5):
            raise Unsupported("a convolution filter computed by a linalg.generic")
        sym = {}
        ext = None
        for b in body:
            if b.name == "linalg.index":
                sym[b.results[0]] = ("d", ir.IntegerAttr(b.attributes["dim"]).value)
            elif b.name == "arith.constant" and isinstance(b.attributes["value"], ir.IntegerAttr):
                sym[b.results[0]] = ("c", ir.IntegerAttr(b.attributes["value"]).value)
            elif b.name == "arith.subi" and _int_const(b.operands[0], sym) is not None and \
                    sym.get(b.operands[1], ("",))[0] == "d":
                sym[b.results[0]] = ("r", sym[b.operands[1]][1], _int_const(b.operands[0], sym))
            elif b.name == "tensor.extract":
                ext = b
            elif b.name != "linalg.yield":
                raise Unsupported("a convolution filter computed by a linalg.generic")
        if ext is None or body[-1].operands[0] != ext.results[0]:
            raise Unsupported("a convolution filter computed by a linalg.generic")
        idx = [sym.get(x) or ("c", _int_const(x, sym)) for x in list(ext.operands)[1:]]
        kh, kw = shape[-2], shape[-1]
        src = ext.operands[0]
        op0 = _op(src)
        lead = [("d", 1), ("d", 0)] if r == 4 else [("d", 0), ("d", 2), ("d", 1)]
        want = lead + [("r", r - 2, kh - 1), ("r", r - 1, kw - 1)]
        src_shape = list(ir.RankedTensorType(src.type).shape)
        # a unit dim may be indexed by a constant 0
        if len(idx) != r or any(a != e and not (a == ("c", 0) and n == 1) for a, e, n in zip(idx, want, src_shape)):
            raise Unsupported("a convolution filter computed by a linalg.generic")
        if r == 5:
            if not _split_dim0(op0):
                raise Unsupported("a grouped convolution filter of an unexpected form")
            return op0.operands[0]
        if op0 is not None:
            raise Unsupported("a convolution filter computed by a linalg.generic")
        return src


def conv_op(fn):
    """The kernel's single linalg.conv_2d_nchw_fchw / conv_2d_ngchw_gfchw (grouped), or None."""
    ops = [o.operation for o in fn.regions[0].blocks[0].operations]
    convs = [o for o in ops if o.name in ("linalg.conv_2d_nchw_fchw", "linalg.conv_2d_ngchw_gfchw")]
    if not convs:
        return None
    if len(convs) > 1:
        raise Unsupported("a kernel with several convolutions")
    return convs[0]


# ----------------------------------------------------------------------------- DMA kernels
def _split(items: int, cores: int) -> tuple[int, int]:
    block_dim = max(1, min(cores, items))
    per = -(-items // block_dim)
    return -(-items // per), per


def _narrow_dma(plan: Plan, cores: int) -> Plan:
    """A copy kernel of few cheap items on fewer cores where the launch's
    per-block cost outweighs spreading them (cost.cheapest_block_dim)."""
    from .cost import cheapest_block_dim, estimate
    t = plan.dma["tiling"]
    item = estimate(plan)["cycles"] / t["itemsPerCore"]
    bd = cheapest_block_dim(t["items"], cores, item)
    if bd < t["blockDim"]:
        per = -(-t["items"] // bd)
        t.update(itemsPerCore=per, blockDim=-(-t["items"] // per))
    return plan


def _dma_plan(kernel, func, kind, what, ins, outs, tiling, ub_bytes, tile, copies, moved) -> Plan:
    plan = Plan(kernel=kernel, func=func, kind=what,
                inputs=[(Value(f"in{i}", "full", "input", index=i), n) for i, (n, _) in enumerate(ins)],
                outputs=[(Value(f"out{k}", "full", "output", index=k), n) for k, (n, _) in enumerate(outs)],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc="")
    plan.shapes = {"in": [s for _, s in ins], "out": [s for _, s in outs]}
    plan.ub_bytes = ub_bytes
    plan.dma = {"kind": kind, "tiling": tiling, "tiles": tiling["items"], "tile": tile,
                "copies_per_item": copies, "bytes_per_item": moved}
    return plan


def im2col_plan(inp: _Input, C: int, B: int, KH: int, KW: int, OH: int, OW: int, strides, dils, flip: bool,
                kernel: str, func: str, *, soc: str, cores: int, in_shape, ones: bool = False,
                es: int = F32) -> Plan:
    """col[B, C*KH*KW (+1), OH*OW] of `inp` (see the module docstring);
    `ones`: a last row of ones per image (the bias column's partner).
    Two forms: runs (unit width stride, no interleave, no crop: DataCopyPad
    alone, one item per (b, c, kh, kw)), or rows + Gather (any window: the
    source rows of one (b, c, kh) brought into UB once, every kw's columns
    gathered from them). Where both apply, the cheaper by the cost model."""
    from .cost import with_launch
    sh, sw = strides
    if inp.ry > 1 and sh > 1:
        raise Unsupported("a strided convolution of an interleaved input")
    forms = [True] + ([False] if inp.contiguous(sw) else [])
    best = None
    for gather in forms:
        try:
            plan = _im2col_form(gather, inp, C, B, KH, KW, OH, OW, strides, dils, flip, kernel, func, soc=soc,
                                cores=cores, in_shape=in_shape, ones=ones, es=es)
        except Unsupported:
            if gather and len(forms) > 1:
                continue
            raise
        cyc = with_launch(plan)        # (each form narrowed to the blockDim that pays)
        if best is None or cyc < best[0]:
            best = (cyc, plan)
    return best[1]


def _im2col_form(gather: bool, inp: _Input, C: int, B: int, KH: int, KW: int, OH: int, OW: int, strides, dils,
                 flip: bool, kernel: str, func: str, *, soc: str, cores: int, in_shape, ones: bool,
                 es: int = F32) -> Plan:
    sh, sw = strides
    dh, dw = dils
    padded = inp.padded
    lanes = 32 // es                               # elements per 32-byte block (8 f32, 16 f16)
    pitch = align_up(OW, lanes)
    G = inp.G
    items = B * G * C * KH * (1 if gather else KW)
    block_dim, per = _split(items, cores)
    tiling = {"C": C, "H": inp.H, "W": inp.W, "sb": inp.sb, "G": G, "sg": inp.sg, "sc": inp.sc, "KH": KH, "KW": KW,
              "OH": OH, "OW": OW, "sh": sh, "sw": sw, "dh": dh, "dw": dw, "ry": inp.ry, "rx": inp.rx,
              "pt": inp.pt & 0xFFFFFFFF, "pl": inp.pl & 0xFFFFFFFF, "flip": int(flip)}
    rows_max = min(OH, inp.H)
    if gather:
        pin = lanes + align_up(inp.W, lanes)           # a source row after a block of zeros (the Gather's zero)
        if 2 * (pin + pitch) * es > 2 * UB_TILE_BYTES or KW * pitch * 4 > ZERO_ROWS_BYTES * 2:
            raise Unsupported(f"an im2col row of {inp.W} -> {OW} elements does not fit UB")
        tile_rows = max(1, min(rows_max, UB_TILE_BYTES // ((pin + pitch) * es)))
        ub = 2 * tile_rows * (pin + pitch) * es + KW * pitch * 4
    else:
        tile_rows = max(1, min(OH, UB_TILE_BYTES // (pitch * es)))
        ub = 2 * tile_rows * pitch * es
    zero_rows = max(1, min(OH, ZERO_ROWS_BYTES // (pitch * es))) if padded or ones else 0
    ub += (int(padded) + int(ones)) * zero_rows * pitch * es
    tiling.update({"tileRows": tile_rows, "zeroRows": zero_rows, "ones": int(ones), "items": items,
                   "itemsPerCore": per, "blockDim": block_dim})
    row_tiles = -(-rows_max // tile_rows)
    fills = (2 if inp.ry > 1 else 4) if padded else 0
    if gather:     # per (b, c, kh): the rows in once, KW gathered blocks out
        copies = row_tiles * (1 + KW) + KW * min(fills, 2)
        moved = (rows_max * inp.W + KW * OH * OW) * es
    else:
        copies, moved = 2 * row_tiles + fills, 2 * OH * OW * es
    rows = C * KH * KW + int(ones)
    plan = _dma_plan(kernel, func, "im2col", "im2col", [(inp.numel, in_shape)],
                     [(B * G * rows * OH * OW, [B * G, rows, OH * OW])], tiling, ub,
                     f"{tile_rows}x{OW}", copies, moved)
    plan.dma["padded"] = padded
    plan.dma["gather"] = gather
    _typed_dma(plan, es)
    if gather:     # one Gather per source row and kw; the tables once per core
        plan.dma["vector_per_item"] = KW * rows_max * (8 + math.ceil(pitch * es / 256))
        plan.dma["setup"] = (KW * pitch, 2 + int(padded) + int(ones))
    plan.soc = soc
    return _narrow_dma(plan, cores)


def permute_plan(A: int, Bd: int, inner: int, kernel: str, func: str, *, soc: str, cores: int, in_shape,
                 groups: int = 1, es: int = F32) -> Plan:
    """y[g, Bd, A, inner] = x[g, A, Bd, inner] (g < groups) by DataCopyPad runs
    of `inner` elements (`es`: bytes per element, 4 f32 or 2 f16)."""
    pitch = align_up(inner, 32 // es)
    if pitch * es > UB_TILE_BYTES:
        raise Unsupported(f"permuting runs of {inner} elements does not fit UB")
    tile_b = max(1, min(Bd, UB_TILE_BYTES // (pitch * es)))
    block_dim, per = _split(groups * A, cores)
    tiling = {"A": A, "Bd": Bd, "inner": inner, "tileB": tile_b, "items": groups * A, "itemsPerCore": per,
              "blockDim": block_dim}
    n = groups * A * Bd * inner
    plan = _dma_plan(kernel, func, "permute", "permute", [(n, in_shape)],
                     [(n, [groups * Bd, A * inner])], tiling, 2 * tile_b * pitch * es,
                     f"{tile_b}x{inner}", 2 * -(-Bd // tile_b), 2 * Bd * inner * es)
    _typed_dma(plan, es)
    plan.soc = soc
    return _narrow_dma(plan, cores)


def augment_plan(O: int, K: int, kernel: str, func: str, *, soc: str, cores: int, in_shapes,
                 es: int = F32) -> Plan:
    """y[O, K + 1] = [a | bias]: the filter matrix with the bias as a last column."""
    pitch = align_up(K, 32 // es)
    if pitch * es > UB_TILE_BYTES:
        raise Unsupported(f"a filter row of {K} elements does not fit UB")
    tile_rows = max(1, min(O, UB_TILE_BYTES // (pitch * es)))
    chunks = -(-O // tile_rows)
    block_dim, per = _split(chunks, cores)
    tiling = {"O": O, "K": K, "tileRows": tile_rows, "items": chunks, "itemsPerCore": per, "blockDim": block_dim}
    plan = _dma_plan(kernel, func, "augment", "augment", [(O * K, in_shapes[0]), (O, in_shapes[1])],
                     [(O * (K + 1), [O, K + 1])], tiling, 2 * tile_rows * pitch * es, f"{tile_rows}x{K}", 4,
                     2 * tile_rows * (K + 1) * es)
    _typed_dma(plan, es)
    plan.soc = soc
    return _narrow_dma(plan, cores)


def _augment_body(op: str, plan: Plan) -> str:
    return f"""// y[O, K + 1] = [a[O, K] | bias[O]] (the bias multiplies im2col's row of ones).
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, const {op}TilingData& td) {{
    O = td.O; K = td.K; tileRows = td.tileRows;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    aGm.SetGlobalBuffer((__gm__ float*)x0, {plan.inputs[0][1]});
    biasGm.SetGlobalBuffer((__gm__ float*)x1, {plan.inputs[1][1]});
    yGm.SetGlobalBuffer((__gm__ float*)y0, {plan.outputs[0][1]});
    pipe.InitBuffer(que, BUFFER_NUM, tileRows * ((K + 7) / 8 * 8) * sizeof(float));
  }}

  __aicore__ inline void Process() {{
    for (uint32_t chunk = begin; chunk < end; ++chunk) {{
      uint32_t o0 = chunk * tileRows, n = O - o0 < tileRows ? O - o0 : tileRows;
      Move(aGm[o0 * K], yGm[o0 * (K + 1)], n, K);          // the rows of a
      Move(biasGm[o0], yGm[o0 * (K + 1) + K], n, 1);       // the bias column
    }}
  }}

 private:
  // n runs of len elements, packed in GM -> row pitch K + 1 in GM
  __aicore__ inline void Move(const GlobalTensor<float>& src, const GlobalTensor<float>& dst, uint32_t n, uint32_t len) {{
    LocalTensor<float> t = que.AllocTensor<float>();
    DataCopyPad(t, src, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
    que.EnQue(t);
    LocalTensor<float> u = que.DeQue<float>();
    DataCopyPad(dst, u, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (K + 1 - len) * (uint32_t)sizeof(float), 0}});
    que.FreeTensor(u);
  }}

  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
  GlobalTensor<float> aGm, biasGm, yGm;
  uint32_t O, K, tileRows, begin, end;
}};
"""


def _typed_dma(plan: Plan, es: int) -> None:
    """Marks a data-movement plan as moving f16 (es 2) elements: GM arrays of
    half, UB rows padded to 16 elements (32 bytes)."""
    plan.dma["dtype"] = "f16" if es == 2 else "f32"
    if es == 2:
        plan.shapes["in_dtypes"] = ["float16"] * len(plan.inputs)
        plan.shapes["out_dtypes"] = ["float16"] * len(plan.outputs)


# the f32 source's spellings -> f16 (elements of 2 bytes: 16 per 32-byte block; the Gather's zero
# margin one block of 16 halves)
_HALF = [("float", "half"), ("0.0f", "(half)0.0f"), ("1.0f", "(half)1.0f"), (" + 7) / 8 * 8", " + 15) / 16 * 16"),
         ("rowPitch = 8 + ", "rowPitch = 16 + "), ("// 8 zeros, then", "// 16 zeros, then"),
         ("DataCopyPad(s[8], ", "DataCopyPad(s[16], "), ("src = 8 + v / rx", "src = 16 + v / rx")]


def _half_source(src: str) -> str:
    for a, b in _HALF:
        src = src.replace(a, b)
    return src


def dma_source(plan: Plan, bug: str = "") -> str:
    if plan.dma["kind"] == "copy":            # movement.py's copy kernels
        from .movement import copy_source
        return copy_source(plan, bug)
    t = plan.dma["tiling"]
    op = camel(plan.kernel)
    head = (f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}): the "
            f"{plan.dma['kind']} feeding a cube kernel of\n// @{plan.func} (data movement only: DataCopyPad "
            f"runs GM -> UB -> GM through a TQueBind, double-buffered).\n"
            '#include "kernel_operator.h"\nusing namespace AscendC;\n\n'
            "constexpr int32_t BUFFER_NUM = 2;\n"
            "\n")
    xs = ", ".join(f"GM_ADDR x{i}" for i in range(len(plan.inputs)))
    xa = ", ".join(f"x{i}" for i in range(len(plan.inputs)))
    if plan.dma["kind"] == "permute":
        body = _permute_body(op, plan)
    elif plan.dma["kind"] == "augment":
        body = _augment_body(op, plan)
    elif plan.dma.get("gather"):
        body = _im2col_gather_body(op, plan, plan.dma["padded"], bool(t["ones"]))
    else:
        body = _im2col_body(op, plan, plan.dma["padded"], bool(t["ones"]))
    if plan.dma.get("dtype") == "f16":
        body = _half_source(body)
    return head + body + (
        f'\nextern "C" __global__ __aicore__ void {plan.kernel}({xs}, GM_ADDR y0, GM_ADDR workspace, '
        f"GM_ADDR tiling) {{\n  GET_TILING_DATA(tilingData, tiling);\n  Kernel{op} op;\n"
        f"  op.Init({xa}, y0, tilingData);\n  op.Process();\n}}\n")


def _permute_body(op: str, plan: Plan) -> str:
    n_in, n_out = plan.inputs[0][1], plan.outputs[0][1]
    return f"""// y[g, Bd, A, inner] = x[g, A, Bd, inner]: per (g, a), runs of `inner` elements to a GM stride of A * inner.
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const {op}TilingData& td) {{
    A = td.A; Bd = td.Bd; inner = td.inner; tileB = td.tileB;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    xGm.SetGlobalBuffer((__gm__ float*)x0, {n_in});
    yGm.SetGlobalBuffer((__gm__ float*)y0, {n_out});
    pipe.InitBuffer(que, BUFFER_NUM, tileB * ((inner + 7) / 8 * 8) * sizeof(float));
  }}

  __aicore__ inline void Process() {{
    for (uint32_t item = begin; item < end; ++item) {{
      uint32_t a = item % A, base = item / A * A * Bd * inner;     // item = (group, a)
      for (uint32_t b0 = 0; b0 < Bd; b0 += tileB) {{
        uint32_t n = Bd - b0 < tileB ? Bd - b0 : tileB;
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopyPad(t, xGm[base + (a * Bd + b0) * inner], DataCopyExtParams{{(uint16_t)n, inner * (uint32_t)sizeof(float), 0, 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
        que.EnQue(t);
        LocalTensor<float> u = que.DeQue<float>();
        DataCopyPad(yGm[base + (b0 * A + a) * inner], u, DataCopyExtParams{{(uint16_t)n, inner * (uint32_t)sizeof(float), 0, (A - 1) * inner * (uint32_t)sizeof(float), 0}});
        que.FreeTensor(u);
      }}
    }}
  }}

 private:
  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
  GlobalTensor<float> xGm, yGm;
  uint32_t A, Bd, inner, tileB, begin, end;
}};
"""


def _im2col_body(op: str, plan: Plan, padded: bool, ones: bool) -> str:
    t = plan.dma["tiling"]
    n_in, n_out = plan.inputs[0][1], plan.outputs[0][1]
    zero_init = ("\n    pipe.InitBuffer(zeroBuf, zeroRows * pitch * sizeof(float));\n"
                 "    Duplicate(zeroBuf.Get<float>(), 0.0f, zeroRows * pitch);") if padded else ""
    if ones:
        zero_init += ("\n    pipe.InitBuffer(oneBuf, zeroRows * pitch * sizeof(float));\n"
                      "    Duplicate(oneBuf.Get<float>(), 1.0f, zeroRows * pitch);")
    if padded or ones:                 # the vector unit's fills before MTE3 copies them out
        zero_init += "\n    SetFlag<HardEvent::V_MTE3>(0);\n    WaitFlag<HardEvent::V_MTE3>(0);"
    zero_fn = """
  // rows x len values of `buf` (zeros or ones) at dst (row pitch OW)
  __aicore__ inline void Fill(TBuf<TPosition::VECCALC>& buf, uint32_t dst, uint32_t rows, uint32_t len) {
    if (rows == 0 || len == 0) return;
    LocalTensor<float> z = buf.Get<float>();
    for (uint32_t r0 = 0; r0 < rows; r0 += zeroRows) {
      uint32_t n = rows - r0 < zeroRows ? rows - r0 : zeroRows;
      DataCopyPad(colGm[dst + r0 * OW], z, DataCopyExtParams{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (OW - len) * (uint32_t)sizeof(float), 0});
    }
  }
""" if padded or ones else ""
    zero_calls = """
    Fill(zeroBuf, dst, ohLo, OW);                                   // rows above the input
    Fill(zeroBuf, dst + ohHi * OW, OH - ohHi, OW);                  // rows below it
    Fill(zeroBuf, dst + ohLo * OW, ohHi - ohLo, owLo);              // left of it
    Fill(zeroBuf, dst + ohLo * OW + owHi, ohHi - ohLo, OW - owHi);  // right of it""" if padded else ""
    ones_call = """
    if (item % KK == KK - 1) Fill(oneBuf, dst + OH * OW, OH, OW);  // the image's row of ones (bias)""" \
        if ones else ""
    bufs = "".join(f"\n  TBuf<TPosition::VECCALC> {b};" for b, on in (("zeroBuf", padded), ("oneBuf", ones)) if on)
    return f"""// col[b, (c, kh, kw), (oh, ow)] = x[b, c, oh * sh + kh' * dh - pt, ow + kw' * dw - pl] (kh' = KH-1-kh when
// flip), zero outside x: one item per (b, c, kh, kw), {t['items']} items over {t['blockDim']} cores.
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const {op}TilingData& td) {{
    C = td.C; H = td.H; W = td.W; sb = td.sb; G = td.G; sg = td.sg; sc = td.sc; KH = td.KH; KW = td.KW; OH = td.OH; OW = td.OW;
    sh = td.sh; dh = td.dh; dw = td.dw; pt = td.pt; pl = td.pl; flip = td.flip; tileRows = td.tileRows;
    zeroRows = td.zeroRows; ones = td.ones; KK = C * KH * KW;
    pitch = (OW + 7) / 8 * 8;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    xGm.SetGlobalBuffer((__gm__ float*)x0, {n_in});
    colGm.SetGlobalBuffer((__gm__ float*)y0, {n_out});
    pipe.InitBuffer(que, BUFFER_NUM, tileRows * pitch * sizeof(float));{zero_init}
  }}

  __aicore__ inline void Process() {{
    for (uint32_t item = begin; item < end; ++item) Row(item);
  }}

 private:
  __aicore__ inline void Row(uint32_t item) {{
    uint32_t kw = item % KW, kh = item / KW % KH, c = item / (KW * KH) % C, b = item / (KW * KH * C);
    if (flip) {{ kh = KH - 1 - kh; kw = KW - 1 - kw; }}
    uint32_t dst = ((item / KK) * (KK + ones) + item % KK) * OH * OW;{ones_call}
    kh *= dh; kw *= dw;                                             // the window offsets (dilation)
    // output rows/columns whose input position is inside x
    uint32_t ohLo = pt > kh ? (pt - kh + sh - 1) / sh : 0;
    uint32_t ohHi = H + pt > kh ? (H + pt - kh - 1) / sh + 1 : 0;
    if (ohHi > OH) ohHi = OH;
    uint32_t owLo = pl > kw ? pl - kw : 0;
    uint32_t owHi = W + pl > kw ? W + pl - kw : 0;
    if (owHi > OW) owHi = OW;
    if (ohLo > ohHi) ohLo = ohHi;
    if (owLo > owHi) owLo = owHi;{zero_calls}
    if (ohLo == ohHi || owLo == owHi) return;
    uint32_t len = owHi - owLo;
    for (uint32_t r0 = ohLo; r0 < ohHi; r0 += tileRows) {{
      uint32_t n = ohHi - r0 < tileRows ? ohHi - r0 : tileRows;
      LocalTensor<float> t = que.AllocTensor<float>();
      DataCopyPad(t, xGm[b / G * sb + b % G * sg + c * sc + (r0 * sh + kh - pt) * W + owLo + kw - pl],
                  DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), (sh * W - len) * (uint32_t)sizeof(float), 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
      que.EnQue(t);
      LocalTensor<float> u = que.DeQue<float>();
      DataCopyPad(colGm[dst + r0 * OW + owLo], u,
                  DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (OW - len) * (uint32_t)sizeof(float), 0}});
      que.FreeTensor(u);
    }}
  }}
{zero_fn}
  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;{bufs}
  GlobalTensor<float> xGm, colGm;
  uint32_t C, H, W, sb, G, sg, sc, KH, KW, OH, OW, sh, dh, dw, pt, pl, flip, tileRows, zeroRows, ones, KK, pitch, begin, end;
}};
"""


def _im2col_gather_body(op: str, plan: Plan, padded: bool, ones: bool) -> str:
    """The im2col formed on chip (any window; the only form for a width stride,
    an interleaved or a cropped input): per (b, c, kh) the source rows GM ->
    UB once (DataCopyPad, GM row strides), then for every kw the columns
    picked by one Gather per row with a table per kw (built once: the column
    stride, the dilation, the interleave and the borders, which read a zero
    margin) and UB -> GM at a GM stride of ry rows."""
    t = plan.dma["tiling"]
    n_in, n_out = plan.inputs[0][1], plan.outputs[0][1]
    inits = ["    pipe.InitBuffer(zeroBuf, zeroRows * pitch * sizeof(float));"] if padded else []
    fills = ["    Duplicate(zeroBuf.Get<float>(), 0.0f, zeroRows * pitch);"] if padded else []
    if ones:
        inits.append("    pipe.InitBuffer(oneBuf, zeroRows * pitch * sizeof(float));")
        fills.append("    Duplicate(oneBuf.Get<float>(), 1.0f, zeroRows * pitch);")
    init_txt = "\n".join(inits)
    fill_txt = "\n".join(fills)
    fill_fn = """
  // rows x OW values of `buf` (zeros or ones) at dst
  __aicore__ inline void Fill(TBuf<TPosition::VECCALC>& buf, uint32_t dst, uint32_t rows) {
    LocalTensor<float> z = buf.Get<float>();
    for (uint32_t r0 = 0; r0 < rows; r0 += zeroRows) {
      uint32_t n = rows - r0 < zeroRows ? rows - r0 : zeroRows;
      DataCopyPad(colGm[dst + r0 * OW], z, DataCopyExtParams{(uint16_t)n, OW * (uint32_t)sizeof(float), 0, 0, 0});
    }
  }
""" if padded or ones else ""
    zero_calls = """
    for (uint32_t kw = 0; kw < KW; ++kw) {                          // the same rows of every kw's block
      uint32_t dst = dst0 + kw * OH * OW;
      if (nv == 0 || ry > 1) {
        Fill(zeroBuf, dst, OH);                                     // every row (then the rows that read x)
      } else {
        if (hLo > 0) Fill(zeroBuf, dst, hLo);                       // rows above x
        if (hLo + nv < OH) Fill(zeroBuf, dst + (hLo + nv) * OW, OH - hLo - nv);  // rows below it
      }
    }""" if padded else ""
    ones_call = """
    if (c == C - 1 && kh == KH - 1) Fill(oneBuf, (b * (KK + 1) + KK) * OH * OW, OH);  // the image's row of ones""" \
        if ones else ""
    bufs = "".join(f"\n  TBuf<TPosition::VECCALC> {b};" for b, on in (("zeroBuf", padded), ("oneBuf", ones)) if on)
    return f"""// col[b, (c, kh, kw), (oh, ow)] = V[b, c, oh * sh + kh' * dh, ow * sw + kw' * dw] (kh' = KH-1-kh when flip),
// V[b, c, y, v] = x[b, c, (y - pt) / ry, (v - pl) / rx] when both divisions are exact and inside x, else 0:
// source rows GM -> UB by DataCopyPad once per window row, then for every kw the columns by a Gather per
// row (a table per kw, built once) and a copy out; one item per (b, c, kh), {t['items']} items over
// {t['blockDim']} cores.
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const {op}TilingData& td) {{
    C = td.C; H = td.H; W = td.W; sb = td.sb; G = td.G; sg = td.sg; sc = td.sc; KH = td.KH; KW = td.KW; OH = td.OH; OW = td.OW;
    sh = td.sh; sw = td.sw; dh = td.dh; dw = td.dw; ry = td.ry; rx = td.rx; pt = (int32_t)td.pt;
    pl = (int32_t)td.pl; flip = td.flip; tileRows = td.tileRows; zeroRows = td.zeroRows; ones = td.ones;
    KK = C * KH * KW;
    pitch = (OW + 7) / 8 * 8;
    rowPitch = 8 + (W + 7) / 8 * 8;                                 // 8 zeros, then a source row
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    xGm.SetGlobalBuffer((__gm__ float*)x0, {n_in});
    colGm.SetGlobalBuffer((__gm__ float*)y0, {n_out});
    pipe.InitBuffer(inQue, BUFFER_NUM, tileRows * rowPitch * sizeof(float));
    pipe.InitBuffer(outQue, BUFFER_NUM, tileRows * pitch * sizeof(float));
    pipe.InitBuffer(tabBuf, KW * pitch * sizeof(uint32_t));
{init_txt}
    BuildTables();
  }}

  __aicore__ inline void Process() {{
    for (uint32_t item = begin; item < end; ++item) Rows(item);
  }}

 private:
  __aicore__ inline void BuildTables() {{
    // table kw: output column ow <- source column (ow * sw + kw * dw - pl) / rx of a UB row when the
    // division is exact and inside x, else the row's zero margin (offsets in bytes from the row's start)
    LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>();
    for (uint32_t kw = 0; kw < KW; ++kw)
      for (uint32_t ow = 0; ow < pitch; ++ow) {{
        int32_t v = (int32_t)(ow * sw + kw * dw) - pl;
        uint32_t src = 0;
        if (ow < OW && v >= 0 && v % (int32_t)rx == 0 && v / (int32_t)rx < (int32_t)W) src = 8 + v / rx;
        tab.SetValue(kw * pitch + ow, src * (uint32_t)sizeof(float));
      }}
    // the zero margins: every buffer of the input queue zeroed once (the copies never write them)
    LocalTensor<float> m0 = inQue.AllocTensor<float>();
    LocalTensor<float> m1 = inQue.AllocTensor<float>();
    Duplicate(m0, 0.0f, tileRows * rowPitch);
    Duplicate(m1, 0.0f, tileRows * rowPitch);
    inQue.FreeTensor(m0);
    inQue.FreeTensor(m1);
{fill_txt}
    SetFlag<HardEvent::S_V>(0);    // the scalar unit's tables before the vector unit reads them
    WaitFlag<HardEvent::S_V>(0);
    SetFlag<HardEvent::V_MTE2>(0); // the margins before the first copy in
    WaitFlag<HardEvent::V_MTE2>(0);
    SetFlag<HardEvent::V_MTE3>(0); // the fills before the first copy out
    WaitFlag<HardEvent::V_MTE3>(0);
  }}

  // item (b, c, kh): the KW im2col rows (b, c, kh, kw) read the same source rows (window row kh' = KH-1-kh
  // when flip), brought into UB once
  __aicore__ inline void Rows(uint32_t item) {{
    uint32_t kh = item % KH, c = item / KH % C, b = item / (KH * C);
    uint32_t khs = flip ? KH - 1 - kh : kh;
    uint32_t dst0 = (b * (KK + ones) + (c * KH + kh) * KW) * OH * OW;   // the row of (b, c, kh, kw = 0){ones_call}
    // the output rows that read x: oh = hLo + j * ry <- source row y0 + j * sh, j < nv
    int32_t base = (int32_t)(khs * dh) - pt;
    int32_t hLo = base >= 0 ? 0 : (-base + (int32_t)sh - 1) / (int32_t)sh;
    while (hLo < (int32_t)OH && (hLo * (int32_t)sh + base) % (int32_t)ry != 0) ++hLo;
    uint32_t nv = 0, y0 = 0;
    if (hLo < (int32_t)OH) {{
      y0 = (uint32_t)((hLo * (int32_t)sh + base) / (int32_t)ry);
      if (y0 < H) {{
        uint32_t a = (OH - 1 - hLo) / ry + 1, z = (H - 1 - y0) / sh + 1;
        nv = a < z ? a : z;
      }}
    }}{zero_calls}
    for (uint32_t j0 = 0; j0 < nv; j0 += tileRows) {{
      uint32_t n = nv - j0 < tileRows ? nv - j0 : tileRows;
      LocalTensor<float> s = inQue.AllocTensor<float>();
      DataCopyPad(s[8], xGm[b / G * sb + b % G * sg + c * sc + (y0 + j0 * sh) * W],
                  DataCopyExtParams{{(uint16_t)n, W * (uint32_t)sizeof(float), (sh * W - W) * (uint32_t)sizeof(float), 1, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
      inQue.EnQue(s);
      LocalTensor<float> u = inQue.DeQue<float>();
      for (uint32_t kw = 0; kw < KW; ++kw) {{                       // every window column from the same rows
        LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>()[(flip ? KW - 1 - kw : kw) * pitch];
        LocalTensor<float> o = outQue.AllocTensor<float>();
        for (uint32_t r = 0; r < n; ++r) Gather(o[r * pitch], u, tab, r * rowPitch * (uint32_t)sizeof(float), pitch);
        outQue.EnQue(o);
        LocalTensor<float> v = outQue.DeQue<float>();
        DataCopyPad(colGm[dst0 + kw * OH * OW + (hLo + j0 * ry) * OW], v,
                    DataCopyExtParams{{(uint16_t)n, OW * (uint32_t)sizeof(float), 0, (ry * OW - OW) * (uint32_t)sizeof(float), 0}});
        outQue.FreeTensor(v);
      }}
      inQue.FreeTensor(u);
    }}
  }}
{fill_fn}
  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
  TBuf<TPosition::VECCALC> tabBuf;{bufs}
  GlobalTensor<float> xGm, colGm;
  uint32_t C, H, W, sb, G, sg, sc, KH, KW, OH, OW, sh, sw, dh, dw, ry, rx, flip, tileRows, zeroRows, ones, KK, pitch, rowPitch;
  uint32_t begin, end;
  int32_t pt, pl;
}};
"""


# ----------------------------------------------------------------------------- the group
def _epilogue(fn: ir.Operation, root: ir.Value, scratch: ir.Module, extra=()) -> ir.Operation:
    """A copy of kernel function `fn` in `scratch` whose value `root` (then
    each of `extra`) is a new last argument (every op left without a use
    removed)."""
    block0 = fn.regions[0].blocks[0]
    ops0 = [o.operation for o in block0.operations]
    where = [(ops0.index(_op(v)), list(_op(v).results).index(v)) for v in (root, *extra)]
    with fn.context, ir.Location.unknown():
        clone = fn.clone(ip=ir.InsertionPoint(scratch.body))
        block = clone.regions[0].blocks[0]
        cops = [o.operation for o in block.operations]
        for idx, res in where:
            arg = block.add_argument(cops[idx].results[res].type, ir.Location.unknown())
            cops[idx].results[res].replace_all_uses_with(arg)
        erase_dead_ops(block)
        ins = [a.type for a in block.arguments]
        outs = list(ir.FunctionType(ir.TypeAttr(clone.attributes["function_type"]).value).results)
        clone.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))
    return clone


def _slice(fn: ir.Operation, value: ir.Value, scratch: ir.Module) -> ir.Operation:
    """A copy of kernel function `fn` in `scratch` returning only `value`
    (every op it does not need removed, the unused arguments kept)."""
    block0 = fn.regions[0].blocks[0]
    ops0 = [o.operation for o in block0.operations]
    idx, res = ops0.index(_op(value)), list(_op(value).results).index(value)
    with fn.context, ir.Location.unknown():
        clone = fn.clone(ip=ir.InsertionPoint(scratch.body))
        block = clone.regions[0].blocks[0]
        cops = [o.operation for o in block.operations]
        ret = cops[-1]
        with ir.InsertionPoint.at_block_terminator(block):
            ir.Operation.create("func.return", operands=[cops[idx].results[res]])
        ret.erase()
        erase_dead_ops(block)
        ins = [a.type for a in block.arguments]
        clone.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, [value.type]))
    return clone


def _side_casts(fn: ir.Operation, root: ir.Value) -> list:
    """The values of `fn` that are a cast (linalg.generic of one arith.truncf /
    extf) of a kernel argument over a smaller domain than `root` (the AMP
    bias: b[O] f32 -> f16, added to the f16 conv result): the epilogue reads
    them as arguments, each computed by a vector kernel of its own (one
    kernel cannot tile two iteration spaces)."""
    block = fn.regions[0].blocks[0]
    rank = ir.RankedTensorType(root.type).rank
    return [op.results[0] for op in [o.operation for o in block.operations]
            if op.name == "linalg.generic" and _arg_cast(op.results[0], block)
            and ir.RankedTensorType(op.results[0].type).rank < rank]


def _arg_cast(v: ir.Value, block) -> bool:
    """Whether `v` is a linalg.generic casting (arith.truncf / extf) a kernel argument."""
    op = _op(v)
    if op is None or op.name != "linalg.generic" or len(op.operands) != 2 or len(op.results) != 1:
        return False
    body = [o.operation.name for o in op.regions[0].blocks[0].operations]
    return body[:-1] in (["arith.truncf"], ["arith.extf"]) and op.operands[0].owner == block


def _partial_sum_fn(S: int, n: int, scratch: ir.Module, f16: bool = False) -> ir.Operation:
    """func(p: tensor<S x n x f32>) -> tensor<n x f32>: y = the sum over s of
    p[s] (split-K's second kernel: a first-axis sum, vector.py's column mode);
    `f16`: the sum rounded once to half (an f16 product's Fixpipe rounding)."""
    from mlir.dialects import arith, func as func_d, linalg, tensor

    from .split import _sum
    f32 = ir.F32Type.get()
    t_in = ir.RankedTensorType.get([S, n], f32)
    t_out = ir.RankedTensorType.get([n], ir.F16Type.get() if f16 else f32)
    with ir.InsertionPoint(scratch.body):
        f = func_d.FuncOp("ksum", ir.FunctionType.get([t_in], [t_out]))
        f.attributes["mskernel.kind"] = ir.Attribute.parse("#mskernel.kind<reduce>")
        blk = f.add_entry_block()
        with ir.InsertionPoint(blk):
            y = _sum(blk.arguments[0], [0, 1], 2, [1], [0], [n])
            if f16:
                ident = ir.AffineMapAttr.get(ir.AffineMap.get_identity(1))
                g = linalg.GenericOp([t_out], [y], [tensor.EmptyOp([n], ir.F16Type.get()).result],
                                     ir.ArrayAttr.get([ident, ident]),
                                     ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")]))
                b = g.regions[0].blocks.append(f32, ir.F16Type.get())
                with ir.InsertionPoint(b):
                    linalg.YieldOp([arith.TruncFOp(ir.F16Type.get(), b.arguments[0]).result])
                y = g.results[0]
            func_d.ReturnOp([y])
    return f.operation


def _single_use(v: ir.Value):
    uses = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in v.uses]
    return uses[0] if len(uses) == 1 else None


def _bias_add(v: ir.Value, block, O: int):
    """b when `v`'s only use is v[n, o, h, w] + b[o] (a linalg.generic), b a
    kernel argument or (AMP) the f16 cast of one (a _side_casts value), else
    None."""
    op = _single_use(v)
    if op is None or op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    ops = [o.operation for o in op.regions[0].blocks[0].operations]
    args = list(op.regions[0].blocks[0].arguments)
    ident = [f"d{i}" for i in range(4)]
    b = op.operands[1] if op.operands[0] == v else op.operands[0]
    if list(ir.RankedTensorType(b.type).shape) != [O] or (b.owner != block and not _arg_cast(b, block)):
        return None
    iv, ib = (0, 1) if op.operands[0] == v else (1, 0)
    if [str(e) for e in maps[iv].results] != ident or [str(e) for e in maps[ib].results] != ["d1"] or \
            [str(e) for e in maps[2].results] != ident:
        return None
    if len(ops) != 2 or ops[0].name != "arith.addf" or set(ops[0].operands) != {args[0], args[1]} or \
            ops[1].operands[0] != ops[0].results[0]:
        return None
    return b


def _conv_result(conv) -> tuple:
    """(the conv's result as the kernel sees it, transposed): a grouped conv's
    [N, G, O, H, W] collapsed to [N, G*O, H, W]; `transposed` when the result
    is only read through the [1, 0, 2, 3] transpose (a filter gradient;
    grouped: [1, 2, 0, 3, 4]), which Fixpipe then writes directly."""
    res = conv.results[0]
    uses = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in res.uses]
    if len(uses) != 1:
        return res, False
    if _perm(uses[0]) in ([1, 0, 2, 3], [1, 2, 0, 3, 4]):
        return uses[0].results[0], True
    if conv.name == "linalg.conv_2d_ngchw_gfchw" and uses[0].name == "tensor.collapse_shape":
        return uses[0].results[0], False
    return res, False


class _NoLoad3D(Unsupported):
    """The convolution is one Load3D cannot express (the GM im2col form is used)."""


def plan_conv(fn: ir.Operation, kernel: str, *, soc: str, cores: tuple, model, build_vector) -> Plan:
    """The group of a convolution kernel (Unsupported when it is not one this
    module maps onto the cube). `cores`: (vector cores, cube cores). The
    Load3D form wherever Load3D can express the convolution, else the GM
    im2col form, the reason recorded as the plan's `load3d_skipped`. (Not a
    cost-model choice: for small convolutions of few channels the model
    prefers the GM im2col -- Load3D pads the channels to C0 and an NCHW input
    of C > 1 channels needs a transpose launch -- but its launch figures are
    assumptions; the GM workspace traffic is what Load3D removes.)"""
    try:
        return _plan_conv(fn, kernel, soc=soc, cores=cores, model=model, build_vector=build_vector, load3d=True)
    except _NoLoad3D as e:
        plan = _plan_conv(fn, kernel, soc=soc, cores=cores, model=model, build_vector=build_vector, load3d=False)
        plan.load3d_skipped = str(e)
        return plan


def _load3d_unfit(inp: _Input, flt: _Filter, transposed: bool, C: int, KH: int, KW: int, OW: int, strides,
                  dil) -> str:
    """Why Load3D cannot form this convolution's img2col ("" when it can)."""
    if flt.perm is not None or flt.flip:
        return "a permuted or rotated filter (input / filter gradient): Load3D reads the filter's K order as is"
    if transposed:
        return "a result written transposed (filter gradient)"
    if (inp.ry, inp.rx) != (1, 1):
        return "an interleaved input (strided input gradient): Load3D has no input dilation"
    if min(inp.pt, inp.pl, inp.pb, inp.pr) < 0:
        return "a cropped input"
    HW = inp.H * inp.W
    if inp.sc != HW or (inp.G > 1 and inp.sg != C * HW) or inp.sb != inp.G * C * HW:
        return "an input with transposed leading dims"
    if max(KH, KW, *strides, *dil) > 255 or max(inp.pt, inp.pl, inp.pb, inp.pr) > 255:
        return "a filter, stride, dilation or padding over 255 (Load3D's 8-bit fields)"
    if _load3d_pr(inp, KW, OW, strides[1], dil[1]) is None:
        return "an output narrower than Load3D's (the convolution ignores trailing input columns)"
    return ""


def _load3d_pr(inp: _Input, KW: int, OW: int, sw: int, dw: int):
    """The right padding that makes Load3D's output width OW, else None."""
    ew = (KW - 1) * dw + 1
    pr = max(0, (OW - 1) * sw + ew - inp.W - inp.pl)
    return pr if pr <= 255 and (inp.W + inp.pl + pr - ew) // sw + 1 == OW else None


def _load3d_parts(inp: _Input, flt: _Filter, G, O, C, KH, KW, OW, P, strides, dil, parts, ws, arg_shapes,
                  kernel, func, *, soc, cores, model, dtype, es, layout, batch, root_shape, bias=0,
                  sum_plan=None):
    """The Load3D form's parts before the cube kernel, and the cube kernel:
    the filter [G*O, C, KK] -> [G*O, KK, C] (a permute kernel; none when C or
    KK is 1), the input NCHW -> pixels x channels ([H*W, N*G*C], a transpose
    kernel; none when C is 1: a single channel is its own pixel-major form),
    then the cube kernel with B = Load3D's img2col of a 5HD band in L1.
    Returns (A's source, the feature map's source, the cube plan)."""
    from .cube import cube_plan
    from .group import transpose_plan
    c0 = 32 // es
    KK = KH * KW
    Kp = -(-C // c0) * c0 * KK
    a_src, a_shape = ("arg", flt.arg), arg_shapes[flt.arg]
    # filter element (o, c, kk) at o * aRow + c + kk * aK (channels contiguous: one C0 block of
    # every (kh, kw) position an Nd2Nz matrix of its own, the positions aK apart)
    a_row, a_k = (KK, 1) if C == 1 else (C, 1)
    if C > 1 and KK > 1:             # [G*O*C, KK] -> [KK, G*O*C]
        try:
            tp = transpose_plan(G * O * C, KK, f"{kernel}_wt", func, soc=soc, cores=cores[0], ub=model.ub,
                                dtype=dtype)
        except Unsupported as e:
            raise _NoLoad3D(f"the filter's position-major copy: {e}") from None
        tp.shapes["in"] = [arg_shapes[flt.arg]]
        a_shape = [KK, G * O * C]
        a_src = ws(a_shape)
        parts.append((tp, [("arg", flt.arg)], [a_src]))
        a_k = G * O * C
    HW = inp.H * inp.W
    rows = inp.numel // HW
    if C == 1:                       # pixel pitch 1, image / group strides of x
        f_src, f_shape, ps, fb, fg = ("arg", inp.arg), arg_shapes[inp.arg], 1, inp.sb, inp.sg
    else:
        try:
            tp = transpose_plan(rows, HW, f"{kernel}_x", func, soc=soc, cores=cores[0], ub=model.ub, dtype=dtype)
        except Unsupported as e:
            raise _NoLoad3D(f"the input's pixel-major copy: {e}") from None
        tp.shapes["in"] = [arg_shapes[inp.arg]]
        f_src = ws([HW, rows])
        f_shape = [HW, rows]
        parts.append((tp, [("arg", inp.arg)], [f_src]))
        ps, fb, fg = rows, G * C, C
    l3 = {"H": inp.H, "W": inp.W, "OW": OW, "KH": KH, "KW": KW, "sh": strides[0], "sw": strides[1],
          "dh": dil[0], "dw": dil[1], "pt": inp.pt, "pl": inp.pl, "pr": _load3d_pr(inp, KW, OW, strides[1], dil[1]),
          "Cg": C, "KK": KK, "ps": ps, "fb": fb, "fg": fg, "aK": a_k, "a_numel": G * O * C * KK, "b_numel": inp.numel,
          "bias": bias}
    if max(a_k, a_row) > 65535:
        raise _NoLoad3D("a filter stride over 16 bits (Nd2NzParams)")
    lay = dict(layout, lda=a_row, gA=O * a_row, sB=0, gB=0, ldb=1)
    try:
        cp = cube_plan(O, P, Kp, f"{kernel}_mm", func, "conv", soc=soc, cores=cores[1], model=model, batch=batch,
                       layout=lay, in_shapes=[a_shape, f_shape], out_shape=root_shape, dtype=dtype, load3d=l3,
                       sum_plan=sum_plan)
    except Unsupported as e:
        raise _NoLoad3D(f"the Load3D cube kernel: {e}") from None
    return a_src, f_src, cp


def _plan_conv(fn: ir.Operation, kernel: str, *, soc: str, cores: tuple, model, build_vector,
               load3d: bool) -> Plan:
    from .cube import cube_plan
    conv = conv_op(fn)
    if conv is None:
        raise Unsupported("no convolution")
    func = ir.StringAttr(fn.attributes["sym_name"]).value
    block = fn.regions[0].blocks[0]
    strides, dil = _ints(conv.attributes["strides"]), _ints(conv.attributes["dilations"])
    etypes = {type(ir.RankedTensorType(v.type).element_type) for v in list(conv.operands)}
    if etypes == {ir.F16Type}:
        # f16 operands: f16 im2col, the cube's f16 Mmad accumulating in f32 in L0C, one rounding to
        # f16 by Fixpipe (F322F16) -- MindSpore/Ascend's f16 convolution; the CPU target accumulates
        # in f16 (see the module docstring)
        dtype, es = "f16", 2
    elif etypes == {ir.F32Type}:
        dtype, es = "f32", F32
    else:
        raise Unsupported("a convolution that is neither f32 nor f16 (operands and result of one type)")
    init = conv.operands[2]
    from .plan import _const_scalar
    if _const_scalar(init) != 0.0:
        raise Unsupported("a convolution accumulating into a non-zero initial value")
    inp, flt = _Input(conv.operands[0], block), _Filter(conv.operands[1], block)
    xs, fs = (list(ir.RankedTensorType(v.type).shape) for v in list(conv.operands)[:2])
    if conv.name == "linalg.conv_2d_ngchw_gfchw":        # per group g: O output channels from C inputs
        B, G, C = xs[:3]
        _, O, _, KH, KW = fs
    else:
        (B, C), G = xs[:2], 1
        O, _, KH, KW = fs
    if inp.G != G:
        raise Unsupported("a grouped convolution input of an unexpected form")
    OH, OW = list(ir.RankedTensorType(conv.results[0].type).shape)[-2:]
    K, P = C * KH * KW, OH * OW
    args = list(block.arguments)
    arg_shapes = [list(ir.RankedTensorType(a.type).shape) for a in args]
    parts, workspaces = [], []

    def ws(shape):
        workspaces.append(list(shape))
        return ("ws", len(workspaces) - 1)

    a_src = ("arg", flt.arg)
    if flt.perm is not None:
        g_, a_, bd_, inner_ = flt.perm
        pp = permute_plan(a_, bd_, inner_, f"{kernel}_wt", func, soc=soc, cores=cores[0], in_shape=flt.shape,
                          groups=g_, es=es)
        a_src = ws(pp.shapes["out"][0])
        parts.append((pp, [("arg", flt.arg)], [a_src]))
    a_shape = arg_shapes[flt.arg] if a_src[0] == "arg" else workspaces[a_src[1]]
    # the root: the conv's result (grouped: collapsed), its transpose (written so by
    # Fixpipe) or its sum with a per-channel bias (an extra K column: [W | b] @ [col; 1])
    root, transposed = _conv_result(conv)
    # (f16: the bias is the f16 cast of an f32 argument, cast by a vector kernel of its own; it is
    # then summed in the f32 accumulator with the products and rounded once with them)
    if load3d:
        why = _load3d_unfit(inp, flt, transposed, C, KH, KW, OW, strides, dil)
        if why:
            raise _NoLoad3D(why)
    bias = None if transposed else _bias_add(root, block, G * O)
    side = _side_casts(fn, root)
    if bias is not None:
        root = _single_use(root).results[0]
        b_src = ("arg", bias.arg_number) if isinstance(bias.owner, ir.Block) else None
        if b_src is None:
            with fn.context, ir.Location.unknown():
                scratch0 = ir.Module.create()
                sp = build_vector(_slice(fn, bias, scratch0), f"{kernel}_bcast")
            b_src = ws([G * O])
            parts.append((sp, [("arg", j) for j in range(len(args))], [b_src]))
            side = [v for v in side if v != bias]
        if not load3d:      # Load3D: the cube kernel's first Mmad per tile (bias x ones)
            ap = augment_plan(G * O, K, f"{kernel}_bias", func, soc=soc, cores=cores[0],
                              in_shapes=[a_shape, [G * O]], es=es)
            aug = ws([G * O, K + 1])
            parts.append((ap, [a_src, b_src], [aug]))
            a_src, a_shape, K = aug, [G * O, K + 1], K + 1
    # batch t = (b, g): A_g rows g*O.., col_t, C_t (offsets (t / G) * s + (t % G) * g of each operand)
    layout = {"sA": 0, "sB": G * K * P, "sC": G * O * P, "lda": K, "ldb": P, "ldc": P,
              "bG": G, "gA": O * K, "gB": K * P, "gC": O * P}
    if transposed:          # C_t[O, P] at [g, o, b, p] of the [G*O, B, P] result
        layout.update(sC=P, gC=O * B * P, ldc=B * P)
    root_shape = list(ir.RankedTensorType(root.type).shape)
    scratch_sum = []

    def sum_plan(S: int, n: int) -> Plan:
        with fn.context, ir.Location.unknown():
            scratch_sum.append(ir.Module.create())
            return build_vector(_partial_sum_fn(S, n, scratch_sum[-1], dtype == "f16"), f"{kernel}_ksum")
    extra = []
    if load3d:
        a_src, col, cp = _load3d_parts(inp, flt, G, O, C, KH, KW, OW, P, strides, dil, parts, ws, arg_shapes,
                                       kernel, func, soc=soc, cores=cores, model=model, dtype=dtype,
                                       es=es, layout=layout, batch=B * G, root_shape=root_shape,
                                       bias=G * O if bias is not None else 0, sum_plan=sum_plan)
        extra = [b_src] if bias is not None else []
    else:
        ip = im2col_plan(inp, C, B, KH, KW, OH, OW, strides, dil, flt.flip, f"{kernel}_im2col", func, soc=soc,
                         cores=cores[0], in_shape=arg_shapes[inp.arg], ones=bias is not None, es=es)
        col = ws(ip.shapes["out"][0])
        parts.append((ip, [("arg", inp.arg)], [col]))

    if not load3d:
        cp = cube_plan(O, P, K, f"{kernel}_mm", func, "conv", soc=soc, cores=cores[1], model=model, batch=B * G,
                       layout=layout, in_shapes=[a_shape, ip.shapes["out"][0]], out_shape=root_shape, dtype=dtype,
                       sum_plan=sum_plan)
    if dtype == "f16" and not getattr(cp, "split_k", None):   # split: f32 partials, the sum rounds
        cp.cube["out_dtype"] = "f16"
        cp.shapes["out_dtypes"] = ["float16"]
    ret = [o.operation for o in block.operations][-1]
    r = ret.operands[0] if len(ret.operands) == 1 else None
    def unshaped(v):
        while v is not None and _op(v) is not None and _op(v).name in ("tensor.expand_shape",
                                                                       "tensor.collapse_shape"):
            v = _op(v).operands[0]
        return v
    r = unshaped(r)
    direct = r is not None and r == unshaped(root)
    prod = ("out", 0) if direct else ws(root_shape)
    last = cp
    if getattr(cp, "split_k", None):        # split-K: partials in a workspace, then their vector sum
        S, sp = cp.split_k
        partials = ws(cp.shapes["out"][0])
        parts.append((cp, [a_src, col], [partials]))
        sp.shapes["out"] = [root_shape]
        parts.append((sp, [partials], [prod]))
        last = sp
    else:
        parts.append((cp, [a_src, col, *extra], [prod]))
    if not direct:
        casts = []
        with fn.context, ir.Location.unknown():
            scratch = ir.Module.create()
            for i, v in enumerate(side):
                sp = build_vector(_slice(fn, v, scratch), f"{kernel}_cast{i}")
                casts.append(ws(list(ir.RankedTensorType(v.type).shape)))
                parts.append((sp, [("arg", j) for j in range(len(args))], [casts[-1]]))
            ep = _epilogue(fn, root, scratch, side)
            vp = build_vector(ep, f"{kernel}_ep")
        parts.append((vp, [("arg", i) for i in range(len(args))] + [prod] + casts,
                      [("out", k) for k in range(len(ret.operands))]))
    elif last.shapes["out"][0] != list(ir.RankedTensorType(ret.operands[0].type).shape):
        last.shapes["out"] = [list(ir.RankedTensorType(ret.operands[0].type).shape)]
    plan = Plan(kernel=kernel, func=func, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), 0) for i in range(len(args))],
                outputs=[(Value(f"out{k}", "full", "output", index=k), 0) for k in range(len(ret.operands))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc)
    plan.shapes = {"in": arg_shapes, "out": [list(ir.RankedTensorType(v.type).shape) for v in ret.operands]}
    plan.parts = parts
    plan.workspaces = workspaces
    return plan
