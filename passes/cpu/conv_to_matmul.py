"""msmlir-cpu-conv-to-matmul: f32 2-D convolutions -> im2col + one matmul.

Rewrites, on tensors before msmlir-cpu-pack-matmul, each
`linalg.conv_2d_nchw_fchw` (static shapes, f32, any stride and dilation;
the forward convolution and, as they are lowered, both gradients) of at least
MATMUL_MIN_WORK multiply-adds into

* an im2col `linalg.generic` that gathers the input windows (tensor.extract
  from the padded input, or through the linalg.transpose that feeds a filter
  gradient) into a 2-D tensor `col`, K = C*KH*KW by P = N*OH*OW, stored
  either [K, P] (output width innermost) or [P, K] (kernel width innermost),
  whichever reads the input in the longer unit-stride rows; its innermost
  dim is split off (never tiled) and it is tiled to rows and vectorized
  here, so the rows are contiguous vector.transfer_reads (a strided row
  stays a gather);
* one 2-D matmul (a `linalg.generic` that `matmul_info` recognizes) between
  the filter seen as [F, K] (a collapse_shape, no copy) and `col`, oriented
  so that the smaller of F and P is the M side (register tiles of MR=8 rows)
  and the larger the N side (NR=32 columns): the filter gradient (P = KH*KW
  of the filter, K = the batch times the output image) and a forward
  convolution with few filters (F = 6, P = N*OH*OW) both keep the packed
  micro-kernel full;
* a transposing `linalg.generic` back to NCHW (adding the convolution's init
  when it is not a fill), or only an expand_shape when N == 1 and M = F.

When `col` would exceed `col-chunk` elements (COL_CHUNK: it and its packed
copy then stay in L2), the three are built inside an scf.for over chunks of
the batch (each chunk's result inserted into the output), or, when the
output images are small (filter gradients), over chunks of the input
channels: K chunks whose matmuls accumulate into C.

msmlir-cpu-pack-matmul then packs the matmul into register-tiled
micro-kernels, and msmlir-cpu-tile-vectorize vectorizes the transpose.

Three kinds of convolution take other forms:

* the input gradient (the convolution of lower_conv2d_backprop_input, tagged
  `msmlir.conv_input_grad` with the forward geometry): convolving the
  zero-interleaved, padded dout with the flipped filter spends most
  multiply-adds on zeros, so it is rebuilt from dout and w (read back
  through the pad and the flip) as dcol[(c, kh, kw), (n, oh, ow)] = W^T dY
  (one matmul, K = F, for msmlir-cpu-pack-matmul) and a col2im
  `linalg.generic` over (n, c, h, w | kh, kw) that, for each input pixel,
  sums the dcol entries that map to it (a gather, not a scatter: parallel,
  vectorized along the width here (vectorize_windows' recipe), one
  contiguous read of the flat dcol per window position with the lanes
  outside dout masked; strides other than 1 along the width are gathers),
  in a loop over batch chunks of GRAD_CHUNK dcol elements;
* few outputs with long kernel rows (`direct_ok`: the filter gradient of a
  first layer, whose "kernel" is the output image): one dot product per
  output along the kernel rows, read straight from the input and dout
  (through the transposes, which go dead), as partial-sum vectors in
  registers and one horizontal sum per output; im2col would copy the input
  KH*KW times and pack it again for a 6 x 25 matmul. The channels (the
  batch) are taken in chunks of DIRECT_CHUNK_BYTES in an outer loop, so that
  every output reads its chunk from L1;
* forward convolutions with a short reduction and long unit-stride output
  rows (`fwd_direct_ok`: a first layer, C*KH*KW <= 64, OW >= 16): computed
  in place as a generic with the convolution's window maps and an fma body,
  one forall iteration per output row of a block of up to F_BLOCK filters:
  the input row of each window position is read once for the block, the
  rows' accumulators stay in registers (LeNet's first layer: 2.3x faster
  than im2col + a 6-row matmul + the transpose back).

Both direct kernels (`row_block_script`) unroll their block of filters
innermost (independent FMA chains) and vectorize rows of an odd length as
masked power-of-two vectors: LLVM legalizes a vector<28xf32> badly (the
28-lane forward kernel ran 8x slower than the masked 32-lane one).

Also, before any of this, a mul-add linalg.generic whose M, N or K dims are
split over several loop dims (a reshape that the elementwise fusion folded
into a matmul, e.g. a Dense layer's input gradient feeding a Flatten) is
collapsed back to a 2-D matmul (`collapse_matmul`), which
msmlir-cpu-pack-matmul recognizes (13x faster on LeNet's 64x120x400).

Why: a convolution left as `linalg.conv_2d_nchw_fchw` becomes seven scalar
loops (convert-linalg-to-loops) that reload the filter and the input for
every multiply-add; as a matmul it runs on the packed micro-kernel, and the
im2col copy costs one pass over K*P elements.

Convolutions with fewer multiply-adds stay as they are (their loops are
short); grouped convolutions (`linalg.conv_2d_ngchw_gfchw`), dynamic shapes
and other element types keep the plain path with a remark at the op. If the
im2col vectorization fails, a remark at the convolution says so and the
gather generic is left to msmlir-cpu-tile-vectorize.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from mlir import ir
from mlir.dialects import arith, linalg, math, scf, tensor

from ..common.diagnostics import emit_remark
from ..common.linalg import defining_op, funcs, loop_info, static_tensor, walk_ops
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass
from .pack_matmul import MATMUL_MIN_WORK
from .tiling import divisor_le, vector_tile
from .vectorize_windows import window_script

IM2COL_TAG = "msmlir.cg_im2col"
COL2IM_TAG = "msmlir.cg_col2im"
# Set by the mindir lowering of conv2d_backprop_input (lowering/mindir_to_linalg/nn.py)
# on its convolution: array<i64: sh, sw, dh, dw, pad_top, pad_left, OH, OW>.
INPUT_GRAD_TAG = "msmlir.conv_input_grad"
_DYN = -(1 << 63)  # ShapedType::kDynamic

_CONV = "linalg.conv_2d_nchw_fchw"
_GROUPED = "linalg.conv_2d_ngchw_gfchw"

# Longest im2col row read as one vector (the row is split off as the
# innermost dim of the gather; longer rows are split into pieces).
ROW_VECTOR_MAX = 64

# Elements of `col` built per iteration: bigger convolutions loop over chunks
# of the batch (or, when the output images are small, e.g. filter gradients,
# over chunks of the input channels, accumulating into the matmul result), so
# that `col` and its packed copy stay in L2 instead of streaming to memory.
COL_CHUNK = 1 << 17

# dcol elements per iteration of an input gradient's batch loop (dcol and its
# packed copy stay in L2: 4 LeNet images, 1.8x faster than all 64 at once).
GRAD_CHUNK = 1 << 16


@dataclass
class ConvGeom:
    """O[n, f, oh, ow] += I[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * W[f, c, kh, kw]."""
    n: int
    c: int
    h: int
    w: int
    f: int
    kh: int
    kw: int
    oh: int
    ow: int
    sh: int
    sw: int
    dh: int
    dw: int

    @property
    def k(self) -> int:
        return self.c * self.kh * self.kw

    @property
    def p(self) -> int:
        return self.n * self.oh * self.ow

    @property
    def macs(self) -> int:
        return self.f * self.k * self.p


@dataclass
class Plan:
    m_is_f: bool   # matmul C[F, P] = W[F, K] col (else C[P, F] = col W^T)
    kp: bool       # col stored [K, P] (output width innermost), else [P, K]
    row: int       # length of the innermost (vectorized) im2col dim
    chunks: int    # the other factor of the innermost output/kernel width
    loop: str      # "n": a loop over batch chunks (P), "c": over channel chunks (K), "": none
    step: int      # images or channels per iteration

    def chunk(self, g: ConvGeom) -> ConvGeom:
        """The geometry of one iteration's convolution."""
        if self.loop == "n":
            return replace(g, n=self.step)
        if self.loop == "c":
            return replace(g, c=self.step)
        return g


def _pair(op: ir.Operation, name: str) -> list[int] | None:
    if name not in op.attributes:
        return [1, 1]
    try:
        vals = [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]
    except (ValueError, TypeError):
        return None
    return vals if len(vals) == 2 else None


def conv_geom(op: ir.Operation) -> ConvGeom | str:
    """The geometry of a static f32 conv_2d_nchw_fchw on tensors, or why not."""
    if len(op.operands) != 3 or len(op.results) != 1:
        return "not a convolution on tensors"
    types = [static_tensor(v.type) for v in op.operands]
    if any(t is None for t in types):
        return "dynamic shapes"
    if not all(isinstance(t.element_type, ir.F32Type) for t in types):
        return "not f32"
    strides, dilations = _pair(op, "strides"), _pair(op, "dilations")
    if strides is None or dilations is None:
        return "unreadable strides/dilations"
    (n, c, h, w), (f, c2, kh, kw), (n2, f2, oh, ow) = (list(t.shape) for t in types)
    if c != c2 or n != n2 or f != f2:
        return "inconsistent shapes"
    g = ConvGeom(n, c, h, w, f, kh, kw, oh, ow, strides[0], strides[1], dilations[0], dilations[1])
    if (oh - 1) * g.sh + (kh - 1) * g.dh >= h or (ow - 1) * g.sw + (kw - 1) * g.dw >= w:
        return "windows out of bounds"
    return g


def plan_conv(g: ConvGeom, col_chunk: int = COL_CHUNK) -> Plan:
    # The im2col row read from the input: the output width (stride sw) or the
    # kernel width (dilation dw); a unit-stride row is a contiguous load.
    score_ow = g.ow if g.sw == 1 else 0
    score_kw = g.kw if g.dw == 1 else 0
    kp = score_ow >= score_kw
    width = g.ow if kp else g.kw
    row = width
    if width > ROW_VECTOR_MAX:
        row = vector_tile(width, 32) or divisor_le(width, ROW_VECTOR_MAX)
    loop, step = "", 0
    if g.k * g.p > col_chunk:
        if g.n > 1 and g.oh * g.ow >= 64:
            loop, step = "n", divisor_le(g.n, max(1, col_chunk // (g.k * g.oh * g.ow)))
        elif g.c > 1:
            loop, step = "c", divisor_le(g.c, max(1, col_chunk // (g.kh * g.kw * g.p)))
        if loop and step == (g.n if loop == "n" else g.c):
            loop, step = "", 0
    gc = replace(g, n=step) if loop == "n" else replace(g, c=step) if loop == "c" else g
    return Plan(m_is_f=gc.f <= gc.p, kp=kp, row=row, chunks=width // row, loop=loop, step=step)


# --- IR building -----------------------------------------------------------------

def _ity():
    return ir.IndexType.get()


def _cidx(v: int) -> ir.Value:
    return arith.ConstantOp(_ity(), ir.IntegerAttr.get(_ity(), v)).result


def _dmap(n: int, dims: list[int]) -> ir.AffineMap:
    return ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in dims])


def _iters(kinds: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in kinds])


def _generic(inputs, init, maps, kinds, body) -> ir.Value:
    op = linalg.GenericOp([init.type], list(inputs), [init],
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), _iters(kinds))
    types = [ir.RankedTensorType(v.type).element_type for v in list(inputs) + [init]]
    block = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(block):
        linalg.YieldOp([body(*block.arguments)])
    return op.result


def _reassoc(groups: list[list[int]]) -> ir.ArrayAttr:
    i64t = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64t, d) for d in g])
                             for g in groups])


def _collapse(v: ir.Value, groups: list[list[int]]) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    shape = []
    for g in groups:
        s = 1
        for d in g:
            s *= t.shape[d]
        shape.append(s)
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, t.element_type), v,
                                  _reassoc(groups)).result


def _expand(v: ir.Value, shape: list[int], groups: list[list[int]]) -> ir.Value:
    t = ir.RankedTensorType(v.type)
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, t.element_type), v, _reassoc(groups),
                                [], ir.DenseI64ArrayAttr.get(shape)).result


def _mul(v: ir.Value, k: int) -> ir.Value:
    return v if k == 1 else arith.MulIOp(v, _cidx(k)).result


def _source(x: ir.Value) -> tuple[ir.Value, list[int]]:
    """Reads through a linalg.transpose producer (e.g. the [C, N, H, W] input
    of a filter gradient): (src, perm) with x[i] = src[j], j[perm[d]] = i[d]."""
    op = defining_op(x)
    if op is not None and op.name == "linalg.transpose":
        perm = [int(p) for p in ir.DenseI64ArrayAttr(op.attributes["permutation"])]
        return op.operands[0], perm
    return x, [0, 1, 2, 3]


def build_im2col(x: ir.Value, g: ConvGeom, pl: Plan, n0: ir.Value | None = None,
                 c0: ir.Value | None = None) -> tuple[ir.Value, ir.Operation]:
    """col of the convolution `g` ([K, P] or [P, K], a collapse of the im2col
    generic's result), reading x from image n0 / channel c0 on."""
    src, perm = _source(x)
    elem = ir.RankedTensorType(x.type).element_type
    if pl.kp:   # (c, kh, kw, n, oh, owc, owr)
        shape = [g.c, g.kh, g.kw, g.n, g.oh, pl.chunks, pl.row]
    else:       # (n, oh, ow, c, kh, kwc, kwr)
        shape = [g.n, g.oh, g.ow, g.c, g.kh, pl.chunks, pl.row]
    init = tensor.EmptyOp(shape, elem).result
    gen = linalg.GenericOp([init.type], [], [init], ir.ArrayAttr.get([ir.AffineMapAttr.get(
        ir.AffineMap.get_identity(7))]), _iters(["parallel"] * 7))
    block = gen.regions[0].blocks.append(elem)
    with ir.InsertionPoint(block):
        i64t = ir.IntegerType.get_signless(64)
        idx = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result for d in range(7)]
        # The row index (wr) is added last: the vectorizer's contiguity check
        # reads the operands of an addi in order (a later operand overrides).
        if pl.kp:
            c, kh, kw, n, oh, wc, wr = idx
            lead = _add(_mul(kw, g.dw), _mul(wc, pl.row * g.sw) if pl.chunks > 1 else None)
            wi = arith.AddIOp(lead, _mul(wr, g.sw)).result
        else:
            n, oh, ow, c, kh, wc, wr = idx
            lead = _add(_mul(ow, g.sw), _mul(wc, pl.row * g.dw) if pl.chunks > 1 else None)
            wi = arith.AddIOp(lead, _mul(wr, g.dw)).result
        hi = _add(_mul(oh, g.sh), _mul(kh, g.dh))
        if n0 is not None:
            n = arith.AddIOp(n0, n).result
        if c0 is not None:
            c = arith.AddIOp(c0, c).result
        coords = [n, c, hi, wi]                 # of x
        j = [None] * 4
        for d in range(4):
            j[perm[d]] = coords[d]
        linalg.YieldOp([tensor.ExtractOp(src, j).result])
    return _collapse(gen.result, [[0, 1, 2], [3, 4, 5, 6]]), gen.operation


def _add(a: ir.Value | None, b: ir.Value | None) -> ir.Value:
    if a is None or b is None:
        return b if a is None else a
    return arith.AddIOp(a, b).result


def _fill_value(v: ir.Value) -> ir.Value | None:
    op = defining_op(v)
    if op is not None and op.name == "linalg.fill":
        return op.operands[0]
    return None


def _fill(value: ir.Value, shape: list[int]) -> ir.Value:
    return linalg.fill(value, outs=[tensor.EmptyOp(shape, value.type).result])


def _matmul(wm: ir.Value, col: ir.Value, g: ConvGeom, pl: Plan, c_init: ir.Value) -> ir.Value:
    """C[F, P] = wm[F, K] col, or C[P, F] = col wm^T (a generic matmul_info reads)."""
    if pl.m_is_f:
        a, amap = wm, [0, 2]
        b, bmap = col, ([2, 1] if pl.kp else [1, 2])
    else:
        a, amap = col, ([2, 0] if pl.kp else [0, 2])
        b, bmap = wm, [1, 2]
    return _generic([a, b], c_init, [_dmap(3, amap), _dmap(3, bmap), _dmap(3, [0, 1])],
                    ["parallel", "parallel", "reduction"],
                    lambda va, vb, vc: arith.AddFOp(arith.MulFOp(va, vb).result, vc).result)


def _direct(g: ConvGeom, pl: Plan) -> bool:
    """C[F, OH*OW] is the NCHW output itself (one image, M = F)."""
    return pl.m_is_f and g.n == 1


def _c_init(g: ConvGeom, pl: Plan, fv: ir.Value | None, addend: ir.Value | None) -> ir.Value:
    """The matmul's init: the output's init when it is read as C (direct),
    else a fill (of the init's fill value, or 0)."""
    shape = [g.f, g.p] if pl.m_is_f else [g.p, g.f]
    if _direct(g, pl) and addend is not None:
        return _collapse(addend, [[0, 1], [2, 3]])
    elem = ir.F32Type.get()
    zero = fv if fv is not None else arith.ConstantOp(elem, ir.FloatAttr.get(elem, 0.0)).result
    return _fill(zero, shape)


def _to_nchw(cm: ir.Value, g: ConvGeom, pl: Plan, addend: ir.Value | None) -> ir.Value:
    """The matmul result as [N, F, OH, OW] (+ addend unless already in C)."""
    elem = ir.F32Type.get()
    out_shape = [g.n, g.f, g.oh, g.ow]
    if _direct(g, pl):
        return _expand(cm, out_shape, [[0, 1], [2, 3]])
    if pl.m_is_f:   # C[F, (n, oh, ow)] -> [F, N, OH, OW]
        c4 = _expand(cm, [g.f, g.n, g.oh, g.ow], [[0], [1, 2, 3]])
        cmap = _dmap(4, [1, 0, 2, 3])
    else:           # C[(n, oh, ow), F] -> [N, OH, OW, F]
        c4 = _expand(cm, [g.n, g.oh, g.ow, g.f], [[0, 1, 2], [3]])
        cmap = _dmap(4, [0, 2, 3, 1])
    ident = _dmap(4, [0, 1, 2, 3])
    if addend is not None:
        return _generic([c4, addend], tensor.EmptyOp(out_shape, elem).result,
                        [cmap, ident, ident], ["parallel"] * 4,
                        lambda vc, vi, _o: arith.AddFOp(vc, vi).result)
    return _generic([c4], tensor.EmptyOp(out_shape, elem).result, [cmap, ident],
                     ["parallel"] * 4, lambda vc, _o: vc)


def rewrite_conv(op: ir.Operation, g: ConvGeom, pl: Plan) -> ir.Operation:
    """Replaces `op` (at its position) by im2col + matmul + back to NCHW, in a
    loop over chunks when the plan says so; returns the im2col generic."""
    x, w, init = op.operands
    fv = _fill_value(init)
    addend = None if fv is not None else init
    gc = pl.chunk(g)
    with op.location, ir.InsertionPoint(op):
        wm = _collapse(w, [[0], [1, 2, 3]])                 # [F, K]
        if pl.loop == "n":
            # out[n0:n0+step] = conv of images n0.. (each chunk its own matmul)
            acc0 = init if addend is not None else tensor.EmptyOp([g.n, g.f, g.oh, g.ow],
                                                                  ir.F32Type.get()).result
            loop = scf.ForOp(_cidx(0), _cidx(g.n), _cidx(pl.step), [acc0])
            with ir.InsertionPoint(loop.body):
                n0 = loop.induction_variable
                acc = loop.inner_iter_args[0]
                sizes = [gc.n, g.f, g.oh, g.ow]
                part = None
                if addend is not None:
                    part = tensor.ExtractSliceOp(ir.RankedTensorType.get(sizes, ir.F32Type.get()),
                                                 acc, [n0], [], [],
                                                 ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                                 ir.DenseI64ArrayAttr.get(sizes),
                                                 ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result
                col, im2col = build_im2col(x, gc, pl, n0=n0)
                cm = _matmul(wm, col, gc, pl, _c_init(gc, pl, fv, part))
                res = _to_nchw(cm, gc, pl, part)
                upd = tensor.InsertSliceOp(res, acc, [n0], [], [],
                                           ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                           ir.DenseI64ArrayAttr.get(sizes),
                                           ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result
                scf.YieldOp([upd])
            result = loop.results[0]
        elif pl.loop == "c":
            # C += wm[:, k chunk] col(chunk), accumulated over the channel chunks
            kc = gc.k
            c_acc0 = _c_init(g, pl, fv, addend)
            loop = scf.ForOp(_cidx(0), _cidx(g.c), _cidx(pl.step), [c_acc0])
            with ir.InsertionPoint(loop.body):
                c0 = loop.induction_variable
                acc = loop.inner_iter_args[0]
                k0 = arith.MulIOp(c0, _cidx(g.kh * g.kw)).result
                wpart = tensor.ExtractSliceOp(ir.RankedTensorType.get([g.f, kc], ir.F32Type.get()),
                                              wm, [k0], [], [],
                                              ir.DenseI64ArrayAttr.get([0, _DYN]),
                                              ir.DenseI64ArrayAttr.get([g.f, kc]),
                                              ir.DenseI64ArrayAttr.get([1, 1])).result
                col, im2col = build_im2col(x, gc, pl, c0=c0)
                scf.YieldOp([_matmul(wpart, col, gc, pl, acc)])
            result = _to_nchw(loop.results[0], g, pl, None if _direct(g, pl) else addend)
        else:
            col, im2col = build_im2col(x, g, pl)
            cm = _matmul(wm, col, g, pl, _c_init(g, pl, fv, addend))
            result = _to_nchw(cm, g, pl, None if _direct(g, pl) else addend)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return im2col


def _im2col_script(s: Script, tag: int, threads: int, g: ConvGeom, pl: Plan) -> None:
    """Rows of the im2col generic: all dims but the innermost (the row) tiled
    by 1, the row vectorized (a contiguous transfer_read when unit-stride)."""
    seq = s.begin_suppressed("%root")
    h = s.match_attr(seq, IM2COL_TAG, tag)
    sizes = [1] * 6 + [0]
    if threads > 1:
        outer = [g.c, g.kh, g.kw, g.n, g.oh, pl.chunks] if pl.kp else [g.n, g.oh, g.ow, g.c, g.kh, pl.chunks]
        for d, r in enumerate(outer):
            if r >= threads and r % threads == 0:
                fa = [0] * 7
                fa[d] = r // threads
                h, _ = s.tile_forall(h, fa)
                break
    t, _ = s.tile(h, sizes)
    s.emit(f"transform.structured.vectorize {t} {{vectorize_nd_extract}} : {ANY}")
    s.end_sequence()


# --- forward convolutions with short kernels: direct, in registers ----------------------

FWD_TAG = "msmlir.cg_conv_fwd"
FWD_MAX_K = 64        # C*KH*KW: im2col would copy the input K times for a short matmul
FWD_MAX_F = 64        # filters (blocks of F_BLOCK)
FWD_MIN_ROW = 16      # output width: the vector (contiguous input rows)
F_BLOCK = 8           # filters per register block


def fwd_direct_ok(g: ConvGeom) -> bool:
    """A forward convolution with a short reduction (a first layer: few input
    channels) and long unit-stride output rows: computed in place, each
    output row of all F filters a block of F vector accumulators, the input
    row read once per (c, kh, kw) and shared by the F filters."""
    return g.k <= FWD_MAX_K and g.f <= FWD_MAX_F and g.ow >= FWD_MIN_ROW and g.sw == 1


def rewrite_fwd(op: ir.Operation, g: ConvGeom) -> ir.Operation:
    """The convolution as a linalg.generic with the same loops and window maps
    and a math.fma body (one vector FMA per multiply-add once vectorized)."""
    x, w, init = op.operands
    d = [ir.AffineDimExpr.get(i) for i in range(7)]    # n, f, oh, ow, c, kh, kw
    xmap = ir.AffineMap.get(7, 0, [d[0], d[4], d[2] * g.sh + d[5] * g.dh, d[3] * g.sw + d[6] * g.dw])
    with op.location, ir.InsertionPoint(op):
        gen = linalg.GenericOp([init.type], [x, w], [init],
                               ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in
                                                 (xmap, _dmap(7, [1, 4, 5, 6]), _dmap(7, [0, 1, 2, 3]))]),
                               _iters(["parallel"] * 4 + ["reduction"] * 3))
        elem = ir.F32Type.get()
        block = gen.regions[0].blocks.append(elem, elem, elem)
        with ir.InsertionPoint(block):
            linalg.YieldOp([math.fma(block.arguments[0], block.arguments[1], block.arguments[2])])
    op.results[0].replace_all_uses_with(gen.result)
    op.erase()
    return gen.operation


def _fwd_script(s: Script, tag: int, g: ConvGeom) -> None:
    """One output row of a block of filters per forall iteration (see
    row_block_script)."""
    v = g.ow if g.ow <= 32 else (vector_tile(g.ow, 32) or 16)
    row_block_script(s, FWD_TAG, tag, 2, [1, _f_block(g.f), 1, v], 3, 1, 3)


def _f_block(f: int) -> int:
    """Rows of filters per register block: at most F_BLOCK accumulators of
    up to two AVX-512 registers each (the rest of the 32 hold the inputs)."""
    return divisor_le(f, F_BLOCK)


def row_block_script(s: Script, key: str, tag: int, init: int, tiles: list[int], n_red: int,
                     f_dim: int, v_dim: int, red_chunk: int = 0) -> None:
    """A reduction generic (its operand `init` a fill) whose parallel dims are
    tiled by `tiles` (1 but the f_dim block of F rows and the v_dim vector)
    in one scf.forall (msmlir-cpu-lower-vectors makes it the parallel loop
    when threads > 1) with the fill fused in; then the n_red reduction dims
    tiled by 1 and, innermost, the F rows by 1 and unrolled: F independent
    vector accumulators (no FMA latency chain) that msmlir-cpu-lower-vectors
    keeps in registers across the reduction loops; the unit dims folded
    (window maps such as oh + kh become plain dims) and vectorized, rows of
    an odd length as masked power-of-two vectors (LLVM splits odd lengths
    badly: 28 lanes ran 8x slower than 32). red_chunk: first an scf.for over
    chunks of the first reduction dim, outside the forall (the fill then
    stays whole, before it)."""
    seq = s.begin_suppressed("%root")
    h = s.match_attr(seq, key, tag)
    fill = s.fresh("fill")
    s.emit(f"{fill} = transform.get_producer_of_operand {h}[{init}] : ({ANY}) -> {ANY}")
    f, v = tiles[f_dim], tiles[v_dim]
    vp = pow2_ceil(v)
    if red_chunk:
        # the first reduction dim in chunks, outermost: each chunk's inputs
        # stay in cache while every output row reads them
        h, _ = s.tile(h, [0] * len(tiles) + [red_chunk] + [0] * (n_red - 1))
        t, body = s.tile_forall(h, tiles + [0] * n_red)
    else:
        t, body = s.tile_forall(h, tiles + [0] * n_red)
        _fuse_all_into(s, [fill], body)
    t, _ = s.tile(t, [0] * len(tiles) + [1] * n_red)
    if f > 1:
        fsizes = [0] * (len(tiles) + n_red)
        fsizes[f_dim] = 1
        t, (floop,) = s.tile(t, fsizes)
        s.emit(f"transform.loop.unroll {floop} {{factor = {f}}} : {ANY}")
    s.patterns(body, ["linalg.fold_unit_extent_dims_via_slices", "canonicalization"])
    gens = s.match_ops(body, ["linalg.generic"])
    fills = s.match_ops(body, ["linalg.fill"])
    sizes = "" if vp == v else f" vector_sizes [{vp}]"
    s.emit(f"transform.structured.vectorize {gens}{sizes} {{vectorize_nd_extract}} : {ANY}")
    vsizes = [vp if d == v_dim else size for d, size in enumerate(tiles)]
    s.emit(f"transform.structured.vectorize {fills} vector_sizes {vsizes} : {ANY}")
    # masked transfers as transfers with a mask operand: a vector.mask region
    # around a write into a tile does not always bufferize
    s.patterns(body, ["vector.lower_masked_transfers"])
    s.end_sequence()


def pow2_ceil(v: int) -> int:
    """The smallest power of two >= v."""
    return 1 << max(0, (v - 1).bit_length())


def _fuse_all_into(s: Script, producers: list[str], loop: str) -> list[str]:
    out = []
    for p in producers:
        fused, nl = s.fresh("fu"), s.fresh("fl")
        s.emit(f"{fused}, {nl} = transform.structured.fuse_into_containing_op {p} into {loop} "
               f": ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        out.append(fused)
    return out


# --- small outputs, long windows (filter gradients): direct reduction ------------------

DIRECT_TAG = "msmlir.cg_conv_direct"
DIRECT_MAX_OUT = 4096   # output elements (one horizontal sum each)
DIRECT_MIN_ROW = 16     # kernel width: the vector (contiguous reads)
# Bytes of the inputs per chunk of the reduction's channels (the batch of a
# filter gradient), the outer loop: every output reads the chunk while it is
# in L1 (LeNet's first filter gradient: 2 images, 1.8x faster than all 64).
DIRECT_CHUNK_BYTES = 48 << 10
DIRECT_CHUNK_BYTES_THREADS = 1 << 20


def direct_ok(g: ConvGeom) -> bool:
    """A convolution with few outputs and long, unit-dilation kernel rows (the
    filter gradient of a first layer: output [C, F, KH, KW] of the forward, the
    kernel is the output image): each output a dot product along the kernel
    rows, read straight from the (untransposed) input and dout."""
    return (g.n * g.f * g.oh * g.ow <= DIRECT_MAX_OUT and g.kw >= DIRECT_MIN_ROW and g.dw == 1
            and direct_lanes(g) != 0)


def rewrite_direct(op: ir.Operation, g: ConvGeom) -> ir.Operation:
    """The convolution as partial sums part[n, f, oh, ow, j] over (c, kh, kb) of
    x[n, c, oh*sh + kh*dh, ow*sw + kb*v + j] * w[f, c, kh, kb*v + j] (a vector
    of v lanes along the kernel width; x and w read with tensor.extract,
    through the linalg.transpose producers of a filter gradient, so these
    copies go dead), then out = init + sum_j part. Returns the partial-sum
    generic. (Not tile_reduction_using_for: it does not offset the
    linalg.index ops of the tiled reduction dims.)"""
    x, w, init = op.operands
    xs, xperm = _source(x)
    ws, wperm = _source(w)
    v = direct_lanes(g)
    kb_n = g.kw // v
    elem = ir.F32Type.get()
    with op.location, ir.InsertionPoint(op):
        ranges = tensor.EmptyOp([g.c, g.kh, kb_n], elem).result
        zero = arith.ConstantOp(elem, ir.FloatAttr.get(elem, 0.0)).result
        part_init = _fill(zero, [g.n, g.f, g.oh, g.ow, v])
        gen = linalg.GenericOp([part_init.type], [ranges], [part_init],
                               ir.ArrayAttr.get([ir.AffineMapAttr.get(_dmap(8, [5, 6, 7])),
                                                 ir.AffineMapAttr.get(_dmap(8, [0, 1, 2, 3, 4]))]),
                               _iters(["parallel"] * 5 + ["reduction"] * 3))
        block = gen.regions[0].blocks.append(elem, elem)
        with ir.InsertionPoint(block):
            i64t = ir.IntegerType.get_signless(64)
            n, f, oh, ow, j, c, kh, kb = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result
                                          for d in range(8)]

            def read(src, perm, coords):
                jj = [None] * 4
                for d in range(4):
                    jj[perm[d]] = coords[d]
                return tensor.ExtractOp(src, jj).result

            hi = _add(_mul(oh, g.sh), _mul(kh, g.dh))
            k0 = _mul(kb, v) if kb_n > 1 else None
            # j added last in both (the vectorizer's contiguity check)
            wi = arith.AddIOp(_add(_mul(ow, g.sw), k0) if (g.ow > 1 or k0 is not None)
                              else _cidx(0), j).result
            kwi = arith.AddIOp(k0, j).result if k0 is not None else j
            xv = read(xs, xperm, [n, c, hi, wi])
            wv = read(ws, wperm, [f, c, kh, kwi])
            linalg.YieldOp([math.fma(xv, wv, block.arguments[1])])
        out = _generic([gen.result], init,
                       [_dmap(5, [0, 1, 2, 3, 4]), _dmap(5, [0, 1, 2, 3])],
                       ["parallel"] * 4 + ["reduction"],
                       lambda vp, vo: arith.AddFOp(vo, vp).result)
    op.results[0].replace_all_uses_with(out)
    op.erase()
    return gen.operation


def direct_lanes(g: ConvGeom) -> int:
    return g.kw if g.kw <= 32 else vector_tile(g.kw, 32)


def _direct_script(s: Script, tag: int, g: ConvGeom, threads: int) -> None:
    """The partial sums: a vector along j, a block of outputs of several
    filters (independent accumulators), the reduction loops inside, in an
    outer loop over chunks of channels of DIRECT_CHUNK_BYTES (threads > 1:
    the forall is a parallel region per chunk, so chunks of L2 size, fewer
    regions; see row_block_script)."""
    per_c = 4 * (g.n * g.h * g.w + g.f * g.kh * g.kw)     # bytes of x and w per channel
    budget = DIRECT_CHUNK_BYTES if threads == 1 else DIRECT_CHUNK_BYTES_THREADS
    row_block_script(s, DIRECT_TAG, tag, 1, [1, _f_block(g.f), 1, 1, direct_lanes(g)], 3, 1, 4,
                     red_chunk=divisor_le(g.c, max(1, budget // per_c)))


# --- matmuls with expanded dims -> 2-D matmuls ---------------------------------------

def _groups(dims: list[int | None], members: set[int]) -> list[int] | None:
    """The positions of `members` in an operand's map results, when they form
    one contiguous run (None if absent, [] if none present)."""
    pos = [i for i, d in enumerate(dims) if d in members]
    if pos and pos != list(range(pos[0], pos[0] + len(pos))):
        return None
    return pos


def collapse_matmul(op: ir.Operation) -> bool:
    """A mul-add linalg.generic whose M, N or K dims are split in several loop
    dims (a reshape folded into a matmul by the elementwise fusion's
    reshape propagation, e.g. the input gradient of a Dense layer fed by a
    Flatten: [64, 120] x [120, 16, 5, 5]) -> collapse_shape-d operands, one
    3-D matmul generic (that matmul_info reads, for msmlir-cpu-pack-matmul)
    and an expand_shape of its result. Returns whether it rewrote `op`."""
    from ..common.linalg import _dims_of, _is_mul_add_body
    li = loop_info(op)
    if li is None or li.n_inputs != 2 or len(op.results) != 1 or li.rank <= 3:
        return False
    if not all(isinstance(t, ir.F32Type) for t in li.elem_types) or not _is_mul_add_body(op):
        return False
    if not all(m.is_projected_permutation for m in li.maps):
        return False
    da, db, dc = (_dims_of(m) for m in li.maps)
    sa, sb, sc = set(da), set(db), set(dc)
    if None in sa | sb | sc:
        return False
    m_dims = [d for d in dc if d in sa and d not in sb]
    n_dims = [d for d in dc if d in sb and d not in sa]
    k_dims = [d for d in da if d in sb and d not in sc]
    if sorted(m_dims + n_dims + k_dims) != list(range(li.rank)) or not (m_dims and n_dims and k_dims):
        return False
    if any(li.iterators[d] != "reduction" for d in k_dims) or \
            any(li.iterators[d] != "parallel" for d in m_dims + n_dims):
        return False
    if len(dc) != len(m_dims) + len(n_dims) or dc != m_dims + n_dims:
        return False   # C must be [M..., N...] (the usual orientation)
    # the same dim order of each group in every operand that holds it
    for dims, groups in ((da, (m_dims, k_dims)), (db, (k_dims, n_dims))):
        for grp in groups:
            pos = _groups(dims, set(grp))
            if not pos or [dims[i] for i in pos] != grp:
                return False
    a, b, c_init = op.operands
    fv = _fill_value(c_init)

    def collapse(v, dims, order):
        groups = [[dims.index(d) for d in grp] for grp in order]
        return v if all(len(grp) == 1 for grp in groups) else _collapse(v, groups)

    a_order = (m_dims, k_dims) if da.index(m_dims[0]) < da.index(k_dims[0]) else (k_dims, m_dims)
    b_order = (k_dims, n_dims) if db.index(k_dims[0]) < db.index(n_dims[0]) else (n_dims, k_dims)
    with op.location, ir.InsertionPoint(op):
        a2 = collapse(a, da, a_order)
        b2 = collapse(b, db, b_order)
        shape_c = list(ir.RankedTensorType(c_init.type).shape)
        mm, nn = 1, 1
        for i in range(len(m_dims)):
            mm *= shape_c[i]
        for i in range(len(m_dims), len(dc)):
            nn *= shape_c[i]
        c2 = _fill(fv, [mm, nn]) if fv is not None else collapse(c_init, dc, (m_dims, n_dims))
        amap = [0, 2] if a_order[0] is m_dims else [2, 0]
        bmap = [2, 1] if b_order[0] is k_dims else [1, 2]
        r = _generic([a2, b2], c2, [_dmap(3, amap), _dmap(3, bmap), _dmap(3, [0, 1])],
                     ["parallel", "parallel", "reduction"],
                     lambda va, vb, vc: arith.AddFOp(arith.MulFOp(va, vb).result, vc).result)
        out = _expand(r, shape_c, [list(range(len(m_dims))), list(range(len(m_dims), len(dc)))])
    op.results[0].replace_all_uses_with(out)
    op.erase()
    return True


# --- input gradients: dcol = W^T dY (a matmul), then col2im ----------------------

@dataclass
class GradGeom(ConvGeom):
    """dx[n, c, h, w] = sum over (f, kh, kw, oh, ow) with oh*sh + kh*dh = h + pt and
    ow*sw + kw*dw = w + pl of dy[n, f, oh, ow] * W[f, c, kh, kw]: the forward
    geometry plus the top/left padding. dcol has k = (c, kh, kw) rows and
    p = (n, oh, ow) columns."""
    pt: int
    pl: int

    def contiguous(self) -> bool:
        """Whether the col2im rows are contiguous reads of the flat dcol: unit
        stride along the width, and every row read (dcol row of (c, kh, kw, n,
        oh) shifted by pl - kw*dw, W elements) inside the buffer. The lanes
        that fall outside their own dcol row (into the neighbouring rows) are
        masked off."""
        if self.sw != 1:
            return False
        total = self.k * self.p
        plane = self.p
        last = (self.c - 1) * self.kh * self.kw * plane + (self.kh - 1) * self.kw * plane \
            + (self.n - 1) * self.oh * self.ow + (self.oh - 1) * self.ow
        for kw in range(self.kw):
            shift = self.pl - kw * self.dw
            if kw * plane + shift < 0 or last + kw * plane + shift + self.w - 1 > total - 1:
                return False
        return True


def _input_grad_operands(op: ir.Operation) -> tuple[ir.Value, ir.Value, GradGeom] | None:
    """(dout, w, geometry) of a convolution tagged INPUT_GRAD_TAG, read back
    through the padding of dout and the flip of w, or None when the operands
    are not in the form the lowering emits."""
    try:
        sh, sw, dh, dw, pt, pl, oh, ow = [int(v) for v in
                                          ir.DenseI64ArrayAttr(op.attributes[INPUT_GRAD_TAG])]
    except (ValueError, TypeError, KeyError):
        return None
    if len(op.operands) != 3 or len(op.results) != 1:
        return None
    p, wt, _ = op.operands
    # dout: p itself, tensor.pad(dout), insert_slice(dout, fill), or a crop of the latter
    dout = p
    d = defining_op(dout)
    if d is not None and d.name == "tensor.extract_slice":
        src = defining_op(d.operands[0])
        if src is not None and src.name == "tensor.insert_slice":
            d = src
    if d is not None and d.name in ("tensor.pad", "tensor.insert_slice"):
        dout = d.operands[0]
    # w: the source of the flip generic's tensor.extract
    g = defining_op(wt)
    if g is None or g.name != "linalg.generic" or len(g.operands) != 1:
        return None
    extracts = [o for o in g.regions[0].blocks[0].operations if o.operation.name == "tensor.extract"]
    if len(extracts) != 1:
        return None
    w = extracts[0].operation.operands[0]
    types = [static_tensor(v.type) for v in (dout, w, op.results[0])]
    if any(t is None for t in types):
        return None
    if not all(isinstance(t.element_type, ir.F32Type) for t in types):
        return None
    (n, f, oh2, ow2), (f2, c, kh, kw), (n2, c2, h, wd) = (list(t.shape) for t in types)
    if (oh2, ow2) != (oh, ow) or n != n2 or f != f2 or c != c2:
        return None
    if list(static_tensor(wt.type).shape) != [c, f, kh, kw]:
        return None
    if min(sh, sw, dh, dw) < 1 or min(pt, pl) < 0:
        return None
    return dout, w, GradGeom(n, c, h, wd, f, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl)


def _build_col2im(flat: ir.Value, g: GradGeom, init: ir.Value) -> ir.Operation:
    """dx = init + the sum, for each input pixel, of the dcol entries that map
    to it: a linalg.generic over (n, c, h, w, kh, kw) (the window dims are
    reductions, ranged by an empty [KH, KW] input) that reads the flat dcol
    [(c, kh, kw, n, oh, ow)] with tensor.extract, masked where the window
    position falls between the strides or outside dout."""
    elem = ir.F32Type.get()
    ranges = tensor.EmptyOp([g.kh, g.kw], elem).result
    op = linalg.GenericOp([init.type], [ranges], [init],
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(_dmap(6, [4, 5])),
                                            ir.AffineMapAttr.get(_dmap(6, [0, 1, 2, 3]))]),
                          _iters(["parallel"] * 4 + ["reduction"] * 2))
    block = op.regions[0].blocks.append(elem, elem)
    contiguous = g.contiguous()
    with ir.InsertionPoint(block):
        i64t = ir.IntegerType.get_signless(64)
        n, c, h, w, kh, kw = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result for d in range(6)]
        def cmp(pred, a, b):
            return arith.CmpIOp(pred, a, b).result

        def window_pos(x, k, pad, dil, stride, size):
            """(valid, position in dout clamped to [0, size)) of x + pad - k*dil."""
            t = arith.SubIOp(_add(x, _cidx(pad) if pad else None), _mul(k, dil)).result
            ok = arith.AndIOp(cmp(arith.CmpIPredicate.sge, t, _cidx(0)),
                              cmp(arith.CmpIPredicate.slt, t, _cidx(size * stride))).result
            if stride > 1:
                ok = arith.AndIOp(ok, cmp(arith.CmpIPredicate.eq,
                                          arith.RemSIOp(t, _cidx(stride)).result, _cidx(0))).result
                t = arith.DivSIOp(t, _cidx(stride)).result
            t = arith.MaxSIOp(arith.MinSIOp(t, _cidx(size - 1)).result, _cidx(0)).result
            return ok, t

        ok_h, oh = window_pos(h, kh, g.pt, g.dh, g.sh, g.oh)
        plane = g.p
        base = _add(_add(_add(_mul(c, g.kh * g.kw * plane), _mul(kh, g.kw * plane)),
                         _add(_mul(kw, plane), _mul(n, g.oh * g.ow))), _mul(oh, g.ow))
        if contiguous:
            # the row read starts pl - kw*dw before w: index = (base + pl - kw*dw) + w,
            # w added last (the vectorizer's contiguity check)
            tw = arith.SubIOp(_add(w, _cidx(g.pl) if g.pl else None), _mul(kw, g.dw)).result
            ok_w = arith.AndIOp(cmp(arith.CmpIPredicate.sge, tw, _cidx(0)),
                                cmp(arith.CmpIPredicate.slt, tw, _cidx(g.ow))).result
            start = arith.SubIOp(_add(base, _cidx(g.pl) if g.pl else None), _mul(kw, g.dw)).result
            idx = arith.AddIOp(start, w).result
        else:
            ok_w, ow = window_pos(w, kw, g.pl, g.dw, g.sw, g.ow)
            idx = arith.AddIOp(base, ow).result
        v = tensor.ExtractOp(flat, [idx]).result
        ok = arith.AndIOp(ok_h, ok_w).result
        zero = arith.ConstantOp(elem, ir.FloatAttr.get(elem, 0.0)).result
        linalg.YieldOp([arith.AddFOp(block.arguments[1], arith.SelectOp(ok, v, zero).result).result])
    return op.operation


def _slice_n(v: ir.Value, n0: ir.Value, step: int) -> ir.Value:
    """v[n0:n0+step] along dim 0 of a 4-D tensor."""
    t = ir.RankedTensorType(v.type)
    sizes = [step] + list(t.shape)[1:]
    return tensor.ExtractSliceOp(ir.RankedTensorType.get(sizes, t.element_type), v, [n0], [], [],
                                 ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                 ir.DenseI64ArrayAttr.get(sizes),
                                 ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result


def _input_grad_body(dout: ir.Value, w: ir.Value, g: GradGeom, out_init: ir.Value) -> ir.Operation:
    """dT = dout as [F, P]; dcol = W^T dT; col2im into out_init; returns the col2im."""
    elem = ir.F32Type.get()
    ident = _dmap(4, [0, 1, 2, 3])
    dt = _generic([dout], tensor.EmptyOp([g.f, g.n, g.oh, g.ow], elem).result,
                  [_dmap(4, [1, 0, 2, 3]), ident], ["parallel"] * 4, lambda v, _o: v)
    b = _collapse(dt, [[0], [1, 2, 3]])                    # [F, P]
    a = _collapse(w, [[0], [1, 2, 3]])                     # [F, K]
    zero = arith.ConstantOp(elem, ir.FloatAttr.get(elem, 0.0)).result
    dcol = _generic([a, b], _fill(zero, [g.k, g.p]),
                    [_dmap(3, [2, 0]), _dmap(3, [2, 1]), _dmap(3, [0, 1])],
                    ["parallel", "parallel", "reduction"],
                    lambda va, vb, vc: arith.AddFOp(arith.MulFOp(va, vb).result, vc).result)
    flat = _collapse(dcol, [[0, 1]])
    return _build_col2im(flat, g, out_init)


def grad_step(g: GradGeom, col_chunk: int) -> int:
    """Images per iteration of the batch loop (g.n: no loop): dcol of a chunk
    at most col_chunk elements (it and its packed copy stay in L2)."""
    if g.k * g.p <= col_chunk or g.n == 1:
        return g.n
    return divisor_le(g.n, max(1, col_chunk // (g.k * g.oh * g.ow)))


def rewrite_input_grad(op: ir.Operation, dout: ir.Value, w: ir.Value, g: GradGeom,
                       col_chunk: int = GRAD_CHUNK) -> ir.Operation:
    """Replaces the input-gradient convolution `op` by dcol[(c, kh, kw), (n, oh,
    ow)] = W^T dY (one matmul, K = F: no multiply-add on a zero) and the col2im
    generic, in a loop over batch chunks when dcol is big; returns the col2im."""
    init = op.operands[2]
    fv = _fill_value(init)
    elem = ir.F32Type.get()
    step = grad_step(g, col_chunk)
    with op.location, ir.InsertionPoint(op):
        out_init = _fill(fv, [g.n, g.c, g.h, g.w]) if fv is not None else init
        if step == g.n:
            col2im = _input_grad_body(dout, w, g, out_init)
            result = col2im.results[0]
        else:
            gc = replace(g, n=step)
            loop = scf.ForOp(_cidx(0), _cidx(g.n), _cidx(step), [out_init])
            with ir.InsertionPoint(loop.body):
                n0 = loop.induction_variable
                acc = loop.inner_iter_args[0]
                col2im = _input_grad_body(_slice_n(dout, n0, step), w, gc, _slice_n(acc, n0, step))
                sizes = [step, g.c, g.h, g.w]
                upd = tensor.InsertSliceOp(col2im.results[0], acc, [n0], [], [],
                                           ir.DenseI64ArrayAttr.get([_DYN, 0, 0, 0]),
                                           ir.DenseI64ArrayAttr.get(sizes),
                                           ir.DenseI64ArrayAttr.get([1, 1, 1, 1])).result
                scf.YieldOp([upd])
            result = loop.results[0]
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return col2im


def convs_to_matmuls(func: ir.Operation, threads: int, col_chunk: int = COL_CHUNK,
                     grad_chunk: int = GRAD_CHUNK) -> ir.Operation:
    rewritten = []
    col2ims = []
    directs = []
    fwds = []
    for op in walk_ops(func, [], lambda o: o.name == "linalg.generic"):
        collapse_matmul(op)
    for op in walk_ops(func, [], lambda o: o.name == _CONV and INPUT_GRAD_TAG in o.attributes):
        got = _input_grad_operands(op)
        if got is None or got[2].macs < MATMUL_MIN_WORK:
            del op.attributes[INPUT_GRAD_TAG]
            continue
        col2im = rewrite_input_grad(op, *got, col_chunk=grad_chunk)
        col2im.attributes[COL2IM_TAG] = i64(len(col2ims))
        col2ims.append(col2im.location)
    for op in walk_ops(func, [], lambda o: o.name in (_CONV, _GROUPED)):
        if op.name == _GROUPED:
            emit_remark(op.location, "msmlir-cpu-conv-to-matmul: grouped convolution "
                                     "(conv_2d_ngchw_gfchw) keeps the plain path")
            continue
        g = conv_geom(op)
        if isinstance(g, str):
            emit_remark(op.location, f"msmlir-cpu-conv-to-matmul: {g}; this convolution keeps "
                                     "the plain path")
            continue
        if g.macs < MATMUL_MIN_WORK:
            continue
        if fwd_direct_ok(g) and _fill_value(op.operands[2]) is not None:
            loc = op.location
            rewrite_fwd(op, g).attributes[FWD_TAG] = i64(len(fwds))
            fwds.append((loc, g))
            continue
        if direct_ok(g):
            gen = rewrite_direct(op, g)
            gen.attributes[DIRECT_TAG] = i64(len(directs))
            directs.append((gen.location, g))
            continue
        pl = plan_conv(g, col_chunk)
        loc = op.location
        im2col = rewrite_conv(op, g, pl)
        im2col.attributes[IM2COL_TAG] = i64(len(rewritten))
        rewritten.append((loc, pl.chunk(g), pl))
    if not rewritten and not col2ims and not directs and not fwds:
        return func
    s = Script()
    for tag, (_, g) in enumerate(fwds):
        _fwd_script(s, tag, g)
    for tag, (_, g) in enumerate(directs):
        _direct_script(s, tag, g, threads)
    for tag, (_, g, pl) in enumerate(rewritten):
        _im2col_script(s, tag, threads, g, pl)
    for tag in range(len(col2ims)):
        op = walk_ops(func, [], lambda o, t=tag: COL2IM_TAG in o.attributes
                      and ir.IntegerAttr(o.attributes[COL2IM_TAG]).value == t)[0]
        mark = len(s.lines)
        seq = s.begin_suppressed("%root")
        if window_script(s, seq, tag, loop_info(op), threads, key=COL2IM_TAG):
            s.end_sequence()
        else:   # 1-pixel-wide images: nothing to vectorize along, scalar loops
            del s.lines[mark:]
            del op.attributes[COL2IM_TAG]
    s.patterns("%root", ["vector.transfer_permutation_patterns",
                         "vector.cast_away_vector_leading_one_dim", "canonicalization"])
    func, error = apply_or_restore(func, s.text())
    left = {ir.IntegerAttr(o.attributes[IM2COL_TAG]).value
            for o in walk_ops(func, [], lambda o: IM2COL_TAG in o.attributes)}
    left_col2im = {ir.IntegerAttr(o.attributes[COL2IM_TAG]).value
                   for o in walk_ops(func, [], lambda o: COL2IM_TAG in o.attributes)}
    left_direct = {ir.IntegerAttr(o.attributes[DIRECT_TAG]).value
                   for o in walk_ops(func, [], lambda o: DIRECT_TAG in o.attributes)}
    left_fwd = {ir.IntegerAttr(o.attributes[FWD_TAG]).value
                for o in walk_ops(func, [], lambda o: FWD_TAG in o.attributes)}
    strip_attrs(func, (IM2COL_TAG, COL2IM_TAG, DIRECT_TAG, FWD_TAG))
    for tag in sorted(left_fwd):
        emit_remark(fwds[tag][0], "msmlir-cpu-conv-to-matmul: the direct forward kernel of this "
                                  "convolution was not vectorized; it keeps the plain path"
                                  + (f": {error}" if error else ""))
    for tag in sorted(left_direct):
        emit_remark(directs[tag][0], "msmlir-cpu-conv-to-matmul: the direct reduction of this "
                                     "convolution was not vectorized; it takes the generic path"
                                     + (f": {error}" if error else ""))
    for tag in sorted(left_col2im):
        emit_remark(col2ims[tag], "msmlir-cpu-conv-to-matmul: the col2im of this input "
                                  "gradient was not vectorized; it takes the generic path"
                                  + (f": {error}" if error else ""))
    for tag in sorted(left):
        emit_remark(rewritten[tag][0], "msmlir-cpu-conv-to-matmul: the im2col gather of this "
                                       "convolution was not vectorized; it takes the generic path"
                                       + (f": {error}" if error else ""))
    return func


@register_pass("msmlir-cpu-conv-to-matmul",
               "Static f32 linalg.conv_2d_nchw_fchw (forward and both gradients) -> vectorized "
               "im2col gather + one 2-D matmul (for msmlir-cpu-pack-matmul) + transpose to NCHW",
               options={"threads": Option(int, 1, "split the im2col gather's outermost loop into "
                                                  "this many scf.forall tasks (1: serial)"),
                        "col-chunk": Option(int, COL_CHUNK, "im2col elements per iteration of the "
                                                            "chunk loop (bigger convolutions loop)")})
def conv_to_matmul(module: ir.Operation, *, threads: int, col_chunk: int):
    for func in list(funcs(module)):
        try:
            convs_to_matmuls(func, threads, col_chunk, min(GRAD_CHUNK, col_chunk))
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            strip_attrs(module, (IM2COL_TAG, COL2IM_TAG, DIRECT_TAG, FWD_TAG))
            emit_remark(func.location, "msmlir-cpu-conv-to-matmul: internal error, the remaining "
                                       f"convolutions keep the plain path: {type(e).__name__}: {e}")
